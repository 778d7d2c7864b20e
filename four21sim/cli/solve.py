"""``four21sim solve``: the game solved exactly, at the player counts the solvers reach.

Prints, per seat, P(pay) and P(win) under optimal play (2 players: the optimum of
:mod:`four21sim.exact.two_player`; 3 to 8: the certified equilibrium of
:mod:`four21sim.exact.nplayer`), the
expected number of rounds, the value of leading, the same from any
``--state``, and with 2 players the leader's table for that state (for every hand and
number of throws made: stop or which dice to keep, with the leader's P(win the game));
``--follower HAND,COUNT`` prints the follower's table against that leader instead.
``--against P1,P2,...`` prints instead the exact best response of seat ``--seat`` (default
0) to the other seats playing those policies (or the equilibrium). ``--json`` prints the
same as one object whose keys are the same at every player count (docs/solutions.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from contextlib import nullcontext

from .._util.checks import parse_int, shown, typed_int
from .._util.display import wrap_text
from .._util.waiting import notice_after
from ..exact import nplayer, shipped
from ..exact import solve as solve_exact
from ..exact.leading import lead_summary, lead_summary_n
from ..exact.nplayer import MAX_PLAYERS, OBJECTIVES
from ..exact.two_player import MAX_SOLVER_TOKENS, check_state, solve
from ..policies import against_names, best_response
from ..rules import dice
from ..rules.state import STATE_FORMS, GameState, parse_state, start_state
from ._common import add_variant_options, add_version, run, variant_from_args

PROG = "four21sim solve"
SCHEMA = "four21sim.solution"
SCHEMA_VERSION = 1
DRINKS_HEAD = "   drinks"

_EPILOG = """examples:
  four21sim solve --variant super421
  four21sim solve --variant super421-lebon --set tokens=1
  four21sim solve --variant classic --state pot=0,t0=10,t1=11,leader=1
  four21sim solve --variant super421 --state 0,3,8 --follower 611,2 --json
  four21sim solve --variant super421 --players 3 --state pot=0,t0=4,t1=3,t2=4
  four21sim solve --variant super421 --players 4 --json
  four21sim solve --variant super421 --players 3 --against greedy,greedy
  four21sim solve --variant super421 --players 3 --against equilibrium,sec --seat 2

--state takes the format of four21sim advise and four21sim play (docs/advisor.md); the
JSON keys are documented in docs/solutions.md, the rules in docs/rules.md.
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Solve the game of a variant exactly (2 players: optimal play; 3 to 8 players: a certified "
                    "equilibrium) and print who pays, the value of leading and, with 2 players, the optimal play; "
                    "or, with --against, the exact best response of one seat to the others' policies.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_variant_options(p)
    p.add_argument("--state", metavar="STATE",
                   help=f"the state to show: {STATE_FORMS}; the leader is seat 0 unless given "
                        "(default: the start, every token in the pot)")
    p.add_argument("--follower", metavar="HAND,COUNT",
                   help="2 players: show the follower's table against a leader who stopped on HAND after COUNT throws")
    p.add_argument("--players", default="2", metavar="N",
                   help=f"2 (default: optimal play, with tables) to {MAX_PLAYERS} (an equilibrium and its "
                        f"certificate; the presets' equilibria shipped with the package are read in seconds, "
                        f"any other's first solve takes {nplayer.FIRST_SOLVE[4]} at 4 players and "
                        f"{nplayer.FIRST_SOLVE[7]} at 7, then comes from the disk cache)")
    p.add_argument("--against", metavar="P1,P2,...",
                   help="the best response of seat --seat to the other seats playing these, in seat order (one "
                        f"per other seat, or one for all): {', '.join(against_names())}")
    p.add_argument("--seat", default="0", metavar="S",
                   help="with --against: the seat of the best responder (default 0; seat 0 leads the first round)")
    p.add_argument("--objective", default="pay", choices=OBJECTIVES,
                   help="what each player optimises, P(pay) or its win share (default: pay; with 2 players "
                        "the two are the same game)")
    p.add_argument("--json", action="store_true", help="print JSON (docs/solutions.md) instead of tables")
    add_version(p)
    return p


def _parse_follower(text: str, limit: int) -> tuple[int, int]:
    hand_text, _, count_text = text.partition(",")
    hand = dice.parse_hand(hand_text, "--follower")
    count = typed_int(count_text)
    if count is None or not 1 <= count <= limit:
        raise ValueError(f"--follower: count {shown(count_text)} is not allowed; allowed: 1 to {limit} "
                         "(the leader's throws in this phase)")
    return hand, count


def _parse_players(text: str) -> int:
    return parse_int("--players", text, 2, MAX_PLAYERS, allowed=f"2 to {MAX_PLAYERS} (the exact solvers)")


def _parse_seat(text: str, players: int) -> int:
    return parse_int("--seat", text, 0, players - 1, allowed=f"0 to {players - 1}")


def _parse_against(text: str, players: int) -> list[str]:
    names = [t.strip().lower() for t in text.split(",")]
    allowed = against_names()
    for name in names:
        if name not in allowed:
            raise ValueError(f"--against: {shown(name)} is not allowed; allowed: {', '.join(allowed)}")
    if len(names) == 1:
        names = names * (players - 1)
    if len(names) != players - 1:
        raise ValueError(f"--against: {len(names)} policies are not allowed with {players} players; allowed: "
                         f"one per other seat ({players - 1}), or one for all")
    return names


def _seats(p_pay: Sequence[float], p_win: Sequence[float]) -> list[dict]:
    """Per seat P(pay), P(win) and the drinks it pays a game beyond its share, n P(pay) - 1 (the README's measure)."""
    from ..engine.stats import drinks
    n = len(p_pay)
    return [{"seat": s, "p_pay": float(a), "p_win": float(b), "drinks": float(drinks(a, n))}
            for s, (a, b) in enumerate(zip(p_pay, p_win))]


def _state_block(variant, st: GameState, p_pay, p_win, rounds: float) -> dict:
    return {"text": st.text(), "pot": st.pot, "tokens": list(st.tokens), "leader": st.leader, "phase": st.phase,
            "throws": variant.throws(st.phase), "seats": _seats(p_pay, p_win), "expected_rounds": float(rounds)}


def _head(variant, players: int, objective: str, solution: str) -> dict:
    return {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "variant": variant.describe(),
            "options": variant.options(), "players": players, "objective": objective, "solution": solution,
            "start": {"pot": variant.tokens, "tokens": [0] * players, "leader": 0},
            "seat": None, "against": None}


def _state_values3(sol, st: GameState) -> tuple[list, list, float]:
    """Per seat P(pay), P(win) and the expected rounds left from a state of the game of 3 players or more."""
    n = st.players
    order = [(st.leader + i) % n for i in range(n)]
    order = [s for s in order if st.pot > 0 or st.tokens[s] > 0]
    # under last_holder, with players out: the game of those left
    game = sol if len(order) == n else sol.subs[len(order)]
    i = game.states.index((st.pot, tuple(st.tokens[s] for s in order)))
    p_pay, p_win = [0.0] * n, [1.0] * n  # a seat out has won (last_holder)
    for role, s in enumerate(order):
        p_pay[s], p_win[s] = float(game.p_pay[i, role]), float(game.p_win[i, role])
    return p_pay, p_win, float(game.rounds[i])


def _analyse3(args, variant, n: int = 3) -> dict:
    """3 players or more: the certified equilibrium of the n-player solver."""
    if args.follower:
        raise ValueError(f"--follower: {shown(args.follower)} is not allowed with --players {n}; allowed: only with "
                         "--players 2")
    st = parse_state(args.state, n, option="--state") if args.state else start_state(variant, n)
    st = st.with_leader(0).check(variant, "--state")
    nplayer.check_tokens(variant, n)  # before the solve: a typo costs nothing
    t0 = time.perf_counter()
    reading = shipped.available(variant, n, args.objective)
    # the solver itself says what it solves, if it takes a while; reading a shipped file is said here
    with notice_after(f"solve: reading the equilibrium of {variant.describe()} at {n} players shipped with the "
                      "package and checking it ...") if reading else nullcontext():
        sol = solve_exact(variant, n, args.objective)
    seconds = time.perf_counter() - t0
    out = _head(variant, n, args.objective, "equilibrium")
    p_pay, p_win, rounds = _state_values3(sol, st)
    out.update(seats=_seats(sol.seat_p_pay, sol.seat_p_win), expected_rounds=sol.expected_rounds,
               state=_state_block(variant, st, p_pay, p_win, rounds),
               # the lead value is a difference of P(pay) (four21sim.exact.leading)
               lead_value=lead_summary_n(sol) if args.objective == "pay" else None,
               exploitability=sol.exploitability, exploitability_any_state=sol.gain_any_state,
               converged=sol.converged, residual=sol.residual, iterations=sol.iterations,
               br_iterations=sol.br_iterations, seconds=seconds, solve_seconds=sol.seconds,
               certificate_seconds=sol.certificate_seconds, from_cache=bool(sol.info.get("from_cache", False)))
    out["from"] = sol.info.get("from") or ("cache" if out["from_cache"] else "solved")
    return out


def _analyse_against(args, variant, n: int) -> dict:
    """The exact best response of seat ``--seat`` to the others' play (four21sim.policies.best_response)."""
    for option, value in (("--state", args.state), ("--follower", args.follower)):
        if value:
            raise ValueError(f"{option}: {shown(value)} is not allowed with --against; allowed: the start of the game "
                             "(the best response is shown from there)")
    seat = _parse_seat(args.seat, n)
    names = _parse_against(args.against, n)
    nplayer.check_tokens(variant, n)  # before the solve: a typo costs nothing
    t0 = time.perf_counter()
    with notice_after(f"solve: computing seat {seat}'s exact best response at {n} players ..."):
        br = best_response(variant, n, names, seat=seat, objective=args.objective)
    seconds = time.perf_counter() - t0
    out = _head(variant, n, args.objective, "best_response")
    st = start_state(variant, n)
    seats = _seats(br.seat_p_pay, br.seat_p_win)
    out.update(seat=seat, against=list(br.against), seats=seats, expected_rounds=br.expected_rounds,
               state=_state_block(variant, st, br.seat_p_pay, br.seat_p_win, br.expected_rounds),
               lead_value=None, exploitability=None, exploitability_any_state=None,
               # policy iteration in the décharge: stopped at its tolerance, or at its cap
               converged=bool(br.residual <= 1e-12), residual=br.residual, iterations=br.iterations,
               br_iterations=br.iterations, seconds=seconds, solve_seconds=br.seconds, certificate_seconds=None,
               from_cache=False)
    out["from"] = "solved"
    return out


def _against_lines(out: dict) -> list[str]:
    wants = "its P(pay)" if out["objective"] == "pay" else "its win share"
    others = ", ".join(f"seat {s} {p}" for s, p in enumerate(out["against"]) if s != out["seat"])
    conv = "" if out["converged"] else f" (NOT converged: residual {out['residual']:.2g})"
    lines = [f"{out['variant']}, {out['players']} players: the exact best response of seat {out['seat']} "
             f"(it optimises {wants}) against {others}",
             f"solved in {out['solve_seconds']:.2f} s ({out['iterations']} iterations){conv}", "",
             f"  seat   plays                    P(pay)     P(win)  {DRINKS_HEAD}", "  " + "-" * 61]
    for r, plays in zip(out["seats"], out["against"]):
        label = "best response" if r["seat"] == out["seat"] else plays
        lines.append(f"  {r['seat']:<5}  {label:<22}  {100 * r['p_pay']:7.4f}%  {100 * r['p_win']:7.4f}%  "
                     f"{r['drinks']:+9.4f}")
    lines += ["", f"expected rounds = {out['expected_rounds']:.4f}. Seat 0 leads the first round; values are exact "
                  "(no sampling). 'equilibrium': the certified equilibrium of the same objective; 'optimal': the "
                  "one where each minimises its own P(pay)."]
    return lines


def _leader_rows(detail: dict, order, L: int) -> list[dict]:
    rows = []
    for h in order:
        h = int(h)
        for made in range(1, L + 1):
            k = int(detail["lead_dec"][L - made - 1, h]) if made < L else dice.FULL_KEEP + h
            pw = float(detail["lead_val"][made - 1, h])
            rows.append({"hand": dice.hand_name(h), "throws_made": made, "decision": dice.keep_label(h, k),
                         "p_win": pw, "p_pay": 1.0 - pw})
    return rows


def _follower_block(detail: dict, order, hl: int, c: int) -> dict:
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
                         "p_win": pw, "p_pay": None if pw is None else 1.0 - pw})
    pw = float(detail["foll_val"][hl, c - 1])
    return {"leader_hand": dice.hand_name(hl), "count": c, "p_win": pw, "p_pay": 1.0 - pw, "table": rows}


def _analyse2(args, variant) -> dict:
    T = variant.tokens
    if T > MAX_SOLVER_TOKENS:
        raise ValueError(f"tokens: {T} is too many for the exact solver; allowed: 1 to {MAX_SOLVER_TOKENS}")
    st = parse_state(args.state, 2, option="--state") if args.state else start_state(variant, 2)
    st = st.with_leader(0).check(variant, "--state")
    check_state(variant, st.pot, *st.tokens, st.leader)  # before the solve: a typo costs nothing
    L = variant.throws(st.phase)
    follower = _parse_follower(args.follower, L) if args.follower else None
    t0 = time.perf_counter()
    with notice_after(f"solve: solving {variant.describe()} at 2 players exactly ..."):
        sol = solve(variant)
    seconds = time.perf_counter() - t0
    p0 = sol.state_value(st.pot, *st.tokens, st.leader)
    a, b = st.tokens if st.leader == 0 else st.tokens[::-1]
    detail = sol.round_detail(st.pot, a, b)
    order = dice.ORDER[variant.ranking_index]
    # a 2-player game is zero-sum: the one who does not pay wins, so both objectives are this one game
    out = _head(variant, 2, args.objective, "optimum")
    out.update(seats=_seats([1 - sol.p_seat0, sol.p_seat0], [sol.p_seat0, 1 - sol.p_seat0]),
               expected_rounds=sol.expected_rounds,
               state=_state_block(variant, st, [1 - p0, p0], [p0, 1 - p0], sol.rounds[st.pot, a, b]),
               lead_value=lead_summary(sol),
               # the optimum of a zero-sum game: checked by its Bellman residual, no certificate needed
               exploitability=None, exploitability_any_state=None, converged=True, residual=sol.residual,
               iterations=sol.iterations, br_iterations=None, seconds=seconds, solve_seconds=sol.seconds,
               certificate_seconds=None, from_cache=False)
    out["from"] = "solved"
    if follower:
        out["follower"] = _follower_block(detail, order, *follower)
    else:
        out["leader"] = {"throws": L, "table": _leader_rows(detail, order, L)}
    return out


def analyse(argv: Sequence[str] | None = None) -> dict:
    """The command's answer as the JSON-ready dict ``--json`` prints (plus ``json``: whether to)."""
    args = build_parser().parse_args(argv)
    variant = variant_from_args(args)
    players = _parse_players(args.players)
    if args.against is not None:
        out = _analyse_against(args, variant, players)
    else:
        out = _analyse2(args, variant) if players == 2 else _analyse3(args, variant, players)
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


def _pp(x: float) -> str:
    return f"{100 * abs(x):.2f} pp"


def _lead_lines(lv: dict | None, players: int) -> list[str]:
    """The value of leading in words: how much lower a player's P(pay) is when it leads (exact)."""
    if not lv:
        return []
    others = "the other player" if players == 2 else "one of the others"
    fr = lv["first_round"]
    lines = [f"Value of leading (exact): leading the first round {'lowers' if fr >= 0 else 'raises'} seat 0's "
             f"P(pay) by {_pp(fr)} against {others} leading it."]
    for phase, d in lv["by_phase"].items():
        m = d["weighted_mean"]
        if m is None:
            continue
        word = "charge" if phase == "charge" else "décharge"
        lines.append(f"  Leading a {word} round {'lowers' if m >= 0 else 'raises'} a player's P(pay) by {_pp(m)} "
                     f"on average over the states a game visits (state by state: {100 * d['min']:+.2f} to "
                     f"{100 * d['max']:+.2f} pp; positive: leading lowers it), against {others} leading, same tokens.")
    if lv.get("round1_loser_pays") is not None:
        lines.append(f"  The first round's loser pays {100 * lv['round1_loser_pays']:.2f}% of the games (exact).")
    return lines


def _timing(out: dict) -> str:
    if out["from"] == "shipped":
        # (the solve's history is not stored: nothing in a file could check it)
        return (f"read from the solutions shipped with the package in {out['seconds']:.1f} s (checked as read: "
                "four21sim.exact.shipped)")
    if out["from_cache"]:
        # the entry is checked against the game's equations; the stored solve's history is not (not stored)
        return (f"read from the disk cache in {out['seconds']:.1f} s (four21sim.exact.store; every number checked "
                "against the game's equations)")
    cert = "" if out["certificate_seconds"] is None else f", certified in {out['certificate_seconds']:.1f} s"
    its = f" ({out['iterations']} iterations)" if out["iterations"] else ""
    return f"solved in {out['solve_seconds']:.2f} s{its}{cert}"


def _state_line(out: dict) -> str:
    st = out["state"]
    pays = ", ".join(f"seat {r['seat']} {100 * r['p_pay']:.4f}%" for r in st["seats"])
    return (f"State {st['text']} ({st['phase']}, up to {st['throws']} throw(s), seat {st['leader']} leads): "
            f"P(pay) {pays}; expected rounds left = {st['expected_rounds']:.4f}")


def format_text(out: dict) -> str:
    """The answer as the command prints it without ``--json``."""
    if out["solution"] == "best_response":
        return "\n".join(_against_lines(out))
    wants = "minimises its own P(pay)" if out["objective"] == "pay" else "maximises its own win share"
    goal = ("both playing optimally" + ("" if out["objective"] == "pay" else
                                        " (with 2 players, maximising one's win share is not paying: the same game)")
            if out["players"] == 2 else f"an equilibrium where each player {wants}")
    conv = "" if out["converged"] else f" (NOT converged: residual {out['residual']:.2g})"
    lines = [f"{out['variant']}, {out['players']} players, {goal}", _timing(out) + conv, "",
             f"  seat   P(pay)     P(win)  {DRINKS_HEAD}", "  " + "-" * 38]
    lines += [f"  {r['seat']:<5}  {100 * r['p_pay']:7.4f}%  {100 * r['p_win']:7.4f}%  {r['drinks']:+9.4f}"
              for r in out["seats"]]
    lines += ["", f"drinks = {out['players']} x P(pay) - 1: the drinks a seat pays a game beyond its share "
                  "(0 is fair)."]
    win0 = f"P(seat 0 wins) = {100 * out['seats'][0]['p_win']:.4f}%   " if out["players"] == 2 else ""
    lines += ["", f"{win0}expected rounds = {out['expected_rounds']:.4f}. Seat 0 leads the first round; values "
                  "are exact (no sampling)."]
    if out["exploitability"] is not None:
        lines.append(f"exploitability = {out['exploitability']:.2g} (the most any one player gains by deviating "
                     f"alone, from the start; from any state: {out['exploitability_any_state']:.2g})")
    lines += _lead_lines(out["lead_value"], out["players"])
    lines += ["", _state_line(out)]
    if "follower" in out:
        f = out["follower"]
        lines.append(f"Follower against a leader who stopped on {f['leader_hand']} after {f['count']} throw(s): "
                     f"P(follower wins the game) = {100 * f['p_win']:.4f}% before throwing.")
        lines.append("Each cell: what to do holding the hand after that many throws, and the follower's "
                     "P(win the game) playing on optimally.")
        lines += _table(f["table"], f["count"] - 1) if f["count"] > 1 else ["  (one throw: nothing to decide)"]
    elif "leader" in out:
        lines.append("Leader: what to do holding each hand after each throw ('_ 2 1' = keep the 2 and the 1, "
                     "re-throw the rest), with P(leader wins the game).")
        lines += _table(out["leader"]["table"], out["leader"]["throws"])
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    out = analyse(argv)
    if out.pop("json"):
        print(json.dumps(out, indent=2))
    else:
        print(wrap_text(format_text(out)))  # to the terminal's width: prose lines ran to 219 columns
    return 0


def console(argv: Sequence[str] | None = None) -> int:
    return run(main, "solve", argv)


if __name__ == "__main__":
    sys.exit(console())
