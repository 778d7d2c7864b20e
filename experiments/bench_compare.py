"""Engine speed against another commit, measured in the same run: ``python experiments/bench_compare.py``.

    python experiments/bench_compare.py --against 8ed34ad --games 5000000 --rounds 3

Checks the other commit out into a temporary git worktree and times the same
simulations with both trees, alternating old and new in fresh processes round after
round (so that a busy machine slows both alike), keeping each one's best rate: wall-clock
games per second, and with one thread games per CPU second of the process, which a busy
machine disturbs less. Also measures each tree's cold compile time: the first call with
an empty numba cache (``NUMBA_CACHE_DIR`` pointed at a fresh folder). The output is plain
text to quote.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = [("super421", 2, "greedy"), ("super421", 2, "optimal"), ("classic", 2, "optimal"),
         ("super421", 4, "table-aware"), ("super421", 8, "table-aware")]

# Both layouts of the package (flat before 3603060, subpackages after) export these two names.
_SPEED = """
import json, sys, time
from four21sim import Variant, simulate
games, threads = int(sys.argv[1]), int(sys.argv[2])
out = {}
for preset, n, pol in %r:
    v = Variant.from_preset(preset)
    simulate(v, n, pol, games=1000, seed=0, threads=threads)  # compile or load, build tables
    c = time.process_time()
    r = simulate(v, n, pol, games=games, seed=12345, threads=threads)
    out[f"{preset} {n}p {pol}"] = (r.games / r.elapsed, r.games / (time.process_time() - c))
print(json.dumps(out))
""" % (CASES,)

_COLD = """
import time
t = time.perf_counter()
from four21sim import simulate
simulate("super421", 2, "greedy", games=1000, seed=0)
print(time.perf_counter() - t)
"""


def _run(tree: Path, code: str, args: list[str], env_extra: dict | None = None) -> str:
    env = dict(os.environ, PYTHONPATH=str(tree), **(env_extra or {}))
    return subprocess.run([sys.executable, "-c", code, *args], cwd=tree, env=env, capture_output=True, text=True,
                          check=True).stdout.strip().splitlines()[-1]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--against", default="HEAD~1", help="the commit to compare with (default HEAD~1)")
    p.add_argument("--games", type=int, default=5_000_000, help="games per measurement (default 5e6)")
    p.add_argument("--rounds", type=int, default=3, help="alternating rounds; the best rate is kept (default 3)")
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2], help="numba threads (default 1 2)")
    args = p.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(old), args.against], cwd=ROOT, check=True)
        rev = subprocess.run(["git", "rev-parse", "--short", args.against], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.strip()
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
        trees = {f"old {rev}": old, f"new {head}{'+' if _dirty() else ''}": ROOT}
        try:
            print("cold compile (empty numba cache): import + first 1,000 games of super421 2p greedy")
            for name, tree in trees.items():
                with tempfile.TemporaryDirectory() as cache:
                    secs = float(_run(tree, _COLD, [], {"NUMBA_CACHE_DIR": cache}))
                print(f"  {name:<16} {secs:6.1f} s")
            best = _alternate(trees, args)
            names = list(trees)
            print(f"\nspeed, {args.games:,} games per measurement, best of {args.rounds} alternating rounds "
                  "(M games/s, wall clock; with 1 thread also per CPU second, which load disturbs less)")
            print(f"{'case':<28} {'threads':>7} {names[0]:>16} {names[1]:>16} {'new/old':>8}  "
                  f"{'1 thread, CPU time: old':>24} {'new':>6} {'new/old':>8}")
            for case in [f"{a} {n}p {pol}" for a, n, pol in CASES]:
                for threads in args.threads:
                    (o, oc), (n, nc) = best[(case, threads, names[0])], best[(case, threads, names[1])]
                    cpu = f"  {oc / 1e6:>24.2f} {nc / 1e6:>6.2f} {nc / oc:>8.3f}" if threads == 1 else ""
                    print(f"{case:<28} {threads:>7} {o / 1e6:>16.2f} {n / 1e6:>16.2f} {n / o:>8.3f}{cpu}")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=ROOT, check=False)
    return 0


def _alternate(trees: dict, args) -> dict:
    """Best (wall, CPU) rates per (case, threads, tree) over alternating rounds of fresh processes."""
    best: dict = {}
    for _ in range(args.rounds):
        for threads in args.threads:
            for name, tree in trees.items():
                rates = json.loads(_run(tree, _SPEED, [str(args.games), str(threads)]))
                for case, (wall, cpu) in rates.items():
                    key = (case, threads, name)
                    w, c = best.get(key, (0.0, 0.0))
                    best[key] = (max(w, wall), max(c, cpu))
    return best


def _dirty() -> bool:
    out = subprocess.run(["git", "status", "--porcelain", "--", "four21sim"], cwd=ROOT, capture_output=True,
                         text=True).stdout
    return bool(out.strip())


if __name__ == "__main__":
    sys.exit(main())
