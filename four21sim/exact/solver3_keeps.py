"""One decision's keep values under a 3-player solution: what each legal keep is worth to the
player choosing it, everyone playing the certified equilibrium afterwards (the trainer's measure).

Split from :mod:`four21sim.exact.solver3`, which solves the game; this module only reads a
:class:`~four21sim.exact.solver3.Solution3` and replays one round of its solver.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..rules import dice
from . import _solver3_kernels as K3
from .solver3 import _DEC, _NH, Solution3, _Solver

__all__ = ["keep_values"]

# --------------------------------------------------------------- one decision's keep values
# M[k, h]: P(hand h after keeping k and throwing the rest), for the keeps that throw a die
_THROW_P = dice.THROW_COUNTS[:dice.FULL_KEEP] / dice.KT_DENOM[:dice.FULL_KEEP, None]


@lru_cache(maxsize=4)
def _keep_solver(sol: Solution3) -> _Solver:
    return _Solver(sol.variant, sol.players, sol.objective, sol.sub)


@lru_cache(maxsize=64)
def _round_payoffs(sol: Solution3, s: int) -> np.ndarray:
    """``TT[code, pay, j]`` of state s: the profile's utilities after each outcome of its round."""
    S_ = _keep_solver(sol)
    dech = S_.pots == 0
    V = sol.basis if S_.pots[s] == 0 else np.where(dech[:, None], sol.value, sol.basis)  # as in decisions()
    S = S_.succ(s, V, S_.sub_val if sol.sub is not None else None)
    return np.ascontiguousarray(np.einsum("clw,lwpk->cpk", S_.pat, S))


def _turn(S_: _Solver, wf: np.ndarray, c: int, role: int) -> tuple[np.ndarray, np.ndarray]:
    """The profile's play of one turn (``wf[f-1, j, h]``: utilities ending on h after f throws):
    the utilities before its first throw, and its keeps ``dec[made-1, h]``."""
    n, first = S_.n, 1 if (role > 0 and S_.v.followers == "exact") else 0
    dec, dec_w = np.zeros((2, _NH), _DEC), np.zeros((2, _NH), _DEC)
    out = np.empty(n)
    K3.player_dp(wf, c, first, role, -1, n, dec, dec_w, np.empty((n, _NH)), np.empty((n, _NH)),
                 np.empty((n, K3._N_PARTIAL)), out)
    return out, dec


def _turn_inputs(sol: Solution3, s: int, role: int, c: int, before: tuple, memo: dict) -> np.ndarray:
    """``wf[f-1, j, h]`` of the player in ``role`` after the hands ``before`` ((hand, throws) by role)."""
    S_ = _keep_solver(sol)
    n = S_.n
    wf = np.zeros((3, n, _NH))
    if role == n - 1:
        code, pay = S_.tables["decharge" if S_.pots[s] == 0 else "charge"]
        idx = tuple(x for h, f in before for x in (h, f - 1))
        TT = _round_payoffs(sol, s)
        for f in range(1, c + 1):
            cd, pp = code[idx + (slice(None), f - 1)], pay[idx + (slice(None), f - 1)]
            wf[f - 1] = TT[cd.astype(np.int64), pp.astype(np.int64)].T
        return wf
    ftw = S_.v.fewer_throws_wins
    for f in range(1, c + 1):
        for h in range(_NH):
            # without fewer_throws_wins a follower's throws change nothing after it (solver3's docstring)
            key = before + ((h, f if (ftw or role == 0) else 1),)
            if key not in memo:
                c_next = f if role == 0 else c  # the followers play to the leader's count
                memo[key] = _turn(S_, _turn_inputs(sol, s, role + 1, c_next, key, memo), c_next, role + 1)[0]
            wf[f - 1, :, h] = memo[key]
    return wf


@lru_cache(maxsize=256)
def _decision_inputs(sol: Solution3, s: int, role: int, c: int, before: tuple) -> tuple[np.ndarray, np.ndarray]:
    """``wf`` and the profile's keeps of one turn (cached: a leader's needs every later turn of the round)."""
    wf = _turn_inputs(sol, s, role, c, before, {})
    return wf, _turn(_keep_solver(sol), wf, c, role)[1]


def keep_values(sol: Solution3, pot: int, tokens: tuple, role: int, hand: int, made: int,
                before: tuple = ()) -> dict[int, float]:
    """The utility (P(not paying), or the win share) of each keep of one decision, the others
    and the later turns playing the profile: keep index -> value to the player choosing.

    Parameters
    ----------
    sol : Solution3
    pot, tokens
        The state, tokens by role (the leader's first, then in playing order), all in play.
    role : int
        The player choosing: 0 the leader, 1 the first follower, 2 the second.
    hand, made : int
        Its hand and the throws it made (``made`` below its throw limit).
    before : tuple of (hand, throws)
        The final hands and throws of the roles before it this round (the leader's first;
        a follower's throw limit is the leader's throws).

    The values are those the solver's own backward induction propagates (the same
    continuation values, the same tie order), so the best keep's value is the state's
    value when summed over the first throw. For the 2-player game the same numbers come
    from :func:`four21sim.exact.two_player.leader_keep_values` and ``follower_keep_values``.
    """
    n, L = sol.players, sol.variant.throws("decharge" if pot == 0 else "charge")
    if not 0 <= role < n or len(before) != role:
        raise ValueError(f"role: {role!r} with {len(before)} hands before it is not allowed; allowed: role 0 to "
                         f"{n - 1} with the hands of the roles before it")
    s = sol.states.index((pot, tuple(tokens)))
    c = L if role == 0 else before[0][1]
    if not 1 <= made < c:
        raise ValueError(f"made: {made!r} is not allowed; allowed: 1 to {c - 1} (no decision after the last throw)")
    wf, dec = _decision_inputs(sol, s, role, c, tuple((int(h), int(f)) for h, f in before))
    level = wf[c - 1]
    for m in range(c - 1, made, -1):  # the profile's own play after this decision
        kv = level @ _THROW_P.T
        stop = dec[m - 1] == dice.FULL_KEEP + np.arange(_NH)
        level = np.where(stop[None, :], wf[m - 1], kv[:, np.clip(dec[m - 1], 0, dice.FULL_KEEP - 1)])
    kv = level[role] @ _THROW_P.T
    allow_stop = role == 0 or sol.variant.followers == "at_most"
    return {k: float(wf[made - 1, role, hand]) if k == dice.FULL_KEEP + hand else float(kv[k])
            for k in dice.keeps_of(hand, allow_stop=allow_stop)}
