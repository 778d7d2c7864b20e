"""REPORT.md of a study: one-line verdicts per variant first, then the detail, one function per section.

Every sentence is computed from the tables (nothing is written by hand). Fairness is in
drinks (docs/fairness.md): a seat that pays with probability P at a table of n buys n P
drinks a game and drinks one, so ``n P - 1`` is what it pays beyond its share. Values are
exact where the symmetry theorem or a solver gives them, and the simulation of those
configurations is shown only as a check of the engine.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pandas as pd

from ..engine.stats import z_for
from ..rules.variants import Variant
from .fairness import EVENING
from .spec import DEFAULT_STUDY, Config, Study, parse_lineup
from .tables import HEADLINE_LINEUP, TAKE_AT_LEAST, StudyFacts, reference_lineup

__all__ = ["write_report", "render_report", "rewrite", "findings", "verdicts"]

Z999 = 3.2905267314918945  # two-sided 99.9% normal quantile


# ------------------------------------------------------------------ formatting
def _nan(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _pp(x: float, digits: int = 2) -> str:
    return "n/a" if _nan(x) else f"{100 * x:+.{digits}f} pp"


def _pct(x: float, digits: int = 1) -> str:
    return "n/a" if _nan(x) else f"{100 * x:.{digits}f}%"


def _p(x: float) -> str:
    return "" if _nan(x) else (f"{x:.3g}" if x > 0 else "< 1e-300")


def _dr(x: float, digits: int = 3) -> str:
    """Drinks with their sign: +0.081 (pays more than its share), −0.081 (saves)."""
    return "" if _nan(x) else f"{x:+.{digits}f}".replace("-", "−")


def _with_iv(x: float, lo: float, hi: float, digits: int = 3) -> str:
    """A drinks value with its 95% interval, or marked exact when it has none."""
    if _nan(lo):
        return f"{_dr(x, digits)} (exact)"
    return f"{_dr(x, digits)} [{_dr(lo, digits)}, {_dr(hi, digits)}]"


def _q(label: str) -> str:
    """A variant's label inside a sentence: quoted when it holds a list separator, so that a
    label such as 'super421, sec charge' cannot break a list."""
    label = str(label)
    return f"“{label}”" if any(ch in label for ch in ",;()") else label


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


def _span(first: str, first_where: str, last: str, last_where: str, same: bool) -> str:
    """``first (where) to last (where)``, or the one value when both ends are the same row."""
    return f"{first} ({first_where})" if same else f"{first} ({first_where}) to {last} ({last_where})"


def _play(lineup: str, players: int) -> str:
    """The line-up as a player says it."""
    if lineup == "optimal":
        return "optimal play" if players == 2 else "equilibrium play"
    return f"everyone '{lineup}'"


def _players_list(ns) -> str:
    ns = [str(n) for n in ns]
    return ns[0] if len(ns) == 1 else ", ".join(ns[:-1]) + " and " + ns[-1]


# ------------------------------------------------------------------ verdicts
def _keep_links(folder: Path | None, variant: str) -> str:
    """Where a player finds what to keep: the cheat sheet and the habits study, linked when they
    are beside this results folder, else the commands that make them."""
    preset = variant.split(":")[0].split(" ")[0]
    parts = []
    chart = folder / ".." / "charts" / f"{preset}-keeps.pdf" if folder else None
    if chart is not None and chart.exists():
        parts.append(f"[cheat sheet](../charts/{preset}-keeps.pdf)")
    else:
        parts.append(f"`four21sim advise --chart {preset}` (cheat sheet)")
    habits = folder / ".." / "habits" / "README.md" if folder else None
    parts.append("[what each habit costs](../habits/README.md)" if habits is not None and habits.exists()
                 else "`python experiments/habits.py` (what each habit costs)")
    return "what to keep: " + ", ".join(parts)


def _lead_clause(rows: pd.DataFrame) -> str:
    """The first leader's drinks per table size, each run of table sizes with its play and
    'exact', or each value with its interval."""
    items = []
    for r in rows.itertuples():
        play = _play(r.lineup, r.players)
        if r.lineup != HEADLINE_LINEUP:
            play += ": optimal play is not in this study"
        label = f"{play}, exact" if _nan(r.lead_drinks_low) else play
        value = _dr(r.lead_drinks) if _nan(r.lead_drinks_low) else _with_iv(r.lead_drinks, r.lead_drinks_low,
                                                                            r.lead_drinks_high)
        items.append((label, f"{value} at {r.players} players"))
    parts = [f"{_players_list([t for _, t in g])} ({label})"
             for label, g in itertools.groupby(items, key=lambda x: x[0])]
    return ", ".join(parts)


def _who_pays(rows: pd.DataFrame) -> str:
    """The part of a verdict on who pays, from the headline rows of one variant."""
    if rows["symmetric"].all():
        return (f"every seat pays exactly its share at {_players_list(rows['players'])} players, by symmetry "
                f"(docs/fairness.md: {rows['symmetry'].iloc[0]}); over an evening nobody pays more than another "
                "on average")
    known = rows[rows["lead_drinks_low"].isna() | (rows["lead_drinks_low"] > 0) | (rows["lead_drinks_high"] < 0)]
    known = known[known["lead_drinks"].abs() > 1e-12]
    saves, pays = (known["lead_drinks"] < 0).sum(), (known["lead_drinks"] > 0).sum()
    head = ("the first leader (seat 0) pays less than its share" if saves and not pays
            else "the first leader (seat 0) pays more than its share" if pays and not saves
            else "the first leader (seat 0) pays less at some table sizes, more at others" if len(known)
            else "the first leader (seat 0) is not shown to pay more or less than its share")
    text = f"{head}, in drinks a game beyond its share: {_lead_clause(rows)}"
    if len(known):
        top = known.loc[known["lead_drinks"].abs().idxmax()]
        ev = EVENING * top.lead_drinks
        text += (f"; over an evening of {EVENING} games at {top.players} players it "
                 + (f"saves {-ev:.1f} drinks, which the others pay" if ev < 0 else f"pays {ev:.1f} drinks more"))
    return text


def _leading_clause(lead: pd.DataFrame, variant: str) -> str:
    sub = lead[lead["variant"] == variant] if not lead.empty else lead
    if sub.empty or sub["decharge_mean"].isna().all():
        return ""
    parts = [f"{100 * r.decharge_mean:.1f} pp at {r.players} players ({r.players * r.decharge_mean:.2f} drinks)"
             for r in sub.itertuples() if not _nan(r.decharge_mean)]
    return ("leading a décharge round instead of following lowers a player's chance of paying for the game by "
            + _players_list(parts) + " (exact, everyone optimal, mean over the states a game visits)")


def verdicts(tables: dict[str, pd.DataFrame], folder: Path | None = None) -> list[str]:
    """One line per variant: who pays more, by how many drinks, under which play; what leading is
    worth; where to learn what to keep."""
    scores = tables.get("scores", pd.DataFrame())
    if scores.empty:
        return []
    lead = tables.get("leading", pd.DataFrame())
    out = []
    for variant, rows in scores[scores["headline"]].groupby("variant", sort=False):
        rows = rows.sort_values("players")
        parts = [_who_pays(rows), _leading_clause(lead, variant), _keep_links(folder, variant)]
        text = "; ".join(p for p in parts if p)
        out.append(f"**{variant}**: {text[0].upper() + text[1:]}.")
    return out


# ------------------------------------------------------------------ findings
def _finding_symmetry(fair: pd.DataFrame, seats: pd.DataFrame) -> list[str]:
    sym = fair[fair["symmetric"]]
    if sym.empty:
        return []
    where = "; ".join(f"{_q(v)} at {_players_list(sorted(set(g['players'])))} players "
                      f"({', '.join(dict.fromkeys(g['lineup']))})" for v, g in sym.groupby("variant", sort=False))
    st = seats[seats["exact_source"] == "symmetry"]
    solver = st[st["pays_solver"].notna()]
    agree = (f" The solvers agree: in the {solver.groupby(['variant', 'players', 'lineup']).ngroups} of these "
             f"configurations they reach, every seat's P(pay) is 1/players to within "
             f"{(solver['pays_solver'] - solver['pays_exact']).abs().max():.1e}." if len(solver) else "")
    return [f"**Exactly fair by symmetry** (docs/fairness.md; the simulation only checks the engine, see *Exact "
            f"check*): {where}." + agree]


def _finding_seats_differ(fair: pd.DataFrame) -> list[str]:
    family = fair[(fair["same_games_as"] == "") & ~fair["symmetric"]]
    if family.empty:
        return []
    sig = family[family["pay_test_p_holm"] < 0.05]
    dup = int(((fair["same_games_as"] != "") & ~fair["symmetric"]).sum())
    names = ", ".join(f"{_q(r.variant)} {r.players}p {r.lineup}" for r in sig.itertuples()) or "none"
    return [f"**Seats differ in who pays** (joint test on the per-game pay shares, Holm-adjusted over the "
            f"configurations the theorem does not settle, family-wise 5%) in {len(sig)} of {len(family)} distinct "
            "configurations" + (f" ({dup} more play the very same games as another one and are counted once)"
                                if dup else "") + f": {names}."]


def _finding_largest(scores: pd.DataFrame) -> list[str]:
    named = scores[(scores["most_seat"] >= 0) & ~scores["symmetric"]]
    if named.empty:
        return []
    most = named.loc[named["gap_drinks"].idxmax()]
    r = most
    return [f"**The largest gap** ({_q(r.variant)}, {r.players} players, {_play(r.lineup, r.players)}): seat "
            f"{most.most_seat} pays {_dr(most.most_drinks)} and seat {most.least_seat} {_dr(most.least_drinks)} "
            f"drinks a game beyond their share ({'exact' if most.source != 'simulation' else 'simulated; 95% '}"
            + (f"interval of the largest gap [{most.gap_drinks_low:.3f}, {most.gap_drinks_high:.3f}]"
               if most.source == "simulation" else "") + ")."]


def _finding_round1(rl: pd.DataFrame, ref: str) -> list[str]:
    r1 = rl[rl["r1_loser_p_pay"].notna()].sort_values("r1_loser_p_pay")
    if r1.empty:
        return []
    lo, hi = r1.iloc[0], r1.iloc[-1]
    return [f"**Losing the first round** ('{ref}'): its loser pays for the game in " + _span(
        _ci(lo.r1_loser_p_pay, lo.r1_loser_p_pay_low, lo.r1_loser_p_pay_high), f"{_q(lo.variant)}, {lo.players} "
        "players", _ci(hi.r1_loser_p_pay, hi.r1_loser_p_pay_low, hi.r1_loser_p_pay_high),
        f"{_q(hi.variant)}, {hi.players} players", len(r1) == 1) + " of games."]


def _finding_leading_sim(rl: pd.DataFrame, ref: str) -> list[str]:
    dl = rl[rl["leader_loses_decharge"].notna() & (rl["players"] == 2)]
    if dl.empty:
        return []
    return [f"**Leading a décharge round, 2 players** ('{ref}', simulated): the leader loses "
            + ", ".join(_ci(r.leader_loses_decharge, r.leader_loses_decharge_low, r.leader_loses_decharge_high)
                        + f" of décharge rounds in {_q(r.variant)}" for r in dl.itertuples())
            + " (50% would make leading worthless)."]


def _finding_leading_exact(lead: pd.DataFrame) -> list[str]:
    if lead is None or lead.empty:
        return []
    out = []
    two, three = lead[lead["players"] == 2], lead[lead["players"] == 3]
    if not two.empty:
        out.append("**The value of leading, exactly** (2 players, both optimal, solver): P(win | lead the round) "
                   "− P(win | follow) with the same tokens, averaged over the states a game visits: "
                   + "; ".join(f"{_q(r.variant)}: décharge {_pp(r.decharge_mean)} (from {_pp(r.decharge_min)} to "
                               f"{_pp(r.decharge_max)}), charge {_pp(r.charge_mean)}; the round-1 loser wins the "
                               f"game {_pct(r.round1_loser_wins, 2)}" for r in two.itertuples()) + " (exact).")
    if not three.empty:
        out.append("**The value of leading at a table of three, exactly** (equilibrium, each player minimising "
                   "its own P(pay)): how much lower a player's P(pay) is when it leads the round than when one "
                   "of the two others does, same tokens, averaged over the décharge states a game visits: "
                   + "; ".join(f"{_q(r.variant)} {_pp(r.decharge_mean)} (from {_pp(r.decharge_min)} to "
                               f"{_pp(r.decharge_max)})" for r in three.itertuples()) + " (exact).")
    return out


def _finding_exact_values(fair: pd.DataFrame) -> list[str]:
    ex = fair[(fair["exact_source"] == "solver") & (fair["lineup"] == HEADLINE_LINEUP)]
    out = []
    for n, g in ex.groupby("players", sort=True):
        out.append(f"**{n} players, {_play(HEADLINE_LINEUP, n)}, exactly** (solvers): seat 0, which leads the first "
                   "round, pays in " + ", ".join(f"{_q(r.variant)} {_pct(r.seat0_pays_exact, 2)}"
                                                 for r in g.itertuples())
                   + f" of games (fair: {_pct(1 / n, 2)}); the largest gap between a seat's P(pay) and 1/{n} is "
                   + ", ".join(f"{_q(r.variant)} {_pp(r.pay_unfairness_exact, 2)}" for r in g.itertuples()) + "."
                   + (_ONE_OF_SEVERAL if n >= 4 else ""))
    return out


# at 4 players and more the solver's equilibrium is one of several (results/nplayer/TIE_ORDERS.md measures them)
_ONE_OF_SEVERAL = (" The equilibrium is one of several: keeps equally good for the one choosing can differ for the "
                   "others, and the solver takes the first; docs/nplayer.md (Ties) gives every seat's range over "
                   "four tie orders.")


def _finding_felt(rl: pd.DataFrame, ref: str) -> list[str]:
    if rl.empty:
        return []
    r = rl.sort_values("rounds_p50")
    a, b = r.iloc[0], r.iloc[-1]
    one = len(r) == 1
    out = [f"**How long a game lasts** ('{ref}'; median, 90th and 99th percentile of rounds): " + _span(
        f"{a.rounds_p50}/{a.rounds_p90}/{a.rounds_p99}", f"{_q(a.variant)}, {a.players} players",
        f"{b.rounds_p50}/{b.rounds_p90}/{b.rounds_p99}", f"{_q(b.variant)}, {b.players} players", one) + "."]
    t = rl.sort_values("p_take_ge_10")
    a, b = t.iloc[0], t.iloc[-1]
    out.append(f"**What a game costs a player** ('{ref}'; tokens a player takes in a game, median/90th/99th "
               "percentile, and P(taking 10 or more)): " + _span(
                   f"{a.taken_p50}/{a.taken_p90}/{a.taken_p99}, {_pct(a.p_take_ge_10)}",
                   f"{_q(a.variant)}, {a.players} players", f"{b.taken_p50}/{b.taken_p90}/{b.taken_p99}, "
                   f"{_pct(b.p_take_ge_10)}", f"{_q(b.variant)}, {b.players} players", one) + ".")
    return out


def _finding_skill(skill: pd.DataFrame) -> list[str]:
    out = []
    for lu, g in (skill.groupby("lineup", sort=False) if not skill.empty else ()):
        top, low = g.loc[g["pay_edge"].idxmax()], g.loc[g["pay_edge"].idxmin()]

        def edge(r):
            return (f"{_pp(r.pay_edge)} (95% CI {_pp(r.fair - r.pay_ci_high)} to {_pp(r.fair - r.pay_ci_low)})",
                    f"{_q(r.variant)}, {r.players} players")
        out.append(f"**Skill ({lu}), who pays:** the {top.skilled} player pays less often than a fair share by "
                   + _span(*edge(low), *edge(top), len(g) == 1)
                   + ("; a negative value means it pays more than its share." if low.pay_edge < 0 else "."))
    return out


def findings(tables: dict[str, pd.DataFrame]) -> list[str]:
    """The detail: sentences computed from the tables (nothing here is written by hand)."""
    fair, skill = tables["fairness"], tables["skill"]
    if fair.empty:
        return _finding_skill(skill)
    ref = reference_lineup(fair)
    rl = fair[fair["lineup"] == ref]
    return (_finding_symmetry(fair, tables["seats"]) + _finding_seats_differ(fair)
            + _finding_largest(tables["scores"]) + _finding_exact_values(fair) + _finding_leading_exact(
                tables.get("leading")) + _finding_leading_sim(rl, ref) + _finding_round1(rl, ref)
            + _finding_felt(rl, ref) + _finding_skill(skill))


def _runaway_findings(tables: dict[str, pd.DataFrame], max_rounds: int) -> list[str]:
    """A sentence naming the configurations with runaway games (none if there are none)."""
    run = tables.get("runaways")
    if run is None or run.empty or not run["runaway_games"].any():
        return []
    hit = run[run["runaway_games"] > 0]
    where = "; ".join(f"{_q(r.variant)}, {r.players} players, {r.lineup}: {r.runaway_games:,} of {r.games:,}"
                      for r in hit.itertuples())
    return [f"**Runaway games:** games still running after {max_rounds:,} rounds (the study's max_rounds) "
            f"are left out of every measure above, in {len(hit)} of {len(run)} configurations ({where})."]


# ------------------------------------------------------------------ sections
def _title(facts: StudyFacts) -> list[str]:
    """The study's own title and question; a study made from flags alone is a custom study, said
    with its grid (it is not the default study even though it carries that name)."""
    custom = not facts.is_default and facts.name == DEFAULT_STUDY.name
    lines = [f"# four21sim study: {'custom study' if custom else facts.name}", ""]
    if facts.question and (facts.is_default or facts.question != DEFAULT_STUDY.question):
        lines += [f"*{facts.question}*", ""]
    else:
        players = sorted({c.players for c in facts.configs})
        lineups = list(dict.fromkeys(c.lineup.label for c in facts.configs))
        lines += [f"*A custom study: {', '.join(_q(v) for v in facts.variants)} at {_players_list(players)} players, "
                  f"line-ups {', '.join(lineups)}, {facts.games:,} games per configuration.*", ""]
    return lines


def _provenance(facts: StudyFacts, manifest: dict) -> list[str]:
    # only what produced the numbers: the run's command, commit, times and speed are in run.json (not committed)
    code = manifest.get("code") or {}
    return [f"Produced by four21sim {manifest['versions']['four21sim']} (source {code.get('source', 'unknown')}), "
            f"seed {facts.seed}, {facts.games:,} games per configuration, {manifest['games_total']:,} games in all "
            f"({manifest['games_played_total']:,} played, counting every seat's turn in the one:A/B line-ups). "
            "Every number below is computed from the tables next to this file; intervals are 95%; *exact* marks a "
            "value from the symmetry theorem (docs/fairness.md) or a solver." + _rewritten(manifest), ""]


def _rewritten(manifest: dict) -> str:
    r = manifest.get("rewritten")
    if not r:
        return ""
    return (f" The tables derived from the games, the figures and this report were rewritten from them by "
            f"four21sim {r['four21sim']} (source {r.get('source', 'unknown')}), without playing a game again.")


def _section_verdicts(tables, folder) -> list[str]:
    v = verdicts(tables, folder)
    if not v:
        return []
    head = tables["scores"][tables["scores"]["headline"]]
    opt = sorted(set(head.loc[head["lineup"] == HEADLINE_LINEUP, "players"]))
    habits = list(dict.fromkeys(head.loc[head["lineup"] != HEADLINE_LINEUP, "lineup"]))
    what = ", ".join(f"{n}: the {'optimum' if n == 2 else 'equilibrium'}" for n in opt)
    play = (f"optimal play where this study plays it ({what})" if opt else "") + \
        (" and elsewhere " if opt and habits else "") + (f"everyone '{habits[0]}'" if habits else "")
    return ["## Verdicts", "",
            f"In drinks: the game's loser buys a round, one drink for each player, so a seat that pays with "
            f"probability P at a table of n pays n·P − 1 drinks a game beyond its own (0 is fair; −0.1 saves a "
            f"drink every 10 games; over an evening of {EVENING} games, {EVENING} times that). Each value is for "
            f"the play named: {play}.{_optimal_elsewhere(folder, opt, head)}", ""] + [f"- {s}" for s in v] + [""]


# committed studies beside a results folder that hold optimal play at more players
_OPTIMAL_ELSEWHERE = (("optimal_check/REPORT.md", "3 players, simulated against the equilibrium"),
                      ("nplayer/REPORT.md", "4 and 5 players, exact"))


def _optimal_elsewhere(folder, opt: list, head: pd.DataFrame) -> str:
    """Links to the committed studies of optimal play at the table sizes this study plays habits at."""
    if folder is None or not (set(head["players"]) - set(opt)):
        return ""
    links = [f"[{what}](../{rel})" for rel, what in _OPTIMAL_ELSEWHERE if (folder / ".." / rel).exists()]
    return f" Optimal play at more players: {', '.join(links)}." if links else ""


def _section_findings(tables, facts) -> list[str]:
    return ["## Findings", ""] + [f"- {s}" for s in findings(tables) + _runaway_findings(tables, facts.max_rounds)] \
        + [""]


def _section_drinks(tables) -> list[str]:
    sc = tables.get("scores", pd.DataFrame())
    if sc.empty:
        return []
    t = pd.DataFrame({
        "variant": sc["variant"], "players": sc["players"],
        "play": [("**" + _play(lu, n) + "**") if h else _play(lu, n)
                 for lu, n, h in zip(sc["lineup"], sc["players"], sc["headline"])],
        "first leader, drinks a game": [
            "0 (exactly 1/n: symmetry)" if s else _with_iv(v, lo, hi)
            for s, v, lo, hi in zip(sc["symmetric"], sc["lead_drinks"], sc["lead_drinks_low"], sc["lead_drinks_high"])],
        f"over {EVENING} games": [f"{_dr(EVENING * v, 1)}" if not s else "0" for s, v in zip(sc["symmetric"],
                                                                                           sc["lead_drinks"])],
        "largest gap, drinks a game": [
            "0 (exact)" if s else (f"{g:.3f} (exact)" if _nan(lo) else f"{g:.3f} [{lo:.3f}, {hi:.3f}]")
            for s, g, lo, hi in zip(sc["symmetric"], sc["gap_drinks"], sc["gap_drinks_low"], sc["gap_drinks_high"])],
        "pays most / least": [f"seat {a} {_dr(x)}, seat {b} {_dr(y)}" if a >= 0 else "no seat stands out"
                              for a, x, b, y in zip(sc["most_seat"], sc["most_drinks"], sc["least_seat"],
                                                    sc["least_drinks"])],
        "source": sc["source"],
    })
    return ["## Who pays, in drinks", "",
            "Per variant, table size and line-up (every seat playing alike; bold: the play the verdicts use): "
            "what the first leader pays beyond its share, in drinks a game and over an evening; the largest gap "
            "of any seat (simultaneous 95% interval over the seats, conservative); the seats that pay most and "
            "least, named only where the seat test (Holm) or an exact value shows they differ. `source`: "
            "symmetry (the theorem: exactly 0), solver (exact), or simulation.", "", _md_table(t), ""]


def _section_seats(tables) -> list[str]:
    fair, seats = tables["fairness"], tables.get("seats", pd.DataFrame())
    if fair.empty:
        return []
    cells = {}
    for (v, n, lu), g in seats.groupby(["variant", "players", "lineup"], sort=False):
        cells[(v, n, lu)] = ", ".join(f"{_dr(d, 3)}" for d in g["drinks"])
    t = pd.DataFrame({
        "variant": fair["variant"], "players": fair["players"], "line-up": fair["lineup"],
        "simulated drinks a game, seat 0, 1, ...": [cells.get((v, n, lu), "") for v, n, lu in
                                                    zip(fair["variant"], fair["players"], fair["lineup"])],
        "± (95%, one seat)": [f"{fair.players.iloc[i] * (fair.seat0_pays_high.iloc[i] - fair.seat0_pays.iloc[i]):.3f}"
                              for i in range(len(fair))],
        "exact": [(f"every seat exactly 1/{n} (symmetry)" if s else "solver" if src == "solver" else "")
                  for s, src, n in zip(fair["symmetric"], fair["exact_source"], fair["players"])],
        "test p (Holm)": fair["pay_test_p_holm"].map(_p),
        "win test p (Holm)": fair["seat_test_win_p_holm"].map(_p),
        "first-player adv. (pp)": [f"{100 * v:+.2f} [{100 * a:+.2f}, {100 * b:+.2f}]" for v, a, b in
                                   zip(fair["first_player_advantage"], fair["fpa_low"], fair["fpa_high"])],
        "exact adv. (pp)": fair["fpa_exact"].map(lambda x: "" if _nan(x) else f"{round(100 * x, 4) + 0.0:+.3f}"),
        "same games as": fair["same_games_as"],
    })
    return ["## Seat by seat (simulated)", "",
            "Every seat's simulated drinks a game beyond its share (`± ` is seat 0's 95% half-width; the others' are "
            "alike), the joint test that every seat pays equally (Hotelling's T² on the per-game pay shares, "
            "Holm-adjusted over the distinct configurations the theorem does not settle; blank where it settles "
            "them: there the test only checks the engine), the same on win shares, and the first player's win "
            "advantage. `same games as`: this configuration plays exactly the games of another one.", "",
            _md_table(t), ""]


def _section_fair_vs_skill(tables) -> list[str]:
    fvs = tables.get("fair_vs_skill")
    if fvs is None or fvs.empty:
        return []
    ref = reference_lineup(tables["fairness"])
    skill_lus = [c[len("skill_pay_edge["):-1] for c in fvs.columns if c.startswith("skill_pay_edge[")]
    t = pd.DataFrame({
        "variant": fvs["variant"], "players": fvs["players"],
        "no decision": fvs["p_no_decision"].map(lambda x: f"{100 * x:.1f}%"),
        **{f"skill: pays less, {lu[4:]} (pp)": [
            "" if _nan(v) else f"{100 * v:+.2f} [{100 * a:+.2f}, {100 * b:+.2f}]"
            for v, a, b in zip(fvs[f"skill_pay_edge[{lu}]"], fvs[f"skill_pay_edge_low[{lu}]"],
                               fvs[f"skill_pay_edge_high[{lu}]"])] for lu in skill_lus},
        "lead value, décharge (exact)": fvs["lead_value_decharge_exact"].map(
            lambda x: "" if _nan(x) else f"{100 * x:+.2f} pp"),
        "leader loses a décharge round": [("" if _nan(v) else f"{100 * v:.1f}% [{100 * a:.1f}, {100 * b:.1f}]")
                                          for v, a, b in zip(fvs["leader_loses_decharge"],
                                                             fvs["leader_loses_decharge_low"],
                                                             fvs["leader_loses_decharge_high"])],
        "round-1 loser pays": [f"{100 * v:.1f}% [{100 * a:.1f}, {100 * b:.1f}]" for v, a, b in
                               zip(fvs["r1_loser_p_pay"], fvs["r1_loser_p_pay_low"], fvs["r1_loser_p_pay_high"])],
        "seats pay equally?": ["exactly (symmetry)" if s else "no (Holm 5%)" if p < 0.05 else "cannot tell"
                               for s, p in zip(fvs["symmetric"], fvs["pay_test_p_holm"])],
    })
    return ["## Fairness against skill", "",
            f"Per variant and player count ('{ref}'): the share of games in which nobody decides anything (every "
            "round thrown with a 1-throw limit), the skill edge (one skilled player among habit players: how much "
            "less often than 1/players it pays), the value of leading (exact, 2 and 3 players, optimal play: mean "
            "over the décharge states a game visits of P(pay | another leads) − P(pay | I lead); simulated: the "
            "leader's per-round chance of losing a décharge round), the round-1 loser's chance of paying, and "
            "whether the seats pay equally. Equal seats do not make a game of chance: where the theorem makes the "
            "seats equal, skill and leading still count.", "", _md_table(t), ""]


def _rate(fair: pd.DataFrame, col: str) -> list[str]:
    return [("" if _nan(v) else f"{100 * v:.1f}% [{100 * a:.1f}, {100 * b:.1f}]")
            for v, a, b in zip(fair[col], fair[f"{col}_low"], fair[f"{col}_high"])]


def _section_leading(tables) -> list[str]:
    fair, lead = tables["fairness"], tables.get("leading")
    lines = []
    if not fair.empty:
        t = pd.DataFrame({
            "variant": fair["variant"], "players": fair["players"], "line-up": fair["lineup"],
            "fair, charge": fair["round_fair_charge"].map(lambda x: "" if _nan(x) else f"{100 * x:.1f}%"),
            "leader loses, charge": _rate(fair, "leader_loses_charge"),
            "1st follower loses, charge": _rate(fair, "follower1_loses_charge"),
            "fair, décharge": fair["round_fair_decharge"].map(lambda x: "" if _nan(x) else f"{100 * x:.1f}%"),
            "leader loses, décharge": _rate(fair, "leader_loses_decharge"),
            "1st follower loses, décharge": _rate(fair, "follower1_loses_decharge"),
            "round-1 loser wins the game": _rate(fair, "r1_loser_p_win"),
            "round-1 loser pays": _rate(fair, "r1_loser_p_pay"),
        })
        lines += ["## The value of leading", "",
                  "The leader of a round chooses the number of throws; the others must match it. Per round, the "
                  "chance that the leader, and the first player after it, lose the round, by phase, over every "
                  "round of every game (intervals from blocks of games: rounds of a game are correlated), next to "
                  "the fair rate (1/players at the table, averaged over the phase's rounds: under last_holder "
                  "players go out during the décharge); and what losing the first round means for the game.", "",
                  _md_table(t), ""]
    if lead is not None and not lead.empty:
        t = pd.DataFrame({
            "variant": lead["variant"], "players": lead["players"],
            "charge: mean [min, max] (pp)": [f"{_pp(a)} [{_pp(b)}, {_pp(c)}]" if not _nan(a) else ""
                                             for a, b, c in zip(lead["charge_mean"], lead["charge_min"],
                                                                lead["charge_max"])],
            "décharge: mean [min, max] (pp)": [f"{_pp(a)} [{_pp(b)}, {_pp(c)}]" if not _nan(a) else ""
                                               for a, b, c in zip(lead["decharge_mean"], lead["decharge_min"],
                                                                  lead["decharge_max"])],
            "décharge, drinks a game": [f"{n * a:.3f}" if not _nan(a) else "" for n, a in
                                        zip(lead["players"], lead["decharge_mean"])],
            "first round (pp)": lead["first_round"].map(lambda x: _pp(0.0 if abs(x) < 1e-12 else x, 3)),
            "round-1 loser wins": lead["round1_loser_wins"].map(lambda x: "" if _nan(x) else f"{100 * x:.2f}%"),
        })
        lines += ["Exact, everyone playing optimally (2 players: the solver's optimum; 3 players and more: the "
                  "equilibrium where each minimises its own P(pay)): the value of leading a round, P(pay | one "
                  "of the others leads it) − P(pay | I lead it) with the same tokens (with 2 players: P(win | "
                  "lead) − P(win | follow)), over the states of each phase (mean weighted by how often a game "
                  "visits them, smallest, largest), the décharge mean in drinks a game (players × the mean); "
                  "the first round's value; and the round-1 loser's chance of winning the game (2 players).", "",
                  _md_table(t), ""]
    return lines


def _section_felt(tables) -> list[str]:
    fair = tables["fairness"]
    if fair.empty:
        return []
    t = pd.DataFrame({
        "variant": fair["variant"], "players": fair["players"], "line-up": fair["lineup"],
        "rounds p50/p90/p99": [f"{a}/{b}/{c}" for a, b, c in zip(fair["rounds_p50"], fair["rounds_p90"],
                                                                  fair["rounds_p99"])],
        "tokens taken p50/p90/p99": [f"{a}/{b}/{c}" for a, b, c in zip(fair["taken_p50"], fair["taken_p90"],
                                                                        fair["taken_p99"])],
        **{f"P(take >= {k})": fair[f"p_take_ge_{k}"].map(lambda x: f"{100 * x:.1f}%") for k in TAKE_AT_LEAST},
        "decided in charge": fair["p_decided_in_charge"].map(lambda x: f"{100 * x:.1f}%"),
    })
    return ["## What a player feels", "",
            "Percentiles of the number of rounds of a game and of the tokens one player takes in a game (as a "
            "round's loser), and the chance of taking at least k tokens in a game (from the full histograms of all "
            "games, no sampling beyond the study's).", "", _md_table(t), ""]


def _section_skill(tables) -> list[str]:
    skill = tables["skill"]
    if skill.empty:
        return []
    t = pd.DataFrame({
        "variant": skill["variant"], "players": skill["players"], "line-up": skill["lineup"],
        "fair": skill["fair"].map(lambda x: f"{100 * x:.1f}%"),
        "skilled pays": [f"{100 * v:.2f}% [{100 * a:.2f}, {100 * b:.2f}]"
                         for v, a, b in zip(skill["pay_score"], skill["pay_ci_low"], skill["pay_ci_high"])],
        "pays less by": skill["pay_edge"].map(lambda x: f"{100 * x:+.2f} pp"),
        "in drinks a game": [f"{_dr(-n * x)}" for n, x in zip(skill["players"], skill["pay_edge"])],
        "skilled win share": [f"{100 * v:.2f}% [{100 * a:.2f}, {100 * b:.2f}]"
                              for v, a, b in zip(skill["score"], skill["ci_low"], skill["ci_high"])],
        "exact": skill["score_exact"].map(lambda x: "" if _nan(x) else f"{100 * x:.2f}%"),
        "win edge": skill["edge"].map(lambda x: f"{100 * x:+.2f} pp"),
    })
    return ["## Skill against luck", "",
            "One skilled player among habit players, taking every seat in turn on the same games: how often it pays "
            "(what a bar cares about; in drinks a game beyond its share, negative: it saves) and its win share, "
            "against the fair 1/players. With 2 players one is the complement of the other; with more they differ, "
            "and `optimal` at 3 players (the equilibrium) plays not to pay, not to win.", "", _md_table(t), ""]


def _check_rows(tables) -> list[dict]:
    """One row per configuration with an exact value: its z-scores (simulated - exact) / se."""
    fair, seats = tables["fairness"], tables.get("seats", pd.DataFrame())
    rows = []
    for r in (fair[fair["exact_source"] != ""].itertuples() if not fair.empty else []):
        st = seats[(seats["variant"] == r.variant) & (seats["players"] == r.players) & (seats["lineup"] == r.lineup)]
        se = (st["pays_high"] - st["pays_low"]) / (2 * 1.959963984540054)
        zp = ((st["pays"] - st["pays_exact"]) / se.where(se > 0)).fillna(0.0)
        zs = {"win": (r.first_player_advantage - r.fpa_exact) / r.fpa_se if r.fpa_se > 0 else 0.0,
              "pay": float(zp.abs().max())}
        if not _nan(r.mean_rounds_exact):
            zs["rounds"] = (r.mean_rounds - r.mean_rounds_exact) / r.mean_rounds_se if r.mean_rounds_se > 0 else 0.0
        k = len(zs) - 1 + r.players  # every z of the row: seat 0's win share, each seat's pay, rounds
        cut = z_for(1 - 0.001 / k)
        rows.append({"variant": r.variant, "players": r.players, "line-up": r.lineup, "exact from": r.exact_source,
                     "games": f"{r.games:,}", "z, seat 0 win share": f"{zs['win']:+.2f}",
                     "largest abs(z), a seat's P(pay)": f"{zs['pay']:.2f}",
                     "z, mean rounds": f"{zs['rounds']:+.2f}" if "rounds" in zs else "",
                     "passes (99.9%)": "yes" if max(abs(zs["win"]), zs["pay"], abs(zs.get("rounds", 0))) <= cut
                     else "NO"})
    skill = tables["skill"]
    for r in skill[skill["score_exact"].notna()].itertuples() if not skill.empty else []:
        se = (r.ci_high - r.ci_low) / (2 * 1.959963984540054)
        z = (r.score - r.score_exact) / se if se > 0 else 0.0
        rows.append({"variant": r.variant, "players": r.players, "line-up": r.lineup, "exact from": "solver",
                     "games": f"{r.games:,}", "z, seat 0 win share": f"{z:+.2f} (skilled share)",
                     "largest abs(z), a seat's P(pay)": "", "z, mean rounds": "",
                     "passes (99.9%)": "yes" if abs(z) <= Z999 else "NO"})
    return rows


def _section_exact_check(tables) -> list[str]:
    rows = _check_rows(tables)
    if not rows:
        return []
    ok = sum(r["passes (99.9%)"] == "yes" for r in rows)
    return ["## Exact check", "",
            "The simulation against the exact values of the same line-up: from the symmetry theorem (every seat "
            "pays and wins exactly 1/players) or from the solvers (2 players: Markov chain of the fixed policies; "
            "3 players and more: the equilibrium's values). z = (simulated − exact) / standard error, for seat 0's win "
            "share, every seat's P(pay) (the largest |z| is shown) and the mean number of rounds; a correct engine "
            "passes a row with probability at least 99.9% (each z within the two-sided 1 − 0.001/k quantile, k the "
            f"row's number of z). {ok} of {len(rows)} rows pass.", "", _md_table(pd.DataFrame(rows)), ""]


def _section_tail(figures: dict, manifest: dict) -> list[str]:
    lines = []
    if figures:
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
              "- `distributions.parquet`: game length and token swing histograms, and `taken`: tokens taken per "
              "player per game.",
              "- `scores.parquet` (who pays, in drinks), `seats.parquet` (every seat, simulated and exact), "
              "`fairness.parquet`, `fair_vs_skill.parquet`, `leading.parquet`, `skill.parquet`, `exact.parquet`: "
              "the tables above (every column in docs/results.md).",
              "- `runaways.parquet`: games per configuration still running after the round limit.",
              "- `manifest.json`: the study, the seed, versions, commit, times and speed.", ""]
    return lines


# ------------------------------------------------------------------ the report
def _facts(study, manifest: dict) -> StudyFacts:
    """What the report reads of the study (isolated here: see :class:`~four21sim.study.tables.StudyFacts`)."""
    if isinstance(study, StudyFacts):
        return study
    if isinstance(study, Study):
        configs = [Config(c["variant"], Variant(**c["options"]), int(c["players"]), parse_lineup(c["lineup"]))
                   for c in manifest.get("configurations", [])]
        return StudyFacts.of(study, configs)
    raise ValueError(f"study: {study!r} is not allowed; allowed: a Study or StudyFacts")


def _results_folder(path: Path) -> Path:
    """The results folder a report is written for: the report's folder, or, while the outputs are
    staged (:func:`four21sim.study.folder.stage_path`), the folder they are for: ``.NAME.PID.tmp``
    beside it, or ``.outputs.PID.tmp`` inside it."""
    here = Path(path).resolve().parent
    parts = here.name.split(".")
    if len(parts) >= 4 and parts[0] == "" and parts[-1] == "tmp" and parts[-2].isdigit():
        name = ".".join(parts[1:-2])
        return here.parent if name == "outputs" else here.parent / name
    return here


def render_report(facts: StudyFacts, manifest: dict, tables: dict[str, pd.DataFrame], figures: dict[str, str],
                  folder: Path | None = None) -> str:
    """REPORT.md's text: verdicts first, then the detail; a section without data is left out."""
    lines = _title(facts) + _provenance(facts, manifest) + _section_verdicts(tables, folder) \
        + _section_findings(tables, facts) + _section_drinks(tables) + _section_seats(tables) \
        + _section_fair_vs_skill(tables) + _section_leading(tables) + _section_felt(tables) \
        + _section_skill(tables) + _section_exact_check(tables) + _section_tail(figures, manifest)
    return "\n".join(lines)


def write_report(path, study, manifest: dict, tables: dict[str, pd.DataFrame], figures: dict[str, str]) -> None:
    """Write REPORT.md (atomically) next to the tables and figures.

    ``study``: the :class:`~four21sim.study.spec.Study` (its configurations are read from the
    manifest) or :class:`~four21sim.study.tables.StudyFacts`.
    """
    from .tasks import write_text_atomic
    text = render_report(_facts(study, manifest), manifest, tables, figures, _results_folder(path))
    write_text_atomic(path, text)




def rewrite(folder) -> Path:
    """Bring a results folder written by an older version up to this one, without playing a game:
    the derived tables (:func:`four21sim.study.tables.rebuild`), the figures and REPORT.md, each
    written in whole; the manifest records the rewrite (version and commit). Returns the folder.

    ``python -c "from four21sim.study.report import rewrite; rewrite('results/default')"``
    """
    import json
    import shutil

    import matplotlib
    matplotlib.use("Agg")

    from .. import __version__
    from .._util.atomic import atomic_path, temp_path, write_text_atomic
    from .._util.source import source_fingerprint
    from . import figures as plots
    from .load import load
    from .tables import rebuild
    folder = Path(folder)
    res = load(folder)
    tables, facts = rebuild(res)
    for name, df in tables.items():
        with atomic_path(folder / f"{name}.parquet") as tmp:
            df.to_parquet(tmp, index=False)
    for old in set(res.tables) - set(tables):
        (folder / f"{old}.parquet").unlink(missing_ok=True)
    stage = temp_path(folder / "figures", suffix="")
    stage.mkdir()
    rels = {}
    for i, (title, fig) in enumerate(plots.report_figures(tables).items()):
        rel = f"figures/{plots.figure_name(i, title)}"
        plots.save(fig, stage / Path(rel).name)
        rels[title] = rel
    shutil.rmtree(folder / "figures", ignore_errors=True)
    stage.rename(folder / "figures")
    manifest = dict(res.manifest)
    manifest["files"] = [f"{n}.parquet" for n in tables] + list(rels.values()) + ["REPORT.md", "manifest.json",
                                                                                   "study.json"]
    manifest["rewritten"] = {"by": "four21sim.study.report.rewrite", "four21sim": __version__,
                             "source": source_fingerprint()}
    write_text_atomic(folder / "REPORT.md", render_report(facts, manifest, tables, rels, folder.resolve()))
    write_text_atomic(folder / "manifest.json", json.dumps(manifest, indent=2, default=str))
    return folder
