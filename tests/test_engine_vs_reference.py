"""The numba engine against the plain-Python reference (tests/reference.py): same
seed, same games, the same per-game records, exactly.

Every preset, every preset with each option flipped one at a time, with 2, 3, 4 and 8
players and mixed policies across the seats. The policies are compiled once by
``four21sim.policies.compile_policy`` and the same table objects are given to the
reference, so a difference is an engine (or reference) difference, never a policy one.

``FOUR21_XCHECK_GAMES`` (default 100) sets the
number of games per case.
"""

from __future__ import annotations

import functools
import os

import numpy as np
import pytest
import reference as R

from four21sim import Variant
from four21sim.rules.variants import OPTION_TABLE, PRESETS

GAMES = int(os.environ.get("FOUR21_XCHECK_GAMES", "100"))
POLICY_NAMES = ("sec", "chase421", "greedy", "table-aware", "random")
PLAYERS = (2, 3, 4, 8)

# every value each option is flipped to (values equal to the preset's are skipped): the values
# the option registry says the rule space explores, so that a new option is twin-checked
# without anyone remembering to add it here. Only the token counts are cut to two (the twin
# is plain Python): a small game and the classic preset's 21.
_FEWER = {"tokens": (3, 21)}
FLIPS: dict[str, tuple] = {o.name: _FEWER.get(o.name, o.explore) for o in OPTION_TABLE}


def _cases() -> list[tuple[str, dict]]:
    cases = []
    for preset in PRESETS:
        cases.append((preset, {}))
        base = PRESETS[preset]
        for option, values in FLIPS.items():
            for value in values:
                if getattr(base, option) != value:
                    cases.append((preset, {option: value}))
    return cases


CASES = _cases()


def _case_id(case) -> str:
    preset, opts = case
    return preset + "".join(f"-{k}={v}" for k, v in opts.items())


def _engine():
    """(simulate, compile_policy)."""
    from four21sim import simulate
    from four21sim.policies import compile_policy
    return simulate, compile_policy


@functools.lru_cache(maxsize=None)
def _compiled(name: str, variant: Variant, players: int):
    _, compile_policy = _engine()
    return compile_policy(name, variant, players)


def _engine_records(df) -> np.ndarray:
    assert list(df.columns) == R.RECORD_FIELDS, f"record columns differ: {list(df.columns)}"
    # column by column: an int64/uint64 mix must not go through float64
    return np.column_stack([np.asarray(df[c].to_numpy()).astype(np.int64) for c in df.columns])


def _assert_same(got: np.ndarray, want: np.ndarray, context: str) -> None:
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


def _check(variant: Variant, players: int, names: list[str], seed: int, games: int, label: str) -> None:
    simulate, _ = _engine()
    pols = [_compiled(n, variant, players) for n in names]
    for p in pols:
        assert p.kind in ("table", "random") and p.ctx_mode in (0, 1, 2)
    result = simulate(variant, players=players, policies=list(names), games=games, seed=seed, records=True)
    got = _engine_records(result.records)
    want = R.play_games(variant, players, pols, seed=seed, games=games)
    _assert_same(got, want, f"{label}, players={players}, policies={names}, seed={seed}, games={games}")


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_engine_matches_reference(case):
    preset, opts = case
    variant = Variant.from_preset(preset, opts)
    k = CASES.index(case)
    for j, players in enumerate(PLAYERS):
        # seat s plays POLICY_NAMES[(s + k + j) % 5]: across cases every policy sits at every seat
        names = [POLICY_NAMES[(s + k + j) % len(POLICY_NAMES)] for s in range(players)]
        _check(variant, players, names, seed=1000 * k + players, games=GAMES, label=_case_id(case))


@pytest.mark.parametrize("name", POLICY_NAMES)
def test_engine_matches_reference_single_policy_name(name):
    # a single policy name for every seat, as simulate also accepts
    simulate, _ = _engine()
    for preset in ("super421-lebon", "classic"):
        variant = Variant.from_preset(preset)
        for players in (2, 4):
            pols = [_compiled(name, variant, players)] * players
            result = simulate(variant, players=players, policies=name, games=GAMES, seed=7, records=True)
            _assert_same(_engine_records(result.records), R.play_games(variant, players, pols, 7, GAMES),
                         f"{preset}, players={players}, policies={name!r}")


def test_engine_matches_reference_big_seed_and_one_token():
    variant = Variant.from_preset("super421", {"tokens": 1})
    _check(variant, 2, ["random", "greedy"], seed=2**40 + 12345, games=4 * GAMES, label="tokens=1, big seed")
    variant = Variant.from_preset("montreal", {"tokens": 2, "end": "last_holder", "next_leader": "next_seat"})
    _check(variant, 3, ["random", "sec", "chase421"], seed=3, games=4 * GAMES, label="montreal tokens=2")


@pytest.mark.parametrize("preset", list(PRESETS))
def test_engine_matches_reference_with_the_optimal_policy(preset):
    # the exact 2-player policy reads its tables by (pot, own tokens): context mode 1
    variant = Variant.from_preset(preset, {"tokens": 7})
    for names in (["optimal", "optimal"], ["optimal", "random"], ["greedy", "optimal"]):
        _check(variant, 2, names, seed=11, games=GAMES, label=f"{preset} tokens=7")


def test_engine_matches_reference_with_the_largest_seed():
    variant = Variant.from_preset("super421")
    _check(variant, 2, ["table-aware", "chase421"], seed=2**64 - 1, games=GAMES, label="seed 2**64-1")
