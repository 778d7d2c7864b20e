"""Shared pieces of the command lines: argument types, ``--version`` and user-error handling."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from .._util.checks import parse_int
from ..rules.variants import OPTIONS, PRESETS, Variant


class UserError(ValueError):
    """A mistake in what the user asked for: reported in one line, exit status 2."""


def read_numbers(args: argparse.Namespace, dests: Sequence[str]) -> None:
    """Read the number options ``dests`` (given as text: no ``type=int``) by the one rule for typed
    numbers, :func:`four21sim._util.checks.typed_int` (ASCII digits: ``int`` would also take "٣" and
    "1_0"); a bad one is a ValueError naming its option, one line, where argparse's own refusal would
    add its usage. The ranges are checked where the numbers are used."""
    for dest in dests:
        value = getattr(args, dest)
        if isinstance(value, str):
            setattr(args, dest, parse_int("--" + dest.replace("_", "-"), value))


def add_version(parser: argparse.ArgumentParser) -> None:
    """``--version``: print the package version and exit."""
    from .. import __version__
    parser.add_argument("--version", action="version", version=f"four21sim {__version__}")


def add_variant_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--variant", default="super421", metavar="PRESET",
                        help=f"rule preset: {', '.join(PRESETS)} (default: super421)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override one rule option, e.g. --set tokens=21 --set followers=at_most "
                             f"(repeatable; options: {', '.join(OPTIONS)}; see docs/rules.md)")


def variant_from_args(args: argparse.Namespace) -> Variant:
    return Variant.from_preset(args.variant, args.overrides)


def _quiet_broken_pipe() -> None:
    """The reader went away (``| head``): send what is left to /dev/null so exiting stays quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


class Terminated(KeyboardInterrupt):
    """SIGTERM, turned into an exception so that workers are stopped and locks released (exit 143)."""


_caught: list[int] = []  # the signals that reached the command running (not a KeyboardInterrupt raised by a test)


def _on_sigterm(signum, frame) -> None:
    _caught.append(signum)
    raise Terminated


def _on_sigint(signum, frame) -> None:
    _caught.append(signum)
    raise KeyboardInterrupt


class _ClosedOutput:
    """Stands for a closed standard output (``sys.stdout`` is None): print() to None is silently
    nothing, so a command's answer was lost with exit status 0; writing to this raises instead."""

    def write(self, text: str) -> int:
        import errno
        raise OSError(errno.EBADF, "the standard output is closed")

    def flush(self) -> None:
        pass

    def __bool__(self) -> bool:
        return False  # argparse then prints --help and usage on stderr, as it does for None


def _flush_stdout() -> None:
    if sys.stdout is not None:
        sys.stdout.flush()  # a closed pipe or a full disk shows up here, inside the handler


def run(main: Callable[[Sequence[str] | None], int], prog: str, argv: Sequence[str] | None = None) -> int:
    """Run a command-line ``main`` with the exit statuses every command shares.

    A ValueError (a user mistake) is one line on stderr and exit status 2; Ctrl-C (SIGINT)
    exit status 130 and SIGTERM 143, the work stopped cleanly (workers killed, locks
    released), within a second also in the middle of a solve's kernel
    (:mod:`four21sim._util.waiting` says how); a closed pipe on stdout ends the command
    quietly (status 0); stdout or stdin closed, or a write that fails (a full disk), is one
    line naming it and status 2.
    """
    import signal
    import threading

    from .._util import waiting
    sigint = None
    del _caught[:]
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # (an ignored SIGINT stays ignored)
            sigint = signal.signal(signal.SIGINT, _on_sigint)
    waiting.announce_compiles(prog)  # a first compile is tens of seconds: never a silent wait
    closed = sys.stdout is None
    if closed:
        sys.stdout = _ClosedOutput()
    try:
        with waiting.enter_command(prog):  # a solve in a worker thread: the main thread stays signal-ready
            status = _run(main, prog, argv)
    finally:
        if closed:
            sys.stdout = None
        if sigint is not None:
            signal.signal(signal.SIGINT, sigint)
    # stopped by a signal: end the process now. A worker may be inside a kernel, which cannot be
    # stopped; and the interpreter's own teardown (its last garbage collection over numba's objects)
    # took 3 s on a loaded 2-core machine, over the 2 s a stopped command may take
    if waiting.abandoned() or (_caught and status in (130, 143)):
        waiting.exit_now(status)
    return status


def _run(main: Callable[[Sequence[str] | None], int], prog: str, argv: Sequence[str] | None) -> int:
    try:
        try:
            status = main(argv)
        except SystemExit as exc:  # argparse's --help and usage errors: flushed here, not at exit
            status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        _flush_stdout()
        return status
    except BrokenPipeError:
        _quiet_broken_pipe()
        return 0
    except (UserError, ValueError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except Terminated:
        print(f"{prog}: terminated", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except EOFError:
        print(f"{prog}: error: standard input ended", file=sys.stderr)
        return 2
    except RuntimeError as exc:  # input() or print() with stdin or stdout closed: "lost sys.stdin"
        if "lost sys.std" not in str(exc):
            raise
        which = "input" if "stdin" in str(exc) else "output"
        print(f"{prog}: error: the standard {which} is closed; allowed: run it with a terminal or a file",
              file=sys.stderr)
        return 2
    except OSError as exc:  # writing the output failed: a full disk, a closed or broken stdout
        _quiet_broken_pipe()
        where = f"{exc.filename!r}" if exc.filename else "the output"
        print(f"{prog}: error: cannot write {where} ({exc.strerror or exc})", file=sys.stderr)
        return 2
