"""The engine against the n-player solver's exact evaluation, at 4 players.

The engine plays a fixed line-up of table policies; :func:`four21sim.policies.evaluate_lineup`
computes every seat's exact P(pay) for the same line-up by its own route (compact follower
contexts, outcome distributions, a linear system), sharing only the rules kernel and the
policy tables with the engine. Mixed line-ups, so that no symmetry makes the seats equal.
"""

from __future__ import annotations

import numpy as np
import pytest

from four21sim import Variant, simulate
from four21sim.policies import evaluate_lineup

LINEUP = ["greedy", "sec", "table-aware", "chase421"]
GAMES = 200_000
# |z| <= 4.5 for each of the 4 seats of each of 2 variants: a correct engine fails with
# probability below 8 * 6.8e-6 = 5.4e-5 (two-sided normal tail at 4.5, Bonferroni).
Z_MAX = 4.5


@pytest.mark.parametrize("preset", ["super421", "classic"])
def test_each_seat_pays_as_the_exact_evaluation_says_at_four_players(preset):
    # few tokens so that the exact evaluation takes seconds; classic keeps its cumulative payout,
    # fewer-throws rule and last-holder end, Super 421 its exact followers and first-out end
    v = Variant.from_preset(preset, ["tokens=4"])
    exact = np.array(evaluate_lineup(v, 4, LINEUP)["p_pay"])
    assert exact.sum() == pytest.approx(1.0, abs=1e-12)
    seats = simulate(v, players=4, policies=LINEUP, games=GAMES, seed=2024).seats()
    got = seats["lose_share"].to_numpy()  # a game's payers share it (ties), as the solver counts
    se = (seats["lose_share_high"] - seats["lose_share_low"]).to_numpy() / 3.92
    z = (got - exact) / se
    assert np.all(np.abs(z) <= Z_MAX), (preset, exact, got, z)
    assert np.ptp(exact) > 0.03  # the line-up makes the seats differ: the check can see a seat swap
