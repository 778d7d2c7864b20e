"""``four21sim sweep`` (also ``python -m four21sim.sweep``): run a study and write tables, figures and a report.

With no arguments it runs the embedded default study (the four presets x 2, 3, 4
and 6 players x policy line-ups) into ``results/default/``. See ``--help``.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from .._util.checks import parse_int, shown
from ..policies import POLICY_NAMES
from ..study.executors import WORKERS_PER_CORE
from ..study.run import run_sweep
from ..study.spec import (
    DEFAULT_STUDY,
    MAX_CONFIGURATIONS,
    MAX_GAMES,
    MAX_ROUNDS,
    MAX_TASKS,
    UNDEFINED,
    Study,
    load_study,
    parse_lineup,
)
from ._common import Terminated, add_version, read_numbers, run

__all__ = ["build_parser", "main", "study_from_args", "run_sweep"]

_EPILOG = """examples:
  four21sim sweep                                   # the default study -> results/default/
  four21sim sweep --config experiments/lebon_vs_exact.toml
  four21sim sweep --variants super421,classic --players 2,4 --lineups greedy,one:optimal/greedy \\
      --games 100000 --seed 7 --out results/mine
  four21sim sweep --set tokens=21 --workers 2 --quiet
(python -m four21sim.sweep is the same command.)

Results folder: without --out a study writes to results/<its name>. --out must be a new
folder, an empty one or a results folder: a folder holding anything else, or the results
of another study, is refused (choose --out or --name); a run touches only the files it
writes, and never follows a symbolic link inside the folder. Running the same command again
into the same folder resumes: finished tasks are kept, and a part file that does not belong to
its place (another block, configuration, seed or study, other code, altered counters) is
recomputed with a warning naming it. One run writes a folder at a time (a lock on
<folder>/.lock, released when the run ends or dies): a second run is refused, naming the
holder's process, or waits with --wait. Tables, figures and the report are swapped in at the
end, as one. manifest.json records what produced them; run.json (not committed) the command,
commit, times and speed.

Line-ups where a policy is not defined (the policy registry says where, e.g. optimal at
player counts its exact solver does not take) are dropped: with a warning each
(--undefined warn, the default when --players or --lineups are given), quietly and listed
in the manifest (skip), or the study is refused (error). The default study asks only for what is
defined (its lineup_players plays optimal at 2 players).

Bounds: at most {configs:,} configurations, {games:,} games per configuration, {tasks:,} tasks;
--max-rounds from 1 to {rounds:,}; --workers and local:N at most {per} per core. Games longer
than --max-rounds are counted as runaways (runaways.parquet, REPORT.md) and left out of the
measures.
""".format(configs=MAX_CONFIGURATIONS, games=MAX_GAMES, tasks=MAX_TASKS, rounds=MAX_ROUNDS, per=WORKERS_PER_CORE)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="four21sim sweep",
        description="Run a study (variants x player counts x policy line-ups) with the Monte Carlo engine and "
                    "the exact solver, and write tidy Parquet tables, PNG figures, manifest.json and REPORT.md.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", metavar="FILE", help="a study file (TOML), e.g. experiments/default.toml; "
                   "the options below override its values")
    p.add_argument("--variants", metavar="LIST", help="comma-separated presets, e.g. super421,classic")
    p.add_argument("--players", metavar="LIST", help="comma-separated player counts (2..8), e.g. 2,3,4")
    p.add_argument("--policies", dest="policies_old", metavar="LIST", help=argparse.SUPPRESS)  # old spelling
    p.add_argument("--lineups", metavar="LIST",
                   help="comma-separated line-ups (the study file's lineups): a policy everyone plays ("
                        + ", ".join(POLICY_NAMES) + ") or one:SKILLED/HABIT, e.g. greedy,one:optimal/greedy")
    p.add_argument("--set", dest="overrides", action="append", metavar="KEY=VALUE",
                   help="a rule override applied to every variant, e.g. --set tokens=21 (repeatable)")
    p.add_argument("--games", metavar="N", help="games per configuration, e.g. 1000000")
    p.add_argument("--task-games", metavar="N", help="games per task (unit of work and of resuming)")
    p.add_argument("--seed", metavar="S", help="root seed (0 <= S < 2**64), e.g. 421")
    p.add_argument("--max-rounds", metavar="N",
                   help="round limit: a game still running after N rounds is a runaway, counted and left out "
                        "of the measures (default 100000)")
    p.add_argument("--undefined", choices=UNDEFINED,
                   help="configurations where a line-up's policy is not defined: warn (drop each with a warning), "
                        "skip (drop quietly, listed in manifest.json) or error (refuse the study); default: the "
                        "study's (warn unless it says otherwise)")
    p.add_argument("--name", help="the run's name (default: the study's name); sets the default --out")
    p.add_argument("--workers", default=1, metavar="N",
                   help="worker processes with one numba thread each (default 1: this process, numba using "
                        "every core)")
    p.add_argument("--scheduler", metavar="ADDR",
                   help="run the tasks on Dask: local:N starts a local cluster of N workers, tcp://HOST:PORT "
                        "uses a running scheduler (needs: pip install four21sim[dist])")
    p.add_argument("--out", metavar="DIR", help="output directory (default: results/<name>, refused if it holds "
                   "the results of another study)")
    p.add_argument("--wait", action="store_true",
                   help="if another run is writing the output directory, wait for it (default: refuse at once)")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    add_version(p)
    return p


def _split(text: str | None, option: str) -> list[str] | None:
    if text is None:
        return None
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise ValueError(f"{option}: {shown(text)} is empty; allowed: a comma-separated list")
    return items


def study_from_args(args: argparse.Namespace) -> Study:
    read_numbers(args, ("games", "task_games", "seed", "max_rounds", "workers"))
    study = load_study(args.config) if args.config else DEFAULT_STUDY
    players = None
    if args.players is not None:
        players = []
        for x in _split(args.players, "--players"):
            players.append(parse_int("--players", x, allowed="integers from 2 to 8"))
    if args.policies_old is not None:
        if args.lineups is not None:
            raise ValueError("--policies: the old spelling of --lineups; give one of them, not both")
        print("sweep: warning: --policies is deprecated; use --lineups (the study file's key)", file=sys.stderr)
        args.lineups = args.policies_old
    lineups = _split(args.lineups, "--lineups")
    if lineups:
        for text in lineups:
            parse_lineup(text)
    undefined = args.undefined
    if undefined is None and (players is not None or lineups is not None):
        undefined = "warn"  # the user's own line-ups: each one dropped is said
    changes = dict(variants=_split(args.variants, "--variants"), players=players, lineups=lineups,
                   set=args.overrides, games=args.games, task_games=args.task_games, seed=args.seed,
                   name=args.name, max_rounds=args.max_rounds, undefined=undefined)
    return study.with_changes(**changes)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    study = study_from_args(args)
    if args.out is not None and (args.out == "" or "\0" in args.out):
        raise ValueError(f"--out: {shown(args.out)} is not allowed; allowed: a folder path (without --out: "
                         f"results/{study.name})")
    out = Path(args.out) if args.out is not None else Path("results") / study.name
    command = "four21sim sweep" + ("" if argv is None and len(sys.argv) <= 1 else
                                             " " + " ".join(shlex.quote(a) for a in (argv if argv is not None
                                                                                      else sys.argv[1:])))
    try:
        manifest = run_sweep(study, out, args.workers, args.scheduler, args.quiet, command, wait=args.wait,
                             chosen=args.out is not None)
    except KeyboardInterrupt as exc:
        what = "terminated" if isinstance(exc, Terminated) else "interrupted"
        print(f"sweep: {what}; finished tasks are saved in {out / 'parts'}: run the same command again "
              "to resume", file=sys.stderr)
        return 143 if isinstance(exc, Terminated) else 130
    except OSError as exc:  # a full disk or a directory gone read-only mid-run: every write is atomic
        where = exc.filename if exc.filename else out
        print(f"sweep: error: --out: cannot write {shown(str(where))} ({exc.strerror or exc}); finished tasks are "
              "kept: fix it and run the same command again to resume", file=sys.stderr)
        return 2
    if not args.quiet and sys.stdout:  # a closed stdout: the study is written, only its summary has nowhere to go
        runaway = manifest.get("runaway_games", 0)
        resumed = manifest["games_played_total"] - manifest["games_played_run"]
        print(f"{manifest['games_played_total']:,} games played" + (f" ({resumed:,} resumed)" if resumed else "")
              + f" in {manifest['seconds']:.1f} s"
              + (f", {runaway:,} runaway games left out (see runaways.parquet)" if runaway else "")
              + f"; report: {out / 'REPORT.md'}")
    return 0


def console(argv: Sequence[str] | None = None) -> int:
    """The command line (exit statuses: :func:`four21sim.cli._common.run`)."""
    return run(main, "sweep", argv)


if __name__ == "__main__":
    sys.exit(console())
