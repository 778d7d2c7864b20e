"""check_policy checks a table's content once: the same tables again (every simulate() of a search
plays them) pass without a second scan, and nothing that would be refused passes.

The memo is keyed by a digest of the tables' contents, the context mode and the variant: tables changed
in place, or the same tables under another follower rule, are checked again.
"""

from __future__ import annotations

import numpy as np
import pytest

from four21sim.policies import tables
from four21sim.policies.tables import Policy, check_policy, stop_tables
from four21sim.rules import dice
from four21sim.rules.variants import Variant

LE_BON = Variant.from_preset("super421-lebon")
EXACT = Variant.from_preset("super421")


def policy(variant: Variant, lead=None, foll=None) -> Policy:
    stop_lead, stop_foll = stop_tables()
    return Policy("mine", "table", 0, stop_lead if lead is None else lead, stop_foll if foll is None else foll,
                  variant)


@pytest.fixture
def scans(monkeypatch):
    """The number of full scans of the keep tables, from an empty memo."""
    monkeypatch.setattr(tables, "_PASSED", {}, raising=False)
    count = []
    real = tables._check_keeps
    monkeypatch.setattr(tables, "_check_keeps", lambda pol, v: (count.append(1), real(pol, v)))
    return count


def test_the_same_tables_are_scanned_once(scans):
    first = policy(LE_BON)
    check_policy(first, LE_BON)
    check_policy(first, LE_BON, players=3)
    twin = policy(LE_BON, first.lead.copy(), first.foll.copy())  # another object, the same content
    check_policy(twin, LE_BON)
    assert len(scans) == 1


def test_tables_changed_in_place_after_passing_are_refused(scans):
    pol = policy(LE_BON)
    check_policy(pol, LE_BON)
    pol.lead[0, 0, 0] = dice.FULL_KEEP + 1  # stop on a hand the leader does not hold
    with pytest.raises(ValueError, match="policy 'mine' keeps dice its leader does not hold"):
        check_policy(pol, LE_BON)
    pol.lead[0, 0, 0] = dice.FULL_KEEP
    pol.foll[0, 5, 2, 1, 7] = 200 - 256  # int8: a negative keep index
    with pytest.raises(ValueError, match="policy 'mine' keeps dice its follower does not hold"):
        check_policy(pol, LE_BON)
    assert len(scans) == 3


def test_tables_that_passed_under_le_bon_are_refused_under_the_exact_rule(scans):
    passed = policy(LE_BON)
    check_policy(passed, LE_BON)  # stopping early is allowed in le bon
    same = policy(EXACT, passed.lead.copy(), passed.foll.copy())
    with pytest.raises(ValueError, match="lets a follower stop early"):
        check_policy(same, EXACT)
    with pytest.raises(ValueError, match="lets a follower stop early"):  # and again: a refusal is not kept
        check_policy(same, EXACT)
    assert len(scans) == 3


def test_tables_of_the_wrong_shape_are_refused_whatever_passed_before(scans):
    pol = policy(LE_BON)
    check_policy(pol, LE_BON)
    short = policy(LE_BON, np.ascontiguousarray(pol.lead[:, :, :55]))
    with pytest.raises(ValueError, match="wrong shape"):
        check_policy(short, LE_BON)


def test_one_bad_context_among_equal_ones_is_refused(scans):
    """The follower checks look at each distinct context row once: a row unlike the others is looked at."""
    lead, foll = stop_tables(n_ctx=9)
    foll[6, 10, 2, 1, 20] = dice.FULL_KEEP + 21  # stop on a hand the follower does not hold
    with pytest.raises(ValueError, match="keeps dice its follower does not hold"):
        check_policy(Policy("mine", "table", 0, lead, foll, LE_BON), LE_BON)
    lead, foll = stop_tables(n_ctx=9)
    foll[...] = np.array([[k for k in dice.keeps_of(h) if k != dice.FULL_KEEP + h][0] for h in range(56)],
                         dtype=foll.dtype)  # every follower re-throws something: never stops
    check_policy(Policy("mine", "table", 0, lead, foll, EXACT), EXACT)
    foll[7, 3, 2, 0, 9] = dice.FULL_KEEP + 9  # one early stop, in one context
    with pytest.raises(ValueError, match="lets a follower stop early"):
        check_policy(Policy("mine", "table", 0, lead, foll, EXACT), EXACT)
