"""Compile the simulator's kernel and the vector environments' steps for any x86-64 CPU into
src/py421/sim/fast/shipped/.

numba's cache files of the kernel, compiled with ``NUMBA_CPU_NAME=generic`` in a fresh cache,
and a manifest of what they were made from (py421.sim.fast.shipped_kernel). A machine whose numba
cache lacks the kernel installs them instead of compiling it, when they were made from the same
source with the same numba, llvmlite and Python. tests/test_shipped_kernel.py fails while they
are not: run this again after changing the kernel or anything it reads, or those versions.

    .venv/bin/python scripts/ship_kernel.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from py421.sim.fast.shipped_kernel import MANIFEST, SHIPPED, environment, fingerprint

# Compiled in a process of its own, whose numba reads the generic CPU from its environment.
COMPILE = """
import numpy as np
from py421.core.rules import Ruleset
from py421.envs.vector import MultiAgentVector, random_actions
from py421.sim.fast import compiling
from py421.sim.fast.counter_dice import batch_key
from py421.sim.fast.lineup import Lineup
from py421.sim.fast.replay import replay
from py421.sim.fast.shipped_kernel import entry_points

compiling.main()  # a batch of games
replay(Lineup(Ruleset.preset("classic-11"), ("random", "heuristic")), batch_key(2026, 0), 0)  # a trace
vec = MultiAgentVector(8, "classic-11", 2, seed=0)  # the vector environments' steps
vec.reset()
rng = np.random.default_rng(0)
for _ in range(20):
    vec.step(random_actions(vec.action_masks(), rng))
print(entry_points()[0]._cache._cache_path)
"""


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        env = {
            **os.environ,
            "NUMBA_CPU_NAME": "generic",
            "NUMBA_CACHE_DIR": f"{scratch}/numba",
            "PY421_HOME": scratch,
        }
        env.pop("NUMBA_CPU_FEATURES", None)  # numba's default for the generic CPU: none
        said = subprocess.run(
            [sys.executable, "-c", COMPILE], env=env, capture_output=True, text=True, check=True
        )
        folder = Path(said.stdout.strip().splitlines()[-1])
        files = sorted(p.name for p in folder.iterdir() if p.suffix in (".nbi", ".nbc"))
        SHIPPED.mkdir(exist_ok=True)
        for old in SHIPPED.iterdir():
            old.unlink()
        for name in files:
            shutil.copyfile(folder / name, SHIPPED / name)
    made = {"environment": environment(), "fingerprint": fingerprint(), "cpu": "generic", "files": files}
    (SHIPPED / MANIFEST).write_text(json.dumps(made, indent=1) + "\n", encoding="utf-8")
    size = sum(p.stat().st_size for p in SHIPPED.iterdir())
    print(f"{len(files)} files, {size / 1e6:.1f} MB, in {SHIPPED}")


if __name__ == "__main__":
    main()
