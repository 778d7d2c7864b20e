"""four21sim: strategy analyser for the French bar dice game 421.

Exact single-turn odds (:mod:`four21sim.odds`), the rules as data
(:mod:`four21sim.dice`, :mod:`four21sim.variants`).
"""

from .variants import PRESETS, Variant, get_preset

__version__ = "0.1.0"
__all__ = ["Variant", "PRESETS", "get_preset", "__version__"]
