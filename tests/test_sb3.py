"""py421.envs.sb3: the fast environment as stable-baselines3 reads a VecEnv, and MaskablePPO on it.

The protocol is checked against the vector env it steps (every test below the first group runs
without stable-baselines3); with stable-baselines3 and sb3-contrib installed (the ``sb3`` extra),
its own wrappers and MaskablePPO run on it, and a trained policy is exported and seated.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")
pytest.importorskip("gymnasium")

from gymnasium.vector import AutoresetMode

from py421.core.errors import InvalidParameter
from py421.envs.sb3 import GameVecEnv, vec_env
from py421.envs.vector import VectorGameEnv, random_actions


def _paired(n: int = 32, seed: int = 5, **kwargs):
    """The adapter and the vector env it wraps, each made alike, seeded alike."""
    ours = vec_env("classic-11", n_envs=n, **kwargs)
    theirs = VectorGameEnv(n, "classic-11", autoreset_mode=AutoresetMode.SAME_STEP, **kwargs)
    ours.seed(seed)
    return ours, theirs, theirs.reset(seed=[seed + e for e in range(n)])[0]


def test_reset_gives_the_observations_of_each_envs_seed():
    ours, _, expected = _paired()
    obs = ours.reset()
    assert obs.dtype == np.float32 and obs.shape == (32, ours.observation_space.shape[0])
    np.testing.assert_array_equal(obs, expected)
    again = ours.reset()  # no seed given since: each env's next game
    assert not np.array_equal(again, obs)


def test_steps_are_the_vector_envs_with_the_ended_games_told_as_stable_baselines3_tells_them():
    ours, theirs, _ = _paired()
    ours.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(300):
        actions = random_actions(ours.env_method("action_masks"), rng)
        obs, rewards, dones, infos = ours.step(actions)
        o2, r2, terminated, truncated, info = theirs.step(actions)
        np.testing.assert_array_equal(obs, o2)  # the next game's first observation, where one ended
        np.testing.assert_array_equal(rewards, r2.astype(np.float32))
        assert rewards.dtype == np.float32 and dones.dtype == np.bool_
        np.testing.assert_array_equal(dones, terminated | truncated)
        assert len(infos) == 32
        for e in range(32):
            if dones[e]:
                ended += 1
                np.testing.assert_array_equal(infos[e]["terminal_observation"], info["final_obs"][e])
                assert infos[e]["TimeLimit.truncated"] == bool(truncated[e] and not terminated[e])
                assert infos[e]["lost"] == (0 in infos[e]["losers"])
            else:
                assert infos[e] == {}
    assert ended > 50  # games ended along the way, each told once


def test_masks_attributes_and_methods_answer_per_env():
    env = vec_env("classic-11", n_envs=4, actions="gym")
    env.reset()
    masks = env.env_method("action_masks")
    assert len(masks) == 4 and all(m.shape == (8,) and m.dtype == np.bool_ for m in masks)
    np.testing.assert_array_equal(
        np.stack(env.env_method("action_masks", indices=[1, 3])), env.action_masks()[[1, 3]]
    )
    assert env.get_attr("render_mode") == [None] * 4 and env.get_attr("seat", indices=2) == [0]
    assert env.has_attr("action_masks") and not env.has_attr("no_such_thing")
    assert env.env_is_wrapped(object) == [False] * 4
    env.set_attr("seat", 0)
    assert env.seed(7) == [7, 8, 9, 10]


def test_the_ansi_render_is_one_line_per_env():
    env = vec_env("classic-11", n_envs=3, render_mode="ansi")
    env.reset()
    shown = env.render()
    assert shown is not None
    lines = shown.splitlines()
    assert len(lines) == 3 and lines[0].startswith("env 0: ")
    assert env.env_method("render", indices=[2]) == [lines[2]]


def test_misuse_is_refused_saying_what_stable_baselines3_expects():
    with pytest.raises(InvalidParameter, match="autoreset_mode must be SAME_STEP, not NEXT_STEP"):
        GameVecEnv(VectorGameEnv(2))
    env = vec_env(n_envs=2)
    env.reset()
    with pytest.raises(InvalidParameter, match=r"step_wait\(\) before step_async"):
        env.step_wait()


# -- with stable-baselines3 itself ----------------------------------------------------------


def test_stable_baselines3_takes_it_as_its_own_with_its_wrappers():
    vec = pytest.importorskip("stable_baselines3.common.vec_env")
    env = vec_env("classic-11", n_envs=16)
    assert isinstance(env, vec.VecEnv)
    wrapped = vec.VecCheckNan(vec.VecMonitor(vec.VecNormalize(env)), raise_exception=True)
    wrapped.seed(1)
    wrapped.reset()
    rng = np.random.default_rng(1)
    episodes = []
    for _ in range(200):
        _, _, dones, infos = wrapped.step(random_actions(env.action_masks(), rng))
        episodes += [info["episode"] for info, done in zip(infos, dones, strict=True) if done]
    assert episodes and all(ep["l"] > 0 for ep in episodes)  # VecMonitor counted each game's steps


def test_maskable_ppo_learns_on_it_and_its_policy_takes_a_seat(tmp_path):
    pytest.importorskip("torch")
    contrib = pytest.importorskip("sb3_contrib")
    vec = pytest.importorskip("stable_baselines3.common.vec_env")
    from sb3_contrib.common.maskable.utils import get_action_masks

    from py421.core.chance import SeededDice
    from py421.core.game import Game
    from py421.core.rules import Ruleset
    from py421.envs.policy_seat import PolicyPlayer
    from py421.envs.saved_policy import load_saved_policy
    from py421.envs.sb3 import export_policy
    from py421.players import HeuristicBot
    from py421.sim.loop import play_out

    env = vec.VecNormalize(vec_env("classic-11", n_envs=64), norm_reward=False)
    model = contrib.MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=512, n_epochs=2, seed=0)
    model.learn(64 * 32 * 2)  # two rollouts: every part of the loop, masks included, runs
    export_policy(model, tmp_path / "ppo.npz", normalise=env)
    saved = load_saved_policy(tmp_path / "ppo.npz")
    assert (saved.kind, saved.actions, saved.players, saved.rules) == (
        "network",
        "all",
        2,
        Ruleset.preset("classic-11"),
    )
    raw = env.venv.reset()  # as the policy saw them: normalised by the wrapper, the same in the file
    masks = get_action_masks(env)
    chosen, _ = model.predict(env.normalize_obs(raw), action_masks=masks, deterministic=True)
    np.testing.assert_array_equal(saved.batch(raw, masks), chosen)
    player = PolicyPlayer(saved, actions=saved.actions)
    state = play_out(
        Game(Ruleset.preset("classic-11"), ["P", "H"]), [player, HeuristicBot()], SeededDice(1)
    ).state
    assert state.outcome is not None


def test_self_play_makes_each_seat_an_env_whose_game_ends_for_both():
    from py421.envs.sb3 import self_play_vec_env

    env = self_play_vec_env("classic-11", n_games=16)
    assert env.num_envs == 32
    env.seed(4)
    env.reset()
    rng = np.random.default_rng(4)
    ends = 0
    for _ in range(300):
        _, _, dones, infos = env.step(random_actions(env.env_method("action_masks"), rng))
        np.testing.assert_array_equal(dones[0::2], dones[1::2])  # both seats of a game, together
        for e in np.flatnonzero(dones):
            ends += 1
            assert infos[e]["lost"] == (e % 2 in infos[e]["losers"])
            assert infos[e]["terminal_observation"].shape == env.observation_space.shape
    assert ends > 20


def test_maskable_ppo_trains_one_policy_in_every_seat(tmp_path):
    pytest.importorskip("torch")
    contrib = pytest.importorskip("sb3_contrib")
    from py421.envs.saved_policy import load_saved_policy
    from py421.envs.sb3 import export_policy, self_play_vec_env

    env = self_play_vec_env("classic-11", n_games=32)
    model = contrib.MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=512, n_epochs=1, seed=0)
    model.learn(64 * 32 * 2)
    export_policy(model, tmp_path / "self.npz")
    assert load_saved_policy(tmp_path / "self.npz").players == 2
