"""The n-player solver's limits and the checks of its arguments (players, objective, tokens):
what every part of it (:mod:`four21sim.exact.nplayer`) and the commands above it read."""

from __future__ import annotations

import numpy as np

from ..rules import dice
from ..rules.variants import Variant

OBJECTIVES = ("pay", "win")


MAX_PLAYERS = 8
"""The solver's reach: 2 to 8 players (:func:`solve`, ``exact.solve``, ``four21sim solve``), within
:data:`MAX_TOKENS`."""


ANSWER_PLAYERS = 6
"""The largest table at which the answers a person waits for (the advisor's game answer, the trainer,
``optimal`` deciding one turn at a time in ``play``, the environments and the studies) use this
solver: at 7 and 8 players a first solve takes many hours (docs/nplayer.md), which nobody should
meet by asking for advice; there they stay where they were (the round answer, no ``optimal``)
until the presets' 7- and 8-player equilibria ship with the package."""


FIRST_SOLVE = {3: "under a minute", 4: "about 2 minutes (classic: half an hour)", 5: "10 to 30 minutes",
               6: "about an hour", 7: "3 to 9 hours", 8: "12 to 45 hours"}
"""What the first solve of a preset costs, with its certificate and numba's first compile, on a
2-core machine (results/nplayer/REPORT.md): the commands say it before they wait, and the docs
quote it; later solves of the same rules read the disk cache, checked, in about half that
(docs/nplayer.md, "The stored form and what is checked")."""


# tokens above which a solve would not fit (memory, or hours), per number of players
MAX_TOKENS = {2: 60, 3: 40, 4: 21, 5: 15, 6: 11, 7: 11, 8: 11}


_NH = dice.N_HANDS


def check_players(players) -> int:
    """The number of players, checked (ValueError naming what is allowed)."""
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)) \
            or not 2 <= players <= MAX_PLAYERS:
        raise ValueError(f"players: {players!r} is not allowed; allowed: 2 to {MAX_PLAYERS} (exact solver)")
    return int(players)


def check_objective(objective) -> str:
    """The objective, checked (ValueError naming what is allowed)."""
    if objective not in OBJECTIVES:
        raise ValueError(f"objective: {objective!r} is not allowed; allowed: {', '.join(OBJECTIVES)}")
    return objective


def check_tokens(variant: Variant, n: int) -> None:
    if variant.tokens > MAX_TOKENS[n]:
        raise ValueError(f"tokens: {variant.tokens} is too many for the exact {n}-player solver; "
                         f"allowed: 1 to {MAX_TOKENS[n]}")
