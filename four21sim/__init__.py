"""four21sim: strategy analyser for the French bar dice game 421.

The package is built in layers (docs/architecture.md), each a subpackage:

- :mod:`four21sim.rules`: dice, hands, variants and presets, the rules kernel;
- :mod:`four21sim.exact`: single-turn odds (:mod:`four21sim.exact.odds`) and the game
  solved exactly (:func:`four21sim.exact.solve`);
- :mod:`four21sim.policies`: the named keep/reroll policies as tables;
- :mod:`four21sim.engine`: the numba Monte Carlo engine, :func:`simulate`;
- :mod:`four21sim.analysis`: tournaments, approximate equilibria, habits;
- :mod:`four21sim.advice`: the advisor, cheat sheets, the page for a phone, a game and a
  trainer at the terminal;
- :mod:`four21sim.env`: a multi-agent environment (PettingZoo) for other programs;
- :mod:`four21sim.study.spec`: studies run into results folders, :func:`load` to read one;
- :mod:`four21sim.cli`: the ``four21sim`` command.
"""

__version__ = "0.1.0"  # before the imports: modules below read it

from ._util import jit as _jit  # noqa: E402  first: NUMBA_NUM_THREADS is checked before numba starts
from .engine.simulation import SimulationResult, simulate  # noqa: E402
from .exact import odds  # noqa: E402
from .rules import dice  # noqa: E402
from .rules.variants import PRESETS, Variant, get_preset  # noqa: E402
from .study.load import Results, load  # noqa: E402

__all__ = ["Variant", "PRESETS", "get_preset", "simulate", "SimulationResult", "load", "Results", "dice", "odds",
           "__version__"]

del _jit
