"""The exact 3-player game of every preset: equilibrium, certificate, time and memory.

Question: under an equilibrium where each of 3 players minimises its own P(paying)
(and, separately, maximises its win share), what does each seat pay, is the profile
certified (exploitability <= 1e-9), and what does the solve cost on this machine,
per preset and as the tokens grow?

    python experiments/solve3.py [--out results/solve3] [--objectives pay,win] [--no-growth]

Each solve runs in its own process, so its peak memory (the process's maximum
resident set, numba's compiled code included) is its own. Writes solve3.json (every
number, with the command, commit, versions and machine) and REPORT.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from four21sim.rules.variants import PRESETS

PRESET_NAMES = tuple(PRESETS)
GROWTH = {"super421": (3, 5, 7, 9), "classic": (6, 11, 16)}  # the presets themselves complete the series


def one(preset: str, tokens: int | None, objective: str) -> dict:
    """Solve one configuration in this process and return its numbers."""
    from four21sim import Variant
    from four21sim.exact.nplayer import solve

    v = Variant.from_preset(preset, [f"tokens={tokens}"] if tokens else [])
    t0 = time.perf_counter()
    sol = solve(v, 3, objective)
    wall = time.perf_counter() - t0
    out = sol.summary()
    out.update(preset=preset, tokens=v.tokens, wall_seconds=wall, info=sol.info,
               peak_rss_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return out


def _run_child(preset: str, tokens: int | None, objective: str) -> dict:
    cmd = [sys.executable, __file__, "--one", preset, "--objective", objective]
    if tokens:
        cmd += ["--tokens", str(tokens)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def _report(rows: list[dict], growth: list[dict], meta: dict, again: list[dict] = ()) -> str:
    lines = ["# The exact 3-player game: equilibrium, certificate, cost", "",
             f"Made by `{meta['command']}` at commit {meta['git_commit']} on {meta['machine']} "
             f"({meta['cpus']} cores), {meta['finished']}.", "",
             "Every number is exact (no sampling). Seat 0 leads the first round. *Exploitability*: the most any "
             "one player gains (in the probability it optimises) by deviating alone from the start, against the "
             "others' fixed strategies, computed exactly by a best response; *any state*: the same from every "
             "state and role. Time: wall clock of one solve including the certificate, in its own process; "
             "memory: that process's peak resident set.", "",
             "*Converged* says whether the décharge iteration reached a Bellman residual of 1e-13. Where it did "
             "not, it cycled between profiles that differ only where the player choosing is indifferent (within "
             "the 1e-12 tie tolerance) but the others are not; the profile kept is certified by its "
             "exploitability, which is what says whether it is an equilibrium.", ""]
    for objective in sorted({r["objective"] for r in rows}):
        what = "minimises its own P(pay)" if objective == "pay" else "maximises its own win share"
        lines += [f"## Each player {what}", "",
                  "| preset | P(pay) seat 0 | seat 1 | seat 2 | win share seat 0 | seat 1 | seat 2 | expected rounds "
                  "| exploitability | any state | converged | iterations | solve s | certificate s | peak MiB |",
                  "| --- | " + "--- | " * 15]
        for r in (r for r in rows if r["objective"] == objective):
            pp = [f"{100 * s['p_pay']:.4f}%" for s in r["seats"]]
            pw = [f"{100 * s['p_win']:.4f}%" for s in r["seats"]]
            lines.append(f"| {r['preset']} | " + " | ".join(pp + pw) +
                         f" | {r['expected_rounds']:.4f} | {r['exploitability']:.1e} | "
                         f"{r['exploitability_any_state']:.1e} | {'yes' if r['converged'] else 'NO'} | "
                         f"{r['iterations']} | {r['seconds']:.1f} | {r['certificate_seconds']:.1f} | "
                         f"{r['peak_rss_mib']:.0f} |")
        lines.append("")
    lines += ["## Where the time goes", "",
              "| preset | objective | states | décharge states | tables & transitions s | décharge s | charge s "
              "| certificate s |", "| --- | " + "--- | " * 7]
    for r in rows:
        i = r["info"]
        lines.append(f"| {r['preset']} | {r['objective']} | {i['states']} | {i['decharge_states']} | "
                     f"{i['setup_seconds']:.1f} | {i['decharge_seconds']:.1f} | {i['charge_seconds']:.1f} | "
                     f"{r['certificate_seconds']:.1f} |")
    if again:
        lines += ["", "## Measured again", "",
                  "The machine is shared: the same solve takes longer while other jobs run. These were solved "
                  "again with `python experiments/solve3.py --remeasure PRESET:OBJECTIVE`.", "",
                  "| preset | objective | when | commit | solve s | certificate s | peak MiB | exploitability |",
                  "| --- | " + "--- | " * 7]
        for r in again:
            lines.append(f"| {r['preset']} | {r['objective']} | {r['measured']} | {r['git_commit']} | "
                         f"{r['seconds']:.1f} | {r['certificate_seconds']:.1f} | {r['peak_rss_mib']:.0f} | "
                         f"{r['exploitability']:.1e} |")
    if growth:
        growth = sorted(growth + [r for r in rows if r["objective"] == "pay" and r["preset"] in GROWTH],
                        key=lambda r: (r["preset"], r["tokens"]))
        lines += ["", "## How it grows with the tokens (objective pay)", "",
                  "| preset | tokens | states | décharge states | iterations | converged | solve s | certificate s "
                  "| peak MiB | exploitability |", "| --- | " + "--- | " * 9]
        for r in growth:
            i = r["info"]
            lines.append(f"| {r['preset']} | {r['tokens']} | {i['states']} | {i['decharge_states']} | "
                         f"{r['iterations']} | {'yes' if r['converged'] else 'NO'} | {r['seconds']:.1f} | "
                         f"{r['certificate_seconds']:.1f} | "
                         f"{r['peak_rss_mib']:.0f} | {r['exploitability']:.1e} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="results/solve3", help="output directory (default results/solve3)")
    p.add_argument("--objectives", default="pay,win", help="comma-separated: pay, win (default both)")
    p.add_argument("--no-growth", action="store_true", help="skip the runs with fewer tokens")
    p.add_argument("--report-only", action="store_true", help="rewrite REPORT.md from OUT/solve3.json")
    p.add_argument("--remeasure", metavar="PRESET:OBJECTIVE",
                   help="solve one preset again (e.g. alone on the machine), add it to OUT/solve3.json as a "
                        "re-measurement and rewrite REPORT.md")
    p.add_argument("--one", metavar="PRESET", help=argparse.SUPPRESS)
    p.add_argument("--tokens", type=int, help=argparse.SUPPRESS)
    p.add_argument("--objective", default="pay", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.one:
        print(json.dumps(one(args.one, args.tokens, args.objective)))
        return 0
    objectives = [o.strip() for o in args.objectives.split(",") if o.strip()]
    bad = [o for o in objectives if o not in ("pay", "win")]
    if bad:
        print(f"solve3: error: --objectives: {bad[0]!r} is not allowed; allowed: pay, win", file=sys.stderr)
        return 2
    from four21sim._util.atomic import write_text_atomic
    from four21sim.study.run import _git_commit, _versions

    if args.report_only or args.remeasure:
        data = json.loads((Path(args.out) / "solve3.json").read_text())
        if args.remeasure:
            preset, _, objective = args.remeasure.partition(":")
            if preset not in PRESET_NAMES or objective not in ("pay", "win"):
                print(f"solve3: error: --remeasure: {args.remeasure!r} is not allowed; allowed: PRESET:OBJECTIVE "
                      f"with PRESET in {', '.join(PRESET_NAMES)} and OBJECTIVE pay or win", file=sys.stderr)
                return 2
            row = _run_child(preset, None, objective)
            row["measured"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
            row["git_commit"] = _git_commit()
            data.setdefault("remeasured", []).append(row)
            write_text_atomic(Path(args.out) / "solve3.json", json.dumps(data, indent=1))
        write_text_atomic(Path(args.out) / "REPORT.md",
                          _report(data["presets"], data["growth"], data["meta"], data.get("remeasured", [])))
        return 0

    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    rows = []
    for objective in objectives:
        for preset in PRESET_NAMES:
            rows.append(_run_child(preset, None, objective))
            print(f"{preset} {objective}: {rows[-1]['wall_seconds']:.1f} s", file=sys.stderr)
    growth = []
    if not args.no_growth:
        for preset, sizes in GROWTH.items():
            for t in sizes:
                growth.append(_run_child(preset, t, "pay"))
                print(f"{preset} tokens={t}: {growth[-1]['wall_seconds']:.1f} s", file=sys.stderr)
    meta = {"command": "python experiments/solve3.py" + (" " + " ".join(argv) if argv else
                                                          (" " + " ".join(sys.argv[1:]) if sys.argv[1:] else "")),
            "git_commit": _git_commit(), "versions": _versions(), "machine": platform.machine(),
            "platform": platform.platform(), "cpus": os.cpu_count(), "started": started,
            "finished": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    out = Path(args.out)
    write_text_atomic(out / "solve3.json", json.dumps({"meta": meta, "presets": rows, "growth": growth}, indent=1))
    write_text_atomic(out / "REPORT.md", _report(rows, growth, meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
