"""The package's layers, as docs/architecture.md draws them, checked on every import.

Every ``import`` statement of the package is read, those inside functions included (they
run later, but they are dependencies all the same):

- no import cycle between modules, counting function-level imports (only the ones listed
  in ``LATE_IMPORTS``, each with its reason, are left out of the cycle check);
- a module imports only from its own subpackage or from a layer below it;
- no private name (a ``_module`` or a ``_name``) is imported across subpackages: what
  several subpackages need is a public name of the module that owns it (``_util`` is the
  layer of shared helpers: its modules are private to the package, public to its layers).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "four21sim"

# bottom to top; a module may import from its own layer and those before it
LAYERS = ("_util", "rules", "exact", "policies", "engine", "analysis", "advice", "env", "study", "cli", "")
RANK = {name: i for i, name in enumerate(LAYERS)}

# function-level imports that would close a cycle if they ran at import time: (module, target) -> why
LATE_IMPORTS: dict[tuple[str, str], str] = {
    ("four21sim.exact.nplayer", "four21sim.exact.shipped"):
        "solve asks for the shipped solution of a game first, and shipped reads and checks it with the solver's "
        "own stored form and verifier (from_arrays, verify_entry): one concept each, two modules",
    ("four21sim.exact._nplayer_respond", "four21sim.exact.nplayer"):
        "an 'equilibrium' named in a line-up is solve's own (memory, shipped, disk cache or a solve), and solve "
        "answers a best response to tables with this module: one concept each, two modules",
}


@dataclass(frozen=True)
class Edge:
    module: str  # the importing module
    target: str  # the module imported from (or imported)
    names: tuple[str, ...]  # the names taken from it (empty for a plain import)
    line: int
    top_level: bool


def _module_name(path: Path) -> tuple[str, str]:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    return name, package


def _edges() -> list[Edge]:
    out = []
    for path in sorted(ROOT.rglob("*.py")):
        name, package = _module_name(path)
        tree = ast.parse(path.read_text())
        top = {id(n) for n in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[:len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if target.split(".")[0] == "four21sim":
                    out.append(Edge(name, target, tuple(a.name for a in node.names), node.lineno, id(node) in top))
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.split(".")[0] == "four21sim":
                        out.append(Edge(name, a.name, (), node.lineno, id(node) in top))
    return out


MODULES = {_module_name(p)[0] for p in ROOT.rglob("*.py")}
EDGES = _edges()


def _resolve(edge: Edge) -> list[str]:
    """The package modules an import statement depends on (a module, or modules taken from a package)."""
    deps = [edge.target] if edge.target in MODULES else []
    deps += [f"{edge.target}.{n}" for n in edge.names if f"{edge.target}.{n}" in MODULES]
    return deps


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in RANK else ""


def test_the_layers_cover_every_subpackage():
    subpackages = {p.parent.name for p in ROOT.glob("*/__init__.py")}
    assert subpackages == set(LAYERS) - {""}, "a subpackage without a layer: add it to LAYERS and the docs"
    assert len(EDGES) > 100


def test_no_import_cycle_counting_imports_inside_functions():
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for e in EDGES:
        if (e.module, e.target) in LATE_IMPORTS:
            continue
        for d in _resolve(e):
            # a package importing its own modules, or a module its package: not a cycle through it
            if d != e.module and not e.module.startswith(d + ".") and not d.startswith(e.module + "."):
                graph[e.module].add(d)
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for d in sorted(graph[m]):
            if state.get(d) == 1:
                raise AssertionError("import cycle: " + " -> ".join(stack[stack.index(d):] + [d]))
            if d not in state:
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)


def test_the_late_imports_listed_are_still_there():
    present = {(e.module, e.target) for e in EDGES if not e.top_level}
    assert set(LATE_IMPORTS) <= present, "a listed late import is gone: remove it from LATE_IMPORTS"


@pytest.mark.parametrize("edge", [e for e in EDGES if e.target != "four21sim" or e.names != ("__version__",)],
                         ids=lambda e: f"{e.module}:{e.line}")
def test_a_module_imports_only_from_its_layer_or_below(edge):
    src, dst = layer(edge.module), layer(edge.target)
    if edge.target == "four21sim":  # names of the package itself: its subpackages, or the top's own names
        subs = [f"four21sim.{n}" for n in edge.names]
        dst = max((layer(d) if d in MODULES else "" for d in subs), key=RANK.__getitem__)
    assert RANK[dst] <= RANK[src], f"{edge.module} (layer {src or 'top'}) imports {edge.target} " \
                                   f"{edge.names} (layer {dst or 'top'}), above its own"


def _private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


@pytest.mark.parametrize("edge", [e for e in EDGES if layer(e.module) != layer(e.target)],
                         ids=lambda e: f"{e.module}:{e.line}")
def test_no_private_name_crosses_a_subpackage(edge):
    parts = edge.target.split(".")[1:]
    if parts[:1] == ["_util"]:
        parts = parts[1:]
    assert not any(_private(p) for p in parts), f"{edge.module} imports the private module {edge.target}"
    assert not any(_private(n) for n in edge.names), f"{edge.module} imports private names {edge.names} " \
                                                     f"from {edge.target}"


MAX_FUNCTION_LINES = 80


def _long_functions() -> list[str]:
    out = []
    for path in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    out.append(f"{path.relative_to(ROOT.parent)}:{node.lineno} {node.name} ({lines} lines)")
    return out


def test_no_function_is_longer_than_a_reader_can_hold():
    # numba kernels included: a long kernel is written as named steps (docs/engine.md numbers them)
    assert _long_functions() == []
