"""``python -m four21sim.solve``: the same command as ``four21sim solve`` (:mod:`four21sim.cli.solve`)."""

import sys

from .cli.solve import analyse, build_parser, console, format_text, main

__all__ = ["analyse", "build_parser", "format_text", "main"]

if __name__ == "__main__":
    sys.exit(console())
