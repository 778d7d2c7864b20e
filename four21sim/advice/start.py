"""The chance of an objective from the start of a turn, before the first throw: ``four21sim advise``
without a hand (``advise --throws-left 3``, ``advise --beat 654``).

All three dice are thrown first; after each throw the player keeps the best dice for the
objective (the single-turn odds of :mod:`four21sim.exact.odds`, :meth:`TurnOdds.start_value`),
stopping when the objective is made if the rule lets it stop. The answer is one number: a
chance, or an expected value for the objective ``value``.

    >>> start_answer(objective="421").value      # up to 3 throws, best keeping, stopping on 421
    Fraction(42571, 186624)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .._util.checks import check_int, shown
from ..exact import odds
from ..rules import dice
from ..rules.variants import Variant, as_variant
from .advisor import _fmt, _measure, _situation

__all__ = ["StartAnswer", "start_answer", "format_start"]


@dataclass(frozen=True)
class StartAnswer:
    """The chance of the objective from the start of a turn (see :func:`start_answer`).

    Attributes
    ----------
    variant : Variant
    role : {'leader', 'follower'}
    throws : int
        The throws of the turn, the first included.
    beat : list of str
        A follower: the hands on the table, best first (the answer plays against the worst).
    objective, target, measure : str
        As in :class:`~four21sim.advice.advisor.Advice`.
    followers : {'at_most', 'exact'}
        The rule the keeps obey (a leader may always stop: ``at_most``, except for the
        objective ``round``, where it is the follower's rule).
    value : Fraction or float
    """

    variant: Variant
    role: str
    throws: int
    beat: list
    objective: str
    target: str | None
    measure: str
    followers: str
    value: object

    def to_dict(self) -> dict:
        """JSON-ready form (the ``advise --json`` output without a hand)."""
        return {"hand": None, "start": True, "role": self.role, "throws": self.throws, "beat": list(self.beat),
                "objective": self.objective, "target": self.target, "measure": self.measure,
                "variant": self.variant.describe(), "ranking": self.variant.ranking, "values": self.variant.values,
                "followers": self.followers, "value": float(self.value), "exact": str(self.value)}


def start_answer(*, role: str | None = None, beat: Sequence[str] | str | None = None, reach=None,
                 objective: str | None = None, throws: int | None = None, count: int | None = None,
                 phase: str | None = None, variant: Variant | str = "super421", exact: bool = True) -> StartAnswer:
    """The chance of ``objective`` from the start of a turn, all three dice to throw.

    Parameters
    ----------
    role : {'leader', 'follower'}, optional
        Default: follower when ``beat`` is given, else leader.
    beat : str or list of str, optional
        A follower: the hand(s) on the table; the answer plays against the worst.
    reach : str, optional
        The objective ``reach``: end at this hand or above.
    objective : {'421', 'beat', 'reach', 'value', 'round'}, optional
        Default ``beat`` with ``beat``, ``reach`` with ``reach``, else ``421``.
    throws : int, optional
        The throws of the turn, 1 to the round's count (default: the count).
    count : int, optional
        A follower: the leader's number of throws (default: the phase's limit).
    phase : {'charge', 'decharge'}, optional
        Whose throw limit applies (default: charge).
    variant : Variant or str
    exact : bool
        A fraction (True) or a float.

    Returns
    -------
    StartAnswer
    """
    v = as_variant(variant)
    if not isinstance(v, Variant):
        raise ValueError(f"variant: {shown(variant)} is not allowed; allowed: a preset name or a Variant")
    targets = [beat] if isinstance(beat, str) else list(beat or [])
    # the advisor's own checks of the situation (role, hands to beat, phase, count); no throw made yet
    role, target_idx, _, phase, c, _ = _situation(v, None, role, targets, objective, None, phase, count, 0)
    throws = check_int("throws_left", c if throws is None else throws, 1, c,
                       f"1 to {c} (no hand: the throws of the whole turn, the first included)")
    rank = dice.RANK[v.ranking_index]
    worst = dice.hand_name(max(target_idx, key=lambda t: rank[t])) if target_idx else None
    if objective is None and worst is None and reach is None:
        objective = "421"  # a leader's default with a hand, "round", needs the hand to stop on
    if role == "follower" and objective == "round":
        raise ValueError("objective: 'round' is a leader's objective; a follower's is beat")
    obj, tgt = odds.choose_objective(objective, worst, reach, role)
    tgt_idx = odds._as_hand(tgt, obj) if tgt is not None else None
    if obj == "round":  # the leader's round against one follower of the variant's rule
        followers = v.followers
        lr = odds.leader_round(v.ranking, followers, throws, exact)
        value = sum((p if exact else float(p)) * lr.value[1][h] for h, p in dice.throw_distribution().items())
    else:
        followers = v.followers if role == "follower" else "at_most"
        value = odds.turn_odds(obj, tgt_idx, v.ranking, v.values, followers, exact).start_value(throws)
    tname = dice.hand_name(tgt_idx) if tgt_idx is not None else None
    return StartAnswer(v, role, throws, [dice.hand_name(t) for t in sorted(target_idx, key=lambda t: rank[t])],
                       obj, tname, _measure(obj, tname), followers, value)


def format_start(ans: StartAnswer, show_exact: bool = False) -> str:
    """The answer as the command line prints it."""
    who = ("a leader, who may stop any time" if ans.role == "leader" and ans.objective != "round" else
           "a leader" if ans.role == "leader" else
           f"a follower behind {', '.join(ans.beat) or 'nobody yet'} ({ans.followers} followers)")
    exact = f"  ({ans.value})" if show_exact else ""
    return (f"From the start of a turn: all three dice to throw, up to {ans.throws} throw(s), best keeping "
            f"after each, as {who}, under {ans.variant.describe()}\n\n"
            f"{ans.measure} = {_fmt(ans.value, ans.objective)}{exact}")
