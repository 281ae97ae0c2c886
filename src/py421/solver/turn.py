"""The turn solver: the exact value of every choice in a turn, by backward induction.

A turn is a few throws; after each one the player stops or keeps some dice
and throws the others. Given what stopping is worth with each result (the
*utility*, which may depend on how many throws remain), the value of a
result with ``r`` throws remaining is the best of stopping and of every
keep's expected value with ``r - 1`` remaining.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..core.combos import CombinationTable
from ..core.dice import Result
from .tables import (
    EXACT_TRANSITIONS,
    INDEX,
    KEEP_GRID,
    KEEP_INDEX,
    KEEPS,
    KEEPS_OF,
    RESULTS,
    TRANSITIONS,
    FloatArray,
)

# utility(remaining) -> array over the 56 results (and optional leading batch axes)
Utility = Callable[[int], FloatArray]


@dataclass(frozen=True)
class TurnValues:
    """``values[r]``: the value of holding each result with ``r`` throws still allowed."""

    values: tuple[FloatArray, ...]
    utility: Utility

    def start(self, throws: int) -> FloatArray:
        """The value of a fresh turn of up to ``throws`` throws."""
        start: FloatArray = self.values[throws - 1] @ TRANSITIONS[KEEP_INDEX[()]]
        return start

    def keep_values(self, remaining: int) -> FloatArray:
        """With ``remaining`` throws allowed, the value of each of the 28 keeps."""
        return self.values[remaining - 1] @ TRANSITIONS.T


def solve(utility: Utility, throws: int) -> TurnValues:
    """Backward induction over the remaining throws (0 to ``throws - 1``)."""
    values = [utility(0)]
    for remaining in range(1, throws):
        cont = values[-1] @ TRANSITIONS.T  # (..., 28): value of each keep
        best_keep = cont[..., KEEP_GRID].max(axis=-1)  # (..., 56)
        values.append(np.maximum(utility(remaining), best_keep))
    return TurnValues(tuple(values), utility)


def beats_target(table: CombinationTable, target: Result) -> FloatArray:
    """1 for every result strictly better than ``target``, else 0."""
    bar = table.strength(target)
    return np.array([1.0 if table.strength(r) > bar else 0.0 for r in RESULTS])


def odds(table: CombinationTable, target: Result, throws: int) -> float:
    """P(a fresh turn of up to ``throws`` throws ends strictly better than ``target``)."""
    u = beats_target(table, target)
    return float(solve(lambda r: u, throws).start(throws))


def exact_odds(table: CombinationTable, target: Result, throws: int) -> Fraction:
    """The same as :func:`odds`, in exact fractions."""
    bar = table.strength(target)
    u = [Fraction(1 if table.strength(r) > bar else 0) for r in RESULTS]
    value = u
    for _ in range(1, throws):
        cont = [
            sum((p * v for p, v in zip(row, value, strict=True)), Fraction(0)) for row in EXACT_TRANSITIONS
        ]
        value = [max([u[i]] + [cont[k] for k in KEEPS_OF[i]]) for i in range(len(RESULTS))]
    first = EXACT_TRANSITIONS[KEEP_INDEX[()]]
    return sum((p * v for p, v in zip(first, value, strict=True)), Fraction(0))


@dataclass(frozen=True)
class Option:
    """One choice with its value: ``keep`` is the kept dice, or the whole result to stop."""

    keep: tuple[int, ...]
    stop: bool
    value: float


def options(values: TurnValues, dice: Sequence[int], remaining: int, row: int | None = None) -> list[Option]:
    """Every choice holding ``dice`` with ``remaining`` throws allowed, best first.

    ``row`` picks one case when the values were solved for many at once.
    """
    result = Result.of(dice)
    i = INDEX[result]
    stop = values.utility(remaining)
    stop = stop if row is None else stop[row]
    found = [Option(result.dice, True, float(stop[i]))]
    if remaining > 0:
        cont = values.keep_values(remaining)
        cont = cont if row is None else cont[row]
        found += [Option(KEEPS[k], False, float(cont[k])) for k in KEEPS_OF[i]]
    # Ties go to stopping, then to keeping more dice: the simpler play.
    return sorted(found, key=lambda o: (-o.value, not o.stop, -len(o.keep)))
