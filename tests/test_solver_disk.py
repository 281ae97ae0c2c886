"""The solves kept on disk: a server that solves the rules of every new table does not fill its disk."""

from __future__ import annotations

import os
from pathlib import Path

from py421.core.rules import Ruleset
from py421.solver import solutions
from py421.solver.solutions import cache_path, solve_cached


def test_the_two_player_solves_least_lately_used_are_dropped_past_the_bytes_kept(tmp_path: Path, monkeypatch):
    """Each new ruleset a table is made with is one more file (its options are the file's name):
    past :data:`KEPT_BYTES` the least lately read or written go, whole games of three never."""
    a, b, c = (Ruleset.preset("tim").with_settings([f"pot={pot}"]) for pot in (3, 4, 5))
    whole = tmp_path / "game-maxn-3-0123456789abcdef0123.npz"  # hours to solve: never dropped
    whole.write_bytes(b"\0" * 4096)
    os.utime(whole, (1, 1))
    solve_cached(a, folder=tmp_path)
    solve_cached(b, folder=tmp_path)
    paths = {rules: cache_path(rules, tmp_path) for rules in (a, b, c)}
    os.utime(paths[a], (1000, 1000))  # a was solved first, b after it
    os.utime(paths[b], (2000, 2000))
    two = paths[a].stat().st_size + paths[b].stat().st_size
    monkeypatch.setattr(solutions, "KEPT_BYTES", two + paths[a].stat().st_size // 2)
    assert solve_cached(a, folder=tmp_path)[1]  # a read again: now the latest used
    assert not solve_cached(c, folder=tmp_path)[1]  # solved: three files are more than is kept
    assert paths[a].exists() and paths[c].exists() and whole.exists()
    assert not paths[b].exists()
    again, cached = solve_cached(b, folder=tmp_path)  # solved again when asked
    assert not cached and again.decharge.shape == solve_cached(b, folder=tmp_path)[0].decharge.shape
