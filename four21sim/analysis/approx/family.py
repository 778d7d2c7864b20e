"""The family of table policies the approximate equilibria are searched in.

Context groups (:func:`context_groups`), the policy with one (leader, threshold, weight)
per group (:func:`family_policy`), and a symmetric profile of such parameters
(:class:`Profile`). What the family is and why: :mod:`four21sim.analysis.approx`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np
import pandas as pd

from ..._util.checks import check_int
from ...exact import odds
from ...exact.ties import first_within
from ...policies import HABITS, Policy, compile_policy, median_hand, table_policy
from ...policies.heuristics import beat_reward, follower_rows, threshold_leader
from ...rules import dice
from ...rules.variants import Variant, as_variant

DEFAULT_BANDS: tuple[int, ...] = (1, 2, 3, 5, 8)
"""Lower ends of the décharge's own-token bands: 1, 2, 3-4, 5-7, 8 or more."""
DEFAULT_WEIGHTS: tuple[float, ...] = (0.0, 0.01, 0.03, 0.1, 0.3)
"""Follower value weights tried by the search."""
LEADER_MODES: tuple[str, ...] = ("reach", "round")
"""The leader's modes: play for the threshold hand, or the round against one follower (odds.leader_round)."""
HABIT_DEVIATIONS: tuple[str, ...] = HABITS
"""Fixed deviations outside the family whose gain is measured beside the family's best."""
MIN_APPROX_PLAYERS = 3


# ------------------------------------------------------------------ input checks

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
            out[limit - made - 1, h] = first_within(options)
    return out


@lru_cache(maxsize=64)
def _follower_rows(variant: Variant, weight: float) -> np.ndarray:
    """foll[target, count - 1, made - 1, hand] of a follower with value weight ``weight``."""
    if weight == 0:  # table-aware's own follower, so that the family contains it exactly
        return compile_policy("table-aware", variant).foll[0].copy()
    value = dice.VALUE[variant.values_index].astype(float)
    return follower_rows(variant, lambda t: beat_reward(variant, t) + weight * value)


def check_threshold(threshold) -> int:
    return check_int("thresholds", threshold, 0, dice.N_HANDS - 1,
                     f"hand indices 0 to {dice.N_HANDS - 1} (dice.parse_hand('633') gives one)")


def check_weight(weight) -> float:
    if isinstance(weight, bool) or not isinstance(weight, (int, float, np.integer, np.floating)) \
            or not math.isfinite(weight) or weight < 0:
        raise ValueError(f"weights: {weight!r} is not allowed; allowed: finite numbers >= 0")
    return float(weight)


def check_leader(mode) -> str:
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
    thresholds = [check_threshold(t) for t in thresholds]
    weights = [check_weight(w) for w in weights]
    leaders = ["reach"] * len(groups) if leaders is None else [check_leader(m) for m in leaders]
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
            m[group] = check_leader(value)
            return replace(self, leaders=tuple(m), _policy=[])
        if parameter == "threshold":
            t = list(self.thresholds)
            t[group] = check_threshold(value)
            return replace(self, thresholds=tuple(t), _policy=[])
        if parameter == "weight":
            w = list(self.weights)
            w[group] = check_weight(value)
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
