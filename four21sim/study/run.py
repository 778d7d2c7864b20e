"""Running a study into a results folder, so that results cannot be mixed, forged or lost.

:func:`run_sweep` does, in order:

1. validate everything that could fail before a game is played: the study (bounds,
   duplicates: :class:`~four21sim.study.spec.Study`), every policy of every
   configuration, the folder (writable; a folder holding another study's results is
   refused), the Dask scheduler; nothing is written for a refused study;
2. take the folder's lock (:mod:`four21sim.study.lock`): one writer per folder; a second
   one is refused at once, naming the holder, or waits for it (``wait=True``);
3. under the lock: check the folder again, remove temporary files of dead writers,
   write ``study.json``, and list the tasks whose part file is missing or does not
   belong to its place (:func:`four21sim.study.tasks.check_part`: a warning names each
   rejected file, which is then computed again);
4. run those tasks (:mod:`four21sim.study.executors`), writing each part as it arrives;
5. write the outputs (tables, figures, REPORT.md, manifest.json) into a temporary
   folder and swap them in: a run killed while writing them leaves the previous
   outputs whole, and figures of an older run do not linger beside new ones.

Which folder holds another study: one whose ``study.json`` has another fingerprint,
when it also holds part files, or when the folder was not chosen with ``--out``
(``results/<name>``, e.g. committed results); one without ``study.json`` whose part
files were made for another study.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from .. import __version__
from .._util.atomic import temp_path, write_text_atomic
from .._util.checks import check_int
from .lock import FolderLock, remove_orphans
from .spec import Config, Study
from .tasks import Task, check_part, make_tasks, part_identity, part_keys, part_path

__all__ = ["run_sweep", "prepare", "pending_tasks", "run_study_tasks", "write_outputs", "code_identity"]

FIGURES = "figures"
MAX_WARNINGS = 20  # rejected part files named one by one; the rest are counted in one line


def code_identity() -> dict:
    """What must match for part files to be resumed: the package version and the engine contract."""
    from ..engine import ENGINE_CONTRACT
    return {"four21sim": __version__, "engine_contract": ENGINE_CONTRACT}


def _git_commit() -> str | None:
    try:
        here = Path(__file__).resolve().parent
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5)
        if sha.returncode != 0:
            return None
        # results/ is what runs write: only changes to the code make the commit "dirty"
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                                ":(exclude)results"], cwd=here.parent, capture_output=True, text=True,
                               timeout=5).stdout.strip()
        return sha.stdout.strip()[:12] + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return None


def _versions() -> dict:
    import numba
    import pandas
    return {"four21sim": __version__, "numba": numba.__version__, "numpy": np.__version__,
            "pandas": pandas.__version__, "python": platform.python_version()}


# ------------------------------------------------------------------ checks
def study_policies(configs: list[Config]) -> list[tuple]:
    """Every distinct (variant, players, policy name) the configurations play, in order."""
    seen: dict = {}
    for c in configs:
        for name in [c.lineup.a] if c.lineup.kind == "all" else [c.lineup.a, c.lineup.b]:
            seen.setdefault((c.variant, c.players, name), None)
    return list(seen)


def _check_out(out: Path) -> None:
    """Refuse an --out that cannot be written, before anything is played."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out: {str(out)!r} exists and is not a directory")
    probe = out
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
        raise ValueError(f"--out: {str(out)!r} is not writable (no write permission on {str(probe)!r})")


def _part_files(out: Path) -> list[Path]:
    return sorted(p for p in (out / "parts").glob("*/*.npz") if not p.name.startswith("."))


def _part_study(path: Path) -> str | None:
    """The study fingerprint a part file records (None if it records none or cannot be read)."""
    try:
        with np.load(path) as z:
            return json.loads(z["__identity__"].tobytes().decode()).get("study")
    except Exception:  # noqa: BLE001  a damaged part is the business of pending_tasks
        return None


def _check_folder(study: Study, out: Path, chosen: bool) -> None:
    """Refuse a folder that holds the results of another study or of other code (read only)."""
    sj = out / "study.json"
    parts = _part_files(out)
    fp = study.fingerprint()
    hint = ("choose another --out, or delete that directory to start again" if chosen else
            "give this study another name (--name) or an --out directory: it would replace them")
    if sj.exists():
        try:
            old = json.loads(sj.read_text())
        except (OSError, ValueError):
            old = {}
        old = old if isinstance(old, dict) else {}
        if old.get("fingerprint") != fp and (parts or not chosen):
            raise ValueError(f"--out: {str(out)!r} holds the results of a different study "
                             f"(fingerprint {old.get('fingerprint')!r}, this one {fp!r}); {hint}")
        if old.get("code") != code_identity() and parts:
            raise ValueError(f"--out: {str(out)!r} holds parts made by other code ({old.get('code')}, this is "
                             f"{code_identity()}); they cannot be mixed: choose another --out, or delete that "
                             "directory to start again")
    elif parts:  # no study.json (deleted?): the parts say which study they belong to
        others = {s for s in map(_part_study, parts) if s is not None and s != fp}
        if others:
            raise ValueError(f"--out: {str(out)!r} holds part files of a different study (fingerprint "
                             f"{sorted(others)[0]!r}, this one {fp!r}) and no study.json; {hint}")


def prepare(study: Study, out: Path, chosen: bool = True) -> tuple[list[Config], list[dict]]:
    """Validate everything that could fail before a single game: configurations, policies, the folder.

    ``chosen``: the folder was given explicitly (``--out``), not derived from the name.
    """
    from ..policies import check_available, resolve_policies
    configs, skipped = study.configs()
    if not configs:
        raise ValueError("--lineups/--players: no playable configuration (optimal needs 2 or 3 players)")
    for variant, players, name in study_policies(configs):
        # a costly policy (a solve) is checked here and built by whoever plays it
        if not check_available(name, variant, players).costly:
            resolve_policies(variant, players, [name] * players)
    _check_out(out)
    if out.is_dir():
        _check_folder(study, out, chosen)
    return configs, skipped


def pending_tasks(study: Study, configs: list[Config], out: Path,
                  warn: Callable[[str], None] | None = None) -> tuple[list[Task], int]:
    """Tasks whose part file is missing or does not belong to its place, and the games already done.

    A part that is there but cannot be used is reported through ``warn``, naming the
    file and why, and removed (it is computed again).
    """
    pending, done, rejected = [], 0, 0
    for t in make_tasks(len(configs), study.games, study.task_games):
        c = configs[t.config]
        path = part_path(out, c, t.block)
        part, why = check_part(path, part_keys(c), part_identity(study, c, t))
        if part is not None:
            done += t.games
            continue
        if why is not None:
            rejected += 1
            if warn and rejected <= MAX_WARNINGS:
                warn(f"part file {path} {why}: computing it again")
            path.unlink(missing_ok=True)
        pending.append(t)
    if warn and rejected > MAX_WARNINGS:
        warn(f"{rejected - MAX_WARNINGS} more part files in {str(out / 'parts')!r} could not be used: computing "
             "them again")
    return pending, done


# ------------------------------------------------------------------ running
def run_study_tasks(study: Study, configs: list[Config], out: Path, pending: list[Task], workers: int = 1,
                    client=None, progress: Callable[[int], None] | None = None) -> dict:
    """Run the ``pending`` tasks (see :func:`pending_tasks`), writing each part as it finishes.

    ``client``: a connected Dask client to run the tasks on (else this process for
    ``workers == 1``, or local processes). ``progress`` is called with the games each
    finished task played (all its seats' rotations for a one:A/B line-up).
    """
    from . import executors
    from .tasks import write_part
    t0 = time.perf_counter()
    games_run = games_played = 0

    def finished(task: Task, counters: dict) -> None:
        nonlocal games_run, games_played
        c = configs[task.config]
        write_part(part_path(out, c, task.block), counters, part_identity(study, c, task))
        games_run += task.games
        games_played += task.games * c.games_factor
        if progress:
            progress(task.games * c.games_factor)

    if pending:
        from ..policies import check_available
        used = {t.config for t in pending}
        needed = study_policies([c for i, c in enumerate(configs) if i in used])
        costly = [item for item in needed if check_available(item[2], item[0], item[1]).costly]
        if client is not None:
            executors.run_on_dask(client, pending, configs, study.seed, study.max_rounds, finished)
        elif workers <= 1:
            # this process plays on every core; the solves it needs first can run side by side
            executors.warm_policies(costly, os.cpu_count() or 1)
            executors.run_in_process(pending, configs, study.seed, study.max_rounds, finished)
        else:
            executors.run_processes(pending, configs, study.seed, study.max_rounds, workers, finished, costly)
    return {"games_run": games_run, "games_played": games_played, "seconds": time.perf_counter() - t0,
            "tasks_run": len(pending)}


def run_sweep(study: Study, out, workers: int = 1, scheduler: str | None = None, quiet: bool = False,
              command: str = "python -m four21sim.sweep", *, wait: bool = False, chosen: bool = True,
              warn: Callable[[str], None] | None = None) -> dict:
    """Run (or resume) ``study`` into the folder ``out``; returns the manifest.

    Parameters
    ----------
    study : Study
    out : path
        The results folder.
    workers : int
        Local worker processes (1: this process, numba using every core).
    scheduler : str, optional
        ``local:N`` or ``tcp://HOST:PORT``: run the tasks on Dask.
    quiet : bool
        No progress bar.
    command : str
        The command recorded in the manifest.
    wait : bool
        If another run holds the folder, wait for it rather than raise.
    chosen : bool
        ``out`` was chosen explicitly; False for ``results/<name>``, where results of
        another study are never replaced.
    warn : callable, optional
        Receives warnings (a rejected part file); default: printed on stderr.

    Raises
    ------
    ValueError
        A refused study, folder or scheduler (nothing written), or a folder held by
        another run (:class:`~four21sim.study.lock.FolderBusy`).
    """
    from . import executors
    check_int("--workers", workers, 1)
    if warn is None:
        def warn(msg: str) -> None:
            print(f"sweep: warning: {msg}", file=sys.stderr)
    if scheduler is not None:
        executors.check_scheduler(scheduler)
    out = Path(out)
    configs, skipped = prepare(study, out, chosen)
    for s in skipped:  # every configuration the study drops is said on the console, not only in the manifest
        warn(f"skipped {s['variant']}, {s['players']} players, {s['lineup']}: {s['reason']}")
    client = cluster = None
    if scheduler is not None:  # connect before writing anything: an unreachable scheduler writes nothing
        client, cluster = executors.open_client(scheduler)
    try:
        try:  # _check_out cannot foresee every failure (e.g. /proc/x as root): still one line, exit 2
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ValueError(f"--out: {str(out)!r} cannot be created ({exc.strerror or exc})") from None

        def waiting(holder: str) -> None:
            if not quiet:
                print(f"sweep: waiting for the run writing {str(out)!r} ({holder})", file=sys.stderr)

        with FolderLock(out, wait=wait, on_wait=waiting) as lock:
            _check_folder(study, out, chosen)  # again: another run may have written it meanwhile
            remove_orphans(out, lock)
            return _run_locked(study, out, configs, skipped, workers, scheduler, client, quiet, command, warn)
    finally:
        if client is not None:
            executors.close(client, cluster)


def _run_locked(study, out, configs, skipped, workers, scheduler, client, quiet, command, warn) -> dict:
    started = _dt.datetime.now(_dt.timezone.utc)
    write_text_atomic(out / "study.json", json.dumps({"fingerprint": study.fingerprint(), "code": code_identity(),
                                                     "study": study.to_dict()}, indent=2))
    total = len(configs) * study.games
    to_play = sum(c.games_factor for c in configs) * study.games  # one:A/B plays every seat's rotation
    bar = None
    if not quiet and sys.stderr.isatty():
        from tqdm import tqdm
        bar = tqdm(total=to_play, unit=" games", unit_scale=True, dynamic_ncols=True, smoothing=0.05,
                   desc=study.name)

    def progress(n: int) -> None:
        if bar is not None:
            bar.update(n)

    t0 = time.perf_counter()
    try:
        pending, _ = pending_tasks(study, configs, out, warn)
        if bar is not None:
            bar.update(to_play - sum(t.games * configs[t.config].games_factor for t in pending))
        info = run_study_tasks(study, configs, out, pending, workers, client, progress)
    finally:
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - t0
    manifest = {
        "name": study.name, "question": study.question, "fingerprint": study.fingerprint(),
        "study": study.to_dict(), "seed": study.seed, "command": command, "versions": _versions(),
        "git_commit": _git_commit(), "started": started.isoformat(timespec="seconds"),
        "finished": None, "seconds": seconds, "games_total": total, "games_run": info["games_run"],
        "games_resumed": total - info["games_run"], "games_played_total": to_play,
        "games_played_run": info["games_played"], "tasks_run": info["tasks_run"],
        "games_per_second": info["games_played"] / seconds if seconds > 0 else 0.0,
        "workers": workers, "scheduler": scheduler, "skipped": skipped,
        "configurations": [{"key": c.key, "variant": c.label, "players": c.players, "lineup": c.lineup.label,
                            "options": c.variant.options()} for c in configs],
    }
    write_outputs(study, configs, out, manifest)
    return manifest


# ------------------------------------------------------------------ outputs
def write_outputs(study: Study, configs: list[Config], out: Path, manifest: dict) -> None:
    """Merge the parts and write tables, figures, REPORT.md and manifest.json, all at once.

    Everything is written into a temporary folder beside them, then moved into place
    (each move atomic, the whole swap a few renames): a run stopped while writing
    leaves the previous outputs whole, and the new figures replace the old folder.
    """
    out = Path(out)
    stage = temp_path(out / "outputs", suffix="")
    if stage.exists():
        shutil.rmtree(stage)
    stage.mkdir()
    try:
        files = _render(study, configs, out, stage, manifest)
        for name in files:  # the tables, REPORT.md and manifest.json: one atomic rename each
            if "/" not in name:
                os.replace(stage / name, out / name)
        old = stage / ".old-figures"
        if (out / FIGURES).exists():
            os.rename(out / FIGURES, old)
        os.rename(stage / FIGURES, out / FIGURES)
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _render(study: Study, configs: list[Config], out: Path, stage: Path, manifest: dict) -> list[str]:
    """Write every output into ``stage``; returns their names (relative, figures as figures/NAME)."""
    import matplotlib
    matplotlib.use("Agg")

    from . import figures as plots
    from .report import write_report
    from .tables import build_tables, merge_parts, reference_lineup

    merged = merge_parts(study, configs, out)
    tables = build_tables(study, configs, merged)
    files = []
    for name, df in tables.items():
        df.to_parquet(stage / f"{name}.parquet", index=False)
        files.append(f"{name}.parquet")
    fair, meas, dists = tables["fairness"], tables["measures"], tables["distributions"]
    ref = reference_lineup(fair)
    figs = {}
    if ref is not None:
        players = sorted(fair["players"].unique())
        small = 2 if 2 in players else players[0]
        figs.update(plots.study_figures(tables, ref))
        figs[f"First-player advantage ({ref})"] = plots.fpa_figure(fair, ref)
        if "optimal" in set(fair["lineup"]):
            figs["First-player advantage (optimal: 2 and 3 players)"] = plots.fpa_figure(fair, "optimal")
        figs[f"Win share by seat ({ref})"] = plots.seat_share_figure(meas, ref)
        figs[f"Game length ({ref}, {small} players)"] = plots.length_figure(dists, ref, small)
        figs[f"Token swing per round ({ref}, {small} players)"] = plots.swing_figure(dists, ref, small)
    if not tables["skill"].empty:
        figs["Skill against luck"] = plots.skill_figure(tables["skill"])
    (stage / FIGURES).mkdir()
    rels = {}
    for i, (title, fig) in enumerate(figs.items()):
        rel = f"{FIGURES}/{i + 1:02d}-{_slug(title)}.png"
        plots.save(fig, stage / rel)
        rels[title] = rel
        files.append(rel)
    manifest["finished"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    manifest["runaway_games"] = int(tables["runaways"]["runaway_games"].sum()) if len(tables["runaways"]) else 0
    manifest["files"] = files + ["REPORT.md", "manifest.json", "study.json"]
    write_report(stage / "REPORT.md", study, manifest, tables, rels)
    write_text_atomic(stage / "manifest.json", json.dumps(manifest, indent=2, default=str))
    return files + ["REPORT.md", "manifest.json"]


def _slug(text: str) -> str:
    keep = "".join(ch.lower() if ch.isalnum() else "-" for ch in text)
    while "--" in keep:
        keep = keep.replace("--", "-")
    return keep.strip("-")
