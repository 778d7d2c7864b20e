"""Atomic file writes, and the temporary files they leave if a writer is killed.

A reader (or an interrupted run) sees the old file or the new one, never half of
it. Each temporary file belongs to the process that made it: its name carries
the writer's process id, ``.<name>.<pid>.tmp<suffix>``, so that a cleaner can tell
a live writer's file from one left by a dead writer (see :func:`orphaned`).
"""

from __future__ import annotations

import os
import re
from contextlib import contextmanager
from pathlib import Path

__all__ = ["atomic_path", "write_text_atomic", "temp_path", "temp_owner", "orphaned", "pid_alive"]

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
    """Yield a temporary path beside ``path``; on success it replaces ``path``, else it is removed."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path(path)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_text_atomic(path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (and durably: the data is synced before the rename)."""
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
