"""Which keep is best, by enumeration: the round answers written here from the rules (docs/rules.md).

The witnesses of tests/test_advise_cli.py and tests/test_advice_answers.py: every throw of the
dice thrown again, exact fractions, nothing of the package but the hand order of
tests/rules_tables.py.
"""

import itertools
from fractions import Fraction
from functools import lru_cache

from rules_tables import POSITION

POS = POSITION["super421"]


def srt(d):
    return tuple(sorted(d, reverse=True))


def brute_beat_exact(hand, m, target):
    """{kept dice: P(end strictly above target)} under 'exact' followers, by enumeration."""
    tpos = POS[target]

    @lru_cache(maxsize=None)
    def best(h, left):
        if left == 0:
            return Fraction(int(POS[h] < tpos))
        return max(options(h, left).values())

    @lru_cache(maxsize=None)
    def options(h, left):
        out = {}
        for keep in {srt(c) for n in range(3) for c in itertools.combinations(h, n)}:  # never all 3
            new = list(itertools.product(range(1, 7), repeat=3 - len(keep)))
            out[keep] = sum(best(srt(keep + t), left - 1) for t in new) / Fraction(len(new))
        return out

    return options(hand, m)


def brute_beat(hand, m, target, ranking, followers):
    """{kept dice (stop: the hand): P(end strictly above target)} by enumeration, either follower rule."""
    pos = POSITION[ranking]

    @lru_cache(maxsize=None)
    def best(h, left):
        return Fraction(int(pos[h] < pos[target])) if left == 0 else max(options(h, left).values())

    @lru_cache(maxsize=None)
    def options(h, left):
        sizes = range(4) if followers == "at_most" else range(3)
        out = {}
        for keep in {srt(c) for n in sizes for c in itertools.combinations(h, n)}:
            if len(keep) == 3:
                out[keep] = Fraction(int(pos[h] < pos[target]))
                continue
            new = list(itertools.product(range(1, 7), repeat=3 - len(keep)))
            out[keep] = sum(best(srt(keep + t), left - 1) for t in new) / Fraction(len(new))
        return out

    return options(hand, m)
