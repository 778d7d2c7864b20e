"""The rules tables, copied by hand from the rules text (docs/rules.md), for every test.

Nothing here is computed from the package: tests compare the package with these
literal tables, so a misreading in four21sim would not be shared by its witnesses.
Hands are tuples of dice, highest first: ``(4, 2, 1)``.
"""

from __future__ import annotations

# The plain hands "read as numbers from 665 down to 322", written out.
PLAIN = ("665 664 663 662 661 655 653 652 651 644 643 642 641 633 632 631 622 621 "
         "554 553 552 551 544 542 541 533 532 531 522 521 443 442 441 433 431 422 332 331 322")

# The three rankings of the rules' table, best first, hand by hand.
RANKING_TEXT = {
    "super421": "421 111 611 666 511 555 411 444 311 333 211 222 654 543 432 321 " + PLAIN + " 221",
    "montreal": "421 111 666 611 555 511 444 411 333 311 222 211 654 543 432 321 " + PLAIN + " 221",
    "classic": "421 111 666 611 555 511 444 411 333 311 222 211 654 543 432 321 221 " + PLAIN,
}


def hand(text: str) -> tuple[int, ...]:
    """``"421"`` -> ``(4, 2, 1)``."""
    return tuple(int(c) for c in text)


RANKING = {name: [hand(s) for s in text.split()] for name, text in RANKING_TEXT.items()}
"""RANKING[name]: the 56 hands, best first."""
POSITION = {name: {h: i for i, h in enumerate(order)} for name, order in RANKING.items()}
"""POSITION[name][hand]: 0 for the best hand, 55 for the worst."""

FOUR21 = (4, 2, 1)
NENETTE = (2, 2, 1)
SUITES = ((6, 5, 4), (5, 4, 3), (4, 3, 2), (3, 2, 1))
COMBINATION_CATEGORIES = ("421", "brelan", "fiche", "suite")


def category_of(h: tuple) -> str:
    """421, brelan (three of a kind), fiche (two aces and another die), suite, nenette or plain."""
    a, b, c = h
    if h == FOUR21:
        return "421"
    if a == b == c:
        return "brelan"
    if b == c == 1:
        return "fiche"
    if h in SUITES:
        return "suite"
    if h == NENETTE:
        return "nenette"
    return "plain"


def is_combination(h: tuple) -> bool:
    """A 421, brelan, fiche or suite."""
    return category_of(h) in COMBINATION_CATEGORIES


# The value table of the rules: tokens a hand is worth, by scheme.
VALUE_421 = {"super421": 8, "classic": 10}
VALUE_111 = 7
VALUE_SUITE = 2
VALUE_221 = {"super421": 1, "classic": 4}
VALUE_PLAIN = 1


def value_of(h: tuple, scheme: str) -> int:
    """421: 8 or 10; 111: 7; x11 and xxx: x; suite: 2; 221: 1 or 4; plain: 1."""
    cat = category_of(h)
    if cat == "421":
        return VALUE_421[scheme]
    if h == (1, 1, 1):
        return VALUE_111
    if cat in ("brelan", "fiche"):
        return h[0]
    if cat == "suite":
        return VALUE_SUITE
    if cat == "nenette":
        return VALUE_221[scheme]
    return VALUE_PLAIN
