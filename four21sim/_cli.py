"""Shared pieces of the command lines: argument types and user-error handling."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from .variants import OPTIONS, PRESETS, Variant


class UserError(ValueError):
    """A mistake in what the user asked for: reported in one line, exit status 2."""


def add_variant_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--variant", default="super421", metavar="PRESET",
                        help=f"rule preset: {', '.join(PRESETS)} (default: super421)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override one rule option, e.g. --set tokens=21 --set followers=at_most "
                             f"(repeatable; options: {', '.join(OPTIONS)}; see docs/rules.md)")


def variant_from_args(args: argparse.Namespace) -> Variant:
    return Variant.from_preset(args.variant, args.overrides)


def run(main: Callable[[Sequence[str] | None], int], prog: str, argv: Sequence[str] | None = None) -> int:
    """Run a command-line ``main``; a ValueError becomes one line on stderr and exit status 2."""
    try:
        return main(argv)
    except (UserError, ValueError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
