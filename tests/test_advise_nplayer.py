"""``advise --players N --state ...``: the game answer at 3 to 6 players, P(pay) of each keep.

The witness for the advisor's reading of a situation (which role the seat plays, the tokens
by role, the hands before it, the throw limit) is the game machinery of ``four21sim play``
(:class:`four21sim.advice.play.Game`), which builds what each player sees from the engine's
own steps: at every decision of played games, the advice asked with what the table shows
(the state, the seat, the hands before it in playing order) must give the values of that
decision exactly. The values themselves are checked against the brute-force tree
(tests/test_nplayer_keeps.py) and the 3-player solver's (tests/test_trainer.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from notices import without_notices

from four21sim import Variant, policies
from four21sim.advice.play import Game
from four21sim.advice.table_answer import advise_table
from four21sim.advice.trainer import Trainer
from four21sim.rules import dice
from four21sim.rules.state import parse_state

ROOT = Path(__file__).resolve().parents[1]
SMALL = ["tokens=4"]
TIE = 1e-12  # the solvers' tie tolerance between keeps (docs/advisor.md: ties go to the documented keep order)


def _advice_at(v, t, players):
    before = [dice.hand_name(h) for _, h, _ in t.table]
    return advise_table(dice.hand_name(t.hand), t.state(), beat=before or None,
                        throws=[f for _, _, f in t.table] or None, count=None if t.leading else t.limit,
                        throws_left=t.limit - t.made, variant=v, players=players, seat=t.seat, exact=False)


@pytest.mark.parametrize("preset,players", [("super421", 4), ("super421-lebon", 4), ("super421", 3)])
def test_the_game_answer_is_the_value_of_each_keep_at_the_table(preset, players):
    v = Variant.from_preset(preset, SMALL)
    tr = Trainer(v, players)
    greedy = policies.compile_policy("greedy", v, players)
    asked = 0
    most = 8 if players > 3 else 10 ** 6  # (a 4-player decision rebuilds its round: seconds each)
    for seed in range(3):  # at 4 players, games until `most` decisions
        game = Game(v, players, seed)
        while not game.over and asked < most:
            t = game.turn
            adv = _advice_at(v, t, players)
            ref = tr.values(t)
            assert ref.measure == "P(pay)" or len(t.order) == 2
            pay = ref.values if ref.lower_is_better else {k: 1 - x for k, x in ref.values.items()}
            assert {k.index: k.value for k in adv.game} == pytest.approx(pay, abs=1e-15)
            # the best, or tied with it: keeps equal in exact arithmetic differ by a few ulps, and the
            # first of the tied ones in the documented keep order is the answer (advisor.keep_order)
            assert adv.best_game.value <= min(pay.values()) + TIE
            assert adv.role == ("leader" if t.leading else "follower")
            asked += 1
            game.play(game.policy_keep(greedy))
    assert asked > 5


def run_advise(args):
    return subprocess.run([sys.executable, "-m", "four21sim", "advise", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "COLUMNS": "200"})


STATE = "pot=0,t0=1,t1=1,t2=1,t3=1,leader=3"


@pytest.mark.slow  # 6 s of CPU
def test_advise_four_players_text_and_json():
    v = Variant.from_preset("super421", SMALL)
    policies.compile_decider("optimal", v, 4)  # solved here: the commands read the disk cache
    args = ["631", "--players", "4", "--seat", "1", "--state", STATE, "--beat", "654,521", "--set", "tokens=4"]
    proc = run_advise(args)
    assert proc.returncode == 0 and without_notices(proc.stderr) == "", proc.stderr
    assert f"Game answer:  P(pay) from {STATE}, you in seat 1 (exact, 4 players" in proc.stdout
    assert "Best play for the game:" in proc.stdout and "P(pay)" in proc.stdout
    proc = run_advise([*args, "--json"])
    out = json.loads(proc.stdout)
    g = out["game"]
    assert g["measure"] == "P(pay)" and g["state"]["text"] == STATE and g["state"]["seat"] == 1
    assert {k["keep"] for k in g["keeps"]} == {k["keep"] for k in out["keeps"]}
    assert g["best"]["p_pay"] <= min(k["p_pay"] for k in g["keeps"]) + TIE
    # seat 1 follows the leader (seat 3) and seat 0: the same hands give the same answer as the library's
    lib = advise_table("631", parse_state(STATE, 4), beat=["654", "521"], variant=v, players=4, seat=1)
    assert [k["p_pay"] for k in g["keeps"]] == [k.value for k in lib.game]


BAD = [
    (["--players", "7", "--state", STATE], "--players: 7 is not allowed"),
    # without --state the round answer takes any table (tests/test_advice_answers.py), but not more hands than seats
    (["--players", "4", "--beat", "611,543,421,654"], "--beat: 4 hands are not allowed at 4 players"),
    (["--players", "4", "--state", STATE, "--seat", "1", "--beat", "654"], "--beat: 1 hands are not allowed"),
    (["--players", "4", "--state", STATE, "--seat", "5"], "--seat: 5 is not allowed"),
    (["--players", "4", "--state", STATE, "--seat", "0", "--beat", "654:3,521:2"], "--throws:"),
    (["--players", "4", "--state", "pot=0,t0=1,t1=1,t2=1,t3=1", "--beat", "654"], "names no leader"),
    (["--players", "4", "--state", STATE, "--seat", "3", "--role", "follower"], "does not match role"),
    (["--players", "4", "--state", "pot=0,t0=1,t1=1,t2=1,t3=2,leader=0"], "--state:"),
    (["--players", "4", "--state", "pot=22,t0=0,t1=0,t2=0,t3=0", "--set", "tokens=22"],
     "too many for the exact 4-player solver"),
    (["--players", "4", "--state", STATE, "--seat", "0", "--beat", "654:x"], "HAND:THROWS"),
    (["--seat", "1"], "--seat: 1 is not allowed with --players 2"),
]


def _bad_argv(args: list[str]) -> list[str]:
    return ["631", *args, "--set", "tokens=4"] if "tokens=22" not in args else ["631", *args]


# in this process, through the commands' own runner (cli._common.run: what `python -m four21sim
# advise` runs); one of them as a real command below (each start imports the package: a second of CPU)
@pytest.mark.parametrize("args,word", BAD)
def test_bad_input_is_one_line_and_exit_2(args, word, capsys):
    from four21sim.cli import advise
    from four21sim.cli._common import run
    assert run(advise.main, "advise", _bad_argv(args)) == 2
    out, err = capsys.readouterr()
    assert "Traceback" not in err and out == "", err
    assert len(err.strip().splitlines()) == 1 and word in err, err


def test_bad_input_as_a_command_is_one_line_and_exit_2():
    args, word = BAD[1]
    proc = run_advise(_bad_argv(args))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and word in proc.stderr, proc.stderr
