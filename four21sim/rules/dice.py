"""Dice, hands, keeps and the rule tables of 421, as numpy arrays.

Everything here is built once at import time from the rules alone and is read
directly by the numba kernels and the exact solvers.

Encodings
---------
outcome
    One of the 216 ordered results of throwing three dice, ``o = 36*(d0-1) +
    6*(d1-1) + (d2-1)``.
hand
    One of the 56 multisets of three dice, written highest die first
    (``"421"``, ``"611"``). Hands are indexed 0..55 in decreasing numeric order,
    so ``HANDS[0] == (6, 6, 6)`` and ``HANDS[55] == (1, 1, 1)``.
keep
    One of the 84 multisets of 0 to 3 dice a player can keep before
    re-throwing the others. Keeps are indexed by size first (0 dice, then 1, 2,
    3) and, within a size, in decreasing numeric order. Keeping all three dice
    means *stopping*; the keep index of the full hand ``h`` is ``FULL_KEEP + h``.
rank
    ``RANK[ranking, hand]`` is the hand's position in the ranking, 0 for the
    best hand and 55 for the worst: lower is better. Every ranking is a total
    order on the 56 hands.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import numpy as np

from .._util.checks import shown

__all__ = [
    "HANDS", "N_HANDS", "KEEPS", "N_KEEPS", "FULL_KEEP", "OUTCOME_HAND",
    "CATEGORY", "CATEGORY_NAMES", "RANKINGS", "VALUE_SCHEMES", "RANK", "VALUE",
    "ORDER", "HAND_KEEPS", "N_HAND_KEEPS", "KEEP_SIZE", "KEEP_RESULT",
    "KT_START", "KT_HAND", "KT_COUNT", "KT_DENOM", "THROW_COUNTS",
    "hand_index", "hand_name", "parse_hand", "keep_index", "keep_label",
    "keep_name", "is_combination", "ranking_index", "values_index",
    "keeps_of", "throw_distribution",
]

# --------------------------------------------------------------------------- hands
HANDS: tuple[tuple[int, int, int], ...] = tuple(
    sorted(
        ((a, b, c) for a in range(1, 7) for b in range(1, a + 1) for c in range(1, b + 1)),
        reverse=True,
    )
)
N_HANDS = len(HANDS)
_HAND_INDEX = {h: i for i, h in enumerate(HANDS)}

KEEPS: tuple[tuple[int, ...], ...] = tuple(
    k
    for size in range(4)
    for k in sorted(
        {tuple(sorted(c, reverse=True)) for c in itertools.combinations_with_replacement(range(1, 7), size)},
        reverse=True,
    )
)
N_KEEPS = len(KEEPS)
_KEEP_INDEX = {k: i for i, k in enumerate(KEEPS)}
FULL_KEEP = _KEEP_INDEX[HANDS[0]]
assert all(_KEEP_INDEX[h] == FULL_KEEP + i for i, h in enumerate(HANDS))

KEEP_SIZE = np.array([len(k) for k in KEEPS], dtype=np.int64)
KEEP_DTYPE = np.int8  # keep indices 0..83 fit a byte: decision tables stay small

OUTCOME_HAND = np.array(
    [_HAND_INDEX[tuple(sorted(o, reverse=True))] for o in itertools.product(range(1, 7), repeat=3)],
    dtype=np.int64,
)
"""Hand index of each of the 216 ordered outcomes."""

# ------------------------------------------------------------------- categories
CATEGORY_NAMES = ("421", "brelan", "fiche", "suite", "nenette", "plain")
CAT_421, CAT_BRELAN, CAT_FICHE, CAT_SUITE, CAT_NENETTE, CAT_PLAIN = range(6)
_SUITES = ((6, 5, 4), (5, 4, 3), (4, 3, 2), (3, 2, 1))


def _category(h: tuple[int, int, int]) -> int:
    a, b, c = h
    if h == (4, 2, 1):
        return CAT_421
    if a == b == c:
        return CAT_BRELAN
    if b == c == 1:
        return CAT_FICHE
    if h in _SUITES:
        return CAT_SUITE
    if h == (2, 2, 1):
        return CAT_NENETTE
    return CAT_PLAIN


CATEGORY = np.array([_category(h) for h in HANDS], dtype=np.int64)
"""Category code of each hand; names in ``CATEGORY_NAMES``."""


def is_combination(hand: int) -> bool:
    """True for a 421, a brelan, a fiche or a suite (docs/rules.md's *combination*)."""
    return int(CATEGORY[hand]) <= CAT_SUITE


# --------------------------------------------------------------------- rankings
RANKINGS = ("super421", "montreal", "classic")
VALUE_SCHEMES = ("super421", "classic")


def _ranking_order(name: str) -> list[tuple[int, int, int]]:
    top = [(4, 2, 1), (1, 1, 1)]
    for x in range(6, 1, -1):
        fiche, brelan = (x, 1, 1), (x, x, x)
        top += [fiche, brelan] if name == "super421" else [brelan, fiche]
    plain = [h for h in HANDS if CATEGORY[_HAND_INDEX[h]] == CAT_PLAIN]  # numeric order
    if name == "classic":
        return top + list(_SUITES) + [(2, 2, 1)] + plain
    return top + list(_SUITES) + plain + [(2, 2, 1)]


ORDER = np.array([[_HAND_INDEX[h] for h in _ranking_order(r)] for r in RANKINGS], dtype=np.int64)
"""``ORDER[ranking]`` lists the hand indices best first."""
RANK = np.empty((len(RANKINGS), N_HANDS), dtype=np.int64)
for _r in range(len(RANKINGS)):
    RANK[_r, ORDER[_r]] = np.arange(N_HANDS)
assert all(sorted(ORDER[r]) == list(range(N_HANDS)) for r in range(len(RANKINGS)))


def _value(h: tuple[int, int, int], scheme: str) -> int:
    cat = _category(h)
    if cat == CAT_421:
        return 8 if scheme == "super421" else 10
    if h == (1, 1, 1):
        return 7
    if cat in (CAT_BRELAN, CAT_FICHE):
        return h[0]
    if cat == CAT_SUITE:
        return 2
    if cat == CAT_NENETTE:
        return 1 if scheme == "super421" else 4
    return 1


VALUE = np.array([[_value(h, s) for h in HANDS] for s in VALUE_SCHEMES], dtype=np.int64)
"""``VALUE[scheme, hand]``: tokens the hand is worth."""


def ranking_index(name: str) -> int:
    """Index of a ranking name in ``RANKINGS`` (ValueError if unknown)."""
    try:
        return RANKINGS.index(name)
    except ValueError:
        raise ValueError(f"ranking: unknown ranking {shown(name)}; allowed: {', '.join(RANKINGS)}") from None


def values_index(name: str) -> int:
    """Index of a value-scheme name in ``VALUE_SCHEMES`` (ValueError if unknown)."""
    try:
        return VALUE_SCHEMES.index(name)
    except ValueError:
        raise ValueError(f"values: unknown value scheme {shown(name)}; allowed: {', '.join(VALUE_SCHEMES)}") from None


# ------------------------------------------------------------- hands as text
def hand_index(dice) -> int:
    """Hand index of three dice given in any order."""
    return _HAND_INDEX[tuple(sorted((int(d) for d in dice), reverse=True))]


def hand_name(hand: int) -> str:
    """The hand as people write it, highest die first: ``"421"``."""
    return "".join(str(d) for d in HANDS[hand])


def parse_hand(text, option: str = "hand") -> int:
    """Parse a hand written as three dice in any order.

    Accepts ``"421"``, ``"124"``, ``"4-2-1"``, ``"4 2 1"``, ``(4, 2, 1)``.

    Raises
    ------
    ValueError
        Naming *option*, the bad value and what is allowed.
    """
    if isinstance(text, (tuple, list)):
        digits = [str(d) for d in text]
    else:
        digits = [ch for ch in str(text) if not ch.isspace() and ch not in "-,/"]
    allowed = "three dice 1..6 in any order, e.g. 421 or 4-2-1"
    if len(digits) != 3:
        raise ValueError(f"{option}: {shown(text)} is not a hand of three dice; allowed: {allowed}")
    if not all(len(d) == 1 and d in "123456" for d in digits):
        raise ValueError(f"{option}: {shown(text)} has a die outside 1..6; allowed: {allowed}")
    return hand_index(int(d) for d in digits)


# ------------------------------------------------------------------------ keeps
def keep_index(dice) -> int:
    """Keep index of a multiset of 0..3 dice."""
    return _KEEP_INDEX[tuple(sorted((int(d) for d in dice), reverse=True))]


def keep_name(keep: int) -> str:
    """The kept dice, highest first (``"21"``), or ``"-"`` for none."""
    return "".join(str(d) for d in KEEPS[keep]) or "-"


def keep_label(hand: int, keep: int) -> str:
    """A keep shown against the hand, ``"_ 2 1"`` for 421 keeping 2 and 1.

    The full keep is shown as ``"stop"``.
    """
    if keep == FULL_KEEP + hand:
        return "stop"
    left = Counter(KEEPS[keep])
    out = []
    for d in HANDS[hand]:
        if left[d] > 0:
            out.append(str(d))
            left[d] -= 1
        else:
            out.append("_")
    return " ".join(out)


def _sub_multisets(h: tuple[int, int, int]) -> list[int]:
    subs = {tuple(sorted(c, reverse=True)) for n in range(4) for c in itertools.combinations(h, n)}
    # Order of preference on exact ties: stop first, then keep more dice, then
    # higher dice; solvers and policies take the first best keep in this order.
    return sorted((_KEEP_INDEX[s] for s in subs), key=lambda k: (-len(KEEPS[k]), [-d for d in KEEPS[k]]))


HAND_KEEPS = np.full((N_HANDS, 8), -1, dtype=np.int64)
"""``HAND_KEEPS[h, :N_HAND_KEEPS[h]]``: the distinct keeps of hand h, stop first."""
N_HAND_KEEPS = np.zeros(N_HANDS, dtype=np.int64)
for _h, _dice in enumerate(HANDS):
    _ks = _sub_multisets(_dice)
    N_HAND_KEEPS[_h] = len(_ks)
    HAND_KEEPS[_h, : len(_ks)] = _ks


def keeps_of(hand: int, *, allow_stop: bool = True) -> list[int]:
    """Distinct keeps of a hand, stop first (omitted if ``allow_stop`` is False)."""
    ks = [int(k) for k in HAND_KEEPS[hand, : N_HAND_KEEPS[hand]]]
    return ks if allow_stop else ks[1:]


# ------------------------------------------------------------ throw transitions
KEEP_RESULT = np.full((N_KEEPS, 216), -1, dtype=np.int64)
"""``KEEP_RESULT[k, r]``: hand after keeping k and throwing the other ``3-|k|``
dice with result r (the new dice in throw order as a base-6 number, first die
most significant, digits 0..5 for faces 1..6)."""
THROW_COUNTS = np.zeros((N_KEEPS, N_HANDS), dtype=np.int64)
"""``THROW_COUNTS[k, h]``: number of the ``6**(3-|k|)`` equally likely throws
that turn keep k into hand h."""
for _k, _kept in enumerate(KEEPS):
    _n = 3 - len(_kept)
    for _r, _new in enumerate(itertools.product(range(1, 7), repeat=_n)):
        _h = hand_index(_kept + _new)
        KEEP_RESULT[_k, _r] = _h
        THROW_COUNTS[_k, _h] += 1

KT_DENOM = 6 ** (3 - KEEP_SIZE)
_nz = [np.flatnonzero(THROW_COUNTS[k]) for k in range(N_KEEPS)]
KT_START = np.zeros(N_KEEPS + 1, dtype=np.int64)
KT_START[1:] = np.cumsum([len(z) for z in _nz])
KT_HAND = np.concatenate(_nz).astype(np.int64)
KT_COUNT = np.concatenate([THROW_COUNTS[k, z] for k, z in enumerate(_nz)]).astype(np.int64)
"""Sparse form of ``THROW_COUNTS``: keep k leads to ``KT_HAND[KT_START[k]:KT_START[k+1]]``
with counts ``KT_COUNT[...]`` out of ``KT_DENOM[k]``."""

EMPTY_KEEP = 0


def throw_distribution(keep: int = EMPTY_KEEP) -> dict[int, Fraction]:
    """Exact distribution of the hand after keeping ``keep`` and throwing the rest."""
    den = int(KT_DENOM[keep])
    return {
        int(KT_HAND[i]): Fraction(int(KT_COUNT[i]), den) for i in range(KT_START[keep], KT_START[keep + 1])
    }


for _arr in (OUTCOME_HAND, CATEGORY, RANK, VALUE, ORDER, HAND_KEEPS, N_HAND_KEEPS, KEEP_SIZE,
             KEEP_RESULT, THROW_COUNTS, KT_START, KT_HAND, KT_COUNT, KT_DENOM):
    _arr.setflags(write=False)
