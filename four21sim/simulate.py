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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numba
import numpy as np
import pandas as pd

from . import _kernels as K
from . import dice
from .policies import Policy, compile_policy
from .stats import (Z95, equal_shares_test, max_deviation_interval, mean_interval, ratio_interval,
                    wilson)
from .variants import Variant, get_preset

__all__ = ["simulate", "SimulationResult", "variant_params", "MAX_PLAYERS", "MIN_PLAYERS"]

MIN_PLAYERS, MAX_PLAYERS = 2, 8
DEFAULT_BLOCK = 8192
MAX_RECORD_GAMES = 2_000_000
RECORD_COLUMNS = (["rounds_charge", "rounds_decharge", "win_mask", "lose_mask", "swing", "draws", "event_hash"]
                  + [f"tok{s}" for s in range(8)] + [f"charge_tok{s}" for s in range(8)])
# per-round rates (numerators over all rounds played), with intervals from blocks of games
ROUND_RATES = ([f"p_round_won_by_{c}" for c in dice.CATEGORY_NAMES]
               + [f"p_round_lost_by_{c}" for c in dice.CATEGORY_NAMES]
               + [f"p_leader_count_{i}" for i in (1, 2, 3)] + ["p_round_nenette_rescue"])
BLOCK_STATS = ("blk_n", "blk_kk", "blk_kr", "blk_rr",
               # per-block sums for the per-position round rates
               "blk_pos_kk", "blk_pos_kr", "blk_pos_rr")
_COUNTERS = ("misc", "win", "lose", "place", "rounds_charge", "rounds_decharge", "rounds", "swing_round",
             "swing_game", "tokens_end_charge", "cat_winner", "cat_loser", "count", "ext")
PHASES = ("charge", "decharge")
DISTRIBUTIONS = ("rounds", "rounds_charge", "rounds_decharge", "swing_round", "swing_game", "taken")


def variant_params(variant: Variant, max_rounds: int = 100_000) -> np.ndarray:
    """The variant as the integer vector the kernels read (indices ``_kernels.P_*``)."""
    prm = np.zeros(K.N_PRM, dtype=np.int64)
    prm[K.P_TOKENS] = variant.tokens
    prm[K.P_CHARGE_THROWS] = variant.charge_throws
    prm[K.P_DECHARGE_THROWS] = variant.decharge_throws
    prm[K.P_EXACT] = variant.followers == "exact"
    prm[K.P_FTW] = variant.fewer_throws_wins
    prm[K.P_CUM_CHARGE] = variant.cumulative_in("charge")
    prm[K.P_CUM_DECHARGE] = variant.cumulative_in("decharge")
    prm[K.P_NENETTE_MIN] = variant.nenette_min
    prm[K.P_RESCUE] = variant.nenette_rescue
    prm[K.P_NEXT_LEADER] = variant.next_leader_index
    prm[K.P_END] = ("first_out", "last_holder").index(variant.end)
    prm[K.P_MAX_ROUNDS] = max_rounds
    return prm


def _new_counters(nblocks: int, n: int, tokens: int) -> dict[str, np.ndarray]:
    z = np.zeros
    return {
        "misc": z((nblocks, K.N_MISC), np.int64),
        "win": z((nblocks, n, 9), np.int64),
        "lose": z((nblocks, n, 9), np.int64),
        "place": z((nblocks, n, n), np.int64),
        "rounds_charge": z((nblocks, K.N_ROUND_BINS), np.int64),
        "rounds_decharge": z((nblocks, K.N_ROUND_BINS), np.int64),
        "rounds": z((nblocks, K.N_ROUND_BINS), np.int64),
        "swing_round": z((nblocks, K.N_SWING_BINS), np.int64),
        "swing_game": z((nblocks, K.N_GAME_SWING_BINS), np.int64),
        "tokens_end_charge": z((nblocks, n, tokens + 1), np.int64),
        "cat_winner": z((nblocks, 6), np.int64),
        "cat_loser": z((nblocks, 6), np.int64),
        "count": z((nblocks, 3), np.int64),
        "ext": z((nblocks, K.N_EXT), np.int64),
    }


SHARE_UNIT = K.SHARE_UNIT  # lcm(1..8): a win shared by k players is worth SHARE_UNIT // k, exactly


def win_units(win_mask: np.ndarray, seat: int) -> np.ndarray:
    """A seat's win share per game from per-game winner masks, in units of 1/SHARE_UNIT."""
    k = np.zeros(win_mask.shape, dtype=np.int64)
    for s in range(8):
        k += (win_mask >> s) & 1
    won = (win_mask >> seat) & 1
    return np.where(won == 1, SHARE_UNIT // np.maximum(k, 1), 0)


def _round_numerators(cnt: dict) -> np.ndarray:
    """Per-block numerators of the per-round rates, in the order of ROUND_RATES."""
    return np.concatenate([cnt["cat_winner"], cnt["cat_loser"], cnt["count"],
                           cnt["misc"][:, K.M_RESCUES:K.M_RESCUES + 1]], axis=1)


def _block_stats(view: dict) -> dict:
    """Sums over blocks of k_b**2, k_b*r_b and r_b**2 (k: numerators, r: rounds): enough for
    ratio-estimator intervals that respect the correlation of rounds within a game."""
    k = _round_numerators(view)
    r = view["misc"][:, K.M_ROUNDS_ALL]
    out = {"blk_n": np.array([len(r)], dtype=np.int64), "blk_kk": (k * k).sum(axis=0),
           "blk_kr": (k * r[:, None]).sum(axis=0), "blk_rr": np.array([(r * r).sum()], dtype=np.int64)}
    pos = view["ext"][:, K.E_POS:K.E_R1].reshape(len(r), 2 * K.N_POS, 3)
    kk, rr = pos[:, :, 1:], pos[:, :, :1]
    out["blk_pos_kk"] = (kk * kk).sum(axis=0).ravel()
    out["blk_pos_kr"] = (kk * rr).sum(axis=0).ravel()
    out["blk_pos_rr"] = (rr * rr).sum(axis=0).ravel()
    return out


def _pack_policies(policies: Sequence[Policy]):
    """Distinct policies -> (pk meta, flat lead, flat foll, seat -> policy index)."""
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
    pk = np.zeros((len(distinct), 4), dtype=np.int64)
    leads, folls, lo, fo = [], [], 0, 0
    for i, pol in enumerate(distinct):
        pk[i, K.K_KIND] = K.KIND_RANDOM if pol.kind == "random" else K.KIND_TABLE
        pk[i, K.K_CTX] = pol.ctx_mode
        pk[i, K.K_LEAD_OFF] = lo
        pk[i, K.K_FOLL_OFF] = fo
        lead = pol.lead.ravel()
        # the kernel's follower layout keeps only the (count, made) pairs that occur,
        # (2,1), (3,1), (3,2) as slot count+made-3: half the memory, fewer cache misses
        foll = np.ascontiguousarray(pol.foll[:, :, [1, 2, 2], [0, 0, 1], :]).ravel()
        leads.append(lead)
        folls.append(foll)
        lo += lead.size
        fo += foll.size
    return (pk, np.concatenate(leads).astype(np.int8), np.concatenate(folls).astype(np.int8),
            np.asarray(seat_pol, dtype=np.int64))


def _check_int(name: str, value, lo: int, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo \
            or (hi is not None and value > hi):
        allowed = f"an integer from {lo} to {hi}" if hi is not None else f"an integer >= {lo}"
        raise ValueError(f"{name}: {value!r} is not allowed; allowed: {allowed}")
    return int(value)


def resolve_policies(variant: Variant, players: int, policies) -> list[Policy]:
    """One compiled policy per seat from a name, a Policy, or a sequence of them."""
    if isinstance(policies, (str, Policy)):
        policies = [policies] * players
    policies = list(policies)
    if len(policies) != players:
        raise ValueError(f"policies: {len(policies)} policies given for {players} players; "
                         "allowed: one policy name, or exactly one per seat")
    cache: dict = {}
    out = []
    for p in policies:
        key = p if isinstance(p, str) else id(p)
        if key not in cache:
            cache[key] = compile_policy(p, variant, players)
        out.append(cache[key])
    return out


def simulate(variant: Variant | str, players: int = 2, policies="sec", games: int = 100_000, seed: int = 0, *,
             records: bool = False, first_game: int = 0, threads: int | None = None,
             block: int = DEFAULT_BLOCK, max_rounds: int = 100_000,
             progress: Callable[[int], None] | None = None, check_runaway: bool = True) -> "SimulationResult":
    """Play complete games of 421 and count what happens.

    Parameters
    ----------
    variant : Variant or str
        The rules, or a preset name.
    players : int
        2 to 8.
    policies : str, Policy or sequence
        One policy for every seat, or one per seat (seat 0 leads the first round).
        Names: ``sec``, ``chase421``, ``greedy``, ``table-aware``, ``random``,
        ``optimal`` (2 players).
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
        Called with the number of games finished after each batch.
    check_runaway : bool
        Raise RuntimeError if any game ran away (default True).

    Returns
    -------
    SimulationResult
    """
    if isinstance(variant, str):
        variant = get_preset(variant)
    if not isinstance(variant, Variant):
        raise ValueError(f"variant: {variant!r} is not a Variant or preset name")
    players = _check_int("players", players, MIN_PLAYERS, MAX_PLAYERS)
    games = _check_int("games", games, 1)
    seed = _check_int("seed", seed, 0, 2**64 - 1)
    first_game = _check_int("first_game", first_game, 0, 2**63 - 1 - games)
    block = _check_int("block", block, 1)
    max_rounds = _check_int("max_rounds", max_rounds, 1)
    if records and games > MAX_RECORD_GAMES:
        raise ValueError(f"games: {games} games with records=True; allowed: at most {MAX_RECORD_GAMES}")
    if threads is not None:
        threads = _check_int("threads", threads, 1, numba.config.NUMBA_NUM_THREADS)
    pols = resolve_policies(variant, players, policies)
    pk, lead, foll, seat_pol = _pack_policies(pols)
    prm = variant_params(variant, max_rounds)
    rank = np.ascontiguousarray(dice.RANK[variant.ranking_index])
    value = np.ascontiguousarray(dice.VALUE[variant.values_index])
    seedmix = np.uint64(K.mix64(np.uint64(seed)))

    nthreads = threads or numba.get_num_threads()
    blocks_per_batch = max(4 * nthreads, 8)
    batch_games = blocks_per_batch * block
    if records:
        batch_games = games
        blocks_per_batch = math.ceil(games / block)
    totals = None
    rec = np.zeros((games if records else 0, K.REC_WIDTH), dtype=np.int64)
    old_threads = numba.get_num_threads()
    t0 = time.perf_counter()
    try:
        if threads is not None:
            numba.set_num_threads(threads)
        done = 0
        cnt = _new_counters(blocks_per_batch, players, variant.tokens)
        while done < games:
            n_now = min(batch_games, games - done)
            nb = math.ceil(n_now / block)
            for arr in cnt.values():
                arr[:nb] = 0
            view = {k: v[:nb] for k, v in cnt.items()}
            rec_view = rec[done:done + n_now] if records else rec
            K.run_blocks(seedmix, first_game + done, block, n_now, players, prm, rank, value, pk, lead, foll,
                         seat_pol, *(view[k] for k in _COUNTERS), rec_view, records)
            summed = {k: v.sum(axis=0) for k, v in view.items()}
            summed.update(_block_stats(view))
            totals = summed if totals is None else {k: totals[k] + summed[k] for k in totals}
            done += n_now
            if progress is not None:
                progress(n_now)
    finally:
        numba.set_num_threads(old_threads)
    elapsed = time.perf_counter() - t0
    result = SimulationResult(variant, players, [p.name for p in pols], games, seed, first_game, totals,
                              pd.DataFrame(rec, columns=RECORD_COLUMNS) if records else None, elapsed)
    if check_runaway and result.runaways:
        raise RuntimeError(f"{result.runaways} of {games} games ran past max_rounds={max_rounds} rounds "
                           "(runaway games are reported, never cut silently); raise max_rounds or check "
                           "the policies")
    return result


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
        return int(self.counters["misc"][K.M_RUNAWAY])

    @property
    def finished(self) -> int:
        """Games that ended within the round limit."""
        return self.games - self.runaways

    # ---------------------------------------------------------------- seats
    def _share(self, kind: str, seat: int):
        c = self.counters[kind][seat]
        k = np.arange(9)
        n = self.finished
        s1 = float((c[1:] / k[1:]).sum())
        s2 = float((c[1:] / k[1:] ** 2).sum())
        return mean_interval(s1, s2, n, self.z)

    def seats(self) -> pd.DataFrame:
        """Per seat: P(win), P(lose) with Wilson intervals, win and loss shares, mean place."""
        n = self.finished
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
        return pd.DataFrame(rows)

    def first_player_advantage(self) -> tuple[float, float, float]:
        """Seat 0's win share minus 1/players, with its interval: ``(value, low, high)``.

        The win share gives each of k joint winners 1/k (so shares sum to 1); with
        two players it is P(seat 0 wins).
        """
        m, lo, hi = self._share("win", 0)
        base = 1 / self.players
        return m - base, lo - base, hi - base

    # ---------------------------------------------------------------- tidy
    def measures(self) -> pd.DataFrame:
        """One row per measure (and seat where it applies), with 95% intervals.

        Columns: ``measure, seat, value, ci_low, ci_high, games``. Probabilities
        have Wilson intervals; means have normal-approximation intervals.
        """
        n = self.finished
        c = self.counters
        misc = c["misc"]
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
        add("mean_rounds", *mean_interval(misc[K.M_ROUNDS], misc[K.M_ROUNDS_SQ], n, self.z))
        add("mean_rounds_charge", misc[K.M_ROUNDS_C] / n)
        add("mean_rounds_decharge", misc[K.M_ROUNDS_D] / n)
        add("mean_swing_game", *mean_interval(misc[K.M_SWING], misc[K.M_SWING_SQ], n, self.z))
        rounds = int(misc[K.M_ROUNDS_ALL])
        sw = c["swing_round"]
        add("mean_swing_round", (sw * np.arange(sw.size)).sum() / max(rounds, 1))
        k = int(misc[K.M_DECIDED_CHARGE])
        add("p_decided_in_charge", k / n, *wilson(k, n, self.z))
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
        df = pd.DataFrame(rows)
        df["games"] = n
        return df

    def round_rates(self) -> list[tuple[float, float, float]]:
        """Per-round rates (ROUND_RATES) with 95% intervals, as (value, low, high).

        Rounds of one game are not independent, so the intervals come from the
        ratio estimator over blocks of games (independent clusters):
        ``var(R) = B / (B - 1) * sum_b (k_b - R r_b)**2 / (sum_b r_b)**2``.
        With fewer than 2 blocks they fall back to Wilson intervals over rounds.
        """
        c = self.counters
        k = _round_numerators({key: c[key][None] for key in ("cat_winner", "cat_loser", "count", "misc")})[0]
        r = int(c["misc"][K.M_ROUNDS_ALL])
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
            raise ValueError(f"kind: {kind!r} is not allowed; allowed: win, lose")
        c = self.counters
        n, N = self.players, self.finished
        unit = SHARE_UNIT // np.maximum(np.arange(9), 1)
        mean = (c[kind] * unit).sum(axis=1) / (SHARE_UNIT * N)
        off = K.E_WPAIR if kind == "win" else K.E_LPAIR
        second = c["ext"][off:off + 64].reshape(8, 8)[:n, :n] / (SHARE_UNIT ** 2 * N)
        cov = (second - np.outer(mean, mean)) / N
        return mean, cov

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
        """Per-round P(lose) and P(win) by position after the leader (0 = the leader), by phase.

        Columns: ``phase, position, rounds, p_lose, p_lose_low, p_lose_high, p_win, ...``;
        intervals from blocks of games as clusters (rounds of a game are correlated).
        """
        c = self.counters
        pos = c["ext"][K.E_POS:K.E_R1].reshape(2 * K.N_POS, 3)
        B = int(c["blk_n"][0])
        kk = c["blk_pos_kk"].reshape(2 * K.N_POS, 2)
        kr = c["blk_pos_kr"].reshape(2 * K.N_POS, 2)
        rows = []
        for i in range(2 * K.N_POS):
            if pos[i, 0] == 0:
                continue
            row = dict(phase=PHASES[i // K.N_POS], position=i % K.N_POS, rounds=int(pos[i, 0]))
            for j, what in enumerate(("lose", "win")):
                v, lo, hi = ratio_interval(pos[i, 1 + j], pos[i, 0], kk[i, j], kr[i, j], c["blk_pos_rr"][i], B, self.z)
                row.update({f"p_{what}": v, f"p_{what}_low": lo, f"p_{what}_high": hi})
            rows.append(row)
        return pd.DataFrame(rows)

    def round1_loser(self) -> dict:
        """The round-1 loser's win share and loss share of the game, with 95% intervals:
        ``{"p_win": (value, low, high), "p_pay": (...)}`` (P(win | lost round 1), P(pay | lost round 1))."""
        e = self.counters["ext"][K.E_R1:K.E_TAKEN] / np.array([SHARE_UNIT, SHARE_UNIT ** 2] * 2)
        n = self.finished
        return {"p_win": mean_interval(e[K.R1_WIN], e[K.R1_WIN_SQ], n, self.z),
                "p_pay": mean_interval(e[K.R1_LOSE], e[K.R1_LOSE_SQ], n, self.z)}

    def distribution(self, which: str) -> pd.DataFrame:
        """A histogram as a tidy frame: ``which`` in DISTRIBUTIONS (rounds, rounds_charge,
        rounds_decharge, swing_round, swing_game, and ``taken``: tokens a player takes in a
        game, one count per player and game); the last bin collects the tail."""
        if which not in DISTRIBUTIONS:
            raise ValueError(f"which: {which!r} is not allowed; allowed: {', '.join(DISTRIBUTIONS)}")
        h = self.counters["ext"][K.E_TAKEN:K.E_TAKEN + K.N_TAKEN_BINS] if which == "taken" else self.counters[which]
        nz = np.flatnonzero(h)
        upto = nz[-1] + 1 if nz.size else 1
        total = h.sum()
        return pd.DataFrame({"value": np.arange(upto), "count": h[:upto], "p": h[:upto] / max(total, 1)})

    def tokens_end_charge(self) -> pd.DataFrame:
        """P(seat holds t tokens when the charge ends), long form."""
        h = self.counters["tokens_end_charge"]
        rows = [dict(seat=s, tokens=t, p=h[s, t] / self.finished)
                for s in range(self.players) for t in range(h.shape[1]) if h[s, t]]
        return pd.DataFrame(rows)
