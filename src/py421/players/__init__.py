"""Players: one interface for humans and bots, and the bots by level (:mod:`.registry`)."""

from ..i18n import CATALOGS
from .base import Player
from .heuristic import HeuristicBot
from .random_bot import RandomBot
from .registry import (
    BotLevel,
    accepted,
    bot_level,
    bot_name,
    is_bot_name,
    keep_names,
    levels,
    listing,
    make_bot,
    parse_bot,
    register,
    unregister,
)


def _optimal(seed: str) -> Player:
    from .optimal import OptimalBot  # numpy and the solver load only when needed

    return OptimalBot(seed)


def _texts(key: str) -> dict[str, str]:
    return {lang: catalog[key] for lang, catalog in CATALOGS.items()}


# py421's own levels, weakest first; each has its twin in the fast simulator.
for _key, _make, _offline in (
    ("random", RandomBot, True),
    ("heuristic", lambda seed: HeuristicBot(), True),
    ("optimal", _optimal, False),  # numpy's solvers: not in the page with no server
):
    names, about = _texts(f"bot.{_key}"), _texts(f"bot.{_key}.about")
    register(BotLevel(_key, _make, names, about, compiled=True, offline=_offline))
keep_names(_texts("envs.policy_seat.bot_name"))  # « Policy n », a trained policy's (bot:policy:FILE)

__all__ = [
    "BotLevel",
    "HeuristicBot",
    "Player",
    "RandomBot",
    "accepted",
    "bot_level",
    "bot_name",
    "is_bot_name",
    "levels",
    "listing",
    "make_bot",
    "parse_bot",
    "register",
    "unregister",
]
