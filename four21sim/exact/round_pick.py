"""Which of the keeps that tie on the round the round answer names: the tie rule.

The round answer (:func:`four21sim.exact.odds.keep_advice`) ranks keeps by one exact
chance: a follower's P(beating the worst hand on the table), a leader's P(not losing
the round to one follower). Several keeps often give exactly the same chance (a follower
holding a 6 behind 521 with one throw left: every keep of the 6 wins the round for sure).
A player keeps one of them, and they are not worth the same for the game.

The rule (:data:`RULE`, ``"value"``): among keeps with exactly the same round chance, the
one whose final hand is worth the most tokens on average (the variant's value scheme),
every later choice made by the same rule; keeps equal on both stay in
:data:`four21sim.rules.dice.HAND_KEEPS` order. It is a lexicographic single-turn problem
(the round chance first, then the expected value), solved exactly with fractions for
every hand, throws left, hand to beat and throw limit, so it needs no table and no state
of the game: it answers every situation the advisor and the page accept, at every table
size. Why this rule: a won round moves as many tokens as the winning hand is worth (the
loser takes them from the pot in the charge, the winner gives them away in the
décharge), and measured exactly over whole games (one seat following the round answer,
the others the equilibrium, at 2 to 4 players) it costs that player less than the old rule
(the first keep in ``HAND_KEEPS`` order) everywhere measured, and less than the best
expected rank at 2 players in every preset and at 3 in le bon (0.05 point more at 3 in
Super 421); results/round_answer/REPORT.md gives the numbers.

:data:`RULES` are the rules compared there (``"first"``: no second criterion, the old
answer). :func:`order` ranks the keeps of one situation; :func:`policy_tables` gives the
round answer of every situation as engine tables, so that the game can be evaluated
exactly with one seat playing it (``experiments/round_answer_cost.py``).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import numpy as np

from .._util.checks import shown
from ..rules import dice
from . import odds

__all__ = ["RULE", "RULES", "SECONDARY", "order", "secondary_values", "policy_tables"]

RULES = ("value", "rank", "first")
RULE = "value"
"""The rule the round answer uses (the advisor, its JSON and the page)."""
SECONDARY = {"value": "E[value]", "rank": "E[rank]", "first": ""}
"""How each rule's second measure is written (``E[rank]``: the mean place of the final hand in
the ranking, 1 for the best hand; lower is better)."""

_NH = dice.N_HANDS


def _check_rule(rule: str) -> str:
    if rule not in RULES:
        raise ValueError(f"rule: {shown(rule)} is not allowed; allowed: {', '.join(RULES)}")
    return rule


@lru_cache(maxsize=16)
def _second(rule: str, ranking: str, values: str) -> tuple:
    """The second measure of each final hand, larger is better."""
    if rule == "value":
        return tuple(Fraction(int(x)) for x in dice.VALUE[dice.values_index(values)])
    if rule == "rank":
        return tuple(Fraction(-int(r)) for r in dice.RANK[dice.ranking_index(ranking)])
    return (Fraction(0),) * _NH


def _pick(options: dict):
    """The lexicographic best of ``{keep: (round, second)}``, exact ties to the earlier keep."""
    best = None
    for k, val in options.items():
        if best is None or val > options[best]:
            best = k
    return best


def _throws(level: list) -> list:
    """Each throwing keep's pair of expectations, the next hands worth ``level``."""
    return list(zip(odds._throw_expectations([x[0] for x in level], True),
                    odds._throw_expectations([x[1] for x in level], True)))


@lru_cache(maxsize=1024)
def _follower(ranking: str, values: str, followers: str, target: int, rule: str) -> tuple:
    """``options[m][h]`` = ``{keep: (P(beat target), second)}``, m = 0 to 2, every later choice by the rule."""
    rank = dice.RANK[dice.ranking_index(ranking)]
    second = _second(rule, ranking, values)
    level = [(Fraction(int(rank[h] < rank[target])), second[h]) for h in range(_NH)]
    out = [[{dice.FULL_KEEP + h: level[h]} for h in range(_NH)]]
    for _m in range(1, odds.MAX_THROWS_LEFT + 1):
        kv = _throws(level)
        opts = []
        for h in range(_NH):
            o = {}
            for k in dice.keeps_of(h, allow_stop=followers == "at_most"):
                o[k] = out[0][h][k] if k == dice.FULL_KEEP + h else kv[k]
            opts.append(o)
        out.append(opts)
        level = [o[_pick(o)] for o in opts]
    return tuple(out)


@lru_cache(maxsize=64)
def _leader(ranking: str, values: str, followers: str, limit: int, rule: str) -> tuple:
    """``options[made][h]`` = ``{keep: (P(not losing the round), second)}``, made = 1 to limit."""
    lr = odds.leader_round(ranking, followers, limit, True)
    second = _second(rule, ranking, values)

    def stop(made, h):
        return lr.stop_value[made - 1][h], second[h]

    out: list = [None] * (limit + 1)
    out[limit] = [{dice.FULL_KEEP + h: stop(limit, h)} for h in range(_NH)]
    for made in range(limit - 1, 0, -1):
        nxt = out[made + 1]
        kv = _throws([o[_pick(o)] for o in nxt])
        out[made] = [{k: stop(made, h) if k == dice.FULL_KEEP + h else kv[k] for k in dice.keeps_of(h)}
                     for h in range(_NH)]
    return tuple(out)


def _options(variant, role: str, hand: int, throws_left: int, target, limit, rule: str) -> dict:
    v = variant
    if role == "leader":
        if limit is None:
            raise ValueError("limit: a leader's round answer needs the throw limit; allowed: 1 to 3")
        odds._check_throws(limit)
        made = limit - throws_left
        if not 1 <= made <= limit:
            raise ValueError(f"throws_left: {shown(throws_left)} is not allowed with a throw limit of {limit}; "
                             f"allowed: 0 to {limit - 1}")
        return _leader(v.ranking, v.values, v.followers, int(limit), rule)[made][hand]
    if role != "follower":
        raise ValueError(f"role: {shown(role)} is not allowed; allowed: leader, follower")
    if target is None:
        raise ValueError("target: a follower's round answer needs the hand to beat; allowed: a hand such as 521")
    m = odds._check_throws_left(throws_left)
    return _follower(v.ranking, v.values, v.followers, int(target), rule)[m][hand]


def order(variant, role: str, hand: int, throws_left: int, *, target: int | None = None, limit: int | None = None,
          rule: str = RULE) -> list[int]:
    """Every keep of one round situation, best first: by the round chance, exact ties by the rule.

    Parameters
    ----------
    variant : Variant
        The rules: ranking, value scheme and follower rule.
    role : {'leader', 'follower'}
    hand : int
        The hand held (index).
    throws_left : int
        Throws still allowed (0: only stopping).
    target : int, optional
        A follower: the worst hand on the table (index), to beat strictly.
    limit : int, optional
        A leader: the round's throw limit (1 to 3).
    rule : {'value', 'rank', 'first'}
        The tie rule (:data:`RULES`); the package's is :data:`RULE`.

    Returns
    -------
    list of int
        Keep indices: the round answer's order, the tie rule's pick first among the best.
    """
    opts = _options(variant, role, hand, throws_left, target, limit, _check_rule(rule))
    # best first on (round, second); a stable sort, reversed too, keeps equal keeps in HAND_KEEPS order
    return sorted(opts, key=lambda k: (odds._exact_key(opts[k][0]), odds._exact_key(opts[k][1])), reverse=True)


def secondary_values(variant, role: str, hand: int, throws_left: int, *, target: int | None = None,
                     limit: int | None = None, rule: str = RULE) -> dict:
    """``{keep: second measure}`` of one situation (as :func:`order`): E[value] in tokens, or E[rank]
    (1 for the best hand), each keep followed by the rule's play; empty for ``"first"``."""
    opts = _options(variant, role, hand, throws_left, target, limit, _check_rule(rule))
    if rule == "first":
        return {}
    if rule == "value":
        return {k: val[1] for k, val in opts.items()}
    return {k: 1 - val[1] for k, val in opts.items()}


def policy_tables(variant, rule: str = RULE) -> tuple[np.ndarray, np.ndarray]:
    """The round answer in every situation as engine tables in context mode 1 (``pot * (tokens + 1) + own``).

    ``lead[ctx, throws_left - 1, hand]`` plays the leader's round answer under the phase's throw
    limit (the pot says the phase); ``foll[ctx, target, count - 1, made - 1, hand]`` a follower's
    against the worst hand on the table. Pairs never met (``made >= count``) stop.
    """
    _check_rule(rule)
    v, T = variant, variant.tokens
    stop = (dice.FULL_KEEP + np.arange(_NH)).astype(dice.KEEP_DTYPE)
    foll1 = np.broadcast_to(stop, (_NH, 3, 2, _NH)).copy()
    for t in range(_NH):
        for count in (2, 3):
            for made in range(1, count):
                foll1[t, count - 1, made - 1] = [order(v, "follower", h, count - made, target=t, rule=rule)[0]
                                                 for h in range(_NH)]
    lead_of = {}
    for L in {v.charge_throws, v.decharge_throws}:
        rows = np.broadcast_to(stop, (2, _NH)).copy()
        for made in range(1, L):
            rows[L - made - 1] = [order(v, "leader", h, L - made, limit=L, rule=rule)[0] for h in range(_NH)]
        lead_of[L] = rows
    n_ctx = (T + 1) ** 2
    lead = np.empty((n_ctx, 2, _NH), dice.KEEP_DTYPE)
    for pot in range(T + 1):
        lead[pot * (T + 1):(pot + 1) * (T + 1)] = lead_of[v.charge_throws if pot else v.decharge_throws]
    foll = np.broadcast_to(foll1, (n_ctx, _NH, 3, 2, _NH)).copy()
    return lead, foll
