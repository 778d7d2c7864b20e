"""What does each habit cost, and where? (2 players, exact)

Question: each named habit (sec, chase421, greedy, table-aware) plays the optimal player
of each preset, seats rotated. How much winning probability does it give away in all,
and in which situations does it lose the most: what should a player who plays that way
change at the table?

    python experiments/habits.py [--top 10] [--screen 40] [--out results/habits]

Everything is exact (the 2-player solver and exact policy evaluation; no dice are
rolled). Writes habits.csv (the costliest mistakes of each habit at each preset, with a
sentence each), summary.csv (each habit's win share against optimal play) and README.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from four21sim import PRESETS, __version__
from four21sim._util.atomic import atomic_path, write_text_atomic
from four21sim.analysis.habits import HABITS, study


def _pp(x: float) -> str:
    return f"{100 * x:.2f}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--top", type=int, default=10, help="mistakes listed per habit and preset (default 10)")
    p.add_argument("--screen", type=int, default=40,
                   help="departures costed exactly per habit and preset, the most often met, half a leader's and "
                        "half a follower's (default 40)")
    p.add_argument("--out", default="results/habits")
    args = p.parse_args(argv)
    out = Path(args.out)
    t0 = time.perf_counter()
    mistakes, summary = study(tuple(PRESETS), HABITS, top=args.top, screen=args.screen)
    seconds = time.perf_counter() - t0
    out.mkdir(parents=True, exist_ok=True)
    for name, df in (("habits.csv", mistakes), ("summary.csv", summary)):
        with atomic_path(out / name) as tmp:
            df.to_csv(tmp, index=False, float_format="%.6g")
    command = "python experiments/habits.py" + "".join(f" {a}" for a in (argv if argv is not None else sys.argv[1:]))
    lines = [
        "# What each habit costs, and where (2 players, exact)", "",
        f"Made by `{command}` (four21sim {__version__}, {seconds:.0f} s). Every number is exact: the "
        "2-player solver and exact evaluation of fixed policies (no dice are rolled).", "",
        "Each habit plays the optimal player, each taking the first seat in turn. Its *win share* is the mean "
        "of its two chances of winning (50% = as good as optimal play). A *situation* is what a player sees: "
        "the role, the hand held after so many throws and, for a follower, the leader's hand and count. A "
        "mistake's **cost** is what the habit's win share gains when it plays that one situation optimally "
        "(optimal play's keep may depend on the tokens) and everything else as before: the points of winning "
        "probability it gives away by playing that situation its own way, per game; divided by how often the "
        "habit's player meets the situation (where optimal play differs), it is the cost **each time it "
        "arises**, what a player at the table pays for that one decision. Each mistake ends with the reason, "
        "from the exact single-turn odds of the round. "
        f"Per habit and preset the {args.screen} departures met most often (half among the leader's "
        "situations, half among the follower's) are costed exactly and the "
        f"{args.top} costliest are listed in [habits.csv](habits.csv). Costs are not additive: the habit's "
        "whole gap is spread over thousands of situations.", "",
        "## Win share against optimal play", "",
        "| preset | " + " | ".join(HABITS) + " |", "| --- |" + " --- |" * len(HABITS)]
    for variant, g in summary.groupby("variant", sort=False):
        share = dict(zip(g["habit"], g["win_share"]))
        lines.append(f"| {variant} | " + " | ".join(f"{100 * share[h]:.2f}%" for h in HABITS) + " |")
    lines += ["", "## The costliest mistakes", ""]
    for (variant, habit), g in mistakes.groupby(["variant", "habit"], sort=False):
        gap = float(summary.query("variant == @variant and habit == @habit")["gap"].iloc[0])
        lines += [f"### {habit} at {variant} (gives away {_pp(gap)} points in all)", ""]
        lines += [f"{i + 1}. {s}" for i, s in enumerate(g["sentence"].head(3))] + [""]
    lines += ["## Columns of habits.csv", "",
              "| column | meaning |", "| --- | --- |",
              "| `variant`, `habit` | the preset and the habit |",
              "| `role` | leader or follower |",
              "| `made` | throws made when deciding |",
              "| `count` | a follower: the leader's count (0 for a leader) |",
              "| `hand` | the hand held |",
              "| `leader_hand` | a follower: the leader's hand |",
              "| `habit_keep` | what the habit does (`stop`, or the dice kept, `_` re-thrown) |",
              "| `optimal_keep` | what optimal play does most often there |",
              "| `optimal_share` | the share of the times met where optimal play does `optimal_keep` |",
              ("| `per_game` | expected times the habit's player meets the situation per game, where optimal play "
               "differs |"),
              "| `cost` | win share gained per game by playing this one situation optimally (0.003 = 0.3 points) |",
              "| `per_occurrence` | `cost / per_game`: the win share lost each time the situation arises |",
              "| `reason` | why, from the exact single-turn odds of the round (one follower playing to beat the "
              "leader, equal hands rolled off) |",
              "| `sentence` | the mistake in words |", "",
              "summary.csv: `variant, habit, win_share` (against optimal play, seats averaged), `gap` "
              "(0.5 - win_share), `top_cost` (the costliest listed mistake).", ""]
    write_text_atomic(out / "README.md", "\n".join(lines))
    print(f"wrote {out}/README.md, habits.csv, summary.csv in {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
