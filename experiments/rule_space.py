"""Which single rule change makes 421 fairer? A search of the rule space around the presets.

Question: starting from each preset, change one option at a time (every other allowed
value of every option, and the token count), and measure fairness where it lives: the
sweep's paying-seat fairness score (the largest gap of a seat's P(pay) from 1/players, in
points, everyone playing 'greedy', averaged over 2, 3 and 4 players, with its 95%
interval; four21sim.study.fairness) and, exactly, the 2-player first-player advantage and value
of leading a décharge round under optimal play (solver). Which rule changes move
fairness beyond noise, and which variants form the fairest tied group?

    python experiments/rule_space.py [--games N] [--out results/rule_space] [--workers N]

Writes the sweep's tables and REPORT.md for all variants, plus RULE_SPACE.md,
rule_space.parquet and a figure.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from four21sim import PRESETS, Variant
from four21sim._util.atomic import atomic_path, write_text_atomic
from four21sim.engine.stats import Z95, holm
from four21sim.exact.two_player import solve
from four21sim.rules.variants import OPTION_TABLE
from four21sim.study.spec import study_from_mapping
from four21sim.sweep import run_sweep

# The values tried for each option come from the option registry, so a new option is explored
# as soon as it is declared there.
CHANGES = {o.name: list(o.explore) for o in OPTION_TABLE}


def _fmt(v) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def variant_specs() -> list[dict]:
    """Every preset, and every preset with one option changed."""
    specs = []
    for preset, base in PRESETS.items():
        specs.append({"label": preset, "preset": preset, "set": [], "base": preset, "change": "(preset)"})
        for option, values in CHANGES.items():
            for value in values:
                if getattr(base, option) != value:
                    specs.append({"label": f"{preset}: {option}={_fmt(value)}", "preset": preset,
                                  "set": [f"{option}={_fmt(value)}"], "base": preset,
                                  "change": f"{option}={_fmt(value)}"})
    return specs


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=200_000, help="games per configuration (default 200000)")
    p.add_argument("--out", default="results/rule_space", help="output directory")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)

    specs = variant_specs()
    study = study_from_mapping({
        "name": "rule_space",
        "question": "Which single rule change, from each preset, moves fairness most, and which variant is "
                    "the fairest found?",
        "seed": 1421, "games": args.games, "task_games": min(args.games, 100_000),
        "variants": [], "players": [2, 3, 4], "lineups": ["greedy"],
        "variant": [{k: s[k] for k in ("label", "preset", "set")} for s in specs],
    })
    out = Path(args.out)
    manifest = run_sweep(study, out, workers=args.workers, quiet=args.quiet,
                         command="python experiments/rule_space.py " + " ".join(argv or sys.argv[1:]))
    scores = pd.read_parquet(out / "scores.parquet").set_index("variant")
    fair = pd.read_parquet(out / "fairness.parquet")
    df = analyse(specs, scores, fair)
    with atomic_path(out / "rule_space.parquet") as tmp:
        df.to_parquet(tmp, index=False)
    import matplotlib
    matplotlib.use("Agg")
    from four21sim.study.figures import save
    with atomic_path(out / "figures" / "rule_space.png") as tmp:
        save(figure(df), tmp)
    write_text_atomic(out / "RULE_SPACE.md", report(df, study, manifest))
    if not args.quiet:
        print(f"wrote {out / 'RULE_SPACE.md'}")
    return 0


def analyse(specs: list[dict], scores: pd.DataFrame, fair: pd.DataFrame) -> pd.DataFrame:
    """One row per variant: score and interval, change against its preset with an interval and
    a Holm-adjusted p-value, exact 2-player values, and which variant plays the same games."""
    from four21sim.exact.leading import lead_summary
    same = {}
    for label, g in fair.groupby("variant", sort=False):
        # a variant plays the same games as another when every one of its configurations does
        others = set(g["same_games_as"])
        if len(others) == 1 and "" not in others:
            same[label] = next(iter(others)).split(",")[0]
    rows = []
    for s in specs:
        v = Variant.from_preset(s["preset"], s["set"])
        sol = solve(v)
        ls = lead_summary(sol)
        sc = scores.loc[s["label"]]
        dech = ls["by_phase"].get("decharge")
        rows.append(dict(variant=s["label"], base=s["base"], change=s["change"],
                         fairness_score=float(sc["fairness_score"]), score_low=float(sc["score_low"]),
                         score_high=float(sc["score_high"]), group=int(sc["group"]),
                         charge_throws=v.charge_throws,
                         fpa_optimal_2p_exact=sol.p_seat0 - 0.5, expected_rounds_2p=sol.expected_rounds,
                         lead_value_decharge_exact=dech["weighted_mean"] if dech else math.nan,
                         round1_loser_wins_exact=ls["round1_loser_wins"],
                         same_games_as=same.get(s["label"], "")))
    df = pd.DataFrame(rows)
    base = df[df["change"] == "(preset)"].set_index("base")
    half = (df["score_high"] - df["score_low"]) / 2
    bhalf = df["base"].map((base["score_high"] - base["score_low"]) / 2)
    df["delta_score"] = df["fairness_score"] - df["base"].map(base["fairness_score"])
    # the two scores' intervals combined as if independent (same seed: positively correlated
    # games, so this is on the wide side); the p-value from the normal approximation
    dhalf = np.sqrt(half ** 2 + bhalf ** 2)
    df["delta_low"], df["delta_high"] = df["delta_score"] - dhalf, df["delta_score"] + dhalf
    se = dhalf / Z95
    z = np.where(se > 0, df["delta_score"].abs() / se.where(se > 0, 1), 0.0)
    p = np.array([math.erfc(x / math.sqrt(2)) for x in z])
    changed = (df["change"] != "(preset)").to_numpy() & (df["same_games_as"] == "").to_numpy()
    p = np.where(changed, p, np.nan)
    df["delta_p_holm"] = holm(p)
    df["delta_abs_fpa_exact"] = df["fpa_optimal_2p_exact"].abs() - df["base"].map(
        base["fpa_optimal_2p_exact"].abs())
    return df


def figure(df: pd.DataFrame):
    """Left: presets x rule changes heatmap of the change of score; right: the largest changes
    with their 95% intervals and the noise band (median half-width of a change's interval)."""
    import matplotlib.pyplot as plt

    from four21sim.study.figures import _annotate
    ch = df[df["change"] != "(preset)"]
    presets = list(PRESETS)
    present = set(ch["change"])
    cols = [f"{o}={_fmt(v)}" for o, vals in CHANGES.items() for v in vals if f"{o}={_fmt(v)}" in present]
    mat = np.full((len(presets), len(cols)), np.nan)
    text = [["" for _ in cols] for _ in presets]
    for r in ch.itertuples():
        i, j = presets.index(r.base), cols.index(r.change)
        mat[i, j] = r.delta_score
        text[i][j] = f"{r.delta_score:+.1f}" + ("*" if r.delta_p_holm < 0.05 else "")
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(17, 6.5), gridspec_kw={"width_ratios": [2.3, 1]},
                                 layout="constrained")
    span = np.nanmax(np.abs(mat)) if np.isfinite(mat).any() else 1
    im = ax.imshow(mat, cmap="RdBu_r", vmin=-span, vmax=span, aspect="auto")
    _annotate(ax, im, mat, text, 7)
    ax.set_xticks(range(len(cols)), cols, rotation=70, fontsize=7, ha="right")
    ax.set_yticks(range(len(presets)), presets)
    fig.colorbar(im, ax=ax, label="change of fairness score (pp); blue = fairer", shrink=0.7)
    ax.set_title("One rule change from each preset (* beyond noise, Holm 5%)")
    top = ch.reindex(ch["delta_score"].abs().sort_values(ascending=False).index).head(14).iloc[::-1]
    y = np.arange(len(top))
    xerr = [top["delta_score"] - top["delta_low"], top["delta_high"] - top["delta_score"]]
    bx.errorbar(top["delta_score"], y, xerr=xerr,
                fmt="o", capsize=3, color="black")
    band = float(((ch["delta_high"] - ch["delta_low"]) / 2).median())
    bx.axvspan(-band, band, color="grey", alpha=0.25, label=f"noise band (±{band:.2f} pp)")
    bx.axvline(0, color="grey", lw=0.8)
    bx.set_yticks(y, top["variant"], fontsize=7)
    bx.set_xlabel("change of fairness score (pp), 95% CI")
    bx.set_title("Largest changes")
    bx.legend(fontsize=7, loc="lower right")
    fig.suptitle("Paying-seat fairness around the presets (greedy play, 2-4 players)")
    return fig


def _cell(x) -> str:
    return str(x).replace("|", "/")


def report(df: pd.DataFrame, study, manifest: dict) -> str:
    """RULE_SPACE.md: findings computed from ``df``, then every variant."""
    ch = df[df["change"] != "(preset)"]
    distinct = df[df["same_games_as"] == ""]
    g1 = df[df["group"] == 1]
    zero = df[df["fpa_optimal_2p_exact"].abs() < 1e-9]
    sig = ch[ch["delta_p_holm"] < 0.05]
    moved = sig.reindex(sig["delta_score"].abs().sort_values(ascending=False).index)
    lines = [
        "# The rule space around the presets", "",
        f"*{study.question}*", "",
        f"Produced by `{manifest['command']}` (seed {study.seed}, {study.games:,} games per configuration, "
        f"{manifest['games_total']:,} games; commit {manifest['git_commit']}). Fairness score as in "
        "[REPORT.md](REPORT.md): the mean over 2, 3 and 4 players of the largest gap between a seat's chance of "
        "paying (losing the game) and 1/players, in points, everyone playing 'greedy', with its 95% interval; lower "
        "is fairer. A change's interval combines the two scores' intervals; 'beyond noise' means its p-value is "
        "below 5% after Holm's adjustment over the distinct changes. The exact columns are 2-player values under "
        "optimal play from the solver.", "",
        "## Findings", "",
        f"- **Fairest tied group** (intervals overlapping the fairest score's; not ranked within): {len(g1)} of "
        f"{len(df)} variants, from {g1['fairness_score'].min():.2f} to {g1['fairness_score'].max():.2f} pp; "
        f"{int((g1['charge_throws'] == 1).sum())} of them throw the charge sec (charge_throws=1).",
        f"- **Exactly fair for 2 players under optimal play** (solver, |first-player advantage| < 1e-9): "
        f"{len(zero)} variants, {int((zero['charge_throws'] == 1).sum())} of them with a sec charge. Exactly fair "
        "seats do not make leading worthless: in these variants leading a décharge round is still worth "
        f"{round(100 * zero['lead_value_decharge_exact'].min(), 1) + 0.0:+.1f} to "
        f"{round(100 * zero['lead_value_decharge_exact'].max(), 1) + 0.0:+.1f} "
        "pp of game-win probability (exact, mean over the states a game visits).",
        f"- **Changes beyond noise:** {len(sig)} of {int((ch['same_games_as'] == '').sum())} distinct rule changes "
        f"(Holm, family-wise 5%); {len(df) - len(distinct)} variants play exactly the games of another one and are "
        "counted once.",
        "- **The rule changes that move fairness most** (beyond noise, by size):",
    ]
    for r in moved.head(8).itertuples():
        lines.append(f"  - **{r.change}** on {r.base}: {r.delta_score:+.2f} pp (95% CI {r.delta_low:+.2f} to "
                     f"{r.delta_high:+.2f}), to {r.fairness_score:.2f}; exact 2-player |first-player advantage| "
                     f"changes by {100 * r.delta_abs_fpa_exact:+.3f} pp.")
    lines += ["", "![rule space](figures/rule_space.png)", "", "## Every variant", "",
              "| variant | group | fairness score (pp) | change vs preset (pp) | beyond noise | exact 2p adv. (pp) | "
              "exact 2p lead value, décharge (pp) | exact 2p P(round-1 loser wins) | E[rounds] 2p | same games as |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in df.sort_values(["group", "fairness_score"]).itertuples():
        delta = "" if r.change == "(preset)" else f"{r.delta_score:+.2f} [{r.delta_low:+.2f}, {r.delta_high:+.2f}]"
        beyond = ("" if r.change == "(preset)" or math.isnan(r.delta_p_holm)
                  else "yes" if r.delta_p_holm < 0.05 else "no")
        lv = "" if math.isnan(r.lead_value_decharge_exact) else f"{100 * r.lead_value_decharge_exact:+.2f}"
        cells = [r.variant, r.group, f"{r.fairness_score:.2f} [{r.score_low:.2f}, {r.score_high:.2f}]", delta, beyond,
                 f"{round(100 * r.fpa_optimal_2p_exact, 3) + 0.0:+.3f}", lv, f"{100 * r.round1_loser_wins_exact:.2f}%",
                 f"{r.expected_rounds_2p:.2f}", r.same_games_as]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
