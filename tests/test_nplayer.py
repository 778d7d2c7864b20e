"""The n-player solver against the existing exact solvers, its certificate, best responses, inputs.

Independent anchors: the 2-player solver (its own brute force and the published
one-round game, tests/test_solver*.py) and its chain evaluator of any two table
policies (``four21sim.exact.two_player.evaluate``); the brute-force trees of
tests/test_nplayer3_bruteforce.py for 3 players and of tests/test_nplayer_bruteforce.py for 4
players and for best responses.
"""

from __future__ import annotations

import numpy as np
import pytest

from four21sim import Variant, dice, policies
from four21sim.exact import _nplayer_certificate as NC
from four21sim.exact import _nplayer_game as NG
from four21sim.exact import _nplayer_profile as NPR
from four21sim.exact import nplayer as NP
from four21sim.exact import store as cache
from four21sim.exact import two_player as solver2
from four21sim.exact.nplayer import solve
from four21sim.policies import best_response

PRESETS = ("super421", "super421-lebon", "montreal", "classic")
# every option a preset does not already vary, in three combinations
OVERRIDES = (["cumulative=both", "nenette_rescue=true", "next_leader=winner"],
             ["fewer_throws_wins=true", "followers=at_most", "end=last_holder"],
             ["next_leader=next_seat", "nenette_min=0", "cumulative=charge"])


# ====================================================================== 2 players: the 2-player solver
def _agree_with_two_player_solver(v: Variant, objective: str) -> None:
    ref = solver2.solve(v)
    sol = solve(v, 2, objective)
    assert sol.converged
    for s, (pot, (a, b)) in enumerate(sol.states):
        # role 0 leads: its P(win) is the 2-player solver's value of (pot, a, b)
        assert sol.p_win[s, 0] == pytest.approx(ref.value[pot, a, b], abs=1e-12)
        assert sol.p_pay[s, 1] == pytest.approx(ref.value[pot, a, b], abs=1e-12)
        assert sol.rounds[s] == pytest.approx(ref.rounds[pot, a, b], abs=1e-12)
    assert sol.gain_any_state < 1e-12  # a zero-sum game: the optimum cannot be exploited


# at 2 players both objectives are one zero-sum game: "win" once, to run its code
@pytest.mark.parametrize("preset,objective", [(p, "pay") for p in PRESETS] + [("super421", "win")])
def test_two_players_agree_with_the_two_player_solver(preset, objective):
    _agree_with_two_player_solver(Variant.from_preset(preset), objective)


@pytest.mark.parametrize("overrides", OVERRIDES, ids="-".join)
def test_two_players_agree_with_the_two_player_solver_under_other_options(overrides):
    _agree_with_two_player_solver(Variant.from_preset("super421", ["tokens=7"] + overrides), "pay")


def test_two_player_decisions_are_the_two_player_solvers():
    # same values, same documented tie order: the same keep in every situation a player meets
    v = Variant.from_preset("super421-lebon", ["tokens=4"])
    ref = solver2.solve(v)
    sol = solve(v, 2)
    T = v.tokens
    for pot, (a, b) in sol.states:
        L = v.charge_throws if pot else v.decharge_throws
        for made in range(1, L):
            for h in range(dice.N_HANDS):
                assert sol.keep((pot, (a, b)), 0, (), (), made, h) == ref.lead[pot * (T + 1) + a, L - made - 1, h]
                for hl, c in ((h, L), (dice.hand_index("421"), made + 1)):
                    if made < c:
                        assert sol.keep((pot, (a, b)), 1, (hl,), (c,), made, h) == \
                            ref.foll[pot * (T + 1) + b, hl, c - 1, made - 1, h]


# ====================================================================== the certificate
def _profile_against(v: Variant, n: int, basis: np.ndarray):
    """A profile whose choices are best against made-up values ``basis`` (not its own): its exact
    values, outcome distributions and every role's best-response utility by the certificate."""
    game = NG.role_game(v, n)
    rounds = NG.Rounds(game)
    dist = np.zeros((game.size, n, n, game.P))
    for group in [game.decharge()] + game.charge_groups():
        S = np.array([NG.succ(game, s, basis, {}, "pay") for s in group])
        dist[group] = rounds.run(group, S, n, want_dist=True)[1]
    V = NPR._profile_values(game, dist, "pay", {})
    W, _ = NC._best_responses(game, rounds, basis, basis, V, "pay", {}, 1e-13, 50)
    return game, rounds, V, W


def _tables_2p(v: Variant, game, rounds, basis):
    """The 2-player profile as engine tables in context mode 1 (pot, own tokens)."""
    T = v.tokens
    lead = np.broadcast_to((dice.FULL_KEEP + np.arange(56)).astype(np.int8), ((T + 1) ** 2, 2, 56)).copy()
    foll = np.zeros(((T + 1) ** 2, 56, 3, 2, 56), np.int8)
    for s, (pot, (a, b)) in enumerate(game.states):
        L = v.charge_throws if pot else v.decharge_throws
        ct, dec, lead_dec = rounds.decisions(s, NG.succ(game, s, basis, {}, "pay"), 2)
        for made in range(1, L):
            lead[pot * (T + 1) + a, L - made - 1] = lead_dec[made - 1]
        for c in range(2, L + 1):
            for hl in range(56):
                foll[pot * (T + 1) + b, hl, c - 1, :c - 1] = dec[ct.context_of([hl], [c], c), :c - 1]
    return lead, foll


def test_a_perturbed_two_player_profile_gains_what_the_chain_evaluator_says():
    # Choices made against random values are not best replies. The certificate's gain of
    # seat 0 (role 0 at the start) must be what the 2-player solver's chain evaluator gives
    # for the best response's tables against the profile's, minus the profile against itself.
    v = Variant.from_preset("super421", ["tokens=3"])
    basis = np.random.default_rng(7).uniform(size=(len(NG.role_game(v, 2).states), 2))
    game, rounds, V, W = _profile_against(v, 2, basis)
    start = game.states.index((3, (0, 0)))
    prof = policies.table_policy("perturbed", v, *_tables_2p(v, game, rounds, basis), ctx_mode=1, players=2)
    same = policies.evaluate(v, [prof, prof])["p_seat0"]
    br = solve(v, 2, against=[prof], seat=0)
    best = policies.table_policy("br", v, *br.tables_2p(), ctx_mode=1, players=2)
    gain = policies.evaluate(v, [best, prof])["p_seat0"] - same
    assert V[start, 0] == pytest.approx(same, abs=1e-12)
    assert gain > 1e-3
    assert W[start, 0] - V[start, 0] == pytest.approx(gain, abs=1e-12)


def test_a_certificate_told_its_profile_converged_when_it_did_not_finds_the_same_best_responses():
    # Told that the profile converged, the certificate makes its first décharge pass without
    # the outcome distributions (an equilibrium's iteration ends there). A profile made against
    # random values is no equilibrium: the pass does not end the iteration, which must go on to
    # the same numbers, bit for bit, as when told the truth.
    v = Variant.from_preset("super421", ["tokens=6"])
    n = 3
    basis = np.random.default_rng(5).uniform(size=(len(NG.role_game(v, n).states), n))
    game, rounds, V, W = _profile_against(v, n, basis)
    W2, it2 = NC._best_responses(game, rounds, basis, basis, V, "pay", {}, 1e-13, 50, converged=True)
    assert it2 > 1
    assert np.array_equal(W2, W)


def test_a_perturbed_three_player_profile_gains_what_the_best_response_to_it_gains():
    # The certificate (the game by role, one more component) and the best response to the
    # same profile played by both others (the game by seat, the profile's choices
    # recomputed there) are two computations of the same number.
    v = Variant.from_preset("super421-lebon", ["tokens=3"])
    n = 3
    basis = np.random.default_rng(3).uniform(size=(len(NG.role_game(v, n).states), n))
    game, rounds, V, W = _profile_against(v, n, basis)
    assert (W - V).min() > -1e-12  # a best response never does worse than the profile
    fake = NP.NSolution(v, n, "pay", game.states, V, 1 - V, V, np.zeros(game.size), W - V, basis, 0, 0.0, True,
                        0, 0.0, 0.0, {}, np.zeros(1))
    fake.__dict__["_choice_values"] = basis  # the profile's choices: against basis in every state
    start = game.states.index((3, (0, 0, 0)))
    assert (W - V)[start].max() > 1e-3
    for seat in range(n):
        br = solve(v, n, against=[fake, fake], seat=seat)
        assert br.value[br.start] == pytest.approx(W[start, seat], abs=1e-12)
        assert br.seat_p_pay[seat] == pytest.approx(1 - W[start, seat], abs=1e-12)
        assert br.seat_p_pay.sum() == pytest.approx(1.0, abs=1e-12)  # one payer per game


@pytest.mark.parametrize("preset,overrides,n,objective", [
    ("classic", ["tokens=6"], 3, "pay"),  # the games of 2 players left: their best replies gain ~1e-16
    ("classic", ["tokens=6"], 3, "win"),
    ("super421-lebon", ["tokens=4"], 4, "pay"),
])
def test_a_certificate_that_skips_its_first_pass_skips_one_that_would_have_ended_it(preset, overrides, n,
                                                                                     objective, monkeypatch):
    # After a converged iteration the certificate's first décharge pass is not run where a bound
    # proves it would find nothing to gain (NC._first_pass_ends): the pass, run, must end the
    # iteration (its residual within tol), and the certificate must be the same, bit for bit, as
    # when the pass runs.
    v = Variant.from_preset(preset, overrides)
    args = (v, n, objective, 1e-13, 200, 10, True)
    proofs = []
    proven = NC._first_pass_ends
    monkeypatch.setattr(NC, "_first_pass_ends", lambda *a: proofs.append(proven(*a)) or proofs[-1])
    fast = NP._solve_equilibrium(*args)
    assert proofs and all(proofs)  # this game's (and those of fewer players, when solved here)
    monkeypatch.setattr(NC, "_first_pass_ends", lambda *a: False)
    slow = NP._solve_equilibrium(*args)
    np.testing.assert_array_equal(fast.gain, slow.gain)
    assert fast.br_iterations == slow.br_iterations == 1
    game = NG.role_game(v, n)
    rounds = NG.Rounds(game)
    dech = game.decharge()
    subV = NPR._sub_values(fast.subs, objective)
    subW = NPR._sub_values(fast.subs, objective, "best_value")
    u, _ = NC._br_rounds(game, rounds, dech, fast.basis, subV, objective, fast.value, subW, False)
    assert np.abs(u - fast.value[dech]).max() <= 1e-13


def test_a_certificate_does_not_skip_a_pass_that_may_find_a_gain():
    # the bound: the profile's last residual, twice how far the values moved from the basis,
    # the best replies' gain in the games of fewer players; within half of tol, or the pass runs
    v = Variant.from_preset("classic", ["tokens=6"])
    game = NG.role_game(v, 3)
    V = np.random.default_rng(1).uniform(size=(game.size, 3))
    sub = {2: np.zeros((4, 2))}
    assert NC._first_pass_ends(game, V, V, sub, sub, 4e-14, 1e-13)
    assert not NC._first_pass_ends(game, V, V, sub, sub, 6e-14, 1e-13)
    moved = V.copy()
    moved[game.decharge()[0], 1] += 3e-14
    assert not NC._first_pass_ends(game, V, moved, sub, sub, 0.0, 1e-13)
    assert not NC._first_pass_ends(game, V, V, sub, {2: np.full((4, 2), 6e-14)}, 0.0, 1e-13)


@pytest.mark.parametrize("objective", ["pay", "win"])
def test_an_equilibrium_is_certified(objective):
    sol = solve(Variant.from_preset("super421-lebon", ["tokens=3"]), 4, objective)
    assert sol.converged and sol.residual <= 1e-12
    assert sol.exploitability <= 1e-12 and sol.gain_any_state <= 1e-12
    assert sol.gain.min() > -1e-12
    # one game: one payer and one winner share, in expectation over the seats
    assert sol.seat_p_pay.sum() == pytest.approx(1.0, abs=1e-12)
    assert sol.seat_p_win.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("preset,players", [("montreal", 3), ("classic", 3), ("montreal", 4)])
def test_a_one_throw_charge_led_by_its_loser_is_fair_to_every_seat(preset, players):
    # Every seat throws once in a charge round, so the first loser is any seat alike and
    # everything after is seen from it (it leads): each seat pays exactly 1/players.
    sol = solve(Variant.from_preset(preset, ["tokens=3"]), players)
    assert np.allclose(sol.seat_p_pay, 1 / players, atol=1e-12, rtol=0)
    assert np.allclose(sol.seat_p_win, 1 / players, atol=1e-12, rtol=0)


# ====================================================================== best responses to tables
@pytest.mark.parametrize("preset", PRESETS)
def test_two_player_best_responses_are_worth_what_the_chain_evaluator_says(preset):
    v = Variant.from_preset(preset, ["tokens=4"])
    for opp in ("greedy", "sec", "table-aware", "chase421"):
        for seat in (0, 1):
            br = best_response(v, 2, [opp], seat=seat)
            best = policies.table_policy("br", v, *br.tables_2p(), ctx_mode=1, players=2)
            p0 = policies.evaluate(v, [best, opp] if seat == 0 else [opp, best])["p_seat0"]
            assert br.seat_p_win[seat] == pytest.approx(p0 if seat == 0 else 1 - p0, abs=1e-12)
            assert br.seat_p_pay[1 - seat] == pytest.approx(br.seat_p_win[seat], abs=1e-12)
            # no better than the best response: the optimum against the same opponent
            opt = policies.evaluate(v, ["optimal", opp] if seat == 0 else [opp, "optimal"])["p_seat0"]
            assert br.seat_p_win[seat] >= (opt if seat == 0 else 1 - opt) - 1e-12


def test_the_best_response_to_the_two_player_optimum_is_the_value_of_the_game():
    v = Variant.from_preset("super421-lebon", ["tokens=6"])
    ref = solver2.solve(v)
    br = best_response(v, 2, ["optimal"], seat=0)
    assert br.seat_p_win[0] == pytest.approx(ref.p_seat0, abs=1e-12)


def test_a_best_response_to_the_equilibrium_gains_nothing():
    v = Variant.from_preset("super421", ["tokens=3"])
    sol = solve(v, 3)
    for seat in range(3):
        br = best_response(v, 3, "equilibrium", seat=seat)
        assert br.seat_p_pay == pytest.approx(sol.seat_p_pay, abs=1e-12)


# ====================================================================== inputs
@pytest.mark.parametrize("kwargs,match", [
    (dict(players=9), "players: 9 is not allowed; allowed: 2 to 8"),
    (dict(players=1), "players: 1 is not allowed; allowed: 2 to 8"),
    (dict(players=3, objective="lose"), "objective: 'lose' is not allowed; allowed: pay, win"),
    (dict(players=3, against=["sec"]), "against: 1 entries are not allowed; allowed: 2 entries"),
    (dict(players=3, against=["equilibrium", 5]), "against: 5 is not allowed; allowed: table policies"),
    (dict(players=3, against=["equilibrium", "sec"]), "against: 'sec' is not allowed here; allowed: "
                                                      "'equilibrium', 'optimal', or a compiled table policy"),
])
def test_bad_arguments_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        solve(Variant.from_preset("super421", ["tokens=2"]), **kwargs)


@pytest.mark.parametrize("against,seat,match", [
    (["greedy"], 0, "against: 1 entries are not allowed; allowed: 2 entries"),
    (["greedy", "nonsense"], 0, "against: 'nonsense' is not allowed; allowed: sec, chase421, greedy, "
                                "table-aware, random, optimal, equilibrium"),
    (["greedy", "sec"], 3, "seat: 3 is not allowed; allowed: 0 to 2"),
])
def test_bad_opponents_by_name_are_named(against, seat, match):
    with pytest.raises(ValueError, match=match):
        best_response(Variant.from_preset("super421", ["tokens=2"]), 3, against, seat=seat)


def test_too_many_tokens_for_the_players():
    with pytest.raises(ValueError, match="tokens: 12 is too many for the exact 6-player solver; allowed: 1 to 11"):
        solve(Variant.from_preset("super421", ["tokens=12"]), 6)


def test_a_policy_of_another_variant_or_context_mode_is_refused():
    v = Variant.from_preset("super421", ["tokens=2"])
    other = policies.compile_policy("greedy", Variant.from_preset("classic", ["tokens=2"]), 3)
    with pytest.raises(ValueError, match="against: policy 'greedy' was built for another variant"):
        solve(v, 3, against=[other, policies.compile_policy("sec", v, 3)])
    with pytest.raises(ValueError, match="policies: policy 'greedy' was built for classic with tokens=2, not for "
                                         "super421"):
        best_response(v, 3, [other, "sec"])
    with pytest.raises(ValueError, match="against: 'optimal' is not allowed; allowed: table policies"):
        best_response(v, 3, [policies.compile_policy("optimal", v, 3), "sec"])


# ====================================================================== contexts
# Montreal: exact followers, the nénette rescue, cumulative payouts; classic: at_most followers, fewer_throws_wins
@pytest.mark.parametrize("preset,overrides", [("montreal", ["tokens=4"]),
                                              ("classic", ["tokens=4", "charge_throws=2", "decharge_throws=2"])])
def test_a_context_holds_all_a_follower_needs_of_the_hands_before_it(preset, overrides):
    # Random complete tables of 4 players: their outcome read through the merged contexts
    # (built from the first history met for each) is their outcome judged directly.
    from four21sim.exact import _nplayer_kernels as NK
    from four21sim.rules import kernel as R
    v = Variant.from_preset(preset, overrides)
    game = NG.role_game(v, 4)
    rounds = NG.Rounds(game)
    rank, value, prm = NG.rule_arrays(v)
    rng = np.random.default_rng(11)
    buf, keys, tl, tw = (np.zeros(n, np.int64) for n in (NK.MAX_ENTRIES, 4, 4, 4))
    for phase in NG.PHASES:
        ct = rounds.contexts(4, phase)
        lwp_class, _ = NG.lwp_classes(game, 4, phase)
        for _ in range(1000):
            c = int(rng.integers(1, ct.L + 1))
            hands = rng.integers(0, 56, 4)
            throws = np.array([c] + [c if v.followers == "exact" else int(rng.integers(1, c + 1)) for _ in range(3)])
            g = ct.context_of(list(hands[:3]), list(throws[:3]), c)
            slot = 0 if ct.exact else throws[3] - 1
            e = ct.trans[ct.row_start[g] + slot * 56 + hands[3]] - ct.G
            seen = {int(q): w for q, w in zip(ct.fin_cls[ct.fin_start[e]:ct.fin_start[e + 1]],
                                                ct.fin_w[ct.fin_start[e]:ct.fin_start[e + 1]])}
            n = NK.judge_round(hands, throws, 4, R.CHARGE if phase == "charge" else R.DECHARGE, v.tokens, rank,
                               value, prm, keys, tl, tw, buf)
            direct: dict = {}
            for code in buf[:n]:
                q = int(lwp_class[code & 7, (code >> 3) & 7, (code >> 6) & 16383])
                direct[q] = direct.get(q, 0.0) + (code >> 20) / NK.SHARE_UNIT
            assert seen.keys() == direct.keys() and all(abs(seen[q] - direct[q]) < 1e-15 for q in seen), \
                (phase, hands, throws)


# ====================================================================== ties, stored form, evaluation
def test_ties_move_nobody_in_a_zero_sum_game_and_somebody_with_three():
    # With two players what one is indifferent to, the other is too (the values add up to 1).
    v = Variant.from_preset("super421", ["tokens=4"])
    assert NP.tie_spread(solve(v, 2)).max() <= 1e-12
    # With three, some choices equally good for the chooser are not for the others
    # (docs/equilibrium.md): the documented tie order picks the equilibrium.
    spread = NP.tie_spread(solve(v, 3))
    assert spread.min() >= 0.0 and spread.max() > 0.1


def test_a_stored_solution_comes_back_and_cannot_lie(tmp_path, monkeypatch):
    monkeypatch.setenv("FOUR21SIM_CACHE_DIR", str(tmp_path))
    v = Variant.from_preset("classic", ["tokens=4"])  # last_holder: with the games of fewer players
    sol = solve(v, 3)
    key = cache.entry_key("nplayer-test", options=v.options(), players=3)
    cache.store(key, *NP.to_arrays(sol))
    back = NP.from_arrays(v, cache.load(key))
    assert back is not None and sorted(back.subs) == [2]
    for name in ("value", "p_pay", "p_win", "rounds", "gain", "basis", "dist"):
        assert np.array_equal(getattr(back, name), getattr(sol, name)), name
    assert NP.verify(back)["value"] <= 1e-12
    assert NP.verify(back, full=True)["dist"] <= 1e-13
    for hand in range(56):  # the same decisions, recomputed from the stored values
        assert back.keep((0, (1, 1, 2)), 1, (9,), (2,), 1, hand) == sol.keep((0, (1, 1, 2)), 1, (9,), (2,), 1, hand)
    assert NP.from_arrays(Variant.from_preset("classic", ["tokens=5"]), cache.load(key)) is None
    bad = cache.load(key)
    bad["value"] = bad["value"] + 1e-6  # a value its chain does not give
    with pytest.raises(ValueError, match="solution: does not hold"):
        NP.verify(NP.from_arrays(v, bad))


def test_a_table_line_up_is_worth_what_the_two_player_chain_evaluator_says():
    v = Variant.from_preset("super421-lebon", ["tokens=5"])
    for pair in (["greedy", "sec"], ["table-aware", "chase421"]):
        ref = policies.evaluate(v, pair)
        got = policies.evaluate_lineup(v, 2, pair)
        assert got["p_win"][0] == pytest.approx(ref["p_seat0"], abs=1e-12)
        assert got["expected_rounds"] == pytest.approx(ref["expected_rounds"], abs=1e-12)


def test_a_decision_asked_for_an_impossible_situation_is_refused():
    sol = solve(Variant.from_preset("super421", ["tokens=2"]), 3)
    with pytest.raises(ValueError, match="state: .* is not allowed"):
        sol.keep((2, (1, 0, 0)), 0, (), (), 1, 5)
    with pytest.raises(ValueError, match="hands: 0 hands and 0 throws are not allowed"):
        sol.keep((2, (0, 0, 0)), 1, (), (), 1, 5)
    with pytest.raises(ValueError, match="made: 3 is not allowed; allowed: 1 to 2"):
        sol.keep((2, (0, 0, 0)), 0, (), (), 3, 5)


# ====================================================================== exact.solve and the disk store
def test_exact_solve_is_the_n_player_solver_from_three_players():
    from four21sim import exact
    v = Variant.from_preset("super421", ["tokens=2"])
    sol = exact.solve(v, 4)
    assert isinstance(sol, NP.NSolution) and sol.players == 4
    assert sol.seat_p_pay.sum() == pytest.approx(1.0, abs=1e-12) and sol.exploitability <= 1e-12
    assert exact.solve(v, 3, "win") is solve(v, 3, "win")
    assert exact.solve(v, 2) is solver2.solve(v)
    with pytest.raises(ValueError, match="players: 9 is not allowed; allowed: 2 to 8"):
        exact.solve(v, 9)


def test_a_solution_is_read_back_from_the_disk_store_and_a_forged_one_is_solved_again(tmp_path, monkeypatch):
    monkeypatch.setenv("FOUR21SIM_CACHE_DIR", str(tmp_path))
    v = Variant.from_preset("super421", ["tokens=2", "end=last_holder"])
    NP._equilibrium.cache_clear()
    first = solve(v, 4)
    # one entry per game: the 4-player one and the games of 3 and 2 players left (last_holder)
    assert not first.info.get("from_cache") and len(list(tmp_path.glob("*.npz"))) == 3
    NP._equilibrium.cache_clear()
    again = solve(v, 4)
    assert again.info.get("from_cache") and sorted(again.subs) == [2, 3]
    for name in ("value", "p_pay", "p_win", "gain", "basis", "dist"):
        assert np.array_equal(getattr(again, name), getattr(first, name)), name
    path = max(tmp_path.glob("*.npz"), key=lambda p: p.stat().st_size)  # the 4-player game's (it holds the others)
    with np.load(path) as z:
        forged = {k: z[k] for k in z.files}
    forged["p_pay"] = forged["p_pay"][:, ::-1].copy()  # the seats' P(pay) swapped: a solution of no game
    with open(path, "wb") as f:
        np.savez(f, **forged)
    NP._equilibrium.cache_clear()
    with pytest.warns(cache.CacheWarning, match="refused"):
        third = solve(v, 4)
    assert not third.info.get("from_cache") and np.abs(third.p_pay - first.p_pay).max() <= 1e-12
    NP._equilibrium.cache_clear()


# ====================================================================== a décharge iteration that cycles
def _one_throw_dist(v: Variant, n: int, B: int) -> np.ndarray:
    """The décharge round's outcome distribution when everyone throws once, as the profile plays
    the variant whose décharge allows one throw (nobody has a choice there): another way to
    the distribution the solver starts from (its round kernel playing a table of stops)."""
    one = v.with_options({"decharge_throws": 1})
    game = NG.role_game(one, n)
    dech = game.decharge()
    _, d = NG.Rounds(game).run(dech[:1], np.zeros((1, n, n, game.P, n)), n, want_dist=True)
    return np.broadcast_to(d, (B,) + d.shape[1:])


@pytest.mark.parametrize("preset,overrides,n", [("classic", ["tokens=6"], 3), ("super421-lebon", ["tokens=4"], 4),
                                                 ("montreal", ["tokens=5"], 3)])
def test_the_iteration_starts_from_everyone_stopping_at_the_first_throw(preset, overrides, n):
    v = Variant.from_preset(preset, overrides)
    game = NG.role_game(v, n)
    dech = game.decharge()
    got = NPR._first_throw_dist(game, NG.Rounds(game), dech)
    np.testing.assert_allclose(got, _one_throw_dist(v, n, len(dech)), rtol=0, atol=1e-15)
    assert got.sum(axis=(1, 2, 3)) == pytest.approx(np.ones(len(dech)), abs=1e-12)  # a distribution


def test_a_profile_that_comes_back_ends_the_iteration_with_the_profile_the_stall_rule_keeps():
    """Le bon at 6 tokens cycles at 3 players (the residual stays at 6e-6). The iteration written
    out plainly here (start from the values of everyone stopping at the first throw, solve every
    round, evaluate exactly, keep the smallest residual, no stop but max_iter) runs 30 iterations:
    the solver's profile is the one it keeps, and the solver stopped at the first iteration whose
    profile had been found before, bit for bit."""
    v = Variant.from_preset("super421-lebon", ["tokens=6"])
    game = NG.role_game(v, 3)
    rounds = NG.Rounds(game)
    dech = game.decharge()
    V = np.zeros((game.size, 3))
    V[dech] = NPR._decharge_values(game, _one_throw_dist(v, 3, len(dech)), "pay", {})
    profiles, best = [], None
    for _ in range(30):
        u, d = rounds.run(dech, np.array([NG.succ(game, s, V, {}, "pay") for s in dech]), 3, want_dist=True)
        residual = float(np.abs(u - V[dech]).max())
        if best is None or residual < best[0] * (1 - 1e-6):
            best = (residual, V[dech].copy())
        profiles.append(d)
        dist = np.zeros((game.size, 3, 3, game.P))
        dist[dech] = d
        V[dech] = NPR._decharge_values(game, dist[dech], "pay", {})
    first_repeat = next(t for t in range(1, 30) if any(np.array_equal(profiles[t], p) for p in profiles[:t])) + 1
    sol = NP._solve_equilibrium(v, 3, "pay", 1e-13, 200, 10, False)
    assert not sol.converged and best[0] > 1e-9  # it does cycle
    assert sol.iterations == first_repeat < 10 + 1
    assert sol.residual == best[0]
    assert np.array_equal(sol.basis[dech], best[1])  # the décharge values of the profile kept
