"""Compile the simulator's, the solver's and the vector environments' numba kernels into numba's cache.

The first run of each kernel compiles it (minutes in all); the test workers,
started together, would each compile the same kernels at once, and a test
that interrupts a command could interrupt its compiling. scripts/check runs
this beforehand, its two parts in two processes while npm and the linters
run, so that the workers load every kernel from the cache. Run with
PY421_HOME set to a scratch folder: the solves are kept there.

    python scripts/warm_kernels.py [simulator|others]   (both by default)
"""

from __future__ import annotations

import sys

import numpy as np

from py421.cli import main
from py421.core.rules import Ruleset
from py421.envs.vector import MultiAgentVector, random_actions
from py421.sim.fast.counter_dice import batch_key
from py421.sim.fast.lineup import Lineup
from py421.sim.fast.replay import replay


def simulator() -> None:
    """The simulator's kernel: one compiled whole, whatever the lineup (the bots' tables are data,
    built by the tests in their own folders, so no bot:optimal here: its solving would be thrown
    away), and a game traced as the differential tests replay it."""
    lineup = ["--players", "bot:heuristic,bot:random"]
    main(["simulate", "--games", "20", "--workers", "1", *lineup], standalone_mode=False)
    # a game traced step by step as the differential tests replay it: the same kernel, just compiled
    replay(Lineup(Ruleset.preset("classic-11"), ("random", "heuristic")), batch_key(2026, 0), 0)


def others() -> None:
    """Whole games solved (a pot of 2 takes seconds): of four, then of three where every throw adds
    to the stake (the staked turns' kernels); and the vector environments' steps."""
    main(["solve", "--players", "4", "--set", "pot=2"], standalone_mode=False)
    main(["solve", "--rules", "vache-41", "--players", "3", "--set", "pot=2"], standalone_mode=False)
    vec = MultiAgentVector(8, "classic-11", 2, seed=0)
    vec.reset()
    rng = np.random.default_rng(0)
    for _ in range(20):
        vec.step(random_actions(vec.action_masks(), rng))


if __name__ == "__main__":
    parts = sys.argv[1:] or ["simulator", "others"]
    for part in parts:
        {"simulator": simulator, "others": others}[part]()
