"""The Gymnasium environments: Gymnasium's checker, the solver's value, the engine's games."""

import math
import warnings
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
import pytest
from gymnasium.utils.env_checker import check_env

import py421.envs  # noqa: F401 - registers py421/Turn-v0 and py421/Game-v0
from py421.core.actions import ChooseStake
from py421.core.dice import Result
from py421.core.errors import IllegalAction, InvalidParameter, InvalidPlayers, InvalidRuleset
from py421.core.events import StakeChosen
from py421.core.game import Game
from py421.core.rules import Ruleset
from py421.core.state import State
from py421.envs import ObservationEncoder, decode
from py421.envs.gym_game import GameEnv
from py421.envs.gym_turn import TurnEnv, optimal_value, policy_value, solver_action
from py421.envs.observation import gym_mask, gym_move
from py421.envs.picture import LOST, PIP_AREA, WON, pip_pixels
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
        (
            {"target": "7-1-1"},
            InvalidParameter,
            "target='7-1-1' is not accepted: '7-1-1': a die shows 1 to 6",
        ),
        ({"rules": "yahtzee"}, InvalidRuleset, "unknown preset 'yahtzee'; accepted: classic-11"),
        ({"ranking": "poker"}, InvalidRuleset, "ranking='poker' is not accepted; ranking takes classic"),
    ],
)
def test_turn_refuses_bad_settings(kwargs, error, message):
    with pytest.raises(error, match=message):
        TurnEnv(**kwargs)


@pytest.mark.parametrize(
    ("target", "explained"), [("999", "a die shows 1 to 6, not 9"), ("42", ""), ("4-2-1-1", "")]
)
def test_a_target_that_is_not_three_dice_raises_the_documented_error_with_the_reason(target, explained):
    """rl.md: a bad target raises InvalidParameter, whatever is wrong with it, saying what."""
    with pytest.raises(InvalidParameter, match=f"target='{target}' is not accepted: ") as caught:
        gymnasium.make("py421/Turn-v0", target=target)
    assert explained in str(caught.value)
    assert "a target is three dice such as '421', or None" in str(caught.value)
    with pytest.raises(InvalidParameter, match=f"target='{target}'"):
        policy_value(lambda observation: 0, "classic-11", target)


@pytest.mark.parametrize("seed", ["abc", -1, 2.5])
def test_a_bad_seed_is_refused_naming_the_seed_as_the_pettingzoo_game_does(seed):
    for env in (TurnEnv(), GameEnv()):
        with pytest.raises(
            InvalidParameter, match=f"seed={seed!r} is not accepted; a seed is a whole number from 0"
        ):
            env.reset(seed=seed)
        numpy_seed: Any = np.int64(3)
        env.reset(seed=numpy_seed)  # numpy's whole numbers are seeds


def test_the_solver_action_takes_a_preset_name_as_other_env_functions_do():
    obs = np.array([4, 2, 2, 1, 3, 3, 1, 1], dtype=np.int64)
    best = solver_action(Ruleset.preset("classic-11"), obs)
    assert solver_action("classic-11", obs) == best
    assert solver_action("vache-41", obs) == solver_action(Ruleset.preset("vache-41"), obs)
    with pytest.raises(InvalidRuleset, match="unknown preset 'nope'"):
        solver_action("nope", obs)


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


def play_gym_game(env, seed, policy_seed, infos=None):
    """Random actions to the end: the engine's move for each and the rewards (the info of each
    step appended to ``infos``)."""
    choose = np.random.default_rng(policy_seed)
    env.reset(seed=seed)
    moves, total, done = [], 0.0, False
    while not done:
        action = int(choose.integers(8))
        state = env.game.state
        stake = state.round is not None and state.round.tie is not None
        moves.append(ChooseStake("est" if action == 0 else "vient") if stake else decode(state, action))
        _, reward, done, _, info = env.step(np.int64(action))
        total += reward
        if infos is not None:
            infos.append(info)
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
    infos: list[dict[str, object]] = []
    moves, total = play_gym_game(env, seed=8, policy_seed=9, infos=infos)
    game = engine_game(rules, players, seat, opponents, seed=8, moves=moves)
    assert env.game.steps == game.steps
    final = game.state
    assert final.outcome is not None
    lost = final.manche_losses[seat] + (seat in final.outcome.losers)
    assert total == pytest.approx(-lost)  # see test_envs: the token shares telescope
    # the last step's info says who lost the game, and whether the learning seat did
    assert infos[-1] == {"losers": final.outcome.losers, "lost": seat in final.outcome.losers}
    assert all(info == {} for info in infos[:-1])


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
            r"opponents is a bot level \(random \| heuristic \| optimal\), a Player or a policy "
            r"\(observation, mask\) -> action, or a list of one per other seat; not None",
        ),
        (
            {"num_players": 3, "opponents": ["random", 7]},
            r"opponent 7 is not accepted; an opponent is a bot level \(random \| heuristic",
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
    assert isinstance(text, str)
    assert "player_0 to decide: 0 stop, 1 keep" in text
    assert " 8 " not in text.splitlines()[-1]  # « le bon » is not offered here


# -- the tools' ways in: make_vec_env, rendering --------------------------------------


def picture(frame: object) -> npt.NDArray[np.uint8]:
    """A frame rendered in "rgb_array" mode: height x width x 3 bytes."""
    assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8 and frame.ndim == 3
    return frame


def seat_of(state: State) -> int:
    assert state.to_move is not None
    return state.to_move


def sb3_make_env(env_id, env_kwargs, seed, rank):
    """What stable-baselines3's make_vec_env does to make each environment: ask for
    "rgb_array" unless env_kwargs names a mode, retry without it on TypeError only (any
    other error stops it), seed the action space."""
    kwargs: dict[str, Any] = {"render_mode": "rgb_array"}
    kwargs.update(env_kwargs)
    try:
        env = gymnasium.make(env_id, **kwargs)
    except TypeError:
        env = gymnasium.make(env_id, **env_kwargs)
    env.action_space.seed(seed + rank)
    return env


@pytest.mark.parametrize(
    ("env_id", "env_kwargs"),
    [("py421/Turn-v0", {}), ("py421/Game-v0", {"num_players": 3, "opponents": "random"})],
)
def test_the_make_vec_env_path_plays_and_renders_pictures(env_id, env_kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        makers = [lambda r=r: sb3_make_env(env_id, env_kwargs, 7, r) for r in (0, 1)]
        vector = gymnasium.vector.SyncVectorEnv(makers)
        vector.reset(seed=7)
        sizes: set[tuple[tuple[int, ...], str]] = set()
        for _ in range(20):
            vector.step(vector.action_space.sample())
            frames = vector.render()
            assert isinstance(frames, tuple)
            sizes.update((picture(f).shape, picture(f).dtype.name) for f in frames)
    assert [str(w.message) for w in caught] == []
    assert len(sizes) == 1  # one frame size, as video recorders need
    ((height, width, colours), dtype) = sizes.pop()
    assert colours == 3 and dtype == "uint8" and height > 100 and width > 100


def test_stable_baselines3_make_vec_env_works_where_it_is_installed():
    env_util = pytest.importorskip("stable_baselines3.common.env_util")
    vector = env_util.make_vec_env("py421/Game-v0", n_envs=2, seed=0)
    vector.reset()
    vector.step(np.array([0, 7]))
    assert vector.render_mode == "rgb_array"
    assert all(frame.ndim == 3 for frame in vector.get_images())


def test_an_unknown_render_mode_warns_and_the_env_still_plays():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = gymnasium.make("py421/Game-v0", render_mode="depth_array")
    said = [str(w.message) for w in caught]
    assert len(said) == 2 and "that is not in the possible render_modes" in said[0]  # Gymnasium's
    assert said[1].startswith("render_mode='depth_array' is not offered, so nothing is rendered; render_mode")
    assert env.unwrapped.render_mode is None
    env.reset(seed=0)
    env.step(np.int64(0))
    with pytest.warns(UserWarning, match=r"render\(\) needs a render_mode \(ansi \| human \| rgb_array\)"):
        assert env.render() is None


def test_gymnasiums_frame_list_collects_the_pictures():
    env = gymnasium.make("py421/Turn-v0", target="421", render_mode="rgb_array_list")
    env.reset(seed=1)
    env.step(np.int64(7))
    frames = env.render()
    assert isinstance(frames, list) and len(frames) == 2
    assert picture(frames[0]).shape == picture(frames[1]).shape


def test_the_turn_picture_shows_the_hand_the_target_and_the_outcome():
    """Every pip of the frame is a pip of the dice in hand or of the target; at the end a
    green band says the target was beaten, a red one that it was not."""
    env = TurnEnv(render_mode="rgb_array")
    outcomes = set()
    for seed in range(12):
        obs, _ = env.reset(seed=seed)
        done = False
        while True:
            frame = picture(env.render())
            assert pip_pixels(frame) == int(obs[:3].sum() + obs[5:8].sum()) * PIP_AREA
            band = {colour: bool(np.all(frame == colour, axis=-1).any()) for colour in (WON, LOST)}
            if done:
                break
            assert band == {WON: False, LOST: False}
            obs, reward, done, _, _ = env.step(np.int64(seed % 8))
        assert band == {WON: reward == 1, LOST: reward == 0}
        outcomes.add(reward)
    assert outcomes == {0.0, 1.0}


def test_the_game_picture_keeps_its_size_and_shows_the_dice_in_play():
    env = GameEnv("lyonnaise-21", 3, "random", render_mode="rgb_array")
    env.reset(seed=4)
    done, shapes = False, set()
    while not done:
        frame = picture(env.render())
        shapes.add(frame.shape)
        r = env.game.state.round
        assert r is not None
        assert pip_pixels(frame) == (sum(r.dice) + sum(sum(t.result.dice) for t in r.done)) * PIP_AREA
        _, _, done, _, _ = env.step(np.int64(3))
    assert len(shapes) == 1


# -- Game-v0's opponents ----------------------------------------------------------------


def test_a_policy_opponent_sees_its_seat_and_its_answers_are_played():
    rng = np.random.default_rng(0)
    asked = []

    def policy(observation, mask):
        action = rng.choice(np.flatnonzero(mask))  # a numpy scalar, as models answer
        asked.append((env.game.state, observation, mask, int(action)))
        return action

    env = GameEnv("engranjeu-21", 3, opponents=policy, seat=1)
    play_gym_game(env, seed=5, policy_seed=6)
    states = env.game.states
    encoder = ObservationEncoder(env.rules, 3)
    others = [i for i, s in enumerate(states[:-1]) if s.to_move is not None and s.to_move != 1]
    assert len(asked) == len(others) > 10
    for i, (state, observation, mask, action) in zip(others, asked, strict=True):
        assert state is states[i]
        assert np.array_equal(observation, encoder.encode(state, seat_of(state)))
        assert np.array_equal(mask, gym_mask(state)) and mask.sum() == 8
        assert states[i + 1] == state.apply(gym_move(state, action))


def test_a_policy_plays_itself():
    encoder = ObservationEncoder(Ruleset.preset("classic-11"), 2)

    def policy(observation, mask):
        dice = encoder.split(observation)["dice"]
        return 0 if dice.sum() >= 12 else 4  # stop on 12 or more, else throw the lowest die again

    env = GameEnv("classic-11", 2, opponents=policy)
    obs, _ = env.reset(seed=3)
    done = False
    while not done:
        obs, _, done, _, _ = env.step(np.int64(policy(obs, env.action_masks())))
    states = env.game.states
    decisions = [i for i, s in enumerate(states[:-1]) if s.to_move is not None]
    assert {states[i].to_move for i in decisions} == {0, 1}
    for i in decisions:
        seen = encoder.encode(states[i], seat_of(states[i]))
        assert states[i + 1] == states[i].apply(gym_move(states[i], policy(seen, gym_mask(states[i]))))
    assert not env.action_masks().any()


def test_player_objects_play_as_their_bot_level():
    by_name = GameEnv("classic-11", 3, ["heuristic", "random"], seat=0)
    by_object = GameEnv("classic-11", 3, [make_bot("heuristic", "any"), "random"], seat=0)
    assert play_gym_game(by_name, 2, 3) == play_gym_game(by_object, 2, 3)
    assert by_name.game.steps == by_object.game.steps


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (9, "the policy playing seat 1 returned 9; a policy returns an action 0 to 7"),
        ((np.array(2), None), r"the policy playing seat 1 returned \(array\(2\), None\); a policy returns"),
    ],
)
def test_a_policy_answer_outside_the_actions_is_refused(answer, message):
    env = GameEnv("classic-11", 2, opponents=lambda observation, mask: answer, seat=0)
    with pytest.raises(IllegalAction, match=message):
        play_gym_game(env, seed=0, policy_seed=0)  # seat 1 decides before the end


# -- scoring a Turn-v0 policy --------------------------------------------------------------


@pytest.mark.parametrize(("target", "throws"), [("311", 3), ("654", 2), (None, 3)])
def test_the_solvers_policy_scores_the_solvers_value_and_worse_policies_less(target, throws):
    rules = Ruleset.preset("classic-11")
    best = optimal_value(rules, Result.parse(target) if target else None, throws)

    def solver(obs):
        return solver_action(rules, obs)

    def never_keeps_a_one(obs):  # the solver's, but a 1 in hand is always thrown again
        action = solver(obs)
        return action | sum(1 << i for i in range(3) if obs[i] == 1) if action else action

    assert policy_value(solver, rules, target, throws) == pytest.approx(best, abs=1e-12)
    assert policy_value(never_keeps_a_one, rules, target, throws) < best - 1e-3
    stop = policy_value(lambda obs: 0, rules, target, throws)
    assert stop == pytest.approx(optimal_value(rules, Result.parse(target) if target else None, 1), abs=1e-12)
    assert stop < best - 0.1


def test_a_policys_score_is_what_it_earns_in_the_environment():
    """A rule of thumb scored exactly, and played: the mean reward agrees (4 standard errors)."""
    env = TurnEnv(target="431")

    def thumb(obs):
        return 0 if obs[2] >= 3 else 0b100  # throw the lowest die again while it is below 3

    exact = env.policy_value(thumb)
    assert exact == policy_value(thumb, "classic-11", "431", 3)
    episodes = 3000
    mean = mean_reward(env, thumb, episodes, seed=5)
    assert abs(mean - exact) < 4 * math.sqrt(exact * (1 - exact) / episodes)
    assert exact < env.optimal_value() - 0.01


def test_a_policy_must_answer_an_action():
    with pytest.raises(IllegalAction, match="the policy returned 'stop'; a policy returns an action 0 to 7"):
        policy_value(lambda obs: "stop")
