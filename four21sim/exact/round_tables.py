"""An n-player equilibrium's rounds as plain arrays: what a reader outside the solver needs to
play a round backwards as the round kernel does (the advisor's phone page, ``four21sim site``).

A round of an equilibrium (:class:`four21sim.exact.nplayer.NSolution`) is solved from three
things (:mod:`four21sim.exact._nplayer_kernels`, ``solve_round``):

- the *contexts* of the (players, phase): a follower's context is what it knows of the hands
  before it, merged by what they decide; ``trans`` sends a context and the hand (and throws) a
  follower ends on to the next context or to an outcome of the round; ``lead_next`` does so for
  the leader's hand and count; an outcome is a mix of outcome classes (``fin_*``);
- per state, the utility of every role after each outcome class (``NG.succ`` read at the
  classes' representatives), which this module gives as indices into one array of values
  (the equilibrium's choice values, then a few constants: the utilities where the game ends),
  so that a reader holds the values once and every state's successors as small integers;
- the dice's own tables (keeps as one die added at a time, the first throw's odds) and the
  tie rule (1e-12, the first keep in ``dice.HAND_KEEPS`` order).

Nothing here is a rule restated: every array is the solver's own, as it reads them.
"""

from __future__ import annotations

import numpy as np

from . import _nplayer_game as NG
from . import _nplayer_kernels as NK
from ._two_player_kernels import _P0
from .ties import KEEP_TIE

__all__ = ["dice_steps", "phase_contexts", "successor_index", "round_arrays", "lead_ends"]

PHASES = NG.PHASES


def dice_steps() -> dict:
    """The kernel's keep values as one die added at a time: ``step2`` rows (a keep of two dice,
    then the hand for each face), ``step1`` (a keep of one die, then the keep of two), ``step0``
    (the keep of one die for each face), the empty keep, the partial keeps of each hand in
    ``dice.HAND_KEEPS`` order (``pk``, from ``pk_start[h]``), the first throw's odds, the tie."""
    return {"step2": NK._STEP2.ravel().tolist(), "step1": NK._STEP1.ravel().tolist(),
            "step0": NK._STEP0.tolist(), "empty": int(NK._EMPTY), "partial": int(NK._N_PARTIAL),
            "pk": NK._PK.tolist(), "pk_start": NK._PK_START.tolist(), "p0": _P0.tolist(), "tie": KEEP_TIE}


def phase_contexts(sol, phase: str) -> dict:
    """The contexts of the equilibrium's round in ``phase`` (every player in), as arrays."""
    rounds = sol._round_solver[0]
    ct = rounds.contexts(sol.players, phase)
    return {"L": int(ct.L), "exact": bool(ct.exact), "G": int(ct.G), "lvl": ct.lvl_start.tolist(),
            "ctx_c": ct.ctx_c.astype(np.int8), "row_start": ct.row_start.astype(np.int32),
            "trans": ct.trans.astype(np.int32), "lead_next": ct.lead_next[:ct.L].astype(np.int32),
            "fin_start": ct.fin_start.tolist(), "fin_cls": ct.fin_cls.tolist(), "fin_w": ct.fin_w.tolist(),
            "classes": int(len(ct.lwp_rep)), "lwp_rep": ct.lwp_rep}


def successor_index(sol, values: np.ndarray, consts: dict, s: int, lwp_rep: np.ndarray) -> np.ndarray:
    """``idx[q, j]``: where role j's utility after outcome class q of state s is, in the array of
    ``values.ravel()`` followed by the constants (``consts``: value -> its number, grown here)."""
    game = NG.role_game(sol.variant, sol.players)
    m = sol.players
    term = game.term(s, sol.objective)
    out = np.empty((len(lwp_rep), m), np.int64)
    for q, (lo, w, p) in enumerate(lwp_rep):
        on = game.ended[s, lo, w, p] == 0
        if on and game.sub[s, lo, w, p] != 0:
            raise ValueError("players: a game with players out (end = last_holder) is not allowed here; "
                             "allowed: end = first_out")
        for j in range(m):
            pj = int(game.perm[s, lo, w, p, j]) if on else -1
            if pj >= 0:
                out[q, j] = int(game.nxt[s, lo, w, p]) * m + pj
            else:
                x = float(term[lo, w, p, j])
                out[q, j] = values.size + consts.setdefault(x, len(consts))
    return out


def lead_ends(sol, s: int) -> np.ndarray:
    """``[f-1, h]``: the leader's utility in state s's round when its turn ends on h after f throws, every
    follower then playing the equilibrium (the values the leader's keeps are chosen against; what
    :func:`four21sim.exact.nplayer.keep_values` reads for the leader)."""
    _, build, limit = sol._round_of(sol.states[s])
    ct, _, _, vals = sol._round_solver[1].get(s, build)
    return vals[ct.lead_next[:limit], 0].copy()


def round_arrays(sol) -> dict:
    """Everything to play any round of ``sol`` backwards: the dice's tables, the contexts of
    each phase, the values (``sol.choice_values()``, states by role), the constants and every
    state's successor indices (``succ[s]``: classes by roles, its phase's classes)."""
    if sol.tie != "first":
        raise ValueError(f"tie: {sol.tie!r} is not allowed; allowed: first")
    values = np.ascontiguousarray(sol.choice_values()[:, :sol.players], np.float64)
    phases = {ph: phase_contexts(sol, ph) for ph in PHASES}
    consts: dict = {}
    succ = [successor_index(sol, values, consts, s, phases["charge" if pot else "decharge"]["lwp_rep"])
            for s, (pot, _) in enumerate(sol.states)]
    return {"steps": dice_steps(), "phases": phases, "values": values,
            "consts": sorted(consts, key=consts.get), "succ": succ,
            "states": [[int(pot), *map(int, toks)] for pot, toks in sol.states]}
