"""Game logs, replays and ``play --log`` against a hostile user: a log is data (it never runs code,
every key is checked before anything is played), and ``--log`` never replaces what is not a
regular file, nor fails only after the game.

Each test is an attack: a forged log or a path a careless or hostile user gives, run through the
command line (``run``, the exit statuses of every command) and checked for one line on stderr and
exit status 2, or for a file that must be left as it was.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import stat
from pathlib import Path

import pytest

from four21sim import Variant
from four21sim._util.atomic import UnsafePath, write_text_atomic
from four21sim.advice.gamelog import read_log, replay
from four21sim.advice.play import Game
from four21sim.cli import play as cli
from four21sim.cli._common import run
from four21sim.policies import compile_policy
from four21sim.rules import dice

ROOT = Path(__file__).resolve().parents[1]
CAUTIOUS = str(ROOT / "docs" / "examples" / "cautious.py") + ":cautious"


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


@pytest.fixture(scope="module")
def logged(tmp_path_factory):
    """A real log of one game against greedy (the person throws all three again at every decision)."""
    path = tmp_path_factory.mktemp("log") / "g.jsonl"
    with contextlib.redirect_stdout(io.StringIO()):  # not into the first test's capsys
        status = cli.main(["--seed", "3", "--opponents", "greedy", "--log", str(path)],
                          read=lambda prompt: "n" if "Another" in prompt else "-")
    assert status == 0
    return json.loads(path.read_text())


def _write(tmp_path, rec=None, text=None) -> Path:
    path = tmp_path / "bad.jsonl"
    path.write_text(text if text is not None else json.dumps(rec) + "\n")
    return path


# ---------------------------------------------------------------- 1. a replay never runs code named in the log
def test_a_log_naming_a_plugin_file_never_runs_it(tmp_path, logged, capsys):
    marker = tmp_path / "marker"
    evil = tmp_path / "evil.py"
    evil.write_text(f"open({str(marker)!r}, 'w').close()\n\ndef pol(turn):\n    return 'stop'\n")
    log = _write(tmp_path, {**logged, "opponents": [None, f"{evil}:pol"]})
    status, out, err = _play(["--replay", str(log)], capsys)
    _one_line_error(status, err, "line 1: opponents: ", "not allowed; allowed: a registered policy",
                    "never loaded from a log")
    assert not marker.exists() and out == ""
    with pytest.raises(ValueError, match="never loaded from a log"):  # nor through the Python API
        replay(logged | {"opponents": [None, f"{evil}:pol"]})
    assert not marker.exists()


def test_a_game_against_a_plugin_replays_only_with_the_plugin_given_on_the_command_line(tmp_path, capsys):
    log = tmp_path / "p.jsonl"
    status, _, err = _play(["--seed", "4", "--opponents", CAUTIOUS, "--log", str(log)], capsys)
    assert status == 0 and err == ""
    assert json.loads(log.read_text())["opponents"] == [None, CAUTIOUS]  # the log says who played
    status, out, err = _play(["--replay", str(log)], capsys)
    _one_line_error(status, err, "--opponents FILE.py:NAME")
    assert out == ""
    status, out, err = _play(["--replay", str(log), "--opponents", CAUTIOUS], capsys)
    assert status == 0 and err == "" and "Game over after" in out
    # --opponents with a log that names no plug-in would be silently ignored: refused
    plain = tmp_path / "plain.jsonl"
    _play(["--seed", "4", "--opponents", "greedy", "--log", str(plain)], capsys)
    status, out, err = _play(["--replay", str(plain), "--opponents", CAUTIOUS], capsys)
    _one_line_error(status, err, "--opponents:", "plug-in")


# ---------------------------------------------------------------- 4. forged logs: one line naming file, line, key
def _choice0(rec, **change):
    return {**rec, "choices": [{**rec["choices"][0], **change}, *rec["choices"][1:]]}


FORGED = {
    "seat 9": (lambda r: {**r, "seat": 9}, "seat: 9 is not allowed; allowed: an integer from 0 to 1"),
    "choices null": (lambda r: {**r, "choices": None}, "choices: None is not allowed"),
    "result missing": (lambda r: {k: v for k, v in r.items() if k != "result"}, "result: missing"),
    "index 9999": (lambda r: _choice0(r, index=9999), "choices[0].index: 9999 is not allowed"),
    "game 10**30": (lambda r: {**r, "game": 10**30}, "game: 1000000000000000000000000000000 is not allowed"),
    "seed 'x'": (lambda r: {**r, "seed": "x"}, "seed: 'x' is not allowed"),
    "index 'abc'": (lambda r: _choice0(r, index="abc"), "choices[0].index: 'abc' is not allowed"),
    "players 99": (lambda r: {**r, "players": 99}, "players: 99 is not allowed"),
    "variant option": (lambda r: {**r, "variant": {**r["variant"], "tokens": "lots"}}, "tokens"),
    "start": (lambda r: {**r, "start": "pot=99,t0=0,t1=0"}, "start:"),
    "winners": (lambda r: {**r, "result": {**r["result"], "winners": [5]}}, "result.winners[0]: 5 is not allowed"),
    "opponents not a list": (lambda r: {**r, "opponents": "optimal"}, "opponents: 'optimal' is not allowed"),
}


@pytest.mark.parametrize("case", FORGED)
def test_a_forged_log_is_one_line_naming_the_key(case, tmp_path, logged, capsys):
    forge, words = FORGED[case]
    log = _write(tmp_path, forge(logged))
    status, out, err = _play(["--replay", str(log)], capsys)
    _one_line_error(status, err, f"log: {log} line 1: ", words)
    assert out == ""  # nothing played


@pytest.mark.parametrize("case,words", [
    ("nan", "seed: nan is not allowed"),
    ("deep", "nested too deeply"),
    ("huge", "is not JSON"),
    ("long number", "a number too long"),
])
def test_a_forged_log_text_is_one_line(case, words, tmp_path, logged, capsys):
    text = json.dumps(logged)
    if case == "nan":
        text = text.replace(f'"seed": {logged["seed"]}', '"seed": NaN')
    elif case == "deep":
        text = "[" * 100_000 + "]" * 100_000
    elif case == "long number":  # more digits than Python turns into an int
        text = text.replace(f'"seed": {logged["seed"]}', '"seed": 1' + "0" * 10_000)
    else:  # a 5 MB line: the message must not repeat it
        text = '{"format": "' + "\x1b[31m" * 1_000_000
    log = _write(tmp_path, text=text + "\n")
    status, out, err = _play(["--replay", str(log)], capsys)
    _one_line_error(status, err, words)
    assert "\x1b" not in err and out == ""


def test_a_choice_illegal_where_it_is_played_is_refused_before_anything_is_shown(tmp_path, logged, capsys):
    # the hand's stop is a legal keep of the hand, but under the 'exact' rule a follower may not stop:
    # only playing the game finds that out, and it is played silently before being shown
    rec = logged
    game = Game(Variant.from_mapping(rec["variant"]), 2, rec["seed"], game=rec["game"])
    greedy = compile_policy("greedy", game.variant, 2)
    j = bad = None
    k = 0
    while not game.over:  # the person's first decision as a follower, reached by the log's own keeps
        t = game.turn
        if t.seat != rec["seat"]:
            game.play(game.policy_keep(greedy))
            continue
        if not t.may_stop:
            j, bad = k, dice.FULL_KEEP + t.hand
            break
        game.play(rec["choices"][k]["index"])
        k += 1
    assert j is not None, "the log's person never follows: pick another seed"
    forged = [*rec["choices"][:j], {**rec["choices"][j], "index": bad, "keep": "stop"}, *rec["choices"][j + 1:]]
    log = _write(tmp_path, {**rec, "choices": forged})
    status, out, err = _play(["--replay", str(log)], capsys)
    _one_line_error(status, err, f"choices[{j}].index", "may not stop")
    assert out == ""


def test_a_game_index_beyond_the_streams_is_refused_on_the_command_line(capsys):
    status, out, err = _play(["--seed", "3", "--game", str(10**30)], capsys)
    _one_line_error(status, err, "--game: ", "is not allowed")
    assert out == ""


# ---------------------------------------------------------------- 5. nothing from the log is printed raw
def test_an_escape_in_the_logged_variant_name_is_never_printed(tmp_path, logged, capsys):
    log = _write(tmp_path, {**logged, "variant_name": "\x1b[2J\x1b[31mpwned"})
    status, out, err = _play(["--replay", str(log)], capsys)
    assert status == 0 and err == ""
    assert "\x1b" not in out and "pwned" not in out and "super421" in out


def test_read_log_refuses_a_fifo_without_waiting(tmp_path):
    fifo = tmp_path / "log.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="FIFO"):
        read_log(fifo)


# ---------------------------------------------------------------- 2. and 3. --log never replaces a special file
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


@pytest.mark.parametrize("kind,words", [("fifo", "is not allowed (a FIFO); allowed: "),
                                        ("symlink", "is not allowed (a symbolic link); allowed: "),
                                        ("directory", "is not allowed (a directory); allowed: "),
                                        ("no folder", "is not allowed (no folder")])
def test_log_at_an_impossible_path_is_refused_before_the_game(kind, words, tmp_path, capsys):
    path = tmp_path / "x.jsonl"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "symlink":
        path.symlink_to(os.devnull)
    elif kind == "directory":
        path.mkdir()
    else:
        path = tmp_path / "missing" / "x.jsonl"
    before = os.lstat(path) if kind != "no folder" else None
    status, out, err = _play(["--seed", "3", "--opponents", "greedy", "--log", str(path)], capsys)
    _one_line_error(status, err, "--log: ", words)
    assert "Game over" not in out and "Keep?" not in out  # refused before the game, not after it
    if before is not None:
        after = os.lstat(path)
        assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)
    else:
        assert not path.parent.exists()


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
