"""Exact expected length of a 2-player game of 421 when both players play "sec".

"Sec": the leader stops after its first throw, so the round's count is 1 and the
follower throws once too. Every round, each player's hand is then one independent
throw of three dice, whoever leads; the game is a Markov chain on
``(pot, tokens of seat 0, tokens of seat 1)`` whose transitions follow from docs/rules.md
alone:

* the round: the worse hand loses (the ranking is a total order, so only equal
  hands tie, and a roll-off between two players is a fair coin by symmetry); the
  payout is the winner's value, plus (cumulative phase) the loser's value if it is
  2 or more, at least ``nenette_min`` if the loser holds 221; with
  ``nenette_rescue`` and no combination on the table a 221 beats any other hand and
  is worth 4. ``fewer_throws_wins`` changes nothing (every player makes one throw),
  nor do ``charge_throws``/``decharge_throws``, ``followers`` or ``next_leader``.
* the charge: the loser takes ``min(payout, pot)``; the pot strictly decreases, so
  the charge is a DAG, walked pot by pot with exact probabilities;
* when the pot is empty a player with no token is out; with two players both end
  rules (``first_out`` and ``last_holder``) then end the game at once;
* the décharge: the winner gives ``min(payout, its tokens)``; the game ends when
  the winner reaches 0. The expected remaining rounds from each holding solve a
  linear system, solved exactly here with Fractions by Gaussian elimination
  (``exact=False`` uses numpy float64 instead, for very large token counts).

The hand tables come from ``four21sim.rules.dice`` (RANK, VALUE, CATEGORY), not from
tests/reference.py, so the two are independent.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from fractions import Fraction

import numpy as np

from four21sim.rules import dice

__all__ = ["one_throw_distribution", "round_outcome_distribution", "expected_rounds"]

NENETTE = dice.hand_index((2, 2, 1))


def one_throw_distribution() -> dict[int, Fraction]:
    """Probability of each hand index after one throw of three dice (216 outcomes)."""
    counts: dict[int, int] = defaultdict(int)
    for outcome in itertools.product(range(1, 7), repeat=3):
        counts[dice.hand_index(outcome)] += 1
    return {h: Fraction(c, 216) for h, c in counts.items()}


def _is_combination(h: int) -> bool:
    return dice.CATEGORY_NAMES[int(dice.CATEGORY[h])] in ("421", "brelan", "fiche", "suite")


def round_outcome_distribution(variant, phase: str) -> dict[tuple[int, int], Fraction]:
    """``{(loser, payout): probability}`` of one all-sec 2-player round.

    Seat 0 is either player (say the leader): by symmetry the distribution is the same
    with the seats swapped. ``payout`` is before the min with the pot / the winner's
    tokens.
    """
    r, vs = variant.ranking_index, variant.values_index
    cumulative = variant.cumulative in (phase, "both")
    p1 = one_throw_distribution()
    out: dict[tuple[int, int], Fraction] = defaultdict(Fraction)
    for h0, q0 in p1.items():
        for h1, q1 in p1.items():
            hands = (h0, h1)
            rescue = variant.nenette_rescue and not (_is_combination(h0) or _is_combination(h1))

            def key(h, rescue=rescue):
                return -4 if (rescue and h == NENETTE) else 4 * int(dice.RANK[r, h])

            def val(h, rescue=rescue):
                return 4 if (rescue and h == NENETTE) else int(dice.VALUE[vs, h])

            if key(h0) > key(h1):
                losers = [(0, Fraction(1))]
            elif key(h1) > key(h0):
                losers = [(1, Fraction(1))]
            else:                      # equal hands: a fair roll-off
                losers = [(0, Fraction(1, 2)), (1, Fraction(1, 2))]
            for loser, q in losers:
                winner = 1 - loser
                pay = val(hands[winner])
                if cumulative and val(hands[loser]) >= 2:
                    pay += val(hands[loser])
                if hands[loser] == NENETTE:
                    pay = max(pay, variant.nenette_min)
                out[(loser, pay)] += q0 * q1 * q
    assert sum(out.values()) == 1
    return dict(out)


def _solve_exact(a: list[list[Fraction]], b: list[Fraction]) -> list[Fraction]:
    """Solve a x = b by Gaussian elimination with Fractions (a is small and nonsingular)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        piv = next(i for i in range(c, n) if m[i][c] != 0)
        m[c], m[piv] = m[piv], m[c]
        inv = 1 / m[c][c]
        m[c] = [x * inv for x in m[c]]
        for i in range(n):
            if i != c and m[i][c] != 0:
                f = m[i][c]
                m[i] = [x - f * y for x, y in zip(m[i], m[c])]
    return [m[i][n] for i in range(n)]


def _decharge_expectations(variant, exact: bool = True) -> dict[int, Fraction | float]:
    """Expected décharge rounds from holdings (t0, N - t0), for t0 = 1..N-1."""
    n = variant.tokens
    dist = round_outcome_distribution(variant, "decharge")
    states = list(range(1, n))
    idx = {t0: i for i, t0 in enumerate(states)}
    # E[t0] - sum_{non-terminal next} p * E[next] = 1
    a = [[Fraction(0)] * len(states) for _ in states]
    b = [Fraction(1)] * len(states)
    for t0 in states:
        i = idx[t0]
        a[i][i] += 1
        for (loser, pay), p in dist.items():
            t = [t0, n - t0]
            winner = 1 - loser
            s = min(pay, t[winner])
            t[winner] -= s
            t[loser] += s
            if t[winner] == 0:
                continue          # the winner is out: the game ends
            a[i][idx[t[0]]] -= p
    if not states:
        return {}
    if exact:
        x = _solve_exact(a, b)
    else:
        x = np.linalg.solve(np.array(a, dtype=float), np.array(b, dtype=float))
    return {t0: x[idx[t0]] for t0 in states}


def expected_rounds(variant, exact: bool = True) -> dict:
    """Expected rounds in the charge, in the décharge and in total (Fractions if exact)."""
    n = variant.tokens
    dist = round_outcome_distribution(variant, "charge")
    # probability of visiting each charge state (pot, t0); t1 = n - pot - t0
    visit: dict[tuple[int, int], Fraction] = defaultdict(Fraction)
    visit[(n, 0)] = Fraction(1)
    end_of_charge: dict[int, Fraction] = defaultdict(Fraction)   # t0 when the pot empties
    for pot in range(n, 0, -1):
        for t0 in range(0, n - pot + 1):
            p_state = visit.get((pot, t0), Fraction(0))
            if p_state == 0:
                continue
            for (loser, pay), p in dist.items():
                s = min(pay, pot)
                new_t0 = t0 + s if loser == 0 else t0
                if pot - s == 0:
                    end_of_charge[new_t0] += p_state * p
                else:
                    visit[(pot - s, new_t0)] += p_state * p
    charge = sum(visit.values(), Fraction(0))
    assert sum(end_of_charge.values()) == 1
    d = _decharge_expectations(variant, exact=exact)
    decharge = sum((p * d[t0] for t0, p in end_of_charge.items() if 0 < t0 < n), Fraction(0) if exact else 0.0)
    return {"charge": charge, "decharge": decharge, "total": charge + decharge}


if __name__ == "__main__":  # pragma: no cover
    from four21sim import Variant

    for name in ("super421", "super421-lebon", "montreal", "classic"):
        e = expected_rounds(Variant.from_preset(name))
        print(f"{name:16s}", {k: f"{float(v):.6f}" for k, v in e.items()})
