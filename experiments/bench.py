"""Benchmark of the engine and the solver: ``python experiments/bench.py [--games N] [--big]``.

Measures, on this machine:

- compile/cache-load time apart from run time (first call vs steady state), and how
  long a fresh second process takes to start simulating (cache hit);
- games per second for 2-player ``super421`` with ``greedy`` (context mode 0), 2-player
  ``super421`` and ``classic`` (the exact optimal policy: the table path with token
  context), and 4- and 8-player ``super421`` (``table-aware``: the same table lookups
  without context), on all cores and on one;
- the engine against the floor (``experiments/floor.py``: 2-player super421 greedy
  stripped to its bones), in this process, alternately: engine / floor, and engine / the
  floor drawing from the engine's own random stream (which plays the engine's games:
  checked, game for game, by the games seat 0 won);
- the 4-player equilibrium (policy ``optimal``: the compact tables of docs/engine.md,
  context mode 3) against ``greedy`` at 4 players, alternately, on one thread and on all:
  optimal 4p / greedy 4p (the time its first call takes, the solve or its load from the
  solution store and the tables, is printed apart);
- peak resident memory, and with ``--big`` 100 million games of one configuration
  to show memory stays flat;
- the exact solver's time for every preset.

Rates are best-of-``--repeat`` wall-clock rates; on a shared machine they are noisy. The
1-thread floor ratio is also given in CPU time (``time.process_time``), which a busy
machine disturbs much less. The output is plain text meant to be quoted as it is.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # experiments/floor.py

CASES = [("super421", 2, "greedy"), ("super421", 2, "optimal"), ("classic", 2, "optimal"),
         ("super421", 4, "table-aware"), ("super421", 8, "table-aware")]


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
    t_import = time.perf_counter() - t_import
    ncores = numba.config.NUMBA_NUM_THREADS
    print(f"four21sim {four21sim.__version__} ({Path(four21sim.__file__).parent}), numba {numba.__version__}, "
          f"python {platform.python_version()}, {os.cpu_count()} cpus, numba threads {ncores}")
    print(f"import: {t_import:.2f} s")
    _first_calls()
    print(f"layer: {numba.threading_layer()}")
    _speed(args.games, args.repeat, ncores)
    _floor_ratio(args.games, args.repeat, ncores)
    _optimal_4p(args.games, args.repeat, ncores)
    print(f"\npeak resident memory so far: {_peak_mib():.0f} MiB")
    if args.big:
        _big()
    _second_process()
    _solver()
    return 0


def _first_calls() -> None:
    """Compile (or load from cache) apart from running."""
    from four21sim import Variant, simulate
    for preset, n, pol in CASES:
        v = Variant.from_preset(preset)
        t = time.perf_counter()
        simulate(v, n, pol, games=1000, seed=0)
        print(f"first call {preset:>9} {n}p {pol:<12}: {time.perf_counter() - t:6.2f} s "
              "(compile or cache load, policy tables, 1000 games)")


def _speed(games: int, repeat: int, ncores: int) -> None:
    from four21sim import Variant, simulate
    print(f"\nspeed, {games:,} games per run, best of {repeat}")
    print(f"{'variant':>9} {'players':>7} {'policy':<12} {'threads':>7} {'M games/s':>10} {'rounds/game':>11}")
    rates = {}
    for preset, n, pol in CASES:
        v = Variant.from_preset(preset)
        for threads in (1, ncores):
            best = 0.0
            for _ in range(repeat):
                r = simulate(v, n, pol, games=games, seed=12345, threads=threads)
                best = max(best, r.games / r.elapsed)
            rates[(preset, n, pol, threads)] = best
            rounds = r.counters["sum_rounds"] / r.games
            print(f"{preset:>9} {n:>7} {pol:<12} {threads:>7} {best / 1e6:>10.2f} {rounds:>11.2f}")
    for preset, n, pol in CASES:
        s = rates[(preset, n, pol, ncores)] / rates[(preset, n, pol, 1)]
        print(f"scaling {preset} {n}p {pol}: {ncores} threads / 1 thread = {s:.2f}")


def _floor_ratio(games: int, repeat: int, ncores: int) -> None:
    """The engine against the floor, measured alternately in this process."""
    import floor as F

    from four21sim import Variant, simulate
    v = Variant.from_preset("super421")
    print(f"\nfloor: 2-player super421 greedy stripped to its bones (experiments/floor.py), {games:,} games, "
          f"best of {repeat}, alternating")
    print(f"{'threads':>7} {'engine':>8} {'results':>8} {'floor':>8} {'floor, engine stream':>21} "
          f"{'engine/floor':>13} {'results/floor':>14} {'engine/floor(engine stream)':>28}  (M games/s)")
    print(f"{'':>7} (engine: every counter; results: counters='results', the results only, as the floor counts)")
    F.floor(1000, threads=1)
    F.floor(1000, threads=1, engine_stream=True)
    simulate(v, 2, "greedy", games=1000, seed=0, counters="results")
    for threads in (1, ncores):
        wall = {"engine": 0.0, "results": 0.0, "floor": 0.0, "stream": 0.0}
        cpu = dict(wall)
        for _ in range(repeat):
            for key in ("engine", "results"):
                c = time.process_time()
                r = simulate(v, 2, "greedy", games=games, seed=12345, threads=threads,
                             counters="all" if key == "engine" else "results")
                cpu[key] = max(cpu[key], games / (time.process_time() - c))
                wall[key] = max(wall[key], games / r.elapsed)
            for key, es in (("floor", False), ("stream", True)):
                c = time.process_time()
                won, secs = F.floor(games, seed=12345, threads=threads, engine_stream=es)
                cpu[key] = max(cpu[key], games / (time.process_time() - c))
                wall[key] = max(wall[key], games / secs)
                if es:
                    same = won == int(r.counters["win"][0].sum())
        print(f"{threads:>7} {wall['engine'] / 1e6:>8.2f} {wall['results'] / 1e6:>8.2f} {wall['floor'] / 1e6:>8.2f} "
              f"{wall['stream'] / 1e6:>21.2f} {wall['engine'] / wall['floor']:>13.3f} "
              f"{wall['results'] / wall['floor']:>14.3f} {wall['engine'] / wall['stream']:>28.3f}")
        if threads == 1:
            print(f"{'':>7} in CPU time: engine/floor = {cpu['engine'] / cpu['floor']:.3f}, "
                  f"results/floor = {cpu['results'] / cpu['floor']:.3f}, "
                  f"engine/floor(engine stream) = {cpu['engine'] / cpu['stream']:.3f}")
    print(f"the floor on the engine's stream played the engine's games (seat 0 won {won:,} of {games:,} in both): "
          f"{'yes' if same else 'NO: the floor is not the same game'}")


def _optimal_4p(games: int, repeat: int, ncores: int) -> None:
    """Games per second of the 4-player equilibrium against greedy at 4 players, alternately."""
    from four21sim import Variant, simulate
    v = Variant.from_preset("super421")
    t = time.perf_counter()
    simulate(v, 4, "optimal", games=1000, seed=0)
    print(f"\noptimal 4p: first call {time.perf_counter() - t:.1f} s (solve or load, compact tables, 1000 games); "
          f"peak resident memory {_peak_mib():.0f} MiB")
    n = max(games // 4, 1000)
    print(f"optimal 4p against greedy 4p, super421, {n:,} games per run, best of {repeat}, alternating")
    print(f"{'threads':>7} {'greedy 4p':>10} {'optimal 4p':>11} {'greedy/optimal':>15}  (M games/s)")
    for threads in (1, ncores):
        best = {"greedy": 0.0, "optimal": 0.0}
        for _ in range(repeat):
            for pol in best:
                r = simulate(v, 4, pol, games=n, seed=12345, threads=threads)
                best[pol] = max(best[pol], r.games / r.elapsed)
        print(f"{threads:>7} {best['greedy'] / 1e6:>10.2f} {best['optimal'] / 1e6:>11.2f} "
              f"{best['greedy'] / best['optimal']:>15.2f}")


def _big() -> None:
    from four21sim import Variant, simulate
    v = Variant.from_preset("super421")
    t = time.perf_counter()
    r = simulate(v, 2, "optimal", games=100_000_000, seed=7)
    print(f"100,000,000 games 2p super421 optimal: {time.perf_counter() - t:.1f} s, "
          f"{r.games / r.elapsed / 1e6:.2f} M games/s, peak resident memory {_peak_mib():.0f} MiB")


def _second_process() -> None:
    code = ("import time; t=time.perf_counter(); from four21sim import simulate; "
            "simulate('super421', 2, 'greedy', games=100000, seed=1); "
            "print(f'{time.perf_counter()-t:.2f}')")
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    print(f"\nsecond process (cached kernels): import + first 100,000 games in {out.stdout.strip()} s "
          f"(process wall time {time.perf_counter() - t:.2f} s)")


def _solver() -> None:
    import four21sim
    from four21sim import Variant
    from four21sim.exact.two_player import _round_table_cached, solve
    print("\nexact 2-player solver (fresh solve per preset: solutions and round tables uncached)")
    for preset in four21sim.PRESETS:
        v = Variant.from_preset(preset)
        solve.cache_clear()
        _round_table_cached.cache_clear()
        t = time.perf_counter()
        sol = solve(v)
        print(f"{preset:>15}: {time.perf_counter() - t:5.2f} s  P(seat 0 wins) = {sol.p_seat0:.6f}  "
              f"E[rounds] = {sol.expected_rounds:.4f}  sweeps {sol.iterations}")


if __name__ == "__main__":
    sys.exit(main())
