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
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np

from .._util.atomic import atomic_path

__all__ = ["cache_dir", "code_hash", "entry_key", "load", "store"]

_PACKAGE = Path(__file__).resolve().parent.parent


def cache_dir() -> Path | None:
    """The cache folder, or None when the cache is off."""
    env = os.environ.get("FOUR21SIM_CACHE_DIR")
    if env is not None:
        return None if env.strip().lower() in ("", "off", "0", "no") else Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "four21sim"


def code_hash(modules: tuple[str, ...]) -> str:
    """SHA-256 of the source of the named package modules (``"exact/solver3"`` is ``four21sim/exact/solver3.py``)."""
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


def load(key: str) -> dict | None:
    """The arrays stored under ``key`` (``"__meta__"`` decoded from JSON), or None."""
    path = _path(key)
    if path is None or not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            if z["__key__"].tobytes().decode() != key:
                return None
            out = {k: z[k] for k in z.files if k not in ("__key__", "__meta__")}
            out["__meta__"] = json.loads(z["__meta__"].tobytes().decode())
        return out
    except Exception:  # noqa: BLE001  anything unreadable is a miss, and is rewritten
        return None


def store(key: str, arrays: dict, meta: dict) -> None:
    """Store ``arrays`` and the JSON-able ``meta`` under ``key`` (silently skipped if not writable)."""
    path = _path(key)
    if path is None:
        return
    try:
        with atomic_path(path) as tmp:
            with open(tmp, "wb") as f:
                np.savez(f, __key__=np.frombuffer(key.encode(), dtype=np.uint8),
                         __meta__=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), **arrays)
    except OSError:
        pass
