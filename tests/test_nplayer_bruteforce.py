"""The n-player solver (every state's P(pay), P(win) and expected rounds) and the 3-player best
response against the brute-force game tree of tests/nplayer_tree.py, written from docs/rules.md
(its docstring states what it restates and the two conventions of the solver it follows).
"""

from __future__ import annotations

import numpy as np
import pytest
from nplayer_tree import Tree, equilibrium_tree, seat_order

from four21sim import Variant, policies
from four21sim.exact.nplayer import solve

# ============================================================== the checks
# One round (1 token), where the payout cannot matter; two tokens (the décharge, and the games
# left under last_holder), where it does. With followers "exact" a 4-player round has about
# 2e7 full tables; "at_most" (le bon, classic) makes it 9e7: that one plays one round. Two
# throws where three would only multiply the tables (the 3-throw turn is checked at 3 players,
# tests/test_nplayer3_bruteforce.py).
CASES_4 = [
    ("super421", ["tokens=1"], "pay"),
    ("classic", ["tokens=1", "charge_throws=2", "decharge_throws=2"], "win"),
    ("montreal", ["tokens=2", "decharge_throws=2", "next_leader=winner", "end=last_holder"], "win"),
]


def _compare(sol, tree) -> None:
    for s, (pot, toks) in enumerate(sol.states):
        ref = tree.value(pot, toks, (0,) * sol.players, 0)  # role j is seat j when seat 0 leads
        assert np.allclose(sol.p_pay[s], ref[:, 0], atol=1e-12, rtol=0), (pot, toks, sol.p_pay[s], ref[:, 0])
        assert np.allclose(sol.p_win[s], ref[:, 1], atol=1e-12, rtol=0), (pot, toks, sol.p_win[s], ref[:, 1])
        assert sol.rounds[s] == pytest.approx(ref[0, 2], abs=1e-12), (pot, toks)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES_4, ids=lambda c: f"{c[0]}-{'-'.join(c[1])}-{c[2]}")
def test_four_players_every_state_matches_the_game_tree(case):
    preset, overrides, objective = case
    v = Variant.from_preset(preset, overrides)
    sol = solve(v, 4, objective)
    assert sol.converged and sol.exploitability < 1e-12
    _compare(sol, equilibrium_tree(v, 4, objective))
    for k, sub in sol.subs.items():  # the games left when players go out (last_holder)
        _compare(sub, equilibrium_tree(v, k, "pay"))


BR_CASES = [
    ("super421", ["tokens=2"], "pay", 0, ["greedy", "table-aware"]),
    ("super421-lebon", ["tokens=2"], "pay", 1, ["random", "chase421"]),
    ("montreal", ["tokens=3", "charge_throws=2", "next_leader=winner"], "win", 2, ["sec", "greedy"]),
    ("classic", ["tokens=2", "charge_throws=2"], "pay", 1, ["table-aware", "greedy"]),
]


@pytest.mark.parametrize("case", BR_CASES, ids=lambda c: f"{c[0]}-{'-'.join(c[1])}-{c[2]}-seat{c[3]}")
def test_three_player_best_response_matches_the_game_tree(case):
    preset, overrides, objective, seat, others = case
    v = Variant.from_preset(preset, overrides)
    br = policies.best_response(v, 3, others, seat=seat, objective=objective)
    pols = [("table", policies.compile_policy(o, v, 3)) for o in others]
    tree = Tree(v, pols[:seat] + [("choose", objective)] + pols[seat:])
    for s, (pot, mask, leader, toks) in enumerate(br.states):
        out = tuple((mask >> q) & 1 for q in range(3))
        ref = tree.value(pot, toks, out, leader)
        seats = seat_order(leader, out, 3)
        assert np.allclose(br.p_pay[s, :len(seats)], ref[seats, 0], atol=1e-12, rtol=0), (pot, mask, leader, toks)
        assert np.allclose(br.p_win[s, :len(seats)], ref[seats, 1], atol=1e-12, rtol=0), (pot, mask, leader, toks)
        assert br.rounds[s] == pytest.approx(ref[0, 2], abs=1e-12)
