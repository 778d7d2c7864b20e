"""Tests of the ``python -m four21sim.advise`` command line, run as a subprocess."""

import itertools
import json
import subprocess
import sys
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import pytest

from rules_tables import POSITION

from four21sim import advise

REPO = Path(__file__).resolve().parents[1]

POS = POSITION["super421"]


def srt(d):
    return tuple(sorted(d, reverse=True))


def brute_beat_exact(hand, m, target):
    """{kept dice: P(end strictly above target)} under 'exact' followers, by enumeration."""
    tpos = POS[target]

    @lru_cache(maxsize=None)
    def best(h, left):
        if left == 0:
            return Fraction(int(POS[h] < tpos))
        return max(options(h, left).values())

    @lru_cache(maxsize=None)
    def options(h, left):
        out = {}
        for keep in {srt(c) for n in range(3) for c in itertools.combinations(h, n)}:  # never all 3
            new = list(itertools.product(range(1, 7), repeat=3 - len(keep)))
            out[keep] = sum(best(srt(keep + t), left - 1) for t in new) / Fraction(len(new))
        return out

    return options(hand, m)


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "four21sim.advise", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def test_brute_force_sanity():
    # With one throw left and 221 to beat (last in super421), anything but 221 wins.
    opts = brute_beat_exact((2, 2, 1), 1, (2, 2, 1))
    # keep 2,2: lose only on a 1 -> 5/6; keep 2,1: lose only on a 2 -> 5/6
    assert opts[(2, 2)] == Fraction(5, 6) and opts[(2, 1)] == Fraction(5, 6)
    # throw all: lose on the 3 orders of 221
    assert opts[()] == Fraction(213, 216)


def test_table_631_beat_611():
    proc = run_cli("631", "--throws-left", "2", "--beat", "611", "--variant", "super421")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stdout.splitlines()
    assert "631" in lines[0] and "611" in lines[0] and "exact followers" in lines[0]
    start = next(i for i, line in enumerate(lines) if line.split()[:1] == ["keep"])
    rows = []
    for line in lines[start + 1:]:
        if not line.strip():
            break
        label, pct = line[:11].strip(), line[11:].split()[0]
        rows.append((label, float(pct.rstrip("%"))))
    labels = [r[0] for r in rows]
    assert len(rows) == 7 and len(set(labels)) == 7
    assert "stop" not in labels
    assert set(labels) == {"6 3 _", "6 _ 1", "_ 3 1", "6 _ _", "_ 3 _", "_ _ 1", "_ _ _"}
    values = [r[1] for r in rows]
    assert values == sorted(values, reverse=True)
    expected = brute_beat_exact((6, 3, 1), 2, (6, 1, 1))
    best_value = max(expected.values())
    assert values[0] == pytest.approx(100 * float(best_value), abs=0.005)
    best_line = [line for line in lines if line.startswith("Best play:")]
    assert len(best_line) == 1 and f"keep {labels[0]}" in best_line[0]
    # the printed best keep is an optimal one
    kept = tuple(int(c) for c in labels[0].split() if c != "_")
    assert expected[kept] == best_value


def test_json_631_beat_611():
    proc = run_cli("631", "--throws-left", "2", "--beat", "611", "--variant", "super421", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    for key in ("hand", "throws_left", "objective", "target", "measure", "variant", "ranking", "values",
                "followers", "keeps", "best"):
        assert key in data, key
    assert (data["hand"], data["throws_left"], data["objective"], data["target"]) == ("631", 2, "beat", "611")
    assert (data["variant"], data["ranking"], data["values"], data["followers"]) == \
        ("super421", "super421", "super421", "exact")
    expected = brute_beat_exact((6, 3, 1), 2, (6, 1, 1))
    assert len(data["keeps"]) == 7
    got = {}
    for row in data["keeps"]:
        assert set(row) >= {"keep", "kept", "stop", "value", "exact"}
        assert row["stop"] is False
        kept = () if row["kept"] == "-" else tuple(int(c) for c in row["kept"])
        got[kept] = Fraction(row["exact"])
        assert row["value"] == pytest.approx(float(got[kept]), abs=1e-15)
    assert got == expected
    exacts = [Fraction(r["exact"]) for r in data["keeps"]]
    assert exacts == sorted(exacts, reverse=True)
    assert data["best"] == data["keeps"][0]
    assert Fraction(data["best"]["exact"]) == max(expected.values())


def test_in_process_options():
    # --followers at_most adds 'stop'; --objective value needs no target
    adv = advise.advise(["631", "--throws-left", "1", "--followers", "at_most"])
    assert len(adv["keeps"]) == 8 and adv["objective"] == "421"
    assert sum(r["stop"] for r in adv["keeps"]) == 1
    adv = advise.advise(["421", "--throws-left", "2", "--variant", "super421-lebon"])
    assert adv["best"]["stop"] and Fraction(adv["best"]["exact"]) == 1
    adv = advise.advise(["421", "--throws-left", "0"])
    assert len(adv["keeps"]) == 1 and adv["best"]["keep"] == "stop"
    adv = advise.advise(["6-6-6", "--throws-left", "1", "--objective", "value", "--variant", "classic"])
    assert adv["values"] == "classic" and adv["followers"] == "at_most"
    assert adv["best"]["stop"] and Fraction(adv["best"]["exact"]) == 6
    adv = advise.advise(["221", "--reach", "221", "--set", "followers=at_most"])
    assert adv["objective"] == "reach" and adv["best"]["stop"] and Fraction(adv["best"]["exact"]) == 1


# The bad inputs of the brief, each run as a real subprocess.
@pytest.mark.parametrize("args", [
    ["731"],
    ["4211"],
    ["631", "--throws-left", "5"],
    ["631", "--variant", "nope"],
    ["631", "--set", "tokens=0"],
    ["631", "--set", "bogus=1"],
])
def test_bad_input_one_line_exit_2(args):
    proc = run_cli(*args)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1, proc.stderr
    assert err[0].startswith("advise: error:")
    assert proc.stdout == ""


@pytest.mark.parametrize("args,word", [
    (["4", "2", "1", "1"], "unrecognized arguments"),
    (["631", "--throws-left", "x"], "--throws-left"),
])
def test_argparse_errors(args, word):
    proc = run_cli(*args)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("usage:")
    last = proc.stderr.strip().splitlines()[-1]
    assert "error:" in last and word in last


# More bad inputs, through the same error handling in-process (faster).
@pytest.mark.parametrize("args,words", [
    (["731"], ["hand", "'731'"]),
    (["4211"], ["hand", "'4211'"]),
    (["0 2 1"], ["hand", "'0 2 1'"]),
    (["631", "--throws-left", "5"], ["--throws-left", "5"]),
    (["631", "--throws-left", "-1"], ["--throws-left", "-1"]),
    (["631", "--variant", "nope"], ["variant", "'nope'"]),
    (["631", "--set", "tokens=0"], ["tokens", "'0'"]),
    (["631", "--set", "bogus=1"], ["'bogus'"]),
    (["631", "--set", "tokens"], ["--set", "'tokens'"]),
    (["631", "--beat", "611", "--reach", "611"], ["--beat/--reach"]),
    (["631", "--objective", "beat"], ["--objective", "--beat"]),
    (["631", "--beat", "71"], ["--beat", "'71'"]),
    (["631", "--objective", "value", "--beat", "611"], ["--objective", "value"]),
])
def test_error_messages_name_option_and_value(args, words, capsys):
    from four21sim._cli import run
    assert run(advise.main, "advise", args) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("advise: error:")
    for w in words:
        assert w in lines[0]


def test_help():
    proc = run_cli("--help")
    assert proc.returncode == 0
    assert "--throws-left" in proc.stdout and "--variant" in proc.stdout
