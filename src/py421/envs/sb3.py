"""The fast environment as a stable-baselines3 ``VecEnv``, with action masks for MaskablePPO.

::

    from sb3_contrib import MaskablePPO
    import py421.envs.sb3

    model = MaskablePPO("MlpPolicy", py421.envs.sb3.vec_env("classic-11", n_envs=4096))
    model.learn(1_000_000)
    py421.envs.sb3.export_policy(model, "policy.npz")   # 421 play --players You,bot:policy:policy.npz

:func:`vec_env` steps ``n_envs`` games of :class:`~.vector.VectorGameEnv`
in compiled code, in each one learning seat against the kernel's bots,
and speaks stable-baselines3's vector protocol: ``reset()`` gives the
observations alone, ``step_wait()`` a list of one info per env, a game
that ends is followed at once by the next (its last observation in
``info["terminal_observation"]``, and ``info["TimeLimit.truncated"]`` for a
game stopped after the kernel's most rounds), ``seed(s)`` gives env ``e``
the seed ``s + e`` at the next reset, and ``env_method("action_masks")``
the legal actions of each env, as MaskablePPO reads them.

stable-baselines3 itself is optional (``pip install '.[sb3]'``; it brings
torch): with it, the class is one of its ``VecEnv`` (its wrappers,
``VecNormalize`` or ``VecMonitor``, take it); without it, the same
protocol on a plain base, for trainers that only follow it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from copy import deepcopy
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode

from ..core.errors import InvalidParameter, Message
from ..core.rules import Ruleset
from .observation import GYM_ACTIONS
from .saved_policy import ActionSet, save_network
from .vector import MultiAgentVector, SeatVectorEnv, VectorGameEnv

Indices = None | int | Iterable[int]
MASKS = "action_masks"  # what MaskablePPO asks of each env


class _Protocol:
    """stable-baselines3's ``VecEnv`` base where it is not installed: the same attributes and the
    methods it gives its subclasses (seeds and options for the next reset, ``step``)."""

    def __init__(self, num_envs: int, observation_space: Any, action_space: Any) -> None:
        self.num_envs = num_envs
        self.observation_space = observation_space
        self.action_space = action_space
        self.reset_infos: list[dict[str, Any]] = [{} for _ in range(num_envs)]
        self._seeds: list[int | None] = [None] * num_envs
        self._options: list[dict[str, Any]] = [{} for _ in range(num_envs)]
        self.render_mode = self.get_attr("render_mode")[0]
        self.metadata = {"render_modes": [] if self.render_mode is None else [self.render_mode]}

    def get_attr(self, attr_name: str, indices: Indices = None) -> list[Any]:
        raise NotImplementedError

    def step_async(self, actions: npt.NDArray[Any]) -> None:
        raise NotImplementedError

    def step_wait(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def step(self, actions: npt.NDArray[Any]) -> tuple[Any, ...]:
        self.step_async(actions)
        return self.step_wait()

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        if seed is None:
            seed = int(np.random.default_rng().integers(np.iinfo(np.uint32).max))
        self._seeds = [seed + e for e in range(self.num_envs)]
        return self._seeds

    def set_options(self, options: list[dict[str, Any]] | dict[str, Any] | None = None) -> None:
        options = {} if options is None else options
        self._options = deepcopy([options] * self.num_envs if isinstance(options, dict) else options)

    def has_attr(self, attr_name: str) -> bool:
        try:
            self.get_attr(attr_name)
        except AttributeError:
            return False
        return True

    @property
    def unwrapped(self) -> _Protocol:
        return self

    def getattr_depth_check(self, name: str, already_found: bool) -> str | None:
        return (
            f"{type(self).__module__}.{type(self).__name__}"
            if hasattr(self, name) and already_found
            else None
        )


def _base() -> Any:
    try:
        from stable_baselines3.common.vec_env import VecEnv
    except ImportError:
        return _Protocol
    return VecEnv


class GameVecEnv(_base()):  # type: ignore[misc]  # sb3's VecEnv where it is installed
    """``VectorGameEnv`` games as one stable-baselines3 ``VecEnv``: see the module's text."""

    def __init__(self, env: VectorGameEnv | SeatVectorEnv) -> None:
        if env.metadata["autoreset_mode"].name != "SAME_STEP":
            raise InvalidParameter(
                Message("envs.sb3.autoreset", {"mode": env.metadata["autoreset_mode"].name})
            )
        self.env = env
        self.num_envs = env.num_envs  # read by the base's __init__, through get_attr
        self._actions: npt.NDArray[np.int64] | None = None
        self._seeds: list[int | None] = [None] * self.num_envs  # as the base has them: set by seed()
        self._options: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        self.reset_infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)

    def reset(self) -> npt.NDArray[np.float32]:
        """New games: under the seeds :meth:`seed` gave, env ``e`` plays batch 0 of seed ``s + e``;
        else each env's next game."""
        seeds = self._seeds
        obs, _ = self.env.reset(seed=None if all(s is None for s in seeds) else list(seeds))
        self._seeds = [None] * self.num_envs
        self._options = [{} for _ in range(self.num_envs)]
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs

    def step_async(self, actions: npt.NDArray[Any]) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(
        self,
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.bool_], list[dict[str, Any]]]:
        if self._actions is None:
            raise InvalidParameter(Message("envs.sb3.no_actions"))
        obs, rewards, terminated, truncated, info = self.env.step(self._actions)
        self._actions = None
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        done = terminated | truncated
        for e in np.flatnonzero(done):
            infos[e]["terminal_observation"] = info["final_obs"][e]
            infos[e]["TimeLimit.truncated"] = bool(truncated[e] and not terminated[e])
            infos[e]["losers"], infos[e]["lost"] = (
                info["final_info"]["losers"][e],
                bool(info["final_info"]["lost"][e]),
            )
        return obs, rewards.astype(np.float32), done, infos

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """(n_envs, actions): the legal actions of each env now."""
        return self.env.action_masks()

    def close(self) -> None:
        self.env.close()

    def get_attr(self, attr_name: str, indices: Indices = None) -> list[Any]:
        """The env's attribute, once per env asked (every env is one game of the same env)."""
        value = getattr(self.env, attr_name)
        return [value] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Indices = None) -> None:
        setattr(self.env, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Indices = None, **method_kwargs: Any
    ) -> list[Any]:
        """Each env's answer; ``action_masks`` and ``render`` give one row or line per env."""
        asked = self._indices(indices)
        if method_name in (MASKS, "render"):
            answer = getattr(self.env, method_name)(*method_args, **method_kwargs)
            return [None if answer is None else answer[e] for e in asked]
        value = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [value] * len(asked)

    def env_is_wrapped(self, wrapper_class: type, indices: Indices = None) -> list[bool]:
        return [False] * len(self._indices(indices))  # no Gymnasium wrapper within: one compiled batch

    def render(self, mode: str | None = None) -> str | None:
        """Each env's line, as ``VectorGameEnv.render`` writes them (``render_mode="ansi"``)."""
        lines = self.env.render()
        return None if lines is None else "\n".join(lines)

    def get_images(self) -> Sequence[None]:
        return [None] * self.num_envs  # text only

    def _indices(self, indices: Indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)


def vec_env(rules: str | Ruleset = "classic-11", n_envs: int = 1024, **kwargs: Any) -> GameVecEnv:
    """``n_envs`` games of ``rules`` (a preset's name or a ruleset), one learning seat each against
    the kernel's bots, as a stable-baselines3 ``VecEnv``; ``kwargs`` are
    :class:`~.vector.VectorGameEnv`'s (``num_players``, ``opponents``, ``seat``, ``reward``,
    ``actions``, ``threads``, the ruleset's options)."""
    kwargs.setdefault("autoreset_mode", AutoresetMode.SAME_STEP)
    return GameVecEnv(VectorGameEnv(n_envs, rules, **kwargs))


def self_play_vec_env(
    rules: str | Ruleset = "classic-11", n_games: int = 256, num_players: int = 2, **kwargs: Any
) -> GameVecEnv:
    """Self-play: every seat of ``n_games`` games is an env (``n_games * num_players`` in all,
    :class:`~.vector.SeatVectorEnv`), played by the one policy being trained; ``kwargs`` are
    :class:`~.vector.MultiAgentVector`'s (``bots``, ``reward``, ``actions``, the ruleset's options).
    Only the seat to move is read: every other env's mask allows action 0 alone."""
    kwargs.setdefault("autoreset_mode", AutoresetMode.SAME_STEP)
    return GameVecEnv(MultiAgentVector(n_games, rules, num_players, **kwargs).seat_vector())


def export_policy(model: Any, path: str | Path, normalise: Any = None) -> None:
    """Save a stable-baselines3 policy trained on :func:`vec_env` (PPO or MaskablePPO,
    ``MlpPolicy``) as a numpy network py421 seats (``bot:policy:PATH``, :mod:`.saved_policy`).

    ``normalise``: the ``VecNormalize`` that normalised its observations, if any. The rules,
    players and actions are the env's.
    """
    import torch  # what the model was trained with (the sb3 extra)

    env = model.get_env()
    game = _game_env(env)
    policy = model.policy
    layers = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    layers.append(policy.action_net)
    kinds = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}
    activation = kinds.get(policy.activation_fn)
    if activation is None or not isinstance(policy.action_net, torch.nn.Linear):
        raise InvalidParameter(Message("envs.sb3.not_mlp", {"activation": repr(policy.activation_fn)}))
    weights = [(m.weight.detach().cpu().numpy().T, m.bias.detach().cpu().numpy()) for m in layers]
    scaled = None
    if normalise is not None and normalise.norm_obs:
        rms = normalise.obs_rms
        scaled = (rms.mean, rms.var, float(normalise.clip_obs), float(normalise.epsilon))
    actions: ActionSet = "all" if game.action_masks().shape[1] > GYM_ACTIONS else "gym"
    save_network(Path(path), weights, game.rules, game.encoder.players, actions, activation, scaled)


def _game_env(env: Any) -> VectorGameEnv | SeatVectorEnv:
    """The :class:`~.vector.VectorGameEnv` under stable-baselines3's wrappers."""
    while not isinstance(env, GameVecEnv):
        inner = getattr(env, "venv", None)
        if inner is None:
            raise InvalidParameter(Message("envs.sb3.not_ours", {"env": type(env).__name__}))
        env = inner
    return env.env
