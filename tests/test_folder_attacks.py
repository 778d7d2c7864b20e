"""A results folder never turned against its user (issue 18): links, foreign folders, bounds,
a cache that cannot lie, numbers independent of --task-games, one-line errors.

Each test is one attack, on tiny studies (one configuration, 1000 games), in temporary folders."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import four21sim
from four21sim.cli.sweep import console
from four21sim.exact import solver3
from four21sim.exact import store as cache

ROOT = Path(__file__).resolve().parent.parent
S = ["--variants", "super421", "--players", "2", "--lineups", "greedy", "--games", "1000", "--task-games", "1000",
     "--quiet"]


def sweep(args, capsys) -> tuple[int, str]:
    code = console([*map(str, args)])
    return code, capsys.readouterr().err


def one_line(err: str) -> str:
    lines = [ln for ln in err.strip().splitlines() if ln]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# ------------------------------------------------------------------ 1. links are never followed
def test_a_lock_that_is_a_symlink_is_refused_and_its_target_untouched(tmp_path, capsys):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    out = tmp_path / "out"
    out.mkdir()
    (out / ".lock").symlink_to(victim)
    code, err = sweep([*S, "--out", out], capsys)
    assert code == 2 and ".lock" in one_line(err) and "symbolic link" in err
    assert victim.read_text() == "precious"


@pytest.mark.parametrize("where", ["parts", "parts/key"])
def test_linked_parts_are_refused_and_nothing_outside_is_touched(tmp_path, capsys, where):
    out = tmp_path / "out"
    assert sweep([*S, "--out", out], capsys)[0] == 0
    outside = tmp_path / "outside"
    if where == "parts":
        os.rename(out / "parts", outside)
        (out / "parts").symlink_to(outside)
    else:
        key = next((out / "parts").iterdir())
        os.rename(key, outside)
        key.symlink_to(outside)
    before = sorted(p.name for p in outside.rglob("*"))
    code, err = sweep([*S, "--out", out], capsys)
    assert code == 2 and "symbolic link" in one_line(err)
    assert sorted(p.name for p in outside.rglob("*")) == before


# ------------------------------------------------------------------ 2. --out is a results folder or a new one
def test_a_foreign_folder_is_refused_naming_what_is_there(tmp_path, capsys):
    p = tmp_path / "P"
    (p / "figures").mkdir(parents=True)
    (p / "figures" / "my.png").write_bytes(b"mine")
    (p / "notes").mkdir()
    (p / "notes" / ".draft.99999.tmp").write_text("draft")
    (p / "REPORT.md").write_text("my report")
    (p / "thesis.tex").write_text("x")
    code, err = sweep([*S, "--out", p], capsys)
    line = one_line(err)
    assert code == 2 and "not a results folder" in line and "notes" in line
    assert (p / "figures" / "my.png").read_bytes() == b"mine" and (p / "REPORT.md").read_text() == "my report"
    assert (p / "notes" / ".draft.99999.tmp").exists() and not (p / ".lock").exists()


def test_a_users_file_inside_a_results_folder_is_kept(tmp_path, capsys):
    out = tmp_path / "out"
    assert sweep([*S, "--out", out], capsys)[0] == 0
    (out / "figures" / "my.png").write_bytes(b"mine")
    (out / "notes.md").write_text("mine")
    assert sweep([*S, "--out", out, "--games", "2000"], capsys)[0] == 2  # another study: refused
    assert sweep([*S, "--out", out], capsys)[0] == 0  # the same study: resumed, outputs rewritten
    assert (out / "figures" / "my.png").read_bytes() == b"mine" and (out / "notes.md").read_text() == "mine"


@pytest.mark.parametrize("out", ["", "/", str(ROOT), str(ROOT.parent), "~"])
def test_out_empty_root_home_checkout_and_above_are_refused(tmp_path, capsys, out):
    before = sorted(os.listdir(ROOT))
    code, err = sweep([*S, "--out", os.path.expanduser(out)], capsys)
    assert code == 2 and "--out" in one_line(err)
    assert sorted(os.listdir(ROOT)) == before and not Path("/.lock").exists()


def test_committed_results_are_protected_however_the_path_is_spelled(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = tmp_path / "results" / "default"
    res.mkdir(parents=True)
    for f in ("study.json", "manifest.json", "REPORT.md"):
        (res / f).write_text(json.dumps({"fingerprint": "0123456789abcdef"}) if f != "REPORT.md" else "committed")
    for spelling in ("results/default", "./results/default", "results//default/", str(res)):
        code, err = sweep([*S, "--out", spelling], capsys)
        assert code == 2 and "different study" in one_line(err)
    assert (res / "REPORT.md").read_text() == "committed"


# ------------------------------------------------------------------ 3. bounds from the machine
@pytest.mark.parametrize("args", [["--workers", "1000"], ["--scheduler", "local:99999999999999999999"],
                                  ["--scheduler", "local:1000"]])
def test_workers_beyond_a_few_per_core_are_refused(tmp_path, capsys, args):
    pytest.importorskip("distributed") if "--scheduler" in args else None
    code, err = sweep([*S, *args, "--out", tmp_path / "o"], capsys)
    line = one_line(err)
    assert code == 2 and "per core" in line and args[0] in line
    assert not (tmp_path / "o").exists()


# ------------------------------------------------------------------ 4. a cache that cannot lie
V4 = four21sim.Variant.from_preset("super421", {"tokens": 4})


def _entry(tmp_path) -> Path:
    (path,) = tmp_path.glob("*.npz")
    return path


def _rewrite(path: Path, change) -> None:
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    change(arrays)
    with open(path, "wb") as f:
        np.savez(f, **arrays)


@pytest.mark.parametrize("forgery", ["swapped-columns", "nan"])
def test_a_forged_cache_entry_is_refused_with_a_warning_and_replaced(monkeypatch, tmp_path, forgery):
    monkeypatch.setenv("FOUR21SIM_CACHE_DIR", str(tmp_path))
    solver3.solve.cache_clear()
    truth = solver3.solve(V4, 3).seat_p_pay

    def forge(a):
        if forgery == "nan":
            a["value"][0, 0] = np.nan
        else:
            for k in ("value", "p_pay", "p_win", "gain", "basis"):
                a[k] = a[k][:, [1, 0, 2]]
    _rewrite(_entry(tmp_path), forge)
    solver3.solve.cache_clear()
    with pytest.warns(cache.CacheWarning, match="refused"):
        again = solver3.solve(V4, 3)
    assert not again.info.get("from_cache") and np.allclose(again.seat_p_pay, truth, atol=1e-12)
    solver3.solve.cache_clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the replaced entry is sound: no warning now
        assert solver3.solve(V4, 3).info["from_cache"]


def test_a_bad_cache_folder_turns_the_cache_off_with_one_warning(monkeypatch, tmp_path):
    monkeypatch.setenv("FOUR21SIM_CACHE_DIR", str(tmp_path / ("x" * 300)))
    with pytest.warns(cache.CacheWarning, match="cannot be used"):
        assert cache.cache_dir() is None
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("FOUR21SIM_CACHE_DIR", "~/c")
    assert cache.cache_dir() == tmp_path / "c"


# ------------------------------------------------------------------ 6/7. parts of the wrong shape
def test_a_part_of_the_wrong_shape_with_a_valid_checksum_is_recomputed_naming_it(tmp_path, capsys):
    from four21sim.study import tasks
    out = tmp_path / "out"
    assert sweep([*S, "--out", out], capsys)[0] == 0
    (part,) = (out / "parts").glob("*/*.npz")
    with np.load(part) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(arrays.pop("__identity__").tobytes().decode())
    arrays["p_win"] = np.zeros(9, dtype=np.int64)  # wrong shape, then a checksum that matches it
    meta["checksum"] = tasks._checksum(arrays)
    with open(part, "wb") as f:
        np.savez(f, **arrays, __identity__=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
    code, err = sweep([*S, "--out", out], capsys)
    assert code == 0 and str(part) in err and "shape" in err


# ------------------------------------------------------------------ 6. numbers independent of --task-games
def test_every_column_is_the_same_whatever_the_task_size(tmp_path, capsys):
    base = ["--variants", "super421", "--players", "3", "--lineups", "greedy", "--games", "9000", "--quiet"]
    for tg in ("9000", "1000", "4096"):
        assert sweep([*base, "--task-games", tg, "--out", tmp_path / tg], capsys)[0] == 0
    a = four21sim.load(tmp_path / "9000")
    for tg in ("1000", "4096"):
        b = four21sim.load(tmp_path / tg)
        for name in ("measures", "fairness", "distributions"):
            pd.testing.assert_frame_equal(a[name], b[name], check_exact=True)


# ------------------------------------------------------------------ 10. one-line errors
@pytest.mark.parametrize("toml,option", [('[[variant]]\nset = 5\n', "variant: set"), ("set = 5\n", "set"),
                                         ("name = 'a\\u0000b'\n", "name")])
def test_bad_study_files_are_one_line_errors(tmp_path, capsys, toml, option):
    cfg = tmp_path / "s.toml"
    cfg.write_text(toml)
    code, err = sweep(["--config", cfg, "--out", tmp_path / "o"], capsys)
    assert code == 2 and option in one_line(err)


def test_a_config_that_is_a_device_or_a_fifo_is_refused_at_once(tmp_path, capsys):
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    for cfg in ("/dev/zero", fifo):
        t0 = time.monotonic()
        code, err = sweep(["--config", cfg, "--out", tmp_path / "o"], capsys)
        assert code == 2 and "not a regular file" in one_line(err) and time.monotonic() - t0 < 10


@pytest.mark.parametrize("content", [b"[1, 2]", b"[" * 100000, b"\xff\xfe\x00binary"])
def test_load_a_folder_with_a_bad_manifest_is_one_valueerror(tmp_path, content):
    (tmp_path / "manifest.json").write_bytes(content)
    with pytest.raises(ValueError, match="manifest.json"):
        four21sim.load(tmp_path)


def test_tables_named_like_attributes_are_reachable_by_name(tmp_path, capsys):
    out = tmp_path / "out"
    assert sweep([*S, "--out", out], capsys)[0] == 0
    pd.DataFrame({"x": [1]}).to_parquet(out / "path.parquet")
    res = four21sim.load(out)
    assert isinstance(res.path, Path) and list(res["path"]["x"]) == [1]


@pytest.mark.skip(reason="open: with --workers 2 the process prints its one line after SIGTERM but does not exit "
                         "within 60 s (the pool's shutdown); to fix before enabling")
def test_sigterm_gives_143_and_sigint_130_and_the_workers_stop(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    args = ["--variants", "super421", "--players", "2", "--lineups", "greedy", "--games", "400000",
            "--task-games", "20000", "--workers", "2"]
    for sig, want in ((signal.SIGTERM, 143), (signal.SIGINT, 130)):
        p = subprocess.Popen([sys.executable, "-m", "four21sim.sweep", *args, "--out", str(tmp_path / str(want))],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while not list((tmp_path / str(want)).glob("parts/*/*.npz")) and time.monotonic() < deadline:
            time.sleep(0.2)
        p.send_signal(sig)
        _, err = p.communicate(timeout=60)
        assert p.returncode == want, err
        assert "Traceback" not in err
