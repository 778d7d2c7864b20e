"""tests/notices.py takes out exactly the package's waiting notices, whatever the caches made a command say.

The witnesses are the notices themselves, as the code prints them: each solve notice of
``four21sim solve`` (printed at once here, as on a machine where every solve is slow) and
numba's compile notice; any other line on stderr is kept.
"""

from __future__ import annotations

import io
import sys
from contextlib import contextmanager

from notices import without_notices

from four21sim._util import waiting
from four21sim.cli import solve as solve_cli
from four21sim.cli._common import run
from four21sim.exact import nplayer


def test_every_solve_notice_is_taken_out(monkeypatch, capsys, tmp_path):
    said = []

    @contextmanager
    def at_once(text, stream=None, after=waiting.AFTER):
        print(text, file=sys.stderr)
        said.append(text)
        yield

    # solve's own notices, and the n-player solver's (waiting.solving), said at once; an empty
    # disk cache, so that the 3-player game is solved (and said) whatever the caches hold
    monkeypatch.setattr(solve_cli, "notice_after", at_once)
    monkeypatch.setattr(waiting, "notice_after", at_once)
    monkeypatch.setenv("FOUR21SIM_CACHE_DIR", str(tmp_path))
    nplayer._equilibrium.cache_clear()
    for argv in (["--set", "tokens=2"], ["--set", "tokens=2", "--players", "3"],
                 ["--set", "tokens=2", "--players", "3", "--against", "greedy,greedy"]):
        assert run(solve_cli.main, "solve", argv) == 0
    err = capsys.readouterr().err  # with numba's compile notice too, on an empty numba cache
    assert len(said) == 3 and all(f"{text}\n" in err for text in said), err
    assert without_notices(err) == "", err


def test_the_compile_notice_is_taken_out():
    said = io.StringIO()
    notice = waiting._CompileNotice("sweep", said, 0.0)
    notice.depth = 1  # a compile under way
    notice._say()
    assert said.getvalue().startswith("sweep: compiling") and without_notices(said.getvalue()) == ""


def test_every_other_line_is_kept():
    others = ("solve: error: tokens: 99 is not allowed; allowed: 1 to 21\n"
              "Traceback (most recent call last):\n"
              "sweep: solving the world ... and more\n"
              "UserWarning: solving ...\n")
    notice = "solve: solving super421 at 2 players exactly ...\n"
    assert without_notices(others) == others
    assert without_notices(notice + others + notice) == others
    assert without_notices("") == ""
