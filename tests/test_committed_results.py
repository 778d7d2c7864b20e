"""The committed results of the main job are what the code of the same commit writes.

``python -m four21sim.sweep`` (the README's main job) records the fingerprint of the package's
source (``four21sim._util.source.source_fingerprint``) in ``results/default/manifest.json`` and
in REPORT.md. A commit that changes any module of the package without running it again leaves
a folder that a fresh clone's main job rewrites (a dirty clone), and numbers that no longer
say which code produced them: this test fails then, naming the command that remakes the folder.

The witness is the code on disk, hashed now; the recorded values are read as text and checked
against it, nothing else in the folder is trusted.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from four21sim._util.source import source_fingerprint

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "results" / "default"
REMAKE = ("run `python -m four21sim.sweep` from the repository's root (the main job, about a minute and a half) and "
          "commit results/default/ with the change of code")


def test_results_default_was_written_by_the_code_of_this_commit():
    now = source_fingerprint()
    recorded = json.loads((DEFAULT / "manifest.json").read_text())["code"]["source"]
    lines = re.findall(r"^Produced by four21sim \S+ \(source ([0-9a-f]+)\)", (DEFAULT / "REPORT.md").read_text(),
                       flags=re.MULTILINE)
    assert len(lines) == 1, "results/default/REPORT.md: no single 'Produced by four21sim ... (source ...)' line; " \
                            + REMAKE
    assert recorded == lines[0], (f"results/default: manifest.json says source {recorded}, REPORT.md says "
                                  f"{lines[0]}: the folder is not one run's; {REMAKE}")
    assert recorded == now, (f"results/default was written by the package at source {recorded}; the package here is "
                             f"at source {now} (four21sim._util.source.source_fingerprint: every .py of four21sim/, "
                             f"untracked ones too): {REMAKE}")
