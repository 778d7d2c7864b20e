"""The equilibria that ship with the package: find the one of a game, read it, check it, return it.

The first solve of a preset's n-player equilibrium costs minutes to an hour
(:data:`four21sim.exact.nplayer.FIRST_SOLVE`); the default-tie-order equilibrium of each preset at
each size the solver reaches is therefore solved once, by ``experiments/ship_solutions.py``, and
shipped in ``four21sim/exact/solutions/`` (docs/nplayer.md, "Shipped solutions").
:func:`four21sim.exact.nplayer.solve` asks :func:`load` first and solves (and caches) only when
nothing ships for the game.

What a file is
--------------
A zip of ``.npy`` arrays (an ``.npz``), written by :func:`write`: the arrays of
:func:`four21sim.exact.nplayer.to_arrays`, its metadata (``__meta__``), the file's *key*
(``__key__``: the variant's options, the players, the objective, the tie order, the solver's
arguments and :data:`FORMAT`; the solver's source is not in it, so a shipped solution outlives
edits to the code) and how it was produced (``__produced__``), all JSON. Every entry carries the
same date and the arrays are compressed, so that one solution always gives the same bytes.

The arrays are stored in a form that compresses (``__encoding__``, JSON: each encoded array's
name, :data:`ENCODINGS` entry and shape), decoded bit for bit by :func:`read`
(:func:`encode` and :func:`decode`): a float array as its 8 byte planes (the sign and exponent
bytes of the values of one array are nearly all alike, and deflate then finds them), and the
outcome distributions' indices, sorted, as their differences. What follows from the rest is not
stored (:data:`DERIVED`): the states are the game's, and the values, P(pay), win shares and
expected rounds are what the chain of the stored outcome distributions gives, computed when read
by the solver's own functions (:func:`derive`), as the solve computed them. At 5 players that makes
a file 45% smaller (Super 421: 1,587,084 bytes in format 1); what remains is mostly the outcome
probabilities themselves, which no lossless form shrinks much.

What is trusted
---------------
Nothing but what is checked when it is read (:func:`check`): the key must be the game's, the
arrays must be a solution of it (:func:`four21sim.exact.nplayer.verify_entry`: finite, the values
are what the stored outcome distributions give, the start state's round solved again gives the
stored distribution), and the *fixed point* (:func:`fixed_point`): the rounds of the start state
and of :data:`SAMPLES` states drawn with a fixed seed, solved again from the values the stored
choices were made against, give the stored outcome distributions, and the stored values put back
through them come back to themselves, within :data:`TOL`. A file that fails is ignored, with one
:class:`ShippedWarning`, and the solver runs as it would without it. ``FOUR21SIM_SHIPPED=off``
ignores the shipped solutions altogether (the solver then runs, or reads its disk cache).

These checks guard against a damaged or stale file (another format, another game, a solver that
has changed what it computes), in well under a second at 4 players. They are not the disk
cache's full check (every round and the certificate solved again in every state, about half a
solve: :func:`four21sim.exact.nplayer.verify_entry` with ``full``), because a shipped file is
installed with the code, by the same installer, from the same source: whoever can change it can
change the code that checks it. A disk-cache entry is a file people may send each other, and is
read only after the full check.
"""

from __future__ import annotations

import inspect
import io
import json
import os
import warnings
import zipfile
from pathlib import Path

import numpy as np

from .._util.atomic import atomic_path, read_bounded
from .._util.checks import shown
from ..rules.variants import PRESETS, Variant
from . import _nplayer_game as NG
from . import nplayer
from ._nplayer_profile import _profile_values, _rounds_left, _sub_values
from .store import MAX_ENTRY_BYTES

__all__ = ["FOLDER", "FORMAT", "ENCODINGS", "SAMPLES", "TOL", "ShippedWarning", "enabled", "game_key", "path_of",
           "available", "load", "read", "encode", "decode", "derive", "DERIVED", "check", "check_solution",
           "fixed_point", "write", "write_arrays"]

FOLDER = Path(__file__).resolve().parent / "solutions"
"""Where the shipped solutions are (package data)."""
FORMAT = 2
"""The version of the shipped form: a file of another version is refused (and the game solved).
Format 2 stores the arrays encoded (:data:`ENCODINGS`); format 1 stored them as they are."""
ENCODINGS = {
    "f8-byteplanes": "float64 values as their 8 little-endian byte planes: uint8 of shape (8, size)",
    "sorted-i8-as-u4-steps": "sorted non-negative int64 as the uint32 differences of successive values "
                             "(the first from 0)",
}
"""How an array may be stored (``__encoding__``): nothing else is decoded."""
DERIVED = ("states", "value", "p_pay", "p_win", "rounds")
"""The arrays of :func:`four21sim.exact.nplayer.to_arrays` a shipped file does not store: :func:`derive`
computes them from the game and the outcome distributions."""
SAMPLES = 16
"""States drawn, besides the start, for the fixed-point check: at 4 players it then costs 0.24 to
0.30 s of CPU once the rounds' contexts are built (some 18 ms a round; docs/nplayer.md)."""
SEED = 421
TOL = 1e-12
"""How far a stored value or outcome probability may move when put back through its round."""
_DATE = (1980, 1, 1, 0, 0, 0)  # the zip format's earliest date, on every entry: same solution, same bytes
# the solver's arguments a shipped solution was solved with: those of nplayer.solve by default
_SOLVER = ("tol", "max_iter", "stall", "certify")


class ShippedWarning(UserWarning):
    """A shipped solution was refused (forged, damaged or stale): the game is solved instead."""


def enabled() -> bool:
    """Whether shipped solutions are used (``FOUR21SIM_SHIPPED`` is not ``off``, ``0`` or ``no``)."""
    return os.environ.get("FOUR21SIM_SHIPPED", "").strip().lower() not in ("off", "0", "no")


def _defaults() -> dict:
    params = inspect.signature(nplayer.solve).parameters
    return {k: params[k].default for k in _SOLVER}


def game_key(variant: Variant, players: int, objective: str = "pay", tie: str = "first") -> str:
    """The key of the shipped solution of a game: JSON of what decides it (not the solver's source).

    Parameters
    ----------
    variant : Variant
    players : int
    objective : {'pay', 'win'}
    tie : str
        The tie order (:data:`four21sim.exact.nplayer.TIE_ORDERS`).

    Returns
    -------
    str
    """
    return json.dumps({"kind": "nplayer-shipped", "format": FORMAT, "options": variant.options(),
                       "players": int(players), "objective": objective, "tie": tie, "solver": _defaults()},
                      sort_keys=True)


def _preset_of(variant: Variant) -> str | None:
    return next((name for name, v in PRESETS.items() if v.options() == variant.options()), None)


def _check_game(variant, players, objective, tie) -> None:
    """The arguments of a game, as :func:`four21sim.exact.nplayer.solve` checks them (ValueError)."""
    if not isinstance(variant, Variant):
        raise ValueError(f"variant: {shown(variant)} is not allowed; allowed: a four21sim.Variant")
    nplayer.check_players(players)
    nplayer.check_objective(objective)
    nplayer.check_tie(tie)


def path_of(variant: Variant, players: int, objective: str = "pay", tie: str = "first") -> Path | None:
    """Where the shipped solution of a game would be: None unless ``variant`` is a preset at its
    default options (the file may still be absent). ValueError for a bad argument."""
    _check_game(variant, players, objective, tie)
    name = _preset_of(variant)
    return None if name is None else FOLDER / f"{name}-{int(players)}p-{objective}-{tie}.npz"


def available(variant: Variant, players: int, objective: str = "pay", tie: str = "first") -> bool:
    """Whether a solution of this game ships (and shipped solutions are on): what a command says
    before it waits. The file is still checked when :func:`load` reads it."""
    path = path_of(variant, players, objective, tie)
    return enabled() and path is not None and path.is_file()


def read(path) -> dict:
    """The entries of a shipped file (or a disk-store entry): arrays (decoded, :func:`decode`), and
    ``__key__``, ``__meta__``, ``__produced__`` decoded from JSON where present. Raises OSError or
    ValueError if unreadable."""
    data = read_bounded(path, MAX_ENTRY_BYTES)
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        out = {k: z[k] for k in z.files}
    for k in ("__key__", "__meta__", "__produced__", "__encoding__"):
        if k in out:
            out[k] = json.loads(out[k].tobytes().decode())
    return decode(out) if "__encoding__" in out else out


def encode(arrays: dict) -> dict:
    """The arrays of a solution as a shipped file stores them, with their ``__encoding__`` (a dict).

    Float arrays become their byte planes and ``*dist_index`` its steps (:data:`ENCODINGS`); the
    rest is stored as it is. :func:`decode` gives back the same arrays, bit for bit.
    """
    out, how = {}, {}
    for name, a in arrays.items():
        a = np.asarray(a)
        if a.dtype == np.float64 and a.size:
            out[name] = np.ascontiguousarray(a.astype("<f8").view(np.uint8).reshape(a.size, 8).T)
            how[name] = ["f8-byteplanes", list(a.shape)]
        elif name.endswith("dist_index") and a.dtype == np.int64 and a.ndim == 1 and a.size:
            steps = np.diff(a, prepend=0)
            if steps.min() < 0 or steps.max() >= 2**32:
                raise ValueError(f"{name}: not sorted, or steps beyond 32 bits")
            out[name] = steps.astype(np.uint32)
            how[name] = ["sorted-i8-as-u4-steps", list(a.shape)]
        else:
            out[name] = a
    out["__encoding__"] = how
    return out


def decode(entries: dict) -> dict:
    """The arrays of a shipped file from their stored form (:func:`encode`'s inverse), checked:
    ValueError for an encoding not in :data:`ENCODINGS`, or an array that does not fit it."""
    how = entries["__encoding__"]
    if not isinstance(how, dict):
        raise ValueError("__encoding__ is not a mapping")
    out = {k: v for k, v in entries.items() if k != "__encoding__"}
    for name, spec in how.items():
        if name.startswith("__") or name not in out or not isinstance(spec, list) or len(spec) != 2 \
                or spec[0] not in ENCODINGS or not isinstance(spec[1], list) \
                or not all(type(x) is int and 0 <= x < 2**40 for x in spec[1]):
            raise ValueError(f"__encoding__ of {shown(name)}: {shown(spec)} is not allowed; allowed: "
                             f"[one of {', '.join(ENCODINGS)}, a shape]")
        kind, shape = spec
        size, a = int(np.prod(shape)), out[name]
        if kind == "f8-byteplanes":
            if a.dtype != np.uint8 or a.shape != (8, size):
                raise ValueError(f"{shown(name)}: byte planes of shape {a.shape} do not fit the shape {shape}")
            out[name] = np.ascontiguousarray(a.T).view("<f8").reshape(shape).astype(np.float64)
        else:
            if a.dtype != np.uint32 or a.shape != (size,) or len(shape) != 1:
                raise ValueError(f"{shown(name)}: steps of shape {a.shape} do not fit the shape {shape}")
            out[name] = np.cumsum(a, dtype=np.int64)
    return out


def fixed_point(sol: nplayer.NSolution, samples: int = SAMPLES, seed: int = SEED) -> dict:
    """Put the stored values of the start state and of ``samples`` random states back through their rounds.

    Each round is solved again from the values its choices were made against
    (``sol.choice_values()``, under the solution's tie order); its outcome distribution must be
    the stored one, and the stored values of the states it leads to, weighted by it, must give
    the state's own stored value. Returns the largest difference of each (``dist``, ``value``).
    The distributions are compared in the state's own form (:func:`NG.canonical_dist`): where
    the contexts that computed them differ (a phase's or a pot's), the same round spreads its
    probability over the outcomes that lead to the same differently.
    """
    game = NG.role_game(sol.variant, sol.players)
    rounds = sol._round_solver[0]  # the solution's own, whose contexts then serve its decisions
    others = np.setdiff1d(np.arange(game.size), [sol.start])
    rng = np.random.default_rng(seed)
    picked = np.concatenate([[sol.start], rng.choice(others, min(samples, len(others)), replace=False)])
    subV = _sub_values(sol.subs, sol.objective)
    worst = {"dist": 0.0, "value": 0.0}
    for states in (picked[game.pot[picked] == 0], picked[game.pot[picked] > 0]):
        # a phase's states in one batch (a batch is of one phase): the charge's through contexts that
        # serve every pot picked, merged once, not once per pot (some seconds each at 6 players)
        if not len(states):
            continue
        S = NG.succs(game, states, sol.choice_values(), subV, sol.objective)
        d = rounds.run(states, S, sol.players, want_dist=True)[1]
        back = np.einsum("blwp,blwpj->bj", d, NG.succs(game, states, sol.value, subV, sol.objective))
        worst["dist"] = max(worst["dist"], NG.dist_difference(game, states, d, sol.dist[states]))
        worst["value"] = max(worst["value"], float(np.abs(back - sol.value[states]).max()))
    return worst


def derive(variant: Variant, entry: dict) -> dict:
    """``entry`` (as :func:`read` gives it) with the arrays of :data:`DERIVED` it lacks computed, in the
    game and in the games of fewer players it holds: the game's states, and the chain's values under
    the stored outcome distributions (the solver's ``_profile_values`` and ``_rounds_left``, as the
    solve computes them). An array the entry holds is kept, for the checks to compare.
    ValueError where the entry does not fit the game."""
    out = dict(entry)
    _derive(variant, out, "", out["__meta__"])
    return out


def _derive(variant: Variant, out: dict, prefix: str, meta: dict) -> nplayer.NSolution:
    subs = {int(k): _derive(variant, out, f"{prefix}sub{k}.", meta[f"sub{k}"]) for k in meta["subs"]}
    game = NG.role_game(variant, int(meta["players"]))
    shape = (game.size, game.n, game.n, game.P)
    if [int(x) for x in meta["dist_shape"]] != list(shape):
        raise ValueError(f"{prefix}dist_shape: {shown(meta['dist_shape'])} does not fit the game ({shape})")
    dist = np.zeros(int(np.prod(shape)))
    dist[out[f"{prefix}dist_index"]] = out[f"{prefix}dist_prob"]
    dist = dist.reshape(shape)
    made = {"states": lambda: np.array([(pot,) + tuple(t) for pot, t in NG.role_states(variant.tokens, game.n)],
                                       np.int64)}
    X = {}

    def chain(o: str) -> np.ndarray:
        if o not in X:
            X[o] = _profile_values(game, dist, o, subs)
        return X[o]

    made.update(value=lambda: chain(str(meta["objective"])), p_pay=lambda: 1.0 - chain("pay"),
                p_win=lambda: chain("win"), rounds=lambda: _rounds_left(game, dist, subs))
    for name in DERIVED:
        if prefix + name not in out:
            out[prefix + name] = made[name]()
    sol = nplayer.from_arrays(variant, out, prefix, meta)
    if sol is None:
        raise ValueError(f"{prefix or 'the game'}: its arrays do not fit the game")
    return sol


def check_solution(variant: Variant, players: int, objective: str, tie: str, entry: dict) -> str | None:
    """Why the arrays of ``entry`` (shipped, or a disk-store entry whose key is not checked) are not a
    solution of this game, or None: :func:`four21sim.exact.nplayer.verify_entry`, then
    :func:`fixed_point` within :data:`TOL`."""
    # the cheap form: a shipped file comes with the code (see verify_entry's ``full``); the fixed
    # point below then checks sampled states beyond the start
    try:
        entry = derive(variant, entry)
    except (KeyError, ValueError, TypeError, IndexError) as exc:
        return f"its arrays do not fit this game ({exc})"
    why = nplayer.verify_entry(variant, players, objective, entry, tie, full=False)
    if why:
        return why
    sol = nplayer.from_arrays(variant, entry)
    if sol is None:
        return "its arrays do not fit this game"
    moved = {k: x for k, x in fixed_point(sol).items() if not x <= TOL}
    if moved:
        return f"its values are not a fixed point of their rounds (moved by {moved}, above {TOL:g})"
    return None


def check(variant: Variant, players: int, objective: str, tie: str, entry: dict) -> str | None:
    """Why ``entry`` (as :func:`read` gives it) is not the shipped solution of this game, or None:
    its key (:func:`game_key`), then :func:`check_solution`."""
    if entry.get("__key__") != json.loads(game_key(variant, players, objective, tie)):
        return "its key is not this game's"
    return check_solution(variant, players, objective, tie, entry)


def load(variant: Variant, players: int, objective: str = "pay", tie: str = "first", **solver) -> \
        nplayer.NSolution | None:
    """The shipped solution of a game, checked (:func:`check`), or None.

    Parameters
    ----------
    variant, players, objective, tie
        The game, as :func:`four21sim.exact.nplayer.solve` takes it.
    **solver
        ``tol``, ``max_iter``, ``stall``, ``certify`` as the caller would solve with: a
        solution ships only for :func:`four21sim.exact.nplayer.solve`'s defaults.

    Returns
    -------
    NSolution or None
        None when nothing ships for the game (not a preset at its default options, another
        player count, objective, tie order or solver arguments), when ``FOUR21SIM_SHIPPED`` is
        off, or when the file fails its checks (then with one :class:`ShippedWarning`). Its
        ``info["from"]`` is ``"shipped"``.

    Raises
    ------
    ValueError
        For a bad argument, named with what is allowed.
    """
    _check_game(variant, players, objective, tie)
    if not enabled() or any(solver.get(k, v) != v for k, v in _defaults().items()):
        return None
    path = path_of(variant, players, objective, tie)
    if path is None or not path.is_file():
        return None
    try:
        entry = read(path)
        why = check(variant, players, objective, tie, entry)
        entry = derive(variant, entry) if not why else entry
    except Exception as exc:  # noqa: BLE001  a file that cannot be read or checked is refused, never trusted
        why = f"it cannot be read or checked ({type(exc).__name__}: {exc})"
    if why:
        warnings.warn(f"shipped solution {path.name} refused ({why}): solving instead", ShippedWarning, stacklevel=2)
        return None
    sol = nplayer.from_arrays(variant, entry)
    sol.info.update({"from_cache": False, "from": "shipped"})
    return sol


def write(path, sol: nplayer.NSolution, produced: dict) -> int:
    """Write ``sol`` as the shipped file ``path`` (atomically); returns its size in bytes.

    Parameters
    ----------
    path : path-like
    sol : NSolution
        Solved with :func:`four21sim.exact.nplayer.solve`'s default solver arguments.
    produced : dict
        JSON-able: how it was produced (stored in the file as ``__produced__``).

    The same solution and ``produced`` give the same bytes (sorted entries, one fixed date).
    """
    arrays, meta = nplayer.to_arrays(sol)  # (the solve's history, where it was read from: not stored)
    arrays = encode({k: a for k, a in arrays.items() if k.rsplit(".", 1)[-1] not in DERIVED})
    texts = {"__key__": game_key(sol.variant, sol.players, sol.objective, sol.tie),
             "__meta__": json.dumps(meta, sort_keys=True), "__produced__": json.dumps(produced, sort_keys=True),
             "__encoding__": json.dumps(arrays.pop("__encoding__"), sort_keys=True)}
    return write_arrays(path, arrays, texts)


def write_arrays(path, arrays: dict, texts: dict) -> int:
    """Write ``arrays`` and the JSON ``texts`` as a zip of ``.npy`` entries at ``path`` (atomically),
    sorted, every entry dated alike: the same content gives the same bytes. Returns the size."""
    arrays = {**arrays, **{k: np.frombuffer(t.encode(), dtype=np.uint8) for k, t in texts.items()}}
    with atomic_path(path) as tmp:
        with zipfile.ZipFile(tmp, "w") as zf:
            for name in sorted(arrays):
                info = zipfile.ZipInfo(f"{name}.npy", date_time=_DATE)
                info.compress_type, info.create_system, info.external_attr = zipfile.ZIP_DEFLATED, 3, 0o644 << 16
                buf = io.BytesIO()
                np.lib.format.write_array(buf, np.ascontiguousarray(arrays[name]), allow_pickle=False)
                zf.writestr(info, buf.getvalue(), compresslevel=9)
    return Path(path).stat().st_size
