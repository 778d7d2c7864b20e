"""numba kernels of the exact 2-player solver (see :mod:`four21sim.exact.two_player`).

States are seen from the roles of the round: ``V[pot, a, b]`` is the probability
that the player who leads the round wins the game, when the pot holds ``pot``
tokens, the leader ``a`` and the follower ``b``.
"""

from __future__ import annotations

import numpy as np

from .._util.jit import JIT, njit
from ..rules import dice
from ..rules import kernel as R
from .ties import KEEP_TIE

_NH = dice.N_HANDS
_FULL = dice.FULL_KEEP
_N_PARTIAL = dice.FULL_KEEP  # keeps 0..27 throw at least one die
_HAND_KEEPS = np.ascontiguousarray(dice.HAND_KEEPS)
_N_HAND_KEEPS = np.ascontiguousarray(dice.N_HAND_KEEPS)
_KT_START = np.ascontiguousarray(dice.KT_START)
_KT_HAND = np.ascontiguousarray(dice.KT_HAND)
_KT_PROB = np.ascontiguousarray(
    dice.KT_COUNT / dice.KT_DENOM[np.repeat(np.arange(dice.N_KEEPS), np.diff(dice.KT_START))])
_P0 = np.ascontiguousarray(dice.THROW_COUNTS[0] / 216.0)




@njit(**JIT)
def _compiled_tables():
    return (_HAND_KEEPS.copy(), _N_HAND_KEEPS.copy(), _KT_START.copy(), _KT_HAND.copy(), np.array([_FULL]),
            np.array([_NH]),)


def compiled_tables() -> dict:
    """The tables as compiled into these kernels (see :func:`four21sim.engine._stream.compiled_tables`)."""
    return dict(zip(('HAND_KEEPS', 'N_HAND_KEEPS', 'KT_START', 'KT_HAND', 'FULL_KEEP', 'N_HANDS'), _compiled_tables()))


# outcome codes of a round between the leader (L) and the follower (F)
LEADER_LOSES, FOLLOWER_LOSES, TIE = 0, 1, 2


@njit(inline="always", **JIT)
def _keep_values(nextv, kv):
    for k in range(_N_PARTIAL):
        acc = 0.0
        for i in range(_KT_START[k], _KT_START[k + 1]):
            acc += _KT_PROB[i] * nextv[_KT_HAND[i]]
        kv[k] = acc


@njit(inline="always", **JIT)
def _best_keep(h, stop_value, kv, first):
    """Best keep of hand h (value, keep) from its keeps ``HAND_KEEPS[h, first:]`` (first=1
    leaves out stopping), stopping being worth ``stop_value`` and keep k worth ``kv[k]``.
    Ties within KEEP_TIE go to the earlier keep."""
    best = -1.0
    bk = -1
    for i in range(first, _N_HAND_KEEPS[h]):
        k = _HAND_KEEPS[h, i]
        v = stop_value if k == _FULL + h else kv[k]
        if v > best + KEEP_TIE:
            best = v
            bk = k
    return best, bk


@njit(**JIT)
def fill_round_table(phase, rank, value, prm, code, pay):
    """The outcome of a 2-player round for every pair of final hands, by the rules kernel.

    ``code[hL, c-1, hF, f-1]``: LEADER_LOSES, FOLLOWER_LOSES or TIE (a fair roll-off then
    decides: equal keys mean equal hands, so the payout is the same either way) for a
    leader stopping on hL after c throws and a follower on hF after f <= c throws;
    ``pay``: the payout.
    """
    hands = np.empty(2, dtype=np.int64)
    keys = np.empty(2, dtype=np.int64)
    tied = np.empty(2, dtype=np.int64)
    for hl in range(_NH):
        for c in range(1, 4):
            for hf in range(_NH):
                hands[0] = hl
                hands[1] = hf
                rescue = R.is_rescue(hands, 2, prm)
                for f in range(1, c + 1):
                    keys[0] = R.order_key(hl, c, rescue, rank, prm)
                    keys[1] = R.order_key(hf, f, rescue, rank, prm)
                    if R.extreme_keys(keys, 2, True, -1, tied) == 2:
                        cd, jl = TIE, 0
                    else:
                        jl = tied[0]
                        cd = LEADER_LOSES if jl == 0 else FOLLOWER_LOSES
                    code[hl, c - 1, hf, f - 1] = cd
                    pay[hl, c - 1, hf, f - 1] = R.payout(hands, 2, 1 - jl, jl, rescue, phase, value, prm)


@njit(**JIT)
def successor(pot, a, b, loser_is_leader, pay, prm, tok, out, place):
    """The state after a round between a leader holding ``a`` and a follower holding ``b``.

    Settles the round by the rules kernel. Returns ``(ended, leader_wins, pot, x, y,
    same_leader)``: when the game ended, whether the round's leader won it; otherwise
    the next state seen from the next round's roles (``x`` the next leader's tokens,
    ``y`` the other's) and whether the round's leader leads again. ``tok``, ``out`` and
    ``place`` are scratch arrays of two.
    """
    tok[0] = a
    tok[1] = b
    out[0] = out[1] = 0
    place[0] = place[1] = -1
    loser = 0 if loser_is_leader else 1
    winner = 1 - loser
    phase = R.phase_of(pot)
    swing, pot2 = R.settle(phase, pot, tok, winner, loser, pay)
    nout = R.go_out(phase, pot2, tok, out, place, 0, winner, 2)
    if R.game_over(2, nout, prm):
        win_mask, lose_mask = R.result_masks(2, out, tok, place, prm)
        return True, (win_mask & 1) == 1, pot2, tok[0], tok[1], True
    if R.next_leader(0, loser, winner, out, 2, prm) == 0:
        return False, False, pot2, tok[0], tok[1], True
    return False, False, pot2, tok[1], tok[0], False


@njit(inline="always", **JIT)
def _successor_value(pot, a, b, loser_is_leader, pay, V, prm, tok, out, place):
    """Value to the current leader of the state after the round."""
    ended, leader_wins, pot2, x, y, same = successor(pot, a, b, loser_is_leader, pay, prm, tok, out, place)
    if ended:
        return 1.0 if leader_wins else 0.0
    if same:
        return V[pot2, x, y]
    return 1.0 - V[pot2, x, y]


@njit(**JIT)
def round_value(pot, a, b, V, prm, out_code, out_pay, max_pay, lead_dec, lead_val, foll_dec, foll_val, foll_lv):
    """Optimal play of one round from state (pot, a, b); returns V's new value.

    Fills ``lead_dec[tl-1, h]`` (leader keep with tl throws left), ``lead_val[made-1, h]``,
    ``foll_dec[hL, c-1, made-1, h]``, ``foll_lv[hL, c-1, made-1, h]`` (the follower's
    win probability holding h after ``made`` throws, playing on optimally) and
    ``foll_val[hL, c-1]`` (its win probability before throwing).
    """
    L = R.throw_limit(R.phase_of(pot), prm)
    exact = prm[R.P_EXACT] == 1
    tok = np.empty(2, dtype=np.int64)
    out = np.empty(2, dtype=np.int64)
    place = np.empty(2, dtype=np.int64)
    vl = np.empty(max_pay + 1)
    vf = np.empty(max_pay + 1)
    for p in range(1, max_pay + 1):
        vl[p] = _successor_value(pot, a, b, True, p, V, prm, tok, out, place)
        vf[p] = _successor_value(pot, a, b, False, p, V, prm, tok, out, place)
    kv = np.empty(_N_PARTIAL)
    wf = np.empty((3, _NH))  # follower's terminal values by throws used
    level = np.empty(_NH)
    new = np.empty(_NH)
    U = np.empty((3, _NH))  # leader's value of stopping on (h, c)
    for hL in range(_NH):
        for c in range(1, L + 1):
            for f in range(1, c + 1):
                for h in range(_NH):
                    code = out_code[hL, c - 1, h, f - 1]
                    p = out_pay[hL, c - 1, h, f - 1]
                    if code == LEADER_LOSES:
                        w = vl[p]
                    elif code == FOLLOWER_LOSES:
                        w = vf[p]
                    else:
                        w = 0.5 * (vl[p] + vf[p])
                    wf[f - 1, h] = 1.0 - w
            for h in range(_NH):
                level[h] = wf[c - 1, h]
            for made in range(c - 1, 0, -1):
                _keep_values(level, kv)
                for h in range(_NH):
                    best, bk = _best_keep(h, wf[made - 1, h], kv, 1 if exact else 0)
                    new[h] = best
                    foll_dec[hL, c - 1, made - 1, h] = bk
                    foll_lv[hL, c - 1, made - 1, h] = best
                for h in range(_NH):
                    level[h] = new[h]
            acc = 0.0
            for h in range(_NH):
                acc += _P0[h] * level[h]
            foll_val[hL, c - 1] = acc
            U[c - 1, hL] = 1.0 - acc
    # the leader: may stop after any throw up to L
    for h in range(_NH):
        level[h] = U[L - 1, h]
        lead_val[L - 1, h] = level[h]
    for made in range(L - 1, 0, -1):
        _keep_values(level, kv)
        for h in range(_NH):
            best, bk = _best_keep(h, U[made - 1, h], kv, 0)
            new[h] = best
            lead_dec[L - made - 1, h] = bk
            lead_val[made - 1, h] = best
        for h in range(_NH):
            level[h] = new[h]
    acc = 0.0
    for h in range(_NH):
        acc += _P0[h] * level[h]
    return acc


@njit(**JIT)
def _final_hands(limit, dec, cur, nxt, fin):
    """Add to ``fin[made-1, h]`` the probability of stopping on h after ``made`` throws,
    for a player throwing at most ``limit`` times with decisions ``dec[made-1, h]``."""
    for h in range(_NH):
        cur[h] = _P0[h]
    for made in range(1, limit + 1):
        for h in range(_NH):
            nxt[h] = 0.0
        for h in range(_NH):
            m = cur[h]
            if m == 0.0:
                continue
            if made == limit:
                fin[made - 1, h] += m
                continue
            k = dec[made - 1, h]
            if k == _FULL + h:
                fin[made - 1, h] += m
            else:
                for i in range(_KT_START[k], _KT_START[k + 1]):
                    nxt[_KT_HAND[i]] += m * _KT_PROB[i]
        for h in range(_NH):
            cur[h] = nxt[h]


@njit(**JIT)
def round_outcomes(L, lead_dec, foll_dec, out_code, out_pay, max_pay, dist):
    """Distribution of the round's outcome under fixed decisions.

    ``dist[code, pay]`` receives P(outcome code, payout) (code: leader loses,
    follower loses, tie).
    """
    dist[:, :] = 0.0
    cur = np.empty(_NH)
    nxt = np.empty(_NH)
    dec = np.empty((3, _NH), dtype=np.int64)
    # the leader's final (hand, count) distribution; its decision after 'made' throws
    # is lead_dec[L - made - 1]
    fin_l = np.zeros((3, _NH))
    for made in range(1, L):
        dec[made - 1] = lead_dec[L - made - 1]
    _final_hands(L, dec, cur, nxt, fin_l)
    fin_f = np.zeros((3, _NH))
    for c in range(1, L + 1):
        for hL in range(_NH):
            mL = fin_l[c - 1, hL]
            if mL == 0.0:
                continue
            fin_f[:, :] = 0.0
            for made in range(1, c):
                dec[made - 1] = foll_dec[hL, c - 1, made - 1]
            _final_hands(c, dec, cur, nxt, fin_f)
            for f in range(1, c + 1):
                for h in range(_NH):
                    m = fin_f[f - 1, h]
                    if m != 0.0:
                        dist[out_code[hL, c - 1, h, f - 1], out_pay[hL, c - 1, h, f - 1]] += mL * m
