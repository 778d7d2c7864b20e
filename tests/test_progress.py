"""The display of a run by phase (study/progress.py): one line per phase through a pipe, a bar per
phase on a terminal, nothing when quiet; work resumed from an earlier run is shown, never counted
as done by this run."""

from __future__ import annotations

import fcntl
import io
import os
import pty
import select
import struct
import sys
import termios

import pytest

from four21sim.study.progress import Progress


def test_through_a_pipe_each_phase_is_one_line_saying_what_this_run_did():
    out = io.StringIO()
    p = Progress("sweep", stream=out)
    p.line("default: 2 configurations")
    with p.phase("play", 100, "games", initial=40) as ph:
        ph.update(35)
        ph.update(25)
    with p.phase("write", 3, "files") as ph:
        ph.update(3)
    lines = out.getvalue().splitlines()
    assert lines[0] == "sweep: default: 2 configurations"
    assert lines[1].startswith("sweep: play: 60 games (40 done before) in ") and lines[1].endswith(" s")
    assert lines[2].startswith("sweep: write: 3 files in ")
    assert len(lines) == 3


def test_quiet_shows_nothing_and_a_failed_phase_claims_nothing():
    out = io.StringIO()
    p = Progress("sweep", enabled=False, stream=out)
    p.line("x")
    with p.phase("play", 10, "games") as ph:
        ph.update(10)
    assert out.getvalue() == ""
    shown = io.StringIO()
    with pytest.raises(KeyboardInterrupt), Progress("sweep", stream=shown).phase("play", 10, "games"):
        raise KeyboardInterrupt
    assert shown.getvalue() == ""


def _drain(fd: int) -> bytes:
    """Everything written so far: a pseudo-terminal hands its bytes over in pieces (one read got only the first)."""
    got = b""
    while select.select([fd], [], [], 0.5)[0]:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        got += chunk
    return got


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a pseudo-terminal")
@pytest.mark.parametrize("columns", [0, 100])
def test_a_terminal_gets_bars_unless_it_has_no_width(columns):
    """A pseudo-terminal of 0 columns showed every bar as an empty line: it gets the lines instead."""
    master, slave = pty.openpty()
    try:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30 if columns else 0, columns, 0, 0))
        with os.fdopen(os.dup(slave), "w") as stream:
            p = Progress("sweep", stream=stream)
            with p.phase("play", 100, "games") as ph:
                ph.update(100)
            stream.flush()
        shown = _drain(master).decode(errors="replace")
    finally:
        os.close(master)
        os.close(slave)
    assert p.tty == bool(columns)
    if columns:
        assert "sweep: play: 100%|" in shown and "100/100" in shown, shown
    else:
        assert shown.replace("\r", "").splitlines()[0].startswith("sweep: play: 100 games in "), shown
