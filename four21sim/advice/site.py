"""The advisor as a static site: one page for a phone at the bar (``four21sim site --out DIR``).

The page (``index.html``, ``site.css``, ``app.js``, shipped in ``advice/site_assets/``)
holds no rule and computes no chance: every keep, its order and its number come from
the data files written here, which are the library's exact tables:

``data/index.js``
    the manifest: the hands, the keeps of each hand and how the advisor writes them, and
    per variant its rules, its ranking, its throw limits, the notes of its cheat sheet and
    the token states with a game answer (per player count).
``data/<variant>/round-lead.js``
    the leader's round answer (:func:`four21sim.exact.odds.leader_round`) for every throw
    limit of the variant, throws left and hand: every keep, best first, as an exact
    fraction (numerators over one denominator per table).
``data/<variant>/round-beat-<hand>.js``
    a follower's round answer against one hand to beat: P(beat it) of every keep.
``data/<variant>/g2/<pot>-<mine>-<theirs>/lead.js`` and ``.../beat-<hand>.js``
    the 2-player game answer in one token state (:mod:`four21sim.exact.two_player`), for
    the leader, and for a follower behind the leader's hand: P(win the game) of every
    keep, best first, in millionths.

Each file is a script that stores one object in ``window.F421DATA[key]``: a page opened
from the file system may load scripts but not read JSON. The page loads the manifest
first, then the one or two files a situation needs. Adding a player count is adding
``g<n>/`` folders and their entry in the manifest (docs/site.md).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable, Sequence
from importlib import resources
from math import lcm
from pathlib import Path

import numpy as np

from .. import __version__
from ..exact import odds
from ..rules import dice
from ..rules.variants import PRESETS, Variant, as_variant
from . import charts
from .advisor import keep_order
from .explain import NEAR_TIE, outcome_values, round_table

__all__ = ["ASSETS", "GAME_SCALE", "build_site", "manifest", "round_lead", "round_beat", "game_lead", "game_beat",
           "game_states", "data_key"]

ASSETS = ("index.html", "site.css", "app.js")
GAME_SCALE = 1_000_000  # game answers are stored in millionths of a probability (0.0001 percentage point)
_NH = dice.N_HANDS
_KT = dice.THROW_COUNTS[:dice.FULL_KEEP] / dice.KT_DENOM[:dice.FULL_KEEP, None]  # [keep that throws, next hand]


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
    """The leader's round answer: ``{str(limit): {str(throws_left): table}}`` (tables of :func:`_fractions`)."""
    out = {}
    for L in sorted({variant.charge_throws, variant.decharge_throws}):
        out[str(L)] = {str(m): _fractions([[(k.index, k.value) for k in odds.keep_advice(
            dice.hand_name(h), m, objective="round", variant=variant, throws=L, exact=True)] for h in range(_NH)])
            for m in range(L)}
    return out


def round_beat(variant: Variant, target: int) -> dict:
    """A follower's round answer against ``target``: ``{str(throws_left): table}``, throws left 0 to 2."""
    name = dice.hand_name(target)
    return {str(m): _fractions([[(k.index, k.value) for k in odds.keep_advice(
        dice.hand_name(h), m, beat=name, variant=variant, exact=True)] for h in range(_NH)])
        for m in range(odds.MAX_THROWS_LEFT + 1)}


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
    (the values of :func:`four21sim.exact.two_player.leader_keep_values`, computed for every hand at once)."""
    v = sol.variant
    L = v.charge_throws if pot else v.decharge_throws
    d = sol.round_detail(pot, mine, theirs)
    out = {str(L): [_ranked_ints(h, {dice.FULL_KEEP + h: float(d["lead_val"][L - 1, h])}) for h in range(_NH)]}
    for made in range(1, L):
        kv = (_KT @ d["lead_val"][made]).tolist()
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
    (the values of :func:`four21sim.exact.two_player.follower_keep_values`, every hand at once)."""
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
            kv = (_KT @ nxt).tolist()
            rows[str(made)] = [_ranked_ints(h, _keep_options(h, Wl[made - 1][h] if may_stop else None, kv))
                               for h in range(_NH)]
        out[str(c)] = rows
    return out


def game_states(variant: Variant) -> list[tuple[int, int, int]]:
    """Every live 2-player state ``(pot, mine, theirs)``: both players hold tokens once the pot is empty."""
    T = variant.tokens
    return [(pot, a, T - pot - a) for pot in range(T, -1, -1) for a in range(T - pot + 1)
            if pot or (a and T - a)]


def _variant_entry(name: str, v: Variant, players: dict) -> dict:
    return {"name": name, "describe": v.describe(), "options": v.options(), "tokens": v.tokens,
            "followers": v.followers, "limits": {"charge": v.charge_throws, "decharge": v.decharge_throws},
            "order": [int(h) for h in dice.ORDER[v.ranking_index]],
            "notes": {"leader": charts.rule_notes(v, "leader"), "follower": charts.rule_notes(v, "follower")},
            "game": players}


def manifest(variants: dict[str, Variant], games: dict[str, dict]) -> dict:
    """The site's index: hands, keeps and their labels, and one entry per variant."""
    keeps = [[[int(k), dice.keep_label(h, int(k)), bool(k == dice.FULL_KEEP + h)] for k in dice.keeps_of(h)]
             for h in range(_NH)]
    return {"generator": f"four21sim {__version__}", "hands": [dice.hand_name(h) for h in range(_NH)],
            "keeps": keeps, "near_tie": NEAR_TIE, "game_scale": GAME_SCALE,
            "variants": {n: _variant_entry(n, v, games.get(n, {})) for n, v in variants.items()}}


class _Writer:
    """Writes ``data/<key>.js`` files under a folder, counting files and bytes."""

    def __init__(self, root: Path):
        self.root, self.files, self.bytes = root, 0, 0

    def put(self, key: str, obj) -> None:
        path = self.root / "data" / f"{key}.js"
        path.parent.mkdir(parents=True, exist_ok=True)
        text = (f"(window.F421DATA = window.F421DATA || {{}})[{json.dumps(key)}] = "
                f"{json.dumps(obj, separators=(',', ':'), ensure_ascii=False)};\n")
        path.write_text(text, encoding="utf-8")
        self.files += 1
        self.bytes += len(text.encode())


def _write_game(w: _Writer, name: str, v: Variant, states, progress) -> dict:
    from ..exact import two_player
    sol = two_player.solve(v)
    for pot, mine, theirs in states:
        where = f"{pot}-{mine}-{theirs}"
        w.put(data_key(name, "g2", where, "lead"), game_lead(sol, pot, mine, theirs))
        detail = sol.round_detail(pot, theirs, mine)
        for hl in range(_NH):
            w.put(data_key(name, "g2", where, f"beat-{dice.hand_name(hl)}"),
                  game_beat(sol, pot, mine, theirs, hl, detail))
        if progress:
            progress(f"{name}: game answers, state {where}")
    return {"2": {"fields": ["pot", "mine", "theirs"], "states": [list(s) for s in states],
                  "folder": "g2", "solver": "four21sim.exact.two_player (exact, both players optimal)"}}


def build_site(out: str | Path, variants: Sequence[str] | None = None, game: bool = True,
               states: Callable[[Variant], list] | None = None, progress: Callable[[str], None] | None = None) -> dict:
    """Write the static site to the folder ``out`` (created; an existing site there is replaced).

    Parameters
    ----------
    out : path
        The folder to write: open ``out/index.html`` from the file system or put the folder on any static host.
    variants : list of str, optional
        Preset names (default: every preset).
    game : bool
        Include the 2-player game answers (the bulk of the data).
    states : callable, optional
        ``states(variant) -> [(pot, mine, theirs), ...]``: the token states to include (default: every live state).
    progress : callable, optional
        Called with a line of text as the work goes on.

    Returns
    -------
    dict
        ``{"files": n, "bytes": n, "manifest": ...}``.
    """
    names = list(variants) if variants is not None else list(PRESETS)
    for n in names:
        if n not in PRESETS:
            raise ValueError(f"variants: {n!r} is not allowed; allowed: {', '.join(PRESETS)}")
    vs = {n: as_variant(n) for n in names}
    out = Path(out)
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / "data" / "index.js").is_file())):
        raise ValueError(f"--out: {str(out)!r} holds something else than a site; "
                         "allowed: a new or empty folder, or a site written before")
    if not out.parent.is_dir():
        raise ValueError(f"--out: the folder {str(out.parent)!r} does not exist")
    # written beside the target and swapped in whole: a stopped build leaves the old site as it was
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        w = _Writer(tmp)
        games = {}
        for name, v in vs.items():
            w.put(data_key(name, "round-lead"), round_lead(v))
            for t in range(_NH):
                w.put(data_key(name, f"round-beat-{dice.hand_name(t)}"), round_beat(v, t))
            if progress:
                progress(f"{name}: round answers")
            if game:
                games[name] = _write_game(w, name, v, states(v) if states else game_states(v), progress)
        index = manifest(vs, games)
        w.put("index", index)
        assets = resources.files("four21sim.advice") / "site_assets"
        for asset in ASSETS:
            data = (assets / asset).read_bytes()
            (tmp / asset).write_bytes(data)
            w.files += 1
            w.bytes += len(data)
        _swap(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return {"files": w.files, "bytes": w.bytes, "manifest": index}


def _swap(new: Path, out: Path) -> None:
    """Put the folder ``new`` in the place of ``out`` (which may hold an older site)."""
    old = None
    if out.exists():
        old = out.with_name(f".{out.name}.old-{new.name.rsplit('.', 1)[-1]}")
        out.rename(old)
    new.rename(out)
    out.chmod(0o755)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
