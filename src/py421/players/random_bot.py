"""The random bot: any legal action, uniformly."""

from __future__ import annotations

import random

from ..core.actions import Action
from ..core.state import State


class RandomBot:
    """Chooses uniformly; the choice depends only on its seed and the step, so replays agree."""

    def __init__(self, seed: str | int = 0) -> None:
        self.seed = str(seed)

    def choose(self, state: State) -> Action:
        rng = random.Random(f"{self.seed}:{state.steps}")
        return rng.choice(state.legal_actions())
