"""The Gymnasium environments: Gymnasium's checker, the solver's value, the engine's games."""

import math
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import py421.envs  # noqa: F401 - registers py421/Turn-v0 and py421/Game-v0
from py421.core.actions import ChooseStake
from py421.core.dice import Result
from py421.core.errors import InvalidNotation, InvalidPlayers, InvalidRuleset
from py421.core.events import StakeChosen
from py421.core.game import Game
from py421.core.rules import Ruleset
from py421.envs import decode
from py421.envs.gym_game import GameEnv
from py421.envs.gym_turn import TurnEnv, optimal_value, solver_action
from py421.players import make_bot
from py421.solver.turn import odds

from .helpers import run, table


def checked(env_id, **kwargs):
    """Gymnasium's checker on a made environment; any warning fails."""
    env = gymnasium.make(env_id, **kwargs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize(
    "kwargs", [{"target": "532"}, {}, {"rules": "tim", "throws": 2}, {"rules": "vache-41", "target": "221"}]
)
def test_turn_passes_gymnasiums_checker(kwargs, capsys):
    checked("py421/Turn-v0", **kwargs)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"rules": "engranjeu-21", "num_players": 3, "opponents": ["random", "optimal"], "seat": 1},
        {"rules": "tim", "opponents": "optimal", "reward": "game"},
        {"rules": "kytionnaire", "num_players": 4, "opponents": "random"},
    ],
)
def test_game_passes_gymnasiums_checker(kwargs, capsys):
    checked("py421/Game-v0", **kwargs)


def test_the_module_form_of_the_id_registers_too():
    env = gymnasium.make("py421.envs:py421/Turn-v0", target="421")
    assert isinstance(env.unwrapped, TurnEnv)


# -- Turn-v0 ---------------------------------------------------------------------


def mean_reward(env, policy, episodes, seed):
    total = 0.0
    obs, _ = env.reset(seed=seed)
    for _ in range(episodes):
        done = False
        while not done:
            obs, reward, done, _, _ = env.step(policy(obs))
        total += reward
        obs, _ = env.reset()
    return total / episodes


@pytest.mark.parametrize(
    ("target", "throws", "policy"),
    [("311", 3, "solver"), (None, 2, "solver"), ("311", 3, "stop")],
)
def test_turn_rewards_reach_the_solvers_value(target, throws, policy):
    """Played through the engine, the solver's policy earns the solver's value (4 standard errors);
    stopping at once earns the chance of one throw, far below."""
    rules = Ruleset.preset("classic-11")
    env = gymnasium.make("py421/Turn-v0", target=target, throws=throws)
    episodes = 3000
    if policy == "solver":
        expected = optimal_value(rules, Result.parse(target) if target else None, throws)
        mean = mean_reward(env, lambda obs: solver_action(rules, obs), episodes, seed=11)
    else:
        expected = odds(rules.table, Result.parse(target), 1)
        assert expected < optimal_value(rules, Result.parse(target), throws) - 0.3
        mean = mean_reward(env, lambda obs: 0, episodes, seed=11)
    error = math.sqrt(expected * (1 - expected) / episodes)
    assert abs(mean - expected) < 4 * error


def test_turn_plays_the_seeded_dice_as_documented():
    """A seed s gives default_rng(s): the target's three dice (when none is given), the first
    throw, then each throw's dice; the engine keeps the dice the action names."""
    env = gymnasium.make("py421/Turn-v0")
    obs, info = env.reset(seed=21)
    dice = np.random.default_rng(21)
    target = Result.of(int(f) for f in dice.integers(1, 7, size=3))
    first = Result.of(int(f) for f in dice.integers(1, 7, size=3))
    assert info == {"target": str(target)}
    assert obs.tolist() == [*first.dice, 1, 3, *target.dice]
    obs, reward, done, _, _ = env.step(np.int64(0b100))  # throw the lowest die again
    kept = first.dice[:2]
    second = Result.of(kept + tuple(int(f) for f in dice.integers(1, 7, size=1)))
    assert obs.tolist() == [*second.dice, 2, 3, *target.dice] and not done and reward == 0
    obs, reward, done, _, info = env.step(np.int64(0))
    assert done and info["result"] == str(second)
    assert reward == float(Ruleset.preset("classic-11").table.beats(second, target))


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"throws": 1}, ValueError, "throws=1 is not accepted; a turn with a decision has 2 or 3 throws"),
        ({"throws": 3.0}, ValueError, "throws=3.0 is not accepted; a turn with a decision has 2 or 3 throws"),
        ({"target": 3.5}, ValueError, "target=3.5 is not accepted; a target is three dice such as '421'"),
        ({"target": "7-1-1"}, InvalidNotation, "'7-1-1': a die shows 1 to 6, not 7"),
        ({"rules": "yahtzee"}, InvalidRuleset, "unknown preset 'yahtzee'; accepted: classic-11"),
        ({"ranking": "poker"}, InvalidRuleset, "ranking='poker' is not accepted; ranking takes classic"),
    ],
)
def test_turn_refuses_bad_settings(kwargs, error, message):
    with pytest.raises(error, match=message):
        TurnEnv(**kwargs)


def test_turn_reads_a_target_given_as_a_number():
    assert TurnEnv(target=311).target == TurnEnv(target="311").target


@pytest.mark.parametrize("action", [8, -1, "stop", 2.0])
def test_actions_outside_the_space_say_what_is_accepted(action):
    for env in (TurnEnv(), GameEnv()):
        env.reset(seed=0)
        with pytest.raises(ValueError, match=r"takes an action 0 to 7 \(0 stops; bit i throws die i again"):
            env.step(action)


def test_a_step_after_the_end_asks_for_a_reset():
    for env in (TurnEnv(), GameEnv()):
        with pytest.raises(gymnasium.error.ResetNeeded, match="call reset"):
            env.step(np.int64(0))
        env.reset(seed=1)
        done = False
        while not done:
            _, _, done, _, _ = env.step(np.int64(0))
        with pytest.raises(gymnasium.error.ResetNeeded, match="call reset"):
            env.step(np.int64(0))


# -- Game-v0 -----------------------------------------------------------------------


def play_gym_game(env, seed, policy_seed):
    """Random actions to the end: the engine's move for each and the rewards."""
    choose = np.random.default_rng(policy_seed)
    env.reset(seed=seed)
    moves, total, done = [], 0.0, False
    while not done:
        action = int(choose.integers(8))
        state = env.game.state
        stake = state.round is not None and state.round.tie is not None
        moves.append(ChooseStake("est" if action == 0 else "vient") if stake else decode(state, action))
        _, reward, done, _, _ = env.step(np.int64(action))
        total += reward
    return moves, total


def engine_game(rules, players, seat, opponents, seed, moves):
    """The engine alone with the documented seeding: default_rng(seed) gives the bots' seed
    (integers(2**63), bot of seat s seeded "{that}:{s}"), then every throw's dice."""
    rng = np.random.default_rng(seed)
    pending = iter(moves)
    while True:
        game = Game(rules, [f"player_{s}" for s in range(players)])
        bot_seed = str(rng.integers(2**63))
        others = [s for s in range(players) if s != seat]
        bots = {s: make_bot(level, f"{bot_seed}:{s}") for s, level in zip(others, opponents, strict=True)}
        decided = False
        while not game.state.is_over:
            state = game.state
            if (request := state.chance) is not None:
                game.throw(tuple(int(f) for f in rng.integers(1, 7, size=request.count)))
            elif state.to_move == seat:
                game.act(next(pending))
                decided = True
            else:
                assert state.to_move is not None
                game.act(bots[state.to_move].choose(state))
        if decided:
            assert next(pending, None) is None
            return game


@pytest.mark.parametrize(
    ("preset", "players", "seat", "opponents"),
    [
        ("classic-11", 2, 0, ("heuristic",)),
        ("lyonnaise-21", 3, 2, ("random", "heuristic")),
        ("engranjeu-21", 2, 1, ("random",)),
        ("tim", 2, 1, ("optimal",)),
    ],
)
def test_game_plays_the_engines_game_with_the_bots(preset, players, seat, opponents):
    rules = Ruleset.preset(preset)
    env = GameEnv(preset, players, list(opponents), seat)
    moves, total = play_gym_game(env, seed=8, policy_seed=9)
    game = engine_game(rules, players, seat, opponents, seed=8, moves=moves)
    assert env.game.steps == game.steps
    final = game.state
    assert final.outcome is not None
    lost = final.manche_losses[seat] + (seat in final.outcome.losers)
    assert total == pytest.approx(-lost)  # see test_envs: the token shares telescope


def test_game_maps_actions_to_the_stake_at_a_main_chaude():
    env = GameEnv("engranjeu-21", 2, "random", seat=1)
    env.reset(seed=0)
    env.game = table("engranjeu-21", "player_0", "player_1")
    run(env.game, "421 | 421 | 531 | 531")  # tied twice: player_1 chooses the stake
    env.step(np.int64(0))
    assert [e for s in env.game.states for e in s.events if isinstance(e, StakeChosen)] == [
        StakeChosen(1, "est")
    ]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"opponents": "expert"},
            "opponent 'expert' is not a bot level; accepted: random | heuristic | optimal",
        ),
        (
            {"num_players": 3, "opponents": ["random"]},
            "give one opponent for each of the 2 other seats, not 1",
        ),
        (
            {"opponents": None},
            r"opponents is a bot level or a list of them \(random \| heuristic \| optimal\), not None",
        ),
        ({"seat": 2}, "seat=2 does not exist; seats are 0 to 1"),
        ({"rules": "tim", "num_players": 4}, "tim is played by 2 players, not 4"),
    ],
)
def test_game_refuses_bad_tables(kwargs, message):
    with pytest.raises(InvalidPlayers, match=message):
        GameEnv(**kwargs)


def test_game_renders_the_table_and_the_gym_actions():
    env = GameEnv("classic-11", 2, render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    assert text is not None
    assert "player_0 to decide: 0 stop, 1 keep" in text
    assert " 8 " not in text.splitlines()[-1]  # « le bon » is not offered here
