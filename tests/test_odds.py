"""Tests of four21sim.exact.odds: exact single-turn odds.

The expectations come from the reference facts of docs/rules.md, from reasoning by hand, and
from a slow brute force written here: every keep sequence enumerated, every throw of
the re-thrown dice enumerated with itertools.product, probabilities as Fractions.
"""

import itertools
import random
from collections import Counter
from fractions import Fraction
from functools import lru_cache

import pytest
from rules_tables import POSITION

from four21sim import Variant
from four21sim.exact import odds
from four21sim.rules import dice

# ----------------------------------------------------------------- reference rules
SUITES = {(6, 5, 4), (5, 4, 3), (4, 3, 2), (3, 2, 1)}


def ref_value(t, scheme):
    a, b, c = t
    if t == (4, 2, 1):
        return 8 if scheme == "super421" else 10
    if t == (1, 1, 1):
        return 7
    if a == b == c or b == c == 1:
        return a
    if t in SUITES:
        return 2
    if t == (2, 2, 1):
        return 1 if scheme == "super421" else 4
    return 1


def ref_reward(objective, target=None, ranking="super421", values="super421"):
    """Score of a final hand (a sorted-desc tuple), from the rules alone."""
    if objective == "421":
        return lambda t: Fraction(int(t == (4, 2, 1)))
    if objective in ("beat", "reach"):
        tgt = POSITION[ranking][tuple(int(c) for c in target)]
    if objective == "beat":
        return lambda t: Fraction(int(POSITION[ranking][t] < tgt))
    if objective == "reach":
        return lambda t: Fraction(int(POSITION[ranking][t] <= tgt))
    if objective == "value":
        return lambda t: Fraction(ref_value(t, values))
    raise AssertionError(objective)


# ----------------------------------------------------------------- brute force
def srt(dice_):
    return tuple(sorted(dice_, reverse=True))


def sub_keeps(hand):
    """Every distinct sub-multiset of the held dice (0 to 3 dice)."""
    return {srt(c) for n in range(4) for c in itertools.combinations(hand, n)}


@lru_cache(maxsize=None)
def throws_from(kept):
    """Counter of the hand after re-throwing the other dice, over every ordered throw."""
    return Counter(srt(kept + new) for new in itertools.product(range(1, 7), repeat=3 - len(kept)))


class BruteForce:
    """Optimal play of one turn, by enumerating every keep at every step."""

    def __init__(self, reward, followers):
        self.reward = reward
        self.followers = followers
        self.options = lru_cache(maxsize=None)(self._options)
        self.best = lru_cache(maxsize=None)(self._best)

    def _options(self, hand, m):
        """{keep: value} for every legal keep of ``hand`` with ``m`` >= 1 throws left."""
        out = {}
        for keep in sub_keeps(hand):
            if len(keep) == 3:
                if self.followers == "at_most":  # stopping: the hand is final
                    out[keep] = self.reward(hand)
                continue
            n = 3 - len(keep)
            total = sum(c * self.best(h2, m - 1) for h2, c in throws_from(keep).items())
            out[keep] = Fraction(total) / 6 ** n
        return out

    def _best(self, hand, m):
        if m == 0:
            return self.reward(hand)
        return max(self.options(hand, m).values())

    def start(self, throws):
        outcomes = list(itertools.product(range(1, 7), repeat=3))
        return sum(self.best(srt(o), throws - 1) for o in outcomes) / Fraction(len(outcomes))


# objective, target, ranking, values
OBJECTIVES = [
    ("421", None, "super421", "super421"),
    ("beat", "611", "super421", "super421"),
    ("beat", "221", "classic", "classic"),
    ("beat", "665", "montreal", "super421"),
    ("reach", "543", "montreal", "super421"),
    ("reach", "611", "classic", "classic"),
    ("value", None, "super421", "super421"),
    ("value", None, "classic", "classic"),
]
FOLLOWERS = ["at_most", "exact"]

_ALL_HANDS = sorted({srt(t) for t in itertools.product(range(1, 7), repeat=3)}, reverse=True)
SAMPLE_HANDS = sorted(set(random.Random(421).sample(_ALL_HANDS, 6)) | {(4, 2, 1), (6, 3, 1)}, reverse=True)

_BF = {}


def brute(objective, target, ranking, values, followers):
    key = (objective, target, ranking, values, followers)
    if key not in _BF:
        _BF[key] = BruteForce(ref_reward(objective, target, ranking, values), followers)
    return _BF[key]


def code_args(objective, target, ranking, values, followers, exact):
    tgt = dice.parse_hand(target) if target is not None else None
    return dict(objective=objective, target=tgt, ranking=ranking, values=values, followers=followers, exact=exact)


def advice_args(objective, target, ranking, values, followers, exact):
    """The same question for keep_advice: hand strings and a variant, as the command line takes them."""
    return dict(objective=objective, target=target, followers=followers, exact=exact,
                variant=Variant.from_preset("super421", {"ranking": ranking, "values": values}))


def advice_by_keep(hand, m, args):
    rows = odds.keep_advice("".join(map(str, hand)), m, **args)
    got = {dice.KEEPS[r.index]: r.value for r in rows}
    assert len(got) == len(rows)
    for r in rows:  # readable keeps
        assert r.keep == dice.keep_label(dice.hand_index(hand), r.index)
        assert r.stop == (len(dice.KEEPS[r.index]) == 3)
    return rows, got


# ----------------------------------------------------------------- reference facts
def test_chasing_421_in_three_throws_rules_fact():
    t = odds.turn_odds("421", exact=True)
    assert t.start_value(3) == Fraction(42571, 186624)
    assert abs(odds.turn_odds("421").start_value(3) - 42571 / 186624) < 1e-12


def test_chasing_421_brute_force_agrees_with_rules_fact():
    bf = brute("421", None, "super421", "super421", "at_most")
    assert bf.start(3) == Fraction(42571, 186624)
    assert bf.start(1) == Fraction(6, 216)


@pytest.mark.parametrize("obj", OBJECTIVES, ids=lambda o: "-".join(str(x) for x in o))
@pytest.mark.parametrize("followers", FOLLOWERS)
def test_start_value_matches_brute_force(obj, followers):
    bf = brute(*obj, followers)
    exact_odds = odds.turn_odds(**code_args(*obj, followers, True))
    float_odds = odds.turn_odds(**code_args(*obj, followers, False))
    for throws in (1, 2, 3):
        expected = bf.start(throws)
        assert exact_odds.start_value(throws) == expected
        assert abs(float_odds.start_value(throws) - float(expected)) < 1e-12


# ----------------------------------------------------------------- every keep, sampled hands
@pytest.mark.parametrize("obj", OBJECTIVES, ids=lambda o: "-".join(str(x) for x in o))
@pytest.mark.parametrize("followers", FOLLOWERS)
def test_keep_advice_matches_brute_force(obj, followers):
    bf = brute(*obj, followers)
    for hand in SAMPLE_HANDS:
        for m in (1, 2):
            expected = bf.options(hand, m)
            rows, got = advice_by_keep(hand, m, advice_args(*obj, followers, True))
            assert got == expected, (hand, m)
            assert all(isinstance(v, Fraction) for v in got.values())
            # best first, and the first row is optimal
            values = [r.value for r in rows]
            assert values == sorted(values, reverse=True)
            assert values[0] == bf.best(hand, m)
            # the same in floats
            frows, fgot = advice_by_keep(hand, m, advice_args(*obj, followers, False))
            assert set(fgot) == set(expected)
            for keep, v in expected.items():
                assert abs(fgot[keep] - float(v)) < 1e-12, (hand, m, keep)
            assert abs(frows[0].value - float(bf.best(hand, m))) < 1e-12


@pytest.mark.parametrize("obj", OBJECTIVES, ids=lambda o: "-".join(str(x) for x in o))
@pytest.mark.parametrize("followers", FOLLOWERS)
def test_value_tables_all_hands_match_brute_force(obj, followers):
    bf = brute(*obj, followers)
    t = odds.turn_odds(**code_args(*obj, followers, True))
    assert t.followers == followers
    for h, hand in enumerate(dice.HANDS):
        for m in (0, 1, 2):
            assert t.value[m][h] == bf.best(hand, m), (hand, m)
            if m:
                # the chosen keep is legal and optimal
                k = t.best_keep[m][h]
                assert dice.KEEPS[k] in bf.options(hand, m)
                assert bf.options(hand, m)[dice.KEEPS[k]] == bf.best(hand, m)


@pytest.mark.parametrize("followers", FOLLOWERS)
def test_exact_solve_of_unlike_fractions_matches_brute_force(followers):
    """Scores with unlike denominators (halves like a leader's round, thirds to sixths) and many ties:
    the exact solve stays exact, and of equal keeps it picks the first in HAND_KEEPS order."""
    def reward(t):
        pos = POSITION["super421"][t]
        return Fraction(pos % 5, 2 + pos % 5)

    bf = BruteForce(reward, followers)
    t = odds.solve_turn([reward(hand) for hand in dice.HANDS], followers, exact=True)
    for h, hand in enumerate(dice.HANDS):
        for m in (1, 2):
            options = bf.options(hand, m)
            assert {dice.KEEPS[k]: v for k, v in t.keep_values[m][h].items()} == options, (hand, m)
            assert t.value[m][h] == bf.best(hand, m)
            legal = dice.keeps_of(h, allow_stop=followers == "at_most")
            assert t.best_keep[m][h] == next(k for k in legal if options[dice.KEEPS[k]] == bf.best(hand, m))
            rows = odds.keep_advice(dice.hand_name(h), m, objective="beat", target="221", followers=followers,
                                    exact=True)
            # best first, equal chances in HAND_KEEPS order
            assert [(-r.value, legal.index(r.index)) for r in rows] == sorted((-r.value, legal.index(r.index))
                                                                             for r in rows)
    for throws in (1, 2, 3):
        assert t.start_value(throws) == bf.start(throws)


# ----------------------------------------------------------------- distributions
@pytest.mark.parametrize("obj", OBJECTIVES[:2] + OBJECTIVES[4:7:2], ids=lambda o: "-".join(str(x) for x in o))
@pytest.mark.parametrize("followers", FOLLOWERS)
@pytest.mark.parametrize("exact", [True, False])
def test_distributions_sum_to_one_and_give_the_value(obj, followers, exact):
    t = odds.turn_odds(**code_args(*obj, followers, exact))
    reward = odds.reward_vector(obj[0], code_args(*obj, followers, exact)["target"], obj[2], obj[3], exact)
    ref = ref_reward(*obj)
    assert [float(r) for r in reward] == [float(ref(hand)) for hand in dice.HANDS]
    tol = 0 if exact else 1e-12
    for h in range(dice.N_HANDS):
        for m in (0, 1, 2):
            dist = t.final_distribution(h, m)
            assert len(dist) == 56
            assert all(p >= 0 for p in dist)
            assert abs(sum(dist) - 1) <= tol
            assert abs(sum(p * r for p, r in zip(dist, reward)) - t.value[m][h]) <= tol
    for throws in (1, 2, 3):
        dist = t.start_distribution(throws)
        assert abs(sum(dist) - 1) <= tol
        assert abs(sum(p * r for p, r in zip(dist, reward)) - t.start_value(throws)) <= tol
    if exact:
        # one throw: the plain throw distribution
        dist = t.start_distribution(1)
        counts = Counter(srt(o) for o in itertools.product(range(1, 7), repeat=3))
        assert {dice.HANDS[h]: p for h, p in enumerate(dist) if p} == {k: Fraction(c, 216) for k, c in counts.items()}


# ----------------------------------------------------------------- facts by hand
@pytest.mark.parametrize("obj", OBJECTIVES, ids=lambda o: "-".join(str(x) for x in o))
def test_zero_throws_left_is_the_reward(obj):
    ref = ref_reward(*obj)
    for followers in FOLLOWERS:
        for h, hand in enumerate(dice.HANDS):
            rows = odds.keep_advice(dice.hand_name(h), 0, **advice_args(*obj, followers, True))
            assert [(r.index, r.value, r.keep) for r in rows] == [(dice.FULL_KEEP + h, ref(hand), "stop")]


@pytest.mark.parametrize("m", [1, 2])
def test_421_holder_at_most_stops(m):
    h = dice.parse_hand("421")
    rows = odds.keep_advice("421", m, "421", followers="at_most", exact=True)
    assert (rows[0].index, rows[0].value) == (dice.FULL_KEEP + h, Fraction(1))
    assert rows[0].keep == "stop" and rows[0].stop
    assert len(rows) == 8


def test_421_holder_exact_one_throw_keeps_two_dice():
    h = dice.parse_hand("421")
    rows = odds.keep_advice("421", 1, "421", followers="exact", exact=True)
    assert len(rows) == 7  # no stop
    assert not any(r.stop for r in rows)
    best_keep, best = rows[0].index, rows[0].value
    assert best == Fraction(1, 6)
    assert dice.KEEP_SIZE[best_keep] == 2
    by_keep = {r.kept: r.value for r in rows}
    # keep two dice: the third must be the missing one, 1/6; keep 4: the other two
    # dice must be {2, 1}: 2/36; keep nothing: 6/216; keep 2 or 1: 2/36.
    assert by_keep == {"42": Fraction(1, 6), "41": Fraction(1, 6), "21": Fraction(1, 6),
                       "4": Fraction(2, 36), "2": Fraction(2, 36), "1": Fraction(2, 36),
                       "-": Fraction(6, 216)}
    # tie order: higher dice first
    assert dice.keep_label(h, best_keep) == "4 2 _"


def test_one_throw_from_nothing_value_objective():
    # E[value] of one throw under super421 values, by hand: 421 8*6, 111 7, brelans and
    # fiches x (fiche x11 has 3 orders), suites 2*6 each, everything else 1.
    total = 8 * 6 + 7 * 1 + sum(x * 1 + x * 3 for x in range(2, 7)) + 2 * 24
    rest = 216 - 6 - 1 - 5 * 4 - 24
    expected = Fraction(total + rest, 216)
    assert odds.turn_odds("value", values="super421", exact=True).start_value(1) == expected


# ----------------------------------------------------------------- bad input
def test_bad_objective():
    with pytest.raises(ValueError, match="objective.*'foo'"):
        odds.keep_advice("666", 1, "foo")
    with pytest.raises(ValueError, match="objective"):
        odds.turn_odds("foo")


@pytest.mark.parametrize("m", [5, -1, 3, True, 1.0])
def test_bad_throws_left(m):
    with pytest.raises(ValueError, match="throws_left"):
        odds.keep_advice("666", m, "421")


@pytest.mark.parametrize("objective", ["beat", "reach"])
def test_target_needed(objective):
    with pytest.raises(ValueError, match="target"):
        odds.keep_advice("666", 1, objective)


def test_bad_followers_and_throws():
    with pytest.raises(ValueError, match="followers.*'sometimes'"):
        odds.turn_odds("421", followers="sometimes")
    with pytest.raises(ValueError, match="throws"):
        odds.turn_odds("421").start_value(4)
    with pytest.raises(ValueError, match="throws"):
        odds.turn_odds("421").start_distribution(0)
    with pytest.raises(ValueError, match="ranking"):
        odds.turn_odds("beat", target=0, ranking="nope")


# ----------------------------------------------------------------- the command line's conventions
def test_keep_advice_takes_what_the_command_line_takes():
    # the question: 631, two throws left, behind a 611, super421 (exact followers):
    # keep the ace, 7/48 (14.58%), the same number `four21sim advise 631 --beat 611` prints
    rows = odds.keep_advice("631", 2, beat="611", exact=True)
    assert rows[0].keep == "_ _ 1" and rows[0].kept == "1" and rows[0].value == Fraction(7, 48)
    assert odds.keep_advice("6-3-1", 2, "beat", "611", exact=True) == rows
    assert odds.keep_advice(631, 2, target="116", exact=True) == rows
    # le bon ('at_most'): 31/144, only when asked for
    assert odds.keep_advice("631", 2, beat="611", variant="super421-lebon", exact=True)[0].value == Fraction(31, 144)
    assert odds.keep_advice("631", 2, beat="611", followers="at_most", exact=True)[0].value == Fraction(31, 144)
    # no target: 421, as on the command line
    assert odds.keep_advice("631", 1)[0].keep == odds.keep_advice("631", 1, objective="421")[0].keep


@pytest.mark.parametrize("bad,word", [("71", "hand"), ("4211", "hand"), (0, "hand")])
def test_keep_advice_bad_hands_are_value_errors(bad, word):
    with pytest.raises(ValueError, match=word):
        odds.keep_advice(bad, 1)
