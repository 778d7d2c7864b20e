"""``optimal`` from 4 players at the table: the n-player equilibrium deciding one turn at a time.

Witnesses, none of them the code under test:

- at 3 players the same turn-by-turn player (``OptimalPlayer`` on the n-player solution) must
  play the engine's game die for die against the engine's own ``optimal`` tables (the same
  equilibrium laid out in context mode 2, read by another path): the mapping from what the
  table shows (seats, tokens, the hands before) to the solver's state and role is checked exactly;
- at 4 players, played games against the exact P(pay) by seat (|z| <= 4 per seat, with the
  games' binomial error), with and without players going out (``last_holder``: the games
  of the players left);
- the trainer's cost of every equilibrium keep is zero (keep values against keeps: the
  values are checked against the brute-force tree in tests/test_nplayer_keeps.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from notices import without_notices

from four21sim import Variant, policies
from four21sim.advice.play import Game, play_game
from four21sim.advice.trainer import Trainer
from four21sim.policies.optimal import OptimalPlayer

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("preset", ["super421", "super421-lebon"])
def test_turn_by_turn_equilibrium_plays_the_engines_optimal_game_at_three_players(preset):
    v = Variant.from_preset(preset, ["tokens=5"])
    turn_by_turn, tables = OptimalPlayer(v, 3), policies.compile_policy("optimal", v, 3)
    for seed in range(12):
        a = play_game(v, 3, seed, human=None, policies=[turn_by_turn] * 3)
        b = play_game(v, 3, seed, human=None, policies=[tables] * 3)
        assert (a.tokens, a.winners, a.losers, a.rounds) == (b.tokens, b.winners, b.losers, b.rounds), seed


@pytest.mark.parametrize("overrides,games", [(["tokens=2"], 500), (["tokens=3", "end=last_holder"], 250)])
def test_four_optimal_players_pay_as_the_equilibrium_says(overrides, games):
    v = Variant.from_preset("super421", overrides)
    opt = policies.compile_decider("optimal", v, 4)
    assert isinstance(opt, OptimalPlayer)
    pays = np.zeros(4)
    for seed in range(games):
        res = play_game(v, 4, seed, human=None, policies=[opt] * 4)
        for s in res.losers:
            pays[s] += 1 / len(res.losers)
    p = opt.solution.seat_p_pay
    z = (pays / games - p) / np.sqrt(p * (1 - p) / games)
    assert np.all(np.abs(z) <= 4), (pays / games, p, z)


def test_the_trainer_costs_every_equilibrium_keep_nothing_at_four_players():
    v = Variant.from_preset("super421", ["tokens=3", "end=last_holder"])
    opt = policies.compile_decider("optimal", v, 4)
    tr = Trainer(v, 4)
    assert 4 in tr.exact_players
    seen, left = [], set()
    for seed in range(15):
        game = Game(v, 4, seed)
        while not game.over:
            t = game.turn
            k = opt(t)
            vals = tr.values(t)
            assert vals.measure == "P(pay)" and vals.exact_game and vals.lower_is_better
            seen.append(vals.cost(k))
            left.add(len(t.order))
            game.play(k)
    assert len(seen) > 50 and max(seen) == 0.0
    assert 4 in left and left - {4}  # the games of the players left were asked too


def test_where_optimal_is_defined_is_said_once_and_the_engine_refuses_it_from_6_players():
    v = Variant.from_preset("super421", ["tokens=2"])
    spec = next(p for p in policies.REGISTRY if p.name == "optimal")
    why = spec.why_not(v, 6)
    assert "2 to 5 players in the engine" in why and "one decision at a time" in why and "4 to 6 players" in why
    assert spec.why_not(v, 6, turn_by_turn=True) is None and spec.why_not(v, 5) is None
    with pytest.raises(ValueError, match="2 to 5 players in the engine"):
        policies.compile_policy("optimal", v, 6)
    from four21sim import simulate
    with pytest.raises(ValueError, match="one decision at a time"):
        simulate(v, 6, "optimal", games=10, seed=1)
    # one decision at a time needs no tables: at 4 players too, the plug-in decides
    from four21sim.policies.optimal import OptimalPlayer
    assert isinstance(policies.compile_decider("optimal", v, 4), OptimalPlayer)
    with pytest.raises(ValueError, match="not 7"):
        policies.compile_decider("optimal", v, 7)
    big = Variant.from_preset("super421", ["tokens=22"])
    with pytest.raises(ValueError, match="at most 21 tokens, not 22"):
        policies.compile_decider("optimal", big, 4)
    assert "4 to 6 players one decision at a time" in policies.policy_help()


def run_play(args, stdin):
    return subprocess.run([sys.executable, "-m", "four21sim", "play", *args], input=stdin, cwd=ROOT,
                          capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "200"})


def test_play_four_players_against_optimal_with_hints_and_costs():
    v = Variant.from_preset("super421", ["tokens=2"])
    policies.compile_decider("optimal", v, 4)  # solved here: the command reads the disk cache
    proc = run_play(["--players", "4", "--opponents", "optimal", "--set", "tokens=2", "--seed", "5", "--train",
                     "--hint"], "-\n" * 200)
    assert proc.returncode == 0 and without_notices(proc.stderr) == "", proc.stderr
    out = proc.stdout
    assert "Game over after" in out
    assert "hint: for the game" in out and "P(pay)" in out and "everyone playing the equilibrium" in out
    assert "train:" in out and "the round answer only" not in out


def test_a_four_player_game_against_optimal_is_logged_and_replays_exactly(tmp_path, capsys):
    from four21sim.advice.gamelog import read_log, replay
    from four21sim.cli.play import main
    log = tmp_path / "g.jsonl"
    answers = iter(["-"] * 300)
    status = main(["--players", "4", "--opponents", "optimal", "--set", "tokens=3", "--seed", "3", "--games", "2",
                   "--train", "--log", str(log)], read=lambda prompt: next(answers))
    assert status == 0 and capsys.readouterr().out.count("Game over after") == 2
    recs = read_log(log)
    assert [r["opponents"] for r in recs] == [[None, "optimal", "optimal", "optimal"]] * 2
    assert all(c["measure"] == "P(pay)" and c["exact"] for r in recs for c in r["choices"])
    for rec in recs:
        res = replay(rec)
        assert [res.winners, res.tokens, res.rounds] == [rec["result"]["winners"], rec["result"]["tokens"],
                                                          rec["result"]["rounds"]]


def test_the_environment_seats_optimal_opponents_at_four_players():
    from four21sim.env import SingleAgentEnv
    v = Variant.from_preset("super421", ["tokens=3"])
    opt = policies.compile_decider("optimal", v, 4)
    for seed in range(3):
        env = SingleAgentEnv(v, players=4, seat=2, opponents="optimal")
        env.reset(seed=seed)
        done, reward = env.game.over, 0.0
        while not done:  # the learner plays the equilibrium too: the game of four optimal players
            _, reward, done, _, _ = env.step(opt(env.game.turn))
        ref = play_game(v, 4, seed, human=None, policies=[opt] * 4)
        assert (env.game.result.tokens, env.game.result.losers) == (ref.tokens, ref.losers)
        assert reward == (-1.0 if 2 in ref.losers else 0.0)
