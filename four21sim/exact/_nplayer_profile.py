r"""The equilibrium iteration of the n-player solver (:mod:`four21sim.exact.nplayer`): the
décharge by policy iteration, then the charge once per state by increasing pot.

For a state :math:`s` (the pot and every role's tokens) and a role :math:`j`, :math:`V_j(s)`
is role j's utility. A round from :math:`s` under a profile :math:`\sigma` (every role's keeps
in every context) ends in outcome :math:`o` (who loses, who wins, what is paid) with
probability :math:`P_\sigma(o \mid s)`, leading to state :math:`s'(s, o)`, where role j of s
holds role :math:`\pi_{s,o}(j)`, or ending the game with utility :math:`u_j(s, o)`. The values
of :math:`\sigma` solve

.. math::

    V_j(s) = \sum_o P_\sigma(o \mid s)\, \bigl[u_j(s, o) \text{ if the game ends, else }
             V_{\pi_{s,o}(j)}(s'(s, o))\bigr],

a sparse linear system in the décharge (it can return to a state), solved state by state by
increasing pot in the charge. A round is solved by backward induction: the last follower's
turn first, in each of its contexts, then each earlier role; in a turn, with :math:`U_j(h)`
what role j gets when the player (role r) ends on hand :math:`h` and :math:`q(h' \mid k)` the
chance that keep :math:`k` throws into :math:`h'`, the values before the last throw are
:math:`U_j(h) \leftarrow \sum_{h'} q(h' \mid k^*(h))\, U_j(h')` where
:math:`k^*(h) = \arg\max_{k \in K(h)} \sum_{h'} q(h' \mid k)\, U_r(h')` (ties by
:mod:`four21sim.exact.ties`; stopping, for a leader, is a keep worth :math:`U(h)`), and so on
to the first throw, :math:`\sum_h q(h \mid \varnothing)\, U_j(h)`. The equilibrium is a
profile that is its own best reply round by round against its own values: the *Bellman
residual* :math:`\max_{s,j} |T_\sigma V - V|` of a décharge pass is at most ``tol``.

:func:`_decharge_iteration` runs the décharge's passes (each solves every round against the
current values, then replaces them by the exact values of the profile found) and stops when the
residual is at most ``tol``, when a profile found before comes back (a proven cycle), or after
``stall`` passes without progress; :func:`_solve_profile` then solves the charge.
"""

from __future__ import annotations

import hashlib
import time

import numpy as np

from ..rules import dice
from ..rules.variants import Variant
from . import _nplayer_game as NG
from . import _nplayer_kernels as NK
from ._nplayer_run import _Run
from .ties import check_tie


def _sub_values(subs: dict, objective: str, what: str = "value") -> dict:
    """Utilities in the games of fewer players: theirs under ``pay``; nothing left to win under ``win``."""
    return {k: (getattr(sol, what) if objective == "pay" else np.zeros_like(sol.value)) for k, sol in subs.items()}


def _profile_values(game: NG.Game, dist: np.ndarray, objective: str, subs: dict) -> np.ndarray:
    """The exact values ``[s, role]`` of the profile whose rounds have the outcome distributions ``dist``."""
    subV = _sub_values(subs, objective)
    every = np.arange(game.size)
    return NG.evaluate(game, dist, NG.constant_part(game, every, dist, objective, subV, False), False)


def _rounds_left(game: NG.Game, dist: np.ndarray, subs: dict) -> np.ndarray:
    """``r[s]``: the expected rounds to the end from each state, the solution of the chain's equations
    ``r = 1 + P r`` under the outcome distributions ``dist`` (plus the rounds of the games of fewer players
    a round leads to, theirs)."""
    const = np.ones((game.size, game.n))
    for k, sub in subs.items():  # rounds played in the game left
        there = (game.sub == k) & (game.ended == 0)
        const[:, 0] += (dist * np.where(there, sub.rounds[np.where(there, game.nxt, 0)], 0.0)).sum(axis=(1, 2, 3))
    return NG.evaluate(game, dist, const, False, tracked="same")[:, 0]


def _decharge_values(game: NG.Game, dist_dech: np.ndarray, objective: str, subs: dict) -> np.ndarray:
    """The exact values ``[b, role]`` of the décharge states (``game.decharge()`` order) under ``dist_dech``."""
    dech = game.decharge()
    const = NG.constant_part(game, dech, dist_dech, objective, _sub_values(subs, objective), False)
    return NG.evaluate(game, dist_dech, const, False, only_decharge=True)


def _first_throw_dist(game, rounds, states) -> np.ndarray:
    """``dist[b, l, w, p]``: the outcome distribution of the rounds of ``states`` (of one phase and
    number of players in play) where everyone stops at the first throw: the same in each (no
    choice is made), found once by the round kernel with everyone playing that table."""
    m = int(game.m[states[0]])
    stop = np.zeros((1, 1, 3, 2, dice.N_HANDS), np.int8)
    stop[...] = dice.FULL_KEEP + np.arange(dice.N_HANDS)
    plays = (np.full((1, m), NK.ACT_TABLE, np.int64), stop[0, 0, 0][None], stop, np.zeros((1, m), np.int64))
    _, d = rounds.run(states[:1], np.zeros((1, game.n, game.n, game.P, 1)), 0, plays, want_dist=True)
    return np.broadcast_to(d, (len(states),) + d.shape[1:])


def _decharge_iteration(game, rounds, objective, subs, tol, max_iter, stall, V, dist, run=None):
    """Solve every décharge round against the current values, evaluate the profile exactly, repeat.

    Returns (iterations, residual, converged); ``V`` and ``dist`` are left as the
    profile kept (the last one, or the one with the smallest residual). ``run`` (:class:`_Run`):
    the state after each pass is checkpointed, and a checkpoint taken here is resumed from.
    """
    run = _Run() if run is None else run
    dech = game.decharge()
    subV = _sub_values(subs, objective)
    best = None
    it, residual = 0, 0.0
    seen: dict[bytes, list[np.ndarray]] = {}  # the profiles found so far, by a digest of their bytes
    order: list[np.ndarray] = []  # the same, in the order found (what a checkpoint keeps)
    saved = run.at("decharge")
    if saved is None:
        V[dech] = _decharge_values(game, _first_throw_dist(game, rounds, dech), objective, subs)
    else:  # every piece of the loop's state after pass `it`, so that the passes after it are the same
        meta, a = saved
        it = meta["step"]
        V[dech] = a["V_dech"]
        best = (meta["best_residual"], a["best_V"].copy(), a["best_dist"].copy(), meta["best_it"])
        for d in a["seen"]:
            order.append(d.copy())
            seen.setdefault(hashlib.sha256(order[-1].tobytes()).digest(), []).append(order[-1])
    run.begin("decharge")
    done = it
    for it in range(done + 1, max_iter + 1):
        u, dist[dech] = rounds.run(dech, NG.succs(game, dech, V, subV, objective), game.n,
                                   want_dist=True)
        residual = float(np.abs(u - V[dech]).max())
        if best is None or residual < best[0] * (1 - 1e-6):
            best = (residual, V[dech].copy(), dist[dech].copy(), it)
        if residual <= tol:
            return it, residual, True
        if it - best[3] >= stall:  # no progress: the iteration cycles
            break
        # The next values are the exact values of this profile, and the next profile is solved
        # against them: each iteration is a function of the profile alone, so a profile found
        # before, bit for bit, proves a cycle from which nothing new can come (Montreal at 3
        # players repeats every second iteration): stop at once rather than after `stall`.
        d = dist[dech]
        key = hashlib.sha256(d.tobytes()).digest()
        if any(np.array_equal(d, e) for e in seen.get(key, ())):
            break
        order.append(d.copy())
        seen.setdefault(key, []).append(order[-1])
        V[dech] = _decharge_values(game, dist[dech], objective, subs)
        run.save("decharge", it, {"best_residual": best[0], "best_it": best[3]},
                 {"V_dech": V[dech], "best_V": best[1], "best_dist": best[2], "seen": np.stack(order)})
        run.passed("decharge", it, residual=residual, limit=max_iter)
    residual, V[dech], dist[dech], _ = best
    return it, residual, False


def _solve_profile(variant: Variant, n: int, objective: str, tol: float, max_iter: int, stall: int, subs: dict,
                   tie: str = "first", run=None):
    """The equilibrium's profile: (game, rounds, basis, V, dist, iterations, residual, converged, timings).

    ``run`` (:class:`_Run`): the solve's checkpoints and progress; the checkpoint of this solve, if
    any, is read here (once the game is built, against which it is checked) and resumed from.
    """
    run = _Run() if run is None else run
    t0 = time.perf_counter()
    game = NG.role_game(variant, n)
    rounds = NG.Rounds(game, tie=check_tie(tie))
    run.begin("contexts")
    if (game.pot == 0).any():  # the contexts of the phases played (with few tokens, no décharge with all in)
        rounds.contexts(n, "decharge")
    if (game.pot > 0).any():
        rounds.prepare(n, "charge", rounds.charge_sets(n))
    t_setup = time.perf_counter() - t0
    run.open(game, max_iter)
    V = np.zeros((game.size, n))
    dist = np.zeros((game.size, n, n, game.P))
    dech = game.decharge()
    groups = game.charge_groups()
    it, residual, converged = 0, 0.0, True
    if run.reached("charge"):  # the décharge was done (and maybe some of the charge): its state
        meta, a = run.state[1:]
        V[:], dist[:], basis = a["V"], a["dist"], a["basis"].copy()
        it, residual, converged = meta["it"], meta["residual"], meta["converged"]
        first = meta["step"] if run.state[0] == "charge" else len(groups)
    else:
        if len(dech):
            it, residual, converged = _decharge_iteration(game, rounds, objective, subs, tol, max_iter, stall, V,
                                                          dist, run)
        basis = V.copy()
        if len(dech):
            V[dech] = _decharge_values(game, dist[dech], objective, subs)
        first = 0
    run.profile = ({"it": it, "residual": residual, "converged": converged}, {"V": V, "basis": basis, "dist": dist})
    if first == 0:
        run.save("charge", 0)
    t_dech = time.perf_counter() - t0 - t_setup
    subV = _sub_values(subs, objective)
    run.begin("charge")
    for g in range(first, len(groups)):
        group = groups[g]
        u, dist[group] = rounds.run(group, NG.succs(game, group, V, subV, objective), n,
                                    want_dist=True)
        V[group] = basis[group] = u
        run.save("charge", g + 1)
        run.passed("charge", g + 1, total=len(groups))
    timings = {"setup_seconds": t_setup, "decharge_seconds": t_dech,
               "charge_seconds": time.perf_counter() - t0 - t_setup - t_dech}
    return game, rounds, basis, V, dist, it, residual, converged, timings
