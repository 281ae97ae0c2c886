"""Solver timings: a full two-player game solve, and one piece of advice.

Run: .venv/bin/python benchmarks/solver_speed.py [--large-rounds]
Targets: the classic-11 game solve under 60 s and `advise` under 50 ms on 2 cores.
``--large-rounds`` only measures rounds of 4 to 8 players (time and peak memory), each in
a process of its own: what sets the round solver's limit of eight players.
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import time

from py421.core.dice import Result
from py421.core.rules import Ruleset, preset_names
from py421.solver.advice import advise
from py421.solver.heads_up import HeadsUp, unsupported
from py421.solver.rounds import solve_round


def large_round(players: int) -> None:
    """One classic-11 round of ``players``, both phases: its time and this process's peak memory."""
    rules = Ruleset.preset("classic-11")
    start = time.perf_counter()
    for charge in (True, False):
        solve_round(rules, players, charge, "tokens", None)
    took = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  {players} players: {took:6.2f} s, peak {peak:,.0f} MB", flush=True)


def large_rounds() -> None:
    print("a classic-11 round by max^n, charge and décharge, in a fresh process each:")
    for players in (4, 5, 6, 7, 8):
        here = "import sys; sys.path.insert(0, 'benchmarks'); import solver_speed"
        subprocess.run([sys.executable, "-c", f"{here}; solver_speed.large_round({players})"], check=True)


def main() -> None:
    if "--large-rounds" in sys.argv:
        large_rounds()
        return
    print("two-player game solve (decharge value iteration + charge):")
    for name in preset_names():
        rules = Ruleset.preset(name)
        if unsupported(rules):
            print(f"  {name:<13} not solved yet: {unsupported(rules)}")
            continue
        start = time.perf_counter()
        solver = HeadsUp(rules).solve()
        took = time.perf_counter() - start
        print(f"  {name:<13} {took:7.2f} s  ({solver.iterations} décharge sweeps)")

    print("two-player game solve, options no preset combines:")
    variants = [
        ("engranjeu-21", {"initial_tokens": 5, "nenette_penalty": 2}),
        ("vache-41", {"tie_break": "qui_barre_demarre", "nenette_penalty": 4}),
    ]
    for name, options in variants:
        rules = Ruleset.preset(name).with_options(**options)
        start = time.perf_counter()
        solver = HeadsUp(rules).solve()
        took = time.perf_counter() - start
        said = ", ".join(f"{k}={v}" for k, v in options.items())
        print(f"  {name} {said}: {took:.2f} s  ({solver.iterations} décharge sweeps)")

    print("a round solved by max^n (tokens objective), every position:")
    for name in ("classic-11", "engranjeu-21"):
        rules = Ruleset.preset(name)
        for players in (3, 4):
            for charge in (True, False):
                start = time.perf_counter()
                solve_round.__wrapped__(rules, players, charge, "tokens", None)
                took = time.perf_counter() - start
                phase = "charge" if charge else "décharge"
                print(f"  {name:<13} {players} players, {phase:<9} {took:6.2f} s")

    table = Ruleset.preset("classic-11").table
    hands = [Result.parse(h) for h in ("642", "611", "553", "321", "665")]
    start = time.perf_counter()
    advise(table, hands[0], 2, Result.parse("654"))
    print(f"advise, first call (solves the turn): {(time.perf_counter() - start) * 1000:.2f} ms")
    times = []
    for hand in hands * 20:
        start = time.perf_counter()
        advise(table, hand, 2, Result.parse("653"))
        times.append(time.perf_counter() - start)
    print(f"advise (in process, after the first): median {statistics.median(times) * 1000:.2f} ms")

    runs = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "py421", "advise", "642", "--throws-left", "2", "--target", "653"],
            check=True,
            capture_output=True,
        )
        runs.append(time.perf_counter() - start)
    median = statistics.median(runs) * 1000
    print(f"421 advise (the whole command, Python start-up included): median {median:.0f} ms")


if __name__ == "__main__":
    main()
