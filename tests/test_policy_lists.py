"""Every docstring and help text that lists policy names lists the registry's (four21sim.policies.REGISTRY).

A *list* is a run of three policy names or more, separated by commas, "or", "and" or
slashes (quotes, backticks and a parenthesis after a name allowed). Such a list must hold
every habit (a list of the habits, of the table policies or of all policies, all derived
from the registry), no name the registry does not have (the old name ``equilibrium``
included), and any player counts it gives a policy must be the registry's
(``optimal (2 or 3 players)``).
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from four21sim.cli import COMMANDS
from four21sim.policies import ALIASES, HABITS, POLICY_NAMES, REGISTRY

ROOT = Path(__file__).resolve().parents[1] / "four21sim"
NAMES = POLICY_NAMES + tuple(ALIASES)
NAME = re.compile(r"(?<![\w-])(" + "|".join(re.escape(n) for n in NAMES) + r")(?![\w-])")
QUOTED = re.compile(r"(?:``|'|\")(" + "|".join(re.escape(n) for n in NAMES) + r")(?:``|'|\")")
_ITEM = r"(?:``|'|\")?(?:" + "|".join(re.escape(n) for n in NAMES) + r")(?![\w-])(?:``|'|\")?(?:\s*\([^)]*\))?"
RUN = re.compile(_ITEM + r"(?:\s*(?:,|/|\bor\b|\band\b)\s*(?:or\s+|and\s+)?" + _ITEM + r"){2,}")
SPAN = re.compile(r"(?<![\w-])(" + "|".join(re.escape(n) for n in NAMES) + r")(?:``|')?\s*\((\d)(?: (?:or|to) (\d))? "
                  r"players?\b")


def _docstrings() -> list[tuple[str, str]]:
    out = []
    for path in sorted(ROOT.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in [tree, *ast.walk(tree)]:
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                doc = ast.get_docstring(node)
                if doc:
                    where = f"{path.relative_to(ROOT.parent)}:{getattr(node, 'name', 'module')}"
                    out.append((where, doc))
    return out


def _help_texts() -> list[tuple[str, str]]:
    out = [("four21sim.cli.COMMANDS", "\n\n".join(what for _, what in COMMANDS.values()))]
    for name, (module, _) in COMMANDS.items():
        parser = importlib.import_module(module).build_parser()
        out.append((f"{name} --help", parser.description or ""))
        out.append((f"{name} --help epilog", parser.epilog or ""))
        out += [(f"{name} {'/'.join(a.option_strings) or a.dest}", a.help) for a in parser._actions if a.help]
    return out


TEXTS = _docstrings() + _help_texts()
PARAGRAPHS = [(where, p) for where, text in TEXTS for p in re.split(r"\n\s*\n", text) if p.strip()]
# code in a docstring (``lineups = [...]``, ``>>> ...``) gives examples, not lists of the registry
CODE = re.compile(r"^\s*(?:>>>|\.\.\.|[\w.]+\s*=)")


def _prose(p: str) -> str:
    return " ".join(" ".join(line for line in p.splitlines() if not CODE.match(line)).split())


LISTS = [(where, m.group(0)) for where, p in PARAGRAPHS for m in RUN.finditer(_prose(p))]


def test_the_scan_finds_the_lists_it_must():
    places = {where for where, _ in LISTS}
    assert any(w.startswith("sweep --lineups") for w in places)  # a help text written from the registry
    # the package's docstrings name the registry instead of typing its names out; the forms a
    # typed-out list takes are still found
    for text in ("``sec``, ``chase421``, ``greedy``, ``table-aware``", "{'sec', 'greedy', 'random'}",
                 "sec, greedy or optimal (2 or 3 players)", "sec/greedy/random"):
        assert RUN.search(_prose(text)), text


@pytest.mark.parametrize("where,text", LISTS, ids=[w for w, _ in LISTS])
def test_a_list_of_policies_is_the_registrys(where, text):
    named = set(NAME.findall(text))
    assert set(HABITS) <= named, f"{where}: lists {sorted(named)}, missing {sorted(set(HABITS) - named)}"
    quoted = set(QUOTED.findall(text)) - set(POLICY_NAMES)
    assert not quoted, f"{where}: names {sorted(quoted)} as a policy; the registry calls it " \
                       f"{[ALIASES[q] for q in quoted]}"


def test_player_counts_given_for_a_policy_are_the_registrys():
    spans = {p.name: p.players for p in REGISTRY}
    wrong = [f"{where}: says {name} is for {(int(lo), int(hi or lo))}, the registry says {spans[name]}"
             for where, text in PARAGRAPHS for name, lo, hi in SPAN.findall(" ".join(text.split()))
             if name in spans and (int(lo), int(hi or lo)) != spans[name]]
    assert not wrong, "\n".join(wrong)
    assert SPAN.search("``optimal`` (2 or 3 players)") and SPAN.search("optimal (2 players)")


def test_the_play_command_lists_the_registry_as_policy_help_says():
    from four21sim.cli.play import build_parser
    from four21sim.policies import policy_help
    text = next(a.help for a in build_parser()._actions if "--opponents" in a.option_strings)
    assert all(line in text for line in policy_help().splitlines())
