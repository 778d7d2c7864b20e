"""four21sim: strategy analyser for the French bar dice game 421.

- :mod:`four21sim.dice`, :mod:`four21sim.variants`: the rules as data.
- :mod:`four21sim.odds`: exact single-turn odds and keep advice.
- :func:`simulate`: the numba Monte Carlo engine, with :mod:`four21sim.policies`.
- :mod:`four21sim.advice`: the advisor (round and game answers).
- :func:`load`: a results folder as named DataFrames with its manifest.
"""

from .loader import Results, load
from .simulation import SimulationResult, simulate
from .variants import PRESETS, Variant, get_preset

__version__ = "0.1.0"
__all__ = ["Variant", "PRESETS", "get_preset", "simulate", "SimulationResult", "load", "Results", "__version__"]
