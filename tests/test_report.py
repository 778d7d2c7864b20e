"""REPORT.md and the fairness tables of a study, against independent witnesses.

- drinks against P(pay): every seat's drinks are ``players * P - 1``, they sum to 0 over the
  seats (pay shares sum to 1), and the exact drinks of a 2-player line-up are those of the
  solver's exact evaluation, computed here;
- the symmetry theorem in the tables: configurations it settles are marked, get the exact
  values 1/players, and are left out of the Holm family (their test only checks the engine);
- custom studies reported as themselves: a study from flags is titled "custom study" with its
  grid and not the default study's question; a one-configuration study never says "X to X";
  a 4-player-only study has no 2-player value of leading; a label with a comma is quoted in
  the report's lists;
- the verdicts: one line per variant, saying the play and the table sizes;
- every mistake of a study file reported at once, in one message;
- an older results folder brought up to date (:func:`four21sim.study.tables.rebuild`) gives
  the tables a fresh build gives.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import four21sim
from four21sim import Variant
from four21sim.policies import evaluate
from four21sim.study.fairness import drinks
from four21sim.study.load import Results
from four21sim.study.report import render_report, rewrite
from four21sim.study.tables import rebuild
from four21sim.sweep import main as sweep_main

SMALL = ["--set", "tokens=3", "--games", "3000", "--task-games", "3000", "--seed", "11", "--quiet"]


def run(args, out) -> Results:
    assert sweep_main([*map(str, args), "--out", str(out)]) == 0
    return four21sim.load(out)


@pytest.fixture(scope="module")
def two(tmp_path_factory):
    """Super 421 and Montreal, 2 and 6 players, greedy and optimal (optimal is dropped at 6 players; 3 tokens:
    the solves are instant)."""
    out = tmp_path_factory.mktemp("two") / "o"
    return run(["--variants", "super421,montreal", "--players", "2,6", "--lineups", "greedy,optimal", *SMALL], out)


def test_drinks_are_players_times_p_pay_minus_one(two):
    seats = two.seats
    assert np.allclose(seats["drinks"], seats["players"] * seats["pays"] - 1, atol=1e-12)
    assert np.allclose(seats.groupby(["variant", "players", "lineup"])["drinks"].sum(), 0, atol=1e-9)
    v = Variant.from_preset("super421", ["tokens=3"])
    p0 = evaluate(v, ["greedy", "greedy"])["p_seat0"]  # seat 0 pays when it does not win
    got = seats[(seats["variant"] == "super421 (tokens=3)") & (seats["players"] == 2) & (seats["lineup"] == "greedy")]
    assert got["drinks_exact"].tolist() == pytest.approx([2 * (1 - p0) - 1, 2 * p0 - 1], abs=1e-12)
    assert drinks(0.25, 4) == 0.0 and drinks(0.3, 3) == pytest.approx(-0.1)


def test_the_theorem_marks_its_configurations_exact(two):
    fair = two.fairness.set_index(["variant", "players", "lineup"])
    for n, lu in ((2, "greedy"), (2, "optimal"), (6, "greedy")):
        r = fair.loc[("montreal (tokens=3)", n, lu)]
        assert r.symmetric and r.exact_source == "symmetry" and np.isnan(r.pay_test_p_holm)
        assert r.seat0_pays_exact == pytest.approx(1 / n) and r.fpa_exact == 0.0
        assert not fair.loc[("super421 (tokens=3)", n, lu)].symmetric
    sc = two.scores[two.scores["variant"] == "montreal (tokens=3)"]
    assert len(sc) == 3 and (sc["gap_drinks"] == 0).all() and (sc["source"] == "symmetry").all()
    # the solvers agree with the theorem where they reach it
    st = two.seats[two.seats["exact_source"] == "symmetry"].dropna(subset=["pays_solver"])
    assert len(st) and np.allclose(st["pays_solver"], 1 / st["players"], atol=1e-12)
    # the headline of each variant and table size: optimal play where the study has it, else greedy
    head = two.scores[two.scores["headline"]]
    assert set(zip(head["players"], head["lineup"])) == {(2, "optimal"), (6, "greedy")}


def test_verdicts_and_report_say_the_play_and_the_unit(two):
    text = (two.path / "REPORT.md").read_text()
    verdicts = text.split("## Verdicts")[1].split("## Findings")[0]
    lines = [ln for ln in verdicts.splitlines() if ln.startswith("- **")]
    assert [re.match(r"- \*\*(.*?)\*\*", ln).group(1) for ln in lines] == ["super421 (tokens=3)", "montreal (tokens=3)"]
    assert "first leader (seat 0) pays less than its share" in lines[0].lower() and "(optimal play, exact)" in lines[0]
    assert "at 6 players (everyone 'greedy': optimal play is not in this study)" in lines[0]
    assert "over an evening of 20 games" in lines[0]
    assert "every seat pays exactly its share at 2 and 6 players, by symmetry" in lines[1].lower()
    assert "drinks" in lines[1] and "what to keep" in lines[1]
    assert "# four21sim study: custom study" in text  # made from flags: not the default study
    assert "Which preset is fairest" not in text and "*A custom study: “super421 (tokens=3)”" in text


def test_one_four_player_configuration_never_says_x_to_x_nor_two_players(tmp_path):
    res = run(["--variants", "super421", "--players", "4", "--lineups", "greedy", *SMALL], tmp_path / "o")
    text = (res.path / "REPORT.md").read_text()
    spans = [ln for ln in text.splitlines() if ln.startswith("- **") and "4 players) to " in ln]
    assert spans == [], spans  # one configuration: a range is said as its one value
    assert res.leading.empty and "2 players" not in text and "The value of leading, exactly" not in text
    assert "## Skill against luck" not in text  # no one:A/B line-up: no skill section


def test_a_label_with_a_comma_is_quoted_in_lists(tmp_path):
    toml = tmp_path / "s.toml"
    toml.write_text('name = "commas"\nseed = 3\ngames = 2000\ntask_games = 2000\nvariants = ["montreal"]\n'
                    'players = [2]\nlineups = ["greedy"]\nset = ["tokens=3"]\n'
                    '[[variant]]\nlabel = "super421, sec charge"\npreset = "super421"\nset = ["charge_throws=1"]\n')
    assert sweep_main(["--config", str(toml), "--out", str(tmp_path / "o"), "--quiet"]) == 0
    text = (tmp_path / "o" / "REPORT.md").read_text()
    assert "# four21sim study: commas" in text
    findings = text.split("## Findings")[1].split("## Who pays")[0]
    assert "“super421, sec charge”" in findings and "super421, sec charge at" not in findings.replace("“", "")[:0]
    # with a one-throw charge Super 421 is exactly fair too: both rule sets are in the symmetry finding
    sym = next(ln for ln in findings.splitlines() if ln.startswith("- **Exactly fair by symmetry**"))
    assert "montreal (tokens=3)" in sym and "“super421, sec charge”" in sym


def test_an_older_folder_is_brought_up_to_date(two, tmp_path):
    old = dict(two.tables)
    old.pop("seats")
    old.pop("scores")
    old["fairness"] = old["fairness"].drop(columns=["symmetric", "symmetry", "exact_source"])
    folder = Results(tmp_path, two.manifest, old).save(tmp_path / "old")
    tables, facts = rebuild(four21sim.load(folder))
    for name in ("seats", "scores"):
        pd.testing.assert_frame_equal(tables[name], two.tables[name], check_exact=False, atol=1e-12)
    text = render_report(facts, two.manifest, tables, {})
    assert text.startswith("# four21sim study: custom study") and "## Verdicts" in text
    # rewritten in place: the derived tables, the figures, the report; a table of an older version is gone
    old["robustness"] = pd.DataFrame({"variant": ["x"]})
    folder = Results(tmp_path, two.manifest, old).save(tmp_path / "older")
    rewrite(folder)
    again = four21sim.load(folder)
    assert "robustness" not in again.tables and set(again.tables) == set(two.tables)
    pd.testing.assert_frame_equal(again.scores, two.scores, check_exact=False, atol=1e-12)
    assert "rewritten from them by four21sim" in (folder / "REPORT.md").read_text()
    assert all((folder / f).is_file() for f in again.manifest["files"] if f != "study.json")


def test_every_mistake_of_a_study_file_is_reported_at_once(tmp_path):
    from four21sim.study.spec import load_study
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\ngames = 0\nplayers = [2, 2]\nlineups = ["greedy", "nope"]\ncolour = "red"\n')
    with pytest.raises(ValueError) as err:
        load_study(bad)
    msg = str(err.value)
    assert msg.startswith("4 mistakes: ") and "\n" not in msg
    for part in ("study: unknown key 'colour'", "games: 0 is not allowed", "players: 2 is given twice",
                 "lineups: unknown policy 'nope'"):
        assert part in msg, part
    one = tmp_path / "one.toml"
    one.write_text('games = 0\n')
    with pytest.raises(ValueError, match=r"^games: 0 is not allowed; allowed: an integer from 1"):
        load_study(one)


def test_the_verdicts_link_optimal_play_at_more_players_where_it_is_committed(tmp_path):
    """Issue 19: a default study without optimal play at 3+ players links the studies that have it."""
    import pandas as pd

    from four21sim.study.report import _optimal_elsewhere
    folder = tmp_path / "default"
    folder.mkdir()
    head = pd.DataFrame({"players": [2, 3, 4]})
    assert _optimal_elsewhere(folder, [2], head) == ""  # nothing beside it
    (tmp_path / "nplayer").mkdir()
    (tmp_path / "nplayer" / "REPORT.md").write_text("x")
    assert _optimal_elsewhere(folder, [2], head) == \
        " Optimal play at more players: [4 and 5 players, exact](../nplayer/REPORT.md)."
    assert _optimal_elsewhere(folder, [2, 3, 4], head) == ""  # the study plays it everywhere itself


def test_a_staged_report_knows_the_folder_it_is_for(tmp_path, monkeypatch):
    """The run stages outputs beside the folder (.NAME.PID.tmp): the report took results/ for the folder,
    and its links to the cheat sheets and the studies beside it were lost."""
    from four21sim.study.folder import stage_path
    from four21sim.study.report import _results_folder
    out = tmp_path / "results" / "default"
    out.mkdir(parents=True)
    assert _results_folder(stage_path(out) / "REPORT.md") == out.resolve()  # beside
    monkeypatch.chdir(out)  # a run from inside its folder stages inside it
    assert stage_path(out).parent == out.resolve()
    assert _results_folder(stage_path(out) / "REPORT.md") == out.resolve()
    assert _results_folder(out / "REPORT.md") == out.resolve()
