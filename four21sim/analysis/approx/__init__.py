"""Approximate equilibria for 3 to 8 players: iterated best response in a family of table policies.

Where no exact solver fits (:mod:`four21sim.exact.nplayer` is exact up to 6 players
with the tokens of :data:`~four21sim.exact.nplayer.MAX_TOKENS`; its engine tables stop at
3), "how should everyone play?" is answered approximately: within a family
of policies a person could read, search for a profile that no single player can
improve on by changing its own parameters, and *measure* how much a deviator can
still gain (the profile's exploitability) on fresh games, with an interval.
Every player's objective is to pay as rarely as possible: P(pay) is the seat's
share of the game's loss (``lose_mask`` of a game record; a loss shared by k
players counts 1/k), as in docs/rules.md and the 3-player equilibrium.

The family
----------
A policy of the family is an engine table policy in context mode 1
(docs/engine.md: ``ctx = pot * (tokens + 1) + own tokens``). The contexts are
cut into *groups*: by default the charge (pot > 0) is one group and the
décharge is split by the deciding player's own tokens into the bands 1, 2, 3-4,
5-7 and 8 or more (:func:`context_groups`). Each group has three parameters:

``leader`` (``reach`` or ``round``) and ``threshold`` (a hand)
    ``reach``: the leader keeps what maximises P(ending at the threshold hand or
    better) (:func:`four21sim.exact.odds.turn_odds` with objective ``reach``) and stops
    as soon as it holds it: the leader of ``table-aware`` and of
    :func:`four21sim.analysis.tournament.threshold_policy`, one threshold per group.
    ``round``: the leader plays its round against one follower
    (:func:`four21sim.exact.odds.leader_round`: P(not losing the round), stopping early
    being worth more the fewer throws it leaves the follower); the threshold is
    then unused. The ``reach`` leader ignores what its count does to the others;
    ``round`` weighs it, for a table of two.
``weight`` (a number >= 0)
    A follower scores a final hand ``h`` against the hand to beat (the worst on
    the table so far) as ``1[h beats it] + 1/2 1[h equals it] + weight *
    value(h)`` and plays the keeps that maximise the expected score
    (:func:`four21sim.exact.odds.solve_turn`). ``weight = 0`` is ``table-aware``'s
    follower. Why a value weight rather than a second threshold: the follower
    tables already see the hand to beat, the count and the throws made, and
    what else a follower's hand decides is the payout when that follower wins
    the round (the winner's hand value: in the charge the tokens the loser takes
    from the pot, in the décharge the tokens the winner gets rid of). A weight
    trades the chance of not being the worst for the payout, from a tie-breaker
    (0.01) to nearly ``greedy`` (0.3 and more).

With one group, the ``reach`` leader at the median threshold and weight 0 the tables are exactly
``table-aware``'s (spread over the contexts): the family contains the usual
habit. Groups in which nobody decides (the charge when ``charge_throws = 1``,
the décharge when ``decharge_throws = 1``) are never searched.

Iterated best response
----------------------
:func:`approximate_equilibrium` starts with every seat on the table-aware
profile. Each round draws a fresh seed (selection noise does not pile up on one
set of games) and, group by group and parameter by parameter (coordinate
search), tries every candidate value for *one* deviating player, everyone else
playing the current profile; the deviator takes every seat in turn, every
candidate is played on the same games (common random numbers), and the value
that minimises the deviator's mean P(pay) is given to everyone (a symmetric
profile). The current value is kept unless a candidate does strictly better.
The threshold of a group whose leader plays ``round`` is not searched (it is unused).
Under a symmetric profile the seats' P(pay) sum to 1 in every game, so the
deviator's P(pay) averaged over the seats is exactly ``1/players`` when it
plays the profile: a candidate's paired gain is ``1/players`` minus its P(pay).
The iteration stops when a round changes nothing or after ``rounds`` rounds.

Exploitability, with an interval
--------------------------------
After the last round, the best deviation within the family (a policy of the
deviator alone, every other seat keeping the profile) is searched coordinate by
coordinate on a *selection* seed set, then its gain is measured on a *fresh,
independent* seed set (:func:`measure_gains`): gain = P(pay | everyone plays
the profile) - P(pay | the deviator deviates), the deviator taking every seat
in turn, both line-ups on the same games, per-game paired differences averaged
over the seats, with a normal 95% interval over games. Measuring on the games
that chose the deviation would overstate its gain (the winner's curse: the best
of many noisy candidates is partly the luckiest); on fresh games the estimate
is unbiased for the gain of the deviation chosen. That gain is a lower bound on
the exploitability within the family (the search may miss the best deviation)
and so on the true exploitability (a deviator is not bound to the family). The
same fresh games also measure a few fixed deviations outside the family: every habit
of the policy registry (:data:`four21sim.policies.HABITS`).
"""

from .family import (
                     DEFAULT_BANDS,
                     DEFAULT_WEIGHTS,
                     HABIT_DEVIATIONS,
                     LEADER_MODES,
                     ContextGroups,
                     Profile,
                     context_groups,
                     family_policy,
                     table_aware_profile,
)
from .measure import deviator_pay, measure_gains, pay_shares
from .search import ApproxResult, approximate_equilibrium, best_deviation

__all__ = ["ContextGroups", "Profile", "ApproxResult", "DEFAULT_BANDS", "DEFAULT_WEIGHTS", "HABIT_DEVIATIONS",
           "LEADER_MODES", "context_groups", "family_policy", "table_aware_profile", "pay_shares", "deviator_pay",
           "measure_gains", "best_deviation", "approximate_equilibrium"]
