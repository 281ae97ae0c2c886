"""What compiling the simulator's kernel costs on a cold cache: a first ``421 simulate``, then the
first replay of a traced game (the differential tests' and the analysis' path).

Run: .venv/bin/python benchmarks/kernel_compile.py
Each part runs in a fresh process with an empty numba cache and data folder; the figure is the
process's CPU time (less sensitive to other work on the machine than the wall clock).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

MEASURE = """
import time
from py421.cli import main
from py421.core.rules import Ruleset
from py421.sim.fast.counter_dice import batch_key
from py421.sim.fast.lineup import Lineup
from py421.sim.fast.replay import replay

start = time.process_time()
main(["simulate", "--games", "20", "--workers", "1", "--players", "bot:heuristic,bot:random"],
     standalone_mode=False)
simulated = time.process_time()
replay(Lineup(Ruleset.preset("classic-11"), ("random", "heuristic")), batch_key(2026, 0), 0)
replayed = time.process_time()
print(f"{simulated - start:.1f} {replayed - simulated:.1f}")
"""


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "NUMBA_CACHE_DIR": f"{scratch}/numba", "PY421_HOME": scratch}
        said = subprocess.run(
            [sys.executable, "-c", MEASURE], env=env, capture_output=True, text=True, check=True
        )
    simulate, replay = said.stdout.split()[-2:]
    print("| first 421 simulate (CPU s) | then the first replay (CPU s) |")
    print("|---|---|")
    print(f"| {simulate} | {replay} |")


if __name__ == "__main__":
    main()
