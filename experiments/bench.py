"""Benchmark of the engine and the solver: ``python experiments/bench.py [--games N] [--big]``.

Measures, on this machine:

- compile/cache-load time apart from run time (first call vs steady state), and how
  long a fresh second process takes to start simulating (cache hit);
- games per second for 2-player ``super421`` and ``classic`` (the exact optimal
  policy: the table path with token context), and 4- and 8-player ``super421``
  (``table-aware``: the same table lookups without context), on all cores and on one;
- peak resident memory, and with ``--big`` 100 million games of one configuration
  to show memory stays flat;
- the exact solver's time for every preset.

The output is plain text meant to be quoted as it is.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import time


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=20_000_000, help="games per speed measurement (default 2e7)")
    p.add_argument("--big", action="store_true", help="also run 100 million games of 2-player super421")
    p.add_argument("--repeat", type=int, default=3, help="repeats per measurement; the best is kept")
    args = p.parse_args(argv)

    t_import = time.perf_counter()
    import numba

    import four21sim
    from four21sim import Variant, simulate
    from four21sim.exact.two_player import _round_table_cached, solve
    t_import = time.perf_counter() - t_import

    ncores = numba.config.NUMBA_NUM_THREADS
    print(f"four21sim {four21sim.__version__}, numba {numba.__version__}, python {platform.python_version()}, "
          f"{os.cpu_count()} cpus, numba threads {ncores}")
    print(f"import: {t_import:.2f} s")

    cases = [("super421", 2, "optimal"), ("classic", 2, "optimal"),
             ("super421", 4, "table-aware"), ("super421", 8, "table-aware")]
    # compile (or load from cache) apart from running
    for preset, n, pol in cases:
        v = Variant.from_preset(preset)
        t = time.perf_counter()
        simulate(v, n, pol, games=1000, seed=0)
        print(f"first call {preset:>9} {n}p {pol:<12}: {time.perf_counter() - t:6.2f} s "
              "(compile or cache load, policy tables, 1000 games)")
    print(f"layer: {numba.threading_layer()}")

    print(f"\nspeed, {args.games:,} games per run, best of {args.repeat}")
    print(f"{'variant':>9} {'players':>7} {'policy':<12} {'threads':>7} {'M games/s':>10} {'rounds/game':>11}")
    rates = {}
    for preset, n, pol in cases:
        v = Variant.from_preset(preset)
        for threads in (1, ncores):
            best = 0.0
            for _ in range(args.repeat):
                r = simulate(v, n, pol, games=args.games, seed=12345, threads=threads)
                best = max(best, r.games / r.elapsed)
            rates[(preset, n, threads)] = best
            rounds = r.counters["sum_rounds"] / r.games
            print(f"{preset:>9} {n:>7} {pol:<12} {threads:>7} {best / 1e6:>10.2f} {rounds:>11.2f}")
    for preset, n, _ in cases:
        s = rates[(preset, n, ncores)] / rates[(preset, n, 1)]
        print(f"scaling {preset} {n}p: {ncores} threads / 1 thread = {s:.2f}")

    print(f"\npeak resident memory so far: {_peak_mib():.0f} MiB")
    if args.big:
        v = Variant.from_preset("super421")
        t = time.perf_counter()
        r = simulate(v, 2, "optimal", games=100_000_000, seed=7)
        print(f"100,000,000 games 2p super421 optimal: {time.perf_counter() - t:.1f} s, "
              f"{r.games / r.elapsed / 1e6:.2f} M games/s, peak resident memory {_peak_mib():.0f} MiB")

    code = ("import time; t=time.perf_counter(); from four21sim import simulate; "
            "simulate('super421', 2, 'greedy', games=100000, seed=1); "
            "print(f'{time.perf_counter()-t:.2f}')")
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    print(f"\nsecond process (cached kernels): import + first 100,000 games in {out.stdout.strip()} s "
          f"(process wall time {time.perf_counter() - t:.2f} s)")

    print("\nexact 2-player solver (fresh solve per preset)")
    for preset in four21sim.PRESETS:
        v = Variant.from_preset(preset)
        solve.cache_clear()
        _round_table_cached.cache_clear()
        t = time.perf_counter()
        sol = solve(v)
        print(f"{preset:>15}: {time.perf_counter() - t:5.2f} s  P(seat 0 wins) = {sol.p_seat0:.6f}  "
              f"E[rounds] = {sol.expected_rounds:.4f}  sweeps {sol.iterations}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
