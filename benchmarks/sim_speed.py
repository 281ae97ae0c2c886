"""Games per second: the engine's play loop against the fast simulator.

Run: .venv/bin/python benchmarks/sim_speed.py [--seconds S] [--workers K]
Both play heuristic bots on every seat with the same dice source scheme; the
engine loop is ``py421.sim.loop.play_out`` on one core, the fast simulator is
``421 simulate``'s runner on ``--workers`` processes (compilation and process
start-up included). Also shown: the kernel alone on one core (100,000 games in
this process, already compiled) and its time per game. Target: at least
600,000 two-player classic-11 games a second on two processes of the 2-core
machine, and at least 100 times the engine loop.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from py421.core.rules import Ruleset
from py421.sim.fast import kernel as k
from py421.sim.fast.counter_dice import batch_key
from py421.sim.simulate import Simulation, default_workers, engine_game, run

CASES = [("classic-11", 2), ("classic-11", 4), ("vache-41", 2), ("vache-41", 4)]


def engine_rate(rules: Ruleset, players: int, seconds: float) -> float:
    key = batch_key(1, 0)
    levels = ("heuristic",) * players
    games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        engine_game(rules, levels, key, games, "bench")
        games += 1
    return games / (time.perf_counter() - start)


def fast_rates(rules: Ruleset, players: int, seconds: float, workers: int) -> tuple[float, float]:
    """Games a second on one core in this process, then on ``workers`` processes started for the run."""
    levels = ("heuristic",) * players
    run(Simulation(rules, levels, 1_000))  # compiled (or loaded from numba's cache) beforehand
    start = time.perf_counter()
    sim = Simulation(rules, levels, 100_000)
    counts = run(sim)
    one_core = 100_000 / (time.perf_counter() - start)
    games = max(100_000, int(one_core * workers * seconds))
    sim = Simulation(rules, levels, games)
    start = time.perf_counter()
    counts = run(sim, workers)
    assert counts[k.C_GAMES] == games
    return one_core, games / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="rough length of each measurement")
    parser.add_argument("--workers", type=int, default=default_workers())
    args = parser.parse_args()
    start = time.perf_counter()
    run(Simulation(Ruleset.preset("classic-11"), ("heuristic", "heuristic"), 10))
    took = time.perf_counter() - start
    print(f"first call: {took:.1f} s (compiling the kernel, or loading it from numba's cache)")
    print(f"heuristic bots on every seat; fast simulator on {args.workers} processes\n")
    print(
        "| rules | players | engine loop (games/s) | kernel, one core (games/s) | µs a game "
        f"| fast simulator, {args.workers} processes (games/s) | ratio |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, players in CASES:
        rules = Ruleset.preset(name)
        engine = engine_rate(rules, players, args.seconds)
        one_core, fast = fast_rates(rules, players, args.seconds, args.workers)
        print(
            f"| {name} | {players} | {engine:,.0f} | {one_core:,.0f} | {1e6 / one_core:.2f} "
            f"| {fast:,.0f} | {fast / engine:,.0f}x |",
            flush=True,
        )


if __name__ == "__main__":
    np.seterr(all="raise")
    main()
