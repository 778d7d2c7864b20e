"""The notebooks: committed without outputs, and each one runs top to bottom without error.

The notebooks are executed with nbclient (kernel ``python3``) in a temporary copy, with
``FOUR21_NB_GAMES=2000`` so every simulation is tiny. The fairness notebook, the only one
that reads ``FOUR21_RESULTS``, is run with it pointing at a tiny sweep (run once per process),
and again without it, where it must run its own tiny sweep.

If no usable ``python3`` kernelspec exists (a fresh machine with only
``pip install -e .[test]``), one is installed for this Python into a temporary prefix
and ``JUPYTER_PATH`` points at it.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NB_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NB_DIR.glob("*.ipynb"))
EXPECTED = {"01_outcomes_and_odds.ipynb", "02_policies_and_optimal_play.ipynb", "03_variant_fairness.ipynb"}
FAIRNESS = "03_variant_fairness.ipynb"
KERNEL = "python3"
NB_GAMES = "2000"


# ----------------------------------------------------------------- committed form
def test_the_notebooks_are_there():
    assert EXPECTED <= {p.name for p in NOTEBOOKS}
    assert (NB_DIR / "README.md").is_file()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_has_no_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        assert cell.get("outputs") == [], f"{path.name}: cell {i} has outputs; strip them before committing"
        assert cell.get("execution_count") is None, f"{path.name}: cell {i} has an execution count"
    assert nb.metadata.get("kernelspec", {}).get("name") == KERNEL


# ------------------------------------------------------------------- execution
def _runs_this_python(argv: list[str]) -> bool:
    """True if a kernelspec's command starts this interpreter (jupyter_client maps bare 'python')."""
    if not argv:
        return False
    exe = argv[0]
    major, minor = sys.version_info[:2]
    if exe in ("python", f"python{major}", f"python{major}.{minor}"):
        return True
    try:
        return os.path.samefile(exe, sys.executable)
    except OSError:
        return False


@pytest.fixture(scope="session")
def kernel(tmp_path_factory):
    """The name of a python3 kernel that runs this Python (installed into a temp dir if needed)."""
    import ipykernel  # noqa: F401  (the test extra installs it)
    import nbclient  # noqa: F401
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        usable = _runs_this_python(KernelSpecManager().get_kernel_spec(KERNEL).argv)
    except NoSuchKernel:
        usable = False
    mp = pytest.MonkeyPatch()
    if not usable:
        from ipykernel.kernelspec import install

        prefix = tmp_path_factory.mktemp("jupyter-kernel")
        install(prefix=str(prefix), kernel_name=KERNEL)
        old = os.environ.get("JUPYTER_PATH")
        mp.setenv("JUPYTER_PATH", str(prefix / "share" / "jupyter") + (os.pathsep + old if old else ""))
        assert _runs_this_python(KernelSpecManager().get_kernel_spec(KERNEL).argv)
    yield KERNEL
    mp.undo()


@pytest.fixture(scope="session")
def sweep_results(tmp_path_factory):
    """A tiny sweep for the fairness notebook to read."""
    from four21sim import sweep

    out = tmp_path_factory.mktemp("sweep") / "tiny"
    # 4 tokens: optimal at 3 players solves in a second or two (the presets' own sizes take minutes);
    # and these 3-player equilibria are those of test_sweep.py's optimal test (super421 and classic
    # at 4 tokens), solved once per suite run (the disk cache the xdist workers share: conftest.py)
    status = sweep.main(["--variants", "super421,classic", "--set", "tokens=4", "--players", "2,3",
                         "--lineups", "greedy,optimal,one:greedy/sec", "--games", "2000",
                         "--task-games", "1000", "--out", str(out), "--quiet"])
    assert status == 0
    assert (out / "fairness.parquet").is_file()
    return out


def _execute(name: str, workdir: Path, kernel_name: str) -> nbformat.NotebookNode:
    """Run a temporary copy of a notebook from ``workdir``; raise on the first failing cell."""
    from nbclient import NotebookClient

    workdir.mkdir(parents=True, exist_ok=True)
    shutil.copy(NB_DIR / name, workdir / name)
    nb = nbformat.read(workdir / name, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name=kernel_name,
                   resources={"metadata": {"path": str(workdir)}}).execute()
    errors = [(i, o.get("ename"), o.get("evalue")) for i, c in enumerate(nb.cells) if c.cell_type == "code"
              for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, f"{name}: cells with errors: {errors}"
    return nb


def _images(nb) -> int:
    return sum("image/png" in o.get("data", {}) for c in nb.cells if c.cell_type == "code"
               for o in c.get("outputs", []))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_notebook_runs(name, kernel, request, tmp_path, monkeypatch):
    monkeypatch.setenv("FOUR21_NB_GAMES", NB_GAMES)
    # only the fairness notebook reads FOUR21_RESULTS: the others do not wait for the tiny sweep
    # (a session fixture, so run again by each xdist worker that asks for it: some 13 s)
    if name == FAIRNESS:
        monkeypatch.setenv("FOUR21_RESULTS", str(request.getfixturevalue("sweep_results")))
    else:
        monkeypatch.delenv("FOUR21_RESULTS", raising=False)
    monkeypatch.delenv("MPLBACKEND", raising=False)  # let the kernel use its inline backend
    nb = _execute(name, tmp_path / "notebooks", kernel)
    assert _images(nb) >= 1, f"{name} drew no figures"
    # running must not have touched the committed notebook
    assert nbformat.read(NB_DIR / name, as_version=4).cells[0].source == nb.cells[0].source


@pytest.mark.slow
def test_fairness_notebook_runs_its_own_sweep(kernel, tmp_path, monkeypatch):
    monkeypatch.setenv("FOUR21_NB_GAMES", NB_GAMES)
    monkeypatch.delenv("FOUR21_RESULTS", raising=False)
    monkeypatch.delenv("MPLBACKEND", raising=False)
    assert not (tmp_path / "results" / "default").exists()  # so ../results/default is not found
    nb = _execute(FAIRNESS, tmp_path / "notebooks", kernel)
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "a tiny sweep run just now" in text
