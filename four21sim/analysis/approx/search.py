"""Iterated best response in the family (:func:`approximate_equilibrium`) and the best
deviation from a profile (:func:`best_deviation`), by coordinate search on common random
numbers. The method and what it guarantees: :mod:`four21sim.analysis.approx`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..._util.checks import check_int
from ...engine.stats import Estimate, z_for
from ...rules import dice
from ...rules.variants import MAX_PLAYERS, MIN_PLAYERS, Variant, as_variant
from .family import (
    DEFAULT_BANDS,
    DEFAULT_WEIGHTS,
    HABIT_DEVIATIONS,
    LEADER_MODES,
    MIN_APPROX_PLAYERS,
    Profile,
    check_leader,
    check_weight,
    context_groups,
    table_aware_profile,
)
from .measure import deviator_pay, measure_gains, pay_shares


def _sub_seed(seed: int, *tags: int) -> int:
    """An independent root seed for one use of ``seed`` (a search round, the selection, the measurement)."""
    return int(np.random.SeedSequence([seed, *tags]).generate_state(1, np.uint64)[0])


# ------------------------------------------------------------------ the family
def _threshold_candidates(variant: Variant, current: int, candidates: int) -> list[int]:
    order = [int(h) for h in dice.ORDER[variant.ranking_index]]
    i = order.index(current)
    return order[max(i - candidates, 0):i + candidates + 1]


def _coordinate_pass(variant, players, start: Profile, opponents: Callable[[Profile], Profile], games, seed,
                     candidates, weights, leaders, threads, rows, tag) -> Profile:
    """One pass over the searched groups and their parameters (leader, threshold, weight).

    Returns the best deviation found.

    ``opponents(current)`` is the profile the other seats play while ``current`` is the
    deviator's: the current profile itself in the iterated best response (the new value is
    given to everyone), a fixed profile in the deviation search.
    """
    current = start
    for g, label in enumerate(start.groups.labels):
        if not start.groups.active[g]:
            continue
        for parameter in ("leader", "threshold", "weight"):
            if parameter == "leader":
                now = current.leaders[g]
                values = list(dict.fromkeys(leaders + (now,)))
                if len(values) == 1:
                    continue
            elif parameter == "threshold":
                if current.leaders[g] != "reach":  # unused by a round leader
                    continue
                now = current.thresholds[g]
                values = _threshold_candidates(variant, now, candidates)
            else:
                now = current.weights[g]
                values = sorted(set(weights) | {now})
            others = opponents(current)
            pays = []
            for value in values:
                cand = current.with_value(g, parameter, value)
                if cand.key() == others.key():
                    pay = 1.0 / players  # everyone on one profile: the seats' shares sum to 1 in every game
                else:
                    pay = float(deviator_pay(variant, players, cand.policy(), others.policy(), games, seed,
                                             threads).mean())
                pays.append(pay)
            best = int(np.argmin(pays))  # the first of equal minima
            if pays[best] < pays[values.index(now)]:  # the current value stays unless beaten strictly
                current = current.with_value(g, parameter, values[best])
            chosen = {"leader": current.leaders[g], "threshold": current.thresholds[g],
                      "weight": current.weights[g]}[parameter]
            for value, pay in zip(values, pays):
                rows.append({**tag, "group": label, "parameter": parameter,
                             "value": dice.hand_name(value) if parameter == "threshold"
                             else f"{value:g}" if parameter == "weight" else value,
                             "deviator_p_pay": pay, "current": value == now, "chosen": value == chosen})
    return current


def _check_search(variant, players, games, seed, candidates, weights, leaders, threads, lo_players):
    variant = as_variant(variant)
    players = check_int("players", players, lo_players, MAX_PLAYERS)
    games = check_int("games", games, 2)
    seed = check_int("seed", seed, 0, 2 ** 64 - 1)
    candidates = check_int("candidates", candidates, 0, dice.N_HANDS)
    if isinstance(weights, (str, bytes)) or not hasattr(weights, "__iter__") or not list(weights):
        raise ValueError(f"weights: {weights!r} is not allowed; allowed: a non-empty sequence of numbers >= 0")
    weights = tuple(check_weight(w) for w in weights)
    if isinstance(leaders, str) or not hasattr(leaders, "__iter__") or not list(leaders):
        raise ValueError(f"leaders: {leaders!r} is not allowed; allowed: a non-empty sequence of "
                         f"{', '.join(LEADER_MODES)}")
    leaders = tuple(check_leader(m) for m in leaders)
    if threads is not None:
        threads = check_int("threads", threads, 1)
    return variant, players, games, seed, candidates, weights, leaders, threads


def best_deviation(variant: Variant | str, players: int, profile: Profile, games: int = 20_000, seed: int = 0,
                   candidates: int = 4, weights: Sequence[float] = DEFAULT_WEIGHTS, passes: int = 1,
                   threads: int | None = None, leaders: Sequence[str] = LEADER_MODES) -> tuple[Profile, pd.DataFrame]:
    """The best single-player deviation from ``profile`` within the family (coordinate search).

    The deviator starts from the profile's own parameters and, group by group, tries
    every leader mode of ``leaders``, the thresholds within ``candidates`` places of its
    current one in the ranking (for a ``reach`` leader) and every follower weight,
    every other seat keeping ``profile``; it keeps a value only
    if the deviator's mean P(pay) (every seat in turn, common random numbers) is
    strictly lower. The games are ``seed``'s: measure the deviation on other games
    (:func:`measure_gains`), since its gain on these is biased upwards.

    Returns
    -------
    (Profile, DataFrame)
        The deviation and one row per candidate tried.
    """
    variant, players, games, seed, candidates, weights, leaders, threads = _check_search(
        variant, players, games, seed, candidates, weights, leaders, threads, MIN_PLAYERS)
    passes = check_int("passes", passes, 1)
    if not isinstance(profile, Profile) or profile.variant != variant:
        raise ValueError(f"profile: {profile!r} is not allowed; allowed: a Profile of this variant")
    rows: list = []
    dev = profile
    for p in range(passes):
        before = dev.key()
        dev = _coordinate_pass(variant, players, dev, lambda cur: profile, games, seed, candidates, weights,
                               leaders, threads, rows, {"pass": p})
        if dev.key() == before:
            break
    return dev, pd.DataFrame(rows)


@dataclass
class ApproxResult:
    """What :func:`approximate_equilibrium` found and measured.

    Attributes
    ----------
    variant : Variant
    players : int
    profile : Profile
        The symmetric profile found (everyone plays ``profile.policy()``).
    rounds : int
        Rounds of iterated best response played.
    converged : bool
        The last round changed nothing.
    history : DataFrame
        One row per candidate tried: ``round, group, parameter, value, deviator_p_pay,
        current, chosen``.
    deviation : Profile
        The best deviation found within the family (on the selection games).
    deviation_search : DataFrame
        The rows of that search (as ``history``, with ``pass``).
    seats : DataFrame
        On the measurement games, every seat on the profile: ``seat, p_pay, low, high``
        (normal intervals, Bonferroni over the seats: each at ``1 - 0.05/players``),
        ``fair`` (``1/players``).
    gains : DataFrame
        :func:`measure_gains` on the measurement games: the family's best deviation
        (``best in family``) and the habits; ``selection_gain`` is the family
        deviation's gain on the selection games (biased upwards, for contrast).
    games, measure_games : int
        Games per line-up in the search and in the measurement.
    seed : int
    elapsed : float
        Seconds.
    """

    variant: Variant
    players: int
    profile: Profile
    rounds: int
    converged: bool
    history: pd.DataFrame
    deviation: Profile
    deviation_search: pd.DataFrame
    seats: pd.DataFrame
    gains: pd.DataFrame
    selection_gain: float
    games: int
    measure_games: int
    seed: int
    elapsed: float

    @property
    def exploitability(self) -> Estimate:
        """The measured gain of the family's best deviation, in probability, with its 95% interval."""
        r = self.gains.set_index("deviation").loc["best in family"]
        return Estimate(float(r["gain"]), float(r["gain_low"]), float(r["gain_high"]))

    def __repr__(self) -> str:
        e = self.exploitability
        return (f"ApproxResult({self.variant.describe()}, {self.players} players, {self.rounds} rounds, "
                f"exploitability {100 * e.value:.3f} pp [{100 * e.low:.3f}, {100 * e.high:.3f}])")


def approximate_equilibrium(variant: Variant | str, players: int, games: int = 20_000, seed: int = 0,
                            rounds: int = 3, candidates: int = 4, *, weights: Sequence[float] = DEFAULT_WEIGHTS,
                            bands: Sequence[int] = DEFAULT_BANDS, leaders: Sequence[str] = LEADER_MODES,
                            measure_games: int | None = None,
                            habits: Sequence[str] = HABIT_DEVIATIONS, threads: int | None = None,
                            progress: Callable[[str], None] | None = None) -> ApproxResult:
    """A symmetric approximate equilibrium of the family by iterated best response, with its exploitability.

    Parameters
    ----------
    variant : Variant or str
    players : int
        3 to 8 (3 to 6 can be compared with the exact equilibrium of :mod:`four21sim.exact.nplayer`).
    games : int
        Games per line-up when comparing candidates (each candidate plays ``players``
        line-ups: the deviator in every seat).
    seed : int
        Root seed; round ``r``, the deviation's selection and its measurement each use
        an independent seed derived from it.
    rounds : int
        At most this many rounds of best response (fewer if a round changes nothing).
    candidates : int
        Thresholds tried: those within ``candidates`` places of the current one in the
        ranking (``2 * candidates + 1`` hands at most).
    weights : sequence of float
        Follower value weights tried (see the module docstring).
    bands : sequence of int
        Own-token bands of the décharge groups (:func:`context_groups`).
    leaders : sequence of str
        Leader modes tried (``("reach",)``: the threshold leader only).
    measure_games : int, optional
        Games per line-up for the final measurement (default ``5 * games``).
    habits : sequence of str
        Named policies measured as deviations beside the family's best.
    threads : int, optional
        numba threads (results do not depend on it).
    progress : callable, optional
        Called with a line of text after each step.

    Returns
    -------
    ApproxResult
    """
    t0 = time.perf_counter()
    variant, players, games, seed, candidates, weights, leaders, threads = _check_search(
        variant, players, games, seed, candidates, weights, leaders, threads, MIN_APPROX_PLAYERS)
    rounds = check_int("rounds", rounds, 1)
    measure_games = check_int("measure_games", 5 * games if measure_games is None else measure_games, 2)
    if isinstance(habits, str) or not all(isinstance(h, str) for h in habits):
        raise ValueError(f"habits: {habits!r} is not allowed; allowed: a sequence of policy names")
    say = progress or (lambda text: None)
    search = (candidates, weights, leaders, threads)
    profile, played, converged, history = _iterate(variant, players, table_aware_profile(
        variant, context_groups(variant, bands)), games, seed, rounds, search, say)
    deviation, dev_rows, selection_gain = _best_in_family(variant, players, profile, games, seed, search, say)
    mseed = _sub_seed(seed, 3)
    seats = _seat_shares(variant, players, profile, measure_games, mseed, threads)
    devs = {"best in family": deviation, **{h: h for h in habits}}
    gains = measure_gains(variant, players, profile, devs, measure_games, mseed, threads)
    say(f"measured: exploitability {100 * gains['gain'].iloc[0]:.3f} pp")
    return ApproxResult(variant, players, profile, played, converged, history, deviation, dev_rows, seats, gains,
                        selection_gain, games, measure_games, seed, time.perf_counter() - t0)


def _iterate(variant, players, profile: Profile, games, seed, rounds, search, say):
    """Rounds of coordinate search from ``profile``, each on fresh games, until nothing changes."""
    candidates, weights, leaders, threads = search
    rows: list = []
    converged = False
    played = 0
    for r in range(rounds):
        before = profile.key()
        profile = _coordinate_pass(variant, players, profile, lambda cur: cur, games, _sub_seed(seed, 1, r),
                                   candidates, weights, leaders, threads, rows, {"round": r})
        played += 1
        say(f"round {r}: {profile.describe()}")
        if profile.key() == before:
            converged = True
            break
    return profile, played, converged, pd.DataFrame(rows)


def _best_in_family(variant, players, profile: Profile, games, seed, search, say):
    """The best deviation found in the family, and its gain on the games that chose it (biased up)."""
    candidates, weights, leaders, threads = search
    deviation, dev_rows = best_deviation(variant, players, profile, games, _sub_seed(seed, 2), candidates,
                                         weights, 1, threads, leaders)
    selection_gain = 1.0 / players - float(deviator_pay(variant, players, deviation.policy(), profile.policy(),
                                                        games, _sub_seed(seed, 2), threads).mean()) \
        if deviation.key() != profile.key() else 0.0
    say(f"deviation: {deviation.describe()} (selection gain {100 * selection_gain:.3f} pp)")
    return deviation, dev_rows, selection_gain


def _seat_shares(variant, players, profile: Profile, games, seed, threads) -> pd.DataFrame:
    """Each seat's P(pay) under the profile, with simultaneous (Bonferroni) 95% intervals."""
    shares = pay_shares(variant, players, [profile.policy()] * players, games, seed, threads=threads)
    z = z_for(1 - 0.05 / players)
    mean = shares.mean(axis=0)
    half = z * shares.std(axis=0, ddof=1) / math.sqrt(games)
    return pd.DataFrame({"seat": np.arange(players), "p_pay": mean, "low": mean - half, "high": mean + half,
                         "fair": 1.0 / players})
