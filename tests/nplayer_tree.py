"""A brute-force game tree of 3 and 4 players, written here from docs/rules.md: the witness of the n-player
solver (tests/test_nplayer_bruteforce.py) and of one decision's keep values (tests/test_nplayer_keeps.py).

With 1 or 2 tokens (4 players) or up to 3 tokens (3 players, ``first_out``) every
game is a finite tree of rounds: no state comes back (asserted). So every state's
values follow by plain recursion over states, and each round by backward
induction over its *full* tree: the leader's throws and keeps, then each follower
for every complete history of (hand, throws) before it (no summary of the table:
the hands themselves), judged at the end by the rules as restated below. The
tree is enumerated by plain loops, compiled by numba only for speed (a 4-player
round has about a million histories); nothing here reads the solver.

Stated here, independently of the package: the keep -> hand probabilities
(counted with itertools), the order of a round's hands ((rescued, rank, throws)
triples, rescue its own clause), roll-offs as fair shares, the payout (the
winner's worth, cumulative sums, the nénette minimum), settlement, going out, the
end, the next leader, who pays and who wins. Rankings and values are the literal
tables of tests/rules_tables.py (via tests/reference.py). From ``four21sim.dice``
only the encodings: hand and keep numbers and the documented keep order
(``HAND_KEEPS``, stop first), which settles ties within 1e-12, and so decides the
*other* players' values where the chooser is indifferent.

Two conventions of the solver are restated because they are choices, not rules:
ties go to the first keep in that order; once a player is out, the players left
play to avoid paying (under ``win`` nobody left can still win).

Best responses: a seat plays its best reply (maximising its own utility) while the
others play fixed tables exactly as the engine reads them (docs/engine.md: a
follower's target is the worst hand so far by the ranking; the random policy is a
uniform choice among the legal keeps).
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import numba
import numpy as np
from reference import RANK_OF, is_combination, value_of

from four21sim import Variant
from four21sim.rules.dice import FULL_KEEP, HAND_KEEPS, HANDS, KEEPS, N_HAND_KEEPS

NH = 56
H221 = HANDS.index((2, 2, 1))
TIE = 1e-12
RANDOM = -1  # a fixed table's entry: a uniform choice among the legal keeps


def _transition_matrix() -> np.ndarray:
    """M[k, h]: probability that keeping the dice of keep k and throwing the rest gives hand h."""
    M = np.zeros((len(KEEPS), NH))
    for k, kept in enumerate(KEEPS):
        outcomes = list(itertools.product(range(1, 7), repeat=3 - len(kept)))
        for o in outcomes:
            M[k, HANDS.index(tuple(sorted(kept + o, reverse=True)))] += 1 / len(outcomes)
    return M


M = _transition_matrix()
P0 = M[0].copy()
# the keeps that throw at least one die (keeping all three is stopping), as sparse rows
M_START = np.concatenate([[0], np.cumsum([np.count_nonzero(M[k]) for k in range(FULL_KEEP)])]).astype(np.int64)
M_HAND = np.concatenate([np.flatnonzero(M[k]) for k in range(FULL_KEEP)]).astype(np.int64)
M_PROB = np.concatenate([M[k][np.flatnonzero(M[k])] for k in range(FULL_KEEP)])
KEEP_LIST = np.array(HAND_KEEPS, dtype=np.int64)
KEEP_COUNT = np.array(N_HAND_KEEPS, dtype=np.int64)


# ============================================================== judging a round
@numba.njit(cache=True)
def _keys(hands, throws, m, rescued, rank, val, ftw, key, worth):
    """Each hand's place in the round's order (lower is better) and worth, the rescue decided."""
    for j in range(m):
        top = 0 if (rescued and hands[j] == H221) else 1  # a rescued 221 is above every other hand
        key[j] = top * 10000 + rank[hands[j]] * 10 + (throws[j] if ftw else 0)
        worth[j] = 4 if (rescued and hands[j] == H221) else val[hands[j]]


@numba.njit(cache=True)
def _add_outcomes(key, worth, hands, m, cum_on, nmin, S, term_row):
    """Add to ``term_row`` the values after the round: the loser is any of those with the worst key
    alike, then the winner any of the others with the best key alike; the payout is the winner's
    worth (plus every other hand worth 2 or more where cumulative), at least ``nmin`` for a 221 loser."""
    worst = key[0]
    for j in range(1, m):
        worst = max(worst, key[j])
    n_lose = 0
    for j in range(m):
        n_lose += key[j] == worst
    for lo in range(m):
        if key[lo] != worst:
            continue
        best = 1 << 40
        for j in range(m):
            if j != lo and key[j] < best:
                best = key[j]
        n_win = 0
        for j in range(m):
            if j != lo and key[j] == best:
                n_win += 1
        for w in range(m):
            if w == lo or key[w] != best:
                continue
            p = worth[w]
            if cum_on:
                for j in range(m):
                    if j != w and worth[j] >= 2:
                        p += worth[j]
            if hands[lo] == H221 and p < nmin:
                p = nmin
            share = 1.0 / (n_lose * n_win)
            for c in range(term_row.shape[0]):
                term_row[c] += share * S[lo, w, p, c]


# ============================================================== one turn
@numba.njit(cache=True)
def _turn(term, limit, may_stop, comp, sign, table, M, P0, keeps, nkeeps, out):
    """A turn's components before its first throw. ``term[f-1, h]``: when it ends on h after f throws.

    ``comp >= 0``: the player maximises ``sign * component[comp]``, taking the first
    keep in the documented order unless a later one is better by more than 1e-12;
    ``comp < 0``: it plays ``table[made-1, h]`` (RANDOM: each legal keep alike).
    ``M``: (start, hand, probability), the sparse rows of the keeps that throw dice.
    """
    C = term.shape[2]
    level = term[limit - 1].copy()
    new = np.empty_like(level)
    kv = np.zeros((FULL_KEEP, C))
    for made in range(limit - 1, 0, -1):
        for k in range(FULL_KEEP):
            for j in range(C):
                acc = 0.0
                for i in range(M[0][k], M[0][k + 1]):
                    acc += M[2][i] * level[M[1][i], j]
                kv[k, j] = acc
        for h in range(NH):
            legal = 0
            best_k, best = -1, 0.0
            for i in range(nkeeps[h]):
                k = keeps[h, i]
                if k == FULL_KEEP + h and not may_stop:
                    continue
                legal += 1
                x = term[made - 1, h, comp] if k == FULL_KEEP + h else kv[k, comp]
                if comp >= 0 and (best_k < 0 or sign * x > sign * best + TIE):
                    best_k, best = k, x
            if comp < 0 and table[made - 1, h] != RANDOM:
                best_k = table[made - 1, h]
            for j in range(C):
                if best_k >= 0:
                    new[h, j] = term[made - 1, h, j] if best_k == FULL_KEEP + h else kv[best_k, j]
                    continue
                acc = 0.0  # the random policy: each legal keep alike
                for i in range(nkeeps[h]):
                    k = keeps[h, i]
                    if k == FULL_KEEP + h and not may_stop:
                        continue
                    acc += term[made - 1, h, j] if k == FULL_KEEP + h else kv[k, j]
                new[h, j] = acc / legal
        level[:] = new
    for j in range(C):
        acc = 0.0
        for h in range(NH):
            acc += P0[h] * level[h, j]
        out[j] = acc


# ============================================================== a round, every history
@numba.njit(cache=True)
def _history(idx, k, L, nf):
    """The hands and throws of the first k players from a history number (-1 throws: impossible)."""
    hands = np.zeros(k, np.int64)
    throws = np.zeros(k, np.int64)
    for j in range(k - 1, 0, -1):
        d = idx % (NH * nf)
        idx //= NH * nf
        hands[j] = d // nf
        throws[j] = d % nf + 1
    hands[0] = idx // L
    throws[0] = idx % L + 1
    for j in range(1, k):
        if nf == 1:
            throws[j] = throws[0]
        elif throws[j] > throws[0]:
            throws[0] = -1
    return hands, throws


@numba.njit(cache=True)
def _target(hands, k, rank):
    w = hands[0]
    for j in range(1, k):
        if rank[hands[j]] > rank[w]:
            w = hands[j]
    return w


@numba.njit(cache=True)
def _last_level(m, L, nf, S, comps, signs, tables, rank, M, P0, keeps, nkeeps, val, comb, flags):
    """Every history of the first m-1 players: the last follower's turn, every table judged at its end."""
    ftw, rescue_on, cum_on, nmin = flags[0] == 1, flags[1] == 1, flags[2] == 1, flags[3]
    C = S.shape[3]
    size = NH * L * (NH * nf) ** (m - 2)
    V = np.zeros((size, C))
    for idx in range(size):
        hh, tt = _history(idx, m - 1, L, nf)
        if tt[0] < 0:
            continue
        c = tt[0]
        hands = np.append(hh, 0)
        throws = np.append(tt, 0)
        key = np.zeros(m, np.int64)
        worth = np.zeros(m, np.int64)
        some_comb, some221 = False, False
        for j in range(m - 1):
            some_comb = some_comb or comb[hh[j]]
            some221 = some221 or hh[j] == H221
        term = np.zeros((c, NH, C))
        for f in range(1, c + 1):
            if nf == 1 and f < c:
                continue
            for h in range(NH):
                hands[m - 1], throws[m - 1] = h, f
                # the rescue: asked for, no combination on the table, a 221 on it
                rescued = rescue_on and not (some_comb or comb[h]) and (some221 or h == H221)
                _keys(hands, throws, m, rescued, rank, val, ftw, key, worth)
                _add_outcomes(key, worth, hands, m, cum_on, nmin, S, term[f - 1, h])
        out = np.zeros(C)
        _turn(term, c, nf > 1, comps[m - 1], signs[m - 1], tables[m - 1, _target(hh, m - 1, rank), c - 1], M,
              P0, keeps, nkeeps, out)
        V[idx] = out
    return V


@numba.njit(cache=True)
def _level(k, m, L, nf, Vnext, comps, signs, tables, rank, M, P0, keeps, nkeeps):
    """Every history of the first k players: follower k's turn, from the values after it."""
    C = Vnext.shape[1]
    size = NH * L * (NH * nf) ** (k - 1)
    V = np.zeros((size, C))
    for idx in range(size):
        hh, tt = _history(idx, k, L, nf)
        if tt[0] < 0:
            continue
        c = tt[0]
        out = np.zeros(C)
        term = np.zeros((L, NH, C))
        for f in range(1, c + 1):
            if nf == 1 and f < c:
                continue
            for h in range(NH):
                term[f - 1, h] = Vnext[idx * NH * nf + h * nf + (f - 1 if nf > 1 else 0)]
        _turn(term[:c].copy(), c, nf > 1, comps[k], signs[k], tables[k, _target(hh, k, rank), c - 1], M, P0, keeps,
              nkeeps, out)
        V[idx] = out
    return V


def _round(v: Variant, phase: str, m: int, S: np.ndarray, comps, signs, tables, lead_table) -> np.ndarray:
    """The components before the leader's first throw, each player choosing as ``comps``/``tables`` say."""
    L = v.charge_throws if phase == "charge" else v.decharge_throws
    nf = 1 if v.followers == "exact" else L
    rank = np.array([RANK_OF[v.ranking][h] for h in HANDS], dtype=np.int64)
    val = np.array([value_of(h, v.values) for h in HANDS], dtype=np.int64)
    comb = np.array([is_combination(h) for h in HANDS])
    flags = np.array([v.fewer_throws_wins, v.nenette_rescue, v.cumulative in (phase, "both"), v.nenette_min],
                     dtype=np.int64)
    args = (np.asarray(comps, np.int64), np.asarray(signs, np.float64), tables, rank, (M_START, M_HAND, M_PROB), P0,
            KEEP_LIST, KEEP_COUNT)
    V = _last_level(m, L, nf, S, *args, val, comb, flags)
    for k in range(m - 2, 0, -1):
        V = _level(k, m, L, nf, V, *args)
    term = np.zeros((L, NH, S.shape[3]))
    for c in range(1, L + 1):
        for h in range(NH):
            term[c - 1, h] = V[h * L + c - 1]
    out = np.zeros(S.shape[3])
    _turn(term, L, True, comps[0], signs[0], lead_table, (M_START, M_HAND, M_PROB), P0, KEEP_LIST, KEEP_COUNT, out)
    return out


# ============================================================== the game
def _settle(v: Variant, n: int, pot: int, toks: tuple, out: tuple, lo: int, w: int, p: int):
    """docs/rules.md, by seat: the charge, the décharge, going out, the end, the next leader.

    Returns ("end", pay share, win share) by seat, or ("go", pot, tokens, out, leader, newly out).
    """
    t, o = list(toks), list(out)
    before = sum(o)
    if pot > 0:
        moved = min(p, pot)
        pot -= moved
        t[lo] += moved
        gone = [i for i in range(n) if t[i] == 0 and not o[i]] if pot == 0 else []
    else:
        moved = min(p, t[w])
        t[w] -= moved
        t[lo] += moved
        gone = [w] if t[w] == 0 else []
    for i in gone:
        o[i] = 1
    still = [i for i in range(n) if not o[i]]
    first = before == 0  # the first to go out share the win
    if gone and (v.end == "first_out" or len(still) <= 1):
        top = max(t[i] for i in still)
        payers = still if v.end == "last_holder" else [i for i in still if t[i] == top]
        winners = gone if first else []
        pay = np.array([1 / len(payers) if i in payers else 0.0 for i in range(n)])
        win = np.array([1 / len(winners) if i in winners else 0.0 for i in range(n)])
        if not first:  # out before: already counted when they went out
            win[:] = 0.0
        return ("end", pay, win)
    leader = {"loser": lo, "winner": w, "next_seat": None}[v.next_leader]
    return ("go", pot, tuple(t), tuple(o), leader, gone)


def seat_order(leader: int, out: tuple, n: int) -> list[int]:
    return [(leader + k) % n for k in range(n) if not out[(leader + k) % n]]


class Tree:
    """Values by seat of every state (pot, tokens, out, leader), by recursion over the rounds.

    ``plays[seat]``: ("choose", objective) or ("table", policy).
    """

    def __init__(self, v: Variant, plays: list):
        self.v, self.n, self.plays = v, len(plays), plays
        self.busy: set = set()

    @lru_cache(maxsize=None)  # noqa: B019  (one tree per test: dropped with it)
    def value(self, pot: int, toks: tuple, out: tuple, leader: int) -> np.ndarray:
        """[seat, (P(pay), win share, rounds to the end)]."""
        key = (pot, toks, out, leader)
        assert key not in self.busy, "a state came back: the tree would not be finite"
        self.busy.add(key)
        res = self._round_value(pot, toks, out, leader)
        self.busy.discard(key)
        return res

    def _next_value(self, pot, toks, out, leader, lo, w, p, seats) -> np.ndarray:
        """Components by role after the round: P(pay), win share of each role, then rounds."""
        m, n = len(seats), self.n
        r = _settle(self.v, n, pot, toks, out, seats[lo], seats[w], p)
        vec = np.zeros(2 * m + 1)
        if r[0] == "end":
            vec[0:2 * m:2], vec[1:2 * m:2], vec[2 * m] = r[1][seats], r[2][seats], 1.0
            return vec
        _, pot2, toks2, out2, nl, gone = r
        if nl is None:  # the next seat after the leader still in play
            nl = (seats[0] + 1) % n
        while out2[nl]:
            nl = (nl + 1) % n
        nxt = self.value(pot2, toks2, out2, nl)
        first = sum(out) == 0
        for j, q in enumerate(seats):
            if q in gone:
                vec[2 * j:2 * j + 2] = 0.0, (1 / len(gone) if first else 0.0)
            else:
                vec[2 * j:2 * j + 2] = nxt[q, 0], nxt[q, 1]
        vec[2 * m] = 1.0 + nxt[0, 2]
        return vec

    def _round_value(self, pot, toks, out, leader) -> np.ndarray:
        v, n = self.v, self.n
        seats = seat_order(leader, out, n)
        m = len(seats)
        phase = "charge" if pot > 0 else "decharge"
        L = v.charge_throws if pot > 0 else v.decharge_throws
        P = 10 * m + v.nenette_min + 1
        S = np.zeros((m, m, P, 2 * m + 1))
        for lo, w, p in itertools.product(range(m), range(m), range(1, P)):
            if lo != w:
                S[lo, w, p] = self._next_value(pot, toks, out, leader, lo, w, p, seats)
        comps, signs, tables, lead = self._choices(seats, out, L)
        u = _round(v, phase, m, S, comps, signs, tables, lead)
        res = np.zeros((n, 3))
        for j, q in enumerate(seats):
            res[q] = u[2 * j], u[2 * j + 1], u[2 * m]
        for q in range(n):
            res[q, 2] = u[2 * m]
        return res

    def _choices(self, seats, out, L):
        """What each role maximises, or the table it plays (target, count, made, hand)."""
        m = len(seats)
        comps, signs = np.full(m, -1), np.zeros(m)
        tables = np.zeros((m, NH, 3, 2, NH), np.int64)
        lead = np.zeros((2, NH), np.int64)
        for j, q in enumerate(seats):
            kind, what = self.plays[q]
            if kind == "choose":
                objective = "pay" if sum(out) else what  # once someone is out, nobody left can win
                comps[j], signs[j] = (2 * j, -1.0) if objective == "pay" else (2 * j + 1, 1.0)
            elif what.kind == "random":
                tables[j] = RANDOM
                if j == 0:
                    lead[:] = RANDOM
            else:
                tables[j] = what.foll[0]
                if j == 0:
                    for made in range(1, L):
                        lead[made - 1] = what.lead[0, L - made - 1]
        return comps, signs, tables, lead



def equilibrium_tree(v: Variant, n: int, objective: str) -> Tree:
    return Tree(v, [("choose", objective)] * n)
