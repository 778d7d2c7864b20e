"""numba kernels of the game engine: a turn, a round, a game, blocks of games.

The contract these kernels implement, draw for draw, is docs/engine.md; each step
function below is named after its numbered step there. The rules themselves
(order of the hands, payout, settlement, going out, end, next leader) are the
rules kernel's (:mod:`four21sim.rules.kernel`); the random stream is
:mod:`four21sim.engine._stream`; the counters a game adds into are declared in
:mod:`four21sim.engine.layout`. The plain-Python twin in tests/reference.py implements
the same contract independently. Public entry points validate their inputs in
:mod:`four21sim.engine.simulation`; nothing here checks anything.
"""

from __future__ import annotations

import numpy as np

from .._util.jit import JIT, ix, njit
from ..policies.contexts import CTX_COMPACT, CTX_ROUND, CTX_TOKENS, compact_block, compact_context, round_state_index
from ..rules import dice
from ..rules import kernel as R
from . import layout as Y
from ._stream import (
    draw_st,
    kernel_table,
    load_st,
    mix64,
    rethrow_st,
    signed_tables,
    store_st,
    stream_start,
    throw3_st,
)

# Bump when a change alters the games played from a seed (stream, draw order, rules):
# result directories made under another contract are then refused, never mixed.
ENGINE_CONTRACT = 2  # 2: xoroshiro128++ per game, a word per draw (1: SplitMix64 words carved by 24 bits)

_U = np.uint64
_CATEGORY = kernel_table(dice.CATEGORY)
_HAND_KEEPS = kernel_table(dice.HAND_KEEPS)
_N_HAND_KEEPS = kernel_table(dice.N_HAND_KEEPS)
_FULL = dice.FULL_KEEP
_NH = dice.N_HANDS

# pk[p, K_*]: what the kernel knows of policy p (filled by simulation.pack_policies); the
# game loop reads it by seat, sp[s * N_PK + K_*] (the row of seat s's policy)
K_KIND, K_CTX, K_LEAD_OFF, K_FOLL_OFF, K_AUX_OFF, K_TARGETS = range(6)
N_PK = 6
KIND_TABLE, KIND_RANDOM = 0, 1
LEAD_SLOTS = 2  # lead[ctx, throws_left - 1, hand], throws_left = 1..2
# The follower tables keep only the (count, made) pairs that occur (made < count), in this
# order: pair (count, made) is slot count + made - 3.
FOLL_PAIRS = ((2, 1), (3, 1), (3, 2))
FOLL_SLOTS = len(FOLL_PAIRS)

# Rows of a block's scratch arrays: per-seat state of a game, per-player state of a round.
# Seats, hands and throws sit in unsigned bytes (wb): read back from there they are known
# to be non-negative and index other arrays without numba's negative-index check.
W_TOK, W_OUT, W_PLACE, W_TOKC, W_KEY, W_ROLL, W_TAKEN = range(7)
N_W = 7
B_ORDER, B_HAND, B_THROWS, B_TIED = range(4)
N_B = 4


# The big steps of a game: compiled once each and inlined by LLVM (forceinline); numba's
# own inlining (inline="always") copies a step's whole IR at each call site, nested steps
# again at every level (compile time). No reference counting (_nrt=False): they take
# arrays, and allocate nothing.
#
# One compilation of each step serves both game kernels (two players and n): numba compiles a
# step once per signature, and a constant passed as it is (``2``, ``True``, a loop's ``0``)
# is typed as a literal, a signature of its own. So constants passed to a step are cast
# (``np.int64(2)``, ``np.bool_(True)``), and LLVM, inlining, still folds them (the cold start
# of the two kernels: 21 s before, 15 s after).
STEP = dict(JIT, _nrt=False, forceinline=True)


@njit(**JIT)
def _compiled_tables():
    return (_CATEGORY.copy(), _HAND_KEEPS.copy(), _N_HAND_KEEPS.copy(), np.array([_FULL]), np.array([_NH]),)


def compiled_tables() -> dict:
    """The tables as compiled into these kernels (see :func:`four21sim.engine._stream.compiled_tables`)."""
    return dict(zip(('CATEGORY', 'HAND_KEEPS', 'N_HAND_KEEPS', 'FULL_KEEP', 'N_HANDS'),
                    signed_tables(_compiled_tables())))


# ------------------------------------------------------------- decisions (engine.md "Decisions")
@njit(inline="always", **JIT)
def context(pk, p, pot, tok, order, m, j, hands, throws, tokens, ftw):
    """The decision context of policy p (row ``p`` of ``pk``) for the j-th player of the
    round (0: the leader): :func:`context_of` its mode."""
    return context_of(pk[p, K_CTX], pot, tok, order, m, j, hands, throws, tokens, ftw)


@njit(inline="always", **JIT)
def context_of(mode, pot, tok, order, m, j, hands, throws, tokens, ftw):
    """The row of a decision in context mode ``mode`` for the j-th player of the round.

    CTX_ROUND (docs/engine.md): rows 0..tokens for two players in play (the leader's
    tokens), then per 3-player state a block of ``1 + 56*F`` rows (F = 3 with
    fewer_throws_wins, else 1): the leader and the first follower read its first row,
    the second follower the row of the first follower's hand (and throws).
    """
    if mode == CTX_TOKENS:
        return pot * (tokens + 1) + tok[order[j]]
    if mode == CTX_ROUND:
        if m == 2:
            return tok[order[0]]
        f = 3 if ftw else 1
        ctx = tokens + 1 + round_state_index(pot, tok[order[0]], tok[order[1]], tokens) * (1 + _NH * f)
        if j == 2:
            ctx += 1 + hands[1] * f + (throws[1] - 1 if ftw else 0)
        return ctx
    return 0


@njit(inline="always", **JIT)
def random_keep(h, may_stop, st):
    """The random policy: a uniform draw among the keeps of HAND_KEEPS[h] (stop, the first,
    left out when not allowed). Returns ``(keep, st)``."""
    if may_stop:
        x, st = draw_st(st, _N_HAND_KEEPS[h])
        return _HAND_KEEPS[h, x], st
    x, st = draw_st(st, _N_HAND_KEEPS[h] - 1)
    return _HAND_KEEPS[h, 1 + x], st


# ------------------------------------------------------------- steps 2-3: a turn
@njit(**STEP)
def turn(kind, table, row, leading, limit, may_stop, st):
    """One player's turn: throw three dice, then keep and re-throw while allowed and wanted.

    The leader plays up to the phase's limit and may stop; a follower plays up to the
    round's count and may stop only under ``at_most``. A table policy keeps entry ``row +
    slot*56 + hand`` of ``table`` (``row``: the turn's context and target; ``slot``: the
    throws left, or the (count, made) pair); the random policy draws its keep (the branch
    on the kind taken once a turn). Returns ``(hand, throws, st)``.
    """
    h, st = throw3_st(st)
    made = 1
    if kind == KIND_RANDOM:
        while made < limit:
            k, st = random_keep(h, may_stop, st)
            if k == _FULL + h:
                break
            h, st = rethrow_st(k, st)
            made += 1
        return h, made, st
    while made < limit:
        slot = limit - made - 1 if leading else limit + made - 3
        k = table[ix(row + slot * _NH + h)]
        if k == _FULL + h:
            break
        h, st = rethrow_st(k, st)
        made += 1
    return h, made, st


@njit(**STEP)
def leader_turn(sp, lead, aux, limit, pot, tok, order, m, hands, throws, tokens, ftw, st):
    """Step 2: the leader (``order[0]``) plays up to ``limit`` throws; ``(hand, count, st)``."""
    b = order[0] * N_PK
    mode = sp[b + K_CTX]
    if mode == CTX_COMPACT:  # a block per state (none where nobody decides: a one-throw phase)
        ctx = compact_block(aux, sp[b + K_AUX_OFF], pot, tok, order, m) if limit > 1 else 0
    else:
        ctx = context_of(mode, pot, tok, order, m, 0, hands, throws, tokens, ftw)
    return turn(sp[b + K_KIND], lead, sp[b + K_LEAD_OFF] + ctx * (LEAD_SLOTS * _NH), np.bool_(True), limit,
                np.bool_(True), st)


@njit(**STEP)
def follower_turns(sp, foll, aux, rank, count, may_stop, pot, tok, order, m, hands, throws, tokens, ftw, st):
    """Step 3: the followers play to the count in turn, each seeing the worst hand so far
    (its target; a CTX_ROUND policy sees the leader's hand, the rest in its context; a
    CTX_COMPACT policy reads the row its context maps to, one row for every context alike, and
    the context knows the count)."""
    worst = hands[0]
    for j in range(1, m):
        b = order[j] * N_PK
        mode = sp[b + K_CTX]
        if mode == CTX_COMPACT:
            row = sp[b + K_FOLL_OFF]
            if count > 1:  # rows of [made-1, hand]: slot (count + made - 3) read at made - 1
                a = sp[b + K_AUX_OFF]
                g = compact_context(aux, a, compact_block(aux, a, pot, tok, order, m), j, hands, throws, count)
                row += g * (2 * _NH) - (count - 2) * _NH
        else:
            ctx = context_of(mode, pot, tok, order, m, j, hands, throws, tokens, ftw)
            if sp[b + K_TARGETS] == 1:
                # a follower table that ignores the target keeps one: its turn does not wait
                # for the hands before it (the branch, predicted, breaks that dependency)
                row = sp[b + K_FOLL_OFF] + ctx * (FOLL_SLOTS * _NH)
            else:
                target = hands[0] if mode == CTX_ROUND else worst
                row = sp[b + K_FOLL_OFF] + (ctx * _NH + target) * (FOLL_SLOTS * _NH)
        h, made, st = turn(sp[b + K_KIND], foll, row, np.bool_(False), count, may_stop, st)
        hands[j] = h
        throws[j] = made
        if rank[h] > rank[worst]:
            worst = h
    return st


# ------------------------------------------------------------- steps 5-6: judging
@njit(**STEP)
def roll_off(tied, nt, worst, rank, roll, st):
    """Players ``tied[:nt]`` throw once each, in order; those with the worst (or best) rank
    stay tied; repeat. Returns ``(the one left, st)``."""
    sign = 1 if worst else -1
    while nt > 1:
        best = -(1 << 30)
        for i in range(nt):
            h, st = throw3_st(st)
            rk = sign * rank[h]
            roll[tied[i]] = rk
            if rk > best:
                best = rk
        nn = 0
        for i in range(nt):
            if roll[tied[i]] == best:
                tied[nn] = tied[i]
                nn += 1
        nt = nn
    return tied[0], st


@njit(inline="always", **JIT)
def judge(hands, throws, m, rescue, rank, prm, keys, tied, roll, rs, ri):
    """The round's loser, then its winner among the others (indices into the round), the
    stream's state in arrays (:func:`judge_st`)."""
    jl, jw, st = judge_st(hands, throws, m, rescue, rank, prm, keys, tied, roll, load_st(rs, ri))
    store_st(st, rs, ri)
    return jl, jw


@njit(**STEP)
def judge_st(hands, throws, m, rescue, rank, prm, keys, tied, roll, st):
    """Steps 4-6: the round's loser, then its winner among the others (indices into the
    round): ``(jl, jw, st)``."""
    if m == 2:  # two hands: one comparison (the loops below cost some 7% of a 2-player game)
        k0 = R.order_key(hands[0], throws[0], rescue, rank, prm)
        k1 = R.order_key(hands[1], throws[1], rescue, rank, prm)
        if k0 != k1:
            jl = np.int64(k1 > k0)  # arithmetic, not a branch: who loses is a coin toss to the predictor
            return jl, 1 - jl, st
    # Two passes, extremes then who holds them: tracking the index in the first pass made
    # LLVM turn one of its selects into a branch (x86 cmov conversion), mispredicted in
    # about half the rounds (classic 2p ran ~8% slower).
    top = -(1 << 30)
    low = 1 << 30
    for j in range(m):
        k = R.order_key(hands[j], throws[j], rescue, rank, prm)
        keys[j] = k
        top = max(top, k)
        low = min(low, k)
    ntop = 0
    nlow = 0
    jl = 0
    jw = 0
    for j in range(m):
        k = keys[j]
        if k == top:
            ntop += 1
            jl = j
        if k == low:
            nlow += 1
            jw = j
    if ntop == 1 and nlow == 1 and top != low:
        return jl, jw, st
    nt = np.int64(R.extreme_keys(keys, m, True, -1, tied))  # (cast: see STEP)
    jl, st = roll_off(tied, nt, np.bool_(True), rank, roll, st)
    nt = np.int64(R.extreme_keys(keys, m, False, jl, tied))
    jw, st = roll_off(tied, nt, np.bool_(False), rank, roll, st)
    return jl, jw, st


# ------------------------------------------------------------- steps 1-8: a round
@njit(**STEP)
def play_round(n, prm, rank, value, sp, lead, foll, aux, pot, leader, tok, out, order, hands, throws, keys, tied, roll,
               st):
    """Steps 1-8 of a round: ``(phase, m, count, jl, jw, swing, pot, rescue, st)``, with
    ``jl``, ``jw`` the loser and the winner as indices into ``order[:m]``."""
    T = prm[R.P_TOKENS]
    ftw = prm[R.P_FTW] == 1
    phase = R.phase_of(pot)
    if n == 2:  # both seats play every round: a game of two ends when one goes out (whatever the end rule)
        order[0] = leader
        order[1] = 1 - leader
        m = 2
    else:
        m = R.playing_order(leader, out, n, order)
    h, count, st = leader_turn(sp, lead, aux, R.throw_limit(phase, prm), pot, tok, order, m, hands, throws, T, ftw, st)
    hands[0] = h
    throws[0] = count
    st = follower_turns(sp, foll, aux, rank, count, prm[R.P_EXACT] == 0, pot, tok, order, m, hands, throws, T, ftw, st)
    rescue = np.bool_(R.is_rescue(hands, m, prm))  # (cast: see STEP)
    jl, jw, st = judge_st(hands, throws, m, rescue, rank, prm, keys, tied, roll, st)
    pay = R.payout(hands, m, jw, jl, rescue, phase, value, prm)
    swing, pot = R.settle(phase, pot, tok, order[jw], order[jl], pay)
    return phase, m, count, jl, jw, swing, pot, rescue, st


# ------------------------------------------------------------- counters (engine.md "What a game records")
# Some counters are gathered per block in a small histogram ``hist`` and spread over the
# counter vector once per block (:func:`flush_block`): the rounds played by the number in
# play, and the games by (winners' mask, round-1 loser) and by (losers' mask, round-1
# loser). One increment then stands for a loop over the places or over pairs of seats.
@njit(inline="always", **JIT)
def hist_size(n):
    """Entries of a block's histogram for n players: two of ``n * 2**n`` masks, ``2 * n`` rounds."""
    return 2 * (n << n) + 2 * n


@njit(inline="always", **JIT)
def tally_round(c, off, hands, jw, jl, count, swing, rescue):
    """Counters of one round."""
    c[ix(off[Y.S_SWING_ROUND] + (swing if swing < Y.SWING_BINS else Y.SWING_BINS - 1))] += 1
    c[ix(off[Y.S_CAT_WINNER] + _CATEGORY[hands[jw]])] += 1
    c[ix(off[Y.S_CAT_LOSER] + _CATEGORY[hands[jl]])] += 1
    c[ix(off[Y.S_COUNT] + count - 1)] += 1
    c[ix(off[Y.S_ROUNDS_PLAYED])] += 1
    if rescue:
        c[ix(off[Y.S_RESCUES])] += 1


@njit(inline="always", **JIT)
def tally_position(c, off, n, phase, m, jl, jw, hist):
    """Who lost and who won the round, by place after the leader (0 = the leader).

    The rounds each place played are counted by the number in play and spread over the
    places once per block (:func:`flush_block`): one increment a round instead of m
    (measured: 10% of the engine's time in classic).
    """
    base = off[Y.S_POSITION] + phase * n * 3
    hist[ix(2 * (n << n) + phase * n + m - 1)] += 1
    c[ix(base + jl * 3 + 1)] += 1
    c[ix(base + jw * 3 + 2)] += 1


@njit(inline="always", **JIT)
def _bin(x, nbins):
    return min(x, nbins - 1)


@njit(inline="always", **JIT)
def tally_game(c, off, n, tokens, tokc, taken, rounds_c, rounds_d, gswing):
    """Counters of one finished game (docs/engine.md "Results of a game"), but for its
    places (:func:`finish_game`) and its winners and losers (:func:`tally_shares`)."""
    for s in range(n):
        c[ix(off[Y.S_TOKENS_END_CHARGE] + s * (tokens + 1) + tokc[s])] += 1
        c[ix(off[Y.S_TAKEN] + _bin(taken[s], Y.TAKEN_BINS))] += 1
    rt = rounds_c + rounds_d
    c[ix(off[Y.S_SUM_ROUNDS_CHARGE])] += rounds_c
    c[ix(off[Y.S_SUM_ROUNDS_DECHARGE])] += rounds_d
    c[ix(off[Y.S_SUM_ROUNDS])] += rt
    c[ix(off[Y.S_SUM_ROUNDS_SQ])] += rt * rt
    c[ix(off[Y.S_SUM_SWING])] += gswing
    c[ix(off[Y.S_SUM_SWING_SQ])] += gswing * gswing
    if rounds_d == 0:
        c[ix(off[Y.S_DECIDED_IN_CHARGE])] += 1
    c[ix(off[Y.S_ROUNDS_CHARGE] + _bin(rounds_c, Y.ROUND_BINS))] += 1
    c[ix(off[Y.S_ROUNDS_DECHARGE] + _bin(rounds_d, Y.ROUND_BINS))] += 1
    c[ix(off[Y.S_ROUNDS] + _bin(rt, Y.ROUND_BINS))] += 1
    c[ix(off[Y.S_SWING_GAME] + _bin(gswing, Y.GAME_SWING_BINS))] += 1


@njit(inline="always", **JIT)
def tally_shares(hist, n, win_mask, lose_mask, r1_loser):
    """The game's winners and losers, with the round-1 loser, into the block's histogram."""
    hist[ix(win_mask * n + r1_loser)] += 1
    hist[ix((n << n) + lose_mask * n + r1_loser)] += 1


@njit(inline="always", **JIT)
def flush_shares(c, off, n, hist, base, s_count, s_pairs, r1):
    """Spread the games counted by (mask, round-1 loser) from ``hist[base:]`` over the
    counters of one side (wins or losses): by seat and sharers, the per-game products of
    the seats' shares (units of 1/SHARE_UNIT), the round-1 loser's share and its square."""
    for mask in range(1 << n):
        k = R.sharers(n, mask)
        u = Y.SHARE_UNIT // max(k, 1)
        for r in range(n):
            g = hist[ix(base + mask * n + r)]
            if g == 0:
                continue
            hist[ix(base + mask * n + r)] = 0
            for s in range(n):
                if (mask >> s) & 1:
                    c[ix(off[s_count] + s * Y.SHARERS + k)] += g
                    for t in range(n):
                        if (mask >> t) & 1:
                            c[ix(off[s_pairs] + s * n + t)] += g * u * u
            if (mask >> r) & 1:
                c[ix(off[Y.S_ROUND1_LOSER] + r1)] += g * u
                c[ix(off[Y.S_ROUND1_LOSER] + r1 + 1)] += g * u * u


@njit(inline="always", **JIT)
def flush_block(c, off, n, hist):
    """Spread a block's histogram over its counters (see :func:`hist_size`); reset it."""
    flush_shares(c, off, n, hist, 0, Y.S_WIN, Y.S_WIN_PAIRS, 0)
    flush_shares(c, off, n, hist, n << n, Y.S_LOSE, Y.S_LOSE_PAIRS, 2)
    for phase in range(2):
        base = off[Y.S_POSITION] + phase * n * 3
        for k in range(n):
            rounds = hist[ix(2 * (n << n) + phase * n + k)]
            for j in range(k + 1):  # with k + 1 in play, places 0..k played
                c[ix(base + j * 3)] += rounds
            hist[ix(2 * (n << n) + phase * n + k)] = 0


# ------------------------------------------------------------- steps 9-11: a game
@njit(**STEP)
def play_game(n, prm, rank, value, sp, lead, foll, aux, ws, wb, c, off, hist, record, full, st):
    """Rounds until the end (docs/engine.md steps 1-11), adding each round's counters (``full``:
    the per-round ones too).

    Returns ``(runaway, nout, rounds_c, rounds_d, gswing, r1_loser, hev, st)``: rounds in
    the charge and in the décharge, tokens moved, the round-1 loser, the event hash.
    """
    tok, out, place, tokc, taken = ws[W_TOK], ws[W_OUT], ws[W_PLACE], ws[W_TOKC], ws[W_TAKEN]
    keys, roll = ws[W_KEY], ws[W_ROLL]
    order, hands, throws, tied = wb[B_ORDER], wb[B_HAND], wb[B_THROWS], wb[B_TIED]
    for s in range(n):
        tok[s] = 0
        out[s] = 0
        place[s] = -1
        tokc[s] = 0
        taken[s] = 0
    pot = prm[R.P_TOKENS]
    leader = np.int64(0)
    nout = 0
    rounds_c = 0
    rounds_d = 0
    gswing = 0
    r1_loser = -1
    hev = _U(0)
    while rounds_c + rounds_d < prm[R.P_MAX_ROUNDS]:
        phase, m, count, jl, jw, swing, pot, rescue, st = play_round(
            n, prm, rank, value, sp, lead, foll, aux, pot, leader, tok, out, order, hands, throws, keys, tied, roll, st)
        loser = order[jl]
        winner = order[jw]
        gswing += swing
        if full:  # (a branch every round takes the same way: predicted, next to free)
            tally_round(c, off, hands, jw, jl, count, swing, rescue)
            tally_position(c, off, n, phase, m, jl, jw, hist)
        taken[loser] += swing
        if r1_loser < 0:
            r1_loser = loser
        if record:
            hev = mix64(hev ^ _U(loser + 8 * winner + 64 * leader + 512 * count + 4096 * swing))
        if phase == R.CHARGE:
            rounds_c += 1
            if pot == 0:
                for s in range(n):
                    tokc[s] = tok[s]
        else:
            rounds_d += 1
        nout = R.go_out(phase, pot, tok, out, place, nout, winner, n)
        if R.game_over(n, nout, prm):
            return False, nout, rounds_c, rounds_d, gswing, r1_loser, hev, st
        leader = R.next_leader(leader, loser, winner, out, n, prm)
    return True, nout, rounds_c, rounds_d, gswing, r1_loser, hev, st


@njit(**STEP)
def finish_game(c, off, n, prm, ws, hist, nout, rounds_c, rounds_d, gswing, r1_loser, full):
    """The results of a finished game (docs/engine.md "Results of a game") into the
    counters (``full``: its lengths, swings and tokens too); returns ``(win_mask, lose_mask)``."""
    tok, out, place, tokc, taken = ws[W_TOK], ws[W_OUT], ws[W_PLACE], ws[W_TOKC], ws[W_TAKEN]
    for s in range(n):
        if out[s] == 0:
            place[s] = nout  # those still in come after all who went out
    win_mask, lose_mask = R.result_masks(n, out, tok, place, prm)
    for s in range(n):
        c[ix(off[Y.S_PLACE] + s * n + place[s])] += 1
    if full:
        tally_game(c, off, n, prm[R.P_TOKENS], tokc, taken, rounds_c, rounds_d, gswing)
    tally_shares(hist, n, win_mask, lose_mask, r1_loser)
    return win_mask, lose_mask


@njit(inline="always", **JIT)
def record_game(rec, i, n, ws, finished, win_mask, lose_mask, rounds_c, rounds_d, gswing, draws, hev):
    """Row ``i`` of the per-game records (docs/engine.md "What a game records")."""
    if finished:
        rec[i, Y.R_WIN_MASK] = win_mask
        rec[i, Y.R_LOSE_MASK] = lose_mask
    rec[i, Y.R_ROUNDS_CHARGE] = rounds_c
    rec[i, Y.R_ROUNDS_DECHARGE] = rounds_d
    rec[i, Y.R_SWING] = gswing
    rec[i, Y.R_DRAWS] = draws
    rec[i, Y.R_EVENT_HASH] = np.int64(hev)
    for s in range(n):
        rec[i, Y.R_TOK + s] = ws[W_TOK, s]
        rec[i, Y.R_CHARGE_TOK + s] = ws[W_TOKC, s]


# _nrt=False: no reference counting in the game loop. The step functions are inlined
# into it, and each array handed to one would otherwise cost an atomic increment and
# decrement per call (measured: 40% of the engine's time). Nothing here allocates. Itself a
# step (inlined into each kernel's loop over blocks): the 2-player kernel's constant n
# reaches the game's loops through LLVM.
@njit(**STEP)
def play_games(seedmix, first_game, lo, hi, record, full, n, prm, rank, value, sp, lead, foll, aux, ws, wb, hist, c,
               off, rec):
    """Play games ``first_game + i`` for ``i`` in ``lo .. hi-1``, adding into the counter
    vector ``c`` (slots ``off``); with ``record``, game ``first_game + i`` also fills row
    ``i`` of ``rec``; with ``full`` false only the results are counted
    (:data:`four21sim.engine.layout.RESULT_COUNTERS`). ``sp[s * N_PK + K_*]``: seat s's policy.

    ``prm`` (the variant) and ``off`` (the counter offsets) are tuples: passed by value, the
    compiler can keep them in registers across stores into ``c`` (an array would have to
    be read again after every store, which it might alias).
    """
    for i in range(lo, hi):
        runaway, nout, rounds_c, rounds_d, gswing, r1_loser, hev, st = play_game(
            n, prm, rank, value, sp, lead, foll, aux, ws, wb, c, off, hist, record, full,
            stream_start(seedmix, first_game + i))
        c[ix(off[Y.S_GAMES])] += 1
        c[ix(off[Y.S_DRAWS])] += st[2]
        win_mask = lose_mask = 0
        if runaway:
            c[ix(off[Y.S_RUNAWAYS])] += 1
        else:
            win_mask, lose_mask = finish_game(c, off, n, prm, ws, hist, nout, rounds_c, rounds_d, gswing, r1_loser,
                                              full)
        if record:
            record_game(rec, i, n, ws, not runaway, win_mask, lose_mask, rounds_c, rounds_d, gswing, st[2], hev)
    flush_block(c, off, n, hist)


@njit(inline="always", **JIT)
def play_block(seedmix, first_game, block, games, b, n, prm, rank, value, sp, lead, foll, aux, cnt, off, rec, record,
               full):
    """Block b of :func:`run_blocks`: its scratch arrays, then its games."""
    ws = np.zeros((N_W, n), dtype=np.int64)
    wb = np.zeros((N_B, n), dtype=np.uint8)
    hist = np.zeros(hist_size(n), dtype=np.int64)
    lo = b * block
    hi = min(games, lo + block)
    play_games(seedmix, first_game, lo, hi, record, full, n, prm, rank, value, sp, lead, foll, aux, ws, wb, hist,
               cnt[b], off, rec)


@njit(**JIT)
def run_blocks(lo, hi, seedmix, first_game, block, games, n, prm, rank, value, sp, lead, foll, aux, cnt, off, rec,
               record, full):
    """Play blocks ``lo .. hi-1`` of ``games`` games from ``first_game`` in blocks of ``block``
    games, one block per row of ``cnt`` (a call per block: passing the arrays per game would
    cost more than the game).

    Block b (games ``first_game + b*block ...``) adds into ``cnt[b]``; the caller sums
    over blocks, so the totals do not depend on the number of threads (which share the
    blocks, ``_util.threads.split_over_threads``). With ``record`` true, row ``i`` of ``rec``
    receives game ``first_game + i``.
    """
    for b in range(lo, hi):
        play_block(seedmix, first_game, block, games, b, n, prm, rank, value, sp, lead, foll, aux, cnt, off, rec,
                   record, full)


@njit(**JIT)
def run_blocks_2p(lo, hi, seedmix, first_game, block, games, n, prm, rank, value, sp, lead, foll, aux, cnt, off, rec,
                  record, full):
    """:func:`run_blocks` for two players (``n`` must be 2): compiled with n a constant (10 to 19%
    faster), and only when a 2-player game is played. The constant is cast so that the steps
    keep the signatures :func:`run_blocks` compiled them with (see STEP); LLVM folds it."""
    for b in range(lo, hi):
        play_block(seedmix, first_game, block, games, b, np.int64(2), prm, rank, value, sp, lead, foll, aux, cnt, off,
                   rec, record, full)
