"""Cheat sheets: every cell is what ``four21sim advise`` says for the same question."""

from __future__ import annotations

import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["figure.max_open_warning"] = 0  # the module's fixture holds 33 pages
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from rules_tables import POSITION, RANKING_TEXT, hand  # noqa: E402

from four21sim.advice import charts  # noqa: E402
from four21sim.cli import advise  # noqa: E402
from four21sim.rules.variants import Variant  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("variant,phase", [("super421", "charge"), ("montreal", "decharge")])
def test_cells_are_the_advisors_answers(variant, phase):
    data = charts.cheat_sheet_data(variant)
    assert set(data["role"]) == {"leader", "follower"}
    assert len(data) == 56 * 2 + 56 * 2 * 55
    rng = random.Random(7)
    for r in rng.sample(list(data.itertuples()), 25):
        if r.role == "leader":  # the leader's limit is the phase with the most throws (montreal: décharge)
            adv = advise.advise([r.hand, "--role", "leader", "--throws-left", str(r.throws_left), "--variant", variant,
                                 "--phase", phase])
        else:
            adv = advise.advise([r.hand, "--beat", r.beat, "--throws-left", str(r.throws_left), "--variant", variant,
                                 "--phase", phase])
        assert adv["best"]["keep"] == r.keep, r
        assert Fraction(adv["best"]["exact"]) == r.exact, r
        assert adv["measure"] == r.measure


@pytest.mark.parametrize("variant", ["super421", "montreal", "classic"])
def test_every_hand_to_beat_is_on_the_sheet_grouped_in_ranking_order(variant):
    order = RANKING_TEXT[variant].split()
    groups = charts.target_groups(variant)
    flat = [t for _, ts in groups for t in ts]
    assert flat == order[1:]  # all but 421, which nothing beats
    kinds = [k for k, _ in groups]
    assert len(kinds) == len(set(kinds))  # each kind in one run
    assert set(charts.cheat_sheet_data(variant).query("role == 'follower'")["beat"]) == set(order[1:])


def test_a_table_changed_by_its_caller_does_not_change_the_next_one():
    first = charts.cheat_sheet_data("super421", targets=["6-1-1"])
    kept = first.copy()
    first.loc[0, "keep"] = "changed"
    first["p"] = -1.0
    again = charts.cheat_sheet_data("super421", targets=["611"])  # the same question, written otherwise
    assert again.equals(kept)
    assert again is not first


def test_the_exact_rule_forced_rethrow_is_marked():
    # super421 (exact followers): 421 already beats 611, yet the follower must re-throw a die
    data = charts.cheat_sheet_data("super421", targets=["611"])
    cell = data.query("role == 'follower' and hand == '421' and throws_left == 1").iloc[0]
    assert cell.forced and cell.keep != "stop"
    pos = POSITION["super421"]
    foll = data[data["role"] == "follower"]
    assert list(foll["forced"]) == [pos[hand(h)] < pos[(6, 1, 1)] for h in foll["hand"]]
    assert not any(foll["keep"] == "stop")
    # with 'le bon' the same hand stops, and nothing is forced
    lebon = charts.cheat_sheet_data("super421-lebon", targets=["611"])
    assert not lebon["forced"].any()
    assert lebon.query("role == 'follower' and hand == '421' and throws_left == 1").iloc[0].keep == "stop"


def _texts(fig):
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    return [(t, t.get_window_extent(r)) for t in fig.axes[0].texts if t.get_text()]


@pytest.fixture(scope="module")
def sheets():
    figs = {v: charts.cheat_sheet(v) for v in ("super421", "classic")}
    yield figs
    for pages in figs.values():
        for f in pages:
            plt.close(f)


@pytest.mark.slow  # 19 s of CPU
def test_a4_pages_text_at_8pt_or_more_nothing_overlaps(sheets):
    # every page of super421 (framed cells), the leader's page and two follower pages of classic ('stop')
    for variant, pages in sheets.items():
        assert len(pages) == 1 + 10  # the leader's page, then 55 hands to beat, 6 a page
        for k, fig in enumerate(pages):
            if variant == "classic" and k not in (0, 1, 10):
                continue
            assert tuple(fig.get_size_inches()) == pytest.approx((8.27, 11.69))
            texts = _texts(fig)
            assert min(t.get_fontsize() for t, _ in texts) >= 8
            boxes = np.array([[b.x0, b.y0, b.x1, b.y1] for _, b in texts])
            w, h = fig.canvas.get_width_height()
            assert boxes[:, 0].min() >= 0 and boxes[:, 2].max() <= w and boxes[:, 1].min() >= 0 and \
                boxes[:, 3].max() <= h, (variant, k)
            x0, y0, x1, y1 = (boxes[:, i][:, None] for i in range(4))
            overlap = (x0 < x1.T - 0.5) & (x1 > x0.T + 0.5) & (y0 < y1.T - 0.5) & (y1 > y0.T + 0.5)
            np.fill_diagonal(overlap, False)
            i, j = np.nonzero(overlap)
            assert len(i) == 0, (variant, k, [(texts[a][0].get_text(), texts[b][0].get_text()) for a, b in
                                              zip(i[:3], j[:3])])


def test_the_sheet_states_its_rules(sheets):
    def words(fig):
        return " ".join(t.get_text() for t in fig.axes[0].texts)
    s421 = words(sheets["super421"][1])
    assert "re-throws at least one die" in s421 and "never stops" in s421 and "'stop' = keep all" not in s421
    assert "fewer winning" in words(sheets["classic"][0]) and "fewer winning" in words(sheets["classic"][3])
    montreal = charts.rule_notes(Variant.from_preset("montreal"), "follower")
    assert any("nénette rescue" in line for line in montreal)
    assert any("Charge: one throw only" in line for line in charts.rule_notes(Variant.from_preset("montreal"),
                                                                             "leader"))
    assert "no other tie-break" in s421
    # every follower page says which hands it holds; page 1 lists them all
    index = words(sheets["super421"][0])
    for k, fig in enumerate(sheets["super421"][1:]):
        beats = [t.get_text()[5:] for t in fig.axes[0].texts if t.get_text().startswith("beat ")]
        assert f"{beats[0]}-{beats[-1]}: p. {k + 2}" in index


def test_the_cells_drawn_are_the_data(sheets):
    data = charts.cheat_sheet_data("super421")
    cells = [t.get_text() for fig in sheets["super421"] for t in fig.axes[0].texts]
    assert sum(c.endswith("%") or c == "stop" for c in cells) == len(data)
    for r in data.sample(30, random_state=1).itertuples():
        assert charts.cell_text(r.keep, r.p) in cells
    assert charts.cell_text("6 _ 1", Fraction(1, 3)) == "61 33%"
    assert charts.cell_text("_ _ _", Fraction(1, 1000)) == "- <1%"
    assert charts.cell_text("_ _ 1", Fraction(999, 1000)) == "1 >99%"
    assert charts.cell_text("stop", 1) == "stop"


@pytest.mark.slow  # 15 s of CPU
def test_the_command_writes_every_page_in_one_pdf(tmp_path):
    out = tmp_path / "sheet.pdf"
    proc = subprocess.run([sys.executable, "-m", "four21sim", "advise", "--chart", "classic", "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    data = out.read_bytes()
    assert data[:4] == b"%PDF" and b"/Count 11" in data
    assert proc.stdout.strip() == f"wrote {out}"
    assert [p.name for p in tmp_path.iterdir()] == ["sheet.pdf"]


def test_a_png_gets_one_file_a_page(tmp_path):
    written = charts.write_cheat_sheet("montreal", tmp_path / "sheet.png", targets=["611", "654"])
    assert [p.name for p in written] == ["sheet.png", "sheet-2.png"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sheet-2.png", "sheet.png"]
    assert all(p.read_bytes()[:4] == b"\x89PNG" for p in written)


@pytest.mark.parametrize("args,word", [(["--chart", "super421", "--out", "x.svg"], "'x.svg'"),
                                       (["--chart", "nope", "--out", "x.png"], "'nope'"),
                                       (["--chart", "super421", "--out", "no/such/dir/x.png"], "does not exist"),
                                       (["631", "--chart", "super421", "--out", "x.png"], "hand")])
def test_chart_bad_input(args, word, tmp_path, capsys, monkeypatch):
    from four21sim.cli._common import run
    monkeypatch.chdir(tmp_path)
    assert run(advise.main, "advise", args) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and word in err
    assert list(tmp_path.iterdir()) == []


def test_the_committed_charts_are_there():
    for preset in ("super421", "super421-lebon", "montreal", "classic"):
        assert (ROOT / "results" / "charts" / f"{preset}-keeps.pdf").read_bytes()[:4] == b"%PDF"
    assert (ROOT / "results" / "charts" / "super421-keeps.png").read_bytes()[:4] == b"\x89PNG"
