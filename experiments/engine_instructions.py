"""Instructions, branches and mispredicted branches per game: the engine against its floor.

    python experiments/engine_instructions.py [--games N]

Runs 2-player Super 421 ``greedy`` under valgrind's cachegrind (``--branch-sim=yes``), once
for the engine (``simulate(..., counters="results")``) and once for the floor on the engine's
own stream (experiments/floor.py, which plays the same games), each with ``N`` and with
``5 N`` games, and prints the difference per game (both runs make the same calls: what
starting python, loading numba's cache and a call cost is taken away, and it varies from
run to run by tens of millions of instructions, as much as 100,000 games). Counts of instructions are exact and do not
depend on what else the machine is doing; the mispredictions are those of cachegrind's
simulated predictor, an indication, not the CPU's. Needs valgrind (Debian: ``apt-get install
valgrind``); each of the four runs takes a few minutes (python and numba under valgrind).

Why: engine / floor is a ratio of times (experiments/bench.py); this says whether the engine
is slower because it does more (instructions) or because it waits (mispredictions).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

# the child: compile (or load) both, then play `games` games of one of them on one thread
_CHILD = """
import sys
sys.path.insert(0, {here!r})
from floor import floor
from four21sim import Variant, simulate
which, games = sys.argv[1], int(sys.argv[2])
v = Variant.from_preset("super421")
floor(1000, threads=1, engine_stream=True)
simulate(v, 2, "greedy", games=1000, seed=0, threads=1, counters="results")
if which == "floor":
    floor(games, threads=1, engine_stream=True)
else:
    simulate(v, 2, "greedy", games=games, seed=0, threads=1, counters="results")
"""
EVENTS = ("Ir", "Bc", "Bcm")  # instructions, conditional branches, their mispredictions


def _summary(path: Path) -> dict[str, int]:
    events = summary = None
    for line in path.read_text().splitlines():
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("summary:"):
            summary = [int(x) for x in line.split()[1:]]
    if events is None or summary is None:
        raise SystemExit(f"engine_instructions: no summary in {path}")
    return dict(zip(events, summary))


def _run(which: str, games: int, tmp: Path) -> dict[str, int]:
    out = tmp / f"cg.{which}.{games}"
    script = tmp / "child.py"
    script.write_text(_CHILD.format(here=str(HERE)))
    # one numba thread: the pool's idle threads would spin, and valgrind runs threads one at a time
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    r = subprocess.run(["valgrind", "--tool=cachegrind", "--branch-sim=yes", "--cache-sim=no",
                        f"--cachegrind-out-file={out}", sys.executable, str(script), which, str(games)],
                       env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"engine_instructions: valgrind failed ({which}, {games} games):\n{r.stderr[-2000:]}")
    return _summary(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=250_000, help="N: runs of N and 5 N games (default 250,000)")
    args = p.parse_args(argv)
    if args.games < 1:
        p.error(f"--games: {args.games}; allowed: at least 1")
    if shutil.which("valgrind") is None:
        print("engine_instructions: valgrind is not installed (Debian: apt-get install valgrind)", file=sys.stderr)
        return 2
    per_game = {}
    with tempfile.TemporaryDirectory() as d:
        for which in ("engine", "floor"):
            small, big = _run(which, args.games, Path(d)), _run(which, 5 * args.games, Path(d))
            per_game[which] = {e: (big[e] - small[e]) / (4 * args.games) for e in EVENTS}
    print(f"2-player super421 greedy, per game over {4 * args.games:,} games (cachegrind; mispredictions "
          "simulated)")
    print(f"{'':>8} {'instructions':>13} {'branches':>9} {'mispredicted':>13}")
    for which in ("engine", "floor"):
        g = per_game[which]
        print(f"{which:>8} {g['Ir']:13.0f} {g['Bc']:9.1f} {g['Bcm']:13.2f}")
    e, f = per_game["engine"], per_game["floor"]
    print(f"{'ratio':>8} {e['Ir'] / f['Ir']:13.2f} {e['Bc'] / f['Bc']:9.2f} {e['Bcm'] / f['Bcm']:13.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
