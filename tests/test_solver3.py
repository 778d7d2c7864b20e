"""The n-player solver: 2 players against the 2-player solver, exact symmetries, the certificate.

Independent anchors: the 2-player solver (reproduces the published one-round
game and its own brute force, tests/test_solver*.py); exact symmetry (a one-throw
charge led by its loser treats the seats alike, so each of 3 seats pays 1/3);
shares that must add up (one loss and one win per game).
"""

from __future__ import annotations

import numpy as np
import pytest

from four21sim import Variant
from four21sim.exact import two_player as solver2
from four21sim.exact.solver3 import solve


@pytest.mark.parametrize("preset", ["super421", "super421-lebon", "montreal", "classic"])
@pytest.mark.parametrize("objective", ["pay", "win"])
def test_two_players_agree_with_the_two_player_solver(preset, objective):
    v = Variant.from_preset(preset)
    ref = solver2.solve(v)
    sol = solve(v, 2, objective)
    assert sol.converged
    for s, (pot, (a, b)) in enumerate(sol.states):
        # role 0 leads: its P(win) is the 2-player solver's value of (pot, a, b)
        assert sol.p_win[s, 0] == pytest.approx(ref.value[pot, a, b], abs=1e-12)
        assert sol.p_pay[s, 1] == pytest.approx(ref.value[pot, a, b], abs=1e-12)
        assert sol.rounds[s] == pytest.approx(ref.rounds[pot, a, b], abs=1e-12)
    assert sol.seat_p_win[0] == pytest.approx(ref.p_seat0, abs=1e-12)
    assert sol.expected_rounds == pytest.approx(ref.expected_rounds, abs=1e-12)
    # a zero-sum game: the optimal profile cannot be exploited
    assert sol.gain_any_state < 1e-12


@pytest.mark.parametrize("preset", ["montreal", "classic"])
def test_one_throw_charge_led_by_its_loser_is_fair_to_three_seats(preset):
    # Every seat throws once in a charge round, so the first loser is any seat alike and
    # everything after is seen from it (the loser leads): each seat pays exactly 1/3.
    v = Variant.from_preset(preset, ["tokens=5"])
    sol = solve(v, 3)
    assert np.allclose(sol.seat_p_pay, 1 / 3, atol=1e-12, rtol=0)
    assert np.allclose(sol.seat_p_win, 1 / 3, atol=1e-12, rtol=0)


@pytest.mark.parametrize("objective", ["pay", "win"])
def test_small_super421_equilibrium_is_certified(objective):
    v = Variant.from_preset("super421", ["tokens=4"])
    sol = solve(v, 3, objective)
    assert sol.converged and sol.residual <= 1e-12
    assert sol.exploitability <= 1e-9
    assert sol.gain.min() > -1e-12  # a best response never does worse than the profile
    # one game: one payer and one winner share, in expectation over the seats
    assert sol.seat_p_pay.sum() == pytest.approx(1.0, abs=1e-12)
    assert sol.seat_p_win.sum() == pytest.approx(1.0, abs=1e-12)
    assert sol.summary()["seats"][0]["p_pay"] == sol.seat_p_pay[0]


def test_the_certificate_sees_a_profile_that_is_not_an_equilibrium():
    # Choices made against made-up continuation values (not the profile's own) are not
    # best replies: from the start, some player must gain by deviating.
    from four21sim.exact.solver3 import _best_responses, _Solver

    v = Variant.from_preset("super421", ["tokens=2"])
    S = _Solver(v, 3, "pay", None)
    Ns = len(S.game.states)
    basis = np.random.default_rng(1).uniform(size=(Ns, 3))
    dist = np.zeros((Ns, 3, 3, S.P))
    for s in range(Ns):
        dist[s] = S.round(s, S.succ(s, basis, None), want_dist=True)[1]
    V = S.evaluate(np.broadcast_to(dist[:, None], (Ns, 3) + dist.shape[1:]), S.game.term["pay"], None)
    W, _ = _best_responses(S, basis, basis, V, 1e-13, 50)
    start = S.game.states.index((2, (0, 0, 0)))
    assert (W - V)[start].max() > 1e-3
    assert (W - V).min() > -1e-12
    assert solve(v, 3).exploitability < 1e-12


@pytest.mark.parametrize("kwargs,match", [
    (dict(players=4), "players: 4 is not allowed; allowed: 2 or 3"),
    (dict(players=3, objective="lose"), "objective: 'lose' is not allowed; allowed: pay, win"),
])
def test_bad_arguments_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        solve(Variant.from_preset("super421", ["tokens=1"]), **kwargs)


def test_too_many_tokens_for_three_players():
    with pytest.raises(ValueError, match="tokens: 31 is too many"):
        solve(Variant.from_preset("super421", ["tokens=31"]), 3)


def test_solve_command_for_three_players():
    import json
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-m", "four21sim", "solve", "--set", "tokens=2", "--players", "3", "--json"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    sol = solve(Variant.from_preset("super421", ["tokens=2"]), 3)
    assert [s["p_pay"] for s in out["seats"]] == pytest.approx(list(sol.seat_p_pay), abs=1e-15)
    assert [s["p_win"] for s in out["seats"]] == pytest.approx(list(sol.seat_p_win), abs=1e-15)
    for key in ("expected_rounds", "exploitability", "iterations", "seconds"):
        assert key in out
    bad = subprocess.run([sys.executable, "-m", "four21sim", "solve", "--players", "7"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--players: '7' is not allowed; allowed: 2 to 6" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_the_public_solver_takes_the_number_of_players():
    v = Variant.from_preset("super421", ["tokens=2"])
    from four21sim.exact import solve as solve_any
    assert solve_any(v, players=3) is solve(v, 3, "pay")
    assert solve_any(v, players=2) is solver2.solve(v)
    with pytest.raises(ValueError, match="players: 7 is not allowed"):
        solve_any(v, players=7)
