"""The advisor's static site (``four21sim site``), in a real headless browser.

The site is written once for the module (every preset's round answers, the game answers
of a few token states) and opened from the file system in Debian's Chromium, driven by
Playwright. Its answers are compared with ``four21sim advise`` (the command's JSON,
computed in-process), round answers as exact fractions, game answers (which the page
computes from the solver's values of the round's outcomes) to 1e-12.

Without Chromium the browser tests are skipped, with the reason, except in CI (the
``CI`` variable, set by .ci/run), where a missing browser fails.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from notices import without_notices

from four21sim._util.checks import shown
from four21sim.advice import site as site_mod
from four21sim.cli import advise as advise_cli
from four21sim.rules.variants import PRESETS, Variant

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("FOUR21SIM_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _states(v: Variant):
    T = v.tokens
    extra = [(0, 9, 12), (0, 10, 11)] if v.tokens == 21 else [(0, 5, 6), (0, 3, 8)]  # (0, 10, 11): docs/site.md
    return sorted({(T, 0, 0), (5, 3, T - 8), *extra})


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "site"
    # the 2-player game answers only: tests/test_site_nplayer*.py hold the page to 3 players and more
    info = site_mod.build_site(out, variants=list(PRESETS), states=_states, players=(2,))
    return out, info


def _browser_or_skip():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        reason = "the playwright package is not installed (pip install -e '.[test]')"
    else:
        if Path(CHROMIUM).is_file() or shutil.which(CHROMIUM):
            return sync_playwright
        reason = f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    if os.environ.get("CI"):
        pytest.fail(f"browser tests cannot run in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    sync_playwright = _browser_or_skip()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


@pytest.fixture()
def page(browser, built):
    ctx = browser.new_context(viewport={"width": 390, "height": 844})
    pg = ctx.new_page()
    requests = []
    pg.on("request", lambda r: requests.append(r.url))
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.requests, pg.errors = requests, errors
    yield pg
    ctx.close()
    assert errors == [], errors


def _open(page, built, hash_=""):
    url = (built[0] / "index.html").as_uri() + hash_
    page.goto(url)
    page.wait_for_function("document.querySelector('#answer table, #answer p, #error:not([hidden])') !== null")
    return page


def _go(page, hash_):
    page.evaluate("h => { location.hash = h; }", hash_)
    page.wait_for_function("h => decodeURIComponent(location.hash) === decodeURIComponent(h)", arg=hash_)
    # the answer for this hand is drawn (or the error shown)
    page.wait_for_function("""() => { const e = document.getElementById('error');
        if (!e.hidden) return true; const t = document.querySelector('#keeps'); return t !== null; }""")
    page.wait_for_timeout(30)


def _rows(page):
    return page.eval_on_selector_all("#keeps tbody tr", """rows => rows.map(r => {
        const c = r.querySelectorAll('td');
        return {keep: c[0].textContent, num: c[1].dataset.num, den: c[1].dataset.den,
                p: c.length > 2 ? c[2].dataset.p : null}; })""")


# ----------------------------------------------------------------- the data, without a browser
def test_a_site_is_a_handful_of_files(built):
    out, info = built
    files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert info["files"] == len(files) == 5 + 2 * len(PRESETS), files  # the page, manifest, marker, 2 a variant
    assert info["bytes"] == sum((out / f).stat().st_size for f in files)
    index = json.loads((out / "data" / "index.js").read_text().split('["index"] = ', 1)[1].rstrip(";\n"))
    assert set(index["variants"]) == set(PRESETS)
    assert index["variants"]["classic"]["game"]["2"]["states"] == [list(s) for s in
                                                                  _states(Variant.from_preset("classic"))]


def test_the_page_offers_the_table_sizes_of_the_rules(built):
    # the game answer reaches the sizes the advisor answers (nplayer.ANSWER_PLAYERS), not every size the
    # solver takes (7 and 8 players: hours to solve, nothing ships)
    from four21sim.exact.nplayer import ANSWER_PLAYERS
    from four21sim.rules.variants import MAX_PLAYERS, MIN_PLAYERS
    assert built[1]["manifest"]["players"] == {"min": MIN_PLAYERS, "max": MAX_PLAYERS, "game_max": ANSWER_PLAYERS,
                                               "page_game_max": 6}  # (four21sim site --players: up to 6)
    app = (built[0] / "app.js").read_text()
    assert not re.search(r"PLAYERS\s*=\s*\d", app)  # the range is the manifest's, not the page's


def test_game_tables_equal_the_advisors_game_keeps():
    # the site's vectorised tables against advisor.game_keeps (two_player's per-keep functions), one state
    from four21sim.advice.advisor import game_keeps
    from four21sim.exact import two_player
    from four21sim.rules import dice
    v = Variant.from_preset("super421-lebon")
    sol = two_player.solve(v)
    lead = site_mod.game_lead(sol, 0, 4, 7)
    rng = random.Random(3)
    for _ in range(20):
        h, made = rng.randrange(56), rng.choice([1, 2, 3])
        want = game_keeps(v, "leader", dice.hand_name(h), 3 - made, (0, 4, 7))
        flat = lead[str(made)][h]
        assert flat[0::2] == [k.index for k in want]
        assert flat[1::2] == [round(k.value * 1e6) for k in want]
    for _ in range(20):
        hl, h, c = rng.randrange(56), rng.randrange(56), rng.choice([1, 2, 3])
        made = rng.randint(1, c)
        beat = site_mod.game_beat(sol, 0, 4, 7, hl)
        want = game_keeps(v, "follower", dice.hand_name(h), c - made, (0, 4, 7), dice.hand_name(hl), c)
        flat = beat[str(c)][str(made)][h]
        assert flat[0::2] == [k.index for k in want]
        assert all(abs(a - k.value * 1e6) <= 0.5 + 1e-6 for a, k in zip(flat[1::2], want))


def test_the_command_refuses_a_folder_that_is_not_a_site(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    proc = subprocess.run([sys.executable, "-m", "four21sim", "site", "--out", str(tmp_path), "--no-game",
                           "--variants", "montreal"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("site: error: --out:")
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]
    proc = subprocess.run([sys.executable, "-m", "four21sim", "site", "--out", str(tmp_path / "s"), "--variants",
                           "nope"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "'nope'" in proc.stderr and not (tmp_path / "s").exists()


def _site_cmd(out, capsys=None):
    """``four21sim site --out OUT`` (Montreal, round answers only: fast): in a process, or in this one."""
    argv = ["--out", str(out), "--no-game", "--quiet", "--variants", "montreal"]
    if capsys is None:
        return subprocess.run([sys.executable, "-m", "four21sim", "site", *argv], cwd=ROOT, capture_output=True,
                              text=True, timeout=300)
    from four21sim.cli.site import console
    capsys.readouterr()
    code = console(argv)
    return subprocess.CompletedProcess(argv, code, *capsys.readouterr())


def _tree(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _refused(proc, out, entry):
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    line, = proc.stderr.strip().splitlines()
    assert line.startswith(f"site: error: --out: {shown(str(out))} is not allowed"), line  # a long path cut
    assert entry in line and "allowed: " in line, line


def test_site_out_never_deletes_a_folder_that_merely_looks_like_a_site(tmp_path):
    # a JavaScript project's layout: its own data/index.js beside a README and its sources
    out = tmp_path / "project"
    (out / "data").mkdir(parents=True)
    (out / "src").mkdir()
    (out / "data" / "index.js").write_text("export const x = 1;\n")
    (out / "README.md").write_text("my project\n")
    (out / "src" / "app.js").write_text("console.log(1);\n")
    before = _tree(out)
    proc = _site_cmd(out)
    assert _tree(out) == before, proc  # README.md and src/ still there, data/index.js unchanged
    _refused(proc, out, "four21sim-site.json")
    assert [p.name for p in tmp_path.iterdir()] == ["project"]  # nothing left beside it either


def test_site_out_rebuilds_its_own_site_and_nothing_more(tmp_path, capsys):
    out = tmp_path / "s"
    assert _site_cmd(out, capsys).returncode == 0
    marker = json.loads((out / site_mod.MARKER).read_text())
    assert marker["format"] == site_mod.MARKER_FORMAT
    on_disk = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert sorted(marker["files"]) == [f for f in on_disk if f != site_mod.MARKER]
    (out / "app.js").write_text("stale")  # a site written before is replaced whole
    proc = _site_cmd(out, capsys)
    assert proc.returncode == 0, proc.stderr
    assert (out / "app.js").read_text() != "stale"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s"]
    # one file more, at the top or in the site's own folder: refused, the folder untouched
    for extra in ("notes.txt", "data/montreal/mine.js"):
        (out / extra).write_text("mine")
        before = _tree(out)
        _refused(_site_cmd(out, capsys), out, repr(extra))
        assert _tree(out) == before
        (out / extra).unlink()
    # a folder, a link or a forged marker listing what is not the site's: refused as well
    (out / "src").mkdir()
    _refused(_site_cmd(out, capsys), out, "'src'")
    (out / "src").rmdir()
    (out / "link.js").symlink_to(out / "app.js")
    _refused(_site_cmd(out, capsys), out, "'link.js'")
    (out / "link.js").unlink()
    (tmp_path / "outside.txt").write_text("mine")
    (out / "README.md").write_text("mine")
    for files in (["../outside.txt"], ["/etc/passwd"], "app.js", [1], [*marker["files"], "README.md"]):
        forged = dict(marker, files=files)
        (out / site_mod.MARKER).write_text(json.dumps(forged))
        _refused(_site_cmd(out, capsys), out, site_mod.MARKER)
    assert (tmp_path / "outside.txt").read_text() == "mine" and (out / "README.md").read_text() == "mine"


def test_the_command_prints_one_line_and_quiet_prints_only_it(tmp_path):
    # the default build's progress line and size: tests/test_site_nplayer_browser.py (that build takes
    # some 2 minutes, made once for its 5-player answers too)
    out = tmp_path / "s"
    proc = subprocess.run([sys.executable, "-m", "four21sim", "site", "--out", str(out), "--quiet", "--no-game"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and without_notices(proc.stderr) == "" and len(proc.stdout.splitlines()) == 1
    import io

    from four21sim.cli.site import _Progress
    tty = io.StringIO()
    tty.isatty = lambda: True
    bar = _Progress(tty, verbose=False, quiet=False)
    for i in range(1, 4):
        bar(i, 3, "step")
    bar.close()
    assert tty.getvalue().count("\n") == 1 and tty.getvalue().count("\r") == 3  # rewritten in place


def test_variants_all_is_every_preset(tmp_path):
    from four21sim.cli.site import _variants
    assert _variants("all") == list(PRESETS)
    assert _variants("classic, super421,classic") == ["classic", "super421"]
    with pytest.raises(ValueError, match=r"^--variants: 'al' is not allowed; allowed: super421, .*, or all$"):
        _variants("al")


def test_players_takes_the_sizes_the_page_answers(tmp_path):
    import contextlib
    import io

    from four21sim.cli.site import _players
    from four21sim.cli.site import console as site_console
    assert _players(None) == site_mod.GAME_PLAYERS
    assert _players("6, 2,6") == (2, 6)
    for bad in ("7", "1", "x", "", "2,,3"):
        with pytest.raises(ValueError, match=r"^--players: '[^']*' is not allowed; allowed: table sizes from 2 to 6, "
                                             "comma-separated$"):
            _players(bad)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert site_console(["--out", str(tmp_path / "s"), "--players", "2,8"]) == 2
    assert err.getvalue() == ("site: error: --players: '8' is not allowed; allowed: table sizes from 2 to 6, "
                              "comma-separated\n")
    assert not (tmp_path / "s").exists()


# ----------------------------------------------------------------- in the browser
def test_the_address_opens_a_situation(page, built):
    # 631 behind 611, two throws left (exact followers): keep the 1; P = 7/48 (1/6 of a 1 making a fiche x11
    # with the other die... counted in tests/test_advise_cli.py by enumeration; here the advisor's number)
    _open(page, built, "#variant=super421&role=follower&hand=631&throws=2&beat=611")
    rows = _rows(page)
    assert rows[0]["keep"] == "_ _ 1"
    assert Fraction(int(rows[0]["num"]), int(rows[0]["den"])) == Fraction(7, 48)
    assert "14.58%" in page.text_content("#best-round")
    assert all(u.startswith("file://") for u in page.requests), page.requests  # nothing from a network
    assert "Round answer only" in page.text_content("#why")
    assert page.input_value("#hand") == "631" and page.input_value("#beat") == "611"


def _sample(rng, name):
    v = Variant.from_preset(name)
    hands = [f"{a}{b}{c}" for a in range(6, 0, -1) for b in range(a, 0, -1) for c in range(b, 0, -1)]
    out = []
    for state in [None, *_states(v)]:
        phase = "charge" if state is None or state[0] else "decharge"
        L = v.throws(phase)
        for role in ("leader", "follower"):
            if role == "leader" and L == 1 and rng.random() < 0.7:
                continue
            c = L if role == "leader" else rng.randint(1, L)
            out.append(dict(variant=name, role=role, hand=rng.choice(hands), throws=rng.randint(0, c - 1),
                            beat=rng.choice(hands) if role == "follower" else None, count=c, state=state,
                            phase=phase))
    return out


def _argv(s):
    argv = [s["hand"], "--variant", s["variant"], "--throws-left", str(s["throws"])]
    argv += ["--role", "leader"] if s["role"] == "leader" else ["--beat", s["beat"], "--count", str(s["count"])]
    argv += ["--state", ",".join(map(str, s["state"]))] if s["state"] else ["--phase", s["phase"]]
    return argv


def _hash(s):
    h = f"#variant={s['variant']}&role={s['role']}&hand={s['hand']}&throws={s['throws']}"
    if s["role"] == "follower":
        h += f"&beat={s['beat']}&count={s['count']}"
    return h + (f"&state={','.join(map(str, s['state']))}" if s["state"] else f"&phase={s['phase']}")


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_page_answers_as_the_command_does(page, built, name):
    rng = random.Random(name)
    _open(page, built)
    for s in _sample(rng, name):
        _go(page, _hash(s))
        want = advise_cli.advise(_argv(s))
        rows = _rows(page)
        assert [r["keep"] for r in rows] == [k["keep"] for k in want["keeps"]], s
        for r, k in zip(rows, want["keeps"]):
            assert Fraction(int(r["num"]), int(r["den"])) == Fraction(k["exact"]), (s, r)
        if s["state"]:
            game = {k["keep"]: k["p_win_game"] for k in want["game"]["keeps"]}
            for r in rows:
                assert abs(float(r["p"]) - game[r["keep"]]) <= 1e-12, (s, r)
            best_game = page.text_content("#best-game")
            assert want["game"]["best"]["keep"] in best_game or (want["game"]["best"]["stop"] and "stop" in best_game)
        else:
            assert r["p"] is None


def test_the_pages_game_tables_are_the_librarys_whole(page, built):
    # every hand, throw and hand to beat of one state, in two variants (exact and at-most followers)
    from four21sim.exact import two_player
    from four21sim.rules import dice
    _open(page, built)
    for name, state in (("super421", (5, 3, 3)), ("classic", (0, 9, 12))):
        v = Variant.from_preset(name)
        sol = two_player.solve(v)
        pot, mine, theirs = state
        L = v.throws("charge" if pot else "decharge")
        lead = site_mod.game_lead(sol, pot, mine, theirs)
        got = page.evaluate("""async ([name, state, L]) => { const out = {};
            for (let made = 1; made <= L; made++) for (let h = 0; h < 56; h++) {
              out[made + "/" + h] = await window.F421.game({variant: name, role: "leader", hand: window.F421DATA.index
                .hands[h], throws: String(L - made), state: state}); }
            return out; }""", [name, ",".join(map(str, state)), L])
        for made in range(1, L + 1):
            for h in range(56):
                want = lead[str(made)][h]
                rows = got[f"{made}/{h}"]
                assert [k for k, _ in rows] == want[0::2], (name, made, h)
                assert all(abs(p * 1e6 - m) <= 0.5 + 1e-6 for (_, p), m in zip(rows, want[1::2]))
        detail = sol.round_detail(pot, theirs, mine)
        for hl in range(0, 56, 5):
            beat = site_mod.game_beat(sol, pot, mine, theirs, hl, detail)
            got = page.evaluate("""async ([name, state, L, hl]) => {
                const out = {}; const H = window.F421DATA.index.hands;
                for (let c = 1; c <= L; c++) for (let made = 1; made <= c; made++) for (let h = 0; h < 56; h++) {
                  out[c + "/" + made + "/" + h] = await window.F421.game({variant: name, role: "follower", hand: H[h],
                    beat: H[hl], count: String(c), throws: String(c - made), state: state}); }
                return out; }""", [name, ",".join(map(str, state)), L, hl])
            for c in range(1, L + 1):
                for made in range(1, c + 1):
                    for h in range(56):
                        want = beat[str(c)][str(made)][h]
                        rows = got[f"{c}/{made}/{h}"]
                        assert [k for k, _ in rows] == want[0::2], (name, dice.hand_name(hl), c, made, h)
                        assert all(abs(p * 1e6 - m) <= 0.5 + 1e-6 for (_, p), m in zip(rows, want[1::2]))


def test_the_page_ranks_keeps_as_the_library(page, built):
    # advisor.keep_order's rule (the first keep within KEEP_TIE of the best, then by value, ties in
    # HAND_KEEPS order), on values made to tie exactly, within the tolerance, and just outside it
    from four21sim.advice.advisor import keep_order
    from four21sim.rules import dice
    _open(page, built)
    rng = random.Random(7)
    cases = []
    for _ in range(300):
        h = rng.randrange(56)
        keeps = [int(k) for k in dice.keeps_of(h)]
        pool = [0.25, 0.5, 0.5 + 4e-13, 0.5 - 4e-13, 0.5 + 3e-12, 0.75, rng.random()]
        cases.append((h, {k: rng.choice(pool) for k in keeps}))
    got = page.evaluate("""cases => cases.map(([h, o]) => window.F421.keepOrder(h,
        Object.fromEntries(Object.entries(o).map(([k, v]) => [Number(k), v]))))""",
                        [[h, {str(k): x for k, x in o.items()}] for h, o in cases])
    assert got == [keep_order(h, o) for h, o in cases]


def test_a_tie_is_called_a_tie_on_the_page(page, built):
    _open(page, built, "#variant=classic&role=follower&hand=664&throws=2&beat=551&count=3&state=0,9,12")
    why = page.text_content("#why")
    assert "4 keeps tie on P(beat 551): keep 6 6 _, keep 6 _ _, keep 6 _ 4 and stop all give 100.00% exactly" in why
    assert "They differ" in why and "only maximises" not in why
    assert "four21sim advise 664 --variant classic --beat 551 --count 3 --throws-left 2 --state 0,9,12" in why


_CUT = """() => { const W = window.innerWidth; const out = [];
    for (const e of document.querySelectorAll('select, input, button, summary, #keeps, .best p, code')) {
      if (e.offsetParent === null) continue;  // hidden
      const r = e.getBoundingClientRect();
      if (r.left < 0 || r.right > W + 0.5) out.push(e.id || e.tagName + ': outside the viewport');
      if (e.tagName === 'SELECT') {  // the box is as wide as the longest choice needs
        const have = e.offsetWidth; const old = e.style.cssText;
        e.style.cssText = 'width: auto !important; max-width: none !important';
        const need = e.offsetWidth; e.style.cssText = old;
        if (need > have + 0.5) out.push(e.id + ': cut (' + need + ' px needed, ' + have + ' px)');
      }
    }
    return out; }"""


@pytest.mark.parametrize("width", [390, 360])
@pytest.mark.parametrize("hash_", [
    "#variant=super421&role=follower&hand=543&throws=1&beat=654&count=3&state=0,3,8",
    "#variant=classic&role=leader&hand=631&throws=2&phase=decharge&players=8",
    "#variant=montreal&role=follower&hand=421&throws=0&beat=654&count=1&phase=charge&players=5",
])
def test_a_phone_sized_viewport_cuts_nothing(browser, built, width, hash_):
    ctx = browser.new_context(viewport={"width": width, "height": 740}, device_scale_factor=2, is_mobile=True,
                              has_touch=True)
    pg = ctx.new_page()
    try:
        _open(pg, built, hash_)
        pg.wait_for_selector("#keeps")
        assert pg.evaluate("document.documentElement.scrollWidth") <= width
        assert pg.evaluate(_CUT) == []
        # tap targets of the form are at least 2.2 rem (about 37 px) high
        heights = pg.eval_on_selector_all("select, input:not([type=radio])",
                                          "es => es.filter(e => e.offsetParent !== null).map(e => e.offsetHeight)")
        assert min(heights) >= 36
        pg.click("#sheet summary")
        assert pg.evaluate("document.documentElement.scrollWidth") <= width
        assert pg.evaluate(_CUT) == []
    finally:
        ctx.close()


def test_the_page_offers_2_to_8_players_and_says_where_the_game_answer_is(page, built):
    _open(page, built, "#variant=super421&role=follower&hand=543&throws=1&beat=654&count=3&state=0,3,8")
    assert page.eval_on_selector_all("#players option", "os => os.map(o => o.value)") == [str(n) for n in range(2, 9)]
    assert "Both answers" in page.text_content("#why") or "They differ" in page.text_content("#why")
    _go(page, "#variant=super421&role=follower&hand=543&throws=1&beat=654&count=3&phase=decharge&players=4")
    why = page.text_content("#why")
    assert "This page holds no game answer at 4 players yet" in why
    assert ("four21sim advise 543 --variant super421 --beat 654 --count 3 --throws-left 1 --players 4 --seat SEAT "
            "--state pot=P,t0=T0,t1=T1,t2=T2,t3=T3,leader=SEAT") in why
    assert "four21sim advise 543 --variant super421 --beat 654 --count 3 --throws-left 1 --players 4 --phase " \
           "decharge" in page.text_content("#cli")
    assert page.locator("#best-game").count() == 0
    _go(page, "#variant=super421&role=leader&hand=543&throws=1&phase=charge&players=7")
    assert "No exact game answer at 7 players (the solvers go up to 6)" in page.text_content("#why")
    _open(page, built, "#variant=super421&hand=543&players=9")
    page.wait_for_selector("#error:not([hidden])")
    assert "players: '9' is not allowed; allowed: 2 to 8" in page.text_content("#error")


def test_keyboard_only(page, built):
    _open(page, built)
    page.focus("#variant")  # the first control; then only keys
    kb = page.keyboard
    kb.press("Tab")  # the role: a radio group, leader checked
    assert page.evaluate("document.activeElement.id") == "role-leader"
    kb.press("ArrowRight")  # follower
    assert page.is_checked("#role-follower")
    kb.press("Tab")
    assert page.evaluate("document.activeElement.id") == "hand"
    kb.type("136")
    kb.press("Tab")
    assert page.evaluate("document.activeElement.id") == "beat"
    kb.type("116")
    kb.press("Tab")  # the leader's throws
    assert page.evaluate("document.activeElement.id") == "count"
    kb.press("Tab")
    assert page.evaluate("document.activeElement.id") == "throws"
    page.wait_for_selector("#keeps")
    assert _rows(page)[0]["keep"] == "_ _ 1"  # 136 is the hand 631
    assert re.search(r"hand=136&throws=2&beat=116&count=3", page.evaluate("location.hash"))
    kb.press("ArrowDown")  # one throw left
    page.wait_for_function("location.hash.includes('throws=1')")
    want = advise_cli.advise(["631", "--beat", "611", "--throws-left", "1"])
    page.wait_for_function("k => document.querySelector('#keeps td.keep').textContent === k",
                           arg=want["keeps"][0]["keep"])


@pytest.mark.parametrize("hash_,words", [
    ("#variant=super421&role=follower&hand=731&beat=611", "hand: '731' is not allowed"),
    ("#variant=super421&role=leader&hand=631&state=5,5,5", "state: (5, 5, 5) is not a state of these tables"),
    ("#variant=nope&hand=631", "variant: 'nope' is not allowed"),
    ("#variant=montreal&role=leader&hand=631&throws=2&phase=charge", "throws: '2' is not allowed; allowed: 0"),
    ("#variant=super421&role=leader&hand=631&state=4,3,4", "state: (4, 3, 4) is not a state of these tables"),
    ("#variant=super421&role=leader&hand=631&phase=constructor", "phase: 'constructor' is not allowed; allowed: c"),
    # a state of the wrong length, in either form, or where the page has no game answer: said, never dropped
    ("#variant=super421&role=leader&hand=631&state=0,3,8,1", "state: '0,3,8,1' is not allowed; allowed: 3 whole"),
    ("#variant=super421&role=leader&hand=631&state=0,3", "state: '0,3' is not allowed; allowed: 3 whole"),
    ("#variant=super421&role=leader&hand=631&state=pot=0,mine=3,theirs=8,t3=1",
     "state: 'pot=0,mine=3,theirs=8,t3=1' is not allowed; allowed: 3 whole"),
    ("#variant=super421&role=leader&hand=631&state=pot=0,mine=3,theirs=8,pot=1",
     "state: 'pot=0,mine=3,theirs=8,pot=1' is not allowed; allowed: 3 whole"),
    ("#variant=super421&role=leader&hand=631&state=0,3,8&players=3",  # a state of 2 at a table of 3
     "state: '0,3,8' is not allowed; allowed: pot=P,t0=T0,t1=T1,t2=T2,leader=SEAT, or 4 or 5 whole numbers"),
    ("#variant=super421&role=leader&hand=631&state=0,3,8&players=7",
     "state: '0,3,8' is not allowed at 7 players; allowed: no state (the round answer), or a state at 2 players"),
])
def test_bad_situations_are_said_in_one_line(page, built, hash_, words):
    _open(page, built, hash_)
    page.wait_for_selector("#error:not([hidden])")
    assert words in page.text_content("#error")


@pytest.mark.parametrize("name", ["__proto__", "constructor", "toString", "hasOwnProperty"])
def test_a_variant_named_like_an_objects_own_key_is_an_unknown_variant(page, built, name):
    # looked up among the manifest's own keys: not what every JavaScript object inherits
    _open(page, built, f"#variant={name}&role=leader&hand=631")
    page.wait_for_selector("#error:not([hidden])", timeout=20_000)
    assert page.text_content("#error") == f"variant: '{name}' is not allowed; allowed: {', '.join(PRESETS)}"
    assert page.errors == []
    assert "Loading" not in page.text_content("#answer")


def test_a_state_by_name_fills_the_form_in_its_own_order(page, built):
    _open(page, built, "#variant=super421&role=leader&hand=631&throws=2&state=theirs=8,pot=0,mine=3")
    page.wait_for_selector("#keeps")
    assert [page.input_value(f"#{f}") for f in ("pot", "mine", "theirs")] == ["0", "3", "8"]
    page.select_option("#throws", "1")  # an edit of the form keeps the state the address gave
    page.wait_for_function("location.hash.includes('throws=1')")
    assert "state=0,3,8" in page.evaluate("location.hash")


def _phone(browser):
    return browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                               has_touch=True)


@pytest.mark.parametrize("hash_", ["#variant=super421&role=leader",
                                   "#variant=super421&role=follower&beat=654&count=3&throws=1",
                                   "#variant=super421&role=follower&beat=654&count=3&throws=1&state=0,3,8"])
def test_the_answer_shows_without_scrolling_on_a_phone(browser, built, hash_):
    ctx = _phone(browser)
    pg = ctx.new_page()
    try:
        _open(pg, built, hash_)
        pg.fill("#hand", "543")  # as a user types it; the answer is drawn at once
        pg.wait_for_selector("#answer .best")
        assert pg.evaluate("window.scrollY") == 0
        box = pg.locator("#answer .best").bounding_box()  # the best keep, for the round and (tokens) the game
        assert box["y"] >= 0 and box["y"] + box["height"] <= 844, box
    finally:
        ctx.close()


_PLACEHOLDER = """id => { const e = document.getElementById(id); const ph = getComputedStyle(e, '::placeholder');
    const s = document.createElement('span');
    s.textContent = e.placeholder;
    s.style.cssText = 'position: absolute; white-space: pre; visibility: hidden';
    s.style.font = ph.font;
    s.style.letterSpacing = ph.letterSpacing;
    document.body.append(s);
    const need = s.getBoundingClientRect().width;
    s.remove();
    const cs = getComputedStyle(e);
    return [need, e.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight)]; }"""


@pytest.mark.parametrize("width", [390, 360])
def test_the_hand_boxes_show_their_whole_placeholder(browser, built, width):
    ctx = browser.new_context(viewport={"width": width, "height": 844}, is_mobile=True, has_touch=True)
    pg = ctx.new_page()
    try:
        _open(pg, built, "#variant=super421&role=follower")
        for box in ("hand", "beat"):
            assert pg.input_value(f"#{box}") == "" and pg.get_attribute(f"#{box}", "placeholder").startswith("e.g.")
            need, have = pg.evaluate(_PLACEHOLDER, box)  # the placeholder's text, drawn in its own font and spacing
            assert 0 < need <= have, (box, need, have)
    finally:
        ctx.close()


def test_the_docs_addresses_open_on_the_sites_they_need(page, built):
    doc = (ROOT / "docs" / "site.md").read_text()
    block, after = doc.split("## The address", 1)[1].split("```text\n", 1)[1].split("```\n", 1)
    addresses = block.split()
    assert len(addresses) >= 3
    note = after.split("\n\n", 1)[0]  # the paragraph under the examples
    for address in addresses:
        _open(page, built, address.split("index.html", 1)[1])
        page.wait_for_selector("#keeps")
        assert page.is_hidden("#error"), (address, page.text_content("#error"))
        variant = re.search(r"variant=([\w-]+)", address).group(1)
        if variant not in site_mod.DEFAULT_VARIANTS:  # not on the site the doc first builds: the doc says how
            assert variant in note and "--variants" in note, (address, note)


def test_the_pages_round_answer_names_the_advisors_pick_of_a_tie(page, built):
    # issue 47: 631 behind 654 and 521 (the page takes the worst, 521), one throw left, 4 players: every keep
    # of the 6 beats 521 surely; the round answer names the final hand worth the most (6 x 1: 611 once in 6,
    # tests/test_round_ties.py enumerates it), on the page as in advise, which the page reads as data
    _open(page, built, "#variant=super421&role=follower&hand=631&throws=1&beat=521&count=3&phase=charge&players=4")
    want = advise_cli.advise(["631", "--throws-left", "1", "--beat", "654,521", "--players", "4"])
    assert want["best"]["keep"] == "6 _ 1"
    best = page.text_content("#best-round")
    assert "keep 6 _ 1" in best and "(a tie with keep 6 _ _ and keep 6 3 _)" in best, best
    assert [r["keep"] for r in _rows(page)] == [k["keep"] for k in want["keeps"]]
    assert page.get_attribute("#keeps tbody tr:first-child td.keep", "data-best") == "best for the round"
