"""Local processes against Dask: the same study on both, games per second and identical tables.

    python experiments/bench_executors.py [--games-total 200000000] [--workers 2]

Runs one study (2-player super421 and classic, 'optimal' and 'greedy' line-ups) of
``--games-total`` games with ``--workers N`` local processes and with
``--scheduler local:N`` (a local Dask cluster of N single-threaded workers), into
temporary directories, and prints games per second of each, the Dask overhead, and
whether the result tables are bit-identical.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from four21sim.study.run import run_sweep
from four21sim.study.spec import study_from_mapping


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games-total", type=int, default=200_000_000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--task-games", type=int, default=2_000_000)
    args = p.parse_args(argv)
    configs = 4
    games = args.games_total // configs
    study = study_from_mapping({
        "name": "bench_executors", "seed": 7, "games": games, "task_games": min(args.task_games, games),
        "variants": ["super421", "classic"], "players": [2], "lineups": ["optimal", "greedy"], "exact": False,
    })
    with tempfile.TemporaryDirectory() as tmp:
        rates = {}
        for label, kw in [(f"local processes x{args.workers}", dict(workers=args.workers)),
                          (f"dask local:{args.workers}", dict(scheduler=f"local:{args.workers}"))]:
            out = Path(tmp) / label.replace(" ", "_").replace(":", "")
            t = time.perf_counter()
            m = run_sweep(study, out, quiet=True, **kw)
            wall = time.perf_counter() - t
            rates[label] = (m["games_played_run"] / m["seconds"], wall, out)
            print(f"{label:<22} {m['games_played_run']:,} games: {m['seconds']:.1f} s running tasks "
                  f"({m['games_played_run'] / m['seconds'] / 1e6:.2f} M games/s), {wall:.1f} s in all")
        (a, _, oa), (b, _, ob) = rates.values()
        print(f"Dask overhead: {100 * (a / b - 1):+.1f}% time per game")
        same = all(pd.read_parquet(oa / f"{t}.parquet").equals(pd.read_parquet(ob / f"{t}.parquet"))
                   for t in ("measures", "distributions", "fairness", "skill"))
        print(f"tables bit-identical: {same}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
