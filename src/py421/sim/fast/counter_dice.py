"""Dice for the fast simulator: counter-based, so a game's dice depend only on
the seed, the game's number and the throw's number.

Runs are split into batches of games; batch ``b`` of seed ``s`` takes its key
from ``numpy.random.SeedSequence(s).spawn(...)[b]``. A game's own key is a
hash of the batch key and the game's number, and each throw is a hash of the
game's key and a counter: no generator state travels between games, so the
same seed gives the same games whichever worker plays which batch, in any
order.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from ...core.dice import Result
from ...core.errors import InvalidParameter, Message
from ...solver.tables import INDEX

U64 = np.uint64
_GOLDEN = U64(0x9E3779B97F4A7C15)
_MIX1 = U64(0xBF58476D1CE4E5B9)
_MIX2 = U64(0x94D049BB133111EB)
# Bits a bot's random choices add to the counter, apart from the dice's counters.
CHOICE_STREAM = 1 << 62


def batch_key(seed: int, batch: int) -> npt.NDArray[np.uint64]:
    """The 128-bit key of batch ``batch`` of ``seed``, as two 64-bit words.

    The same as ``SeedSequence(seed).spawn(batch + 1)[batch]``, without making the others.
    """
    if seed < 0:
        raise InvalidParameter(Message("sim.seed", {"seed": seed}))
    words = np.random.SeedSequence(seed, spawn_key=(batch,)).generate_state(2, np.uint64)
    return np.asarray(words, dtype=np.uint64)


def batch_keys(seed: int, batches: int) -> npt.NDArray[np.uint64]:
    """The keys of the first ``batches`` batches: shape ``(batches, 2)``."""
    return np.array([batch_key(seed, b) for b in range(batches)], dtype=np.uint64).reshape(batches, 2)


@njit(cache=True, inline="always")
def _splitmix(x: np.uint64) -> np.uint64:
    x = x + _GOLDEN
    x = (x ^ (x >> U64(30))) * _MIX1
    x = (x ^ (x >> U64(27))) * _MIX2
    return x ^ (x >> U64(31))


@njit(cache=True)
def game_key(key: npt.NDArray[np.uint64], game: int) -> np.uint64:
    """The key of game ``game`` of a batch."""
    return _splitmix(key[0] ^ _splitmix(key[1] + U64(game) * _GOLDEN))


def _mixed_counters(size: int) -> npt.NDArray[np.uint64]:
    """``_splitmix(c)`` for ``c`` from 0 to ``size - 1``: numpy's uint64 arithmetic wraps as the hash does."""
    x = np.arange(size, dtype=np.uint64) + _GOLDEN
    x = (x ^ (x >> U64(30))) * _MIX1
    x = (x ^ (x >> U64(27))) * _MIX2
    return x ^ (x >> U64(31))


# The counters' own hash, the same in every game: a game's first throws look it up and hash once,
# not twice. 1,024 counters (8 kB) cover all but the longest games' dice.
MIXED_COUNTERS: npt.NDArray[np.uint64] = _mixed_counters(1024)


@njit(cache=True, inline="always")
def random_bits(gkey: np.uint64, counter: int) -> np.uint64:
    """64 random bits, the ``counter``-th draw of a game."""
    if counter < MIXED_COUNTERS.size:  # counters are never negative
        return _splitmix(gkey ^ MIXED_COUNTERS[counter])
    return _splitmix(gkey ^ _splitmix(U64(counter)))


@njit(cache=True)
def below(bits: np.uint64, n: int) -> int:
    """A whole number from 0 to ``n - 1`` out of 64 random bits.

    53 of the bits, scaled: each number's chance differs from 1/n by less
    than n/2**53.
    """
    return int(((bits >> U64(11)) * U64(n)) >> U64(53))


@njit(cache=True)
def throw_code(gkey: np.uint64, counter: int) -> int:
    """Three dice as one number from 0 to 215 (see :func:`faces_of_code`)."""
    return below(random_bits(gkey, counter), 216)


@njit(cache=True)
def face(code: int, i: int) -> int:
    """Die ``i`` (0, 1 or 2) of a throw code; fewer dice use the first ones."""
    if i == 0:
        return code // 36 + 1
    if i == 1:
        return code // 6 % 6 + 1
    return code % 6 + 1


@njit(cache=True)
def dice_block(key: npt.NDArray[np.uint64], first_game: int, games: int, throws: int) -> npt.NDArray[np.int8]:
    """The faces of ``throws`` throws of three dice in each of ``games`` games: (games, throws, 3)."""
    out = np.empty((games, throws, 3), dtype=np.int8)
    for g in range(games):
        gkey = game_key(key, first_game + g)
        for c in range(throws):
            code = throw_code(gkey, c)
            for i in range(3):
                out[g, c, i] = face(code, i)
    return out


def _result_of_faces() -> npt.NDArray[np.int8]:
    lut = np.empty(6 * 6 * 6, dtype=np.int8)
    for a in range(1, 7):
        for b in range(1, 7):
            for c in range(1, 7):
                lut[faces_code(a, b, c)] = INDEX[Result.of((a, b, c))]
    return lut


def faces_code(a: int, b: int, c: int) -> int:
    """The position of three faces (in any order) in :data:`RESULT_OF_FACES`; the inverse of :func:`face`."""
    return (a - 1) * 36 + (b - 1) * 6 + (c - 1)


# The result (index into py421.solver.tables.RESULTS) of three faces in any order.
RESULT_OF_FACES: npt.NDArray[np.int8] = _result_of_faces()
