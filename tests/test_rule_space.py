"""experiments/rule_space.py: its exact column against direct solves, its verdicts against the
differences of those solves, and the simulated column's bookkeeping.

Witnesses: the 2-player solver (optimal play) and exact evaluation of 'greedy' against
itself, the 3-player equilibrium, called here directly; the symmetry theorem's 1/players.
Small token counts keep every solve a fraction of a second.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

from four21sim import Variant
from four21sim.exact import nplayer
from four21sim.exact.two_player import solve
from four21sim.policies import evaluate

_PATH = Path(__file__).resolve().parents[1] / "experiments" / "rule_space.py"
_SPEC = importlib.util.spec_from_file_location("rule_space", _PATH)
rs = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(rs)


def spec(preset: str, change: str | None) -> dict:
    return {"label": preset if change is None else f"{preset}: {change}", "preset": preset,
            "set": ["tokens=3"] + ([change] if change else []), "base": preset,
            "change": "(preset)" if change is None else change}


SPECS = [spec("super421", None), spec("super421", "followers=at_most"), spec("super421", "charge_throws=1"),
         spec("montreal", None), spec("montreal", "next_leader=next_seat"), spec("montreal", "cumulative=none")]


@pytest.fixture(scope="module")
def exact():
    rows, budget = rs.exact_rows(SPECS, budget_seconds=600, players=(2, 3))
    return rs.analyse(rows), budget


def _variant(s: dict) -> Variant:
    return Variant.from_preset(s["preset"], s["set"])


def test_the_exact_column_is_the_direct_solves(exact):
    df, budget = exact
    assert budget["skipped"] == 0
    by = df.set_index(["variant", "players", "lineup"])
    for s in SPECS:
        v = _variant(s)
        p0 = solve(v).p_seat0  # P(seat 0 wins): it pays otherwise
        g0 = evaluate(v, ["greedy", "greedy"])["p_seat0"]
        pay3 = nplayer.solve(v, 3, "pay").seat_p_pay
        for (n, lu), pays in {(2, "optimal"): [1 - p0, p0], (2, "greedy"): [1 - g0, g0],
                              (3, "optimal"): list(pay3)}.items():
            r = by.loc[(s["label"], n, lu)]
            want = [n * p - 1 for p in pays]
            assert r.lead_drinks == pytest.approx(want[0], abs=1e-9), (s, n, lu)
            assert r.gap_drinks == pytest.approx(max(abs(x) for x in want), abs=1e-9), (s, n, lu)
            assert r.source == ("symmetry" if r.symmetric else "solver")


def test_changes_are_the_differences_of_the_solves_and_say_which_way(exact):
    df, _ = exact
    ch = df[(df["change"] != "(preset)")].set_index(["variant", "players", "lineup"])
    base = df[df["change"] == "(preset)"].set_index(["base", "players", "lineup"])
    for (label, n, lu), r in ch.iterrows():
        b = base.loc[(r.base, n, lu)]
        assert r.gap_change == pytest.approx(r.gap_drinks - b.gap_drinks, abs=1e-12)
        assert r.lead_change == pytest.approx(r.lead_drinks - b.lead_drinks, abs=1e-12)
        want = "fairer" if r.gap_change < -1e-12 else "less fair" if r.gap_change > 1e-12 else "no change"
        assert r.verdict == want, (label, n, lu)
    one = ch.loc[("super421: charge_throws=1", 2, "optimal")]
    assert one.symmetry_effect == "makes it symmetric" and one.verdict == "fairer" and one.gap_drinks == 0
    ns = ch.loc[("montreal: next_leader=next_seat", 3, "optimal")]
    assert ns.symmetry_effect == "breaks the symmetry" and ns.verdict == "less fair"
    same = ch.loc[("montreal: cumulative=none", 3, "optimal")]
    assert same.symmetric and same.verdict == "no change" and same.gap_change == 0


def test_a_spent_budget_leaves_three_player_equilibria_unsolved_but_not_the_theorems():
    rows, budget = rs.exact_rows(SPECS, budget_seconds=0, players=(3,))
    df = rs.analyse(rows).set_index("variant")
    assert budget["skipped"] == 3  # the Super 421 ones without a one-throw charge, and next_seat
    assert math.isnan(df.loc["super421", "gap_drinks"]) and df.loc["super421", "note"].startswith("not solved")
    assert df.loc["montreal", "gap_drinks"] == 0 and df.loc["montreal", "source"] == "symmetry"
    assert df.loc["super421: charge_throws=1", "verdict"] == "preset not solved"


def test_the_simulated_column_pairs_each_change_with_its_preset():
    rows = rs.simulated_rows(SPECS, [4], games=3000)
    df = rs.analyse(rows).set_index("variant")
    lab = "super421: followers=at_most"
    r, b = df.loc[lab], df.loc["super421"]
    assert r.lead_change == pytest.approx(r.lead_drinks - b.lead_drinks, abs=1e-12)
    assert r.lead_change_low <= r.lead_change <= r.lead_change_high
    assert r.gap_change_low <= r.gap_change <= r.gap_change_high
    # both sides exactly fair by the theorem: exactly no change, no test
    same = df.loc["montreal: cumulative=none"]
    assert same.gap_change == 0 and same.verdict == "no change" and math.isnan(same.seat_test_p_holm)
    # the theorem makes Super 421 with a one-throw charge exactly fair: its values are 0, the simulation a check
    one = df.loc["super421: charge_throws=1"]
    assert one.lead_drinks == 0 and one.gap_drinks == 0 and not math.isnan(one.check_lead_drinks)
    assert one.gap_change == pytest.approx(-b.gap_drinks, abs=1e-12)


def test_a_change_beyond_the_solvers_is_said_so_not_counted_as_unsolved_by_the_budget():
    specs = [{"label": "super421", "preset": "super421", "set": [], "base": "super421", "change": "(preset)"},
             {"label": "super421: tokens=41", "preset": "super421", "set": ["tokens=41"], "base": "super421",
              "change": "tokens=41"},
             {"label": "super421: charge_throws=1", "preset": "super421", "set": ["charge_throws=1"],
              "base": "super421", "change": "charge_throws=1"}]
    rows, budget = rs.exact_rows(specs, budget_seconds=3600, players=(3,))
    df = rs.analyse(rows)
    r = df.set_index("variant").loc["super421: tokens=41"]
    assert budget["skipped"] == 0 and r.verdict == "beyond the solvers" and math.isnan(r.gap_drinks)
    line = next(s for s in rs._findings_exact(df) if s.startswith("**3 players"))
    assert "(1 of 2 changes solved; 1 beyond the solvers" in line and "not solved in this run" not in line


def _write_run(out: Path, rows: list[dict], commit: str) -> None:
    import json

    import pandas as pd
    out.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_parquet(out / "rule_space.parquet", index=False)
    (out / "manifest.json").write_text(json.dumps({"commit": commit}))


def test_a_run_keeps_the_equilibria_an_earlier_run_solved_with_the_same_solver_code(exact, tmp_path):
    """The kept rows are the direct solves' numbers; a row of another solver code, or of an
    unknown commit without a code, is solved again; a stopped run's partial lines count."""
    import json
    df, _ = exact
    solved = [r for r in df.to_dict("records") if r["players"] == 3 and r["source"] == "solver"]
    assert solved and all(r["solver_code"] == rs.store.code_hash(rs.SOLVER_CODE) for r in solved)
    _write_run(tmp_path / "same", solved, "unknown")
    reuse, origin = rs.reusable_exact(tmp_path / "same")
    assert origin["rows"] == len(solved)
    rows, budget = rs.exact_rows(SPECS, budget_seconds=0, players=(3,), reuse=reuse)
    got = rs.analyse(rows).set_index("variant")
    assert budget["skipped"] == 0  # nothing left to solve
    for r in solved:
        assert got.loc[r["variant"], "gap_drinks"] == r["gap_drinks"]
        assert got.loc[r["variant"], "lead_drinks"] == r["lead_drinks"]
    # another solver's rows, and rows without a code from a commit git cannot vouch for: not kept
    other = [dict(r, solver_code="0" * 64) for r in solved]
    _write_run(tmp_path / "other", other, "unknown")
    assert rs.reusable_exact(tmp_path / "other") == ({}, {})
    _write_run(tmp_path / "old", [{k: v for k, v in r.items() if k != "solver_code"} for r in solved], "unknown")
    assert rs.reusable_exact(tmp_path / "old") == ({}, {})
    # a run stopped before writing its table: its partial lines are kept
    part = tmp_path / "stopped"
    part.mkdir()
    (part / rs.PARTIAL).write_text("".join(json.dumps(dict(r, commit="x")) + "\n" for r in solved[:1]))
    reuse, origin = rs.reusable_exact(part)
    assert list(reuse) == [(solved[0]["variant"], 3, "optimal")] and origin["rows"] == 1 and origin["commits"] == ["x"]


def test_simulations_only_keeps_every_exact_row_as_it_was_and_names_its_run(exact, tmp_path):
    """``--simulations-only``: the folder's exact rows come back unchanged whatever the solver's
    code now (another code here), the simulated ones are not kept, and the run they come from is
    named (the manifest and the report say it); without a finished run there, a clear refusal."""
    import json

    import pandas as pd
    df, _ = exact
    rows = [dict(r, solver_code="0" * 64) for r in df.to_dict("records")]
    sim = dict(rows[0], method="simulation", source="simulation")
    out = tmp_path / "run"
    out.mkdir()
    pd.DataFrame(rows + [sim]).to_parquet(out / "rule_space.parquet", index=False)
    (out / "manifest.json").write_text(json.dumps({"command": "python experiments/rule_space.py --x", "commit": "abc",
                                                   "exact_players": [2, 3], "skipped": 0, "solve_budget": 600.0}))
    kept, origin = rs.kept_exact(out)
    assert len(kept) == len(rows) and all(r["method"] == "exact" for r in kept)
    assert origin == {"command": "python experiments/rule_space.py --x", "commit": "abc", "exact_players": [2, 3],
                      "skipped": 0, "solve_budget": 600.0, "rows": len(rows)}
    again = rs.analyse(kept)
    pd.testing.assert_series_equal(again["lead_drinks"], pd.DataFrame(rows)["lead_drinks"])
    pd.testing.assert_series_equal(again["gap_drinks"], pd.DataFrame(rows)["gap_drinks"])
    with pytest.raises(SystemExit, match="--simulations-only needs a finished run"):
        rs.kept_exact(tmp_path / "empty")
