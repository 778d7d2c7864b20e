"""One state format for advise, solve and play (four21sim.rules.state), and the commands reading it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from four21sim import Variant
from four21sim.rules.state import GameState, parse_state

REPO = Path(__file__).resolve().parents[1]
SUPER = Variant.from_preset("super421")


@pytest.mark.parametrize("text,players,me,want", [
    ("pot=0,mine=3,theirs=8,leader=me", 2, 0, GameState(0, (3, 8), 0)),
    ("pot=0,mine=3,theirs=8,leader=them", 2, 0, GameState(0, (3, 8), 1)),
    ("theirs=8, mine=3, pot=0", 2, 0, GameState(0, (3, 8), None)),
    ("pot=0,mine=3,theirs=8,leader=me", 2, 1, GameState(0, (8, 3), 1)),  # the person sits in seat 1
    ("pot=5,t0=2,t1=3,t2=1,leader=2", 3, 0, GameState(5, (2, 3, 1), 2)),
    ("11,0,0", 2, 0, GameState(11, (0, 0), None)),  # advise's old POT,MINE,THEIRS
    ("0,10,11,1", 2, 0, GameState(0, (10, 11), 1)),  # solve's old POT,T0,T1,LEADER
    ("5,2,3,1", 3, 0, GameState(5, (2, 3, 1), None)),
    ("5,2,3,1,2", 3, 0, GameState(5, (2, 3, 1), 2)),
])
def test_named_and_old_forms(text, players, me, want):
    assert parse_state(text, players, me) == want


@pytest.mark.parametrize("st", [GameState(0, (3, 8), 1), GameState(7, (1, 3), None), GameState(2, (4, 3, 2), 2)])
def test_the_named_form_reads_back(st):
    assert parse_state(st.text(), st.players) == st
    if st.players == 2:
        assert parse_state(st.text(me=1), 2, me=1) == st


@pytest.mark.parametrize("text,players,words", [
    ("11,0", 2, ["'11,0'", "2 numbers for 2 players"]),
    ("pot=1,mine=3", 2, ["mine and theirs go together"]),
    ("pot=1,t0=3,theirs=2", 2, ["mixed"]),
    ("pot=1,t0=3", 2, ["t0 to t1"]),
    ("mine=1,theirs=2", 2, ["no pot"]),
    ("pot=x,mine=1,theirs=2", 2, ["'x' is not a number"]),
    ("pot=1,mine=-1,theirs=2", 2, ["negative"]),
    ("pot=1,mine=1,theirs=2,colour=red", 2, ["unknown field 'colour'"]),
    ("pot=1,mine=1,mine=2", 2, ["given twice"]),
    ("pot=1,mine=1,theirs=9", 3, ["for 2 players, not 3"]),
    ("", 2, ["''"]),
])
def test_bad_text_is_named(text, players, words):
    with pytest.raises(ValueError) as exc:
        parse_state(text, players, option="--state")
    msg = str(exc.value)
    assert msg.startswith("--state:") and "allowed:" in msg
    for w in words:
        assert w in msg


@pytest.mark.parametrize("st,variant,word", [
    (GameState(5, (5, 5), None), SUPER, "adding up to tokens=11"),
    (GameState(0, (0, 11), None), SUPER, "the game is over"),
    (GameState(0, (3, 8), 2), SUPER, "leader 2"),
    (GameState(0, (0, 5, 16), 0), Variant.from_preset("classic"), "leader 0"),  # out under last_holder
])
def test_states_that_cannot_start_a_round(st, variant, word):
    with pytest.raises(ValueError, match=word):
        st.check(variant)


def test_a_player_out_under_last_holder_leaves_a_live_state():
    assert GameState(0, (0, 5, 16), 1).check(Variant.from_preset("classic")).in_play(None) == [False, True, True]


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "four21sim", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=300)


def test_advise_and_solve_read_the_same_state_the_same_way():
    from four21sim.cli import advise, solve
    # the case, named, positional, and with the leader: one game answer
    base = ["543", "--throws-left", "1", "--beat", "654"]
    answers = [advise.advise([*base, "--state", s])["game"] for s in
               ("pot=0,mine=3,theirs=8", "0,3,8", "pot=0,mine=3,theirs=8,leader=them", "0,3,8,1")]
    assert all(a == answers[0] for a in answers)
    # solve: the same state, the opponent (seat 1) leading, from both old and new forms
    outs = [solve.analyse(["--state", s, "--follower", "654,3"])
            for s in ("pot=0,t0=3,t1=8,leader=1", "0,3,8,1", "pot=0,mine=3,theirs=8,leader=them")]
    assert all(o["state"] == outs[0]["state"] and o["follower"] == outs[0]["follower"] for o in outs)
    cell = next(r for r in outs[0]["follower"]["table"] if r["hand"] == "543" and r["throws_made"] == 2)
    assert answers[0]["best"]["p_win_game"] == pytest.approx(cell["p_win"], abs=1e-12)


def test_solve_takes_three_numbers_as_the_review_asked():
    proc = _cli("solve", "--state", "11,0,0", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["state"]["seats"] == out["seats"] and out["state"]["leader"] == 0


def test_a_leader_in_the_state_that_contradicts_the_role_is_refused():
    proc = _cli("advise", "631", "--role", "leader", "--state", "pot=0,mine=3,theirs=8,leader=them")
    assert proc.returncode == 2 and "--state: leader=them does not match --role leader" in proc.stderr
    # and without --role the state's leader decides it
    adv = json.loads(_cli("advise", "631", "--beat", "611", "--state", "0,3,8,1", "--json").stdout)
    assert adv["role"] == "follower"
