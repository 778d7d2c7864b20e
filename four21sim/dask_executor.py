"""Running a study's tasks on Dask (``pip install four21sim[dist]``).

``--scheduler local:N`` starts a local cluster of N worker processes with one
thread each; ``--scheduler tcp://HOST:PORT`` uses a running scheduler. Each worker
loads the compiled kernels once (a warm-up run on every worker), then runs tasks.
Tasks are deterministic functions of (configuration, seed, game range), so a task
lost with its worker is simply run again by Dask on another worker and gives the
same counters: the result does not change.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["check_scheduler", "run_on_dask", "open_client", "close"]

_LOCAL = re.compile(r"^local:(\d+)$")
_TCP = re.compile(r"^tcp://[^:/\s]+:\d+$")
CONNECT_TIMEOUT = "10s"


def _import_distributed():
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise ValueError("--scheduler: Dask is not installed; allowed: install it with "
                         "pip install 'four21sim[dist]', or run without --scheduler") from None
    return distributed


def check_scheduler(addr: str) -> None:
    """Validate a --scheduler address (ValueError naming the option and what is allowed)."""
    m = _LOCAL.match(addr or "")
    if not (m and int(m.group(1)) >= 1) and not _TCP.match(addr or ""):
        raise ValueError(f"--scheduler: {addr!r} is not allowed; allowed: local:N (N >= 1 workers) or "
                         "tcp://HOST:PORT")
    _import_distributed()


def _worker_setup() -> str:
    import numba
    numba.set_num_threads(1)
    from .runner import warm_up
    warm_up()  # loads the kernels from the cache once per worker process
    return "ready"


def open_client(addr: str):
    """A connected ``distributed.Client`` (and the cluster it started, or None)."""
    distributed = _import_distributed()
    m = _LOCAL.match(addr)
    if m:
        cluster = distributed.LocalCluster(n_workers=int(m.group(1)), threads_per_worker=1, processes=True,
                                           dashboard_address=None, env={"NUMBA_NUM_THREADS": "1"})
        return distributed.Client(cluster), cluster
    try:
        return distributed.Client(addr, timeout=CONNECT_TIMEOUT), None
    except (OSError, TimeoutError) as exc:
        raise ValueError(f"--scheduler: cannot reach {addr!r} ({type(exc).__name__}: {exc}); allowed: the "
                         "address of a running Dask scheduler, or local:N") from None


def _task(config, seed, first_game, games):
    from .tasks import run_task
    return run_task(config, seed, first_game, games, threads=1)


def run_on_dask(client, pending, configs, seed: int, finished: Callable, retries: int = 3) -> None:
    """Run ``pending`` tasks on a connected Dask client, calling ``finished(task, counters)`` as each
    one completes."""
    distributed = _import_distributed()
    from .runner import warm_up
    warm_up()  # compile here first so that workers on this machine only read the cache
    client.run(_worker_setup)
    futures = {}
    for t in pending:
        c = configs[t.config]
        fut = client.submit(_task, c, seed, t.first_game, t.games, key=f"four21-{c.key}-{t.block:06d}",
                            pure=False, retries=retries)
        futures[fut] = t
    for fut in distributed.as_completed(list(futures)):
        finished(futures[fut], fut.result())


def close(client, cluster) -> None:
    client.close()
    if cluster is not None:
        cluster.close()
