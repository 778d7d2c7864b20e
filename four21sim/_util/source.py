"""The code that produced a result: a fingerprint of the package's Python source."""

from __future__ import annotations

import hashlib
from pathlib import Path

__all__ = ["source_fingerprint"]

_PACKAGE = Path(__file__).resolve().parent.parent


def source_fingerprint() -> str:
    """SHA-256 (16 hex digits) of the package's Python source: the code that produced a result.

    Stable from one run to the next of the same code (unlike a time or a commit with local
    edits), and different as soon as any module changes.
    """
    h = hashlib.sha256()
    for f in sorted(_PACKAGE.rglob("*.py")):
        h.update(f.relative_to(_PACKAGE).as_posix().encode() + b"\0")
        h.update(f.read_bytes())
    return h.hexdigest()[:16]
