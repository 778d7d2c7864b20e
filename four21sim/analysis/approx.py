"""Approximate equilibria for 3 to 8 players: iterated best response in a family of table policies.

With four players or more no exact solver fits (:mod:`four21sim.exact.solver3` stops at
three), so "how should everyone play?" is answered approximately: within a family
of policies a person could read, search for a profile that no single player can
improve on by changing its own parameters, and *measure* how much a deviator can
still gain (the profile's exploitability) on fresh games, with an interval.
Every player's objective is to pay as rarely as possible: P(pay) is the seat's
share of the game's loss (``lose_mask`` of a game record; a loss shared by k
players counts 1/k), as in docs/rules.md and the 3-player equilibrium.

The family
----------
A policy of the family is an engine table policy in context mode 1
(docs/engine.md: ``ctx = pot * (tokens + 1) + own tokens``). The contexts are
cut into *groups*: by default the charge (pot > 0) is one group and the
décharge is split by the deciding player's own tokens into the bands 1, 2, 3-4,
5-7 and 8 or more (:func:`context_groups`). Each group has three parameters:

``leader`` (``reach`` or ``round``) and ``threshold`` (a hand)
    ``reach``: the leader keeps what maximises P(ending at the threshold hand or
    better) (:func:`four21sim.exact.odds.turn_odds` with objective ``reach``) and stops
    as soon as it holds it: the leader of ``table-aware`` and of
    :func:`four21sim.analysis.tournament.threshold_policy`, one threshold per group.
    ``round``: the leader plays its round against one follower
    (:func:`four21sim.exact.odds.leader_round`: P(not losing the round), stopping early
    being worth more the fewer throws it leaves the follower); the threshold is
    then unused. The ``reach`` leader ignores what its count does to the others;
    ``round`` weighs it, for a table of two.
``weight`` (a number >= 0)
    A follower scores a final hand ``h`` against the hand to beat (the worst on
    the table so far) as ``1[h beats it] + 1/2 1[h equals it] + weight *
    value(h)`` and plays the keeps that maximise the expected score
    (:func:`four21sim.exact.odds.solve_turn`). ``weight = 0`` is ``table-aware``'s
    follower. Why a value weight rather than a second threshold: the follower
    tables already see the hand to beat, the count and the throws made, and
    what else a follower's hand decides is the payout when that follower wins
    the round (the winner's hand value: in the charge the tokens the loser takes
    from the pot, in the décharge the tokens the winner gets rid of). A weight
    trades the chance of not being the worst for the payout, from a tie-breaker
    (0.01) to nearly ``greedy`` (0.3 and more).

With one group, the ``reach`` leader at the median threshold and weight 0 the tables are exactly
``table-aware``'s (spread over the contexts): the family contains the usual
habit. Groups in which nobody decides (the charge when ``charge_throws = 1``,
the décharge when ``decharge_throws = 1``) are never searched.

Iterated best response
----------------------
:func:`approximate_equilibrium` starts with every seat on the table-aware
profile. Each round draws a fresh seed (selection noise does not pile up on one
set of games) and, group by group and parameter by parameter (coordinate
search), tries every candidate value for *one* deviating player, everyone else
playing the current profile; the deviator takes every seat in turn, every
candidate is played on the same games (common random numbers), and the value
that minimises the deviator's mean P(pay) is given to everyone (a symmetric
profile). The current value is kept unless a candidate does strictly better.
The threshold of a group whose leader plays ``round`` is not searched (it is unused).
Under a symmetric profile the seats' P(pay) sum to 1 in every game, so the
deviator's P(pay) averaged over the seats is exactly ``1/players`` when it
plays the profile: a candidate's paired gain is ``1/players`` minus its P(pay).
The iteration stops when a round changes nothing or after ``rounds`` rounds.

Exploitability, with an interval
--------------------------------
After the last round, the best deviation within the family (a policy of the
deviator alone, every other seat keeping the profile) is searched coordinate by
coordinate on a *selection* seed set, then its gain is measured on a *fresh,
independent* seed set (:func:`measure_gains`): gain = P(pay | everyone plays
the profile) - P(pay | the deviator deviates), the deviator taking every seat
in turn, both line-ups on the same games, per-game paired differences averaged
over the seats, with a normal 95% interval over games. Measuring on the games
that chose the deviation would overstate its gain (the winner's curse: the best
of many noisy candidates is partly the luckiest); on fresh games the estimate
is unbiased for the gain of the deviation chosen. That gain is a lower bound on
the exploitability within the family (the search may miss the best deviation)
and so on the true exploitability (a deviator is not bound to the family). The
same fresh games also measure a few fixed deviations outside the family
(``greedy``, ``sec``, ``chase421``, ``table-aware``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np
import pandas as pd

from .._util.checks import check_int
from ..engine.simulation import SHARE_UNIT, simulate, win_units
from ..engine.stats import Z95, Estimate, z_for
from ..exact import odds
from ..policies import HABITS, Policy, compile_policy, median_hand, table_policy
from ..policies.heuristics import beat_reward, follower_rows, threshold_leader
from ..rules import dice
from ..rules.variants import MAX_PLAYERS, MIN_PLAYERS, Variant, as_variant

__all__ = ["ContextGroups", "Profile", "ApproxResult", "DEFAULT_BANDS", "DEFAULT_WEIGHTS", "HABIT_DEVIATIONS",
           "LEADER_MODES", "context_groups", "family_policy", "table_aware_profile", "pay_shares", "deviator_pay",
           "measure_gains", "best_deviation", "approximate_equilibrium"]

DEFAULT_BANDS: tuple[int, ...] = (1, 2, 3, 5, 8)
"""Lower ends of the décharge's own-token bands: 1, 2, 3-4, 5-7, 8 or more."""
DEFAULT_WEIGHTS: tuple[float, ...] = (0.0, 0.01, 0.03, 0.1, 0.3)
"""Follower value weights tried by the search."""
LEADER_MODES: tuple[str, ...] = ("reach", "round")
"""The leader's modes: play for the threshold hand, or the round against one follower (odds.leader_round)."""
HABIT_DEVIATIONS: tuple[str, ...] = HABITS
"""Fixed deviations outside the family whose gain is measured beside the family's best."""
MIN_APPROX_PLAYERS = 3
_CHUNK = 200_000  # games per simulate call with records (memory: about 200 bytes a game)


# ------------------------------------------------------------------ input checks
def _sub_seed(seed: int, *tags: int) -> int:
    """An independent root seed for one use of ``seed`` (a search round, the selection, the measurement)."""
    return int(np.random.SeedSequence([seed, *tags]).generate_state(1, np.uint64)[0])


# ------------------------------------------------------------------ the family
@dataclass(frozen=True)
class ContextGroups:
    """A partition of the context-mode-1 contexts into groups that share parameters.

    Attributes
    ----------
    labels : tuple of str
        One label per group (``charge``, ``decharge own 3-4``, ``all``...).
    index : tuple of int
        The group of each context ``ctx = pot * (tokens + 1) + own``.
    active : tuple of bool
        Whether anybody decides in the group (a group of one-throw phases is never searched).
    """

    labels: tuple[str, ...]
    index: tuple[int, ...]
    active: tuple[bool, ...]

    def __len__(self) -> int:
        return len(self.labels)


def context_groups(variant: Variant, bands: Sequence[int] = DEFAULT_BANDS, by_phase: bool = True) -> ContextGroups:
    """Cut the contexts of context mode 1 into groups.

    Parameters
    ----------
    variant : Variant
    bands : sequence of int
        Increasing lower ends (>= 1) of the own-token bands: ``(1, 2, 3, 5, 8)``
        gives 1, 2, 3-4, 5-7, 8+. Bands starting above ``tokens`` are dropped;
        ``()`` is a single band. Own tokens below the first band (0, which a
        player in the décharge never holds) join the first band.
    by_phase : bool
        The charge (pot > 0) is one group of its own and the bands cut the
        décharge; ``False``: the bands cut every context, charge and décharge
        alike (``bands=(), by_phase=False`` is one group for everything).

    Returns
    -------
    ContextGroups
    """
    variant = as_variant(variant)
    if isinstance(bands, (str, bytes)) or not all(isinstance(b, (int, np.integer)) and not isinstance(b, bool)
                                                  for b in bands):
        raise ValueError(f"bands: {bands!r} is not allowed; allowed: increasing integers >= 1")
    bands = [int(b) for b in bands]
    if any(b < 1 for b in bands) or any(b2 <= b1 for b1, b2 in zip(bands, bands[1:])):
        raise ValueError(f"bands: {tuple(bands)!r} is not allowed; allowed: increasing integers >= 1")
    T = variant.tokens
    bands = [b for b in bands if b <= T] or [1]
    ends = bands[1:] + [T + 1]

    def band_label(lo, hi):
        if len(bands) == 1:
            return ""
        return f"own {lo}" if hi == lo + 1 else f"own {lo}+" if hi == T + 1 else f"own {lo}-{hi - 1}"

    charge_active = variant.charge_throws > 1
    decharge_active = variant.decharge_throws > 1
    labels, active = [], []
    if by_phase:
        labels.append("charge")
        active.append(charge_active)
        for lo, hi in zip(bands, ends):
            labels.append(("decharge " + band_label(lo, hi)).strip())
            active.append(decharge_active)
    else:
        for lo, hi in zip(bands, ends):
            labels.append(band_label(lo, hi) or "all")
            active.append(charge_active or decharge_active)
    index = []
    for ctx in range((T + 1) ** 2):
        pot, own = divmod(ctx, T + 1)
        band = max(sum(own >= b for b in bands) - 1, 0)
        index.append((band + 1 if pot == 0 else 0) if by_phase else band)
    return ContextGroups(tuple(labels), tuple(index), tuple(active))


@lru_cache(maxsize=32)
def _round_leader_rows(variant: Variant, limit: int) -> np.ndarray:
    """lead[throws_left - 1, hand] of a leader playing the round against one follower (odds.leader_round)."""
    out = np.empty((2, dice.N_HANDS), dtype=dice.KEEP_DTYPE)
    out[...] = dice.FULL_KEEP + np.arange(dice.N_HANDS)  # rows a limit below 3 never reads
    if limit < 2:
        return out
    lr = odds.leader_round(variant.ranking, variant.followers, limit)
    for made in range(1, limit):
        for h in range(dice.N_HANDS):
            options = lr.keep_values[made][h]  # in dice.HAND_KEEPS order: the first of equal best wins
            top = max(options.values())
            out[limit - made - 1, h] = next(k for k, v in options.items() if v >= top - 1e-12)
    return out


@lru_cache(maxsize=64)
def _follower_rows(variant: Variant, weight: float) -> np.ndarray:
    """foll[target, count - 1, made - 1, hand] of a follower with value weight ``weight``."""
    if weight == 0:  # table-aware's own follower, so that the family contains it exactly
        return compile_policy("table-aware", variant).foll[0].copy()
    value = dice.VALUE[variant.values_index].astype(float)
    return follower_rows(variant, lambda t: beat_reward(variant, t) + weight * value)


def _check_threshold(threshold) -> int:
    return check_int("thresholds", threshold, 0, dice.N_HANDS - 1,
                     f"hand indices 0 to {dice.N_HANDS - 1} (dice.parse_hand('633') gives one)")


def _check_weight(weight) -> float:
    if isinstance(weight, bool) or not isinstance(weight, (int, float, np.integer, np.floating)) \
            or not math.isfinite(weight) or weight < 0:
        raise ValueError(f"weights: {weight!r} is not allowed; allowed: finite numbers >= 0")
    return float(weight)


def _check_leader(mode) -> str:
    if mode not in LEADER_MODES:
        raise ValueError(f"leaders: {mode!r} is not allowed; allowed: {', '.join(LEADER_MODES)}")
    return str(mode)


def family_policy(variant: Variant, groups: ContextGroups, thresholds: Sequence[int], weights: Sequence[float],
                  name: str = "family", leaders: Sequence[str] | None = None) -> Policy:
    """The context-mode-1 table policy with one (leader, threshold, weight) per context group.

    Parameters
    ----------
    variant : Variant
    groups : ContextGroups
        From :func:`context_groups` for this variant.
    thresholds : sequence of int
        The leader's stopping hand (a hand index) per group.
    weights : sequence of float
        The follower's value weight (>= 0) per group.
    name : str
    leaders : sequence of str, optional
        The leader's mode per group, ``reach`` (default) or ``round``.

    Returns
    -------
    Policy
        Checked by :func:`four21sim.policies.check_policy`.
    """
    variant = as_variant(variant)
    n_ctx = (variant.tokens + 1) ** 2
    if not isinstance(groups, ContextGroups) or len(groups.index) != n_ctx:
        raise ValueError(f"groups: {groups!r} is not allowed; allowed: context_groups(variant) for this variant "
                         f"({n_ctx} contexts)")
    thresholds = [_check_threshold(t) for t in thresholds]
    weights = [_check_weight(w) for w in weights]
    leaders = ["reach"] * len(groups) if leaders is None else [_check_leader(m) for m in leaders]
    for label, seq in (("thresholds", thresholds), ("weights", weights), ("leaders", leaders)):
        if len(seq) != len(groups):
            raise ValueError(f"{label}: {len(seq)} values is not allowed; allowed: one per group ({len(groups)})")
    idx = np.asarray(groups.index)
    lead = np.stack([threshold_leader(variant, t) for t in thresholds])[idx]
    round_group = np.array([m == "round" for m in leaders])[idx]
    if round_group.any():
        pot = np.arange(n_ctx) // (variant.tokens + 1)
        for limit, phase in ((variant.charge_throws, pot > 0), (variant.decharge_throws, pot == 0)):
            lead[round_group & phase] = _round_leader_rows(variant, limit)
    distinct = sorted(set(weights))
    foll_w = np.stack([_follower_rows(variant, w) for w in distinct])
    foll = foll_w[np.array([distinct.index(w) for w in weights])[idx]]
    return table_policy(name, variant, lead, foll, ctx_mode=1, players=None,
                        info={"thresholds": [dice.hand_name(t) for t in thresholds], "weights": list(weights),
                              "leaders": list(leaders)})


@dataclass(frozen=True, eq=False)
class Profile:
    """Parameters of the family: a leader mode, a threshold and a follower weight per context group.

    Attributes
    ----------
    variant : Variant
    groups : ContextGroups
    thresholds : tuple of int
        Hand indices (the leader stops at that hand or better).
    weights : tuple of float
        Follower value weights.
    leaders : tuple of str
        Leader modes (``reach`` or ``round``); ``()`` means ``reach`` everywhere.
    """

    variant: Variant
    groups: ContextGroups
    thresholds: tuple[int, ...]
    weights: tuple[float, ...]
    leaders: tuple[str, ...] = ()
    _policy: list = field(default_factory=list, repr=False, compare=False)

    def __post_init__(self):
        if not self.leaders:
            object.__setattr__(self, "leaders", ("reach",) * len(self.thresholds))

    def key(self) -> tuple:
        """What decides the tables (a threshold a ``round`` leader does not use is left out)."""
        return (tuple(t if m == "reach" else -1 for t, m in zip(self.thresholds, self.leaders)), self.weights,
                self.leaders)

    def policy(self) -> Policy:
        """The compiled policy (built once)."""
        if not self._policy:
            self._policy.append(family_policy(self.variant, self.groups, self.thresholds, self.weights,
                                              leaders=self.leaders))
        return self._policy[0]

    def with_value(self, group: int, parameter: str, value) -> "Profile":
        """A copy with one group's ``leader``, ``threshold`` or ``weight`` changed (ValueError if not allowed)."""
        if parameter == "leader":
            m = list(self.leaders)
            m[group] = _check_leader(value)
            return replace(self, leaders=tuple(m), _policy=[])
        if parameter == "threshold":
            t = list(self.thresholds)
            t[group] = _check_threshold(value)
            return replace(self, thresholds=tuple(t), _policy=[])
        if parameter == "weight":
            w = list(self.weights)
            w[group] = _check_weight(value)
            return replace(self, weights=tuple(w), _policy=[])
        raise ValueError(f"parameter: {parameter!r} is not allowed; allowed: leader, threshold, weight")

    def table(self) -> pd.DataFrame:
        """One row per group: ``group, searched, leader, threshold`` (hand name), ``weight``."""
        return pd.DataFrame({"group": list(self.groups.labels), "searched": list(self.groups.active),
                             "leader": list(self.leaders), "threshold": [dice.hand_name(t) for t in self.thresholds],
                             "weight": list(self.weights)})

    def describe(self) -> str:
        """``group leader/weight`` for the searched groups, the leader as its threshold hand or ``round``:
        ``charge 633/0; decharge own 1 round/0.03``."""
        parts = [f"{g} {dice.hand_name(t) if m == 'reach' else 'round'}/{w:g}" for g, t, w, m, a in
                 zip(self.groups.labels, self.thresholds, self.weights, self.leaders, self.groups.active) if a]
        return "; ".join(parts) if parts else "(no decision)"


def table_aware_profile(variant: Variant, groups: ContextGroups | None = None) -> Profile:
    """Every group on ``table-aware``'s parameters: a ``reach`` leader at the median hand, weight 0.

    Parameters
    ----------
    variant : Variant or str
    groups : ContextGroups, optional
        Default: :func:`context_groups` with the default bands.

    Returns
    -------
    Profile
        The search's starting point; its policy plays exactly like ``table-aware``.
    """
    variant = as_variant(variant)
    groups = groups or context_groups(variant)
    m = median_hand(variant.ranking)
    return Profile(variant, groups, (m,) * len(groups), (0.0,) * len(groups))


# ------------------------------------------------------------------ measuring P(pay)
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
    weights = tuple(_check_weight(w) for w in weights)
    if isinstance(leaders, str) or not hasattr(leaders, "__iter__") or not list(leaders):
        raise ValueError(f"leaders: {leaders!r} is not allowed; allowed: a non-empty sequence of "
                         f"{', '.join(LEADER_MODES)}")
    leaders = tuple(_check_leader(m) for m in leaders)
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
        3 to 8 (3 can be compared with the exact equilibrium of :mod:`four21sim.exact.solver3`).
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
    groups = context_groups(variant, bands)
    profile = table_aware_profile(variant, groups)
    say = progress or (lambda text: None)
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
    history = pd.DataFrame(rows)
    deviation, dev_rows = best_deviation(variant, players, profile, games, _sub_seed(seed, 2), candidates,
                                         weights, 1, threads, leaders)
    selection_gain = 1.0 / players - float(deviator_pay(variant, players, deviation.policy(), profile.policy(),
                                                        games, _sub_seed(seed, 2), threads).mean()) \
        if deviation.key() != profile.key() else 0.0
    say(f"deviation: {deviation.describe()} (selection gain {100 * selection_gain:.3f} pp)")
    mseed = _sub_seed(seed, 3)
    shares = pay_shares(variant, players, [profile.policy()] * players, measure_games, mseed, threads=threads)
    z = z_for(1 - 0.05 / players)
    mean = shares.mean(axis=0)
    half = z * shares.std(axis=0, ddof=1) / math.sqrt(measure_games)
    seats = pd.DataFrame({"seat": np.arange(players), "p_pay": mean, "low": mean - half, "high": mean + half,
                          "fair": 1.0 / players})
    devs = {"best in family": deviation, **{h: h for h in habits}}
    gains = measure_gains(variant, players, profile, devs, measure_games, mseed, threads)
    say(f"measured: exploitability {100 * gains['gain'].iloc[0]:.3f} pp")
    return ApproxResult(variant, players, profile, played, converged, history, deviation, dev_rows, seats, gains,
                        selection_gain, games, measure_games, seed, time.perf_counter() - t0)
