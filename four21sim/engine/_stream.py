"""numba kernels of the random stream: one SplitMix64 stream per (seed, game).

docs/engine.md ("The random stream") is the contract: the words, how draws are
carved from them, and how a throw of dice is read from a draw. The state is a tuple
of scalars ``st = (key, k, word, bits used of the word, draws made)`` that each step
takes and returns (the ``*_st`` functions); ``start_game``, ``draw``, ``throw3`` and
``rethrow`` are the same steps on a state kept in two small arrays, ``rs = [key, k,
word]`` (uint64) and ``ri = [bits used, draws made]``, for callers that share it.
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
_THROW_RANGE = np.array([1, 6, 36, 216], dtype=np.int64)  # throwing n dice is draw(6**n) ...
_THROW_BITS = np.array([0, 3, 6, 8], dtype=np.int64)  # ... at a cost of (6**n - 1).bit_length() bits


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


# The stream's state travels through the game loop as a tuple of scalars,
# ``st = (key, k, word, used, draws)``: values the compiler keeps in registers. In arrays,
# every draw loaded and stored them again (a store into the counters might have changed
# them, for all the compiler knows). The ``rs, ri`` array forms below wrap the same
# functions for callers that share the state by reference (tests, a game at the terminal).
@njit(**JIT)
def stream_start(seedmix, g):
    """The state at the start of game g: no word taken yet, no draw made."""
    return game_key(seedmix, g), _U(0), _U(0), BIT_BUDGET, 0


@njit(**JIT)
def draw_st(st, r, bits):
    """Uniform integer in [0, r), r <= 216, ``bits = (r - 1).bit_length()``: ``(x, st)``."""
    key, k, u, used, draws = st
    if used + bits > BIT_BUDGET:
        k += _ONE
        u = mix64(key + k * _GAMMA)
        used = 0
    ru = _U(r)
    hi = ((u >> _S32) * ru + (((u & _M32) * ru) >> _S32)) >> _S32
    return np.int64(hi), (key, k, u * ru, used + bits, draws + 1)


@njit(**JIT)
def throw3_st(st):
    """Throw three dice: ``(hand, st)``."""
    o, st = draw_st(st, 216, 8)
    return _OUTCOME_HAND[o], st


@njit(**JIT)
def rethrow_st(keep, st):
    """Keep the dice of ``keep``, throw the others: ``(new hand, st)``."""
    # One draw of 6**n, n the dice thrown, its range and bits read from tables: how many
    # dice go back is random, and a branch on it was mispredicted about one re-throw in two
    # (LLVM makes a branch of any choice between constants that feeds the word-refresh test).
    n = 3 - _KEEP_SIZE[keep]
    x, st = draw_st(st, _THROW_RANGE[n], _THROW_BITS[n])
    return _KEEP_RESULT[keep, x], st


@njit(**JIT)
def draw_small_st(st, r):
    """draw(r) for 2 <= r <= 8 (the random policy): ``(x, st)``."""
    bits = 1 if r <= 2 else (2 if r <= 4 else 3)
    return draw_st(st, r, bits)


# ---------------------------------------------------------------- the same, state in arrays
@njit(inline="always", **JIT)
def load_st(rs, ri):
    """The state held in ``rs = [key, k, word]``, ``ri = [bits used of the word, draws made]``."""
    return rs[0], rs[1], rs[2], ri[0], ri[1]


@njit(inline="always", **JIT)
def store_st(st, rs, ri):
    rs[0], rs[1], rs[2] = st[0], st[1], st[2]
    ri[0], ri[1] = st[3], st[4]


@njit(inline="always", **JIT)
def start_game(rs, ri, seedmix, g):
    """Point the stream at the start of game g: no word taken yet, no draw made."""
    store_st(stream_start(seedmix, g), rs, ri)


@njit(inline="always", **JIT)
def draw(rs, ri, r, bits):
    """Uniform integer in [0, r), r <= 216, ``bits = (r - 1).bit_length()``."""
    x, st = draw_st(load_st(rs, ri), r, bits)
    store_st(st, rs, ri)
    return x


@njit(inline="always", **JIT)
def throw3(rs, ri):
    """Throw three dice: the hand."""
    h, st = throw3_st(load_st(rs, ri))
    store_st(st, rs, ri)
    return h


@njit(inline="always", **JIT)
def rethrow(keep, rs, ri):
    """Keep the dice of ``keep``, throw the others: the new hand."""
    h, st = rethrow_st(keep, load_st(rs, ri))
    store_st(st, rs, ri)
    return h


@njit(**JIT)
def fill_dice(seed, games, out):
    """Results of ``draw(6) + 1`` for the first ``out.shape[1]`` draws of games 0..games-1 (for tests)."""
    seedmix = mix64(_U(seed))
    for g in range(games):
        st = stream_start(seedmix, g)
        for j in range(out.shape[1]):
            x, st = draw_st(st, 6, 3)
            out[g, j] = x + 1
