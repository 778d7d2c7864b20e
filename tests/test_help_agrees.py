"""Help, docs and README state the same ranges, times and file names (issue 37).

The witnesses are the package's own constants (the ranges the code enforces) and the texts a
user reads: ``--help`` of every command, README.md and docs/. A text that states another range
than the code enforces, or another file name than the command writes, fails here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from four21sim.advice.advisor import GAME_PLAYERS, ROUND_PLAYERS
from four21sim.exact.nplayer import ANSWER_PLAYERS, FIRST_SOLVE, MAX_PLAYERS
from four21sim.rules.variants import MAX_PLAYERS as ENGINE_MAX
from four21sim.rules.variants import MIN_PLAYERS

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
# the commands below run with a bare environment (no terminal size but COLUMNS), all but where the
# package and its caches are: the checkout under test, numba's compiled kernels, the session's
# solutions (without them a command imported whatever four21sim is installed, compiled every
# kernel again, and solved into the user's cache)
KEEP = ("PYTHONPATH", "NUMBA_CACHE_DIR", "FOUR21SIM_CACHE_DIR", "XDG_CACHE_HOME")


def _bare(**env: str) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", **{k: os.environ[k] for k in KEEP if k in os.environ}, **env}


def _help(*args: str) -> str:
    r = subprocess.run([sys.executable, "-m", "four21sim", *args, "--help"], capture_output=True, text=True,
                       timeout=120, env=_bare(COLUMNS="400"))
    assert r.returncode == 0, r.stderr
    return " ".join(r.stdout.split())  # argparse wraps: compare words, not lines


def _doc(name: str) -> str:
    return " ".join((ROOT / "docs" / name).read_text().split())


def _span(lo: int, hi: int) -> str:
    return f"{lo} to {hi}"


def test_the_constants_are_the_ranges_the_docs_use():
    # the facts the texts below are checked against: the engine plays 2 to 8, the solvers reach 8, the
    # game answer 6 (a first solve at 7 or 8 players takes hours)
    assert (MIN_PLAYERS, ENGINE_MAX) == ROUND_PLAYERS
    assert GAME_PLAYERS == (2, ANSWER_PLAYERS) and MAX_PLAYERS == ENGINE_MAX


def test_the_top_level_help_states_the_solvers_range():
    text = _help()
    assert f"3 to {MAX_PLAYERS}: a certified equilibrium" in text, text


def test_solve_help_states_the_solvers_range_and_the_first_solve():
    text = _help("solve")
    assert f"to {MAX_PLAYERS} (an equilibrium" in text and FIRST_SOLVE[4] in text, text


def test_advise_help_docs_and_readme_state_the_advisors_ranges():
    rnd, game = _span(*ROUND_PLAYERS), _span(*GAME_PLAYERS)
    texts = {"advise --help": _help("advise"), "docs/advisor.md": _doc("advisor.md"),
             "README.md": " ".join(README.split())}
    for where, text in texts.items():
        assert f"{rnd} players" in text or f"players at the table, {rnd}" in text or f"| {rnd} (" in text, where
        assert game in text or f"3 to {ANSWER_PLAYERS}" in text, where
    for where, text in texts.items():  # no stale range: a round answer refused at 3 players and more
        assert "--state: missing" not in text, where


def test_the_page_offers_the_advisors_range():
    from four21sim.advice import site
    text = _doc("site.md")
    assert f"| `players` | the table size | {_span(*ROUND_PLAYERS)} " in text
    man = site.manifest({}, {})
    found = {k: v for k, v in man.items() if "players" in k or "range" in k}
    assert found, man.keys()
    assert str(list(ROUND_PLAYERS)) in str(found) or str(ROUND_PLAYERS) in str(found) or \
        (str(ROUND_PLAYERS[0]) in str(found) and str(ROUND_PLAYERS[1]) in str(found)), found


@pytest.mark.parametrize("where", ["README.md", "docs/play.md", "play --help"])
def test_the_game_log_has_one_name(where):
    text = _help("play") if where == "play --help" else (ROOT / where).read_text()
    names = set(re.findall(r"--(?:log|replay)[ =`]+([\w./-]+)", text)) - {"FILE"}  # FILE: the metavar
    assert names == {"games.jsonl"}, (where, names)


@pytest.mark.parametrize("where", ["README.md", "docs/play.md", "docs/nplayer.md", "docs/advisor.md"])
def test_first_solve_times_are_the_commands_own(where):
    text = " ".join((ROOT / where).read_text().split())
    for m in re.finditer(r"(?:about|takes?|in) ([\d.]+ (?:to [\d.]+ )?minutes?) (?:at|the first time)[^.]{0,40}"
                         r"4 players", text):
        assert m.group(1) in FIRST_SOLVE[4], (where, m.group(0))
    stale = ["about 4 minutes at 4 players", "seconds to a minute, then a disk cache", "minutes the first time, then"]
    assert not [s for s in stale if s in text], where


def test_the_site_command_and_folder_agree():
    cmd = "four21sim site --out table-site"
    assert cmd in README and cmd in (ROOT / "docs" / "site.md").read_text()


@pytest.mark.parametrize("cols", [80, 100])  # the keep tables are 76 wide: under 80 they cannot fit
def test_solve_output_fits_the_terminal(cols):
    r = subprocess.run([sys.executable, "-m", "four21sim", "solve", "--variant", "super421"], capture_output=True,
                       text=True, timeout=300, env=_bare(COLUMNS=str(cols), HOME=str(Path.home())))
    assert r.returncode == 0, r.stderr
    long = [line for line in r.stdout.splitlines() if len(line) > cols]
    assert not long, long
    assert "13.11 pp" in r.stdout  # the prose is still all there (words wrapped, not cut)
