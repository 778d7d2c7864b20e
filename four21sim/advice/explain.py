"""Why the round answer and the game answer differ, with numbers.

The advisor (:mod:`four21sim.advice.advisor`) ranks the keeps of a hand twice: by the
round's chance (:mod:`four21sim.exact.odds`) and, for 2 players, by P(winning the game)
(:mod:`four21sim.exact.two_player`). This module says how the two rankings relate:

- **ties and near-ties**: keeps whose values are equal (exactly, for the round's
  fractions; within the solver's tolerance for the game) are called a tie; keeps
  within :data:`NEAR_TIE` of the best (0.25 percentage point) a near-tie;
- **what each keep gives on both measures**, when the answers differ;
- **what drives the difference**: the game value of a keep is split over the round's
  outcome, both players playing the game optimally afterwards::

      P(win the game) = P(win the round) x P(win the game | won it)
                      + P(lose the round) x P(win the game | lost it)

  and the gap between the game's keep ``G`` and the round's keep ``R`` into three
  parts that add up to it exactly: winning the round more or less often, what a won
  round is worth, what a lost round costs (:func:`gap_parts`). Each part is described
  by what makes it: the tokens the round moves (its payout), the game ending at once,
  and for a leader the count of throws it leaves the follower.

The outcome of a round is judged by the solver's round table
(:func:`four21sim.exact.two_player.round_table`) and settled by the rules kernel
(:mod:`four21sim.rules.kernel`), as the engine and the solver settle it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..exact.ties import KEEP_TIE, tolerance
from ..rules import dice
from ..rules import kernel as R

__all__ = ["NEAR_TIE", "GAME_TIE", "Stakes", "stakes", "gap_parts", "ties", "round_tol", "explain", "reason",
           "outcome_values", "round_table", "tie_rule_words", "game_tie_words", "KEEP_ORDER"]

NEAR_TIE = 0.0025
"""Keeps closer than this to the best on a measure (0.25 percentage point of a
probability, 0.0025 token of an expected value) are a near-tie: a difference a
player cannot feel over a night of play."""
GAME_TIE = KEEP_TIE  # the solvers' tie tolerance (exact/ties.py)
KEEP_ORDER = "the keep order (stop, then more dice kept, then higher dice)"
"""How the game answer's tie rule (:func:`four21sim.advice.advisor.keep_order`) is said: of keeps equal on
the game, the first in this order."""
# the codes of two_player.round_table (its docstring): who loses the round
_LEADER_LOSES, _FOLLOWER_LOSES, _TIE = 0, 1, 2
_NH = dice.N_HANDS
_KT = dice.THROW_COUNTS / dice.KT_DENOM[:, None]  # [keep, hand]: P(hand after keeping and throwing)


@dataclass(frozen=True)
class Stakes:
    """One keep's round, both players playing the game optimally afterwards.

    Attributes
    ----------
    keep : str
        The keep, as the advisor writes it.
    value : float
        P(winning the game) after the keep.
    p_win : float
        P(winning the round) (a tie is a fair roll-off: half a win).
    game_if_win, game_if_lose : float
        P(winning the game) after winning, after losing the round.
    pay_if_win, pay_if_lose : float
        The mean payout (tokens moved) of a won round, of a lost round.
    won_now, lost_now : float
        P(the game ends with this round, won), (..., lost).
    count : float or None
        A leader: the mean number of throws the follower gets (the count); None for a follower.
    """

    keep: str
    value: float
    p_win: float
    game_if_win: float
    game_if_lose: float
    pay_if_win: float
    pay_if_lose: float
    won_now: float
    lost_now: float
    count: float | None = None

    @property
    def p_lose(self) -> float:
        return 1.0 - self.p_win


@lru_cache(maxsize=16)
def round_table(variant, phase: str):
    from ..exact.two_player import round_table
    return round_table(variant, phase)


def outcome_values(sol, pot: int, a: int, b: int):
    """For a round led by the player holding ``a`` against ``b``: per payout p, the leader's
    P(win the game), and whether the game ends won or lost, when the leader loses (``[0]``)
    and when the follower loses (``[1]``): arrays ``value[2, P]``, ``won[2, P]``, ``lost[2, P]``."""
    prm = R.params(sol.variant)
    phase = R.phase_of(pot)
    P = int(max(round_table(sol.variant, ph)[1].max() for ph in ("charge", "decharge"))) + 1
    value, won, lost = np.zeros((2, P)), np.zeros((2, P)), np.zeros((2, P))
    for side, loser in enumerate((0, 1)):
        for p in range(1, P):
            tok, out, place = np.array([a, b]), np.zeros(2, np.int64), np.full(2, -1, np.int64)
            _, pot2 = R.settle(phase, pot, tok, 1 - loser, loser, p)
            nout = R.go_out(phase, pot2, tok, out, place, 0, 1 - loser, 2)
            if R.game_over(2, nout, prm):
                leader_wins = (R.result_masks(2, out, tok, place, prm)[0] & 1) == 1
                value[side, p] = float(leader_wins)
                won[side, p], lost[side, p] = float(leader_wins), float(not leader_wins)
            elif R.next_leader(0, loser, 1 - loser, out, 2, prm) == 0:
                value[side, p] = sol.value[pot2, tok[0], tok[1]]
            else:
                value[side, p] = 1.0 - sol.value[pot2, tok[1], tok[0]]
    return value, won, lost


def _finals(start: np.ndarray, made: int, limit: int, decide) -> np.ndarray:
    """``fin[t-1, h]``: P(stopping on h after t throws), from ``start`` (the hand's distribution
    after ``made`` throws), the keep after t < limit throws being ``decide(t, h)``."""
    fin = np.zeros((3, _NH))
    cur = start
    for t in range(made, limit + 1):
        if t == limit:
            fin[t - 1] += cur
            break
        nxt = np.zeros(_NH)
        for h in np.flatnonzero(cur):
            k = int(decide(t, h))
            if k == dice.FULL_KEEP + h:
                fin[t - 1, h] += cur[h]
            else:
                nxt += cur[h] * _KT[k]
        cur = nxt
    return fin


def _start(hand: int, keep: int) -> np.ndarray:
    return _KT[keep] if keep != dice.FULL_KEEP + hand else np.eye(_NH)[hand]


def _accumulate(acc: dict, mass: float, lose_share: float, pay: int, vals, won, lost, me_leads: bool) -> None:
    """Add an outcome of probability ``mass`` (``lose_share``: 1 lost, 0 won, 1/2 a roll-off)
    to the sums of :func:`stakes`. ``vals``, ``won``, ``lost`` are the leader's (side 0: the
    leader loses, side 1: the follower loses)."""
    for outcome, share in (("lose", lose_share), ("win", 1.0 - lose_share)):
        if share == 0.0:
            continue
        side = int((outcome == "lose") != me_leads)
        m = mass * share
        acc[outcome] += m
        acc[outcome + "_v"] += m * (vals[side, pay] if me_leads else 1.0 - vals[side, pay])
        acc[outcome + "_pay"] += m * pay
        acc["won_now"] += m * (won if me_leads else lost)[side, pay]
        acc["lost_now"] += m * (lost if me_leads else won)[side, pay]


def _code_share(code: int, me_leads: bool) -> float:
    if code == _TIE:
        return 0.5
    return float((code == _LEADER_LOSES) == me_leads)


def stakes(variant, role: str, hand, made: int, keep: int, state, leader_hand=None, count=None,
           label: str = "") -> Stakes:
    """The round after ``keep`` split over its outcomes (see :class:`Stakes`), 2 players.

    Parameters
    ----------
    variant : Variant
    role : {'leader', 'follower'}
    hand : int
        The hand held (index).
    made : int
        Throws made so far.
    keep : int
        The keep (index in :data:`four21sim.rules.dice.KEEPS`).
    state : (pot, mine, theirs)
    leader_hand, count : int, optional
        A follower: the leader's hand (index) and count.
    """
    from ..exact import two_player
    sol = two_player.solve(variant)
    pot, mine, theirs = state
    phase = "charge" if pot else "decharge"
    L = variant.throws(phase)
    code, pay = round_table(variant, phase)
    acc = dict.fromkeys(("win", "win_v", "win_pay", "lose", "lose_v", "lose_pay", "won_now", "lost_now"), 0.0)
    start = _start(hand, keep)
    first = _KT[dice.EMPTY_KEEP]
    if role == "follower":
        vals, won, lost = outcome_values(sol, pot, theirs, mine)
        dec = sol.round_detail(pot, theirs, mine)["foll_dec"][leader_hand, count - 1]
        fin = _finals(start, made + 1, count, lambda t, h: dec[t - 1, h]) \
            if keep != dice.FULL_KEEP + hand else _stopped(start, made)
        for f, h in zip(*np.nonzero(fin)):
            cd, p = code[leader_hand, count - 1, h, f], pay[leader_hand, count - 1, h, f]
            _accumulate(acc, fin[f, h], _code_share(cd, False), p, vals, won, lost, False)
        mean_count = None
    else:
        vals, won, lost = outcome_values(sol, pot, mine, theirs)
        d = sol.round_detail(pot, mine, theirs)
        lead_dec, foll_dec = d["lead_dec"], d["foll_dec"]
        fin_l = _finals(start, made + 1, L, lambda t, h: lead_dec[L - t - 1, h]) \
            if keep != dice.FULL_KEEP + hand else _stopped(start, made)
        for c0, hl in zip(*np.nonzero(fin_l)):
            c = c0 + 1
            fin_f = _finals(first, 1, c, lambda t, h, hl=hl, c=c: foll_dec[hl, c - 1, t - 1, h])
            for f, h in zip(*np.nonzero(fin_f)):
                cd, p = code[hl, c - 1, h, f], pay[hl, c - 1, h, f]
                _accumulate(acc, fin_l[c0, hl] * fin_f[f, h], _code_share(cd, True), p, vals, won, lost, True)
        mean_count = float((fin_l.sum(axis=1) * np.arange(1, 4)).sum())
    w, lo = acc["win"], acc["lose"]
    def per(key, n):
        return float(acc[key] / n) if n else 0.0

    return Stakes(label, float(acc["win_v"] + acc["lose_v"]), float(w), per("win_v", w), per("lose_v", lo),
                  per("win_pay", w), per("lose_pay", lo), float(acc["won_now"]), float(acc["lost_now"]), mean_count)


def _stopped(start: np.ndarray, made: int) -> np.ndarray:
    fin = np.zeros((3, _NH))
    fin[made - 1] = start
    return fin


def gap_parts(g: Stakes, r: Stakes) -> dict[str, float]:
    """The game gap ``g.value - r.value`` in three parts that add up to it exactly.

    ``often``: winning the round more (or less) often, at ``r``'s stakes;
    ``win``: what a won round is worth; ``lose``: what a lost round is worth.
    """
    return {"often": (g.p_win - r.p_win) * (r.game_if_win - r.game_if_lose),
            "win": g.p_win * (g.game_if_win - r.game_if_win),
            "lose": g.p_lose * (g.game_if_lose - r.game_if_lose)}


def ties(keeps: list, tol) -> tuple[list, list]:
    """The keeps equal to the first (within ``tol``; 0: exactly) and those within :data:`NEAR_TIE`
    of it but not equal: ``(tied, near)``, each a list of keeps (the first included in ``tied``)."""
    top = keeps[0].value
    tied = [k for k in keeps if abs(k.value - top) <= tol]
    near = [k for k in keeps if k not in tied and top - k.value < NEAR_TIE]
    return tied, near


# ------------------------------------------------------------------ the words
def _what(k) -> str:
    return "stop" if k.stop else f"keep {k.keep}"


def _list(keeps) -> str:
    names = [_what(k) for k in keeps]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _pct(x) -> str:
    return f"{100 * float(x):.2f}%"


def _pp(x) -> str:
    return f"{100 * float(x):+.2f} pp"


def _fmt(x, objective: str) -> str:
    return f"{float(x):.4f}" if objective == "value" else _pct(x)


def _gap(x, objective: str) -> str:
    return f"{float(x):.4f} token" if objective == "value" else f"{100 * float(x):.2f} pp"


def _tie_words(keeps: list, tol, objective: str, measure: str) -> str:
    """'' or a sentence naming the keeps tied with (and near) the best of ``keeps``."""
    tied, near = ties(keeps, tol)
    out = []
    if len(tied) > 1:
        exactly = " exactly" if tol == 0 else ""
        out.append(f"{len(tied)} keeps tie on {measure}: {_list(tied)} all give {_fmt(tied[0].value, objective)}"
                   f"{exactly}.")
    if near:
        gaps = ", ".join(f"{_what(k)} {_gap(keeps[0].value - k.value, objective)} lower" for k in near)
        out.append(f"Near-tie on {measure} (within {_gap(NEAR_TIE, objective)}): {gaps}.")
    return " ".join(out)


def round_tol(keeps) -> float:
    """The round's tie tolerance: 0 between exact fractions, :data:`GAME_TIE` between floats (``ties.tolerance``)."""
    return tolerance([k.value for k in keeps])


def _part_words(name: str, g: Stakes, r: Stakes, phase: str) -> str:
    """What makes one part of :func:`gap_parts`, in words with its numbers."""
    if name == "often":
        more = "more" if g.p_win >= r.p_win else "less"
        return f"winning the round {more} often ({_pct(g.p_win)} against {_pct(r.p_win)})"
    won = name == "win"
    then = (g.game_if_win, r.game_if_win) if won else (g.game_if_lose, r.game_if_lose)
    pay = (g.pay_if_win, r.pay_if_win) if won else (g.pay_if_lose, r.pay_if_lose)
    if won:
        moves = "you give away" if phase == "decharge" else "the opponent takes"
    else:
        moves = "you take" + ("" if phase == "decharge" else " from the pot")
    text = (f"what a {'won' if won else 'lost'} round is worth (then P(win the game) {_pct(then[0])} against "
            f"{_pct(then[1])}; {moves} {pay[0]:.2f} tokens on average against {pay[1]:.2f}")
    ends = (g.won_now, r.won_now) if won else (g.lost_now, r.lost_now)
    if max(ends) > 0:
        text += f"; the game {'won' if won else 'lost'} at once {_pct(ends[0])} against {_pct(ends[1])}"
    return text + ")"


def _why(g: Stakes, r: Stakes, gk, rk, phase: str) -> str:
    """The sentence that splits the game gap between keeps ``gk`` and ``rk`` into its parts."""
    parts = gap_parts(g, r)
    total = g.value - r.value
    shown = sorted((p for p in parts.items() if abs(p[1]) >= 5e-5), key=lambda p: -abs(p[1]))
    words = "; ".join(f"{_part_words(n, g, r, phase)}: {_pp(v)}" for n, v in shown)
    text = (f"Why, for the game ({_what(gk)} against {_what(rk)}, both players playing the game optimally "
            f"afterwards): {words}; in all {_pp(total)}.")
    if g.count is not None and abs(g.count - r.count) > 1e-9:
        text += (f" The count it leaves the follower: {g.count:.2f} throws on average with {_what(gk)}, "
                 f"{r.count:.2f} with {_what(rk)}.")
    return text


def tie_rule_words(round_keeps: list, second: dict | None, objective: str) -> str:
    """'' or the sentence saying how the round's tie rule chose among the keeps tied with the best
    (``second``: keep index -> the rule's measure, :mod:`four21sim.exact.round_pick`)."""
    from ..exact import round_pick
    tied, _ = ties(round_keeps, round_tol(round_keeps))
    if len(tied) < 2 or not second or round_pick.RULE != "value" or objective not in ("round", "beat"):
        return ""
    best, others = tied[0], tied[1:]
    worse = [k for k in others if second[k.index] != second[best.index]]
    if not worse:
        return (f"They also end with hands worth the same on average ({float(second[best.index]):.2f} tokens): "
                f"{_what(best)} comes first in the keep order.")
    return (f"Of them, {_what(best)} ends with the hand worth the most tokens on average "
            f"({float(second[best.index]):.2f}, against " + ", ".join(
                f"{float(second[k.index]):.2f} for {_what(k)}" for k in worse) +
            "): a won round moves as many tokens as the winning hand is worth.")


def game_tie_words(best, others: list, game_of, measure: str) -> tuple[str, bool]:
    """Where keeps the round ties tie on the game too: the sentence saying which keep both answers name
    (``''`` when none does), and whether every one of them does.

    ``best`` is the game answer's keep (its first, by its tie rule, :func:`four21sim.advice.advisor.keep_order`,
    which :func:`four21sim.advice.advisor.best_play` follows), ``others`` the other keeps the round ties
    with it, ``game_of`` keep index -> game value (within :data:`GAME_TIE`: a tie).
    """
    equal = [k for k in others if abs(float(game_of[k.index]) - float(game_of[best.index])) <= GAME_TIE]
    if not equal:
        return "", False
    every = len(equal) == len(others)
    who = (f"They tie on {measure} too ({_pct(game_of[best.index])})" if every else
           f"{_list(equal)} {'ties' if len(equal) == 1 else 'tie'} with it on {measure} too")
    return f"{who[:1].upper()}{who[1:]}: both answers name {_what(best)}, the first of them in {KEEP_ORDER}.", every


def explain(variant, role: str, measure: str, objective: str, round_keeps: list, game_keeps: list | None,
            state, hand: int, made: int, leader_hand: int | None = None, count: int | None = None,
            no_game: str = "Give the game state for the game answer, P(winning the game).",
            tie_rule: str = "") -> str:
    """The advisor's explanation: which answer is which, ties and near-ties, and why they differ.

    Every number is computed: the keeps' values on both measures and, when the answers
    differ, the split of the game gap over the round's outcomes (:func:`gap_parts`).
    ``no_game`` is the last sentence of a round answer without a game answer: where to get one;
    ``tie_rule`` (:func:`tie_rule_words`) how the round answer chose among keeps it ties, said
    when there is no game answer to break the tie.
    """
    rtol = round_tol(round_keeps)
    best = round_keeps[0]
    round_ties = _tie_words(round_keeps, rtol, objective, measure)
    if game_keeps is None:
        return " ".join(filter(None, [f"Round answer only: {_what(best)} maximises {measure} this round "
                                      f"({_fmt(best.value, objective)}).", round_ties, tie_rule,
                                      no_game]))
    pot, mine, theirs = state
    phase = "charge" if pot else "decharge"
    where = f"from pot {pot}, you {mine}, the opponent {theirs}"
    g = game_keeps[0]
    game_ties = _tie_words(game_keeps, GAME_TIE, "game", "P(win the game)")
    game_of = {k.index: k.value for k in game_keeps}
    round_of = {k.index: k.value for k in round_keeps}
    tied, _ = ties(round_keeps, rtol)
    if g.index == best.index:
        head = (f"Both answers say {_what(best)}: it maximises {measure} ({_fmt(best.value, objective)}) and "
                f"P(winning the game) {where} ({_pct(g.value)}).")
        return " ".join(filter(None, [head, round_ties, game_ties]))
    if any(k.index == g.index for k in tied):
        others = [k for k in tied if k.index != g.index]
        same, every = game_tie_words(g, others, game_of, "P(win the game)")
        head = f"The round answer is a tie: {_list(tied)} all give {measure} = {_fmt(best.value, objective)}" + (
            "." if every else f"; the game answer breaks it: {_what(g)} gives P(win the game) {_pct(g.value)} {where}, "
            "against " + ", ".join(f"{_pct(game_of[k.index])} for {_what(k)}" for k in others) + ".")
        return " ".join(filter(None, [head, same, game_ties]))
    # compare with the round keep the game likes best among those the round ties
    r = max(tied, key=lambda k: game_of[k.index])
    d_round, d_game = round_of[r.index] - round_of[g.index], g.value - game_of[r.index]
    head = (f"They differ: {_what(r)} gives {measure} {_fmt(round_of[r.index], objective)} and P(win the game) "
            f"{_pct(game_of[r.index])}; {_what(g)} gives {_fmt(round_of[g.index], objective)} and "
            f"{_pct(g.value)} ({where}). The round answer is ahead by {_gap(d_round, objective)} on the round, "
            f"the game answer by {_gap(d_game, 'game')} on the game.")
    if len(tied) > 1:
        head = round_ties + " " + head
    notes = []
    if d_game < NEAR_TIE:
        notes.append(f"For the game that is a near-tie (under {_gap(NEAR_TIE, 'game')}): either keep will do.")
    if d_round < NEAR_TIE:
        notes.append(f"For the round that is a near-tie (under {_gap(NEAR_TIE, objective)}).")
    sg = stakes(variant, role, hand, made, g.index, state, leader_hand, count, g.keep)
    sr = stakes(variant, role, hand, made, r.index, state, leader_hand, count, r.keep)
    return " ".join([head, *notes, _why(sg, sr, g, r, phase)])


# ------------------------------------------------------------------ the short reason (play's hints, the trainer)
def _kept(hand: int, keep: int, style: str) -> str:
    """The dice kept as ``play`` says them (``6 5``) or as ``advise`` does (``6 5 _``)."""
    return dice.keep_label(hand, keep) if style == "advise" else " ".join(dice.keep_name(keep))


def _doing(hand: int, keep: int, style: str = "play") -> str:
    """A keep as what the player does: ``stopping on 652``, ``throwing all three again``, ``keeping 6 5``."""
    if keep == dice.FULL_KEEP + hand:
        return f"stopping on {dice.hand_name(hand)}"
    return "throwing all three again" if keep == dice.EMPTY_KEEP else f"keeping {_kept(hand, keep, style)}"


def _choice(hand: int, keep: int, style: str = "play") -> str:
    if keep == dice.FULL_KEEP + hand:
        return "stop"
    return "throw all three again" if keep == dice.EMPTY_KEEP else f"keep {_kept(hand, keep, style)}"


def _cause(name: str, g: Stakes, r: Stakes, phase: str, pct) -> str:
    """The part of :func:`gap_parts` named ``name`` as a reason: what the game's keep changes."""
    if name == "often":
        more = "more" if g.p_win >= r.p_win else "less"
        return (f"it wins the round {more} often against an opponent playing the game ({pct(g.p_win)} against "
                f"{pct(r.p_win)})")
    won = name == "win"
    then = (g.game_if_win, r.game_if_win) if won else (g.game_if_lose, r.game_if_lose)
    pay = (g.pay_if_win, r.pay_if_win) if won else (g.pay_if_lose, r.pay_if_lose)
    if won:
        moves = "you give away" if phase == "decharge" else "the opponent takes"
    else:
        moves = "you take"
    source = "" if phase == "decharge" else " from the pot"
    what = "a won round is worth more" if won else "a lost round costs less"
    return (f"{what} after it (then P(win the game) {pct(then[0])} against {pct(then[1])}; {moves} {pay[0]:.2f} "
            f"tokens{source} on average against {pay[1]:.2f})")


def reason(variant, role: str, hand: int, made: int, state, round_keep: int, game_keep: int, round_of, game_of,
           measure: str, objective: str, leader_hand: int | None = None, count: int | None = None,
           digits: int = 2) -> str:
    """One sentence with its numbers: why the game answer's keep beats the round answer's (2 players).

    The short form of :func:`explain` for ``play``'s hints and the trainer: both keeps on both
    measures, the game gap, and the largest part of it (:func:`gap_parts` over :func:`stakes`).

    Parameters
    ----------
    variant : Variant
    role : {'leader', 'follower'}
    hand, made : int
        The hand held (index) and the throws made so far.
    state : (pot, mine, theirs)
    round_keep, game_keep : int
        The round answer's keep and the game answer's (keep indices).
    round_of, game_of : mapping
        Keep index -> the round answer's value, -> P(win the game).
    measure, objective : str
        The round answer's measure (``P(beat 611)``) and objective.
    leader_hand, count : int, optional
        A follower: the leader's hand (index) and count.
    digits : int
        Decimals of the percentages (those of the text around the sentence).
    """
    def pct(x) -> str:
        return f"{100 * float(x):.{digits}f}%"

    def fmt(x) -> str:
        return f"{float(x):.4f}" if objective == "value" else pct(x)

    r, g = int(round_keep), int(game_keep)
    sg = stakes(variant, role, hand, made, g, state, leader_hand, count)
    sr = stakes(variant, role, hand, made, r, state, leader_hand, count)
    name = max(gap_parts(sg, sr).items(), key=lambda p: p[1])[0]
    phase = "charge" if state[0] else "decharge"
    gap = 100 * (float(game_of[g]) - float(game_of[r]))
    return (f"For the game, {_choice(hand, g)} rather than {_choice(hand, r)}: {_doing(hand, r)} gives {measure} "
            f"{fmt(round_of[r])} but P(win the game) {pct(game_of[r])}, {_doing(hand, g)} {fmt(round_of[g])} and "
            f"{pct(game_of[g])} ({gap:+.{digits}f} pp for the game), mostly because "
            f"{_cause(name, sg, sr, phase, pct)}.")


def reason_table(hand: int, round_keep: int, game_keep: int, round_of, pay_of, measure: str, objective: str,
                 digits: int = 2, style: str = "play") -> str:
    """One sentence with its numbers: why the game answer's keep beats the round answer's at 3 players or more.

    Both keeps on both measures (the round's, P(pay)) and what each answer weighs; the
    2-player split over the round's outcomes (:func:`gap_parts`) is not computed at n players.
    ``style``: the keeps written as ``play`` writes them (``keep 6 1``) or as ``advise`` (``keep 6 _ 1``).
    """
    def pct(x) -> str:
        return f"{100 * float(x):.{digits}f}%"

    def fmt(x) -> str:
        return f"{float(x):.4f}" if objective == "value" else pct(x)

    r, g = int(round_keep), int(game_keep)
    gap = 100 * (float(pay_of[r]) - float(pay_of[g]))
    return (f"For the game, {_choice(hand, g, style)} rather than {_choice(hand, r, style)}: {_doing(hand, r, style)} "
            f"gives {measure} {fmt(round_of[r])} but P(pay) {pct(pay_of[r])}, {_doing(hand, g, style)} "
            f"{fmt(round_of[g])} and "
            f"{pct(pay_of[g])} (paying {gap:.{digits}f} pp less often): the round answer plays for this round only "
            "(a leader against one follower, a follower against the worst hand so far), the game answer weighs the "
            "tokens at stake and every player still to throw.")
