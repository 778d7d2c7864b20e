"""``four21sim solve``: the exact 2-player game under optimal play.

Prints P(seat 0 wins) and the expected number of rounds, then the leader's table
for the first round (or any ``--state``): for every hand and number of throws made,
stop or which dice to keep, with the leader's probability of winning the game.
``--follower HAND,COUNT`` prints the follower's table against that leader instead.
``--players 3`` prints, per seat, P(pay) and the win share under the equilibrium
found by :mod:`four21sim.exact.solver3`, with its exploitability.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from ..exact.leading import lead_summary, lead_summary3
from ..exact.solver3 import OBJECTIVES, check_players, format_summary
from ..exact.solver3 import solve as solve3
from ..exact.two_player import MAX_SOLVER_TOKENS, check_state, solve
from ..rules import dice
from ._common import add_variant_options, add_version, run, variant_from_args

PROG = "four21sim solve"

_EPILOG = """examples:
  four21sim solve --variant super421
  four21sim solve --variant super421-lebon --set tokens=1
  four21sim solve --variant classic --state 0,10,11,1
  four21sim solve --variant super421 --follower 611,2 --json
  four21sim solve --variant super421 --players 3 --json

The rules are in docs/rules.md; four21sim advise gives the same game answer for one hand.
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Solve the 2-player game of a variant exactly and print the optimal play.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_variant_options(p)
    p.add_argument("--state", metavar="POT,T0,T1,LEADER",
                   help="the state to show: tokens in the pot, held by seat 0 and seat 1, and the seat "
                        "leading the round (default: the start, tokens,0,0,0)")
    p.add_argument("--follower", metavar="HAND,COUNT",
                   help="show the follower's table against a leader who stopped on HAND after COUNT throws")
    p.add_argument("--players", default="2", metavar="N",
                   help="2 (default: optimal play, with tables) or 3 (an equilibrium and its certificate)")
    p.add_argument("--objective", default="pay", choices=OBJECTIVES,
                   help="with --players 3: what each player optimises, P(pay) or its win share (default: pay)")
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    add_version(p)
    return p


def _parse_state(text: str, tokens: int) -> tuple[int, int, int, int]:
    parts = text.split(",")
    try:
        pot, t0, t1, leader = (int(x) for x in parts)
    except ValueError:
        raise ValueError(f"--state: {text!r} is not allowed; allowed: four integers POT,T0,T1,LEADER "
                         f"adding POT+T0+T1 = tokens ({tokens}), LEADER 0 or 1") from None
    return pot, t0, t1, leader


def _parse_follower(text: str, limit: int) -> tuple[int, int]:
    hand_text, _, count_text = text.partition(",")
    hand = dice.parse_hand(hand_text, "--follower")
    try:
        count = int(count_text)
    except ValueError:
        count = 0
    if not 1 <= count <= limit:
        raise ValueError(f"--follower: count {count_text!r} is not allowed; allowed: 1 to {limit} "
                         "(the leader's throws in this phase)")
    return hand, count


def _parse_players(text: str) -> int:
    try:
        return check_players(int(text))
    except ValueError:
        raise ValueError(f"--players: {text!r} is not allowed; allowed: 2 or 3 (the exact solvers)") from None


def analyse(argv: Sequence[str] | None = None) -> dict:
    args = build_parser().parse_args(argv)
    variant = variant_from_args(args)
    players = _parse_players(args.players)
    if players == 3:
        for name, given in (("--state", args.state), ("--follower", args.follower)):
            if given:
                raise ValueError(f"{name}: {given!r} is not allowed with --players 3; allowed: only with --players 2")
        sol3 = solve3(variant, 3, args.objective)
        out3 = {"json": args.json, "players3": True, **sol3.summary()}
        if args.objective == "pay":  # the lead value is a difference of P(pay) (four21sim.exact.leading)
            out3["lead_value"] = lead_summary3(sol3)
        return out3
    T = variant.tokens
    if T > MAX_SOLVER_TOKENS:
        raise ValueError(f"tokens: {T} is too many for the exact solver; allowed: 1 to {MAX_SOLVER_TOKENS}")
    pot, t0, t1, leader = _parse_state(args.state, T) if args.state else (T, 0, 0, 0)
    check_state(variant, pot, t0, t1, leader)  # before the solve: a typo costs nothing
    L = variant.decharge_throws if pot == 0 else variant.charge_throws
    follower = _parse_follower(args.follower, L) if args.follower else None
    sol = solve(variant)
    p0 = sol.state_value(pot, t0, t1, leader)
    a, b = (t0, t1) if leader == 0 else (t1, t0)
    detail = sol.round_detail(pot, a, b)
    order = dice.ORDER[variant.ranking_index]
    out = {"variant": variant.describe(), "options": variant.options(), "players": 2,
           "seats": [{"seat": 0, "p_pay": 1.0 - sol.p_seat0, "p_win": sol.p_seat0},
                     {"seat": 1, "p_pay": sol.p_seat0, "p_win": 1.0 - sol.p_seat0}],
           "p_seat0_wins": sol.p_seat0,
           "expected_rounds": sol.expected_rounds, "solve_seconds": sol.seconds,
           "state": {"pot": pot, "tokens_seat0": t0, "tokens_seat1": t1, "leader": leader,
                     "phase": "charge" if pot else "decharge", "throws": L},
           "p_seat0_wins_from_state": p0, "p_leader_wins_from_state": float(detail["value"]),
           "expected_rounds_from_state": float(sol.rounds[pot, a, b]),
           "lead_value": lead_summary(sol)}
    if follower:
        hl, c = follower
        rows = []
        for h in order:
            h = int(h)
            for made in range(1, c + 1):
                if made < c:
                    k = int(detail["foll_dec"][hl, c - 1, made - 1, h])
                    pw = float(detail["foll_lv"][hl, c - 1, made - 1, h])
                else:
                    k, pw = dice.FULL_KEEP + h, None
                rows.append({"hand": dice.hand_name(h), "throws_made": made, "decision": dice.keep_label(h, k),
                             "p_win": pw})
        out["follower"] = {"leader_hand": dice.hand_name(hl), "count": c,
                           "p_follower_wins": float(detail["foll_val"][hl, c - 1]), "table": rows}
    else:
        rows = []
        for h in order:
            h = int(h)
            for made in range(1, L + 1):
                k = int(detail["lead_dec"][L - made - 1, h]) if made < L else dice.FULL_KEEP + h
                rows.append({"hand": dice.hand_name(h), "throws_made": made, "decision": dice.keep_label(h, k),
                             "p_win": float(detail["lead_val"][made - 1, h])})
        out["leader"] = {"table": rows}
    return {"json": args.json, **out}


def _table(rows: list[dict], throws: int) -> list[str]:
    by_hand: dict[str, dict[int, dict]] = {}
    for r in rows:
        by_hand.setdefault(r["hand"], {})[r["throws_made"]] = r
    head = "  hand " + "".join(f"| after {m} throw{'s' if m > 1 else ''}".ljust(23) for m in range(1, throws + 1))
    lines = [head, "  " + "-" * (len(head) - 2)]
    for hand, cells in by_hand.items():
        line = f"  {hand:<5}"
        for m in range(1, throws + 1):
            r = cells.get(m)
            pw = "" if r is None or r["p_win"] is None else f"{100 * r['p_win']:6.2f}%"
            line += f"| {r['decision'] if r else '':<8} {pw:>8}    "
        lines.append(line.rstrip())
    return lines


def format_text(out: dict) -> str:
    if out.pop("players3", False):
        return format_summary(out)
    st = out["state"]
    lines = [f"{out['variant']}, 2 players, both playing optimally (solved in {out['solve_seconds']:.2f} s)",
             f"P(seat 0 wins) = {100 * out['p_seat0_wins']:.4f}%   expected rounds = {out['expected_rounds']:.4f}",
             "",
             f"State: pot {st['pot']}, seat 0 holds {st['tokens_seat0']}, seat 1 holds {st['tokens_seat1']}, "
             f"seat {st['leader']} leads ({st['phase']}, up to {st['throws']} throw(s)): "
             f"P(leader wins) = {100 * out['p_leader_wins_from_state']:.4f}%, "
             f"expected rounds left = {out['expected_rounds_from_state']:.4f}", ""]
    if "follower" in out:
        f = out["follower"]
        lines.append(f"Follower against a leader who stopped on {f['leader_hand']} after {f['count']} throw(s): "
                     f"P(follower wins the game) = {100 * f['p_follower_wins']:.4f}% before throwing.")
        lines.append("Each cell: what to do holding the hand after that many throws, and the follower's "
                     "P(win the game) playing on optimally.")
        lines += _table(f["table"], f["count"] - 1) if f["count"] > 1 else ["  (one throw: nothing to decide)"]
    else:
        lines.append("Leader: what to do holding each hand after each throw ('_ 2 1' = keep the 2 and the 1, "
                     "re-throw the rest), with P(leader wins the game).")
        lines += _table(out["leader"]["table"], st["throws"])
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    out = analyse(argv)
    if out.pop("json"):
        out.pop("players3", None)
        print(json.dumps(out, indent=2))
    else:
        print(format_text(out))
    return 0


def console(argv: Sequence[str] | None = None) -> int:
    return run(main, "solve", argv)


if __name__ == "__main__":
    sys.exit(console())
