"""A bot level added by its class and one registry entry plays wherever a bot plays."""

from __future__ import annotations

import json
from collections.abc import Iterator

import numpy as np
import pytest
from click.testing import CliRunner

from py421.cli import main
from py421.core.actions import Action, Stop
from py421.core.errors import InvalidParameter, InvalidPlayers
from py421.core.rules import Ruleset
from py421.core.state import State
from py421.page.handler import handle
from py421.page.local import LocalTables
from py421.players import BotLevel, HeuristicBot, accepted, levels, make_bot, register, unregister
from py421.server import protocol as p
from py421.sim.simulate import Simulation
from py421.sim.simulate import run as simulate

from .server_helpers import played_out, serving


class Cautious:
    """Stops as soon as the rules let it; else throws its first legal throw."""

    def choose(self, state: State) -> Action:
        legal = state.legal_actions()
        return Stop() if Stop() in legal else legal[0]


def cautious_bot(seed: str) -> Cautious:
    return Cautious()


CAUTIOUS = BotLevel(
    "cautious",
    cautious_bot,
    names={"en": "Cautious {n}", "fr": "Prudent {n}"},
    about={"en": "stops at its first result", "fr": "s'arrête à son premier résultat"},
)


@pytest.fixture
def cautious() -> Iterator[BotLevel]:
    register(CAUTIOUS)
    yield CAUTIOUS
    unregister(CAUTIOUS.key)


def test_a_registered_bot_plays_in_the_terminal_in_both_languages(cautious, private_home):
    for lang, name in (("en", "Cautious 1"), ("fr", "Prudent 1")):
        result = CliRunner().invoke(
            main,
            ["play", "--players", "Ana,bot:cautious,bot:heuristic", "--seed", "3", "--lang", lang],
            input="\n" * 2_000,
        )
        assert result.exit_code == 0, result.output
        assert name in result.output and ("game over" in result.output or "fin de la partie" in result.output)


def test_a_registered_bot_without_a_compiled_twin_is_simulated_through_the_engine(cautious):
    result = CliRunner().invoke(
        main, ["simulate", "--players", "bot:cautious,bot:heuristic", "--games", "300", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert "bot:cautious: no compiled twin in the fast simulator" in result.stderr
    data = json.loads(result.stdout)
    assert (data["games"], data["played_by"], data["workers"]) == (300, "engine", 1)
    assert data["players"] == ["bot:cautious", "bot:heuristic"]
    assert sum(seat["losses"] for seat in data["seats"]) >= 300  # somebody lost each game


@pytest.mark.parametrize("preset", ["classic-11", "vache-41"])
def test_the_engine_counts_a_simulation_as_the_compiled_simulator_does(preset):
    """The heuristic bot registered again without its twin: played through the engine, the same dice
    give the same counts as the kernel's bot:heuristic, to the last throw."""
    register(BotLevel("plain-heuristic", lambda seed: HeuristicBot(), CAUTIOUS.names, CAUTIOUS.about))
    try:
        rules = Ruleset.preset(preset)
        engine = Simulation(rules, ("plain-heuristic", "heuristic"), 150, seed=5, batch=60)
        kernel = Simulation(rules, ("heuristic", "heuristic"), 150, seed=5, batch=60)
        assert not engine.compiled and kernel.compiled
        np.testing.assert_array_equal(simulate(engine, workers=2), simulate(kernel, workers=1))
    finally:
        unregister("plain-heuristic")


def test_a_registered_bot_takes_a_seat_at_an_online_table(cautious, tmp_path):
    with serving(f"sqlite:///{tmp_path}/s.db") as client:
        final = played_out(client, seats=["human", "bot:cautious"])
        assert final["view"]["outcome"] is not None
        assert [seat["name"] for seat in final["table"]["seats"]] == ["Alice", "Cautious 1"]
        refused = client.post(
            "/api/tables", json={"rules": "classic-11", "seats": ["human", "bot:nope"], "name": "A"}
        )
        assert refused.status_code == 400 and "bot:cautious" in refused.text  # named among those accepted
        offered = [p.BotOffer.model_validate(offer) for offer in client.get("/api/bots").json()]
    assert [offer.spec for offer in offered] == ["bot:random", "bot:heuristic", "bot:optimal", "bot:cautious"]
    assert offered[3].names == {"en": "Cautious", "fr": "Prudent"} and not offered[3].offline


def test_the_page_with_no_server_offers_the_levels_that_play_there_and_refuses_the_others(cautious):
    """Python in the page lists the levels as a server does; a seat of one that needs a server
    (the optimal bot's solvers, or a level that did not say it plays offline) is refused."""
    answer = json.loads(
        handle(json.dumps({"op": "http", "method": "GET", "path": "/api/bots", "lang": "en"}))
    )
    offline = [offer["spec"] for offer in answer["data"] if offer["offline"]]
    assert offline == ["bot:random", "bot:heuristic"]
    tables = LocalTables()
    for spec in ("bot:optimal", "bot:cautious"):
        status, data, _ = tables.request(
            "POST", "/api/tables", {"rules": "classic-11", "seats": ["human", spec], "name": "Ana"}
        )
        assert status == 400 and data["detail"]["message"] == (
            f"{spec} plays only at a server's tables; on this phone: bot:random, bot:heuristic"
        )


def test_a_level_is_listed_after_py421s_own_and_gone_once_removed(cautious):
    assert [level.key for level in levels()] == ["random", "heuristic", "optimal", "cautious"]
    assert accepted() == "bot:random, bot:heuristic, bot:optimal, bot:cautious"
    assert isinstance(make_bot("cautious", "s"), Cautious)
    unregister("cautious")
    with pytest.raises(
        InvalidPlayers, match="unknown bot 'bot:cautious'; accepted: bot:random, bot:heuristic"
    ):
        make_bot("cautious", "s")
    register(CAUTIOUS)  # for the fixture to remove


@pytest.mark.parametrize(
    ("level", "said"),
    [
        (
            BotLevel("heuristic", cautious_bot, CAUTIOUS.names, CAUTIOUS.about),
            "bot:heuristic is already a bot level",
        ),
        (BotLevel("Bad key", cautious_bot, CAUTIOUS.names, CAUTIOUS.about), "lowercase letter"),
        (BotLevel("mute", cautious_bot, {"en": "Mute {n}"}, CAUTIOUS.about), "bot:mute has no names in fr"),
        (BotLevel("plain", cautious_bot, {"en": "Plain", "fr": "Simple"}, CAUTIOUS.about), "holds {n}"),
    ],
    ids=["taken", "key", "language", "number"],
)
def test_a_level_that_would_be_ambiguous_or_unnamed_is_refused(level, said):
    with pytest.raises(InvalidParameter, match=said.replace("{", r"\{").replace("}", r"\}")):
        register(level)
    assert level not in levels()
