"""What solving a ruleset costs a server's worker, told at once, without solving.

A server solves a table's rules in a worker process, for ``bot:optimal``
(``players.optimal.prepare(..., solve_games=False)``) or for hints and game
analyses (``analysis.Adviser`` and ``analyse``). :func:`solve_cost` says
what that worker would solve, from the same choice (:mod:`.strategy`), and
how much work it is:

- two players (« heads_up »): the manche of :class:`.heads_up.HeadsUp`, its
  décharge by value iteration (the sweeps are foretold, below), its charge
  pot level by pot level; nothing where it is in the disk cache (« loaded »);
- a whole game of three to five, or of two where manches carry over: only
  read where solved on this machine before (« loaded »: its model built,
  :func:`game_model`, and its values read); else it is played and analysed
  round by round, as the server does;
- round by round (« rounds »): the rounds of :mod:`.rounds`, for ``optimal``
  the two its ``prepare`` solves, for ``analysis`` every round a game can
  ask for (each round size, each pot that caps the charge).

Work is counted in *units*: one unit is one cell of a two-player round's
payoff table (a pair of results, at one stake), the solvers' commonest
work; the rest (a round's fixed calls, the round solver's cells, its
summaries built in Python) counts as the units it takes as long as, as
measured by ``benchmarks/solve_cost.py``. :func:`measure_rate` times a small
solve on this machine (units a second) and :func:`seconds` turns units into
time. The décharge's sweeps are foretold from a model of it: tokens moving
as a round played for its tokens moves them, whose value iteration, in the
solver's order, takes 4 to 32 % more sweeps than the solver (never fewer, in
56 rulesets measured: tests/test_solver_cost.py checks a few).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np

from ..core.engine import players_refused
from ..core.errors import InvalidPlayers
from ..core.rules import Ruleset
from ..paths import data_dir
from . import game_maxn, heads_up, rounds, solutions
from .amounts import settled_amounts, token_values
from .shipped import located
from .strategy import played, refuse
from .tables import RESULTS, FloatArray

Purpose = Literal["optimal", "analysis"]
# heads_up: the two-player manche solved; rounds: rounds solved one by one; loaded: read from the disk
# or already in memory
Method = Literal["heads_up", "rounds", "loaded"]

PAIR = len(RESULTS) ** 2  # the cells of a payoff table of two results
# Units, measured (benchmarks/solve_cost.py) as the time one payoff cell takes:
ROUND_BASE = 5_000  # a two-player round's fixed calls
AMOUNT = 125  # per amount a two-player round tables what follows and its tie-breaks for
STAKED_PAIR = 45_000  # where stakes accumulate: per pair of throw counts, the turns' stake axis set up
STAKE = 2_900  # where stakes accumulate: per stake, what follows and the replays' stakes, in Python
ROUND_CELL = 1.7  # a cell of the round solver: [context, objective, slot, result] per throw
STAGE_STEP = 130  # one summary of the round solver extended by one result, in Python
PAYOFF_FLAG = 45  # one summary's payoffs for one player's flags, in Python
OUTCOME = 450  # one outcome of a whole game's position, tabled in Python (game_maxn.Manche)
SHAPE_STEP = 20  # one summary of a whole game's round extended by one result (game_maxn.shape_of)

# Bytes (checked against tracemalloc in tests/test_solver_cost.py):
TABLE_BYTES = PAIR * 8  # a float table [leader's result, follower's result]
SLOTS = len(rounds.OBJECTIVES) * (rounds.FLAGS + 1)  # a round's context: every objective of every slot
SUMMARY_BYTES = 6 * len(RESULTS) * 8 + 150  # a stage's arrays per summary, and its tuple and index
HEAP_SLACK = 1.6  # the address space tables of a few MB take, for their bytes (benchmarks/solve_cost.py)

# The décharge's model is solved at most this long; a longer one contracts as (LONGEST / tokens)²
# slower, as a walk between two walls does (a little more slowly than the solver: conservative).
LONGEST = 40
MOST_SWEEPS = 100_000  # of the model: the largest pots settle in fewer
# The model's sweeps are from 20% fewer to 45% more than the solver's (its leaps ahead come a sweep
# sooner or later): with 30% more they were never fewer over 50 rulesets (benchmarks/decharge_sweeps.py).
SWEEPS_MARGIN = 1.3
FREE_POT = 8  # the pot a charge round worth nothing is modelled at (its chance barely moves with it)


@dataclass(frozen=True)
class Cost:
    """The work a worker does for a table, and the memory it takes.

    ``positions``: units of work (see the module) of every solve the purpose
    asks for at once: ``optimal``, the table's creation; ``analysis``, the
    analysis of a whole game (hints at a table: the same rounds, met one by
    one), sweeps included. ``memory_bytes``: the peak bytes of the arrays held
    meanwhile, beyond what the process held before. ``step``: the units of
    the largest solve one move or hint may start during play (round by
    round: a round not met before; 0 where everything is solved up front).
    """

    method: Method
    positions: int
    memory_bytes: int
    step: int


def seconds(cost: Cost, rate: float) -> float:
    """How long ``cost`` takes at ``rate`` units a second."""
    return cost.positions / rate


def solve_cost(rules: Ruleset, players: int, purpose: Purpose) -> Cost:
    """What a server's worker solves for ``players`` at ``rules``: ``optimal`` for bot:optimal seats,
    ``analysis`` for hints and game analyses. Rules the solvers refuse raise what they raise."""
    if purpose == "optimal" and not rules.seats(players):
        raise InvalidPlayers(players_refused(rules, players))
    refuse(rules, players, purpose)
    # which solver: strategy.played, as the worker's strategy_for(..., solve=False) finds it (a whole
    # game not solved here: round by round)
    chosen = played(rules, players, solve=False)
    if chosen == "heads_up":
        return _heads_up(rules)
    if chosen == "heads_up_game":
        return _loaded_heads_up_game(rules)
    if chosen == "game_maxn":
        return _loaded_game(rules, players)
    return _optimal_rounds(rules, players) if purpose == "optimal" else _analysis_rounds(rules, players)


def _optimal_rounds(rules: Ruleset, players: int) -> Cost:
    """The two rounds bot:optimal's ``prepare`` solves, and the largest it may solve in play."""
    solves = [_round_solve(rules, players, charge, first=charge) for charge in (True, False)]
    # in play: the charge again where the pot left caps it, the décharge once players are out
    later = [_round_solve(rules, players, True, first=False)] if _capped(rules, players) else []
    later += [_round_solve(rules, size, False, first=True) for size in range(2, players)]
    return _rounds_cost(solves, max((s.units for s in later), default=0))


def _analysis_rounds(rules: Ruleset, players: int) -> Cost:
    """Every round a game can ask for: the charge at every pot that caps it, the décharge at every size."""
    caps = {rounds.pot_cap(rules, players, True, pot) for pot in range(1, rules.pot + 1)}
    solves = [_round_solve(rules, players, True, first=i == 0) for i in range(len(caps))]
    solves += [_round_solve(rules, size, False, first=size != players) for size in range(players, 1, -1)]
    return _rounds_cost(solves, max(s.units for s in solves))


def _capped(rules: Ruleset, players: int) -> bool:
    """Whether a pot the charge leaves caps what a round gives (:func:`.rounds.pot_cap`): a round more."""
    return any(rounds.pot_cap(rules, players, True, pot) is not None for pot in range(1, rules.pot + 1))


# -- two players: the manche ---------------------------------------------------------------------


def _heads_up(rules: Ruleset) -> Cost:
    where = data_dir(write=False) / "solver"
    total = rules.pot + 2 * rules.initial_tokens
    if located(solutions.cache_path(rules, where)).exists():  # read, not solved
        cells = 2 * (total + 1) + sum(2 * (total - pot + 1) for pot in range(1, rules.pot + 1))
        return Cost("loaded", cells, 8 * cells, 0)
    units, memory = heads_up_units(rules, decharge_sweeps(rules), charge_sweeps(rules))
    return Cost("heads_up", units, memory, 0)


def pairs(rules: Ruleset, charge: bool) -> int:
    """The pairs of throw counts (leader's, follower's left) a two-player round tables its payoffs for."""
    most = rules.throws_allowed(charge)
    return sum(kl if rules.leader_limit else most for kl in range(1, most + 1))


def round_units(rules: Ruleset, charge: bool, pot: int) -> tuple[int, int]:
    """The units and the bytes of one two-player round (:meth:`.HeadsUp.round_value`) at ``pot``."""
    n = pairs(rules, charge)
    if charge and rules.accumulated_stakes:
        stakes = pot + 1  # the stake so far, 0 to the pot (a loser takes no more)
        # the payoff tables of two pairs of throw counts at once, a table per stake (tracemalloc)
        return ROUND_BASE + n * (STAKED_PAIR + PAIR * stakes) + STAKE * stakes, 2 * n * TABLE_BYTES * stakes
    width = int(max(token_values(rules).max(), rules.nenette_penalty)) + 1  # every amount a round settles for
    # the larger of: the payoff tables of two pairs of throw counts at once, or a table per amount
    # and three more (tracemalloc, tests/test_solver_cost.py)
    return ROUND_BASE + n * PAIR + AMOUNT * width, max(2 * n, width + 3) * TABLE_BYTES


def heads_up_units(rules: Ruleset, decharge: int, charge: int) -> tuple[int, int]:
    """Units and peak bytes of solving the two-player manche with ``decharge`` sweeps of the décharge
    and ``charge`` sweeps of each pot level: every round of every sweep."""
    total = rules.pot + 2 * rules.initial_tokens
    held = 8 * 2 * (total + 1)  # the décharge's values, then each pot level's
    units, peak = 0, 0
    if total > 1:
        each, peak = round_units(rules, False, 0)
        units += decharge * 2 * (total - 1) * each
    for pot in range(1, rules.pot + 1):
        each, memory = round_units(rules, True, pot)
        units += charge * 2 * (total - pot + 1) * each
        held += 8 * 2 * (total - pot + 1)
        peak = max(peak, memory)
    if rules.accumulated_stakes:  # tables of a few MB: malloc keeps those freed mapped, reused later
        peak = round(HEAP_SLACK * peak)
    return units, held + peak


@lru_cache(maxsize=1024)  # a server meets rulesets without end: the last ones are kept
def decharge_sweeps(rules: Ruleset) -> int:
    """The sweeps :meth:`.HeadsUp.solve_decharge` takes, foretold (or slightly more).

    The model: tokens move as in a round of the décharge both play for its
    tokens (the winner gives what the round settles for, at most what they
    hold, and leaves with none), the loser leading the next. Its value
    iteration, swept in the solver's order and sped up as the solver's is
    (:class:`.heads_up.Extrapolation`), is run until it settles.
    """
    total = rules.pot + 2 * rules.initial_tokens
    if total < 2:
        return 1  # no position: one sweep finds nothing to change
    solver = heads_up.HeadsUp(rules, sized=False)
    amounts = _amounts(rules)
    width = len(amounts)
    slot = {amount: i for i, amount in enumerate(amounts)}

    def after(who: int, amount: int) -> FloatArray:
        """[the tokens seat 0 (the leader) takes, then P(who loses, amount) for who in 0, 1]; an
        amount no round settles for is asked about too, never reached (the last, spare channel)."""
        found = np.zeros(2 + 2 * width)
        if who < 2:
            found[0] = amount if who == 0 else -amount
            found[(1 + who * width + slot[amount]) if amount in slot else -1] = 1.0
        return found

    value, _, _ = solver.round_value(False, 0, after)
    chances = np.asarray(value)[1:-1].reshape(2, width)
    size = min(total, LONGEST)
    sweeps = _sweeps_to_settle(_gauss_seidel(chances, amounts, size))
    # more tokens than modelled: the sweeps grow as the square of the tokens in play
    return math.ceil(SWEEPS_MARGIN * sweeps * (total / size) ** 2)


def _sweeps_to_settle(step: FloatArray) -> int:
    """The sweeps of the model's linear iteration (``step``: its sweep matrix) until the solver's
    :class:`.heads_up.Extrapolation` settles it, every value starting a half from its fixed point."""
    error = np.full(len(step), 0.5)
    speeding = heads_up.Extrapolation()
    sweeps = 1
    while sweeps < MOST_SWEEPS:
        after = step @ error
        leap = speeding.step(after - error)
        if leap is None:
            break
        error = after + leap
        sweeps += 1
    return sweeps


def _amounts(rules: Ruleset) -> list[int]:
    """Every amount a two-player round can settle for: a result's value, with deduction, the penalty."""
    index = np.arange(len(RESULTS))
    best, worst = np.meshgrid(index, index, indexing="ij")
    found = set(settled_amounts(rules, best, worst).ravel().tolist())
    found |= set(settled_amounts(rules, best, worst, True).ravel().tolist())
    found |= set(token_values(rules).tolist()) | {rules.nenette_penalty}
    return sorted(int(a) for a in found)


def _gauss_seidel(chances: FloatArray, amounts: list[int], total: int) -> FloatArray:
    """The décharge model's sweep matrix: positions (seat 0's tokens 1 to total - 1, the leader), in
    the solver's order, each updated from those before it in the same sweep."""
    n = 2 * (total - 1)
    step = np.zeros((n, n))
    t0 = np.arange(1, total)
    for leader in (0, 1):
        rows = 2 * (t0 - 1) + leader
        for who in (0, 1):
            loser = leader if who == 0 else 1 - leader
            for a, amount in enumerate(amounts):
                p = chances[who, a]
                if p <= 0:
                    continue
                held = t0 if loser == 1 else total - t0  # the winner's tokens
                give = np.minimum(amount, held)
                stays = held > give  # the winner keeps a token: the manche goes on
                after = t0 + give if loser == 0 else t0 - give
                np.add.at(step, (rows[stays], 2 * (after[stays] - 1) + loser), p)
    lower = np.tril(step, -1)
    return np.asarray(np.linalg.solve(np.eye(n) - lower, step - lower), dtype=np.float64)


@lru_cache(maxsize=1024)
def charge_sweeps(rules: Ruleset) -> int:
    """The sweeps each pot level of :meth:`.HeadsUp.solve_charge` takes (or slightly more): one, but
    where a round can be worth nothing each two positions at the same tokens (by who leads) loop on
    each other, and settle as a Gauss-Seidel pair leaping ahead does."""
    solver = heads_up.HeadsUp(rules, sized=False)
    if not solver._free_rounds:
        return 1
    pot = min(rules.pot, FREE_POT)

    def after(who: int, amount: int) -> FloatArray:
        """[tokens the leader takes, P(worth nothing, the leader leads again), P(… the other leads)]."""
        leader_takes = who != 1
        free = amount == 0
        return np.array([amount if leader_takes else 0.0, free and leader_takes, free and not leader_takes])

    value, _, _ = solver.round_value(True, 0, after, pot)
    keeps, passes = (float(v) for v in np.asarray(value)[1:])
    pair = np.array([[keeps, passes], [keeps * passes, passes**2 + keeps]])
    return max(2, _sweeps_to_settle(pair))


# -- rounds by max^n ---------------------------------------------------------------------------------


def summaries(rules: Ruleset, players: int) -> tuple[int, ...]:
    """How many summaries :func:`.rounds.stages` holds after 1 to ``players`` results, counted.

    After the first result everyone holds both the best and the worst; after
    that a summary is a best and a worst result, which can follow each other
    (the worst no stronger), and how many hold each; the others hold a
    result between the two, which needs one strictly between (or as strong,
    but another).
    """
    strength = np.array(rounds.comparison_of(rules).strength)
    best, worst = strength[:, None], strength[None, :]
    pair = (best >= worst) & ~np.eye(len(RESULTS), dtype=bool)  # [best, worst]
    inside = (worst[..., None] <= strength) & (strength <= best[..., None])  # [best, worst, other]
    others = inside.sum(axis=-1) - 2  # the best and the worst lie inside themselves
    pairs_, between = int(pair.sum()), int((pair & (others > 0)).sum())
    return tuple(
        len(RESULTS) + pairs_ * (k - 1) + between * (k - 1) * (k - 2) // 2 for k in range(1, players + 1)
    )


def _limits(rules: Ruleset, charge: bool) -> range | list[int]:
    """The throws a follower may be held to: each the leader may use, or all of them."""
    most = rules.throws_allowed(charge)
    return range(1, most + 1) if rules.leader_limit else [most]


def round_cells(rules: Ruleset, players: int, charge: bool) -> int:
    """The cells :func:`.rounds.solve_round` fills: every objective of every slot, for each result,
    each throw of each follower's turn (its contexts: the summaries it can start from), each limit."""
    contexts = sum(summaries(rules, players)[:-1])
    return contexts * SLOTS * len(RESULTS) * sum(_limits(rules, charge))


def round_bytes(rules: Ruleset, players: int, charge: bool) -> int:
    """The bytes a solved round keeps (functools.cache keeps it): each follower's turn keeps, by
    context, its stopping values, each throw's own values but the first and choices, its start."""
    contexts = sum(summaries(rules, players)[:-1])
    row = len(RESULTS) * 8
    return contexts * sum(SLOTS * row + (2 * limit - 1) * row + SLOTS * 8 for limit in _limits(rules, charge))


@dataclass(frozen=True)
class _RoundSolve:
    units: int
    held: int  # bytes kept once solved
    passing: int  # bytes held only while it is solved


def _round_solve(rules: Ruleset, players: int, charge: bool, first: bool) -> _RoundSolve:
    """One :func:`.rounds.solve_round` of ``players``; ``first``: its summaries are built too
    (:func:`.rounds.stages`, once for each size of round)."""
    counts = summaries(rules, players)
    units = ROUND_CELL * round_cells(rules, players, charge) + PAYOFF_FLAG * rounds.FLAGS * counts[-1]
    held = round_bytes(rules, players, charge)
    most = rules.throws_allowed(charge)
    passing = (2 + most) * SLOTS * len(RESULTS) * 8 * counts[-2]  # a turn's arrays over the most contexts
    if first:
        units += STAGE_STEP * len(RESULTS) * sum(counts[:-1])
        held += SUMMARY_BYTES * sum(counts)
    return _RoundSolve(round(units), held, passing)


def _rounds_cost(solves: list[_RoundSolve], step: int) -> Cost:
    """Solves in one process: every round stays in memory (functools.cache), one solved at a time."""
    held = sum(s.held for s in solves)
    return Cost("rounds", sum(s.units for s in solves), held + max(s.passing for s in solves), step)


# -- read from the disk ----------------------------------------------------------------------------


def _loaded_heads_up_game(rules: Ruleset) -> Cost:
    """The manche played for itself and each context's charge, read (every value a cell read)."""
    if rules in solutions._HEADS_UP_GAMES:
        return Cost("loaded", 0, 0, 0)
    total = rules.pot + 2 * rules.initial_tokens
    level = sum(2 * (total - pot + 1) for pot in range(1, rules.pot + 1))
    most = max(rules.manches, rules.fiches_de_manche)
    cells = 2 * (total + 1) + level + most * most * 2 * level  # charge and shared, every context
    return Cost("loaded", cells, 8 * cells, 0)


def _loaded_game(rules: Ruleset, players: int) -> Cost:
    """A whole game of three to five read from the disk: its model built (:func:`game_model`), its
    values read; nothing if already in memory."""
    if (rules, players) in solutions._GAMES:
        return Cost("loaded", 0, 0, 0)
    units, memory = game_model(rules, players)
    return Cost("loaded", units, memory, 0)  # in play, a round is solved again from its values: 0.1 s


# Summaries of a whole game's round after all results but the last (game_maxn.shape_of; docs/strategy.md)
GAME_SUMMARIES = {2: len(RESULTS), 3: len(RESULTS) ** 2, 4: 18_206, 5: 75_076}


def game_model(rules: Ruleset, players: int) -> tuple[int, int]:
    """Units and peak bytes of :class:`.game_maxn.Manche`: built whenever a whole game of three to five
    is read from the disk, its positions and where each round's outcomes lead tabled in Python,
    about a hundred bytes an outcome, after the round's summaries (``shape_of``: a dozen arrays of
    them by the next result)."""
    n, pot = players, rules.pot
    total = pot + n * rules.initial_tokens
    amounts = len(_amounts(rules))
    both = rules.tied_losers_all_take  # any set of the tied players takes
    # the charge: every split of the tokens taken so far, led by one who took some (or the start)
    charge = 1 + sum(n * math.comb(pot - left - 1 + n - 1, n - 1) for left in range(1, pot))
    # « queue de la vache » (a whole game of three and more): a stake counts up to a pot more, the
    # debt, and the first manche's décharge is played again for each debt, of 1 to a pot, by each seat
    queue = rules.queue_de_la_vache and n > 2
    taken = pot * (2 if queue else 1) if rules.accumulated_stakes else amounts  # an accumulated stake
    outcomes = charge * taken * ((1 << n) - 1 if both else n)
    # the décharge: the players still in, each holding a token (or any, where none leaves), the leader
    least = 1 if rules.withdraw_at_zero else 0
    decharge = 0
    for k in range(2, n + 1):
        splits = math.comb(total - k * least + k - 1, k - 1)
        ways = k * ((1 << (k - 1)) - 1) if both else k * (k - 1)  # a winner, and who takes
        decharge += math.comb(n, k) * splits * k * ways * amounts
    outcomes += decharge * (1 + n * pot if queue else 1)
    counted = game_maxn.counted(rules)  # « qui barre démarre »: each result with its throws
    shape = len(RESULTS) * counted * GAME_SUMMARIES[players] * counted ** (players - 1)
    return OUTCOME * outcomes + SHAPE_STEP * shape, max(100 * outcomes, 12 * 8 * shape)


# -- the rate of this machine ----------------------------------------------------------------------


def measure_rate(repeats: int = 3) -> float:
    """Units a second on this machine: a small reference solved ``repeats`` times (about 0.07 s
    each), the median kept. Two-player rounds, rounds where stakes accumulate, and a round of two
    by max^n with its summaries, so that neither numpy's speed nor Python's alone sets the rate."""
    plain = Ruleset.preset("classic-11").with_options(pot=3)
    staked = Ruleset.preset("vache-41").with_options(pot=1)
    round_rules = Ruleset.preset("kytionnaire")
    rates = []
    for _ in range(repeats):
        began = time.perf_counter()
        units = 0
        for rules in (plain, staked):
            solver = heads_up.HeadsUp(rules).solve()
            units += heads_up_units(rules, solver.iterations, 1)[0]
        rounds.stages.__wrapped__(rounds.comparison_of(round_rules), 2)  # not the cached ones
        rounds.solve_round.__wrapped__(round_rules, 2, False, "tokens")
        units += _round_solve(round_rules, 2, False, first=True).units
        rates.append(units / (time.perf_counter() - began))
    return sorted(rates)[len(rates) // 2]
