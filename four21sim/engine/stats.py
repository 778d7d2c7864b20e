"""Interval estimates used by every result table."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

__all__ = ["Z95", "Estimate", "drinks", "wilson", "mean_interval", "z_for", "ratio_interval", "betainc", "f_sf",
           "equal_shares_test", "holm", "max_deviation_interval"]

Z95 = 1.959963984540054


class Estimate(NamedTuple):
    """A value with its interval (a tuple: ``value, low, high = estimate`` still works)."""

    value: float
    low: float
    high: float


def z_for(confidence: float) -> float:
    """Two-sided normal quantile for a confidence level (0.95 -> 1.96)."""
    from statistics import NormalDist
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson(k, n, z: float = Z95):
    """Wilson score interval for ``k`` successes in ``n`` trials (arrays broadcast).

    Returns ``(low, high)``; both are NaN where ``n == 0``.
    """
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return centre - half, centre + half


def mean_interval(total, total_sq, n, z: float = Z95):
    """Mean and normal-approximation interval from a sum and a sum of squares."""
    n = float(n)
    if n <= 0:  # no observation (e.g. every game a runaway): no estimate, not an error
        return math.nan, math.nan, math.nan
    mean = float(total) / n
    var = max(float(total_sq) / n - mean * mean, 0.0)
    half = z * math.sqrt(var / n) if n > 1 else math.nan
    return mean, mean - half, mean + half


def ratio_interval(k, r, kk, kr, rr, blocks: int, z: float = Z95):
    """Ratio ``k / r`` of two sums over blocks of games, with its cluster interval.

    Rounds of one game are not independent, so blocks of games are the independent
    clusters: ``var(R) = B / (B - 1) * sum_b (k_b - R r_b)**2 / (sum_b r_b)**2``, from
    ``kk = sum k_b**2``, ``kr = sum k_b r_b``, ``rr = sum r_b**2``. With fewer than 2
    blocks it falls back to a Wilson interval. The interval is clipped to [0, 1] (``k`` counts
    some of the rounds ``r``). Returns ``(rate, low, high)``; NaN when ``r == 0``.
    """
    k, r = float(k), float(r)
    if r <= 0:
        return math.nan, math.nan, math.nan
    rate = k / r
    if blocks >= 2:
        ss = float(kk) - 2 * rate * float(kr) + rate * rate * float(rr)
        half = z * math.sqrt(max(ss, 0.0) * blocks / (blocks - 1)) / r
        # a rate of events among rounds lies in [0, 1]: so does its interval
        return rate, max(rate - half, 0.0), min(rate + half, 1.0)
    lo, hi = wilson(k, r, z)
    return rate, float(lo), float(hi)


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the regularised incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        even = m * (b - m) * x / ((a + m2 - 1) * (a + m2))
        odd = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))
        for num in (even, odd):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta function ``I_x(a, b)``."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    lfront = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1) / (a + b + 2):
        return math.exp(lfront) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lfront) * _betacf(b, a, 1 - x) / b


def f_sf(x: float, d1: float, d2: float) -> float:
    """Survival function of the F distribution with ``d1, d2`` degrees of freedom."""
    if not x > 0:
        return 1.0
    return betainc(d2 / 2, d1 / 2, d2 / (d2 + d1 * x))


def equal_shares_test(mean, cov, blocks: int) -> dict:
    """Joint test that every seat's share is ``1/n`` (shares sum to 1 in every game).

    Hotelling's T**2 on the first ``q = n - 1`` shares (the last is implied), with ``cov``
    the estimated covariance of the mean over ``B`` independent units (games, or blocks
    of games): ``F = T**2 (B - q) / (q (B - 1))`` on ``(q, B - q)`` degrees of freedom.
    Valid whatever the number of winners or losers of a game (the per-game vector is any
    share vector). Returns ``dict(stat=T**2, f=F, df1=q, df2=B-q, p=p-value)``; p is NaN
    when the covariance is singular (e.g. a seat that never pays) or units are too few.
    """
    mean = np.asarray(mean, dtype=float)
    n = mean.size
    q = n - 1
    d = mean[:q] - 1.0 / n
    V = np.asarray(cov, dtype=float)[:q, :q]
    out = dict(stat=math.nan, f=math.nan, df1=q, df2=blocks - q, p=math.nan)
    if blocks - q < 1 or not np.all(np.isfinite(V)):
        return out
    try:
        t2 = float(d @ np.linalg.solve(V, d))
    except np.linalg.LinAlgError:
        return out
    if not math.isfinite(t2) or t2 < 0:
        return out
    f = t2 * (blocks - q) / (q * (blocks - 1))
    out.update(stat=t2, f=f, p=f_sf(f, q, blocks - q))
    return out


def holm(pvalues) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error control; NaN stays NaN)."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, math.nan)
    ok = np.flatnonzero(np.isfinite(p))
    m = ok.size
    running = 0.0
    for rank, i in enumerate(ok[np.argsort(p[ok], kind="stable")]):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def max_deviation_interval(mean, cov, level: float = 0.95, family: int | None = None):
    """``max_s |mean_s - 1/n|`` with a simultaneous (Bonferroni) interval.

    Each seat's share gets the interval ``mean_s ± z se_s`` with ``z`` the two-sided
    normal quantile at ``1 - (1 - level) / family`` (``family`` = the number of seats
    covered jointly, ``n`` by default): with probability at least ``level`` every true
    share is in its interval, and then the true largest gap lies between
    ``max_s (|mean_s - 1/n| - z se_s)^+`` and ``max_s (|mean_s - 1/n| + z se_s)``. The
    interval is conservative (coverage at least ``level``), always contains the
    estimate, and reaches 0 when every seat is consistent with a fair share.
    Returns ``(value, low, high)``.
    """
    mean = np.asarray(mean, dtype=float)
    n = mean.size
    se = np.sqrt(np.clip(np.diag(np.asarray(cov, dtype=float)), 0, None))
    z = z_for(1 - (1 - level) / (family or n))
    d = np.abs(mean - 1.0 / n)
    return float(d.max()), float(np.max(np.clip(d - z * se, 0, None))), float(np.max(d + z * se))


def drinks(p_pay, players: int):
    """Drinks a seat pays a game beyond its own: ``players * p_pay - 1`` (arrays too)."""
    return players * np.asarray(p_pay, dtype=float) - 1 if np.ndim(p_pay) else players * float(p_pay) - 1
