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

import numpy as np
import numpy.typing as npt

from ..core.combos import CombinationTable
from ..core.dice import Result
from .exact_turn import Option, best_first
from .tables import (
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


# The keeps each result allows, more dice first, padded with the last: the bot's order between
# keeps worth the same (as :data:`.rounds.KEEP_CHOICES`).
_PREFERRED = np.array(
    [ks + [ks[-1]] * (7 - len(ks)) for ks in (sorted(k, key=lambda i: -len(KEEPS[i])) for k in KEEPS_OF)],
    dtype=np.intp,
)


def solve_following(utility: Utility, throws: int) -> TurnValues:
    """:func:`solve` for the channel ``utility(r)[0]``; the others follow its choices.

    Every array has the channels first. Channel 0 is the player's own value,
    solved as :func:`solve` does (the same floats); the other channels are
    what the same choices are worth in other terms (a chance of some outcome,
    say). Between equal choices: stop, then keep more dice, as the bot does.
    """
    values = [utility(0)]
    for remaining in range(1, throws):
        choices = (values[-1] @ TRANSITIONS.T)[..., _PREFERRED]  # (channels, ..., 56, 7)
        best = choices[0].argmax(axis=-1)[None, ..., None]
        kept = np.take_along_axis(choices, np.broadcast_to(best, (*choices.shape[:-1], 1)), axis=-1)[..., 0]
        stop = utility(remaining)
        values.append(np.where(stop[0] >= kept[0], stop, kept))
    return TurnValues(tuple(values), utility)


def beats_target(table: CombinationTable, target: Result) -> FloatArray:
    """1 for every result strictly better than ``target``, else 0."""
    bar = table.strength(target)
    return np.array([1.0 if table.strength(r) > bar else 0.0 for r in RESULTS])


def odds(table: CombinationTable, target: Result, throws: int) -> float:
    """P(a fresh turn of up to ``throws`` throws ends strictly better than ``target``)."""
    u = beats_target(table, target)
    return float(solve(lambda r: u, throws).start(throws))


def options(
    values: TurnValues, dice: Sequence[int], remaining: int, row: int | None = None, tie: float = 0.0
) -> list[Option]:
    """Every choice holding ``dice`` with ``remaining`` throws allowed, best first (:func:`best_first`).

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
    return best_first(found, tie)


# -- turns where every throw adds to the stake ---------------------------------


@dataclass(frozen=True)
class StakedValues:
    """Turn values when every throw adds its value to the round's stake.

    ``values[r][..., result, stake]``: holding ``result`` with ``r`` throws still
    allowed and ``stake`` accumulated so far (capped at ``cap``, beyond which
    nothing changes).
    """

    values: tuple[FloatArray, ...]
    utility: Utility
    gains: npt.NDArray[np.intp]  # the value each result adds
    cap: int

    def _after_throw(self, remaining: int) -> FloatArray:
        """[..., result thrown, stake before it]: the value once the throw is added."""
        stakes = np.arange(self.cap + 1)
        shifted = np.minimum(stakes[None, :] + self.gains[:, None], self.cap)  # (56, cap+1)
        later = self.values[remaining - 1]
        gathered: FloatArray = np.take_along_axis(later, np.broadcast_to(shifted, later.shape), axis=-1)
        return gathered

    def keep_values(self, remaining: int) -> FloatArray:
        """[..., keep, stake]: the value of each keep with ``remaining`` throws allowed."""
        cont: FloatArray = TRANSITIONS @ self._after_throw(remaining)  # einsum took 3 times as long
        return cont

    def start(self, throws: int) -> FloatArray:
        """[..., stake]: the value of a fresh turn, by the stake before it."""
        return self.keep_values(throws)[..., KEEP_INDEX[()], :]


def solve_staked(utility: Utility, throws: int, gains: npt.NDArray[np.intp], cap: int) -> StakedValues:
    """Backward induction over (result, stake) when each throw adds ``gains[result]``."""
    solved = StakedValues((utility(0),), utility, gains, cap)
    for remaining in range(1, throws):
        cont = solved.keep_values(remaining)  # (..., 28, cap+1)
        best_keep = cont[..., KEEP_GRID, :].max(axis=-2)  # (..., 56, cap+1)
        values = (*solved.values, np.maximum(utility(remaining), best_keep))
        solved = StakedValues(values, utility, gains, cap)
    return solved


def solve_staked_following(
    utility: Utility, throws: int, gains: npt.NDArray[np.intp], cap: int
) -> StakedValues:
    """:func:`solve_staked` for channel 0; the other channels follow its choices (see
    :func:`solve_following`)."""
    solved = StakedValues((utility(0),), utility, gains, cap)
    for remaining in range(1, throws):
        choices = solved.keep_values(remaining)[..., _PREFERRED, :]  # (channels, ..., 56, 7, stake)
        best = choices[0].argmax(axis=-2)[None, ..., None, :]
        shape = (*choices.shape[:-2], 1, choices.shape[-1])
        kept = np.take_along_axis(choices, np.broadcast_to(best, shape), axis=-2)[..., 0, :]
        stop = utility(remaining)
        values = (*solved.values, np.where(stop[0] >= kept[0], stop, kept))
        solved = StakedValues(values, utility, gains, cap)
    return solved


def staked_options(
    values: StakedValues,
    dice: Sequence[int],
    remaining: int,
    stake: int,
    row: int | None = None,
    tie: float = 0.0,
) -> list[Option]:
    """Every choice holding ``dice`` with ``remaining`` throws and ``stake`` so far, best first
    (:func:`best_first`, choices within ``tie`` of the best ranked as equal)."""
    result = Result.of(dice)
    i = INDEX[result]
    s = min(stake, values.cap)
    stop = values.utility(remaining)
    stop = stop if row is None else stop[row]
    found = [Option(result.dice, True, float(stop[i, s]))]
    if remaining > 0:
        cont = values.keep_values(remaining)
        cont = cont if row is None else cont[row]
        found += [Option(KEEPS[k], False, float(cont[k, s])) for k in KEEPS_OF[i]]
    return best_first(found, tie)
