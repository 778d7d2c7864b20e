"""The engine against the n-player solver at 4 and 5 players, on the presets' own rules.

Question: does the engine, playing a fixed line-up at 4 players, reproduce every seat's exact
P(pay) as the n-player solver evaluates it (``four21sim.policies.evaluate_lineup``: compact
follower contexts and a linear system, a route of its own that shares only the rules kernel and
the policy tables with the engine)? And does it, playing ``optimal`` on every seat (the
equilibrium, from tables of the solver's contexts: docs/nplayer.md), reproduce the equilibrium's
exact P(pay)? Fixed tables: everyone 'greedy' (Super 421 and le bon: Montreal and classic are
exactly 1/4 there by the symmetry theorem), and a mixed line-up in every preset; the equilibrium:
every preset at 4 players (classic's first solve takes about half an hour, then its tables some 7
minutes to build: 311 million contexts, 681,707 distinct rows), and at 5 players (each solve 15 to
30 minutes, then the disk store).

    python experiments/nplayer_engine_check.py [--games 10000000] [--presets super421,...] [--only optimal]
        [--players 5]

``--only optimal`` (or ``tables``) and ``--players`` run those rows only and keep the others from
the folder's engine_check.json (the classic row's exact evaluation alone takes about 25 minutes).

Writes results/nplayer/ENGINE_CHECK.md and engine_check.json. A row passes when every seat's
|z| is within the two-sided 1 - 0.001/k normal quantile (k: the rows' seats in all), so that a
correct engine passes the whole table with probability at least 99.9%.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from scipy.stats import norm

import four21sim
from four21sim import Variant, simulate
from four21sim.exact import nplayer
from four21sim.policies import evaluate_lineup

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results" / "nplayer"
MIXED = ["greedy", "sec", "table-aware", "chase421"]
CASES = [("super421", ["greedy"] * 4), ("super421-lebon", ["greedy"] * 4), ("super421", MIXED),
         ("super421-lebon", MIXED), ("montreal", MIXED), ("classic", MIXED),
         ("super421", ["optimal"] * 4), ("super421-lebon", ["optimal"] * 4), ("montreal", ["optimal"] * 4),
         ("classic", ["optimal"] * 4),
         ("super421", ["optimal"] * 5), ("super421-lebon", ["optimal"] * 5), ("montreal", ["optimal"] * 5)]
SEED = 4421


def _kind(lineup) -> str:
    return "optimal" if set(lineup) == {"optimal"} else "tables"


def run(games: int, presets: list[str], only: str | None = None, players: list[int] | None = None) -> list[dict]:
    rows = []
    for preset, lineup in CASES:
        n = len(lineup)
        if preset not in presets or (only and _kind(lineup) != only) or (players and n not in players):
            continue
        v = Variant.from_preset(preset)
        t0 = time.perf_counter()
        if set(lineup) == {"optimal"}:
            exact = np.array(nplayer.solve(v, n, "pay").seat_p_pay)
        else:
            exact = np.array(evaluate_lineup(v, n, lineup)["p_pay"])
        t1 = time.perf_counter()
        seats = simulate(v, players=n, policies=lineup, games=games, seed=SEED).seats()
        t2 = time.perf_counter()
        got = seats["lose_share"].to_numpy()
        se = (seats["lose_share_high"] - seats["lose_share_low"]).to_numpy() / (2 * norm.ppf(0.975))
        rows.append({"preset": preset, "lineup": lineup, "games": games, "exact_p_pay": exact.tolist(),
                     "simulated_p_pay": got.tolist(), "z": ((got - exact) / se).tolist(),
                     "exact_seconds": t1 - t0, "simulate_seconds": t2 - t1})
        print(f"{preset} {','.join(lineup)}: z = {np.round(rows[-1]['z'], 2)} "
              f"(exact {t1 - t0:.0f} s, simulation {t2 - t1:.0f} s)", file=sys.stderr)
    return rows


def report(rows: list[dict], command: str) -> str:
    k = sum(len(r["z"]) for r in rows)
    zmax = norm.ppf(1 - 0.001 / (2 * k))
    lines = ["# The engine against the n-player solver at 4 and 5 players", "",
             f"Produced by `{command}` (four21sim {four21sim.__version__}, {platform.machine()}, "
             f"{datetime.now(timezone.utc).isoformat(timespec='seconds')}), seed {SEED}.", "",
             "Every seat's P(pay) simulated by the engine against the exact value of the same fixed line-up from "
             "the n-player solver (`four21sim.policies.evaluate_lineup`), or for everyone `optimal` the "
             "equilibrium's own (`four21sim.exact.nplayer.solve`). z = (simulated − exact) / standard error; "
             f"a row passes when every |z| ≤ {zmax:.2f} (the two-sided 1 − 0.001/{k} quantile: a correct engine "
             "passes the whole table with probability at least 99.9%). The engine plays the equilibrium from "
             "tables of the solver's contexts (context mode 3, docs/nplayer.md).", "",
             "| preset | line-up (seat 0, 1, ...) | games | exact P(pay) by seat | simulated | z by seat | passes |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        ok = all(abs(z) <= zmax for z in r["z"])
        lines.append(f"| {r['preset']} | {' / '.join(r['lineup'])} | {r['games']:,} | "
                     + " / ".join(f"{100 * p:.4f}%" for p in r["exact_p_pay"]) + " | "
                     + " / ".join(f"{100 * p:.3f}%" for p in r["simulated_p_pay"]) + " | "
                     + " / ".join(f"{z:+.2f}" for z in r["z"]) + f" | {'yes' if ok else 'NO'} |")
    passed = sum(all(abs(z) <= zmax for z in r["z"]) for r in rows)
    lines += ["", f"{passed} of {len(rows)} rows pass."]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=10_000_000)
    p.add_argument("--presets", default=",".join(dict.fromkeys(c[0] for c in CASES)))
    p.add_argument("--only", choices=("optimal", "tables"), help="run these rows only, keep the others")
    p.add_argument("--players", help="run the rows of these player counts only (e.g. 5), keep the others")
    args = p.parse_args(argv)
    players = [int(x) for x in args.players.split(",")] if args.players else None
    rows = run(args.games, args.presets.split(","), args.only, players)
    command = "python experiments/nplayer_engine_check.py" + (f" --games {args.games}" if args.games != 10_000_000
                                                               else "")
    commands = [command + (f" --only {args.only}" if args.only else "") + (f" --players {args.players}"
                                                                           if args.players else "")]
    OUT.mkdir(parents=True, exist_ok=True)
    if (args.only or players) and (OUT / "engine_check.json").exists():
        old = json.loads((OUT / "engine_check.json").read_text())
        done = {(r["preset"], tuple(r["lineup"])) for r in rows}
        kept = [r for r in old["rows"] if (r["preset"], tuple(r["lineup"])) not in done]
        rows = [r for c in CASES for r in kept + rows if (r["preset"], tuple(r["lineup"])) == (c[0], tuple(c[1]))]
        commands = [c for c in old.get("commands", [old["command"]]) if c not in commands] + commands
    command = "`, then `".join(commands)
    (OUT / "engine_check.json").write_text(json.dumps({"command": command, "commands": commands, "seed": SEED,
                                                       "rows": rows}, indent=1))
    (OUT / "ENGINE_CHECK.md").write_text(report(rows, command))
    print((OUT / "ENGINE_CHECK.md").read_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
