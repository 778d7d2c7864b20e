"""Studies: a grid of variants x player counts x line-ups (:mod:`.spec`), run into a
results folder (:mod:`.run`, :mod:`.tasks`, :mod:`.executors`, :mod:`.lock`), summarised
into tables, figures and a report (:mod:`.tables`, :mod:`.fairness`, :mod:`.report`,
:mod:`.figures`), and read back (:func:`load`)."""

from .load import Results, load

__all__ = ["load", "Results"]
