"""Exact single-turn odds: which dice to keep, and what it achieves.

A turn is a hand with ``m`` throws left (0 to 2). Before each throw the player
keeps some dice and throws the others. Two follower rules:

``at_most`` ("le bon")
    the player may stop at any time (keeping all three dice is stopping);
``exact``
    every remaining throw must re-throw at least one die.

Dynamic programming over (hand, throws left) gives, for an objective that scores
the final hand, the best keep at every point, the score it achieves and the full
distribution of the final hand under that play. Values are exact
:class:`fractions.Fraction` with ``exact=True`` and floats otherwise.

Objectives
----------
``"421"``    probability of ending with 421;
``"beat"``   probability of ending strictly above ``target`` in the ranking;
``"reach"``  probability of ending at ``target`` or above;
``"value"``  expected value of the final hand under a value scheme.

On exact ties the keep that comes first in :data:`four21sim.dice.HAND_KEEPS`
order wins: stopping, then keeping more dice, then keeping higher dice.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from . import dice

__all__ = ["OBJECTIVES", "TurnOdds", "turn_odds", "keep_advice", "reward_vector", "MAX_THROWS_LEFT"]

OBJECTIVES = ("421", "beat", "reach", "value")
FOLLOWER_RULES = ("at_most", "exact")
MAX_THROWS_LEFT = 2
_FLOAT_TIE = 1e-12


def reward_vector(objective: str, target: int | None = None, ranking: str = "super421",
                  values: str = "super421", exact: bool = False) -> list:
    """Score of each of the 56 final hands under an objective."""
    one, zero = (Fraction(1), Fraction(0)) if exact else (1.0, 0.0)
    if objective not in OBJECTIVES:
        raise ValueError(f"objective: {objective!r} is not allowed; allowed: {', '.join(OBJECTIVES)}")
    if objective in ("beat", "reach"):
        if target is None:
            raise ValueError(f"target: objective {objective!r} needs a target hand; allowed: a hand such as 611")
        rank = dice.RANK[dice.ranking_index(ranking)]
        if objective == "beat":
            return [one if rank[h] < rank[target] else zero for h in range(dice.N_HANDS)]
        return [one if rank[h] <= rank[target] else zero for h in range(dice.N_HANDS)]
    if objective == "421":
        h421 = dice.hand_index((4, 2, 1))
        return [one if h == h421 else zero for h in range(dice.N_HANDS)]
    vals = dice.VALUE[dice.values_index(values)]
    return [Fraction(int(v)) if exact else float(v) for v in vals]


@dataclass(frozen=True)
class TurnOdds:
    """Solved single-turn problem.

    Attributes
    ----------
    value : list of lists
        ``value[m][h]``: best achievable score holding hand ``h`` with ``m`` throws left.
    keep_values : list of dicts
        ``keep_values[m][h]``: ``{keep: score}`` for every legal keep (m >= 1).
    best_keep : list of lists
        ``best_keep[m][h]``: the best keep (``-1`` for m = 0).
    followers : str
        The follower rule the keeps obey.
    """

    value: list
    keep_values: list
    best_keep: list
    followers: str
    exact: bool

    def final_distribution(self, hand: int, throws_left: int) -> list:
        """Distribution of the final hand (56 entries) under best play from (hand, throws_left)."""
        return self._dists()[throws_left][hand]

    def start_value(self, throws: int):
        """Best score from the start of a turn of ``throws`` throws (no dice yet)."""
        _check_throws(throws)
        dist = dice.throw_distribution()
        return sum((p if self.exact else float(p)) * self.value[throws - 1][h] for h, p in dist.items())

    def start_distribution(self, throws: int) -> list:
        """Distribution of the final hand from the start of a turn of ``throws`` throws."""
        _check_throws(throws)
        dists = self._dists()[throws - 1]
        out = [self._zero()] * dice.N_HANDS
        for h, p in dice.throw_distribution().items():
            p = p if self.exact else float(p)
            out = [a + p * b for a, b in zip(out, dists[h])]
        return out

    def _zero(self):
        return Fraction(0) if self.exact else 0.0

    def _dists(self) -> list:
        cached = self.__dict__.get("_dist_cache")
        if cached is not None:
            return cached
        one, zero = (Fraction(1), Fraction(0)) if self.exact else (1.0, 0.0)
        level0 = [[one if f == h else zero for f in range(dice.N_HANDS)] for h in range(dice.N_HANDS)]
        levels = [level0]
        for m in range(1, MAX_THROWS_LEFT + 1):
            prev = levels[-1]
            cur = []
            for h in range(dice.N_HANDS):
                k = self.best_keep[m][h]
                if k == dice.FULL_KEEP + h:
                    cur.append(level0[h])
                    continue
                acc = [zero] * dice.N_HANDS
                for h2, p in dice.throw_distribution(k).items():
                    p = p if self.exact else float(p)
                    row = prev[h2]
                    acc = [a + p * b for a, b in zip(acc, row)]
                cur.append(acc)
            levels.append(cur)
        object.__setattr__(self, "_dist_cache", levels)
        return levels


def _check_throws(throws: int) -> None:
    if isinstance(throws, bool) or not isinstance(throws, (int, np.integer)) or not 1 <= throws <= 3:
        raise ValueError(f"throws: {throws!r} is not allowed; allowed: 1, 2 or 3")


def solve_turn(reward: list, followers: str = "at_most", exact: bool = False) -> TurnOdds:
    """Solve the single-turn problem for an arbitrary score of the final hand."""
    if followers not in FOLLOWER_RULES:
        raise ValueError(f"followers: {followers!r} is not allowed; allowed: {', '.join(FOLLOWER_RULES)}")
    values = [list(reward)]
    keep_values: list = [[{} for _ in range(dice.N_HANDS)]]
    best_keep: list = [[-1] * dice.N_HANDS]
    for m in range(1, MAX_THROWS_LEFT + 1):
        prev = values[-1]
        # Value of every keep once; a hand's choice is a max over its few keeps.
        kval = {}
        for k in range(dice.N_KEEPS - dice.N_HANDS):
            kval[k] = sum((p if exact else float(p)) * prev[h] for h, p in dice.throw_distribution(k).items())
        cur, cur_keeps, cur_best = [], [], []
        for h in range(dice.N_HANDS):
            options = {}
            for k in dice.keeps_of(h, allow_stop=followers == "at_most"):
                # Stopping keeps the hand as it is: the turn ends now.
                options[k] = reward[h] if k == dice.FULL_KEEP + h else kval[k]
            top = max(options.values())
            tol = 0 if exact else _FLOAT_TIE
            best = next(k for k, v in options.items() if v >= top - tol)
            cur.append(top)
            cur_keeps.append(options)
            cur_best.append(best)
        values.append(cur)
        keep_values.append(cur_keeps)
        best_keep.append(cur_best)
    return TurnOdds(values, keep_values, best_keep, followers, exact)


@lru_cache(maxsize=512)
def turn_odds(objective: str = "421", target: int | None = None, ranking: str = "super421",
              values: str = "super421", followers: str = "at_most", exact: bool = False) -> TurnOdds:
    """Solved single turn for a named objective (cached).

    Parameters
    ----------
    objective : {'421', 'beat', 'reach', 'value'}
    target : int, optional
        Hand index for 'beat' and 'reach'.
    ranking, values : str
        Ranking and value scheme names.
    followers : {'at_most', 'exact'}
        May the player stop early, or must every throw re-throw at least one die.
    exact : bool
        Fractions if True, floats if False.
    """
    return solve_turn(reward_vector(objective, target, ranking, values, exact), followers, exact)


def keep_advice(hand: int, throws_left: int, objective: str = "421", target: int | None = None,
                ranking: str = "super421", values: str = "super421", followers: str = "at_most",
                exact: bool = False) -> list[tuple[int, object]]:
    """Every distinct keep of ``hand`` with the score it achieves, best first.

    Returns a list of ``(keep_index, score)``; use :func:`four21sim.dice.keep_label`
    to show a keep. With ``throws_left=0`` the only option is to stop.
    """
    if isinstance(throws_left, bool) or not isinstance(throws_left, (int, np.integer)) \
            or not 0 <= throws_left <= MAX_THROWS_LEFT:
        raise ValueError(f"throws_left: {throws_left!r} is not allowed; allowed: 0, 1 or 2")
    odds = turn_odds(objective, target, ranking, values, followers, exact)
    if throws_left == 0:
        return [(dice.FULL_KEEP + hand, odds.value[0][hand])]
    options = odds.keep_values[throws_left][hand]
    order = list(options)  # tie order of HAND_KEEPS
    return sorted(options.items(), key=lambda kv: (-kv[1], order.index(kv[0])))
