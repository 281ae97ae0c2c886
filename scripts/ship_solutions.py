"""Solve the presets into src/py421/solver/shipped/, the solutions that come with py421.

Two players for every preset, and the whole game of three players where the solver settles it;
each file is listed in index.json, and tests/test_shipped_solutions.py solves each one again.
Run it again when a preset, or the format of a solver's files, changes:

    .venv/bin/python scripts/ship_solutions.py
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from py421.core.rules import Ruleset, preset_names
from py421.solver import heads_up, shipped, solutions
from py421.solver.heads_up_game import carries_over
from py421.solver.shipped import SHIPPED, Shipped

THREE = ("classic-11", "kytionnaire")  # whole at three players in well under a minute each


def main() -> None:
    index: list[Shipped] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        # solved here from nothing: what is shipped now is not read meanwhile
        shipped.SHIPPED = folder / "nothing shipped"  # (SHIPPED, imported above, is where they go)
        for name in preset_names():
            rules = Ruleset.preset(name)
            if heads_up.unsupported(rules) is not None or carries_over(rules):
                print(f"{name}, 2 players: not shipped (its game is solved manche by manche)")
                continue
            began = time.perf_counter()
            solutions.solve_cached(rules, folder=folder)
            path = solutions.cache_path(rules, folder)
            index.append({"file": path.name, "kind": "heads-up", "preset": name, "players": 2})
            print(f"{name}, 2 players: {time.perf_counter() - began:.1f} s")
        for name in THREE:
            rules = Ruleset.preset(name)
            began = time.perf_counter()
            game, _ = solutions.solve_maxn_cached(rules, 3, folder=folder)
            if not all(s.converged for s in game.manches.values()):
                print(f"{name}, 3 players: not settled, not shipped")
                continue
            path = solutions.maxn_cache_path(rules, 3, folder)
            index.append({"file": path.name, "kind": "game-maxn", "preset": name, "players": 3})
            print(f"{name}, 3 players: {time.perf_counter() - began:.1f} s")
        SHIPPED.mkdir(exist_ok=True)
        for old in SHIPPED.glob("*.npz"):
            old.unlink()
        for entry in index:
            (SHIPPED / entry["file"]).write_bytes((folder / entry["file"]).read_bytes())
    (SHIPPED / "index.json").write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    total = sum((SHIPPED / e["file"]).stat().st_size for e in index)
    print(f"{len(index)} files, {total / 1e3:.0f} kB in {SHIPPED}")


if __name__ == "__main__":
    main()
