"""The phone page's game answer at 3 to 6 players: its data (``data/<variant>/g<n>.js``) against the solver.

The page plays a round of the n-player equilibrium backwards from the data
(:mod:`four21sim.exact.round_tables`, packed by :func:`four21sim.advice.site.nplayer_data`).
Here the data are read back as the page reads them and a slow reference written from the
data alone (plain recursion over the contexts, the keeps' odds from ``dice.THROW_COUNTS``)
must give :func:`four21sim.exact.nplayer.keep_values` in sampled situations; the page itself
is held to ``four21sim advise --json`` in tests/test_site_nplayer_browser.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from four21sim.advice import site as site_mod
from four21sim.exact import nplayer
from four21sim.rules import dice
from four21sim.rules.variants import as_variant

V = as_variant("super421")
THROW_P = dice.THROW_COUNTS[:dice.FULL_KEEP] / dice.KT_DENOM[:dice.FULL_KEEP, None]
P0 = dice.THROW_COUNTS[dice.EMPTY_KEEP] / 216.0


@pytest.fixture(scope="module")
def sol3():
    return nplayer.solve(V, 3, "pay")


@pytest.fixture(scope="module")
def data3(sol3):
    return site_mod.nplayer_data(sol3)


class Reference:
    """A round played backwards from the page's data only (slow: one context at a time, memoised)."""

    def __init__(self, data: dict, state: tuple):
        self.n = data["players"]
        key = [state[0], *state[1]]
        s = site_mod.unpack(data["states"]).reshape(self.n + 1, -1).T.tolist().index(key)
        self.ph = data["phases"]["charge" if state[0] else "decharge"]
        X = np.concatenate([site_mod.unpack(data["values"]), data["consts"]])
        start = site_mod.unpack(data["succ_start"])
        S = X[site_mod.unpack(data["succ"])[start[s]:start[s + 1]]].reshape(self.ph["classes"], self.n)
        fs, fc, fw = _fins(self.ph)
        self.out = [sum(fw[t] * S[fc[t]] for t in range(fs[e], fs[e + 1])) for e in range(len(fs) - 1)]
        self.trans = _trans_of(self.ph)
        self.row = (np.arange(self.ph["G"] + 1) * self.ph["row_len"] if self.ph["row_len"]
                    else site_mod.unpack(self.ph["row_start"]))
        self.cc = site_mod.unpack(self.ph["ctx_c"])
        self.lvl = self.ph["lvl"]
        self.memo = {}

    def node(self, x: int) -> np.ndarray:
        G = self.ph["G"]
        return self.out[x - G] if x >= G else self.context(x)

    def ends(self, g: int) -> np.ndarray:
        """``[h, j]``: the utilities when context g's follower ends on h (an exact follower: after the count)."""
        return np.array([self.node(int(self.trans[self.row[g] + h])) for h in range(dice.N_HANDS)])

    def turn(self, level: np.ndarray, c: int, role: int, down_to: int) -> np.ndarray:
        """The profile's play from the last throw back to throw ``down_to`` + 1 (an exact follower)."""
        for _made in range(c - 1, down_to, -1):
            kv = THROW_P @ level
            nxt = np.empty_like(level)
            for h in range(dice.N_HANDS):
                ks = dice.keeps_of(h, allow_stop=False)
                best = ks[0]
                for k in ks[1:]:
                    if kv[k, role] > kv[best, role] + 1e-12:
                        best = k
                nxt[h] = kv[best]
            level = nxt
        return level

    def context(self, g: int) -> np.ndarray:
        if g not in self.memo:
            role = int(np.searchsorted(self.lvl, g, side="right"))
            c = int(self.cc[g])
            self.memo[g] = P0 @ self.turn(self.ends(g), c, role, 0)
        return self.memo[g]

    def follower(self, hands, c: int, made: int, hand: int) -> dict:
        role = len(hands)
        g = self.ph["lead_next"][(c - 1) * dice.N_HANDS + hands[0]]
        for h in hands[1:]:
            g = int(self.trans[self.row[g] + h])
        level = self.turn(self.ends(g), c, role, made)
        kv = THROW_P @ level
        return {k: float(kv[k, role]) for k in dice.keeps_of(hand, allow_stop=False)}


def _fins(c: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``fin_start, fin_cls, fin_w`` of a packed phase (the outcomes' mixes of classes), as the solver holds them."""
    return (np.concatenate([[0], np.cumsum(site_mod.unpack(c["fin_len"]))]), site_mod.unpack(c["fin_cls"]),
            site_mod.unpack(c["fin_w"]))


def _trans_of(c: dict) -> np.ndarray:
    """The whole ``trans`` of a packed phase, as the solver holds it."""
    rows, index = site_mod.unpack_rows(c["trans"])
    return (rows[index] if index is not None else rows).ravel()


def _paired(c: dict, want: dict) -> None:
    """The page's phase ``c`` (numbered again) and the solver's ``want`` are the same round: pairing their
    contexts from the leader's ``lead_next`` down, level by level, is one-to-one, and paired contexts have
    the same count and lead to paired contexts or outcomes; paired outcomes are the same mixes."""
    NH = dice.N_HANDS
    G, NO = want["G"], len(want["fin_start"]) - 1
    fins = _fins(c)
    assert c["G"] == G and len(fins[0]) - 1 == NO and list(c["lvl"]) == list(want["lvl"])
    trans, ctx = _trans_of(c), site_mod.unpack(c["ctx_c"])
    rows = (np.arange(G + 1) * NH if c["row_len"] else site_mod.unpack(c["row_start"]))
    to_old, to_new = {}, {}

    def pair(a: int, b: int) -> None:
        assert to_old.setdefault(a, b) == b and to_new.setdefault(b, a) == a, (a, b)

    for a, b in zip(c["lead_next"], np.asarray(want["lead_next"]).ravel()):
        pair(int(a), int(b))
    for g in range(G):  # levels in order: a context is paired before its own rows are read
        b = to_old[g]
        assert ctx[g] == want["ctx_c"][b]
        mine, theirs = trans[rows[g]:rows[g + 1]], want["trans"][want["row_start"][b]:want["row_start"][b + 1]]
        assert len(mine) == len(theirs)
        for x, y in zip(mine.tolist(), theirs.tolist()):
            pair(x, y)
    assert sorted(to_old) == list(range(G + NO))  # every context and outcome reached, once

    def mix(fs, fc, fw, e):
        return sorted(zip(fc[fs[e]:fs[e + 1]], fw[fs[e]:fs[e + 1]]))

    for e in range(NO):
        assert mix(*fins, e) == mix(
            want["fin_start"], want["fin_cls"], want["fin_w"], to_old[G + e] - G)


def test_the_packed_arrays_read_back_as_written(sol3, data3):
    a = site_mod.nplayer_arrays(sol3)
    for ph in ("charge", "decharge"):
        c = data3["phases"][ph]
        _paired(c, a["phases"][ph])
        assert c["row_len"] == 56 and "row_start" not in c  # exact followers: rows of one hand each
        assert c["trans"]["rows"] < c["G"]  # equal rows stored once
    got = site_mod.unpack(data3["values"])
    assert got.dtype == np.float64 and got.tobytes() == sol3.choice_values()[:, :3].ravel().tobytes()  # bit for bit


def test_le_bons_rows_per_throw_count_are_numbered_again_as_one_round():
    # followers who may stop early: a context has a row per throw count (row_start), moved with it
    sol = nplayer.solve(as_variant("super421-lebon"), 3, "pay")
    a = site_mod.nplayer_arrays(sol)
    data = site_mod.nplayer_data(sol, a)
    for ph in ("charge", "decharge"):
        c = data["phases"][ph]
        assert c["row_len"] == 0 and "row_start" in c
        _paired(c, a["phases"][ph])


def test_the_packing_gives_back_every_integer_and_double():
    # made-up arrays at the edges of each form: the widths, signed steps down a row, equal rows, -0.0 and NaN
    rng = np.random.default_rng(5)
    for top in (0, 1, 255, 256, 65535, 65536, 2 ** 24, 2 ** 31 - 1):
        a = np.concatenate([[0, top], rng.integers(0, top + 1, 500)])
        got = site_mod.unpack(site_mod._packed(a))
        assert np.array_equal(got, a), top
        assert site_mod._packed(a)["w"] == max(1, (top.bit_length() + 7) // 8)
    with pytest.raises(ValueError):
        site_mod._packed(np.array([-1, 3]))
    with pytest.raises(ValueError):
        site_mod._packed(np.array([2 ** 31]))
    x = np.array([0.0, -0.0, 1.0 / 3.0, np.nan, np.inf, -1e-300, 5e-324])
    assert site_mod.unpack(site_mod._packed(x)).tobytes() == x.tobytes()
    cols = rng.permutation(56)
    T = rng.integers(0, 2 ** 20, (40, 56))
    T[7] = T[3]
    T[20] = T[3]
    top = 2 ** 29 - 1  # the largest entry: steps of +-top along a row, +-2 top from one row to the next
    T[11, :] = top
    T[12, cols[::2]] = 0  # (cols: the order in which the steps are taken)
    T[12, cols[1::2]] = top
    T[13, cols[::2]] = top
    T[13, cols[1::2]] = 0
    for dedup in (True, False):
        o = site_mod._packed_rows(T, cols, dedup)
        rows, index = site_mod.unpack_rows(o)
        assert np.array_equal(rows[index] if dedup else rows, T)
        assert (o["rows"], index is None) == ((38, False) if dedup else (40, True))
    # equal rows once, in order of first appearance
    rows, index = site_mod.unpack_rows(site_mod._packed_rows(T, cols, True))
    assert np.array_equal(rows, np.delete(T, [7, 20], axis=0))
    assert index[7] == index[20] == index[3] == 3
    with pytest.raises(ValueError):
        site_mod._packed_rows(T + 1, cols, True)


@pytest.mark.slow
def test_the_5_player_arrays_pack_small_and_read_back():
    # the 5-player décharge's trans: 16 million int32 entries, 5.4 MB deflated as they were; the whole data
    # file (without the leader's stored values) must now be under 0.8 MB, the bytes a page reads back
    sol = nplayer.solve(V, 5, "pay")
    a = site_mod.nplayer_arrays(sol)
    data = site_mod.nplayer_data(sol, a, lead_ends=lambda s: np.zeros((3, dice.N_HANDS)))
    # (the contexts numbered again: paired with the solver's one by one at 3 players above; here the
    # rounds played from the data below must give the solver's keep values)
    assert "lead_ends" in data["phases"]["decharge"] and "lead_ends" not in data["phases"]["charge"]
    import json
    assert len(json.dumps(data)) < 800_000  # 675 kB (contexts numbered again, the outcomes' mixes packed)
    # and rounds played from them alone give the solver's keep values (late followers: a few contexts after)
    for state, hands, c, made, hand in (((0, (3, 2, 2, 2, 2)), ("654", "521", "311"), 3, 1, "631"),
                                        ((4, (0, 2, 1, 3, 1)), ("331", "222", "611", "654"), 2, 1, "542")):
        hands = [dice.hand_index(tuple(map(int, h))) for h in hands]
        got = Reference(data, state).follower(hands, c, made, dice.hand_index(tuple(map(int, hand))))
        want = nplayer.keep_values(sol, state, len(hands), hands, (c,) * len(hands), made,
                                   dice.hand_index(tuple(map(int, hand))))
        assert set(got) == set(want)
        for k in want:
            assert abs(got[k] - want[k]) <= 1e-12, (state, k, got[k], want[k])


@pytest.mark.parametrize("state, hands, c, made, hand", [
    ((0, (3, 5, 3)), (dice.hand_index((6, 5, 4)), dice.hand_index((5, 2, 1))), 3, 2, dice.hand_index((6, 3, 1))),
    ((0, (1, 2, 8)), (dice.hand_index((4, 2, 1)), dice.hand_index((1, 1, 1))), 2, 1, dice.hand_index((2, 2, 1))),
    ((6, (2, 0, 3)), (dice.hand_index((3, 3, 2)),), 3, 1, dice.hand_index((6, 6, 1))),
    ((11, (0, 0, 0)), (dice.hand_index((6, 6, 6)),), 3, 2, dice.hand_index((4, 2, 2))),
])
def test_the_data_give_the_solvers_keep_values(sol3, data3, state, hands, c, made, hand):
    ref = Reference(data3, state)
    got = ref.follower(list(hands), c, made, hand)
    want = nplayer.keep_values(sol3, state, len(hands), hands, (c,) * len(hands), made, hand)
    assert set(got) == set(want)
    for k in want:
        assert abs(got[k] - want[k]) <= 1e-12, (k, got[k], want[k])


def test_a_build_writes_the_shipped_sizes_and_says_them(tmp_path):
    info = site_mod.build_site(tmp_path / "s", players=(3,))
    game = info["manifest"]["variants"]["super421"]["game"]
    assert list(game) == ["3"]
    assert game["3"]["fields"] == ["pot", "t0", "t1", "t2", "leader"]
    assert (tmp_path / "s" / "data" / "super421" / "g3.js").is_file()
    assert not (tmp_path / "s" / "data" / "super421" / "g2.js").exists()


@pytest.mark.parametrize("state, made, hand", [((0, (4, 4, 3)), 1, dice.hand_index((6, 3, 1))),
                                               ((0, (1, 8, 2)), 2, dice.hand_index((3, 1, 1))),
                                               ((7, (2, 0, 2)), 2, dice.hand_index((5, 4, 2)))])
def test_the_leaders_stored_values_give_the_solvers_keep_values(sol3, state, made, hand):
    # what a build stores for the leader of a phase of many contexts (round_tables.lead_ends), played as the page
    # plays it: its own later keeps the best for itself (stopping allowed), then the keeps of the decision
    from four21sim.exact import round_tables
    U = round_tables.lead_ends(sol3, sol3.states.index(state))
    L = U.shape[0]
    level = U[L - 1]
    for m in range(L - 1, made, -1):
        kv = THROW_P @ level
        level = np.array([max([U[m - 1, h]] + [kv[k] for k in dice.keeps_of(h, allow_stop=False)])
                          for h in range(dice.N_HANDS)])
    kv = THROW_P @ level
    got = {k: float(kv[k]) for k in dice.keeps_of(hand, allow_stop=False)}
    got[dice.FULL_KEEP + hand] = float(U[made - 1, hand])
    want = nplayer.keep_values(sol3, state, 0, (), (), made, hand)
    assert set(got) == set(want)
    for k in want:  # the largest value, not the first within 1e-12 of it: at most 1e-12 a throw apart
        assert abs(got[k] - want[k]) <= 1e-11, (k, got[k], want[k])
