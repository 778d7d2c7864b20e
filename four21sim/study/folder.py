"""A results folder that is never turned against its user: what ``--out`` may be, what is ours, the swap.

What ``--out`` may be
    a new folder, an empty one, or a results folder (one holding this package's
    ``study.json``, or nothing but the names a run writes). Refused, before anything is
    written: ``''``, ``/``, the home folder, the checkout of this package and every
    folder above it, an existing non-empty folder that is not a results folder (the
    error names what is in it), a path that is not a folder or cannot be written.

What a run touches
    only the names it writes: ``study.json``, ``parts/<key>/<block>.npz``, ``.lock``,
    the outputs (``*.parquet``, ``REPORT.md``, ``manifest.json``, ``run.json``,
    ``figures/NN-title.png``) and its temporary files. Anything else in the folder (notes,
    ``figures/my.png``) is kept as it is. Below ``--out``, a symbolic link or a special file
    (FIFO, device, socket) where a run reads or writes is refused with an error naming it,
    never followed (:func:`~four21sim._util.atomic.check_tree`, ``O_NOFOLLOW``). A name a run
    writes that is a hard link to a file elsewhere is replaced by a new file (every write is a
    new file renamed into place), so the file elsewhere keeps its content; ``.lock``, which
    must stay the file every run locks, is refused instead, naming it (:mod:`.lock`).

The swap (:func:`swap_outputs`)
    the new outputs are written into a temporary folder beside the results folder, with
    everything of the folder that stays (parts, ``study.json``, the user's files) added as
    hard links, and the two folders are exchanged in one atomic step (Linux
    ``renameat2(RENAME_EXCHANGE)``): a reader, or a run killed at any instant, sees the old
    outputs or the new ones, whole. Where that cannot be done (another system, a folder whose
    parent cannot be written, the current directory inside the folder) the outputs are
    moved in one by one, the figures last.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import re
import shutil
import stat
import sys
from pathlib import Path

from .._util.atomic import UnsafePath, check_tree, kind_of, read_bounded, temp_owner

__all__ = ["check_out", "check_results_folder", "part_files", "is_ours", "swap_outputs", "read_study_json",
           "remove_stale_stages", "FIGURES", "STAGE_MARK"]

FIGURES = "figures"
STATE = ("study.json", "parts", ".lock")
OUTPUT_NAMES = ("REPORT.md", "manifest.json", "run.json")
STAGE_MARK = ".four21sim-stage"
MAX_JSON_BYTES = 16 << 20
_FIGURE = re.compile(r"^\d\d-[a-z0-9-]+\.png$")
_CHECKOUT = Path(__file__).resolve().parent.parent.parent


def is_ours(rel: str) -> bool:
    """Whether a path of a results folder (relative, ``/``-separated) is a name a run writes."""
    parts = rel.split("/")
    if temp_owner(parts[-1]) is not None or parts[0] == ".outputs" or parts[0].startswith(".outputs."):
        return True
    if len(parts) == 1:
        return parts[0] in STATE + OUTPUT_NAMES + (FIGURES,) or parts[0].endswith(".parquet")
    if parts[0] == FIGURES:
        return len(parts) == 2 and bool(_FIGURE.match(parts[1]))
    return parts[0] == "parts"


def _forbidden(out: Path) -> str | None:
    real = Path(os.path.realpath(out))
    home = Path(os.path.realpath(Path.home())) if "HOME" in os.environ or sys.platform != "win32" else None
    if real == Path(real.anchor):
        return "the root of the file system"
    if home is not None and real == home:
        return "the home folder"
    if _CHECKOUT == real or real in _CHECKOUT.parents:
        return f"the checkout of four21sim ({_CHECKOUT}) or a folder above it"
    return None


def check_out(out, option: str = "--out") -> Path:
    """``out`` as a Path if a run may write there (nothing is written); ValueError otherwise."""
    text = str(out)
    if text == "" or "\0" in text:
        raise ValueError(f"{option}: {text!r} is not allowed; allowed: a folder path (a new folder, an empty one, "
                         "or a results folder)")
    out = Path(text)
    why = _forbidden(out)
    if why:
        raise ValueError(f"{option}: {text!r} is {why}; allowed: a new folder, an empty one, or a results folder "
                         "(e.g. results/NAME)")
    try:
        mode = os.stat(out).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise ValueError(f"{option}: {text!r} cannot be used ({exc.strerror or exc})") from None
    if mode is not None and not stat.S_ISDIR(mode):
        raise ValueError(f"{option}: {text!r} exists and is {kind_of(mode)}, not a folder")
    probe = out
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
        raise ValueError(f"{option}: {text!r} is not writable (no write permission on {str(probe)!r})")
    return out


def read_study_json(out: Path) -> dict:
    """``study.json`` of a results folder ({} if missing or unreadable); a link or special file raises."""
    try:
        old = json.loads(read_bounded(out / "study.json", MAX_JSON_BYTES, follow=False))
    except FileNotFoundError:
        return {}
    except UnsafePath as exc:
        raise UnsafePath(f"--out: {str(out / 'study.json')!r} {exc}; a results folder holds only plain files: "
                         "remove it") from None
    except (OSError, ValueError, RecursionError):
        return {}
    return old if isinstance(old, dict) else {}


def part_files(out: Path) -> list[Path]:
    """Every part file under ``out/parts``, refusing (UnsafePath) links and special files there."""
    parts = out / "parts"
    check_tree(out, parts)
    if not parts.is_dir():
        return []
    found = []
    for key in sorted(os.scandir(parts), key=lambda e: e.name):
        check_tree(out, Path(key.path))
        if not key.is_dir(follow_symlinks=False):
            continue
        for f in sorted(os.scandir(key.path), key=lambda e: e.name):
            if f.name.endswith(".npz") and not f.name.startswith("."):
                check_tree(out, Path(f.path))
                found.append(Path(f.path))
    return found


def _foreign(out: Path) -> list[str]:
    return sorted(e.name for e in os.scandir(out) if not is_ours(e.name))


def check_results_folder(fingerprint: str, code: dict, out: Path, chosen: bool, part_study) -> None:
    """Refuse (ValueError) a folder that is not a results folder, or holds another study's or other
    code's results. ``part_study(path)``: the study fingerprint a part file records. Read only."""
    for name in STATE + OUTPUT_NAMES + (FIGURES,):
        check_tree(out, out / name)
    old = read_study_json(out)
    has_json = (out / "study.json").exists()
    parts = part_files(out)
    hint = ("choose another --out, or delete that folder to start again" if chosen else
            "give this study another name (--name) or an --out folder: it would replace them")
    if not has_json and _foreign(out):
        shown = ", ".join(_foreign(out)[:5])
        raise ValueError(f"--out: {str(out)!r} is not a results folder (it holds {shown}, and no study.json); "
                         "allowed: a new folder, an empty one, or a results folder: choose another --out")
    if has_json:
        outputs = (out / "manifest.json").exists()
        if old.get("fingerprint") != fingerprint and (parts or outputs or not chosen):
            raise ValueError(f"--out: {str(out)!r} holds the results of a different study "
                             f"(fingerprint {old.get('fingerprint')!r}, this one {fingerprint!r}); {hint}")
        if old.get("code") != code and parts:
            raise ValueError(f"--out: {str(out)!r} holds parts made by other code ({old.get('code')}, this is "
                             f"{code}); they cannot be mixed: choose another --out, or delete that folder to "
                             "start again")
    elif parts:  # no study.json (deleted?): the parts say which study they belong to
        others = {s for s in map(part_study, parts) if s is not None and s != fingerprint}
        if others:
            raise ValueError(f"--out: {str(out)!r} holds part files of a different study (fingerprint "
                             f"{sorted(others)[0]!r}, this one {fingerprint!r}) and no study.json; {hint}")


# ------------------------------------------------------------------ the swap
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Exchange two folders atomically (Linux renameat2); False where that is not possible."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EXDEV, errno.EPERM, errno.EACCES, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _link_tree(src: Path, dst: Path, rel: str, drop: set[str]) -> None:
    """Hard-link into ``dst`` everything of ``src`` that stays (not in ``drop``, not already in ``dst``)."""
    for e in os.scandir(src):
        r = f"{rel}{e.name}"
        target = dst / e.name
        if r in drop or e.name == ".lock" or temp_owner(e.name) is not None or e.name.startswith(".outputs"):
            continue
        if e.is_dir(follow_symlinks=False):
            target.mkdir(exist_ok=True)
            _link_tree(Path(e.path), target, r + "/", drop)
        elif not os.path.lexists(target):
            os.link(e.path, target, follow_symlinks=False)


def _stale(rel: str) -> bool:
    """An output of an earlier run: replaced or removed by the swap."""
    parts = rel.split("/")
    if len(parts) == 1:
        return parts[0] in OUTPUT_NAMES or parts[0].endswith(".parquet")
    return parts[0] == FIGURES and len(parts) == 2 and bool(_FIGURE.match(parts[1]))


def _old_outputs(out: Path) -> set[str]:
    found = {e.name for e in os.scandir(out) if e.is_file(follow_symlinks=False) and _stale(e.name)}
    fig = out / FIGURES
    if fig.is_dir() and not fig.is_symlink():
        found |= {f"{FIGURES}/{e.name}" for e in os.scandir(fig) if _stale(f"{FIGURES}/{e.name}")}
    return found


def stage_path(out: Path) -> Path:
    """Where the new outputs are written: beside the folder (for the exchange), else inside it."""
    out = Path(os.path.realpath(out))
    beside = out.parent / f".{out.name}.{os.getpid()}.tmp"
    cwd = os.path.realpath(os.getcwd())
    inside = cwd == str(out) or cwd.startswith(str(out) + os.sep)
    if not inside and os.access(out.parent, os.W_OK | os.X_OK):
        return beside
    return out / f".outputs.{os.getpid()}.tmp"


def swap_outputs(out: Path, stage: Path, files: list[str]) -> None:
    """Make the outputs written in ``stage`` (``files``: relative names) the folder's, as one."""
    out = Path(os.path.realpath(out))
    drop = _old_outputs(out) | set(files)
    if stage.parent == out.parent:
        try:
            _link_tree(out, stage, "", drop)
            (stage / ".lock").touch()
            swapped = _exchange(stage, out)
        except OSError:  # e.g. hard links refused (another owner's files): the fallback below
            swapped = False
        if swapped:  # the instant the new outputs appear, whole; then the old folder goes
            shutil.rmtree(stage, ignore_errors=True)
            return
        inner = out / f".outputs.{os.getpid()}.tmp"
        shutil.rmtree(inner, ignore_errors=True)
        os.mkdir(inner)
        for name in files:
            (inner / name).parent.mkdir(parents=True, exist_ok=True)
            os.replace(stage / name, inner / name)
        shutil.rmtree(stage, ignore_errors=True)
        stage = inner
    _move_in(out, stage, files, drop)


def _move_in(out: Path, stage: Path, files: list[str], drop: set[str]) -> None:
    """The fallback: one rename per file, the tables and the manifest first, then the figures, the
    report last (it links the figures); then the outputs of the earlier run that are gone."""
    (out / FIGURES).mkdir(exist_ok=True)
    order = sorted(files, key=lambda n: (n == "REPORT.md", n.startswith(FIGURES + "/")))
    for name in order:
        os.replace(stage / name, out / name)
    for name in sorted(drop - set(files)):
        (out / name).unlink(missing_ok=True)
    shutil.rmtree(stage, ignore_errors=True)


def remove_stale_stages(out: Path) -> list[Path]:
    """Folders beside ``out`` left by a dead run's swap (``.NAME.PID.tmp`` holding a study.json)."""
    out = Path(os.path.realpath(out))
    gone = []
    try:
        entries = list(os.scandir(out.parent))
    except OSError:
        return gone
    for e in entries:
        pid = temp_owner(e.name)
        if pid is None or not e.name.startswith(f".{out.name}.") or not e.is_dir(follow_symlinks=False):
            continue
        from .._util.atomic import pid_alive
        if pid != os.getpid() and not pid_alive(pid) and os.path.lexists(Path(e.path) / "study.json"):
            shutil.rmtree(e.path, ignore_errors=True)
            gone.append(Path(e.path))
    return gone
