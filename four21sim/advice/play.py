"""A game of 421 played one decision at a time: by a person, plugged-in Python policies,
table policies, or any mix of them.

:class:`Game` is the machinery: it plays the game up to the next decision and waits for
it (``game.turn`` is what the player deciding sees; ``game.play(keep)`` goes on). The
dice come from the engine's random stream (docs/engine.md: game ``game`` of ``seed``,
drawn in the same order), and every rule is the engine's (:mod:`four21sim.rules.kernel`,
through the steps :mod:`four21sim.engine` makes public): if every seat decided as a
table policy, the game would be the engine's game die for die. :func:`play_game` drives
it with a callback for the person's seat (``four21sim play`` at the terminal, the
environment of :mod:`four21sim.env`, or code).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .. import engine as E
from .._util.checks import check_int
from ..policies import Policy
from ..policies.contexts import CTX_ROUND
from ..policies.plugin import DECISION_SECONDS, LoadedPlugin, is_plugin, load_plugin, plugin_keep, plugin_name
from ..policies.registry import compile_decider
from ..rules import dice
from ..rules import kernel as R
from ..rules.state import GameState, Turn, parse_keep, start_state
from ..rules.variants import MAX_PLAYERS, MIN_PLAYERS, Variant

__all__ = ["Turn", "GameResult", "Game", "play_game", "parse_keep", "seat_policies", "policy_label", "MAX_GAME",
           "MAX_ROUNDS"]

MAX_GAME = 2**63 - 1
"""The last game index of a seed's stream: the engine counts games in 64 bits (``simulate``'s ``first_game``)."""
MAX_ROUNDS = 10_000
"""The rounds a game may last before :class:`Game` stops it (no game of the package's variants comes near)."""


@dataclass
class GameResult:
    """The end of a game: winners and losers (seats), tokens, rounds played, what happened."""

    winners: list
    losers: list
    tokens: list
    rounds: int
    events: list = field(default_factory=list)


def _opponent(spec, variant: Variant, players: int):
    """A seat's policy from a registry name, a compiled Policy, a plug-in callable or ``MODULE:NAME``."""
    if is_plugin(spec):
        return spec
    if isinstance(spec, str) and ":" in spec:
        return load_plugin(spec)
    pol = compile_decider(spec, variant, players)  # optimal from 4 players: the n-player equilibrium, turn by turn
    if is_plugin(pol):
        return pol
    if pol.kind not in ("table", "random"):
        raise ValueError(f"opponents: {spec!r} is not allowed; allowed: a registry policy or a plug-in")
    return pol


def seat_policies(variant: Variant, players: int, human: int | None, opponents) -> list:
    """One decider per seat: None for the person's seat, else a compiled Policy or a plug-in.

    ``opponents`` is one policy for every other seat, or a sequence with one per seat
    (the person's entry ignored): registry names, Policy objects, plug-in callables, or
    ``MODULE:NAME`` / ``FILE.py:NAME`` strings (:func:`four21sim.policies.plugin.load_plugin`).
    """
    many = isinstance(opponents, (list, tuple))
    if many and len(opponents) != players:
        raise ValueError(f"opponents: {len(opponents)} given for {players} players; allowed: one, or one per seat")
    out, built = [], {}
    for s in range(players):
        if s == human:
            out.append(None)
            continue
        spec = opponents[s] if many else opponents
        key = spec if isinstance(spec, str) else id(spec)
        if key not in built:
            built[key] = _opponent(spec, variant, players)
        out.append(built[key])
    return out


def policy_label(policy) -> str:
    """How a seat's decider is named on screen and in a game log."""
    if policy is None:
        return "you"
    return policy.name if isinstance(policy, Policy) else plugin_name(policy)


class Game:
    """One game, played up to each decision and waiting there.

    Parameters
    ----------
    variant : Variant
    players : int
        2 to 8.
    seed : int
        The dice are game ``game`` of the engine's stream for ``seed``.
    game : int
        The game's index in that stream, 0 to ``MAX_GAME``.
    start : GameState, optional
        Where the game starts (default: every token in the pot, seat 0 to lead).
    report : callable, optional
        ``report(event, data)`` for each round, throw, keep, round result and the end.
    max_rounds : int
        A game longer than that raises RuntimeError (no game of the package's
        variants comes near it).

    Attributes
    ----------
    turn : Turn or None
        The decision waiting (None once the game is over).
    result : GameResult or None
        Set when the game is over.
    events : list of (event, data)
    """

    def __init__(self, variant: Variant, players: int, seed: int, *, game: int = 0, start: GameState | None = None,
                 report: Callable[[str, dict], None] | None = None, max_rounds: int = MAX_ROUNDS):
        players = check_int("players", players, MIN_PLAYERS, MAX_PLAYERS)
        seed = check_int("seed", seed, 0, 2**64 - 1)
        game = check_int("game", game, 0, MAX_GAME)
        start = (start or start_state(variant, players)).with_leader(0).check(variant, "start")
        if start.players != players:
            raise ValueError(f"start: {start.players} seats is not allowed; allowed: {players} (the players)")
        self.variant, self.players, self.seed, self.game, self.start = variant, players, int(seed), game, start
        self.report, self.max_rounds, self.events, self.result = report, max_rounds, [], None
        self._prm = R.params(variant)
        self._rank = np.ascontiguousarray(dice.RANK[variant.ranking_index])
        self._value = np.ascontiguousarray(dice.VALUE[variant.values_index])
        self._rs, self._ri = E.new_state()
        E.start_game(self._rs, self._ri, np.uint64(E.mix64(np.uint64(self.seed))), game)
        # 'random' decides from its own stream: the engine's draws for it are private to the engine
        self._rng = np.random.default_rng([self.seed, game])
        n = players
        self.tok = np.array(start.tokens, dtype=np.int64)
        self.out = np.array([0 if start.pot > 0 or t > 0 else 1 for t in start.tokens], dtype=np.int64)
        self.place = np.full(n, -1, dtype=np.int64)
        self._nout = int(self.out.sum())
        for s in np.flatnonzero(self.out):
            self.place[s] = 0  # out before the game started here: the first places
        self.order, self.hands, self.throws = (np.zeros(n, dtype=np.int64) for _ in range(3))
        self._keys, self._tied, self._roll = (np.zeros(n, dtype=np.int64) for _ in range(3))
        self.pot, self.leader, self.rounds = int(start.pot), int(start.leader), 0
        self._open_round()
        self._advance()

    # ------------------------------------------------------------------ what a player sees
    @property
    def over(self) -> bool:
        return self.result is not None

    @property
    def turn(self) -> Turn | None:
        if self.over:
            return None
        j = self._j
        return Turn(int(self.order[j]), j == 0, self._h, self._made, self._limit, self._may_stop,
                    None if j == 0 else self._worst, self.pot, tuple(int(t) for t in self._tok0), self.players,
                    tuple(int(s) for s in self.order[:self._m]),
                    tuple((int(self.order[i]), int(self.hands[i]), int(self.throws[i])) for i in range(j)))

    def _emit(self, event: str, **data) -> None:
        self.events.append((event, data))
        if self.report is not None:
            self.report(event, data)

    # ------------------------------------------------------------------ decisions
    def play(self, keep: int) -> None:
        """Apply the waiting decision (a keep index) and play on to the next decision or the end."""
        if self.over:
            raise ValueError("keep: the game is over; allowed: nothing more")
        h = self._h
        if int(keep) not in dice.keeps_of(h, allow_stop=self._may_stop):
            allowed = ", ".join(dice.keep_label(h, k) for k in dice.keeps_of(h, allow_stop=self._may_stop))
            raise ValueError(f"keep: {keep!r} is not a legal keep of {dice.hand_name(h)} here; allowed: {allowed}")
        self._emit("keep", seat=int(self.order[self._j]), hand=h, keep=int(keep), made=self._made)
        if int(keep) == dice.FULL_KEEP + h:
            self._close_turn()
        else:
            self._h = int(E.rethrow(int(keep), self._rs, self._ri))
            self._made += 1
            self._emit("throw", seat=int(self.order[self._j]), hand=self._h, made=self._made, limit=self._limit)
        self._advance()

    def policy_keep(self, policy) -> int:
        """The keep a seat's decider (compiled Policy or plug-in) chooses at the waiting decision."""
        if is_plugin(policy):  # one typed by a user is stopped after DECISION_SECONDS (policies.plugin)
            return plugin_keep(policy, self.turn, DECISION_SECONDS if isinstance(policy, LoadedPlugin) else None)
        if policy.kind == "random":
            legal = dice.keeps_of(self._h, allow_stop=self._may_stop)
            return int(legal[self._rng.integers(len(legal))])
        # the engine's own context function: the same row as in a simulated game
        pk = np.array([[E.KIND_TABLE, policy.ctx_mode, 0, 0]], dtype=np.int64)
        ctx = int(E.context(pk, 0, self.pot, self.tok, self.order, self._m, self._j, self.hands, self.throws,
                            self.variant.tokens, self.variant.fewer_throws_wins))
        if self._j == 0:
            return policy.leader_keep(self._h, self._limit - self._made, ctx)
        # a context-mode-2 policy reads the leader's hand as its target (docs/engine.md)
        tgt = int(self.hands[0]) if policy.ctx_mode == CTX_ROUND else self._worst
        return policy.follower_keep(self._h, tgt, self._limit, self._made, ctx)

    # ------------------------------------------------------------------ the steps of a game
    def _advance(self) -> None:
        while not self.over:
            if self._in_turn:
                if self._made < self._limit:
                    return  # a decision waits
                self._close_turn()
            elif self._j + 1 < self._m:
                self._j += 1
                self._open_turn()
            else:
                self._close_round()

    def _open_round(self) -> None:
        if self.rounds >= self.max_rounds:
            raise RuntimeError(f"the game ran past {self.max_rounds} rounds")
        self._phase = R.phase_of(self.pot)
        self._m = int(R.playing_order(self.leader, self.out, self.players, self.order))
        self._tok0 = self.tok.copy()
        self._emit("round", number=self.rounds + 1, phase="charge" if self._phase == R.CHARGE else "decharge",
                   pot=self.pot, tokens=[int(t) for t in self.tok], leader=self.leader,
                   order=[int(s) for s in self.order[:self._m]])
        self._j = 0
        self._open_turn()

    def _open_turn(self) -> None:
        leading = self._j == 0
        self._limit = int(R.throw_limit(self._phase, self._prm)) if leading else int(self.throws[0])
        self._may_stop = leading or self.variant.followers == "at_most"
        self._h, self._made, self._in_turn = int(E.throw3(self._rs, self._ri)), 1, True
        self._emit("throw", seat=int(self.order[self._j]), hand=self._h, made=1, limit=self._limit)

    def _close_turn(self) -> None:
        j = self._j
        self.hands[j], self.throws[j], self._in_turn = self._h, self._made, False
        if j == 0 or self._rank[self._h] > self._rank[self._worst]:
            self._worst = self._h

    def _close_round(self) -> None:
        m, order, hands = self._m, self.order, self.hands
        rescue = R.is_rescue(hands, m, self._prm)
        jl, jw = E.judge(hands, self.throws, m, rescue, self._rank, self._prm, self._keys, self._tied, self._roll,
                         self._rs, self._ri)
        loser, winner = int(order[jl]), int(order[jw])
        pay = int(R.payout(hands, m, jw, jl, rescue, self._phase, self._value, self._prm))
        swing, pot = R.settle(self._phase, self.pot, self.tok, winner, loser, pay)
        self.pot, self.rounds = int(pot), self.rounds + 1
        self._emit("result", phase="charge" if self._phase == R.CHARGE else "decharge",
                   hands={int(order[j]): int(hands[j]) for j in range(m)},
                   throws={int(order[j]): int(self.throws[j]) for j in range(m)}, winner=winner, loser=loser,
                   pay=pay, swing=int(swing), pot=self.pot, tokens=[int(t) for t in self.tok], rescue=bool(rescue))
        self._nout = int(R.go_out(self._phase, self.pot, self.tok, self.out, self.place, self._nout, winner,
                                  self.players))
        if R.game_over(self.players, self._nout, self._prm):
            self._finish()
            return
        self.leader = int(R.next_leader(self.leader, loser, winner, self.out, self.players, self._prm))
        self._open_round()

    def _finish(self) -> None:
        n = self.players
        for s in range(n):
            if self.out[s] == 0:
                self.place[s] = self._nout
        win_mask, lose_mask = R.result_masks(n, self.out, self.tok, self.place, self._prm)
        seats = range(n)
        self.result = GameResult([s for s in seats if win_mask >> s & 1], [s for s in seats if lose_mask >> s & 1],
                                 [int(t) for t in self.tok], self.rounds, self.events)
        self._emit("end", winners=self.result.winners, losers=self.result.losers, tokens=self.result.tokens,
                   rounds=self.rounds)


def play_game(variant: Variant, players: int, seed: int, choose: Callable[[Turn], int] | None = None, *,
              human: int | None = 0, opponents=None, policies: list | None = None,
              report: Callable[[str, dict], None] | None = None, game: int = 0, start: GameState | None = None,
              max_rounds: int = MAX_ROUNDS) -> GameResult:
    """Play one game; seat ``human`` decides through ``choose(turn) -> keep index``.

    Parameters
    ----------
    variant : Variant
    players : int
        2 to 8.
    seed : int
        The dice are game ``game`` of the engine's stream for ``seed``.
    choose : callable
        Called with a :class:`Turn` for each decision of the person's seat; returns a
        keep index (``dice.FULL_KEEP + hand`` to stop).
    human : int or None
        The person's seat (0 leads the first round); None when every seat is a policy.
    opponents : optional
        The other seats' policy (see :func:`seat_policies`): default ``optimal`` with 2
        players, ``greedy`` with more.
    policies : list, optional
        One decider per seat (None for the person), instead of ``opponents``.
    report : callable, optional
        ``report(event, data)`` for each throw, decision and round result (the terminal
        prints them).
    start : GameState, optional
        Where the game starts (default: the start).
    """
    if human is not None and not 0 <= human < players:
        raise ValueError(f"seat: {human!r} is not allowed; allowed: 0 to {players - 1}")
    if policies is None:
        opponents = opponents or ("optimal" if players == 2 else "greedy")
        policies = seat_policies(variant, players, human, opponents)
    g = Game(variant, players, seed, game=game, start=start, report=report, max_rounds=max_rounds)
    while not g.over:
        t = g.turn
        pol = policies[t.seat]
        g.play(choose(t) if pol is None else g.policy_keep(pol))
    return g.result
