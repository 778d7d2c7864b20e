"""The habits: one builder per heuristic policy, and the pieces they share.

A leader's rows and a follower's rows are built from single-turn odds
(:mod:`four21sim.exact.odds`): a leader maximising the chance of reaching a threshold
hand (:func:`threshold_leader`), a follower maximising a reward of its final hand
against the worst hand on the table (:func:`follower_rows`, with :func:`beat_reward`:
not losing to that hand). Builders return a :class:`~four21sim.policies.tables.Policy`
in context mode 0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np

from ..exact import odds
from ..rules import dice
from ..rules.variants import Variant
from .tables import KEEP_DTYPE, Policy, stop_tables, table_policy

__all__ = ["median_hand", "threshold_leader", "objective_leader", "beat_reward", "follower_rows", "build_sec",
           "build_chase421", "build_greedy", "build_table_aware", "build_random"]

_NH = dice.N_HANDS


def median_hand(ranking: str) -> int:
    """The weakest hand that a fresh throw of three dice beats with probability at most 1/2."""
    order = dice.ORDER[dice.ranking_index(ranking)]
    counts = dice.THROW_COUNTS[dice.EMPTY_KEEP]  # out of 216: exact, no rounding at the 1/2 boundary
    above = 0  # throws ranking strictly above h
    for h in order:  # best first
        if 2 * above > 216:
            break
        best = int(h)
        above += int(counts[h])
    return best


def _turn_rows(turn: odds.TurnOdds) -> np.ndarray:
    """``lead[throws_left - 1, hand]`` of a turn solution."""
    out = np.empty((2, _NH), dtype=KEEP_DTYPE)
    for tl in (1, 2):
        out[tl - 1] = np.asarray(turn.best_keep[tl], dtype=KEEP_DTYPE)
    return out


@lru_cache(maxsize=512)
def threshold_leader(variant: Variant, threshold: int) -> np.ndarray:
    """``lead[throws_left - 1, hand]`` of a leader playing for hand index ``threshold``: it
    keeps what maximises P(reaching it) and stops once there."""
    return _turn_rows(odds.turn_odds("reach", threshold, variant.ranking, variant.values, "at_most"))


def objective_leader(variant: Variant, objective: str) -> np.ndarray:
    """``lead[throws_left - 1, hand]`` of a leader maximising ``objective`` ('421' or 'value')."""
    return _turn_rows(odds.turn_odds(objective, None, variant.ranking, variant.values, "at_most"))


def beat_reward(variant: Variant, target: int) -> np.ndarray:
    """Per final hand: 1 if it beats ``target``, 1/2 if it is ``target`` (a fair roll-off), else 0:
    a follower's chance of not losing the round to that hand."""
    rank = dice.RANK[variant.ranking_index]
    return np.where(rank < rank[target], 1.0, np.where(np.arange(_NH) == target, 0.5, 0.0))


def follower_rows(variant: Variant, reward: Callable[[int], Sequence[float]] | None = None,
                  objective: str | None = None) -> np.ndarray:
    """``foll[target, count - 1, made - 1, hand]`` of a follower that maximises, per target,
    the expected ``reward(target)[final hand]`` (or, with ``objective``, ignores the target
    and maximises '421' or 'value'), under the variant's follower rule."""
    out = np.empty((_NH, 3, 2, _NH), dtype=KEEP_DTYPE)
    out[...] = dice.FULL_KEEP + np.arange(_NH)  # (count, made) pairs never met stop: legal
    fixed = None if objective is None else odds.turn_odds(objective, None, variant.ranking, variant.values,
                                                          variant.followers)
    for target in range(_NH):
        turn = fixed if fixed is not None else odds.solve_turn(list(reward(target)), variant.followers)
        for count in (2, 3):
            for made in range(1, count):
                out[target, count - 1, made - 1, :] = turn.best_keep[count - made]
    return out


def _policy(name: str, variant: Variant, lead_rows: np.ndarray | None, foll_rows: np.ndarray | None,
            info: dict | None = None) -> Policy:
    lead, foll = stop_tables()
    if lead_rows is not None:
        lead[0] = lead_rows
    if foll_rows is not None:
        foll[0] = foll_rows
    return table_policy(name, variant, lead, foll, 0, None, info)


@lru_cache(maxsize=16)
def build_sec(variant: Variant, players: int | None = None) -> Policy:
    """``sec``: never re-throws; a follower forced to (the ``exact`` rule) throws all three again."""
    lead, foll = stop_tables()
    if variant.followers == "exact":
        foll[...] = dice.EMPTY_KEEP
    return table_policy("sec", variant, lead, foll, 0, None, {})


@lru_cache(maxsize=16)
def build_chase421(variant: Variant, players: int | None = None) -> Policy:
    """``chase421``: plays for 421 only; a leader stops only on 421."""
    return _policy("chase421", variant, objective_leader(variant, "421"),
                   follower_rows(variant, objective="421"))


@lru_cache(maxsize=16)
def build_greedy(variant: Variant, players: int | None = None) -> Policy:
    """``greedy``: maximises the expected value of its own final hand."""
    return _policy("greedy", variant, objective_leader(variant, "value"), follower_rows(variant, objective="value"))


@lru_cache(maxsize=16)
def build_table_aware(variant: Variant, players: int | None = None) -> Policy:
    """``table-aware``: a leader plays for the median hand; a follower plays not to lose to the
    worst hand on the table (:func:`beat_reward`)."""
    threshold = median_hand(variant.ranking)
    return _policy("table-aware", variant, threshold_leader(variant, threshold),
                   follower_rows(variant, lambda t: beat_reward(variant, t)),
                   {"threshold": dice.hand_name(threshold)})


def build_random(variant: Variant, players: int | None = None) -> Policy:
    """``random``: a uniform draw among the legal keeps, from the game's random stream."""
    lead, foll = stop_tables()
    return Policy("random", "random", 0, lead, foll, variant, None, {})
