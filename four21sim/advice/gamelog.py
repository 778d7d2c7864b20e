"""Game logs: a game played with :mod:`four21sim.advice.play`, saved so that it can be replayed.

A log is a text file of JSON lines, one game per line, written by ``four21sim play --log
games.jsonl`` (docs/play.md, Game logs, gives every key). A game is reproduced exactly by
its rules, its seats, its seed and game index (the dice: the engine's stream,
docs/engine.md), where it started, and the keeps the person chose; the log also keeps
what each choice cost (``--train``) and the result, which :func:`replay` checks.

    {"format": "four21sim-game", "version": 1, "variant": {...}, "players": 2, "seat": 0,
     "opponents": [null, "optimal"], "seed": 7, "game": 0, "start": "pot=11,t0=0,t1=0,leader=0",
     "choices": [{"round": 1, "hand": "631", "made": 1, "keep": "61", "index": 17, "cost": 0.0,
                  "measure": "P(win the game)"}, ...],
     "result": {"winners": [0], "losers": [1], "tokens": [0, 11], "rounds": 9}, ...}
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from .. import __version__
from .. import engine as E
from .._util.atomic import write_text_atomic
from ..rules import dice
from ..rules.state import parse_state
from ..rules.variants import Variant
from .play import Game, GameResult, seat_policies

__all__ = ["FORMAT", "VERSION", "game_record", "write_log", "read_log", "replay"]

FORMAT, VERSION = "four21sim-game", 1


def game_record(game: Game, seat: int, opponents: list, choices: list[dict]) -> dict:
    """The log entry of a finished game (``opponents``: one label per seat, None for the person)."""
    if not game.over:
        raise ValueError("game: not over; allowed: a finished game")
    r = game.result
    return {"format": FORMAT, "version": VERSION, "four21sim": __version__, "engine_contract": E.ENGINE_CONTRACT,
            "variant": game.variant.options(), "variant_name": game.variant.describe(), "players": game.players,
            "seat": seat, "opponents": list(opponents), "seed": game.seed, "game": game.game,
            "start": game.start.text(), "choices": list(choices),
            "result": {"winners": r.winners, "losers": r.losers, "tokens": r.tokens, "rounds": r.rounds}}


def write_log(path, records: list[dict]) -> None:
    """Write the games as JSON lines, atomically (a log is never half-written)."""
    write_text_atomic(Path(path), "".join(json.dumps(r) + "\n" for r in records))


def read_log(path) -> list[dict]:
    """The games of a log, checked: ValueError naming the file and the line otherwise."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"log: {str(path)!r} is not allowed; allowed: a game log written by four21sim play --log")
    out = []
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            raise ValueError(f"log: {path} line {i} is not JSON; allowed: a game log (JSON lines)") from None
        if not isinstance(rec, dict) or rec.get("format") != FORMAT or rec.get("version") != VERSION:
            raise ValueError(f"log: {path} line {i} is not a {FORMAT} log of version {VERSION}; allowed: a log "
                             "written by four21sim play --log")
        if rec.get("engine_contract") != E.ENGINE_CONTRACT:
            raise ValueError(f"log: {path} line {i} was played under engine contract {rec.get('engine_contract')}, "
                             f"this four21sim plays contract {E.ENGINE_CONTRACT}; allowed: a log of this contract")
        out.append(rec)
    if not out:
        raise ValueError(f"log: {path} holds no game; allowed: a game log written by four21sim play --log")
    return out


def replay(record: dict, report: Callable[[str, dict], None] | None = None,
           on_choice: Callable[[object, int, dict], None] | None = None) -> GameResult:
    """Play a logged game again: the same dice, the person's logged keeps, the same opponents.

    ``on_choice(turn, keep, logged)`` is called at each of the person's decisions. Raises
    ValueError if the game does not follow the log (another rules version, a changed
    opponent) or does not end as logged.
    """
    variant = Variant.from_mapping(record["variant"])
    n, seat = int(record["players"]), int(record["seat"])
    pols = seat_policies(variant, n, seat, [o if o is not None else "sec" for o in record["opponents"]])
    game = Game(variant, n, int(record["seed"]), game=int(record["game"]), report=report,
                start=parse_state(record["start"], n).check(variant, "start"))
    choices = list(record["choices"])
    while not game.over:
        t = game.turn
        if pols[t.seat] is not None:
            game.play(game.policy_keep(pols[t.seat]))
            continue
        if not choices:
            raise ValueError("log: the game asks for more choices than the log holds; allowed: a complete log")
        c = choices.pop(0)
        if c["hand"] != dice.hand_name(t.hand) or int(c["made"]) != t.made:
            raise ValueError(f"log: the game shows {dice.hand_name(t.hand)} after {t.made} throw(s) where the log "
                             f"has {c['hand']} after {c['made']}; allowed: a log of this version's games")
        if on_choice is not None:
            on_choice(t, int(c["index"]), c)
        game.play(int(c["index"]))
    res = game.result
    want = record["result"]
    if choices or [res.winners, res.losers, res.tokens, res.rounds] != [want["winners"], want["losers"],
                                                                        want["tokens"], want["rounds"]]:
        raise ValueError("log: the replayed game does not end as logged; allowed: a log of this version's games")
    return res
