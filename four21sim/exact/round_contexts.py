"""How many follower contexts the n-player game's rounds have, without solving it.

What a table of decisions per context costs is known before the solve: the states of each
number of players in play and phase, times the merged contexts of its rounds
(:mod:`four21sim.exact.nplayer`; docs/nplayer.md). ``policies.optimal`` reads it to refuse
engine tables that would not fit before spending the solve on them.
"""

from __future__ import annotations

import numpy as np

from ..rules.variants import Variant
from . import _nplayer_game as NG

__all__ = ["context_counts"]


def context_counts(variant: Variant, players: int) -> list[tuple[int, str, int, int]]:
    """``(players in play, phase, states, contexts per state)`` of every round an equilibrium's
    engine tables need: all players in, charge (where someone decides: ``charge_throws > 1``; one
    entry per pot, whose rounds have contexts of their own: :meth:`NG.Rounds.contexts`) and
    décharge; under ``end = last_holder`` also the décharge of every smaller table."""
    out = []
    for m in range(players, 1, -1) if variant.end == "last_holder" else (players,):
        game = NG.role_game(variant, m)
        rounds = NG.Rounds(game)
        if m == players and variant.charge_throws > 1:
            sets = rounds.charge_sets(m)
            rounds.prepare(m, "charge", sets)
            for pots in sets:
                n_states = int(np.isin(game.pot, pots).sum())
                out.append((m, "charge", n_states, int(rounds.contexts(m, "charge", pots).G)))
        n_states = int((game.pot == 0).sum())
        if n_states:
            out.append((m, "decharge", n_states, int(rounds.contexts(m, "decharge").G)))
    return out
