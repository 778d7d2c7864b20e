"""Rule variants of 421: the options of docs/rules.md, the four presets, overrides and TOML.

A :class:`Variant` is frozen and validated on construction, so every variant that
exists is playable. Build one from a preset with overrides written as a command
line takes them; :meth:`Variant.describe` names the nearest preset and what differs::

    >>> v = Variant.from_preset("super421", ["tokens=21", "followers=at_most"])
    >>> v.describe()
    'super421-lebon with tokens=21'
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from . import dice

__all__ = ["Variant", "PRESETS", "OPTIONS", "get_preset", "parse_overrides"]

_CHOICES: dict[str, tuple[str, ...]] = {
    "ranking": dice.RANKINGS,
    "values": dice.VALUE_SCHEMES,
    "followers": ("exact", "at_most"),
    "cumulative": ("none", "charge", "decharge", "both"),
    "next_leader": ("loser", "winner", "next_seat"),
    "end": ("first_out", "last_holder"),
}
_INT_RANGES: dict[str, tuple[int, int]] = {
    "tokens": (1, 999),
    "charge_throws": (1, 3),
    "decharge_throws": (1, 3),
    "nenette_min": (0, 999),
}
_BOOLS = ("fewer_throws_wins", "nenette_rescue")
_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}
# Spellings people use for choice values, mapped to the canonical one.
_ALIASES = {"décharge": "decharge", "at-most": "at_most", "lebon": "at_most", "le_bon": "at_most",
            "next-seat": "next_seat", "first-out": "first_out", "last-holder": "last_holder"}


@dataclass(frozen=True)
class Variant:
    """One complete set of 421 rules (see docs/rules.md for the meaning of each option).

    Parameters
    ----------
    tokens : int
        Tokens in the game, all in the pot at the start (1..999).
    ranking : {'super421', 'montreal', 'classic'}
        Order of the 56 hands.
    values : {'super421', 'classic'}
        Tokens each hand is worth.
    charge_throws, decharge_throws : int
        The leader's throw limit in each phase (1 = "sec", up to 3).
    followers : {'exact', 'at_most'}
        Followers make exactly the leader's count of throws, or may stop earlier ("le bon").
    fewer_throws_wins : bool
        Equal hands are split by the number of throws, fewer being better.
    cumulative : {'none', 'charge', 'decharge', 'both'}
        Phases in which the payout adds every other hand worth 2 or more.
    nenette_min : int
        A loser holding 221 takes (or receives) at least this many tokens.
    nenette_rescue : bool
        With no combination on the table, 221 ranks above every other hand and is worth 4.
    next_leader : {'loser', 'winner', 'next_seat'}
        Who leads the next round.
    end : {'first_out', 'last_holder'}
        The game ends when the first player is out, or when one player holds every token.
    """

    tokens: int = 11
    ranking: str = "super421"
    values: str = "super421"
    charge_throws: int = 3
    decharge_throws: int = 3
    followers: str = "exact"
    fewer_throws_wins: bool = False
    cumulative: str = "none"
    nenette_min: int = 2
    nenette_rescue: bool = False
    next_leader: str = "loser"
    end: str = "first_out"

    def __post_init__(self) -> None:
        for name in OPTIONS:
            value = getattr(self, name)
            if name in _CHOICES:
                if not isinstance(value, str) or value not in _CHOICES[name]:
                    raise ValueError(f"{name}: {value!r} is not allowed; allowed: {', '.join(_CHOICES[name])}")
            elif name in _INT_RANGES:
                lo, hi = _INT_RANGES[name]
                if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
                    raise ValueError(f"{name}: {value!r} is not allowed; allowed: an integer from {lo} to {hi}")
            elif not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"{name}: {value!r} is not allowed; allowed: true or false")

    # ------------------------------------------------------------ construction
    @classmethod
    def from_preset(cls, preset: str = "super421", overrides: Iterable[str] | Mapping[str, Any] = ()) -> "Variant":
        """A preset with overrides (``["tokens=21"]`` or ``{"tokens": 21}``)."""
        return get_preset(preset).with_options(overrides)

    def with_options(self, overrides: Iterable[str] | Mapping[str, Any] = ()) -> "Variant":
        """This variant with some options changed; strings are parsed as on a command line."""
        return dataclasses.replace(self, **parse_overrides(overrides))

    @classmethod
    def from_toml(cls, path_or_text: str | Path) -> "Variant":
        """Read a variant written by :meth:`to_toml`, or a ``preset = ...`` plus overrides.

        ``path_or_text`` is a path (a ``Path``, or a one-line string naming an
        existing file) or the TOML text itself. The options may stand at the top
        level or under a ``[variant]`` table.
        """
        is_path = isinstance(path_or_text, Path) or (
            "\n" not in str(path_or_text) and "=" not in str(path_or_text) and Path(str(path_or_text)).is_file())
        try:
            text = Path(path_or_text).read_text() if is_path else str(path_or_text)
        except OSError as exc:
            raise ValueError(f"variant TOML: cannot read {str(path_or_text)!r} ({exc.strerror or exc})") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"variant TOML: cannot parse: {exc}") from None
        section = data.get("variant", data)
        if not isinstance(section, Mapping):
            raise ValueError(f"variant TOML: 'variant' must be a table of options, not {section!r}")
        return cls.from_mapping(section)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> "Variant":
        """A variant from a mapping of options, with an optional ``preset`` key to start from."""
        data = dict(data)
        preset = data.pop("preset", "super421")
        return cls.from_preset(preset, data)

    def to_toml(self) -> str:
        """The variant as a ``[variant]`` TOML table with every option spelled out."""
        lines = ["[variant]"]
        for name, value in self.options().items():
            if isinstance(value, bool):
                text = "true" if value else "false"
            elif isinstance(value, str):
                text = f'"{value}"'
            else:
                text = str(int(value))
            lines.append(f"{name} = {text}")
        return "\n".join(lines) + "\n"

    # ------------------------------------------------------------ description
    def options(self) -> dict[str, Any]:
        """Every option, in the order of docs/rules.md."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def nearest_preset(self) -> tuple[str, dict[str, Any]]:
        """The preset differing from this variant in the fewest options, and those options."""
        best = None
        for name, preset in PRESETS.items():
            diff = {k: v for k, v in self.options().items() if getattr(preset, k) != v}
            if best is None or len(diff) < len(best[1]):
                best = (name, diff)
        return best

    def describe(self) -> str:
        """One line: the nearest preset and what differs from it."""
        name, diff = self.nearest_preset()
        if not diff:
            return name
        return f"{name} with " + ", ".join(f"{k}={_fmt(v)}" for k, v in diff.items())

    def table(self) -> str:
        """A two-column text table of every option."""
        width = max(len(n) for n in OPTIONS)
        return "\n".join(f"{n:<{width}}  {_fmt(v)}" for n, v in self.options().items())

    def __str__(self) -> str:
        return self.describe()

    # ------------------------------------------------------------ for kernels
    @property
    def ranking_index(self) -> int:
        return dice.RANKINGS.index(self.ranking)

    @property
    def values_index(self) -> int:
        return dice.VALUE_SCHEMES.index(self.values)

    @property
    def next_leader_index(self) -> int:
        """0 loser, 1 winner, 2 next seat (the kernels' and solver's code)."""
        return _CHOICES["next_leader"].index(self.next_leader)

    def cumulative_in(self, phase: str) -> bool:
        """Whether the payout is cumulative in ``phase`` ('charge' or 'decharge')."""
        return self.cumulative in (phase, "both")

    def throws(self, phase: str) -> int:
        """The leader's throw limit in ``phase``."""
        return self.charge_throws if phase == "charge" else self.decharge_throws


OPTIONS: tuple[str, ...] = tuple(f.name for f in fields(Variant))


def _fmt(v: Any) -> str:
    return ("yes" if v else "no") if isinstance(v, bool) else str(v)


def _parse_value(name: str, raw: Any) -> Any:
    if name in _CHOICES:
        text = str(raw).strip().lower()
        text = _ALIASES.get(text, text)
        if text not in _CHOICES[name]:
            raise ValueError(f"{name}: {raw!r} is not allowed; allowed: {', '.join(_CHOICES[name])}")
        return text
    if name in _INT_RANGES:
        lo, hi = _INT_RANGES[name]
        if isinstance(raw, bool):
            value = None
        elif isinstance(raw, (int, np.integer)):
            value = int(raw)
        else:
            try:
                value = int(str(raw).strip())
            except ValueError:
                value = None
        if value is None or not lo <= value <= hi:
            raise ValueError(f"{name}: {raw!r} is not allowed; allowed: an integer from {lo} to {hi}")
        return value
    if isinstance(raw, (bool, np.bool_)):
        return bool(raw)
    text = str(raw).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"{name}: {raw!r} is not allowed; allowed: true or false (yes/no, on/off, 1/0)")


def parse_overrides(overrides: Iterable[str] | Mapping[str, Any]) -> dict[str, Any]:
    """Parse ``key=value`` strings (or a mapping) into validated option values.

    Keys may use ``-`` or ``_``. Raises ValueError naming the option, the bad
    value and what is allowed.
    """
    if isinstance(overrides, Mapping):
        items = list(overrides.items())
    else:
        if isinstance(overrides, str):
            overrides = [overrides]
        items = []
        for item in overrides:
            if not isinstance(item, str) or "=" not in item:
                raise ValueError(f"--set: {item!r} is not of the form key=value; keys: {', '.join(OPTIONS)}")
            key, _, raw = item.partition("=")
            items.append((key, raw))
    out: dict[str, Any] = {}
    for key, raw in items:
        name = str(key).strip().replace("-", "_")
        if name not in OPTIONS:
            raise ValueError(f"option {key!r} does not exist; allowed: {', '.join(OPTIONS)}")
        out[name] = _parse_value(name, raw)
    return out


PRESETS: dict[str, Variant] = {
    "super421": Variant(),
    "super421-lebon": Variant(followers="at_most"),
    "montreal": Variant(ranking="montreal", charge_throws=1, cumulative="both", nenette_rescue=True),
    "classic": Variant(tokens=21, ranking="classic", values="classic", charge_throws=1, followers="at_most",
                       fewer_throws_wins=True, cumulative="decharge", nenette_min=0, end="last_holder"),
}


def get_preset(name: str) -> Variant:
    """The preset called ``name`` (ValueError listing the presets if unknown)."""
    key = str(name).strip().lower().replace("_", "-")
    if key not in PRESETS:
        raise ValueError(f"variant: unknown preset {name!r}; allowed: {', '.join(PRESETS)}")
    return PRESETS[key]
