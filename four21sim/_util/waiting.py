"""No silent waits in a command: a line on standard error when something takes a while.

Two sources of waiting that a user cannot tell from a hang:

- numba compiling a kernel the first time it is needed (tens of seconds on a fresh
  clone; later runs load it from numba's cache). :func:`announce_compiles` installs a
  listener of numba's ``numba:compile`` event, which numba sends only when it really
  compiles (never when it loads a kernel from its cache): if compiling goes on for
  :data:`AFTER` seconds, one line says so, once per process.
- a long computation with no display of its own (an exact solve): :func:`notice_after`
  prints its line if the block is still running after :data:`AFTER` seconds.

Nothing is printed when the work is quick, so the output of a warm run is unchanged. Every
notice starts on a line of its own (:func:`say`): a progress line drawn in place
(:func:`progress_line`, a tqdm bar) is never continued by a notice.
"""

from __future__ import annotations

import sys
import threading
from contextlib import contextmanager

__all__ = ["AFTER", "announce_compiles", "notice_after", "say", "progress_line", "end_progress_line"]

AFTER = 1.5
"""Seconds a wait may last before it is announced (below the 2 s a user waits without a word)."""

_installed: dict = {}
_lines = threading.RLock()  # one writer of notices and progress lines at a time (timers are threads)
_open: set = set()  # the streams (by file descriptor, or id) with a progress line left open, no newline yet


def _key(stream):
    try:
        return ("fd", stream.fileno())
    except (AttributeError, OSError, ValueError):
        return ("id", id(stream))


def say(text: str, stream=None) -> None:
    """Write the notice ``text`` as a line of its own on ``stream`` (None: standard error as it is
    now, not as it was when the notice was armed: a caller may have swapped it since).

    A progress line left open on the same stream (:func:`progress_line`, a tqdm bar) is ended
    first, so that the notice never continues it; a closed stream only loses the notice.
    """
    stream = sys.stderr if stream is None else stream
    if stream is None:
        return
    with _lines:
        try:
            key = _key(stream)
            tqdm = sys.modules.get("tqdm")
            if key in _open:
                _open.discard(key)
                stream.write("\n")
            if tqdm is not None:  # bars are cleared, the line written, the bars drawn again below it
                with tqdm.tqdm.external_write_mode(file=stream):
                    print(text, file=stream, flush=True)
            else:
                print(text, file=stream, flush=True)
        except (ValueError, OSError):
            pass


def progress_line(text: str, stream) -> None:
    """Draw ``text`` in place of the line left open on ``stream`` (a progress display on a
    terminal): no newline, so that the next one replaces it; :func:`say` ends it first."""
    with _lines:
        stream.write(f"\r\033[K{text}")
        stream.flush()
        _open.add(_key(stream))


def end_progress_line(stream) -> None:
    """End the progress line left open on ``stream``, if any (its last state stays on screen)."""
    with _lines:
        key = _key(stream)
        if key in _open:
            _open.discard(key)
            try:
                stream.write("\n")
                stream.flush()
            except (ValueError, OSError):
                pass


class _CompileNotice:
    """numba's ``numba:compile`` listener: arms a timer at the first compile, says it once."""

    def __init__(self, prog: str, stream, after: float) -> None:
        self.prog, self.stream, self.after = prog, stream, after
        self.depth = 0
        self.said = False
        self.timer: threading.Timer | None = None
        self.lock = threading.Lock()

    def _say(self) -> None:
        with self.lock:
            if self.depth and not self.said:
                self.said = True
                say(f"{self.prog}: compiling the engine's kernels with numba (once: later runs load them from "
                    "numba's cache; some 15 s on a 2-core machine) ...", self.stream)

    def on_start(self, event) -> None:
        with self.lock:
            self.depth += 1
            if self.depth == 1 and not self.said and self.timer is None:
                self.timer = threading.Timer(self.after, self._say)
                self.timer.daemon = True
                self.timer.start()

    def on_end(self, event) -> None:
        with self.lock:
            self.depth = max(self.depth - 1, 0)
            if self.depth == 0 and self.timer is not None and not self.said:
                self.timer.cancel()
                self.timer = None  # a quick compile: the next one may still be the long one


def announce_compiles(prog: str, stream=None, after: float = AFTER) -> None:
    """Say (once per process, on ``stream``, default stderr) when numba compiles for more than ``after`` s."""
    if "compile" in _installed:
        return
    from numba.core import event

    class Listener(event.Listener):
        def __init__(self, notice: _CompileNotice) -> None:
            self.notice = notice

        def on_start(self, ev) -> None:
            self.notice.on_start(ev)

        def on_end(self, ev) -> None:
            self.notice.on_end(ev)

    notice = _CompileNotice(prog, stream, after)
    listener = Listener(notice)
    event.register("numba:compile", listener)
    _installed["compile"] = (listener, notice)


@contextmanager
def notice_after(text: str, stream=None, after: float = AFTER):
    """Print ``text`` (one line, on ``stream``, default stderr) if the block is still running after ``after`` s."""
    done = threading.Event()

    def speak() -> None:
        if not done.is_set():
            say(text, stream)

    timer = threading.Timer(after, speak)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        done.set()
        timer.cancel()
