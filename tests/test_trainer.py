"""``four21sim play --train``: what each decision cost, exact where the solvers reach; game
logs replayed die for die; several games with a running score; plugged-in opponents.

Witnesses: the solvers' own decision tables (a person who keeps what ``optimal`` keeps
must be told every decision cost nothing, at 2 players and at the 3-player equilibrium,
whose tables are built by another path than the keep values); the engine's games; the
solver's state values (the best keep's value, averaged over the first throw, is the
value of the state).
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from four21sim import Variant, simulate
from four21sim.advice.gamelog import read_log, replay
from four21sim.advice.play import Game, play_game
from four21sim.advice.trainer import Trainer
from four21sim.cli import play as cli
from four21sim.exact import nplayer, two_player
from four21sim.policies import compile_policy
from four21sim.policies.plugin import tabulate
from four21sim.rules import dice
from four21sim.rules.state import GameState

P0 = dice.THROW_COUNTS[dice.EMPTY_KEEP] / 216


def _as_policy(pol):
    """The person's seat deciding as a table policy of context mode 0 or 1 would."""
    def choose(t):
        if t.leading:
            return pol.leader_keep(t.hand, t.limit - t.made, _ctx(pol, t))
        return pol.follower_keep(t.hand, t.target, t.limit, t.made, _ctx(pol, t))
    return choose


def _ctx(pol, t):
    T = pol.variant.tokens
    return t.pot * (T + 1) + t.tokens[t.seat] if pol.ctx_mode == 1 else 0


@pytest.mark.parametrize("preset,seed", [("super421", 1), ("super421-lebon", 4), ("classic", 2)])
def test_playing_the_optimum_costs_nothing_at_two_players(preset, seed):
    v = Variant.from_preset(preset)
    opt = compile_policy("optimal", v, 2)
    tr = Trainer(v, 2)
    costs = []

    def choose(t):
        k = _as_policy(opt)(t)
        costs.append(tr.values(t).cost(k))
        return k

    play_game(v, 2, seed, choose, opponents="greedy")
    assert costs and max(costs) == 0.0


def test_playing_the_equilibrium_costs_nothing_at_three_players():
    # the profile's engine tables (policies.optimal.engine_tables3) against the keep values (nplayer.keep_values)
    v = Variant.from_preset("super421", ["tokens=3"])
    opt = compile_policy("optimal", v, 3)
    tr = Trainer(v, 3)
    seen = []
    for seed in range(12):  # enough games for seat 0 to decide more than 10 times
        game = Game(v, 3, seed)
        while not game.over:
            t = game.turn
            k = game.policy_keep(opt)
            if t.seat == 0:
                vals = tr.values(t)
                assert vals.measure == "P(pay)" and vals.exact_game
                seen.append(vals.cost(k))
            game.play(k)
    assert len(seen) > 10 and max(seen) == 0.0


def test_the_best_keep_averaged_over_the_first_throw_is_the_state_value():
    v = Variant.from_preset("super421", ["tokens=3"])
    sol = nplayer.solve(v, 3)
    for pot, toks in [(3, (0, 0, 0)), (0, (1, 1, 1)), (1, (1, 1, 0))]:
        s = sol.states.index((pot, toks))
        best = [max(nplayer.keep_values(sol, (pot, toks), 0, (), (), 1, h).values()) for h in range(dice.N_HANDS)]
        assert float(P0 @ np.array(best)) == pytest.approx(sol.value[s, 0], abs=1e-12)


def test_n_player_keep_values_of_a_two_player_game_are_the_two_player_solvers():
    v = Variant.from_preset("super421-lebon", ["tokens=4"])
    s2, tp = nplayer.solve(v, 2), two_player.solve(v)
    hl = dice.parse_hand("654")
    for pot, a, b in [(4, 0, 0), (0, 1, 3), (2, 1, 1)]:
        for h in (dice.parse_hand(x) for x in ("631", "611", "543")):
            for made in (1, 2):
                x = nplayer.keep_values(s2, (pot, (a, b)), 0, (), (), made, h)
                y = two_player.leader_keep_values(tp, pot, a, b, h, made)
                assert x.keys() == y.keys() and max(abs(x[k] - y[k]) for k in x) < 1e-9
                x = nplayer.keep_values(s2, (pot, (b, a)), 1, (hl,), (3,), 1, h)
                y = two_player.follower_keep_values(tp, pot, a, b, hl, 3, h, 1)
                assert x.keys() == y.keys() and max(abs(x[k] - y[k]) for k in x) < 1e-9


def test_a_bad_keep_is_costed_and_the_best_named():
    v = Variant.from_preset("super421")
    tr = Trainer(v, 2)
    from four21sim.rules.state import Turn
    t = Turn(0, True, dice.parse_hand("421"), 1, 3, True, None, 11, (0, 0), 2, (0, 1), ())
    vals = tr.values(t)
    assert vals.best == dice.FULL_KEEP + t.hand  # stop on 421
    assert vals.cost(dice.EMPTY_KEEP) > 0.05 and vals.cost(vals.best) == 0.0


def _run(argv, answers, capsys, monkeypatch, columns=None, again=()):
    """Run the command with scripted input: ``answers`` to the first Keep? prompts, then '-';
    ``again`` to the 'Another game?' prompts, then the input ends."""
    if columns:
        monkeypatch.setenv("COLUMNS", str(columns))
    feed, more = iter(answers), iter(again)

    def read(prompt):
        print(prompt)
        try:
            return next(more if "Another game" in prompt else feed)
        except StopIteration:
            if "Another game" in prompt:
                raise EOFError from None
            return "-"
    status = cli.main(argv, read=read)
    return status, capsys.readouterr().out


def test_train_session_with_a_log_replays_exactly(tmp_path, capsys, monkeypatch):
    log = tmp_path / "games.jsonl"
    status, out = _run(["--seed", "5", "--train", "--log", str(log)], ["-", "61", "?", "stop"], capsys, monkeypatch,
                       again=["y", "n"])
    assert status == 0
    assert out.count("Game over after") == 2 and "Score: " in out and "of 2 games won" in out
    assert "train: " in out
    recs = read_log(log)
    assert [r["game"] for r in recs] == [0, 1] and all(r["version"] == 1 for r in recs)
    assert all(c["measure"] == "P(win the game)" and c["cost"] >= 0 for r in recs for c in r["choices"])
    trained = len(re.findall(r"train: ", out))
    assert trained == sum(len(r["choices"]) for r in recs)
    # replay: the same games, the same ends, the same costs
    status, again = _run(["--replay", str(log), "--train"], [], capsys, monkeypatch)
    assert status == 0
    ends = re.findall(r"Game over after .*", out)
    assert re.findall(r"Game over after .*", again) == ends
    for rec in recs:  # and the engine's game when the person plays as a table policy is checked elsewhere
        res = replay(rec)
        assert [res.winners, res.tokens, res.rounds] == [rec["result"]["winners"], rec["result"]["tokens"],
                                                          rec["result"]["rounds"]]


def test_a_log_that_does_not_match_is_refused(tmp_path, capsys, monkeypatch):
    log = tmp_path / "g.jsonl"
    _run(["--seed", "2", "--log", str(log)], [], capsys, monkeypatch)
    rec = json.loads(log.read_text())
    # another hand, with a keep of that hand (a keep the logged hand cannot make is refused before playing)
    rec["choices"][0].update(hand="421" if rec["choices"][0]["hand"] != "421" else "654", keep="stop")
    rec["choices"][0]["index"] = dice.FULL_KEEP + dice.parse_hand(rec["choices"][0]["hand"])
    log.write_text(json.dumps(rec) + "\n")
    from four21sim.cli._common import run
    assert run(lambda a: cli.main(a, read=lambda p: ""), "play", ["--replay", str(log)]) == 2
    assert "game 1: choices[0]: the game shows" in capsys.readouterr().err
    log.write_text('{"format": "four21sim-game", "version": 99}\n')
    with pytest.raises(ValueError, match="version 1"):
        read_log(log)


def test_lines_are_wrapped_at_words(capsys, monkeypatch):
    status, out = _run(["--seed", "3", "--hint", "--train"], [], capsys, monkeypatch, columns=60)
    assert status == 0
    words = set()
    for line in out.splitlines():
        if line.lstrip().startswith("Keep?"):
            continue  # the prompt line carries the answer's echo in this test
        assert len(line) <= 60, line
        words.update(line.split())
    assert "keeps _ _ _" not in out and "throws all three dice again" in out


def test_three_player_hints_say_what_the_round_answer_leaves_out(capsys, monkeypatch):
    argv = ["--seed", "1", "--players", "3", "--opponents", "optimal", "--hint", "--set", "tokens=3"]
    status, out = _run(argv, [], capsys, monkeypatch)
    assert status == 0
    out = " ".join(out.split())  # the lines are wrapped
    assert "for the game" in out and "everyone playing the equilibrium afterwards" in out
    assert "against one follower; with 2 followers it is a guide only" in out
    assert "round answer is the game's best keep too" in out or "the round answer would cost" in out


def test_a_plugged_in_opponent_plays_the_engines_game(tmp_path):
    src = tmp_path / "my_policy.py"
    src.write_text("from four21sim.rules import dice\n"
                   "def cautious(turn):\n"
                   "    good = dice.RANK[0][turn.hand] <= dice.RANK[0][dice.parse_hand('654')]\n"
                   "    return 'stop' if turn.may_stop and good else '-'\n")
    from four21sim.policies.plugin import load_plugin
    fn = load_plugin(f"{src}:cautious")
    v = Variant.from_preset("super421-lebon")
    table = tabulate(fn, v, 2, ctx_mode=0)
    me = compile_policy("greedy", v)
    for seed in range(4):
        res = play_game(v, 2, seed, _as_policy(me), opponents=f"{src}:cautious")
        rec = simulate(v, 2, [me, table], games=1, seed=seed, records=True).records
        assert res.tokens == [int(rec["tok0"][0]), int(rec["tok1"][0])]


def test_a_game_can_start_from_a_state(capsys, monkeypatch):
    status, out = _run(["--seed", "4", "--state", "pot=0,mine=2,theirs=9,leader=them"], [], capsys,
                       monkeypatch)
    assert status == 0
    assert "Round 1 (décharge; tokens: you 2, optimal 9). Optimal leads." in out
    g = Game(Variant.from_preset("super421"), 2, 4, start=GameState(0, (2, 9), 1))
    assert g.turn is None or g.turn.tokens == (2, 9)
