"""Policy tournaments with common random numbers, and a best-response stand-in for 3+ players.

``tournament`` plays every ordered pair of policies (A, B): A in one seat and B in
all the others, A taking each seat in turn, every line-up on the same games (the
same seed and game indices, hence the same dice streams as far as the decisions
agree). A's score is its win share averaged over the seats; its interval comes
from the per-game average over the line-ups, so the correlation the common
random numbers create is accounted for, not ignored.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .._util.checks import check_int
from ..engine.simulation import SHARE_UNIT, simulate, win_units
from ..engine.stats import Z95
from ..policies import REGISTRY, Policy, compile_policy, resolve_policies, table_policy
from ..policies.heuristics import threshold_leader
from ..policies.plugin import is_plugin, load_plugin, plugin_name, tabulate
from ..rules import dice
from ..rules.variants import Variant, as_variant

__all__ = ["tournament", "head_to_head", "threshold_policy", "DEFAULT_POLICIES"]

_CHUNK = 250_000


def _shares(records: pd.DataFrame, seat: int) -> np.ndarray:
    """Seat's win share per game (1/k when k players share the win)."""
    return win_units(records["win_mask"].to_numpy(), seat) / SHARE_UNIT


def head_to_head(variant: Variant, a, b, players: int = 2, games: int = 100_000, seed: int = 0,
                 first_game: int = 0) -> dict:
    """Policy ``a`` in one seat against ``b`` in the others, ``a`` taking every seat on the same games.

    Returns a dict with A's mean win share (``score``), its 95% interval, the
    share of a seat under equal play (``fair`` = 1/players) and A's share by seat.
    """
    games = check_int("games", games, 1)
    total = total_sq = 0.0
    by_seat = np.zeros(players)
    done = 0
    while done < games:
        n = min(_CHUNK, games - done)
        per_game = np.zeros(n)
        for s in range(players):
            lineup = [b] * players
            lineup[s] = a
            res = simulate(variant, players, lineup, games=n, seed=seed, first_game=first_game + done,
                           records=True)
            sh = _shares(res.records, s)
            per_game += sh
            by_seat[s] += sh.sum()
        per_game /= players
        total += per_game.sum()
        total_sq += (per_game ** 2).sum()
        done += n
    mean = total / games
    var = max(total_sq / games - mean * mean, 0.0)
    half = Z95 * math.sqrt(var / games) if games > 1 else math.nan
    return {"score": mean, "ci_low": mean - half, "ci_high": mean + half, "fair": 1 / players,
            "by_seat": by_seat / games}


# the policies a tournament plays by default: every registered one that needs no solve
DEFAULT_POLICIES = tuple(p.name for p in REGISTRY if not p.costly)


def _entrant(p, variant: Variant, players: int):
    """(name, policy) of one entrant: a registry name, a Policy, or a plug-in (tabulated here)."""
    if isinstance(p, str) and ":" in p:
        p = load_plugin(p)
    if is_plugin(p):
        return plugin_name(p), tabulate(p, variant, players)
    return (p.name if isinstance(p, Policy) else str(p)), p


def tournament(variant: Variant | str, policies: Sequence | None = None, players: int = 2, games: int = 100_000,
               seed: int = 0) -> pd.DataFrame:
    """Every ordered pair of policies, seats rotated on common random numbers.

    Parameters
    ----------
    variant : Variant or str
    policies : sequence, optional
        Registry names (:data:`four21sim.policies.REGISTRY`; default: every one that needs
        no solve), Policy objects, or plug-in policies: callables taking a
        :class:`~four21sim.rules.state.Turn`, or ``MODULE:NAME`` / ``FILE.py:NAME`` strings,
        tabulated by :func:`four21sim.policies.plugin.tabulate` (context mode 0 for a policy
        that never reads the tokens, else 1 with 2 players).
    players : int
        A plays one seat, B every other seat; A takes each seat in turn.
    games : int
        Games per line-up.
    seed : int

    Returns
    -------
    DataFrame
        One row per ordered pair: ``policy_a, policy_b, players, games, score``
        (A's mean win share), ``ci_low, ci_high`` (95%), ``fair`` (1/players),
        ``edge`` (score - fair), ``score_seat0`` (A's share when leading first) and
        ``mirror``: with 2 players, (B, A) plays exactly the games of (A, B) with the
        roles swapped (its score is one minus A's), so the second of each such pair is
        marked and must not be counted again in any test or tally.
    """
    variant = as_variant(variant)
    games = check_int("games", games, 1)
    entrants = [_entrant(p, variant, players) for p in (DEFAULT_POLICIES if policies is None else policies)]
    if len(entrants) < 2:
        raise ValueError("policies: a tournament needs at least 2 policies")
    names = [n for n, _ in entrants]
    policies = [p for _, p in entrants]
    for i, name in enumerate(names):
        if name in names[:i]:
            raise ValueError(f"policies: {name!r} is given twice; allowed: distinct policies (a policy never "
                             "meets itself in a tournament)")
    pols = {n: resolve_policies(variant, players, [p] * players)[0] for n, p in zip(names, policies)}
    rows = []
    for ia, na in enumerate(names):
        for ib, nb in enumerate(names):
            if na == nb:
                continue
            r = head_to_head(variant, pols[na], pols[nb], players, games, seed)
            rows.append(dict(policy_a=na, policy_b=nb, players=players, games=games, score=r["score"],
                             ci_low=r["ci_low"], ci_high=r["ci_high"], fair=r["fair"],
                             edge=r["score"] - r["fair"], score_seat0=r["by_seat"][0],
                             mirror=players == 2 and ib < ia))
    return pd.DataFrame(rows)


def threshold_policy(variant: Variant, threshold: int) -> Policy:
    """``table-aware`` with its leader's stopping threshold set to hand index ``threshold``."""
    base = compile_policy("table-aware", variant)
    lead = base.lead.copy()
    lead[0] = threshold_leader(variant, threshold)
    return table_policy(f"table-aware@{dice.hand_name(threshold)}", variant, lead, base.foll, 0, None,
                        {"threshold": dice.hand_name(threshold)})
