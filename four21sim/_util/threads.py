"""Items of work shared among threads: the package's kernels release the GIL (``nogil``), so
plain Python threads run them side by side.

Why not numba's ``parallel=True``: a ``prange`` loop around a large kernel compiles that kernel
again inside numba's parallel region. The five such loops of the package (one line each) cost
some 40 s of compile on a fresh clone, and a first ``solve`` or simulation waited for them; a
thread pool compiles nothing. What each thread runs is a serial kernel over a range of items.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

__all__ = ["split_over_threads"]


def split_over_threads(n: int, threads: int, work: Callable[[int, int, int], None], chunk: int = 1) -> None:
    """Run ``work(lo, hi, t)`` over the items ``0 .. n-1``, on up to ``threads`` threads.

    Items go ``chunk`` at a time, in order, to whichever thread is free (a thread slowed by
    another process holds nobody up); ``t`` (0 to threads-1) is the thread's slot, for work
    arrays of its own. What an item gives must depend on the item alone, never on ``t`` or on
    the order: then the results are the same whatever the number of threads. One thread: one
    call ``work(0, n, 0)`` in the calling thread. An exception in any thread stops the others
    after their current range and is raised here.
    """
    if n <= 0:
        return
    chunk = max(1, int(chunk))
    threads = max(1, min(int(threads), -(-n // chunk)))
    if threads == 1:
        work(0, n, 0)
        return
    lock = threading.Lock()
    state = {"next": 0}
    errors: list[BaseException] = []

    def run(t: int) -> None:
        while True:
            with lock:
                lo = state["next"]
                if lo >= n or errors:
                    return
                hi = min(n, lo + chunk)
                state["next"] = hi
            try:
                work(lo, hi, t)
            except BaseException as exc:  # raised again in the caller's thread
                with lock:
                    errors.append(exc)
                return

    # daemon: a command stopped by a signal ends its process at once (waiting.exit_now), kernels and all
    pool = [threading.Thread(target=run, args=(t,), name=f"four21sim-{t}", daemon=True) for t in range(1, threads)]
    for th in pool:
        th.start()
    run(0)  # the calling thread is one of them
    for th in pool:
        th.join()
    if errors:
        raise errors[0]
