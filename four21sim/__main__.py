"""``python -m four21sim COMMAND ...``: the ``four21sim`` command."""

from .cli import console

console()
