"""The documentation points only at files that are in the repository, and the study file
format is documented key by key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# what a user of the repository reads: the package (help texts, docstrings), docs, notebooks,
# experiments, results' write-ups and the tests' comments
TEXT_FILES = sorted([ROOT / "README.md", *ROOT.glob("docs/*.md"), *ROOT.glob("notebooks/*"),
                     *ROOT.glob("four21sim/**/*.py"), *ROOT.glob("experiments/*"), *ROOT.glob("tests/*.py"),
                     *ROOT.glob("results/**/*.md")])
# files that exist only outside the repository
MISSING = ("RULES.md", "DESIGN.md", "../shared", "/work/")


@pytest.mark.parametrize("path", [p for p in TEXT_FILES if p.is_file()], ids=lambda p: str(p.relative_to(ROOT)))
def test_no_reference_to_files_outside_the_repository(path):
    text = path.read_text(errors="replace")
    if path.name == "test_docs.py":
        return
    for name in MISSING:
        assert name not in text, f"{path.relative_to(ROOT)} mentions {name!r}, which is not in the repository"


LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("path", [p for p in TEXT_FILES if p.suffix in (".md", ".ipynb") and p.is_file()],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path):
    for target in LINK.findall(path.read_text()):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        assert (path.parent / target).exists(), f"{path.relative_to(ROOT)} links to missing {target}"


def test_every_study_key_is_documented_with_its_flag():
    from four21sim.study.spec import STUDY_KEYS, VARIANT_KEYS
    from four21sim.sweep import build_parser
    doc = (ROOT / "docs" / "study-format.md").read_text()
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `(?:\[\[)?([a-z_]+)(?:\]\])?` \| ([^|]*)\|", doc, re.M)}
    assert set(STUDY_KEYS) <= set(rows), set(STUDY_KEYS) - set(rows)
    flags = {a for action in build_parser()._actions for a in action.option_strings}
    for key, flag in rows.items():
        flag = flag.strip().strip("`").split("`")[0].split()[0] if flag.strip() else ""
        if flag:  # a documented flag exists and is the key's own name
            assert flag in flags, flag
            assert flag == "--" + key.replace("_", "-"), (key, flag)
    for key in VARIANT_KEYS:
        assert f"`{key}`" in doc
