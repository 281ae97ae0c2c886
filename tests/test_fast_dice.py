"""The fast simulator's dice: the same for the same seed however the games are split, and fair."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from py421.core.dice import Result
from py421.sim.fast.counter_dice import (
    RESULT_OF_FACES,
    batch_keys,
    dice_block,
    face,
    faces_code,
    game_key,
    throw_code,
)
from py421.solver.tables import RESULTS


def test_three_faces_in_any_order_give_their_result():
    for faces in itertools.product(range(1, 7), repeat=3):
        code = faces_code(*faces)
        assert RESULTS[RESULT_OF_FACES[code]] == Result.of(faces)
        assert tuple(face(code, i) for i in range(3)) == faces


def test_a_seed_gives_the_same_dice_however_the_games_are_split():
    key = batch_keys(421, 4)[2]
    whole = dice_block(key, 0, 100, 30)
    parts = np.vstack([dice_block(key, 0, 40, 30), dice_block(key, 40, 60, 30)])
    assert np.array_equal(whole, parts)
    code = throw_code(game_key(key, 57), 12)
    assert tuple(face(code, i) for i in range(3)) == tuple(whole[57, 12])
    assert np.array_equal(batch_keys(421, 4), batch_keys(421, 4))


def test_batches_and_seeds_have_their_own_dice():
    keys = batch_keys(1, 3)
    blocks = [dice_block(k, 0, 50, 20) for k in [*keys, batch_keys(2, 1)[0]]]
    for a, b in itertools.combinations(blocks, 2):
        assert not np.array_equal(a, b)


def test_a_negative_seed_is_refused_with_what_is_accepted():
    with pytest.raises(ValueError, match="a whole number from 0"):
        batch_keys(-1, 1)


def chi_square(counts: np.ndarray) -> float:
    expected = counts.sum() / counts.size
    return float(((counts - expected) ** 2 / expected).sum())


def test_faces_and_pairs_of_faces_are_uniform():
    """Chi-square against fair dice; each bound is passed by fair dice with chance about 1e-6."""
    dice = dice_block(batch_keys(2026, 1)[0], 0, 20_000, 20).astype(np.intp)
    for i in range(3):
        counts = np.bincount(dice[:, :, i].ravel(), minlength=7)[1:]
        assert chi_square(counts) < 35.9  # 5 degrees of freedom
    faces = dice[:, :, 0]
    # two dice of a throw, a throw and the next in the same game, the same throw in the next game
    within = (dice[:, :, 0] - 1) * 6 + dice[:, :, 2] - 1
    along = (faces[:, :-1] - 1) * 6 + faces[:, 1:] - 1
    across = (faces[:-1, :] - 1) * 6 + faces[1:, :] - 1
    for pairs in (within, along, across):
        assert chi_square(np.bincount(pairs.ravel(), minlength=36)) < 89.0  # 35 degrees of freedom


def test_batch_keys_are_the_seed_sequences_children():
    children = np.random.SeedSequence(77).spawn(3)
    assert np.array_equal(batch_keys(77, 3), [c.generate_state(2, np.uint64) for c in children])
