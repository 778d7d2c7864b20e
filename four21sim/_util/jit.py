"""The one place that sets numba options for every kernel of the package."""

from __future__ import annotations

import numba
import numpy as np

# cache=True: a second process loads compiled kernels from __pycache__ instead of
# compiling again. error_model="numpy": no Python-style ZeroDivision checks in loops.
JIT = dict(cache=True, nogil=True, error_model="numpy")
PARALLEL_JIT = dict(JIT, parallel=True)

njit = numba.njit
prange = numba.prange


@njit(inline="always", **JIT)
def ix(i):
    """``i``, known to be >= 0, as an unsigned index.

    numba reads a signed index as possibly negative (Python's ``a[-1]``) and adds a test
    and a select to every access it cannot prove non-negative; an unsigned index needs
    neither. In the engine's game loop those checks took some 13% of the time.
    """
    return np.uint64(i)
