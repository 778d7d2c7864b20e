"""What each habit costs: where a named policy departs from optimal play, and what each
departure costs in probability of winning the game (2 players, exact).

The habit plays the optimal player, each taking seat 0 (leading the first round) in
turn; its *win share* is the mean of its two chances of winning (exact, from
:func:`four21sim.exact.two_player.evaluate`). A *situation* is what a player sees at the table:
the role, the hand held after so many throws and, for a follower, the leader's hand
and count. A habit plays a situation the same way whatever the tokens; where optimal
play keeps other dice, the habit departs. A departure's **cost** is what the habit's
win share gains when it plays that one situation optimally (in every game state) and
everything else as before. A habit departs in thousands of situations; the ones met
most often (as many a leader's as a follower's) are costed exactly and the costliest
listed. Costs are not additive:
correcting two mistakes is not worth the sum of their costs.

    >>> from four21sim.analysis.habits import habit_mistakes
    >>> m = habit_mistakes("super421", "greedy")
    >>> m.head()                    # ranked, with a sentence each
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd

from .. import policies
from ..exact import odds
from ..exact.two_player import policy_chain
from ..policies import Policy, compile_policy, table_policy
from ..rules import dice
from ..rules.variants import PRESETS, Variant, as_variant

__all__ = ["HABITS", "habit_mistakes", "corrected_policy", "win_share", "leader_profile", "describe_mistake",
           "mistake_reason"]

HABITS = policies.HABITS  # the registry's habits
"""The named table policies (the habits people play); ``optimal`` is the yardstick."""

_NH = dice.N_HANDS
_P0 = dice.THROW_COUNTS[dice.EMPTY_KEEP] / 216.0


def expand(policy: Policy, variant: Variant) -> Policy:
    """A context-free table policy as a context-mode-1 policy (one copy of its tables per context)."""
    n_ctx = (variant.tokens + 1) ** 2
    if policy.ctx_mode == 1:
        return policy
    lead = np.broadcast_to(policy.lead[0], (n_ctx,) + policy.lead.shape[1:]).copy()
    foll = np.broadcast_to(policy.foll[0], (n_ctx,) + policy.foll.shape[1:]).copy()
    return table_policy(policy.name, variant, lead, foll, ctx_mode=1, players=2, info=dict(policy.info))


def corrected_policy(variant, habit: str, decision: dict) -> Policy:
    """The habit playing optimally in one situation (a row of :func:`habit_mistakes`), in every
    game state, and as itself everywhere else."""
    v = as_variant(variant)
    pol = expand(compile_policy(habit, v), v)
    opt = compile_policy("optimal", v, players=2)
    lead, foll = pol.lead.copy(), pol.foll.copy()
    h = dice.parse_hand(decision["hand"])
    made = decision["made"]
    if decision["role"] == "leader":
        for pot in range(v.tokens + 1):  # throws left depends on the phase's limit
            tl = L_of(v, pot) - made
            if tl >= 1:
                rows = slice(pot * (v.tokens + 1), (pot + 1) * (v.tokens + 1))
                lead[rows, tl - 1, h] = opt.lead[rows, tl - 1, h]
    else:
        hl, c = dice.parse_hand(decision["leader_hand"]), decision["count"]
        foll[:, hl, c - 1, made - 1, h] = opt.foll[:, hl, c - 1, made - 1, h]
    return table_policy(f"{habit}+1", v, lead, foll, ctx_mode=1, players=2)


def win_share(variant, policy, opponent="optimal") -> float:
    """Exact win share of ``policy`` against ``opponent``, 2 players, seats averaged."""
    from ..policies import evaluate
    v = as_variant(variant)
    return (evaluate(v, [policy, opponent])["p_seat0"] + 1 - evaluate(v, [opponent, policy])["p_seat0"]) / 2


def _follower_reach(foll_ctx: np.ndarray) -> np.ndarray:
    """P(the follower holds h after ``made`` throws) for each (leader hand, count, made), by its own keeps."""
    reach = np.zeros((_NH, 3, 2, _NH))
    reach[:, :, 0, :] = _P0
    for hl in range(_NH):
        for c in (3,):
            nxt = np.zeros(_NH)
            for h in range(_NH):
                k = int(foll_ctx[hl, c - 1, 0, h])
                if k == dice.FULL_KEEP + h:
                    continue
                nxt += _P0[h] * dice.THROW_COUNTS[k] / dice.KT_DENOM[k]
            reach[hl, c - 1, 1, :] = nxt
    return reach


def _leader_reach(lead_ctx: np.ndarray, L: int) -> np.ndarray:
    """P(the leader holds h after ``made`` throws) (index made-1), by its own keeps."""
    reach = np.zeros((3, _NH))
    reach[0] = _P0
    for made in range(1, L):
        for h in range(_NH):
            k = int(lead_ctx[L - made - 1, h])
            if k != dice.FULL_KEEP + h:
                reach[made] += reach[made - 1, h] * dice.THROW_COUNTS[k] / dice.KT_DENOM[k]
    return reach


def _leader_ends(lead_ctx: np.ndarray, L: int) -> np.ndarray:
    """P(the leader stops on hL after c throws), [hL, c-1]."""
    reach = _leader_reach(lead_ctx, L)
    ends = np.zeros((_NH, 3))
    for made in range(1, L + 1):
        for h in range(_NH):
            if made == L or int(lead_ctx[L - made - 1, h]) == dice.FULL_KEEP + h:
                ends[h, made - 1] += reach[made - 1, h]
    return ends


def _departures(v: Variant, hab: Policy, opt: Policy) -> dict:
    """Every situation where the habit departs from optimal play, with how often it is met.

    Returns ``{situation: {optimal keep: probability}}``: the probability, summed over
    both seatings and every game state where the optimal keep differs from the habit's,
    that the habit's player reaches the situation there (expected number of times per
    game), split by the optimal keep of that game state.
    """
    T = v.tokens
    out: dict = defaultdict(lambda: defaultdict(float))
    for seat in (0, 1):  # the habit in seat 0, then in seat 1
        ch = policy_chain(v, [hab, opt] if seat == 0 else [opt, hab])
        visits_all = np.linalg.solve(ch["A"].T, np.eye(len(ch["states"]))[ch["start"]])  # expected visits
        for i, (pot, t0, t1, ld) in enumerate(ch["states"]):
            visits = visits_all[i]
            if visits < 1e-15:
                continue
            mine, theirs = (t0, t1) if seat == 0 else (t1, t0)
            ctx = pot * (T + 1) + mine
            L = L_of(v, pot)
            if ld == seat:  # the habit leads
                reach = _leader_reach(hab.lead[ctx], L)
                for made in range(1, L):
                    tl = L - made
                    for h in np.flatnonzero(hab.lead[ctx, tl - 1] != opt.lead[ctx, tl - 1]):
                        w = visits * reach[made - 1, h]
                        if w > 0:
                            out[("leader", made, 0, -1, int(h))][int(opt.lead[ctx, tl - 1, h])] += w
            else:  # the habit follows the optimal leader
                ends = _leader_ends(opt.lead[pot * (T + 1) + theirs], L)
                freach = _follower_reach(hab.foll[ctx])
                for c in range(2, L + 1):
                    for made in range(1, c):
                        diff = hab.foll[ctx, :, c - 1, made - 1] != opt.foll[ctx, :, c - 1, made - 1]
                        for hl, h in zip(*np.nonzero(diff)):
                            w = visits * ends[hl, c - 1] * freach[hl, c - 1, made - 1, h]
                            if w > 0:
                                best = int(opt.foll[ctx, hl, c - 1, made - 1, h])
                                out[("follower", made, c, int(hl), int(h))][best] += w
    return out


def habit_mistakes(variant, habit: str, top: int = 10, screen: int = 40) -> pd.DataFrame:
    """The habit's costliest departures from optimal play, 2 players, exact.

    A *situation* is what a player sees at the table: the role, the hand held after so
    many throws and, for a follower, the leader's hand and count. The habit plays it
    the same way whatever the tokens; optimal play may not. A mistake's **cost** is what
    the habit's win share against optimal play gains when, in that one situation only,
    it plays the optimal keep of each game state (exact, :func:`win_share` of
    :func:`corrected_policy`).

    Parameters
    ----------
    variant : Variant or str
    habit : str
        One of :data:`HABITS` (the policy registry's habits, :data:`four21sim.policies.HABITS`).
    top : int
        How many mistakes to return, costliest first.
    screen : int
        How many departures are costed exactly: the most often met, half of them
        among the leader's situations and half among the follower's.

    Returns
    -------
    DataFrame
        One row per mistake: ``variant, habit, role, made, count, leader_hand, hand,
        habit_keep, optimal_keep, optimal_share`` (the share of the times met where
        optimal play chooses ``optimal_keep``), ``per_game`` (expected times met per
        game where optimal play differs, seats averaged), ``cost`` (win share a game:
        0.004 = 0.4 points), ``per_occurrence`` (``cost / per_game``: the win probability
        lost each time the situation arises), ``reason`` (why, in one clause, from the
        single-turn odds) and ``sentence``; ``attrs["win_share"]`` is the habit's exact
        win share.
    """
    v = as_variant(variant)
    if habit not in HABITS:
        raise ValueError(f"habit: {habit!r} is not allowed; allowed: {', '.join(HABITS)}")
    hab = expand(compile_policy(habit, v), v)
    opt = compile_policy("optimal", v, players=2)
    base = win_share(v, hab)
    deps = _departures(v, hab, opt)
    # the most often met, half among the leader's situations and half among the follower's
    # (a follower's situations are finer, so each is met less often)
    by_reach = sorted(deps.items(), key=lambda kv: -sum(kv[1].values()))
    lead = [kv for kv in by_reach if kv[0][0] == "leader"]
    foll = [kv for kv in by_reach if kv[0][0] == "follower"]
    n_lead = max(screen // 2, screen - len(foll))
    ranked = lead[:n_lead] + foll[:screen - min(n_lead, len(lead))]
    rows = []
    for (role, made, c, hl, h), by_keep in ranked:
        decision = dict(role=role, made=made, count=c, hand=dice.hand_name(h),
                        leader_hand=dice.hand_name(hl) if hl >= 0 else "")
        cost = win_share(v, corrected_policy(v, habit, decision)) - base
        total = sum(by_keep.values())
        k_opt, w_opt = max(by_keep.items(), key=lambda kv: kv[1])
        k_hab = hab.lead[0, (L_max(v) if role == "leader" else c) - made - 1, h] if role == "leader" \
            else hab.foll[0, hl, c - 1, made - 1, h]
        rows.append(dict(variant=v.describe(), habit=habit, **decision,
                         habit_keep=dice.keep_label(h, int(k_hab)), optimal_keep=dice.keep_label(h, k_opt),
                         optimal_share=w_opt / total, per_game=total / 2, cost=cost,
                         per_occurrence=cost / (total / 2),
                         reason=mistake_reason(v, role, made, c, hl, h, int(k_hab), int(k_opt))))
    df = pd.DataFrame(rows)
    if not df.empty:
        df = df[df["cost"] > 0].sort_values("cost", ascending=False, kind="stable").head(top).reset_index(drop=True)
        df["sentence"] = [describe_mistake(r) for r in df.to_dict("records")]
    df.attrs["win_share"] = base
    return df


def L_max(variant: Variant) -> int:
    """The larger phase throw limit (a context-free habit decides the same in both phases)."""
    return max(variant.charge_throws, variant.decharge_throws)


def L_of(variant: Variant, pot: int) -> int:
    """The leader's throw limit in the phase of a state."""
    return variant.charge_throws if pot else variant.decharge_throws


def _what(keep: str) -> str:
    return "stops" if keep == "stop" else f"keeps {keep}" if keep.strip("_ ") else "re-throws all three dice"


def _beaten(v: Variant, hand: int, throws: int) -> float:
    """P(one follower, playing to beat it, ends strictly above ``hand`` in ``throws`` throws)."""
    return float(odds.turn_odds("beat", hand, v.ranking, v.values, v.followers).start_value(throws))


def _throws(m: int) -> str:
    return "one throw" if m == 1 else f"{m} throws"


def mistake_reason(v: Variant, role: str, made: int, count: int, hl: int, h: int, k_hab: int, k_opt: int) -> str:
    """Why optimal play departs from the habit, in one clause, from the single-turn odds of the
    round (exact for what it states: one follower playing to beat the leader, equal hands rolled
    off; throw-count tie-breaks and the nénette rescue are left out)."""
    name, stop = dice.hand_name(h), dice.FULL_KEEP + h
    if role == "leader" and k_opt == stop:
        p, L = _beaten(v, h, made), L_max(v)
        verb = "beats" if made == 1 else "beat"
        return (f"stopping after throw {made} holds each follower to {_throws(made)}, and {_throws(made)} {verb} "
                f"a {name} {'only ' if p < 0.5 else ''}{100 * p:.1f}% of the time ({100 * _beaten(v, h, L):.1f}% "
                f"with {L})")
    if role == "leader":
        values = odds.leader_round(v.ranking, v.followers, L_max(v)).keep_values[made][h]
        what = "not to lose the round to one follower"
    else:
        rank = dice.RANK[v.ranking_index]
        reward = [1.0 if rank[x] < rank[hl] else 0.5 if x == hl else 0.0 for x in range(_NH)]
        values = odds.solve_turn(reward, v.followers).keep_values[count - made][h]
        what = f"not to lose the round to the leader's {dice.hand_name(hl)} (equal hands rolled off)"
    a, b = values.get(k_opt), values.get(k_hab)
    if a is None or b is None:
        return ""
    opt, hab = (("stopping" if k == stop else f"keeping {dice.keep_label(h, k)}") for k in (k_opt, k_hab))
    if a >= b:
        return f"{opt} gives {100 * a:.1f}% {what}, against {100 * b:.1f}% for {hab}"
    return (f"the round alone favours {hab} ({100 * b:.1f}% {what}, against {100 * a:.1f}% for {opt}): optimal play "
            "chooses otherwise for what the tokens at stake make of the game")


def describe_mistake(r: dict) -> str:
    """Sentences a player understands: the situation, what the habit does, what optimal play
    does, how often it arises, what it costs each time, and why."""
    if r["role"] == "leader":
        where = f"You lead and hold {r['hand']} after throw {r['made']}"
    else:
        where = (f"You follow a {r['leader_hand']} made in {r['count']} throw{'s' if r['count'] > 1 else ''} "
                 f"and hold {r['hand']} after throw {r['made']}")
    often = "" if r["optimal_share"] > 0.995 else \
        f" ({100 * r['optimal_share']:.0f}% of the times, depending on the tokens)"
    every = 1 / r["per_game"] if r["per_game"] > 0 else float("inf")
    why = f" Why: {r['reason']}." if r.get("reason") else ""
    return (f"{where}: {r['habit']} {_what(r['habit_keep'])}, optimal play {_what(r['optimal_keep'])}{often}. "
            f"It arises about once every {every:.0f} games ({r['per_game']:.3f} a game); each time, "
            f"{r['habit']}'s way costs {100 * r['per_occurrence']:.1f} points of winning probability "
            f"({100 * r['cost']:.2f} points a game).{why}")


def leader_profile(policy: Policy, ctx: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Exact distribution of a leader's count and final hand under a table policy.

    Returns ``(counts, final)``: ``counts[c-1]`` = P(stopping after c throws) and
    ``final[h]`` = P(ending with hand h), for a leader allowed three throws, deciding
    with ``policy.leader_keep(h, throws_left, ctx)``.
    """
    lead = np.asarray([[policy.leader_keep(h, tl, ctx) for h in range(_NH)] for tl in (1, 2)])
    ends = _leader_ends(lead, 3)
    return ends.sum(axis=0), ends.sum(axis=1)


def study(variants=tuple(PRESETS), habits=HABITS, top: int = 10,
          screen: int = 40) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every habit at every variant: (mistakes, summary). The summary gives each habit's exact
    win share against optimal play and its costliest mistake."""
    mistakes, summary = [], []
    for name in variants:
        v = as_variant(name)
        for habit in habits:
            df = habit_mistakes(v, habit, top=top, screen=screen)
            mistakes.append(df)
            summary.append(dict(variant=v.describe(), habit=habit, win_share=df.attrs["win_share"],
                                gap=0.5 - df.attrs["win_share"],
                                top_cost=float(df["cost"].iloc[0]) if len(df) else 0.0))
    return pd.concat(mistakes, ignore_index=True), pd.DataFrame(summary)
