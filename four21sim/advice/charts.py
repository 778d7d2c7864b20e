"""Cheat sheets to print: the best keep and its exact chance in every situation, on A4 pages.

    >>> from four21sim.advice import charts
    >>> charts.write_cheat_sheet("super421", "super421-keeps.pdf")   # every page in one PDF

The sheet of a variant is a few A4 portrait pages, every text at 8 pt or more, one row
per hand held (best first in the variant's ranking, the hand written at both ends of
the row):

- **page 1, the leader**: after the first and the second throw, stop or which dice to
  keep, and P(not losing the round to one follower who plays to beat you), a tie
  counting half (:func:`four21sim.exact.odds.leader_round`);
- **the follower's pages**: every hand that can be beaten (all but 421), grouped by kind
  in ranking order (fiches and brelans, suites, nénette, the plain hands by their
  highest die), with two throws left and with one: the keep and P(beat it) under the
  variant's follower rule. Under the ``exact`` rule a follower never stops; a framed
  cell is a hand that already beats the target but must be re-thrown.

Each page states the rules the chances count and leave out (the follower rule, the
tie-breaks by throws and the nénette rescue). Every number is the one
``four21sim advise`` prints for the same question (:func:`cheat_sheet_data` is the
table drawn).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pandas is imported where a table is made: a command that makes none does not pay for it
    import pandas as pd

from ..exact import odds
from ..rules import dice
from ..rules.variants import Variant, as_variant
from .advisor import tie_ordered

__all__ = ["PAGE_SIZE", "MIN_FONT", "TARGETS_PER_PAGE", "target_groups", "cheat_sheet_data", "cheat_sheet",
           "write_cheat_sheet", "readable", "leader_limit", "short_keep", "cell_text", "rule_notes", "game_note"]

PAGE_SIZE = (8.27, 11.69)  # A4 portrait, inches
MIN_FONT = 8.0  # points: no text on the sheet is smaller
TARGETS_PER_PAGE = 6  # hands to beat per follower page (two columns each)
_PT = 72.0  # points per inch
_W, _H = PAGE_SIZE[0] * _PT, PAGE_SIZE[1] * _PT
_MARGIN = 28.0
_LABEL_W = 26.0  # the hand column at each end of a row
_TOP = 118.0  # from the top of the page to the first row of cells
_BOTTOM = 40.0  # the least room for the notes under the table (more when they need it)
_MONO = "DejaVu Sans Mono"
_LEGEND = ("The best keep and its exact chance: the dice to keep ('61' = keep the 6 and the 1, re-throw the "
           "other die; '-' = re-throw all three; 'stop' = keep all).")
_LEGEND_SHORT = "'61' = keep the 6 and the 1; '-' = re-throw all three."


def leader_limit(variant: Variant) -> int:
    """The larger of the phases' throw limits: the leader's decisions the sheet shows."""
    return max(variant.charge_throws, variant.decharge_throws)


def _kind(h: int, ranking: str) -> str:
    cat = dice.CATEGORY_NAMES[dice.CATEGORY[h]]
    if cat in ("brelan", "fiche"):
        return "three of a kind and fiches"
    if cat == "suite":
        return "suites"
    if cat == "nenette":
        return "nénette"
    return f"plain hands, {dice.HANDS[h][0]} high"


def target_groups(variant: Variant | str) -> list[tuple[str, list[str]]]:
    """Every hand that can be beaten (all but 421), in ranking order, grouped by kind:
    ``[(kind, [hand, ...]), ...]``."""
    v = as_variant(variant)
    groups: list[tuple[str, list[str]]] = []
    for h in dice.ORDER[v.ranking_index][1:]:
        kind = _kind(int(h), v.ranking)
        if not groups or groups[-1][0] != kind:
            groups.append((kind, []))
        groups[-1][1].append(dice.hand_name(int(h)))
    return groups


def _targets(variant: Variant) -> list[str]:
    return [t for _, ts in target_groups(variant) for t in ts]


def cheat_sheet_data(variant: Variant | str, targets: Sequence[str] | None = None) -> pd.DataFrame:
    """The cells of the cheat sheet as a tidy table.

    Columns: ``role`` (leader, follower), ``hand``, ``throws_left``, ``beat`` (the hand
    to beat, empty for the leader), ``keep`` (as ``advise`` writes it), ``p`` (the
    exact chance, as a float), ``exact`` (the fraction), ``measure``, and ``forced``
    (a follower whose hand already beats the target, made to re-throw by the exact rule).
    """
    v = as_variant(variant)
    if targets is not None:
        targets = tuple(dice.hand_name(dice.parse_hand(t, "targets")) for t in targets)
    # a copy: the caller may change its table, never the one kept for the next caller
    return _sheet_data(v, targets).copy()


@lru_cache(maxsize=8)
def _sheet_data(v: Variant, targets: tuple[str, ...] | None) -> pd.DataFrame:
    """:func:`cheat_sheet_data` of one variant, computed once a process (the sheet, the notebooks and the
    site ask for the same variant again)."""
    targets = targets if targets is not None else tuple(_targets(v))
    hands = [int(h) for h in dice.ORDER[v.ranking_index]]
    rank = dice.RANK[v.ranking_index]
    rows = []
    L = leader_limit(v)
    for m in range(L - 1, 0, -1):
        for h in hands:
            name = dice.hand_name(h)
            keeps = odds.keep_advice(name, m, objective="round", variant=v, throws=L, exact=True)
            best = tie_ordered(v, "leader", h, m, keeps, "round", limit=L)[0][0]
            rows.append(dict(role="leader", hand=name, throws_left=m, beat="", keep=best.keep, p=float(best.value),
                             exact=best.value, measure="P(not losing the round)", forced=False))
    for t in targets:
        ti = dice.parse_hand(t)
        for m in (2, 1):
            for h in hands:
                name = dice.hand_name(h)
                keeps = odds.keep_advice(name, m, beat=t, variant=v, exact=True)
                best = tie_ordered(v, "follower", h, m, keeps, "beat", t)[0][0]
                forced = v.followers == "exact" and rank[h] < rank[ti]
                rows.append(dict(role="follower", hand=name, throws_left=m, beat=t, keep=best.keep,
                                 p=float(best.value), exact=best.value, measure=f"P(beat {t})", forced=forced))
    import pandas as pd

    return pd.DataFrame(rows)


def short_keep(keep: str) -> str:
    """The keep as the sheet prints it, the dice kept: ``"6 _ 1"`` -> ``"61"``, ``"_ _ _"`` -> ``"-"``
    (re-throw all three); ``stop`` stays."""
    if keep == "stop":
        return keep
    return "".join(c for c in keep if c.isdigit()) or "-"


def cell_text(keep: str, p) -> str:
    """A cell: the keep and its chance, ``100%`` and ``0%`` only when exact, else ``>99%`` / ``<1%``."""
    p = float(p)
    pct = "100%" if p == 1 else ">99%" if p >= 0.995 else "0%" if p == 0 else "<1%" if p < 0.005 else f"{100 * p:.0f}%"
    if keep == "stop" and p == 1:
        return "stop"
    return f"{short_keep(keep)} {pct}"


def game_note() -> str:
    """The sheet's line on what it is not: the round answer only, and where the game answer is."""
    from .advisor import players_text
    return ("Round answers: the best keep for this round alone. The game answer (the pot, the tokens, the players "
            "still to throw) can differ; four21sim advise HAND --state ... gives both and says why "
            f"({players_text('game')} players).")


def rule_notes(v: Variant, role: str) -> list[str]:
    """What the chances on a page count and what they leave out, one line each (a sheet adds :func:`game_note`)."""
    lines = []
    if role == "leader":
        lines.append("Leader: P(not losing the round to one follower who then plays to beat your hand with as many "
                     "throws as you used); a tie counts half (roll-off).")
        one = [ph for ph in ("charge", "decharge") if v.throws(ph) == 1]
        if one:
            lines.append(f"{' and '.join(one).capitalize()}: one throw only ('sec'), nothing to decide; "
                         f"this page is the phase with {leader_limit(v)} throws.")
    elif v.followers == "exact":
        lines.append("Exact rule: a follower makes as many throws as the leader and re-throws at least one die "
                     "every time: it never stops. A framed cell holds a hand that already beats the target: "
                     "re-throw as shown.")
    else:
        lines.append("'Le bon' rule: a follower may stop after any throw; 'stop' = keep all three dice "
                     "(you already beat it).")
    left = []
    if v.fewer_throws_wins:
        left.append("equal hands are split by throws, fewer winning")
    if v.nenette_rescue:
        left.append("the nénette rescue (no combination on the table: 221 beats every hand, worth 4)")
    lines.append("Equal hands: a roll-off. "
                 + (f"Not counted here ({v.describe()} plays them): {'; '.join(left)}." if left else
                    f"{v.describe()} has no other tie-break."))
    return lines


def _colours(p: np.ndarray) -> np.ndarray:
    import matplotlib.pyplot as plt
    # light colours only: black text stays readable on every cell, in colour and in grey
    return plt.get_cmap("YlGnBu")(0.05 + 0.5 * np.sqrt(np.clip(p, 0.0, 1.0)))


def _page(v: Variant, title: str, subtitle: str, hands: list[str], columns: list[tuple], notes: list[str],
          page_label: str):
    """One A4 page: ``columns`` are ``(group, head, sub, {hand: (keep, p, forced)})``."""
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection

    fig = plt.figure(figsize=PAGE_SIZE)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.axis("off")
    lines = [w for line in notes for w in textwrap.wrap(line, 118)]
    bottom = max(_BOTTOM, 16 + 10 * len(lines))
    n = len(columns)
    col_w = (_W - 2 * _MARGIN - 2 * _LABEL_W) / n
    row_h = (_H - _TOP - bottom) / len(hands)
    x0, x1, y1 = _MARGIN + _LABEL_W, _W - _MARGIN - _LABEL_W, _H - bottom
    ax.text(_MARGIN, _MARGIN, title, fontsize=13, weight="bold", va="top")
    for k, line in enumerate(textwrap.wrap(subtitle, 108)):
        ax.text(_MARGIN, _MARGIN + 20 + 12 * k, line, fontsize=9, va="top")
    ax.text(_W - _MARGIN, _MARGIN, page_label, fontsize=9, va="top", ha="right")
    _heads(ax, columns, x0, col_w)
    p = np.array([[cells[h][1] for _, _, _, cells in columns] for h in hands], dtype=float)
    ax.imshow(_colours(p), extent=(x0, x1, y1, _TOP), interpolation="nearest", aspect="auto")
    grid = [[(x0 + j * col_w, _TOP), (x0 + j * col_w, y1)] for j in range(n + 1)]
    grid += [[(x0, _TOP + i * row_h), (x1, _TOP + i * row_h)] for i in range(len(hands) + 1)]
    ax.add_collection(LineCollection(grid, colors="white", linewidths=0.6))
    frames, guides = [], []
    for i, h in enumerate(hands):
        y = _TOP + i * row_h
        for x, ha in ((x0 - 4, "right"), (x1 + 4, "left")):
            ax.text(x, y + row_h / 2, h, fontsize=MIN_FONT + 1, weight="bold", family=_MONO, ha=ha, va="center")
        for j, (_, _, _, cells) in enumerate(columns):
            keep, pj, forced = cells[h]
            if forced:
                a, b = x0 + j * col_w + 0.8, x0 + (j + 1) * col_w - 0.8
                frames.append([(a, y + 0.8), (b, y + 0.8), (b, y + row_h - 0.8), (a, y + row_h - 0.8),
                               (a, y + 0.8)])
            ax.text(x0 + (j + 0.5) * col_w, y + row_h / 2, cell_text(keep, pj), fontsize=MIN_FONT, family=_MONO,
                    ha="center", va="center")
        if i % 4 == 3 and i + 1 < len(hands):  # a rule every 4 rows guides the eye along a row
            guides.append([(_MARGIN, y + row_h), (_W - _MARGIN, y + row_h)])
    ax.add_collection(LineCollection(frames, colors="black", linewidths=1.1))
    ax.add_collection(LineCollection(guides, colors="grey", linewidths=0.5))
    for k, line in enumerate(lines):
        ax.text(_MARGIN, _H - bottom + 6 + 10 * k, line, fontsize=MIN_FONT, va="top")
    ax.set_xlim(0, _W)
    ax.set_ylim(_H, 0)
    return fig


def _heads(ax, columns, x0, col_w) -> None:
    """The column heads: the group over its columns, the hand to beat over its pair, the throws left."""
    spans: list[list] = []
    for j, (group, head, sub, _) in enumerate(columns):
        for level, text in ((0, group), (1, head)):
            if len(spans) <= level:
                spans.append([])
            if spans[level] and spans[level][-1][0] == text:
                spans[level][-1][2] = j + 1
            else:
                spans[level].append([text, j, j + 1])
        ax.text(x0 + (j + 0.5) * col_w, _TOP - 4, sub, fontsize=MIN_FONT, ha="center", va="bottom")
    for level, y, size in ((0, _TOP - 36, 9), (1, _TOP - 20, 9)):
        for text, a, b in spans[level]:
            ax.text(x0 + (a + b) / 2 * col_w, y, text, fontsize=size, weight="bold", ha="center", va="bottom")
            ax.plot([x0 + a * col_w + 2, x0 + b * col_w - 2], [y + 2] * 2, color="black", lw=0.6)


def _cells(sub: pd.DataFrame) -> dict:
    return {r.hand: (r.keep, r.p, bool(r.forced)) for r in sub.itertuples()}


def cheat_sheet(variant: Variant | str, targets: Sequence[str] | None = None, overrides: Sequence[str] = ()):
    """Draw the cheat sheet of a variant: a list of matplotlib Figures, one A4 page each.

    Parameters
    ----------
    variant : Variant or str
        The rules (a preset name, or a Variant).
    targets : list of str, optional
        The hands to beat on the follower pages (default: every hand but 421, grouped by kind).
    overrides : list of str
        Rule overrides (``"tokens=21"``) applied to a preset.
    """
    v = as_variant(variant, overrides)
    data = cheat_sheet_data(v, targets)
    hands = list(dict.fromkeys(data["hand"]))
    L = leader_limit(v)
    lead = data[data["role"] == "leader"]
    kinds = {t: kind for kind, ts in target_groups(v) for t in ts}
    beats = list(dict.fromkeys(data.loc[data["role"] == "follower", "beat"]))
    pages_of = [beats[i:i + TARGETS_PER_PAGE] for i in range(0, len(beats), TARGETS_PER_PAGE)]
    total = 1 + len(pages_of)
    title = f"What to keep: {v.describe()}"
    cols = [("Leader: stop or keep?", f"after throw {L - m}", f"{m} left",
             _cells(lead[lead["throws_left"] == m])) for m in sorted(set(lead["throws_left"]), reverse=True)]
    index = "; ".join(f"{ts[0]}-{ts[-1]}: p. {2 + k}" for k, ts in enumerate(pages_of))
    figs = [_page(v, title, _LEGEND, hands, cols,
                  rule_notes(v, "leader") + [f"Follower pages, by the hand to beat: {index}.", game_note()],
                  f"page 1 of {total}")]
    foll = data[data["role"] == "follower"]
    for k, ts in enumerate(pages_of):
        cols = [(kinds.get(t, "chosen hands"), f"beat {t}", f"{m} left",
                 _cells(foll[(foll["beat"] == t) & (foll["throws_left"] == m)])) for t in ts for m in (2, 1)]
        figs.append(_page(v, title, f"Follower ({v.followers} rule), to beat the worst hand on the table: "
                          "the dice to keep and P(beat it). " + _LEGEND_SHORT, hands, cols,
                          rule_notes(v, "follower") + [game_note()],
                          f"page {k + 2} of {total}"))
    return figs


def write_cheat_sheet(variant: Variant | str, out: str | Path, overrides: Sequence[str] = (),
                      targets: Sequence[str] | None = None) -> list[Path]:
    """Draw the cheat sheet and write it, atomically: a PDF holds every page; a PNG name
    gets page 1 and ``NAME-2.png``, ``NAME-3.png``, ... the others. Returns the paths written."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages

    from .._util.atomic import atomic_path

    out = Path(out)
    fmt = out.suffix.lower().lstrip(".")
    if fmt not in ("png", "pdf"):
        raise ValueError(f"--out: {str(out)!r} is not allowed; allowed: a file name ending in .png or .pdf")
    if out.parent != Path("") and not out.parent.is_dir():
        raise ValueError(f"--out: the folder {str(out.parent)!r} does not exist")
    figs = cheat_sheet(variant, targets, overrides)
    written = []
    try:
        if fmt == "pdf":
            with atomic_path(out) as tmp, PdfPages(tmp) as pdf:
                for fig in figs:
                    pdf.savefig(fig)
            written.append(out)
        else:
            for k, fig in enumerate(figs):
                path = out if k == 0 else out.with_name(f"{out.stem}-{k + 1}{out.suffix}")
                with atomic_path(path) as tmp:
                    fig.savefig(tmp, format="png", dpi=110)
                written.append(path)
    except OSError as exc:
        raise ValueError(f"--out: cannot write {str(out)!r} ({exc.strerror or exc})") from None
    finally:
        for fig in figs:
            plt.close(fig)
    return written


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
        r, g, b, _ = im.cmap(im.norm(data[int(round(y)), int(round(x))]))
        t.set_color("black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white")
        if fontsize:
            t.set_fontsize(fontsize)
    if fontsize:
        ax.tick_params(axis="y", labelsize=fontsize + 0.5)
    if top:
        ax.tick_params(axis="x", labelsize=8, top=True, labeltop=True)
    return fig
