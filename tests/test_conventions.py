"""What a Python user expects: short reprs, named intervals, a one-call loader that
round-trips a results folder, documentation of every column."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from notices import without_notices

import four21sim
from four21sim import Variant, simulate
from four21sim.exact.two_player import solve

ROOT = Path(__file__).resolve().parents[1]


def test_simulation_result_repr_is_short_and_says_what_was_played():
    res = simulate("super421", players=3, policies=["greedy", "sec", "table-aware"], games=3000, seed=5)
    text = repr(res)
    assert len(text) < 400 and "\n" not in text
    assert "3 players" in text and "greedy, sec, table-aware" in text and "3,000 games" in text
    assert "<table" in res._repr_html_()
    fpa = res.first_player_advantage()
    value, low, high = fpa  # still a tuple
    assert (fpa.value, fpa.low, fpa.high) == (value, low, high) and low <= value <= high


def test_solution_repr_is_short():
    sol = solve(Variant.from_preset("super421-lebon", ["tokens=1"]))
    text = repr(sol)
    assert len(text) < 300 and "60.00%" in text  # the one-round game: 60.0044% (docs/rules.md)
    assert "<table" in sol._repr_html_()


def _tiny_results(tmp_path) -> Path:
    from four21sim import sweep
    out = tmp_path / "tiny"
    assert sweep.main(["--variants", "super421", "--players", "2", "--lineups", "greedy,one:optimal/greedy",
                       "--games", "1000", "--task-games", "1000", "--out", str(out), "--quiet"]) == 0
    return out


def test_load_round_trips_a_results_folder(tmp_path):
    out = _tiny_results(tmp_path)
    res = four21sim.load(out)
    files = sorted(p.stem for p in out.glob("*.parquet"))
    assert sorted(res) == files and len(res) == len(files)
    for name in files:  # every table as written, by item and by attribute
        pd.testing.assert_frame_equal(res[name], pd.read_parquet(out / f"{name}.parquet"))
        assert res[name] is getattr(res, name)
    assert res.manifest == json.loads((out / "manifest.json").read_text())
    again = four21sim.load(res.save(tmp_path / "copy"))
    assert sorted(again) == files and again.manifest == res.manifest
    for name in files:
        pd.testing.assert_frame_equal(again[name], res[name])
    assert "fairness" in repr(res) and len(repr(res).splitlines()) == len(files) + 1


def test_load_refuses_what_is_not_a_results_folder(tmp_path):
    with pytest.raises(ValueError, match="not a folder"):
        four21sim.load(tmp_path / "nope")
    with pytest.raises(ValueError, match="manifest.json"):
        four21sim.load(tmp_path)
    with pytest.raises(KeyError, match="no such table"):
        four21sim.Results(tmp_path, {}, {})["fairness"]


def _documented_names(doc: str) -> list[re.Pattern]:
    """The names of docs/results.md's table rows ("| `name` |"), as patterns: an UPPERCASE word
    stands for one value (`p_round_won_by_CAT`, `skill_edge[LINEUP]`: one column per line-up);
    every other character must match exactly."""
    rows = re.findall(r"^\| `([^`\s]+)` \|", doc, flags=re.M)
    return [re.compile("".join("[a-z0-9:/-]+" if part.isupper() else re.escape(part)
                               for part in re.split(r"([A-Z]+)", row))) for row in rows]


def test_every_column_of_every_table_is_documented():
    doc = (ROOT / "docs" / "results.md").read_text()
    names = _documented_names(doc)

    def undocumented(found) -> list[str]:
        return sorted(x for x in set(found) if not any(p.fullmatch(x) for p in names))

    res = four21sim.load(ROOT / "results" / "default")
    for name, df in res.items():
        missing = undocumented(df.columns)
        assert not missing, f"{name}: undocumented columns {missing}"
    missing = undocumented(res.measures["measure"])
    assert not missing, f"undocumented measures {missing}"
    assert "seat = -1" in doc or "`-1`" in doc


def test_sweep_takes_lineups_and_the_old_policies_spelling_with_a_warning(tmp_path, capsys):
    from four21sim import sweep
    args = ["--variants", "super421", "--players", "2", "--games", "200", "--task-games", "200", "--quiet"]
    assert sweep.main([*args, "--policies", "greedy", "--out", str(tmp_path / "old")]) == 0
    err = capsys.readouterr().err
    assert "--policies is deprecated" in err and "--lineups" in err
    assert sweep.main([*args, "--lineups", "greedy", "--out", str(tmp_path / "new")]) == 0
    assert without_notices(capsys.readouterr().err) == ""
    old, new = four21sim.load(tmp_path / "old"), four21sim.load(tmp_path / "new")
    pd.testing.assert_frame_equal(old.measures, new.measures)
    with pytest.raises(ValueError, match="--policies"):
        sweep.main([*args, "--policies", "greedy", "--lineups", "sec", "--out", str(tmp_path / "both")])


def test_sweep_warns_of_every_dropped_configuration_and_counts_games_once(tmp_path, capsys):
    from four21sim import sweep
    assert sweep.main(["--variants", "super421", "--players", "2,6", "--lineups", "greedy,optimal,one:optimal/sec",
                       "--games", "300", "--task-games", "300", "--out", str(tmp_path / "o")]) == 0
    out, err = capsys.readouterr()
    warned = [line for line in err.splitlines() if line.startswith("sweep: warning: skipped")]
    manifest = four21sim.load(tmp_path / "o").manifest
    assert len(warned) == len(manifest["skipped"]) == 2  # optimal and one:optimal/sec at 6 players
    assert all("6 players" in line and "'optimal' is defined for 2 to 5 players" in line for line in warned)
    # played: greedy at 2 and 6 (300 each), optimal at 2 (300), one:optimal/sec at 2 (both seats: 600)
    assert manifest["games_played_total"] == 300 + 300 + 300 + 2 * 300
    assert f"{manifest['games_played_total']:,} games played" in out
