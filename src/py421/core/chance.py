"""Where dice come from: dice derived from a seed, or faces given in advance.

The engine never draws dice itself; a caller asks the state what is needed
(:attr:`State.chance`) and gets the faces from a source. A person typing the
dice of a real table is a source too (the scorekeeper).

:class:`SeededDice` derives every throw from a secret seed and the step
number alone (HMAC-SHA256), so the same seed always gives the same game
whatever happened before, a saved game resumes with exactly the dice it
would have had, and anyone given the seed afterwards can recompute every
throw.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Iterable
from typing import Protocol

from .dice import parse_dice
from .errors import IllegalAction, Message
from .state import ChanceRequest


class DiceSource(Protocol):
    def throw(self, request: ChanceRequest) -> tuple[int, ...]:
        """Faces for the requested throw."""
        ...


def faces_for(seed: str, step: int, count: int) -> tuple[int, ...]:
    """The ``count`` faces thrown at ``step`` of a game played with ``seed``.

    Bytes of HMAC-SHA256(seed, "step:block") are read in order; a byte below
    252 gives the face ``byte % 6 + 1`` (252 = 42 x 6, so every face is equally
    likely); other bytes are skipped.

    >>> faces_for("example", 0, 3)
    (4, 1, 3)
    """
    if count <= 0:
        return ()
    faces: list[int] = []
    key = seed.encode()
    block = 0
    while True:
        for b in hmac.digest(key, f"{step}:{block}".encode(), "sha256"):
            if b < 252:
                faces.append(b % 6 + 1)
                if len(faces) == count:
                    return tuple(faces)
        block += 1


class SeededDice:
    """Fair dice derived from a seed; without one, a fresh secret seed is drawn."""

    def __init__(self, seed: str | int | None = None) -> None:
        self.seed = secrets.token_hex(16) if seed is None else str(seed)

    def throw(self, request: ChanceRequest) -> tuple[int, ...]:
        return faces_for(self.seed, request.step, request.count)


class ScriptedDice:
    """Faces given in advance, one entry per throw (``"421"``, ``"5"``)."""

    def __init__(self, throws: Iterable[str | tuple[int, ...]]) -> None:
        self._throws = [parse_dice(t) if isinstance(t, str) else tuple(t) for t in throws]
        self._next = 0

    def throw(self, request: ChanceRequest) -> tuple[int, ...]:
        if self._next >= len(self._throws):
            raise IllegalAction(Message("dice.script_ran_out"))
        faces = self._throws[self._next]
        self._next += 1
        return faces
