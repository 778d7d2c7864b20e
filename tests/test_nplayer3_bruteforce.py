"""The n-player solver at 3 players against a brute-force game tree written here from docs/rules.md.

With 1 to 3 tokens every game is a finite tree of rounds (under ``first_out`` no
state comes back; under ``last_holder`` with 2 tokens the 2-player game left is
one round), so every state's values follow by plain recursion, each round by
backward induction over its full tree: the leader's throws and keeps, the first
follower's for every (hand, count) it can face, the second follower's for every
(hands, throws) before it. Nothing here reads the solver: the round's loser,
winner and payout are judged from the rules (tests/reference.py's ranking and
values), roll-offs are fair shares, the throw probabilities are counted from
dice, settlement and the end of the game are restated below. Only the encodings
of hands and keeps come from ``four21sim.rules.dice``, with the documented order of
keeps (stop first, then more dice kept), which settles ties within 1e-12 and so
decides the *other* players' values.

The tree carries for every role both P(paying) and the win share, and the
expected number of rounds, so each state's whole vector is compared; under ``pay`` the
value of leading (four21sim.exact.leading) is checked on the same tree.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np
import pytest
from reference import RANK_OF, is_combination, value_of

from four21sim import Variant
from four21sim.exact.nplayer import solve
from four21sim.rules.dice import FULL_KEEP, HAND_KEEPS, HANDS, KEEPS, N_HAND_KEEPS

NH = 56
H221 = HANDS.index((2, 2, 1))
TIE = 1e-12


# --------------------------------------------------------------------- dice
def _transition_matrix() -> np.ndarray:
    """M[k, h]: probability that keeping the dice of keep k and throwing the rest gives hand h."""
    M = np.zeros((len(KEEPS), NH))
    for k, kept in enumerate(KEEPS):
        n = 3 - len(kept)
        outcomes = list(itertools.product(range(1, 7), repeat=n))
        for o in outcomes:
            M[k, HANDS.index(tuple(sorted(kept + o, reverse=True)))] += 1 / len(outcomes)
    return M


M = _transition_matrix()
P0 = M[0]  # keep nothing: the first throw


def _turn(vals: np.ndarray, limit: int, may_stop: bool, own: int, sign: float) -> np.ndarray:
    """Expected component vector before a turn's first throw.

    ``vals[..., h, f-1, :]``: the components when the turn ends on hand h after f
    throws. The player maximises ``sign * component[own]``, taking the first keep
    in HAND_KEEPS order unless a later one is better by more than 1e-12.
    """
    level = vals[..., :, limit - 1, :]
    for made in range(limit - 1, 0, -1):
        stop = vals[..., :, made - 1, :]
        kv = np.matmul(M, level)  # (..., keep, comp)
        new = np.empty_like(level)
        for h in range(NH):
            best_v = None
            for k in HAND_KEEPS[h, :N_HAND_KEEPS[h]]:
                if k == FULL_KEEP + h:
                    if not may_stop:
                        continue
                    v = stop[..., h, :]
                else:
                    v = kv[..., k, :]
                if best_v is None:
                    best_v = v.copy()
                    continue
                better = sign * v[..., own] > sign * best_v[..., own] + TIE
                best_v[better] = v[better]
            new[..., h, :] = best_v
        level = new
    return np.einsum("h,...hc->...c", P0, level)


# ------------------------------------------------------------- judging a round
def _hand_facts(variant: Variant):
    rank = np.array([RANK_OF[variant.ranking][h] for h in HANDS])
    val = np.array([value_of(h, variant.values) for h in HANDS])
    comb = np.array([is_combination(h) for h in HANDS])
    return rank, val, comb


@lru_cache(maxsize=None)
def _judged(variant: Variant, n: int, phase: str):
    """For every final (hand, throws) of the n players, broadcast over axes
    (h0, t0, h1, t1, ...): ``share[l][w]`` (probability that l loses and w wins) and the payout."""
    L = variant.charge_throws if phase == "charge" else variant.decharge_throws
    rank, val, comb = _hand_facts(variant)
    shape = (NH, L) * n
    hs, ts = [], []
    for i in range(n):
        sh = [1] * (2 * n)
        sh[2 * i] = NH
        hs.append(np.arange(NH).reshape(sh))
        sh = [1] * (2 * n)
        sh[2 * i + 1] = L
        ts.append(np.arange(1, L + 1).reshape(sh))
    no_comb = np.ones(shape, dtype=bool)
    for i in range(n):
        no_comb = no_comb & ~comb[hs[i]]
    rescued = [np.broadcast_to(variant.nenette_rescue & no_comb & (hs[i] == H221), shape) for i in range(n)]
    keys, vals = [], []
    for i in range(n):
        extra = ts[i] if variant.fewer_throws_wins else 0
        keys.append(np.where(rescued[i], extra - 4, 4 * rank[hs[i]] + extra).astype(np.int64) + np.zeros(shape, int))
        vals.append(np.where(rescued[i], 4, val[hs[i]]) + np.zeros(shape, int))
    worst = np.max(keys, axis=0)
    n_worst = sum((k == worst).astype(int) for k in keys)
    share = [[None] * n for _ in range(n)]
    for lo in range(n):
        others = [i for i in range(n) if i != lo]
        best = np.min([keys[i] for i in others], axis=0)
        n_best = sum((keys[i] == best).astype(int) for i in others)
        for w in range(n):
            if w == lo:
                continue
            share[lo][w] = (keys[lo] == worst) / n_worst * (keys[w] == best) / n_best
    # the payout: the same whichever tied player a roll-off picks (tied players hold the same hand)
    lo_rep = np.argmax(np.array(keys) == worst, axis=0)
    kk = np.array(keys, dtype=float)
    kk[lo_rep[None] == np.arange(n).reshape((n,) + (1,) * (2 * n))] = np.inf
    w_rep = np.argmin(kk, axis=0)
    V = np.array(vals)
    pay = np.take_along_axis(V, w_rep[None], 0)[0]
    if variant.cumulative in (phase, "both"):
        pay = pay + (np.where(V >= 2, V, 0).sum(0) - np.where(np.take_along_axis(V, w_rep[None], 0)[0] >= 2,
                                                                 np.take_along_axis(V, w_rep[None], 0)[0], 0))
    H = np.array([np.broadcast_to(h, shape) for h in hs])
    loser_hand = np.take_along_axis(H, lo_rep[None], 0)[0]
    pay = np.where(loser_hand == H221, np.maximum(pay, variant.nenette_min), pay)
    return share, pay


# ------------------------------------------------------------- the game
def _settle(variant: Variant, n: int, pot: int, toks: tuple, lo: int, w: int, p: int):
    """docs/rules.md: the charge, the décharge, going out, the end, the next leader."""
    t = list(toks)
    if pot > 0:
        moved = min(p, pot)
        pot -= moved
        t[lo] += moved
        out = [i for i in range(n) if t[i] == 0] if pot == 0 else []
    else:
        moved = min(p, t[w])
        t[w] -= moved
        t[lo] += moved
        out = [w] if t[w] == 0 else []
    still = [i for i in range(n) if i not in out]
    if out and (variant.end == "first_out" or len(still) == 1):
        top = max(t[i] for i in still)
        payers = [i for i in still if t[i] == top]
        pay = np.array([1 / len(payers) if i in payers else 0.0 for i in range(n)])
        win = np.array([1 / len(out) if i in out else 0.0 for i in range(n)])
        return ("end", pay, win)
    leader = {"loser": lo, "winner": w, "next_seat": 1}[variant.next_leader]
    while leader in out:
        leader = (leader + 1) % n
    seats = [(leader + k) % n for k in range(n) if (leader + k) % n in still]
    return ("go", pot, tuple(t[i] for i in seats), seats, out)


def _values(variant: Variant, n: int, objective: str):
    """value(pot, toks) -> array [role, (p_pay, p_win, rounds)] of the n-player game, by recursion."""
    @lru_cache(maxsize=None)
    def value(pot: int, toks: tuple) -> np.ndarray:
        phase = "charge" if pot > 0 else "decharge"
        L = variant.charge_throws if pot > 0 else variant.decharge_throws
        share, pay = _judged(variant, n, phase)
        # components: p_pay(role j) at 3j, p_win at 3j+1, rounds at 3j+2; chosen on -p_pay or p_win
        C = 3 * n
        S = {}
        for p in np.unique(pay):
            for lo in range(n):
                for w in range(n):
                    if lo == w:
                        continue
                    r = _settle(variant, n, pot, toks, lo, w, int(p))
                    vec = np.zeros(C)
                    if r[0] == "end":
                        vec[0::3], vec[1::3], vec[2::3] = r[1], r[2], 1.0
                        S[lo, w, p] = vec
                        continue
                    _, pot2, toks2, seats, out = r
                    sub = value(pot2, toks2) if not out else sub_value(pot2, toks2)
                    for j in range(n):
                        if j in out:
                            vec[3 * j:3 * j + 3] = [0.0, 1.0, sub[0, 2]]
                        else:
                            r2 = seats.index(j)
                            vec[3 * j:3 * j + 3] = sub[r2] if not out else [sub[r2, 0], 0.0, sub[r2, 2]]
                    vec[2::3] += 1
                    S[lo, w, p] = vec
        own, sign = (0, -1.0) if objective == "pay" else (1, 1.0)
        may_stop = variant.followers == "at_most"
        lead = np.empty((NH, L, C))
        # outcomes with the same vector of what follows (payouts beyond the tokens, players
        # whose places do not matter) are one term: their chances are added before the vector
        # is spread over the components (the sum is the same; the tree 5 times faster)
        groups: dict = {}
        for key, vec in S.items():
            groups.setdefault(vec.tobytes(), (vec, []))[1].append(key)
        for c in range(1, L + 1):
            cut = (slice(None), c - 1) + (slice(None), slice(0, c)) * (n - 1)
            is_p = {p: pay[cut] == p for p in {k[2] for k in S}}
            x = np.zeros(pay[cut].shape + (C,))
            for vec, keys in groups.values():
                chance = sum(is_p[p] * share[lo][w][cut] for lo, w, p in keys)
                x += chance[..., None] * vec
            for role in range(n - 1, 0, -1):  # the last follower first
                x = _turn(x, c, may_stop, 3 * role + own, sign)
            lead[:, c - 1] = x
        out = _turn(lead, L, True, own, sign)
        return out.reshape(n, 3)

    def sub_value(pot, toks):
        return _values(variant, n - 1, objective)(pot, toks)

    return value


CASES = [
    ("super421", ["tokens=1"], "pay"),
    ("super421", ["tokens=2", "charge_throws=2", "decharge_throws=2"], "pay"),
    ("super421", ["tokens=2", "charge_throws=2", "decharge_throws=2"], "win"),
    ("super421-lebon", ["tokens=2", "charge_throws=2", "decharge_throws=2", "next_leader=winner"], "pay"),
    ("montreal", ["tokens=3", "decharge_throws=2"], "pay"),
    ("classic", ["tokens=2", "decharge_throws=2", "next_leader=next_seat"], "pay"),
    ("classic", ["tokens=2", "charge_throws=2"], "win"),
]


# the option sets that change what a follower must know of the hands before it (the cumulative
# sum, the rescue, who won, the throws, players going out)
CASES += [("super421", ["tokens=2", "charge_throws=2", "decharge_throws=2"] + o, "pay") for o in (
    ["cumulative=both", "nenette_rescue=true", "next_leader=winner"],
    ["fewer_throws_wins=true", "followers=at_most", "end=last_holder"],
    ["next_leader=next_seat", "nenette_min=0", "cumulative=charge"])]


@pytest.mark.parametrize("preset,overrides,objective", CASES)
def test_every_state_matches_the_game_tree(preset, overrides, objective):
    v = Variant.from_preset(preset, overrides)
    sol = solve(v, 3, objective)
    value = _values(v, 3, objective)
    assert sol.converged and sol.exploitability < 1e-12
    for s, (pot, toks) in enumerate(sol.states):
        ref = value(pot, toks)
        assert np.allclose(sol.p_pay[s], ref[:, 0], atol=1e-12, rtol=0), (pot, toks)
        assert np.allclose(sol.p_win[s], ref[:, 1], atol=1e-12, rtol=0), (pot, toks)
        assert sol.rounds[s] == pytest.approx(ref[0, 2], abs=1e-12), (pot, toks)
    if objective == "pay":
        _check_lead_values(v, sol, value)


def _check_lead_values(v: Variant, sol, tree) -> None:
    """The value of leading (four21sim.exact.leading) from the tree: a player's P(pay) following
    (second or last, equally likely) minus leading, in every state; the first round's; the visits."""
    from four21sim.exact.leading import lead_summary_n, lead_values_n
    lv = lead_values_n(sol)
    for r in lv.itertuples():
        a, b, c = r.tokens_me, r.tokens_role1, r.tokens_role2
        me_leading = tree(r.pot, (a, b, c))[0, 0]
        # the next seat leads: I play last; the seat after me leads: I play second
        me_following = (tree(r.pot, (b, c, a))[2, 0] + tree(r.pot, (c, a, b))[1, 0]) / 2
        assert r.lead_value == pytest.approx(me_following - me_leading, abs=1e-9), (r.pot, a, b, c)
    first = lead_summary_n(sol)["first_round"]
    start = tree(v.tokens, (0, 0, 0))
    assert first == pytest.approx((start[1, 0] + start[2, 0]) / 2 - start[0, 0], abs=1e-9)
    if v.end == "first_out":  # every round is played with all three in: the visits add up to the game's length
        assert lv["visits"].sum() == pytest.approx(start[0, 2], abs=1e-9)
