"""The paying-seat test and the fairness score, as statistical procedures.

- size: with everyone playing 'sec' nobody decides anything, so every seat is alike by
  construction (docs/rules.md: roll-offs are fair, the leader's seat changes nothing
  when every count is 1); the joint test must then reject at about its nominal 5%.
  Over 48 independent runs the number of rejections is Binomial(48, 0.05) for an exact
  test: we require at most 7 (a correct test fails this with probability 0.0024).
- power: Super 421, 3 players, all greedy: seat 0 pays far less often than the others
  (about 28.5% against 35.7%); every run of 10,000 games must reject at the 0.1% level.
- coverage: Super 421, 2 players, all greedy: the exact P(seat 0 wins) comes from the
  solver's Markov chain (an independent computation), so the true paying-seat
  unfairness is |P(seat 0 pays) - 1/2|. Its 95% interval (simultaneous over the seats,
  coverage at least 95%) must cover it in at least 41 of 48 runs (Binomial(48, 0.95):
  probability 0.0024 of fewer for an exact 95% interval). Under the fair null its lower
  bound must reach 0 in most runs (at least 41 of 48, by the same bound).
- the helpers: Holm's adjustment against a hand-worked example, the F tail against
  closed forms.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from four21sim import Variant, simulate
from four21sim.engine.stats import equal_shares_test, f_sf, holm
from four21sim.policies import evaluate

GAMES, BLOCK = 10_000, 500


def test_seat_test_size_under_a_fair_null():
    rejected = 0
    runs = 0
    for players in (2, 3, 4, 6):
        for seed in range(12):
            res = simulate("super421", players, "sec", games=GAMES, seed=1000 * players + seed, block=BLOCK)
            p = res.seat_test("lose")["p"]
            assert 0.0 <= p <= 1.0
            rejected += p < 0.05
            runs += 1
    assert runs == 48
    assert rejected <= 7, f"{rejected} of 48 fair configurations rejected at the 5% level"


def test_seat_test_power_on_a_known_unfair_configuration():
    for seed in range(5):
        res = simulate("super421", 3, "greedy", games=GAMES, seed=seed, block=BLOCK)
        assert res.seat_test("lose")["p"] < 1e-3


def test_pay_unfairness_interval_covers_the_exact_value():
    v = Variant.from_preset("super421")
    truth = abs((1 - evaluate(v, ["greedy", "greedy"])["p_seat0"]) - 0.5)
    covered = 0
    for seed in range(48):
        value, lo, hi = simulate(v, 2, "greedy", games=GAMES, seed=500 + seed, block=BLOCK).pay_unfairness()
        assert lo <= value <= hi
        covered += lo <= truth <= hi
    assert covered >= 41, f"the 95% interval covered the exact value in {covered} of 48 runs"
    at_zero = sum(simulate(v, 3, "sec", games=GAMES, seed=900 + seed, block=BLOCK).pay_unfairness()[1] == 0.0
                  for seed in range(48))
    assert at_zero >= 41, f"the fair null's interval reached 0 in only {at_zero} of 48 runs"


def test_holm_hand_worked():
    got = holm([0.01, 0.04, 0.03, math.nan, 0.005])
    # sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1, made monotone: 0.02, 0.03, 0.06, 0.06
    assert np.allclose(got[[4, 0, 2, 1]], [0.02, 0.03, 0.06, 0.06]) and math.isnan(got[3])


def test_f_tail_closed_forms():
    # F(2, d2): sf(x) = (1 + 2x/d2) ** (-d2/2); F(d1, 2): sf(x) = 1 - (d1 x / (d1 x + 2)) ** (d1/2)
    for x in (0.1, 1.0, 3.7, 20.0):
        assert f_sf(x, 2, 9) == pytest.approx((1 + 2 * x / 9) ** -4.5, rel=1e-10)
        assert f_sf(x, 5, 2) == pytest.approx(1 - (5 * x / (5 * x + 2)) ** 2.5, rel=1e-9, abs=1e-14)


def test_equal_shares_test_two_seats_is_a_z_test():
    """With 2 seats the joint test is the square of the z statistic of seat 0's share."""
    mean, var, B = np.array([0.53, 0.47]), 1e-4, 400
    t = equal_shares_test(mean, np.array([[var, -var], [-var, var]]), B)
    assert t["stat"] == pytest.approx(0.03 ** 2 / var)
