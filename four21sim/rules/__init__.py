"""The rules: dice and hands (:mod:`.dice`), variants and presets (:mod:`.variants`),
and every rule of a round and of the game as numba functions (:mod:`.kernel`).

Nothing here imports another layer of the package.
"""

from . import dice, kernel, variants
from .variants import (
                       MAX_PLAYERS,
                       MIN_PLAYERS,
                       OPTION_TABLE,
                       OPTIONS,
                       PRESETS,
                       Variant,
                       as_variant,
                       get_preset,
                       parse_overrides,
)

__all__ = ["dice", "kernel", "variants", "Variant", "PRESETS", "OPTION_TABLE", "OPTIONS", "get_preset",
           "parse_overrides", "as_variant", "MIN_PLAYERS", "MAX_PLAYERS"]
