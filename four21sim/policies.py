"""Keep/reroll policies, compiled to the tables the engine indexes.

A policy decides, for a leader, when to stop and which dice to keep, and for a
follower, which dice to keep (and, under ``at_most``, when to stop). Every table
policy is two arrays of keep indices (docs/engine.md):

``lead[ctx, throws_left - 1, hand]``
    the leader's keep with ``throws_left`` (1 or 2) throws still allowed;
``foll[ctx, target, count - 1, made - 1, hand]``
    a follower's keep after ``made`` throws out of the round's ``count``, when
    ``target`` is the worst hand on the table so far.

``ctx`` is always 0 except for ``optimal``: with 2 players its decisions also depend
on the pot and the tokens (context mode 1), with 3 on the whole round (context mode 2).

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
    Optimal play where it is computed exactly. With 2 players: the optimum of
    :mod:`four21sim.solver` (context mode 1). With 3 players: the certified
    equilibrium of :mod:`four21sim.solver3` where each player minimises its own
    P(pay) (context mode 2, docs/engine.md; docs/equilibrium.md says why "optimal"
    means an equilibrium there). Not defined for 4 players or more.

``equilibrium`` is the older name of ``optimal`` at 3 players; it is still accepted
(with a FutureWarning) and means ``optimal`` at any player count.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from . import dice, odds, solver
from .variants import MAX_PLAYERS, MIN_PLAYERS, Variant

__all__ = ["Policy", "PolicySpec", "REGISTRY", "POLICY_NAMES", "TABLE_POLICIES", "ALIASES", "compile_policy",
           "check_available", "resolve_policies", "table_policy", "check_policy", "evaluate", "policies_for", "policy_help"]

KEEP_DTYPE = dice.KEEP_DTYPE
_NH = dice.N_HANDS


@dataclass(frozen=True, eq=False)
class Policy:
    """A compiled policy: what the engine reads.

    Attributes
    ----------
    name : str
    kind : {'table', 'random'}
    ctx_mode : int
        0: decisions ignore the token state; 1: indexed by ``pot * (tokens+1) + own``;
        2: indexed by the round's state and the hands before (docs/engine.md).
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
            return odds.solve_turn(reward, rule)

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


def _random(variant: Variant) -> Policy:
    lead, foll = _empty_tables()
    return Policy("random", "random", 0, lead, foll, variant, None, {})


def _optimal(variant: Variant, players: int) -> Policy:
    return _optimal2(variant) if players == 2 else _optimal3(variant)


@lru_cache(maxsize=32)
def _optimal2(variant: Variant) -> Policy:
    sol = solver.solve(variant)
    return table_policy("optimal", variant, sol.lead, sol.foll, ctx_mode=1, players=2,
                        info={"p_seat0": sol.p_seat0})


@lru_cache(maxsize=8)
def _optimal3(variant: Variant) -> Policy:
    from . import solver3
    sol = solver3.solve(variant, 3)
    lead, foll = solver3.engine_tables(sol)
    return table_policy("optimal", variant, lead, foll, ctx_mode=2, players=3,
                        info={"p_pay": sol.seat_p_pay.tolist(), "exploitability": sol.exploitability})


def _optimal_warm(variant: Variant, players: int) -> None:
    if players == 3:  # the 3-player solve goes to the disk cache; the 2-player one is quick
        from . import solver3
        solver3.solve(variant, 3)


def _optimal_unavailable(variant: Variant, players: int) -> str | None:
    from .solver3 import MAX_TOKENS_3
    cap = solver.MAX_SOLVER_TOKENS if players == 2 else MAX_TOKENS_3
    if variant.tokens > cap:
        return f"the exact {players}-player solver takes at most {cap} tokens, not {variant.tokens}"
    return None


@dataclass(frozen=True)
class PolicySpec:
    """One named policy: the registry row every list of policy names derives from.

    Attributes
    ----------
    name : str
    build : callable
        ``build(variant, players) -> Policy``.
    table : bool
        Decisions are tables (exact evaluation against the solver is possible).
    players : tuple of int
        The smallest and largest player counts it is defined for.
    summary : str
        One line for help texts.
    unavailable : callable or None
        ``unavailable(variant, players) -> str | None``: why the policy cannot be built
        for this variant (None when it can), checked without building it.
    costly : bool
        Building it takes seconds to minutes (a solve): a study builds it once per
        process and checks it without building it.
    warm : callable or None
        ``warm(variant, players)``: do the costly part of a build where other processes
        can reuse it (the disk cache, :mod:`four21sim.cache`), so that several can be
        done side by side in other processes; None when nothing is shared that way.
    """

    name: str
    build: Callable[[Variant, int], Policy]
    table: bool
    players: tuple[int, int]
    summary: str
    unavailable: Callable[[Variant, int], str | None] | None = None
    costly: bool = False
    warm: Callable[[Variant, int], None] | None = None

    def fits(self, players: int) -> bool:
        return self.players[0] <= players <= self.players[1]

    def why_not(self, variant: Variant, players: int) -> str | None:
        """Why this policy cannot play ``players`` players of ``variant`` (None if it can)."""
        if not self.fits(players):
            lo, hi = self.players
            span = f"{lo} players" if lo == hi else f"{lo} to {hi} players"
            return f"{self.name!r} is defined for {span}, not {players}"
        return self.unavailable(variant, players) if self.unavailable else None


_ALL = (MIN_PLAYERS, MAX_PLAYERS)
REGISTRY: tuple[PolicySpec, ...] = (
    PolicySpec("sec", lambda v, n: _compile_heuristic("sec", v), True, _ALL, "never re-throws"),
    PolicySpec("chase421", lambda v, n: _compile_heuristic("chase421", v), True, _ALL, "plays for 421 only"),
    PolicySpec("greedy", lambda v, n: _compile_heuristic("greedy", v), True, _ALL,
               "maximises the expected value of its own hand"),
    PolicySpec("table-aware", lambda v, n: _compile_heuristic("table-aware", v), True, _ALL,
               "a follower plays not to lose to the worst hand on the table; a leader stops at the median hand"),
    PolicySpec("random", lambda v, n: _random(v), False, _ALL, "a uniform choice among the legal keeps (a baseline)"),
    PolicySpec("optimal", _optimal, True, (2, 3),
               "exact optimal play: the 2-player optimum, or the certified 3-player equilibrium where each "
               "minimises its own P(pay)", _optimal_unavailable, costly=True, warm=_optimal_warm),
)
_SPEC = {p.name: p for p in REGISTRY}
# older names still accepted, with a FutureWarning: old name -> registry name
ALIASES = {"equilibrium": "optimal"}
POLICY_NAMES: tuple[str, ...] = tuple(_SPEC)
TABLE_POLICIES: tuple[str, ...] = tuple(p.name for p in REGISTRY if p.table)


def policies_for(players: int) -> tuple[str, ...]:
    """The names of the policies defined for ``players`` players."""
    return tuple(p.name for p in REGISTRY if p.fits(players))


def policy_help() -> str:
    """One line per policy, for help texts."""
    def span(p: PolicySpec) -> str:
        lo, hi = p.players
        return "" if p.players == _ALL else f" ({lo} players)" if lo == hi else f" ({lo} or {hi} players)"

    return "\n".join(f"{p.name}: {p.summary}{span(p)}" for p in REGISTRY)


def canonical_name(name: str) -> str:
    """The registry name of a policy as people write it (``table_aware``, ``Greedy``)."""
    key = str(name).strip().lower().replace("_", "-")
    if key == "tableaware":
        key = "table-aware"
    if key in ALIASES:
        warnings.warn(f"policies: {name!r} is now called {ALIASES[key]!r}; the old name will go",
                      FutureWarning, stacklevel=3)
        key = ALIASES[key]
    if key not in _SPEC:
        raise ValueError(f"policies: unknown policy {name!r}; allowed: {', '.join(POLICY_NAMES)}")
    return key


def compile_policy(name: str | Policy, variant: Variant, players: int = 2) -> Policy:
    """The named policy compiled for a variant (a :class:`Policy` passes through after checks).

    Raises
    ------
    ValueError
        For an unknown name, a policy built for another variant, or a policy not
        defined for ``players`` (``optimal`` is for 2 and 3 players).
    """
    if isinstance(name, Policy):
        check_policy(name, variant, players)
        return name
    spec = check_available(name, variant, players)
    return spec.build(variant, players)


def check_available(name: str, variant: Variant, players: int) -> PolicySpec:
    """The registry row of ``name`` if it can play ``players`` players of ``variant``, without
    building it; ValueError naming the policy and what is allowed otherwise."""
    spec = _SPEC[canonical_name(name)]
    why = spec.why_not(variant, players)
    if why:
        raise ValueError(f"policies: {why}; allowed with {players} players: "
                         f"{', '.join(p.name for p in REGISTRY if not p.why_not(variant, players))}")
    return spec


def resolve_policies(variant: Variant, players: int, policies) -> list[Policy]:
    """One compiled policy per seat from a name, a Policy, or a sequence of them."""
    if isinstance(policies, (str, Policy)):
        policies = [policies] * players
    if policies is None or not hasattr(policies, "__iter__"):
        raise ValueError(f"policies: {policies!r} is not allowed; allowed: a policy name "
                         f"({', '.join(POLICY_NAMES)}), a Policy, or one per seat")
    policies = list(policies)
    if len(policies) != players:
        raise ValueError(f"policies: {len(policies)} policies given for {players} players; "
                         "allowed: one policy name, or exactly one per seat")
    cache: dict = {}
    out = []
    for p in policies:
        key = p if isinstance(p, str) else id(p)
        if key not in cache:
            cache[key] = compile_policy(p, variant, players)
        out.append(cache[key])
    return out


def evaluate(variant: Variant, policies) -> dict:
    """Exact P(seat 0 wins) and expected rounds when two table policies play each other.

    ``policies`` are two names or :class:`Policy` objects (``random`` is not a table
    policy and cannot be evaluated exactly). See :func:`four21sim.solver.evaluate`.
    """
    pols = resolve_policies(variant, 2, policies)
    for p in pols:
        if p.kind != "table":
            raise ValueError(f"policies: {p.name!r} is not a table policy; allowed: {', '.join(TABLE_POLICIES)}")
    return solver.evaluate(variant, pols)


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
    used = np.zeros((3, 2), dtype=bool)
    used[1, 0] = used[2, 0] = used[2, 1] = True  # (count-1, made-1) with made < count
    for lo in range(0, foll.shape[0], 2048):  # in blocks: the 3-player tables are large
        part = foll[lo:lo + 2048]
        if ((part < 0) | (part >= dice.N_KEEPS)).any() or not _LEGAL[hands, part].all():
            raise ValueError(f"policies: policy {policy.name!r} keeps dice its follower does not hold")
        if variant.followers == "exact" and (part == (dice.FULL_KEEP + hands))[:, :, used, :].any():
            raise ValueError(f"policies: policy {policy.name!r} lets a follower stop early, "
                             "which the 'exact' follower rule forbids")
    if policy.ctx_mode in (1, 2):
        if policy.ctx_mode == 1:
            need = (variant.tokens + 1) ** 2
        else:
            from .solver3 import engine_rows
            need = engine_rows(variant)
        if lead.shape[0] != need:
            raise ValueError(f"policies: policy {policy.name!r} has {lead.shape[0]} contexts, needs {need}")
