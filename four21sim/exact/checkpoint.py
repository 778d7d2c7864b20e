"""Checkpoints of a long exact solve: its state after each finished pass, so that a solve that is
killed (SIGTERM, SIGKILL, a machine lost) resumes from its last finished pass on the next call,
and ends with the same result, bit for bit, as a solve never interrupted.

A checkpoint is a file beside the solve's disk-cache entry, under the same key
(:func:`four21sim.exact.store.checkpoint_path`): written atomically and synced to the disk
(:mod:`four21sim._util.atomic`) after each pass, while the solve holds the entry's lock
(:func:`four21sim.exact.store.solving`), and removed once the entry is stored. With the disk
cache off there is none.

A checkpoint is data, and is read as such (:meth:`Checkpoint.load`): an ``.npz`` read with
``allow_pickle=False`` from a regular file of bounded size (never through a link), that holds
the key of the solve it belongs to (another solve's is refused), its metadata (JSON) and a
SHA-256 digest of the key, the metadata and every array's name, dtype, shape and bytes (a file
damaged on the way is refused); the caller says which arrays each stage holds and their shapes
(``expect``), and every array must be exactly those, of float64, finite. The temporary files of
writers killed mid-write are removed when the next solve of the same key reads its checkpoint. A refused checkpoint
costs one notice on standard error and a solve from the start, never a wrong answer; and a solve
that resumed checks its result as a disk-cache entry is checked when read (the n-player solver's
``verify_entry``), since a digest proves no more than that the file is whole.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from collections.abc import Callable

import numpy as np

from .._util.atomic import atomic_path, orphaned, read_bounded
from .._util.checks import shown
from .._util.waiting import say, speaker, unstoppable
from . import store

__all__ = ["Checkpoint", "FORMAT"]

FORMAT = 1
"""The form of a checkpoint: bump when it changes (an older one is then refused, and the solve starts over)."""
_RESERVED = ("__key__", "__meta__", "__digest__")
_after_save: Callable[[str, int], None] | None = None
"""Called with (stage, step) after each checkpoint written: where the tests simulate a kill."""


def _digest(key: str, meta: bytes, arrays: dict) -> bytes:
    h = hashlib.sha256()
    h.update(key.encode() + b"\0" + meta)
    for name in sorted(arrays):
        a = arrays[name]
        h.update(f"\0{name}\0{a.dtype.str}\0{a.shape}\0".encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.digest()


class Checkpoint:
    """The checkpoint of the solve of one disk-cache entry (``key``, as :func:`store.entry_key` makes it).

    Parameters
    ----------
    key : str
        The entry's key; the checkpoint lives beside the entry (none with the disk cache off).
    """

    def __init__(self, key: str) -> None:
        if not isinstance(key, str):
            raise ValueError(f"key: {shown(key)} is not allowed; allowed: an entry key (store.entry_key)")
        self.key = key
        self.path = store.checkpoint_path(key)

    def save(self, stage: str, step: int, meta: dict, arrays: dict) -> None:
        """Replace the checkpoint by the state after pass ``step`` of ``stage``: the JSON-able ``meta`` and
        the float64 ``arrays`` (silently skipped where the folder cannot be written: resuming is an
        optimisation, as the cache is; and once a signal has stopped the command)."""
        if self.path is None:
            return
        text = json.dumps(dict(meta, stage=stage, step=int(step), format=FORMAT), sort_keys=True).encode()
        arrays = {k: np.ascontiguousarray(v, dtype=np.float64) for k, v in arrays.items()}
        digest = _digest(self.key, text, arrays)
        with unstoppable() as allowed:  # a command stopped by a signal waits for a write begun
            if not allowed:
                return
            try:
                with atomic_path(self.path) as tmp:
                    with open(tmp, "wb") as f:
                        np.savez(f, __key__=np.frombuffer(self.key.encode(), np.uint8),
                                 __meta__=np.frombuffer(text, np.uint8),
                                 __digest__=np.frombuffer(digest, np.uint8), **arrays)
                        f.flush()
                        os.fsync(f.fileno())  # a machine lost after the rename still finds the pass whole
            except (OSError, ValueError):  # (UnsafePath is a ValueError: something not a file in its place)
                return
        if _after_save is not None:
            _after_save(stage, int(step))

    def load(self, expect: Callable[[dict], dict]) -> tuple[dict, dict] | None:
        """The checkpoint's metadata and arrays, checked, or None if there is none.

        ``expect(meta)`` gives the arrays the checkpoint must hold, name -> shape, or raises
        ValueError saying why the metadata is wrong. A checkpoint that fails any check is
        removed, with one notice: the solve starts over.
        """
        if self.path is None:
            return None
        self._sweep()
        if not os.path.lexists(self.path):
            return None
        try:
            return self._read(expect)
        except Exception as exc:  # noqa: BLE001  whatever is wrong with a file, it is refused, not raised
            why = str(exc) if isinstance(exc, ValueError) and str(exc) else f"it cannot be read: {type(exc).__name__}"
            say(f"{speaker()}: checkpoint: {shown(str(self.path))} is not allowed ({why}); allowed: this solve's "
                "own checkpoint, whole; solving from the start")
            self.remove()
            return None

    def _read(self, expect: Callable[[dict], dict]) -> tuple[dict, dict]:
        data = read_bounded(self.path, store.MAX_ENTRY_BYTES, follow=False)
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            if not set(_RESERVED) <= set(z.files):
                raise ValueError("it is not a checkpoint")
            raw = {k: z[k] for k in z.files}
        if any(raw[k].dtype != np.uint8 or raw[k].ndim != 1 for k in _RESERVED):
            raise ValueError("it is not a checkpoint")
        if raw["__key__"].tobytes() != self.key.encode():
            raise ValueError("it is another solve's")
        text = raw["__meta__"].tobytes()
        arrays = {k: v for k, v in raw.items() if k not in _RESERVED}
        if _digest(self.key, text, arrays) != raw["__digest__"].tobytes():
            raise ValueError("its digest does not match its contents: damaged")
        meta = json.loads(text.decode())
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise ValueError(f"it is not of the form {FORMAT}")
        shapes = expect(meta)
        if set(arrays) != set(shapes):
            raise ValueError(f"its arrays are not those of stage {shown(meta.get('stage'))}")
        for name, shape in shapes.items():
            a = arrays[name]
            if a.dtype != np.float64 or a.shape != tuple(shape):
                raise ValueError(f"its {name} is {a.dtype}{list(a.shape)}, not float64{list(shape)}")
            if not np.isfinite(a).all():
                raise ValueError(f"its {name} holds numbers that are not finite")
        return meta, arrays

    def _sweep(self) -> None:
        """Remove the temporary files of this checkpoint left by writers that died mid-write (a SIGKILL):
        at 6 players some 23 MB each. Only the solver holding the entry's lock calls this, so no live
        writer of this checkpoint but itself exists (and a live process's file is kept anyway)."""
        try:
            for tmp in self.path.parent.glob(f".{self.path.name}.*.tmp*"):
                if orphaned(tmp):
                    os.unlink(tmp)
        except OSError:
            pass

    def remove(self) -> None:
        """Remove the checkpoint (the entry is stored, or the checkpoint was refused)."""
        if self.path is None:
            return
        try:
            os.unlink(self.path)
        except OSError:
            pass
