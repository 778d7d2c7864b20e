"""No silent waits in a command: a line on standard error when something takes a while, and
a command that stops at once on Ctrl-C or SIGTERM, even in the middle of a long solve.

Two sources of waiting that a user cannot tell from a hang:

- numba compiling a kernel the first time it is needed (tens of seconds on a fresh
  clone; later runs load it from numba's cache). :func:`announce_compiles` installs a
  listener of numba's ``numba:compile`` event, which numba sends only when it really
  compiles (never when it loads a kernel from its cache): if compiling goes on for
  :data:`AFTER` seconds, one line says so, once per process.
- a long computation with no display of its own (an exact solve): :func:`notice_after`
  prints its line if the block is still running after :data:`AFTER` seconds. The solvers
  announce their own first solves (:func:`solving`: what is solved and about how long), so
  that every caller (advise, play, the trainer, the environment, site, a program) says it
  the same way: in a command the line starts with the command's name (``advise: solving
  ...``), in a program with ``four21sim:``; it is a line on standard error, not a warning
  or a log record, because it must reach a person waiting at a terminal whatever the
  program's warning filters or logging configuration.

Nothing is printed when the work is quick, so the output of a warm run is unchanged. Every
notice starts on a line of its own (:func:`say`): a progress line drawn in place
(:func:`progress_line`, a tqdm bar) is never continued by a notice.

A long solve's progress
-----------------------
A solve that has lasted :data:`PROGRESS_AFTER` seconds also shows where it is (:func:`progress`:
its phase, pass, residual and an estimate of what remains, as the solver words it), on standard
error: on a terminal one line rewritten in place (redrawn every :data:`REDRAW` s, so that its clock
moves during a pass of many minutes, and cut to the terminal's width, so that it never wraps), and
otherwise (a pipe, a log file) a plain line per change. The solves nested in a solve (the games of
fewer players) show theirs on the outer solve's display. Nothing is shown for a shorter solve.

Stopping a long solve
---------------------
A numba kernel runs without returning to Python, and Python runs a signal handler only in
the main thread, between two Python instructions: a command whose main thread was inside
a solve's kernel ignored SIGTERM and Ctrl-C until that kernel returned (at 6 players, many
minutes). In a command (:func:`enter_command`, which every command's ``run`` calls),
:func:`wait_for` therefore runs a solve in a worker thread (the kernels are compiled with
``nogil=True``, so it keeps running at full speed) while the main thread only waits, in a
wait that a signal interrupts at once. When a signal stops the command, the worker cannot be
stopped (it is inside a kernel), so the command ends the process with its status
(:func:`exit_now`, an ``os._exit``: 130 for Ctrl-C, 143 for SIGTERM) once its streams are
flushed. Nothing is left half-written: the disk cache's writes (entries, and a long solve's
checkpoints, from which the next call resumes it) run inside :func:`unstoppable`,
which :func:`exit_now` waits for (a write already started finishes; none starts after the
signal), and a cache lock is an ``flock``, released when the process ends. A command stopped
by a signal outside a solve ends the same way (``cli._common.run``): the interpreter's own
teardown, its last garbage collection over numba's objects, took 3 s on a loaded 2-core
machine. Measured there (tests/test_interrupt.py): ``advise`` and ``solve`` at 5 players,
signalled in the middle of the solve, gone 0.2 s after SIGTERM or SIGINT; ``play`` at its
prompt 0.1 to 0.2 s (1.9 to 2.1 s before). Chosen over a child process (a second interpreter to start and
load numba in, and the solution to pass back, also with the cache off) and over a flag the
kernels would poll (a change to every kernel, and a pass still lasts minutes at 6 players).
A program (no command) runs the solve in its own thread as before: Ctrl-C reaches it when
the kernel in hand returns.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import contextmanager

__all__ = ["AFTER", "PROGRESS_AFTER", "REDRAW", "announce_compiles", "notice_after", "say", "progress_line",
           "end_progress_line", "solving", "progress", "Progress", "duration", "enter_command", "speaker", "wait_for",
           "unstoppable", "abandoned", "exit_now"]

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


# ------------------------------------------------------------------ a long solve's progress
PROGRESS_AFTER = 60.0
"""Seconds a solve runs before it shows its progress (a shorter one shows nothing but its notice)."""
REDRAW = 10.0
"""Seconds between two drawings of a progress line on a terminal (its clocks move between passes)."""
_progress: list = []  # the progress display open (the outermost solve's), which the solves nested in it share


def duration(seconds: float) -> str:
    """``seconds`` as a person reads a wait: ``40 s``, ``12 min``, ``1 h 05 min``."""
    seconds = max(0.0, float(seconds))
    if seconds < 90:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


class Progress:
    """The display of one long computation's progress (made by :func:`progress`, not directly).

    :meth:`show` gives the current state; nothing is drawn before the computation has lasted
    ``after`` s. On a terminal the line is drawn in place and redrawn every :data:`REDRAW` s;
    elsewhere each state is a plain line.
    """

    def __init__(self, stream, after: float) -> None:
        self._stream = stream
        self.t0 = time.monotonic()
        self.text: str | None = None
        self.left: float | None = None  # seconds left as estimated when the state was given
        self.scope = self.detail = ""
        self.t_text = self.t0
        self.due = False  # the computation has lasted `after` s: states are drawn
        self.drawn = 0  # lines drawn (tests read it)
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._clock, args=(after,), name="four21sim-progress", daemon=True)
        self._thread.start()

    def stream(self):
        return sys.stderr if self._stream is None else self._stream

    def _tty(self, stream) -> bool:
        try:
            return bool(stream.isatty())
        except (AttributeError, ValueError, OSError):
            return False

    def show(self, text: str, left: float | None = None, scope: str = "", detail: str = "") -> None:
        """The computation is now at ``text`` (one line, no newline), with about ``left`` s to go (None:
        unknown) ``scope`` (`` in this phase``: said after "left"); ``detail`` (``; then ...``) follows
        ``text`` where the line has room for it."""
        with _lines:
            self.text, self.left, self.scope, self.detail, self.t_text = text, left, scope, detail, time.monotonic()
            if self.due:
                self._draw()

    def line(self, compact: bool = False) -> str:
        """The line drawn for the current state: the speaker, the state, what remains, the time so far
        (``compact``: without the detail, in fewer words, for a narrow terminal; a NUL marks where the
        state ends, the place to cut it)."""
        now = time.monotonic()
        left = None if self.left is None else duration(self.left - (now - self.t_text))
        if compact:
            return f"{speaker()}: {self.text}\0{'' if left is None else f', ~{left} left'} [{duration(now - self.t0)}]"
        left = "" if left is None else f"; about {left} left{self.scope} (estimate)"
        return f"{speaker()}: {self.text}{self.detail}{left} [{duration(now - self.t0)} so far]"

    def _draw(self) -> None:
        if self.text is None or self._done.is_set():
            return
        stream = self.stream()
        if stream is None:
            return
        text = self.line()
        try:
            if self._tty(stream):
                try:
                    width = os.get_terminal_size(stream.fileno()).columns
                except (AttributeError, ValueError, OSError):
                    width = 0
                width = width if width >= 20 else 80  # (a pseudo-terminal may say 0 columns: unknown)
                if len(text) > width - 1:  # a wrapped line could not be rewritten in place
                    head, tail = self.line(compact=True).split("\0")
                    if len(head) + len(tail) > width - 1:  # the state is cut, what remains and the clock kept
                        head = head[:max(width - 2 - len(tail), 1)] + "…"
                    text = (head + tail)[:width - 1]
                progress_line(text, stream)
            else:
                say(text, stream)
            self.drawn += 1
        except (ValueError, OSError):
            pass

    def _clock(self, after: float) -> None:
        if self._done.wait(after):
            return
        with _lines:
            self.due = True
            self._draw()
        while not self._done.wait(REDRAW):
            if self._tty(self.stream()):
                with _lines:
                    self._draw()

    def close(self) -> None:
        """Stop drawing; a line left open on a terminal is ended (its last state stays on screen)."""
        with _lines:
            self._done.set()
            stream = self.stream()
            if stream is not None and self.drawn and self._tty(stream):
                end_progress_line(stream)


@contextmanager
def progress(stream=None, after: float | None = None):
    """A :class:`Progress` for the block: the state of a long computation, drawn once it has lasted
    ``after`` s (default :data:`PROGRESS_AFTER`) on ``stream`` (None: standard error as it is when
    drawn). A block inside another one's gets the outer display (a solve inside a solve)."""
    with _lines:
        outer = not _progress
        if outer:
            _progress.append(Progress(stream, PROGRESS_AFTER if after is None else after))
        shown = _progress[0]
    try:
        yield shown
    finally:
        if outer:
            shown.close()
            with _lines:
                _progress.remove(shown)


# ------------------------------------------------------------------ commands: who speaks, and stopping
_command: dict = {"prog": None}
_solving = [0]  # solve notices open: a solve inside a solve (the games of fewer players) is not said again
_writing = threading.Lock()  # held by a write that must finish once begun (unstoppable)
_stopping = threading.Event()  # a signal stopped the command: no write starts any more
_abandoned: list[threading.Thread] = []  # workers left running by a stopped command


@contextmanager
def enter_command(prog: str):
    """The block is the command ``prog``: notices start with its name, and :func:`wait_for` runs
    solves in a worker thread so that a signal stops the command at once (see the module docstring)."""
    before = _command["prog"]
    _command["prog"] = prog
    try:
        yield
    finally:
        _command["prog"] = before
        if not abandoned():
            _stopping.clear()


def speaker() -> str:
    """The name a notice starts with: the command running, else ``four21sim``."""
    return _command["prog"] or "four21sim"


@contextmanager
def solving(what: str, how_long: str, stream=None, after: float = AFTER):
    """Say what is being solved and about how long it takes, if the block lasts more than
    ``after`` s: ``advise: solving <what> (<how_long>) ...``. A solve inside a solve is not said again."""
    with _lines:
        _solving[0] += 1
        outer = _solving[0] == 1
    try:
        if outer:
            with notice_after(f"{speaker()}: solving {what} ({how_long}) ...", stream, after):
                yield
        else:
            yield
    finally:
        with _lines:
            _solving[0] -= 1


def wait_for(fn, /, *args, **kwargs):
    """``fn(*args, **kwargs)``; in a command's main thread, computed in a worker thread while the
    main thread waits, so that Ctrl-C and SIGTERM interrupt the wait at once (the worker is then
    left to :func:`exit_now`). Elsewhere (a program, a worker thread) it is a plain call."""
    if _command["prog"] is None or threading.current_thread() is not threading.main_thread():
        return fn(*args, **kwargs)
    box: dict = {}
    done = threading.Event()

    def work() -> None:
        try:
            box["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001  handed to the main thread, raised there
            box["error"] = exc
        finally:
            done.set()

    worker = threading.Thread(target=work, name="four21sim-solve", daemon=True)
    worker.start()
    try:
        while not done.wait(0.5):
            pass
    except BaseException:
        _stopping.set()
        _abandoned.append(worker)
        raise
    if "error" in box:
        raise box["error"]
    return box["value"]


@contextmanager
def unstoppable():
    """A write that must not be cut short (a cache entry): :func:`exit_now` waits until it ends.
    Yields False, and the caller writes nothing, once a signal has stopped the command."""
    with _writing:
        yield not _stopping.is_set()


def abandoned() -> bool:
    """Whether a stopped command left a worker running (its process must then end by :func:`exit_now`)."""
    return any(t.is_alive() for t in _abandoned)


def exit_now(status: int) -> None:
    """End the process with ``status`` at once, also with a worker inside a kernel: a write in
    progress (:func:`unstoppable`) finished first and none started after, the ``atexit`` handlers
    run (temporary folders removed, ...), the streams flushed; locks (``flock``) die with the
    process. What is skipped is the interpreter's teardown, and the worker."""
    import atexit
    _stopping.set()
    _writing.acquire(timeout=600)
    try:
        atexit._run_exitfuncs()
    except Exception:  # noqa: BLE001  (each handler's error is printed by atexit itself)
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, ValueError, OSError):
            pass
    os._exit(status)
