"""From part files to tidy result tables: measures, distributions, skill, fairness.

Definitions used in the tables and the report
---------------------------------------------
first-player advantage
    seat 0's win share minus 1/players (seat 0 leads the first round).
win share
    1/k to each of k joint winners, so the shares of a game sum to 1.
seat uniformity
    Pearson's chi-square test that the seat of a lone winner is uniform: over the
    games won by a single player, ``sum_s (O_s - E)**2 / E`` with ``E`` = those
    games / players, on ``players - 1`` degrees of freedom. Under "every seat
    alike" the lone winner's seat is exactly uniform, so the test is valid; its
    p-value is in ``seat_uniformity_p``.
max seat deviation
    ``max_s |share_s - 1/n| * n``: the largest relative advantage or handicap of a
    seat (0.05 means some seat wins 5% more, or less, often than a fair share).
fairness score
    for each variant, the mean over the player counts of the max seat
    deviation, in percent, under the reference line-up (``greedy`` when the study
    has it: competent habitual play that exists for every player count).
    Lower is fairer; variants are ranked by it. ``noise_95`` is the same mean of the
    seats' 95% interval half-widths (relative): a score below it cannot be told
    apart from a perfectly fair game at the study's sample size.
skill edge
    in a ``one:A/B`` line-up, A's mean win share over the seats minus 1/players.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from . import policies
from .simulate import SimulationResult
from .stats import Z95
from .study import Config, Study
from .tasks import SHARE_UNIT, make_tasks, part_keys, part_path, read_part

__all__ = ["merge_parts", "build_tables", "chi2_sf", "REFERENCE_LINEUP"]

REFERENCE_LINEUP = "greedy"
TABLE_POLICIES = policies.TABLE_POLICIES


def chi2_sf(x: float, k: int) -> float:
    """Survival function of the chi-square distribution with integer ``k`` degrees of freedom."""
    if x <= 0:
        return 1.0
    if k % 2 == 0:
        term = total = math.exp(-x / 2)
        for i in range(1, k // 2):
            term *= x / (2 * i)
            total += term
        return min(total, 1.0)
    total = math.erfc(math.sqrt(x / 2))
    term = math.sqrt(2 * x / math.pi) * math.exp(-x / 2)
    for i in range(1, (k + 1) // 2):
        total += term
        term *= x / (2 * i + 1)
    return min(total, 1.0)


def merge_parts(study: Study, configs: list[Config], out: Path) -> list[dict]:
    """Sum every configuration's part files, in block order. Raises if any part is missing."""
    merged: list[dict | None] = [None] * len(configs)
    for t in make_tasks(len(configs), study.games, study.task_games):
        path = part_path(out, configs[t.config], t.block)
        part = read_part(path, part_keys(configs[t.config]))
        if part is None:
            raise RuntimeError(f"part file {path} is missing or unreadable: the run is incomplete; "
                               "run the same command again to finish it")
        acc = merged[t.config]
        merged[t.config] = part if acc is None else {k: acc[k] + part[k] for k in acc}
    return merged


def _config_cols(c: Config) -> dict:
    return {"variant": c.label, "players": c.players, "lineup": c.lineup.label}


def build_tables(study: Study, configs: list[Config], merged: list[dict]) -> dict[str, pd.DataFrame]:
    """Tidy tables: measures, distributions, skill, fairness, scores (and exact, for 2 players)."""
    measures, dists, skill, fair = [], [], [], []
    exact_rows = _exact_rows(study, configs) if study.exact else []
    exact = {(r["variant"], r["lineup"]): r for r in exact_rows}
    for c, cnt in zip(configs, merged):
        cols = _config_cols(c)
        if c.lineup.kind == "one":
            n = c.players
            g = int(cnt["one_games"][0])
            mean = float(cnt["one_sum"][0]) / (n * SHARE_UNIT * g)
            ex2 = float(cnt["one_sumsq"][0]) / ((n * SHARE_UNIT) ** 2 * g)
            half = Z95 * math.sqrt(max(ex2 - mean * mean, 0.0) / g)
            row = dict(cols, skilled=c.lineup.a, habit=c.lineup.b, games=g, score=mean, ci_low=mean - half,
                       ci_high=mean + half, fair=1 / n, edge=mean - 1 / n)
            for s in range(n):
                row[f"score_seat{s}"] = float(cnt["one_by_seat"][s]) / (SHARE_UNIT * g)
            ex = exact.get((c.label, c.lineup.label)) if n == 2 else None
            row["score_exact"] = ex["score_exact"] if ex else math.nan
            skill.append(row)
            continue
        res = SimulationResult(c.variant, c.players, [c.lineup.a] * c.players, study.games, study.seed, 0, cnt)
        m = res.measures()
        m = pd.concat([pd.DataFrame([cols] * len(m)), m.reset_index(drop=True)], axis=1)
        measures.append(m)
        for which in ("rounds", "rounds_charge", "rounds_decharge", "swing_round", "swing_game"):
            d = res.distribution(which)
            d.insert(0, "which", which)
            dists.append(pd.concat([pd.DataFrame([cols] * len(d)), d], axis=1))
        seats = res.seats()
        n = c.players
        lone = cnt["win"][:, 1].astype(float)
        expect = lone.sum() / n
        stat = float(((lone - expect) ** 2).sum() / expect) if expect > 0 else 0.0
        fpa, lo, hi = res.first_player_advantage()
        mm = m.set_index("measure")
        ex = exact.get((c.label, c.lineup.label)) if n == 2 else None
        fair.append(dict(cols, games=res.finished, first_player_advantage=fpa, fpa_low=lo, fpa_high=hi,
                         fpa_exact=(ex["p_seat0_exact"] - 0.5) if ex else math.nan,
                         max_seat_deviation=float(np.max(np.abs(seats.win_share - 1 / n)) * n),
                         seat_noise_95=float(np.max(seats.win_share_high - seats.win_share)) * n,
                         seat_uniformity_chi2=stat, seat_uniformity_p=chi2_sf(stat, n - 1),
                         fpa_se=(hi - lo) / (2 * Z95),
                         mean_rounds=float(mm.loc["mean_rounds", "value"]),
                         mean_rounds_se=float(mm.loc["mean_rounds", "ci_high"] - mm.loc["mean_rounds", "ci_low"])
                         / (2 * Z95),
                         mean_rounds_exact=ex["expected_rounds_exact"] if ex else math.nan,
                         p_decided_in_charge=float(mm.loc["p_decided_in_charge", "value"]),
                         mean_swing_round=float(mm.loc["mean_swing_round", "value"]),
                         mean_swing_game=float(mm.loc["mean_swing_game", "value"])))
    tables = {
        "measures": pd.concat(measures, ignore_index=True) if measures else pd.DataFrame(),
        "distributions": pd.concat(dists, ignore_index=True) if dists else pd.DataFrame(),
        "skill": pd.DataFrame(skill),
        "fairness": pd.DataFrame(fair),
        "exact": pd.DataFrame(exact_rows),
    }
    tables["scores"] = fairness_scores(tables["fairness"])
    return tables


def reference_lineup(fair: pd.DataFrame) -> str | None:
    if fair.empty:
        return None
    lineups = list(dict.fromkeys(fair["lineup"]))
    return REFERENCE_LINEUP if REFERENCE_LINEUP in lineups else lineups[0]


def fairness_scores(fair: pd.DataFrame) -> pd.DataFrame:
    """One fairness score per variant (see the module docstring), ranked, lower = fairer."""
    ref = reference_lineup(fair)
    if ref is None:
        return pd.DataFrame(columns=["rank", "variant", "fairness_score", "noise_95", "lineup", "players"])
    sub = fair[fair["lineup"] == ref]
    rows = []
    for variant, g in sub.groupby("variant", sort=False):
        rows.append(dict(variant=variant, fairness_score=100 * float(g["max_seat_deviation"].mean()),
                         noise_95=100 * float(g["seat_noise_95"].mean()),
                         worst_players=int(g.loc[g["max_seat_deviation"].idxmax(), "players"]),
                         mean_abs_fpa=100 * float(g["first_player_advantage"].abs().mean()),
                         lineup=ref, players=",".join(str(p) for p in g["players"])))
    df = pd.DataFrame(rows).sort_values("fairness_score", kind="stable").reset_index(drop=True)
    df.insert(0, "rank", np.arange(1, len(df) + 1))
    return df


def _exact_rows(study: Study, configs: list[Config]) -> list[dict]:
    """Exact 2-player values (solver) of every 2-player line-up made of table policies."""
    from .policies import evaluate
    from .solver import MAX_SOLVER_TOKENS
    rows = []
    for c in configs:
        if c.players != 2 or c.variant.tokens > MAX_SOLVER_TOKENS:
            continue
        lu = c.lineup
        names = [lu.a] if lu.kind == "all" else [lu.a, lu.b]
        if any(n not in TABLE_POLICIES for n in names):
            continue
        if lu.kind == "all":
            e = evaluate(c.variant, [lu.a, lu.a])
            rows.append(dict(_config_cols(c), p_seat0_exact=e["p_seat0"], expected_rounds_exact=e["expected_rounds"],
                             score_exact=math.nan))
        else:
            ab = evaluate(c.variant, [lu.a, lu.b])
            ba = evaluate(c.variant, [lu.b, lu.a])
            rows.append(dict(_config_cols(c), p_seat0_exact=math.nan, expected_rounds_exact=math.nan,
                             score_exact=(ab["p_seat0"] + 1 - ba["p_seat0"]) / 2))
    return rows
