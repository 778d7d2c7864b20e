"""``python -m four21sim.advise``: which dice to keep, with exact odds.

Example::

    python -m four21sim.advise 631 --throws-left 2 --beat 611 --variant super421
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from . import dice, odds
from ._cli import add_variant_options, run, variant_from_args

_EPILOG = """examples:
  python -m four21sim.advise 631 --throws-left 2 --beat 611
  python -m four21sim.advise 552 --objective 421 --followers at_most
  python -m four21sim.advise 631 --throws-left 1 --objective value --variant classic --json
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m four21sim.advise",
        description="Rank every way to keep dice from a hand, with the exact probability "
                    "(or expected value) each achieves under best play afterwards.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("hand", help="the three dice held, in any order: 631, 6-3-1")
    p.add_argument("--throws-left", type=int, default=2, metavar="M",
                   help="throws still allowed: 0, 1 or 2 (default 2)")
    p.add_argument("--objective", choices=odds.OBJECTIVES, default=None,
                   help="421: make 421; beat: end strictly above --beat; reach: end at --reach or above; "
                        "value: maximise the expected value of the hand (default: beat if --beat is "
                        "given, reach if --reach is given, else 421)")
    p.add_argument("--beat", metavar="HAND", help="the hand to beat strictly, e.g. 611")
    p.add_argument("--reach", metavar="HAND", help="the hand to reach or better, e.g. 611")
    p.add_argument("--followers", choices=odds.FOLLOWER_RULES, default=None,
                   help="at_most: may stop after any throw (a leader, or 'le bon'); exact: must "
                        "re-throw at least one die every throw (default: the variant's follower rule)")
    p.add_argument("--exact", action="store_true", help="also print exact fractions")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    add_variant_options(p)
    return p


def advise(argv: Sequence[str] | None = None) -> dict:
    """Parse arguments and compute the advice as a JSON-ready dict (ValueError on bad input)."""
    p = build_parser()
    args = p.parse_args(argv)
    variant = variant_from_args(args)
    hand = dice.parse_hand(args.hand, "hand")
    if not 0 <= args.throws_left <= odds.MAX_THROWS_LEFT:
        raise ValueError(f"--throws-left: {args.throws_left} is not allowed; allowed: 0, 1 or 2")
    if args.beat and args.reach:
        raise ValueError("--beat/--reach: give one target, not both")
    objective = args.objective or ("beat" if args.beat else "reach" if args.reach else "421")
    target_text = args.beat or args.reach
    target = None
    if objective in ("beat", "reach"):
        if not target_text:
            raise ValueError(f"--objective: {objective} needs a target hand; allowed: --{objective} HAND")
        target = dice.parse_hand(target_text, f"--{'beat' if args.beat else 'reach'}")
    elif target_text:
        raise ValueError(f"--objective: {objective} takes no target hand; drop --beat/--reach "
                         "or use --objective beat|reach")
    followers = args.followers or variant.followers
    rows = odds.keep_advice(hand, args.throws_left, objective, target, variant.ranking, variant.values,
                            followers, exact=True)
    goal = {"421": "P(421)", "beat": f"P(beat {dice.hand_name(target) if target is not None else ''})",
            "reach": f"P(reach {dice.hand_name(target) if target is not None else ''})",
            "value": "E[value]"}[objective]
    keeps = [{"keep": dice.keep_label(hand, k), "kept": dice.keep_name(k) if k != dice.FULL_KEEP + hand
              else dice.hand_name(hand), "stop": k == dice.FULL_KEEP + hand,
              "value": float(v), "exact": str(v)} for k, v in rows]
    return {"hand": dice.hand_name(hand), "throws_left": args.throws_left, "objective": objective,
            "target": dice.hand_name(target) if target is not None else None, "measure": goal,
            "variant": variant.describe(), "ranking": variant.ranking, "values": variant.values,
            "followers": followers, "keeps": keeps, "best": keeps[0], "show_exact": args.exact,
            "as_json": args.json}


def format_table(adv: dict) -> str:
    pct = adv["objective"] != "value"
    head = (f"Hand {adv['hand']}, {adv['throws_left']} throw(s) left, "
            f"{adv['measure']} under {adv['variant']} ({adv['followers']} followers)")
    lines = [head, ""]
    w = max(8, len(adv["measure"]))
    lines.append(f"  {'keep':<8} {adv['measure']:>{w}}" + ("   exact" if adv["show_exact"] else ""))
    for row in adv["keeps"]:
        val = f"{100 * row['value']:.2f}%" if pct else f"{row['value']:.4f}"
        lines.append(f"  {row['keep']:<8} {val:>{w}}" + (f"   {row['exact']}" if adv["show_exact"] else ""))
    best = adv["best"]
    val = f"{100 * best['value']:.2f}%" if pct else f"{best['value']:.4f}"
    what = "stop" if best["stop"] else f"keep {best['keep']}"
    lines += ["", f"Best play: {what}  ->  {adv['measure']} = {val}"]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    adv = advise(argv)
    if adv.pop("as_json"):
        adv.pop("show_exact")
        print(json.dumps(adv, indent=2))
    else:
        print(format_table(adv))
    return 0


if __name__ == "__main__":
    sys.exit(run(main, "advise"))
