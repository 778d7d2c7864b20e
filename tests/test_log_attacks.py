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


def _play(argv, capsys, answer="-"):
    """Run ``four21sim play`` in this process: (exit status, stdout, stderr)."""
    status = run(lambda a: cli.main(a, read=lambda prompt: "n" if "Another" in prompt else answer), "play", argv)
    out = capsys.readouterr()
    return status, out.out, out.err


def _one_line_error(status, err, *words):
    assert status == 2
    assert "Traceback" not in err and err.count("\n") == 1 and len(err) < 500, err
    for w in words:
        assert w in err, (w, err)


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


# ---------------------------------------------------------------- 6. a plug-in typed by the user fails in one line
PLUGINS = {
    "raises deciding": ("def pol(turn):\n    raise ValueError('boom')\n", "raised ValueError: 'boom'"),
    "syntax error": ("def pol(turn:\n    return 'stop'\n", "raised SyntaxError"),
    "raises loading": ("raise RuntimeError('at import')\ndef pol(turn):\n    return 'stop'\n",
                       "raised RuntimeError: 'at import'"),
    "exits 0 deciding": ("def pol(turn):\n    raise SystemExit(0)\n", "raised SystemExit: '0'"),
    "exits loading": ("import sys\nsys.exit(0)\n", "raised SystemExit: '0'"),
    "class raises": ("class pol:\n    def __init__(self):\n        1 / 0\n", "raised ZeroDivisionError"),
}


@pytest.mark.parametrize("case", PLUGINS)
def test_a_failing_plugin_is_one_line_naming_it(case, tmp_path, capsys):
    code, words = PLUGINS[case]
    (tmp_path / "mine.py").write_text(code)
    status, out, err = _play(["--seed", "3", "--opponents", f"{tmp_path / 'mine.py'}:pol"], capsys)
    _one_line_error(status, err, "--opponents: ", words)  # exit 2, never 0, never a traceback


@pytest.mark.parametrize("body", ["    while True:\n        pass\n",
                                  # catching Exception does not keep it from being stopped
                                  "    while True:\n        try:\n            time.sleep(0.05)\n"
                                  "        except Exception:\n            pass\n"])
def test_a_plugin_that_never_answers_is_stopped(body, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("four21sim.advice.play.DECISION_SECONDS", 0.5)  # 10 s in use: a fast test
    (tmp_path / "slow.py").write_text("import time\n\ndef pol(turn):\n" + body)
    status, out, err = _play(["--seed", "3", "--opponents", f"{tmp_path / 'slow.py'}:pol"], capsys)
    _one_line_error(status, err, "--opponents: ", "took longer than 0.5 s")
    import signal
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # no timer left running


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
