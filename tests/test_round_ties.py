"""The round answer's tie rule, and the exact value of a table where one seat plays the round answer.

Where keeps tie exactly on the round (issue 47 item 3: seat 2 of four, 6 3 1 behind 654 and 521 with
one throw left: every keep of the 6 beats 521 surely), the round answer names the one whose final hand
is worth the most tokens on average, every later choice by the same rule
(:mod:`four21sim.exact.round_pick`). The witnesses are written here from the rules: every throw
enumerated with exact fractions (as tests/brute_keeps.py does), the hand order and the values of the
literal tables of tests/rules_tables.py; the game of one round is the brute-force tree of
tests/nplayer_tree.py.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest
from brute_keeps import srt
from rules_tables import POSITION, value_of

from four21sim import Variant
from four21sim.advice import advise
from four21sim.advice import site as site_mod
from four21sim.cli import advise as advise_cli
from four21sim.rules import dice

RULES = {"super421": ("super421", "super421", "exact"), "super421-lebon": ("super421", "super421", "at_most"),
         "classic": ("classic", "classic", "at_most"), "montreal": ("montreal", "super421", "exact")}


@lru_cache(maxsize=None)
def _best(h: tuple, left: int, target: tuple, rules: tuple) -> tuple:
    """(P(end strictly above target), E[value of the final hand]), every choice lexicographic."""
    ranking, scheme, _ = rules
    if left == 0:
        return Fraction(int(POSITION[ranking][h] < POSITION[ranking][target])), Fraction(value_of(h, scheme))
    return max(_options(h, left, target, rules).values())


@lru_cache(maxsize=None)
def _options(h: tuple, left: int, target: tuple, rules: tuple) -> dict:
    """{kept dice (all three: stop): (round chance, E[value])} by enumeration of every throw."""
    sizes = range(4) if rules[2] == "at_most" else range(3)
    out = {}
    for keep in {srt(c) for n in sizes for c in itertools.combinations(h, n)}:
        if len(keep) == 3:
            out[keep] = _best(h, 0, target, rules)
            continue
        new = list(itertools.product(range(1, 7), repeat=3 - len(keep)))
        pairs = [_best(srt(keep + t), left - 1, target, rules) for t in new]
        out[keep] = (sum(p for p, _ in pairs) / len(new), sum(e for _, e in pairs) / len(new))
    return out


def _kept(k, hand: tuple) -> tuple:
    return hand if k.stop else () if k.kept == "-" else tuple(int(c) for c in k.kept)


def test_the_issues_tie_names_the_keep_worth_the_most():
    # 6 3 1 behind 654 and 521, one throw left, 4 players: the round answer plays against 521
    adv = advise("631", beat=["654", "521"], throws_left=1, players=4)
    brute = _options((6, 3, 1), 1, (5, 2, 1), RULES["super421"])
    sure = {k: e for k, (p, e) in brute.items() if p == 1}
    # keeping the 6 beats 521 whatever falls; 6 3 x is plain (1 token), 6 x 1 is 611 (6) once in 6,
    # 6 x y is 666 or 611 (6) twice in 36 and 654 (2) twice: 11/6 > 4/3 > 1
    assert sure == {(6, 3): 1, (6, 1): Fraction(11, 6), (6,): Fraction(4, 3)}
    best = max(sure, key=sure.get)
    assert best == (6, 1)
    bp = adv.best
    assert _kept(bp.keep, (6, 3, 1)) == best
    assert {_kept(k, (6, 3, 1)) for k in bp.tied} == set(sure) - {best}
    assert [_kept(k, (6, 3, 1)) for k in adv.round[:3]] == sorted(sure, key=sure.get, reverse=True)
    assert "Of them, keep 6 _ 1 ends with the hand worth the most tokens on average (1.83, against 1.33 for " \
           "keep 6 _ _, 1.00 for keep 6 3 _)" in adv.explanation.replace("\n", " ")


def test_advise_json_and_text_name_the_same_keep():
    argv = ["631", "--throws-left", "1", "--beat", "654,521", "--players", "4"]
    js = advise_cli.advise(argv)
    assert js["best"]["keep"] == js["keeps"][0]["keep"] == "6 _ 1"
    assert js["best"]["ties_with"] == ["6 _ _", "6 3 _"]
    rule = js["best"]["tie_rule"]
    assert rule["measure"] == "E[value]"
    assert rule["values"] == pytest.approx({"6 _ 1": 11 / 6, "6 _ _": 4 / 3, "6 3 _": 1.0}, abs=1e-15)
    _, adv = advise_cli.compute(argv)
    from four21sim.advice.advisor import format_advice
    assert "Best play: keep 6 _ 1  ->  P(beat 521) = 100.00% (ties with 6 _ _, 6 3 _ on the round; more " \
           "E[value]: 1.83 against 1.33 for 6 _ _, 1.00 for 6 3 _)" in format_advice(adv, width=1000)


@pytest.mark.parametrize("preset", list(RULES))
def test_every_keep_in_the_rules_order(preset):
    # followers at random, one and two throws left: the round answer's keeps in the order of the pairs
    # (round chance, E[value]) enumerated here, and the first of them the best pair
    rng = random.Random(preset)
    hands = [srt(h) for h in itertools.combinations_with_replacement(range(1, 7), 3)]
    targets = rng.sample(hands, 3)
    changed = 0
    for target, m in itertools.product(targets, (1, 2)):
        for hand in rng.sample(hands, 8):
            adv = advise("".join(map(str, hand)), beat="".join(map(str, target)), throws_left=m, variant=preset,
                         phase="decharge")
            brute = _options(hand, m, target, RULES[preset])
            pairs = [brute[_kept(k, hand)] for k in adv.round]
            assert len(pairs) == len(brute)
            assert all(a >= b for a, b in zip(pairs, pairs[1:])), (hand, target, m)
            assert [k.value for k in adv.round] == [p for p, _ in pairs]
            tied = [k for k in adv.round if k.value == adv.round[0].value]
            # the keep order alone (stop, then more dice, then higher dice) would name another keep
            order = [int(k) for k in dice.HAND_KEEPS[dice.hand_index(hand)]]
            changed += min(tied, key=lambda k: order.index(k.index)) is not adv.round[0]
    assert changed  # the sample holds ties where the rule matters


def test_the_page_data_lists_the_advisors_order():
    v = Variant.from_preset("super421")
    row = site_mod.round_beat(v, dice.parse_hand("521"))["1"]["keeps"][dice.parse_hand("631")]
    adv = advise("631", beat="521", throws_left=1)
    assert row[::2] == [k.index for k in adv.round]
    assert dice.keep_label(dice.parse_hand("631"), row[0]) == "6 _ 1"


# ------------------------------------------------------------------ one seat plays the round answer
def _round_policy(v: Variant):
    """The round answer as a table in context mode 0 (the tree reads mode 0; the limits are equal)."""
    from four21sim.exact import round_pick
    from four21sim.policies.tables import table_policy
    assert v.charge_throws == v.decharge_throws
    lead, foll = round_pick.policy_tables(v)
    return table_policy("round answer", v, lead[:1], foll[:1], 0)


@pytest.mark.slow
def test_a_round_answer_seat_against_the_equilibrium_matches_the_game_tree():
    # one token, three players: one round, whose loser pays. The round-answer seat leads, so the others'
    # equilibrium keeps (each given the hands before it) are the tree's choices, whatever the leader plays
    from nplayer_tree import Tree

    from four21sim.exact import nplayer
    v = Variant.from_preset("super421", ["tokens=1"])
    pol = _round_policy(v)
    got = nplayer.evaluate(v, 3, [pol, "optimal", "optimal"])
    ref = Tree(v, [("table", pol), ("choose", "pay"), ("choose", "pay")]).value(1, (0, 0, 0), (0, 0, 0), 0)
    assert np.allclose(got["p_pay"], ref[:, 0], atol=1e-12, rtol=0), (got["p_pay"], ref[:, 0])
    assert np.allclose(got["p_win"], ref[:, 1], atol=1e-12, rtol=0)
    assert got["expected_rounds"] == pytest.approx(1.0, abs=1e-12)
    # the equilibrium against itself is its own value
    sol = nplayer.solve(v, 3)
    same = nplayer.evaluate(v, 3, ["optimal", sol, "equilibrium"])
    assert np.allclose(same["p_pay"], sol.seat_p_pay, atol=1e-12, rtol=0)
