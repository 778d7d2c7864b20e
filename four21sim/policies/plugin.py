"""Plugged-in policies: a Python function deciding a keep from what the player sees.

A plug-in policy is any callable ``policy(turn) -> keep`` (a function, or an object with
``__call__``) taking a :class:`four21sim.rules.state.Turn` and returning the keep: a keep
index (``dice.FULL_KEEP + turn.hand`` to stop) or the text a person would type (``"21"``,
``"stop"``, ``"-"``). It can play:

- in ``four21sim play`` (``--opponents FILE.py:NAME`` or ``module:NAME``) and in
  :func:`four21sim.advice.play.play_game`, which call it at every decision, seeing the
  whole table (every field of the Turn);
- in :func:`four21sim.analysis.tournament.tournament`, in :func:`four21sim.engine.simulate`
  and in :func:`four21sim.policies.evaluate` (exact, 2 players) once :func:`tabulate` has
  called it for every situation a decision table holds and stored its answers as a
  table :class:`~four21sim.policies.Policy`. A table sees less than the game: in context
  mode 1 (2 players) the pot and the tokens; in context mode 0 (chosen by default for a
  policy that never reads them) neither (``pot`` and ``tokens`` are None); in both the
  order and the hands of the round only through the ``target`` (``table`` is empty). A
  policy that answers differently to the same situation (randomness, or the seat it sits
  in) cannot be tabulated: :func:`tabulate` calls it from both seats' points of view and
  refuses it, naming the situation.

A plug-in named by a user (``MODULE:NAME``, ``FILE.py:NAME``: :func:`load_plugin`) is
code of theirs, run as they asked, but its failures are theirs to read in one line, not
the package's traceback: an exception (a SyntaxError included) or a ``SystemExit`` while
it loads or decides is :class:`PluginError` naming the plug-in and the error, and in a
game (``four21sim play``, :class:`four21sim.advice.play.Game`, the environments) a
decision that takes longer than :data:`DECISION_SECONDS` is stopped the same way (on
the main thread, where the platform has ``signal.setitimer``; the limit is checked
between Python steps, so a plug-in stuck inside one long C call is stopped when it
returns). A game log never names a plug-in that is then loaded
(:mod:`four21sim.advice.gamelog`).

    >>> rank = dice.RANK[dice.ranking_index("super421")]
    >>> def cautious(turn):          # stop on 654 or better, else throw all three again
    ...     return "stop" if turn.may_stop and rank[turn.hand] <= rank[dice.parse_hand("654")] else "-"
"""

from __future__ import annotations

import importlib
import importlib.util
import signal
import threading
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from .._util.checks import shown
from ..rules import dice
from ..rules.state import Turn, parse_keep
from ..rules.variants import Variant
from . import contexts as C
from .tables import KEEP_DTYPE, Policy, stop_tables, table_policy

__all__ = ["is_plugin", "plugin_name", "plugin_keep", "load_plugin", "tabulate", "LoadedPlugin", "PluginError",
           "DECISION_SECONDS", "time_limit"]

DECISION_SECONDS = 10.0
"""The longest a plug-in loaded by :func:`load_plugin` may take over one decision of a game
(docs/environment.md): a person at the terminal is not left waiting on a plug-in that loops."""

_NH = dice.N_HANDS


def is_plugin(obj) -> bool:
    """Whether ``obj`` is a plug-in policy (a callable that is not a name or a compiled Policy)."""
    return callable(obj) and not isinstance(obj, (str, Policy, type))


def plugin_name(policy) -> str:
    """The name a plug-in policy is shown under: its ``name`` attribute, else its function or class name."""
    name = getattr(policy, "name", None) or getattr(policy, "__name__", None) or type(policy).__name__
    return str(name)


# the legal keeps of each hand, with and without stopping: the check of every answer
_LEGAL = {(h, stop): frozenset(dice.keeps_of(h, allow_stop=stop)) for h in range(_NH) for stop in (True, False)}


class PluginError(ValueError):
    """A plug-in that raised, exited (``SystemExit``) or ran out of time: the message names it and the error."""


class _OutOfTime(BaseException):
    # not an Exception: a plug-in's own ``except Exception`` does not swallow it
    pass


@contextmanager
def time_limit(seconds: float | None, what: str):
    """Stop the code run inside after ``seconds`` with :class:`PluginError` naming ``what``.

    No limit when ``seconds`` is None, off the main thread, or where ``signal.setitimer`` is
    missing (the signal can only be handled on the main thread). A previous timer and handler
    are put back afterwards.
    """
    if seconds is None or not hasattr(signal, "setitimer") \
            or threading.current_thread() is not threading.main_thread():
        yield
        return
    state = {"armed": True, "fired": False}

    def expire(signum, frame):
        if state["armed"]:  # never once the body is over: the timer is being taken down
            state["fired"] = True
            raise _OutOfTime

    old = signal.signal(signal.SIGALRM, expire)
    # an interval too: a plug-in that catches the first one is interrupted again
    before, _ = signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)
    try:
        yield
    except _OutOfTime:
        pass
    finally:
        state["armed"] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        if before:
            signal.setitimer(signal.ITIMER_REAL, before)
    if state["fired"]:
        raise PluginError(f"{what} took longer than {seconds:g} s over one decision; allowed: a decision "
                          f"within {seconds:g} s (four21sim.policies.plugin.DECISION_SECONDS)")


def _raised(what: str, exc: BaseException) -> PluginError:
    return PluginError(f"{what} raised {type(exc).__name__}: {shown(str(exc))}")


class LoadedPlugin:
    """A plug-in policy loaded from what a user typed (:func:`load_plugin`).

    Called like the policy it wraps; an exception or ``SystemExit`` from it becomes
    :class:`PluginError` naming ``spec``. ``name`` is the policy's (:func:`plugin_name`).
    """

    def __init__(self, policy: Callable, spec: str):
        self.policy, self.spec, self.name = policy, spec, plugin_name(policy)

    def __call__(self, turn):
        try:
            return self.policy(turn)
        except (Exception, SystemExit) as exc:
            raise _raised(shown(self.spec), exc) from None

    def __repr__(self) -> str:
        return f"LoadedPlugin({self.spec!r})"


def plugin_keep(policy: Callable, turn: Turn, seconds: float | None = None) -> int:
    """The keep index ``policy`` chooses at ``turn``, checked: ValueError naming the policy, the
    situation and the legal keeps when it returns something else.

    ``seconds``: stop a decision that takes longer (:func:`time_limit`), as a game does for a
    :class:`LoadedPlugin`.
    """
    with time_limit(seconds, shown(policy.spec) if isinstance(policy, LoadedPlugin) else
                    f"policy {plugin_name(policy)!r}"):
        answer = policy(turn)
    if isinstance(answer, (int, np.integer)) and not isinstance(answer, bool) \
            and int(answer) in _LEGAL[turn.hand, turn.may_stop]:
        return int(answer)
    where = (f"{'leader' if turn.leading else 'follower'} holding {dice.hand_name(turn.hand)} after "
             f"{turn.made} of {turn.limit} throws")
    legal = turn.keeps()
    allowed = ", ".join(dice.keep_label(turn.hand, k).replace("_ _ _", "-") for k in legal)
    if isinstance(answer, str):
        try:
            return parse_keep(answer, turn.hand, turn.may_stop)
        except ValueError as exc:
            raise ValueError(f"policy {plugin_name(policy)!r}: {shown(answer)} is not allowed for a {where}; "
                             f"allowed: {allowed} ({exc})") from None
    raise ValueError(f"policy {plugin_name(policy)!r}: {shown(answer)} is not allowed for a {where}; allowed: a "
                     f"keep index of {legal} ({allowed}) or the text a person types ('21', 'stop', '-')")


def load_plugin(spec: str) -> LoadedPlugin:
    """The policy named ``spec``: ``package.module:NAME`` or ``path/to/file.py:NAME``.

    ``NAME`` is a callable taking a Turn; a class is instantiated without arguments. The
    module's code runs: ``spec`` must come from the user (a command line, a caller's code),
    never from a file (a game log names plug-ins it never loads).

    Raises
    ------
    ValueError
        For a spec of another form, a file or module missing, or no callable ``NAME``;
        :class:`PluginError` if the module or the class raised (or exited) while loading.
    """
    where, sep, attr = str(spec).rpartition(":")
    allowed = "MODULE:NAME or FILE.py:NAME naming a function (or class) that takes a Turn and returns a keep"
    if not sep or not where or not attr:
        raise ValueError(f"policy: {shown(spec)} is not allowed; allowed: {allowed}")
    if where.endswith(".py") and not Path(where).is_file():
        raise ValueError(f"policy: {shown(spec)}: no file {shown(where)}; allowed: {allowed}")
    try:
        if where.endswith(".py"):
            path = Path(where)
            loader = importlib.util.spec_from_file_location(f"four21sim_plugin_{path.stem}", path)
            module = importlib.util.module_from_spec(loader)
            loader.loader.exec_module(module)
        else:
            module = importlib.import_module(where)
        obj = getattr(module, attr, None)
        if isinstance(obj, type):
            obj = obj()
    except ModuleNotFoundError as exc:
        raise ValueError(f"policy: {shown(spec)}: cannot import {shown(where)} ({exc}); allowed: {allowed}") \
            from None
    except (Exception, SystemExit) as exc:  # its own code failed: a SyntaxError, an exception, an exit
        raise _raised(shown(spec), exc) from None
    if not is_plugin(obj):
        raise ValueError(f"policy: {shown(spec)}: {shown(where)} has no callable {shown(attr)}; allowed: {allowed}")
    return LoadedPlugin(obj, str(spec))


def _ask(policy, turns: list[Turn]) -> int:
    """The one answer ``policy`` gives to views of the same situation; ValueError if they differ."""
    keeps = [plugin_keep(policy, t) for t in turns]
    if len(set(keeps)) > 1:
        t = turns[0]
        raise ValueError(f"policy {plugin_name(policy)!r} is not allowed in a table: it answered "
                         f"{', '.join(dice.keep_label(t.hand, k) for k in keeps)} to the same situation "
                         f"({'leader' if t.leading else 'follower'} holding {dice.hand_name(t.hand)} after {t.made} "
                         f"of {t.limit} throws, pot {t.pot}, tokens {t.tokens}, seen from seats 0 and 1); allowed: "
                         "a deterministic policy of what a decision table holds (docs/environment.md)")
    return keeps[0]


def _rows(variant: Variant, ctx_mode: int) -> list[tuple]:
    """``(row, pot, own, other)`` of every context the tables hold (None for the tokens in mode 0)."""
    if ctx_mode == C.CTX_NONE:
        return [(0, None, None, None)]
    T = variant.tokens
    return [(pot * (T + 1) + own, pot, own, T - pot - own) for pot in range(T + 1) for own in range(T + 1 - pot)
            if pot > 0 or (own > 0 and T - own > 0)]


def _limits(variant: Variant, pot) -> list[int]:
    phases = ("charge", "decharge") if pot is None else ("charge" if pot else "decharge",)
    return sorted({variant.throws(p) for p in phases if variant.throws(p) > 1})


class _Probe(Turn):
    """A Turn that notes whether the policy read the token state (``pot``, ``tokens``)."""

    read: set = set()

    def __getattribute__(self, name):
        if name in ("pot", "tokens"):
            _Probe.read.add(name)
        return object.__getattribute__(self, name)


def _turn(cls, **fields) -> Turn:
    # a frozen dataclass's __init__ sets each field through object.__setattr__: filling its
    # __dict__ at once is what makes calling a policy a million times take seconds, not a minute
    t = object.__new__(cls)
    t.__dict__.update(fields)
    return t


def _views(players: int, pot, own, other, leading: bool, target_row, cls=Turn, **kw) -> list[Turn]:
    """The situation seen from seat 0 and from seat 1 (the player holds ``own``, the other ``other``)."""
    out = []
    for s in (0, 1):
        tokens = None if own is None else ((own, other) if s == 0 else (other, own))
        order = () if own is None else ((s, 1 - s) if leading else (1 - s, s))
        table = () if own is None or target_row is None else ((1 - s, *target_row),)
        out.append(_turn(cls, seat=s, leading=leading, pot=pot, tokens=tokens, players=players, order=order,
                         table=table, **kw))
    return out


def _fill_row(policy, variant: Variant, players: int, lead, foll, row: int, pot, own, other, cls=Turn) -> None:
    may_follow_stop = variant.followers == "at_most"
    seen: dict = {}
    for L in _limits(variant, pot):
        for made in range(1, L):
            for h in range(_NH):
                k = _ask(policy, _views(players, pot, own, other, True, None, cls, hand=h, made=made, limit=L,
                                        may_stop=True, target=None))
                if seen.setdefault((L - made, h), k) != k:  # mode 0 holds throws left, not the phase's limit
                    raise ValueError(f"policy {plugin_name(policy)!r}: its leader's keep depends on the phase's "
                                     "throw limit, which context mode 0 does not hold; allowed: context mode 1")
                lead[row, L - made - 1, h] = k
        for c in range(2, L + 1):
            for made in range(1, c):
                for tgt in range(_NH):
                    for h in range(_NH):
                        foll[row, tgt, c - 1, made - 1, h] = _ask(policy, _views(
                            players, pot, own, other, False, (tgt, c), cls, hand=h, made=made, limit=c,
                            may_stop=may_follow_stop, target=tgt))


def _reads_tokens(policy, variant: Variant, players: int) -> bool:
    """Whether ``policy`` reads ``pot`` or ``tokens`` in any situation of a context-mode-0 table."""
    lead, foll = stop_tables(1)
    _Probe.read = set()
    try:
        _fill_row(policy, variant, players, lead, foll, 0, None, None, None, cls=_Probe)
    except (TypeError, AttributeError, ValueError):
        if _Probe.read:  # it failed on the None it read: it needs the tokens
            return True
        raise
    return bool(_Probe.read)


def tabulate(policy: Callable, variant: Variant, players: int = 2, ctx_mode: int | None = None,
             name: str | None = None) -> Policy:
    """A plug-in policy as decision tables: called for every situation the tables hold.

    Parameters
    ----------
    policy : callable
        ``policy(turn) -> keep`` (see the module docstring).
    variant : Variant
    players : int
        The table's players; context mode 1 needs 2.
    ctx_mode : {0, 1}, optional
        0: decisions that ignore the tokens (``turn.pot`` and ``turn.tokens`` are None), any
        player count; 1: by the pot and the player's tokens (2 players). Default: 0 when the
        policy never reads ``pot`` or ``tokens`` (it is first asked every situation of
        mode 0 with a turn that notes what is read), else 1 (2 players; with more, a policy
        that reads them is refused: a table for 3 players or more cannot hold them).
    name : str, optional
        The policy's name (default: :func:`plugin_name`).

    Returns
    -------
    Policy
        A table policy, ready for :func:`four21sim.policies.evaluate` and ``simulate``.

    Raises
    ------
    ValueError
        If the policy returns an illegal keep, or two answers to one situation.
    """
    if not is_plugin(policy):
        raise ValueError(f"policy: {policy!r} is not allowed; allowed: a callable taking a Turn")
    if ctx_mode not in (None, C.CTX_NONE, C.CTX_TOKENS) or (ctx_mode == C.CTX_TOKENS and players != 2):
        raise ValueError(f"ctx_mode: {ctx_mode!r} is not allowed with {players} players; allowed: 0, or 1 with "
                         "2 players")
    mode = ctx_mode
    if mode is None:
        mode = C.CTX_TOKENS if _reads_tokens(policy, variant, players) else C.CTX_NONE
        if mode == C.CTX_TOKENS and players != 2:
            raise ValueError(f"policy {plugin_name(policy)!r} reads the pot or the tokens, which a decision table "
                             f"for {players} players cannot hold; allowed: a policy of the hands and throws "
                             "(or play it decision by decision: four21sim.advice.play)")
    rows = _rows(variant, mode)
    lead, foll = stop_tables(1 if mode == C.CTX_NONE else (variant.tokens + 1) ** 2)
    foll[...] = dice.EMPTY_KEEP  # entries no game reaches: re-throw all, legal under both follower rules
    for row, pot, own, other in rows:
        _fill_row(policy, variant, players, lead, foll, row, pot, own, other)
    return table_policy(name or plugin_name(policy), variant, lead.astype(KEEP_DTYPE), foll.astype(KEEP_DTYPE),
                        mode, 2 if mode == C.CTX_TOKENS else None, {"plugin": plugin_name(policy)})
