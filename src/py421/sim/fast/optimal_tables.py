"""The optimal bot's decisions as tables, built as games reach them.

For two players the optimal bot plays the solved game
(:class:`py421.solver.heads_up.HeadsUp`): at the start of each round, the
position (phase, pot, seat 0's tokens, leader) gives both players' turn
values; where manches carry over (:mod:`py421.solver.heads_up_game`) a
charge's also depend on the manches each seat lost. :class:`OptimalPositions`
turns the values of a position into decisions (stop, or which dice to keep,
for every result, throws left and stake) the first time a game reaches it.

For three to five players the bot plays the whole game solved by max^n
(:mod:`py421.solver.game_maxn`): :class:`MaxnTables` keeps, for each round
start a game reaches, what the kernel needs to play it (:mod:`.maxn`).

Elsewhere (five players or more, or rules those solvers do not cover) the
bot plays each round by max^n (:mod:`py421.solver.rounds`), and
:class:`OptimalRounds` turns each solved round into decisions for every
place, throw limit and summary of the results before it.

All keep the bot's tie-breaks: stop on equal values, then keep more dice.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ...core.errors import InvalidPosition, InvalidRuleset, Message
from ...core.rules import MAX_THROWS, Ruleset
from ...solver.amounts import token_values
from ...solver.game_maxn import Losses, Position, RoundPlay, shape_of
from ...solver.game_maxn_stakes import staked
from ...solver.game_maxn_turns import CHOICES_COUNT, SPARSE
from ...solver.heads_up import HeadsUp
from ...solver.heads_up_game import GameManche
from ...solver.rounds import (
    FRESH,
    KEEP_CHOICES,
    MAX_ROUND_PLAYERS,
    comparison_of,
    pot_cap,
    round_for,
    stages,
    vient_amount,
)
from ...solver.solutions import manche_solution, solved, solved_game, solved_heads_up_game
from ...solver.strategy import covering, two_player_game, whole_game_maxn
from ...solver.tables import BON, KEEPS, RESULTS
from ...solver.turn import StakedValues, TurnValues, with_bon
from . import kernel
from . import maxn as m
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
    maxn_in_kernel,
    position_code,
)

FloatArray = npt.NDArray[np.float64]
I8 = npt.NDArray[np.int8]


WITH_BON = with_bon(KEEP_CHOICES.tolist())  # each keep as a plain throw, then as « le bon »
assert kernel.BON == BON  # the kernel reads the solver's « le bon » as its own


def decisions(stop: FloatArray, keeps: FloatArray, as_bon: FloatArray | None = None) -> npt.NDArray[np.int8]:
    """The best choice for every result: ``stop[..., result, stake]`` (minus infinity where the
    player may not stop), ``keeps[..., keep, stake]``, and ``as_bon`` the keeps as « le bon ».

    On equal values the bot stops, else keeps more dice, a plain throw before « le bon »
    (``KEEP_CHOICES`` lists them so, and its padding repeats the last, which never comes first).
    """
    choices = KEEP_CHOICES if as_bon is None else WITH_BON
    values = keeps if as_bon is None else np.concatenate([keeps, as_bon], axis=-2)
    keep_values = values[..., choices, :]  # [..., result, choice, stake]
    best = keep_values.argmax(axis=-2)  # the first of equal values: the preferred one
    best_value = np.take_along_axis(keep_values, best[..., None, :], axis=-2)[..., 0, :]
    keep = choices[np.arange(len(RESULTS))[:, None], best]
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
        if not two_player_game(rules, 2):
            raise InvalidRuleset(Message("sim.tables_two", {"rules": rules.name}))
        carries_over = covering(rules, 2) == "heads_up_game"  # manches carry over: the game, manche by manche
        self.solver = solved(rules) if not carries_over else solved_heads_up_game(rules).plain
        total = self.solver.total
        # the charge of each manche is told apart by the manches lost, l0 * base + l1
        self.base = max(rules.manches, rules.fiches_de_manche) if carries_over else 0
        most_owed = 0
        if carries_over and rules.queue_de_la_vache:
            most_owed = solved_heads_up_game(rules).following((0, 0)) * rules.pot
        self.stake_size = max(AMOUNTS, rules.pot + most_owed + 1)  # « main chaude » by amount, or by stake
        self.total = total
        self.positions = position_code(total, 1, total, total, 1, max(self.base**2 - 1, 0)) + 1
        index = np.full(HEADER + 2 * self.positions + 1, -1, dtype=np.int64)
        index[-1] = self.base
        index[H_TOTAL] = total
        index[H_MISSING] = -1
        index[H_MODE] = MODE_GAME
        super().__init__(rules, index)

    def build(self, code: int) -> None:
        rest, leader = divmod(code, 2)
        rest, t0 = divmod(rest, self.total + 1)
        rest, pot = divmod(rest, self.total + 1)
        lost, charge = divmod(rest, 2)
        block, width = self._block(bool(charge), pot, t0, leader, lost)
        self.index[HEADER + code] = self._add(block)
        self.index[HEADER + self.positions + code] = width
        self.built += 1

    def codes(self) -> list[int]:
        """Every position of a manche (of each manche where a charge is played for the game)."""
        found = []
        lost_codes = [0]
        if self.base:
            game = solved_heads_up_game(self.rules)
            lost_codes = [a * self.base + b for a, b in game.contexts()]
        for charge in (False, True):
            for lost in lost_codes if charge else [0]:
                for pot in range(1, self.rules.pot + 1) if charge else (0,):
                    t0_range = range(self.total - pot + 1) if charge else range(1, self.total)
                    for t0 in t0_range:
                        found += [
                            position_code(self.total, charge, pot, t0, leader, lost) for leader in (0, 1)
                        ]
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

    def _block(
        self, charge: bool, pot: int, t0: int, leader: int, lost: int = 0
    ) -> tuple[npt.NDArray[np.int8], int]:
        rules = self.rules
        solver: HeadsUp | GameManche = self.solver
        if self.base:
            solver = manche_solution(rules, divmod(lost, self.base))
        leader_values, follower_values = solver.position(charge, pot, t0, leader)
        most = rules.throws_allowed(charge)
        staked = isinstance(leader_values, StakedValues)
        width = 1
        if isinstance(leader_values, StakedValues):
            # stakes from the largest that matters up (the pot, and what can be owed) are one column
            width = leader_values.cap + 1

        def table(values: TurnValues | StakedValues, remaining: int) -> npt.NDArray[np.int8]:
            stop, keeps = values.stop_values(remaining), values.keep_values(remaining)
            as_bon = values.bon_values(remaining)
            if not staked:
                stop, keeps = stop[..., None], keeps[..., None]
                as_bon = None if as_bon is None else as_bon[..., None]
            return decisions(
                stop[..., :width], keeps[..., :width], None if as_bon is None else as_bon[..., :width]
            )

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
            choices = solver.stakes(charge, pot, t0, leader)
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


class MaxnTables(DecisionTables):
    """The kernel's ``index`` and ``actions`` for the optimal bot of three to five players.

    Round starts are added as games reach them (:mod:`.maxn` says what each
    holds); ``index`` grows by doubling, so that it is copied few times.
    """

    def __init__(self, rules: Ruleset, players: int) -> None:
        if not whole_game_maxn(rules, players) or not maxn_in_kernel(rules, players):
            raise InvalidRuleset(Message("sim.tables_game", {"rules": rules.name}))
        self.game = solved_game(rules, players)
        self.players = players
        model = self.game.model
        self.base = model.total + 1
        self.loss_base = max(rules.manches, rules.fiches_de_manche) + 1
        self.manche_base = 1 if rules.fiches_de_manche else rules.manches + 1
        largest = self.manche_base * self.loss_base**players * 2 * self.base ** (players + 1)
        if largest * (1 << players) * players >= 1 << 62:
            raise InvalidRuleset(Message("sim.tables_tokens", {"rules": rules.name, "n": players}))
        header = np.zeros(m.MH_SIZE, dtype=np.int64)
        header[H_TOTAL], header[H_MISSING], header[H_MODE] = model.total, -1, m.MODE_MAXN
        header[m.MH_PLAYERS], header[m.MH_BASE] = players, self.base
        header[m.MH_LOSS_BASE], header[m.MH_MANCHE_BASE] = self.loss_base, self.manche_base
        parts: list[npt.NDArray[np.int64]] = [header]
        used = m.MH_SIZE

        def add(part: npt.ArrayLike) -> int:
            """Where ``part`` starts in ``index`` (an int64 array is kept as it is, not copied)."""
            nonlocal used
            found = np.ascontiguousarray(part, dtype=np.int64).ravel()
            parts.append(found)
            used += found.size
            return used - found.size

        directory = np.zeros((players + 1) * m.STEPS_WIDTH, dtype=np.int64)  # filled below, in place
        header[m.MH_STEPS] = add(directory)
        for count in range(2, players + 1):
            for i, step in enumerate(shape_of(rules, count).steps):
                directory[count * m.STEPS_WIDTH + i] = add(step)
            if rules.accumulated_stakes:  # the charge's classes: who holds the worst
                assert count <= m.STEPS_WIDTH  # staked rounds are of four players at most
                directory[count * m.STEPS_WIDTH + m.STEPS_WIDTH - 1] = add(
                    shape_of(rules, count, True).steps[-1]
                )
        header[m.MH_VALUES] = add(token_values(rules))
        header[m.MH_FULL] = rules.pot + 1 if rules.accumulated_stakes else 0
        t_start, t_result, t_chance = SPARSE
        assert len(t_start) == len(KEEPS) + 1 == m.KEEPS_N + 1
        header[m.MH_SPARSE] = add(t_start)
        add(t_result)
        add(t_chance.view(np.int64))
        header[m.MH_FRESH] = add(np.ascontiguousarray(FRESH, dtype=np.float64).view(np.int64))
        header[m.MH_CHOICES] = add(KEEP_CHOICES)
        add(CHOICES_COUNT)
        self.capacity = 256
        header[m.MH_KEYS] = add(np.zeros(self.capacity))
        header[m.MH_SLOTS] = add(np.zeros(self.capacity))
        self.used_index = used
        index = np.concatenate(parts)
        self.keys = np.zeros(0, dtype=np.int64)
        self.slots = np.zeros(0, dtype=np.int64)
        super().__init__(rules, index)

    # -- keys -------------------------------------------------------------------------------------

    def key(self, manche: int, losses: Losses, pos: Position) -> int:
        """A round start's key, seats already turned (maxn.position_key)."""
        key = manche if self.manche_base > 1 else 0
        for lost in losses:
            key = key * self.loss_base + lost
        key = (key * 2 + int(pos.charge)) * self.base + pos.pot
        for held in pos.tokens:
            key = key * self.base + held
        bits = sum(1 << s for s, a in enumerate(pos.active) if a)
        return (key * (1 << self.players) + bits) * self.players + pos.leader

    def decode(self, key: int) -> tuple[int, Losses, Position]:
        n = self.players
        key, leader = divmod(key, n)
        key, bits = divmod(key, 1 << n)
        tokens = []
        for _ in range(n):
            key, held = divmod(key, self.base)
            tokens.append(held)
        key, pot = divmod(key, self.base)
        key, charge = divmod(key, 2)
        losses = []
        for _ in range(n):
            key, lost = divmod(key, self.loss_base)
            losses.append(lost)
        active = tuple(bool(bits >> s & 1) for s in range(n))
        position = Position(bool(charge), pot, tuple(reversed(tokens)), active, leader)
        return key, tuple(reversed(losses)), position

    # -- building -----------------------------------------------------------------------------------

    def build(self, code: int) -> None:
        if code == m.NOWHERE:
            raise InvalidPosition(Message("sim.tables_position"))
        manche, losses, pos = self.decode(code)
        key = (manche, losses)
        p = self.game.model.index.get(pos)
        record = m.ABSENT
        if key in self.game.manches and p is not None:
            record = self._record(key, p)
        self._insert(code, record)
        self.built += 1

    def _record(self, key: tuple[int, Losses], p: int) -> int:
        """Write what the kernel needs of the round at position ``p`` of manche ``key``; where it is."""
        game, rules = self.game, self.rules
        pos = game.model.positions[p]
        most = rules.throws_allowed(pos.charge)
        play = game.round_of(key, p)
        payoff = game.model.payoff(p, game.manches[key].values)
        n = len(RESULTS)
        if staked(rules, pos.charge):
            return self._staked_record(play, payoff, most, pos.pot + 1)
        lead = np.full((max(most - 1, 0), n), STOP, dtype=np.int8)
        for left in range(1, most):
            lead[left - 1] = play.leader[left][0]
        second = np.full((m.triangle(most, most - 1) + 1 if most > 1 else 0, n, n), STOP, dtype=np.int8)
        for limit in play.followers:
            for left in range(1, limit):
                second[m.triangle(limit, left)] = play.follower_choices(limit, 1, left)
        start = self._add(np.concatenate([lead.ravel(), second.ravel()]))
        third, summaries = 0, 0
        count = len(pos.order())
        if count > m.STORED + 1:  # a round of five: the third player's choices too (maxn.STORED)
            summaries = int(shape_of(rules, count).steps[0].max()) + 1
            kept = np.full((len(second), summaries, n), STOP, dtype=np.int8)
            for limit, places in play.followers.items():
                for left in range(1, limit):
                    kept[m.triangle(limit, left)] = places[1][left]
            third = self._add(kept.ravel())
        floats = self._alloc(payoff.size)
        self.index[floats : floats + payoff.size] = (
            np.ascontiguousarray(payoff, dtype=np.float64).ravel().view(np.int64)
        )
        record = self._alloc(m.RECORD)
        self.index[record : record + m.RECORD] = (floats, payoff.shape[0], start, most, third, summaries, 0)
        return record

    def _staked_record(self, play: RoundPlay, payoff: FloatArray, most: int, width: int) -> int:
        """:meth:`_record` where every throw adds to the stake: the leader's and the second player's
        choices by stake too (``width``: stakes up to the pot left), the last one's worked out."""
        n = len(RESULTS)
        lead = np.full((max(most - 1, 0), n, width), STOP, dtype=np.int8)
        for left in range(1, most):
            lead[left - 1] = play.leader[left][0]
        second = np.full(
            (m.triangle(most, most - 1) + 1 if most > 1 else 0, n, n, width), STOP, dtype=np.int8
        )
        for limit in play.followers:
            for left in range(1, limit):
                second[m.triangle(limit, left)] = play.follower_choices(limit, 1, left)
        start = self._add(np.concatenate([lead.ravel(), second.ravel()]))
        floats = self._alloc(payoff.size)
        self.index[floats : floats + payoff.size] = (
            np.ascontiguousarray(payoff, dtype=np.float64).ravel().view(np.int64)
        )
        record = self._alloc(m.RECORD)
        self.index[record : record + m.RECORD] = (floats, payoff.shape[0], start, most, 0, 0, width)
        return record

    def _alloc(self, size: int) -> int:
        """``size`` places at the end of ``index`` (grown by doubling when full)."""
        start = self.used_index
        if start + size > self.index.size:
            grown = np.zeros(max(start + size, 2 * self.index.size), dtype=np.int64)
            grown[:start] = self.index[:start]
            self.index = grown
        self.used_index = start + size
        return start

    def _insert(self, key: int, record: int) -> None:
        at = int(np.searchsorted(self.keys, key))
        self.keys = np.insert(self.keys, at, key)
        self.slots = np.insert(self.slots, at, record)
        if self.keys.size > self.capacity:  # new room for the keys and their records, twice as large
            self.capacity *= 2
            self.index[m.MH_KEYS] = self._alloc(self.capacity)
            self.index[m.MH_SLOTS] = self._alloc(self.capacity)
        keys, slots = int(self.index[m.MH_KEYS]), int(self.index[m.MH_SLOTS])
        self.index[keys : keys + self.keys.size] = self.keys
        self.index[slots : slots + self.slots.size] = self.slots
        self.index[m.MH_COUNT] = self.keys.size
