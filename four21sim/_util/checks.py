"""Checks of arguments, written once: every error names the argument, the bad value and
what is allowed (``"games: 0 is not allowed; allowed: an integer >= 1"``)."""

from __future__ import annotations

import math
import numbers

__all__ = ["check_int", "check_float", "check_choice", "shown"]

SHOWN_CHARS = 60
"""The longest bad value an error message repeats: a million-digit hand or a 50 MB line pasted
by mistake gives one readable line, not the paste again."""


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
