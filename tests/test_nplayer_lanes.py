"""The round kernel's three ways through a level: contexts side by side in vector lanes
(``NK._level_lanes``), one context at a time (``Rounds(lanes=False)``, the plain loops of
``NK.player_turn`` and ``NK._turn_both``), and states side by side
(``Rounds(side_by_side=True)``, ``NK.rounds_side_by_side``, which large batches of the
profile's rounds and of the certificate's take).

The lanes only reorder the work; every sum and comparison is the same, so the three must agree
bit for bit: utilities, outcome distributions, every keep, the certificate's best replies.
The utilities after the round are drawn on a coarse grid (multiples of 1/4), so that many
keeps tie exactly and the tie order is exercised, and at random (ties within KEEP_TIE apart).
Every tie order (``nplayer.TIE_ORDERS``, and two of ``ties.ROLE_ORDERS``) is written twice
too (``NK._best_tied``, scalar, and ``NK._choose_tied_on_lanes``): each is run on the grid of
ties, and the default at random too.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest

from four21sim import Variant
from four21sim.exact import _nplayer_game as NG
from four21sim.exact import _nplayer_kernels as NK
from four21sim.exact.nplayer import TIE_ORDERS, check_tie

# (preset, overrides, players): exact followers and `at_most` (stopping early is a keep), one,
# two and three throws, counts 1 to 3, 2 players (the component count read at run time) to 4
CASES = [
    ("super421", ["tokens=5"], 3),
    ("super421-lebon", ["tokens=5"], 3),
    ("classic", ["tokens=6"], 3),
    ("montreal", ["tokens=4", "decharge_throws=2"], 3),
    ("super421", ["tokens=7", "followers=at_most", "charge_throws=2"], 2),
    ("super421-lebon", ["tokens=4"], 4),
]
# 4 players only on the grid of ties, a few states per group (the contexts are many); the tie
# orders other than the default only there too (at random, exact ties are rare), and on two
# 3-player cases: a leader and two followers already close the ring of "next players" (the
# second follower's next is the leader), and classic adds the split by throws (the 4-player
# case under every order cost a minute of the suite)
TIE_CASES = (CASES[0], CASES[2])
PARAMS = [(*c, coarse, tie) for c in CASES for coarse in (True, False) for tie in TIE_ORDERS
          if (c[2] < 4 or coarse) and (coarse or tie == "first") and (tie == "first" or c in TIE_CASES)]
# the selection rules of a fixed role (ties.ROLE_ORDERS: the component and sign read at run time), once each way
PARAMS += [(*CASES[0], True, tie) for tie in ("favour-1", "disfavour-0")]


def _utilities(rng, shape, coarse: bool) -> np.ndarray:
    return rng.integers(0, 5, shape) / 4.0 if coarse else rng.random(shape)


def _groups(game: NG.Game) -> list[np.ndarray]:
    """A few states (as many as players in play) of each phase and each number of players in play,
    as the kernel takes them.

    One group per (players in play, phase), not one per pot: the kernels never see a state, only
    the contexts ``Rounds.group`` picks from its number of players in play and its phase (the pot
    only says "charge"), and the utilities ``S`` the test draws; the groups of the other pots ran
    the same contexts on other random draws (7 groups instead of 2 for classic, a third of the
    time), and every round still solves every context of its level on the grid of ties.
    """
    out, seen = [], set()
    for grp in [game.decharge()] + game.charge_groups():
        for m in sorted(set(game.m[grp].tolist())):
            sel = grp[game.m[grp] == m]
            key = (m, bool(game.pot[sel[0]] > 0))
            if key not in seen:
                seen.add(key)
                out.append(sel[:m])
    return out


@pytest.mark.parametrize("preset,overrides,n,coarse,tie", PARAMS, ids=lambda x: str(x))
def test_lanes_give_the_numbers_of_one_context_at_a_time(preset, overrides, n, coarse, tie):
    v = Variant.from_preset(preset, overrides)
    game = NG.role_game(v, n)
    fast, plain = NG.Rounds(game, tie=check_tie(tie)), NG.Rounds(game, lanes=False, tie=check_tie(tie))
    rng = np.random.default_rng(421)
    for states in _groups(game):
        m = int(game.m[states[0]])
        S = _utilities(rng, (len(states), game.n, game.n, game.P, m), coarse)
        u_a, d_a = fast.run(states, S, m, want_dist=True)
        u_b, d_b = plain.run(states, S, m, want_dist=True)
        np.testing.assert_array_equal(u_a, u_b)
        np.testing.assert_array_equal(d_a, d_b)
        for b, s in enumerate(states[:3]):
            _, dec_a, lead_a = fast.decisions(int(s), S[b], m)
            _, dec_b, lead_b = plain.decisions(int(s), S[b], m)
            np.testing.assert_array_equal(dec_a, dec_b)
            np.testing.assert_array_equal(lead_a, lead_b)
        S_dev = _utilities(rng, (len(states), m, game.n, game.n, game.P), coarse)
        w_a, e_a = fast.best_responses(states, S, S_dev, want_dist=True)
        w_b, e_b = plain.best_responses(states, S, S_dev, want_dist=True)
        np.testing.assert_array_equal(w_a, w_b)
        np.testing.assert_array_equal(e_a, e_b)


# states side by side: every tie order on Super 421 at 3 players (the grid of ties), classic with the
# default order only (its split by throws is the same code under every order; its other orders cost
# some 25 s of the suite, the plain way of a batch of 37 states at a time being slow)
SIDE_PARAMS = [p for p in PARAMS if p[-1] == "first" or p[0] != "classic"]


@pytest.mark.slow  # 7 to 13 s of CPU for most of its cases
@pytest.mark.parametrize("preset,overrides,n,coarse,tie", SIDE_PARAMS, ids=lambda x: str(x))
def test_states_side_by_side_give_the_numbers_of_one_context_at_a_time(preset, overrides, n, coarse, tie):
    v = Variant.from_preset(preset, overrides)
    game = NG.role_game(v, n)
    side = NG.Rounds(game, side_by_side=True, tie=check_tie(tie))
    plain = NG.Rounds(game, lanes=False, tie=check_tie(tie))
    rng = np.random.default_rng(42)
    for states in _groups(game):
        m = int(game.m[states[0]])
        # more states than one group of lanes (states may repeat: each entry is its own round),
        # so that a full group and a partial one are both met
        batch = np.resize(states, NK._SW + 5 if n < 4 else 3)
        S = _utilities(rng, (len(batch), game.n, game.n, game.P, m), coarse)
        # one plain run for both of side's (without the distribution, the utilities are the same
        # numbers): one run of the witness fewer, about a seventh of this test's time
        u_b, d_b = plain.run(batch, S, m, want_dist=True)
        for want in (True, False):
            u_a, d_a = side.run(batch, S, m, want_dist=want)
            np.testing.assert_array_equal(u_a, u_b)
            assert (d_a is None) == (not want)
            if want:
                np.testing.assert_array_equal(d_a, d_b)
        S_dev = _utilities(rng, (len(batch), m, game.n, game.n, game.P), coarse)
        w_a, e_a = side.best_responses(batch, S, S_dev, want_dist=True)
        w_b, e_b = plain.best_responses(batch, S, S_dev, want_dist=True)
        np.testing.assert_array_equal(w_a, w_b)
        np.testing.assert_array_equal(e_a, e_b)


def test_states_go_side_by_side_where_that_is_cheaper_and_fits():
    """The automatic choice: large batches of the profile's rounds go side by side, small ones
    and work arrays over the memory bound do not; plays other than the profile never do."""
    v = Variant.from_preset("classic", ["tokens=6"])
    game = NG.role_game(v, 3)
    rounds = NG.Rounds(game)
    ct = rounds.contexts(3, "decharge")
    threads = numba.get_num_threads()
    assert rounds.side_by_side_pays(ct, 4 * NK._SW * threads, 3)
    assert not rounds.side_by_side_pays(ct, 2, 3)
    assert not NG.Rounds(game, lanes=False).side_by_side_pays(ct, 4 * NK._SW * threads, 3)
    assert NG.Rounds(game, side_by_side=True).side_by_side_pays(ct, 1, 3)
    huge = NG.Contexts(**{**ct.__dict__, "lvl_start": ct.lvl_start * 0 + 10**7})
    assert not rounds.side_by_side_pays(huge, 4 * NK._SW * threads, 3)


@pytest.mark.parametrize("tie", [t for t in TIE_ORDERS if t != "first"])
def test_every_tie_order_takes_other_keeps_than_the_default_on_the_grid_of_ties(tie):
    """The tie order reaches the kernels: on the grid of ties the keeps differ from the default's
    (and the same order twice gives the same keeps)."""
    v = Variant.from_preset("super421", ["tokens=5"])
    game = NG.role_game(v, 3)
    states = game.decharge()[:4]
    S = _utilities(np.random.default_rng(7), (len(states), game.n, game.n, game.P, 3), True)
    base, other = NG.Rounds(game), NG.Rounds(game, tie=check_tie(tie))
    differ = False
    for b, s in enumerate(states):
        _, dec_a, lead_a = base.decisions(int(s), S[b], 3)
        _, dec_b, lead_b = other.decisions(int(s), S[b], 3)
        _, dec_c, _ = NG.Rounds(game, tie=check_tie(tie)).decisions(int(s), S[b], 3)
        np.testing.assert_array_equal(dec_b, dec_c)
        differ |= not (np.array_equal(dec_a, dec_b) and np.array_equal(lead_a, lead_b))
    assert differ
