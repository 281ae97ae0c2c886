"""Faces, the 56 results of three dice, and their notation.

Players read a result in descending order: 3-5-4 is « 543 ». Every
spelling people use is accepted and the result always prints descending:

>>> Result.parse("1-2-4")
Result.parse('421')
>>> str(Result.parse("4 2 1"))
'421'
>>> Result.parse("7-1-1")
Traceback (most recent call last):
...
py421.core.errors.InvalidNotation: '7-1-1': a die shows 1 to 6, not 7
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import factorial

from .errors import InvalidNotation, InvalidParameter, Message, quoted

FACES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
DICE_PER_THROW = 3
OUTCOMES = 6**DICE_PER_THROW  # 216 ordered outcomes of three dice

# Separators players write between faces: "4-2-1", "4 2 1", "4,2,1", "4.2.1".
_SEPARATORS = re.compile(r"[\s\-,./]+")


def parse_dice(text: str, *, count: int | None = None, what: str = "dice") -> tuple[int, ...]:
    """Read faces written in any usual way; return them in descending order.

    ``count`` demands an exact number of dice. An empty text is zero dice.

    >>> parse_dice("2-4")
    (4, 2)
    """
    raw = _SEPARATORS.sub("", text.strip())
    if not raw.isdigit() and raw != "":
        raise InvalidNotation(Message(f"notation.not_dice.{what}", {"text": quoted(text)}))
    faces = [int(ch) for ch in raw]
    for face in faces:
        if face not in FACES:
            raise InvalidNotation(Message("notation.face", {"text": quoted(text), "face": face}))
    if count is not None and len(faces) != count:
        n = len(faces)
        got = (
            Message("notation.got.none")
            if not faces
            else Message(
                "notation.got.one" if n == 1 else "notation.got.many",
                {"n": n},
            )
        )
        fields = {"text": quoted(text), "count": count, "got": got}
        raise InvalidNotation(Message("notation.result_count", fields))  # only a result is counted
    if len(faces) > DICE_PER_THROW:
        raise InvalidNotation(Message("notation.too_many", {"text": quoted(text), "n": len(faces)}))
    return tuple(sorted(faces, reverse=True))


def format_dice(faces: Iterable[int]) -> str:
    """Faces as players write them: descending digits, ``""`` for no dice."""
    key = faces if isinstance(faces, tuple) else tuple(faces)
    text = _WRITTEN.get(key)
    if text is None:
        text = "".join(str(f) for f in sorted(key, reverse=True))
        if len(_WRITTEN) < 4096:  # every throw of up to three dice, several times over
            _WRITTEN[key] = text
    return text


_WRITTEN: dict[tuple[int, ...], str] = {}  # a game writes the same few dozen throws again and again


@dataclass(frozen=True, slots=True, order=False)
class Result:
    """The unordered result of one throw of three dice, stored descending."""

    dice: tuple[int, int, int]

    def __post_init__(self) -> None:
        if len(self.dice) != DICE_PER_THROW or any(f not in FACES for f in self.dice):
            raise InvalidNotation(Message("notation.result_faces", {"dice": repr(self.dice)}))
        if list(self.dice) != sorted(self.dice, reverse=True):
            object.__setattr__(self, "dice", tuple(sorted(self.dice, reverse=True)))

    @classmethod
    def parse(cls, text: str) -> Result:
        """Read « 421 », « 4-2-1 », « 4 2 1 » or « 124 »."""
        a, b, c = parse_dice(text, count=DICE_PER_THROW, what="a result")
        return cls((a, b, c))

    @classmethod
    def of(cls, faces: Iterable[int]) -> Result:
        """The result of three faces in any order."""
        got = tuple(faces)
        known = _RESULTS.get(got)  # one of the 216 orders of the 56 results: no new object
        if known is not None:
            return known
        if len(got) != DICE_PER_THROW:
            raise InvalidNotation(
                Message("notation.result_dice", {"dice": repr(format_dice(got)), "got": len(got)})
            )
        return cls((got[0], got[1], got[2]))

    def __str__(self) -> str:
        return format_dice(self.dice)

    def __repr__(self) -> str:
        return f"Result.parse({str(self)!r})"  # code that gives the result back, in players' notation

    @property
    def ways(self) -> int:
        """How many of the 216 ordered outcomes of three dice give this result."""
        return multiset_ways(self.dice)

    @property
    def probability(self) -> Fraction:
        """Chance of this result in one throw of three dice."""
        return Fraction(self.ways, OUTCOMES)


def multiset_ways(faces: Iterable[int]) -> int:
    """Ordered arrangements of a multiset of faces (321: 6, 221: 3, 111: 1)."""
    counts = Counter(faces)
    ways = factorial(sum(counts.values()))
    for n in counts.values():
        ways //= factorial(n)
    return ways


ALL_RESULTS: tuple[Result, ...] = tuple(
    Result((a, b, c)) for a, b, c in itertools.combinations_with_replacement(range(6, 0, -1), 3)
)
"""The 56 results, in descending numeric order (666 first, 111 last)."""

_RESULTS: dict[tuple[int, ...], Result] = {
    order: r for r in ALL_RESULTS for order in itertools.permutations(r.dice)
}


@cache
def throw_outcomes(count: int) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    """Every unordered outcome of throwing ``count`` dice with its exact probability.

    Solvers enumerate chance with this instead of sampling.

    >>> [(faces, str(p)) for faces, p in throw_outcomes(1)][:2]
    [((6,), '1/6'), ((5,), '1/6')]
    """
    if not 0 <= count <= DICE_PER_THROW:
        raise InvalidParameter(Message("dice.throw_count", {"count": count}))
    total = 6**count
    return tuple(
        (faces, Fraction(multiset_ways(faces), total))
        for faces in itertools.combinations_with_replacement(range(6, 0, -1), count)
    )


@cache  # asked at every decision, of one of the few hands of three dice
def sub_multisets(faces: tuple[int, ...], max_size: int = 2) -> tuple[tuple[int, ...], ...]:
    """The distinct sets of dice a player can keep from ``faces`` (descending).

    >>> sub_multisets((4, 2, 2))
    ((), (4,), (2,), (4, 2), (2, 2))
    """
    seen: dict[tuple[int, ...], None] = {}
    for size in range(max_size + 1):
        for combo in itertools.combinations(faces, size):
            seen.setdefault(tuple(sorted(combo, reverse=True)), None)
    return tuple(seen)


def contains(faces: tuple[int, ...], part: tuple[int, ...]) -> bool:
    """Whether ``part`` can be taken out of ``faces`` (as multisets)."""
    have = Counter(faces)
    have.subtract(Counter(part))
    return all(n >= 0 for n in have.values())
