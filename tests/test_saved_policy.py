"""Policies saved as data (``py421.envs.saved_policy``) seated as ``bot:policy:PATH``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from py421.cli import main
from py421.cli.common import seat_policies
from py421.core import new_game
from py421.core.chance import SeededDice
from py421.core.errors import InvalidParameter, InvalidPlayers
from py421.core.game import Game
from py421.core.rules import Ruleset
from py421.envs.features import Features
from py421.envs.observation import NUM_ACTIONS, ObservationEncoder, action_mask, gym_mask
from py421.envs.policy_seat import PolicyPlayer, register_policy
from py421.envs.saved_policy import ActionSet, load_saved_policy, save_network, save_table
from py421.players import HeuristicBot, unregister
from py421.players.registry import bot_level, parse_bot, unregister_family
from py421.sim.loop import play_out

from .server_helpers import create, serving

RULES = Ruleset.preset("classic-11")


def _network(
    path: Path, rules: Ruleset = RULES, players: int = 2, actions: ActionSet = "all", seed: int = 0
) -> None:
    """A small random perceptron with its observations normalised, as a torch policy exports one."""
    rng = np.random.default_rng(seed)
    size = ObservationEncoder(rules, players).size
    outputs = NUM_ACTIONS if actions == "all" else 8
    layers = [
        (rng.normal(size=(size, 16)), rng.normal(size=16)),
        (rng.normal(size=(16, outputs)), np.zeros(outputs)),
    ]
    normalise = (rng.normal(size=size), rng.random(size) + 0.5, 10.0, 1e-8)
    save_network(path, layers, rules, players, actions, "tanh", normalise, about={"trained": "by a test"})


@pytest.fixture
def family():
    """``bot:policy:PATH`` as the commands typed here have it."""
    seat_policies()
    yield
    unregister_family("policy")


def test_a_network_reads_its_observation_as_saved_and_plays_the_legal_action_of_its_largest_logit(tmp_path):
    _network(tmp_path / "net.npz")
    saved = load_saved_policy(tmp_path / "net.npz")
    assert (saved.kind, saved.players, saved.actions, saved.meta["trained"]) == (
        "network",
        2,
        "all",
        "by a test",
    )
    rng = np.random.default_rng(1)
    obs = rng.normal(size=(50, ObservationEncoder(RULES, 2).size)).astype(np.float32)
    masks = rng.random((50, NUM_ACTIONS)) < 0.4
    masks[:, 0] = True
    a = saved.arrays
    x = np.clip((obs - a["obs_mean"]) / np.sqrt(a["obs_var"] + 1e-8), -10, 10)
    logits = np.tanh(x @ a["w0"] + a["b0"]) @ a["w1"] + a["b1"]
    expected = np.argmax(np.where(masks, logits, -np.inf), axis=1)
    assert np.array_equal(saved.batch(obs, masks), expected)
    assert all(masks[i, saved(obs[i], masks[i].astype(np.int8))] for i in range(50))


@pytest.mark.parametrize("actions", ["all", "gym"])
def test_a_saved_network_plays_whole_games_in_the_engine(tmp_path, actions):
    _network(tmp_path / "net.npz", actions=actions, seed=3)
    saved = load_saved_policy(tmp_path / "net.npz")
    player = PolicyPlayer(saved, actions=saved.actions)
    masks = action_mask if actions == "all" else gym_mask
    for game in range(10):
        state = play_out(Game(RULES, ["N", "H"]), [player, HeuristicBot()], SeededDice(game)).state
        assert state.outcome is not None  # every move it chose was legal: the engine refuses any other
        assert masks(state).sum() == 0  # and the game is over for both


def test_bot_policy_path_takes_a_seat_in_play_and_simulate(tmp_path, family):
    _network(tmp_path / "net.npz")
    spec = f"bot:policy:{tmp_path / 'net.npz'}"
    played = CliRunner().invoke(
        main, ["play", "--plain", "--players", f"Ana,{spec}", "--seed", "4"], "\n" * 2_000
    )
    assert played.exit_code == 0, played.output
    assert "Policy 1" in played.output
    simulated = CliRunner().invoke(
        main, ["simulate", "--players", f"{spec},bot:heuristic", "--games", "60", "--json"]
    )
    assert simulated.exit_code == 0, simulated.output
    data = json.loads(simulated.stdout)
    assert (data["games"], data["played_by"], data["players"][0]) == (60, "engine", spec)


def test_a_saved_policy_refuses_a_game_it_did_not_learn(tmp_path, family):
    _network(tmp_path / "net.npz")
    spec = f"bot:policy:{tmp_path / 'net.npz'}"
    other = CliRunner().invoke(
        main, ["simulate", "--rules", "vache-41", "--players", f"{spec},bot:heuristic"]
    )
    assert other.exit_code != 0
    said = "net.npz learned classic-11, 2 players; this table is vache-41, 2 players"
    assert said in other.output and "a policy plays only the game it learned" in other.output
    three = CliRunner().invoke(main, ["play", "--plain", "--players", f"Ana,Bob,{spec}"], "\n" * 10)
    assert three.exit_code != 0 and "this table is classic-11, 3 players" in three.output
    pot = CliRunner().invoke(main, ["simulate", "--set", "pot=9", "--players", f"{spec},bot:random"])
    assert pot.exit_code != 0 and "classic-11 (pot=9), 2 players" in pot.output


def test_a_policy_from_other_observations_is_refused_saying_to_train_it_again(tmp_path):
    _network(tmp_path / "net.npz")
    with np.load(tmp_path / "net.npz") as data:
        arrays = {name: data[name] for name in data.files}
    meta = json.loads(str(arrays.pop("meta")))
    np.savez(tmp_path / "old.npz", meta=json.dumps({**meta, "observation": 0}), **arrays)
    with pytest.raises(
        InvalidParameter, match="observations of version 0; py421 now gives version 1: train it"
    ):
        load_saved_policy(tmp_path / "old.npz")


@pytest.mark.parametrize(
    ("arrays", "said"),
    [
        ({"q": np.zeros(3)}, "it has no 'meta'"),
        ({"meta": np.array("[1, 2]")}, "its meta is not a JSON object"),
        ({"meta": np.array("{")}, "its meta cannot be read: JSONDecodeError"),
        (
            {"meta": np.array(json.dumps({"format": "other", "version": 1}))},
            "its format is 'other' 1, not 'py421-policy' 1",
        ),
    ],
)
def test_an_archive_that_is_no_policy_is_refused_saying_why(tmp_path, arrays, said):
    np.savez(tmp_path / "x.npz", **arrays)
    with pytest.raises(InvalidParameter, match="is not a py421 policy") as caught:
        load_saved_policy(tmp_path / "x.npz")
    assert said in str(caught.value)


def test_a_network_whose_layers_do_not_fit_is_refused_before_it_plays(tmp_path):
    size = ObservationEncoder(RULES, 2).size
    save_network(tmp_path / "a.npz", [(np.zeros((size, 4)), np.zeros(4))], RULES, 2)  # 4 outputs, not 17
    with pytest.raises(InvalidParameter, match="4 outputs for 17 actions"):
        load_saved_policy(tmp_path / "a.npz")
    save_network(tmp_path / "b.npz", [(np.zeros((size + 1, 17)), np.zeros(17))], RULES, 2)
    with pytest.raises(InvalidParameter, match=f"layer 0: w \\({size + 1}, 17\\)"):
        load_saved_policy(tmp_path / "b.npz")
    with pytest.raises(InvalidParameter, match="activation is tanh, relu, not 'sigmoid'"):
        save_network(
            tmp_path / "c.npz", [(np.zeros((size, 17)), np.zeros(17))], RULES, 2, activation="sigmoid"
        )


def test_files_that_are_not_archives_or_not_there_are_refused(tmp_path, family):
    (tmp_path / "junk.npz").write_text("junk")
    with pytest.raises(
        InvalidParameter, match=r"junk.npz is not a numpy \.npz archive py421 can read: not a zip"
    ):
        load_saved_policy(tmp_path / "junk.npz")
    with pytest.raises(InvalidParameter, match="is a folder"):
        load_saved_policy(tmp_path)
    with pytest.raises(InvalidParameter, match="no such policy file"):
        parse_bot(f"bot:policy:{tmp_path / 'none.npz'}")
    with pytest.raises(InvalidPlayers, match="bot:policy: names nothing"):
        parse_bot("bot:policy: ")


def test_a_table_of_action_values_plays_the_best_action_tried_and_stops_where_it_never_was(tmp_path):
    rules = Ruleset.preset("lyonnaise-21")  # three throws in the charge: a decision at the first throw
    state = new_game(rules, ["A", "B"]).apply_dice("642")
    obs = ObservationEncoder(rules, 2).encode(state, 0)[None, :]
    mask = gym_mask(state)[None, :]
    key = Features(rules).keys(obs)
    q = np.array([[0.1, 0.0, 0.0, 0.9, 0.0, 0.0, 0.0, 0.5]])
    visits = np.array([[1, 0, 0, 0, 0, 0, 0, 1]])  # action 3 was never tried: its value is not believed
    save_table(tmp_path / "t.npz", key, q, visits, rules)
    assert load_saved_policy(tmp_path / "t.npz").batch(obs, mask)[0] == 7
    save_table(
        tmp_path / "none.npz", np.zeros(0, np.int64), np.zeros((0, 8)), np.zeros((0, 8), np.int64), rules
    )
    assert load_saved_policy(tmp_path / "none.npz").batch(obs, mask)[0] == 0  # never met: stops


def test_a_table_saved_before_the_format_had_a_name_still_plays(tmp_path):
    np.savez_compressed(
        tmp_path / "old.npz",
        keys=np.array([5], np.int64),
        q=np.zeros((1, 8)),
        visits=np.zeros((1, 8), np.int64),
        meta=json.dumps({"rules": "classic-11", "players": 2}),
    )
    saved = load_saved_policy(tmp_path / "old.npz")
    assert (saved.kind, saved.rules, saved.players, saved.actions) == ("table", RULES, 2, "gym")


def test_a_server_visitor_cannot_name_a_file_of_the_server(tmp_path, monkeypatch):
    """No server registers the family: ``bot:policy:PATH`` is an unknown seat there, whatever the path."""
    _network(tmp_path / "net.npz")
    monkeypatch.chdir(tmp_path)
    unregister_family("policy")  # as in a server's process: none of the commands that register it ran
    with serving(f"sqlite:///{tmp_path}/s.db") as client:
        body = {
            "rules": "classic-11",
            "seats": ["human", "bot:policy:net.npz"],  # there, in the server's folder
            "name": "Alice",
        }
        answer = client.post("/api/tables", json=body)
        assert answer.status_code == 400
        assert answer.json()["detail"]["error"] == "bad_seats", answer.json()
        assert create(client, rules="classic-11")["code"]  # the same body with a seat it knows is made
        assert "bot:policy" not in {offer["spec"] for offer in client.get("/api/bots").json()}


def test_two_files_whose_names_differ_by_case_are_two_bots(tmp_path, family):
    _network(tmp_path / "a.npz", seed=1)
    _network(tmp_path / "A.npz", actions="gym", seed=2)
    lower, upper = (
        parse_bot(f"bot:policy:{tmp_path / 'a.npz'}"),
        parse_bot(f"bot:Policy:{tmp_path / 'A.npz'}"),
    )
    assert lower is not None and upper is not None
    assert lower != upper and upper == f"policy:{tmp_path / 'A.npz'}"
    assert (bot_level(lower).source, bot_level(upper).source) == (
        str(tmp_path / "a.npz"),
        str(tmp_path / "A.npz"),
    )


def _empty_table(path: Path, rules: Ruleset = RULES) -> None:
    """A table that met no position (it stops everywhere): enough to be seated."""
    save_table(path, np.zeros(0, np.int64), np.zeros((0, 8)), np.zeros((0, 8), np.int64), rules)


def test_game_v0_refuses_a_saved_policy_opponent_that_learned_another_game(tmp_path):
    from py421.envs.gym_game import GameEnv

    _empty_table(tmp_path / "policy.npz")
    _network(tmp_path / "net.npz")  # the 17 actions, as export_policy saves a model of vec_env
    table, net = load_saved_policy(tmp_path / "policy.npz"), load_saved_policy(tmp_path / "net.npz")
    said = "policy.npz learned classic-11, 2 players; this table is vache-41, 2 players: a policy plays only"
    with pytest.raises(InvalidPlayers, match=said):
        GameEnv("vache-41", num_players=2, opponents=table)
    with pytest.raises(
        InvalidPlayers, match=r"policy\.npz learned classic-11, 2 players; this table is classic-11, 3"
    ):
        GameEnv("classic-11", num_players=3, opponents=table)
    with pytest.raises(
        InvalidPlayers, match=r"net\.npz learned classic-11, 2 players; this table is classic-11, 3"
    ):
        GameEnv("classic-11", num_players=3, opponents=["heuristic", net])
    with pytest.raises(InvalidPlayers, match=r"classic-11 \(pot=9\), 2 players"):
        GameEnv("classic-11", num_players=2, opponents=net, pot=9)
    register_policy("learned", tmp_path / "policy.npz")  # a bot level made of a saved policy
    try:
        with pytest.raises(InvalidPlayers, match=said):
            GameEnv("vache-41", num_players=2, opponents="learned")
    finally:
        unregister("learned")
    for opponent in (table, net):  # the game they learned: they play, in their own actions
        env = GameEnv("classic-11", num_players=2, opponents=opponent)
        env.reset(seed=0)
        over = False
        while not over:  # a whole game: the policy answers at every decision of its seat
            over = bool(env.step(np.int64(0))[2])


def test_saved_policies_are_read_from_a_path_given_as_text(tmp_path):
    _network(tmp_path / "net.npz")
    assert load_saved_policy(str(tmp_path / "net.npz")).kind == "network"
    level = register_policy("textpath", str(tmp_path / "net.npz"))
    try:
        assert level.key == "textpath" and level.source == str(tmp_path / "net.npz")
    finally:
        unregister("textpath")


@pytest.mark.parametrize("name", ["curve.csv", "policy.bin", "policy"])
def test_a_policy_file_is_a_npz_or_a_python_file_and_nothing_else_is_run(tmp_path, family, name):
    path = tmp_path / name
    if name == "curve.csv":
        path.write_text("seconds,rate\n1,0.5\n")
    else:  # a saved archive renamed
        _network(tmp_path / "net.npz")
        (tmp_path / "net.npz").rename(path)
    said = r"a policy file is a \.npz .* or a \.py file"
    with pytest.raises(InvalidParameter, match=said) as caught:
        parse_bot(f"bot:policy:{path}")
    assert name in str(caught.value)
    with pytest.raises(InvalidParameter, match=said):
        register_policy("renamed", path)
