"""numba kernels of the random stream: one xoroshiro128++ generator per (seed, game).

docs/engine.md ("The random stream") is the contract: how a game's generator is seeded,
its words, how a draw is read from a word, and how a throw of dice is read from a draw.
The state is a tuple of scalars ``st = (s0, s1, draws made)`` that each step takes and
returns (the ``*_st`` functions); ``start_game``, ``draw``, ``throw3`` and ``rethrow`` are
the same steps on a state kept in two small arrays, ``rs = [s0, s1]`` (uint64) and
``ri = [draws made]``, for callers that share it (:func:`new_state` makes them).
"""

from __future__ import annotations

import numpy as np

from .._util.jit import JIT, njit
from ..rules import dice

_U = np.uint64
_GAMMA = _U(0x9E3779B97F4A7C15)
_C1 = _U(0xBF58476D1CE4E5B9)
_C2 = _U(0x94D049BB133111EB)
_S30, _S27, _S31, _S32 = _U(30), _U(27), _U(31), _U(32)


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
# the range of the draw that re-throws the dice a keep leaves, 6**(dice thrown): one load from
# the keep, where the number of dice and then its range were two
_KEEP_RANGE = (6 ** (3 - dice.KEEP_SIZE.astype(np.int64))).astype(np.uint64)


@njit(**JIT)
def _compiled_tables():
    return (_OUTCOME_HAND.copy(), _KEEP_RESULT.copy(), _KEEP_SIZE.copy(), _KEEP_RANGE.astype(np.int64))


def compiled_tables() -> dict:
    """The dice tables as compiled into these kernels (numba freezes globals at compile time,
    and its cache may hold an older compilation): tests compare them with :mod:`dice`
    (``KEEP_RANGE``: with ``6 ** (3 - KEEP_SIZE)``)."""
    return dict(zip(('OUTCOME_HAND', 'KEEP_RESULT', 'KEEP_SIZE', 'KEEP_RANGE'), signed_tables(_compiled_tables())))


@njit(inline="always", **JIT)
def mix64(z):
    """SplitMix64's finaliser (Stafford's variant 13)."""
    z = (z ^ (z >> _S30)) * _C1
    z = (z ^ (z >> _S27)) * _C2
    return z ^ (z >> _S31)


@njit(inline="always", **JIT)
def _rotl(x, k):
    return (x << _U(k)) | (x >> _U(64 - k))


@njit(**JIT)
def game_key(seedmix, g):
    """Key of game g; ``seedmix = mix64(seed)``."""
    return mix64(seedmix + _U(g))


# The stream's state travels through the game loop as a tuple of scalars, ``st = (s0, s1,
# draws)``: values the compiler keeps in registers. In arrays, every draw loaded and stored
# them again (a store into the counters might have changed them, for all the compiler knows).
@njit(**JIT)
def stream_start(seedmix, g):
    """The state at the start of game g: xoroshiro128++ seeded with the first two words of
    SplitMix64 from the game's key (never both zero: mix64 is a bijection); no draw made."""
    key = game_key(seedmix, g)
    # np.int64(0), not 0: a literal would give every step taking the state a signature of its
    # own on the first pass of type inference (see _kernels.STEP)
    return mix64(key + _GAMMA), mix64(key + _GAMMA + _GAMMA), np.int64(0)


@njit(inline="always", **JIT)
def next_word_st(st):
    """xoroshiro128++'s next output: ``(word, st)`` (the draw count unchanged)."""
    s0, s1, draws = st
    w = _rotl(s0 + s1, 17) + s0
    s1 ^= s0
    return w, (_rotl(s0, 49) ^ s1 ^ (s1 << _U(21)), _rotl(s1, 28), draws)


@njit(**JIT)
def draw_st(st, r):
    """Uniform integer in [0, r), 2 <= r <= 216, from the top 32 bits of the next word:
    ``(x, st)``. One word per draw: no test for a word's bits left (a branch that the game's
    random course made unpredictable)."""
    w, (s0, s1, draws) = next_word_st(st)
    return np.int64(((w >> _S32) * _U(r)) >> _S32), (s0, s1, draws + 1)


@njit(**JIT)
def throw3_st(st):
    """Throw three dice: ``(hand, st)``."""
    o, st = draw_st(st, 216)
    return _OUTCOME_HAND[o], st


@njit(**JIT)
def rethrow_st(keep, st):
    """Keep the dice of ``keep``, throw the others: ``(new hand, st)``."""
    # one draw of 6**n, n the dice thrown, its range read from a table: how many dice go
    # back is random, and a branch on it would be mispredicted about one re-throw in two
    x, st = draw_st(st, _KEEP_RANGE[keep])
    return _KEEP_RESULT[keep, x], st


# ---------------------------------------------------------------- the same, state in arrays
def new_state() -> tuple[np.ndarray, np.ndarray]:
    """Empty arrays ``(rs, ri)`` for the array forms below: ``rs = [s0, s1]``, ``ri = [draws made]``."""
    return np.zeros(2, dtype=np.uint64), np.zeros(1, dtype=np.int64)


@njit(inline="always", **JIT)
def load_st(rs, ri):
    """The state held in ``rs = [s0, s1]``, ``ri = [draws made]``."""
    return rs[0], rs[1], ri[0]


@njit(inline="always", **JIT)
def store_st(st, rs, ri):
    rs[0], rs[1] = st[0], st[1]
    ri[0] = st[2]


@njit(inline="always", **JIT)
def start_game(rs, ri, seedmix, g):
    """Point the stream at the start of game g: no draw made."""
    store_st(stream_start(seedmix, g), rs, ri)


@njit(inline="always", **JIT)
def draw(rs, ri, r):
    """Uniform integer in [0, r), 2 <= r <= 216."""
    x, st = draw_st(load_st(rs, ri), r)
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
            x, st = draw_st(st, 6)
            out[g, j] = x + 1
