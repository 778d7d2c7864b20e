"""The one place that sets numba options for every kernel of the package.

It is also where numba is first imported: ``NUMBA_NUM_THREADS`` is checked here, before
numba reads it (numba fails with a traceback inside ``import four21sim`` for 0, and
for a value that is not an integer prints a parse traceback as a warning and ignores it).
"""

from __future__ import annotations

import os
import re
import sys

__all__ = ["JIT", "njit", "ix", "check_threads_env", "THREADS_PER_CORE"]

THREADS_PER_CORE = 4
"""``NUMBA_NUM_THREADS`` allowed per core: more threads than that only cost memory and time."""


def check_threads_env(environ=None) -> None:
    """ValueError naming ``NUMBA_NUM_THREADS`` if it is set to something numba should not start with.

    Allowed: unset (numba takes one thread per core), or an integer from 1 to
    :data:`THREADS_PER_CORE` per core of this machine.
    """
    environ = os.environ if environ is None else environ
    value = environ.get("NUMBA_NUM_THREADS")
    if value is None:
        return
    cores = os.cpu_count() or 1
    limit = THREADS_PER_CORE * cores
    if not re.fullmatch(r"\s*[0-9]{1,9}\s*", value) or not 1 <= int(value) <= limit:
        raise ValueError(f"NUMBA_NUM_THREADS: {value!r} is not allowed; allowed: an integer from 1 to {limit} "
                         f"({THREADS_PER_CORE} per core of this machine's {cores}), or unset (one thread per core)")


def _a_command_is_starting() -> bool:
    """Whether this process is one of the package's commands (``four21sim ...``, ``python -m four21sim[.X]``)."""
    argv = list(getattr(sys, "orig_argv", None) or ())
    if "-m" in argv[1:]:
        i = argv.index("-m", 1)
        module = argv[i + 1] if i + 1 < len(argv) else ""
        return module == "four21sim" or module.startswith("four21sim.")
    return bool(sys.argv) and os.path.basename(sys.argv[0]) == "four21sim"


def _refuse_a_bad_threads_env() -> None:
    """A command: the one-line error and exit status 2; a program importing the package: ImportError."""
    try:
        check_threads_env()
    except ValueError as exc:
        if _a_command_is_starting():
            print(f"four21sim: error: {exc}", file=sys.stderr)
            raise SystemExit(2) from None
        raise ImportError(f"four21sim: {exc}") from None


_refuse_a_bad_threads_env()

import numba  # noqa: E402  (after the check: numba reads NUMBA_NUM_THREADS when imported)
import numpy as np  # noqa: E402

# cache=True: a second process loads compiled kernels from __pycache__ instead of
# compiling again. numba keys a kernel's cache on its own file only: a change to a function
# it calls in another module (compiled into it, as the engine's steps are) leaves the old
# code in its cache, so such a change also edits the callers' files (their docstrings say
# what they read), which makes numba compile them again.
# error_model="numpy": no Python-style ZeroDivision checks in loops.
# nogil: threads run kernels side by side (_util/threads.py; no kernel uses numba's parallel=True,
# which compiles what a parallel loop calls once more).
JIT = dict(cache=True, nogil=True, error_model="numpy")

njit = numba.njit


@njit(inline="always", **JIT)
def ix(i):
    """``i``, known to be >= 0, as an unsigned index.

    numba reads a signed index as possibly negative (Python's ``a[-1]``) and adds a test
    and a select to every access it cannot prove non-negative; an unsigned index needs
    neither. In the engine's game loop those checks took some 13% of the time.
    """
    return np.uint64(i)
