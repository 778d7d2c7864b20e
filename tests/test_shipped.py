"""The presets' equilibria shipped with the package (four21sim.exact.shipped): found by the game,
checked when read (a forged or stale file is refused and the game solved), the solver's own
numbers, the answer of `four21sim solve` with an empty cache, and written byte for byte the same."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tomllib
import warnings
from pathlib import Path

import numpy as np
import pytest

from four21sim import Variant, exact
from four21sim.advice import site
from four21sim.exact import _nplayer_game as NG
from four21sim.exact import nplayer, shipped, shipped_lead
from four21sim.rules.variants import PRESETS

REPO = Path(__file__).resolve().parents[1]
FIELDS = ("value", "p_pay", "p_win", "rounds", "gain", "basis", "dist")
# what must ship (docs/nplayer.md, "Shipped solutions"): the quick sizes at least
QUICK = [("super421", 3), ("super421-lebon", 3), ("montreal", 3), ("classic", 3), ("super421", 4),
         ("super421-lebon", 4), ("montreal", 4)]


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """An empty solver cache of the test's own, shipped solutions on, nothing in this process's memory."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("FOUR21SIM_CACHE_DIR", str(cache))
    monkeypatch.delenv("FOUR21SIM_SHIPPED", raising=False)
    nplayer._equilibrium.cache_clear()
    yield cache
    nplayer._equilibrium.cache_clear()


def _raw(name: str) -> dict:
    """The entries of a shipped file decoded (shipped.read) with what it does not store (shipped.derive),
    its JSON entries as the bytes a file holds: a forgery may then add any of them to the file."""
    path = shipped.FOLDER / name
    entries = shipped.derive(PRESETS[name.rsplit("-", 3)[0]], shipped.read(path))
    for k in ("__key__", "__meta__", "__produced__"):
        _set_json(entries, k, entries[k])
    return entries


def _forge(monkeypatch, tmp_path, name: str, change) -> None:
    """A copy of the shipped file ``name`` in a folder of its own, changed by ``change(entries)``,
    as the package's shipped folder."""
    entries = _raw(name)
    change(entries)
    folder = tmp_path / "solutions"
    folder.mkdir()
    encoded = shipped.encode({k: v for k, v in entries.items() if not k.startswith("__")})
    _set_json(encoded, "__encoding__", encoded["__encoding__"])
    with open(folder / name, "wb") as f:
        np.savez(f, **{k: v for k, v in entries.items() if k.startswith("__")}, **encoded)
    monkeypatch.setattr(shipped, "FOLDER", folder)


def _json_entry(entries: dict, key: str) -> dict:
    return json.loads(entries[key].tobytes().decode())


def _set_json(entries: dict, key: str, value: dict) -> None:
    entries[key] = np.frombuffer(json.dumps(value, sort_keys=True).encode(), dtype=np.uint8)


@pytest.mark.parametrize("preset,n", QUICK, ids=[f"{p}-{n}" for p, n in QUICK])
def test_the_quick_sizes_ship_and_pass_their_checks(preset, n):
    path = shipped.path_of(PRESETS[preset], n)
    assert path is not None and path.is_file(), path
    entry = shipped.read(path)
    assert not set(shipped.DERIVED) & set(entry)  # what follows from the rest is computed, not stored
    # (its checks, shipped.check, pass: test_every_shipped_file_is_read_without_a_warning reads
    # every shipped file through them, these among them; a check of a 4-player file is 1.5 to 2 s)
    # how it was produced is recorded, and the solution is certified
    assert entry["__produced__"]["how"] and entry["__produced__"]["solver_code"]
    sol = nplayer.from_arrays(PRESETS[preset], shipped.derive(PRESETS[preset], entry))
    assert sol.exploitability < 1e-12 and abs(sol.seat_p_pay.sum() - 1) < 1e-12


def test_every_shipped_file_is_a_preset_game_and_is_package_data():
    files = sorted(shipped.FOLDER.glob("*.npz"))
    solutions = {f.name for f in files if not f.name.endswith(".lead.npz")}  # (the page's: test_shipped_lead)
    assert len(solutions) >= len(QUICK)
    names = {shipped.path_of(v, n).name for name, v in PRESETS.items() for n in range(3, 7)}
    assert solutions <= names
    assert {f.name for f in files} - solutions <= {n[:-len(".npz")] + ".lead.npz" for n in solutions}
    data = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["four21sim"]
    assert any(sorted(Path(REPO / "four21sim").glob(g)) == files for g in data), data


# one test per file, so that the xdist workers share them: a 5-player file's checks take 6 to 9 s
# of CPU (slow), a 3- or 4-player file's 0.3 to 2 s (the fast tier checks the quick sizes here). The file of
# the 6-player game is checked beside the page's 6-player answers (tests/test_site_nplayer_browser.py), so that
# the worker asking the command for them has the game's contexts already (some 12 s of building, once, not twice)
READ_BESIDE_ITS_PAGE = "super421-6p-pay-first.npz"
SHIPPED = [pytest.param(p.name, marks=[pytest.mark.slow] if int(p.name.split("-")[-3][:-1]) >= 5 else [])
           for p in sorted(shipped.FOLDER.glob("*.npz"))
           if not p.name.endswith(".lead.npz") and p.name != READ_BESIDE_ITS_PAGE]


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_file_is_read_without_a_warning(name):
    check_read(name)


def check_read(name: str) -> None:
    """The shipped file ``name`` passes the checks it is read with, without a warning (whatever ships:
    5 and 6 players are added as their solves finish), and so do the leader's values beside it."""
    games = {shipped.path_of(v, n).name: (v, n) for v in PRESETS.values() for n in range(3, 7)}
    v, n = games[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sol = shipped.load(v, n)
    assert sol is not None and sol.info["from"] == "shipped" and sol.exploitability < 1e-12, name
    # and the leader's values beside it, where the page reads them (tests/test_shipped_lead.py), checked with it
    lead = shipped_lead.path_of(sol)
    if lead.is_file():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert shipped_lead.load(sol, site.lead_state_list(site.lead_states(sol))) is not None, lead


@pytest.fixture(scope="module")
def super421_solved(tmp_path_factory):
    """``(solution, cache folder)``: Super 421 at 3 players solved by this checkout (shipped solutions
    off) into an empty cache folder of its own; once per module, for the two tests that compare it."""
    cache = tmp_path_factory.mktemp("solved") / "cache"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FOUR21SIM_CACHE_DIR", str(cache))
        mp.setenv("FOUR21SIM_SHIPPED", "off")
        nplayer._equilibrium.cache_clear()
        try:
            return exact.solve(PRESETS["super421"], 3), cache
        finally:
            nplayer._equilibrium.cache_clear()


@pytest.mark.slow
def test_a_shipped_solution_is_what_the_solver_gives(fresh, super421_solved):
    # Super 421 at 3 players: the shipped file against a solve of this checkout
    v = PRESETS["super421"]
    got = exact.solve(v, 3)
    assert got.info["from"] == "shipped" and not got.info.get("from_cache")
    assert not fresh.exists() or not list(fresh.iterdir())  # no solve ran, nothing cached
    solved, cache = super421_solved
    assert solved.info.get("from") != "shipped" and list(cache.glob("*.npz"))
    assert got.states == solved.states and got.iterations is None  # (the solve's history is not shipped)
    for f in FIELDS:
        if f == "dist":  # each round's law over what follows it, wherever its contexts put the mass
            game = NG.role_game(v, 3)
            a = np.array([NG.canonical_dist(game, s, got.dist[s]) for s in range(game.size)])
            b = np.array([NG.canonical_dist(game, s, solved.dist[s]) for s in range(game.size)])
            assert np.abs(a - b).max() <= 1e-12, f
            continue
        assert np.abs(getattr(got, f) - getattr(solved, f)).max() <= 1e-12, f


def test_only_the_default_game_of_a_preset_is_shipped(fresh):
    v = PRESETS["super421"]
    assert shipped.load(v, 3) is not None
    assert shipped.load(v.with_options({"tokens": 10}), 3) is None  # a custom variant: solved and cached
    assert shipped.load(v, 3, tie="last") is None
    assert shipped.load(v, 3, "win") is None
    assert shipped.load(v, 3, tol=1e-10) is None
    assert shipped.load(v, 2) is None


def test_a_custom_variant_is_still_solved_and_cached(fresh):
    sol = exact.solve(Variant.from_preset("super421", {"tokens": 2}), 3)
    assert sol.info.get("from") != "shipped" and list(fresh.glob("*.npz"))


def test_shipped_solutions_can_be_turned_off(fresh, monkeypatch):
    monkeypatch.setenv("FOUR21SIM_SHIPPED", "off")
    assert shipped.load(PRESETS["super421"], 3) is None


def _moved_value(entries):
    # one value moved by 1e-9 at a state that is not the start
    states = entries["states"]
    s = next(i for i, r in enumerate(states) if r[0] == 0)  # a décharge state: the start is in the charge
    entries["value"] = entries["value"].copy()
    entries["value"][s, 1] += 1e-9


def _swapped_dist(entries):
    # two outcome probabilities of one state's round (not the start's) swapped
    meta = _json_entry(entries, "__meta__")
    per_state = int(np.prod(meta["dist_shape"][1:]))
    state = entries["dist_index"] // per_state
    s = next(int(x) for x in np.unique(state) if x != 0 and len(set(entries["dist_prob"][state == x])) > 1)
    at = np.flatnonzero(state == s)
    probs = entries["dist_prob"][at]
    i, j = at[np.argmin(probs)], at[np.argmax(probs)]
    entries["dist_prob"] = entries["dist_prob"].copy()
    entries["dist_prob"][[i, j]] = entries["dist_prob"][[j, i]]


def _players_changed(entries):
    key = _json_entry(entries, "__key__")
    key["players"] = 4
    _set_json(entries, "__key__", key)


def _format_changed(entries):
    key = _json_entry(entries, "__key__")
    key["format"] = shipped.FORMAT + 1
    _set_json(entries, "__key__", key)


@pytest.mark.parametrize("forge", [_moved_value, _swapped_dist, _players_changed, _format_changed],
                         ids=["value-moved-1e-9", "dist-swapped", "key-players", "key-format"])
def test_a_forged_or_stale_file_is_refused(fresh, monkeypatch, tmp_path, forge):
    v = PRESETS["montreal"]  # (the smallest file)
    name = shipped.path_of(v, 3).name
    _forge(monkeypatch, tmp_path, name, forge)
    with pytest.warns(shipped.ShippedWarning, match=f"shipped solution {name} refused") as seen:
        assert shipped.load(v, 3) is None
    assert len(seen) == 1


@pytest.mark.slow
def test_a_refused_file_leaves_the_solver_to_run_as_without_it(fresh, monkeypatch, tmp_path):
    v = PRESETS["super421-lebon"]
    name = shipped.path_of(v, 3).name
    truth = nplayer.from_arrays(v, shipped.derive(v, shipped.read(shipped.FOLDER / name)))
    _forge(monkeypatch, tmp_path, name, _moved_value)
    with pytest.warns(shipped.ShippedWarning):
        sol = exact.solve(v, 3)  # solved, and cached as before
    assert sol.info.get("from") != "shipped" and list(fresh.glob("*.npz"))
    assert np.abs(sol.value - truth.value).max() <= 1e-12


def test_the_fixed_point_check_sees_a_value_moved_at_the_start():
    v = PRESETS["montreal"]
    forged = nplayer.from_arrays(v, shipped.derive(v, shipped.read(shipped.path_of(v, 3))))
    assert max(shipped.fixed_point(forged, samples=0).values()) <= shipped.TOL
    forged.value[forged.start, 2] -= 1e-9
    assert shipped.fixed_point(forged, samples=0)["value"] > 5e-10


@pytest.mark.slow
def test_the_fixed_point_holds_at_every_state_and_sees_a_value_moved_at_any():
    v = PRESETS["super421"]
    sol = nplayer.from_arrays(v, shipped.derive(v, shipped.read(shipped.path_of(v, 3))))
    assert max(shipped.fixed_point(sol, samples=len(sol.states)).values()) <= shipped.TOL
    for s in (len(sol.states) - 1, int(np.flatnonzero([p == 0 for p, _ in sol.states])[0])):
        forged = nplayer.from_arrays(v, shipped.derive(v, shipped.read(shipped.path_of(v, 3))))
        forged.value[s, 0] += 1e-9
        assert shipped.fixed_point(forged, samples=len(sol.states))["value"] > 5e-10, s


def test_the_same_solution_gives_the_same_bytes(tmp_path, monkeypatch):
    v = PRESETS["super421-lebon"]
    path = shipped.path_of(v, 3)
    entry = shipped.read(path)
    sol = nplayer.from_arrays(v, shipped.derive(v, entry))
    shipped.write(tmp_path / "a.npz", sol, entry["__produced__"])
    later = time.time() + 86_400 * 400  # written a year and more later
    monkeypatch.setattr(time, "time", lambda: later)
    shipped.write(tmp_path / "b.npz", sol, entry["__produced__"])
    monkeypatch.undo()
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes() == path.read_bytes()


def test_the_stored_form_gives_back_every_array_bit_for_bit():
    # awkward values on purpose: signed zeros, subnormals, the extremes, a NaN with a payload
    floats = np.array([[0.0, -0.0, 5e-324], [np.finfo(float).max, -np.inf, 1 / 3]])
    payload = np.array([0x7FF8_0000_0000_0421], dtype=np.uint64).view(np.float64)
    index = np.array([0, 3, 4, 2**32 + 3, 2**33 + 2], dtype=np.int64)  # steps up to 2**32 - 1
    arrays = {"value": floats, "nan": payload, "x.dist_index": index, "states": np.arange(6).reshape(2, 3)}
    stored = shipped.encode(arrays)
    assert stored["value"].dtype == np.uint8 and stored["x.dist_index"].dtype == np.uint32
    back = shipped.decode(stored)
    assert set(back) == set(arrays)
    for k, a in arrays.items():
        assert back[k].dtype == a.dtype and back[k].shape == a.shape and back[k].tobytes() == a.tobytes(), k
    with pytest.raises(ValueError, match="not sorted"):
        shipped.encode({"dist_index": np.array([3, 1], dtype=np.int64)})


@pytest.mark.parametrize("how", [
    {"value": ["pickle", [331, 3]]},                      # an encoding that is not one of ours
    {"value": ["f8-byteplanes", [332, 3]]},               # a shape the planes do not hold
    {"value": ["f8-byteplanes", [331, "3"]]},             # a shape that is not integers
    {"dist_index": ["f8-byteplanes", [10]]},              # planes where there are steps
    {"__key__": ["f8-byteplanes", [1]]},                  # an entry that is not an array
    ["value"],                                            # not a mapping
], ids=["unknown", "shape", "shape-type", "wrong-kind", "meta-entry", "list"])
def test_a_forged_encoding_is_refused_with_one_warning(fresh, monkeypatch, tmp_path, how):
    v = PRESETS["montreal"]
    name = shipped.path_of(v, 3).name
    raw = shipped.read(shipped.FOLDER / name)
    encoded = shipped.encode({k: a for k, a in raw.items() if not k.startswith("__")})
    folder = tmp_path / "solutions"
    folder.mkdir()
    entries = {k: a for k, a in encoded.items() if not k.startswith("__")}
    for k in ("__key__", "__meta__", "__produced__"):
        _set_json(entries, k, raw[k])
    _set_json(entries, "__encoding__", how)
    with open(folder / name, "wb") as f:
        np.savez(f, **entries)
    monkeypatch.setattr(shipped, "FOLDER", folder)
    with pytest.warns(shipped.ShippedWarning, match=f"shipped solution {name} refused") as seen:
        assert shipped.load(v, 3) is None
    assert len(seen) == 1


def _solve_cli(n: int, cache: Path) -> tuple[dict, float]:
    env = {**os.environ, "FOUR21SIM_CACHE_DIR": str(cache), "PYTHONPATH": str(REPO)}
    env.pop("FOUR21SIM_SHIPPED", None)
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "four21sim", "solve", "--variant", "super421", "--players", str(n),
                        "--json"], cwd=REPO, capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout), time.monotonic() - t0


@pytest.mark.slow
def test_solve_at_four_players_answers_from_the_shipped_solution_with_an_empty_cache(tmp_path):
    out, seconds = _solve_cli(4, tmp_path / "cache")
    assert out["from"] == "shipped" and out["from_cache"] is False
    assert not (tmp_path / "cache").exists() or not list((tmp_path / "cache").iterdir())  # no solve ran
    # docs/nplayer.md's numbers, from a solve of 2026-12-04 (rounded to 4 places)
    assert [s["p_pay"] for s in out["seats"]] == pytest.approx([0.2111, 0.2709, 0.2643, 0.2538], abs=5e-5)
    assert out["exploitability"] < 1e-12 and seconds < 300  # (a generous bound: the solve takes minutes)


@pytest.mark.slow
def test_solve_at_three_players_from_the_shipped_solution_is_a_fresh_solves(tmp_path, super421_solved):
    out, _ = _solve_cli(3, tmp_path / "cli-cache")
    assert out["from"] == "shipped"
    solved, _ = super421_solved
    assert solved.info.get("from") != "shipped"
    assert [s["p_pay"] for s in out["seats"]] == pytest.approx(solved.seat_p_pay.tolist(), abs=1e-12)
    assert [s["p_win"] for s in out["seats"]] == pytest.approx(solved.seat_p_win.tolist(), abs=1e-12)
    assert out["expected_rounds"] == pytest.approx(solved.expected_rounds, abs=1e-10)


@pytest.fixture
def montreal_store(tmp_path, monkeypatch):
    """The build script, and a solver's store folder (another checkout's: its key's code hash is not
    this one's) holding Montreal's 3-player equilibrium: (ship_solutions, variant, solution, key)."""
    monkeypatch.syspath_prepend(str(REPO / "experiments"))
    import ship_solutions

    from four21sim.exact import store
    v = PRESETS["montreal"]
    sol = nplayer.from_arrays(v, shipped.derive(v, shipped.read(shipped.path_of(v, 3))))
    monkeypatch.setenv("FOUR21SIM_CACHE_DIR", str(tmp_path / "store"))
    key = store.entry_key("nplayer", options=v.options(), players=3, objective="pay", tol=1e-13, max_iter=200,
                          stall=10, certify=True, tie="first", format=nplayer.FORMAT, code="0" * 64)
    store.store(key, *nplayer.to_arrays(sol))
    return ship_solutions, v, sol, key


def test_the_build_script_ships_a_store_entry_whatever_its_code_hash(tmp_path, montreal_store):
    from four21sim.exact import store
    ship_solutions, v, sol, key = montreal_store
    written = []
    for out in (tmp_path / "out", tmp_path / "again"):  # twice: the same bytes
        assert ship_solutions.main(["--store", str(tmp_path / "store"), "--presets", "montreal", "--players", "3",
                                    "--out", str(out)]) == 0
        written.append((out / shipped.path_of(v, 3).name).read_bytes())
    assert written[0] == written[1]
    entry = shipped.read(tmp_path / "out" / shipped.path_of(v, 3).name)
    assert entry["__produced__"]["solver_code"] == "0" * 64 and "store" in entry["__produced__"]["how"]
    got = nplayer.from_arrays(v, shipped.derive(v, entry))
    for f in FIELDS:
        assert np.array_equal(getattr(got, f), getattr(sol, f)), f
    # an entry whose values were moved is refused, and nothing is written
    arrays, meta = nplayer.to_arrays(sol)
    arrays["value"] = arrays["value"] + 1e-9
    store.store(key, arrays, meta)
    assert ship_solutions.main(["--store", str(tmp_path / "store"), "--presets", "montreal", "--players", "3",
                                "--out", str(tmp_path / "out2")]) == 1
    assert not (tmp_path / "out2").exists() or not list((tmp_path / "out2").iterdir())


def test_a_bad_game_is_named_with_what_is_allowed():
    with pytest.raises(ValueError, match="variant: 'super421x' is not allowed; allowed: a four21sim.Variant"):
        shipped.load("super421x", 3)
    with pytest.raises(ValueError, match="players: 9 is not allowed"):
        shipped.path_of(PRESETS["super421"], 9)
    with pytest.raises(ValueError, match="tie: 'middle' is not allowed"):
        shipped.available(PRESETS["super421"], 3, tie="middle")


def test_the_build_script_leaves_no_file_that_fails_its_checks_once_written(tmp_path, monkeypatch, montreal_store):
    ship_solutions, v, sol, key = montreal_store
    real = shipped.write

    def damaging(path, *args):  # a writer (or a disk) that damages what it writes
        size = real(path, *args)
        Path(path).write_bytes(Path(path).read_bytes()[: size // 2])
        return size

    monkeypatch.setattr(shipped, "write", damaging)
    out = tmp_path / "out"
    assert ship_solutions.main(["--store", str(tmp_path / "store"), "--presets", "montreal", "--players", "3",
                                "--out", str(out)]) == 1
    assert not out.exists() or not list(out.iterdir())


def test_a_damaged_file_is_refused_with_one_warning(fresh, monkeypatch, tmp_path):
    v = PRESETS["montreal"]
    name = shipped.path_of(v, 3).name
    folder = tmp_path / "solutions"
    folder.mkdir()
    data = (shipped.FOLDER / name).read_bytes()
    (folder / name).write_bytes(data[: len(data) // 2])
    monkeypatch.setattr(shipped, "FOLDER", folder)
    with pytest.warns(shipped.ShippedWarning, match="cannot be read or checked") as seen:
        assert shipped.load(v, 3) is None
    assert len(seen) == 1
