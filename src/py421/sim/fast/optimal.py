"""The optimal bot's decisions as tables, built as games reach them.

For two players the optimal bot plays the solved game
(:class:`py421.solver.heads_up.HeadsUp`): at the start of each round, the
position (phase, pot, seat 0's tokens, leader) gives both players' turn
values. :class:`OptimalPositions` turns the values of a position into
decisions (stop, or which dice to keep, for every result, throws left and
stake) the first time a game reaches it.

Elsewhere (three or more players, or rules the two-player solver does not
cover) the bot plays each round by max^n (:mod:`py421.solver.rounds`), and
:class:`OptimalRounds` turns each solved round into decisions for every
place, throw limit and summary of the results before it.

Both keep the bot's tie-breaks: stop on equal values, then keep more dice.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ...core.errors import InvalidRuleset
from ...core.rules import MAX_THROWS, Ruleset
from ...players.optimal import whole_game
from ...solver.rounds import (
    KEEP_CHOICES,
    MAX_ROUND_PLAYERS,
    comparison_of,
    pot_cap,
    round_for,
    stages,
    vient_amount,
)
from ...solver.solutions import solved
from ...solver.tables import RESULTS
from ...solver.turn import StakedValues, TurnValues
from .kernel import STOP
from .policy import (
    AMOUNTS,
    DIR_WIDTH,
    H_MISSING,
    H_MODE,
    H_TOTAL,
    HEADER,
    MODE_GAME,
    MODE_ROUNDS,
    ROUNDS_HEADER,
    position_code,
)

FloatArray = npt.NDArray[np.float64]
I8 = npt.NDArray[np.int8]


def decisions(stop: FloatArray, keeps: FloatArray) -> npt.NDArray[np.int8]:
    """The best choice for every result: ``stop[..., result, stake]``, ``keeps[..., keep, stake]``.

    On equal values the bot stops, else keeps more dice (``KEEP_CHOICES`` lists
    them so, and its padding repeats the last, which never comes first).
    """
    keep_values = keeps[..., KEEP_CHOICES, :]  # [..., result, choice, stake]
    best = keep_values.argmax(axis=-2)  # the first of equal values: the preferred one
    best_value = np.take_along_axis(keep_values, best[..., None, :], axis=-2)[..., 0, :]
    keep = KEEP_CHOICES[np.arange(len(RESULTS))[:, None], best]
    chosen: npt.NDArray[np.int8] = np.where(stop >= best_value, STOP, keep).astype(np.int8)
    return chosen


class DecisionTables:
    """The kernel's ``index`` (where each block starts) and ``actions`` (the blocks), built block by block."""

    def __init__(self, rules: Ruleset, index: npt.NDArray[np.int64]) -> None:
        self.rules = rules
        self.index = index
        self.actions = np.zeros(1 << 16, dtype=np.int8)
        self.used = 0
        self.built = 0

    def build(self, code: int) -> None:
        raise NotImplementedError

    def build_missing(self) -> None:
        """Build the block a game asked for."""
        code = int(self.index[H_MISSING])
        self.index[H_MISSING] = -1
        self.build(code)

    def _add(self, block: I8) -> int:
        """Write ``block`` after the others; where it starts."""
        start, end = self.used, self.used + block.size
        if end > self.actions.size:  # grow by doubling: few copies however many blocks come
            grown = np.zeros(max(end, 2 * self.actions.size), dtype=np.int8)
            grown[:start] = self.actions[:start]
            self.actions = grown
        self.actions[start:end] = block
        self.used = end
        return start


class OptimalPositions(DecisionTables):
    """The kernel's ``index`` and ``actions`` for the two-player optimal bot of a ruleset."""

    def __init__(self, rules: Ruleset) -> None:
        if not whole_game(rules, 2):
            raise InvalidRuleset(
                f"the optimal bot's tables are built for two-player games the solver covers, not {rules.name}"
            )
        self.solver = solved(rules)
        total = self.solver.total
        self.stake_size = max(AMOUNTS, rules.pot + 1)  # « main chaude » by amount, or by stake
        self.total = total
        self.positions = position_code(total, 1, total, total, 1) + 1
        index = np.full(HEADER + 2 * self.positions, -1, dtype=np.int64)
        index[H_TOTAL] = total
        index[H_MISSING] = -1
        index[H_MODE] = MODE_GAME
        super().__init__(rules, index)

    def build(self, code: int) -> None:
        rest, leader = divmod(code, 2)
        rest, t0 = divmod(rest, self.total + 1)
        charge, pot = divmod(rest, self.total + 1)
        block, width = self._block(bool(charge), pot, t0, leader)
        self.index[HEADER + code] = self._add(block)
        self.index[HEADER + self.positions + code] = width
        self.built += 1

    def codes(self) -> list[int]:
        """Every position of a manche."""
        found = []
        for charge in (False, True):
            for pot in range(1, self.rules.pot + 1) if charge else (0,):
                t0_range = range(self.total - pot + 1) if charge else range(1, self.total)
                for t0 in t0_range:
                    found += [position_code(self.total, charge, pot, t0, leader) for leader in (0, 1)]
        return found

    def merge(self, index: npt.NDArray[np.int64], actions: I8) -> None:
        """Take the positions another process built (its ``index`` and ``actions``) that this one lacks."""
        for code in np.flatnonzero(index[HEADER : HEADER + self.positions] >= 0):
            if self.index[HEADER + code] >= 0:
                continue
            start, width = index[HEADER + code], index[HEADER + self.positions + code]
            size = self._block_size(int(width))
            self.index[HEADER + code] = self._add(actions[start : start + size])
            self.index[HEADER + self.positions + code] = width
            self.built += 1

    def _block_size(self, width: int) -> int:
        n = len(RESULTS)
        return (2 * n + 3 * 2 * n * n) * width + self.stake_size

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
        stake = np.zeros(self.stake_size, dtype=np.int8)
        if rules.tie_break == "qui_barre_demarre":
            # by what « est » settles for: an amount, or with accumulated stakes the stake so far
            choices = self.solver.stakes(charge, pot, t0, leader)
            stake[: len(choices)] = choices
        return np.concatenate([lead.ravel(), follow.ravel(), stake]), width


class OptimalRounds(DecisionTables):
    """The kernel's ``index`` and ``actions`` for the optimal bot playing round by round.

    A block per round the bot solves: the players in the round, the phase and
    the pot's cap (:func:`py421.solver.rounds.round_for`).
    """

    def __init__(self, rules: Ruleset, players: int) -> None:
        total = rules.pot
        keys: dict[tuple[int, int, int | None], int] = {}
        self.pots: list[int] = []  # by block: a pot that leads to it
        block_of = np.zeros((MAX_ROUND_PLAYERS + 1, 2, total + 1), dtype=np.int64)
        for count in range(2, players + 1):
            for charge in (0, 1):
                for pot in range(total + 1):
                    key = (count, charge, pot_cap(rules, count, bool(charge), pot))
                    if key not in keys:
                        keys[key] = len(keys)
                        self.pots.append(pot)
                    block_of[count, charge, pot] = keys[key]
        self.keys = list(keys)
        level = stages(comparison_of(rules), players)
        self.sizes = [len(stage.summaries) for stage in level]
        # after place i's result (i from 1 to players - 2), the summary from the one before it
        nexts = [stage.next.ravel() for stage in level[: players - 2]]
        cheaper = [vient_amount(rules) < amount for amount in range(AMOUNTS)]
        tables: list[npt.ArrayLike] = [block_of.ravel(), np.full(len(keys) * DIR_WIDTH, -1)]
        tables += [self.sizes, np.zeros(MAX_ROUND_PLAYERS), cheaper, *nexts]
        sizes = [np.size(t) for t in tables]
        starts = ROUNDS_HEADER + np.cumsum([0, *sizes[:-1]])
        header = [total, -1, MODE_ROUNDS, *starts[:5]]  # RH_BLOCK_OF to RH_CHEAPER, in order
        index = np.concatenate([np.array(header), *(np.ravel(t) for t in tables)]).astype(np.int64)
        index[starts[3] : starts[3] + len(nexts)] = starts[5:]  # RH_NEXT: where each next table starts
        self.dir = int(starts[1])
        super().__init__(rules, index)

    def build(self, block: int) -> None:
        count, charge, _ = self.keys[block]
        values = round_for(self.rules, count, bool(charge), self.pots[block])
        most = self.rules.throws_allowed(bool(charge))
        directory = self.dir + block * DIR_WIDTH
        turns = [(0, most, values.leader)]
        for place, by_limit in enumerate(values.followers, start=1):
            turns += [(place, limit, turn) for limit, turn in by_limit.items()]
        for place, limit, turn in turns:
            rows = self.sizes[place - 1] if place else 1
            segment = np.full((max(limit - 1, 0), rows, len(RESULTS)), STOP, dtype=np.int8)
            for left in range(1, limit):
                assert turn.choice[left].shape[0] == rows
                segment[left - 1] = turn.choice[left]  # the solver's own choices, as the bot plays them
            self.index[directory + 1 + place * (MAX_THROWS + 1) + limit] = self._add(segment.ravel())
        self.index[directory] = 1
        self.built += 1
