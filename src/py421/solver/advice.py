"""Advice for one turn: every choice ranked by its exact value.

Two single-turn objectives need no context beyond the dice:

- ``target``: the probability of ending strictly better than a given result
  (what a player must beat);
- ``coup_sec`` (when no target is given): the probability of ending better
  than one fresh throw of three dice, ties counting half — a plain measure of
  how good a finished result is.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from ..core.combos import CombinationTable
from ..core.dice import Result
from .tables import KEEP_INDEX, RESULTS, TRANSITIONS, FloatArray
from .turn import Option, TurnValues, beats_target, options, solve


def against_coup_sec(table: CombinationTable) -> FloatArray:
    """P(a result beats one fresh throw), ties counting half."""
    fresh = TRANSITIONS[KEEP_INDEX[()]]
    strength = np.array([table.strength(r) for r in RESULTS])
    wins = (strength[:, None] > strength[None, :]) @ fresh
    ties = (strength[:, None] == strength[None, :]) @ fresh
    value: FloatArray = wins + ties / 2
    return value


@dataclass(frozen=True)
class Advice:
    objective: str
    options: list[Option]


@cache
def _values(table: CombinationTable, target: Result | None, throws: int) -> TurnValues:
    u = beats_target(table, target) if target is not None else against_coup_sec(table)
    return solve(lambda remaining: u, throws)


def advise(table: CombinationTable, dice: Result, throws_left: int, target: Result | None = None) -> Advice:
    """Every choice holding ``dice`` with ``throws_left`` throws still allowed, best first."""
    if not 0 <= throws_left <= 2:
        raise ValueError(f"a turn has at most 3 throws: 0 to 2 left, not {throws_left}")
    values = _values(table, target, throws_left + 1)
    objective = f"P(better than {target})" if target is not None else "P(better than a coup sec)"
    return Advice(objective, options(values, dice.dice, throws_left))
