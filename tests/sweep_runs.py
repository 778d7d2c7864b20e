"""The study runner driven as a user drives it, and the tiny studies the tests run (tests/test_sweep.py,
tests/test_results_integrity.py, tests/test_folder_attacks.py, tests/test_hard_links.py).

Shared by those files from here, not imported from one another: importing a test file would
collect its tests a second time and run its module-level set-up again.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from four21sim.cli.sweep import console
from four21sim.sweep import main as sweep_main

ROOT = Path(__file__).resolve().parent.parent

TABLES = ("measures", "distributions", "fairness", "scores", "skill", "exact")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
PART_NAME = re.compile(r"^\d{6}\.npz$")
# atomic_path's temporary name: ".<name>.<pid>.tmp<suffix>"
TEMP_NAME = re.compile(r"^\.\d{6}\.npz\.\d+\.tmp\.npz$")

# A tiny study: 2 variants x 2 players x 2 line-ups, 4 tasks of 1000 games each = 16 tasks.
VARIANTS = ("super421", "montreal")
TINY = ["--variants", ",".join(VARIANTS), "--players", "2", "--lineups", "greedy,one:optimal/greedy",
        "--games", "4000", "--task-games", "1000", "--seed", "7"]
TINY_TASKS = 16
TINY_TOML = """\
name = "tiny"
seed = 7
games = 4000
task_games = 1000
variants = ["super421", "montreal"]
players = [2]
lineups = ["greedy", "one:optimal/greedy"]
"""

# A study whose tasks take a fraction of a second each (100-token games are long), so that
# a run lasts a few seconds and can be stopped in the middle. 100 tokens > the solver's
# limit: no exact part, only Monte Carlo.
SLOW = ["--variants", "super421", "--players", "2", "--lineups", "greedy", "--set", "tokens=100",
        "--games", "400000", "--task-games", "20000", "--seed", "3"]
SLOW_TASKS = 20


# ================================================================== helpers
def run_cli(args, cwd, timeout=300) -> subprocess.CompletedProcess:
    """``python -m four21sim.sweep ARGS`` in a subprocess, output captured as text."""
    return subprocess.run([sys.executable, "-m", "four21sim.sweep", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


def start_cli(args, cwd) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "four21sim.sweep", *map(str, args)], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def run_inproc(args) -> int:
    """``four21sim.sweep.main`` in this process (cheaper: no start-up, kernels already loaded)."""
    return sweep_main([*map(str, args)])


def read_tables(out: Path) -> dict[str, pd.DataFrame]:
    return {name: pd.read_parquet(out / f"{name}.parquet") for name in TABLES}


def assert_same_tables(a: Path, b: Path) -> None:
    ta, tb = read_tables(a), read_tables(b)
    for name in TABLES:
        assert not ta[name].empty or name in ("skill", "exact"), f"{name}.parquet is empty in {a}"
        assert ta[name].equals(tb[name]), f"{name}.parquet differs between {a} and {b}"


def manifest(out: Path) -> dict:
    """manifest.json (what produced the results) with run.json (the run's times, commit, command)."""
    m = json.loads((out / "manifest.json").read_text())
    assert not set(m) & {"started", "finished", "seconds", "git_commit", "command", "games_per_second"}, \
        "run-varying fields in the committed manifest"
    return {**m, **json.loads((out / "run.json").read_text())}


def part_files(out: Path) -> list[Path]:
    """Files named as part files (temporary files, which start with '.', are not parts)."""
    parts = out / "parts"
    return sorted(p for p in parts.rglob("*.npz") if PART_NAME.match(p.name)) if parts.exists() else []


def assert_parts_load(out: Path) -> int:
    """Every file in parts/ is a part that loads whole, or (after a SIGKILL) an orphaned
    temporary file that no run reads; returns the number of parts."""
    for p in (out / "parts").rglob("*"):
        if p.is_file():
            assert PART_NAME.match(p.name) or TEMP_NAME.match(p.name), f"unexpected file {p}"
    parts = part_files(out)
    for p in parts:
        with np.load(p) as z:  # raises on a half-written or damaged file
            arrays = {k: z[k] for k in z.files}
        assert arrays and all(a.dtype.kind in "iu" for a in arrays.values()), p
    return len(parts)


def wait_for_parts(proc: subprocess.Popen, out: Path, n: int, timeout: float = 180) -> int:
    """Poll until ``n`` part files exist (fail if the process ends first)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        k = len(part_files(out))
        if k >= n:
            return k
        if proc.poll() is not None:
            _, err = proc.communicate()
            pytest.fail(f"the sweep ended (status {proc.returncode}) before {n} parts existed: {err}")
        time.sleep(0.01)
    proc.kill()
    pytest.fail(f"no {n} part files after {timeout} s")


def snapshot(root: Path) -> dict:
    """Every file and directory under ``root`` with its mtime and contents."""
    snap = {}
    for p in sorted(root.rglob("*")):
        st_ = p.stat()
        snap[str(p.relative_to(root))] = (p.is_dir(), st_.st_mtime_ns, None if p.is_dir() else p.read_bytes())
    return snap


def one_error_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got:\n{stderr}"
    return lines[0]


# One configuration, 1000 games (tests/test_folder_attacks.py, test_hard_links.py): the smallest run there is.
S = ["--variants", "super421", "--players", "2", "--lineups", "greedy", "--games", "1000", "--task-games", "1000",
     "--quiet"]


def sweep(args, capsys) -> tuple[int, str]:
    """The command line in this process: (exit status, stderr)."""
    code = console([*map(str, args)])
    return code, capsys.readouterr().err


def one_line(err: str) -> str:
    lines = [ln for ln in err.strip().splitlines() if ln]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]
