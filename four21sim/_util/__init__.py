"""Helpers every layer may use, importing nothing of the package: atomic writes
(:mod:`.atomic`), the numba options (:mod:`.jit`), display helpers (:mod:`.display`)
and the checks of arguments (:mod:`.checks`)."""
