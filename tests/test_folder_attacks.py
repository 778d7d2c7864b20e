"""A results folder never turned against its user (issue 18): links, foreign folders, bounds,
a cache that cannot lie, numbers independent of --task-games, one-line errors.

Each test is one attack, on tiny studies (one configuration, 1000 games), in temporary folders."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sweep_runs import ROOT, S, one_line, sweep

import four21sim
from four21sim.exact import nplayer
from four21sim.exact import store as cache


def _finished(small_ref: Path, tmp_path: Path) -> Path:
    """A finished results folder of S of this test's own: a copy (contents and times) of the one run
    of S per process (tests/conftest.py: small_ref) instead of running the same study again."""
    out = tmp_path / "out"
    shutil.copytree(small_ref, out)
    return out


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
def test_linked_parts_are_refused_and_nothing_outside_is_touched(tmp_path, capsys, where, small_ref):
    out = _finished(small_ref, tmp_path)
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


def test_a_users_file_inside_a_results_folder_is_kept(tmp_path, capsys, small_ref):
    out = _finished(small_ref, tmp_path)
    (out / "figures" / "my.png").write_bytes(b"mine")
    (out / "notes.md").write_text("mine")
    assert sweep([*S, "--out", out, "--games", "2000"], capsys)[0] == 2  # another study: refused
    assert sweep([*S, "--out", out], capsys)[0] == 0  # the same study: resumed, outputs rewritten
    assert (out / "figures" / "my.png").read_bytes() == b"mine" and (out / "notes.md").read_text() == "mine"


@pytest.mark.parametrize("out", ["", "/", str(ROOT), str(ROOT.parent), "~", "o\0ut"])
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


BIG = str(2**70)
COUNTS = {
    # id: (option, value, the text the one error line must contain)
    "games-2**70": ("--games", BIG, f"games: {BIG} is not allowed; allowed: an integer from 1 to 10,000,000,000"),
    "task-games-2**70": ("--task-games", BIG, f"task_games: {BIG} is not allowed; allowed: an integer from 1 to "
                                              "10,000,000,000"),
    "task-games-0": ("--task-games", "0", "task_games: 0 is not allowed; allowed: an integer from 1 to"),
    "seed-2**64": ("--seed", str(2**64), f"seed: {2**64} is not allowed; allowed: an integer from 0 to "
                                         "18,446,744,073,709,551,615"),
    "seed--1": ("--seed", "-1", "seed: -1 is not allowed"),
    "max-rounds-2**70": ("--max-rounds", BIG, f"max_rounds: {BIG} is not allowed; allowed: an integer from 1 to "
                                              "1,000,000"),
    "players-2**70": ("--players", BIG, f"players: {BIG} is not allowed; allowed: integers from 2 to 8"),
    "players-9-among-many": ("--players", "2,3,9," + ",".join(["4"] * 5000), "players: 9 is not allowed"),
    "players-twice-among-many": ("--players", "2," + ",".join(["3"] * 5000), "players: 3 is given twice"),
    "workers-0": ("--workers", "0", "--workers: 0 is not allowed; allowed: an integer from 1 to"),
    "workers--1": ("--workers", "-1", "--workers: -1 is not allowed"),
    "workers-2**70": ("--workers", BIG, "per core"),
    "local:0": ("--scheduler", "local:0", "--scheduler: 'local:0' is not allowed; allowed: local:N with N from 1 to"),
    "local:-1": ("--scheduler", "local:-1", "--scheduler: 'local:-1' is not allowed; allowed: local:N with N from 1"),
}


@pytest.mark.parametrize("case", list(COUNTS))
def test_every_count_sweep_takes_is_bounded_before_anything_is_made(tmp_path, capsys, case):
    option, value, expect = COUNTS[case]
    args = list(S)
    if option in args:
        args[args.index(option) + 1] = value
    else:
        args += [option, value]
    code, err = sweep([*args, "--out", tmp_path / "o"], capsys)
    line = one_line(err)
    assert code == 2 and line.startswith("sweep: error: ") and expect in line, line
    assert list(tmp_path.iterdir()) == []


def test_simulate_with_2_to_the_70_games_names_games():
    """It named first_game (whose bound is computed from games) instead."""
    with pytest.raises(ValueError, match=r"^games: 1180591620717411303424 is not allowed; allowed: an integer "
                                         r"from 1 to 9223372036854775807$"):
        four21sim.simulate("super421", 2, "greedy", games=2**70, seed=0)


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
    nplayer._equilibrium.cache_clear()
    truth = nplayer.solve(V4, 3).seat_p_pay

    def forge(a):
        if forgery == "nan":
            a["value"][0, 0] = np.nan
        else:
            for k in ("value", "p_pay", "p_win", "gain", "basis"):
                a[k] = a[k][:, [1, 0, 2]]
    _rewrite(_entry(tmp_path), forge)
    nplayer._equilibrium.cache_clear()
    with pytest.warns(cache.CacheWarning, match="refused"):
        again = nplayer.solve(V4, 3)
    assert not again.info.get("from_cache") and np.allclose(again.seat_p_pay, truth, atol=1e-12)
    nplayer._equilibrium.cache_clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the replaced entry is sound: no warning now
        assert nplayer.solve(V4, 3).info["from_cache"]


def test_a_bad_cache_folder_turns_the_cache_off_with_one_warning(monkeypatch, tmp_path):
    monkeypatch.setenv("FOUR21SIM_CACHE_DIR", str(tmp_path / ("x" * 300)))
    with pytest.warns(cache.CacheWarning, match="cannot be used"):
        assert cache.cache_dir() is None
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("FOUR21SIM_CACHE_DIR", "~/c")
    assert cache.cache_dir() == tmp_path / "c"


# ------------------------------------------------------------------ 6/7. parts of the wrong shape
@pytest.mark.slow  # 6 s of CPU
def test_a_part_of_the_wrong_shape_with_a_valid_checksum_is_recomputed_naming_it(tmp_path, capsys, small_ref):
    from four21sim.study import tasks
    out = _finished(small_ref, tmp_path)
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
@pytest.mark.slow  # 7 s of CPU
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
        # at once: refused before any read (reading /dev/zero would not end; a minute leaves room for a busy machine)
        assert code == 2 and "not a regular file" in one_line(err) and time.monotonic() - t0 < 60


@pytest.mark.parametrize("content", [b"[1, 2]", b"[" * 100000, b"\xff\xfe\x00binary"])
def test_load_a_folder_with_a_bad_manifest_is_one_valueerror(tmp_path, content):
    (tmp_path / "manifest.json").write_bytes(content)
    with pytest.raises(ValueError, match="manifest.json"):
        four21sim.load(tmp_path)


def test_tables_named_like_attributes_are_reachable_by_name(tmp_path, small_ref):
    out = _finished(small_ref, tmp_path)
    pd.DataFrame({"x": [1]}).to_parquet(out / "path.parquet")
    res = four21sim.load(out)
    assert isinstance(res.path, Path) and list(res["path"]["x"]) == [1]


def _group(pgid: int) -> list[int]:
    """The live processes of process group ``pgid`` (from /proc: a witness outside the code under test)."""
    pids = []
    for d in os.listdir("/proc"):
        try:
            fields = Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != "Z" and int(fields[2]) == pgid:
            pids.append(int(d))
    return pids


def _until(cond, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("case", ["SIGTERM-to-the-parent-mid-run", "Ctrl-C-to-the-group-as-workers-start"])
def test_sigterm_gives_143_and_sigint_130_and_the_workers_stop(tmp_path, case):
    """Signals with worker processes: one line, the shared exit status, every process of the run gone.

    Ctrl-C at a terminal reaches the whole process group, workers included, possibly while one
    is still being spawned (it once printed a traceback from the child, and a signal between a
    worker's start and the pool's record of it left a process the exit waited for).

    The pool's manager thread releases the queues' semaphores as it ends; a process ending
    between a semaphore's removal and its notice to the resource tracker made the tracker print
    "leaked semaphore" warnings after the last line (once in CI). The window is widened here to
    half a second, in every thread but the main one, so that an exit not waiting for that thread fails.
    """
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import threading, time\n"
        "import multiprocessing.synchronize as s\n"
        "def _cleanup(name):\n"
        "    from multiprocessing.resource_tracker import unregister\n"
        "    s.sem_unlink(name)\n"
        "    if threading.current_thread() is not threading.main_thread():\n"
        "        time.sleep(0.5)\n"
        "    unregister(name, 'semaphore')\n"
        "s.SemLock._cleanup = staticmethod(_cleanup)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]))
    args = ["--variants", "super421", "--players", "2", "--lineups", "greedy", "--set", "tokens=100", "--games",
            "400000", "--task-games", "20000", "--workers", "2", "--out", str(tmp_path / "o")]
    p = subprocess.Popen([sys.executable, "-m", "four21sim.sweep", *args], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        if case.startswith("SIGTERM"):
            sig, want = signal.SIGTERM, 143
            _until(lambda: list((tmp_path / "o").glob("parts/*/*.npz")) or p.poll() is not None, 120)
            p.send_signal(sig)
        else:
            sig, want = signal.SIGINT, 130
            # the parent and the first of its children, then a worker spawned and still importing
            # (0.1 to 0.15 s later on this machine, when the child's traceback showed)
            _until(lambda: len(_group(p.pid)) >= 2 or p.poll() is not None, 120)
            time.sleep(0.12)
            os.killpg(p.pid, sig)
        _, err = p.communicate(timeout=60)
        gone = _until(lambda: not _group(p.pid), 20)
    finally:
        if _group(p.pid):
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode == want, err
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith(
        f"sweep: {'terminated' if want == 143 else 'interrupted'}; finished tasks are saved in"), err
    assert gone, "processes of the run still alive 20 s after it ended"
    assert (tmp_path / "o" / ".lock").read_text() == ""  # released


def test_a_signal_while_a_worker_pool_runs_waits_for_the_step_in_hand_then_stops_every_worker():
    """SIGINT while a finished task is being written (in ``finished``): the write completes, the
    workers are killed, then the handler in place before (Python's: KeyboardInterrupt) gets it."""
    import multiprocessing

    from four21sim.study.executors import run_processes
    from four21sim.study.plan import make_plan
    from four21sim.study.spec import DEFAULT_STUDY
    plan = make_plan(DEFAULT_STUDY.with_changes(variants=["super421"], players=[2], lineups=["greedy"], games=4000,
                                                task_games=1000, undefined="warn"))
    written = []

    def finished(task, counters) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.3)  # a signal raised at once would land here, the write below never done
        written.append(task)

    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        run_processes(plan, list(plan.tasks), 2, finished)
    assert len(written) == 1
    assert signal.getsignal(signal.SIGINT) is before
    # every worker gone: killed, then reaped within seconds (active_children() joins those that ended)
    assert _until(lambda: multiprocessing.active_children() == [], 10), multiprocessing.active_children()


@pytest.mark.parametrize("value", ["0", "-1", "two", ""])
@pytest.mark.parametrize("start", [["-m", "four21sim.sweep", "--help"], ["-m", "four21sim", "advise", "--help"],
                                   ["-c", "import four21sim"]], ids=["sweep", "four21sim-advise", "import"])
def test_numba_num_threads_that_numba_cannot_start_with_is_one_line(value, start):
    """numba raised its own traceback inside ``import four21sim`` for 0 (and ignored 'two' after a parse
    traceback printed as a warning): a command now says it in one line (exit 2); an import raises ImportError."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_NUM_THREADS=value)
    res = subprocess.run([sys.executable, *start], env=env, capture_output=True, text=True, timeout=120)
    limit = 4 * (os.cpu_count() or 1)
    want = f"NUMBA_NUM_THREADS: {value!r} is not allowed; allowed: an integer from 1 to {limit}"
    if start[0] == "-m":
        assert res.returncode == 2 and one_line(res.stderr).startswith(f"four21sim: error: {want}"), res.stderr
        assert res.stdout == ""
    else:
        assert res.returncode == 1 and res.stderr.strip().splitlines()[-1].startswith(f"ImportError: four21sim: {want}")


# ------------------------------------------------------------------ 10. the shared exit statuses
def test_a_full_disk_on_stdout_is_one_line_and_exit_2():
    with open("/dev/full", "w") as full:
        res = subprocess.run([sys.executable, "-m", "four21sim", "advise", "421"], stdout=full,
                             stderr=subprocess.PIPE, text=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert res.returncode == 2
    assert one_line(res.stderr) == "advise: error: cannot write the output (No space left on device)"


@pytest.mark.slow  # 6 s of CPU
def test_a_closed_stdout_is_one_line_and_exit_2_and_a_quiet_study_needs_none(tmp_path):
    """print() to a closed stdout (sys.stdout is None) did nothing: the answer lost, exit status 0."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-m", "four21sim", "advise", "421"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, timeout=120, env=env,
                         preexec_fn=lambda: os.close(1))
    assert res.returncode == 2
    assert one_line(res.stderr) == "advise: error: cannot write the output (the standard output is closed)"
    # a study writes its folder, not stdout: closed, it still runs (its summary line has nowhere to go)
    res = subprocess.run([sys.executable, "-m", "four21sim.sweep", *S[:-1], "--out", str(tmp_path / "o")],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=300, env=env,
                         preexec_fn=lambda: os.close(1))
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr
    assert (tmp_path / "o" / "REPORT.md").is_file()


def test_a_closed_stdin_is_one_line_and_exit_2():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-m", "four21sim", "play", "--seed", "1"], stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, timeout=120, env=env, preexec_fn=lambda: os.close(0))
    assert res.returncode == 2
    assert res.stderr.strip().splitlines()[-1] == ("play: error: the standard input is closed; allowed: run it "
                                                   "with a terminal or a file"), res.stderr
    assert "Traceback" not in res.stderr
