"""The cost of solving a ruleset, told without solving: counted as the solvers count, never timed here."""

import itertools
import math
import tracemalloc

import numpy as np
import pytest

from py421.analysis import method_for
from py421.core.errors import Py421Error
from py421.core.rules import Ruleset
from py421.players.optimal import prepare
from py421.solver import cost, heads_up, rounds, solutions
from py421.solver.heads_up import HeadsUp
from py421.solver.heads_up_game import carries_over
from py421.solver.strategy import covering

# what solving costs, for rules not solved yet: the presets' solutions that come with py421 set apart
pytestmark = pytest.mark.usefixtures("unshipped")

PRESETS = ["classic-11", "lyonnaise-21", "vache-41", "kytionnaire", "tim", "comptoir-21", "engranjeu-21"]


def rules_of(preset: str, **options: object) -> Ruleset:
    return Ruleset.preset(preset).with_options(**options)


# -- two players ------------------------------------------------------------------------------------


def counted_solve(rules: Ruleset) -> tuple[HeadsUp, list[tuple[bool, int]], list[int]]:
    """A two-player solve, with every round it solved (charge, pot) and each pot level's sweeps."""
    solver = HeadsUp(rules)
    calls: list[tuple[bool, int]] = []
    solve_round = solver.round_value

    def counting(charge, leader, next_value, pot=None):
        calls.append((charge, pot or 0))
        return solve_round(charge, leader, next_value, pot)

    solver.round_value = counting  # type: ignore[method-assign]
    levels: list[int] = []
    before = [0]

    def progress(stage: str, step: int) -> None:
        if stage == "charge":
            done = sum(charge for charge, _ in calls)
            levels.append((done - before[0]) // (2 * (solver.total - step + 1)))
            before[0] = done

    solver.solve(progress)
    return solver, calls, levels


@pytest.mark.parametrize(
    "rules",
    [
        rules_of("classic-11", pot=5),
        rules_of("vache-41", pot=4),  # stakes accumulate in the charge
        rules_of("tim", pot=4, initial_tokens=1),
        rules_of("classic-11", pot=4, decharge_throws=2, leader_limit=False, value_421=30),
    ],
    ids=["classic", "accumulated", "tim", "options"],
)
def test_units_are_the_rounds_the_solver_solves(rules):
    """Given the sweeps it took, the units are every round solved, each counted as round_units says."""
    solver, calls, levels = counted_solve(rules)
    assert set(levels) == {1} == {cost.charge_sweeps(rules)}  # no round is worth nothing here
    solved = sum(cost.round_units(rules, charge, pot)[0] for charge, pot in calls)
    assert cost.heads_up_units(rules, solver.iterations, 1)[0] == solved


@pytest.mark.parametrize(
    "rules",
    [
        rules_of("classic-11", pot=7),
        rules_of("kytionnaire", pot=6),
        rules_of("comptoir-21", pot=8),
        rules_of("classic-11", pot=6, decharge_throws=1, le_bon=False),
        rules_of("classic-11", pot=6, value_421=30, value_111=20),
        rules_of("classic-11", pot=4, initial_tokens=2),
        rules_of("engranjeu-21", pot=6),  # value deduction: décharge rounds worth nothing too
    ],
    ids=["classic", "kytionnaire", "comptoir", "one-throw", "large-values", "initial-tokens", "deduction"],
)
def test_decharge_sweeps_are_foretold(rules):
    """The model of the décharge foretells the solver's sweeps, never fewer, at most twice as many (its
    leaps ahead come a sweep sooner or later than the solver's)."""
    solver = HeadsUp(rules).solve_decharge()
    assert solver.iterations <= cost.decharge_sweeps(rules) <= 2 * solver.iterations


def test_charge_sweeps_where_a_round_is_worth_nothing():
    """With value deduction a charge round can be worth nothing: each pot level loops on itself."""
    rules = rules_of("engranjeu-21", pot=3)
    _, _, levels = counted_solve(rules)
    assert max(levels) > 1
    assert max(levels) <= cost.charge_sweeps(rules) <= 1.1 * max(levels)
    assert cost.charge_sweeps(Ruleset.preset("classic-11")) == 1


def test_a_round_takes_the_memory_counted():
    """The bytes of a two-player round, as tracemalloc sees them: within a quarter (stakes: a third)."""
    for rules, charge in [
        (Ruleset.preset("classic-11"), False),
        (rules_of("classic-11", value_421=99), False),
        (rules_of("vache-41", pot=60), True),
    ]:
        solver = HeadsUp(rules)
        solver.decharge = np.full((solver.total + 1, 2), 0.5)
        solver.charge = {pot: np.full((solver.total - pot + 1, 2), 0.5) for pot in range(1, rules.pot + 1)}
        after = solver._charge_next(rules.pot, 0, 0) if charge else solver._decharge_next(3, 0)
        solver.round_value(charge, 0, after, rules.pot)  # its tables made once
        tracemalloc.start()
        try:
            solver.round_value(charge, 0, after, rules.pot)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        counted = cost.round_units(rules, charge, rules.pot)[1]
        assert 0.75 * peak <= counted <= 1.34 * peak, (rules.pot, charge, counted, peak)


def test_cost_grows_with_the_pot():
    for preset in ("classic-11", "vache-41", "engranjeu-21"):
        pots = (11, 21, 41, 100, 200)
        costs = [cost.solve_cost(rules_of(preset, pot=pot), 2, "optimal") for pot in pots]
        assert {c.method for c in costs} == {"heads_up"}
        # hours of décharge: played round by round, as a third player's game would be
        assert cost.solve_cost(rules_of(preset, pot=999), 2, "optimal").method == "rounds"
        assert all(a.positions < b.positions for a, b in itertools.pairwise(costs))
        assert all(a.memory_bytes <= b.memory_bytes for a, b in itertools.pairwise(costs))
        assert all(c.step == 0 for c in costs)  # everything solved up front
    # the décharge's sweeps grow as the square of the tokens in play, each sweep with them
    assert cost.decharge_sweeps(rules_of("classic-11", pot=999)) > 100 * cost.decharge_sweeps(
        rules_of("classic-11", pot=41)
    )


def test_a_solution_on_the_disk_costs_only_its_reading():
    rules = rules_of("classic-11", pot=4)
    fresh = cost.solve_cost(rules, 2, "optimal")
    assert fresh.method == "heads_up"
    solutions.solve_cached(rules)  # into this test's data folder
    for purpose in ("optimal", "analysis"):
        kept = cost.solve_cost(rules, 2, purpose)
        assert kept.method == "loaded"
        assert kept.positions < fresh.positions / 1000
    assert cost.solve_cost(rules_of("classic-11", pot=5), 2, "optimal").method == "heads_up"


# -- rounds by max^n ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rules",
    [
        Ruleset.preset("classic-11"),
        Ruleset.preset("vache-41"),
        Ruleset.preset("kytionnaire"),
        Ruleset.preset("tim"),
        Ruleset.preset("comptoir-21"),  # ace high, pairs: results as strong as others
        Ruleset.preset("engranjeu-21"),  # the later nénette winning
    ],
    ids=["classic", "vache", "kytionnaire", "tim", "comptoir", "engranjeu"],
)
def test_summaries_are_counted(rules):
    """The summaries the round solver enumerates, counted without enumerating them."""
    comparison = rounds.comparison_of(rules)
    found = tuple(len(stage.summaries) for stage in rounds.stages(comparison, 3))
    assert cost.summaries(rules, 3) == found
    assert cost.summaries(rules, 2) == found[:2]


@pytest.mark.slow  # about three seconds: the summaries of four enumerated
def test_summaries_of_four_are_counted():
    rules = Ruleset.preset("comptoir-21")
    found = tuple(len(stage.summaries) for stage in rounds.stages(rounds.comparison_of(rules), 4))
    assert cost.summaries(rules, 4) == found == (56, 1596, 4621, 9131)


def kept_arrays(values: rounds.RoundValues) -> list[np.ndarray]:
    """The arrays of a solved round's followers, each counted once: views count as what they view."""
    found: dict[int, np.ndarray] = {}
    for turns in values.followers:
        for turn in turns.values():
            for array in [*turn.own, *turn.stop, *turn.choice, turn.start]:
                while isinstance(array.base, np.ndarray):
                    array = array.base
                found[id(array)] = array
    return list(found.values())


@pytest.mark.parametrize(
    ("preset", "options", "players", "charge"),
    [
        ("classic-11", {}, 3, False),
        ("classic-11", {}, 3, True),
        ("vache-41", {}, 3, True),  # three throws in the charge
        ("classic-11", {"leader_limit": False}, 3, False),
        ("kytionnaire", {"decharge_throws": 2}, 2, False),
    ],
)
def test_round_cells_and_bytes_are_the_solved_rounds(preset, options, players, charge):
    rules = rules_of(preset, **options)
    values = rounds.solve_round(rules, players, charge, "loser")
    cells = sum(
        turn.start.shape[0] * cost.SLOTS * len(turn.own[0][0]) * len(turn.own)
        for turns in values.followers
        for turn in turns.values()
    )
    assert cost.round_cells(rules, players, charge) == cells
    assert cost.round_bytes(rules, players, charge) == sum(a.nbytes for a in kept_arrays(values))


def traced_rounds(rules: Ruleset, players: int) -> int:
    """The peak bytes of the bot's rounds (summaries built, charge then décharge), as tracemalloc sees it."""
    comparison = rounds.comparison_of(rules)
    rounds.stages(comparison, players)  # cached, for the solves below; traced: the copy made here
    tracemalloc.start()
    try:
        kept: list[object] = [rounds.stages.__wrapped__(comparison, players)]
        kept += [rounds.solve_round.__wrapped__(rules, players, charge, "loser") for charge in (True, False)]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_rounds_take_the_memory_counted():
    """Two players where manches carry over, nothing solved before: the bot plays round by round."""
    rules = rules_of("vache-41", queue_de_la_vache=True)
    counted = cost.solve_cost(rules, 2, "optimal")
    assert counted.method == "rounds"
    peak = traced_rounds(rules, 2)
    assert 0.75 * peak <= counted.memory_bytes <= 1.25 * peak, (counted.memory_bytes, peak)


@pytest.mark.slow  # about six seconds: the summaries of three built under tracemalloc
def test_rounds_of_three_take_the_memory_counted():
    rules = Ruleset.preset("vache-41")  # no whole game: stakes accumulate
    counted = cost.solve_cost(rules, 3, "optimal")
    assert counted.method == "rounds"
    peak = traced_rounds(rules, 3)
    assert 0.75 * peak <= counted.memory_bytes <= 1.25 * peak, (counted.memory_bytes, peak)


def test_cost_grows_with_the_players():
    rules = rules_of("engranjeu-21")  # round by round from four players (at three: once solved)
    for purpose in ("optimal", "analysis"):
        costs = [cost.solve_cost(rules, n, purpose) for n in range(4, 9)]
        assert {c.method for c in costs} == {"rounds"}
        assert all(a.positions < b.positions for a, b in itertools.pairwise(costs))
        assert all(a.memory_bytes < b.memory_bytes for a, b in itertools.pairwise(costs))
        assert all(0 < c.step < c.positions for c in costs)
    # a game analysed may ask for every round: more than the bot solves before play
    assert cost.solve_cost(rules, 5, "analysis").positions > cost.solve_cost(rules, 5, "optimal").positions


# -- which solver, and refusals: as the bot and the analysis decide --------------------------------


def refusal(call) -> tuple[type, str, str | None] | None:
    try:
        call()
    except Py421Error as e:
        return type(e), str(e), e.message.key if e.message else None
    return None


REFUSED = [
    ("classic-11", {}, 9),
    ("classic-11", {}, 20),
    ("engranjeu-21", {}, 9),
    ("tim", {}, 3),
    ("classic-11", {"min_players": 3}, 2),
    ("classic-11", {}, 1),
]


@pytest.mark.parametrize(("preset", "options", "players"), REFUSED)
def test_refused_as_the_solvers_refuse(preset, options, players):
    rules = rules_of(preset, **options)
    optimal = refusal(lambda: prepare(rules, players, solve_games=False))
    assert refusal(lambda: cost.solve_cost(rules, players, "optimal")) == optimal
    analysis = refusal(lambda: method_for(rules, players))
    assert refusal(lambda: cost.solve_cost(rules, players, "analysis")) == analysis
    assert optimal or analysis


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_method_is_the_one_that_would_run(preset, players):
    """Nothing solved on this machine: the manche of two, rounds elsewhere, for the bot and for the
    analysis (a whole game is analysed round by round, as the bot plays it, until it is solved)."""
    base = Ruleset.preset(preset)
    several = {} if base.manches > 1 or base.fiches_de_manche else {"manches": 2, "winners": "none"}
    for options in ({}, {"queue_de_la_vache": True, **several}):
        rules = base.with_options(**options)
        if not rules.seats(players):
            continue
        two = players == 2 and heads_up.unsupported(rules) is None
        optimal = cost.solve_cost(rules, players, "optimal")
        assert optimal.method == ("heads_up" if two and not carries_over(rules) else "rounds")
        analysis = cost.solve_cost(rules, players, "analysis")
        assert analysis.method == ("heads_up" if covering(rules, players) == "heads_up" else "rounds")
        assert math.isfinite(cost.seconds(analysis, 1e7))


def test_a_whole_game_kept_is_read(private_home):
    rules = Ruleset.preset("classic-11")
    assert cost.solve_cost(rules, 3, "analysis").method == "rounds"
    looked_for = cost.solve_cost(rules, 3, "optimal")  # the bot plays round by round
    rounds_only = cost.solve_cost(rules_of("classic-11", queue_de_la_vache=True), 3, "optimal")
    assert looked_for.method == rounds_only.method == "rounds"
    assert looked_for.positions == rounds_only.positions  # a game not on the disk costs nothing to miss
    path = solutions.maxn_cache_path(rules, 3, private_home / "solver")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()  # as if solved here before: only its presence is looked at
    for purpose in ("optimal", "analysis"):
        kept = cost.solve_cost(rules, 3, purpose)
        assert kept.method == "loaded"
        assert 0 < kept.positions < looked_for.positions


def test_a_game_in_memory_costs_nothing(monkeypatch):
    rules = Ruleset.preset("classic-11")
    monkeypatch.setitem(solutions._GAMES, (rules, 4), None)
    found = cost.solve_cost(rules, 4, "analysis")
    assert (found.method, found.positions, found.memory_bytes) == ("loaded", 0, 0)
    queue = rules_of("vache-41", queue_de_la_vache=True)
    assert cost.solve_cost(queue, 2, "analysis").method == "rounds"
    monkeypatch.setitem(solutions._HEADS_UP_GAMES, queue, None)
    assert cost.solve_cost(queue, 2, "analysis") == cost.Cost("loaded", 0, 0, 0)
    assert cost.solve_cost(queue, 2, "optimal") == cost.Cost("loaded", 0, 0, 0)


def test_seconds_and_the_rate():
    rate = cost.measure_rate(repeats=1)
    assert math.isfinite(rate) and rate > 0
    found = cost.solve_cost(Ruleset.preset("classic-11"), 2, "optimal")
    assert cost.seconds(found, rate) == found.positions / rate
