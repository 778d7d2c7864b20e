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

from ..engine.stats import max_deviation_interval

__all__ = ["games_identity", "hist_quantiles", "tied_groups", "score_with_interval", "paired_pay_differences"]


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


def paired_pay_differences(variants: dict, players: int, policy: str = "greedy", games: int = 200_000,
                           seed: int = 0, chunk: int = 200_000) -> pd.DataFrame:
    """Differences in who pays between variants, on common random numbers, with paired intervals.

    Every variant plays games ``0 .. games-1`` of the same ``seed``: game ``g`` starts from
    the same dice stream in each (docs/engine.md), so the games agree as far as the rules
    let them. For every pair of variants and every seat, the per-game difference of the
    seat's pay share (1/k among k losers) is averaged; its 95% interval comes from the
    per-game differences (paired), and ``independent_half`` is the half-width the same
    games would give if the two variants had been played on independent dice, for
    comparison.

    Parameters
    ----------
    variants : dict
        label -> Variant (or preset name).
    players : int
    policy : str
        Everyone plays it.
    games, seed : int
    chunk : int
        Games per simulation call (records are kept for one chunk at a time).

    Returns
    -------
    DataFrame
        ``variant_a, variant_b, players, seat, diff`` (P(a's seat pays) - P(b's seat pays)),
        ``ci_low, ci_high, independent_half``.
    """
    from ..engine.simulation import simulate
    from ..engine.stats import Z95
    labels = list(variants)
    if len(labels) < 2:
        raise ValueError("variants: a paired comparison needs at least 2 variants")
    n = players
    sums = {lab: np.zeros((2, n)) for lab in labels}
    pair_sums = {(a, b): np.zeros((2, n)) for i, a in enumerate(labels) for b in labels[i + 1:]}
    done = 0
    while done < games:
        m = min(chunk, games - done)
        x = {}
        for lab in labels:
            rec = simulate(variants[lab], n, policy, games=m, seed=seed, first_game=done, records=True).records
            mask = rec["lose_mask"].to_numpy()
            bits = np.array([(mask >> s) & 1 for s in range(n)]).T.astype(float)
            x[lab] = bits / bits.sum(axis=1, keepdims=True)
            sums[lab] += [x[lab].sum(axis=0), (x[lab] ** 2).sum(axis=0)]
        for (a, b), acc in pair_sums.items():
            d = x[a] - x[b]
            acc += [d.sum(axis=0), (d ** 2).sum(axis=0)]
        done += m
    rows = []
    for (a, b), acc in pair_sums.items():
        mean = acc[0] / games
        var = np.maximum(acc[1] / games - mean ** 2, 0)
        half = Z95 * np.sqrt(var / games)
        va = np.maximum(sums[a][1] / games - (sums[a][0] / games) ** 2, 0)
        vb = np.maximum(sums[b][1] / games - (sums[b][0] / games) ** 2, 0)
        ind = Z95 * np.sqrt((va + vb) / games)
        for s in range(n):
            rows.append(dict(variant_a=a, variant_b=b, players=n, seat=s, diff=float(mean[s]),
                             ci_low=float(mean[s] - half[s]), ci_high=float(mean[s] + half[s]),
                             independent_half=float(ind[s])))
    return pd.DataFrame(rows)
