"""What each habit costs: every listed mistake's cost is re-computed here with
``solver.evaluate`` of the habit corrected in that one situation, built in the test from
the policies' tables (not with the module's own helper)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from four21sim import Variant
from four21sim.analysis.habits import HABITS, habit_mistakes, leader_profile
from four21sim.policies import compile_policy, evaluate, table_policy
from four21sim.rules import dice

ROOT = Path(__file__).resolve().parents[1]


def share(v, pol):
    """The policy's win share against optimal play, seats averaged."""
    return (evaluate(v, [pol, "optimal"])["p_seat0"] + 1 - evaluate(v, ["optimal", pol])["p_seat0"]) / 2


def corrected(v, habit, row):
    """The habit's tables, one per context, with optimal's keeps in the row's situation."""
    n = (v.tokens + 1) ** 2
    hab, opt = compile_policy(habit, v), compile_policy("optimal", v, players=2)
    lead = np.repeat(hab.lead, n, axis=0)
    foll = np.repeat(hab.foll, n, axis=0)
    h = dice.parse_hand(row["hand"])
    for pot in range(v.tokens + 1):
        limit = v.charge_throws if pot else v.decharge_throws
        ctxs = slice(pot * (v.tokens + 1), (pot + 1) * (v.tokens + 1))
        if row["role"] == "leader":
            left = limit - row["made"]
            if left >= 1:
                lead[ctxs, left - 1, h] = opt.lead[ctxs, left - 1, h]
        else:
            hl = dice.parse_hand(row["leader_hand"])
            foll[ctxs, hl, row["count"] - 1, row["made"] - 1, h] = opt.foll[ctxs, hl, row["count"] - 1,
                                                                            row["made"] - 1, h]
    return table_policy("corrected", v, lead, foll, ctx_mode=1, players=2)


@pytest.mark.parametrize("preset,habit", [("super421", "greedy"), ("super421-lebon", "table-aware"),
                                          ("montreal", "chase421")])
def test_each_listed_cost_is_the_evaluated_gain(preset, habit):
    v = Variant.from_preset(preset, ["tokens=3"])  # small: every state of the game in a second
    df = habit_mistakes(v, habit, top=4, screen=12)
    base = share(v, habit)
    assert df.attrs["win_share"] == pytest.approx(base, abs=1e-12)
    assert len(df) >= 1
    assert list(df["cost"]) == sorted(df["cost"], reverse=True) and (df["cost"] > 0).all()
    for row in df.to_dict("records"):
        assert row["cost"] == pytest.approx(share(v, corrected(v, habit, row)) - base, abs=1e-12), row
        assert row["habit_keep"] != row["optimal_keep"]
        assert row["habit"] in row["sentence"] and f"{100 * row['cost']:.2f} points a game" in row["sentence"]
        assert row["per_occurrence"] == pytest.approx(row["cost"] / row["per_game"], rel=1e-12)
        assert f"costs {100 * row['per_occurrence']:.1f} points" in row["sentence"]


def test_the_committed_study_matches_evaluate():
    mistakes = pd.read_csv(ROOT / "results" / "habits" / "habits.csv")
    summary = pd.read_csv(ROOT / "results" / "habits" / "summary.csv")
    assert set(summary["habit"]) == set(HABITS) and len(summary) == 4 * len(HABITS)
    v = Variant.from_preset("super421")
    top = mistakes[(mistakes["variant"] == "super421") & (mistakes["habit"] == "greedy")].iloc[0].to_dict()
    top["leader_hand"] = "" if pd.isna(top["leader_hand"]) else str(top["leader_hand"])
    top["hand"] = str(top["hand"])
    base = share(v, "greedy")
    assert summary.query("variant == 'super421' and habit == 'greedy'")["win_share"].iloc[0] == \
        pytest.approx(base, abs=1e-6)
    assert top["cost"] == pytest.approx(share(v, corrected(v, "greedy", top)) - base, rel=1e-4)
    assert (ROOT / "results" / "habits" / "README.md").is_file()


def test_the_reason_is_the_single_turn_odds():
    from four21sim.analysis.habits import mistake_reason
    v = Variant()
    h = dice.parse_hand("654")
    keep4 = next(k for k in dice.keeps_of(h) if dice.keep_label(h, k) == "_ _ 4")
    # hands above 654 in the super421 ranking, one throw: 421 (6 of 216), 111 (1), the fiches x11 (3 each, x =
    # 2..6) and brelans xxx (1 each, x = 2..6): 6 + 1 + 15 + 5 = 27 of 216 = 12.5%
    why = mistake_reason(v, "leader", 1, 0, -1, h, keep4, dice.FULL_KEEP + h)
    assert "holds each follower to one throw" in why and "only 12.5% of the time" in why
    # a leader who stops where re-throwing is better: the round's odds of each, from leader_round
    from four21sim.exact.odds import leader_round
    weak = dice.parse_hand("431")
    k41 = next(k for k in dice.keeps_of(weak) if dice.keep_label(weak, k) == "4 _ 1")
    lr = leader_round("super421", "exact", 3).keep_values[1][weak]
    why = mistake_reason(v, "leader", 1, 0, -1, weak, dice.FULL_KEEP + weak, k41)
    assert why == (f"keeping 4 _ 1 gives {100 * lr[k41]:.1f}% not to lose the round to one follower, against "
                   f"{100 * lr[dice.FULL_KEEP + weak]:.1f}% for stopping")


def test_leader_profile_of_sec_and_chase421():
    v = Variant()
    counts, final = leader_profile(compile_policy("sec", v))
    assert counts.tolist() == pytest.approx([1.0, 0.0, 0.0], abs=1e-12)
    assert final[dice.parse_hand("421")] == pytest.approx(6 / 216)
    counts, final = leader_profile(compile_policy("chase421", v))
    # chase421 stops only on 421; it ends with 421 with the exact chance of chasing it: 42571/186624
    assert final[dice.parse_hand("421")] == pytest.approx(42571 / 186624, abs=1e-12)
    assert counts[0] == pytest.approx(6 / 216) and counts.sum() == pytest.approx(1)
