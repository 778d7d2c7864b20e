"""The last follower's outcomes judged once per group of hands (``NK.judge_last_level``) against every
hand judged (its ``every_hand`` way: ``judge_round`` for each context, hand and throws).

The groups rest on what ``judge_round`` reads of the last hand (its key only compared with the
others, its worth, 221 or not), a property of the rules kernel: a change of the rules that made the
outcome read more of it would show here, preset by preset, before any equilibrium moved.
"""

from __future__ import annotations

import numpy as np
import pytest

from four21sim import Variant
from four21sim.exact import _nplayer_game as NG
from four21sim.exact import _nplayer_kernels as NK
from four21sim.rules import kernel as R

# every preset (exact followers and at most the count; cumulative payouts, fewer throws wins, the
# nénette's minimum; Montreal's rescue, where every hand is judged either way), and the options
# the grouping reads: a cumulative charge, a nénette minimum of 4 (the payout read of a 221 loser)
CASES = [("super421", []), ("super421-lebon", []), ("classic", []), ("montreal", []),
         ("super421", ["cumulative=both", "nenette_min=4"]), ("classic", ["fewer_throws_wins=false"])]


@pytest.mark.parametrize("preset,overrides", CASES, ids=lambda x: str(x))
@pytest.mark.parametrize("m", [3, 4])
def test_groups_of_hands_give_every_hands_outcomes(preset, overrides, m):
    v = Variant.from_preset(preset, ["tokens=4", *overrides])
    rank, value, prm = NG.rule_arrays(v)
    exact = v.followers == "exact"
    for phase, ph in (("charge", R.CHARGE), ("decharge", R.DECHARGE)):
        fw = NG.forward_contexts(v, m, phase)
        rh, rf = fw.rep_h[-1], fw.rep_f[-1]
        grouped = NK.judge_last_level(rh, rf, m, exact, ph, v.tokens, rank, value, prm, False)
        every = NK.judge_last_level(rh, rf, m, exact, ph, v.tokens, rank, value, prm, True)
        for a, b in zip(grouped, every):
            assert np.array_equal(a, b), (preset, overrides, m, phase)
        # and the outcomes are the forward contexts' own (the solver's path)
        assert np.array_equal(fw.trans[-1], grouped[0]) and np.array_equal(fw.out_data, grouped[2])
