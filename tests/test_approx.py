"""The approximate-equilibrium family and its exploitability measurement (four21sim.analysis.approx).

The statistical checks state their confidence: an interval test at level 1 - a fails with
probability at most a when the code is right. Expected values come from other code (the
exact 2- and 3-player solvers, table-aware's own tables) or from the rules, never from
this module's output.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import pandas as pd
import pytest

from four21sim import Variant
from four21sim.analysis.approx import (
    approximate_equilibrium,
    best_deviation,
    context_groups,
    deviator_pay,
    family_policy,
    measure_gains,
    pay_shares,
    table_aware_profile,
)
from four21sim.analysis.tournament import threshold_policy
from four21sim.engine.stats import z_for
from four21sim.policies import check_policy, compile_policy, evaluate, median_hand
from four21sim.rules import dice

Z999 = z_for(0.999)


def _widen(row, z: float = Z999) -> tuple[float, float]:
    """A 95% interval of measure_gains widened to level z (same centre, half-width scaled)."""
    half = (row["gain_high"] - row["gain_low"]) / 2 * z / z_for(0.95)
    return row["gain"] - half, row["gain"] + half


@pytest.mark.parametrize("preset", ["super421", "classic"])
def test_one_group_at_the_median_with_weight_zero_is_table_aware_in_every_context(preset):
    v = Variant.from_preset(preset)
    groups = context_groups(v, (), by_phase=False)
    assert groups.labels == ("all",)
    pol = table_aware_profile(v, groups).policy()
    ta = compile_policy("table-aware", v)
    assert pol.ctx_mode == 1 and pol.lead.shape[0] == (v.tokens + 1) ** 2
    check_policy(pol, v, players=5)
    assert (pol.lead == ta.lead[0]).all() and (pol.foll == ta.foll[0]).all()


def test_each_group_parameter_reaches_exactly_its_contexts():
    v = Variant.from_preset("super421")
    groups = context_groups(v)
    assert groups.labels == ("charge", "decharge own 1", "decharge own 2", "decharge own 3-4",
                             "decharge own 5-7", "decharge own 8+")
    h421, h611 = dice.parse_hand("421"), dice.parse_hand("611")
    thr = [h421, median_hand(v.ranking), h611, median_hand(v.ranking), median_hand(v.ranking), h421]
    pol = family_policy(v, groups, thr, [0.0, 0.0, 0.0, 0.3, 0.0, 0.0])
    check_policy(pol, v, players=6)
    ta = compile_policy("table-aware", v)
    greedyish = family_policy(v, context_groups(v, (), by_phase=False), [median_hand(v.ranking)], [0.3])
    T = v.tokens
    for ctx in range((T + 1) ** 2):
        pot, own = divmod(ctx, T + 1)
        if pot > 0:
            want = h421  # the charge
        elif own == 2:
            want = h611
        elif own >= 8:
            want = h421
        else:  # own 0 (never met in the decharge) and 1, 3-4, 5-7
            want = median_hand(v.ranking)
        assert (pol.lead[ctx] == threshold_policy(v, want).lead[0]).all(), ctx
        foll_want = greedyish.foll[0] if pot == 0 and 3 <= own <= 4 else ta.foll[0]
        assert (pol.foll[ctx] == foll_want).all(), ctx


def test_weighted_followers_are_legal_under_both_follower_rules_and_differ_from_table_aware():
    for preset in ("super421", "super421-lebon"):
        v = Variant.from_preset(preset)
        g = context_groups(v)
        pol = family_policy(v, g, [dice.ORDER[v.ranking_index][k] for k in (0, 5, 12, 20, 29, 40)],
                            [0.0, 0.01, 0.03, 0.1, 0.3, 1.0])
        check_policy(pol, v, players=8)  # an 'exact' follower never stops early
        assert not (pol.foll == compile_policy("table-aware", v).foll[0]).all()


def test_one_throw_phases_are_not_searched():
    g = context_groups(Variant.from_preset("classic"))
    assert g.labels[0] == "charge" and g.active == (False,) + (True,) * (len(g) - 1)


def test_pay_shares_sum_to_one_in_every_game_and_a_symmetric_profile_gives_one_over_n():
    v = Variant.from_preset("montreal")
    prof = table_aware_profile(v).with_value(2, "weight", 0.1)
    lineup = [prof.policy(), "greedy", "sec", prof.policy(), "table-aware"]
    shares = pay_shares(v, 5, lineup, games=3000, seed=4)
    assert shares.shape == (3000, 5)
    assert np.allclose(shares.sum(axis=1), 1.0, atol=1e-12)
    assert set(np.unique(shares)) <= {0.0, 1.0, 1 / 2, 1 / 3, 1 / 4, 1 / 5}
    # the deviator playing the profile itself, in every seat: exactly 1/n in every game
    same = deviator_pay(v, 5, prof.policy(), prof.policy(), games=2000, seed=9)
    assert np.allclose(same, 1 / 5, atol=1e-12)


def test_a_deviation_equal_to_the_profile_gains_exactly_zero():
    v = Variant.from_preset("super421")
    prof = table_aware_profile(v).with_value(0, "weight", 0.03)
    twin = table_aware_profile(v).with_value(0, "weight", 0.03)  # a distinct object with the same tables
    g = measure_gains(v, 4, prof, {"itself": twin}, games=3000, seed=2).iloc[0]
    assert g["gain"] == pytest.approx(0.0, abs=1e-12)
    assert g["gain_low"] == pytest.approx(0.0, abs=1e-12) and g["gain_high"] == pytest.approx(0.0, abs=1e-12)
    assert g["p_pay_profile"] == pytest.approx(0.25, abs=1e-12)


def test_never_rethrowing_is_a_significant_loss_against_the_profile():
    # A sec deviator at a table of four table-aware players never improves a hand (a leader
    # throwing once, a follower keeping its first throw where it may): it pays more. With 4000
    # games per line-up the standard error is below 0.5 pp and the loss several pp: the 99.9%
    # interval must lie below 0 (false failure at most 0.05% if the loss is real).
    v = Variant.from_preset("super421")
    g = measure_gains(v, 4, table_aware_profile(v), {"sec": "sec"}, games=4000, seed=6).iloc[0]
    assert _widen(g)[1] < 0


def test_the_gain_estimate_covers_the_exact_two_player_gain():
    # Two players: the exact solver evaluates any pair of table policies. The estimated gain's
    # 99.9% interval must contain the exact one (false failure at most 0.1% per deviation).
    v = Variant.from_preset("super421", ["tokens=5"])
    prof = table_aware_profile(v)
    devs = {"family": prof.with_value(0, "threshold", dice.parse_hand("611")).with_value(3, "weight", 0.3),
            "greedy": "greedy"}
    got = measure_gains(v, 2, prof, devs, games=20_000, seed=3).set_index("deviation")
    for name, dev in devs.items():
        dp = dev.policy() if name == "family" else compile_policy(dev, v)
        # the deviator pays when it does not win: at seat 0 with probability 1 - P(seat 0 wins),
        # at seat 1 with probability P(seat 0 wins) of the profile in seat 0
        pay = ((1 - evaluate(v, [dp, prof.policy()])["p_seat0"]) + evaluate(v, [prof.policy(), dp])["p_seat0"]) / 2
        exact_gain = 0.5 - pay
        lo, hi = _widen(got.loc[name])
        assert lo <= exact_gain <= hi, (name, exact_gain, lo, hi)


def test_no_deviation_gains_significantly_against_the_certified_three_player_equilibrium():
    # the n-player solver's equilibrium (exploitability ~1e-14) as the profile: a deviator cannot lower its
    # P(pay), so no measured gain may be significantly positive (99.9% intervals, 3 deviations:
    # false failure at most 0.15%). The habits, which are worse, must not show gains either.
    v = Variant.from_preset("super421", ["tokens=4"])
    eq = compile_policy("optimal", v, 3)
    ta = table_aware_profile(v)
    devs = {"family": ta.with_value(1, "weight", 0.1), "table-aware": "table-aware", "greedy": "greedy"}
    got = measure_gains(v, 3, eq, devs, games=6000, seed=8)
    for _, row in got.iterrows():
        assert _widen(row)[0] <= 0, row.to_dict()
    # the profile's own P(pay) per seat is the exact one (99.9% normal intervals per seat)
    shares = pay_shares(v, 3, [eq] * 3, games=6000, seed=8)
    exact = eq.info["p_pay"]
    half = Z999 * shares.std(axis=0, ddof=1) / math.sqrt(len(shares))
    assert (np.abs(shares.mean(axis=0) - exact) <= half).all()


def test_the_search_keeps_the_profile_when_it_has_nothing_to_try():
    res = approximate_equilibrium("super421", 4, games=500, seed=1, rounds=3, candidates=0, weights=(0.0,),
                                  leaders=("reach",), measure_games=1000, habits=("sec",))
    assert res.rounds == 1 and res.converged
    assert res.profile.key() == table_aware_profile(res.variant).key()
    assert res.exploitability == (0.0, 0.0, 0.0) and res.selection_gain == 0.0
    assert res.seats["p_pay"].sum() == pytest.approx(1.0, abs=1e-12)


def test_best_deviation_only_moves_on_a_strict_improvement_and_reports_every_candidate():
    v = Variant.from_preset("super421")
    prof = table_aware_profile(v, context_groups(v, (1, 6)))
    dev, rows = best_deviation(v, 3, prof, games=400, seed=5, candidates=1, weights=(0.0, 0.3))
    assert set(rows["group"]) == {"charge", "decharge own 1-5", "decharge own 6+"}
    # a group's threshold is searched only while its leader plays 'reach'
    assert {"leader", "weight"} <= set(rows["parameter"]) <= {"leader", "threshold", "weight"}
    assert set(rows.columns) >= {"group", "parameter", "value", "deviator_p_pay", "current", "chosen"}
    for _, df in rows.groupby(["group", "parameter"], sort=False):
        cur = df[df["current"]]["deviator_p_pay"].iloc[0]
        chosen = df[df["chosen"]]
        assert len(chosen) == 1
        assert chosen["deviator_p_pay"].iloc[0] <= cur
        if not chosen["current"].iloc[0]:
            assert chosen["deviator_p_pay"].iloc[0] < cur


@pytest.mark.slow  # 5 s of CPU
def test_same_seed_same_result_whatever_the_threads():
    kw = dict(games=300, seed=11, rounds=2, candidates=1, weights=(0.0, 0.1), bands=(1, 4), measure_games=600,
              habits=("greedy",))
    a = approximate_equilibrium("super421-lebon", 3, threads=1, **kw)
    b = approximate_equilibrium("super421-lebon", 3, threads=min(2, numba.config.NUMBA_NUM_THREADS), **kw)
    assert len(a.profile.groups) == 3 and a.profile.groups.labels[2] == "decharge own 4+"
    assert a.profile.key() == b.profile.key() and a.deviation.key() == b.deviation.key()
    pd.testing.assert_frame_equal(a.history, b.history)
    pd.testing.assert_frame_equal(a.gains, b.gains)
    pd.testing.assert_frame_equal(a.seats, b.seats)


@pytest.mark.parametrize("kwargs, name", [
    (dict(players=9), "players"), (dict(players=2), "players"), (dict(games=0), "games"),
    (dict(variant="nope"), "variant"), (dict(rounds=0), "rounds"), (dict(candidates=-1), "candidates"),
    (dict(weights=(-0.1,)), "weights"), (dict(weights=()), "weights"), (dict(bands=(3, 2)), "bands"),
    (dict(measure_games=1), "measure_games"), (dict(seed=-1), "seed"), (dict(habits="sec"), "habits"),
    (dict(leaders=("reach", "bold")), "leaders"), (dict(leaders="reach"), "leaders"),
])
def test_bad_input_is_refused_naming_the_argument(kwargs, name):
    args = dict(variant="super421", players=4, games=10, rounds=1)
    args.update(kwargs)
    with pytest.raises(ValueError) as err:
        approximate_equilibrium(args.pop("variant"), args.pop("players"), **args)
    msg = str(err.value)
    assert msg.startswith(f"{name}: ") and "allowed" in msg


def test_family_policy_refuses_bad_parameters():
    v = Variant.from_preset("super421")
    g = context_groups(v)
    with pytest.raises(ValueError, match=r"^thresholds: 56 is not allowed; allowed"):
        family_policy(v, g, [56] * len(g), [0.0] * len(g))
    with pytest.raises(ValueError, match=r"^weights: 2 values is not allowed; allowed: one per group \(6\)"):
        family_policy(v, g, [0] * len(g), [0.0, 0.0])
    with pytest.raises(ValueError, match=r"^groups: "):
        family_policy(v, context_groups(Variant.from_preset("classic")), [0] * len(g), [0.0] * len(g))


@pytest.mark.parametrize("preset", ["super421", "montreal"])
def test_a_round_leader_plays_odds_leader_round_in_its_group_and_phase(preset):
    # the keeps are read here from odds.leader_round's own values, phase by phase (the throw
    # limit of the charge and of the decharge), ties going to the first keep of HAND_KEEPS
    v = Variant.from_preset(preset)
    g = context_groups(v)
    prof = table_aware_profile(v, g).with_value(0, "leader", "round").with_value(2, "leader", "round")
    pol = prof.policy()
    check_policy(pol, v, players=4)
    ta = compile_policy("table-aware", v)
    T = v.tokens
    for ctx in range((T + 1) ** 2):
        pot, own = divmod(ctx, T + 1)
        is_round = pot > 0 or own == 2
        limit = v.charge_throws if pot > 0 else v.decharge_throws
        if not is_round or limit == 1:
            if not is_round:
                assert (pol.lead[ctx] == ta.lead[0]).all(), ctx
            continue
        from four21sim.exact import odds
        lr = odds.leader_round(v.ranking, v.followers, limit)
        for made in range(1, limit):
            for h in range(dice.N_HANDS):
                opts = lr.keep_values[made][h]
                best = max(opts.values())
                assert opts[int(pol.lead[ctx, limit - made - 1, h])] >= best - 1e-12
                assert int(pol.lead[ctx, limit - made - 1, h]) == min(
                    (k for k in opts if opts[k] >= best - 1e-12), key=list(dice.HAND_KEEPS[h]).index)
    assert (pol.foll == ta.foll[0]).all()
    assert "round" in prof.describe() and prof.table()["leader"].tolist()[:3] == ["round", "reach", "round"]
    # a round leader's threshold is unused: two such profiles are one
    assert prof.with_value(0, "threshold", 0).key() == prof.key()
