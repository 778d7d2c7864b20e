"""Where the bytes of the phone page's n-player game data go: per array, as the solver holds it, deflated as
the site stored it before (little-endian int32 or uint16, float64, zlib level 9, base64) and as it stores it
now (:func:`four21sim.advice.site._packed` byte planes; ``trans`` by :func:`four21sim.advice.site._packed_rows`:
equal rows once, the columns from the best hand to the worst, each row as steps, column by column).

    python experiments/site_data_sizes.py               # every size from 3 whose Super 421 equilibrium ships
    python experiments/site_data_sizes.py --players 5

Prints one line per array and a total per size (bytes as in the data file: base64 characters). The leader's
stored values (a phase of more than ``site.LEAD_CONTEXTS`` contexts) are computed as a build does: some 2
minutes at 5 players.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from four21sim.advice import site  # noqa: E402
from four21sim.exact import nplayer, round_tables, shipped  # noqa: E402
from four21sim.rules.variants import as_variant  # noqa: E402


def before(a: np.ndarray) -> int:
    """Base64 characters of the form stored before: uint16 where the values fit, else int32, or float64."""
    a = np.asarray(a).ravel()
    dt = "<f8" if a.dtype.kind == "f" else ("<u2" if a.min() >= 0 and a.max() < 2 ** 16 else "<i4")
    return len(base64.b64encode(zlib.compress(a.astype(dt).tobytes(), 9)))


def now(obj) -> int:
    """Base64 characters of a packed array (or rows) now: what its JSON holds."""
    return len(json.dumps(obj, separators=(",", ":")))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", default=None, help="sizes (default: every size from 3 that ships)")
    args = ap.parse_args()
    v = as_variant("super421")
    sizes = ([int(x) for x in args.players.split(",")] if args.players
             else [n for n in range(3, nplayer.MAX_PLAYERS + 1) if shipped.available(v, n)])
    print(f"{'players':>7} {'array':24} {'entries':>11} {'raw bytes':>12} {'before':>11} {'now':>11}")
    for n in sizes:
        sol = nplayer.solve(v, n, "pay")
        a = site.nplayer_arrays(sol)
        data = site.nplayer_data(sol, a)
        rows = []
        for ph, c in a["phases"].items():
            p = data["phases"][ph]
            rows.append((f"{ph} trans", c["trans"].size, c["trans"].size * 4, before(c["trans"]), now(p["trans"])))
            rows.append((f"{ph} ctx_c", c["ctx_c"].size, c["ctx_c"].size, before(c["ctx_c"]), now(p["ctx_c"])))
            if "lead_ends" in p or c["G"] > 20_000:  # stored before above 20,000 contexts
                at = [i for i, (pot, _) in enumerate(sol.states) if (pot > 0) == (ph == "charge")]
                U = (site.unpack(p["lead_ends"]) if "lead_ends" in p
                     else np.array([round_tables.lead_ends(sol, i) for i in at]).ravel())
                rows.append((f"{ph} lead_ends", U.size, U.size * 8, before(U), now(p["lead_ends"]) if "lead_ends" in p
                             else 0))
        succ = np.concatenate([x.ravel() for x in a["succ"]])
        rows.append(("values", a["values"].size, a["values"].nbytes, before(a["values"]), now(data["values"])))
        rows.append(("succ", succ.size, succ.size * 4, before(succ), now(data["succ"])))
        small = len(json.dumps(data, separators=(",", ":"))) - sum(r[4] for r in rows)
        for name, entries, raw, b, w in rows:
            print(f"{n:>7} {name:24} {entries:>11,} {raw:>12,} {b:>11,} {w:>11,}")
        print(f"{n:>7} {'the rest (lists, numbers)':24} {'':>11} {'':>12} {'':>11} {small:>11,}")
        print(f"{n:>7} {'the arrays above':24} {'':>11} {sum(r[2] for r in rows):>12,} {sum(r[3] for r in rows):>11,} "
              f"{sum(r[4] for r in rows):>11,}")
        print(f"{n:>7} {'the data file now':24} {'':>11} {'':>12} {'':>11} "
              f"{len(json.dumps(data, separators=(',', ':'))):>11,}", flush=True)


if __name__ == "__main__":
    main()
