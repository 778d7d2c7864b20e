"""Short text and HTML views of result objects: what a notebook shows on a cell's last line."""

from __future__ import annotations

import html
import re
import shutil
import textwrap


def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def simulation_lines(res) -> list[str]:
    """A few lines: the configuration, then each seat's win share with its interval."""
    fpa = res.first_player_advantage()
    shares = res.seats()["win_share"]
    lines = [f"{res.variant.describe()}, {res.players} players ({', '.join(res.policies)}), "
             f"{res.games:,} games, seed {res.seed}, {res.elapsed:.2f} s",
             "win share by seat " + " ".join(_pct(x) for x in shares),
             f"first-player advantage {100 * fpa.value:+.2f} pp [{100 * fpa.low:+.2f}, {100 * fpa.high:+.2f}] (95%)"]
    if res.runaways:
        lines.append(f"{res.runaways} runaway games")
    return lines


def simulation_repr(res) -> str:
    return "<SimulationResult: " + "; ".join(simulation_lines(res)) + ">"


def simulation_html(res) -> str:
    seats = res.seats()[["seat", "policy", "win_share", "win_share_low", "win_share_high", "p_lose", "mean_place"]]
    head = "".join(f"<div>{html.escape(line)}</div>" for line in simulation_lines(res))
    return head + seats.to_html(index=False, float_format=lambda x: f"{x:.4f}")


def solution_lines(sol) -> list[str]:
    return [f"{sol.variant.describe()}, 2 players, both optimal: P(seat 0 wins) = {_pct(sol.p_seat0)}, "
            f"expected rounds {sol.expected_rounds:.3f} (exact; solved in {sol.seconds:.2f} s, "
            f"residual {sol.residual:.1e})"]


def solution_repr(sol) -> str:
    return "<Solution: " + "; ".join(solution_lines(sol)) + ">"


def solution_html(sol) -> str:
    states = sol.states()
    import pandas as pd  # here: a command that shows no table does not import pandas

    table = pd.DataFrame({"phase": ["charge", "decharge"],
                          "states": [int((states["phase"] == p).sum()) for p in ("charge", "decharge")]})
    return "".join(f"<div>{html.escape(line)}</div>" for line in solution_lines(sol)) + table.to_html(index=False)


def wrap_text(text: str, width: int | None = None, hang: str = "  ") -> str:
    """``text`` with every line longer than ``width`` wrapped at word boundaries, its indent kept
    (continuation lines ``hang`` further in).

    ``width`` defaults to the terminal's (80 columns when the output is not a terminal), so
    that a line never runs past the screen's edge and breaks mid-word.
    """
    width = width or max(40, shutil.get_terminal_size((80, 24)).columns)
    out = []
    for line in text.split("\n"):
        if len(line) <= width or not line.strip():
            out.append(line)
            continue
        indent = line[:len(line) - len(line.lstrip())]
        # a keep (6 _ 1) or a hand's dice (6 5 2) is one word: never cut across two lines
        glued = _DICE3.sub(lambda m: m.group(0).replace(" ", _GLUE), line)
        out.append(textwrap.fill(glued, width, subsequent_indent=indent + hang, break_long_words=False,
                                 break_on_hyphens=False).replace(_GLUE, " "))
    return "\n".join(out)


_DICE3 = re.compile(r"(?<!\w)[1-6_] [1-6_] [1-6_](?!\w)")
_GLUE = "\x00"  # not whitespace to textwrap, and never in the text
