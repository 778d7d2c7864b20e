"""The machinery of the exact n-player solver (:mod:`four21sim.exact.nplayer`): follower contexts,
the game's states and outcomes, the round kernel run over states, exact values of fixed play.

- :func:`forward_contexts` / :func:`build_contexts`: the compact contexts of one (variant,
  players in play, phase), judged by the rules kernel and merged (:mod:`._nplayer_kernels`).
- :class:`Game`: every state and every outcome of every state, settled by the rules kernel;
  :func:`role_game` (an equilibrium's states, by role) and :func:`seat_game` (states by seat,
  for seat-bound fixed policies).
- :class:`Rounds`: the round kernel on batches of states; :func:`succ`: the utilities after
  each outcome of a state.
- :func:`evaluate`: the exact values of fixed play (a sparse linear system in the décharge,
  then the charge by increasing pot).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from functools import lru_cache

import numba
import numpy as np

from .._util.threads import split_over_threads
from ..rules import dice
from ..rules import kernel as R
from ..rules.variants import Variant
from . import _nplayer_kernels as NK

PHASES = ("charge", "decharge")
_NH = dice.N_HANDS


def rule_arrays(variant: Variant) -> tuple[np.ndarray, np.ndarray, tuple]:
    """The ranking's ranks, the hands' values and the variant's parameters, as the kernels read them."""
    return (np.ascontiguousarray(dice.RANK[variant.ranking_index]),
            np.ascontiguousarray(dice.VALUE[variant.values_index]), R.params(variant))


def limit(variant: Variant, phase: str) -> int:
    """The leader's throw limit in the phase."""
    return variant.charge_throws if phase == "charge" else variant.decharge_throws


# ====================================================================== contexts
@dataclass(eq=False)
class Forward:
    """The contexts of one (variant, players, phase) before merging: per level, the count of
    each context, its representative history and its transitions; the outcomes after the last."""

    counts: list
    rep_h: list
    rep_f: list
    trans: list  # trans[i][x, slot, h]: level i+1 -> level i+2 (the last: outcome numbers)
    lead_next: np.ndarray
    out_starts: np.ndarray
    out_data: np.ndarray


@lru_cache(maxsize=16)
def forward_contexts(variant: Variant, m: int, phase: str) -> Forward:
    """Every context a follower can meet with m players in play, and the round's outcomes."""
    rank, value, prm = rule_arrays(variant)
    L = limit(variant, phase)
    cum_on = variant.cumulative in (phase, "both")
    cap = variant.tokens
    exact = variant.followers == "exact"
    rows, rh, rf, lead_next = NK.first_level(L, cum_on, cap, rank, value, prm)
    counts, reps_h, reps_f, trans = [rows[:, NK.F_C].copy()], [rh], [rf], []
    for i in range(1, m - 1):
        rows, rh, rf, tr = NK.enumerate_level(rows, rh, rf, i, exact, cum_on, cap, rank, value, prm)
        trans.append(tr)
        counts.append(rows[:, NK.F_C].copy())
        reps_h.append(rh)
        reps_f.append(rf)
    ph = R.CHARGE if phase == "charge" else R.DECHARGE
    outcome, starts, data = NK.judge_last_level(rh, rf, m, exact, ph, cap, rank, value, prm, False)
    trans.append(outcome)
    lead = np.zeros((3, _NH), np.int64)
    lead[:L] = lead_next
    return Forward(counts, reps_h, reps_f, trans, lead, starts, data)


@dataclass(eq=False)
class Contexts:
    """The merged contexts of one (players in play, phase) of a game, as the round kernel reads them.

    Global numbers: the contexts of level 1 (one hand on the table), then 2, ...,
    then the outcomes after the last follower (``G + e``). ``lwp_rep[q]`` is a
    (loser role, winner role, payout) of outcome class q: the triples that lead to the
    same next state for every state of the phase are one class.
    """

    m: int
    L: int
    exact: bool
    lvl_start: np.ndarray
    ctx_c: np.ndarray
    ctx_target: np.ndarray
    row_start: np.ndarray
    trans: np.ndarray
    lead_next: np.ndarray
    fin_start: np.ndarray
    fin_cls: np.ndarray
    fin_w: np.ndarray
    lwp_rep: np.ndarray
    rep_h: np.ndarray
    rep_f: np.ndarray
    info: dict = field(default_factory=dict)

    @property
    def arrays(self) -> NK.Arrays:
        """The arrays the round kernels read, as one named tuple."""
        return NK.Arrays(self.lvl_start, self.ctx_c, self.ctx_target, self.row_start, self.trans, self.lead_next,
                         self.fin_start, self.fin_cls, self.fin_w)

    @property
    def G(self) -> int:
        """The number of contexts (outcomes are numbered after them)."""
        return int(self.lvl_start[-1])

    def context_of(self, hands, throws, count: int) -> int:
        """The number of the context after ``hands`` (and their ``throws``), the leader's count ``count``."""
        g = int(self.lead_next[count - 1, hands[0]])
        for h, f in zip(hands[1:], throws[1:]):
            slot = 0 if self.exact else f - 1
            g = int(self.trans[self.row_start[g] + slot * _NH + h])
        return g


def merged_outcomes(fw: Forward, lwp_class: np.ndarray) -> tuple[np.ndarray, list]:
    """Outcomes numbered again once (loser, winner, payout) triples are read as their classes."""
    merged: dict = {}
    number = np.empty(len(fw.out_starts) - 1, np.int64)
    for e in range(len(number)):
        acc: dict = {}
        for code in fw.out_data[fw.out_starts[e]:fw.out_starts[e + 1]]:
            lo, w, p, share = code & 7, (code >> 3) & 7, (code >> 6) & 16383, code >> 20
            q = int(lwp_class[lo, w, p])
            acc[q] = acc.get(q, 0) + int(share)
        number[e] = merged.setdefault(tuple(sorted(acc.items())), len(merged))
    return number, list(merged)


def build_contexts(variant: Variant, m: int, phase: str, lwp_class: np.ndarray, lwp_rep: np.ndarray,
                   labelled: bool) -> Contexts:
    """The contexts of :func:`forward_contexts`, merged backwards (``NK.minimise_level``).

    ``labelled``: contexts with different targets stay apart (table policies read them).
    """
    return build_contexts_many(variant, m, phase, [(lwp_class, lwp_rep)], labelled)[0]


def build_contexts_many(variant: Variant, m: int, phase: str, classes: list, labelled: bool) -> list:
    """:func:`build_contexts` for each ``(lwp_class, lwp_rep)`` of ``classes``, from one
    enumeration of the forward contexts (at 7 and 8 players it is dropped once they are merged,
    and building it again costs minutes)."""
    fw = forward_contexts(variant, m, phase)
    rank = np.ascontiguousarray(dice.RANK[variant.ranking_index])
    exact = variant.followers == "exact"
    out = []
    for lwp_class, lwp_rep in classes:
        nxt, finals = merged_outcomes(fw, lwp_class)
        merged = []
        for i in range(m - 2, -1, -1):
            label = NK.targets(fw.rep_h[i], rank) if labelled else np.full(len(fw.counts[i]), -1, np.int64)
            ids, starts, data = NK.minimise_level(fw.trans[i], fw.counts[i], label, nxt, exact)
            first = np.unique(ids, return_index=True)[1]  # numbered in order of first appearance
            merged.append((ids, starts, data, first))
            nxt = ids
        merged.reverse()
        out.append(_assemble(variant, m, phase, fw, merged, finals, lwp_rep, rank))
        del merged
    if m > KEEP_FORWARD:
        del fw
        forward_contexts.cache_clear()
    return out


KEEP_FORWARD = 6
"""The forward contexts (before merging) of up to this many players in play stay cached once merged:
rebuilding them costs seconds. At 7 and 8 players they take gigabytes (some 4 GB a phase at 8 players
for Super 421) that nothing needs once merged, so they are dropped then (a later call builds them again)."""


def _assemble(variant, m, phase, fw, merged, finals, lwp_rep, rank) -> Contexts:
    sizes = [len(st) - 1 for _, st, _, _ in merged]
    lvl_start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    G = int(lvl_start[-1])
    ctx_c, ctx_target, rows, lens, rep_h, rep_f = [], [], [], [], [], []
    for i, (_ids, starts, data, first) in enumerate(merged):
        shift = G if i == m - 2 else int(lvl_start[i + 1])
        ctx_c.append(data[starts[:-1]])
        ctx_target.append(NK.targets(fw.rep_h[i][first], rank))
        # each merged row without its two leading entries (count, label): one array, where a
        # list of millions of small rows (7 players' décharge) took gigabytes
        body = np.ones(len(data), bool)
        body[starts[:-1]] = body[starts[:-1] + 1] = False
        row = data[body]
        row += shift
        rows.append(row.astype(np.int32))  # (numbers of contexts and outcomes: below 2**31)
        del row
        lens.append(np.diff(starts) - 2)
        pad = np.full((len(first), m - 1), -1, np.int64)
        pad[:, :i + 1] = fw.rep_h[i][first]
        rep_h.append(pad.copy())
        pad[:, :i + 1] = fw.rep_f[i][first]
        rep_f.append(pad)
    lens = np.concatenate(lens).astype(np.int64)
    fin_start = np.concatenate([[0], np.cumsum([len(f) for f in finals])]).astype(np.int64)
    lead_next = merged[0][0][fw.lead_next]
    return Contexts(m, limit(variant, phase), variant.followers == "exact", lvl_start,
                     np.concatenate(ctx_c), np.concatenate(ctx_target),
                     np.concatenate([[0], np.cumsum(lens)]).astype(np.int64),
                     np.concatenate(rows), np.ascontiguousarray(lead_next, np.int64),
                     fin_start, np.array([q for f in finals for q, _ in f], np.int64),
                     np.array([s / NK.SHARE_UNIT for f in finals for _, s in f]),
                     lwp_rep, np.concatenate(rep_h), np.concatenate(rep_f),
                     info={"forward": [len(c) for c in fw.counts], "merged": sizes, "outcomes": len(finals)})


# ====================================================================== the game
def compositions(total: int, parts: int, low: int):
    """Tuples of ``parts`` integers >= low adding up to ``total``, in lexicographic order."""
    if parts == 1:
        if total >= low:
            yield (total,)
        return
    for first in range(low, total - low * (parts - 1) + 1):
        for rest in compositions(total - first, parts - 1, low):
            yield (first,) + rest


def role_states(T: int, m: int) -> list[tuple[int, tuple[int, ...]]]:
    """Every state (pot, tokens by role) with m players in, by increasing pot."""
    return [(pot, toks) for pot in range(T + 1) for toks in compositions(T - pot, m, 1 if pot == 0 else 0)]


def encode(pot: np.ndarray, toks: np.ndarray, T: int) -> np.ndarray:
    """One integer per (pot, tokens) row: the digits in base tokens+1."""
    key = np.asarray(pot, np.int64).copy()
    for j in range(toks.shape[-1]):
        key = key * (T + 1) + toks[..., j]
    return key


@dataclass(eq=False)
class Game:
    """The states of a game and every outcome of every state, settled by the rules kernel.

    A state's players are seen by role (0 leads); ``seat[s, j]`` is the seat of role j
    (the role itself in an equilibrium's game, where seats do not matter). At
    ``[s, l, w, p]`` (loser role, winner role, payout): ``ended`` (-1 unused, 1 the game
    ends, 0 it goes on), ``nxt`` the next state, in this game (``sub == 0``) or in the
    game of ``sub`` players left, ``perm[..., j]`` the next role of role j (-1 out),
    ``shares[..., 0|1, j]`` as ``NK._settle_one``.
    """

    variant: Variant
    n: int
    P: int
    pot: np.ndarray
    m: np.ndarray
    tok: np.ndarray
    seat: np.ndarray
    ended: np.ndarray
    nxt: np.ndarray
    sub: np.ndarray
    perm: np.ndarray
    shares: np.ndarray
    states: list
    contexts: dict = field(default_factory=dict)
    outcome_parts: dict = field(default_factory=dict)  # succs's reading of the outcomes, by states

    @property
    def size(self) -> int:
        """The number of states."""
        return len(self.pot)

    def decharge(self) -> np.ndarray:
        """The décharge's states (the pot empty)."""
        return np.flatnonzero(self.pot == 0)

    def charge_groups(self) -> list[np.ndarray]:
        """The charge's states by increasing pot (each only leads to states of a smaller pot)."""
        return [np.flatnonzero(self.pot == q) for q in range(1, self.variant.tokens + 1)]

    def term(self, s, objective: str) -> np.ndarray:
        """``[l, w, p, j]``: role j's utility where its game is over (ended, or out)."""
        sh = self.shares[s].astype(np.float64)
        k = 0 if objective == "pay" else 1
        part = np.divide(1.0, sh[..., k, :], out=np.zeros_like(sh[..., k, :]), where=sh[..., k, :] > 0)
        return 1.0 - part if objective == "pay" else part


def canonical_dist(game: Game, s: int, d: np.ndarray) -> np.ndarray:
    """State s's outcome distribution ``d[l, w, p]`` with the probability of every outcome on the
    first (loser, winner, payout), in that order, that leads to the same (end or next state, roles,
    shares) from s.

    The round kernel puts an outcome class's probability on the class's first triple, and the
    classes are those of the states its contexts serve (a phase, or a pot: :meth:`Rounds.contexts`),
    so that two sets of contexts can spread one state's distribution differently; this form is
    the state's alone (equal, to rounding, whatever contexts computed it)."""
    n, P = game.n, game.P
    rows = np.concatenate([game.ended[s].reshape(-1, 1), game.nxt[s].reshape(-1, 1), game.sub[s].reshape(-1, 1),
                           game.perm[s].reshape(-1, n), game.shares[s].reshape(-1, 2 * n)], axis=1).astype(np.int64)
    _, first, inv = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    out = np.zeros(n * n * P)
    np.add.at(out, first[inv.ravel()], np.asarray(d, np.float64).ravel())
    return out.reshape(n, n, P)


def dist_difference(game: Game, states, a: np.ndarray, b: np.ndarray) -> float:
    """The largest difference between the outcome distributions ``a[i]`` and ``b[i]`` of ``states[i]``,
    in each state's own form (:func:`canonical_dist`; computed only where the arrays differ)."""
    states = np.atleast_1d(np.asarray(states, np.int64))
    worst = 0.0
    for i in np.flatnonzero((a != b).reshape(len(states), -1).any(axis=1)).tolist():
        s = int(states[i])
        worst = max(worst, float(np.abs(canonical_dist(game, s, a[i]) - canonical_dist(game, s, b[i])).max()))
    return worst


def settle(variant: Variant, pots, toks, outs, leaders, P: int) -> dict:
    """Every outcome of every state by the rules kernel (``NK.settle_states``), as arrays."""
    Ns, n = toks.shape
    shape = (Ns, n, n, P)
    out = dict(ended=np.full(shape, -1, np.int8), pot=np.zeros(shape, np.int64), lead=np.zeros(shape, np.int64),
               mask=np.zeros(shape, np.int64), tok=np.zeros(shape + (n,), np.int64),
               perm=np.full(shape + (n,), -1, np.int8), shares=np.zeros(shape + (2, n), np.int8))
    NK.settle_states(np.asarray(pots, np.int64), np.ascontiguousarray(toks, np.int64),
                     np.ascontiguousarray(outs, np.int64), np.asarray(leaders, np.int64), P, R.params(variant),
                     out["ended"], out["pot"], out["lead"], out["mask"], out["tok"], out["perm"], out["shares"])
    return out


def _next_role_tokens(perm: np.ndarray, tok: np.ndarray) -> np.ndarray:
    """Tokens by the next round's roles (-1 beyond those in play)."""
    nt = np.full(perm.shape, -1, np.int64)
    for j in range(perm.shape[-1]):
        ok = perm[..., j] >= 0
        idx = np.nonzero(ok)
        nt[idx + (perm[..., j][ok].astype(np.int64),)] = tok[..., j][ok]
    return nt


def pay_bound(variant: Variant, m: int) -> int:
    """Payout numbers to consider: what the round tables can give, capped at the tokens (no more move).

    A décharge round of m players in play needs m tokens (each holds one). With fewer, the charge
    alone gives the bound, tokens + 1, as both phases would: a hand worth 8 or more (every value
    scheme has one) can win a charge round, and tokens < m <= 8. So the décharge's contexts, which
    can cost as much as the charge's (at 8 players minutes and gigabytes), are not built for it.
    """
    phases = PHASES if variant.tokens >= m else ("charge",)
    most = max(int(((forward_contexts(variant, m, ph).out_data >> 6) & 16383).max()) for ph in phases)
    if phases != PHASES and most < variant.tokens:  # (the argument above fails: ask both phases)
        most = max(most, int(((forward_contexts(variant, m, "decharge").out_data >> 6) & 16383).max()))
    return min(most, variant.tokens) + 1


@lru_cache(maxsize=16)
def role_game(variant: Variant, m: int) -> Game:
    """The game of m players seen by role (an equilibrium's states: every player in)."""
    T = variant.tokens
    states = role_states(T, m)
    pots = np.array([q for q, _ in states], np.int64)
    toks = np.array([t for _, t in states], np.int64).reshape(len(states), m)
    P = pay_bound(variant, m)
    st = settle(variant, pots, toks, np.zeros_like(toks), np.zeros(len(states), np.int64), P)
    nt = _next_role_tokens(st["perm"], st["tok"])
    left = (st["perm"] >= 0).sum(-1)
    nxt = np.zeros(st["pot"].shape, np.int64)
    live = st["ended"] == 0
    for k in sorted(set(left[live].tolist())):
        where = live & (left == k)
        keys = encode(st["pot"][where], nt[where][:, :k], T)
        ref = states if k == m else role_game(variant, k).states
        table = encode(np.array([q for q, _ in ref]), np.array([t for _, t in ref]).reshape(len(ref), k), T)
        order = np.argsort(table)
        pos = order[np.searchsorted(table, keys, sorter=order)]
        assert np.array_equal(table[pos], keys)
        nxt[where] = pos
    sub = np.where(live & (left < m), left, 0).astype(np.int8)
    return Game(variant, m, P, pots, np.full(len(states), m), toks, np.tile(np.arange(m), (len(states), 1)),
                 st["ended"], nxt, sub, st["perm"], st["shares"], states)


def lwp_classes(game: Game, m: int, phase: str, pots=None) -> tuple[np.ndarray, np.ndarray]:
    """Outcome classes: (loser, winner, payout) triples after which every state of the phase
    with m players (and, with ``pots``, a pot among those) goes on the same way (same end or
    next state, roles and shares).

    Returns ``lwp_class[l, w, p]`` (-1 unused) and ``lwp_rep[q]``, the first triple of class q.
    Both depend only on how the triples fall into classes (numbered in the order of the triples):
    two sets of states whose triples fall alike get equal arrays.
    """
    where = (game.m == m) & ((game.pot > 0) == (phase == "charge"))
    if pots is not None:
        where &= np.isin(game.pot, np.asarray(pots, np.int64))
    where = np.flatnonzero(where)
    n, P = game.n, game.P
    lwp_class = np.full((n, n, P), -1, np.int64)
    reps: dict = {}
    for lo, w, p in itertools.product(range(m), range(m), range(1, P)):
        if lo == w:
            continue
        sig = (game.ended[where, lo, w, p].tobytes() + game.nxt[where, lo, w, p].tobytes()
               + game.sub[where, lo, w, p].tobytes() + game.perm[where, lo, w, p].tobytes()
               + game.shares[where, lo, w, p].tobytes())
        lwp_class[lo, w, p] = reps.setdefault(sig, len(reps))
    lwp_rep = np.zeros((len(reps), 3), np.int64)
    for lo, w, p in itertools.product(range(m), range(m), range(1, P)):
        q = lwp_class[lo, w, p]
        if q >= 0 and not lwp_rep[q].any():
            lwp_rep[q] = (lo, w, p)
    return lwp_class, lwp_rep


def _threads(buf: np.ndarray) -> int:
    """The threads a batch of rounds takes: numba's count (``NUMBA_NUM_THREADS``, or what
    ``numba.set_num_threads`` set in this thread), at most one per work array of ``buf``."""
    return max(1, min(numba.get_num_threads(), len(buf)))


def _chunk(states: int, threads: int) -> int:
    """States handed to a thread at a time: some 16 ranges a thread, so that the call of a kernel
    (a few microseconds) is small beside a range's rounds and a thread slowed by another process
    holds the others up by at most a sixteenth of the batch."""
    return max(1, states // (16 * threads))


# States side by side (NK.rounds_side_by_side): a lane costs about this share of a state
# solved alone (measured on décharge passes without the outcome distributions: 0.66 for
# classic at 3 players, 0.63 s against 0.96 s; about 0.8 for Super 421 at 4 players), and the
# work arrays of one thread may take this many bytes.
_SIDE_BY_SIDE_COST = 0.75
_SIDE_BY_SIDE_BYTES = 768 * 2**20


class Rounds:
    """The round kernel run on the states of one game: contexts built once per (players in play,
    phase), work arrays kept between rounds."""

    def __init__(self, game: Game, labelled: bool = False, lanes: bool = True, side_by_side: bool | None = None,
                 tie: int = NK.TIE_FIRST, per_pot: bool = True):
        # lanes: the round kernel solves contexts side by side where it can (NK._level_lanes);
        # False runs them one at a time. side_by_side: where everyone plays the profile, states go
        # through the kernel NK._SW at a time (None: where that is cheaper and the work arrays
        # fit, see side_by_side_pays). The numbers are the same bit for bit (tests compare them).
        # tie: the profile's tie order (NK.TIE_FIRST, ...), an int64 at run time as K is.
        # per_pot: a batch of charge states goes through the contexts of its pots alone (see
        # key); False, through those of the whole phase, as before (the same values to rounding).
        self.game, self.labelled, self.lanes, self.side_by_side = game, labelled, lanes, side_by_side
        self.tie = np.int64(tie)
        self.per_pot = per_pot
        self._ctx: dict = {}
        self._by_classes: dict = {}
        self._buf: dict = {}
        self.seconds_contexts = 0.0

    def contexts(self, m: int, phase: str, pots: tuple | None = None) -> Contexts:
        """The contexts of m players in play in the phase (with ``pots``, of its states with one of
        those pots alone), built on first use.

        A charge round pays at most the pot: with a small pot, payouts that differ elsewhere in the
        phase lead to the same next state, so more contexts merge (Super 421 at 6 players: 9,420
        contexts with a pot of 1, 61,992 over the phase; the charge's work divided by 3.3). Sets
        of pots whose outcomes fall into the same classes share one set of contexts.
        """
        key = (m, phase, pots)
        if key not in self._ctx:
            self.prepare(m, phase, [pots])
        return self._ctx[key]

    def prepare(self, m: int, phase: str, pot_sets: list) -> None:
        """Build the contexts of each entry of ``pot_sets`` (a tuple of pots, or None: the whole
        phase) at once (:func:`build_contexts_many`: one forward enumeration for all)."""
        t0 = time.perf_counter()
        todo, wanted = [], []
        for pots in pot_sets:
            if (m, phase, pots) in self._ctx:
                continue
            cls, rep = lwp_classes(self.game, m, phase, pots)
            ckey = (m, phase, cls.tobytes())
            wanted.append(((m, phase, pots), ckey))
            if ckey not in self._by_classes and all(ckey != k for k, _ in todo):
                todo.append((ckey, (cls, rep)))
        if todo:
            built = build_contexts_many(self.game.variant, m, phase, [c for _, c in todo], self.labelled)
            self._by_classes.update(zip([k for k, _ in todo], built))
        for key, ckey in wanted:
            self._ctx[key] = self._by_classes[ckey]
        self.seconds_contexts += time.perf_counter() - t0

    def key(self, states) -> tuple:
        """The contexts of a batch of states (of one number of players in play and one phase, checked):
        ``(m, phase, pots)``, ``pots`` the batch's pots in the charge (None with ``per_pot`` False, or in
        the décharge)."""
        states = np.atleast_1d(np.asarray(states, np.int64))
        m = int(self.game.m[states[0]])
        pot = self.game.pot[states]
        charge = bool(pot[0] > 0)
        if (self.game.m[states] != m).any() or ((pot > 0) != charge).any():
            raise ValueError("rounds: a batch of states must have as many players in play and one phase")
        pots = tuple(np.unique(pot).tolist()) if charge and self.per_pot else None
        return m, "charge" if charge else "decharge", pots

    def charge_sets(self, m: int) -> list:
        """The pots of the charge one at a time (as :meth:`Game.charge_groups` batches them), or the
        whole phase (``per_pot`` False): what :meth:`prepare` builds before a sweep of the charge."""
        if not self.per_pot:
            return [None]
        pots = np.unique(self.game.pot[(self.game.m == m) & (self.game.pot > 0)])
        return [(int(q),) for q in pots]

    def _for(self, ct: Contexts) -> None:
        # work arrays are kept for one set of contexts at a time: the charge's sets (one per pot)
        # are used one after the other, and each thread's arrays for states side by side may
        # take hundreds of megabytes
        if self._buf.get("ct") is not ct:
            self._buf.clear()
            self._buf["ct"] = ct

    def buffers(self, ct: Contexts, K: int):
        """Work arrays of the round kernel, one set per thread."""
        self._for(ct)
        key = (id(ct), K)
        if key not in self._buf:
            nt, E = numba.config.NUMBA_NUM_THREADS, ct.G + len(ct.fin_start) - 1
            self._buf[key] = (np.zeros((nt, E, K)), np.zeros((nt, ct.G, 2, _NH), np.int8), np.zeros((nt, E)))
        return self._buf[key]

    def keep_buffer(self, ct: Contexts):
        """A second array of keeps per thread (the certificate's deviators' keeps)."""
        self._for(ct)
        key = (id(ct), "keeps")
        if key not in self._buf:
            self._buf[key] = np.zeros((numba.config.NUMBA_NUM_THREADS, ct.G, 2, _NH), np.int8)
        return self._buf[key]

    def state_buffers(self, ct: Contexts, K: int, deviate: bool):
        """Work arrays of the kernel of states side by side, one set per thread: ``vals``, the
        keeps (``dec``, and ``dev`` the deviators' in the certificate: else ``dec`` again), ``mass``."""
        nt, E = numba.config.NUMBA_NUM_THREADS, ct.G + len(ct.fin_start) - 1
        self._for(ct)

        def kept(key, shape, dtype=np.float64):
            if (id(ct), key) not in self._buf:
                self._buf[id(ct), key] = np.zeros(shape, dtype)
            return self._buf[id(ct), key]

        keeps = [kept(("keeps", d), (nt, ct.G, 2, _NH, NK._SW), np.int8) for d in range(1 + deviate)]
        return kept(("values", K), (nt, E, K, NK._SW)), keeps[0], keeps[-1], kept("mass", (nt, E, NK._SW))

    def side_by_side_pays(self, ct: Contexts, B: int, K: int, deviate: bool = False) -> bool:
        """Whether B states go side by side (when ``side_by_side`` is None): the groups of NK._SW
        lanes, shared among the threads, cost less than the states one by one, and one thread's
        work arrays take at most _SIDE_BY_SIDE_BYTES."""
        if not self.lanes or self.side_by_side is not None:
            return self.lanes and bool(self.side_by_side)
        nt = numba.get_num_threads()
        E = ct.G + len(ct.fin_start) - 1
        if NK._SW * (E * K * 8 + ct.G * 2 * _NH * (1 + deviate)) > _SIDE_BY_SIDE_BYTES:
            return False
        groups = -(-B // NK._SW)
        return -(-groups // nt) * NK._SW * _SIDE_BY_SIDE_COST < -(-B // nt)

    def _side_by_side(self, ct: Contexts, m: int, K: int, deviate: bool, S_cls, want_dist: bool, out, dist_cls):
        vals, dec, dev, mass = self.state_buffers(ct, K, deviate)
        Kc, cx = components(K), ct.arrays

        def work(lo: int, hi: int, t: int) -> None:
            NK.rounds_side_by_side(lo, hi, t, ct.L, m, ct.exact, Kc, deviate, S_cls, cx, want_dist, vals, dec, dev,
                                   mass, out, dist_cls, self.tie)
        split_over_threads(-(-len(S_cls) // NK._SW), _threads(vals), work)

    def run(self, states, S: np.ndarray, Kp: int, plays=None, want_dist: bool = False, spread=None):
        """Solve the rounds of ``states`` (of one number of players, one phase) from their
        ``S[b, l, w, p, j]``, in parallel over the states.

        ``plays``: ``(acts[b, m], lead_tabs[b], foll_tabs, foll_idx[b, m])`` as
        ``NK.solve_rounds`` reads them (None: everyone plays the profile). Returns
        ``(utilities[b, K], dist[b, l, w, p] or None)``; ``spread``, an array of one entry per
        state, receives the tie order's weight in each (``NK._tie_spread``).
        """
        states = np.atleast_1d(np.asarray(states, np.int64))
        m, phase, pots = self.key(states)
        ct = self.contexts(m, phase, pots)
        B, K = len(states), S.shape[-1]
        S_cls = np.ascontiguousarray(S[:, ct.lwp_rep[:, 0], ct.lwp_rep[:, 1], ct.lwp_rep[:, 2]])
        out = np.zeros((B, K))
        side = plays is None and spread is None and Kp == K and self.side_by_side_pays(ct, B, K)
        # the side-by-side kernel writes dist[b, r] (r = 0 here, as in the certificate)
        dist_cls = np.zeros((B, 1, len(ct.lwp_rep)) if side else (B, len(ct.lwp_rep)))
        if side:
            self._side_by_side(ct, m, K, False, S_cls, want_dist, out, dist_cls)
        else:
            vals, dec, mass = self.buffers(ct, K)
            acts, lead_tabs, foll_tabs, foll_idx = plays if plays is not None else profile_plays(B, m)
            # the targets only where a table reads them (a table's follower keeps by the worst hand so far)
            cx = ct.arrays if foll_tabs.shape[1] > 1 else ct.arrays._replace(ctx_target=np.zeros_like(ct.ctx_target))
            Kc, sp = components(K), np.zeros(0) if spread is None else spread

            def work(lo: int, hi: int, t: int) -> None:
                NK.solve_rounds(lo, hi, t, ct.L, m, ct.exact, Kp, Kc, acts, lead_tabs, foll_tabs, foll_idx, S_cls, cx,
                                want_dist, vals, dec, mass, out, dist_cls, sp, self.lanes, self.tie)
            nt = _threads(vals)
            split_over_threads(B, nt, work, _chunk(B, nt))
        if not want_dist:
            return out, None
        dist = np.zeros((B,) + S.shape[1:4])
        dist[:, ct.lwp_rep[:, 0], ct.lwp_rep[:, 1], ct.lwp_rep[:, 2]] = dist_cls.reshape(B, -1)
        return out, dist

    def best_responses(self, states, S_prof: np.ndarray, S_dev: np.ndarray, want_dist: bool = False):
        """Every role's best response in ``states`` (one number of players, one phase) against the
        profile whose keeps are best against ``S_prof[b, l, w, p, j]``; ``S_dev[b, r, l, w, p]``: role
        r's utilities after the round. Returns ``(utilities[b, r], dist[b, r, l, w, p] or None)``."""
        states = np.atleast_1d(np.asarray(states, np.int64))
        m, phase, pots = self.key(states)
        ct = self.contexts(m, phase, pots)
        rep = (ct.lwp_rep[:, 0], ct.lwp_rep[:, 1], ct.lwp_rep[:, 2])
        S = np.ascontiguousarray(np.concatenate([S_prof[:, rep[0], rep[1], rep[2]],
                                                 np.moveaxis(S_dev[:, :, rep[0], rep[1], rep[2]], 1, -1)], axis=-1))
        out = np.zeros((len(states), m))
        dist_cls = np.zeros((len(states), m, len(ct.lwp_rep)))
        if self.side_by_side_pays(ct, len(states), 2 * m, True):
            self._side_by_side(ct, m, 2 * m, True, S, want_dist, out, dist_cls)
        else:
            vals, dec, mass = self.buffers(ct, 2 * m)
            dev = self.keep_buffer(ct)
            Kc, cx = components(2 * m), ct.arrays

            def work(lo: int, hi: int, t: int) -> None:
                NK.best_response_rounds(lo, hi, t, ct.L, m, ct.exact, Kc, S, cx, want_dist, vals, dec, dev, mass, out,
                                        dist_cls, self.lanes, self.tie)
            nt = _threads(vals)
            split_over_threads(len(states), nt, work, _chunk(len(states), nt))
        if not want_dist:
            return out, None
        dist = np.zeros((len(states), m) + S_prof.shape[1:4])
        dist[:, :, rep[0], rep[1], rep[2]] = dist_cls
        return out, dist

    def decisions(self, s: int, S: np.ndarray, Kp: int, plays=None, values: bool = False):
        """The keeps played in the round of state s: ``(contexts, dec[g, made-1, h], lead_dec[made-1, h])``;
        with ``values``, also ``vals[x, j]``: the utilities at each context x before its follower's turn
        (``x < G``) and after each outcome (``G + e``), from which one decision's keep values follow."""
        m, phase, pots = self.key(s)
        ct = self.contexts(m, phase, pots)
        K = S.shape[-1]
        vals, dec, mass = (a[0] for a in self.buffers(ct, K))
        S_cls = np.ascontiguousarray(S[ct.lwp_rep[:, 0], ct.lwp_rep[:, 1], ct.lwp_rep[:, 2]])
        acts, lead_tabs, foll_tabs, foll_idx = plays if plays is not None else profile_plays(1, m)
        target = ct.ctx_target if foll_tabs.shape[1] > 1 else np.zeros_like(ct.ctx_target)
        lead_dec = np.zeros((2, _NH), np.int8)
        NK.solve_round(ct.L, m, ct.exact, Kp, components(K), acts[0], lead_tabs[0], foll_tabs[foll_idx[0]], dec, S_cls,
                       ct.arrays._replace(ctx_target=target), False, vals, dec, lead_dec, mass, np.zeros(K),
                       np.zeros(len(ct.lwp_rep)), np.zeros(0), self.lanes, self.tie)
        if values:
            return ct, dec.copy(), lead_dec, vals.copy()
        return ct, dec.copy(), lead_dec


def components(K: int) -> np.int64:
    """The number of components K as the round kernels take it: an int64 read at run time, so
    that one compilation of each kernel serves every K. (A tuple of K zeros, whose length numba
    compiles in, unrolled the loops over components, which was faster before the lanes kernel
    took over the follower levels; it cost one compilation per K, about 30 s each when cold, for
    no gain measured since. A Python int passed between jitted functions would be typed as a
    literal and compiled once per value too.)"""
    return np.int64(K)


def profile_plays(B: int, m: int):
    """Everyone plays the profile (no table)."""
    return (np.zeros((B, m), np.int64), np.zeros((B, 2, _NH), np.int8), np.zeros((1, 1, 3, 2, _NH), np.int8),
            np.zeros((B, m), np.int64))


# ====================================================================== utilities after a round
def succs(game: Game, states, V: np.ndarray, subV: dict, objective: str, roles=None) -> np.ndarray:
    """``S[b, l, w, p, i]``: the utility of role ``roles[i]`` (default: every role in play) after every
    outcome of ``states[b]`` (of as many players in play), from the values ``V`` of this game's
    states and ``subV[k]`` of the game of k players left."""
    states = np.atleast_1d(np.asarray(states, np.int64))
    m = int(game.m[states[0]])
    if (game.m[states] != m).any():
        raise ValueError("succs: the states must have as many players in play")
    roles = np.arange(m) if roles is None else np.asarray(roles, np.int64)
    key = (states.tobytes(), objective, roles.tobytes())
    if key not in game.outcome_parts:  # what does not change from one iteration to the next
        term = game.term(states, objective)[..., roles]
        ended, nxt, sub = game.ended[states], game.nxt[states], game.sub[states]
        perm = game.perm[states][..., roles].astype(np.int64)
        parts = []
        for k in np.unique(sub[ended == 0]).tolist():
            at = np.nonzero((ended == 0) & (sub == k))
            p = perm[at]
            parts.append((k, at, nxt[at][:, None], np.maximum(p, 0), p >= 0, term[at]))
        if len(game.outcome_parts) > 64:
            game.outcome_parts.clear()
        game.outcome_parts[key] = (term, parts)
    term, parts = game.outcome_parts[key]
    S = term.copy()
    for k, at, nx, p, going, ends in parts:
        src = V if k == 0 else subV[k]
        S[at] = np.where(going, src[nx, p], ends)
    return S


def succ(game: Game, s: int, V: np.ndarray, subV: dict, objective: str, r: int = -1, W=None, subW=None):
    """``S[l, w, p, j]``: the utilities after every outcome of state s: one component per role
    (from ``V``), plus, with ``r >= 0``, role r's from ``W`` (its best response's values)."""
    S = succs(game, s, V, subV, objective)[0]
    return S if r < 0 else np.concatenate([S, succs(game, s, W, subW, objective, [r])[0]], axis=-1)


# ====================================================================== exact values of fixed play
def _go_on(game: Game, states: np.ndarray):
    """Where the game goes on in this game from ``states``: the indices (s, l, w, p) and next state."""
    go = (game.ended[states] == 0) & (game.sub[states] == 0)
    si, lo, w, p = np.nonzero(go)
    return si, lo, w, p, game.nxt[states][si, lo, w, p]


def constant_part(game: Game, states, dist, objective: str, subV: dict, per_role: bool) -> np.ndarray:
    """``c[b, t]``: role t's expected utility in state ``states[b]`` from the outcomes after which
    its value is known (the end, going out, or the game of fewer players); ``dist[b]`` as
    :func:`evaluate` reads it."""
    states = np.asarray(states, np.int64)
    c = np.zeros((len(states), game.n))
    zero = np.zeros((game.size, game.n))
    for m in np.unique(game.m[states]).tolist():  # succs takes states of as many players in play
        at = np.flatnonzero(game.m[states] == m)
        S = succs(game, states[at], zero, subV, objective)
        c[at, :m] = (np.einsum("btlwp,blwpt->bt", dist[at][:, :m], S) if per_role
                     else np.einsum("blwp,blwpt->bt", dist[at], S))
    return c


def _chain_parts(game: Game, states, dist, per_role: bool, t: int, tracked: str):
    """Where the game goes on from ``states`` for tracked role t: (row b, probability, next state, next role)."""
    si, lo, w, p, nx = _go_on(game, states)
    d = dist[si, t, lo, w, p] if per_role else dist[si, lo, w, p]
    tn = game.perm[states][si, lo, w, p, t].astype(np.int64) if tracked == "perm" else np.zeros_like(si)
    ok = (d != 0) & (tn >= 0)
    return si[ok], d[ok], nx[ok], tn[ok]


def evaluate(game: Game, dist: np.ndarray, const: np.ndarray, per_role: bool, tracked: str = "perm",
              only_decharge: bool = False) -> np.ndarray:
    """``X[s, t]`` = ``const[s, t]`` + the expected ``X`` of the next state, for role t's player
    (``tracked="perm"``: it is role ``perm[t]`` there) or for the game (``"same"``: t = 0).

    ``dist[s(, t), l, w, p]``: the round's outcome distribution (per tracked role when
    ``per_role``). The décharge by one sparse linear system (exact to rounding), then the
    charge by increasing pot. With ``only_decharge``, ``dist`` and ``const`` hold the
    décharge states only (in ``game.decharge()`` order) and so does the result.
    """
    n, X = game.n, np.zeros((game.size, game.n))
    dech = game.decharge()
    roles = range(n) if tracked == "perm" else range(1)
    if len(dech):
        pos = np.full(game.size, -1, np.int64)
        pos[dech] = np.arange(len(dech))
        d_dech = dist if only_decharge else dist[dech]
        c_dech = const if only_decharge else const[dech]
        rows, cols, vals = [], [], []
        for t in roles:
            b, d, nx, tn = _chain_parts(game, dech, d_dech, per_role, t, tracked)
            rows.append(b * n + t)
            cols.append(pos[nx] * n + tn)
            vals.append(-d)
        import scipy.sparse as sp  # (here: a command that solves no chain does not import scipy)

        N = len(dech) * n
        A = sp.identity(N, format="csr") + sp.csr_matrix(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(N, N))
        X[dech] = sparse_solve(A, c_dech.reshape(-1)).reshape(-1, n)
        if only_decharge:
            return X[dech]
    for group in game.charge_groups():
        for t in roles:
            b, d, nx, tn = _chain_parts(game, group, dist[group], per_role, t, tracked)
            acc = np.zeros(len(group))
            np.add.at(acc, b, d * X[nx, tn])
            X[group, t] = const[group, t] + acc
    return X


def sparse_solve(A, b: np.ndarray) -> np.ndarray:
    """A sparse direct solve, refined until the residual stops shrinking (values exact to rounding)."""
    import scipy.sparse.linalg as spla

    lu = spla.splu(A.tocsc())
    x = lu.solve(b)
    for _ in range(3):
        r = b - A @ x
        if np.abs(r).max() <= 1e-16:
            break
        x = x + lu.solve(r)
    return x


# ====================================================================== best responses to a table
def seat_states(variant: Variant, n: int) -> list[tuple[int, int, int, tuple[int, ...]]]:
    """Every state (pot, out mask, leading seat, tokens by seat), by increasing pot.

    In the charge everyone is in; in the décharge the players in hold tokens, and
    under ``last_holder`` any two or more may be left.
    """
    T = variant.tokens
    out = []
    for pot in range(T + 1):
        masks = [0] if pot > 0 or variant.end == "first_out" else \
            [mk for mk in range(2 ** n) if n - bin(mk).count("1") >= 2]
        for mk in masks:
            seats = [q for q in range(n) if not mk >> q & 1]
            for toks in compositions(T - pot, len(seats), 1 if pot == 0 else 0):
                by_seat = [0] * n
                for q, t in zip(seats, toks):
                    by_seat[q] = t
                out += [(pot, mk, ld, tuple(by_seat)) for ld in seats]
    return out


def _seat_key(pot, mask, lead, toks, T: int, n: int) -> np.ndarray:
    return (encode(pot, toks, T) * (2 ** n) + np.asarray(mask, np.int64)) * n + np.asarray(lead, np.int64)


@lru_cache(maxsize=8)
def seat_game(variant: Variant, n: int) -> Game:
    """The game of n seats with its states by seat (who leads, who is out): the game of fixed,
    seat-bound policies. Roles are still the playing order of each state."""
    T = variant.tokens
    states = seat_states(variant, n)
    pots = np.array([q for q, _, _, _ in states], np.int64)
    masks = np.array([mk for _, mk, _, _ in states], np.int64)
    leads = np.array([ld for _, _, ld, _ in states], np.int64)
    toks = np.array([t for _, _, _, t in states], np.int64).reshape(len(states), n)
    outs = (masks[:, None] >> np.arange(n)) & 1
    P = pay_bound(variant, n)
    st = settle(variant, pots, toks, outs, leads, P)
    table = _seat_key(pots, masks, leads, toks, T, n)
    order = np.argsort(table)
    live = st["ended"] == 0
    keys = _seat_key(st["pot"][live], st["mask"][live], st["lead"][live], st["tok"][live], T, n)
    pos = order[np.searchsorted(table, keys, sorter=order)]
    assert np.array_equal(table[pos], keys)
    nxt = np.zeros(st["pot"].shape, np.int64)
    nxt[live] = pos
    seat = np.full((len(states), n), -1, np.int64)
    m = np.zeros(len(states), np.int64)
    for s in range(len(states)):
        order_s = [(leads[s] + k) % n for k in range(n) if not outs[s, (leads[s] + k) % n]]
        m[s] = len(order_s)
        seat[s, :m[s]] = order_s
    tok_role = np.where(seat >= 0, np.take_along_axis(toks, np.maximum(seat, 0), 1), 0)
    return Game(variant, n, P, pots, m, tok_role, seat, st["ended"], nxt, np.zeros(st["pot"].shape, np.int8),
                 st["perm"], st["shares"], states)
