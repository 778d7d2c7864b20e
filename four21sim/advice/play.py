"""A game of 421 played one decision at a time: a person against optimal players
(2 or 3 players) or habit players (any number).

The dice come from the engine's random stream (docs/engine.md: game 0 of ``seed``,
drawn in the same order), and every rule is the engine's (:mod:`four21sim.rules.kernel`):
if every seat decided as a table policy, the game would be the engine's game die for
die. The person's decisions come from a callback, so the game can be driven from a
terminal (``four21sim play``) or from code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .. import engine as E
from ..policies import Policy, compile_policy
from ..policies.contexts import CTX_ROUND
from ..rules import dice
from ..rules import kernel as R
from ..rules.variants import MAX_PLAYERS, MIN_PLAYERS, Variant

__all__ = ["Turn", "GameResult", "play_game", "parse_keep"]


@dataclass(frozen=True)
class Turn:
    """What a player deciding sees.

    Attributes
    ----------
    seat : int
    leading : bool
    hand : int
        The hand held (index into :data:`four21sim.rules.dice.HANDS`).
    made, limit : int
        Throws made, and the most allowed (the leader's limit, or the leader's count).
    may_stop : bool
        Whether keeping all three dice (stopping) is allowed.
    target : int or None
        A follower: the worst hand on the table so far.
    pot : int
    tokens : tuple of int
        Every seat's tokens.
    """

    seat: int
    leading: bool
    hand: int
    made: int
    limit: int
    may_stop: bool
    target: int | None
    pot: int
    tokens: tuple


@dataclass
class GameResult:
    """The end of a game: winners and losers (seats), tokens, rounds played."""

    winners: list
    losers: list
    tokens: list
    rounds: int
    events: list = field(default_factory=list)


def parse_keep(text: str, hand: int) -> int:
    """A keep as a person types it, for ``hand``: the dice kept (``"21"``, ``"2 1"``),
    ``"stop"`` (or the whole hand) to stop, ``"-"`` or ``"none"`` to throw all three.

    Raises ValueError (naming what is allowed) if the dice are not in the hand.
    """
    t = text.strip().lower()
    if t in ("stop", "s", "keep all", "all"):
        return dice.FULL_KEEP + hand
    if t in ("-", "none", "0", "reroll", "r", "_ _ _"):
        return dice.EMPTY_KEEP
    digits = [c for c in t if c not in " _,-"]
    held = list(dice.HANDS[hand])
    allowed = f"the dice to keep from {dice.hand_name(hand)} (e.g. {dice.hand_name(hand)[-1]}), stop, or - for none"
    if not digits or not all(c in "123456" for c in digits) or len(digits) > 3:
        raise ValueError(f"keep: {text.strip()!r} is not allowed; allowed: {allowed}")
    for d in (int(c) for c in digits):
        if d not in held:
            raise ValueError(f"keep: {text.strip()!r} keeps a {d} you do not hold; allowed: {allowed}")
        held.remove(d)
    return dice.keep_index(int(c) for c in digits)


def _policies(variant: Variant, players: int, human: int, opponents: str) -> list[Policy | None]:
    pols: list[Policy | None] = []
    for s in range(players):
        if s == human:
            pols.append(None)
            continue
        pol = compile_policy(opponents, variant, players)
        if pol.kind != "table":
            raise ValueError(f"opponents: {opponents!r} is not allowed; allowed: a table policy "
                             "(optimal with 2 or 3 players; sec, chase421, greedy, table-aware)")
        pols.append(pol)
    return pols


def play_game(variant: Variant, players: int, seed: int, choose: Callable[[Turn], int], *,
              human: int = 0, opponents: str | None = None, policies: list | None = None,
              report: Callable[[str, dict], None] | None = None, game: int = 0,
              max_rounds: int = 10_000) -> GameResult:
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
    human : int
        The person's seat (0 leads the first round).
    opponents : str, optional
        The other seats' policy: default ``optimal`` with 2 players, ``greedy`` with more.
    policies : list, optional
        One compiled policy (or None for the person) per seat, instead of ``opponents``.
    report : callable, optional
        ``report(event, data)`` for each throw, decision and round result (the terminal
        prints them).
    """
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"players: {players!r} is not allowed; allowed: {MIN_PLAYERS} to {MAX_PLAYERS}")
    if not 0 <= human < players:
        raise ValueError(f"seat: {human!r} is not allowed; allowed: 0 to {players - 1}")
    if policies is None:
        opponents = opponents or ("optimal" if players == 2 else "greedy")
        policies = _policies(variant, players, human, opponents)
    events: list = []

    def emit(event: str, **data) -> None:
        events.append((event, data))
        if report is not None:
            report(event, data)

    prm = R.params(variant)
    rank = np.ascontiguousarray(dice.RANK[variant.ranking_index])
    value = np.ascontiguousarray(dice.VALUE[variant.values_index])
    rs = np.zeros(3, dtype=np.uint64)
    ri = np.zeros(2, dtype=np.int64)
    E.start_game(rs, ri, np.uint64(E.mix64(np.uint64(seed))), game)
    n, T = players, variant.tokens
    tok = np.zeros(n, dtype=np.int64)
    out = np.zeros(n, dtype=np.int64)
    place = np.full(n, -1, dtype=np.int64)
    order = np.zeros(n, dtype=np.int64)
    hands = np.zeros(n, dtype=np.int64)
    throws = np.zeros(n, dtype=np.int64)
    keys = np.zeros(n, dtype=np.int64)
    tied = np.zeros(n, dtype=np.int64)
    roll = np.zeros(n, dtype=np.int64)
    pot, leader, nout, rounds = T, 0, 0, 0
    may_stop_follower = variant.followers == "at_most"

    ftw = variant.fewer_throws_wins

    def turn(seat: int, leading: bool, limit: int, target: int | None, j: int) -> tuple[int, int]:
        h = int(E.throw3(rs, ri))
        made = 1
        emit("throw", seat=seat, hand=h, made=made, limit=limit)
        may_stop = leading or may_stop_follower
        while made < limit:
            pol = policies[seat]
            if pol is None:
                k = choose(Turn(seat, leading, h, made, limit, may_stop, target, pot, tuple(int(t) for t in tok)))
            else:
                # the engine's own context function: the same row as in a simulated game
                pk = np.array([[E.KIND_TABLE, pol.ctx_mode, 0, 0]], dtype=np.int64)
                ctx = int(E.context(pk, 0, pot, tok, order, m, j, hands, throws, T, ftw))
                if leading:
                    k = pol.leader_keep(h, limit - made, ctx)
                else:  # a context-mode-2 policy reads the leader's hand as its target (docs/engine.md)
                    tgt = int(hands[0]) if pol.ctx_mode == CTX_ROUND else target
                    k = pol.follower_keep(h, tgt, limit, made, ctx)
            if k not in dice.keeps_of(h, allow_stop=may_stop):
                raise ValueError(f"keep: {k!r} is not a legal keep of {dice.hand_name(h)} here")
            emit("keep", seat=seat, hand=h, keep=int(k), made=made)
            if k == dice.FULL_KEEP + h:
                break
            h = int(E.rethrow(k, rs, ri))
            made += 1
            emit("throw", seat=seat, hand=h, made=made, limit=limit)
        return h, made

    while True:
        if rounds >= max_rounds:
            raise RuntimeError(f"the game ran past {max_rounds} rounds")
        phase = R.phase_of(pot)
        m = R.playing_order(leader, out, n, order)
        emit("round", number=rounds + 1, phase="charge" if phase == R.CHARGE else "decharge", pot=pot,
             tokens=[int(t) for t in tok], leader=leader, order=[int(s) for s in order[:m]])
        h, count = turn(leader, True, int(R.throw_limit(phase, prm)), None, 0)
        hands[0], throws[0] = h, count
        worst = h
        for j in range(1, m):
            s = int(order[j])
            h, made = turn(s, False, count, worst, j)
            hands[j], throws[j] = h, made
            if rank[h] > rank[worst]:
                worst = h
        rescue = R.is_rescue(hands, m, prm)
        jl, jw = E.judge(hands, throws, m, rescue, rank, prm, keys, tied, roll, rs, ri)
        loser, winner = int(order[jl]), int(order[jw])
        pay = int(R.payout(hands, m, jw, jl, rescue, phase, value, prm))
        swing, pot = R.settle(phase, pot, tok, winner, loser, pay)
        pot = int(pot)
        rounds += 1
        emit("result", phase="charge" if phase == R.CHARGE else "decharge",
             hands={int(order[j]): int(hands[j]) for j in range(m)},
             throws={int(order[j]): int(throws[j]) for j in range(m)}, winner=winner, loser=loser,
             pay=pay, swing=int(swing), pot=pot, tokens=[int(t) for t in tok], rescue=bool(rescue))
        nout = R.go_out(phase, pot, tok, out, place, nout, winner, n)
        if R.game_over(n, nout, prm):
            break
        leader = int(R.next_leader(leader, loser, winner, out, n, prm))
    for s in range(n):
        if out[s] == 0:
            place[s] = nout
    win_mask, lose_mask = R.result_masks(n, out, tok, place, prm)
    res = GameResult([s for s in range(n) if win_mask >> s & 1], [s for s in range(n) if lose_mask >> s & 1],
                     [int(t) for t in tok], rounds, events)
    emit("end", winners=res.winners, losers=res.losers, tokens=res.tokens, rounds=rounds)
    return res
