"""``four21sim advise``: which dice to keep, with exact odds for the round and, given the
state of a 2-player game, for the game.

Example::

    four21sim advise 543 --throws-left 1 --beat 654 --state pot=0,mine=3,theirs=8
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from .._util.checks import shown, typed_int
from ..advice.advisor import GAME_PLAYERS, ROLES, ROUND_PLAYERS, Advice, check_players, format_advice, players_text
from ..advice.advisor import advise as _advise
from ..advice.start import StartAnswer, format_start, start_answer
from ..exact import odds
from ..rules.state import parse_state
from ._common import add_variant_options, add_version, read_numbers, run, variant_from_args

PROG = "four21sim advise"

_EPILOG = """examples:
  four21sim advise 631 --throws-left 2 --beat 611           # a follower behind a 611
  four21sim advise 543 --throws-left 1 --beat 654 --state pot=0,mine=3,theirs=8   # ... and the game answer
  four21sim advise 631 --role leader --state 11,0,0         # a leader: stop against each keep
  four21sim advise 552 --objective 421 --followers at_most
  four21sim advise 631 --throws-left 2 --beat 654,521 --players 4    # 4 players: the round answer
  four21sim advise 631 --players 4 --seat 2 --state pot=0,t0=3,t1=4,t2=2,t3=2,leader=0 --beat 654,521
                                                            # ... and P(pay) of each keep
  four21sim advise --chart super421 --out super421-keeps.pdf   # a printable cheat sheet
  four21sim advise --throws-left 3                          # no hand: P(421) from the start of a turn
  four21sim advise --beat 654                               # ... P(beat 654), all three dice to throw

The round answer comes from the exact single-turn odds, at {round} players (it does not
depend on the tokens); the game answer (with --state) from the exact solvers, at {game}
players: P(win the game) with 2, P(pay) with 3 or more. Where the two differ, the last
lines say why; "Best play" breaks a tie on the round by the game answer. The rules are in
docs/rules.md, the advisor in docs/advisor.md.
"""


def _parse_state(text: str, variant, role: str | None) -> tuple[tuple[int, int, int], str | None]:
    """``--state`` (the format of docs/advisor.md, shared with solve and play): ``(pot, mine, theirs)``
    for the advisor, and the role a ``leader=`` field implies (checked against ``--role``)."""
    st = parse_state(text, 2, me=0, option="--state").check(variant, "--state")
    if st.leader is not None:
        implied = "leader" if st.leader == 0 else "follower"
        if role is not None and role != implied:
            raise ValueError(f"--state: leader={'me' if st.leader == 0 else 'them'} does not match --role {role}; "
                             f"allowed: --role {implied}, or no leader in --state")
        role = implied
    return (st.pot, st.tokens[0], st.tokens[1]), role


def _table_state(text: str, variant, players: int):
    """``--state`` of a table of 3 players or more (every seat's tokens, ``leader=SEAT``)."""
    from ..rules.state import parse_state as parse
    return parse(text, players, option="--state")


def _beat_throws(beat: list[str] | None) -> tuple[list[str] | None, list[int] | None]:
    """``--beat`` entries ``HAND`` or ``HAND:THROWS``: the hands, and their throws where any is given."""
    if not beat:
        return beat, None
    hands, throws = [], []
    for item in beat:
        hand, sep, f = item.partition(":")
        hands.append(hand.strip())
        if sep:
            value = typed_int(f)
            if value is None:
                raise ValueError(f"--beat: {shown(item)} is not allowed; allowed: HAND or HAND:THROWS, e.g. 611:2")
            throws.append(value)
        else:
            throws.append(None)
    if all(f is None for f in throws):
        return hands, None
    return hands, throws


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Rank every way to keep dice from a hand, with the exact probability (or expected value) "
                    "each achieves in the round and, given the state of the game (--state), the exact "
                    "probability of winning the game (2 players) or of paying (3 or more).",
        epilog=_EPILOG.format(round=players_text("round"), game=players_text("game")),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("hand", nargs="?", help="the three dice held, in any order: 631, 6-3-1; without a hand, the "
                                           "chance of the objective from the start of a turn (all three dice to "
                                           "throw, best keeping after each throw)")
    p.add_argument("--role", choices=ROLES, default=None,
                   help="leader (throws first, may stop any time) or follower (plays to the leader's count); "
                        "default: follower with --beat, else leader")
    p.add_argument("--beat", metavar="HAND", action="append",
                   help="a hand on the table to beat, e.g. 611 (repeatable or comma-separated; the round "
                        "answer plays against the worst one)")
    p.add_argument("--count", metavar="C",
                   help="a follower: the leader's number of throws (default: the phase's throw limit)")
    p.add_argument("--throws-left", default=None, metavar="M",
                   help="throws still allowed, 0 to 2 (default: all but the first throw); without a hand, the "
                        "throws of the whole turn, 1 to 3 (default: the round's count)")
    p.add_argument("--state", metavar="STATE",
                   help="2 players: the tokens in the pot, yours and the opponent's, as pot=P,mine=M,theirs=T"
                        "[,leader=me|them] or POT,MINE,THEIRS (the format of solve and play, docs/advisor.md); "
                        f"adds the game answer, P(win the game), from the exact solver (3 to {GAME_PLAYERS[1]} "
                        "players: see --players)")
    p.add_argument("--players", default="2", metavar="N",
                   help=f"players at the table, {players_text('round')} (default 2); --beat the hands before you in "
                        "playing order (HAND or HAND:THROWS, the leader's first; the round answer plays against the "
                        f"worst). The game answer takes {players_text('game')}: from 3, --state gives every seat's "
                        "tokens and the leader (pot=P,t0=A,t1=B,...,leader=SEAT) and the game answer is P(pay) of "
                        "each keep, everyone playing the exact equilibrium afterwards")
    p.add_argument("--seat", default="0", metavar="S",
                   help="with --players 3 or more and --state: your seat (default 0)")
    p.add_argument("--phase", choices=("charge", "decharge"), default=None,
                   help="the phase whose throw limit applies (default: from --state, else charge)")
    p.add_argument("--objective", choices=odds.ADVICE_OBJECTIVES, default=None,
                   help="the round answer's goal. round: a leader's P(not losing the round to one follower); "
                        "beat: end strictly above --beat; reach: end at --reach or above; 421: make 421; "
                        "value: the expected value of the hand (default: beat for a follower with --beat, "
                        "round for a leader, else 421)")
    p.add_argument("--reach", metavar="HAND", help="the hand to reach or better, e.g. 611")
    p.add_argument("--followers", choices=odds.FOLLOWER_RULES, default=None,
                   help="the follower rule (same as --set followers=...): at_most may stop after any throw "
                        "('le bon'); exact must re-throw at least one die every throw (default: the variant's)")
    p.add_argument("--chart", metavar="VARIANT",
                   help="draw the cheat sheet of a preset instead: A4 pages, the leader's and the follower's "
                        "against every hand to beat (needs --out FILE.pdf, every page in one file, or FILE.png: "
                        "page 1 there and page N in FILE-N.png)")
    p.add_argument("--out", metavar="FILE", help="with --chart: the file to write (.png or .pdf)")
    p.add_argument("--exact", action="store_true", help="also print exact fractions")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    add_variant_options(p)
    add_version(p)
    return p


def compute(argv: Sequence[str] | None = None) -> tuple[argparse.Namespace, Advice | str]:
    """Parse arguments and compute the advice (ValueError on bad input).

    Returns the parsed arguments and the :class:`~four21sim.advice.Advice`, or the
    paths written with ``--chart`` (a PDF: one file of every page; a PNG: one file a page).
    """
    args = build_parser().parse_args(argv)
    read_numbers(args, ("count", "throws_left", "players", "seat"))
    if args.chart is not None:
        if not args.out:
            raise ValueError("--out: --chart needs --out FILE; allowed: a file name ending in .png or .pdf")
        if args.hand is not None:
            raise ValueError(f"hand: {shown(args.hand)} is not used with --chart; allowed: --chart VARIANT --out FILE")
        from ..advice.charts import write_cheat_sheet
        return args, [str(p) for p in write_cheat_sheet(args.chart, args.out, overrides=args.overrides)]
    if args.out:
        raise ValueError("--out: only used with --chart; allowed: --chart VARIANT --out FILE")
    variant = variant_from_args(args)
    if args.followers:
        variant = variant.with_options({"followers": args.followers})
    beat = [t for item in args.beat or [] for t in item.split(",") if t.strip()] or None
    if args.beat is not None and not beat:
        raise ValueError(f"--beat: {shown(','.join(args.beat))} is not allowed; allowed: one or more hands to beat, "
                         "e.g. 611 or 611,543")
    if beat and args.reach:
        raise ValueError("--beat/--reach: give one target, not both")
    if args.hand is None:
        return args, _start(args, variant, beat)
    throws, role, count = None, args.role, args.count
    if args.players == 2 and args.seat != 0:
        raise ValueError(f"--seat: {args.seat} is not allowed with --players 2; allowed: --players 3 or more "
                         "(with 2 players you are seat 0: --state pot=P,mine=M,theirs=T)")
    lo, hi = ROUND_PLAYERS
    if not lo <= args.players <= hi:
        raise ValueError(f"--players: {args.players} is not allowed; allowed: {players_text('round')} (the game "
                         f"answer, with --state: {players_text('game')})")
    if args.state and args.players > GAME_PLAYERS[1]:
        raise ValueError(f"--players: {args.players} is not allowed with --state; allowed: {players_text('game')} "
                         f"(the game answer's exact solvers reach {GAME_PLAYERS[1]} players; without --state, the "
                         f"round answer takes {players_text('round')})")
    if args.players != 2 and not args.state:
        if not 0 <= args.seat < args.players:
            raise ValueError(f"--seat: {args.seat} is not allowed; allowed: 0 to {args.players - 1}")
        # the other hands' throws matter to the game answer only; the leader's is the round's count
        beat, given = _beat_throws(beat)
        count = args.count if args.count is not None or not given or given[0] is None else given[0]
        state = None
    elif args.players != 2:
        beat, throws = _beat_throws(beat)
        if throws is not None and beat:
            count = args.count if args.count is not None else throws[0]
            throws = [count if f is None else f for f in throws]
        state = _table_state(args.state, variant, args.players)
    else:
        state, role = _parse_state(args.state, variant, args.role) if args.state else (None, args.role)
    try:
        if args.players != 2 and state is not None:
            from ..advice.table_answer import advise_table
            return args, advise_table(args.hand, state, players=args.players, seat=args.seat, role=role, beat=beat,
                                      throws=throws, reach=args.reach, objective=args.objective,
                                      throws_left=args.throws_left, count=args.count if args.count is not None
                                      or not throws else throws[0], phase=args.phase, variant=variant)
        return args, _advise(args.hand, role=role, beat=beat, reach=args.reach, objective=args.objective,
                             throws_left=args.throws_left, count=count, phase=args.phase, state=state,
                             variant=variant, players=args.players)
    except ValueError as exc:
        raise ValueError(_option_names(str(exc))) from None


def _start(args: argparse.Namespace, variant, beat: list[str] | None) -> StartAnswer:
    """No hand: the chance of the objective from the start of a turn (``--throws-left``: the throws
    of the whole turn, the first included)."""
    if args.state:
        raise ValueError("--state: the game answer needs the hand held; allowed: a hand such as 631 with --state, "
                         "or no --state for the chance from the start of a turn")
    beat, given = _beat_throws(beat)
    count = args.count if args.count is not None or not given or given[0] is None else given[0]
    try:
        check_players(args.players, game=False)  # the answer does not depend on it (one follower, or the worst hand)
        return start_answer(role=args.role, beat=beat, reach=args.reach, objective=args.objective,
                            throws=args.throws_left, count=count, phase=args.phase, variant=variant)
    except ValueError as exc:
        raise ValueError(_option_names(str(exc))) from None


def _option_names(msg: str) -> str:
    """An error of the library, which names its parameters, naming the command line's options."""
    for name in ("throws_left", "state", "beat", "reach", "objective", "count", "phase", "role", "seat",
                 "throws", "players"):
        if msg.startswith(name + ":"):
            msg = "--" + name.replace("_", "-") + msg[len(name):]
            break
    return msg.replace("beat=HAND", "--beat HAND").replace("reach=HAND", "--reach HAND")


def advise(argv: Sequence[str] | None = None) -> dict:
    """The advice for a command line, as the JSON-ready dict ``--json`` prints."""
    _, adv = compute(argv)
    return adv.to_dict() if isinstance(adv, (Advice, StartAnswer)) else {"chart": adv}


def main(argv: Sequence[str] | None = None) -> int:
    args, adv = compute(argv)
    if isinstance(adv, StartAnswer):
        print(json.dumps(adv.to_dict(), indent=2) if args.json else format_start(adv, show_exact=args.exact))
        return 0
    if not isinstance(adv, Advice):
        print(f"wrote {', '.join(adv)}")
        return 0
    if args.json:
        print(json.dumps(adv.to_dict(), indent=2))
    else:
        print(format_advice(adv, show_exact=args.exact))
    return 0


def console(argv: Sequence[str] | None = None) -> int:
    return run(main, "advise", argv)


if __name__ == "__main__":
    sys.exit(console())
