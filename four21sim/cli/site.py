"""``four21sim site --out DIR``: write the advisor's page as a static site (no server; works offline).

Example::

    four21sim site --out table-site && xdg-open table-site/index.html
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..rules.variants import PRESETS
from ._common import add_version, run

PROG = "four21sim site"

_EPILOG = """examples:
  four21sim site --out table-site                 # every preset, round and 2-player game answers
  four21sim site --out small --variants super421 --no-game

Open DIR/index.html from the file system, or put DIR on any static host. A situation can
be given in the address: index.html#variant=super421&role=follower&hand=631&throws=2&beat=611
(and &state=POT,MINE,THEIRS for the game answer). docs/site.md describes the address, the
data files and their sizes.
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG, description="Write the advisor as a self-contained static site: one page (HTML, CSS, a little "
                               "JavaScript) and the exact tables it reads.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", metavar="DIR", required=True,
                   help="the folder to write (new, empty, or a site written before, which is replaced whole)")
    p.add_argument("--variants", metavar="LIST", default=",".join(PRESETS),
                   help=f"comma-separated presets (default: all: {','.join(PRESETS)})")
    p.add_argument("--no-game", action="store_true",
                   help="leave out the 2-player game answers (the bulk of the data): round answers only")
    p.add_argument("--quiet", action="store_true", help="print only the summary line")
    add_version(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    from ..advice.site import build_site
    args = build_parser().parse_args(argv)
    names = [n.strip() for n in args.variants.split(",") if n.strip()]
    if not names:
        raise ValueError(f"--variants: {args.variants!r} is not allowed; allowed: presets among {', '.join(PRESETS)}")
    bad = [n for n in names if n not in PRESETS]
    if bad:
        raise ValueError(f"--variants: {bad[0]!r} is not allowed; allowed: {', '.join(PRESETS)}")

    def progress(line: str) -> None:
        if not args.quiet:
            print(line, file=sys.stderr, flush=True)

    try:
        out = build_site(args.out, names, game=not args.no_game, progress=progress)
    except OSError as exc:
        raise ValueError(f"--out: cannot write {args.out!r} ({exc.strerror or exc})") from None
    print(f"wrote {args.out}: {out['files']} files, {out['bytes'] / 1e6:.1f} MB; open {args.out}/index.html")
    return 0


def console(argv: Sequence[str] | None = None) -> int:
    return run(main, "site", argv)


if __name__ == "__main__":
    sys.exit(console())
