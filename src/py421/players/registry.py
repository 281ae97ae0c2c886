"""The bot levels, in one registry that every interface reads.

A level is seated as ``bot:KEY`` in the terminal, the page, an online table and
``421 simulate``. Adding one is its class and one :func:`register` call::

    register(BotLevel("cautious", lambda seed: Cautious(), names={"en": "Cautious {n}", "fr": "Prudent {n}"},
                      about={"en": "stops at its first result", "fr": "s'arrête à son premier résultat"}))

The fast simulator plays the levels it has a compiled twin of (``compiled``); ``421 simulate``
plays any other level through the engine, more slowly, and says so. The page with no server
seats the ``offline`` ones (pure Python, no solver).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace

from ..core.errors import InvalidParameter, InvalidPlayers, Message
from ..core.rules import Ruleset
from ..i18n import LANGS, fill
from .base import Player

_KEY = re.compile(r"[a-z][a-z0-9-]{0,23}")


@dataclass(frozen=True)
class BotLevel:
    """One level of bot: how it is made, what it is called, and where it plays."""

    key: str  # seated as ``bot:KEY``
    make: Callable[[str], Player]  # a new bot from a seed (a random bot's choices follow it)
    names: Mapping[str, str]  # by language: the name of the n-th bot of this level, with ``{n}``
    about: Mapping[str, str]  # by language: how it plays, in a few words
    compiled: bool = False  # the fast simulator has a compiled twin (py421.sim.fast.policy.KINDS)
    offline: bool = False  # plays in the page with no server: pure Python, no solver
    # refuses, saying why, a table it cannot play (rules, players): a trained policy plays only its own
    fits: Callable[[Ruleset, int], None] | None = None
    source: str | None = None  # the file a trained policy was read from: a server plays it in a worker

    @property
    def spec(self) -> str:
        return f"bot:{self.key}"

    def name(self, n: int, lang: str = "en") -> str:
        """What the ``n``-th bot of this level is called at a table, in ``lang``."""
        return fill(lang, self.names.get(lang, self.names["en"]), {"n": n})

    def description(self, lang: str = "en") -> str:
        return self.about.get(lang, self.about["en"])


_LEVELS: dict[str, BotLevel] = {}
# Levels named by what follows a prefix (``bot:policy:PATH``), made when first named. A command
# that reads local files registers one; a server does not, so a visitor names no file of its host.
Family = Callable[[str], BotLevel]
_FAMILIES: dict[str, tuple[Family, str]] = {}  # prefix -> how a level is made, what follows the prefix
_names: re.Pattern[str] | None = None  # any bot's name, in any language; made again at a change
# The names of bots whose level may not be registered in this process (a trained policy's « Policy
# n », seated by bot:policy:FILE where a command reads local files): kept for bots all the same.
_KEPT_NAMES: list[Mapping[str, str]] = []


def keep_names(names: Mapping[str, str]) -> None:
    """Keep for bots the names ``names`` (by language, with ``{n}``), wherever their level is made."""
    global _names
    _KEPT_NAMES.append(names)
    _names = None


def register(level: BotLevel) -> BotLevel:
    """Add a bot level (after the others: levels are listed in the order they came, weakest first
    for py421's own). Refused with the reason if its key is taken or malformed, or a language lacks
    its name or description."""
    global _names
    if not _KEY.fullmatch(level.key):
        raise InvalidParameter(Message("bot.level_key", {"key": repr(level.key)}))
    if level.key == "human":
        raise InvalidParameter(Message("bot.level_human"))
    if level.key in _LEVELS:
        raise InvalidParameter(Message("bot.level_taken", {"key": level.key, "taken": accepted()}))
    for what, texts in (("names", level.names), ("about", level.about)):
        missing = [lang for lang in LANGS if not texts.get(lang, "").strip()]
        if missing:
            raise InvalidParameter(
                Message(f"bot.level_no_{what}", {"key": level.key, "langs": ", ".join(missing)})
            )
    if any("{n}" not in level.names[lang] for lang in LANGS):
        raise InvalidParameter(Message("bot.level_number", {"key": level.key}))
    _LEVELS[level.key] = level
    _names = None
    return level


def register_family(prefix: str, make: Family, argument: str) -> None:
    """Let ``bot:PREFIX:ARGUMENT`` name a level: ``make(ARGUMENT)`` gives it, keyed
    ``PREFIX:ARGUMENT`` (the argument as typed), the first time it is named; ``argument``: what a
    refusal says to put there (``PATH``)."""
    if not _KEY.fullmatch(prefix):
        raise InvalidParameter(Message("bot.level_key", {"key": repr(prefix)}))
    _FAMILIES[prefix] = (make, argument)


def unregister_family(prefix: str) -> None:
    """Forget a family and the levels made from it."""
    _FAMILIES.pop(prefix, None)
    for key in [key for key in _LEVELS if key.startswith(prefix + ":")]:
        unregister(key)


def _from_family(key: str) -> BotLevel | None:
    """The level of a family's key (``policy:runs/a.npz``), made now if it is new; None if no family
    has that prefix. What the family refuses (a missing file) is said in its own words."""
    global _names
    prefix, sep, argument = key.partition(":")
    family = _FAMILIES.get(prefix.lower())
    if not sep or family is None:
        return None
    make = family[0]
    key = f"{prefix.lower()}:{argument.strip()}"
    if key not in _LEVELS:
        if not argument.strip():
            raise InvalidPlayers(Message("bot.family_argument", {"spec": f"bot:{key}"}))
        level = make(argument.strip())
        _LEVELS[key] = replace(level, key=key)
        _names = None
    return _LEVELS[key]


def check_levels(keys: Iterable[str | None], rules: Ruleset, players: int) -> None:
    """Refuse, saying why, a table one of these levels cannot play (None: a person's seat)."""
    for key in keys:
        if key is not None:
            fits = bot_level(key).fits
            if fits is not None:
                fits(rules, players)


def unregister(key: str) -> None:
    """Remove a bot level added by :func:`register` (a plugin unloaded, a test's toy bot)."""
    global _names
    _LEVELS.pop(key, None)
    _names = None


def levels() -> tuple[BotLevel, ...]:
    """Every level, in the order they were registered."""
    return tuple(_LEVELS.values())


def listing() -> list[dict[str, object]]:
    """Every level as the page offers it (``GET /api/bots``, from a server or the page's own Python):
    its seat spec, its name without the number and how it plays in each language, and whether it
    plays with no server."""
    return [
        {
            "spec": level.spec,
            "names": {lang: level.names[lang].replace("{n}", "").strip() for lang in LANGS},
            "about": {lang: level.about[lang] for lang in LANGS},
            "offline": level.offline,
        }
        for level in _LEVELS.values()
    ]


def accepted(levels_: tuple[BotLevel, ...] | None = None) -> str:
    """``bot:random, bot:heuristic, …`` (and ``bot:policy:PATH`` where that family is registered):
    what a refusal says is accepted."""
    if levels_ is not None:
        return ", ".join(level.spec for level in levels_)
    families = [f"bot:{prefix}:{argument}" for prefix, (_, argument) in _FAMILIES.items()]
    return ", ".join([level.spec for level in levels() if ":" not in level.key] + families)


def find_level(key: str) -> BotLevel | None:
    """The level called ``key`` (any case; a family's, its argument as typed, made now if new), or
    None if there is none."""
    if ":" in key:  # a family's: ``policy:runs/A.npz`` and ``policy:runs/a.npz`` are two files
        return _from_family(key)
    return _LEVELS.get(key.lower())


def bot_level(key: str) -> BotLevel:
    """The level called ``key``; refused, naming the levels, if there is none."""
    found = find_level(key)
    if found is None:
        raise _unknown(f"bot:{key}")
    return found


def _unknown(spec: str) -> InvalidPlayers:
    said = accepted()
    return InvalidPlayers(
        Message(
            "players.unknown_bot",
            {"name": repr(spec), "accepted": said},
        )
    )


def parse_bot(spec: str) -> str | None:
    """The bot level a seat spec names (``bot:heuristic``), or None for a person's name: the one
    reading of a seat spec, wherever one is typed or sent.

    >>> parse_bot("bot:Optimal"), parse_bot("Alice")
    ('optimal', None)
    """
    text = spec.strip()
    if not text.lower().startswith("bot:"):
        return None
    level = find_level(text[4:].strip())
    if level is None:
        raise _unknown(text)
    return level.key


def make_bot(key: str, seed: str) -> Player:
    """A bot of the named level; ``seed`` makes a random bot repeatable."""
    return bot_level(key).make(seed)


def bot_name(key: str, n: int, lang: str = "en") -> str:
    """What the ``n``-th bot of a level is called at a table, in the table's language.

    >>> bot_name("heuristic", 2), bot_name("heuristic", 2, "fr"), bot_name("random", 1, "fr")
    ('Heuristic 2', 'Heuristique 2', 'Aléatoire 1')
    """
    return bot_level(key).name(n, lang)


def bot_name_in(name: str, lang: str) -> str:
    """A bot's name said in ``lang``, whatever language its game was made in; any other name as it is.

    >>> bot_name_in("Heuristique 1", "en"), bot_name_in("random 2", "fr"), bot_name_in("Ana", "fr")
    ('Heuristic 1', 'Aléatoire 2', 'Ana')
    """
    plain = unicodedata.normalize("NFKC", name).strip()
    for level in _LEVELS.values():
        for said in LANGS:
            found = re.fullmatch(_name_pattern(level.names, said), plain, re.IGNORECASE)
            if found and found.groups():
                return level.name(int(found[1]), lang)
    return name


def bots_names() -> list[Mapping[str, str]]:
    """The names kept for bots, each by language with ``{n}``: every level's, and those kept apart."""
    return [level.names for level in _LEVELS.values()] + _KEPT_NAMES


def _name_pattern(names: Mapping[str, str], lang: str) -> str:
    """The names of a level's bots (``names``, by language) in ``lang`` as a pattern, the number captured."""
    return re.escape(names.get(lang, names["en"])).replace(re.escape("{n}"), "([0-9]+)")


def is_bot_name(name: str) -> bool:
    """Whether a name is the kind given to bots (kept for them, in any language and case).

    A seat spec's form (« bot:heuristic ») is one too: a list of seats reads it as a bot.

    >>> is_bot_name("heuristic 1"), is_bot_name("Heuristique 2"), is_bot_name("Heuristic Harry")
    (True, True, False)
    >>> is_bot_name("Bot: Ana")
    True
    """
    global _names
    if _names is None:  # a game keeps the names it was made with, whatever the reader's language
        _names = re.compile(
            "|".join(_name_pattern(names, lang) for names in bots_names() for lang in LANGS) or "(?!)",
            re.IGNORECASE,
        )
    plain = unicodedata.normalize("NFKC", name).strip()  # full-width too
    return plain.casefold().startswith("bot:") or _names.fullmatch(plain) is not None
