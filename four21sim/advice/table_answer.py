"""The advisor's game answer at 3 to 6 players: P(pay) of each keep, everyone playing the equilibrium.

At a table of more than two, the game answer is the probability of paying (being the
game's loser) after each keep, from the state of the game (the pot, every seat's tokens,
who leads) and the hands and throws of the players before this one in the round, everyone
playing the certified equilibrium afterwards (each player minimising its own P(pay)):
:func:`four21sim.exact.nplayer.keep_values`, as the trainer reads them
(:class:`four21sim.advice.trainer.Trainer`, the one place that picks the solver).
"""

from __future__ import annotations

from .._util.checks import check_int, shown
from ..exact import nplayer, odds
from ..rules import dice
from ..rules.state import GameState, Turn
from ..rules.variants import Variant, as_variant
from .advisor import (
    GAME_PLAYERS,
    Advice,
    _measure,
    _round_answer,
    _situation,
    best_play,
    check_players,
    keep_order,
    players_text,
)
from .explain import GAME_TIE, KEEP_ORDER, game_tie_words, reason_table
from .trainer import Trainer

__all__ = ["advise_table", "table_turn", "table_game_keeps", "explain_table", "GAME_MEASURE"]

GAME_MEASURE = "P(pay)"


def _order(variant: Variant, state: GameState) -> list[int]:
    """The round's playing order (seats in play, the leader first)."""
    n, live = state.players, state.in_play(variant)
    return [(state.leader + k) % n for k in range(n) if live[(state.leader + k) % n]]


def table_turn(variant: Variant, state: GameState, seat: int, hand: int, made: int, before=()) -> Turn:
    """The decision of ``seat`` as the table shows it, checked.

    ``state``: checked, with its leader; ``before``: ``(hand, throws)`` of the players before
    ``seat`` this round, in playing order (the leader's first; a follower's limit is the
    leader's throws).
    """
    order = _order(variant, state)
    if seat not in order:
        raise ValueError(f"seat: {seat} is not allowed; allowed: a seat in play, {', '.join(map(str, order))}")
    role = order.index(seat)
    if len(before) != role:
        raise ValueError(f"beat: {len(before)} hands are not allowed; allowed: the {role} hands of the players "
                         f"before seat {seat} this round, in playing order from the leader (seat {state.leader})")
    limit = variant.throws(state.phase) if role == 0 else int(before[0][1])
    if not 1 <= made < limit:
        raise ValueError(f"throws_left: {limit - made} is not allowed; allowed: 1 to {limit - 1} (a limit of {limit} "
                         "throws)")
    rank = dice.RANK[variant.ranking_index]
    target = None if role == 0 else max((h for h, _ in before), key=lambda h: rank[h])
    may_stop = role == 0 or variant.followers == "at_most"
    return Turn(seat, role == 0, int(hand), int(made), int(limit), may_stop, target, state.pot, tuple(state.tokens),
                state.players, tuple(order), tuple((order[j], int(h), int(f)) for j, (h, f) in enumerate(before)))


def table_game_keeps(variant: Variant, turn: Turn) -> tuple[list[odds.Keep], str]:
    """Every keep of ``turn`` with its exact P(pay), best first, and where the numbers come from.

    Raises ValueError where no exact solver reaches (more players, or more tokens, than they take).
    """
    check_players(turn.players, game=True)
    if turn.players < 3:
        raise ValueError(f"players: {turn.players} is not allowed here; allowed: 3 to {GAME_PLAYERS[1]} (2 players: "
                         "four21sim.advice.advise with state=(pot, mine, theirs))")
    values = Trainer(variant, turn.players).values(turn)
    if not values.exact_game:
        cap = nplayer.MAX_TOKENS[turn.players]
        raise ValueError(f"tokens: {variant.tokens} is too many for the exact {turn.players}-player solver; "
                         f"allowed: 1 to {cap}")
    # P(pay); with two players left (last_holder) the trainer's 2-player values are P(win): the other pays
    pay = values.values if values.lower_is_better else {k: 1.0 - x for k, x in values.values.items()}
    utility = {k: 1.0 - p for k, p in pay.items()}
    rows = [odds.Keep(dice.keep_label(turn.hand, k), float(pay[k]),
                      dice.hand_name(turn.hand) if k == dice.FULL_KEEP + turn.hand else dice.keep_name(k),
                      k == dice.FULL_KEEP + turn.hand, int(k)) for k in keep_order(turn.hand, utility)]
    return rows, values.source


def _what(k: odds.Keep) -> str:
    return "stop" if k.stop else f"keep {k.keep}"


def explain_table(measure: str, rows: list, game: list, objective: str, hand: int) -> str:
    """One line: whether the round and game answers agree, and what each keep gives on both measures
    (``objective``: the round answer's; ``hand``: the hand held, its index).

    The round answer's keep is the best play (:func:`four21sim.advice.advisor.best_play`: a round
    tie broken by P(pay), and by the game answer's own keep, ``game[0]``, where keeps tie on P(pay)
    too); when it is not the game's, :func:`four21sim.advice.explain.reason_table` says why, with
    the numbers.
    """
    bp = best_play(rows, game, lower_is_better=True, game_measure=GAME_MEASURE)
    rk, gk = bp.keep, game[0]
    round_of = {k.index: float(k.value) for k in rows}
    pay_of = {k.index: float(k.value) for k in game}
    tied = [rk, *bp.tied]
    if len(tied) > 1 and any(k.index == gk.index for k in tied):
        others = [k for k in tied if k.index != rk.index]
        same, every = game_tie_words(rk, others, pay_of, GAME_MEASURE)
        head = f"{len(tied)} keeps tie on {measure} ({100 * round_of[rk.index]:.2f}%): " \
            f"{', '.join(_what(k) for k in rows if k in tied)}" + ("." if every else (
                f"; the game answer breaks the tie: {_what(rk)}, P(pay) {100 * pay_of[rk.index]:.2f}% against "
                + ", ".join(f"{100 * pay_of[k.index]:.2f}% for {_what(k)}" for k in others) + "."))
        return " ".join(filter(None, [head, same]))
    if rk.index == gk.index or pay_of[rk.index] - pay_of[gk.index] <= GAME_TIE:
        # equal on P(pay) but not the same keep: the game answer's is named too, and why it is that one
        also = "" if rk.index == gk.index else (
            f" It ties on P(pay) with {_what(gk)}, which the game answer names, the first of them in {KEEP_ORDER}.")
        return (f"The round and game answers agree: {_what(rk)} ({measure} {100 * round_of[rk.index]:.2f}%, "
                f"P(pay) {100 * pay_of[rk.index]:.2f}%).{also}")
    return reason_table(hand, rk.index, gk.index, round_of, pay_of, measure, objective, style="advise")


def _table_state(v: Variant, state, players: int, seat: int, role: str | None, beat: bool):
    """The n-player state, checked, with its leader (the seat advised when it leads), and the role it implies."""
    if not isinstance(state, GameState) or state.players != players:
        raise ValueError(f"state: {shown(state)} is not allowed; allowed: a GameState of {players} seats")
    check_int("seat", seat, 0, players - 1, f"0 to {players - 1}")
    if state.leader is None:
        if role == "follower" or (role is None and beat):
            raise ValueError(f"state: {state.text()} names no leader; allowed: a follower's state with leader=SEAT")
        state = state.with_leader(seat)
    state = state.check(v, "state")
    implied = "leader" if state.leader == seat else "follower"
    if role is not None and role != implied:
        raise ValueError(f"state: leader={state.leader} does not match role {role} for seat {seat}; allowed: role "
                         f"{implied}, or another leader")
    return state, implied


def advise_table(hand, state, *, players: int, seat: int = 0, role: str | None = None, beat=None, throws=None,
                 reach=None, objective: str | None = None, throws_left: int | None = None, count: int | None = None,
                 phase: str | None = None, variant: Variant | str = "super421", exact: bool = True) -> Advice:
    """:func:`four21sim.advice.advise` at a table of 3 to 6 players: the round answer, and the game
    answer P(pay) of each keep, everyone playing the equilibrium afterwards.

    Parameters
    ----------
    hand : str
    state : GameState
        The pot, every seat's tokens and the leading seat (:func:`four21sim.rules.state.parse_state`);
        without a leader, the seat advised leads.
    players, seat : int
        The seats at the table, and the one advised.
    beat : str or list of str, optional
        The final hands of the players before ``seat`` this round, in playing order (the
        leader's first); the round answer plays against the worst.
    throws : sequence of int, optional
        The throws of each of those hands (default: the leader's count for every one; they
        matter under ``fewer_throws_wins``).
    role, reach, objective, throws_left, count, phase, variant, exact
        As :func:`four21sim.advice.advise`.
    """
    v = as_variant(variant)
    if not isinstance(v, Variant):
        raise ValueError(f"variant: {shown(variant)} is not allowed; allowed: a preset name or a Variant")
    if not GAME_PLAYERS[0] < players <= GAME_PLAYERS[1]:
        raise ValueError(f"players: {shown(players)} is not allowed for the game answer at a table; allowed: 3 to "
                         f"{GAME_PLAYERS[1]} (the exact solvers reach {players_text('game')} players)")
    h = odds._as_hand(hand, "hand")
    targets = [beat] if isinstance(beat, str) else list(beat or [])
    state, role = _table_state(v, state, players, seat, role, bool(targets))
    if phase is not None and phase != state.phase:
        raise ValueError(f"phase: {shown(phase)} does not match the state (pot {state.pot}: {state.phase}); "
                         f"allowed: {state.phase}")
    role, target_idx, _, phase, c, throws_left = _situation(v, h, role, targets, objective, None, state.phase, count,
                                                            throws_left)
    given = [c] * len(target_idx) if throws is None else [int(f) for f in throws]
    if len(given) != len(target_idx) or (given and given[0] != c) or any(not 1 <= f <= c for f in given) \
            or (v.followers == "exact" and any(f != c for f in given)):
        raise ValueError(f"throws: {list(given)} is not allowed; allowed: one number per hand to beat, the "
                         f"leader's first ({c}), the others 1 to {c} ({c} under the exact follower rule)")
    turn = table_turn(v, state, seat, h, c - throws_left, list(zip(target_idx, given)))
    rank = dice.RANK[v.ranking_index]
    worst = max(target_idx, key=lambda t: rank[t]) if target_idx else None
    obj, tgt_name, rows, second = _round_answer(v, h, role, dice.hand_name(worst) if worst is not None else None,
                                                objective, reach, throws_left, c, exact)
    measure = _measure(obj, tgt_name)
    game, source = table_game_keeps(v, turn)
    return Advice(v, role, dice.hand_name(h), int(throws_left), int(c - throws_left), int(c),
                  [dice.hand_name(t) for t in sorted(target_idx, key=lambda t: rank[t])], obj, tgt_name, measure,
                  rows, state, game, explain_table(measure, rows, game, obj, h), v.followers, players, seat, source,
                  second)
