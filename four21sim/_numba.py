"""The one place that sets numba options for every kernel of the package."""

from __future__ import annotations

import numba

# cache=True: a second process loads compiled kernels from __pycache__ instead of
# compiling again. error_model="numpy": no Python-style ZeroDivision checks in loops.
JIT = dict(cache=True, nogil=True, error_model="numpy")
PARALLEL_JIT = dict(JIT, parallel=True)

njit = numba.njit
prange = numba.prange
