"""Tasks of a study: fixed blocks of games of one configuration, and their part files.

A configuration's games are numbered from 0 and cut into blocks of
``task_games``; block ``b`` plays games ``b*task_games ...`` with the study's seed.
The cut does not depend on how many workers run the tasks, and every counter is
an integer sum, so the merged tables are the same bit for bit whatever runs them.

Nor do the numbers depend on ``task_games``. The per-round intervals treat blocks of
``DEFAULT_BLOCK`` games as clusters, and those blocks are fixed on the game numbers
(block ``k`` is games ``k*DEFAULT_BLOCK ...``), not on the tasks: a task plays its
whole blocks in one go and keeps, for the one or two blocks it shares with its
neighbours (its *edges*), the raw per-block sums, which :func:`merge_counters` adds
up across tasks before squaring them. Every column, intervals included, is then the
same for any ``task_games``.

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
import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from .._util.atomic import UnsafePath, atomic_path, open_plain, write_text_atomic  # noqa: F401  (re-exported)
from ..engine.layout import COUNTERS
from ..engine.simulation import BLOCK_STATS, DEFAULT_BLOCK, ROUND_RATES, SHARE_UNIT, simulate, win_units
from .spec import Config

__all__ = ["Task", "make_tasks", "run_task", "part_path", "write_part", "read_part", "part_keys",
           "PartIdentity", "part_identity", "check_part", "merge_counters", "SHARE_UNIT", "EDGE_KEYS",
           "MAX_PART_BYTES"]

MAX_PART_BYTES = 64 << 20
"""The largest part file read (a part is some 20 KB)."""
# the raw sums of the blocks a task shares with its neighbours: block number, round-rate numerators,
# rounds, and the same per position (see the module docstring)
EDGE_KEYS = ("edge_block", "edge_k", "edge_r", "edge_pos_k", "edge_pos_r")

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
    if config.lineup.kind == "all":
        return _run_all(config, seed, first_game, games, threads, max_rounds)
    return _run_one(config, seed, first_game, games, threads, max_rounds)


def _segments(first_game: int, games: int, block: int) -> list[tuple[int, int, bool]]:
    """``(start, games, whole)``: the task cut at the multiples of ``block``; the whole blocks
    in one segment, the partial blocks at either end (edges) apart."""
    a, b = first_game, first_game + games
    lo, hi = -(-a // block) * block, (b // block) * block
    if lo >= hi:  # no whole block: one or two edges
        cut = [a, lo, b] if a < lo < b else [a, b]
        return [(x, y - x, False) for x, y in zip(cut, cut[1:])]
    out = [(a, lo - a, False)] if a < lo else []
    out.append((lo, hi - lo, True))
    if hi < b:
        out.append((hi, b - hi, False))
    return out


def _isqrt(a: np.ndarray) -> np.ndarray:
    return np.array([math.isqrt(int(x)) for x in np.ravel(a)], dtype=np.int64).reshape(np.shape(a))


def _run_all(config: Config, seed: int, first_game: int, games: int, threads, max_rounds: int) -> dict:
    """A line-up everyone plays: whole blocks summed as usual, edges kept raw (module docstring)."""
    total: dict | None = None
    edges: list[tuple] = []
    for start, n, whole in _segments(first_game, games, DEFAULT_BLOCK):
        res = simulate(config.variant, config.players, config.lineup.a, games=n, seed=seed, first_game=start,
                       threads=threads, max_rounds=max_rounds, check_runaway=False,
                       block=DEFAULT_BLOCK if whole else n)
        cnt = {k: np.asarray(v) for k, v in res.counters.items()}
        if not whole:
            # one block: its sums of squares are the squares of its sums, which are >= 0
            raw = tuple(_isqrt(cnt[k]) for k in ("blk_kk", "blk_rr", "blk_pos_kk", "blk_pos_rr"))
            edges.append((start // DEFAULT_BLOCK,) + raw)
            cnt.update({k: np.zeros_like(cnt[k]) for k in BLOCK_STATS})
        total = cnt if total is None else {k: total[k] + cnt[k] for k in total}
    k_len, p_len, pr_len = len(total["blk_kk"]), len(total["blk_pos_kk"]), len(total["blk_pos_rr"])
    total["edge_block"] = np.array([e[0] for e in edges], dtype=np.int64)
    total["edge_k"] = np.array([e[1] for e in edges], dtype=np.int64).reshape(len(edges), k_len)
    total["edge_r"] = np.array([e[2][0] for e in edges], dtype=np.int64)
    total["edge_pos_k"] = np.array([e[3] for e in edges], dtype=np.int64).reshape(len(edges), p_len)
    total["edge_pos_r"] = np.array([e[4] for e in edges], dtype=np.int64).reshape(len(edges), pr_len)
    return total


def merge_counters(parts) -> dict:
    """The counters of a configuration from its tasks' counters (in block order): sums, with the
    edges of neighbouring tasks joined into their blocks before they are squared."""
    parts = list(parts)
    total = {k: np.sum([p[k] for p in parts], axis=0) for k in parts[0] if k not in EDGE_KEYS}
    if "edge_block" not in parts[0]:
        return total
    joined: dict[int, list] = {}
    for p in parts:
        for i, b in enumerate(p["edge_block"]):
            acc = joined.setdefault(int(b), [0, 0, 0, 0])
            for j, key in enumerate(("edge_k", "edge_r", "edge_pos_k", "edge_pos_r")):
                acc[j] = acc[j] + p[key][i]
    for k, r, pk, pr in joined.values():
        total["blk_n"] = total["blk_n"] + 1
        total["blk_kk"] = total["blk_kk"] + k * k
        total["blk_kr"] = total["blk_kr"] + k * r
        total["blk_rr"] = total["blk_rr"] + r * r
        total["blk_pos_kk"] = total["blk_pos_kk"] + pk * pk
        total["blk_pos_kr"] = total["blk_pos_kr"] + (pk.reshape(-1, 2) * np.asarray(pr)[:, None]).ravel()
        total["blk_pos_rr"] = total["blk_pos_rr"] + pr * pr
    return total


def _run_one(config: Config, seed: int, first_game: int, games: int, threads, max_rounds: int) -> dict:
    """A one:A/B line-up (see :func:`run_task`)."""
    lu = config.lineup
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


def part_identity(source, config: Config, task: Task) -> PartIdentity:
    """The identity a part of ``task`` must carry; ``source`` is the study's :class:`~.plan.Plan` (or
    the :class:`~.spec.Study`)."""
    from ..engine import ENGINE_CONTRACT
    fp = source.fingerprint
    return PartIdentity(fp() if callable(fp) else fp, config.key, source.seed, task.block, task.first_game,
                        task.games, ENGINE_CONTRACT)


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
        with open(tmp, "r+b") as f:
            np.savez(f, **counters, **{_IDENTITY: blob})
            f.flush()
            os.fsync(f.fileno())


def part_keys(config: Config) -> frozenset[str]:
    """The names of the counters in a part file of ``config``."""
    return frozenset(part_shapes(config))


def part_shapes(config: Config) -> dict[str, tuple]:
    """The shape of every counter of a part file of ``config`` (``-1``: the edges, 0 to 2)."""
    n = config.players
    if config.lineup.kind == "one":
        return {k: (n,) if k.endswith("by_seat") else (1,) for k in ONE_KEYS}
    out = {c.name: c.shape(n, config.variant.tokens) for c in COUNTERS}
    k_len = len(ROUND_RATES)
    pos = int(np.prod(out["position"])) // 3  # (phase, place after the leader) pairs
    out.update(blk_n=(1,), blk_kk=(k_len,), blk_kr=(k_len,), blk_rr=(1,), blk_pos_kk=(2 * pos,),
               blk_pos_kr=(2 * pos,), blk_pos_rr=(pos,), edge_block=(-1,), edge_k=(-1, k_len), edge_r=(-1,),
               edge_pos_k=(-1, 2 * pos), edge_pos_r=(-1, pos))
    return out


def _shape_error(part: dict, config: Config) -> str | None:
    edges = None
    for k, want in part_shapes(config).items():
        got = part[k].shape
        if len(got) != len(want) or any(w not in (-1, g) for w, g in zip(want, got)):
            return f"its counter {k!r} has shape {got}, this configuration's is {want}"
        if -1 in want:
            edges = got[0] if edges is None else edges
            if got[0] != edges or not 0 <= edges <= 2:
                return f"its edge counters have {got[0]} rows; allowed: 0 to 2, the same for all"
    return None


def check_part(path: Path, keys, identity: PartIdentity, config: Config | None = None
               ) -> tuple[dict | None, str | None]:
    """Read a part file for the place ``identity``: ``(counters, None)`` if it is whole and belongs
    there, else ``(None, why)`` (``why`` is None for a missing file).

    A symbolic link or a special file in the part's place is never followed: it raises
    :class:`~four21sim._util.atomic.UnsafePath` (the caller stops, naming it). With ``config``,
    the counters' shapes are checked too.
    """
    try:
        fd = open_plain(path)
    except FileNotFoundError:
        return None, None
    except UnsafePath as exc:
        raise UnsafePath(f"--out: part file {str(path)!r} {exc}; a results folder holds only plain files: "
                         "remove it") from None
    try:
        with os.fdopen(fd, "rb") as f:
            if os.fstat(f.fileno()).st_size > MAX_PART_BYTES:
                return None, f"is larger than {MAX_PART_BYTES:,} bytes (not a part file)"
            with np.load(f, allow_pickle=False) as z:
                part = {k: z[k] for k in z.files}
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
    except (ValueError, RecursionError):
        return None, "is unreadable (its identity is damaged)"
    for k, want in asdict(identity).items():
        if meta.get(k) != want:
            return None, (f"belongs elsewhere: its {_FIELD_NAMES[k]} is {meta.get(k)!r}, this place's is "
                          f"{want!r}")
    if meta.get("checksum") != _checksum(part):
        return None, "has counters that do not match their checksum (altered)"
    why = _shape_error(part, config) if config is not None else None
    if why is None and config is not None and "edge_block" in part:
        lo, hi = identity.first_game // DEFAULT_BLOCK, (identity.first_game + identity.games - 1) // DEFAULT_BLOCK
        if any(not lo <= b <= hi for b in part["edge_block"]) or (part["edge_k"] < 0).any():
            why = "has edge blocks outside its games (altered)"
    return (None, f"is unreadable (corrupt or foreign: {why})") if why else (part, None)


def read_part(path: Path, keys, identity: PartIdentity, config: Config | None = None) -> dict | None:
    """The counters of a part file that belongs at ``identity``, else None (see :func:`check_part`)."""
    return check_part(path, keys, identity, config)[0]
