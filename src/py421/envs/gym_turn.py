"""``py421/Turn-v0``: one turn of up to ``throws`` throws against a target result.

The turn is played by the engine: the player leads a décharge round whose
turns allow ``throws`` throws, and the episode ends with its turn: reward 1 if its final result is
strictly better than the target under the ruleset's ranking, else 0. That is
the objective of :func:`py421.solver.turn.odds`, so :func:`optimal_value` is
the best expected reward and :func:`solver_action` plays it.

Observation (``MultiDiscrete([7, 7, 7, 4, 4, 7, 7, 7])``): the three dice,
highest first; the throws used; the throws allowed; the target's three faces.
Action (``Discrete(8)``): the rethrow bits of :mod:`.observation` (0 stops,
bit ``i`` throws die ``i`` again); all eight are legal at every decision.
« Le bon » is not offered: it only forbids stopping after the next throw, so
it never helps a single turn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from ..core.dice import ALL_RESULTS, Result, format_dice
from ..core.engine import new_game, throws_allowed
from ..core.errors import IllegalAction, InvalidNotation, InvalidParameter, Message
from ..core.events import TurnEnded
from ..core.rules import Ruleset
from ..core.state import Phase, Round, State
from ..solver.exact_turn import advise
from ..solver.tables import KEEP_INDEX, RESULTS, TRANSITIONS
from ..solver.turn import beats_target, odds
from .observation import GYM_ACTIONS, decode, policy_action
from .picture import Image, turn_picture
from .play import RENDER_MODES, RENDER_OFF, RenderMode, check_render_mode, check_seed, faces, make_rules

IntArray = npt.NDArray[np.int64]
TurnPolicy = Callable[[IntArray], object]
"""A Turn-v0 policy: an observation in, an action 0 to 7 out."""
PLAYER = 0  # the player's seat in the round the turn is played in


def check_gym_action(action: object, env: str) -> int:
    if isinstance(action, bool) or not isinstance(action, int | np.integer) or not 0 <= action < GYM_ACTIONS:
        raise IllegalAction(Message("envs.gym_turn.action", {"env": env, "action": repr(action)}))
    return int(action)


def turn_rules(rules: Ruleset, throws: int) -> Ruleset:
    """The ruleset with décharge turns of ``throws`` throws, the turn the player plays."""
    return rules.with_options(decharge_throws=throws)


def turn_state(rules: Ruleset) -> State:
    """A décharge round of two that the player leads: its turn is next.

    ``rules`` come from :func:`turn_rules`. The target is the environment's
    alone: the episode ends with the player's turn, before the other seat plays.
    """
    start = new_game(rules, ("player", "other"))
    total = start.manche_total
    return replace(
        start,
        phase=Phase.DECHARGE,
        pot=0,
        tokens=(total // 2, total - total // 2),
        leader=PLAYER,
        draw=None,
        round=Round(order=(PLAYER, 1 - PLAYER)),
        events=(),
    )


def check_throws(throws: object) -> int:
    if isinstance(throws, bool) or not isinstance(throws, int | np.integer) or throws not in (2, 3):
        raise InvalidParameter(Message("envs.gym_turn.throws", {"throws": repr(throws)}))
    return int(throws)


def check_target(target: object) -> Result | None:
    """A result written as dice (``"421"``; a number such as 421 is read the same), or None."""
    if target is None:
        return None
    if isinstance(target, bool) or not isinstance(target, str | int):
        raise InvalidParameter(Message("envs.gym_turn.target", {"target": repr(target)}))
    try:
        return Result.parse(str(target))
    except InvalidNotation as exc:  # what is wrong with the dice, in the documented error
        reason = exc.message or str(exc)
        raise InvalidParameter(
            Message("envs.gym_turn.target_notation", {"target": repr(target), "reason": reason})
        ) from None


def optimal_value(rules: Ruleset, target: Result | None, throws: int) -> float:
    """The best expected reward: P(ending strictly better than the target) under optimal play.

    Without a target, the average over the target's throw of three dice.
    """
    if target is not None:
        return odds(rules.table, target, throws)
    return sum(float(r.probability) * odds(rules.table, r, throws) for r in ALL_RESULTS)


def policy_value(
    policy: TurnPolicy,
    rules: str | Ruleset = "classic-11",
    target: Result | str | int | None = None,
    throws: int = 3,
) -> float:
    """The exact expected reward of ``policy`` on Turn-v0: P(its turn ends better than the target).

    ``policy`` is any callable from an observation of Turn-v0 (a numpy array,
    as ``step`` returns it) to an action 0 to 7: a Q-table's greedy choice, a
    network, a rule of thumb. It is asked once for every decision it can
    face (each result in hand after each throw but the last), and its answers
    are weighed by the dice's exact probabilities, by backward induction:
    nothing is sampled. Its value is at most :func:`optimal_value`, which
    :func:`solver_action` reaches. Without a target, the average over the
    target's throw of three dice, as Turn-v0 draws it.
    """
    table = make_rules(rules, {}).table
    turns = check_throws(throws)
    fixed = target if isinstance(target, Result) else check_target(target)
    targets = [(1.0, fixed)] if fixed is not None else [(float(t.probability), t) for t in RESULTS]
    total = 0.0
    for weight, goal in targets:
        win = beats_target(table, goal)
        value = win  # after the last throw the result stands
        for used in range(turns - 1, 0, -1):  # the decisions after throw ``used``
            after = TRANSITIONS @ value  # keeping each of the 28 keeps, then throwing
            chosen = np.empty_like(win)
            for i, result in enumerate(RESULTS):
                observation = np.array([*result.dice, used, turns, *goal.dice], dtype=np.int64)
                action = policy_action(policy(observation), "the policy")
                chosen[i] = win[i] if action == 0 else after[KEEP_INDEX[_kept(result.dice, action)]]
            value = chosen
        total += weight * float(TRANSITIONS[KEEP_INDEX[()]] @ value)
    return total


def _kept(dice: tuple[int, ...], bits: int) -> tuple[int, ...]:
    return tuple(face for i, face in enumerate(dice) if not bits >> i & 1)


def solver_action(rules: str | Ruleset, observation: IntArray) -> int:
    """The solver's best action for an observation of Turn-v0 (ties: stop, then keep more);
    ``rules`` a preset's name or a ruleset."""
    table = make_rules(rules, {}).table
    dice = tuple(int(f) for f in observation[:3])
    left = int(observation[4] - observation[3])
    target = Result.of(int(f) for f in observation[5:8])
    best = advise(table, Result.of(dice), left, target).options[0]
    if best.stop:
        return 0
    rest, bits = list(best.keep), 0
    for i, face in enumerate(dice):
        if face in rest:
            rest.remove(face)
        else:
            bits |= 1 << i
    return bits


class TurnEnv(gymnasium.Env[IntArray, np.int64]):
    """One turn against a target; ``target=None`` throws a new target each episode."""

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "render_fps": 4}  # noqa: RUF012 - Env declares it so
    render_mode: RenderMode | None  # Env says str: these are the modes compared below

    def __init__(
        self,
        rules: str | Ruleset = "classic-11",
        target: str | int | None = None,
        throws: int = 3,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        self.rules = make_rules(rules, options)
        self.throws = check_throws(throws)
        self.target = check_target(target)
        self.render_mode = check_render_mode(render_mode)
        self.observation_space = spaces.MultiDiscrete([7, 7, 7, 4, 4, 7, 7, 7])
        self.action_space = spaces.Discrete(GYM_ACTIONS)
        self._turn_rules = turn_rules(self.rules, self.throws)
        self._start = turn_state(self._turn_rules)  # states are frozen: one start serves every episode
        self._state = self._start
        self._current_target = self.target
        self._final: tuple[Result, int] | None = None  # the turn's result and throws, once over

    def optimal_value(self) -> float:
        """The solver's value of this environment: the best expected reward per episode."""
        return optimal_value(self.rules, self.target, self.throws)

    def policy_value(self, policy: TurnPolicy) -> float:
        """The exact expected reward of ``policy`` in this environment (see :func:`policy_value`)."""
        return policy_value(policy, self.rules, self.target, self.throws)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[IntArray, dict[str, Any]]:
        super().reset(seed=check_seed(seed))
        target = self.target or Result.of(faces(self.np_random, 3))
        self._current_target = target
        state = self._start
        request = state.chance
        assert request is not None
        self._state = state.apply_dice(faces(self.np_random, request.count))
        self._final = None
        if self.render_mode == "human":
            self.render()
        return self._observation(), {"target": str(target)}

    def step(self, action: np.int64) -> tuple[IntArray, SupportsFloat, bool, bool, dict[str, Any]]:
        target = self._current_target
        if target is None or self._state.to_move != PLAYER:
            raise gymnasium.error.ResetNeeded(str(Message("envs.gym_turn.reset")))
        state = self._state.apply(decode(self._state, check_gym_action(action, "Turn-v0")))
        info = {"target": str(target)}
        reward, over = 0.0, False
        while state.to_move != PLAYER:  # the throw asked for, up to the next decision or the turn's end
            ended = next((e for e in state.events if isinstance(e, TurnEnded)), None)
            if ended is not None:
                self._final = (ended.result, ended.throws)
                reward, over = float(self.rules.table.beats(ended.result, target)), True
                info["result"] = str(ended.result)
                break
            request = state.chance
            assert request is not None
            state = state.apply_dice(faces(self.np_random, request.count))
        self._state = state
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, over, False, info

    def _observation(self) -> IntArray:
        target = self._current_target
        assert target is not None
        r = self._state.round
        if r is not None and r.current == PLAYER and r.dice:
            dice, throws, allowed = r.dice, r.throws, throws_allowed(self._state)
        else:  # the turn is over: its final result
            assert self._final is not None
            result, throws = self._final
            dice, allowed = result.dice, self.throws
        return np.array([*dice, throws, allowed, *target.dice], dtype=np.int64)

    def render(self) -> str | Image | None:
        if self.render_mode is None:
            gymnasium.logger.warn(RENDER_OFF)
            return None
        obs = self._observation()
        if self.render_mode == "rgb_array":
            target = self._current_target
            assert target is not None
            won = None if self._final is None else self.rules.table.beats(self._final[0], target)
            hand, goal = [int(f) for f in obs[:3]], [int(f) for f in obs[5:8]]
            return turn_picture(hand, int(obs[3]), int(obs[4]), goal, won)
        text = f"target {format_dice(obs[5:8])}: {format_dice(obs[:3])} after throw {obs[3]} of {obs[4]}"
        if self.render_mode == "human":
            print(text)
            return None
        return text


__all__ = ["TurnEnv", "TurnPolicy", "optimal_value", "policy_value", "solver_action"]
