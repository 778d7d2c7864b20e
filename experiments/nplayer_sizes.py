"""The exact n-player game of every preset: equilibrium, certificate, time, memory, sizes.

Question: for 2 to 6 players, what does each seat pay under an equilibrium where
each player minimises its own P(paying), is the profile certified
(exploitability <= 1e-9), and what does the solve cost on this machine (solve and
certificate apart, peak memory, the number of states and follower contexts)?
And how exploitable are habits: the exact gain of one player's best response
against the others playing `greedy`, or `four21sim.analysis.approx`'s profile.

    python experiments/nplayer_sizes.py --players 3,4 [--presets super421,classic] [--objectives pay]
    python experiments/nplayer_sizes.py --players 5 --presets super421 --timeout 3600
    python experiments/nplayer_sizes.py --habits 3 [--presets ...]
    python experiments/nplayer_sizes.py --report            # REPORT.md from what is stored

Each solve runs in its own process (cold: a fresh process, a fresh disk cache), so
its peak memory is its own; the compiled kernels come from numba's cache, as for a
user's second run (`--cold-numba` compiles them again, and reports that time).
Results go to results/nplayer/nplayer.json, one entry per configuration (a later
run of the same configuration replaces it), and REPORT.md is remade from them.
The machine is shared: times are wall-clock times of that moment.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results" / "nplayer"
PRESET_NAMES = ("super421", "super421-lebon", "montreal", "classic")


def one(preset: str, players: int, objective: str, tokens: int | None) -> dict:
    """Solve one configuration in this process and return its numbers."""
    from four21sim import Variant
    from four21sim.exact.nplayer import solve, tie_spread

    v = Variant.from_preset(preset, [f"tokens={tokens}"] if tokens else [])
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    sol = solve(v, players, objective)
    wall = time.perf_counter() - t0
    use = resource.getrusage(resource.RUSAGE_SELF)
    out = sol.summary()
    out.update(kind="equilibrium", preset=preset, tokens=v.tokens, wall_seconds=wall,
               cpu_seconds=use.ru_utime + use.ru_stime, load_average=[load0, os.getloadavg()[0]],
               info={k: sol.info[k] for k in ("setup_seconds", "decharge_seconds", "charge_seconds", "states",
                                              "decharge_states", "contexts")},
               peak_rss_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    if players <= 4:  # one more pass over the states: where does the tie order move the others?
        spread = tie_spread(sol)
        out["ties"] = {"states_moved": int((spread > 1e-9).sum()), "max": float(spread.max())}
    return out


def _approx_profile(v, preset: str, players: int):
    """approx's stored profile (results/approx/groups_PRESET.csv) as its table policy, or None."""
    import pandas as pd

    from four21sim.analysis import approx

    path = ROOT / "results" / "approx" / f"groups_{preset}.csv"
    if not path.exists():
        return None
    rows = pd.read_csv(path)
    rows = rows[rows.players == players]
    groups = approx.context_groups(v)
    if len(rows) != len(groups):
        return None
    by_label = {r.group: r for r in rows.itertuples()}
    from four21sim.rules import dice
    picked = [by_label[label] for label in groups.labels]
    return approx.family_policy(v, groups, [dice.parse_hand(str(r.threshold)) for r in picked],
                                [float(r.weight) for r in picked], name="approx",
                                leaders=[str(r.leader) for r in picked])


def habit(preset: str, players: int, objective: str, who: str) -> dict:
    """The exact exploitability of a line-up where every seat plays ``who`` (a policy name, or
    ``approx``: the stored approximate profile): per seat, its best response's utility minus
    its utility when it plays ``who`` too."""
    from four21sim import Variant
    from four21sim.policies import best_response, evaluate_lineup

    v = Variant.from_preset(preset)
    pol = _approx_profile(v, preset, players) if who == "approx" else who
    if pol is None:
        return {"kind": "habit", "preset": preset, "players": players, "habit": who, "missing": True}
    t0 = time.perf_counter()
    base = evaluate_lineup(v, players, [pol] * players)
    key = "p_pay" if objective == "pay" else "p_win"
    util = [(1 - x if objective == "pay" else x) for x in base[key]]
    seats = []
    for seat in range(players):
        br = best_response(v, players, [pol] * (players - 1), seat=seat, objective=objective)
        best = float(br.value[br.start])
        seats.append({"seat": seat, "utility": util[seat], "best_response": best, "gain": best - util[seat],
                      "p_pay": base["p_pay"][seat], "br_p_pay": float(br.seat_p_pay[seat])})
    return {"kind": "habit", "preset": preset, "players": players, "objective": objective, "habit": who,
            "seats": seats, "exploitability": max(s["gain"] for s in seats),
            "seconds": time.perf_counter() - t0,
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def _child(args: list[str], timeout: float, cold_numba: bool, script: str = __file__) -> dict:
    """Run ``script`` (this one, or another experiment's) with ``args`` in a fresh process with a cold
    disk cache (and numba's with ``cold_numba``): its last line of output, as JSON."""
    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="four21sim-cache-") as tmp:
        env["FOUR21SIM_CACHE_DIR"] = tmp  # a cold disk cache: nothing solved before
        env["FOUR21SIM_SHIPPED"] = "off"  # and the package's shipped solutions not read: solved here
        if cold_numba:
            env["NUMBA_CACHE_DIR"] = str(Path(tmp) / "numba")
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        t0 = time.perf_counter()
        try:
            done = subprocess.run([sys.executable, script, *args], capture_output=True, text=True, env=env,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"timeout": timeout, "wall_seconds": time.perf_counter() - t0}
    if done.returncode != 0:
        return {"error": done.stderr[-2000:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _store(entries: list[dict]) -> list[dict]:
    """Merge ``entries`` into results/nplayer/nplayer.json (same configuration: replaced)."""
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / "nplayer.json"
    old = json.loads(path.read_text()) if path.exists() else []

    def key(e):
        return (e.get("kind"), e.get("preset"), e.get("players"), e.get("objective"), e.get("tokens"),
                e.get("habit"))

    merged = {key(e): e for e in old}
    merged.update({key(e): e for e in entries})
    rows = sorted(merged.values(), key=lambda e: tuple(str(x) for x in key(e)))
    path.write_text(json.dumps(rows, indent=1) + "\n")
    return rows


def _meta(command: str) -> dict:
    commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True,
                            cwd=ROOT).stdout.strip()
    return {"command": command, "git_commit": commit, "machine": platform.machine(), "cpus": os.cpu_count(),
            "when": datetime.now(timezone.utc).isoformat(timespec="seconds"), "python": platform.python_version()}


def _pct(x) -> str:
    return f"{100 * x:.4f}%"


def _eq_table(rows: list[dict], objective: str) -> list[str]:
    lines = ["| preset | players | tokens | P(pay) by seat | exploitability | any state | converged | iterations "
             "| solve s | certificate s | CPU s | load | peak MiB | states | contexts (décharge, last level) "
             "| ties move others |", "| --- " * 16 + "|"]
    for r in rows:
        if r.get("kind") != "equilibrium" or r.get("objective") != objective:
            continue
        if "seats" not in r:
            lines.append(f"| {r['preset']} | {r['players']} | {r.get('tokens', '')} | "
                         f"{'timed out after ' + str(r['timeout']) + ' s' if 'timeout' in r else 'failed'} |"
                         + " |" * 12)
            continue
        ctx = r["info"]["contexts"].get(f"{r['players']}:decharge", {}).get("merged", [0])[-1]
        lines.append(
            f"| {r['preset']} | {r['players']} | {r['tokens']} | "
            f"{' / '.join(_pct(s['p_pay']) for s in r['seats'])} | {r['exploitability']:.1e} | "
            f"{r['exploitability_any_state']:.1e} | {'yes' if r['converged'] else 'NO'} | {r['iterations']} | "
            f"{r['seconds']:.1f} | {r['certificate_seconds']:.1f} | {r.get('cpu_seconds', float('nan')):.0f} | "
            f"{max(r.get('load_average', [float('nan')])):.1f} | {r['peak_rss_mib']:.0f} | "
            f"{r['info']['states']} | {ctx:,} | {_ties(r)} |")
    return lines


def _ties(r: dict) -> str:
    t = r.get("ties")
    return "" if t is None else f"{t['states_moved']} states, up to {t['max']:.2g}"


def _habit_table(rows: list[dict]) -> list[str]:
    lines = ["| preset | players | everyone plays | P(pay) by seat | best response's P(pay) by seat "
             "| exploitability (pp) | s |", "| --- " * 7 + "|"]
    for r in rows:
        if r.get("kind") != "habit" or r.get("missing") or "seats" not in r:
            continue
        lines.append(f"| {r['preset']} | {r['players']} | {r['habit']} | "
                     f"{' / '.join(_pct(s['p_pay']) for s in r['seats'])} | "
                     f"{' / '.join(_pct(s['br_p_pay']) for s in r['seats'])} | "
                     f"{100 * r['exploitability']:.3f} | {r['seconds']:.0f} |")
    return lines


def _tie_ranges() -> list[str]:
    """Every seat's P(pay) and drinks least to most over the tie orders, from
    results/nplayer/tie_orders.json (experiments/tie_orders.py), if it is there."""
    path = OUT / "tie_orders.json"
    if not path.exists():
        return []
    data = json.loads(path.read_text())
    lines = ["## Over tie orders", "",
             "The equilibria above take ties (keeps within 1e-12 for the player choosing) to the first keep "
             "of `dice.HAND_KEEPS` order. Under other tie orders, and under the rules favouring or disfavouring "
             "a role among a player's ties, the solver finds other certified "
             "equilibria (the last column: the largest gain of a deviation over the orders, from any state); "
             "every seat's P(pay), "
             "and its drinks a game beyond its share (n P − 1), least to most over the orders solved "
             "(the rows per order, and the orders' definitions: [TIE_ORDERS.md](TIE_ORDERS.md)). Each range "
             "is a lower bound on how far the game's equilibria spread: at least this much; other selections "
             "may lie outside it.", "",
             "| preset | players | tie orders | P(pay) by seat, least–most | drinks by seat, least to most "
             "| widest range (pp) | exploitability (most) |", "| --- " * 7 + "|"]
    for rg in data["ranges"]:
        lines.append(f"| {rg['preset']} | {rg['players']} | {', '.join(rg['ties'])} | "
                     + " / ".join(f"{_pct(s['p_pay_min'])}–{_pct(s['p_pay_max'])}" for s in rg["seats"]) + " | "
                     + " / ".join(f"{s['drinks_min']:+.4f} to {s['drinks_max']:+.4f}" for s in rg["seats"])
                     + f" | {100 * max(s['p_pay_range'] for s in rg['seats']):.4f} | "
                       f"{rg['exploitability_any_state_max']:.1e} |")
    return lines + [""]


def report(rows: list[dict], meta: dict) -> str:
    """REPORT.md from the stored entries."""
    lines = ["# The exact n-player game: equilibrium, certificate, cost", "",
             f"Last run: `{meta['command']}` at commit {meta['git_commit']} on {meta['machine']} "
             f"({meta['cpus']} cores), {meta['when']}; every entry below was measured by "
             "`experiments/nplayer_sizes.py` in its own process, on a machine shared with other work "
             "(times are those of that moment).", "",
             "Every number is exact (no sampling). Seat 0 leads the first round. *Exploitability*: the most "
             "any one player gains (in the probability it optimises) by deviating alone from the start, "
             "against the others' fixed strategies, computed exactly by a best response; *any state*: the "
             "same from every state and role. Contexts: what the last follower of a décharge round can "
             "meet, after merging. *CPU s*: the process's CPU time (2 threads: up to twice the wall time); "
             "*load*: the machine's 1-minute load average at the start or end of the solve, whichever is "
             "higher (2 cores: above 2, other work shared them and the wall times are longer than alone). "
             "*Ties move others*: the states where a keep the chooser is indifferent to (within 1e-12) "
             "changes another player's utility, and by how much at most (`tie_spread`): there the "
             "documented tie order picks the equilibrium (*Over tie orders* below: how far the seats' values "
             "move under the other orders).", ""]
    for objective, title in (("pay", "Each player minimises its own P(pay)"),
                             ("win", "Each player maximises its own win share")):
        table = _eq_table(rows, objective)
        if len(table) > 2:
            lines += [f"## {title}", "", *table, ""]
    lines += _tie_ranges()
    habits = _habit_table(rows)
    if len(habits) > 2:
        lines += ["## How exploitable are habits", "",
                  "Every seat plays the habit; for each seat, the exact best response against the others "
                  "playing it; *exploitability*: the largest gain in P(not paying) over the seats. `approx` is "
                  "the profile stored in results/approx (the family of four21sim.analysis.approx).", "", *habits, ""]
    return "\n".join(lines)


def _run(args) -> None:
    entries = []
    presets = args.presets.split(",")
    for n in [int(x) for x in args.players.split(",")] if args.players else []:
        for preset in presets:
            for objective in args.objectives.split(","):
                cmd = ["--one", preset, "--n", str(n), "--objective", objective]
                if args.tokens:
                    cmd += ["--tokens", str(args.tokens)]
                res = _child(cmd, args.timeout, args.cold_numba)
                res.setdefault("kind", "equilibrium")
                res.update(preset=preset, players=n, objective=objective)
                res.setdefault("tokens", args.tokens)
                entries.append(res)
                print(json.dumps({k: res.get(k) for k in ("preset", "players", "objective", "seconds",
                                                          "certificate_seconds", "exploitability",
                                                          "peak_rss_mib", "timeout")}), flush=True)
                _store([res])
    for n in [int(x) for x in args.habits.split(",")] if args.habits else []:
        for preset in presets:
            for who in args.habit_policies.split(","):
                res = _child(["--habit", who, "--one", preset, "--n", str(n), "--objective", "pay"], args.timeout,
                             False)
                res.update(kind="habit", preset=preset, players=n, habit=who, objective="pay")
                print(json.dumps({k: res.get(k) for k in ("preset", "players", "habit", "exploitability")}),
                      flush=True)
                _store([res])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--players", default="", help="player counts of the equilibria to solve, e.g. 3,4")
    p.add_argument("--presets", default=",".join(PRESET_NAMES))
    p.add_argument("--objectives", default="pay")
    p.add_argument("--tokens", type=int, default=None, help="override the presets' tokens")
    p.add_argument("--habits", default="", help="player counts at which to measure the habits' exploitability")
    p.add_argument("--habit-policies", default="greedy,approx")
    p.add_argument("--timeout", type=float, default=4 * 3600, help="seconds allowed to each configuration")
    p.add_argument("--cold-numba", action="store_true", help="compile the kernels again in every process")
    p.add_argument("--report", action="store_true", help="only remake REPORT.md from nplayer.json")
    p.add_argument("--one", help=argparse.SUPPRESS)
    p.add_argument("--n", type=int, help=argparse.SUPPRESS)
    p.add_argument("--objective", default="pay", help=argparse.SUPPRESS)
    p.add_argument("--habit", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.one:
        res = habit(args.one, args.n, args.objective, args.habit) if args.habit else \
            one(args.one, args.n, args.objective, args.tokens)
        print(json.dumps(res))
        return 0
    if not args.report:
        _run(args)
    rows = _store([])
    (OUT / "REPORT.md").write_text(report(rows, _meta("python experiments/nplayer_sizes.py " + " ".join(
        argv if argv is not None else sys.argv[1:]))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
