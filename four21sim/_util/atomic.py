"""Atomic file writes, and the temporary files they leave if a writer is killed.

A reader (or an interrupted run) sees the old file or the new one, never half of
it. A writer replaces only a regular file: a destination that is a symbolic link, a
directory, a FIFO, a socket or a device is refused (:func:`check_destination`), never
followed and never replaced (``--log /dev/full`` run as root must not turn the
machine's ``/dev/full`` into a regular file). Each temporary file belongs to the process that made it: its name carries
the writer's process id, ``.<name>.<pid>.tmp<suffix>``, so that a cleaner can tell
a live writer's file from one left by a dead writer (see :func:`orphaned`).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from contextlib import contextmanager
from pathlib import Path

from .checks import shown

__all__ = ["atomic_path", "write_text_atomic", "temp_path", "temp_owner", "orphaned", "pid_alive", "UnsafePath",
           "kind_of", "read_bounded", "open_plain", "check_tree", "check_destination"]


class UnsafePath(ValueError):
    """A path that is not what a writer or a reader of this package may touch: a symbolic link,
    a special file (FIFO, device, socket), a file too large, or a lock file that is a hard link
    to a file elsewhere. The message says which."""


def kind_of(mode: int) -> str:
    """``"a FIFO"``, ``"a directory"``, ...: what a file of this ``st_mode`` is, for messages."""
    for test, name in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISDIR, "a directory"), (stat.S_ISREG, "a regular file")):
        if test(mode):
            return name
    return "a special file"


def open_plain(path, flags: int = os.O_RDONLY, *, follow: bool = False) -> int:
    """``os.open`` that refuses a symbolic link (unless ``follow``) and anything but a regular file.

    Opened non-blocking, so that a FIFO put in a file's place cannot hang the caller; raises
    :class:`UnsafePath` naming what the path is, or OSError (FileNotFoundError, ...).
    """
    extra = os.O_NONBLOCK | (0 if follow else getattr(os, "O_NOFOLLOW", 0)) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags | extra, 0o644)
    except OSError as exc:
        if not follow and exc.errno in (errno.ELOOP, errno.EMLINK) and os.path.islink(path):
            raise UnsafePath("is a symbolic link (never followed here)") from None
        raise
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise UnsafePath(f"is {kind_of(mode)}, not a regular file")
    os.set_blocking(fd, True)
    return fd


def read_bounded(path, limit: int, *, follow: bool = True) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (:class:`UnsafePath` otherwise, or OSError)."""
    fd = open_plain(path, follow=follow)
    with os.fdopen(fd, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise UnsafePath(f"is larger than {limit:,} bytes")
    return data


def check_tree(root, path) -> None:
    """Refuse ``path`` if it, or any folder between ``root`` and it, is a symbolic link or a special
    file (:class:`UnsafePath` naming the component). Components that do not exist yet are fine."""
    root, path = Path(root), Path(path)
    rel = path.relative_to(root)
    cur = root
    for part in rel.parts:
        cur = cur / part
        try:
            mode = os.lstat(cur).st_mode
        except FileNotFoundError:
            return
        if not (stat.S_ISDIR(mode) or (cur == path and stat.S_ISREG(mode))):
            raise UnsafePath(f"{str(cur)!r} is {kind_of(mode)}; a results folder holds only plain files and "
                             "folders (never followed): remove it")


_DEST = "a regular file or a new name (only a regular file is ever replaced)"


def check_destination(path) -> None:
    """Refuse ``path`` as a destination to write unless it is absent or a regular file.

    Raises :class:`UnsafePath` saying what ``path`` is (a symbolic link, which is neither
    followed nor replaced; a directory, FIFO, socket or device), or that its folder is
    missing or not a folder.
    """
    path = Path(path)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    except NotADirectoryError:
        raise UnsafePath(f"{shown(str(path))} is not allowed (its folder is not a folder); allowed: {_DEST}") from None
    if mode is not None and not stat.S_ISREG(mode):
        raise UnsafePath(f"{shown(str(path))} is not allowed ({kind_of(mode)}); allowed: {_DEST}")


_TEMP = re.compile(r"^\..+\.(\d+)\.tmp(\.[^.]*)?$")


def temp_path(path, suffix: str | None = None) -> Path:
    """The temporary name beside ``path`` owned by this process."""
    path = Path(path)
    return path.with_name(f".{path.name}.{os.getpid()}.tmp{path.suffix if suffix is None else suffix}")


def temp_owner(path) -> int | None:
    """The process id in a temporary file's name, or None if ``path`` is not a temporary file."""
    m = _TEMP.match(Path(path).name)
    return int(m.group(1)) if m else None


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists (on this machine)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, owned by someone else
        return True
    return True


def orphaned(path) -> bool:
    """True for a temporary file whose writer is dead (not this process, no live process).

    Only a process holding the folder's lock may remove what this returns: the lock
    proves no other run of the folder is writing (see :mod:`four21sim.study.lock`).
    """
    pid = temp_owner(path)
    return pid is not None and pid != os.getpid() and not pid_alive(pid)


@contextmanager
def atomic_path(path):
    """Yield a temporary path beside ``path``; on success it replaces ``path``, else it is removed.

    ``path`` itself is never opened: a hard link in its place (a second name of a file
    elsewhere) is replaced by the new file, and the file elsewhere keeps its content.
    Anything but a regular file at ``path`` is refused (:func:`check_destination`), before
    the work and again just before the rename.
    """
    path = Path(path)
    check_destination(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path(path)
    # created here, exclusively and without following a link, so that whoever then opens it by name
    # writes into a new regular file of this process, never through a link planted under its name
    try:
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644))
    except FileExistsError:
        raise UnsafePath(f"{str(tmp)!r} exists already (this process's temporary name): remove it") from None
    try:
        yield tmp
        check_destination(path)  # what the work took time over may have been swapped meanwhile
        os.replace(tmp, path)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)


def write_text_atomic(path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (and durably: the data is synced before the rename)."""
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
