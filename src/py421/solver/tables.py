"""The chance structure of a turn, computed once: keeps and where they lead.

After a throw a player keeps none, one or two dice and throws the rest. What
can come next depends only on the dice kept, so 28 keeps (from nothing to
two dice) each give a distribution over the 56 results.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from ..core.dice import ALL_RESULTS, Result, sub_multisets, throw_outcomes

FloatArray = npt.NDArray[np.float64]

RESULTS: tuple[Result, ...] = ALL_RESULTS
INDEX: dict[Result, int] = {r: i for i, r in enumerate(RESULTS)}

KEEPS: tuple[tuple[int, ...], ...] = tuple(
    keep for size in range(3) for keep in itertools.combinations_with_replacement(range(6, 0, -1), size)
)
KEEP_INDEX: dict[tuple[int, ...], int] = {k: i for i, k in enumerate(KEEPS)}


def _exact_transitions() -> list[list[Fraction]]:
    rows = []
    for keep in KEEPS:
        row = [Fraction(0)] * len(RESULTS)
        for faces, p in throw_outcomes(3 - len(keep)):
            row[INDEX[Result.of(keep + faces)]] += p
        rows.append(row)
    return rows


EXACT_TRANSITIONS: list[list[Fraction]] = _exact_transitions()
"""EXACT_TRANSITIONS[keep][result]: chance of ``result`` after keeping ``KEEPS[keep]``."""

TRANSITIONS: FloatArray = np.array([[float(p) for p in row] for row in EXACT_TRANSITIONS])

KEEPS_OF: tuple[tuple[int, ...], ...] = tuple(
    tuple(KEEP_INDEX[k] for k in sub_multisets(r.dice)) for r in RESULTS
)
"""The keeps a player holding each result may choose (keeping nothing included)."""

# KEEPS_OF padded to 7 columns with "keep nothing" (always allowed), for a vectorized max.
KEEP_GRID: npt.NDArray[np.intp] = np.array(
    [list(ks) + [KEEP_INDEX[()]] * (7 - len(ks)) for ks in KEEPS_OF], dtype=np.intp
)
