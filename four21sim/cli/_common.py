"""Shared pieces of the command lines: argument types, ``--version`` and user-error handling."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from ..rules.variants import OPTIONS, PRESETS, Variant


class UserError(ValueError):
    """A mistake in what the user asked for: reported in one line, exit status 2."""


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
    except (OSError, ValueError):
        pass


def run(main: Callable[[Sequence[str] | None], int], prog: str, argv: Sequence[str] | None = None) -> int:
    """Run a command-line ``main``: a ValueError becomes one line on stderr and exit status 2,
    Ctrl-C exit status 130, and a closed pipe on stdout ends the command quietly (status 0)."""
    try:
        status = main(argv)
        sys.stdout.flush()  # a closed pipe shows up here, inside the handler
        return status
    except BrokenPipeError:
        _quiet_broken_pipe()
        return 0
    except (UserError, ValueError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
