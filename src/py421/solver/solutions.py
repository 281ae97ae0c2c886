"""Solved games kept on disk, so a ruleset is solved once per machine.

Two players: :class:`.heads_up.HeadsUp`; three and four: :class:`.game_maxn.GameMaxn`.
"""

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
from . import game_maxn
from .game_maxn import GameMaxn
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


_GAMES: dict[tuple[Ruleset, int], GameMaxn] = {}


def solved_game(rules: Ruleset, players: int, progress: game_maxn.Progress | None = None) -> GameMaxn:
    """The whole game of three or four players solved by max^n: from the disk cache, or solved once
    and kept there (the solve's ``progress`` is only shown when it is not cached)."""
    found = _GAMES.get((rules, players))
    if found is None:
        found = _GAMES[(rules, players)] = game_maxn.solve_cached(rules, players, progress)[0]
    return found


def kept_game(rules: Ruleset, players: int) -> GameMaxn | None:
    """The whole game of three or four players if it was solved on this machine before, else None
    (nothing is solved: for a server, whose budget of time a solve may exceed)."""
    found = _GAMES.get((rules, players))
    if found is None:
        found = game_maxn.load_cached(rules, players)
        if found is not None:
            _GAMES[(rules, players)] = found
    return found
