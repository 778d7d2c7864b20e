"""No silent wait, and every command interruptible (four21sim._util.waiting).

1. A long solve says what it solves and about how long, whoever asked for it (advise here;
   the notice names the command, or the package in a program), and in a command it runs in a
   worker thread whose value or error the main thread receives.
2. SIGTERM and Ctrl-C (SIGINT) stop a command in the middle of a long solve's kernel (it once
   ran on for minutes after SIGTERM), with the status every command gives (143, 130), no
   traceback, and nothing half-written in the cache folder. The requirement is 2 s; the bound
   asserted is 10 s so that a busy machine cannot make the test flaky (the time measured is
   in the assertion's message, and printed with ``-s``).
3. ``play`` waiting at its prompt: SIGTERM is 143 (it was reported as Ctrl-C, 130).
4. A notice (numba's compile notice) never continues a progress line drawn in place.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
BOUND = 10.0  # seconds from the signal to the exit asserted (the requirement: 2 s; see the docstring)
NOTICE_WAIT = 600  # a busy machine may take minutes to import and start the solve: generous


class _Reader:
    """Collects a pipe's text in a thread, so that the test can wait for a line without blocking."""

    def __init__(self, pipe) -> None:
        self.text = ""
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._read, args=(pipe,), daemon=True)
        self.thread.start()

    def _read(self, pipe) -> None:
        for chunk in iter(lambda: pipe.read1(4096) if hasattr(pipe, "read1") else pipe.read(1), b""):
            with self.lock:
                self.text += chunk.decode(errors="replace")

    def wait_for(self, word: str, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.lock:
                if word in self.text:
                    return True
            time.sleep(0.05)
        return False


def _start(args, cache: Path, stdin=subprocess.DEVNULL) -> tuple[subprocess.Popen, _Reader, _Reader]:
    env = {**os.environ, "FOUR21SIM_CACHE_DIR": str(cache), "COLUMNS": "200"}
    proc = subprocess.Popen([sys.executable, "-m", "four21sim", *args], cwd=ROOT, env=env, stdin=stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return proc, _Reader(proc.stdout), _Reader(proc.stderr)


def _signal_and_time(proc: subprocess.Popen, sig: int) -> float:
    t0 = time.monotonic()
    proc.send_signal(sig)
    try:
        proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail(f"still running 120 s after signal {sig}")
    return time.monotonic() - t0


def _nothing_half_written(cache: Path) -> None:
    """No temporary file left; every entry there is whole (it opens, and holds its key)."""
    names = [p.name for p in cache.rglob("*")] if cache.exists() else []
    assert not [n for n in names if ".tmp" in n or n.startswith(".")], names
    for p in cache.glob("*.npz"):
        with np.load(p, allow_pickle=False) as z:
            assert "__key__" in z.files and "__meta__" in z.files, p


def _signal_mid_solve(args: list[str], cache, sig) -> tuple:
    """Start the command, wait for its solve's notice, signal it a second into the solve (its kernels):
    (the process, its stderr reader, the seconds from the signal to its exit)."""
    proc, _, err = _start(args, cache)
    try:
        said = err.wait_for(f"{args[0]}: solving", NOTICE_WAIT)
        assert said, f"no notice of the solve on stderr: {err.text!r}"
        time.sleep(1.0)  # well inside the solve (its kernels)
        assert proc.poll() is None, err.text
        seconds = _signal_and_time(proc, sig)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err.thread.join(10)
    return proc, err, seconds


# 5 players at 15 tokens: a first solve of 10 to 30 minutes; the signal lands in its first kernels
FIVE = ["631", "--players", "5", "--seat", "1", "--set", "tokens=15", "--beat", "654",
        "--state", "pot=0,t0=3,t1=3,t2=3,t3=3,t4=3,leader=0"]


@pytest.mark.slow
@pytest.mark.parametrize("sig,status,word", [(signal.SIGTERM, 143, "terminated"), (signal.SIGINT, 130, "interrupted")],
                         ids=["SIGTERM", "SIGINT"])
def test_advise_stops_at_once_in_the_middle_of_a_long_solve(tmp_path, sig, status, word):
    cache = tmp_path / "cache"
    proc, err, seconds = _signal_mid_solve(["advise", *FIVE], cache, sig)
    print(f"{signal.Signals(sig).name}: exited {seconds:.2f} s after the signal")
    assert seconds < BOUND, f"{seconds:.1f} s after {signal.Signals(sig).name}"
    assert proc.returncode == status, err.text
    assert "Traceback" not in err.text, err.text
    notice = [line for line in err.text.splitlines() if line.startswith("advise: solving")][0]
    assert "at 5 players exactly" in notice and "10 to 30 minutes" in notice, notice
    assert err.text.strip().splitlines()[-1] == f"advise: {word}", err.text
    _nothing_half_written(cache)


@pytest.mark.slow
def test_solve_stops_on_sigterm_in_the_middle_of_a_long_solve(tmp_path):
    cache = tmp_path / "cache"
    proc, err, seconds = _signal_mid_solve(["solve", "--players", "5", "--set", "tokens=15"], cache, signal.SIGTERM)
    print(f"solve, SIGTERM: exited {seconds:.2f} s after the signal")
    assert seconds < BOUND, f"{seconds:.1f} s"
    assert proc.returncode == 143 and "Traceback" not in err.text, err.text
    _nothing_half_written(cache)


@pytest.mark.parametrize("sig,status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"])
def test_play_waiting_at_its_prompt_stops_with_the_signals_status(tmp_path, sig, status):
    proc, out, err = _start(["play", "--seed", "3", "--opponents", "sec"], tmp_path / "cache", stdin=subprocess.PIPE)
    try:
        assert out.wait_for("four21sim play:", NOTICE_WAIT), (out.text, err.text)
        time.sleep(0.5)  # at its prompt, reading standard input (kept open, nothing written)
        seconds = _signal_and_time(proc, sig)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdin.close()
    err.thread.join(10)
    print(f"play at its prompt, {signal.Signals(sig).name}: exited {seconds:.2f} s after the signal")
    assert seconds < BOUND, f"{seconds:.1f} s"
    assert proc.returncode == status, (out.text, err.text)
    assert "Traceback" not in err.text, err.text


# ------------------------------------------------------------------ 4. a notice on a line of its own
class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _lines_on_screen(text: str) -> list[str]:
    """What each line shows at the end: a carriage return starts the line again, ESC[K clears it."""
    lines = []
    for raw in text.split("\n"):
        lines.append(raw.split("\r")[-1].replace("\033[K", ""))
    return lines


def test_the_compile_notice_never_continues_the_site_progress_line():
    from four21sim._util.waiting import _CompileNotice
    from four21sim.cli.site import _Progress

    screen = _Terminal()
    progress = _Progress(screen, verbose=False, quiet=False)
    progress(4, 10, "a step")
    notice = _CompileNotice("site", screen, 0.0)
    notice.on_start(None)  # a compile begins and lasts: the notice is said (at once, after=0)
    deadline = time.monotonic() + 30
    while "compiling" not in screen.getvalue() and time.monotonic() < deadline:
        time.sleep(0.01)
    notice.on_end(None)
    progress(5, 10, "another step")
    progress.close()
    lines = _lines_on_screen(screen.getvalue())
    said = [line for line in lines if "compiling" in line]
    assert len(said) == 1 and said[0].startswith("site: compiling the engine's kernels"), lines
    assert lines[0] == "writing the site: 40% (4/10 steps)", lines
    assert lines[-2:] == ["writing the site: 50% (5/10 steps)", ""], lines


def test_a_solve_notice_ends_a_progress_bar_line_first():
    from four21sim._util.waiting import notice_after
    from four21sim.study.progress import Progress

    screen = _Terminal()
    with Progress("sweep", stream=screen, tty=True).phase("play", 10, "games") as ph:
        ph.update(3)
        with notice_after("sweep: solving something ...", stream=screen, after=0.0):
            time.sleep(0.3)
        ph.update(2)
    lines = _lines_on_screen(screen.getvalue())
    assert "sweep: solving something ..." in lines, lines


# ------------------------------------------------------------------ 1. who says what is solved
def test_a_solve_notice_names_the_command_or_the_package_and_is_said_once():
    from four21sim._util import waiting

    def notices(in_command: bool) -> str:
        screen = io.StringIO()
        with waiting.enter_command("advise") if in_command else contextlib.nullcontext():
            with waiting.solving("X at 5 players exactly", "10 to 30 minutes", stream=screen, after=0.0):
                with waiting.solving("X at 4 players exactly", "2 minutes", stream=screen, after=0.0):
                    time.sleep(0.3)  # a solve inside the solve: not said again
        return screen.getvalue()

    assert notices(True) == "advise: solving X at 5 players exactly (10 to 30 minutes) ...\n"
    assert notices(False) == "four21sim: solving X at 5 players exactly (10 to 30 minutes) ...\n"


def test_in_a_command_a_solve_runs_in_a_worker_and_gives_its_value_or_its_error():
    from four21sim._util import waiting

    where = []

    def work(x):
        where.append(threading.current_thread() is threading.main_thread())
        if x < 0:
            raise ValueError("x: negative")
        return 2 * x

    with waiting.enter_command("solve"):
        assert waiting.wait_for(work, 21) == 42
        with pytest.raises(ValueError, match="x: negative"):
            waiting.wait_for(work, -1)
    assert waiting.wait_for(work, 1) == 2  # a program: a plain call, in its own thread
    assert where == [False, False, True]
    assert not waiting.abandoned()



_HOLD = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


def test_waiting_for_another_process_solving_the_same_game_is_said(tmp_path, monkeypatch, capsys):
    from four21sim.exact import store
    monkeypatch.setenv("FOUR21SIM_CACHE_DIR", str(tmp_path))
    key = store.entry_key("a-test-entry", n=1)
    lock = store._path(key).with_suffix(".lock")
    other = subprocess.Popen([sys.executable, "-c", _HOLD, str(lock), "1.0"], stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout.readline().strip() == "held"
        with store.solving(key):  # waits for the other process (1 s), saying so
            pass
    finally:
        other.kill()
        other.wait()
    err = capsys.readouterr().err
    assert err == ("four21sim: another process is solving the same game; waiting for its solution (to read it from "
                   "the disk cache) ...\n"), err
    with store.solving(key):  # free: no word
        pass
    assert capsys.readouterr().err == ""


def test_the_solve_notice_names_the_game_and_says_when_the_disk_cache_is_off(monkeypatch, tmp_path):
    from four21sim import Variant
    from four21sim.exact import nplayer
    said = []

    @contextlib.contextmanager
    def record(what, how_long, *args, **kwargs):
        said.append((what, how_long))
        yield

    monkeypatch.setattr(nplayer, "solving", record)
    v = Variant.from_preset("super421", ["tokens=2"])
    for cache in ("off", str(tmp_path)):
        monkeypatch.setenv("FOUR21SIM_CACHE_DIR", cache)
        nplayer._equilibrium.cache_clear()
        nplayer.solve(v, 3)
    nplayer._equilibrium.cache_clear()
    what = "super421 with tokens=2 at 3 players exactly, then certifying the equilibrium"
    assert said[0] == (what, "under a minute on 2 cores each time: the disk cache is off"), said
    assert said[-1][1] == ("under a minute on 2 cores the first time; then read from the disk cache and checked in "
                           "about half that"), said
    assert said[-1][0].startswith("super421 with tokens=2 at "), said
