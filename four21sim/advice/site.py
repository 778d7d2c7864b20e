"""The advisor as a static site: one page for a phone at the bar (``four21sim site --out DIR``).

The page (``index.html``, ``site.css``, ``app.js``, shipped in ``advice/site_assets/``)
holds no rule. It reads the round answers from the data files written here, and computes
the game answer of a round from the solvers' values of the round's outcomes (2 players), or
from the n-player equilibrium's rounds (3 players and more):

``data/index.js``
    the manifest: the hands, the keeps of each hand and how the advisor writes them, the
    throw table (which hands a throw gives, as exact counts over 216, 36 or 6), the table
    sizes the page accepts, and per variant its rules, its ranking, its throw limits, the
    notes of its cheat sheet and the token states with a game answer (per player count).
``data/<variant>/round.js``
    the round answers (:func:`four21sim.exact.odds.keep_advice`): the leader's
    (:func:`round_lead`) and a follower's against each hand to beat (:func:`round_beat`),
    every keep best first as an exact fraction (numerators over one denominator per table).
``data/<variant>/g2.js``
    the 2-player game (:mod:`four21sim.exact.two_player`): how every pair of final hands
    ends the round (who pays, how many tokens: :func:`outcome_code`, once per phase) and,
    per token state, P(win the game) after each outcome (:func:`state_values`). From
    these the page plays the round backwards exactly as the solver's kernel does
    (``round_value``: same operations in the same order, in double precision) and ranks
    the keeps as :func:`four21sim.advice.advisor.keep_order` does.

``data/<variant>/g<n>.js`` (3 players and more, :data:`GAME_PLAYERS` among the sizes that ship)
    the n-player equilibrium's rounds (:mod:`four21sim.exact.round_tables`, packed by :func:`nplayer_data`):
    per phase the follower contexts (their counts, and ``trans``: where a follower's final hand leads, the
    next context or an outcome of the round), the outcomes as mixes of outcome classes, the leader's first
    contexts; the equilibrium's choice values (states by role) and, per state, where each role's utility
    after each outcome class is among those values (or a constant where the game ends); the dice's keep
    steps and the tie. The page plays the round backwards as the kernel's ``solve_round`` does (the last
    follower in every context it can meet, then each earlier one, then the leader; same sums in the same
    order, the first keep within 1e-12 of the best) and gives P(pay) of each keep as
    :func:`four21sim.exact.nplayer.keep_values` does. A follower's answer needs only the contexts after
    its own (milliseconds); the leader's needs every context of the phase: in a phase of more than
    :data:`LEAD_CONTEXTS` contexts (the décharge at 4 players, 64,194, 5, 289,422, and 6; solving the 4-player one
    took 1.1 to 2.4 s with the CPU throttled 4x on a busy machine, ``experiments/site_game_timing.py``) the
    build stores the leader's values after each final hand per state instead
    (:func:`four21sim.exact.round_tables.lead_ends`, 168 numbers a state, 170 kB at 4 players). Arrays are
    stored as byte planes (:func:`_packed`), zlib-compressed, in base64, and ``trans`` smaller still
    (:func:`renumbered`: contexts numbered in the order the level before names them; :func:`_packed_rows`:
    equal rows once, the columns from the best hand to the worst, each row as steps less the row above's,
    one byte each); the page inflates them with the browser's ``DecompressionStream``, a phase when first
    asked. The 6-player décharge's ``trans``, 61 million entries, went from 30 MB deflated to 0.9 MB, and
    the whole 6-player file from 41 MB to 1.9 MB (``experiments/site_data_sizes.py``; docs/site.md).

    Alternatives measured: the round's contexts rebuilt in the page from the hands' ranks would restate
    the rules (refused: the page holds no rule); the utilities after each outcome class stored per state
    as doubles (4 players: 174,000 numbers, 1.4 MB) instead of indices into 4,484 values; the leader's
    values stored for every state (charge too: 1.5 MB more at 4 players, where the charge's 9,912
    contexts take 0.2 s; 2.4 MB at 5 players, whose charge's 26,544 contexts take 0.9 s).

``four21sim-site.json``
    the marker (:data:`MARKER`): the format and every file the build wrote. Only a folder holding it and
    nothing else than those files is replaced by a later build; a folder that merely looks like a site is not.

Each data file is a script that stores one object in ``window.F421DATA[key]``: a page opened
from the file system may load scripts but not read JSON. The page loads the manifest
first, then the one or two files a situation needs; a player count with a game answer is a
``g<n>.js`` file and its entry in the manifest (docs/site.md).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import shutil
import stat
import tempfile
import zlib
from collections.abc import Callable, Sequence
from importlib import resources
from math import lcm
from pathlib import Path

import numpy as np

from .. import __version__
from .._util.atomic import UnsafePath, kind_of, read_bounded
from .._util.checks import shown
from ..exact import odds
from ..rules import dice
from ..rules.variants import PRESETS, Variant, as_variant
from . import charts
from .advisor import keep_order, tie_ordered
from .explain import KEEP_ORDER, NEAR_TIE, outcome_values, round_table

__all__ = ["ASSETS", "GAME_SCALE", "build_site", "manifest", "round_lead", "round_beat", "game_lead", "game_beat",
           "game_states", "data_key", "outcome_code", "state_values", "player_range", "DEFAULT_VARIANTS", "MARKER",
           "MARKER_FORMAT", "GAME_PLAYERS", "nplayer_data", "nplayer_arrays", "unpack", "lead_states",
           "lead_state_list", "LEAD_CONTEXTS", "LEAD_STATES"]

ASSETS = ("index.html", "site.css", "app.js")
GAME_SCALE = 1_000_000  # game_lead/game_beat give P(win the game) in millionths (the tests' reference tables)
DEFAULT_VARIANTS = ("super421",)  # small enough to send to a phone; --variants all for every preset
MARKER = "four21sim-site.json"  # written last by a build: the site's format and its files
MARKER_FORMAT = "four21sim-site/1"
GAME_PLAYERS = (2, 3, 4, 5, 6)
"""The table sizes whose game answer a default build writes (those of them that ship an equilibrium,
:mod:`four21sim.exact.shipped`, from 3 players). The largest data are 5 players' (289,422 follower contexts in
the décharge) and 6 players' (1,096,440), stored small (:func:`renumbered`, :func:`_packed_rows`): the
default site stays under the 5 MB a phone is sent (docs/site.md). A build of fewer sizes
(``--players``) leaves the others out; on such a site the page says so and gives the command that answers."""

PAGE_GAME_PLAYERS = (2, 6)
"""The table sizes the page can give the game answer of (``four21sim site --players``), where an
equilibrium ships."""
_MARKER_BYTES = 1_000_000
_CODE_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"
_NH = dice.N_HANDS


def _keep_values(level: np.ndarray) -> list[float]:
    """The value of each keep that throws, the next hands worth ``level``: the kernel's sums in the kernel's
    order (a matrix product rounds otherwise, and keeps that tie would then be ranked by that rounding)."""
    from ..exact.two_player import throw_values
    return throw_values(level).tolist()


def data_key(variant: str, *parts: str) -> str:
    """The key of a data file in ``window.F421DATA`` and its path under ``data/`` (without ``.js``)."""
    return "/".join((variant, *parts))


def _fractions(rows: list[list]) -> dict:
    """``rows[h]`` = [(keep, Fraction), ...] as ``{"den": D, "keeps": [[k, n, k, n, ...] per hand]}``."""
    den = 1
    for row in rows:
        for _, val in row:
            den = lcm(den, val.denominator)
    if den >= 2 ** 53:
        raise ValueError(f"denominator {den} does not fit a JavaScript number exactly")
    return {"den": den, "keeps": [[x for k, val in row for x in (int(k), int(val * den))] for row in rows]}


def round_lead(variant: Variant) -> dict:
    """The leader's round answer: ``{str(limit): {str(throws_left): table}}`` (tables of :func:`_fractions`),
    every keep best first as ``advise`` ranks them: exact ties in the round tie rule's order
    (:func:`four21sim.advice.advisor.tie_ordered`), so that the page's first tied keep is the advisor's."""
    def row(h, m, L):
        keeps = odds.keep_advice(dice.hand_name(h), m, objective="round", variant=variant, throws=L, exact=True)
        return [(k.index, k.value) for k in tie_ordered(variant, "leader", h, m, keeps, "round", limit=L)[0]]

    return {str(L): {str(m): _fractions([row(h, m, L) for h in range(_NH)]) for m in range(L)}
            for L in sorted({variant.charge_throws, variant.decharge_throws})}


def round_beat(variant: Variant, target: int) -> dict:
    """A follower's round answer against ``target``: ``{str(throws_left): table}``, throws left 0 to 2, every
    keep best first as ``advise`` ranks them (exact ties in the round tie rule's order, as :func:`round_lead`)."""
    name = dice.hand_name(target)

    def row(h, m):
        keeps = odds.keep_advice(dice.hand_name(h), m, beat=name, variant=variant, exact=True)
        return [(k.index, k.value) for k in tie_ordered(variant, "follower", h, m, keeps, "beat", name)[0]]

    return {str(m): _fractions([row(h, m) for h in range(_NH)]) for m in range(odds.MAX_THROWS_LEFT + 1)}


def _ranked_ints(h: int, options: dict) -> list[int]:
    """Every keep of ``h`` best first (the advisor's order), flat: ``[keep, millionths, ...]``."""
    return [x for k in keep_order(h, options) for x in (k, int(round(options[k] * GAME_SCALE)))]


_THROWING = [[int(k) for k in dice.keeps_of(h, allow_stop=False)] for h in range(_NH)]


def _keep_options(h: int, stop_value: float | None, kv: np.ndarray) -> dict:
    """``{keep: value}`` of hand ``h``: the keeps that throw (values ``kv``), and stopping if allowed."""
    opts = {k: kv[k] for k in _THROWING[h]}
    if stop_value is not None:
        opts[dice.FULL_KEEP + h] = stop_value
    return opts


def game_lead(sol, pot: int, mine: int, theirs: int) -> dict:
    """The leader's game answer in one state: ``{str(made): [flat keeps per hand]}``, made 1 to the limit
    (the values of :func:`four21sim.exact.two_player.leader_keep_values`, computed for every hand at once).

    Not written to the site (the page computes these from :func:`state_values`): the reference the tests
    hold the page's tables to, whole."""
    v = sol.variant
    L = v.charge_throws if pot else v.decharge_throws
    d = sol.round_detail(pot, mine, theirs)
    out = {str(L): [_ranked_ints(h, {dice.FULL_KEEP + h: float(d["lead_val"][L - 1, h])}) for h in range(_NH)]}
    for made in range(1, L):
        kv = _keep_values(d["lead_val"][made])
        out[str(made)] = [_ranked_ints(h, _keep_options(h, 1.0 - float(d["foll_val"][h, made - 1]), kv))
                          for h in range(_NH)]
    return out


def _follower_terminal(sol, pot: int, mine: int, theirs: int, hl: int) -> np.ndarray:
    """``W[c-1, f-1, h]``: the follower's P(win the game) stopping on h after f throws behind hl's c."""
    code, pay = round_table(sol.variant, "charge" if pot else "decharge")
    vals, _, _ = outcome_values(sol, pot, theirs, mine)  # the leader's: [0] it loses, [1] the follower loses
    c, p = code[hl].transpose(0, 2, 1), pay[hl].transpose(0, 2, 1)  # [c-1, f-1, h]
    lead = np.where(c == 0, vals[0][p], np.where(c == 1, vals[1][p], 0.5 * (vals[0][p] + vals[1][p])))
    return 1.0 - lead


def game_beat(sol, pot: int, mine: int, theirs: int, hl: int, detail=None) -> dict:
    """A follower's game answer behind a leader who stopped on ``hl``: ``{str(count): {str(made): [...]}}``
    (the values of :func:`four21sim.exact.two_player.follower_keep_values`, every hand at once; the tests'
    reference for the page, as :func:`game_lead`)."""
    v = sol.variant
    L = v.charge_throws if pot else v.decharge_throws
    d = detail if detail is not None else sol.round_detail(pot, theirs, mine)
    W = _follower_terminal(sol, pot, mine, theirs, hl)
    may_stop = v.followers == "at_most"
    out = {}
    for c in range(1, L + 1):
        Wl = W[c - 1].tolist()
        rows = {str(c): [_ranked_ints(h, {dice.FULL_KEEP + h: Wl[c - 1][h]}) for h in range(_NH)]}
        for made in range(1, c):
            nxt = d["foll_lv"][hl, c - 1, made] if made + 1 < c else W[c - 1, c - 1]
            kv = _keep_values(nxt)
            rows[str(made)] = [_ranked_ints(h, _keep_options(h, Wl[made - 1][h] if may_stop else None, kv))
                               for h in range(_NH)]
        out[str(c)] = rows
    return out


def game_states(variant: Variant) -> list[tuple[int, int, int]]:
    """Every live 2-player state ``(pot, mine, theirs)``: both players hold tokens once the pot is empty."""
    T = variant.tokens
    return [(pot, a, T - pot - a) for pot in range(T, -1, -1) for a in range(T - pot + 1)
            if pot or (a and T - a)]


def outcome_code(variant: Variant, phase: str) -> dict:
    """How every pair of final hands ends a 2-player round (:func:`four21sim.exact.two_player.round_table`), as
    two strings of one character per ``[leader hand, count-1, follower hand, follower throws-1]``
    (56 x 3 x 56 x 3): ``code`` (``code + 1``: 0 where the follower would throw more than the leader, 1 the
    leader loses, 2 the follower loses, 3 a tie) and ``pay`` (the payout), digits of ``_CODE_DIGITS``."""
    code, pay = round_table(variant, phase)
    if pay.max() >= len(_CODE_DIGITS):
        raise ValueError(f"payout {pay.max()} does not fit the page's outcome digits")
    return {"code": "".join(_CODE_DIGITS[d] for d in (code + 1).ravel().tolist()),
            "pay": "".join(_CODE_DIGITS[d] for d in pay.ravel().tolist())}


def state_values(sol, pot: int, a: int, b: int) -> list[list[float]]:
    """``[leader loses, follower loses][pay]``: the leader's P(win the game) after the round from state
    ``(pot, a, b)`` (the leader holding ``a``), the solver's values as doubles (JSON round-trips them exactly)."""
    vals, _, _ = outcome_values(sol, pot, a, b)
    return [[float(x) for x in row] for row in vals]


LEAD_CONTEXTS = 30_000
"""A phase whose round has more follower contexts than this (4 players, décharge: 64,194; 5 players, décharge:
289,422; 6 players, décharge: 1,096,440) ships the leader's values after each final hand, state by state
(:func:`four21sim.exact.round_tables.lead_ends`), where it has at most :data:`LEAD_STATES` states: the page then
gives the leader's answer without solving every context (1.1 to 2.4 s at 4 players with the CPU throttled 4x,
measured on a busy machine), for 170 kB more at 4 players (120 states), 290 kB at 5 (210 states) and about
350 kB at 6 (252 states)."""

LEAD_STATES = 1_000
"""A phase of more states than this has its leader solved in the page whatever its contexts: the 5-player
charge (26,544 contexts, 3,003 states: its values would be 2.4 MB) and the 6-player charge (61,992 contexts,
8,008 states: 6.5 MB)."""


def _deflated(raw: bytes) -> str:
    """Bytes as a data file holds them: zlib-compressed, in base64 (a data file is a script: text; the page
    inflates them with the browser's DecompressionStream)."""
    return base64.b64encode(zlib.compress(raw, 9)).decode("ascii")


def _packed(a: np.ndarray) -> dict:
    """An array as the page reads it: ``{"n": size, "f8": 1, "z": ...}`` for doubles, their 8 byte planes
    (:func:`four21sim.exact.shipped.encode`'s form: the sign and exponent bytes are nearly all alike), or
    ``{"n": size, "w": width, "z": ...}`` for non-negative integers below 2**31, their ``width`` low byte
    planes (the fewest that hold the largest; an int32 array of small numbers deflates badly as it is)."""
    a = np.asarray(a).ravel()
    if a.dtype.kind == "f":
        from ..exact.shipped import encode
        return {"n": int(a.size), "f8": 1, "z": _deflated(encode({"a": a.astype(np.float64)})["a"].tobytes())}
    a = a.astype(np.int64)
    if a.size and (a.min() < 0 or a.max() >= 2 ** 31):
        raise ValueError(f"an array from {a.min()} to {a.max()} does not fit the page's unsigned planes")
    w = max(1, (int(a.max()).bit_length() + 7) // 8) if a.size else 1
    planes = a.astype("<u8").view(np.uint8).reshape(a.size, 8)[:, :w].T
    return {"n": int(a.size), "w": w, "z": _deflated(np.ascontiguousarray(planes).tobytes())}


def unpack(obj: dict) -> np.ndarray:
    """The array of :func:`_packed` (int64 or float64), as the page decodes it (the tests read the data back)."""
    raw = np.frombuffer(zlib.decompress(base64.b64decode(obj["z"])), np.uint8)
    n = obj["n"]
    if obj.get("f8"):
        return np.ascontiguousarray(raw.reshape(8, n).T).view("<f8").ravel().astype(np.float64)
    planes = raw.reshape(obj["w"], n).astype(np.int64)
    return sum(planes[k] << (8 * k) for k in range(obj["w"]))


def _zigzag(x: np.ndarray) -> np.ndarray:
    return np.where(x >= 0, 2 * x, -2 * x - 1)


def _escaped(z: np.ndarray) -> dict:
    """Non-negative integers nearly all below 255 as one byte each (``z``, deflated), 255 meaning "255 plus the
    next of ``esc``" (:func:`_packed`): a byte plane where three were (the 6-player décharge's steps: 31 million,
    1.3% of them 255 or more), which the page inflates three times faster."""
    z = np.asarray(z, np.int64).ravel()
    return {"n": int(z.size), "z": _deflated(np.minimum(z, 255).astype(np.uint8).tobytes()),
            "esc": _packed(z[z >= 255] - 255)}


def _unescaped(obj: dict) -> np.ndarray:
    z = np.frombuffer(zlib.decompress(base64.b64decode(obj["z"])), np.uint8).astype(np.int64)
    z[z == 255] += unpack(obj["esc"])
    return z


def _packed_rows(rows: np.ndarray, cols: np.ndarray, dedup: bool) -> dict:
    """A table of rows (``trans``: a row of 56 entries per context, or per throw of one) stored small: equal
    rows once (``dedup``: then ``index`` gives each row its stored row, in order of first appearance), the
    columns in the order ``cols`` (the hands from best to worst, along which a row changes seldom), each
    row as the steps from one column to the next, each step less the same step of the row above (rows
    numbered as :func:`renumbered` does change alike from one to the next), zigzag (non-negative), stored
    column by column (:func:`_escaped`). Decoded to the same integers (:func:`unpack_rows`; the page's
    ``unpackRows``, which keeps them column by column: entry (r, h) at ``h * rows + r``)."""
    rows = np.asarray(rows, np.int64)
    if rows.size and (rows.min() < 0 or rows.max() >= 2 ** 29):  # a step's zigzag then fits 31 bits
        raise ValueError(f"rows from {rows.min()} to {rows.max()} do not fit the page's steps; allowed: 0 to 2**29 - 1")
    out = {"width": int(rows.shape[1]), "cols": [int(c) for c in cols]}
    if dedup:
        # each row as one opaque value of its bytes (equal rows, equal bytes): np.unique(axis=0) sorted the
        # 6-player décharge's 1.1 million rows in 10 s, this in under 1 (the numbering below is by first
        # appearance, whatever order the sort leaves)
        rows = np.ascontiguousarray(rows)
        as_one = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
        _, first, inv = np.unique(as_one, return_index=True, return_inverse=True)
        number = np.empty(len(first), np.int64)
        number[np.argsort(first)] = np.arange(len(first))
        out["index"] = _packed(number[inv.ravel()])
        rows = rows[np.sort(first)]
    out["rows"] = int(rows.shape[0])
    steps = np.diff(np.diff(rows[:, cols], axis=1, prepend=0), axis=0, prepend=0)
    out["steps"] = _escaped(_zigzag(steps).T)
    return out


def unpack_rows(obj: dict) -> tuple[np.ndarray, np.ndarray | None]:
    """``(rows, index)`` of :func:`_packed_rows`: the stored rows (``rows x width``) and which stored row each
    row is (None where every row is stored)."""
    z = _unescaped(obj["steps"]).reshape(obj["width"], obj["rows"]).T
    steps = (z >> 1) ^ -(z & 1)
    rows = np.empty_like(steps)
    rows[:, obj["cols"]] = np.cumsum(np.cumsum(steps, axis=0), axis=1)
    return rows, (unpack(obj["index"]) if "index" in obj else None)


def _spans(start: np.ndarray, lens: np.ndarray, which: np.ndarray) -> np.ndarray:
    """The positions ``start[w] .. start[w] + lens[w] - 1`` of each ``w`` of ``which``, one after the other."""
    n = lens[which]
    return np.repeat(start[which] - np.cumsum(n) + n, n) + np.arange(n.sum())


def _first_seen(values: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """The numbers ``lo .. hi-1`` in the order ``values`` first names them, those it never names after."""
    v = values[(values >= lo) & (values < hi)] - lo
    first = np.full(hi - lo, v.size, np.int64)
    np.minimum.at(first, v, np.arange(v.size))  # each number's first place (np.unique sorted: 30 times slower)
    seen = np.flatnonzero(first < v.size)
    unseen = np.flatnonzero(first == v.size)
    return np.concatenate([seen[np.argsort(first[seen], kind="stable")], unseen]).astype(np.int64) + lo


def renumbered(c: dict, cols: np.ndarray) -> dict:
    """The phase ``c`` (:func:`four21sim.exact.round_tables.phase_contexts`) with its contexts, level by level,
    and its outcomes numbered again in the order in which the level before first names them (the leader's
    ``lead_next`` for the first level; a row read along ``cols``, the hands from best to worst): the same
    round, whose ``trans`` rows then name new contexts in increasing order, so that their steps along a
    column are small (the 5-player décharge's ``trans``: 529 -> 320 kB in the data file, the steps as before).

    Each context keeps its count and its rows (one, or one per throw count: ``row_start``), the outcomes
    their mixes of classes; nothing but the numbers changes (tests/test_site_nplayer.py pairs the two
    numberings context by context)."""
    lvl = [int(x) for x in c["lvl"]]
    G, NO = c["G"], len(c["fin_start"]) - 1
    row_start = np.asarray(c["row_start"], np.int64)
    trans = np.asarray(c["trans"], np.int64).reshape(-1, _NH)
    lens = np.diff(row_start) // _NH  # rows per context
    new = np.empty(G + NO, np.int64)  # old number -> new
    order = []  # old contexts in their new order
    source = np.asarray(c["lead_next"], np.int64).reshape(-1, _NH)[:, cols].ravel()
    bounds = [*zip(lvl[:-1], lvl[1:]), (G, G + NO)]
    for k, (lo, hi) in enumerate(bounds):
        if source.size and (source.min() < lo or source.max() >= hi):
            raise ValueError(f"phase contexts: level {k} names numbers outside {lo} .. {hi - 1}")
        old = _first_seen(source, lo, hi)
        new[old] = np.arange(lo, hi)
        if hi <= G:
            order.append(old)
            source = trans[_spans(row_start // _NH, lens, old)][:, cols].ravel()
    ctx_order = np.concatenate(order) if order else np.zeros(0, np.int64)
    rows = _spans(row_start // _NH, lens, ctx_order)
    out_order = np.argsort(new[G:])  # the outcomes' old numbers (less G) in their new order
    fs = np.asarray(c["fin_start"], np.int64)
    fin_take = _spans(fs, np.diff(fs), out_order)
    fin_len = np.diff(fs)[out_order]
    return dict(c, ctx_c=np.asarray(c["ctx_c"])[ctx_order],
                row_start=np.concatenate([[0], np.cumsum(lens[ctx_order]) * _NH]).astype(np.int64),
                trans=new[trans[rows]].astype(np.int32).ravel(),
                lead_next=new[np.asarray(c["lead_next"], np.int64)].astype(np.int32),
                fin_start=np.concatenate([[0], np.cumsum(fin_len)]).astype(np.int64).tolist(),
                fin_cls=np.asarray(c["fin_cls"], np.int64)[fin_take].tolist(),
                fin_w=np.asarray(c["fin_w"], np.float64)[fin_take].tolist())


def nplayer_arrays(sol) -> dict:
    """The arrays of :func:`four21sim.exact.round_tables.round_arrays` (the equilibrium ``sol``'s rounds)."""
    from ..exact import round_tables
    return round_tables.round_arrays(sol)


def lead_states(sol, contexts: dict | None = None) -> dict:
    """``{phase: [state, ...]}``: the states of each phase of the equilibrium ``sol`` whose leader's
    values the page reads stored (a phase of more than :data:`LEAD_CONTEXTS` contexts and at most
    :data:`LEAD_STATES` states; ``contexts``: phase -> its number of contexts, default from the solution's
    rounds), in the order of its states, the phases in :data:`four21sim.exact.round_tables.PHASES` order."""
    from ..exact import round_tables
    if contexts is None:
        contexts = {ph: round_tables.phase_contexts(sol, ph)["G"] for ph in round_tables.PHASES}
    out = {}
    for ph in round_tables.PHASES:
        states = [i for i, (pot, _) in enumerate(sol.states) if (pot > 0) == (ph == "charge")]
        if contexts[ph] > LEAD_CONTEXTS and len(states) <= LEAD_STATES:
            out[ph] = states
    return out


def lead_state_list(need: dict) -> list[int]:
    """The states of :func:`lead_states`' ``need``, one phase after the other: the order in which the
    leader's values are stored (:mod:`four21sim.exact.shipped_lead`) and written into a data file."""
    return [s for states in need.values() for s in states]


def nplayer_data(sol, arrays: dict | None = None, lead_ends: Callable[[int], np.ndarray] | None = None,
                 progress: Callable[[str], None] | None = None) -> dict:
    """``data/<variant>/g<n>.js`` for the n-player equilibrium ``sol``: its rounds as the page plays them
    backwards (:mod:`four21sim.exact.round_tables`), the large arrays packed (:func:`_packed`,
    :func:`_packed_rows`). ``lead_ends(s)``: the leader's values of state s (default: those shipped
    beside the equilibrium, :mod:`four21sim.exact.shipped_lead`, else
    :func:`four21sim.exact.round_tables.lead_ends`); ``progress(what)`` is told of each state computed."""
    from ..exact import round_tables, shipped_lead
    a = arrays if arrays is not None else nplayer_arrays(sol)
    need = lead_states(sol, {ph: c["G"] for ph, c in a["phases"].items()})
    stored = shipped_lead.load(sol, lead_state_list(need)) if lead_ends is None and need else None
    if stored is not None:  # one array, the phases' states one after the other
        cut = np.cumsum([0] + [len(states) for states in need.values()])
        stored = {ph: stored[cut[k]:cut[k + 1]] for k, ph in enumerate(need)}
    lead_ends = lead_ends or (lambda s: round_tables.lead_ends(sol, s))
    cols = np.asarray(dice.ORDER[sol.variant.ranking_index])
    phases = {}
    for ph, c in a["phases"].items():
        c = renumbered(c, cols)
        # exact followers end after the count only: a row of NH per context (else one per throw count)
        exact = np.array_equal(c["row_start"], np.arange(c["G"] + 1) * _NH)
        phases[ph] = {"L": c["L"], "exact": c["exact"], "G": c["G"], "lvl": c["lvl"], "classes": c["classes"],
                      "ctx_c": _packed(c["ctx_c"]), "row_len": _NH if exact else 0,
                      "trans": _packed_rows(c["trans"].reshape(-1, _NH), cols, True),
                      "lead_next": c["lead_next"].ravel().tolist(),
                      # each outcome's mix: how many classes, which, their weights
                      "fin_len": _packed(np.diff(c["fin_start"])), "fin_cls": _packed(c["fin_cls"]),
                      "fin_w": _packed(np.asarray(c["fin_w"], np.float64))}
        if not exact:
            phases[ph]["row_start"] = _packed(c["row_start"])
        if ph in need:  # the leader's ends, per state of the phase in the order of "states"
            at = need[ph]
            if stored is not None:
                ends = stored[ph]
            else:
                ends = []
                for k, i in enumerate(at):
                    if progress:
                        progress(f"the leader's values in the {'charge' if ph == 'charge' else 'décharge'}, "
                                 f"state {k + 1} of {len(at)}")
                    ends.append(lead_ends(i))
            phases[ph]["lead_ends"] = _packed(np.array(ends))
    succ = [x.ravel() for x in a["succ"]]
    start = np.concatenate([[0], np.cumsum([len(x) for x in succ])])
    return {"players": sol.players, "objective": sol.objective, "tie": sol.tie, "steps": a["steps"],
            # the states field by field (the pot of every state, then seat 0's tokens, ...): 8,260 states at 6 players
            "states": _packed(np.asarray(a["states"], np.int64).T), "values": _packed(a["values"]),
            "consts": a["consts"],
            "succ": _packed(np.concatenate(succ)), "succ_start": _packed(start), "phases": phases}


def player_range() -> dict:
    """The table sizes the page accepts, those with a game answer somewhere (the advisor's own:
    :data:`~four21sim.advice.advisor.ROUND_PLAYERS`, :data:`~four21sim.advice.advisor.GAME_PLAYERS`) and the largest
    a site can be built with (:data:`PAGE_GAME_PLAYERS`)."""
    from .advisor import GAME_PLAYERS, ROUND_PLAYERS
    return {"min": ROUND_PLAYERS[0], "max": ROUND_PLAYERS[1], "game_max": GAME_PLAYERS[1],
            "page_game_max": PAGE_GAME_PLAYERS[1]}


def _variant_entry(name: str, v: Variant, players: dict) -> dict:
    return {"name": name, "describe": v.describe(), "options": v.options(), "tokens": v.tokens,
            "followers": v.followers, "limits": {"charge": v.charge_throws, "decharge": v.decharge_throws},
            "order": [int(h) for h in dice.ORDER[v.ranking_index]],
            "notes": {"leader": charts.rule_notes(v, "leader"), "follower": charts.rule_notes(v, "follower")},
            "game": players}


def _throw_table() -> dict:
    """The throws of the keeps that throw, sparse, in the kernel's order (``dice.KT_START``/``KT_HAND``): the
    page sums ``count / denom * value`` in that order, as :func:`four21sim.exact.two_player.throw_values` does."""
    n = dice.FULL_KEEP
    end = int(dice.KT_START[n])
    return {"start": [int(x) for x in dice.KT_START[:n + 1]], "hand": [int(x) for x in dice.KT_HAND[:end]],
            "count": [int(x) for x in dice.KT_COUNT[:end]], "denom": [int(x) for x in dice.KT_DENOM[:n]],
            "first": [int(x) for x in dice.THROW_COUNTS[0]], "first_denom": 216}


def manifest(variants: dict[str, Variant], games: dict[str, dict]) -> dict:
    """The site's index: hands, keeps (in ``dice.HAND_KEEPS`` order) and their labels, the throw table, the
    table sizes, and one entry per variant."""
    from ..exact.ties import KEEP_TIE
    keeps = [[[int(k), dice.keep_label(h, int(k)), bool(k == dice.FULL_KEEP + h)] for k in dice.keeps_of(h)]
             for h in range(_NH)]
    return {"generator": f"four21sim {__version__}", "hands": [dice.hand_name(h) for h in range(_NH)],
            "keeps": keeps, "full_keep": dice.FULL_KEEP, "throws": _throw_table(), "keep_tie": KEEP_TIE,
            "near_tie": NEAR_TIE, "keep_order": KEEP_ORDER, "players": player_range(),
            "variants": {n: _variant_entry(n, v, games.get(n, {})) for n, v in variants.items()}}


class _Writer:
    """Writes ``data/<key>.js`` files under a folder, counting files and bytes, and the site's marker."""

    def __init__(self, root: Path):
        self.root, self.files, self.bytes = root, 0, 0

    def mark(self) -> None:
        """Write the marker: the site's format and every file under the folder (the marker aside)."""
        files = sorted(p.relative_to(self.root).as_posix() for p in self.root.rglob("*") if p.is_file())
        text = json.dumps({"format": MARKER_FORMAT, "generator": f"four21sim {__version__}", "files": files},
                          indent=1) + "\n"
        (self.root / MARKER).write_text(text, encoding="utf-8")
        self.files += 1
        self.bytes += len(text.encode())

    def put(self, key: str, obj) -> None:
        path = self.root / "data" / f"{key}.js"
        path.parent.mkdir(parents=True, exist_ok=True)
        text = (f"(window.F421DATA = window.F421DATA || {{}})[{json.dumps(key)}] = "
                f"{json.dumps(obj, separators=(',', ':'), ensure_ascii=False)};\n")
        path.write_text(text, encoding="utf-8")
        self.files += 1
        self.bytes += len(text.encode())


def build_site(out: str | Path, variants: Sequence[str] | None = None, game: bool = True,
               states: Callable[[Variant], list] | None = None,
               progress: Callable[[int, int, str], None] | None = None,
               players: Sequence[int] = GAME_PLAYERS) -> dict:
    """Write the static site to the folder ``out`` (created; an existing site there is replaced).

    Parameters
    ----------
    out : path
        The folder to write: open ``out/index.html`` from the file system or put the folder on any static host.
        It must be new, empty, or hold a site written before (its :data:`MARKER`) and nothing but the files
        that marker lists; anything else raises ValueError and the folder is left as it was.
    variants : list of str, optional
        Preset names (default: :data:`DEFAULT_VARIANTS`, Super 421 alone).
    game : bool
        Include the game answers (at the sizes ``players``).
    states : callable, optional
        ``states(variant) -> [(pot, mine, theirs), ...]``: the 2-player token states to include (default: every
        live state).
    progress : callable, optional
        ``progress(done, total, what)``, called as the work goes on (``total`` steps: a hand to beat's round
        answers, the leader's, a variant's solve, a token state's values, an n-player game's rounds).
    players : sequence of int
        The table sizes with a game answer (default :data:`GAME_PLAYERS`): 2, and from 3 those whose
        equilibrium ships (:func:`nplayer_sizes`; a build never solves an n-player game).

    Returns
    -------
    dict
        ``{"files": n, "bytes": n, "manifest": ...}``.
    """
    names = list(variants) if variants is not None else list(DEFAULT_VARIANTS)
    for n in names:
        if n not in PRESETS:
            raise ValueError(f"variants: {n!r} is not allowed; allowed: {', '.join(PRESETS)}")
    vs = {n: as_variant(n) for n in names}
    with_two = game and 2 in players
    picked = {n: (states(v) if states else game_states(v)) if with_two else [] for n, v in vs.items()}
    sizes = {n: nplayer_sizes(v, players) if game else [] for n, v in vs.items()}
    out = Path(out)
    _check_out(out)
    total = sum(_NH + 1 + (1 + len(picked[n]) if with_two else 0) + len(sizes[n]) for n in names)
    done = 0

    def step(what: str, advance: bool = True) -> None:
        nonlocal done
        done += advance  # a long step (the 5-player leader's values) says how far it is without counting
        if progress:
            progress(done, total, what)

    # written beside the target and swapped in whole: a stopped build leaves the old site as it was
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        w = _Writer(tmp)
        games = {}
        for name, v in vs.items():
            _write_rounds(w, name, v, step)
            games[name] = _write_game(w, name, v, picked[name], step) if with_two else {}
            for n in sizes[name]:
                games[name].update(_write_nplayer(w, name, v, n, step))
        index = manifest(vs, games)
        w.put("index", index)
        assets = resources.files("four21sim.advice") / "site_assets"
        for asset in ASSETS:
            data = (assets / asset).read_bytes()
            (tmp / asset).write_bytes(data)
            w.files += 1
            w.bytes += len(data)
        w.mark()
        _swap(tmp, out, _check_out(out))  # checked again: the folder may have changed during the build
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return {"files": w.files, "bytes": w.bytes, "manifest": index}


def _site_files(out: Path) -> list[str] | None:
    """The files the marker of the folder ``out`` lists (paths under ``out``, ``/``-separated), or None if it
    has no marker that the site wrote: a file is data, so the marker is checked before it is believed."""
    try:
        data = json.loads(read_bounded(out / MARKER, _MARKER_BYTES, follow=False).decode("utf-8"))
    except (OSError, UnsafePath, UnicodeDecodeError, ValueError):
        return None
    files = data.get("files") if isinstance(data, dict) and data.get("format") == MARKER_FORMAT else None
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        return None
    # only names a build writes: a forged marker cannot make a user's README.md (or ../x) the site's to delete
    if not all(_site_file(f) for f in files):
        return None
    return files


def _site_file(name: str) -> bool:
    """Whether ``name`` is a file a build writes: the page, the manifest, a preset's data files."""
    parts = name.split("/")
    if len(parts) == 1:
        return name in ASSETS
    if len(parts) == 2:
        return name == "data/index.js"
    return (len(parts) == 3 and parts[0] == "data" and parts[1] in PRESETS
            and (parts[2] == "round.js" or re.fullmatch(r"g[0-9]{1,2}\.js", parts[2]) is not None))


def _stranger(out: Path, files: list[str]) -> str | None:
    """The first entry under ``out`` that the marker's ``files`` do not account for (a file not listed,
    a folder holding no listed file, a link or a special file), or None."""
    listed = set(files) | {MARKER}
    folders = {"/".join(f.split("/")[:i]) for f in files for i in range(1, f.count("/") + 1)}
    for top, dirs, names in os.walk(out):  # links are not followed: a link is an entry like any other
        rel = Path(top).relative_to(out).as_posix()
        for name in sorted(dirs) + sorted(names):
            path = name if rel == "." else f"{rel}/{name}"
            mode = os.lstat(os.path.join(top, name)).st_mode
            if not ((stat.S_ISDIR(mode) and path in folders) or (stat.S_ISREG(mode) and path in listed)):
                return path
    return None


def _check_out(out: Path) -> list[str]:
    """``--out`` must be a new or empty folder, or a folder holding a site written before and nothing else,
    in a folder that exists. Returns the files of the site to replace (none for a new or empty folder)."""
    allowed = (f"allowed: a new or empty folder, or a site written before ({MARKER} lists its files) "
               "holding nothing else")
    if os.path.lexists(out):
        mode = os.lstat(out).st_mode
        if not stat.S_ISDIR(mode):
            raise ValueError(f"--out: {shown(str(out))} is not allowed (it is {kind_of(mode)}); {allowed}")
        if not any(out.iterdir()):
            return []
        files = _site_files(out)
        if files is None:
            raise ValueError(f"--out: {shown(str(out))} is not allowed (it holds no {MARKER} of a site, so it "
                             f"is not a site this command wrote); {allowed}")
        extra = _stranger(out, files)
        if extra is not None:
            raise ValueError(f"--out: {shown(str(out))} is not allowed (it holds {shown(extra)}, which is not "
                             f"a file of the site); {allowed}")
        return files
    if not out.parent.is_dir():
        raise ValueError(f"--out: the folder {shown(str(out.parent))} does not exist")
    return []


def _write_rounds(w: "_Writer", name: str, v: Variant, step: Callable[[str], None]) -> None:
    """``data/<variant>/round.js``: the leader's round answers and a follower's against every hand."""
    rounds = {"lead": round_lead(v), "beat": {}}
    step(f"{name}: the leader's round answers")
    for t in range(_NH):
        rounds["beat"][dice.hand_name(t)] = round_beat(v, t)
        step(f"{name}: round answers against {dice.hand_name(t)}")
    w.put(data_key(name, "round"), rounds)


def _write_game(w: "_Writer", name: str, v: Variant, picked: list, step: Callable[[str], None]) -> dict:
    """``data/<variant>/g2.js``: the round's outcomes and the solver's values in the token states
    ``picked``; returns the manifest's entry of the game answer."""
    from ..exact import two_player
    sol = two_player.solve(v)
    step(f"{name}: the 2-player game solved")
    vals = {}
    for pot, a, b in picked:
        # the leader's values from both sides: a follower's round is led by the opponent
        for x, y in ((a, b), (b, a)):
            vals.setdefault(f"{pot}-{x}-{y}", state_values(sol, pot, x, y))
        step(f"{name}: game values, state {pot}-{a}-{b}")
    phases = sorted({"charge" if pot else "decharge" for pot, _, _ in picked})
    w.put(data_key(name, "g2"), {"outcomes": {ph: outcome_code(v, ph) for ph in phases}, "values": vals})
    return {"2": {"fields": ["pot", "mine", "theirs"], "states": [list(st) for st in picked], "file": "g2",
                  "solver": "four21sim.exact.two_player (exact, both players optimal)"}}


def _write_nplayer(w: "_Writer", name: str, v: Variant, n: int, step: Callable[[str], None]) -> dict:
    """``data/<variant>/g<n>.js``: the shipped n-player equilibrium's rounds; returns the manifest's entry."""
    from ..exact import nplayer
    sol = nplayer.solve(v, n, "pay")
    w.put(data_key(name, f"g{n}"), nplayer_data(sol, progress=lambda what: step(f"{name}, {n} players: {what}",
                                                                                   advance=False)))
    step(f"{name}: the {n}-player game's rounds")
    return {str(n): {"fields": ["pot", *(f"t{s}" for s in range(n)), "leader"], "file": f"g{n}", "seats": True,
                     "solver": f"four21sim.exact.nplayer (the certified equilibrium shipped for {n} players)"}}


def nplayer_sizes(v: Variant, players: Sequence[int]) -> list[int]:
    """The sizes of ``players`` from 3 up whose equilibrium of ``v`` ships (a build never starts a solve)."""
    from ..exact import nplayer, shipped
    return [n for n in players if 3 <= n <= nplayer.MAX_PLAYERS and shipped.available(v, n)
            and v.end == "first_out"]


def _swap(new: Path, out: Path, files: list[str]) -> None:
    """Put the folder ``new`` in the place of ``out``, which holds nothing or the site whose files are ``files``.

    The old site is moved aside whole, then only its own files are removed (and its folders once empty):
    whatever someone put there since it was checked stays, in the folder moved aside."""
    old = None
    if os.path.lexists(out):
        old = out.with_name(f".{out.name}.old-{new.name.rsplit('.', 1)[-1]}")
        out.rename(old)
    new.rename(out)
    out.chmod(0o755)
    if old is None:
        return
    for f in [*files, MARKER]:
        with contextlib.suppress(OSError):  # gone, or no longer a file: kept in the folder moved aside
            os.unlink(old / f)
    for d in sorted({str(Path(f).parent) for f in files} - {"."}, key=lambda d: -d.count("/")) + ["."]:
        with contextlib.suppress(OSError):  # not empty: something not the site's, kept
            (old / d).rmdir()
