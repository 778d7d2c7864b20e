r"""The certificate of an n-player equilibrium (:mod:`four21sim.exact.nplayer`): every role's exact
best response against the profile's fixed keeps, by policy iteration.

The *exploitability* is the largest gain of one role deviating alone, the others keeping
:math:`\sigma`'s keeps (also after the deviation):

.. math::

    \varepsilon = \max_{j} \bigl[ W_j(s_0) - V_j(s_0) \bigr], \qquad
    \varepsilon_{\text{any}} = \max_{s, j} \bigl[ W_j(s) - V_j(s) \bigr],

with :math:`W_j` role j's exact best-response value (policy iteration, the others fixed) and
:math:`s_0` the start. The certificate's first décharge pass from :math:`W = V` is skipped
when :math:`\rho + 2 \max_s |V(s) - B(s)| + \max |W^{<n} - V^{<n}| \le \text{tol} / 2`
(:math:`\rho` the profile's last residual, :math:`B` the values its last keeps were chosen
against, :math:`W^{<n}, V^{<n}` those of the games of fewer players): a best reply moves by
at most what the values after it move, so that pass would find :math:`W = V` and end the
iteration (``_first_pass_ends`` gives the rounding margin).
"""

from __future__ import annotations

import numpy as np

from . import _nplayer_game as NG
from ._nplayer_profile import _sub_values
from ._nplayer_run import _Run


def _deviator_utilities(game, states, W, subW, objective) -> np.ndarray:
    """``[b, r, l, w, p]``: role r's utility after each outcome of ``states[b]``, from its best-response
    values ``W`` (and ``subW`` in the games of fewer players)."""
    out = np.zeros((len(states), game.n, game.n, game.n, game.P))
    S = NG.succs(game, states, W, subW, objective)
    out[:, :S.shape[-1]] = np.moveaxis(S, -1, 1)
    return out


def _br_rounds(game, rounds, states, base, subV, objective, W, subW, want_dist):
    S_prof = NG.succs(game, states, base, subV, objective)
    return rounds.best_responses(states, S_prof, _deviator_utilities(game, states, W, subW, objective), want_dist)


def _first_pass_ends(game, basis, V, subV: dict, subW: dict, residual: float, tol: float) -> bool:
    """Whether the best responses' first décharge pass, from W = V, would end their iteration:
    proven from the profile's last pass instead of run.

    That last pass solved every décharge round against ``basis`` and moved no utility by more
    than ``residual``; in it each role's keeps are its best replies to the others' against
    ``basis`` and ``subV``. The first pass of the best responses solves the same rounds against
    ``V`` and ``subW``: a role's best-reply utility after a round moves by at most how much the
    utilities after it move (it is a largest expectation of them, and expectations move by at
    most that), so its residual is at most ``residual + 2 max|V - basis| + max|subW - subV|``,
    up to the rounding of the two passes. Where that is within half of ``tol``, the pass would
    find W = V in the décharge and end the iteration, which is what the caller then takes. The
    other half is left to the rounding: a player's turn rounds each utility about a hundred
    times (the sums over the dice, three throws, the hands), by at most 1.1e-16 each, so that
    a round of 4 players moves a utility in [0, 1] by at most about 4.4e-14 if every rounding
    went the same way, within 5e-14 for the default ``tol`` of 1e-13 (at 5 and 6 players that
    worst case is 5.5e-14 and 6.6e-14; the passes' residuals, which are that rounding, stay
    near 1e-14: tests/test_nplayer.py runs the pass and compares). Were the pass skipped
    wrongly, the certificate would miss a gain of the order of ``tol``, 1e-13: four orders of
    magnitude below the 1e-9 it certifies.
    """
    dech = game.decharge()
    moved = float(np.abs(V[dech] - basis[dech]).max()) if len(dech) else 0.0
    sub = max((float(np.abs(subW[k] - subV[k]).max()) for k in subV), default=0.0)
    return residual + 2 * moved + sub <= tol / 2


def _best_responses(game, rounds, basis, V_charge, V, objective, subs, tol, max_iter, converged=False,
                    residual=np.inf, run=None):
    """Each role's exact best-response utility ``W[s, r]`` against the profile (policy iteration).

    The others' keeps are recomputed in every round from the values they were made
    against: ``basis`` in the décharge, ``V_charge`` in the charge; ``V`` is the
    profile's exact value, where the iteration starts. Returns (W, iterations).

    ``converged``: the profile's own iteration converged (its last pass moved no utility by
    more than ``residual``), so that the first pass is expected to find W = V and end the
    iteration. Where :func:`_first_pass_ends` proves it would, it is not run (W = V in the
    décharge, one iteration, as the pass would give); otherwise it runs without the outcome
    distributions (one forward pass per role, needed only to go on), computing them after
    all when it does not end the iteration.

    ``run`` (:class:`_Run`): W is checkpointed after each pass (with the profile), and a
    checkpoint taken here is resumed from.
    """
    run = _Run() if run is None else run
    subV, subW = _sub_values(subs, objective), _sub_values(subs, objective, "best_value")
    W = V.copy()
    dech = game.decharge()
    groups = game.charge_groups()
    it = first = 0
    proven = converged and len(dech) > 0 and _first_pass_ends(game, basis, V, subV, subW, residual, tol)
    passes = max_iter if len(dech) and not proven else 0
    if run.reached("certificate"):
        meta, a = run.state[1:]
        W[:] = a["W"]
        if run.state[0] == "certificate":
            it = meta["step"]
        else:  # its décharge passes were done
            it, first, passes = meta["br_it"], meta["step"], 0
    if passes:
        run.begin("certificate")
    done = it
    for it in range(done + 1, passes + 1):
        u, dist = _br_rounds(game, rounds, dech, basis, subV, objective, W, subW, it > 1 or not converged)
        moved = float(np.abs(u - W[dech]).max())
        if moved <= tol:
            break
        if dist is None:
            u, dist = _br_rounds(game, rounds, dech, basis, subV, objective, W, subW, True)
        const = NG.constant_part(game, dech, dist, objective, subW, True)
        W[dech] = NG.evaluate(game, dist, const, True, only_decharge=True)
        run.save("certificate", it, arrays={"W": W})
        run.passed("certificate", it, residual=moved, limit=max_iter)
    if proven:
        it = 1  # the pass proven to end the iteration counts as its one iteration
    if first == 0:
        run.save("certificate-charge", 0, {"br_it": it}, {"W": W})
    run.begin("certificate-charge")
    for g in range(first, len(groups)):
        group = groups[g]
        W[group] = _br_rounds(game, rounds, group, V_charge, subV, objective, W, subW, False)[0]
        run.save("certificate-charge", g + 1, {"br_it": it}, {"W": W})
        run.passed("certificate-charge", g + 1, total=len(groups))
    return W, it
