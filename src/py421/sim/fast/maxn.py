"""The optimal bot of three to five players in the kernel: the whole game solved by max^n.

:mod:`py421.solver.game_maxn` solves every round of the game against the
values of the positions it leads to. Here the kernel plays those solved
rounds. For each round start a game reaches (found by its key among sorted
keys, built on first use by :class:`.optimal.MaxnTables`) the tables hold:

- the leader's choices, [throws left - 1][result];
- the second player's, [limit, throws left][leader's result][result];
- what each class of the round (:class:`py421.solver.game_maxn.Shape`) is
  worth to each seat of the solved manche (``payoff``).

- in a round of five, the third player's choices too, [limit, throws
  left][summary after two results][result] (half a megabyte).

Where every throw of a charge round adds to the stake (accumulated stakes,
rounds of three at most: :mod:`py421.solver.game_maxn_stakes`) every choice
also depends on the stake so far, from 0 to the pot left: the leader's and
the second player's choices gain a last axis, the payoff's classes are
[class][stake] (a stake of the pot left or more as the full pot's), and the
last player's turn is worked out over (result, stake).

The last two players' choices would take megabytes a round; the kernel
works them out from ``payoff`` instead, with the same loops, in the same
order, as :mod:`py421.solver.game_maxn_turns` (so the same floats and the
same ties): the last player best-responds to the summary of the results
before them; the one before (the third of four, the fourth of five) to the
last player's solved turn.

The solved manche has its first leader as seat 0 (seats are turned). In a
game's first manche every seat looks alike: as
:meth:`py421.solver.game_maxn.GameMaxn.locate` does, the seats are turned
from the round's leader onwards until the position is one the solve
reached; a key that is not is kept with the mark :data:`ABSENT`.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from ...solver.rounds import EPS
from .policy import H_MISSING

I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
F64 = npt.NDArray[np.float64]

MODE_MAXN = 2
RESULTS_N = 56
ABSENT = -2  # a key of a position the solved game does not hold (seats turned another way)
NOWHERE = 1 << 62  # asked for when no way of turning the seats gives a position the solve reached

# Where things are in ``index`` (after policy.HEADER's three places)
MH_PLAYERS = 3
MH_BASE = 4  # tokens and pot: 0 to the manche's tokens
MH_LOSS_BASE = 5  # manches lost by a seat
MH_MANCHE_BASE = 6  # the manche's number, 0 where fiches de manche end the game
MH_KEYS = 7  # where the sorted keys start
MH_SLOTS = 8  # where their records start (same order), or ABSENT
MH_COUNT = 9  # keys so far
MH_STEPS = 10  # where the directory of summary steps starts: [players in the round][step]
MH_SPARSE = 11  # where the keeps' transitions start: starts (29), results, chances (float bits)
MH_FRESH = 12  # where a fresh throw's chances start (float bits, 56)
MH_CHOICES = 13  # where the keeps allowed by result start: [result][7], then their count [result]
MH_VALUES = 14  # where each result's value in tokens starts (56): what a throw adds to a stake
MH_FULL = 15  # the stakes a class is told apart by (the full pot's, and fewer), 0 where none adds
MH_SIZE = 16
STEPS_WIDTH = 4  # steps per count of players in the directory; where stakes accumulate, the last
# place of a round of four or fewer holds the staked shape's last step (:func:`_staked_choice`)
KEEPS_N = 28
CHOICES_WIDTH = 7
# A record: where its payoff starts (float bits, [class][seat]), its classes, where its choices
# start in ``actions``, the throws allowed in the phase; in a round of five, where the third
# player's choices start in ``actions`` and the summaries after two results (else 0); where every
# throw adds to the stake, the stakes the choices are told apart by (the pot left and fewer; else 0)
R_PAYOFF, R_CLASSES, R_ACTIONS, R_MOST, R_THIRD, R_SUMMARIES, R_STAKES = 0, 1, 2, 3, 4, 5, 6
RECORD = 7
STORED = 3  # the places whose choices a record holds in a round of five: the leader's to the third's


def triangle(limit: int, left: int) -> int:
    """The place of the second player's choices with ``limit`` throws, ``left`` still allowed."""
    return (limit - 2) * (limit - 1) // 2 + left - 1


@njit(cache=True, inline="always")
def _triangle(limit: int, left: int) -> int:
    return (limit - 2) * (limit - 1) // 2 + left - 1


@njit(cache=True)
def position_key(
    index: I64,
    manche: int,
    frame: int,
    charge: int,
    pot: int,
    tokens: I64,
    active: I64,
    losses: I64,
    leader: int,
) -> int:
    """The key of a round start, seats turned so that ``frame`` is seat 0 (optimal.MaxnTables.key)."""
    n = index[MH_PLAYERS]
    base = index[MH_BASE]
    loss_base = index[MH_LOSS_BASE]
    key = manche if index[MH_MANCHE_BASE] > 1 else 0
    for s in range(n):
        key = key * loss_base + losses[(s + frame) % n]
    key = (key * 2 + charge) * base + pot
    for s in range(n):
        key = key * base + tokens[(s + frame) % n]
    bits = 0
    for s in range(n):
        if active[(s + frame) % n]:
            bits |= 1 << s
    return int((key * (1 << n) + bits) * n + (leader - frame) % n)


@njit(cache=True, inline="always")
def _step(index: I64, count: int, i: int, row: int, result: int) -> int:
    """The summary after one more result (or, after the last, the round's class)."""
    start = index[index[MH_STEPS] + count * STEPS_WIDTH + i]
    return int(index[start + row * RESULTS_N + result])


@njit(cache=True, inline="always")
def _transitions(index: I64) -> tuple[I64, int, int]:
    """Where a throw from each keep leads: the keeps' starts (``KEEPS_N + 1``), then where the
    results and their chances (float bits) start in ``index``."""
    sparse = index[MH_SPARSE]
    t_start = index[sparse : sparse + KEEPS_N + 1]
    t_result = sparse + KEEPS_N + 1
    return t_start, t_result, t_result + t_start[KEEPS_N]


@njit(cache=True)
def _backward_staked(index: I64, stops: npt.NDArray[np.float64], upto: int, choices: I64) -> None:
    """A mover's choices with 1 to ``upto`` throws left, ``stops[result, stake]`` what stopping is
    worth, where every throw adds its value to the stake (stakes up to the pot left, the last):
    ``choices[r, result, stake]``. As game_maxn_turns._loops and game_maxn_stakes: stop on a tie
    within EPS, else the first keep of the best value in the order allowed (more dice first)."""
    fl = index.view(np.float64)
    t_start, t_result, t_chance = _transitions(index)
    kc = index[MH_CHOICES]
    counts = kc + RESULTS_N * CHOICES_WIDTH
    values = index[MH_VALUES]
    width = stops.shape[1]
    own = stops.copy()
    nxt = np.empty((RESULTS_N, width))
    cont = np.empty(KEEPS_N)
    for r in range(1, upto + 1):
        for s in range(width):
            for k in range(KEEPS_N):
                value = 0.0
                for j in range(t_start[k], t_start[k + 1]):
                    res = index[t_result + j]
                    value += fl[t_chance + j] * own[res, min(width - 1, s + index[values + res])]
                cont[k] = value
            for res in range(RESULTS_N):
                row = kc + res * CHOICES_WIDTH
                best = cont[index[row]]
                for j in range(1, index[counts + res]):
                    best = max(best, cont[index[row + j]])
                choices[r, res, s] = -1
                if stops[res, s] >= best - EPS:
                    nxt[res, s] = stops[res, s]
                else:
                    nxt[res, s] = best
                    for j in range(index[counts + res]):
                        if cont[index[row + j]] >= best - EPS:
                            choices[r, res, s] = index[row + j]
                            break
        for res in range(RESULTS_N):
            for s in range(width):
                own[res, s] = nxt[res, s]


@njit(cache=True)
def _backward(index: I64, stops: npt.NDArray[np.float64], upto: int, choices: I64) -> None:
    """A mover's choices with 1 to ``upto`` throws left, ``stops[result]`` what stopping is worth:
    :func:`_backward_staked` with one stake, the same sums in the same order."""
    _backward_staked(index, stops.reshape((RESULTS_N, 1)), upto, choices.reshape((upto + 1, RESULTS_N, 1)))


@njit(cache=True)
def _last_value(
    index: I64, count: int, row: int, limit: int, mover: int, col: int, payoff: int, seats: int
) -> float:
    """What the last player's solved turn of ``limit`` throws is worth to seat ``col``, after summary ``row``.

    ``mover``: the last player's seat; ``payoff``: where [class][seat] starts (float bits).
    """
    fl = index.view(np.float64)
    stops = np.empty(RESULTS_N)
    for res in range(RESULTS_N):
        stops[res] = fl[payoff + _step(index, count, count - 2, row, res) * seats + mover]
    choices = np.full((limit, RESULTS_N), -1, dtype=np.int64)
    _backward(index, stops, limit - 1, choices)
    t_start, t_result, t_chance = _transitions(index)
    fresh = index[MH_FRESH]
    holding = np.empty(RESULTS_N)
    final = np.zeros(RESULTS_N)
    mass = np.empty(KEEPS_N)
    for res in range(RESULTS_N):
        holding[res] = fl[fresh + res]
    for used in range(1, limit + 1):
        r = limit - used
        if r == 0:
            for res in range(RESULTS_N):
                final[res] += holding[res]
            break
        for k in range(KEEPS_N):
            mass[k] = 0.0
        for res in range(RESULTS_N):
            choice = choices[r, res]
            if choice < 0:
                final[res] += holding[res]
            else:
                mass[choice] += holding[res]
        for res in range(RESULTS_N):
            holding[res] = 0.0
        for k in range(KEEPS_N):
            if mass[k] != 0.0:
                for j in range(t_start[k], t_start[k + 1]):
                    holding[index[t_result + j]] += mass[k] * fl[t_chance + j]
    value = 0.0
    for res in range(RESULTS_N):
        p = final[res]
        if p != 0.0:
            value += p * fl[payoff + _step(index, count, count - 2, row, res) * seats + col]
    return value


@njit(cache=True)
def maxn_choice(
    index: I64,
    actions: I8,
    where: tuple[int, int, int, int, int],
    tokens: I64,
    active: I64,
    losses: I64,
    order: I64,
    finals: I64,
    turn: tuple[int, int, int, int, int],
) -> int:
    """The solved decision (-1: stop, else a keep) of the player at ``place`` in the round.

    ``where``: the manche's number, its first leader, the phase (1: charge), the
    pot and the players in the round; ``order`` the round's seats, leader
    first; ``finals`` their results so far; ``turn``: the place in the round,
    the result held, the throws allowed, the throws left and the round's stake so far.
    """
    manche, first, charge, pot, count = where
    place, result, allowed, left, _ = turn
    n = index[MH_PLAYERS]
    keys = index[MH_KEYS]
    size = index[MH_COUNT]
    leader = order[0]
    frames = 1 if manche > 1 else n
    record = -1
    frame = -1
    for f in range(frames):
        frame = first if manche > 1 else (leader + f) % n
        key = position_key(index, manche, frame, charge, pot, tokens, active, losses, leader)
        at = np.searchsorted(index[keys : keys + size], key)
        if at == size or index[keys + at] != key:
            index[H_MISSING] = key
            return -1
        record = index[index[MH_SLOTS] + at]
        if record != ABSENT:
            break
    if record == ABSENT:  # the builder says so, with a project error
        index[H_MISSING] = NOWHERE
        return -1
    if index[record + R_STAKES]:
        return _staked_choice(index, actions, record, count, order, finals, frame, turn)
    most = index[record + R_MOST]
    start = index[record + R_ACTIONS]
    if place == 0:
        return int(actions[start + (left - 1) * RESULTS_N + result])
    if place == 1:
        block = start + (most - 1) * RESULTS_N + _triangle(allowed, left) * RESULTS_N * RESULTS_N
        return int(actions[block + finals[0] * RESULTS_N + result])
    row = finals[0]
    for i in range(1, place):
        row = _step(index, count, i - 1, row, finals[i])
    if place < count - 2:  # the third of five: its choices are kept
        summaries = index[record + R_SUMMARIES]
        block = index[record + R_THIRD] + _triangle(allowed, left) * summaries * RESULTS_N
        return int(actions[block + row * RESULTS_N + result])
    col = (order[place] - frame) % n
    payoff = index[record + R_PAYOFF]
    fl = index.view(np.float64)
    stops = np.empty(RESULTS_N)
    if place == count - 1:
        for res in range(RESULTS_N):
            stops[res] = fl[payoff + _step(index, count, count - 2, row, res) * n + col]
    else:  # the last but one (the third of four, the fourth of five): the last player's turn follows
        last = (order[count - 1] - frame) % n
        for res in range(RESULTS_N):
            after = _step(index, count, count - 3, row, res)
            stops[res] = _last_value(index, count, after, allowed, last, col, payoff, n)
    choices = np.full((left + 1, RESULTS_N), -1, dtype=np.int64)
    _backward(index, stops, left, choices)
    return int(choices[left, result])


@njit(cache=True)
def _staked_stops(index: I64, count: int, row: int, payoff: int, seats: int, seat: int, out: F64) -> None:
    """``out[result, stake]``: what the round ends are worth to ``seat`` once the last player stops
    on ``result`` after summary ``row``, the stake as it stands (stakes up to the pot left)."""
    fl = index.view(np.float64)
    full = index[MH_FULL]
    width = out.shape[1]
    for res in range(RESULTS_N):
        cls = _step(index, count, STEPS_WIDTH - 1, row, res)  # the staked shape's classes
        for t in range(width):
            column = t if t < width - 1 else full - 1  # the pot left or more: as the full pot
            out[res, t] = fl[payoff + (cls * full + column) * seats + seat]


@njit(cache=True)
def _last_staked(
    index: I64, count: int, row: int, limit: int, mover: int, col: int, payoff: int, seats: int, out: F64
) -> None:
    """:func:`_last_value` where every throw adds to the stake: ``out[stake]``, what the last
    player's solved turn is worth to seat ``col`` after summary ``row``, from each stake before it.

    The last player's choices are :func:`_backward_staked`'s; ``col``'s values follow them back
    over the throws left, then a fresh throw from each stake."""
    fl = index.view(np.float64)
    width = out.size
    mine = np.empty((RESULTS_N, width))
    theirs = np.empty((RESULTS_N, width))
    _staked_stops(index, count, row, payoff, seats, mover, mine)
    _staked_stops(index, count, row, payoff, seats, col, theirs)
    choices = np.full((limit, RESULTS_N, width), -1, dtype=np.int64)
    _backward_staked(index, mine, limit - 1, choices)
    t_start, t_result, t_chance = _transitions(index)
    values = index[MH_VALUES]
    fresh = index[MH_FRESH]
    held = theirs.copy()
    nxt = np.empty((RESULTS_N, width))
    for r in range(1, limit):
        for res in range(RESULTS_N):
            for s in range(width):
                k = choices[r, res, s]
                if k < 0:
                    nxt[res, s] = theirs[res, s]
                    continue
                value = 0.0
                for j in range(t_start[k], t_start[k + 1]):
                    landed = index[t_result + j]
                    value += fl[t_chance + j] * held[landed, min(width - 1, s + index[values + landed])]
                nxt[res, s] = value
        held[:, :] = nxt
    for t in range(width):
        value = 0.0
        for res in range(RESULTS_N):
            value += fl[fresh + res] * held[res, min(width - 1, t + index[values + res])]
        out[t] = value


@njit(cache=True)
def _staked_choice(
    index: I64,
    actions: I8,
    record: int,
    count: int,
    order: I64,
    finals: I64,
    frame: int,
    turn: tuple[int, int, int, int, int],
) -> int:
    """:func:`maxn_choice` in a charge round where every throw adds to the stake (four players at most):
    the leader's and the second player's choices kept, the others' worked out as :func:`maxn_choice`
    does."""
    place, result, allowed, left, stake = turn
    most = index[record + R_MOST]
    start = index[record + R_ACTIONS]
    width = index[record + R_STAKES]
    s = min(stake, width - 1)  # a stake of the pot left or more takes it all
    if place == 0:
        return int(actions[start + ((left - 1) * RESULTS_N + result) * width + s])
    if place == 1:
        block = start + ((most - 1) * RESULTS_N + _triangle(allowed, left) * RESULTS_N * RESULTS_N) * width
        return int(actions[block + (finals[0] * RESULTS_N + result) * width + s])
    row = finals[0]
    for i in range(1, place):
        row = _step(index, count, i - 1, row, finals[i])
    n = index[MH_PLAYERS]
    col = (order[place] - frame) % n
    payoff = index[record + R_PAYOFF]
    stops = np.empty((RESULTS_N, width))
    if place == count - 1:
        _staked_stops(index, count, row, payoff, n, col, stops)
    else:  # the third of four: the last player's turn follows, from the stake this one leaves
        last = (order[count - 1] - frame) % n
        for res in range(RESULTS_N):
            _last_staked(
                index,
                count,
                _step(index, count, count - 3, row, res),
                allowed,
                last,
                col,
                payoff,
                n,
                stops[res],
            )
    choices = np.full((left + 1, RESULTS_N, width), -1, dtype=np.int64)
    _backward_staked(index, stops, left, choices)
    return int(choices[left, result, s])
