"""What a player at the table uses: the advisor (:func:`advise`, round and game answers
for one hand, with :mod:`.explain` saying why they differ), printable cheat sheets
(:mod:`.charts`), the advisor as a static page (:mod:`.site`) and a game at the terminal
(:mod:`.play`)."""

from .advisor import ROLES, Advice, advise, format_advice

__all__ = ["advise", "Advice", "format_advice", "ROLES"]
