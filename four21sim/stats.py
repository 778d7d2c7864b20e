"""Interval estimates used by every result table."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

__all__ = ["Z95", "Estimate", "wilson", "mean_interval", "z_for"]

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
    mean = float(total) / n
    var = max(float(total_sq) / n - mean * mean, 0.0)
    half = z * math.sqrt(var / n) if n > 1 else math.nan
    return mean, mean - half, mean + half
