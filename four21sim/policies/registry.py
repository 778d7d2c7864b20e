"""The registry of named policies: every list of policy names derives from it.

Each row (:class:`PolicySpec`) names a policy, its builder (:mod:`.heuristics`,
:mod:`.optimal`), the player counts it is defined for and when it cannot be built.

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
    ``fewer_throws_wins`` uses to split equal hands: a habit, not an optimum.) A leader
    stops as soon as its hand is at least the *threshold* (by default the median hand of one throw: a fresh throw of
    three dice beats it with probability at most 1/2), and otherwise keeps what
    maximises the probability of reaching the threshold.
``random``
    Chooses uniformly among the legal keeps (stopping included where allowed),
    drawing from the game's random stream. A baseline, not a strategy.
``optimal``
    Optimal play where it is computed exactly. With 2 players: the optimum of
    :mod:`four21sim.exact.two_player` (context mode 1). With 3 players: the certified
    equilibrium of :mod:`four21sim.exact.nplayer` where each player minimises its own
    P(pay) (context mode 2, docs/engine.md; docs/equilibrium.md says why "optimal"
    means an equilibrium there); with 4 players the same in the solver's own contexts
    (context mode 3: a few GB of tables at 11 tokens, built in about a minute once the
    solve is on disk; refused where they would pass 6 GiB, as classic's 32.5). At 5 and 6
    players the tables would not fit (docs/nplayer.md): the engine and the studies refuse it,
    with the reason :meth:`PolicySpec.why_not` gives.
    At the terminal and in the environments, from 4 players, the n-player equilibrium
    decides one turn at a time instead, without tables (4 to 6 players,
    :class:`four21sim.policies.optimal.OptimalPlayer`).

``equilibrium`` is the older name of ``optimal`` at 3 players; it is still accepted
(with a FutureWarning) and means ``optimal`` at any player count.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

from .._util.checks import shown
from ..exact import two_player
from ..rules.variants import MAX_PLAYERS, MIN_PLAYERS, Variant, as_variant
from . import heuristics as H
from . import optimal as O
from .contexts import CTX_COMPACT
from .tables import Policy, check_policy

__all__ = ["PolicySpec", "REGISTRY", "POLICY_NAMES", "TABLE_POLICIES", "HABITS", "ALIASES", "canonical_name",
           "compile_policy", "compile_decider", "check_available", "resolve_policies", "evaluate", "policies_for",
           "policy_help"]


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
        can reuse it (the disk cache, :mod:`four21sim.exact.store`), so that several can be
        done side by side in other processes; None when nothing is shared that way.
    habit : bool
        A habit a player may have at the table (a heuristic of its own hand and the table,
        no solve): the habits studied against optimal play and used as deviations.
    decide : callable or None
        ``decide(variant, players) -> plug-in policy``: where the policy has no decision tables
        (``players`` outside :attr:`players`) but can decide one turn at a time (``four21sim play``,
        the environments; not the engine or the studies). None: nowhere beyond its tables.
    decide_players : tuple of int or None
        The smallest and largest player counts ``decide`` is for.
    decide_unavailable : callable or None
        As ``unavailable``, for ``decide``.
    """

    name: str
    build: Callable[[Variant, int], Policy]
    table: bool
    players: tuple[int, int]
    summary: str
    unavailable: Callable[[Variant, int], str | None] | None = None
    costly: bool = False
    warm: Callable[[Variant, int], None] | None = None
    habit: bool = False
    decide: Callable[[Variant, int], Callable] | None = None
    decide_players: tuple[int, int] | None = None
    decide_unavailable: Callable[[Variant, int], str | None] | None = None

    def fits(self, players: int) -> bool:
        return self.players[0] <= players <= self.players[1]

    def decides(self, players: int) -> bool:
        """Whether it decides one turn at a time (without tables) at ``players`` players."""
        return self.decide is not None and self.decide_players[0] <= players <= self.decide_players[1]

    def why_not(self, variant: Variant, players: int, turn_by_turn: bool = False) -> str | None:
        """Why this policy cannot play ``players`` players of ``variant`` (None if it can): with its
        decision tables (the engine, the studies), or, with ``turn_by_turn``, one decision at a time
        as well (``four21sim play``, the environments)."""
        if turn_by_turn and self.decides(players):
            return self.decide_unavailable(variant, players) if self.decide_unavailable else None
        if not self.fits(players):
            where = "" if self.decide is None else " in the engine and the studies (decision tables)"
            also = "" if self.decide is None else (f"; one decision at a time (four21sim play, the environments) "
                                                   f"for {_span(self.decide_players)}")
            return f"{self.name!r} is defined for {_span(self.players)}{where}, not {players}{also}"
        return self.unavailable(variant, players) if self.unavailable else None


def _span(players: tuple[int, int]) -> str:
    lo, hi = players
    return f"{lo} players" if lo == hi else f"{lo} to {hi} players"


_ALL = (MIN_PLAYERS, MAX_PLAYERS)
REGISTRY: tuple[PolicySpec, ...] = (
    PolicySpec("sec", H.build_sec, True, _ALL, "never re-throws", habit=True),
    PolicySpec("chase421", H.build_chase421, True, _ALL, "plays for 421 only", habit=True),
    PolicySpec("greedy", H.build_greedy, True, _ALL, "maximises the expected value of its own hand", habit=True),
    PolicySpec("table-aware", H.build_table_aware, True, _ALL,
               "a follower plays not to lose to the worst hand on the table; a leader stops at the median hand",
               habit=True),
    PolicySpec("random", H.build_random, False, _ALL, "a uniform choice among the legal keeps (a baseline)"),
    PolicySpec("optimal", O.build_optimal, True, O.TABLE_PLAYERS,
               "exact optimal play: the 2-player optimum, or the certified 3- to 5-player equilibrium where "
               "each minimises its own P(pay)", O.optimal_unavailable, costly=True, warm=O.warm_optimal,
               decide=O.build_optimal_player, decide_players=O.DECISION_PLAYERS,
               decide_unavailable=O.optimal_player_unavailable),
)
_SPEC = {p.name: p for p in REGISTRY}
# older names still accepted, with a FutureWarning: old name -> registry name
ALIASES = {"equilibrium": "optimal"}
POLICY_NAMES: tuple[str, ...] = tuple(_SPEC)
TABLE_POLICIES: tuple[str, ...] = tuple(p.name for p in REGISTRY if p.table)
HABITS: tuple[str, ...] = tuple(p.name for p in REGISTRY if p.habit)


def policies_for(players: int) -> tuple[str, ...]:
    """The names of the policies defined for ``players`` players."""
    return tuple(p.name for p in REGISTRY if p.fits(players))


def policy_help() -> str:
    """One line per policy, for help texts."""
    def span(p: PolicySpec) -> str:
        lo, hi = p.players
        text = "" if p.players == _ALL else _span(p.players)
        if p.decide is not None and text:
            text += f"; {_span(p.decide_players)} one decision at a time, in play"
        return f" ({text})" if text else ""

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
        raise ValueError(f"policies: unknown policy {shown(name)}; allowed: {', '.join(POLICY_NAMES)}")
    return key


def compile_policy(name: str | Policy, variant: Variant, players: int = 2) -> Policy:
    """The named policy compiled for a variant (a :class:`Policy` passes through after checks).

    Raises
    ------
    ValueError
        For an unknown name, a policy built for another variant, or a policy not
        defined for ``players`` (``optimal`` is for 2 to 5 players).
    """
    if isinstance(name, Policy):
        check_policy(name, variant, players)
        return name
    spec = check_available(name, variant, players)
    return spec.build(variant, players)


def compile_decider(name: str | Policy, variant: Variant, players: int = 2):
    """A seat's decider for play one decision at a time: the compiled tables where the policy has
    them, else its turn-by-turn plug-in (``optimal`` from 4 players: the n-player equilibrium).

    Raises
    ------
    ValueError
        As :func:`compile_policy`, naming where the policy is defined.
    """
    if isinstance(name, Policy):
        if name.ctx_mode == CTX_COMPACT:  # its rows follow the engine's walk through the solver's contexts
            raise ValueError(f"policies: policy {name.name!r} is engine tables in context mode 3; allowed one "
                             "decision at a time: the name 'optimal'")
        return compile_policy(name, variant, players)
    spec = _SPEC[canonical_name(name)]
    if not spec.decides(players):  # (one decision at a time needs no tables, which may be large)
        return compile_policy(spec.name, variant, players)
    why = spec.why_not(variant, players, turn_by_turn=True)
    if why:
        raise ValueError(f"policies: {why}")
    return spec.decide(variant, players)


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
        raise ValueError(f"policies: {shown(policies)} is not allowed; allowed: a policy name "
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


def evaluate(variant: Variant | str, policies) -> dict:
    """Exact P(seat 0 wins) and expected rounds when two table policies play each other.

    ``policies`` are two names or :class:`Policy` objects (``random`` is not a table
    policy and cannot be evaluated exactly). ``variant``: a Variant or a preset name. See
    :func:`four21sim.exact.two_player.evaluate`.
    """
    variant = as_variant(variant)
    pols = resolve_policies(variant, 2, policies)
    for p in pols:
        if p.kind != "table":
            raise ValueError(f"policies: {p.name!r} is not a table policy; allowed: {', '.join(TABLE_POLICIES)}")
    return two_player.evaluate(variant, pols)
