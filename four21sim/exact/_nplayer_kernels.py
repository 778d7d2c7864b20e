"""numba kernels of the exact n-player solver (see :mod:`four21sim.exact.nplayer`).

Three parts, each a set of named steps:

*Follower contexts* (``enumerate_level``, ``judge_last_level``, ``minimise_level``).
What a follower needs to know of the hands before it is a *summary* of them: the
count; in the round's order (``rules.kernel.order_key``) the worst key so far with the
roles holding it and the best key with the roles holding it; the cumulative sum
where the phase's payout is cumulative (capped: payouts are capped); whether the
nénette rescue can still apply and would apply now (``rules.kernel.is_rescue`` probed
with and without one more 221), and while it can, the same keys and sum in the
rescued order. Histories with equal summaries are merged, each keeping the first
history met as its *representative*. The round's outcome (loser, winner, payout)
is never computed from a summary: it is judged by the rules kernel
(``is_rescue``, ``order_key``, ``extreme_keys``, ``payout``) on the
representative's hands followed by the last follower's. The summary only has to
be *sufficient* (equal summaries, equal outcomes for every way the round can
end); tests check it against histories and a brute-force game tree. Contexts are
then *minimised* backwards (two contexts are one when every hand and throws lead
to the same next context, or outcome), which merges, for instance, contexts
that differ only in who holds the best hand where the winner changes nothing.

*A round* (``solve_round``): backward induction over the players in playing
order with vectors of utilities (one component per role of the profile, plus one
for a deviating or responding player), then, on request, the forward pass that
gives the round's outcome distribution under the decisions played. The certificate
(``certificate_round``) finds the profile's keeps and every role's best reply to them
in one such pass, with two components per role. Large batches of states go through
both side by side (``rounds_side_by_side``: one state per vector lane, every lane
meeting the same contexts), the same numbers bit for bit.

*The game* (``settle_states``): every outcome of every state settled by the rules
kernel.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._util.jit import JIT, njit
from ..rules import dice
from ..rules import kernel as R
from ._two_player_kernels import _P0
from .ties import KEEP_TIE, TIE_FIRST, TIE_LAST, TIE_NEXT_BEST, TIE_NEXT_WORST, TIE_ROLE  # noqa: F401

_NH = dice.N_HANDS


class Arrays(NamedTuple):
    """One set of contexts as the round kernels read it (``_nplayer_game.Contexts.arrays``): the entry
    kernels take it whole, so that nine arrays of a few types cannot be passed in another order.

    ``lvl_start[i]``: the first context of level i+1 (``lvl_start[m-1]`` = G, the outcomes after);
    ``ctx_c``, ``ctx_target``: each context's count and target (the worst hand so far, or -1);
    ``row_start``, ``trans``: each context's row of next contexts (or outcomes) by hand and throws;
    ``lead_next[f-1, h]``: the context after the leader stops on h after f throws; ``fin_start``,
    ``fin_cls``, ``fin_w``: each outcome's classes and their weights."""

    lvl_start: np.ndarray
    ctx_c: np.ndarray
    ctx_target: np.ndarray
    row_start: np.ndarray
    trans: np.ndarray
    lead_next: np.ndarray
    fin_start: np.ndarray
    fin_cls: np.ndarray
    fin_w: np.ndarray
_FULL = dice.FULL_KEEP
_N_PARTIAL = dice.FULL_KEEP  # keeps 0..27 throw at least one die
_H221 = dice.hand_index((2, 2, 1))
_HAND_KEEPS = np.ascontiguousarray(dice.HAND_KEEPS)
_N_HAND_KEEPS = np.ascontiguousarray(dice.N_HAND_KEEPS)


def _die_steps() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Keeps as one die added at a time: a keep of 2 dice plus die x is a hand, a keep of 1
    die plus x a keep of 2, the empty keep plus x a keep of 1 (x = 1..6, index x-1).

    Throwing the dice one at a time gives the same distribution as throwing them
    together, so the expected value of a keep is the mean over one more die of the
    expected values of the keeps one die larger: 168 sums per level instead of 308.
    """
    two = np.array([k for k in range(_N_PARTIAL) if dice.KEEP_SIZE[k] == 2])
    one = np.array([k for k in range(_N_PARTIAL) if dice.KEEP_SIZE[k] == 1])
    hand_of = np.array([[dice.hand_index(dice.KEEPS[k] + (x,)) for x in range(1, 7)] for k in two])
    keep2_of = np.array([[dice.keep_index(dice.KEEPS[k] + (x,)) for x in range(1, 7)] for k in one])
    keep1_of = np.array([dice.keep_index((x,)) for x in range(1, 7)])
    return (np.ascontiguousarray(np.column_stack([two, hand_of])),
            np.ascontiguousarray(np.column_stack([one, keep2_of])), np.ascontiguousarray(keep1_of))


_STEP2, _STEP1, _STEP0 = _die_steps()
# the keeps of each hand after stopping (which dice.HAND_KEEPS lists first), in its order
assert all(dice.HAND_KEEPS[h, 0] == _FULL + h for h in range(_NH))
_PK_START = np.concatenate([[0], np.cumsum(dice.N_HAND_KEEPS - 1)]).astype(np.int64)
_PK = np.concatenate([dice.HAND_KEEPS[h, 1:dice.N_HAND_KEEPS[h]] for h in range(_NH)]).astype(np.int64)
_EMPTY = dice.EMPTY_KEEP
_HANDS = np.arange(dice.N_HANDS, dtype=np.int64)
_SIXTH = 1.0 / 6.0


@njit(**JIT)
def _compiled_tables():
    return (_HAND_KEEPS.copy(), _N_HAND_KEEPS.copy(), np.array([_FULL]), np.array([_NH]), np.array([_H221]))


def compiled_tables() -> dict:
    """The tables as compiled into these kernels (see :func:`four21sim._stream.compiled_tables`)."""
    return dict(zip(('HAND_KEEPS', 'N_HAND_KEEPS', 'FULL_KEEP', 'N_HANDS', 'H221'),
                    _compiled_tables()))


# ====================================================================== summaries
# A summary is packed into two words: the order as it stands (w0) and, while the rescue
# can still apply, the rescued order (w1). Field widths: keys + 4 in 8 bits (keys run
# from -3 to 223), role sets in 8 bits (at most 8 players: rules.variants.MAX_PLAYERS),
# sums in 7 bits (capped at the tokens, which the solver keeps under 128: nplayer.MAX_TOKENS).
# Only equality of the words is read (contexts are numbered in order of first appearance),
# so the widths change no context's number.
KEY_OFF = 4
MAX_ROLES = 8
MAX_SUM = 127
# fields of a summary row: count, then per order (as it stands, rescued) worst key,
# its holders, best key, its holders, cumulative sum; then the two rescue probes
F_C, F_N, F_R, F_CAN, F_NOW = 0, 1, 6, 11, 12
N_F = 13


@njit(inline="always", **JIT)
def _pack_order(row, at):
    return (np.uint64(row[at] + KEY_OFF) | (np.uint64(row[at + 1]) << np.uint64(8))
            | (np.uint64(row[at + 2] + KEY_OFF) << np.uint64(16)) | (np.uint64(row[at + 3]) << np.uint64(24))
            | (np.uint64(row[at + 4]) << np.uint64(32)))


@njit(inline="always", **JIT)
def pack(row):
    """The two words of a summary row."""
    w0 = (_pack_order(row, F_N) | (np.uint64(row[F_C]) << np.uint64(39)) | (np.uint64(row[F_CAN]) << np.uint64(41))
          | (np.uint64(row[F_NOW]) << np.uint64(42)))
    w1 = _pack_order(row, F_R) if row[F_CAN] == 1 else np.uint64(0)
    return w0, w1


@njit(inline="always", **JIT)
def _add_to_order(row, at, key, worth, role, cum_on, cap):
    """Add the hand of ``role`` (its key and worth in this order) to the order's fields."""
    bit = 1 << role
    if role == 0 or key > row[at]:
        row[at] = key
        row[at + 1] = bit
    elif key == row[at]:
        row[at + 1] |= bit
    if role == 0 or key < row[at + 2]:
        row[at + 2] = key
        row[at + 3] = bit
    elif key == row[at + 2]:
        row[at + 3] |= bit
    # the payout adds every other hand worth at least COMBINATION_WORTH: what the hands so
    # far can still add is their sum, capped where the payout is (and stays) capped
    if cum_on and worth >= R.COMBINATION_WORTH:
        row[at + 4] = min(row[at + 4] + worth, cap)


@njit(**JIT)
def extend_summary(row, hands, throws, i, cum_on, cap, rank, value, prm):
    """The summary ``row`` (of ``hands[:i]``) extended in place by ``hands[i]`` after ``throws[i]`` throws.

    ``hands`` has room for one more hand: the rescue probes ask ``rules.kernel.is_rescue``
    whether a 221 would be rescued after these hands (the rescue can still apply) and
    whether the rescue applies to these hands as they are.
    """
    h, f = hands[i], throws[i]
    _add_to_order(row, F_N, R.order_key(h, f, False, rank, prm), R.worth(h, False, value), i, cum_on, cap)
    saved = hands[i + 1]
    hands[i + 1] = _H221
    can = R.is_rescue(hands, i + 2, prm)
    hands[i + 1] = saved
    row[F_NOW] = 1 if R.is_rescue(hands, i + 1, prm) else 0
    if can:
        _add_to_order(row, F_R, R.order_key(h, f, True, rank, prm), R.worth(h, True, value), i, cum_on, cap)
        row[F_CAN] = 1
    else:
        row[F_CAN] = 0
        for a in range(F_R, F_R + 5):
            row[a] = 0


# ====================================================================== a hash table
@njit(inline="always", **JIT)
def _mix(a, b):
    z = a * np.uint64(0x9E3779B97F4A7C15) + b
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(**JIT)
def _table_new(cap):
    """An empty open-addressing table of an interner: ``(hash keys, numbers)``, -1 where empty."""
    size = 1
    while size < 2 * cap:
        size *= 2
    return np.zeros(size, np.uint64), np.full(size, -1, np.int64)


# A table of numbered pairs of words (a summary row's two words, ``pack``) is one array of
# rows (a, b, number + 1; 0: empty): a probe reads one cache line where three arrays cost three,
# and at 7 and 8 players the table is hundreds of megabytes, read at random (-20% of a level).
@njit(**JIT)
def _pairs_new(cap):
    size = 1
    while size < 2 * cap:
        size *= 2
    return np.zeros((size, 3), np.uint64)


@njit(inline="always", **JIT)
def _pair_slot(tab, a, b):
    """Slot of the pair (a, b): where it is, or the empty slot where it goes."""
    mask = np.uint64(tab.shape[0] - 1)
    s = _mix(a, b) & mask
    while tab[s, 2] != 0 and not (tab[s, 0] == a and tab[s, 1] == b):
        s = (s + np.uint64(1)) & mask
    return s


@njit(inline="always", **JIT)
def _pair_number(tab, s):
    """The number of the pair in slot s (-1: empty)."""
    return np.int64(tab[s, 2]) - 1


@njit(inline="always", **JIT)
def _pair_put(tab, s, a, b, number):
    tab[s, 0], tab[s, 1], tab[s, 2] = a, b, np.uint64(number + 1)


@njit(**JIT)
def _pairs_grow(tab):
    new = np.zeros((2 * tab.shape[0], 3), np.uint64)
    for s in range(tab.shape[0]):
        if tab[s, 2] != 0:
            _pair_put(new, _pair_slot(new, tab[s, 0], tab[s, 1]), tab[s, 0], tab[s, 1], _pair_number(tab, s))
    return new


@njit(**JIT)
def _grow_rows(a, n):
    out = np.empty((max(2 * a.shape[0], n), a.shape[1]), a.dtype)
    out[:a.shape[0]] = a
    return out


# ====================================================================== contexts, forward
@njit(**JIT)
def first_level(L, cum_on, cap, rank, value, prm):
    """The contexts a first follower meets: the leader's hand after c throws, c = 1..L.

    Returns ``(rows, rep_h, rep_f, nxt)``: summaries, representatives, and
    ``nxt[c-1, h]``, the context of a leader stopping on h after c throws.
    """
    tab = _pairs_new(3 * _NH)
    rows = np.zeros((L * _NH, N_F), np.int64)
    rep_h = np.zeros((L * _NH, 1), np.int64)
    rep_f = np.zeros((L * _NH, 1), np.int64)
    nxt = np.zeros((L, _NH), np.int64)
    hands = np.zeros(2, np.int64)
    throws = np.zeros(2, np.int64)
    row = np.zeros(N_F, np.int64)
    n = 0
    for c in range(1, L + 1):
        for h in range(_NH):
            row[:] = 0
            row[F_C] = c
            hands[0], throws[0] = h, c
            extend_summary(row, hands, throws, 0, cum_on, cap, rank, value, prm)
            a, b = pack(row)
            s = _pair_slot(tab, a, b)
            if _pair_number(tab, s) < 0:
                _pair_put(tab, s, a, b, n)
                rows[n], rep_h[n, 0], rep_f[n, 0] = row, h, c
                n += 1
            nxt[c - 1, h] = _pair_number(tab, s)
    return rows[:n].copy(), rep_h[:n].copy(), rep_f[:n].copy(), nxt


@njit(inline="always", **JIT)
def throws_of(slot, c, exact):
    """The throws made by a follower ending in ``slot`` of a count-c context's row."""
    return c if exact else slot + 1


@njit(**JIT)
def enumerate_level(rows, rep_h, rep_f, i, exact, cum_on, cap, rank, value, prm):
    """The contexts after one more hand: every context of level i (i hands on the table)
    followed by every hand and throws of the next player.

    Returns ``(rows, rep_h, rep_f, trans)`` of level i+1, with ``trans[x, slot, h]``
    the context after context x when the follower ends on h in row slot ``slot``
    (``throws_of``; -1 where the slot is not used).
    """
    nx = rows.shape[0]
    tab = _pairs_new(4 * nx)
    cap_rows = 4 * nx
    out = np.zeros((cap_rows, N_F), np.int64)
    oh = np.zeros((cap_rows, i + 1), np.int64)
    of = np.zeros((cap_rows, i + 1), np.int64)
    trans = np.full((nx, 1 if exact else 3, _NH), -1, np.int32)  # exact followers use one slot
    hands = np.zeros(i + 2, np.int64)
    throws = np.zeros(i + 2, np.int64)
    row = np.zeros(N_F, np.int64)
    n = 0
    for x in range(nx):
        c = rows[x, F_C]
        hands[:i], throws[:i] = rep_h[x], rep_f[x]
        for slot in range(1 if exact else c):
            throws[i] = throws_of(slot, c, exact)
            for h in range(_NH):
                row[:] = rows[x]
                hands[i] = h
                extend_summary(row, hands, throws, i, cum_on, cap, rank, value, prm)
                a, b = pack(row)
                s = _pair_slot(tab, a, b)
                if _pair_number(tab, s) < 0:
                    if n == out.shape[0]:
                        out, oh, of = _grow_rows(out, n + 1), _grow_rows(oh, n + 1), _grow_rows(of, n + 1)
                    _pair_put(tab, s, a, b, n)
                    out[n], oh[n, :i + 1], of[n, :i + 1] = row, hands[:i + 1], throws[:i + 1]
                    n += 1
                    if 2 * n > tab.shape[0]:
                        tab = _pairs_grow(tab)
                        s = _pair_slot(tab, a, b)
                trans[x, slot, h] = _pair_number(tab, s)
    return out[:n].copy(), oh[:n].copy(), of[:n].copy(), trans


# ====================================================================== rows interned
@njit(inline="always", **JIT)
def _row_hash(buf, n):
    z = np.uint64(n)
    for a in range(n):
        z = _mix(z, np.uint64(buf[a]))
    return z


@njit(**JIT)
def interner(cap, width):
    """An empty set of numbered rows: ``(hash keys, numbers, row starts, row data, counts)``, room for
    ``cap`` rows of ``width`` entries before anything grows (a growth copies what is stored). The
    data are left uninitialised: only what :func:`intern` writes is read."""
    hk, hid = _table_new(cap)
    starts = np.zeros(cap + 1, np.int64)
    return hk, hid, starts, np.empty(width * cap, np.int64), np.zeros(2, np.int64)


@njit(**JIT)
def _rehash(hk, hid, starts, data):
    nk, nid = _table_new(hid.shape[0])
    mask = np.uint64(nid.shape[0] - 1)
    for s in range(hid.shape[0]):
        if hid[s] >= 0:
            t = hk[s] & mask
            while nid[t] >= 0:
                t = (t + np.uint64(1)) & mask
            nk[t], nid[t] = hk[s], hid[s]
    return nk, nid


@njit(inline="always", **JIT)
def _same_row(data, at, buf, n):
    # a loop, not np.array_equal of two slices: that allocates a temporary array on every call
    for a in range(n):
        if data[at + a] != buf[a]:
            return False
    return True


@njit(inline="always", **JIT)
def _find(z, buf, n, hk, hid, starts, data):
    """``(number, slot)``: the number of row ``buf[:n]`` of hash z (-1 if absent) and its slot in the table."""
    mask = np.uint64(hid.shape[0] - 1)
    s = z & mask
    while hid[s] >= 0:
        q = hid[s]
        if hk[s] == z and starts[q + 1] - starts[q] == n and _same_row(data, starts[q], buf, n):
            return q, s
        s = (s + np.uint64(1)) & mask
    return -1, s


@njit(inline="always", **JIT)
def known(buf, n, hk, hid, starts, data):
    """The number of row ``buf[:n]``, or -1: :func:`intern`'s look-up alone, which returns no
    array (a call returning the tables costs more than the look-up; most rows are known)."""
    return _find(_row_hash(buf, n), buf, n, hk, hid, starts, data)[0]


@njit(**JIT)
def intern(buf, n, hk, hid, starts, data, cnt):
    """The number of row ``buf[:n]``, adding it if new (numbers in order of first appearance).

    Returns ``(number, hk, hid, starts, data)``: the arrays grow when full.
    """
    z = _row_hash(buf, n)
    q, s = _find(z, buf, n, hk, hid, starts, data)
    if q >= 0:
        return q, hk, hid, starts, data
    q = cnt[0]
    if q + 2 > starts.shape[0]:
        grown = np.zeros(2 * starts.shape[0], np.int64)
        grown[:q + 1] = starts[:q + 1]
        starts = grown
    if cnt[1] + n > data.shape[0]:
        grown = np.zeros(max(2 * data.shape[0], cnt[1] + n), np.int64)
        grown[:cnt[1]] = data[:cnt[1]]
        data = grown
    data[cnt[1]:cnt[1] + n] = buf[:n]
    cnt[1] += n
    starts[q + 1] = cnt[1]
    hk[s], hid[s] = z, q
    cnt[0] = q + 1
    if 2 * cnt[0] > hid.shape[0]:
        hk, hid = _rehash(hk, hid, starts, data)
    return q, hk, hid, starts, data


# ====================================================================== the last follower
# An outcome of a round is a list of (loser role, winner role, payout, share) entries,
# shares in units of 1/SHARE_UNIT. Every 1/(losers tied * winners tied) must be a whole
# number of units: with m players a losers and b winners tied, a + b <= m, or a = m and
# b = m - 1 when every hand ties; up to 8 players the products are 1 to 8, 9, 10, 12, 15,
# 16, 42 and 56, whose least common multiple is 5040 (3600 served up to 6, not 7).
# Shares become s / SHARE_UNIT, the correctly rounded 1/k whatever the unit.
SHARE_UNIT = 5040
MAX_ENTRIES = MAX_ROLES * (MAX_ROLES - 1)


@njit(inline="always", **JIT)
def _sort_small(a, n):
    # insertion sort: n is at most MAX_ENTRIES (and mostly 1); sorting a slice in place costs more
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


@njit(**JIT)
def judge_round(hands, throws, m, phase, cap, rank, value, prm, keys, tl, tw, out):
    """The outcome of a round by the rules kernel: ``out[:n]`` packed entries
    ``loser | winner << 3 | payout << 6 | share << 20``, sorted; returns n.

    Roll-offs are fair: each player tied for the loss loses with the same
    probability, then each tied for the win among the others wins with the same.
    Payouts are capped at ``cap`` (no more tokens can move).
    """
    rescue = R.is_rescue(hands, m, prm)
    for j in range(m):
        keys[j] = R.order_key(hands[j], throws[j], rescue, rank, prm)
    nl = R.extreme_keys(keys, m, True, -1, tl)
    n = 0
    for a in range(nl):
        jl = tl[a]
        nw = R.extreme_keys(keys, m, False, jl, tw)
        for b in range(nw):
            jw = tw[b]
            pay = min(R.payout(hands, m, jw, jl, rescue, phase, value, prm), cap)
            out[n] = jl | (jw << 3) | (pay << 6) | ((SHARE_UNIT // (nl * nw)) << 20)
            n += 1
    _sort_small(out, n)
    return n


@njit(**JIT)
def judge_last_level(rep_h, rep_f, m, exact, phase, cap, rank, value, prm, every_hand):
    """Every outcome of the round after each last-follower context, hand and throws.

    Returns ``(outcome, starts, data)``: ``outcome[x, slot, h]`` numbers the distinct
    outcomes (-1 for unused slots), whose packed entries are ``data[starts[e]:starts[e+1]]``.

    Each context's 56 hands are judged by :func:`judge_round`, once per group of hands that
    the judgement cannot tell apart: without the nénette rescue, :func:`judge_round` reads the
    last hand only through its key (``order_key``), compared with the other keys and never
    otherwise used, its worth (``worth``: the winner's payout, a cumulative sum) and whether it
    is a 221 (the nénette's minimum). Hands whose keys stand at the same place among the table's
    (as many keys below, as many equal), of the same worth, both 221 or neither, have the same
    outcome; a context has some 10 to 20 such groups. With the rescue (whether it applies depends
    on the last hand too) every hand is judged, and so with ``every_hand``: the plain way, against
    which tests/test_nplayer_kernels.py checks the groups for every preset.
    """
    nx = rep_h.shape[0]
    hands = np.zeros(m, np.int64)
    throws = np.zeros(m, np.int64)
    keys = np.zeros(m, np.int64)
    tl = np.zeros(m, np.int64)
    tw = np.zeros(m, np.int64)
    table_keys = np.zeros(m, np.int64)
    buf = np.zeros(MAX_ENTRIES, np.int64)
    hk, hid, starts, data, cnt = interner(1024, 16)
    outcome = np.full((nx, 1 if exact else 3, _NH), -1, np.int32)  # exact followers use one slot
    grouped = not every_hand and prm[R.P_RESCUE] == 0
    top = 0
    for h in range(_NH):
        top = max(top, R.worth(h, False, value))
    # a group's number in this (context, slot), valid where its stamp is the current one
    n_groups = m * m * (top + 1) * 2
    stamp = np.full(n_groups, -1, np.int64)
    group_e = np.zeros(n_groups, np.int64)
    visit = 0
    for x in range(nx):
        c = rep_f[x, 0]
        hands[:m - 1], throws[:m - 1] = rep_h[x], rep_f[x]
        for slot in range(1 if exact else c):
            throws[m - 1] = throws_of(slot, c, exact)
            if grouped:
                for j in range(m - 1):
                    table_keys[j] = R.order_key(hands[j], throws[j], False, rank, prm)
            visit += 1
            for h in range(_NH):
                g = -1
                if grouped:
                    key = R.order_key(h, throws[m - 1], False, rank, prm)
                    below = 0
                    same = 0
                    for j in range(m - 1):
                        below += table_keys[j] < key
                        same += table_keys[j] == key
                    g = ((below * m + same) * (top + 1) + R.worth(h, False, value)) * 2 + (1 if h == _H221 else 0)
                    if stamp[g] == visit:
                        outcome[x, slot, h] = group_e[g]
                        continue
                hands[m - 1] = h
                n = judge_round(hands, throws, m, phase, cap, rank, value, prm, keys, tl, tw, buf)
                e = known(buf, n, hk, hid, starts, data)
                if e < 0:
                    e, hk, hid, starts, data = intern(buf, n, hk, hid, starts, data, cnt)
                outcome[x, slot, h] = e
                if g >= 0:
                    stamp[g], group_e[g] = visit, e
    return outcome, starts[:cnt[0] + 1].copy(), data[:cnt[1]].copy()


# ====================================================================== minimisation
@njit(**JIT)
def minimise_level(trans, count, label, nxt, exact):
    """Contexts of one level that lead to the same next contexts are one.

    Context x's row is its count, its label (what a table policy deciding there
    reads, -1 for none) and ``nxt[trans[x, slot, h]]`` for every slot and hand:
    the numbers of the next level's merged contexts (or merged outcomes). Returns
    ``(ids, starts, data)``: each context's merged number and the merged rows.
    """
    nx = trans.shape[0]
    width = 2 + (1 if exact else 3) * _NH
    buf = np.zeros(width, np.int64)
    hk, hid, starts, data, cnt = interner(max(16, nx), width)  # room for every row distinct
    ids = np.empty(nx, np.int64)
    for x in range(nx):
        c = count[x]
        buf[0], buf[1] = c, label[x]
        n = 2
        for slot in range(1 if exact else c):
            for h in range(_NH):
                buf[n] = nxt[trans[x, slot, h]]
                n += 1
        ids[x], hk, hid, starts, data = intern(buf, n, hk, hid, starts, data, cnt)
    # where few rows merged (the décharge's last level: none), the rows fill most of the room
    # made for them: a copy would hold them twice (1.25 GB at 7 players)
    rows = data[:cnt[1]] if 2 * cnt[1] >= data.shape[0] else data[:cnt[1]].copy()
    return ids, starts[:cnt[0] + 1].copy(), rows


@njit(**JIT)
def targets(rep_h, rank):
    """The hand a table policy sees as its target: the worst so far by the ranking alone."""
    out = np.empty(rep_h.shape[0], np.int64)
    for x in range(rep_h.shape[0]):
        w = rep_h[x, 0]
        for j in range(1, rep_h.shape[1]):
            if rank[rep_h[x, j]] > rank[w]:
                w = rep_h[x, j]
        out[x] = w
    return out


# ====================================================================== the game
@njit(**JIT)
def _settle_one(pot, tok, out, place, nout0, lo, w, p, n, prm, order, m, shares):
    """Settle one outcome (loser seat ``lo``, winner seat ``w``, payout p): tokens, going out,
    the end. ``tok``/``out``/``place`` are updated; returns ``(ended, pot, newly out)``.

    ``shares[0, j]``/``shares[1, j]``: how many share the loss / the win that role j
    (``order[j]``) holds a part of, 0 if none, for the roles whose game is over.
    """
    phase = R.phase_of(pot)
    swing, pot2 = R.settle(phase, pot, tok, w, lo, p)
    nout = R.go_out(phase, pot2, tok, out, place, nout0, w, n)
    shares[:, :] = 0
    if R.game_over(n, nout, prm):
        win_mask, lose_mask = R.result_masks(n, out, tok, place, prm)
        nw, nl = R.sharers(n, win_mask), R.sharers(n, lose_mask)
        for j in range(m):
            s = order[j]
            shares[0, j] = nl if (lose_mask >> s) & 1 else 0
            shares[1, j] = nw if (win_mask >> s) & 1 and nout0 == 0 else 0
        return True, pot2, nout - nout0
    for j in range(m):  # those going out now never pay; the first to go out share the win
        if out[order[j]] == 1 and nout0 == 0:
            shares[1, j] = nout - nout0
    return False, pot2, nout - nout0


@njit(**JIT)
def settle_states(pots, toks, outs, leaders, P, prm, ended, nxt_pot, nxt_lead, nxt_mask, nxt_tok, perm, shares):
    """Every outcome (loser role l, winner role w, payout p < P) of every state, by the rules kernel.

    A state is the pot, the tokens and out flags by seat and the leading seat.
    Fills, at ``[s, l, w, p]``: ``ended`` (-1 for l == w or a role not in play, 1 when
    the game ends, else 0), the next state (``nxt_pot``, ``nxt_lead``, the out mask
    ``nxt_mask``, ``nxt_tok[..., seat]``), ``perm[..., j]`` the next round's role of
    role j's player (-1 out) and ``shares[..., 0 or 1, j]`` as :func:`_settle_one`.
    Players out before the state hold place 0: they are out of every round after.
    """
    n = toks.shape[1]
    tok = np.zeros(n, np.int64)
    out = np.zeros(n, np.int64)
    place = np.zeros(n, np.int64)
    order = np.zeros(n, np.int64)
    order2 = np.zeros(n, np.int64)
    sh = np.zeros((2, n), np.int64)
    for s in range(pots.shape[0]):
        m = R.playing_order(leaders[s], outs[s], n, order)
        nout0 = 0
        for q in range(n):
            nout0 += outs[s, q]
        for lo in range(m):
            for w in range(m):
                if lo == w:
                    continue
                for p in range(1, P):
                    tok[:], out[:], place[:] = toks[s], outs[s], 0
                    fin, pot2, newly = _settle_one(pots[s], tok, out, place, nout0, order[lo], order[w], p, n,
                                                   prm, order, m, sh)
                    ended[s, lo, w, p] = 1 if fin else 0
                    shares[s, lo, w, p] = sh
                    nxt_pot[s, lo, w, p] = pot2
                    nxt_tok[s, lo, w, p] = tok
                    mask = 0
                    for q in range(n):
                        mask |= out[q] << q
                    nxt_mask[s, lo, w, p] = mask
                    perm[s, lo, w, p] = -1
                    if fin:
                        continue
                    nl = R.next_leader(leaders[s], order[lo], order[w], out, n, prm)
                    nxt_lead[s, lo, w, p] = nl
                    m2 = R.playing_order(nl, out, n, order2)
                    for j in range(m):
                        for r in range(m2):
                            if order2[r] == order[j]:
                                perm[s, lo, w, p, j] = r



# ====================================================================== a round
# What each player plays in the *actual*
# world (component K-1 when it differs from the profile's): the profile's keep, its own best
# keep for component K-1, a table's keep, or the keep of a profile solved just before
ACT_PROFILE, ACT_BEST, ACT_TABLE, ACT_FIXED = 0, 1, 2, 3
RANDOM_KEEP = -1  # a table entry meaning "uniform over the legal keeps" (the random policy)


@njit(inline="always", **JIT)
def _keep_values(level, kv, K):
    """``kv[k, j]``: expected ``level[hand, j]`` after keeping k (a partial keep) and throwing the rest,
    one die at a time (``_die_steps``); ``K`` components."""
    for r in range(_STEP2.shape[0]):
        k = _STEP2[r, 0]
        for j in range(K):
            kv[k, j] = (level[_STEP2[r, 1], j] + level[_STEP2[r, 2], j] + level[_STEP2[r, 3], j]
                        + level[_STEP2[r, 4], j] + level[_STEP2[r, 5], j] + level[_STEP2[r, 6], j]) * _SIXTH
    for r in range(_STEP1.shape[0]):
        k = _STEP1[r, 0]
        for j in range(K):
            kv[k, j] = (kv[_STEP1[r, 1], j] + kv[_STEP1[r, 2], j] + kv[_STEP1[r, 3], j] + kv[_STEP1[r, 4], j]
                        + kv[_STEP1[r, 5], j] + kv[_STEP1[r, 6], j]) * _SIXTH
    for j in range(K):
        kv[_EMPTY, j] = (kv[_STEP0[0], j] + kv[_STEP0[1], j] + kv[_STEP0[2], j] + kv[_STEP0[3], j]
                         + kv[_STEP0[4], j] + kv[_STEP0[5], j]) * _SIXTH


# Tie orders (ties.py states them): TIE_FIRST is the sequential scan in HAND_KEEPS order that the
# 2-player solver uses; the others take the largest value first, then among the keeps within
# KEEP_TIE of it the last in HAND_KEEPS order, or the one best (worst) for the next player in
# playing order or for a fixed role (component ``sec``: _tie_sec, sign: _tie_sign).


@njit(inline="always", **JIT)
def _tie_sec(tie, role, m):
    """The component a tie order reads among the chooser's ties (role ``role`` of ``m``): the next
    role's for TIE_NEXT_BEST and TIE_NEXT_WORST, role r's (modulo m) for favour-r and disfavour-r."""
    if tie >= TIE_ROLE:
        return ((tie - TIE_ROLE) // 2) % m
    return (role + 1) % m


@njit(inline="always", **JIT)
def _tie_sign(tie):
    """+1 where a tie order takes the keep best for its component, -1 the worst."""
    if tie == TIE_NEXT_WORST or (tie >= TIE_ROLE and (tie - TIE_ROLE) % 2 == 1):
        return -1.0
    return 1.0


@njit(inline="always", **JIT)
def _best_by(h, comp, first, stop_row, kv, vals, tie, sec):
    """The keep of ``HAND_KEEPS[h, first:]`` whose component ``comp`` is best, ties within KEEP_TIE
    broken by the tie order ``tie`` (TIE_FIRST: the earlier keep, as the 2-player solver's
    ``_best_keep``; else :func:`_best_tied`, reading component ``sec``). Stopping, the first keep
    of every hand, is worth ``vals[stop_row]``."""
    t0 = _PK_START[h]
    if first == 0:
        bk = _FULL + h
        best = vals[stop_row, comp]
    else:
        bk = _PK[t0]
        best = kv[bk, comp]
        t0 += 1
    if tie != TIE_FIRST:
        return _best_tied(h, comp, first, stop_row, kv, vals, tie, sec, bk, best, t0)
    for t in range(t0, _PK_START[h + 1]):
        k = _PK[t]
        v = kv[k, comp]
        if v > best + KEEP_TIE:
            best = v
            bk = k
    return bk


@njit(inline="always", **JIT)
def _best_tied(h, comp, first, stop_row, kv, vals, tie, sec, k0, v0, t0):
    """:func:`_best_by` under a tie order other than TIE_FIRST: the largest value of component
    ``comp`` over the keep ``k0`` (worth ``v0``) and ``_PK[t0:]``, then among the keeps within
    KEEP_TIE of it the last (TIE_LAST), or the best by ``sign * component sec`` (sign -1 for
    TIE_NEXT_WORST), ties in that within KEEP_TIE going to the earlier keep. The same comparisons
    in the same order as :func:`_choose_on_lanes`."""
    t1 = _PK_START[h + 1]
    top = v0
    for t in range(t0, t1):
        v = kv[_PK[t], comp]
        top = v if v > top else top
    floor = top - KEEP_TIE
    sign = _tie_sign(tie)
    bk = k0
    s0 = vals[stop_row, sec] if first == 0 else kv[k0, sec]
    score = sign * s0 if v0 >= floor else -np.inf
    for t in range(t0, t1):
        k = _PK[t]
        if kv[k, comp] >= floor:
            if tie == TIE_LAST:
                bk = k
            else:
                s = sign * kv[k, sec]
                if s > score + KEEP_TIE:
                    score = s
                    bk = k
    return bk


@njit(inline="always", **JIT)
def _random_value(h, j, first, stop_row, kv, vals):
    """Component j of the uniform choice among the legal keeps of hand h (the random policy)."""
    acc = 0.0
    for t in range(first, _N_HAND_KEEPS[h]):
        kk = _HAND_KEEPS[h, t]
        acc += vals[stop_row, j] if kk == _FULL + h else kv[kk, j]
    return acc / (_N_HAND_KEEPS[h] - first)


@njit(inline="always", **JIT)
def _keep_row(k, h, j, stop_row, kv, vals):
    return vals[stop_row, j] if k == _FULL + h else kv[k, j]


@njit(**JIT)
def _tie_spread(h, bk, role, first, Kp, stop_row, kv, vals, spread):
    """``spread[0]``: the largest difference, in another role's component, between the keep taken
    and any keep the chooser is indifferent to (within KEEP_TIE): what the tie order decides."""
    best = _keep_row(bk, h, role, stop_row, kv, vals)
    for t in range(first, _N_HAND_KEEPS[h]):
        k = _HAND_KEEPS[h, t]
        if k == bk or abs(_keep_row(k, h, role, stop_row, kv, vals) - best) > KEEP_TIE:
            continue
        for j in range(Kp):
            if j != role:
                spread[0] = max(spread[0], abs(_keep_row(k, h, j, stop_row, kv, vals)
                                                - _keep_row(bk, h, j, stop_row, kv, vals)))


@njit(inline="always", **JIT)
def _decide_all(made, tix, first, role, Kp, K, act, table, kv, vals, new, dec, spread, tie):
    """Every hand's decision after ``made`` throws; ``new[h, j]`` its values.

    Components ``0..Kp-1`` follow the profile's keep (ties broken by the tie order ``tie``, the
    next player being role ``role + 1`` modulo ``Kp``), the last (when there are more than
    ``Kp``) the keep played as ``act`` says (a best reply's ties to the earlier keep: only its
    own value, the same within KEEP_TIE, depends on them). With a ``spread`` array of one
    entry, the tie order's weight is measured (:func:`_tie_spread`).
    """
    sec = _tie_sec(tie, role, Kp) if Kp > 0 else 0
    for h in range(_NH):
        stop_row = tix[made - 1, h]
        bk = _best_by(h, role, first, stop_row, kv, vals, tie, sec) if Kp > 0 else -1
        if spread.shape[0] > 0 and Kp > 0:
            _tie_spread(h, bk, role, first, Kp, stop_row, kv, vals, spread)
        if act == ACT_PROFILE:
            ka = bk
        elif act == ACT_BEST:
            ka = _best_by(h, K - 1, first, stop_row, kv, vals, TIE_FIRST, 0)
        else:  # ACT_TABLE, ACT_FIXED
            ka = table[made - 1, h]
        src = bk if Kp > 0 else ka
        if src == _FULL + h:
            for j in range(K):
                new[h, j] = vals[stop_row, j]
        elif src >= 0:
            for j in range(K):
                new[h, j] = kv[src, j]
        else:
            for j in range(K):
                new[h, j] = _random_value(h, j, first, stop_row, kv, vals)
        if K > Kp and ka != src:
            if ka == _FULL + h:
                new[h, K - 1] = vals[stop_row, K - 1]
            elif ka >= 0:
                new[h, K - 1] = kv[ka, K - 1]
            else:
                new[h, K - 1] = _random_value(h, K - 1, first, stop_row, kv, vals)
        dec[made - 1, h] = ka


@njit(**JIT)
def player_turn(vals, tix, c, first, role, Kp, K, act, table, level, new, kv, dec, out, spread, tie):
    """One player's turn of up to c throws, by backward induction.

    ``vals[tix[f-1, h]]``: the utilities when the turn ends on h after f throws.
    ``first`` is 1 where stopping before the count is not allowed (an exact follower).
    The profile's keep maximises component ``role`` (when there is a profile,
    ``Kp > 0``: components ``0..Kp-1``); in the actual world (the last component,
    when there are more than ``Kp``) the player plays as ``act`` says. ``dec[made-1, h]``
    receives the keep played; ``out`` the utilities before the first throw. ``tie``: the tie
    order of the profile's keeps (``TIE_FIRST``...).
    """
    for h in range(_NH):
        for j in range(K):
            level[h, j] = vals[tix[c - 1, h], j]
    for made in range(c - 1, 0, -1):
        _keep_values(level, kv, K)
        _decide_all(made, tix, first, role, Kp, K, act, table, kv, vals, new, dec, spread, tie)
        for h in range(_NH):
            for j in range(K):
                level[h, j] = new[h, j]
    for j in range(K):
        acc = 0.0
        for h in range(_NH):
            acc += _P0[h] * level[h, j]
        out[j] = acc


@njit(inline="always", **JIT)
def _follower_tix(g, c, exact, row_start, trans, tix):
    """``tix[f-1, h]``: where context g's follower ends after f throws on h."""
    base = row_start[g]
    for f in range(1, c + 1):
        if exact and f < c:
            continue
        slot = 0 if exact else f - 1
        for h in range(_NH):
            tix[f - 1, h] = trans[base + slot * _NH + h]


@njit(**JIT)
def _final_values(S, fin_start, fin_cls, fin_w, G, K, vals):
    """``vals[G + e]``: the utilities after outcome e, from the utilities ``S`` of each outcome class."""
    for e in range(fin_start.shape[0] - 1):
        for j in range(K):
            acc = 0.0
            for t in range(fin_start[e], fin_start[e + 1]):
                acc += fin_w[t] * S[fin_cls[t], j]
            vals[G + e, j] = acc


# Contexts of one level and one count solved side by side, one per lane: the same keeps, the
# same sums in the same order, on W values at once (the innermost axis of the work arrays), so
# that the compiler can use vector instructions; each lane's numbers are those of
# player_turn, bit for bit (tests compare the two).
_W = 32


@njit(inline="always", **JIT)
def _lane_keep(kk, h):
    """The keep of hand h that lane index ``kk`` into ``kv`` stands for: a partial keep, or stopping
    (``kk = _N_PARTIAL = _FULL``: keep ``_FULL + h``), without a branch."""
    return kk + h * max(kk - (_N_PARTIAL - 1), 0)


@njit(inline="always", **JIT)
def _keep_values_lanes(level, rows, kv, K):
    """:func:`_keep_values` on lanes: ``kv[k, j, w]`` from ``level[rows[h], j, w]`` (as many lanes as
    ``kv`` has; ``rows``: ``_HANDS``, or where each hand's values are in a larger array)."""
    n = K * kv.shape[2]
    lv = level.reshape((level.shape[0], n))
    kf = kv.reshape((kv.shape[0], n))
    for r in range(_STEP2.shape[0]):
        k = _STEP2[r, 0]
        a1, a2, a3 = rows[_STEP2[r, 1]], rows[_STEP2[r, 2]], rows[_STEP2[r, 3]]
        a4, a5, a6 = rows[_STEP2[r, 4]], rows[_STEP2[r, 5]], rows[_STEP2[r, 6]]
        for x in range(n):
            kf[k, x] = (lv[a1, x] + lv[a2, x] + lv[a3, x] + lv[a4, x] + lv[a5, x] + lv[a6, x]) * _SIXTH
    for r in range(_STEP1.shape[0]):
        k = _STEP1[r, 0]
        a1, a2, a3, a4, a5, a6 = _STEP1[r, 1], _STEP1[r, 2], _STEP1[r, 3], _STEP1[r, 4], _STEP1[r, 5], _STEP1[r, 6]
        for x in range(n):
            kf[k, x] = (kf[a1, x] + kf[a2, x] + kf[a3, x] + kf[a4, x] + kf[a5, x] + kf[a6, x]) * _SIXTH
    a1, a2, a3, a4, a5, a6 = _STEP0[0], _STEP0[1], _STEP0[2], _STEP0[3], _STEP0[4], _STEP0[5]
    for x in range(n):
        kf[_EMPTY, x] = (kf[a1, x] + kf[a2, x] + kf[a3, x] + kf[a4, x] + kf[a5, x] + kf[a6, x]) * _SIXTH


@njit(inline="always", **JIT)
def _choose_on_lanes(kv, k0, t0, t1, role, dcomp, best, bk, W, tie, sec):
    """The choice of one hand on W lanes: ``bk[0, w]`` the keep best for component ``role`` among
    ``k0`` and the keeps ``_PK[t0:t1]`` (``best[0, w]`` its value), ties broken by the tie order
    ``tie`` (reading component ``sec``), and with ``dcomp >= 0``, ``bk[1, w]`` the keep best for
    component ``dcomp`` (ties to the earlier keep): :func:`_best_by`'s scan, branch-free.
    ``best`` has three rows (the third: work space of the tie orders)."""
    for q in range(1 if dcomp < 0 else 2):
        if q == 0 and tie != TIE_FIRST:
            _choose_tied_on_lanes(kv, k0, t0, t1, role, best, bk, W, tie, sec)
            continue
        comp = role if q == 0 else dcomp
        for w in range(W):
            best[q, w] = kv[k0, comp, w]
            bk[q, w] = k0
        for t in range(t0, t1):
            k = _PK[t]
            for w in range(W):
                v = kv[k, comp, w]
                bw = best[q, w]
                up = v > bw + KEEP_TIE  # ties go to the earlier keep (_best_by)
                best[q, w] = v if up else bw
                bk[q, w] = k if up else bk[q, w]


@njit(inline="always", **JIT)
def _choose_tied_on_lanes(kv, k0, t0, t1, comp, best, bk, W, tie, sec):
    """:func:`_best_tied` on W lanes (``bk[0, w]``, ``best[0, w]``): the largest value first
    (``best[0]``), then the keep the tie order takes among those within KEEP_TIE of it, by
    its score (``best[2]``), the same comparisons in the same order."""
    sign = _tie_sign(tie)
    for w in range(W):
        best[0, w] = kv[k0, comp, w]
    for t in range(t0, t1):
        k = _PK[t]
        for w in range(W):
            v = kv[k, comp, w]
            bw = best[0, w]
            best[0, w] = v if v > bw else bw
    for w in range(W):
        best[0, w] = best[0, w] - KEEP_TIE  # the floor of the ties
        bk[0, w] = k0
        best[2, w] = sign * kv[k0, sec, w] if kv[k0, comp, w] >= best[0, w] else -np.inf
    for t in range(t0, t1):
        k = _PK[t]
        for w in range(W):
            tied = kv[k, comp, w] >= best[0, w]
            if tie == TIE_LAST:
                up = tied
            else:
                s = sign * kv[k, sec, w]
                up = tied and s > best[2, w] + KEEP_TIE
                best[2, w] = s if up else best[2, w]
            bk[0, w] = k if up else bk[0, w]
    for w in range(W):
        best[0, w] = kv[bk[0, w], comp, w]


@njit(**JIT)
def _turn_lanes(vals, tixw, nl, gs, c, first, role, dcomp, K, level, kv, best, bk, kb, dec, dev, out, tie, sec):
    """:func:`player_turn` of the profile (every component after the keep best for ``role``) for
    the contexts ``gs[:nl]`` of one count c at once, lane w reading ``vals[tixw[f-1, h, w]]``
    (lanes from nl on repeat a context and are not written); ``out[j, w]`` the utilities.
    With ``dcomp >= 0``, :func:`_turn_both` instead: component ``dcomp`` follows the keep
    best for it (``dev``), the deviator's. ``best`` and ``bk`` have a row per chooser (``best`` a
    third, for the tie order ``tie``, which reads component ``sec``: :func:`_choose_on_lanes`).

    ``kv[_N_PARTIAL]`` holds the values of stopping with the hand at hand, so that the keep
    chosen is one index into ``kv`` in every lane. The choice runs without branches (selects,
    as vector instructions): only the chooser's component is compared, the others read once at
    the end, component by component (a gather over the lanes, which vectorises; lane by lane it
    did not). ``level`` receives the new values directly: once ``kv`` is made, the old ones are
    not read again. ``kb``: a work array of W keeps.
    """
    stop = _N_PARTIAL
    for h in range(_NH):
        for j in range(K):
            for w in range(_W):
                level[h, j, w] = vals[tixw[c - 1, h, w], j]
    for made in range(c - 1, 0, -1):
        _keep_values_lanes(level, _HANDS, kv, K)
        for h in range(_NH):
            t0, t1 = _PK_START[h], _PK_START[h + 1]
            if first == 0:  # stopping is the first keep
                for j in range(K):
                    for w in range(_W):
                        kv[stop, j, w] = vals[tixw[made - 1, h, w], j]
                k0 = stop
            else:
                k0 = _PK[t0]
                t0 += 1
            _choose_on_lanes(kv, k0, t0, t1, role, dcomp, best, bk, _W, tie, sec)
            for w in range(_W):
                kb[w] = bk[0, w]
            for j in range(K):
                for w in range(_W):
                    level[h, j, w] = kv[kb[w], j, w]
            for w in range(nl):
                dec[gs[w], made - 1, h] = _lane_keep(bk[0, w], h)
            if dcomp >= 0:
                for w in range(_W):
                    level[h, dcomp, w] = kv[bk[1, w], dcomp, w]
                for w in range(nl):
                    dev[gs[w], made - 1, h] = _lane_keep(bk[1, w], h)
    for j in range(K):
        for w in range(_W):
            out[j, w] = 0.0
        for h in range(_NH):
            for w in range(_W):
                out[j, w] += _P0[h] * level[h, j, w]


@njit(**JIT)
def _level_lanes(lo, hi, role, exact, K, ctx_c, row_start, trans, vals, dec, dcomp, dev, tie, sec):
    """:func:`_level` where every follower plays the profile (``dcomp < 0``), or :func:`_level_both`
    (``dcomp = m + role``): runs of up to W contexts of one count go through :func:`_turn_lanes` together.
    ``K``, the number of components, is a run-time int: one compiled kernel serves every K.
    ``tie``, ``sec``: the profile's tie order and the component it reads (the next role's)."""
    first = 1 if exact else 0
    level = np.empty((_NH, K, _W))
    kv = np.empty((_N_PARTIAL + 1, K, _W))
    best = np.empty((3, _W))
    bk = np.empty((2, _W), np.int64)
    out = np.empty((K, _W))
    tixw = np.zeros((3, _NH, _W), np.int64)
    gs = np.zeros(_W, np.int64)
    kb = np.zeros(_W, np.int64)
    base = np.zeros(_W, np.int64)
    g = lo
    while g < hi:
        c = ctx_c[g]
        nl = 1
        while nl < _W and g + nl < hi and ctx_c[g + nl] == c:
            nl += 1
        for w in range(_W):
            gs[w] = g + w if w < nl else g
            base[w] = row_start[gs[w]]
        # _follower_tix of each lane, read from ``trans`` for all lanes at once (a gather that vectorises)
        for f in range(1, c + 1):
            if exact and f < c:
                continue
            off = (0 if exact else f - 1) * _NH
            for h in range(_NH):
                for w in range(_W):
                    tixw[f - 1, h, w] = trans[base[w] + off + h]
        _turn_lanes(vals, tixw, nl, gs, c, first, role, dcomp, K, level, kv, best, bk, kb, dec, dev, out, tie, sec)
        for w in range(nl):
            for j in range(K):
                vals[g + w, j] = out[j, w]
        g += nl


@njit(**JIT)
def _level(lo, hi, role, exact, Kp, K, act, tables, fixed, ctx_c, ctx_target, row_start, trans, vals, dec, spread,
           lanes, tie):
    """Every context of one level (numbers lo..hi-1): its follower's turn; ``vals[g]`` its utilities.

    The follower plays ``tables[target, count-1]`` (ACT_TABLE) or ``fixed[g]`` (ACT_FIXED). With
    ``lanes``, where everyone plays the profile and no tie spread is asked, the contexts go through
    :func:`_level_lanes` (the same numbers, faster)."""
    first = 1 if exact else 0
    if lanes and act == ACT_PROFILE and Kp == K and spread.shape[0] == 0:
        # dcomp as a plain int64, never a literal: one compiled _level_lanes for both callers
        _level_lanes(lo, hi, role, exact, K, ctx_c, row_start, trans, vals, dec, np.int64(-1), dec, tie,
                     _tie_sec(tie, role, Kp))
        return
    level = np.empty((_NH, K))
    new = np.empty((_NH, K))
    kv = np.empty((_N_PARTIAL, K))
    tix = np.zeros((3, _NH), np.int64)
    out = np.empty(K)
    for g in range(lo, hi):
        c = ctx_c[g]
        _follower_tix(g, c, exact, row_start, trans, tix)
        table = fixed[g] if act == ACT_FIXED else tables[ctx_target[g], c - 1]
        player_turn(vals, tix, c, first, role, Kp, K, act, table, level, new, kv, dec[g], out, spread, tie)
        for j in range(K):
            vals[g, j] = out[j]


@njit(inline="always", **JIT)
def _throw_kept(km, nxt):
    """``nxt[h]``: the probability of hand h after the keeps held with probabilities ``km[k]``
    throw their other dice, one die at a time (as ``_keep_values``, forwards)."""
    e = km[_EMPTY] * _SIXTH
    for x in range(6):
        km[_STEP0[x]] += e
    for r in range(_STEP1.shape[0]):
        e = km[_STEP1[r, 0]] * _SIXTH
        for x in range(6):
            km[_STEP1[r, 1 + x]] += e
    nxt[:] = 0.0
    for r in range(_STEP2.shape[0]):
        e = km[_STEP2[r, 0]] * _SIXTH
        for x in range(6):
            nxt[_STEP2[r, 1 + x]] += e


@njit(**JIT)
def turn_distribution(dec, c, first, cur, nxt, km, fin):
    """``fin[f-1, h]``: the probability that a turn of up to c throws played by ``dec[made-1, h]``
    ends on h after f throws (RANDOM_KEEP: each legal keep alike)."""
    fin[:, :] = 0.0
    for h in range(_NH):
        cur[h] = _P0[h]
    for made in range(1, c):
        km[:] = 0.0
        for h in range(_NH):
            mh = cur[h]
            k = dec[made - 1, h]
            if k == _FULL + h:
                fin[made - 1, h] += mh
            elif k >= 0:
                km[k] += mh
            else:
                share = mh / (_N_HAND_KEEPS[h] - first)
                for t in range(first, _N_HAND_KEEPS[h]):
                    kk = _HAND_KEEPS[h, t]
                    if kk == _FULL + h:
                        fin[made - 1, h] += share
                    else:
                        km[kk] += share
        _throw_kept(km, nxt)
        cur[:] = nxt
    for h in range(_NH):
        fin[c - 1, h] += cur[h]


@njit(**JIT)
def _forward(L, m, exact, lvl_start, ctx_c, row_start, trans, lead_next, dec, lead_dec, dev, lead_dev, r, fin_start,
             fin_cls, fin_w, mass, dist):
    """The round's outcome distribution under the keeps played: ``dist[class]``. Role ``r`` (-1: none)
    plays ``dev`` and ``lead_dev`` (its own keeps: a deviator's), the others ``dec`` and ``lead_dec``."""
    G = lvl_start[m - 1]
    mass[:] = 0.0
    cur = np.empty(_NH)
    nxt = np.empty(_NH)
    km = np.empty(_N_PARTIAL)
    fin = np.zeros((3, _NH))
    tix = np.zeros((3, _NH), np.int64)
    turn_distribution(lead_dev if r == 0 else lead_dec, L, 0, cur, nxt, km, fin)
    own_lo, own_hi = (lvl_start[r - 1], lvl_start[r]) if r >= 1 else (0, 0)
    for c in range(1, L + 1):
        for h in range(_NH):
            mass[lead_next[c - 1, h]] += fin[c - 1, h]
    first = 1 if exact else 0
    for g in range(G):
        mg = mass[g]
        if mg == 0.0:
            continue
        c = ctx_c[g]
        turn_distribution(dev[g] if own_lo <= g < own_hi else dec[g], c, first, cur, nxt, km, fin)
        _follower_tix(g, c, exact, row_start, trans, tix)
        for f in range(1, c + 1):
            for h in range(_NH):
                if fin[f - 1, h] != 0.0:
                    mass[tix[f - 1, h]] += mg * fin[f - 1, h]
    dist[:] = 0.0
    for e in range(fin_start.shape[0] - 1):
        me = mass[G + e]
        if me != 0.0:
            for t in range(fin_start[e], fin_start[e + 1]):
                dist[fin_cls[t]] += me * fin_w[t]


@njit(**JIT)
def solve_round(L, m, exact, Kp, K, acts, lead_table, foll_tables, fixed, S, cx, want_dist, vals, dec, lead_dec, mass,
                out, dist, spread, lanes, tie):
    """One round from the utilities ``S[class, j]`` of its outcome classes; ``out[j]`` the utilities
    before the leader's first throw.

    Backward induction: the last follower in every context it can meet, then each
    earlier follower, then the leader (roles ``m-1`` down to 0; role i plays as
    ``acts[i]``, from ``foll_tables[i]`` or ``lead_table`` where it plays a table, from
    ``fixed[g]`` or ``lead_table`` where it plays keeps fixed before, ACT_FIXED).
    ``dec[g]`` and ``lead_dec`` receive the keeps played; with ``want_dist``, ``dist``
    the outcome distribution under them. ``K``: the number of components, a
    run-time int64 (never a literal, see ``_nplayer_game.components``), so that one compilation serves every K.
    ``spread``: an empty array, or one entry that receives the tie order's weight. ``tie``: the
    tie order of the profile's keeps (``TIE_FIRST``, ...: among the keeps within KEEP_TIE of a
    player's best, which it takes; the next player of role i is role i + 1 modulo m). ``cx``: the
    contexts (:class:`Arrays`).
    """
    lvl_start, ctx_c, ctx_target, row_start, trans, lead_next, fin_start, fin_cls, fin_w = cx
    G = lvl_start[m - 1]
    _final_values(S, fin_start, fin_cls, fin_w, G, K, vals)
    for i in range(m - 1, 0, -1):
        _level(lvl_start[i - 1], lvl_start[i], i, exact, Kp, K, acts[i], foll_tables[i], fixed, ctx_c, ctx_target,
               row_start, trans, vals, dec, spread, lanes, tie)
    level = np.empty((_NH, K))
    new = np.empty((_NH, K))
    kv = np.empty((_N_PARTIAL, K))
    # np.int64(...): a constant argument is typed as a literal, and numba would compile the callee
    # once more for it (cold compile time is most of a small solve's time)
    player_turn(vals, lead_next, L, np.int64(0), np.int64(0), Kp, K, acts[0], lead_table, level, new, kv, lead_dec,
                out, spread, tie)
    if want_dist:
        _forward(L, m, exact, lvl_start, ctx_c, row_start, trans, lead_next, dec, lead_dec, dec, lead_dec, -1,
                 fin_start, fin_cls, fin_w, mass, dist)



@njit(**JIT)
def solve_rounds(lo, hi, t, L, m, exact, Kp, K, acts, lead_tabs, foll_tabs, foll_idx, S, cx, want_dist, vals, dec, mass,
                 out, dist, spread, lanes, tie):
    """:func:`solve_round` for the states ``lo .. hi-1`` of a batch of states of the same contexts.

    State b: ``S[b]``, ``acts[b]``, ``lead_tabs[b]`` and role i's follower table
    ``foll_tabs[foll_idx[b, i]]``; ``out[b]`` and ``dist[b]`` receive its results.
    Each state's round is played from start to end in the work arrays ``vals[t]``,
    ``dec[t]``, ``mass[t]`` of thread slot t: results do not depend on the threads
    (the caller shares the states among threads, ``_util.threads.split_over_threads``). ``cx``:
    the contexts (:class:`Arrays`).
    """
    for b in range(lo, hi):
        tabs = foll_tabs[foll_idx[b]]
        lead_dec = np.zeros((2, _NH), np.int8)
        sp = spread[b:b + 1] if spread.shape[0] > 0 else spread
        solve_round(L, m, exact, Kp, K, acts[b], lead_tabs[b], tabs, dec[t], S[b], cx, want_dist, vals[t], dec[t],
                    lead_dec, mass[t], out[b], dist[b], sp, lanes, tie)



# States solved side by side, one per lane (_SW of them): every lane meets the same contexts in
# the same order, so that a turn's ends are one row of ``vals[x, j, w]`` for all lanes (vector
# loads, where lanes of contexts read each lane's end apart). Each lane's numbers are those of
# solve_round, bit for bit: the same sums in the same order (tests compare the two).
_SW = 32


@njit(inline="always", **JIT)
def _turn_states(vals, tix, c, first, role, dcomp, K, level, kv, best, bk, dec, dev, g, out, tie, sec):
    """:func:`_turn_lanes` on the lanes of states: ``vals[tix[f-1, h], j, w]`` the utilities when
    the turn ends on h after f throws; ``dec[g, made-1, h, w]`` receives the keeps as lane indices
    into ``kv`` (:func:`_lane_keep`: ``_N_PARTIAL`` is stopping), the leader's at ``g = 0`` of an
    array of one context; ``out[j, w]`` the utilities. With ``dcomp >= 0``,
    component ``dcomp`` follows the keep best for it (``dev``): the certificate's deviator. ``tie``,
    ``sec``: the profile's tie order and the component it reads."""
    stop = _N_PARTIAL
    if c == 1:  # no choice: the hands' values are read where they are
        for j in range(K):
            for w in range(_SW):
                out[j, w] = 0.0
            for h in range(_NH):
                row = tix[0, h]
                for w in range(_SW):
                    out[j, w] += _P0[h] * vals[row, j, w]
        return
    for made in range(c - 1, 0, -1):
        # the last throw's keep values from the ends themselves, the earlier ones' from ``level``
        if made == c - 1:
            _keep_values_lanes(vals, tix[c - 1], kv, K)
        else:
            _keep_values_lanes(level, _HANDS, kv, K)
        for h in range(_NH):
            t0, t1 = _PK_START[h], _PK_START[h + 1]
            if first == 0:  # stopping is the first keep
                row = tix[made - 1, h]
                for j in range(K):
                    for w in range(_SW):
                        kv[stop, j, w] = vals[row, j, w]
                k0 = stop
            else:
                k0 = _PK[t0]
                t0 += 1
            _choose_on_lanes(kv, k0, t0, t1, role, dcomp, best, bk, _SW, tie, sec)
            for j in range(K):
                for w in range(_SW):
                    level[h, j, w] = kv[bk[0, w], j, w]
            for w in range(_SW):
                dec[g, made - 1, h, w] = bk[0, w]
            if dcomp >= 0:
                for w in range(_SW):
                    level[h, dcomp, w] = kv[bk[1, w], dcomp, w]
                for w in range(_SW):
                    dev[g, made - 1, h, w] = bk[1, w]
    for j in range(K):
        for w in range(_SW):
            out[j, w] = 0.0
        for h in range(_NH):
            for w in range(_SW):
                out[j, w] += _P0[h] * level[h, j, w]


@njit(inline="always", **JIT)
def _turn_distribution_states(dec, g, c, cur, nxt, km, fin):
    """:func:`turn_distribution` on the lanes of states, the keeps ``dec[g, made-1, h, w]`` as
    :func:`_turn_states` writes them (the profile's or a deviator's: never the random policy):
    ``fin[f-1, h, w]``. Each keep has its row of ``km``: the partial keeps, then stopping on each
    hand (``_FULL + h``, :func:`_lane_keep`), so that each hand's probability goes to the keep
    played without a branch."""
    for f in range(c):
        for h in range(_NH):
            for w in range(_SW):
                fin[f, h, w] = 0.0
    for h in range(_NH):
        for w in range(_SW):
            cur[h, w] = _P0[h]
    for made in range(1, c):
        for k in range(km.shape[0]):
            for w in range(_SW):
                km[k, w] = 0.0
        for h in range(_NH):
            for w in range(_SW):
                km[_lane_keep(dec[g, made - 1, h, w], h), w] += cur[h, w]
        for h in range(_NH):
            for w in range(_SW):
                fin[made - 1, h, w] = km[_FULL + h, w]
        # _throw_kept, on the lanes
        for w in range(_SW):
            km[_EMPTY, w] *= _SIXTH
        for x in range(6):
            for w in range(_SW):
                km[_STEP0[x], w] += km[_EMPTY, w]
        for r in range(_STEP1.shape[0]):
            k = _STEP1[r, 0]
            for w in range(_SW):
                km[k, w] *= _SIXTH
            for x in range(6):
                for w in range(_SW):
                    km[_STEP1[r, 1 + x], w] += km[k, w]
        for h in range(_NH):
            for w in range(_SW):
                nxt[h, w] = 0.0
        for r in range(_STEP2.shape[0]):
            k = _STEP2[r, 0]
            for w in range(_SW):
                km[k, w] *= _SIXTH
            for x in range(6):
                for w in range(_SW):
                    nxt[_STEP2[r, 1 + x], w] += km[k, w]
        for h in range(_NH):
            for w in range(_SW):
                cur[h, w] = nxt[h, w]
    for h in range(_NH):
        for w in range(_SW):
            fin[c - 1, h, w] += cur[h, w]


@njit(**JIT)
def _forward_states(L, m, exact, lvl_start, ctx_c, row_start, trans, lead_next, dec, lead_dec, dev, lead_dev, r,
                    fin_start, fin_cls, fin_w, mass, b0, nb, dist, slot):
    """:func:`_forward` on the lanes of states: ``dist[b0 + w, slot]`` for the lanes w < nb, role r
    (-1: none) playing ``dev`` and ``lead_dev``; ``mass[x, w]``: a work array."""
    G = lvl_start[m - 1]
    mass[:, :] = 0.0
    cur = np.empty((_NH, _SW))
    nxt = np.empty((_NH, _SW))
    km = np.empty((_FULL + _NH, _SW))
    fin = np.zeros((3, _NH, _SW))
    tix = np.zeros((3, _NH), np.int64)
    _turn_distribution_states(lead_dev if r == 0 else lead_dec, 0, L, cur, nxt, km, fin)
    own_lo, own_hi = (lvl_start[r - 1], lvl_start[r]) if r >= 1 else (0, 0)
    for c in range(1, L + 1):
        for h in range(_NH):
            row = lead_next[c - 1, h]
            for w in range(_SW):
                mass[row, w] += fin[c - 1, h, w]
    for g in range(G):
        live = False
        for w in range(_SW):
            live |= mass[g, w] != 0.0
        if not live:
            continue
        c = ctx_c[g]
        _turn_distribution_states(dev if own_lo <= g < own_hi else dec, g, c, cur, nxt, km, fin)
        _follower_tix(g, c, exact, row_start, trans, tix)
        # lanes without mass, or a turn that cannot end there, add 0 (the masses are not negative)
        for f in range(1, c + 1):
            for h in range(_NH):
                row = tix[f - 1, h]
                for w in range(_SW):
                    mass[row, w] += mass[g, w] * fin[f - 1, h, w]
    for w in range(nb):
        for q in range(dist.shape[2]):
            dist[b0 + w, slot, q] = 0.0
        for e in range(fin_start.shape[0] - 1):
            me = mass[G + e, w]
            if me != 0.0:
                for t in range(fin_start[e], fin_start[e + 1]):
                    dist[b0 + w, slot, fin_cls[t]] += me * fin_w[t]


@njit(**JIT)
def _rounds_side_by_side(L, m, exact, K, deviate, S, b0, nb, lvl_start, ctx_c, row_start, trans, lead_next, fin_start,
                         fin_cls, fin_w, want_dist, vals, dec, dev, lead_dec, lead_dev, mass, out, dist, tie):
    """:func:`solve_round` of the profile (``deviate`` False), or :func:`certificate_round`, for the
    states ``b0 .. b0+nb-1`` of ``S``, one per lane (lanes from nb on repeat state b0 and are not
    written). ``out[b]``: the profile's utilities, or each role's best-response utility;
    ``dist[b, r]``: the outcome distribution (the profile's: r = 0), or when role r deviates.
    ``vals[x, j, w]``, ``dec[g, made-1, h, w]``, ``dev`` (the deviators' keeps), ``mass[x, w]``: work
    arrays."""
    G = lvl_start[m - 1]
    for e in range(fin_start.shape[0] - 1):
        for j in range(K):
            for w in range(_SW):
                b = b0 + w if w < nb else b0
                acc = 0.0
                for t in range(fin_start[e], fin_start[e + 1]):
                    acc += fin_w[t] * S[b, fin_cls[t], j]
                vals[G + e, j, w] = acc
    first = 1 if exact else 0
    level = np.empty((_NH, K, _SW))
    kv = np.empty((_N_PARTIAL + 1, K, _SW))
    best = np.empty((3, _SW))
    bk = np.empty((2, _SW), np.int64)
    o = np.empty((K, _SW))
    tix = np.zeros((3, _NH), np.int64)
    for i in range(m - 1, 0, -1):
        dcomp = m + i if deviate else -1
        for g in range(lvl_start[i - 1], lvl_start[i]):
            c = ctx_c[g]
            _follower_tix(g, c, exact, row_start, trans, tix)
            _turn_states(vals, tix, c, first, i, dcomp, K, level, kv, best, bk, dec, dev, g, vals[g], tie,
                         _tie_sec(tie, i, m))
    _turn_states(vals, lead_next, L, np.int64(0), np.int64(0), m if deviate else -1, K, level, kv, best, bk,
                 lead_dec, lead_dev, np.int64(0), o, tie, _tie_sec(tie, np.int64(0), m))
    for w in range(nb):
        for j in range(m if deviate else K):
            out[b0 + w, j] = o[m + j if deviate else j, w]
    if want_dist:
        for r in range(m if deviate else 1):
            _forward_states(L, m, exact, lvl_start, ctx_c, row_start, trans, lead_next, dec, lead_dec, dev, lead_dev,
                            r if deviate else -1, fin_start, fin_cls, fin_w, mass, b0, nb, dist, r)


@njit(**JIT)
def rounds_side_by_side(lo, hi, t, L, m, exact, K, deviate, S, cx, want_dist, vals, dec, dev, mass, out, dist, tie):
    """:func:`solve_rounds` where everyone plays the profile (or :func:`best_response_rounds`, with
    ``deviate``), _SW states at a time (:func:`_rounds_side_by_side`): the groups ``lo .. hi-1`` of
    the batch, in the work arrays ``vals[t]``, ``dec[t]``, ``dev[t]``, ``mass[t]`` of thread slot t,
    so that results do not depend on the threads. ``cx``: the contexts (:class:`Arrays`)."""
    lvl_start, ctx_c, _, row_start, trans, lead_next, fin_start, fin_cls, fin_w = cx
    B = S.shape[0]
    for q in range(lo, hi):
        lead_dec = np.zeros((1, 2, _NH, _SW), np.int8)
        lead_dev = np.zeros((1, 2, _NH, _SW), np.int8)
        _rounds_side_by_side(L, m, exact, K, deviate, S, q * _SW, min(_SW, B - q * _SW), lvl_start, ctx_c, row_start,
                             trans, lead_next, fin_start, fin_cls, fin_w, want_dist, vals[t], dec[t], dev[t],
                             lead_dec, lead_dev, mass[t], out, dist, tie)


# ====================================================================== the certificate
@njit(inline="always", **JIT)
def _decide_both(made, tix, first, role, m, K, kv, vals, new, dec, dev, tie):
    """Every hand's decisions after ``made`` throws in the certificate's pass (:func:`certificate_round`):
    ``dec`` the profile's keep (best for component ``role``), ``dev`` the keep of ``role`` deviating
    (best for component ``m + role``); ``new[h]`` their values: every component after the profile's
    keep, but the deviator's own, after its keep. The profile's ties are broken by ``tie`` (as in
    the solve: the same keeps), the deviator's go to the earlier keep (only its own value, the same
    within KEEP_TIE, depends on them)."""
    sec = _tie_sec(tie, role, m)
    for h in range(_NH):
        stop_row = tix[made - 1, h]
        bk = _best_by(h, role, first, stop_row, kv, vals, tie, sec)
        bd = _best_by(h, m + role, first, stop_row, kv, vals, TIE_FIRST, 0)
        if bk == _FULL + h:
            for j in range(K):
                new[h, j] = vals[stop_row, j]
        else:
            for j in range(K):
                new[h, j] = kv[bk, j]
        if bd != bk:
            new[h, m + role] = vals[stop_row, m + role] if bd == _FULL + h else kv[bd, m + role]
        dec[made - 1, h] = bk
        dev[made - 1, h] = bd


@njit(**JIT)
def _turn_both(vals, tix, c, first, role, m, K, level, new, kv, dec, dev, out, tie):
    """:func:`player_turn` in the certificate's pass (:func:`_decide_both` decides)."""
    for h in range(_NH):
        for j in range(K):
            level[h, j] = vals[tix[c - 1, h], j]
    for made in range(c - 1, 0, -1):
        _keep_values(level, kv, K)
        _decide_both(made, tix, first, role, m, K, kv, vals, new, dec, dev, tie)
        for h in range(_NH):
            for j in range(K):
                level[h, j] = new[h, j]
    for j in range(K):
        acc = 0.0
        for h in range(_NH):
            acc += _P0[h] * level[h, j]
        out[j] = acc


@njit(**JIT)
def _level_both(lo, hi, role, exact, m, K, ctx_c, row_start, trans, vals, dec, dev, lanes, tie):
    """:func:`_level` in the certificate's pass."""
    if lanes:
        _level_lanes(lo, hi, role, exact, K, ctx_c, row_start, trans, vals, dec, np.int64(m + role),
                     dev, tie, _tie_sec(tie, role, m))
        return
    first = 1 if exact else 0
    level = np.empty((_NH, K))
    new = np.empty((_NH, K))
    kv = np.empty((_N_PARTIAL, K))
    tix = np.zeros((3, _NH), np.int64)
    out = np.empty(K)
    for g in range(lo, hi):
        c = ctx_c[g]
        _follower_tix(g, c, exact, row_start, trans, tix)
        _turn_both(vals, tix, c, first, role, m, K, level, new, kv, dec[g], dev[g], out, tie)
        for j in range(K):
            vals[g, j] = out[j]


@njit(**JIT)
def certificate_round(L, m, exact, K, S, lvl_start, ctx_c, row_start, trans, lead_next, fin_start, fin_cls, fin_w,
                      want_dist, vals, dec, dev, lead_dec, lead_dev, mass, out, dist, lanes, tie):
    """One round's profile and every role's best response to it, in one backward pass.

    ``S[class]``: components ``0..m-1`` the profile's utilities (everyone choosing, each
    for its own component), ``m + r`` role r's utility when it deviates. At each decision
    of role i the profile's keep is best for component i (``dec``, ``lead_dec``); every
    component follows it but ``m + i``, which follows role i's best keep for it (``dev``,
    ``lead_dev``): component ``m + r`` is role r's best response to the others' profile,
    with the same arithmetic as a round of that one component. ``out[r]``: its utility;
    with ``want_dist``, ``dist[r]`` the outcome distribution when r deviates.
    """
    G = lvl_start[m - 1]
    _final_values(S, fin_start, fin_cls, fin_w, G, K, vals)
    for i in range(m - 1, 0, -1):
        _level_both(lvl_start[i - 1], lvl_start[i], i, exact, m, K, ctx_c, row_start, trans, vals, dec, dev, lanes,
                    tie)
    level = np.empty((_NH, K))
    new = np.empty((_NH, K))
    kv = np.empty((_N_PARTIAL, K))
    u = np.empty(K)
    _turn_both(vals, lead_next, L, np.int64(0), np.int64(0), m, K, level, new, kv, lead_dec, lead_dev, u, tie)
    for r in range(m):
        out[r] = u[m + r]
        if want_dist:
            _forward(L, m, exact, lvl_start, ctx_c, row_start, trans, lead_next, dec, lead_dec, dev, lead_dev, r,
                     fin_start, fin_cls, fin_w, mass, dist[r])


@njit(**JIT)
def best_response_rounds(lo, hi, t, L, m, exact, K, S, cx, want_dist, vals, dec, dev, mass, out, dist, lanes, tie):
    """Every role's best response in the states ``lo .. hi-1`` of a batch (:func:`certificate_round`),
    in the work arrays of thread slot t as :func:`solve_rounds`: ``S[b]``, ``out[b, r]``, ``dist[b, r]``.

    One pass of 2m components per state: the profile's keeps and each role's best reply
    are found together (instead of the profile's round, then m rounds of one component). ``cx``: the
    contexts (:class:`Arrays`).
    """
    lvl_start, ctx_c, _, row_start, trans, lead_next, fin_start, fin_cls, fin_w = cx
    for b in range(lo, hi):
        lead_dec = np.zeros((2, _NH), np.int8)
        lead_dev = np.zeros((2, _NH), np.int8)
        certificate_round(L, m, exact, K, S[b], lvl_start, ctx_c, row_start, trans, lead_next, fin_start, fin_cls,
                          fin_w, want_dist, vals[t], dec[t], dev[t], lead_dec, lead_dev, mass[t], out[b], dist[b],
                          lanes, tie)
