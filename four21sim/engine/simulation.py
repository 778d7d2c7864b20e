"""``simulate``: play many complete games with the numba engine and summarise them.

    >>> from four21sim import simulate, Variant
    >>> res = simulate(Variant.from_preset("super421"), players=2,
    ...                policies=["greedy", "table-aware"], games=100_000, seed=1)
    >>> res.measures()            # tidy frame: measure, seat, value, ci_low, ci_high
    >>> res.first_player_advantage()

Games are numbered ``0, 1, 2, ...``; game ``g`` draws its dice from a stream
that depends only on ``(seed, g)`` (docs/engine.md), and counters are integer
sums, so the same seed gives the same numbers whatever the threads or chunks.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numba
import numpy as np

if TYPE_CHECKING:  # pandas is imported where a table is made: a command that makes none does not pay for it
    import pandas as pd

from .._util import display as _display
from .._util.checks import check_choice, check_int, check_seed, shown
from .._util.threads import split_over_threads
from ..policies import Policy, resolve_policies
from ..policies.contexts import CTX_COMPACT
from ..rules import dice
from ..rules import kernel as R
from ..rules.variants import MAX_PLAYERS, MIN_PLAYERS, Variant, as_variant
from . import _kernels as K
from . import layout as Y
from .stats import Z95, Estimate, equal_shares_test, max_deviation_interval, mean_interval, ratio_interval, wilson

__all__ = ["simulate", "SimulationResult", "variant_params", "MAX_PLAYERS", "MIN_PLAYERS", "LongRunWarning",
           "LONG_RUN_SECONDS"]

DEFAULT_BLOCK = 8192

LONG_RUN_SECONDS = 600.0
"""A run :func:`simulate` expects to last longer than this (after timing its second batch of
games) is announced by a :class:`LongRunWarning` with the estimate, unless the caller follows it
with ``progress``: ``games=10**12`` is days of work, never a silent wait."""


class LongRunWarning(UserWarning):
    """:func:`simulate`'s estimate that the run will last more than :data:`LONG_RUN_SECONDS`.

    A warning, not a refusal: the run goes on. ``warnings.simplefilter("error", LongRunWarning)``
    turns it into a refusal (the exception stops the run a batch or two in), and Ctrl-C
    (KeyboardInterrupt) stops a run between two batches."""


def _records_table(rec) -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame(rec, columns=RECORD_COLUMNS)


def _duration(seconds: float) -> str:
    for unit, size in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= 2 * size:
            return f"{seconds / size:,.0f} {unit}"
    return f"{seconds:.0f} seconds"


def _announce_long_run(games: int, left: int, batch_games: int, batch_seconds: float) -> None:
    """Warn (:class:`LongRunWarning`) if ``left`` games at the last batch's pace take over :data:`LONG_RUN_SECONDS`."""
    rate = batch_games / max(batch_seconds, 1e-9)
    seconds = left / rate
    if seconds > LONG_RUN_SECONDS:
        warnings.warn(f"simulate: {games:,} games will take about {_duration(seconds)} more at this machine's pace "
                      f"({rate:,.0f} games a second over the last {batch_games:,}); interrupt (Ctrl-C) to stop, "
                      "fewer games for a quicker answer, or progress= to follow it", LongRunWarning, stacklevel=4)
MAX_RECORD_GAMES = 2_000_000
RECORD_COLUMNS = list(Y.RECORD_COLUMNS)
# per-round rates (numerators over all rounds played), with intervals from blocks of games
ROUND_RATES = ([f"p_round_won_by_{c}" for c in dice.CATEGORY_NAMES]
               + [f"p_round_lost_by_{c}" for c in dice.CATEGORY_NAMES]
               + [f"p_leader_count_{i}" for i in (1, 2, 3)] + ["p_round_nenette_rescue"])
BLOCK_STATS = ("blk_n", "blk_kk", "blk_kr", "blk_rr",
               # per-block sums for the per-position round rates
               "blk_pos_kk", "blk_pos_kr", "blk_pos_rr")
_COUNTERS = Y.COUNTER_NAMES
PHASES = ("charge", "decharge")
DISTRIBUTIONS = ("rounds", "rounds_charge", "rounds_decharge", "swing_round", "swing_game", "taken")
variant_params = R.params


SHARE_UNIT = Y.SHARE_UNIT  # lcm(1..8): a win shared by k players is worth SHARE_UNIT // k, exactly


def win_units(win_mask: np.ndarray, seat: int) -> np.ndarray:
    """A seat's win share per game from per-game winner masks, in units of 1/SHARE_UNIT."""
    k = np.zeros(win_mask.shape, dtype=np.int64)
    for s in range(8):
        k += (win_mask >> s) & 1
    won = (win_mask >> seat) & 1
    return np.where(won == 1, SHARE_UNIT // np.maximum(k, 1), 0)


def _round_numerators(cnt: dict) -> np.ndarray:
    """Per-block numerators of the per-round rates, in the order of ROUND_RATES."""
    return np.concatenate([cnt["cat_winner"], cnt["cat_loser"], cnt["count"], cnt["rescues"][:, None]], axis=1)


def _block_stats(view: dict) -> dict:
    """Sums over blocks of k_b**2, k_b*r_b and r_b**2 (k: numerators, r: rounds): enough for
    ratio-estimator intervals that respect the correlation of rounds within a game."""
    k = _round_numerators(view)
    r = view["rounds_played"]
    out = {"blk_n": np.array([len(r)], dtype=np.int64), "blk_kk": (k * k).sum(axis=0),
           "blk_kr": (k * r[:, None]).sum(axis=0), "blk_rr": np.array([(r * r).sum()], dtype=np.int64)}
    pos = view["position"].reshape(len(r), -1, 3)  # (phase, place after the leader) flattened
    kk, rr = pos[:, :, 1:], pos[:, :, :1]
    out["blk_pos_kk"] = (kk * kk).sum(axis=0).ravel()
    out["blk_pos_kr"] = (kk * rr).sum(axis=0).ravel()
    out["blk_pos_rr"] = (rr * rr).sum(axis=0).ravel()
    return out


def pack_policies(policies: Sequence[Policy]):
    """Distinct policies -> (pk meta, flat lead, flat foll, flat aux, seat -> policy index)."""
    distinct: list[Policy] = []
    seat_pol = []
    for pol in policies:
        for i, d in enumerate(distinct):
            if d is pol:
                seat_pol.append(i)
                break
        else:
            distinct.append(pol)
            seat_pol.append(len(distinct) - 1)
    pk = np.zeros((len(distinct), K.N_PK), dtype=np.int64)
    leads, folls, auxs, lo, fo, ao = [], [], [], 0, 0, 0
    for i, pol in enumerate(distinct):
        pk[i, K.K_KIND] = K.KIND_RANDOM if pol.kind == "random" else K.KIND_TABLE
        pk[i, K.K_CTX] = pol.ctx_mode
        pk[i, K.K_LEAD_OFF] = lo
        pk[i, K.K_FOLL_OFF] = fo
        pk[i, K.K_AUX_OFF] = ao
        lead = pol.lead.ravel()
        if pol.ctx_mode == CTX_COMPACT:  # already in the kernel's layout: a row per context
            foll = pol.foll.ravel()
        else:
            # the kernel's follower layout keeps only the (count, made) pairs that occur:
            # half the memory, fewer cache misses; and one target when every target's rows are
            # the same (greedy, sec, chase421: the kernel then reads them without the target)
            foll = pol.foll[:, :, [c - 1 for c, _ in K.FOLL_PAIRS], [m - 1 for _, m in K.FOLL_PAIRS], :]
            if (foll == foll[:, :1]).all():
                foll = foll[:, :1]
            pk[i, K.K_TARGETS] = foll.shape[1]
            foll = np.ascontiguousarray(foll).ravel()
        leads.append(lead)
        folls.append(foll)
        auxs.append(pol.aux)
        lo += lead.size
        fo += foll.size
        ao += pol.aux.size
    # unsigned bytes: a keep or policy read from them indexes without numba's negative-index
    # check (see four21sim._util.jit.ix)
    return (pk, _bytes(leads), _bytes(folls), np.concatenate(auxs + [np.zeros(1, np.int64)]),
            np.asarray(seat_pol, dtype=np.uint8))


def _bytes(parts: list) -> np.ndarray:
    """The keep tables end to end as unsigned bytes; one table is viewed, not copied (a 4-player
    equilibrium's is gigabytes)."""
    flat = parts[0] if len(parts) == 1 else np.concatenate(parts)
    return np.ascontiguousarray(flat).view(np.uint8) if flat.dtype.itemsize == 1 else flat.astype(np.uint8)


def simulate(variant: Variant | str, players: int = 2, policies="sec", games: int = 100_000, seed: int = 0, *,
             records: bool = False, first_game: int = 0, threads: int | None = None,
             block: int = DEFAULT_BLOCK, max_rounds: int = 100_000,
             progress: Callable[[int], None] | None = None, check_runaway: bool = True,
             counters: str = "all") -> "SimulationResult":
    """Play complete games of 421 and count what happens.

    Parameters
    ----------
    variant : Variant or str
        The rules, or a preset name.
    players : int
        2 to 8.
    policies : str, Policy or sequence
        One policy for every seat, or one per seat (seat 0 leads the first round).
        Names: those of the registry, :data:`four21sim.policies.REGISTRY`
        (:func:`four21sim.policies.policy_help` gives one line each, with the player counts
        where a policy is not defined for all: ``optimal``, the 2-player optimum or the
        3- to 5-player equilibrium of :mod:`four21sim.exact.nplayer`, is for 2 to 5 players).
    games : int
        Number of games, >= 1.
    seed : int
        Root seed, 0 <= seed < 2**64. Game ``g`` depends only on ``(seed, g)``.
    records : bool
        Also return one row per game (``result.records``); for small runs.
    first_game : int
        Index of the first game (to split a study into tasks with one stream).
    threads : int, optional
        numba threads to use (default: numba's setting, all cores).
    block : int
        Games per counter block; totals do not depend on it.
    max_rounds : int
        A game still running after this many rounds is a runaway.
    progress : callable, optional
        Called with the number of games finished after each batch of blocks. Without it, a
        run estimated (from the pace of its second batch, the first one may include
        compiling) to last more than :data:`LONG_RUN_SECONDS` emits a :class:`LongRunWarning`
        with the estimate, then goes on; a warnings filter ``"error"`` makes that a refusal.
    check_runaway : bool
        Raise RuntimeError if any game ran away (default True).
    counters : {'all', 'results'}
        What to count. ``'results'``: only what each game's result decides (who won, who paid,
        the places: :data:`four21sim.engine.layout.RESULT_COUNTERS`), for callers that read
        nothing else (``seats()``); 7 to 17% faster at 2 players (experiments/bench.py). The same games are played
        either way, and the counters counted are the same. A view that needs a counter not
        counted raises KeyError naming it.

    Returns
    -------
    SimulationResult
    """
    plan = _plan(as_variant(variant), players, policies, games, seed, records, first_game, threads, block, max_rounds,
                 counters)
    totals, rec, elapsed = _run(plan, progress)
    result = SimulationResult(plan.variant, plan.players, [p.name for p in plan.policies], plan.games, plan.seed,
                              plan.first_game, totals,
                              _records_table(rec) if records else None, elapsed)
    if check_runaway and result.runaways:
        raise RuntimeError(f"{result.runaways} of {plan.games} games ran past max_rounds={max_rounds} rounds "
                           "(runaway games are reported, never cut silently); raise max_rounds or check "
                           "the policies")
    return result


@dataclass(frozen=True)
class _Plan:
    """A validated simulation: what the kernels read."""

    variant: Variant
    players: int
    policies: list
    games: int
    seed: int
    first_game: int
    block: int
    records: bool
    threads: int | None
    kernel_args: tuple  # run_blocks' arguments after the games: n, prm, rank, value, sp, lead, foll, aux
    off: np.ndarray
    full: bool = True  # every counter (counters="all"), else the results only


def _plan(variant: Variant, players, policies, games, seed, records, first_game, threads, block,
          max_rounds, counters="all") -> _Plan:
    """Check every argument (ValueError naming it) and build the kernels' inputs."""
    players = check_int("players", players, MIN_PLAYERS, MAX_PLAYERS)
    games = check_int("games", games, 1, 2**63 - 1)  # game indices are 64-bit: bounded here, not in first_game
    seed = check_seed(seed)
    first_game = check_int("first_game", first_game, 0, 2**63 - 1 - games)
    block = check_int("block", block, 1)
    max_rounds = check_int("max_rounds", max_rounds, 1)
    if records and games > MAX_RECORD_GAMES:
        raise ValueError(f"games: {games} games with records=True; allowed: at most {MAX_RECORD_GAMES}")
    if threads is not None:
        threads = check_int("threads", threads, 1, numba.config.NUMBA_NUM_THREADS)
    check_choice("counters", counters, Y.COUNTER_LEVELS)
    pols = resolve_policies(variant, players, policies)
    pk, lead, foll, aux, seat_pol = pack_policies(pols)
    sp = np.ascontiguousarray(pk[seat_pol]).ravel()  # seat s's policy: sp[s * N_PK + K_*]
    rank = np.ascontiguousarray(dice.RANK[variant.ranking_index])
    value = np.ascontiguousarray(dice.VALUE[variant.values_index])
    args = (players, variant_params(variant, max_rounds), rank, value, sp, lead, foll, aux)
    return _Plan(variant, players, pols, games, seed, first_game, block, records, threads, args,
                 Y.offsets(players, variant.tokens), counters == "all")


# Blocks per batch (at least; 4 per thread on a big machine): the counters are summed over
# each batch in Python, which cost some 5% of the time at 8 blocks a batch; the blocks go to
# the threads one by one (split_over_threads, chunk 1), so a thread slowed by a busy machine
# does not hold the others up.
BATCH_BLOCKS = 64


def _run(plan: _Plan, progress) -> tuple[dict, np.ndarray, float]:
    """Play the games in batches of blocks: ``(counter totals, records, seconds)``."""
    off, block, games = plan.off, plan.block, plan.games
    seedmix = np.uint64(K.mix64(np.uint64(plan.seed)))
    nthreads = plan.threads or numba.get_num_threads()
    per_batch = games if plan.records else max(BATCH_BLOCKS, 4 * nthreads) * block
    cnt = np.zeros((math.ceil(min(per_batch, games) / block), off[-1]), dtype=np.int64)
    rec = np.zeros((games if plan.records else 0, Y.REC_WIDTH), dtype=np.int64)
    total = np.zeros(off[-1], dtype=np.int64)
    stats = None
    kernel = K.run_blocks_2p if plan.players == 2 else K.run_blocks
    offsets = tuple(off.tolist())
    t0 = time.perf_counter()
    done = batches = 0
    while done < games:
        n_now = min(per_batch, games - done)
        t_batch = time.perf_counter()
        blocks = cnt[:math.ceil(n_now / block)]
        blocks[:] = 0
        recs = rec[done:done + n_now] if plan.records else rec

        def work(lo: int, hi: int, t: int, first: int = plan.first_game + done, n_now: int = n_now,
                 blocks: np.ndarray = blocks, recs: np.ndarray = recs) -> None:
            kernel(lo, hi, seedmix, first, block, n_now, *plan.kernel_args, blocks, offsets, recs, plan.records,
                   plan.full)
        split_over_threads(len(blocks), nthreads, work)
        total += blocks.sum(axis=0)
        if plan.full:
            b = _block_stats(Y.unpack(blocks, plan.players, plan.variant.tokens))
            stats = b if stats is None else {k: stats[k] + b[k] for k in stats}
        done += n_now
        batches += 1
        if progress is not None:
            progress(n_now)
        elif batches == 2:  # the first batch's time may be mostly compiling
            _announce_long_run(games, games - done, n_now, time.perf_counter() - t_batch)
    elapsed = time.perf_counter() - t0
    totals = {k: v[()] if v.ndim == 0 else v for k, v in Y.unpack(total, plan.players, plan.variant.tokens).items()}
    if not plan.full:
        return _Counted({k: totals[k] for k in Y.RESULT_COUNTERS}), rec, elapsed
    totals.update(stats)
    return totals, rec, elapsed


class _Counted(dict):
    """The counters of a simulation with ``counters="results"``: asking one it did not count
    says so (a zero would be a wrong number)."""

    def __missing__(self, key):
        raise KeyError(f"{key!r} was not counted: this simulation counted the results only "
                       f"(counters='results': {', '.join(self)}); simulate with counters='all' for it")


@dataclass
class SimulationResult:
    """Counters of a simulation and tidy views of them.

    Attributes
    ----------
    counters : dict of ndarray
        Integer sums over all games (see docs/engine.md).
    records : DataFrame or None
        One row per game when ``records=True``.
    """

    variant: Variant
    players: int
    policies: list[str]
    games: int
    seed: int
    first_game: int
    counters: dict
    records: pd.DataFrame | None = None
    elapsed: float = 0.0
    z: float = field(default=Z95)

    @property
    def runaways(self) -> int:
        return int(self.counters["runaways"])

    @property
    def finished(self) -> int:
        """Games that ended within the round limit."""
        return self.games - self.runaways

    @property
    def _n(self) -> float:
        """The denominator of every rate: the finished games, NaN (not an error) if every game ran away."""
        return self.finished or math.nan

    # ---------------------------------------------------------------- seats
    def _share(self, kind: str, seat: int):
        c = self.counters[kind][seat]
        k = np.arange(c.size)
        n = self._n
        s1 = float((c[1:] / k[1:]).sum())
        s2 = float((c[1:] / k[1:] ** 2).sum())
        return mean_interval(s1, s2, n, self.z)

    def seats(self) -> pd.DataFrame:
        """Per seat: P(win), P(lose) with Wilson intervals, win and loss shares, mean place."""
        n = self._n
        rows = []
        for s in range(self.players):
            wins = int(self.counters["win"][s].sum())
            losses = int(self.counters["lose"][s].sum())
            wl, wh = wilson(wins, n, self.z)
            ll, lh = wilson(losses, n, self.z)
            ws, wsl, wsh = self._share("win", s)
            ls, lsl, lsh = self._share("lose", s)
            place = self.counters["place"][s]
            rows.append(dict(seat=s, policy=self.policies[s], p_win=wins / n, p_win_low=float(wl),
                             p_win_high=float(wh), win_share=ws, win_share_low=wsl, win_share_high=wsh,
                             p_lose=losses / n, p_lose_low=float(ll), p_lose_high=float(lh), lose_share=ls,
                             lose_share_low=lsl, lose_share_high=lsh,
                             mean_place=float((place * np.arange(self.players)).sum() / n)))
        import pandas as pd

        return pd.DataFrame(rows)

    def __repr__(self) -> str:
        return _display.simulation_repr(self)

    def _repr_html_(self) -> str:
        return _display.simulation_html(self)

    def first_player_advantage(self) -> Estimate:
        """Seat 0's win share minus 1/players, with its 95% interval: ``Estimate(value, low, high)``.

        The win share gives each of k joint winners 1/k (so shares sum to 1); with
        two players it is P(seat 0 wins).
        """
        m, lo, hi = self._share("win", 0)
        base = 1 / self.players
        return Estimate(m - base, lo - base, hi - base)

    # ---------------------------------------------------------------- tidy
    def measures(self) -> pd.DataFrame:
        """One row per measure (and seat where it applies), with 95% intervals.

        Columns: ``measure, seat, value, ci_low, ci_high, games``. ``seat`` is the
        seat a per-seat measure is about (0 leads the first round) and ``-1`` for a
        measure of the whole table (game length, swings, per-round rates). Probabilities
        have Wilson intervals; means have normal-approximation intervals; NaN where no
        interval is computed. Every measure is described in docs/results.md.
        """
        n = self._n
        c = self.counters
        rows = []

        def add(measure, value, lo=math.nan, hi=math.nan, seat=-1):
            rows.append(dict(measure=measure, seat=seat, value=float(value), ci_low=float(lo), ci_high=float(hi)))

        seats = self.seats()
        for r in seats.itertuples():
            add("p_win", r.p_win, r.p_win_low, r.p_win_high, r.seat)
            add("win_share", r.win_share, r.win_share_low, r.win_share_high, r.seat)
            add("p_lose", r.p_lose, r.p_lose_low, r.p_lose_high, r.seat)
            add("lose_share", r.lose_share, r.lose_share_low, r.lose_share_high, r.seat)
            add("mean_place", r.mean_place, seat=r.seat)
        add("first_player_advantage", *self.first_player_advantage())
        add("mean_rounds", *mean_interval(c["sum_rounds"], c["sum_rounds_sq"], n, self.z))
        add("mean_rounds_charge", c["sum_rounds_charge"] / n)
        add("mean_rounds_decharge", c["sum_rounds_decharge"] / n)
        add("mean_swing_game", *mean_interval(c["sum_swing"], c["sum_swing_sq"], n, self.z))
        rounds = int(c["rounds_played"])
        sw = c["swing_round"]
        add("mean_swing_round", (sw * np.arange(sw.size)).sum() / max(rounds, 1))
        for counter in Y.COUNTERS:  # counts of finished games, as rates (layout.Counter.rate)
            if counter.rate:
                k = int(c[counter.name])
                add(counter.rate, k / n, *wilson(k, n, self.z))
        for name, (value, lo, hi) in zip(ROUND_RATES, self.round_rates()):
            add(name, value, lo, hi)
        for r in self.position_rates().itertuples():
            add(f"p_round_lost_{r.phase}_pos{r.position}", r.p_lose, r.p_lose_low, r.p_lose_high)
            add(f"p_round_won_{r.phase}_pos{r.position}", r.p_win, r.p_win_low, r.p_win_high)
        r1 = self.round1_loser()
        add("p_win_after_losing_round1", *r1["p_win"])
        add("p_pay_after_losing_round1", *r1["p_pay"])
        add("pay_unfairness", *self.pay_unfairness())
        for kind in ("lose", "win"):
            t = self.seat_test(kind)
            add(f"seat_test_{kind}_p", t["p"])
            add(f"seat_test_{kind}_f", t["f"])
        add("runaway_games", self.runaways)
        import pandas as pd

        df = pd.DataFrame(rows)
        df["games"] = self.finished
        return df

    def round_rates(self) -> list[tuple[float, float, float]]:
        """Per-round rates (ROUND_RATES) with 95% intervals, as (value, low, high).

        Rounds of one game are not independent, so the intervals come from the
        ratio estimator over blocks of games (independent clusters):
        ``var(R) = B / (B - 1) * sum_b (k_b - R r_b)**2 / (sum_b r_b)**2``.
        With fewer than 2 blocks they fall back to Wilson intervals over rounds.
        """
        c = self.counters
        k = _round_numerators({key: c[key][None] for key in ("cat_winner", "cat_loser", "count", "rescues")})[0]
        r = int(c["rounds_played"])
        B = int(c["blk_n"][0]) if "blk_n" in c else 0
        if B < 2:
            return [ratio_interval(ki, r, 0, 0, 0, 0, self.z) for ki in k]
        return [ratio_interval(ki, r, c["blk_kk"][i], c["blk_kr"][i], c["blk_rr"][0], B, self.z)
                for i, ki in enumerate(k)]

    # ------------------------------------------------------- fairness (issue 10)
    def share_mean_cov(self, kind: str = "lose"):
        """Mean per-game share vector of every seat (``kind``: ``lose`` = who pays, ``win``)
        and the covariance of that mean, from the per-game sums of products of shares
        (games are independent)."""
        if kind not in ("win", "lose"):
            raise ValueError(f"kind: {shown(kind)} is not allowed; allowed: win, lose")
        c = self.counters
        N = self.finished
        unit = SHARE_UNIT // np.maximum(np.arange(c[kind].shape[1]), 1)
        if N == 0:  # every game a runaway: no estimate
            nan = np.full(self.players, np.nan)
            return nan, np.full((self.players, self.players), np.nan)
        mean = (c[kind] * unit).sum(axis=1) / (SHARE_UNIT * N)
        second = c[f"{kind}_pairs"] / (SHARE_UNIT ** 2 * N)
        return mean, (second - np.outer(mean, mean)) / N

    def seat_test(self, kind: str = "lose") -> dict:
        """Joint test that every seat has the same share (``stats.equal_shares_test``)."""
        mean, cov = self.share_mean_cov(kind)
        return equal_shares_test(mean, cov, self.finished)

    def pay_unfairness(self) -> tuple[float, float, float]:
        """``max_s |P(seat s pays) - 1/players|`` (loss shares) with its simultaneous 95%
        interval (``stats.max_deviation_interval``)."""
        mean, cov = self.share_mean_cov("lose")
        return max_deviation_interval(mean, cov)

    def position_rates(self) -> pd.DataFrame:
        """Per-round P(lose) and P(win) by place after the leader (0 = the leader), by phase.

        Columns: ``phase, position, rounds, fair, p_lose, p_lose_low, p_lose_high, p_win, ...``;
        ``fair`` is 1/(players at the table) averaged over the phase's rounds (players who went
        out no longer play); intervals from blocks of games as clusters (rounds of a game are
        correlated).
        """
        c = self.counters
        pos = c["position"].reshape(-1, 3)
        B = int(c["blk_n"][0]) if "blk_n" in c else 0
        kk = c["blk_pos_kk"].reshape(-1, 2) if B else np.zeros((len(pos), 2))
        kr = c["blk_pos_kr"].reshape(-1, 2) if B else np.zeros((len(pos), 2))
        rr = c["blk_pos_rr"] if B else np.zeros(len(pos))
        # the fair rate of a phase: 1/m for a round of m players, averaged over its rounds
        # (rounds with exactly m players = rounds with a place m-1 minus rounds with a place m)
        present = c["position"][:, :, 0].astype(float)
        m_rounds = present - np.concatenate([present[:, 1:], np.zeros((2, 1))], axis=1)
        fair = (m_rounds / np.arange(1, self.players + 1)).sum(axis=1) / np.maximum(present[:, 0], 1)
        rows = []
        for i in range(len(pos)):
            if pos[i, 0] == 0:
                continue
            row = dict(phase=PHASES[i // self.players], position=i % self.players, rounds=int(pos[i, 0]),
                       fair=float(fair[i // self.players]))
            for j, what in enumerate(("lose", "win")):
                v, lo, hi = ratio_interval(pos[i, 1 + j], pos[i, 0], kk[i, j], kr[i, j], rr[i], B, self.z)
                row.update({f"p_{what}": v, f"p_{what}_low": lo, f"p_{what}_high": hi})
            rows.append(row)
        import pandas as pd

        return pd.DataFrame(rows)

    def round1_loser(self) -> dict:
        """The round-1 loser's win share and pay share of the game, with 95% intervals:
        ``{"p_win": (value, low, high), "p_pay": (...)}`` (P(win | lost round 1), P(pay | lost round 1))."""
        e = self.counters["round1_loser"] / np.array([SHARE_UNIT, SHARE_UNIT ** 2] * 2)
        n = self.finished
        def clip(v, lo, hi):  # shares lie in [0, 1]: so do their intervals
            return v, max(lo, 0.0), min(hi, 1.0)
        return {"p_win": clip(*mean_interval(e[0], e[1], n, self.z)),
                "p_pay": clip(*mean_interval(e[2], e[3], n, self.z))}

    def distribution(self, which: str) -> pd.DataFrame:
        """A histogram as a tidy frame: ``which`` in DISTRIBUTIONS (rounds, rounds_charge,
        rounds_decharge, swing_round, swing_game, and ``taken``: tokens a player takes in a
        game, one count per player and game); the last bin collects the tail."""
        if which not in DISTRIBUTIONS:
            raise ValueError(f"which: {shown(which)} is not allowed; allowed: {', '.join(DISTRIBUTIONS)}")
        h = self.counters[which]
        nz = np.flatnonzero(h)
        upto = nz[-1] + 1 if nz.size else 1
        total = h.sum()
        import pandas as pd

        return pd.DataFrame({"value": np.arange(upto), "count": h[:upto], "p": h[:upto] / max(total, 1)})

    def tokens_end_charge(self) -> pd.DataFrame:
        """P(seat holds t tokens when the charge ends), long form."""
        h = self.counters["tokens_end_charge"]
        rows = [dict(seat=s, tokens=t, p=h[s, t] / self.finished)
                for s in range(self.players) for t in range(h.shape[1]) if h[s, t]]
        import pandas as pd

        return pd.DataFrame(rows)
