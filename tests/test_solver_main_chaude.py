"""« Main chaude » in the whole-game solver: the stakes each chooser makes, and a deviating one's."""

from __future__ import annotations

import numpy as np
import pytest

from py421.core.rules import Ruleset
from py421.solver.game_maxn import settling_of

ENGRANJEU = Ruleset.preset("engranjeu-21").with_options(pot=4)


@pytest.mark.parametrize("charge", [True, False])
def test_every_class_settles_and_each_chooser_takes_their_better_stake(charge):
    settling = settling_of(ENGRANJEU, 3, charge)
    chaude = settling.chaude
    assert chaude is not None and chaude.points  # tie-breaks tied again: choices to make
    rng = np.random.default_rng(3)
    seats = (2, 0, 1)  # the round's seats in playing order
    after = rng.random((len(settling.outcomes), 3))
    weights, vient = chaude.weights(after, seats)
    assert weights.sum(axis=1) == pytest.approx(1.0, abs=1e-12)  # every class settles, choices made
    assert weights.min() >= 0
    assert any(vient) and not all(vient)  # against these values both stakes are taken somewhere
    for point, chose in zip(chaude.points, vient, strict=True):
        ways = chaude.ways(after, seats, point) @ after[:, seats[point[2][0]]]
        assert ways[int(chose)] >= ways[int(not chose)] - 1e-12  # the chooser's better stake, this once


def test_one_seat_deviating_changes_only_its_own_stakes_and_never_loses_by_it():
    settling = settling_of(ENGRANJEU, 3, False)
    chaude = settling.chaude
    assert chaude is not None
    rng = np.random.default_rng(5)
    seats = (0, 1, 2)
    solved, other = rng.random((2, len(settling.outcomes), 3))
    _, played = chaude.weights(solved, seats)
    _, theirs = chaude.weights(other, seats)
    for seat in seats:
        weights, vient = chaude.weights(other, seats, played, seat)
        for point, chose, kept in zip(chaude.points, vient, played, strict=True):
            if seats[point[2][0]] != seat:
                assert chose == kept  # the others play the stakes solved before
        staying, _ = chaude.weights(other, seats, played, -1)  # nobody deviates
        assert np.all(weights @ other[:, seat] >= staying @ other[:, seat] - 1e-12)
    # where the others would choose as the seat's values make them, it is every player's choice
    assert chaude.weights(other, seats, theirs, 0)[1] == theirs
