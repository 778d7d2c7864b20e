"""No silent wait, and every command interruptible (four21sim._util.waiting).

1. A long solve says what it solves and about how long, whoever asked for it (advise here).
2. SIGTERM and Ctrl-C (SIGINT) stop a command in the middle of a long solve's kernel (it once
   ran on for minutes after SIGTERM), with the status every command gives (143, 130), no
   traceback, and nothing half-written in the cache folder. The requirement is 2 s; the bound
   asserted is 10 s so that a busy machine cannot make the test flaky (the time measured is
   in the assertion's message, and printed with ``-s``).
3. ``play`` waiting at its prompt: SIGTERM is 143 (it was reported as Ctrl-C, 130).
4. A notice (numba's compile notice) never continues a progress line drawn in place.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

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
