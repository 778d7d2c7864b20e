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

# The public names, imported when first used (PEP 562): a command (``four21sim --version``,
# ``four21sim advise``) and every worker process pay only for the modules they run, not for
# the engine, pandas and scipy each time the package is imported. name -> (module, attribute;
# None: the module itself).
_LAZY = {
    "Variant": (".rules.variants", "Variant"),
    "PRESETS": (".rules.variants", "PRESETS"),
    "get_preset": (".rules.variants", "get_preset"),
    "simulate": (".engine.simulation", "simulate"),
    "SimulationResult": (".engine.simulation", "SimulationResult"),
    "load": (".study.load", "load"),
    "Results": (".study.load", "Results"),
    "dice": (".rules.dice", None),
    "odds": (".exact.odds", None),
}

__all__ = ["Variant", "PRESETS", "get_preset", "simulate", "SimulationResult", "load", "Results", "dice", "odds",
           "__version__"]


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module, attribute = _LAZY[name]
    value = importlib.import_module(module, __name__)
    if attribute is not None:
        value = getattr(value, attribute)
    globals()[name] = value  # once: the next use is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


del _jit
