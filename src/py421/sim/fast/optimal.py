"""The optimal bot's decisions as tables, built position by position.

For two players the optimal bot plays the solved game
(:class:`py421.solver.heads_up.HeadsUp`): at the start of each round, the
position (phase, pot, seat 0's tokens, leader) gives both players' turn
values. :class:`OptimalPositions` turns the values of a position into
decisions (stop, or which dice to keep, for every result, throws left and
stake) the first time a game reaches it, with the same tie-breaks as the bot:
stop on equal values, then keep more dice.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ...core.rules import Ruleset
from ...players.optimal import solved, whole_game
from ...solver.tables import KEEPS, KEEPS_OF, RESULTS
from ...solver.turn import StakedValues, TurnValues
from .kernel import STOP
from .policy import AMOUNTS, H_MISSING, H_TOTAL, HEADER, position_code

FloatArray = npt.NDArray[np.float64]

# For each result, the choices in the bot's order of preference on equal
# values: stop (-1), then the keeps, more dice first; -2 pads.
_PAD = -2
_PREFERENCE = np.full((len(RESULTS), 8), _PAD, dtype=np.int64)
for _i, _keeps in enumerate(KEEPS_OF):
    _PREFERENCE[_i, 0] = STOP
    _PREFERENCE[_i, 1 : 1 + len(_keeps)] = sorted(_keeps, key=lambda k: -len(KEEPS[k]))


def decisions(stop: FloatArray, keeps: FloatArray) -> npt.NDArray[np.int8]:
    """The best choice for every result: ``stop[..., result, stake]``, ``keeps[..., keep, stake]``."""
    stop_values = stop[..., :, None, :]  # [..., result, 1, stake]
    keep_values = keeps[..., np.maximum(_PREFERENCE, 0), :]  # [..., result, choice, stake]
    values = np.where((_PREFERENCE == STOP)[:, :, None], stop_values, keep_values)
    values = np.where((_PREFERENCE == _PAD)[:, :, None], -np.inf, values)
    best = values.argmax(axis=-2)  # the first of equal values: the preferred one
    chosen: npt.NDArray[np.int8] = _PREFERENCE[np.arange(len(RESULTS))[:, None], best].astype(np.int8)
    return chosen


class OptimalPositions:
    """The kernel's ``index`` and ``actions`` for the two-player optimal bot of a ruleset."""

    def __init__(self, rules: Ruleset) -> None:
        if not whole_game(rules, 2):
            raise ValueError(
                f"the optimal bot's tables are built for two-player games the solver covers, not {rules.name}"
            )
        self.rules = rules
        self.solver = solved(rules)
        total = rules.pot
        self.total = total
        self.positions = position_code(total, 1, total, total, 1) + 1
        self.index = np.full(HEADER + 2 * self.positions, -1, dtype=np.int64)
        self.index[H_TOTAL] = total
        self.index[H_MISSING] = -1
        self.actions = np.zeros(1 << 16, dtype=np.int8)
        self.used = 0
        self.built = 0

    def build_missing(self) -> None:
        """Build the position a game asked for."""
        code = int(self.index[H_MISSING])
        self.index[H_MISSING] = -1
        self.build(code)

    def build(self, code: int) -> None:
        rest, leader = divmod(code, 2)
        rest, t0 = divmod(rest, self.total + 1)
        charge, pot = divmod(rest, self.total + 1)
        block, width = self._block(bool(charge), pot, t0, leader)
        end = self.used + block.size
        if end > self.actions.size:
            grown = np.zeros(max(end, 2 * self.actions.size), dtype=np.int8)
            grown[: self.used] = self.actions[: self.used]
            self.actions = grown
        self.actions[self.used : end] = block
        self.index[HEADER + code] = self.used
        self.index[HEADER + self.positions + code] = width
        self.used = end
        self.built += 1

    def build_all(self) -> None:
        """Every position of a manche (for tests and small rulesets)."""
        for charge in (False, True):
            for pot in range(1, self.total + 1) if charge else (0,):
                t0_range = range(self.total - pot + 1) if charge else range(1, self.total)
                for t0 in t0_range:
                    for leader in (0, 1):
                        code = position_code(self.total, charge, pot, t0, leader)
                        if self.index[HEADER + code] < 0:
                            self.build(code)

    def _block(self, charge: bool, pot: int, t0: int, leader: int) -> tuple[npt.NDArray[np.int8], int]:
        rules = self.rules
        leader_values, follower_values = self.solver.position(charge, pot, t0, leader)
        most = rules.throws_allowed(charge)
        staked = isinstance(leader_values, StakedValues)
        width = 1
        if isinstance(leader_values, StakedValues):
            # stakes at or above the pot all take the whole pot: one column serves them
            width = min(pot, leader_values.cap) + 1

        def table(values: TurnValues | StakedValues, remaining: int) -> npt.NDArray[np.int8]:
            stop, keeps = values.utility(remaining), values.keep_values(remaining)
            if not staked:
                stop, keeps = stop[..., None], keeps[..., None]
            return decisions(stop[..., :width], keeps[..., :width])

        n = len(RESULTS)
        lead = np.full((2, n, width), STOP, dtype=np.int8)
        for remaining in range(1, most):
            lead[remaining - 1] = table(leader_values, remaining)
        follow = np.full((3, 2, n, n, width), STOP, dtype=np.int8)
        for kl, values in follower_values.items():
            limit = kl if rules.leader_limit else most
            for remaining in range(1, limit):
                follow[kl - 1, remaining - 1] = table(values, remaining)
        stake = np.zeros(AMOUNTS, dtype=np.int8)
        if rules.tie_break == "qui_barre_demarre":
            top = max(rules.table.values.values())
            for amount in range(top + 1):
                stake[amount] = self.solver.stake(charge, pot, t0, leader, amount) == "vient"
        return np.concatenate([lead.ravel(), follow.ravel(), stake]), width
