"""A slow, plain-Python 421 engine: the obviously-correct twin of the numba engine.

Written from docs/rules.md and docs/engine.md alone. It plays the same games as the
numba engine from the same ``(seed, game)``, die for die, and returns the same
per-game records, so the two can be compared exactly.

Nothing here reads the engine. From ``four21sim.rules.dice`` it only takes the *encodings*
that policies are written in (hand and keep indices: ``HANDS``, ``KEEPS``,
``FULL_KEEP``, ``HAND_KEEPS``/``N_HAND_KEEPS`` whose order the random policy depends
on). Rankings, values and categories are the literal tables of tests/rules_tables.py
(and tests/test_reference.py checks they agree with ``dice.RANK``/``VALUE``/``CATEGORY``).
Each rule is stated the way docs/rules.md states it, not the way the kernels compute
it: hands are compared as (rescued, rank, throws) triples, the rescue is its own clause.
Hands are sorted tuples of dice, highest first, e.g. ``(4, 2, 1)``.

Readings of points the documents leave implicit
-----------------------------------------------
* ``draws`` counts calls of ``draw(r)`` (one per throw of any number of dice, one per
  random-policy choice), not 64-bit words.
* During the charge nobody is out (players only go out when the pot empties or, in
  the décharge, when a winner pays its last token), and a game can only end once
  somebody is out. So every game that ends has ended its charge first, and the
  ``charge_tok*`` columns are always the holdings at the moment the pot reached 0.
* Every payout is at least 1 (every hand is worth at least 1), so the loser of a
  charge round takes at least one token: nobody who lost a round goes out when the
  pot empties, and at least one player is still in after the charge.
* ``target`` for a follower's table lookup is the final hand of each player who has
  already played this round (leader and earlier followers), worst by the plain
  ranking.
* In context mode 1, ``pot`` and ``own`` are the values at the start of the round
  (nothing moves during a round), ``tokens`` is ``variant.tokens``.
* "If the loser holds 221" (nenette_min) means the hand 221, rescued or not.
* next_seat: "the next seat after the leader still in play" is taken after this
  round's players have gone out.
* The event hash is kept as a uint64 and reported as the signed int64 with the
  same bits.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from rules_tables import FOUR21, NENETTE, POSITION, SUITES, category_of, is_combination, value_of  # noqa: F401

from four21sim.rules.dice import FULL_KEEP, HAND_KEEPS, HANDS, KEEPS, N_HAND_KEEPS

__all__ = [
    "MASK64", "GAMMA", "mix64", "stream_key", "Stream",
    "RANK_OF", "value_of", "is_combination", "category_of",
    "standing", "round_payout", "judge_round", "play_game", "play_games",
    "RECORD_FIELDS", "N_RECORD", "TablePolicy", "RandomPolicy",
    "sec_policy", "random_policy",
]

MASK64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
MAX_SEATS = 8

RECORD_FIELDS = (
    ["rounds_charge", "rounds_decharge", "win_mask", "lose_mask", "swing", "draws", "event_hash"]
    + [f"tok{s}" for s in range(MAX_SEATS)]
    + [f"charge_tok{s}" for s in range(MAX_SEATS)]
)
N_RECORD = len(RECORD_FIELDS)  # 23


# ============================================================== the random stream
def mix64(z: int) -> int:
    """SplitMix64's finaliser on a Python int, all arithmetic mod 2**64."""
    z &= MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def stream_key(seed: int, game: int) -> int:
    """key(seed, g) = mix64(mix64(seed) + g)."""
    return mix64((mix64(seed & MASK64) + game) & MASK64)


class Stream:
    """The per-game random stream of docs/engine.md: xoroshiro128++ (Blackman and Vigna),
    seeded with the first two outputs of SplitMix64 started at the game's key."""

    def __init__(self, seed: int, game: int):
        self.key = stream_key(seed, game)
        # SplitMix64 from state `key`: state += GAMMA, output mix64(state)
        self.s0 = mix64((self.key + GAMMA) & MASK64)
        self.s1 = mix64((self.key + 2 * GAMMA) & MASK64)
        self.draws = 0    # draws made so far

    def word(self) -> int:
        """The generator's next 64-bit output (xoroshiro128++, rotations 17, 49, 21, 28)."""
        def rotl(x: int, k: int) -> int:
            return ((x << k) | (x >> (64 - k))) & MASK64
        s0, s1 = self.s0, self.s1
        result = (rotl((s0 + s1) & MASK64, 17) + s0) & MASK64
        s1 ^= s0
        self.s0 = rotl(s0, 49) ^ s1 ^ ((s1 << 21) & MASK64)
        self.s1 = rotl(s1, 28)
        return result

    def draw(self, r: int) -> int:
        """A uniform integer in [0, r), 2 <= r <= 216: the top 32 bits of the next word as the
        fraction top / 2**32, times r, rounded down."""
        if not 2 <= r <= 216:
            raise ValueError(f"draw: r={r} outside 2..216")
        top = self.word() >> 32
        self.draws += 1
        return (top * r) // (1 << 32)

    def dice(self, n: int) -> list[int]:
        """Throw n dice with one draw of 6**n: the base-6 digits, first die most significant."""
        o = self.draw(6 ** n)
        faces = []
        for _ in range(n):
            faces.append(o % 6 + 1)
            o //= 6
        return faces[::-1]

    def die(self) -> int:
        return self.draw(6) + 1


# ==================================================== hands, ranks, values (docs/rules.md)
def sort_hand(dice: Sequence[int]) -> tuple[int, ...]:
    """A hand as people write it: highest die first."""
    return tuple(sorted(dice, reverse=True))


ALL_HANDS = sorted({sort_hand((a, b, c)) for a in range(1, 7) for b in range(1, 7) for c in range(1, 7)},
                   reverse=True)
HAND_INDEX = {h: i for i, h in enumerate(HANDS)}  # the package's encoding, for policy tables
assert sorted(HAND_INDEX) == sorted(ALL_HANDS)

RANK_OF = {name: POSITION[name] for name in ("super421", "montreal", "classic")}
"""RANK_OF[ranking][hand]: 0 for the best hand, 55 for the worst (the rules' table, by hand)."""


# ===================================================================== policies
@dataclass
class TablePolicy:
    """A table policy: LEAD[ctx, throws_left-1, hand], FOLL[ctx, target, count-1, made-1, hand]."""
    lead: Any
    foll: Any
    ctx_mode: int = 0
    kind: str = "table"


@dataclass
class RandomPolicy:
    kind: str = "random"
    ctx_mode: int = 0
    lead: Any = None
    foll: Any = None


@dataclass
class SolutionPolicy:
    """An exact equilibrium asked one decision at a time (``solution.keep``: the solver's own
    decision, from its values), where the engine reads tables built from it: a witness of the
    tables' layout and of the engine's way to their rows, not of the solver."""
    solution: Any
    kind: str = "solution"
    ctx_mode: int = -1
    lead: Any = None
    foll: Any = None

    def keep(self, pot: int, round_info, made: int, hand: tuple) -> int:
        from four21sim.exact.nplayer import in_play
        toks, before = round_info
        sol = in_play(self.solution, len(toks))
        return int(sol.keep((pot, tuple(toks)), len(before), tuple(HAND_INDEX[h] for h, _ in before),
                            tuple(f for _, f in before), made, HAND_INDEX[hand]))


def sec_policy() -> TablePolicy:
    """'sec': the leader always stops; followers (never consulted then) re-throw everything."""
    lead = np.empty((1, 2, 56), dtype=np.int64)
    lead[:] = FULL_KEEP + np.arange(56)
    foll = np.zeros((1, 56, 3, 2, 56), dtype=np.int64)  # keep index 0 = keep nothing
    return TablePolicy(lead=lead, foll=foll)


def random_policy() -> RandomPolicy:
    return RandomPolicy()


def _keeps_of(hand: tuple) -> list[int]:
    h = HAND_INDEX[hand]
    return [int(k) for k in HAND_KEEPS[h, : N_HAND_KEEPS[h]]]


def _check_keep(hand: tuple, keep: int) -> None:
    kept, have = Counter(KEEPS[keep]), Counter(hand)
    if any(n > have[d] for d, n in kept.items()):
        raise ValueError(f"policy chose keep {KEEPS[keep]} which is not part of hand {hand}")


def _is_stop(hand: tuple, keep: int) -> bool:
    return keep == FULL_KEEP + HAND_INDEX[hand]


def _context(policy, variant, pot: int, own: int, round_info=None) -> int:
    """The table row (docs/engine.md); ``round_info`` = (tokens by playing order, the
    (hand, throws) of the players before, in playing order) for context mode 2."""
    if policy.ctx_mode == 0:
        return 0
    if policy.ctx_mode == 1:
        return pot * (variant.tokens + 1) + own
    toks, before = round_info
    T = variant.tokens
    if len(toks) == 2:
        return toks[0]
    a, b = toks[0], toks[1]
    states_before = sum(1 for q in range(pot) for x in range(T - q + 1) for y in range(T - q + 1 - x))
    i = states_before + sum(1 for x in range(a) for y in range(T - pot + 1 - x)) + b
    f = 3 if variant.fewer_throws_wins else 1
    ctx = T + 1 + i * (1 + 56 * f)
    if len(before) == 2:
        h1, f1 = before[1]
        ctx += 1 + HAND_INDEX[h1] * f + (f1 - 1 if variant.fewer_throws_wins else 0)
    return ctx


def leader_decision(policy, variant, stream: Stream, hand: tuple, throws_left: int, pot: int, own: int,
                    round_info=None) -> int:
    if policy.kind == "random":
        keeps = _keeps_of(hand)
        return keeps[stream.draw(len(keeps))]
    if policy.kind == "solution":
        limit = variant.charge_throws if pot > 0 else variant.decharge_throws
        return policy.keep(pot, round_info, limit - throws_left, hand)
    ctx = _context(policy, variant, pot, own, round_info)
    return int(policy.lead[ctx, throws_left - 1, HAND_INDEX[hand]])


def follower_decision(policy, variant, stream: Stream, hand: tuple, target: tuple, count: int, made: int,
                      pot: int, own: int, round_info=None) -> int:
    if policy.kind == "random":
        keeps = _keeps_of(hand)
        if variant.followers == "exact":
            rethrows = keeps[1:]                 # stop is not allowed
            return rethrows[stream.draw(len(rethrows))]
        return keeps[stream.draw(len(keeps))]
    if policy.kind == "solution":
        return policy.keep(pot, round_info, made, hand)
    ctx = _context(policy, variant, pot, own, round_info)
    return int(policy.foll[ctx, HAND_INDEX[target], count - 1, made - 1, HAND_INDEX[hand]])


def throw_three(stream: Stream) -> tuple:
    return sort_hand(stream.dice(3))


def rethrow(stream: Stream, keep: int) -> tuple:
    """Keep the dice of ``KEEPS[keep]`` and throw the others."""
    kept = list(KEEPS[keep])
    new = stream.dice(3 - len(kept))
    return sort_hand(kept + new)


# =============================================================== judging a round
def _rescue_active(variant, hands: dict) -> bool:
    """The rules: "when no hand on the table is a combination, every 221 on the table ranks
    above all other hands of the round"."""
    return (bool(variant.nenette_rescue) and NENETTE in hands.values()
            and not any(is_combination(h) for h in hands.values()))


def standing(variant, hand: tuple, throws: int, rescue: bool) -> tuple:
    """How a player's hand stands in the round, as a pair compared left to right (lower is
    better): first whether it is a rescued 221 (above everything), then the ranking,
    then, with fewer_throws_wins only, the throws made."""
    rescued = rescue and hand == NENETTE
    return (0 if rescued else 1, RANK_OF[variant.ranking][hand], throws if variant.fewer_throws_wins else 0)


def worth(variant, hand: tuple, rescue: bool) -> int:
    """Tokens the hand is worth this round: a rescued 221 is worth 4."""
    return 4 if (rescue and hand == NENETTE) else value_of(hand, variant.values)


def round_payout(variant, phase: str, hands: dict, throws: dict, loser: int, winner: int) -> int:
    """Tokens that move this round (before the min with the pot or the winner's tokens)."""
    rescue = _rescue_active(variant, hands)
    payout = worth(variant, hands[winner], rescue)
    if variant.cumulative in (phase, "both"):
        payout += sum(w for p, h in hands.items() if p != winner and (w := worth(variant, h, rescue)) >= 2)
    if hands[loser] == NENETTE:
        payout = max(payout, variant.nenette_min)
    return payout


def _roll_off(stream: Stream, tied: list, ranking: str, want_worst: bool) -> int:
    """Players of ``tied`` (in playing order) throw once; keep the worst/best; repeat."""
    rank = RANK_OF[ranking]
    while len(tied) > 1:
        rolled = {p: rank[throw_three(stream)] for p in tied}
        target = max(rolled.values()) if want_worst else min(rolled.values())
        tied = [p for p in tied if rolled[p] == target]
    return tied[0]


def judge_round(variant, phase: str, hands: dict, throws: dict, order: list, stream: Stream):
    """(loser, winner, payout) of a round; ``order`` is the playing order (for roll-offs)."""
    rescue = _rescue_active(variant, hands)
    stand = {p: standing(variant, hands[p], throws[p], rescue) for p in order}
    worst = max(stand.values())
    loser = _roll_off(stream, [p for p in order if stand[p] == worst], variant.ranking, want_worst=True)
    others = [p for p in order if p != loser]
    best = min(stand[p] for p in others)
    winner = _roll_off(stream, [p for p in others if stand[p] == best], variant.ranking, want_worst=False)
    return loser, winner, round_payout(variant, phase, hands, throws, loser, winner)


# ===================================================================== a game
def _next_in_play(seat: int, out: list) -> int:
    n = len(out)
    for step in range(1, n + 1):
        s = (seat + step) % n
        if not out[s]:
            return s
    raise RuntimeError("nobody in play")


def play_game(variant, players: int, policies: Sequence, seed: int, game: int,
              max_rounds: int = 100_000, trace: list | None = None) -> list[int]:
    """Play one game; return its record row (RECORD_FIELDS, 23 ints).

    If ``trace`` is a list, one dict per round is appended to it (for tests).
    """
    if not 2 <= players <= MAX_SEATS:
        raise ValueError(f"players={players} outside 2..{MAX_SEATS}")
    if len(policies) != players:
        raise ValueError("one policy per seat")
    stream = Stream(seed, game)
    pot = variant.tokens
    tokens = [0] * players
    out = [False] * players
    out_groups: list[list[int]] = []
    leader = 0
    rounds = {"charge": 0, "decharge": 0}
    tok_end_charge = None
    event_hash = 0
    total_swing = 0

    while True:
        if rounds["charge"] + rounds["decharge"] >= max_rounds:
            raise RuntimeError(f"runaway game {game} (seed {seed}): more than {max_rounds} rounds")
        phase = "charge" if pot > 0 else "decharge"
        limit = variant.charge_throws if phase == "charge" else variant.decharge_throws
        order = [s % players for s in range(leader, leader + players) if not out[s % players]]
        assert order[0] == leader and len(order) >= 2
        hands: dict[int, tuple] = {}
        throws: dict[int, int] = {}

        # --- the leader
        pol = policies[leader]
        hand = throw_three(stream)
        made = 1
        while made < limit:
            keep = leader_decision(pol, variant, stream, hand, limit - made, pot, tokens[leader],
                                   ([tokens[s] for s in order], []))
            _check_keep(hand, keep)
            if _is_stop(hand, keep):
                break
            hand = rethrow(stream, keep)
            made += 1
        hands[leader], throws[leader] = hand, made
        count = made

        # --- the followers, in playing order
        rank = RANK_OF[variant.ranking]
        for p in order[1:]:
            target = max(hands.values(), key=lambda h: rank[h])  # worst hand on the table so far
            pol = policies[p]
            round_info = ([tokens[s] for s in order], [(hands[s], throws[s]) for s in order if s in hands])
            if pol.ctx_mode == 2:  # the 3-player equilibrium sees the leader's hand as its target
                target = hands[leader]
            hand = throw_three(stream)
            made = 1
            while made < count:
                keep = follower_decision(pol, variant, stream, hand, target, count, made, pot, tokens[p], round_info)
                _check_keep(hand, keep)
                if _is_stop(hand, keep):
                    if variant.followers == "exact":
                        raise ValueError(f"seat {p}: policy stops a follower under followers=exact")
                    break
                hand = rethrow(stream, keep)
                made += 1
            hands[p], throws[p] = hand, made

        # --- loser, winner, payout
        loser, winner, payout = judge_round(variant, phase, hands, throws, order, stream)

        # --- tokens
        if phase == "charge":
            swing = min(payout, pot)
            pot -= swing
            tokens[loser] += swing
        else:
            swing = min(payout, tokens[winner])
            tokens[winner] -= swing
            tokens[loser] += swing
        assert pot + sum(tokens) == variant.tokens
        rounds[phase] += 1
        total_swing += swing

        # --- going out
        went_out = []
        if phase == "charge" and pot == 0:
            tok_end_charge = list(tokens)
            went_out = [s for s in range(players) if tokens[s] == 0]
        elif phase == "decharge" and tokens[winner] == 0:
            went_out = [winner]
        for s in went_out:
            out[s] = True
        if went_out:
            out_groups.append(went_out)

        event_hash = mix64(event_hash ^ (loser + 8 * winner + 64 * leader + 512 * count + 4096 * swing))
        if trace is not None:
            trace.append(dict(phase=phase, leader=leader, order=order, hands=dict(hands), throws=dict(throws),
                              count=count, loser=loser, winner=winner, payout=payout, swing=swing,
                              pot=pot, tokens=list(tokens), went_out=went_out, hash=event_hash))

        # --- end?
        in_play = [s for s in range(players) if not out[s]]
        if variant.end == "first_out":
            if out_groups:
                break
        else:
            if len(in_play) <= 1:
                break

        # --- next leader
        if variant.next_leader == "loser":
            chosen = loser
        elif variant.next_leader == "winner":
            chosen = winner
        else:
            chosen = _next_in_play(leader, out)
        leader = chosen if not out[chosen] else _next_in_play(chosen, out)

    # --- results
    assert tok_end_charge is not None, "a game cannot end before its charge"
    in_play = [s for s in range(players) if not out[s]]
    if variant.end == "first_out":
        winners = [s for s in range(players) if out[s]]
        most = max(tokens[s] for s in in_play)
        losers = [s for s in in_play if tokens[s] == most]
    else:
        winners = out_groups[0]
        assert len(in_play) == 1
        losers = in_play
    win_mask = sum(1 << s for s in winners)
    lose_mask = sum(1 << s for s in losers)
    signed_hash = event_hash - (1 << 64) if event_hash >= (1 << 63) else event_hash
    pad = [0] * (MAX_SEATS - players)
    return ([rounds["charge"], rounds["decharge"], win_mask, lose_mask, total_swing, stream.draws, signed_hash]
            + tokens + pad + tok_end_charge + pad)


def play_games(variant, players: int, policies: Sequence, seed: int, games: int, start: int = 0,
               max_rounds: int = 100_000) -> np.ndarray:
    """Records of games ``start .. start+games-1`` as an int64 array of shape (games, 23)."""
    out = np.zeros((games, N_RECORD), dtype=np.int64)
    for i in range(games):
        out[i] = play_game(variant, players, policies, seed, start + i, max_rounds=max_rounds)
    return out
