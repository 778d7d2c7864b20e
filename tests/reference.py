"""A slow, plain-Python 421 engine: the obviously-correct twin of the numba engine.

Written from docs/rules.md and docs/engine.md alone. It plays the same games as the
numba engine from the same ``(seed, game)``, die for die, and returns the same
per-game records, so the two can be compared exactly.

Nothing here reads the engine. From ``four21sim.dice`` it only takes the *encodings*
that policies are written in (hand and keep indices: ``HANDS``, ``KEEPS``,
``FULL_KEEP``, ``HAND_KEEPS``/``N_HAND_KEEPS`` whose order the random policy depends
on). Rankings, values and categories are rebuilt here from docs/rules.md's tables (and
tests/test_reference.py checks they agree with ``dice.RANK``/``VALUE``/``CATEGORY``).
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

from four21sim.dice import FULL_KEEP, HAND_KEEPS, HANDS, KEEPS, N_HAND_KEEPS

__all__ = [
    "MASK64", "GAMMA", "mix64", "stream_key", "Stream",
    "ranking_order", "RANK_OF", "value_of", "is_combination", "category_of",
    "round_payout", "judge_round", "play_game", "play_games",
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
    """The per-game random stream of docs/engine.md."""

    BUDGET = 24  # bits of a word spent before the next word is taken

    def __init__(self, seed: int, game: int):
        self.key = stream_key(seed, game)
        self.k = 0        # index of the last word taken (words are numbered from 1)
        self.u = 0        # the current word
        self.used = self.BUDGET  # bits spent of the current word: the first draw takes word 1
        self.draws = 0    # draws made so far

    def word(self, k: int) -> int:
        """word(k) = mix64(key + k * GAMMA)."""
        return mix64((self.key + k * GAMMA) & MASK64)

    def draw(self, r: int) -> int:
        """A uniform integer in [0, r), 2 <= r <= 216, carved from the current word."""
        if not 2 <= r <= 216:
            raise ValueError(f"draw: r={r} outside 2..216")
        bits = (r - 1).bit_length()
        if self.used + bits > self.BUDGET:
            self.k += 1
            self.u = self.word(self.k)
            self.used = 0
        x = self.u * r                 # exact (Python ints)
        result = x >> 64
        self.u = x & MASK64
        self.used += bits
        self.draws += 1
        return result

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

SUITES = [(6, 5, 4), (5, 4, 3), (4, 3, 2), (3, 2, 1)]
NENETTE = (2, 2, 1)
FOUR21 = (4, 2, 1)


def category_of(h: tuple) -> str:
    a, b, c = h
    if h == FOUR21:
        return "421"
    if a == b == c:
        return "brelan"
    if b == c == 1:
        return "fiche"
    if h in SUITES:
        return "suite"
    if h == NENETTE:
        return "nenette"
    return "plain"


def is_combination(h: tuple) -> bool:
    """421, brelan, fiche or suite."""
    return category_of(h) in ("421", "brelan", "fiche", "suite")


def ranking_order(name: str) -> list[tuple]:
    """The 56 hands best first, transcribed from docs/rules.md's ranking table."""
    top = [FOUR21, (1, 1, 1)]
    for x in (6, 5, 4, 3, 2):
        fiche, brelan = (x, 1, 1), (x, x, x)
        if name == "super421":
            top += [fiche, brelan]          # 611, 666, 511, 555, ...
        elif name in ("montreal", "classic"):
            top += [brelan, fiche]          # 666, 611, 555, 511, ...
        else:
            raise ValueError(name)
    # plain hands "read as numbers", from 665 down to 322 (ALL_HANDS is in decreasing numeric order)
    plain = [h for h in ALL_HANDS if category_of(h) == "plain"]
    if name == "classic":
        order = top + SUITES + [NENETTE] + plain
    else:
        order = top + SUITES + plain + [NENETTE]
    assert len(order) == 56 and len(set(order)) == 56
    return order


RANK_OF = {name: {h: i for i, h in enumerate(ranking_order(name))} for name in ("super421", "montreal", "classic")}
"""RANK_OF[ranking][hand]: 0 for the best hand, 55 for the worst."""


def value_of(h: tuple, scheme: str) -> int:
    """Tokens a hand is worth (docs/rules.md's value table)."""
    cat = category_of(h)
    if cat == "421":
        return 8 if scheme == "super421" else 10
    if h == (1, 1, 1):
        return 7
    if cat in ("brelan", "fiche"):
        return h[0]
    if cat == "suite":
        return 2
    if cat == "nenette":
        return 1 if scheme == "super421" else 4
    return 1


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


def _context(policy, variant, pot: int, own: int) -> int:
    if policy.ctx_mode == 0:
        return 0
    return pot * (variant.tokens + 1) + own


def leader_decision(policy, variant, stream: Stream, hand: tuple, throws_left: int, pot: int, own: int) -> int:
    if policy.kind == "random":
        keeps = _keeps_of(hand)
        return keeps[stream.draw(len(keeps))]
    ctx = _context(policy, variant, pot, own)
    return int(policy.lead[ctx, throws_left - 1, HAND_INDEX[hand]])


def follower_decision(policy, variant, stream: Stream, hand: tuple, target: tuple, count: int, made: int,
                      pot: int, own: int) -> int:
    if policy.kind == "random":
        keeps = _keeps_of(hand)
        if variant.followers == "exact":
            rethrows = keeps[1:]                 # stop is not allowed
            return rethrows[stream.draw(len(rethrows))]
        return keeps[stream.draw(len(keeps))]
    ctx = _context(policy, variant, pot, own)
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
    return bool(variant.nenette_rescue) and not any(is_combination(h) for h in hands.values())


def round_keys_and_values(variant, hands: dict, throws: dict) -> tuple[dict, dict]:
    """Each player's key (lower is better) and val (tokens its hand is worth this round)."""
    rank = RANK_OF[variant.ranking]
    rescue = _rescue_active(variant, hands)
    keys, vals = {}, {}
    for p, h in hands.items():
        extra = throws[p] if variant.fewer_throws_wins else 0
        if rescue and h == NENETTE:
            keys[p] = extra - 4
            vals[p] = 4
        else:
            keys[p] = 4 * rank[h] + extra
            vals[p] = value_of(h, variant.values)
    return keys, vals


def round_payout(variant, phase: str, hands: dict, throws: dict, loser: int, winner: int) -> int:
    """Tokens that move this round (before the min with the pot or the winner's tokens)."""
    _, vals = round_keys_and_values(variant, hands, throws)
    payout = vals[winner]
    if variant.cumulative in (phase, "both"):
        payout += sum(v for p, v in vals.items() if p != winner and v >= 2)
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
    keys, _ = round_keys_and_values(variant, hands, throws)
    worst = max(keys[p] for p in order)
    loser = _roll_off(stream, [p for p in order if keys[p] == worst], variant.ranking, want_worst=True)
    others = [p for p in order if p != loser]
    best = min(keys[p] for p in others)
    winner = _roll_off(stream, [p for p in others if keys[p] == best], variant.ranking, want_worst=False)
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
            keep = leader_decision(pol, variant, stream, hand, limit - made, pot, tokens[leader])
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
            hand = throw_three(stream)
            made = 1
            while made < count:
                keep = follower_decision(pol, variant, stream, hand, target, count, made, pot, tokens[p])
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
