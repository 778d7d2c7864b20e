"""Tests of the plain-Python reference engine (tests/reference.py) and of the exact
all-"sec" Markov chain (tests/markov.py), needing no numba engine."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import markov
import numpy as np
import pytest
import reference as R

from four21sim import Variant
from four21sim.rules import dice

PRESETS = ("super421", "super421-lebon", "montreal", "classic")
IDX = {f: i for i, f in enumerate(R.RECORD_FIELDS)}


# ================================================================ the stream
def _words_by_formula(seed: int, game: int, n: int) -> list[int]:
    """docs/engine.md's formulas transcribed with numpy uint64 arrays (wrapping arithmetic)."""
    u = np.uint64

    def mix(z):
        z = np.array([z], dtype=np.uint64)
        z = (z ^ (z >> u(30))) * u(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> u(27))) * u(0x94D049BB133111EB)
        return (z ^ (z >> u(31)))[0]

    def rotl(x, k):
        return (x << u(k)) | (x >> u(64 - k))

    gamma = u(0x9E3779B97F4A7C15)
    key = mix(mix(u(seed)) + u(game))
    s0, s1 = mix(key + gamma), mix(key + gamma + gamma)
    words = []
    for _ in range(n):
        words.append(int(rotl(s0 + s1, 17) + s0))
        s1 = s1 ^ s0
        s0, s1 = rotl(s0, 49) ^ s1 ^ (s1 << u(21)), rotl(s1, 28)
    return words


def test_stream_words_match_formula():
    with np.errstate(over="ignore"):
        for seed, game in [(0, 0), (0, 1), (12345, 0), (2**63 + 5, 77)]:
            s = R.Stream(seed, game)
            assert [s.word() for _ in range(6)] == _words_by_formula(seed, game, 6)


def test_stream_seed0_game0_is_xoroshiro128pp_seeded_by_splitmix64_of_zero():
    # key(0, 0) = mix64(mix64(0) + 0) = 0, so game 0 of seed 0 is xoroshiro128++ seeded with
    # SplitMix64's first two outputs from 0: Bitcoin Core's test of its xoroshiro128++
    # (src/test/xoroshiro128plusplus_tests.cpp, "numbers generated from reference
    # implementation") seeds it that way from 0 and publishes these outputs.
    s = R.Stream(0, 0)
    assert s.key == 0
    assert [s.word() for _ in range(4)] == [0x6F68E1E7E2646EE1, 0xBF971B7F454094AD, 0x48F2DE556F30DE38,
                                           0x6EA7C59F89BBFC75]


def test_xoroshiro128pp_from_state_1_2_gives_the_published_outputs():
    # the rand_xoshiro crate's reference test of Xoroshiro128PlusPlus (state s0 = 1, s1 = 2),
    # values produced with Blackman and Vigna's C implementation
    s = R.Stream(0, 0)
    s.s0, s.s1 = 1, 2
    assert [s.word() for _ in range(3)] == [393217, 669327710093319, 1732421326133921491]


def test_draws_read_the_top_32_bits_of_a_word_each():
    s, w = R.Stream(0, 0), R.Stream(0, 0)
    rs = [6, 216, 36, 2, 8, 216, 3, 6, 216, 216, 7, 36]
    got = [s.draw(r) for r in rs]
    # transcription with exact fractions: x = (word >> 32) / 2**32 in [0, 1); result = floor(x * r)
    expected = [int(Fraction(w.word() >> 32, 2**32) * r) for r in rs]
    assert got == expected
    assert s.draws == len(rs)


def test_dice_are_base6_digits_of_one_draw():
    a, b = R.Stream(9, 9), R.Stream(9, 9)
    for n in (1, 2, 3):
        o = b.draw(6 ** n)
        digits = [(o // 6 ** (n - 1 - i)) % 6 + 1 for i in range(n)]
        assert a.dice(n) == digits


def test_draws_within_range_and_roughly_uniform():
    s = R.Stream(42, 3)
    for r in (2, 3, 4, 5, 6, 7, 8, 36):
        counts = Counter(s.draw(r) for _ in range(r * 2000))
        assert set(counts) == set(range(r))
        # each cell expects 2000 (sd ~ 44): generous bounds
        assert all(1750 < c < 2250 for c in counts.values()), counts
    faces = Counter(s.die() for _ in range(6000))
    assert set(faces) == set(range(1, 7))
    with pytest.raises(ValueError):
        s.draw(1)
    with pytest.raises(ValueError):
        s.draw(217)


# ===================================================== the rules as rebuilt here
def test_own_rankings_values_categories_agree_with_dice_tables():
    for ri, name in enumerate(dice.RANKINGS):
        for h, hand in enumerate(dice.HANDS):
            assert R.RANK_OF[name][hand] == dice.RANK[ri, h], (name, hand)
    for vi, scheme in enumerate(dice.VALUE_SCHEMES):
        for h, hand in enumerate(dice.HANDS):
            assert R.value_of(hand, scheme) == dice.VALUE[vi, h], (scheme, hand)
    for h, hand in enumerate(dice.HANDS):
        assert R.category_of(hand) == dice.CATEGORY_NAMES[dice.CATEGORY[h]]


def test_ranking_spot_checks_from_rules():
    sup, mon, cla = R.RANK_OF["super421"], R.RANK_OF["montreal"], R.RANK_OF["classic"]
    assert sup[(4, 2, 1)] == 0 and sup[(1, 1, 1)] == 1 and sup[(6, 1, 1)] == 2 and sup[(6, 6, 6)] == 3
    assert mon[(6, 6, 6)] == 2 and mon[(6, 1, 1)] == 3
    assert sup[(2, 2, 1)] == 55 and mon[(2, 2, 1)] == 55
    assert cla[(2, 2, 1)] == 16 and cla[(3, 2, 2)] == 55 and cla[(6, 6, 5)] == 17
    assert sup[(3, 2, 1)] == 15 and sup[(6, 6, 5)] == 16 and sup[(3, 2, 2)] == 54


# ========================================================= hand-built rounds
def _judge(variant, phase, hands, throws=None, stream=None):
    hands = {p: R.sort_hand(h) for p, h in enumerate(hands)}
    throws = throws or {p: 1 for p in hands}
    stream = stream or R.Stream(0, 0)
    loser, winner, payout = R.judge_round(variant, phase, hands, throws, list(hands), stream)
    return loser, winner, payout, stream.draws


def test_montreal_cumulative_example():
    # docs/rules.md: "411 and a suite against a plain hand: the loser takes 4 + 2 = 6"
    mon = Variant.from_preset("montreal")
    assert _judge(mon, "charge", [(4, 1, 1), (6, 5, 4), (6, 3, 2)]) == (2, 0, 6, 0)
    assert _judge(mon, "decharge", [(6, 3, 2), (4, 1, 1), (6, 5, 4)]) == (0, 1, 6, 0)
    sup = Variant.from_preset("super421")      # not cumulative: the winner's value only
    assert _judge(sup, "charge", [(4, 1, 1), (6, 5, 4), (6, 3, 2)]) == (2, 0, 4, 0)


def test_classic_cumulative_only_in_decharge_and_counts_221_as_4():
    cla = Variant.from_preset("classic")
    hands = [(4, 2, 1), (2, 2, 1), (5, 3, 2), (6, 6, 1)]  # 421=10, 221=4 (ranks above plain), two plains
    assert _judge(cla, "charge", hands)[:3] == (2, 0, 10)  # 532 is the worst plain
    assert _judge(cla, "decharge", hands)[:3] == (2, 0, 14)  # 10 + 4; plains (1) do not count
    # the loser's own hand counts when worth 2 or more
    assert _judge(cla, "decharge", [(5, 5, 5), (6, 5, 4)])[:3] == (1, 0, 7)


def test_nenette_min():
    sup = Variant.from_preset("super421")      # nenette_min = 2, 221 ranks last
    assert _judge(sup, "charge", [(6, 6, 6), (2, 2, 1)])[:3] == (1, 0, 6)
    assert _judge(sup, "charge", [(5, 3, 2), (2, 2, 1)])[:3] == (1, 0, 2)
    assert _judge(sup.with_options({"nenette_min": 0}), "charge", [(5, 3, 2), (2, 2, 1)])[:3] == (1, 0, 1)
    assert _judge(sup.with_options({"nenette_min": 9}), "decharge", [(2, 2, 1), (4, 2, 1)])[:3] == (0, 1, 9)


def test_nenette_rescue():
    mon = Variant.from_preset("montreal")      # rescue, cumulative in both phases
    # no combination on the table: 221 beats every other hand and is worth 4
    assert _judge(mon, "charge", [(6, 5, 3), (2, 2, 1)])[:3] == (0, 1, 4)
    # a combination on the table: no rescue, 221 is last; nenette_min 2 vs 6 + 0
    assert _judge(mon, "charge", [(6, 1, 1), (2, 2, 1)])[:3] == (1, 0, 6)
    assert _judge(mon, "charge", [(3, 2, 1), (2, 2, 1)])[:3] == (1, 0, 2)
    # two rescued 221s tie for best (roll-off), each worth 4, cumulative: 4 + 4
    loser, winner, payout, draws = _judge(mon, "charge", [(2, 2, 1), (6, 5, 3), (2, 2, 1)])
    assert loser == 1 and winner in (0, 2) and payout == 8 and draws >= 2
    # without rescue the same hands: 221 is last; 222 wins and is worth 2, cumulative adds
    # nothing (653 and 221 are worth 1), nenette_min 2 keeps it at 2
    plain = mon.with_options({"nenette_rescue": False})
    assert _judge(plain, "charge", [(2, 2, 1), (6, 5, 3), (2, 2, 2)])[:3] == (0, 2, 2)
    assert _judge(plain.with_options({"nenette_min": 5}), "charge", [(2, 2, 1), (6, 5, 3), (2, 2, 2)])[:3] == (0, 2, 5)


def test_fewer_throws_wins_splits_equal_hands():
    cla = Variant.from_preset("classic")
    hands = [(6, 6, 6), (6, 6, 6), (5, 3, 2)]
    assert _judge(cla, "charge", hands, {0: 2, 1: 1, 2: 1})[:3] == (2, 1, 6)
    assert _judge(cla, "charge", hands, {0: 1, 1: 2, 2: 1})[:3] == (2, 0, 6)
    # equal throws: a roll-off between 0 and 1
    _, winner, _, draws = _judge(cla, "charge", hands, {0: 1, 1: 1, 2: 1})
    assert winner in (0, 1) and draws >= 2
    # throws split equal hands, never different hands: 532 in 1 throw still loses to 666 in 3
    assert _judge(cla, "charge", [(6, 6, 6), (5, 3, 2)], {0: 3, 1: 1})[:2] == (1, 0)


def test_loser_roll_off_follows_stream():
    sup = Variant.from_preset("super421")
    hands = [(6, 5, 3), (6, 5, 3), (4, 2, 1)]
    for game in range(20):
        # the expected roll-off, computed by hand from a twin stream
        twin = R.Stream(5, game)
        tied = [0, 1]
        while len(tied) > 1:
            rolled = {p: R.RANK_OF["super421"][R.sort_hand(twin.dice(3))] for p in tied}
            worst = max(rolled.values())
            tied = [p for p in tied if rolled[p] == worst]
        loser, winner, payout, draws = _judge(sup, "charge", hands, stream=R.Stream(5, game))
        assert (loser, winner, payout, draws) == (tied[0], 2, 8, twin.draws)


# ===================================================== whole games: invariants
def _rethrow_all_policy():
    """Leader and followers always re-throw all three dice (never stop unless 421)."""
    lead = np.zeros((1, 2, 56), dtype=np.int64)
    foll = np.zeros((1, 56, 3, 2, 56), dtype=np.int64)
    h421 = dice.hand_index((4, 2, 1))
    lead[:, :, h421] = dice.FULL_KEEP + h421
    return R.TablePolicy(lead=lead, foll=foll)


def _context_policy(variant):
    """Context mode 1: the leader stops iff it holds more tokens than the pot; else re-throws all."""
    n = variant.tokens
    lead = np.zeros(((n + 1) ** 2, 2, 56), dtype=np.int64)
    for pot in range(n + 1):
        for own in range(n + 1):
            if own > pot:
                lead[pot * (n + 1) + own] = dice.FULL_KEEP + np.arange(56)
    foll = np.zeros(((n + 1) ** 2, 56, 3, 2, 56), dtype=np.int64)
    return R.TablePolicy(lead=lead, foll=foll, ctx_mode=1)


def _check_records(variant, players, rec):
    n = variant.tokens
    tok = rec[:, IDX["tok0"]: IDX["tok0"] + 8]
    ctok = rec[:, IDX["charge_tok0"]: IDX["charge_tok0"] + 8]
    assert (tok[:, players:] == 0).all() and (ctok[:, players:] == 0).all()
    assert (tok.sum(axis=1) == n).all() and (ctok.sum(axis=1) == n).all()
    assert (tok >= 0).all() and (ctok >= 0).all()
    assert (rec[:, IDX["rounds_charge"]] >= 1).all() and (rec[:, IDX["rounds_decharge"]] >= 0).all()
    assert (rec[:, IDX["swing"]] >= n).all()  # the charge alone moves every token once
    assert (rec[:, IDX["draws"]] >= players).all()
    seats = (1 << players) - 1
    for row, t, ct in zip(rec, tok, ctok):
        win, lose = int(row[IDX["win_mask"]]), int(row[IDX["lose_mask"]])
        assert win and lose and not (win & lose) and not ((win | lose) & ~seats)
        zero = sum(1 << s for s in range(players) if t[s] == 0)
        if variant.end == "first_out":
            # those out hold nothing; those in hold something; losers hold the most
            assert win == zero
            most = max(t[:players])
            assert lose == sum(1 << s for s in range(players) if t[s] == most and not win >> s & 1)
        else:
            assert bin(lose).count("1") == 1 and t[lose.bit_length() - 1] == n
            charge_out = sum(1 << s for s in range(players) if ct[s] == 0)
            if charge_out:
                assert win == charge_out
            else:
                assert bin(win).count("1") == 1


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("players", [2, 3, 4, 8])
def test_games_end_and_conserve_tokens_random(preset, players):
    v = Variant.from_preset(preset)
    rec = R.play_games(v, players, [R.random_policy()] * players, seed=players, games=200)
    assert rec.shape == (200, 23) and rec.dtype == np.int64
    _check_records(v, players, rec)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("players", [2, 3, 8])
def test_games_end_and_conserve_tokens_mixed_tables(preset, players):
    v = Variant.from_preset(preset)
    kinds = [R.random_policy(), R.sec_policy(), _rethrow_all_policy(), _context_policy(v)]
    pols = [kinds[s % 4] for s in range(players)]
    rec = R.play_games(v, players, pols, seed=99, games=80)
    _check_records(v, players, rec)


@pytest.mark.parametrize("opts", [
    {"next_leader": "winner"}, {"next_leader": "next_seat"}, {"end": "last_holder"}, {"end": "first_out"},
    {"tokens": 1}, {"tokens": 3}, {"cumulative": "both", "nenette_rescue": True},
    {"fewer_throws_wins": True, "decharge_throws": 2},
])
def test_games_end_under_options(opts):
    for preset in ("super421", "classic"):
        v = Variant.from_preset(preset, opts)
        for players in (2, 5):
            rec = R.play_games(v, players, [R.random_policy()] * players, seed=1, games=60)
            _check_records(v, players, rec)


def test_one_token_two_players_is_one_round():
    v = Variant.from_preset("super421", {"tokens": 1})
    rec = R.play_games(v, 2, [R.random_policy()] * 2, seed=3, games=50)
    assert (rec[:, IDX["rounds_charge"]] == 1).all() and (rec[:, IDX["rounds_decharge"]] == 0).all()
    assert ((rec[:, IDX["win_mask"]] | rec[:, IDX["lose_mask"]]) == 3).all()


def test_games_depend_only_on_seed_and_index():
    v = Variant.from_preset("montreal")
    pols = [R.random_policy()] * 3
    full = R.play_games(v, 3, pols, seed=11, games=12)
    part = R.play_games(v, 3, pols, seed=11, games=5, start=7)
    np.testing.assert_array_equal(full[7:], part)
    assert not np.array_equal(full, R.play_games(v, 3, pols, seed=12, games=12))


def test_exact_followers_may_not_stop():
    v = Variant.from_preset("super421")          # followers = exact, leader re-throws
    stopper = R.TablePolicy(lead=np.zeros((1, 2, 56), dtype=np.int64),
                            foll=np.broadcast_to(dice.FULL_KEEP + np.arange(56), (1, 56, 3, 2, 56)).copy())
    with pytest.raises(ValueError, match="exact"):
        R.play_game(v, 2, [stopper, stopper], seed=0, game=0)
    # the same tables are fine under at_most
    R.play_game(v.with_options({"followers": "at_most"}), 2, [stopper, stopper], seed=0, game=0)


def test_runaway_raises():
    v = Variant.from_preset("classic")
    with pytest.raises(RuntimeError, match="runaway"):
        R.play_game(v, 2, [R.random_policy()] * 2, seed=0, game=0, max_rounds=2)


@pytest.mark.parametrize("rule", ["loser", "winner", "next_seat"])
@pytest.mark.parametrize("preset", ["super421-lebon", "classic"])
def test_round_trace_leaders_order_hash(rule, preset):
    v = Variant.from_preset(preset, {"next_leader": rule})
    players = 5
    for game in range(40):
        trace: list = []
        row = R.play_game(v, players, [R.random_policy()] * players, seed=8, game=game, trace=trace)
        out = [False] * players
        h = 0
        for i, t in enumerate(trace):
            # playing order: the leader, then the seats after it still in, wrapping
            assert t["order"] == [s % players for s in range(t["leader"], t["leader"] + players)
                                  if not out[s % players]]
            assert t["count"] == t["throws"][t["leader"]]
            for p in t["order"][1:]:
                if v.followers == "exact":
                    assert t["throws"][p] == t["count"]
                else:
                    assert 1 <= t["throws"][p] <= t["count"]
            assert t["loser"] != t["winner"]
            h = R.mix64(h ^ (t["loser"] + 8 * t["winner"] + 64 * t["leader"] + 512 * t["count"] + 4096 * t["swing"]))
            assert h == t["hash"]
            for s in t["went_out"]:
                out[s] = True
            if i + 1 < len(trace):
                start = {"loser": t["loser"], "winner": t["winner"]}.get(rule)
                if start is None:             # next_seat: the first seat after the leader still in
                    start = next(s % players for s in range(t["leader"] + 1, t["leader"] + players + 1)
                                 if not out[s % players])
                expected = next(s % players for s in range(start, start + players) if not out[s % players])
                assert trace[i + 1]["leader"] == expected, (game, i)
        assert row[IDX["event_hash"]] == (h - 2**64 if h >= 2**63 else h)
        assert row[IDX["swing"]] == sum(t["swing"] for t in trace)
        assert row[IDX["rounds_charge"]] == sum(t["phase"] == "charge" for t in trace)
        assert trace[0]["leader"] == 0


# ====================================================== the Markov chain
def test_round_outcome_distribution_is_symmetric():
    for preset in PRESETS:
        v = Variant.from_preset(preset)
        for phase in ("charge", "decharge"):
            d = markov.round_outcome_distribution(v, phase)
            assert sum(d.values()) == 1
            for (loser, pay), p in d.items():
                assert d.get((1 - loser, pay)) == p and pay >= 1


def test_markov_one_token():
    e = markov.expected_rounds(Variant.from_preset("super421", {"tokens": 1}))
    assert e == {"charge": 1, "decharge": 0, "total": 1}


def test_markov_two_tokens_by_hand():
    # tokens=2, every payout >= 1. The charge lasts one round if the first payout is >= 2
    # (the other player is out at once), else two. After two 1-token charge rounds the
    # holdings are 1-1 when the second loser is the other seat (probability 1/2 by
    # symmetry); then the first décharge round empties its winner: one décharge round.
    v = Variant.from_preset("super421", {"tokens": 2})
    d = markov.round_outcome_distribution(v, "charge")
    p1 = sum(p for (_, pay), p in d.items() if pay == 1)
    e = markov.expected_rounds(v)
    assert e["charge"] == 1 + p1
    assert e["decharge"] == p1 * Fraction(1, 2)  # second loser is the other seat half the time


def test_markov_exact_and_float_agree():
    v = Variant.from_preset("classic")
    e, f = markov.expected_rounds(v), markov.expected_rounds(v, exact=False)
    assert abs(float(e["total"]) - f["total"]) < 1e-9


@pytest.mark.parametrize("preset, opts", [
    ("super421", {}), ("classic", {}), ("montreal", {}),
    ("super421", {"tokens": 5, "ranking": "classic", "cumulative": "both", "nenette_min": 3}),
])
def test_reference_sec_matches_markov(preset, opts):
    # 8000 games of the reference with both players 'sec' against the exact expectation
    # of tests/markov.py, for the charge length and the total length.
    # |mean - E| < 4 standard errors: a correct engine fails one comparison with
    # probability about 6e-5 (normal approximation, 99.994% confidence); the seed is
    # fixed, so the test is deterministic anyway.
    v = Variant.from_preset(preset, opts)
    exp = markov.expected_rounds(v)
    rec = R.play_games(v, 2, [R.sec_policy(), R.sec_policy()], seed=2024, games=8000)
    charge = rec[:, IDX["rounds_charge"]].astype(float)
    total = charge + rec[:, IDX["rounds_decharge"]]
    for name, sample in (("charge", charge), ("total", total)):
        se = sample.std(ddof=1) / np.sqrt(len(sample))
        assert abs(sample.mean() - float(exp[name])) < 4 * se, (preset, name, sample.mean(), float(exp[name]), se)
