"""Tie orders of the n-player solver (``solve(..., tie=...)``, ``nplayer.TIE_ORDERS``).

Independent anchors: the order's definition, written again here in Python over each
decision's keep values (``keep_values``, the solver's own backward induction written apart
from the kernels' choice); the certificate (each order's profile is an equilibrium); the
2-player game, zero-sum, where no order can move anybody; and for the published range
(results/nplayer/tie_orders.json), a solve again compared with what the file holds, and the
file's "first" entries with results/nplayer/nplayer.json, which experiments/nplayer_sizes.py
made apart.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from four21sim import Variant, dice
from four21sim.exact import nplayer as NP
from four21sim.exact.nplayer import TIE_ORDERS, solve

ROOT = Path(__file__).resolve().parents[1]
TIE = 1e-12  # the solver's tie tolerance (KEEP_TIE), as docs/nplayer.md states it
OTHERS = [t for t in TIE_ORDERS if t != "first"]


def test_the_tie_orders_are_the_documented_four_and_another_is_refused_by_name():
    assert TIE_ORDERS == ("first", "last", "next-best", "next-worst")
    v = Variant.from_preset("super421", ["tokens=2"])
    with pytest.raises(ValueError, match=r"tie: 'middle' is not allowed; allowed: first, last, next-best, next-worst"):
        solve(v, 3, tie="middle")
    with pytest.raises(ValueError, match="tie: 'last' is not allowed with against"):
        solve(v, 3, against=["equilibrium"] * 2, tie="last")


def _rule(tie: str, order: list[int], u: dict, role: int, nxt: int) -> int | None:
    """The keep the tie order takes among ``order`` (HAND_KEEPS order) of values ``u[k][j]``, or None
    where a value lies so near a tie's edge that rounding could decide (within 1e-14 of it)."""
    if tie == "first":
        best, bk = u[order[0]][role], order[0]
        for k in order[1:]:
            if abs(u[k][role] - (best + TIE)) < 1e-14:
                return None
            if u[k][role] > best + TIE:
                best, bk = u[k][role], k
        return bk
    top = max(u[k][role] for k in order)
    if any(abs(u[k][role] - (top - TIE)) < 1e-14 for k in order):
        return None
    tied = [k for k in order if u[k][role] >= top - TIE]
    if tie == "last":
        return tied[-1]
    if tie.startswith(("favour-", "disfavour-")):  # a fixed role's utility (modulo the players)
        nxt = int(tie.split("-")[1]) % len(u[order[0]])
    sign = 1.0 if tie in ("next-best",) or tie.startswith("favour-") else -1.0
    bk, score = tied[0], sign * u[tied[0]][nxt]
    for k in tied[1:]:
        if abs(sign * u[k][nxt] - (score + TIE)) < 1e-14:
            return None
        if sign * u[k][nxt] > score + TIE:
            bk, score = k, sign * u[k][nxt]
    return bk


SITUATIONS = ((0, (), ()), (1, (17,), (2,)), (1, (40,), (1,)), (2, (3, 30), (2, 2)))
# where a fixed role's favour decides (the situations above do not meet such a tie)
MORE = ((1, (5,), (3,)), (1, (20,), (3,)), (2, (0, 13), (3, 3)), (2, (11, 26), (3, 3)), (2, (22, 39), (3, 3)))


@pytest.mark.parametrize("tie", [*TIE_ORDERS, "favour-1", "disfavour-0", "favour-4"])
def test_each_keep_is_the_one_its_tie_order_defines(tie):
    """Every decision of the leader and of some followers in every round of a 3-player game:
    the keep taken is the one the definition picks from the keeps' values."""
    v = Variant.from_preset("super421", ["tokens=4"])
    sol = solve(v, 3, tie=tie)
    checked = ties_met = 0
    for pot, toks in sol.states:
        for role, hands, throws in SITUATIONS + (MORE if tie not in TIE_ORDERS else ()):
            limit = (v.charge_throws if pot else v.decharge_throws) if role == 0 else throws[0]
            for made in range(1, limit):
                for hand in range(dice.N_HANDS):
                    u = sol.keep_utilities((pot, toks), role, hands, throws, made, hand)
                    order = [int(k) for k in dice.HAND_KEEPS[hand, :dice.N_HAND_KEEPS[hand]] if int(k) in u]
                    want = _rule(tie, order, u, role, (role + 1) % 3)
                    if want is None:
                        continue
                    checked += 1
                    top = max(u[k][role] for k in order)
                    ties_met += sum(u[k][role] >= top - TIE for k in order) > 1
                    assert sol.keep((pot, toks), role, hands, throws, made, hand) == want, (pot, toks, role, made,
                                                                                              hand)
    assert checked > 1000 and ties_met > 50  # the rule was met where it decides


def test_no_tie_order_moves_anybody_at_two_players():
    # zero-sum: what one player is indifferent to, the other is too
    v = Variant.from_preset("super421", ["tokens=4"])
    base = solve(v, 2)
    for tie in OTHERS:
        assert np.abs(solve(v, 2, tie=tie).p_pay - base.p_pay).max() <= 1e-12


@pytest.mark.parametrize("tie", OTHERS)
def test_another_tie_order_gives_another_certified_equilibrium(tie):
    """4 players, 5 tokens: each order's profile is certified (no player gains more than 1e-12
    by deviating alone, from any state), holds as stored (its rounds solved again under its
    order give its distributions), and moves some value off the default's."""
    v = Variant.from_preset("super421", ["tokens=5"])
    base, sol = solve(v, 4), solve(v, 4, tie=tie)
    assert sol.tie == tie and base.tie == "first"
    assert sol.converged and sol.exploitability < 1e-12 and sol.gain_any_state < 1e-12
    assert NP.verify(sol, full=True)["dist"] <= 1e-13
    assert np.abs(sol.value - base.value).max() > 1e-9  # another equilibrium, not the default again
    # its seats' P(pay) are probabilities that share the one loss
    assert np.isclose(sol.seat_p_pay.sum(), 1.0, atol=1e-12) and (sol.seat_p_pay > 0).all()


def test_the_disk_store_keys_on_the_tie_order(tmp_path, monkeypatch):
    monkeypatch.setenv("FOUR21SIM_CACHE_DIR", str(tmp_path))
    v = Variant.from_preset("super421", ["tokens=4"])
    NP._equilibrium.cache_clear()
    first, last = solve(v, 3), solve(v, 3, tie="last")
    assert len(list(tmp_path.glob("*.npz"))) == 2  # one entry each: "last" did not read "first"'s
    assert np.abs(first.value - last.value).max() > 1e-9
    NP._equilibrium.cache_clear()
    again_last, again_first = solve(v, 3, tie="last"), solve(v, 3)
    assert again_last.info.get("from_cache") and again_first.info.get("from_cache")
    assert again_last.tie == "last" and again_first.tie == "first"
    assert np.array_equal(again_last.value, last.value) and np.array_equal(again_first.value, first.value)
    # an entry of one order offered as another's is refused
    entry = NP.to_arrays(last)
    z = {**entry[0], "__meta__": entry[1]}
    assert "tie order" in NP.verify_entry(v, 3, "pay", z, "first")
    assert NP.verify_entry(v, 3, "pay", z, "last") is None
    NP._equilibrium.cache_clear()


# ====================================================================== the published range
def _published() -> dict:
    return json.loads((ROOT / "results" / "nplayer" / "tie_orders.json").read_text())


def test_the_published_range_is_that_of_the_published_certified_values():
    data = _published()
    assert data["ranges"]
    for rg in data["ranges"]:
        solved = [e for e in data["entries"] if (e["preset"], e["players"]) == (rg["preset"], rg["players"])
                  and "seats" in e]
        # a profile whose iteration did not converge, or that a deviation improves, is no equilibrium: not counted
        rows = [e for e in solved if e["converged"] and e["exploitability_any_state"] < 1e-12]
        rows += [rg["default"]] if "default" in rg else []
        assert not {e["tie"] for e in solved if e not in rows} & set(rg["ties"])
        assert sorted(e["tie"] for e in rows) == sorted(rg["ties"]) and len(rows) >= 2
        assert "first" in rg["ties"]
        n = rg["players"]
        for e in rows:
            assert e["exploitability_any_state"] < 1e-12 and e["converged"]
            assert abs(sum(s["p_pay"] for s in e["seats"]) - 1) < 1e-12
        for q, s in enumerate(rg["seats"]):
            p = [e["seats"][q]["p_pay"] for e in rows]
            assert s["p_pay_min"] == min(p) and s["p_pay_max"] == max(p)
            assert s["p_pay_range"] == pytest.approx(max(p) - min(p), abs=1e-15)
            assert s["drinks_min"] == pytest.approx(n * min(p) - 1, abs=1e-14)
            assert s["drinks_max"] == pytest.approx(n * max(p) - 1, abs=1e-14)
            for e in rows:
                assert e["seats"][q]["drinks"] == pytest.approx(n * e["seats"][q]["p_pay"] - 1, abs=1e-14)


def test_the_published_default_is_the_equilibrium_nplayer_sizes_published():
    """Two experiments, two runs: the "first" entries are the default's solve, which
    results/nplayer/nplayer.json holds too."""
    sizes = json.loads((ROOT / "results" / "nplayer" / "nplayer.json").read_text())
    data = _published()
    for e in data["entries"] + [rg["default"] for rg in data["ranges"] if "default" in rg]:
        if e["tie"] != "first" or "seats" not in e:
            continue
        ref = next(r for r in sizes if r.get("kind") == "equilibrium" and r.get("preset") == e["preset"]
                   and r.get("players") == e["players"] and r.get("objective") == "pay" and r.get("tokens") in
                   (None, 11) and "seats" in r)
        for a, b in zip(e["seats"], ref["seats"]):
            assert a["p_pay"] == pytest.approx(b["p_pay"], abs=1e-12)


def test_the_check_of_a_published_entry_finds_any_difference():
    """``experiments/tie_orders.py --check`` solves a published entry again (the Super 421
    4-player "last" one takes a minute: it runs there, not here) and compares it with
    ``compare``: the entry itself passes, a seat moved by 1e-11 or out of its range, or an
    uncertified profile, fails."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("tie_orders", ROOT / "experiments" / "tie_orders.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    e = next(x for x in _published()["entries"] if (x["preset"], x["players"], x["tie"]) == ("super421", 4, "last"))
    rg = next(r for r in _published()["ranges"] if (r["preset"], r["players"]) == ("super421", 4))
    assert mod.compare(e, rg, e) == []
    moved = {**e, "seats": [dict(s) for s in e["seats"]]}
    moved["seats"][2]["p_pay"] += 1e-11
    assert [m.split(":")[0] for m in mod.compare(e, rg, moved)] == ["seat 2"]
    out = {**e, "seats": [dict(s) for s in e["seats"]]}
    out["seats"][0]["p_pay"] = rg["seats"][0]["p_pay_max"] + 1e-9
    assert any("outside the stored range" in m for m in mod.compare(e, rg, out))
    assert mod.compare(e, rg, {**e, "exploitability_any_state": 1e-6})
