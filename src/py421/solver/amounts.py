"""What a settled round is worth, for the solvers' models, on arrays of results.

The engine settles one round at a time (``engine._base_amount`` and the
nénette penalty in ``engine._settle``); the solvers need the same amounts for
every pair of results at once. The tests check the models against the engine.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt

from ..core.combos import NENETTE
from ..core.rules import Ruleset
from .tables import INDEX, RESULTS

IntArray = npt.NDArray[np.intp]


@cache
def token_values(rules: Ruleset) -> IntArray:
    """Each result's value in tokens, by result index."""
    return np.array([rules.table.values[r] for r in RESULTS], dtype=np.intp)


def base_amounts(
    rules: Ruleset, best: IntArray, worst: IntArray, tied: npt.NDArray[np.bool_] | bool = False
) -> IntArray:
    """The best result's value, less the worst's where values are deducted (never a nénette).

    Where ``tied`` (every player of the round tied), nothing is deducted: a tie
    is worth the value of the result that tied.
    """
    values = token_values(rules)
    amount: IntArray = values[best]
    if rules.value_deduction:
        deducted = np.maximum(0, amount - values[worst])
        amount = np.where((worst == INDEX[NENETTE]) | tied, amount, deducted)
    return amount


def settled_amounts(
    rules: Ruleset, best: IntArray, worst: IntArray, tied: npt.NDArray[np.bool_] | bool = False
) -> IntArray:
    """What the loser pays: the base amount, or the nénette penalty when the worst is a nénette."""
    amount = base_amounts(rules, best, worst, tied)
    if rules.nenette_penalty:
        amount = np.where(worst == INDEX[NENETTE], rules.nenette_penalty, amount)
    return amount
