"""Results that cannot be mixed, forged or lost (issue 11): one test per attack.

1. one writer per results folder (real processes): two studies started together
   into one folder, a second writer while one runs (refused naming the holder, or
   waiting with --wait), temporary files of live writers never removed;
2. parts that know where they come from: a part copied from another block, another
   configuration or a 4-player study, altered counters, a deleted or edited
   study.json: each rejected (naming the file) or refused, and the tables equal an
   honest run's;
3. the whole study validated before any work (bounds, duplicates, the round limit),
   nothing written; runaway games counted (against the plain-Python reference
   engine) and reported, not raised;
4. workers die with their parent (SIGKILL and SIGTERM to the parent);
5. a --scheduler that is not a Dask scheduler (HTTP server, garbage) fails in one line;
6. results/<name> is never another study's; outputs are swapped in whole;
7. the smaller defects.

The witnesses are independent of the code under test: an uninterrupted run of the
same study (determinism, tested in test_sweep.py; run once in conftest.py), process tables
from /proc, the reference engine of tests/reference.py, and literal expected messages.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import reference as R
from notices import without_notices
from sweep_runs import (
    SLOW,
    TINY,
    TINY_TASKS,
    assert_same_tables,
    manifest,
    one_error_line,
    part_files,
    run_cli,
    run_inproc,
    snapshot,
    start_cli,
)

from four21sim import Variant, simulate
from four21sim._util.atomic import temp_owner
from four21sim.cli._common import run
from four21sim.policies import compile_policy
from four21sim.study.lock import FolderBusy, FolderLock, remove_orphans
from four21sim.study.tasks import PartIdentity, check_part, write_part
from four21sim.sweep import main as sweep_main

# A study of 5 tasks that lasts a few seconds (100-token games are long): long enough for two
# runs to overlap.
LOCKED = ["--variants", "super421", "--players", "2", "--lineups", "greedy", "--set", "tokens=100",
          "--games", "100000", "--task-games", "20000", "--quiet"]


def with_seed(args, seed) -> list[str]:
    args = list(args)
    i = args.index("--seed")
    args[i + 1] = str(seed)
    return args


def cli_inproc(argv, capsys) -> tuple[int, str]:
    """The command line in this process: (exit status, stderr)."""
    capsys.readouterr()
    code = run(sweep_main, "sweep", [*map(str, argv)])
    return code, capsys.readouterr().err


def wait_until(cond, timeout=120, what="condition") -> None:
    t0 = time.monotonic()
    while not cond():
        if time.monotonic() - t0 > timeout:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.02)


# ================================================================== 1. one writer per folder
@pytest.mark.slow  # 9 s of CPU
def test_two_studies_started_together_into_one_folder(tmp_path):
    a = start_cli([*LOCKED, "--seed", "7", "--out", "o"], tmp_path)
    b = start_cli([*LOCKED, "--seed", "8", "--out", "o"], tmp_path)
    ra, rb = [(p, *p.communicate(timeout=300)) for p in (a, b)]
    codes = sorted(p.returncode for p in (a, b))
    assert codes == [0, 2], (ra[2], rb[2])
    (win, _, _), (lose, _, err) = (ra, rb) if a.returncode == 0 else (rb, ra)
    line = one_error_line(err)
    # refused while the winner runs (naming it) or, if it started late, as a different study
    assert f"being written by another run (pid {win.pid} " in line or "different study" in line, line
    seed = "7" if win is a else "8"
    assert manifest(tmp_path / "o")["seed"] == int(seed)
    ref = tmp_path / "ref"
    assert run_inproc([*LOCKED, "--seed", seed, "--out", ref]) == 0
    assert_same_tables(tmp_path / "o", ref)


@pytest.mark.slow  # 11 s of CPU
def test_a_second_writer_is_refused_naming_the_holder_or_waits(tmp_path):
    args = [*LOCKED, "--seed", "7", "--out", "o"]
    a = start_cli(args, tmp_path)
    lock = tmp_path / "o" / ".lock"
    try:
        wait_until(lambda: lock.exists() and f"pid {a.pid} " in lock.read_text(), what="the first run's lock")
        b = run_cli(args, tmp_path)
        assert b.returncode == 2
        line = one_error_line(b.stderr)
        assert line.startswith("sweep: error: --out: 'o' is being written by another run") and \
            f"(pid {a.pid} " in line and "--wait" in line, line
        c = run_cli([*args, "--wait"], tmp_path)  # waits for the first, then has nothing left to do
        assert c.returncode == 0, c.stderr
        assert a.wait(timeout=60) == 0
    finally:
        if a.poll() is None:
            a.kill()
        a.communicate()
    assert manifest(tmp_path / "o")["tasks_run"] == 0 and len(part_files(tmp_path / "o")) == 5
    assert lock.read_text() == ""  # released: nobody holds it


def test_the_lock_is_exclusive_and_names_its_holder(tmp_path):
    with FolderLock(tmp_path):
        with pytest.raises(FolderBusy, match=rf"another run \(pid {os.getpid()} "):
            FolderLock(tmp_path).acquire()
    with FolderLock(tmp_path) as again:  # released on exit
        assert again.held


def test_only_temporary_files_of_dead_writers_are_removed(tmp_path):
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    try:
        parts = tmp_path / "parts" / "k"
        parts.mkdir(parents=True)
        names = {who: parts / f".000001.npz.{pid}.tmp.npz"
                 for who, pid in (("mine", os.getpid()), ("live", live.pid), ("dead", dead.pid))}
        for p in names.values():
            p.write_bytes(b"x")
        stage = tmp_path / f".outputs.{dead.pid}.tmp"
        (stage / "figures").mkdir(parents=True)
        (stage / "figures" / "01-a.png").write_bytes(b"x")
        assert temp_owner(stage) == dead.pid and temp_owner(tmp_path / ".lock") is None
        with pytest.raises(RuntimeError, match="lock"):
            remove_orphans(tmp_path, FolderLock(tmp_path))  # never without the lock
        with FolderLock(tmp_path) as lock:
            gone = remove_orphans(tmp_path, lock)
        assert set(gone) == {names["dead"], stage}
        assert names["mine"].exists() and names["live"].exists() and not names["dead"].exists()
        assert not stage.exists() and (tmp_path / ".lock").exists()
    finally:
        live.kill()
        live.wait()


# ================================================================== 2. parts that know where they come from
def _copy(src: Path, dst: Path) -> None:
    shutil.copyfile(src, dst)


def _alter(victim: Path) -> None:
    with np.load(victim) as z:
        arrays = {k: z[k] for k in z.files}
    key = next(k for k in sorted(arrays) if not k.startswith("__"))
    arrays[key] = arrays[key] + 1
    with open(victim, "wb") as f:
        np.savez(f, **arrays)


@pytest.fixture(scope="module")
def four_player_part(tmp_path_factory) -> Path:
    """A genuine part of a 4-player study, written by the study's own task runner (as the sweep writes
    it; the study's tables, figures and report, which the attack does not use, are not made)."""
    from four21sim.study.plan import make_plan
    from four21sim.study.run import run_study_tasks
    from four21sim.study.spec import DEFAULT_STUDY
    out = tmp_path_factory.mktemp("four") / "o"
    plan = make_plan(DEFAULT_STUDY.with_changes(variants=["super421"], players=[4], lineups=["greedy"], games=1000,
                                                task_games=1000, seed=7))
    assert run_study_tasks(plan, out, list(plan.tasks))["tasks_run"] == 1
    (part,) = part_files(out)
    return part


ATTACKS = {  # attack: the reason the warning must give
    "other-block": "its block is 1, this place's is 0",
    "other-config": "its configuration is",
    "altered": "checksum",
    "four-players": "belongs elsewhere",
}


def test_a_part_that_does_not_belong_is_rejected_and_recomputed(tmp_path, tiny_ref, capsys, four_player_part):
    # the four attacks at once, each on a part of its own (one run instead of one per attack): each
    # victim must be named in a warning of its own giving its own reason
    out = tmp_path / "o"
    shutil.copytree(tiny_ref, out)
    by_config = {}
    for p in part_files(out):
        by_config.setdefault(p.parent.name, []).append(p)
    g0, g1 = [by_config[k] for k in sorted(by_config) if "one_games" not in np.load(by_config[k][0]).files]
    # the blocks of the two 'greedy' configurations: 0 and 1 of g1, 2 and 3 of g0 are victims; the
    # sources copied (g1's block 1 onto its block 0, g1's block 2 onto g0's block 2) are not
    victims = {"other-block": g1[0], "other-config": g0[2], "altered": g0[3], "four-players": g1[1]}
    _copy(g1[1], victims["other-block"])  # before g1[1] is itself overwritten below
    _copy(g1[2], victims["other-config"])
    _alter(victims["altered"])
    _copy(four_player_part, victims["four-players"])
    code, err = cli_inproc([*TINY, "--out", out, "--quiet"], capsys)
    assert code == 0, err
    assert "Traceback" not in err
    lines = without_notices(err).strip().splitlines()  # (a compile notice is not a warning)
    assert len(lines) == len(ATTACKS), err
    for attack, victim in victims.items():
        said = [line for line in lines if line.startswith(f"sweep: warning: part file {victim} ")]
        assert len(said) == 1 and ATTACKS[attack] in said[0], (attack, err)
    assert manifest(out)["tasks_run"] == len(ATTACKS)
    assert_same_tables(out, tiny_ref)


def test_a_deleted_study_json_cannot_relabel_another_seed(tmp_path, tiny_ref, capsys):
    out = tmp_path / "o"
    shutil.copytree(tiny_ref, out)
    (out / "study.json").unlink()
    before = snapshot(out)
    code, err = cli_inproc([*with_seed(TINY, 8), "--out", out, "--quiet"], capsys)
    assert code == 2
    line = one_error_line(err)
    assert "holds part files of a different study" in line and str(out) in line, line
    assert snapshot(out) == before


@pytest.mark.slow  # 13 s of CPU
def test_an_edited_study_json_cannot_relabel_another_seed(tmp_path, tiny_ref, tiny_seed8, capsys):
    from four21sim.study.spec import study_from_mapping
    seed8 = with_seed(TINY, 8)
    fresh = tiny_seed8  # an honest run of the seed-8 study (once per process: tests/conftest.py)
    out = tmp_path / "o"
    shutil.copytree(tiny_ref, out)
    sj = json.loads((out / "study.json").read_text())
    sj["study"]["seed"] = 8
    sj["fingerprint"] = study_from_mapping(sj["study"]).fingerprint()  # the forger knows the format
    (out / "study.json").write_text(json.dumps(sj))
    code, err = cli_inproc([*seed8, "--out", out, "--quiet"], capsys)
    assert code == 0, err
    warnings = err.strip().splitlines()
    assert len(warnings) == TINY_TASKS and all("its study fingerprint is" in w for w in warnings), err
    assert manifest(out)["tasks_run"] == TINY_TASKS
    assert_same_tables(out, fresh)


IDENTITY = PartIdentity(study="a" * 16, config="b" * 16, seed=7, block=2, first_game=2000, games=1000,
                        engine_contract=1)


@pytest.mark.parametrize("field", ["study", "config", "seed", "block", "first_game", "games", "engine_contract"])
def test_every_part_identity_field_is_checked(tmp_path, field):
    counters = {"x": np.arange(5, dtype=np.int64), "y": np.ones((2, 3), dtype=np.int64)}
    path = tmp_path / "p.npz"
    write_part(path, counters, IDENTITY)
    part, why = check_part(path, {"x", "y"}, IDENTITY)
    assert why is None and all((part[k] == counters[k]).all() for k in counters)
    other = IDENTITY.__dict__ | {field: ("c" * 16 if isinstance(getattr(IDENTITY, field), str) else 99)}
    part, why = check_part(path, {"x", "y"}, PartIdentity(**other))
    assert part is None and "belongs elsewhere" in why, why


# ================================================================== 3. the whole study validated first
def _deep_toml(path: Path) -> None:
    path.write_text("lineups = " + "[" * 10_000 + "]" * 10_000 + "\n")


def _many_lineups(path: Path) -> None:
    path.write_text('name = "many"\nlineups = [' + ", ".join(['"sec"'] * 100_000) + "]\n")


BASE = ["--variants", "super421", "--players", "2", "--lineups", "greedy", "--games", "1000"]
REFUSED = {
    # id: (arguments, a file to write first, text the one error line must contain)
    "players-twice": ([*BASE, "--players", "2,2"], None, "players: 2 is given twice"),
    "policies-twice": ([*BASE, "--lineups", "sec,sec"], None, "lineups: 'sec' is given twice"),
    "games-10**20": ([*BASE, "--games", str(10**20)], None,
                     "games: 100000000000000000000 is not allowed; allowed: an integer from 1 to 10,000,000,000"),
    "games-int64-task-1": ([*BASE, "--games", "9223372036854775807", "--task-games", "1"], None, "games: 922337"),
    "too-many-tasks": ([*BASE, "--games", "10000000000", "--task-games", "1"], None, "at most 100,000 tasks"),
    "100000-lineups": (["--config", "many.toml"], _many_lineups, "configurations; allowed: at most 2,000"),
    "deep-toml": (["--config", "deep.toml"], _deep_toml, "'deep.toml' nests arrays or tables too deeply"),
    "max-rounds-0": ([*BASE, "--max-rounds", "0"], None, "max_rounds: 0 is not allowed"),
    "max-rounds-huge": ([*BASE, "--max-rounds", "10000000"], None, "allowed: an integer from 1 to 1,000,000"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_refused_study_writes_nothing(tmp_path, monkeypatch, capsys, case):
    args, make, expect = REFUSED[case]
    monkeypatch.chdir(tmp_path)
    if make is not None:
        make(tmp_path / args[1])
    before = snapshot(tmp_path)
    code, err = cli_inproc(args, capsys)  # no --out: it would write results/<name>
    assert code == 2
    line = one_error_line(err)
    assert line.startswith("sweep: error: ") and expect in line, line
    assert snapshot(tmp_path) == before and not (tmp_path / "results").exists()


def _reference_runaways(variant: Variant, lineups: list[list[str]], seed: int, games: int, max_rounds: int) -> int:
    """Games of which some seat rotation runs past ``max_rounds``, by the reference engine."""
    count = 0
    for g in range(games):
        for names in lineups:
            pols = [compile_policy(n, variant, len(names)) for n in names]
            try:
                R.play_game(variant, len(names), pols, seed, g, max_rounds=max_rounds)
            except RuntimeError:
                count += 1
                break
    return count


def test_runaway_games_are_counted_and_reported_not_raised(tmp_path, capsys):
    out = tmp_path / "o"
    code, err = cli_inproc(["--variants", "super421", "--players", "2", "--lineups", "greedy,one:greedy/sec",
                            "--games", "200", "--task-games", "100", "--seed", "5", "--max-rounds", "8",
                            "--out", out, "--quiet"], capsys)
    assert code == 0, err
    run = pd.read_parquet(out / "runaways.parquet").set_index("lineup")["runaway_games"]
    v = Variant.from_preset("super421")
    want_all = _reference_runaways(v, [["greedy", "greedy"]], 5, 200, 8)
    want_one = _reference_runaways(v, [["greedy", "sec"], ["sec", "greedy"]], 5, 200, 8)
    assert 0 < want_all < 200 and 0 < want_one < 200
    assert run["greedy"] == want_all and run["one:greedy/sec"] == want_one
    fair = pd.read_parquet(out / "fairness.parquet")
    skill = pd.read_parquet(out / "skill.parquet")
    assert fair["games"].tolist() == [200 - want_all] and skill["games"].tolist() == [200 - want_one]
    assert "**Runaway games:** games still running after 8 rounds" in (out / "REPORT.md").read_text()
    assert manifest(out)["study"]["max_rounds"] == 8


def test_rules_whose_every_game_runs_away_are_reported(tmp_path, capsys):
    out = tmp_path / "o"
    code, err = cli_inproc(["--variants", "super421", "--players", "2", "--lineups", "greedy,one:greedy/sec",
                            "--set", "tokens=999", "--set", "end=last_holder", "--set", "cumulative=none",
                            "--max-rounds", "40", "--games", "100", "--out", out, "--quiet"], capsys)
    assert code == 0 and without_notices(err) == "", err
    assert pd.read_parquet(out / "runaways.parquet")["runaway_games"].tolist() == [100, 100]
    assert "200 of 200" not in (out / "REPORT.md").read_text() and "100 of 100" in (out / "REPORT.md").read_text()


# ================================================================== 4. workers die with their parent
def _group(pgid: int) -> list[int]:
    """Live processes (not zombies) of a process group, from /proc."""
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[2]) == pgid and fields[0] != "Z":
                pids.append(int(d.name))
    return pids


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_workers_die_with_their_parent(tmp_path, sig):
    proc = subprocess.Popen([sys.executable, "-m", "four21sim.sweep", *SLOW, "--workers", "2", "--quiet",
                             "--out", "o"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        # the parent, two workers and multiprocessing's resource tracker
        wait_until(lambda: len(_group(proc.pid)) >= 4 or proc.poll() is not None, what="the workers")
        assert proc.poll() is None, proc.communicate()
        os.kill(proc.pid, sig)
        _, err = proc.communicate(timeout=60)
        wait_until(lambda: not _group(proc.pid), timeout=20, what="every process of the group to exit")
    finally:
        if _group(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
    if sig == signal.SIGTERM:
        assert proc.returncode == 143 and one_error_line(err).startswith("sweep: terminated;"), err
        assert (tmp_path / "o" / ".lock").read_text() == ""


# ================================================================== 5. schedulers
def test_an_http_server_is_not_a_dask_scheduler():
    from four21sim.study.executors import open_client
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        with pytest.raises(ValueError, match=r"did not answer as a Dask scheduler within 1 s"):
            open_client(f"tcp://127.0.0.1:{srv.server_address[1]}", timeout=1.0)
    finally:
        srv.shutdown()
        srv.server_close()


def test_a_scheduler_answering_garbage_is_one_line_and_exit_2(tmp_path):
    srv = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            with conn:
                conn.sendall(b"\xff" * 4096)  # a "length" of 2**64 - 1, then noise
    threading.Thread(target=serve, daemon=True).start()
    try:
        res = run_cli(["--variants", "super421", "--players", "2", "--lineups", "greedy", "--games", "100",
                       "--scheduler", f"tcp://127.0.0.1:{srv.getsockname()[1]}", "--out", "o"], tmp_path, timeout=120)
    finally:
        stop.set()
        srv.close()
    assert res.returncode == 2
    line = one_error_line(res.stderr)
    assert "is not a Dask scheduler (it answered something else)" in line, line
    assert list(tmp_path.iterdir()) == []


def _framed(*frames: bytes) -> bytes:
    """One message as Dask's TCP comm frames it: <uint64 total><uint64 count><uint64 lengths...><frames>."""
    body = struct.pack("<Q", len(frames)) + b"".join(struct.pack("<Q", len(f)) for f in frames) + b"".join(frames)
    return struct.pack("<Q", len(body)) + body


def test_a_peer_that_answers_the_handshake_then_sends_junk_is_one_line_and_exit_2(tmp_path):
    """It passed the probe (a well-framed handshake), then distributed logged a CRITICAL traceback
    ("Failed to deserialize") before the one-line error."""
    msgpack = pytest.importorskip("msgpack")
    pytest.importorskip("distributed")
    hello = _framed(msgpack.dumps({"compression": None, "python": list(sys.version_info[:3]), "pickle-protocol": 5}))
    junk = _framed(b"\x93not msgpack\xc1\xc1")
    srv = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            with conn:
                conn.sendall(hello)
                conn.settimeout(2)
                try:
                    conn.recv(65536)  # the client's handshake
                    conn.sendall(junk)
                    conn.recv(65536)
                except OSError:
                    pass
    threading.Thread(target=serve, daemon=True).start()
    try:
        res = run_cli(["--variants", "super421", "--players", "2", "--lineups", "greedy", "--games", "100",
                       "--scheduler", f"tcp://127.0.0.1:{srv.getsockname()[1]}", "--out", "o"], tmp_path, timeout=120)
    finally:
        stop.set()
        srv.close()
    assert res.returncode == 2
    line = one_error_line(res.stderr)
    assert line.startswith("sweep: error: --scheduler: cannot connect to 'tcp://127.0.0.1:"), line
    assert list(tmp_path.iterdir()) == []


# ================================================================== 6. results/<name>, outputs swapped whole
def test_a_study_without_out_never_replaces_another_studys_results(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    committed = tmp_path / "results" / "default"
    committed.mkdir(parents=True)
    (committed / "study.json").write_text(json.dumps({"fingerprint": "0123456789abcdef", "code": None}))
    (committed / "REPORT.md").write_text("committed report")
    before = snapshot(tmp_path)
    code, err = cli_inproc(["--players", "2", "--lineups", "greedy", "--games", "1000"], capsys)  # named default
    assert code == 2
    line = one_error_line(err)
    assert "'results/default' holds the results of a different study" in line and "--out" in line, line
    assert snapshot(tmp_path) == before
    # a study of its own name goes to results/<its name>
    code, err = cli_inproc(["--variants", "super421", "--players", "2", "--lineups", "greedy", "--games", "1000",
                            "--name", "mine", "--quiet"], capsys)
    assert code == 0, err
    assert (tmp_path / "results" / "mine" / "REPORT.md").exists() and snapshot(committed) == before_sub(
        before, "results/default")


def before_sub(snap: dict, prefix: str) -> dict:
    return {k[len(prefix) + 1:]: v for k, v in snap.items() if k.startswith(prefix + "/")}


OUTPUTS = ("REPORT.md", "manifest.json", "measures.parquet", "fairness.parquet", "figures")


def _outputs(out: Path) -> dict:
    snap = snapshot(out)
    return {k: v for k, v in snap.items() if k.split("/")[0] in OUTPUTS}


@pytest.mark.slow  # 6 s of CPU
def test_outputs_are_swapped_in_whole(tmp_path, tiny_ref, monkeypatch, capsys):
    from four21sim.study import figures as plots
    out = tmp_path / "o"
    shutil.copytree(tiny_ref, out)
    (out / "figures" / "99-stale-from-an-older-run.png").write_bytes(b"old")
    before = _outputs(out)
    real, calls = plots.save, []

    def dies_on_third(fig, path):
        calls.append(path)
        if len(calls) == 3:
            raise KeyboardInterrupt  # stopped while writing the figures
        real(fig, path)

    monkeypatch.setattr(plots, "save", dies_on_third)
    code, err = cli_inproc([*TINY, "--out", out, "--quiet"], capsys)
    assert code == 130
    assert _outputs(out) == before  # the previous outputs, whole
    assert [p for p in out.iterdir() if temp_owner(p) is not None] == []

    # a writer SIGKILLed while writing leaves its temporary folder: the next run removes it
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stage = out / f".outputs.{dead.pid}.tmp"
    (stage / "figures").mkdir(parents=True)
    (stage / "figures" / ".01-x.png.1.tmp.png").write_bytes(b"half")
    monkeypatch.setattr(plots, "save", real)
    code, err = cli_inproc([*TINY, "--out", out, "--quiet"], capsys)
    assert code == 0, err
    assert not stage.exists() and not (out / "figures" / "99-stale-from-an-older-run.png").exists()
    assert sorted(p.name for p in (out / "figures").iterdir()) == \
        sorted(p.name for p in (tiny_ref / "figures").iterdir())
    assert [p for p in out.rglob("*") if temp_owner(p) is not None] == []
    assert_same_tables(out, tiny_ref)


# ================================================================== 7. the smaller defects
def test_simulate_with_every_game_run_away_measures_nan_not_zero_division():
    res = simulate("super421", 2, "greedy", games=50, seed=1, max_rounds=1, check_runaway=False)
    assert res.runaways == 50 and res.finished == 0
    m = res.measures()
    assert m["value"][m["measure"] == "p_win"].isna().all() and (m["games"] == 0).all()
    assert m.loc[m["measure"] == "runaway_games", "value"].tolist() == [50.0]


def test_solver_refuses_a_nan_tolerance():
    from four21sim.exact.two_player import solve
    for bad in (float("nan"), float("inf"), 0.0, -1e-9, "1e-9"):
        with pytest.raises(ValueError, match=r"^tol: .* is not allowed; allowed: a finite number > 0"):
            solve(Variant.from_preset("super421"), tol=bad)


def test_tournament_refuses_a_policy_twice():
    from four21sim.analysis.tournament import tournament
    with pytest.raises(ValueError, match=r"policies: 'greedy' is given twice"):
        tournament("super421", ["greedy", "greedy"], games=100)


def test_variant_from_a_missing_file_says_it_does_not_exist(tmp_path):
    for missing in (tmp_path / "nope.toml", str(tmp_path / "nope.toml"), "nope.toml"):
        with pytest.raises(ValueError, match=r"variant TOML: the file '.*nope\.toml' does not exist"):
            Variant.from_toml(missing)
    assert Variant.from_toml("tokens = 21\n").tokens == 21  # TOML text still works
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 10_000 + "]" * 10_000 + "\n")
    with pytest.raises(ValueError, match="nested too deeply"):
        Variant.from_toml(deep)


def test_policies_none_names_the_option():
    with pytest.raises(ValueError, match=r"^policies: None is not allowed; allowed: a policy name"):
        simulate("super421", 2, None, games=10)


def test_sweep_into_a_closed_pipe_is_no_traceback(tmp_path):
    # the summary line goes to a reader that is gone: no BrokenPipeError traceback
    res = subprocess.run(f"{sys.executable} -m four21sim.sweep --variants super421 --players 2 --lineups greedy "
                         "--games 100 --out o | true", shell=True, cwd=tmp_path, capture_output=True, text=True,
                         timeout=120)
    assert "Traceback" not in res.stderr and "BrokenPipe" not in res.stderr, res.stderr
    assert (tmp_path / "o" / "REPORT.md").exists()


def test_configuration_keys_hash_only_the_options_that_differ_from_their_defaults(monkeypatch):
    import dataclasses
    import hashlib

    from four21sim.study import spec as S
    c = S.Config("x", Variant.from_preset("super421", ["tokens=21"]), 2, S.parse_lineup("greedy"))
    # the canonical form, written out: sorted keys, JSON, only tokens differs from the defaults
    text = '{"lineup": "greedy", "players": 2, "variant": {"tokens": 21}}'
    assert c.key == hashlib.sha256(text.encode()).hexdigest()[:16]
    # a variant option added later, with its default, leaves the key (and the stored parts) alone
    new = dataclasses.replace(S.OPTION_TABLE[0], name="brand_new_rule", default=0)
    monkeypatch.setattr(S, "OPTION_TABLE", S.OPTION_TABLE + (new,))
    monkeypatch.setattr(Variant, "options", lambda self, _old=Variant.options: {**_old(self), "brand_new_rule": 0})
    assert c.key == hashlib.sha256(text.encode()).hexdigest()[:16]
    monkeypatch.setattr(Variant, "options", lambda self, _old=Variant.options: {**_old(self), "brand_new_rule": 1})
    assert c.key != hashlib.sha256(text.encode()).hexdigest()[:16]  # set to something else, it counts


def test_many_rejected_parts_are_named_up_to_a_limit_then_counted(tmp_path, tiny_ref, monkeypatch):
    from four21sim.study import run as study_run
    from four21sim.study.plan import make_plan
    from four21sim.study.spec import study_from_mapping
    out = tmp_path / "o"
    shutil.copytree(tiny_ref, out)
    other = study_from_mapping(dict(manifest(out)["study"], seed=8))  # every part belongs to seed 7
    monkeypatch.setattr(study_run, "MAX_WARNINGS", 5)
    said = []
    pending, done = study_run.pending_tasks(make_plan(other), out, said.append)
    assert len(pending) == TINY_TASKS and done == 0
    assert len(said) == 6 and all(w.startswith("part file ") for w in said[:5])
    assert said[5].startswith(f"{TINY_TASKS - 5} more part files in ")
