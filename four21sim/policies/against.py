"""Exact best responses to a table of named policies, and exact values of a line-up of them.

The n-player solver (:mod:`four21sim.exact.nplayer`) sits below the policy registry: it
reads compiled tables and knows nothing of names. This module turns names into tables
(the registry's builders) and hands them down.

``optimal`` and ``equilibrium`` are not compiled here: against the n-player solver
they mean its equilibrium (``optimal``: each player minimises its own P(pay), as the
registry's ``optimal`` does at 2 to 5 players; ``equilibrium``: the equilibrium of the
objective asked for), which the solver plays from its own solution at any player count.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._util.checks import shown
from ..rules.variants import Variant
from .registry import POLICY_NAMES, canonical_name, compile_policy
from .tables import Policy

if TYPE_CHECKING:
    from ..exact.nplayer import BestResponse

__all__ = ["EQUILIBRIUM_NAMES", "against_names", "best_response", "evaluate_lineup", "resolve_against"]

EQUILIBRIUM_NAMES = ("equilibrium", "optimal")
"""Entries that mean the exact equilibrium of the game, not a compiled table."""


def against_names() -> tuple[str, ...]:
    """Every name an opponent may be given: the registered policies and ``equilibrium``."""
    return tuple(dict.fromkeys(POLICY_NAMES + EQUILIBRIUM_NAMES))


def _one(variant: Variant, players: int, entry, what: str):
    if isinstance(entry, str):
        name = entry.strip().lower()
        if name in EQUILIBRIUM_NAMES:
            return name
        if name not in POLICY_NAMES:
            raise ValueError(f"{what}: {shown(entry)} is not allowed; allowed: {', '.join(against_names())}")
        return compile_policy(canonical_name(name), variant, players)
    if isinstance(entry, Policy):
        return compile_policy(entry, variant, players)
    return entry  # an n-player solution (or anything else: the solver checks it)


def resolve_against(variant: Variant, players: int, against, what: str = "against") -> list:
    """One entry per other seat, names compiled into tables (``optimal``/``equilibrium`` kept as names)."""
    if isinstance(against, (str, Policy)):
        against = [against] * (players - 1)
    if against is None or not hasattr(against, "__iter__"):
        raise ValueError(f"{what}: {shown(against)} is not allowed; allowed: one policy per other seat "
                         f"({', '.join(against_names())})")
    return [_one(variant, players, a, what) for a in against]


def best_response(variant: Variant, players: int, against, seat: int = 0, objective: str = "pay",
                  **options) -> BestResponse:
    """The exact best response of seat ``seat`` to the other seats' play.

    Parameters
    ----------
    variant : Variant
    players : int
    against : str or sequence
        The other seats in seat order (the responder left out): registered policy names,
        compiled :class:`Policy` tables (context mode 0 or 1, or ``random``),
        ``"equilibrium"``/``"optimal"``, or an n-player solution. One name: every other seat.
    seat : int
        The responder's seat (seat 0 leads the first round).
    objective : {'pay', 'win'}
        What the responder maximises (and the equilibrium, where one is played).
    **options
        Passed to :func:`four21sim.exact.nplayer.solve` (``tol``, ``max_iter``, ``stall``).

    Returns
    -------
    BestResponse
        Its ``seat_p_pay`` / ``seat_p_win`` give every seat's P(pay) and win share.

    Raises
    ------
    ValueError
        For a bad argument, named with what is allowed.
    """
    from ..exact import nplayer  # when asked for (scipy, its kernels): see four21sim.exact
    n = nplayer.check_players(players)
    if isinstance(against, (str, Policy)) or not hasattr(against, "__iter__"):
        against = [against] * (n - 1)
    tables = resolve_against(variant, n, against)
    return nplayer.solve(variant, n, objective, against=tables, seat=seat, **options)


def evaluate_lineup(variant: Variant, players: int, policies) -> dict:
    """Exact P(pay), win shares and expected rounds when every seat plays a named table policy.

    ``policies``: one name or :class:`Policy` per seat (one name: every seat). See
    :func:`four21sim.exact.nplayer.evaluate`.
    """
    from ..exact import nplayer
    n = nplayer.check_players(players)
    if isinstance(policies, (str, Policy)):
        policies = [policies] * n
    tables = resolve_against(variant, n, policies, what="policies")
    return nplayer.evaluate(variant, n, tables)
