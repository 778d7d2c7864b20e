"""What runs a study's tasks: this process, local worker processes, or Dask.

Every executor runs the same task function, :func:`work`, and hands each finished
task to ``finished(task, counters)`` in the parent process, which writes its part
file at once: an interrupted run loses only the tasks in flight.

Local worker processes die with their parent: each asks the kernel to kill it when
its parent dies (``PR_SET_PDEATHSIG`` on Linux) and also watches its parent's
process id, ignores SIGINT (the parent decides), and on any error or signal in the
parent, :func:`run_processes` kills them before returning.

Dask (``pip install four21sim[dist]``): ``local:N`` starts a local cluster of N
single-threaded worker processes; ``tcp://HOST:PORT`` uses a running scheduler.
Before a client connects, the peer must answer like a Dask scheduler within
``CONNECT_TIMEOUT`` seconds (:func:`probe_scheduler`), so a wrong address fails in
one line instead of hanging. Tasks are deterministic functions of (configuration,
seed, game range): a task lost with its worker is run again on another and gives the
same counters.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import re
import signal
import socket
import struct
import sys
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

from .tasks import Task, run_task

__all__ = ["work", "build_policy", "warm_policy", "warm_policies", "warm_up", "run_in_process", "run_processes",
           "check_scheduler", "check_workers", "max_workers", "open_client", "run_on_dask", "close", "probe_scheduler",
           "CONNECT_TIMEOUT", "WORKERS_PER_CORE"]

CONNECT_TIMEOUT = 10.0
WORKERS_PER_CORE = 4
"""Local workers (``--workers``, ``local:N``) allowed per core: more only costs memory (each worker
process holds its own interpreter, kernels and policies, some 200 MB) and time."""
_LOCAL = re.compile(r"^local:(\d+)$")
_TCP = re.compile(r"^tcp://([^:/\s]{1,253}):(\d{1,5})$")
_PR_SET_PDEATHSIG = 1
_POLL = 0.2  # seconds between two looks at a held signal


def work(config, seed: int, first_game: int, games: int, max_rounds: int) -> dict:
    """The task function of every worker (local process or Dask): one numba thread."""
    return run_task(config, seed, first_game, games, threads=1, max_rounds=max_rounds)


def build_policy(variant, players: int, name: str) -> str:
    """Build a policy in this worker (a costly one solves, and fills the disk cache for the others)."""
    from ..policies import compile_policy
    compile_policy(name, variant, players)
    return name


def warm_policy(variant, players: int, name: str) -> str:
    """Do the shareable part of a costly policy's build (:attr:`PolicySpec.warm`) in this process."""
    from ..policies import check_available
    spec = check_available(name, variant, players)
    if spec.warm is not None:
        spec.warm(variant, players)
    return name


def warm_policies(items: list, processes: int, done: Callable | None = None) -> None:
    """Solve the costly policies ``items`` (``(variant, players, name)``) before the games, calling
    ``done(item)`` as each one is ready.

    With the disk cache on, two or more are solved side by side in up to ``processes``
    child processes (one numba thread each), and this process then reads them from the
    cache. The children are fresh interpreters started with ``python -c``, not
    multiprocessing workers: they never import the caller's ``__main__``, so a script
    without an ``if __name__ == "__main__"`` guard works too. A child that fails is
    ignored (the build then happens here, in turn, and reports its own errors).
    Otherwise they are solved here, one after the other.
    """
    from ..exact.store import cache_dir
    from ..policies import check_available
    done = done or (lambda item: None)
    shared = [it for it in items if check_available(it[2], it[0], it[1]).warm is not None]
    for it in items:
        if it not in shared:
            done(it)  # nothing to solve ahead (e.g. the 2-player optimum, built in seconds)
    if len(shared) < 2 or processes < 2 or cache_dir() is None:
        for it in shared:
            warm_policy(*it)
            done(it)
        return
    _warm_children(shared, processes, done)


def _warm_children(items: list, processes: int, done: Callable) -> None:
    import json
    import subprocess
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    code = "import sys; from four21sim.study.executors import _warm_child; _warm_child(sys.argv[1])"
    todo = list(items)
    running: dict = {}
    try:
        while todo or running:
            while todo and len(running) < processes:
                v, n, name = item = todo.pop(0)
                arg = json.dumps({"options": v.options(), "players": n, "name": name, "parent": os.getpid()})
                running[subprocess.Popen([sys.executable, "-c", code, arg], env=env, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)] = item
            while all(p.poll() is None for p in running):
                threading.Event().wait(0.1)
            for p in [p for p in running if p.poll() is not None]:
                done(running.pop(p))
    finally:
        for p in running:
            p.kill()
            p.wait()


def _warm_child(spec: str) -> None:
    """Entry point of a child of :func:`warm_policies`."""
    import json

    from ..rules.variants import Variant
    d = json.loads(spec)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides, and kills its children
    _die_with_parent(int(d["parent"]))
    warm_policy(Variant(**d["options"]), int(d["players"]), d["name"])


def warm_up() -> None:
    """Compile (or load) the kernels once in this process, before any worker starts.

    Workers then load the cache instead of compiling, and never write it concurrently.
    """
    from ..engine.simulation import simulate
    # the 2-player kernel and the n-player one: a study of 3 players or more compiled the second
    # in the middle of its games (some 25 s with the bar at 0% and a wild ETA)
    for players in (2, 3):
        simulate("super421", players, "sec", games=64, seed=0, records=True)
        simulate("super421", players, "sec", games=64, seed=0)


# ------------------------------------------------------------------ this process
def run_in_process(plan, pending: list[Task], finished: Callable) -> None:
    """Run the tasks of ``plan`` here, numba using every core."""
    for t in pending:
        finished(t, run_task(plan.config(t), plan.seed, t.first_game, t.games, max_rounds=plan.max_rounds))


# ------------------------------------------------------------------ local processes
def _die_with_parent(parent: int) -> None:
    """Make this worker exit as soon as ``parent`` is gone, whatever the way it died."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the watchdog below still works

    def watch() -> None:
        while os.getppid() == parent:
            threading.Event().wait(0.5)
        os._exit(1)

    if os.getppid() != parent:  # died before the death signal was armed
        os._exit(1)
    threading.Thread(target=watch, daemon=True, name="four21sim-parent-watch").start()


def _worker_init(parent: int) -> None:
    import numba
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the parent decides
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked since the spawn (_start_workers)
    _die_with_parent(parent)
    numba.set_num_threads(1)  # one thread per worker process: no oversubscription


class _HeldSignals:
    """SIGINT and SIGTERM held while a pool runs, acted on between two steps.

    A signal raised at any bytecode could land inside the pool's own code (a worker half
    spawned, its start-up data cut short: a traceback from the child, a worker the pool
    does not know and the exit waits for). Held, it only sets a flag; the loops below
    poll it (:meth:`check`), the pool is killed whole, and the signal is raised again on
    the way out, to the handler that was there before (the command's: exit 143 or 130;
    Python's: KeyboardInterrupt; the default: the process ends).
    """

    def __init__(self) -> None:
        self.caught: int | None = None
        self.before: dict = {}

    def __enter__(self) -> _HeldSignals:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                before = signal.getsignal(sig)
                if before is not signal.SIG_IGN and before is not None:
                    self.before[sig] = signal.signal(sig, self._catch)
        return self

    def _catch(self, signum, frame) -> None:
        if self.caught is None:
            self.caught = signum

    def check(self) -> None:
        if self.caught is not None:
            raise _Stopped

    def __exit__(self, kind, exc, tb) -> bool:
        for sig, before in self.before.items():
            signal.signal(sig, before)
        if self.caught is None:
            return False
        try:
            signal.raise_signal(self.caught)  # the handler before ours raises (or the process ends)
        except BaseException as raised:
            raise raised from None
        raise KeyboardInterrupt  # a handler that did not raise: the pool is gone all the same


class _Stopped(Exception):
    """A held signal arrived: the pool is to be killed."""


def _results(futures, held: _HeldSignals):
    """Yield ``futures`` as they complete (their results), checking ``held`` a few times a second."""
    todo = set(futures)
    while todo:
        held.check()
        done, todo = wait(todo, timeout=_POLL, return_when=FIRST_COMPLETED)
        for fut in done:
            yield fut, fut.result()


def _start_workers(pool: ProcessPoolExecutor, workers: int, held: _HeldSignals) -> None:
    """Start every worker now (the pool spawns one per submit while none is idle), so that none
    is still starting when a long build ends and the tasks begin.

    A child inherits the blocked signals of the thread that spawns it: SIGINT blocked here
    stays blocked in the worker until :func:`_worker_init` ignores it, so a Ctrl-C that
    reaches the whole group while a worker is still importing is no traceback from it. In
    this process the signal waits, and is then held like any other.
    """
    mask = getattr(signal, "pthread_sigmask", None)  # POSIX
    before = mask(signal.SIG_BLOCK, {signal.SIGINT}) if mask else None
    try:
        started = [pool.submit(os.getpid) for _ in range(workers)]
    finally:
        if mask:
            mask(signal.SIG_SETMASK, before)
    for _ in _results(started, held):
        pass


def run_processes(plan, pending: list[Task], workers: int, finished: Callable, prebuild: list | None = None,
                  built: Callable | None = None) -> None:
    """Run the tasks on ``workers`` local processes (spawned, one numba thread each).

    ``prebuild``: ``(variant, players, policy name)`` of costly policies, built first, one
    per worker at a time, so that their solves run side by side and the disk cache
    (:mod:`four21sim.exact.store`) holds them before the tasks need them; ``built(item)``
    is called as each is ready. SIGINT and SIGTERM stop every worker, then reach the
    handler that was in place (:class:`_HeldSignals`).
    """
    warm_up()
    ctx = multiprocessing.get_context("spawn")  # no fork after numba's threads have started
    env_before = os.environ.get("NUMBA_NUM_THREADS")
    # workers are spawned lazily, at submit: the variable must stay set until the pool is done
    os.environ["NUMBA_NUM_THREADS"] = "1"
    try:
        with _HeldSignals() as held:
            pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init,
                                       initargs=(os.getpid(),))
            try:
                _start_workers(pool, workers, held)
                builds = {pool.submit(build_policy, *item): item for item in prebuild or ()}
                for fut, _ in _results(builds, held):
                    if built is not None:
                        built(builds[fut])
                _feed(pool, plan, pending, 2 * workers, finished, held)
                held.check()
            except BaseException:
                _kill_pool(pool)
                raise
            pool.shutdown(wait=True)
    finally:
        if env_before is None:
            os.environ.pop("NUMBA_NUM_THREADS", None)
        else:
            os.environ["NUMBA_NUM_THREADS"] = env_before


def _feed(pool, plan, pending: list[Task], in_flight: int, finished: Callable, held: _HeldSignals) -> None:
    """Keep a bounded number of tasks in flight (an interrupt loses at most these)."""
    todo = list(pending)
    running = {}
    while todo or running:
        while todo and len(running) < in_flight:
            t = todo.pop(0)
            running[pool.submit(work, plan.config(t), plan.seed, t.first_game, t.games, plan.max_rounds)] = t
        held.check()
        done, _ = wait(running, timeout=_POLL, return_when=FIRST_COMPLETED)
        for fut in done:
            held.check()  # a signal during the last write stops here, not after every task done with it
            t = running.pop(fut)
            finished(t, fut.result())


def _kill_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now: its workers are killed, not left to finish their tasks.

    The pool's manager thread is then waited for (a few seconds at most): it holds the last
    references to the pool's queues, whose semaphores it releases as it ends. A command
    stopped by a signal ends by ``os._exit`` (:func:`four21sim._util.waiting.exit_now`); ended
    between a semaphore's removal and its notice to multiprocessing's resource tracker, the
    tracker printed two warnings of a "leaked" semaphore after the command's last line.
    """
    procs = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)  # None once shut down
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        if p.is_alive():
            p.kill()
    for p in procs:
        p.join(timeout=5)
    if manager is not None:
        manager.join(timeout=5)


# ------------------------------------------------------------------ Dask
def _import_distributed():
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise ValueError("--scheduler: Dask is not installed; allowed: install it with "
                         "pip install 'four21sim[dist]', or run without --scheduler") from None
    return distributed


def max_workers() -> int:
    """The most local workers allowed: ``WORKERS_PER_CORE`` per core of this machine."""
    return WORKERS_PER_CORE * (os.cpu_count() or 1)


def check_workers(workers, option: str = "--workers") -> int:
    """``workers`` if it is an integer from 1 to :func:`max_workers`; ValueError naming the limit."""
    from .._util.checks import check_int
    limit = max_workers()
    return check_int(option, workers, 1, limit, f"an integer from 1 to {limit} ({WORKERS_PER_CORE} per core "
                     f"of this machine's {os.cpu_count() or 1})")


def check_scheduler(addr: str) -> None:
    """Validate a --scheduler address (ValueError naming the option and what is allowed)."""
    m = _LOCAL.match(addr or "")
    if m or (addr or "").startswith("local:"):
        n = int(m.group(1)) if m and len(m.group(1)) <= 18 else -1
        if not 1 <= n <= max_workers():
            raise ValueError(f"--scheduler: {addr!r} is not allowed; allowed: local:N with N from 1 to "
                             f"{max_workers()} ({WORKERS_PER_CORE} per core of this machine's {os.cpu_count() or 1}), "
                             "or tcp://HOST:PORT")
    elif not _TCP.match(addr or "") or int(_TCP.match(addr).group(2)) > 65535:
        raise ValueError(f"--scheduler: {addr!r} is not allowed; allowed: local:N (N from 1 to {max_workers()}) "
                         "or tcp://HOST:PORT (PORT up to 65535)")
    _import_distributed()


def _recv_exactly(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("the connection was closed")
        data += chunk
    return data


def probe_scheduler(addr: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """Check that ``tcp://HOST:PORT`` answers like a Dask scheduler, within ``timeout`` seconds.

    A Dask server speaks first: on a new connection it sends its handshake, one
    message framed as ``<uint64 length><uint64 frame count><uint64 frame lengths>...``.
    Anything else (silence, an HTTP server, garbage, a closed port) is a ValueError.
    """
    host, port = _TCP.match(addr).groups()
    what = f"--scheduler: {addr!r}"
    try:
        with socket.create_connection((host, int(port)), timeout=timeout) as sock:
            sock.settimeout(timeout)
            (size,) = struct.unpack("<Q", _recv_exactly(sock, 8))
            if not 16 <= size <= 1 << 20:
                raise ValueError(f"{what} is not a Dask scheduler (it answered something else); allowed: the "
                                 "address of a running Dask scheduler, or local:N")
            body = _recv_exactly(sock, size)
    except socket.timeout:
        raise ValueError(f"{what} did not answer as a Dask scheduler within {timeout:g} s; allowed: the address "
                         "of a running Dask scheduler, or local:N") from None
    except OSError as exc:
        raise ValueError(f"{what}: cannot reach it ({exc.strerror or exc}); allowed: the address of a running "
                         "Dask scheduler, or local:N") from None
    (frames,) = struct.unpack("<Q", body[:8])
    lengths = struct.unpack(f"<{frames}Q", body[8:8 + 8 * frames]) if 1 <= frames <= (size - 8) // 8 else None
    if lengths is None or 8 + 8 * frames + sum(lengths) != size:
        raise ValueError(f"{what} is not a Dask scheduler (it answered something else); allowed: the address of "
                         "a running Dask scheduler, or local:N")


class _HeldLogs:
    """The log records of distributed and tornado held while a client connects: replayed if it
    connects, dropped if it fails (a peer that answers the handshake then sends junk made
    distributed log a CRITICAL traceback, before the one-line error that says it all)."""

    def __init__(self) -> None:
        self.held: list = []
        self.replay = False
        self.handlers: list = []

    def __enter__(self) -> _HeldLogs:
        names = [n for n in list(logging.root.manager.loggerDict) if n.split(".")[0] in ("distributed", "tornado")]
        found = [h for n in names for h in getattr(logging.getLogger(n), "handlers", ())]
        found += logging.root.handlers + ([logging.lastResort] if logging.lastResort else [])
        for h in dict.fromkeys(found):
            held = _HeldBy(self, h)
            h.addFilter(held)
            self.handlers.append((h, held))
        return self

    def __exit__(self, *exc) -> None:
        for h, held in self.handlers:
            h.removeFilter(held)
        if self.replay:
            for h, record in self.held:
                h.handle(record)


class _HeldBy(logging.Filter):
    """The filter :class:`_HeldLogs` puts on one handler: holds its records."""

    def __init__(self, logs: _HeldLogs, handler: logging.Handler) -> None:
        super().__init__()
        self.logs, self.handler = logs, handler

    def filter(self, record) -> bool:
        self.logs.held.append((self.handler, record))
        return False


def open_client(addr: str, timeout: float = CONNECT_TIMEOUT):
    """A connected ``distributed.Client`` (and the cluster it started, or None)."""
    distributed = _import_distributed()
    m = _LOCAL.match(addr)
    if m:
        cluster = distributed.LocalCluster(n_workers=int(m.group(1)), threads_per_worker=1, processes=True,
                                           dashboard_address=None, env={"NUMBA_NUM_THREADS": "1"})
        return distributed.Client(cluster), cluster
    probe_scheduler(addr, timeout)
    # the probe saw a Dask handshake; a peer could still stall later: bound the whole connection
    box: dict = {}

    def connect() -> None:
        try:
            box["client"] = distributed.Client(addr, timeout=f"{timeout}s")
        except BaseException as exc:  # noqa: BLE001  reported below, in one line
            box["error"] = exc

    th = threading.Thread(target=connect, daemon=True, name="four21sim-dask-connect")
    with _HeldLogs() as logs:
        th.start()
        th.join(2 * timeout)
        logs.replay = "client" in box  # a failure is the one line below, not distributed's traceback too
    if "client" in box:
        return box["client"], None
    why = (f"{type(box['error']).__name__}: {box['error']}" if "error" in box
           else f"no answer within {2 * timeout:g} s")
    raise ValueError(f"--scheduler: cannot connect to {addr!r} ({why}); allowed: the address of a running Dask "
                     "scheduler, or local:N")


def _worker_setup() -> str:
    import numba
    numba.set_num_threads(1)
    warm_up()  # loads the kernels from the cache once per worker process
    return "ready"


def run_on_dask(client, plan, pending: list[Task], finished: Callable, retries: int = 3) -> None:
    """Run ``pending`` tasks on a connected Dask client, calling ``finished(task, counters)`` as each
    one completes."""
    distributed = _import_distributed()
    warm_up()  # compile here first so that workers on this machine only read the cache
    client.run(_worker_setup)
    futures = {}
    for t in pending:
        c = plan.config(t)
        fut = client.submit(work, c, plan.seed, t.first_game, t.games, plan.max_rounds,
                            key=f"four21-{t.config}-{c.key}-{t.block:06d}", pure=False, retries=retries)
        futures[fut] = t
    for fut in distributed.as_completed(list(futures)):
        finished(futures[fut], fut.result())


def close(client, cluster) -> None:
    client.close()
    if cluster is not None:
        cluster.close()
