"""What a first ``421 simulate`` costs on a cold numba cache, with the kernel py421 ships and
without it (compiled here), then the first replay of a traced game (the analysis' path).

Run: .venv/bin/python benchmarks/kernel_compile.py
Each row runs in a fresh process with an empty numba cache and data folder, Python's start-up
excluded. The wall time is what a user waits; the CPU time is that process's own (the compiling
runs in a process of its own, not counted there).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

MEASURE = """
import sys, time
from pathlib import Path
from py421.cli import main
from py421.core.rules import Ruleset
from py421.sim.fast import shipped_kernel
from py421.sim.fast.counter_dice import batch_key
from py421.sim.fast.lineup import Lineup
from py421.sim.fast.replay import replay

if sys.argv[1] == "compiled":
    shipped_kernel.SHIPPED = Path("nothing shipped")
cpu, wall = time.process_time(), time.perf_counter()
main(["simulate", "--games", "100000", "--workers", "1", "--players", "bot:heuristic,bot:heuristic"],
     standalone_mode=False)
simulated = time.process_time(), time.perf_counter()
replay(Lineup(Ruleset.preset("classic-11"), ("random", "heuristic")), batch_key(2026, 0), 0)
replayed = time.process_time(), time.perf_counter()
print(simulated[0] - cpu, simulated[1] - wall, replayed[0] - simulated[0], replayed[1] - simulated[1])
"""


def main() -> None:
    print("| kernel | first 421 simulate, CPU s | wall s | then the first replay, CPU s | wall s |")
    print("|---|---|---|---|---|")
    for how in ("shipped", "compiled"):
        with tempfile.TemporaryDirectory() as scratch:
            env = {**os.environ, "NUMBA_CACHE_DIR": f"{scratch}/numba", "PY421_HOME": scratch}
            said = subprocess.run(
                [sys.executable, "-c", MEASURE, how], env=env, capture_output=True, text=True, check=True
            )
        figures = " | ".join(f"{float(x):.1f}" for x in said.stdout.split()[-4:])
        print(f"| {how} | {figures} |", flush=True)


if __name__ == "__main__":
    main()
