"""Exact results: single-turn odds (:mod:`.odds`), the game solved at 2 players
(:mod:`.two_player`), 3 players (:mod:`.solver3`) and 2 to 6 players (:mod:`.nplayer`:
equilibria, their certificates, best responses to tables), the value of leading
(:mod:`.leading`), and the disk store of solutions (:mod:`.store`).

:func:`solve` is the one entry point for the game at any player count it reaches.
This layer reads the rules and nothing above them: it never imports the engine,
the policies or the studies. :mod:`.nplayer` (scipy, its numba kernels) is imported
when first used: ``import four21sim`` does not pay for it.
"""

from . import leading, odds, solver3, store, two_player
from .game import solve

__all__ = ["odds", "two_player", "solver3", "nplayer", "leading", "store", "solve"]
