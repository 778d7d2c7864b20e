"""A solve of many hours carried over several working sessions: ``python experiments/long_solve.py``.

    python experiments/long_solve.py start --preset super421 --players 7 --commit 9a0c76a
    python experiments/long_solve.py status --preset super421 --players 7
    python experiments/long_solve.py save --preset super421 --players 7

Question: how does a solve that takes longer than a working session (Super 421 at 7 players:
some 8 hours of one core) get done on machines that start empty each session?

The solver checkpoints after every pass (:mod:`four21sim.exact.checkpoint`), beside its disk-cache
entry, under a key that includes the solver's source: a checkpoint resumes only under the code
that wrote it. So the solve runs from a frozen tree of one commit (a git worktree beside the
repository, ``../wt/solve-<commit>``, made again from the commit in a new session), with a disk
cache of its own (``../solves-cache/<preset>-<n>p``); ``save`` copies its checkpoint into this
repository, gzip-compressed (``experiments/long_solves/<preset>-<n>p/``, with the commit beside it), and ``start``
in the next session copies it back before resuming. A checkpoint is data: the solver checks its
key, digest and shapes when it reads it, and refuses (solving from the start) any other.

``start`` runs ``four21sim solve`` in the background (one numba thread, leaving the other core
to the session's work; the results do not depend on the threads), its output in
``../solves-cache/<preset>-<n>p.log``. Once the solve has ended, its entry (the certified
equilibrium) is in that cache, and ``experiments/ship_solutions.py --store`` ships it.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAVED = ROOT / "experiments" / "long_solves"
WORK = ROOT.parent  # beside the repository: the frozen trees and the solves' caches
SUFFIX = ".resume.npz"  # four21sim.exact.store.CHECKPOINT_SUFFIX (the frozen tree's own may be older)


def _names(preset: str, players: int) -> tuple[str, Path, Path]:
    tag = f"{preset}-{players}p"
    return tag, WORK / "solves-cache" / tag, SAVED / tag


def _git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


def start(preset: str, players: int, commit: str | None) -> int:
    tag, cache, saved = _names(preset, players)
    info = saved / "solve.json"
    if commit is None:
        if not info.exists():
            raise SystemExit(f"--commit: none given and no saved solve of {tag}; allowed: a commit of this repository")
        commit = json.loads(info.read_text())["commit"]
    commit = _git("rev-parse", "--short=12", commit)
    if info.exists() and json.loads(info.read_text())["commit"] != commit:
        raise SystemExit(f"--commit: {commit} is not the commit of the saved checkpoint of {tag} "
                         f"({json.loads(info.read_text())['commit']}): its checkpoint would be refused")
    tree = WORK / "wt" / f"solve-{commit}"
    if not tree.exists():
        _git("worktree", "add", "--detach", "-f", str(tree), commit)
    cache.mkdir(parents=True, exist_ok=True)
    for f in saved.glob(f"*{SUFFIX}.gz") if saved.exists() else ():
        target = cache / f.name[:-3]
        if not target.exists():
            with gzip.open(f, "rb") as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
            print(f"restored {f.relative_to(ROOT)} -> {target}")
    env = dict(os.environ, PYTHONPATH=str(tree), FOUR21SIM_CACHE_DIR=str(cache), FOUR21SIM_SHIPPED="off",
               NUMBA_NUM_THREADS="1", NUMBA_CACHE_DIR=str(cache / "numba"))
    log = open(WORK / "solves-cache" / f"{tag}.log", "a")
    cmd = [sys.executable, "-m", "four21sim", "solve", "--variant", preset, "--players", str(players)]
    # its own session (setsid): the solve goes on when this command ends; nice, beside the session's work
    proc = subprocess.Popen(["nice", "-n", "10", *cmd], cwd=tree, env=env, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:  # a new session is its own scheduling group, where nice alone does not yield to the session's work
        Path(f"/proc/{proc.pid}/autogroup").write_text("19")
    except OSError:
        pass
    saved.mkdir(parents=True, exist_ok=True)
    info.write_text(json.dumps({"preset": preset, "players": players, "commit": commit,
                                "command": " ".join(cmd)}, indent=1) + "\n")
    print(f"started {' '.join(cmd)} (pid {proc.pid}) in {tree}; log {log.name}")
    return 0


def save(preset: str, players: int) -> int:
    tag, cache, saved = _names(preset, players)
    found = sorted(cache.glob(f"*{SUFFIX}")) if cache.exists() else []
    if not found:
        print(f"no checkpoint of {tag} in {cache} (not started, or ended: its entry is then in the cache)")
        return 1
    saved.mkdir(parents=True, exist_ok=True)
    for old in saved.glob(f"*{SUFFIX}*"):
        old.unlink()
    for f in found:  # compressed: most of a checkpoint's distributions are zeros
        to = saved / (f.name + ".gz")
        with open(f, "rb") as src, gzip.GzipFile(to, "wb", mtime=0) as dst:
            shutil.copyfileobj(src, dst)
        print(f"saved {f} -> {to.relative_to(ROOT)} ({to.stat().st_size:,} bytes, {f.stat().st_size:,} unpacked)")
    return 0


def status(preset: str, players: int) -> int:
    tag, cache, saved = _names(preset, players)
    log = WORK / "solves-cache" / f"{tag}.log"
    if log.exists():
        lines = log.read_text(errors="replace").replace("\r", "\n").splitlines()
        print("\n".join(lines[-5:]))
    for f in sorted(cache.glob("*")) if cache.exists() else ():
        print(f"{f.name}: {f.stat().st_size:,} bytes")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("action", choices=("start", "save", "status"))
    p.add_argument("--preset", default="super421")
    p.add_argument("--players", type=int, default=7)
    p.add_argument("--commit", default=None, help="start: the commit whose code solves (default: the saved one's)")
    a = p.parse_args(argv)
    if a.action == "start":
        return start(a.preset, a.players, a.commit)
    return save(a.preset, a.players) if a.action == "save" else status(a.preset, a.players)


if __name__ == "__main__":
    sys.exit(main())
