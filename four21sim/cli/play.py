"""``four21sim play``: play 421 at the terminal, and train.

Against the optimal player (2 players), optimal players (3 players: the certified
equilibrium; 4 to 6 players: the certified n-player equilibrium deciding one turn at a time;
each solved the first time in ``exact.nplayer.FIRST_SOLVE``, then read from the disk cache),
habit players, or a plugged-in Python policy (``--opponents FILE.py:NAME``). The dice are
thrown by the engine's random stream (``--seed`` and ``--game`` replay a game); you choose
your keeps by typing them: the dice to keep (``21`` keeps a 2 and a 1), ``stop``, or ``-``
to throw all three again; ``?`` asks for a hint (``--hint`` shows it after every throw of
yours); ``quit`` leaves. ``--train`` says after each of your decisions what it cost
against the best keep (exact with 2 players, and from 3 at the equilibrium), with a running
score over the games (``--games N``, and "another game?" at the end); ``--log FILE``
saves the games, ``--replay FILE`` plays them again (a log is data: it is checked key by
key, and a plug-in it names is never loaded, docs/play.md).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from .._util.atomic import UnsafePath, check_destination
from .._util.checks import check_int, shown
from ..advice.advisor import players_text, wrap_text
from ..advice.gamelog import check_record, game_record, is_plugin_label, read_log, replay, write_log
from ..advice.play import MAX_GAME, Game, Turn, parse_keep, policy_label, seat_policies
from ..advice.trainer import Answers, KeepValues, Trainer
from ..exact import shipped
from ..exact.nplayer import ANSWER_PLAYERS as _MAX_EXACT
from ..exact.nplayer import FIRST_SOLVE as _FIRST_SOLVE
from ..policies import canonical_name, policy_help
from ..policies.plugin import PluginError, load_plugin
from ..rules import dice
from ..rules.state import STATE_FORMS, parse_state
from ..rules.variants import MAX_PLAYERS, MIN_PLAYERS
from ._common import Terminated, add_variant_options, add_version, read_numbers, run, variant_from_args

PROG = "four21sim play"

_EPILOG = """examples:
  four21sim play                          # you against the optimal player, super421
  four21sim play --seed 7 --hint          # the same game every time, with advice
  four21sim play --train --games 5 --log games.jsonl   # what each choice cost, a score, a log
  four21sim play --replay games.jsonl     # the logged games again
  four21sim play --players 3 --opponents optimal --train
  four21sim play --players 4 --opponents optimal --hint  # the 4-player equilibrium, turn by turn
  four21sim play --players 4 --opponents table-aware --variant classic
  four21sim play --opponents docs/examples/cautious.py:cautious   # a plug-in (docs/environment.md)

The rules are in docs/rules.md; --state takes the format of advise and solve (docs/advisor.md).
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="Play a game of 421 at the terminal against the optimal "
                                "player (2 players), the equilibrium (3), habit players or a plugged-in policy, and "
                                "learn what each choice costs.",
                                epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--players", default=2, metavar="N",
                   help=f"players at the table, {MIN_PLAYERS} to {MAX_PLAYERS} (default 2); the game answer of the "
                        f"hints and the trainer reaches {players_text('game')} players")
    p.add_argument("--seat", default=0, metavar="S",
                   help="your seat, 0 to N-1; seat 0 leads the first round (default 0)")
    p.add_argument("--opponents", metavar="POLICY", default=None,
                   help="how the others play: a policy of the registry (" + policy_help().replace("\n", "; ")
                        + "), or a plugged-in policy MODULE:NAME or FILE.py:NAME, given at most 10 s a "
                          "decision (default: optimal with 2 players, greedy with more); with --replay, the policy "
                          "of the seats the log gives to a plug-in, which a log never loads itself")
    p.add_argument("--seed", default=None, metavar="S",
                   help="the dice's seed, 0 <= S < 2**64 (default: a new one, printed so the game can be replayed)")
    p.add_argument("--game", default=0, metavar="G",
                   help="the first game's index in the seed's stream, 0 <= G < 2**63 (default 0); the next games "
                        "follow")
    p.add_argument("--state", metavar="STATE", help=f"start from this state: {STATE_FORMS} (default: the start)")
    p.add_argument("--hint", action="store_true",
                   help="show the advisor's answers after each of your throws: for the round and, where a solver "
                        "reaches, for the game, and why they differ when they do")
    p.add_argument("--train", action="store_true",
                   help="after each of your decisions, say what it cost against the best keep, with a running "
                        "score (and why, when the round's best keep is not the game's)")
    p.add_argument("--games", default=1, metavar="N",
                   help="games to play in a row before asking whether to play another (default 1)")
    p.add_argument("--log", metavar="FILE", help="save the games to FILE, one JSON line a game, e.g. games.jsonl "
                   "(the format: docs/play.md, Game logs); FILE is a new name or a regular file in an existing "
                   "folder, checked before the first game")
    p.add_argument("--replay", metavar="FILE", help="replay the games of a log (play --log FILE) instead of playing; "
                   "every game is checked first, and a plug-in the log names is never loaded (see --opponents)")
    add_variant_options(p)
    add_version(p)
    return p


def _dice(h: int) -> str:
    return " ".join(str(d) for d in dice.HANDS[h])


def keep_words(hand: int, keep: int, you: bool = False) -> str:
    """A keep in words: ``stops``, ``throws all three dice again``, ``keeps 6 1, throws 1 die again``
    (``you``: ``stop``, ``keep 6 1, throw 1 die again``)."""
    s = "" if you else "s"
    if keep == dice.FULL_KEEP + hand:
        return f"stop{s}"
    kept = dice.keep_name(keep)
    if keep == dice.EMPTY_KEEP:
        return f"throw{s} all three dice again"
    back = 3 - len(kept)
    return f"keep{s} {' '.join(kept)}, throw{s} {back} {'die' if back == 1 else 'dice'} again"


def choice_words(hand: int, keep: int) -> str:
    """A keep as advice: ``stop``, ``throw all three again``, ``keep 6 1``."""
    if keep == dice.FULL_KEEP + hand:
        return "stop"
    return "throw all three again" if keep == dice.EMPTY_KEEP else f"keep {' '.join(dice.keep_name(keep))}"


def _pct(x: float) -> str:
    return f"{100 * float(x):.1f}%"


class Score:
    """The running score of a session: games, wins, and the cost of the person's decisions."""

    def __init__(self):
        self.games = self.won = self.decisions = self.best = 0
        self.cost: dict[str, float] = {}

    def add(self, measure: str, cost: float) -> None:
        self.decisions += 1
        self.best += cost == 0.0
        self.cost[measure] = self.cost.get(measure, 0.0) + cost

    def line(self) -> str:
        text = f"Score: {self.won} of {self.games} game{'s' if self.games != 1 else ''} won"
        if self.decisions:
            costs = "; ".join(f"{100 * c:.2f} pp of {m}" for m, c in self.cost.items())
            text += (f"; {self.decisions} decisions, {self.best} of them the best keep; cost in all: {costs} "
                     f"({100 * sum(self.cost.values()) / self.decisions:.2f} pp a decision)")
        return text + "."


class Terminal:
    """Prints the game (wrapped to the terminal's width) and reads the person's keeps."""

    def __init__(self, variant, players: int, seat: int, names: list[str], hint: bool, train: bool = False,
                 read: Callable[[str], str] = input, write: Callable[[str], None] = print, width: int | None = None):
        self.variant, self.players, self.seat, self.names = variant, players, seat, names
        self.hint, self.train, self.read, self._write = hint, train, read, write
        self.width = width
        self.trainer = Trainer(variant, players)  # solves only when first asked (or by main with --hint/--train)
        self.score, self.choices, self.replaying = Score(), [], False
        self._held: list[str] | None = None  # replaying: what judge says, printed after the keep it judges
        self._answers: tuple | None = None
        self._reason_shown: Turn | None = None  # the decision whose hint already said why (judge does not repeat it)

    def write(self, text: str) -> None:
        if self._held is not None:
            self._held.append(text)
            return
        for line in text.split("\n"):
            self._write(wrap_text(line, self.width))

    def name(self, s: int) -> str:
        return self.names[s]

    def _you(self, s: int, verb: str) -> str:
        return f"{self.name(s).capitalize()} {verb if s == self.seat else verb + 's'}"

    def tokens(self, tokens) -> str:
        return ", ".join(f"{self.name(s)} {t}" for s, t in enumerate(tokens))

    # ------------------------------------------------------------------ what happens
    def report(self, event: str, d: dict) -> None:
        if event == "round":
            where = f"charge, pot {d['pot']}" if d["phase"] == "charge" else "décharge"
            self.write(f"\nRound {d['number']} ({where}; tokens: {self.tokens(d['tokens'])}). "
                       f"{self._you(d['leader'], 'lead')}.")
        elif event == "throw" and (d["seat"] != self.seat or d["made"] == d["limit"]):
            # the person's other throws are shown when it is asked to choose
            self.write(f"  {self._you(d['seat'], 'throw')} {_dice(d['hand'])}")
        elif event == "keep" and (d["seat"] != self.seat or self.replaying):
            mine = d["seat"] == self.seat
            held, self._held = self._held or [], None
            self.write(f"    {'you' if mine else 'and'} {keep_words(d['hand'], d['keep'], mine)}")
            for text in held:
                self.write(text)
        elif event == "result":
            self._result(d)
        elif event == "end":
            self._end(d)

    def _result(self, d: dict) -> None:
        def one(s, h):
            f = d["throws"][s]
            return f"{self.name(s)} {dice.hand_name(h)} ({f} throw{'s' if f > 1 else ''})"

        hands = ", ".join(one(s, h) for s, h in d["hands"].items())
        n = f"{d['swing']} token{'s' if d['swing'] != 1 else ''}"
        move = (f"{self._you(d['loser'], 'take')} {n} from the pot" if d["phase"] == "charge" else
                f"{self._you(d['winner'], 'give')} {n} to {self.name(d['loser'])}")
        self.write(f"  Hands: {hands}. {self._you(d['winner'], 'win')} the round; {move[0].lower() + move[1:]}"
                   + (" (nénette rescue)" if d["rescue"] else "") + ".")

    def _end(self, d: dict) -> None:
        self.write(f"\nGame over after {d['rounds']} rounds. Tokens: {self.tokens(d['tokens'])}.")
        won = self.seat in d["winners"]
        who = ", ".join(self.name(s) for s in d["winners"])
        self.write(f"{'You win!' if won else 'You lose.'} Winner{'s' if len(d['winners']) > 1 else ''}: {who}; "
                   f"paying: {', '.join(self.name(s) for s in d['losers'])}.")
        self.score.games += 1
        self.score.won += won
        if self.train or self.score.games > 1:
            self.write(self.score.line())

    # ------------------------------------------------------------------ advice and costs
    def answers(self, t: Turn) -> Answers:
        """Both answers at ``t`` (:meth:`Trainer.answers`), computed once per decision for the hint and the cost."""
        if self._answers is None or self._answers[0] is not t:
            self._answers = (t, self.trainer.answers(t))
        return self._answers[1]

    def advice(self, t: Turn) -> str:
        a = self.answers(t)
        bp, later = a.best, len(t.order) - 1 - len(t.table)
        if t.leading:
            caveat = (" against one follower" + (f"; with {later} followers it is a guide only" if later > 1 else ""))
        else:
            caveat = f"; {later} player{'s' if later > 1 else ''} still to throw after you" if later else ""
        tie = f" {bp.note()}" if bp.tied else ""
        lines = [f"  hint: for the round, {choice_words(t.hand, bp.index)} ({a.measure} = {_pct(bp.keep.value)}"
                 f"{caveat}){tie}"]
        g = a.game
        if g is not None:
            k = g.best
            agree = "the round answer is the game's best keep too" if not a.differ else \
                f"the round answer would cost {100 * g.cost(bp.index):.2f} pp"
            lines.append(f"  hint: for the game, {choice_words(t.hand, k)} ({g.measure} = {_pct(g.values[k])}; "
                         f"{g.source}); {agree}.")
            if a.differ:
                lines.append(f"  hint: {a.reason}")
                self._reason_shown = t
        return "\n".join(lines)

    def judge(self, t: Turn, keep: int) -> dict:
        """The cost of the person's keep (printed with --train), as the log records it."""
        entry = {"round": None, "hand": dice.hand_name(t.hand), "made": t.made, "keep": dice.keep_name(keep)
                 if keep != dice.FULL_KEEP + t.hand else "stop", "index": int(keep), "cost": None, "measure": None}
        if not self.train:
            return entry
        v: KeepValues = self.trainer.values(t)
        cost, best = v.cost(keep), v.best
        entry.update(cost=cost, measure=v.measure, exact=v.exact_game)
        self.score.add(v.measure, cost)
        if cost == 0.0:
            self.write(f"  train: the best keep ({v.measure} = {_pct(v.values[keep])}, {v.source}).")
        else:
            self.write(f"  train: cost {100 * cost:.2f} pp of {v.measure}: {choice_words(t.hand, best)} was best "
                       f"({_pct(v.values[best])} against {_pct(v.values[keep])}; {v.source}).")
        if v.exact_game:
            a = self.answers(t)
            if a.differ and self._reason_shown is not t:
                # the round answer is what a player goes by at the table: say why the game's keep is not it
                self.write(f"  why: the round answer says {choice_words(t.hand, a.best.index)} "
                           f"({a.measure} = {_pct(a.best.keep.value)}). {a.reason}")
        return entry

    def _ask(self, t: Turn) -> int:
        options = "dice, stop, - for none, ? hint" if t.may_stop else "1 or 2 dice (one goes back), -, ? hint"
        while True:
            answer = self.read(f"  Keep? [{options}] ").strip()
            if answer.lower() in ("?", "hint", "h"):
                self.write(self.advice(t))
                continue
            if answer.lower() in ("q", "quit", "exit"):
                raise _Quit
            try:
                return parse_keep(answer, t.hand, t.may_stop)
            except ValueError as exc:
                self.write(f"  {exc}")

    def replayed(self, t: Turn, keep: int) -> None:
        """A logged decision of the person, replayed: its throw now, its cost after its keep."""
        self.write(f"  You throw {_dice(t.hand)}" + (f" against {dice.hand_name(t.target)}" if t.target is not None
                                                     else "") + f" (throw {t.made} of "
                   f"{'up to ' if t.leading else ''}{t.limit}).")
        self._held = []
        self.judge(t, keep)

    def choose(self, t: Turn) -> int:
        target = f" against {dice.hand_name(t.target)}" if t.target is not None else ""
        self.write(f"  You throw {_dice(t.hand)}{target} (throw {t.made} of {'up to ' if t.leading else ''}{t.limit}).")
        if self.hint:
            self.write(self.advice(t))
        k = self._ask(t)
        self.choices.append(self.judge(t, k))
        return k


def _when(variant, players: int) -> str:
    """How long the equilibrium takes to get: seconds where it ships with the package, else its first solve."""
    try:
        ships = shipped.available(variant, players)
    except ValueError:  # a table the solver does not reach: the opponents' check names --opponents
        ships = False
    if ships:
        return "shipped with the package: seconds"
    return f"{_FIRST_SOLVE.get(players, '')} the first time, then about half that from the disk cache, checked"


def _check(args) -> None:
    check_int("--players", args.players, MIN_PLAYERS, MAX_PLAYERS)
    check_int("--seat", args.seat, 0, args.players - 1)
    if args.seed is not None:
        check_int("--seed", args.seed, 0, 2**64 - 1)
    check_int("--games", args.games, 1, MAX_GAME)
    check_int("--game", args.game, 0, MAX_GAME - args.games)


_LOG_ALLOWED = "a new file or a regular file, in an existing folder you may write to"


def _check_log(path: str) -> None:
    """Refuse a ``--log`` path the games could not be written to, before the first game is played."""
    try:
        check_destination(path)
    except UnsafePath as exc:
        raise ValueError(f"--log: {exc}") from None
    folder = Path(path).parent
    why = ("it names no file" if not Path(path).name or Path(path).name in (".", "..") else
           f"no folder {shown(str(folder))}" if not folder.is_dir() else
           f"the folder {shown(str(folder))} is not writable" if not os.access(folder, os.W_OK | os.X_OK) else None)
    if why:
        raise ValueError(f"--log: {shown(path)} is not allowed ({why}); allowed: {_LOG_ALLOWED}")


def _write_log(path: str, records: list) -> None:
    try:
        write_log(path, records)
    except UnsafePath as exc:  # the path was swapped for something else during the game
        raise ValueError(f"--log: {exc}") from None
    except OSError as exc:  # a full disk, a folder removed during the game
        raise ValueError(f"--log: cannot write {shown(path)} ({exc.strerror or exc}); the games of this session "
                         "are not saved") from None


def _opponents(args, variant) -> tuple[list, str]:
    name = args.opponents or ("optimal" if args.players == 2 else "greedy")
    try:
        pols = seat_policies(variant, args.players, args.seat, name)
    except ValueError as exc:
        raise ValueError(f"--opponents: {exc}") from None
    return pols, name


def _play_one(variant, args, term: Terminal, pols, labels, seed: int, index: int, start) -> dict:
    term.choices = []
    game = Game(variant, args.players, seed, game=index, start=start, report=term.report)
    rounds = 0
    while not game.over:
        t = game.turn
        rounds = game.rounds + 1
        k = term.choose(t) if pols[t.seat] is None else game.policy_keep(pols[t.seat])
        if pols[t.seat] is None:
            term.choices[-1]["round"] = rounds
        game.play(k)
    return game_record(game, args.seat, labels, term.choices)


class _Quit(Exception):
    """The player typed q: the game is abandoned on purpose (exit status 0)."""


def _session(variant, args, term: Terminal, pols, labels, seed: int, start, read) -> int:
    records, index, planned = [], args.game, args.games
    while True:
        term.write(f"\nGame {index - args.game + 1} (seed {seed}, game {index}: replay it with --seed {seed} "
                   f"--game {index}).")
        records.append(_play_one(variant, args, term, pols, labels, seed, index, start))
        if args.log:
            _write_log(args.log, records)
        index += 1
        if index - args.game < planned:
            continue
        try:
            again = read("\nAnother game? [y/N] ").strip().lower()
        except EOFError:
            again = ""
        if again not in ("y", "yes", "o", "oui"):
            return 0
        planned += 1


def _replay(path: str, args, read) -> int:
    # --opponents with --replay: the seats the log gives to a plug-in (a log never loads one itself)
    plugin = args.opponents
    if plugin is not None:
        try:
            plugin = load_plugin(plugin) if ":" in plugin else canonical_name(plugin)
        except ValueError as exc:
            raise ValueError(f"--opponents: {exc}") from None
    records = read_log(path, plugin=plugin is not None)
    if plugin is not None and not any(is_plugin_label(o) for rec in records for o in rec["opponents"]):
        raise ValueError(f"--opponents: {shown(args.opponents)} is not allowed with --replay of {shown(path)}; "
                         "allowed: only for a log whose opponents include a plug-in (the others play as logged)")
    for i, rec in enumerate(records):
        try:  # every game is played once, silently, before any is shown: a log that does not replay shows nothing
            replay(rec, plugin=plugin)
        except PluginError as exc:
            raise ValueError(f"--opponents: {exc}") from None
        except ValueError as exc:
            raise ValueError(f"log: {path} game {i + 1}: {exc}") from None
    for i, raw in enumerate(records):
        rec = check_record(raw, plugin=plugin is not None)
        variant, n, seat = rec["variant"], rec["players"], rec["seat"]
        # what is shown is recomputed from the checked record, never the log's own text
        labels = [shown(args.opponents) if is_plugin_label(o) else o for o in rec["opponents"]]
        names = ["you" if s == seat else f"{o} (seat {s})" if n > 2 else o for s, o in enumerate(labels)]
        term = Terminal(variant, n, seat, names, hint=False, train=args.train, read=read)
        term.replaying = True
        term.write(f"\nReplay of game {i + 1} of {path}: {variant.describe()}, {n} players, seed {rec['seed']}, "
                   f"game {rec['game']}, from {rec['start'].text()}.")
        replay(raw, report=term.report, on_choice=lambda t, k, c, term=term: term.replayed(t, k), plugin=plugin)
    return 0


def main(argv: Sequence[str] | None = None, read: Callable[[str], str] = input) -> int:
    args = build_parser().parse_args(argv)
    read_numbers(args, ("players", "seat", "seed", "game", "games"))
    if args.replay:
        return _replay(args.replay, args, read)
    variant = variant_from_args(args)
    _check(args)
    if args.log:
        _check_log(args.log)
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    start = parse_state(args.state, args.players, me=args.seat, option="--state").check(variant, "--state") \
        if args.state else None
    if 4 <= args.players <= _MAX_EXACT and (args.opponents or "").strip().lower() == "optimal":
        print(f"Solving the {args.players}-player game for the optimal players ({_when(variant, args.players)})...",
              flush=True)
    pols, name = _opponents(args, variant)
    labels = [None if p is None else name if isinstance(name, str) and ":" in name else policy_label(p)
              for p in pols]
    names = ["you" if s == args.seat else f"{labels[s]} (seat {s})" if args.players > 2 else labels[s]
             for s in range(args.players)]
    term = Terminal(variant, args.players, args.seat, names, args.hint, args.train, read=read)
    term.write(f"four21sim play: {variant.describe()}, {args.players} players: you in seat {args.seat} against "
               f"{name}.")
    if (args.hint or args.train) and args.players in term.trainer.exact_players:
        term.write("Solving the game for the hints and costs..." if args.players == 2 else
                   f"Solving the game for the hints and costs ({args.players} players: "
                   f"{_when(variant, args.players)})...")
        term.trainer.solve()
    status = 0
    try:
        return _session(variant, args, term, pols, labels, seed, start, read)
    except PluginError as exc:  # the plug-in the user named failed while deciding: one line naming it
        raise ValueError(f"--opponents: {exc}") from None
    except EOFError:
        term.write("\nInput ended: game abandoned.")
    except _Quit:
        term.write("\nGame abandoned.")
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: the score so far, then the status every command gives
        stopped = isinstance(exc, Terminated)
        term.write(f"\nGame abandoned ({'terminated' if stopped else 'interrupted'}).")
        status = 143 if stopped else 130
    if term.score.games and (args.train or term.score.games > 1):
        term.write(term.score.line() + " (the game abandoned is not counted)")
    return status


def console(argv: Sequence[str] | None = None) -> int:
    return run(main, "play", argv)


if __name__ == "__main__":
    sys.exit(console())
