"""A long n-player solve's checkpoints and progress (:class:`_Run`), and its measures.

After each finished pass (a décharge pass, a charge group, a certificate pass or group) the
solve's loop state is checkpointed (:mod:`four21sim.exact.checkpoint`), so that a killed solve
resumes from its last finished pass and ends with the same arrays, bit for bit; the progress
display shows the phase, the pass, the residual and an estimate of what remains."""

from __future__ import annotations

import math
import time
from functools import partial

from .._util.checks import shown
from . import _nplayer_game as NG
from .checkpoint import Checkpoint


def _peak_mib() -> float:
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


_STAGES = ("decharge", "charge", "certificate", "certificate-charge")
"""The loops of a solve, in order, after each pass of which its state is checkpointed."""


_PHASES = {"contexts": "contexts", "decharge": "décharge profile", "charge": "charge",
           "certificate": "certificate décharge", "certificate-charge": "certificate charge"}
"""How the progress display names each phase."""


_TYPICAL = 10
"""The passes an iteration usually takes at most (5 to 10: docs/nplayer.md), for the progress's estimate."""


def _checkpoint_shapes(game: NG.Game, max_iter: int, meta: dict) -> dict:
    """The arrays (name -> shape) a checkpoint of ``game``'s solve holds in the stage its ``meta`` says;
    ValueError (why) for metadata no solve of this game writes."""
    def count(name, lo, hi):
        x = meta.get(name)
        if type(x) is not int or not lo <= x <= hi:
            raise ValueError(f"its {name} is {shown(x)}, not a count from {lo} to {hi}")
        return x

    def number(name):
        x = meta.get(name)
        if type(x) is not float and type(x) is not int or not math.isfinite(x) or x < 0:
            raise ValueError(f"its {name} is {shown(x)}, not a finite number >= 0")

    S, n, B, P, G = game.size, game.n, len(game.decharge()), game.P, len(game.charge_groups())
    stage = meta.get("stage")
    if stage == "decharge":
        step = count("step", 1, max_iter)
        count("best_it", 1, step)
        number("best_residual")
        return {"V_dech": (B, n), "best_V": (B, n), "best_dist": (B, n, n, P), "seen": (step, B, n, n, P)}
    if stage not in _STAGES:
        raise ValueError(f"its stage is {shown(stage)}, not one of {', '.join(_STAGES)}")
    count("it", 0, max_iter)
    number("residual")
    if not isinstance(meta.get("converged"), bool):
        raise ValueError(f"its converged is {shown(meta.get('converged'))}, not true or false")
    shapes = {"V": (S, n), "basis": (S, n), "dist": (S, n, n, P)}
    if stage == "charge":
        count("step", 0, G)
        return shapes
    if stage == "certificate":
        count("step", 1, max_iter)
    else:
        count("step", 0, G)
        count("br_it", 0, max_iter)
    return dict(shapes, W=(S, n))


class _Run:
    """One solve's checkpoints and progress display, handed down its loops.

    - Checkpoints (:mod:`four21sim.exact.checkpoint`), with a ``key`` (the disk-cache entry's):
      after each finished pass (a décharge pass, a charge group, a certificate pass or group)
      every piece of the loop state that decides the later passes is saved, so that a killed
      solve resumes from its last finished pass (:meth:`open` reads the checkpoint, checked
      against the game) and ends with the same arrays, bit for bit.
    - Progress (``display``, a :class:`four21sim._util.waiting.Progress`): the phase, the pass,
      the residual and an estimate of what remains of the phase, after each pass.

    ``_Run()`` (no key, nothing shown) does neither: a solve called directly.
    """

    def __init__(self, label: str = "", key: str | None = None, display=None, tol: float = 0.0,
                 resume: bool = True, certify: bool = True) -> None:
        self.label, self.display, self.tol, self.resume, self.certify = label, display, tol, resume, certify
        self.ckpt = None if key is None else Checkpoint(key)
        self.state = None  # (stage, meta, arrays) of the checkpoint resumed from
        self.resumed: str | None = None  # "stage step" resumed from
        self.profile: tuple[dict, dict] = ({}, {})  # the profile's meta and arrays, in every later checkpoint
        self.phase, self.t_last, self.times, self.residuals = "", time.monotonic(), [], []

    def open(self, game: NG.Game, max_iter: int) -> None:
        """Read this solve's checkpoint, if any, checked against ``game`` (a bad one: refused, with a notice)."""
        if self.ckpt is None or not self.resume:
            return
        got = self.ckpt.load(partial(_checkpoint_shapes, game, max_iter))
        if got is not None:
            meta, arrays = got
            self.state = (meta["stage"], meta, arrays)
            self.resumed = f"{meta['stage']} {meta['step']}"

    def at(self, stage: str):
        """(meta, arrays) of the checkpoint resumed from if it was taken in ``stage``, else None."""
        return self.state[1:] if self.state is not None and self.state[0] == stage else None

    def reached(self, stage: str) -> bool:
        """Whether the checkpoint resumed from was taken in ``stage`` or a later one."""
        return self.state is not None and _STAGES.index(self.state[0]) >= _STAGES.index(stage)

    def save(self, stage: str, step: int, meta: dict | None = None, arrays: dict | None = None) -> None:
        """Checkpoint the state after pass ``step`` of ``stage`` (after the décharge, with the profile's)."""
        if self.ckpt is None:
            return
        if stage != "decharge":
            meta, arrays = {**self.profile[0], **(meta or {})}, {**self.profile[1], **(arrays or {})}
        self.ckpt.save(stage, step, meta or {}, arrays or {})

    def begin(self, phase: str) -> None:
        """A phase starts (its passes are timed from here)."""
        self.phase, self.t_last, self.times, self.residuals = phase, time.monotonic(), [], []
        self._show(f"{_PHASES[phase]}, started")

    def passed(self, phase: str, step: int, *, residual: float | None = None, total: int | None = None,
               limit: int | None = None) -> None:
        """Pass ``step`` of ``phase`` is done (of ``total``; or an iteration of at most ``limit`` passes,
        with its ``residual``): shown with an estimate of the phase's time left."""
        now = time.monotonic()
        self.times.append(now - self.t_last)
        self.t_last = now
        left = None
        if total is not None:
            left = total - step
        elif residual is not None:
            self.residuals.append(residual)
            r = self.residuals
            # a residual shrinking geometrically reaches tol after log(r/tol) / log(rate) more passes; policy
            # iteration shrinks it faster than that as it ends (at 4 players, 7.5e-4 then 6.9e-7, then done):
            # no more than the _TYPICAL passes an iteration takes are counted until they are used up
            if len(r) >= 2 and 0 < r[-1] < r[-2] and self.tol > 0 and step < limit:
                rate = math.ceil(math.log(r[-1] / self.tol) / math.log(r[-2] / r[-1]))
                left = max(1, min(rate, max(_TYPICAL - step, 1), limit - step))
        text = f"{_PHASES[phase]}, pass {step}" + (f" of {total} (pot {step})" if total else "") + " done"
        if residual is not None:
            text += f" (residual {residual:.1e})"
        more = f"; about {left} more pass{'es' * (left > 1)}" if left is not None and total is None else ""
        mean = sum(self.times) / len(self.times)
        self._show(text, left * mean if left else None, more)

    def _show(self, text: str, left: float | None = None, more: str = "") -> None:
        if self.display is None:
            return
        later = {"contexts": "the décharge, the charge", "decharge": "the charge", "charge": ""}.get(self.phase, "")
        if self.certify and self.phase in ("contexts", "decharge", "charge"):
            later += ", the certificate" if later else "the certificate"
        self.display.show(f"{self.label}: {text}", left, " in this phase", more + (f"; then {later}" if later else ""))


def _check_progress(label: str, display):
    """``progress(done, total)`` for :func:`verify`'s full check, drawn on ``display`` (a :class:`Progress`,
    or None): which group of states it is at and, once one is done, about how long is left."""
    t0 = time.monotonic()

    def told(done: int, total: int) -> None:
        if display is None:
            return
        left = (time.monotonic() - t0) / done * (total - done) if done else None
        display.show(f"{label}, {done} of {total} groups of states done", left)
    return told
