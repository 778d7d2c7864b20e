"""A disk cache of exact solutions, so that a solve done once serves every process.

A study plays the 3-player equilibrium in two worker processes, and the main job runs
it for four presets: solving each one in every process would cost minutes each time.
The solver stores what it found here, and any process (or a later run) loads it.

Where: ``$FOUR21SIM_CACHE_DIR`` if set (``off`` turns the cache off), else
``$XDG_CACHE_HOME/four21sim``, else ``~/.cache/four21sim``. What may be trusted: an
entry is a ``.npz`` file named by the SHA-256 of its *key* (everything that decides
the solution: the variant's options, the solver's arguments, the source code of the
solver and of the rules, the numpy version) and it holds that key. An entry whose
key differs, that cannot be read, or whose arrays do not fit, is ignored (and then
replaced): a damaged or foreign cache costs time, never a wrong answer. A cache that
cannot be written is skipped silently: it is an optimisation only. Entries are
written atomically (:mod:`four21sim._util.atomic`). Deleting the folder is always safe.

One solve for processes side by side: a solver that misses an entry takes the entry's lock
(:func:`solving`, a ``.lock`` file beside it, an advisory ``flock``) and looks again before it
solves, so a second process asking the same solution waits for the first one's and reads it
instead of solving it too (two terminals asking for the 4-player game, the test suite's two
workers), and says so on stderr when it has to wait. A lock is released when its process ends,
however it ends; where ``flock`` does not exist (Windows) or the folder cannot be written, each
process solves on its own, as before.

A cache that cannot lie: the verification hook
----------------------------------------------
A well-formed entry under the right key can still be wrong (edited, swapped columns,
NaN, a gain or a length made up). So the solver that reads an entry passes ``verify`` to
:func:`load`: a callable that receives the arrays (and ``"__meta__"``) and returns None if
they are a solution of the game, or a short reason if not. An entry that fails is reported
in one warning (:class:`CacheWarning`), deleted, and the caller solves again and stores the
new solution. ``verify`` may raise any exception: that counts as a failure.

The rule: every number an entry serves is checked against the game's equations, or is not
stored. The n-player solver's entries (3 to 8 players, and the games of 2 players it stores:
``nplayer.solve(v, 2)`` and the games of fewer players under ``end = last_holder``, inside
the entry under ``sub{k}.``) are checked by :func:`four21sim.exact.nplayer.verify_entry`,
field by field (:data:`four21sim.exact.nplayer.ENTRY_FIELDS`):

======================================  =================================================================
field                                   how it is checked when read
======================================  =================================================================
``states``                              equal to the game's states
``dist_index``, ``dist_prob``           distributions; every round solved again from the stored values
                                        gives them (one pass over the states)
``value``, ``p_pay``, ``p_win``         the exact values of the chain of those distributions
``rounds``                              the solution of the chain's equations ``r = 1 + P r``
``basis``                               every round solved again from it gives the distributions; in
                                        the charge, the utilities that round gives
``gain``                                ``value + gain`` satisfies every role's best-response equations
                                        in every state (one best-response pass); zero uncertified
``residual``                            recomputed from ``basis`` (one décharge pass): equal
``converged``                           recomputed: ``residual`` within the solve's ``tol``
players, objective, tie, options,       equal to what the solve asked for
format, ``dist_shape``, ``subs``
iterations, timings, info               not stored (the solve's history cannot be checked): None
======================================  =================================================================

The cost is two passes of the round kernel over the states (one of the profile, one of the best
responses): about the solve's charge pass and its certificate, without its décharge iterations
(docs/nplayer.md gives measured times). The 2-player solver
(:mod:`four21sim.exact.two_player`) stores nothing on disk (its solutions are kept in the
process's memory only).

A long solve's checkpoint (:mod:`four21sim.exact.checkpoint`) is a file beside its entry, under the
same key: ``<entry>.resume.npz`` instead of ``<entry>.npz`` (:func:`checkpoint_path`), written while
the solve holds the entry's lock and removed once the entry is stored. With the cache off there is none.

``FOUR21SIM_CACHE_DIR``: ``~`` is expanded; a folder that cannot be used (a name too
long, not a folder, not creatable) turns the cache off for the process, with one warning.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from .._util.atomic import atomic_path
from .._util.waiting import say, speaker, unstoppable

try:
    import fcntl
except ImportError:  # (Windows: no advisory locks, each process solves on its own)
    fcntl = None

__all__ = ["cache_dir", "code_hash", "entry_key", "load", "store", "solving", "checkpoint_path", "CacheWarning",
           "MAX_ENTRY_BYTES", "CHECKPOINT_SUFFIX"]

_PACKAGE = Path(__file__).resolve().parent.parent
MAX_ENTRY_BYTES = 1 << 30
"""The largest entry read (a 3-player solution at 30 tokens is some 100 MB)."""
_REFUSED: set[str] = set()  # cache folders already reported unusable by this process


class CacheWarning(UserWarning):
    """The disk cache was skipped (unusable folder) or an entry was refused (and is solved again)."""


def _usable(path: Path, source: str) -> bool:
    """Whether ``path`` can serve as the cache folder (it, or the nearest folder above it that
    exists, is a folder: the missing ones are made on the first write); one warning per process
    if not, naming where the path came from (``source``)."""
    text = str(path)
    try:
        if any(len(p) > 255 for p in path.parts) or len(text) > 4000 or "\0" in text:
            raise OSError(36, "File name too long")
        here = path
        while not os.path.lexists(here) and here.parent != here:
            here = here.parent
        if not here.is_dir():
            raise NotADirectoryError(20, "not a folder")
        os.stat(here)
        return True
    except (OSError, ValueError) as exc:
        if text not in _REFUSED:
            _REFUSED.add(text)
            why = getattr(exc, "strerror", None) or exc
            warnings.warn(f"{source}: {text[:80]!r} cannot be used ({why}); the disk cache is off "
                          "for this run (allowed: a folder path, or off)", CacheWarning, stacklevel=3)
        return False


def cache_dir() -> Path | None:
    """The cache folder, or None when the cache is off (or its folder cannot be used)."""
    env = os.environ.get("FOUR21SIM_CACHE_DIR")
    if env is not None:
        if env.strip().lower() in ("", "off", "0", "no"):
            return None
        path, source = Path(os.path.expanduser(env)), "FOUR21SIM_CACHE_DIR"
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = xdg or os.path.join(os.path.expanduser("~"), ".cache")
        path, source = Path(base) / "four21sim", "XDG_CACHE_HOME" if xdg else "the cache folder"
    return path if _usable(path, source) else None


def code_hash(modules: tuple[str, ...]) -> str:
    """SHA-256 of the source of the named package modules (``"exact/nplayer"`` is ``four21sim/exact/nplayer.py``)."""
    h = hashlib.sha256()
    for m in modules:
        h.update(m.encode())
        h.update((_PACKAGE / f"{m}.py").read_bytes())
    return h.hexdigest()


def entry_key(kind: str, **what) -> str:
    """The key of an entry: JSON of what decides it, with the numpy version."""
    return json.dumps({"kind": kind, "numpy": np.__version__, **what}, sort_keys=True, default=str)


def _path(key: str) -> Path | None:
    d = cache_dir()
    return None if d is None else d / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.npz"


CHECKPOINT_SUFFIX = ".resume.npz"
"""The ending of a checkpoint's name, in place of an entry's ``.npz``."""


def checkpoint_path(key: str) -> Path | None:
    """Where the checkpoint of the solve of ``key``'s entry lives (beside the entry), or None with the cache off."""
    path = _path(key)
    return None if path is None else path.with_name(path.stem + CHECKPOINT_SUFFIX)


def load(key: str, verify: Callable[[dict], str | None] | None = None) -> dict | None:
    """The arrays stored under ``key`` (``"__meta__"`` decoded from JSON), or None.

    ``verify(entry)``: None if the entry is right, else why not (see the module
    docstring); an entry that fails is deleted, with one :class:`CacheWarning`.
    """
    path = _path(key)
    if path is None or not path.is_file() or path.is_symlink():
        return None
    try:
        if path.stat().st_size > MAX_ENTRY_BYTES:
            return None
        with np.load(path, allow_pickle=False) as z:
            if z["__key__"].tobytes().decode() != key:
                return None
            out = {k: z[k] for k in z.files if k not in ("__key__", "__meta__")}
            out["__meta__"] = json.loads(z["__meta__"].tobytes().decode())
    except Exception:  # noqa: BLE001  anything unreadable is a miss, and is rewritten
        return None
    if verify is not None:
        try:
            why = verify(out)
        except Exception as exc:  # noqa: BLE001  a verifier that fails refuses the entry
            why = f"its check failed ({type(exc).__name__}: {exc})"
        if why:
            warnings.warn(f"cache entry {path} refused ({why}): solving again and replacing it", CacheWarning,
                          stacklevel=2)
            try:
                path.unlink()
            except OSError:
                pass
            return None
    return out


def store(key: str, arrays: dict, meta: dict) -> bool:
    """Store ``arrays`` and the JSON-able ``meta`` under ``key``; whether it was stored (silently
    skipped if not writable, or once a signal has stopped the command)."""
    path = _path(key)
    if path is None:
        return False
    # a command stopped by a signal ends its process when this write is done, and starts no other
    with unstoppable() as allowed:
        if not allowed:
            return False
        try:
            with atomic_path(path) as tmp:
                with open(tmp, "wb") as f:
                    np.savez(f, __key__=np.frombuffer(key.encode(), dtype=np.uint8),
                             __meta__=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), **arrays)
        except OSError:
            return False
    return True


@contextmanager
def solving(key: str) -> Iterator[None]:
    """Hold the lock of ``key``'s entry while solving it: another process in the same block for the
    same key waits until this one leaves it (then :func:`load` finds the entry stored). Solves
    nested in a solve (the games of fewer players) take their own keys' locks, always from more
    players to fewer, so that two processes cannot wait for each other."""
    path = _path(key)
    fd = None
    if path is not None and fcntl is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path.with_suffix(".lock"), os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:  # another process is solving it: never a silent wait
                say(f"{speaker()}: another process is solving the same game; waiting for its solution (to read "
                    "it from the disk cache) ...")
                fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:  # a folder that cannot be written: no lock, as without the cache
            if fd is not None:
                os.close(fd)
            fd = None
    try:
        yield
    finally:
        if fd is not None:
            os.close(fd)  # (closing releases the lock)
