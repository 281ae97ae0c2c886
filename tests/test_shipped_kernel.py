"""The simulator's kernel that py421 ships: made from this source, installed where numba's cache
lacks it, played at once, the engine's games; refused when made from anything else."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba")

from py421.sim.fast import compiling, shipped_kernel

RESHIP = "run .venv/bin/python scripts/ship_kernel.py"

# A machine whose numba cache is empty: the kernel installed, then games played and replayed
# through the engine; prints what numba compiled meanwhile (nothing, if the shipped one serves).
FRESH_MACHINE = """
import json
from numba.core.registry import CPUDispatcher
from py421.core.rules import Ruleset
from py421.sim.fast import compiling, counter_dice, kernel, maxn, policy, shipped_kernel
from py421.sim.fast.counter_dice import batch_key
from py421.sim.fast.lineup import Lineup
from py421.sim.fast.replay import replay
from py421.sim.simulate import Simulation, run

before = compiling.kernel_cached()
installed = shipped_kernel.install()
after = compiling.kernel_cached()
lineup = Lineup(Ruleset.preset("vache-41"), ("heuristic", "random", "heuristic"))
for game in range(12):
    replay(lineup, batch_key(7, 0), game)  # raises on any difference from the engine
counts = run(Simulation(Ruleset.preset("classic-11"), ("heuristic", "heuristic"), 3_000, 5))
compiled = sorted(
    f"{m.__name__}.{name}"
    for m in (kernel, counter_dice, maxn, policy)
    for name, d in vars(m).items()
    if isinstance(d, CPUDispatcher) and sum(d.stats.cache_misses.values())
)
print(json.dumps({"before": before, "installed": installed, "after": after, "compiled": compiled,
                  "counts": [int(c) for c in counts]}))
"""


def test_the_shipped_kernel_is_made_from_this_source():
    made = shipped_kernel.manifest()
    assert made is not None, f"no kernel shipped: {RESHIP}"
    here = shipped_kernel.environment()
    if made["environment"]["platform"] != here["platform"]:
        pytest.skip(f"shipped for {made['environment']['platform']}, this machine is {here['platform']}")
    assert made["environment"] == here, f"shipped for other versions than these: {RESHIP}"
    assert made["fingerprint"] == shipped_kernel.fingerprint(), f"the kernel's source changed: {RESHIP}"
    assert made["files"] == sorted(
        p.name for p in shipped_kernel.SHIPPED.iterdir() if p.name != "manifest.json"
    )
    assert shipped_kernel.made_here() is None


def test_a_machine_without_the_kernel_installs_the_shipped_one_and_plays_the_engines_games(tmp_path: Path):
    if shipped_kernel.made_here() is not None:
        pytest.skip(f"the shipped kernel cannot serve here: {shipped_kernel.made_here()}")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "PY421_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", FRESH_MACHINE], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout.splitlines()[-1])
    assert said["before"] is False  # an empty cache: the kernel would have been compiled
    assert said["installed"] is True and said["after"] is True
    assert said["compiled"] == []  # nothing compiled: every game played by the shipped code
    # the same totals as this process's kernel (compiled here, or installed by the suite's warming)
    from py421.core.rules import Ruleset
    from py421.sim.simulate import Simulation, run

    here = run(Simulation(Ruleset.preset("classic-11"), ("heuristic", "heuristic"), 3_000, 5))
    assert said["counts"] == [int(c) for c in here]


# A machine whose numba cache is empty: a vector environment made and stepped, as a learner's first one;
# prints what numba compiled meanwhile and what the games gave.
FRESH_VECTOR = """
import json
import numpy as np
from numba.core.registry import CPUDispatcher
from py421.envs.vector import MultiAgentVector, random_actions
from py421.sim.fast import counter_dice, kernel, maxn, policy, steps

vec = MultiAgentVector(16, "vache-41", 3, seed=5)
vec.reset()
rng = np.random.default_rng(5)
rewards = np.zeros(3)
for _ in range(200):
    rewards += vec.step(random_actions(vec.action_masks(), rng)).rewards.sum(axis=0)
compiled = sorted(
    f"{m.__name__}.{name}"
    for m in (steps, kernel, counter_dice, maxn, policy)
    for name, d in vars(m).items()
    if isinstance(d, CPUDispatcher) and sum(d.stats.cache_misses.values())
)
print(json.dumps({"compiled": compiled, "rewards": rewards.tolist()}))
"""


def test_a_first_vector_environment_on_a_fresh_machine_steps_without_compiling(tmp_path: Path):
    """The step kernel ships with the simulator's: a learner's first environment does not wait a
    minute for numba, and its games are this process's own (compiled here, or installed)."""
    if shipped_kernel.made_here() is not None:
        pytest.skip(f"the shipped kernel cannot serve here: {shipped_kernel.made_here()}")
    pytest.importorskip("gymnasium")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "PY421_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", FRESH_VECTOR], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout.splitlines()[-1])
    assert said["compiled"] == []
    here = subprocess.run(
        [sys.executable, "-c", FRESH_VECTOR], capture_output=True, text=True, timeout=600, check=True
    )
    assert said["rewards"] == json.loads(here.stdout.splitlines()[-1])["rewards"]


@pytest.mark.parametrize(
    "change",
    [
        {"fingerprint": "0" * 64},
        {"environment": {"numba": "0.1", "llvmlite": "0.1", "python": "cpython-311", "platform": "x"}},
    ],
    ids=["another source", "another numba"],
)
def test_a_kernel_made_from_anything_else_is_not_installed(tmp_path: Path, monkeypatch, change):
    if shipped_kernel.manifest() is None:
        pytest.skip("no kernel shipped")
    shipped = tmp_path / "shipped"
    shutil.copytree(shipped_kernel.SHIPPED, shipped)
    manifest = json.loads((shipped / "manifest.json").read_text())
    (shipped / "manifest.json").write_text(json.dumps({**manifest, **change}))
    monkeypatch.setattr(shipped_kernel, "SHIPPED", shipped)
    assert shipped_kernel.made_here() is not None
    assert shipped_kernel.install() is False


def test_nothing_shipped_installs_nothing(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(shipped_kernel, "SHIPPED", tmp_path / "none")
    assert shipped_kernel.made_here() == "none shipped"
    assert shipped_kernel.install() is False


def test_the_shipped_kernel_spares_the_compiling(tmp_path: Path):
    """A run whose cache lacks the kernel but can install the shipped one starts no compiling."""
    marker = tmp_path / "compiled"
    found = iter([False, True])  # missing, then there once installed
    compiling.compile_apart(
        cached=lambda: next(found),
        shipped=lambda: True,
        command=[sys.executable, "-c", f"open({str(marker)!r}, 'w').close()"],
    )
    assert not marker.exists()
    compiling.compile_apart(
        cached=lambda: False,
        shipped=lambda: False,
        command=[sys.executable, "-c", f"open({str(marker)!r}, 'w').close()"],
    )
    assert marker.exists()  # nothing shipped serves: compiled apart, as before
