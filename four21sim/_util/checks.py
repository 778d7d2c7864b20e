"""Checks of arguments, written once: every error names the argument, the bad value and
what is allowed (``"games: 0 is not allowed; allowed: an integer >= 1"``)."""

from __future__ import annotations

import math
import numbers
import re

__all__ = ["check_int", "check_seed", "check_float", "check_choice", "shown", "typed_int", "parse_int"]

SHOWN_CHARS = 60
"""The longest bad value an error message repeats: a million-digit hand or a 50 MB line pasted
by mistake gives one readable line, not the paste again."""

PATH_CHARS = 240
"""The longest file name an error message repeats: a real path is shown whole, a paste is not."""


def shown(value, limit: int = SHOWN_CHARS) -> str:
    """``repr(value)`` for an error message: control characters escaped (``repr`` of a string
    does that, so an ANSI escape in a file is shown, never obeyed), cut to ``limit`` characters
    with the full length said."""
    try:
        text = repr(value)
    except Exception:  # a value whose repr fails is still named by its type
        text = f"<{type(value).__name__}>"
    if len(text) <= limit:
        return text
    return f"{text[:limit - 1]}… ({len(text):,} characters)"


_TYPED_INT = re.compile(r"[+-]?[0-9]+")
"""A number a person types: ASCII digits with an optional sign. Python's ``int`` also takes
other scripts' digits (``"٣"``) and underscores (``"1_0"``); a person typing a count, a seat or
a pot means neither, and each command must read the same text the same way."""


def typed_int(text) -> int | None:
    """The integer ``text`` writes by the one rule for typed numbers (ASCII digits, an optional
    sign, surrounding spaces ignored), or None if it writes none (or has more digits than
    Python converts, 4,300: no range checked after this reaches that far)."""
    if not isinstance(text, str):
        return None
    t = text.strip()
    if not _TYPED_INT.fullmatch(t):
        return None
    try:
        return int(t)
    except ValueError:  # over sys.get_int_max_str_digits()
        return None


def parse_int(name: str, text, lo: int | None = None, hi: int | None = None, allowed: str | None = None) -> int:
    """The integer a person typed for ``name`` (see :func:`typed_int`), in ``[lo, hi]``.

    Parameters
    ----------
    name : str
        What the error names (``"--count"``).
    text : str
        The text typed.
    lo, hi : int, optional
        The allowed range (inclusive).
    allowed : str, optional
        What the error says is allowed (default: the range).

    Raises
    ------
    ValueError
        ``"name: <text> is not allowed; allowed: ..."``, the text shortened by :func:`shown`.
    """
    value = typed_int(text)
    if value is None or (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ValueError(f"{name}: {shown(text)} is not allowed; allowed: "
                         f"{allowed or _allowed_range(lo, hi, 'an integer in digits 0-9')}")
    return value


def _allowed_range(lo, hi, what: str) -> str:
    if lo is not None and hi is not None:
        return f"{what} from {lo} to {hi}"
    if lo is not None:
        return f"{what} >= {lo}"
    if hi is not None:
        return f"{what} <= {hi}"
    return what


def check_int(name: str, value, lo: int | None = None, hi: int | None = None, allowed: str | None = None) -> int:
    """``value`` as an int if it is an integer (not a bool) in ``[lo, hi]``; ValueError otherwise.

    ``allowed``: what the message says is allowed (default: the range).
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) \
            or (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ValueError(f"{name}: {shown(value)} is not allowed; allowed: "
                         f"{allowed or _allowed_range(lo, hi, 'an integer')}")
    return int(value)


def check_seed(value, name: str = "seed") -> int:
    """A seed: an integer from 0 to 2**64 - 1 (the engine's streams are keyed by 64 bits), the one
    range :func:`four21sim.simulate` and the environments take; ValueError otherwise
    (-1, 2**64 or 1.5 is a mistake, not a seed to wrap or truncate)."""
    return check_int(name, value, 0, 2**64 - 1)


def check_float(name: str, value, lo: float | None = None, hi: float | None = None, *,
                lo_open: bool = False) -> float:
    """``value`` as a float if it is a finite real number (not a bool) in range; ValueError otherwise.

    ``lo_open``: ``value`` must be strictly above ``lo``.
    """
    ok = not isinstance(value, bool) and isinstance(value, numbers.Real) and math.isfinite(value)
    if ok and lo is not None:
        ok = value > lo if lo_open else value >= lo
    if ok and hi is not None:
        ok = value <= hi
    if not ok:
        what = "a finite number" + (f" > {lo}" if lo_open and lo is not None else "")
        rng = _allowed_range(None if lo_open else lo, hi, what)
        raise ValueError(f"{name}: {shown(value)} is not allowed; allowed: {rng}")
    return float(value)


def check_choice(name: str, value, allowed) -> str:
    """``value`` if it is one of ``allowed``; ValueError listing them otherwise."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name}: {shown(value)} is not allowed; allowed: {', '.join(allowed)}")
    return value
