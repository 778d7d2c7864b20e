"""No silent waits (issue 37): a slow block and numba's first compile are said, a quick one is not.

The compile notice is tested in fresh interpreters, each compiling a new function of its own
(no cache), so that numba really compiles: the witness is what the process prints.
"""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
import threading
import time

from four21sim._util.waiting import notice_after


class _Said(io.StringIO):
    """A stream that tells when it is written to."""

    def __init__(self) -> None:
        super().__init__()
        self.written = threading.Event()

    def write(self, text: str) -> int:
        n = super().write(text)
        self.written.set()
        return n


def test_a_slow_block_is_announced_once_and_a_quick_one_is_not():
    slow, quick = _Said(), io.StringIO()
    with notice_after("solving ...", stream=slow, after=0.05):
        # the block lasts until the notice is out: a busy machine may start the timer's thread late
        assert slow.written.wait(timeout=120)
    with notice_after("solving ...", stream=quick, after=5.0):
        pass
    time.sleep(0.1)  # a timer that was wrongly left running would have fired by now
    assert slow.getvalue() == "solving ...\n"
    assert quick.getvalue() == ""


_COMPILE = textwrap.dedent("""
    import sys
    from four21sim._util.waiting import announce_compiles
    announce_compiles("prog", after=float(sys.argv[1]))
    import numba

    @numba.njit
    def f(x):
        return x + 1

    @numba.njit
    def g(x):
        return x * 2

    f(1); g(1); f(1.5)
    print("done", flush=True)
""")


def _run(after: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _COMPILE, after], capture_output=True, text=True, timeout=300)


def test_a_long_compile_is_said_once_per_process():
    r = _run("0")  # every compile is "long": three compiles, one line
    assert r.returncode == 0, r.stderr
    assert r.stdout == "done\n"
    lines = [line for line in r.stderr.splitlines() if "compiling" in line]
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("prog: compiling the engine's kernels with numba")


def test_a_quick_compile_is_not_said():
    r = _run("60")
    assert r.returncode == 0, r.stderr
    assert "compiling" not in r.stderr, r.stderr
