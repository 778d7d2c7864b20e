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

from .._util.checks import PATH_CHARS, shown, typed_int
from . import dice

__all__ = ["Variant", "Option", "OPTION_TABLE", "PRESETS", "OPTIONS", "as_variant", "get_preset", "parse_overrides",
           "options_markdown", "MIN_PLAYERS", "MAX_PLAYERS"]

# The player counts the package plays: seats are bits of an int64 mask and 840 = lcm(1..8)
# splits a shared win exactly (docs/engine.md).
MIN_PLAYERS, MAX_PLAYERS = 2, 8

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


@dataclass(frozen=True)
class Option:
    """One rule option: the registry row from which validation, parsing, help texts, the
    options table of docs/rules.md and the rule-space study's changes all derive.

    Attributes
    ----------
    name : str
    kind : {'int', 'choice', 'bool'}
    allowed : tuple
        The choices (``choice``), or ``(low, high)`` inclusive (``int``); empty for ``bool``.
    default : object
        The value a variant has when nothing says otherwise. A new option's default must
        be the behaviour from before the option existed, so that stored results stay valid.
    meaning : str
        One line, as a player would say it.
    explore : tuple
        The values the rule-space study tries.
    aliases : tuple of (str, str)
        Other spellings people use for a choice, mapped to the canonical one.
    """

    name: str
    kind: str
    allowed: tuple
    default: Any
    meaning: str
    explore: tuple
    aliases: tuple = ()

    def allowed_text(self) -> str:
        if self.kind == "choice":
            return ", ".join(self.allowed)
        if self.kind == "int":
            return f"an integer from {self.allowed[0]} to {self.allowed[1]}"
        return "true or false (yes/no, on/off, 1/0)"

    def _refuse(self, raw: Any) -> ValueError:
        return ValueError(f"{self.name}: {shown(raw)} is not allowed; allowed: {self.allowed_text()}")

    def check(self, value: Any) -> None:
        """Raise ValueError unless ``value`` is a valid value of the right type."""
        if self.kind == "choice":
            ok = isinstance(value, str) and value in self.allowed
        elif self.kind == "int":
            ok = (not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, np.integer))
                  and self.allowed[0] <= value <= self.allowed[1])
        else:
            ok = isinstance(value, (bool, np.bool_))
        if not ok:
            raise self._refuse(value)

    def parse(self, raw: Any) -> Any:
        """The value written ``raw`` (text as on a command line, or a typed value), checked."""
        if self.kind == "choice":
            text = str(raw).strip().lower()
            value = dict(self.aliases).get(text, text)
        elif self.kind == "int":
            value = raw
            if isinstance(raw, str):
                value = typed_int(raw)  # the one rule for typed numbers: ASCII digits
                if value is None:
                    raise self._refuse(raw)
            elif isinstance(raw, np.integer):
                value = int(raw)
        elif isinstance(raw, (bool, np.bool_)):
            value = bool(raw)
        else:
            text = str(raw).strip().lower()
            if text not in _TRUE | _FALSE:
                raise self._refuse(raw)
            value = text in _TRUE
        try:
            self.check(value)
        except ValueError:
            raise self._refuse(raw) from None
        return value


OPTION_TABLE: tuple[Option, ...] = (
    Option("tokens", "int", (1, 999), 11, "Tokens in the game, all in the pot at the start.",
           (5, 7, 11, 15, 21, 31)),
    Option("ranking", "choice", dice.RANKINGS, "super421", "Which hand beats which (the order of the 56 hands).",
           dice.RANKINGS),
    Option("values", "choice", dice.VALUE_SCHEMES, "super421", "Tokens each hand is worth.", dice.VALUE_SCHEMES),
    Option("charge_throws", "int", (1, 3), 3, "The leader's throw limit in the charge (1 = \"sec\").", (1, 2, 3)),
    Option("decharge_throws", "int", (1, 3), 3, "The leader's throw limit in the décharge.", (1, 2, 3)),
    Option("followers", "choice", ("exact", "at_most"), "exact",
           "Followers make exactly the leader's count of throws, or may stop earlier (\"le bon\").",
           ("exact", "at_most"), (("at-most", "at_most"), ("lebon", "at_most"), ("le_bon", "at_most"))),
    Option("fewer_throws_wins", "bool", (), False, "Equal hands are split by the throws made, fewer being better.",
           (False, True)),
    Option("cumulative", "choice", ("none", "charge", "decharge", "both"), "none",
           "Phases in which the payout adds every other hand worth 2 or more.",
           ("none", "charge", "decharge", "both"), (("décharge", "decharge"),)),
    Option("nenette_min", "int", (0, 999), 2, "A loser holding 221 takes (or receives) at least this many tokens.",
           (0, 2, 4)),
    Option("nenette_rescue", "bool", (), False,
           "With no combination on the table, 221 beats every other hand and is worth 4.", (False, True)),
    Option("next_leader", "choice", ("loser", "winner", "next_seat"), "loser", "Who leads the next round.",
           ("loser", "winner", "next_seat"), (("next-seat", "next_seat"),)),
    Option("end", "choice", ("first_out", "last_holder"), "first_out",
           "The game ends when the first player is out, or when one player holds every token.",
           ("first_out", "last_holder"), (("first-out", "first_out"), ("last-holder", "last_holder"))),
)
_OPTION = {o.name: o for o in OPTION_TABLE}


def _default(name: str) -> Any:
    return _OPTION[name].default


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

    # The fields follow OPTION_TABLE, which holds their defaults and allowed values.
    tokens: int = _default("tokens")
    ranking: str = _default("ranking")
    values: str = _default("values")
    charge_throws: int = _default("charge_throws")
    decharge_throws: int = _default("decharge_throws")
    followers: str = _default("followers")
    fewer_throws_wins: bool = _default("fewer_throws_wins")
    cumulative: str = _default("cumulative")
    nenette_min: int = _default("nenette_min")
    nenette_rescue: bool = _default("nenette_rescue")
    next_leader: str = _default("next_leader")
    end: str = _default("end")

    def __post_init__(self) -> None:
        for opt in OPTION_TABLE:
            opt.check(getattr(self, opt.name))

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
        raw = str(path_or_text)
        # one line with no "=" and no table header cannot hold an option: it names a file
        is_path = isinstance(path_or_text, Path) or (
            "\n" not in raw and "=" not in raw and not raw.lstrip().startswith(("[", "#")) and raw.strip() != "")
        try:
            text = Path(path_or_text).read_text() if is_path else raw
        except FileNotFoundError:
            raise ValueError(f"variant TOML: the file {shown(raw, PATH_CHARS)} does not exist") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"variant TOML: cannot read {shown(raw, PATH_CHARS)} "
                             f"({getattr(exc, 'strerror', None) or exc})") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"variant TOML: cannot parse: {exc}") from None
        except RecursionError:
            raise ValueError("variant TOML: cannot parse: arrays or tables nested too deeply") from None
        section = data.get("variant", data)
        if not isinstance(section, Mapping):
            raise ValueError(f"variant TOML: 'variant' must be a table of options, not {shown(section)}")
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

    def cumulative_in(self, phase: str) -> bool:
        """Whether the payout is cumulative in ``phase`` ('charge' or 'decharge')."""
        return self.cumulative in (phase, "both")

    def throws(self, phase: str) -> int:
        """The leader's throw limit in ``phase``."""
        return self.charge_throws if phase == "charge" else self.decharge_throws


OPTIONS: tuple[str, ...] = tuple(o.name for o in OPTION_TABLE)
if OPTIONS != tuple(f.name for f in fields(Variant)):  # pragma: no cover - caught at import
    raise ImportError("Variant's fields and OPTION_TABLE name different options")


def _fmt(v: Any) -> str:
    return ("yes" if v else "no") if isinstance(v, bool) else str(v)


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
                raise ValueError(f"--set: {shown(item)} is not allowed; allowed: KEY=VALUE, the keys "
                                 f"{', '.join(OPTIONS)}")
            key, _, raw = item.partition("=")
            items.append((key, raw))
    out: dict[str, Any] = {}
    for key, raw in items:
        name = str(key).strip().replace("-", "_")
        if name not in OPTIONS:
            raise ValueError(f"--set: option {shown(key)} is not allowed; allowed: {', '.join(OPTIONS)}")
        out[name] = _OPTION[name].parse(raw)
    return out


def options_markdown() -> str:
    """The options as a Markdown table (docs/rules.md holds this table; a test keeps them equal)."""
    lines = ["| option | allowed | default | meaning |", "| --- | --- | --- | --- |"]
    for o in OPTION_TABLE:
        allowed = " / ".join(f"`{c}`" for c in o.allowed) if o.kind == "choice" else \
            f"{o.allowed[0]} to {o.allowed[1]}" if o.kind == "int" else "yes / no"
        lines.append(f"| `{o.name}` | {allowed} | `{_fmt(o.default)}` | {o.meaning} |")
    return "\n".join(lines)


PRESETS: dict[str, Variant] = {
    "super421": Variant(),
    "super421-lebon": Variant(followers="at_most"),
    "montreal": Variant(ranking="montreal", charge_throws=1, cumulative="both", nenette_rescue=True),
    "classic": Variant(tokens=21, ranking="classic", values="classic", charge_throws=1, followers="at_most",
                       fewer_throws_wins=True, cumulative="decharge", nenette_min=0, end="last_holder"),
}


def as_variant(variant, overrides=()) -> Variant:
    """A :class:`Variant` from a Variant or a preset name, with ``key=value`` overrides applied.

    The one place where a preset name becomes rules: every public function that takes
    ``variant`` calls this, so ``"super421"`` and ``Variant.from_preset("super421")``
    are the same everywhere.
    """
    if isinstance(variant, Variant):
        return variant.with_options(overrides) if overrides else variant
    if isinstance(variant, str):
        return Variant.from_preset(variant, overrides) if overrides else get_preset(variant)
    raise ValueError(f"variant: {shown(variant)} is not allowed; allowed: a Variant or a preset name "
                     f"({', '.join(PRESETS)})")


def get_preset(name: str) -> Variant:
    """The preset called ``name`` (ValueError listing the presets if unknown)."""
    key = str(name).strip().lower().replace("_", "-")
    if key not in PRESETS:
        raise ValueError(f"variant: unknown preset {shown(name)}; allowed: {', '.join(PRESETS)}")
    return PRESETS[key]
