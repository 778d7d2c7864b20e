"""The floor: 2-player ``super421`` with both seats playing ``greedy``, stripped to its bones.

    python experiments/floor.py [--games N] [--threads T]

A yardstick for the engine's speed (``experiments/bench.py`` runs both in one process
and prints the ratio): the same game as ``simulate("super421", 2, "greedy")`` with
nothing around it, so that engine / floor says what the engine's generality, its
reproducible stream and its counters cost.

The same game: the rules of docs/rules.md for the ``super421`` preset, hard-coded for
two players: 11 tokens; the leader throws up to 3 times in both phases; the follower
makes exactly the leader's count of throws (``exact``: it never stops early); the
ranking and values of ``super421``; a loser holding 221 takes at least 2; no
cumulative payout, no nénette rescue, no fewer-throws rule; roll-offs (both throw
three dice, the worse rank stays tied) until one loser is left; the loser leads next;
the game ends when a player is out (it holds no token when the pot empties, or, in
the décharge, a winner gives its last token). Throws and re-throws are read from the
dice tables of :mod:`four21sim.rules.dice` and the keeps from the compiled ``greedy``
tables, so every decision is the engine's.

What it leaves out, all of which the engine does:

- the random stream of docs/engine.md. Here one xorshift64 state per block of games
  (seeded from ``(seed, block)``), one 64-bit word per draw, a draw in ``[0, r)`` being
  ``(word >> 32) * r >> 32``. The engine seeds a xoroshiro128++ generator per game and
  counts the draws: the same seed plays the same game whatever the threads or blocks.
  So the floor plays other games than the engine from the same seed; only their laws
  agree (``bench.py`` prints both P(seat 0 wins)).
- every other variant, player count and policy: the options are constants, the seat
  count is 2, the keep tables are globals of 2 x 56 (leader: throws left, hand) and
  3 x 56 (follower: (count, made) pair, hand) entries, because ``greedy``'s follower
  ignores the target hand (the engine reads a row per target and context);
- the round limit (runaway games), the policy context, the ``random`` policy;
- every counter but one: the games each seat won, added once per block.
"""

from __future__ import annotations

import argparse
import sys
import time

import numba
import numpy as np

from four21sim import Variant
from four21sim.engine._stream import draw_st, mix64, stream_start
from four21sim.policies import resolve_policies
from four21sim.rules import dice

_VARIANT = Variant.from_preset("super421")
_GREEDY = resolve_policies(_VARIANT, 2, "greedy")[0]
TOKENS = 11
NENETTE_MIN = 2
_H221 = dice.hand_index((2, 2, 1))
_FULL = dice.FULL_KEEP
_OUTCOME_HAND = dice.OUTCOME_HAND.astype(np.uint8)
_KEEP_RESULT = np.ascontiguousarray(dice.KEEP_RESULT.astype(np.uint8))
_RANGE = (6 ** (3 - dice.KEEP_SIZE)).astype(np.int64)  # a re-throw is one draw of 6**(dice thrown)
_RANK = dice.RANK[dice.ranking_index("super421")].astype(np.int64)
_VALUE = dice.VALUE[dice.values_index("super421")].astype(np.int64)
# greedy: lead[throws_left - 1, hand]; foll[(count, made) -> 0 (2,1), 1 (3,1), 2 (3,2), hand]
_LEAD = np.ascontiguousarray(_GREEDY.lead[0]).astype(np.uint8)
_FOLL = np.ascontiguousarray(np.stack([_GREEDY.foll[0, 0, c - 1, m - 1] for c, m in ((2, 1), (3, 1), (3, 2))]))
_FOLL = _FOLL.astype(np.uint8)
assert (_GREEDY.foll[0] == _GREEDY.foll[0, :1]).all(), "greedy's follower must ignore the target"
assert not (_FOLL == _FULL + np.arange(dice.N_HANDS)).any(), "an exact follower never stops"

_U = np.uint64


@numba.njit(inline="always")
def xorshift_draw(x, r):
    """The floor's stream: the next xorshift64 word, read as ``(word >> 32) * r >> 32``."""
    x ^= x << _U(13)
    x ^= x >> _U(7)
    x ^= x << _U(17)
    return np.int64(((x >> _U(32)) * _U(r)) >> _U(32)), x


@numba.njit(inline="always")
def _throw3(draw, st):
    o, st = draw(st, 216)
    return _OUTCOME_HAND[o], st


@numba.njit(inline="always")
def _rethrow(draw, st, keep):
    # one draw of 6**j, j the dice thrown: r read from a table, not branched on
    # (how many dice go back is random: a branch on it is mispredicted)
    x, st = draw(st, _RANGE[keep])
    return _KEEP_RESULT[keep, x], st


@numba.njit(inline="always")
def _round(draw, st):
    """A round: ``(leader loses, winner's hand, loser's hand, st)``."""
    hl, st = _throw3(draw, st)  # the leader: up to 3 throws, may stop
    count = 1
    while count < 3:
        k = _LEAD[2 - count, hl]
        if k == _FULL + hl:
            break
        hl, st = _rethrow(draw, st, k)
        count += 1
    hf, st = _throw3(draw, st)  # the follower: exactly `count` throws
    for made in range(1, count):
        hf, st = _rethrow(draw, st, _FOLL[count + made - 3, hf])
    rl = _RANK[hl]
    rf = _RANK[hf]
    while rl == rf:  # roll-offs, the leader first, until one rank is worse
        h, st = _throw3(draw, st)
        a = _RANK[h]
        h, st = _throw3(draw, st)
        b = _RANK[h]
        if a != b:
            rl, rf = a, b
    if rl > rf:
        return True, hf, hl, st
    return False, hl, hf, st


@numba.njit(inline="always")
def _game(draw, st):
    """A game from stream state ``st``: ``(seat 0 won, st)``."""
    pot = TOKENS
    t0 = 0  # tokens of seats 0 and 1
    t1 = 0
    leader = 0
    while True:
        leader_loses, hw, hlos, st = _round(draw, st)
        pay = _VALUE[hw]
        if hlos == _H221 and pay < NENETTE_MIN:
            pay = NENETTE_MIN
        loser = leader if leader_loses else 1 - leader
        if pot > 0:  # the charge: the loser takes from the pot
            swing = min(pay, pot)
            pot -= swing
            if loser == 0:
                t0 += swing
            else:
                t1 += swing
            if pot == 0 and (t0 == 0 or t1 == 0):  # a player with no token is out and has won
                return t0 == 0, st
        elif loser == 0:  # the décharge: the winner gives to the loser; out at no token
            swing = min(pay, t1)
            t1 -= swing
            t0 += swing
            if t1 == 0:
                return False, st
        else:
            swing = min(pay, t0)
            t0 -= swing
            t1 += swing
            if t0 == 0:
                return True, st
        leader = loser


@numba.njit(nogil=True)
def floor_block(x, games):
    """``games`` games from xorshift state ``x``: the games seat 0 won."""
    won0 = 0
    for _ in range(games):
        w, x = _game(xorshift_draw, x)
        won0 += w
    return won0


@numba.njit(nogil=True)
def floor_block_engine_stream(seedmix, first, games):
    """Games ``first .. first + games - 1`` with the engine's stream: the games seat 0 won.
    These are the engine's games, die for die."""
    won0 = 0
    for g in range(first, first + games):
        w, _ = _game(draw_st, stream_start(seedmix, g))
        won0 += w
    return won0


@numba.njit(nogil=True, parallel=True)
def floor_games(seed, games, block, engine_stream, out):
    """``games`` games in blocks of ``block``; ``out[b]`` = the games seat 0 won in block b."""
    seedmix = mix64(_U(seed))
    for b in numba.prange(out.shape[0]):
        lo = b * block
        hi = min(games, lo + block)
        if engine_stream:
            out[b] = floor_block_engine_stream(seedmix, lo, hi - lo)
        else:  # the block's xorshift state: a SplitMix64 word of (seed, block), never 0
            out[b] = floor_block(mix64(seedmix + _U(b + 1) * _U(0x9E3779B97F4A7C15)) | _U(1), hi - lo)


def floor(games: int, seed: int = 12345, threads: int | None = None, block: int = 8192,
          engine_stream: bool = False) -> tuple[int, float]:
    """Play ``games`` floor games on ``threads`` numba threads (default: all); returns
    ``(games seat 0 won, seconds)``. With ``engine_stream``, the engine's own random stream
    (docs/engine.md): the same games as ``simulate("super421", 2, "greedy", seed=seed)``."""
    out = np.zeros(-(-games // block), dtype=np.int64)
    old = numba.get_num_threads()
    try:
        if threads is not None:
            numba.set_num_threads(threads)
        t = time.perf_counter()
        floor_games(seed, games, block, engine_stream, out)
        elapsed = time.perf_counter() - t
    finally:
        numba.set_num_threads(old)
    return int(out.sum()), elapsed


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=20_000_000)
    p.add_argument("--threads", type=int, default=None)
    args = p.parse_args(argv)
    for engine_stream in (False, True):
        floor(1000, threads=args.threads, engine_stream=engine_stream)
        w0, secs = floor(args.games, threads=args.threads, engine_stream=engine_stream)
        print(f"floor{' (engine stream)' if engine_stream else ''}: {args.games / secs / 1e6:.2f} M games/s, "
              f"P(seat 0 wins) = {w0 / args.games:.5f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
