"""A plug-in policy (docs/environment.md): ``four21sim play --opponents docs/examples/cautious.py:cautious``."""

from four21sim.rules import dice

RANK = dice.RANK[dice.ranking_index("super421")]


def cautious(turn):
    """Stop (where allowed) on 654 or better; otherwise keep the aces and throw the rest."""
    if turn.may_stop and RANK[turn.hand] <= RANK[dice.parse_hand("654")]:
        return "stop"
    aces = dice.HANDS[turn.hand].count(1)
    return "1" * min(aces, 2) or "-"
