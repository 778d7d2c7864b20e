"""Exact results: single-turn odds (:mod:`.odds`), the game solved at 2 players
(:mod:`.two_player`) and at 2 to 8 players (:mod:`.nplayer`: equilibria, their
certificates, best responses to tables; :func:`solve` reads it from 3 players), the value of leading
(:mod:`.leading`), the disk store of solutions (:mod:`.store`) and the presets' equilibria
shipped with the package (:mod:`.shipped`, read by :mod:`.nplayer` before it solves).

:func:`solve` is the one entry point for the game at any player count it reaches.
This layer reads the rules and nothing above them: it never imports the engine,
the policies or the studies. This package does not import :mod:`.nplayer` (scipy, its numba
kernels), but the ``optimal`` policy's tables (:mod:`four21sim.policies.optimal`) and the advisor
do, so the engine and every command but ``--version`` load it (``import four21sim`` alone does
not): about 0.25 s of such a process's start, 0.2 s of it scipy's sparse solver. Making that
lazy would touch the solver's files, whose source keys the solution store
(:data:`four21sim.exact.nplayer._CODE`), so every stored equilibrium would be solved again
once; left as it is.
"""

from . import leading, odds, store, two_player
from .game import solve

__all__ = ["odds", "two_player", "nplayer", "leading", "store", "shipped", "solve"]
