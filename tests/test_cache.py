"""The disk cache of exact solutions (four21sim.exact.store): a hit gives the solution the solver
gives, and a damaged, foreign or unwritable cache costs time, never a wrong answer."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from four21sim import Variant
from four21sim.exact import nplayer
from four21sim.exact import store as cache

# classic ends at the last holder: its 3-player solution carries the 2-player sub-game
V = Variant.from_preset("classic", {"tokens": 4})
FIELDS = ("value", "p_pay", "p_win", "rounds", "gain", "basis", "dist")


def _fresh(monkeypatch, where):
    monkeypatch.setenv("FOUR21SIM_CACHE_DIR", str(where))
    nplayer._equilibrium.cache_clear()


def _same(a, b):
    for f in FIELDS:
        assert np.array_equal(getattr(a, f), getattr(b, f)), f
    assert a.states == b.states and a.residual == b.residual and a.converged == b.converged
    assert sorted(a.subs) == sorted(b.subs)
    for k in a.subs:
        _same(a.subs[k], b.subs[k])


def test_a_cached_solution_is_the_solution(monkeypatch, tmp_path):
    _fresh(monkeypatch, tmp_path)
    solved = nplayer.solve(V, 3)
    assert not solved.info.get("from_cache") and 2 in solved.subs
    assert list(tmp_path.glob("*.npz"))
    nplayer._equilibrium.cache_clear()
    loaded = nplayer.solve(V, 3)
    assert loaded.info["from_cache"]
    _same(solved, loaded)
    # another objective is another entry, not this one
    nplayer._equilibrium.cache_clear()
    assert not nplayer.solve(V, 3, "win").info.get("from_cache")


@pytest.fixture(scope="module")
def foreign():
    """``(variant, arrays, meta)``: the stored form of another game's equilibrium (Montreal, 4 tokens, 3
    players), once per module."""
    other = Variant.from_preset("montreal", {"tokens": 4})
    return (other, *nplayer.to_arrays(nplayer._solve_equilibrium(other, 3, "pay", 1e-13, 200, 10, True)))


@pytest.mark.parametrize("damage", ["truncate", "garbage", "foreign"])
def test_a_damaged_or_foreign_entry_is_solved_again(monkeypatch, tmp_path, solved, foreign, damage):
    # the entries a solve of V leaves (and Super 421's, damaged too: harmless), copied from the module's
    # solve rather than solved again for each damage
    import shutil
    shutil.copytree(solved[0], tmp_path, dirs_exist_ok=True)
    _fresh(monkeypatch, tmp_path)
    solved = solved[1]["classic-3"]
    other, arrays, meta = foreign
    assert list(tmp_path.glob("*.npz")) and 2 in solved.subs
    for path in list(tmp_path.glob("*.npz")):
        data = path.read_bytes()
        if damage == "truncate":
            path.write_bytes(data[: len(data) // 2])
        elif damage == "garbage":
            path.write_bytes(os.urandom(len(data)))
        else:  # a valid entry of another game under this entry's name
            key = cache.entry_key("test", other=other.describe())
            cache.store(key, arrays, meta)
            (tmp_path / cache._path(key).name).replace(path)
    nplayer._equilibrium.cache_clear()
    again = nplayer.solve(V, 3)
    assert not again.info.get("from_cache")
    _same(solved, again)


def test_an_unwritable_or_disabled_cache_is_skipped(monkeypatch, tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    _fresh(monkeypatch, blocked / "cache")  # cannot be created: the solve still answers
    assert nplayer.solve(V, 3).exploitability < 1e-9
    _fresh(monkeypatch, "off")
    assert cache.cache_dir() is None
    assert nplayer.solve(V, 3).exploitability < 1e-9


def test_solves_warmed_side_by_side_are_read_back(monkeypatch, tmp_path):
    from four21sim.study import executors
    _fresh(monkeypatch, tmp_path)
    items = [(Variant.from_preset(p, {"tokens": 3}), 3, "optimal") for p in ("super421", "montreal")]
    executors.warm_policies(items, 2)  # two child interpreters, one solve each
    for v, _, _ in items:
        assert nplayer.solve(v, 3).info.get("from_cache"), v.describe()


def test_a_script_without_a_main_guard_can_run_a_study_with_three_player_optimal(tmp_path):
    # the side-by-side solves must not re-run the caller's script (as multiprocessing's spawn would)
    import subprocess
    import sys
    script = tmp_path / "study.py"
    script.write_text("from four21sim import sweep\n"
                      "raise SystemExit(sweep.main(['--variants', 'super421,montreal', '--set', 'tokens=3', "
                      "'--players', '3', '--lineups', 'optimal', '--games', '200', '--out', 'o', '--quiet']))\n")
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert (tmp_path / "o" / "REPORT.md").exists()


def test_a_fresh_machine_without_a_cache_folder_gets_one_without_a_warning(monkeypatch, tmp_path, recwarn):
    """On a fresh machine ~/.cache (here XDG_CACHE_HOME) does not exist yet: the cache was turned off
    with a warning naming FOUR21SIM_CACHE_DIR, which the user never set."""
    monkeypatch.delenv("FOUR21SIM_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "not" / "yet"))
    assert cache.cache_dir() == tmp_path / "not" / "yet" / "four21sim"
    key = cache.entry_key("test", variant={"tokens": 3})
    cache.store(key, {"x": np.arange(3.0)}, {"why": "test"})
    got = cache.load(key)
    assert list(got["x"]) == [0.0, 1.0, 2.0] and got["__meta__"]["why"] == "test"
    assert not [w for w in recwarn if issubclass(w.category, cache.CacheWarning)]
    (tmp_path / "file").write_text("x")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))
    with pytest.warns(cache.CacheWarning, match=r"^XDG_CACHE_HOME: .* cannot be used \(not a folder\)"):
        assert cache.cache_dir() is None


_TOGETHER = """
import json, sys, time
from pathlib import Path
from four21sim import Variant
from four21sim.exact import nplayer
v = Variant.from_preset("classic", {"tokens": 4})
me, other = Path(sys.argv[1]), Path(sys.argv[2])
me.touch()
while not other.exists():  # both processes ask at the same moment
    time.sleep(0.001)
sol = nplayer.solve(v, 3)
print(json.dumps({"from_cache": bool(sol.info.get("from_cache")), "p_pay": sol.seat_p_pay.tolist()}))
"""


def test_two_processes_asking_the_same_solve_at_once_solve_it_once(tmp_path):
    """Both miss the entry at the same moment (a barrier on two files); the second waits for the
    first one's solve (store.solving) and reads it: one solve, and the same numbers."""
    import json
    import subprocess
    import sys
    env = {**os.environ, "FOUR21SIM_CACHE_DIR": str(tmp_path / "cache")}
    a, b = tmp_path / "a", tmp_path / "b"
    procs = [subprocess.Popen([sys.executable, "-c", _TOGETHER, str(x), str(y)], stdout=subprocess.PIPE, text=True,
                              env=env) for x, y in ((a, b), (b, a))]
    outs = [json.loads(p.communicate(timeout=300)[0].strip().splitlines()[-1]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sorted(o["from_cache"] for o in outs) == [False, True]
    assert outs[0]["p_pay"] == outs[1]["p_pay"]
    assert list((tmp_path / "cache").glob("*.lock"))  # (the lock files stay: empty, harmless)


# ------------------------------------------------------------------ every field of an entry, forged
# Each entry is forged under its own, right key (the attacker knows the format) and read by the next
# solve: it must be refused (a CacheWarning, then solved again) or serve exactly what the solver
# gives. The solutions are solved once per module; a refused entry is "solved again" by handing back
# that solve (the real solve after a refusal is what the tests above and tests/test_folder_attacks.py
# run): a hundred real solves would cost minutes.
SUPER = Variant.from_preset("super421", {"tokens": 3})  # 3 players: a décharge state with all in (1, 1, 1)
GAMES = {"super421-3": (SUPER, 3), "classic-3": (V, 3), "classic-2": (V, 2)}
HISTORY = ("iterations", "br_iterations", "seconds", "certificate_seconds")  # the stored solve's account
TOL = 1e-11  # nplayer.verify's tolerance


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    """``(folder, {game: solution})``: every game of GAMES solved into one cache folder."""
    base = tmp_path_factory.mktemp("solved")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FOUR21SIM_CACHE_DIR", str(base))
        nplayer._equilibrium.cache_clear()
        truth = {name: nplayer.solve(v, n) for name, (v, n) in GAMES.items()}
        nplayer._equilibrium.cache_clear()
    return base, truth


def _entry_of(folder, v: Variant, players: int):
    """The entry of the equilibrium of ``v`` at ``players`` players in ``folder``."""
    want = (players, json.loads(json.dumps(v.options(), default=str)))
    found = []
    for path in folder.glob("*.npz"):
        with np.load(path) as z:
            key = json.loads(z["__key__"].tobytes().decode())
        if (key["players"], key["options"]) == want:
            found.append(path)
    (path,) = found
    return path


def _forge(path, change) -> None:
    """Rewrite the entry at ``path`` (its key kept) with ``change(arrays, meta)`` applied."""
    with np.load(path) as z:
        arrays = {k: z[k].copy() for k in z.files}
    meta = json.loads(arrays["__meta__"].tobytes().decode())
    change(arrays, meta)
    arrays["__meta__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def _states(sol, pre: str):
    """(start, a charge state not the start, a décharge state) of the solution the prefix names."""
    sol = sol.subs[int(pre[3:-1])] if pre else sol
    charge = next(i for i, (pot, _) in enumerate(sol.states) if pot > 0 and i != sol.start)
    dech = next(i for i, (pot, _) in enumerate(sol.states) if pot == 0)
    return sol.start, charge, dech


def _array_forgery(name: str, how: str, where):
    start, charge, dech = where

    def change(a, m, pre):
        k = pre + name
        if name == "dist_prob":  # mass moved between two outcomes of one round (the sums stay 1)
            shape = m[pre[:-1]]["dist_shape"] if pre else m["dist_shape"]
            size = int(np.prod(shape[1:]))
            row = {"charge": charge, "decharge": dech, "start": start}[how]
            (i, j) = np.flatnonzero(a[pre + "dist_index"] // size == row)[:2]
            a[k][i], a[k][j] = a[k][i] - 1e-3, a[k][j] + 1e-3
        elif how == "x10":
            a[k] = a[k] * 10
        elif how == "0.3":
            a[k] = np.full_like(a[k], 0.3)
        elif how == "0.3-start":
            a[k][start] = 0.3
        else:  # one element of one state moved
            row = {"charge": charge, "decharge": dech}[how]
            a[k][(row,) if a[k].ndim == 1 else (row, -1)] += 1e-3
    return change


ARRAY_FORGERIES = [(f, h) for f in ("value", "p_pay", "p_win", "rounds", "gain", "basis")
                   for h in ("x10", "0.3", "0.3-start", "charge", "decharge")] + \
    [("dist_prob", h) for h in ("start", "charge", "decharge")]
META_FORGERIES = {
    "converged-flipped": lambda m: m.update(converged=not m["converged"]),
    "residual-x10": lambda m: m.update(residual=m["residual"] * 10),
    "residual-0.3": lambda m: m.update(residual=0.3),
    "residual-0": lambda m: m.update(residual=0.0),
    "iterations+1": lambda m: m.update(iterations=m.get("iterations", 0) + 1),
    "br_iterations+3": lambda m: m.update(br_iterations=m.get("br_iterations", 0) + 3),
    "seconds-x10": lambda m: m.update(seconds=m.get("seconds", 1.0) * 10),
    "certificate_seconds-0.3": lambda m: m.update(certificate_seconds=0.3),
    "info-edited": lambda m: m.update(info={**m.get("info", {}), "value_gap": 0.3, "states": 1}),
    "subs-dropped": lambda m: m.update(subs=[]),
}
WHICH = [("super421-3", ""), ("classic-3", "sub2."), ("classic-2", "")]


def _served_or_refused(monkeypatch, tmp_path, solved, game: str, change) -> None:
    """Forge the entry of ``game`` with ``change(arrays, meta)``; the next solve refuses it (and solves
    again) or serves exactly the solver's numbers (the stored solve's account, HISTORY, is not served)."""
    import shutil
    base, truth = solved
    folder = tmp_path / "cache"
    shutil.copytree(base, folder)
    _fresh(monkeypatch, folder)
    v, n = GAMES[game]
    _forge(_entry_of(folder, v, n), change)
    solves = []

    def solve_again(variant, players, *args):
        solves.append(players)
        return next(t for name, t in truth.items() if GAMES[name] == (variant, players))

    monkeypatch.setattr(nplayer, "_solve_equilibrium", solve_again)
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = nplayer.solve(v, n)
    refused = [w for w in caught if issubclass(w.category, cache.CacheWarning) and "refused" in str(w.message)]
    if refused:
        assert solves == [n] and got is truth[game]
        return
    assert not solves and got.info.get("from_cache")
    _served_exactly(got, truth[game])


def _served_exactly(got, want) -> None:
    """``got`` serves ``want``'s numbers: exactly, but for floats within the verifier's 1e-11 (TOL), the
    rounding a solve itself makes (its values are linear solves and sums of thousands of terms): a
    forgery that small (a gain of 1e-15 made 1e-14) cannot be told from the solution, nor matters."""
    for f in FIELDS:
        assert np.abs(getattr(got, f) - getattr(want, f)).max() <= TOL, f
    assert got.states == want.states and got.tie == want.tie
    assert (got.residual, got.converged) == (want.residual, want.converged)
    for f in HISTORY:  # not served from the file, or the truth
        assert getattr(got, f) is None or getattr(got, f) == getattr(want, f), f
    assert {k: x for k, x in got.info.items() if k != "from_cache"}.items() <= want.info.items()
    g, w = got.summary(), want.summary()
    for k in set(g) - set(HISTORY) - {"from_cache", "seats"}:  # (seats: p_pay and p_win, compared above)
        assert g[k] == pytest.approx(w[k], abs=TOL, rel=0) if isinstance(w[k], float) else g[k] == w[k], k
    assert sorted(got.subs) == sorted(want.subs)
    for k in got.subs:
        _served_exactly(got.subs[k], want.subs[k])


@pytest.mark.parametrize("game,pre", WHICH)
@pytest.mark.parametrize("field,how", ARRAY_FORGERIES)
def test_a_forged_array_is_refused_or_harmless(monkeypatch, tmp_path, solved, game, pre, field, how):
    where = _states(solved[1][game], pre)
    forge = _array_forgery(field, how, where)
    _served_or_refused(monkeypatch, tmp_path, solved, game, lambda a, m: forge(a, m, pre))


@pytest.mark.parametrize("game,pre", WHICH + [("classic-3", "")])
@pytest.mark.parametrize("what", sorted(META_FORGERIES))
def test_forged_metadata_is_refused_or_not_served(monkeypatch, tmp_path, solved, game, pre, what):
    if what == "subs-dropped" and pre:
        pytest.skip("the game of 2 players has no games of fewer players")

    def change(a, m):
        META_FORGERIES[what](m[pre[:-1]] if pre else m)
    _served_or_refused(monkeypatch, tmp_path, solved, game, change)


@pytest.mark.parametrize("attack", ["gain-0.3", "rounds-x10"])
def test_solve_json_does_not_print_a_forged_exploitability_or_length(monkeypatch, tmp_path, solved, attack):
    """The attacks as reported: ``solve --json`` printed ``"exploitability": 0.3`` (true 0) and
    ``"expected_rounds"`` ten times the true one, with ``from_cache: true`` and no warning."""
    import shutil
    import warnings

    from four21sim.cli.solve import analyse
    base, truth = solved
    shutil.copytree(base, tmp_path / "cache")
    _fresh(monkeypatch, tmp_path / "cache")
    field, scale = ("gain", None) if attack == "gain-0.3" else ("rounds", 10.0)
    _forge(_entry_of(tmp_path / "cache", SUPER, 3), lambda a, m: a.__setitem__(
        field, np.full_like(a[field], 0.3) if scale is None else a[field] * scale))
    argv = ["--variant", "super421", "--set", "tokens=3", "--players", "3", "--json"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = analyse(argv)
    assert any(issubclass(w.category, cache.CacheWarning) for w in caught)
    want = truth["super421-3"]
    assert not out["from_cache"]
    assert out["exploitability"] == want.exploitability < 1e-9
    assert out["expected_rounds"] == want.expected_rounds


@pytest.mark.slow
def test_the_entry_of_a_profile_that_cycles_is_read_as_not_converged_and_cannot_say_it_did(monkeypatch, tmp_path):
    """Le bon at 6 tokens cycles at 3 players (its residual stays near 1e-4, tests/test_nplayer.py):
    its residual and converged flag, recomputed when read, are the solve's (so the entry is read,
    not refused at every read), and an entry saying it converged is refused."""
    import warnings
    _fresh(monkeypatch, tmp_path)
    v = Variant.from_preset("super421-lebon", {"tokens": 6})
    solved = nplayer.solve(v, 3)
    assert not solved.converged and solved.residual > 1e-9
    nplayer._equilibrium.cache_clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loaded = nplayer.solve(v, 3)
    assert loaded.info["from_cache"] and (loaded.residual, loaded.converged) == (solved.residual, False)
    _forge(_entry_of(tmp_path, v, 3), lambda a, m: m.update(converged=True))
    nplayer._equilibrium.cache_clear()
    with pytest.warns(cache.CacheWarning, match="converged flag"):
        again = nplayer.solve(v, 3)
    assert not again.info.get("from_cache") and not again.converged
