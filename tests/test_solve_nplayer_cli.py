"""``four21sim solve`` at 4 players and ``--against``: the one JSON schema (docs/solutions.md),
the numbers the solvers give, and bad input refused in one line with exit status 2."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from four21sim import Variant
from four21sim.cli.solve import analyse, format_text
from four21sim.exact import nplayer
from four21sim.policies import evaluate_lineup

REPO = Path(__file__).resolve().parents[1]
DOC = (REPO / "docs" / "solutions.md").read_text()
SMALL = ["--set", "tokens=2"]


def _keys(out: dict) -> set:
    return set(out) - {"json", "leader", "follower"}


def test_four_players_and_best_responses_have_the_keys_of_two_players_all_documented():
    two = analyse(SMALL + ["--json"])
    four = analyse(SMALL + ["--players", "4", "--json"])
    br = analyse(SMALL + ["--players", "3", "--against", "greedy,sec", "--json"])
    assert _keys(two) == _keys(four) == _keys(br)
    documented = set(re.findall(r"^\| `(\w+)`(?:, `(\w+)`)?", DOC, re.M))
    documented = {k for pair in documented for k in pair if k}
    assert _keys(two) <= documented, _keys(two) - documented
    assert four["solution"] == "equilibrium" and br["solution"] == "best_response"
    assert two["seat"] is None and two["against"] is None and four["against"] is None
    assert br["seat"] == 0 and br["against"][1:] == ["greedy", "sec"]
    for out in (four, br):
        assert len(out["seats"]) == out["players"]
        assert sum(s["p_pay"] for s in out["seats"]) == pytest.approx(1.0, abs=1e-12)


def test_four_players_print_the_n_player_equilibrium():
    v = Variant.from_preset("super421", ["tokens=2"])
    out = analyse(SMALL + ["--players", "4"])
    sol = nplayer.solve(v, 4)
    assert [s["p_pay"] for s in out["seats"]] == pytest.approx(list(sol.seat_p_pay), abs=1e-15)
    assert out["exploitability"] <= 1e-12
    assert out["lead_value"]["first_round"] == pytest.approx(sol.seat_p_pay[1:].mean() - sol.seat_p_pay[0], abs=1e-12)
    text = format_text(out)
    assert "4 players, an equilibrium where each player minimises its own P(pay)" in text
    assert "exploitability" in text


def test_a_four_player_state_under_last_holder_with_a_player_out_reads_the_game_left():
    out = analyse(["--set", "tokens=3", "--set", "end=last_holder", "--players", "4", "--state",
                   "pot=0,t0=0,t1=1,t2=1,t3=1,leader=2"])
    seats = out["state"]["seats"]
    assert seats[0] == {"seat": 0, "p_pay": 0.0, "p_win": 1.0, "drinks": -1.0}  # out under last_holder: has won
    sub = nplayer.solve(Variant.from_preset("super421", ["tokens=3", "end=last_holder"]), 4).subs[3]
    i = sub.states.index((0, (1, 1, 1)))  # seat 2 leads: roles 0, 1, 2 are seats 2, 3, 1
    assert [seats[2]["p_pay"], seats[3]["p_pay"], seats[1]["p_pay"]] == pytest.approx(list(sub.p_pay[i]), abs=1e-15)


def test_a_best_response_to_greedy_beats_playing_greedy_and_leaves_the_others_their_share():
    v = Variant.from_preset("super421", ["tokens=2"])
    out = analyse(SMALL + ["--players", "3", "--against", "greedy,greedy", "--seat", "1", "--json"])
    same = evaluate_lineup(v, 3, "greedy")  # every seat greedy: the line-up's exact P(pay)
    pays = [s["p_pay"] for s in out["seats"]]
    assert pays[1] < same["p_pay"][1] - 1e-3
    assert sum(pays) == pytest.approx(1.0, abs=1e-12)
    text = format_text(out)
    assert "the exact best response of seat 1" in text and "best response" in text and "greedy" in text


def test_a_four_player_best_response_to_sec_beats_playing_sec():
    v = Variant.from_preset("super421", ["tokens=2"])
    out = analyse(SMALL + ["--players", "4", "--against", "sec"])
    assert out["against"] == ["best", "sec", "sec", "sec"] and len(out["seats"]) == 4
    pays = [s["p_pay"] for s in out["seats"]]
    assert sum(pays) == pytest.approx(1.0, abs=1e-12)
    assert pays[0] < evaluate_lineup(v, 4, "sec")["p_pay"][0] - 1e-3


def test_the_best_response_to_the_equilibrium_is_the_equilibrium_s_value():
    v = Variant.from_preset("super421", ["tokens=2"])
    out = analyse(SMALL + ["--players", "3", "--against", "equilibrium", "--seat", "2"])
    ref = nplayer.solve(v, 3)
    assert [s["p_pay"] for s in out["seats"]] == pytest.approx(list(ref.seat_p_pay), abs=1e-12)


BAD = [
    (["--players", "3", "--against", "greedy,nonsense"],
     "--against: 'nonsense' is not allowed; allowed: sec, chase421, greedy, table-aware, random, optimal, equilibrium"),
    (["--players", "3", "--against", "greedy,sec,sec"],
     "--against: 3 policies are not allowed with 3 players; allowed: one per other seat (2), or one for all"),
    (["--players", "3", "--against", "greedy", "--seat", "3"], "--seat: '3' is not allowed; allowed: 0 to 2"),
    (["--players", "9"], "--players: '9' is not allowed; allowed: 2 to 8 (the exact solvers)"),
    (["--players", "4", "--set", "tokens=22"],
     "tokens: 22 is too many for the exact 4-player solver; allowed: 1 to 21"),
    (["--players", "8", "--set", "tokens=12"],
     "tokens: 12 is too many for the exact 8-player solver; allowed: 1 to 11"),
    (["--players", "7", "--set", "tokens=12"],
     "tokens: 12 is too many for the exact 7-player solver; allowed: 1 to 11"),
    (["--players", "3", "--against", "sec", "--state", "pot=0,t0=1,t1=1,t2=0"],
     "--state: 'pot=0,t0=1,t1=1,t2=0' is not allowed with --against; allowed: the start of the game"),
]


@pytest.mark.parametrize("argv,message", BAD)
def test_bad_input_is_one_line_and_exit_status_2(argv, message, capsys):
    # the first as a real command (the exit status, the one line, no traceback, as a shell sees them); the
    # others through the same dispatcher and runner in this process (a start of the interpreter is a second
    # of CPU each): an exception escaping it would fail the test, as a traceback on stderr does here
    if argv is BAD[0][0]:
        r = subprocess.run([sys.executable, "-m", "four21sim", "solve"] + SMALL + argv, cwd=REPO,
                           capture_output=True, text=True, timeout=300)
        status, out, err = r.returncode, r.stdout, r.stderr
    else:
        from four21sim.cli import main
        status = main(["solve"] + SMALL + argv)
        out, err = capsys.readouterr()
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"solve: error: {message}"), err
    assert "Traceback" not in err and out == ""


def test_the_command_prints_json_at_four_players():
    r = subprocess.run([sys.executable, "-m", "four21sim", "solve", "--players", "4", "--json"] + SMALL, cwd=REPO,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["players"] == 4 and out["schema"] == "four21sim.solution" and len(out["seats"]) == 4
