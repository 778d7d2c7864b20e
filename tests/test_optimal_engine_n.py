"""The exact equilibrium as an engine policy at 3 to 5 players, checked against the solver's own decisions.

The tables of ``optimal`` (context mode 2 at 3 players, the compact mode 3 at 4 and 5: docs/engine.md)
are built from the solver's rounds. Here the plain-Python reference engine (tests/reference.py)
asks the solution itself, one decision at a time (``NSolution.keep``, with the state, the role
and the hands before it), and plays the same games die for die: any entry of a table in the
wrong place, any wrong way from a game to its row, makes a game differ. The seat P(pay) the
engine simulates is then held to the exact values (|z| <= 4 per seat: a correct engine fails
with probability below 1e-4 per seat).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import reference as R
from engine_twin import assert_same_records, compiled_policy, engine_records

from four21sim import Variant, simulate
from four21sim.exact import nplayer

CASES = [  # (preset, changes, players): the options that change what a context is, or where a state is
    ("super421", {"tokens": 4, "charge_throws": 2}, 3),  # a 2-throw phase (its leader's row was misread)
    ("classic", {"tokens": 4}, 3),
    ("super421", {"tokens": 4}, 4),
    ("super421-lebon", {"tokens": 4}, 4),
    ("montreal", {"tokens": 4}, 4),  # one-throw charge: no decision until the décharge
    ("classic", {"tokens": 3}, 4),  # fewer_throws_wins, cumulative payouts
    ("super421", {"tokens": 4, "end": "last_holder"}, 4),  # the games of 3 and 2 players in play
    ("super421", {"tokens": 4, "followers": "at_most", "decharge_throws": 2}, 4),
    ("super421-lebon", {"tokens": 4, "decharge_throws": 1}, 5),  # 5 players: four followers (decisions in the charge)
]


def _id(case) -> str:
    preset, changes, n = case
    return f"{preset}-{'-'.join(f'{k}={v}' for k, v in changes.items())}-{n}p"


# the 5-player case takes about twice the longest 4-player one
@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.slow) if c[2] == 5 else c for c in CASES],
                         ids=[_id(c) for c in CASES])
def test_engine_plays_what_the_solution_decides(case):
    preset, changes, n = case
    v = Variant.from_preset(preset, changes)
    twin_opt = R.SolutionPolicy(nplayer.solve(v, n, "pay"))
    lineups = [["optimal"] * n, (["greedy", "optimal", "random", "optimal", "sec"])[:n]]
    for k, names in enumerate(lineups):
        games = 40
        res = simulate(v, players=n, policies=names, games=games, seed=11 + k, records=True)
        twin = [twin_opt if p == "optimal" else compiled_policy(p, v, n) for p in names]
        want = R.play_games(v, n, twin, seed=11 + k, games=games)
        assert_same_records(engine_records(res.records), want, f"{_id(case)}, policies={names}")


@pytest.mark.parametrize("preset,tokens", [("super421", 5), ("super421-lebon", 4)])
def test_simulated_p_pay_at_4_players_matches_the_exact_equilibrium(preset, tokens):
    v = Variant.from_preset(preset, {"tokens": tokens})
    exact = nplayer.solve(v, 4, "pay").seat_p_pay
    games = 100_000
    m = simulate(v, players=4, policies="optimal", games=games, seed=23).measures()
    share = m[m.measure == "lose_share"].set_index("seat")["value"]
    for seat in range(4):
        se = math.sqrt(exact[seat] * (1 - exact[seat]) / games)  # shared losses only shrink the variance
        assert abs(share[seat] - exact[seat]) <= 4 * se, (seat, share[seat], exact[seat])


def test_compact_tables_are_refused_where_decisions_are_asked_one_at_a_time():
    from four21sim.policies import compile_decider, compile_policy
    v = Variant.from_preset("super421", {"tokens": 3})
    pol = compile_policy("optimal", v, 4)
    assert pol.ctx_mode == 3 and pol.aux.size > 0
    with pytest.raises(ValueError, match="context mode 3; allowed one decision at a time: the name 'optimal'"):
        compile_decider(pol, v, 4)


def test_tables_beyond_the_memory_cap_are_refused_with_their_size_before_any_solve(monkeypatch):
    from four21sim.policies import compile_policy
    from four21sim.policies import optimal as O
    v = Variant.from_preset("super421", {"tokens": 3})
    sol = nplayer.solve(v, 4, "pay")
    rows, blocks = O.compact_size(v, 4)
    lead, foll, aux = O.engine_tables_compact(sol)
    assert lead.shape == (blocks, 2, 56) and foll.shape[1:] == (2, 56)
    # each distinct row once: far fewer rows than contexts, and no row twice
    assert len(foll) < rows / 10 and len(np.unique(foll.reshape(len(foll), -1), axis=0)) == len(foll)
    # the size is the map from each context to its row: 4 bytes a context (docs/nplayer.md)
    monkeypatch.setattr(O, "MAX_TABLE_BYTES", rows * 4 - 9)
    big = Variant.from_preset("super421", {"tokens": 4})
    monkeypatch.setattr(nplayer, "solve", lambda *a, **k: pytest.fail("solved before the size was checked"))
    with pytest.raises(ValueError, match=r"^policies: the 4-player equilibrium of .* GiB of engine tables; allowed: "
                                         r"at most 0 GiB"):
        compile_policy("optimal", big, 4)
    # a study skips it with that reason (where the registry says why not), and play still decides turn by turn
    from four21sim.policies import REGISTRY
    spec = next(p for p in REGISTRY if p.name == "optimal")
    assert "GiB of engine tables" in spec.why_not(big, 4) and spec.why_not(big, 4, turn_by_turn=True) is None


def test_distinct_rows_are_numbered_in_order_and_hold_no_state_alive():
    """The compact tables' row store: a row seen again gets its first number; the table lists
    the rows in their numbers' order; and the decisions handed in are not kept (a view of
    each state's array kept them all: 4-player classic, 1,350 states of 29 MB, ran out of 24 GiB)."""
    import weakref

    from four21sim.policies.optimal import _NH, KEEP_DTYPE, _DistinctRows
    rng = np.random.default_rng(3)
    a = rng.integers(0, 84, (5, 2, _NH)).astype(KEEP_DTYPE)
    b = np.concatenate([a[3:4], rng.integers(0, 84, (2, 2, _NH)).astype(KEEP_DTYPE), a[0:1]])
    d = _DistinctRows()
    ids_a = d.add(a.copy())
    assert sorted(ids_a.tolist()) == list(range(5))
    probe = b.copy()
    alive = weakref.ref(probe)
    ids_b = d.add(probe)
    del probe
    assert alive() is None
    assert ids_b[0] == ids_a[3] and ids_b[3] == ids_a[0] and sorted(ids_b[1:3].tolist()) == [5, 6]
    table = d.table()
    assert table.shape == (7, 2, _NH) and table.flags.writeable
    np.testing.assert_array_equal(table[ids_a], a)
    np.testing.assert_array_equal(table[ids_b], b)
