"""Exact results: single-turn odds (:mod:`.odds`), the game solved at 2 players
(:mod:`.two_player`) and at 2 to 6 players (:mod:`.nplayer`: equilibria, their
certificates, best responses to tables; :func:`solve` reads it from 3 players), the value of leading
(:mod:`.leading`), and the disk store of solutions (:mod:`.store`).

:func:`solve` is the one entry point for the game at any player count it reaches.
This layer reads the rules and nothing above them: it never imports the engine,
the policies or the studies. :mod:`.nplayer` (scipy, its numba kernels) is imported
when first used: ``import four21sim`` does not pay for it.
"""

from . import leading, odds, store, two_player
from .game import solve

__all__ = ["odds", "two_player", "nplayer", "leading", "store", "solve"]
