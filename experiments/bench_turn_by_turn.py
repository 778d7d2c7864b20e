"""Time of ``optimal`` deciding turn by turn at 4 players: ``python experiments/bench_turn_by_turn.py``.

What ``four21sim play --players 4 --opponents optimal`` (and the trainer, the advisor) cost per
decision: the n-player equilibrium read from the disk cache (solved first if it is not there:
minutes), then games where every seat plays it one decision at a time
(:class:`four21sim.policies.optimal.OptimalPlayer`), with the trainer's keep values asked at
every decision too. Wall-clock times on a shared machine are noisy; the output is plain text
meant to be quoted as it is.
"""

from __future__ import annotations

import argparse
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="super421")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=20)
    args = ap.parse_args()
    from four21sim import Variant  # after --help: a solve's imports are not needed to read the options
    from four21sim.advice.play import Game
    from four21sim.advice.trainer import Trainer
    from four21sim.policies import compile_decider
    v = Variant.from_preset(args.variant)
    t = time.perf_counter()
    opt = compile_decider("optimal", v, args.players)
    seconds = time.perf_counter() - t
    print(f"{args.variant}, {args.players} players: the equilibrium loaded (or solved) in {seconds:.1f} s")
    tr = Trainer(v, args.players)
    decisions = rounds = 0
    t_keep = t_values = 0.0
    for seed in range(args.games):
        g = Game(v, args.players, seed)
        while not g.over:
            turn = g.turn
            a = time.perf_counter()
            k = opt(turn)
            b = time.perf_counter()
            tr.values(turn)
            t_keep, t_values = t_keep + b - a, t_values + time.perf_counter() - b
            decisions += 1
            g.play(k)
        rounds += g.rounds
    print(f"{args.games} games, {rounds} rounds, {decisions} decisions: {1000 * t_keep / decisions:.2f} ms a keep "
          f"(the round solved once per state), {1000 * t_values / decisions:.2f} ms the keep values of a decision")


if __name__ == "__main__":
    main()
