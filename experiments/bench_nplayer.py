"""The exact n-player solver against another commit: time and results, ``python experiments/bench_nplayer.py``.

    python experiments/bench_nplayer.py --against 3644c32 [--cases classic:3,super421:4] [--rounds 1]

Question: is the solve (equilibrium and certificate) of each preset at 3 players (and
super421 at 4) faster than at the other commit, with every result the same?

The other commit is checked out into a temporary git worktree; each solve runs in a
fresh process importing one tree (``PYTHONPATH``), with an empty solution cache
(``FOUR21SIM_CACHE_DIR``) and numba's compiled kernels warm (each tree first solves the
same game with 2 tokens more than players, which compiles the same kernels). Old and new alternate case
by case, so that a busy machine slows both alike; with ``--rounds`` above 1 each keeps its
best wall time. Printed: wall and CPU seconds of ``nplayer.solve`` (CPU: the process's,
both threads; a busy machine disturbs it less), the décharge and certificate iterations,
the load average before each solve, and the largest difference between the two trees of
every array of the solution (values, P(pay), win shares, expected rounds, best-response
gains, basis, outcome distributions in each state's own form, the games of fewer players too) and, at 3 players,
the number of engine-table entries (the decisions) that differ. The output is plain text to quote.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CASES = ("super421:3", "super421-lebon:3", "montreal:3", "classic:3", "super421:4")

_CHILD = """
import json, os, sys, time
import numpy as np
from four21sim import Variant
from four21sim.exact import nplayer
preset, n, out, tokens = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
v = Variant.from_preset(preset, {"tokens": int(tokens)} if tokens != "-" else ())
w, c = time.perf_counter(), time.process_time()
sol = nplayer.solve(v, n, "pay")
wall, cpu = time.perf_counter() - w, time.process_time() - c
arrays = {}
def put(s, prefix):
    for k in ("value", "p_pay", "p_win", "rounds", "gain", "basis", "dist"):
        arrays[prefix + k] = np.asarray(getattr(s, k))
    for k, sub in s.subs.items():
        put(sub, f"{prefix}sub{k}.")
put(sol, "")
if n == 3:
    from four21sim.policies.optimal import engine_tables3
    arrays["table.lead"], arrays["table.foll"] = engine_tables3(sol)
np.savez(out, **arrays)
print(json.dumps({"wall": wall, "cpu": cpu, "iterations": sol.iterations, "br_iterations": sol.br_iterations,
                  "converged": sol.converged, "sub_iterations": {k: s.iterations for k, s in sol.subs.items()}}))
"""


def _solve(tree: Path, preset: str, n: int, out: Path, tokens: str = "-") -> dict:
    with tempfile.TemporaryDirectory() as cache:
        # the package's shipped solutions off: a preset that ships would be read, not solved
        env = dict(os.environ, PYTHONPATH=str(tree), FOUR21SIM_CACHE_DIR=cache, FOUR21SIM_SHIPPED="off")
        run = subprocess.run([sys.executable, "-c", _CHILD, preset, str(n), str(out), tokens], cwd=tree, env=env,
                             capture_output=True, text=True)
    if run.returncode:
        raise SystemExit(f"{tree}: {preset} {n}p failed:\n{run.stderr}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def _canonical(preset: str, n: int, key: str, dist: np.ndarray) -> np.ndarray:
    """The outcome distributions in each state's own form (``NG.canonical_dist``): the trees' contexts
    (a phase's, or a pot's) may put a class of outcomes' probability on different triples."""
    from four21sim import Variant
    from four21sim.exact import _nplayer_game as NG
    m = int(key[3:key.index(".")]) if key.startswith("sub") else n
    game = NG.role_game(Variant.from_preset(preset), m)
    return np.array([NG.canonical_dist(game, s, dist[s]) for s in range(len(dist))])


def _differences(a_path: Path, b_path: Path, preset: str, n: int) -> tuple[float, str, int]:
    """(largest |difference| of the float arrays and where, engine-table entries that differ)."""
    a, b = np.load(a_path), np.load(b_path)
    if set(a.files) != set(b.files):
        return float("inf"), f"arrays {sorted(set(a.files) ^ set(b.files))}", -1
    worst, where, tables = 0.0, "-", 0
    for k in a.files:
        if a[k].shape != b[k].shape:
            return float("inf"), f"shape of {k}", -1
        if k.startswith("table."):
            tables += int((a[k] != b[k]).sum())
            continue
        x, y = (_canonical(preset, n, k, a[k]), _canonical(preset, n, k, b[k])) if k.endswith("dist") else (a[k], b[k])
        d = float(np.abs(x - y).max(initial=0.0))
        if d > worst:
            worst, where = d, k
    return worst, where, tables


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--against", default=None, help="the commit to compare with (default: the merge base with main)")
    p.add_argument("--cases", default=",".join(CASES),
                   help=f"preset:players, comma-separated (default {','.join(CASES)})")
    p.add_argument("--rounds", type=int, default=1, help="alternating rounds; the best wall time is kept (default 1)")
    args = p.parse_args(argv)
    against = args.against or _git("merge-base", "HEAD", "main")
    cases = [(c.split(":")[0], int(c.split(":")[1])) for c in args.cases.split(",")]

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        old = tmp / "old"
        _git("worktree", "add", "--detach", "-q", str(old), against)
        dirty = "+" if _git("status", "--porcelain", "--untracked-files=no") else ""
        trees = {f"old {_git('rev-parse', '--short', against)}": old,
                 f"new {_git('rev-parse', '--short', 'HEAD')}{dirty}": ROOT}
        try:
            print(f"{os.cpu_count()} cores; numba threads {os.environ.get('NUMBA_NUM_THREADS', 'one per core')}")
            for tree in trees.values():  # compile (or load) every kernel the solves use
                for preset, n in cases:
                    _solve(tree, preset, n, tmp / "warm.npz", tokens=str(n + 2))
            print(f"{'case':<18} {'tree':<14} {'wall s':>7} {'cpu s':>7} {'iter':>5} {'br':>3} {'load':>5}")
            for preset, n in cases:
                best = {}
                for _ in range(args.rounds):
                    for name, tree in trees.items():
                        load = os.getloadavg()[0]
                        r = _solve(tree, preset, n, tmp / f"{name.split()[0]}.npz")
                        r["load"] = load
                        if name not in best or r["wall"] < best[name]["wall"]:
                            best[name] = r
                for name, r in best.items():
                    its = f"{r['iterations']}" + "".join(f"+{i}" for i in r["sub_iterations"].values())
                    print(f"{preset + ' ' + str(n) + 'p':<18} {name:<14} {r['wall']:7.1f} {r['cpu']:7.1f} {its:>5} "
                          f"{r['br_iterations']:>3} {r['load']:5.1f}")
                worst, where, tables = _differences(tmp / "old.npz", tmp / "new.npz", preset, n)
                print(f"{'':<18} max |new - old| {worst:.2e} ({where}); engine-table entries that differ: "
                      f"{tables if n == 3 else '-'}")
        finally:
            _git("worktree", "remove", "--force", str(old))
    return 0


if __name__ == "__main__":
    sys.exit(main())
