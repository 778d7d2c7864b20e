"""The exact 2-player game: optimal play, game values and expected length.

Each round is a game of perfect information: the leader throws and chooses when
to stop and what to keep; the follower sees the leader's hand and count and
answers under the follower rule. Each maximises its own probability of winning
the *game*, which makes the round's terminal payoffs the values of the states
it leads to. The state space is ``(pot, leader's tokens, follower's tokens)``.

- The charge is acyclic (the pot only shrinks), so its states are solved once
  each, in order of increasing pot.
- The décharge has cycles; its ``tokens - 1`` states are solved by value
  iteration (Gauss-Seidel), then the values under the resulting policy are
  obtained exactly from the linear system of the Markov chain that policy
  induces, and the Bellman residual is checked to be below ``tol``.
- The expected number of rounds is computed from the same Markov chains, not by
  sampling.

Ties between keeps of equal value go to the first in ``dice.HAND_KEEPS`` order
(stop, then keeping more dice), as everywhere in the package.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pandas is imported where a table is made: a command that makes none does not pay for it
    import pandas as pd

from .._util import display as _display
from .._util.checks import check_float
from ..rules import dice
from ..rules import kernel as R
from ..rules.variants import Variant
from . import _two_player_kernels as SK
from . import ties

__all__ = ["Solution", "solve", "evaluate", "round_table", "check_state", "leader_keep_values", "follower_keep_values",
           "throw_values", "MAX_SOLVER_TOKENS", "KEEP_TIE"]

MAX_SOLVER_TOKENS = 60
KEEP_TIE = ties.KEEP_TIE  # keeps within this of the best are ties: the first in HAND_KEEPS order wins (ties.py)


def throw_values(next_values: np.ndarray) -> np.ndarray:
    """The value of every keep that throws (``dice.FULL_KEEP`` of them), the hands it may lead to
    being worth ``next_values`` (one per hand): the solver's own sums, term by term in its order,
    so that a copy of the solver elsewhere (the advisor's page) ranks near ties as it does."""
    kv = np.empty(dice.FULL_KEEP)
    SK._keep_values(np.ascontiguousarray(next_values, dtype=np.float64), kv)
    return kv
KEEP_DTYPE = dice.KEEP_DTYPE
_NH = dice.N_HANDS


def round_table(variant: Variant, phase: str) -> tuple[np.ndarray, np.ndarray]:
    """Outcome of a 2-player round for every pair of final hands.

    Returns ``(code, pay)`` of shape ``(56, 3, 56, 3)`` indexed
    ``[leader hand, count-1, follower hand, follower throws-1]``: code 0 if the
    leader loses, 1 if the follower loses, 2 for a tie (a fair roll-off decides
    the loser; the payout is the same either way), and the payout. Judged by the
    rules kernel, as the engine judges its rounds.
    """
    if phase not in ("charge", "decharge"):
        raise ValueError(f"phase: {phase!r} is not allowed; allowed: charge, decharge")
    code = np.full((_NH, 3, _NH, 3), -1, dtype=np.int64)
    pay = np.zeros((_NH, 3, _NH, 3), dtype=np.int64)
    SK.fill_round_table(R.CHARGE if phase == "charge" else R.DECHARGE,
                        np.ascontiguousarray(dice.RANK[variant.ranking_index]),
                        np.ascontiguousarray(dice.VALUE[variant.values_index]), R.params(variant), code, pay)
    return code, pay


@lru_cache(maxsize=16)
def _round_table_cached(variant: Variant, phase: str):
    return round_table(variant, phase)


@dataclass(eq=False)
class Solution:
    """The solved 2-player game of a variant.

    Attributes
    ----------
    variant : Variant
    value : ndarray
        ``value[pot, a, b]``: P(the round's leader wins the game) with ``a``
        tokens against the follower's ``b`` (entries with ``pot + a + b !=
        tokens`` are unused).
    rounds : ndarray
        Expected rounds to the end of the game from each state, same indexing.
    lead, foll : ndarray
        Optimal decisions in the engine's table layout (context mode 1).
    lead_value : ndarray
        ``lead_value[ctx, made-1, h]``: the leader's win probability holding h
        after ``made`` throws, playing on optimally (NaN beyond the phase's limit).
    foll_value : ndarray
        ``foll_value[ctx, hL, c-1]``: the follower's win probability before its
        first throw against a leader who stopped on hL after c throws (NaN for
        counts above the phase's limit).
    seconds : float
        Time to solve.
    iterations : int
        Value-iteration sweeps in the décharge.
    residual : float
        Largest Bellman residual of the final values.
    """

    variant: Variant
    value: np.ndarray
    rounds: np.ndarray
    lead: np.ndarray
    foll: np.ndarray
    lead_value: np.ndarray
    foll_value: np.ndarray
    seconds: float
    iterations: int
    residual: float
    info: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        return _display.solution_repr(self)

    def _repr_html_(self) -> str:
        return _display.solution_html(self)

    @property
    def tokens(self) -> int:
        return self.variant.tokens

    @property
    def p_seat0(self) -> float:
        """P(seat 0, who leads the first round, wins the game) under optimal play."""
        return float(self.value[self.tokens, 0, 0])

    @property
    def expected_rounds(self) -> float:
        """Expected number of rounds of a whole game under optimal play."""
        return float(self.rounds[self.tokens, 0, 0])

    def ctx(self, pot: int, own: int) -> int:
        return pot * (self.tokens + 1) + own

    def state_value(self, pot: int, t0: int, t1: int, leader: int = 0) -> float:
        """P(seat 0 wins) from any state, seat ``leader`` to lead the next round."""
        check_state(self.variant, pot, t0, t1, leader)
        if leader == 0:
            return float(self.value[pot, t0, t1])
        return 1.0 - float(self.value[pot, t1, t0])

    def states(self) -> pd.DataFrame:
        """Every live state: pot, leader's and follower's tokens, phase, values."""
        T = self.tokens
        rows = []
        for pot in range(T + 1):
            for a in range(T + 1 - pot):
                b = T - pot - a
                if pot == 0 and (a == 0 or b == 0):
                    continue
                rows.append(dict(pot=pot, leader_tokens=a, follower_tokens=b,
                                 phase="charge" if pot else "decharge",
                                 p_leader_wins=float(self.value[pot, a, b]),
                                 expected_rounds=float(self.rounds[pot, a, b])))
        import pandas as pd

        return pd.DataFrame(rows)

    def round_detail(self, pot: int, a: int, b: int) -> dict:
        """Every value and decision of the round played from state (pot, a, b).

        Returns a dict of arrays: ``lead_dec[tl-1, h]``, ``lead_val[made-1, h]``,
        ``foll_dec[hL, c-1, made-1, h]``, ``foll_lv[hL, c-1, made-1, h]`` (the
        follower's win probability holding h after ``made`` throws) and
        ``foll_val[hL, c-1]``, plus ``throws`` (the phase's throw limit) and ``value``.
        """
        check_state(self.variant, pot, a, b, 0)
        v = self.variant
        tables = [_round_table_cached(v, "charge"), _round_table_cached(v, "decharge")]
        L, code, pay = _phase_args(v, pot, tables)
        max_pay = int(max(t[1].max() for t in tables))
        out = dict(lead_dec=np.zeros((2, _NH), dtype=np.int64), lead_val=np.full((3, _NH), np.nan),
                   foll_dec=np.zeros((_NH, 3, 2, _NH), dtype=np.int64), foll_val=np.full((_NH, 3), np.nan),
                   foll_lv=np.full((_NH, 3, 2, _NH), np.nan))
        out["lead_dec"][:] = dice.FULL_KEEP + np.arange(_NH)
        value = SK.round_value(pot, a, b, self.value, R.params(v), code, pay, max_pay,
                               out["lead_dec"], out["lead_val"], out["foll_dec"], out["foll_val"], out["foll_lv"])
        out["throws"] = L
        out["value"] = value
        return out


def check_state(variant: Variant, pot: int, t0: int, t1: int, leader: int) -> None:
    T = variant.tokens
    ok = all(isinstance(x, (int, np.integer)) and x >= 0 for x in (pot, t0, t1)) and pot + t0 + t1 == T
    if not ok or (pot == 0 and (t0 == 0 or t1 == 0)):
        raise ValueError(f"state: ({pot}, {t0}, {t1}) is not a live state; allowed: POT,T0,T1 >= 0 adding up to "
                         f"tokens={T}, both players holding tokens once the pot is empty")
    if leader not in (0, 1):
        raise ValueError(f"state: leader {leader!r} is not allowed; allowed: 0 or 1")


def _phase_args(variant: Variant, pot: int, tables):
    phase = 1 if pot == 0 else 0
    code, pay = tables[phase]
    L = variant.decharge_throws if phase else variant.charge_throws
    return L, code, pay


@lru_cache(maxsize=32)
def solve(variant: Variant, tol: float = 1e-12, max_sweeps: int = 100_000):
    """Solve the 2-player game of ``variant`` exactly (cached per variant).

    Parameters
    ----------
    variant : Variant
        Any variant with ``tokens <= MAX_SOLVER_TOKENS``.
    tol : float
        Convergence: the largest Bellman residual allowed at the end.

    Returns
    -------
    Solution
    """
    if not isinstance(variant, Variant):
        raise ValueError(f"variant: {variant!r} is not a Variant")
    check_float("tol", tol, 0, lo_open=True)
    T = variant.tokens
    if T > MAX_SOLVER_TOKENS:
        raise ValueError(f"tokens: {T} is too many for the exact solver; allowed: 1 to {MAX_SOLVER_TOKENS}")
    t0 = time.perf_counter()
    rr = _Rounds(variant)
    sweeps, residual = _solve_decharge(rr, tol, max_sweeps)
    for pot in range(1, T + 1):  # the charge: acyclic, by increasing pot
        for a in range(T + 1 - pot):
            b = T - pot - a
            rr.V[pot, a, b] = rr.run(pot, a, b)
            rr.store(pot, a, b)
    rounds = _expected_rounds(variant, rr.V, rr.lead, rr.foll, rr.tables, rr.max_pay, rr.prm)
    return Solution(variant, rr.V, rounds, rr.lead, rr.foll, rr.lead_value, rr.foll_value, time.perf_counter() - t0,
                    sweeps, residual)


class _Rounds:
    """One variant's round solver: the values so far, the decision tables filled state by
    state, and the buffers of the round last solved."""

    def __init__(self, variant: Variant):
        T = variant.tokens
        self.variant, self.T = variant, T
        self.tables = [_round_table_cached(variant, "charge"), _round_table_cached(variant, "decharge")]
        self.max_pay = int(max(t[1].max() for t in self.tables))
        self.prm = R.params(variant)
        self.V = np.zeros((T + 1, T + 1, T + 1))
        n_ctx = (T + 1) ** 2
        self.stop = (dice.FULL_KEEP + np.arange(_NH)).astype(KEEP_DTYPE)
        self.lead = np.broadcast_to(self.stop, (n_ctx, 2, _NH)).copy()
        # unused follower entries re-throw everything: legal under both follower rules
        self.foll = np.zeros((n_ctx, _NH, 3, 2, _NH), dtype=KEEP_DTYPE)
        # entries a phase never reaches (made or count above its throw limit) stay NaN
        self.lead_value = np.full((n_ctx, 3, _NH), np.nan)
        self.foll_value = np.full((n_ctx, _NH, 3), np.nan)
        self.lead_dec = np.zeros((2, _NH), dtype=np.int64)
        self.foll_dec = np.zeros((_NH, 3, 2, _NH), dtype=np.int64)
        self.lead_val = np.zeros((3, _NH))
        self.foll_val = np.zeros((_NH, 3))
        self.foll_lv = np.zeros((_NH, 3, 2, _NH))

    def run(self, pot: int, a: int, b: int) -> float:
        """Solve the round of state (pot, a, b) against the current values; its value to the leader."""
        L, code, pay = _phase_args(self.variant, pot, self.tables)
        self.lead_dec[:] = self.stop[None, :]
        self.foll_dec[:] = 0
        self.lead_val[:] = np.nan
        self.foll_val[:] = np.nan
        self.foll_lv[:] = np.nan
        return SK.round_value(pot, a, b, self.V, self.prm, code, pay, self.max_pay, self.lead_dec, self.lead_val,
                              self.foll_dec, self.foll_val, self.foll_lv)

    def store(self, pot: int, a: int, b: int) -> None:
        """Keep the decisions of the round last solved as the rows of its contexts."""
        cl, cf = pot * (self.T + 1) + a, pot * (self.T + 1) + b
        self.lead[cl] = self.lead_dec
        self.lead_value[cl] = self.lead_val
        self.foll[cf] = self.foll_dec
        self.foll_value[cf] = self.foll_val


def _solve_decharge(rr: _Rounds, tol: float, max_sweeps: int) -> tuple[int, float]:
    """Value iteration on the décharge, then exact evaluation of the policy it found;
    returns (sweeps, Bellman residual) and fails if the residual is above ``tol``."""
    T = rr.T
    dech = [(a, T - a) for a in range(1, T)]
    sweeps = 0
    if dech:
        while True:
            sweeps += 1
            delta = 0.0
            for a, b in dech:
                v = rr.run(0, a, b)
                delta = max(delta, abs(v - rr.V[0, a, b]))
                rr.V[0, a, b] = v
            if delta < tol / 100 or sweeps >= max_sweeps:
                break
        _evaluate_decharge(rr.variant, rr.V, dech, rr.run, (rr.lead_dec, rr.foll_dec), rr.tables, rr.max_pay,
                           rr.prm)
    residual = 0.0
    for a, b in dech:
        v = rr.run(0, a, b)
        residual = max(residual, abs(v - rr.V[0, a, b]))
        rr.store(0, a, b)
    if residual > tol:
        raise RuntimeError(f"solver did not converge: residual {residual:.3g} > {tol:g} after {sweeps} sweeps")
    return sweeps, residual


def _outcome_dist(variant, pot, lead_dec, foll_dec, tables, max_pay):
    L, code, pay = _phase_args(variant, pot, tables)
    dist = np.zeros((3, max_pay + 1))
    SK.round_outcomes(L, lead_dec, foll_dec, code, pay, max_pay, dist)
    return dist


def _transitions(pot, a, b, dist, prm):
    """Yield (probability, next state or None, same_leader) of the outcomes in dist.

    ``same_leader`` is True when the current leader leads the next round, False when
    the follower does; the next state is seen from the next round's roles. ``None``
    for the end of the game, with whether the round's leader won in place of
    same_leader. Each outcome is settled by the rules kernel (SK.successor).
    """
    scratch = [np.empty(2, dtype=np.int64) for _ in range(3)]
    for code in range(3):
        for p in np.flatnonzero(dist[code]):
            prob = dist[code, p]
            sides = ((True, prob),) if code == SK.LEADER_LOSES else ((False, prob),) \
                if code == SK.FOLLOWER_LOSES else ((True, prob / 2), (False, prob / 2))
            for loser_is_leader, pr in sides:
                ended, leader_wins, pot2, x, y, same = SK.successor(pot, a, b, loser_is_leader, int(p), prm,
                                                                      *scratch)
                if ended:
                    yield pr, None, bool(leader_wins)
                else:
                    yield pr, (int(pot2), int(x), int(y)), bool(same)


def _evaluate_decharge(variant, V, dech, run, decisions, tables, max_pay, prm) -> None:
    """Replace the décharge values by the exact values of the current policy (linear solve).

    ``run(pot, a, b)`` solves one state's round and leaves its decisions in ``decisions``.
    """
    idx = {s: i for i, s in enumerate(dech)}
    n = len(dech)
    A = np.eye(n)
    c = np.zeros(n)
    for i, (a, b) in enumerate(dech):
        run(0, a, b)
        lead_dec, foll_dec = decisions
        dist = _outcome_dist(variant, 0, lead_dec, foll_dec, tables, max_pay)
        for pr, nxt, same in _transitions(0, a, b, dist, prm):
            if nxt is None:
                c[i] += pr * (1.0 if same else 0.0)
            elif same:
                A[i, idx[(nxt[1], nxt[2])]] -= pr
            else:  # value to us = 1 - V(next) from the other side
                c[i] += pr
                A[i, idx[(nxt[1], nxt[2])]] += pr
    x = np.linalg.solve(A, c)
    for i, (a, b) in enumerate(dech):
        V[0, a, b] = x[i]


def _expected_rounds(variant, V, lead, foll, tables, max_pay, prm) -> np.ndarray:
    """Expected rounds to the end from every state, under the stored policy, exactly."""
    T = variant.tokens
    R = np.zeros_like(V)
    dists = {}
    for pot in range(T + 1):
        for a in range(T + 1 - pot):
            b = T - pot - a
            if pot == 0 and (a == 0 or b == 0):
                continue
            ld = lead[pot * (T + 1) + a].astype(np.int64)
            fd = foll[pot * (T + 1) + b].astype(np.int64)
            dists[(pot, a, b)] = _outcome_dist(variant, pot, ld, fd, tables, max_pay)
    dech = [(a, T - a) for a in range(1, T)]
    if dech:
        idx = {s: i for i, s in enumerate(dech)}
        A = np.eye(len(dech))
        c = np.ones(len(dech))
        for i, (a, b) in enumerate(dech):
            for pr, nxt, _ in _transitions(0, a, b, dists[(0, a, b)], prm):
                if nxt is not None:
                    A[i, idx[(nxt[1], nxt[2])]] -= pr
        x = np.linalg.solve(A, c)
        for i, (a, b) in enumerate(dech):
            R[0, a, b] = x[i]
    for pot in range(1, T + 1):
        for a in range(T + 1 - pot):
            b = T - pot - a
            r = 1.0
            for pr, nxt, _ in _transitions(pot, a, b, dists[(pot, a, b)], prm):
                if nxt is not None:
                    r += pr * R[nxt]
            R[pot, a, b] = r
    return R


def evaluate(variant: Variant, policies) -> dict:
    """Exact P(seat 0 wins) and expected rounds when two compiled table policies play each other.

    Seat 0 plays ``policies[0]``, seat 1 ``policies[1]``: objects with ``kind``,
    ``ctx_mode``, ``lead`` and ``foll`` as :class:`four21sim.policies.Policy` has
    them (:func:`four21sim.policies.evaluate` takes policy names). The fixed
    decisions turn the game into a Markov chain over (pot, tokens of seat 0,
    tokens of seat 1, leader), solved as one linear system.
    """
    pols = list(policies)
    if len(pols) != 2:
        raise ValueError(f"policies: {len(pols)} policies given; allowed: exactly two, one per seat")
    for p in pols:
        if isinstance(p, str) or getattr(p, "kind", None) != "table":
            raise ValueError(f"policies: {getattr(p, 'name', p)!r} is not a compiled table policy; "
                             "compile names with four21sim.policies (or call four21sim.policies.evaluate)")
    chain = policy_chain(variant, pols)
    A, win = chain["A"], chain["win"]
    p = np.linalg.solve(A, win)
    r = np.linalg.solve(A, np.ones(len(win)))
    start = chain["start"]
    return {"p_seat0": float(p[start]), "expected_rounds": float(r[start])}


def _decisions(pols, T: int, pot: int, a: int, b: int, ld: int) -> tuple[np.ndarray, np.ndarray]:
    """The leader's and the follower's decision tables in a state (``a``: the leader's tokens)."""
    pl, pf = pols[ld], pols[1 - ld]
    lead = pl.lead[pot * (T + 1) + a if pl.ctx_mode == 1 else 0]
    foll = pf.foll[pot * (T + 1) + b if pf.ctx_mode == 1 else 0]
    return lead.astype(np.int64), foll.astype(np.int64)


def state_row(chain: dict, i: int, lead_dec: np.ndarray, foll_dec: np.ndarray) -> tuple[float, dict]:
    """One state's row of the chain under the given decisions: P(seat 0 wins now) and
    ``{next state index: probability}``."""
    idx = chain["idx"]
    pot, t0, t1, ld = chain["states"][i]
    a, b = (t0, t1) if ld == 0 else (t1, t0)
    dist = _outcome_dist(chain["variant"], pot, lead_dec, foll_dec, chain["tables"], chain["max_pay"])
    win, row = 0.0, {}
    for pr, nxt, same in _transitions(pot, a, b, dist, chain["prm"]):
        if nxt is None:  # 'same' is True when the round's leader won the game
            if (ld == 0) == bool(same):
                win += pr
            continue
        pot2, x, y = nxt  # x: tokens of the next leader
        next_leader = ld if same else 1 - ld
        s0, s1 = (x, y) if next_leader == 0 else (y, x)
        j = idx[(pot2, s0, s1, next_leader)]
        row[j] = row.get(j, 0.0) + pr
    return win, row


def policy_chain(variant: Variant, pols) -> dict:
    """The Markov chain of a game between two compiled table policies (seat 0, seat 1).

    States are ``(pot, tokens of seat 0, tokens of seat 1, leader)``; returns a dict with
    ``states``, ``idx`` (state -> row), ``A`` (I - transition matrix), ``win`` (P(seat 0
    wins in the round played from each state)), ``start`` and what :func:`state_row` needs.
    """
    T = variant.tokens
    if T > MAX_SOLVER_TOKENS:
        raise ValueError(f"tokens: {T} is too many for the exact solver; allowed: 1 to {MAX_SOLVER_TOKENS}")
    tables = [_round_table_cached(variant, "charge"), _round_table_cached(variant, "decharge")]
    states = [(pot, t0, T - pot - t0, ld) for pot in range(T + 1) for t0 in range(T + 1 - pot) for ld in (0, 1)
              if not (pot == 0 and (t0 == 0 or t0 == T))]
    chain = dict(variant=variant, tokens=T, tables=tables, max_pay=int(max(t[1].max() for t in tables)),
                 prm=R.params(variant), states=states, idx={s: i for i, s in enumerate(states)}, pols=pols)
    n = len(states)
    A = np.eye(n)
    win = np.zeros(n)
    for i, (pot, t0, t1, ld) in enumerate(states):
        a, b = (t0, t1) if ld == 0 else (t1, t0)
        w, row = state_row(chain, i, *_decisions(pols, T, pot, a, b, ld))
        win[i] = w
        for j, pr in row.items():
            A[i, j] -= pr
    chain.update(A=A, win=win, start=chain["idx"][(T, 0, 0, 0)])
    return chain


def _expect(keep: int, level) -> float:
    """Expected ``level[hand]`` after keeping ``keep`` and throwing the rest (exact fractions)."""
    return sum(float(p) * level[h2] for h2, p in dice.throw_distribution(keep).items())


def leader_keep_values(sol: Solution, pot: int, mine: int, theirs: int, hand: int, made: int) -> dict[int, float]:
    """P(winning the game) of each keep of the round's leader holding ``hand`` after ``made``
    throws, with ``mine`` tokens against ``theirs`` and ``pot`` in the pot: keep index -> value."""
    L = sol.variant.charge_throws if pot else sol.variant.decharge_throws
    d = sol.round_detail(pot, mine, theirs)
    if made == L:
        return {dice.FULL_KEEP + hand: float(d["lead_val"][L - 1, hand])}
    return {k: 1.0 - float(d["foll_val"][hand, made - 1]) if k == dice.FULL_KEEP + hand
            else _expect(k, d["lead_val"][made]) for k in dice.keeps_of(hand)}


def follower_keep_values(sol: Solution, pot: int, mine: int, theirs: int, leader_hand: int, count: int, hand: int,
                         made: int) -> dict[int, float]:
    """P(winning the game) of each keep of the follower holding ``hand`` after ``made`` of
    ``count`` throws, behind a leader who stopped on ``leader_hand``: keep index -> value."""
    variant = sol.variant
    hl, c, h = leader_hand, count, hand
    d = sol.round_detail(pot, theirs, mine)  # seen from the round's roles: the opponent leads
    code, pay = _round_table_cached(variant, "charge" if pot else "decharge")
    prm = R.params(variant)
    scratch = [np.empty(2, dtype=np.int64) for _ in range(3)]  # tokens, out, place
    # the value to the round's leader (the opponent) of the round ending with each payout
    vl, vf = (np.array([SK._successor_value(pot, theirs, mine, loser_is_leader, p, sol.value, prm, *scratch)
                        if p else 0.0 for p in range(int(pay.max()) + 1)]) for loser_is_leader in (True, False))

    def terminal(f):
        cd, pp = code[hl, c - 1, :, f - 1], pay[hl, c - 1, :, f - 1]
        w = np.where(cd == SK.LEADER_LOSES, vl[pp], np.where(cd == SK.FOLLOWER_LOSES, vf[pp], 0.5 * (vl[pp] + vf[pp])))
        return 1.0 - w

    if made == c:
        return {dice.FULL_KEEP + h: float(terminal(c)[h])}
    nxt = d["foll_lv"][hl, c - 1, made] if made + 1 < c else terminal(c)
    stop_value = float(terminal(made)[h])
    return {k: stop_value if k == dice.FULL_KEEP + h else _expect(k, nxt)
            for k in dice.keeps_of(h, allow_stop=variant.followers == "at_most")}

