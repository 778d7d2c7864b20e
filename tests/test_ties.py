"""The tie convention (``four21sim/exact/ties.py``): stated once, read everywhere."""

from __future__ import annotations

import tokenize
from fractions import Fraction
from pathlib import Path

import pytest

from four21sim.exact import ties

PACKAGE = Path(__file__).resolve().parents[1] / "four21sim"

# Files whose 1e-12 is no tie between keeps (a convergence or fixed-point tolerance, a value shown as 0):
# a keep chosen anywhere else with a literal of its own would fail the test below.
NOT_A_TIE = {
    "cli/solve.py": "a best response's residual called converged",
    "exact/shipped.py": "the fixed-point check of a shipped file",
    "exact/shipped_lead.py": "the leader's stored values solved again",
    "exact/ties.py": "KEEP_TIE itself",
    "exact/two_player.py": "value iteration's stopping tolerance",
    "study/fairness.py": "a quantile's search",
    "study/report.py": "a value shown as 0",
    "study/tables.py": "a value shown as 0",
}


def test_the_first_keep_within_the_tie_of_the_best_is_taken():
    assert ties.first_within({"stop": 0.5, "keep 6": 0.5 + 5e-13, "keep 61": 0.4}) == "stop"
    assert ties.first_within({"stop": 0.5, "keep 6": 0.5 + 2e-12, "keep 61": 0.4}) == "keep 6"
    assert ties.first_within({"a": 0.1, "b": 0.3, "c": 0.3}) == "b"


def test_exact_fractions_tie_only_when_equal():
    assert ties.tolerance([Fraction(1, 3), Fraction(2, 6), 1]) == 0
    assert ties.tolerance([Fraction(1, 3), 1 / 3]) == ties.KEEP_TIE == 1e-12


def test_a_tie_order_is_named_or_refused_in_one_line():
    assert [ties.check_tie(t) for t in ties.TIE_ORDERS] == [ties.TIE_FIRST, ties.TIE_LAST, ties.TIE_NEXT_BEST,
                                                           ties.TIE_NEXT_WORST] == [0, 1, 2, 3]
    assert ties.check_tie("favour-0") == 4 and ties.check_tie("disfavour-0") == 5 and ties.check_tie("favour-2") == 8
    for bad in ("best", "favour-8", "favour--1", "favour"):
        with pytest.raises(ValueError, match=rf"tie: '{bad}' is not allowed; allowed: first, last, next-best, "
                                             r"next-worst, or favour-R or disfavour-R for a role R from 0 to 7"):
            ties.check_tie(bad)


def test_the_solvers_the_advisor_and_the_page_read_the_one_tolerance():
    from four21sim.advice import explain, site
    from four21sim.exact import _nplayer_kernels as NK
    from four21sim.exact import _two_player_kernels as SK
    from four21sim.exact import nplayer, round_tables, two_player
    assert SK.KEEP_TIE is NK.KEEP_TIE is two_player.KEEP_TIE is explain.GAME_TIE is ties.KEEP_TIE
    assert nplayer.TIE_ORDERS is ties.TIE_ORDERS and nplayer.check_tie is ties.check_tie
    assert round_tables.dice_steps()["tie"] == ties.KEEP_TIE
    assert site.manifest({}, {})["keep_tie"] == ties.KEEP_TIE


def test_no_other_module_writes_the_tolerance_as_a_number():
    found = {}
    for p in sorted(PACKAGE.rglob("*.py")):
        with open(p, "rb") as f:
            for t in tokenize.tokenize(f.readline):  # numbers in code: not in comments or docstrings
                if t.type == tokenize.NUMBER and t.string.lower().endswith("e-12") and float(t.string) == 1e-12:
                    found.setdefault(p.relative_to(PACKAGE).as_posix(), t.start[0])
    assert set(found) == set(NOT_A_TIE), found
