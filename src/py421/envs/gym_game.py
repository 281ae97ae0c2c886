"""``py421/Game-v0``: a whole game, one learning seat against bots.

The other seats are :mod:`py421.players` bots (``random``, ``heuristic``,
``optimal``); the dice and the bots' random choices come from the seed. A
step is one decision of the learning seat; everything up to its next
decision (throws, the bots' turns, whole rounds) is played in between.

Observation: the learning seat's vector of :class:`.observation.ObservationEncoder`.
Action (``Discrete(8)``): the rethrow bits of :mod:`.observation`, legal at
every turn decision (0 stops, bit ``i`` throws die ``i`` again). At the rare
stake decision of a « main chaude » (``stake_choice`` is 1), 0 plays
« pour ce qui est » and any other action « pour ce qui vient ». « Le bon » is
not offered: it never gains anything (the PettingZoo environment has it).
Rewards are those of :mod:`.play` for the learning seat.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
from gymnasium import spaces

from ..core.actions import Action, ChooseStake
from ..core.engine import new_game
from ..core.errors import InvalidPlayers
from ..core.events import Event
from ..core.game import Game
from ..core.rules import Ruleset
from ..players import BOTS, Player, make_bot
from .gym_turn import check_gym_action
from .observation import GYM_ACTIONS, FloatArray, ObservationEncoder, decode
from .play import (
    RENDER_MODES,
    SKIPPED_GAMES,
    RenderMode,
    check_render_mode,
    check_reward,
    make_rules,
    nothing_to_decide,
    rewards,
    throw,
)
from .render import table_text


def check_opponents(opponents: str | Sequence[str], others: int) -> tuple[str, ...]:
    """One bot level per other seat: a single name is used for every one."""
    accepted = " | ".join(BOTS)
    if not isinstance(opponents, str | Sequence):
        raise InvalidPlayers(f"opponents is a bot level or a list of them ({accepted}), not {opponents!r}")
    names = (opponents,) * others if isinstance(opponents, str) else tuple(opponents)
    if len(names) != others:
        raise InvalidPlayers(f"give one opponent for each of the {others} other seats, not {len(names)}")
    for name in names:
        if name not in BOTS:
            raise InvalidPlayers(f"opponent {name!r} is not a bot level; accepted: {accepted}")
    return names


class GameEnv(gymnasium.Env[FloatArray, np.int64]):
    """A whole game from ``seat``; ``options`` are the ruleset's options."""

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "render_fps": 4}  # noqa: RUF012 - Env declares it so
    render_mode: RenderMode | None  # Env says str: these are the modes compared below

    def __init__(
        self,
        rules: str | Ruleset = "classic-11",
        num_players: int = 2,
        opponents: str | Sequence[str] = "heuristic",
        seat: int = 0,
        reward: str = "tokens",
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        self.rules = make_rules(rules, options)
        if isinstance(num_players, bool) or not isinstance(num_players, int):
            raise InvalidPlayers(f"num_players is a whole number of players, not {num_players!r}")
        self.names = tuple(f"player_{s}" for s in range(num_players))
        new_game(self.rules, self.names)  # refuses a bad player count now
        if isinstance(seat, bool) or seat not in range(num_players):
            raise InvalidPlayers(f"seat={seat!r} does not exist; seats are 0 to {num_players - 1}")
        self.seat = seat
        self.opponents = check_opponents(opponents, num_players - 1)
        if "optimal" in self.opponents:
            from ..players.optimal import prepare

            prepare(self.rules, num_players)  # solved once, before the first game
        self.reward = check_reward(reward)
        self.render_mode = check_render_mode(render_mode)
        self.encoder = ObservationEncoder(self.rules, num_players)
        self.observation_space = spaces.Box(self.encoder.low, self.encoder.high, dtype=np.float32)
        self.action_space = spaces.Discrete(GYM_ACTIONS)
        self.game = Game(self.rules, self.names)
        self._bots: dict[int, Player] = {}
        self._unpaid: list[Event] = []
        self._unshown: list[Event] = []

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[FloatArray, dict[str, Any]]:
        super().reset(seed=seed)
        for _ in range(SKIPPED_GAMES):
            self.game = Game(self.rules, self.names)
            others = [s for s in range(len(self.names)) if s != self.seat]
            bot_seed = str(self.np_random.integers(2**63))
            self._bots = {
                s: make_bot(level, f"{bot_seed}:{s}") for s, level in zip(others, self.opponents, strict=True)
            }
            self._unpaid, self._unshown = [], list(self.game.state.events)
            self._play_until_decision()
            if not self.game.state.is_over:
                break  # a game in which the seat never decides (an Espagnole) is skipped
        else:
            raise nothing_to_decide(self.rules, "the learning seat")
        if self.render_mode == "human":
            self.render()
        return self.encoder.encode(self.game.state, self.seat), {}

    def step(self, action: np.int64) -> tuple[FloatArray, SupportsFloat, bool, bool, dict[str, Any]]:
        index = check_gym_action(action, "Game-v0")
        state = self.game.state
        if state.to_move != self.seat:
            raise gymnasium.error.ResetNeeded("the game is over or not started: call reset() first")
        r = state.round
        move: Action
        if r is not None and r.tie is not None:  # « main chaude »: the only other decision
            move = ChooseStake("est" if index == 0 else "vient")
        else:
            move = decode(state, index)
        self._record(self.game.act(move).events)
        self._play_until_decision()
        earned = rewards(
            self._unpaid,
            players=len(self.names),
            manche_tokens=self.game.state.manche_total,
            reward=self.reward,
        )[self.seat]
        self._unpaid = []
        if self.render_mode == "human":
            self.render()
        return self.encoder.encode(self.game.state, self.seat), earned, self.game.state.is_over, False, {}

    def _play_until_decision(self) -> None:
        """Throw the dice and let the bots play until the seat decides or the game ends."""
        while not (state := self.game.state).is_over:
            request = state.chance
            if request is not None:
                self._record(self.game.throw(throw(self.np_random, request)).events)
            elif state.to_move == self.seat:
                return
            else:
                assert state.to_move is not None
                self._record(self.game.act(self._bots[state.to_move].choose(state)).events)

    def _record(self, events: tuple[Event, ...]) -> None:
        self._unpaid.extend(events)
        self._unshown.extend(events)

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() needs render_mode='ansi' or 'human' when the env is made")
            return None
        text = table_text(self.game.state, self._unshown, gym=True)
        self._unshown = []
        if self.render_mode == "human":
            print(text)
            return None
        return text
