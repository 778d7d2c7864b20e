"""The value of leading (four21sim.exact.leading) against an independent game-tree search, and
the engine's per-position round rates and round-1-loser outcome against those exact values.

The brute force is tests/two_player_search.py's search, written from the rules
alone; here it also carries, through the optimal decisions of round 1, the probability
that the round's loser goes on to win the game (min and max over optimal tie-breaks).
Simulated values must lie within |z| <= 4 of the exact ones (false alarm about 6e-5
per comparison for a correct engine).
"""

from __future__ import annotations

import pytest
from two_player_search import VARIANTS, brute_force, solve_round

from four21sim import Variant, simulate
from four21sim.exact.leading import lead_summary, lead_values, round1_loser_wins, round_rates_exact

Z_MAX = 4.0


@pytest.mark.parametrize("name", ["super-t3", "lebon-t3-winner", "montreal-t4", "classic-t3-seat"])
def test_lead_values_against_brute_force(name):
    v = VARIANTS[name]
    bf = brute_force(v)
    lv = lead_values(v)
    assert len(lv) == len(bf)
    for r in lv.itertuples():
        want = bf[(r.pot, r.tokens_me, r.tokens_other)][0] - (1 - bf[(r.pot, r.tokens_other, r.tokens_me)][0])
        assert r.lead_value == pytest.approx(want, abs=1e-9), f"{name}: state {(r.pot, r.tokens_me, r.tokens_other)}"


@pytest.mark.parametrize("name", ["super-t1", "super-t3", "lebon-t3-winner", "montreal-t4", "classic-t3-seat"])
def test_round1_loser_against_brute_force(name):
    v = VARIANTS[name]
    bf = brute_force(v)
    V = {s: t[0] for s, t in bf.items()}
    T = v.tokens

    def loser_wins(loser_is_leader, w):  # w: P(the round's leader wins the game)
        return w if loser_is_leader else 1.0 - w

    _val, q0, q1, _lv, _fv = solve_round(v, (T, 0, 0), V, {s: (0.0, 0.0) for s in V}, q_of=loser_wins)
    got = round1_loser_wins(v)
    assert q0 - 1 - 1e-9 <= got <= q1 - 1 + 1e-9, f"{name}: {got} not in [{q0 - 1}, {q1 - 1}]"
    if T == 1:  # one round: its loser loses the game
        assert got == pytest.approx(0.0, abs=1e-12)


def test_sec_charge_leading_is_worth_nothing_in_the_charge():
    """Montreal's charge is thrown sec: nobody decides, so leading a charge round is worth
    exactly nothing and the leader loses half of the charge rounds."""
    s = lead_summary(Variant.from_preset("montreal"))
    assert abs(s["by_phase"]["charge"]["min"]) < 1e-12 and abs(s["by_phase"]["charge"]["max"]) < 1e-12
    charge = [r for r in s["round_rates"] if r["phase"] == "charge" and r["position"] == 0][0]
    assert charge["p_lose"] == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize("preset", ["super421", "montreal"])
def test_simulated_leading_against_exact(preset):
    """Optimal play simulated: per-round loss and win rates of leader and follower by
    phase, and the round-1 loser's win and pay shares, within |z| <= 4 of the solver's."""
    v = Variant.from_preset(preset)
    res = simulate(v, 2, "optimal", games=150_000, seed=2026, block=2048)
    exact = round_rates_exact(v).set_index(["phase", "position"])
    sim = res.position_rates().set_index(["phase", "position"])
    assert set(sim.index) == set(exact.index)
    for key, e in exact.iterrows():
        s = sim.loc[key]
        for what in ("lose", "win"):
            se = (s[f"p_{what}_high"] - s[f"p_{what}_low"]) / (2 * 1.959963984540054)
            want = e[f"p_{what}"]
            if se == 0:  # only when the exact rate is 0 or 1
                assert s[f"p_{what}"] == pytest.approx(want, abs=1e-12)
                continue
            assert abs(s[f"p_{what}"] - want) / se <= Z_MAX, f"{preset} {key} p_{what}: {s[f'p_{what}']} vs {want}"
    q = round1_loser_wins(v)
    r1 = res.round1_loser()
    for what, want in (("p_win", q), ("p_pay", 1 - q)):
        m, lo, hi = r1[what]
        se = (hi - lo) / (2 * 1.959963984540054)
        assert abs(m - want) / se <= Z_MAX, f"{preset} {what}: {m} vs exact {want}"


def test_solve_json_has_the_lead_value():
    from four21sim.cli.solve import analyse
    v = VARIANTS["super-t3"]
    out = analyse(["--variant", "super421", "--set", "tokens=3", "--json"])
    bf = brute_force(v)
    lv = out["lead_value"]
    assert lv["first_round"] == pytest.approx(2 * bf[(3, 0, 0)][0] - 1, abs=1e-9)
    assert lv["round1_loser_wins"] == pytest.approx(round1_loser_wins(v), abs=1e-12)
    assert set(lv["by_phase"]) == {"charge", "decharge"}


# ------------------------------------------------------------------ three players
# The 3-player values of leading are checked against the 3-player game tree in
# tests/test_nplayer3_bruteforce.py, next to the states' values, on the same tree (built once).
