"""What a decision cost: the value of every keep at a decision, exact where the solvers reach.

- 2 players: P(win the game) of each keep, both playing optimally afterwards
  (:func:`four21sim.exact.two_player.leader_keep_values` and ``follower_keep_values``).
- 3 to 6 players: P(pay) of each keep for the player choosing, everyone playing the certified
  n-player equilibrium afterwards (:func:`four21sim.exact.nplayer.keep_values`, objective
  ``pay``); once players are out (``last_holder``), the equilibrium of the players left.
- Otherwise (more players or more tokens than the solvers take): the round answer's
  values (:func:`four21sim.advice.advisor.advise`), with what they measure.

The cost of a keep is the best keep's value minus its own, in percentage points of
the measure: 0 for the best keep (or one tied with it). The values assume optimal (or
equilibrium) play after the decision, whatever the opponents at the table really do.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..exact import nplayer, two_player
from ..rules import dice
from ..rules.state import Turn
from ..rules.variants import Variant

__all__ = ["KeepValues", "Answers", "Trainer", "TIE"]

TIE = 1e-9  # values this close are the same decision (the solvers' tie tolerance is 1e-12)


@dataclass(frozen=True)
class KeepValues:
    """Every keep of one decision with its value.

    Attributes
    ----------
    measure : str
        What the values are, e.g. ``P(win the game)``, ``P(pay)`` or ``P(beat 611)``.
    values : dict
        Keep index -> value.
    lower_is_better : bool
        True for P(pay).
    source : str
        Where the values come from, said to the player (``exact, 2 players``...).
    exact_game : bool
        Whether these are game values from an exact solver (False: the round answer).
    """

    measure: str
    values: dict
    lower_is_better: bool
    source: str
    exact_game: bool

    def _good(self, k: int) -> float:
        return -self.values[k] if self.lower_is_better else self.values[k]

    @property
    def best(self) -> int:
        """The best keep; among keeps within TIE of it, the first in ``dice.HAND_KEEPS`` order."""
        top = max(self._good(k) for k in self.values)
        return next(k for k in self.values if self._good(k) >= top - TIE)

    def cost(self, keep: int) -> float:
        """How much worse ``keep`` is than the best, in the measure's units (0 within TIE)."""
        c = self._good(self.best) - self._good(keep)
        return 0.0 if c <= TIE else float(c)


@dataclass(frozen=True)
class Answers:
    """Both answers at one decision of a game, as the hints and the trainer say them.

    Attributes
    ----------
    round : list of odds.Keep
        The round answer's legal keeps, best first, exact fractions.
    measure : str
        What the round values are, e.g. ``P(beat 611)``.
    objective : str
        The round answer's objective.
    game : KeepValues or None
        The exact game values (None where no solver reaches).
    best : BestPlay
        The best play on the round, a round tie broken by the game answer
        (:func:`four21sim.advice.advisor.best_play`).
    reason : str
        ``''`` when the round's best play is also the game's (within :data:`TIE`), else one
        sentence with the numbers saying why the game answer differs
        (:func:`four21sim.advice.explain.reason`, :func:`~four21sim.advice.explain.reason_table`).
    """

    round: list
    measure: str
    objective: str
    game: KeepValues | None
    best: object
    reason: str

    @property
    def differ(self) -> bool:
        return bool(self.reason)


class Trainer:
    """The values of the keeps at any decision of a game of ``variant`` with ``players`` seats.

    Solves once what it needs (the 2-player game in about a second; the n-player
    equilibrium once per variant, seconds to a minute at 3 players and minutes from 4,
    then from the disk cache).
    """

    def __init__(self, variant: Variant, players: int):
        self.variant, self.players = variant, players
        self._sol2 = self._soln = None

    @property
    def exact_players(self) -> tuple[int, ...]:
        """The player counts at which the values are exact game values for this variant."""
        out = ()
        if self.variant.tokens <= two_player.MAX_SOLVER_TOKENS:
            out += (2,)
        n = self.players
        if 3 <= n <= nplayer.ANSWER_PLAYERS and self.variant.tokens <= nplayer.MAX_TOKENS[n]:
            out += (n,)
        return out

    def solve(self) -> None:
        """Solve now what the game's decisions will need (the terminal says it is doing so)."""
        if self.players >= 3 and self.players in self.exact_players:
            self._many()
        elif self.players in self.exact_players:
            self._solution2()

    def _solution2(self):
        if self._sol2 is None:
            self._sol2 = two_player.solve(self.variant)
        return self._sol2

    def values(self, turn: Turn) -> KeepValues:
        """Every legal keep at ``turn`` with its value (see the module docstring)."""
        m = len(turn.order)
        if self.players >= 3 and self.players in self.exact_players:
            return self._nplayer(turn)
        if self.players in self.exact_players and m == 2:
            return self._two(turn)
        return self.round_values(turn)

    def _two(self, turn: Turn) -> KeepValues:
        sol = self._solution2()
        other = next(s for s in turn.order if s != turn.seat)
        pot, mine, theirs = turn.pot, turn.tokens[turn.seat], turn.tokens[other]
        if turn.leading:
            v = two_player.leader_keep_values(sol, pot, mine, theirs, turn.hand, turn.made)
        else:
            v = two_player.follower_keep_values(sol, pot, mine, theirs, turn.target, turn.limit, turn.hand,
                                                turn.made)
        left = "" if self.players == 2 else ", the 2 players left"
        return KeepValues("P(win the game)", v, False, f"exact{left}, both playing optimally afterwards", True)

    def _many(self):
        if self._soln is None:
            self._soln = nplayer.solve(self.variant, self.players, "pay")
        return self._soln

    def _nplayer(self, turn: Turn) -> KeepValues:
        order = tuple(turn.order)
        sol = nplayer.in_play(self._many(), len(order))
        state = (turn.pot, tuple(turn.tokens[s] for s in order))
        hands, throws = tuple(h for _, h, _ in turn.table), tuple(f for _, _, f in turn.table)
        u = nplayer.keep_values(sol, state, order.index(turn.seat), hands, throws, turn.made, turn.hand)
        who = f"{len(order)} players" if len(order) == self.players else f"the {len(order)} players left"
        return KeepValues("P(pay)", {k: 1.0 - x for k, x in u.items()}, True,
                          f"exact, {who}, everyone playing the equilibrium afterwards", True)

    def _round(self, turn: Turn):
        """The round answer at ``turn``: ``(legal keeps best first, exact; measure; objective)``."""
        from .advisor import advise
        worst = None if turn.leading else dice.hand_name(turn.target)
        kw = dict(role="leader") if turn.leading else dict(role="follower", beat=worst, count=turn.limit)
        adv = advise(dice.hand_name(turn.hand), throws_left=turn.throws_left, phase=turn.phase,
                     variant=self.variant, exact=True, **kw)
        legal = set(int(k) for k in dice.keeps_of(turn.hand, allow_stop=turn.may_stop))
        return [k for k in adv.round if k.index in legal], adv.measure, adv.objective

    def round_values(self, turn: Turn) -> KeepValues:
        """The round answer's values at ``turn`` (single-turn odds: a follower against the worst hand so far,
        a leader against one follower), in the round answer's order."""
        rows, measure, _ = self._round(turn)
        return KeepValues(measure, {k.index: float(k.value) for k in rows}, False,
                          "the round answer only (no exact solver for this table)", False)

    def answers(self, turn: Turn) -> Answers:
        """Both answers at ``turn``: the best play (a round tie broken by the game), the game values, and
        why the game answer differs where it does."""
        from .advisor import best_play
        from .explain import reason, reason_table
        rows, measure, objective = self._round(turn)
        values = self.values(turn)
        game = values if values.exact_game else None
        bp = best_play(rows, None if game is None else game.values,
                       lower_is_better=game is not None and game.lower_is_better,
                       game_measure="" if game is None else game.measure,
                       game_best=None if game is None else game.best)
        why = ""
        if game is not None and game.cost(bp.index) > 0.0:
            round_of = {k.index: k.value for k in rows}
            if game.lower_is_better:
                why = reason_table(turn.hand, bp.index, game.best, round_of, game.values, measure, objective, 1)
            else:
                other = next(s for s in turn.order if s != turn.seat)
                state = (turn.pot, turn.tokens[turn.seat], turn.tokens[other])
                role = "leader" if turn.leading else "follower"
                why = reason(self.variant, role, turn.hand, turn.made, state, bp.index, game.best, round_of,
                             game.values, measure, objective, None if turn.leading else turn.target,
                             None if turn.leading else turn.limit, 1)
        return Answers(rows, measure, objective, game, bp, why)
