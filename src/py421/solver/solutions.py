"""Solved two-player games kept on disk, so a ruleset is solved once per machine."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from ..core.rules import Ruleset
from ..paths import data_dir
from .heads_up import HeadsUp

FORMAT = 3  # bump when the solver's results change meaning


def cache_path(rules: Ruleset, folder: Path) -> Path:
    key = json.dumps({"format": FORMAT, "options": rules.options()}, sort_keys=True)
    return folder / f"heads-up-{hashlib.sha256(key.encode()).hexdigest()[:20]}.npz"


def solve_cached(
    rules: Ruleset,
    progress: Callable[[str, int], None] | None = None,
    folder: Path | None = None,
) -> tuple[HeadsUp, bool]:
    """The solved two-player values of ``rules``, and whether they came from the cache."""
    where = folder or data_dir() / "solver"
    where.mkdir(parents=True, exist_ok=True)
    path = cache_path(rules, where)
    solver = HeadsUp(rules)
    if path.exists():
        with np.load(path) as data:
            solver.decharge = data["decharge"]
            solver.charge = {int(k[7:]): data[k] for k in data.files if k.startswith("charge_")}
            solver.iterations = int(data["iterations"])
        return solver, True
    solver.solve(progress)
    arrays: dict[str, Any] = {f"charge_{pot}": values for pot, values in solver.charge.items()}
    arrays |= {"decharge": solver.decharge, "iterations": np.array(solver.iterations)}
    tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")  # runs started together do not collide
    np.savez(tmp, **arrays)
    tmp.replace(path)
    return solver, False


@cache
def solved(rules: Ruleset) -> HeadsUp:
    """The solved values of a ruleset: from the disk cache, or solved once and kept there."""
    return solve_cached(rules)[0]
