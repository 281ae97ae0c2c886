"""A trained policy at the table: a function of a seat's observation and mask, seated as a bot.

A policy file is a Python file that defines ``policy(observation, mask)``: what Game-v0's learner
sees at its decisions (:class:`~py421.envs.observation.ObservationEncoder`, the eight actions'
mask) in, an action 0 to 7 out. :func:`register_policy` makes it a bot level of
:mod:`py421.players.registry`, so ``bot:NAME`` takes a seat wherever a bot does: ``421 --bot
NAME=FILE play`` (or ``simulate``, ``analyse``, ``serve``), and the environments' opponents.

Only numpy is needed (no Gymnasium): the policy may import what it was trained with.
"""

from __future__ import annotations

import contextlib
import runpy
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from ..core.actions import Action
from ..core.errors import IllegalAction, InvalidParameter, InvalidPlayers, Message
from ..core.rules import Ruleset
from ..core.state import State
from ..players.registry import BotLevel, register
from .observation import FloatArray, MaskArray, ObservationEncoder, gym_mask, gym_move, policy_action

Policy = Callable[[FloatArray, MaskArray], object]
"""What plays like the learner: its seat's observation and mask in, an action 0 to 7 out."""
THE_POLICY = Message("envs.policy_seat.the_policy")
"""Who a policy is in its errors when no one says (``who``: a Message is worded in the reader's language)."""


class PolicyPlayer:
    """A policy as a :class:`~py421.players.base.Player`: it sees the deciding seat's observation
    as Game-v0 gives it and chooses one of Game-v0's actions."""

    def __init__(self, policy: Policy, who: str | Message = THE_POLICY) -> None:
        self.policy = policy
        self.who = who
        self._encoders: dict[tuple[Ruleset, int], ObservationEncoder] = {}

    def choose(self, state: State) -> Action:
        seat = state.to_move
        assert seat is not None, "a player is asked only at its own decisions"
        key = (state.rules, len(state.tokens))
        encoder = self._encoders.get(key)
        if encoder is None:
            encoder = self._encoders[key] = ObservationEncoder(*key)
        observation, mask = encoder.encode(state, seat), gym_mask(state)
        try:
            with _prints_aside():
                answer = self.policy(observation, mask)
        except (Exception, SystemExit) as exc:  # its own failure, said in one line: a command goes no further
            raise InvalidPlayers(
                Message(
                    "envs.policy_seat.failed",
                    {"who": self.who, "error": type(exc).__name__, "reason": str(exc)},
                )
            ) from exc
        index = policy_action(answer, self.who)
        try:
            return gym_move(state, index)
        except IllegalAction as exc:
            reason = exc.message or str(exc)
            raise IllegalAction(
                Message("envs.policy_seat.refused", {"who": self.who, "reason": reason})
            ) from None


def load_policy(path: Path) -> Policy:
    """The ``policy`` a file defines; refused, saying why, if there is none to call."""
    if path.is_dir():
        raise InvalidParameter(Message("envs.policy_seat.folder", {"path": str(path)}))
    if not path.is_file():
        raise InvalidParameter(Message("envs.policy_seat.no_file", {"path": str(path)}))
    try:
        with _prints_aside():
            found = runpy.run_path(str(path)).get("policy")
    except (Exception, SystemExit) as exc:  # the file's own error, said in one line
        raise InvalidParameter(
            Message(
                "envs.policy_seat.run", {"path": str(path), "error": type(exc).__name__, "reason": str(exc)}
            )
        ) from exc
    if not callable(found):
        raise InvalidParameter(Message("envs.policy_seat.no_policy", {"path": str(path)}))
    policy: Policy = found
    return policy


@contextlib.contextmanager
def _prints_aside() -> Iterator[None]:
    """What a policy prints goes to the error stream: the output (``--json``) stays the command's."""
    with contextlib.redirect_stdout(sys.stderr):
        yield


def register_policy(name: str, path: Path) -> BotLevel:
    """The policy of ``path`` as the bot level ``bot:NAME`` (its n-th bot at a table: « Name n »)."""
    policy = load_policy(path)
    title = name[:1].upper() + name[1:]
    return register(
        BotLevel(
            name,
            lambda seed: PolicyPlayer(policy, Message("envs.policy_seat.of_bot", {"name": name})),
            names={"en": f"{title} {{n}}", "fr": f"{title} {{n}}"},
            about={"en": f"a trained policy ({path.name})", "fr": f"une politique entraînée ({path.name})"},
        )
    )
