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

import os

import pytest
import reference as R
from engine_twin import assert_same_records, check_twin, compiled_policy, engine_records

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


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_engine_matches_reference(case):
    preset, opts = case
    variant = Variant.from_preset(preset, opts)
    k = CASES.index(case)
    for j, players in enumerate(PLAYERS):
        # seat s plays POLICY_NAMES[(s + k + j) % 5]: across cases every policy sits at every seat
        names = [POLICY_NAMES[(s + k + j) % len(POLICY_NAMES)] for s in range(players)]
        check_twin(variant, players, names, seed=1000 * k + players, games=GAMES, label=_case_id(case))


@pytest.mark.parametrize("name", POLICY_NAMES)
def test_engine_matches_reference_single_policy_name(name):
    # a single policy name for every seat, as simulate also accepts
    from four21sim import simulate
    for preset in ("super421-lebon", "classic"):
        variant = Variant.from_preset(preset)
        for players in (2, 4):
            pols = [compiled_policy(name, variant, players)] * players
            result = simulate(variant, players=players, policies=name, games=GAMES, seed=7, records=True)
            assert_same_records(engine_records(result.records), R.play_games(variant, players, pols, 7, GAMES),
                                f"{preset}, players={players}, policies={name!r}")


def test_engine_matches_reference_big_seed_and_one_token():
    variant = Variant.from_preset("super421", {"tokens": 1})
    check_twin(variant, 2, ["random", "greedy"], seed=2**40 + 12345, games=4 * GAMES, label="tokens=1, big seed")
    variant = Variant.from_preset("montreal", {"tokens": 2, "end": "last_holder", "next_leader": "next_seat"})
    check_twin(variant, 3, ["random", "sec", "chase421"], seed=3, games=4 * GAMES, label="montreal tokens=2")


@pytest.mark.parametrize("preset", list(PRESETS))
def test_engine_matches_reference_with_the_optimal_policy(preset):
    # the exact 2-player policy reads its tables by (pot, own tokens): context mode 1
    variant = Variant.from_preset(preset, {"tokens": 7})
    for names in (["optimal", "optimal"], ["optimal", "random"], ["greedy", "optimal"]):
        check_twin(variant, 2, names, seed=11, games=GAMES, label=f"{preset} tokens=7")


def test_engine_matches_reference_with_the_largest_seed():
    variant = Variant.from_preset("super421")
    check_twin(variant, 2, ["table-aware", "chase421"], seed=2**64 - 1, games=GAMES, label="seed 2**64-1")
