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
    max_rounds = 100000     # a game still running after this many rounds is a runaway

    [lineup_players]        # optional: a line-up played at some of the player counts only
    "optimal" = [2]         # (the others: at every player count of the study)

    [[variant]]             # optional: more variants, a preset with overrides
    label = "super421, sec charge"
    preset = "super421"
    set = ["charge_throws=1"]

Line-ups
--------
``POLICY``
    every seat plays POLICY (a name of the policy registry,
    :data:`four21sim.policies.POLICY_NAMES`); measures seat fairness.
``one:A/B``
    one player on A among players on B, A taking every seat in turn on the same
    games (common random numbers); measures A's edge over B.

Configurations where a policy is not defined (the policy registry says where:
:attr:`~four21sim.policies.PolicySpec.why_not`, e.g. ``optimal`` at player counts or
token counts its exact solver does not take) are dropped and listed, with the
registry's reason, under ``skipped`` in the manifest. The key ``undefined`` says how:
``"warn"`` (the default) names each one in a warning; ``"skip"`` drops them quietly,
for a study that means "each line-up where it is defined" (the default study does);
``"error"`` refuses the study instead.

Bounds
------
A study is checked whole before any game is played: a player count or a line-up
given twice is refused, and so is a study larger than a 2-core, 24 GiB machine
can hold or finish: at most ``MAX_CONFIGURATIONS`` configurations, ``MAX_GAMES``
games per configuration and ``MAX_TASKS`` tasks (part files) in all. Games that
run past ``max_rounds`` rounds are runaways: counted and reported, never played on
and never mixed into the measures.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .._util.checks import check_int
from ..policies import POLICY_NAMES, REGISTRY
from ..rules.variants import MAX_PLAYERS, MIN_PLAYERS, OPTION_TABLE, PRESETS, Variant, parse_overrides

__all__ = ["Study", "Lineup", "Config", "DEFAULT_STUDY", "load_study", "parse_lineup", "MAX_CONFIGURATIONS",
           "MAX_GAMES", "MAX_TASKS", "MAX_ROUNDS"]

STUDY_KEYS = ("name", "question", "seed", "games", "task_games", "variants", "players", "lineups", "set",
              "variant", "exact", "max_rounds", "undefined", "lineup_players")
UNDEFINED = ("warn", "skip", "error")
"""What a study does with a configuration where one of its policies is not defined (see the module
docstring): drop it with a warning, drop it quietly (listed in the manifest), or refuse the study."""
# Keys that never change a number: left out of the fingerprint.
_NOT_NUMBERS = ("name", "question", "undefined")
# Keys added after studies were first stored: they enter the fingerprint only when they differ
# from their default, so that the results of every earlier study keep their fingerprint.
_LATER_KEYS = {"max_rounds": 100_000, "lineup_players": {}}

MAX_CONFIGURATIONS = 2_000
"""Configurations per study: their tables (some 2,000 rows each) stay far below the memory."""
MAX_GAMES = 10**10
"""Games per configuration: about an hour per configuration on 2 cores, and the integer
counters (sums of squares included) stay far from overflowing 64 bits."""
MAX_TASKS = 100_000
"""Tasks per study, each a part file of some 20 KB: at most about 2 GB of parts."""
MAX_ROUNDS = 1_000_000
"""The largest round limit: a runaway game costs up to this many rounds of work."""
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

    def why_not(self, variant: Variant, players: int) -> str | None:
        """Why this line-up cannot be played (None when it can): the policy registry's reason."""
        spec = {p.name: p for p in REGISTRY}
        for name in [self.a] if self.kind == "all" else [self.a, self.b]:
            why = spec[name].why_not(variant, players)
            if why:
                return why
        return None


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
        """A short stable name for files: a hash of the configuration.

        Only the variant options that differ from their defaults enter the hash, in a
        canonical form (sorted option names, JSON values): adding a new variant option
        with a default leaves every existing key, and so every stored part, unchanged.
        """
        defaults = {o.name: o.default for o in OPTION_TABLE}
        changed = {k: v for k, v in self.variant.options().items() if k not in defaults or v != defaults[k]}
        text = json.dumps({"variant": changed, "players": self.players, "lineup": self.lineup.label},
                          sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Study:
    """A validated study. See the module docstring for the file format."""

    name: str = "default"
    question: str = ""
    seed: int = 421
    games: int = 200_000
    task_games: int = 100_000
    variants: tuple = tuple(PRESETS)  # every preset, in the registry's order
    players: tuple = (2, 3, 4, 6)
    lineups: tuple = ("sec", "greedy", "table-aware", "optimal", "one:greedy/sec", "one:optimal/greedy")
    set: tuple = ()
    variant: tuple = ()
    exact: bool = True
    max_rounds: int = _LATER_KEYS["max_rounds"]
    undefined: str = "warn"
    lineup_players: dict = field(default_factory=dict, hash=False)
    _variants: tuple = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name or any(c in self.name for c in "/\\") \
                or self.name.startswith(".") or not self.name.isprintable() or len(self.name) > 100:
            raise ValueError(f"name: {self.name!r} is not allowed; allowed: a non-empty file-name-like word "
                             "(printable, no / or \\, not starting with a dot, at most 100 characters)")
        if not isinstance(self.question, str):
            raise ValueError(f"question: {self.question!r} is not allowed; allowed: a text")
        if self.undefined not in UNDEFINED:
            raise ValueError(f"undefined: {self.undefined!r} is not allowed; allowed: {', '.join(UNDEFINED)}")
        for key, lo, hi in (("seed", 0, 2**64 - 1), ("games", 1, MAX_GAMES), ("task_games", 1, MAX_GAMES),
                            ("max_rounds", 1, MAX_ROUNDS)):
            check_int(key, getattr(self, key), lo, hi, f"an integer from {lo} to {hi:,}")
        for key in ("players", "lineups", "variants", "variant", "set"):
            if not isinstance(getattr(self, key), (tuple, list)):
                raise ValueError(f"{key}: {getattr(self, key)!r} is not allowed; allowed: a list")
        # each value, then the size of the whole: "2 is given twice" says more than a count
        bad = [p for p in self.players if isinstance(p, bool) or not isinstance(p, int)
               or not MIN_PLAYERS <= p <= MAX_PLAYERS]
        if not self.players or bad:
            raise ValueError(f"players: {(bad or [list(self.players)])[0]!r} is not allowed; allowed: integers "
                             f"from {MIN_PLAYERS} to {MAX_PLAYERS}")
        _refuse_duplicates("players", list(self.players))
        n_configs = (len(self.variants) + len(self.variant)) * len(self.players) * len(self.lineups)
        if n_configs > MAX_CONFIGURATIONS:
            raise ValueError(f"study: {len(self.variants) + len(self.variant)} variants x {len(self.players)} player "
                             f"counts x {len(self.lineups)} line-ups = {n_configs:,} configurations; allowed: at "
                             f"most {MAX_CONFIGURATIONS:,}")
        n_tasks = n_configs * -(-self.games // self.task_games)
        if n_tasks > MAX_TASKS:
            raise ValueError(f"task_games: {self.task_games!r} cuts {n_configs:,} configurations of "
                             f"{self.games:,} games into {n_tasks:,} tasks; allowed: at most {MAX_TASKS:,} tasks "
                             f"(raise task_games to at least {-(-self.games * n_configs // MAX_TASKS):,})")
        if not self.lineups:
            raise ValueError("lineups: the study has no line-up; allowed: policy names or one:A/B")
        _refuse_duplicates("lineups", [parse_lineup(text).label for text in self.lineups])
        object.__setattr__(self, "lineup_players", self._checked_lineup_players())
        if not isinstance(self.exact, bool):
            raise ValueError(f"exact: {self.exact!r} is not allowed; allowed: true or false")
        overrides = parse_overrides(_texts("set", self.set))
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
            if not isinstance(preset, str):
                raise ValueError(f"variant: preset {preset!r} is not allowed; allowed: {', '.join(PRESETS)}")
            label = spec.get("label")
            if label is not None and not isinstance(label, str):
                raise ValueError(f"variant: label {label!r} is not allowed; allowed: a text")
            v = Variant.from_preset(preset, overrides).with_options(_texts("variant: set", spec.get("set", [])))
            built.append((str(label or v.describe()), v))
        if not built:
            raise ValueError("variants: the study has no variant; allowed: preset names or [[variant]] tables")
        labels = [b[0] for b in built]
        if len(set(labels)) != len(labels):
            raise ValueError(f"variants: labels must be distinct, got {labels}")
        object.__setattr__(self, "_variants", tuple(built))

    def _checked_lineup_players(self) -> dict:
        """``lineup_players`` as {line-up label: sorted player counts}, or ValueError naming the entry."""
        given = self.lineup_players
        if not isinstance(given, dict):
            raise ValueError(f"lineup_players: {given!r} is not allowed; allowed: a table of line-up = "
                             "[player counts], e.g. {\"optimal\" = [2]}")
        labels = [parse_lineup(text).label for text in self.lineups]
        out = {}
        for text, counts in given.items():
            try:
                label = parse_lineup(str(text)).label
            except ValueError:
                label = None
            if label not in labels:
                raise ValueError(f"lineup_players: {text!r} is not a line-up of the study; allowed: "
                                 f"{', '.join(labels)}")
            counts = [counts] if isinstance(counts, int) else counts
            bad = [c for c in counts if isinstance(c, bool) or not isinstance(c, int) or c not in self.players] \
                if isinstance(counts, (list, tuple)) else [counts]
            if bad or not counts:
                raise ValueError(f"lineup_players: {text!r} = {bad[0] if bad else counts!r} is not allowed; "
                                 f"allowed: a list of the study's player counts ({', '.join(map(str, self.players))})")
            out[label] = sorted(set(counts))
        return out

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
                    if n not in self.lineup_players.get(lu.label, [n]):
                        continue  # not asked for: neither played nor skipped
                    why = lu.why_not(v, n)
                    if why is None:
                        out.append(Config(label, v, n, lu))
                    else:
                        skipped.append({"variant": label, "players": n, "lineup": lu.label, "reason": why})
        return out, skipped

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("_variants")
        for k in ("variants", "players", "lineups", "set"):
            d[k] = list(d[k])
        d["variant"] = [dict(v) for v in self.variant]
        d["lineup_players"] = {k: list(v) for k, v in self.lineup_players.items()}
        return d

    def fingerprint(self) -> str:
        """Hash of everything that decides the numbers (not the name or the question).

        Keys added to studies later (``max_rounds``) count only when they differ from
        their default, so a study written before they existed keeps its fingerprint.
        """
        d = self.to_dict()
        for key in _NOT_NUMBERS:
            d.pop(key)
        for key, default in _LATER_KEYS.items():
            if d[key] == default:
                del d[key]
        return hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:16]

    def with_changes(self, **changes) -> "Study":
        """The study with some keys replaced; a new grid (players or lineups) drops ``lineup_players``
        unless it is given too: the grid asked for is then played whole."""
        d = self.to_dict()
        if (changes.get("players") is not None or changes.get("lineups") is not None) \
                and changes.get("lineup_players") is None:
            d["lineup_players"] = {}
        d.update({k: v for k, v in changes.items() if v is not None})
        return study_from_mapping(d)


def _texts(option: str, value) -> list[str]:
    """A list of texts (``set = ["tokens=21"]``), or ValueError naming the option."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(x, str) for x in items):
        raise ValueError(f"{option}: {value!r} is not allowed; allowed: a list of \"KEY=VALUE\" texts, "
                         "e.g. [\"tokens=21\"]")
    return list(items)


def _refuse_duplicates(option: str, items: list) -> None:
    seen = set()
    for item in items:
        if item in seen:
            raise ValueError(f"{option}: {item!r} is given twice; allowed: each once")
        seen.add(item)


def _suffix(overrides) -> str:
    return "" if not overrides else " (" + ", ".join(overrides) + ")"


def study_from_mapping(data: dict) -> Study:
    """A Study from a mapping (as read from TOML); unknown keys are refused. Every mistake is
    reported at once: the unknown keys, and each key's own error (each key checked alone), in one
    message; then the checks that read several keys together (the study's size)."""
    if not isinstance(data, dict):
        raise ValueError(f"study: {type(data).__name__} is not allowed; allowed: a table of study keys")
    errors = [f"study: unknown key {k!r}; allowed: {', '.join(STUDY_KEYS)}" for k in data if k not in STUDY_KEYS]
    d = {k: v for k, v in data.items() if k in STUDY_KEYS}
    for k in ("variants", "players", "lineups", "set", "variant"):
        if k in d:
            if isinstance(d[k], (str, int, dict)):
                d[k] = [d[k]]
            d[k] = tuple(d[k]) if isinstance(d[k], (list, tuple)) else d[k]
    # each key alone among the smallest others, so that no check across keys (sizes) fires
    alone = dict(games=1, task_games=1, players=(2,), lineups=("sec",), variants=("super421",), variant=())
    for k, v in d.items():
        if k == "lineup_players":
            continue  # it reads the study's lineups and players: checked with the whole study
        try:
            Study(**{**alone, k: v})
        except ValueError as exc:
            if str(exc).startswith(f"{k}:"):  # its own mistake
                errors.append(str(exc))
    if errors:
        raise ValueError(errors[0] if len(errors) == 1 else f"{len(errors)} mistakes: " + "; ".join(errors))
    return Study(**d)


MAX_STUDY_BYTES = 1 << 20
"""The largest study file read (a study is a few hundred bytes)."""


def load_study(path: str | Path) -> Study:
    """Read and validate a study file (a regular file of at most ``MAX_STUDY_BYTES``)."""
    from .._util.atomic import UnsafePath, read_bounded
    where = f"--config: {str(path)!r}"
    try:
        data = tomllib.loads(read_bounded(path, MAX_STUDY_BYTES).decode("utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{where} does not exist") from None
    except UnsafePath as exc:
        raise ValueError(f"{where} {exc}; allowed: a study file in TOML") from None
    except ValueError as exc:  # a NUL in the name, bytes that are not UTF-8, TOML that does not parse
        if isinstance(exc, tomllib.TOMLDecodeError):
            raise ValueError(f"{where} is not valid TOML: {exc}") from None
        raise ValueError(f"{where} cannot be read ({exc}); allowed: a study file in TOML (UTF-8)") from None
    except OSError as exc:
        raise ValueError(f"{where} cannot be read ({getattr(exc, 'strerror', None) or exc}); "
                         "allowed: a study file in TOML") from None
    except RecursionError:
        raise ValueError(f"{where} nests arrays or tables too deeply; allowed: a study file "
                         "in TOML (see experiments/default.toml)") from None
    return study_from_mapping(data)


DEFAULT_STUDY = Study(
    name="default",
    question="Which preset is fairest, how big is the first-player advantage, how much do keep/reroll "
             "habits and skill matter, and how many tokens swing?",
    seed=421, games=500_000, task_games=125_000,
    lineup_players={"optimal": [2], "one:optimal/greedy": [2]},
)
"""The embedded default study (the same as ``experiments/default.toml``): every preset of the
registry (:data:`~four21sim.rules.variants.PRESETS`), the habits at 2, 3, 4 and 6 players, and
optimal play at 2 players, where its exact solution takes a second: the main job runs in about two
minutes on a 2-core machine. Optimal play at 3 players and more is in the committed studies
(``experiments/optimal_check.toml``), which the report links."""
