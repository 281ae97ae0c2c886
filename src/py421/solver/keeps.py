"""A turn's chances in exact fractions: the keeps a result allows and where each leads.

After a throw a player keeps none, one or two dice and throws the rest. What
can come next depends only on the dice kept, so 28 keeps (from nothing to
two dice) each give a distribution over the 56 results. Plain Python, no
numpy: the commands that value one turn (``421 odds``, ``421 advise`` for a
target) start at once; :mod:`.tables` holds the same chances as arrays.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

from ..core.dice import ALL_RESULTS, Result, sub_multisets, throw_outcomes

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

KEEPS_OF: tuple[tuple[int, ...], ...] = tuple(
    tuple(KEEP_INDEX[k] for k in sub_multisets(r.dice)) for r in RESULTS
)
"""The keeps a player holding each result may choose (keeping nothing included)."""
