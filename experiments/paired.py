"""Do the presets differ in who pays, compared on the same dice? Paired differences, in drinks.

Question: for every pair of presets and every table size, how many more (or fewer) drinks
a game does each seat pay in one preset than in the other, everyone playing 'greedy', when
both play games from the same dice streams (common random numbers)?

    python experiments/paired.py [--games N] [--out results/paired]

A seat paying with probability P at a table of n pays n·P − 1 drinks a game beyond its
share (docs/fairness.md), so a difference of P(pay) is n times that in drinks. Where the
symmetry theorem makes a preset exactly fair (every seat pays exactly 1/n), its side of a
difference is exact: two such presets differ by exactly 0 (no test: the simulation only
checks the engine), and against one such preset the difference is the other preset's own
gap, with that preset's own interval. Writes paired.parquet (one row per pair of presets,
table size and seat) and README.md. Differences "beyond noise" are counted with Holm's
adjustment (family-wise 5%) over every (pair, table size, seat) compared by simulation.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from four21sim import PRESETS
from four21sim._util.atomic import atomic_path, write_text_atomic
from four21sim.engine.stats import Z95, holm
from four21sim.study.fairness import paired_shares, symmetry_of

PLAYERS = [2, 3, 4, 6]
QUESTION = ("For every pair of presets and every table size, how many more (or fewer) drinks a game does each seat "
            "pay in one preset than in the other, everyone playing 'greedy', when both play games from the same "
            "dice streams?")


def differences(n: int, games: int, seed: int) -> pd.DataFrame:
    """Every pair of presets at ``n`` players: per seat, the difference of P(pay) in drinks a game."""
    labels = list(PRESETS)
    pairs = [(a, b) for i, a in enumerate(labels) for b in labels[i + 1:]]
    ps = paired_shares(dict(PRESETS), n, pairs, "greedy", games, seed)
    sym = {lab: symmetry_of(PRESETS[lab], n, "all", "greedy").applies for lab in labels}
    rows = []
    for a, b in pairs:
        if sym[a] and sym[b]:
            mean, half, how = np.zeros(n), np.zeros(n), "exact: both fair by symmetry"
        elif sym[a] or sym[b]:
            one, sign = (b, -1.0) if sym[a] else (a, 1.0)
            mean = sign * (ps.mean[one] - 1 / n)
            half, how = Z95 * np.sqrt(np.clip(np.diag(ps.cov[one]), 0, None)), f"{'a' if sym[a] else 'b'} exact"
        else:
            mean = ps.diff_mean[(a, b)]
            half, how = Z95 * np.sqrt(np.clip(np.diag(ps.diff_cov[(a, b)]), 0, None)), "paired"
        ind = Z95 * np.sqrt(np.clip(np.diag(ps.cov[a]) + np.diag(ps.cov[b]), 0, None))
        for s in range(n):
            rows.append(dict(variant_a=a, variant_b=b, players=n, seat=s, method=how, diff=float(mean[s]),
                             ci_low=float(mean[s] - half[s]), ci_high=float(mean[s] + half[s]),
                             independent_half=float(ind[s]), drinks=n * float(mean[s]),
                             drinks_low=n * float(mean[s] - half[s]), drinks_high=n * float(mean[s] + half[s])))
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=500_000, help="games per preset and table size (default 500000)")
    p.add_argument("--seed", type=int, default=77)
    p.add_argument("--out", default="results/paired")
    args = p.parse_args(argv)
    out = Path(args.out)
    df = pd.concat([differences(n, args.games, args.seed) for n in PLAYERS], ignore_index=True)
    se = (df["ci_high"] - df["ci_low"]) / (2 * Z95)
    pv = np.array([math.erfc(abs(d) / s / math.sqrt(2)) if s > 0 else math.nan for d, s in zip(df["diff"], se)])
    # with 2 players seat 1's difference is minus seat 0's: one comparison, counted once
    twin = ((df["players"] == 2) & (df["seat"] == 1)).to_numpy()
    tested = ~twin & (df["method"] != "exact: both fair by symmetry").to_numpy()
    adj = holm(np.where(tested, pv, np.nan))
    df["p_holm"] = np.where(twin, np.roll(adj, 1), adj)
    with atomic_path(out / "paired.parquet") as tmp:
        df.to_parquet(tmp, index=False)
    write_text_atomic(out / "README.md", report(df, args, tested))
    print(f"wrote {out / 'README.md'}")
    return 0


def report(df: pd.DataFrame, args, tested: np.ndarray) -> str:
    paired = df["method"] == "paired"
    ratio = float(np.median(((df["ci_high"] - df["ci_low"]) / 2)[paired] / df["independent_half"][paired])) \
        if paired.any() else math.nan
    sig = int((df["p_holm"][tested] < 0.05).sum())
    lines = ["# Who pays, preset against preset, on the same dice", "", f"*{QUESTION}*", "",
             f"Produced by `python experiments/paired.py --games {args.games} --seed {args.seed}`: "
             f"{args.games:,} games per preset and table size, everyone playing 'greedy'. A difference is the "
             "drinks a game a seat pays in the first preset minus in the second (a seat paying with probability P "
             "at a table of n pays n·P − 1 beyond its share; docs/fairness.md), with its 95% interval: paired "
             "(common random numbers) when both presets are simulated; where the symmetry theorem makes a preset "
             "exactly fair its side is exact (`exact`), and two such presets differ by exactly 0. 'Beyond noise' = "
             f"Holm-adjusted p < 0.05 over all {int(tested.sum())} simulated comparisons (with 2 players seat 1's "
             "difference is minus seat 0's and is counted once).", "",
             "## Findings", "",
             f"- **Differences beyond noise:** {sig} of {int(tested.sum())} simulated (pair, table size, seat) "
             "comparisons; every comparison of two presets fair by symmetry is exactly 0.",
             f"- **Common random numbers help little here:** the paired interval is {100 * ratio:.0f}% as wide as "
             "with independent dice (median over the paired comparisons): the rules make the games part ways "
             "within a round or two, so the presets' games are nearly independent.", ""]
    for n in PLAYERS:
        d = df[df["players"] == n]
        lines += [f"## {n} players (drinks a game)", "", "| first preset | second preset | "
                  + " | ".join(f"seat {s}" for s in range(n)) + " |",
                  "| --- | --- | " + " | ".join("---" for _ in range(n)) + " |"]
        for (a, b), g in d.groupby(["variant_a", "variant_b"], sort=False):
            if g["method"].iloc[0].startswith("exact: both"):
                cells = ["0 (exact)"] * n
            else:
                cells = [f"{r.drinks:+.3f} [{r.drinks_low:+.3f}, {r.drinks_high:+.3f}]"
                         + (" *" if r.p_holm < 0.05 else "") for r in g.itertuples()]
            lines.append(f"| {a} | {b} | " + " | ".join(cells) + " |")
        lines += ["", "(* beyond noise, Holm 5%)", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
