"""``python -m four21sim.advise``: the same command as ``four21sim advise`` (:mod:`four21sim.cli.advise`)."""

import sys

from .cli.advise import advise, build_parser, compute, console, main

__all__ = ["advise", "build_parser", "compute", "main"]

if __name__ == "__main__":
    sys.exit(console())
