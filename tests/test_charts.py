"""Cheat sheets: every cell is what ``four21sim advise`` says for the same question."""

from __future__ import annotations

import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from four21sim.advice import charts  # noqa: E402
from four21sim.cli import advise

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("variant,phase", [("super421", "charge"), ("montreal", "decharge")])
def test_cells_are_the_advisors_answers(variant, phase):
    data = charts.cheat_sheet_data(variant)
    assert set(data["role"]) == {"leader", "follower"}
    assert len(data) == 56 * 2 + 56 * 2 * sum(map(len, charts.FOLLOWER_TARGETS.values()))
    rng = random.Random(7)
    for r in rng.sample(list(data.itertuples()), 25):
        if r.role == "leader":  # the leader's limit is the phase with the most throws (montreal: décharge)
            adv = advise.advise([r.hand, "--role", "leader", "--throws-left", str(r.throws_left), "--variant", variant,
                                 "--phase", phase])
        else:
            adv = advise.advise([r.hand, "--beat", r.beat, "--throws-left", str(r.throws_left), "--variant", variant,
                                 "--phase", phase])
        assert adv["best"]["keep"] == r.keep, r
        assert float(Fraction(adv["best"]["exact"])) == pytest.approx(r.p, abs=1e-12), r
        assert adv["measure"] == r.measure


def test_the_figure_draws_every_cell():
    data = charts.cheat_sheet_data("super421")
    fig = charts.cheat_sheet("super421")
    try:
        texts = [t.get_text() for ax in fig.axes for t in ax.texts]
        cells = [t for t in texts if "%" in t]
        assert len(cells) == len(data)
        for r in data.sample(30, random_state=1).itertuples():
            assert any(t.startswith(r.keep + "  ") for t in cells)
    finally:
        plt.close(fig)


@pytest.mark.parametrize("suffix,magic", [(".png", b"\x89PNG"), (".pdf", b"%PDF")])
def test_the_command_writes_png_or_pdf(tmp_path, suffix, magic):
    out = tmp_path / f"sheet{suffix}"
    proc = subprocess.run([sys.executable, "-m", "four21sim", "advise", "--chart", "classic", "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:4] == magic


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
    assert (ROOT / "results" / "charts" / "super421-keeps.png").read_bytes()[:4] == b"\x89PNG"
    assert (ROOT / "results" / "charts" / "super421-keeps.pdf").read_bytes()[:4] == b"%PDF"
