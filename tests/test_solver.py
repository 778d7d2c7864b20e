"""The exact 2-player solver against published figures, its own Markov chains, and the engine.

Independent anchors: the published one-round solver of 2-player 421 (docs/rules.md:
the leader wins 60.0044%; its table: 6-3-1 after one throw keep the 1 and win
49.81%, 5-2-1 keep 2 and 1 and win 51.35%, 4-2-1 after three throws 88.59%), the
engine's simulations with statistical bounds, and exact symmetry arguments.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from four21sim import Variant, simulate
from four21sim.analysis.tournament import head_to_head, tournament
from four21sim.exact.two_player import solve
from four21sim.policies import evaluate
from four21sim.rules import dice

Z999 = 3.2905267314918945


def _h(text):
    return dice.parse_hand(text)


def test_one_round_game_matches_the_published_solver():
    sol = solve(Variant.from_preset("super421-lebon", ["tokens=1"]))
    assert abs(sol.p_seat0 - 0.600044) < 5e-7
    assert sol.expected_rounds == pytest.approx(1.0, abs=1e-12)
    ctx = sol.ctx(1, 0)  # pot 1, the leader holds nothing
    # after the first throw (2 throws left)
    assert dice.keep_label(_h("631"), sol.lead[ctx, 1, _h("631")]) == "_ _ 1"
    assert round(100 * sol.lead_value[ctx, 0, _h("631")], 2) == 49.81
    assert dice.keep_label(_h("521"), sol.lead[ctx, 1, _h("521")]) == "_ 2 1"
    assert round(100 * sol.lead_value[ctx, 0, _h("521")], 2) == 51.35
    # holding 421 after three throws: the leader must stop
    assert round(100 * sol.lead_value[ctx, 2, _h("421")], 2) == 88.59


def test_sec_charge_is_exactly_fair_by_symmetry():
    # One-throw charge rounds treat both seats alike and the next leader is the loser:
    # nothing distinguishes seat 0, so P(seat 0 wins) = 1/2 exactly (montreal, classic).
    for preset in ("montreal", "classic"):
        assert solve(Variant.from_preset(preset)).p_seat0 == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize("preset", ["super421", "super421-lebon", "montreal", "classic"])
def test_fixed_policy_chain_reproduces_the_optimal_value(preset):
    v = Variant.from_preset(preset)
    sol = solve(v)
    ev = evaluate(v, ["optimal", "optimal"])
    assert ev["p_seat0"] == pytest.approx(sol.p_seat0, abs=1e-10)
    assert ev["expected_rounds"] == pytest.approx(sol.expected_rounds, abs=1e-9)
    # optimal play does at least as well as any habit against the optimum, from either seat
    for habit in ("greedy", "table-aware", "chase421", "sec"):
        assert evaluate(v, [habit, "optimal"])["p_seat0"] <= sol.p_seat0 + 1e-12
        assert evaluate(v, ["optimal", habit])["p_seat0"] >= sol.p_seat0 - 1e-12


@pytest.mark.parametrize("preset", ["super421", "super421-lebon", "montreal", "classic"])
def test_simulated_optimal_games_agree_with_the_exact_values(preset):
    # 400k games: |z| <= 3.29 for both P(seat 0 wins) and the mean length (99.9% each)
    v = Variant.from_preset(preset)
    sol = solve(v)
    res = simulate(v, 2, "optimal", games=400_000, seed=2024)
    seats = res.seats()
    p = seats.p_win[0]
    z = (p - sol.p_seat0) / math.sqrt(sol.p_seat0 * (1 - sol.p_seat0) / res.games)
    assert abs(z) <= Z999, (preset, p, sol.p_seat0, z)
    m = res.measures().set_index("measure").loc["mean_rounds"]
    se = (m.ci_high - m.ci_low) / (2 * 1.959963984540054)
    assert abs(m.value - sol.expected_rounds) <= Z999 * se, (preset, m.value, sol.expected_rounds)


def test_state_values_and_round_detail_are_consistent():
    v = Variant.from_preset("super421")
    sol = solve(v)
    T = v.tokens
    states = sol.states()
    assert len(states) == sum(T + 1 - pot for pot in range(1, T + 1)) + (T - 1)
    assert states.p_leader_wins.between(0, 1).all()
    d = sol.round_detail(T, 0, 0)
    assert d["value"] == pytest.approx(sol.p_seat0, abs=1e-12)
    # a state seen from the other seat is the complement
    assert sol.state_value(3, 4, 4, 1) == pytest.approx(1 - sol.value[3, 4, 4], abs=1e-15)
    with pytest.raises(ValueError, match="state"):
        sol.state_value(1, 2, 3, 0)


def test_solver_refuses_too_many_tokens():
    with pytest.raises(ValueError, match="tokens"):
        solve(Variant.from_preset("super421", ["tokens=61"]))


def _run(*args):
    return subprocess.run([sys.executable, "-m", "four21sim", "solve", *args], capture_output=True, text=True,
                          timeout=300)


def test_solve_cli_prints_the_value_and_the_leader_table():
    r = _run("--variant", "super421-lebon", "--set", "tokens=1")
    assert r.returncode == 0, r.stderr
    assert "P(seat 0 wins) = 60.0044%" in r.stdout
    line = next(ln for ln in r.stdout.splitlines() if ln.strip().startswith("631"))
    assert "_ _ 1" in line and "49.81%" in line


def test_solve_cli_json_follower_and_state():
    r = _run("--variant", "super421", "--follower", "611,2", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["follower"]["leader_hand"] == "611" and out["follower"]["count"] == 2
    assert len(out["follower"]["table"]) == 56 * 2
    # under 'exact' followers a follower never stops before the count
    assert all(row["decision"] != "stop" for row in out["follower"]["table"] if row["throws_made"] == 1)
    r = _run("--variant", "classic", "--state", "0,10,11,1", "--json")
    st = json.loads(r.stdout)
    assert st["state"]["phase"] == "decharge" and 0 < st["state"]["seats"][0]["p_win"] < 1


@pytest.mark.parametrize("args, needle", [
    (["--state", "1,2,3,0"], "state"),
    (["--state", "x"], "--state"),
    (["--follower", "611,5"], "--follower"),
    (["--follower", "711,2"], "--follower"),
    (["--set", "tokens=99"], "tokens"),
    (["--variant", "nope"], "variant"),
])
def test_solve_cli_bad_input(args, needle):
    r = _run(*args)
    assert r.returncode == 2
    assert needle in r.stderr and "Traceback" not in r.stderr


def test_tournament_is_complementary_and_matches_the_exact_values():
    v = Variant.from_preset("super421")
    df = tournament(v, ["optimal", "greedy", "sec"], games=60_000, seed=5)
    assert len(df) == 6
    s = df.set_index(["policy_a", "policy_b"])["score"]
    # two players on the same games: A's share against B and B's against A sum to exactly 1
    for a, b in [("optimal", "greedy"), ("optimal", "sec"), ("greedy", "sec")]:
        assert s[(a, b)] + s[(b, a)] == pytest.approx(1.0, abs=1e-12)
    # the exact score of A against B, seats rotated: (P0(A,B) + 1 - P0(B,A)) / 2
    for r in df.itertuples():
        exact = (evaluate(v, [r.policy_a, r.policy_b])["p_seat0"]
                 + 1 - evaluate(v, [r.policy_b, r.policy_a])["p_seat0"]) / 2
        half = (r.ci_high - r.ci_low) / 2
        assert abs(r.score - exact) <= half * Z999 / 1.959963984540054, (r.policy_a, r.policy_b)


def test_head_to_head_with_more_players():
    v = Variant.from_preset("super421")
    r = head_to_head(v, "greedy", "sec", players=3, games=20_000, seed=1)
    assert r["fair"] == pytest.approx(1 / 3)
    assert np.isclose(r["by_seat"].mean(), r["score"])
    assert r["score"] > 1 / 3  # greedy beats never re-throwing by a wide margin (about 0.56)


def test_runaway_games_are_reported_not_cut():
    # classic with 2 'sec' players lasts 21.25 rounds on average (exact, tests/markov.py):
    # with a limit of 3 rounds most games run away, and simulate says so
    v = Variant.from_preset("classic")
    with pytest.raises(RuntimeError, match="max_rounds=3"):
        simulate(v, 2, "sec", games=1000, seed=1, max_rounds=3)
    res = simulate(v, 2, "sec", games=1000, seed=1, max_rounds=3, check_runaway=False)
    assert 0 < res.runaways <= 1000
    assert res.finished == 1000 - res.runaways
    assert int(res.counters["games"]) == 1000


def test_exact_ties_go_to_the_first_keep_in_the_documented_order():
    # super421, first round: the leader stopped on 666 after 2 throws; the follower holds
    # 421 with one throw left and must re-throw ('exact'). Only 421, 111 or 611 beat 666,
    # and the round's payout is 666's value whoever loses, so keeping 4-2 (a 1 makes 421)
    # and keeping 2-1 (a 4 makes 421) are worth exactly the same: 1/6 chance of the round.
    # Ties go to the first keep of dice.HAND_KEEPS: more dice kept, then higher dice: 4 2.
    v = Variant.from_preset("super421")
    sol = solve(v)
    d = sol.round_detail(v.tokens, 0, 0)
    k = d["foll_dec"][_h("666"), 1, 0, _h("421")]
    assert dice.keep_label(_h("421"), k) == "4 2 _"
    # NaN marks what a phase never reaches: montreal's charge is thrown once
    m = solve(Variant.from_preset("montreal"))
    ctx = m.ctx(11, 0)
    assert np.isnan(m.lead_value[ctx, 1:]).all() and np.isfinite(m.lead_value[ctx, 0]).all()


def test_evaluate_takes_a_preset_name():
    """It crashed on 'montreal' (AttributeError); the symmetry theorem makes Montreal's seats equal."""
    from four21sim.policies import evaluate
    assert evaluate("montreal", ["greedy", "greedy"])["p_seat0"] == pytest.approx(0.5, abs=1e-12)
