r"""The exact game for 2 to 8 players: an equilibrium with its certificate, and exact best responses.

Each round is a game of perfect information: the leader chooses when to stop and
what to keep (and so the count); each follower in turn sees the hands before it.
Every player maximises its own *utility*: with ``objective="pay"`` the
probability of not paying (not being the game's loser as docs/rules.md defines
it; a loss shared by k tied losers counts 1/k), with ``objective="win"`` its win
share. With two players both are the 2-player solver's (:mod:`four21sim.exact.two_player`).

How it is solved
----------------
States are seen from the roles of the round: ``(pot, tokens of the leader, of the
next seat, ...)``, every player in; values are vectors, one utility per role.

- *A round*, given the values of the states it can lead to, is solved by backward
  induction in playing order over **compact follower contexts**: what a follower
  needs to know of the hands before it (the count, the worst key so far and the
  roles holding it, the best key and the roles holding it, the cumulative sum,
  what the nénette rescue needs), merged further wherever two contexts lead to the
  same outcomes (:mod:`four21sim.exact._nplayer_kernels` says how; the outcome of
  every round is judged by the rules kernel on a representative history). The
  contexts are built once per (variant, players, phase), and in the charge once per pot
  (a round pays at most the pot, so more of them merge where it is small).
- *The décharge* (cyclic) is solved by policy iteration on vectors of values, from the
  exact values of everyone stopping at the first throw (one pass fewer than from zero for
  every preset, the same equilibria): solve every
  round against the current values, replace the values by the exact values of the
  profile found (a sparse linear system), stop when the Bellman residual is below
  ``tol``, when a profile found before comes back (each iteration is a function of the
  profile: a proven cycle), or after ``stall`` iterations without progress (``converged``
  False in both cases; the profile with the smallest residual is kept and certified).
- *The charge* (the pot only shrinks) is solved once per state by increasing pot.
- Under ``end = last_holder`` a player going out leaves a game of fewer players,
  solved first (with ``objective="pay"``: once someone is out nobody left can win,
  and what is left at stake is who pays).

Ties between keeps within 1e-12 for the player choosing go by default to the first in
``dice.HAND_KEEPS`` order, as everywhere in the package; in a game of more than two
players that choice can move the others' values (:func:`tie_spread` measures by how much),
and ``solve(..., tie=...)`` takes another order (:data:`TIE_ORDERS`): another equilibrium,
certified the same way.

The certificate
---------------
For the profile found, each player's exact best response against the others'
fixed strategies (every round is solved once with two components per role: the
profile's, and the role's own utility when it deviates alone, the others playing
the profile's keeps, also after a deviation), solved by policy
iteration: the exploitability is the largest gain of one player deviating alone,
from the start and from any state. After a converged iteration its first décharge pass is
not run where a bound proves it would find nothing (``_first_pass_ends``).

The parts
---------
- :mod:`._nplayer_checks`: the limits (players, tokens) and the checks of the arguments;
- :mod:`._nplayer_game`: the contexts, the game's states and outcomes, the round kernel run
  over batches of states, exact values of fixed play (:mod:`._nplayer_kernels`: the kernels);
- :mod:`._nplayer_profile`: the equilibrium iteration (the Bellman equation, in formulas);
- :mod:`._nplayer_certificate`: the best responses to the profile (the exploitability and the
  bound that skips a pass, in formulas);
- :mod:`._nplayer_solution`: :class:`NSolution` and its decisions;
- :mod:`._nplayer_respond`: best responses to fixed tables, and :func:`evaluate`;
- :mod:`._nplayer_stored`: the stored form and its checks; :mod:`._nplayer_run`: a long
  solve's checkpoints and progress;
- this module: :func:`solve`, which finds a solution in memory, among the shipped ones, in
  the disk cache, or solves it (resuming from a checkpoint), and stores it.

Best responses to a table
-------------------------
``solve(variant, players, against=[...])`` gives the exact best response of one
seat to the others playing table policies (compiled tables in context modes 0 and 1,
with the attributes of :class:`four21sim.policies.Policy`, as the engine
reads them: a follower's target is the worst hand so far by the ranking; ``random``
is the uniform choice among the legal keeps) or the equilibrium itself.
"""

from __future__ import annotations

import json
import time
from functools import lru_cache

import numpy as np

from .._util.checks import shown
from .._util.waiting import AFTER, notice_after, progress, say, solving, speaker, wait_for
from ..rules.variants import Variant
from . import _nplayer_game as NG
from . import store
from ._nplayer_certificate import _best_responses
from ._nplayer_checks import (
    ANSWER_PLAYERS,
    FIRST_SOLVE,
    MAX_PLAYERS,
    MAX_TOKENS,
    OBJECTIVES,
    check_objective,
    check_players,
    check_tokens,
)
from ._nplayer_profile import _profile_values, _rounds_left, _solve_profile
from ._nplayer_respond import BestResponse, _solve_against, evaluate
from ._nplayer_run import _check_progress, _peak_mib, _Run
from ._nplayer_solution import NSolution, in_play, keep_values, tie_spread
from ._nplayer_stored import ENTRY_FIELDS, FORMAT, from_arrays, to_arrays, verify, verify_entry
from .checkpoint import Checkpoint
from .ties import TIE_ORDERS, check_tie

__all__ = ["OBJECTIVES", "TIE_ORDERS", "MAX_PLAYERS", "ANSWER_PLAYERS", "MAX_TOKENS", "NSolution", "BestResponse",
           "solve", "evaluate", "verify", "to_arrays", "from_arrays", "verify_entry", "ENTRY_FIELDS", "tie_spread",
           "check_players", "check_objective", "check_tokens", "check_tie", "keep_values", "in_play", "FIRST_SOLVE"]


def _context_info(rounds: NG.Rounds) -> dict:
    """The sizes of the contexts built, by ``players:phase`` (and ``:pot=q`` for a pot's own)."""
    return {f"{m}:{ph}" + ("" if pots is None else ":pot=" + ",".join(map(str, pots))): ct.info
            for (m, ph, pots), ct in rounds._ctx.items()}


def _solve_equilibrium(variant: Variant, n: int, objective: str, tol: float, max_iter: int, stall: int,
                       certify: bool, tie: str = "first", run=None) -> NSolution:
    run = _Run() if run is None else run
    subs = {k: _equilibrium(variant, k, "pay", tol, max_iter, stall, certify, tie)
            for k in range(2, n) if variant.end == "last_holder"}
    t0 = time.perf_counter()
    game, rounds, basis, V, dist, it, residual, converged, timings = _solve_profile(
        variant, n, objective, tol, max_iter, stall, subs, tie, run)
    values = {o: _profile_values(game, dist, o, subs) for o in OBJECTIVES}
    rounds_left = _rounds_left(game, dist, subs)
    seconds = time.perf_counter() - t0
    t1 = time.perf_counter()
    gain = np.zeros((game.size, n))
    br_it = 0
    if certify:
        V_charge = np.where((game.pot == 0)[:, None], values[objective], basis)
        W, br_it = _best_responses(game, rounds, basis, V_charge, values[objective], objective, subs, tol,
                                   max_iter, converged, residual, run)
        gain = W - values[objective]
    info = dict(timings, value_gap=float(np.abs(values[objective] - V).max()), states=game.size,
                decharge_states=len(game.decharge()), contexts_seconds=rounds.seconds_contexts,
                contexts=_context_info(rounds), peak_mib=_peak_mib())
    if run.resumed is not None:
        info["resumed_from"] = run.resumed
    return NSolution(variant, n, objective, game.states, values[objective], 1.0 - values["pay"], values["win"],
                     rounds_left, gain, basis, it, residual, converged, br_it, seconds, time.perf_counter() - t1,
                     subs, dist, info, tie)


def _solve_resumable(variant: Variant, n: int, objective: str, tol: float, max_iter: int, stall: int,
                     certify: bool, tie: str, key: str, display) -> NSolution:
    """:func:`_solve_equilibrium` with checkpoints under ``key`` (resumed from if there is one) and
    progress on ``display``. A solve that resumed is checked as a disk-cache entry is when read
    (:func:`verify_entry`): a checkpoint is a file, whose digest proves it whole, not right; one
    that does not check is removed and the game solved from the start."""
    label = f"{n} players"  # (the game itself is named by the notice said before)
    run = _Run(label, key, display, tol, certify=certify)
    sol = _solve_equilibrium(variant, n, objective, tol, max_iter, stall, certify, tie, run)
    if run.resumed is None:
        return sol
    arrays, meta = to_arrays(sol)
    try:
        why = verify_entry(variant, n, objective, dict(arrays, __meta__=json.loads(json.dumps(meta))), tie,
                           tol=tol, certified=certify,
                           progress=_check_progress(f"{label}: checking the solve resumed from a checkpoint",
                                                    display))
    except Exception as exc:  # noqa: BLE001  a check that fails refuses, as for a cache entry
        why = f"its check failed ({type(exc).__name__})"
    if why is None:
        return sol
    say(f"{speaker()}: checkpoint: {shown(str(run.ckpt.path))} is not allowed (the solve resumed from it does "
        f"not check: {why}); allowed: this solve's own checkpoint; solving from the start")
    run.ckpt.remove()
    return _solve_equilibrium(variant, n, objective, tol, max_iter, stall, certify, tie,
                              _Run(label, key, display, tol, resume=False, certify=certify))


# the modules whose code decides a solution: a change to any of them makes new disk-cache entries
_CODE = ("exact/nplayer", "exact/_nplayer_checks", "exact/_nplayer_profile", "exact/_nplayer_certificate",
         "exact/_nplayer_solution", "exact/_nplayer_stored", "exact/_nplayer_run", "exact/_nplayer_game",
         "exact/_nplayer_kernels", "exact/_two_player_kernels", "rules/kernel", "rules/dice", "rules/variants",
         "exact/ties", "exact/store")


@lru_cache(maxsize=16)
def _equilibrium(variant: Variant, n: int, objective: str, tol: float, max_iter: int, stall: int,
                 certify: bool, tie: str = "first") -> NSolution:
    """The equilibrium, from this process's memory, the package's shipped solutions or the disk store
    (both verified), or solved and stored."""
    from .shipped import load  # (a late import: shipped checks what it reads with this module's verifier)
    sol = load(variant, n, objective, tie, tol=tol, max_iter=max_iter, stall=stall, certify=certify)
    if sol is not None:
        return sol
    # the tie order decides the profile: a solution under one order never serves another
    key = store.entry_key("nplayer", options=variant.options(), players=n, objective=objective, tol=tol,
                          max_iter=max_iter, stall=stall, certify=certify, tie=tie, format=FORMAT,
                          code=store.code_hash(_CODE))
    def check(entry: dict) -> str | None:
        # every round solved again (a file is data): at 6 players most of an hour, said and shown as it goes,
        # and in a worker thread, so that a signal stops the command at once
        what = f"the stored equilibrium of {variant.describe()} at {n} players (the disk cache)"
        with notice_after(f"{speaker()}: checking {what}: every round solved again, about half its first solve "
                          f"({FIRST_SOLVE.get(n, 'hours')}) ...", None, AFTER), progress() as display:
            return wait_for(verify_entry, variant, n, objective, entry, tie, tol=tol, certified=certify,
                            progress=_check_progress(f"{n} players: checking the stored equilibrium", display))

    def stored() -> NSolution | None:
        hit = store.load(key, verify=check)
        sol = None if hit is None else from_arrays(variant, hit)
        return sol if sol is not None and sol.tie == tie else None

    sol = stored()
    if sol is not None:
        return sol
    with store.solving(key):  # another process solving it: wait, then read its solution
        sol = stored()
        if sol is None:
            what = f"{variant.describe()} at {n} players exactly" + (", then certifying the equilibrium" * certify)
            how_long = f"{FIRST_SOLVE.get(n, 'hours')} on 2 cores " + (
                "the first time; then read from the disk cache and checked in about half that"
                if store.cache_dir() is not None else "each time: the disk cache is off")
            # every caller's notice (advise, play, env, ...), and after a minute the solve's progress
            with solving(what, how_long), progress() as display:
                sol = wait_for(_solve_resumable, variant, n, objective, tol, max_iter, stall, certify, tie, key,
                               display)
            if store.store(key, *to_arrays(sol)):
                Checkpoint(key).remove()
        else:  # (a solve killed between storing its entry and removing its checkpoint)
            Checkpoint(key).remove()
    return sol


def solve(variant: Variant, players: int = 3, objective: str = "pay", *, against=None, seat: int = 0,
          tol: float = 1e-13, max_iter: int = 200, stall: int = 10, certify: bool = True, tie: str = "first"):
    """Solve the ``players``-player game of ``variant`` exactly.

    Parameters
    ----------
    variant : Variant
    players : int
        2 to 8 (:data:`MAX_TOKENS` gives the tokens each takes).
    objective : {'pay', 'win'}
        What each player maximises: P(not paying) or its win share.
    against : sequence, optional
        The other seats' play, in seat order (seat ``seat`` left out): compiled table
        policies (objects with ``kind``, ``ctx_mode``, ``lead``, ``foll``, ``variant`` as
        :class:`four21sim.policies.Policy` has them; :func:`four21sim.policies.best_response`
        takes policy names), ``"equilibrium"`` or an :class:`NSolution`. Then the result is
        the exact best response of seat ``seat`` (:class:`BestResponse`).
    seat : int
        With ``against``: the seat of the best responder (seat 0 leads the first round).
    tol : float
        Bellman residual at which the décharge iteration stops.
    max_iter, stall : int
        Caps on the décharge iterations (and the policy iteration of the best
        responses); the décharge also stops after ``stall`` iterations without a smaller residual.
    certify : bool
        Compute every role's best response (the exploitability). Without it ``gain`` is zero.
    tie : {'first', 'last', 'next-best', 'next-worst', 'favour-R', 'disfavour-R'}
        Which keep a player takes among those within 1e-12 of its best (:data:`TIE_ORDERS`
        and :data:`four21sim.exact.ties.ROLE_ORDERS` define them: ``favour-R`` the keep best for
        role R, 0 the round's leader): each order gives its own equilibrium where the ties move
        the others' values (docs/nplayer.md, "Ties"). Not with ``against`` (an :class:`NSolution`
        given there plays its own order).

    Returns
    -------
    NSolution or BestResponse

    Raises
    ------
    ValueError
        For a bad argument, named with what is allowed.
    """
    if not isinstance(variant, Variant):
        raise ValueError(f"variant: {variant!r} is not allowed; allowed: a four21sim.Variant")
    n = check_players(players)
    check_objective(objective)
    check_tokens(variant, n)
    check_tie(tie)
    if against is not None:
        if tie != "first":
            raise ValueError(f"tie: {tie!r} is not allowed with against; allowed: 'first' (an NSolution "
                             "given in against plays its own tie order)")
        return wait_for(_solve_against, variant, n, objective, against, seat, tol, max_iter, stall)
    return _equilibrium(variant, n, objective, float(tol), int(max_iter), int(stall), bool(certify), tie)
