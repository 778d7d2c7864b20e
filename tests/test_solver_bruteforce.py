"""An independent check of the exact 2-player solver (four21sim.exact.two_player): every state's value,
expected rounds and decision values against the plain-Python game-tree search of
tests/two_player_search.py, written from docs/rules.md and docs/engine.md alone (its docstring
says how it searches and why the expected rounds are compared with an interval).
"""

from __future__ import annotations

from functools import lru_cache

import pytest
from two_player_search import (
    FIRST,
    H221,
    H421,
    PLAIN,
    SUITES,
    VARIANTS,
    brute_force,
    live_states,
    rethrows,
    throw_dist,
    var,
)

from four21sim.exact.two_player import solve
from four21sim.rules import dice


# ====================================================================== the comparison
@pytest.fixture(scope="module", params=list(VARIANTS))
def case(request):
    v = VARIANTS[request.param]
    return v, brute_force(v), solve(v)


def test_every_state_value(case):
    v, bf, sol = case
    assert set(bf) == set(live_states(v.tokens))
    for s, (val, *_rest) in bf.items():
        assert 0.0 <= val <= 1.0
        assert sol.value[s] == pytest.approx(val, abs=1e-9), f"{v}: state {s}"
    T = v.tokens
    assert sol.p_seat0 == pytest.approx(bf[(T, 0, 0)][0], abs=1e-9)
    for s in live_states(T):  # the other seat's view of the same state
        pot, t0, t1 = s
        assert sol.state_value(pot, t0, t1, leader=1) == pytest.approx(1.0 - bf[(pot, t1, t0)][0], abs=1e-9)


def test_every_state_rounds(case):
    v, bf, sol = case
    for s, (_val, rmin, rmax, _lv, _fv) in bf.items():
        # the chosen variants have no ties that change the game's length: the interval
        # is a point and the comparison exact (see the module docstring)
        assert rmax - rmin < 1e-9, f"{v}: state {s}: optimal policies differ in length"
        assert rmin - 1e-9 <= sol.rounds[s] <= rmax + 1e-9, f"{v}: state {s}: {sol.rounds[s]} vs [{rmin}, {rmax}]"
    T = v.tokens
    assert sol.expected_rounds == pytest.approx(bf[(T, 0, 0)][1], abs=1e-9)
    if T == 1:
        assert sol.expected_rounds == 1.0


def test_decision_values(case):
    """The solver's leader values per (hand, throws made) and follower values per target."""
    v, bf, sol = case
    T = v.tokens
    for (pot, a, b), (_val, _r0, _r1, lv, fv) in bf.items():
        L = v.charge_throws if pot else v.decharge_throws
        cl, cf = pot * (T + 1) + a, pot * (T + 1) + b
        for (made, h), x in lv.items():
            got = sol.lead_value[cl, made - 1, dice.hand_index(h)]
            assert got == pytest.approx(x, abs=1e-9), f"{v}: state {(pot, a, b)}, leader holds {h} after {made}"
        for (hl, c), x in fv.items():
            assert 1 <= c <= L
            got = sol.foll_value[cf, dice.hand_index(hl), c - 1]
            assert got == pytest.approx(x, abs=1e-9), f"{v}: state {(pot, a, b)}, follower vs {hl} in {c}"


def test_published_one_round_lebon():
    """docs/rules.md: 2 players, super421-lebon, tokens=1: the leader wins about 60.0044 %."""
    v = VARIANTS["lebon-t1"]
    p = brute_force(v)[(1, 0, 0)][0]
    assert abs(p - 0.600044) < 5e-7
    assert abs(solve(v).p_seat0 - 0.600044) < 5e-7


# ====================================================================== first principles


def test_brute_force_dice():
    """The search's dice against docs/rules.md's reference facts."""
    first = dict(FIRST)
    assert first[H421] == 6 / 216 and first[(6, 6, 6)] == 1 / 216 and first[H221] == 3 / 216
    assert sum(first[h] for h in SUITES) == pytest.approx(24 / 216, abs=1e-15)
    assert sum(first[h] for h in PLAIN) == pytest.approx(162 / 216, abs=1e-15)

    @lru_cache(maxsize=None)
    def chase(h, left):  # P(421) chasing it alone with ``left`` throws to go
        if h == H421 or left == 0:
            return float(h == H421)
        return max(sum(p * chase(h2, left - 1) for h2, p in throw_dist(k)) for k in rethrows(h))

    assert sum(p * chase(h, 2) for h, p in FIRST) == pytest.approx(42571 / 186624, abs=1e-15)


@pytest.mark.parametrize("preset", ["super421", "super421-lebon", "montreal", "classic"])
def test_one_sec_round_is_a_coin_flip(preset):
    """tokens=1, charge_throws=1: both throw once, no decision, the loser loses: 1/2."""
    v = var(preset, "tokens=1", "charge_throws=1")
    sol = solve(v)
    assert sol.p_seat0 == pytest.approx(0.5, abs=1e-12)
    assert sol.expected_rounds == 1.0
    assert brute_force(v)[(1, 0, 0)][0] == pytest.approx(0.5, abs=1e-15)


@pytest.mark.parametrize("preset", ["super421", "montreal", "classic"])
@pytest.mark.parametrize("next_leader", ["loser", "winner"])
def test_sec_charge_is_symmetric(preset, next_leader):
    """With a sec charge, the charge's rounds do not depend on who leads, and the
    décharge's first leader is the loser or the winner of the last charge round,
    whatever the seats: the game is symmetric and seat 0 wins with probability 1/2."""
    sol = solve(var(preset, "charge_throws=1", f"next_leader={next_leader}"))
    assert sol.p_seat0 == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize("preset", ["super421", "super421-lebon", "montreal", "classic"])
@pytest.mark.parametrize("next_leader", ["loser", "winner", "next_seat"])
def test_values_are_probabilities(preset, next_leader):
    v = var(preset, f"next_leader={next_leader}")
    sol = solve(v)
    assert 0.0 <= sol.p_seat0 <= 1.0
    for s in live_states(v.tokens):
        assert -1e-12 <= sol.value[s] <= 1.0 + 1e-12
        assert sol.rounds[s] >= 1.0
