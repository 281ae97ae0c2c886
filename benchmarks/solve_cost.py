"""The cost of solving a ruleset, estimated at once (py421.solver.cost), against the solve itself.

Run: .venv/bin/python benchmarks/solve_cost.py [--cap SECONDS] [--quick] [--only TEXT]

Each ruleset is estimated here, then solved in a fresh process of its own, with a fresh data folder
(``PY421_HOME``: nothing solved before) and a time cap, which first measures the rate
(``measure_rate``, as a server's worker does when it starts: the machine's load of the moment is
in it), then solves exactly as the server's worker would: ``optimal`` runs
``players.optimal.prepare(rules, players, solve_games=False)``; ``analysis`` builds the
``analysis.Adviser`` (``solve=False``: a whole game only where solved before) and, played round
by round, solves every round a game can ask for (the charge at each pot that caps it, the décharge
at each size), as ``analyse`` would over a game.
Memory is the address space the process took beyond what it held once its imports were done (the
server's cap, ``RLIMIT_AS``, counts the same), from ``/proc/self/status`` (Linux).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from py421.core.errors import Py421Error
from py421.core.rules import Ruleset
from py421.solver.cost import charge_sweeps, decharge_sweeps, measure_rate, seconds, solve_cost

# (preset, settings, players, purpose)
Case = tuple[str, tuple[str, ...], int, str]
PRESETS = ("classic-11", "lyonnaise-21", "vache-41", "kytionnaire", "tim", "comptoir-21", "engranjeu-21")


def cases(quick: bool) -> list[Case]:
    found: list[Case] = []
    for preset in PRESETS:
        for players in (2, 3, 4, 7):
            for purpose in ("optimal", "analysis"):
                found.append((preset, (), players, purpose))
    for pot in (11, 21, 41, 100, 300, 999):
        found.append(("classic-11", (f"pot={pot}",), 2, "optimal"))
        found.append(("vache-41", (f"pot={pot}",), 2, "optimal"))
        found.append(("engranjeu-21", (f"pot={pot}",), 2, "optimal"))
        found.append(("vache-41", (f"pot={pot}",), 4, "optimal"))
    for settings in (
        ("decharge_throws=1", "le_bon=false"),
        ("leader_limit=false",),
        ("value_421=99", "value_111=50"),
        ("initial_tokens=10",),
        ("value_deduction=true", "pot=21"),
        ("queue_de_la_vache=true",),
    ):
        found.append(("classic-11", settings, 2, "optimal"))
    found.append(("vache-41", ("charge_throws=2", "pot=61"), 2, "optimal"))
    found.append(("vache-41", ("queue_de_la_vache=true",), 2, "optimal"))
    found.append(("vache-41", ("queue_de_la_vache=true",), 2, "analysis"))
    for players in (5, 6, 8, 20):
        found.append(("classic-11", (), players, "optimal"))
        found.append(("classic-11", (), players, "analysis"))
    found.append(("classic-11", ("must_throw_on=true",), 3, "optimal"))
    if quick:
        found = [c for c in found if c[2] in (2, 3) and not any(s.startswith("pot=") for s in c[1])]
    unique = list(dict.fromkeys(found))
    return unique


def child(preset: str, settings: list[str], players: int, purpose: str) -> None:
    """Solve as the server's worker would, and print the time and the memory it took."""
    from py421.analysis import Adviser
    from py421.players.optimal import prepare
    from py421.solver.rounds import pot_cap, solve_round

    rules = Ruleset.preset(preset).with_settings(settings)
    rate = measure_rate()  # as the worker does when it starts (BLAS maps its buffer, 32 MB, there)
    before = _status()
    began = time.perf_counter()
    if purpose == "optimal":
        prepare(rules, players, solve_games=False)
    else:
        adviser = Adviser(rules, players, solve=False)
        if adviser.method == "rounds":  # every round a game can ask for, as analyse would solve them
            caps = dict.fromkeys(pot_cap(rules, players, True, pot) for pot in range(1, rules.pot + 1))
            for cap in caps:
                solve_round(rules, players, True, "loser", cap)
            for size in range(players, 1, -1):
                solve_round(rules, size, False, "loser", None)
    took = time.perf_counter() - began
    after = _status()
    space = (after["VmPeak"] - before["VmSize"]) * 1024
    print(json.dumps({"seconds": took, "bytes": space, "rate": rate}))


def _status() -> dict[str, int]:
    with open("/proc/self/status", encoding="ascii") as f:
        return {
            k: int(v.split()[0]) for k, v in (line.split(":", 1) for line in f) if v.strip().endswith("kB")
        }


def measure(case: Case, cap: float) -> dict[str, float] | str:
    preset, settings, players, purpose = case
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "PY421_HOME": home}
        command = [
            sys.executable,
            __file__,
            "--child",
            json.dumps([preset, list(settings), players, purpose]),
        ]
        try:
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=cap)
        except subprocess.TimeoutExpired:
            return f"> {cap:g}"
    if done.returncode:
        return "failed: " + done.stderr.strip().splitlines()[-1]
    found: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cap", type=float, default=120.0, help="seconds a solve may take (default 120)")
    parser.add_argument("--quick", action="store_true", help="two and three players at the presets' pots")
    parser.add_argument("--only", default="", help="only the cases whose description contains this")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*json.loads(args.child))
        return
    began = time.perf_counter()
    rate = measure_rate()
    print(f"measure_rate(): {rate:,.0f} units/s, measured in {time.perf_counter() - began:.2f} s", flush=True)
    print(
        "| rules | players | purpose | method | estimate s | solved s | ratio | estimate MB | "
        "solved MB | ratio | solve_cost ms |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    slowest = 0.0
    time_ratios: list[float] = []
    memory_ratios: list[float] = []
    for case in cases(args.quick):
        preset, settings, players, purpose = case
        name = " ".join((preset, *settings))
        if args.only and args.only not in f"{name} {players} {purpose}":
            continue
        rules = Ruleset.preset(preset).with_settings(list(settings))
        with tempfile.TemporaryDirectory() as home:  # the same empty data folder as the solve's
            os.environ["PY421_HOME"] = home
            decharge_sweeps.cache_clear()  # as a ruleset seen for the first time
            charge_sweeps.cache_clear()
            start = time.perf_counter()
            try:
                cost = solve_cost(rules, players, "optimal" if purpose == "optimal" else "analysis")
            except Py421Error as e:
                print(f"| {name} | {players} | {purpose} | refused: {e} | | | | | | | |", flush=True)
                continue
            finally:
                took = time.perf_counter() - start
                slowest = max(slowest, took)
        cells = [name, str(players), purpose]
        found = measure(case, max(args.cap, 0.1))
        megabytes = cost.memory_bytes / 2**20
        if isinstance(found, str):  # past the cap: estimated at the rate measured here
            cells += [cost.method, f"{seconds(cost, rate):.3g}", found, "", f"{megabytes:,.0f}", "", ""]
        else:
            estimate = seconds(cost, found["rate"])  # at the rate the solve's process measured
            solved_mb = found["bytes"] / 2**20
            cells += [cost.method, f"{estimate:.3g}", f"{found['seconds']:.3g}"]
            cells += [f"{estimate / found['seconds']:.2f}", f"{megabytes:,.0f}", f"{solved_mb:,.0f}"]
            if found["seconds"] >= 0.05:
                time_ratios.append(estimate / found["seconds"])
            if solved_mb >= 8:  # below, what the process maps beside the solve is most of it
                memory_ratios.append(megabytes / solved_mb)
                cells.append(f"{megabytes / solved_mb:.2f}")
            else:
                cells.append("–")
        cells.append(f"{took * 1e3:.0f}")
        print("| " + " | ".join(cells) + " |", flush=True)
    for what, ratios in (
        ("time (solves of 0.05 s or more)", time_ratios),
        ("memory (8 MB or more)", memory_ratios),
    ):
        if ratios:
            low, middle, high = min(ratios), statistics.median(ratios), max(ratios)
            print(f"{what}, estimate / solve: {low:.2f} to {high:.2f}, median {middle:.2f}")
    print(f"slowest solve_cost: {slowest * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
