"""The advisor: which dice to keep, answering the round's question and, given the
state of a 2-player game, the game's.

Two questions, two exact answers:

round answer
    From :mod:`four21sim.exact.odds`: the keep that maximises the chance of what this
    round is about. A follower: P(beat the worst hand on the table). A leader:
    P(not losing the round to one follower who plays to beat it)
    (:func:`four21sim.exact.odds.leader_round`), or a goal named with ``objective``.
game answer
    From the exact 2-player solver (:func:`four21sim.exact.two_player.solve`): the keep that
    maximises P(winning the game) from the state ``(pot, mine, theirs)``, both
    players playing optimally afterwards.

They can differ because the game answer weighs the tokens at stake (the pot, one's
own tokens and the opponent's), while the round answer only looks at this round. The
explanation (:mod:`four21sim.advice.explain`) says which keeps tie or nearly tie, what
each answer's keep gives on both measures, and splits the game gap over the round's
outcomes.

    >>> from four21sim.advice import advise
    >>> a = advise("543", role="follower", beat="654", throws_left=1, state=(0, 3, 8))
    >>> print(a.explanation)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .._util.checks import check_int, shown
from .._util.display import wrap_text
from ..exact import nplayer, odds, round_pick
from ..rules import dice
from ..rules.variants import MAX_PLAYERS, MIN_PLAYERS, Variant, as_variant
from .explain import GAME_TIE, explain, round_tol, tie_rule_words, ties

__all__ = ["Advice", "advise", "game_keeps", "rank_keeps", "keep_order", "ROLES", "ROUND_PLAYERS", "GAME_PLAYERS",
           "BestPlay", "best_play", "players_text", "wrap_text", "check_players", "format_advice", "tie_ordered"]

ROLES = ("leader", "follower")

ROUND_PLAYERS = (MIN_PLAYERS, MAX_PLAYERS)
"""The table sizes the round answer takes, ``(lowest, highest)``: every table the engine plays
(it does not depend on the tokens, only on the hands before you)."""
GAME_PLAYERS = (MIN_PLAYERS, nplayer.ANSWER_PLAYERS)
"""The table sizes the game answer takes, ``(lowest, highest)``: those the exact solvers reach
(the 2-player solver; the 3-player and n-player equilibria up to ``nplayer.ANSWER_PLAYERS``: the
solver reaches 8, but a first solve at 7 or 8 players takes hours)."""


def players_text(which: str = "round") -> str:
    """``"2 to 8"`` (``which="round"``) or ``"2 to 6"`` (``"game"``): the ranges as every message says them."""
    lo, hi = {"round": ROUND_PLAYERS, "game": GAME_PLAYERS}[which]
    return f"{lo} to {hi}"


def _label(k) -> str:
    return "stop" if k.stop else k.keep


@dataclass(frozen=True)
class BestPlay:
    """The keep to name as the best play, and the keeps it ties with on the round (see :func:`best_play`).

    Attributes
    ----------
    keep : odds.Keep
        The keep named.
    tied : tuple of odds.Keep
        The other keeps with the same round value (none when the best is alone).
    game : dict or None
        Keep index -> the game answer's value, where there is a game answer.
    lower_is_better : bool
        True when the game values are P(pay).
    game_measure : str
        What the game values are (``P(win the game)``, ``P(pay)``).
    second : dict or None
        Keep index -> the round tie rule's measure (:mod:`four21sim.exact.round_pick`), where
        the round answer's keeps are in that rule's order.
    """

    keep: odds.Keep
    tied: tuple = ()
    game: dict | None = None
    lower_is_better: bool = False
    game_measure: str = ""
    second: dict | None = None

    @property
    def index(self) -> int:
        return self.keep.index

    def _second_note(self) -> str:
        """``''`` or ``; E[value] 1.83 against 1.33 for 6 _ _, 1.00 for 6 3 _``: how the tie rule chose."""
        if not self.second or any(k.index not in self.second for k in [self.keep, *self.tied]):
            return ""
        what = round_pick.SECONDARY[round_pick.RULE]
        mine = self.second[self.index]
        worse = [k for k in self.tied if self.second[k.index] != mine]
        if not worse:
            return f" and on {what}"
        return f"; more {what}: {float(mine):.2f} against " + ", ".join(
            f"{float(self.second[k.index]):.2f} for {_label(k)}" for k in worse)

    def note(self) -> str:
        """``''``, or how the tie was broken: ``(ties with 6 3 _ on the round; better for the game:
        P(pay) 5.72% against 7.34%)``."""
        if not self.tied:
            return ""
        names = ", ".join(_label(k) for k in self.tied)
        if self.game is None:
            return f"(ties with {names} on the round{self._second_note()})"
        mine = self.game[self.index]
        worse = [k for k in self.tied if abs(self.game[k.index] - mine) > GAME_TIE]
        if not worse:
            return f"(ties with {names} on the round and on the game)"
        against = (f"{100 * self.game[worse[0].index]:.2f}%" if len(self.tied) == 1 else
                   ", ".join(f"{100 * self.game[k.index]:.2f}% for {_label(k)}" for k in worse))
        return f"(ties with {names} on the round; better for the game: {self.game_measure} {100 * mine:.2f}% " \
               f"against {against})"


def best_play(round_keeps: Sequence[odds.Keep], game: Mapping | Sequence | None = None, *,
              lower_is_better: bool = False, game_measure: str = "", second: Mapping | None = None,
              game_best: int | None = None) -> BestPlay:
    """The best play: the best keep on the round, a tie on the round broken by the game answer.

    Every command that names a best play (``advise`` at every table size and its JSON ``best``,
    the hints and the trainer of ``play``) names this one.

    Parameters
    ----------
    round_keeps : list of odds.Keep
        The round answer's keeps, best first (:func:`four21sim.exact.odds.keep_advice`).
    game : dict or list of odds.Keep, optional
        The game answer's value of each keep (index -> value, or its rows best first, as
        :func:`keep_order` ranks them).
    lower_is_better : bool
        True when the game values are P(pay) (3 players or more).
    game_measure : str
        What the game values are, for :meth:`BestPlay.note`.
    second : dict, optional
        Keep index -> the round tie rule's measure, for :meth:`BestPlay.note`, when ``round_keeps``
        are in that rule's order (:func:`tie_ordered`).
    game_best : int, optional
        The keep the game answer names (its first row when ``game`` is rows): the best of the
        keeps within 1e-12 of the best by the game's own tie rule (:func:`keep_order`).

    Notes
    -----
    A round tie is an exact tie of the round's fractions (floats: within 1e-12, what the
    exact fractions of tied keeps differ by once rounded; :func:`four21sim.advice.explain.ties`).
    A near-tie (within ``explain.NEAR_TIE``) is not broken: the round answer then has a better
    keep, and the explanation says what the game answer thinks of it. Among the tied keeps,
    the one with the best game value wins; of keeps equal on the game too (within the solvers'
    1e-12), the game answer's own keep where it is one of them (so that the best play and the
    game answer name the same keep, by the game's tie rule), else the first in the round
    answer's order. Without a game answer that order decides: the round
    tie rule's (:func:`tie_ordered`, :mod:`four21sim.exact.round_pick`) where the advisor ranked
    the keeps.
    """
    tied, _ = ties(list(round_keeps), round_tol(round_keeps))
    if game is not None and not isinstance(game, Mapping):
        game_best = game[0].index if game_best is None and len(game) else game_best
        game = {k.index: k.value for k in game}
    if game is not None:
        game = {int(k): float(v) for k, v in game.items()}
    if game is None or len(tied) == 1 or any(k.index not in game for k in tied):
        best = tied[0]
    else:
        sign = -1.0 if lower_is_better else 1.0
        top = max(sign * game[k.index] for k in tied)
        equal = [k for k in tied if sign * game[k.index] >= top - GAME_TIE]
        best = next((k for k in equal if k.index == game_best), equal[0])
    return BestPlay(best, tuple(k for k in tied if k.index != best.index), game, lower_is_better, game_measure,
                    None if second is None else dict(second))


@dataclass(frozen=True)
class Advice:
    """The advisor's answer (see :func:`advise`).

    Attributes
    ----------
    variant : Variant
    role : {'leader', 'follower'}
    hand : str
        The hand held, highest die first.
    throws_left : int
        Throws still allowed.
    throws_made : int
        Throws made so far this round.
    count : int
        The round's throw count: the leader's limit for a leader, the leader's count
        for a follower.
    beat : list of str
        The hands on the table (a follower), best first; the round answer plays
        against the worst of them.
    objective : str
        The round answer's objective (``round``, ``beat``, ``reach``, ``421``, ``value``).
    measure : str
        What the round answer's numbers are, e.g. ``P(beat 611)``.
    round : list of odds.Keep
        Every keep with its exact round score, best first.
    state : tuple or None
        ``(pot, mine, theirs)`` for the game answer.
    game : list of odds.Keep or None
        Every keep with P(winning the game), best first (2 players, exact solver).
    explanation : str
        One line: which answer is which and, when they disagree, why.
    """

    variant: Variant
    role: str
    hand: str
    throws_left: int
    throws_made: int
    count: int
    beat: list
    objective: str
    target: str | None
    measure: str
    round: list
    state: tuple | None = None
    game: list | None = None
    explanation: str = ""
    followers: str = field(default="exact")
    players: int = 2
    seat: int = 0
    game_source: str = ""
    second: dict | None = None

    @property
    def game_measure(self) -> str:
        """What the game answer's numbers are: P(win the game) with 2 players, P(pay) with more."""
        return "P(win the game)" if self.players == 2 else "P(pay)"

    @property
    def best(self) -> BestPlay:
        """The best play: the round's best keep, a tie on the round broken by the game answer (:func:`best_play`)."""
        return best_play(self.round, self.game, lower_is_better=self.players > 2, game_measure=self.game_measure,
                         second=self.second)

    @property
    def best_round(self) -> odds.Keep:
        """The round answer's keep (:attr:`best`): ``round[0]`` unless the game answer breaks a round tie."""
        return self.best.keep

    @property
    def best_game(self) -> odds.Keep | None:
        return self.game[0] if self.game else None

    @property
    def agree(self) -> bool | None:
        """Whether the round and game answers keep the same dice (None without a game answer)."""
        return None if self.game is None else self.best_round.index == self.best_game.index

    def to_dict(self) -> dict:
        """JSON-ready form (the ``advise --json`` output)."""
        def rows(keeps):
            return [{"keep": k.keep, "kept": k.kept, "stop": k.stop, "value": float(k.value),
                     "exact": str(k.value)} for k in keeps]

        out = {"hand": self.hand, "role": self.role, "throws_left": self.throws_left,
               "throws_made": self.throws_made, "count": self.count, "beat": list(self.beat),
               "objective": self.objective, "target": self.target, "measure": self.measure,
               "variant": self.variant.describe(), "ranking": self.variant.ranking,
               "values": self.variant.values, "followers": self.followers,
               "players": self.players, "keeps": rows(self.round)}
        bp = self.best
        out["best"] = {**rows([bp.keep])[0], "ties_with": [k.keep for k in bp.tied], "note": bp.note()}
        if bp.tied and self.second:
            # how the round's tie rule ranks the tied keeps (the order of "keeps" among them)
            out["best"]["tie_rule"] = {"rule": round_pick.RULE, "measure": round_pick.SECONDARY[round_pick.RULE],
                                       "values": {k.keep: float(self.second[k.index]) for k in [bp.keep, *bp.tied]}}
        if self.game is not None and self.players > 2:
            g = [{"keep": k.keep, "kept": k.kept, "stop": k.stop, "p_pay": float(k.value)} for k in self.game]
            st = self.state
            out["game"] = {"state": {"pot": st.pot, "tokens": list(st.tokens), "leader": st.leader,
                                     "seat": self.seat, "players": self.players, "phase": st.phase,
                                     "text": st.text()},
                           "measure": "P(pay)", "source": self.game_source, "keeps": g, "best": g[0]}
        elif self.game is not None:
            pot, mine, theirs = self.state
            g = [{"keep": k.keep, "kept": k.kept, "stop": k.stop, "p_win_game": float(k.value)} for k in self.game]
            out["game"] = {"state": {"pot": pot, "mine": mine, "theirs": theirs,
                                     "phase": "charge" if pot else "decharge"},
                           "measure": "P(win the game)", "keeps": g, "best": g[0]}
        else:
            out["game"] = None
        out["explanation"] = self.explanation
        return out

    def __repr__(self) -> str:
        game = "" if self.game is None else f", game: {self.best_game.keep} ({100 * float(self.best_game.value):.2f}%)"
        return (f"Advice({self.role} {self.hand}, {self.throws_left} throw(s) left, round: {self.best_round.keep} "
                f"({self.measure} = {_fmt(self.best_round.value, self.objective)}){game})")


def _fmt(value, objective: str) -> str:
    return f"{float(value):.4f}" if objective == "value" else f"{100 * float(value):.2f}%"


def _measure(objective: str, target: str | None) -> str:
    return {"round": "P(not losing the round)", "421": "P(421)", "value": "E[value]",
            "beat": f"P(beat {target})", "reach": f"P(reach {target})"}[objective]


def _check_state(variant: Variant, state) -> tuple[int, int, int]:
    from ..exact.two_player import MAX_SOLVER_TOKENS, check_state
    try:
        pot, mine, theirs = (int(x) for x in state)
    except (TypeError, ValueError):
        raise ValueError(f"state: {shown(state)} is not allowed; allowed: three integers POT,MINE,THEIRS adding up "
                         f"to tokens={variant.tokens}") from None
    if variant.tokens > MAX_SOLVER_TOKENS:
        raise ValueError(f"tokens: {variant.tokens} is too many for the exact solver; "
                         f"allowed: 1 to {MAX_SOLVER_TOKENS}")
    check_state(variant, pot, mine, theirs, 0)
    return pot, mine, theirs


_HAND_KEEPS = [[int(k) for k in dice.HAND_KEEPS[h, :dice.N_HAND_KEEPS[h]]] for h in range(dice.N_HANDS)]


def keep_order(h: int, options: dict) -> list[int]:
    """The keeps of ``options`` (keep -> P(win the game)) best first: the first of those within the
    solver's tie tolerance of the best in HAND_KEEPS order (stop, then more dice kept), then the others
    by value (equal values in HAND_KEEPS order)."""
    from ..exact.ties import KEEP_TIE
    order = [k for k in _HAND_KEEPS[h] if k in options]
    top = max(options.values())
    best = next(k for k in order if options[k] >= top - KEEP_TIE)
    pos = {k: i for i, k in enumerate(order)}
    return [best, *sorted((k for k in order if k != best), key=lambda k: (-options[k], pos[k]))]


def rank_keeps(h: int, options: dict) -> list[odds.Keep]:
    """Keeps best first (:func:`keep_order`), as :class:`~four21sim.exact.odds.Keep` rows."""
    return [odds.Keep(dice.keep_label(h, k), float(options[k]),
                      dice.hand_name(h) if k == dice.FULL_KEEP + h else dice.keep_name(k),
                      k == dice.FULL_KEEP + h, int(k)) for k in keep_order(h, options)]


def game_keeps(variant: Variant, role: str, hand, throws_left: int, state, leader_hand=None,
               count: int | None = None) -> list[odds.Keep]:
    """Every keep with P(winning the game), exact, 2 players, best first.

    Parameters
    ----------
    variant : Variant
    role : {'leader', 'follower'}
    hand : str
        The hand held.
    throws_left : int
        Throws still allowed this round.
    state : (pot, mine, theirs)
        Tokens in the pot, held by the player advised and by the opponent.
    leader_hand : str, optional
        A follower: the hand the leader stopped on.
    count : int, optional
        A follower: the leader's number of throws.
    """
    from ..exact import two_player
    pot, mine, theirs = _check_state(variant, state)
    h = odds._as_hand(hand, "hand")
    L = variant.charge_throws if pot else variant.decharge_throws
    sol = two_player.solve(variant)
    if role == "leader":
        made = L - throws_left
        if made < 1:
            raise ValueError(f"throws_left: {throws_left} is not allowed for a leader with a limit of {L} "
                             f"throws; allowed: 0 to {L - 1}")
        return rank_keeps(h, two_player.leader_keep_values(sol, pot, mine, theirs, h, made))
    if role != "follower":
        raise ValueError(f"role: {shown(role)} is not allowed; allowed: {', '.join(ROLES)}")
    hl = odds._as_hand(leader_hand, "beat")
    c = L if count is None else count
    if not 1 <= c <= L:
        raise ValueError(f"count: {shown(c)} is not allowed; allowed: 1 to {L} (the leader's throws this round)")
    made = c - throws_left
    if made < 1:
        raise ValueError(f"throws_left: {throws_left} is not allowed behind a leader who threw {c} time(s); "
                         f"allowed: 0 to {c - 1}")
    return rank_keeps(h, two_player.follower_keep_values(sol, pot, mine, theirs, hl, c, h, made))


def _situation(v: Variant, h: int, role, targets, objective, state, phase, count, throws_left):
    """Check the situation; returns ``(role, target indices, state, phase, count, throws_left)``."""
    target_idx = [odds._as_hand(t, "beat") for t in targets]
    role = role or ("follower" if target_idx or objective == "beat" else "leader")
    if role not in ROLES:
        raise ValueError(f"role: {shown(role)} is not allowed; allowed: {', '.join(ROLES)}")
    if role == "leader" and target_idx:
        raise ValueError("beat: a leader has no hand to beat; allowed: role follower with beat")
    if state is not None:
        state = _check_state(v, state)
        implied = "charge" if state[0] else "decharge"
        if phase is not None and phase != implied:
            raise ValueError(f"phase: {shown(phase)} does not match the state (pot {state[0]}: {implied}); "
                             f"allowed: {implied}")
        phase = implied
    phase = phase or "charge"
    if phase not in ("charge", "decharge"):
        raise ValueError(f"phase: {shown(phase)} is not allowed; allowed: charge, decharge")
    L = v.throws(phase)
    if count is not None and role == "leader":
        raise ValueError("count: the leader's count is for a follower; a leader's limit comes from the phase")
    c = check_int("count", L if count is None else count, 1, L, f"1 to {L} (the {phase} throw limit)")
    throws_left = c - 1 if throws_left is None else throws_left
    check_int("throws_left", throws_left, 0, c - 1,
              f"0 to {c - 1} ({'the leader threw' if role == 'follower' else 'a limit of'} {c} time(s))")
    if state is not None and role == "follower" and len(target_idx) != 1:
        raise ValueError("state: a follower's game answer is for 2 players; allowed: exactly one hand to beat "
                         f"(the leader's), got {len(target_idx)}")
    return role, target_idx, state, phase, c, throws_left


def tie_ordered(v: Variant, role: str, h: int, throws_left: int, rows: list, objective: str,
                target: str | None = None, limit: int | None = None) -> tuple[list, dict | None]:
    """The round answer's keeps ``rows`` with exact ties in the round tie rule's order, and that rule's
    measure of each keep: ``(rows, {keep index: measure})``.

    The rule is :mod:`four21sim.exact.round_pick`'s (one place: the advisor, its JSON, the play's
    hints and the phone page all read it from here). For the round's own objectives (a leader's
    ``round``, a follower's ``beat``); others keep :func:`four21sim.exact.odds.keep_advice`'s order
    and give ``None``.
    """
    if objective not in ("round", "beat"):
        return list(rows), None
    kw = {"limit": limit} if role == "leader" else {"target": odds._as_hand(target, "beat")}
    pos = {k: i for i, k in enumerate(round_pick.order(v, role, h, throws_left, **kw))}
    return (sorted(rows, key=lambda k: pos[k.index]),
            round_pick.secondary_values(v, role, h, throws_left, **kw) or None)


def _round_answer(v: Variant, h: int, role: str, worst: str | None, objective, reach, throws_left: int, c: int,
                  exact: bool):
    """The round answer: ``(objective, target name, every keep best first, the tie rule's measures)``;
    exact ties on the round in the tie rule's order (:func:`tie_ordered`)."""
    if role == "leader":
        obj, tgt = odds.choose_objective(objective, None, reach, "leader")
        rows = odds.keep_advice(dice.hand_name(h), throws_left, obj, tgt, variant=v, exact=exact, throws=c,
                                followers=v.followers if obj == "round" else "at_most")
    else:
        if objective == "round":
            raise ValueError("objective: 'round' is a leader's objective; a follower's is beat")
        obj, tgt = odds.choose_objective(objective, worst, reach, "follower")
        rows = odds.keep_advice(dice.hand_name(h), throws_left, obj, tgt, variant=v, exact=exact)
    rows, second = tie_ordered(v, role, h, throws_left, rows, obj, tgt, c)
    return obj, dice.hand_name(odds._as_hand(tgt, "target")) if tgt is not None else None, rows, second


def advise(hand, *, role: str | None = None, beat: Sequence[str] | str | None = None, reach=None,
           objective: str | None = None, throws_left: int | None = None, count: int | None = None,
           phase: str | None = None, state=None, variant: Variant | str = "super421",
           exact: bool = True, players: int = 2) -> Advice:
    """Which dice to keep: the round answer, and the game answer when ``state`` is given.

    Parameters
    ----------
    hand : str
        The three dice held, any order: ``"631"``.
    role : {'leader', 'follower'}, optional
        Default: follower when ``beat`` is given, else leader.
    beat : str or list of str, optional
        A follower: the hand(s) on the table; the round answer plays against the worst.
    reach : str, optional
        Play to reach this hand or better (the round answer's objective ``reach``).
    objective : {'round', 'beat', 'reach', '421', 'value'}, optional
        The round answer's objective; default ``beat`` for a follower with ``beat``,
        ``round`` for a leader (P(not losing the round to one follower)), else ``421``.
    throws_left : int, optional
        Throws still allowed (default: all but the first: ``count - 1``).
    count : int, optional
        A follower: the leader's number of throws (default: the phase's limit).
    phase : {'charge', 'decharge'}, optional
        Whose throw limit applies (default: from ``state``, else charge).
    state : (pot, mine, theirs), optional
        2 players: tokens in the pot, yours and the opponent's; adds the game answer
        (3 to 6 players: :func:`four21sim.advice.table_answer.advise_table`).
    variant : Variant or str
    exact : bool
        Round scores as fractions (True) or floats.
    players : int
        Players at the table, :data:`ROUND_PLAYERS` (2 to 8). The round answer does not depend
        on it (a follower plays against the worst hand before it, a leader against one
        follower); with ``state`` it must be 2 (3 to 6 players, with every seat's tokens:
        :func:`four21sim.advice.table_answer.advise_table`).

    Returns
    -------
    Advice
        With :attr:`Advice.explanation`: ties and near-ties, and when the answers differ
        what each keep gives on both measures and why (:func:`four21sim.advice.explain.explain`).
    """
    v = as_variant(variant)
    if not isinstance(v, Variant):
        raise ValueError(f"variant: {shown(variant)} is not allowed; allowed: a preset name or a Variant")
    h = odds._as_hand(hand, "hand")
    targets = [beat] if isinstance(beat, str) else list(beat or [])
    check_players(players, game=False)
    if players > 2 and state is not None:
        raise ValueError(f"state: a (pot, mine, theirs) state is for 2 players, not {players}; allowed: "
                         f"advise_table with every seat's tokens ({players_text('game')} players)")
    if players > 2 and len(targets) > players - 1:
        raise ValueError(f"beat: {len(targets)} hands are not allowed at {players} players; allowed: up to "
                         f"{players - 1} (the hands of the players before you this round)")
    role, target_idx, state, phase, c, throws_left = _situation(v, h, role, targets, objective, state, phase,
                                                                count, throws_left)
    rank = dice.RANK[v.ranking_index]
    worst = max(target_idx, key=lambda t: rank[t]) if target_idx else None
    worst_name = dice.hand_name(worst) if worst is not None else None
    obj, tgt_name, rows, second = _round_answer(v, h, role, worst_name, objective, reach, throws_left, c, exact)
    measure = _measure(obj, tgt_name)
    game = None
    if state is not None:
        game = game_keeps(v, role, dice.hand_name(h), throws_left, state, worst_name, c if role == "follower" else None)
    why = explain(v, role, measure, obj, rows, game, state, h, c - throws_left, worst,
                  c if role == "follower" else None, no_game=_no_game(players),
                  tie_rule=tie_rule_words(rows, second, obj))
    return Advice(v, role, dice.hand_name(h), int(throws_left), int(c - throws_left), int(c),
                  [dice.hand_name(t) for t in sorted(target_idx, key=lambda t: rank[t])], obj, tgt_name, measure,
                  rows, state, game, why, v.followers, players, second=second)


def check_players(players, game: bool) -> int:
    """The table size, checked against :data:`GAME_PLAYERS` (``game``) or :data:`ROUND_PLAYERS`."""
    lo, hi = GAME_PLAYERS if game else ROUND_PLAYERS
    what = "the game answer (the exact solvers)" if game else "the round answer"
    return check_int("players", players, lo, hi, f"{lo} to {hi} for {what}")


def _no_game(players: int) -> str:
    """The round-only answer's last sentence: where the game answer is, or that there is none."""
    lo, hi = GAME_PLAYERS
    if players > hi:
        return (f"No game answer at {players} players: the exact solvers reach {lo} to {hi} players, so the "
                "round answer is the advice.")
    what = "P(win the game)" if players == 2 else "P(pay)"
    return (f"The game answer ({what}) needs the state of the game (advise --state); the exact solvers reach "
            f"{lo} to {hi} players.")


def format_advice(adv: Advice, show_exact: bool = False, width: int | None = None) -> str:
    """The advice as the command line prints it, wrapped to ``width`` (default: the terminal's, 80 if none)."""
    v = adv.variant
    who = (f"leader ({adv.throws_made} of up to {adv.count} throws made)" if adv.role == "leader" else
           f"follower behind {', '.join(adv.beat) or 'nobody yet'} ({adv.throws_made} of {adv.count} throws made, "
           f"{v.followers} followers)")
    table = f", {adv.players} players" if adv.players > 2 else ""
    lines = [f"Hand {adv.hand}, {adv.throws_left} throw(s) left, {who}{table}, under {v.describe()}", ""]
    round_q = {"round": "not losing this round to one follower who plays to beat you (a tie counts half)",
               "beat": f"ending strictly above {adv.target}", "reach": f"ending at {adv.target} or above",
               "421": "ending with 421", "value": "the expected value of your hand (tokens)"}[adv.objective]
    lines.append(f"Round answer: {adv.measure}, the exact chance of {round_q}."
                 if adv.objective != "value" else f"Round answer: {adv.measure}, {round_q}.")
    ignored = [what for what, on in (("equal hands split by throw count", v.fewer_throws_wins),
                                     ("the nénette rescue", v.nenette_rescue)) if on]
    if ignored and adv.objective in ("round", "beat", "reach"):
        lines.append(f"  (the round answer ranks hands by the ranking alone: it leaves out {' and '.join(ignored)}; "
                     "the game answer does not)")
    if adv.game is not None and adv.players > 2:
        lines.append(f"Game answer:  P(pay) from {adv.state.text()}, you in seat {adv.seat} ({adv.game_source}).")
    elif adv.game is not None:
        pot, mine, theirs = adv.state
        lines.append(f"Game answer:  P(win the game) from pot {pot}, you {mine}, the opponent {theirs} "
                     "(2 players, both optimal afterwards; exact solver).")
    lines.append("")
    w = max(8, len(adv.measure))
    game = {k.index: k.value for k in adv.game} if adv.game is not None else None
    head = f"  {'keep':<8} {adv.measure:>{w}}" + (f"  {'P(win game)' if adv.players == 2 else 'P(pay)':>11}"
                                                  if game else "") + \
        ("   exact" if show_exact else "")
    lines.append(head)
    for k in adv.round:
        line = f"  {k.keep:<8} {_fmt(k.value, adv.objective):>{w}}"
        if game:
            line += f"  {100 * game[k.index]:>10.2f}%"
        if show_exact:
            line += f"   {k.value}"
        lines.append(line)
    bp = adv.best
    best = bp.keep
    lines += ["", f"Best play: {'stop' if best.stop else 'keep ' + best.keep}  ->  {adv.measure} = "
                  f"{_fmt(best.value, adv.objective)}" + (f" {bp.note()}" if bp.tied else "")]
    if adv.game is not None:
        g = adv.best_game
        lines.append(f"Best play for the game: {'stop' if g.stop else 'keep ' + g.keep}  ->  {adv.game_measure} = "
                     f"{100 * g.value:.2f}%")
    if adv.players > 2 and adv.game is None and adv.role == "leader":
        lines.append(f"  (a leader's round answer is against one follower: with {adv.players - 1} followers "
                     "it is a guide only)")
    return wrap_text("\n".join(lines), width) + "\n\n" + wrap_text(adv.explanation, width, hang="")
