"""The fairness counters and tables against independent witnesses.

- the per-game covariance of the share vectors, from the kernel's sums of products,
  against the same covariance computed from the per-game records (whose winner and
  loser masks tests/test_engine_vs_reference.py checks against the reference engine);
- the tokens-taken histogram against the tokens moved per game (every token moved is
  taken by a round's loser), and one entry per player and game;
- the round-1 loser with one token (docs/rules.md: the round's loser takes the only
  token, everyone else is out, the loser is left holding it: it pays, for certain);
- the per-position round counts: every round has one leader, one loser and one winner;
- identical games: under 'sec' nobody re-throws, so Super 421 and "le bon" (which differ
  only in what followers may decide) play the very same games, and get one fingerprint;
- hand-worked quantiles, Markdown cells, and the 2-player tournament mirror;
- paired comparisons: on the very same rules no difference and no noise; the joint test of a
  difference with two seats is the square of a z statistic; a policy read as never re-throwing
  from its tables.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from four21sim import Variant, simulate
from four21sim.analysis.tournament import tournament
from four21sim.study.fairness import games_identity, hist_quantiles, never_rethrows, zero_mean_test
from four21sim.study.report import _md_table
from four21sim.study.tables import _p_no_decision


def _shares(mask: np.ndarray, n: int) -> np.ndarray:
    bits = np.array([(mask >> s) & 1 for s in range(n)]).T.astype(float)
    return bits / bits.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("preset,players", [("super421", 4), ("classic", 3), ("super421-lebon", 6)])
def test_share_covariance_equals_the_records(preset, players):
    res = simulate(preset, players, "greedy", games=6000, seed=3, records=True)
    for kind in ("win", "lose"):
        x = _shares(res.records[f"{kind}_mask"].to_numpy(), players)
        mean, cov = res.share_mean_cov(kind)
        assert np.allclose(mean, x.mean(axis=0), atol=1e-12)
        assert np.allclose(cov, np.cov(x, rowvar=False, ddof=0) / len(x), atol=1e-15)


@pytest.mark.parametrize("preset,players", [("super421", 2), ("montreal", 4), ("classic", 6)])
def test_tokens_taken_add_up_to_the_tokens_moved(preset, players):
    res = simulate(preset, players, "greedy", games=5000, seed=8)
    h = res.counters["taken"]
    assert h[-1] == 0  # nothing in the tail bin here, so the sum below is exact
    assert h.sum() == players * res.finished
    assert (np.arange(h.size) * h).sum() == res.counters["sum_swing"]


@pytest.mark.parametrize("players", [2, 3, 5])
def test_the_round1_loser_with_one_token_always_pays(players):
    res = simulate(Variant.from_preset("super421", ["tokens=1"]), players, "greedy", games=2000, seed=1)
    r1 = res.round1_loser()
    assert r1["p_pay"][0] == 1.0 and r1["p_win"][0] == 0.0


@pytest.mark.parametrize("preset", ["super421", "classic"])
def test_every_round_has_one_leader_one_loser_one_winner(preset):
    res = simulate(preset, 3, "greedy", games=4000, seed=5)
    pos = res.counters["position"]  # (phase, place after the leader, [rounds, lost, won])
    for phase in range(2):
        rounds = pos[phase, 0, 0]
        assert pos[phase, :, 1].sum() == rounds and pos[phase, :, 2].sum() == rounds
        assert (pos[phase, :, 0] <= rounds).all()
    assert pos[:, 0, 0].sum() == res.counters["rounds_played"]
    fair = res.position_rates().groupby("phase")["fair"].first()
    if preset == "super421":  # first_out: everyone plays every round
        assert np.allclose(fair, 1 / 3)
    else:  # last_holder: three at the table in the charge, two or three in the décharge
        assert fair["charge"] == pytest.approx(1 / 3) and 1 / 3 < fair["decharge"] < 1 / 2


def test_identical_games_share_a_fingerprint():
    a = simulate("super421", 3, "sec", games=3000, seed=2)
    b = simulate("super421-lebon", 3, "sec", games=3000, seed=2)
    c = simulate("super421-lebon", 3, "greedy", games=3000, seed=2)
    assert games_identity(a.counters) == games_identity(b.counters)
    assert games_identity(a.counters) != games_identity(c.counters)


def test_no_decision_share():
    one = simulate(Variant.from_preset("montreal"), 6, "greedy", games=3000, seed=4)
    assert _p_no_decision(one) == one.counters["decided_in_charge"] / one.finished
    assert _p_no_decision(simulate("super421", 3, "greedy", games=500, seed=4)) == 0.0
    sec_both = Variant.from_preset("super421", ["charge_throws=1", "decharge_throws=1"])
    assert _p_no_decision(simulate(sec_both, 3, "greedy", games=500, seed=4)) == 1.0


def test_hist_quantiles_hand_worked():
    # values 0..4 seen 1, 1, 6, 1, 1 times: cumulative 0.1, 0.2, 0.8, 0.9, 1.0
    assert hist_quantiles([1, 1, 6, 1, 1], (0.5, 0.8, 0.9, 0.95, 0.1)) == [2, 2, 3, 4, 0]


def test_markdown_cells_never_split():
    t = _md_table(pd.DataFrame({"variant": ["super421 | tokens=5"], "x": [1]}))
    assert all(line.count("|") == 3 for line in t.splitlines())


def test_two_player_tournament_counts_each_pair_once():
    df = tournament("super421", ["greedy", "sec", "table-aware"], players=2, games=2000, seed=1)
    assert df["mirror"].sum() == 3
    by = df.set_index(["policy_a", "policy_b"])["score"]
    for r in df[~df["mirror"]].itertuples():
        # the mirrored pair replays the same games with the roles swapped: one winner a game
        assert by[(r.policy_a, r.policy_b)] + by[(r.policy_b, r.policy_a)] == pytest.approx(1.0, abs=1e-12)


def test_paired_differences_are_the_difference_of_the_two_simulations():
    from four21sim.study.fairness import paired_pay_differences
    d = paired_pay_differences({"a": "super421", "b": "montreal", "c": "super421"}, 3, games=3000, seed=6,
                               chunk=1000)
    share = {name: simulate(name, 3, "greedy", games=3000, seed=6).seats()["lose_share"].to_numpy()
             for name in ("super421", "montreal")}
    ab = d[(d.variant_a == "a") & (d.variant_b == "b")].sort_values("seat")
    assert np.allclose(ab["diff"], share["super421"] - share["montreal"], atol=1e-12)
    same = d[(d.variant_a == "a") & (d.variant_b == "c")]  # the very same games: no difference, no noise
    assert (same["diff"] == 0).all() and (same["ci_low"] == 0).all() and (same["ci_high"] == 0).all()


def test_paired_comparison_of_the_same_rules_is_exactly_zero():
    from four21sim.study.fairness import paired_comparison, paired_shares
    ps = paired_shares({"a": "super421", "b": Variant.from_preset("super421")}, 3, [("a", "b")], games=2000, seed=2)
    c = paired_comparison(ps, "a", "b")
    assert c["lead_change"] == 0 and c["lead_change_low"] == 0 and c["lead_change_high"] == 0
    assert c["seat_test_p"] == 1.0 and c["gap_a"] == c["gap_b"]
    assert c["gap_change_low"] <= 0 <= c["gap_change_high"]  # two intervals of the same gap overlap
    d = paired_shares({"a": "super421", "b": "montreal"}, 3, [("a", "b")], games=2000, seed=2)
    m = paired_comparison(d, "a", "b")
    assert m["lead_change"] == pytest.approx(m["lead_a"] - m["lead_b"], abs=1e-12)


def test_zero_mean_test_with_two_seats_is_a_z_test():
    var, n = 4e-4, 1000
    t = zero_mean_test(np.array([0.03, -0.03]), np.array([[var, -var], [-var, var]]), n)
    assert t["f"] == pytest.approx(0.03 ** 2 / var)  # one free seat: F is T**2, the square of a z
    from four21sim.engine.stats import f_sf
    assert t["p"] == pytest.approx(f_sf(0.03 ** 2 / var, 1, n - 1))


def test_never_rethrows_is_read_from_the_tables():
    v = Variant.from_preset("super421")
    assert never_rethrows(v, 3, ["sec", "greedy", "chase421", "random"]) == {"sec"}
