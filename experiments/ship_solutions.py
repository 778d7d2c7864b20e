"""Write the equilibria that ship with the package (``four21sim/exact/solutions/``).

For each preset and player count of :data:`PLAN` (the default tie order, each player minimising
its P(pay), :func:`four21sim.exact.nplayer.solve`'s default solver arguments), the solution is
either solved here (through the solver's disk cache, ``FOUR21SIM_CACHE_DIR``: a solve already
stored there is read back, verified) or, with ``--store DIR``, taken from a solver's store folder
(another checkout's ``FOUR21SIM_CACHE_DIR``, read only: an entry is recognised by its key's game
and solver arguments, its key's code hash is ignored). Either way it passes the read checks of
:mod:`four21sim.exact.shipped` (``verify_entry`` and the fixed point) before it is written, and the
written file is read back and checked again as the package will read it, every array (those
computed when read too) equal bit for bit to the solution's, before it takes its place (a file
that fails is removed). A game that is not
solved here and not found in ``--store`` is skipped, and said so. Each file records how it was
produced (``__produced__``: from a solve or a store entry, the solver's code hash, numpy's
version); the same solution gives the same bytes. Prints each file's size and the total.

Examples (``NUMBA_NUM_THREADS=1`` on a shared machine)::

    python experiments/ship_solutions.py --players 3,4                       # solve the quick ones
    python experiments/ship_solutions.py --store /path/to/solves-cache       # ship what a store holds
    python experiments/ship_solutions.py --store DIR --presets super421 --players 5 --out /tmp/try
    python experiments/ship_solutions.py --lead --players 4,5   # the leader's values beside them (the page's)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from four21sim._util.atomic import temp_path
from four21sim.exact import nplayer, shipped, store
from four21sim.rules.variants import PRESETS

# what ships: every preset at every size its solve reaches (docs/nplayer.md, "What it costs")
PLAN = {"super421": (3, 4, 5, 6), "super421-lebon": (3, 4, 5, 6), "montreal": (3, 4, 5), "classic": (3, 4)}
OBJECTIVE, TIE = "pay", "first"


def store_entries(folder: Path) -> dict:
    """(preset, players) -> (path, key) of the n-player entries of a store folder at the plan's game."""
    defaults = shipped._defaults()
    found = {}
    for path in sorted(folder.glob("*.npz")):
        try:
            with np.load(path, allow_pickle=False) as z:
                key = json.loads(z["__key__"].tobytes().decode())
        except Exception:  # noqa: BLE001  an entry being written, or not an entry: not ours
            continue
        if key.get("kind") != "nplayer" or key.get("format") not in UPGRADABLE \
                or key.get("objective") != OBJECTIVE or key.get("tie") != TIE \
                or any(key.get(k) != v for k, v in defaults.items()):
            continue
        name = next((p for p, v in PRESETS.items() if v.options() == key.get("options")), None)
        if name is not None:
            found[(name, int(key["players"]))] = (path, key)
    return found


UPGRADABLE = (1, nplayer.FORMAT)
"""The store formats taken: format 1 is format 2 with the solve's history (iterations, timings,
``info``) in its metadata, which format 2 no longer stores since nothing can check it."""
_HISTORY = ("iterations", "br_iterations", "seconds", "certificate_seconds", "info")


def upgrade(meta: dict) -> dict:
    """The metadata of a format-1 entry as format 2 stores it (its arrays are the same)."""
    if meta.get("format") not in UPGRADABLE:
        return meta
    out = {k: v for k, v in meta.items() if k not in _HISTORY}
    out["format"] = nplayer.FORMAT
    for k in meta.get("subs", []):
        out[f"sub{k}"] = upgrade(meta[f"sub{k}"])
    return out


def from_store(name: str, n: int, path: Path, key: dict):
    """The solution of a store entry, checked as a shipped one is (the store's key itself aside)."""
    variant = PRESETS[name]
    entry = shipped.read(path)
    entry["__meta__"] = upgrade(entry["__meta__"])
    why = shipped.check_solution(variant, n, OBJECTIVE, TIE, entry)
    if why:
        raise ValueError(f"{path}: refused ({why})")
    produced = {"how": "taken from a solver's disk store", "store_entry": path.name, "solver_code": key["code"],
                "store_format": key["format"], "numpy": key["numpy"]}
    return nplayer.from_arrays(variant, entry), produced


def solved(name: str, n: int):
    """The solution solved here (or read from this checkout's disk cache), checked as a shipped one is."""
    os.environ["FOUR21SIM_SHIPPED"] = "off"  # solve, never read the very files being written
    sol = nplayer.solve(PRESETS[name], n, OBJECTIVE, tie=TIE)
    arrays, meta = nplayer.to_arrays(sol)
    why = shipped.check_solution(PRESETS[name], n, OBJECTIVE, TIE, {**arrays, "__meta__": meta})
    if why:
        raise ValueError(f"{name} at {n} players: the solve fails the read checks ({why})")
    produced = {"how": "solved by experiments/ship_solutions.py", "solver_code": store.code_hash(nplayer._CODE),
                "numpy": np.__version__}
    return sol, produced


def _differs(sol, entry: dict) -> str | None:
    """What of the solution's arrays the file read back (derived arrays computed) does not give bit for bit."""
    arrays, _ = nplayer.to_arrays(sol)
    bad = [k for k, a in arrays.items() if k not in entry or entry[k].dtype != a.dtype
           or not np.array_equal(entry[k], a)]
    return f"read back, these arrays are not the solution's bit for bit: {', '.join(bad)}" if bad else None


def write_checked(path: Path, name: str, n: int, sol, produced: dict) -> int:
    """Write the file beside ``path``, read it back and check it as the package will, and only then
    put it in place (a file that fails is removed: nothing half-made is left to ship)."""
    tmp = temp_path(path, ".checking.npz")
    try:
        size = shipped.write(tmp, sol, produced)
        try:
            back = shipped.read(tmp)
            why = (shipped.check(PRESETS[name], n, OBJECTIVE, TIE, back)
                   or _differs(sol, shipped.derive(PRESETS[name], back)))
        except Exception as exc:  # noqa: BLE001  a file that cannot be read back fails as one that reads wrong
            why = f"it cannot be read back ({type(exc).__name__}: {exc})"
        if why:
            raise ValueError(f"{path}: the written file fails its checks ({why})")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return size


def write_lead(name: str, n: int, out: Path) -> str:
    """The leader's values of the shipped equilibrium (name, n) beside it (``--lead``): what the page
    reads stored (:func:`four21sim.advice.site.lead_states`), computed, written, read back equal and
    passing :func:`four21sim.exact.shipped_lead.load`'s checks; returns what was done."""
    from four21sim.advice import site
    from four21sim.exact import shipped_lead
    variant = PRESETS[name]
    solution_file = shipped.path_of(variant, n, OBJECTIVE, TIE)
    if out != shipped.FOLDER or not solution_file.is_file():
        return "no shipped solution in the package (or --out elsewhere): skipped"
    sol = shipped.load(variant, n, OBJECTIVE, TIE)
    if sol is None:
        raise ValueError(f"{solution_file.name} fails its checks")
    states = site.lead_state_list(site.lead_states(sol))
    if not states:
        return "no phase of the page needs them: nothing written"
    ends = shipped_lead.compute(sol, states)
    path = shipped_lead.path_of(sol)
    size = shipped_lead.write(sol, states, solution_file, path, ends)
    back = shipped.read(path)
    if not np.array_equal(back["lead_ends"], ends) or shipped_lead.load(sol, states) is None:
        path.unlink()
        raise ValueError(f"{path.name}: read back, it is not what was written")
    return f"{path.name} {size:,} bytes, {len(states)} states"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--presets", default=",".join(PLAN), help="comma-separated presets (default: all)")
    p.add_argument("--players", default="3,4,5,6", help="comma-separated player counts (default: 3,4,5,6)")
    p.add_argument("--store", type=Path, help="take the solutions from this store folder (read only) instead "
                                              "of solving them")
    p.add_argument("--out", type=Path, default=shipped.FOLDER, help="where to write (default: the package's)")
    p.add_argument("--lead", action="store_true", help="instead, write the leader's values the page reads beside "
                                                       "the solutions the package ships (four21sim.exact.shipped_lead)")
    args = p.parse_args(argv)
    presets = [x.strip() for x in args.presets.split(",")]
    sizes = [int(x) for x in args.players.split(",")]
    bad = [x for x in presets if x not in PLAN]
    if bad:
        print(f"--presets: {bad[0]!r} is not allowed; allowed: {', '.join(PLAN)}", file=sys.stderr)
        return 2
    found = store_entries(args.store) if args.store else {}
    written, failed = [], 0
    for name in presets:
        for n in sizes:
            if n not in PLAN[name]:
                continue
            t0 = time.perf_counter()
            if args.lead:
                try:
                    print(f"{name} {n}p: {write_lead(name, n, args.out)} ({time.perf_counter() - t0:.1f} s)")
                except ValueError as exc:
                    print(f"{name} {n}p: {exc}", file=sys.stderr)
                    failed += 1
                continue
            try:
                if args.store:
                    if (name, n) not in found:
                        print(f"{name} {n}p: not in {args.store}, skipped")
                        continue
                    sol, produced = from_store(name, n, *found[(name, n)])
                else:
                    sol, produced = solved(name, n)
                path = args.out / shipped.path_of(PRESETS[name], n, OBJECTIVE, TIE).name
                size = write_checked(path, name, n, sol, produced)
            except ValueError as exc:
                print(f"{name} {n}p: {exc}", file=sys.stderr)
                failed += 1
                continue
            written.append((path, size))
            print(f"{name} {n}p: {path.name} {size:,} bytes, P(pay) by seat {np.round(sol.seat_p_pay, 6).tolist()}, "
                  f"exploitability {sol.exploitability:.1e} ({produced['how']}; {time.perf_counter() - t0:.1f} s)")
    total = sum(size for p_, size in written if p_.parent == args.out)
    every = sum(f.stat().st_size for f in args.out.glob("*.npz")) if args.out.is_dir() else 0
    print(f"written {len(written)} files, {total:,} bytes; {args.out} holds {every:,} bytes in all")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
