"""The leader's values of the shipped equilibria, stored beside them for the advisor's page.

The page gives a leader's game answer from the leader's utility after each way its turn can end
(:func:`four21sim.exact.round_tables.lead_ends`: every follower then playing the equilibrium), a
whole round solved per state: at 5 players 210 décharge states of some 0.3 s of CPU each, most of
a ``four21sim site`` build (about 2 minutes for the default site, 10 for every preset). Those
values are a function of the shipped equilibrium alone, so they are computed once, by
``experiments/ship_solutions.py --lead``, and ship as ``<solution>.lead.npz`` beside the solution
file of :mod:`four21sim.exact.shipped`.

What a file is
--------------
A zip of ``.npy`` arrays, written and read as :mod:`~four21sim.exact.shipped` writes and reads a
solution (the floats as byte planes, same bytes for the same values): ``states`` (the state
numbers, in the solution's order of states), ``lead_ends`` (float64, ``[state, throws - 1, hand]``,
as :func:`~four21sim.exact.round_tables.lead_ends` gives each), and ``__key__`` (JSON): the
solution's game key (:func:`four21sim.exact.shipped.game_key`) and the SHA-256 of the solution
file's bytes it was computed from.

What is trusted
---------------
Nothing but what is checked (:func:`load`): the key must be the game's and the digest the solution
file's as installed (a solution shipped again voids its leader's values); the arrays must have the
shapes of the game and be finite; and the rounds of :data:`SAMPLES` of the states, drawn with a
fixed seed, solved again, must give the stored values within :data:`TOL`. A file that fails is
ignored with one :class:`~four21sim.exact.shipped.ShippedWarning`, and the values are computed as
they would be without it. As for the solutions, a file that ships with the code is not read
again in full (that would be the computation it saves): a stored value of a state not drawn is
trusted as the code that checks it is.
"""

from __future__ import annotations

import hashlib
import json
import warnings
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from . import round_tables, shipped

__all__ = ["SAMPLES", "TOL", "path_of", "key_of", "compute", "write", "load"]

SAMPLES = 3
"""States whose rounds are solved again when a file is read (at 5 players some 0.3 s of CPU each)."""
SEED = 421
TOL = 1e-12
"""How far a stored value may be from its round's, solved again."""


def path_of(sol) -> Path | None:
    """Where the leader's values of the shipped equilibrium ``sol`` would be (None: no file ships for its game)."""
    p = shipped.path_of(sol.variant, sol.players, sol.objective, sol.tie)
    return None if p is None else p.with_name(p.name[:-len(".npz")] + ".lead.npz")


def key_of(sol, solution_file: Path) -> dict:
    """The key of the leader's values of ``sol``: its game's and the digest of ``solution_file``."""
    return {"game": json.loads(shipped.game_key(sol.variant, sol.players, sol.objective, sol.tie)),
            "solution_sha256": hashlib.sha256(Path(solution_file).read_bytes()).hexdigest()}


def compute(sol, states: Sequence[int], progress=None) -> np.ndarray:
    """``[i, f - 1, h]``: :func:`~four21sim.exact.round_tables.lead_ends` of each of ``states``."""
    out = []
    for k, s in enumerate(states):
        if progress:
            progress(k, len(states))
        out.append(round_tables.lead_ends(sol, int(s)))
    return np.array(out, np.float64).reshape(len(states), -1, out[0].shape[-1] if out else 0)


def write(sol, states: Sequence[int], solution_file: Path, path: Path, ends: np.ndarray | None = None) -> int:
    """Write the leader's values of ``states`` (``ends``, default :func:`compute`'s) to ``path``
    (atomically, in :func:`four21sim.exact.shipped.encode`'s form); returns the file's size in bytes."""
    states = np.asarray(states, np.int64)
    arrays = shipped.encode({"states": states, "lead_ends": compute(sol, states) if ends is None else ends})
    texts = {"__key__": json.dumps(key_of(sol, solution_file), sort_keys=True),
             "__encoding__": json.dumps(arrays.pop("__encoding__"), sort_keys=True)}
    return shipped.write_arrays(path, arrays, texts)


def _why_not(sol, states: Sequence[int], entry: dict, solution_file: Path) -> str | None:
    if entry.get("__key__") != json.loads(json.dumps(key_of(sol, solution_file), sort_keys=True)):
        return "its key is not this solution's"
    st, ends = entry.get("states"), entry.get("lead_ends")
    want = np.asarray(states, np.int64)
    if not (isinstance(st, np.ndarray) and st.dtype == np.int64 and np.array_equal(st, want)):
        return "its states are not the ones asked"
    sample = round_tables.lead_ends(sol, int(want[0])) if len(want) else np.zeros((0, 0))
    if not (isinstance(ends, np.ndarray) and ends.dtype == np.float64 and ends.shape == (len(want),) + sample.shape
            and np.isfinite(ends).all()):
        return "its values do not have the game's shape"
    rng = np.random.default_rng(SEED)
    drawn = rng.choice(len(want), min(SAMPLES, len(want)), replace=False) if len(want) else []
    for i in drawn:
        moved = float(np.abs(round_tables.lead_ends(sol, int(want[i])) - ends[i]).max())
        if not moved <= TOL:
            return f"the leader's values of state {int(want[i])} are not its round's (moved by {moved:.3g})"
    return None


def load(sol, states: Sequence[int]) -> np.ndarray | None:
    """The shipped leader's values of ``states`` of the equilibrium ``sol`` (as :func:`compute` gives
    them), checked (module docstring), or None where none ship or the file is refused (with a warning)."""
    path = path_of(sol)
    solution_file = shipped.path_of(sol.variant, sol.players, sol.objective, sol.tie)
    if not shipped.enabled() or path is None or not path.is_file() or not solution_file.is_file():
        return None
    try:
        entry = shipped.read(path)
        why = _why_not(sol, states, entry, solution_file)
    except (OSError, EOFError, ValueError, KeyError, TypeError, zipfile.BadZipFile, UnicodeDecodeError) as exc:
        why = f"it cannot be read ({exc})"
    if why:
        warnings.warn(f"the shipped leader's values {path.name} are not used: {why}; they are computed instead",
                      shipped.ShippedWarning, stacklevel=2)
        return None
    return entry["lead_ends"]
