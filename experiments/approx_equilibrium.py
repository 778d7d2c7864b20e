"""Approximate equilibria for 3 to 8 players, and how exploitable they are.

Question: when every player minimises its own P(pay) and exact solving does not fit
(4 players and more), what profile does iterated best response find within the
family of four21sim.approx (a leader threshold and a follower value weight per
context group), how much can one deviator still gain against it (measured on fresh
games, with an interval), how fair is the paying seat under that play, and, at 3
players, how close is it to the exact equilibrium of four21sim.solver3?

    python experiments/approx_equilibrium.py [--variants super421 ...] [--players 3 4 5 6 7 8]
        [--games 10000] [--measure-games 100000] [--rounds 3] [--candidates 3] [--seed 13]
        [--out results/approx]

Writes, per variant, summary_<variant>.csv (one row per player count), seats_<variant>.csv
(one row per seat) and groups_<variant>.csv (the profile, one row per context group), then
REPORT.md from every such file in the folder (so variants can be run in separate processes
and the report is written from all of them). Columns are described in REPORT.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from four21sim import PRESETS, Variant
from four21sim.approx import approximate_equilibrium
from four21sim.atomic import write_text_atomic

HABITS = ("greedy", "sec", "chase421", "table-aware")


def run_variant(preset: str, players: list[int], args, out: Path) -> None:
    v = Variant.from_preset(preset)
    summary, seats, groups = [], [], []
    for n in players:
        t0 = time.perf_counter()
        res = approximate_equilibrium(v, n, games=args.games, seed=args.seed, rounds=args.rounds,
                                      candidates=args.candidates, measure_games=args.measure_games, threads=1,
                                      progress=lambda s, n=n: print(f"[{preset} {n}p] {s}", flush=True))
        exact = None
        t_exact = float("nan")
        if n == 3:
            from four21sim.solver3 import solve
            t1 = time.perf_counter()
            exact = solve(v, 3).seat_p_pay
            t_exact = time.perf_counter() - t1
        g = res.gains.set_index("deviation")
        e = res.exploitability
        row = dict(variant=preset, players=n, rounds=res.rounds, converged=res.converged,
                   profile=res.profile.describe(), deviation=res.deviation.describe(),
                   exploitability_pp=100 * e.value, exploitability_low_pp=100 * e.low,
                   exploitability_high_pp=100 * e.high, selection_gain_pp=100 * res.selection_gain,
                   seat0_p_pay=float(res.seats["p_pay"].iloc[0]), seat0_low=float(res.seats["low"].iloc[0]),
                   seat0_high=float(res.seats["high"].iloc[0]), fair=1 / n,
                   max_seat_gap_pp=100 * float((res.seats["p_pay"] - 1 / n).abs().max()))
        for h in HABITS:
            key = h.replace("-", "_")
            row[f"gain_{key}_pp"] = 100 * float(g.loc[h, "gain"])
            row[f"gain_{key}_low_pp"] = 100 * float(g.loc[h, "gain_low"])
            row[f"gain_{key}_high_pp"] = 100 * float(g.loc[h, "gain_high"])
        row.update(games=res.games, measure_games=res.measure_games, seconds=res.elapsed, exact_seconds=t_exact)
        summary.append(row)
        for r in res.seats.itertuples():
            seats.append(dict(variant=preset, players=n, seat=r.seat, p_pay=r.p_pay, low=r.low, high=r.high,
                              fair=r.fair, exact_p_pay=float(exact[r.seat]) if exact is not None else np.nan))
        for r in res.profile.table().itertuples():
            groups.append(dict(variant=preset, players=n, group=r.group, searched=r.searched,
                               threshold=r.threshold, weight=r.weight))
        print(f"[{preset} {n}p] done in {time.perf_counter() - t0:.0f} s: {res!r}", flush=True)
        # written after every player count: a run stopped half-way keeps what it finished
        for name, rows in (("summary", summary), ("seats", seats), ("groups", groups)):
            write_text_atomic(out / f"{name}_{preset}.csv", pd.DataFrame(rows).to_csv(index=False,
                                                                                      float_format="%.6g"))


def _pp(x: float) -> str:
    return f"{x:+.2f}"


def _ci(v: float, lo: float, hi: float) -> str:
    return f"{v:+.2f} [{lo:+.2f}, {hi:+.2f}]"


def write_report(out: Path, args) -> None:
    order = [p for p in PRESETS]
    parts = {}
    for name in ("summary", "seats", "groups"):
        files = sorted(out.glob(f"{name}_*.csv"))
        if not files:
            return
        df = pd.concat([pd.read_csv(f) for f in files], ignore_index=True)
        df["_o"] = df["variant"].map({p: i for i, p in enumerate(order)})
        parts[name] = df.sort_values(["_o", "players"] + (["seat"] if name == "seats" else []),
                                     kind="stable").drop(columns="_o")
    S, T, G = parts["summary"], parts["seats"], parts["groups"]
    L = ["# Approximate equilibria for 3 to 8 players", "",
         "*When every player minimises its own P(pay) and exact solving does not fit, what profile does iterated "
         "best response find in the family of `four21sim.approx`, how much can a single deviator still gain "
         "against it, and how fair is the paying seat under that play?* The method is in "
         "[docs/approximate.md](../../docs/approximate.md).", "",
         "Made by `python experiments/approx_equilibrium.py "
         f"--games {args.games} --measure-games {args.measure_games} --rounds {args.rounds} "
         f"--candidates {args.candidates} --seed {args.seed}` (the variants were run in separate processes "
         "with `--variants`, 1 numba thread each; the report is written from every CSV in the folder). "
         f"Total time of the configurations below: {S['seconds'].sum() / 60:.0f} min of search and measurement "
         f"plus {np.nansum(S['exact_seconds']) / 60:.1f} min for the exact 3-player solutions.", ""]
    L += ["## Exploitability and the first seat", "",
          "Exploitability = the gain in P(pay) of the best deviation found within the family (selected on one seed "
          "set, measured on a fresh one), in percentage points, with its 95% interval. Seat 0 (who leads the first "
          "round) pays with probability `seat 0 P(pay)` under the profile (interval: 95% Bonferroni over the "
          "seats), to compare with 1/n. `selection gain` is the same deviation's gain on the games that chose it "
          "(biased upwards: the winner's curse). `max gap` is the largest |P(pay) - 1/n| over the seats.", "",
          "| variant | n | rounds | exploitability (pp) | selection gain (pp) | seat 0 P(pay) | 1/n | max gap (pp) "
          "| time (s) |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in S.itertuples():
        L.append(f"| {r.variant} | {r.players} | {r.rounds}{'' if r.converged else '*'} | "
                 f"{_ci(r.exploitability_pp, r.exploitability_low_pp, r.exploitability_high_pp)} | "
                 f"{_pp(r.selection_gain_pp)} | {r.seat0_p_pay:.4f} [{r.seat0_low:.4f}, {r.seat0_high:.4f}] | "
                 f"{r.fair:.4f} | {r.max_seat_gap_pp:.2f} | {r.seconds:.0f} |")
    L += ["", "`*`: the iteration stopped at the round limit while still changing the profile (not converged). "
          "An interval of the exploitability that contains 0 means the deviation found gains nothing measurable; "
          "it does not prove that no deviation gains.", ""]
    L += ["## Fixed deviations outside the family", "",
          "Gain (pp, 95% interval) of one player switching to a habit while the others keep the profile, on the "
          "same fresh games. Negative: the deviator pays more, the profile is not beaten by that habit.", "",
          "| variant | n | " + " | ".join(HABITS) + " |", "| --- | --- | " + " | ".join("---" for _ in HABITS) + " |"]
    for r in S.itertuples():
        cells = []
        for h in HABITS:
            k = h.replace("-", "_")
            cells.append(_ci(getattr(r, f"gain_{k}_pp"), getattr(r, f"gain_{k}_low_pp"),
                             getattr(r, f"gain_{k}_high_pp")))
        L.append(f"| {r.variant} | {r.players} | " + " | ".join(cells) + " |")
    L += ["", "## P(pay) per seat under the profile", "",
          "Each seat's P(pay) when everyone plays the profile, with its interval (95% jointly over the seats of a "
          "row: each at 1 - 0.05/n, Bonferroni). At 3 players, the exact equilibrium's P(pay) "
          "(`four21sim.solver3`, certified) is given below it.", ""]
    for (variant, n), df in T.groupby(["variant", "players"], sort=False):
        cells = [f"{r.p_pay:.4f} [{r.low:.4f}, {r.high:.4f}]" for r in df.itertuples()]
        L.append(f"- **{variant}, {n} players** (1/n = {1 / n:.4f}): " + "; ".join(
            f"seat {s}: {c}" for s, c in enumerate(cells)))
        if n == 3 and df["exact_p_pay"].notna().all():
            L.append("  - exact 3-player equilibrium: " + "; ".join(
                f"seat {r.seat}: {r.exact_p_pay:.4f}" for r in df.itertuples()))
            inside = sum(r.low <= r.exact_p_pay <= r.high for r in df.itertuples())
            L.append(f"  - the exact value is inside the approximate profile's interval for {inside} of 3 seats")
    L += ["", "## The profiles found", "",
          "Per context group (docs/approximate.md): the leader's stopping hand / the follower's value weight. "
          "Groups where nobody decides (one-throw phases) are not shown.", ""]
    for r in S.itertuples():
        L.append(f"- {r.variant}, {r.players} players ({r.rounds} rounds): {r.profile}")
    L += ["", "## Columns of the CSV files", "",
          "`summary_<variant>.csv`, one row per player count:", "",
          "| column | meaning |", "| --- | --- |",
          "| `variant`, `players` | the preset and the number of players |",
          "| `rounds`, `converged` | best-response rounds played; True if the last round changed nothing |",
          "| `profile` | the profile found, `group threshold/weight` per searched group |",
          "| `deviation` | the best deviation found within the family, same format |",
          "| `exploitability_pp`, `exploitability_low_pp`, `exploitability_high_pp` | that deviation's gain in "
          "P(pay) on the fresh measurement games, percentage points, with its 95% interval |",
          "| `selection_gain_pp` | the same deviation's gain on the selection games (biased upwards) |",
          "| `seat0_p_pay`, `seat0_low`, `seat0_high` | seat 0's P(pay) under the profile, with its Bonferroni "
          "interval |",
          "| `fair` | 1/players |",
          "| `max_seat_gap_pp` | the largest absolute P(pay) - 1/players over the seats, percentage points |",
          "| `gain_H_pp`, `gain_H_low_pp`, `gain_H_high_pp` | the gain of a deviator playing habit H (greedy, sec, "
          "chase421, table_aware), percentage points, 95% interval |",
          "| `games`, `measure_games` | games per line-up in the search and in the measurement |",
          "| `seconds`, `exact_seconds` | time of the search and measurement; of the exact 3-player solution "
          "(NaN otherwise) |", "",
          "`seats_<variant>.csv`, one row per seat: `variant, players, seat`, `p_pay` with `low`, `high` "
          "(Bonferroni over the seats), `fair` (1/players), `exact_p_pay` (the exact 3-player equilibrium's, NaN "
          "for other player counts).", "",
          "`groups_<variant>.csv`, one row per context group: `variant, players, group`, `searched` (False where "
          "nobody decides), `threshold` (the leader's stopping hand), `weight` (the follower's value weight).", ""]
    write_text_atomic(out / "REPORT.md", "\n".join(L))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variants", nargs="+", default=list(PRESETS), choices=list(PRESETS))
    p.add_argument("--players", nargs="+", type=int, default=[3, 4, 5, 6, 7, 8])
    p.add_argument("--games", type=int, default=10_000, help="games per line-up in the search (default 10000)")
    p.add_argument("--measure-games", type=int, default=100_000,
                   help="games per line-up in the final measurement (default 100000)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--candidates", type=int, default=3)
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--out", default="results/approx")
    p.add_argument("--report-only", action="store_true", help="only rewrite REPORT.md from the CSV files")
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if not args.report_only:
        for preset in args.variants:
            run_variant(preset, args.players, args, out)
    write_report(out, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
