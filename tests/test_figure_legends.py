"""No legend hides a bar (issue 37: the report's first-player advantage figure had its legend
over a bar). Every figure of the committed default study's report is drawn again from its own
tables; the witness is matplotlib's layout: the legend's box against every bar's box."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

import four21sim  # noqa: E402
from four21sim.study.figures import report_figures  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _overlaps(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def test_no_legend_covers_a_bar():
    res = four21sim.load(ROOT / "results" / "default")
    tables = {name: res[name] for name in ("fairness", "measures", "distributions", "skill", "scores")}
    figs = report_figures(tables)
    checked = 0
    try:
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
    finally:
        for fig in figs.values():
            plt.close(fig)
    assert checked >= 2  # the first-player advantage and the skill figures at least
