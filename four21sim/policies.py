"""Keep/reroll policies, compiled to the tables the engine indexes.

A policy decides, for a leader, when to stop and which dice to keep, and for a
follower, which dice to keep (and, under ``at_most``, when to stop). Every table
policy is two arrays of keep indices (docs/engine.md):

``lead[ctx, throws_left - 1, hand]``
    the leader's keep with ``throws_left`` (1 or 2) throws still allowed;
``foll[ctx, target, count - 1, made - 1, hand]``
    a follower's keep after ``made`` throws out of the round's ``count``, when
    ``target`` is the worst hand on the table so far.

``ctx`` is always 0 except for the exact 2-player optimal policy, whose
decisions also depend on the pot and the tokens (context mode 1).

The named policies
------------------
``sec``
    Never re-throws: the leader stops after one throw, so everyone plays one
    throw. A follower who must re-throw (``exact`` rule behind a leader who threw
    more than once) re-throws all three dice.
``chase421``
    Plays for 421 only: keeps the dice that maximise the probability of ending
    with 421 in the throws left, and a leader stops only on 421.
``greedy``
    Maximises the expected value (in tokens, under the variant's value scheme)
    of its own final hand, stopping when that is best.
``table-aware``
    A follower maximises P(beat the worst hand on the table) + 1/2 P(equal it):
    its chance of not ending as the round's loser against that hand, with ties
    settled by a fair roll-off. (It ignores the throw counts that
    ``fewer_throws_wins`` uses to split equal hands: a habit, not an optimum.) A leader stops as soon as its hand is at least
    the *threshold* (by default the median hand of one throw: a fresh throw of
    three dice beats it with probability at most 1/2), and otherwise keeps what
    maximises the probability of reaching the threshold.
``random``
    Chooses uniformly among the legal keeps (stopping included where allowed),
    drawing from the game's random stream. A baseline, not a strategy.
``optimal``
    The exact 2-player optimum of :mod:`four21sim.solver` (2 players only).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from . import dice, odds
from .variants import Variant

__all__ = ["Policy", "POLICY_NAMES", "compile_policy", "table_policy", "check_policy"]

POLICY_NAMES = ("sec", "chase421", "greedy", "table-aware", "random", "optimal")
KEEP_DTYPE = np.int8  # keep indices are 0..83
_NH = dice.N_HANDS


@dataclass(frozen=True, eq=False)
class Policy:
    """A compiled policy: what the engine reads.

    Attributes
    ----------
    name : str
    kind : {'table', 'random'}
    ctx_mode : int
        0: decisions ignore the token state; 1: indexed by ``pot * (tokens+1) + own``.
    lead, foll : ndarray of int8
        Decision tables (see the module docstring); empty for ``random``.
    variant : Variant
        The variant the tables were built for.
    players : int or None
        The player count the policy is built for, or None if it fits any.
    """

    name: str
    kind: str
    ctx_mode: int
    lead: np.ndarray
    foll: np.ndarray
    variant: Variant
    players: int | None = None
    info: dict = field(default_factory=dict)

    def leader_keep(self, hand: int, throws_left: int, ctx: int = 0) -> int:
        """The leader's keep index for a hand with 1 or 2 throws left."""
        return int(self.lead[ctx, throws_left - 1, hand])

    def follower_keep(self, hand: int, target: int, count: int, made: int, ctx: int = 0) -> int:
        """A follower's keep index after ``made`` of ``count`` throws against ``target``."""
        return int(self.foll[ctx, target, count - 1, made - 1, hand])


def _empty_tables(n_ctx: int = 1) -> tuple[np.ndarray, np.ndarray]:
    stop = (dice.FULL_KEEP + np.arange(_NH)).astype(KEEP_DTYPE)
    lead = np.broadcast_to(stop, (n_ctx, 2, _NH)).copy()
    foll = np.broadcast_to(stop, (n_ctx, _NH, 3, 2, _NH)).copy()
    return lead, foll


def _fill_from_odds(table: np.ndarray, turn: odds.TurnOdds, throws_left: int) -> None:
    table[...] = np.asarray(turn.best_keep[throws_left], dtype=KEEP_DTYPE)


def _fill_follower(foll_ctx: np.ndarray, turn_for_target) -> None:
    """foll_ctx[target, count-1, made-1, hand] from a turn solution per target."""
    for target in range(_NH):
        turn = turn_for_target(target)
        for count in (2, 3):
            for made in range(1, count):
                foll_ctx[target, count - 1, made - 1, :] = turn.best_keep[count - made]


def table_policy(name: str, variant: Variant, lead: np.ndarray, foll: np.ndarray, ctx_mode: int = 0,
                 players: int | None = None, info: dict | None = None) -> Policy:
    """Wrap decision tables as a :class:`Policy` after checking they are legal."""
    pol = Policy(name, "table", ctx_mode, np.ascontiguousarray(lead, dtype=KEEP_DTYPE),
                 np.ascontiguousarray(foll, dtype=KEEP_DTYPE), variant, players, info or {})
    check_policy(pol, variant)
    return pol


@lru_cache(maxsize=64)
def _compile_heuristic(name: str, variant: Variant) -> Policy:
    lead, foll = _empty_tables()
    rule = variant.followers
    if name == "sec":
        if rule == "exact":
            foll[...] = dice.EMPTY_KEEP  # forced to re-throw: throw all three again
    elif name in ("chase421", "greedy"):
        objective = "421" if name == "chase421" else "value"
        lead_turn = odds.turn_odds(objective, None, variant.ranking, variant.values, "at_most")
        foll_turn = odds.turn_odds(objective, None, variant.ranking, variant.values, rule)
        for tl in (1, 2):
            _fill_from_odds(lead[0, tl - 1], lead_turn, tl)
        _fill_follower(foll[0], lambda target: foll_turn)
    elif name == "table-aware":
        threshold = median_hand(variant.ranking)
        lead_turn = odds.turn_odds("reach", threshold, variant.ranking, variant.values, "at_most")
        for tl in (1, 2):
            _fill_from_odds(lead[0, tl - 1], lead_turn, tl)
        rank = dice.RANK[variant.ranking_index]

        def against(target):
            reward = [1.0 if rank[h] < rank[target] else 0.5 if h == target else 0.0 for h in range(_NH)]
            return odds.solve(reward, rule)

        _fill_follower(foll[0], against)
    else:  # pragma: no cover - guarded by compile_policy
        raise AssertionError(name)
    info = {"threshold": dice.hand_name(median_hand(variant.ranking))} if name == "table-aware" else {}
    return table_policy(name, variant, lead, foll, 0, None, info)


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


def compile_policy(name: str | Policy, variant: Variant, players: int = 2) -> Policy:
    """The named policy compiled for a variant (a :class:`Policy` passes through after checks).

    Raises
    ------
    ValueError
        For an unknown name, a policy built for another variant, or ``optimal``
        with other than 2 players.
    """
    if isinstance(name, Policy):
        check_policy(name, variant, players)
        return name
    key = str(name).strip().lower().replace("_", "-")
    if key == "tableaware":
        key = "table-aware"
    if key not in POLICY_NAMES:
        raise ValueError(f"policies: unknown policy {name!r}; allowed: {', '.join(POLICY_NAMES)}")
    if key == "random":
        lead, foll = _empty_tables()
        return Policy("random", "random", 0, lead, foll, variant, None, {})
    if key == "optimal":
        if players != 2:
            raise ValueError(f"policies: 'optimal' is exact for 2 players only, not {players}; "
                             "allowed with more players: sec, chase421, greedy, table-aware, random")
        from .solver import optimal_policy
        return optimal_policy(variant)
    return _compile_heuristic(key, variant)


_LEGAL = np.zeros((_NH, dice.N_KEEPS), dtype=bool)
for _h in range(_NH):
    _LEGAL[_h, dice.keeps_of(_h)] = True


def check_policy(policy: Policy, variant: Variant, players: int | None = None) -> None:
    """Raise ValueError unless ``policy`` fits ``variant`` (and ``players``) and its tables are legal."""
    if policy.variant != variant:
        raise ValueError(f"policies: policy {policy.name!r} was built for {policy.variant.describe()}, "
                         f"not for {variant.describe()}; compile it for this variant")
    if players is not None and policy.players is not None and policy.players != players:
        raise ValueError(f"policies: policy {policy.name!r} was built for {policy.players} players, not {players}")
    if policy.kind == "random":
        return
    lead, foll = policy.lead, policy.foll
    if lead.ndim != 3 or lead.shape[1:] != (2, _NH) or foll.ndim != 5 or foll.shape[1:] != (_NH, 3, 2, _NH) \
            or lead.shape[0] != foll.shape[0]:
        raise ValueError(f"policies: policy {policy.name!r} has tables of the wrong shape "
                         f"{lead.shape} / {foll.shape}")
    hands = np.arange(_NH)
    if ((lead < 0) | (lead >= dice.N_KEEPS)).any() or not _LEGAL[hands, lead].all():
        raise ValueError(f"policies: policy {policy.name!r} keeps dice its leader does not hold")
    if ((foll < 0) | (foll >= dice.N_KEEPS)).any() or not _LEGAL[hands, foll].all():
        raise ValueError(f"policies: policy {policy.name!r} keeps dice its follower does not hold")
    if variant.followers == "exact":
        stops = foll == (dice.FULL_KEEP + hands)
        used = np.zeros((3, 2), dtype=bool)
        used[1, 0] = used[2, 0] = used[2, 1] = True  # (count-1, made-1) with made < count
        if stops[:, :, used, :].any():
            raise ValueError(f"policies: policy {policy.name!r} lets a follower stop early, "
                             "which the 'exact' follower rule forbids")
    if policy.ctx_mode == 1:
        need = (variant.tokens + 1) ** 2
        if lead.shape[0] != need:
            raise ValueError(f"policies: policy {policy.name!r} has {lead.shape[0]} contexts, needs {need}")
