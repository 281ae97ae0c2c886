"""Players: one interface for humans and bots, and the bots by name."""

from collections.abc import Callable

from ..core.errors import InvalidPlayers
from .base import Player
from .heuristic import HeuristicBot
from .random_bot import RandomBot


def _optimal(seed: str) -> Player:
    from .optimal import OptimalBot  # numpy and the solver load only when needed

    return OptimalBot(seed)


# Bot levels by name, weakest first.
BOTS: dict[str, Callable[[str], Player]] = {
    "random": RandomBot,
    "heuristic": lambda seed: HeuristicBot(),
    "optimal": _optimal,
}


def make_bot(kind: str, seed: str) -> Player:
    """A bot of the named level; ``seed`` makes a random bot repeatable."""
    factory = BOTS.get(kind)
    if factory is None:
        accepted = ", ".join(f"bot:{k}" for k in BOTS)
        raise InvalidPlayers(f"unknown bot 'bot:{kind}'; accepted: {accepted}")
    return factory(seed)


__all__ = ["BOTS", "HeuristicBot", "Player", "RandomBot", "make_bot"]
