"""No legend hides a bar (issue 37: the report's first-player advantage figure had its legend
over a bar), a line or a point (results/lebon_vs_exact's drinks figure had its legend over le
bon's 4-player point), and a study at one table size is laid out without matplotlib's warning.
The committed studies' figures are drawn again from their own tables; the witness is
matplotlib's layout: the legend's box against every bar's box and every line's points."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

import four21sim  # noqa: E402
from four21sim.study.figures import report_figures  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TABLES = ("fairness", "measures", "distributions", "skill", "scores")  # what report_figures reads


def _tables(study: str) -> dict:
    res = four21sim.load(ROOT / "results" / study)
    return {name: res[name] for name in TABLES}


@contextmanager
def _figures(tables: dict):
    """The report's figures drawn from ``tables`` (by title), closed afterwards."""
    figs = report_figures(tables)
    try:
        yield figs
    finally:
        for fig in figs.values():
            plt.close(fig)


def _overlaps(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def test_no_legend_covers_a_bar():
    checked = 0
    with _figures(_tables("default")) as figs:
        for title, fig in figs.items():
            fig.canvas.draw()
            renderer = fig.canvas.get_renderer()
            for ax in fig.axes:
                legend = ax.get_legend()
                bars = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_height() != 0]
                if legend is None or not bars:
                    continue
                box = legend.get_window_extent(renderer)
                hidden = [p for p in bars if _overlaps(box, p.get_window_extent(renderer))]
                assert not hidden, f"{title}: the legend covers {len(hidden)} bar(s)"
                checked += 1
    assert checked >= 2  # the first-player advantage and the skill figures at least


def _line_points(line, per_segment: int = 25):
    """Display coordinates of a line's data points and of points along its segments."""
    xy = line.get_transform().transform(np.column_stack(line.get_data()).astype(float))
    xy = xy[np.isfinite(xy).all(axis=1)]
    if len(xy) < 2:
        return xy
    t = np.linspace(0, 1, per_segment)[:, None]
    along = [a + t * (b - a) for a, b in zip(xy[:-1], xy[1:])] if line.get_linestyle() not in ("None", "") else []
    return np.vstack([xy, *along])


@pytest.mark.slow  # 7 s of CPU
def test_no_legend_covers_a_line_or_a_point():
    """Issue 38's note: the legend of results/lebon_vs_exact's first figure sat over le bon's line
    from 4 to 6 players. Every line figure of the committed studies, drawn again from their tables:
    no plotted point, and no point along a line's segments, falls inside a legend's box."""
    checked = 0
    for study in ("default", "lebon_vs_exact"):
        with _figures(_tables(study)) as figs:
            for title, fig in figs.items():
                fig.canvas.draw()
                renderer = fig.canvas.get_renderer()
                for ax in fig.axes:
                    legend = ax.get_legend()
                    if legend is None or not ax.lines:
                        continue
                    box = legend.get_window_extent(renderer)
                    for line in ax.lines:
                        pts = _line_points(line)
                        inside = ((pts[:, 0] > box.x0) & (pts[:, 0] < box.x1) & (pts[:, 1] > box.y0)
                                  & (pts[:, 1] < box.y1))
                        assert not inside.any(), f"{study}, {title}: the legend covers {line.get_label()!r}"
                    checked += 1
    assert checked >= 4


def test_a_study_at_one_table_size_is_laid_out_without_a_warning():
    """A study at one player count with labels as long as ``--set`` makes them ("super421
    (tokens=4)"): the seat figure's single panel was too narrow for the legend beside it, and
    matplotlib warned on the user's terminal that it could not lay the figure out."""
    import warnings

    tables = {}
    for name, t in _tables("default").items():
        t = t[t["players"] == 3].copy()
        t["variant"] = t["variant"] + " (tokens=4)"
        tables[name] = t
    with _figures(tables) as figs:
        for fig in figs.values():
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                fig.canvas.draw()  # matplotlib's layout warning is an error here
    assert len(figs) >= 8
