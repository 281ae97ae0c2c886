"""The PettingZoo environment and the shared encoding: PettingZoo's own checks, then
the same games as the engine, exact observations, rewards and clear errors."""

import re
import subprocess
import sys
import warnings
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import (  # type: ignore[import-untyped]
    api_test,
    parallel_seed_test,
    render_test,
    seed_test,
    state_test,
)
from pettingzoo.utils.conversions import turn_based_aec_to_parallel  # type: ignore[import-untyped]

from py421.core.actions import ChooseStake, Stop, Throw
from py421.core.dice import Result
from py421.core.engine import new_game, throws_allowed
from py421.core.errors import IllegalAction, InvalidParameter, InvalidPlayers, InvalidRuleset
from py421.core.game import Game
from py421.core.rules import Ruleset, preset_names
from py421.envs import ObservationEncoder, action_mask, decode, encode, pettingzoo_env
from py421.envs.gym_game import GameEnv
from py421.envs.observation import NUM_ACTIONS, legal_indices
from py421.envs.picture import PIP_AREA, pip_pixels

from .helpers import doc_table_rows, run, table

RL_DOC = (Path(__file__).parents[1] / "docs" / "rl.md").read_text(encoding="utf-8")

# PettingZoo's checker expects bare arrays; a dict with "observation" and "action_mask"
# is the form PettingZoo recommends for masks, and these two warnings come with it.
DICT_OBSERVATION_WARNINGS = (
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
    "Observation is not a NumPy array",
)

TABLES = [
    ("classic-11", 2),
    ("classic-11", 5),
    ("lyonnaise-21", 3),
    ("vache-41", 2),
    ("kytionnaire", 4),
    ("tim", 2),
    ("comptoir-21", 3),
    ("engranjeu-21", 4),
]


@pytest.mark.parametrize(("preset", "players"), TABLES)
def test_pettingzoo_api_test_passes_without_other_warnings(preset, players):
    env = pettingzoo_env(preset, players, seed=3, render_mode="ansi")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env, num_cycles=1000)
    unexpected = [str(w.message) for w in caught if str(w.message) not in DICT_OBSERVATION_WARNINGS]
    assert unexpected == []


@pytest.mark.parametrize(("preset", "players"), TABLES[::2])
def test_pettingzoo_seed_test_passes(preset, players):
    seed_test(lambda: pettingzoo_env(preset, players), num_cycles=1000)


@pytest.mark.parametrize(("preset", "players"), [("classic-11", 3), ("engranjeu-21", 2)])
def test_pettingzoo_state_test_passes(preset, players):
    """state_test samples actions without the mask: an illegal one ends the game, as in
    PettingZoo's board games; the parallel form is PettingZoo's own for turn-based games."""
    env = pettingzoo_env(preset, players, seed=3, illegal_reward=-1)
    parallel = turn_based_aec_to_parallel(pettingzoo_env(preset, players, seed=3))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        state_test(env, parallel, num_cycles=200)
    assert [str(w.message) for w in caught] == []
    assert parallel.state_space.contains(parallel.state())


def test_an_illegal_action_ends_the_game_when_a_reward_is_set_for_it():
    env = pettingzoo_env("classic-11", 3, seed=1, illegal_reward=-2)
    env.reset()
    agent = env.agent_selection
    assert env.observe(agent)["action_mask"][15] == 0
    env.step(15)  # a stake outside a « main chaude »
    assert all(env.terminations.values())
    assert env.rewards == {a: (-2.0 if a == agent else 0.0) for a in env.possible_agents}


def test_pettingzoo_render_test_passes_in_every_mode(capsys):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        render_test(lambda render_mode: pettingzoo_env("lyonnaise-21", 3, seed=4, render_mode=render_mode))
    assert [str(w.message) for w in caught] == []
    assert "player_" in capsys.readouterr().out  # "human" printed the table


def test_rgb_array_draws_the_dice_on_the_table():
    """Every die on the table is drawn with its pips: the dice in hand and the results of
    the turns already played in the round; the frame keeps its size all game long."""
    env = pettingzoo_env("classic-11", 3, seed=6, render_mode="rgb_array")
    env.reset()
    sizes = set()
    for _ in range(12):
        frame = env.render()
        sizes.add(frame.shape)
        r = env.unwrapped.game.state.round
        shown = sum(r.dice) + sum(sum(t.result.dice) for t in r.done)
        assert pip_pixels(frame) == shown * PIP_AREA
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[-1]))
    assert len(sizes) == 1 and frame.dtype == np.uint8 and frame.shape[2] == 3


def test_an_unknown_render_mode_warns_and_renders_nothing():
    with pytest.warns(UserWarning, match=r"render_mode='rgb_array_list' is not offered, so nothing is"):
        env = pettingzoo_env("classic-11", 2, seed=0, render_mode="rgb_array_list")
    env.reset()
    with pytest.warns(UserWarning, match=r"render\(\) needs a render_mode \(ansi \| human \| rgb_array\)"):
        assert env.render() is None


# -- the same games as the engine --------------------------------------------


def play_env(env, seed, policy_seed):
    """Random legal indices until the end: the engine actions chosen and each agent's rewards."""
    env.reset(seed=seed)
    choose = np.random.default_rng(policy_seed)
    actions = []
    earned: defaultdict[str, float] = defaultdict(float)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        earned[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        index = int(choose.choice(np.flatnonzero(observation["action_mask"])))
        actions.append(decode(env.unwrapped.game.state, index))
        env.step(index)
    return actions, earned


def engine_game(rules, players, seed, actions):
    """The engine alone, with the documented dice: rng.integers(1, 7, size=count) per throw.

    As documented, a game over before any decision is skipped and the next one starts.
    """
    dice = np.random.default_rng(seed)
    moves = iter(actions)
    while True:
        game = Game(rules, [f"player_{s}" for s in range(players)])
        while not game.state.is_over:
            request = game.state.chance
            if request is not None:
                game.throw(tuple(int(f) for f in dice.integers(1, 7, size=request.count)))
            else:
                game.act(next(moves))
        if any(step.kind == "action" for step in game.steps):
            assert next(moves, None) is None
            return game


@pytest.mark.parametrize("preset", preset_names())
@pytest.mark.parametrize("seed", [1, 2])
def test_the_env_plays_the_engines_game_and_rewards_telescope(preset, seed):
    rules = Ruleset.preset(preset)
    players = 2 if preset == "tim" else 3
    env = pettingzoo_env(preset, players)
    actions, earned = play_env(env, seed, policy_seed=seed + 100)
    played = env.unwrapped.game
    game = engine_game(rules, players, seed, actions)
    assert played.steps == game.steps
    assert [s.events for s in played.states] == [s.events for s in game.states]
    final = game.state
    assert final.outcome is not None
    # Tokens pay their share of the manche; a manche's loser ends holding them all, the
    # others none: over a game each seat earns -1 per manche lost, and -1 more if it lost.
    for seat in range(players):
        lost = final.manche_losses[seat] + (seat in final.outcome.losers)
        assert earned[f"player_{seat}"] == pytest.approx(-lost)


def test_game_rewards_pay_only_the_end():
    env = pettingzoo_env("classic-11", 3, reward="game")
    _, earned = play_env(env, seed=4, policy_seed=5)
    losers = env.unwrapped.game.state.outcome.losers
    assert dict(earned) == {f"player_{s}": -1.0 if s in losers else 0.0 for s in range(3)}


def test_a_seed_given_when_made_is_the_first_resets():
    made = pettingzoo_env("vache-41", 2, seed=9)
    made.reset()
    again = pettingzoo_env("vache-41", 2)
    again.reset(seed=9)
    other = pettingzoo_env("vache-41", 2)
    other.reset(seed=10)
    assert made.unwrapped.game.steps == again.unwrapped.game.steps != other.unwrapped.game.steps


# -- observations and actions ---------------------------------------------------


def test_a_seats_view_reads_the_round_from_its_side():
    game = table("lyonnaise-21", "A", "B", "C")
    run(game, "531 | keep 31 | 2 | stop | 642")  # A ends on 321 in 2 throws; B holds 642
    state = game.state
    rules = state.rules
    seen = ObservationEncoder(rules, 3).split(ObservationEncoder(rules, 3).encode(state, 2))
    view = {name: values.tolist() for name, values in seen.items()}
    # Seats from C's side: C, A, B.
    assert view["phase"] == [0, 1, 0, 0]
    assert view["deciding"] == view["current"] == [0, 0, 1]
    assert view["leader"] == [0, 1, 0]
    assert view["pot"] == [21] and view["tokens"] == [0, 0, 0]
    assert view["dice"] == [6, 4, 2] and view["throws"] == [1]
    assert view["throws_allowed"] == view["limit"] == [2]
    assert view["stake"] == [1 + 2 + 1]  # 531, 321 and 642 under the vache values
    assert view["order"] == [3, 1, 2]
    assert view["done"] == [0, 1, 0]
    assert view["result_rank"] == [0, rules.table.strength(Result.parse("321")) + 1, 0]
    assert view["result_value"] == [0, 2, 0] and view["result_throws"] == [0, 2, 0]
    assert view["tie"] == [0, 0, 0] and view["stake_choice"] == [0]


def test_indices_name_positions_of_the_dice_in_hand():
    game = table("lyonnaise-21", "A", "B")
    run(game, "442")
    state = game.state
    moves = {i: str(decode(state, i)) for i in legal_indices(state)}
    assert moves[0] == "stop"
    assert moves[1] == moves[2] == "keep 42"  # either 4 thrown again
    assert moves[4] == "keep 44" and moves[7] == "throw"
    assert moves[8] == "bon 42" and moves[14] == "bon"
    assert encode(state, Throw((2, 4))) == 1 and encode(state, Stop()) == 0
    assert action_mask(state).tolist() == [1] * 15 + [0, 0]


def test_the_mask_offers_the_stake_at_a_main_chaude_only():
    game = table("engranjeu-21", "A", "B")
    run(game, "421 | 421 | 531 | 531")  # tied twice: B, first to rethrow, chooses the stake
    state = game.state
    assert action_mask(state).tolist() == [0] * 15 + [1, 1]
    assert decode(state, 16) == ChooseStake("vient")


def test_illegal_and_unknown_actions_say_what_is_accepted():
    env = pettingzoo_env("classic-11", 2, seed=1)
    env.reset()
    agent = env.agent_selection
    refused = rf"{agent}: action 15 \(stake est\) is not allowed now; accepted: 0 \(stop\)"
    with pytest.raises(IllegalAction, match=refused):
        env.step(15)
    with pytest.raises(IllegalAction, match="action 17 does not exist; actions are 0 to 16"):
        env.step(17)
    with pytest.raises(IllegalAction, match="an action is an index 0 to 16, not 'stop'"):
        env.step("stop")


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"rules": "classic-12"}, InvalidRuleset, "unknown preset 'classic-12'; accepted: classic-11, "),
        (
            {"rules": "engranjeu-21", "num_players": 9},
            InvalidPlayers,
            "engranjeu-21 is played by 2 to 8 players, not 9",
        ),
        ({"num_players": 1}, InvalidPlayers, "classic-11 is played by 2 or more players, not 1"),
        ({"rules": "tim", "num_players": 3}, InvalidPlayers, "tim is played by 2 players, not 3"),
        ({"num_players": "3"}, InvalidPlayers, "num_players is a whole number of players, not '3'"),
        ({"pots": 21}, InvalidRuleset, "unknown option 'pots' \\(did you mean 'pot'\\?\\); accepted: "),
        ({"reward": "chips"}, ValueError, "reward='chips' is not accepted; reward takes tokens | game"),
        ({"illegal_reward": "-1"}, ValueError, "illegal_reward='-1' is not accepted; give a number, or None"),
        ({"first_seat": 4}, InvalidPlayers, "first seat 4 does not exist; seats are 0 to 2"),
    ],
)
def test_bad_tables_are_refused_when_made(kwargs, error, message):
    with pytest.raises(error, match=message):
        pettingzoo_env(**kwargs)


@pytest.mark.parametrize("seed", ["abc", -1, 2.5, True, [1, 2]])
def test_a_bad_seed_is_refused_naming_the_seed_and_what_is_accepted(seed):
    said = f"seed={seed!r} is not accepted; a seed is a whole number from 0, or None"
    with pytest.raises(InvalidParameter, match=re.escape(said)):
        pettingzoo_env("classic-11", 3, seed=seed)
    numpy_seed: Any = np.int64(4)
    env = pettingzoo_env("classic-11", 3, seed=numpy_seed)  # numpy's whole numbers are seeds too
    env.reset()
    with pytest.raises(InvalidParameter, match=re.escape(said)):
        env.reset(seed=seed)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_an_illegal_reward_that_is_not_a_finite_number_is_refused(value):
    with pytest.raises(
        InvalidParameter, match=f"illegal_reward={value!r} is not accepted; give a finite number"
    ):
        pettingzoo_env("classic-11", 3, illegal_reward=value)
    env = pettingzoo_env("classic-11", 3, seed=0, illegal_reward=np.float32(-1))  # a numpy number is one
    env.reset()


def test_rule_options_are_passed_to_the_ruleset():
    env = pettingzoo_env("classic-11", 2, pot=21)
    env.reset(seed=0)
    assert env.unwrapped.rules.pot == 21
    high = env.observation_space("player_0")["observation"].high
    assert ObservationEncoder(env.unwrapped.rules, 2).split(high)["pot"].tolist() == [21]


def test_render_tells_what_happened_and_what_is_awaited(capsys):
    env = pettingzoo_env("classic-11", 3, seed=2, render_mode="ansi")
    env.reset()
    text = env.render()
    assert "— manche 1: the charge —" in text  # coups secs: the first decision is in a décharge
    tokens = r"tokens: player_0 \d+, player_1 \d+, player_2 \d+"
    assert re.search(rf"\nmanche \d, decharge, pot 0; {tokens}\n", text)
    assert f"{env.agent_selection} to decide: 0 stop, 1 keep" in text
    assert env.render().count("\n") < text.count("\n")  # events are told once
    human = pettingzoo_env("classic-11", 3, seed=2, render_mode="human")
    human.reset()
    human.step(0)
    assert "player_" in capsys.readouterr().out


def test_state_is_the_whole_table():
    env = pettingzoo_env("tim", 2, seed=5)
    env.reset()
    assert np.array_equal(env.state(), env.observe("player_0")["observation"])
    assert env.observe(env.agent_selection)["action_mask"].sum() > 0
    other = next(a for a in env.agents if a != env.agent_selection)
    assert not env.observe(other)["action_mask"].any()
    assert env.action_space("player_1").n == NUM_ACTIONS


# -- the package and its documentation ---------------------------------------------


BLOCKER = """
import sys
class Missing:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {blocked!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}")
sys.meta_path.insert(0, Missing())
"""


def without(blocked, code):
    """Run ``code`` in a fresh interpreter where the ``blocked`` packages cannot be imported."""
    script = BLOCKER.format(blocked=blocked) + code
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout


def test_importing_the_package_needs_neither_gymnasium_nor_pettingzoo():
    code = """
import py421.envs, py421.envs.observation, py421.envs.openspiel
try:
    py421.envs.pettingzoo_env()
except ImportError as exc:
    print(exc)
"""
    out = without(("gymnasium", "pettingzoo"), code)
    install = f"{sys.executable} -m pip install '.[rl]' in the py421 folder"
    assert f"need pettingzoo, which is not installed: {install}" in out


def test_the_gymnasium_environments_do_not_need_pettingzoo():
    code = """
import gymnasium, py421.envs
env = gymnasium.make("py421/Game-v0")
print(env.reset(seed=0)[0].shape == env.observation_space.shape)
"""
    assert without(("pettingzoo",), code).strip() == "True"


def test_making_an_environment_keeps_the_factory_in_place():
    import py421.envs

    pettingzoo_env("tim", 2)
    assert py421.envs.pettingzoo_env is pettingzoo_env  # not hidden by a module of that name


def test_an_encoder_takes_a_preset_by_name_as_every_env_does():
    by_name = ObservationEncoder("vache-41", 3)
    by_rules = ObservationEncoder(Ruleset.preset("vache-41"), 3)
    state = new_game(Ruleset.preset("vache-41"), ["a", "b", "c"])
    assert by_name.rules == by_rules.rules
    assert by_name.encode(state, 1).tolist() == by_rules.encode(state, 1).tolist()
    assert by_name.high.tolist() == by_rules.high.tolist()
    with pytest.raises(InvalidRuleset, match="unknown preset 'vache'; accepted: classic-11"):
        ObservationEncoder("vache", 3)


@pytest.mark.parametrize(("preset", "players"), [("tim", 2), ("engranjeu-21", 3), ("vache-41", 4)])
def test_pettingzoos_parallel_seed_test_passes_with_an_illegal_reward(preset, players):
    """It samples actions without the mask, as state_test does: with ``illegal_reward`` an unmasked
    action ends the game, and the same seed still plays the same games (docs/rl.md)."""
    parallel_seed_test(lambda: turn_based_aec_to_parallel(pettingzoo_env(preset, players, illegal_reward=-1)))


def test_an_observation_reads_as_a_line_of_the_engines_table():
    env = GameEnv("vache-41", 3, ["random", "random"], seat=1)
    obs, _ = env.reset(seed=4)
    state = env.game.state
    assert state.round is not None and state.round.dice and state.to_move == 1  # the seat decides
    dice = "".join(str(face) for face in state.round.dice)
    phase = {"charge": "the charge", "decharge": "the décharge"}[state.phase.value]
    tokens = f"seat 1 (you) {state.tokens[1]}, seat 2 {state.tokens[2]}, seat 0 {state.tokens[0]}"
    assert env.encoder.text(obs, 1) == (
        f"manche {state.manche}, {phase}, pot {state.pot}; tokens: {tokens}; "
        f"dice {dice}, throw {state.round.throws} of {throws_allowed(state)}; seat 1 (you) to decide"
    )


def test_every_observation_entry_is_documented():
    encoder = ObservationEncoder(Ruleset.preset("classic-11"), 5)
    rows = doc_table_rows(RL_DOC, "## Observations")
    assert list(rows) == [s.name for s in encoder.segments]
    for segment in encoder.segments:
        size, doc = rows[segment.name][0], rows[segment.name][-1]
        assert size == ("n" if segment.size == 5 else str(segment.size)), segment.name
        assert doc == segment.doc


def test_rules_that_leave_nothing_to_decide_are_an_error_not_a_hang():
    one_throw: dict[str, Any] = {"charge_throws": 1, "decharge_throws": 1, "le_bon": False}
    env = pettingzoo_env("classic-11", 2, seed=0, **one_throw)
    with pytest.raises(ValueError, match="games in a row ended before anyone had a decision to take"):
        env.reset()
    game = GameEnv("classic-11", 2, **one_throw)
    with pytest.raises(ValueError, match="before the learning seat had a decision to take"):
        game.reset(seed=0)


def test_the_maskable_ppo_snippet_learns_with_the_examples_rollouts():
    """rl.md's MaskablePPO snippet took the library's defaults: with 512 games a rollout was a million
    steps, and its first update alone ran over 22 minutes on two cores. It takes the example's."""
    import re

    snippet = (
        RL_DOC.split("### stable-baselines3 and MaskablePPO", 1)[1]
        .split("```python", 1)[1]
        .split("```", 1)[0]
    )
    example = (Path(__file__).parents[1] / "examples" / "learn_maskable_ppo.py").read_text(encoding="utf-8")
    for setting in ("n_steps", "batch_size", "n_epochs"):
        used = re.search(rf"{setting}=([0-9_]+)", example)
        assert used, setting
        assert f"{setting}={used[1]}" in snippet, (setting, snippet)
