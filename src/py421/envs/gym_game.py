"""``py421/Game-v0``: a whole game, one learning seat against bots.

The other seats are :mod:`py421.players` bots (``random``, ``heuristic``,
``optimal``), :class:`~py421.players.Player` objects, or policies: callables
``(observation, mask) -> action`` that see the table as the learning seat
would from their seat, so a policy can play itself. The dice and the bots'
random choices come from the seed. A step is one decision of the learning
seat; everything up to its next decision (throws, the other seats' turns,
whole rounds) is played in between.

Observation: the learning seat's vector of :class:`.observation.ObservationEncoder`.
Action (``Discrete(8)``): the rethrow bits of :mod:`.observation`, legal at
every turn decision (0 stops, bit ``i`` throws die ``i`` again). At the rare
stake decision of a « main chaude » (``stake_choice`` is 1), 0 plays
« pour ce qui est » and any other action « pour ce qui vient ». « Le bon » is
not offered: it never gains anything (the PettingZoo environment has it).
Rewards are those of :mod:`.play` for the learning seat.
:meth:`GameEnv.action_masks` marks the actions legal now (all eight at a
decision), as sb3-contrib's MaskablePPO asks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, SupportsFloat, TypeGuard, cast

import gymnasium
import numpy as np
from gymnasium import spaces

from ..core.actions import Action
from ..core.engine import new_game
from ..core.errors import InvalidPlayers, Message
from ..core.events import Event
from ..core.game import Game
from ..core.rules import Ruleset
from ..core.state import State
from ..players import Player, levels, make_bot
from ..players.registry import check_levels
from .gym_turn import check_gym_action
from .observation import (
    GYM_ACTIONS,
    FloatArray,
    MaskArray,
    ObservationEncoder,
    gym_mask,
    gym_move,
)
from .picture import Image, table_picture
from .play import (
    RENDER_MODES,
    RENDER_OFF,
    SKIPPED_GAMES,
    RenderMode,
    check_render_mode,
    check_reward,
    check_seed,
    make_rules,
    nothing_to_decide,
    rewards,
    throw,
)
from .policy_seat import Policy, PolicyPlayer
from .render import table_text
from .saved_policy import SavedPolicy

Opponent = str | Player | Policy


def _bot_levels() -> str:
    return " | ".join(level.key for level in levels())


def _opponents() -> Message:
    return Message("envs.gym_game.kinds", {"levels": _bot_levels()})


def is_player(opponent: object) -> TypeGuard[Player]:
    return callable(getattr(opponent, "choose", None))


def check_opponents(opponents: Opponent | Sequence[Opponent], others: int) -> tuple[Opponent, ...]:
    """One opponent per other seat: a single one (not a list) plays every other seat."""
    if isinstance(opponents, str) or is_player(opponents) or callable(opponents):
        chosen: tuple[Opponent, ...] = (opponents,) * others
    elif isinstance(opponents, Sequence):
        chosen = tuple(opponents)
    else:
        raise InvalidPlayers(
            Message("envs.gym_game.opponents", {"kinds": _opponents(), "opponents": repr(opponents)})
        )
    if len(chosen) != others:
        raise InvalidPlayers(Message("envs.gym_game.count", {"others": others, "given": len(chosen)}))
    for opponent in chosen:
        if isinstance(opponent, str) and opponent not in {level.key for level in levels()}:
            raise InvalidPlayers(
                Message("envs.gym_game.opponent", {"opponent": repr(opponent), "accepted": _bot_levels()})
            )
        if not isinstance(opponent, str) and not (is_player(opponent) or callable(opponent)):
            raise InvalidPlayers(
                Message("envs.gym_game.not_accepted", {"opponent": repr(opponent), "kinds": _opponents()})
            )
    return chosen


def check_fit(opponents: Sequence[Opponent], rules: Ruleset, players: int) -> None:
    """Refuse, saying what differs, a saved policy seated at a game it did not learn: the check
    ``421 simulate`` and ``421 play`` make (:func:`~py421.players.registry.check_levels`), for a
    bot level (``bot:NAME`` of a policy file), a :class:`~.saved_policy.SavedPolicy` and a
    :class:`~.policy_seat.PolicyPlayer` of one."""
    check_levels([opponent for opponent in opponents if isinstance(opponent, str)], rules, players)
    for opponent in opponents:
        saved = opponent.policy if isinstance(opponent, PolicyPlayer) else opponent
        if isinstance(saved, SavedPolicy):
            saved.check(rules, players)


class GameEnv(gymnasium.Env[FloatArray, np.int64]):
    """A whole game from ``seat``; ``options`` are the ruleset's options."""

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "render_fps": 4}  # noqa: RUF012 - Env declares it so
    render_mode: RenderMode | None  # Env says str: these are the modes compared below

    def __init__(
        self,
        rules: str | Ruleset = "classic-11",
        num_players: int = 2,
        opponents: Opponent | Sequence[Opponent] = "heuristic",
        seat: int = 0,
        reward: str = "tokens",
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        self.rules = make_rules(rules, options)
        if isinstance(num_players, bool) or not isinstance(num_players, int):
            raise InvalidPlayers(Message("envs.gym_game.num_players", {"num_players": repr(num_players)}))
        self.names = tuple(f"player_{s}" for s in range(num_players))
        new_game(self.rules, self.names)  # refuses a bad player count now
        if isinstance(seat, bool) or seat not in range(num_players):
            raise InvalidPlayers(Message("envs.gym_game.seat", {"seat": repr(seat), "last": num_players - 1}))
        self.seat = seat
        self.opponents = check_opponents(opponents, num_players - 1)
        check_fit(self.opponents, self.rules, num_players)
        if any(opponent == "optimal" for opponent in self.opponents if isinstance(opponent, str)):
            from ..players.optimal import prepare

            prepare(self.rules, num_players)  # solved once, before the first game
        self.reward = check_reward(reward)
        self.render_mode = check_render_mode(render_mode)
        self.encoder = ObservationEncoder(self.rules, num_players)
        self.observation_space = spaces.Box(self.encoder.low, self.encoder.high, dtype=np.float32)
        self.action_space = spaces.Discrete(GYM_ACTIONS)
        self.game = Game(self.rules, self.names)
        self._others: dict[int, Callable[[State], Action]] = {}
        self._unpaid: list[Event] = []
        self._unshown: list[Event] = []

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[FloatArray, dict[str, Any]]:
        super().reset(seed=check_seed(seed))
        for _ in range(SKIPPED_GAMES):
            self.game = Game(self.rules, self.names)
            others = [s for s in range(len(self.names)) if s != self.seat]
            bot_seed = str(self.np_random.integers(2**63))  # drawn whatever the opponents: same dice
            self._others = {
                s: self._chooser(opponent, s, f"{bot_seed}:{s}")
                for s, opponent in zip(others, self.opponents, strict=True)
            }
            self._unpaid, self._unshown = [], list(self.game.state.events)
            self._play_until_decision()
            if not self.game.state.is_over:
                break  # a game in which the seat never decides (an Espagnole) is skipped
        else:
            raise nothing_to_decide(self.rules, Message("envs.play.learning_seat"))
        if self.render_mode == "human":
            self.render()
        return self.encoder.encode(self.game.state, self.seat), {}

    def step(self, action: np.int64) -> tuple[FloatArray, SupportsFloat, bool, bool, dict[str, Any]]:
        index = check_gym_action(action, "Game-v0")
        state = self.game.state
        if state.to_move != self.seat:
            raise gymnasium.error.ResetNeeded(str(Message("envs.gym_game.reset")))
        self._record(self.game.act(gym_move(state, index)).events)
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
        final = self.game.state
        return self.encoder.encode(final, self.seat), earned, final.is_over, False, self._outcome(final)

    def _outcome(self, state: State) -> dict[str, Any]:
        """At the end, who lost the game and whether the learning seat did; before it, nothing."""
        if state.outcome is None:
            return {}
        return {"losers": state.outcome.losers, "lost": self.seat in state.outcome.losers}

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
                self._record(self.game.act(self._others[state.to_move](state)).events)

    def _chooser(self, opponent: Opponent, seat: int, seed: str) -> Callable[[State], Action]:
        """How the opponent at ``seat`` chooses: a bot seeded anew each game, a Player, a policy."""
        if isinstance(opponent, str):
            return make_bot(opponent, seed).choose
        if is_player(opponent):
            return opponent.choose
        # check_opponents let only callables through; a saved policy answers in its own actions
        actions = opponent.actions if isinstance(opponent, SavedPolicy) else "gym"
        who = Message("envs.gym_game.policy_seat", {"seat": seat})
        return PolicyPlayer(cast(Policy, opponent), who, actions).choose

    def action_masks(self) -> MaskArray:
        """The learning seat's legal actions now, 1 each (all 0 once the game is over)."""
        state = self.game.state
        return gym_mask(state) if state.to_move == self.seat else np.zeros(GYM_ACTIONS, dtype=np.int8)

    def _record(self, events: tuple[Event, ...]) -> None:
        self._unpaid.extend(events)
        self._unshown.extend(events)

    def render(self) -> str | Image | None:
        if self.render_mode is None:
            gymnasium.logger.warn(RENDER_OFF)
            return None
        if self.render_mode == "rgb_array":
            return table_picture(self.game.state)
        text = table_text(self.game.state, self._unshown, gym=True)
        self._unshown = []
        if self.render_mode == "human":
            print(text)
            return None
        return text
