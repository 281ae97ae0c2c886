"""The turn solver: exact values, checked by enumeration and against the engine."""

import itertools
import json
import math
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from py421.cli import main
from py421.core.actions import Action, Stop, Throw
from py421.core.chance import SeededDice
from py421.core.dice import ALL_RESULTS, Result
from py421.core.events import TurnEnded
from py421.core.game import Game
from py421.core.rules import Ruleset, preset_names
from py421.core.state import State
from py421.solver.exact_turn import advise, exact_odds
from py421.solver.turn import beats_target, odds, options, solve

from .helpers import play_until


@pytest.mark.parametrize("preset", preset_names())
def test_421_within_three_throws(preset):
    table = Ruleset.preset(preset).table
    assert table.order[1] != Result.parse("421")  # 421 is the best result here
    assert exact_odds(table, table.order[1], 3) == Fraction(42571, 186624)


@pytest.mark.parametrize("target", ALL_RESULTS)
def test_one_throw_odds_count_the_outcomes(target):
    table = Ruleset.preset("classic-11").table
    better = sum(
        1 for faces in itertools.product(range(1, 7), repeat=3) if table.beats(Result.of(faces), target)
    )
    assert exact_odds(table, target, 1) == Fraction(better, 216)


def brute_force_two_throws(table, target):
    """Every ordered first throw, every keep, every ordered rethrow: no shared tables."""
    total = Fraction(0)
    for first in itertools.product(range(1, 7), repeat=3):
        held = Result.of(first)
        best = Fraction(int(table.beats(held, target)))
        for size in range(3):
            for kept in set(itertools.combinations(sorted(first), size)):
                wins = sum(
                    table.beats(Result.of(kept + rest), target)
                    for rest in itertools.product(range(1, 7), repeat=3 - size)
                )
                best = max(best, Fraction(wins, 6 ** (3 - size)))
        total += best
    return total / 216


@pytest.mark.parametrize("target", ["421", "611", "654", "553", "321", "322"])
@pytest.mark.parametrize("preset", ["classic-11", "vache-41", "tim"])
def test_two_throw_odds_agree_with_brute_force(preset, target):
    table = Ruleset.preset(preset).table
    assert exact_odds(table, Result.parse(target), 2) == brute_force_two_throws(table, Result.parse(target))


def test_float_and_exact_solvers_agree():
    table = Ruleset.preset("vache-41").table
    for target in ALL_RESULTS[::5]:
        assert odds(table, target, 3) == pytest.approx(float(exact_odds(table, target, 3)), abs=1e-12)


@pytest.mark.parametrize("preset", ["classic-11", "tim", "vache-41"])
@pytest.mark.parametrize("target", ["653", "221", None], ids=["653", "221", "coup-sec"])
def test_the_exact_advice_is_the_float_solvers(preset, target):
    """The advice of one turn, solved in fractions, ranks and values every choice of every result as
    the numpy solver does (to 1e-12; choices closer than that may come in either order there)."""
    table = Ruleset.preset(preset).table
    goal = Result.parse(target) if target else None
    utility = beats_target(table, goal) if goal else coup_sec_utility(table)
    for throws_left in range(3):
        values = solve(lambda remaining: utility, throws_left + 1)
        for held in ALL_RESULTS:
            exact = advise(table, held, throws_left, goal).options
            floats = options(values, held.dice, throws_left)
            assert {(o.keep, o.stop) for o in exact} == {(o.keep, o.stop) for o in floats}
            for mine, theirs in zip(exact, floats, strict=True):
                assert mine.value == pytest.approx(theirs.value, abs=1e-12)
                if (mine.keep, mine.stop) != (theirs.keep, theirs.stop):  # a tie, ordered apart
                    assert [o.value for o in exact if (o.keep, o.stop) == (theirs.keep, theirs.stop)] == [
                        pytest.approx(mine.value, abs=1e-12)
                    ]


def coup_sec_utility(table):
    """P(a result beats one fresh throw), ties counting half: written out here, by enumeration."""
    fresh = [Result.of(f) for f in itertools.product(range(1, 7), repeat=3)]
    return np.array(
        [sum(1.0 if table.beats(r, x) else 0.5 if r == x else 0.0 for x in fresh) / 216 for r in ALL_RESULTS]
    )


def test_odds_and_advice_for_a_target_start_without_numpy():
    """``421 odds`` and ``421 advise --target`` need no array: a fresh process never imports numpy."""
    script = (
        "import sys\n"
        "from py421.cli import main\n"
        "for args in (['odds', '653'], ['advise', '642', '--throws-left', '2', '--target', '653'],"
        " ['advise', '221', '--throws-left', '1']):\n"
        "    main(args, standalone_mode=False)\n"
        "print('numpy' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert "P(better than 653" in done.stdout
    assert done.stdout.splitlines()[-1] == "False"


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "target"), [("vache-41", "654"), ("lyonnaise-21", "611")])
def test_optimal_play_in_the_engine_matches_the_solved_odds(preset, target):
    """Play the solver's choices through the engine: the leader's first turn, 20,000 times."""
    rules = Ruleset.preset(preset)
    goal = Result.parse(target)
    u = beats_target(rules.table, goal)
    values = solve(lambda remaining: u, 3)
    expected = odds(rules.table, goal, 3)

    def decide(state: State) -> Action:
        assert state.round is not None
        best = options(values, state.round.dice, 3 - state.round.throws)[0]
        return Stop() if best.stop else Throw(best.keep)

    def turn_result(state: State) -> Result | None:
        return next((e.result for e in state.events if isinstance(e, TurnEnded)), None)

    n, hits = 20_000, 0
    for i in range(n):
        result = play_until(Game(rules, ["A", "B"]), SeededDice(f"mc-{i}"), decide, turn_result)
        hits += rules.table.beats(result, goal)
    se = math.sqrt(expected * (1 - expected) / n)
    assert abs(hits / n - expected) < 4 * se


def test_advice_ranks_every_choice():
    table = Ruleset.preset("classic-11").table
    advice = advise(table, Result.parse("642"), 2, Result.parse("653"))
    keeps = [o.keep for o in advice.options]
    assert len(keeps) == 8  # stop and the seven distinct keeps of 642
    assert advice.options == sorted(advice.options, key=lambda o: -o.value)
    assert advice.options[-1].stop  # stopping on 642 never beats 653
    assert advice.options[-1].value == 0


def test_advise_and_odds_on_the_command_line():
    runner = CliRunner()
    data = json.loads(
        runner.invoke(main, ["advise", "642", "--throws-left", "2", "--target", "653", "--json"]).output
    )
    assert data["options"][0]["value"] >= data["options"][1]["value"]
    assert {"keep": "642", "stop": True, "bon": False, "value": 0.0} in data["options"]
    assert any(o["keep"] == "" for o in data["options"])  # throwing all three again
    data = json.loads(runner.invoke(main, ["odds", "111", "--throws", "3", "--json"]).output)
    assert data["probability"] == pytest.approx(42571 / 186624)
    result = runner.invoke(main, ["advise", "642", "--throws-left", "3"])
    assert result.exit_code == 2
    assert "--throws-left" in result.output
