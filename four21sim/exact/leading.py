"""The value of leading a round, exactly, under optimal play (2 players, and 3 at the equilibrium).

The leader of a round chooses how many throws the round has; the follower must
answer with as many (``exact``) or at most as many (``at_most``). What is that
worth? From the solver's value function ``V[pot, a, b]`` (P(the round's leader
wins the game) with ``a`` tokens against ``b``):

- ``lead value`` of a state: P(win | I lead this round) - P(win | I follow), with
  the same tokens: ``V[pot, a, b] - (1 - V[pot, b, a])``;
- the round-1 loser's probability of winning the game (and of paying, its
  complement with 2 players);
- the per-round loss rate of the leader and of the follower, by phase, over a
  whole game: expected rounds lost in the phase over expected rounds of the phase,
  from the Markov chain of optimal play (what a long simulation's per-round rate
  converges to).

From three players (:func:`lead_summary_n`, at the certified equilibrium of
:mod:`four21sim.exact.nplayer` where each player minimises its own P(pay)) the same
question has the same form: how much lower is my chance of paying when I lead this
round than when one of the others does, with every player keeping its tokens and
its seat? With two players this is exactly the 2-player lead value above (not paying
is winning).

    >>> from four21sim import Variant
    >>> from four21sim.exact.leading import lead_summary
    >>> lead_summary(Variant.from_preset("montreal"))   # doctest: +SKIP
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pandas is imported where a table is made: a command that makes none does not pay for it
    import pandas as pd

from ..rules import kernel as R
from ..rules.variants import Variant
from .two_player import Solution, _outcome_dist, _round_table_cached, _transitions, solve

__all__ = ["lead_values", "round1_loser_wins", "round_rates_exact", "lead_summary", "lead_values_n", "lead_summary_n",
           "round1_loser_pays"]


def _solution(variant: Variant | Solution) -> Solution:
    if isinstance(variant, Solution):
        return variant
    if not isinstance(variant, Variant):
        raise ValueError(f"variant: {variant!r} is not a Variant or Solution")
    return solve(variant)


def lead_values(variant: Variant | Solution) -> pd.DataFrame:
    """Every live state's value of leading, under optimal play.

    Returns a frame: ``pot, tokens_me, tokens_other, phase, p_win_leading,
    p_win_following, lead_value`` (the difference), one row per state where both
    leading and following are possible with those tokens.
    """
    sol = _solution(variant)
    V = sol.value
    rows = []
    for r in sol.states().itertuples():
        a, b = r.leader_tokens, r.follower_tokens
        lead = float(V[r.pot, a, b])
        follow = 1.0 - float(V[r.pot, b, a])
        rows.append(dict(pot=r.pot, tokens_me=a, tokens_other=b, phase=r.phase, p_win_leading=lead,
                         p_win_following=follow, lead_value=lead - follow))
    import pandas as pd

    return pd.DataFrame(rows)


def _chain(sol: Solution):
    """Per live state (leader's view): the round's outcome distribution under optimal play."""
    v = sol.variant
    T = v.tokens
    tables = [_round_table_cached(v, "charge"), _round_table_cached(v, "decharge")]
    max_pay = int(max(t[1].max() for t in tables))
    dists = {}
    for r in sol.states().itertuples():
        s = (r.pot, r.leader_tokens, r.follower_tokens)
        ld = sol.lead[r.pot * (T + 1) + s[1]].astype(np.int64)
        fd = sol.foll[r.pot * (T + 1) + s[2]].astype(np.int64)
        dists[s] = _outcome_dist(v, r.pot, ld, fd, tables, max_pay)
    return dists


def _visits(sol: Solution, dists: dict) -> dict:
    """Expected number of rounds played in each state from the start (Markov chain)."""
    T = sol.tokens
    prm = R.params(sol.variant)
    states = list(dists)
    idx = {s: i for i, s in enumerate(states)}
    P = np.zeros((len(states), len(states)))
    for s, d in dists.items():
        for pr, nxt, _same in _transitions(*s, d, prm):
            if nxt is not None:
                P[idx[s], idx[nxt]] += pr
    e = np.zeros(len(states))
    e[idx[(T, 0, 0)]] = 1.0
    x = np.linalg.solve(np.eye(len(states)) - P.T, e)
    return {s: float(x[i]) for s, i in idx.items()}


def _leader_loses(dist: np.ndarray) -> float:
    # ties go to a fair roll-off: the leader loses half of them
    return float(dist[0].sum() + dist[2].sum() / 2)


def _side(dist: np.ndarray, leader_loses: bool) -> np.ndarray:
    """The part of ``dist`` where the leader (or the follower) loses the round, ties halved."""
    d = np.zeros_like(dist)
    d[0 if leader_loses else 1] = dist[0 if leader_loses else 1] + dist[2] / 2
    return d


def _p_leader_wins_after(sol: Solution, state, part: np.ndarray) -> float:
    """P(this round's leader wins the game, and the round ends as in ``part``)."""
    V = sol.value
    total = 0.0
    for pr, nxt, same in _transitions(*state, part, R.params(sol.variant)):
        if nxt is None:
            total += pr * (1.0 if same else 0.0)
        else:
            total += pr * (float(V[nxt]) if same else 1.0 - float(V[nxt]))
    return total


def round1_loser_wins(variant: Variant | Solution) -> float:
    """P(the loser of the first round wins the game), 2 players, both optimal (exact).

    With 2 players the loser of the game pays, so P(pays | lost round 1) is one minus this.
    """
    sol = _solution(variant)
    start = (sol.tokens, 0, 0)
    dist = _chain(sol)[start]
    # leader lost: the leader's win; follower lost: the follower's win
    lead_lost = _p_leader_wins_after(sol, start, _side(dist, True))
    foll_lost_part = _side(dist, False)
    foll_lost = float(foll_lost_part.sum()) - _p_leader_wins_after(sol, start, foll_lost_part)
    return lead_lost + foll_lost


def round_rates_exact(variant: Variant | Solution) -> pd.DataFrame:
    """Per-round P(the leader loses) and P(the follower loses), by phase, over whole games.

    ``rate = E[rounds of the phase the position lost] / E[rounds of the phase]``, from
    the expected visits of every state (Markov chain of optimal play from the start).
    With 2 players the follower loses when the leader wins, so the win rates are the
    other position's loss rates. Returns ``phase, position, expected_rounds, p_lose, p_win``.
    """
    sol = _solution(variant)
    dists = _chain(sol)
    vis = _visits(sol, dists)
    states = list(dists)
    visits = np.array([vis[s] for s in states])
    lose = np.array([_leader_loses(dists[s]) for s in states])
    rows = []
    for phase, mask in (("charge", [s[0] > 0 for s in states]), ("decharge", [s[0] == 0 for s in states])):
        m = np.asarray(mask)
        rounds = float(visits[m].sum())
        if rounds <= 0:
            continue
        lead_lose = float((visits[m] * lose[m]).sum()) / rounds
        rows.append(dict(phase=phase, position=0, expected_rounds=rounds, p_lose=lead_lose, p_win=1 - lead_lose))
        rows.append(dict(phase=phase, position=1, expected_rounds=rounds, p_lose=1 - lead_lose, p_win=lead_lose))
    import pandas as pd

    return pd.DataFrame(rows)


def _by_phase(lv: pd.DataFrame, token_cols: tuple[str, ...]) -> dict:
    """Per phase: the smallest, largest and visit-weighted mean lead value, and where it is largest."""
    out = {}
    for phase, g in lv.groupby("phase", sort=False):
        w = g["visits"].to_numpy()
        top = g.loc[g["lead_value"].abs().idxmax()]
        out[phase] = dict(min=float(g["lead_value"].min()), max=float(g["lead_value"].max()),
                          weighted_mean=float((w * g["lead_value"]).sum() / w.sum()) if w.sum() > 0 else None,
                          largest_at=dict(pot=int(top.pot), **{c: int(getattr(top, c)) for c in token_cols},
                                          lead_value=float(top.lead_value)))
    return out


def lead_summary(variant: Variant | Solution) -> dict:
    """What leading is worth, exactly (2 players, optimal play), as plain numbers.

    Returns a dict: ``by_phase`` (per phase: the smallest, largest and visit-weighted
    mean lead value over the live states, and the state where it is largest),
    ``first_round`` (the lead value of the very first round: P(seat 0 wins) minus
    P(seat 1 wins)), ``round1_loser_wins`` and ``round_rates`` (per-round loss rates
    of leader and follower by phase).
    """
    sol = _solution(variant)
    lv = lead_values(sol)
    rates = round_rates_exact(sol)
    vis = _visits(sol, _chain(sol))
    lv["visits"] = [vis[(p, a, b)] for p, a, b in zip(lv["pot"], lv["tokens_me"], lv["tokens_other"])]
    by_phase = _by_phase(lv, ("tokens_me", "tokens_other"))
    return {"by_phase": by_phase, "first_round": 2 * sol.p_seat0 - 1, "round1_loser_wins": round1_loser_wins(sol),
            "round_rates": rates.to_dict(orient="records")}


# --------------------------------------------------------------- three players and more
def _check_nsolution(sol):
    from .nplayer import NSolution
    if not isinstance(sol, NSolution) or sol.objective != "pay":
        raise ValueError(f"sol: {sol!r} is not allowed; allowed: an n-player solution (four21sim.exact.nplayer) "
                         "for objective 'pay'")
    return sol


def _visits_n(sol) -> np.ndarray:
    """Expected rounds played in each state with every player in, from the start (the chain of ``sol.dist``)."""
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla

    from . import _nplayer_game as NG
    game = NG.role_game(sol.variant, sol.players)
    s, lo, w, p = np.nonzero((game.ended == 0) & (game.sub == 0))
    Ns = len(sol.states)
    T = sp.csr_matrix((sol.dist[s, lo, w, p], (s, game.nxt[s, lo, w, p])), shape=(Ns, Ns))
    e = np.zeros(Ns)
    e[sol.start] = 1.0
    return spla.spsolve((sp.identity(Ns, format="csr") - T.T).tocsc(), e)


def lead_values_n(sol) -> pd.DataFrame:
    """Every state's value of leading at the n-player equilibrium (objective ``pay``), 3 players or more.

    For the player X holding ``tokens_me`` in state ``(pot, tokens by role)`` (X leads,
    ``tokens_role1`` ... the holders playing after it, in order): ``p_pay_leading`` is
    X's P(pay) there; ``p_pay_following`` the mean of X's P(pay) when each of the others
    leads instead, everyone keeping its tokens and its place at the table (the state
    rotated: X then plays in role n - r when the holder of role r leads); ``lead_value``
    is following minus leading: what leading saves X in P(pay). ``visits``: the expected
    number of rounds the game plays in the state from the start, everyone still in (the
    equilibrium's Markov chain). ``sol``: an :class:`~four21sim.exact.nplayer.NSolution`.
    """
    sol = _check_nsolution(sol)
    n = sol.players
    index = {st: i for i, st in enumerate(sol.states)}
    P = sol.p_pay
    visits = _visits_n(sol)
    rows = []
    for i, (pot, toks) in enumerate(sol.states):
        lead = float(P[i, 0])
        follow = float(np.mean([P[index[(pot, toks[r:] + toks[:r])], n - r] for r in range(1, n)]))
        rows.append(dict(pot=pot, tokens_me=toks[0], **{f"tokens_role{j}": toks[j] for j in range(1, n)},
                         phase="charge" if pot > 0 else "decharge", p_pay_leading=lead, p_pay_following=follow,
                         lead_value=follow - lead, visits=float(visits[i])))
    import pandas as pd

    return pd.DataFrame(rows)


def round1_loser_pays(sol) -> float:
    """P(the loser of the first round pays), at the n-player equilibrium (objective ``pay``), exact.

    The first round's outcome distribution (``sol.dist`` at the start), each outcome followed by
    the P(pay) of its loser from there (the state it leads to, or the end; under ``last_holder``
    the game of the players left). With 2 players it is one minus :func:`round1_loser_wins`.
    """
    from . import _nplayer_game as NG
    from ._nplayer_profile import _sub_values
    sol = _check_nsolution(sol)
    game = NG.role_game(sol.variant, sol.players)
    S = NG.succ(game, sol.start, sol.value, _sub_values(sol.subs, "pay"), "pay")  # P(not paying) after each outcome
    d = sol.dist[sol.start]
    return float(sum(d[lo].ravel() @ (1.0 - S[lo, ..., lo]).ravel() for lo in range(sol.players)))


def lead_summary_n(sol) -> dict:
    """What leading is worth at a table of 3 players or more (equilibrium, exact), as plain numbers.

    ``by_phase`` (per phase: the smallest, largest and visit-weighted mean lead value over
    the states where everyone is in, and the state where it is largest),
    ``first_round`` (the mean of the other seats' P(pay) minus seat 0's, seat 0 leading the
    first round), ``round1_loser_wins`` (None: with more than 2 players the loser's win share
    is not the question) and ``round1_loser_pays`` (:func:`round1_loser_pays`).
    """
    sol = _check_nsolution(sol)
    lv = lead_values_n(sol)
    by_phase = _by_phase(lv, ("tokens_me",) + tuple(f"tokens_role{j}" for j in range(1, sol.players)))
    return {"by_phase": by_phase, "first_round": float(lv["lead_value"].iloc[sol.start]), "round1_loser_wins": None,
            "round1_loser_pays": round1_loser_pays(sol)}
