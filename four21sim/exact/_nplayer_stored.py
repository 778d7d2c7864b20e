"""The stored form of an n-player solution (:func:`to_arrays`, :func:`from_arrays`) and its
checks when read (:func:`verify_entry`, :func:`verify`): a disk-cache entry or a shipped file is
data, trusted only as far as these checks hold."""

from __future__ import annotations

import numpy as np

from ..rules.variants import Variant
from . import _nplayer_game as NG
from ._nplayer_certificate import _br_rounds
from ._nplayer_checks import OBJECTIVES
from ._nplayer_profile import _profile_values, _rounds_left, _sub_values
from ._nplayer_solution import NSolution
from .ties import check_tie

FORMAT = 2  # bump when the stored form changes: older entries are then refused


_ARRAYS = ("value", "p_pay", "p_win", "rounds", "gain", "basis")


_SCALARS = ("players", "objective", "tie", "residual", "converged")


ENTRY_FIELDS = {
    "states": "equal to the game's states (role_states), else refused (from_arrays)",
    "dist_index, dist_prob": "distributions (non-negative, each state's summing to 1); every round solved again "
                             "from the values its choices were made against gives them (verify, full)",
    "value, p_pay, p_win": "the chain's exact values under dist (verify)",
    "rounds": "the solution of the chain's equations r = 1 + P r under dist (verify)",
    "basis": "every round solved again from it gives dist; in the charge it is the utilities that round gives "
             "(verify, full)",
    "gain": "value + gain is a fixed point of every role's best-response round in every state (the best "
            "response's Bellman equations); zero without the certificate (verify, full)",
    "residual": "recomputed: the largest move of one décharge round solved against basis (verify, full)",
    "converged": "recomputed: residual <= the solve's tol (verify_entry)",
    "players, objective, tie, options, format, dist_shape, subs": "equal to what the game asked for, else refused",
    "iterations, br_iterations, seconds, certificate_seconds, info": "not stored (the solve's history): None",
}
"""What an entry holds (in the games of fewer players too, under ``sub{k}.``) and how each field is
checked when read (docs/nplayer.md, "The stored form and what is checked")."""


def to_arrays(sol: NSolution, prefix: str = "") -> tuple[dict, dict]:
    """A solution (and the games of fewer players it uses) as arrays and JSON metadata.

    What decides every decision is stored (``basis`` and ``value``: each state's choices
    are recomputed from them, see :meth:`NSolution.keep`), with the outcome distributions
    as sparse (index, probability) pairs, from which :func:`verify` recomputes the values.
    Every field is checked when read (:data:`ENTRY_FIELDS`); the solve's history
    (``iterations``, timings) cannot be, and is not stored.
    """
    arrays = {prefix + k: np.asarray(getattr(sol, k)) for k in _ARRAYS}
    arrays[prefix + "states"] = np.array([(pot,) + tuple(t) for pot, t in sol.states], np.int64)
    flat = sol.dist.reshape(-1)
    nz = np.flatnonzero(flat)
    arrays[prefix + "dist_index"], arrays[prefix + "dist_prob"] = nz.astype(np.int64), flat[nz]
    meta = {k: getattr(sol, k) for k in _SCALARS}
    meta.update(format=FORMAT, dist_shape=list(sol.dist.shape), options=sol.variant.options(), subs=sorted(sol.subs))
    for k, sub in sol.subs.items():
        a, m = to_arrays(sub, f"{prefix}sub{k}.")
        arrays.update(a)
        meta[f"sub{k}"] = m
    return arrays, meta


def from_arrays(variant: Variant, z: dict, prefix: str = "", meta: dict | None = None) -> NSolution | None:
    """The solution stored by :func:`to_arrays`, or None if the entry does not fit the game.

    It is not verified here (:func:`verify_entry` does); its ``iterations``, ``br_iterations``,
    ``seconds`` and ``certificate_seconds`` are None (not stored), ``info`` says ``from_cache``.
    """
    meta = z["__meta__"] if meta is None else meta
    try:
        n = int(meta["players"])
        if meta["format"] != FORMAT or meta["options"] != variant.options():
            return None
        states = [(int(r[0]), tuple(int(x) for x in r[1:])) for r in z[prefix + "states"]]
        if states != NG.role_states(variant.tokens, n):
            return None
        # the games of fewer players this one leads to: exactly those (a missing one would be read as nothing)
        if list(meta["subs"]) != (list(range(2, n)) if variant.end == "last_holder" else []):
            return None
        if not isinstance(meta["converged"], bool) or not isinstance(meta["residual"], (int, float)):
            return None
        arrays = {k: np.asarray(z[prefix + k]) for k in _ARRAYS}
        if any(arrays[k].shape != (len(states), n) for k in ("value", "p_pay", "p_win", "gain", "basis")) \
                or arrays["rounds"].shape != (len(states),):
            return None
        dist = np.zeros(int(np.prod(meta["dist_shape"])))
        dist[z[prefix + "dist_index"]] = z[prefix + "dist_prob"]
        subs = {int(k): from_arrays(variant, z, f"{prefix}sub{k}.", meta[f"sub{k}"]) for k in meta["subs"]}
        if any(s is None for s in subs.values()):
            return None
        tie = str(meta["tie"])
        check_tie(tie)
        info = {"from_cache": True, "states": len(states), "decharge_states": sum(pot == 0 for pot, _ in states)}
        return NSolution(variant, n, str(meta["objective"]), states, arrays["value"], arrays["p_pay"],
                         arrays["p_win"], arrays["rounds"], arrays["gain"], arrays["basis"], None,
                         float(meta["residual"]), meta["converged"], None, None, None, subs,
                         dist.reshape(meta["dist_shape"]), info, tie)
    except (KeyError, ValueError, TypeError, IndexError):
        return None


def verify_entry(variant: Variant, players: int, objective: str, entry: dict, tie: str = "first", *,
                 tol: float = 1e-13, certified: bool = True, full: bool = True, progress=None) -> str | None:
    """Why a disk-store entry is not a solution of this game (None when it is): the hook of
    :func:`four21sim.exact.store.load`.

    Every field it serves is checked against the game's equations (:data:`ENTRY_FIELDS`, in the
    games of fewer players too): it fits the game asked (players, objective, tie order ``tie``,
    the games of fewer players), its arrays are finite, :func:`verify` with ``full`` holds (the
    values, P(pay), win shares and rounds are what the chain of the stored distributions gives;
    every round solved again from the stored values gives the stored distribution; the
    certificate's ``gain`` satisfies the best responses' equations, or is zero without
    ``certified``; ``residual`` is the one recomputed), and ``converged`` says whether that
    residual is within ``tol``, the solve's. Its cost is two passes over the states: about the
    solve's charge pass and certificate (docs/nplayer.md gives the times).

    Parameters
    ----------
    variant, players, objective, tie
        The game asked for (as :func:`solve` takes them).
    entry : dict
        The arrays of the entry and its ``"__meta__"`` (what :func:`four21sim.exact.store.load` gives).
    tol : float
        The solve's ``tol``: ``converged`` must say whether the residual is within it.
    certified : bool
        The solve's ``certify``: without it ``gain`` must be zero.
    full : bool
        Every round solved again (the above). ``False``: only the chain's equations (values,
        P(pay), win shares, rounds) and the start state's round solved again, a fraction of a
        second: for the solutions shipped with the package (:mod:`four21sim.exact.shipped`),
        which come with the code itself and are checked for damage and staleness, not forgery
        (whoever can edit them can edit the code); a disk-cache entry, a file people may send
        each other, is always read with ``full``.
    progress : callable, optional
        ``progress(done, total)``, as :func:`verify` takes it.

    Returns
    -------
    str or None
        Why the entry is refused, or None.
    """
    sol = from_arrays(variant, entry)
    if sol is None or sol.players != players or sol.objective != objective:
        return "its arrays do not fit this game"
    every = [sol, *sol.subs.values()]
    if any(s.tie != tie for s in every):
        return f"it was solved under another tie order than {tie!r}"
    if any(not np.isfinite(getattr(s, k)).all() for s in every for k in _ARRAYS + ("dist", "residual")):
        return "it holds values that are not finite"
    try:
        verify(sol, full=full, certified=certified, progress=progress)
    except ValueError as exc:
        return str(exc)
    if not full:
        game = NG.role_game(variant, players)
        s = sol.start
        S = NG.succ(game, s, sol.choice_values(), _sub_values(sol.subs, sol.objective), sol.objective)
        d = NG.Rounds(game, tie=check_tie(tie)).run(np.array([s]), S[None], players, want_dist=True)[1]
        if np.abs(d[0] - sol.dist[s]).max() > 1e-11:
            return "its profile is not the one its stored values give"
        return None
    if any(s.converged != (s.residual <= tol) for s in every):
        return f"its converged flag does not say whether its residual is within {tol:g}"
    return None


def verify(sol: NSolution, full: bool = False, tol: float = 1e-11, certified: bool = True, progress=None) -> dict:
    """Check that a (stored) solution is what its profile gives: a cache that cannot lie.

    Cheap: the outcome distributions are distributions, and one exact evaluation of
    the game's chain under them gives the stored values, P(pay), win shares and expected
    rounds (games of fewer players first). ``full``, the cost of about two passes over the
    states: also every round solved again from the values its choices were made against
    gives the stored distribution (compared in each state's own form, ``NG.canonical_dist``,
    since a pot's contexts and the phase's place a class of outcomes' probability alike only
    there) and, in the charge, utilities equal to ``basis``; the décharge's Bellman residual
    so recomputed is the stored ``residual`` (``residual``: their relative difference); and,
    ``certified``, ``value + gain`` solves the best responses' equations in every state (one
    best-response round each, the certificate's own stopping rule: a charge round leads only to
    smaller pots, so a gain changed in one state fails there), else ``gain`` is zero.

    Parameters
    ----------
    sol : NSolution
    full : bool
        Also solve every round again (the profile's and, ``certified``, the best responses').
    tol : float
        The largest difference allowed.
    certified : bool
        Whether ``gain`` is the certificate's (else it must be zero).
    progress : callable, optional
        ``progress(done, total)``: told as the ``full`` check goes, group of states by group.

    Returns
    -------
    dict
        The largest difference of each check (``sub{k}.`` for the games of fewer players).

    Raises
    ------
    ValueError
        Past ``tol``, naming the checks that fail.
    """
    worst = {}
    for k, sub in sol.subs.items():
        worst.update({f"sub{k}.{key}": x for key, x in verify(sub, full, tol, certified).items()})
    game = NG.role_game(sol.variant, sol.players)
    if sol.dist.shape != (game.size, game.n, game.n, game.P) or (sol.dist < 0).any():
        raise ValueError("solution: its outcome distributions do not fit the game")
    worst["dist_sum"] = float(np.abs(sol.dist.sum(axis=(1, 2, 3)) - 1).max())
    X = {o: _profile_values(game, sol.dist, o, sol.subs) for o in OBJECTIVES}
    worst["value"] = float(np.abs(X[sol.objective] - sol.value).max())
    worst["p_pay"] = float(np.abs(1 - X["pay"] - sol.p_pay).max())
    worst["p_win"] = float(np.abs(X["win"] - sol.p_win).max())
    worst["rounds"] = float(np.abs(_rounds_left(game, sol.dist, sol.subs) - sol.rounds).max())
    if full:
        worst.update(_full_check(sol, game, certified, progress))
    bad = {k: x for k, x in worst.items() if not x <= tol}
    if bad:
        raise ValueError(f"solution: does not hold; differences {bad} above {tol:g}")
    return worst


def _full_check(sol: NSolution, game: NG.Game, certified: bool, progress=None) -> dict:
    """The largest differences of :func:`verify`'s ``full`` check (one pass of the profile's rounds
    and one of the best responses' over every state); ``progress(done, total)`` is told after each
    group of states (at 6 players the check takes most of an hour)."""
    worst = {"dist": 0.0, "basis": 0.0, "gain": 0.0}
    rounds = NG.Rounds(game, tie=check_tie(sol.tie))
    subV = _sub_values(sol.subs, sol.objective)
    subW = _sub_values(sol.subs, sol.objective, "best_value")
    W = sol.best_value
    dech = game.decharge()
    residual = 0.0
    # the décharge was solved against basis (the last iterate), the charge against choice_values
    # (value in the décharge, basis in the charge), as _solve_profile does
    groups = [(dech, sol.basis)] + [(g, sol.choice_values()) for g in game.charge_groups()]
    told = progress if progress is not None else (lambda done, total: None)
    told(0, len(groups))
    for k, (group, against) in enumerate(groups):
        if k:
            told(k, len(groups))
        if not len(group):
            continue
        u, d = rounds.run(group, NG.succs(game, group, against, subV, sol.objective), sol.players, want_dist=True)
        worst["dist"] = max(worst["dist"], NG.dist_difference(game, group, d, sol.dist[group]))
        moved = float(np.abs(u - sol.basis[group]).max())
        if group is dech:
            residual = moved
        else:
            worst["basis"] = max(worst["basis"], moved)
        if certified:
            w = _br_rounds(game, rounds, group, against, subV, sol.objective, W, subW, False)[0]
            worst["gain"] = max(worst["gain"], float(np.abs(w - W[group]).max()))
    told(len(groups), len(groups))
    if not certified:
        worst["gain"] = float(np.abs(sol.gain).max())
    worst["residual"] = 0.0 if residual == sol.residual else abs(residual - sol.residual) / max(residual, 1e-300)
    return worst
