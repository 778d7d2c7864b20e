"""What ``import four21sim`` costs: every public name is there, the heavy modules load when first used.

A command (``four21sim --version``) and every worker process import the package; the engine, pandas
and the n-player solver (scipy's sparse solver) cost most of a second of CPU to import, so the
package names them lazily (PEP 562). Checked in fresh interpreters: the test process has imported
everything already.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("pandas", "scipy.sparse", "four21sim.engine", "four21sim.policies", "four21sim.exact",
         "four21sim.study")


def fresh(code: str) -> str:
    res = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=str(ROOT)),
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    return res.stdout


def test_importing_the_package_loads_no_engine_pandas_or_solver():
    out = fresh(f"import sys, json, four21sim; print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    assert json.loads(out) == []


def test_every_public_name_is_the_modules_own_and_listed():
    code = """
import json, four21sim
names = sorted(four21sim.__all__)
listed = [n for n in names if n in dir(four21sim)]
from four21sim import *
from four21sim import Variant, PRESETS, get_preset, simulate, SimulationResult, load, Results, dice, odds
from four21sim.engine import simulation
from four21sim.exact import odds as odds_module
from four21sim.rules import dice as dice_module, variants
import importlib
load_module = importlib.import_module("four21sim.study.load")
same = [simulate is simulation.simulate, SimulationResult is simulation.SimulationResult,
        Variant is variants.Variant, PRESETS is variants.PRESETS, get_preset is variants.get_preset,
        load is load_module.load, Results is load_module.Results, dice is dice_module, odds is odds_module,
        four21sim.odds is odds_module, four21sim.__version__ == __version__]
try:
    four21sim.no_such_name
    missing = "no error"
except AttributeError as exc:
    missing = str(exc)
print(json.dumps([names, listed, same, missing]))
"""
    names, listed, same, missing = json.loads(fresh(code))
    assert names == sorted(["Variant", "PRESETS", "get_preset", "simulate", "SimulationResult", "load", "Results",
                            "dice", "odds", "__version__"])
    assert listed == names
    assert all(same), same
    assert missing == "module 'four21sim' has no attribute 'no_such_name'"


def test_a_name_used_runs_its_module():
    out = fresh("import four21sim; print(four21sim.odds.keep_advice('631', 1, beat='611', exact=True)[0])")
    from four21sim.exact import odds
    assert out.strip() == str(odds.keep_advice("631", 1, beat="611", exact=True)[0])


# A command that makes no table (the advice, the help) imports neither
# pandas nor scipy's sparse solver (some 0.4 s of CPU of every such command: the tests alone start hundreds)
@pytest.mark.parametrize("argv", [["advise", "631", "--throws-left", "1"], ["play", "--help"], ["site", "--help"],
                                  ["advise", "631", "--throws-left", "1", "--beat", "654,521", "--players", "4"]],
                         ids=" ".join)
def test_a_command_that_makes_no_table_imports_no_pandas_or_sparse_solver(argv):
    code = (f"import io, json, sys, contextlib\nfrom four21sim.cli import main\nout = io.StringIO()\n"
            f"with contextlib.redirect_stdout(out):\n    status = main({argv!r})\n"
            f"heavy = [m for m in ('pandas', 'scipy.sparse') if m in sys.modules]\n"
            f"print(json.dumps([status, len(out.getvalue()), heavy]))")
    status, printed, heavy = json.loads(fresh(code).strip().splitlines()[-1])
    assert status == 0 and printed > 100  # it did its work
    assert heavy == []
