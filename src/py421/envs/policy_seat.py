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
import os
import runpy
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from ..core.actions import Action
from ..core.errors import IllegalAction, InvalidParameter, InvalidPlayers, Message
from ..core.rules import Ruleset
from ..core.state import State
from ..i18n import CATALOGS, LANGS, tr
from ..players.registry import BotLevel, register
from .observation import (
    FloatArray,
    MaskArray,
    ObservationEncoder,
    action_mask,
    decode,
    gym_mask,
    gym_move,
    policy_action,
)
from .saved_policy import load_saved_policy

Policy = Callable[[FloatArray, MaskArray], object]
"""What plays like the learner: its seat's observation and mask in, an action 0 to 7 out."""
THE_POLICY = Message("envs.policy_seat.the_policy")
"""Who a policy is in its errors when no one says (``who``: a Message is worded in the reader's language)."""


class PolicyPlayer:
    """A policy as a :class:`~py421.players.base.Player`: it sees the deciding seat's observation
    as Game-v0 gives it and chooses one of Game-v0's actions (``actions="gym"``), or one of the 17
    indices of :mod:`.observation` (``"all"``, as the vector environments offer them)."""

    def __init__(self, policy: Policy, who: str | Message = THE_POLICY, actions: str = "gym") -> None:
        self.policy = policy
        self.who = who
        self.actions = actions
        self._encoders: dict[tuple[Ruleset, int], ObservationEncoder] = {}

    def choose(self, state: State) -> Action:
        seat = state.to_move
        assert seat is not None, "a player is asked only at its own decisions"
        key = (state.rules, len(state.tokens))
        encoder = self._encoders.get(key)
        if encoder is None:
            encoder = self._encoders[key] = ObservationEncoder(*key)
        every = self.actions == "all"
        observation, mask = encoder.encode(state, seat), action_mask(state) if every else gym_mask(state)
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
        index = policy_action(answer, self.who, len(mask))
        try:
            return decode(state, index) if every else gym_move(state, index)
        except IllegalAction as exc:
            reason = exc.message or str(exc)
            raise IllegalAction(
                Message("envs.policy_seat.refused", {"who": self.who, "reason": reason})
            ) from None


def load_policy(path: os.PathLike[str] | str) -> Policy:
    """The ``policy`` a file defines; refused, saying why, if there is none to call."""
    path = Path(path)
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


def register_policy(name: str, path: os.PathLike[str] | str) -> BotLevel:
    """The policy of ``path`` (a saved ``.npz`` or a Python file) as the bot level ``bot:NAME`` (its
    n-th bot at a table: « Name n »)."""
    title = name[:1].upper() + name[1:]
    return register(_level(name, Path(path), dict.fromkeys(LANGS, f"{title} {{n}}")))


def policy_level(argument: str) -> BotLevel:
    """The level ``bot:policy:PATH`` names (« Policy n »)."""
    names = {lang: CATALOGS[lang]["envs.policy_seat.bot_name"] for lang in LANGS}  # "{n}" filled per seat
    return _level(f"policy:{argument}", Path(argument).expanduser(), names)


def _level(key: str, path: Path, names: dict[str, str]) -> BotLevel:
    """A saved policy (``.npz``, :mod:`.saved_policy`), which refuses a table other than the one it
    learned, or a Python file (``.py``) that defines ``policy``: no other file is run."""
    suffix = path.suffix.lower()
    if path.is_file() and suffix not in (".npz", ".py"):  # a folder or no file: said as the loaders say it
        raise InvalidParameter(Message("envs.policy_seat.suffix", {"path": str(path)}))
    who = Message("envs.policy_seat.of_bot", {"name": key})
    about = {lang: tr(lang, "envs.policy_seat.about", file=path.name) for lang in LANGS}
    if suffix == ".npz":
        saved = load_saved_policy(path)
        make = lambda seed: PolicyPlayer(saved, who, saved.actions)  # noqa: E731
        return BotLevel(key, make, names, about, fits=saved.check, source=str(path.resolve()))
    policy = load_policy(path)
    return BotLevel(key, lambda seed: PolicyPlayer(policy, who), names, about, source=str(path.resolve()))
