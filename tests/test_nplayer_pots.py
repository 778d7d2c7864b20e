"""The charge's rounds through the contexts of their own pot (``NG.Rounds(per_pot=True)``, the
default) against the contexts of the whole phase (``per_pot=False``, the way before).

A charge round pays at most the pot, so with a small pot more payouts lead to the same next
state and more contexts merge. Merging only joins contexts whose futures are the same, so the
values must be the same as through the whole phase's contexts, and each round's law over what
follows it the same; where a class of outcomes puts its probability may differ, so the
distributions are compared in each state's own form (``NG.canonical_dist``), which is itself
checked here against its definition, written again.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from four21sim import Variant
from four21sim.exact import _nplayer_game as NG
from four21sim.exact._nplayer_profile import _solve_profile

# (preset, overrides, players): payouts up to 8 or 10 (classic), pots up to the tokens, exact
# and at_most followers
CASES = [
    ("super421", [], 3),
    ("classic", ["tokens=9", "end=first_out"], 3),
    ("super421-lebon", ["tokens=7", "followers=at_most"], 3),
    ("super421", ["tokens=6"], 4),
]


def _profile(v, n, per_pot, monkeypatch):
    orig = NG.Rounds.__init__

    def init(self, *a, **k):
        k.setdefault("per_pot", per_pot)
        orig(self, *a, **k)
    with monkeypatch.context() as mp:
        mp.setattr(NG.Rounds, "__init__", init)
        game, rounds, _basis, V, dist, *_ = _solve_profile(v, n, "pay", 1e-13, 60, 3, {})
    return game, rounds, V, dist


def _same_future(game, s, a, b):
    """Whether outcomes a and b of state s (triples) lead to the same: written out field by field."""
    fields = (game.ended, game.nxt, game.sub, game.perm, game.shares)
    return all(np.array_equal(f[(s,) + a], f[(s,) + b]) for f in fields)


@pytest.mark.parametrize("preset,overrides,n", CASES)
def test_the_charge_by_pot_gives_the_phase_s_values_and_laws(preset, overrides, n, monkeypatch):
    v = Variant.from_preset(preset, overrides)
    game, rounds, V, dist = _profile(v, n, True, monkeypatch)
    _, whole, V0, dist0 = _profile(v, n, False, monkeypatch)
    assert np.abs(V - V0).max() <= 1e-14
    charge = np.flatnonzero(game.pot > 0)
    worst = max(np.abs(NG.canonical_dist(game, s, dist[s]) - NG.canonical_dist(game, s, dist0[s])).max()
                for s in charge)
    assert worst <= 1e-12  # (the masses of a class are added in another order)
    # the pots' contexts are fewer than the phase's where the pot is below the largest payout
    G = {q: rounds.contexts(n, "charge", (q,)).G for q in range(1, v.tokens + 1)}
    assert G[1] < whole.contexts(n, "charge").G
    assert max(G.values()) <= whole.contexts(n, "charge").G
    assert all(G[q] <= G[q + 1] for q in range(1, v.tokens))


def test_pots_whose_outcomes_fall_alike_share_their_contexts():
    v = Variant.from_preset("super421")  # payouts up to 8 (a 421): pots 8 to 11 pay alike
    rounds = NG.Rounds(NG.role_game(v, 3))
    sets = rounds.charge_sets(3)
    assert sets == [(q,) for q in range(1, 12)]
    rounds.prepare(3, "charge", sets)
    ids = [id(rounds.contexts(3, "charge", s)) for s in sets]
    assert len(set(ids[7:])) == 1 and len(set(ids[:8])) == 8


def test_a_batch_over_several_pots_uses_contexts_good_for_all_of_them():
    v = Variant.from_preset("super421")
    game = NG.role_game(v, 3)
    rng = np.random.default_rng(3)
    V = rng.random((game.size, 3))
    states = np.flatnonzero(np.isin(game.pot, [1, 5, 9]))
    S = NG.succs(game, states, V, {}, "pay")
    rounds = NG.Rounds(game)
    u, d = rounds.run(states, S, 3, want_dist=True)
    assert rounds.key(states)[2] == (1, 5, 9)
    for q in (1, 5, 9):
        at = np.flatnonzero(game.pot[states] == q)
        u1, d1 = NG.Rounds(game).run(states[at], S[at], 3, want_dist=True)
        assert np.abs(u[at] - u1).max() <= 1e-14
        for i, s in enumerate(states[at]):
            assert np.abs(NG.canonical_dist(game, s, d[at[i]]) - NG.canonical_dist(game, s, d1[i])).max() <= 1e-14


def test_a_batch_of_two_phases_is_refused():
    game = NG.role_game(Variant.from_preset("super421"), 3)
    states = [int(np.flatnonzero(game.pot == 0)[0]), int(np.flatnonzero(game.pot == 2)[0])]
    with pytest.raises(ValueError, match="one phase"):
        NG.Rounds(game).key(states)


def test_canonical_dist_puts_each_outcome_on_the_first_triple_with_its_future():
    v = Variant.from_preset("super421")
    game = NG.role_game(v, 3)
    rng = np.random.default_rng(7)
    triples = [t for t in itertools.product(range(3), range(3), range(game.P)) if game.ended[(0,) + t] >= 0]
    for s in rng.choice(game.size, 12, replace=False).tolist():
        d = np.zeros((3, 3, game.P))
        for t in triples:
            d[t] = rng.random()
        got = NG.canonical_dist(game, s, d)
        want = np.zeros_like(d)
        for t in triples:  # the first triple, in order, with the same future
            first = next(a for a in triples if _same_future(game, s, a, t))
            want[first] += d[t]
        assert np.abs(got - want).max() <= 1e-15
        # and a chain's step is the same through either
        W = rng.random((game.size, 3))
        S = NG.succs(game, [s], W, {}, "pay")[0]
        assert abs(np.einsum("lwp,lwpj->j", d, S) - np.einsum("lwp,lwpj->j", got, S)).max() <= 1e-14
