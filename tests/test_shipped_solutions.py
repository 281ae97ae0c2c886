"""The solutions that come with py421: each one is what a fresh solve finds, and it is read, not solved."""

from __future__ import annotations

import time

import numpy as np
import pytest
from click.testing import CliRunner

from py421.cli import main
from py421.core.rules import Ruleset, preset_names
from py421.paths import data_dir
from py421.solver import solutions
from py421.solver.game_maxn import GameMaxn
from py421.solver.heads_up import HeadsUp
from py421.solver.shipped import SHIPPED, Shipped, shipped

SHIPPED_NOW = shipped()


def test_the_presets_come_solved():
    """Every preset at two players, and classic-11 and kytionnaire whole at three."""
    two = {e["preset"] for e in SHIPPED_NOW if e["players"] == 2}
    assert two == set(preset_names())
    assert {e["preset"] for e in SHIPPED_NOW if e["kind"] == "game-maxn"} == {"classic-11", "kytionnaire"}
    assert sorted(p.name for p in SHIPPED.glob("*.npz")) == sorted(e["file"] for e in SHIPPED_NOW)


@pytest.mark.slow
@pytest.mark.parametrize("entry", SHIPPED_NOW, ids=lambda e: f"{e['preset']}-{e['players']}-{e['kind']}")
def test_each_shipped_solution_is_a_fresh_solve(entry: Shipped):
    """Solved again here from nothing, every value equal to 1e-12; and named as the disk cache
    names these rules, so that it is found (a change of the rules or the format leaves it unread)."""
    rules = Ruleset.preset(entry["preset"])
    path = SHIPPED / entry["file"]
    with np.load(path) as data:
        kept = {name: data[name] for name in data.files}
    if entry["kind"] == "heads-up":
        assert solutions.cache_path(rules, SHIPPED).name == entry["file"]
        fresh = HeadsUp(rules).solve()
        assert np.allclose(kept["decharge"], fresh.decharge, rtol=0, atol=1e-12)
        assert {k for k in kept if k.startswith("charge_")} == {f"charge_{pot}" for pot in fresh.charge}
        for pot, values in fresh.charge.items():
            assert np.allclose(kept[f"charge_{pot}"], values, rtol=0, atol=1e-12)
    else:
        assert entry["kind"] == "game-maxn"
        players = entry["players"]
        assert solutions.maxn_cache_path(rules, players, SHIPPED).name == entry["file"]
        game = GameMaxn(rules, players).solve()
        keys = [(int(k[0]), tuple(int(x) for x in k[1:])) for k in kept["keys"]]
        assert sorted(keys) == sorted(game.manches)
        for i, key in enumerate(keys):
            assert np.allclose(kept[f"values_{i}"], game.manches[key].values, rtol=0, atol=1e-12)
            assert np.allclose(kept[f"ends_{i}"], game.manches[key].ends, rtol=0, atol=1e-12)


@pytest.mark.parametrize(("preset", "players"), [("vache-41", 2), ("classic-11", 3)])
def test_a_new_machine_reads_the_presets_solution_at_once(preset: str, players: int):
    """An empty data folder: « 421 solve » answers from what came with py421, says nothing of
    solving, and keeps nothing (two-player vache-41 took half a minute to solve, three-player
    classic-11 as long)."""
    began = time.process_time()
    result = CliRunner().invoke(main, ["solve", "--rules", preset, "--players", str(players)])
    assert result.exit_code == 0, result.output
    assert "solving" not in result.output
    assert not (data_dir(write=False) / "solver").exists() or not any((data_dir() / "solver").iterdir())
    print(f"{preset}, {players} players: {time.process_time() - began:.2f} s of CPU")
