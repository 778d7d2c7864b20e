"""The tie convention: which keep a player takes among keeps worth the same.

Every part of the package that picks a keep reads its convention here: the 2-player and
n-player solvers' kernels, the single-turn odds, the advisor and its explanations, the phone
page (through its manifest's ``keep_tie``) and the approximate policies.

A keep's value is a sum of products of probabilities, computed in an order that depends on the
code path; two keeps of equal exact value may differ in the last bits. So two values ``u`` and
``v`` are a *tie* when ``|u - v| <= KEEP_TIE`` (1e-12, far above the rounding differences between
code paths: at most 4.4e-16 between a shipped equilibrium's values and its rounds solved again),
and exact ties are then settled the same way whatever the rounding. Round answers compared as
exact fractions tie only when equal (:func:`tolerance`).

The default order, ``first``, is a scan of a hand's keeps in ``dice.HAND_KEEPS`` order (stop,
then more dice kept) that holds a keep until a later one is better by more than KEEP_TIE: with
values :math:`v_0, v_1, \\dots` it takes :math:`k_0 = 0` and
:math:`k_{i+1} = i + 1` if :math:`v_{i+1} > v_{k_i} + \\mathrm{KEEP\\_TIE}`, else :math:`k_i`.
Where no two values are within KEEP_TIE of each other without being within it of the best, this
is the first keep within KEEP_TIE of the largest value (:func:`first_within`), which the
advisor's tables use.

The n-player solver takes other orders too (:data:`TIE_ORDERS`, numbered as its kernels read
them): ``last``, the last in ``dice.HAND_KEEPS`` order of the keeps within KEEP_TIE of the
largest value; ``next-best`` and ``next-worst``, among those the one best (worst) for the next
player in playing order (role i + 1, after the last follower the leader), ties in that within
KEEP_TIE to the earlier keep. And one pair of *selection rules* per role r (:data:`ROLE_ORDERS`):
``favour-r`` takes among those the keep best for role r (0 the round's leader, 1 the first
follower, ...; in a game of m players in play, role r modulo m), ``disfavour-r`` the keep worst
for it, ties in that within KEEP_TIE to the earlier keep. Each selects an equilibrium; the range
of a seat's P(pay) over the rules solved is a lower bound on the spread of the game's equilibria
(results/nplayer/TIE_ORDERS.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

__all__ = ["KEEP_TIE", "TIE_ORDERS", "ROLE_ORDERS", "ALL_TIES", "TIE_FIRST", "TIE_LAST", "TIE_NEXT_BEST",
           "TIE_NEXT_WORST", "TIE_ROLE", "check_tie", "first_within", "tolerance"]

KEEP_TIE = 1e-12
"""Two keeps whose values differ by at most this are a tie."""

TIE_ORDERS = ("first", "last", "next-best", "next-worst")
"""The n-player solver's tie orders, in the order its kernels number them (module docstring)."""

TIE_FIRST, TIE_LAST, TIE_NEXT_BEST, TIE_NEXT_WORST = range(len(TIE_ORDERS))

MAX_ROLES = 8
ROLE_ORDERS = tuple(f"{way}-{r}" for r in range(MAX_ROLES) for way in ("favour", "disfavour"))
"""The selection rules favouring and disfavouring each role (module docstring): ``favour-0``,
``disfavour-0``, ``favour-1``, ... The kernels number them after :data:`TIE_ORDERS`: ``favour-r`` is
``TIE_ROLE + 2 r``, ``disfavour-r`` one more."""
TIE_ROLE = len(TIE_ORDERS)
ALL_TIES = TIE_ORDERS + ROLE_ORDERS


def check_tie(tie) -> int:
    """The tie order's number as the kernels read it (ValueError naming what is allowed)."""
    if not isinstance(tie, str) or tie not in ALL_TIES:
        raise ValueError(f"tie: {tie!r} is not allowed; allowed: {', '.join(TIE_ORDERS)}, or favour-R or "
                         f"disfavour-R for a role R from 0 to {MAX_ROLES - 1}")
    return ALL_TIES.index(tie)


def first_within(options: Mapping, tol: float = KEEP_TIE):
    """The first key of ``options`` (in its order: ``dice.HAND_KEEPS``'s) whose value is within ``tol`` of
    the largest."""
    top = max(options.values())
    return next(k for k, v in options.items() if v >= top - tol)


def tolerance(values) -> float:
    """The tie tolerance between ``values``: 0 where they are all exact (fractions, integers), else
    :data:`KEEP_TIE`."""
    return 0 if all(isinstance(v, (Fraction, int)) for v in values) else KEEP_TIE
