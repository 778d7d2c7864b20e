"""``four21sim play``: whole games driven by scripted input, checked against the engine.

The witness is the numba engine (``simulate(..., records=True)``): a person who always
decides as some table policy would must get the engine's game die for die, since the
dice come from the same stream and the rules from the same kernel.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from notices import without_notices

from four21sim import Variant, simulate
from four21sim.advice.play import parse_keep, play_game
from four21sim.policies import compile_policy, table_policy
from four21sim.rules import dice

ROOT = Path(__file__).resolve().parents[1]


def engine_game(variant, policies, seed):
    rec = simulate(variant, len(policies), policies, games=1, seed=seed, records=True).records
    n = len(policies)
    win = int(rec["win_mask"][0])
    return ([int(rec[f"tok{s}"][0]) for s in range(n)], [s for s in range(n) if win >> s & 1],
            int(rec["rounds_charge"][0] + rec["rounds_decharge"][0]))


@pytest.mark.parametrize("preset,players,habit,seed", [("super421", 2, "greedy", 3), ("classic", 4, "table-aware", 5),
                                                       ("montreal", 3, "greedy", 11), ("super421-lebon", 2, "sec", 2)])
def test_a_person_playing_a_policy_gets_the_engines_game(preset, players, habit, seed):
    v = Variant.from_preset(preset)
    opponents = "optimal" if players == 2 else "chase421"
    me = compile_policy(habit, v, players)

    def choose(t):  # the person decides exactly as the habit would
        if t.leading:
            return me.leader_keep(t.hand, t.limit - t.made)
        return me.follower_keep(t.hand, t.target, t.limit, t.made)

    res = play_game(v, players, seed, choose, human=0, opponents=opponents)
    tokens, winners, rounds = engine_game(v, [habit] + [opponents] * (players - 1), seed)
    assert (res.tokens, res.winners, res.rounds) == (tokens, winners, rounds)


@pytest.mark.parametrize("preset", ["super421", "super421-lebon"])
def test_three_optimal_opponents_play_the_engines_game(preset):
    # optimal at 3 players reads the whole round (context mode 2): play must find the same rows
    v = Variant.from_preset(preset).with_options(["tokens=5"])
    me = compile_policy("greedy", v, 3)

    def choose(t):
        if t.leading:
            return me.leader_keep(t.hand, t.limit - t.made)
        return me.follower_keep(t.hand, t.target, t.limit, t.made)

    for seed in range(8):
        for human in (0, 2):
            res = play_game(v, 3, seed, choose, human=human, opponents="optimal")
            lineup = ["optimal"] * 3
            lineup[human] = "greedy"
            assert (res.tokens, res.winners, res.rounds) == engine_game(v, lineup, seed)


def rethrow_all(v):
    """A table policy that always throws all three dice again (legal for everyone)."""
    lead = np.zeros((1, 2, dice.N_HANDS), dtype=np.int8)
    foll = np.zeros((1, dice.N_HANDS, 3, 2, dice.N_HANDS), dtype=np.int8)
    return table_policy("rethrow-all", v, lead, foll)


def run_play(args, stdin):
    # a wide terminal: the lines these tests read are not wrapped (test_trainer.py checks the wrapping)
    return subprocess.run([sys.executable, "-m", "four21sim", "play", *args], input=stdin, cwd=ROOT,
                          capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "200"})


# Seed 1 of the 4-player classic game: the person goes out when the charge ends (one throw a
# turn there: no decision), so no hint asks for classic's 4-player equilibrium, a solve of minutes.
@pytest.mark.parametrize("args,players,opponents", [(["--seed", "7"], 2, "optimal"),
                                                    (["--seed", "1", "--players", "4", "--opponents", "table-aware",
                                                      "--variant", "classic"], 4, "table-aware")])
def test_whole_game_from_scripted_input(args, players, opponents):
    # the person asks for a hint, then throws all three dice again, at every decision
    proc = run_play([*args, "--seat", "0"], "?\n-\n" * 400)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and without_notices(proc.stderr) == "", proc.stderr
    out = proc.stdout
    assert "Game over after" in out
    assert out.count("Keep?") == 2 * out.count("hint: for the round")  # asked twice: "?" then "-"
    v = Variant.from_preset("classic" if "classic" in args else "super421")
    seed = int(args[args.index("--seed") + 1])
    tokens, winners, rounds = engine_game(v, [rethrow_all(v)] + [opponents] * (players - 1), seed)
    final = re.search(r"Game over after (\d+) rounds\. Tokens: (.*)\.\n", out)
    assert int(final.group(1)) == rounds
    assert [int(x) for x in re.findall(r" (\d+)(?:,|$)", final.group(2))] == tokens
    assert ("You win!" in out) == (0 in winners)
    if players == 2:  # the game answer is part of the hint with 2 players
        assert "Keep?" in out and "for the game" in out


def test_typing_mistakes_are_refused_and_the_game_goes_on():
    # super421: '9' is no die, '77' not held; both re-asked
    proc = run_play(["--seed", "3"], "9\n77\n" + "-\n" * 300)
    assert proc.returncode == 0 and "Game over" in proc.stdout
    assert "keeps a 9" not in proc.stdout  # 9 is not a die: refused as such
    assert "is not allowed" in proc.stdout


def test_an_exact_follower_is_not_offered_what_is_then_refused():
    # the review: an exact-rule follower typing 7 was offered 'stop', which was then refused
    hand = dice.parse_hand("543")
    with pytest.raises(ValueError) as exc:
        parse_keep("7", hand, may_stop=False)
    assert "stop" not in str(exc.value) and "one or two dice" in str(exc.value)
    with pytest.raises(ValueError, match="'exact' follower rule"):
        parse_keep("stop", hand, may_stop=False)
    with pytest.raises(ValueError, match="'exact' follower rule"):
        parse_keep("345", hand, may_stop=False)
    assert "stop" in str(pytest.raises(ValueError, parse_keep, "7", hand).value)


def test_input_ending_early_abandons_quietly():
    proc = run_play(["--seed", "1"], "-\n")
    assert proc.returncode == 0 and without_notices(proc.stderr) == "", proc.stderr
    assert "game abandoned" in proc.stdout


@pytest.mark.parametrize("args,word", [(["--players", "9"], "--players"), (["--seat", "2"], "--seat"),
                                       (["--players", "7", "--opponents", "optimal"], "--opponents"),
                                       (["--opponents", "nosuchmodule:f"], "--opponents"),
                                       (["--state", "pot=3,mine=1"], "--state"), (["--games", "0"], "--games"),
                                       (["--replay", "no-such-log.jsonl"], "log"), (["--variant", "nope"], "'nope'")])
def test_bad_options(args, word):
    proc = run_play(args, "")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and word in proc.stderr


@pytest.mark.parametrize("text,hand,keep", [("21", "421", "21"), ("2 1", "124", "21"), ("stop", "611", "611"),
                                            ("-", "611", "-"), ("11", "611", "11")])
def test_parse_keep(text, hand, keep):
    h = dice.parse_hand(hand)
    k = parse_keep(text, h)
    assert (dice.hand_name(h) if k == dice.FULL_KEEP + h else dice.keep_name(k)) == keep


@pytest.mark.parametrize("text", ["5", "111", "abc", "6666"])
def test_parse_keep_refuses_dice_not_held(text):
    with pytest.raises(ValueError, match="keep"):
        parse_keep(text, dice.parse_hand("611"))


def test_ctrl_c_exits_130_like_every_command_and_q_quits_with_0(capsys):
    # Ctrl-C is SIGINT, whose status every command gives as 130; typing q is leaving on purpose (0)
    from four21sim.cli.play import main

    def interrupted(prompt):
        raise KeyboardInterrupt

    assert main(["--seed", "3", "--opponents", "sec"], read=interrupted) == 130
    assert "interrupted" in capsys.readouterr().out
    assert main(["--seed", "3", "--opponents", "sec"], read=lambda prompt: "q") == 0
