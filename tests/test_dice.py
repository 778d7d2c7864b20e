"""Tests of four21sim.rules.dice against docs/rules.md.

Every expected number here comes from docs/rules.md or from plain-Python enumeration
written in this file, never from the tables under test.
"""

import itertools
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from rules_tables import PLAIN, RANKING_TEXT

from four21sim.rules import dice

# ----------------------------------------------------------------- references
# The rankings of the rules' table, best first, written out hand by hand (tests/rules_tables.py).
EXPECTED_ORDERS = RANKING_TEXT

ALL_HANDS = sorted(
    {tuple(sorted(t, reverse=True)) for t in itertools.product(range(1, 7), repeat=3)}, reverse=True
)
SUITES = {(6, 5, 4), (5, 4, 3), (4, 3, 2), (3, 2, 1)}


def name(t):
    return "".join(map(str, t))


def ref_category(t):
    a, b, c = t
    if t == (4, 2, 1):
        return "421"
    if a == b == c:
        return "brelan"
    if b == c == 1:
        return "fiche"
    if t in SUITES:
        return "suite"
    if t == (2, 2, 1):
        return "nenette"
    return "plain"


def ref_value(t, scheme):
    """docs/rules.md's value table."""
    cat = ref_category(t)
    if cat == "421":
        return {"super421": 8, "classic": 10}[scheme]
    if t == (1, 1, 1):
        return 7
    if cat in ("brelan", "fiche"):
        return t[0]
    if cat == "suite":
        return 2
    if cat == "nenette":
        return {"super421": 1, "classic": 4}[scheme]
    return 1


def H(text):
    return dice.hand_index(tuple(int(c) for c in text))


# ----------------------------------------------------------------- rankings
def test_literal_rankings_are_permutations_of_the_56_hands():
    all_names = sorted(name(t) for t in ALL_HANDS)
    assert len(all_names) == 56
    for order in EXPECTED_ORDERS.values():
        assert sorted(order.split()) == all_names


def test_plain_order_built_independently_matches_literal():
    combos = {"421", "111", "222", "333", "444", "555", "666",
              "211", "311", "411", "511", "611", "654", "543", "432", "321"}
    triples = {"".join(map(str, sorted(t, reverse=True))) for t in itertools.product(range(1, 7), repeat=3)}
    plain = sorted((t for t in triples if t not in combos and t != "221"), key=int, reverse=True)
    assert len(plain) == 39
    assert " ".join(plain) == PLAIN


@pytest.mark.parametrize("ranking", ["super421", "montreal", "classic"])
def test_order_matches_rules(ranking):
    r = dice.ranking_index(ranking)
    got = [dice.hand_name(int(h)) for h in dice.ORDER[r]]
    assert got == EXPECTED_ORDERS[ranking].split()


@pytest.mark.parametrize("ranking", ["super421", "montreal", "classic"])
def test_rank_is_inverse_of_order(ranking):
    r = dice.ranking_index(ranking)
    expected = EXPECTED_ORDERS[ranking].split()
    for pos, hname in enumerate(expected):
        assert dice.RANK[r, H(hname)] == pos
    np.testing.assert_array_equal(np.sort(dice.RANK[r]), np.arange(56))


def test_ranking_specific_facts():
    sup, mon, cla = (dice.ranking_index(n) for n in ("super421", "montreal", "classic"))
    # super421: fiche above brelan at each value; montreal/classic: brelan above fiche.
    for x in range(2, 7):
        f, b = H(f"{x}11"), H(f"{x}{x}{x}")
        assert dice.RANK[sup, f] < dice.RANK[sup, b]
        assert dice.RANK[mon, b] < dice.RANK[mon, f]
        assert dice.RANK[cla, b] < dice.RANK[cla, f]
    # 221 last in super421/montreal, right after the suites in classic.
    assert dice.RANK[sup, H("221")] == 55
    assert dice.RANK[mon, H("221")] == 55
    assert dice.RANK[cla, H("221")] == 16
    assert dice.RANK[cla, H("322")] == 55
    for r in (sup, mon, cla):
        assert dice.RANK[r, H("421")] == 0
        assert dice.RANK[r, H("111")] == 1


def test_ranking_names_and_errors():
    assert dice.RANKINGS == ("super421", "montreal", "classic")
    assert dice.VALUE_SCHEMES == ("super421", "classic")
    with pytest.raises(ValueError, match="ranking.*'nope'"):
        dice.ranking_index("nope")
    with pytest.raises(ValueError, match="values.*'nope'"):
        dice.values_index("nope")


# ----------------------------------------------------------------- categories
@pytest.mark.parametrize("hand,cat,combo", [
    ("421", "421", True), ("111", "brelan", True), ("666", "brelan", True), ("222", "brelan", True),
    ("211", "fiche", True), ("611", "fiche", True), ("411", "fiche", True),
    ("654", "suite", True), ("543", "suite", True), ("432", "suite", True), ("321", "suite", True),
    ("221", "nenette", False), ("665", "plain", False), ("322", "plain", False), ("422", "plain", False),
    ("631", "plain", False), ("653", "plain", False), ("441", "plain", False), ("112", "fiche", True),
])
def test_category_of_specific_hands(hand, cat, combo):
    h = dice.parse_hand(hand)
    assert dice.CATEGORY_NAMES[dice.CATEGORY[h]] == cat
    assert dice.is_combination(h) is combo


def test_categories_of_all_hands():
    counts = Counter()
    for t in ALL_HANDS:
        h = dice.hand_index(t)
        c = ref_category(t)
        counts[c] += 1
        assert dice.CATEGORY_NAMES[dice.CATEGORY[h]] == c
        assert dice.is_combination(h) == (c in ("421", "brelan", "fiche", "suite"))
    assert counts == {"421": 1, "brelan": 6, "fiche": 5, "suite": 4, "nenette": 1, "plain": 39}


# ----------------------------------------------------------------- values
SUPER421_VALUES = {"421": 8, "111": 7, "611": 6, "511": 5, "411": 4, "311": 3, "211": 2,
                   "666": 6, "555": 5, "444": 4, "333": 3, "222": 2,
                   "654": 2, "543": 2, "432": 2, "321": 2, "221": 1, "665": 1, "322": 1, "631": 1}
CLASSIC_VALUES = dict(SUPER421_VALUES, **{"421": 10, "221": 4})


@pytest.mark.parametrize("scheme,table", [("super421", SUPER421_VALUES), ("classic", CLASSIC_VALUES)])
def test_value_table_literal(scheme, table):
    s = dice.values_index(scheme)
    for hname, v in table.items():
        assert dice.VALUE[s, H(hname)] == v, hname


@pytest.mark.parametrize("scheme", ["super421", "classic"])
def test_value_table_all_hands(scheme):
    s = dice.values_index(scheme)
    for t in ALL_HANDS:
        assert dice.VALUE[s, dice.hand_index(t)] == ref_value(t, scheme), t
    assert {name(t) for t in ALL_HANDS if ref_value(t, scheme) == 1} - {"221"} == set(PLAIN.split())


# ----------------------------------------------------------------- one throw
def test_one_throw_probabilities_from_outcome_hand():
    assert dice.OUTCOME_HAND.shape == (216,)
    counts = Counter(int(h) for h in dice.OUTCOME_HAND)
    p = {h: Fraction(c, 216) for h, c in counts.items()}
    assert p[H("421")] == Fraction(6, 216)
    for x in range(1, 7):
        assert p[H(f"{x}{x}{x}")] == Fraction(1, 216)
    assert sum(p[H(s)] for s in ("654", "543", "432", "321")) == Fraction(24, 216)
    assert p[H("221")] == Fraction(3, 216)
    assert sum(p.get(H(s), 0) for s in PLAIN.split()) == Fraction(162, 216)
    assert sum(p.values()) == 1


def test_one_throw_probabilities_from_throw_distribution():
    dist = dice.throw_distribution()
    assert all(isinstance(v, Fraction) for v in dist.values())
    assert sum(dist.values()) == 1
    assert dist[H("421")] == Fraction(6, 216)
    assert dist[H("555")] == Fraction(1, 216)
    assert dist[H("111")] == Fraction(1, 216)
    assert sum(dist[H(s)] for s in ("654", "543", "432", "321")) == Fraction(24, 216)
    assert dist[H("221")] == Fraction(3, 216)
    assert sum(dist.get(H(s), 0) for s in PLAIN.split()) == Fraction(162, 216)


def test_outcome_encoding():
    for d0, d1, d2 in itertools.product(range(1, 7), repeat=3):
        o = 36 * (d0 - 1) + 6 * (d1 - 1) + (d2 - 1)
        assert dice.hand_name(int(dice.OUTCOME_HAND[o])) == name(sorted((d0, d1, d2), reverse=True))


# ----------------------------------------------------------------- hands and keeps
def test_sizes():
    assert dice.N_HANDS == 56 == len(dice.HANDS)
    assert dice.N_KEEPS == 84 == len(dice.KEEPS)  # 1 + 6 + 21 + 56
    assert dice.HANDS[0] == (6, 6, 6) and dice.HANDS[55] == (1, 1, 1)
    assert [name(t) for t in dice.HANDS] == [name(t) for t in ALL_HANDS]
    sizes = Counter(len(k) for k in dice.KEEPS)
    assert sizes == {0: 1, 1: 6, 2: 21, 3: 56}
    np.testing.assert_array_equal(dice.KEEP_SIZE, [len(k) for k in dice.KEEPS])


def test_full_keep():
    for h in range(56):
        k = dice.FULL_KEEP + h
        assert dice.KEEPS[k] == dice.HANDS[h]
        assert dice.keep_index(dice.HANDS[h]) == k
        assert dice.keep_label(h, k) == "stop"


def test_hand_keeps_are_the_distinct_sub_multisets():
    for h, t in enumerate(dice.HANDS):
        expected = {tuple(sorted(c, reverse=True)) for n in range(4) for c in itertools.combinations(t, n)}
        ks = dice.keeps_of(h)
        assert len(ks) == len(set(ks)) == dice.N_HAND_KEEPS[h] == len(expected)
        assert {dice.KEEPS[k] for k in ks} == expected
        assert ks[0] == dice.FULL_KEEP + h  # stop first
        assert dice.keeps_of(h, allow_stop=False) == ks[1:]
    assert dice.N_HAND_KEEPS[H("631")] == 8
    assert dice.N_HAND_KEEPS[H("661")] == 6
    assert dice.N_HAND_KEEPS[H("666")] == 4


def test_keep_result_and_throw_counts_brute_force():
    for k, kept in enumerate(dice.KEEPS):
        n = 3 - len(kept)
        counts = Counter()
        for r, new in enumerate(itertools.product(range(1, 7), repeat=n)):
            t = tuple(sorted(kept + new, reverse=True))
            assert dice.HANDS[dice.KEEP_RESULT[k, r]] == t
            counts[name(t)] += 1
        assert np.all(dice.KEEP_RESULT[k, 6 ** n:] == -1)
        assert dice.THROW_COUNTS[k].sum() == 6 ** n == dice.KT_DENOM[k]
        got = {dice.hand_name(h): int(c) for h, c in enumerate(dice.THROW_COUNTS[k]) if c}
        assert got == dict(counts)
        dist = dice.throw_distribution(k)
        assert {dice.hand_name(h): p for h, p in dist.items()} == {s: Fraction(c, 6 ** n) for s, c in counts.items()}


# ----------------------------------------------------------------- text
@pytest.mark.parametrize("text", ["421", "124", "4-2-1", "4 2 1", (4, 2, 1), [1, 2, 4], " 2,4,1 "])
def test_parse_hand_accepts(text):
    h = dice.parse_hand(text)
    assert dice.hand_name(h) == "421"
    assert h == dice.hand_index((4, 2, 1))


@pytest.mark.parametrize("text", ["731", "0 2 1", "4211", "42", "abc", "", (4, 2, 7), "4 2 1 1"])
def test_parse_hand_rejects(text):
    with pytest.raises(ValueError) as info:
        dice.parse_hand(text, "--beat")
    msg = str(info.value)
    assert "--beat" in msg
    assert repr(text) in msg


def test_hand_names():
    assert dice.hand_name(dice.hand_index((1, 2, 4))) == "421"
    assert dice.hand_name(dice.hand_index((1, 6, 1))) == "611"
    assert [dice.hand_name(h) for h in range(56)] == [name(t) for t in ALL_HANDS]


def test_keep_labels():
    h421 = dice.parse_hand("421")
    assert dice.keep_label(h421, dice.keep_index((2, 1))) == "_ 2 1"
    assert dice.keep_label(h421, dice.keep_index((4,))) == "4 _ _"
    assert dice.keep_label(h421, dice.keep_index(())) == "_ _ _"
    assert dice.keep_label(h421, dice.keep_index((4, 2, 1))) == "stop"
    h611 = dice.parse_hand("611")
    assert dice.keep_label(h611, dice.keep_index((1,))) == "_ 1 _"
    assert dice.keep_label(h611, dice.keep_index((1, 1))) == "_ 1 1"
    assert dice.keep_name(dice.keep_index((1, 2))) == "21"
    assert dice.keep_name(dice.keep_index(())) == "-"
