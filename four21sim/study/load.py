"""``four21sim.load``: a results folder as named pandas DataFrames with its manifest.

    >>> import four21sim
    >>> res = four21sim.load("results/default")
    >>> res                      # the study, and each table's shape
    >>> res.fairness.head()      # or res["fairness"]
    >>> res.manifest["seed"]

Every column of every table is described in docs/results.md.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .._util.atomic import atomic_path, write_text_atomic

__all__ = ["Results", "load"]

MAX_MANIFEST_BYTES = 64 << 20


@dataclass(frozen=True, repr=False)
class Results(Mapping):
    """The tables of a results folder, by name (``measures``, ``fairness``, ...), and its manifest.

    A read-only mapping ``name -> DataFrame``; each table is also an attribute.

    Attributes
    ----------
    path : Path
        The folder read.
    manifest : dict
        ``manifest.json``: what produced the results (the study, seed, versions, code);
        a folder written before run.json existed also has its times here.
    tables : dict of DataFrame
        One per ``*.parquet`` file of the folder, named after the file. A table named like an
        attribute (``path``, ``keys``, ``manifest``) is reached by name: ``res["path"]``.
    run : dict
        ``run.json`` ({} if absent): the command, commit, times and speed of the run.
    """

    path: Path
    manifest: dict
    tables: dict = field(default_factory=dict)
    run: dict = field(default_factory=dict)

    def __getitem__(self, name: str) -> pd.DataFrame:
        try:
            return self.tables[name]
        except KeyError:
            raise KeyError(f"{name!r}: no such table in {self.path}; tables: {', '.join(self.tables)}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self.tables)

    def __len__(self) -> int:
        return len(self.tables)

    def __getattr__(self, name: str) -> pd.DataFrame:
        tables = self.__dict__.get("tables", {})
        if name in tables:
            return tables[name]
        raise AttributeError(f"{type(self).__name__!s} has no attribute or table {name!r}")

    def __dir__(self):
        return [*super().__dir__(), *self.tables]

    def _summary(self) -> tuple[str, list[tuple[str, str]]]:
        m = self.manifest
        head = f"results '{m.get('name', self.path.name)}' from {self.path}"
        finished = self.run.get("finished") or m.get("finished")
        if finished:
            head += f", finished {finished}"
        return head, [(name, f"{df.shape[0]:,} rows x {df.shape[1]} columns") for name, df in self.tables.items()]

    def __repr__(self) -> str:
        head, rows = self._summary()
        return "\n".join([f"<Results: {head}>"] + [f"  {n}: {s}" for n, s in rows])

    def _repr_html_(self) -> str:
        head, rows = self._summary()
        body = "".join(f"<tr><td><code>{html.escape(n)}</code></td><td>{html.escape(s)}</td></tr>" for n, s in rows)
        return f"<p>{html.escape(head)}</p><table><tr><th>table</th><th>size</th></tr>{body}</table>"

    def save(self, path: str | Path) -> Path:
        """Write the tables and the manifest to a folder (each file atomically); returns the folder."""
        out = Path(path)
        out.mkdir(parents=True, exist_ok=True)
        for name, df in self.tables.items():
            with atomic_path(out / f"{name}.parquet") as tmp:
                df.to_parquet(tmp, index=False)
        write_text_atomic(out / "manifest.json", json.dumps(self.manifest, indent=2) + "\n")
        return out


def load(path: str | Path) -> Results:
    """Read a results folder (as written by ``four21sim sweep``).

    Parameters
    ----------
    path : str or Path
        The folder, e.g. ``"results/default"``.

    Returns
    -------
    Results
        Its tables, one per ``*.parquet`` file, and ``manifest.json``.

    Raises
    ------
    ValueError
        If the folder does not exist or holds no ``manifest.json``.
    """
    folder = Path(path)
    if not folder.is_dir():
        raise ValueError(f"path: {str(path)!r} is not a folder; allowed: a results folder such as results/default")
    manifest_file = folder / "manifest.json"
    if not manifest_file.is_file():
        raise ValueError(f"path: {str(path)!r} holds no manifest.json; allowed: a folder written by "
                         "four21sim sweep (results/NAME)")
    from .._util.atomic import read_bounded
    try:
        manifest = json.loads(read_bounded(manifest_file, MAX_MANIFEST_BYTES).decode("utf-8"))
    except (OSError, ValueError) as exc:  # UnsafePath, JSON and UTF-8 errors are ValueErrors
        raise ValueError(f"path: {str(manifest_file)!r} cannot be read as JSON ({exc})") from None
    except RecursionError:
        raise ValueError(f"path: {str(manifest_file)!r} nests too deeply; allowed: a manifest.json written by "
                         "four21sim sweep") from None
    if not isinstance(manifest, dict):
        raise ValueError(f"path: {str(manifest_file)!r} holds a {type(manifest).__name__}, not a manifest; "
                         "allowed: a manifest.json written by four21sim sweep")
    run_file = folder / "run.json"
    try:
        run = json.loads(read_bounded(run_file, MAX_MANIFEST_BYTES).decode("utf-8")) if run_file.is_file() else {}
    except (OSError, ValueError, RecursionError):
        run = {}
    tables = {f.stem: pd.read_parquet(f) for f in sorted(folder.glob("*.parquet"))}
    return Results(folder, manifest, tables, run if isinstance(run, dict) else {})
