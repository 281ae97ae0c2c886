"""The random bot: any legal action, uniformly, from its own generator."""

from __future__ import annotations

import random

from ..core.actions import Action
from ..core.state import State


class RandomBot:
    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, state: State) -> Action:
        return self._rng.choice(state.legal_actions())
