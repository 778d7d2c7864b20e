"""Running a study into a results folder, so that results cannot be mixed, forged or lost.

:func:`run_sweep` does, in order:

1. resolve the study once into a :class:`~four21sim.study.plan.Plan` (configurations,
   tasks, fingerprint, policies checked once) and validate everything that could fail
   before a game is played: the study, every policy, the folder
   (:mod:`four21sim.study.folder`: a new, empty or results folder, never one holding
   another study's results or anything else), the Dask scheduler; nothing is written for
   a refused study;
2. take the folder's lock (:mod:`four21sim.study.lock`): one writer per folder; a second
   one is refused at once, naming the holder, or waits for it (``wait=True``);
3. under the lock: check the folder again, remove temporary files of dead writers,
   write ``study.json``, and list the tasks whose part file is missing or does not
   belong to its place (:func:`four21sim.study.tasks.check_part`: a warning names each
   rejected file, which is then computed again);
4. solve the exact solutions the tasks need, then run the tasks
   (:mod:`four21sim.study.executors`), writing each part as it arrives;
5. write the outputs (tables, figures, REPORT.md, manifest.json, run.json) into a
   temporary folder and swap them in as one (:func:`four21sim.study.folder.swap_outputs`).

Every phase shows its progress (:mod:`four21sim.study.progress`). ``manifest.json``
records what produced the results and nothing that varies from run to run, so that a
run whose tables are unchanged leaves a committed folder unchanged; the run's own
facts (times, speed, the commit, the command, the workers) go to ``run.json``, which is
not committed.
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
from .._util.atomic import write_text_atomic
from .._util.source import source_fingerprint
from . import folder as F
from .lock import FolderLock, remove_orphans
from .plan import Plan, make_plan
from .progress import Progress
from .spec import Study
from .tasks import Task, check_part, part_path

__all__ = ["run_sweep", "prepare", "pending_tasks", "run_study_tasks", "write_outputs", "code_identity",
           "source_fingerprint", "RUN_FIELDS"]

FIGURES = F.FIGURES
MAX_WARNINGS = 20  # rejected part files named one by one; the rest are counted in one line
RUN_FIELDS = ("command", "git_commit", "started", "finished", "seconds", "games_run", "games_resumed",
              "games_played_run", "tasks_run", "games_per_second", "workers", "scheduler", "phases")
"""The fields of ``run.json``: what varies from one run of the same study to the next."""


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
def _part_study(path: Path) -> str | None:
    """The study fingerprint a part file records (None if it records none or cannot be read)."""
    from .._util.atomic import open_plain
    try:
        with os.fdopen(open_plain(path), "rb") as f, np.load(f) as z:
            return json.loads(z["__identity__"].tobytes().decode()).get("study")
    except Exception:  # noqa: BLE001  a damaged part is the business of pending_tasks
        return None


def prepare(plan: Plan, out: Path, chosen: bool = True) -> None:
    """Refuse a folder a run may not write (ValueError, nothing written): see :mod:`.folder`.

    ``chosen``: the folder was given explicitly (``--out``), not derived from the name.
    """
    F.check_out(out)
    if out.is_dir():
        F.check_results_folder(plan.fingerprint, code_identity(), out, chosen, _part_study)


def pending_tasks(plan: Plan, out: Path, warn: Callable[[str], None] | None = None) -> tuple[list[Task], int]:
    """Tasks whose part file is missing or does not belong to its place, and the games already done.

    A part that is there but cannot be used is reported through ``warn``, naming the
    file and why, and removed (it is computed again).
    """
    pending, done, rejected = [], 0, 0
    for t in plan.tasks:
        c = plan.config(t)
        path = part_path(out, c, t.block)
        part, why = check_part(path, frozenset(_keys(c)), plan.identity(t), c)
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


def _keys(config) -> frozenset:
    from .tasks import part_keys
    return part_keys(config)


# ------------------------------------------------------------------ running
def _solve_phase(plan: Plan, pending: list[Task], workers: int, scheduler: str | None, progress: Progress) -> None:
    """Solve the exact solutions the pending tasks need, side by side, before any game."""
    from . import executors
    items = plan.solutions_for(pending)
    if not items or (scheduler or "").startswith("tcp://"):
        return  # remote workers solve what they play (their disk cache is theirs)
    with progress.phase("solve", len(items), "solutions") as ph:
        executors.warm_policies(items, max(workers, os.cpu_count() or 1), lambda item: ph.update())


def run_study_tasks(plan: Plan, out: Path, pending: list[Task], workers: int = 1, client=None,
                    progress: Progress | None = None, scheduler: str | None = None) -> dict:
    """Solve what the ``pending`` tasks need, then run them, writing each part as it finishes.

    ``client``: a connected Dask client to run the tasks on (else this process for
    ``workers == 1``, or local processes).
    """
    from . import executors
    from .tasks import write_part
    progress = progress or Progress("sweep", enabled=False)
    t0 = time.perf_counter()
    _solve_phase(plan, pending, workers, scheduler, progress)
    t_solve = time.perf_counter() - t0
    games_run = games_played = 0
    done_before = plan.games_to_play - sum(plan.played(t) for t in pending)
    if pending and client is None:
        # compiled (or loaded from numba's cache) before the bar starts, so that its rate and ETA
        # measure games only; the compile itself is announced by the command (_util.waiting)
        executors.warm_up()
    with progress.phase("play", plan.games_to_play, "games", initial=done_before, scale=True) as ph:
        def finished(task: Task, counters: dict) -> None:
            nonlocal games_run, games_played
            write_part(part_path(out, plan.config(task), task.block), counters, plan.identity(task))
            games_run += task.games
            games_played += plan.played(task)
            ph.update(plan.played(task))

        if not pending:
            pass
        elif client is not None:
            executors.run_on_dask(client, plan, pending, finished)
        elif workers <= 1:
            executors.run_in_process(plan, pending, finished)
        else:
            executors.run_processes(plan, pending, min(workers, len(pending)), finished)
    seconds = time.perf_counter() - t0
    return {"games_run": games_run, "games_played": games_played, "seconds": seconds, "tasks_run": len(pending),
            "phases": {"solve": round(t_solve, 3), "play": round(seconds - t_solve, 3)}}


def run_sweep(study: Study, out, workers: int = 1, scheduler: str | None = None, quiet: bool = False,
              command: str = "four21sim sweep", *, wait: bool = False, chosen: bool = True,
              warn: Callable[[str], None] | None = None, progress: Progress | None = None) -> dict:
    """Run (or resume) ``study`` into the folder ``out``; returns the manifest and the run's facts.

    Parameters
    ----------
    study : Study
    out : path
        The results folder: a new folder, an empty one, or a results folder.
    workers : int
        Local worker processes (1: this process, numba using every core); at most
        :func:`~four21sim.study.executors.max_workers`.
    scheduler : str, optional
        ``local:N`` or ``tcp://HOST:PORT``: run the tasks on Dask.
    quiet : bool
        No progress display and no warnings of dropped configurations.
    command : str
        The command recorded in ``run.json``.
    wait : bool
        If another run holds the folder, wait for it rather than raise.
    chosen : bool
        ``out`` was chosen explicitly; False for ``results/<name>``, where results of
        another study are never replaced.
    warn : callable, optional
        Receives warnings (a rejected part file); default: printed on stderr.
    progress : Progress, optional
        The display (default: on stderr, unless ``quiet``).

    Raises
    ------
    ValueError
        A refused study, folder or scheduler (nothing written), or a folder held by
        another run (:class:`~four21sim.study.lock.FolderBusy`).
    """
    from . import executors
    executors.check_workers(workers)
    if warn is None:
        def warn(msg: str) -> None:
            print(f"sweep: warning: {msg}", file=sys.stderr)
    if scheduler is not None:
        executors.check_scheduler(scheduler)
    out = F.check_out(out)
    plan = make_plan(study)
    prepare(plan, out, chosen)
    progress = progress or Progress("sweep", enabled=not quiet)
    client = cluster = None
    if scheduler is not None:  # connect before writing anything: an unreachable scheduler writes nothing
        client, cluster = executors.open_client(scheduler)
    try:
        _announce(plan, out, warn if study.undefined == "warn" else None, progress)
        try:  # check_out cannot foresee every failure (e.g. /proc/x as root): still one line, exit 2
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ValueError(f"--out: {str(out)!r} cannot be created ({exc.strerror or exc})") from None

        def waiting(holder: str) -> None:
            if not quiet:
                print(f"sweep: waiting for the run writing {str(out)!r} ({holder})", file=sys.stderr)

        with FolderLock(out, wait=wait, on_wait=waiting) as lock:
            prepare(plan, out, chosen)  # again: another run may have written it meanwhile
            remove_orphans(out, lock)
            F.remove_stale_stages(out)
            return _run_locked(plan, out, workers, scheduler, client, command, warn, progress)
    finally:
        if client is not None:
            executors.close(client, cluster)


def _announce(plan: Plan, out: Path, warn, progress: Progress) -> None:
    """The plan in one line; each dropped configuration in a warning when the study says ``warn``."""
    if warn is not None:
        for s in plan.skipped:
            warn(f"skipped {s['variant']}, {s['players']} players, {s['lineup']}: {s['reason']}")
    dropped = f" ({len(plan.skipped)} where a line-up is not defined: skipped)" if plan.skipped else ""
    progress.line(f"{plan.study.name}: {len(plan.configs)} configurations{dropped}, {len(plan.tasks)} tasks, "
                  f"{plan.games_to_play:,} games into {out}")


def _run_locked(plan: Plan, out: Path, workers, scheduler, client, command, warn, progress: Progress) -> dict:
    started = _dt.datetime.now(_dt.timezone.utc)
    study = plan.study
    write_text_atomic(out / "study.json", json.dumps({"fingerprint": plan.fingerprint, "code": code_identity(),
                                                     "study": study.to_dict()}, indent=2))
    pending, _ = pending_tasks(plan, out, warn)
    info = run_study_tasks(plan, out, pending, workers, client, progress, scheduler)
    manifest = {
        "name": study.name, "question": study.question, "fingerprint": plan.fingerprint,
        "study": study.to_dict(), "seed": study.seed, "versions": _versions(),
        "code": dict(code_identity(), source=source_fingerprint()),
        "games_total": plan.games_total, "games_played_total": plan.games_to_play,
        "skipped": list(plan.skipped),
        "configurations": [{"key": c.key, "variant": c.label, "players": c.players, "lineup": c.lineup.label,
                            "options": c.variant.options()} for c in plan.configs],
    }
    seconds = info["seconds"]
    run = {"command": command, "git_commit": _git_commit(), "started": started.isoformat(timespec="seconds"),
           "finished": None, "seconds": seconds, "games_run": info["games_run"],
           "games_resumed": plan.games_total - info["games_run"], "games_played_run": info["games_played"],
           "tasks_run": info["tasks_run"], "games_per_second": info["games_played"] / seconds if seconds > 0 else 0.0,
           "workers": workers, "scheduler": scheduler, "phases": info["phases"]}
    write_outputs(plan, out, manifest, run, progress)
    return {**manifest, **run}


# ------------------------------------------------------------------ outputs
def write_outputs(plan: Plan, out: Path, manifest: dict, run: dict | None = None,
                  progress: Progress | None = None) -> None:
    """Merge the parts and write tables, figures, REPORT.md, manifest.json and run.json, swapped in as one
    (:func:`~four21sim.study.folder.swap_outputs`): a run stopped while writing leaves the previous
    outputs whole."""
    out = Path(out)
    progress = progress or Progress("sweep", enabled=False)
    stage = F.stage_path(out)
    if stage.exists():
        shutil.rmtree(stage)
    stage.mkdir()
    try:
        t0 = time.perf_counter()
        files = _render(plan, out, stage, manifest, progress)
        run = dict(run or {})
        run["finished"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        run.setdefault("phases", {})["write"] = round(time.perf_counter() - t0, 3)
        write_text_atomic(stage / "run.json", json.dumps(run, indent=2, default=str) + "\n")
        F.swap_outputs(out, stage, files + ["run.json"])
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _render(plan: Plan, out: Path, stage: Path, manifest: dict, progress: Progress) -> list[str]:
    """Write every output into ``stage``; returns their names (relative, figures as figures/NAME)."""
    import matplotlib
    matplotlib.use("Agg")

    from . import figures as plots
    from .report import write_report
    from .tables import build_tables, merge_parts

    study, configs = plan.study, list(plan.configs)
    merged = merge_parts(plan, out)
    tables = build_tables(study, configs, merged)
    files = []
    figs = plots.report_figures(tables)
    with progress.phase("write", len(tables) + len(figs) + 1, "files") as ph:
        for name, df in tables.items():
            df.to_parquet(stage / f"{name}.parquet", index=False)
            files.append(f"{name}.parquet")
            ph.update()
        (stage / FIGURES).mkdir()
        rels = {}
        for i, (title, fig) in enumerate(figs.items()):
            rel = f"{FIGURES}/{plots.figure_name(i, title)}"
            plots.save(fig, stage / rel)
            rels[title] = rel
            files.append(rel)
            ph.update()
        manifest["runaway_games"] = int(tables["runaways"]["runaway_games"].sum()) if len(tables["runaways"]) else 0
        manifest["files"] = files + ["REPORT.md", "manifest.json", "run.json", "study.json"]
        write_report(stage / "REPORT.md", study, manifest, tables, rels)
        write_text_atomic(stage / "manifest.json", json.dumps(manifest, indent=2, default=str) + "\n")
        ph.update()
    return files + ["REPORT.md", "manifest.json"]


