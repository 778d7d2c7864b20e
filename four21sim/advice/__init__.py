"""What a player at the table uses: the advisor (:func:`advise`, round and game answers
for one hand), printable cheat sheets (:mod:`.charts`) and a game at the terminal
(:mod:`.play`)."""

from .advisor import ROLES, Advice, advise, format_advice

__all__ = ["advise", "Advice", "format_advice", "ROLES"]
