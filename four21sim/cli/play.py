"""``four21sim play``: play a game of 421 at the terminal.

Against the optimal player (2 players), optimal players (3 players: the certified equilibrium,
solved the first time in up to two minutes, then read from the disk cache) or habit players. The dice are thrown
by the engine's random stream (``--seed`` replays a game); you choose your keeps by
typing them: the dice to keep (``21`` keeps a 2 and a 1), ``stop``, or ``-`` to throw
all three again; ``?`` asks the advisor (``--hint`` shows its advice after every
throw of yours); ``quit`` leaves.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from ..advice.play import GameResult, Turn, parse_keep, play_game
from ..rules import dice
from ..rules.variants import MAX_PLAYERS, MIN_PLAYERS
from ._common import add_variant_options, add_version, run, variant_from_args

PROG = "four21sim play"

_EPILOG = """examples:
  four21sim play                          # you against the optimal player, super421
  four21sim play --seed 7 --hint          # the same game every time, with advice
  four21sim play --players 4 --opponents table-aware --variant classic

The rules are in docs/rules.md.
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="Play a game of 421 at the terminal against the optimal "
                                "player (2 players) or habit players (3 to 8).",
                                epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--players", type=int, default=2, metavar="N", help="players at the table, 2 to 8 (default 2)")
    p.add_argument("--seat", type=int, default=0, metavar="S",
                   help="your seat, 0 to N-1; seat 0 leads the first round (default 0)")
    p.add_argument("--opponents", metavar="POLICY", default=None,
                   help="how the others play: optimal (2 or 3 players), sec, chase421, greedy, table-aware "
                        "(default: optimal with 2 players, greedy with more)")
    p.add_argument("--seed", type=int, default=None, metavar="S",
                   help="the dice's seed, 0 <= S < 2**64 (default: a new one, printed so the game can be replayed)")
    p.add_argument("--hint", action="store_true", help="show the advisor's answer after each of your throws")
    add_variant_options(p)
    add_version(p)
    return p


def _dice(h: int) -> str:
    return " ".join(str(d) for d in dice.HANDS[h])


class Terminal:
    """Prints the game and reads the person's keeps (from ``read``, default ``input``)."""

    def __init__(self, variant, players: int, seat: int, names: list[str], hint: bool,
                 read: Callable[[str], str] = input, write: Callable[[str], None] = print):
        self.variant, self.players, self.seat, self.names = variant, players, seat, names
        self.hint, self.read, self.write = hint, read, write

    def name(self, s: int) -> str:
        return self.names[s]

    def tokens(self, tokens) -> str:
        return ", ".join(f"{self.name(s)} {t}" for s, t in enumerate(tokens))

    def report(self, event: str, d: dict) -> None:
        w = self.write
        if event == "round":
            where = f"charge, pot {d['pot']}" if d["phase"] == "charge" else "décharge"
            w(f"\nRound {d['number']} ({where}; tokens: {self.tokens(d['tokens'])}). "
              f"{self.name(d['leader']).capitalize()} lead{'' if d['leader'] == self.seat else 's'}.")
        elif event == "throw" and (d["seat"] != self.seat or d["made"] == d["limit"]):
            # the person's other throws are shown when it is asked to choose
            w(f"  {self.name(d['seat']).capitalize()} throw{'s' if d['seat'] != self.seat else ''} {_dice(d['hand'])}")
        elif event == "keep" and d["seat"] != self.seat:
            label = dice.keep_label(d["hand"], d["keep"])
            w(f"    and {'stops' if label == 'stop' else 'keeps ' + label}")
        elif event == "result":
            hands = ", ".join(f"{self.name(s)} {dice.hand_name(h)} "
                              f"({d['throws'][s]} throw{'s' if d['throws'][s] > 1 else ''})"
                              for s, h in d["hands"].items())
            n = f"{d['swing']} token{'s' if d['swing'] != 1 else ''}"
            winner, loser = self.name(d["winner"]), self.name(d["loser"])
            verb = "" if d["loser"] == self.seat else "s"
            move = (f"{loser} take{verb} {n} from the pot" if d["phase"] == "charge" else
                    f"{winner} give{'' if d['winner'] == self.seat else 's'} {n} to {loser}")
            w(f"  Hands: {hands}. {winner.capitalize()} win{'' if d['winner'] == self.seat else 's'} the round; {move}"
              + (" (nénette rescue)" if d["rescue"] else "") + ".")
        elif event == "end":
            w(f"\nGame over after {d['rounds']} rounds. Tokens: {self.tokens(d['tokens'])}.")
            won = self.seat in d["winners"]
            who = ", ".join(self.name(s) for s in d["winners"])
            w(f"{'You win!' if won else 'You lose.'} Winner{'s' if len(d['winners']) > 1 else ''}: {who}; "
              f"paying: {', '.join(self.name(s) for s in d['losers'])}.")

    def advice(self, t: Turn) -> str:
        from ..advice.advisor import advise
        left = t.limit - t.made
        kwargs = dict(throws_left=left, variant=self.variant)
        if t.leading:
            kwargs.update(role="leader", phase="charge" if t.pot else "decharge")
        else:
            kwargs.update(role="follower", beat=dice.hand_name(t.target), count=t.limit,
                          phase="charge" if t.pot else "decharge")
        if self.players == 2:
            mine, theirs = t.tokens[t.seat], t.tokens[1 - t.seat]
            kwargs.update(state=(t.pot, mine, theirs))
            kwargs.pop("phase")
        adv = advise(dice.hand_name(t.hand), exact=False, **kwargs)
        r = adv.best_round
        text = (f"  hint: for the round, {'stop' if r.stop else 'keep ' + r.keep} "
                f"({adv.measure} = {100 * float(r.value):.1f}%)")
        if adv.game is not None:
            g = adv.best_game
            text += f"; for the game, {'stop' if g.stop else 'keep ' + g.keep} (P(win the game) = {100 * g.value:.1f}%)"
        return text

    def choose(self, t: Turn) -> int:
        target = f" against {dice.hand_name(t.target)}" if t.target is not None else ""
        self.write(f"  You throw {_dice(t.hand)}{target} (throw {t.made} of {'up to ' if t.leading else ''}{t.limit}).")
        if self.hint:
            self.write(self.advice(t))
        options = "dice to keep, stop, - for none, ? for a hint" if t.may_stop else \
            "dice to keep (at least one die goes back), - for none, ? for a hint"
        while True:
            answer = self.read(f"  Keep? [{options}] ").strip()
            if answer.lower() in ("?", "hint", "h"):
                self.write(self.advice(t))
                continue
            if answer.lower() in ("q", "quit", "exit"):
                raise KeyboardInterrupt
            try:
                k = parse_keep(answer, t.hand)
            except ValueError as exc:
                self.write(f"  {exc}")
                continue
            if k == dice.FULL_KEEP + t.hand and not t.may_stop:
                self.write("  Not allowed: under the 'exact' rule a follower must throw again (keep at most two dice).")
                continue
            return k


def main(argv: Sequence[str] | None = None, read: Callable[[str], str] = input) -> int:
    args = build_parser().parse_args(argv)
    variant = variant_from_args(args)
    if not MIN_PLAYERS <= args.players <= MAX_PLAYERS:
        raise ValueError(f"--players: {args.players} is not allowed; allowed: {MIN_PLAYERS} to {MAX_PLAYERS}")
    if not 0 <= args.seat < args.players:
        raise ValueError(f"--seat: {args.seat} is not allowed; allowed: 0 to {args.players - 1}")
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    if not 0 <= seed < 2**64:
        raise ValueError(f"--seed: {seed} is not allowed; allowed: 0 <= S < 2**64")
    opponents = args.opponents or ("optimal" if args.players == 2 else "greedy")
    try:
        from ..policies import compile_policy
        compile_policy(opponents, variant, args.players)
    except ValueError as exc:
        raise ValueError(f"--opponents: {exc}") from None
    if opponents == "random":
        raise ValueError("--opponents: 'random' is not allowed; allowed: optimal (2 players), sec, chase421, "
                         "greedy, table-aware")
    names = ["you" if s == args.seat else f"{opponents} (seat {s})" if args.players > 2 else opponents
             for s in range(args.players)]
    term = Terminal(variant, args.players, args.seat, names, args.hint, read=read)
    print(f"four21sim play: {variant.describe()}, {args.players} players: you in seat {args.seat} "
          f"against {opponents}. Seed {seed} (replay with --seed {seed}).")
    try:
        res: GameResult = play_game(variant, args.players, seed, term.choose, human=args.seat, opponents=opponents,
                                    report=term.report)
    except EOFError:
        print("\nInput ended: game abandoned.")
        return 0
    except KeyboardInterrupt:
        print("\nGame abandoned.")
        return 0
    del res
    return 0


def console(argv: Sequence[str] | None = None) -> int:
    return run(main, "play", argv)


if __name__ == "__main__":
    sys.exit(console())
