"""matplotlib figures shared by the sweep report and the notebooks.

Every function takes tidy frames (as written by the sweep) and returns a Figure;
``save`` writes it as PNG.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .._util.atomic import atomic_path

__all__ = ["figure_name", "fpa_figure", "seat_share_figure", "length_figure", "swing_figure", "skill_figure",
           "drinks_figure", "felt_figure", "study_figures", "report_figures", "tournament_heatmap",
           "policy_heatmap", "save"]

_COLORS = plt.rcParams["axes.prop_cycle"].by_key()["color"]


def save(fig, path: Path) -> Path:
    """Write ``fig`` to ``path`` (PNG, or the format its suffix names) atomically, and close it.

    Drawn into a new file that then replaces ``path``: a file already there, even a hard link
    to a file elsewhere, is never written in place.
    """
    path = Path(path)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=path.suffix.lstrip(".").lower() or "png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def _legend_outside(ax, **kw) -> None:
    """The legend to the right of the axes: over the bars, wherever matplotlib's "best" put it, it hid
    one (figures are saved with ``bbox_inches="tight"``, which makes room for it)."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0, **kw)


def fpa_figure(fair: pd.DataFrame, lineup: str) -> plt.Figure:
    """First-player advantage by variant and player count, with 95% intervals (and exact 2-player values)."""
    sub = fair[fair["lineup"] == lineup]
    variants = list(dict.fromkeys(sub["variant"]))
    players = sorted(sub["players"].unique())
    fig, ax = plt.subplots(figsize=(8, 4.2))
    width = 0.8 / max(len(players), 1)
    for j, n in enumerate(players):
        d = sub[sub["players"] == n].set_index("variant").reindex(variants)
        x = np.arange(len(variants)) + (j - (len(players) - 1) / 2) * width
        y = 100 * d["first_player_advantage"].to_numpy()
        err = 100 * np.vstack([d["first_player_advantage"] - d["fpa_low"], d["fpa_high"] - d["first_player_advantage"]])
        ax.bar(x, y, width * 0.95, yerr=err, capsize=3, label=f"{n} players", color=_COLORS[j % len(_COLORS)])
        if "fpa_exact" in d and d["fpa_exact"].notna().any():
            ax.scatter(x, 100 * d["fpa_exact"].to_numpy(), marker="_", s=300, color="black", zorder=3,
                       label="exact (solver)" if j == 0 else None)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xticks(np.arange(len(variants)), variants, rotation=10)
    ax.set_ylabel("seat 0 win share − 1/players (pp)")
    ax.set_title(f"First-player advantage, everyone playing '{lineup}' (95% intervals)")
    _legend_outside(ax, fontsize=8)
    return fig


def seat_share_figure(measures: pd.DataFrame, lineup: str, measure: str = "win_share",
                      symmetric=()) -> plt.Figure:
    """Win share (or ``measure="lose_share"``: P(pay)) of each seat, one panel per player count,
    one line per variant; the variants in ``symmetric`` (labels) are exactly fair by the symmetry
    theorem, and their simulated points only check the engine (dotted)."""
    what = {"win_share": "win share", "lose_share": "P(pays)"}[measure]
    sub = measures[(measures["lineup"] == lineup) & (measures["measure"] == measure)]
    players = sorted(sub["players"].unique())
    # at least 6.4 inches: one panel of 3.2 left no room for the legend beside it (matplotlib could
    # not lay the figure out, and said so on the terminal)
    fig, axes = plt.subplots(1, len(players), figsize=(max(3.2 * len(players), 6.4), 3.4), squeeze=False,
                             layout="constrained")
    for ax, n in zip(axes[0], players):
        d = sub[sub["players"] == n]
        for i, (v, g) in enumerate(d.groupby("variant", sort=False)):
            sym = v in symmetric
            ax.errorbar(g["seat"], 100 * g["value"], yerr=100 * np.vstack([g["value"] - g["ci_low"],
                                                                            g["ci_high"] - g["value"]]),
                        marker="o", ms=4, capsize=2, ls=":" if sym else "-",
                        label=v + (" (exactly fair: symmetry)" if sym else ""), color=_COLORS[i % len(_COLORS)])
        ax.axhline(100 / n, color="grey", lw=0.8, ls="--")
        ax.set_title(f"{n} players")
        ax.set_xlabel("seat (0 leads first)")
        ax.set_xticks(range(n))
    axes[0][0].set_ylabel(f"{what} (%)")
    if sub["variant"].nunique() <= 12:
        axes[0][-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1))
    fig.suptitle(f"{what[0].upper() + what[1:]} by seat, everyone playing '{lineup}' (95% intervals; dashed: fair)")
    return fig


def length_figure(dists: pd.DataFrame, lineup: str, players: int = 2) -> plt.Figure:
    """Distribution of the number of rounds in a game, by variant."""
    sub = dists[(dists["lineup"] == lineup) & (dists["players"] == players) & (dists["which"] == "rounds")]
    fig, ax = plt.subplots(figsize=(7, 3.8))
    for i, (v, g) in enumerate(sub.groupby("variant", sort=False)):
        ax.plot(g["value"], 100 * g["p"], marker=".", label=v, color=_COLORS[i % len(_COLORS)])
    ax.set_xlabel("rounds in the game")
    ax.set_ylabel("% of games")
    if not sub.empty:  # cut the long tail: up to the 99.9th percentile of the longest variant
        tails = [g["value"].to_numpy()[np.searchsorted(np.cumsum(g["p"].to_numpy()), 0.999)]
                 for _, g in sub.groupby("variant") if len(g)]
        ax.set_xlim(0, max(tails) + 1)
    ax.set_title(f"Game length, {players} players playing '{lineup}'")
    ax.legend(fontsize=8)
    return fig


def swing_figure(dists: pd.DataFrame, lineup: str, players: int = 2) -> plt.Figure:
    """Tokens moved per round, by variant."""
    sub = dists[(dists["lineup"] == lineup) & (dists["players"] == players) & (dists["which"] == "swing_round")]
    variants = list(dict.fromkeys(sub["variant"]))
    fig, ax = plt.subplots(figsize=(7, 3.8))
    width = 0.8 / max(len(variants), 1)
    for i, v in enumerate(variants):
        g = sub[sub["variant"] == v]
        ax.bar(g["value"] + (i - (len(variants) - 1) / 2) * width, 100 * g["p"], width, label=v,
               color=_COLORS[i % len(_COLORS)])
    ax.set_xlabel("tokens moved in a round")
    ax.set_ylabel("% of rounds")
    ax.set_title(f"Token swing per round, {players} players playing '{lineup}'")
    ax.legend(fontsize=8)
    return fig


def skill_figure(skill: pd.DataFrame) -> plt.Figure:
    """Edge of one skilled player among habit players, by variant and player count."""
    fig, ax = plt.subplots(figsize=(8, 4.2))
    if skill.empty:
        ax.text(0.5, 0.5, "no one:A/B line-up in this study", ha="center", transform=ax.transAxes)
        return fig
    keys = list(dict.fromkeys(zip(skill["lineup"], skill["players"])))
    variants = list(dict.fromkeys(skill["variant"]))
    width = 0.8 / len(keys)
    for j, (lu, n) in enumerate(keys):
        d = skill[(skill["lineup"] == lu) & (skill["players"] == n)].set_index("variant").reindex(variants)
        x = np.arange(len(variants)) + (j - (len(keys) - 1) / 2) * width
        ax.bar(x, 100 * d["edge"], width * 0.95, yerr=100 * np.vstack([d["score"] - d["ci_low"],
                                                                       d["ci_high"] - d["score"]]),
               capsize=2, label=f"{lu}, {n}p", color=_COLORS[j % len(_COLORS)])
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xticks(np.arange(len(variants)), variants, rotation=10)
    ax.set_ylabel("skilled player's win share − 1/players (pp)")
    ax.set_title("How much skill matters: one skilled player among habit players")
    _legend_outside(ax, fontsize=7)
    return fig


def drinks_figure(scores: pd.DataFrame) -> plt.Figure:
    """What the first leader pays beyond its share, in drinks a game, by table size, one line per
    variant (the headline play of ``scores``): filled markers exact (symmetry or solver), open
    markers simulated with their 95% intervals."""
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    head = scores[scores["headline"]] if "headline" in scores else scores.iloc[0:0]
    for i, (v, g) in enumerate(head.groupby("variant", sort=False)):
        g = g.sort_values("players")
        col = _COLORS[i % len(_COLORS)]
        label = v + (" (symmetry: exactly 0)" if g["symmetric"].all() else "")
        ax.plot(g["players"], g["lead_drinks"], color=col, lw=1, label=label)
        ex = g[g["lead_drinks_low"].isna()]
        ax.plot(ex["players"], ex["lead_drinks"], "o", color=col)
        sim = g[g["lead_drinks_low"].notna()]
        ax.errorbar(sim["players"], sim["lead_drinks"], yerr=[sim["lead_drinks"] - sim["lead_drinks_low"],
                                                              sim["lead_drinks_high"] - sim["lead_drinks"]],
                    fmt="o", mfc="white", color=col, capsize=3)
    ax.axhline(0, color="grey", lw=0.8)
    if not head.empty:  # each table size with the play its values are for
        ns = sorted(head["players"].unique())
        plays = ["/".join(dict.fromkeys("optimal" if lu == "optimal" else lu
                                        for lu in head.loc[head["players"] == n, "lineup"])) for n in ns]
        ax.set_xticks(ns, [f"{n}\n({p})" for n, p in zip(ns, plays)])
    ax.set_xlabel("players (play)")
    ax.set_ylabel("drinks a game beyond its share")
    ax.set_title("What the first leader pays (negative: saves); filled: exact, open: simulated (95% CI)",
                 fontsize=9)
    _legend_outside(ax, fontsize=8)  # "best" put it over le bon's 4-player point (results/lebon_vs_exact)
    return fig


def felt_figure(dists: pd.DataFrame, lineup: str, which: str = "rounds") -> plt.Figure:
    """Survival curves P(X >= x) of game length (``which="rounds"``) or of the tokens one player
    takes in a game (``"taken"``), one panel per player count, one line per variant."""
    sub = dists[(dists["lineup"] == lineup) & (dists["which"] == which)]
    players = sorted(sub["players"].unique())
    fig, axes = plt.subplots(1, max(len(players), 1), figsize=(3.3 * max(len(players), 1), 3.4), squeeze=False,
                             layout="constrained")
    for ax, n in zip(axes[0], players):
        d = sub[sub["players"] == n]
        for i, (v, g) in enumerate(d.groupby("variant", sort=False)):
            p = g["p"].to_numpy()
            surv = 1 - np.concatenate([[0.0], np.cumsum(p)[:-1]])
            ax.step(g["value"], 100 * surv, where="post", label=v, color=_COLORS[i % len(_COLORS)])
        ax.set_yscale("log")
        ax.set_ylim(0.05, 110)
        ax.set_title(f"{n} players")
        ax.set_xlabel("rounds in the game" if which == "rounds" else "tokens taken in a game")
    axes[0][0].set_ylabel("% of games at least this" if which == "rounds" else "% of players taking at least this")
    if sub["variant"].nunique() <= 12:
        axes[0][-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1))
    fig.suptitle(("Game length" if which == "rounds" else "Tokens one player takes in a game")
                 + f", everyone playing '{lineup}'")
    return fig


def study_figures(tables: dict, lineup: str) -> dict:
    """The fairness and felt-distribution figures of a study (title -> Figure)."""
    figs = {}
    sc = tables.get("scores", pd.DataFrame())
    if not sc.empty and "headline" in sc:
        figs["Who pays: the first leader, in drinks"] = drinks_figure(sc)
    sym = set(sc.loc[sc["symmetric"] & (sc["lineup"] == lineup), "variant"]) if not sc.empty else set()
    figs[f"P(pay) by seat ({lineup})"] = seat_share_figure(tables["measures"], lineup, "lose_share", sym)
    figs[f"Game length, survival ({lineup})"] = felt_figure(tables["distributions"], lineup, "rounds")
    figs[f"Tokens taken per player per game ({lineup})"] = felt_figure(tables["distributions"], lineup, "taken")
    return figs


def figure_name(i: int, title: str) -> str:
    """The file name of the report's ``i``-th figure (from 0): its number and its title as a slug."""
    keep = "".join(ch.lower() if ch.isalnum() else "-" for ch in title)
    while "--" in keep:
        keep = keep.replace("--", "-")
    return f"{i + 1:02d}-{keep.strip('-')}.png"


def report_figures(tables: dict) -> dict:
    """Every figure of a study's report (title -> Figure), in the report's order: the fairness and
    felt distributions (:func:`study_figures`), the first-player advantage, win shares by seat,
    game length and token swing at the smallest table, and skill."""
    fair, meas, dists = tables["fairness"], tables["measures"], tables["distributions"]
    figs = {}
    if not fair.empty:
        lineups = list(dict.fromkeys(fair["lineup"]))
        ref = "greedy" if "greedy" in lineups else lineups[0]
        players = sorted(fair["players"].unique())
        small = 2 if 2 in players else players[0]
        figs.update(study_figures(tables, ref))
        figs[f"First-player advantage ({ref})"] = fpa_figure(fair, ref)
        if "optimal" in lineups:
            figs["First-player advantage (optimal: 2 and 3 players)"] = fpa_figure(fair, "optimal")
        figs[f"Win share by seat ({ref})"] = seat_share_figure(meas, ref)
        figs[f"Game length ({ref}, {small} players)"] = length_figure(dists, ref, small)
        figs[f"Token swing per round ({ref}, {small} players)"] = swing_figure(dists, ref, small)
    if not tables["skill"].empty:
        figs["Skill against luck"] = skill_figure(tables["skill"])
    return figs


def _annotate(ax, im, values, text, fontsize):
    """Write each cell's text in black or white, whichever reads better on its colour."""
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            if text[i][j] == "" or not np.isfinite(values[i, j]):
                continue
            r, g, b, _ = im.cmap(im.norm(values[i, j]))
            ink = "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"
            ax.text(j, i, text[i][j], ha="center", va="center", fontsize=fontsize, color=ink)


def tournament_heatmap(df: pd.DataFrame) -> plt.Figure:
    """Row policy's score against the column policy (from :func:`four21sim.analysis.tournament.tournament`)."""
    names = list(dict.fromkeys(list(df["policy_a"]) + list(df["policy_b"])))
    mat = np.full((len(names), len(names)), np.nan)
    for r in df.itertuples():
        mat[names.index(r.policy_a), names.index(r.policy_b)] = 100 * r.score
    fair = 100 * float(df["fair"].iloc[0])
    fig, ax = plt.subplots(figsize=(1.2 * len(names) + 2, 1.0 * len(names) + 1.5))
    span = np.nanmax(np.abs(mat - fair)) if np.isfinite(mat).any() else 1
    im = ax.imshow(mat, cmap="RdBu", vmin=fair - span, vmax=fair + span)
    _annotate(ax, im, mat, [[f"{x:.1f}" if np.isfinite(x) else "" for x in row] for row in mat], 8)
    ax.set_xticks(range(len(names)), names, rotation=30)
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("opponents' policy")
    ax.set_ylabel("policy")
    fig.colorbar(im, ax=ax, label="win share (%)")
    ax.set_title("Tournament: win share of the row policy, seats rotated")
    return fig


def policy_heatmap(values: np.ndarray, row_labels, col_labels, title: str, cell_text=None,
                   cmap: str = "viridis", label: str = "", vmin=None, vmax=None,
                   fontsize: int = 6) -> plt.Figure:
    """A labelled heatmap (used for keep tables and win probabilities in the notebooks)."""
    values = np.asarray(values, dtype=float)
    fig, ax = plt.subplots(figsize=(1.1 * len(col_labels) + 2.5, 0.28 * len(row_labels) + 1.5))
    im = ax.imshow(values, aspect="auto", cmap=cmap, vmin=vmin, vmax=vmax)
    if cell_text is not None:
        _annotate(ax, im, values, cell_text, fontsize)
    ax.set_xticks(range(len(col_labels)), col_labels)
    ax.set_yticks(range(len(row_labels)), row_labels, fontsize=6)
    fig.colorbar(im, ax=ax, label=label)
    ax.set_title(title)
    return fig
