"""From part files to tidy result tables: measures, distributions, skill, fairness, seats, scores.

Definitions used in the tables and the report
---------------------------------------------
first-player advantage
    seat 0's win share minus 1/players (seat 0 leads the first round).
win share
    1/k to each of k joint winners, so the shares of a game sum to 1.
seat test (win / pay)
    Hotelling's T**2 test that every seat's win share (or pay share) is 1/players, on
    the per-game share vectors with their covariance from the per-game sums of products
    (``SimulationResult.share_mean_cov``, ``stats.equal_shares_test``); valid whatever
    the number of winners and losers. p-values in ``seat_test_win_p`` and
    ``pay_test_p``; ``pay_test_p_holm`` is Holm-adjusted over the study's distinct
    configurations that the symmetry theorem does not settle (identical games counted
    once, ``same_games_as``).
drinks, symmetry, largest gap
    see :mod:`four21sim.study.fairness` and docs/fairness.md.
headline line-up
    per variant and player count, the play the verdicts are given for: ``optimal``
    (the 2-player optimum, the 3-player equilibrium) where the study plays it, else the
    reference habit (``greedy`` when the study has it).
max seat deviation
    ``max_s |share_s - 1/n| * n``: the largest relative advantage or handicap of a
    seat (0.05 means some seat wins 5% more, or less, often than a fair share).
no decision
    the share of games in which nobody had a choice: every round of the game was
    thrown with a 1-throw limit (a 1-throw charge and the game decided in the charge,
    or 1-throw limits in both phases).
skill edge
    in a ``one:A/B`` line-up, A's mean win share over the seats minus 1/players.
runaway games
    games still running after the study's ``max_rounds`` rounds: left out of every
    measure (for one:A/B, a game that runs away in any seat rotation is left out
    of all of them) and counted per configuration in the ``runaways`` table; a
    configuration whose every game ran away is in that table only.

What the tables read of a study is gathered in :class:`StudyFacts` (one place to adapt).
A results folder written by an older version is brought up to date by :func:`rebuild`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .. import policies
from ..engine.simulation import DISTRIBUTIONS, PHASES, SimulationResult
from ..engine.stats import Z95, holm
from ..rules.variants import Variant
from .fairness import drinks, exact_seat_pays, games_identity, hist_quantiles, symmetry_of
from .plan import Plan
from .spec import DEFAULT_STUDY, Config, Study, parse_lineup, study_from_mapping
from .tasks import SHARE_UNIT, merge_counters, part_keys, part_path, read_part

__all__ = ["StudyFacts", "merge_parts", "build_tables", "derive_tables", "rebuild", "reference_lineup",
           "REFERENCE_LINEUP", "HEADLINE_LINEUP"]

REFERENCE_LINEUP = "greedy"
HEADLINE_LINEUP = "optimal"
TABLE_POLICIES = policies.TABLE_POLICIES
DERIVED = ("seats", "scores", "fair_vs_skill")
"""Tables computed from the others (and from the variants' rules): :func:`derive_tables`."""


# ------------------------------------------------------------------ what the tables read of a study
@dataclass(frozen=True)
class StudyFacts:
    """What the tables and the report read of a study, in one place.

    Built from a :class:`~four21sim.study.spec.Study` and its configurations
    (:meth:`of`) or from a results folder's manifest (:meth:`of_results`).
    """

    name: str
    question: str
    seed: int
    games: int
    max_rounds: int
    exact: bool
    players: tuple
    configs: tuple
    is_default: bool
    variants: tuple

    @classmethod
    def of(cls, study: Study, configs: list[Config]) -> "StudyFacts":
        return cls(study.name, study.question, study.seed, study.games, study.max_rounds, study.exact,
                   tuple(study.players), tuple(configs), study.fingerprint() == DEFAULT_STUDY.fingerprint(),
                   tuple(label for label, _ in study.variant_list))

    @classmethod
    def of_results(cls, results) -> "StudyFacts":
        """From a loaded results folder (:func:`four21sim.load`): its study and configurations."""
        m = results.manifest
        configs = [Config(c["variant"], Variant(**c["options"]), int(c["players"]), parse_lineup(c["lineup"]))
                   for c in m["configurations"]]
        return cls.of(study_from_mapping(dict(m["study"], name=m.get("name", m["study"]["name"]))), configs)

    def variant_of(self, label: str) -> Variant:
        return next(c.variant for c in self.configs if c.label == label)

    def config(self, label: str, players: int, lineup: str) -> Config:
        return next(c for c in self.configs if (c.label, c.players, c.lineup.label) == (label, players, lineup))


def merge_parts(plan: Plan, out: Path) -> list[dict]:
    """Sum every configuration's part files, in block order (:func:`~four21sim.study.tasks.merge_counters`):
    the plan's tasks, each part checked against the identity the plan gives it. Raises if any part is
    missing, or does not belong to its place (see :func:`four21sim.study.tasks.check_part`)."""
    parts: list[list] = [[] for _ in plan.configs]
    for t in plan.tasks:
        c = plan.config(t)
        path = part_path(out, c, t.block)
        part = read_part(path, part_keys(c), plan.identity(t), c)
        if part is None:
            raise RuntimeError(f"part file {path} is missing or unreadable: the run is incomplete; "
                               "run the same command again to finish it")
        parts[t.config].append(part)
    return [merge_counters(p) for p in parts]


def _config_cols(c: Config) -> dict:
    return {"variant": c.label, "players": c.players, "lineup": c.lineup.label}


def _key(c: Config) -> tuple:
    return (c.label, c.players, c.lineup.label)


# ------------------------------------------------------------------ the tables of the games played
def build_tables(study: Study, configs: list[Config], merged: list[dict]) -> dict[str, pd.DataFrame]:
    """Tidy tables: measures, distributions, skill, fairness, runaways, exact, leading, and the
    tables derived from them (:func:`derive_tables`: seats, scores, fair_vs_skill)."""
    facts = StudyFacts.of(study, configs)
    measures, dists, skill, fair, runaways = [], [], [], [], []
    exact_rows = _exact_rows(facts) if facts.exact else []
    exact = {(r["variant"], r["players"], r["lineup"]): r for r in exact_rows}
    for c, cnt in zip(configs, merged):
        if c.lineup.kind == "one":
            row, run = _skill_row(c, cnt, facts.games, exact.get(_key(c)))
            runaways.append(run)
            if row is not None:
                skill.append(row)
            continue
        out = _config_tables(c, cnt, facts, exact.get(_key(c)))
        runaways.append(out["runaways"])
        if out["fairness"] is not None:
            measures.append(out["measures"])
            dists.extend(out["distributions"])
            fair.append(out["fairness"])
    tables = {
        "measures": pd.concat(measures, ignore_index=True) if measures else pd.DataFrame(),
        "distributions": pd.concat(dists, ignore_index=True) if dists else pd.DataFrame(),
        "skill": pd.DataFrame(skill),
        "fairness": pd.DataFrame(fair),
        "exact": pd.DataFrame([{k: v for k, v in r.items() if k != "pays"} for r in exact_rows]),
        "runaways": pd.DataFrame(runaways),
        "leading": leading_table(facts),
    }
    solved = {k: r["pays"] for k, r in exact.items() if r.get("pays") is not None}
    return derive_tables(tables, facts, solved)


def _skill_row(c: Config, cnt: dict, games: int, ex: dict | None) -> tuple[dict | None, dict]:
    """One row of the skill table (None if every game ran away) and the configuration's runaways."""
    cols = _config_cols(c)
    n = c.players
    g = int(cnt["one_games"][0])
    run = dict(cols, games=games, runaway_games=int(cnt["one_runaway"][0]))
    if g == 0:  # every game ran away: nothing to measure
        return None, run

    def mean_ci(what: str) -> tuple[float, float]:
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
    row["score_exact"] = ex["score_exact"] if ex else math.nan
    return row, run


def _config_tables(c: Config, cnt: dict, facts: StudyFacts, ex: dict | None) -> dict:
    """An everyone-alike configuration's measures, distributions, fairness row and runaways."""
    cols = _config_cols(c)
    res = SimulationResult(c.variant, c.players, [c.lineup.a] * c.players, facts.games, facts.seed, 0, cnt)
    out = {"runaways": dict(cols, games=facts.games, runaway_games=res.runaways), "fairness": None}
    if res.finished == 0:
        return out
    m = res.measures()
    m = pd.concat([pd.DataFrame([cols] * len(m)), m.reset_index(drop=True)], axis=1)
    dists = []
    for which in DISTRIBUTIONS:
        d = res.distribution(which)
        d.insert(0, "which", which)
        dists.append(pd.concat([pd.DataFrame([cols] * len(d)), d], axis=1))
    n = c.players
    fpa, lo, hi = res.first_player_advantage()
    mm = m.set_index("measure")
    row = dict(cols, games=res.finished, first_player_advantage=fpa, fpa_low=lo, fpa_high=hi,
               fpa_exact=(ex["p_seat0_exact"] - 1 / n) if ex else math.nan,
               max_seat_deviation=float(np.max(np.abs(res.seats().win_share - 1 / n)) * n),
               seat_test_win_p=res.seat_test("win")["p"], fpa_se=(hi - lo) / (2 * Z95),
               mean_rounds=float(mm.loc["mean_rounds", "value"]),
               mean_rounds_se=float(mm.loc["mean_rounds", "ci_high"] - mm.loc["mean_rounds", "ci_low"]) / (2 * Z95),
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
    return dict(out, measures=m, distributions=dists, fairness=row)


def reference_lineup(fair: pd.DataFrame) -> str | None:
    """The habit every seat plays in the reference line-up: ``greedy`` when the study has it."""
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


# ------------------------------------------------------------------ exact values
def _exact_rows(facts: StudyFacts) -> list[dict]:
    """Exact values from the solvers: every everyone-``optimal`` line-up at a player count the
    solvers reach (``four21sim.exact.solve``: 2 and 3 players today), every 2-player line-up of
    table policies (exact evaluation of the pair). ``pays`` (dropped from the table) holds every
    seat's exact P(pay)."""
    from ..exact.two_player import MAX_SOLVER_TOKENS
    from ..policies import evaluate
    rows = []
    for c in facts.configs:
        lu = c.lineup
        if lu.kind == "all" and lu.a == "optimal":
            row = _optimal_row(c)
            if row is not None:
                rows.append(row)
            continue
        names = [lu.a] if lu.kind == "all" else [lu.a, lu.b]
        if c.players != 2 or c.variant.tokens > MAX_SOLVER_TOKENS or any(n not in TABLE_POLICIES for n in names):
            continue
        if lu.kind == "all":
            e = evaluate(c.variant, [lu.a, lu.a])
            p0 = e["p_seat0"]
            rows.append(dict(_config_cols(c), p_seat0_exact=p0, expected_rounds_exact=e["expected_rounds"],
                             score_exact=math.nan, seat0_pays_exact=1 - p0, pay_unfairness_exact=abs(p0 - 0.5),
                             exploitability=math.nan, pays=(1 - p0, p0)))
        else:
            ab = evaluate(c.variant, [lu.a, lu.b])
            ba = evaluate(c.variant, [lu.b, lu.a])
            rows.append(dict(_config_cols(c), p_seat0_exact=math.nan, expected_rounds_exact=math.nan,
                             score_exact=(ab["p_seat0"] + 1 - ba["p_seat0"]) / 2, seat0_pays_exact=math.nan,
                             pay_unfairness_exact=math.nan, exploitability=math.nan, pays=None))
    return rows


def _optimal_row(c: Config) -> dict | None:
    """Everyone ``optimal``: the solvers' exact values at this player count, or None beyond their reach."""
    from ..exact import solve
    try:
        sol = solve(c.variant, c.players)
    except ValueError:  # more players or tokens than the solvers take
        return None
    n = c.players
    if hasattr(sol, "seat_p_pay"):
        pay, win, gain = sol.seat_p_pay, sol.seat_p_win, sol.exploitability
    else:  # the 2-player optimum: exact by construction, no certificate needed
        pay = np.array([1 - sol.p_seat0, sol.p_seat0])
        win, gain = 1 - pay, math.nan
    return dict(_config_cols(c), p_seat0_exact=float(win[0]), expected_rounds_exact=float(sol.expected_rounds),
                score_exact=math.nan, seat0_pays_exact=float(pay[0]),
                pay_unfairness_exact=float(np.abs(pay - 1 / n).max()),
                exploitability=max(0.0, float(gain)) if not math.isnan(gain) else math.nan,
                pays=tuple(float(x) for x in pay))


def leading_table(facts: StudyFacts) -> pd.DataFrame:
    """The exact value of leading per variant, at the player counts the study plays: 2 players,
    both optimal, for every variant the solver takes; 3 to 5 players, at the equilibrium, for the
    variants the study plays ``optimal`` with at that count (:mod:`four21sim.exact.leading`)."""
    from ..exact import solve
    from ..exact.leading import lead_summary, lead_summary_n
    from ..exact.two_player import MAX_SOLVER_TOKENS
    if not facts.exact:
        return pd.DataFrame()
    wanted = {}
    for c in facts.configs:
        if c.players == 2 and c.variant.tokens <= MAX_SOLVER_TOKENS:
            wanted.setdefault((c.label, 2), c.variant)
    for c in facts.configs:
        if c.players >= 3 and c.lineup.kind == "all" and c.lineup.a == "optimal":
            wanted.setdefault((c.label, c.players), c.variant)
    rows = []
    for (label, n), variant in wanted.items():
        ls = lead_summary(variant) if n == 2 else lead_summary_n(solve(variant, n))
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


# ------------------------------------------------------------------ derived tables
def derive_tables(tables: dict[str, pd.DataFrame], facts: StudyFacts, solved: dict) -> dict[str, pd.DataFrame]:
    """Add the tables computed from the others: the symmetry marks and the Holm adjustment of
    ``fairness``, ``seats`` (per seat, in drinks, exact where known), ``scores`` (per variant,
    player count and line-up, in drinks) and ``fair_vs_skill``.

    ``solved`` maps ``(variant, players, lineup)`` to every seat's exact P(pay) from the solvers.
    """
    out = dict(tables)
    out.pop("robustness", None)  # older folders: the score per line-up is now a row of ``scores``
    fair = out["fairness"].copy()
    exact_pays = _mark_symmetry(fair, facts, solved)
    _multiplicity(fair)
    out["fairness"] = fair
    out["seats"] = seat_table(fair, out["measures"], exact_pays, solved)
    out["scores"] = score_table(fair, out["seats"])
    out["fair_vs_skill"] = fair_vs_skill(fair, out["skill"], out.get("leading", pd.DataFrame()))
    return out


def _mark_symmetry(fair: pd.DataFrame, facts: StudyFacts, solved: dict) -> dict:
    """Add ``symmetric``, ``symmetry`` and ``exact_source`` to the fairness table (and the exact
    values the theorem gives); returns every configuration's exact seat pays and their source."""
    exact_pays = {}
    if fair.empty:
        return exact_pays
    sym, why, source = [], [], []
    for i, r in fair.iterrows():
        c = facts.config(r.variant, int(r.players), r.lineup)
        s = symmetry_of(c.variant, c.players, c.lineup.kind, c.lineup.a, c.lineup.b)
        key = _key(c)
        sym.append(s.applies)
        why.append(s.reason)
        if s.applies:
            n = c.players
            exact_pays[key] = ((1 / n,) * n, "symmetry")
            fair.loc[i, ["seat0_pays_exact", "pay_unfairness_exact", "fpa_exact"]] = [1 / n, 0.0, 0.0]
        elif key in solved:
            exact_pays[key] = (solved[key], "solver")
        source.append(exact_pays.get(key, (None, ""))[1])
    fair["symmetric"], fair["symmetry"], fair["exact_source"] = sym, why, source
    return exact_pays


def _multiplicity(fair: pd.DataFrame) -> None:
    """Mark configurations that play the same games, and Holm-adjust the seat tests over the
    distinct ones the theorem does not settle (each group of identical configurations counted
    once); a configuration the theorem settles gets NaN (its test only checks the engine)."""
    if fair.empty:
        return
    first = fair.groupby("games_id", sort=False).head(1)
    label = {r.games_id: f"{r.variant}, {r.players}p, {r.lineup}" for r in first.itertuples()}
    fair["same_games_as"] = [label[g] if i not in first.index else "" for i, g in zip(fair.index, fair["games_id"])]
    settled = set(fair.loc[fair["symmetric"].astype(bool), "games_id"])
    family = first[~first["games_id"].isin(settled)]
    for col, out in (("pay_test_p", "pay_test_p_holm"), ("seat_test_win_p", "seat_test_win_p_holm")):
        adj = pd.Series(holm(family[col].to_numpy()), index=family["games_id"].to_numpy(), dtype=float)
        fair[out] = fair["games_id"].map(adj).astype(float)


def seat_table(fair: pd.DataFrame, measures: pd.DataFrame, exact_pays: dict, solved: dict) -> pd.DataFrame:
    """One row per configuration and seat: P(pay) simulated with its 95% interval, in drinks a
    game (``players * P - 1``), and exact where the theorem or a solver gives it."""
    rows = []
    if fair.empty:
        return pd.DataFrame()
    lose = measures[measures["measure"] == "lose_share"].set_index(["variant", "players", "lineup", "seat"])
    for r in fair.itertuples():
        n, key = int(r.players), (r.variant, int(r.players), r.lineup)
        ex, source = exact_pays.get(key, (None, ""))
        sol = solved.get(key)
        for s in range(n):
            m = lose.loc[(r.variant, n, r.lineup, s)]
            pe = ex[s] if ex is not None else math.nan
            rows.append(dict(variant=r.variant, players=n, lineup=r.lineup, seat=s, pays=float(m.value),
                             pays_low=float(m.ci_low), pays_high=float(m.ci_high), drinks=drinks(float(m.value), n),
                             drinks_low=drinks(float(m.ci_low), n), drinks_high=drinks(float(m.ci_high), n),
                             pays_exact=pe, drinks_exact=drinks(pe, n), exact_source=source,
                             pays_solver=sol[s] if sol is not None else math.nan))
    return pd.DataFrame(rows)


def _headlines(fair: pd.DataFrame) -> set:
    """The (variant, players, line-up) each verdict is given for: optimal play where the study has
    it at that player count, else the reference habit."""
    ref = reference_lineup(fair)
    out = set()
    for (v, n), g in fair.groupby(["variant", "players"], sort=False):
        lus = list(g["lineup"])
        out.add((v, n, HEADLINE_LINEUP if HEADLINE_LINEUP in lus else ref if ref in lus else lus[0]))
    return out


def score_table(fair: pd.DataFrame, seats: pd.DataFrame) -> pd.DataFrame:
    """Who pays, per variant, player count and line-up, in drinks a game (docs/results.md)."""
    if fair.empty:
        return pd.DataFrame(columns=["variant", "players", "lineup", "headline", "source", "lead_drinks"])
    heads = _headlines(fair)
    rows = []
    for r in fair.itertuples():
        n = int(r.players)
        st = seats[(seats["variant"] == r.variant) & (seats["players"] == n) & (seats["lineup"] == r.lineup)]
        row = dict(variant=r.variant, players=n, lineup=r.lineup, headline=(r.variant, n, r.lineup) in heads,
                   symmetric=bool(r.symmetric), symmetry=r.symmetry, games=int(r.games),
                   pay_test_p_holm=float(r.pay_test_p_holm))
        row.update(_exact_score(st, n) if r.exact_source else _simulated_score(st, r, n))
        rows.append(row)
    return pd.DataFrame(rows)


def _exact_score(st: pd.DataFrame, n: int) -> dict:
    """The fairness summary of a configuration with exact seat pays (no interval: exact)."""
    p = st["pays_exact"].to_numpy()
    d = n * p - 1
    gap = float(np.abs(d).max())
    shown = gap > 1e-12  # an exact gap below rounding is no seat to name
    nan = math.nan
    return dict(source=st["exact_source"].iloc[0], lead_pays=float(p[0]), lead_pays_low=nan, lead_pays_high=nan,
                lead_drinks=0.0 if not shown else float(d[0]), lead_drinks_low=nan, lead_drinks_high=nan,
                gap_drinks=gap if shown else 0.0, gap_drinks_low=nan, gap_drinks_high=nan,
                most_seat=int(np.argmax(d)) if shown else -1, most_drinks=float(d.max()) if shown else nan,
                least_seat=int(np.argmin(d)) if shown else -1, least_drinks=float(d.min()) if shown else nan)


def _simulated_score(st: pd.DataFrame, r, n: int) -> dict:
    """The fairness summary from the simulation; seats are named only where the seat test, Holm-
    adjusted, finds that they differ."""
    d = st["drinks"].to_numpy()
    found = not math.isnan(r.pay_test_p_holm) and r.pay_test_p_holm < 0.05
    hi, lo = int(np.argmax(d)), int(np.argmin(d))
    return dict(source="simulation", lead_pays=float(st["pays"].iloc[0]), lead_pays_low=float(st["pays_low"].iloc[0]),
                lead_pays_high=float(st["pays_high"].iloc[0]), lead_drinks=float(d[0]),
                lead_drinks_low=float(st["drinks_low"].iloc[0]), lead_drinks_high=float(st["drinks_high"].iloc[0]),
                gap_drinks=n * r.pay_unfairness, gap_drinks_low=n * r.pay_unfairness_low,
                gap_drinks_high=n * r.pay_unfairness_high,
                most_seat=hi if found else -1, most_drinks=float(d[hi]) if found else math.nan,
                least_seat=lo if found else -1, least_drinks=float(d[lo]) if found else math.nan)


def fair_vs_skill(fair: pd.DataFrame, skill: pd.DataFrame, leading: pd.DataFrame) -> pd.DataFrame:
    """Per variant and player count, side by side: games decided without any decision, the
    skill edge, the value of leading (exact where the study plays optimal, 2 to 5 players; else
    simulated per-round rates), and the paying-seat fairness (reference line-up)."""
    ref = reference_lineup(fair)
    if ref is None:
        return pd.DataFrame()
    lead = leading.set_index(["variant", "players"]) if not leading.empty else pd.DataFrame()
    rows = []
    for r in fair[fair["lineup"] == ref].itertuples():
        row = dict(variant=r.variant, players=r.players, p_no_decision=r.p_no_decision, symmetric=r.symmetric,
                   pay_unfairness=r.pay_unfairness, pay_unfairness_low=r.pay_unfairness_low,
                   pay_unfairness_high=r.pay_unfairness_high, pay_test_p_holm=r.pay_test_p_holm,
                   leader_loses_decharge=r.leader_loses_decharge,
                   leader_loses_decharge_low=r.leader_loses_decharge_low,
                   leader_loses_decharge_high=r.leader_loses_decharge_high,
                   follower1_loses_decharge=r.follower1_loses_decharge,
                   r1_loser_p_pay=r.r1_loser_p_pay, r1_loser_p_pay_low=r.r1_loser_p_pay_low,
                   r1_loser_p_pay_high=r.r1_loser_p_pay_high)
        row.update(_skill_cols(skill, r.variant, r.players))
        has = (r.variant, r.players) in lead.index
        row["lead_value_decharge_exact"] = float(lead.loc[(r.variant, r.players), "decharge_mean"]) if has else math.nan
        row["r1_loser_wins_exact"] = float(lead.loc[(r.variant, r.players), "round1_loser_wins"]) if has else math.nan
        rows.append(row)
    return pd.DataFrame(rows)


def _skill_cols(skill: pd.DataFrame, variant: str, players: int) -> dict:
    """One column group per skill line-up of the study (one skilled player among habit players)."""
    row = {}
    for lu in (dict.fromkeys(skill["lineup"]) if not skill.empty else ()):
        sk = skill[(skill["variant"] == variant) & (skill["players"] == players) & (skill["lineup"] == lu)]
        one = sk.iloc[0] if len(sk) else None
        for key in ("edge", "ci_low", "ci_high", "fair"):
            row[f"skill_{key}[{lu}]"] = float(one[key]) if one is not None else math.nan
        # who pays: the edge in P(pay) and the bounds of that edge (not of the pay share)
        row[f"skill_pay_edge[{lu}]"] = float(one.pay_edge) if one is not None else math.nan
        row[f"skill_pay_edge_low[{lu}]"] = float(one.fair - one.pay_ci_high) if one is not None else math.nan
        row[f"skill_pay_edge_high[{lu}]"] = float(one.fair - one.pay_ci_low) if one is not None else math.nan
    return row


# ------------------------------------------------------------------ older folders
def rebuild(results) -> tuple[dict[str, pd.DataFrame], StudyFacts]:
    """The tables of a results folder (:func:`four21sim.load`) brought up to this version: the
    derived tables computed again from the base tables, the exact seat pays from the solvers
    (their disk cache makes this quick once they have run), the value of leading at the player
    counts the study plays. Returns ``(tables, facts)`` for :func:`four21sim.study.report.write_report`."""
    facts = StudyFacts.of_results(results)
    tables = {k: v for k, v in results.tables.items() if k not in DERIVED}
    lead = tables.get("leading", pd.DataFrame())
    if not lead.empty:
        tables["leading"] = lead[lead["players"].isin(facts.players)].reset_index(drop=True)
    solved = {}
    if facts.exact:
        for c in facts.configs:
            if c.lineup.kind == "all":
                pays = exact_seat_pays(c.variant, c.players, c.lineup.a)
                if pays is not None:
                    solved[_key(c)] = pays
    return derive_tables(tables, facts, solved), facts
