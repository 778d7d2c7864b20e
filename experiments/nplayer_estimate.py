"""What an exact n-player solve would cost, from its parts measured at a small size.

Question: how long, and how much memory, would ``nplayer.solve`` take for a preset at 7 or 8
players (11 tokens), where one solve takes hours and an estimate must come first?

    python experiments/nplayer_estimate.py --preset super421 --players 7 [--tokens 11] [--sample 8]

In this process (numba's kernels from its cache): the round contexts of each phase are built
for ``--players`` (their time, and the peak resident memory after each: what a solve builds
before its first pass, whatever the tokens); then the rounds of a few décharge states and of
``--sample`` charge states are solved once as the profile's passes solve them (K = players
utilities, with the outcome distributions) and once as the certificate's (K = 2 players). The
game's states are those of ``--measure-tokens`` (default: players + 1, so that there is a
décharge with everyone in); a round's cost does not depend on the tokens, only on its contexts.

The estimate for ``--tokens``: every décharge state's round times the passes (``--passes``, 10 by
default: 5 to 10 measured at 3 to 6 players, with one pass more for the certificate), plus every
charge state's round once for the profile and once for the certificate; the memory is the
contexts' (measured) plus the game's outcome arrays (counted from their shapes, the largest
transient of ``role_game``) plus the round kernel's work arrays (counted). Printed as plain text to
quote; nothing is written. The machine is shared: times are of that moment, with its load.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from math import comb
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def rss_gib() -> float:
    """The peak resident memory of this process so far, in GiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def states(tokens: int, players: int) -> tuple[int, int]:
    """(décharge states, charge states) of the role game with every player in."""
    dech = comb(tokens - 1, players - 1) if tokens >= players else 0
    charge = sum(comb(tokens - pot + players - 1, players - 1) for pot in range(1, tokens + 1))
    return dech, charge


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", default="super421")
    ap.add_argument("--players", type=int, default=7)
    ap.add_argument("--tokens", type=int, default=11, help="the size estimated (default 11)")
    ap.add_argument("--measure-tokens", type=int, default=None, help="the game measured (default players + 1)")
    ap.add_argument("--sample", type=int, default=8, help="charge states timed (default 8)")
    ap.add_argument("--passes", type=int, default=10, help="décharge passes assumed (default 10)")
    a = ap.parse_args(argv)

    import numba
    import numpy as np

    from four21sim import Variant
    from four21sim.exact import _nplayer_game as NG

    n = a.players
    mt = a.measure_tokens or n + 1
    v = Variant.from_preset(a.preset, [f"tokens={mt}"])
    print(f"{a.preset} at {n} players: measured with {mt} tokens, estimated for {a.tokens}; "
          f"{numba.get_num_threads()} threads, load {os.getloadavg()[0]:.1f}")
    t0 = time.perf_counter()
    game = NG.role_game(v, n)
    rounds = NG.Rounds(game)
    print(f"  game of {game.size} states: {time.perf_counter() - t0:.1f} s, peak {rss_gib():.2f} GiB")
    G = {}
    for phase in NG.PHASES:
        t0 = time.perf_counter()
        ct = rounds.contexts(n, phase)
        G[phase] = ct.G + len(ct.fin_start) - 1
        print(f"  {phase} contexts: {time.perf_counter() - t0:.1f} s, forward {ct.info['forward']}, merged "
              f"{ct.info['merged']} ({ct.G:,} in all), {ct.info['outcomes']} outcomes; peak {rss_gib():.2f} GiB")
    rng = np.random.default_rng(0)
    V = rng.random((game.size, n))
    per = {}
    for phase, where in (("decharge", game.decharge()), ("charge", np.flatnonzero(game.pot > 0))):
        pick = np.sort(rng.choice(where, min(len(where), a.sample), replace=False))
        # states of one pot only: a batch of the charge is one pot's states
        pick = pick[game.pot[pick] == game.pot[pick[0]]] if phase == "charge" else pick
        S = NG.succs(game, pick, V, {}, "pay")
        t0 = time.perf_counter()
        rounds.run(pick, S, n, want_dist=True)
        t_prof = (time.perf_counter() - t0) / len(pick)
        t0 = time.perf_counter()
        rounds.best_responses(pick, S, np.moveaxis(S, -1, 1).copy(), want_dist=False)
        t_cert = (time.perf_counter() - t0) / len(pick)
        per[phase] = (t_prof, t_cert)
        print(f"  {phase}: {len(pick)} rounds, {t_prof:.2f} s a round (profile), {t_cert:.2f} s (certificate); "
              f"peak {rss_gib():.2f} GiB")
    dech, charge = states(a.tokens, n)
    most = game.P - 1 if game.P - 1 < mt else a.tokens  # the largest payout, where the tokens measured show it
    P = min(most, a.tokens) + 1
    hours = (dech * (a.passes * per["decharge"][0] + per["decharge"][1])
             + charge * (per["charge"][0] + per["charge"][1])) / 3600
    Ns = dech + charge
    game_gib = Ns * n * n * P * (25 + 11 * n + 8) / 2**30  # settle's arrays and the next roles' tokens
    nt = numba.get_num_threads()
    work_gib = max(nt * G[ph] * (2 * n * 8 + 8) + nt * G[ph] * 2 * 56 * 2 for ph in G) / 2**30
    ctx_gib = rss_gib()
    print(f"estimate for {a.tokens} tokens: {dech} décharge states, {charge} charge states; about {hours:.1f} hours "
          f"({a.passes} décharge passes + the certificate's, one charge pass each); memory about "
          f"{ctx_gib:.1f} GiB (contexts and this run) + {game_gib:.1f} GiB (the game's arrays, transient) "
          f"+ {work_gib:.1f} GiB (work arrays of the certificate)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
