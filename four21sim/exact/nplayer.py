r"""The exact game for 2 to 8 players: an equilibrium with its certificate, and exact best responses.

Each round is a game of perfect information: the leader chooses when to stop and
what to keep (and so the count); each follower in turn sees the hands before it.
Every player maximises its own *utility*: with ``objective="pay"`` the
probability of not paying (not being the game's loser as docs/rules.md defines
it; a loss shared by k tied losers counts 1/k), with ``objective="win"`` its win
share. With two players both are the 2-player solver's (:mod:`four21sim.exact.two_player`).

How it is solved
----------------
States are seen from the roles of the round: ``(pot, tokens of the leader, of the
next seat, ...)``, every player in; values are vectors, one utility per role.

- *A round*, given the values of the states it can lead to, is solved by backward
  induction in playing order over **compact follower contexts**: what a follower
  needs to know of the hands before it (the count, the worst key so far and the
  roles holding it, the best key and the roles holding it, the cumulative sum,
  what the nénette rescue needs), merged further wherever two contexts lead to the
  same outcomes (:mod:`four21sim.exact._nplayer_kernels` says how; the outcome of
  every round is judged by the rules kernel on a representative history). The
  contexts are built once per (variant, players, phase).
- *The décharge* (cyclic) is solved by policy iteration on vectors of values, from the
  exact values of everyone stopping at the first throw (one pass fewer than from zero for
  every preset, the same equilibria): solve every
  round against the current values, replace the values by the exact values of the
  profile found (a sparse linear system), stop when the Bellman residual is below
  ``tol``, when a profile found before comes back (each iteration is a function of the
  profile: a proven cycle), or after ``stall`` iterations without progress (``converged``
  False in both cases; the profile with the smallest residual is kept and certified).
- *The charge* (the pot only shrinks) is solved once per state by increasing pot.
- Under ``end = last_holder`` a player going out leaves a game of fewer players,
  solved first (with ``objective="pay"``: once someone is out nobody left can win,
  and what is left at stake is who pays).

Ties between keeps within 1e-12 for the player choosing go by default to the first in
``dice.HAND_KEEPS`` order, as everywhere in the package; in a game of more than two
players that choice can move the others' values (:func:`tie_spread` measures by how much),
and ``solve(..., tie=...)`` takes another order (:data:`TIE_ORDERS`): another equilibrium,
certified the same way.

The certificate
---------------
For the profile found, each player's exact best response against the others'
fixed strategies (every round is solved once with two components per role: the
profile's, and the role's own utility when it deviates alone, the others playing
the profile's keeps, also after a deviation), solved by policy
iteration: the exploitability is the largest gain of one player deviating alone,
from the start and from any state. After a converged iteration its first décharge pass is
not run where a bound proves it would find nothing (``_first_pass_ends``).

In formulas
-----------
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

The *exploitability* is the largest gain of one role deviating alone, the others keeping
:math:`\sigma`'s keeps (also after the deviation):

.. math::

    \varepsilon = \max_{j} \bigl[ W_j(s_0) - V_j(s_0) \bigr], \qquad
    \varepsilon_{\text{any}} = \max_{s, j} \bigl[ W_j(s) - V_j(s) \bigr],

with :math:`W_j` role j's exact best-response value (policy iteration, the others fixed) and
:math:`s_0` the start. The certificate's first décharge pass from :math:`W = V` is skipped
when :math:`\rho + 2 \max_s |V(s) - B(s)| + \max |W^{<n} - V^{<n}| \le \text{tol} / 2`
(:math:`\rho` the profile's last residual, :math:`B` the values its last keeps were chosen
against, :math:`W^{<n}, V^{<n}` those of the games of fewer players): a best reply moves by
at most what the values after it move, so that pass would find :math:`W = V` and end the
iteration (``_first_pass_ends`` gives the rounding margin).

Best responses to a table
-------------------------
``solve(variant, players, against=[...])`` gives the exact best response of one
seat to the others playing table policies (compiled tables in context modes 0 and 1,
with the attributes of :class:`four21sim.policies.Policy`, as the engine
reads them: a follower's target is the worst hand so far by the ranking; ``random``
is the uniform choice among the legal keeps) or the equilibrium itself.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from dataclasses import dataclass, field
from functools import cached_property, lru_cache, partial

import numpy as np

from .._util.checks import shown
from .._util.waiting import AFTER, notice_after, progress, say, solving, speaker, wait_for
from ..rules import dice
from ..rules.variants import Variant
from . import _nplayer_game as NG
from . import _nplayer_kernels as NK
from . import store
from .checkpoint import Checkpoint
from .ties import TIE_ORDERS, check_tie

__all__ = ["OBJECTIVES", "TIE_ORDERS", "MAX_PLAYERS", "ANSWER_PLAYERS", "MAX_TOKENS", "NSolution", "BestResponse",
           "solve", "evaluate", "verify", "to_arrays", "from_arrays", "verify_entry", "ENTRY_FIELDS", "tie_spread",
           "check_players", "check_objective", "check_tokens", "check_tie", "keep_values", "in_play", "FIRST_SOLVE"]

OBJECTIVES = ("pay", "win")
MAX_PLAYERS = 8
"""The solver's reach: 2 to 8 players (:func:`solve`, ``exact.solve``, ``four21sim solve``), within
:data:`MAX_TOKENS`."""
ANSWER_PLAYERS = 6
"""The largest table at which the answers a person waits for (the advisor's game answer, the trainer,
``optimal`` deciding one turn at a time in ``play``, the environments and the studies) use this
solver: at 7 and 8 players a first solve takes many hours (docs/nplayer.md), which nobody should
meet by asking for advice; there they stay where they were (the round answer, no ``optimal``)
until the presets' 7- and 8-player equilibria ship with the package."""
FIRST_SOLVE = {3: "under a minute", 4: "about 2 minutes (classic: half an hour)", 5: "10 to 30 minutes",
               6: "about an hour", 7: "3 to 9 hours", 8: "12 to 45 hours"}
"""What the first solve of a preset costs, with its certificate and numba's first compile, on a
2-core machine (results/nplayer/REPORT.md): the commands say it before they wait, and the docs
quote it; later solves of the same rules read the disk cache, checked, in about half that
(docs/nplayer.md, "The stored form and what is checked")."""
# tokens above which a solve would not fit (memory, or hours), per number of players
MAX_TOKENS = {2: 60, 3: 40, 4: 21, 5: 15, 6: 11, 7: 11, 8: 11}
_NH = dice.N_HANDS


def check_players(players) -> int:
    """The number of players, checked (ValueError naming what is allowed)."""
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)) \
            or not 2 <= players <= MAX_PLAYERS:
        raise ValueError(f"players: {players!r} is not allowed; allowed: 2 to {MAX_PLAYERS} (exact solver)")
    return int(players)


def check_objective(objective) -> str:
    """The objective, checked (ValueError naming what is allowed)."""
    if objective not in OBJECTIVES:
        raise ValueError(f"objective: {objective!r} is not allowed; allowed: {', '.join(OBJECTIVES)}")
    return objective


def check_tokens(variant: Variant, n: int) -> None:
    if variant.tokens > MAX_TOKENS[n]:
        raise ValueError(f"tokens: {variant.tokens} is too many for the exact {n}-player solver; "
                         f"allowed: 1 to {MAX_TOKENS[n]}")


# ====================================================================== the equilibrium
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


# ====================================================================== the certificate
def _deviator_utilities(game, states, W, subW, objective) -> np.ndarray:
    """``[b, r, l, w, p]``: role r's utility after each outcome of ``states[b]``, from its best-response
    values ``W`` (and ``subW`` in the games of fewer players)."""
    out = np.zeros((len(states), game.n, game.n, game.n, game.P))
    S = NG.succs(game, states, W, subW, objective)
    out[:, :S.shape[-1]] = np.moveaxis(S, -1, 1)
    return out


def _br_rounds(game, rounds, states, base, subV, objective, W, subW, want_dist):
    S_prof = NG.succs(game, states, base, subV, objective)
    return rounds.best_responses(states, S_prof, _deviator_utilities(game, states, W, subW, objective), want_dist)


def _first_pass_ends(game, basis, V, subV: dict, subW: dict, residual: float, tol: float) -> bool:
    """Whether the best responses' first décharge pass, from W = V, would end their iteration:
    proven from the profile's last pass instead of run.

    That last pass solved every décharge round against ``basis`` and moved no utility by more
    than ``residual``; in it each role's keeps are its best replies to the others' against
    ``basis`` and ``subV``. The first pass of the best responses solves the same rounds against
    ``V`` and ``subW``: a role's best-reply utility after a round moves by at most how much the
    utilities after it move (it is a largest expectation of them, and expectations move by at
    most that), so its residual is at most ``residual + 2 max|V - basis| + max|subW - subV|``,
    up to the rounding of the two passes. Where that is within half of ``tol``, the pass would
    find W = V in the décharge and end the iteration, which is what the caller then takes. The
    other half is left to the rounding: a player's turn rounds each utility about a hundred
    times (the sums over the dice, three throws, the hands), by at most 1.1e-16 each, so that
    a round of 4 players moves a utility in [0, 1] by at most about 4.4e-14 if every rounding
    went the same way, within 5e-14 for the default ``tol`` of 1e-13 (at 5 and 6 players that
    worst case is 5.5e-14 and 6.6e-14; the passes' residuals, which are that rounding, stay
    near 1e-14: tests/test_nplayer.py runs the pass and compares). Were the pass skipped
    wrongly, the certificate would miss a gain of the order of ``tol``, 1e-13: four orders of
    magnitude below the 1e-9 it certifies.
    """
    dech = game.decharge()
    moved = float(np.abs(V[dech] - basis[dech]).max()) if len(dech) else 0.0
    sub = max((float(np.abs(subW[k] - subV[k]).max()) for k in subV), default=0.0)
    return residual + 2 * moved + sub <= tol / 2


def _best_responses(game, rounds, basis, V_charge, V, objective, subs, tol, max_iter, converged=False,
                    residual=np.inf, run=None):
    """Each role's exact best-response utility ``W[s, r]`` against the profile (policy iteration).

    The others' keeps are recomputed in every round from the values they were made
    against: ``basis`` in the décharge, ``V_charge`` in the charge; ``V`` is the
    profile's exact value, where the iteration starts. Returns (W, iterations).

    ``converged``: the profile's own iteration converged (its last pass moved no utility by
    more than ``residual``), so that the first pass is expected to find W = V and end the
    iteration. Where :func:`_first_pass_ends` proves it would, it is not run (W = V in the
    décharge, one iteration, as the pass would give); otherwise it runs without the outcome
    distributions (one forward pass per role, needed only to go on), computing them after
    all when it does not end the iteration.

    ``run`` (:class:`_Run`): W is checkpointed after each pass (with the profile), and a
    checkpoint taken here is resumed from.
    """
    run = _Run() if run is None else run
    subV, subW = _sub_values(subs, objective), _sub_values(subs, objective, "best_value")
    W = V.copy()
    dech = game.decharge()
    groups = game.charge_groups()
    it = first = 0
    proven = converged and len(dech) > 0 and _first_pass_ends(game, basis, V, subV, subW, residual, tol)
    passes = max_iter if len(dech) and not proven else 0
    if run.reached("certificate"):
        meta, a = run.state[1:]
        W[:] = a["W"]
        if run.state[0] == "certificate":
            it = meta["step"]
        else:  # its décharge passes were done
            it, first, passes = meta["br_it"], meta["step"], 0
    if passes:
        run.begin("certificate")
    done = it
    for it in range(done + 1, passes + 1):
        u, dist = _br_rounds(game, rounds, dech, basis, subV, objective, W, subW, it > 1 or not converged)
        moved = float(np.abs(u - W[dech]).max())
        if moved <= tol:
            break
        if dist is None:
            u, dist = _br_rounds(game, rounds, dech, basis, subV, objective, W, subW, True)
        const = NG.constant_part(game, dech, dist, objective, subW, True)
        W[dech] = NG.evaluate(game, dist, const, True, only_decharge=True)
        run.save("certificate", it, arrays={"W": W})
        run.passed("certificate", it, residual=moved, limit=max_iter)
    if proven:
        it = 1  # the pass proven to end the iteration counts as its one iteration
    if first == 0:
        run.save("certificate-charge", 0, {"br_it": it}, {"W": W})
    run.begin("certificate-charge")
    for g in range(first, len(groups)):
        group = groups[g]
        W[group] = _br_rounds(game, rounds, group, V_charge, subV, objective, W, subW, False)[0]
        run.save("certificate-charge", g + 1, {"br_it": it}, {"W": W})
        run.passed("certificate-charge", g + 1, total=len(groups))
    return W, it


# ====================================================================== the solution
@dataclass(eq=False)
class NSolution:
    """An equilibrium of the n-player game of a variant, with its certificate.

    Attributes
    ----------
    variant, players, objective
    states : list
        ``(pot, tokens by role)`` of every state with every player in, role 0 leading.
    value : ndarray
        ``value[s, j]``: the utility of the player in role j (P(not paying) or win share).
    p_pay, p_win : ndarray
        ``[s, j]``: P(paying) and expected win share under the profile.
    rounds : ndarray
        Expected rounds to the end from each state.
    gain : ndarray
        ``[s, j]``: what the player in role j gains (in utility) by its best response.
    basis : ndarray
        ``[s, j]``: the values the choices were made against, from which every decision
        is recomputed (:meth:`keep`): a décharge state's choices are best against
        ``basis`` (the last iterate), a charge state's against ``value`` in the décharge
        and ``basis`` in the charge.
    iterations, residual, converged
        The décharge iteration: how many (None when read from the disk store: the solve's
        history is not stored), the Bellman residual of the profile kept, and whether it
        reached ``tol`` (otherwise it cycled; the certificate judges the profile).
    br_iterations : int or None
        Policy-iteration steps of the best responses (all roles together); None when read
        from the disk store.
    seconds, certificate_seconds : float or None
        The times of the solve and of its certificate; None when read from the disk store.
    subs : dict
        The games of k players left (k < players) under ``end = last_holder``.
    dist : ndarray
        ``[s, l, w, p]``: each round's outcome distribution (loser role, winner role,
        payout) under the profile: the Markov chain of the game.
    info : dict
        Timings, sizes, peak memory.
    tie : str
        The tie order of the profile's keeps (:data:`TIE_ORDERS`), in the games of fewer players too.
    """

    variant: Variant
    players: int
    objective: str
    states: list
    value: np.ndarray
    p_pay: np.ndarray
    p_win: np.ndarray
    rounds: np.ndarray
    gain: np.ndarray
    basis: np.ndarray
    iterations: int | None
    residual: float
    converged: bool
    br_iterations: int | None
    seconds: float | None
    certificate_seconds: float | None
    subs: dict
    dist: np.ndarray
    info: dict = field(default_factory=dict)
    tie: str = "first"

    @property
    def start(self) -> int:
        """The index of the first state: every token in the pot, seat 0 leading."""
        return self.states.index((self.variant.tokens, (0,) * self.players))

    @property
    def seat_p_pay(self) -> np.ndarray:
        """P(seat s pays) from the start (seat 0 leads the first round)."""
        return self.p_pay[self.start].copy()

    @property
    def seat_p_win(self) -> np.ndarray:
        """Expected win share of seat s from the start."""
        return self.p_win[self.start].copy()

    @property
    def expected_rounds(self) -> float:
        """Expected number of rounds of a whole game."""
        return float(self.rounds[self.start])

    @property
    def best_value(self) -> np.ndarray:
        """``[s, j]``: the utility of role j's best response against the others' profile."""
        return self.value + self.gain

    @property
    def exploitability(self) -> float:
        """Largest gain of a unilateral deviation from the start of the game (utility)."""
        return float(max(0.0, self.gain[self.start].max()))

    @property
    def gain_any_state(self) -> float:
        """Largest gain of a unilateral deviation from any state, any role."""
        return float(max(0.0, self.gain.max()))

    @cached_property
    def _choice_values(self) -> np.ndarray:
        dech = np.array([pot == 0 for pot, _ in self.states])
        return np.where(dech[:, None], self.value, self.basis)

    def choice_values(self) -> np.ndarray:
        """``[s, j]``: the values each state's choices were made against (see ``basis``)."""
        return self._choice_values

    @cached_property
    def _index(self) -> dict:
        return {st: i for i, st in enumerate(self.states)}

    @cached_property
    def _round_solver(self):
        return NG.Rounds(NG.role_game(self.variant, self.players), tie=check_tie(self.tie)), _Decisions()

    def _round_of(self, state):
        """State s's number, the builder of its round's decisions and values, and its throw limit."""
        key = (int(state[0]), tuple(int(x) for x in state[1]))
        if key not in self._index:
            raise ValueError(f"state: {state!r} is not allowed; allowed: (pot, tokens by role) of a state with every "
                             f"player in, adding up to {self.variant.tokens}")
        s = self._index[key]
        game = NG.role_game(self.variant, self.players)
        rounds = self._round_solver[0]

        def build():
            S = NG.succ(game, s, self.choice_values(), _sub_values(self.subs, self.objective), self.objective)
            return rounds.decisions(s, S, self.players, values=True)

        limit = NG.limit(self.variant, "charge" if key[0] > 0 else "decharge")
        return s, build, limit

    def round_decisions(self, state):
        """Every keep of the round of ``state`` (pot, tokens by role): ``(contexts, dec, lead_dec)``.

        ``lead_dec[made-1, h]`` is the leader's keep holding h after ``made`` throws;
        ``dec[g, made-1, h]`` a follower's in context g, the context after the hands (and
        throws) before it being ``contexts.context_of(hands, throws, count)`` (or, for whole
        tables at once, ``contexts.lead_next[count-1, h0]`` then ``contexts.trans[contexts.row_start[g]
        + slot * 56 + h]``, slot 0 with ``followers = exact``, else the throws minus one).
        The arrays are copies: the engine tables of :mod:`four21sim.policies.optimal` are built from them.
        """
        s, build, _ = self._round_of(state)
        ct, dec, lead_dec = self._round_solver[1].get(s, build)[:3]
        return ct, dec.copy(), lead_dec.copy()

    def keep(self, state, role: int, hands=(), throws=(), made: int = 1, hand: int = 0) -> int:
        """The keep (``dice`` keep index; ``FULL_KEEP + hand`` stops) of the player in ``role`` in ``state``
        (pot, tokens by role), after the hands (and throws) of the roles before it, holding ``hand``
        after ``made`` throws. A ``RANDOM_KEEP`` never occurs in an equilibrium."""
        s, build, limit = self._round_of(state)
        return self._round_solver[1].keep(s, build, limit, self.players, role, hands, throws, made, hand,
                                          self.variant)

    def keep_utilities(self, state, role: int, hands=(), throws=(), made: int = 1, hand: int = 0) -> dict:
        """Every legal keep of one decision (arguments as :meth:`keep`) with the utilities it leads to:
        keep index -> ``ndarray[j]``, the utility of the player in role j, everyone (the chooser
        included) playing the equilibrium after this decision. See :func:`keep_values`."""
        s, build, limit = self._round_of(state)
        _check_situation(self.variant, limit, self.players, role, hands, throws, made, hand)
        ct, dec, lead_dec, vals = self._round_solver[1].get(s, build)
        return _keep_utilities(ct, dec, lead_dec, vals, self.variant, limit, role, hands, throws, made, hand)

    def summary(self) -> dict:
        """Per seat P(pay) and win share, and the solve's measures, as JSON-able numbers."""
        return {"variant": self.variant.describe(), "options": self.variant.options(), "players": self.players,
                "objective": self.objective,
                "seats": [{"seat": s, "p_pay": float(self.seat_p_pay[s]), "p_win": float(self.seat_p_win[s])}
                          for s in range(self.players)],
                "expected_rounds": self.expected_rounds, "exploitability": self.exploitability,
                "exploitability_any_state": self.gain_any_state, "converged": self.converged,
                "residual": self.residual, "iterations": self.iterations, "br_iterations": self.br_iterations,
                "seconds": self.seconds, "certificate_seconds": self.certificate_seconds,
                "from_cache": bool(self.info.get("from_cache", False))}


def _peak_mib() -> float:
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _context_info(rounds: NG.Rounds) -> dict:
    """The sizes of the contexts built, by ``players:phase`` (and ``:pot=q`` for a pot's own)."""
    return {f"{m}:{ph}" + ("" if pots is None else ":pot=" + ",".join(map(str, pots))): ct.info
            for (m, ph, pots), ct in rounds._ctx.items()}


def _solve_equilibrium(variant: Variant, n: int, objective: str, tol: float, max_iter: int, stall: int,
                       certify: bool, tie: str = "first", run=None) -> NSolution:
    run = _Run() if run is None else run
    subs = {k: _equilibrium(variant, k, "pay", tol, max_iter, stall, certify, tie)
            for k in range(2, n) if variant.end == "last_holder"}
    t0 = time.perf_counter()
    game, rounds, basis, V, dist, it, residual, converged, timings = _solve_profile(
        variant, n, objective, tol, max_iter, stall, subs, tie, run)
    values = {o: _profile_values(game, dist, o, subs) for o in OBJECTIVES}
    rounds_left = _rounds_left(game, dist, subs)
    seconds = time.perf_counter() - t0
    t1 = time.perf_counter()
    gain = np.zeros((game.size, n))
    br_it = 0
    if certify:
        V_charge = np.where((game.pot == 0)[:, None], values[objective], basis)
        W, br_it = _best_responses(game, rounds, basis, V_charge, values[objective], objective, subs, tol,
                                   max_iter, converged, residual, run)
        gain = W - values[objective]
    info = dict(timings, value_gap=float(np.abs(values[objective] - V).max()), states=game.size,
                decharge_states=len(game.decharge()), contexts_seconds=rounds.seconds_contexts,
                contexts=_context_info(rounds), peak_mib=_peak_mib())
    if run.resumed is not None:
        info["resumed_from"] = run.resumed
    return NSolution(variant, n, objective, game.states, values[objective], 1.0 - values["pay"], values["win"],
                     rounds_left, gain, basis, it, residual, converged, br_it, seconds, time.perf_counter() - t1,
                     subs, dist, info, tie)


# ====================================================================== long solves: checkpoints, progress
_STAGES = ("decharge", "charge", "certificate", "certificate-charge")
"""The loops of a solve, in order, after each pass of which its state is checkpointed."""
_PHASES = {"contexts": "contexts", "decharge": "décharge profile", "charge": "charge",
           "certificate": "certificate décharge", "certificate-charge": "certificate charge"}
"""How the progress display names each phase."""
_TYPICAL = 10
"""The passes an iteration usually takes at most (5 to 10: docs/nplayer.md), for the progress's estimate."""


def _checkpoint_shapes(game: NG.Game, max_iter: int, meta: dict) -> dict:
    """The arrays (name -> shape) a checkpoint of ``game``'s solve holds in the stage its ``meta`` says;
    ValueError (why) for metadata no solve of this game writes."""
    def count(name, lo, hi):
        x = meta.get(name)
        if type(x) is not int or not lo <= x <= hi:
            raise ValueError(f"its {name} is {shown(x)}, not a count from {lo} to {hi}")
        return x

    def number(name):
        x = meta.get(name)
        if type(x) is not float and type(x) is not int or not math.isfinite(x) or x < 0:
            raise ValueError(f"its {name} is {shown(x)}, not a finite number >= 0")

    S, n, B, P, G = game.size, game.n, len(game.decharge()), game.P, len(game.charge_groups())
    stage = meta.get("stage")
    if stage == "decharge":
        step = count("step", 1, max_iter)
        count("best_it", 1, step)
        number("best_residual")
        return {"V_dech": (B, n), "best_V": (B, n), "best_dist": (B, n, n, P), "seen": (step, B, n, n, P)}
    if stage not in _STAGES:
        raise ValueError(f"its stage is {shown(stage)}, not one of {', '.join(_STAGES)}")
    count("it", 0, max_iter)
    number("residual")
    if not isinstance(meta.get("converged"), bool):
        raise ValueError(f"its converged is {shown(meta.get('converged'))}, not true or false")
    shapes = {"V": (S, n), "basis": (S, n), "dist": (S, n, n, P)}
    if stage == "charge":
        count("step", 0, G)
        return shapes
    if stage == "certificate":
        count("step", 1, max_iter)
    else:
        count("step", 0, G)
        count("br_it", 0, max_iter)
    return dict(shapes, W=(S, n))


class _Run:
    """One solve's checkpoints and progress display, handed down its loops.

    - Checkpoints (:mod:`four21sim.exact.checkpoint`), with a ``key`` (the disk-cache entry's):
      after each finished pass (a décharge pass, a charge group, a certificate pass or group)
      every piece of the loop state that decides the later passes is saved, so that a killed
      solve resumes from its last finished pass (:meth:`open` reads the checkpoint, checked
      against the game) and ends with the same arrays, bit for bit.
    - Progress (``display``, a :class:`four21sim._util.waiting.Progress`): the phase, the pass,
      the residual and an estimate of what remains of the phase, after each pass.

    ``_Run()`` (no key, nothing shown) does neither: a solve called directly.
    """

    def __init__(self, label: str = "", key: str | None = None, display=None, tol: float = 0.0,
                 resume: bool = True, certify: bool = True) -> None:
        self.label, self.display, self.tol, self.resume, self.certify = label, display, tol, resume, certify
        self.ckpt = None if key is None else Checkpoint(key)
        self.state = None  # (stage, meta, arrays) of the checkpoint resumed from
        self.resumed: str | None = None  # "stage step" resumed from
        self.profile: tuple[dict, dict] = ({}, {})  # the profile's meta and arrays, in every later checkpoint
        self.phase, self.t_last, self.times, self.residuals = "", time.monotonic(), [], []

    def open(self, game: NG.Game, max_iter: int) -> None:
        """Read this solve's checkpoint, if any, checked against ``game`` (a bad one: refused, with a notice)."""
        if self.ckpt is None or not self.resume:
            return
        got = self.ckpt.load(partial(_checkpoint_shapes, game, max_iter))
        if got is not None:
            meta, arrays = got
            self.state = (meta["stage"], meta, arrays)
            self.resumed = f"{meta['stage']} {meta['step']}"

    def at(self, stage: str):
        """(meta, arrays) of the checkpoint resumed from if it was taken in ``stage``, else None."""
        return self.state[1:] if self.state is not None and self.state[0] == stage else None

    def reached(self, stage: str) -> bool:
        """Whether the checkpoint resumed from was taken in ``stage`` or a later one."""
        return self.state is not None and _STAGES.index(self.state[0]) >= _STAGES.index(stage)

    def save(self, stage: str, step: int, meta: dict | None = None, arrays: dict | None = None) -> None:
        """Checkpoint the state after pass ``step`` of ``stage`` (after the décharge, with the profile's)."""
        if self.ckpt is None:
            return
        if stage != "decharge":
            meta, arrays = {**self.profile[0], **(meta or {})}, {**self.profile[1], **(arrays or {})}
        self.ckpt.save(stage, step, meta or {}, arrays or {})

    def begin(self, phase: str) -> None:
        """A phase starts (its passes are timed from here)."""
        self.phase, self.t_last, self.times, self.residuals = phase, time.monotonic(), [], []
        self._show(f"{_PHASES[phase]}, started")

    def passed(self, phase: str, step: int, *, residual: float | None = None, total: int | None = None,
               limit: int | None = None) -> None:
        """Pass ``step`` of ``phase`` is done (of ``total``; or an iteration of at most ``limit`` passes,
        with its ``residual``): shown with an estimate of the phase's time left."""
        now = time.monotonic()
        self.times.append(now - self.t_last)
        self.t_last = now
        left = None
        if total is not None:
            left = total - step
        elif residual is not None:
            self.residuals.append(residual)
            r = self.residuals
            # a residual shrinking geometrically reaches tol after log(r/tol) / log(rate) more passes; policy
            # iteration shrinks it faster than that as it ends (at 4 players, 7.5e-4 then 6.9e-7, then done):
            # no more than the _TYPICAL passes an iteration takes are counted until they are used up
            if len(r) >= 2 and 0 < r[-1] < r[-2] and self.tol > 0 and step < limit:
                rate = math.ceil(math.log(r[-1] / self.tol) / math.log(r[-2] / r[-1]))
                left = max(1, min(rate, max(_TYPICAL - step, 1), limit - step))
        text = f"{_PHASES[phase]}, pass {step}" + (f" of {total} (pot {step})" if total else "") + " done"
        if residual is not None:
            text += f" (residual {residual:.1e})"
        more = f"; about {left} more pass{'es' * (left > 1)}" if left is not None and total is None else ""
        mean = sum(self.times) / len(self.times)
        self._show(text, left * mean if left else None, more)

    def _show(self, text: str, left: float | None = None, more: str = "") -> None:
        if self.display is None:
            return
        later = {"contexts": "the décharge, the charge", "decharge": "the charge", "charge": ""}.get(self.phase, "")
        if self.certify and self.phase in ("contexts", "decharge", "charge"):
            later += ", the certificate" if later else "the certificate"
        self.display.show(f"{self.label}: {text}", left, " in this phase", more + (f"; then {later}" if later else ""))


def _check_progress(label: str, display):
    """``progress(done, total)`` for :func:`verify`'s full check, drawn on ``display`` (a :class:`Progress`,
    or None): which group of states it is at and, once one is done, about how long is left."""
    t0 = time.monotonic()

    def told(done: int, total: int) -> None:
        if display is None:
            return
        left = (time.monotonic() - t0) / done * (total - done) if done else None
        display.show(f"{label}, {done} of {total} groups of states done", left)
    return told


def _solve_resumable(variant: Variant, n: int, objective: str, tol: float, max_iter: int, stall: int,
                     certify: bool, tie: str, key: str, display) -> NSolution:
    """:func:`_solve_equilibrium` with checkpoints under ``key`` (resumed from if there is one) and
    progress on ``display``. A solve that resumed is checked as a disk-cache entry is when read
    (:func:`verify_entry`): a checkpoint is a file, whose digest proves it whole, not right; one
    that does not check is removed and the game solved from the start."""
    label = f"{n} players"  # (the game itself is named by the notice said before)
    run = _Run(label, key, display, tol, certify=certify)
    sol = _solve_equilibrium(variant, n, objective, tol, max_iter, stall, certify, tie, run)
    if run.resumed is None:
        return sol
    arrays, meta = to_arrays(sol)
    try:
        why = verify_entry(variant, n, objective, dict(arrays, __meta__=json.loads(json.dumps(meta))), tie,
                           tol=tol, certified=certify,
                           progress=_check_progress(f"{label}: checking the solve resumed from a checkpoint",
                                                    display))
    except Exception as exc:  # noqa: BLE001  a check that fails refuses, as for a cache entry
        why = f"its check failed ({type(exc).__name__})"
    if why is None:
        return sol
    say(f"{speaker()}: checkpoint: {shown(str(run.ckpt.path))} is not allowed (the solve resumed from it does "
        f"not check: {why}); allowed: this solve's own checkpoint; solving from the start")
    run.ckpt.remove()
    return _solve_equilibrium(variant, n, objective, tol, max_iter, stall, certify, tie,
                              _Run(label, key, display, tol, resume=False, certify=certify))


# the modules whose code decides a solution: a change to any of them makes new disk-cache entries
_CODE = ("exact/nplayer", "exact/_nplayer_game", "exact/_nplayer_kernels", "exact/_two_player_kernels",
         "rules/kernel", "rules/dice", "rules/variants", "exact/store")


@lru_cache(maxsize=16)
def _equilibrium(variant: Variant, n: int, objective: str, tol: float, max_iter: int, stall: int,
                 certify: bool, tie: str = "first") -> NSolution:
    """The equilibrium, from this process's memory, the package's shipped solutions or the disk store
    (both verified), or solved and stored."""
    from .shipped import load  # (a late import: shipped checks what it reads with this module's verifier)
    sol = load(variant, n, objective, tie, tol=tol, max_iter=max_iter, stall=stall, certify=certify)
    if sol is not None:
        return sol
    # the tie order decides the profile: a solution under one order never serves another
    key = store.entry_key("nplayer", options=variant.options(), players=n, objective=objective, tol=tol,
                          max_iter=max_iter, stall=stall, certify=certify, tie=tie, format=FORMAT,
                          code=store.code_hash(_CODE))
    def check(entry: dict) -> str | None:
        # every round solved again (a file is data): at 6 players most of an hour, said and shown as it goes,
        # and in a worker thread, so that a signal stops the command at once
        what = f"the stored equilibrium of {variant.describe()} at {n} players (the disk cache)"
        with notice_after(f"{speaker()}: checking {what}: every round solved again, about half its first solve "
                          f"({FIRST_SOLVE.get(n, 'hours')}) ...", None, AFTER), progress() as display:
            return wait_for(verify_entry, variant, n, objective, entry, tie, tol=tol, certified=certify,
                            progress=_check_progress(f"{n} players: checking the stored equilibrium", display))

    def stored() -> NSolution | None:
        hit = store.load(key, verify=check)
        sol = None if hit is None else from_arrays(variant, hit)
        return sol if sol is not None and sol.tie == tie else None

    sol = stored()
    if sol is not None:
        return sol
    with store.solving(key):  # another process solving it: wait, then read its solution
        sol = stored()
        if sol is None:
            what = f"{variant.describe()} at {n} players exactly" + (", then certifying the equilibrium" * certify)
            how_long = f"{FIRST_SOLVE.get(n, 'hours')} on 2 cores " + (
                "the first time; then read from the disk cache and checked in about half that"
                if store.cache_dir() is not None else "each time: the disk cache is off")
            # every caller's notice (advise, play, env, ...), and after a minute the solve's progress
            with solving(what, how_long), progress() as display:
                sol = wait_for(_solve_resumable, variant, n, objective, tol, max_iter, stall, certify, tie, key,
                               display)
            if store.store(key, *to_arrays(sol)):
                Checkpoint(key).remove()
        else:  # (a solve killed between storing its entry and removing its checkpoint)
            Checkpoint(key).remove()
    return sol


def solve(variant: Variant, players: int = 3, objective: str = "pay", *, against=None, seat: int = 0,
          tol: float = 1e-13, max_iter: int = 200, stall: int = 10, certify: bool = True, tie: str = "first"):
    """Solve the ``players``-player game of ``variant`` exactly.

    Parameters
    ----------
    variant : Variant
    players : int
        2 to 8 (:data:`MAX_TOKENS` gives the tokens each takes).
    objective : {'pay', 'win'}
        What each player maximises: P(not paying) or its win share.
    against : sequence, optional
        The other seats' play, in seat order (seat ``seat`` left out): compiled table
        policies (objects with ``kind``, ``ctx_mode``, ``lead``, ``foll``, ``variant`` as
        :class:`four21sim.policies.Policy` has them; :func:`four21sim.policies.best_response`
        takes policy names), ``"equilibrium"`` or an :class:`NSolution`. Then the result is
        the exact best response of seat ``seat`` (:class:`BestResponse`).
    seat : int
        With ``against``: the seat of the best responder (seat 0 leads the first round).
    tol : float
        Bellman residual at which the décharge iteration stops.
    max_iter, stall : int
        Caps on the décharge iterations (and the policy iteration of the best
        responses); the décharge also stops after ``stall`` iterations without a smaller residual.
    certify : bool
        Compute every role's best response (the exploitability). Without it ``gain`` is zero.
    tie : {'first', 'last', 'next-best', 'next-worst', 'favour-R', 'disfavour-R'}
        Which keep a player takes among those within 1e-12 of its best (:data:`TIE_ORDERS`
        and :data:`four21sim.exact.ties.ROLE_ORDERS` define them: ``favour-R`` the keep best for
        role R, 0 the round's leader): each order gives its own equilibrium where the ties move
        the others' values (docs/nplayer.md, "Ties"). Not with ``against`` (an :class:`NSolution`
        given there plays its own order).

    Returns
    -------
    NSolution or BestResponse

    Raises
    ------
    ValueError
        For a bad argument, named with what is allowed.
    """
    if not isinstance(variant, Variant):
        raise ValueError(f"variant: {variant!r} is not allowed; allowed: a four21sim.Variant")
    n = check_players(players)
    check_objective(objective)
    check_tokens(variant, n)
    check_tie(tie)
    if against is not None:
        if tie != "first":
            raise ValueError(f"tie: {tie!r} is not allowed with against; allowed: 'first' (an NSolution "
                             "given in against plays its own tie order)")
        return wait_for(_solve_against, variant, n, objective, against, seat, tol, max_iter, stall)
    return _equilibrium(variant, n, objective, float(tol), int(max_iter), int(stall), bool(certify), tie)




_EQUILIBRIUM_NAMES = ("equilibrium", "optimal")


def _against_help(n: int) -> str:
    return (f"{n - 1} entries, one per other seat in seat order: a compiled table "
            "policy (context mode 0 or 1), 'equilibrium' (or 'optimal': the equilibrium where each minimises "
            "its P(pay)), or an NSolution of this game")


def _resolve_one(variant: Variant, n: int, objective: str, entry, eq_cache: dict):
    """One other seat's play: ('table', policy) or ('equilibrium', NSolution)."""
    if isinstance(entry, str) and entry.strip().lower() in _EQUILIBRIUM_NAMES:
        obj = objective if entry.strip().lower() == "equilibrium" else "pay"
        if obj not in eq_cache:
            eq_cache[obj] = solve(variant, n, obj)
        return "equilibrium", eq_cache[obj]
    if isinstance(entry, NSolution):
        if entry.variant != variant or entry.players != n:
            raise ValueError(f"against: a solution of {entry.variant.describe()} with {entry.players} players is "
                             f"not allowed; allowed: one of {variant.describe()} with {n} players")
        return "equilibrium", entry
    if isinstance(entry, str):
        # names belong to the policy registry, a layer above this one: it compiles them
        # (four21sim.policies.against) and hands the tables down
        raise ValueError(f"against: {entry!r} is not allowed here; allowed: 'equilibrium', 'optimal', or a "
                         "compiled table policy (four21sim.policies.best_response takes policy names)")
    return "table", _check_table(variant, entry)


def _check_table(variant: Variant, pol):
    kind, mode = getattr(pol, "kind", None), getattr(pol, "ctx_mode", None)
    name = getattr(pol, "name", pol)
    if kind not in ("table", "random") or (kind == "table" and mode not in (0, 1)):
        raise ValueError(f"against: {name!r} is not allowed; allowed: table policies in context mode 0 or 1, "
                         "the random policy, or the equilibrium")
    if getattr(pol, "variant", None) != variant:
        raise ValueError(f"against: policy {name!r} was built for another variant; allowed: policies built for "
                         f"{variant.describe()}")
    if kind == "table" and mode == 1 and pol.lead.shape[0] != (variant.tokens + 1) ** 2:
        raise ValueError(f"against: policy {name!r} has {pol.lead.shape[0]} contexts; allowed: "
                         f"{(variant.tokens + 1) ** 2} in context mode 1")
    return pol


def _resolve_against(variant: Variant, n: int, objective: str, against, seat) -> list:
    """Per seat: ('best', None) for the responder, else :func:`_resolve_one`."""
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
        raise ValueError(f"seat: {seat!r} is not allowed; allowed: 0 to {n - 1}")
    if isinstance(against, (str, NSolution)) or not hasattr(against, "__iter__"):
        against = [against] * (n - 1)
    against = list(against)
    if len(against) != n - 1:
        raise ValueError(f"against: {len(against)} entries are not allowed; allowed: {_against_help(n)}")
    eq_cache: dict = {}
    plays = [_resolve_one(variant, n, objective, a, eq_cache) for a in against]
    return plays[:seat] + [("best", None)] + plays[seat:]


def _table_rows(pol, variant: Variant, pot: int, own: int, L: int):
    """A seat's table policy in one state: ``(lead[made-1, h], foll[target, c-1, made-1, h])``."""
    if pol.kind == "random":
        return np.full((2, _NH), NK.RANDOM_KEEP, np.int8), np.full((_NH, 3, 2, _NH), NK.RANDOM_KEEP, np.int8)
    ctx = pot * (variant.tokens + 1) + own if pol.ctx_mode == 1 else 0
    lead = np.zeros((2, _NH), np.int8)
    for made in range(1, L):
        lead[made - 1] = pol.lead[ctx, L - made - 1]  # the engine's rows are throws left
    return lead, np.ascontiguousarray(pol.foll[ctx], np.int8)


class _Against:
    """One seat's best response to the other seats' fixed play, on the game by seat."""

    def __init__(self, variant: Variant, n: int, objective: str, plays: list):
        self.v, self.n, self.obj, self.plays = variant, n, objective, plays
        # the responder's seat (None: every seat plays a fixed table, the game is only evaluated)
        self.seat = next((q for q, (k, _) in enumerate(plays) if k == "best"), None)
        sols = {id(e): e for k, e in plays if k == "equilibrium"}
        if len(sols) > 1:
            raise ValueError("against: two different equilibria are not allowed; allowed: one equilibrium "
                             "(the same for every seat that plays it)")
        self.eq = next(iter(sols.values()), None)
        self.game = g = NG.seat_game(variant, n)
        # the equilibrium's keeps are recomputed here: under its own tie order
        self.rounds = NG.Rounds(g, labelled=any(k == "table" for k, _ in plays),
                                tie=check_tie(self.eq.tie if self.eq is not None else "first"))
        self.role = np.array([list(g.seat[s]).index(self.seat) if self.seat in g.seat[s] else -1
                              for s in range(g.size)])
        # once someone is out nobody left can win: the responder then plays not to pay, as the
        # players left do in an equilibrium
        self.someone_out = np.array([mk != 0 for _, mk, _, _ in g.states])
        self.obj_of = np.where(self.someone_out & (objective == "win"), "pay", objective)
        self._tables()
        if self.eq is not None:
            self._eq_index()

    def _tables(self) -> None:
        """Every follower table a seat can read, stacked once: ``foll_tabs[offset[seat] + ctx]``."""
        T = self.v.tokens
        tabs = [np.zeros((_NH, 3, 2, _NH), np.int8)]  # index 0: for seats that play no table
        self.offset = np.zeros(self.n, np.int64)
        for q, (kind, pol) in enumerate(self.plays):
            if kind != "table":
                continue
            self.offset[q] = len(tabs)
            many = pol.kind == "table" and pol.ctx_mode == 1
            for ctx in range((T + 1) ** 2 if many else 1):
                tabs.append(_table_rows(pol, self.v, ctx // (T + 1), ctx % (T + 1), 3)[1])
        self.foll_tabs = np.ascontiguousarray(np.array(tabs))

    def _eq_index(self) -> None:
        """Each state's place among the equilibrium's states of the same players in."""
        self.eq_of = {k: (self.eq if k == self.n else self.eq.subs[k]) for k in set(self.game.m.tolist())}
        index = {k: {st: i for i, st in enumerate(sol.states)} for k, sol in self.eq_of.items()}
        g = self.game
        self.eq_state = np.array([index[int(g.m[s])][(int(g.pot[s]), tuple(int(x) for x in g.tok[s, :g.m[s]]))]
                                  for s in range(g.size)])

    @cached_property
    def index(self) -> dict:
        """The number of each state of the game by seat."""
        return {st: i for i, st in enumerate(self.game.states)}

    def plays_of(self, states):
        """What each role plays in each of ``states`` (``NK.solve_rounds``'s acts and tables)."""
        g, T = self.game, self.v.tokens
        m = int(g.m[states[0]])
        acts = np.zeros((len(states), m), np.int64)
        lead_tabs = np.zeros((len(states), 2, _NH), np.int8)
        foll_idx = np.zeros((len(states), m), np.int64)
        for b, s in enumerate(states):
            L = NG.limit(self.v, "charge" if g.pot[s] > 0 else "decharge")
            for j in range(m):
                q = g.seat[s, j]
                kind, pol = self.plays[q]
                acts[b, j] = {"best": NK.ACT_BEST, "equilibrium": NK.ACT_PROFILE, "table": NK.ACT_TABLE}[kind]
                if kind != "table":
                    continue
                mode1 = pol.kind == "table" and pol.ctx_mode == 1
                foll_idx[b, j] = self.offset[q] + (g.pot[s] * (T + 1) + g.tok[s, j] if mode1 else 0)
                if j == 0:
                    lead_tabs[b] = _table_rows(pol, self.v, int(g.pot[s]), int(g.tok[s, 0]), L)[0]
        return acts, lead_tabs, self.foll_tabs, foll_idx

    def succ(self, s: int, W: np.ndarray) -> np.ndarray:
        """``S[l, w, p, j]``: the equilibrium's values (its choices are made against them), then the
        responder's utility from ``W`` (its values in this game)."""
        g = self.game
        m = int(g.m[s])
        Kp = m if self.eq is not None else 0
        S = np.zeros((g.n, g.n, g.P, Kp + 1))
        if Kp:
            sol = self.eq_of[m]
            S[..., :m] = NG.succ(NG.role_game(self.v, m), int(self.eq_state[s]), sol.choice_values(),
                               _sub_values(sol.subs, sol.objective), sol.objective)
        r = int(self.role[s])
        if r >= 0:
            obj = str(self.obj_of[s])
            after = np.where(self.someone_out, 0.0, W) if obj == "win" else W  # still in: nothing to win
            S[..., Kp] = NG.succs(g, s, np.broadcast_to(after[:, None], (g.size, g.n)), {}, obj, [r])[0, ..., 0]
        return S

    def own_values(self, dist: np.ndarray, states, only_decharge: bool) -> np.ndarray:
        """The responder's exact utility in ``states`` (P(not paying) where nothing is left to win)."""
        g = self.game
        out = np.zeros(len(states))
        for obj in set(self.obj_of[states].tolist()):
            d = dist if only_decharge else dist[states]
            X = NG.evaluate(g, dist, NG.constant_part(g, states, d, obj, {}, False), False,
                            only_decharge=only_decharge)
            X = X if only_decharge else X[states]
            pick = (self.obj_of[states] == obj) & (self.role[states] >= 0)
            out[pick] = X[np.arange(len(states)), np.maximum(self.role[states], 0)][pick]
        return out

    def _decharge(self, W, dist, tol, max_iter) -> tuple[int, float]:
        """Policy iteration in the décharge: best keeps against W, then W = their exact values."""
        g = self.game
        dech = g.decharge()
        groups = [dech[g.m[dech] == k] for k in sorted(set(g.m[dech].tolist()))]
        it, residual = 0, 0.0
        for it in range(1, max_iter + 1 if len(dech) else 1):  # noqa: B007  (the count is returned)
            residual = 0.0
            for grp in groups:
                u, dist[grp] = self.run(grp, W, True)
                resp = self.role[grp] >= 0
                residual = max(residual, float(np.abs(u[resp, -1] - W[grp][resp]).max(initial=0.0)))
            if residual <= tol:
                break
            W[dech] = self.own_values(dist[dech], dech, True)
        return it, residual

    def run(self, states, W, want_dist: bool):
        """The rounds of ``states`` with the responder's best keeps against ``W``."""
        m = int(self.game.m[states[0]])
        S = np.array([self.succ(s, W) for s in states])
        return self.rounds.run(states, S, m if self.eq is not None else 0, self.plays_of(states), want_dist)

    def solve(self, tol: float, max_iter: int):
        """The responder's values ``W[s]``, the outcome distributions, iterations and residual."""
        g = self.game
        W = np.zeros(g.size)
        dist = np.zeros((g.size, g.n, g.n, g.P))
        it, residual = self._decharge(W, dist, tol, max_iter)
        for group in g.charge_groups():
            u, dist[group] = self.run(group, W, True)
            W[group] = np.where(self.role[group] >= 0, u[:, -1], 0.0)
        return W, dist, it, residual


@dataclass(eq=False)
class BestResponse:
    """The exact best response of one seat to the other seats' fixed play.

    Attributes
    ----------
    variant, players, objective
        The responder maximises its own P(not paying) (``pay``) or win share (``win``).
    seat : int
        The responder's seat (seat 0 leads the first round).
    against : list of str
        What each other seat plays, in seat order (the responder's own entry is ``"best"``).
    states : list
        ``(pot, out mask, leading seat, tokens by seat)`` of every state.
    value : ndarray
        ``value[s]``: the responder's utility from state s (0 where it is out).
    p_pay, p_win : ndarray
        ``[s, j]``: P(paying) and expected win share of the player in role j (the playing
        order from the leading seat) when the responder plays its best response.
    rounds : ndarray
        Expected rounds to the end from each state.
    iterations, residual, seconds, info
    """

    variant: Variant
    players: int
    objective: str
    seat: int
    against: list
    states: list
    value: np.ndarray
    p_pay: np.ndarray
    p_win: np.ndarray
    rounds: np.ndarray
    iterations: int
    residual: float
    seconds: float
    info: dict = field(default_factory=dict)
    _solver: _Against | None = None

    @property
    def start(self) -> int:
        """The index of the first state: every token in the pot, seat 0 leading."""
        return self.states.index((self.variant.tokens, 0, 0, (0,) * self.players))

    @property
    def seat_p_pay(self) -> np.ndarray:
        """P(seat s pays) from the start (at the start role j is seat j)."""
        return self.p_pay[self.start].copy()

    @property
    def seat_p_win(self) -> np.ndarray:
        """Expected win share of seat s from the start."""
        return self.p_win[self.start].copy()

    @property
    def expected_rounds(self) -> float:
        """Expected number of rounds of a whole game."""
        return float(self.rounds[self.start])

    @cached_property
    def _decisions(self):
        return _Decisions()

    def keep(self, state, role: int, hands=(), throws=(), made: int = 1, hand: int = 0) -> int:
        """The keep of the player in ``role`` (0 leads) in ``state`` (pot, out mask, leading seat, tokens
        by seat) under the best response and the others' play (``RANDOM_KEEP``: a random seat's uniform choice)."""
        key = (int(state[0]), int(state[1]), int(state[2]), tuple(int(x) for x in state[3]))
        ag = self._solver
        if key not in ag.index:
            raise ValueError(f"state: {state!r} is not allowed; allowed: (pot, out mask, leading seat, tokens by seat)")
        s = ag.index[key]
        m = int(ag.game.m[s])

        def build():
            return ag.rounds.decisions(s, ag.succ(s, self.value), m if ag.eq is not None else 0, ag.plays_of([s]))

        limit = NG.limit(self.variant, "charge" if key[0] > 0 else "decharge")
        return self._decisions.keep(s, build, limit, m, role, hands, throws, made, hand, self.variant)

    def tables_2p(self) -> tuple[np.ndarray, np.ndarray]:
        """The 2-player best response as engine tables in context mode 1 (``pot * (tokens+1) + own``):
        ``lead[ctx, throws_left-1, h]`` and ``foll[ctx, target, count-1, made-1, h]``; unused entries
        stop (leader) or re-throw all (follower), both legal."""
        if self.players != 2:
            raise ValueError(f"players: {self.players} is not allowed; allowed: 2 (context mode 1 tables)")
        T, v = self.variant.tokens, self.variant
        lead = np.broadcast_to((dice.FULL_KEEP + np.arange(_NH)).astype(np.int8), ((T + 1) ** 2, 2, _NH)).copy()
        foll = np.zeros(((T + 1) ** 2, _NH, 3, 2, _NH), np.int8)
        ag = self._solver
        for s, (pot, _mk, ld, toks) in enumerate(self.states):
            L = NG.limit(v, "charge" if pot > 0 else "decharge")
            ctx = pot * (T + 1) + toks[self.seat]
            ct, dec, lead_dec = ag.rounds.decisions(s, ag.succ(s, self.value), 0, ag.plays_of([s]))
            if ld == self.seat:
                for made in range(1, L):
                    lead[ctx, L - made - 1] = lead_dec[made - 1]
                continue
            for c in range(1, L + 1):
                for hl in range(_NH):
                    g = ct.context_of([hl], [c], c)
                    foll[ctx, hl, c - 1, :c - 1] = dec[g, :c - 1]
        return lead, foll

    def summary(self) -> dict:
        """Per seat P(pay) and win share under the best response, as JSON-able numbers."""
        return {"variant": self.variant.describe(), "players": self.players, "objective": self.objective,
                "seat": self.seat, "against": self.against,
                "seats": [{"seat": q, "plays": self.against[q], "p_pay": float(self.seat_p_pay[q]),
                           "p_win": float(self.seat_p_win[q])} for q in range(self.players)],
                "expected_rounds": self.expected_rounds, "iterations": self.iterations,
                "residual": self.residual, "seconds": self.seconds}


def evaluate(variant: Variant, players: int, policies) -> dict:
    """Exact P(pay), win shares and expected rounds when every seat plays a fixed policy.

    ``policies``: one per seat, compiled table policies in context mode 0 or 1 (the random
    policy included), read as the engine reads them, or the equilibrium (``"equilibrium"``,
    ``"optimal"``: the equilibrium where each minimises its P(pay), or an :class:`NSolution` of
    this game; every seat that plays it plays the same one, its strategy fixed: it does not
    respond to the tables, it plays the keeps it plays in the equilibrium, after any history);
    :func:`four21sim.policies.evaluate_lineup` takes policy names. The n-player counterpart of
    :func:`four21sim.exact.two_player.evaluate`.

    Returns
    -------
    dict
        ``p_pay`` and ``p_win`` (lists by seat, seat 0 leading the first round) and
        ``expected_rounds``.
    """
    if not isinstance(variant, Variant):
        raise ValueError(f"variant: {variant!r} is not allowed; allowed: a four21sim.Variant")
    n = check_players(players)
    check_tokens(variant, n)
    pols = list(policies) if not isinstance(policies, str) else [policies] * n
    if len(pols) != n:
        raise ValueError(f"policies: {len(pols)} policies are not allowed; allowed: one per seat ({n})")
    eq_cache: dict = {}
    plays = [_resolve_one(variant, n, "pay", p, eq_cache) for p in pols]
    ag = _Against(variant, n, "pay", plays)  # no seat responds: every round is played once, as given
    _, dist, _, _ = ag.solve(1e-13, 1)
    g = ag.game
    every = np.arange(g.size)
    X = {o: NG.evaluate(g, dist, NG.constant_part(g, every, dist, o, {}, False), False) for o in OBJECTIVES}
    start = g.states.index((variant.tokens, 0, 0, (0,) * n))
    rounds = NG.evaluate(g, dist, np.ones((g.size, n)), False, tracked="same")[start, 0]
    return {"p_pay": list(1.0 - X["pay"][start]), "p_win": list(X["win"][start]), "expected_rounds": float(rounds)}


def _label(kind: str, e) -> str:
    if kind == "best":
        return "best"
    if kind == "equilibrium":
        return f"equilibrium ({e.objective})"
    return str(getattr(e, "name", "table"))


def _solve_against(variant, n, objective, against, seat, tol, max_iter, stall):
    plays = _resolve_against(variant, n, objective, against, seat)
    t0 = time.perf_counter()
    ag = _Against(variant, n, objective, plays)
    W, dist, it, residual = ag.solve(tol, max_iter)
    g = ag.game
    every = np.arange(g.size)
    X = {o: NG.evaluate(g, dist, NG.constant_part(g, every, dist, o, {}, False), False) for o in OBJECTIVES}
    rounds = NG.evaluate(g, dist, np.ones((g.size, n)), False, tracked="same")[:, 0]
    info = {"value_gap": float(np.abs(ag.own_values(dist, every, False) - W).max()), "states": g.size,
            "contexts_seconds": ag.rounds.seconds_contexts, "peak_mib": _peak_mib()}
    return BestResponse(variant, n, objective, int(seat), [_label(k, e) for k, e in plays], g.states, W,
                        1.0 - X["pay"], X["win"], rounds, it, residual, time.perf_counter() - t0, info, ag)


# ====================================================================== decisions
def _check_situation(variant: Variant, phase_limit: int, m: int, role, hands, throws, made, hand) -> None:
    ok_role = isinstance(role, (int, np.integer)) and 0 <= role < m
    if not ok_role:
        raise ValueError(f"role: {role!r} is not allowed; allowed: 0 (the leader) to {m - 1}")
    if len(hands) != role or len(throws) != role:
        raise ValueError(f"hands: {len(hands)} hands and {len(throws)} throws are not allowed; allowed: the "
                         f"{role} hands (and throws) of the players before role {role}")
    limit = phase_limit if role == 0 else throws[0]
    if not (isinstance(made, (int, np.integer)) and 1 <= made < limit):
        raise ValueError(f"made: {made!r} is not allowed; allowed: 1 to {limit - 1} (a decision comes before the "
                         f"last throw allowed, {limit})")
    if not (isinstance(hand, (int, np.integer)) and 0 <= hand < _NH):
        raise ValueError(f"hand: {hand!r} is not allowed; allowed: a hand index 0 to {_NH - 1}")


class _Decisions:
    """The keeps of one state's round, recomputed on demand from the values they were made
    against (the round kernel, exactly as in the solve), the last state kept."""

    def __init__(self):
        self._last = None

    def get(self, s: int, build):
        """``(contexts, dec, lead_dec)`` of state s, built by ``build()`` unless it is the last state asked."""
        if self._last is None or self._last[0] != s:
            self._last = (s,) + build()
        return self._last[1:]

    def keep(self, s, build, limit, m, role, hands, throws, made, hand, variant) -> int:
        """The keep of the situation, checked (see :meth:`NSolution.keep`)."""
        _check_situation(variant, limit, m, role, hands, throws, made, hand)
        ct, dec, lead_dec = self.get(s, build)[:3]
        if role == 0:
            return int(lead_dec[made - 1, hand])
        g = ct.context_of(list(hands), list(throws), int(throws[0]))
        return int(dec[g, made - 1, hand])


# P(hand h after keeping k and throwing the rest), for the keeps that throw a die: M[k, h]
_THROW_P = dice.THROW_COUNTS[:dice.FULL_KEEP] / dice.KT_DENOM[:dice.FULL_KEEP, None]


def _turn_ends(ct, vals, limit: int, role: int, hands, throws) -> tuple[np.ndarray, int]:
    """``end[f-1, h, j]``: the utilities when the turn of ``role`` ends on h after f throws (zero where
    it cannot end so: an exact follower before the count), and the turn's throw limit."""
    if role == 0:
        return vals[ct.lead_next[:limit]], limit
    c = int(throws[0])
    g = ct.context_of(list(hands), list(throws), c)
    end = np.zeros((c, _NH, vals.shape[1]))
    for f in range(1, c + 1):
        if ct.exact and f < c:
            continue
        slot = 0 if ct.exact else f - 1
        end[f - 1] = vals[ct.trans[ct.row_start[g] + slot * _NH + np.arange(_NH)]]
    return end, c


def _keep_utilities(ct, dec, lead_dec, vals, variant, limit, role, hands, throws, made, hand) -> dict:
    """keep -> utilities by role of one decision, the turn's later keeps those of the profile
    (``lead_dec`` for the leader, ``dec[g]`` for a follower in context g)."""
    end, c = _turn_ends(ct, vals, limit, role, hands, throws)
    later = lead_dec if role == 0 else dec[ct.context_of(list(hands), list(throws), c)]
    level = end[c - 1]
    stops = dice.FULL_KEEP + np.arange(_NH)
    for m in range(c - 1, made, -1):  # the profile's own play after this decision, backwards
        kv = _THROW_P @ level
        k = later[m - 1].astype(np.int64)
        level = np.where((k == stops)[:, None], end[m - 1], kv[np.clip(k, 0, dice.FULL_KEEP - 1)])
    kv = _THROW_P @ level
    allow_stop = role == 0 or variant.followers == "at_most"
    return {k: (end[made - 1, hand] if k == dice.FULL_KEEP + hand else kv[k]).copy()
            for k in dice.keeps_of(hand, allow_stop=allow_stop)}


def in_play(sol: NSolution, m: int) -> NSolution:
    """The solution of the game with ``m`` players in play: ``sol`` itself, or (under ``end =
    last_holder``, once players are out) the game of fewer players it holds."""
    if m == sol.players:
        return sol
    if m not in sol.subs:
        raise ValueError(f"players: {m} in play is not allowed; allowed: "
                         f"{', '.join(str(k) for k in sorted(sol.subs) + [sol.players])}")
    return sol.subs[m]


def keep_values(sol: NSolution, state, role: int, hands=(), throws=(), made: int = 1, hand: int = 0) -> dict:
    """The utility of each legal keep of one decision to the player choosing it, everyone playing the
    equilibrium afterwards: keep index -> value (P(not paying) under ``pay``, the win share under ``win``).

    Parameters
    ----------
    sol : NSolution
    state : (pot, tokens by role)
        Every player in, role 0 leading (:func:`in_play` gives the game of the players left).
    role : int
        The player choosing: 0 the leader, then the followers in playing order.
    hands, throws : sequence of int
        The final hands and throws of the roles before it this round (a follower's throw
        limit is the leader's throws, ``throws[0]``).
    made, hand : int
        The throws made (below the turn's limit) and the hand held.

    The values are the solver's own backward induction (the same continuation values and
    round kernel, the same tie order): the keep the equilibrium takes (:meth:`NSolution.keep`)
    is one within 1e-12 of the best, chosen by the solution's tie order (:data:`TIE_ORDERS`;
    by default the first in ``dice.HAND_KEEPS`` order that no later keep beats by more).
    """
    return {k: float(u[role]) for k, u in sol.keep_utilities(state, role, hands, throws, made, hand).items()}


def tie_spread(sol: NSolution) -> np.ndarray:
    """How much the documented tie order decides, state by state.

    ``spread[s]``: in state s's round, the largest difference in another player's
    utility between the keep a player takes and a keep it is indifferent to (within
    1e-12). Zero means the tie order moves nobody's values there; otherwise another
    order would make another equilibrium, with other values for the others.
    The cost is one pass over the states.
    """
    game = NG.role_game(sol.variant, sol.players)
    rounds = NG.Rounds(game, tie=check_tie(sol.tie))
    spread = np.zeros(game.size)
    subV = _sub_values(sol.subs, sol.objective)
    for group in [game.decharge()] + game.charge_groups():
        if len(group):
            S = NG.succs(game, group, sol.choice_values(), subV, sol.objective)
            out = np.zeros(len(group))
            rounds.run(group, S, sol.players, spread=out)
            spread[group] = out
    return spread


# ====================================================================== stored form
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
    so recomputed is the stored ``residual`` (``residual``: their relative difference); and, ``certified``, ``value + gain`` solves the best responses'
    equations in every state (one best-response round each, the certificate's own stopping
    rule: a charge round leads only to smaller pots, so a gain changed in one state fails
    there), else ``gain`` is zero.

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
