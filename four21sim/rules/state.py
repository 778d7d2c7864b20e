"""The state of a game between rounds, written one way for ``advise``, ``solve`` and ``play``.

A state is the pot, every seat's tokens and the seat leading the next round. It is
written as comma-separated fields, named or in order:

named fields (any order)
    ``pot=0,mine=3,theirs=8,leader=me`` (2 players, seen by the player: ``mine`` and
    ``theirs`` are the player's tokens and the opponent's, ``leader`` is ``me`` or
    ``them``); ``pot=5,t0=2,t1=3,t2=1,leader=2`` (any player count: ``tK`` is seat K's
    tokens, ``leader`` a seat number). ``leader`` may be left out.
in order
    ``POT,T0,T1[,T2...][,LEADER]``: the pot, one number per seat in seat order, then
    optionally the leading seat. With 2 players ``POT,MINE,THEIRS`` is the same thing
    (the player is seat 0), so ``11,0,0`` is the start of a Super 421 game and
    ``0,10,11,1`` a classic décharge with seat 1 to lead.

:func:`parse_state` reads the text; :meth:`GameState.check` checks it against a variant
(the tokens add up, the game is not over, the leader is in play); :meth:`GameState.text`
writes the named form back, so that a state printed by one command can be pasted into
another.

    >>> parse_state("pot=0,mine=3,theirs=8,leader=them")
    GameState(pot=0, tokens=(3, 8), leader=1)
    >>> parse_state("11,0,0").text()
    'pot=11,t0=0,t1=0'
"""

from __future__ import annotations

from dataclasses import dataclass

from .._util.checks import shown, typed_int
from . import dice
from .variants import MAX_PLAYERS, MIN_PLAYERS, Variant

__all__ = ["GameState", "Turn", "parse_state", "parse_keep", "STATE_FORMS", "start_state"]

STATE_FORMS = ("named fields pot=P,mine=M,theirs=T[,leader=me|them] (2 players) or pot=P,t0=A,t1=B[,t2=C...]"
               "[,leader=SEAT], or numbers POT,T0,T1[,T2...][,LEADER] in seat order")


@dataclass(frozen=True)
class GameState:
    """The pot, every seat's tokens (seat order) and the seat to lead the next round.

    ``leader`` is None when the text did not say (the caller's default applies).
    """

    pot: int
    tokens: tuple[int, ...]
    leader: int | None = None

    @property
    def players(self) -> int:
        return len(self.tokens)

    @property
    def phase(self) -> str:
        return "charge" if self.pot > 0 else "decharge"

    def with_leader(self, leader: int) -> "GameState":
        """The same tokens with ``leader`` to lead (when the text gave none)."""
        return self if self.leader is not None else GameState(self.pot, self.tokens, int(leader))

    def text(self, me: int | None = None) -> str:
        """The named form; with ``me`` (2 players) seen by that seat: ``pot=0,mine=3,theirs=8,leader=me``."""
        if me is not None and self.players == 2:
            lead = "" if self.leader is None else f",leader={'me' if self.leader == me else 'them'}"
            return f"pot={self.pot},mine={self.tokens[me]},theirs={self.tokens[1 - me]}{lead}"
        seats = ",".join(f"t{s}={t}" for s, t in enumerate(self.tokens))
        return f"pot={self.pot},{seats}" + ("" if self.leader is None else f",leader={self.leader}")

    def in_play(self, variant: Variant) -> list[bool]:
        """Who plays the next round: everyone in the charge; in the décharge those holding tokens."""
        return [self.pot > 0 or t > 0 for t in self.tokens]

    def check(self, variant: Variant, option: str = "state") -> "GameState":
        """This state if it can start a round of ``variant``; ValueError naming ``option`` otherwise."""
        T, n = variant.tokens, self.players
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise ValueError(f"{option}: {n} seats is not allowed; allowed: {MIN_PLAYERS} to {MAX_PLAYERS}")
        if self.pot < 0 or min(self.tokens) < 0 or self.pot + sum(self.tokens) != T:
            raise ValueError(f"{option}: {self.text()} is not allowed; allowed: the pot and the seats' tokens, "
                             f"none negative, adding up to tokens={T}")
        holding = sum(t > 0 for t in self.tokens)
        over = self.pot == 0 and (holding < n if variant.end == "first_out" else holding < 2)
        if over:
            raise ValueError(f"{option}: {self.text()} is not allowed: the game is over there ({variant.end}); "
                             "allowed: a state where a round is still played")
        if self.leader is not None and not (0 <= self.leader < n and self.in_play(variant)[self.leader]):
            raise ValueError(f"{option}: leader {self.leader} is not allowed; allowed: a seat in play, "
                             f"{', '.join(str(s) for s, p in enumerate(self.in_play(variant)) if p)}")
        return self


def start_state(variant: Variant, players: int) -> GameState:
    """The start of a game: every token in the pot, seat 0 to lead."""
    return GameState(variant.tokens, (0,) * players, 0)


def _int(option: str, text: str, raw: str) -> int:
    value = typed_int(raw)  # the one rule for typed numbers: ASCII digits (not "٣", not "1_0")
    if value is None:
        raise ValueError(f"{option}: {shown(text)} is not allowed ({shown(raw.strip())} is not a number "
                         f"in digits 0-9); allowed: {STATE_FORMS}")
    if value < 0:
        raise ValueError(f"{option}: {shown(text)} is not allowed (negative {value}); allowed: {STATE_FORMS}")
    return value


def _named(text: str, fields: list[str], players: int, me: int, option: str) -> GameState:
    got: dict[str, str] = {}
    for f in fields:
        key, sep, raw = f.partition("=")
        key = key.strip().lower()
        if not sep or key in got:
            raise ValueError(f"{option}: {shown(text)} is not allowed ({shown(f.strip())}: "
                             f"{'given twice' if sep else 'no value'}); allowed: {STATE_FORMS}")
        got[key] = raw
    view = {"mine", "theirs"} & set(got)
    seats = {k for k in got if k[:1] == "t" and typed_int(k[1:]) is not None and k[1:].isdigit()}
    unknown = set(got) - view - seats - {"pot", "leader"}
    if unknown or "pot" not in got or (view and seats) or (view and view != {"mine", "theirs"}):
        why = (f"unknown field {shown(sorted(unknown)[0])}" if unknown else "no pot" if "pot" not in got
               else "mine/theirs mixed with seat numbers" if view and seats else "mine and theirs go together")
        raise ValueError(f"{option}: {shown(text)} is not allowed ({why}); allowed: {STATE_FORMS}")
    pot = _int(option, text, got["pot"])
    if view:
        if players != 2:
            raise ValueError(f"{option}: {shown(text)} is not allowed (mine/theirs are for 2 players, not "
                             f"{players}); allowed: pot=P,t0=A,t1=B,...")
        tokens = [0, 0]
        tokens[me], tokens[1 - me] = _int(option, text, got["mine"]), _int(option, text, got["theirs"])
    else:
        if {f"t{s}" for s in range(players)} != seats:
            given = shown(", ".join(sorted(seats))).strip("'\"") if seats else "none"
            raise ValueError(f"{option}: {shown(text)} is not allowed (seats given: {given}); "
                             f"allowed: t0 to t{players - 1}, one per seat")
        tokens = [_int(option, text, got[f"t{s}"]) for s in range(players)]
    leader = None
    if "leader" in got:
        word = got["leader"].strip().lower()
        names = {"me": me, "mine": me, "them": 1 - me, "theirs": 1 - me} if players == 2 else {}
        leader = names[word] if word in names else _int(option, text, word)
    return GameState(pot, tuple(tokens), leader)


def parse_state(text: str, players: int = 2, me: int = 0, option: str = "state") -> GameState:
    """A state written by a person (see the module docstring), not yet checked against a variant.

    Parameters
    ----------
    text : str
    players : int
        The seats at the table.
    me : int
        With 2 players, the seat ``mine``/``me`` stand for (0 unless the caller sits elsewhere).
    option : str
        The name errors give (``--state`` on a command line).
    """
    fields = [f for f in str(text).split(",")]
    if not text or not str(text).strip() or any(not f.strip() for f in fields):
        raise ValueError(f"{option}: {shown(text)} is not allowed; allowed: {STATE_FORMS}")
    if any("=" in f for f in fields):
        return _named(str(text), fields, players, me, option)
    numbers = [_int(option, str(text), f) for f in fields]
    if len(numbers) not in (players + 1, players + 2):
        raise ValueError(f"{option}: {shown(text)} is not allowed ({len(numbers)} numbers for {players} players); "
                         f"allowed: {players + 1} numbers POT,{','.join(f'T{s}' for s in range(players))} "
                         f"or {players + 2} with the leading seat last; or {STATE_FORMS}")
    leader = numbers[players + 1] if len(numbers) == players + 2 else None
    return GameState(numbers[0], tuple(numbers[1:players + 1]), leader)


@dataclass(frozen=True)
class Turn:
    """What a player deciding sees at the table: one decision (which dice to keep).

    Attributes
    ----------
    seat : int
    leading : bool
    hand : int
        The hand held (index into :data:`four21sim.rules.dice.HANDS`).
    made, limit : int
        Throws made, and the most allowed (the leader's limit, or the leader's count).
    may_stop : bool
        Whether keeping all three dice (stopping) is allowed.
    target : int or None
        A follower: the worst hand on the table so far.
    pot : int or None
        Tokens in the pot (None when a decision table ignores the tokens, context mode 0).
    tokens : tuple of int or None
        Every seat's tokens (None as for ``pot``).
    players : int
        Seats at the table.
    order : tuple of int
        This round's playing order (seats), the leader first.
    table : tuple of (seat, hand, throws)
        The final hands of the players who played before in this round, in playing order.
    """

    seat: int
    leading: bool
    hand: int
    made: int
    limit: int
    may_stop: bool
    target: int | None
    pot: int | None
    tokens: tuple | None
    players: int = 2
    order: tuple = ()
    table: tuple = ()

    @property
    def throws_left(self) -> int:
        return self.limit - self.made

    @property
    def phase(self) -> str | None:
        return None if self.pot is None else "charge" if self.pot > 0 else "decharge"

    @property
    def leader(self) -> int | None:
        return self.order[0] if self.order else self.seat if self.leading else None

    def keeps(self) -> list[int]:
        """The legal keeps (indices), stop first when allowed."""
        return dice.keeps_of(self.hand, allow_stop=self.may_stop)

    def state(self) -> GameState:
        """The state of the game this round was played from (tokens before the round)."""
        return GameState(self.pot, tuple(self.tokens), self.leader)


def parse_keep(text: str, hand: int, may_stop: bool = True) -> int:
    """A keep as a person types it, for ``hand``: the dice kept (``"21"``, ``"2 1"``),
    ``"stop"`` (or the whole hand) to stop, ``"-"`` or ``"none"`` to throw all three.

    Raises ValueError naming what is allowed: the dice of the hand, ``stop`` only when
    ``may_stop`` (an ``exact`` follower must throw again: at most two dice kept).
    """
    t = str(text).strip().lower()
    name = dice.hand_name(hand)
    allowed = (f"the dice to keep from {name} (e.g. {name[-1]}), stop, or - for none" if may_stop else
               f"one or two dice to keep from {name} (e.g. {name[-1]}: at least one die goes back), or - for none")
    digits = [c for c in t if c not in " _,-"]
    if t in ("stop", "s", "keep all", "all") or (len(digits) == 3 and sorted(digits) == sorted(name)):
        if not may_stop:
            raise ValueError(f"keep: {shown(text.strip())} is not allowed here (the 'exact' follower rule: "
                             f"throw again); allowed: {allowed}")
        return dice.FULL_KEEP + hand
    if t in ("-", "none", "0", "reroll", "r", "_ _ _"):
        return dice.EMPTY_KEEP
    if not digits or not all(c in "123456" for c in digits) or len(digits) > 3:
        raise ValueError(f"keep: {shown(text.strip())} is not allowed; allowed: {allowed}")
    held = list(dice.HANDS[hand])
    for d in (int(c) for c in digits):
        if d not in held:
            raise ValueError(f"keep: {shown(text.strip())} keeps a {d} you do not hold; allowed: {allowed}")
        held.remove(d)
    return dice.keep_index(int(c) for c in digits)
