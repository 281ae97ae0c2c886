"""What one player gains by deviating from a game solved by max^n (py421.solver.deviation)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from py421.cli import main
from py421.core.rules import Ruleset
from py421.solver import deviation as deviation_module
from py421.solver import game_maxn
from py421.solver.deviation import deviation, respond
from py421.solver.game_maxn import GameMaxn, RoundPlay, Shape, play_round, shape_of
from py421.solver.game_maxn_stakes import play_staked_round
from py421.solver.game_maxn_stakes import respond as staked_respond
from py421.solver.solutions import solve_maxn_cached

SMALL = Ruleset.preset("classic-11").with_options(pot=4)
# « qui barre démarre »: results counted with their throws, « main chaude » chosen
COUNTED = Ruleset.preset("engranjeu-21").with_options(pot=4)
# every throw of a charge round adds to the stake; players behind must throw on (« le bon » weighed)
STAKED = Ruleset.preset("lyonnaise-21").with_options(pot=5)
STAKED_THROW_ON = STAKED.with_options(must_throw_on=True)


@pytest.mark.parametrize(("rules", "players"), [(SMALL, 3), (SMALL, 4), (COUNTED, 3)], ids=str)
@pytest.mark.parametrize(("most", "leader_limit"), [(1, True), (3, True), (3, False), (2, True)])
def test_in_a_solved_round_every_players_choices_are_already_their_best_response(
    rules, players, most, leader_limit
):
    shape = shape_of(rules, players)
    payoff = np.random.default_rng(players * 10 + most).random((shape.classes, players))
    seats = list(range(players))
    played = play_round(shape, payoff, seats, most, leader_limit, keep=True)
    for place in range(players):
        value, classes = respond(shape, played, payoff[:, place], most, leader_limit, place)
        assert value == pytest.approx(played.value[place], abs=1e-12)
        assert classes == pytest.approx(played.classes, abs=1e-12)


ROUNDS = {
    # a pot of 9: « le bon » (one throw more, then stop) is played where it keeps the stake below the pot
    "staked": STAKED.with_options(pot=9),
    "throw-on": STAKED_THROW_ON.with_options(pot=9),
    # « qui barre démarre »: each throw counted too, « le bon »'s result made in one throw more; its
    # followers play « le bon » at COUNTED's pot of 4 already (each stake a pot holds costs its turns)
    "counted": COUNTED.with_options(accumulated_stakes=True, charge_throws=3, must_throw_on=True),
}


def staked_round(
    rules: Ruleset, seed: int, most: int, leader_limit: bool
) -> tuple[Shape, np.ndarray, RoundPlay]:
    """A staked charge round of three, the whole pot left, solved for random values, its strategies kept."""
    shape = shape_of(rules, 3, staked=True)
    payoff = np.random.default_rng(seed).random((shape.classes * (rules.pot + 1), 3))
    played = play_staked_round(shape, payoff, [0, 1, 2], most, leader_limit, rules, rules.pot, keep=True)
    return shape, payoff, played


@pytest.mark.parametrize("kind", list(ROUNDS))
@pytest.mark.parametrize(("most", "leader_limit"), [(1, True), (3, True), (3, False), (2, True)])
def test_in_a_solved_staked_round_every_players_choices_are_already_their_best_response(
    kind, most, leader_limit
):
    rules = ROUNDS[kind]
    shape, payoff, played = staked_round(rules, most, most, leader_limit)
    for place in range(3):
        value, classes = staked_respond(
            rules, shape, played, payoff[:, place], most, leader_limit, place, rules.pot
        )
        assert value == pytest.approx(played.value[place], abs=1e-12)
        assert classes == pytest.approx(played.classes, abs=1e-12)


@pytest.mark.parametrize("kind", list(ROUNDS))
def test_a_best_response_in_a_staked_round_does_better_than_the_solved_choices(kind):
    rules = ROUNDS[kind]
    shape, _, played = staked_round(rules, 7, 3, True)
    assert played.classes is not None
    chances = played.classes
    rng = np.random.default_rng(8)
    gained = []
    for place in range(3):
        other = rng.random(len(chances))
        value, classes = staked_respond(rules, shape, played, other, 3, True, place, rules.pot)
        assert classes.sum() == pytest.approx(1.0, abs=1e-12)
        assert value == pytest.approx(classes @ other, abs=1e-12)
        assert value >= chances @ other - 1e-12
        gained.append(value - chances @ other)
    assert min(gained[1:]) > 1e-4  # the followers too: each plays its own turn


@pytest.mark.parametrize(("rules", "players"), [(SMALL, 3), (SMALL, 4), (COUNTED, 3)], ids=str)
def test_a_best_response_to_other_values_does_better_than_the_solved_choices(rules, players):
    shape = shape_of(rules, players)
    rng = np.random.default_rng(players)
    payoff = rng.random((shape.classes, players))
    played = play_round(shape, payoff, list(range(players)), 3, True, keep=True)
    assert played.classes is not None
    gained = []
    for place in range(players):
        other = rng.random(shape.classes)  # the responder wants something else than the solve assumed
        value, classes = respond(shape, played, other, 3, True, place)
        assert classes.sum() == pytest.approx(1.0, abs=1e-12)
        assert value == pytest.approx(classes @ other, abs=1e-12)
        assert value >= played.classes @ other - 1e-12
        gained.append(value - played.classes @ other)
    assert max(gained) > 1e-3  # and it does strictly better somewhere: the choices are its own


@pytest.mark.parametrize(
    "rules", [SMALL, COUNTED, STAKED_THROW_ON, COUNTED.with_options(accumulated_stakes=True)], ids=str
)
def test_nobody_gains_by_deviating_where_max_n_settles(rules, shared_solutions):
    # each of these games is solved once for the run's tests (tests/test_solver_game_maxn.py and
    # tests/test_solver_throw_on.py play or advise them): read from there, or solved and kept there
    game, _ = solve_maxn_cached(rules, 3, folder=shared_solutions)
    assert game.deviation is None  # not measured where the last pass changed no choice
    found = deviation(game)
    assert found.played == pytest.approx(game.start_values(), abs=1e-12)
    assert found.gains.max() < 1e-12
    assert found.anywhere.max() < 1e-12


def stopped_early(rules: Ruleset, players: int, monkeypatch: pytest.MonkeyPatch) -> GameMaxn:
    """A game, not solved yet, whose décharge its solve stops after one sweep, as if it did not settle."""
    monkeypatch.setattr(game_maxn, "STALL", 0)
    return GameMaxn(rules, players)


def test_where_the_sweeps_stop_unsettled_the_gain_of_deviating_is_measured_and_reported(
    monkeypatch, tmp_path
):
    # solved here, and kept on the disk with the solve
    game, cached = solve_maxn_cached(SMALL, 3, folder=tmp_path, game=stopped_early(SMALL, 3, monkeypatch))
    summary = game.summary()
    assert summary["converged"] is False
    assert game.deviation is not None
    played, best = game.deviation.played, game.deviation.best
    # every seat at least keeps its value by deviating; somebody gains, by about as much as the last
    # pass still moved a value (the residual): the stop left the play away from an equilibrium
    assert np.all(best >= played - 1e-12)
    assert summary["exploitability"] == max(summary["gains"]) > 1e-9
    assert summary["exploitability"] < 0.1
    # from some position a seat gains at least as much as from the start
    assert summary["gain_anywhere"] >= summary["exploitability"] - 1e-12
    # the played values are those of the stored solution's choices, the start's shares summing to 1
    assert -played.sum() == pytest.approx(1.0, abs=1e-9)
    again, cached_again = solve_maxn_cached(SMALL, 3, folder=tmp_path)
    assert (cached, cached_again) == (False, True)
    assert again.deviation is not None
    assert again.summary()["gains"] == pytest.approx(summary["gains"], abs=1e-12)


def test_a_best_response_through_charge_rounds_worth_nothing_is_found_in_a_few_passes(monkeypatch):
    """Under value deduction a charge level comes back to itself; each seat's best response there
    is valued exactly after every pass (policy iteration): a few passes a level, and from what they
    find one more pass moves no value."""
    game = stopped_early(COUNTED, 3, monkeypatch)
    charge = {p for p, pos in enumerate(game.model.positions) if pos.charge}
    passes: list[tuple[int, float]] = []
    one_pass = deviation_module._pass

    def counted(manche, group, stored, values, alone):
        change, moves = one_pass(manche, group, stored, values, alone)
        if group[0] in charge:
            passes.append((manche.positions[group[0]].pot, change))
        return change, moves

    monkeypatch.setattr(deviation_module, "_pass", counted)
    found = game.solve().deviation  # measured by the solve, as it did not settle
    assert found is not None
    by_level = {level: [change for pot, change in passes if pot == level] for level in range(1, 5)}
    assert all(0 < len(changes) <= 4 and changes[-1] < 1e-12 for changes in by_level.values()), by_level
    assert found.gains.max() > 0 and np.all(found.best >= found.played - 1e-12)


def test_solve_says_what_deviating_gains_where_it_does_not_settle(monkeypatch):
    monkeypatch.setattr(game_maxn, "STALL", 0)
    runner = CliRunner()
    args = ["solve", "--players", "3", "--set", "pot=4"]
    data = json.loads(runner.invoke(main, [*args, "--json"], catch_exceptions=False).output)
    assert data["converged"] is False and data["exploitability"] > 0
    text = runner.invoke(main, args, catch_exceptions=False).output
    assert "by deviating alone" in text
    french = runner.invoke(main, [*args, "--lang", "fr"], catch_exceptions=False).output
    assert "en déviant seul" in french


def test_a_large_game_bounds_what_deviating_gains_and_the_bound_holds_the_gain_measured(monkeypatch):
    """Above MEASURED_MOST décharge positions (four-player vache-41), a game that does not settle
    bounds the gain within the groups that did not settle, where the whole-game measure would take
    hours more: here, a small game of four with the limit at nothing, the bound is at least what the
    whole-game measure finds each seat gains, from the start and from anywhere. A manche nobody has
    lost yet turns, so its décharge is measured one round of each kind, to the same bound as
    position by position."""
    monkeypatch.setattr(game_maxn, "MEASURED_MOST", 0)
    solved = 0
    solve_round = game_maxn.round_at

    def counted(*args: Any, **kwargs: Any) -> RoundPlay:
        nonlocal solved
        solved += 1
        return solve_round(*args, **kwargs)

    monkeypatch.setattr(deviation_module, "round_at", counted)
    game = stopped_early(SMALL, 4, monkeypatch).solve()
    by_kind = solved
    found = game.deviation
    assert found is not None and found.bounded and game.summary()["deviation_bounded"]
    measured = deviation(game)  # the whole-game measure of the same play, as a smaller game has it
    assert not measured.bounded and measured.exploitability > 1e-9
    assert found.gains.min() >= measured.gains.max() - 1e-12
    assert found.anywhere.min() >= measured.anywhere.max() - 1e-12
    solved = 0
    monkeypatch.setattr(deviation_module, "_turning", lambda *args: False)  # every position on its own
    apart = deviation_module.bounded(game)
    assert apart.gains == pytest.approx(found.gains, abs=1e-10)
    assert by_kind < solved
