"""The bots as the kernel plays them: a kind per seat and the tables they read.

``random`` chooses uniformly among the legal actions, from the game's own
random stream; ``heuristic`` is :class:`py421.players.HeuristicBot` (its keeps
are read from the bot itself, its stopping rule is written in the kernel and
the differential tests hold the two together).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from ...core.combos import Category
from ...core.rules import MAX_THROWS, Ruleset
from ...players.heuristic import GOOD_RANK, HeuristicBot
from ...solver.rounds import MAX_ROUND_PLAYERS
from ...solver.tables import KEEP_INDEX, RESULTS

RANDOM, HEURISTIC, OPTIMAL, OPTIMAL_ROUNDS = 0, 1, 2, 3
KINDS = {"random": RANDOM, "heuristic": HEURISTIC, "optimal": OPTIMAL}
# Not a bot a player can seat: the optimal bot playing round by round where it would play the whole
# game (three to five players), to measure what the game-level solution gains (tests, benchmarks).
ROUNDS_LEVEL = "optimal-rounds"
LINEUP_KINDS = {**KINDS, ROUNDS_LEVEL: OPTIMAL_ROUNDS}

I64 = npt.NDArray[np.int64]


def heuristic_tables(rules: Ruleset) -> tuple[I64, I64, I64]:
    """By result: the heuristic bot's keep, whether it stops as leader, whether it always stops."""
    table = rules.table
    keep = np.array([KEEP_INDEX[HeuristicBot.keep(r.dice)] for r in RESULTS], dtype=np.int64)
    always = np.array(
        [table.categories[r] in (Category.FOUR_TWO_ONE, Category.TRIPLE_ACE) for r in RESULTS], dtype=np.int64
    )
    lead = np.array([table.rank(r) <= GOOD_RANK for r in RESULTS], dtype=np.int64) | always
    return keep, lead, always


# -- the optimal bot: its decisions, position by position ---------------------
#
# ``index`` starts with a header: the tokens of a manche, a position asked for
# and not built (-1: none), and the mode.
#
# MODE_GAME, the solved two-player game: for every position of a manche
# (phase, pot, seat 0's tokens, leader) the place of its block of decisions in
# ``actions``, or -1 while it is not built, then the block's stake width, and
# last the base of the manches lost: where manches carry over (« queue de la
# vache », l'Espagnole losing the game) a charge is played for the game, so
# its positions are told apart by the manches each seat lost (0: not so).
# A block holds the leader's decisions [throws left - 1][result][stake], the
# follower's [leader's throws - 1][throws left - 1][leader's result][result][stake]
# and the « main chaude » choice [amount] (1: « vient »). ``stake`` is the stake
# accumulated so far where every throw adds to it, else 0.
#
# MODE_ROUNDS, round by round (max^n, py421.solver.rounds): a block per
# solved round (players in it, phase, the pot's cap), found through
# ``block_of[players][charge][pot]``. A block's directory gives, for each place
# in the round and throw limit, where its decisions start:
# [throws left - 1][summary of the earlier results][result]. The summary's row
# follows the earlier results through ``next`` tables, one per place.
#
# MODE_MAXN (2), the whole game of three to five players: see maxn.py. Beside it
# the kernel may read a second pair of tables (``rindex``, ``ractions``), in
# MODE_ROUNDS, for seats of the optimal bot playing round by round (OPTIMAL_ROUNDS).

H_TOTAL = 0  # the tokens of a manche
H_MISSING = 1  # a position (MODE_GAME) or a block (MODE_ROUNDS) asked for and not built (-1: none)
H_MODE = 2
HEADER = 3
MODE_GAME, MODE_ROUNDS = 0, 1
AMOUNTS = 100  # stake choices for amounts 0 to 99
RESULTS_N = 56

# MODE_ROUNDS: the header goes on with where each table starts in ``index``
RH_BLOCK_OF = HEADER  # [players 0..MAX_ROUND_PLAYERS][charge][pot] -> block
RH_DIR = HEADER + 1  # [block][DIR_WIDTH]: 1 once built, then [place][limit] -> start in actions
RH_SIZES = HEADER + 2  # [place - 1] the summaries a follower at that place may face
RH_NEXT = HEADER + 3  # [place - 1] where the table [summary][result] -> next summary starts
RH_CHEAPER = HEADER + 4  # [amount] 1 when « vient » is expected to cost less than the amount
ROUNDS_HEADER = HEADER + 5
DIR_WIDTH = 1 + MAX_ROUND_PLAYERS * (MAX_THROWS + 1)


def position_code(total: int, charge: bool | int, pot: int, t0: int, leader: int, lost: int = 0) -> int:
    """A position's number; ``lost``: the manches lost (``l0 * base + l1``) in a charge played for
    the game, else 0."""
    return int((((lost * 2 + int(charge)) * (total + 1) + pot) * (total + 1) + t0) * 2 + leader)


@njit(cache=True, inline="always")
def _positions(index: npt.NDArray[np.int64]) -> int:
    return (index.size - HEADER - 1) // 2


@njit(cache=True, inline="always")
def _code(index: npt.NDArray[np.int64], charge: int, pot: int, t0: int, leader: int, l0: int, l1: int) -> int:
    total = index[H_TOTAL]
    base = index[index.size - 1]
    lost = l0 * base + l1 if base > 0 and charge == 1 else 0
    return int((((lost * 2 + charge) * (total + 1) + pot) * (total + 1) + t0) * 2 + leader)


@njit(cache=True)
def optimal_choice(
    index: npt.NDArray[np.int64],
    actions: npt.NDArray[np.int8],
    position: tuple[int, int, int, int, int, int],
    place: int,
    leader_turn: tuple[int, int],
    result: int,
    throws: int,
    allowed: int,
    stake: int,
) -> int:
    """The optimal bot's decision (kernel.STOP is -1, else a keep index).

    ``position``: charge (1 or 0), pot, seat 0's tokens, leader, the manches
    seat 0 and seat 1 lost; ``leader_turn``: the leader's final result and
    throws, for the other player.
    """
    charge, pot, t0, leader, l0, l1 = position
    lead_result, lead_throws = leader_turn
    code = _code(index, charge, pot, t0, leader, l0, l1)
    positions = _positions(index)
    start = index[HEADER + code]
    if start < 0:
        index[H_MISSING] = code
        return -1
    width = index[HEADER + positions + code]
    s = min(stake, width - 1)
    left = allowed - throws - 1
    if place == 0:
        return int(actions[start + (left * RESULTS_N + result) * width + s])
    base = start + 2 * RESULTS_N * width
    row = ((lead_throws - 1) * 2 + left) * RESULTS_N + lead_result
    return int(actions[base + (row * RESULTS_N + result) * width + s])


@njit(cache=True)
def optimal_stake(
    index: npt.NDArray[np.int64],
    actions: npt.NDArray[np.int8],
    charge: int,
    pot: int,
    t0: int,
    leader: int,
    lost: tuple[int, int],
    amount: int,
) -> bool:
    """Whether the optimal bot plays « pour ce qui vient ».

    ``amount``: what « est » settles for, or where stakes accumulate the stake
    so far (the block's stake width says up to where it matters).
    """
    code = _code(index, charge, pot, t0, leader, lost[0], lost[1])
    positions = _positions(index)
    start = index[HEADER + code]
    if start < 0:
        index[H_MISSING] = code
        return False
    width = index[HEADER + positions + code]
    if width > 1:  # a stake so far: any larger than the widest that matters is worth the same
        amount = min(amount, width - 1)
    base = start + (2 + 6 * RESULTS_N) * RESULTS_N * width
    return bool(actions[base + amount])


@njit(cache=True)
def next_summary(index: npt.NDArray[np.int64], place: int, row: int, result: int) -> int:
    """The summary's row after the result of the player at ``place`` (1 or more)."""
    start = index[index[RH_NEXT] + place - 1]
    return int(index[start + row * RESULTS_N + result])


@njit(cache=True)
def round_choice(
    index: npt.NDArray[np.int64],
    actions: npt.NDArray[np.int8],
    round_key: tuple[int, int, int],
    place: int,
    row: int,
    result: int,
    allowed: int,
    left: int,
) -> int:
    """MODE_ROUNDS: the decision at ``place`` facing summary ``row``, ``left`` throws left (1 or more).

    ``round_key``: the players in the round, charge (1 or 0), the pot.
    """
    players, charge, pot = round_key
    total = index[H_TOTAL]
    block = index[index[RH_BLOCK_OF] + (players * 2 + charge) * (total + 1) + pot]
    directory = index[RH_DIR] + block * DIR_WIDTH
    if index[directory] < 0:
        index[H_MISSING] = block
        return -1
    start = index[directory + 1 + place * (MAX_THROWS + 1) + allowed]
    rows = index[index[RH_SIZES] + place - 1] if place else 1
    return int(actions[start + ((left - 1) * rows + row) * RESULTS_N + result])


@njit(cache=True)
def round_stake(index: npt.NDArray[np.int64], amount: int, taker: bool) -> bool:
    """MODE_ROUNDS: « vient » when it is expected to cost less and the chooser would pay, or more and not."""
    return bool(index[index[RH_CHEAPER] + amount]) == taker


def no_positions() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int8]]:
    """The index and actions of a table with no optimal bot."""
    index = np.array([0, -1, MODE_GAME, 0], dtype=np.int64)
    return index, np.zeros(1, dtype=np.int8)


def maxn_in_kernel(rules: Ruleset, players: int) -> bool:
    """Whether the kernel plays bot:optimal at ``players`` as the engine's bot does: not a whole game
    under « qui barre démarre », whose rounds compare throw counts and whose tie-breaks let
    « main chaude » choose the stake, nor where players behind must throw on, nor where the first
    manche's décharge is played for the debt its charge left (« queue de la vache »): the engine
    plays those games."""
    from ...solver.strategy import played

    queue = rules.queue_de_la_vache and players > 2
    engine_only = rules.tie_break == "qui_barre_demarre" or rules.must_throw_on or queue
    return not engine_only or played(rules, players) != "game_maxn"
