"""``optimal``: exact solutions turned into engine tables (the one place that does it).

- 2 players: the optimum of :mod:`four21sim.exact.two_player`, whose decisions are
  already rows of context mode 1 (pot and own tokens).
- 3 players: the certified equilibrium of :mod:`four21sim.exact.nplayer`, laid out in
  context mode 2 (:mod:`four21sim.policies.contexts`).
- 4 and 5 players: the certified equilibrium in context mode 3 (``CTX_COMPACT``): the solver's
  own merged contexts, followed by the engine as the hands come in (:func:`engine_tables_compact`;
  each distinct row of decisions stored once: 119 MB for Super 421 at 4 players and 11 tokens).
- Where a decision is asked one turn at a time (``four21sim play``, the environments), from
  4 players: the n-player equilibrium deciding each turn (:class:`OptimalPlayer`, a plug-in
  policy), 4 to 6 players, without building tables (at 6 players the only way: the tables would
  map 0.77 billion contexts, and the solve takes an hour).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..exact import nplayer, two_player
from ..exact.round_contexts import context_counts
from ..rules import dice
from ..rules.variants import Variant
from . import contexts as C
from .tables import KEEP_DTYPE, Policy, table_policy

__all__ = ["build_optimal", "warm_optimal", "optimal_unavailable", "engine_tables3", "engine_tables_compact",
           "OptimalPlayer", "build_optimal_player", "optimal_player_unavailable", "DECISION_PLAYERS",
           "TABLE_PLAYERS", "MAX_TABLE_BYTES", "compact_size", "check_table_size"]

TABLE_PLAYERS = (2, 5)
"""Where ``optimal`` has engine tables (the engine and the studies play it)."""
MAX_TABLE_BYTES = 6 << 30
"""The largest compact table built (bytes): beyond, the solution decides one turn at a time only."""

DECISION_PLAYERS = (4, nplayer.ANSWER_PLAYERS)
"""Where ``optimal`` decides one turn at a time (the n-player equilibrium), beyond its engine tables
(not at 7 and 8 players, which the solver reaches: a first solve there takes hours)."""

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
            for tl in range(1, ct.L):  # the phase's throw limit (lead_next has 3 rows whatever it is)
                lead[row, tl - 1] = lead_dec[ct.L - tl - 1]
            for c in range(1, min(L, 3) + 1):
                foll[row, :, c - 1] = dec[g1[c - 1], :2]
            if n == 3:
                # g2[c-1, hL, h1, f1-1] -> foll[row + 1 + h1*F + f1-1, hL, c-1]
                ok = g2 >= 0
                c_, hL, h1, f1 = np.nonzero(ok)
                foll[row + 1 + h1 * F + f1, hL, c_] = dec[g2[ok], :2]
    return lead, foll


def _games(sol: nplayer.NSolution) -> list:
    """The solution and those of fewer players in play it holds (``end = last_holder``)."""
    return [sol] + [sol.subs[m] for m in sorted(sol.subs, reverse=True)]


@lru_cache(maxsize=16)
def compact_size(variant: Variant, players: int) -> tuple[int, int]:
    """``(context rows, blocks)`` of :func:`engine_tables_compact` at ``players`` players, without solving."""
    counts = context_counts(variant, players)
    return sum(s * g for _, _, s, g in counts), sum(s for _, _, s, _ in counts)


def _row_map_bytes(rows: int) -> int:
    return (rows + 1) // 2 * 8  # two 32-bit row numbers to a word of aux


def check_table_size(variant: Variant, players: int) -> None:
    """Raise ValueError if the compact engine tables would take more than :data:`MAX_TABLE_BYTES`
    (before any solve: the contexts are counted from the rules, and the map from every
    context to its row is most of the tables' size)."""
    rows = compact_size(variant, players)[0]
    _refuse_beyond_the_cap(variant, players, _row_map_bytes(rows))


def _refuse_beyond_the_cap(variant: Variant, players: int, nbytes: int) -> None:
    if nbytes > MAX_TABLE_BYTES:
        raise ValueError(f"players: the {players}-player equilibrium of {variant.describe()} would take "
                         f"{nbytes / 2**30:.1f} GiB of engine tables; allowed: at most "
                         f"{MAX_TABLE_BYTES / 2**30:.0f} GiB (it still decides one turn at a time: four21sim play)")


class _DistinctRows:
    """The follower rows of the compact tables, each stored once: ``add(dec)`` gives the number of
    each of its rows among all rows added so far (numbered in order of first appearance).

    A row is kept as the bytes of its own copy: a view into ``dec`` would keep every state's
    whole decision array alive (at 4 players in classic, 1,350 states of 29 MB each).
    """

    def __init__(self):
        self.number: dict[bytes, int] = {}  # (insertion order is the numbers' order)

    def add(self, dec: np.ndarray) -> np.ndarray:
        flat = np.ascontiguousarray(dec.reshape(len(dec), -1))
        first, inv = np.unique(flat.view(np.dtype((np.void, flat.shape[1]))).ravel(), return_index=True,
                               return_inverse=True)[1:]
        ids = np.empty(len(first), np.int64)
        for q, i in enumerate(first):
            ids[q] = self.number.setdefault(flat[i].tobytes(), len(self.number))
        return ids[inv.ravel()]

    def __len__(self) -> int:
        return len(self.number)

    def table(self) -> np.ndarray:
        """``foll[row, made-1, h]``: the rows in their numbers' order (one row of re-throws if none)."""
        if not self.number:
            return np.zeros((1, 2, _NH), KEEP_DTYPE)
        return np.frombuffer(b"".join(self.number), KEEP_DTYPE).reshape(len(self.number), 2, _NH).copy()


def engine_tables_compact(sol: nplayer.NSolution) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An n-player equilibrium as engine tables in context mode ``CTX_COMPACT`` (layout: :mod:`.contexts`).

    ``lead[block, throws_left-1, h]``, ``foll[row, made-1, h]`` (each distinct row once) and
    ``aux`` (int64: the state maps, the blocks, each (players in play, phase)'s context
    transitions, and the row of ``foll`` of every context of every state). Every entry
    is the keep the solution takes (:meth:`~four21sim.exact.nplayer.NSolution.round_decisions`,
    the same decisions as :meth:`~four21sim.exact.nplayer.NSolution.keep`); with a one-throw
    charge nobody decides in the charge, whose states then have no block.

    Raises
    ------
    ValueError
        If the tables would take more than :data:`MAX_TABLE_BYTES`.
    """
    v = sol.variant
    B = v.tokens + 1
    check_table_size(v, sol.players)
    rows, n_blocks = compact_size(v, sol.players)
    lead = np.empty((max(n_blocks, 1), 2, _NH), KEEP_DTYPE)
    lead[:] = dice.FULL_KEEP + np.arange(_NH)
    row_map = np.zeros((rows + 1) // 2 * 2, np.uint32)
    distinct = _DistinctRows()
    head = np.zeros(C.AUX_HEADER, np.int64)
    head[C.AUX_BASE], head[C.AUX_EXACT] = B, v.followers == "exact"
    parts, at = [head], C.AUX_HEADER  # at: the next offset, relative to the policy's
    blocks = np.zeros((n_blocks, 2), np.int64)
    csets: dict = {}
    b = r = 0
    for game in _games(sol):
        m = game.players
        smap = np.full(B ** (m + 1), -1, np.int64)
        head[C.AUX_MAPS + m - 2] = at
        parts.append(smap)
        at += smap.size
        for pot, toks in game.states:
            if pot > 0 and (m < sol.players or v.charge_throws == 1):  # (nobody decides, or never played)
                continue
            ct, dec, lead_dec = game.round_decisions((pot, toks))
            if id(ct) not in csets:
                starts = ct.row_start.astype(np.int64)
                lead_next = np.zeros((3, _NH), np.int64)
                lead_next[:ct.lead_next.shape[0]] = ct.lead_next
                cset = np.concatenate([[3 + lead_next.size, 3 + lead_next.size + starts.size, ct.G],
                                       lead_next.ravel(), starts, ct.trans.astype(np.int64)])
                csets[id(ct)] = (at, ct)  # (ct kept alive: its id stays its own)
                parts.append(cset)
                at += cset.size
            key = pot
            for t in toks:
                key = key * B + t
            smap[key] = b
            for tl in range(1, ct.L):
                lead[b, tl - 1] = lead_dec[ct.L - tl - 1]
            rows_b = dec[:ct.G, :2]
            # a follower decides after made < count throws; the entries never read re-throw
            # everything (legal for every hand), so that rows alike in what is read are one row
            c = ct.ctx_c[:ct.G]
            rows_b[c < 3, 1] = dice.EMPTY_KEEP
            rows_b[c < 2, 0] = dice.EMPTY_KEEP
            row_map[r:r + ct.G] = distinct.add(rows_b)
            # refused as soon as the rows alone pass the cap, not after holding them all
            _refuse_beyond_the_cap(v, sol.players, _row_map_bytes(rows) + len(distinct) * rows_b[0].nbytes)
            blocks[b] = r, csets[id(ct)][0]
            b += 1
            r += ct.G
    if (b, r) != (n_blocks, rows):
        raise RuntimeError(f"engine tables: {b} blocks of {r} rows built, {n_blocks} of {rows} counted")
    foll = distinct.table()
    _refuse_beyond_the_cap(v, sol.players, _row_map_bytes(rows) + foll.nbytes + lead.nbytes)
    head[C.AUX_BLOCKS] = at
    parts.append(blocks.ravel())
    head[C.AUX_ROWS] = at + blocks.size
    # two uint32 to an int64 word, the even one in the low bits (little-endian, as compact_context reads it)
    assert np.little_endian
    parts.append(row_map.view(np.int64))
    return lead, foll, np.concatenate(parts)


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


@lru_cache(maxsize=2)  # (a 4-player table is large: a few GB at 11 tokens)
def _optimal_compact(variant: Variant, players: int) -> Policy:
    check_table_size(variant, players)  # before the solve: refused at once
    sol = nplayer.solve(variant, players, "pay")
    lead, foll, aux = engine_tables_compact(sol)
    return table_policy("optimal", variant, lead, foll, ctx_mode=C.CTX_COMPACT, players=players, aux=aux,
                        info={"p_pay": sol.seat_p_pay.tolist(), "exploitability": sol.exploitability})


def build_optimal(variant: Variant, players: int) -> Policy:
    """``optimal``: the 2-player optimum, or the certified n-player equilibrium (3 to 5 players)."""
    if players == 2:
        return _optimal2(variant)
    return _optimal3(variant) if players == 3 else _optimal_compact(variant, players)


def warm_optimal(variant: Variant, players: int) -> None:
    """Solve where other processes can reuse it: the n-player solve goes to the disk store."""
    if players >= 4:
        check_table_size(variant, players)
    if players >= 3:  # the 2-player one is quick
        nplayer.solve(variant, players, "pay")


def optimal_unavailable(variant: Variant, players: int) -> str | None:
    """Why ``optimal`` cannot be built for ``variant`` (None when it can)."""
    cap = two_player.MAX_SOLVER_TOKENS if players == 2 else nplayer.MAX_TOKENS[players]
    if variant.tokens > cap:
        return f"the exact {players}-player solver takes at most {cap} tokens, not {variant.tokens}"
    if players >= 4:  # the tables' size, counted from the rules (seconds to a minute, once a process)
        try:
            check_table_size(variant, players)
        except ValueError as exc:
            return str(exc).removeprefix("players: ")
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
