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
"""

from __future__ import annotations

from .._util.jit import JIT, njit
from ..rules import dice
from ..rules.variants import Variant

__all__ = ["CTX_NONE", "CTX_TOKENS", "CTX_ROUND", "round_state_index", "round_rows", "rows"]

CTX_NONE, CTX_TOKENS, CTX_ROUND = 0, 1, 2


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
