"""The PettingZoo AEC environment: a whole game of 421, one agent per seat.

Agents are ``player_0`` to ``player_{n-1}`` (seat order). The environment
throws the dice itself (a numpy generator from the seed) and hands each
decision to the seat the engine names; draws, coups secs and every throw are
played in between. Observations, actions and rewards are described in
``docs/rl.md``; the rules are the engine's (``self.game`` is the
:class:`~py421.core.game.Game` being played, so ``self.game.record()`` saves it).
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]  # pettingzoo ships no type information
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from ..core.engine import new_game
from ..core.errors import IllegalAction, InvalidPlayers, Message
from ..core.events import Event
from ..core.game import Game
from ..core.rules import Ruleset
from .observation import NUM_ACTIONS, FloatArray, MaskArray, ObservationEncoder, action_mask, decode
from .picture import Image, table_picture
from .play import (
    RENDER_MODES,
    RENDER_OFF,
    SKIPPED_GAMES,
    check_illegal_reward,
    check_render_mode,
    check_reward,
    check_seed,
    make_rules,
    nothing_to_decide,
    rewards,
    throw,
)
from .render import table_text

Observation = dict[str, FloatArray | MaskArray]


class Py421Env(AECEnv):  # type: ignore[misc]  # AECEnv is untyped
    """A whole game; ``options`` are the ruleset's options (``pot=21``...)."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": list(RENDER_MODES),
        "name": "py421_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: str | Ruleset = "classic-11",
        num_players: int = 3,
        seed: int | None = None,
        *,
        render_mode: str | None = None,
        reward: str = "tokens",
        first_seat: int = 0,
        **options: Any,
    ) -> None:
        super().__init__()
        self.rules = make_rules(rules, options)
        if isinstance(num_players, bool) or not isinstance(num_players, int):
            raise InvalidPlayers(Message("envs.num_players", {"value": repr(num_players)}))
        self.possible_agents = [f"player_{seat}" for seat in range(num_players)]
        new_game(self.rules, self.possible_agents, first_seat=first_seat)  # refuses a bad table now
        self.first_seat = first_seat
        self.render_mode = check_render_mode(render_mode)
        self.reward = check_reward(reward)
        self.encoder = ObservationEncoder(self.rules, num_players)
        # state() is a seat's vector from seat 0: the same bounds
        self.state_space = spaces.Box(self.encoder.low, self.encoder.high, dtype=np.float32)
        self._spaces = {
            agent: (
                spaces.Dict(
                    {
                        "observation": spaces.Box(self.encoder.low, self.encoder.high, dtype=np.float32),
                        "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
                    }
                ),
                spaces.Discrete(NUM_ACTIONS),
            )
            for agent in self.possible_agents
        }
        self._seed = check_seed(seed)
        self._rng: np.random.Generator | None = None
        self._unpaid: list[Event] = []  # events whose rewards the next step pays
        self._unshown: list[Event] = []  # events the next render tells

    # -- spaces -----------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._spaces[self._check_agent(agent)][0]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._spaces[self._check_agent(agent)][1]

    def _check_agent(self, agent: str) -> str:
        if agent not in self._spaces:
            raise InvalidPlayers(
                Message(
                    "envs.aec.no_agent", {"agent": repr(agent), "agents": ", ".join(self.possible_agents)}
                )
            )
        return agent

    # -- playing ----------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; ``seed`` restarts the dice (else they go on from the last game)."""
        seed = check_seed(seed)
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(self._seed if seed is None else seed)
        for _ in range(SKIPPED_GAMES):
            self.game = Game(self.rules, self.possible_agents, first_seat=self.first_seat)
            self._unpaid, self._unshown = [], list(self.game.state.events)
            self._play_chance()
            if not self.game.state.is_over:
                break  # a game over before anyone decides (an Espagnole) is skipped
        else:
            raise nothing_to_decide(self.rules, Message("envs.play.anyone"))
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self._deciding_agent()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        try:
            move = decode(self.game.state, action)
        except IllegalAction as exc:
            raise IllegalAction(
                Message("envs.aec.refused", {"agent": agent, "reason": exc.message or str(exc)})
            ) from None
        self._cumulative_rewards[agent] = 0.0
        self._record(self.game.act(move).events)
        self._play_chance()
        n = len(self.possible_agents)
        earned = rewards(
            self._unpaid, players=n, manche_tokens=self.game.state.manche_total, reward=self.reward
        )
        self._unpaid = []
        self.rewards = {a: earned[seat] for seat, a in enumerate(self.possible_agents)}
        if self.game.state.is_over:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self._deciding_agent()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _play_chance(self) -> None:
        """Throw the dice until someone must decide or the game is over."""
        assert self._rng is not None
        while (request := self.game.state.chance) is not None:
            self._record(self.game.throw(throw(self._rng, request)).events)

    def _record(self, events: tuple[Event, ...]) -> None:
        self._unpaid.extend(events)
        self._unshown.extend(events)

    def _deciding_agent(self) -> str:
        seat = self.game.state.to_move
        assert seat is not None, "the game waits for a decision"
        return self.possible_agents[seat]

    # -- seeing -----------------------------------------------------------------

    def observe(self, agent: str) -> Observation:
        seat = self.possible_agents.index(self._check_agent(agent))
        state = self.game.state
        mask = action_mask(state) if state.to_move == seat else np.zeros(NUM_ACTIONS, dtype=np.int8)
        return {"observation": self.encoder.encode(state, seat), "action_mask": mask}

    def state(self) -> FloatArray:
        """The whole table (every die is public): what ``player_0`` sees."""
        return self.encoder.encode(self.game.state, 0)

    def render(self) -> str | Image | None:
        if self.render_mode is None:
            gymnasium.logger.warn(RENDER_OFF)
            return None
        if self.render_mode == "rgb_array":
            return table_picture(self.game.state)
        text = table_text(self.game.state, self._unshown)
        self._unshown = []
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: no window, no process."""


def env(
    rules: str | Ruleset = "classic-11",
    num_players: int = 3,
    seed: int | None = None,
    *,
    illegal_reward: float | None = None,
    **options: Any,
) -> Any:
    """:class:`Py421Env` with PettingZoo's checks of the calling order.

    By default an illegal action raises :class:`IllegalAction`. With a number
    for ``illegal_reward``, it ends the game instead and the agent that played
    it earns that reward, the others 0 (PettingZoo's ``TerminateIllegalWrapper``,
    as its board games do): tools that sample actions without the mask, such as
    ``pettingzoo.test.state_test``, can then play.
    """
    game: Any = Py421Env(rules, num_players, seed, **options)
    reward = check_illegal_reward(illegal_reward)
    if reward is not None:
        game = wrappers.TerminateIllegalWrapper(game, illegal_reward=reward)
    return wrappers.OrderEnforcingWrapper(game)
