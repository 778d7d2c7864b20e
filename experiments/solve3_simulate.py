"""Does the engine playing the 3-player equilibrium reproduce the solver's exact P(pay)?

Question: with every seat playing ``optimal`` (at 3 players: the certified equilibrium of
four21sim.exact.nplayer, read by the engine in context mode 2), does each seat's simulated
share of paying agree with the exact value? 10 million games per preset; per seat
z = (simulated - exact) / sqrt(exact (1 - exact) / games), an upper bound on the
standard error (a share in [0, 1] has variance at most p(1-p)). A correct engine
gives |z| <= 4 everywhere except with probability below 12 * 6.3e-5 = 8e-4.

    python experiments/solve3_simulate.py [--games N] [--seed S] [--out results/solve3]

Writes simulation.json and SIMULATION.md (with the command, commit and versions).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from four21sim.rules.variants import PRESETS

PRESET_NAMES = tuple(PRESETS)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=10_000_000, help="games per preset (default 10000000)")
    p.add_argument("--seed", type=int, default=13, help="root seed (default 13)")
    p.add_argument("--out", default="results/solve3", help="output directory (default results/solve3)")
    args = p.parse_args(argv)
    if args.games < 1:
        print(f"solve3_simulate: error: --games: {args.games} is not allowed; allowed: an integer >= 1",
              file=sys.stderr)
        return 2
    from four21sim import Variant, simulate
    from four21sim._util.atomic import write_text_atomic
    from four21sim.exact.nplayer import solve
    from four21sim.study.run import _git_commit, _versions

    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    rows = []
    for preset in PRESET_NAMES:
        v = Variant.from_preset(preset)
        exact = solve(v, 3)
        t0 = time.perf_counter()
        res = simulate(v, players=3, policies="optimal", games=args.games, seed=args.seed)
        seconds = time.perf_counter() - t0
        m = res.measures()
        share = m[m.measure == "lose_share"].set_index("seat")
        win = m[m.measure == "win_share"].set_index("seat") if (m.measure == "win_share").any() else None
        for seat in range(3):
            pe = float(exact.seat_p_pay[seat])
            ps = float(share.loc[seat, "value"])
            row = {"preset": preset, "seat": seat, "games": args.games, "exact_p_pay": pe, "simulated_p_pay": ps,
                   "z": (ps - pe) / math.sqrt(pe * (1 - pe) / args.games), "seconds": seconds}
            if win is not None:
                we = float(exact.seat_p_win[seat])
                ws = float(win.loc[seat, "value"])
                row.update(exact_win_share=we, simulated_win_share=ws,
                           z_win=(ws - we) / math.sqrt(we * (1 - we) / args.games))
            rows.append(row)
        print(f"{preset}: {seconds:.0f} s, z = " + ", ".join(f"{r['z']:+.2f}" for r in rows[-3:]), file=sys.stderr)
    meta = {"command": "python experiments/solve3_simulate.py" + ("" if not (argv or sys.argv[1:]) else
                                                                   " " + " ".join(argv or sys.argv[1:])),
            "seed": args.seed, "git_commit": _git_commit(), "versions": _versions(), "started": started,
            "finished": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    out = Path(args.out)
    write_text_atomic(out / "simulation.json", json.dumps({"meta": meta, "rows": rows}, indent=1))
    worst = max(max(abs(r["z"]), abs(r.get("z_win", 0.0))) for r in rows)
    lines = ["# The engine playing the 3-player equilibrium against the exact values", "",
             f"Made by `{meta['command']}` (seed {args.seed}) at commit {meta['git_commit']}, {meta['finished']}.", "",
             f"Every seat plays `optimal` (at 3 players the equilibrium where each player minimises its own P(pay)); "
             f"{args.games:,} games per preset. z uses the upper bound sqrt(p(1-p)/games) on the standard error; "
             f"12 seats (24 with the win share) are compared, so |z| <= 4 is the bar (false alarm below 1e-3).", "",
             "| preset | seat | exact P(pay) | simulated | z | exact win share | simulated | z |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| {r['preset']} | {r['seat']} | {100 * r['exact_p_pay']:.4f}% | "
                     f"{100 * r['simulated_p_pay']:.4f}% | {r['z']:+.2f} | "
                     f"{100 * r.get('exact_win_share', float('nan')):.4f}% | "
                     f"{100 * r.get('simulated_win_share', float('nan')):.4f}% | {r.get('z_win', float('nan')):+.2f} |")
    lines += ["", f"Largest |z|: {worst:.2f} ({'within' if worst <= 4 else 'OUTSIDE'} the bar of 4)."]
    write_text_atomic(out / "SIMULATION.md", "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
