"""How much do the seat values of the n-player equilibrium depend on the tie order?

Question: with 4 players (or more), keeps that are equally good for the player choosing
(within 1e-12) can be unequal for the others, so the tie order picks one equilibrium
among several (docs/nplayer.md, "Ties"). Under each tie order of
``four21sim.exact.nplayer.TIE_ORDERS``, what does each seat pay, how many drinks a game
beyond its share is that, is the profile certified (exploitability ~1e-14), and what is the
range of every seat's P(pay) over the orders? That range is the precision to which "seat s
pays x%" is a property of the game rather than of the tie order.

    python experiments/tie_orders.py --players 4 [--presets super421,super421-lebon] [--ties first,last]
    python experiments/tie_orders.py --report          # TIE_ORDERS.md from what is stored
    python experiments/tie_orders.py --check --presets super421 --ties last   # solve again, compare

``--check`` solves the configurations named again (each in its own process, as a run does) and
compares them with tie_orders.json, writing nothing: every seat's P(pay) within 1e-12 of the
stored one and inside the stored range, the profile certified (exploitability from any state
below 1e-12). Exit status 1 if one differs. (The test suite's re-solve of Super 421 under the
"last" order, a minute of it, moved here; the suite checks the file's own consistency.)

Each solve runs in its own process with a fresh disk cache (numba's kernels from its cache),
as experiments/nplayer_sizes.py does. Results go to results/nplayer/tie_orders.json, one entry
per (preset, players, tie order) (a later run replaces it), and TIE_ORDERS.md is remade from
them. Drinks (docs/fairness.md): at a bar the game's loser buys one drink per player, so a seat
that pays with probability P at a table of n pays ``n P - 1`` drinks a game beyond its own
(0 is fair, negative saves).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results" / "nplayer"
JSON = OUT / "tie_orders.json"
PRESETS = ("super421", "super421-lebon")
# An independent whole-game solver (value iteration, issue 39) on Super 421, 11 tokens: at 4 players
# seat 0's and seat 2's P(pay) under its own tie rules ("first" and "last" keep of its order); at 3
# players seat 0's with every tie broken in favour of seat 0, or against it (issue 45). Quoted to
# compare, not computed here.
INDEPENDENT = {("super421", 4): {"seat 0": (0.211133, 0.211138), "seat 2": (0.264239, 0.264241)},
               ("super421", 3): {"seat 0": (0.2858681, 0.2859998)}}


def one(preset: str, players: int, tie: str) -> dict:
    """Solve and certify one configuration in this process and return its numbers."""
    from four21sim import Variant
    from four21sim.exact.nplayer import solve

    v = Variant.from_preset(preset)
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    sol = solve(v, players, "pay", tie=tie)
    wall = time.perf_counter() - t0
    use = resource.getrusage(resource.RUSAGE_SELF)
    out = sol.summary()
    for s in out["seats"]:
        s["drinks"] = players * s["p_pay"] - 1
    out.update(preset=preset, tokens=v.tokens, wall_seconds=wall, cpu_seconds=use.ru_utime + use.ru_stime,
               load_average=[load0, os.getloadavg()[0]],
               peak_rss_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return out


def _child(args: list[str], timeout: float) -> dict:
    """One configuration in a fresh process with a cold disk cache (nplayer_sizes.py's runner)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from nplayer_sizes import _child as run_child
    return run_child(args, timeout, False, script=__file__)


def _key(e: dict) -> tuple:
    return (e.get("preset"), e.get("players"), e.get("tie"))


def _store(entries: list[dict], meta: dict | None) -> dict:
    """Merge ``entries`` into tie_orders.json (same configuration: replaced), each with the run
    that made it (``meta``)."""
    OUT.mkdir(parents=True, exist_ok=True)
    old = json.loads(JSON.read_text()) if JSON.exists() else {"entries": []}
    merged = {_key(e): e for e in old["entries"]}
    for e in entries:
        merged[_key(e)] = {**e, "run": meta}
    from four21sim.exact.ties import ALL_TIES
    rows = sorted(merged.values(), key=lambda e: (str(e["preset"]), e["players"], ALL_TIES.index(e["tie"])))
    data = {"entries": rows, "ranges": ranges(rows)}
    JSON.write_text(json.dumps(data, indent=1) + "\n")
    return data


SIZES = OUT / "nplayer.json"


def _default_of(preset: str, n: int) -> dict | None:
    """The default order's equilibrium as experiments/nplayer_sizes.py stored it (results/nplayer/
    nplayer.json), as a row of this file: for the configurations whose "first" was not solved here
    (a 5-player solve takes some 20 minutes; under "first" the solver is the one that made it)."""
    if not SIZES.exists():
        return None
    for r in json.loads(SIZES.read_text()):
        if (r.get("kind"), r.get("preset"), r.get("players"), r.get("objective")) == ("equilibrium", preset, n, "pay") \
                and r.get("tokens") in (None, 11) and "seats" in r:
            seats = [{**x, "drinks": n * x["p_pay"] - 1} for x in r["seats"]]
            return {**{k: r[k] for k in ("exploitability", "exploitability_any_state", "converged", "iterations",
                                         "seconds", "certificate_seconds", "load_average")},
                    "preset": preset, "players": n, "tie": "first", "seats": seats,
                    "source": "results/nplayer/nplayer.json"}
    return None


CERTIFIED = 1e-12


def certified(r: dict) -> bool:
    """Whether a profile is an equilibrium as the ranges count them: its iteration converged and no player
    gains more than :data:`CERTIFIED` by deviating alone, from any state."""
    return bool(r.get("converged")) and r.get("exploitability_any_state", 1.0) < CERTIFIED


def ranges(rows: list[dict]) -> list[dict]:
    """Per (preset, players): every seat's P(pay) and drinks, least and most over the tie orders solved
    (the default's from results/nplayer/nplayer.json where it was not solved here: ``default_from``)."""
    groups: dict = {}
    for r in rows:
        if "seats" in r and certified(r):
            groups.setdefault((r["preset"], r["players"]), []).append(r)
    out = []
    for (preset, n), rs in sorted(groups.items()):
        borrowed = None
        if not any(r["tie"] == "first" for r in rs):
            borrowed = _default_of(preset, n)
            rs = rs + [borrowed] if borrowed else rs
        seats = []
        for q in range(n):
            p = [r["seats"][q]["p_pay"] for r in rs]
            seats.append({"seat": q, "p_pay_min": min(p), "p_pay_max": max(p), "p_pay_range": max(p) - min(p),
                          "drinks_min": n * min(p) - 1, "drinks_max": n * max(p) - 1})
        out.append({"preset": preset, "players": n, "ties": [r["tie"] for r in rs],
                    **({"default_from": borrowed["source"], "default": borrowed} if borrowed else {}),
                    "exploitability_max": max(r["exploitability"] for r in rs),
                    "exploitability_any_state_max": max(r["exploitability_any_state"] for r in rs),
                    "seats": seats})
    return out


def _meta(command: str) -> dict:
    commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True,
                            cwd=ROOT).stdout.strip()
    return {"command": command, "git_commit": commit, "machine": platform.machine(), "cpus": os.cpu_count(),
            "when": datetime.now(timezone.utc).isoformat(timespec="seconds"), "python": platform.python_version()}


def _pct(x: float, digits: int = 4) -> str:
    return f"{100 * x:.{digits}f}%"


def report(data: dict) -> str:
    """TIE_ORDERS.md from the stored entries."""
    rows = data["entries"]
    runs = sorted({(r["run"]["command"], r["run"]["git_commit"], r["run"]["when"]) for r in rows if r.get("run")},
                  key=lambda x: x[2])
    lines = ["# The n-player equilibrium under each tie order", "",
             "Made by `experiments/tie_orders.py` (the runs: "
             + "; ".join(f"`{c}` at commit {g}, {w}" for c, g, w in runs) + "), each solve in its own process "
             "on a machine shared with other work (times are those of that moment).", "",
             "Keeps within 1e-12 of a player's best are ties; where they are unequal for the others, the tie "
             "order picks the equilibrium (docs/nplayer.md, \"Ties\"). The orders "
             "(`four21sim.exact.nplayer.TIE_ORDERS`): *first* (the default: the scan in `dice.HAND_KEEPS` "
             "order keeps the earlier keep), *last* (the last in that order of the keeps within 1e-12 of the "
             "best), *next-best* / *next-worst* (among those, the keep best / worst for the next player in "
             "playing order); and the selection rules of a fixed role (`four21sim.exact.ties.ROLE_ORDERS`): "
             "*favour-r* / *disfavour-r*, among those the keep best / worst for role r (0: the round's leader, "
             "1: the first follower, ...; the solver's states are by role, so a rule favours a role, not a "
             "seat). Each gives a certified equilibrium, so the range of a seat's P(pay) over the rules solved "
             "is a **lower bound** on how far that seat's P(pay) moves between the game's equilibria: other "
             "equilibria, selected otherwise, may lie outside it. Every profile is certified by exact best "
             "responses: *exploitability* is the most "
             "one player gains by deviating alone, from the start (*any state*: from every state). Seat 0 leads "
             "the first round. *Drinks*: a seat paying with probability P at a table of n pays n P − 1 drinks "
             "a game beyond its share (negative: saves).", ""]
    for rg in data["ranges"]:
        preset, n = rg["preset"], rg["players"]
        lines += [f"## {preset}, {n} players", "",
                  "| tie order | " + " | ".join(f"seat {q} P(pay)" for q in range(n))
                  + " | seat 0 drinks | exploitability | any state | converged | iterations | solve s "
                    "| certificate s | load |", "| --- " * (n + 9) + "|"]
        shown = [r for r in rows if (r["preset"], r["players"]) == (preset, n) and "seats" in r]
        for r in ([rg["default"]] if "default" in rg else []) + shown:
            tie = r["tie"] + (" (from nplayer.json)" if "source" in r else "") + (
                "" if certified(r) else " (not certified: left out of the range)")
            lines.append(f"| {tie} | " + " | ".join(_pct(s["p_pay"], 5) for s in r["seats"])
                         + f" | {r['seats'][0]['drinks']:+.4f} | {r['exploitability']:.1e} | "
                           f"{r['exploitability_any_state']:.1e} | {'yes' if r['converged'] else 'NO'} | "
                           f"{r['iterations']} | {r['seconds']:.1f} | {r['certificate_seconds']:.1f} | "
                           f"{max(r['load_average']):.1f} |")
        lines += ["", "Range over the tie orders and rules solved (" + ", ".join(rg["ties"]) + "): at least this "
                  "much, not more is known"
                  + (f"; the default's row is the equilibrium {rg['default_from']} holds "
                     "(experiments/nplayer_sizes.py), not solved again here" if "default_from" in rg else "")
                  + ":", "",
                  "| seat | P(pay) least–most | range (pp) | drinks least–most |", "| --- | --- | --- | --- |"]
        for s in rg["seats"]:
            lines.append(f"| {s['seat']} | {_pct(s['p_pay_min'])}–{_pct(s['p_pay_max'])} | "
                         f"{100 * s['p_pay_range']:.4f} | {s['drinks_min']:+.4f} to {s['drinks_max']:+.4f} |")
        ind = INDEPENDENT.get((preset, n))
        if ind:
            rules = ("every tie broken in favour of seat 0, or against it" if n == 3 else "its own two tie rules")
            lines += ["", "An independent whole-game solver (value iteration, by seat) finds "
                      + "; ".join(f"{k} {_pct(lo, 4)}–{_pct(hi, 4)}" for k, (lo, hi) in ind.items())
                      + f" under {rules} (quoted, not computed here): "
                      + "; ".join(_against_range(k, lo, hi, rg) for k, (lo, hi) in ind.items()) + "."]
        lines.append("")
    lines += ["Montreal and classic are not solved here: their seats pay exactly 1/n under every "
              "seat-symmetric profile (the symmetry theorem, docs/fairness.md), and every tie order above reads "
              "roles, not seats, so each seat pays exactly 25% at 4 players under every order.", ""]
    return "\n".join(lines)


def _against_range(label: str, lo: float, hi: float, rg: dict) -> str:
    """Where a quoted interval of one seat lies against the range over the tie orders."""
    s = rg["seats"][int(label.split()[-1])]
    if lo >= s["p_pay_min"] and hi <= s["p_pay_max"]:
        return f"{label}'s lies within the range"
    top, bottom = s["p_pay_max"], s["p_pay_min"]
    if lo > top:
        return f"{label}'s lies {100 * (lo - top):.4f} to {100 * (hi - top):.4f} pp above its top"
    if hi < bottom:
        return f"{label}'s lies {100 * (bottom - hi):.4f} to {100 * (bottom - lo):.4f} pp below its bottom"
    if lo <= bottom and hi >= top:
        return (f"{label}'s contains the range, {100 * (hi - lo):.4f} pp wide against {100 * (top - bottom):.4f}: "
                "selecting by seat spreads the equilibria further than these rules by role")
    return f"{label}'s overlaps the range"


def compare(stored: dict, rng: dict | None, solved: dict) -> list[str]:
    """What differs between a stored entry (and its range) and the same configuration solved again."""
    bad = []
    if not solved.get("exploitability_any_state", 1) < 1e-12:
        bad.append(f"exploitability from any state {solved.get('exploitability_any_state')} (allowed: below 1e-12)")
    for q, (a, b) in enumerate(zip(solved["seats"], stored["seats"])):
        if abs(a["p_pay"] - b["p_pay"]) > 1e-12:
            bad.append(f"seat {q}: P(pay) {a['p_pay']!r}, stored {b['p_pay']!r}")
        if rng and not rng["seats"][q]["p_pay_min"] - 1e-12 <= a["p_pay"] <= rng["seats"][q]["p_pay_max"] + 1e-12:
            bad.append(f"seat {q}: P(pay) {a['p_pay']!r} outside the stored range")
    return bad


def check(args) -> int:
    """``--check``: each configuration named solved again, against tie_orders.json."""
    data = json.loads(JSON.read_text())
    failed = 0
    for n in [int(x) for x in args.players.split(",")]:
        for preset in args.presets.split(","):
            for tie in args.ties.split(","):
                stored = next((e for e in data["entries"] if _key(e) == (preset, n, tie) and "seats" in e), None)
                if stored is None:
                    print(f"{preset}, {n} players, {tie}: not in {JSON.name}, not checked")
                    continue
                rng = next((r for r in data["ranges"] if (r["preset"], r["players"]) == (preset, n)), None)
                res = _child(["--one", preset, "--n", str(n), "--tie", tie], args.timeout)
                bad = compare(stored, rng, res) if "seats" in res else [f"no solution: {res.get('error')}"]
                failed += bool(bad)
                print(f"{preset}, {n} players, {tie}: " + ("; ".join(bad) if bad else "as stored"), flush=True)
    return 1 if failed else 0


def main(argv=None) -> int:
    from four21sim.exact.nplayer import TIE_ORDERS
    from four21sim.exact.ties import check_tie

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--players", default="4")
    p.add_argument("--presets", default=",".join(PRESETS))
    p.add_argument("--ties", default=",".join(TIE_ORDERS))
    p.add_argument("--timeout", type=float, default=4 * 3600, help="seconds allowed to each configuration")
    p.add_argument("--report", action="store_true", help="only remake TIE_ORDERS.md from tie_orders.json")
    p.add_argument("--check", action="store_true",
                   help="solve the configurations named again and compare with tie_orders.json (writes nothing)")
    p.add_argument("--one", help=argparse.SUPPRESS)
    p.add_argument("--n", type=int, help=argparse.SUPPRESS)
    p.add_argument("--tie", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    # solved, not read from the package's shipped equilibria (which hold no solve times or iterations)
    os.environ["FOUR21SIM_SHIPPED"] = "off"
    for tie in args.ties.split(","):
        try:
            check_tie(tie)
        except ValueError as exc:
            p.error(f"--ties: {exc}")
    if args.one:
        print(json.dumps(one(args.one, args.n, args.tie)))
        return 0
    if args.check:
        return check(args)
    meta = _meta("python experiments/tie_orders.py " + " ".join(argv if argv is not None else sys.argv[1:]))
    data = _store([], None)
    if not args.report:
        for n in [int(x) for x in args.players.split(",")]:
            for preset in args.presets.split(","):
                for tie in args.ties.split(","):
                    res = _child(["--one", preset, "--n", str(n), "--tie", tie], args.timeout)
                    res.update(preset=preset, players=n, tie=tie)
                    print(json.dumps({k: res.get(k) for k in ("preset", "players", "tie", "seconds",
                                                              "exploitability", "timeout", "error")}), flush=True)
                    data = _store([res], meta)
    (OUT / "TIE_ORDERS.md").write_text(report(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
