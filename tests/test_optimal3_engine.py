"""The 3-player equilibrium as an engine policy (context mode 2, docs/engine.md).

Two independent witnesses: the plain-Python reference engine (tests/reference.py,
which reads the tables by the rows docs/engine.md defines) plays the same games
die for die; and simulated P(pay) per seat agrees with the solver's exact values
(|z| <= 4, a bound that a correct engine exceeds with probability below 1e-4 per seat).
"""

from __future__ import annotations

import math

import pytest
from engine_twin import check_twin

from four21sim import Variant, simulate
from four21sim.exact.nplayer import solve


@pytest.mark.parametrize("preset", ["super421", "super421-lebon", "montreal", "classic"])
def test_engine_plays_the_equilibrium_like_the_reference(preset):
    variant = Variant.from_preset(preset, {"tokens": 4})
    for names in (["optimal"] * 3, ["greedy", "optimal", "random"]):
        check_twin(variant, 3, names, seed=5, games=100, label=f"{preset} tokens=4, 3 players")


@pytest.mark.parametrize("preset,tokens", [("super421", 4), ("classic", 5)])
def test_simulated_p_pay_matches_the_exact_equilibrium(preset, tokens):
    v = Variant.from_preset(preset, {"tokens": tokens})
    exact = solve(v, 3).seat_p_pay
    games = 100_000
    m = simulate(v, players=3, policies="optimal", games=games, seed=21).measures()
    share = m[m.measure == "lose_share"].set_index("seat")["value"]
    for seat in range(3):
        se = math.sqrt(exact[seat] * (1 - exact[seat]) / games)  # shares of 1/2 only shrink the variance
        assert abs(share[seat] - exact[seat]) <= 4 * se, (seat, share[seat], exact[seat])
