"""The rules kernel: every rule of a round and of the game, once, as numba functions.

The game engine (:mod:`four21sim.engine._kernels`) and the exact solver (its round tables
and state transitions, :mod:`four21sim.exact._two_player_kernels`) both call these
functions, so a rule changed here changes everywhere. Each function is one rule
of docs/rules.md, named after its step in docs/engine.md ("A round, in drawing
order"):

=====  ==================  =====================================================
step   function            rule
=====  ==================  =====================================================
1      ``playing_order``   the leader, then the next seats still in play
4      ``is_rescue``,      the order of the round's hands (fewer throws, the
       ``order_key``       nénette rescue)
5, 6   ``extreme_keys``    who is tied for loser, then for winner
7      ``payout``          the payout (cumulative hands, the nénette minimum)
8      ``settle``          the tokens that move (charge: from the pot; décharge:
                           from the winner)
9      ``go_out``          who goes out
10     ``game_over``       the end rule
11     ``next_leader``     who leads the next round
—      ``result_masks``    the game's winners and losers (who pays)
—      ``sharers``         how many share the win (or the loss)
=====  ==================  =====================================================

The variant reaches the kernels as the integer vector of :func:`params`; hands,
ranks and values are the tables of :mod:`four21sim.rules.dice`. Nothing here draws
from the random stream: roll-offs belong to the engine, which plays them, and to
the solver, which weighs each tied player equally.
"""

from __future__ import annotations

import numpy as np

from .._util.jit import JIT, njit
from . import dice

# ---------------------------------------------------------------- the variant as integers
# What params() encodes, in order; the P_* indices follow it (a name added to one and not the
# other fails at import: the unpacking below counts them).
PARAM_NAMES = ("tokens", "charge_throws", "decharge_throws", "exact", "fewer_throws_wins", "cumulative_charge",
               "cumulative_decharge", "nenette_min", "nenette_rescue", "next_leader", "end", "max_rounds")
N_PRM = len(PARAM_NAMES)
P_TOKENS, P_CHARGE_THROWS, P_DECHARGE_THROWS, P_EXACT, P_FTW, P_CUM_CHARGE, P_CUM_DECHARGE, \
    P_NENETTE_MIN, P_RESCUE, P_NEXT_LEADER, P_END, P_MAX_ROUNDS = range(N_PRM)

CHARGE, DECHARGE = 0, 1
NEXT_LOSER, NEXT_WINNER, NEXT_SEAT = 0, 1, 2
END_FIRST_OUT, END_LAST_HOLDER = 0, 1
_NEXT_LEADER_CODE = {"loser": NEXT_LOSER, "winner": NEXT_WINNER, "next_seat": NEXT_SEAT}
_END_CODE = {"first_out": END_FIRST_OUT, "last_holder": END_LAST_HOLDER}

RESCUED_WORTH = 4  # a rescued 221 is worth 4 tokens
COMBINATION_WORTH = 2  # cumulative payouts add every other hand worth at least this

_IS_COMBINATION = np.array([dice.is_combination(h) for h in range(dice.N_HANDS)], dtype=np.bool_)
_H221 = dice.hand_index((2, 2, 1))



@njit(**JIT)
def _compiled_tables():
    return (_IS_COMBINATION.astype(np.int64), np.array([_H221]),)


def compiled_tables() -> dict:
    """The tables as compiled into these kernels (see :func:`four21sim.engine._stream.compiled_tables`)."""
    return dict(zip(('IS_COMBINATION', 'H221'), _compiled_tables()))


def params(variant, max_rounds: int = 100_000) -> tuple[int, ...]:
    """The variant as the integers the kernels read (indices ``P_*``).

    A tuple, not an array: the kernels receive it by value, so the compiler knows that
    stores into counters cannot change it and keeps the options in registers.
    ``max_rounds`` is not a rule but rides along: a game longer than that is a runaway
    (docs/engine.md).
    """
    prm = [0] * N_PRM
    prm[P_TOKENS] = variant.tokens
    prm[P_CHARGE_THROWS] = variant.charge_throws
    prm[P_DECHARGE_THROWS] = variant.decharge_throws
    prm[P_EXACT] = variant.followers == "exact"
    prm[P_FTW] = variant.fewer_throws_wins
    prm[P_CUM_CHARGE] = variant.cumulative in ("charge", "both")
    prm[P_CUM_DECHARGE] = variant.cumulative in ("decharge", "both")
    prm[P_NENETTE_MIN] = variant.nenette_min
    prm[P_RESCUE] = variant.nenette_rescue
    prm[P_NEXT_LEADER] = _NEXT_LEADER_CODE[variant.next_leader]
    prm[P_END] = _END_CODE[variant.end]
    prm[P_MAX_ROUNDS] = max_rounds
    return tuple(int(x) for x in prm)


# ---------------------------------------------------------------- a round
@njit(inline="always", **JIT)
def phase_of(pot):
    """The charge while the pot holds tokens, the décharge after."""
    return CHARGE if pot > 0 else DECHARGE


@njit(inline="always", **JIT)
def throw_limit(phase, prm):
    """The leader's throw limit in the phase."""
    return prm[P_CHARGE_THROWS] if phase == CHARGE else prm[P_DECHARGE_THROWS]


@njit(inline="always", **JIT)
def playing_order(leader, out, n, order):
    """Step 1: ``order[:m]`` = the leader, then the following seats still in play; returns m."""
    m = 0
    s = leader
    for _ in range(n):
        if out[s] == 0:
            order[m] = s
            m += 1
        s += 1
        if s == n:
            s = 0
    return m


@njit(inline="always", **JIT)
def is_rescue(hands, m, prm):
    """Step 4: the nénette rescue applies (option on, a 221 on the table, no combination)."""
    if prm[P_RESCUE] == 0:
        return False
    has221 = False
    for j in range(m):
        if _IS_COMBINATION[hands[j]]:
            return False
        if hands[j] == _H221:
            has221 = True
    return has221


@njit(inline="always", **JIT)
def order_key(hand, throws, rescue, rank, prm):
    """Step 4: the hand's place in the round's order, lower is better.

    The ranking decides; with ``fewer_throws_wins`` equal hands are split by the
    throws made (4 > 3 keeps the ranking first); a rescued 221 is above all.
    """
    extra = throws if prm[P_FTW] == 1 else 0
    if rescue and hand == _H221:
        return extra - 4
    return 4 * rank[hand] + extra


@njit(inline="always", **JIT)
def extreme_keys(keys, m, worst, skip, tied):
    """Steps 5 and 6: ``tied[:nt]`` = the players (indices into the round) with the
    highest key (``worst``) or the lowest, leaving out index ``skip`` (-1: none); returns nt.

    The loser is the one player with the highest key; the winner the one with the
    lowest among the others; ties are settled by roll-offs.
    """
    best = 0
    nt = 0
    for j in range(m):
        if j == skip:
            continue
        k = keys[j]
        if nt == 0 or (k > best if worst else k < best):
            best = k
            tied[0] = j
            nt = 1
        elif k == best:
            tied[nt] = j
            nt += 1
    return nt


@njit(inline="always", **JIT)
def worth(hand, rescue, value):
    """Tokens a hand is worth: its value, 4 for a rescued 221."""
    if rescue and hand == _H221:
        return RESCUED_WORTH
    return value[hand]


@njit(inline="always", **JIT)
def payout(hands, m, jw, jl, rescue, phase, value, prm):
    """Step 7: tokens the round moves, the winner being ``hands[jw]`` and the loser ``hands[jl]``."""
    pay = worth(hands[jw], rescue, value)
    cumulative = prm[P_CUM_CHARGE] if phase == CHARGE else prm[P_CUM_DECHARGE]
    if cumulative == 1:
        for j in range(m):
            if j != jw:
                v = worth(hands[j], rescue, value)
                if v >= COMBINATION_WORTH:
                    pay += v
    if hands[jl] == _H221 and pay < prm[P_NENETTE_MIN]:
        pay = prm[P_NENETTE_MIN]
    return pay


# ---------------------------------------------------------------- the game
@njit(inline="always", **JIT)
def settle(phase, pot, tok, winner, loser, pay):
    """Step 8: move the tokens; returns ``(swing, pot)`` after the round.

    Charge: the loser takes the payout from the pot, at most what is left.
    Décharge: the winner gives it from its tokens, at most what it holds.
    """
    if phase == CHARGE:
        swing = pay if pay < pot else pot
        pot -= swing
    else:
        swing = pay if pay < tok[winner] else tok[winner]
        tok[winner] -= swing
    tok[loser] += swing
    return swing, pot


@njit(inline="always", **JIT)
def go_out(phase, pot, tok, out, place, nout, winner, n):
    """Step 9: mark who goes out after a round of ``phase``; returns the players out now.

    When the charge empties the pot, everyone holding no token goes out together;
    in the décharge a winner left with no token goes out. Those going out together
    share the place ``nout`` (the number out before them).
    """
    newly = 0
    if phase == CHARGE:
        if pot == 0:
            for s in range(n):
                if tok[s] == 0:
                    out[s] = 1
                    place[s] = nout
                    newly += 1
    elif tok[winner] == 0:
        out[winner] = 1
        place[winner] = nout
        newly = 1
    return nout + newly


@njit(inline="always", **JIT)
def game_over(n, nout, prm):
    """Step 10: ``first_out`` ends with the first player out, ``last_holder`` when one is left."""
    if prm[P_END] == END_LAST_HOLDER:
        return n - nout <= 1
    return nout > 0


@njit(inline="always", **JIT)
def next_leader(leader, loser, winner, out, n, prm):
    """Step 11: the loser, the winner or the next seat; if out, the next seat still in play."""
    rule = prm[P_NEXT_LEADER]
    if rule == NEXT_LOSER:
        nl = loser
    elif rule == NEXT_WINNER:
        nl = winner
    else:
        nl = leader + 1 if leader + 1 < n else 0
    while out[nl] == 1:
        nl = nl + 1 if nl + 1 < n else 0
    return nl


@njit(inline="always", **JIT)
def result_masks(n, out, tok, place, prm):
    """The game's winners and losers as bit masks (bit s for seat s): who pays.

    ``first_out``: the winners are the players out; the losers, the players still
    in holding the most tokens. ``last_holder``: the winners are the first group
    out (place 0); the loser is the last holder.
    """
    most = -1
    for s in range(n):
        if out[s] == 0 and tok[s] > most:
            most = tok[s]
    win_mask = 0
    lose_mask = 0
    last_holder = prm[P_END] == END_LAST_HOLDER
    for s in range(n):
        if last_holder:
            is_win = out[s] == 1 and place[s] == 0
            is_lose = out[s] == 0
        else:
            is_win = out[s] == 1
            is_lose = out[s] == 0 and tok[s] == most
        if is_win:
            win_mask |= 1 << s
        if is_lose:
            lose_mask |= 1 << s
    return win_mask, lose_mask


@njit(inline="always", **JIT)
def sharers(n, mask):
    """How many of the n seats a result mask holds: k winners (or losers) share the game 1/k each."""
    k = 0
    for s in range(n):
        k += (mask >> s) & 1
    return k
