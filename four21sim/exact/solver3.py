"""The exact game for 2 or 3 players: an equilibrium, certified by best responses.

Each round is a game of perfect information: the leader chooses when to stop and
what to keep (and so the count); each follower in turn sees the hands and counts
before it. Every player maximises its own *utility*: with ``objective="pay"`` the
probability of not paying (not being the game's loser as docs/rules.md defines
it, a loss shared 1/k among k tied losers), with ``objective="win"`` its win
share. With two players both objectives are the 2-player solver's
(:mod:`four21sim.exact.two_player`) and the profile found is its optimal play.

How it is solved
----------------
States are seen from the roles of the round: ``(pot, tokens of the leader, of the
next seat, of the seat after)``, every player in; values are vectors, one
utility per role.

- A round, given the continuation values, is solved by backward induction in
  playing order (numba, :mod:`four21sim.exact._solver3_kernels`): the second follower
  for every context it can meet, then the first follower, then the leader.
- The décharge (cyclic) is solved by iterating: solve every round against the
  current values (each player's best keeps), then replace the values by the
  *exact* values of the profile found (one linear system: values are linear in
  the continuation values once choices are fixed). It stops when the Bellman
  residual (the largest change a player could obtain at one decision against the
  profile's own values) is below ``tol``. Equilibria of non-zero-sum games need
  not be unique and this iteration need not converge (it can cycle between
  profiles, each best against the other's values); ``converged`` says whether it
  did. Otherwise it stops after 10 iterations without progress and keeps the
  profile with the smallest residual, whose exploitability the certificate gives.
- The charge is acyclic (the pot only shrinks): its states are solved once each,
  by increasing pot (every successor has a smaller pot).
- Under ``end = last_holder`` a player going out leaves a 2-player game, solved
  first by the same code with ``players=2``.

The second follower's context
-----------------------------
What can still change the round's loser, winner and payout once the leader and
the first follower have played is: the count (the throw limit), the keys so far
(rank and, with ``fewer_throws_wins``, throws) with who holds them (the worst,
the best, or a tie between them), the values of those hands (payout, cumulative
sum), whether the worst hand is 221 (``nenette_min``) and whether a combination
is on the table (``nenette_rescue``). With two players before it this is exactly
the pair of final (hand, throws) of the leader and the first follower, except
that the first follower's throws matter only through its key: without
``fewer_throws_wins`` the context ``(hL, count, h1)`` is solved once for every
number of throws of the first follower, which halves the work of the round (the
part that dominates the solve).

Ties and the others
-------------------
Keeps of equal value to the player choosing (within 1e-12) go to the first in
``dice.HAND_KEEPS`` order (stop, then more dice kept), as for 2 players. In a
non-zero-sum game that choice is not neutral: it changes the other players'
values, so another documented order would give another equilibrium, with other
P(pay) for the others.

The certificate
---------------
For the profile found, each player's exact best response against the others'
fixed strategies is a one-player Markov decision problem (the others' choices
are the profile's everywhere, including after a deviation), solved by policy
iteration with the same round kernel carrying one more component. The
exploitability is the largest gain in utility any one player gets from the start
by deviating; ``gain_any_state`` is the largest over every state and role.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .._util.checks import check_int
from ..rules import dice
from ..rules import kernel as R
from ..rules.variants import Variant
from . import _solver3_kernels as K3
from . import store as cache
from ._two_player_kernels import FOLLOWER_LOSES, LEADER_LOSES, TIE
from .two_player import MAX_SOLVER_TOKENS, _round_table_cached

__all__ = ["OBJECTIVES", "MAX_PLAYERS", "MAX_TOKENS_3", "Solution3", "solve", "check_players", "check_objective",
           "decisions"]

OBJECTIVES = ("pay", "win")
MAX_PLAYERS = 3
MAX_TOKENS_3 = 30
_NH = dice.N_HANDS
_DEC = np.int64


def check_players(players) -> int:
    return check_int("players", players, 2, MAX_PLAYERS, "2 or 3 (exact solver)")


def check_objective(objective) -> str:
    if objective not in OBJECTIVES:
        raise ValueError(f"objective: {objective!r} is not allowed; allowed: {', '.join(OBJECTIVES)}")
    return objective


# --------------------------------------------------------------- round tables
@lru_cache(maxsize=4)
def _patterns(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Outcome patterns of an n-player round: ``pat[code, loser, winner]`` (roll-off shares)
    and ``sig[...]``, the code for the signs of the key differences ``k_i - k_j`` (i < j), + 1.

    Loser: uniform among the highest keys; winner: uniform among the lowest keys of
    the others (docs/rules.md: losers are decided before winners, fair roll-offs).
    """
    pats: list[np.ndarray] = []
    sig = np.full((3,) * (n * (n - 1) // 2), -1, dtype=np.int64)
    for keys in itertools.product(range(n), repeat=n):
        m = np.zeros((n, n))
        worst = max(keys)
        losers = [i for i in range(n) if keys[i] == worst]
        for lo in losers:
            others = [i for i in range(n) if i != lo]
            best = min(keys[i] for i in others)
            winners = [i for i in others if keys[i] == best]
            for w in winners:
                m[lo, w] += 1.0 / (len(losers) * len(winners))
        s = tuple(int(np.sign(keys[i] - keys[j])) + 1 for i in range(n) for j in range(i + 1, n))
        code = next((i for i, p in enumerate(pats) if np.array_equal(p, m)), len(pats))
        if code == len(pats):
            pats.append(m)
        sig[s] = code
    return np.array(pats), sig


@lru_cache(maxsize=8)
def round_tables(variant: Variant, players: int, phase: str) -> tuple[np.ndarray, np.ndarray]:
    """Outcome pattern code and payout of a round for every final hand and throws.

    Indexed ``[hL, c-1, hF, f-1]`` (2 players, from the 2-player solver's
    :func:`~four21sim.exact.two_player.round_table`) or ``[hL, c-1, h1, f1-1, h2, f2-1]``;
    patterns are :func:`_patterns`. Payouts are capped at ``tokens`` (no more can move).
    """
    _, sig = _patterns(players)
    T = variant.tokens
    if players == 2:
        code2, pay2 = _round_table_cached(variant, phase)
        to_sig = np.zeros(3, dtype=np.int64)
        to_sig[LEADER_LOSES], to_sig[FOLLOWER_LOSES], to_sig[TIE] = 2, 0, 1  # sign(kL - kF) + 1
        code = sig[to_sig[code2]].astype(np.int8)
        pay = np.minimum(pay2, T).astype(np.int16)
        return code, pay
    code = np.zeros((_NH, 3) * 3, dtype=np.int8)
    pay = np.zeros((_NH, 3) * 3, dtype=np.int16)
    K3.fill_round_table3(R.CHARGE if phase == "charge" else R.DECHARGE,
                         np.ascontiguousarray(dice.RANK[variant.ranking_index]),
                         np.ascontiguousarray(dice.VALUE[variant.values_index]), R.params(variant), sig, code, pay)
    np.minimum(pay, T, out=pay)
    return code, pay


# --------------------------------------------------------------- game structure
def _live_states(T: int, n: int) -> list[tuple[int, tuple[int, ...]]]:
    """Every state (pot, tokens by role) with every player in, by increasing pot."""
    out = []
    for pot in range(T + 1):
        for toks in itertools.product(range(T - pot + 1), repeat=n):
            if sum(toks) == T - pot and (pot > 0 or min(toks) >= 1):
                out.append((pot, toks))
    return out


@dataclass
class _Game:
    """Transitions of every live state of an n-player game, as arrays."""

    states: list
    index: dict
    kind: np.ndarray  # [s, l, w, p]: -1 unused (l == w), 0 end, 1 state, 2 sub-game
    nxt: np.ndarray
    perm: np.ndarray  # [s, l, w, p, j]: role in the next state of the player in role j
    term: dict  # objective -> [s, l, w, p, j] utility at the end (and 1.0 for a player out)


def _build_game(variant: Variant, n: int, P: int, sub_index: dict | None) -> _Game:
    """Every outcome of every state settled by the rules kernel (``fill_transitions``)."""
    T = variant.tokens
    states = _live_states(T, n)
    index = {s: i for i, s in enumerate(states)}
    Ns = len(states)
    pots = np.array([pot for pot, _ in states], dtype=np.int64)
    toks = np.array([t for _, t in states], dtype=np.int64).reshape(Ns, n)
    kind = np.full((Ns, n, n, P), -1, dtype=np.int8)
    nxt_pot = np.zeros((Ns, n, n, P), dtype=np.int64)
    nxt_tok = np.zeros((Ns, n, n, P, n), dtype=np.int64)
    perm = np.zeros((Ns, n, n, P, n), dtype=np.int64)
    win = np.zeros((Ns, n, n, P, n))
    pay = np.zeros((Ns, n, n, P, n))
    K3.fill_transitions(pots, toks, n, P, R.params(variant), kind, nxt_pot, nxt_tok, perm, win, pay)
    nxt = np.zeros((Ns, n, n, P), dtype=np.int64)
    for where, lookup, m in ((kind == 1, index, n), (kind == 2, sub_index, n - 1)):
        for i in zip(*np.nonzero(where)):
            nxt[i] = lookup[(int(nxt_pot[i]), tuple(int(x) for x in nxt_tok[i][:m]))]
    # a player out under last_holder has won and never pays: utility 1 for both objectives
    term = {"pay": np.where((kind == 0)[..., None], 1.0 - pay, win), "win": win}
    return _Game(states, index, kind, nxt, perm, term)


# --------------------------------------------------------------- the solution
@dataclass(eq=False)
class Solution3:
    """An equilibrium of the n-player game of a variant (n = 2 or 3), with its certificate.

    Attributes
    ----------
    variant, players, objective
    states : list
        ``(pot, tokens by role)`` of every live state, role 0 leading the round.
    value : ndarray
        ``value[s, j]``: the utility of the player in role j (P(not paying) or win share).
    p_pay, p_win : ndarray
        ``[s, j]``: P(paying) and expected win share under the profile.
    rounds : ndarray
        Expected rounds to the end from each state.
    gain : ndarray
        ``[s, j]``: what the player in role j gains (utility) by its best response.
    iterations : int
        Iterations of the décharge (solve every round, evaluate the profile exactly).
    residual : float
        Largest Bellman residual of the profile (0 for an exact equilibrium).
    converged : bool
        Whether the décharge iteration reached ``residual <= tol``.
    br_iterations : int
        Policy-iteration steps of the best responses (all roles together).
    seconds, certificate_seconds : float
    basis : ndarray
        ``[s, j]``: the values the choices were made against, to recompute them: a
        décharge state's choices are best against ``basis`` (the last iterate), a
        charge state's against ``value`` in the décharge and ``basis`` in the charge.
    sub : Solution3 or None
        The 2-player game left when a player goes out under ``last_holder``.
    info : dict
        Timings and sizes; ``from_cache`` is True when the solution was loaded from the
        disk cache (:mod:`four21sim.exact.store`; ``seconds`` are then those of the solve that
        stored it).
    dist : ndarray
        ``[s, l, w, p]``: the round's outcome distribution in each state under the
        profile (loser role, winner role, payout), the Markov chain of the game.
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
    iterations: int
    residual: float
    converged: bool
    br_iterations: int
    seconds: float
    certificate_seconds: float
    basis: np.ndarray
    sub: "Solution3 | None" = None
    info: dict = field(default_factory=dict)
    dist: np.ndarray | None = None

    @property
    def start(self) -> int:
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
        return float(self.rounds[self.start])

    @property
    def exploitability(self) -> float:
        """Largest gain of a unilateral deviation from the start of the game (utility)."""
        return float(max(0.0, self.gain[self.start].max()))

    @property
    def gain_any_state(self) -> float:
        """Largest gain of a unilateral deviation from any state, any role."""
        return float(max(0.0, self.gain.max()))

    def summary(self) -> dict:
        """The solve command's JSON: per seat p_pay and p_win, and the solve's measures."""
        return {"variant": self.variant.describe(), "options": self.variant.options(), "players": self.players,
                "objective": self.objective,
                "seats": [{"seat": s, "p_pay": float(self.seat_p_pay[s]), "p_win": float(self.seat_p_win[s])}
                          for s in range(self.players)],
                "expected_rounds": self.expected_rounds, "exploitability": self.exploitability,
                "exploitability_any_state": self.gain_any_state, "converged": self.converged,
                "residual": self.residual, "iterations": self.iterations, "br_iterations": self.br_iterations,
                "seconds": self.seconds, "certificate_seconds": self.certificate_seconds,
                "from_cache": bool(self.info.get("from_cache", False))}


class _Solver:
    """Everything the solve and the certificate share for one (variant, players, objective)."""

    def __init__(self, variant: Variant, n: int, objective: str, sub: Solution3 | None):
        self.v, self.n, self.obj = variant, n, objective
        self.pat, _ = _patterns(n)
        self.tables = {ph: round_tables(variant, n, ph) for ph in ("charge", "decharge")}
        self.P = int(max(t[1].max() for t in self.tables.values())) + 1
        self.sub = sub
        self.game = _build_game(variant, n, self.P, {st: i for i, st in enumerate(sub.states)} if sub else None)
        G = self.game
        self.pots = np.array([pot for pot, _ in G.states])
        self.dech = np.flatnonzero(self.pots == 0)
        self.charge_order = [np.flatnonzero(self.pots == pot) for pot in range(1, variant.tokens + 1)]
        if sub is not None:
            self.sub_val = sub.value if objective == "pay" else np.zeros_like(sub.value)
            self.sub_gain = sub.gain if objective == "pay" else np.zeros_like(sub.gain)
            self.sub_pay, self.sub_win = sub.p_pay, sub.p_win
            self.sub_rounds = sub.rounds
        # decisions of the last round solved: [made-1, h] after the context
        self.lead_dec, self.lead_eq = (np.zeros((2, _NH), _DEC) for _ in range(2))
        self.f1_dec, self.f1_eq = (np.zeros((_NH, 3, 2, _NH), _DEC) for _ in range(2))
        if n == 3:
            self.f2_dec, self.f2_eq = (np.zeros((_NH, 3, _NH, 3, 2, _NH), _DEC) for _ in range(2))
        self.dist_cp = np.zeros((len(self.pat), self.P))

    # successor utilities of one state's outcomes
    def succ(self, s: int, V: np.ndarray, sub_V, r: int = -1, W=None, sub_W=None) -> np.ndarray:
        G, n = self.game, self.n
        kind, nx, pm = G.kind[s], G.nxt[s], G.perm[s]
        term = G.term[self.obj][s]
        K = n + (1 if r >= 0 else 0)
        S = np.zeros((n, n, self.P, K))
        S[..., :n] = term
        st = kind == 1
        S[st, :n] = V[nx[st][:, None], pm[st]]
        sb = kind == 2
        if sb.any():
            pms = pm[sb]
            vals = sub_V[nx[sb][:, None], np.maximum(pms, 0)]
            S[sb, :n] = np.where(pms >= 0, vals, term[sb])
        if r >= 0:
            S[..., n] = term[..., r]
            S[st, n] = W[nx[st], pm[st][:, r]]
            if sb.any():
                pr = pm[sb][:, r]
                S[sb, n] = np.where(pr >= 0, sub_W[nx[sb], np.maximum(pr, 0)], term[sb][:, r])
        return S

    def round(self, s: int, S: np.ndarray, r: int = -1, want_dist: bool = False):
        """Solve one round; returns (utilities before the first throw, outcome dist[l, w, p] or None)."""
        pot = self.pots[s]
        phase = "decharge" if pot == 0 else "charge"
        L = self.v.decharge_throws if pot == 0 else self.v.charge_throws
        code, pay = self.tables[phase]
        TT = np.ascontiguousarray(np.einsum("clw,lwpk->cpk", self.pat, S))
        K = S.shape[-1]
        exact = self.v.followers == "exact"
        if self.n == 2:
            u = K3.round2(L, exact, code, pay, TT, r, K, want_dist, self.dist_cp, self.lead_dec, self.f1_dec,
                          self.lead_eq, self.f1_eq)
        else:
            u = K3.round3(L, exact, self.v.fewer_throws_wins, code, pay, TT, r, K, want_dist, self.dist_cp,
                          self.lead_dec, self.f1_dec, self.f2_dec, self.lead_eq, self.f1_eq, self.f2_eq)
        dist = np.einsum("cp,clw->lwp", self.dist_cp, self.pat) if want_dist else None
        return u, dist

    # exact values of fixed choices
    def evaluate(self, dist: np.ndarray, term: np.ndarray, sub_V, states=None, X=None) -> np.ndarray:
        """``X[s, j]`` under the outcome distributions ``dist[s, j, l, w, p]`` (player in
        role j tracked: its utility at the end is ``term[s, l, w, p, j]``): the décharge
        by one linear system, then the charge by increasing pot."""
        G, n = self.game, self.n
        Ns = len(G.states)
        X = np.zeros((Ns, n)) if X is None else X
        const = np.zeros((Ns, n))
        kind, nx, pm = G.kind, G.nxt, G.perm
        # end and sub-game contributions
        for j in range(n):
            d = dist[:, j]
            c = np.where(kind == 0, term[..., j], 0.0)
            if self.sub is not None:
                pj = pm[..., j]
                subv = sub_V[np.where(kind == 2, nx, 0), np.where(kind == 2, np.maximum(pj, 0), 0)]
                c = c + np.where(kind == 2, np.where(pj >= 0, subv, term[..., j]), 0.0)
            const[:, j] = (d * c).sum(axis=(1, 2, 3))
        dech = self.dech
        if len(dech):
            pos = -np.ones(Ns, dtype=np.int64)
            pos[dech] = np.arange(len(dech))
            N = len(dech) * n
            A = np.eye(N)
            for j in range(n):
                d = dist[dech, j]
                st = kind[dech] == 1
                si, lo, w, p = np.nonzero(st)
                rows = si * n + j
                cols = pos[nx[dech][si, lo, w, p]] * n + pm[dech][si, lo, w, p, j]
                np.add.at(A, (rows, cols), -d[si, lo, w, p])
            X[dech] = np.linalg.solve(A, const[dech].reshape(-1)).reshape(-1, n)
        for group in self.charge_order:
            for s in group:
                st = kind[s] == 1
                for j in range(n):
                    X[s, j] = const[s, j] + (dist[s, j][st] * X[nx[s][st], pm[s][st][:, j]]).sum()
        return X

    def expected_rounds(self, dist: np.ndarray) -> np.ndarray:
        """Expected rounds to the end from every state under ``dist[s, l, w, p]``."""
        G = self.game
        Ns = len(G.states)
        c = np.ones(Ns)
        if self.sub is not None:
            sb = G.kind == 2
            c += (dist * np.where(sb, self.sub_rounds[np.where(sb, G.nxt, 0)], 0.0)).sum(axis=(1, 2, 3))
        R = np.zeros(Ns)
        dech = self.dech
        if len(dech):
            pos = -np.ones(Ns, dtype=np.int64)
            pos[dech] = np.arange(len(dech))
            A = np.eye(len(dech))
            si, lo, w, p = np.nonzero(G.kind[dech] == 1)
            np.add.at(A, (si, pos[G.nxt[dech][si, lo, w, p]]), -dist[dech][si, lo, w, p])
            R[dech] = np.linalg.solve(A, c[dech])
        for group in self.charge_order:
            for s in group:
                st = G.kind[s] == 1
                R[s] = c[s] + (dist[s][st] * R[G.nxt[s][st]]).sum()
        return R


def _solve(variant: Variant, n: int, objective: str, tol: float, max_iter: int,
           sub: Solution3 | None, stall: int = 10) -> Solution3:
    t0 = time.perf_counter()
    S_ = _Solver(variant, n, objective, sub)
    t_setup = time.perf_counter() - t0
    G = S_.game
    Ns = len(G.states)
    sub_V = S_.sub_val if sub is not None else None
    dech = S_.dech
    V = np.zeros((Ns, n))  # the values the décharge choices are made against (their basis)
    dist = np.zeros((Ns, n, n, S_.P))

    def profile_values(obj: str) -> np.ndarray:
        sv = None if sub is None else (sub.value if obj == "pay" else np.zeros_like(sub.value))
        return S_.evaluate(np.broadcast_to(dist[:, None], (Ns, n) + dist.shape[1:]), G.term[obj], sv)

    iterations, residual, converged = 0, 0.0, True
    if len(dech):
        best = None
        converged = False
        for iterations in range(1, max_iter + 1):
            residual = 0.0
            for s in dech:
                u, d = S_.round(s, S_.succ(s, V, sub_V), want_dist=True)
                residual = max(residual, float(np.abs(u - V[s]).max()))
                dist[s] = d
            if best is None or residual < best[0] * (1 - 1e-6):
                best = (residual, V[dech].copy(), dist[dech].copy(), iterations)
            if residual <= tol:
                converged = True
                break
            if iterations - best[3] >= stall:  # no progress: the iteration cycles
                break
            V[dech] = profile_values(objective)[dech]
        if not converged:  # keep the profile with the smallest residual
            residual, V[dech], dist[dech], _ = best
    basis = V.copy()
    # the décharge profile's exact values; the charge is solved against them
    V[dech] = profile_values(objective)[dech]
    t_dech = time.perf_counter() - t0 - t_setup
    for group in S_.charge_order:
        for s in group:
            u, d = S_.round(s, S_.succ(s, V, sub_V), want_dist=True)
            V[s] = basis[s] = u
            dist[s] = d
    t_charge = time.perf_counter() - t0 - t_setup - t_dech
    values = {o: profile_values(o) for o in OBJECTIVES}
    rounds = S_.expected_rounds(dist)
    seconds = time.perf_counter() - t0
    t1 = time.perf_counter()
    W, br_it = _best_responses(S_, basis, V, values[objective], tol, max_iter)
    gain = W - values[objective]
    return Solution3(variant, n, objective, G.states, values[objective], 1.0 - values["pay"], values["win"],
                     rounds, gain, iterations, residual, converged, br_it, seconds, time.perf_counter() - t1,
                     basis, sub,
                     info={"value_gap": float(np.abs(values[objective] - V).max()), "setup_seconds": t_setup,
                           "decharge_seconds": t_dech, "charge_seconds": t_charge,
                           "states": len(G.states), "decharge_states": len(dech)}, dist=dist)


def _best_responses(S_: _Solver, basis: np.ndarray, V_charge: np.ndarray, V: np.ndarray, tol: float,
                    max_iter: int):
    """Each role's exact best-response utility ``W[s, r]`` against the profile (policy iteration).

    The others' choices are recomputed in every round from the values they were
    made against: ``basis`` in the décharge, ``V_charge`` in the charge; ``V`` is
    the profile's exact value, where the iteration starts.
    """
    G, n = S_.game, S_.n
    Ns = len(G.states)
    term = G.term[S_.obj]
    sub_V = S_.sub_val if S_.sub is not None else None
    sub_W = (S_.sub_val + S_.sub_gain) if S_.sub is not None else None
    W = V.copy()
    dist = np.zeros((Ns, n, n, n, S_.P))
    it = 0
    dech = S_.dech
    if len(dech):
        for it in range(1, max_iter + 1):  # noqa: B007  (it is returned)
            residual = 0.0
            for s in dech:
                for r in range(n):
                    u, d = S_.round(s, S_.succ(s, basis, sub_V, r, W, sub_W), r, want_dist=True)
                    residual = max(residual, abs(float(u[n]) - W[s, r]))
                    dist[s, r] = d
            if residual <= tol:
                break
            W[dech] = S_.evaluate(dist, term, sub_W)[dech]
    for group in S_.charge_order:
        for s in group:
            for r in range(n):
                u, _ = S_.round(s, S_.succ(s, V_charge, sub_V, r, W, sub_W), r)
                W[s, r] = u[n]
    return W, it


@lru_cache(maxsize=16)
def solve(variant: Variant, players: int = 3, objective: str = "pay", tol: float = 1e-13,
          max_iter: int = 200) -> Solution3:
    """Solve the ``players``-player game of ``variant`` (2 or 3) and certify the equilibrium found.

    Parameters
    ----------
    variant : Variant
    players : int
        2 or 3. With 2 the profile is the 2-player solver's optimal play.
    objective : {'pay', 'win'}
        What each player maximises: P(not paying) or its win share.
    tol : float
        Bellman residual at which the décharge iteration stops.
    max_iter : int
        Cap on the décharge iterations (and on the best responses' policy iteration);
        the décharge also stops after 10 iterations without a smaller residual.

    Returns
    -------
    Solution3
    """
    if not isinstance(variant, Variant):
        raise ValueError(f"variant: {variant!r} is not a Variant")
    n = check_players(players)
    check_objective(objective)
    cap = MAX_SOLVER_TOKENS if n == 2 else MAX_TOKENS_3
    if variant.tokens > cap:
        raise ValueError(f"tokens: {variant.tokens} is too many for the exact {n}-player solver; "
                         f"allowed: 1 to {cap}")
    key = cache.entry_key("solver3", options=variant.options(), players=n, objective=objective, tol=tol,
                          max_iter=max_iter, code=cache.code_hash(_CODE))
    hit = cache.load(key, verify=lambda entry: verify_entry(variant, n, objective, entry))
    if hit is not None:
        sol = _from_arrays(variant, hit)
        if sol is not None:
            return sol
    sub = solve(variant, 2, objective, tol, max_iter) if n == 3 and variant.end == "last_holder" else None
    sol = _solve(variant, n, objective, tol, max_iter, sub)
    cache.store(key, *_to_arrays(sol))
    return sol


# the modules whose code decides a solution: a change to any of them makes new cache entries
_CODE = ("exact/solver3", "exact/_solver3_kernels", "exact/two_player", "exact/_two_player_kernels", "rules/kernel",
         "rules/dice", "rules/variants", "exact/store")
_ARRAYS = ("value", "p_pay", "p_win", "rounds", "gain", "basis", "dist")
_SCALARS = ("players", "objective", "iterations", "residual", "converged", "br_iterations", "seconds",
            "certificate_seconds", "info")


def _to_arrays(sol: Solution3, prefix: str = "") -> tuple[dict, dict]:
    """A solution (and its sub-game) as arrays and JSON metadata, for :mod:`four21sim.exact.store`."""
    arrays = {prefix + k: getattr(sol, k) for k in _ARRAYS}
    arrays[prefix + "states"] = np.array([(pot,) + tuple(t) for pot, t in sol.states], dtype=np.int64)
    meta = {k: getattr(sol, k) for k in _SCALARS}
    if sol.sub is not None:
        a, m = _to_arrays(sol.sub, prefix + "sub.")
        arrays.update(a)
        meta["sub"] = m
    return arrays, meta


def _from_arrays(variant: Variant, z: dict, prefix: str = "", meta: dict | None = None) -> Solution3 | None:
    """The solution stored by :func:`_to_arrays`, or None if the entry does not fit the game."""
    meta = z["__meta__"] if meta is None else meta
    try:
        n = int(meta["players"])
        st = z[prefix + "states"]
        states = [(int(r[0]), tuple(int(x) for x in r[1:])) for r in st]
        if states != _live_states(variant.tokens, n):
            return None
        arrays = {k: np.asarray(z[prefix + k]) for k in _ARRAYS}
        if any(arrays[k].shape != (len(states), n) for k in ("value", "p_pay", "p_win", "gain", "basis")):
            return None
        sub = _from_arrays(variant, z, prefix + "sub.", meta["sub"]) if "sub" in meta else None
        if ("sub" in meta) != (n == 3 and variant.end == "last_holder") or ("sub" in meta and sub is None):
            return None
        return Solution3(variant, n, str(meta["objective"]), states, arrays["value"], arrays["p_pay"],
                         arrays["p_win"], arrays["rounds"], arrays["gain"], int(meta["iterations"]),
                         float(meta["residual"]), bool(meta["converged"]), int(meta["br_iterations"]),
                         float(meta["seconds"]), float(meta["certificate_seconds"]), arrays["basis"], sub,
                         info={**meta["info"], "from_cache": True}, dist=arrays["dist"])
    except (KeyError, ValueError, TypeError, IndexError):
        return None


def verify_entry(variant: Variant, players: int, objective: str, entry: dict) -> str | None:
    """Why a cache entry is not a solution of this game (None when it is): the hook of
    :func:`four21sim.exact.store.load`.

    Cheap next to a solve: the shapes from the game, finite values, probabilities in
    [0, 1] that sum to 1, the value the objective says, then one evaluation pass of the
    stored profile (every stored value must equal what the stored outcome distribution
    gives one round later) and the start state's round recomputed from the stored basis
    (it must give the stored distribution). An entry with swapped, edited or NaN columns
    fails one of them.
    """
    sol = _from_arrays(variant, entry)
    if sol is None or sol.players != players or sol.objective != objective:
        return "its arrays do not fit this game"
    return _verify(sol)


def _verify(sol: Solution3, tol: float = 1e-8) -> str | None:
    arrays = {k: getattr(sol, k) for k in _ARRAYS}
    if any(not np.isfinite(a).all() for a in arrays.values()):
        return "it holds values that are not finite"
    n, Ns = sol.players, len(sol.states)
    if sol.dist.shape[:3] != (Ns, n, n) or sol.rounds.shape != (Ns,):
        return "its distribution or rounds have the wrong shape"
    for name in ("value", "p_pay", "p_win", "dist"):
        if (arrays[name] < -tol).any() or (arrays[name] > 1 + tol).any():
            return f"its {name} is not a probability"
    sums = {"p_pay": sol.p_pay.sum(axis=1), "p_win": sol.p_win.sum(axis=1), "dist": sol.dist.sum(axis=(1, 2, 3))}
    for name, total in sums.items():
        if np.abs(total - 1).max() > tol:
            return f"its {name} does not sum to 1"
    want = 1 - sol.p_pay if sol.objective == "pay" else sol.p_win
    if np.abs(sol.value - want).max() > tol or (sol.rounds < 1 - tol).any():
        return "its values disagree with its probabilities"
    S_ = _Solver(sol.variant, n, sol.objective, sol.sub)
    if np.abs(_one_pass(S_, sol) - sol.value).max() > tol:
        return "its values do not satisfy the game's equations for its own profile"
    dech = S_.pots == 0
    basis = np.where(dech[:, None], sol.value, sol.basis)
    s = sol.start
    _, d = S_.round(s, S_.succ(s, sol.basis if dech[s] else basis, S_.sub_val if sol.sub else None), want_dist=True)
    if np.abs(d - sol.dist[s]).max() > tol:
        return "its profile is not the one its basis gives"
    return _verify(sol.sub) if sol.sub is not None else None


def _one_pass(S_: _Solver, sol: Solution3) -> np.ndarray:
    """``X[s, j]``: each role's utility one round later under the stored distribution and values."""
    G = S_.game
    kind, nx, pm = G.kind[..., None], G.nxt[..., None], G.perm
    term = G.term[sol.objective]
    nxt_val = sol.value[np.where(kind == 1, nx, 0), np.where(kind == 1, np.maximum(pm, 0), 0)]
    u = np.where(kind == 0, term, np.where(kind == 1, nxt_val, 0.0))
    if sol.sub is not None:
        sub_v = S_.sub_val[np.where(kind == 2, nx, 0), np.where(kind == 2, np.maximum(pm, 0), 0)]
        u = np.where(kind == 2, np.where(pm >= 0, sub_v, term), u)
    return np.einsum("slwp,slwpj->sj", sol.dist, u)


def decisions(sol: Solution3, pot_max: int):
    """The profile's choices, state by state, recomputed from the values they were made against.

    Yields ``(players, pot, tokens, lead, f1, f2)`` for every 3-player state with
    ``pot <= pot_max``, then (under ``last_holder``) every décharge state of the 2-player
    game left when a player is out (``players`` 2, ``f2`` None). ``lead[made-1, h]`` is
    the leader's keep, ``f1[hL, c-1, made-1, h]`` the first follower's,
    ``f2[hL, c-1, h1, f1-1, made-1, h]`` the second follower's (without
    ``fewer_throws_wins`` only ``f1 = 1`` is filled: the first follower's throws change
    nothing). The arrays are the solver's buffers: read them before the next item.
    """
    v = sol.variant
    S_ = _Solver(v, 3, sol.objective, sol.sub)
    sub_V = S_.sub_val if sol.sub is not None else None
    dech = S_.pots == 0
    charge_basis = np.where(dech[:, None], sol.value, sol.basis)
    for s, (pot, toks) in enumerate(sol.states):
        if pot > pot_max:
            continue
        S_.round(s, S_.succ(s, sol.basis if pot == 0 else charge_basis, sub_V))
        yield 3, pot, toks, S_.lead_eq, S_.f1_eq, S_.f2_eq
    if sol.sub is not None:
        S2 = _Solver(v, 2, sol.sub.objective, None)
        for s, (pot, toks) in enumerate(sol.sub.states):
            if pot == 0:
                S2.round(s, S2.succ(s, sol.sub.basis, None))
                yield 2, pot, toks, S2.lead_eq, S2.f1_eq, None
