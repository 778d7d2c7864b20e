"""From part files to tidy result tables: measures, distributions, skill, fairness.

Definitions used in the tables and the report
---------------------------------------------
first-player advantage
    seat 0's win share minus 1/players (seat 0 leads the first round).
win share
    1/k to each of k joint winners, so the shares of a game sum to 1.
seat test (win / pay)
    Hotelling's T**2 test that every seat's win share (or pay share) is 1/players, on
    the per-game share vectors, covariance from blocks of games (``stats.equal_shares_test``);
    valid whatever the number of winners and losers. p-values in ``seat_test_win_p`` and
    ``pay_test_p``; ``pay_test_p_holm`` is Holm-adjusted over the study's distinct
    configurations (identical games counted once, ``same_games_as``).
pay unfairness, fairness score, tied groups
    see :mod:`four21sim.study.fairness`.
max seat deviation
    ``max_s |share_s - 1/n| * n``: the largest relative advantage or handicap of a
    seat (0.05 means some seat wins 5% more, or less, often than a fair share).
no decision
    the share of games in which nobody had a choice: every round of the game was
    thrown with a 1-throw limit (a 1-throw charge and the game decided in the charge,
    or 1-throw limits in both phases). Such games are pure chance.
skill edge
    in a ``one:A/B`` line-up, A's mean win share over the seats minus 1/players.
runaway games
    games still running after the study's ``max_rounds`` rounds: left out of every
    measure (for one:A/B, a game that runs away in any seat rotation is left out
    of all of them) and counted per configuration in the ``runaways`` table; a
    configuration whose every game ran away is in that table only.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from .. import policies
from ..engine.simulation import DISTRIBUTIONS, PHASES, SimulationResult
from ..engine.stats import Z95, holm
from .fairness import games_identity, hist_quantiles, score_with_interval, tied_groups
from .spec import Config, Study
from .tasks import SHARE_UNIT, make_tasks, merge_counters, part_identity, part_keys, part_path, read_part

__all__ = ["merge_parts", "build_tables", "REFERENCE_LINEUP"]

REFERENCE_LINEUP = "greedy"
TABLE_POLICIES = policies.TABLE_POLICIES


def merge_parts(study: Study, configs: list[Config], out: Path) -> list[dict]:
    """Sum every configuration's part files, in block order (:func:`~four21sim.study.tasks.merge_counters`).
    Raises if any part is missing, or does not belong to its place (see
    :func:`four21sim.study.tasks.check_part`)."""
    parts: list[list] = [[] for _ in configs]
    for t in make_tasks(len(configs), study.games, study.task_games):
        c = configs[t.config]
        path = part_path(out, c, t.block)
        part = read_part(path, part_keys(c), part_identity(study, c, t), c)
        if part is None:
            raise RuntimeError(f"part file {path} is missing or unreadable: the run is incomplete; "
                               "run the same command again to finish it")
        parts[t.config].append(part)
    return [merge_counters(p) for p in parts]


def _config_cols(c: Config) -> dict:
    return {"variant": c.label, "players": c.players, "lineup": c.lineup.label}


def build_tables(study: Study, configs: list[Config], merged: list[dict]) -> dict[str, pd.DataFrame]:
    """Tidy tables: measures, distributions, skill, fairness, runaways, scores (and exact, for 2 and 3 players)."""
    measures, dists, skill, fair, runaways = [], [], [], [], []
    shares: dict = {}
    exact_rows = _exact_rows(study, configs) if study.exact else []
    exact = {(r["variant"], r["players"], r["lineup"]): r for r in exact_rows}
    for c, cnt in zip(configs, merged):
        cols = _config_cols(c)
        if c.lineup.kind == "one":
            n = c.players
            g = int(cnt["one_games"][0])
            runaways.append(dict(cols, games=study.games, runaway_games=int(cnt["one_runaway"][0])))
            if g == 0:  # every game ran away: nothing to measure
                continue
            def mean_ci(what: str, cnt=cnt, n=n, g=g) -> tuple[float, float]:
                # per game: A's share averaged over its seat rotations (paired, common random numbers)
                mean = float(cnt[f"one_{what}sum"][0]) / (n * SHARE_UNIT * g)
                ex2 = float(cnt[f"one_{what}sumsq"][0]) / ((n * SHARE_UNIT) ** 2 * g)
                return mean, Z95 * math.sqrt(max(ex2 - mean * mean, 0.0) / g)

            mean, half = mean_ci("")
            pay, pay_half = mean_ci("pay_")
            row = dict(cols, skilled=c.lineup.a, habit=c.lineup.b, games=g, score=mean, ci_low=mean - half,
                       ci_high=mean + half, fair=1 / n, edge=mean - 1 / n, pay_score=pay,
                       pay_ci_low=pay - pay_half, pay_ci_high=pay + pay_half, pay_edge=1 / n - pay)
            for s in range(n):
                row[f"score_seat{s}"] = float(cnt["one_by_seat"][s]) / (SHARE_UNIT * g)
            ex = exact.get((c.label, n, c.lineup.label))
            row["score_exact"] = ex["score_exact"] if ex else math.nan
            skill.append(row)
            continue
        res = SimulationResult(c.variant, c.players, [c.lineup.a] * c.players, study.games, study.seed, 0, cnt)
        runaways.append(dict(cols, games=study.games, runaway_games=res.runaways))
        if res.finished == 0:
            continue
        m = res.measures()
        m = pd.concat([pd.DataFrame([cols] * len(m)), m.reset_index(drop=True)], axis=1)
        measures.append(m)
        for which in DISTRIBUTIONS:
            d = res.distribution(which)
            d.insert(0, "which", which)
            dists.append(pd.concat([pd.DataFrame([cols] * len(d)), d], axis=1))
        seats = res.seats()
        n = c.players
        fpa, lo, hi = res.first_player_advantage()
        mm = m.set_index("measure")
        ex = exact.get((c.label, n, c.lineup.label))
        row = dict(cols, games=res.finished, first_player_advantage=fpa, fpa_low=lo, fpa_high=hi,
                   fpa_exact=(ex["p_seat0_exact"] - 1 / n) if ex else math.nan,
                   max_seat_deviation=float(np.max(np.abs(seats.win_share - 1 / n)) * n),
                   seat_test_win_p=res.seat_test("win")["p"], fpa_se=(hi - lo) / (2 * Z95),
                   mean_rounds=float(mm.loc["mean_rounds", "value"]),
                   mean_rounds_se=float(mm.loc["mean_rounds", "ci_high"] - mm.loc["mean_rounds", "ci_low"])
                   / (2 * Z95),
                   mean_rounds_exact=ex["expected_rounds_exact"] if ex else math.nan,
                   p_decided_in_charge=float(mm.loc["p_decided_in_charge", "value"]),
                   mean_swing_round=float(mm.loc["mean_swing_round", "value"]),
                   mean_swing_game=float(mm.loc["mean_swing_game", "value"]))
        row.update(_paying_seat(res, c))
        row["seat0_pays_exact"] = ex["seat0_pays_exact"] if ex else math.nan
        row["pay_unfairness_exact"] = ex["pay_unfairness_exact"] if ex else math.nan
        row.update(_leading(res))
        row.update(_felt(res))
        row["games_id"] = games_identity(cnt)
        fair.append(row)
        shares[(c.label, c.players, c.lineup.label)] = res.share_mean_cov("lose")
    tables = {
        "measures": pd.concat(measures, ignore_index=True) if measures else pd.DataFrame(),
        "distributions": pd.concat(dists, ignore_index=True) if dists else pd.DataFrame(),
        "skill": pd.DataFrame(skill),
        "fairness": pd.DataFrame(fair),
        "exact": pd.DataFrame(exact_rows),
        "runaways": pd.DataFrame(runaways),
    }
    _multiplicity(tables["fairness"])
    tables["scores"] = fairness_scores(tables["fairness"], shares)
    tables["robustness"] = robustness(tables["fairness"], shares)
    tables["leading"] = leading_table(study, configs)
    tables["fair_vs_skill"] = fair_vs_skill(tables["fairness"], tables["skill"], tables["leading"])
    return tables


def reference_lineup(fair: pd.DataFrame) -> str | None:
    if fair.empty:
        return None
    lineups = list(dict.fromkeys(fair["lineup"]))
    return REFERENCE_LINEUP if REFERENCE_LINEUP in lineups else lineups[0]


def _paying_seat(res: SimulationResult, c: Config) -> dict:
    """Who pays: seat 0's and the extreme seats' pay shares, the joint test, the unfairness."""
    seats = res.seats()
    t = res.seat_test("lose")
    u, ulo, uhi = res.pay_unfairness()
    worst = seats.loc[(seats["lose_share"] - 1 / c.players).abs().idxmax()]
    return dict(seat0_pays=float(seats.lose_share[0]), seat0_pays_low=float(seats.lose_share_low[0]),
                seat0_pays_high=float(seats.lose_share_high[0]),
                pays_min=float(seats.lose_share.min()), pays_max=float(seats.lose_share.max()),
                worst_seat=int(worst.seat), worst_seat_pays=float(worst.lose_share),
                worst_seat_pays_low=float(worst.lose_share_low), worst_seat_pays_high=float(worst.lose_share_high),
                pay_test_f=t["f"], pay_test_p=t["p"], pay_unfairness=u, pay_unfairness_low=ulo,
                pay_unfairness_high=uhi,
                p_no_decision=_p_no_decision(res))


def _p_no_decision(res: SimulationResult) -> float:
    """Share of games in which every round had a 1-throw limit: nobody decided anything."""
    v = res.variant
    if v.charge_throws == 1 and v.decharge_throws == 1:
        return 1.0
    if v.charge_throws == 1:
        return float(res.counters["decided_in_charge"]) / res.finished
    return 0.0


def _leading(res: SimulationResult) -> dict:
    """Per-round loss rates of the leader and of the first follower by phase; the round-1 loser."""
    out = {}
    pr = res.position_rates().set_index(["phase", "position"])
    for phase in PHASES:
        here = pr.xs(phase, level="phase") if phase in pr.index.get_level_values("phase") else None
        out[f"round_fair_{phase}"] = float(here["fair"].iloc[0]) if here is not None else math.nan
        for pos, name in ((0, "leader"), (1, "follower1")):
            if (phase, pos) in pr.index:
                r = pr.loc[(phase, pos)]
                out.update({f"{name}_loses_{phase}": r.p_lose, f"{name}_loses_{phase}_low": r.p_lose_low,
                            f"{name}_loses_{phase}_high": r.p_lose_high})
            else:
                out.update({f"{name}_loses_{phase}": math.nan, f"{name}_loses_{phase}_low": math.nan,
                            f"{name}_loses_{phase}_high": math.nan})
    r1 = res.round1_loser()
    for key in ("p_win", "p_pay"):
        v, lo, hi = r1[key]
        out.update({f"r1_loser_{key}": v, f"r1_loser_{key}_low": lo, f"r1_loser_{key}_high": hi})
    return out


TAKE_AT_LEAST = (5, 10, 15, 20)


def _felt(res: SimulationResult) -> dict:
    """Distributions a player feels: game length and tokens taken per player per game."""
    out = {}
    rounds = res.counters["rounds"]
    taken = res.counters["taken"]
    for name, h in (("rounds", rounds), ("taken", taken)):
        for q, v in zip(("p50", "p90", "p99"), hist_quantiles(h)):
            out[f"{name}_{q}"] = v
    total = taken.sum()
    for k in TAKE_AT_LEAST:
        out[f"p_take_ge_{k}"] = float(taken[k:].sum() / total) if total else math.nan
    return out


def _multiplicity(fair: pd.DataFrame) -> None:
    """Mark configurations that play the same games, and Holm-adjust the pay test over the
    distinct ones (each group of identical configurations counted once)."""
    if fair.empty:
        return
    first = fair.groupby("games_id", sort=False).head(1)
    label = {r.games_id: f"{r.variant}, {r.players}p, {r.lineup}" for r in first.itertuples()}
    fair["same_games_as"] = [label[g] if i not in first.index else "" for i, g in zip(fair.index, fair["games_id"])]
    adj = pd.Series(holm(first["pay_test_p"].to_numpy()), index=first["games_id"].to_numpy())
    fair["pay_test_p_holm"] = fair["games_id"].map(adj)
    adj_w = pd.Series(holm(first["seat_test_win_p"].to_numpy()), index=first["games_id"].to_numpy())
    fair["seat_test_win_p_holm"] = fair["games_id"].map(adj_w)


def _scores_for(fair: pd.DataFrame, shares: dict, lineup: str) -> pd.DataFrame:
    sub = fair[fair["lineup"] == lineup]
    rows = []
    for variant, g in sub.groupby("variant", sort=False):
        score, lo, hi = score_with_interval([shares[(variant, p, lineup)] for p in g["players"]])
        worst = g.loc[g["pay_unfairness"].idxmax()]
        rows.append(dict(variant=variant, fairness_score=100 * score, score_low=100 * lo, score_high=100 * hi,
                         worst_players=int(worst.players), worst_pay_unfairness=100 * float(worst.pay_unfairness),
                         unfair_configs=int((g["pay_test_p_holm"] < 0.05).sum()), lineup=lineup,
                         players=",".join(str(p) for p in g["players"])))
    df = pd.DataFrame(rows)
    if df.empty:
        return df
    df["group"] = tied_groups(df["fairness_score"], df["score_low"], df["score_high"])
    return df.sort_values(["group", "fairness_score"], kind="stable").reset_index(drop=True)


def fairness_scores(fair: pd.DataFrame, shares: dict) -> pd.DataFrame:
    """One fairness score per variant (:mod:`four21sim.study.fairness`) under the reference line-up,
    in tied groups (group 1 = the fairest that noise cannot separate)."""
    ref = reference_lineup(fair)
    if ref is None:
        return pd.DataFrame(columns=["group", "variant", "fairness_score", "score_low", "score_high", "lineup",
                                     "players"])
    return _scores_for(fair, shares, ref)


def robustness(fair: pd.DataFrame, shares: dict) -> pd.DataFrame:
    """The fairness score and tied group of every variant under every everyone-plays-X line-up."""
    if fair.empty:
        return pd.DataFrame()
    frames = [_scores_for(fair, shares, lu) for lu in dict.fromkeys(fair["lineup"])]
    return pd.concat([f for f in frames if not f.empty], ignore_index=True)


def leading_table(study: Study, configs: list[Config]) -> pd.DataFrame:
    """The exact value of leading per variant: 2 players, both optimal, for every variant the
    solver takes; 3 players, at the equilibrium, for the variants the study plays ``optimal``
    with 3 players (:mod:`four21sim.exact.leading`)."""
    from ..exact.leading import lead_summary, lead_summary3
    from ..exact.two_player import MAX_SOLVER_TOKENS
    rows = []
    if not study.exact:
        return pd.DataFrame()
    wanted = {}
    for c in configs:
        if c.variant.tokens <= MAX_SOLVER_TOKENS:
            wanted.setdefault((c.label, 2), c.variant)
    for c in configs:
        if _three_optimal(c):
            wanted.setdefault((c.label, 3), c.variant)
    for (label, n), variant in wanted.items():
        ls = lead_summary(variant) if n == 2 else lead_summary3(variant)
        r1 = ls["round1_loser_wins"]
        row = dict(variant=label, players=n, first_round=ls["first_round"],
                   round1_loser_wins=math.nan if r1 is None else r1)
        for phase in PHASES:
            b = ls["by_phase"].get(phase)
            for key, name in (("weighted_mean", "mean"), ("min", "min"), ("max", "max")):
                # values within 1e-12 of 0 are exact zeros computed in floating point
                x = b[key] if b else math.nan
                row[f"{phase}_{name}"] = 0.0 if abs(x) < 1e-12 else x
        rows.append(row)
    return pd.DataFrame(rows)


def fair_vs_skill(fair: pd.DataFrame, skill: pd.DataFrame, leading: pd.DataFrame) -> pd.DataFrame:
    """Per variant and player count, side by side: games decided without any decision, the
    skill edge, the value of leading (exact for 2 players, simulated per-round rates), and the
    paying seat's fairness (reference line-up)."""
    ref = reference_lineup(fair)
    if ref is None:
        return pd.DataFrame()
    lead = leading.set_index(["variant", "players"]) if not leading.empty else pd.DataFrame()
    rows = []
    for r in fair[fair["lineup"] == ref].itertuples():
        row = dict(variant=r.variant, players=r.players, p_no_decision=r.p_no_decision,
                   pay_unfairness=r.pay_unfairness, pay_unfairness_low=r.pay_unfairness_low,
                   pay_unfairness_high=r.pay_unfairness_high, pay_test_p_holm=r.pay_test_p_holm,
                   leader_loses_decharge=r.leader_loses_decharge,
                   leader_loses_decharge_low=r.leader_loses_decharge_low,
                   leader_loses_decharge_high=r.leader_loses_decharge_high,
                   follower1_loses_decharge=r.follower1_loses_decharge,
                   r1_loser_p_pay=r.r1_loser_p_pay, r1_loser_p_pay_low=r.r1_loser_p_pay_low,
                   r1_loser_p_pay_high=r.r1_loser_p_pay_high)
        # one column group per skill line-up of the study (one skilled player among habit players)
        for lu in (dict.fromkeys(skill["lineup"]) if not skill.empty else ()):
            sk = skill[(skill["variant"] == r.variant) & (skill["players"] == r.players) & (skill["lineup"] == lu)]
            for key in ("edge", "ci_low", "ci_high", "fair"):
                row[f"skill_{key}[{lu}]"] = float(sk.iloc[0][key]) if len(sk) else math.nan
            # who pays: the edge in P(pay) and the bounds of that edge (not of the pay share)
            one = sk.iloc[0] if len(sk) else None
            row[f"skill_pay_edge[{lu}]"] = float(one.pay_edge) if one is not None else math.nan
            row[f"skill_pay_edge_low[{lu}]"] = float(one.fair - one.pay_ci_high) if one is not None else math.nan
            row[f"skill_pay_edge_high[{lu}]"] = float(one.fair - one.pay_ci_low) if one is not None else math.nan
        has = (r.variant, r.players) in lead.index
        row["lead_value_decharge_exact"] = float(lead.loc[(r.variant, r.players), "decharge_mean"]) if has else math.nan
        row["r1_loser_wins_exact"] = float(lead.loc[(r.variant, r.players), "round1_loser_wins"]) if has else math.nan
        rows.append(row)
    return pd.DataFrame(rows)


def _three_optimal(c: Config) -> bool:
    """Everyone plays ``optimal`` at 3 players: the certified equilibrium, whose values are exact."""
    return c.players == 3 and c.lineup.kind == "all" and c.lineup.a == "optimal"


def _exact_rows(study: Study, configs: list[Config]) -> list[dict]:
    """Exact values of every 2-player line-up made of table policies (solver), and of
    ``optimal`` with 3 players (the equilibrium of solver3)."""
    from ..exact.solver3 import solve as solve3
    from ..exact.two_player import MAX_SOLVER_TOKENS
    from ..policies import evaluate
    rows = []
    for c in configs:
        if _three_optimal(c):
            sol = solve3(c.variant, 3, "pay")
            pay = sol.seat_p_pay
            rows.append(dict(_config_cols(c), p_seat0_exact=float(sol.seat_p_win[0]),
                             expected_rounds_exact=sol.expected_rounds, score_exact=math.nan,
                             seat0_pays_exact=float(pay[0]), pay_unfairness_exact=float(np.abs(pay - 1 / 3).max()),
                             exploitability=sol.exploitability))
            continue
        if c.players != 2 or c.variant.tokens > MAX_SOLVER_TOKENS:
            continue
        lu = c.lineup
        names = [lu.a] if lu.kind == "all" else [lu.a, lu.b]
        if any(n not in TABLE_POLICIES for n in names):
            continue
        if lu.kind == "all":
            e = evaluate(c.variant, [lu.a, lu.a])
            p0 = e["p_seat0"]
            rows.append(dict(_config_cols(c), p_seat0_exact=p0, expected_rounds_exact=e["expected_rounds"],
                             score_exact=math.nan, seat0_pays_exact=1 - p0, pay_unfairness_exact=abs(p0 - 0.5),
                             exploitability=math.nan))
        else:
            ab = evaluate(c.variant, [lu.a, lu.b])
            ba = evaluate(c.variant, [lu.b, lu.a])
            rows.append(dict(_config_cols(c), p_seat0_exact=math.nan, expected_rounds_exact=math.nan,
                             score_exact=(ab["p_seat0"] + 1 - ba["p_seat0"]) / 2, seat0_pays_exact=math.nan,
                             pay_unfairness_exact=math.nan, exploitability=math.nan))
    return rows
