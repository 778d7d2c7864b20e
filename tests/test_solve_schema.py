"""``four21sim solve``: one JSON schema at 2 and 3 players (docs/solutions.md), states read the
same way, the value of leading in the text, and a disk-cache read reported as such."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from four21sim.cli.solve import analyse, format_text

REPO = Path(__file__).resolve().parents[1]
DOC = (REPO / "docs" / "solutions.md").read_text()


def _keys(out: dict) -> set:
    return set(out) - {"json", "leader", "follower"}


def test_the_same_keys_at_two_and_three_players_and_all_documented():
    two = analyse(["--set", "tokens=3", "--json"])
    three = analyse(["--set", "tokens=2", "--players", "3", "--json"])
    assert _keys(two) == _keys(three)
    assert two["schema"] == three["schema"] == "four21sim.solution" and two["schema_version"] == 1
    assert set(two["state"]) == set(three["state"]) and set(two["seats"][0]) == set(three["seats"][0])
    documented = set(re.findall(r"^\| `(\w+)`(?:, `(\w+)`)?", DOC, re.M))
    documented = {k for pair in documented for k in pair if k}
    assert _keys(two) | {"leader", "follower"} <= documented, _keys(two) - documented
    for out in (two, three):  # one payer, and a start state that is the start
        assert sum(s["p_pay"] for s in out["seats"]) == pytest.approx(1.0, abs=1e-12)
        assert out["state"]["seats"] == out["seats"] and out["state"]["expected_rounds"] == out["expected_rounds"]


def test_a_rotated_three_player_state_rotates_the_seats():
    # the same table seen with every seat moved one place: the same P(pay), moved one seat
    base = analyse(["--set", "tokens=2", "--players", "3", "--state", "pot=0,t0=0,t1=1,t2=1,leader=1",
                    "--set", "end=last_holder"])
    for shift in (1, 2):
        toks = [0, 1, 1]
        rot = [toks[(s - shift) % 3] for s in range(3)]
        out = analyse(["--set", "tokens=2", "--players", "3", "--set", "end=last_holder", "--state",
                       f"pot=0,t0={rot[0]},t1={rot[1]},t2={rot[2]},leader={(1 + shift) % 3}"])
        got = [s["p_pay"] for s in out["state"]["seats"]]
        want = [base["state"]["seats"][(s - shift) % 3]["p_pay"] for s in range(3)]
        assert got == pytest.approx(want, abs=1e-12)
    assert base["state"]["seats"][0] == {"seat": 0, "p_pay": 0.0, "p_win": 1.0, "drinks": -1.0}  # out: has won


def test_the_value_of_leading_is_in_the_text_without_a_signed_lowering():
    for argv in (["--set", "tokens=3"], ["--set", "tokens=2", "--players", "3"]):
        text = format_text(analyse(argv))
        assert "Value of leading (exact)" in text and "round lowers a player's P(pay) by" in text
        assert not re.search(r"(lowers|raises) [^.]* by [+-]", text)


def test_a_disk_cache_read_is_reported_as_such(tmp_path):
    # a wide terminal: the output is wrapped to its width, and the line read below must stay one line
    env = {**os.environ, "FOUR21SIM_CACHE_DIR": str(tmp_path), "COLUMNS": "300"}
    args = [sys.executable, "-m", "four21sim", "solve", "--set", "tokens=2", "--players", "3"]
    first = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=300, env=env)
    second = subprocess.run(args + ["--json"], cwd=REPO, capture_output=True, text=True, timeout=300, env=env)
    again = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=300, env=env)
    assert first.returncode == second.returncode == again.returncode == 0, first.stderr + second.stderr
    assert "solved in" in first.stdout and "disk cache" not in first.stdout
    out = json.loads(second.stdout)
    assert out["from_cache"] and out["exploitability"] < 1e-9
    # the stored solve's history is not stored (it cannot be checked): not served as a fact
    assert out["solve_seconds"] is out["certificate_seconds"] is out["iterations"] is out["br_iterations"] is None
    line = next(ln for ln in again.stdout.splitlines() if "disk cache" in ln)
    assert line.startswith("read from the disk cache in ") and "checked against the game's equations" in line


def test_the_win_objective_at_two_players_is_said_to_be_the_same_game():
    # zero-sum: who does not pay wins; the answer says so instead of ignoring the option
    from four21sim.cli.solve import analyse, format_text
    out = analyse(["--set", "tokens=2", "--objective", "win"])
    assert out["objective"] == "win"
    assert "the same game" in format_text(out)
    pay = analyse(["--set", "tokens=2"])
    assert [s["p_pay"] for s in out["seats"]] == [s["p_pay"] for s in pay["seats"]]


def test_solve_prints_drinks_beside_p_pay_and_the_json_has_them():
    # a seat paying with probability P at a table of n pays n P - 1 drinks a game beyond its share
    proc = subprocess.run([sys.executable, "-m", "four21sim", "solve", "--players", "3", "--set", "tokens=2"],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    rows = re.findall(r"^\s+(\d)\s+(\d+\.\d{4})%\s+(\d+\.\d{4})%\s+([+-]\d+\.\d{4})$", proc.stdout, re.M)
    assert [int(r[0]) for r in rows] == [0, 1, 2], proc.stdout
    for _, p, _, d in rows:
        # P printed to 1e-6 (as a percentage to 4 decimals), drinks to 1e-4: both roundings bound the gap
        assert abs(float(d) - (3 * float(p) / 100 - 1)) <= 0.5e-4 + 3 * 0.5e-6 + 1e-12
    out = analyse(["--set", "tokens=2", "--players", "3", "--json"])
    for seats in (out["seats"], out["state"]["seats"]):
        for s in seats:
            assert s["drinks"] == pytest.approx(3 * s["p_pay"] - 1, abs=1e-12)
    assert sum(s["drinks"] for s in out["seats"]) == pytest.approx(0.0, abs=1e-12)  # one payer a game
    two = analyse(["--set", "tokens=3", "--json"])
    assert [s["drinks"] for s in two["seats"]] == pytest.approx([2 * s["p_pay"] - 1 for s in two["seats"]], abs=1e-12)
