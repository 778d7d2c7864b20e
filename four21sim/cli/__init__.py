"""The ``four21sim`` command: ``four21sim advise|solve|sweep|play|site ...``.

``python -m four21sim`` is this dispatcher; ``python -m four21sim.sweep`` (the README's main
command) runs ``four21sim sweep``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .._util.checks import shown

__all__ = ["main", "COMMANDS"]

# name -> (module, what it answers); the modules are imported only when used
COMMANDS = {
    "advise": ("four21sim.cli.advise", "which dice to keep: exact odds for the round and the game"),
    "solve": ("four21sim.cli.solve", "the game solved exactly (2 players: optimal play; 3 to 8: a certified "
                                     "equilibrium): who pays, the value of leading, the keep tables"),
    "sweep": ("four21sim.cli.sweep", "run a study: fairness, first-player advantage, skill, game length"),
    "play": ("four21sim.cli.play", "play at the terminal against the optimal, habit or plugged-in players; "
                                   "--train says what each choice cost"),
    "site": ("four21sim.cli.site", "write the advisor as a static page for a phone at the table (works offline)"),
}

_USAGE = "usage: four21sim {" + ",".join(COMMANDS) + "} ... [--help] [--version]"


def _help() -> str:
    width = max(map(len, COMMANDS))
    lines = [_USAGE, "", "The strategy analyser for the French bar dice game 421.", "", "commands:"]
    lines += [f"  {name:<{width}}  {what}" for name, (_, what) in COMMANDS.items()]
    lines += ["", "four21sim COMMAND --help shows a command's options; the rules are in docs/rules.md."]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``four21sim COMMAND ARGS...``; returns the exit status."""
    import importlib

    from .. import __version__
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(_help())
        return 0
    if args[0] == "--version":
        print(f"four21sim {__version__}")
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(_USAGE, file=sys.stderr)
        print(f"four21sim: error: unknown command {shown(name)}; allowed: {', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    return importlib.import_module(COMMANDS[name][0]).console(rest)


def console() -> None:
    """The console-script entry point."""
    sys.exit(main())
