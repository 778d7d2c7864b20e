"""A hard link in a results folder never writes through to the file it shares (issue 39).

``O_NOFOLLOW`` refuses a symbolic link, but a hard link is a plain file: a name a run
writes that is a second name of a file elsewhere (``ln ~/notes.txt results/x/.lock``)
must leave that file as it was. The tests plant such links at the names a run writes (one run
with a link at each name, for the names a completed run rewrites; one run a link for the lock),
each to a file outside the folder with known content, run, and check the outside files: the
run either put a new file of its own in the link's place, or refused in one line naming it.

The witnesses are independent of the code under test: the outside file's bytes, and
``os.stat`` (inode, link count) of both names.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from sweep_runs import ROOT, S, one_line, sweep

from four21sim import Variant
from four21sim.cli.sweep import console
from four21sim.exact import nplayer
from four21sim.study.lock import FolderLock

V4 = Variant.from_preset("super421", {"tokens": 4})  # a 3-player game solved in a second or so
PRECIOUS = b"my notes: not a file of four21sim\n"


@pytest.fixture(scope="module")
def done(small_ref) -> Path:
    """A results folder of the tiny study S, run once per process (tests/conftest.py; copied by each test)."""
    return small_ref


def _copy(done: Path, tmp_path: Path) -> Path:
    out = tmp_path / "out"
    shutil.copytree(done, out)
    return out


def _plant(target: Path, content: bytes, outside: Path) -> None:
    """Make ``target`` a second name of ``outside``, which holds ``content``."""
    outside.write_bytes(content)
    target.unlink(missing_ok=True)
    os.link(outside, target)
    assert os.stat(target).st_ino == os.stat(outside).st_ino and os.stat(outside).st_nlink == 2


def _study_json(out: Path) -> bytes:
    # the same study in other bytes (compact): accepted as this folder's, and rewritten by the run,
    # so that a write through the link would show in the outside file
    return json.dumps(json.loads((out / "study.json").read_text())).encode()


# name in the folder (a glob for the names that vary) -> the content planted there
WRITTEN = {
    "study.json": _study_json,
    "manifest.json": lambda out: PRECIOUS,
    "REPORT.md": lambda out: PRECIOUS,
    "run.json": lambda out: PRECIOUS,
    "*.parquet": lambda out: PRECIOUS,
    "figures/*.png": lambda out: PRECIOUS,
    "parts/*/*.npz": lambda out: PRECIOUS,  # unreadable: rejected, then computed and written again
}


def _name(out: Path, pattern: str) -> Path:
    return sorted(out.glob(pattern))[0]


def _assert_replaced(target: Path, outside: Path, content: bytes) -> None:
    """The outside file as it was, and ``target`` a file of its own."""
    assert outside.read_bytes() == content
    assert os.stat(target).st_ino != os.stat(outside).st_ino
    assert os.stat(target).st_nlink == 1 and os.stat(outside).st_nlink == 1


def _planted_run(done: Path, base: Path, patterns: dict, run) -> dict:
    """A copy of ``done`` with a link planted at a name of each pattern (each to an outside file of
    its own), run once by ``run(out)``: {pattern: (target, outside, content)}. One run for every
    name instead of one each (each run rewrites the tables, the report and the figures): every
    name is a name the run writes whatever the others hold."""
    out = _copy(done, base)
    planted = {}
    for i, (pattern, make) in enumerate(patterns.items()):
        target, content, outside = _name(out, pattern), make(out), base / f"notes-{i}.txt"
        _plant(target, content, outside)
        planted[pattern] = (target, outside, content)
    run(out)
    return planted


@pytest.fixture(scope="module")
def written(done, tmp_path_factory) -> dict:
    import contextlib

    def run(out):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code = console([*map(str, S), "--out", str(out)])
        assert code == 0 and "Traceback" not in err.getvalue(), err.getvalue()
    return _planted_run(done, tmp_path_factory.mktemp("written"), WRITTEN, run)


@pytest.mark.parametrize("pattern", list(WRITTEN))
def test_a_written_file_that_is_a_hard_link_is_replaced_and_the_other_name_untouched(written, pattern):
    _assert_replaced(*written[pattern])


def _lock_refused(out: Path) -> str:
    return (f"sweep: error: --out: {str(out / '.lock')!r} has 2 links (a hard link to a file elsewhere); "
            "the lock of a results folder is a plain file of its own: remove it")


@pytest.mark.parametrize("folder", ["new", "results"])
def test_a_lock_that_is_a_hard_link_is_refused_and_the_other_name_untouched(done, tmp_path, capsys, folder):
    if folder == "new":
        out = tmp_path / "out"
        out.mkdir()
    else:
        out = _copy(done, tmp_path)
    outside = tmp_path / "notes.txt"
    _plant(out / ".lock", PRECIOUS, outside)
    before = sorted(p.name for p in out.rglob("*"))
    code, err = sweep([*S, "--out", out], capsys)
    assert code == 2 and one_line(err) == _lock_refused(out)
    assert outside.read_bytes() == PRECIOUS and sorted(p.name for p in out.rglob("*")) == before


def test_a_lock_that_is_a_hard_link_is_refused_by_the_command_line(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    _plant(out / ".lock", PRECIOUS, tmp_path / "notes.txt")
    p = subprocess.run([sys.executable, "-m", "four21sim.sweep", *S, "--out", "out"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert p.returncode == 2 and one_line(p.stderr) == _lock_refused(Path("out")), p.stderr
    assert (tmp_path / "notes.txt").read_bytes() == PRECIOUS


def test_a_lock_linked_elsewhere_while_held_is_not_emptied_on_release(tmp_path):
    """Released, the lock is emptied (nobody holds it): never through a name made meanwhile."""
    lock = FolderLock(tmp_path).acquire()
    os.link(tmp_path / ".lock", tmp_path / "copy")
    held = (tmp_path / "copy").read_bytes()
    lock.release()
    assert held.startswith(f"pid {os.getpid()} ".encode()) and (tmp_path / "copy").read_bytes() == held


def _gzipped(table: Path) -> bytes:
    # the same table in other bytes: rewrite() reads it, then writes it in its own compression
    buf = io.BytesIO()
    pd.read_parquet(table).to_parquet(buf, index=False, compression="gzip")
    return buf.getvalue()


# name in the folder -> the content planted there (rewrite() reads the tables and the manifest)
REWRITTEN = {
    "REPORT.md": lambda out: PRECIOUS,
    "manifest.json": lambda out: json.dumps(json.loads((out / "manifest.json").read_text())).encode(),
    "*.parquet": lambda out: _gzipped(_name(out, "*.parquet")),
    "figures/*.png": lambda out: PRECIOUS,
}


@pytest.fixture(scope="module")
def rewritten(done, tmp_path_factory) -> dict:
    from four21sim.study.report import rewrite
    return _planted_run(done, tmp_path_factory.mktemp("rewritten"), REWRITTEN, rewrite)


@pytest.mark.parametrize("pattern", list(REWRITTEN))
def test_rewrite_replaces_a_hard_link_and_leaves_the_other_name_untouched(rewritten, pattern):
    _assert_replaced(*rewritten[pattern])


def test_a_figure_saved_over_a_hard_link_leaves_the_other_name_untouched(tmp_path):
    """``figures.save`` is used by the experiments too, on their own paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from four21sim.study.figures import save
    target = tmp_path / "fig.png"
    _plant(target, PRECIOUS, tmp_path / "notes.txt")
    save(plt.figure(), target)
    _assert_replaced(target, tmp_path / "notes.txt", PRECIOUS)
    assert target.read_bytes().startswith(b"\x89PNG")


def test_a_cache_entry_that_is_a_hard_link_is_replaced_and_the_other_name_untouched(monkeypatch, tmp_path):
    cache = tmp_path / "cache"
    monkeypatch.setenv("FOUR21SIM_CACHE_DIR", str(cache))
    nplayer._equilibrium.cache_clear()
    nplayer.solve(V4, 3)
    (entry,) = cache.glob("*.npz")
    _plant(entry, PRECIOUS, tmp_path / "notes.txt")  # unreadable: a miss, solved again and stored
    nplayer._equilibrium.cache_clear()
    assert not nplayer.solve(V4, 3).info.get("from_cache")
    _assert_replaced(entry, tmp_path / "notes.txt", PRECIOUS)
    nplayer._equilibrium.cache_clear()
    assert nplayer.solve(V4, 3).info["from_cache"]
