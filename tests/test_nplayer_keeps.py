"""One decision's keep values at 4 players (``exact.nplayer.keep_values``) against the brute-force tree.

Independent anchor: the full game tree of tests/nplayer_tree.py (every complete
history of hands and throws before a player, judged by the rules as restated there; no
follower context, no round kernel of the package). For one round of 4 players (1 token:
the round's loser pays) the tree gives, for each player in each history, its utilities
when its turn ends on each hand after each number of throws; the keep values follow here
by one expectation over the dice thrown (the tree's own keep -> hand probabilities) and
the later throws of the same turn played best for the chooser, ties to the first keep in
the documented order. The last follower's ends are judged here directly.
"""

from __future__ import annotations

import itertools

import nplayer_tree as BF
import numpy as np
import pytest
from reference import RANK_OF, is_combination, value_of

from four21sim import Variant
from four21sim.exact import nplayer as NP
from four21sim.rules.dice import FULL_KEEP, HAND_KEEPS, HANDS, N_HAND_KEEPS

# the module's game tree (every history of a 4-player round) takes minutes of CPU to build
pytestmark = pytest.mark.slow

NH = 56
N = 4


@pytest.fixture(scope="module")
def game():
    """The solution, the tree's S (utilities after each outcome) and its values per history."""
    v = Variant.from_preset("super421", ["tokens=1"])
    sol = NP.solve(v, N)
    tree = BF.equilibrium_tree(v, N, "pay")
    seats = list(range(N))
    out = (0,) * N
    L = v.charge_throws
    P = 10 * N + v.nenette_min + 1
    S = np.zeros((N, N, P, 2 * N + 1))
    for lo, w, p in itertools.product(range(N), range(N), range(1, P)):
        if lo != w:
            S[lo, w, p] = tree._next_value(v.tokens, (0,) * N, out, 0, lo, w, p, seats)
    comps, signs, tables, _ = tree._choices(seats, out, L)
    rank = np.array([RANK_OF[v.ranking][h] for h in HANDS], dtype=np.int64)
    args = (np.asarray(comps, np.int64), np.asarray(signs, np.float64), tables, rank,
            (BF.M_START, BF.M_HAND, BF.M_PROB), BF.P0, BF.KEEP_LIST, BF.KEEP_COUNT)
    val = np.array([value_of(h, v.values) for h in HANDS], dtype=np.int64)
    comb = np.array([is_combination(h) for h in HANDS])
    flags = np.array([v.fewer_throws_wins, v.nenette_rescue, v.cumulative in ("charge", "both"), v.nenette_min],
                     dtype=np.int64)
    V = {3: BF._last_level(N, L, 1, S, *args, val, comb, flags)}
    for k in (2, 1):
        V[k] = BF._level(k, N, L, 1, V[k + 1], *args)
    return dict(v=v, sol=sol, S=S, V=V, L=L, rank=rank, val=val, flags=flags)


def _history_index(hands, L: int) -> int:
    """The tree's number of a history (exact followers: their throws are the leader's count)."""
    idx = hands[0] * L + (L - 1)
    for h in hands[1:]:
        idx = idx * NH + h
    return idx


def _ends(g, role: int, hands) -> np.ndarray:
    """``term[f-1, h, comp]`` of the player in ``role`` after ``hands`` (the leader threw L times)."""
    L = g["L"]
    term = np.zeros((L, NH, g["S"].shape[3]))
    if role == 0:
        for c in range(1, L + 1):
            for h in range(NH):
                term[c - 1, h] = g["V"][1][h * L + c - 1]
        return term
    if role < N - 1:
        base = _history_index(hands, L) * NH
        term[L - 1] = g["V"][role + 1][base:base + NH]
        return term
    key, worth = np.zeros(N, np.int64), np.zeros(N, np.int64)
    full, throws = np.array(list(hands) + [0]), np.full(N, L)
    for h in range(NH):  # Super 421: no rescue, no fewer-throws order, a non-cumulative charge
        full[-1] = h
        BF._keys(full, throws, N, False, g["rank"], g["val"], False, key, worth)
        BF._add_outcomes(key, worth, full, N, False, g["v"].nenette_min, g["S"], term[L - 1, h])
    return term


def _brute_keep_values(term, limit: int, may_stop: bool, comp: int, made: int, hand: int) -> dict:
    """P(pay) of the chooser (component ``comp``) after each legal keep, its later throws played
    to minimise it (the first keep in HAND_KEEPS order unless another is better by 1e-12)."""
    level = term[limit - 1]
    for m in range(limit - 1, made, -1):
        kv = BF.M[:FULL_KEEP] @ level
        new = np.empty_like(level)
        for h in range(NH):
            best = None
            for k in HAND_KEEPS[h, :N_HAND_KEEPS[h]]:
                if k == FULL_KEEP + h and not may_stop:
                    continue
                row = term[m - 1, h] if k == FULL_KEEP + h else kv[k]
                if best is None or row[comp] < best[comp] - 1e-12:
                    best = row
            new[h] = best
        level = new
    kv = BF.M[:FULL_KEEP] @ level
    return {int(k): float(term[made - 1, hand, comp] if k == FULL_KEEP + hand else kv[k, comp])
            for k in HAND_KEEPS[hand, :N_HAND_KEEPS[hand]] if may_stop or k != FULL_KEEP + hand}


SITUATIONS = [  # (role, hands before, made)
    (0, (), 1), (0, (), 2),
    (1, (HANDS.index((6, 5, 4)),), 1), (1, (HANDS.index((6, 6, 2)),), 2),
    (2, (HANDS.index((4, 2, 1)), HANDS.index((3, 2, 1))), 1),
    (3, (HANDS.index((5, 5, 3)), HANDS.index((2, 2, 1)), HANDS.index((6, 4, 3))), 1),
    (3, (HANDS.index((6, 6, 6)), HANDS.index((4, 4, 1)), HANDS.index((5, 3, 1))), 2),
]


@pytest.mark.parametrize("situation", SITUATIONS, ids=lambda s: f"role{s[0]}-made{s[2]}")
def test_keep_values_match_the_game_tree(game, situation):
    role, hands, made = situation
    sol, L = game["sol"], game["L"]
    state = sol.states[sol.start]
    term = _ends(game, role, hands)
    for hand in range(NH):
        ours = NP.keep_values(sol, state, role, hands, (L,) * role, made, hand)
        ref = _brute_keep_values(term, L, role == 0, 2 * role, made, hand)
        assert set(ours) == set(ref)
        for k in ref:  # utilities are P(not paying); the tree's component is P(pay)
            assert ours[k] == pytest.approx(1.0 - ref[k], abs=1e-12), (hand, k)
        best = min(ref.values())
        first = next(k for k in HAND_KEEPS[hand, :N_HAND_KEEPS[hand]] if k in ref and ref[k] <= best + 1e-12)
        assert sol.keep(state, role, hands, (L,) * role, made, hand) == first


def test_keep_values_sum_to_the_state_value(game):
    """The best keep after the first throw, averaged over that throw, is the leader's value."""
    sol = game["sol"]
    state = sol.states[sol.start]
    total = sum(BF.P0[h] * max(NP.keep_values(sol, state, 0, (), (), 1, h).values()) for h in range(NH))
    assert total == pytest.approx(sol.value[sol.start, 0], abs=1e-12)


def test_keep_values_refuse_bad_situations(game):
    sol = game["sol"]
    state = sol.states[sol.start]
    with pytest.raises(ValueError, match="made: 3 is not allowed"):
        NP.keep_values(sol, state, 0, (), (), 3, 0)
    with pytest.raises(ValueError, match="role: 4 is not allowed"):
        NP.keep_values(sol, state, 4, (), (), 1, 0)
    with pytest.raises(ValueError, match="state: .* is not allowed"):
        NP.keep_values(sol, (0, (1, 0, 0, 0)), 0, (), (), 1, 0)
    with pytest.raises(ValueError, match="players: 2 in play is not allowed"):
        NP.in_play(sol, 2)
    assert NP.in_play(sol, N) is sol
