"""A game's position as text: what decides the rest of the game, and nothing else.

Two states with the same text are the same position: whatever happened
before, the same things can happen next with the same chances. Programs that
walk the game (value iteration, the OpenSpiel adapter) use it to recognise a
position reached again, like the décharge's repeated token counts.

>>> from py421.core.engine import new_game
>>> from py421.core.rules import Ruleset
>>> position_text(new_game(Ruleset.preset("classic-11"), ["A", "B"]))[:40]
'phase=charge manche=1 pot=11 tokens=[0,0'
"""

from __future__ import annotations

from dataclasses import MISSING, fields, is_dataclass
from enum import Enum
from functools import cache
from typing import Any

from .dice import Result
from .state import State

# Neither the history (events, the step counter) nor the replay count changes what
# can happen next: leaving them out makes equal positions equal texts, so the
# décharge's repeated positions are recognised.
_NOT_STATE = frozenset({"rules", "players", "events", "steps", "replays"})


def position_text(state: State) -> str:
    """Every field of ``state`` that decides the rest of the game, on one line."""
    return _text(state)[1:-1]


def _text(value: Any) -> str:
    kind = type(value)
    if kind is bool:
        return "yes" if value else "no"
    if kind is int or kind is Result:
        return str(value)
    if kind is tuple:
        return "[" + ",".join([str(v) if type(v) is int else _text(v) for v in value]) + "]"
    if isinstance(value, Enum):
        return str(value.value)
    if is_dataclass(value) and not isinstance(value, type):
        parts = []
        for name, default in _shown_fields(type(value)):
            field_value = getattr(value, name)
            if default is MISSING or field_value != default:
                parts.append(f"{name}={_text(field_value)}")
        return "(" + " ".join(parts) + ")"
    return str(value)


@cache
def _shown_fields(kind: type) -> tuple[tuple[str, Any], ...]:
    """A dataclass's fields that belong to the game state, with their defaults."""
    return tuple((f.name, f.default) for f in fields(kind) if f.name not in _NOT_STATE)
