"""Reinforcement-learning environments: PettingZoo, Gymnasium (and OpenSpiel).

Gymnasium and PettingZoo come with the ``rl`` extra (``pip install
'.[rl]'`` in the py421 folder) and load only when an environment is made, so importing this
package never needs them. Importing it registers ``py421/Turn-v0`` and
``py421/Game-v0`` with Gymnasium when Gymnasium is installed;
``gymnasium.make("py421.envs:py421/Turn-v0")`` imports it for you.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from ..core.errors import Message
from ..core.rules import Ruleset
from ..extras import install_command
from .observation import NUM_ACTIONS, ObservationEncoder, action_mask, action_name, decode, encode

GYM_IDS = {"py421/Turn-v0": "py421.envs.gym_turn:TurnEnv", "py421/Game-v0": "py421.envs.gym_game:GameEnv"}
# what gymnasium.make_vec makes by default (vectorization_mode="vector_entry_point"): the fast env
VECTOR_ENTRY_POINTS = {"py421/Game-v0": "py421.envs.vector:game_v0_vector"}


def require(module: str) -> ModuleType:
    """Import ``module`` from the ``rl`` extra, or say how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        said = {"module": module, "install": install_command("rl")}
        raise ImportError(str(Message("envs.init.not_installed", said))) from exc


def pettingzoo_env(
    rules: str | Ruleset = "classic-11", num_players: int = 3, seed: int | None = None, **options: Any
) -> Any:
    """The PettingZoo AEC environment of a whole game (see ``docs/rl.md``).

    ``options`` are the environment's (``render_mode``, ``reward``,
    ``first_seat``, ``illegal_reward``) and the ruleset's options (``pot=21``...).
    """
    require("pettingzoo")
    from .aec import env

    return env(rules, num_players, seed, **options)


def _register() -> None:
    try:
        gymnasium = importlib.import_module("gymnasium")
    except ImportError:
        return
    # Entry points are text: the environments' modules load only when one is made.
    for env_id, entry in GYM_IDS.items():
        if env_id not in gymnasium.registry:
            vector = VECTOR_ENTRY_POINTS.get(env_id)
            gymnasium.register(id=env_id, entry_point=entry, vector_entry_point=vector)


_register()

__all__ = [
    "GYM_IDS",
    "NUM_ACTIONS",
    "ObservationEncoder",
    "action_mask",
    "action_name",
    "decode",
    "encode",
    "pettingzoo_env",
    "require",
]
