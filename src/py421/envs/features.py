"""What a decision of a two-player game depends on, read from batches of observations.

The positions of the tabular policies (:mod:`.saved_policy`, ``examples/learn_vector.py``):
the phase, the pot, the seat's tokens, whether it leads, its dice, the throws used and
allowed, the result it must beat, a tie and the stake of a « main chaude », packed into one
whole number per observation (:meth:`Features.keys`). Manches are left out: in two-player
games every manche is worth the same. Only numpy is needed.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..core.rules import Ruleset
from ..solver.tables import RESULTS
from .observation import GYM_ACTIONS, ObservationEncoder

FloatArray = npt.NDArray[np.float32]
BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]
ACTIONS = GYM_ACTIONS  # 0 stops; 1 to 7 rethrow the dice whose bits are set (highest die first)
PLAYERS = 2


def kept_dice(dice: tuple[int, ...], bits: int) -> tuple[int, ...]:
    """The dice kept (highest first) when the action ``bits`` throws those of its set bits again."""
    return tuple(sorted((f for i, f in enumerate(dice) if not bits >> i & 1), reverse=True))


class Features:
    """Reads batches of observations of two-player games under ``rules`` as numbers (seat 0 the
    observer, seat 1 the other)."""

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.encoder = ObservationEncoder(rules, PLAYERS)
        self.at = {seg.name: seg.start for seg in self.encoder.segments}
        self.total = rules.pot + rules.initial_tokens * PLAYERS  # the tokens of a manche
        table = rules.table
        # faces (highest first) -> index in RESULTS; a result's strength (1 weakest .. 56) -> index
        self.result_of_faces = np.full(7**3, -1, dtype=np.int64)
        self.result_of_strength = np.full(len(RESULTS) + 1, -1, dtype=np.int64)
        for r, result in enumerate(RESULTS):
            a, b, c = result.dice
            self.result_of_faces[a * 49 + b * 7 + c] = r
            self.result_of_strength[table.strength(result) + 1] = r  # strength counts from 0, ranks from 1
        # canonical[r, i]: action i is the smallest index of its move holding result r (4-4-2: 1 and 2
        # both keep 4-2), so each move is learned once
        self.canonical = np.zeros((len(RESULTS), ACTIONS), dtype=np.bool_)
        for r, result in enumerate(RESULTS):
            seen: set[tuple[int, ...]] = set()
            self.canonical[r, 0] = True
            for bits in range(1, ACTIONS):
                kept = kept_dice(result.dice, bits)
                self.canonical[r, bits] = kept not in seen
                seen.add(kept)

    def column(self, obs: FloatArray, name: str, seat: int = 0) -> IntArray:
        """One entry of every observation, as whole numbers (seat 0: the learning seat, 1: the other)."""
        return obs[:, self.at[name] + seat].astype(np.int64)

    def result(self, obs: FloatArray) -> IntArray:
        """The index in RESULTS of the dice in hand (-1: none)."""
        d = obs[:, self.at["dice"] : self.at["dice"] + 3].astype(np.int64)
        found: IntArray = self.result_of_faces[d[:, 0] * 49 + d[:, 1] * 7 + d[:, 2]]
        return found

    def to_beat(self, obs: FloatArray) -> IntArray:
        """The other seat's final result of this round (index in RESULTS), -1 while it has none."""
        strength = self.column(obs, "result_rank", 1)
        return np.where(strength > 0, self.result_of_strength[strength], -1)

    def keys(self, obs: FloatArray) -> IntArray:
        """A whole number per observation that names the decision's position (the table's row)."""
        phase = np.argmax(obs[:, self.at["phase"] : self.at["phase"] + 4], axis=1).astype(np.int64)
        parts = (
            (phase, 4),
            (self.column(obs, "pot"), self.rules.pot + 1),
            (np.minimum(self.column(obs, "tokens"), self.total), self.total + 1),
            (self.column(obs, "leader"), 2),
            (self.result(obs) + 1, len(RESULTS) + 1),
            (self.column(obs, "throws"), 4),
            (self.column(obs, "throws_allowed"), 4),
            (self.to_beat(obs) + 1, len(RESULTS) + 1),
            (self.column(obs, "tie") | self.column(obs, "tie", 1), 2),
            (self.column(obs, "stake_choice"), 2),
        )
        key = np.zeros(len(obs), dtype=np.int64)
        for value, size in parts:
            key = key * size + value
        return key

    def choices(self, obs: FloatArray, masks: BoolArray) -> BoolArray:
        """The legal actions, one per distinct move (at a « main chaude »: 0 est, 1 vient)."""
        r = self.result(obs)
        stake = self.column(obs, "stake_choice") == 1
        distinct = np.where(stake[:, None], np.arange(ACTIONS) < 2, self.canonical[np.maximum(r, 0)])
        return masks & distinct

    def manche(self, obs: FloatArray) -> IntArray:
        return self.column(obs, "manche")

    def manches_lost(self, obs: FloatArray, seat: int = 0) -> IntArray:
        return self.column(obs, "manches_lost", seat)

    def held(self, obs: FloatArray) -> npt.NDArray[np.float64]:
        """The share of the manche's tokens the seat holds or owes: all of them at the end loses it."""
        held = obs[:, self.at["tokens"]] + obs[:, self.at["debts"]]
        return held.astype(np.float64) / self.total
