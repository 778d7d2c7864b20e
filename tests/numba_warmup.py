"""Compile the package's kernels into numba's on-disk cache before the test workers start.

Run by ``conftest.py`` in the pytest-xdist controller, as two processes side by side (one
per core), each compiling about half of the kernels: without it both workers compile the same
kernels at once when their first tests need them (about a minute of each core on a fresh
clone), and every command line a test starts before that finishes compiles them again.
Nothing is asserted here and nothing is kept but numba's cache; the tests check the numbers.

``python tests/numba_warmup.py solver`` (the n-player solver and the best response to a
table) or ``... engine`` (the engine, its policies, the 2-player solver, the single-turn odds
the kernels of the tests' 4-player game tree and the n-player rounds of states side by side).
The split keeps the two about equal: a minute or so each, cold, on a 2-core machine.
"""

import os
import sys


def solver() -> None:
    from four21sim.exact import nplayer
    from four21sim.policies.against import best_response
    from four21sim.rules.variants import Variant

    for preset, n in [("super421", 4), ("montreal", 3), ("classic", 3)]:
        v = Variant.from_preset(preset, ["tokens=2"])
        for objective in ("pay", "win"):
            nplayer.solve(v, n, objective)
    best_response(Variant.from_preset("super421", ["tokens=2"]), 3, "greedy")


def engine() -> None:
    from four21sim.engine.simulation import simulate
    from four21sim.exact import game, odds
    from four21sim.rules.variants import Variant

    for preset in ("super421", "super421-lebon", "montreal", "classic"):
        for n, lineup in [(2, "greedy"), (4, "greedy"), (2, "optimal"), (3, "table-aware")]:
            v = Variant.from_preset(preset, ["tokens=3"])
            simulate(v, n, lineup, games=50, seed=1, threads=1)
        game.solve(Variant.from_preset(preset, ["tokens=3"]), 2)
    odds.turn_odds()
    # the 4-player game tree's own kernels (tests/nplayer_tree.py), on the smallest game
    import nplayer_tree as tree

    small = Variant.from_preset("super421", ["tokens=1"])
    tree.equilibrium_tree(small, 3, "pay").value(1, (0, 0, 0), (0, 0, 0), 0)
    _rounds_side_by_side()


def _rounds_side_by_side() -> None:
    """The n-player rounds of states side by side (``Rounds(side_by_side=True)``): only large
    batches take them in a solve, so the small solves above never compile them; tests/
    test_nplayer_lanes.py and the first solve of a preset's size do (some 30 s, cold)."""
    import numpy as np

    from four21sim.exact import _nplayer_game as NG
    from four21sim.rules.variants import Variant

    game = NG.role_game(Variant.from_preset("super421", ["tokens=2"]), 3)
    side = NG.Rounds(game, side_by_side=True)
    states = game.charge_groups()[0][:1]
    m = int(game.m[states[0]])
    S = np.zeros((len(states), game.n, game.n, game.P, m))
    for want in (True, False):
        side.run(states, S, m, want_dist=want)
    side.best_responses(states, S, np.zeros((len(states), m, game.n, game.n, game.P)), want_dist=True)


PARTS = {"solver": solver, "engine": engine}
"""The halves, by the name a process is started with (conftest.py starts one of each)."""

if __name__ == "__main__":
    os.environ["FOUR21SIM_CACHE_DIR"] = "off"  # compile, do not store solutions: the tests solve their own
    PARTS[sys.argv[1]]()
