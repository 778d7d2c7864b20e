"""How long the phone page takes to give the game answer at 3 to 6 players, in headless Chromium with
the CPU throttled 4x (CDP ``Emulation.setCPUThrottlingRate``), as a slow phone would.

Builds a site (``four21sim site``, by default with the n-player data at every size that ships, even
those a default build leaves out for their size, to measure them too), opens it from the file system,
and times ``window.F421.game`` (the page's own game answer, the same code its form runs) in situations
of each size: the leader and followers, charge and décharge, each in a token state not asked before
(nothing of its round is cached). The first answer of a size includes reading and inflating its data
file. Prints one line per answer and a summary per size.

    python experiments/site_game_timing.py                 # sizes 3 to 6 (those that ship)
    python experiments/site_game_timing.py --players 3,4   # the default build's sizes only
    python experiments/site_game_timing.py --rate 1        # unthrottled
    python experiments/site_game_timing.py --site DIR      # a site written before (four21sim site --out DIR)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from four21sim.advice import site  # noqa: E402
from four21sim.exact import nplayer, shipped  # noqa: E402
from four21sim.rules.variants import as_variant  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
LIMIT_S = {4: 2.0}  # the brief's target: any answer at 4 players within 2 s throttled 4x; 5 s everywhere


def situations(n: int, tokens: int) -> list[tuple[str, dict]]:
    """(label, address parameters) at n players: a state per situation, none asked twice."""
    out = []
    spread = [tokens // n + (1 if i < tokens % n else 0) for i in range(n)]  # every seat some tokens
    charge_toks = [0] * n
    charge_toks[1] = 2
    charge_toks[2 % n] += 1
    for label, pot, toks, leader in (("décharge", 0, spread, 0), ("charge", tokens - 3, charge_toks, 0)):
        state = f"pot={pot}," + ",".join(f"t{i}={t}" for i, t in enumerate(toks)) + f",leader={leader}"
        out.append((f"leader, {label}", dict(hand="631", throws="1", players=str(n), seat="0", state=state)))
        for seat in (1, n - 1):
            beat = ",".join(["654", "521", "311", "652", "443"][:seat])
            out.append((f"follower {seat}, {label}", dict(hand="631", throws="1", players=str(n), seat=str(seat),
                                                        state=state, beat=beat, count="3")))
        if label == "décharge":  # another décharge state for the leader: its round not solved before
            moved = spread[1:] + spread[:1]
            state2 = "pot=0," + ",".join(f"t{i}={t}" for i, t in enumerate(moved)) + ",leader=0"
            out.append(("leader, décharge, another state", dict(hand="542", throws="2", players=str(n), seat="0",
                                                                state=state2)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", default=None, help="sizes to time (default: every size from 3 that ships)")
    ap.add_argument("--rate", type=float, default=4.0, help="CPU throttling rate (default 4)")
    ap.add_argument("--site", default=None, help="time this site, written before, instead of building one")
    args = ap.parse_args()
    v = as_variant("super421")
    sizes = ([int(x) for x in args.players.split(",")] if args.players
             else [n for n in range(3, nplayer.MAX_PLAYERS + 1) if shipped.available(v, n)])
    missing = [n for n in range(3, nplayer.MAX_PLAYERS + 1) if not shipped.available(v, n)]
    from playwright.sync_api import sync_playwright
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.site).resolve() if args.site else Path(tmp) / "site"
        t0 = time.perf_counter()
        if not args.site:
            info = site.build_site(out, players=(2, *sizes))
            print(f"built {info['files']} files, {info['bytes'] / 1e6:.2f} MB in {time.perf_counter() - t0:.0f} s",
                  flush=True)
        files = {p.name: p.stat().st_size for p in (out / "data" / "super421").iterdir()}
        print(", ".join(f"{k} {b / 1e6:.2f} MB" for k, b in sorted(files.items())), flush=True)
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
            for n in sizes:
                page = b.new_page(viewport={"width": 390, "height": 844})
                cdp = page.context.new_cdp_session(page)
                cdp.send("Emulation.setCPUThrottlingRate", {"rate": args.rate})
                page.goto(f"file://{out}/index.html")
                page.wait_for_function("window.F421 !== undefined")
                worst = 0.0
                for label, q in situations(n, v.tokens):
                    r = page.evaluate("""async (p) => { const t = performance.now();
                        try { const g = await window.F421.game(p); return [performance.now() - t, g.length, ""]; }
                        catch (e) { return [performance.now() - t, 0, String(e.message)]; } }""", q)
                    ms, count, err = r
                    worst = max(worst, ms)
                    print(f"{n} players, {label:34s} {ms / 1000:6.2f} s" + (f"  ({err})" if err else
                                                                            f"  ({count} keeps)"), flush=True)
                limit = LIMIT_S.get(n, 5.0)
                print(f"{n} players: slowest answer {worst / 1000:.2f} s at CPU x{args.rate:g} "
                      f"({'within' if worst / 1000 <= limit else 'over'} {limit:g} s)", flush=True)
                page.close()
            b.close()
    for n in missing:
        print(f"{n} players: no equilibrium ships for Super 421, so no data to time")


if __name__ == "__main__":
    main()
