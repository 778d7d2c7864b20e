"""Tasks of a study: fixed blocks of games of one configuration, and their part files.

A configuration's games are numbered from 0 and cut into blocks of
``task_games``; block ``b`` plays games ``b*task_games ...`` with the study's seed.
The cut does not depend on how many workers run the tasks, and every counter is
an integer sum, so the merged tables are the same bit for bit whatever runs them.

Each finished task is written at once, atomically (a temporary file renamed into
place), as ``parts/<config key>/<block>.npz``. A run that is stopped loses at most
the tasks in flight; running it again skips every part already on disk.

A part knows where it comes from: beside its counters it records its
:class:`PartIdentity` (the study's fingerprint, the configuration key, the seed,
the block and its games, the engine contract) and a checksum of its counters. A
part read back is used only if all of it matches the place it is read for
(:func:`check_part`): a part copied from another block, configuration or study,
made by another engine, or with altered counters, is refused with the reason.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from .._util.atomic import atomic_path, write_text_atomic  # noqa: F401  (re-exported)
from ..engine.layout import COUNTER_NAMES
from ..engine.simulation import BLOCK_STATS, SHARE_UNIT, simulate, win_units
from .spec import Config

__all__ = ["Task", "make_tasks", "run_task", "part_path", "write_part", "read_part", "part_keys",
           "PartIdentity", "part_identity", "check_part", "SHARE_UNIT"]

_IDENTITY = "__identity__"  # the array of a part file holding its identity (JSON, as bytes)

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


def run_task(config: Config, seed: int, first_game: int, games: int, threads: int | None = None,
             max_rounds: int = 100_000) -> dict:
    """Play one task and return its counters (a dict of integer arrays).

    Runaway games (still running after ``max_rounds`` rounds) are counted, not raised:
    ``misc[M_RUNAWAY]`` for a line-up everyone plays; for a one:A/B line-up, a game
    that runs away in any seat rotation is left out of every sum and counted in
    ``one_runaway``, so that every game counted has all its rotations.
    """
    lu = config.lineup
    if lu.kind == "all":
        res = simulate(config.variant, config.players, lu.a, games=games, seed=seed, first_game=first_game,
                       threads=threads, max_rounds=max_rounds, check_runaway=False)
        return {k: np.asarray(v) for k, v in res.counters.items()}
    # one skilled player, every seat in turn, on the same games: per-game sums of its
    # share (in units of 1/SHARE_UNIT) over the rotations, kept exactly as integers
    n = config.players
    out = {k: np.zeros(n if k.endswith("by_seat") else 1, dtype=np.int64) for k in ONE_KEYS}
    done = 0
    while done < games:
        m = min(_RECORD_CHUNK, games - done)
        units = {"": np.zeros((n, m), dtype=np.int64), "pay_": np.zeros((n, m), dtype=np.int64)}
        finished = np.ones(m, dtype=bool)
        for s in range(n):
            lineup = [lu.b] * n
            lineup[s] = lu.a
            res = simulate(config.variant, n, lineup, games=m, seed=seed, first_game=first_game + done,
                           records=True, threads=threads, max_rounds=max_rounds, check_runaway=False)
            win_mask = res.records["win_mask"].to_numpy()
            units[""][s] = win_units(win_mask, s)
            units["pay_"][s] = win_units(res.records["lose_mask"].to_numpy(), s)  # 1/k of a loss shared by k
            finished &= win_mask != 0  # every finished game has a winner; a runaway has none
        for what, u in units.items():  # the win share, then the pay share
            u = u[:, finished]
            per_game = u.sum(axis=0)
            out[f"one_{what}by_seat"] += u.sum(axis=1)
            out[f"one_{what}sum"] += per_game.sum()
            out[f"one_{what}sumsq"] += (per_game * per_game).sum()
        out["one_games"] += int(finished.sum())
        out["one_runaway"] += m - int(finished.sum())
        done += m
    return out


# the counters of a one:A/B task: games, then per-game sums over the rotations of A's win share
# and of its pay share (units of 1/SHARE_UNIT), their squares, and A's share by seat
ONE_KEYS = ("one_games", "one_sum", "one_sumsq", "one_by_seat", "one_pay_sum", "one_pay_sumsq", "one_pay_by_seat",
            "one_runaway")


@dataclass(frozen=True)
class PartIdentity:
    """Where a part file belongs: the study, the configuration, the seed, the block, the engine."""

    study: str  # the study's fingerprint
    config: str  # the configuration's key
    seed: int
    block: int
    first_game: int
    games: int
    engine_contract: int


def part_identity(study, config: Config, task: Task) -> PartIdentity:
    """The identity a part of ``task`` in ``study`` must carry."""
    from ..engine import ENGINE_CONTRACT
    return PartIdentity(study.fingerprint(), config.key, study.seed, task.block, task.first_game, task.games,
                        ENGINE_CONTRACT)


def _checksum(counters: dict) -> str:
    """SHA-256 over the counters' names, types, shapes and bytes (in name order)."""
    h = hashlib.sha256()
    for k in sorted(counters):
        a = np.ascontiguousarray(counters[k])
        h.update(f"{k}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()


_FIELD_NAMES = {"study": "study fingerprint", "config": "configuration", "seed": "seed", "block": "block",
                "first_game": "first game", "games": "games", "engine_contract": "engine contract"}


def part_path(out: Path, config: Config, block: int) -> Path:
    return Path(out) / "parts" / config.key / f"{block:06d}.npz"


def write_part(path: Path, counters: dict, identity: PartIdentity) -> None:
    """Write a part file atomically (readers see the whole file or none), with its identity and
    the checksum of its counters."""
    meta = dict(asdict(identity), checksum=_checksum(counters))
    blob = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8)
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as f:
            np.savez(f, **counters, **{_IDENTITY: blob})
            f.flush()
            os.fsync(f.fileno())


def part_keys(config: Config) -> frozenset[str]:
    """The names of the counters in a part file of ``config``."""
    if config.lineup.kind == "one":
        return frozenset(ONE_KEYS)
    return frozenset(COUNTER_NAMES + BLOCK_STATS)


def check_part(path: Path, keys, identity: PartIdentity) -> tuple[dict | None, str | None]:
    """Read a part file for the place ``identity``: ``(counters, None)`` if it is whole and belongs
    there, else ``(None, why)`` (``why`` is None for a missing file)."""
    try:
        with np.load(path) as z:
            part = {k: z[k] for k in z.files}
    except FileNotFoundError:
        return None, None
    except Exception:  # noqa: BLE001  any damage: zipfile/numpy raise many kinds (NotImplementedError, ...)
        return None, "is unreadable (corrupt or foreign)"
    blob = part.pop(_IDENTITY, None)
    if set(part) != set(keys) or any(a.dtype.kind not in "iu" for a in part.values()):
        return None, "is unreadable (corrupt or foreign: not the counters of this configuration)"
    if blob is None:
        return None, "does not say where it comes from (written by an older version)"
    try:
        meta = json.loads(blob.tobytes().decode())
        if not isinstance(meta, dict):
            raise ValueError
    except ValueError:
        return None, "is unreadable (its identity is damaged)"
    for k, want in asdict(identity).items():
        if meta.get(k) != want:
            return None, (f"belongs elsewhere: its {_FIELD_NAMES[k]} is {meta.get(k)!r}, this place's is "
                          f"{want!r}")
    if meta.get("checksum") != _checksum(part):
        return None, "has counters that do not match their checksum (altered)"
    return part, None


def read_part(path: Path, keys, identity: PartIdentity) -> dict | None:
    """The counters of a part file that belongs at ``identity``, else None (see :func:`check_part`)."""
    return check_part(path, keys, identity)[0]
