"""What a decision may depend on: the context modes of a table policy (docs/engine.md).

A table policy's rows are contexts. The engine computes the row of each decision from
the mode (``engine._kernels.context``); this module owns the modes' layout, so that the
builders of tables and the engine agree on it.

- ``CTX_NONE`` (0): one row; decisions ignore the tokens.
- ``CTX_TOKENS`` (1): row ``pot * (tokens + 1) + own tokens``.
- ``CTX_ROUND`` (2): the 3-player equilibrium's rows: ``0..tokens`` for two players in
  play (by the leader's tokens), then per 3-player state ``i =`` :func:`round_state_index`
  a block of ``1 + 56 F`` rows (F = 3 with ``fewer_throws_wins``, else 1): the leader and
  the first follower read its first row, the second follower the row of the first
  follower's hand (and throws).
- ``CTX_COMPACT`` (3): an n-player equilibrium's decisions in the solver's own merged
  contexts (from 4 players). A context already fixes the count and all a follower needs of
  the hands before it, so a follower row is ``foll[row, made-1, hand]`` (112 bytes). Rows
  are stored once each: every context of every state (its *context row*, numbered block by
  block) points to one of the table's distinct rows (Super 421 at 4 players: 17.6 M context
  rows, 0.11 M distinct). The leader's row is ``lead[block, throws_left-1, hand]``, one block
  per state of the game. Where a decision is, the engine finds in the policy's ``aux``
  (int64), at the policy's offset ``a`` (:data:`AUX_HEADER` words, then offsets relative
  to ``a``):

  - ``aux[a + AUX_BASE]``: tokens + 1; ``aux[a + AUX_EXACT]``: 1 under ``followers = exact``;
  - ``aux[a + AUX_MAPS + m - 2]`` (m = 2 .. 6 players in play): where the state map of m
    players starts (0: none); entry ``pot * B^m + tok_0 * B^(m-1) + ... + tok_(m-1)`` (B =
    tokens + 1, the tokens by role, leader first) is the state's block (-1: no such state);
  - ``aux[a + aux[a + AUX_BLOCKS] + 2 b]``: block b's first context row, and
    ``... + 2 b + 1``: where its contexts' transitions start (offset c): ``aux[a + c + 3 + 56
    (count - 1) + h]`` is the context after a leader's hand h in ``count`` throws,
    ``aux[a + c + aux[a + c] + g]`` the row start of context g in the transitions at ``aux[a
    + c + aux[a + c + 1]]``, and transition ``row start + slot * 56 + h`` the context after the
    next hand h (slot 0 under ``exact``, else its throws minus one);
  - from ``aux[a + AUX_ROWS]`` on, the row of ``foll`` of each context row x, as 32-bit
    numbers two to a word: bits ``32 (x mod 2)`` on of word ``x // 2``
    (:func:`compact_context`).
"""

from __future__ import annotations

from .._util.jit import JIT, njit
from ..rules import dice
from ..rules.variants import Variant

__all__ = ["CTX_NONE", "CTX_TOKENS", "CTX_ROUND", "CTX_COMPACT", "ROW_BITS", "round_state_index", "round_rows", "rows",
           "compact_block", "compact_context"]

CTX_NONE, CTX_TOKENS, CTX_ROUND, CTX_COMPACT = 0, 1, 2, 3
AUX_BASE, AUX_EXACT, AUX_BLOCKS, AUX_ROWS, AUX_MAPS = 0, 1, 2, 3, 4
AUX_HEADER = AUX_MAPS + 5  # state maps for 2 .. 6 players in play
ROW_BITS = 32
"""Bits of one entry of a ``CTX_COMPACT`` policy's row map (two to a word of ``aux``)."""
_NH = dice.N_HANDS


@njit(inline="always", **JIT)
def round_state_index(pot, a, b, tokens):
    """Index of the 3-player state (pot, leader a, next seat b, the rest) among all
    (pot, a, b) with pot + a + b <= tokens, by pot, then a, then b."""
    idx = 0
    for q in range(pot):
        rest = tokens - q
        idx += (rest + 1) * (rest + 2) // 2
    rest = tokens - pot
    return idx + a * (rest + 1) - a * (a - 1) // 2 + b


# Compiled once each and inlined by LLVM, as the engine's steps (numba's own inlining would copy
# their IR into every kernel that plays a game: compile time).
_STEP = dict(JIT, _nrt=False, forceinline=True)


@njit(**_STEP)
def compact_block(aux, a, pot, tok, order, m):
    """``CTX_COMPACT``: the block of the state (pot, tokens of ``order[:m]``) of the policy at ``a``."""
    base = aux[a + AUX_BASE]
    key = pot
    for j in range(m):
        key = key * base + tok[order[j]]
    return aux[a + aux[a + AUX_MAPS + m - 2] + key]


@njit(**_STEP)
def compact_context(aux, a, b, j, hands, throws, count):
    """``CTX_COMPACT``: the follower row (of ``foll``) of role j (>= 1) in block b, the hands and
    throws of roles ``0 .. j-1`` on the table and the leader's ``count``."""
    blocks = a + aux[a + AUX_BLOCKS]
    c = a + aux[blocks + 2 * b + 1]
    starts = c + aux[c]
    trans = c + aux[c + 1]
    g = aux[c + 3 + _NH * (count - 1) + hands[0]]
    exact = aux[a + AUX_EXACT] == 1
    for k in range(1, j):
        slot = 0 if exact else throws[k] - 1
        g = aux[trans + aux[starts + g] + slot * _NH + hands[k]]
    x = aux[blocks + 2 * b] + g
    word = aux[a + aux[a + AUX_ROWS] + (x >> 1)]
    return (word >> ((x & 1) * ROW_BITS)) & ((1 << ROW_BITS) - 1)


def round_block(variant: Variant) -> int:
    """Rows per 3-player state in mode ``CTX_ROUND``: the leader's row, then one per hand (and throws)."""
    return 1 + dice.N_HANDS * (3 if variant.fewer_throws_wins else 1)


def round_rows(variant: Variant) -> int:
    """Rows of a ``CTX_ROUND`` table; with a one-throw charge nobody decides in the charge,
    so the rows stop after the décharge states."""
    T = variant.tokens
    pot_max = T if variant.charge_throws > 1 else 0
    n_idx = sum((T - q + 1) * (T - q + 2) // 2 for q in range(pot_max + 1))
    return T + 1 + n_idx * round_block(variant)


def rows(mode: int, variant: Variant) -> int | None:
    """Rows a table of context mode ``mode`` has for ``variant`` (None: any number, mode 0)."""
    if mode == CTX_TOKENS:
        return (variant.tokens + 1) ** 2
    if mode == CTX_ROUND:
        return round_rows(variant)
    return None
