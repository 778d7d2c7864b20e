"""``four21sim site --out DIR``: write the advisor's page as a static site (no server; works offline).

Example::

    four21sim site --out table-site && xdg-open table-site/index.html
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .._util.waiting import end_progress_line, progress_line
from ..rules.variants import PRESETS
from ._common import add_version, run

PROG = "four21sim site"

_EPILOG = """examples:
  four21sim site --out table-site                 # Super 421, the game answer at 2 to 6 players: 3.6 MB, 11 files
  four21sim site --out table-site --variants all  # every preset
  four21sim site --out table-site --players 2,3,4   # the game answer at 2 to 4 players only: 0.8 MB
  four21sim site --out small --variants super421,classic --no-game

Open DIR/index.html from the file system, or put DIR on any static host; to use it on a phone,
serve it (python -m http.server in DIR, then the computer's address from the phone on the same
Wi-Fi) or put it on a static host (GitHub Pages). A situation can be given in the address:
index.html#variant=super421&role=follower&hand=631&throws=2&beat=611 (and &state=POT,MINE,THEIRS
for the game answer; at 3 to 6 players &players=4&seat=2&state=pot=0,t0=4,t1=2,t2=3,t3=2,leader=0
as advise takes them). docs/site.md describes the address, the data files and their sizes.
"""


def build_parser() -> argparse.ArgumentParser:
    from ..advice.site import DEFAULT_VARIANTS, GAME_PLAYERS, PAGE_GAME_PLAYERS
    p = argparse.ArgumentParser(
        prog=PROG, description="Write the advisor as a self-contained static site: one page (HTML, CSS, a little "
                               "JavaScript) and the exact tables it reads.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", metavar="DIR", required=True,
                   help="the folder to write: new, empty, or a site written before (replaced whole; "
                        "it must hold nothing but the files its four21sim-site.json lists)")
    p.add_argument("--variants", metavar="LIST", default=",".join(DEFAULT_VARIANTS),
                   help=f"comma-separated presets among {','.join(PRESETS)}, or 'all' "
                        f"(default: {','.join(DEFAULT_VARIANTS)})")
    p.add_argument("--players", metavar="LIST", default=None,
                   help=f"the table sizes with a game answer, comma-separated among {PAGE_GAME_PLAYERS[0]} to "
                        f"{PAGE_GAME_PLAYERS[1]} (default: {','.join(map(str, GAME_PLAYERS))}; from 3, those whose "
                        "equilibrium ships; 5 and 6 are most of the data: 0.8 and 1.9 MB, docs/site.md)")
    p.add_argument("--no-game", action="store_true",
                   help="leave out the game answers (2 to 6 players): round answers only")
    talk = p.add_mutually_exclusive_group()
    talk.add_argument("--quiet", action="store_true", help="print only the summary line")
    talk.add_argument("--verbose", action="store_true", help="print a line per step instead of one progress line")
    add_version(p)
    return p


def _variants(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    if names == ["all"]:
        return list(PRESETS)
    allowed = f"{', '.join(PRESETS)}, or all"
    if not names:
        raise ValueError(f"--variants: {text!r} is not allowed; allowed: presets among {allowed}")
    bad = [n for n in names if n not in PRESETS]
    if bad:
        raise ValueError(f"--variants: {bad[0]!r} is not allowed; allowed: {allowed}")
    return list(dict.fromkeys(names))


def _players(text: str | None) -> tuple[int, ...]:
    from ..advice.site import GAME_PLAYERS, PAGE_GAME_PLAYERS
    if text is None:
        return GAME_PLAYERS
    lo, hi = PAGE_GAME_PLAYERS
    allowed = f"table sizes from {lo} to {hi}, comma-separated"
    parts = [x.strip() for x in text.split(",")]
    for x in parts:
        if not (x.isdigit() and lo <= int(x) <= hi):
            raise ValueError(f"--players: {x!r} is not allowed; allowed: {allowed}")
    return tuple(sorted({int(x) for x in parts}))


class _Progress:
    """One progress line on stderr: rewritten in place on a terminal, printed at most every tenth otherwise."""

    def __init__(self, stream, verbose: bool, quiet: bool):
        self.stream, self.verbose, self.quiet = stream, verbose, quiet
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.shown = -1

    def __call__(self, done: int, total: int, what: str) -> None:
        if self.quiet:
            return
        if self.verbose:
            print(f"[{done}/{total}] {what}", file=self.stream, flush=True)
            return
        pct = 100 * done // total
        if self.tty:  # (a notice meanwhile, a first compile or solve, ends this line first)
            progress_line(f"writing the site: {pct}% ({done}/{total} steps)", self.stream)
        elif done == total:
            # a log gets one line, once the work is done; a terminal gets the line rewritten in place
            print(f"writing the site: {pct}% ({done}/{total} steps)", file=self.stream, flush=True)
        self.shown = pct

    def close(self) -> None:
        end_progress_line(self.stream)


def main(argv: Sequence[str] | None = None) -> int:
    import time

    from ..advice.site import build_site
    args = build_parser().parse_args(argv)
    names = _variants(args.variants)
    players = _players(args.players)
    progress = _Progress(sys.stderr, args.verbose, args.quiet)
    start = time.monotonic()
    try:
        out = build_site(args.out, names, game=not args.no_game, progress=progress, players=players)
    except OSError as exc:
        raise ValueError(f"--out: cannot write {args.out!r} ({exc.strerror or exc})") from None
    finally:
        progress.close()
    print(f"wrote {out['files']} files, {out['bytes'] / 1e6:.1f} MB to {args.out} in "
          f"{time.monotonic() - start:.0f} s; open {args.out}/index.html (or serve the folder: docs/site.md)")
    return 0


def console(argv: Sequence[str] | None = None) -> int:
    return run(main, "site", argv)


if __name__ == "__main__":
    sys.exit(console())
