"""Fairness where it lives: who pays, tied groups instead of rankings, identical games counted once.

Definitions used by the sweep's tables and reports
--------------------------------------------------
paying seat
    the game's loser (docs/rules.md: under ``first_out`` the players still in who hold
    the most tokens; under ``last_holder`` the one left holding tokens). ``k`` tied
    losers pay ``1/k`` each, so the pay shares of a game sum to 1.
pay unfairness
    ``max_s |P(seat s pays) - 1/players|`` in percentage points, with a simultaneous
    95% interval (every seat's interval at the Bonferroni level; conservative, coverage at
    least 95%; ``stats.max_deviation_interval``). With 2 players it is also
    ``|P(seat 0 wins) - 1/2|``.
seat test
    Hotelling's T**2 (F form) that every seat's pay share is 1/players, on the per-game
    share vectors with the covariance from blocks of games: valid whatever the number
    of winners and losers (``stats.equal_shares_test``). Counts of configurations that
    "differ from fair" use Holm's step-down adjustment (family-wise 5%) over the
    distinct configurations of the study.
identical games
    two configurations whose every counter is equal (same seed) play the very same
    games (e.g. ``sec`` line-ups under rules that differ only in what nobody decides):
    they are one result, counted once.
fairness score (of a variant)
    the mean pay unfairness over the study's player counts, everyone playing the
    reference line-up, with a simultaneous 95% interval (Bonferroni over every seat of
    every player count). Variants are reported in
    tied groups: sorted by score, a variant joins the current group while its interval
    overlaps the interval of the group's first (fairest) member.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd

from .stats import max_deviation_interval

__all__ = ["games_identity", "hist_quantiles", "tied_groups", "score_with_interval"]


def games_identity(counters: dict) -> str:
    """A fingerprint of a configuration's games: equal for configurations with equal counters."""
    h = hashlib.sha1()
    for k in sorted(counters):
        a = np.ascontiguousarray(counters[k])
        h.update(k.encode())
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def hist_quantiles(counts, qs=(0.5, 0.9, 0.99)) -> list[int]:
    """Quantiles of an integer-valued histogram (``counts[v]`` = how often value ``v``):
    the smallest value whose cumulative share reaches each ``q``."""
    c = np.cumsum(np.asarray(counts, dtype=float))
    if c[-1] <= 0:
        return [-1 for _ in qs]
    return [int(np.searchsorted(c / c[-1], q - 1e-12)) for q in qs]


def tied_groups(scores: pd.Series, low: pd.Series, high: pd.Series) -> pd.Series:
    """Group labels (1, 2, ...) for values sorted by ``scores``: a value joins the current
    group while its interval overlaps the interval of the group's first member."""
    order = scores.sort_values(kind="stable").index
    groups = pd.Series(0, index=scores.index, dtype=int)
    g, head_high = 0, None
    for i in order:
        if head_high is None or low[i] > head_high:
            g += 1
            head_high = high[i]
        groups[i] = g
    return groups


def score_with_interval(shares: list[tuple], level: float = 0.95) -> tuple[float, float, float]:
    """Mean over configurations of the pay unfairness, with a simultaneous interval.

    ``shares``: one ``(mean, cov)`` of the pay-share vector per configuration. Every seat
    of every configuration is covered jointly (Bonferroni over all of them), so with
    probability at least ``level`` every configuration's largest gap is inside its bounds
    and the mean is inside the mean of the bounds.
    """
    family = sum(len(m) for m, _ in shares)
    b = np.array([max_deviation_interval(m, c, level, family) for m, c in shares])
    return float(b[:, 0].mean()), float(b[:, 1].mean()), float(b[:, 2].mean())
