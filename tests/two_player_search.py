"""The 2-player game searched from the rules alone: the witness of the exact 2-player solver
(four21sim.exact.two_player) in tests/test_solver_bruteforce.py and of the value of leading in
tests/test_leading.py.

Everything below the imports is written from docs/rules.md and docs/engine.md alone:
its own hands, rankings, values, round outcomes, payouts and token moves, and a
slow, plain-Python game-tree search. It does not use the solver's kernels or its
round table; ``four21sim.rules.dice.hand_index`` is used only to read the solver's
arrays, which are indexed by the package's hand numbers.

The search, for one game state (pot, leader's tokens, follower's tokens):

- the leader throws three dice: every one of the 216 ordered outcomes;
- holding a hand after ``m`` throws, with ``m`` below the phase's throw limit, it
  may stop, or keep any subset of its dice (every subset of the three positions,
  itertools.combinations) and re-throw the others: every one of the ``6**k``
  ordered outcomes of the ``k`` re-thrown dice (itertools.product);
- once it stops (or reaches the limit) after ``c`` throws, the follower plays
  the same way against (leader's hand, c): ``exact`` followers make exactly
  ``c`` throws, each re-throwing at least one die; ``at_most`` followers may stop
  after any throw;
- each side picks, at every decision, what maximises its own probability of
  winning the game; the 2-player game is constant-sum, so the follower minimises
  the leader's probability;
- a round's end (both hands known) moves tokens as docs/rules.md says and leads to a
  new state, whose value is the terminal payoff.

The within-round search is memoised on (hand, throws made) for the leader and on
(leader's hand, count, follower's hand, throws made) for the follower; the throw
outcomes of a kept subset are tallied once per subset (same sums, fewer
repeats). States of the charge are solved in order of increasing pot (the pot
only shrinks, which is asserted). The décharge has cycles: its states are
iterated (Gauss-Seidel) until no value changes by more than 1e-14.

Expected number of rounds: where two decisions are exactly as good (equal win
probability, within 1e-12), the game value does not care which is taken but the
game length may, and the solver breaks such ties by its own keep order. So the
search carries, next to the value, the smallest and the largest expected number
of rounds over every optimal way of breaking ties (at each decision, min and max
over the optimal choices; the choices at different decisions and states are
independent and the length is increasing in the length of every next state, so
this gives the min and max over all optimal policies). The solver's expected
rounds, in every state, must lie in that interval; where it is a single point
(checked below for most states) the comparison is exact.
"""

from __future__ import annotations

import itertools
from collections import Counter
from functools import lru_cache

from four21sim.rules.variants import Variant

# ====================================================================== the rules
# Hands are tuples of three dice sorted highest first: (4, 2, 1) is "421".


def srt(d) -> tuple:
    return tuple(sorted(d, reverse=True))


HANDS = sorted({srt(t) for t in itertools.product(range(1, 7), repeat=3)}, reverse=True)
assert len(HANDS) == 56
H421, H111, H221 = (4, 2, 1), (1, 1, 1), (2, 2, 1)
SUITES = [(6, 5, 4), (5, 4, 3), (4, 3, 2), (3, 2, 1)]


def is_brelan(h):
    return h[0] == h[1] == h[2]


def is_fiche(h):  # two aces and x = 2..6
    return h[1] == h[2] == 1 and h[0] >= 2


def is_combination(h):
    return h == H421 or is_brelan(h) or is_fiche(h) or h in SUITES


# plain hands: not a combination, not 221; "read as numbers", highest first
PLAIN = sorted((h for h in HANDS if not is_combination(h) and h != H221), reverse=True)
assert len(PLAIN) == 56 - 1 - 6 - 5 - 4 - 1


def _ranking(name):
    order = [H421, H111]
    for x in range(6, 1, -1):
        fiche, brelan = (x, 1, 1), (x, x, x)
        order += [fiche, brelan] if name == "super421" else [brelan, fiche]
    order += SUITES
    order += PLAIN + [H221] if name in ("super421", "montreal") else [H221] + PLAIN
    assert sorted(order) == sorted(HANDS)
    return {h: i for i, h in enumerate(order)}  # 0 = best


RANK = {name: _ranking(name) for name in ("super421", "montreal", "classic")}
# the tables of docs/rules.md, spelled out
assert [h for h, _ in sorted(RANK["super421"].items(), key=lambda kv: kv[1])][:16] == [
    srt(int(c) for c in s) for s in "421 111 611 666 511 555 411 444 311 333 211 222 654 543 432 321".split()]
assert [h for h, _ in sorted(RANK["montreal"].items(), key=lambda kv: kv[1])][:6] == [
    (4, 2, 1), (1, 1, 1), (6, 6, 6), (6, 1, 1), (5, 5, 5), (5, 1, 1)]
assert RANK["classic"][H221] == 16 and RANK["classic"][(6, 6, 5)] == 17 and RANK["super421"][H221] == 55


def hand_value(h, scheme):
    if h == H421:
        return 8 if scheme == "super421" else 10
    if h == H111:
        return 7
    if is_brelan(h) or is_fiche(h):
        return h[0]
    if h in SUITES:
        return 2
    if h == H221:
        return 1 if scheme == "super421" else 4
    return 1


def round_result(v: Variant, phase: str, hl, c, hf, f):
    """Leader's hand hl after c throws against the follower's hf after f throws.

    Returns a list of (probability, loser_is_leader, payout): one entry, or two
    of probability 1/2 for a tie settled by the fair roll-off.
    """
    rescue = v.nenette_rescue and not is_combination(hl) and not is_combination(hf)
    rank = RANK[v.ranking]

    def strength(h, thr):  # smaller is better
        rescued = rescue and h == H221
        return (0 if rescued else 1, 0 if rescued else rank[h], thr if v.fewer_throws_wins else 0)

    def val(h):
        return 4 if (rescue and h == H221) else hand_value(h, v.values)

    def payout(winner, loser):
        p = val(winner)
        if v.cumulative in (phase, "both") and val(loser) >= 2:
            p += val(loser)
        if loser == H221:
            p = max(p, v.nenette_min)
        return p

    sl, sf = strength(hl, c), strength(hf, f)
    if sl > sf:
        return [(1.0, True, payout(hf, hl))]
    if sf > sl:
        return [(1.0, False, payout(hl, hf))]
    return [(0.5, True, payout(hf, hl)), (0.5, False, payout(hl, hf))]


def next_state(v: Variant, pot, a, b, loser_is_leader, pay):
    """After a round of state (pot, a, b) (a = the leader's tokens).

    Returns ("end", leader_wins) or ("go", same_leader, (pot', a', b')) with a'
    the tokens of whoever leads the next round.
    """
    T = v.tokens
    if pot > 0:  # charge: the loser takes from the pot
        swing = min(pay, pot)
        pot2 = pot - swing
        a2, b2 = (a + swing, b) if loser_is_leader else (a, b + swing)
        if pot2 == 0 and a2 == 0:
            return ("end", True)
        if pot2 == 0 and b2 == 0:
            return ("end", False)
    else:  # décharge: the winner gives to the loser
        pot2 = 0
        if loser_is_leader:  # the follower won
            swing = min(pay, b)
            a2, b2 = a + swing, b - swing
            if b2 == 0:
                return ("end", False)
        else:
            swing = min(pay, a)
            a2, b2 = a - swing, b + swing
            if a2 == 0:
                return ("end", True)
    assert pot2 + a2 + b2 == T and min(pot2, a2, b2) >= 0
    if v.next_leader == "loser":
        same = loser_is_leader
    elif v.next_leader == "winner":
        same = not loser_is_leader
    else:  # next_seat: with 2 players, the one who did not lead
        same = False
    return ("go", same, (pot2, a2, b2) if same else (pot2, b2, a2))


def live_states(T):
    for pot in range(T + 1):
        for a in range(T + 1 - pot):
            b = T - pot - a
            if pot == 0 and (a == 0 or b == 0):
                continue
            yield (pot, a, b)


# ====================================================================== the dice


@lru_cache(maxsize=None)
def throw_dist(kept: tuple):
    """[(hand, probability)] after keeping ``kept`` and re-throwing the other dice."""
    n = 3 - len(kept)
    tally = Counter(srt(kept + o) for o in itertools.product(range(1, 7), repeat=n))
    return [(h, k / 6 ** n) for h, k in sorted(tally.items())]


@lru_cache(maxsize=None)
def rethrows(h: tuple):
    """Every distinct subset kept when re-throwing at least one die of hand h."""
    return sorted({tuple(h[i] for i in idx) for r in range(3) for idx in itertools.combinations(range(3), r)})


FIRST = throw_dist(())
assert abs(sum(p for _, p in FIRST) - 1) < 1e-15 and len(FIRST) == 56

# ====================================================================== the search
EPS_TIE = 1e-12  # decisions whose win probabilities differ by less are "equally good"


def _pick(options, maximise):
    """Choose among (value, rmin, rmax) triples: the best value; over the choices
    within EPS_TIE of it, the smallest rmin and the largest rmax."""
    best = max(o[0] for o in options) if maximise else min(o[0] for o in options)
    tied = [o for o in options if abs(o[0] - best) <= EPS_TIE]
    return (best, min(o[1] for o in tied), max(o[2] for o in tied))


def _mix(dist, table):
    """Expectation of table[hand] (a triple) over [(hand, p)]."""
    v = r0 = r1 = 0.0
    for h, p in dist:
        t = table[h]
        v += p * t[0]
        r0 += p * t[1]
        r1 += p * t[2]
    return (v, r0, r1)


def solve_round(v: Variant, state, V, R, q_of=None):
    """One round from ``state``, both sides playing optimally for the game.

    V[s] = P(leader of s wins the game); R[s] = (min, max) expected rounds from s.
    With ``q_of(loser_is_leader, w)`` (w: the leader's game-win probability after the
    round), the second and third results are instead ``1 +`` the min and max over the
    optimal policies of the expectation of ``q_of`` over the round's outcome.
    Returns (value, rounds_min, rounds_max, lead_values, foll_values) with
    lead_values[(made, h)] the leader's win probability holding h after ``made``
    throws and foll_values[(hl, c)] the follower's before its first throw.
    """
    pot, a, b = state
    phase = "charge" if pot > 0 else "decharge"
    L = v.charge_throws if pot > 0 else v.decharge_throws
    exact = v.followers == "exact"

    outcome_cache = {}

    def outcome(hl, c, hf, f):
        """(P(leader wins), rmin, rmax) once both hands are final; r = rounds after this one."""
        total = [0.0, 0.0, 0.0]
        for p, loser_is_leader, pay in round_result(v, phase, hl, c, hf, f):
            key = (loser_is_leader, pay)
            if key not in outcome_cache:
                nxt = next_state(v, pot, a, b, loser_is_leader, pay)
                if nxt[0] == "end":
                    outcome_cache[key] = (1.0 if nxt[1] else 0.0, 0.0, 0.0)
                else:
                    _, same, s2 = nxt
                    if pot > 0:
                        assert s2[0] < pot  # the charge only goes down
                    w = V[s2] if same else 1.0 - V[s2]
                    outcome_cache[key] = (w, R[s2][0], R[s2][1])
            o = outcome_cache[key]
            if q_of is not None:
                q = q_of(loser_is_leader, o[0])
                o = (o[0], q, q)
            total[0] += p * o[0]
            total[1] += p * o[1]
            total[2] += p * o[2]
        return tuple(total)

    def follower(hl, c):
        """Leader's triple before the follower's first throw, follower playing optimally."""
        # F[m][h]: holding h after m throws (leader's win probability, follower minimises)
        F = {c: {h: outcome(hl, c, h, c) for h in HANDS}}
        for m in range(c - 1, 0, -1):
            after = {}  # kept subset -> expectation over the re-throw
            Fm = {}
            for h in HANDS:
                opts = [] if exact else [outcome(hl, c, h, m)]  # stop now (at_most)
                for kept in rethrows(h):
                    if kept not in after:
                        after[kept] = _mix(throw_dist(kept), F[m + 1])
                    opts.append(after[kept])
                Fm[h] = _pick(opts, maximise=False)
            F[m] = Fm
        return _mix(FIRST, F[1])

    fstart = {(hl, c): follower(hl, c) for hl in HANDS for c in range(1, L + 1)}
    G = {L: {h: fstart[(h, L)] for h in HANDS}}
    for m in range(L - 1, 0, -1):
        after = {}
        Gm = {}
        for h in HANDS:
            opts = [fstart[(h, m)]]  # stop: the count is m
            for kept in rethrows(h):
                if kept not in after:
                    after[kept] = _mix(throw_dist(kept), G[m + 1])
                opts.append(after[kept])
            Gm[h] = _pick(opts, maximise=True)
        G[m] = Gm
    top = _mix(FIRST, G[1])
    lead_values = {(m, h): G[m][h][0] for m in G for h in HANDS}
    foll_values = {k: 1.0 - t[0] for k, t in fstart.items()}
    return top[0], 1.0 + top[1], 1.0 + top[2], lead_values, foll_values


@lru_cache(maxsize=None)
def brute_force(v: Variant, tol: float = 1e-14, max_sweeps: int = 2000):
    """Every live state's (value, rounds_min, rounds_max, lead_values, foll_values)."""
    T = v.tokens
    V, R, out = {}, {}, {}
    dech = [s for s in live_states(T) if s[0] == 0]
    for s in dech:
        V[s], R[s] = 0.5, (1.0, 1.0)
    for _ in range(max_sweeps):
        delta = 0.0
        for s in dech:
            val, r0, r1, lv, fv = solve_round(v, s, V, R)
            delta = max(delta, abs(val - V[s]), abs(r0 - R[s][0]), abs(r1 - R[s][1]))
            V[s], R[s] = val, (r0, r1)
            out[s] = (val, r0, r1, lv, fv)
        if delta < tol:
            break
    else:
        raise AssertionError("décharge did not converge")
    for pot in range(1, T + 1):
        for s in live_states(T):
            if s[0] == pot:
                val, r0, r1, lv, fv = solve_round(v, s, V, R)
                V[s], R[s] = val, (r0, r1)
                out[s] = (val, r0, r1, lv, fv)
    return out


# ====================================================================== the cases compared
def var(preset, *overrides):
    return Variant.from_preset(preset, list(overrides))


VARIANTS = {
    # one round (the loser loses the game), le bon, full throws: the published 60.0044 %
    "lebon-t1": var("super421-lebon", "tokens=1"),
    # one round, traditional followers, full throws
    "super-t1": var("super421", "tokens=1"),
    # the full preset rules with 2 and 3 tokens (3 throws in both phases)
    "super-t2": var("super421", "tokens=2"),
    "super-t3": var("super421", "tokens=3"),
    # 4 tokens: 3 décharge states with cycles, payouts larger than the pot
    "super-t4": var("super421", "tokens=4", "charge_throws=2", "decharge_throws=2"),
    # le bon with the winner leading, cumulative in the charge, nénette rescue
    "lebon-t3-winner": var("super421-lebon", "tokens=3", "charge_throws=2", "decharge_throws=2",
                           "next_leader=winner", "cumulative=charge", "nenette_rescue=yes"),
    # montreal: montreal ranking, sec charge, cumulative in both phases, nénette rescue
    "montreal-t3": var("montreal", "tokens=3"),
    # 4 tokens: the décharge's holdings (up to 3) are small enough for cumulative payouts to matter
    "montreal-t4": var("montreal", "tokens=4", "charge_throws=2", "decharge_throws=2"),
    "montreal-t2-winner": var("montreal", "tokens=2", "charge_throws=2", "decharge_throws=2",
                              "next_leader=winner", "fewer_throws_wins=yes", "followers=at_most"),
    # classic: classic ranking and values, at_most, fewer_throws_wins, cumulative in the
    # décharge, nenette_min 0, last_holder (the same as first_out with 2 players)
    "classic-t3": var("classic", "tokens=3"),
    "classic-t3-seat": var("classic", "tokens=3", "charge_throws=2", "decharge_throws=1",
                           "next_leader=next_seat", "nenette_min=3", "followers=exact"),
}
