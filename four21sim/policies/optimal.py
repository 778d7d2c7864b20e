"""``optimal``: exact solutions turned into engine tables (the one place that does it).

- 2 players: the optimum of :mod:`four21sim.exact.two_player`, whose decisions are
  already rows of context mode 1 (pot and own tokens).
- 3 players: the certified equilibrium of :mod:`four21sim.exact.nplayer`, laid out in
  context mode 2 (:mod:`four21sim.policies.contexts`).
- 4 players and more: no engine tables (they would not fit: docs/nplayer.md); the n-player
  equilibrium of :mod:`four21sim.exact.nplayer` decides one turn at a time instead
  (:class:`OptimalPlayer`, a plug-in policy for ``four21sim play`` and the environments).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..exact import nplayer, two_player
from ..rules import dice
from ..rules.variants import Variant
from . import contexts as C
from .tables import KEEP_DTYPE, Policy, table_policy

__all__ = ["build_optimal", "warm_optimal", "optimal_unavailable", "engine_tables3", "OptimalPlayer",
           "build_optimal_player", "optimal_player_unavailable", "DECISION_PLAYERS"]

DECISION_PLAYERS = (4, nplayer.MAX_PLAYERS)
"""Where ``optimal`` decides one turn at a time (the n-player equilibrium), beyond its engine tables."""

_NH = dice.N_HANDS


def _context_maps(ct, F: int) -> tuple[np.ndarray, np.ndarray]:
    """The contexts of a round's first and second followers, for every history the engine's
    tables index: ``g1[c-1, hL]`` (the leader's count c and hand hL) and
    ``g2[c-1, hL, h1, f1-1]`` (the first follower's hand h1 after f1 throws; -1 where it
    cannot happen). With F = 1 only ``f1 = c`` is laid out: without ``fewer_throws_wins``
    the first follower's throws change nothing (the contexts are merged where they do not)."""
    L = ct.lead_next.shape[0]
    g1 = ct.lead_next[:L].astype(np.int64)
    g2 = np.full((L, _NH, _NH, F), -1, np.int64)
    for c in range(1, L + 1):
        for f1 in range(1, F + 1) if F > 1 else (c,):
            if f1 > c or (ct.exact and f1 != c):
                continue
            slot = 0 if ct.exact else f1 - 1
            base = ct.row_start[g1[c - 1]] + slot * _NH
            g2[c - 1, :, :, 0 if F == 1 else f1 - 1] = ct.trans[base[:, None] + np.arange(_NH)[None, :]]
    return g1, g2


def engine_tables3(sol: nplayer.NSolution) -> tuple[np.ndarray, np.ndarray]:
    """The 3-player equilibrium as engine tables in context mode 2 (layout: :mod:`.contexts`).

    ``lead[ctx, throws_left-1, h]`` and ``foll[ctx, hL, count-1, made-1, h]`` (the target
    of a follower is the leader's hand). Every entry is the keep the solution itself takes
    (:meth:`~four21sim.exact.nplayer.NSolution.round_decisions`, the same decisions as
    :meth:`~four21sim.exact.nplayer.NSolution.keep`). With a one-throw charge nobody decides
    in the charge, so the table stops after the décharge states.
    """
    if sol.players != 3:
        raise ValueError(f"players: {sol.players} is not allowed; allowed: 3 (engine tables of the equilibrium)")
    v = sol.variant
    T = v.tokens
    F = 3 if v.fewer_throws_wins else 1
    block = C.round_block(v)
    lead = np.broadcast_to((dice.FULL_KEEP + np.arange(_NH)).astype(KEEP_DTYPE), (C.round_rows(v), 2, _NH)).copy()
    foll = np.zeros((C.round_rows(v), _NH, 3, 2, _NH), dtype=KEEP_DTYPE)  # unused entries re-throw all: legal
    pot_max = T if v.charge_throws > 1 else 0
    maps: dict = {}
    games = [(sol, 3)] + ([(sol.subs[2], 2)] if 2 in sol.subs else [])
    for game, n in games:
        for pot, toks in game.states:
            if pot > pot_max or (n == 2 and pot > 0):  # (two players in play only in the décharge)
                continue
            ct, dec, lead_dec = game.round_decisions((pot, toks))
            if id(ct) not in maps:
                maps[id(ct)] = (ct, _context_maps(ct, F))
            g1, g2 = maps[id(ct)][1]
            L = g1.shape[0]
            row = toks[0] if n == 2 else T + 1 + int(C.round_state_index(pot, toks[0], toks[1], T)) * block
            for tl in range(1, L):
                lead[row, tl - 1] = lead_dec[L - tl - 1]
            for c in range(1, min(L, 3) + 1):
                foll[row, :, c - 1] = dec[g1[c - 1], :2]
            if n == 3:
                # g2[c-1, hL, h1, f1-1] -> foll[row + 1 + h1*F + f1-1, hL, c-1]
                ok = g2 >= 0
                c_, hL, h1, f1 = np.nonzero(ok)
                foll[row + 1 + h1 * F + f1, hL, c_] = dec[g2[ok], :2]
    return lead, foll


@lru_cache(maxsize=32)
def _optimal2(variant: Variant) -> Policy:
    sol = two_player.solve(variant)
    return table_policy("optimal", variant, sol.lead, sol.foll, ctx_mode=C.CTX_TOKENS, players=2,
                        info={"p_seat0": sol.p_seat0})


@lru_cache(maxsize=8)
def _optimal3(variant: Variant) -> Policy:
    sol = nplayer.solve(variant, 3, "pay")
    lead, foll = engine_tables3(sol)
    return table_policy("optimal", variant, lead, foll, ctx_mode=C.CTX_ROUND, players=3,
                        info={"p_pay": sol.seat_p_pay.tolist(), "exploitability": sol.exploitability})


def build_optimal(variant: Variant, players: int) -> Policy:
    """``optimal``: the 2-player optimum, or the certified 3-player equilibrium."""
    return _optimal2(variant) if players == 2 else _optimal3(variant)


def warm_optimal(variant: Variant, players: int) -> None:
    """Solve where other processes can reuse it: the 3-player solve goes to the disk store."""
    if players == 3:  # the 2-player one is quick
        nplayer.solve(variant, 3, "pay")


def optimal_unavailable(variant: Variant, players: int) -> str | None:
    """Why ``optimal`` cannot be built for ``variant`` (None when it can)."""
    cap = two_player.MAX_SOLVER_TOKENS if players == 2 else nplayer.MAX_TOKENS[3]
    if variant.tokens > cap:
        return f"the exact {players}-player solver takes at most {cap} tokens, not {variant.tokens}"
    return None


class OptimalPlayer:
    """``optimal`` from 4 players on: the n-player equilibrium (each player minimises its own
    P(pay)) deciding each turn from what the table shows, a plug-in policy (``policy(turn) -> keep``,
    :mod:`.plugin`).

    Each decision is :meth:`four21sim.exact.nplayer.NSolution.keep` in the state of the round
    (tokens by role, the leader's first), after the hands and throws of the roles before it;
    once players are out (``end = last_holder``), the game of the players left.
    """

    name = "optimal"

    def __init__(self, variant: Variant, players: int):
        self.variant, self.players = variant, players
        self.solution = nplayer.solve(variant, players, "pay")

    def situation(self, turn) -> tuple:
        """``(solution, state, role, hands, throws)`` of the player deciding at ``turn``."""
        order = tuple(turn.order)
        sol = nplayer.in_play(self.solution, len(order))
        state = (int(turn.pot), tuple(int(turn.tokens[s]) for s in order))
        return (sol, state, order.index(turn.seat), tuple(int(h) for _, h, _ in turn.table),
                tuple(int(f) for _, _, f in turn.table))

    def __call__(self, turn) -> int:
        sol, state, role, hands, throws = self.situation(turn)
        return sol.keep(state, role, hands, throws, int(turn.made), int(turn.hand))


@lru_cache(maxsize=8)
def build_optimal_player(variant: Variant, players: int) -> OptimalPlayer:
    """``optimal`` deciding one turn at a time, 4 to 6 players (the solve: minutes the first time, then
    the disk cache)."""
    return OptimalPlayer(variant, players)


def optimal_player_unavailable(variant: Variant, players: int) -> str | None:
    """Why ``optimal`` cannot decide turn by turn for ``variant`` (None when it can)."""
    cap = nplayer.MAX_TOKENS.get(players, 0)
    if variant.tokens > cap:
        return f"the exact {players}-player solver takes at most {cap} tokens, not {variant.tokens}"
    return None
