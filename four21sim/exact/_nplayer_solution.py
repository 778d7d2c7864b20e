"""An equilibrium of the n-player game (:class:`NSolution`) and its decisions: every keep of
every round recomputed from the values its choices were made against (:class:`_Decisions`),
the utilities of each keep of one decision (:func:`keep_values`), and the spread of the
tie order over the states (:func:`tie_spread`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..rules import dice
from ..rules.variants import Variant
from . import _nplayer_game as NG
from ._nplayer_checks import _NH
from ._nplayer_profile import _sub_values
from .ties import check_tie


@dataclass(eq=False)
class NSolution:
    """An equilibrium of the n-player game of a variant, with its certificate.

    Attributes
    ----------
    variant, players, objective
    states : list
        ``(pot, tokens by role)`` of every state with every player in, role 0 leading.
    value : ndarray
        ``value[s, j]``: the utility of the player in role j (P(not paying) or win share).
    p_pay, p_win : ndarray
        ``[s, j]``: P(paying) and expected win share under the profile.
    rounds : ndarray
        Expected rounds to the end from each state.
    gain : ndarray
        ``[s, j]``: what the player in role j gains (in utility) by its best response.
    basis : ndarray
        ``[s, j]``: the values the choices were made against, from which every decision
        is recomputed (:meth:`keep`): a décharge state's choices are best against
        ``basis`` (the last iterate), a charge state's against ``value`` in the décharge
        and ``basis`` in the charge.
    iterations, residual, converged
        The décharge iteration: how many (None when read from the disk store: the solve's
        history is not stored), the Bellman residual of the profile kept, and whether it
        reached ``tol`` (otherwise it cycled; the certificate judges the profile).
    br_iterations : int or None
        Policy-iteration steps of the best responses (all roles together); None when read
        from the disk store.
    seconds, certificate_seconds : float or None
        The times of the solve and of its certificate; None when read from the disk store.
    subs : dict
        The games of k players left (k < players) under ``end = last_holder``.
    dist : ndarray
        ``[s, l, w, p]``: each round's outcome distribution (loser role, winner role,
        payout) under the profile: the Markov chain of the game.
    info : dict
        Timings, sizes, peak memory.
    tie : str
        The tie order of the profile's keeps (:data:`TIE_ORDERS`), in the games of fewer players too.
    """

    variant: Variant
    players: int
    objective: str
    states: list
    value: np.ndarray
    p_pay: np.ndarray
    p_win: np.ndarray
    rounds: np.ndarray
    gain: np.ndarray
    basis: np.ndarray
    iterations: int | None
    residual: float
    converged: bool
    br_iterations: int | None
    seconds: float | None
    certificate_seconds: float | None
    subs: dict
    dist: np.ndarray
    info: dict = field(default_factory=dict)
    tie: str = "first"

    @property
    def start(self) -> int:
        """The index of the first state: every token in the pot, seat 0 leading."""
        return self.states.index((self.variant.tokens, (0,) * self.players))

    @property
    def seat_p_pay(self) -> np.ndarray:
        """P(seat s pays) from the start (seat 0 leads the first round)."""
        return self.p_pay[self.start].copy()

    @property
    def seat_p_win(self) -> np.ndarray:
        """Expected win share of seat s from the start."""
        return self.p_win[self.start].copy()

    @property
    def expected_rounds(self) -> float:
        """Expected number of rounds of a whole game."""
        return float(self.rounds[self.start])

    @property
    def best_value(self) -> np.ndarray:
        """``[s, j]``: the utility of role j's best response against the others' profile."""
        return self.value + self.gain

    @property
    def exploitability(self) -> float:
        """Largest gain of a unilateral deviation from the start of the game (utility)."""
        return float(max(0.0, self.gain[self.start].max()))

    @property
    def gain_any_state(self) -> float:
        """Largest gain of a unilateral deviation from any state, any role."""
        return float(max(0.0, self.gain.max()))

    @cached_property
    def _choice_values(self) -> np.ndarray:
        dech = np.array([pot == 0 for pot, _ in self.states])
        return np.where(dech[:, None], self.value, self.basis)

    def choice_values(self) -> np.ndarray:
        """``[s, j]``: the values each state's choices were made against (see ``basis``)."""
        return self._choice_values

    @cached_property
    def _index(self) -> dict:
        return {st: i for i, st in enumerate(self.states)}

    @cached_property
    def _round_solver(self):
        return NG.Rounds(NG.role_game(self.variant, self.players), tie=check_tie(self.tie)), _Decisions()

    def _round_of(self, state):
        """State s's number, the builder of its round's decisions and values, and its throw limit."""
        key = (int(state[0]), tuple(int(x) for x in state[1]))
        if key not in self._index:
            raise ValueError(f"state: {state!r} is not allowed; allowed: (pot, tokens by role) of a state with every "
                             f"player in, adding up to {self.variant.tokens}")
        s = self._index[key]
        game = NG.role_game(self.variant, self.players)
        rounds = self._round_solver[0]

        def build():
            S = NG.succ(game, s, self.choice_values(), _sub_values(self.subs, self.objective), self.objective)
            return rounds.decisions(s, S, self.players, values=True)

        limit = NG.limit(self.variant, "charge" if key[0] > 0 else "decharge")
        return s, build, limit

    def round_decisions(self, state):
        """Every keep of the round of ``state`` (pot, tokens by role): ``(contexts, dec, lead_dec)``.

        ``lead_dec[made-1, h]`` is the leader's keep holding h after ``made`` throws;
        ``dec[g, made-1, h]`` a follower's in context g, the context after the hands (and
        throws) before it being ``contexts.context_of(hands, throws, count)`` (or, for whole
        tables at once, ``contexts.lead_next[count-1, h0]`` then ``contexts.trans[contexts.row_start[g]
        + slot * 56 + h]``, slot 0 with ``followers = exact``, else the throws minus one).
        The arrays are copies: the engine tables of :mod:`four21sim.policies.optimal` are built from them.
        """
        s, build, _ = self._round_of(state)
        ct, dec, lead_dec = self._round_solver[1].get(s, build)[:3]
        return ct, dec.copy(), lead_dec.copy()

    def keep(self, state, role: int, hands=(), throws=(), made: int = 1, hand: int = 0) -> int:
        """The keep (``dice`` keep index; ``FULL_KEEP + hand`` stops) of the player in ``role`` in ``state``
        (pot, tokens by role), after the hands (and throws) of the roles before it, holding ``hand``
        after ``made`` throws. A ``RANDOM_KEEP`` never occurs in an equilibrium."""
        s, build, limit = self._round_of(state)
        return self._round_solver[1].keep(s, build, limit, self.players, role, hands, throws, made, hand,
                                          self.variant)

    def keep_utilities(self, state, role: int, hands=(), throws=(), made: int = 1, hand: int = 0) -> dict:
        """Every legal keep of one decision (arguments as :meth:`keep`) with the utilities it leads to:
        keep index -> ``ndarray[j]``, the utility of the player in role j, everyone (the chooser
        included) playing the equilibrium after this decision. See :func:`keep_values`."""
        s, build, limit = self._round_of(state)
        _check_situation(self.variant, limit, self.players, role, hands, throws, made, hand)
        ct, dec, lead_dec, vals = self._round_solver[1].get(s, build)
        return _keep_utilities(ct, dec, lead_dec, vals, self.variant, limit, role, hands, throws, made, hand)

    def summary(self) -> dict:
        """Per seat P(pay) and win share, and the solve's measures, as JSON-able numbers."""
        return {"variant": self.variant.describe(), "options": self.variant.options(), "players": self.players,
                "objective": self.objective,
                "seats": [{"seat": s, "p_pay": float(self.seat_p_pay[s]), "p_win": float(self.seat_p_win[s])}
                          for s in range(self.players)],
                "expected_rounds": self.expected_rounds, "exploitability": self.exploitability,
                "exploitability_any_state": self.gain_any_state, "converged": self.converged,
                "residual": self.residual, "iterations": self.iterations, "br_iterations": self.br_iterations,
                "seconds": self.seconds, "certificate_seconds": self.certificate_seconds,
                "from_cache": bool(self.info.get("from_cache", False))}


def _check_situation(variant: Variant, phase_limit: int, m: int, role, hands, throws, made, hand) -> None:
    ok_role = isinstance(role, (int, np.integer)) and 0 <= role < m
    if not ok_role:
        raise ValueError(f"role: {role!r} is not allowed; allowed: 0 (the leader) to {m - 1}")
    if len(hands) != role or len(throws) != role:
        raise ValueError(f"hands: {len(hands)} hands and {len(throws)} throws are not allowed; allowed: the "
                         f"{role} hands (and throws) of the players before role {role}")
    limit = phase_limit if role == 0 else throws[0]
    if not (isinstance(made, (int, np.integer)) and 1 <= made < limit):
        raise ValueError(f"made: {made!r} is not allowed; allowed: 1 to {limit - 1} (a decision comes before the "
                         f"last throw allowed, {limit})")
    if not (isinstance(hand, (int, np.integer)) and 0 <= hand < _NH):
        raise ValueError(f"hand: {hand!r} is not allowed; allowed: a hand index 0 to {_NH - 1}")


class _Decisions:
    """The keeps of one state's round, recomputed on demand from the values they were made
    against (the round kernel, exactly as in the solve), the last state kept."""

    def __init__(self):
        self._last = None

    def get(self, s: int, build):
        """``(contexts, dec, lead_dec)`` of state s, built by ``build()`` unless it is the last state asked."""
        if self._last is None or self._last[0] != s:
            self._last = (s,) + build()
        return self._last[1:]

    def keep(self, s, build, limit, m, role, hands, throws, made, hand, variant) -> int:
        """The keep of the situation, checked (see :meth:`NSolution.keep`)."""
        _check_situation(variant, limit, m, role, hands, throws, made, hand)
        ct, dec, lead_dec = self.get(s, build)[:3]
        if role == 0:
            return int(lead_dec[made - 1, hand])
        g = ct.context_of(list(hands), list(throws), int(throws[0]))
        return int(dec[g, made - 1, hand])


# P(hand h after keeping k and throwing the rest), for the keeps that throw a die: M[k, h]
_THROW_P = dice.THROW_COUNTS[:dice.FULL_KEEP] / dice.KT_DENOM[:dice.FULL_KEEP, None]


def _turn_ends(ct, vals, limit: int, role: int, hands, throws) -> tuple[np.ndarray, int]:
    """``end[f-1, h, j]``: the utilities when the turn of ``role`` ends on h after f throws (zero where
    it cannot end so: an exact follower before the count), and the turn's throw limit."""
    if role == 0:
        return vals[ct.lead_next[:limit]], limit
    c = int(throws[0])
    g = ct.context_of(list(hands), list(throws), c)
    end = np.zeros((c, _NH, vals.shape[1]))
    for f in range(1, c + 1):
        if ct.exact and f < c:
            continue
        slot = 0 if ct.exact else f - 1
        end[f - 1] = vals[ct.trans[ct.row_start[g] + slot * _NH + np.arange(_NH)]]
    return end, c


def _keep_utilities(ct, dec, lead_dec, vals, variant, limit, role, hands, throws, made, hand) -> dict:
    """keep -> utilities by role of one decision, the turn's later keeps those of the profile
    (``lead_dec`` for the leader, ``dec[g]`` for a follower in context g)."""
    end, c = _turn_ends(ct, vals, limit, role, hands, throws)
    later = lead_dec if role == 0 else dec[ct.context_of(list(hands), list(throws), c)]
    level = end[c - 1]
    stops = dice.FULL_KEEP + np.arange(_NH)
    for m in range(c - 1, made, -1):  # the profile's own play after this decision, backwards
        kv = _THROW_P @ level
        k = later[m - 1].astype(np.int64)
        level = np.where((k == stops)[:, None], end[m - 1], kv[np.clip(k, 0, dice.FULL_KEEP - 1)])
    kv = _THROW_P @ level
    allow_stop = role == 0 or variant.followers == "at_most"
    return {k: (end[made - 1, hand] if k == dice.FULL_KEEP + hand else kv[k]).copy()
            for k in dice.keeps_of(hand, allow_stop=allow_stop)}


def in_play(sol: NSolution, m: int) -> NSolution:
    """The solution of the game with ``m`` players in play: ``sol`` itself, or (under ``end =
    last_holder``, once players are out) the game of fewer players it holds."""
    if m == sol.players:
        return sol
    if m not in sol.subs:
        raise ValueError(f"players: {m} in play is not allowed; allowed: "
                         f"{', '.join(str(k) for k in sorted(sol.subs) + [sol.players])}")
    return sol.subs[m]


def keep_values(sol: NSolution, state, role: int, hands=(), throws=(), made: int = 1, hand: int = 0) -> dict:
    """The utility of each legal keep of one decision to the player choosing it, everyone playing the
    equilibrium afterwards: keep index -> value (P(not paying) under ``pay``, the win share under ``win``).

    Parameters
    ----------
    sol : NSolution
    state : (pot, tokens by role)
        Every player in, role 0 leading (:func:`in_play` gives the game of the players left).
    role : int
        The player choosing: 0 the leader, then the followers in playing order.
    hands, throws : sequence of int
        The final hands and throws of the roles before it this round (a follower's throw
        limit is the leader's throws, ``throws[0]``).
    made, hand : int
        The throws made (below the turn's limit) and the hand held.

    The values are the solver's own backward induction (the same continuation values and
    round kernel, the same tie order): the keep the equilibrium takes (:meth:`NSolution.keep`)
    is one within 1e-12 of the best, chosen by the solution's tie order (:data:`TIE_ORDERS`;
    by default the first in ``dice.HAND_KEEPS`` order that no later keep beats by more).
    """
    return {k: float(u[role]) for k, u in sol.keep_utilities(state, role, hands, throws, made, hand).items()}


def tie_spread(sol: NSolution) -> np.ndarray:
    """How much the documented tie order decides, state by state.

    ``spread[s]``: in state s's round, the largest difference in another player's
    utility between the keep a player takes and a keep it is indifferent to (within
    1e-12). Zero means the tie order moves nobody's values there; otherwise another
    order would make another equilibrium, with other values for the others.
    The cost is one pass over the states.
    """
    game = NG.role_game(sol.variant, sol.players)
    rounds = NG.Rounds(game, tie=check_tie(sol.tie))
    spread = np.zeros(game.size)
    subV = _sub_values(sol.subs, sol.objective)
    for group in [game.decharge()] + game.charge_groups():
        if len(group):
            S = NG.succs(game, group, sol.choice_values(), subV, sol.objective)
            out = np.zeros(len(group))
            rounds.run(group, S, sol.players, spread=out)
            spread[group] = out
    return spread
