"""Twelve at one table: seeds 000 and 001 set no most players, and a bar table often has ten.

A twelve-player ``classic-11`` game plays to the end in every interface that
seats players; where a bot or a solver has a practical limit, it says so.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from py421.cli import main
from py421.core.errors import InvalidPlayers
from py421.core.game import Game
from py421.core.record import Record
from py421.core.rules import Ruleset
from py421.envs import pettingzoo_env
from py421.envs.gym_game import GameEnv
from py421.play.session import Session, parse_seats
from py421.players.optimal import prepare

from .server_helpers import database_urls, played_out, serving

TWELVE = 12
BOTS = ",".join(["bot:heuristic", "bot:random"] * 5 + ["bot:heuristic"])  # eleven


def test_the_rules_seat_twelve_where_the_seeds_set_no_most():
    for preset in ("classic-11", "lyonnaise-21", "vache-41", "comptoir-21"):
        rules = Ruleset.preset(preset)
        assert rules.seats(TWELVE) and rules.players_range == "2 or more"
    for preset, most in (("kytionnaire", 8), ("engranjeu-21", 8), ("tim", 2)):
        rules = Ruleset.preset(preset)
        assert not rules.seats(most + 1)
        with pytest.raises(
            InvalidPlayers, match=f"{preset} is played by 2 to 8 players, not 9|tim is played"
        ):
            Game(rules, [f"P{i}" for i in range(most + 1)])


def test_the_engine_plays_twelve_to_the_end_and_replays():
    rng = random.Random(12)
    game = Game(Ruleset.preset("classic-11"), [f"P{i}" for i in range(TWELVE)])
    while not game.state.is_over:
        state = game.state
        if state.chance is not None:
            game.throw(tuple(rng.randint(1, 6) for _ in range(state.chance.count)))
        else:
            game.act(rng.choice(state.legal_actions()))
    assert Record.from_json(game.record().to_json()).replay() == game.state


def test_line_mode_play_with_eleven_bots(private_home):
    result = CliRunner().invoke(
        main, ["play", "--players", f"Alice,{BOTS}", "--seed", "12", "--lang", "en"], input="\n" * 20_000
    )
    assert result.exit_code == 0, result.output
    assert "game over" in result.output
    assert "Alice:" in result.output


def test_the_scorekeeper_keeps_twelve(private_home):
    names = ",".join(f"P{i}" for i in range(TWELVE))
    rng = random.Random(12)
    lines = "".join(f"{rng.randint(1, 6)}{rng.randint(1, 6)}{rng.randint(1, 6)}\n" for _ in range(30_000))
    result = CliRunner().invoke(main, ["table", "--players", names, "--lang", "en"], input="h\n" + lines)
    assert result.exit_code == 0, result.output[-2000:]
    assert "hint: rounds are solved for up to 8 players; this one has 12" in result.output
    assert "game over" in result.output


@pytest.mark.asyncio
async def test_the_full_screen_game_with_eleven_bots() -> None:
    from py421.tui import PlayApp
    from py421.tui.screens import EndScreen

    session = Session(Ruleset.preset("classic-11"), parse_seats(["You", *BOTS.split(",")]), seed="twelve")
    app = PlayApp(session, bot_delay=0)
    async with app.run_test(size=(100, 40)) as pilot:
        for _ in range(200_000):
            await pilot.pause()
            if session.state.is_over:
                break
            if session.human_to_throw() is not None:
                await pilot.press("t")
            elif session.human_to_move() is not None:
                r = session.state.round
                await pilot.press("e" if r is not None and r.tie is not None else "s")
        else:
            raise AssertionError("the game did not end")
        await pilot.pause()
        assert isinstance(app.screen, EndScreen)


@pytest.mark.parametrize("url", database_urls(Path("/tmp")))
def test_an_online_table_of_twelve_and_its_scorekeeper_page(url, tmp_path):
    url = url.replace("/tmp/", f"{tmp_path}/") if url.startswith("sqlite") else url
    with serving(url) as client:
        presets = {p["name"]: p for p in client.get("/api/presets").json()}
        assert presets["classic-11"]["no_limit"] and presets["classic-11"]["max_players"] >= TWELVE
        assert presets["engranjeu-21"]["max_players"] == 8
        final = played_out(client, rules="classic-11", seats=["human", *BOTS.split(",")])
        assert final["view"]["outcome"] is not None
        assert len(final["table"]["seats"]) == TWELVE
        names = [f"P{i}" for i in range(TWELVE)]
        body = {"mode": "scorekeeper", "rules": "classic-11", "players": names, "timeout": 0}
        response = client.post("/api/tables", json=body)
        assert response.status_code == 200, response.text
        too_many = client.post("/api/tables", json=body | {"players": [f"P{i}" for i in range(21)]})
        assert too_many.status_code == 400
        assert "an online table seats at most 20 players, not 21" in too_many.text


def test_the_simulator_seats_twelve():
    result = CliRunner().invoke(
        main, ["simulate", "--players", BOTS + ",bot:random", "--games", "300", "--workers", "1", "--json"]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert len(summary["seats"]) == TWELVE
    assert sum(s["losses"] for s in summary["seats"]) >= 300  # every game has a loser (some share)


def test_the_optimal_bot_says_where_it_stops():
    with pytest.raises(InvalidPlayers, match=r"the round solver \(.*\) plays 2 to 8 players, not 12"):
        prepare(Ruleset.preset("classic-11"), TWELVE)
    result = CliRunner().invoke(main, ["play", "--players", f"Alice,bot:optimal,{BOTS[:-14]}"], input="")
    assert result.exit_code == 2
    assert "plays 2 to 8 players, not 12" in result.output


def test_the_reinforcement_learning_environments_seat_twelve():
    env = GameEnv("classic-11", TWELVE, ["heuristic"] * (TWELVE - 1), 0)
    env.reset(seed=12)
    rng = np.random.default_rng(12)
    for _ in range(100_000):
        action = rng.integers(8)  # 0 stops; any other rethrows some dice
        _, _, over, cut, _ = env.step(action)
        if over or cut:
            break
    else:
        raise AssertionError("the Gymnasium game did not end")
    aec = pettingzoo_env("classic-11", TWELVE, seed=12)
    aec.reset(seed=12)
    for _agent in aec.agent_iter(max_iter=500_000):
        observation, _, done, cut, _ = aec.last()
        mask = observation["action_mask"]
        aec.step(None if done or cut else int(rng.choice(np.flatnonzero(mask))))
    assert aec.agents == []


def test_openspiel_seats_twelve():
    pyspiel = pytest.importorskip("pyspiel")
    from py421.envs.openspiel import load

    game = load("classic-11", TWELVE, "")
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)
