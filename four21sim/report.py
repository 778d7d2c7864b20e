"""REPORT.md of a study: the fairness table, the figures, and findings written from the numbers."""

from __future__ import annotations

import math

import pandas as pd

from .summarize import reference_lineup

__all__ = ["write_report"]


def _pp(x: float, digits: int = 2) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:+.{digits}f} pp"


def _pct(x: float, digits: int = 1) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.{digits}f}%"


def _md_table(df: pd.DataFrame) -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join(" --- " for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(str(v) for v in row) + " |")
    return "\n".join(lines)


def findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """Sentences computed from the tables (nothing here is written by hand)."""
    out = []
    fair, scores, skill = tables["fairness"], tables["scores"], tables["skill"]
    ref = reference_lineup(fair)
    if not scores.empty:
        best, worst = scores.iloc[0], scores.iloc[-1]
        out.append(f"**Fairest variant:** {best.variant}, with a fairness score of {best.fairness_score:.2f} "
                   f"(its most unequal seat wins {best.fairness_score:.2f}% more or less than a fair share, "
                   f"averaged over {best.players} players, everyone playing '{ref}'). The least fair is "
                   f"{worst.variant} ({worst.fairness_score:.2f}, worst with {worst.worst_players} players).")
        level = scores[scores["fairness_score"] <= scores["noise_95"]]
        if len(level):
            out.append("Within sampling noise of a perfectly fair game (score below its 95% noise level): "
                       + ", ".join(level["variant"]) + ".")
    if not fair.empty:
        f = fair.loc[fair["first_player_advantage"].abs().idxmax()]
        out.append(f"**Largest first-player advantage:** {_pp(f.first_player_advantage)} "
                   f"(95% CI {_pp(f.fpa_low)} to {_pp(f.fpa_high)}) in {f.variant} with {f.players} players, "
                   f"everyone playing '{f.lineup}'.")
        sig = fair[(fair["fpa_low"] > 0) | (fair["fpa_high"] < 0)]
        out.append(f"The first-player advantage differs from zero (95% interval excluding 0) in {len(sig)} of "
                   f"{len(fair)} configurations; seat uniformity is rejected at the 1% level in "
                   f"{int((fair['seat_uniformity_p'] < 0.01).sum())} of {len(fair)}.")
        ex = fair[fair["fpa_exact"].notna()]
        if not ex.empty:
            inside = ((ex["fpa_exact"] >= ex["fpa_low"]) & (ex["fpa_exact"] <= ex["fpa_high"])).sum()
            opt = ex[ex["lineup"] == "optimal"]
            parts = [f"{r.variant} {_pp(round(r.fpa_exact, 9) + 0.0, 3)}" for r in opt.itertuples()]
            out.append("**Two players, exactly:** " + (
                "under optimal play the first player's advantage is " + ", ".join(parts) + ". " if parts else "")
                + f"The simulated advantage's 95% interval contains the exact value (solver) in {inside} of "
                  f"{len(ex)} two-player configurations.")
        r2 = fair[fair["lineup"] == ref].sort_values("mean_rounds")
        if not r2.empty:
            lo, hi = r2.iloc[0], r2.iloc[-1]
            out.append(f"**Game length** ('{ref}'): from {lo.mean_rounds:.1f} rounds on average ({lo.variant}, "
                       f"{lo.players} players) to {hi.mean_rounds:.1f} ({hi.variant}, {hi.players} players).")
            ch = fair[fair["lineup"] == ref].sort_values("p_decided_in_charge")
            c_hi = ch.iloc[-1]
            out.append(f"**Decided in the charge:** up to {_pct(c_hi.p_decided_in_charge)} of games end with the "
                       f"charge ({c_hi.variant}, {c_hi.players} players): no décharge is played.")
            sw = fair[fair["lineup"] == ref].sort_values("mean_swing_round")
            out.append(f"**Token swings:** a round moves {sw.iloc[0].mean_swing_round:.2f} tokens on average in "
                       f"{sw.iloc[0].variant} ({sw.iloc[0].players} players) up to "
                       f"{sw.iloc[-1].mean_swing_round:.2f} in {sw.iloc[-1].variant} ({sw.iloc[-1].players} players);"
                       f" a whole game moves {sw['mean_swing_game'].min():.1f} to {sw['mean_swing_game'].max():.1f}.")
    if not skill.empty:
        for lu, g in skill.groupby("lineup", sort=False):
            top = g.loc[g["edge"].idxmax()]
            low = g.loc[g["edge"].idxmin()]
            out.append(f"**Skill ({lu}):** the {top.skilled} player's edge over a fair share ranges from "
                       f"{_pp(low.edge)} ({low.variant}, {low.players} players) to {_pp(top.edge)} "
                       f"({top.variant}, {top.players} players): its win share is {_pct(top.score)} where "
                       f"{_pct(top.fair)} would be fair.")
    return out


Z999 = 3.2905267314918945  # two-sided 99.9% normal quantile


def _exact_check(tables) -> list[str]:
    """Simulation against the solver's exact 2-player values, with z-scores and 99.9% verdicts."""
    fair, skill = tables["fairness"], tables["skill"]
    rows = []
    for r in (fair[fair["fpa_exact"].notna()].itertuples() if not fair.empty else []):
        z1 = (r.first_player_advantage - r.fpa_exact) / r.fpa_se if r.fpa_se > 0 else 0.0
        z2 = (r.mean_rounds - r.mean_rounds_exact) / r.mean_rounds_se if r.mean_rounds_se > 0 else 0.0
        rows.append({"variant": r.variant, "line-up": r.lineup, "games": f"{r.games:,}",
                     "P(seat 0 wins) sim": f"{0.5 + r.first_player_advantage:.5f}",
                     "exact": f"{0.5 + r.fpa_exact:.5f}", "z": f"{z1:+.2f}",
                     "mean rounds sim": f"{r.mean_rounds:.4f}", "exact ": f"{r.mean_rounds_exact:.4f}",
                     "z ": f"{z2:+.2f}",
                     "within 99.9%": "yes" if abs(z1) <= Z999 and abs(z2) <= Z999 else "NO"})
    for r in skill[skill["score_exact"].notna()].itertuples() if not skill.empty else []:
        se = (r.ci_high - r.ci_low) / (2 * 1.959963984540054)
        z = (r.score - r.score_exact) / se if se > 0 else 0.0
        rows.append({"variant": r.variant, "line-up": r.lineup, "games": f"{r.games:,}",
                     "P(seat 0 wins) sim": f"{r.score:.5f} (skilled share)", "exact": f"{r.score_exact:.5f}",
                     "z": f"{z:+.2f}", "mean rounds sim": "", "exact ": "", "z ": "",
                     "within 99.9%": "yes" if abs(z) <= Z999 else "NO"})
    if not rows:
        return []
    ok = sum(r["within 99.9%"] == "yes" for r in rows)
    return ["## Exact check (2 players)", "",
            "Simulation against the exact values of the same line-up computed by the solver (Markov chain "
            "of the fixed policies). z = (simulated - exact) / standard error; a correct engine and solver "
            "give |z| <= 3.29 for each z with probability 99.9%; a row passes when all its z do. "
            f"{ok} of {len(rows)} rows pass.", "",
            _md_table(pd.DataFrame(rows)), ""]


def _runaway_findings(tables: dict[str, pd.DataFrame], study) -> list[str]:
    """A sentence naming the configurations with runaway games (none if there are none)."""
    run = tables.get("runaways")
    if run is None or run.empty or not run["runaway_games"].any():
        return []
    hit = run[run["runaway_games"] > 0]
    where = "; ".join(f"{r.variant}, {r.players} players, {r.lineup}: {r.runaway_games:,} of {r.games:,}"
                      for r in hit.itertuples())
    return [f"**Runaway games:** games still running after {study.max_rounds:,} rounds (the study's max_rounds) "
            f"are left out of every measure above, in {len(hit)} of {len(run)} configurations ({where})."]


def write_report(path, study, manifest: dict, tables: dict[str, pd.DataFrame], figures: dict[str, str]) -> None:
    """Write REPORT.md (atomically) next to the tables and figures."""
    from .tasks import write_text_atomic
    fair, scores = tables["fairness"], tables["scores"]
    ref = reference_lineup(fair)
    lines = [f"# four21sim study: {study.name}", ""]
    if study.question:
        lines += [f"*{study.question}*", ""]
    if manifest["games_run"] == manifest["games_total"]:
        speed = (f"in {manifest['seconds']:.0f} s ({manifest['games_per_second'] / 1e6:.2f} M games/s over the "
                 "whole run, policies and exact solutions included)")
    elif manifest["games_run"]:
        speed = (f"of which {manifest['games_played_run']:,} were played by this run in {manifest['seconds']:.0f} s "
                 "and the rest resumed from earlier runs")
    else:
        speed = "all resumed from the part files of earlier runs"
    lines += [
        f"Produced by `{manifest['command']}` with four21sim {manifest['versions']['four21sim']} "
        f"(commit {manifest['git_commit'] or 'unknown'}), seed {study.seed}, {study.games:,} games per "
        f"configuration, {manifest['games_total']:,} games in all ({manifest['games_played_total']:,} played, "
        f"counting every seat's turn in the one:A/B line-ups), {speed}. "
        "Every number below is computed from the tables next to this file; intervals are 95%.", "",
        "## Findings", ""]
    lines += [f"- {s}" for s in findings(tables) + _runaway_findings(tables, study)]
    lines += ["", "## Fairness ranking", "",
              f"Fairness score: for each variant, the mean over the player counts of the largest relative "
              f"deviation of a seat's win share from 1/players (in %), everyone playing '{ref}'. "
              "Lower is fairer. `noise_95` is the sampling noise of that score (the mean 95% half-width of "
              "the seats' shares): a score below it is indistinguishable from a perfectly fair game.", ""]
    if not scores.empty:
        s = scores.copy()
        s["fairness_score"] = s["fairness_score"].map(lambda x: f"{x:.2f}")
        s["noise_95"] = s["noise_95"].map(lambda x: f"{x:.2f}")
        s["mean_abs_fpa"] = s["mean_abs_fpa"].map(lambda x: f"{x:.2f} pp")
        lines += [_md_table(s[["rank", "variant", "fairness_score", "noise_95", "mean_abs_fpa", "worst_players",
                                 "players"]]),
                  ""]
    lines += ["## Fairness table", "",
              "First-player advantage = seat 0's win share − 1/players (seat 0 leads the first round); "
              "`exact` is the solver's value for 2 players; seat uniformity p is a chi-square test that every "
              "seat's share is 1/players.", ""]
    if not fair.empty:
        t = pd.DataFrame({
            "variant": fair["variant"], "players": fair["players"], "line-up": fair["lineup"],
            "first-player adv.": fair["first_player_advantage"].map(lambda x: f"{100 * x:+.2f}"),
            "95% CI (pp)": [f"{100 * a:+.2f} .. {100 * b:+.2f}" for a, b in zip(fair["fpa_low"], fair["fpa_high"])],
            "exact (pp)": fair["fpa_exact"].map(lambda x: "" if math.isnan(x) else f"{round(100 * x, 4) + 0.0:+.3f}"),
            "max seat dev.": fair["max_seat_deviation"].map(lambda x: f"{100 * x:.1f}%"),
            "uniformity p": fair["seat_uniformity_p"].map(lambda x: f"{x:.3g}" if x > 0 else "< 1e-300"),
            "rounds": fair["mean_rounds"].map(lambda x: f"{x:.2f}"),
            "decided in charge": fair["p_decided_in_charge"].map(lambda x: f"{100 * x:.1f}%"),
            "swing/round": fair["mean_swing_round"].map(lambda x: f"{x:.2f}"),
        })
        lines += [_md_table(t), ""]
    skill = tables["skill"]
    if not skill.empty:
        lines += ["## Skill against luck", "",
                  "One skilled player among habit players, taking every seat in turn on the same games.", ""]
        t = pd.DataFrame({
            "variant": skill["variant"], "players": skill["players"], "line-up": skill["lineup"],
            "skilled win share": skill["score"].map(lambda x: f"{100 * x:.2f}%"),
            "95% CI": [f"{100 * a:.2f} .. {100 * b:.2f}" for a, b in zip(skill["ci_low"], skill["ci_high"])],
            "exact": skill["score_exact"].map(lambda x: "" if math.isnan(x) else f"{100 * x:.2f}%"),
            "fair": skill["fair"].map(lambda x: f"{100 * x:.1f}%"),
            "edge": skill["edge"].map(lambda x: f"{100 * x:+.2f} pp"),
        })
        lines += [_md_table(t), ""]
    lines += _exact_check(tables)
    lines += ["## Figures", ""]
    for title, rel in figures.items():
        lines += [f"### {title}", "", f"![{title}]({rel})", ""]
    if manifest.get("skipped"):
        lines += ["## Skipped configurations", ""]
        lines += [f"- {s['variant']}, {s['players']} players, {s['lineup']}: {s['reason']}"
                  for s in manifest["skipped"]]
        lines.append("")
    lines += ["## Files", "",
              "- `measures.parquet`: one row per configuration, measure and seat, with interval bounds.",
              "- `distributions.parquet`: game length and token swing histograms.",
              "- `fairness.parquet`, `scores.parquet`, `skill.parquet`, `exact.parquet`: the tables above.",
              "- `runaways.parquet`: games per configuration still running after the round limit.",
              "- `manifest.json`: the study, the seed, versions, commit, times and speed.", ""]
    write_text_atomic(path, "\n".join(lines))
