"""Dice for the fast simulator: counter-based, so a game's dice depend only on
the seed, the game's number and the throw's number.

Runs are split into batches of games; batch ``b`` of seed ``s`` takes its key
from ``numpy.random.SeedSequence(s).spawn(...)[b]``. A die is then a hash of
(key, game, counter): no generator state travels between games, so the same
seed gives the same games whichever worker plays which batch, in any order.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from ...core.dice import Result
from ...solver.tables import INDEX

U64 = np.uint64
_GOLDEN = U64(0x9E3779B97F4A7C15)
_MIX1 = U64(0xBF58476D1CE4E5B9)
_MIX2 = U64(0x94D049BB133111EB)


def batch_keys(seed: int, batches: int) -> npt.NDArray[np.uint64]:
    """One 128-bit key per batch, as two 64-bit words: shape ``(batches, 2)``."""
    if seed < 0:
        raise ValueError(f"a seed is a whole number from 0, not {seed}")
    children = np.random.SeedSequence(seed).spawn(batches)
    return np.array([c.generate_state(2, np.uint64) for c in children], dtype=np.uint64).reshape(batches, 2)


@njit(cache=True, inline="always")
def _splitmix(x: np.uint64) -> np.uint64:
    x = x + _GOLDEN
    x = (x ^ (x >> U64(30))) * _MIX1
    x = (x ^ (x >> U64(27))) * _MIX2
    return x ^ (x >> U64(31))


@njit(cache=True)
def die(key: npt.NDArray[np.uint64], game: int, counter: int) -> int:
    """A face 1 to 6 for throw ``counter`` of game ``game`` under ``key``.

    Six times 53 random bits, shifted: the faces' chances differ from 1/6 by
    less than 1e-15.
    """
    x = _splitmix(key[0] ^ _splitmix(key[1] + U64(game) * _GOLDEN) ^ _splitmix(U64(counter)))
    return 1 + int(((x >> U64(11)) * U64(6)) >> U64(53))


@njit(cache=True)
def dice_block(
    key: npt.NDArray[np.uint64], first_game: int, games: int, counters: int
) -> npt.NDArray[np.int8]:
    """The faces of ``counters`` throws of each of ``games`` games from ``first_game``."""
    out = np.empty((games, counters), dtype=np.int8)
    for g in range(games):
        for c in range(counters):
            out[g, c] = die(key, first_game + g, c)
    return out


def _result_of_faces() -> npt.NDArray[np.int8]:
    lut = np.empty(6 * 6 * 6, dtype=np.int8)
    for a in range(1, 7):
        for b in range(1, 7):
            for c in range(1, 7):
                lut[faces_code(a, b, c)] = INDEX[Result.of((a, b, c))]
    return lut


def faces_code(a: int, b: int, c: int) -> int:
    """The position of three faces (in any order) in :data:`RESULT_OF_FACES`."""
    return (a - 1) * 36 + (b - 1) * 6 + (c - 1)


# The result (index into py421.solver.tables.RESULTS) of three faces in any order.
RESULT_OF_FACES: npt.NDArray[np.int8] = _result_of_faces()
