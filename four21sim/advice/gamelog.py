"""Game logs: a game played with :mod:`four21sim.advice.play`, saved so that it can be replayed.

A log is a text file of JSON lines, one game per line, written by ``four21sim play --log
games.jsonl`` (docs/play.md, Game logs, gives every key). A game is reproduced exactly by
its rules, its seats, its seed and game index (the dice: the engine's stream,
docs/engine.md), where it started, and the keeps the person chose; the log also keeps
what each choice cost (``--train``) and the result, which :func:`replay` checks.

A log is a file people send each other: it is data, never code. :func:`check_record`
checks every key of a game against what it may be before anything is played, and a
replay plays the opponents the log names only if they are the registry's policies: a
plug-in named in a log (``FILE.py:NAME``, ``MODULE:NAME``) is never imported; whoever
replays the game passes the plug-in themselves (``plugin=``, or ``four21sim play
--replay FILE --opponents FILE.py:NAME``).

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
from .._util.atomic import UnsafePath, read_bounded, write_text_atomic
from .._util.checks import check_float, check_int, shown
from ..policies.registry import POLICY_NAMES
from ..rules import dice
from ..rules.state import parse_state
from ..rules.variants import MAX_PLAYERS, MIN_PLAYERS, OPTIONS, Variant
from .play import MAX_GAME, MAX_ROUNDS, Game, GameResult, seat_policies

__all__ = ["FORMAT", "VERSION", "MAX_LOG_BYTES", "game_record", "write_log", "read_log", "check_record",
           "is_plugin_label", "replay"]

FORMAT, VERSION = "four21sim-game", 1
MAX_LOG_BYTES = 64 * 2**20
"""The largest log read (a game is a few kilobytes: tens of thousands of games)."""

_KEYS = ("format", "version", "four21sim", "engine_contract", "variant", "variant_name", "players", "seat",
         "opponents", "seed", "game", "start", "choices", "result")
_CHOICE_KEYS = ("round", "hand", "made", "keep", "index", "cost", "measure")
_CHOICE_OPTIONAL = ("exact",)
_RESULT_KEYS = ("winners", "losers", "tokens", "rounds")
_HANDS = {dice.hand_name(h): h for h in range(dice.N_HANDS)}
_TEXT = 200  # the longest text a log's key may hold (a version, a variant's name, a state, a measure)


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


def _refuse(key: str, value, allowed: str) -> ValueError:
    return ValueError(f"{key}: {shown(value)} is not allowed; allowed: {allowed}")


def _text(key: str, value, allowed: str = "a text") -> str:
    if not isinstance(value, str) or len(value) > _TEXT:
        raise _refuse(key, value, f"{allowed} of at most {_TEXT} characters")
    return value


def _keys(key: str, value, required, optional=()) -> dict:
    """``value`` if it is a dict holding exactly the ``required`` keys (and perhaps the ``optional`` ones)."""
    where = f"{key}: " if key else ""
    if not isinstance(value, dict):
        raise _refuse(key or "game", value, "a JSON object")
    missing = [k for k in required if k not in value]
    if missing:
        raise ValueError(f"{where}{missing[0]}: missing; allowed: a log written by four21sim play --log")
    extra = [k for k in value if k not in required and k not in optional]
    if extra:
        raise ValueError(f"{where}{shown(extra[0])}: an unknown key is not allowed; allowed: "
                         f"{', '.join((*required, *optional))}")
    return value


def is_plugin_label(label) -> bool:
    """Whether an opponent named in a log is a plug-in (``MODULE:NAME``, ``FILE.py:NAME``, a path)."""
    return isinstance(label, str) and (any(c in label for c in (":", "/", "\\")) or label.endswith(".py"))


def _variant(value) -> Variant:
    # short values only: an option's own error repeats the value
    if not isinstance(value, dict) or not all(isinstance(k, str) and k in OPTIONS for k in value) \
            or not all(isinstance(x, bool) or (isinstance(x, int) and abs(x) < 10**6)
                       or (isinstance(x, str) and len(x) <= 40) for x in value.values()):
        raise _refuse("variant", value, f"a JSON object of rule options ({', '.join(OPTIONS)}), docs/rules.md")
    try:
        return Variant.from_mapping(value)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"variant: {exc}") from None


def _seats(key: str, value, players: int) -> list[int]:
    if not isinstance(value, list) or len(value) > players:
        raise _refuse(key, value, f"a list of at most {players} seats")
    seats = [check_int(f"{key}[{i}]", s, 0, players - 1) for i, s in enumerate(value)]
    if len(set(seats)) != len(seats):
        raise _refuse(key, value, "distinct seats")
    return seats


def _opponents(value, players: int, seat: int, plugin: bool) -> list:
    if not isinstance(value, list) or len(value) != players:
        raise _refuse("opponents", value, f"a list of {players} entries, one per seat")
    registered = f"a registered policy ({', '.join(POLICY_NAMES)})"
    for s, o in enumerate(value):
        if s == seat:
            if o is not None:
                raise _refuse(f"opponents[{s}]", o, "null (your seat)")
        elif is_plugin_label(o):
            if not plugin:
                raise ValueError(f"opponents: {shown(o)} is not allowed; allowed: {registered} (a plug-in is never "
                                 "loaded from a log: to replay the game, give the plug-in yourself, four21sim play "
                                 "--replay FILE --opponents FILE.py:NAME)")
        elif o not in POLICY_NAMES:
            raise _refuse(f"opponents[{s}]", o, registered)
    return list(value)


def _choice(j: int, c, variant: Variant) -> dict:
    key = f"choices[{j}]"
    _keys(key, c, _CHOICE_KEYS, _CHOICE_OPTIONAL)
    if c["round"] is not None:
        check_int(f"{key}.round", c["round"], 1, MAX_ROUNDS)
    if not isinstance(c["hand"], str) or c["hand"] not in _HANDS:
        raise _refuse(f"{key}.hand", c["hand"], "a hand of three dice written highest first, e.g. 421")
    hand = _HANDS[c["hand"]]
    most = max(variant.throws("charge"), variant.throws("decharge"))
    check_int(f"{key}.made", c["made"], 1, most - 1, allowed=f"an integer from 1 to {most - 1} (the variant's throws)")
    legal = dice.keeps_of(hand)
    index = check_int(f"{key}.index", c["index"], allowed=f"a keep of {c['hand']}: one of {legal}")
    if index not in legal:
        raise _refuse(f"{key}.index", index, f"a keep of {c['hand']}: one of {legal}")
    name = "stop" if index == dice.FULL_KEEP + hand else dice.keep_name(index)
    if c["keep"] != name:
        raise _refuse(f"{key}.keep", c["keep"], f"{name!r}, the keep of index {index}")
    if c["cost"] is not None:
        check_float(f"{key}.cost", c["cost"], 0.0, 1.0)
    if c["measure"] is not None:
        _text(f"{key}.measure", c["measure"])
    if "exact" in c and not isinstance(c["exact"], bool):
        raise _refuse(f"{key}.exact", c["exact"], "true or false")
    return c


def check_record(record, *, plugin: bool = False) -> dict:
    """A game of a log, every key checked against what it may be (nothing is played).

    Parameters
    ----------
    record : object
        A line of a log, parsed from JSON.
    plugin : bool
        Whether the caller gives a decider for the seats the log gives to a plug-in;
        without it such a log is refused (a plug-in is never loaded from a log).

    Returns
    -------
    dict
        ``record``, with ``"variant"`` parsed into a :class:`Variant` and ``"start"`` into a
        :class:`GameState` (the rest as read).

    Raises
    ------
    ValueError
        Naming the first key that is not what a log of this version holds (one line; a bad
        value shown through :func:`four21sim._util.checks.shown`).
    """
    if not isinstance(record, dict):
        raise _refuse("game", record, "a JSON object")
    form, version = record.get("format"), record.get("version")
    if form != FORMAT or type(version) is not int or version != VERSION:
        raise ValueError(f"format: {shown(form)} version {shown(version)} is not allowed; allowed: a {FORMAT} log "
                         f"of version {VERSION}, written by four21sim play --log")
    _keys("", record, _KEYS)
    if type(record["engine_contract"]) is not int or record["engine_contract"] != E.ENGINE_CONTRACT:
        raise ValueError(f"engine_contract: {shown(record['engine_contract'])} is not allowed (the games a seed "
                         f"plays, docs/engine.md); allowed: {E.ENGINE_CONTRACT}, this four21sim's contract")
    _text("four21sim", record["four21sim"], "a version")
    variant = _variant(record["variant"])
    _text("variant_name", record["variant_name"])  # not read back: what is shown is recomputed from the rules
    n = check_int("players", record["players"], MIN_PLAYERS, MAX_PLAYERS)
    seat = check_int("seat", record["seat"], 0, n - 1)
    _opponents(record["opponents"], n, seat, plugin)
    check_int("seed", record["seed"], 0, 2**64 - 1)
    check_int("game", record["game"], 0, MAX_GAME)
    start = parse_state(_text("start", record["start"], "a state"), n, option="start").check(variant, "start")
    if not isinstance(record["choices"], list):
        raise _refuse("choices", record["choices"], "a list of the person's decisions")
    for j, c in enumerate(record["choices"]):
        _choice(j, c, variant)
    res = _keys("result", record["result"], _RESULT_KEYS)
    _seats("result.winners", res["winners"], n)
    _seats("result.losers", res["losers"], n)
    if not isinstance(res["tokens"], list) or len(res["tokens"]) != n:
        raise _refuse("result.tokens", res["tokens"], f"a list of {n} token counts")
    for s, t in enumerate(res["tokens"]):
        check_int(f"result.tokens[{s}]", t, 0, variant.tokens)
    check_int("result.rounds", res["rounds"], 1, MAX_ROUNDS)
    return {**record, "variant": variant, "start": start}


def read_log(path, *, plugin: bool = False) -> list[dict]:
    """The games of a log as written, each checked by :func:`check_record` (``plugin``: as there).

    Raises ValueError in one line naming the file, the line and the key: ``log: games.jsonl
    line 3: seat: 9 is not allowed; allowed: an integer from 0 to 1``.
    """
    path = Path(path)
    allowed = "a game log written by four21sim play --log"
    try:
        data = read_bounded(path, MAX_LOG_BYTES)
        text = data.decode("utf-8")
    except FileNotFoundError:
        raise ValueError(f"log: {shown(str(path))} is not allowed (no such file); allowed: {allowed}") from None
    except UnsafePath as exc:
        raise ValueError(f"log: {shown(str(path))} is not allowed ({exc}); allowed: {allowed}") from None
    except UnicodeDecodeError:
        raise ValueError(f"log: {shown(str(path))} is not UTF-8 text; allowed: {allowed}") from None
    except OSError as exc:
        raise ValueError(f"log: cannot read {shown(str(path))} ({exc.strerror or exc}); allowed: {allowed}") from None
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"log: {path} line {i}"
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:  # the message gives the position, never the line (which may be huge)
            raise ValueError(f"{where} is not JSON ({exc.msg} at character {exc.pos}); allowed: {allowed} "
                             "(JSON lines)") from None
        except RecursionError:
            raise ValueError(f"{where} is not allowed (JSON nested too deeply); allowed: {allowed}") from None
        except ValueError:  # an integer of more digits than Python converts (sys.get_int_max_str_digits)
            raise ValueError(f"{where} is not allowed (a number too long); allowed: {allowed}") from None
        try:
            check_record(rec, plugin=plugin)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        out.append(rec)
    if not out:
        raise ValueError(f"log: {shown(str(path))} holds no game; allowed: {allowed}")
    return out


def replay(record: dict, report: Callable[[str, dict], None] | None = None,
           on_choice: Callable[[object, int, dict], None] | None = None, *, plugin=None) -> GameResult:
    """Play a logged game again: the same dice, the person's logged keeps, the same opponents.

    Parameters
    ----------
    record : dict
        A game of a log (as :func:`read_log` returns it): checked again by :func:`check_record`.
    report : callable, optional
        ``report(event, data)``, as :class:`four21sim.advice.play.Game` takes it.
    on_choice : callable, optional
        ``on_choice(turn, keep, logged)``, called at each of the person's decisions.
    plugin : optional
        The decider (a plug-in callable, ``MODULE:NAME`` / ``FILE.py:NAME`` given by the
        caller, or a registry name) of the seats the log gives to a plug-in: the log's own
        plug-in names are never loaded.

    Raises
    ------
    ValueError
        If the record is not a game of a log (:func:`check_record`), or the game does not
        follow the log (another rules version, a changed opponent) or does not end as logged.
    """
    rec = check_record(record, plugin=plugin is not None)
    variant, n, seat = rec["variant"], rec["players"], rec["seat"]
    specs = [None if s == seat else plugin if is_plugin_label(o) else o for s, o in enumerate(rec["opponents"])]
    pols = seat_policies(variant, n, seat, specs)
    game = Game(variant, n, rec["seed"], game=rec["game"], report=report, start=rec["start"])
    choices = list(enumerate(rec["choices"]))
    while not game.over:
        t = game.turn
        if pols[t.seat] is not None:
            game.play(game.policy_keep(pols[t.seat]))
            continue
        if not choices:
            raise ValueError("choices: the game asks for more choices than the log holds; allowed: a complete log")
        j, c = choices.pop(0)
        if c["hand"] != dice.hand_name(t.hand) or c["made"] != t.made:
            raise ValueError(f"choices[{j}]: the game shows {dice.hand_name(t.hand)} after {t.made} throw(s) where "
                             f"the log has {c['hand']} after {c['made']}; allowed: a log of this version's games")
        if c["index"] not in dice.keeps_of(t.hand, allow_stop=t.may_stop):
            raise _refuse(f"choices[{j}].index", c["index"], f"a keep of {c['hand']} here: one of "
                          f"{dice.keeps_of(t.hand, allow_stop=t.may_stop)} (a follower under the 'exact' rule may "
                          "not stop)")
        if on_choice is not None:
            on_choice(t, c["index"], c)
        game.play(c["index"])
    res = game.result
    want = rec["result"]
    if choices or [res.winners, res.losers, res.tokens, res.rounds] != [want["winners"], want["losers"],
                                                                        want["tokens"], want["rounds"]]:
        raise ValueError("result: the replayed game does not end as logged; allowed: a log of this version's games")
    return res
