"""``python -m four21sim.sweep``: the same command as ``four21sim sweep`` (:mod:`four21sim.cli.sweep`)."""

import sys

from .cli.sweep import build_parser, console, main, run_sweep, study_from_args

__all__ = ["build_parser", "main", "run_sweep", "study_from_args"]

if __name__ == "__main__":
    sys.exit(console())
