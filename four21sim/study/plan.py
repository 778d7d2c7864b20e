"""A study resolved once into a plan: what the run, the executors, the tables and the report read.

:func:`make_plan` turns a validated :class:`~four21sim.study.spec.Study` into a frozen
:class:`Plan`, once, before anything is written: its configurations (and the ones it
drops, with the policy registry's reason), its tasks, its fingerprint, every policy it
plays (the cheap ones built here, once, to check them; the costly ones checked without
building) and the solutions to warm before the games. Everything below reads the plan;
nothing goes back up to the study to recompute it.

The attributes of :class:`Plan` are a stable interface (the tables and the report may
read them): ``study``, ``fingerprint``, ``configs``, ``skipped``, ``tasks``,
``policies``, ``solutions``, ``games_total``, ``games_to_play``, ``seed``,
``max_rounds``; and the methods :meth:`Plan.played` and :meth:`Plan.identity`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .spec import Config, Study
from .tasks import PartIdentity, Task, make_tasks, part_identity

__all__ = ["Plan", "make_plan", "study_policies"]


@dataclass(frozen=True)
class Plan:
    """A study resolved: read by the run, the executors, the tables and the report.

    Attributes
    ----------
    study : Study
        The study it was made from.
    fingerprint : str
        ``study.fingerprint()``: what every part file and ``study.json`` record.
    configs : tuple of Config
        The configurations played, in the study's order (variant, players, line-up).
    skipped : tuple of dict
        The configurations dropped where a policy is not defined: ``variant``,
        ``players``, ``lineup``, ``reason`` (the policy registry's words).
    tasks : tuple of Task
        Every task of every configuration, configuration-major.
    policies : tuple of (Variant, int, str)
        Every distinct (variant, players, policy name) played.
    solutions : tuple of (Variant, int, str)
        The costly ones among them (a solve): warmed before the games, side by side.
    games_total : int
        Games of the study (configurations x games).
    games_to_play : int
        Games played, counting every seat rotation of a ``one:A/B`` line-up.
    """

    study: Study
    fingerprint: str
    configs: tuple[Config, ...]
    skipped: tuple[dict, ...]
    tasks: tuple[Task, ...]
    policies: tuple[tuple, ...]
    solutions: tuple[tuple, ...]
    games_total: int
    games_to_play: int

    @property
    def seed(self) -> int:
        return self.study.seed

    @property
    def max_rounds(self) -> int:
        return self.study.max_rounds

    def config(self, task: Task) -> Config:
        """The configuration a task plays."""
        return self.configs[task.config]

    def played(self, task: Task) -> int:
        """Games a task plays (every seat rotation of a one:A/B line-up counted)."""
        return task.games * self.configs[task.config].games_factor

    def identity(self, task: Task) -> PartIdentity:
        """The identity the part file of ``task`` must carry."""
        return part_identity(self, self.configs[task.config], task)

    def solutions_for(self, tasks) -> list[tuple]:
        """The costly policies the given tasks need (those to warm before playing them)."""
        used = {t.config for t in tasks}
        needed = set(study_policies([c for i, c in enumerate(self.configs) if i in used]))
        return [s for s in self.solutions if s in needed]


def study_policies(configs) -> list[tuple]:
    """Every distinct (variant, players, policy name) the configurations play, in order."""
    seen: dict = {}
    for c in configs:
        for name in [c.lineup.a] if c.lineup.kind == "all" else [c.lineup.a, c.lineup.b]:
            seen.setdefault((c.variant, c.players, name), None)
    return list(seen)


def make_plan(study: Study) -> Plan:
    """Resolve ``study`` once: configurations, tasks, policies (checked here, each once).

    Raises
    ------
    ValueError
        No configuration can be played, a study that refuses undefined configurations
        (``undefined = "error"``) has one, or a policy cannot be built.
    """
    from ..policies import check_available, resolve_policies
    configs, skipped = study.configs()
    if skipped and study.undefined == "error":
        s = skipped[0]
        raise ValueError(f"lineups: {s['lineup']} at {s['players']} players ({s['variant']}): {s['reason']}; "
                         f"allowed with undefined = \"error\": line-ups defined at every player count of the study "
                         f"({len(skipped)} configuration(s) are not)")
    if not configs:
        reasons = sorted({s["reason"] for s in skipped})
        raise ValueError("--lineups/--players: no playable configuration ("
                         + "; ".join(reasons) + ")")
    policies = study_policies(configs)
    solutions = []
    for variant, players, name in policies:
        if check_available(name, variant, players).costly:
            solutions.append((variant, players, name))  # built (solved) by whoever plays it
        else:
            resolve_policies(variant, players, [name] * players)
    tasks = make_tasks(len(configs), study.games, study.task_games)
    return Plan(study=study, fingerprint=study.fingerprint(), configs=tuple(configs), skipped=tuple(skipped),
                tasks=tuple(tasks), policies=tuple(policies), solutions=tuple(solutions),
                games_total=len(configs) * study.games,
                games_to_play=sum(c.games_factor for c in configs) * study.games)
