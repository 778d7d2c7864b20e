"""Tasks of a study: fixed blocks of games of one configuration, and their part files.

A configuration's games are numbered from 0 and cut into blocks of
``task_games``; block ``b`` plays games ``b*task_games ...`` with the study's seed.
The cut does not depend on how many workers run the tasks, and every counter is
an integer sum, so the merged tables are the same bit for bit whatever runs them.

Each finished task is written at once, atomically (a temporary file renamed into
place), as ``parts/<config key>/<block>.npz``. A run that is stopped loses at most
the tasks in flight; running it again skips every part already on disk.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .atomic import atomic_path, write_text_atomic  # noqa: F401  (re-exported)
from .simulate import _COUNTERS, BLOCK_STATS, SHARE_UNIT, simulate, win_units
from .study import Config

__all__ = ["Task", "make_tasks", "run_task", "part_path", "write_part", "read_part", "part_keys",
           "SHARE_UNIT"]

_RECORD_CHUNK = 200_000


@dataclass(frozen=True)
class Task:
    config: int  # index in the study's configuration list
    block: int
    first_game: int
    games: int


def make_tasks(n_configs: int, games: int, task_games: int) -> list[Task]:
    """Every (configuration, block) task of a study, configuration-major."""
    out = []
    for c in range(n_configs):
        for b, start in enumerate(range(0, games, task_games)):
            out.append(Task(c, b, start, min(task_games, games - start)))
    return out


def run_task(config: Config, seed: int, first_game: int, games: int, threads: int | None = None) -> dict:
    """Play one task and return its counters (a dict of integer arrays)."""
    lu = config.lineup
    if lu.kind == "all":
        res = simulate(config.variant, config.players, lu.a, games=games, seed=seed, first_game=first_game,
                       threads=threads)
        return {k: np.asarray(v) for k, v in res.counters.items()}
    # one skilled player, every seat in turn, on the same games: per-game sums of its
    # share (in units of 1/SHARE_UNIT) over the rotations, kept exactly as integers
    n = config.players
    total = np.zeros(1, dtype=np.int64)
    total_sq = np.zeros(1, dtype=np.int64)
    by_seat = np.zeros(n, dtype=np.int64)
    games_run = np.zeros(1, dtype=np.int64)
    done = 0
    while done < games:
        m = min(_RECORD_CHUNK, games - done)
        per_game = np.zeros(m, dtype=np.int64)
        for s in range(n):
            lineup = [lu.b] * n
            lineup[s] = lu.a
            res = simulate(config.variant, n, lineup, games=m, seed=seed, first_game=first_game + done,
                           records=True, threads=threads)
            units = win_units(res.records["win_mask"].to_numpy(), s)
            per_game += units
            by_seat[s] += units.sum()
        total += per_game.sum()
        total_sq += (per_game * per_game).sum()
        games_run += m
        done += m
    return {"one_games": games_run, "one_sum": total, "one_sumsq": total_sq, "one_by_seat": by_seat}


def part_path(out: Path, config: Config, block: int) -> Path:
    return Path(out) / "parts" / config.key / f"{block:06d}.npz"


def write_part(path: Path, counters: dict) -> None:
    """Write a part file atomically: readers see the whole file or none."""
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as f:
            np.savez(f, **counters)
            f.flush()
            os.fsync(f.fileno())


def part_keys(config: Config) -> frozenset[str]:
    """The names of the counters in a part file of ``config``."""
    if config.lineup.kind == "one":
        return frozenset(("one_games", "one_sum", "one_sumsq", "one_by_seat"))
    return frozenset(_COUNTERS + BLOCK_STATS)


def read_part(path: Path, keys=None) -> dict | None:
    """The counters of a part file, or None if it is missing or unreadable (corrupt), or if ``keys``
    is given and the file does not hold exactly those counters (a damaged zip directory, a foreign file)."""
    try:
        with np.load(path) as z:
            part = {k: z[k] for k in z.files}
    except FileNotFoundError:
        return None
    except Exception:  # noqa: BLE001  any damage: zipfile/numpy raise many kinds (NotImplementedError, ...)
        return None
    if keys is not None and set(part) != set(keys):
        return None
    return part
