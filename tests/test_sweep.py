"""Tests of the study runner: ``python -m four21sim.sweep`` (sweep, study, study_run, tasks,
executors, summarize).

Every study here is tiny, so the whole file runs in a couple of minutes on two cores:

1. end to end through the command line: the files, the manifest, the tables, the
   report; the same seed gives the same tables, another seed other numbers;
2. the same numbers whatever runs the tasks: this process, worker processes, a Dask
   cluster started by the sweep, a Dask scheduler started here;
3. resume: deleted parts (and only they) are computed again; a different study into
   the same --out is refused and changes nothing;
4. SIGKILL and SIGINT in the middle of a run: no half part file, the rerun finishes
   with the same tables as an uninterrupted run;
5. a corrupt part file is detected, reported and computed again;
6. a Dask worker killed during a run: the run still finishes, with the same tables;
7. bad input: exit status 2, one line on stderr, no traceback, nothing written;
8. ``--help``;
9. property test of the engine over random variants, player counts and policy mixes:
   tokens conserved, every game ends, the records equal the reference engine's.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import signal
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import reference as R
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from notices import without_notices
from sweep_runs import (
    PNG_MAGIC,
    SLOW,
    SLOW_TASKS,
    TABLES,
    TINY,
    TINY_TASKS,
    TINY_TOML,
    VARIANTS,
    assert_parts_load,
    assert_same_tables,
    manifest,
    one_error_line,
    part_files,
    run_cli,
    run_inproc,
    snapshot,
    start_cli,
    wait_for_parts,
)

from four21sim import Variant, simulate
from four21sim._util.atomic import temp_owner
from four21sim.cli.sweep import console
from four21sim.policies import compile_policy
from four21sim.rules import dice


# ================================================================== shared runs
# tiny_ref and slow_ref, the studies compared with: tests/conftest.py (one run per process for every file)
@pytest.fixture
def dask_cluster():
    """A real Dask cluster of 2 worker processes (each with a nanny), and a client on it."""
    import distributed
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    client = distributed.Client(cluster)
    try:
        yield cluster, client
    finally:
        client.close()
        cluster.close()


# ================================================================== 1. end to end
@pytest.mark.slow  # 29 s of CPU
def test_end_to_end_command_line(tmp_path, tiny_ref, tiny_seed8):
    res = run_cli([*TINY, "--out", "a", "--quiet"], tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout == "" and without_notices(res.stderr) == ""  # --quiet
    out = tmp_path / "a"

    for name in ("REPORT.md", "manifest.json", "study.json", *(f"{t}.parquet" for t in TABLES)):
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
    figures = sorted((out / "figures").glob("*.png"))
    assert len(figures) >= 5
    for f in figures:
        data = f.read_bytes()
        assert len(data) > 1000 and data.startswith(PNG_MAGIC), f
    assert len(part_files(out)) == TINY_TASKS

    m = manifest(out)
    study = json.loads((out / "study.json").read_text())
    assert m["study"] == study["study"] and m["fingerprint"] == study["fingerprint"]
    assert m["study"]["variants"] == list(VARIANTS) and m["study"]["players"] == [2]
    assert m["study"]["lineups"] == ["greedy", "one:optimal/greedy"]
    assert m["study"]["games"] == 4000 and m["study"]["task_games"] == 1000
    assert m["seed"] == 7 and m["study"]["seed"] == 7
    for pkg in ("four21sim", "numba", "numpy"):
        assert isinstance(m["versions"][pkg], str) and m["versions"][pkg]
    import numba
    assert m["versions"]["numba"] == numba.__version__ and m["versions"]["numpy"] == np.__version__
    assert "git_commit" in m
    started, finished = dt.datetime.fromisoformat(m["started"]), dt.datetime.fromisoformat(m["finished"])
    assert started <= finished
    assert m["games_per_second"] > 0
    assert m["games_total"] == m["games_run"] == 4 * 4000 and m["tasks_run"] == TINY_TASKS
    assert m["command"].startswith("four21sim sweep --variants")
    confs = m["configurations"]
    assert len(confs) == 4
    assert {(c["variant"], c["players"], c["lineup"]) for c in confs} == \
        {(v, 2, lu) for v in VARIANTS for lu in ("greedy", "one:optimal/greedy")}
    for c in confs:
        assert set(c["options"]) >= {"tokens", "ranking", "end"} and re.fullmatch(r"[0-9a-f]{16}", c["key"])
    for f in m["files"]:
        assert (out / f).is_file(), f

    meas = pd.read_parquet(out / "measures.parquet")
    assert {"variant", "players", "lineup", "measure", "seat", "value", "ci_low", "ci_high"} <= set(meas.columns)
    assert set(meas["variant"]) == set(VARIANTS) and set(meas["lineup"]) == {"greedy"}
    p_win = meas[meas["measure"] == "p_win"]
    assert len(p_win) == 2 * 2 and ((p_win["ci_low"] <= p_win["value"]) & (p_win["value"] <= p_win["ci_high"])).all()
    skill = pd.read_parquet(out / "skill.parquet")
    assert set(skill["variant"]) == set(VARIANTS) and (skill["games"] == 4000).all()
    assert len(pd.read_parquet(out / "exact.parquet")) == 4  # every configuration is a 2-player one

    report = (out / "REPORT.md").read_text()
    for v in VARIANTS:
        assert v in report

    # the same study, the same seed, another directory and another process: the same tables (tiny_ref
    # is main() in this process, into a folder of its own; a second run of the command into a
    # third folder checked nothing more, and cost a start-up and a whole study)
    assert_same_tables(out, tiny_ref)

    # another seed: other numbers (the tiny study with seed 8, run once per process: tests/conftest.py)
    other = pd.read_parquet(tiny_seed8 / "measures.parquet")
    assert list(other.columns) == list(meas.columns) and len(other) == len(meas)
    assert not other.equals(meas)
    assert not np.allclose(other["value"], meas["value"])
    assert manifest(tiny_seed8)["seed"] == 8


def test_study_file_is_the_same_study_as_the_flags(tmp_path, tiny_ref):
    # the same study written as TOML has the same fingerprint: it resumes the flags' run
    # (nothing to play) and gives the same tables
    (tmp_path / "tiny.toml").write_text(TINY_TOML)
    out = tmp_path / "copy"
    shutil.copytree(tiny_ref, out)
    assert run_inproc(["--config", tmp_path / "tiny.toml", "--out", out, "--quiet"]) == 0
    m = manifest(out)
    assert m["name"] == "tiny" and m["tasks_run"] == 0 and m["games_run"] == 0
    assert m["games_resumed"] == 4 * 4000
    assert_same_tables(out, tiny_ref)


# ================================================================== 2. whatever runs it
@pytest.mark.slow  # 13 to 21 s of CPU
@pytest.mark.parametrize("how", [["--workers", "2"], ["--scheduler", "local:2"]], ids=["workers2", "local2"])
def test_same_tables_whatever_runs_the_tasks(tmp_path, tiny_ref, how):
    # main() in this process, which starts the worker processes or the Dask cluster as the command
    # does (what runs the tasks is the question here, not the command line: test_end_to_end_command_line)
    assert run_inproc([*TINY, *how, "--out", tmp_path / "o", "--quiet"]) == 0
    assert manifest(tmp_path / "o")["tasks_run"] == TINY_TASKS
    assert_same_tables(tmp_path / "o", tiny_ref)


@pytest.mark.slow  # 24 s of CPU
def test_optimal_at_three_players_plays_the_equilibrium_whatever_runs_it(tmp_path):
    # the 3-player equilibrium is built in each worker (solved once, then read from the disk cache)
    args = ["--variants", "super421,classic", "--set", "tokens=4", "--players", "3",
            "--lineups", "optimal,one:optimal/greedy", "--games", "4000", "--task-games", "1000", "--seed", "5"]
    assert run_inproc([*args, "--out", tmp_path / "a", "--quiet"]) == 0
    # worker processes started by main() in this process, as the command starts them
    assert run_inproc([*args, "--workers", "2", "--out", tmp_path / "b", "--quiet"]) == 0
    assert_same_tables(tmp_path / "a", tmp_path / "b")
    assert not manifest(tmp_path / "a")["skipped"]
    fair = pd.read_parquet(tmp_path / "a" / "fairness.parquet").set_index(["variant", "lineup"])
    ex = pd.read_parquet(tmp_path / "a" / "exact.parquet")
    assert set(ex["players"]) == {3} and set(ex["lineup"]) == {"optimal"}
    for r in ex.itertuples():
        sim = fair.loc[(r.variant, "optimal")]
        # simulated P(seat 0 pays) within 4 standard errors of the solver's value (false alarm ~6e-5)
        se = np.sqrt(r.seat0_pays_exact * (1 - r.seat0_pays_exact) / sim.games)
        assert abs(sim.seat0_pays - r.seat0_pays_exact) <= 4 * se, (r.variant, sim.seat0_pays, r.seat0_pays_exact)
        assert r.exploitability < 1e-9
    lead = pd.read_parquet(tmp_path / "a" / "leading.parquet")
    assert sorted(lead["players"]) == [3, 3]  # the value of leading at the player counts the study plays only


@pytest.mark.slow  # 18 s of CPU
def test_same_tables_on_a_running_dask_scheduler(tmp_path, tiny_ref, dask_cluster):
    cluster, client = dask_cluster
    addr = cluster.scheduler_address
    assert addr.startswith("tcp://")
    res = run_cli([*TINY, "--scheduler", addr, "--out", "o", "--quiet"], tmp_path)
    assert res.returncode == 0, res.stderr
    m = manifest(tmp_path / "o")
    assert m["scheduler"] == addr and m["tasks_run"] == TINY_TASKS
    assert_same_tables(tmp_path / "o", tiny_ref)
    assert len(client.scheduler_info()["workers"]) == 2  # the sweep leaves the cluster as it found it


# ================================================================== 3. resume
@pytest.mark.slow  # 9 s of CPU
def test_resume_recomputes_only_the_missing_parts(tmp_path, tiny_ref):
    out = tmp_path / "o"
    shutil.copytree(tiny_ref, out)
    parts = part_files(out)
    assert len(parts) == TINY_TASKS
    gone = [parts[0], parts[5], parts[-1]]
    keep = {p: p.stat().st_mtime_ns for p in parts if p not in gone}
    for p in gone:
        p.unlink()
    assert run_inproc([*TINY, "--out", out, "--quiet"]) == 0
    m = manifest(out)
    assert m["tasks_run"] == len(gone)
    assert m["games_run"] == len(gone) * 1000 and m["games_resumed"] == (TINY_TASKS - len(gone)) * 1000
    assert all(p.exists() for p in gone)
    assert {p: p.stat().st_mtime_ns for p in keep} == keep  # the kept parts were not rewritten
    assert_same_tables(out, tiny_ref)

    # the same command once more: nothing to do
    assert run_inproc([*TINY, "--out", out, "--quiet"]) == 0
    assert manifest(out)["tasks_run"] == 0
    assert_same_tables(out, tiny_ref)


@pytest.mark.parametrize("change", [["--games", "8000"], ["--seed", "8"], ["--set", "tokens=12"]],
                         ids=["games", "seed", "set"])
def test_a_different_study_into_the_same_out_is_refused(tmp_path, tiny_ref, change, monkeypatch, capsys):
    out = tmp_path / "o"
    shutil.copytree(tiny_ref, out)
    before = snapshot(out)
    args = list(TINY)
    i = args.index(change[0]) if change[0] in args else len(args)
    args[i:i + 2] = change
    if change[0] == "--games":  # one as the real command; the others through the function it calls
        res = run_cli([*args, "--out", "o", "--quiet"], tmp_path)
        code, stderr = res.returncode, res.stderr
    else:
        monkeypatch.chdir(tmp_path)  # --out o, relative, as from the command's folder
        capsys.readouterr()
        code = console([*args, "--out", "o", "--quiet"])
        stderr = capsys.readouterr().err
    assert code == 2
    line = one_error_line(stderr)
    assert line.startswith("sweep: error: --out:") and "'o'" in line and "different study" in line
    assert snapshot(out) == before


# ================================================================== 4. SIGKILL, SIGINT
@pytest.mark.slow  # 13 s of CPU
def test_sigkill_mid_run_then_resume(tmp_path, slow_ref):
    proc = start_cli([*SLOW, "--out", "killed", "--quiet"], tmp_path)
    out = tmp_path / "killed"
    try:
        wait_for_parts(proc, out, 2)
        assert proc.poll() is None, "the sweep finished before it could be killed: make SLOW slower"
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    done = assert_parts_load(out)
    assert 2 <= done < SLOW_TASKS
    assert not (out / "manifest.json").exists()

    # the rerun: main() in this process (what is asked is what a rerun finds, not how it is started)
    assert run_inproc([*SLOW, "--out", out, "--quiet"]) == 0
    assert manifest(out)["tasks_run"] == SLOW_TASKS - done
    assert assert_parts_load(out) == SLOW_TASKS
    assert_same_tables(out, slow_ref)


def test_sigint_mid_run(tmp_path):
    proc = start_cli([*SLOW, "--out", "o", "--quiet"], tmp_path)
    out = tmp_path / "o"
    try:
        wait_for_parts(proc, out, 2)
        assert proc.poll() is None, "the sweep finished before it could be interrupted: make SLOW slower"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    line = one_error_line(err)
    assert line.startswith("sweep: interrupted") and "run the same command again" in line
    assert 2 <= assert_parts_load(out) < SLOW_TASKS
    for p in out.rglob("*"):
        assert temp_owner(p) is None, f"temporary file left after an interrupt: {p}"


# ================================================================== 5. corrupt parts
def _flag_encrypted(data: bytes) -> bytes:
    """The part with the 'encrypted' flag set in its first central-directory entry: a damage
    on which zipfile raises RuntimeError rather than BadZipFile."""
    i = data.index(b"PK\x01\x02")
    b = bytearray(data)
    b[i + 8] |= 1
    return bytes(b)


def _foreign(path: Path) -> None:
    """A valid .npz holding other arrays (or a damaged zip directory that loses some)."""
    with open(path, "wb") as f:
        np.savez(f, x=np.arange(3))


CORRUPTIONS = {
    "garbage": lambda p: p.write_bytes(os.urandom(777)),
    "truncated": lambda p: p.write_bytes(p.read_bytes()[: p.stat().st_size // 2]),
    "empty": lambda p: p.write_bytes(b""),
    "flagged": lambda p: p.write_bytes(_flag_encrypted(p.read_bytes())),
    "foreign": _foreign,
}


def test_a_corrupt_part_is_detected_and_recomputed(tmp_path, tiny_ref):
    # Every kind of damage at once, each on a 'greedy' part and a 'one:' part of its own (10 of the
    # 16 parts), in one run of the command: it was one run (in this process) per kind, and one more
    # of the command for its stderr. Each damaged file must still be named in a warning line of its
    # own, nothing else on stderr, and a damage the run did not survive would fail it for all.
    out = tmp_path / "o"
    shutil.copytree(tiny_ref, out)
    by_config: dict[str, list[Path]] = {}
    for p in part_files(out):
        by_config.setdefault(p.parent.name, []).append(p)
    with_one = {k for k, v in by_config.items() if "one_games" in np.load(v[0]).files}
    greedy = [p for k in sorted(by_config) if k not in with_one for p in by_config[k]]
    one = [p for k in sorted(with_one) for p in by_config[k]]
    assert len(greedy) == len(one) == TINY_TASKS // 2 >= len(CORRUPTIONS)
    victims = {}
    for i, kind in enumerate(CORRUPTIONS):
        for p in (greedy[i], one[i]):
            CORRUPTIONS[kind](p)
            victims[p] = kind
    res = run_cli([*TINY, "--out", out, "--quiet"], tmp_path)  # (an absolute --out: the warnings name full paths)
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr
    lines = without_notices(res.stderr).strip().splitlines()  # (a compile or solve notice is not a warning)
    assert len(lines) == len(victims), res.stderr
    for p, kind in victims.items():
        said = [line for line in lines if str(p) in line]
        assert len(said) == 1 and said[0].startswith("sweep: warning: part file") and "unreadable" in said[0], \
            (kind, res.stderr)
    assert manifest(out)["tasks_run"] == len(victims)
    assert assert_parts_load(out) == TINY_TASKS
    assert_same_tables(out, tiny_ref)


# ================================================================== 6. a lost Dask worker
@pytest.mark.slow  # 18 s of CPU
def test_a_lost_dask_worker_does_not_change_the_result(tmp_path, slow_ref, dask_cluster):
    cluster, client = dask_cluster
    proc = start_cli([*SLOW, "--scheduler", cluster.scheduler_address, "--out", "o", "--quiet"], tmp_path)
    out = tmp_path / "o"
    try:
        wait_for_parts(proc, out, 2)
        assert proc.poll() is None, "the sweep finished before a worker could be killed: make SLOW slower"
        pids = client.run(os.getpid)
        assert len(pids) == 2
        victim = sorted(pids.values())[0]
        os.kill(victim, signal.SIGKILL)
        _, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert manifest(out)["tasks_run"] == SLOW_TASKS
    assert assert_parts_load(out) == SLOW_TASKS
    assert_same_tables(out, slow_ref)
    # the nanny brought the worker back
    client.wait_for_workers(2, timeout=60)
    assert victim not in client.run(os.getpid).values()


# ================================================================== 7. bad input
BASE = ["--variants", "super421", "--players", "2", "--lineups", "greedy", "--games", "100", "--quiet"]


def _args_with(**changes) -> list[str]:
    args = list(BASE)
    for opt, value in changes.items():
        opt = "--" + opt.replace("_", "-")
        if opt in args:
            args[args.index(opt) + 1] = value
        else:
            args += [opt, value]
    return args


BAD = {
    # id: (arguments, text the error line must contain)
    "study-unknown-key": (["--config", "bad.toml", "--quiet"], "unknown key 'bogus'"),
    "set-unknown-option": (_args_with(set="nope=1"), "'nope'"),
    "set-bad-value": (_args_with(set="tokens=0"), "tokens"),
    "unknown-policy": (_args_with(lineups="greedy,clever"), "unknown policy 'clever'"),
    "unknown-preset": (_args_with(variants="super421,nope"), "unknown preset 'nope'"),
    "one-player": (_args_with(players="1"), "players"),
    "players-not-a-number": (_args_with(players="2,x"), "--players"),
    "zero-games": (_args_with(games="0"), "games: 0"),
    "missing-config": (["--config", "missing.toml", "--quiet"], "missing.toml"),
    "workers-0": (_args_with(workers="0"), "--workers"),
    "optimal-6-players": (_args_with(players="6", lineups="optimal"), "no playable configuration"),
    "scheduler-bogus": (_args_with(scheduler="bogus"), "--scheduler: 'bogus'"),
    "scheduler-unreachable": (_args_with(scheduler="tcp://127.0.0.1:1"), "cannot reach"),
}
BAD_OUT = {
    "out-under-a-file": ("afile/sub", "afile"),
    "out-in-proc": ("/proc/four21-test", "/proc/four21-test"),
}


def _prepare_bad_dir(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text('name = "bad"\ngames = 100\nbogus = 1\n')
    (tmp_path / "afile").write_text("a regular file\n")


# Run as the real command: a study file's mistake, a network one (no Dask client left in the test
# process) and an --out mistake. The others go through the same function in this process
# (four21sim.cli.sweep.console, which `python -m four21sim.sweep` calls and exits with): the
# same exit status and stderr, without an interpreter's start-up and imports for each.
BAD_BY_THE_COMMAND = {"study-unknown-key", "scheduler-unreachable", "out-under-a-file"}


@pytest.mark.parametrize("case", list(BAD) + list(BAD_OUT))
def test_bad_input_exits_2_and_writes_nothing(tmp_path, case, monkeypatch, capsys):
    _prepare_bad_dir(tmp_path)
    before = snapshot(tmp_path)
    if case in BAD:
        args, expect = BAD[case]
        out = "out"
    else:
        out, expect = BAD_OUT[case]
        args = BASE
    if case in BAD_BY_THE_COMMAND:
        res = run_cli([*args, "--out", out], tmp_path, timeout=120)
        code, stdout, stderr = res.returncode, res.stdout, res.stderr
    else:
        monkeypatch.chdir(tmp_path)  # the relative names (bad.toml, out, afile/sub) as from the command's folder
        capsys.readouterr()
        code = console([*args, "--out", out])
        stdout, stderr = capsys.readouterr()
    assert code == 2, stderr
    line = one_error_line(stderr)
    assert line.startswith("sweep: error: "), line
    assert expect in line, line
    assert stdout == ""
    assert not (tmp_path / out).exists()
    assert snapshot(tmp_path) == before  # nothing written anywhere (afile is still the same file)


def test_argparse_level_mistake_is_a_usage_error(tmp_path):
    # an unknown option is argparse's usage error; a number option that is not a number is one line
    # naming it (the package's rule for typed numbers, _util.checks.typed_int)
    for bad, usage in ((["--games", "abc"], False), (["--workers", "two"], False), (["--no-such-option"], True)):
        res = run_cli([*BASE, *bad, "--out", "out"], tmp_path)
        assert res.returncode == 2
        assert "Traceback" not in res.stderr
        assert res.stderr.startswith("usage: four21sim sweep") == usage
        last = res.stderr.strip().splitlines()[-1]
        want = "four21sim sweep: error:" if usage else f"sweep: error: {bad[0]}: '{bad[1]}' is not allowed"
        assert last.startswith(want), res.stderr
        assert not (tmp_path / "out").exists()
    assert list(tmp_path.iterdir()) == []


# ================================================================== 8. --help
def test_help(tmp_path):
    res = run_cli(["--help"], tmp_path)
    assert res.returncode == 0 and res.stderr == ""
    text = res.stdout
    for opt in ("--config", "--variants", "--players", "--lineups", "--set", "--games", "--task-games", "--seed",
                "--name", "--workers", "--scheduler", "--out", "--quiet", "--wait", "--max-rounds"):
        assert opt in text, opt
    assert "example" in text.lower()
    assert re.search(r"four21sim sweep --config \S+", text)  # an example command
    assert text.startswith("usage: four21sim sweep") and "--undefined" in text
    examples = text[text.index("examples:"):]
    assert "--policies" not in examples  # the deprecated spelling is not taught
    assert list(tmp_path.iterdir()) == []


# ================================================================== 9. property test of the engine
POLICIES = ("sec", "chase421", "greedy", "table-aware", "random")
GAMES_PER_EXAMPLE = 30

variants = st.builds(
    Variant,
    tokens=st.integers(1, 30),
    ranking=st.sampled_from(dice.RANKINGS),
    values=st.sampled_from(dice.VALUE_SCHEMES),
    charge_throws=st.integers(1, 3),
    decharge_throws=st.integers(1, 3),
    followers=st.sampled_from(("exact", "at_most")),
    fewer_throws_wins=st.booleans(),
    cumulative=st.sampled_from(("none", "charge", "decharge", "both")),
    nenette_min=st.integers(0, 5),
    nenette_rescue=st.booleans(),
    next_leader=st.sampled_from(("loser", "winner", "next_seat")),
    end=st.sampled_from(("first_out", "last_holder")),
)
lineups = st.integers(2, 5).flatmap(lambda n: st.lists(st.sampled_from(POLICIES), min_size=n, max_size=n))


def _as_int64(df: pd.DataFrame) -> np.ndarray:
    assert list(df.columns) == R.RECORD_FIELDS
    # column by column: an int64/uint64 mix must not go through float64
    return np.column_stack([np.asarray(df[c].to_numpy()).astype(np.int64) for c in df.columns])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=variants, names=lineups, seed=st.integers(0, 2**64 - 1))
def test_engine_property_conservation_termination_reference(variant, names, seed):
    players = len(names)
    res = simulate(variant, players, list(names), games=GAMES_PER_EXAMPLE, seed=seed, records=True)
    assert res.runaways == 0  # every game ended (a runaway would also have raised RuntimeError)
    rec = res.records
    assert len(rec) == GAMES_PER_EXAMPLE
    held = rec[[f"tok{s}" for s in range(8)]].to_numpy()
    np.testing.assert_array_equal(held.sum(axis=1), variant.tokens)  # tokens are conserved
    assert (held >= 0).all() and (held[:, players:] == 0).all()
    assert (rec["rounds_charge"] + rec["rounds_decharge"] >= 1).all()

    pols = [compile_policy(n, variant, players) for n in names]
    want = R.play_games(variant, players, pols, seed, GAMES_PER_EXAMPLE)
    got = _as_int64(rec)
    assert got.shape == want.shape
    bad = np.flatnonzero((got != want).any(axis=1))
    assert not len(bad), (f"{variant!r}, {names}, seed={seed}: game {bad[0]} differs: engine "
                          f"{got[bad[0]].tolist()} reference {want[bad[0]].tolist()}")


def test_full_disk_mid_run_gives_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    # a write that fails with ENOSPC (a full disk) half-way through: one clear line, status 2,
    # the parts already written stay whole, and a rerun finishes the study
    import errno

    from four21sim import sweep
    from four21sim.study import tasks

    real = tasks.write_part
    calls = {"n": 0}

    def flaky(path, counters, identity):
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, counters, identity)

    monkeypatch.setattr(tasks, "write_part", flaky)
    out = tmp_path / "full"
    args = ["--variants", "super421", "--players", "2", "--lineups", "greedy", "--games", "3000",
            "--task-games", "1000", "--out", str(out), "--quiet"]
    assert sweep.main(args) == 2
    err = capsys.readouterr().err
    assert "sweep: error: --out" in err and "No space left on device" in err and "Traceback" not in err
    parts = list((out / "parts").rglob("*.npz"))
    assert len(parts) == 1 and all(np.load(p).files for p in parts)
    monkeypatch.setattr(tasks, "write_part", real)
    assert sweep.main(args) == 0
    assert (out / "REPORT.md").exists()


def test_results_folder_without_parts_is_remade(tmp_path):
    # committed results in a fresh clone have a study.json but no part files: the main job
    # must simply remake them, even when the study or the code has changed since
    out = tmp_path / "committed"
    out.mkdir()
    (out / "study.json").write_text(json.dumps({"fingerprint": "something-else", "code": None}))
    (out / "REPORT.md").write_text("old report")
    args = ["--variants", "super421", "--players", "2", "--lineups", "greedy", "--games", "2000",
            "--task-games", "1000", "--out", str(out), "--quiet"]
    from four21sim import sweep
    assert sweep.main(args) == 0
    assert "old report" not in (out / "REPORT.md").read_text()
    assert json.loads((out / "study.json").read_text())["code"]["engine_contract"] >= 1


@pytest.mark.slow  # 14 s of CPU
def test_committed_study_files_parse_and_the_default_matches_the_embedded_one():
    from four21sim.study.spec import DEFAULT_STUDY, load_study
    root = Path(__file__).resolve().parent.parent / "experiments"
    files = sorted(root.glob("*.toml"))
    assert {f.stem for f in files} >= {"default", "lebon_vs_exact", "montreal_vs_super421", "optimal_check"}
    for f in files:
        study = load_study(f)
        assert study.question, f"{f.name} states no question"
        assert study.configs()[0], f"{f.name} has no playable configuration"
    assert load_study(root / "default.toml").fingerprint() == DEFAULT_STUDY.fingerprint()


def test_the_default_study_asks_only_for_what_it_plays():
    """Issue 19/21: no configuration asked for and then skipped; optimal at 2 players only."""
    from four21sim.study.spec import DEFAULT_STUDY
    configs, skipped = DEFAULT_STUDY.configs()
    assert skipped == []
    optimal = {(c.variant.describe(), c.players) for c in configs if "optimal" in c.lineup.label}
    assert {n for _, n in optimal} == {2}
    # 4 presets x 4 player counts x 4 habit line-ups, and 2 optimal line-ups at 2 players
    assert len(configs) == 4 * 4 * 4 + 4 * 2


def test_lineup_players_restricts_a_line_up_and_names_its_mistakes(tmp_path):
    from four21sim.study.spec import Study, load_study
    f = tmp_path / "s.toml"
    f.write_text('name = "s"\nquestion = "q"\nvariants = ["montreal"]\nplayers = [2, 3]\n'
                 'lineups = ["greedy", "one:optimal/greedy"]\n[lineup_players]\n"one:optimal/greedy" = [2]\n')
    study = load_study(f)
    assert sorted((c.players, c.lineup.label) for c in study.configs()[0]) == \
        [(2, "greedy"), (2, "one:optimal/greedy"), (3, "greedy")]
    # the key counts in the fingerprint only when it restricts something
    assert Study(lineup_players={}).fingerprint() == Study().fingerprint() != study.fingerprint()
    base = dict(lineups=("greedy", "optimal"), players=(2, 3))
    for bad, said in [({"sec": [2]}, "'sec' is not a line-up of the study; allowed: greedy, optimal"),
                      ({"optimal": [4]}, "'optimal' = 4 is not allowed; allowed: a list of the study's player "
                                         "counts (2, 3)"),
                      ({"optimal": []}, "'optimal' = [] is not allowed")]:
        with pytest.raises(ValueError, match="^lineup_players: " + re.escape(said)):
            Study(**base, lineup_players=bad)
    # a new grid from the command line is played whole
    assert study.with_changes(players=[3]).lineup_players == {}
