"""The game solved exactly, at any player count the solvers reach: :func:`solve`."""

from __future__ import annotations

from ..rules.variants import Variant
from . import solver3, two_player

__all__ = ["solve"]


def solve(variant: Variant, players: int = 2, objective: str = "pay"):
    """Solve the ``players``-player game of ``variant`` exactly.

    Parameters
    ----------
    variant : Variant
    players : int
        2: the optimum of :func:`four21sim.exact.two_player.solve` (a zero-sum game: both
        objectives are the same); 3: the certified equilibrium of
        :func:`four21sim.exact.solver3.solve`.
    objective : {'pay', 'win'}
        What each player maximises at 3 players: P(not paying) or its win share.

    Returns
    -------
    Solution or Solution3
    """
    n = solver3.check_players(players)
    solver3.check_objective(objective)
    if n == 2:
        return two_player.solve(variant)
    return solver3.solve(variant, n, objective)
