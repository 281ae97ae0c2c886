"""A trained policy seated as a bot (``421 --bot NAME=FILE``): in the terminal, a simulation, online."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from py421.cli import main
from py421.core.actions import Action, ChooseStake, Stop, Throw
from py421.core.chance import SeededDice
from py421.core.errors import IllegalAction, InvalidParameter
from py421.core.game import Game
from py421.core.rules import Ruleset
from py421.core.state import State
from py421.envs.policy_seat import PolicyPlayer, load_policy, register_policy
from py421.players import HeuristicBot, levels, unregister
from py421.server.app import create_app
from py421.sim.loop import play_out

from .server_helpers import create, played_out, serving, start

# Throws every die it may again until it must stop: a policy as a file, as training leaves one
GREEDY = """
import numpy as np


def policy(observation, mask):
    return int(np.flatnonzero(mask)[-1])
"""


@pytest.fixture
def greedy(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "greedy.py"
    path.write_text(GREEDY, encoding="utf-8")
    yield path
    unregister("greedy")  # what a command line registered in this process


def test_a_policy_file_takes_a_seat_in_the_terminal_in_both_languages(greedy):
    for lang, said in (("en", "Greedy 1 throws"), ("fr", "Greedy 1 lance")):
        unregister("greedy")
        result = CliRunner().invoke(
            main,
            [
                "--bot",
                f"greedy={greedy}",
                "play",
                "--players",
                "Ana,bot:greedy",
                "--seed",
                "3",
                "--lang",
                lang,
            ],
            input="\n" * 2_000,
        )
        assert result.exit_code == 0, result.output
        assert said in result.output


def test_a_policy_file_is_simulated_through_the_engine(greedy):
    result = CliRunner().invoke(
        main,
        [
            "--bot",
            f"greedy={greedy}",
            "simulate",
            "--players",
            "bot:greedy,bot:heuristic",
            "--games",
            "200",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["games"], data["played_by"], data["players"]) == (
        200,
        "engine",
        ["bot:greedy", "bot:heuristic"],
    )


def test_a_registered_policy_plays_at_an_online_table_and_is_offered_there(greedy, tmp_path):
    register_policy("greedy", greedy)
    with serving(f"sqlite:///{tmp_path}/s.db") as client:
        final = played_out(client, seats=["human", "bot:greedy"])
        assert final["view"]["outcome"] is not None
        assert [seat["name"] for seat in final["table"]["seats"]] == ["Alice", "Greedy 1"]
        offered = {offer["spec"]: offer for offer in client.get("/api/bots").json()}
    assert offered["bot:greedy"]["about"]["en"] == "a trained policy (greedy.py)"


class Hasty:
    """Stops whenever it may, else throws the three dice again; at a « main chaude », est."""

    def choose(self, state: State) -> Action:
        assert state.round is not None
        if state.round.tie is not None:
            return ChooseStake("est")
        return Stop() if Stop() in state.legal_actions() else Throw(())


def hasty(observation: Any, mask: Any) -> int:
    """The same as a policy of Game-v0's actions: 0 stops (est at a « main chaude »), 7 throws all."""
    return 0 if mask[0] else 7


@pytest.mark.parametrize("preset", ["classic-11", "vache-41", "engranjeu-21"])
def test_a_policy_seated_plays_the_engine_moves_its_actions_name(preset):
    """The seat's observation in, Game-v0's action out, the engine's move played: the same games as
    the bot that makes those moves itself, from the same dice."""
    rules = Ruleset.preset(preset).with_options(charge_throws=3)
    for i in range(30):
        seated = Game(rules, ["A", "B"])
        play_out(seated, [PolicyPlayer(hasty), HeuristicBot()], SeededDice(f"hasty-{i}"))
        itself = Game(rules, ["A", "B"])
        play_out(itself, [Hasty(), HeuristicBot()], SeededDice(f"hasty-{i}"))
        assert seated.states == itself.states


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (None, "no such policy file"),
        ("x = 1\n", "defines no policy(observation, mask) to call"),
        ("raise RuntimeError('no model here')\n", "could not be run: RuntimeError: no model here"),
    ],
    ids=["missing", "no-policy", "failing"],
)
def test_a_file_that_is_no_policy_is_refused_saying_why(tmp_path, text, said):
    path = tmp_path / "policy.py"
    if text is not None:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(InvalidParameter, match=re.escape(said)):
        load_policy(path)
    result = CliRunner().invoke(main, ["--bot", f"mine={path}", "play"])
    assert result.exit_code == 2 and said in result.output
    assert "mine" not in {level.key for level in levels()}


def test_a_policy_answering_an_action_that_does_not_exist_is_named(tmp_path):
    path = tmp_path / "wild.py"
    path.write_text("def policy(observation, mask):\n    return 9\n", encoding="utf-8")
    player = PolicyPlayer(load_policy(path), "the policy of bot:wild")
    game = Game(Ruleset.preset("classic-11").with_options(charge_throws=3), ["A", "B"])
    with pytest.raises(
        IllegalAction, match="the policy of bot:wild returned 9; a policy returns an action 0 to 7"
    ):
        play_out(game, [player, player], SeededDice("wild"))


def test_a_bot_spec_without_its_file_is_refused_in_one_line():
    result = CliRunner().invoke(main, ["--bot", "greedy", "play"])
    assert result.exit_code == 2
    assert (
        "'greedy': write --bot NAME=FILE, for example --bot learned=runs/classic-11/bot.py" in result.output
    )


def test_a_table_whose_policy_the_restarted_server_lacks_says_how_to_resume_it(greedy, tmp_path):
    """A server started again without the --bot its table was made with: the table is kept as it is
    and refused saying what to start the server with, never a server error; with it, it resumes."""
    url = f"sqlite:///{tmp_path}/s.db"
    register_policy("greedy", greedy)
    with serving(url) as client:
        created = create(client, seats=["human", "bot:greedy"])
        code, token = created["code"], created["token"]
        start(client, code, token)
    unregister("greedy")
    with TestClient(create_app(url, bot_delay=0)) as client:
        refused = client.get(f"/api/tables/{code}")
        assert refused.status_code == 503, refused.text
        detail = refused.json()["detail"]
        assert detail["error"] == "bad_seats"
        said = "bot:greedy is not a bot level of this server: start it with --bot greedy=FILE to resume"
        assert detail["message"] == f"{said} this table"
    register_policy("greedy", greedy)
    with TestClient(create_app(url, bot_delay=0)) as client:
        assert client.get(f"/api/tables/{code}").json()["status"] == "playing"


def test_a_policy_that_fails_at_an_online_table_is_stood_in_for_and_the_game_goes_on(tmp_path, caplog):
    """A server's own bot level that answers nonsense must not leave its table waiting for ever: the
    heuristic bot plays that move, and the server says so in a line."""
    wild = tmp_path / "wild.py"
    wild.write_text("def policy(observation, mask):\n    return 9\n", encoding="utf-8")
    register_policy("wild", wild)
    try:  # as 421 serve makes it: the policy plays in its worker
        with serving(f"sqlite:///{tmp_path}/s.db", policy_reader=register_policy) as client:
            final = played_out(client, seats=["human", "bot:wild"])
    finally:
        unregister("wild")
    assert final["view"]["outcome"] is not None
    assert "bot:wild could not choose (the policy of bot:wild returned 9; a policy returns" in caplog.text


SLOW = "def policy(observation, mask):\n    while True:\n        pass\n"
GREEDY_TOO = "def policy(observation, mask):\n    return 0\n"
HUNGRY = "def policy(observation, mask):\n    return len(bytearray(1 << 40))\n"


WHERE = """
import os
from pathlib import Path


def policy(observation, mask):
    Path(__file__).with_name("pids").open("a").write(f"{os.getpid()}\\n")
    return 0
"""


def test_a_server_plays_its_operators_policies_in_a_worker_process(tmp_path):
    where = tmp_path / "where.py"
    where.write_text(WHERE, encoding="utf-8")
    register_policy("where", where)
    try:
        with serving(f"sqlite:///{tmp_path}/s.db", policy_reader=register_policy) as client:
            final = played_out(client, seats=["human", "bot:where"])
    finally:
        unregister("where")
    assert final["view"]["outcome"] is not None
    pids = set((tmp_path / "pids").read_text().split())
    assert pids and str(os.getpid()) not in pids  # every move chosen in another process


def test_an_online_policy_chooses_in_a_worker_within_the_budget_and_the_heuristic_stands_in(tmp_path, caplog):
    """A server's policies play in a worker of their own, as bot:optimal does: a move past the
    deadline or past the memory cap is the heuristic bot's, and the next move is asked afresh."""
    from py421.server.policy_seats import PolicyBots
    from py421.server.worker import Budget

    files = {}
    for name, body in (("slow", SLOW), ("fine", GREEDY_TOO), ("hungry", HUNGRY)):
        files[name] = tmp_path / f"{name}.py"
        files[name].write_text(body, encoding="utf-8")
    bots = PolicyBots(files, Budget(memory_mb=512), register_policy)  # 5 s a move, past the worker's start
    state = Game(Ruleset.preset("lyonnaise-21"), ["A", "B"]).state.apply_dice("642")
    try:
        assert bots.choose_now("slow", state) == HeuristicBot().choose(state)
        assert "bot:slow could not choose (timeout)" in caplog.text
        assert bots.choose_now("fine", state) == Stop()  # a fresh worker: its own answer
        assert bots.choose_now("hungry", state) == HeuristicBot().choose(state)
        assert "bot:hungry could not choose (" in caplog.text
        assert bots.choose_now("fine", state) == Stop()
    finally:
        bots.close()


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("def policy(observation, mask):\n    raise ValueError('boom')\n", "failed: ValueError: boom"),
        (
            "def policy(observation):\n    return 0\n",
            "failed: TypeError: policy() takes 1 positional argument",
        ),
        ("import sys\n\ndef policy(observation, mask):\n    sys.exit(3)\n", "failed: SystemExit: 3"),
    ],
    ids=["raises", "signature", "exits"],
)
def test_a_policy_that_fails_in_a_command_is_said_in_one_line(tmp_path, body, said):
    path = tmp_path / "broken.py"
    path.write_text(body, encoding="utf-8")
    try:
        args = [
            "--bot",
            f"broken={path}",
            "simulate",
            "--players",
            "bot:broken,bot:heuristic",
            "--games",
            "20",
        ]
        result = CliRunner().invoke(main, args)
    finally:
        unregister("broken")
    assert result.exit_code == 2, result.output
    assert f"the policy of bot:broken {said}" in result.output and "Traceback" not in result.output


def test_a_policy_file_that_exits_as_it_is_read_is_refused(tmp_path):
    path = tmp_path / "exits.py"
    path.write_text("import sys\nsys.exit(0)\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["--bot", f"exits={path}", "play"])
    assert result.exit_code == 2 and "could not be run: SystemExit: 0" in result.output


def test_a_policys_prints_go_to_the_error_stream_and_json_stays_json(tmp_path):
    path = tmp_path / "chatty.py"
    path.write_text(
        "print('loading')\n\ndef policy(observation, mask):\n    print('hm')\n    return 0\n", "utf-8"
    )
    try:
        args = ["--bot", f"chatty={path}", "simulate", "--players", "bot:chatty,bot:heuristic", "--games=20"]
        result = CliRunner().invoke(main, [*args, "--json"])
    finally:
        unregister("chatty")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["games"] == 20
    assert "hm" in result.stderr


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("human", "human names a person's seat, not a bot level"),
        ("heuristic", "bot:heuristic is already a bot level (taken: bot:random, bot:heuristic, bot:optimal)"),
    ],
)
def test_a_name_a_seat_already_means_is_refused(greedy, name, said):
    result = CliRunner().invoke(main, ["--bot", f"{name}={greedy}", "play"])
    assert result.exit_code == 2 and said in result.output


def test_a_folder_is_no_policy_file(tmp_path):
    result = CliRunner().invoke(main, ["--bot", f"x={tmp_path}", "play"])
    assert result.exit_code == 2 and f"{tmp_path} is a folder, not a policy file" in result.output
