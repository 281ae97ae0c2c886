"""One exception class per kind of failure, all under :class:`Py421Error`.

A caller that only wants to show the message to a player can catch
``Py421Error``; a caller that must tell "could not read this" from
"not allowed now" catches the specific class.

An error carries its sentence as a catalog key and fields (:class:`Message`),
which an interface words in the player's language. The wording lives only in
the catalogs (``py421.i18n``), above core: ``str()`` gives the English through
:func:`set_wording`, which the package installs when it is imported.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Message:
    """A sentence as a catalog key (``refusal.*``) and its fields; ``str()`` is its English.

    A field may itself be a :class:`Message` (a reason inside a refusal) or actions,
    which an interface words in its language too.
    """

    key: str
    fields: Mapping[str, object] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """The English wording, from the catalog."""
        return _wording(self)

    def __str__(self) -> str:
        return _wording(self)


@dataclass(frozen=True, slots=True)
class Ordinal:
    """A field that is a rank (the 3rd of 56), which each language writes its own way."""

    n: int

    def __str__(self) -> str:
        return str(self.n)


def _unworded(message: Message) -> str:
    """Before any catalog is installed: the key and the fields, as they are."""
    fields = ", ".join(f"{k}={v}" for k, v in message.fields.items())
    return f"{message.key} ({fields})" if fields else message.key


_wording: Callable[[Message], str] = _unworded


def set_wording(wording: Callable[[Message], str]) -> None:
    """How ``str()`` words a message: the English catalog's, installed by ``py421`` itself."""
    global _wording
    _wording = wording


class Py421Error(Exception):
    """Base class of every error py421 raises on purpose."""

    def __init__(self, message: str | Message = "", *args: object) -> None:
        super().__init__(str(message), *args)
        self.message = message if isinstance(message, Message) else None


class InvalidNotation(Py421Error, ValueError):
    """Text that is not dice, a result or an action (``'7-1-1': a die shows 1 to 6``)."""


class InvalidRuleset(Py421Error, ValueError):
    """An unknown preset or option, or option values that contradict each other."""


class IllegalAction(Py421Error, ValueError):
    """An action or dice outcome that the rules do not allow in this state."""


class InvalidRecord(Py421Error, ValueError):
    """A game record that cannot be read, or that does not replay."""


class InvalidPlayers(Py421Error, ValueError):
    """A list of players the ruleset cannot seat (count, empty or repeated names)."""


class InvalidPosition(Py421Error, ValueError):
    """A position the solver is asked about that the rules cannot reach (throws left, tokens, results)."""


class InvalidParameter(Py421Error, ValueError):
    """A parameter outside what it accepts: a number of games, a seed, an environment's reward."""


class UnsolvedSystem(Py421Error, ArithmeticError):
    """A linear system of the solver that its iterations left short of the precision it promises."""


QUOTE_MOST = 40  # characters of what a person typed that an error quotes back


def quoted(text: str, most: int = QUOTE_MOST) -> str:
    """What a person typed, as an error quotes it: escaped (a control character shows as ``\\x01``
    rather than acting on the terminal) and cut short, however long it was.

    >>> quoted("4-2-1"), quoted("\\x1b[A")
    ("'4-2-1'", "'\\\\x1b[A'")
    >>> quoted("4" * 1000, most=8)
    "'4444444…'"
    """
    return repr(text if len(text) <= most else text[: most - 1] + "…")
