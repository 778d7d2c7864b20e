"""The phone screenshots of the advisor's page (docs/img/site-phone.png, docs/img/site-phone-4p.png).

    python experiments/site_screenshot.py [--only 2|4] [--folder docs/img]

Writes the default site (``four21sim site``) to a temporary folder, opens it in headless
Chromium (Playwright, as tests/test_site.py does) at a phone's 390 x 844 CSS pixels, twice
as many device pixels, with a game situation in the address, and saves the screen once the
game answer is shown, not scrolled: what a player sees. Two situations:

- ``site-phone.png`` (2 players): a follower's 543 behind a 654, one throw left, the tokens
  0, 3, 8 (the décharge);
- ``site-phone-4p.png`` (4 players, issue 47's): seat 2 holding 631 behind 654 and 521, one
  throw left, tokens 4, 2, 3, 2 by seat in the décharge, seat 0 leading; the answer sits under
  the hand and the throws, the table's fields (players, seat, tokens) below it, so that it shows
  on the screen as it opens (tests/test_site_nplayer_browser.py measures it at 2, 4 and 6 players).
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from four21sim.advice.site import build_site

SITUATIONS = {
    "2": ("site-phone.png", "#variant=super421&role=follower&hand=543&throws=1&beat=654&count=3&state=0,3,8"),
    "4": ("site-phone-4p.png", "#variant=super421&hand=631&throws=1&beat=654,521&count=3&players=4&seat=2"
                               "&state=pot=0,t0=4,t1=2,t2=3,t3=2,leader=0"),
}
CHROMIUM = os.environ.get("FOUR21SIM_CHROMIUM", "/usr/bin/chromium")


def main() -> None:
    from playwright.sync_api import sync_playwright
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folder", default=str(Path(__file__).resolve().parents[1] / "docs" / "img"))
    ap.add_argument("--only", choices=sorted(SITUATIONS), default=None, help="one picture: its player count")
    args = ap.parse_args()
    which = [args.only] if args.only else sorted(SITUATIONS)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        site = Path(tmp) / "site"
        build_site(site, players=(2, 3, 4))  # the pictures are at 2 and 4 players: the 5-player data would add 2 min
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                                  has_touch=True)
        for n in which:
            name, situation = SITUATIONS[n]
            page = ctx.new_page()
            page.goto((site / "index.html").as_uri() + situation)
            page.wait_for_selector("#best-game", timeout=60_000)
            out = Path(args.folder) / name
            page.screenshot(path=str(out))
            page.close()
            print(f"wrote {out}")
        browser.close()


if __name__ == "__main__":
    main()
