"""One writer per results folder: an operating-system lock on ``<folder>/.lock``.

The lock is ``flock(2)`` on a file that stays in the folder. The operating system
releases it when its holder exits in any way (a crash or SIGKILL included), so a
dead run never blocks the next one, and nothing has to be cleaned up. The holder
writes its process id into the file, so that a refused writer can name it.

While a process holds the lock, no other run can write in the folder: temporary
files left there by dead processes are provably orphaned and may be removed
(:func:`remove_orphans`).

The lock file is opened without following a link (``O_NOFOLLOW``): a ``.lock`` that is a
symbolic link or a special file is refused, naming it, and never truncated. A hard link is
a plain file to ``O_NOFOLLOW``, so the opened file's link count is checked too: a ``.lock``
with another name (``ln ~/notes.txt results/x/.lock``) is refused the same way, before it is
locked or written. It cannot be replaced by a new file instead, as the other files of the
folder are: a lock works only if every run locks the same file. A run that
swaps the folder for a new one (:func:`~four21sim.study.folder.swap_outputs`) leaves the
lock file it held in the old folder: a waiting run that then gets that lock sees that the
file is no longer the folder's and locks the new one instead.
"""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
import socket
import stat
import time
from pathlib import Path

from .._util.atomic import UnsafePath, open_plain, orphaned

__all__ = ["FolderLock", "FolderBusy", "LOCK_NAME", "remove_orphans"]

LOCK_NAME = ".lock"


class FolderBusy(ValueError):
    """Another live process holds the folder's lock."""


class FolderLock:
    """The exclusive lock of a results folder (a context manager).

    Parameters
    ----------
    folder : path
        The results folder; it must exist.
    wait : bool
        Wait for the holder to finish instead of raising :class:`FolderBusy`.
    on_wait : callable, optional
        Called once with the holder's description before waiting.
    """

    def __init__(self, folder, wait: bool = False, on_wait=None) -> None:
        self.folder = Path(folder)
        self.path = self.folder / LOCK_NAME
        self.wait = wait
        self.on_wait = on_wait
        self._fd: int | None = None

    def holder(self) -> str:
        """Who holds the lock, as written by the holder (or 'unknown')."""
        for _ in range(50):  # the holder writes its id just after locking: give it a moment
            try:
                text = self.path.read_text(encoding="utf-8").strip()
            except OSError:
                text = ""
            if text:
                return text
            time.sleep(0.01)
        return "unknown process"

    def _open(self) -> int:
        try:
            fd = open_plain(self.path, os.O_RDWR | os.O_CREAT)
        except UnsafePath as exc:
            raise UnsafePath(f"--out: {str(self.path)!r} {exc}; the lock of a results folder is a plain file: "
                             "remove it") from None
        self._refuse_links(fd)
        return fd

    def _refuse_links(self, fd: int) -> None:
        """Close ``fd`` and raise :class:`UnsafePath` if its file has another name than the lock's."""
        # the descriptor's own count, not the name's: what is checked is the file that would be written
        links = os.fstat(fd).st_nlink
        if links > 1:
            os.close(fd)
            raise UnsafePath(f"--out: {str(self.path)!r} has {links} links (a hard link to a file elsewhere); "
                             "the lock of a results folder is a plain file of its own: remove it")

    def _still_the_folders(self, fd: int) -> bool:
        try:
            now = os.lstat(self.path)
        except FileNotFoundError:
            return False
        mine = os.fstat(fd)
        return stat.S_ISREG(now.st_mode) and (now.st_ino, now.st_dev) == (mine.st_ino, mine.st_dev)

    def acquire(self) -> "FolderLock":
        told = False
        while True:
            fd = self._open()
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError as exc:
                    if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                        raise
                    if not self.wait:
                        raise FolderBusy(f"--out: {str(self.folder)!r} is being written by another run "
                                         f"({self.holder()}); wait for it to finish, or pass --wait") from None
                    if self.on_wait is not None and not told:
                        self.on_wait(self.holder())
                        told = True
                    fcntl.flock(fd, fcntl.LOCK_EX)
            except BaseException:
                os.close(fd)
                raise
            if self._still_the_folders(fd):
                break
            os.close(fd)  # the folder was swapped while we waited: lock the new one
        self._refuse_links(fd)  # again: a link may have been made while we waited for the holder
        self._fd = fd
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}, since "
                      f"{time.strftime('%Y-%m-%d %H:%M:%S', time.localtime())}\n".encode(), 0)
        return self

    def release(self) -> None:
        if self._fd is not None:
            try:
                # nobody holds it now; a name linked to it meanwhile keeps what it holds
                if os.fstat(self._fd).st_nlink <= 1:
                    os.ftruncate(self._fd, 0)
            except OSError:
                pass
            os.close(self._fd)  # closing the descriptor releases the lock
            self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> "FolderLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def remove_orphans(folder, lock: FolderLock) -> list[Path]:
    """Remove the temporary files and folders left by dead writers where a run writes; returns them.

    Requires ``lock`` held: then no live run of this folder can own them, and the
    writer's process id in each name is checked as well. Only the places a run writes
    are looked at (the folder, ``figures/``, ``parts/`` and its key folders), never
    through a link, and only names of this package's temporary files are removed.
    """
    if not lock.held:
        raise RuntimeError("remove_orphans needs the folder's lock")
    folder = Path(folder)
    places = [folder, folder / "figures", folder / "parts"]
    parts = folder / "parts"
    if parts.is_dir() and not parts.is_symlink():
        places += sorted(Path(e.path) for e in os.scandir(parts) if e.is_dir(follow_symlinks=False))
    gone = []
    for place in places:
        if place.is_symlink() or not place.is_dir():
            continue
        for e in sorted(os.scandir(place), key=lambda e: e.name):
            p = Path(e.path)
            if not orphaned(p):
                continue
            if e.is_dir(follow_symlinks=False):
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink(missing_ok=True)
            gone.append(p)
    return gone
