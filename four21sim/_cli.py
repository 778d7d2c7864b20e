"""Kept for ``four21sim.sweep``: the command-line helpers live in :mod:`four21sim.cli._common`."""

from .cli._common import UserError, add_variant_options, add_version, run, variant_from_args

__all__ = ["UserError", "add_variant_options", "add_version", "run", "variant_from_args"]
