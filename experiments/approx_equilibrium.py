"""Approximate equilibria for 3 to 8 players, and how exploitable they are.

Question: when every player minimises its own P(pay) and exact solving does not fit
(4 players and more), what profile does iterated best response find within the
family of four21sim.analysis.approx (a leader threshold and a follower value weight per
context group), how much can one deviator still gain against it (measured on fresh
games, with an interval), how fair is the paying seat under that play, and, at 3
players, how close is it to the exact equilibrium of four21sim.exact.nplayer?

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
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from four21sim import PRESETS, Variant, policies, simulate
from four21sim._util.atomic import write_text_atomic
from four21sim.analysis.approx import Profile, approximate_equilibrium, context_groups, measure_gains
from four21sim.engine.stats import Z95, holm, z_for
from four21sim.policies import compile_policy
from four21sim.rules import dice

HABITS = policies.HABITS


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
            from four21sim.exact.nplayer import solve
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
            groups.append(dict(variant=preset, players=n, group=r.group, searched=r.searched, leader=r.leader,
                               threshold=r.threshold, weight=r.weight))
        print(f"[{preset} {n}p] done in {time.perf_counter() - t0:.0f} s: {res!r}", flush=True)
        # written after every player count: a run stopped half-way keeps what it finished
        for name, rows in (("summary", summary), ("seats", seats), ("groups", groups)):
            write_text_atomic(out / f"{name}_{preset}.csv", pd.DataFrame(rows).to_csv(index=False,
                                                                                      float_format="%.6g"))


def profile_from_csv(out: Path, preset: str, players: int) -> Profile:
    """The profile found for (preset, players), read back from groups_<preset>.csv."""
    v = Variant.from_preset(preset)
    g = pd.read_csv(out / f"groups_{preset}.csv", dtype={"threshold": str})
    g = g[g["players"] == players]
    groups = context_groups(v)
    if list(g["group"]) != list(groups.labels):
        raise ValueError(f"groups_{preset}.csv: groups {list(g['group'])} differ from {list(groups.labels)}")
    leaders = tuple(g["leader"]) if "leader" in g else ()
    return Profile(v, groups, tuple(dice.parse_hand(t) for t in g["threshold"]),
                   tuple(float(w) for w in g["weight"]), leaders)


def exact_check(preset: str, args, out: Path) -> None:
    """At 3 players: the approximate profile and the exact equilibrium, each as the other's deviation."""
    v = Variant.from_preset(preset)
    seed = int(np.random.SeedSequence([args.seed, 4]).generate_state(1, np.uint64)[0])
    if 3 in args.players:
        prof = profile_from_csv(out, preset, 3)
        t0 = time.perf_counter()
        eq = compile_policy("optimal", v, 3)
        a = measure_gains(v, 3, prof, {"equilibrium": eq}, args.measure_games, seed, threads=1)
        a.insert(0, "profile", "approximate")
        b = measure_gains(v, 3, eq, {"approximate": prof, "table-aware": "table-aware"}, args.measure_games, seed,
                          threads=1)
        b.insert(0, "profile", "equilibrium")
        df = pd.concat([a, b], ignore_index=True)
        df.insert(0, "variant", preset)
        df["seconds"] = time.perf_counter() - t0
        write_text_atomic(out / f"exact3_{preset}.csv", df.to_csv(index=False, float_format="%.6g"))
        print(f"[{preset} exact check] {time.perf_counter() - t0:.0f} s", flush=True)


def charge_check(preset: str, args, out: Path) -> None:
    """How often the game is decided in the charge, per player count: with a one-throw charge a fact of
    the rules and the dice alone (nobody decides anything in it); otherwise under the profile found."""
    v = Variant.from_preset(preset)
    seed = int(np.random.SeedSequence([args.seed, 5]).generate_state(1, np.uint64)[0])
    rows = []
    for n in args.players:
        free = v.charge_throws == 1
        pol = "sec" if free else profile_from_csv(out, preset, n).policy()
        m = simulate(v, n, pol, games=args.measure_games, seed=seed, threads=1).measures().set_index("measure")
        r = m.loc["p_decided_in_charge"]
        rows.append(dict(variant=preset, players=n, policy="any" if free else "profile",
                         p_decided_in_charge=r["value"], low=r["ci_low"], high=r["ci_high"]))
    write_text_atomic(out / f"charge_{preset}.csv", pd.DataFrame(rows).to_csv(index=False, float_format="%.6g"))


def leading_check(preset: str, args, out: Path) -> None:
    """What leading a round is worth under the profile found: the per-round loss rates of the
    leader and of the first player after it, by phase, next to the fair rate (simulated, the
    engine's cluster intervals over blocks of games)."""
    v = Variant.from_preset(preset)
    seed = int(np.random.SeedSequence([args.seed, 6]).generate_state(1, np.uint64)[0])
    rows = []
    for n in args.players:
        res = simulate(v, n, profile_from_csv(out, preset, n).policy(), games=args.measure_games, seed=seed,
                       threads=1)
        pr = res.position_rates().set_index(["phase", "position"])
        for phase in ("charge", "decharge"):
            if (phase, 0) not in pr.index:
                continue
            lead, foll = pr.loc[(phase, 0)], pr.loc[(phase, 1)]
            rows.append(dict(variant=preset, players=n, phase=phase, rounds=int(lead["rounds"]), fair=lead["fair"],
                             leader_loses=lead["p_lose"], leader_low=lead["p_lose_low"],
                             leader_high=lead["p_lose_high"], follower1_loses=foll["p_lose"],
                             follower1_low=foll["p_lose_low"], follower1_high=foll["p_lose_high"]))
    write_text_atomic(out / f"leading_{preset}.csv", pd.DataFrame(rows).to_csv(index=False, float_format="%.6g"))


def norm_sf(x):
    """P(Z > x) for a standard normal Z."""
    from math import erfc, sqrt
    return np.vectorize(lambda t: 0.5 * erfc(t / sqrt(2)))(x)


def findings(S: pd.DataFrame, T: pd.DataFrame, X, C) -> list[str]:
    """Plain-words findings, computed from the tables (nothing typed in by hand)."""
    out = []
    # "significant" is family-wise over the configurations: Holm on the two-sided p-values of the
    # 95% normal intervals (se = width / (2 z95))
    z = S["exploitability_pp"] / ((S["exploitability_high_pp"] - S["exploitability_low_pp"]) / (2 * Z95))
    p_holm = holm(2 * norm_sf(np.abs(z.to_numpy(dtype=float))))
    pos = S[(p_holm < 0.05) & (S["exploitability_pp"] > 0)]
    neg = S[(p_holm < 0.05) & (S["exploitability_pp"] < 0)]
    big = S.loc[S["exploitability_pp"].idxmax()]
    out.append(f"- **Exploitability within the family.** Of {len(S)} configurations, {len(pos)} have a deviation "
               "whose gain is significantly above 0 on fresh games (Holm over the configurations, family-wise "
               "5%); the largest gain is "
               f"{big.exploitability_pp:.2f} pp [{big.exploitability_low_pp:.2f}, {big.exploitability_high_pp:.2f}] "
               f"({big.variant}, {big.players} players), against P(pay) of order 1/n. "
               f"Largest upper end of an interval: {S['exploitability_high_pp'].max():.2f} pp. These are small, but "
               "they are lower bounds (docs/approximate.md), and the search almost never converged "
               f"({int(S['converged'].sum())} of {len(S)} configurations stopped because a round changed nothing): "
               "the profile keeps moving between values whose differences are within the noise of "
               f"{int(S['games'].iloc[0]):,} games per line-up.")
    if len(neg):
        out.append(f"- **The winner's curse is visible.** In {len(neg)} configurations ("
                   + ", ".join(f"{r.variant} {r.players}" for r in neg.itertuples())
                   + ") the deviation that looked best on the selection games is significantly *worse* than the "
                   "profile on fresh games; everywhere the selection gain (mean "
                   f"{S['selection_gain_pp'].mean():.2f} pp) exceeds the fresh one (mean "
                   f"{S['exploitability_pp'].mean():.2f} pp). Selecting and measuring on the same games would "
                   "have reported these as gains.")
    habit_cols = [f"gain_{h.replace('-', '_')}" for h in HABITS]
    beaten = [(r.variant, r.players, h) for r in S.itertuples() for h, c in zip(HABITS, habit_cols)
              if getattr(r, f"{c}_low_pp") > 0]
    out.append("- **Habits against the profile.** " + (
        "No habit deviation gains significantly against the profile." if not beaten else
        "A habit gains significantly against the profile in " + ", ".join(f"{v} {n} ({h})" for v, n, h in beaten)
        + ": the family misses something that habit does.")
        + " The gain of a deviator returning to plain `table-aware` (the family's starting point) ranges from "
        f"{S['gain_table_aware_pp'].min():+.2f} to {S['gain_table_aware_pp'].max():+.2f} pp, `greedy`'s from "
        f"{S['gain_greedy_pp'].min():+.2f} to {S['gain_greedy_pp'].max():+.2f} pp.")
    lows, pv, seat0 = [], [], []
    for (v, n), df in T.groupby(["variant", "players"], sort=False):
        r0 = df.iloc[0]  # its interval is Bonferroni over the n seats: z at 1 - 0.05 / (2 n)
        se = (r0.high - r0.low) / (2 * z_for(1 - 0.05 / n))
        pv.append(2 * norm_sf(abs(r0.p_pay - 1 / n) / se) if se > 0 else 1.0)
        seat0.append((v, n, r0.p_pay))
    for (v, n, p0), ph in zip(seat0, holm(np.array(pv))):
        tag = ("below" if p0 < 1 / n else "above") if ph < 0.05 else "within noise of"
        lows.append(f"{v} {n}: {p0:.3f} ({tag} {1 / n:.3f})")
    out.append("- **Seat 0 (the first leader) under approximate equilibrium play**, P(pay) against 1/n "
               "(below or above: seat 0 against 1/n, Holm over the configurations, family-wise 5%): "
               + "; ".join(lows) + ".")
    if X is not None:
        eqg = X[(X["profile"] == "approximate") & (X["deviation"] == "equilibrium")]
        apg = X[(X["profile"] == "equilibrium") & (X["deviation"] == "approximate")]
        out.append("- **Against the exact 3-player equilibrium.** Playing the exact equilibrium strategy against two "
                   "players of the approximate profile gains " + "; ".join(
                       f"{r.variant} {_ci(100 * r.gain, 100 * r.gain_low, 100 * r.gain_high)} pp"
                       for r in eqg.itertuples())
                   + ". Playing the approximate profile against two equilibrium players gains " + "; ".join(
                       f"{r.variant} {_ci(100 * r.gain, 100 * r.gain_low, 100 * r.gain_high)} pp"
                       for r in apg.itertuples()) + " (must be <= 0).")
        gap = []
        for v, df in T[(T["players"] == 3) & T["exact_p_pay"].notna()].groupby("variant", sort=False):
            gap.append(f"{v} {100 * (df['p_pay'] - df['exact_p_pay']).abs().max():.2f} pp")
        out.append("- **P(pay) per seat, approximate profile against exact equilibrium (3 players)**: largest "
                   "difference over the seats " + "; ".join(gap) + ". The family is not rich enough to reproduce the "
                   "equilibrium's seat P(pay) where this exceeds the intervals (about 0.4 pp): a small "
                   "within-family exploitability does not mean the profile plays like the equilibrium.")
    if C is not None:
        near = C[C["low"] > 0.99]
        free = near[near["policy"] == "any"]
        if len(near):
            out.append("- **At large tables the charge decides the game.** In " + ", ".join(
                f"{r.variant} {r.players}" for r in near.itertuples())
                + " players, more than 99% of games end in the charge (when the pot runs out, some player "
                "holds no token and goes out, which ends the game under `first_out`), so the décharge groups' "
                "parameters do not matter there"
                + ("; in " + ", ".join(f"{r.variant} {r.players}" for r in free.itertuples())
                   + " the charge is one throw, nobody chooses anything, and every gain is 0 up to the rare "
                   "décharge" if len(free) else "") + ".")
    return out


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
    S, T = parts["summary"], parts["seats"]
    X = pd.concat([pd.read_csv(f) for f in sorted(out.glob("exact3_*.csv"))], ignore_index=True) \
        if list(out.glob("exact3_*.csv")) else None
    C = pd.concat([pd.read_csv(f) for f in sorted(out.glob("charge_*.csv"))], ignore_index=True) \
        if list(out.glob("charge_*.csv")) else None
    rank = {p: i for i, p in enumerate(order)}
    X = X.sort_values("variant", key=lambda c: c.map(rank), kind="stable") if X is not None else None
    C = C.sort_values(["variant", "players"], key=lambda c: c.map(rank) if c.name == "variant" else c,
                      kind="stable") if C is not None else None
    L = ["# Approximate equilibria for 3 to 8 players", "",
         "*When every player minimises its own P(pay) and exact solving does not fit, what profile does iterated "
         "best response find in the family of `four21sim.analysis.approx`, how much can a single deviator still gain "
         "against it, and how fair is the paying seat under that play?* The method is in "
         "[docs/approximate.md](../../docs/approximate.md).", "",
         "Made by `python experiments/approx_equilibrium.py "
         f"--games {args.games} --measure-games {args.measure_games} --rounds {args.rounds} "
         f"--candidates {args.candidates} --seed {args.seed}` (the variants were run in separate processes "
         "with `--variants`, 1 numba thread each; the report is written from every CSV in the folder). "
         f"Time, summed over the configurations below: "
         f"{S['seconds'].sum() / 60:.0f} min of search and measurement, "
         f"{np.nansum(S['exact_seconds']) / 60:.1f} min for the exact 3-player solutions"
         + (f", {X.groupby('variant')['seconds'].first().sum() / 60:.1f} min for the 3-player cross-check"
            if X is not None else "") + ".", ""]
    L += ["## Findings", ""] + findings(S, T, X, C) + [""]
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
          "(`four21sim.exact.nplayer`, certified) is given below it.", ""]
    for (variant, n), df in T.groupby(["variant", "players"], sort=False):
        cells = [f"{r.p_pay:.4f} [{r.low:.4f}, {r.high:.4f}]" for r in df.itertuples()]
        L.append(f"- **{variant}, {n} players** (1/n = {1 / n:.4f}): " + "; ".join(
            f"seat {s}: {c}" for s, c in enumerate(cells)))
        if n == 3 and df["exact_p_pay"].notna().all():
            L.append("  - exact 3-player equilibrium: " + "; ".join(
                f"seat {r.seat}: {r.exact_p_pay:.4f}" for r in df.itertuples()))
            inside = sum(r.low <= r.exact_p_pay <= r.high for r in df.itertuples())
            L.append(f"  - the exact value is inside the approximate profile's interval for {inside} of 3 seats")
    if X is not None:
        L += ["", "## At 3 players: the approximate profile and the exact equilibrium, each against the other", "",
              "The profile found at 3 players and the certified equilibrium of `four21sim.exact.nplayer` (policy "
              "`equilibrium`), each played as one deviator's policy while the two others play the other one, on "
              f"fresh games ({int(X['games'].iloc[0]):,} per line-up). A significant positive gain of the "
              "equilibrium against the profile is a deviation outside the family that the family's own search "
              "cannot find: a lower bound on the profile's true exploitability. Against the equilibrium no "
              "deviation can gain (its exploitability is below 1e-13): the gains there must be <= 0, and their size "
              "is what the family loses to the exact best response against the equilibrium.", "",
              "| variant | others play | deviator plays | gain (pp, 95%) |", "| --- | --- | --- | --- |"]
        for r in X.itertuples():
            L.append(f"| {r.variant} | {r.profile} | {r.deviation} | "
                     f"{_ci(100 * r.gain, 100 * r.gain_low, 100 * r.gain_high)} |")
    if C is not None:
        L += ["", "## How often the charge decides the game", "",
              "P(the game is decided in the charge), 95% Wilson intervals. Where the charge is one throw nobody "
              "decides anything in it, so this is a fact of the rules and the dice (`policy` = any; simulated with "
              "`sec`); otherwise it is under the profile found. Where it is close to 1 the décharge is almost "
              "never played: its groups' parameters cannot matter (their values in the profiles are noise), and "
              "where the charge is also one throw nothing can be exploited at all.", "",
              "| variant | n | policy | P(decided in the charge) |", "| --- | --- | --- | --- |"]
        for r in C.itertuples():
            L.append(f"| {r.variant} | {r.players} | {r.policy} | {r.p_decided_in_charge:.5f} "
                     f"[{r.low:.5f}, {r.high:.5f}] |")
    LD = pd.concat([pd.read_csv(f) for f in sorted(out.glob("leading_*.csv"))], ignore_index=True) \
        if list(out.glob("leading_*.csv")) else None
    if LD is not None:
        LD = LD.sort_values(["variant", "players"], key=lambda c: c.map(rank) if c.name == "variant" else c,
                            kind="stable")
        L += ["", "## Leading a round under the profile", "",
              f"Everyone playing the profile found ({args.measure_games:,} games per configuration): per round of "
              "each phase, P(the round's leader loses it) and P(the first player after the leader loses it), 95% "
              "cluster intervals over blocks of games (rounds of a game are correlated), next to the fair rate "
              "(1/players at the table, averaged over the phase's rounds). A leader losing less often than fair "
              "is what leading is worth to it; phases with fewer than 1,000 rounds are left out (too few to say "
              "anything).", "",
              "| variant | n | phase | rounds | fair | leader loses | 1st follower loses |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
        for r in LD[LD["rounds"] >= 1000].itertuples():
            L.append(f"| {r.variant} | {r.players} | {r.phase} | {r.rounds:,} | {100 * r.fair:.1f}% | "
                     f"{100 * r.leader_loses:.1f}% [{100 * r.leader_low:.1f}, {100 * r.leader_high:.1f}] | "
                     f"{100 * r.follower1_loses:.1f}% [{100 * r.follower1_low:.1f}, {100 * r.follower1_high:.1f}] |")
    L += ["", "## The profiles found", "",
          "Per context group (docs/approximate.md): the leader (its stopping hand, or `round` for the leader that "
          "plays the round against one follower) / the follower's value weight. "
          "Groups where nobody decides (one-throw phases) are not shown.", ""]
    for r in S.itertuples():
        L.append(f"- {r.variant}, {r.players} players ({r.rounds} rounds): {r.profile}")
    L += ["", "## Columns of the CSV files", "",
          "`summary_<variant>.csv`, one row per player count:", "",
          "| column | meaning |", "| --- | --- |",
          "| `variant`, `players` | the preset and the number of players |",
          "| `rounds`, `converged` | best-response rounds played; True if the last round changed nothing |",
          "| `profile` | the profile found, `group leader/weight` per searched group (leader: the threshold hand, or "
          "`round`) |",
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
          "nobody decides), `leader` (`reach`: stop at the threshold hand; `round`: play the round against one "
          "follower), `threshold` (the `reach` leader's stopping hand, unused by `round`), `weight` (the follower's "
          "value weight).", "",
          "`exact3_<variant>.csv` (3 players): `variant`, `profile` (what the two other seats play: `approximate` "
          "or `equilibrium`), then the columns of `four21sim.analysis.approx.measure_gains`: `deviation`, "
          "`p_pay_profile` "
          "(the deviator's P(pay) when it plays as the others, averaged over the seats), `p_pay_deviator`, `gain` "
          "= their difference with `gain_low`, `gain_high` (95%, probability, not pp), `games`; and `seconds`.", "",
          "`leading_<variant>.csv`, one row per player count and phase: `variant, players, phase`, `rounds` "
          "(rounds of the phase played), `fair` (the fair per-round loss rate), `leader_loses` with `leader_low`, "
          "`leader_high` and `follower1_loses` with `follower1_low`, `follower1_high` (per-round loss rates, 95% "
          "cluster intervals).", "",
          "`charge_<variant>.csv`: `variant, players`, `policy` (`any`: a one-throw charge, where no policy "
          "decides anything; `profile`: under the profile found), `p_decided_in_charge` with `low`, `high` (95% "
          "Wilson).", ""]
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
    p.add_argument("--skip-search", action="store_true",
                   help="do not search again: only the checks (against the exact 3-player equilibrium, how often "
                        "the charge decides), from the profiles already in --out")
    p.add_argument("--skip-exact3", action="store_true", help="leave out the 3-player cross-check")
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if not args.report_only:
        for preset in args.variants:
            if not args.skip_search:
                run_variant(preset, args.players, args, out)
            if not args.skip_exact3:
                exact_check(preset, args, out)
            charge_check(preset, args, out)
            leading_check(preset, args, out)
    write_report(out, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
