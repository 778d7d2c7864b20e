"""Long n-player solves (issue 45, item 3): they show their progress, and a solve killed part-way
resumes from its last finished pass with the same result, bit for bit, as one never interrupted.

A kill is simulated by an exception raised from the hook called after each checkpoint written
(``checkpoint._after_save``), and done for real once: a solve in a child process is sent SIGKILL
after its second charge pass. The reference is the same game solved without interruption in an
empty cache folder of its own; "the same" is ``np.array_equal`` on every array ``to_arrays`` stores
(the games of fewer players too), equal stored metadata, and equal iteration counts.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from four21sim import Variant
from four21sim._util import waiting
from four21sim.exact import checkpoint, nplayer, store
from four21sim.exact._nplayer_run import _checkpoint_shapes

# Every stage of a solve in about a second: 3 décharge passes (max_iter stops it, not converged), the
# charge by pot (5 groups), one pass of the certificate's décharge (run: the profile did not converge)
# and the certificate's charge. 16 checkpoints in all.
EVERY = (Variant.from_preset("super421", {"tokens": 5}), 3, {"max_iter": 3})
# the games of fewer players (classic ends at the last holder): each has its own checkpoints and entry
SUBS = (Variant.from_preset("classic", {"tokens": 5}), 3, {})
# Le bon with 6 tokens at 3 players cycles (6 passes, residual 1.2e-4): the iteration stops when a
# profile found before comes back, which a resumed solve can see only if the profiles found before the
# kill are restored
CYCLE = (Variant.from_preset("super421-lebon", {"tokens": 6}), 3, {})

class _Killed(Exception):
    """The simulated kill."""


def _fresh(monkeypatch, where: Path) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("FOUR21SIM_CACHE_DIR", str(where))
    nplayer._equilibrium.cache_clear()
    return where


def _solve(game):
    v, n, kw = game
    return nplayer.solve(v, n, **kw)


def _same(a, b) -> None:
    """Every array and every stored field equal, bit for bit, and the same solve history."""
    arrays_a, meta_a = nplayer.to_arrays(a)
    arrays_b, meta_b = nplayer.to_arrays(b)
    assert sorted(arrays_a) == sorted(arrays_b)
    for k in arrays_a:
        assert arrays_a[k].dtype == arrays_b[k].dtype and np.array_equal(arrays_a[k], arrays_b[k]), k
    assert json.dumps(meta_a, sort_keys=True) == json.dumps(meta_b, sort_keys=True)
    assert np.array_equal(a.dist, b.dist) and a.states == b.states
    assert (a.iterations, a.br_iterations) == (b.iterations, b.br_iterations)


_REFS: dict = {}
_SNAPSHOTS: dict = {}


def _reference(game, tmp_path_factory):
    """The game solved without interruption, in an empty cache folder (once per process).

    A copy of the cache folder is kept after each checkpoint written (``_SNAPSHOTS[id(game)][k - 1]``
    after the k-th): what a solve killed right there leaves on disk (the kill tests check that), so
    that a resume from each checkpoint need not solve the passes before it again."""
    key = id(game)
    if key not in _REFS:
        mp = pytest.MonkeyPatch()
        try:
            folder = _fresh(mp, tmp_path_factory.mktemp("ref"))
            saves, snaps = [], []

            def hook(stage, step):
                saves.append((stage, step))
                snaps.append(tmp_path_factory.mktemp("snapshot") / "cache")
                shutil.copytree(folder, snaps[-1])

            mp.setattr(checkpoint, "_after_save", hook)
            _REFS[key] = (_solve(game), saves)
            _SNAPSHOTS[key] = snaps
        finally:
            mp.undo()
            nplayer._equilibrium.cache_clear()
    return _REFS[key]


def _files(folder: Path) -> dict:
    """The files of a cache folder: checkpoints and entries by their contents (an ``.npz`` records when
    it was written), the rest (locks) by their bytes."""
    out = {}
    for path in sorted(folder.rglob("*")):
        name = str(path.relative_to(folder))
        if path.name.endswith(store.CHECKPOINT_SUFFIX):
            key, meta, arrays = _contents(path)
            out[name] = (key, json.dumps(meta, sort_keys=True), {k: a.tobytes() for k, a in arrays.items()})
        elif path.suffix == ".npz":
            with np.load(path, allow_pickle=False) as z:
                out[name] = {k: z[k].tobytes() for k in z.files}
        elif path.is_file():
            out[name] = path.read_bytes()
    return out


def _kill_at(monkeypatch, k: int) -> list:
    """Raise :class:`_Killed` right after the k-th checkpoint is written (counting from 1)."""
    saves: list = []

    def hook(stage, step):
        saves.append((stage, step))
        if len(saves) == k:
            raise _Killed

    monkeypatch.setattr(checkpoint, "_after_save", hook)
    return saves


def _resume_after(monkeypatch, tmp_path, game, k):
    """Solve ``game``, killed after its k-th checkpoint; then solve it again: (solution, where it was killed).

    What the kill leaves on disk is the reference's copy of its folder after that checkpoint (which the
    resumes of :func:`_resume_from` start from)."""
    folder = _fresh(monkeypatch, tmp_path / f"kill{k}")
    saves = _kill_at(monkeypatch, k)
    with pytest.raises(_Killed):
        _solve(game)
    assert len(list(folder.glob("*" + store.CHECKPOINT_SUFFIX))) == 1  # the outer solve's (subs are stored)
    assert _files(folder) == _files(_SNAPSHOTS[id(game)][k - 1])
    monkeypatch.setattr(checkpoint, "_after_save", None)
    nplayer._equilibrium.cache_clear()
    sol = _solve(game)
    assert not list(folder.glob("*" + store.CHECKPOINT_SUFFIX))  # removed once the entry is stored
    return sol, saves[-1]


def _resume_from(monkeypatch, tmp_path, game, k):
    """Solve ``game`` in a copy of the folder the reference left after its k-th checkpoint (what a solve
    killed there leaves: :func:`_resume_after` checks it) without solving the passes before it again."""
    folder = tmp_path / f"from{k}"
    shutil.copytree(_SNAPSHOTS[id(game)][k - 1], folder)
    _fresh(monkeypatch, folder)
    assert len(list(folder.glob("*" + store.CHECKPOINT_SUFFIX))) == 1
    sol = _solve(game)
    assert not list(folder.glob("*" + store.CHECKPOINT_SUFFIX))  # removed once the entry is stored
    return sol


def _picked(saves):
    """The first and last checkpoint of each stage, and one in the middle."""
    ks = set()
    for stage in dict.fromkeys(s for s, _ in saves):
        at = [i + 1 for i, (s, _) in enumerate(saves) if s == stage]
        ks |= {at[0], at[len(at) // 2], at[-1]}
    return sorted(ks)


def test_the_small_game_checkpoints_every_stage(tmp_path_factory):
    _, saves = _reference(EVERY, tmp_path_factory)
    stages = [s for s, _ in saves]
    # 3 décharge passes (the last one too: the checkpoint is written before the loop knows it ends),
    # the décharge done and each of the 5 pots, 1 certificate pass, its décharge done and each pot
    assert stages == ["decharge"] * 3 + ["charge"] * 6 + ["certificate"] + ["certificate-charge"] * 6
    assert [s for _, s in saves] == [1, 2, 3, 0, 1, 2, 3, 4, 5, 1, 0, 1, 2, 3, 4, 5]


# the first, middle and last checkpoint of each kind (the slow test below takes the others)
KILLS = [1, 3, 4, 6, 10, 11, 16]


@pytest.mark.parametrize("k", KILLS)
def test_a_solve_killed_after_k_passes_resumes_to_the_same_arrays(monkeypatch, tmp_path, tmp_path_factory, k):
    ref, saves = _reference(EVERY, tmp_path_factory)
    sol, last = _resume_after(monkeypatch, tmp_path, EVERY, k)
    assert last == saves[k - 1]
    assert sol.info["resumed_from"] == f"{last[0]} {last[1]}"  # it resumed, it did not start over
    _same(sol, ref)


@pytest.mark.slow
@pytest.mark.parametrize("game", [EVERY, SUBS, CYCLE], ids=["every-stage", "subs", "cycle"])
def test_a_solve_killed_after_any_pass_resumes_to_the_same_arrays(monkeypatch, tmp_path, tmp_path_factory, game):
    ref, saves = _reference(game, tmp_path_factory)
    # every checkpoint of the small game, but those the test above kills at
    ks = [k for k in range(1, len(saves) + 1) if k not in KILLS] if game is EVERY else _picked(saves)
    assert ks
    # one kill per game (the others: a kill leaves the folder as the reference left it at that checkpoint,
    # which _resume_after checks, so the resumes start from copies of it and solve no pass twice)
    for k in ks:
        if k == ks[0]:
            sol, last = _resume_after(monkeypatch, tmp_path, game, k)
        else:
            sol, last = _resume_from(monkeypatch, tmp_path, game, k), saves[k - 1]
        # (killed in a game of fewer players, solved first: that one resumed)
        assert f"{last[0]} {last[1]}" in [s.info.get("resumed_from") for s in (sol, *sol.subs.values())]
        _same(sol, ref)


@pytest.mark.slow
def test_the_cycle_is_found_again_after_a_resume(monkeypatch, tmp_path, tmp_path_factory):
    # the iteration stops on a profile found before: killed after the last pass before that, the
    # solve stops at the same iteration only if it remembers the profiles of the passes before the kill
    ref, saves = _reference(CYCLE, tmp_path_factory)
    assert not ref.converged and ref.iterations < 10  # (stopped by the cycle, not by stall)
    k = max(i + 1 for i, (stage, _) in enumerate(saves) if stage == "decharge")
    sol, last = _resume_after(monkeypatch, tmp_path, CYCLE, k)
    assert last == ("decharge", ref.iterations - 1)
    _same(sol, ref)


def test_the_games_of_fewer_players_are_stored_and_the_outer_game_resumes(monkeypatch, tmp_path,
                                                                            tmp_path_factory):
    ref, saves = _reference(SUBS, tmp_path_factory)
    assert 2 in ref.subs
    k = len(saves) - saves[::-1].index(("charge", 2))  # the outer game's (the 2-player game's come first)
    sol, last = _resume_after(monkeypatch, tmp_path, SUBS, k)
    assert last == ("charge", 2) and sol.info["resumed_from"] == "charge 2"
    assert sol.subs[2].info.get("from_cache")  # the 2-player game was stored before the kill
    _same(sol, ref)


def test_a_checkpoint_write_cut_by_a_kill_leaves_nothing_behind_the_next_solve(monkeypatch, tmp_path):
    # a writer killed mid-write leaves its temporary file (.<name>.<pid>.tmp.npz): the next solve of the
    # same key removes it if its writer is dead, and leaves a live process's alone
    path = _checkpoint_after(monkeypatch, tmp_path, EVERY, 2)
    dead = 2 ** 22 + 12345  # (above the largest process id Linux gives by default)
    assert not os.path.exists(f"/proc/{dead}")
    orphan, live = tmp_path / f".{path.name}.{dead}.tmp.npz", tmp_path / f".{path.name}.{os.getppid()}.tmp.npz"
    orphan.write_bytes(b"half a checkpoint")
    live.write_bytes(b"being written")
    _solve(EVERY)
    assert not orphan.exists() and live.exists()
    assert not path.exists()


def test_with_the_disk_cache_off_there_is_no_checkpoint(monkeypatch, tmp_path, tmp_path_factory):
    ref, _ = _reference(EVERY, tmp_path_factory)
    monkeypatch.setenv("FOUR21SIM_CACHE_DIR", "off")
    nplayer._equilibrium.cache_clear()
    saves = []
    monkeypatch.setattr(checkpoint, "_after_save", lambda stage, step: saves.append(stage))
    monkeypatch.chdir(tmp_path)
    _same(_solve(EVERY), ref)
    assert saves == [] and store.checkpoint_path("anything") is None
    assert not list(tmp_path.rglob("*" + store.CHECKPOINT_SUFFIX))


# ---------------------------------------------------------------- bad checkpoints are refused
def _checkpoint_after(monkeypatch, folder, game, k) -> Path:
    """The checkpoint a solve of ``game`` killed after its k-th pass leaves in ``folder``."""
    _fresh(monkeypatch, folder)
    _kill_at(monkeypatch, k)
    with pytest.raises(_Killed):
        _solve(game)
    monkeypatch.setattr(checkpoint, "_after_save", None)
    nplayer._equilibrium.cache_clear()
    (path,) = folder.glob("*" + store.CHECKPOINT_SUFFIX)
    return path


def _contents(path: Path):
    with np.load(path, allow_pickle=False) as z:
        raw = {k: z[k] for k in z.files}
    key = raw.pop("__key__").tobytes().decode()
    meta = json.loads(raw.pop("__meta__").tobytes())
    raw.pop("__digest__")
    return key, meta, raw


def _rewrite(path: Path, meta: dict, arrays: dict, key: str | None = None) -> None:
    """Write a checkpoint whose digest matches its contents (a forger's, not damage)."""
    key = _contents(path)[0] if key is None else key
    text = json.dumps(meta, sort_keys=True).encode()
    raw = {k: np.asarray(v) for k, v in arrays.items()}
    with open(path, "wb") as f:
        np.savez(f, __key__=np.frombuffer(key.encode(), np.uint8), __meta__=np.frombuffer(text, np.uint8),
                 __digest__=np.frombuffer(checkpoint._digest(key, text, raw), np.uint8), **raw)


def _forge(path: Path, how: str) -> None:
    key, meta, arrays = _contents(path)
    data = path.read_bytes()
    if how == "truncated":
        path.write_bytes(data[: len(data) // 2])
        return
    if how == "not-a-zip":
        path.write_bytes(b"\x93NUMPY garbage")
        return
    if how == "damaged":  # one number changed, the digest left as it was
        name = max(arrays, key=lambda k: arrays[k].size)
        arrays[name].reshape(-1)[arrays[name].size // 2] += 1e-3
        with np.load(path, allow_pickle=False) as z:
            keep = {k: z[k] for k in ("__key__", "__meta__", "__digest__")}
        np.savez(path.parent / "tmp.npz", **keep, **arrays)
        os.replace(path.parent / "tmp.npz", path)
        return
    if how == "pickle":
        with np.load(path, allow_pickle=False) as z:
            keep = {k: z[k] for k in z.files}
        keep["W"] = np.array([{"boom": 1}], dtype=object)
        np.savez(path.parent / "tmp.npz", **keep)
        os.replace(path.parent / "tmp.npz", path)
        return
    if how == "symlink":
        target = path.parent / "elsewhere.npz"
        os.replace(path, target)
        os.symlink(target, path)
        return
    if how == "nan":
        arrays["W"][0, 0] = np.nan
    elif how == "shape":
        arrays["W"] = arrays["W"][:-1]
    elif how == "missing":
        del arrays["basis"]
    elif how == "step":
        meta["step"] = 99
    elif how == "stage":
        meta["stage"] = "__import__('os')"
    elif how == "foreign":  # the checkpoint of another solve (another tol), under this one's name
        _rewrite(path, meta, arrays, key=key.replace('"tol": 1e-13', '"tol": 1e-12'))
        return
    elif how == "wrong-numbers":  # whole, finite, the right shapes: only the result's check can see it
        arrays["W"] = arrays["W"] + 0.01
    _rewrite(path, meta, arrays)


_KILLED: dict = {}
FORGERIES = ("truncated", "not-a-zip", "damaged", "pickle", "symlink", "nan", "shape", "missing", "step", "stage",
             "foreign", "wrong-numbers")


@pytest.mark.parametrize("how", FORGERIES)
def test_a_bad_checkpoint_is_refused_with_one_notice_and_the_solve_is_right(monkeypatch, tmp_path, tmp_path_factory,
                                                                           capsys, how):
    ref, saves = _reference(EVERY, tmp_path_factory)
    k = saves.index(("certificate-charge", 2)) + 1  # every array of a checkpoint is there (W too)
    # the folder a solve killed there leaves (killed once per process: the same for every forgery)
    if k not in _KILLED:
        _KILLED[k] = _checkpoint_after(monkeypatch, tmp_path_factory.mktemp("killed"), EVERY, k).parent
        assert _files(_KILLED[k]) == _files(_SNAPSHOTS[id(EVERY)][k - 1])
    shutil.copytree(_KILLED[k], tmp_path, dirs_exist_ok=True)
    _fresh(monkeypatch, tmp_path)
    (path,) = tmp_path.glob("*" + store.CHECKPOINT_SUFFIX)
    _forge(path, how)
    capsys.readouterr()
    sol = _solve(EVERY)
    err = capsys.readouterr().err
    said = [line for line in err.splitlines() if "checkpoint" in line]
    assert len(said) == 1, err
    assert said[0].startswith("four21sim: checkpoint: ") and " is not allowed (" in said[0] and "; allowed: " in said[0]
    assert "\x1b" not in said[0]
    _same(sol, ref)
    assert "resumed_from" not in sol.info  # solved from the start (after a resume that did not check, too)
    assert not list(tmp_path.glob("*" + store.CHECKPOINT_SUFFIX))
    if how == "symlink":
        assert (tmp_path / "elsewhere.npz").exists()  # the link was removed, never followed


def test_a_checkpoint_of_another_stage_layout_is_not_trusted_for_its_shapes(tmp_path):
    # the shapes a checkpoint must have come from the game, not from the file
    v, n, _ = EVERY
    from four21sim.exact import _nplayer_game as NG
    game = NG.role_game(v, n)
    shapes = _checkpoint_shapes(game, 3, {"stage": "decharge", "step": 2, "best_it": 1,
                                                  "best_residual": 1e-3})
    assert shapes["seen"] == (2, len(game.decharge()), n, n, game.P)
    for bad in ({"stage": "decharge", "step": 4, "best_it": 1, "best_residual": 0.1},  # beyond max_iter
                {"stage": "decharge", "step": 2, "best_it": 3, "best_residual": 0.1},
                {"stage": "decharge", "step": 2, "best_it": 1, "best_residual": float("nan")},
                {"stage": "charge", "step": 0, "it": 1, "residual": 0.0, "converged": 1},
                {"stage": "charge", "step": True, "it": 1, "residual": 0.0, "converged": True},
                {"stage": "certificate-charge", "step": 0, "it": 1, "residual": 0.0, "converged": True}):
        with pytest.raises(ValueError):
            _checkpoint_shapes(game, 3, bad)


# ---------------------------------------------------------------- a real kill
_CHILD = textwrap.dedent("""
    import sys, time
    from four21sim import Variant
    from four21sim.exact import checkpoint, nplayer

    def hook(stage, step):
        print(stage, step, flush=True)
        if (stage, step) == ("charge", 2):
            time.sleep(600)  # killed here, its second charge pass checkpointed

    checkpoint._after_save = hook
    nplayer.solve(Variant.from_preset("super421", {"tokens": 5}), 3, max_iter=3)
    print("finished", flush=True)
""")


@pytest.mark.slow
def test_a_solve_killed_by_sigkill_resumes_to_the_same_arrays(monkeypatch, tmp_path, tmp_path_factory):
    ref, _ = _reference(EVERY, tmp_path_factory)
    folder = _fresh(monkeypatch, tmp_path / "cache")
    env = dict(os.environ, FOUR21SIM_CACHE_DIR=str(folder))
    child = subprocess.Popen([sys.executable, "-c", _CHILD], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             env=env, text=True)
    try:
        _read_until(child, ["charge", "2"])
        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=120) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert len(list(folder.glob("*" + store.CHECKPOINT_SUFFIX))) == 1
    sol = _solve(EVERY)
    assert sol.info["resumed_from"] == "charge 2"
    _same(sol, ref)
    assert not list(folder.glob("*" + store.CHECKPOINT_SUFFIX))


def _read_until(child, mark: list[str]) -> None:
    """Read the child's checkpoint lines until ``mark`` (``[stage, step]``) is printed; fail if it never is."""
    lines = []
    deadline = time.monotonic() + 600  # numba may compile first on a busy machine
    while time.monotonic() < deadline:
        line = child.stdout.readline()
        if not line:
            break
        lines.append(line.split())
        if lines[-1] == mark:
            break
    assert lines and lines[-1] == mark, lines


_COMMAND = textwrap.dedent("""
    import sys, time
    from four21sim.cli import main
    from four21sim.exact import checkpoint

    def hook(stage, step):
        print(stage, step, flush=True)
        if (stage, step) == ("decharge", 2):
            time.sleep(600)  # stopped here, its second décharge pass checkpointed

    checkpoint._after_save = hook
    sys.exit(main(sys.argv[1:]))
""")


@pytest.mark.slow
def test_a_command_stopped_by_sigterm_resumes_on_the_next_call(monkeypatch, tmp_path):
    game = (Variant.from_preset("super421", {"tokens": 5}), 3, {})  # what the command solves
    _fresh(monkeypatch, tmp_path / "ref")
    ref = _solve(game)
    folder = _fresh(monkeypatch, tmp_path / "cache")
    env = dict(os.environ, FOUR21SIM_CACHE_DIR=str(folder))
    child = subprocess.Popen([sys.executable, "-c", _COMMAND, "solve", "--players", "3", "--set", "tokens=5"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    try:
        _read_until(child, ["decharge", "2"])
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=120) == 143
        assert "Traceback" not in child.stderr.read()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert len(list(folder.glob("*" + store.CHECKPOINT_SUFFIX))) == 1
    sol = _solve(game)
    assert sol.info["resumed_from"] == "decharge 2"
    _same(sol, ref)


# ---------------------------------------------------------------- progress
def test_a_long_solve_shows_its_progress_line_by_line_through_a_pipe(monkeypatch, tmp_path, capsys):
    _fresh(monkeypatch, tmp_path)
    monkeypatch.setattr(waiting, "PROGRESS_AFTER", 0.0)  # every solve counts as long
    with waiting.enter_command("solve"):
        sol = _solve(EVERY)
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert "\r" not in err and "\x1b" not in err  # not a terminal: plain lines
    label = "3 players"
    progress = [line for line in lines if line.startswith(f"solve: {label}: ")]
    # (the first states may come before the display's clock has started: the last ones are drawn)
    for want in ("certificate décharge, pass 1 done (residual ", "certificate charge, pass 5 of 5 (pot 5) done"):
        assert any(want in line for line in progress), err
    assert all(line.endswith(" so far]") for line in progress)
    assert any("; about " in line and " left in this phase (estimate)" in line for line in progress)
    assert any("charge, pass 2 of 5 (pot 2) done; then the certificate" in line for line in progress), err
    assert sol.iterations == 3


def test_reading_a_disk_cache_entry_says_that_it_checks_it_and_shows_how_far(monkeypatch, tmp_path, capsys):
    # issue 47: "no silent wait": a stored equilibrium is checked by solving every round again (at 6 players
    # most of an hour), which was said nowhere
    _fresh(monkeypatch, tmp_path)
    _solve(EVERY)
    nplayer._equilibrium.cache_clear()
    capsys.readouterr()
    monkeypatch.setattr(waiting, "PROGRESS_AFTER", 0.0)  # every wait counts as long
    monkeypatch.setattr(nplayer, "AFTER", 0.0)
    with waiting.enter_command("advise"):
        sol = _solve(EVERY)
    err = capsys.readouterr().err
    v, n, _ = EVERY
    assert (f"advise: checking the stored equilibrium of {v.describe()} at 3 players (the disk cache): every round "
            "solved again, about half its first solve (under a minute) ...") in err.splitlines(), err
    # the décharge and the charge's 5 pots, one group each; the last state drawn at least
    assert any(line.startswith("advise: 3 players: checking the stored equilibrium, 6 of 6 groups of states done")
               for line in err.splitlines()), err
    assert "solving" not in err and " pass " not in err and sol.info["from_cache"]  # read, not solved


def test_a_short_solve_shows_no_progress(monkeypatch, tmp_path, capsys):
    _fresh(monkeypatch, tmp_path)
    with waiting.enter_command("solve"):
        _solve(EVERY)
    assert " pass " not in capsys.readouterr().err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_line_is_rewritten_in_place_never_wraps_and_never_glues_a_notice():
    term = _Terminal()
    with waiting.progress(stream=term, after=0.0) as shown:
        deadline = time.monotonic() + 120
        while not shown.due and time.monotonic() < deadline:  # (a busy machine may start its clock late)
            time.sleep(0.01)
        shown.show("a game: décharge profile, pass 1 done (residual 1.0e-03)" + " and more" * 20, 120.0,
                   " in this phase")
        waiting.say("a notice", term)
        shown.show("g: pass 2", 60.0, " in this phase")
    out = term.getvalue()
    drawn = [part for part in out.split("\r\x1b[K") if part]
    assert drawn[0].endswith(" [0 s]\na notice\n")  # cut before what remains; a notice starts a line of its own
    assert ", ~2 min left [0 s]" in drawn[0] and "…" in drawn[0]
    assert all(len(part.split("\n")[0]) <= 79 for part in drawn)  # cut to the width: it never wraps
    assert drawn[-1].startswith("four21sim: g: pass 2; about 60 s left in this phase (estimate) [")
    assert drawn[-1].endswith(" so far]\n")  # the last state stays on screen, its line ended


def test_a_terminal_of_unknown_width_gets_80_columns(monkeypatch):
    # a pseudo-terminal (script, some CI runners) may say it has 0 columns: the line was cut to "s…"
    class Sized(_Terminal):
        def fileno(self) -> int:
            return 2

    monkeypatch.setattr(waiting.os, "get_terminal_size", lambda fd: os.terminal_size((0, 0)))
    term = Sized()
    with waiting.progress(stream=term, after=0.0) as shown:
        deadline = time.monotonic() + 120
        while not shown.due and time.monotonic() < deadline:
            time.sleep(0.01)
        shown.show("solve: a game: charge, pass 2 of 5 (pot 2) done")
    assert "four21sim: solve: a game: charge, pass 2 of 5 (pot 2) done [0 s so far]\n" in term.getvalue()


def test_durations_read_as_a_person_reads_them():
    assert [waiting.duration(x) for x in (-3, 0.4, 40, 89, 90, 12 * 60, 3900)] == \
        ["0 s", "0 s", "40 s", "89 s", "2 min", "12 min", "1 h 05 min"]
