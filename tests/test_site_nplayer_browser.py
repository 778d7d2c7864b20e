"""The phone page's game answer at 3 to 6 players, in headless Chromium, against ``four21sim advise --state``.

The site is written once for the module with the game data of the default build up to 4 players
(:data:`four21sim.advice.site.GAME_PLAYERS`: 2 players and the sizes from 3 that ship), for Super 421 and
le Bon (whose followers may stop early: the page's other path), and opened once (the 5- and 6-player games
in the default build's site, ``conftest.default_site``: slow tests);
situations drawn with a fixed seed (leader and followers, charge and décharge, several token
states and seats) are asked of the page's own game answer (``window.F421.game``, the code its
form runs) and of the command's JSON (computed in-process), keep by keep, to 1e-9 in P(pay).
The issue's 4-player situation is also opened by its address and read from what the page shows, and
on a phone's screen (390 x 844) the answer must show without scrolling at 2, 4 and 6 players.
"""

from __future__ import annotations

import json
import random
import re

import pytest
from notices import without_notices
from test_shipped import READ_BESIDE_ITS_PAGE, check_read
from test_site import _PLACEHOLDER, CHROMIUM, FLAGS, ROOT, _browser_or_skip, _phone

from four21sim.advice import site as site_mod
from four21sim.cli import advise as advise_cli
from four21sim.exact import shipped
from four21sim.rules import dice
from four21sim.rules.variants import as_variant

V = as_variant("super421")
SHIPPED = [n for n in site_mod.GAME_PLAYERS if n >= 3 and shipped.available(V, n)]
SIZES = [n for n in SHIPPED if n <= 4]  # the module's site: its 5-player data take 2 minutes to build (slow tests)
# Super 421's followers throw exactly the leader's count; le Bon's may stop before it (the page's other path)
VARIANTS = ("super421", "super421-lebon")
ISSUE = "#hand=631&throws=1&beat=654,521&players=4&seat=2&state=pot=0,t0=4,t1=2,t2=3,t3=2,leader=0"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site-n") / "site"
    site_mod.build_site(out, players=(2, *SIZES))  # 2 players too: the phone's screen at every size
    return out


@pytest.fixture(scope="module")
def lebon_page(page, tmp_path_factory):
    """Le Bon's site (its own build: some 10 s more), in a page of the same browser."""
    out = tmp_path_factory.mktemp("site-lebon") / "site"
    site_mod.build_site(out, variants=["super421-lebon"], players=SIZES)
    pg = page.context.browser.new_page()
    pg.goto(out.joinpath("index.html").as_uri())
    pg.wait_for_function("window.F421 !== undefined")
    yield pg
    pg.close()


@pytest.fixture(scope="module")
def page(site):
    sync_playwright = _browser_or_skip()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        pg = b.new_page(viewport={"width": 390, "height": 844})
        errors = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.goto(site.joinpath("index.html").as_uri() + ISSUE)
        pg.wait_for_selector("#best-game", timeout=60_000)
        pg.errors = errors
        yield pg
        b.close()
    assert errors == []


def _situations(variant: str, n: int, rng: random.Random) -> list[dict]:
    """Leader and followers (the first and the last), charge and décharge, at n players."""
    out = []
    T = V.tokens
    for pot in (0, rng.randrange(1, T + 1)):
        for role in (0, 1, n - 1):
            while True:  # a state of the phase: every seat some tokens in the décharge
                low = 1 if pot == 0 else 0
                cuts = sorted(rng.randrange(0, T - pot - n * low + 1) for _ in range(n - 1))
                toks = [b - a + low for a, b in zip([0, *cuts], [*cuts, T - pot - n * low])]
                if sum(toks) == T - pot:
                    break
            leader = rng.randrange(n)
            seat = (leader + role) % n
            count = rng.choice((2, 3)) if role else 3
            state = f"pot={pot}," + ",".join(f"t{i}={t}" for i, t in enumerate(toks)) + f",leader={leader}"
            q = {"variant": variant, "hand": dice.hand_name(rng.randrange(dice.N_HANDS)),
                 "throws": str(rng.randrange(1, count)),
                 "players": str(n), "seat": str(seat), "state": state}
            if role:
                q["beat"] = ",".join(dice.hand_name(rng.randrange(dice.N_HANDS)) for _ in range(role))
                q["count"] = str(count)
            out.append(q)
    return out


@pytest.mark.slow
def test_the_default_build_says_one_progress_line_and_fits_on_a_phone(default_site):
    out, proc = default_site
    # not a terminal: one line (and the notice of a first numba compile, if the machine makes it slow)
    # 56 hands to beat, the leader, the 2-player solve, its 76 states, the 3- to 6-player games' rounds
    sizes = site_mod.nplayer_sizes(V, site_mod.GAME_PLAYERS)
    steps = 56 + 1 + 1 + 76 + len(sizes)
    assert without_notices(proc.stderr).strip().splitlines() == [f"writing the site: 100% ({steps}/{steps} steps)"]
    line, = proc.stdout.strip().splitlines()
    files = [p for p in out.rglob("*") if p.is_file()]
    size = sum(p.stat().st_size for p in files)
    given = proc.args[-1]  # the folder as the command was given it (conftest.DEFAULT_SITE)
    assert re.fullmatch(rf"wrote {len(files)} files, {size / 1e6:.1f} MB to {re.escape(given)} in \d+ s; open "
                        rf"{re.escape(given)}/index.html \(or serve the folder: docs/site.md\)", line), line
    # Super 421, every token state at 2 players, the game at every size that ships up to 6 (issue 47)
    marker = json.loads((out / "four21sim-site.json").read_text())
    assert len(files) == 7 + len(sizes) and set(marker["files"]) <= {str(p.relative_to(out)) for p in files}
    index = json.loads((out / "data" / "index.js").read_text().split('["index"] = ', 1)[1].rstrip(";\n"))
    assert list(index["variants"]) == ["super421"]
    game = index["variants"]["super421"]["game"]
    assert len(game["2"]["states"]) == 76 and sorted(game) == sorted(["2", *map(str, sizes)])
    assert ("5" in game) == shipped.available(V, 5) and ("6" in game) == shipped.available(V, 6)
    assert size < 5_000_000, size  # 3.6 MB with the 3- to 6-player games


@pytest.fixture(scope="module")
def page5(page, default_site):
    """The 5-player game, in the default build's site."""
    if 5 not in SHIPPED:
        pytest.skip("no 5-player equilibrium ships for Super 421")
    yield from _page_of(page, default_site[0])


def _page_of(page, out):
    """A page of ``page``'s browser on the site ``out``, with no time limit on the game answer (a busy
    machine: the answer's time is experiments/site_game_timing.py's); closed after the module."""
    pg = page.context.browser.new_page()
    pg.goto(out.joinpath("index.html").as_uri())
    pg.wait_for_function("window.F421 !== undefined")
    pg.evaluate("window.F421.limit(600)")
    yield pg
    pg.close()


@pytest.mark.slow
def test_the_pages_game_answer_at_5_players_is_the_commands(page5):
    # the 5-player data, stored small (site._packed_rows: the décharge's 16 million trans entries from 5.4 MB
    # to 0.5 MB), decoded in the page: leaders and followers, charge and décharge, against the command
    rng = random.Random(426)
    for q in _situations("super421", 5, rng):
        _same_as_the_command(page5, q)


@pytest.mark.slow
def test_the_6_player_equilibrium_is_read_as_shipped():
    # test_shipped's check of every shipped file, here for the file the 6-player page's answers are checked
    # against (below, by the command in this process): the worker then builds the game's contexts once
    if not shipped.available(V, 6):
        pytest.skip("no 6-player equilibrium ships for Super 421")
    check_read(READ_BESIDE_ITS_PAGE)
    assert shipped.path_of(V, 6).name == READ_BESIDE_ITS_PAGE


@pytest.fixture(scope="module")
def page6(page, default_site):
    """The 6-player game, in the default build's site."""
    if 6 not in SHIPPED:
        pytest.skip("no 6-player equilibrium ships for Super 421")
    yield from _page_of(page, default_site[0])


@pytest.mark.slow
def test_the_pages_game_answer_at_6_players_is_the_commands(page6):
    # 1,096,440 décharge contexts decoded in the page, the leader's décharge values read stored (252 states)
    # and its charge solved in the page (8,008 states: too many to store, site.LEAD_STATES)
    rng = random.Random(427)
    for q in _situations("super421", 6, rng):
        _same_as_the_command(page6, q)


def _same_as_the_command(page, q: dict) -> tuple[list, dict]:
    """The page's game answer to situation q equals the command's JSON, keep by keep, to 1e-9 in P(pay):
    the page's (keep, P(pay)) rows and the command's P(pay) by keep label."""
    want = advise_cli.advise(_argv(q))["game"]["keeps"]
    got = page.evaluate("p => window.F421.game(p)", q)
    label = {k["keep"]: k["p_pay"] for k in want}
    got_by = {dice.keep_label(_hand(q["hand"]), k): p for k, p in got}
    assert set(got_by) == set(label), q
    for k, p in got_by.items():
        assert abs(p - label[k]) <= 1e-9, (q, k, p, label[k])
    return got, label


def _argv(q: dict) -> list[str]:
    argv = [q["hand"], "--variant", q["variant"], "--throws-left", q["throws"], "--players", q["players"],
            "--seat", q["seat"], "--state", q["state"]]
    if "beat" in q:
        argv += ["--beat", q["beat"], "--count", q["count"]]
    return argv


@pytest.mark.parametrize("variant", [pytest.param(v, marks=pytest.mark.slow) if v != "super421" else v
                                     for v in VARIANTS])
@pytest.mark.parametrize("n", SIZES)
def test_the_pages_game_answer_is_the_commands(request, variant, n):
    page = request.getfixturevalue("page" if variant == "super421" else "lebon_page")
    rng = random.Random(421 + n)
    for q in _situations(variant, n, rng):
        got, label = _same_as_the_command(page, q)
        # the best keep is the command's, or one the command ties with it (within 1e-9)
        assert label[dice.keep_label(_hand(q["hand"]), got[0][0])] <= min(label.values()) + 1e-9, q


def _hand(name: str) -> int:
    return dice.hand_index(tuple(int(c) for c in name))


def _go(page, hash_: str, ready: str, arg: str) -> None:
    page.evaluate("h => { location.hash = h; }", hash_)
    page.wait_for_function(ready, arg=arg, timeout=60_000)


def test_the_issues_situation_opens_from_its_address_with_the_game_answer(page):
    _go(page, "#", "() => document.querySelector('#best-game') === null", "")
    _go(page, ISSUE, "s => document.querySelector('#best-game') !== null && "
        "document.getElementById('cli').textContent.endsWith(s)", "leader=0")
    want = advise_cli.advise(["631", "--throws-left", "1", "--beat", "654,521", "--players", "4", "--seat", "2",
                              "--state", "pot=0,t0=4,t1=2,t2=3,t3=2,leader=0"])
    best = want["game"]["keeps"][0]
    assert page.text_content("#best-game").startswith(f"For the game: keep {best['keep']}")
    cells = page.eval_on_selector_all("#keeps tbody tr", """rows => rows.map(r => {
        const c = r.querySelectorAll('td'); return [c[0].textContent, Number(c[2].dataset.p)]; })""")
    pay = {k["keep"]: k["p_pay"] for k in want["game"]["keeps"]}
    assert len(cells) == len(pay)
    for keep, p in cells:
        assert abs(p - pay[keep]) <= 1e-9
    assert page.text_content("thead").count("P(pay)") == 1
    why = page.text_content("#why")
    # the round's tie rule (the final hand worth the most) and the game answer name the same keep here
    assert f"Both answers say keep {best['keep']}" in why and "leader=0, you in seat 2" in why
    assert "tie" in why and "keep 6 3 _" in why and "keep 6 _ _" in why  # the round's tie is still said
    assert page.text_content("#cli").endswith("--players 4 --seat 2 --state pot=0,t0=4,t1=2,t2=3,t3=2,leader=0")
    # the form holds the situation: every seat's tokens, the leader and the seat
    assert [page.input_value(f"#{f}") for f in ("pot", "t0", "t1", "t2", "t3", "leader")] == \
        ["0", "4", "2", "3", "2", "0"]
    assert page.input_value("#seat") == "2" and page.input_value("#beat") == "654,521"
    assert "index.html" + ISSUE in (ROOT / "docs" / "site.md").read_text()  # the docs' address, this one


@pytest.mark.parametrize("hash_, words", [
    ("#hand=631&throws=1&beat=654&players=4&seat=2&state=pot=0,t0=4,t1=2,t2=3,t3=2,leader=0",
     "beat: 1 hands are not allowed; allowed: the 2 hands of the players before seat 2"),
    ("#hand=631&throws=1&players=4&seat=0&state=pot=0,t0=4,t1=2,t2=3,t3=1,leader=0",
     "state: pot=0,t0=4,t1=2,t2=3,t3=1,leader=0 is not a state of these tables"),
    ("#hand=631&throws=1&role=leader&players=4&seat=2&state=pot=0,t0=4,t1=2,t2=3,t3=2,leader=0",
     "state: leader=0 does not match role leader for seat 2; allowed: role follower"),
    ("#hand=631&throws=1&players=4&seat=7&state=pot=0,t0=4,t1=2,t2=3,t3=2,leader=0",
     "seat: '7' is not allowed; allowed: 0 to 3"),
    ("#hand=631&throws=1&players=4&state=pot=0,t0=4,t9=2,leader=0", "state: 'pot=0,t0=4,t9=2,leader=0' is not allowed"),
    ("#hand=631&throws=1&players=2&seat=1&state=0,5,6", "seat: '1' is not allowed with 2 players"),
])
def test_a_bad_table_situation_is_said_in_one_line(page, hash_, words):
    _go(page, hash_, "w => document.getElementById('error').textContent.includes(w)", words)
    assert not page.is_hidden("#error")


def test_an_answer_past_the_time_limit_is_said_and_the_round_answer_stays(page, site):
    pg = page.context.browser.new_page(viewport={"width": 390, "height": 844})  # its own: the limit stays there
    try:
        pg.goto(site.joinpath("index.html").as_uri())
        pg.wait_for_function("window.F421 !== undefined")
        pg.evaluate("window.F421.limit(0.001)")  # a phone far slower than any: the leader's round cannot finish
        # (a charge state: the page solves its round; the décharge's leader values come with the data)
        pg.evaluate("h => { location.hash = h; }", "#hand=631&throws=1&players=4&seat=1&state=pot=5,t0=2,t1=2,"
                    "t2=1,t3=1,leader=1")
        pg.wait_for_function("() => document.getElementById('why') !== null && "
                             "document.getElementById('why').textContent.includes('takes over')", timeout=60_000)
        why = pg.text_content("#why")
        assert "The game answer at 4 players takes over 0.001 s on this device" in why
        assert "four21sim advise 631 --variant super421 --role leader --throws-left 1 --players 4 --seat 1 --state " \
               "pot=5,t0=2,t1=2,t2=1,t3=1,leader=1" in why
        assert pg.locator("#best-game").count() == 0 and pg.locator("#keeps tbody tr").count() == 8
        pg.evaluate("window.F421.limit(60)")  # asked again with time to spare: the answer comes
        pg.evaluate("h => { location.hash = h; }", "#hand=631&throws=1&players=4&seat=1&state=pot=5,t0=2,t1=2,"
                    "t2=1,t3=1,leader=1&role=leader")
        pg.wait_for_selector("#best-game", timeout=60_000)
    finally:
        pg.close()


def test_where_the_answers_differ_the_page_says_why_with_the_commands_numbers(page):
    q = "#hand=311&throws=1&players=4&seat=0&state=pot=0,t0=4,t1=2,t2=3,t3=2,leader=0"
    _go(page, q, "s => document.querySelector('#best-game') !== null && "
        "document.getElementById('cli').textContent.includes(s)", "advise 311 ")
    want = advise_cli.advise(["311", "--throws-left", "1", "--players", "4", "--seat", "0", "--state",
                              "pot=0,t0=4,t1=2,t2=3,t3=2,leader=0"])
    game = want["game"]["keeps"]
    assert game[0]["keep"] != want["keeps"][0]["keep"]  # the command's answers differ here
    why = page.text_content("#why")
    assert f"They differ: {'stop' if want['keeps'][0]['stop'] else 'keep ' + want['keeps'][0]['keep']} gives" in why
    pay = {k["keep"]: k["p_pay"] for k in game}
    assert f"and P(pay) {100 * pay[want['keeps'][0]['keep']]:.2f}%" in why
    assert f"and {100 * game[0]['p_pay']:.2f}% (from pot=0,t0=4,t1=2,t2=3,t3=2,leader=0, you in seat 0)" in why
    assert "every player still to throw" in why


def test_a_table_size_without_data_gives_the_round_answer_and_the_command(page):
    q = "#hand=631&throws=1&beat=654,521&players=6&seat=2&state=pot=0,t0=3,t1=2,t2=2,t3=2,t4=1,t5=1,leader=0"
    _go(page, q, "() => document.getElementById('why') !== null && "
        "document.getElementById('why').textContent.includes('6 players')", "")
    assert page.is_hidden("#error") and page.locator("#best-game").count() == 0
    assert page.locator("#keeps tbody tr").count() == 7  # the round answer: every keep of 631 but stopping
    why = page.text_content("#why")
    assert "This page holds no game answer at 6 players yet" in why
    assert "; a site built with four21sim site --players 2,3,4,6 has it:" in why  # (this module's sizes)
    assert ("the command gives it, four21sim advise 631 --variant super421 --beat 654,521 --count 3 --throws-left 1 "
            "--players 6 --seat 2 --state pot=0,t0=3,t1=2,t2=2,t3=2,t4=1,t5=1,leader=0.") in why


# issue 47: "the page's answer is visible without scrolling at 390x844 and its hand placeholder is not cut";
# a 2-player state, the issue's 4 players, and 6 players (a state read, the round answer only: no data ships)
FOLD = [("#variant=super421&role=follower&hand=543&throws=1&beat=654&count=3&state=0,3,8", ["best-round", "best-game"],
         "--state 0,3,8"),
        (ISSUE, ["best-round", "best-game"], "--players 4 --seat 2"),
        ("#hand=631&throws=1&beat=654,521,432&players=6&seat=3&state=pot=0,t0=2,t1=2,t2=2,t3=2,t4=2,t5=1,leader=0",
         ["best-round"], "--players 6 --seat 3")]
_BOXES = """ids => ids.map(id => { const r = document.getElementById(id).getBoundingClientRect();
    return [id, r.top, r.bottom, r.left, r.right]; })"""


def test_the_answer_shows_without_scrolling_on_a_phone_at_2_4_and_6_players(page):
    ctx = _phone(page.context.browser)  # 390 x 844 CSS pixels, as experiments/site_screenshot.py takes them
    pg = ctx.new_page()
    try:
        pg.goto(site_url(page))
        pg.wait_for_function("window.F421 !== undefined")
        for hash_, ids, said in FOLD:
            pg.evaluate("h => { location.hash = h; }", hash_)
            # this situation's answer drawn: its command printed under it, the headline's boxes there
            pg.wait_for_function("""([ids, said]) => document.getElementById('cli') !== null &&
                document.getElementById('cli').textContent.includes(said) &&
                ids.every(id => document.getElementById(id) !== null)""", arg=[ids, said], timeout=60_000)
            assert pg.evaluate("window.scrollY") == 0
            for id_, top, bottom, left, right in pg.evaluate(_BOXES, ids + ["hand"]):
                assert 0 <= top and bottom <= 844 and 0 <= left and right <= 390, (hash_, id_, top, bottom, left, right)
            need, have = pg.evaluate(_PLACEHOLDER, "hand")  # the placeholder's text in its own font, and the room
            assert 0 < need <= have, (hash_, need, have)
            assert pg.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        ctx.close()


def site_url(page) -> str:
    """The site's page, without its address (the page fixture's, opened on the issue's situation)."""
    return page.url.split("#", 1)[0]


def test_where_the_game_ties_too_both_boxes_and_the_explanation_name_one_keep(page):
    # tests/test_tie_explanation.py's situation: 5 _ _, 5 2 _ and 5 _ 1 beat 441 surely and leave P(pay) 0 (the
    # game ends at once, seat 1 paying); the game answer names the first in the keep order, 5 2 _, and so must
    # the round's box and the explanation (before, the round's box named 5 _ 1 and said the game broke the tie)
    q = "#hand=521&throws=1&beat=222,441&count=2&players=3&seat=2&state=pot=0,t0=1,t1=7,t2=3,leader=0"
    _go(page, q, "s => document.querySelector('#best-game') !== null && "
        "document.getElementById('cli').textContent.includes(s)", "advise 521 ")
    keep = "5 2 _"  # the first of the three in the keep order (tests/test_tie_explanation.py)
    assert page.text_content("#best-game").startswith(f"For the game: keep {keep} — P(pay) = 0.00%")
    best = page.text_content("#best-round")
    assert best.startswith(f"For the round: keep {keep} (a tie with keep 5 _ 1 and keep 5 _ _, on the round and on "
                           "the game)"), best
    why = page.text_content("#why")
    assert "breaks it" not in why and f"They tie on P(pay) too (0.00%): both answers name keep {keep}" in why, why
    assert page.get_attribute(f"#keeps tbody tr[data-keep='{keep}'] td.keep", "data-best") == "best for both"
    want = advise_cli.advise(["521", "--throws-left", "1", "--beat", "222,441", "--count", "2", "--players", "3",
                              "--seat", "2", "--state", "pot=0,t0=1,t1=7,t2=3,leader=0"])
    assert want["game"]["best"]["keep"] == want["best"]["keep"] == keep  # the command names the same keep


def test_a_table_size_without_data_keeps_its_state_in_the_form(page):
    # at 6 players (no data on the site) the address's seat and tokens fill the form as at 3 and 4, and an edit
    # of the form keeps them in the address and in the command (before, the form had no field for them: the
    # first edit dropped the state). Opened after a situation of 2 leader's throws: an address without a count
    # means the limit (3), as the answer reads it, not what the menu held before
    _go(page, "#hand=631&throws=1&beat=654&count=2&players=3&seat=1&state=pot=0,t0=4,t1=4,t2=3,leader=0",
        "() => document.querySelector('#best-game') !== null && location.hash.includes('count=2')", "")
    state = "pot=0,t0=3,t1=2,t2=2,t3=2,t4=1,t5=1,leader=0"
    _go(page, f"#hand=631&throws=1&beat=654,521&players=6&seat=2&state={state}",
        "() => document.getElementById('why') !== null && document.getElementById('why').textContent.includes("
        "'6 players')", "")
    assert [page.input_value(f"#{f}") for f in ("pot", "t0", "t1", "t2", "t3", "t4", "t5", "leader")] == \
        ["0", "3", "2", "2", "2", "1", "1", "0"]
    assert page.input_value("#seat") == "2" and page.is_hidden("#phase-row")
    assert (page.input_value("#count"), page.input_value("#throws")) == ("3", "1")
    page.select_option("#throws", "2")
    page.wait_for_function("() => location.hash.includes('throws=2')")
    assert f"players=6&seat=2&state={state}" in page.evaluate("location.hash")
    page.wait_for_function("s => document.getElementById('why').textContent.includes(s)",
                           arg=f"--throws-left 2 --players 6 --seat 2 --state {state}.")
