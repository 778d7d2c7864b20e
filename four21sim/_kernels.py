"""numba kernels of the game engine: the random stream, a round, a game, a batch of games.

The contract these kernels implement, draw for draw, is docs/engine.md; the
plain-Python twin in tests/reference.py implements the same contract
independently. Public entry points validate their inputs in
:mod:`four21sim.simulate`; nothing here checks anything.
"""

from __future__ import annotations

import numpy as np

from . import dice
from ._numba import JIT, PARALLEL_JIT, njit, prange

# Bump when a change alters the games played from a seed (stream, draw order, rules):
# result directories made under another contract are then refused, never mixed.
ENGINE_CONTRACT = 1

# The dice tables below are compiled into the kernels as constants; numba's cache is keyed
# on this file, so a change to dice.py needs this file touched (or __pycache__ cleared).

# ----------------------------------------------------------------- constants
_U = np.uint64
_GAMMA = _U(0x9E3779B97F4A7C15)
_C1 = _U(0xBF58476D1CE4E5B9)
_C2 = _U(0x94D049BB133111EB)
_M32 = _U(0xFFFFFFFF)
_S30, _S27, _S31, _S32 = _U(30), _U(27), _U(31), _U(32)
_ONE = _U(1)

_OUTCOME_HAND = np.ascontiguousarray(dice.OUTCOME_HAND)
_KEEP_RESULT = np.ascontiguousarray(dice.KEEP_RESULT)
_KEEP_SIZE = np.ascontiguousarray(dice.KEEP_SIZE)
_CATEGORY = np.ascontiguousarray(dice.CATEGORY)
_HAND_KEEPS = np.ascontiguousarray(dice.HAND_KEEPS)
_N_HAND_KEEPS = np.ascontiguousarray(dice.N_HAND_KEEPS)
_FULL = dice.FULL_KEEP
_H221 = dice.hand_index((2, 2, 1))
_NH = dice.N_HANDS

# prm: the variant as integers (filled by simulate.variant_params)
P_TOKENS, P_CHARGE_THROWS, P_DECHARGE_THROWS, P_EXACT, P_FTW, P_CUM_CHARGE, P_CUM_DECHARGE, \
    P_NENETTE_MIN, P_RESCUE, P_NEXT_LEADER, P_END, P_MAX_ROUNDS = range(12)
N_PRM = 12
# pk[p]: policy meta
K_KIND, K_CTX, K_LEAD_OFF, K_FOLL_OFF = range(4)
KIND_TABLE, KIND_RANDOM = 0, 1
# misc counters
M_GAMES, M_RUNAWAY, M_ROUNDS_C, M_ROUNDS_D, M_ROUNDS_SQ, M_SWING, M_SWING_SQ, M_DECIDED_CHARGE, \
    M_RESCUES, M_DRAWS, M_ROUNDS, M_ROUNDS_ALL = range(12)
N_MISC = 12  # M_ROUNDS counts the rounds of finished games, M_ROUNDS_ALL every round played
N_ROUND_BINS = 256  # histograms of rounds per game; the last bin collects longer games
N_SWING_BINS = 64  # swing per round
N_GAME_SWING_BINS = 1024  # swing over a game
REC_WIDTH = 23
BIT_BUDGET = 24  # bits of a word spent before the next word: >= 40 bits stay
SHARE_UNIT = 840  # lcm(1..8): a win or loss shared by k players is worth SHARE_UNIT // k, exactly

# Fairness counters (issue 10): one flat int64 array ``c_ext`` per block, named slices.
# E_POS: rounds by phase (2) x position after the leader (8, 0 = leader) x
#   (rounds with that position at the table, rounds it lost, rounds it won).
# E_R1: over finished games, the round-1 loser's win share and loss share (units of
#   1/SHARE_UNIT) and their squares: P(win | lost round 1), P(pay | lost round 1).
# E_TAKEN: histogram of the tokens a player takes in a game (as a round's loser), one
#   entry per player and finished game; the last bin collects the tail.
# E_WPAIR, E_LPAIR: [8][8] sums over finished games of u_s * u_t, u = a seat's win (loss)
#   share in units of 1/SHARE_UNIT: the per-game covariance of the share vectors.
E_POS = 0
N_POS = 8
E_R1 = E_POS + 2 * N_POS * 3
R1_WIN, R1_WIN_SQ, R1_LOSE, R1_LOSE_SQ = range(4)
E_TAKEN = E_R1 + 4
N_TAKEN_BINS = 128
E_WPAIR = E_TAKEN + N_TAKEN_BINS
E_LPAIR = E_WPAIR + 64
N_EXT = E_LPAIR + 64


# ------------------------------------------------------------ random stream
@njit(inline="always", **JIT)
def mix64(z):
    z = (z ^ (z >> _S30)) * _C1
    z = (z ^ (z >> _S27)) * _C2
    return z ^ (z >> _S31)


@njit(**JIT)
def game_key(seedmix, g):
    """Key of game g; ``seedmix = mix64(seed)``."""
    return mix64(seedmix + _U(g))


@njit(inline="always", **JIT)
def draw(rs, ri, r, bits):
    """Uniform integer in [0, r), r <= 216, ``bits = (r - 1).bit_length()``.

    rs = [key, k, word], ri = [bits used of the word, draws made].
    """
    if ri[0] + bits > BIT_BUDGET:
        k = rs[1] + _ONE
        rs[1] = k
        rs[2] = mix64(rs[0] + k * _GAMMA)
        ri[0] = 0
    u = rs[2]
    ru = _U(r)
    hi = ((u >> _S32) * ru + (((u & _M32) * ru) >> _S32)) >> _S32
    rs[2] = u * ru
    ri[0] += bits
    ri[1] += 1
    return np.int64(hi)


@njit(inline="always", **JIT)
def throw3(rs, ri):
    return _OUTCOME_HAND[draw(rs, ri, 216, 8)]


@njit(inline="always", **JIT)
def rethrow(keep, rs, ri):
    n = 3 - _KEEP_SIZE[keep]
    if n == 1:
        return _KEEP_RESULT[keep, draw(rs, ri, 6, 3)]
    if n == 2:
        return _KEEP_RESULT[keep, draw(rs, ri, 36, 6)]
    return _KEEP_RESULT[keep, draw(rs, ri, 216, 8)]


@njit(inline="always", **JIT)
def draw_small(rs, ri, r):
    """draw(r) for 2 <= r <= 8 (the random policy)."""
    bits = 1 if r <= 2 else (2 if r <= 4 else 3)
    return draw(rs, ri, r, bits)


@njit(**JIT)
def fill_dice(seed, games, out):
    """Results of ``draw(6) + 1`` for the first ``out.shape[1]`` draws of games 0..games-1 (for tests)."""
    seedmix = mix64(_U(seed))
    rs = np.zeros(3, dtype=np.uint64)
    ri = np.zeros(2, dtype=np.int64)
    for g in range(games):
        rs[0] = game_key(seedmix, g)
        rs[1] = _U(0)
        ri[0] = BIT_BUDGET
        for j in range(out.shape[1]):
            out[g, j] = draw(rs, ri, 6, 3) + 1


# ------------------------------------------------------------- one game
@njit(inline="always", **JIT)
def _random_keep(h, allow_stop, rs, ri):
    """The random policy: a uniform draw among the keeps of HAND_KEEPS[h] (stop, the first,
    left out when not allowed)."""
    if allow_stop:
        return _HAND_KEEPS[h, draw_small(rs, ri, _N_HAND_KEEPS[h])]
    return _HAND_KEEPS[h, 1 + draw_small(rs, ri, _N_HAND_KEEPS[h] - 1)]


@njit(inline="always", **JIT)
def _roll_off(tied, nt, sign, rank, roll, rs, ri):
    """Players tied[:nt] throw once each, in order; those with the worst (sign=1) or best
    (sign=-1) rank stay tied; repeat. Returns the one left."""
    while nt > 1:
        best = -(1 << 30)
        for i in range(nt):
            rk = sign * rank[throw3(rs, ri)]
            roll[tied[i]] = rk
            if rk > best:
                best = rk
        nn = 0
        for i in range(nt):
            if roll[tied[i]] == best:
                tied[nn] = tied[i]
                nn += 1
        nt = nn
    return tied[0]


@njit(inline="always", **JIT)
def _ctx(pk, p, pot, own, tokens):
    if pk[p, K_CTX] == 1:
        return pot * (tokens + 1) + own
    return 0


@njit(**JIT)
def play_games(seedmix, first_game, lo, hi, record, n, prm, rank, value, pk, lead, foll, seat_pol,
              rs, ri, tok, out, place, order, hand_of, thr_of, key_of, roll, tied, tokc,
              c_misc, c_win, c_lose, c_place, c_rc, c_rd, c_rt, c_pay, c_gsw, c_tokc,
              c_catw, c_catl, c_count, rec, taken, c_ext):
    """Play games ``first_game + i`` for ``i`` in ``lo .. hi-1`` into the counters ``c_*``;
    with ``record``, game ``first_game + i`` also fills row ``i`` of ``rec``."""
    # the variant in locals: stores into the counters cannot alias them
    T = prm[P_TOKENS]
    exact = prm[P_EXACT] == 1
    ftw = prm[P_FTW] == 1
    l_charge = prm[P_CHARGE_THROWS]
    l_decharge = prm[P_DECHARGE_THROWS]
    cum_charge = prm[P_CUM_CHARGE] == 1
    cum_decharge = prm[P_CUM_DECHARGE] == 1
    nenette_min = prm[P_NENETTE_MIN]
    rescue_on = prm[P_RESCUE] == 1
    nl_rule = prm[P_NEXT_LEADER]
    last_holder = prm[P_END] == 1
    max_rounds = prm[P_MAX_ROUNDS]
    for i in range(lo, hi):
        g = first_game + i
        r = i if record else -1
        rs[0] = game_key(seedmix, g)
        rs[1] = _U(0)
        rs[2] = _U(0)
        ri[0] = BIT_BUDGET
        ri[1] = 0
        for s in range(n):
            tok[s] = 0
            out[s] = 0
            place[s] = -1
            tokc[s] = 0
            taken[s] = 0
        r1_loser = -1
        pot = T
        phase = 0
        leader = 0
        nout = 0
        rounds_c = 0
        rounds_d = 0
        gswing = 0
        hev = _U(0)
        runaway = False
        while True:
            if rounds_c + rounds_d >= max_rounds:
                runaway = True
                break
            # playing order
            m = 0
            s = leader
            for _ in range(n):
                if out[s] == 0:
                    order[m] = s
                    m += 1
                s += 1
                if s == n:
                    s = 0
            L = l_charge if phase == 0 else l_decharge
            # the leader
            p = seat_pol[leader]
            h = throw3(rs, ri)
            made = 1
            if made < L:
                ctx = _ctx(pk, p, pot, tok[leader], T)
                while made < L:
                    if pk[p, K_KIND] == KIND_RANDOM:
                        k = _random_keep(h, True, rs, ri)
                    else:
                        k = lead[pk[p, K_LEAD_OFF] + (ctx * 2 + (L - made - 1)) * _NH + h]
                    if k == _FULL + h:
                        break
                    h = rethrow(k, rs, ri)
                    made += 1
            count = made
            hand_of[0] = h
            thr_of[0] = made
            worst = h
            # the followers
            for j in range(1, m):
                s = order[j]
                p = seat_pol[s]
                h = throw3(rs, ri)
                made = 1
                if made < count:
                    ctx = _ctx(pk, p, pot, tok[s], T)
                    while made < count:
                        if pk[p, K_KIND] == KIND_RANDOM:
                            k = _random_keep(h, not exact, rs, ri)
                        else:
                            k = foll[pk[p, K_FOLL_OFF]
                                     + ((ctx * _NH + worst) * 3 + (count + made - 3)) * _NH + h]
                        if k == _FULL + h:
                            break
                        h = rethrow(k, rs, ri)
                        made += 1
                hand_of[j] = h
                thr_of[j] = made
                if rank[h] > rank[worst]:
                    worst = h
            # order of the round
            rescue = False
            if rescue_on:
                comb = False
                has221 = False
                for j in range(m):
                    if _CATEGORY[hand_of[j]] <= 3:
                        comb = True
                    if hand_of[j] == _H221:
                        has221 = True
                rescue = has221 and not comb
            top = -(1 << 30)
            low = 1 << 30
            ntop = 0
            nlow = 0
            jl = 0
            jw = 0
            for j in range(m):
                extra = thr_of[j] if ftw else 0
                if rescue and hand_of[j] == _H221:
                    kj = extra - 4
                else:
                    kj = 4 * rank[hand_of[j]] + extra
                key_of[j] = kj
                if kj > top:
                    top = kj
                    ntop = 1
                    jl = j
                elif kj == top:
                    ntop += 1
                if kj < low:
                    low = kj
                    nlow = 1
                    jw = j
                elif kj == low:
                    nlow += 1
            if ntop > 1 or nlow > 1 or top == low:
                # ties: the loser first (highest key, roll-offs keep the worst rank), then
                # the winner among the others (lowest key, roll-offs keep the best rank)
                nt = 0
                for j in range(m):
                    if key_of[j] == top:
                        tied[nt] = j
                        nt += 1
                jl = _roll_off(tied, nt, 1, rank, roll, rs, ri)
                low = 1 << 30
                for j in range(m):
                    if j != jl and key_of[j] < low:
                        low = key_of[j]
                nt = 0
                for j in range(m):
                    if j != jl and key_of[j] == low:
                        tied[nt] = j
                        nt += 1
                jw = _roll_off(tied, nt, -1, rank, roll, rs, ri)
            loser = order[jl]
            winner = order[jw]
            # payout
            hw = hand_of[jw]
            pay = 4 if (rescue and hw == _H221) else value[hw]
            if (phase == 0 and cum_charge) or (phase == 1 and cum_decharge):
                for j in range(m):
                    if j != jw:
                        v = 4 if (rescue and hand_of[j] == _H221) else value[hand_of[j]]
                        if v >= 2:
                            pay += v
            if hand_of[jl] == _H221 and pay < nenette_min:
                pay = nenette_min
            if phase == 0:
                swing = pay if pay < pot else pot
                pot -= swing
            else:
                swing = pay if pay < tok[winner] else tok[winner]
                tok[winner] -= swing
            tok[loser] += swing
            gswing += swing
            # fairness counters: positions after the leader, round-1 loser, tokens taken
            for j in range(m):
                c_ext[E_POS + (phase * N_POS + j) * 3] += 1
            c_ext[E_POS + (phase * N_POS + jl) * 3 + 1] += 1
            c_ext[E_POS + (phase * N_POS + jw) * 3 + 2] += 1
            if r1_loser < 0:
                r1_loser = loser
            taken[loser] += swing
            c_pay[swing if swing < N_SWING_BINS else N_SWING_BINS - 1] += 1
            c_catw[_CATEGORY[hw]] += 1
            c_catl[_CATEGORY[hand_of[jl]]] += 1
            c_count[count - 1] += 1
            c_misc[M_ROUNDS_ALL] += 1
            if rescue:
                c_misc[M_RESCUES] += 1
            if r >= 0:
                hev = mix64(hev ^ _U(loser + 8 * winner + 64 * leader + 512 * count + 4096 * swing))
            # going out
            if phase == 0:
                rounds_c += 1
                if pot == 0:
                    phase = 1
                    newly = 0
                    for s in range(n):
                        tokc[s] = tok[s]
                        if tok[s] == 0:
                            out[s] = 1
                            place[s] = nout
                            newly += 1
                    nout += newly
            else:
                rounds_d += 1
                if tok[winner] == 0:
                    out[winner] = 1
                    place[winner] = nout
                    nout += 1
            if not last_holder:
                if nout > 0:
                    break
            elif n - nout <= 1:
                break
            # next leader
            if nl_rule == 0:
                nl = loser
            elif nl_rule == 1:
                nl = winner
            else:
                nl = leader + 1 if leader + 1 < n else 0
            while out[nl] == 1:
                nl = nl + 1 if nl + 1 < n else 0
            leader = nl
        # results
        c_misc[M_GAMES] += 1
        c_misc[M_DRAWS] += ri[1]
        if runaway:
            c_misc[M_RUNAWAY] += 1
        else:
            nwin = 0
            nlose = 0
            most = -1
            for s in range(n):
                if out[s] == 0:
                    place[s] = nout
                    if tok[s] > most:
                        most = tok[s]
            win_mask = 0
            lose_mask = 0
            for s in range(n):
                if not last_holder:
                    is_win = out[s] == 1
                    is_lose = out[s] == 0 and tok[s] == most
                else:
                    is_win = out[s] == 1 and place[s] == 0
                    is_lose = out[s] == 0
                if is_win:
                    win_mask |= 1 << s
                    nwin += 1
                if is_lose:
                    lose_mask |= 1 << s
                    nlose += 1
            for s in range(n):
                if (win_mask >> s) & 1:
                    c_win[s, nwin] += 1
                if (lose_mask >> s) & 1:
                    c_lose[s, nlose] += 1
                c_place[s, place[s]] += 1
                c_tokc[s, tokc[s]] += 1
                c_ext[E_TAKEN + (taken[s] if taken[s] < N_TAKEN_BINS else N_TAKEN_BINS - 1)] += 1
            uw = SHARE_UNIT // nwin
            ul = SHARE_UNIT // nlose
            for s in range(n):
                for t in range(n):
                    if (win_mask >> s) & 1 and (win_mask >> t) & 1:
                        c_ext[E_WPAIR + 8 * s + t] += uw * uw
                    if (lose_mask >> s) & 1 and (lose_mask >> t) & 1:
                        c_ext[E_LPAIR + 8 * s + t] += ul * ul
            u = SHARE_UNIT // nwin if (win_mask >> r1_loser) & 1 else 0
            c_ext[E_R1 + R1_WIN] += u
            c_ext[E_R1 + R1_WIN_SQ] += u * u
            u = SHARE_UNIT // nlose if (lose_mask >> r1_loser) & 1 else 0
            c_ext[E_R1 + R1_LOSE] += u
            c_ext[E_R1 + R1_LOSE_SQ] += u * u
            rt = rounds_c + rounds_d
            c_misc[M_ROUNDS_C] += rounds_c
            c_misc[M_ROUNDS_D] += rounds_d
            c_misc[M_ROUNDS] += rt
            c_misc[M_ROUNDS_SQ] += rt * rt
            c_misc[M_SWING] += gswing
            c_misc[M_SWING_SQ] += gswing * gswing
            if rounds_d == 0:
                c_misc[M_DECIDED_CHARGE] += 1
            c_rc[rounds_c if rounds_c < N_ROUND_BINS else N_ROUND_BINS - 1] += 1
            c_rd[rounds_d if rounds_d < N_ROUND_BINS else N_ROUND_BINS - 1] += 1
            c_rt[rt if rt < N_ROUND_BINS else N_ROUND_BINS - 1] += 1
            c_gsw[gswing if gswing < N_GAME_SWING_BINS else N_GAME_SWING_BINS - 1] += 1
            if r >= 0:
                rec[r, 2] = win_mask
                rec[r, 3] = lose_mask
        if r >= 0:
            rec[r, 0] = rounds_c
            rec[r, 1] = rounds_d
            rec[r, 4] = gswing
            rec[r, 5] = ri[1]
            rec[r, 6] = np.int64(hev)
            for s in range(n):
                rec[r, 7 + s] = tok[s]
                rec[r, 15 + s] = tokc[s]


@njit(**PARALLEL_JIT)
def run_blocks(seedmix, first_game, block, games, n, prm, rank, value, pk, lead, foll, seat_pol,
               c_misc, c_win, c_lose, c_place, c_rc, c_rd, c_rt, c_pay, c_gsw, c_tokc,
               c_catw, c_catl, c_count, c_ext, rec, record):
    """Play ``games`` games from ``first_game`` in blocks of ``block`` games (one call of
    ``play_games`` per block: passing some 40 arrays per game would cost more than the game).

    Block b (games ``first_game + b*block ...``) adds into counters ``c_*[b]``; the
    caller sums over blocks, so the totals do not depend on the number of threads.
    With ``record`` true, row ``i`` of ``rec`` receives game ``first_game + i``.
    """
    nblocks = c_misc.shape[0]
    for b in prange(nblocks):
        rs = np.zeros(3, dtype=np.uint64)
        ri = np.zeros(2, dtype=np.int64)
        tok = np.zeros(n, dtype=np.int64)
        out = np.zeros(n, dtype=np.int64)
        place = np.zeros(n, dtype=np.int64)
        order = np.zeros(n, dtype=np.int64)
        hand_of = np.zeros(n, dtype=np.int64)
        thr_of = np.zeros(n, dtype=np.int64)
        key_of = np.zeros(n, dtype=np.int64)
        roll = np.zeros(n, dtype=np.int64)
        tied = np.zeros(n, dtype=np.int64)
        tokc = np.zeros(n, dtype=np.int64)
        taken = np.zeros(n, dtype=np.int64)
        lo = b * block
        hi = min(games, lo + block)
        # views once per block: per-game slicing costs reference-count traffic
        cm, cw, cl, cp, crc, crd, crt = c_misc[b], c_win[b], c_lose[b], c_place[b], c_rc[b], c_rd[b], c_rt[b]
        cpay, cgsw, ctok, ccw, ccl, ccnt = c_pay[b], c_gsw[b], c_tokc[b], c_catw[b], c_catl[b], c_count[b]
        play_games(seedmix, first_game, lo, hi, record, n, prm, rank, value, pk, lead, foll, seat_pol,
                   rs, ri, tok, out, place, order, hand_of, thr_of, key_of, roll, tied, tokc,
                   cm, cw, cl, cp, crc, crd, crt, cpay, cgsw, ctok, ccw, ccl, ccnt, rec, taken, c_ext[b])
