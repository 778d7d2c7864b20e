"""``python -m four21sim.sweep``: run a study and write tables, figures and a report.

With no arguments it runs the embedded default study (the four presets x 2, 3, 4
and 6 players x policy line-ups) into ``results/default/``. See ``--help``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from ._cli import run
from .study import DEFAULT_STUDY, Study, load_study, parse_lineup

_EPILOG = """examples:
  python -m four21sim.sweep                                   # the default study -> results/default/
  python -m four21sim.sweep --config experiments/lebon_vs_exact.toml
  python -m four21sim.sweep --variants super421,classic --players 2,4 --policies greedy,one:optimal/greedy \\
      --games 100000 --seed 7 --out results/mine
  python -m four21sim.sweep --set tokens=21 --workers 2 --quiet

Running the same command again into the same --out resumes: finished tasks are kept.
A different study into an existing --out is refused.
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m four21sim.sweep",
        description="Run a study (variants x player counts x policy line-ups) with the Monte Carlo engine and "
                    "the exact solver, and write tidy Parquet tables, PNG figures, manifest.json and REPORT.md.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", metavar="FILE", help="a study file (TOML), e.g. experiments/default.toml; "
                   "the options below override its values")
    p.add_argument("--variants", metavar="LIST", help="comma-separated presets, e.g. super421,classic")
    p.add_argument("--players", metavar="LIST", help="comma-separated player counts (2..8), e.g. 2,3,4")
    p.add_argument("--policies", metavar="LIST",
                   help="comma-separated line-ups: a policy everyone plays (sec, chase421, greedy, table-aware, "
                        "random, optimal) or one:SKILLED/HABIT, e.g. greedy,one:optimal/greedy")
    p.add_argument("--set", dest="overrides", action="append", metavar="KEY=VALUE",
                   help="a rule override applied to every variant, e.g. --set tokens=21 (repeatable)")
    p.add_argument("--games", type=int, metavar="N", help="games per configuration, e.g. 1000000")
    p.add_argument("--task-games", type=int, metavar="N", help="games per task (unit of work and of resuming)")
    p.add_argument("--seed", type=int, metavar="S", help="root seed (0 <= S < 2**64), e.g. 421")
    p.add_argument("--name", help="the run's name (default: the study's name); sets the default --out")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="worker processes with one numba thread each (default 1: this process, numba using "
                        "every core)")
    p.add_argument("--scheduler", metavar="ADDR",
                   help="run the tasks on Dask: local:N starts a local cluster of N workers, tcp://HOST:PORT "
                        "uses a running scheduler (needs: pip install four21sim[dist])")
    p.add_argument("--out", metavar="DIR", help="output directory (default: results/<name>)")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    return p


def _split(text: str | None, option: str) -> list[str] | None:
    if text is None:
        return None
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise ValueError(f"{option}: {text!r} is empty; allowed: a comma-separated list")
    return items


def study_from_args(args: argparse.Namespace) -> Study:
    study = load_study(args.config) if args.config else DEFAULT_STUDY
    players = None
    if args.players is not None:
        players = []
        for x in _split(args.players, "--players"):
            try:
                players.append(int(x))
            except ValueError:
                raise ValueError(f"--players: {x!r} is not allowed; allowed: integers from 2 to 8") from None
    lineups = _split(args.policies, "--policies")
    if lineups:
        for text in lineups:
            parse_lineup(text)
    changes = dict(variants=_split(args.variants, "--variants"), players=players, lineups=lineups,
                   set=args.overrides, games=args.games, task_games=args.task_games, seed=args.seed,
                   name=args.name)
    return study.with_changes(**changes)


def _check_out(out: Path) -> None:
    """Refuse an --out that cannot be written, before anything is played."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out: {str(out)!r} exists and is not a directory")
    probe = out
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
        raise ValueError(f"--out: {str(out)!r} is not writable (no write permission on {str(probe)!r})")


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
    import numpy
    import pandas
    return {"four21sim": __version__, "numba": numba.__version__, "numpy": numpy.__version__,
            "pandas": pandas.__version__, "python": platform.python_version()}


def code_identity() -> dict:
    """What must match for part files to be resumed: the package version and the engine contract."""
    from ._kernels import ENGINE_CONTRACT
    return {"four21sim": __version__, "engine_contract": ENGINE_CONTRACT}


def prepare(study: Study, out: Path) -> tuple[list, list]:
    """Validate everything that could fail before a single game: configurations, policies, --out."""
    from .policies import resolve_policies
    configs, skipped = study.configs()
    if not configs:
        raise ValueError("--policies/--players: no playable configuration (optimal needs 2 players)")
    seen = set()
    for c in configs:
        names = [c.lineup.a] if c.lineup.kind == "all" else [c.lineup.a, c.lineup.b]
        for name in names:
            if (c.label, c.players, name) not in seen:
                seen.add((c.label, c.players, name))
                resolve_policies(c.variant, c.players, [name] * c.players)
    _check_out(out)
    sj = out / "study.json"
    # Part files are what a different study or different code could be mixed with. A results
    # folder without parts (e.g. committed results in a fresh clone) is simply remade.
    if sj.exists() and any((out / "parts").glob("*/*.npz")):
        try:
            old = json.loads(sj.read_text())
        except (OSError, ValueError):
            old = {}
        if old.get("fingerprint") != study.fingerprint():
            raise ValueError(f"--out: {str(out)!r} holds the results of a different study "
                             f"(fingerprint {old.get('fingerprint')!r}, this one {study.fingerprint()!r}); "
                             "choose another --out, or delete that directory to start again")
        if old.get("code") != code_identity():
            raise ValueError(f"--out: {str(out)!r} holds parts made by other code ({old.get('code')}, this is "
                             f"{code_identity()}); they cannot be mixed: choose another --out, or delete that "
                             "directory to start again")
    return configs, skipped


def run_sweep(study: Study, out: Path, workers: int = 1, scheduler: str | None = None, quiet: bool = False,
              command: str = "python -m four21sim.sweep") -> dict:
    """Run (or resume) a study into ``out``; returns the manifest."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"--workers: {workers!r} is not allowed; allowed: an integer >= 1")
    if scheduler is not None:
        from .dask_executor import check_scheduler
        check_scheduler(scheduler)
    out = Path(out)
    configs, skipped = prepare(study, out)
    client = cluster = None
    if scheduler is not None:  # connect before writing anything: an unreachable scheduler writes nothing
        from .dask_executor import close, open_client
        client, cluster = open_client(scheduler)
    try:
        return _run_prepared(study, out, configs, skipped, workers, scheduler, client, quiet, command)
    finally:
        if client is not None:
            close(client, cluster)


def _run_prepared(study, out, configs, skipped, workers, scheduler, client, quiet, command) -> dict:
    from .atomic import write_text_atomic
    from .runner import pending_tasks, run_study_tasks

    started = _dt.datetime.now(_dt.timezone.utc)
    try:  # _check_out cannot foresee every failure (e.g. /proc/x as root): still one line, exit 2
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"--out: {str(out)!r} cannot be created ({exc.strerror or exc})") from None
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

    def warn(msg: str) -> None:
        print(f"sweep: warning: {msg}", file=sys.stderr)

    t0 = time.perf_counter()
    try:
        pending, _ = pending_tasks(study, configs, out, warn)  # warns (once) of a corrupt part it removes
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


def write_outputs(study: Study, configs: list, out: Path, manifest: dict) -> None:
    """Merge the parts and write tables, figures, REPORT.md and manifest.json (each atomically)."""
    import matplotlib
    matplotlib.use("Agg")

    from . import plots
    from .atomic import atomic_path, write_text_atomic
    from .report import write_report
    from .summarize import build_tables, merge_parts, reference_lineup

    merged = merge_parts(study, configs, out)
    tables = build_tables(study, configs, merged)
    files = []
    for name, df in tables.items():
        with atomic_path(out / f"{name}.parquet") as tmp:
            df.to_parquet(tmp, index=False)
        files.append(f"{name}.parquet")
    fair, meas, dists = tables["fairness"], tables["measures"], tables["distributions"]
    ref = reference_lineup(fair)
    figs = {}
    if ref is not None:
        players = sorted(fair["players"].unique())
        small = 2 if 2 in players else players[0]
        figs["Fairness score by variant"] = plots.score_figure(tables["scores"])
        figs[f"First-player advantage ({ref})"] = plots.fpa_figure(fair, ref)
        if "optimal" in set(fair["lineup"]):
            figs["First-player advantage (optimal, 2 players)"] = plots.fpa_figure(fair, "optimal")
        figs[f"Win share by seat ({ref})"] = plots.seat_share_figure(meas, ref)
        figs[f"Game length ({ref}, {small} players)"] = plots.length_figure(dists, ref, small)
        figs[f"Token swing per round ({ref}, {small} players)"] = plots.swing_figure(dists, ref, small)
    if not tables["skill"].empty:
        figs["Skill against luck"] = plots.skill_figure(tables["skill"])
    rels = {}
    for i, (title, fig) in enumerate(figs.items()):
        rel = f"figures/{i + 1:02d}-{_slug(title)}.png"
        with atomic_path(out / rel) as tmp:
            plots.save(fig, tmp)
        rels[title] = rel
        files.append(rel)
    manifest["finished"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    manifest["files"] = files + ["REPORT.md", "manifest.json", "study.json"]
    write_report(out / "REPORT.md", study, manifest, tables, rels)
    write_text_atomic(out / "manifest.json", json.dumps(manifest, indent=2, default=str))


def _slug(text: str) -> str:
    keep = "".join(ch.lower() if ch.isalnum() else "-" for ch in text)
    while "--" in keep:
        keep = keep.replace("--", "-")
    return keep.strip("-")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    study = study_from_args(args)
    out = Path(args.out) if args.out else Path("results") / study.name
    command = "python -m four21sim.sweep" + ("" if argv is None and len(sys.argv) <= 1 else
                                             " " + " ".join(shlex.quote(a) for a in (argv if argv is not None
                                                                                      else sys.argv[1:])))
    try:
        manifest = run_sweep(study, out, args.workers, args.scheduler, args.quiet, command)
    except KeyboardInterrupt:
        print(f"sweep: interrupted; finished tasks are saved in {out / 'parts'}: run the same command again "
              "to resume", file=sys.stderr)
        return 130
    except OSError as exc:  # a full disk or a directory gone read-only mid-run: every write is atomic
        print(f"sweep: error: --out: cannot write in {str(out)!r} ({exc.strerror or exc}); finished tasks are "
              "kept: fix it and run the same command again to resume", file=sys.stderr)
        return 2
    if not args.quiet:
        print(f"{manifest['games_total']:,} games ({manifest['games_played_run']:,} played now, counting every "
              f"seat's turn of one:A/B line-ups) in {manifest['seconds']:.1f} s; report: {out / 'REPORT.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(run(main, "sweep"))
