"""Running a study's tasks: in this process, on local worker processes, or on Dask.

Whatever runs the tasks, the parent process writes each finished task's part file
(atomically) as soon as it arrives, so an interrupted run loses only the tasks in
flight and the next run resumes from the parts on disk.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path

from .study import Study
from .tasks import Task, make_tasks, part_keys, part_path, read_part, run_task, write_part

__all__ = ["run_study_tasks", "warm_up", "pending_tasks"]


def warm_up() -> None:
    """Compile (or load) the kernels once in this process, before any worker starts.

    Workers then load the cache instead of compiling, and never write it concurrently.
    """
    from .simulate import simulate
    simulate("super421", 2, "sec", games=64, seed=0, records=True)
    simulate("super421", 2, "sec", games=64, seed=0)


def _worker_init() -> None:
    import numba
    numba.set_num_threads(1)  # one thread per worker process: no oversubscription


def _work(config, seed: int, first_game: int, games: int) -> dict:
    return run_task(config, seed, first_game, games, threads=1)


def pending_tasks(study: Study, configs, out: Path, warn: Callable[[str], None] | None = None) -> tuple[list, int]:
    """Tasks whose part file is missing or unreadable, and the games already done."""
    tasks = make_tasks(len(configs), study.games, study.task_games)
    for stale in (Path(out) / "parts").glob("*/.*.tmp*"):  # a write cut short by a kill
        stale.unlink(missing_ok=True)
    pending, done = [], 0
    for t in tasks:
        path = part_path(out, configs[t.config], t.block)
        if path.exists():
            if read_part(path, part_keys(configs[t.config])) is not None:
                done += t.games
                continue
            if warn:
                warn(f"part file {path} is unreadable (corrupt or foreign): computing it again")
            path.unlink()
        pending.append(t)
    return pending, done


def run_study_tasks(study: Study, configs, out: Path, pending: list, workers: int = 1, client=None,
                    progress: Callable[[int], None] | None = None) -> dict:
    """Run the ``pending`` tasks of ``study`` (see :func:`pending_tasks`); returns timing information.

    ``client``: a connected Dask client to run the tasks on (else local processes).
    ``progress`` is called with the games each finished task played (all its seats'
    rotations for a one:A/B line-up).
    """
    t0 = time.perf_counter()
    games_run = games_played = 0

    def finished(task: Task, counters: dict) -> None:
        nonlocal games_run, games_played
        write_part(part_path(out, configs[task.config], task.block), counters)
        games_run += task.games
        games_played += task.games * configs[task.config].games_factor
        if progress:
            progress(task.games * configs[task.config].games_factor)

    if pending:
        if client is not None:
            from .dask_executor import run_on_dask
            run_on_dask(client, pending, configs, study.seed, finished)
        elif workers <= 1:
            for t in pending:
                finished(t, run_task(configs[t.config], study.seed, t.first_game, t.games))
        else:
            _run_processes(pending, configs, study.seed, workers, finished)
    return {"games_run": games_run, "games_played": games_played, "seconds": time.perf_counter() - t0,
            "tasks_run": len(pending)}


def _run_processes(pending, configs, seed, workers, finished) -> None:
    warm_up()
    ctx = multiprocessing.get_context("spawn")  # no fork after numba's threads have started
    env_before = os.environ.get("NUMBA_NUM_THREADS")
    # workers are spawned lazily, at submit: the variable must stay set until the pool is done
    os.environ["NUMBA_NUM_THREADS"] = "1"
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init)
    try:
        todo = list(pending)
        running = {}
        # keep a bounded number of tasks in flight: an interrupt loses at most these
        while todo or running:
            while todo and len(running) < 2 * workers:
                t = todo.pop(0)
                running[pool.submit(_work, configs[t.config], seed, t.first_game, t.games)] = t
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for fut in done:
                t = running.pop(fut)
                finished(t, fut.result())
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    finally:
        if env_before is None:
            os.environ.pop("NUMBA_NUM_THREADS", None)
        else:
            os.environ["NUMBA_NUM_THREADS"] = env_before
    pool.shutdown(wait=True)


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use python -m four21sim.sweep")
