"""Measurements on simulated games: each seat's share of the loss, a deviator's P(pay), and the
gain of deviations from a profile with common random numbers and an interval
(:func:`measure_gains`). Why these measures: :mod:`four21sim.analysis.approx`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..._util.checks import check_int
from ...engine.simulation import SHARE_UNIT, simulate, win_units
from ...engine.stats import Z95
from ...policies import Policy, compile_policy
from ...rules.variants import MAX_PLAYERS, MIN_PLAYERS, Variant, as_variant
from .family import Profile

_CHUNK = 200_000  # games per simulate call with records (memory: about 200 bytes a game)


def pay_shares(variant: Variant, players: int, lineup: Sequence, games: int, seed: int, first_game: int = 0,
               threads: int | None = None) -> np.ndarray:
    """Each seat's share of the loss in every game: an array ``(games, players)`` whose rows sum to 1.

    Parameters
    ----------
    variant : Variant or str
    players : int
    lineup : sequence
        One policy (name or :class:`~four21sim.policies.Policy`) per seat.
    games : int
        The games ``first_game, first_game + 1, ...`` of ``seed`` (docs/engine.md).
    seed, first_game : int
    threads : int, optional

    Returns
    -------
    ndarray of float, shape (games, players)
        Seat ``s``'s share of game ``g``'s loss: 1/k if it is one of the k losers
        (``lose_mask`` of the game's record), else 0.
    """
    variant = as_variant(variant)
    games = check_int("games", games, 1)
    out = np.empty((games, players))
    done = 0
    while done < games:
        n = min(_CHUNK, games - done)
        res = simulate(variant, players, list(lineup), games=n, seed=seed, first_game=first_game + done,
                       records=True, threads=threads)
        mask = res.records["lose_mask"].to_numpy()
        for s in range(players):
            out[done:done + n, s] = win_units(mask, s) / SHARE_UNIT
        done += n
    return out


def deviator_pay(variant: Variant, players: int, deviation, profile, games: int, seed: int,
                 threads: int | None = None) -> np.ndarray:
    """The deviator's P(pay) per game, averaged over the seats it takes in turn.

    Parameters
    ----------
    variant : Variant or str
    players : int
    deviation, profile : Policy or str
        For every seat ``s``, ``deviation`` plays seat ``s`` and ``profile`` every
        other seat, on the same games (``seed``, games ``0 .. games - 1``).
    games, seed : int
    threads : int, optional

    Returns
    -------
    ndarray of float, shape (games,)
        The mean over ``s`` of seat ``s``'s loss share in game ``g``.
    """
    total = np.zeros(games)
    for s in range(players):
        lineup = [profile] * players
        lineup[s] = deviation
        total += pay_shares(variant, players, lineup, games, seed, threads=threads)[:, s]
    return total / players


def _as_policy(p, variant: Variant, players: int) -> Policy:
    if isinstance(p, Profile):
        return p.policy()
    return compile_policy(p, variant, players)


def measure_gains(variant: Variant | str, players: int, profile, deviations: dict, games: int, seed: int,
                  threads: int | None = None) -> pd.DataFrame:
    """The gain of each deviation against a profile, on common random numbers, with 95% intervals.

    Parameters
    ----------
    variant : Variant or str
    players : int
        2 to 8.
    profile : Profile, Policy or str
        What every other seat plays (and every seat in the reference line-up).
    deviations : dict
        Name -> deviation (Profile, Policy or policy name).
    games : int
        Games per line-up; every line-up plays the same games (``seed``).
    seed : int
    threads : int, optional

    Returns
    -------
    DataFrame
        One row per deviation: ``deviation``, ``p_pay_profile`` (the deviator's
        P(pay) when it plays the profile, averaged over the seats: ``1/players``
        exactly when the profile is one policy for everyone), ``p_pay_deviator``,
        ``gain`` = ``p_pay_profile - p_pay_deviator`` (positive: the deviator pays
        less), ``gain_low``, ``gain_high`` (95% normal interval over games of the
        per-game paired difference averaged over seats), ``games``.
    """
    variant = as_variant(variant)
    players = check_int("players", players, MIN_PLAYERS, MAX_PLAYERS)
    games = check_int("games", games, 2)
    seed = check_int("seed", seed, 0, 2 ** 64 - 1)
    if not isinstance(deviations, dict) or not deviations:
        raise ValueError(f"deviations: {deviations!r} is not allowed; allowed: a non-empty dict name -> policy")
    prof = _as_policy(profile, variant, players)
    base = pay_shares(variant, players, [prof] * players, games, seed, threads=threads).mean(axis=1)
    rows = []
    for name, dev in deviations.items():
        d = deviator_pay(variant, players, _as_policy(dev, variant, players), prof, games, seed, threads)
        diff = base - d
        mean = float(diff.mean())
        half = Z95 * float(diff.std(ddof=1)) / math.sqrt(games)
        rows.append(dict(deviation=str(name), p_pay_profile=float(base.mean()), p_pay_deviator=float(d.mean()),
                         gain=mean, gain_low=mean - half, gain_high=mean + half, games=games))
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ the search
