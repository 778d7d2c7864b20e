"""The README's phone screenshot of the advisor's page (docs/img/site-phone.png).

    python experiments/site_screenshot.py [--out docs/img/site-phone.png]

Writes the default site (``four21sim site``) to a temporary folder, opens it in headless
Chromium (Playwright, as tests/test_site.py does) at a phone's 390 x 844 CSS pixels, twice
as many device pixels, with a follower's game situation in the address (543 behind a 654,
one throw left, the tokens 0, 3, 8: the décharge), and saves the screen as it opens, not
scrolled: what a player sees.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from four21sim.advice.site import build_site

SITUATION = "#variant=super421&role=follower&hand=543&throws=1&beat=654&count=3&state=0,3,8"
CHROMIUM = os.environ.get("FOUR21SIM_CHROMIUM", "/usr/bin/chromium")


def main() -> None:
    from playwright.sync_api import sync_playwright
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "docs" / "img" / "site-phone.png"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        site = Path(tmp) / "site"
        build_site(site)
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                                  has_touch=True)
        page = ctx.new_page()
        page.goto((site / "index.html").as_uri() + SITUATION)
        page.wait_for_selector("#answer .best")
        page.screenshot(path=args.out)
        browser.close()
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
