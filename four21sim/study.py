"""Studies: a grid of variants x player counts x policy line-ups, as data and as TOML.

A study file (``experiments/*.toml``) looks like::

    name = "fairness"
    question = "Which preset is fairest, and how much do habits and skill matter?"
    seed = 421
    games = 400000          # games per configuration
    task_games = 100000     # games per task: the unit of work, of parallelism and of resuming
    variants = ["super421", "super421-lebon", "montreal", "classic"]
    players = [2, 3, 4, 6]
    lineups = ["sec", "greedy", "table-aware", "optimal", "one:greedy/sec", "one:optimal/greedy"]
    set = []                # overrides applied to every variant, e.g. ["tokens=21"]

    [[variant]]             # optional: more variants, a preset with overrides
    label = "super421, sec charge"
    preset = "super421"
    set = ["charge_throws=1"]

Line-ups
--------
``POLICY``
    every seat plays POLICY (``sec``, ``chase421``, ``greedy``, ``table-aware``,
    ``random``, ``optimal``); measures seat fairness.
``one:A/B``
    one player on A among players on B, A taking every seat in turn on the same
    games (common random numbers); measures A's edge over B.

Configurations that cannot be played (``optimal`` with other than 2 players) are
skipped and listed as such in the manifest.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .policies import POLICY_NAMES
from .variants import MAX_PLAYERS, MIN_PLAYERS, PRESETS, Variant, parse_overrides

__all__ = ["Study", "Lineup", "Config", "DEFAULT_STUDY", "load_study", "parse_lineup"]

STUDY_KEYS = ("name", "question", "seed", "games", "task_games", "variants", "players", "lineups", "set",
              "variant", "exact")
VARIANT_KEYS = ("label", "preset", "set")


@dataclass(frozen=True)
class Lineup:
    """Who plays what: everyone ``a`` (kind 'all'), or one ``a`` among ``b`` players (kind 'one')."""

    kind: str
    a: str
    b: str | None = None

    @property
    def label(self) -> str:
        return self.a if self.kind == "all" else f"one:{self.a}/{self.b}"

    def playable(self, players: int) -> bool:
        names = [self.a] if self.kind == "all" else [self.a, self.b]
        return "optimal" not in names or players == 2


def _policy_name(text: str, where: str) -> str:
    key = text.strip().lower().replace("_", "-")
    if key not in POLICY_NAMES:
        raise ValueError(f"{where}: unknown policy {text!r}; allowed: {', '.join(POLICY_NAMES)}")
    return key


def parse_lineup(text: str) -> Lineup:
    """``"greedy"`` or ``"one:optimal/greedy"``; ValueError naming the bad part."""
    text = str(text).strip()
    if text.startswith("one:"):
        a, sep, b = text[4:].partition("/")
        if not sep:
            raise ValueError(f"lineups: {text!r} is not allowed; allowed: POLICY or one:SKILLED/HABIT, "
                             "e.g. one:optimal/greedy")
        a, b = _policy_name(a, "lineups"), _policy_name(b, "lineups")
        if a == b:
            raise ValueError(f"lineups: {text!r} pits a policy against itself; use {a!r} instead")
        return Lineup("one", a, b)
    return Lineup("all", _policy_name(text, "lineups"))


@dataclass(frozen=True)
class Config:
    """One cell of a study: a variant, a player count and a line-up."""

    label: str
    variant: Variant
    players: int
    lineup: Lineup

    @property
    def games_factor(self) -> int:
        """Games played per game of the study: a one:A/B line-up plays each game once per seat."""
        return self.players if self.lineup.kind == "one" else 1

    @property
    def key(self) -> str:
        """A short stable name for files: a hash of the configuration."""
        text = json.dumps({"variant": self.variant.options(), "players": self.players,
                           "lineup": self.lineup.label}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Study:
    """A validated study. See the module docstring for the file format."""

    name: str = "default"
    question: str = ""
    seed: int = 421
    games: int = 200_000
    task_games: int = 100_000
    variants: tuple = ("super421", "super421-lebon", "montreal", "classic")
    players: tuple = (2, 3, 4, 6)
    lineups: tuple = ("sec", "greedy", "table-aware", "optimal", "one:greedy/sec", "one:optimal/greedy")
    set: tuple = ()
    variant: tuple = ()
    exact: bool = True
    _variants: tuple = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name or any(c in self.name for c in "/\\") \
                or self.name.startswith("."):
            raise ValueError(f"name: {self.name!r} is not allowed; allowed: a non-empty file-name-like word")
        for key, lo in (("seed", 0), ("games", 1), ("task_games", 1)):
            v = getattr(self, key)
            if isinstance(v, bool) or not isinstance(v, int) or v < lo or (key == "seed" and v >= 2**64):
                raise ValueError(f"{key}: {v!r} is not allowed; allowed: an integer >= {lo}"
                                 + (" and < 2**64" if key == "seed" else ""))
        if not self.players or any(isinstance(p, bool) or not isinstance(p, int) or not MIN_PLAYERS <= p <= MAX_PLAYERS
                                   for p in self.players):
            raise ValueError(f"players: {list(self.players)!r} is not allowed; allowed: integers from "
                             f"{MIN_PLAYERS} to {MAX_PLAYERS}")
        if not self.lineups:
            raise ValueError("lineups: the study has no line-up; allowed: policy names or one:A/B")
        for text in self.lineups:
            parse_lineup(text)
        if not isinstance(self.exact, bool):
            raise ValueError(f"exact: {self.exact!r} is not allowed; allowed: true or false")
        overrides = parse_overrides(list(self.set))
        built = []
        for name in self.variants:
            key = str(name).strip().lower().replace("_", "-")
            if key not in PRESETS:
                raise ValueError(f"variants: unknown preset {name!r}; allowed: {', '.join(PRESETS)} "
                                 "(or a [[variant]] table with preset and set)")
            built.append((key + _suffix(self.set), Variant.from_preset(key, overrides)))
        for spec in self.variant:
            if not isinstance(spec, dict):
                raise ValueError(f"variant: {spec!r} is not allowed; allowed: a table with label, preset, set")
            for k in spec:
                if k not in VARIANT_KEYS:
                    raise ValueError(f"variant: unknown key {k!r}; allowed: {', '.join(VARIANT_KEYS)}")
            preset = spec.get("preset", "super421")
            v = Variant.from_preset(preset, overrides).with_options(list(spec.get("set", [])))
            built.append((str(spec.get("label") or v.describe()), v))
        if not built:
            raise ValueError("variants: the study has no variant; allowed: preset names or [[variant]] tables")
        labels = [b[0] for b in built]
        if len(set(labels)) != len(labels):
            raise ValueError(f"variants: labels must be distinct, got {labels}")
        object.__setattr__(self, "_variants", tuple(built))

    # ------------------------------------------------------------------ use
    @property
    def variant_list(self) -> list[tuple[str, Variant]]:
        """(label, Variant) of every variant of the study."""
        return list(self._variants)

    def configs(self) -> tuple[list[Config], list[dict]]:
        """Playable configurations, and the skipped ones with the reason."""
        out, skipped = [], []
        for label, v in self._variants:
            for n in self.players:
                for text in self.lineups:
                    lu = parse_lineup(text)
                    if lu.playable(n):
                        out.append(Config(label, v, n, lu))
                    else:
                        skipped.append({"variant": label, "players": n, "lineup": lu.label,
                                        "reason": "optimal play is exact for 2 players only"})
        return out, skipped

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("_variants")
        for k in ("variants", "players", "lineups", "set"):
            d[k] = list(d[k])
        d["variant"] = [dict(v) for v in self.variant]
        return d

    def fingerprint(self) -> str:
        """Hash of everything that decides the numbers (not the name or the question)."""
        d = self.to_dict()
        d.pop("name")
        d.pop("question")
        return hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:16]

    def with_changes(self, **changes) -> "Study":
        d = self.to_dict()
        d.update({k: v for k, v in changes.items() if v is not None})
        return study_from_mapping(d)


def _suffix(overrides) -> str:
    return "" if not overrides else " (" + ", ".join(overrides) + ")"


def study_from_mapping(data: dict) -> Study:
    """A Study from a mapping (as read from TOML); unknown keys are refused."""
    for k in data:
        if k not in STUDY_KEYS:
            raise ValueError(f"study: unknown key {k!r}; allowed: {', '.join(STUDY_KEYS)}")
    d = dict(data)
    for k in ("variants", "players", "lineups", "set", "variant"):
        if k in d:
            if isinstance(d[k], (str, int, dict)):
                d[k] = [d[k]]
            d[k] = tuple(d[k])
    return Study(**d)


def load_study(path: str | Path) -> Study:
    """Read and validate a study file."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ValueError(f"--config: {str(path)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"--config: {str(path)!r} cannot be read ({getattr(exc, 'strerror', None) or exc}); "
                         "allowed: a study file in TOML") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"--config: {str(path)!r} is not valid TOML: {exc}") from None
    return study_from_mapping(data)


DEFAULT_STUDY = Study(
    name="default",
    question="Which preset is fairest, how big is the first-player advantage, how much do keep/reroll "
             "habits and skill matter, and how many tokens swing?",
    seed=421, games=2_000_000, task_games=250_000,
)
"""The embedded default study (the same as ``experiments/default.toml``)."""
