"""The turn solver: the exact value of every choice in a turn, by backward induction.

A turn is a few throws; after each one the player stops or keeps some dice
and throws the others. Given what stopping is worth with each result (the
*utility*, which may depend on how many throws remain), the value of a
result with ``r`` throws remaining is the best of stopping and of every
keep's expected value with ``r - 1`` remaining.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from ..core.combos import CombinationTable
from ..core.dice import Result
from .exact_turn import Option, best_first
from .tables import (
    BON,
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
# may_stop(remaining) -> [..., result]: where the player may stop with throws left (players behind
# must throw on); None: everywhere
MayStop = Callable[[int], npt.NDArray[np.bool_]] | None


def _allowed(stop: FloatArray, may_stop: MayStop, remaining: int, staked: bool = False) -> FloatArray:
    """``stop`` where the player may stop, minus infinity elsewhere (never chosen)."""
    if may_stop is None or remaining == 0:
        return stop
    where = may_stop(remaining)
    return np.where(where[..., None] if staked else where, stop, -np.inf)


@dataclass(frozen=True)
class TurnValues:
    """``values[r]``: the value of holding each result with ``r`` throws still allowed.

    ``may_stop``: where the player may stop with throws left; ``bon``: whether a
    throw that leaves another may be declared « le bon » (its result final),
    weighed where the player may not stop everywhere.
    """

    values: tuple[FloatArray, ...]
    utility: Utility
    may_stop: MayStop = None
    bon: bool = False

    def start(self, throws: int) -> FloatArray:
        """The value of a fresh turn of up to ``throws`` throws."""
        start: FloatArray = self.values[throws - 1] @ TRANSITIONS[KEEP_INDEX[()]]
        return start

    def keep_values(self, remaining: int) -> FloatArray:
        """With ``remaining`` throws allowed, the value of each of the 28 keeps."""
        return self.values[remaining - 1] @ TRANSITIONS.T

    def stop_values(self, remaining: int) -> FloatArray:
        """Stopping on each result, minus infinity where the player may not."""
        return _allowed(self.utility(remaining), self.may_stop, remaining)

    def bon_values(self, remaining: int) -> FloatArray | None:
        """With ``remaining`` throws allowed, each keep's value as « le bon » (None where not weighed)."""
        if not self.bon or self.may_stop is None or remaining < 2:  # free to stop: never better
            return None
        return self.utility(remaining - 1) @ TRANSITIONS.T


def solve(utility: Utility, throws: int, may_stop: MayStop = None, bon: bool = False) -> TurnValues:
    """Backward induction over the remaining throws (0 to ``throws - 1``)."""
    solved = TurnValues((utility(0),), utility, may_stop, bon)
    for remaining in range(1, throws):
        best_keep = _best_keep(solved.keep_values(remaining), staked=False)  # (..., 56)
        if (as_bon := solved.bon_values(remaining)) is not None:
            best_keep = np.maximum(best_keep, _best_keep(as_bon, staked=False))
        solved = replace(
            solved, values=(*solved.values, np.maximum(solved.stop_values(remaining), best_keep))
        )
    return solved


# The keeps each result allows, more dice first, padded with the last: the bot's order between
# keeps worth the same (as :data:`.rounds.KEEP_CHOICES`).
_BY_SIZE = [sorted(k, key=lambda i: -len(KEEPS[i])) for k in KEEPS_OF]
_PREFERRED = np.array([ks + [ks[-1]] * (7 - len(ks)) for ks in _BY_SIZE], dtype=np.intp)


def with_bon(rows: Sequence[Sequence[int]]) -> npt.NDArray[np.intp]:
    """Each result's keeps (``rows``, in order, repeats dropped) as plain throws and as « le bon »
    (plus :data:`BON`, over the 28 keeps then the 28 as « le bon »): more dice first, then a plain
    throw before « le bon », as the bot's options rank them; padded with the last."""
    found = []
    for row in rows:
        keeps = list(dict.fromkeys(row))
        both = sorted([*keeps, *(k + BON for k in keeps)], key=lambda c: (-len(KEEPS[c % BON]), c >= BON))
        found.append(both + [both[-1]] * (14 - len(both)))
    return np.array(found, dtype=np.intp)


_PREFERRED_BON = with_bon(_BY_SIZE)


def _choices(plain: FloatArray, as_bon: FloatArray | None, axis: int) -> FloatArray:
    """Each result's throws, plain and as « le bon », in the bot's order along ``axis`` (the keeps')."""
    if as_bon is None:
        return np.take(plain, _PREFERRED, axis=axis)
    return np.take(np.concatenate([plain, as_bon], axis=axis), _PREFERRED_BON, axis=axis)


def solve_following(utility: Utility, throws: int, may_stop: MayStop = None, bon: bool = False) -> TurnValues:
    """:func:`solve` for the channel ``utility(r)[0]``; the others follow its choices.

    Every array has the channels first. Channel 0 is the player's own value,
    solved as :func:`solve` does (the same floats); the other channels are
    what the same choices are worth in other terms (a chance of some outcome,
    say). Between equal choices: stop, then keep more dice, as the bot does.
    """
    solved = TurnValues((utility(0),), utility, may_stop, bon)
    for remaining in range(1, throws):
        choices = _choices(
            solved.keep_values(remaining), solved.bon_values(remaining), -1
        )  # (ch, ..., 56, 7)
        best = choices[0].argmax(axis=-1)[None, ..., None]
        kept = np.take_along_axis(choices, np.broadcast_to(best, (*choices.shape[:-1], 1)), axis=-1)[..., 0]
        stop = utility(remaining)
        stopping = solved.stop_values(remaining)[0] >= kept[0]
        solved = replace(solved, values=(*solved.values, np.where(stopping, stop, kept)))
    return solved


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
    return _options(values, dice, remaining, row, None, tie)


def _options(
    values: TurnValues | StakedValues,
    dice: Sequence[int],
    remaining: int,
    row: int | None,
    stake: int | None,
    tie: float,
) -> list[Option]:
    """:func:`options`, or :func:`staked_options` with the ``stake`` so far."""
    result = Result.of(dice)
    i = INDEX[result]

    def at(a: FloatArray) -> FloatArray:  # the case, then the stake, of an array over results or keeps
        a = a if row is None else a[row]
        return a if stake is None else a[..., stake]

    found = []
    mask = None if values.may_stop is None or remaining == 0 else values.may_stop(remaining)
    if mask is None or (mask if row is None else mask[row])[i]:
        found.append(Option(result.dice, True, float(at(values.utility(remaining))[i])))
    if remaining > 0:
        cont = at(values.keep_values(remaining))
        found += [Option(KEEPS[k], False, float(cont[k])) for k in KEEPS_OF[i]]
    if (as_bon := values.bon_values(remaining)) is not None:
        final = at(as_bon)
        found += [Option(KEEPS[k], False, float(final[k]), bon=True) for k in KEEPS_OF[i]]
    return best_first(found, tie)


# -- turns where every throw adds to the stake ---------------------------------


@dataclass(frozen=True)
class StakedValues:
    """Turn values when every throw adds its value to the round's stake.

    ``values[r][..., result, stake]``: holding ``result`` with ``r`` throws still
    allowed and ``stake`` accumulated so far (capped at ``cap``, beyond which
    nothing changes). ``may_stop`` and ``bon`` as for :class:`TurnValues`.
    """

    values: tuple[FloatArray, ...]
    utility: Utility
    gains: npt.NDArray[np.intp]  # the value each result adds
    cap: int
    may_stop: MayStop = None
    bon: bool = False

    def _thrown(self, later: FloatArray) -> FloatArray:
        """[..., keep, stake before the throw]: ``later`` [..., result, stake] once the throw's
        result is added to the stake, averaged over the throw."""
        width = self.cap + 1
        shifted = np.minimum(np.arange(width)[None, :] + self.gains[:, None], self.cap)  # (56, cap+1)
        # one gather over the flattened (result, stake) axes: take_along_axis, given indices as
        # large as ``later``, took six times as long
        flat = (np.arange(len(self.gains))[:, None] * width + shifted).ravel()
        gathered = later.reshape(*later.shape[:-2], -1).take(flat, axis=-1).reshape(later.shape)
        cont: FloatArray = TRANSITIONS @ gathered  # einsum took 3 times as long
        return cont

    def keep_values(self, remaining: int) -> FloatArray:
        """[..., keep, stake]: the value of each keep with ``remaining`` throws allowed."""
        return self._thrown(self.values[remaining - 1])

    def stop_values(self, remaining: int) -> FloatArray:
        """[..., result, stake]: stopping, minus infinity where the player may not."""
        return _allowed(self.utility(remaining), self.may_stop, remaining, staked=True)

    def bon_values(self, remaining: int) -> FloatArray | None:
        """[..., keep, stake]: each keep as « le bon », its result final (None where not weighed)."""
        if not self.bon or self.may_stop is None or remaining < 2:  # free to stop: never better
            return None
        return self._thrown(self.utility(remaining - 1))

    def start(self, throws: int) -> FloatArray:
        """[..., stake]: the value of a fresh turn, by the stake before it."""
        return self.keep_values(throws)[..., KEEP_INDEX[()], :]


def solve_staked(
    utility: Utility,
    throws: int,
    gains: npt.NDArray[np.intp],
    cap: int,
    may_stop: MayStop = None,
    bon: bool = False,
) -> StakedValues:
    """Backward induction over (result, stake) when each throw adds ``gains[result]``."""
    solved = StakedValues((utility(0),), utility, gains, cap, may_stop, bon)
    for remaining in range(1, throws):
        best_keep = _best_keep(solved.keep_values(remaining), staked=True)  # (..., 56, cap+1)
        if (as_bon := solved.bon_values(remaining)) is not None:
            best_keep = np.maximum(best_keep, _best_keep(as_bon, staked=True))
        solved = replace(
            solved, values=(*solved.values, np.maximum(solved.stop_values(remaining), best_keep))
        )
    return solved


def _best_keep(values: FloatArray, staked: bool) -> FloatArray:
    """[..., result] (``staked``: [..., result, stake]): the best of ``values[..., keep]`` (or
    ``values[..., keep, stake]``) over the keeps of each result.

    Column by column of :data:`KEEP_GRID`: the same maxima as indexing by the whole grid and taking
    the largest along its columns, without the array seven times as large that builds."""
    axis = -2 if staked else -1
    best: FloatArray = np.take(values, KEEP_GRID[:, 0], axis=axis)
    for keeps in KEEP_GRID.T[1:]:
        np.maximum(best, np.take(values, keeps, axis=axis), out=best)
    return best


def turn_from_stops(
    stops: Sequence[FloatArray], gains: npt.NDArray[np.intp], may_stop: MayStop = None, bon: bool = False
) -> TurnValues | StakedValues:
    """The mover's turn from what stopping is worth by throws left: ``stops[r][result]``, or
    ``stops[r][result, stake]`` where every throw adds ``gains[result]`` to the stake (up to the
    last stake, the pot left); ``may_stop`` and ``bon`` as :func:`solve` takes them."""
    if stops[0].ndim == 2:
        cap = stops[0].shape[1] - 1
        return solve_staked(lambda left: stops[left], len(stops), gains, cap, may_stop, bon)
    return solve(lambda left: stops[left], len(stops), may_stop, bon)


def solve_staked_following(
    utility: Utility,
    throws: int,
    gains: npt.NDArray[np.intp],
    cap: int,
    may_stop: MayStop = None,
    bon: bool = False,
) -> StakedValues:
    """:func:`solve_staked` for channel 0; the other channels follow its choices (see
    :func:`solve_following`)."""
    solved = StakedValues((utility(0),), utility, gains, cap, may_stop, bon)
    for remaining in range(1, throws):
        # (channels, ..., 56, 7, stake)
        choices = _choices(solved.keep_values(remaining), solved.bon_values(remaining), -2)
        best = choices[0].argmax(axis=-2)[None, ..., None, :]
        shape = (*choices.shape[:-2], 1, choices.shape[-1])
        kept = np.take_along_axis(choices, np.broadcast_to(best, shape), axis=-2)[..., 0, :]
        stop = utility(remaining)
        stopping = solved.stop_values(remaining)[0] >= kept[0]
        solved = replace(solved, values=(*solved.values, np.where(stopping, stop, kept)))
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
    return _options(values, dice, remaining, row, min(stake, values.cap), tie)
