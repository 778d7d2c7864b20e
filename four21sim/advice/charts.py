"""Cheat sheets: the best keep and its exact chance in every situation, on one page.

    >>> from four21sim import charts
    >>> charts.write_cheat_sheet("super421", "super421-keeps.pdf")   # or .png

The sheet has two panels, one row per hand (best first in the variant's ranking):

- **leader**: after the first and the second throw, stop or which dice to keep, and
  P(not losing the round to one follower who plays to beat you), a tie counting half
  (:func:`four21sim.exact.odds.leader_round`);
- **follower**: for a choice of hands to beat, grouped by kind (fiches and brelans,
  suites, plain hands), with two throws left and with one, the keep and P(beat it)
  under the variant's follower rule.

Every number is the one ``four21sim advise`` prints for the same question
(:func:`cheat_sheet_data` is the table drawn).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..exact import odds
from ..rules import dice
from ..rules.variants import Variant, as_variant

__all__ = ["FOLLOWER_TARGETS", "cheat_sheet_data", "cheat_sheet", "write_cheat_sheet", "readable"]

# hands to beat shown on the follower panel, by kind: what a follower usually faces
FOLLOWER_TARGETS = {"fiche or brelan": ("611", "555", "411", "311", "222"),
                    "suite": ("654", "321"),
                    "plain hand": ("665", "652", "631", "553", "431")}


def leader_limit(variant: Variant) -> int:
    """The larger of the phases' throw limits: the leader's decisions the sheet shows."""
    return max(variant.charge_throws, variant.decharge_throws)


def cheat_sheet_data(variant: Variant | str, targets: Sequence[str] | None = None) -> pd.DataFrame:
    """The cells of the cheat sheet as a tidy table.

    Columns: ``role`` (leader, follower), ``hand``, ``throws_left``, ``beat`` (the hand
    to beat, empty for the leader), ``keep`` (as ``advise`` writes it), ``p`` (the
    exact chance, as a float), ``measure``.
    """
    v = as_variant(variant)
    targets = list(targets) if targets is not None else [t for ts in FOLLOWER_TARGETS.values() for t in ts]
    order = [dice.hand_name(int(h)) for h in dice.ORDER[v.ranking_index]]
    rows = []
    L = leader_limit(v)
    for m in range(L - 1, 0, -1):
        for h in order:
            best = odds.keep_advice(h, m, objective="round", variant=v, throws=L)[0]
            rows.append(dict(role="leader", hand=h, throws_left=m, beat="", keep=best.keep, p=float(best.value),
                             measure="P(not losing the round)"))
    for t in targets:
        t = dice.hand_name(dice.parse_hand(t, "targets"))
        for m in (2, 1):
            for h in order:
                best = odds.keep_advice(h, m, beat=t, variant=v)[0]
                rows.append(dict(role="follower", hand=h, throws_left=m, beat=t, keep=best.keep,
                                 p=float(best.value), measure=f"P(beat {t})"))
    return pd.DataFrame(rows)


def _text_colour(cmap, norm, value) -> str:
    r, g, b, _ = cmap(norm(value))
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


def _panel(ax, values, labels, row_names, col_names, title, cmap, norm, fontsize):
    ax.imshow(values, aspect="auto", cmap=cmap, norm=norm, interpolation="nearest")
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            ax.text(j, i, labels[i][j], ha="center", va="center", fontsize=fontsize,
                    color=_text_colour(cmap, norm, values[i, j]))
    ax.set_yticks(range(len(row_names)), row_names, fontsize=fontsize + 1, family="monospace")
    ax.set_xticks(range(len(col_names)), col_names, fontsize=fontsize + 0.5)
    ax.tick_params(axis="x", top=True, labeltop=True, bottom=True, labelbottom=True, length=0)
    ax.tick_params(axis="y", length=0)
    ax.set_title(title, fontsize=fontsize + 3, loc="left", pad=44)


def cheat_sheet(variant: Variant | str, targets: Sequence[str] | None = None, overrides: Sequence[str] = ()):
    """Draw the cheat sheet of a variant (a matplotlib Figure, A3 landscape: prints on one page).

    Parameters
    ----------
    variant : Variant or str
        The rules (a preset name, or a Variant).
    targets : list of str, optional
        The hands to beat on the follower panel (default: :data:`FOLLOWER_TARGETS`).
    overrides : list of str
        Rule overrides (``"tokens=21"``) applied to a preset.
    """
    import matplotlib.pyplot as plt
    from matplotlib import colors

    v = as_variant(variant, overrides)
    data = cheat_sheet_data(v, targets)
    order = list(dict.fromkeys(data["hand"]))
    cmap = plt.get_cmap("YlGnBu")
    norm = colors.PowerNorm(0.5, vmin=0, vmax=1)
    lead = data[data["role"] == "leader"]
    foll = data[data["role"] == "follower"]
    lead_cols = [(m,) for m in sorted(set(lead["throws_left"]), reverse=True)]
    foll_cols = list(dict.fromkeys(zip(foll["beat"], foll["throws_left"])))
    fig = plt.figure(figsize=(16.5, 11.7))
    widths = [max(len(lead_cols), 1) * 1.0 + 0.6, len(foll_cols) * 1.0 + 0.6]
    gs = fig.add_gridspec(1, 2, width_ratios=widths, wspace=0.12, left=0.035, right=0.99, top=0.875, bottom=0.05)
    fs = 6.2

    def grid(sub, cols, key):
        idx = {k: j for j, k in enumerate(cols)}
        vals = np.full((len(order), len(cols)), np.nan)
        labels = [[""] * len(cols) for _ in order]
        pos = {h: i for i, h in enumerate(order)}
        for r in sub.itertuples():
            i, j = pos[r.hand], idx[key(r)]
            vals[i, j] = r.p
            labels[i][j] = f"{r.keep}  {100 * r.p:.0f}%" if r.p >= 0.005 or r.p == 0 else f"{r.keep}  <1%"
        return vals, labels

    if lead_cols:
        ax = fig.add_subplot(gs[0])
        vals, labels = grid(lead, lead_cols, lambda r: (r.throws_left,))
        names = [f"after throw {leader_limit(v) - m}\n({m} left)" for (m,) in lead_cols]
        _panel(ax, vals, labels, order, names, "Leader: stop or keep?\nP(not losing the round)", cmap, norm, fs)
    ax = fig.add_subplot(gs[1])
    vals, labels = grid(foll, foll_cols, lambda r: (r.beat, r.throws_left))
    names = [f"beat {t}\n{m} left" for t, m in foll_cols]
    _panel(ax, vals, labels, order, names,
           f"Follower ({v.followers} rule): keep what, to beat the worst hand on the table?  P(beat it)",
           cmap, norm, fs)
    # group headers over the follower columns: the kinds of hands to beat
    kinds = {t: kind for kind, ts in FOLLOWER_TARGETS.items() for t in ts}
    start = 0
    for j in range(1, len(foll_cols) + 1):
        if j == len(foll_cols) or kinds.get(foll_cols[j][0]) != kinds.get(foll_cols[start][0]):
            ax.axvline(j - 0.5, color="black", lw=1.2)
            kind = kinds.get(foll_cols[start][0])
            if kind:
                ax.text((start + j - 1) / 2, -2.4, f"to beat: {kind}", ha="center", va="bottom", fontsize=fs + 2)
            start = j
    fig.suptitle(f"What to keep at {v.describe()}: the best keep and its exact chance "
                 "('_ 2 1' = keep the 2 and the 1, re-throw the rest; 'stop' = keep all)",
                 fontsize=11, x=0.01, y=0.985, ha="left")
    fig.text(0.01, 0.015, "Exact single-turn odds from four21sim (four21sim advise gives every keep of any cell; "
             "add --state POT,MINE,THEIRS for the 2-player game answer). Rules: docs/rules.md.", fontsize=8)
    return fig


def write_cheat_sheet(variant: Variant | str, out: str | Path, overrides: Sequence[str] = (),
                      targets: Sequence[str] | None = None) -> Path:
    """Draw the cheat sheet and write it to ``out`` (PNG or PDF, by extension), atomically."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .._util.atomic import atomic_path

    out = Path(out)
    fmt = out.suffix.lower().lstrip(".")
    if fmt not in ("png", "pdf"):
        raise ValueError(f"--out: {str(out)!r} is not allowed; allowed: a file name ending in .png or .pdf")
    if out.parent != Path("") and not out.parent.is_dir():
        raise ValueError(f"--out: the folder {str(out.parent)!r} does not exist")
    fig = cheat_sheet(variant, targets, overrides)
    try:
        with atomic_path(out) as tmp:
            fig.savefig(tmp, format=fmt, dpi=170)
    except OSError as exc:
        raise ValueError(f"--out: cannot write {str(out)!r} ({exc.strerror or exc})") from None
    finally:
        plt.close(fig)
    return out


def readable(fig, clim=None, gamma=None, fontsize=None, top=False):
    """Tidy a heatmap from :mod:`four21sim.study.figures`: dark labels on light cells, light on dark.

    ``clim``: (low, high) of the colour scale; ``gamma`` < 1 spreads out small values;
    ``fontsize``: size of the cell and row labels; ``top``: repeat the column names
    above (tall tables). Returns the figure.
    """
    from matplotlib import colors

    ax = fig.axes[0]
    im = ax.images[0]
    lo, hi = clim if clim is not None else im.get_clim()
    im.set_norm(colors.PowerNorm(gamma, vmin=lo, vmax=hi) if gamma else colors.Normalize(lo, hi))
    data = np.asarray(im.get_array())
    for t in ax.texts:
        x, y = t.get_position()
        t.set_color(_text_colour(im.cmap, im.norm, data[int(round(y)), int(round(x))]))
        if fontsize:
            t.set_fontsize(fontsize)
    if fontsize:
        ax.tick_params(axis="y", labelsize=fontsize + 0.5)
    if top:
        ax.tick_params(axis="x", labelsize=8, top=True, labeltop=True)
    return fig
