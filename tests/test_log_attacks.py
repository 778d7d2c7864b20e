"""Game logs, replays and ``play --log`` against a hostile user: a log is data (it never runs code,
every key is checked before anything is played), and ``--log`` never replaces what is not a
regular file, nor fails only after the game.

Each test is an attack: a forged log or a path a careless or hostile user gives, run through the
command line (``run``, the exit statuses of every command) and checked for one line on stderr and
exit status 2, or for a file that must be left as it was.
"""

from __future__ import annotations

import os
import stat

import pytest

from four21sim._util.atomic import UnsafePath, write_text_atomic
from four21sim.cli import play as cli
from four21sim.cli._common import run


# ---------------------------------------------------------------- 2. a writer never replaces a special file
@pytest.mark.parametrize("kind", ["fifo", "symlink to a device", "directory"])
def test_the_atomic_writer_never_replaces_what_is_not_a_regular_file(kind, tmp_path):
    path = tmp_path / "x"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:
        path.symlink_to(os.devnull)
    before = os.lstat(path)
    with pytest.raises(UnsafePath, match="regular file"):
        write_text_atomic(path, "data")
    after = os.lstat(path)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x"]  # no temporary file left


def test_the_atomic_writer_still_replaces_a_regular_file(tmp_path):
    path = tmp_path / "x"
    path.write_text("old")
    write_text_atomic(path, "new")
    assert path.read_text() == "new" and stat.S_ISREG(os.lstat(path).st_mode)


# ---------------------------------------------------------------- 7. what the person typed is not written back whole
def test_a_huge_line_typed_at_the_prompt_is_not_echoed(capsys):
    typed = "9" * 5_000_000  # a paste gone wrong: 5 MB of digits no hand holds
    answers = iter([typed, "\x1b[2J" + "x" * 100, "q"])
    status = run(lambda a: cli.main(a, read=lambda prompt: next(answers)), "play", ["--seed", "3", "--opponents",
                                                                                   "greedy"])
    out = capsys.readouterr().out
    assert status == 0
    assert len(out) < 5_000, len(out)  # the game's first throw, two refusals, and leaving
    assert out.count("keep: ") == 2 and "5,000,002" in out  # the repr's length (with its quotes) is said
    assert "\x1b" not in out
