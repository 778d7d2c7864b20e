"""REPORT.md of a study: the fairness table, the figures, and findings written from the numbers."""

from __future__ import annotations

import math

import pandas as pd

from .tables import TAKE_AT_LEAST, reference_lineup

__all__ = ["write_report"]


def _pp(x: float, digits: int = 2) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:+.{digits}f} pp"


def _pct(x: float, digits: int = 1) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.{digits}f}%"


def _p(x: float) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else (f"{x:.3g}" if x > 0 else "< 1e-300")


def _cell(v) -> str:
    """A Markdown table cell: no '|' (it would split the cell)."""
    return str(v).replace("|", "/")


def _md_table(df: pd.DataFrame) -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join(" --- " for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(_cell(v) for v in row) + " |")
    return "\n".join(lines)


def _ci(v, lo, hi, fmt=_pct) -> str:
    return f"{fmt(v)} (95% CI {fmt(lo)} to {fmt(hi)})"


def _groups_text(scores: pd.DataFrame) -> str:
    parts = []
    for g, d in scores.groupby("group", sort=True):
        members = ", ".join(f"{r.variant} {r.fairness_score:.2f} pp [{r.score_low:.2f}, {r.score_high:.2f}]"
                            for r in d.itertuples())
        parts.append(f"group {g}: {members}")
    return "; ".join(parts)


def _verdict(no_decision: float, p_holm: float) -> str:
    """A plain word on the paying seat: unequal, equal by chance (nothing decided), or equal."""
    if not math.isnan(p_holm) and p_holm < 0.05:
        return "seats pay unequally"
    if no_decision >= 0.5:
        return "no seat difference found: mostly pure chance"
    return "no seat difference found"


def findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """Sentences computed from the tables (nothing here is written by hand)."""
    out = []
    fair, scores, skill = tables["fairness"], tables["scores"], tables["skill"]
    ref = reference_lineup(fair)
    if not scores.empty:
        out.append(f"**Who pays, everyone playing '{ref}':** fairness score = the mean over {scores.iloc[0].players} "
                   "players of the largest gap between a seat's chance of paying (losing the game) and a fair "
                   "1/players, in points, with its 95% interval. Variants whose intervals overlap are tied, not "
                   "ranked: " + _groups_text(scores) + ".")
    if not fair.empty:
        f = fair.loc[fair["pay_unfairness"].idxmax()]
        out.append(f"**Most unequal paying seat:** {f.variant} with {f.players} players ('{f.lineup}'): seat "
                   f"{f.worst_seat}{' (the first leader)' if f.worst_seat == 0 else ''} pays "
                   f"{_ci(f.worst_seat_pays, f.worst_seat_pays_low, f.worst_seat_pays_high)} of games where "
                   f"{_pct(1 / f.players)} would be fair"
                   + ("." if f.worst_seat == 0 else
                      f"; seat 0 (first leader) pays {_ci(f.seat0_pays, f.seat0_pays_low, f.seat0_pays_high)}."))
        distinct = fair[fair["same_games_as"] == ""]
        dup = len(fair) - len(distinct)
        sig = distinct[distinct["pay_test_p_holm"] < 0.05]
        out.append(f"**Seats differ in who pays** (joint test on the per-game pay shares, Holm-adjusted, "
                   f"family-wise 5%) in {len(sig)} of {len(distinct)} distinct configurations"
                   + (f" ({dup} configurations play the very same games as another one and are counted once)"
                      if dup else "") + ": " + (", ".join(f"{r.variant} {r.players}p {r.lineup}" for r in
                                                        sig.itertuples()) or "none") + ".")
        # a 'sec' line-up is fair by construction: when it deviates too (raw p < 0.05) and the
        # flagged configuration mostly plays the same games (nobody decides in most of them),
        # the flag is likely that shared chance deviation
        sec = fair[fair["lineup"] == "sec"].set_index(["variant", "players"])["pay_test_p"]
        shared = [r for r in sig.itertuples() if r.lineup != "sec" and r.p_no_decision >= 0.5
                  and (r.variant, r.players) in sec.index and sec[(r.variant, r.players)] < 0.05]
        if shared:
            out.append("**Caution:** " + "; ".join(
                f"{r.variant} {r.players}p {r.lineup} plays the same games as its 'sec' line-up in "
                f"{_pct(r.p_no_decision)} of cases (no decision), and that 'sec' line-up, fair by construction, "
                f"deviates too (raw p = {sec[(r.variant, r.players)]:.2g})" for r in shared)
                + ": the flag is likely a chance deviation the two share, not a property of the rules.")
        lot = fair[(fair["lineup"] == ref) & (fair["p_no_decision"] >= 0.5)]
        if not lot.empty:
            out.append("**Fair because nothing is decided:** " + ", ".join(
                f"{r.variant} with {r.players} players ({_pct(r.p_no_decision)} of games end in a 1-throw charge, "
                "where nobody makes a decision)" for r in lot.itertuples())
                + ". These games are (almost) pure chance: equal seats, and no room for skill.")
        rl = fair[fair["lineup"] == ref]
        r1 = rl.sort_values("r1_loser_p_pay")
        if not r1.empty and r1["r1_loser_p_pay"].notna().any():
            lo, hi = r1.iloc[0], r1.iloc[-1]
            out.append(f"**Losing the first round** ('{ref}'): its loser pays for the game in "
                       f"{_ci(lo.r1_loser_p_pay, lo.r1_loser_p_pay_low, lo.r1_loser_p_pay_high)} of games "
                       f"({lo.variant}, {lo.players} players) up to "
                       f"{_ci(hi.r1_loser_p_pay, hi.r1_loser_p_pay_low, hi.r1_loser_p_pay_high)} "
                       f"({hi.variant}, {hi.players} players).")
        dl = rl[rl["leader_loses_decharge"].notna() & (rl["players"] == 2)]
        if not dl.empty:
            out.append(f"**Leading a décharge round, 2 players** ('{ref}', simulated): the leader loses "
                       + ", ".join(_ci(r.leader_loses_decharge, r.leader_loses_decharge_low,
                                       r.leader_loses_decharge_high) + f" of décharge rounds in {r.variant}"
                                   for r in dl.itertuples())
                       + " (50% would make leading worthless).")
    lead = tables.get("leading")
    if lead is not None and not lead.empty:
        two, three = lead[lead["players"] == 2], lead[lead["players"] == 3]
        if not two.empty:
            out.append("**The value of leading, exactly** (2 players, both optimal, solver): P(win | lead the round) "
                       "- P(win | follow) with the same tokens, averaged over the states a game visits: "
                       + "; ".join(f"{r.variant}: décharge {_pp(r.decharge_mean)} (from {_pp(r.decharge_min)} to "
                                   f"{_pp(r.decharge_max)}), charge {_pp(r.charge_mean)}; the round-1 loser wins the "
                                   f"game {_pct(r.round1_loser_wins, 2)}" for r in two.itertuples()) + " (exact).")
        if not three.empty:
            out.append("**The value of leading at a table of three, exactly** (equilibrium, each player minimising "
                       "its own P(pay)): how much lower a player's P(pay) is when it leads the round than when one "
                       "of the two others does, same tokens, averaged over the décharge states a game visits: "
                       + "; ".join(f"{r.variant} {_pp(r.decharge_mean)} (from {_pp(r.decharge_min)} to "
                                   f"{_pp(r.decharge_max)})" for r in three.itertuples()) + " (exact).")
    if not fair.empty:
        ex = fair[fair["fpa_exact"].notna()]
        if not ex.empty:
            inside = ((ex["fpa_exact"] >= ex["fpa_low"]) & (ex["fpa_exact"] <= ex["fpa_high"])).sum()
            opt = ex[(ex["lineup"] == "optimal") & (ex["players"] == 2)]
            parts = [f"{r.variant} {_pp(round(r.fpa_exact, 9) + 0.0, 3)}" for r in opt.itertuples()]
            out.append("**Two players, exactly:** " + (
                "under optimal play the first player's advantage is " + ", ".join(parts) + " (exact). "
                if parts else "")
                + f"The simulated advantage's 95% interval contains the exact value (solvers) in {inside} of "
                  f"{len(ex)} configurations with exact values (2 and 3 players).")
            opt3 = ex[(ex["lineup"] == "optimal") & (ex["players"] == 3)]
            if not opt3.empty:
                out.append("**Three players, exactly** (the certified equilibrium where each player minimises its "
                           "own P(pay)): seat 0, which leads the first round, pays in "
                           + ", ".join(f"{r.variant} {_pct(r.seat0_pays_exact, 2)}" for r in opt3.itertuples())
                           + " of games (fair: 33.33%); the largest gap between a seat's P(pay) and 1/3 is "
                           + ", ".join(f"{r.variant} {_pp(round(r.pay_unfairness_exact, 9) + 0.0, 2)}"
                                       for r in opt3.itertuples()) + " (exact).")
        rl = fair[fair["lineup"] == ref].sort_values("rounds_p50")
        if not rl.empty:
            a, b = rl.iloc[0], rl.iloc[-1]
            out.append(f"**How long a game lasts** ('{ref}'; median, 90th and 99th percentile of rounds): from "
                       f"{a.rounds_p50}/{a.rounds_p90}/{a.rounds_p99} ({a.variant}, {a.players} players) to "
                       f"{b.rounds_p50}/{b.rounds_p90}/{b.rounds_p99} ({b.variant}, {b.players} players).")
            t = rl.sort_values("p_take_ge_10")
            a, b = t.iloc[0], t.iloc[-1]
            out.append(f"**What a game costs a player** ('{ref}'; tokens a player takes in a game, median/90th/99th "
                       f"percentile): {a.taken_p50}/{a.taken_p90}/{a.taken_p99} in {a.variant} with {a.players} "
                       "players "
                       f"(P(taking 10 or more) {_pct(a.p_take_ge_10)}) up to {b.taken_p50}/{b.taken_p90}/"
                       f"{b.taken_p99} in {b.variant} with {b.players} players ({_pct(b.p_take_ge_10)}).")
    if not skill.empty:
        for lu, g in skill.groupby("lineup", sort=False):
            top = g.loc[g["pay_edge"].idxmax()]
            low = g.loc[g["pay_edge"].idxmin()]
            out.append(f"**Skill ({lu}), who pays:** the {top.skilled} player pays less often than a fair share "
                       f"by {_pp(low.pay_edge)} (95% CI {_pp(low.fair - low.pay_ci_high)} to "
                       f"{_pp(low.fair - low.pay_ci_low)}; {low.variant}, {low.players} players) up to "
                       f"{_pp(top.pay_edge)} (95% CI {_pp(top.fair - top.pay_ci_high)} to "
                       f"{_pp(top.fair - top.pay_ci_low)}; {top.variant}, {top.players} players)"
                       + ("; a negative value means it pays more than its share." if low.pay_edge < 0 else "."))
    rob = tables.get("robustness")
    if rob is not None and not rob.empty and rob["lineup"].nunique() > 1:
        firsts = {lu: set(d.loc[d["group"] == 1, "variant"]) for lu, d in rob.groupby("lineup", sort=False)}
        out.append("**Robustness:** the fairest tied group (who pays) by line-up: " + "; ".join(
            f"'{lu}': {{{', '.join(sorted(f))}}}" for lu, f in firsts.items())
            + (". Under 'sec' nobody re-throws, so every seat is alike by construction." if "sec" in firsts else "."))
    return out


Z999 = 3.2905267314918945  # two-sided 99.9% normal quantile


def _exact_check(tables) -> list[str]:
    """Simulation against the solver's exact 2-player values, with z-scores and 99.9% verdicts."""
    fair, skill = tables["fairness"], tables["skill"]
    rows = []
    for r in (fair[fair["fpa_exact"].notna()].itertuples() if not fair.empty else []):
        z1 = (r.first_player_advantage - r.fpa_exact) / r.fpa_se if r.fpa_se > 0 else 0.0
        z2 = (r.mean_rounds - r.mean_rounds_exact) / r.mean_rounds_se if r.mean_rounds_se > 0 else 0.0
        pay_se = (r.seat0_pays_high - r.seat0_pays_low) / (2 * 1.959963984540054)
        z3 = (r.seat0_pays - r.seat0_pays_exact) / pay_se if pay_se > 0 else 0.0
        rows.append({"variant": r.variant, "players": r.players, "line-up": r.lineup, "games": f"{r.games:,}",
                     "P(seat 0 wins) sim": f"{1 / r.players + r.first_player_advantage:.5f}",
                     "exact": f"{1 / r.players + r.fpa_exact:.5f}", "z": f"{z1:+.2f}",
                     "P(seat 0 pays) sim": f"{r.seat0_pays:.5f}", "exact  ": f"{r.seat0_pays_exact:.5f}",
                     "z  ": f"{z3:+.2f}",
                     "mean rounds sim": f"{r.mean_rounds:.4f}", "exact ": f"{r.mean_rounds_exact:.4f}",
                     "z ": f"{z2:+.2f}",
                     "within 99.9%": "yes" if max(abs(z1), abs(z2), abs(z3)) <= Z999 else "NO"})
    for r in skill[skill["score_exact"].notna()].itertuples() if not skill.empty else []:
        se = (r.ci_high - r.ci_low) / (2 * 1.959963984540054)
        z = (r.score - r.score_exact) / se if se > 0 else 0.0
        rows.append({"variant": r.variant, "players": r.players, "line-up": r.lineup, "games": f"{r.games:,}",
                     "P(seat 0 wins) sim": f"{r.score:.5f} (skilled share)", "exact": f"{r.score_exact:.5f}",
                     "z": f"{z:+.2f}", "P(seat 0 pays) sim": "", "exact  ": "", "z  ": "",
                     "mean rounds sim": "", "exact ": "", "z ": "",
                     "within 99.9%": "yes" if abs(z) <= Z999 else "NO"})
    if not rows:
        return []
    ok = sum(r["within 99.9%"] == "yes" for r in rows)
    return ["## Exact check", "",
            "Simulation against the exact values of the same line-up computed by the solvers (2 players: Markov "
            "chain of the fixed policies; 3 players: the equilibrium's values). z = (simulated - exact) / "
            "standard error; a correct engine and solver "
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
    # only what produced the numbers: the run's times, speed and commit are in run.json (not committed)
    code = manifest.get("code") or {}
    lines += [
        f"Produced by four21sim {manifest['versions']['four21sim']} (source {code.get('source', 'unknown')}), "
        f"seed {study.seed}, {study.games:,} games per "
        f"configuration, {manifest['games_total']:,} games in all ({manifest['games_played_total']:,} played, "
        "counting every seat's turn in the one:A/B line-ups). "
        "Every number below is computed from the tables next to this file; intervals are 95%.", "",
        "## Findings", ""]
    lines += [f"- {s}" for s in findings(tables) + _runaway_findings(tables, study)]
    lines += ["", "## Who pays", "",
              "The measure a bar cares about: the game's loser pays (docs/rules.md defines the loser per end "
              "rule; k tied losers pay 1/k each). `pays` columns are P(pay) with 95% intervals; `unfairness` is the "
              "largest gap between a seat's P(pay) and 1/players (simultaneous 95% interval: every seat's interval "
              "at the Bonferroni level, conservative); `test p (Holm)` "
              "is the joint test that every seat pays equally (Hotelling's T² on the per-game pay shares), "
              "Holm-adjusted over the distinct configurations; `win test p (Holm)` the same on win shares. "
              "`same games as`: this configuration plays exactly the games of another one (counted once).", ""]
    if not fair.empty:
        t = pd.DataFrame({
            "variant": fair["variant"], "players": fair["players"], "line-up": fair["lineup"],
            "seat 0 pays": [f"{100 * v:.2f}% [{100 * a:.2f}, {100 * b:.2f}]" for v, a, b in
                            zip(fair["seat0_pays"], fair["seat0_pays_low"], fair["seat0_pays_high"])],
            "most out-of-line seat pays": [f"seat {s}: {100 * v:.2f}% [{100 * a:.2f}, {100 * b:.2f}]" for s, v, a, b in
                                           zip(fair["worst_seat"], fair["worst_seat_pays"],
                                               fair["worst_seat_pays_low"], fair["worst_seat_pays_high"])],
            "fair": (1 / fair["players"]).map(lambda x: f"{100 * x:.2f}%"),
            "unfairness (pp)": [f"{100 * v:.2f} [{100 * a:.2f}, {100 * b:.2f}]" for v, a, b in
                                zip(fair["pay_unfairness"], fair["pay_unfairness_low"], fair["pay_unfairness_high"])],
            "test p (Holm)": fair["pay_test_p_holm"].map(_p),
            "win test p (Holm)": fair["seat_test_win_p_holm"].map(_p),
            "first-player adv. (pp)": [f"{100 * v:+.2f} [{100 * a:+.2f}, {100 * b:+.2f}]" for v, a, b in
                                       zip(fair["first_player_advantage"], fair["fpa_low"], fair["fpa_high"])],
            "exact adv. (pp)": fair["fpa_exact"].map(
                lambda x: "" if math.isnan(x) else f"{round(100 * x, 4) + 0.0:+.3f}"),
            "same games as": fair["same_games_as"],
        })
        lines += [_md_table(t), ""]
    if not scores.empty:
        lines += ["## Fairness score, in tied groups", "",
                  f"Score = mean over the player counts of the paying-seat unfairness (pp), everyone playing "
                  f"'{ref}', with its simultaneous 95% interval (Bonferroni over every seat of every player count: "
                  "conservative). Sorted by score, a variant joins the "
                  "current group while its interval overlaps the interval of the group's first member: within a "
                  "group, noise cannot separate the variants, so they are not ranked.", ""]
        sc = pd.DataFrame({"group": scores["group"], "variant": scores["variant"],
                           "score (pp)": [f"{a:.2f} [{b:.2f}, {c:.2f}]" for a, b, c in
                                          zip(scores["fairness_score"], scores["score_low"], scores["score_high"])],
                           "worst player count": scores["worst_players"],
                           "configurations with unequal payers (Holm 5%)": scores["unfair_configs"],
                           "players": scores["players"]})
        lines += [_md_table(sc), ""]
    rob = tables.get("robustness")
    if rob is not None and not rob.empty and rob["lineup"].nunique() > 1:
        piv = rob.assign(cell=[f"{a:.2f} [{b:.2f}, {c:.2f}] (g{g})" for a, b, c, g in
                               zip(rob["fairness_score"], rob["score_low"], rob["score_high"], rob["group"])])
        piv = piv.pivot(index="variant", columns="lineup", values="cell").fillna("").reset_index()
        lines += ["## Robustness of the ranking", "",
                  "The fairness score (pp, 95% interval, tied group gN) under every everyone-plays-X line-up "
                  "(`optimal`: 2 and 3 players only).", "", _md_table(piv), ""]
    fvs = tables.get("fair_vs_skill")
    if fvs is not None and not fvs.empty:
        lines += ["## Fairness against skill", "",
                  f"Per variant and player count ('{ref}'): the share of games in which nobody decides anything "
                  "(every round thrown with a 1-throw limit: pure chance), the skill edge (one skilled player "
                  "among habit players: how much less often than 1/players it pays), the value of leading (exact, "
                  "2 and 3 players, "
                  "optimal play: mean over the décharge states a game visits of P(pay | another leads) − "
                  "P(pay | I lead); "
                  "simulated: the leader's per-round chance of losing a décharge round), the round-1 loser's "
                  "chance of paying, and the paying-seat unfairness.", ""]
        t = pd.DataFrame({
            "variant": fvs["variant"], "players": fvs["players"],
            "no decision": fvs["p_no_decision"].map(lambda x: f"{100 * x:.1f}%"),
            **{f"skill: pays less, {lu[4:]} (pp)": [
                "" if math.isnan(v) else f"{100 * v:+.2f} [{100 * a:+.2f}, {100 * b:+.2f}]"
                for v, a, b in zip(fvs[f"skill_pay_edge[{lu}]"], fvs[f"skill_pay_edge_low[{lu}]"],
                                   fvs[f"skill_pay_edge_high[{lu}]"])]
               for lu in [c[len("skill_pay_edge["):-1] for c in fvs.columns if c.startswith("skill_pay_edge[")]},
            "lead value, décharge (exact)": fvs["lead_value_decharge_exact"].map(
                lambda x: "" if math.isnan(x) else f"{100 * x:+.2f} pp"),
            "leader loses a décharge round": [("" if math.isnan(v)
                                               else f"{100 * v:.1f}% [{100 * a:.1f}, {100 * b:.1f}]")
                                              for v, a, b in zip(fvs["leader_loses_decharge"],
                                                                 fvs["leader_loses_decharge_low"],
                                                                 fvs["leader_loses_decharge_high"])],
            "round-1 loser pays": [f"{100 * v:.1f}% [{100 * a:.1f}, {100 * b:.1f}]" for v, a, b in
                                   zip(fvs["r1_loser_p_pay"], fvs["r1_loser_p_pay_low"], fvs["r1_loser_p_pay_high"])],
            "pay unfairness (pp)": [f"{100 * v:.2f} [{100 * a:.2f}, {100 * b:.2f}]" for v, a, b in
                                    zip(fvs["pay_unfairness"], fvs["pay_unfairness_low"], fvs["pay_unfairness_high"])],
            "verdict": [_verdict(nd, p) for nd, p in zip(fvs["p_no_decision"], fvs["pay_test_p_holm"])],
        })
        lines += [_md_table(t), ""]
    lead = tables.get("leading")
    if not fair.empty:
        lines += ["## The value of leading", "",
                  "The leader of a round chooses the number of throws; the others must match it. Per round, the "
                  "chance that the leader, and the first player after it, lose the round, by phase, over every "
                  "round of every game (intervals from blocks of games: rounds of a game are "
                  "correlated), next to the fair rate (1/players at the table, averaged over the phase's rounds: "
                  "under last_holder players go out during the décharge); and what losing the first round means "
                  "for the game.", ""]
        def rate(col):
            return [("" if math.isnan(v) else f"{100 * v:.1f}% [{100 * a:.1f}, {100 * b:.1f}]")
                    for v, a, b in zip(fair[col], fair[f"{col}_low"], fair[f"{col}_high"])]
        t = pd.DataFrame({
            "variant": fair["variant"], "players": fair["players"], "line-up": fair["lineup"],
            "fair, charge": fair["round_fair_charge"].map(lambda x: "" if math.isnan(x) else f"{100 * x:.1f}%"),
            "leader loses, charge": rate("leader_loses_charge"),
            "1st follower loses, charge": rate("follower1_loses_charge"),
            "fair, décharge": fair["round_fair_decharge"].map(lambda x: "" if math.isnan(x) else f"{100 * x:.1f}%"),
            "leader loses, décharge": rate("leader_loses_decharge"),
            "1st follower loses, décharge": rate("follower1_loses_decharge"),
            "round-1 loser wins the game": rate("r1_loser_p_win"),
            "round-1 loser pays": rate("r1_loser_p_pay"),
        })
        lines += [_md_table(t), ""]
    if lead is not None and not lead.empty:
        lines += ["Exact, everyone playing optimally (2 players: the solver's optimum; 3 players: the "
                  "equilibrium where each minimises its own P(pay)): the value of leading a round, P(pay | one of "
                  "the others leads it) − P(pay | I lead it) with the same tokens (with 2 players: P(win | lead) − "
                  "P(win | follow)), over the states of each phase (mean weighted by how often a game visits them, "
                  "smallest, largest); the first round's value; and the round-1 loser's chance of winning the "
                  "game (2 players).", ""]
        t = pd.DataFrame({
            "variant": lead["variant"], "players": lead["players"],
            "charge: mean [min, max] (pp)": [f"{_pp(a)} [{_pp(b)}, {_pp(c)}]" if not math.isnan(a) else ""
                                             for a, b, c in zip(lead["charge_mean"], lead["charge_min"],
                                                                lead["charge_max"])],
            "décharge: mean [min, max] (pp)": [f"{_pp(a)} [{_pp(b)}, {_pp(c)}]" if not math.isnan(a)
                                               else "" for a, b, c in zip(lead["decharge_mean"], lead["decharge_min"],
                                                                          lead["decharge_max"])],
            "first round (pp)": lead["first_round"].map(lambda x: _pp(0.0 if abs(x) < 1e-12 else x, 3)),
            "round-1 loser wins": lead["round1_loser_wins"].map(lambda x: "" if math.isnan(x) else f"{100 * x:.2f}%"),
        })
        lines += [_md_table(t), ""]
    if not fair.empty:
        lines += ["## What a player feels", "",
                  "Percentiles of the number of rounds of a game and of the tokens one player takes in a game "
                  "(as a round's loser), and the chance of taking at least k tokens in a game (from the full "
                  "histograms of all games, no sampling beyond the study's).", ""]
        t = pd.DataFrame({
            "variant": fair["variant"], "players": fair["players"], "line-up": fair["lineup"],
            "rounds p50/p90/p99": [f"{a}/{b}/{c}" for a, b, c in zip(fair["rounds_p50"], fair["rounds_p90"],
                                                                      fair["rounds_p99"])],
            "tokens taken p50/p90/p99": [f"{a}/{b}/{c}" for a, b, c in zip(fair["taken_p50"], fair["taken_p90"],
                                                                            fair["taken_p99"])],
            **{f"P(take >= {k})": fair[f"p_take_ge_{k}"].map(lambda x: f"{100 * x:.1f}%") for k in TAKE_AT_LEAST},
            "decided in charge": fair["p_decided_in_charge"].map(lambda x: f"{100 * x:.1f}%"),
        })
        lines += [_md_table(t), ""]
    skill = tables["skill"]
    if not skill.empty:
        lines += ["## Skill against luck", "",
                  "One skilled player among habit players, taking every seat in turn on the same games: how often "
                  "it pays (what a bar cares about) and its win share, against the fair 1/players. With 2 players "
                  "one is the complement of the other; with more they differ, and `optimal` at 3 players (the "
                  "equilibrium) plays not to pay, not to win.", ""]
        t = pd.DataFrame({
            "variant": skill["variant"], "players": skill["players"], "line-up": skill["lineup"],
            "fair": skill["fair"].map(lambda x: f"{100 * x:.1f}%"),
            "skilled pays": [f"{100 * v:.2f}% [{100 * a:.2f}, {100 * b:.2f}]"
                             for v, a, b in zip(skill["pay_score"], skill["pay_ci_low"], skill["pay_ci_high"])],
            "pays less by": skill["pay_edge"].map(lambda x: f"{100 * x:+.2f} pp"),
            "skilled win share": [f"{100 * v:.2f}% [{100 * a:.2f}, {100 * b:.2f}]"
                                  for v, a, b in zip(skill["score"], skill["ci_low"], skill["ci_high"])],
            "exact": skill["score_exact"].map(lambda x: "" if math.isnan(x) else f"{100 * x:.2f}%"),
            "win edge": skill["edge"].map(lambda x: f"{100 * x:+.2f} pp"),
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
              "- `distributions.parquet` also holds `taken`: tokens taken per player per game.",
              "- `fairness.parquet`, `scores.parquet`, `robustness.parquet`, `fair_vs_skill.parquet`, "
              "`leading.parquet`, `skill.parquet`, `exact.parquet`: the tables above.",
              "- `runaways.parquet`: games per configuration still running after the round limit.",
              "- `manifest.json`: the study, the seed, the versions and the code that produced these files; "
              "`run.json` (not committed): the command, commit, times and speed of the run.", ""]
    write_text_atomic(path, "\n".join(lines))
