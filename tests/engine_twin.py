"""The numba engine and the plain-Python reference engine (tests/reference.py) playing the same games.

The helpers of tests/test_engine_vs_reference.py, test_optimal3_engine.py and
test_optimal_engine_n.py: the policies compiled once by ``four21sim.policies.compile_policy``
and the same table objects given to the reference, so that a difference is an engine (or
reference) difference, never a policy one; the records compared exactly, the first game that
differs named field by field.
"""

from __future__ import annotations

import functools

import numpy as np
import reference as R

from four21sim import Variant


def _engine():
    """(simulate, compile_policy)."""
    from four21sim import simulate
    from four21sim.policies import compile_policy
    return simulate, compile_policy


@functools.lru_cache(maxsize=None)
def compiled_policy(name: str, variant: Variant, players: int):
    _, compile_policy = _engine()
    return compile_policy(name, variant, players)


def engine_records(df) -> np.ndarray:
    assert list(df.columns) == R.RECORD_FIELDS, f"record columns differ: {list(df.columns)}"
    # column by column: an int64/uint64 mix must not go through float64
    return np.column_stack([np.asarray(df[c].to_numpy()).astype(np.int64) for c in df.columns])


def assert_same_records(got: np.ndarray, want: np.ndarray, context: str) -> None:
    assert got.shape == want.shape, f"{context}: shape {got.shape} != reference {want.shape}"
    bad = np.flatnonzero((got != want).any(axis=1))
    if len(bad):
        g = int(bad[0])
        fields = [f"{f}: engine {got[g, i]} reference {want[g, i]}"
                  for i, f in enumerate(R.RECORD_FIELDS) if got[g, i] != want[g, i]]
        msg = (f"{context}: {len(bad)} of {len(got)} games differ; first is game {g}:\n  "
               + "\n  ".join(fields)
               + f"\nengine    row {got[g].tolist()}\nreference row {want[g].tolist()}")
        np.testing.assert_array_equal(got, want, err_msg=msg)


def check_twin(variant: Variant, players: int, names: list[str], seed: int, games: int, label: str) -> None:
    simulate, _ = _engine()
    pols = [compiled_policy(n, variant, players) for n in names]
    for p in pols:
        assert p.kind in ("table", "random") and p.ctx_mode in (0, 1, 2)
    result = simulate(variant, players=players, policies=list(names), games=games, seed=seed, records=True)
    got = engine_records(result.records)
    want = R.play_games(variant, players, pols, seed=seed, games=games)
    assert_same_records(got, want, f"{label}, players={players}, policies={names}, seed={seed}, games={games}")
