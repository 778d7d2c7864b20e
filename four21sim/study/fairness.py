"""Fairness as a player states it: who pays, in drinks, exact where a theorem or a solver says so.

Definitions used by the sweep's tables and reports (docs/fairness.md says why)
-----------------------------------------------------------------------------
paying seat
    the game's loser (docs/rules.md: under ``first_out`` the players still in who hold
    the most tokens; under ``last_holder`` the one left holding tokens). ``k`` tied
    losers pay ``1/k`` each, so the pay shares of a game sum to 1.
drinks
    the loser buys a round, one drink for each of the ``n`` players: a seat that pays
    with probability ``P`` buys ``n P`` drinks a game on average and drinks one, so
    ``n P - 1`` is what it pays beyond its own drink (:func:`drinks`): 0 for a fair
    seat, negative for a seat that saves. Over an evening of :data:`EVENING` games a
    seat pays ``EVENING (n P - 1)`` drinks more than its own.
symmetry
    :mod:`four21sim.exact.symmetry`: where the theorem applies every seat pays exactly
    ``1/n``; simulations of those configurations only check the engine.
largest gap
    ``max_s |n P(seat s pays) - 1|`` in drinks a game, with a simultaneous 95% interval
    (every seat's interval at the Bonferroni level; ``stats.max_deviation_interval``).
seat test
    Hotelling's T**2 (F form) that every seat's pay share is 1/players, on the per-game
    share vectors with their covariance (``SimulationResult.share_mean_cov``, from the
    per-game sums of products of shares): valid whatever the number of winners and
    losers (``stats.equal_shares_test``). Holm's step-down adjustment (family-wise 5%)
    runs over the distinct configurations of the study that the theorem does not settle.
identical games
    two configurations whose every counter is equal (same seed) play the very same
    games (e.g. ``sec`` line-ups under rules that differ only in what nobody decides):
    they are one result, counted once.
paired comparison of two rule sets
    both play games ``0 .. N-1`` of one seed (common random numbers); the difference of
    a seat's pay share is averaged over games with a paired interval
    (:func:`paired_comparison`); a change in the largest gap is bounded by the two
    gaps' simultaneous intervals at 97.5% each (valid whatever their correlation).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from ..engine.stats import Z95, drinks, f_sf, max_deviation_interval
from ..exact.symmetry import SeatSymmetry, seat_symmetry
from ..rules import dice
from ..rules.variants import Variant

__all__ = ["EVENING", "drinks", "games_identity", "hist_quantiles", "seat_names", "never_rethrows", "symmetry_of",
           "exact_seat_pays", "zero_mean_test", "PairedShares", "paired_shares", "paired_comparison",
           "paired_pay_differences"]

EVENING = 20
"""Games in the evening the reports count drinks over."""


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


# ------------------------------------------------------------------ symmetry and exact values
def seat_names(kind: str, a: str, b: str | None, players: int) -> list[str]:
    """The strategy of every seat of a line-up: everyone ``a`` (kind ``all``), or ``a`` in seat 0
    among ``b`` players (kind ``one``; the rotations are the same line-up seen from other seats)."""
    return [a] * players if kind == "all" else [a] + [b] * (players - 1)


@lru_cache(maxsize=256)
def _never_rethrows(name: str, variant: Variant, players: int) -> bool:
    from ..policies import REGISTRY, compile_policy
    spec = {p.name: p for p in REGISTRY}.get(name)
    if spec is None or spec.costly or not spec.table or spec.why_not(variant, players):
        return False  # a solve decides, and a non-table policy cannot be read: no claim
    lead = compile_policy(name, variant, players).lead
    stop = dice.FULL_KEEP + np.arange(dice.N_HANDS)
    return bool((lead == stop).all())


def never_rethrows(variant: Variant, players: int, names) -> set[str]:
    """The policies among ``names`` whose leader stops on its first throw in every situation,
    read from their compiled tables (``sec``): with them nobody ever decides anything."""
    return {n for n in set(names) if _never_rethrows(n, variant, players)}


def symmetry_of(variant: Variant, players: int, kind: str, a: str, b: str | None = None) -> SeatSymmetry:
    """:func:`four21sim.exact.symmetry.seat_symmetry` of a study's line-up (``kind``, ``a``, ``b``)."""
    names = seat_names(kind, a, b, players)
    return seat_symmetry(variant, names, never_rethrows(variant, players, names))


@lru_cache(maxsize=256)
def exact_seat_pays(variant: Variant, players: int, policy: str) -> tuple | None:
    """Every seat's exact P(pay) when every seat plays ``policy``, from the solvers, or None.

    ``optimal``: :func:`four21sim.exact.solve` at any player count it reaches (the
    2-player optimum, the n-player equilibrium from 3 to 6 players, where the engine's
    ``optimal`` stops at 5). A table policy at 2 players: exact evaluation of the pair.
    Elsewhere (too many tokens or players, ``random``) there is none. Returns a tuple,
    seat 0 first.
    """
    from ..exact import solve
    from ..policies import TABLE_POLICIES, evaluate
    try:
        if policy == "optimal":
            sol = solve(variant, players)  # ValueError beyond the solvers' players or tokens
            pay = getattr(sol, "seat_p_pay", None)
            return tuple(float(x) for x in pay) if pay is not None else (1 - sol.p_seat0, sol.p_seat0)
        if players == 2 and policy in TABLE_POLICIES:
            p0 = evaluate(variant, [policy, policy])["p_seat0"]
            return (1 - p0, p0)
    except ValueError:  # beyond the solvers' reach (players, tokens)
        return None
    return None


# ------------------------------------------------------------------ tests of a difference
def zero_mean_test(mean, cov, units: int) -> dict:
    """Hotelling's T**2 that a per-seat difference of pay shares is 0 at every seat.

    The differences sum to 0 over the seats in every game, so the first ``q = n - 1``
    carry everything: ``F = T**2 (N - q) / (q (N - 1))`` on ``(q, N - q)`` degrees of
    freedom, ``cov`` the covariance of the mean over ``N`` independent games. A
    difference with no variance (the same games) gets ``p = 1`` if it is 0.
    """
    mean = np.asarray(mean, dtype=float)
    q = mean.size - 1
    d = mean[:q]
    V = np.asarray(cov, dtype=float)[:q, :q]
    out = dict(f=math.nan, df1=q, df2=units - q, p=math.nan)
    if not np.any(np.diag(V) > 0):
        out["p"] = 1.0 if not np.any(d) else 0.0
        return out
    try:
        t2 = float(d @ np.linalg.lstsq(V, d, rcond=None)[0])
    except np.linalg.LinAlgError:
        return out
    f = t2 * (units - q) / (q * (units - 1))
    out.update(f=f, p=f_sf(f, q, units - q))
    return out


@dataclass
class PairedShares:
    """Per-game pay shares of several rule sets on the same games, summed.

    ``mean[label]`` and ``cov[label]`` (of the mean) for every rule set; ``diff_mean[(a, b)]``
    and ``diff_cov[(a, b)]`` for every pair compared: the per-game difference a - b;
    ``rounds[label]``: the mean number of rounds a game.
    """

    players: int
    games: int
    mean: dict
    cov: dict
    diff_mean: dict
    diff_cov: dict
    rounds: dict


def _shares(rec: pd.DataFrame, n: int) -> np.ndarray:
    mask = rec["lose_mask"].to_numpy()
    bits = np.array([(mask >> s) & 1 for s in range(n)]).T.astype(float)
    return bits / bits.sum(axis=1, keepdims=True)


def paired_shares(variants: dict, players: int, pairs, policy: str = "greedy", games: int = 200_000,
                  seed: int = 0, chunk: int = 200_000) -> PairedShares:
    """Play every rule set of ``variants`` (label -> Variant or preset) on games ``0 .. games-1`` of
    ``seed`` (common random numbers) and sum the pay-share vectors, and the differences of every
    pair ``(a, b)`` of ``pairs``, with their products (records kept one chunk at a time)."""
    from ..engine.simulation import simulate
    n = players
    pairs = list(pairs)
    s1 = {lab: np.zeros(n) for lab in variants}
    s2 = {lab: np.zeros((n, n)) for lab in variants}
    d1 = {p: np.zeros(n) for p in pairs}
    d2 = {p: np.zeros((n, n)) for p in pairs}
    rounds = {lab: 0 for lab in variants}
    done = 0
    while done < games:
        m = min(chunk, games - done)
        x = {}
        for lab, v in variants.items():
            rec = simulate(v, n, policy, games=m, seed=seed, first_game=done, records=True).records
            x[lab] = _shares(rec, n)
            rounds[lab] += int(rec["rounds_charge"].sum() + rec["rounds_decharge"].sum())
        for lab, xs in x.items():
            s1[lab] += xs.sum(axis=0)
            s2[lab] += xs.T @ xs
        for a, b in pairs:
            d = x[a] - x[b]
            d1[(a, b)] += d.sum(axis=0)
            d2[(a, b)] += d.T @ d
        done += m

    def moments(t1, t2):
        mean = t1 / games
        return mean, (t2 / games - np.outer(mean, mean)) / games

    mc = {lab: moments(s1[lab], s2[lab]) for lab in variants}
    dc = {p: moments(d1[p], d2[p]) for p in pairs}
    return PairedShares(n, games, {k: v[0] for k, v in mc.items()}, {k: v[1] for k, v in mc.items()},
                        {k: v[0] for k, v in dc.items()}, {k: v[1] for k, v in dc.items()},
                        {k: r / games for k, r in rounds.items()})


def paired_comparison(ps: PairedShares, a: str, b: str) -> dict:
    """What changes from rule set ``b`` to ``a``, in drinks a game (95% intervals).

    Returns ``lead_change`` (seat 0's drinks, paired interval ``lead_change_low/high``),
    ``gap_a``, ``gap_b`` (largest gaps with simultaneous intervals), ``gap_change`` and
    its interval from the two gaps' intervals at 97.5% each (valid whatever their
    correlation), and ``seat_test_p``: the joint test that no seat's P(pay) changes.
    """
    n = ps.players
    dm, dc = ps.diff_mean[(a, b)], ps.diff_cov[(a, b)]
    half = Z95 * math.sqrt(max(dc[0, 0], 0.0))
    ga = max_deviation_interval(ps.mean[a], ps.cov[a], 0.975)
    gb = max_deviation_interval(ps.mean[b], ps.cov[b], 0.975)
    gap_a = max_deviation_interval(ps.mean[a], ps.cov[a])
    gap_b = max_deviation_interval(ps.mean[b], ps.cov[b])
    return dict(players=n, games=ps.games, lead_a=n * ps.mean[a][0] - 1, lead_b=n * ps.mean[b][0] - 1,
                lead_change=n * dm[0], lead_change_low=n * (dm[0] - half), lead_change_high=n * (dm[0] + half),
                gap_a=n * gap_a[0], gap_a_low=n * gap_a[1], gap_a_high=n * gap_a[2],
                gap_b=n * gap_b[0], gap_b_low=n * gap_b[1], gap_b_high=n * gap_b[2],
                gap_change=n * (ga[0] - gb[0]), gap_change_low=n * (ga[1] - gb[2]),
                gap_change_high=n * (ga[2] - gb[1]), seat_test_p=zero_mean_test(dm, dc, ps.games)["p"])


def paired_pay_differences(variants: dict, players: int, policy: str = "greedy", games: int = 200_000,
                           seed: int = 0, chunk: int = 200_000) -> pd.DataFrame:
    """Differences in who pays between every pair of rule sets, on common random numbers.

    Every rule set plays games ``0 .. games-1`` of the same ``seed``: game ``g`` starts
    from the same dice stream in each (docs/engine.md), so the games agree as far as the
    rules let them. For every pair and every seat the per-game difference of the seat's
    pay share (1/k among k losers) is averaged; its 95% interval comes from the per-game
    differences (paired), and ``independent_half`` is the half-width the same games would
    give if the two rule sets had been played on independent dice, for comparison.

    Parameters
    ----------
    variants : dict
        label -> Variant (or preset name); at least 2.
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
        ``ci_low, ci_high, independent_half``, and ``drinks``, ``drinks_low``,
        ``drinks_high``: the same difference in drinks a game (times ``players``).
    """
    labels = list(variants)
    if len(labels) < 2:
        raise ValueError("variants: a paired comparison needs at least 2 variants")
    pairs = [(a, b) for i, a in enumerate(labels) for b in labels[i + 1:]]
    ps = paired_shares(variants, players, pairs, policy, games, seed, chunk)
    rows = []
    for a, b in pairs:
        mean = ps.diff_mean[(a, b)]
        half = Z95 * np.sqrt(np.clip(np.diag(ps.diff_cov[(a, b)]), 0, None))
        ind = Z95 * np.sqrt(np.clip(np.diag(ps.cov[a]) + np.diag(ps.cov[b]), 0, None))
        for s in range(players):
            rows.append(dict(variant_a=a, variant_b=b, players=players, seat=s, diff=float(mean[s]),
                             ci_low=float(mean[s] - half[s]), ci_high=float(mean[s] + half[s]),
                             independent_half=float(ind[s]), drinks=players * float(mean[s]),
                             drinks_low=players * float(mean[s] - half[s]),
                             drinks_high=players * float(mean[s] + half[s])))
    return pd.DataFrame(rows)
