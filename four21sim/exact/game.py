"""The game solved exactly, at any player count the solvers reach: :func:`solve`."""

from __future__ import annotations

from ..rules.variants import Variant
from . import two_player

__all__ = ["solve"]


def solve(variant: Variant, players: int = 2, objective: str = "pay"):
    """Solve the ``players``-player game of ``variant`` exactly.

    Parameters
    ----------
    variant : Variant
    players : int
        2: the optimum of :func:`four21sim.exact.two_player.solve` (a zero-sum game: both
        objectives are the same); 3 to 8: the certified equilibrium of
        :func:`four21sim.exact.nplayer.solve` (what the engine's ``optimal``, the advisor, the
        trainer and the value of leading read), stored on disk (:mod:`four21sim.exact.store`)
        and verified when read back.
    objective : {'pay', 'win'}
        What each player maximises (3 players or more): P(not paying) or its win share.

    Returns
    -------
    Solution or NSolution
    """
    from . import nplayer  # when asked for: scipy and its kernels are not every process's cost
    n = nplayer.check_players(players)
    nplayer.check_objective(objective)
    if n == 2:
        return two_player.solve(variant)
    return nplayer.solve(variant, n, objective)
