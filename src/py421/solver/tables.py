"""The chance structure of a turn as arrays, for the solvers (:mod:`.keeps` in exact fractions).

``TRANSITIONS[keep, result]`` is the chance of each result after each of
the 28 keeps; ``KEEP_GRID`` lists the keeps each result allows, for a
vectorized best choice.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .keeps import EXACT_TRANSITIONS, INDEX, KEEP_INDEX, KEEPS, KEEPS_OF, RESULTS

__all__ = [
    "BON",
    "EXACT_TRANSITIONS",
    "INDEX",
    "KEEPS",
    "KEEPS_OF",
    "KEEP_GRID",
    "KEEP_INDEX",
    "RESULTS",
    "TRANSITIONS",
    "FloatArray",
]

FloatArray = npt.NDArray[np.float64]

TRANSITIONS: FloatArray = np.array([[float(p) for p in row] for row in EXACT_TRANSITIONS])

# Added to a keep's index: the throw is declared « le bon », its result final (as the simulator's kernel).
BON = len(KEEPS)

# KEEPS_OF padded to 7 columns with "keep nothing" (always allowed), for a vectorized max.
KEEP_GRID: npt.NDArray[np.intp] = np.array(
    [list(ks) + [KEEP_INDEX[()]] * (7 - len(ks)) for ks in KEEPS_OF], dtype=np.intp
)
