"""The Monte Carlo engine: the random stream, the counters a game leaves
(:mod:`.layout`), the numba game kernels, :func:`simulate` and its results, and the
statistics of its measures (:mod:`.stats`).

Besides :func:`simulate`, the steps of docs/engine.md that a game played one decision
at a time needs (:mod:`four21sim.advice.play`) are public names here: the stream
(``new_state``, ``start_game``, ``mix64``, ``throw3``, ``rethrow``), a decision's ``context`` row and
``judge``; and ``ENGINE_CONTRACT``, the version of the games a seed plays.
"""

from . import layout, stats
from ._kernels import ENGINE_CONTRACT, KIND_TABLE, context, judge
from ._stream import mix64, new_state, rethrow, start_game, throw3
from .simulation import LONG_RUN_SECONDS, LongRunWarning, SimulationResult, simulate

__all__ = ["layout", "stats", "simulate", "SimulationResult", "LongRunWarning", "LONG_RUN_SECONDS",
           "ENGINE_CONTRACT", "KIND_TABLE", "context", "judge",
           "mix64", "new_state", "rethrow", "start_game", "throw3"]
