"""Players: one interface for humans and bots, and the bots by name."""

from collections.abc import Callable

from ..core.errors import InvalidPlayers
from .base import Player
from .heuristic import HeuristicBot
from .random_bot import RandomBot

# Bot levels by name, weakest first; the optimal bot joins with the solver.
BOTS: dict[str, Callable[[str], Player]] = {
    "random": RandomBot,
    "heuristic": lambda seed: HeuristicBot(),
}


def make_bot(kind: str, seed: str) -> Player:
    """A bot of the named level; ``seed`` makes a random bot repeatable."""
    factory = BOTS.get(kind)
    if factory is None:
        accepted = ", ".join(f"bot:{k}" for k in BOTS)
        raise InvalidPlayers(f"unknown bot 'bot:{kind}'; accepted: {accepted}")
    return factory(seed)


__all__ = ["BOTS", "HeuristicBot", "Player", "RandomBot", "make_bot"]
