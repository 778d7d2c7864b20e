"""numba kernels of the random stream: one SplitMix64 stream per (seed, game).

docs/engine.md ("The random stream") is the contract: the words, how draws are
carved from them, and how a throw of dice is read from a draw. The stream state
is two small arrays so that step functions can share it without returning it:
``rs = [key, k, word]`` (uint64) and ``ri = [bits used of the word, draws made]``.
"""

from __future__ import annotations

import numpy as np

from .._util.jit import JIT, njit
from ..rules import dice

_U = np.uint64
_GAMMA = _U(0x9E3779B97F4A7C15)
_C1 = _U(0xBF58476D1CE4E5B9)
_C2 = _U(0x94D049BB133111EB)
_M32 = _U(0xFFFFFFFF)
_S30, _S27, _S31, _S32 = _U(30), _U(27), _U(31), _U(32)
_ONE = _U(1)
BIT_BUDGET = 24  # bits of a word spent before the next word: >= 40 bits stay



def kernel_table(table: np.ndarray) -> np.ndarray:
    """A dice table as the engine compiles it in: unsigned bytes.

    A hand or keep read from an unsigned table is known to be non-negative, so every
    array indexed by it skips numba's negative-index check (see :func:`four21sim._util.jit.ix`).
    Padding entries (-1) read 255; the engine never reaches them.
    """
    return np.ascontiguousarray(table).astype(np.uint8)


def signed_tables(tables) -> tuple:
    """Tables compiled by :func:`kernel_table`, read back as the signed values of dice.py."""
    return tuple(t.view(np.int8).astype(np.int64) if t.dtype == np.uint8 else t for t in tables)


_OUTCOME_HAND = kernel_table(dice.OUTCOME_HAND)
_KEEP_RESULT = kernel_table(dice.KEEP_RESULT)
_KEEP_SIZE = kernel_table(dice.KEEP_SIZE)


@njit(**JIT)
def _compiled_tables():
    return (_OUTCOME_HAND.copy(), _KEEP_RESULT.copy(), _KEEP_SIZE.copy(),)


def compiled_tables() -> dict:
    """The dice tables as compiled into these kernels (numba freezes globals at compile time,
    and its cache may hold an older compilation): tests compare them with :mod:`dice`."""
    return dict(zip(('OUTCOME_HAND', 'KEEP_RESULT', 'KEEP_SIZE'), signed_tables(_compiled_tables())))


@njit(inline="always", **JIT)
def mix64(z):
    z = (z ^ (z >> _S30)) * _C1
    z = (z ^ (z >> _S27)) * _C2
    return z ^ (z >> _S31)


@njit(**JIT)
def game_key(seedmix, g):
    """Key of game g; ``seedmix = mix64(seed)``."""
    return mix64(seedmix + _U(g))


@njit(inline="always", **JIT)
def start_game(rs, ri, seedmix, g):
    """Point the stream at the start of game g: no word taken yet, no draw made."""
    rs[0] = game_key(seedmix, g)
    rs[1] = _U(0)
    rs[2] = _U(0)
    ri[0] = BIT_BUDGET
    ri[1] = 0


@njit(inline="always", **JIT)
def draw(rs, ri, r, bits):
    """Uniform integer in [0, r), r <= 216, ``bits = (r - 1).bit_length()``."""
    if ri[0] + bits > BIT_BUDGET:
        k = rs[1] + _ONE
        rs[1] = k
        rs[2] = mix64(rs[0] + k * _GAMMA)
        ri[0] = 0
    u = rs[2]
    ru = _U(r)
    hi = ((u >> _S32) * ru + (((u & _M32) * ru) >> _S32)) >> _S32
    rs[2] = u * ru
    ri[0] += bits
    ri[1] += 1
    return np.int64(hi)


@njit(inline="always", **JIT)
def throw3(rs, ri):
    """Throw three dice: the hand."""
    return _OUTCOME_HAND[draw(rs, ri, 216, 8)]


@njit(inline="always", **JIT)
def rethrow(keep, rs, ri):
    """Keep the dice of ``keep``, throw the others: the new hand."""
    n = 3 - _KEEP_SIZE[keep]
    if n == 1:
        return _KEEP_RESULT[keep, draw(rs, ri, 6, 3)]
    if n == 2:
        return _KEEP_RESULT[keep, draw(rs, ri, 36, 6)]
    return _KEEP_RESULT[keep, draw(rs, ri, 216, 8)]


@njit(inline="always", **JIT)
def draw_small(rs, ri, r):
    """draw(r) for 2 <= r <= 8 (the random policy)."""
    bits = 1 if r <= 2 else (2 if r <= 4 else 3)
    return draw(rs, ri, r, bits)


@njit(**JIT)
def fill_dice(seed, games, out):
    """Results of ``draw(6) + 1`` for the first ``out.shape[1]`` draws of games 0..games-1 (for tests)."""
    seedmix = mix64(_U(seed))
    rs = np.zeros(3, dtype=np.uint64)
    ri = np.zeros(2, dtype=np.int64)
    for g in range(games):
        start_game(rs, ri, seedmix, g)
        for j in range(out.shape[1]):
            out[g, j] = draw(rs, ri, 6, 3) + 1
