"""One turn valued exactly, in fractions: the chance to beat a result, and the advice of a turn.

A turn is a few throws; after each one the player stops or keeps some dice
and throws the others. With the value of stopping on each result (the
*utility*: beating a target, or a coup sec), the value of a result with
``r`` throws remaining is the best of stopping and of every keep's expected
value with ``r - 1`` remaining (backward induction). Plain Python, no numpy:
``421 odds`` and ``421 advise --target`` start at once, and every value is
exact (choices worth the same are exactly equal, never a rounding apart).
:mod:`.turn` solves the same turns with numpy arrays, for any utility.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from ..core.combos import CombinationTable
from ..core.dice import Result
from ..core.errors import InvalidPosition, Message
from .keeps import EXACT_TRANSITIONS, INDEX, KEEP_INDEX, KEEPS, KEEPS_OF, RESULTS

Values = tuple[Fraction, ...]  # one value per result, in RESULTS order

# Each keep's row of EXACT_TRANSITIONS without its zeros: where the keep leads, with what chance.
_LEADS: tuple[tuple[tuple[int, Fraction], ...], ...] = tuple(
    tuple((r, p) for r, p in enumerate(row) if p) for row in EXACT_TRANSITIONS
)


@dataclass(frozen=True)
class Option:
    """One choice with its value: ``keep`` is the kept dice, or the whole result to stop; ``bon``:
    the throw is declared « le bon » (its result final)."""

    keep: tuple[int, ...]
    stop: bool
    value: float
    bon: bool = False


def best_first(found: Sequence[Option], tie: float = 0.0) -> list[Option]:
    """``found`` (stopping, then the keeps in :data:`KEEPS_OF` order) best first, as the solvers choose.

    Choices within ``tie`` of the best are worth the same: stopping comes first, then keeping more
    dice, the simpler play, then a plain throw before « le bon », then the keeps' own order. The
    solvers that break ties within ``EPS`` (:mod:`.rounds`, :mod:`.game_maxn`) are ranked with
    ``tie=EPS``, so that a choice a few units in the last place better, which another processor's
    arithmetic may not find, never comes first.
    """
    top = max(o.value for o in found)

    def rank(o: Option) -> tuple[bool, float, bool, int, bool]:
        level = o.value >= top - tie
        return (not level, 0.0 if level else -o.value, not o.stop, -len(o.keep), o.bon)

    return sorted(found, key=rank)


@dataclass(frozen=True)
class Advice:
    objective: str
    options: list[Option]
    # over the game: the tokens valued, the mover's first (as given, or the start's where not), and
    # in the charge the pot
    tokens: tuple[int, ...] = ()
    pot: int | None = None


def check_throws_left(throws_left: int, most: int = 3) -> None:
    """Refuse ``throws_left`` outside 0 to ``most - 1`` (a turn of ``most`` throws)."""
    if not 0 <= throws_left < most:
        if most == 1:
            raise InvalidPosition(
                Message(
                    "solver.throws_left_one",
                    {"n": throws_left},
                )
            )
        raise InvalidPosition(
            Message(
                "solver.throws_left",
                {"most": most, "last": most - 1, "n": throws_left},
            )
        )


@cache
def utility(table: CombinationTable, target: Result | None) -> Values:
    """What stopping on each result is worth: 1 for a result strictly better than ``target``, else 0;
    without a target, the chance of beating one fresh throw of three dice, ties counting half."""
    strength = [table.strength(r) for r in RESULTS]
    if target is not None:
        bar = table.strength(target)
        return tuple(Fraction(1 if s > bar else 0) for s in strength)
    fresh = _LEADS[KEEP_INDEX[()]]
    half = Fraction(1, 2)
    return tuple(
        sum((p * (1 if s > strength[r] else half if s == strength[r] else 0) for r, p in fresh), Fraction(0))
        for s in strength
    )


def keep_values(values: Values) -> Values:
    """The expected value of each of the 28 keeps, ``values`` holding after the throw."""
    return tuple(sum((p * values[r] for r, p in leads), Fraction(0)) for leads in _LEADS)


@cache
def turn_values(table: CombinationTable, target: Result | None, throws: int) -> tuple[Values, ...]:
    """``[r]``: the value of holding each result with ``r`` throws still allowed, 0 to ``throws - 1``
    (the :func:`utility` of ``target``)."""
    stop = utility(table, target)
    values = [stop]
    for _ in range(1, throws):
        cont = keep_values(values[-1])
        values.append(tuple(max([stop[i], *(cont[k] for k in KEEPS_OF[i])]) for i in range(len(RESULTS))))
    return tuple(values)


@cache
def _keeps_worth(table: CombinationTable, target: Result | None, throws_left: int) -> Values:
    """Each keep's value with ``throws_left`` throws still allowed (1 or more)."""
    return keep_values(turn_values(table, target, throws_left)[throws_left - 1])


def exact_odds(table: CombinationTable, target: Result, throws: int) -> Fraction:
    """P(a fresh turn of up to ``throws`` throws ends strictly better than ``target``)."""
    return _keeps_worth(table, target, throws)[KEEP_INDEX[()]]


def advise(table: CombinationTable, dice: Result, throws_left: int, target: Result | None = None) -> Advice:
    """Every choice holding ``dice`` with ``throws_left`` throws still allowed, best first: the chance
    of ending better than ``target``, or without one better than a coup sec (ties counting half)."""
    check_throws_left(throws_left)
    i = INDEX[dice]
    found = [Option(dice.dice, True, float(utility(table, target)[i]))]
    if throws_left > 0:
        cont = _keeps_worth(table, target, throws_left)
        found += [Option(KEEPS[k], False, float(cont[k])) for k in KEEPS_OF[i]]
    objective = f"P(better than {target})" if target is not None else "P(better than a coup sec)"
    return Advice(objective, best_first(found))
