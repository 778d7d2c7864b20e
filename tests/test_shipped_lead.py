"""The leader's values shipped beside the equilibria (four21sim.exact.shipped_lead), for the page.

Each file's values must be what the rounds of the shipped equilibrium give (every state at 4
players, solved again here one by one; every file is read, 3 of its states solved again, with
its solution in tests/test_shipped.py), the page's data must be the same with them as without them,
and a file that is not the solution's (values moved, another solution, other states, not a file of
arrays) must be refused with one warning, the values then computed.
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

from four21sim.advice import site
from four21sim.exact import nplayer, round_tables, shipped, shipped_lead
from four21sim.rules.variants import PRESETS

SHIPPED = sorted(p.name for p in shipped.FOLDER.glob("*.lead.npz"))


@pytest.fixture(scope="module")
def sol4():
    return nplayer.solve(PRESETS["super421"], 4, "pay")


def _needed(sol) -> list[int]:
    return site.lead_state_list(site.lead_states(sol))


def test_the_page_needs_them_at_4_and_5_players_and_they_ship_there():
    # the default site's sizes above 3: 4, 5 and 6 (the 3-player rounds are small enough for the page to solve)
    assert {"super421-4p-pay-first.lead.npz", "super421-5p-pay-first.lead.npz",
            "super421-6p-pay-first.lead.npz"} <= set(SHIPPED)
    for name in SHIPPED:
        assert (shipped.FOLDER / name.replace(".lead.npz", ".npz")).is_file(), name


def test_a_phase_is_stored_where_its_contexts_are_many_and_its_states_few():
    # counted here from the rules of the page (site.LEAD_CONTEXTS, site.LEAD_STATES), with the contexts and
    # states of docs/site.md's table: 3 players nothing; 4 and 5 players the décharge (64,194 and 289,422
    # contexts; 120 and 210 states), not the charge (9,912 and 26,544 contexts); 6 players the décharge
    # (1,096,440 contexts, 252 states), not the charge (61,992 contexts, but 8,008 states)
    class Sol:
        def __init__(self, decharge_states, charge_states):
            self.states = [(0, ())] * decharge_states + [(1, ())] * charge_states

    cases = [((9_576, 2_688), Sol(45, 300), {}),
             ((64_194, 9_912), Sol(120, 1000), {"decharge": 120}),
             ((289_422, 26_544), Sol(210, 3003), {"decharge": 210}),
             ((1_096_440, 61_992), Sol(252, 8008), {"decharge": 252}),
             ((1_096_440, 61_992), Sol(252, 1000), {"decharge": 252, "charge": 1000})]
    for (dech, charge), sol, want in cases:
        need = site.lead_states(sol, {"decharge": dech, "charge": charge})
        assert {ph: len(st) for ph, st in need.items()} == want
        # stored the charge's states first (none but in the last case), then the décharge's
        charge = list(range(want["decharge"], want["decharge"] + want.get("charge", 0))) if want else []
        assert site.lead_state_list(need) == charge + list(range(want.get("decharge", 0)))


@pytest.fixture(scope="module")
def computed4(sol4):
    """Every leader's value the page reads at 4 players, each state's round solved again here."""
    states = _needed(sol4)
    return dict(zip(states, (round_tables.lead_ends(sol4, s) for s in states)))


@pytest.mark.slow
def test_every_stored_value_at_4_players_is_its_rounds(sol4, computed4):
    entry = shipped.read(shipped_lead.path_of(sol4))
    assert entry["states"].tolist() == list(computed4) and len(computed4) == 120  # every décharge state with 4 in
    for i, s in enumerate(computed4):
        assert np.abs(entry["lead_ends"][i] - computed4[s]).max() <= 1e-12, s


def test_the_pages_data_are_the_same_with_them_as_computed(sol4, computed4):
    a = site.nplayer_arrays(sol4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        stored = site.nplayer_data(sol4, a)
    computed = site.nplayer_data(sol4, a, lead_ends=computed4.__getitem__)
    assert stored["phases"]["decharge"]["lead_ends"] == computed["phases"]["decharge"]["lead_ends"]
    assert stored == computed


def _forged(tmp_path: Path, sol, change) -> Path:
    """A copy of the shipped file, its arrays changed by ``change(entry)``, written as the shipper writes."""
    entry = shipped.read(shipped_lead.path_of(sol))
    change(entry)
    out = tmp_path / "forged.lead.npz"
    solution = tmp_path / "solution.npz"
    shutil.copy(shipped.path_of(sol.variant, 4), solution)
    shipped_lead.write(sol, entry["states"], solution, out, entry["lead_ends"])
    return out


def _moved(e):
    e["lead_ends"] = e["lead_ends"] + 1e-9  # every value: whichever states are drawn, they show it


def _fewer(e):
    e["states"], e["lead_ends"] = e["states"][:-1], e["lead_ends"][:-1]


@pytest.mark.parametrize("change, why", [(_moved, "are not its round's"), (_fewer, "states are not the ones asked")],
                         ids=["values moved", "a state missing"])
def test_a_forged_file_is_refused(sol4, tmp_path, monkeypatch, change, why):
    path = _forged(tmp_path, sol4, change)
    monkeypatch.setattr(shipped_lead, "path_of", lambda sol: path)
    with pytest.warns(shipped.ShippedWarning, match=why):
        assert shipped_lead.load(sol4, _needed(sol4)) is None


def test_the_page_computes_the_values_a_refused_file_would_have_given(sol4, tmp_path, monkeypatch):
    path = _forged(tmp_path, sol4, _moved)
    monkeypatch.setattr(shipped_lead, "path_of", lambda sol: path)
    asked = []

    def computed(sol, s):  # what the page computes in its place: a marker of each state, not the file's values
        asked.append(s)
        return np.full((3, 56), float(s))

    monkeypatch.setattr(round_tables, "lead_ends", computed)
    with pytest.warns(shipped.ShippedWarning):
        data = site.nplayer_data(sol4, site.nplayer_arrays(sol4))
    need = _needed(sol4)
    assert asked[-len(need):] == need  # every state, after the few the refused file's check asked for
    want = site.nplayer_data(sol4, site.nplayer_arrays(sol4), lead_ends=lambda s: np.full((3, 56), float(s)))
    assert data == want


def test_values_of_another_solution_are_refused(sol4, tmp_path, monkeypatch):
    # computed from a solution file of other bytes (a solution shipped again since): its digest differs
    path = tmp_path / "other.lead.npz"
    other = tmp_path / "other-solution.npz"
    other.write_bytes(shipped.path_of(sol4.variant, 4).read_bytes() + b"\0")
    entry = shipped.read(shipped_lead.path_of(sol4))
    shipped_lead.write(sol4, entry["states"], other, path, entry["lead_ends"])
    monkeypatch.setattr(shipped_lead, "path_of", lambda sol: path)
    with pytest.warns(shipped.ShippedWarning, match="its key is not this solution's"):
        assert shipped_lead.load(sol4, _needed(sol4)) is None


@pytest.mark.parametrize("content", [b"", b"not a zip", b"PK\x03\x04" + b"\0" * 40], ids=["empty", "text", "torn"])
def test_a_file_that_is_not_one_is_refused(sol4, tmp_path, monkeypatch, content):
    path = tmp_path / "bad.lead.npz"
    path.write_bytes(content)
    monkeypatch.setattr(shipped_lead, "path_of", lambda sol: path)
    with pytest.warns(shipped.ShippedWarning, match="cannot be read"):
        assert shipped_lead.load(sol4, _needed(sol4)) is None


def test_nothing_is_read_with_the_shipped_solutions_off(sol4, monkeypatch):
    monkeypatch.setenv("FOUR21SIM_SHIPPED", "off")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert shipped_lead.load(sol4, _needed(sol4)) is None
