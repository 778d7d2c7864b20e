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

:func:`leader_round` answers the leader's question of one round against one
follower: P(not losing the round), stopping being worth more the fewer throws it
leaves the follower.

On exact ties the keep that comes first in :data:`four21sim.rules.dice.HAND_KEEPS`
order wins: stopping, then keeping more dice, then keeping higher dice.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from .._util.checks import check_int, shown
from ..rules import dice
from .ties import first_within

__all__ = ["OBJECTIVES", "ADVICE_OBJECTIVES", "FOLLOWER_RULES", "TurnOdds", "turn_odds", "keep_advice", "Keep",
           "reward_vector", "LeaderRound", "leader_round", "MAX_THROWS_LEFT"]

OBJECTIVES = ("421", "beat", "reach", "value")
ADVICE_OBJECTIVES = OBJECTIVES + ("round",)
"""Objectives of :func:`keep_advice`: those of :func:`turn_odds`, and ``"round"`` for a
leader (:func:`leader_round`)."""
FOLLOWER_RULES = ("at_most", "exact")
MAX_THROWS_LEFT = 2
_THROWING = range(dice.N_KEEPS - dice.N_HANDS)
_OUT_OF = 6 ** 3
# Each throwing keep's outcomes as (hand, count out of 6**3): exact expectations are sums of
# integers over one denominator, a Fraction made once per keep instead of one per product.
_COUNTS = [[(int(dice.KT_HAND[i]), int(dice.KT_COUNT[i]) * (_OUT_OF // int(dice.KT_DENOM[k])))
            for i in range(dice.KT_START[k], dice.KT_START[k + 1])] for k in _THROWING]
_FLOAT_CHANCES = [[(h, float(p)) for h, p in dice.throw_distribution(k).items()] for k in _THROWING]


def _numerators(level) -> tuple[list[int], int]:
    """Exact numbers as integer numerators over their least common denominator."""
    level = [x if isinstance(x, (int, Fraction)) else Fraction(x) for x in level]
    den = math.lcm(*(x.denominator for x in level))
    return [x.numerator * (den // x.denominator) for x in level], den


def _throw_expectations(level: list, exact: bool) -> list:
    """``out[k]``: the expectation of ``level[next hand]`` after throwing keep ``k`` (every throwing keep).

    Exact (Fractions) with ``exact``; floats summed in the distribution's order otherwise.
    """
    if not exact:
        return [sum(p * level[h] for h, p in _FLOAT_CHANCES[k]) for k in _THROWING]
    nums, den = _numerators(level)
    den *= _OUT_OF
    return [Fraction(sum(c * nums[h] for h, c in _COUNTS[k]), den) for k in _THROWING]


def reward_vector(objective: str, target: int | None = None, ranking: str = "super421",
                  values: str = "super421", exact: bool = False) -> list:
    """Score of each of the 56 final hands under an objective."""
    one, zero = (Fraction(1), Fraction(0)) if exact else (1.0, 0.0)
    if objective not in OBJECTIVES:
        raise ValueError(f"objective: {shown(objective)} is not allowed; allowed: {', '.join(OBJECTIVES)}")
    if objective in ("beat", "reach"):
        if target is None:
            raise ValueError(f"target: objective {shown(objective)} needs a target hand; allowed: a hand such as 611")
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
        if self.exact:
            return _throw_expectations(self.value[throws - 1], True)[dice.EMPTY_KEEP]
        dist = dice.throw_distribution()
        return sum(float(p) * self.value[throws - 1][h] for h, p in dist.items())

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
    check_int("throws", throws, 1, 3, "1, 2 or 3")


def solve_turn(reward: list, followers: str = "at_most", exact: bool = False) -> TurnOdds:
    """Solve the single-turn problem for an arbitrary score of the final hand."""
    if followers not in FOLLOWER_RULES:
        raise ValueError(f"followers: {shown(followers)} is not allowed; allowed: {', '.join(FOLLOWER_RULES)}")
    values = [list(reward)]
    keep_values: list = [[{} for _ in range(dice.N_HANDS)]]
    best_keep: list = [[-1] * dice.N_HANDS]
    for _ in range(1, MAX_THROWS_LEFT + 1):
        prev = values[-1]
        # Value of every keep once; a hand's choice is a max over its few keeps.
        kval = _throw_expectations(prev, exact)
        cur, cur_keeps, cur_best = [], [], []
        for h in range(dice.N_HANDS):
            options = {}
            for k in dice.keeps_of(h, allow_stop=followers == "at_most"):
                # Stopping keeps the hand as it is: the turn ends now.
                options[k] = reward[h] if k == dice.FULL_KEEP + h else kval[k]
            if exact:  # the first keep of the highest value: max keeps the first of equals
                best = max(options, key=lambda k: _exact_key(options[k]))
                top = options[best]
            else:
                top = max(options.values())
                best = first_within(options)
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



class Keep(NamedTuple):
    """One way to keep dice, as the advisor shows it.

    Attributes
    ----------
    keep : str
        The keep written against the hand: ``"_ _ 1"`` keeps the 1 and re-throws the
        others, ``"stop"`` keeps the whole hand.
    value : Fraction or float
        The score the keep achieves with best play afterwards.
    kept : str
        The dice kept, highest first (``"1"``), ``"-"`` for none, the hand for stop.
    stop : bool
        True for stopping (keeping all three dice).
    index : int
        The keep's index in :data:`four21sim.rules.dice.KEEPS`.
    """

    keep: str
    value: object
    kept: str
    stop: bool
    index: int


def _as_hand(text, option: str) -> int:
    """A hand as the command line takes it: ``"631"``, ``"6-3-1"``, ``(6, 3, 1)`` or ``631``."""
    if isinstance(text, (int, np.integer)) and not isinstance(text, bool):
        text = str(int(text))
    return dice.parse_hand(text, option)


def _check_throws_left(throws_left) -> int:
    return check_int("throws_left", throws_left, 0, MAX_THROWS_LEFT, "0, 1 or 2")


def choose_objective(objective: str | None, beat, reach, role: str = "follower") -> tuple[str, object]:
    """The objective and target the advisor uses, from what was given (the command line's rule).

    A target given with ``beat``/``reach`` sets the objective; without one a leader's
    default is ``"round"`` and a follower's ``"421"``.
    """
    if beat is not None and reach is not None:
        raise ValueError("beat/reach: give one target, not both")
    target_text = beat if beat is not None else reach
    if objective is None:
        objective = "beat" if beat is not None else "reach" if reach is not None else \
            ("round" if role == "leader" else "421")
    if objective not in ADVICE_OBJECTIVES:
        raise ValueError(f"objective: {shown(objective)} is not allowed; allowed: {', '.join(ADVICE_OBJECTIVES)}")
    if objective in ("beat", "reach"):
        if target_text is None:
            raise ValueError(f"objective: {objective} needs a target hand; allowed: {objective}=HAND")
        return objective, target_text
    if target_text is not None:
        raise ValueError(f"objective: {objective} takes no target hand; drop beat/reach "
                         "or use objective beat or reach")
    return objective, None


def keep_advice(hand, throws_left: int = 2, objective: str | None = None, target=None, *, beat=None,
                reach=None, variant="super421", followers: str | None = None, throws: int | None = None,
                exact: bool = False) -> list[Keep]:
    """Every distinct keep of ``hand`` with the score it achieves, best first.

    Takes what ``four21sim advise`` takes, with the same defaults::

        >>> odds.keep_advice("631", 2, beat="611")[0]
        Keep(keep='_ _ 1', value=0.1458..., kept='1', stop=False, index=6)

    Parameters
    ----------
    hand : str
        The three dice held, in any order (``"631"``, ``"6-3-1"``).
    throws_left : int
        Throws still allowed, 0 to 2; with 0 the only option is to stop.
    objective : {'421', 'beat', 'reach', 'value', 'round'}, optional
        Default: ``beat`` with ``beat=``, ``reach`` with ``reach=``, else ``421``.
        ``round`` is a leader's P(not losing the round to one follower)
        (:func:`leader_round`; needs ``throws``).
    target : str, optional
        The hand to beat or reach (same as ``beat=`` or ``reach=``).
    beat, reach : str, optional
        The hand to beat strictly, or to reach or better.
    variant : Variant or str
        The rules (a preset name or a :class:`~four21sim.rules.variants.Variant`): its
        ranking, value scheme and follower rule.
    followers : {'at_most', 'exact'}, optional
        The follower rule the keeps obey (default: the variant's; ``round`` always
        lets the leader stop).
    throws : int, optional
        For ``round``: the leader's throw limit this round (default: the variant's
        charge limit).
    exact : bool
        Fractions if True, floats if False.

    Returns
    -------
    list of Keep
    """
    from ..rules.variants import as_variant
    v = as_variant(variant)
    h = _as_hand(hand, "hand")
    throws_left = _check_throws_left(throws_left)
    if target is not None:
        if objective == "reach":
            reach = target
        else:
            beat = target
    objective, target_text = choose_objective(objective, beat, reach)
    tgt = _as_hand(target_text, objective) if target_text is not None else None
    followers = followers or v.followers
    if objective == "round":
        limit = v.charge_throws if throws is None else throws
        _check_throws(limit)
        made = limit - throws_left
        if made < 1:
            raise ValueError(f"throws_left: {throws_left} is not allowed with a throw limit of {limit}; "
                             f"allowed: 0 to {limit - 1}")
        lr = leader_round(v.ranking, followers, limit, exact)
        options = lr.stop_options(h, made)
    else:
        turn = turn_odds(objective, tgt, v.ranking, v.values, followers, exact)
        options = ({dice.FULL_KEEP + h: turn.value[0][h]} if throws_left == 0
                   else turn.keep_values[throws_left][h])
    # best first, ties in HAND_KEEPS order (a stable sort keeps it, reversed too); float ties
    # (rounding noise) as exact ones
    ranked = sorted(options.items(), key=(lambda kv: _exact_key(kv[1])) if exact else (lambda kv: round(kv[1], 11)),
                    reverse=True)
    words = [_keep_words(h, k) for k, _ in ranked]
    return [Keep(label, val, kept, k == dice.FULL_KEEP + h, k) for (k, val), (label, kept) in zip(ranked, words)]


def _exact_key(x: Fraction) -> tuple:
    """A sort key of an exact number in the number's own order, compared faster: the float first
    (int / int is correctly rounded, so never out of order), the Fraction where floats tie."""
    return x.numerator / x.denominator, x


@lru_cache(maxsize=None)
def _keep_words(h: int, k: int) -> tuple[str, str]:
    """A keep as :class:`Keep` writes it: its label against the hand, and the dice kept."""
    return dice.keep_label(h, k), dice.hand_name(h) if k == dice.FULL_KEEP + h else dice.keep_name(k)


@dataclass(frozen=True)
class LeaderRound:
    """A leader's round against one follower who plays to beat the leader's hand.

    The follower throws as many times as the leader did (at most that many under
    ``at_most``) and keeps what maximises P(beat the leader) + 1/2 P(equal it). The
    leader's score is P(not losing the round): 1 - that, equal hands being settled by
    a fair roll-off. (Tie-breaks by throw count and the nénette rescue are not
    modelled: this is the round as a single-turn problem, exact for what it states.)

    Attributes
    ----------
    limit : int
        The leader's throw limit.
    stop_value : list of lists
        ``stop_value[c-1][h]``: P(not losing) stopping on ``h`` after ``c`` throws.
    keep_values : list of lists of dicts
        ``keep_values[made][h]``: ``{keep: score}`` after ``made`` throws (1 to limit-1),
        stopping included.
    value : list of lists
        ``value[made][h]``: the best score after ``made`` throws (``made`` = 1..limit).
    """

    limit: int
    stop_value: list
    keep_values: list
    value: list

    def stop_options(self, hand: int, made: int) -> dict:
        """{keep: score} holding ``hand`` after ``made`` throws (only stop at the limit)."""
        if made >= self.limit:
            return {dice.FULL_KEEP + hand: self.stop_value[self.limit - 1][hand]}
        return self.keep_values[made][hand]


@lru_cache(maxsize=32)
def leader_round(ranking: str = "super421", followers: str = "exact", limit: int = 3,
                 exact: bool = False) -> LeaderRound:
    """Solve a leader's round against one follower (see :class:`LeaderRound`).

    Parameters
    ----------
    ranking : str
        The ranking of the hands.
    followers : {'at_most', 'exact'}
        The follower's rule.
    limit : int
        The leader's throw limit, 1 to 3.
    exact : bool
        Fractions if True, floats if False.
    """
    _check_throws(limit)
    if followers not in FOLLOWER_RULES:
        raise ValueError(f"followers: {shown(followers)} is not allowed; allowed: {', '.join(FOLLOWER_RULES)}")
    rank = dice.RANK[dice.ranking_index(ranking)]
    one, half, zero = (Fraction(1), Fraction(1, 2), Fraction(0)) if exact else (1.0, 0.5, 0.0)
    stop_value = [[zero] * dice.N_HANDS for _ in range(limit)]
    for target in range(dice.N_HANDS):
        reward = [one if rank[h] < rank[target] else half if h == target else zero for h in range(dice.N_HANDS)]
        follower = solve_turn(reward, followers, exact)
        for c in range(1, limit + 1):
            stop_value[c - 1][target] = one - follower.start_value(c)
    value: list = [None] * (limit + 1)
    keep_values: list = [None] * (limit + 1)
    value[limit] = list(stop_value[limit - 1])
    for made in range(limit - 1, 0, -1):
        kval = _throw_expectations(value[made + 1], exact)
        cur_keeps, cur = [], []
        for h in range(dice.N_HANDS):
            options = {k: stop_value[made - 1][h] if k == dice.FULL_KEEP + h else kval[k] for k in dice.keeps_of(h)}
            cur_keeps.append(options)
            cur.append(max(options.values()))
        keep_values[made] = cur_keeps
        value[made] = cur
    return LeaderRound(limit, stop_value, keep_values, value)
