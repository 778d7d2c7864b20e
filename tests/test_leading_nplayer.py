"""The value of leading at n players (``exact.leading.lead_values_n``, ``lead_summary_n``).

Witnesses: at 3 players, the brute-force game tree (tests/test_leading.py); at 4 players the
expected rounds of the chain add up to the solver's expected rounds of a game (computed there
by another linear system), and the first round's lead value is the seats' P(pay) from the start.
"""

from __future__ import annotations

import numpy as np
import pytest

from four21sim import Variant
from four21sim.cli.solve import analyse, format_text
from four21sim.exact import leading, nplayer


def test_four_player_lead_values_add_up():
    v = Variant.from_preset("super421", ["tokens=4"])
    sol = nplayer.solve(v, 4)
    lv = leading.lead_values_n(sol)
    assert lv["visits"].sum() == pytest.approx(sol.expected_rounds, abs=1e-10)  # first_out: all in to the end
    summary = leading.lead_summary_n(sol)
    p = sol.seat_p_pay
    assert summary["first_round"] == pytest.approx(p[1:].mean() - p[0], abs=1e-12)
    assert set(summary["by_phase"]) == {"charge", "decharge"}
    with pytest.raises(ValueError, match="objective 'pay'"):
        leading.lead_summary_n(nplayer.solve(v, 4, "win"))


def test_solve_prints_the_value_of_leading_at_four_players():
    out = analyse(["--set", "tokens=4", "--players", "4", "--json"])
    lv = out["lead_value"]
    p = [s["p_pay"] for s in out["seats"]]
    assert lv["first_round"] == pytest.approx(np.mean(p[1:]) - p[0], abs=1e-12) and lv["round1_loser_wins"] is None
    assert "Value of leading (exact)" in format_text(out)
    assert f"The first round's loser pays {100 * lv['round1_loser_pays']:.2f}% of the games" in format_text(out)
    assert analyse(["--set", "tokens=4", "--players", "4", "--objective", "win", "--json"])["lead_value"] is None


@pytest.mark.parametrize("preset", ["super421", "classic"])
def test_the_first_rounds_loser_pays_as_the_two_player_solver_says(preset):
    v = Variant.from_preset(preset, ["tokens=5"])
    assert leading.round1_loser_pays(nplayer.solve(v, 2)) == pytest.approx(1 - leading.round1_loser_wins(v),
                                                                            abs=1e-12)


def test_with_one_token_the_first_rounds_loser_pays():
    v = Variant.from_preset("super421", ["tokens=1"])
    assert leading.round1_loser_pays(nplayer.solve(v, 4)) == pytest.approx(1.0, abs=1e-12)
