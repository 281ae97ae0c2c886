"""Players: one interface for humans and bots, and the bots by name."""

import re
from collections.abc import Callable

from ..core.errors import InvalidPlayers, Message
from ..i18n import CATALOGS, tr
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


def parse_bot(spec: str) -> str | None:
    """The bot level a seat spec names (``bot:heuristic``), or None for a person's name.

    >>> parse_bot("bot:Optimal"), parse_bot("Alice")
    ('optimal', None)
    """
    text = spec.strip()
    if not text.lower().startswith("bot:"):
        return None
    level = text[4:].strip().lower()
    if level not in BOTS:
        accepted = ", ".join(f"bot:{k}" for k in BOTS)
        raise InvalidPlayers(
            Message(
                "players.unknown_bot",
                f"unknown bot {text!r}; accepted: {accepted}",
                {"name": repr(text), "accepted": accepted},
            )
        )
    return level


def bot_name(level: str, n: int, lang: str = "en") -> str:
    """What the ``n``-th bot of a level is called at a table, in the table's language.

    >>> bot_name("heuristic", 2), bot_name("heuristic", 2, "fr"), bot_name("random", 1, "fr")
    ('Heuristic 2', 'Heuristique 2', 'Aléatoire 1')
    """
    return tr(lang, f"bot.{level}", n=n)


# A bot's name in any language: a game keeps the names it was made with, whatever the reader's.
_BOT_NAME = re.compile(
    "|".join(
        re.escape(catalog[f"bot.{level}"]).replace(re.escape("{n}"), "[0-9]+")
        for catalog in CATALOGS.values()
        for level in BOTS
    ),
    re.IGNORECASE,
)


def is_bot_name(name: str) -> bool:
    """Whether a name is the kind given to bots (kept for them, in any case).

    >>> is_bot_name("heuristic 1"), is_bot_name("Heuristique 2"), is_bot_name("Heuristic Harry")
    (True, True, False)
    """
    return _BOT_NAME.fullmatch(name.strip()) is not None


def make_bot(kind: str, seed: str) -> Player:
    """A bot of the named level; ``seed`` makes a random bot repeatable."""
    factory = BOTS.get(kind)
    if factory is None:
        accepted = ", ".join(f"bot:{k}" for k in BOTS)
        raise InvalidPlayers(
            Message(
                "players.unknown_bot",
                f"unknown bot 'bot:{kind}'; accepted: {accepted}",
                {"name": repr(f"bot:{kind}"), "accepted": accepted},
            )
        )
    return factory(seed)


__all__ = ["BOTS", "HeuristicBot", "Player", "RandomBot", "bot_name", "is_bot_name", "make_bot", "parse_bot"]
