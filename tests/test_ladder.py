"""421 ladder: every pair of bots plays, and the ratings rank them as their games did."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from py421.cli import main
from py421.players import unregister

pytest.importorskip("numba")
pytest.importorskip("openskill")


def ladder(*args: str) -> dict[str, Any]:
    result = CliRunner().invoke(main, ["ladder", *args, "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_the_bots_are_ranked_as_their_games_went():
    data = ladder("--players", "bot:random,bot:heuristic,bot:optimal", "--games", "1000")
    assert [s["level"] for s in data["standings"]] == ["optimal", "heuristic", "random"]
    pairs = {(p["first"], p["second"]): p for p in data["pairings"]}
    assert set(pairs) == {("random", "heuristic"), ("random", "optimal"), ("heuristic", "optimal")}
    for p in pairs.values():
        assert p["games"] == p["first_lost"] + p["second_lost"] + p["shared"] == 1000
    assert all(s["games"] == 2000 for s in data["standings"])
    best, _, worst = data["standings"]
    assert best["score"] > 0.5 > worst["score"] and best["ordinal"] > worst["ordinal"]
    assert ladder("--players", "bot:random,bot:heuristic,bot:optimal", "--games", "1000") == data  # its seed


def test_the_ladder_in_french_and_with_a_seated_policy(tmp_path: Path):
    policy = tmp_path / "hasty.py"
    policy.write_text("def policy(observation, mask):\n    return 0 if mask[0] else 7\n", encoding="utf-8")
    args = ["ladder", "--players=bot:hasty,bot:heuristic", "--games=200", "--lang=fr"]
    try:
        result = CliRunner().invoke(main, ["--bot", f"hasty={policy}", *args])
    finally:
        unregister("hasty")
    assert result.exit_code == 0, result.output
    assert "bot:hasty : pas de jumeau compilé" in result.stderr  # played through the engine, and said
    assert "classement avec classic-11, à deux : 200 parties par paire, graine 0" in result.stdout
    assert "  bot:hasty contre bot:heuristic : " in result.stdout


@pytest.mark.parametrize(
    ("players", "said"),
    [
        ("bot:heuristic", "a ladder takes two bots or more, each once; not bot:heuristic"),
        ("bot:heuristic,bot:heuristic", "each once; not bot:heuristic, bot:heuristic"),
        ("bot:heuristic,Ana", "'Ana' cannot play in a simulation"),
    ],
)
def test_a_ladder_of_fewer_than_two_distinct_bots_is_refused(players, said):
    result = CliRunner().invoke(main, ["ladder", "--players", players, "--games", "10"])
    assert result.exit_code == 2 and said in result.output
    assert "no compiled twin" not in result.output  # refused before anything is said or done


def test_a_ladder_is_refused_in_french_too():
    result = CliRunner().invoke(main, ["ladder", "--players", "bot:heuristic", "--lang", "fr"])
    assert "un classement prend deux bots ou plus, chacun une fois ; pas bot:heuristic" in result.output
