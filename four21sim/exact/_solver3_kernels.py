"""numba kernels of the exact n-player solver, n = 2 or 3 (see :mod:`four21sim.exact.solver3`).

A round is solved by backward induction over the players in playing order, with
*vectors* of utilities: component ``j < n`` is the utility of the player in role
``j`` (0 the leader, 1 the first follower, 2 the second) under the profile being
solved. With a deviator (``dev >= 0``, the role of the player computing a best
response), one more component carries that player's utility when it plays its
best response while everyone else keeps the profile's choices. Every player
maximises its own component; ties between keeps go to the first in
``dice.HAND_KEEPS`` order within ``KEEP_TIE`` (the 2-player solver's
``_best_keep``, reused as is).

Round tables give, for the final hands and throws of the round, an outcome
*pattern* (who may lose and win, with the roll-off shares) and the payout.
``TT[code, pay, j]`` is the utility of component ``j`` after an outcome of pattern
``code`` and that payout, computed by the caller from the continuation values.
"""

from __future__ import annotations

import numpy as np

from .._util.jit import JIT, njit
from ..rules import dice
from ..rules import kernel as R
from ._two_player_kernels import _KT_HAND, _KT_PROB, _KT_START, _N_PARTIAL, _P0, _best_keep, _final_hands

_NH = dice.N_HANDS
_FULL = dice.FULL_KEEP


@njit(**JIT)
def _compiled_tables():
    return (_KT_START.copy(), _KT_HAND.copy(), np.array([_FULL]), np.array([_NH]),)


def compiled_tables() -> dict:
    """The tables as compiled into these kernels (see :func:`four21sim.engine._stream.compiled_tables`)."""
    return dict(zip(('KT_START', 'KT_HAND', 'FULL_KEEP', 'N_HANDS'), _compiled_tables()))


@njit(inline="always", **JIT)
def _keep_values_vec(level, kv, K):
    """``kv[j, k]``: expected ``level[j, hand]`` after keeping k and throwing the rest."""
    for k in range(_N_PARTIAL):
        s = _KT_START[k]
        e = _KT_START[k + 1]
        for j in range(K):
            acc = 0.0
            for i in range(s, e):
                acc += _KT_PROB[i] * level[j, _KT_HAND[i]]
            kv[j, k] = acc


@njit(**JIT)
def player_dp(wf, c, first, role, dev, K, dec_eq, dec_w, level, new, kv, out):
    """One player's turn with throw limit ``c``, by backward induction.

    ``wf[f-1, j, h]``: utilities when the turn ends on hand h after f throws.
    ``first`` is 1 when stopping before the limit is not allowed (an exact
    follower). The player in ``role`` chooses by its component; when it is the
    deviator (``dev == role``), component ``K-1`` is propagated through its own
    best choice instead. Fills ``dec_eq[made-1, h]`` (the profile's keep) and
    ``dec_w[made-1, h]`` (the keep played in component ``K-1``'s world), and
    ``out[j]``, the expected utilities before the first throw.
    """
    wc = K - 1
    for j in range(K):
        for h in range(_NH):
            level[j, h] = wf[c - 1, j, h]
    for made in range(c - 1, 0, -1):
        _keep_values_vec(level, kv, K)
        for h in range(_NH):
            v, bk = _best_keep(h, wf[made - 1, role, h], kv[role], first)
            dec_eq[made - 1, h] = bk
            if bk == _FULL + h:
                for j in range(K):
                    new[j, h] = wf[made - 1, j, h]
            else:
                for j in range(K):
                    new[j, h] = kv[j, bk]
            if dev == role:
                v, bw = _best_keep(h, wf[made - 1, wc, h], kv[wc], first)
                dec_w[made - 1, h] = bw
                new[wc, h] = v
            else:
                dec_w[made - 1, h] = bk
        for j in range(K):
            for h in range(_NH):
                level[j, h] = new[j, h]
    for j in range(K):
        acc = 0.0
        for h in range(_NH):
            acc += _P0[h] * level[j, h]
        out[j] = acc


@njit(**JIT)
def round2(L, exact, code_t, pay_t, TT, dev, K, want_dist, dist_cp, lead_dec, foll_dec, lead_dec_eq, foll_dec_eq):
    """A 2-player round; returns the utilities before the leader's first throw.

    ``code_t, pay_t[hL, c-1, hF, f-1]``; decisions ``lead_dec[made-1, h]`` and
    ``foll_dec[hL, c-1, made-1, h]`` are those played in the last component's
    world (the profile's own when ``dev < 0``), ``*_eq`` the profile's. With
    ``want_dist``, ``dist_cp[code, pay]`` receives the outcome distribution under
    the former.
    """
    first_f = 1 if exact else 0
    level = np.empty((K, _NH))
    new = np.empty((K, _NH))
    kv = np.empty((K, _N_PARTIAL))
    wf = np.empty((3, K, _NH))
    U = np.empty((3, K, _NH))
    tmp = np.empty(K)
    out = np.empty(K)
    for hL in range(_NH):
        for c in range(1, L + 1):
            for f in range(1, c + 1):
                for h in range(_NH):
                    code = code_t[hL, c - 1, h, f - 1]
                    p = pay_t[hL, c - 1, h, f - 1]
                    for j in range(K):
                        wf[f - 1, j, h] = TT[code, p, j]
            player_dp(wf, c, first_f, 1, dev, K, foll_dec_eq[hL, c - 1], foll_dec[hL, c - 1], level, new, kv, tmp)
            for j in range(K):
                U[c - 1, j, hL] = tmp[j]
    player_dp(U, L, 0, 0, dev, K, lead_dec_eq, lead_dec, level, new, kv, out)
    if want_dist:
        dist_cp[:, :] = 0.0
        cur = np.empty(_NH)
        nxt = np.empty(_NH)
        fin_l = np.zeros((3, _NH))
        fin_f = np.zeros((3, _NH))
        _final_hands(L, lead_dec, cur, nxt, fin_l)
        for c in range(1, L + 1):
            for hL in range(_NH):
                mL = fin_l[c - 1, hL]
                if mL == 0.0:
                    continue
                fin_f[:, :] = 0.0
                _final_hands(c, foll_dec[hL, c - 1], cur, nxt, fin_f)
                for f in range(1, c + 1):
                    for h in range(_NH):
                        m = fin_f[f - 1, h]
                        if m != 0.0:
                            dist_cp[code_t[hL, c - 1, h, f - 1], pay_t[hL, c - 1, h, f - 1]] += mL * m
    return out


@njit(**JIT)
def round3(L, exact, ftw, code_t, pay_t, TT, dev, K, want_dist, dist_cp, lead_dec, f1_dec, f2_dec,
           lead_dec_eq, f1_dec_eq, f2_dec_eq):
    """A 3-player round; returns the utilities before the leader's first throw.

    ``code_t, pay_t[hL, c-1, h1, f1-1, h2, f2-1]``. The second follower's context
    is ``(hL, c, h1, f1)``; without ``ftw`` (fewer_throws_wins) the first
    follower's throws change nothing of the round's outcome, so the context
    ``(hL, c, h1)`` is solved once and stored at ``f1 = 1``. Decisions:
    ``lead_dec[made-1, h]``, ``f1_dec[hL, c-1, made-1, h]``,
    ``f2_dec[hL, c-1, h1, f1-1, made-1, h]`` as in :func:`round2`.
    """
    first_f = 1 if exact else 0
    level = np.empty((K, _NH))
    new = np.empty((K, _NH))
    kv = np.empty((K, _N_PARTIAL))
    wf2 = np.empty((3, K, _NH))
    w1 = np.empty((3, K, _NH))
    U = np.empty((3, K, _NH))
    tmp = np.empty(K)
    out = np.empty(K)
    for hL in range(_NH):
        for c in range(1, L + 1):
            for h1 in range(_NH):
                for f1 in range(1, c + 1):
                    if f1 > 1 and not ftw:
                        for j in range(K):
                            w1[f1 - 1, j, h1] = w1[0, j, h1]
                        continue
                    for f2 in range(1, c + 1):
                        for h2 in range(_NH):
                            code = code_t[hL, c - 1, h1, f1 - 1, h2, f2 - 1]
                            p = pay_t[hL, c - 1, h1, f1 - 1, h2, f2 - 1]
                            for j in range(K):
                                wf2[f2 - 1, j, h2] = TT[code, p, j]
                    player_dp(wf2, c, first_f, 2, dev, K, f2_dec_eq[hL, c - 1, h1, f1 - 1],
                              f2_dec[hL, c - 1, h1, f1 - 1], level, new, kv, tmp)
                    for j in range(K):
                        w1[f1 - 1, j, h1] = tmp[j]
            player_dp(w1, c, first_f, 1, dev, K, f1_dec_eq[hL, c - 1], f1_dec[hL, c - 1], level, new, kv, tmp)
            for j in range(K):
                U[c - 1, j, hL] = tmp[j]
    player_dp(U, L, 0, 0, dev, K, lead_dec_eq, lead_dec, level, new, kv, out)
    if want_dist:
        dist_cp[:, :] = 0.0
        cur = np.empty(_NH)
        nxt = np.empty(_NH)
        fin_l = np.zeros((3, _NH))
        fin_1 = np.zeros((3, _NH))
        fin_2 = np.zeros((3, _NH))
        _final_hands(L, lead_dec, cur, nxt, fin_l)
        for c in range(1, L + 1):
            for hL in range(_NH):
                mL = fin_l[c - 1, hL]
                if mL == 0.0:
                    continue
                fin_1[:, :] = 0.0
                _final_hands(c, f1_dec[hL, c - 1], cur, nxt, fin_1)
                for f1 in range(1, c + 1):
                    fi = f1 - 1 if ftw else 0
                    for h1 in range(_NH):
                        m1 = fin_1[f1 - 1, h1]
                        if m1 == 0.0:
                            continue
                        m1 *= mL
                        fin_2[:, :] = 0.0
                        _final_hands(c, f2_dec[hL, c - 1, h1, fi], cur, nxt, fin_2)
                        for f2 in range(1, c + 1):
                            for h2 in range(_NH):
                                m2 = fin_2[f2 - 1, h2]
                                if m2 != 0.0:
                                    dist_cp[code_t[hL, c - 1, h1, f1 - 1, h2, f2 - 1],
                                            pay_t[hL, c - 1, h1, f1 - 1, h2, f2 - 1]] += m1 * m2
    return out


@njit(**JIT)
def fill_round_table3(phase, rank, value, prm, sig, code, pay):
    """Outcome pattern and payout of a 3-player round for every final hand and throws,
    judged by the rules kernel.

    ``code, pay[hL, c-1, h1, f1-1, h2, f2-1]`` (entries with a follower's throws
    above the count are filled too: harmless, never read). ``sig[s01, s02, s12]``
    maps the signs of the key differences (+1) to the pattern code. Tied players
    hold the same hand, so the payout does not depend on the roll-offs: it is
    computed for the first loser and the first winner candidate.
    """
    hands = np.empty(3, dtype=np.int64)
    keys = np.empty(3, dtype=np.int64)
    tied = np.empty(3, dtype=np.int64)
    for a in range(_NH):
        for b in range(_NH):
            for d in range(_NH):
                hands[0] = a
                hands[1] = b
                hands[2] = d
                rescue = R.is_rescue(hands, 3, prm)
                for ta in range(3):
                    for tb in range(3):
                        for td in range(3):
                            keys[0] = R.order_key(a, ta + 1, rescue, rank, prm)
                            keys[1] = R.order_key(b, tb + 1, rescue, rank, prm)
                            keys[2] = R.order_key(d, td + 1, rescue, rank, prm)
                            R.extreme_keys(keys, 3, True, -1, tied)
                            jl = tied[0]
                            R.extreme_keys(keys, 3, False, jl, tied)
                            jw = tied[0]
                            s01 = np.sign(keys[0] - keys[1]) + 1
                            s02 = np.sign(keys[0] - keys[2]) + 1
                            s12 = np.sign(keys[1] - keys[2]) + 1
                            code[a, ta, b, tb, d, td] = sig[s01, s02, s12]
                            pay[a, ta, b, tb, d, td] = R.payout(hands, 3, jw, jl, rescue, phase, value, prm)


@njit(**JIT)
def fill_transitions(pots, toks, n, P, prm, kind, nxt_pot, nxt_tok, perm, win_share, pay_share):
    """Settle every outcome (loser l, winner w, payout p) of every state by the rules kernel.

    States are seen from the roles of the round (role 0 leads, every player in).
    ``kind[s, l, w, p]``: -1 unused (l == w), 0 the game ends (``win_share`` and
    ``pay_share[s, l, w, p, j]`` say who won and who pays), 1 a state with every
    player still in, 2 a state with a player out (under ``last_holder``: the
    players out have won, ``win_share`` 1). Otherwise ``nxt_pot``, ``nxt_tok[..., :m]``
    (by the next round's roles) and ``perm[..., j]``, the next role of role j (-1 out).
    """
    tok = np.empty(n, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    place = np.empty(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    for s in range(pots.shape[0]):
        for lo in range(n):
            for w in range(n):
                if lo == w:
                    continue
                for p in range(1, P):
                    for j in range(n):
                        tok[j] = toks[s, j]
                        out[j] = 0
                        place[j] = -1
                    phase = R.phase_of(pots[s])
                    swing, pot2 = R.settle(phase, pots[s], tok, w, lo, p)
                    nout = R.go_out(phase, pot2, tok, out, place, 0, w, n)
                    if R.game_over(n, nout, prm):
                        win_mask, lose_mask = R.result_masks(n, out, tok, place, prm)
                        kind[s, lo, w, p] = 0
                        nw = R.sharers(n, win_mask)
                        nl = R.sharers(n, lose_mask)
                        for j in range(n):
                            win_share[s, lo, w, p, j] = ((win_mask >> j) & 1) / nw
                            pay_share[s, lo, w, p, j] = ((lose_mask >> j) & 1) / nl
                        continue
                    kind[s, lo, w, p] = 2 if nout > 0 else 1
                    for j in range(n):
                        win_share[s, lo, w, p, j] = out[j]
                    m = R.playing_order(R.next_leader(0, lo, w, out, n, prm), out, n, order)
                    nxt_pot[s, lo, w, p] = pot2
                    for j in range(n):
                        perm[s, lo, w, p, j] = -1
                    for r in range(m):
                        perm[s, lo, w, p, order[r]] = r
                        nxt_tok[s, lo, w, p, r] = tok[order[r]]
