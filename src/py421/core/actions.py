"""What a player can do, with a text form that round-trips.

>>> parse_action("keep 4-2")
Throw(keep=(4, 2), bon=False)
>>> str(parse_action("bon 42"))
'bon 42'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .dice import format_dice, parse_dice
from .errors import InvalidNotation

Stake = Literal["est", "vient"]


@dataclass(frozen=True, slots=True)
class Throw:
    """Throw again, keeping ``keep`` on the table (none, one or two dice).

    With ``bon`` the player declares « le bon »: this throw is final.
    """

    keep: tuple[int, ...] = ()
    bon: bool = False

    def __str__(self) -> str:
        if self.bon:
            return f"bon {format_dice(self.keep)}".strip()
        return f"keep {format_dice(self.keep)}" if self.keep else "throw"


@dataclass(frozen=True, slots=True)
class Stop:
    """Keep the current result: the turn ends."""

    def __str__(self) -> str:
        return "stop"


@dataclass(frozen=True, slots=True)
class ChooseStake:
    """« Main chaude »: play « pour ce qui est » or « pour ce qui vient »."""

    stake: Stake

    def __str__(self) -> str:
        return f"stake {self.stake}"


Action = Throw | Stop | ChooseStake

ACTION_HELP = "throw, keep DICE (e.g. keep 42), bon [DICE], stop, stake est, stake vient"


def parse_action(text: str) -> Action:
    """Read an action as written in records and typed at prompts."""
    words = text.strip().lower().split(maxsplit=1)
    if not words:
        raise InvalidNotation(f"no action given; accepted: {ACTION_HELP}")
    verb, rest = words[0], (words[1] if len(words) > 1 else "")
    if verb == "stop" and not rest:
        return Stop()
    if verb == "throw" and rest in ("", "all"):
        return Throw()
    if verb == "keep" and rest:
        return Throw(parse_dice(rest, what="kept dice"))
    if verb == "bon":
        return Throw(parse_dice(rest, what="kept dice"), bon=True)
    if verb == "stake" and rest in ("est", "vient"):
        return ChooseStake("est" if rest == "est" else "vient")
    if verb in ("est", "vient") and not rest:
        return ChooseStake("est" if verb == "est" else "vient")
    raise InvalidNotation(f"{text!r}: not an action; accepted: {ACTION_HELP}")
