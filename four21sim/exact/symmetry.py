"""Where every seat pays exactly 1/players, by a theorem: :func:`seat_symmetry`.

docs/fairness.md states the theorem and proves it; in short, with ``n`` players:

**No decision** (theorem A). If nobody ever chooses anything (both throw limits are 1,
or every seat plays a strategy whose leader never re-throws, so that every round's
count is 1), every seat has the same chance of paying, ``1/n``, whatever the other
options, ``next_leader`` included.

**A decision-free first round** (theorem B). If every seat plays the same seat-blind
strategy, the first round is one throw each (``charge_throws = 1``) and the next round is
led by a player that round's outcome picks (``next_leader`` = ``loser`` or ``winner``),
every seat pays exactly ``1/n``, whatever ``tokens``, ranking, values,
``decharge_throws``, ``followers``, ``fewer_throws_wins``, ``cumulative``,
``nenette_min``, ``nenette_rescue`` and ``end``. With ``next_leader = next_seat`` seat 1
leads the second round whoever lost the first, and the argument fails (the exact values
differ from ``1/n``).

Both say more than "P(pay) is 1/n": the law of the whole game is the same seen from every
seat, so win shares, tokens taken, places are equal across seats too. Neither says that
leading a round is worthless (it is not: docs/fairness.md).

A *seat-blind* strategy decides from what the player sees (its role in the round, the
hands and throws on the table, the tokens and the pot), never from its seat number:
every policy of four21sim is (the engine gives a policy no seat number). A line-up is
given as one strategy name per seat; equal names mean the same seat-blind strategy.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ..rules.variants import MAX_PLAYERS, MIN_PLAYERS, Variant

__all__ = ["SeatSymmetry", "seat_symmetry", "KINDS"]

KINDS = ("no decision", "decision-free first round")
"""The two forms of the theorem (``SeatSymmetry.kind``)."""

# the next-leader rules under which the round's outcome picks the next leader (theorem B)
_PICKED_BY_THE_ROUND = ("loser", "winner")


@dataclass(frozen=True)
class SeatSymmetry:
    """Whether the symmetry theorem makes every seat pay exactly ``1/players``.

    Attributes
    ----------
    applies : bool
        True when a form of the theorem applies: every seat pays exactly ``1/players``
        (and has the same win share, exactly ``1/players``).
    kind : str
        One of :data:`KINDS` when it applies, ``""`` otherwise.
    reason : str
        One sentence: why it applies, or the first condition that fails.
    players : int
    """

    applies: bool
    kind: str
    reason: str
    players: int

    @property
    def share(self) -> float | None:
        """Every seat's exact P(pay) when the theorem applies (``1/players``), else None."""
        return 1.0 / self.players if self.applies else None


def _check(variant: Variant, lineup: Sequence[str]) -> list[str]:
    if not isinstance(variant, Variant):
        raise ValueError(f"variant: {variant!r} is not allowed; allowed: a Variant")
    if isinstance(lineup, str) or not isinstance(lineup, Sequence):
        raise ValueError(f"lineup: {lineup!r} is not allowed; allowed: one strategy name per seat, "
                         "e.g. ['greedy', 'greedy', 'greedy']")
    names = [str(x) for x in lineup]
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise ValueError(f"lineup: {len(names)} seats is not allowed; allowed: {MIN_PLAYERS} to {MAX_PLAYERS} "
                         "seats, one strategy name each")
    return names


def seat_symmetry(variant: Variant, lineup: Sequence[str], never_rethrows: Collection[str] = ()) -> SeatSymmetry:
    """Decide whether every seat pays exactly ``1/players`` by the symmetry theorem.

    Parameters
    ----------
    variant : Variant
    lineup : sequence of str
        One strategy name per seat, seat 0 first (seat 0 leads the first round); equal
        names are the same seat-blind strategy.
    never_rethrows : collection of str
        The names, among ``lineup``'s, of strategies whose leader never re-throws (it
        stops on its first throw in every situation, as ``sec`` does).

    Returns
    -------
    SeatSymmetry
        ``applies`` is True exactly when theorem A or B of the module docstring holds.
        When it is False the seats may still happen to pay equally: the theorem does
        not say they differ.
    """
    names = _check(variant, lineup)
    n = len(names)
    if variant.charge_throws == 1 and variant.decharge_throws == 1:
        return SeatSymmetry(True, KINDS[0], "both throw limits are 1: every round is one throw each and nobody "
                                            "ever decides, so every seat is alike", n)
    if all(x in never_rethrows for x in names):
        who = names[0] if len(set(names)) == 1 else ", ".join(sorted(set(names)))
        return SeatSymmetry(True, KINDS[0], f"every seat plays {who}, whose leader never re-throws: every round "
                                            "is one throw each and nobody ever decides", n)
    if len(set(names)) > 1:
        return SeatSymmetry(False, "", "the seats do not all play the same strategy", n)
    if variant.charge_throws != 1:
        return SeatSymmetry(False, "", f"charge_throws={variant.charge_throws}: the first round's leader "
                                       "chooses its count and the others answer it, so its loser is not a "
                                       "uniformly random seat", n)
    if variant.next_leader not in _PICKED_BY_THE_ROUND:
        return SeatSymmetry(False, "", f"next_leader={variant.next_leader}: seat 1 leads the second round "
                                       "whoever lost the first, so seat 0's first lead is not forgotten", n)
    return SeatSymmetry(True, KINDS[1], f"the first round is one throw each with no decision (charge_throws=1), "
                                        f"so its {variant.next_leader}, who leads next, is a uniformly random "
                                        "seat, and every later rule treats the seats alike", n)
