"""What a run shows while it works: one display per phase (solving, playing, writing).

On a terminal each phase is a progress bar with its own count and an ETA computed only
from the work this run does (work resumed from earlier runs is shown as done, never
counted in the rate). When standard error is not a terminal (a pipe, a log file, CI),
each phase prints one line when it ends: what it did and how long it took. Nothing is
shown with ``quiet``.
"""

from __future__ import annotations

import sys
import time

__all__ = ["Progress", "Phase"]


class Phase:
    """One phase of a run: ``update(n)`` as work is done; a context manager."""

    def __init__(self, progress: "Progress", what: str, total: int, unit: str, initial: int = 0,
                 scale: bool = False) -> None:
        self.progress, self.what, self.total, self.unit, self.initial = progress, what, total, unit, initial
        self.done = initial
        self.t0 = time.perf_counter()
        self.bar = None
        if progress.enabled and progress.tty:
            from tqdm import tqdm
            self.bar = tqdm(total=total, initial=initial, unit=" " + unit, unit_scale=scale, dynamic_ncols=True,
                            smoothing=0.1, desc=f"{progress.name}: {what}", file=progress.stream, leave=True)

    def update(self, n: int = 1) -> None:
        self.done += n
        if self.bar is not None:
            self.bar.update(n)

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.t0

    def __enter__(self) -> "Phase":
        return self

    def __exit__(self, kind, exc, tb) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.progress.enabled and kind is None:
            resumed = f" ({self.initial:,} done before)" if self.initial else ""
            self.progress.line(f"{self.what}: {self.done - self.initial:,} {self.unit}{resumed} "
                               f"in {self.seconds:.1f} s")


def _sized_terminal(stream) -> bool:
    """Whether ``stream`` is a terminal with a width: a pseudo-terminal of 0 columns (some CI
    runners, ``script`` without a size) showed every bar as an empty line, so it gets lines."""
    import os
    try:
        return bool(stream.isatty()) and os.get_terminal_size(stream.fileno()).columns > 0
    except (AttributeError, OSError, ValueError):
        return False


class Progress:
    """The display of a run (see the module docstring); ``enabled=False`` shows nothing."""

    def __init__(self, name: str, enabled: bool = True, stream=None, tty: bool | None = None) -> None:
        self.name = name
        self.stream = sys.stderr if stream is None else stream
        self.enabled = enabled
        self.tty = _sized_terminal(self.stream) if tty is None else tty

    def line(self, text: str) -> None:
        """One line of the display (shown whenever the display is enabled)."""
        if self.enabled:
            print(f"{self.name}: {text}", file=self.stream, flush=True)

    def phase(self, what: str, total: int, unit: str, initial: int = 0, scale: bool = False) -> Phase:
        return Phase(self, what, total, unit, initial, scale)
