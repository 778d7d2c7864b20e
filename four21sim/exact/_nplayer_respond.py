"""Exact best responses to fixed play, and exact values of fixed play, on the game by seat.

``solve(variant, players, against=[...])`` (:func:`_solve_against`): one seat's exact best
response to the other seats playing table policies (compiled tables in context modes 0 and 1,
as the engine reads them) or the equilibrium; :func:`evaluate`: every seat's exact P(pay),
win share and expected rounds when every seat plays a fixed policy."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..rules import dice
from ..rules.variants import Variant
from . import _nplayer_game as NG
from . import _nplayer_kernels as NK
from ._nplayer_checks import _NH, OBJECTIVES, check_players, check_tokens
from ._nplayer_profile import _sub_values
from ._nplayer_run import _peak_mib
from ._nplayer_solution import NSolution, _Decisions
from .ties import check_tie

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
            from .nplayer import solve  # (a late import: nplayer's solve is built on this module)
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
