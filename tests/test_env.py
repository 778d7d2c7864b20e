"""The environments (four21sim.env): PettingZoo's own API test, seeding, and the game they play
checked against the engine: agents that act as table policies get the engine's game."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test  # noqa: E402
from pettingzoo.test.seed_test import check_environment_deterministic  # noqa: E402

from four21sim import Variant, simulate  # noqa: E402
from four21sim import env as E  # noqa: E402
from four21sim.policies import compile_policy  # noqa: E402
from four21sim.policies.plugin import tabulate  # noqa: E402
from four21sim.rules import dice  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("preset,players", [("super421", 2), ("montreal", 3), ("classic", 4)])
def test_pettingzoo_api_test(preset, players):
    v = Variant.from_preset(preset, ["tokens=4"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its advice on Dict observations: the masks are PettingZoo's convention
        api_test(E.env(variant=v, players=players), num_cycles=60)
        check_environment_deterministic(E.env(variant=v, players=players), E.env(variant=v, players=players), 60)


def _table_keep(pol, t):
    T = pol.variant.tokens
    ctx = t.pot * (T + 1) + t.tokens[t.seat] if pol.ctx_mode == 1 else 0
    if t.leading:
        return pol.leader_keep(t.hand, t.limit - t.made, ctx)
    return pol.follower_keep(t.hand, t.target, t.limit, t.made, ctx)


@pytest.mark.parametrize("preset,players,seed", [("super421", 2, 3), ("classic", 3, 1), ("super421-lebon", 5, 8)])
def test_agents_acting_as_table_policies_get_the_engines_game(preset, players, seed):
    v = Variant.from_preset(preset)
    habits = ["greedy", "table-aware", "chase421", "sec", "greedy"][:players]
    pols = [compile_policy(h, v, players) for h in habits]
    e = E.raw_env(variant=v, players=players)
    e.reset(seed=seed)
    total = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        total[agent] += reward
        if term:
            e.step(None)
            continue
        t = e.turn
        s = int(agent.split("_")[1])
        assert t.seat == s and obs["action_mask"].sum() == len(t.keeps()) and obs["action_mask"][t.keeps()].all()
        assert obs["observation"][t.hand] == 1 and obs["observation"][:dice.N_HANDS].sum() == 1
        e.step(_table_keep(pols[s], t))
    rec = simulate(v, players, pols, games=1, seed=seed, records=True).records
    tokens = [int(rec[f"tok{s}"][0]) for s in range(players)]
    assert e.game.result.tokens == tokens
    losers = e.game.result.losers
    assert [total[f"player_{s}"] for s in range(players)] == [-1 / len(losers) if s in losers else 0.0
                                                               for s in range(players)]


def test_an_illegal_action_is_refused_with_the_legal_ones():
    e = E.raw_env(variant="super421", players=2)
    e.reset(seed=1)
    t = e.turn
    bad = next(k for k in range(dice.N_KEEPS) if k not in t.keeps())
    with pytest.raises(ValueError, match="action: .* is not allowed"):
        e.step(bad)


def test_a_game_without_decision_ends_in_one_step():
    v = Variant.from_preset("super421", ["charge_throws=1", "decharge_throws=1"])
    e = E.raw_env(variant=v, players=2)
    e.reset(seed=0)
    assert e.infos["player_0"] == {"no_decision": True} and e.observe("player_0")["action_mask"].sum() == 0
    e.step(0)
    assert all(e.terminations.values()) and sorted(e.rewards.values()) == [-1.0, 0.0]


def test_single_agent_env_against_fixed_opponents():
    v = Variant.from_preset("super421")
    me = compile_policy("greedy", v)
    for opponents in ("optimal", "random"):
        finals = []
        for _ in range(2):  # the same seed: the same game, random opponents included
            g = E.SingleAgentEnv(v, players=2, seat=1, opponents=opponents)
            obs, info = g.reset(seed=11)
            done, reward = False, 0.0
            while not done:
                obs, reward, done, trunc, info = g.step(_table_keep(me, g.turn))
            finals.append((g.game.result.tokens, reward))
        assert finals[0] == finals[1]
        assert finals[0][1] == (-1.0 if 1 in g.game.result.losers else 0.0)
    rec = simulate(v, 2, ["optimal", me], games=1, seed=11, records=True).records
    g = E.SingleAgentEnv(v, players=2, seat=1, opponents="optimal")
    g.reset(seed=11)
    done = False
    while not done:
        _, _, done, _, _ = g.step(_table_keep(me, g.turn))
    assert g.game.result.tokens == [int(rec["tok0"][0]), int(rec["tok1"][0])]


def test_tabulating_refuses_what_a_table_cannot_hold():
    v = Variant.from_preset("super421", ["tokens=2"])
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="not allowed in a table: it answered"):
        tabulate(lambda t: "stop" if t.may_stop and rng.random() < 0.5 else "-", v)
    with pytest.raises(ValueError, match="not allowed in a table"):
        tabulate(lambda t: "-" if t.seat == 0 or not t.may_stop else "stop", v)
    with pytest.raises(ValueError, match="'exact' follower rule"):
        tabulate(lambda t: "stop", v)  # an exact follower may not stop
    with pytest.raises(ValueError, match="'7' is not allowed"):
        tabulate(lambda t: "7", v)
    with pytest.raises(ValueError, match="allowed: a keep index"):
        tabulate(lambda t: 3.5, v)


def test_the_example_of_the_docs_runs():
    text = (ROOT / "docs" / "environment.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 2
    scope: dict = {}
    for code in blocks:
        exec(compile(code, "docs/environment.md", "exec"), scope)  # noqa: S102
    assert 0.0 < scope["result"]["p_seat0"] < 1.0


def test_a_plug_in_in_a_tournament_scores_as_the_policy_it_copies():
    # a plug-in deciding as greedy does: its line-ups play greedy's games, so the same scores
    from four21sim.analysis.tournament import tournament
    v = Variant.from_preset("super421", ["tokens=5"])
    g = compile_policy("greedy", v)

    def copy_of_greedy(t):
        return _table_keep(g, t)

    plain = tournament(v, ["greedy", "sec"], games=3000, seed=2)
    plugged = tournament(v, [copy_of_greedy, "sec"], games=3000, seed=2)
    assert list(plugged["policy_a"]) == ["copy_of_greedy", "sec"]
    assert plugged["score"].tolist() == plain["score"].tolist()


def test_tabulate_chooses_the_context_the_policy_needs():
    v = Variant.from_preset("super421", ["tokens=3"])
    rank = dice.RANK[v.ranking_index]

    def blind(t):
        return "stop" if t.may_stop and rank[t.hand] <= rank[dice.parse_hand("654")] else "-"

    def rich(t):
        return "stop" if t.may_stop and t.tokens[t.seat] >= 2 else "-"

    table = tabulate(rich, v)  # (each table asks the policy of every context: a few seconds)
    assert tabulate(blind, v).ctx_mode == 0 and table.ctx_mode == 1
    with pytest.raises(ValueError, match="reads the pot or the tokens"):
        tabulate(rich, v, players=3)
    # the mode-1 table holds what the policy does in every state: a leader with 2 tokens stops
    T = v.tokens
    assert (table.lead[1 * (T + 1) + 2] == dice.FULL_KEEP + np.arange(dice.N_HANDS)).all()
    assert (table.lead[2 * (T + 1) + 1] == dice.EMPTY_KEEP).all()


# the engine's checks (simulate's ranges): each bad value a ValueError naming its argument
BAD_PLAYERS = [2.5, "3", True, 1, 9, None]
BAD_SEEDS = [-1, 2**64, 1.5, "3", True]


@pytest.mark.parametrize("players", BAD_PLAYERS)
@pytest.mark.parametrize("make", [E.raw_env, E.SingleAgentEnv], ids=["aec", "single"])
def test_the_environments_refuse_what_simulate_refuses_players(make, players):
    with pytest.raises(ValueError, match=r"^players: .* is not allowed; allowed: an integer from 2 to 8$"):
        make(players=players)
    with pytest.raises(ValueError, match="^players:"):  # simulate says the same of each
        simulate("super421", players, games=1)


@pytest.mark.parametrize("seed", BAD_SEEDS)
@pytest.mark.parametrize("make", [E.raw_env, E.SingleAgentEnv], ids=["aec", "single"])
def test_the_environments_refuse_what_simulate_refuses_seeds(make, seed):
    env = make(players=2)
    with pytest.raises(ValueError, match=r"^seed: .* is not allowed; allowed: an integer from 0 to \d+$"):
        env.reset(seed=seed)
    with pytest.raises(ValueError, match="^seed:"):
        simulate("super421", 2, games=1, seed=seed)
    env.reset(seed=2**64 - 1)  # the ends of the range are seeds
    env.reset(seed=np.uint64(0))


@pytest.mark.parametrize("kwargs,name", [(dict(seat=1.5), "seat"), (dict(seat="0"), "seat"), (dict(seat=2), "seat"),
                                         (dict(seat=-1), "seat"), (dict(reward="drinks"), "reward"),
                                         (dict(reward=["pay"]), "reward"), (dict(render_mode="human"), "render_mode")])
def test_the_single_agent_env_names_a_bad_argument(kwargs, name):
    with pytest.raises(ValueError, match=f"^{name}: .* is not allowed; allowed: "):
        E.SingleAgentEnv(players=2, **kwargs)
