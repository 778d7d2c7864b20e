"""Items shared among threads (``_util.threads.split_over_threads``), what replaced numba's parallel loops."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from four21sim._util.threads import split_over_threads


@pytest.mark.parametrize("n,threads,chunk", [(1, 1, 1), (10, 1, 1), (10, 2, 1), (97, 3, 4), (5, 8, 1), (7, 2, 100)])
def test_every_item_is_worked_once_by_a_thread_of_its_own_slot(n, threads, chunk):
    seen = np.zeros(n, np.int64)
    slots: dict[int, set] = {}
    lock = threading.Lock()

    def work(lo, hi, t):
        assert 0 <= lo < hi <= n and 0 <= t < threads
        with lock:
            slots.setdefault(t, set()).add(threading.get_ident())
            seen[lo:hi] += 1
        assert hi - lo <= (n if threads == 1 or -(-n // chunk) == 1 else chunk)

    split_over_threads(n, threads, work, chunk)
    assert (seen == 1).all()
    # a slot is one thread's (its work arrays are never shared), and no more slots than asked or than ranges
    assert all(len(ids) == 1 for ids in slots.values())
    assert len(slots) <= min(threads, -(-n // chunk))


def test_one_thread_is_one_call_in_the_callers_thread():
    calls = []
    split_over_threads(12, 1, lambda lo, hi, t: calls.append((lo, hi, t, threading.get_ident())))
    assert calls == [(0, 12, 0, threading.get_ident())]


def test_nothing_to_do_calls_nothing():
    split_over_threads(0, 4, lambda lo, hi, t: pytest.fail("called"))


def test_an_error_in_a_thread_is_raised_in_the_caller_and_stops_the_rest():
    done = []

    def work(lo, hi, t):
        if lo == 3:
            raise ZeroDivisionError("item 3")
        time.sleep(0.001)  # (the GIL let go: the failing thread runs at once)
        done.append(lo)

    with pytest.raises(ZeroDivisionError, match="item 3"):
        split_over_threads(1000, 2, work)
    assert len(done) < 999  # the others stopped after their current item
