"""Steps a second: the vector environments on the compiled kernel beside Game-v0 and the PettingZoo game.

Run: .venv/bin/python benchmarks/vector_speed.py [--seconds S] [--envs N] [--threads 1,2]

Every environment plays two-player classic-11 with a random legal action at
each step (drawn from the mask by ``random_actions``, the drawing included in the time). A step is
one decision of the learning seat (Game-v0, ``VectorGameEnv``, against
bot:heuristic) or of whichever seat must decide (the PettingZoo game,
``MultiAgentVector`` in self-play). Compilation is done before timing (or
loaded from numba's cache). Target: at least 1,000,000 steps a second for
``VectorGameEnv`` on the 2-core machine. The load average is printed: other
work on the same cores lowers every figure.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import numpy as np

from py421.envs import pettingzoo_env
from py421.envs.gym_game import GameEnv
from py421.envs.vector import MultiAgentVector, VectorGameEnv, random_actions

RULES = "classic-11"


def timed(step: Callable[[], int], seconds: float) -> tuple[float, float]:
    """Steps a second of wall time and of this process's CPU time."""
    steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        steps += step()
    return steps / (time.perf_counter() - start), steps / (time.process_time() - cpu)


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniform legal action per row."""
    return random_actions(masks, rng)


def vector_rate(envs: int, threads: int, seconds: float) -> tuple[float, float]:
    env = VectorGameEnv(
        envs, RULES, 2, opponents="heuristic", seed=1, threads=threads, autoreset_mode="SameStep"
    )
    env.reset()
    rng = np.random.default_rng(1)

    def step() -> int:
        env.step(random_legal(env.action_masks(), rng))
        return envs

    step()
    rates = timed(step, seconds)
    env.close()
    return rates


def self_play_rate(games: int, threads: int, seconds: float) -> tuple[float, float]:
    batch = MultiAgentVector(games, RULES, 2, seed=1, threads=threads)
    batch.reset()
    rng = np.random.default_rng(1)

    def step() -> int:
        batch.step(random_legal(batch.action_masks(), rng))
        return games

    step()
    rates = timed(step, seconds)
    batch.close()
    return rates


def game_v0_rate(seconds: float) -> tuple[float, float]:
    env = GameEnv(RULES, 2, "heuristic")
    rng = np.random.default_rng(1)
    env.reset(seed=1)

    def step() -> int:
        _, _, over, _, _ = env.step(random_legal(env.action_masks()[None], rng)[0])
        if over:
            env.reset()
        return 1

    return timed(step, seconds)


def pettingzoo_rate(seconds: float) -> tuple[float, float]:
    env = pettingzoo_env(RULES, 2, seed=1)
    rng = np.random.default_rng(1)
    env.reset()

    def step() -> int:
        if any(env.terminations.values()):
            env.reset()
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(random_legal(mask[None], rng)[0]))
        return 1

    return timed(step, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each measurement")
    parser.add_argument("--envs", type=int, default=4096, help="games stepped at once")
    parser.add_argument("--threads", default="1,2", help="thread counts to measure, separated by commas")
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    start = time.perf_counter()
    VectorGameEnv(8, RULES, 2, seed=0).reset()
    print(f"first reset: {time.perf_counter() - start:.1f} s (compiling, or loading from numba's cache)")
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    rows = []
    for t in threads:
        rows.append(
            (f"VectorGameEnv, {args.envs} envs, {t} thread(s)", vector_rate(args.envs, t, args.seconds))
        )
    for t in threads:
        rows.append(
            (
                f"MultiAgentVector, {args.envs} games, {t} thread(s)",
                self_play_rate(args.envs, t, args.seconds),
            )
        )
    rows.append(("Game-v0", game_v0_rate(args.seconds)))
    rows.append(("the PettingZoo game", pettingzoo_rate(args.seconds)))
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print("| environment | steps a second | per second of CPU time |")
    print("|---|---|---|")
    for name, (wall, cpu) in rows:
        print(f"| {name} | {wall:,.0f} | {cpu:,.0f} |")


if __name__ == "__main__":
    main()
