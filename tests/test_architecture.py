"""The house rules of the code base: one registry per list of names, kernels compiled from
the live tables, the docs' option table equal to the registry."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from four21sim import policies
from four21sim.engine import _kernels, _stream
from four21sim.exact import _nplayer_kernels
from four21sim.exact import _two_player_kernels as _solver_kernels
from four21sim.rules import dice
from four21sim.rules import kernel as _rules
from four21sim.rules.variants import OPTION_TABLE, OPTIONS, PRESETS, Variant, options_markdown
from four21sim.study import tables as summarize

REPO = Path(__file__).resolve().parents[1]

LIVE = {
    "OUTCOME_HAND": dice.OUTCOME_HAND, "KEEP_RESULT": dice.KEEP_RESULT, "KEEP_SIZE": dice.KEEP_SIZE,
    "CATEGORY": dice.CATEGORY, "HAND_KEEPS": dice.HAND_KEEPS, "N_HAND_KEEPS": dice.N_HAND_KEEPS,
    "KT_START": dice.KT_START, "KT_HAND": dice.KT_HAND, "FULL_KEEP": np.array([dice.FULL_KEEP]),
    "N_HANDS": np.array([dice.N_HANDS]),
    "IS_COMBINATION": np.array([dice.is_combination(h) for h in range(dice.N_HANDS)], dtype=np.int64),
    "H221": np.array([dice.hand_index((2, 2, 1))]),
    # a re-throw draws 6**(dice thrown): docs/engine.md
    "KEEP_RANGE": np.array([6 ** (3 - len(k)) for k in dice.KEEPS]),
}


@pytest.mark.parametrize("module", [_stream, _rules, _kernels, _solver_kernels, _nplayer_kernels],
                         ids=lambda m: m.__name__)
def test_tables_compiled_into_the_kernels_are_the_live_dice_tables(module):
    # numba freezes module globals into the compiled code, and cache=True may load a
    # compilation made from older tables: what the kernel holds must equal dice.py now.
    compiled = module.compiled_tables()
    assert len(compiled) >= 1
    for name, table in compiled.items():
        assert np.array_equal(np.asarray(table), LIVE[name].astype(np.int64)), \
            f"{module.__name__}: compiled {name} differs from dice.py (stale numba cache?)"


def test_the_options_table_in_the_docs_is_the_registry():
    text = (REPO / "docs" / "rules.md").read_text()
    assert options_markdown() in text, "docs/rules.md's options table differs from variants.OPTION_TABLE"
    # and the registry is exactly Variant's fields, with the fields' defaults
    assert OPTIONS == tuple(f.name for f in dataclasses.fields(Variant))
    assert all(getattr(Variant(), o.name) == o.default for o in OPTION_TABLE)


@pytest.mark.parametrize("option", OPTION_TABLE, ids=lambda o: o.name)
def test_every_option_refuses_a_bad_value_naming_itself_and_what_is_allowed(option):
    bad = {"int": option.allowed[1] + 1 if option.kind == "int" else None, "choice": "nonsense",
           "bool": "maybe"}[option.kind]
    with pytest.raises(ValueError) as err:
        Variant.from_preset("super421", [f"{option.name}={bad}"])
    msg = str(err.value)
    assert msg.startswith(f"{option.name}: ") and str(bad) in msg and "allowed:" in msg
    # every value the rule-space study explores is a valid one
    for value in option.explore:
        option.check(value)


def test_every_preset_is_reachable_from_the_registry_defaults():
    # the defaults are Super 421's: the preset that differs from the registry in no option
    assert PRESETS["super421"] == Variant()


def test_policy_lists_derive_from_the_registry():
    names = tuple(p.name for p in policies.REGISTRY)
    assert policies.POLICY_NAMES == names
    assert set(policies.TABLE_POLICIES) == {p.name for p in policies.REGISTRY if p.table}
    assert summarize.TABLE_POLICIES == policies.TABLE_POLICIES
    assert "optimal" in policies.policies_for(5) and "optimal" not in policies.policies_for(6)
    for spec in policies.REGISTRY:
        assert spec.name in policies.policy_help()


def test_a_policy_outside_its_player_counts_is_refused_with_the_allowed_ones():
    with pytest.raises(ValueError, match=r"policies: 'optimal' is defined for 2 to 5 players in the engine and the "
                                         r"studies \(decision tables\), not 6; one decision at a time \(four21sim "
                                         r"play, the environments\) for 4 to 6 players; "
                                         r"allowed with 6 players: sec, chase421, greedy, table-aware, random$"):
        policies.compile_policy("optimal", PRESETS["super421"], players=6)
    # beyond what the exact 3-player solver takes: refused before any solve, with the reason
    big = Variant.from_preset("super421", {"tokens": 41})
    with pytest.raises(ValueError, match=r"policies: the exact 3-player solver takes at most 40 tokens, not 41"):
        policies.check_available("optimal", big, 3)


def test_the_old_name_equilibrium_still_means_optimal():
    v = Variant.from_preset("super421", {"tokens": 3})
    with pytest.warns(FutureWarning, match="'equilibrium' is now called 'optimal'"):
        old = policies.compile_policy("equilibrium", v, players=3)
    new = policies.compile_policy("optimal", v, players=3)
    assert old.name == "optimal" and np.array_equal(old.foll, new.foll) and np.array_equal(old.lead, new.lead)


SCRIPTS = sorted(p.name for p in (REPO / "experiments").glob("*.py"))
# Each script run as `python experiments/SCRIPT --help` runs it, one after another in one fresh
# interpreter of their own (each start of one imports the package and numba: a second of CPU
# each); every script with the experiments folder first on sys.path and its own output, as if
# started alone. Prints {script: [exit status or None, stderr, traceback or ""]} as JSON.
_STARTS = """
import contextlib, io, json, runpy, sys, traceback
folder, names = sys.argv[1], sys.argv[2:]
sys.path.insert(0, folder)
got = {}
for name in names:
    sys.argv = [f"{folder}/{name}", "--help"]
    err, status, tb = io.StringIO(), 0, ""
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            runpy.run_path(sys.argv[0], run_name="__main__")
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) or e.code is None else 1
    except BaseException:
        status, tb = None, traceback.format_exc()
    got[name] = [status or 0 if tb == "" else None, err.getvalue(), tb]
print(json.dumps(got))
"""


@pytest.fixture(scope="session")
def script_starts():
    import json
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-c", _STARTS, str(REPO / "experiments"), *SCRIPTS], cwd=REPO,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_experiment_script_starts(script, script_starts):
    # the committed results are remade by these scripts: an import they lost must show here
    status, err, tb = script_starts[script]
    assert status == 0 and not tb and "Traceback" not in err, tb or err


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_package_name_an_experiment_imports_exists(script):
    # imports inside functions too: --help does not run them, the remaking of results does
    import ast
    import importlib
    tree = ast.parse((Path(__file__).resolve().parents[1] / "experiments" / script).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "four21sim":
            module = importlib.import_module(node.module)
            for alias in node.names:
                assert hasattr(module, alias.name) or importlib.util.find_spec(f"{node.module}.{alias.name}"), \
                    f"{script}: from {node.module} import {alias.name}"
