"""Where dice come from: a seeded generator, or faces given in advance.

The engine never draws dice itself; a caller asks the state what is needed
(:attr:`State.chance`) and gets the faces from a source. A person typing the
dice of a real table is a source too (the scorekeeper).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Protocol

from .dice import parse_dice
from .errors import IllegalAction
from .state import ChanceRequest


class DiceSource(Protocol):
    def throw(self, request: ChanceRequest) -> tuple[int, ...]:
        """Faces for the requested throw."""
        ...


class RandomDice:
    """Fair dice from a private generator: the same seed gives the same throws."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def throw(self, request: ChanceRequest) -> tuple[int, ...]:
        return tuple(self._rng.randint(1, 6) for _ in range(request.count))


class ScriptedDice:
    """Faces given in advance, one entry per throw (``"421"``, ``"5"``)."""

    def __init__(self, throws: Iterable[str | tuple[int, ...]]) -> None:
        self._throws = [parse_dice(t) if isinstance(t, str) else tuple(t) for t in throws]
        self._next = 0

    def throw(self, request: ChanceRequest) -> tuple[int, ...]:
        if self._next >= len(self._throws):
            raise IllegalAction("the scripted dice ran out")
        faces = self._throws[self._next]
        self._next += 1
        return faces

    @property
    def remaining(self) -> int:
        return len(self._throws) - self._next
