"""The symmetry theorem (docs/fairness.md) against exact values from the solvers.

Witnesses: the 2-player solver's optimum and exact evaluation of fixed table policies
(Markov chains of the game, four21sim.exact.two_player), and the 3-player equilibrium of
four21sim.exact.nplayer. None of them knows the theorem.

- wherever :func:`seat_symmetry` says the theorem applies, every seat's exact P(pay) is
  1/players to 1e-12: every single rule change of the one-throw-charge presets (Montreal,
  classic) and of Super 421 with a one-throw charge, every table policy and optimal play,
  2 players; three players at the equilibrium;
- where a condition fails (``next_leader = next_seat``, a three-throw charge) the exact
  values differ from 1/players by far more than rounding;
- theorem A (nobody ever decides) holds whatever the line-up and the next-leader rule.

Small token counts keep every solve a fraction of a second: the theorem holds at every
token count.
"""

from __future__ import annotations

import pytest

from four21sim import Variant
from four21sim.exact import nplayer
from four21sim.exact.symmetry import KINDS, seat_symmetry
from four21sim.exact.two_player import solve
from four21sim.policies import evaluate
from four21sim.rules.variants import OPTION_TABLE

TOKENS = "tokens=3"
POLICIES = ("sec", "chase421", "greedy", "table-aware")
NEVER = {"sec"}


def _changes(preset: str) -> list[list[str]]:
    """The preset, and the preset with every other explored value of every option but the tokens
    and the charge's throw limit (the theorem's own condition, tested below)."""
    base = Variant.from_preset(preset)
    out = [[]]
    for o in OPTION_TABLE:
        if o.name in ("tokens", "charge_throws"):
            continue
        for value in o.explore:
            if getattr(base, o.name) != value:
                out.append([f"{o.name}={str(value).lower()}"])
    return out


ONE_THROW = [(p, ch) for p in ("montreal", "classic") for ch in _changes(p)] + \
    [("super421", ["charge_throws=1", *ch]) for ch in _changes("super421")]


def _p_seat0(v: Variant, policy: str) -> float:
    return solve(v).p_seat0 if policy == "optimal" else evaluate(v, [policy, policy])["p_seat0"]


@pytest.mark.parametrize("preset,changes", ONE_THROW, ids=lambda x: x if isinstance(x, str) else ",".join(x))
def test_where_the_theorem_applies_two_players_pay_exactly_one_half(preset, changes):
    v = Variant.from_preset(preset, [TOKENS, *changes])
    for policy in ("optimal", *POLICIES):
        sym = seat_symmetry(v, [policy, policy], NEVER)
        p0 = _p_seat0(v, policy)
        if sym.applies:
            assert abs(p0 - 0.5) < 1e-12, (preset, changes, policy, p0, sym.reason)
            assert sym.share == 0.5 and sym.kind in KINDS
        else:  # one-throw charge: only next_seat can fail, and only for a line-up that decides
            assert v.next_leader == "next_seat" and policy != "sec", (preset, changes, policy, sym.reason)
            assert "next_seat" in sym.reason and sym.share is None


@pytest.mark.parametrize("preset,changes", [("montreal", ["next_leader=next_seat"]),
                                            ("classic", ["next_leader=next_seat"]),
                                            ("montreal", ["charge_throws=3"]), ("classic", ["charge_throws=3"]),
                                            ("super421", [])])
def test_where_a_condition_fails_the_seats_differ(preset, changes):
    v = Variant.from_preset(preset, [TOKENS, *changes])
    for policy in ("optimal", "greedy"):
        sym = seat_symmetry(v, [policy, policy], NEVER)
        assert not sym.applies and sym.kind == ""
        assert abs(_p_seat0(v, policy) - 0.5) > 1e-4, (preset, changes, policy)


def test_nobody_deciding_is_fair_whatever_the_lineup_and_the_next_leader():
    # both throw limits 1: a greedy player against a sec one, with next_seat, is still a coin toss
    v = Variant.from_preset("super421", [TOKENS, "charge_throws=1", "decharge_throws=1", "next_leader=next_seat"])
    sym = seat_symmetry(v, ["greedy", "sec"], NEVER)
    assert sym.applies and sym.kind == KINDS[0]
    assert abs(evaluate(v, ["greedy", "sec"])["p_seat0"] - 0.5) < 1e-12
    # everyone on sec (never re-throws) under next_seat and a three-throw charge
    w = Variant.from_preset("super421", [TOKENS, "next_leader=next_seat"])
    assert seat_symmetry(w, ["sec", "sec"], NEVER).applies
    assert abs(evaluate(w, ["sec", "sec"])["p_seat0"] - 0.5) < 1e-12
    assert not seat_symmetry(w, ["sec", "sec"]).applies  # not told that sec never re-throws: no claim
    assert not seat_symmetry(w, ["greedy", "sec"], NEVER).applies


THREE = [("montreal", []), ("classic", []), ("super421", ["charge_throws=1", "next_leader=winner"])]


@pytest.mark.parametrize("preset,changes", THREE)
def test_three_players_at_the_equilibrium_pay_exactly_one_third(preset, changes):
    v = Variant.from_preset(preset, ["tokens=3", *changes])
    assert seat_symmetry(v, ["optimal"] * 3).applies
    pay = nplayer.solve(v, 3, "pay").seat_p_pay
    assert abs(pay - 1 / 3).max() < 1e-12, pay


@pytest.mark.parametrize("preset,changes", [("montreal", ["next_leader=next_seat"]), ("montreal", ["charge_throws=3"])])
def test_three_players_where_a_condition_fails(preset, changes):
    v = Variant.from_preset(preset, ["tokens=3", *changes])
    assert not seat_symmetry(v, ["optimal"] * 3).applies
    assert abs(nplayer.solve(v, 3, "pay").seat_p_pay - 1 / 3).max() > 1e-4


def test_mixed_lineups_and_bad_input():
    v = Variant.from_preset("montreal")
    sym = seat_symmetry(v, ["optimal", "greedy", "greedy"])
    assert not sym.applies and "same strategy" in sym.reason and sym.players == 3
    with pytest.raises(ValueError, match=r"^lineup: 'greedy' is not allowed; allowed: one strategy name per seat"):
        seat_symmetry(v, "greedy")
    with pytest.raises(ValueError, match=r"^lineup: 1 seats is not allowed; allowed: 2 to 8 seats"):
        seat_symmetry(v, ["greedy"])
    with pytest.raises(ValueError, match=r"^variant: 'montreal' is not allowed; allowed: a Variant"):
        seat_symmetry("montreal", ["greedy", "greedy"])


def test_four_players_at_the_equilibrium():
    from four21sim.exact import solve
    v = Variant.from_preset("montreal", ["tokens=3"])
    sol = solve(v, 4)  # the n-player solver
    assert seat_symmetry(v, ["optimal"] * 4).applies
    assert abs(sol.seat_p_pay - 1 / 4).max() < 1e-12


def test_exact_seat_pays_reaches_every_table_the_solvers_reach():
    # the study's exact values are not limited to the engine's optimal tables (2 and 3 players):
    # a one-throw charge at 4 players pays 1/4 each by the theorem, and nothing beyond the solvers
    from four21sim.study.fairness import exact_seat_pays
    v = Variant.from_preset("montreal", ["tokens=3"])
    assert seat_symmetry(v, ["optimal"] * 4).applies
    pays = exact_seat_pays(v, 4, "optimal")
    assert pays is not None and max(abs(p - 0.25) for p in pays) < 1e-12
    assert exact_seat_pays(v, 9, "optimal") is None
    assert exact_seat_pays(Variant.from_preset("super421", ["tokens=41"]), 3, "optimal") is None
