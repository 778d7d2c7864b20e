"""What does each single rule change do to who pays? The rule space around the presets, exact where possible.

Question: starting from each preset, change one option at a time (every other explored
value of every option, the token count included). For each change and table size, how
many drinks a game does the first leader pay beyond its share, how large is the largest
gap of any seat, and how does the change move them, under the play that matters?

- exact where the symmetry theorem or a solver reaches (docs/fairness.md): 2 players,
  optimal play and the 'greedy' habit; 3 players, the equilibrium (the theorem, or the
  n-player solver within --solve-budget seconds; its disk cache keeps what earlier runs
  solved, and a run keeps the equilibria an earlier run wrote into the same --out folder
  when the solver's code is the same, byte for byte: see ``reusable_exact``);
- beyond, by simulation ('greedy', --sim-players): the preset and the changed rules play
  the same games (common random numbers); the first leader's change has a paired 95%
  interval, a change of the largest gap is bounded by the two gaps' intervals at 97.5%
  each; a change is *established* when the paired joint test that it moves who pays is
  below 5% after Holm's adjustment over every simulated change, and its interval
  excludes 0; otherwise the report says *cannot tell*.

    python experiments/rule_space.py [--games N] [--exact-players 2,3] [--sim-players 4,6] [--solve-budget S]
                                     [--out DIR] [--report-only] [--simulations-only]

``--simulations-only`` plays the simulated rows again and keeps every exact row of the folder's
table as that run made it (no solve: for a change of the engine's random stream, which the exact
rows do not depend on, when re-solving the 4-player equilibria would take hours); the manifest and
the report name the run the exact rows come from.

Writes rule_space.parquet (one row per variant, table size and line-up), RULE_SPACE.md
and figures/rule_space.png.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from four21sim import PRESETS, Variant, __version__
from four21sim._util.atomic import atomic_path, write_text_atomic
from four21sim.engine.stats import Z95, holm
from four21sim.exact import store
from four21sim.exact.nplayer import _CODE as SOLVER_CODE
from four21sim.exact.nplayer import MAX_TOKENS
from four21sim.exact.symmetry import seat_symmetry
from four21sim.rules.variants import OPTION_TABLE
from four21sim.study.fairness import EVENING, exact_seat_pays, never_rethrows, paired_comparison, paired_shares

# The values tried for each option come from the option registry, so a new option is explored
# as soon as it is declared there.
CHANGES = {o.name: list(o.explore) for o in OPTION_TABLE}
SEED = 1421
EXACT_PLAYERS = (2, 3)  # where the solvers reach today: more player counts are more rows
QUESTION = ("What does each single rule change, from each preset, do to who pays: the first leader's drinks "
            "beyond its share and the largest gap of any seat, exactly where a theorem or a solver reaches?")


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


# ------------------------------------------------------------------ exact rows
def _summary(pays, n: int) -> dict:
    d = n * np.asarray(pays) - 1
    gap = float(np.abs(d).max())
    return dict(lead_drinks=float(d[0]) if gap > 1e-12 else 0.0, gap_drinks=gap if gap > 1e-12 else 0.0)


def _exact_pays(v: Variant, n: int, lineup: str, budget: dict) -> tuple[tuple | None, str]:
    """Every seat's exact P(pay) and where it comes from (symmetry, solver), or (None, why not)."""
    if seat_symmetry(v, [lineup] * n, never_rethrows(v, n, [lineup])).applies:
        return (1 / n,) * n, "symmetry"
    if n >= 3 and v.tokens > MAX_TOKENS.get(n, 0):  # said so even once the budget is spent
        return None, "beyond the solvers"
    if n >= 3 and time.perf_counter() > budget["until"]:  # (2-player solves take a fraction of a second)
        budget["skipped"] += 1
        return None, "not solved in this run's budget"
    pays = exact_seat_pays(v, n, lineup)
    return (pays, "solver") if pays is not None else (None, "beyond the solvers")


def _same_solver_since(commit: str) -> bool:
    """Whether the n-player solver's source (the modules its disk cache hashes) is, in this
    checkout, byte for byte what it was at ``commit`` (git; False where that cannot be shown)."""
    import subprocess
    if not commit or not all(c in "0123456789abcdef" for c in commit):  # "unknown", "...+dirty"
        return False
    root = Path(__file__).resolve().parents[1]
    files = [f"four21sim/{m}.py" for m in SOLVER_CODE]
    try:
        r = subprocess.run(["git", "diff", "--quiet", commit, "--", *files], cwd=root, capture_output=True,
                           timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return r.returncode == 0


def reusable_exact(out: Path) -> tuple[dict, dict]:
    """The equilibria (3 players and more) an earlier run of this study solved into ``out``, when
    they would be solved the same way now.

    A row is kept when its ``solver_code`` (the hash of the solver's source that its disk cache
    keys on) is the current one; rows of a table written before that column existed, when git shows
    the solver's source unchanged since the commit in the folder's manifest. These are the numbers a
    solve would give again (the solver is deterministic), without the hours a 4-player rule change
    can take. Returns ``({(variant, players, lineup): row}, {"from_commit": ..., "rows": ...})``.
    """
    pq, mf = out / "rule_space.parquet", out / "manifest.json"
    code = store.code_hash(SOLVER_CODE)
    keep, origin, commits = {}, {}, []
    try:
        if pq.is_file() and mf.is_file():
            df = pd.read_parquet(pq)
            meta = json.loads(mf.read_text())
            rows = df[(df["method"] == "exact") & (df["source"] == "solver") & (df["players"] >= 3)]
            if "solver_code" in rows:
                rows = rows[rows["solver_code"] == code]
            elif not _same_solver_since(str(meta.get("commit", ""))):
                rows = rows.iloc[:0]
            keep = {(r["variant"], int(r["players"]), r["lineup"]): r for r in rows.to_dict("records")}
            if keep:
                origin = dict(from_commit=meta.get("commit"))
        partial = out / PARTIAL
        if partial.is_file():  # a run that was stopped before it wrote its table
            for line in partial.read_text().splitlines():
                r = json.loads(line)
                if r.get("solver_code") == code:
                    keep[(r["variant"], int(r["players"]), r["lineup"])] = r
                    origin.setdefault("from_commit", r.get("commit"))
                    commits.append(str(r.get("commit")))
    except (OSError, ValueError):
        return {}, {}
    commits = list(dict.fromkeys(c for c in [origin.get("from_commit"), *commits] if c))
    return keep, (dict(origin, commits=commits, rows=len(keep)) if keep else {})


# equilibria of 3 players and more, one JSON line each as they are solved, so that a run stopped
# before its end loses no solve (hours at 4 players); removed when the run writes its table
PARTIAL = "exact_partial.jsonl"


_EXACT_FIELDS = ("lead_drinks", "gap_drinks")


def exact_rows(specs: list[dict], budget_seconds: float, players=EXACT_PLAYERS,
               reuse: dict | None = None, partial: Path | None = None) -> tuple[list[dict], dict]:
    """Optimal play at every exact player count, and 'greedy' at 2 players, for every variant:
    presets first (the changes are measured against them), 3-player solves until the budget ends;
    ``reuse`` (:func:`reusable_exact`) holds equilibria already solved, which cost no budget."""
    from four21sim.exact.leading import lead_summary
    from four21sim.exact.two_player import solve
    budget = {"until": time.perf_counter() + budget_seconds, "skipped": 0}
    reuse = reuse or {}
    code = store.code_hash(SOLVER_CODE)
    commit = _commit() if partial is not None else ""  # once: each call starts two git processes
    rows = []
    # the presets first (every change is measured against them), then the payer rule of Super 421 (a finding
    # of its own), then the rest with the fewest tokens first (a solve's cost grows with the token
    # states: at 4 players one of 21 tokens takes as long as several of 11), Super 421's and le bon's
    # before Montreal's and classic's: the budget solves as many changes as it can
    order = sorted(specs, key=lambda s: (s["change"] != "(preset)", s["change"] != "end=last_holder",
                                         Variant.from_preset(s["preset"], s["set"]).tokens,
                                         s["base"] not in ("super421", "super421-lebon")))
    for n in players:
        for s in order:
            v = Variant.from_preset(s["preset"], s["set"])
            for lineup in ("optimal", "greedy") if n == 2 else ("optimal",):
                old = reuse.get((s["label"], n, lineup))
                if old is not None and seat_symmetry(v, [lineup] * n, never_rethrows(v, n, [lineup])).applies:
                    old = None  # the theorem settles it now: said as such, not as a solve
                if old is not None:
                    rows.append(dict(variant=s["label"], base=s["base"], change=s["change"], players=n,
                                     lineup=lineup, method="exact", source="solver", note="", symmetric=False,
                                     solver_code=code, **{f: float(old[f]) for f in _EXACT_FIELDS}))
                    continue
                pays, source = _exact_pays(v, n, lineup, budget)
                row = dict(variant=s["label"], base=s["base"], change=s["change"], players=n, lineup=lineup,
                           solver_code=code if source == "solver" else "",
                           method="exact", source=source if pays is not None else "", note="" if pays else source,
                           symmetric=source == "symmetry", **(_summary(pays, n) if pays else
                                                              dict(lead_drinks=math.nan, gap_drinks=math.nan)))
                if n == 2 and lineup == "optimal":
                    sol = solve(v)
                    ls = lead_summary(sol)
                    dech = ls["by_phase"].get("decharge")
                    row.update(expected_rounds_2p=sol.expected_rounds, round1_loser_wins_2p=ls["round1_loser_wins"],
                               lead_value_decharge_2p=dech["weighted_mean"] if dech else math.nan)
                rows.append(row)
                if partial is not None and n >= 3 and source == "solver":
                    with open(partial, "a") as f:
                        f.write(json.dumps(dict(row, commit=commit)) + "\n")
    return rows, budget


# ------------------------------------------------------------------ simulated rows
def _sim_values(ps, label: str, sym: bool) -> dict:
    """A rule set's simulated first-leader drinks and largest gap, or exactly 0 where the theorem
    applies (the simulated values are then kept as ``check_*``: they only check the engine)."""
    from four21sim.engine.stats import max_deviation_interval
    n = ps.players
    half = Z95 * math.sqrt(max(ps.cov[label][0, 0], 0.0))
    lead = n * ps.mean[label][0] - 1
    gap, glo, ghi = (n * x for x in max_deviation_interval(ps.mean[label], ps.cov[label]))
    if sym:
        return dict(lead_drinks=0.0, lead_drinks_low=math.nan, lead_drinks_high=math.nan, gap_drinks=0.0,
                    gap_drinks_low=math.nan, gap_drinks_high=math.nan, check_lead_drinks=lead,
                    check_lead_drinks_low=lead - n * half, check_lead_drinks_high=lead + n * half)
    return dict(lead_drinks=lead, lead_drinks_low=lead - n * half, lead_drinks_high=lead + n * half, gap_drinks=gap,
                gap_drinks_low=glo, gap_drinks_high=ghi)


def _sim_change(ps, a: str, b: str, sym_a: bool, sym_b: bool, va: dict, vb: dict) -> dict:
    """Rule set ``a`` against its preset ``b`` on the same games. Where the theorem makes one side
    exactly fair, the change is the other side's value (and its test the equal-shares test of that
    side alone); where it makes both, the change is exactly 0."""
    from four21sim.engine.stats import equal_shares_test
    nan = math.nan
    if sym_a and sym_b:
        return dict(lead_change=0.0, lead_change_low=nan, lead_change_high=nan, gap_change=0.0,
                    gap_change_low=nan, gap_change_high=nan, seat_test_p=nan)
    if sym_a or sym_b:
        one, v, sign = (b, vb, -1.0) if sym_a else (a, va, 1.0)
        lo, hi = sorted((sign * v["lead_drinks_low"], sign * v["lead_drinks_high"]))
        glo, ghi = sorted((sign * v["gap_drinks_low"], sign * v["gap_drinks_high"]))
        return dict(lead_change=sign * v["lead_drinks"], lead_change_low=lo, lead_change_high=hi,
                    gap_change=sign * v["gap_drinks"], gap_change_low=glo, gap_change_high=ghi,
                    seat_test_p=equal_shares_test(ps.mean[one], ps.cov[one], ps.games)["p"])
    c = paired_comparison(ps, a, b)
    return {k: c[k] for k in ("lead_change", "lead_change_low", "lead_change_high", "gap_change", "gap_change_low",
                              "gap_change_high", "seat_test_p")}


def simulated_rows(specs: list[dict], players, games: int, seed: int = SEED) -> list[dict]:
    """'greedy' at every simulated player count: each preset and its changes on the same games."""
    rows = []
    for preset in PRESETS:
        group = [s for s in specs if s["base"] == preset]
        variants = {s["label"]: Variant.from_preset(s["preset"], s["set"]) for s in group}
        pairs = [(s["label"], preset) for s in group if s["change"] != "(preset)"]
        for n in players:
            ps = paired_shares(variants, n, pairs, "greedy", games, seed, chunk=min(games, 100_000))
            sym = {lab: seat_symmetry(v, ["greedy"] * n, never_rethrows(v, n, ["greedy"])).applies
                   for lab, v in variants.items()}
            vals = {lab: _sim_values(ps, lab, sym[lab]) for lab in variants}
            for s in group:
                lab = s["label"]
                row = dict(variant=lab, base=preset, change=s["change"], players=n, lineup="greedy",
                           method="simulation", source="symmetry" if sym[lab] else "simulation", note="",
                           symmetric=sym[lab], games=games, mean_rounds=ps.rounds[lab], **vals[lab])
                if s["change"] != "(preset)":
                    row.update(_sim_change(ps, lab, preset, sym[lab], sym[preset], vals[lab], vals[preset]))
                rows.append(row)
    return rows


# ------------------------------------------------------------------ changes and verdicts
def analyse(rows: list[dict]) -> pd.DataFrame:
    """Each change against its preset at the same table size and line-up: exact differences where
    both are exact, the simulated ones with their intervals and a Holm-adjusted test (over every
    simulated change the theorem does not settle), and one word: fairer, less fair, no change,
    cannot tell."""
    df = pd.DataFrame(rows)
    for col in ("lead_change", "lead_change_low", "lead_change_high", "gap_change", "gap_change_low",
                "gap_change_high", "seat_test_p", "lead_drinks_low", "lead_drinks_high", "gap_drinks_low",
                "gap_drinks_high"):
        if col not in df:
            df[col] = math.nan
    key = ["base", "players", "lineup", "method"]
    base = df[df["change"] == "(preset)"].set_index(key)
    idx = df.set_index(key).index
    ex = (df["method"] == "exact").to_numpy()
    for col in ("lead", "gap"):
        diff = df[f"{col}_drinks"].to_numpy() - np.asarray(idx.map(base[f"{col}_drinks"]), dtype=float)
        df.loc[ex, f"{col}_change"] = diff[ex]
    bsym = np.asarray(idx.map(base["symmetric"]), dtype=bool)
    df["symmetry_effect"] = np.where(bsym & ~df["symmetric"], "breaks the symmetry",
                                     np.where(~bsym & df["symmetric"], "makes it symmetric", ""))
    sim = ((df["method"] == "simulation") & (df["change"] != "(preset)")).to_numpy()
    df["seat_test_p_holm"] = holm(np.where(sim, df["seat_test_p"], np.nan))
    df["verdict"] = [_verdict(r) for r in df.itertuples()]
    return df


def _verdict(r) -> str:
    if r.change == "(preset)":
        return ""
    if math.isnan(r.gap_drinks):
        return "beyond the solvers" if r.note == "beyond the solvers" else "not solved"
    if math.isnan(r.gap_change):
        return "preset not solved"
    if r.method == "exact" or math.isnan(r.gap_change_low):  # exact, or both sides exactly fair
        return "fairer" if r.gap_change < -1e-12 else "less fair" if r.gap_change > 1e-12 else "no change"
    shown = r.seat_test_p_holm < 0.05
    if shown and r.gap_change_high < 0:
        return "fairer (exactly fair)" if r.symmetric else "fairer"
    if shown and r.gap_change_low > 0:
        return "less fair"
    return "moves who pays; fairness cannot tell" if shown else "cannot tell"


# ------------------------------------------------------------------ the report
def _num(x: float) -> str:
    """A change in drinks: 3 decimals, or two significant digits when it is smaller than that."""
    return f"{x:+.1e}" if 0 < abs(x) < 5e-4 else f"{x:+.3f}"


def _cell_change(r) -> str:
    if r.change == "(preset)" or (isinstance(r.gap_change, float) and math.isnan(r.gap_change)):
        return ""
    if r.method == "exact" or math.isnan(r.gap_change_low):
        return _num(r.gap_change)
    return f"{_num(r.gap_change)} [{_num(r.gap_change_low)}, {_num(r.gap_change_high)}]"


def _value(r) -> str:
    if isinstance(r.gap_drinks, float) and math.isnan(r.gap_drinks):
        return r.note
    if r.source == "symmetry":
        return "0 (symmetry)"
    if r.method == "exact":
        return f"{r.lead_drinks:+.3f} / {r.gap_drinks:.3f}"
    return f"{r.lead_drinks:+.3f} [{r.lead_drinks_low:+.3f}, {r.lead_drinks_high:+.3f}] / {r.gap_drinks:.3f}"


def _play(r) -> str:
    return ("optimal play" if r.players == 2 else "equilibrium") if r.lineup == "optimal" else "greedy"


def _findings_symmetry(df: pd.DataFrame) -> list[str]:
    head = df[(df["players"] == 2) & (df["lineup"] == "optimal")]
    out = []
    for preset in PRESETS:
        g = head[head["base"] == preset]
        p = g[g["change"] == "(preset)"].iloc[0]
        moved = g[g["symmetry_effect"] != ""]
        if p.symmetric:
            out.append(f"**{preset} is exactly fair by symmetry**; the changes that break it: "
                       + (", ".join(f"`{c}`" for c in moved["change"]) or "none") + " (every other single change "
                       "keeps every seat at exactly 1/players, at every table size, for any line-up of alike seats).")
        elif len(moved):
            out.append(f"**{preset}** becomes exactly fair by symmetry with " + ", ".join(f"`{c}`"
                                                                                           for c in moved["change"])
                       + ".")
    return out


def _findings_exact(df: pd.DataFrame) -> list[str]:
    out = []
    for (n, lineup), g in df[(df["method"] == "exact")].groupby(["players", "lineup"], sort=False):
        g = g[g["change"] != "(preset)"]
        solved = g[~g["verdict"].isin(["not solved", "preset not solved", "beyond the solvers"])]
        beyond = int((g["verdict"] == "beyond the solvers").sum())
        unsolved = len(g) - len(solved) - beyond
        if solved.empty:
            continue
        top = solved.reindex(solved["gap_change"].abs().sort_values(ascending=False).index)
        top = top[top["gap_change"].abs() > 1e-12].head(6)
        what = f"{n} players, " + (("optimal play" if n == 2 else "equilibrium") if lineup == "optimal" else lineup)
        counts = solved["verdict"].value_counts()
        small = int(((solved["gap_change"].abs() < 0.005) & (solved["verdict"] != "no change")).sum())
        out.append(f"**{what}, exact** ({len(solved)} of {len(g)} changes solved"
                   + (f"; {unsolved} not solved in this run" if unsolved else "")
                   + (f"; {beyond} beyond the solvers (more tokens than they take)" if beyond else "")
                   + f"): {counts.get('fairer', 0)} fairer, {counts.get('less fair', 0)} less fair ({small} of these "
                   f"by less than 0.005 drinks a game, one drink in 200 games), {counts.get('no change', 0)} no "
                   "change. "
                   "The largest changes of the largest gap, in drinks a game: "
                   + ("; ".join(f"`{r.change}` on {r.base} {_num(r.gap_change)} (to {r.gap_drinks:.3f})"
                                for r in top.itertuples()) or "none") + ".")
    return out


def _findings_simulated(df: pd.DataFrame) -> list[str]:
    out = []
    for n, g in df[(df["method"] == "simulation") & (df["change"] != "(preset)")].groupby("players", sort=True):
        est = g[g["verdict"].isin(["fairer", "less fair"])]
        est = est.reindex(est["gap_change"].abs().sort_values(ascending=False).index)
        out.append(f"**{n} players, greedy (simulated, paired)**: of {len(g)} changes, "
                   f"{int((g['verdict'] == 'fairer').sum())} are shown fairer, "
                   f"{int((g['verdict'] == 'less fair').sum())} less fair, "
                   f"{int(g['verdict'].str.startswith('fairer (').sum())} made exactly fair by symmetry, "
                   f"{int(g['verdict'].str.contains('cannot tell').sum())} cannot tell; the largest established: "
                   + ("; ".join(f"`{r.change}` on {r.base} {r.gap_change:+.3f} [{r.gap_change_low:+.3f}, "
                                f"{r.gap_change_high:+.3f}]" for r in est.head(6).itertuples()) or "none") + ".")
    return out


def _findings_payer(df: pd.DataFrame) -> list[str]:
    """Super 421 under both end rules: who pays, and how long a game lasts."""
    g = df[(df["base"] == "super421") & df["change"].isin(["(preset)", "end=last_holder"])]
    parts = []
    for (n, _lineup, method), h in g.groupby(["players", "lineup", "method"], sort=False):
        if len(h) < 2:
            continue
        a = h[h["change"] == "(preset)"].iloc[0]
        b = h[h["change"] == "end=last_holder"].iloc[0]
        if math.isnan(b.lead_drinks) or math.isnan(a.lead_drinks):
            continue
        where = f"{n} players ({_play(a)}, {method})"
        if method == "exact" and abs(b.lead_change) < 1e-12 and abs(b.gap_change) < 1e-12:
            parts.append(f"{where}: the same game (with two players the first one out leaves the other holding "
                         "every token)")
            continue
        iv = "" if method == "exact" else f" [{_num(b.lead_change_low)}, {_num(b.lead_change_high)}]"
        giv = "" if method == "exact" else f" [{_num(b.gap_change_low)}, {_num(b.gap_change_high)}]"
        rounds = "" if method == "exact" else f"; {a.mean_rounds:.1f} → {b.mean_rounds:.1f} rounds a game"
        parts.append(f"{where}: the first leader {_num(a.lead_drinks)} → {_num(b.lead_drinks)} drinks a game "
                     f"(change {_num(b.lead_change)}{iv}), the largest gap {a.gap_drinks:.3f} → {b.gap_drinks:.3f} "
                     f"(change {_num(b.gap_change)}{giv}, *{b.verdict}*){rounds}")
    return ["**The payer rule (Super 421, `end`)**: under `first_out` the game ends when the first player is out "
            "and the player still in with the most tokens pays; under `last_holder` play goes on until one player "
            "holds every token, who pays. " + "; ".join(parts) + "."]


def report(df: pd.DataFrame, meta: dict) -> str:
    """RULE_SPACE.md: findings computed from ``df``, then every change."""
    lines = ["# What each rule change does to who pays", "", f"*{QUESTION}*", "",
             f"Produced by `{meta['command']}` (four21sim {__version__}, commit {meta['commit']}, "
             f"{meta['seconds']:.0f} s): exact values at {', '.join(map(str, meta['exact_players']))} players, "
             "simulated 'greedy' games at "
             f"{', '.join(map(str, meta['sim_players']))} players ({meta['games']:,} games per variant and table "
             f"size, seed {SEED}, every change on the same games as its preset). Drinks: a seat paying with "
             f"probability P at a table of n pays n·P − 1 drinks a game beyond its share (docs/fairness.md); over an "
             f"evening of {EVENING} games, {EVENING} times that. `first leader / largest gap`: seat 0's drinks and "
             "the largest |n·P − 1| over the seats. Intervals are 95%: the first leader's paired; the largest "
             "gap's simultaneous over the seats; a change of the largest gap bounded by the two gaps' intervals "
             "at 97.5% each. A simulated change is *fairer* or *less fair* only when the paired joint test that it "
             "moves who pays is below 5% after Holm's adjustment over every simulated change and the interval "
             "excludes 0; otherwise *cannot tell*.", ""]
    if meta.get("report_rewritten"):
        lines += [f"This report was written again from that run's table by commit {meta['report_rewritten']['commit']} "
                  "(`--report-only`: the same numbers, no solve and no game).", ""]
    if meta.get("exact_kept"):
        k = meta["exact_kept"]
        lines += [f"The {k['rows']} exact rows are those of an earlier run (`{k['command']}`, commit {k['commit']}), "
                  "kept as they were: this run (`--simulations-only`) played the simulations again, on the engine's "
                  "current random stream, which the exact rows do not depend on. The solver was not run again.", ""]
    if meta.get("exact_reused"):
        r = meta["exact_reused"]
        since = ", ".join(r.get("commits") or [r["from_commit"]])
        lines += [f"{r['rows']} equilibria were kept from earlier runs into this folder (commits {since}; a run "
                  "stopped before its end keeps its solves), the solver's source being the same byte for byte: "
                  "the numbers a new solve gives.", ""]
    if meta.get("skipped"):
        left = df[(df["method"] == "exact") & df["note"].str.startswith("not solved")]
        which = "; ".join(f"{', '.join(f'`{v}`' for v in g['variant'])} at {n} players"
                          for n, g in left.groupby("players"))
        lines += [f"{meta['skipped']} equilibria were not solved (marked *not solved*): {which}. This run's solver "
                  f"budget was {meta['solve_budget']:.0f} s at 3 players and more, spent on the fewest tokens first; "
                  "a longer `--solve-budget` solves the rest (the disk cache keeps what is solved).", ""]
    lines += ["## Findings", ""] + [f"- {s}" for s in _findings_symmetry(df) + [*_findings_payer(df)]
                                    + _findings_exact(df) + _findings_simulated(df)]
    lines += ["", "![rule space](figures/rule_space.png)", ""]
    lines += _tables(df)
    return "\n".join(lines) + "\n"


def _tables(df: pd.DataFrame) -> list[str]:
    lines = []
    cols = list(dict.fromkeys(zip(df["players"], df["lineup"], df["method"])))
    for preset in PRESETS:
        g = df[df["base"] == preset]
        head = " | ".join(f"{n}p {lu} ({m})" for n, lu, m in cols)
        lines += [f"## From {preset}", "",
                  "Each cell: first leader / largest gap, in drinks a game, then the change of the largest gap "
                  "against the preset and the verdict.", "",
                  f"| change | {head} |", "| --- |" + " --- |" * len(cols)]
        for change, h in g.groupby("change", sort=False):
            by = {(r.players, r.lineup, r.method): r for r in h.itertuples()}
            cells = []
            for k in cols:
                r = by.get(k)
                cells.append("" if r is None else " ".join(x for x in (_value(r), _cell_change(r),
                                                                        f"*{r.verdict}*" if r.verdict and not r.note
                                                                        else "",
                                                                        f"({r.symmetry_effect})"
                                                                        if r.symmetry_effect else "") if x))
            lines.append(f"| {change} | " + " | ".join(c.replace("|", "/") for c in cells) + " |")
        lines.append("")
    return lines


def figure(df: pd.DataFrame):
    """One heatmap per table size and line-up: presets x rule changes, the change of the largest gap
    in drinks a game ('?' where the simulation cannot tell, 'S' where the change is exactly fair)."""
    import matplotlib.pyplot as plt
    ch = df[df["change"] != "(preset)"]
    panels = list(dict.fromkeys(zip(ch["players"], ch["lineup"], ch["method"])))
    changes = [f"{o}={_fmt(v)}" for o, vals in CHANGES.items() for v in vals if f"{o}={_fmt(v)}" in set(ch["change"])]
    presets = list(PRESETS)
    fig, axes = plt.subplots(len(panels), 1, figsize=(16, 2.1 * len(panels) + 1.5), squeeze=False,
                             layout="constrained")
    span = float(np.nanmax(np.abs(ch["gap_change"]))) if ch["gap_change"].notna().any() else 1.0
    for ax, (n, lu, method) in zip(axes[:, 0], panels):
        sub = ch[(ch["players"] == n) & (ch["lineup"] == lu) & (ch["method"] == method)]
        mat = np.full((len(presets), len(changes)), np.nan)
        for r in sub.itertuples():
            mat[presets.index(r.base), changes.index(r.change)] = r.gap_change
        im = ax.imshow(mat, cmap="RdBu_r", vmin=-span, vmax=span, aspect="auto")
        for r in sub.itertuples():
            i, j = presets.index(r.base), changes.index(r.change)
            mark = "S" if r.symmetric and r.source == "symmetry" else "?" if "cannot" in r.verdict else \
                "" if math.isnan(r.gap_change) else f"{r.gap_change:+.2f}"
            ax.text(j, i, mark, ha="center", va="center", fontsize=6)
        ax.set_yticks(range(len(presets)), presets, fontsize=7)
        ax.set_xticks(range(len(changes)), changes if ax is axes[-1, 0] else [""] * len(changes), rotation=70,
                      fontsize=7, ha="right")
        ax.set_title(f"{n} players, {'optimal play' if lu == 'optimal' else lu} ({method})", fontsize=9)
    fig.colorbar(im, ax=axes[:, 0], label="change of the largest gap (drinks a game); blue = fairer", shrink=0.6)
    fig.suptitle("One rule change from each preset: S exactly fair (symmetry), ? cannot tell")
    return fig


def _commit() -> str:
    """The commit of the code that runs (``+dirty`` when the code differs from it; results do not count)."""
    import subprocess
    root = Path(__file__).resolve().parents[1]
    try:
        sha = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=root, capture_output=True, text=True,
                             timeout=5).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)results"],
                               cwd=root, capture_output=True, text=True, timeout=5).stdout.strip()
        return (sha + ("+dirty" if dirty else "")) if sha else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _write_report(out: Path, df: pd.DataFrame, meta: dict) -> None:
    import matplotlib
    matplotlib.use("Agg")
    from four21sim.study.figures import save
    with atomic_path(out / "figures" / "rule_space.png") as tmp:
        save(figure(df), tmp)
    write_text_atomic(out / "RULE_SPACE.md", report(df, meta))


def kept_exact(out: Path) -> tuple[list[dict], dict]:
    """``--simulations-only``: the exact rows of the folder's table, as its run made them, and what that run was."""
    pq, mf = out / "rule_space.parquet", out / "manifest.json"
    if not (pq.is_file() and mf.is_file()):
        raise SystemExit(f"rule_space: --simulations-only needs a finished run in {out} (rule_space.parquet and "
                         "manifest.json); none there")
    df, meta = pd.read_parquet(pq), json.loads(mf.read_text())
    rows = df[df["method"] == "exact"].to_dict("records")
    origin = meta.get("exact_kept") or {"command": meta["command"], "commit": meta["commit"],
                                        "exact_players": meta["exact_players"], "skipped": meta.get("skipped", 0),
                                        "solve_budget": meta["solve_budget"],
                                        **({"exact_reused": meta["exact_reused"]} if meta.get("exact_reused") else {})}
    return rows, {**origin, "rows": len(rows)}


def _report_only(out: Path) -> int:
    """The report and figure again from a finished run's table and manifest (the wording of this code,
    the numbers of that run: the verdicts, which are wording, are derived again); the manifest records it."""
    df = pd.read_parquet(out / "rule_space.parquet")
    df["verdict"] = [_verdict(r) for r in df.itertuples()]
    meta = json.loads((out / "manifest.json").read_text())
    meta["report_rewritten"] = {"commit": _commit(), "version": __version__}
    _write_report(out, df, meta)
    write_text_atomic(out / "manifest.json", json.dumps(meta, indent=2) + "\n")
    print(f"wrote {out / 'RULE_SPACE.md'} from {out / 'rule_space.parquet'}")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=300_000, help="simulated games per variant and table size "
                   "(default 300000)")
    p.add_argument("--sim-players", default="4,6", help="table sizes simulated (greedy), comma-separated "
                   "(default 4,6)")
    p.add_argument("--exact-players", default=",".join(map(str, EXACT_PLAYERS)),
                   help="table sizes solved exactly at optimal play (default 2,3; 4 solves each change's "
                        "4-player equilibrium: minutes each)")
    p.add_argument("--solve-budget", type=float, default=7200.0,
                   help="seconds the 3-player equilibria may take (default 7200, enough for all 92 on 2 cores: "
                        "about 25 minutes; cached ones cost nothing)")
    p.add_argument("--out", default="results/rule_space", help="output directory")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--simulations-only", action="store_true",
                   help="play the simulations again, keep the folder's exact rows as they are (no solve)")
    p.add_argument("--report-only", action="store_true",
                   help="write RULE_SPACE.md and the figure again from the folder's rule_space.parquet (no solve, "
                        "no game)")
    args = p.parse_args(argv)
    sim_players = [int(x) for x in args.sim_players.split(",") if x.strip()]
    out = Path(args.out)
    if args.report_only:
        return _report_only(out)
    t0 = time.perf_counter()
    commit = _commit()  # the code as it starts, not as it is when the run ends
    specs = variant_specs()
    exact_players = tuple(int(x) for x in args.exact_players.split(",") if x.strip())
    kept = {}
    if args.simulations_only:
        exact, kept = kept_exact(out)
        exact_players, budget, reused = tuple(kept["exact_players"]), {"skipped": kept["skipped"]}, None
        args.solve_budget = kept["solve_budget"]
    else:
        reuse, reused = reusable_exact(out)
        out.mkdir(parents=True, exist_ok=True)
        exact, budget = exact_rows(specs, args.solve_budget, exact_players, reuse, out / PARTIAL)
    sim = simulated_rows(specs, sim_players, args.games)
    df = analyse(exact + sim)
    meta = dict(command="python experiments/rule_space.py" + "".join(f" {a}" for a in (argv or sys.argv[1:])),
                commit=commit, seconds=time.perf_counter() - t0, exact_players=list(exact_players),
                sim_players=sim_players, games=args.games, solve_budget=args.solve_budget,
                skipped=budget["skipped"], **(dict(exact_reused=reused) if reused else {}),
                **(dict(exact_kept=kept) if kept else {}))
    with atomic_path(out / "rule_space.parquet") as tmp:
        df.to_parquet(tmp, index=False)
    write_text_atomic(out / "manifest.json", json.dumps(dict(meta, seed=SEED, version=__version__), indent=2) + "\n")
    _write_report(out, df, meta)
    (out / PARTIAL).unlink(missing_ok=True)
    if not args.quiet:
        print(f"wrote {out / 'RULE_SPACE.md'} in {meta['seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
