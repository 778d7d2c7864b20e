"""Test-session settings shared by every test file."""

import os
import tempfile

# Solutions cached on disk (four21sim.exact.store) go to a folder of this session's own, inherited
# by the command lines the tests start: a stale or damaged cache of the user's can neither
# help nor break a test, and the suite leaves nothing behind in the user's cache.
# The xdist workers share the folder the controller made (they inherit its environment): a game
# solved by one worker is read by the other instead of being solved twice (entries are written
# atomically and verified on reading, as for any user's concurrent processes).
_SHARED = os.environ.get("FOUR21SIM_TEST_CACHE_DIR", "")
if os.environ.get("PYTEST_XDIST_WORKER") and os.path.isdir(_SHARED):
    os.environ["FOUR21SIM_CACHE_DIR"] = _SHARED
else:
    _CACHE = tempfile.TemporaryDirectory(prefix="four21sim-test-cache-")
    os.environ["FOUR21SIM_CACHE_DIR"] = os.environ["FOUR21SIM_TEST_CACHE_DIR"] = _CACHE.name

# The Ctrl-C tests (test_sweep.py, test_folder_attacks.py, test_play.py) need SIGINT to reach the
# processes they signal. A suite started in the background of a shell without job control
# (`pytest &` in a script, nohup, some CI runners) inherits SIGINT *ignored*, every command it
# starts inherits that across exec, and a sweep that finds SIGINT ignored rightly keeps it so:
# those tests then failed (exit 0 instead of 130) only when the suite ran in the background.
# Python's own handler, as in a foreground shell, makes them test what they say in any case.
import signal  # noqa: E402

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


import pytest  # noqa: E402


# The studies several test files compare with, each run once per process (per xdist worker) here:
# a fixture defined (or re-bound) in a test file is that file's own, and ran its study again.
@pytest.fixture(scope="session")
def tiny_ref(tmp_path_factory):
    """The tiny study (tests/sweep_runs.py: TINY) run once, in this process (``--workers 1``)."""
    from sweep_runs import TINY, run_inproc
    out = tmp_path_factory.mktemp("tiny") / "ref"
    assert run_inproc([*TINY, "--out", out, "--quiet"]) == 0
    return out


@pytest.fixture(scope="session")
def slow_ref(tmp_path_factory):
    """The slow study (tests/sweep_runs.py: SLOW) run once, uninterrupted, in this process."""
    from sweep_runs import SLOW, SLOW_TASKS, manifest, run_inproc
    out = tmp_path_factory.mktemp("slow") / "ref"
    assert run_inproc([*SLOW, "--out", out, "--quiet"]) == 0
    assert manifest(out)["tasks_run"] == SLOW_TASKS
    return out


def pytest_configure(config):
    """In the xdist controller, before the workers start: compile the kernels once (tests/numba_warmup.py).

    Two processes side by side, each about half of the kernels, so that the workers load compiled
    code from numba's cache instead of both compiling the same kernels at once. A failure
    here is not the tests' business (they report whatever is wrong); it only costs the time.
    """
    if os.environ.get("PYTEST_XDIST_WORKER") or not getattr(config.option, "numprocesses", None) \
            or config.option.collectonly or os.environ.get("NUMBA_DISABLE_JIT", "0") != "0":
        return  # (without numba's compiler the warm-up would only play small games slowly)
    import subprocess
    import sys
    import time
    from pathlib import Path

    from numba_warmup import PARTS
    script = Path(__file__).with_name("numba_warmup.py")
    # said before the wait, not after: pytest's own header comes only once this hook returns
    _say(config, "compiling the package's numba kernels once, before the test workers start "
                 "(about a minute on a fresh clone, a few seconds from numba's cache) ...")
    t0 = time.monotonic()
    procs = [subprocess.Popen([sys.executable, str(script), part], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL) for part in PARTS]
    deadline = time.monotonic() + 900  # a hung warm-up must not hang the suite
    for p in procs:
        try:
            p.wait(timeout=max(deadline - time.monotonic(), 0))
        except subprocess.TimeoutExpired:
            p.kill()
    _say(config, f"kernels ready in {time.monotonic() - t0:.0f} s")


def _say(config, text: str) -> None:
    """One line on the terminal now, past pytest's output capture (which holds back what a hook prints)."""
    import sys
    capman = config.pluginmanager.getplugin("capturemanager")
    if capman is None:
        print(f"four21sim tests: {text}", file=sys.stderr, flush=True)
        return
    with capman.global_and_fixture_disabled():
        print(f"four21sim tests: {text}", file=sys.stderr, flush=True)


# The default site, `four21sim site --out table-site` as the README and docs/site.md run it: some
# 50 s (most of it the 6-player game's contexts), which three test
# files need (the README's answer, the docs' example, the browser tests). Built once per suite run,
# by the first worker to ask; the other waits for it and reads the same folder and output (the
# pattern of pytest-xdist's docs, "making session-scoped fixtures execute only once"). Without
# xdist, once per process.
DEFAULT_SITE = ("site", "--out", "table-site")


@pytest.fixture(scope="session")
def default_site(tmp_path_factory, worker_id):
    """``(folder, process)``: the default build, written by the command as a user runs it (from a
    folder of its own: ``--out table-site``), and the finished process (its arguments, exit status,
    output)."""
    import fcntl
    import json
    import subprocess
    import sys

    def build(where):
        where.mkdir(parents=True, exist_ok=True)
        p = subprocess.run([sys.executable, "-m", "four21sim", *DEFAULT_SITE], cwd=where, capture_output=True,
                           text=True, timeout=1200)
        return {"args": p.args, "returncode": p.returncode, "stdout": p.stdout, "stderr": p.stderr}

    if worker_id == "master":
        where = tmp_path_factory.mktemp("default-site")
        done = build(where)
    else:
        # the folder every worker of this run shares (pytest-N/, above each worker's popen-gwK/)
        where = tmp_path_factory.getbasetemp().parent / "default-site"
        where.mkdir(exist_ok=True)
        record = where / "process.json"
        with open(where / "lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if record.exists():
                done = json.loads(record.read_text())
            else:
                done = build(where)
                record.write_text(json.dumps(done))
    return where / DEFAULT_SITE[-1], subprocess.CompletedProcess(**done)


# Two more studies several test files read, each run once per process (per xdist worker).
@pytest.fixture(scope="session")
def tiny_seed8(tmp_path_factory):
    """The tiny study with seed 8 instead of 7, run once in this process: another seed's numbers
    (tests/test_sweep.py) and the honest run a relabelled folder must equal (test_results_integrity.py)."""
    from sweep_runs import TINY, run_inproc
    assert TINY[-2:] == ["--seed", "7"]
    out = tmp_path_factory.mktemp("tiny8") / "ref"
    assert run_inproc([*TINY[:-1], "8", "--out", out, "--quiet"]) == 0
    return out


@pytest.fixture(scope="session")
def small_ref(tmp_path_factory):
    """The one-configuration study (tests/sweep_runs.py: S) run once in this process: a finished
    results folder for the attacks of test_folder_attacks.py and test_hard_links.py to copy."""
    from sweep_runs import S, run_inproc
    out = tmp_path_factory.mktemp("small") / "ref"
    assert run_inproc([*S, "--out", out]) == 0
    return out
