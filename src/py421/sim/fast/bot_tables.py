"""The two-player optimal bot's tables, built once per machine and kept on disk.

Where every throw adds to the stake (``lyonnaise-21``, ``vache-41``) a
position's decisions depend on the stake too, and games reach nearly every
position: building them as games ask would take each process minutes. So
every position is built once, on several processes, and saved beside the
solved game; each process of a simulation then loads the file.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ...core.rules import Ruleset
from ...solver.solutions import cache_path
from .optimal_tables import OptimalPositions
from .policy import HEADER

FORMAT = 3  # bump when the tables' layout or meaning changes
Progress = Callable[[int, int], None]


def tables_path(rules: Ruleset) -> Path:
    from ...paths import data_dir

    solved = cache_path(rules, data_dir() / "solver")
    return solved.with_name(solved.stem.replace("heads-up", f"optimal-tables-{FORMAT}") + ".npz")


def load(positions: OptimalPositions) -> bool:
    """Fill ``positions`` from the file, if the tables were built on this machine."""
    path = tables_path(positions.rules)
    if not path.exists():
        return False
    with np.load(path) as data:
        index, actions = data["index"], data["actions"]
    if index.shape != positions.index.shape:  # an older layout: build as games ask
        return False
    positions.index[:] = index
    positions.actions, positions.used = actions, actions.size
    positions.built = int((index[HEADER : HEADER + positions.positions] >= 0).sum())
    return True


def build_tables(rules: Ruleset, workers: int, progress: Progress | None = None) -> Path:
    """Every position built on ``workers`` processes and saved (nothing to do once saved)."""
    path = tables_path(rules)
    if path.exists():
        return path
    whole = OptimalPositions(rules)
    codes = whole.codes()
    parts = [codes[i :: 8 * workers] for i in range(8 * workers)]  # small parts: a steady progress
    done = 0
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        for future in as_completed([pool.submit(_build, rules, part) for part in parts]):
            index, actions, built = future.result()
            whole.merge(index, actions)
            done += built
            if progress:
                progress(done, len(codes))
    path.parent.mkdir(exist_ok=True)  # a solution that came with py421 made no folder here
    tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")  # runs started together do not collide
    np.savez_compressed(tmp, index=whole.index, actions=whole.actions[: whole.used])
    tmp.replace(path)
    return path


def _build(rules: Ruleset, codes: list[int]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int8], int]:
    """Build some positions in a worker process: its index and actions, and how many."""
    positions = OptimalPositions(rules)
    for code in codes:
        positions.build(code)
    return positions.index, positions.actions[: positions.used], positions.built
