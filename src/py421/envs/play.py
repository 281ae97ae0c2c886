"""What the environments share: rulesets by name, dice from numpy, rewards from events.

Rewards are read from the engine's events, never recomputed:

- with ``reward="tokens"`` (the default), each settled round pays every seat
  its tokens given away minus the tokens it took from the pot, received or
  came to owe (« queue de la vache »), divided by the tokens of a manche
  (the pot plus every seat's starting tokens); the end of the game adds -1
  for each loser;
- with ``reward="game"``, only the end of the game pays: -1 for each loser.

>>> from py421.core.events import Gave, GameOver
>>> earned = rewards([Gave(0, 1, 3, 3), GameOver((1,))], players=2, manche_tokens=12, reward="tokens")
>>> earned
[0.25, -1.25]
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Iterable, Mapping
from typing import Any, Literal, cast, get_args

import numpy as np

from ..core.errors import InvalidParameter, InvalidRuleset, Message
from ..core.events import DebtOwed, Event, GameOver, Gave, Took
from ..core.rules import Ruleset
from ..core.state import ChanceRequest

Reward = Literal["tokens", "game"]
REWARDS: tuple[Reward, ...] = get_args(Reward)
# Games over before a decision are skipped; this many in a row means the rules leave none.
SKIPPED_GAMES = 200
RenderMode = Literal["ansi", "human", "rgb_array"]
RENDER_MODES: tuple[RenderMode, ...] = get_args(RenderMode)
RENDER_OFF = f"render() needs a render_mode ({' | '.join(RENDER_MODES)}) when the env is made"


def make_rules(rules: str | Ruleset, options: Mapping[str, Any]) -> Ruleset:
    """A preset by name (or a ruleset) with some options changed."""
    if isinstance(rules, str):
        rules = Ruleset.preset(rules)
    elif not isinstance(rules, Ruleset):
        raise InvalidRuleset(Message("envs.play.rules", {"value": repr(rules)}))
    return rules.with_options(**options) if options else rules


def check_render_mode(mode: object) -> RenderMode | None:
    """A known mode, or None after a warning.

    Tools pass modes of their own (stable-baselines3's ``make_vec_env`` asks
    every environment for ``rgb_array``): an unknown one turns rendering off
    instead of stopping the tool.
    """
    return cast("RenderMode | None", offered_render_mode(mode, RENDER_MODES, stacklevel=4))


def offered_render_mode(mode: object, offered: tuple[str, ...], stacklevel: int = 3) -> str | None:
    """``mode`` if it is one of ``offered``; else None, after a warning naming those offered
    (``stacklevel``: the warning is said to come from the code that made the environment)."""
    if mode is None:
        return None
    for known in offered:
        if mode == known:
            return known
    warnings.warn(
        f"render_mode={mode!r} is not offered, so nothing is rendered; "
        f"render_mode takes {' | '.join(offered)}",
        UserWarning,
        stacklevel=stacklevel,
    )
    return None


def check_seed(seed: object) -> int | None:
    """A seed as numpy's ``default_rng`` takes it: a whole number from 0, or None."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or int(seed) < 0:
        raise InvalidParameter(Message("envs.play.seed", {"value": repr(seed)}))
    return int(seed)


def check_illegal_reward(value: object) -> float | None:
    """None, or the finite number an illegal action earns."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameter(Message("envs.aec.illegal_reward", {"value": repr(value)}))
    if not math.isfinite(float(value)):
        raise InvalidParameter(Message("envs.aec.illegal_reward_finite", {"value": repr(value)}))
    return float(value)


def check_reward(reward: str) -> Reward:
    for known in REWARDS:
        if reward == known:
            return known
    raise InvalidParameter(
        Message(
            "ruleset.bad_value", {"option": "reward", "value": repr(reward), "accepted": " | ".join(REWARDS)}
        )
    )


def throw(rng: np.random.Generator, request: ChanceRequest) -> tuple[int, ...]:
    """The faces of one requested throw: ``rng.integers(1, 7, size=count)``, in that order."""
    return faces(rng, request.count)


def faces(rng: np.random.Generator, count: int) -> tuple[int, ...]:
    return tuple(int(face) for face in rng.integers(1, 7, size=count))


def rewards(events: Iterable[Event], *, players: int, manche_tokens: int, reward: Reward) -> list[float]:
    """What each seat earns from ``events`` (see the module's documentation)."""
    earned = [0.0] * players
    for event in events:
        if reward == "tokens":
            match event:
                case Took(seat=seat, amount=amount) | DebtOwed(seat=seat, amount=amount):
                    earned[seat] -= amount / manche_tokens
                case Gave(giver=giver, receiver=receiver, amount=amount):
                    earned[giver] += amount / manche_tokens
                    earned[receiver] -= amount / manche_tokens
        if isinstance(event, GameOver):
            for seat in event.losers:
                earned[seat] -= 1.0
    return earned


def nothing_to_decide(rules: Ruleset, who: str | Message) -> InvalidRuleset:
    """The error for rules under which games end before ``who`` has anything to decide.

    ``who`` is worded in the reader's language: ``envs.play.learning_seat``, ``envs.play.any_agent``
    or ``envs.play.anyone``.
    """
    return InvalidRuleset(
        Message("envs.play.nothing_to_decide", {"rules": rules.name, "games": SKIPPED_GAMES, "who": who})
    )
