"""Every code block of the README and docs/ is run, and what it says it prints is checked (issue 37).

A block's fence says what it is, and every block must say it (an untagged block fails):

- ``python``: run, the blocks of one file in turn in one interpreter (a later block may use
  an earlier one's names), from the repository's root (examples read ``results/``);
- ``sh``: each line is a command, run from a fresh folder that sees the repository's
  ``docs/``, ``results/`` and ``experiments/``. On standard input: ``q`` (an interactive
  command quits at its first question, after its set-up: the solve, the first throw), or for
  a command that writes a game log, ``-`` on every line (whole games, throwing all three dice
  again at each question, no to another game), so that the log a later line replays exists.
  ``four21sim ...`` runs the command (``four21sim site --out table-site``, some 2 minutes, which
  the README, docs/site.md and the browser tests all need, is built once per suite run by
  ``conftest.default_site`` and its folder copied in: the same command, the same output);
  ``python experiments/X.py ...`` is too long for the suite: every flag it names must be one
  of the script's (``--help``). The set-up commands (``pip install``) are checked against
  ``.ci/run`` instead (``test_the_readme_test_command_is_what_ci_runs``);
- ``toml``: parsed; a whole study (with a ``name``) is validated as ``four21sim sweep`` does;
- ``output``: what the block before it prints (its last command, for ``sh``): each of its
  lines must appear in what was printed, in order, ``...`` standing for any text;
- ``text``: read, never run (diagrams, formulas, addresses).

The witness is the documents themselves: a changed command, option or number fails here.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import DEFAULT_SITE

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
KINDS = ("python", "sh", "toml", "output", "text")
FENCE = re.compile(r"^```(\S*)\n(.*?)^```[ \t]*$", re.M | re.S)
TIMEOUT = 900


def blocks(path: Path) -> list[tuple[str, str, int]]:
    """``(kind, body, line)`` of every fenced block of ``path``."""
    text = path.read_text()
    return [(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1) for m in FENCE.finditer(text)]


def _id(p: Path) -> str:
    return str(p.relative_to(ROOT))


@pytest.mark.parametrize("path", DOCS, ids=_id)
def test_every_block_says_what_it_is(path):
    bad = [f"line {line}: {kind or '(none)'}" for kind, _, line in blocks(path) if kind not in KINDS]
    assert not bad, f"{_id(path)}: blocks of no known kind ({', '.join(KINDS)}): {bad}"
    kinds = [k for k, _, _ in blocks(path)]
    for i, k in enumerate(kinds):
        if k == "output":
            assert i and kinds[i - 1] in ("python", "sh"), f"{_id(path)}: an output block follows no code block"


def check_output(claimed: str, printed: str, where: str) -> None:
    """Each line of ``claimed`` (``...``: any text) is found in ``printed``, in order (spaces: any run of them)."""
    pos = 0
    for line in claimed.strip().splitlines():
        parts = [r"\s+".join(map(re.escape, part.split())) for part in line.split("...")]
        m = re.compile(r".*?".join(parts)).search(printed, pos)
        assert m, f"{where}: the documented output line {line.strip()!r} is not in what was printed:\n{printed}"
        pos = m.end()


def _commands(body: str) -> list[str]:
    out = []
    for line in body.splitlines():
        line = re.split(r"(?:^|\s{2,})#\s", line, maxsplit=1)[0].strip()  # a comment after two spaces
        if line:
            out.append(line)
    return out


def _sandbox(tmp_path: Path) -> Path:
    for name in ("docs", "results", "experiments"):
        (tmp_path / name).symlink_to(ROOT / name)
    return tmp_path


def _run_command(cmd: str, cwd: Path, request=None) -> subprocess.CompletedProcess:
    argv = shlex.split(cmd)
    if argv[0] == "four21sim" and argv[1:] == list(DEFAULT_SITE) and request is not None:
        # the default site, some 2 minutes: this run's one build of the very same command
        # (conftest.default_site), its folder copied where this command would have written it
        folder, done = request.getfixturevalue("default_site")
        shutil.copytree(folder, cwd / DEFAULT_SITE[-1])
        return done
    if argv[0] == "four21sim":
        argv = [sys.executable, "-m", "four21sim", *argv[1:]]
    elif argv[0] == "python":
        argv = [sys.executable, *argv[1:]]
    else:
        raise AssertionError(f"{cmd!r}: a documented command starts with four21sim or python")
    # a game log must hold whole games; every other interactive command quits at its first question
    answers = "-\n" * 3000 if "--log" in argv else "q\n"
    return subprocess.run(argv, cwd=cwd, input=answers, capture_output=True, text=True, timeout=TIMEOUT,
                          env=dict(os.environ, COLUMNS="100"))


def _check_experiment(cmd: str, cwd: Path) -> None:
    argv = shlex.split(cmd)
    r = subprocess.run([sys.executable, argv[1], "--help"], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"{cmd}: --help failed:\n{r.stderr}"
    for flag in (a.split("=")[0] for a in argv[2:] if a.startswith("--")):
        assert re.search(rf"(^|\s){re.escape(flag)}\b", r.stdout), f"{cmd}: {flag} is not an option of {argv[1]}"


_SH = [(p, i) for p in DOCS for i, (k, _, _) in enumerate(blocks(p)) if k == "sh"]


@pytest.mark.parametrize("path,index", _SH, ids=[f"{_id(p)}-{blocks(p)[i][2]}" for p, i in _SH])
def test_sh_blocks_run(path, index, tmp_path, request):
    all_blocks = blocks(path)
    _, body, line = all_blocks[index]
    where = f"{_id(path)}:{line}"
    cwd = _sandbox(tmp_path)
    last = None
    for cmd in _commands(body):
        if "pip install" in cmd:
            continue  # the set-up commands: test_the_readme_test_command_is_what_ci_runs
        if cmd.startswith("python experiments/"):
            _check_experiment(cmd, cwd)
            continue
        last = _run_command(cmd, cwd, request)
        assert last.returncode == 0 and "Traceback" not in last.stderr, \
            f"{where}: {cmd!r} exited {last.returncode}:\n{last.stdout[-2000:]}\n{last.stderr[-3000:]}"
    if index + 1 < len(all_blocks) and all_blocks[index + 1][0] == "output":
        assert last is not None, f"{where}: an output block after set-up commands"
        check_output(all_blocks[index + 1][1], last.stdout, where)


_PY = [p for p in DOCS if any(k == "python" for k, _, _ in blocks(p))]


@pytest.mark.parametrize("path", _PY, ids=_id)
def test_python_blocks_run(path):
    """The file's blocks in one interpreter, a marker line printed before each, so that each
    block's own output can be checked against the output block after it."""
    all_blocks = blocks(path)
    code, expected = [], []
    for i, (kind, body, line) in enumerate(all_blocks):
        if kind != "python":
            continue
        code.append(f"print('@@block {i}@@', flush=True)\n{body}")
        if i + 1 < len(all_blocks) and all_blocks[i + 1][0] == "output":
            expected.append((i, all_blocks[i + 1][1], line))
    r = subprocess.run([sys.executable, "-c", "\n".join(code)], cwd=ROOT, capture_output=True, text=True,
                       timeout=TIMEOUT)
    assert r.returncode == 0, f"{_id(path)}: its Python examples fail:\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
    pieces = dict(re.findall(r"@@block (\d+)@@\n(.*?)(?=@@block \d+@@|\Z)", r.stdout, re.S))
    for i, claimed, line in expected:
        check_output(claimed, pieces.get(str(i), ""), f"{_id(path)}:{line}")


_TOML = [(p, i) for p in DOCS for i, (k, _, _) in enumerate(blocks(p)) if k == "toml"]


@pytest.mark.parametrize("path,index", _TOML, ids=[f"{_id(p)}-{blocks(p)[i][2]}" for p, i in _TOML])
def test_toml_blocks_are_valid(path, index):
    from four21sim.study.spec import study_from_mapping
    data = tomllib.loads(blocks(path)[index][1])
    if "name" in data:
        study_from_mapping(data)  # raises, naming the key, on anything sweep would refuse


def test_the_readme_test_command_is_what_ci_runs():
    """The README's two set-up commands: the main job, and the test command that .ci/run runs."""
    sh = [b for k, b, _ in blocks(ROOT / "README.md") if k == "sh" and "pip install" in b]
    assert len(sh) == 2, "the README has exactly two set-up commands"
    main, tests = (_commands(b) for b in sh)
    assert len(main) == len(tests) == 1
    assert main[0].endswith("python -m four21sim.sweep")
    ci = (ROOT / ".ci" / "run").read_text()
    for step in tests[0].split(" && "):
        step = step.strip()
        if step.startswith(". "):
            assert "activate" in step and step.split()[1] in ci, step
        else:
            assert step in ci, f".ci/run does not run the README's {step!r}"


def test_check_output_can_fail():
    check_output("a ... c\nd", "a b c\nd e", "here")
    with pytest.raises(AssertionError):
        check_output("d\na", "a b c\nd e", "here")  # order matters
    with pytest.raises(AssertionError):
        check_output("12.50%", "12.51%", "here")


# ------------------------------------------------------------------ the README's numbers
NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)")


def _numbers(text: str) -> list[str]:
    return NUMBER.findall(re.sub(r"(?<=\d),(?=\d{3})", "", text))


def _exempt(x: str) -> bool:
    """Small counts (players, throws, files), fair shares (1/n) and hands (421, 654: dice, highest
    first), which need no result to be true."""
    v = float(x)
    d = len(x.split(".")[1]) if "." in x else 0
    hand = re.fullmatch(r"[1-6]{3}", x) is not None and list(x) == sorted(x, reverse=True)
    return (d == 0 and v <= 10) or hand or any(round(100 / n, d) == v for n in range(2, 9))


def _traced(x: str, text: str) -> bool:
    """``x`` is a number of ``text`` rounded to ``x``'s own precision (21.11 for 21.1068)."""
    d = len(x.split(".")[1]) if "." in x else 0
    v = float(x)
    return any(abs(round(float(y), d) - v) < 1e-9 for y in _numbers(text))


def _section(name: str) -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index(f"## {name}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


def _answer_rows() -> list[tuple[str, str]]:
    rows = []
    for line in _section("What it answers").splitlines()[4:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3:
            rows.append((cells[1], cells[2].strip("`")))
    return rows


def test_the_readme_answers_each_question_with_a_command():
    rows = _answer_rows()
    assert len(rows) >= 3
    assert all(cmd.startswith("four21sim ") for _, cmd in rows)


@pytest.mark.parametrize("answer,cmd", [r for r in _answer_rows() if any(not _exempt(x) for x in _numbers(r[0]))],
                         ids=lambda x: x[:40] if isinstance(x, str) else None)
def test_each_number_of_the_readmes_answers_is_what_its_command_prints(answer, cmd, tmp_path, request):
    r = _run_command(cmd, _sandbox(tmp_path), request)
    assert r.returncode == 0, r.stderr
    for x in _numbers(answer):
        assert _exempt(x) or _traced(x, r.stdout), f"README: {x} is not in what {cmd!r} prints:\n{r.stdout}"


def _findings() -> list[str]:
    return [b for b in re.split(r"\n- ", _section("What we found")) if b.startswith("**")]


def _linked_text(bullet: str) -> str:
    """The text files of every results folder the bullet links to, and the docs it links."""
    out = []
    for target in re.findall(r"\]\(([^)#\s]+)", bullet):
        p = (ROOT / target).resolve()
        folder = p.parent if p.suffix else p
        if "results" in p.parts:
            out += [f.read_text(errors="replace") for f in sorted(folder.rglob("*"))
                    if f.suffix in (".md", ".csv", ".json")]
        elif p.suffix == ".md":
            out.append(p.read_text())
    return "\n".join(out)


@pytest.mark.parametrize("bullet", _findings(), ids=lambda b: b[2:40])
def test_each_number_of_the_readmes_findings_is_in_a_result_it_links(bullet):
    linked = _linked_text(bullet)
    assert linked, f"README: a finding links no result: {bullet[:80]}"
    missing = [x for x in _numbers(bullet) if not _exempt(x) and not _traced(x, linked)]
    assert not missing, f"README: {missing} are in no result the finding links: {bullet[:100]}"


def test_the_tracer_can_fail():
    assert _traced("21.11", "21.1068%") and not _traced("21.12", "21.1068%")
    assert _exempt("25") and _exempt("16.67") and _exempt("654") and not _exempt("21.11") and not _exempt("456")


_MD = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "results").rglob("*.md"))]


def _cells(line: str) -> int:
    return len(re.sub(r"`[^`]*`", "", line.replace("\\|", "")).strip().strip("|").split("|"))


@pytest.mark.parametrize("path", _MD, ids=_id)
def test_every_table_has_as_many_cells_as_its_header(path):
    """A delimiter row or a row of another width than the header: the table does not render as one."""
    lines = path.read_text().splitlines()
    for i in range(len(lines) - 1):
        if lines[i].lstrip().startswith("|") and re.match(r"^\s*\|\s*:?-{3}", lines[i + 1]):
            n, j = _cells(lines[i]), i + 1
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                assert _cells(lines[j]) == n, f"{_id(path)}:{j + 1}: {_cells(lines[j])} cells under a {n}-cell header"
                j += 1
