"""The disk cache of exact solutions (four21sim.exact.store): a hit gives the solution the solver
gives, and a damaged, foreign or unwritable cache costs time, never a wrong answer."""

from __future__ import annotations

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
    assert a.states == b.states and a.iterations == b.iterations and a.converged == b.converged
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


@pytest.mark.parametrize("damage", ["truncate", "garbage", "foreign"])
def test_a_damaged_or_foreign_entry_is_solved_again(monkeypatch, tmp_path, damage):
    _fresh(monkeypatch, tmp_path)
    solved = nplayer.solve(V, 3)
    other = Variant.from_preset("montreal", {"tokens": 4})
    arrays, meta = nplayer.to_arrays(nplayer._solve_equilibrium(other, 3, "pay", 1e-13, 200, 10, True))
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
