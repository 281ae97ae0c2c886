"""The one Player interface: humans at a prompt and bots alike."""

from __future__ import annotations

from typing import Protocol

from ..core.actions import Action
from ..core.state import State


class Player(Protocol):
    """Something that chooses an action when it is its decision."""

    def choose(self, state: State) -> Action:
        """One of ``state.legal_actions()``; ``state.to_move`` is this player's seat."""
        ...
