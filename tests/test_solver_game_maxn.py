"""Whole games of three and four players by max^n: the model against the other solvers and the engine."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from py421.cli import main
from py421.core.actions import ChooseStake, Stake, Stop, Throw
from py421.core.chance import SeededDice
from py421.core.combos import NENETTE
from py421.core.dice import Result, throw_outcomes
from py421.core.engine import new_game
from py421.core.errors import InvalidPlayers, InvalidRuleset, UnsolvedSystem
from py421.core.events import RoundDecided
from py421.core.game import Game
from py421.core.position import position_text
from py421.core.rules import Ruleset, preset_names
from py421.core.state import Phase, State
from py421.i18n import error_text
from py421.paths import data_dir
from py421.players.optimal import OptimalBot, RoundsOptimalBot
from py421.sim.fast.counter_dice import batch_key
from py421.sim.fast.lineup import Lineup, parse_players
from py421.sim.fast.maxn import position_key
from py421.sim.fast.optimal_tables import MaxnTables
from py421.sim.fast.policy import ROUNDS_LEVEL
from py421.sim.fast.replay import replay
from py421.sim.simulate import Simulation, Summary, run
from py421.solver import deviation, game_maxn, solutions
from py421.solver import game_maxn_stakes as stakes
from py421.solver.advice import RoundContext, advise_game_level
from py421.solver.game_maxn import (
    GameMaxn,
    Manche,
    Position,
    alike,
    play_round,
    settling_of,
    shape_of,
    solve_manche,
    turned,
    unsupported,
)
from py421.solver.game_maxn_turns import (
    THREADS_VARIABLE,
    _kernel,
    _numpy_turns,
    follower_turns,
    follower_values,
    spread,
)
from py421.solver.heads_up import HeadsUp, game_outcome
from py421.solver.heads_up_game import HeadsUpGame
from py421.solver.rounds import OBJECTIVES, STOP, solve_round
from py421.solver.shipped import located
from py421.solver.solutions import maxn_cache_path, solve_maxn_cached, solved_game
from py421.solver.strategy import played, solved_before_play, strategy_for, whole_game_maxn
from py421.solver.tables import INDEX

from .helpers import wilson

# Small pots keep a whole game to a second or two.
SMALL = Ruleset.preset("classic-11").with_options(pot=4)
COUPS_SECS = {"charge_throws": 1, "decharge_throws": 1, "le_bon": False}
# « Queue de la vache » in coups secs: a charge round of three is worth 3 to 30 (plus its rampots) and
# the pot holds 4, so most first manches leave a debt, paid from the second manche's pot (all of it,
# l'Espagnole at once, from a debt of 4).
QUEUE = Ruleset.preset("vache-41").with_options(**COUPS_SECS, pot=4, queue_de_la_vache=True)


@cache
def small_game() -> GameMaxn:
    """Three players, two manches of classic-11 with four tokens."""
    return GameMaxn(SMALL, 3).solve()


def round_objective(rules: Ruleset, players: int, charge: bool, objective: str) -> np.ndarray:
    """[class, position]: the round solver's objective, from who loses, who wins and the amount."""
    settling = settling_of(rules, players, charge)
    per_outcome = np.zeros((len(settling.outcomes), players))
    for o, (losers, winner, amount) in enumerate(settling.outcomes):
        for i in losers:
            per_outcome[o, i] -= 1 if objective == "loser" else amount
        if objective == "tokens" and winner >= 0:
            per_outcome[o, winner] += amount * len(losers)
    found: np.ndarray = settling.weights @ per_outcome
    return found


@pytest.mark.parametrize(
    ("preset", "players", "objectives", "phases"),
    [
        ("classic-11", 3, ("loser", "tokens"), (True, False)),
        ("kytionnaire", 3, ("loser", "tokens"), (True, False)),
        # every tied loser takes: rounds.py shares their tokens differently, so only the loser
        ("comptoir-21", 3, ("loser",), (True, False)),
        ("classic-11", 4, ("tokens",), (False,)),  # a charge of coups secs has nothing to choose
    ],
)
def test_a_round_played_for_a_round_objective_is_the_round_solver(preset, players, objectives, phases):
    """Given payoffs that only say who loses the round and what moves, both max^n solvers agree."""
    rules = Ruleset.preset(preset)
    for charge in phases:
        for objective in objectives:
            payoff = round_objective(rules, players, charge, objective)
            most = rules.throws_allowed(charge)
            mine = play_round(shape_of(rules, players), payoff, range(players), most, rules.leader_limit)
            theirs = solve_round(rules, players, charge, objective, None).value
            assert mine.value == pytest.approx(theirs[:, OBJECTIVES.index(objective)], abs=1e-12)


def test_the_compiled_turns_are_the_numpy_turns():
    """With numba installed the followers' turns are compiled loops: the same choices, the same values."""
    rng = np.random.default_rng(421)
    later = rng.random((40, 3))
    later[:20] = later[20:]  # equal values: ties, settled by the rule
    step = rng.integers(0, 40, (30, 56))
    compiled, plain = follower_turns(later, step, 1, 3), _numpy_turns(later, step, 1, 3)
    assert np.array_equal(compiled[2], plain[2])
    assert compiled[1] == pytest.approx(plain[1], abs=1e-14)
    assert compiled[0][1:] == pytest.approx(plain[0][1:], abs=1e-14)
    ahead = rng.random(step.shape) < 0.3  # players behind must throw on: a stop only where ahead
    compiled, plain = follower_turns(later, step, 1, 3, 2, ahead), _numpy_turns(later, step, 1, 3, ahead)
    assert np.array_equal(compiled[2], plain[2])
    assert compiled[0][1:] == pytest.approx(plain[0][1:], abs=1e-14)
    assert not (compiled[2][1:] == STOP)[:, ~ahead].any()  # never stopped behind with a throw left


@pytest.mark.parametrize("contexts", [30, 1_000])  # one thread, then split among the cores
def test_the_compiled_turns_of_counted_results_are_the_numpy_turns(contexts):
    """Under « qui barre démarre » a result is counted with its throws: the compiled turns of each
    limit make numpy's choices, values and chances, and stop only on the throws the limit allows."""
    rng = np.random.default_rng(4)
    later = rng.random((40, 3))
    later[:20] = later[20:]
    step = rng.integers(0, 40, (contexts, 3 * 56))
    for limit in (2, 3):
        out, final, choices = follower_turns(later, step, 1, limit)
        plain = _numpy_turns(later, step, 1, limit)
        assert np.array_equal(choices, plain[2])
        assert final[limit - 1] == pytest.approx(plain[1][limit - 1], abs=1e-14)
        assert out[limit - 1] == pytest.approx(plain[0][limit - 1], abs=1e-14)
        assert final[limit - 1].sum(axis=1) == pytest.approx(1.0)
        assert not final[limit - 1][:, limit * 56 :].any()  # never more throws than the limit
        assert final[limit - 1][:, (limit - 1) * 56 :].any()  # and some on the last one
    # players behind must throw on, « le bon » weighed: played where worth more, its throw final
    ahead = rng.random(step.shape) < 0.3
    out, final, choices = follower_turns(later, step, 1, 3, 3, ahead, True)
    plain = _numpy_turns(later, step, 1, 3, ahead, True)
    assert np.array_equal(choices, plain[2])
    assert final[2] == pytest.approx(plain[1][2], abs=1e-14)
    assert out[2] == pytest.approx(plain[0][2], abs=1e-14)
    assert follower_values(later, step, 1, 3, 3, ahead, True)[2] == pytest.approx(out[2], abs=1e-14)
    assert final[2].sum(axis=1) == pytest.approx(1.0)
    assert (choices[2] >= 28).any() and not (choices[1] >= 28).any()  # never with one throw left
    # the same stops whatever the throws: the turns of the plain results
    same = np.tile(step[:, :56], 3)
    counted, plain_turns = follower_turns(later, same, 1, 3), follower_turns(later, step[:, :56], 1, 3)
    assert np.array_equal(counted[2], plain_turns[2])
    assert counted[0][2] == pytest.approx(plain_turns[0][2], abs=1e-14)


@pytest.mark.parametrize("alike", [1, 4, 12], ids=["apart", "leading-alike", "one-stop-more"])
@pytest.mark.parametrize("throw_on", [False, True], ids=["free", "throw-on"])
@pytest.mark.parametrize("contexts", [30, 1_000])  # one thread, then split among the cores
def test_the_compiled_staked_turns_are_the_numpy_turns(contexts, throw_on, alike):
    """Where every throw adds to the stake, compiled turns make numpy's choices, values and chances;
    and where players behind must throw on, with « le bon » weighed, they stop only where allowed and
    play « le bon » where it keeps the stake from growing to their cost, its throw then final. The
    same where runs of summaries lead alike and differ only in where the mover may stop (the
    compiled turns work out what they share once per run), as where each summary of a run lets the
    mover stop on one result more than the one before (beating the best so far, lower each time: the
    compiled turns then work out again only what that result changes)."""
    rng = np.random.default_rng(41)
    later = rng.random((40, 8, 3))
    later[:20] = later[20:]  # equal values: ties, settled by the rule
    step = np.repeat(rng.integers(0, 40, (contexts // alike + 1, 56)), alike, axis=0)[:contexts]
    ahead = rng.random(step.shape) < 0.3 if throw_on else None
    if ahead is not None and alike == 12:  # a threshold, one result lower each summary of the run
        rank = rng.permutation(56)
        ahead = rank[None, :] >= 55 - np.arange(contexts)[:, None] % alike
    shift = stakes.shifted(Ruleset.preset("vache-41"), 7)
    out, choices = stakes.follower(later, step, 2, 3, shift, True, ahead, throw_on)
    assert choices is not None
    plain = np.zeros_like(out)
    plain_choices = np.empty_like(choices)
    stakes._numpy_follower(later, step, 2, 3, shift, plain, plain_choices, ahead, throw_on)
    assert np.array_equal(choices, plain_choices)
    assert out == pytest.approx(plain, abs=1e-14)
    reach = rng.random((contexts, 8))
    for limit in (1, 2, 3):
        ended = stakes.forward(reach, list(choices[:limit]), limit, shift).sum(axis=0)
        advanced = stakes.advance(reach, step, choices[:limit], shift, 40)
        assert advanced == pytest.approx(stakes.onward(step, ended, 40), abs=1e-12)
        assert advanced.sum() == pytest.approx(reach.sum(), rel=1e-12)  # every turn ends
    assert stakes._kernels() is not None  # numba is there: the compiled loops were the ones compared
    if ahead is not None:
        assert not (choices[1:][:, ~ahead] == STOP).any()  # never stopped behind with a throw left
        assert (choices[2] >= 28).any() and not (choices[1] >= 28).any()  # « le bon », with two left


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "numpy"])
def test_the_turns_of_every_limit_followed_at_once_end_as_followed_one_by_one(compiled, monkeypatch):
    """A round's last player plays turns of up to one, two or three throws, whichever the leader
    set: followed at once, each entering with its own throws (the last ones of the longest turn),
    they end where the three followed one after another end, with every chance accounted for."""
    rng = np.random.default_rng(43)
    later = rng.random((40, 8, 3))
    step = np.repeat(rng.integers(0, 40, (250, 56)), 4, axis=0)
    ahead = rng.random(step.shape) < 0.3
    shift = stakes.shifted(Ruleset.preset("vache-41"), 7)
    _, choices = stakes.follower(later, step, 2, 3, shift, True, ahead, True)
    assert choices is not None
    if not compiled:
        monkeypatch.setattr(stakes, "_kernels", lambda: None)
    entering = rng.random((3, len(step), 8))
    entering[:, rng.random(len(step)) < 0.2] = 0.0  # rows no turn reaches
    together = stakes.advance(entering, step, choices, shift, 40)
    apart = [stakes.advance(entering[t], step, choices[: t + 1], shift, 40) for t in range(3)]
    assert together == pytest.approx(sum(apart), abs=1e-12)
    assert together.sum() == pytest.approx(entering.sum(), rel=1e-12)
    assert not np.array_equal(apart[1], apart[2])  # the limits do end apart


def _same_play_where_reached(
    narrow: game_maxn.RoundPlay, wide: game_maxn.RoundPlay, reached: dict[int, Any]
) -> None:
    """The same value, chance of each class and choices, on every summary (or row) each limit
    reaches (``reached[limit][place]``), as the round solved on all of them."""
    assert np.array_equal(narrow.value, wide.value)
    assert narrow.classes is not None and wide.classes is not None
    assert np.array_equal(narrow.classes, wide.classes)
    for limit, by_place in reached.items():
        for place, by_left in enumerate(narrow.followers[limit]):
            for left, chosen in enumerate(by_left):
                at = by_place[place]
                assert np.array_equal(chosen[at], wide.followers[limit][place][left][at])


@pytest.mark.parametrize(
    ("options", "players", "most"),
    [({}, 3, 3), ({"must_throw_on": True}, 3, 3), ({"decharge_throws": 2}, 4, 2)],
    ids=["free", "throw-on", "four"],
)
def test_a_round_of_counted_results_solved_where_it_can_go_is_the_round_solved_everywhere(
    options, players, most, monkeypatch
):
    """Under « qui barre démarre » and the leader's limit, the followers' turns are solved only on
    the summaries of results made in no more throws than the leader's: the round's values, the
    chance of each class and every choice the round can meet are those of the turns solved on
    every summary. With players behind who must throw on, « le bon » too; at four players, the
    summaries after two results are renumbered as well."""
    rules = Ruleset.preset("engranjeu-21").with_options(**options)
    shape = shape_of(rules, players)
    assert shape.bon == ("must_throw_on" in options)
    payoff = np.random.default_rng(5).random((shape.classes, players))
    seats = [(s + 2) % players for s in range(players)]
    narrow = play_round(shape, payoff, seats, most, True, keep=True)
    reached = {limit: shape.reached(limit).rows for limit in range(2, most + 1)}
    for rows in reached.values():  # fewer: results made in more throws than the limit are left out
        assert sum(map(len, rows)) < 0.6 * sum(len(step) for step in shape.steps)
    monkeypatch.setattr(game_maxn.Shape, "reached", lambda self, limit: None)  # every summary solved
    wide = play_round(shape, payoff, seats, most, True, keep=True)
    _same_play_where_reached(narrow, wide, reached)
    if shape.bon:
        assert any((c >= 28).any() for c in narrow.followers[3][1])  # « le bon » is played


@pytest.mark.parametrize("throw_on", [False, True], ids=["free", "throw-on"])
def test_a_staked_round_of_counted_results_solved_where_it_can_go_is_the_round_solved_everywhere(
    throw_on, monkeypatch
):
    """The same where every throw of the charge adds to the stake (`lyonnaise-21` under « qui barre
    démarre »): each limit's turns solved only on the rows that limit reaches make the round's
    value, its classes' chances and every choice it can meet, « le bon » included."""
    rules = Ruleset.preset("lyonnaise-21").with_options(
        pot=7, tie_break="qui_barre_demarre", must_throw_on=throw_on
    )
    shape = shape_of(rules, 3, staked=True)
    payoff = np.random.default_rng(6).random((shape.classes * (rules.pot + 1), 3))
    narrow = stakes.play_staked_round(shape, payoff, [1, 2, 0], 3, True, rules, 5, keep=True)
    rows = {limit: stakes.reached(rules, 3, limit) for limit in (2, 3)}
    alike = stakes.alike_steps(rules, 3)
    assert sum(map(len, rows[2])) < sum(len(step) for step, _ in alike) / 2
    monkeypatch.setattr(stakes, "reached", lambda rules, players, limit: (None,) * (players - 1))
    wide = stakes.play_staked_round(shape, payoff, [1, 2, 0], 3, True, rules, 5, keep=True)
    _same_play_where_reached(narrow, wide, rows)
    assert any((c >= 28).any() for c in narrow.followers[3][1]) == throw_on  # « le bon »


@pytest.mark.parametrize("throw_on", [False, True], ids=["free", "throw-on"])
def test_the_compiled_staked_turns_of_counted_results_are_the_numpy_turns(throw_on):
    """Where the throws of a staked turn are counted too (« qui barre démarre »), each limit is a turn
    of its own: compiled and numpy make the same choices, values and chances, stopping worth what
    the throws used make it; with the same stops whatever the throws, they are the plain turns."""
    rng = np.random.default_rng(42)
    later = rng.random((40, 8, 3))
    later[:20] = later[20:]
    step = rng.integers(0, 40, (300, 168))
    ahead = rng.random(step.shape) < 0.3 if throw_on else None
    shift = stakes.shifted(Ruleset.preset("vache-41"), 7)
    reach = rng.random((300, 8))
    bons = 0
    for limit in (1, 2, 3):
        out, choices = stakes.follower(later, step, 2, limit, shift, True, ahead, throw_on)
        assert choices is not None
        plain = np.zeros_like(out)
        plain_choices = np.empty_like(choices)
        stakes._numpy_follower(later, step, 2, limit, shift, plain, plain_choices, ahead, throw_on)
        assert np.array_equal(choices, plain_choices)
        assert out[limit - 1] == pytest.approx(plain[limit - 1], abs=1e-14)
        bons += int((choices >= 28).sum())
        ended = stakes.forward(reach, list(choices), limit, shift)
        expected = sum(stakes.onward(stakes.by_used(step, u), ended[u - 1], 40) for u in range(1, limit + 1))
        advanced = stakes.advance(reach, step, choices, shift, 40)
        assert advanced == pytest.approx(expected, abs=1e-12)
        assert advanced.sum() == pytest.approx(reach.sum(), rel=1e-12)
        if ahead is not None:  # never stopped behind with a throw left, by the throws used
            for t in range(1, limit):
                assert not (choices[t][~stakes.by_used(ahead, limit - t)] == STOP).any()
    assert (bons > 0) == throw_on
    first = None if ahead is None else ahead[:, :56]
    tiled = None if first is None else np.tile(first, 3)
    counted = stakes.follower(later, np.tile(step[:, :56], 3), 2, 3, shift, True, tiled, throw_on)
    uncounted = stakes.follower(later, step[:, :56], 2, 3, shift, True, first, throw_on)
    assert counted[1] is not None and uncounted[1] is not None
    assert np.array_equal(counted[1], uncounted[1])
    assert counted[0][2] == pytest.approx(uncounted[0][2], abs=1e-14)


def test_the_compiled_turns_are_compiled_once_whatever_the_layout_of_their_arrays():
    """numba compiles a kernel again, for seconds of CPU, for each memory layout of the arrays it is
    given: a caller's slice (every other row, a few columns) must reuse the one compiled already."""
    pytest.importorskip("numba")
    rng = np.random.default_rng(9)
    later, staked_later = rng.random((40, 3)), rng.random((40, 8, 3))
    step = rng.integers(0, 40, (60, 2 * 3 * 56))
    ahead = rng.random(step.shape) < 0.3
    shift = stakes.shifted(Ruleset.preset("vache-41"), 7)
    reach = rng.random((60, 8))

    def solve(step: np.ndarray, ahead: np.ndarray) -> None:
        follower_turns(later, step, 1, 3, 3, ahead, True)
        _, choices = stakes.follower(staked_later, step, 2, 3, shift, True, ahead, True)
        assert choices is not None
        stakes.advance(reach[: len(step)], step, choices, shift, 40)

    kernels = (_kernel(), *(stakes._kernels() or ()))
    solve(step[:30, : 3 * 56].copy(), ahead[:30, : 3 * 56].copy())
    compiled = [len(k.signatures) for k in kernels]
    solve(step[::2, : 3 * 56], ahead[::2, : 3 * 56])  # neither in one block of memory
    assert [len(k.signatures) for k in kernels] == compiled


@pytest.mark.parametrize("contexts", [30, 1_000])  # solved by one thread, then split among the cores
def test_the_turns_of_one_limit_are_those_of_every_limit(contexts):
    """A caller that needs one limit's values gets that row as the whole solve has it, and a turn
    split among threads is the turn solved in one piece."""
    rng = np.random.default_rng(contexts)
    later = rng.random((400, 3))
    later[:200] = later[200:]
    step = rng.integers(0, 400, (contexts, 56))
    out, final, choices = follower_turns(later, step, 2, 3)
    plain = _numpy_turns(later, step, 2, 3)
    assert np.array_equal(choices, plain[2])
    assert out[1:] == pytest.approx(plain[0][1:], abs=1e-14)
    only = follower_turns(later, step, 2, 3, first_limit=3)
    assert np.array_equal(only[2], choices)
    assert np.array_equal(only[0][2], out[2]) and np.array_equal(only[1][2], final[2])
    assert not only[0][1].any()  # the limit not asked for is not solved


@pytest.mark.parametrize(
    ("preset", "options"),
    [
        ("kytionnaire", {"pot": 7}),
        ("classic-11", {"pot": 7}),
        ("comptoir-21", {"pot": 7}),
        ("lyonnaise-21", {"pot": 7}),
        ("vache-41", {"pot": 9, "tied_losers_all_take": True}),
        # a loser holding nénette takes the penalty, not the stake: in the charge's rampots too
        ("lyonnaise-21", {"pot": 7, "nenette_penalty": 2}),
        # a double nénette goes to the later thrower: in the charge's rampots, the first replayer loses
        ("lyonnaise-21", {"pot": 7, "nenette_last_wins": True}),
        # players behind must throw on where every throw adds to the stake: « le bon » weighed
        ("lyonnaise-21", {"pot": 7, "must_throw_on": True}),
        ("vache-41", {"pot": 9, "must_throw_on": True, "leader_limit": False}),
        ("classic-11", {"withdraw_at_zero": False, "initial_tokens": 2, "pot": 4}),
        # a double nénette goes to the later thrower: in the round, and in replays from either end
        ("classic-11", {"pot": 7, "nenette_last_wins": True}),
        ("kytionnaire", {"pot": 7, "nenette_last_wins": True, "tie_break": "last_player_first"}),
        # « qui barre démarre »: throw counts compared, « main chaude », values deducted, the later
        # nénette winning; throw counts in the charge too, and with no leader's limit
        ("engranjeu-21", {"pot": 7}),
        ("engranjeu-21", {"pot": 5, "charge_throws": 3, "leader_limit": False}),
        ("engranjeu-21", {"pot": 5, "nenette_penalty": 2, "nenette_last_wins": False}),
        # with accumulated stakes: each replay adds to the stake, « main chaude » chooses it
        ("engranjeu-21", {"pot": 9, "accumulated_stakes": True}),
        ("engranjeu-21", {"pot": 9, "accumulated_stakes": True, "nenette_penalty": 2}),
        # and in a charge of three throws, each counted and added to the stake; players behind who
        # must throw on, « le bon » weighed
        ("engranjeu-21", {"pot": 7, "accumulated_stakes": True, "charge_throws": 3}),
        ("lyonnaise-21", {"pot": 7, "tie_break": "qui_barre_demarre", "leader_limit": False}),
        ("engranjeu-21", {"pot": 7, "accumulated_stakes": True, "charge_throws": 3, "must_throw_on": True}),
    ],
)
def test_two_players_are_the_two_player_solver(preset, options):
    """At two players the game-level max^n is the zero-sum two-player game, position by position."""
    rules = Ruleset.preset(preset).with_options(**options)
    game = GameMaxn(rules, 2).solve()
    heads_up = HeadsUp(rules).solve()
    for solution in game.manches.values():
        for p, pos in enumerate(game.model.positions):
            seat0_loses = solution.ends[p, 0].sum()
            table = heads_up.charge[pos.pot] if pos.charge else heads_up.decharge
            assert seat0_loses == pytest.approx(table[pos.tokens[0], pos.leader], abs=1e-12)
    summary = game.summary()
    outcome = game_outcome(rules, heads_up.manche_loss())
    if rules.first_player == "first_seat":  # game_outcome has seat 0 lead; a draw makes both seats alike
        assert summary["lose"] == pytest.approx(list(outcome.lose), abs=1e-12)
    assert summary["shared"] == pytest.approx(outcome.shared, abs=1e-12)


@pytest.mark.parametrize(
    "options",
    [
        {"pot": 9},
        {"pot": 9, "tied_losers_all_take": True},  # both players may end the charge owing
        {"pot": 7, "espagnole": "loses_game", "leader_limit": False},
    ],
    ids=str,
)
def test_two_players_under_queue_de_la_vache_are_the_two_player_game(options):
    """« Queue de la vache » with turns of three throws, each adding to the stake, a stake counting up
    to a pot above the pot left: at two players the game-level max^n is the two-player solver of
    games whose manches carry over (:mod:`py421.solver.heads_up_game`), to 1e-12."""
    rules = Ruleset.preset("vache-41").with_options(queue_de_la_vache=True, **options)
    game = GameMaxn(rules, 2).solve()
    assert game.carried is not None and len(game.carried.end_keys) > 4  # ends owing debts
    two = HeadsUpGame(rules).solve()
    share, shared = two.value()
    start = game.model_of(game.start_key())
    assert -game.manches[game.start_key()].values[start.index[start.start]][0] == pytest.approx(
        share, abs=1e-12
    )
    outcomes = game.outcomes(np.eye(2)[0])  # seat 0 leads, as the two-player game has it
    assert outcomes.get((0, 1), 0.0) == pytest.approx(shared, abs=1e-12)
    assert [sum(p for losers, p in outcomes.items() if s in losers) for s in (0, 1)] == pytest.approx(
        list(two.outcome().lose), abs=1e-12
    )


def turn_seats(pos: Position, by: int) -> Position:
    """The same position with every seat moved ``by`` places clockwise."""
    n = len(pos.tokens)
    tokens = tuple(pos.tokens[(s - by) % n] for s in range(n))
    active = tuple(pos.active[(s - by) % n] for s in range(n))
    debts = tuple(pos.debts[(s - by) % n] for s in range(len(pos.debts)))
    return replace(pos, tokens=tokens, active=active, leader=(pos.leader + by) % n, debts=debts)


def test_positions_alike_but_for_the_seats_have_the_same_values_turned():
    rules = Ruleset.preset("kytionnaire").with_options(pot=3)  # one manche: every seat is alike
    game = GameMaxn(rules, 3).solve()
    (solution,) = game.manches.values()
    model = game.model
    compared = 0
    for p, pos in enumerate(model.positions):
        for by in (1, 2):
            other = model.index.get(turn_seats(pos, by))
            if other is not None:
                compared += 1
                assert solution.values[other] == pytest.approx(turned(solution.values[p], by), abs=1e-12)
    assert compared > 0.9 * 2 * len(model.positions)  # all but the very start, led by seat 0


def test_the_chances_add_up():
    """Each seat's chance of being among the losers sums to 1 plus the chance of a shared loss."""
    game = small_game()
    summary = game.summary()
    assert sum(summary["lose"]) == pytest.approx(1 + summary["shared"], abs=1e-12)
    assert sum(summary["share"]) == pytest.approx(1, abs=1e-12)
    assert summary["converged"]
    assert summary["shared"] > 0.5  # two manches, three players: most games are shared
    for solution in game.manches.values():
        assert solution.ends.sum(axis=(1, 2)) == pytest.approx(1, abs=1e-12)
        # minus each seat's share, at every position: the shares of a game sum to 1
        assert solution.values.sum(axis=1) == pytest.approx(-1, abs=1e-12)
        assert solution.linear_gap < 1e-11
        assert solution.residual < 1e-11
    # the first leader of a charge in coups secs has no edge: the first round's loser is a fair draw
    assert summary["lose"] == pytest.approx([5 / 9] * 3, abs=1e-12)


def test_the_first_decharge_round_favours_the_leader():
    """What the solved manche says of a décharge: leading it is worth a lot, as with two players."""
    game = small_game()
    model = game.model
    last = game.manches[(2, (1, 0, 0))]  # the second manche, seat 0 lost the first
    ends = last.ends
    lead = model.index[Position(False, 0, (2, 1, 1), (True, True, True), 1)]
    follow = model.index[Position(False, 0, (2, 1, 1), (True, True, True), 2)]
    # seat 1 leading loses this manche less often than when seat 2 leads
    assert ends[lead, 1].sum() < ends[follow, 1].sum()


def test_accelerated_sweeps_find_the_value_iteration_values():
    model = Manche(SMALL.with_options(pot=3), 3)
    ends = np.zeros((3, 2, 3))
    ends[np.arange(3), :, np.arange(3)] = -1  # one manche: its loser loses
    plain = solve_manche(model, ends, accelerate=False)
    fast = solve_manche(model, ends)
    assert fast.sweeps < plain.sweeps
    assert fast.values == pytest.approx(plain.values, abs=1e-10)
    assert plain.linear_gap < 1e-10


@pytest.fixture
def rounds_solved(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Manche, int]]:
    """The rounds the solver solves from now on, in order: their manche and position."""
    solved: list[tuple[Manche, int]] = []
    solve_round = game_maxn.round_at

    def counted(manche: Manche, p: int, values: np.ndarray, keep: bool = False) -> game_maxn.RoundPlay:
        solved.append((manche, p))
        return solve_round(manche, p, values, keep)

    monkeypatch.setattr(game_maxn, "round_at", counted)
    return solved


class LedByAnother(Exception):
    """A round led by another seat than seat 0 was solved."""


@pytest.mark.parametrize(
    ("rules", "players"),
    # four players: pot=4 for décharges of four, turns of two throws in the charge for its choices
    [(Ruleset.preset("comptoir-21").with_options(pot=8), 3), (SMALL.with_options(charge_throws=2), 4)],
    ids=str,
)
def test_where_the_ends_are_alike_for_every_loser_one_round_of_each_kind_is_solved(
    monkeypatch, rounds_solved, rules, players
):
    """Positions alike but for the seats are worth the same, turned, where losing the manche costs
    every seat alike (a game of one manche, a manche nobody has lost yet): one round of each kind is
    solved and its value and moves turned to the others, the values those of solving every round."""
    model = Manche(rules, players)
    ends = np.zeros((players, 2, players))
    ends[np.arange(players), :, np.arange(players)] = -1
    ends[np.arange(players), 1, np.arange(players)] = -2  # an espagnole costs more, whoever loses
    by_kind = solve_manche(model, ends)
    first_only = {p for _, p in rounds_solved}
    rounds_solved.clear()
    turning = game_maxn._turning
    monkeypatch.setattr(game_maxn, "_turning", lambda *ends: False)
    every = solve_manche(model, ends)
    assert by_kind.sweeps == every.sweeps and by_kind.converged and every.converged
    assert by_kind.values == pytest.approx(every.values, abs=1e-12)
    assert by_kind.ends == pytest.approx(every.ends, abs=1e-12)
    # one round of each kind solved (led by seat 0 where the manche reaches it), against every round
    assert first_only == set(model.orbits) and {p for _, p in rounds_solved} == set(
        range(len(model.positions))
    )
    assert len(model.orbits) < len(model.positions) / (players - 0.5)
    assert all(model.positions[p].leader == 0 for p in first_only if len(model.orbits[p]) > 1)
    # a manche whose loser matters more for one seat is solved round by round: it solves a round led
    # by another seat than seat 0 (the solve stopped there, once that is seen)
    ends[0, :, 1] -= 0.5
    monkeypatch.setattr(game_maxn, "_turning", turning)
    solve = game_maxn.round_at

    def led_by_another(manche: Manche, p: int, values: np.ndarray, keep: bool = False) -> game_maxn.RoundPlay:
        if manche.positions[p].leader != 0:
            raise LedByAnother
        return solve(manche, p, values, keep)

    monkeypatch.setattr(game_maxn, "round_at", led_by_another)
    with pytest.raises(LedByAnother):
        solve_manche(model, ends)


@pytest.mark.parametrize("charge_throws", [1, 3], ids=["coups secs", "three throws"])
def test_a_manche_after_one_a_player_lost_is_solved_one_round_of_each_kind(
    monkeypatch, rounds_solved, charge_throws
):
    """The second manche is worth more to the others whoever loses it (the two losers share the
    game's loss unless the first manche's loser loses again), so its ends do not turn; each seat's
    shifted by a constant, they do, and each player compares only their own values: one round of each
    kind is solved, with the values, the chances of each end and the choices of every round solved."""
    rules = SMALL.with_options(charge_throws=charge_throws)
    game = GameMaxn(rules, 3)
    model = game.model
    # the second manche's ends, as the game solves them: the first manche's loser is seat 0
    ends = game.end_values(2, (1, 0, 0))
    assert ends[1, 0].tolist() == [-0.5, -0.5, 0.0] and ends[0, 0].tolist() == [-1.0, 0.0, 0.0]
    by_kind = solve_manche(model, ends)
    first_only = {p for _, p in rounds_solved}
    rounds_solved.clear()
    monkeypatch.setattr(game_maxn, "_shift_to_turn", lambda ends: None)
    every = solve_manche(model, ends)
    assert {p for _, p in rounds_solved} == set(range(len(model.positions)))
    assert first_only == set(model.orbits)
    assert by_kind.converged and every.converged
    assert by_kind.values == pytest.approx(every.values, abs=1e-12)
    assert by_kind.ends == pytest.approx(every.ends, abs=1e-12)
    assert all(game_maxn._same(by_kind.policies[p], every.policies[p]) for p in every.policies)
    # ends that no shift makes turn are solved round by round
    ends[0, :, 1] -= 0.25
    assert game_maxn._shift_to_turn(ends) is None


def test_a_manche_alike_one_solved_starts_from_its_policies_and_ends_where_its_own_sweeps_do(rounds_solved):
    """Each player compares only their own values: ends changed by a positive affine map per seat
    make the same manche, settled in one sweep from the other's policies, its charge making the
    other's choices without solving its rounds again, with the values the sweeps from nothing find."""
    model = Manche(SMALL.with_options(pot=3, charge_throws=3), 3)  # choices in the charge too

    def charges() -> list[bool]:
        """Whether each round solved since the last clear was the charge's."""
        return [manche.positions[p].charge for manche, p in rounds_solved]

    ends = np.zeros((3, 2, 3))
    ends[np.arange(3), :, np.arange(3)] = -1
    ends[0, 1, 0] = -2  # an espagnole costs seat 0 more
    first = solve_manche(model, ends)
    other = np.array([0.25, -1.0, 0.5]) + np.array([2.0, 0.5, 3.0]) * ends
    assert alike(ends, other) and not alike(ends, -other) and not alike(ends, other[::-1])
    cold = solve_manche(model, other)
    assert any(charges())
    rounds_solved.clear()
    warm = solve_manche(model, other, like=first.policies)
    assert charges() and not any(charges())  # the décharge swept once, no charge round solved
    assert warm.sweeps == 1 < cold.sweeps
    assert warm.values == pytest.approx(cold.values, abs=1e-12)
    assert warm.ends == pytest.approx(cold.ends, abs=1e-12)
    assert warm.residual < 1e-11
    unlike = ends.copy()
    unlike[..., 0] = -ends[..., 0]  # seat 0 would rather lose the manche: another game
    mistaken = solve_manche(model, unlike, like=first.policies)  # the décharge moves: the charge solved
    assert mistaken.values == pytest.approx(solve_manche(model, unlike).values, abs=1e-12)
    game = small_game()  # its first manche is the second solved, alike the last: one sweep
    assert [solution.sweeps for solution in game.manches.values()] == [game.manches[(2, (1, 0, 0))].sweeps, 1]


def test_a_decharge_whose_choices_come_back_stops_as_soon_as_they_do():
    """Made-up ends (each seat's value of each loser) under which this small manche's décharge does
    not settle: its last sweeps flip the same choices back and forth. Each sweep is valued exactly
    (policy iteration), so choices that come back would only go round again: the sweeps stop the
    first time they do (sweep 10 chose as sweep 8), where plain sweeps took over once the change
    shrank slowly and stopped one sweep later, once two sweeps in a row had come back."""
    model = Manche(Ruleset.preset("comptoir-21").with_options(pot=7), 3)
    ends = np.random.default_rng(25).random((3, 2, 3))
    said: list[str] = []
    solution = solve_manche(model, ends, lambda what, *_: said.append(what))
    assert solution.converged is False and said.count("unsettled") == 1
    assert solution.sweeps == 10 < game_maxn.STALL
    # what it stopped on is not settled: one more pass still moves a value about as much as a flip
    assert solution.residual == pytest.approx(solution.change, rel=0.01)
    assert solution.residual > 1e-4


def test_choices_that_come_back_while_the_values_settle_do_not_stop_the_sweeps(monkeypatch):
    """Were every sweep's choices those of two sweeps before and not of the one before, a décharge
    whose largest change still halves is swept until it settles, as ever."""
    model = Manche(SMALL.with_options(pot=3), 3)
    ends = np.zeros((3, 2, 3))
    ends[np.arange(3), :, np.arange(3)] = -1
    settled = solve_manche(model, ends, accelerate=False)
    calls = itertools.count()
    # the last sweep chose as two sweeps before, and so did the one before it, but not as each other
    monkeypatch.setattr(game_maxn, "_all_same", lambda moves, other: next(calls) % 3 != 2)
    flipping = solve_manche(model, ends, accelerate=False)
    assert flipping.converged and flipping.sweeps == settled.sweeps > 4
    assert flipping.values == pytest.approx(settled.values, abs=1e-12)


@pytest.mark.parametrize("rules", [SMALL.with_options(pot=3), QUEUE], ids=["classic-11", "queue"])
def test_a_cached_solve_is_the_fresh_one(tmp_path, rules):
    fresh, cached = solve_maxn_cached(rules, 3, folder=tmp_path)
    assert not cached
    again, cached = solve_maxn_cached(rules, 3, folder=tmp_path)
    assert cached
    assert again.manches.keys() == fresh.manches.keys()
    for key, solution in fresh.manches.items():
        assert np.array_equal(again.manches[key].values, solution.values)
        assert np.array_equal(again.manches[key].ends, solution.ends)
        assert again.manches[key].sweeps == solution.sweeps
        assert again.manches[key].converged == solution.converged
    assert again.summary()["lose"] == fresh.summary()["lose"]
    assert again.summary()["shared"] == fresh.summary()["shared"]  # the first manche's debts, read back


@pytest.mark.parametrize("rules", [SMALL.with_options(pot=3), QUEUE], ids=["classic-11", "queue"])
def test_groups_too_large_for_a_dense_solve_are_solved_sparse_to_the_same_game(monkeypatch, rules):
    """Four-player vache-41's last décharge (48,064 positions) would need an 18 GB matrix: a group of rows
    over the dense limit is solved sparse, here every group (the limit at nothing), décharges after
    each debt and how each position ends included, with the dense solve's values, ends and choices."""
    dense = GameMaxn(rules, 3).solve()
    from scipy.sparse import linalg

    sizes: list[int] = []
    bicgstab = linalg.bicgstab

    def sparse(system: Any, *args: Any, **kwargs: Any) -> Any:
        sizes.append(system.shape[0])
        return bicgstab(system, *args, **kwargs)

    monkeypatch.setattr(game_maxn, "SPARSE_ROWS", 0)
    monkeypatch.setattr(linalg, "bicgstab", sparse)
    solved = GameMaxn(rules, 3).solve()
    assert max(sizes) >= 15  # the décharges, not only small levels
    assert solved.manches.keys() == dense.manches.keys()
    for key, solution in dense.manches.items():
        other = solved.manches[key]
        assert other.converged == solution.converged
        assert other.values == pytest.approx(solution.values, abs=1e-12)
        assert other.ends == pytest.approx(solution.ends, abs=1e-12)
        if solution.owing is not None:
            assert other.owing == pytest.approx(solution.owing, abs=1e-12)
        assert all(game_maxn._same(other.policies[p], where) for p, where in solution.policies.items())
    assert solved.summary()["lose"] == pytest.approx(dense.summary()["lose"], abs=1e-12)


def test_a_sparse_solve_short_of_its_precision_gives_no_values(monkeypatch):
    """Iterations that stop before the residual reaches what is promised refuse the game, in the player's
    words, rather than hand out values that are not the game's (here 1e-30)."""
    monkeypatch.setattr(game_maxn, "SPARSE_ROWS", 0)
    monkeypatch.setattr(game_maxn, "SPARSE_ITERATIONS", 1)
    monkeypatch.setattr(game_maxn, "SPARSE_RESIDUAL", 1e-30)
    with pytest.raises(UnsolvedSystem) as raised:
        GameMaxn(SMALL.with_options(pot=3), 3).solve()
    assert raised.value.message is not None
    english, french = (error_text(lang, raised.value) for lang in ("en", "fr"))
    assert "above the 1e-30 the solver promises: its values are not given" in english
    assert "au-dessus du 1e-30 que promet le solveur" in french


@pytest.mark.parametrize(
    ("preset", "options", "players", "why"),
    [
        (
            "vache-41",
            {"queue_de_la_vache": True, "manches": 3},
            3,
            "queue de la vache » is solved whole in a game of two",
        ),
        ("vache-41", {"pot": 45}, 4, "about 69,184 positions of 4 players"),
        # solved again for each debt: hours at three (111,069), a day at four
        ("vache-41", {"queue_de_la_vache": True}, 4, "each debt the charge may leave: about 2,172,016"),
        (
            "lyonnaise-21",
            {"pot": 2, "initial_tokens": 0},
            5,
            "accumulated stakes are in the model at 4 players at most, not 5",
        ),
        ("engranjeu-21", {"pot": 7}, 4, "« qui barre démarre » is solved whole for 3 players at most"),
        ("tim", {}, 3, "not played by 3"),
        ("classic-11", {}, 6, "2 to 5 players"),
        ("comptoir-21", {"pot": 50}, 4, "about 93,704 positions of 4 players"),  # hours to solve
        # each manche told apart by who lost the ones before: 161,701 of them, days to solve
        ("classic-11", {"manches": 99}, 3, "with 99 manches the game solves at least 472 of them"),
        ("vache-41", {"manches": 7}, 3, "at least 113,778 décharge positions, more than the 110,000"),
    ],
)
def test_rules_outside_the_model_are_refused(preset, options, players, why):
    rules = Ruleset.preset(preset).with_options(**options)
    reason = unsupported(rules, players)
    assert reason is not None and why in str(reason)
    with pytest.raises((InvalidRuleset, InvalidPlayers), match=why):
        GameMaxn(rules, players)


@pytest.mark.parametrize(
    ("preset", "seats"),
    [
        ("classic-11", (3, 4, 5)),
        ("kytionnaire", (3, 4, 5)),
        ("comptoir-21", (3, 4)),
        ("lyonnaise-21", (3, 4)),
        ("vache-41", (3,)),
    ],
)
def test_the_presets_for_three_to_five_are_in_the_model(preset, seats):
    for players in seats:
        assert unsupported(Ruleset.preset(preset), players) is None


def test_games_of_more_manches_are_in_the_model_while_their_positions_are_few():
    """Ten manches of classic-11 at three (166 manches to solve, minutes) and six of vache-41 (36)."""
    assert unsupported(Ruleset.preset("classic-11").with_options(manches=10), 3) is None
    assert unsupported(Ruleset.preset("vache-41").with_options(manches=6), 3) is None
    assert unsupported(Ruleset.preset("vache-41"), 4) is None  # 2 manches of 52,976 positions


# -- every engine state, walked -----------------------------------------------------------------


Key = tuple[object, ...] | str


def engine_key(state: State) -> Key:
    """Where a walk stops: a round's start (by what decides the rest), a tie-break's, the end."""
    r = state.round
    if state.phase is Phase.OVER:
        assert state.outcome is not None
        return ("over", state.outcome.losers)
    assert state.draw is None, "the walk's rules draw nobody outside rounds"
    if r is not None and r.tie is not None:
        thrown = r.tie.draw.thrown
        if staking(state):  # a stake from the pot up takes the pot: a rampot tied again comes back
            r = replace(r, stake=min(r.stake, stake_cap(state)))
        if r.tie is not None and r.tie.awaiting_stake:  # « main chaude »: the replays before do not count
            r = replace(r, tie=replace(r.tie, replays=2, amount=None))
        return "" if thrown else position_text(replace(state, round=r))  # a replay tied again comes back
    if r is not None and not r.done and r.throws == 0:
        return (
            state.phase,
            state.manche,
            state.pot,
            state.tokens,
            state.active,
            state.manche_losses,
            r.order,
            owed(state),
        )
    return ""  # inside a round or a tie-break: walked through


def carrying(node: State) -> bool:
    """Whether a debt left in this manche is taken from the next one's pot (« queue de la vache »)."""
    return node.rules.queue_de_la_vache and node.manche < node.rules.manches


def owed(state: State) -> tuple[int, ...]:
    """The debts that count: up to one pot each, carried into the next manche (none in the last)."""
    return tuple(min(d, state.rules.pot) for d in state.debts) if carrying(state) else ()


def stake_cap(node: State) -> int:
    """The largest stake that counts: the pot left, and one pot more that a debt may carry."""
    return node.pot + (node.rules.pot if carrying(node) else 0)


def settled(child: State, node: State) -> tuple[object, ...]:
    """How a round (or tie-break) that started at ``node`` ended in ``child``, by place in the round.

    From a round's start: who lost, who won and for how much, or the tie-break
    it led to (with the round's results, which the tie-break's state holds).
    From a tie-break's: who lost and who won, or the tie-break it led to.
    """
    r = node.round
    assert r is not None
    place = {s: i for i, s in enumerate(r.order)}
    exact = r.tie is None or staking(node)  # a rampot adds to an accumulated stake
    vient = r.tie is not None and r.tie.vient  # « main chaude »: the replay sets the amount
    for e in child.events:
        if isinstance(e, RoundDecided):
            decided = ("decided", tuple(sorted(place[s] for s in e.losers)), place.get(e.winner, -1))
            amount = min(e.amount, stake_cap(node)) if staking(node) else e.amount  # the pot at most is taken
            return decided + ((amount,) if exact or vient else ())
    assert child.round is not None and child.round.tie is not None
    tie = child.round.tie
    found: tuple[object, ...] = ("tie", tuple(place[s] for s in tie.worst), tuple(place[s] for s in tie.best))
    found += (tie.draw.purpose, tuple(place[s] for s in tie.draw.seats))
    if staking(node):  # the tie-break's future: who is tied, and the stake (the results say no more)
        return (*found, min(child.round.stake, stake_cap(node)), penalised(child))
    if not exact:
        return (*found, child.round.tie.amount)  # an amount a replay set « pour ce qui vient »
    # what the results already final say of the tie-break's future: what each is worth, and which are
    # nénettes (walked from one sequence of dice of each class, its tie-break stands for the others')
    values = child.rules.table.values
    return (*found, tuple((place[d.seat], values[d.result], d.result == NENETTE) for d in child.round.done))


def pattern(node: State) -> tuple[object, ...]:
    """What the chances of how a round or tie-break ends depend on: its phase and its players' places."""
    r = node.round
    assert r is not None
    if r.tie is None:  # where stakes accumulate, the pot caps what is taken
        return ("round", node.phase, len(r.order)) + ((node.pot, stake_cap(node)) if staking(node) else ())
    place = {s: i for i, s in enumerate(r.order)}
    tie = r.tie
    seats = tuple(place[s] for s in tie.draw.seats)
    found = ("tie", node.phase, tuple(place[s] for s in tie.worst), tuple(place[s] for s in tie.best), seats)
    return (
        found
        + (
            (node.pot, stake_cap(node), min(r.stake, stake_cap(node)), penalised(node))
            if staking(node)
            else ()
        )
        + (tie.vient,)
    )


def staking(node: State) -> bool:
    """Whether every throw of the round at ``node`` adds to its stake."""
    return node.rules.accumulated_stakes and node.phase is Phase.CHARGE


def penalised(node: State) -> bool:
    """Whether the players tied for the worst at ``node`` hold nénettes under a nénette penalty: its
    loser then takes the penalty, whatever the rampots add to the stake."""
    r = node.round
    assert r is not None and r.tie is not None
    worst = [d.result for d in r.done if d.seat in r.tie.worst]
    return bool(node.rules.nenette_penalty) and NENETTE in worst


Dice = tuple[tuple[int, ...], ...]  # one throw's faces after another
Ends = dict[tuple[object, ...], tuple[float, Dice]]  # how it ends -> its chance, dice that give it
Outcomes = list[tuple[Result, tuple[int, ...], float]]  # each throw's result, its dice and its chance


def endings(node: State, memo: dict[Dice, State] | None = None) -> Ends:
    """Every way a round of coups secs (or a tie-break) from ``node`` ends: its chance, dice that give it.

    Sequences of results are classed by how the results compare, what they are
    worth and, where some are equal, which they are (a tie-break's state holds
    them); the engine plays the first and the last sequence of each class,
    which must end the same way. (The classes depend only on the results'
    worth and the number of throwers, the pot left where stakes accumulate:
    found once for all the rounds alike in that, played from each round, the
    states the dice reach kept in ``memo``.)
    """
    r = node.round
    assert r is not None and node.to_move is None
    throwers = len(r.order) if r.tie is None else len(r.tie.draw.seats)
    table = node.rules.table
    outcomes = [(Result.of(faces), faces, float(p)) for faces, p in throw_outcomes(3)]
    facts = tuple((table.strength(res), table.values[res], res == NENETTE) for res, _, _ in outcomes)
    chances = tuple(p for _, _, p in outcomes)
    if staking(node) and len(node.tokens) > 3:
        cap = node.pot - min(r.stake, node.pot)
        return ends_of(
            node, outcomes, staked_classes(facts, chances, throwers, cap), {} if memo is None else memo
        )
    return ends_of(node, outcomes, sequence_classes(facts, chances, throwers), {} if memo is None else memo)


Facts = tuple[tuple[int, int, bool], ...]  # each throw's result: its strength, its value, whether a nénette
Classes = list[tuple[float, list[tuple[int, ...]]]]  # each class's chance, sequences of it to play


@cache
def sequence_classes(facts: Facts, chances: tuple[float, ...], throwers: int) -> Classes:
    """The classes of :func:`endings`' sequences of results, each with its first and last sequence."""
    # every sequence at once, in the order itertools.product gives them (the last thrower's fastest)
    combos = np.indices((len(facts),) * throwers).reshape(throwers, -1)
    strength, value, nenette = (np.array(column)[combos] for column in zip(*facts, strict=True))
    # the class as one number, column by column: how each pair compares, what each result is worth
    # and whether it is a nénette, and which result it is where another thrower has it too
    columns = [
        (np.sign(strength[a] - strength[b]) + 1, 3) for a, b in itertools.combinations(range(throwers), 2)
    ]
    columns += [(part[i], int(part.max()) + 1) for i in range(throwers) for part in (value, nenette)]
    for i in range(throwers):
        repeated = sum(combos[j] == combos[i] for j in range(throwers)) > 1
        columns.append((np.where(repeated, combos[i] + 1, 0), len(facts) + 1))
    key = np.zeros(combos.shape[1], np.int64)
    for column, radix in columns:
        key = key * radix + column
    _, first, kind = np.unique(key, return_index=True, return_inverse=True)
    each = np.array(chances)
    found = each[combos[0]]
    for i in range(1, throwers):  # multiplied from the first thrower on
        found = found * each[combos[i]]
    total = np.bincount(kind, weights=found)  # summed in the sequences' order
    last = np.zeros(len(first), np.intp)
    np.maximum.at(last, kind, np.arange(combos.shape[1]))
    return [  # by their first sequence, as met in that order
        (
            float(total[k]),
            [tuple(int(c) for c in combos[:, first[k]]), tuple(int(c) for c in combos[:, last[k]])],
        )
        for k in np.argsort(first)
    ]


def thrown(node: State, dice: Dice, memo: dict[Dice, State]) -> State:
    """The engine's state once ``dice`` are thrown from ``node``: each throw played by the engine,
    once for every sequence of dice before it (``memo``, kept for ``node`` alone)."""
    if not dice:
        return node
    found = memo.get(dice)
    if found is None:
        found = memo[dice] = thrown(node, dice[:-1], memo).apply_dice(dice[-1])
    return found


def ends_of(node: State, outcomes: Outcomes, classes: Classes, memo: dict[Dice, State]) -> Ends:
    """How the classes of sequences of results from ``node`` end: each class's chance, and sequences
    of it (indices in ``outcomes``) that the engine plays, which must all end alike (the first's
    dice are kept; the states the dice reach are kept in ``memo``)."""
    ends: Ends = {}
    for chance, sequences in classes:
        seen = set()
        for combo in sequences:
            child = thrown(node, tuple(outcomes[c][1] for c in combo), memo)
            seen.add(settled(child, node))
        assert len(seen) == 1, seen
        end = seen.pop()
        dice = ends[end][1] if end in ends else tuple(outcomes[c][1] for c in sequences[0])
        ends[end] = (ends.get(end, (0.0, dice))[0] + chance, dice)
    return ends


MEMBERS = 8  # sequences of each class played through the engine, beside its first and its last


@cache
def staked_classes(facts: Facts, chances: tuple[float, ...], throwers: int, cap: int) -> Classes:
    """:func:`endings`' classes for a charge round (or its rampot) of four players, every throw adding
    to the stake, with ``cap`` tokens left in the pot beyond the stake so far.

    The 56**4 sequences of four are too many to class one by one as three are,
    and where stakes accumulate the round's future says no more than who is tied
    for the worst result and the stake. So they are classed, with numpy, by who
    holds the worst and the best result, which are nénettes, and the sum and the
    largest of the values from the stake so far up to the pot; the engine plays
    the first, the last and :data:`MEMBERS` more of each class (spread over it),
    which must all end the same way.
    """
    fine, order, starts, total = staked_sequences(facts, chances, throwers)
    # the classes of the pot left: the sequences' finer classes merged where they sum to it or more
    bits = fine % (1 << 3 * throwers)
    worth = fine >> 3 * throwers
    most = int(max(value for _, value, _ in facts)) + 1
    key = np.minimum(worth // most, cap) * (cap + 1) + np.minimum(worth % most, cap)
    _, kind = np.unique(key * (1 << 3 * throwers) + bits, return_inverse=True)
    stops = [*starts[1:], order.size]
    classes = []
    for k in range(int(kind.max()) + 1):
        merged = np.flatnonzero(kind == k)
        members = np.concatenate([order[starts[f] : stops[f]] for f in merged])
        picked = members[np.linspace(0, len(members) - 1, MEMBERS + 2).astype(np.intp)]
        combos = np.array(np.unravel_index(picked, (len(facts),) * throwers))
        classes.append(
            (float(total[merged].sum()), [tuple(int(c) for c in combos[:, m]) for m in range(len(picked))])
        )
    return classes


@cache
def staked_sequences(
    facts: Facts, chances: tuple[float, ...], throwers: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`staked_classes`' sequences of results in finer classes, whatever the pot left: by the
    sum and the largest of their values, who holds the worst and the best result and which are
    nénettes. Returns each finer class's key, the sequences (as indices in ``itertools.product``'s
    order) class by class, where each class starts among them, and each class's chance."""
    strength, value, nenette = (np.array(column, dtype=np.int16) for column in zip(*facts, strict=True))
    combos = np.indices((len(facts),) * throwers, dtype=np.uint8).reshape(throwers, -1)
    strengths = strength[combos]
    worst, best = strengths == strengths.min(axis=0), strengths == strengths.max(axis=0)
    values = value[combos]
    key = values.sum(axis=0, dtype=np.int32) * (int(value.max()) + 1)
    key += values.max(axis=0)  # a few thousand kinds: 32 bits sort faster
    for i in range(throwers):
        key = ((key * 2 + worst[i]) * 2 + best[i]) * 2 + nenette[combos[i]]
    found = np.prod(np.array(chances)[combos], axis=0)
    by_kind = np.argsort(key)
    sorted_keys = key[by_kind]
    starts = np.flatnonzero(np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1])))
    return sorted_keys[starts], by_kind, starts, np.add.reduceat(found[by_kind], starts)


Choose = Callable[[State], Stake]  # a « main chaude » stake at a state awaiting it
# the values, the states, where a tie-break leads, and how rounds and tie-breaks alike end
Walk = tuple[
    dict[Key, np.ndarray],
    dict[Key, State],
    Callable[[State, Key], dict[Key, tuple[float, State]]],
    dict[tuple[object, ...], Ends],
]


def engine_values(rules: Ruleset, players: int, choose: Choose | None = None) -> Walk:
    """Minus each seat's expected share of the loss at every round start the engine reaches.

    From every round start, each way the round ends is played through the
    engine (:func:`endings`, whose chances are found once for rounds alike but
    for the tokens and seats) to the next round start or the end; a tie-break
    is followed to the rounds it settles, a replay that ties again counted
    geometrically, « main chaude »'s stakes as ``choose`` says. The values then
    solve the linear equations those chances make (there is nothing else to
    choose in coups secs). Also returns the states, where a tie-break leads and the endings found.
    """
    start = new_game(rules, [f"P{i}" for i in range(players)])
    first = engine_key(start)
    known: dict[tuple[object, ...], Ends] = {}
    ties: dict[Key, dict[Key, tuple[float, State]]] = {}

    def leads(node: State, key: Key) -> dict[Key, tuple[float, State]]:
        """The round starts (or the end) ``node`` leads to, with their chances and engine states."""
        if key in ties:
            return ties[key]
        r = node.round
        if r is not None and r.tie is not None and r.tie.awaiting_stake:
            assert choose is not None, "a stake to choose"
            node = node.apply(ChooseStake(choose(node)))
        kind = pattern(node)
        memo: dict[Dice, State] = {}
        if kind not in known:
            known[kind] = endings(node, memo)
        found: dict[Key, tuple[float, State]] = {}
        for end, (p, dice) in known[kind].items():
            child = thrown(node, dice, memo)
            assert settled(child, node) == end  # the same ending here, played by the engine
            after = engine_key(child)
            found[after] = (found.get(after, (0.0, child))[0] + p, child)
        again = found.pop(key, (0.0, node))[0]  # a tie-break tied again: it starts over
        out: dict[Key, tuple[float, State]] = {}
        for after, (p, child) in found.items():
            nexts = leads(child, after) if isinstance(after, str) else {after: (1.0, child)}
            for last, (q, state) in nexts.items():
                out[last] = (out.get(last, (0.0, state))[0] + p * q / (1 - again), state)
        if isinstance(key, str):
            ties[key] = out
        return out

    chances: dict[Key, dict[Key, float]] = {}
    states: dict[Key, State] = {first: start}
    todo = [first]
    while todo:
        key = todo.pop()
        state = states[key]
        chances[key] = {}
        if state.phase is Phase.OVER:
            continue
        for after, (p, child) in leads(state, key).items():
            chances[key][after] = p
            if after not in states:
                states[after] = child
                todo.append(after)
    keys = list(states)
    index = {k: i for i, k in enumerate(keys)}
    moves = np.zeros((len(keys), len(keys)))
    ends = np.zeros((len(keys), players))
    for key, found in chances.items():
        if isinstance(key, tuple) and key[0] == "over":
            losers = key[1]
            assert isinstance(losers, tuple)
            ends[index[key], list(losers)] = -1 / len(losers)
        for after, p in found.items():
            moves[index[key], index[after]] += p
    values = np.linalg.solve(np.eye(len(keys)) - moves, ends)
    return {k: values[i] for k, i in index.items()}, states, leads, known


# Simple results, suites and nénettes are worth 2: the charge leaves at most two players holding
# tokens, so the décharge is played by two (a round of three would hold thousands of tie-break
# states), and a winner holding 3 gives 2 back: tokens go back and forth.
WORTH_TWO = {
    "pot": 4,
    "decharge_throws": 1,
    "le_bon": False,
    "value_simple": 2,
    "value_suite": 2,
    "value_nenette": 2,
}

WALKED: dict[str, tuple[str, dict[str, object], int]] = {
    "classic-11": ("classic-11", {**WORTH_TWO, "tied_losers_all_take": True}, 3),
    # Every coup sec of the charge adds its value to the stake, and so does the best of each rampot
    # between players tied for the worst; a round of three coups secs is worth at least 3: the
    # charge leaves at most two players holding tokens.
    "lyonnaise-21": ("lyonnaise-21", {**COUPS_SECS, "pot": 4}, 3),
    # Four players: a charge round of four coups secs is worth at least 4 and takes 4 of the 5 tokens;
    # its rampots between two, three or all four players tied for the worst add to the stake.
    "lyonnaise-21-four": ("lyonnaise-21", {**COUPS_SECS, "pot": 5}, 4),
    # A loser holding nénette takes 1 token, whatever the stake: a round of three takes 1 or 3 to 4.
    "staked-nenette": ("lyonnaise-21", {**COUPS_SECS, "pot": 4, "nenette_penalty": 1}, 3),
    # A double nénette goes to the later thrower, in the round and in the rampots (replayed from the
    # last tied player, then in order), every rampot adding to the stake.
    "staked-later-nenette": (
        "lyonnaise-21",
        {**COUPS_SECS, "pot": 4, "nenette_last_wins": True, "tie_break": "last_player_first"},
        3,
    ),
    # A double nénette goes to the later thrower, in the round and in the tie-breaks' replays (from
    # the last tied player, then in order: seed 003's), so the first to throw loses more often.
    "later-nenette": (
        "classic-11",
        {**WORTH_TWO, "nenette_last_wins": True, "tie_break": "last_player_first"},
        3,
    ),
    # « Qui barre démarre »: tie-breaks replayed from the last tied player, counter-clockwise; a replay
    # tied again lets its first thrower choose « est » or « vient », with values deducted, the later
    # nénette winning and l'Espagnole losing the game.
    "main-chaude": ("engranjeu-21", {**WORTH_TWO, "pot": 3}, 3),
    # The same with accumulated stakes: every coup sec of the charge adds its value to the stake, and
    # so does the best of each replay; « est » settles for the stake when the tie-break ends,
    # « vient » for what the replay after it sets. A nénette worth 1 keeps a stake below the pot of 5
    # (three nénettes: 3; two tied for the worst beside a simple: 4, a rampot adding to it);
    # « main chaude » is met in the charge and in décharges of three.
    "staked-main-chaude": (
        "engranjeu-21",
        {**WORTH_TWO, "accumulated_stakes": True, "pot": 5, "value_nenette": 1},
        3,
    ),
    # « Queue de la vache »: the first manche's décharge played once for each debt its charge may
    # leave, its end worth the second manche started with that debt paid (:data:`QUEUE`).
    "queue": ("vache-41", {**COUPS_SECS, "pot": 4, "queue_de_la_vache": True}, 3),
}


@pytest.mark.parametrize("walked", list(WALKED))
def test_every_engine_state_walked_agrees_with_the_game_solver(walked):
    """Three players (four with accumulated stakes) and a few tokens in coups secs, two manches
    (:data:`WALKED`).

    The charge, l'Espagnole, the décharge's cycles and tie-breaks, the second
    manche led by the first one's loser and the game's end are all the
    engine's; the solver's value of every position of every manche matches
    the engine's at every round start walked, to 1e-9.
    """
    preset, options, players = WALKED[walked]
    rules = Ruleset.preset(preset).with_options(**options)
    game = GameMaxn(rules, players).solve()
    chosen: dict[Key, tuple[State, Stake]] = {}

    def choose(state: State) -> Stake:
        action = game.action(state)
        assert isinstance(action, ChooseStake)
        chosen[engine_key(state)] = (state, action.stake)
        return action.stake

    walk = engine_values(rules, players, choose)
    values, states, _, _ = walk
    compared = set()
    for key, state in states.items():
        if not isinstance(key, tuple) or key[0] == "over":
            continue
        r = state.round
        assert r is not None
        frame = 0 if state.manche == 1 else state.manche_losers[-1]  # who led the manche's first round
        debts = () if state.phase is Phase.CHARGE else owed(state)  # the debts owed through the décharge
        at = Position(state.phase is Phase.CHARGE, state.pot, state.tokens, state.active, r.order[0], debts)
        turned_at = turn_seats(at, -frame)
        lost = tuple(state.manche_losses[(s + frame) % players] for s in range(players))
        model, solution = game.model_of((state.manche, lost)), game.manches[(state.manche, lost)]
        p = model.index[turned_at]
        assert values[key] == pytest.approx(turned(solution.values[p], frame), abs=1e-9)
        found, q, seen_from = game.locate(state)  # as the bot finds it
        assert turned(game.manches[found].values[q], seen_from) == pytest.approx(values[key], abs=1e-9)
        compared.add((state.manche, lost, p))
    # every position of the solve
    assert len(compared) == sum(len(game.model_of(key).positions) for key in game.manches)
    if rules.queue_de_la_vache:  # décharges owing a debt
        assert any(owed(state) for state in states.values() if state.phase is Phase.DECHARGE)
    assert any(pos.charge for pos in game.model.positions) and any(
        not pos.charge and pos.tokens.count(0) == players - 2 for pos in game.model.positions
    )
    if rules.accumulated_stakes:  # a rampot of every player, adding to the stake
        every = set(itertools.permutations(range(players)))
        assert any(kind[0] == "tie" and kind[4] in every for kind in walk[3])
    assert bool(chosen) == rules.main_chaude
    # each stake worth to its chooser what the solver says, at one « main chaude » in eight (thousands)
    for state, stake in [chosen[key] for key in sorted(chosen, key=str)[::8]]:
        walked_stakes = {s: stake_value(state, s, walk)[state.to_move] for s in ("est", "vient")}
        assert game.stake_values(state) == pytest.approx(walked_stakes, abs=1e-9)
        assert walked_stakes[stake] >= max(walked_stakes.values()) - 1e-12  # and the better one is played
    if rules.main_chaude:  # both are played somewhere
        assert {stake for _, stake in chosen.values()} == {"est", "vient"}


def stake_value(state: State, stake: Stake, walk: Walk) -> Any:
    """Every seat's value of playing ``stake`` at ``state``, the stakes chosen as walked afterwards."""
    values, _, leads, known = walk
    node = state.apply(ChooseStake(stake))
    total = np.zeros(len(state.tokens))
    kind = pattern(node)
    memo: dict[Dice, State] = {}
    if kind not in known:
        known[kind] = endings(node, memo)
    for p, dice in known[kind].values():
        child = thrown(node, dice, memo)
        after = engine_key(child)
        if isinstance(after, tuple):
            total += p * values[after]
        else:  # a tie-break again: where its replays lead
            total += p * sum(q * values[k] for k, (q, _) in leads(child, after).items())
    return total


# -- the solved game, played -------------------------------------------------------------------


def solved_here(rules: Ruleset, players: int, shared: Path) -> None:
    """Put the solved game in this test's data folder: solved once in ``shared`` (the others wait)."""
    shared.mkdir(exist_ok=True)
    solve_maxn_cached(rules, players, folder=shared)
    here = data_dir() / "solver"
    here.mkdir(parents=True, exist_ok=True)
    shutil.copy(located(maxn_cache_path(rules, players, shared)), here)  # solved there, or came with py421


def seat_rates(levels: tuple[str, ...], games: int, seed: int = 0) -> list[dict[str, Any]]:
    sim = Simulation(Ruleset.preset("classic-11"), levels, games, seed)
    seats: list[dict[str, Any]] = Summary(sim, run(sim, workers=1)).to_dict()["seats"]
    return seats


def interval(seat: dict[str, Any], games: int, z: float = 2.576) -> tuple[float, float]:
    return wilson(seat["losses"], games, z)


def test_the_solved_game_of_three_plays_as_solved_and_beats_round_by_round_play(shared_solutions):
    """Three players of classic-11, played by the fast simulator (first seats rotating).

    With bot:optimal in every seat, each seat is among the losers as often as
    the solver says, within 4 standard errors, and so are « grand perdant »
    and the shared losses. Against two heuristic bots it loses significantly
    less often than the optimal bot playing round by round did (99 % intervals
    apart), and against two of those it loses less often than each of them.
    """
    rules = Ruleset.preset("classic-11")
    solved_here(rules, 3, shared_solutions)
    summary = solved_game(rules, 3).summary()
    games = 60_000
    sim = Simulation(rules, ("optimal",) * 3, games)
    data = Summary(sim, run(sim, workers=1)).to_dict()
    expected = float(np.mean(summary["lose_by_position"]))  # first seats rotate
    for seat in data["seats"]:
        assert abs(seat["loss_rate"] - expected) < 4 * (expected * (1 - expected) / games) ** 0.5
    alone = float(np.sum(summary["lose_alone"]))
    for said, counted in (
        (alone, data["outcomes"]["grand_perdant"]),
        (summary["shared"], data["outcomes"]["shared"]),
    ):
        assert abs(counted / games - said) < 4 * (said * (1 - said) / games) ** 0.5
    many = 100_000  # the two rates are 0.011 apart, each 99 % interval ±0.0041 wide
    game_level = seat_rates(("optimal", "heuristic", "heuristic"), many)
    round_level = seat_rates((ROUNDS_LEVEL, "heuristic", "heuristic"), many)
    print("among the losers against two heuristic bots, game level / round level:")
    print(f"  {interval(game_level[0], many)} / {interval(round_level[0], many)}")
    assert interval(game_level[0], many)[1] < interval(round_level[0], many)[0]
    assert all(interval(game_level[0], many)[1] < interval(other, many)[0] for other in game_level[1:])
    fewer = 30_000  # 0.02 apart, each interval ±0.0075
    against = seat_rates(("optimal", ROUNDS_LEVEL, ROUNDS_LEVEL), fewer)
    print("against two round-level bots:", [interval(seat, fewer) for seat in against])
    assert all(interval(against[0], fewer)[1] < interval(other, fewer)[0] for other in against[1:])


@pytest.mark.parametrize(
    ("preset", "options", "why"),
    [
        ("engranjeu-21", {"pot": 4}, "« qui barre démarre »"),
        ("engranjeu-21", {"pot": 4, "accumulated_stakes": True}, "« qui barre démarre »"),
        # turns of three throws, the first manche's décharge played for the debt its charge left
        ("vache-41", {"pot": 4, "queue_de_la_vache": True}, "« queue de la vache »"),
    ],
    ids=["qui-barre", "qui-barre-staked", "queue"],
)
def test_the_solved_game_of_three_played_by_the_engine_plays_as_solved(
    shared_solutions, preset, options, why
):
    """engranjeu-21 with a few tokens (and with accumulated stakes), vache-41 with a few tokens and
    « queue de la vache »: bot:optimal in every seat played through the engine (the fast simulator's
    kernel holds neither « qui barre démarre »'s whole game nor the debts), each seat, the first
    player and the shared losses as the solver says, within 4 standard errors (first seats
    rotating)."""
    rules = Ruleset.preset(preset).with_options(**options)
    solved_here(rules, 3, shared_solutions)
    summary = solved_game(rules, 3).summary()
    games = 5_000  # 4 standard errors: about 0.027 at these rates (1/3 to 0.43), 0.026 for the shared
    sim = Simulation(rules, ("optimal",) * 3, games)
    assert not sim.compiled and sim.engine_levels == ("optimal",)
    with pytest.raises(InvalidRuleset, match=why):
        MaxnTables(rules, 3)
    played_as_solved(summary, Summary(sim, run(sim, workers=1)).to_dict(), games)


@pytest.mark.parametrize(
    ("players", "pot", "games"),
    [
        # the fast simulator's kernel (stakes pass a pot of 7 as they pass 9's, solved in half the time)
        (3, 7, 20_000),
        # the third player's choices worked out by the kernel, stake by stake (4 standard errors: 0.028
        # at its rates of 0.40 to 0.46, 0.021 for the shared)
        (4, 6, 5_000),
    ],
)
def test_the_solved_game_with_accumulated_stakes_plays_as_solved(shared_solutions, players, pot, games):
    """lyonnaise-21 with a few tokens, played by the simulator with bot:optimal in every seat (first
    seats rotating): each seat is among the losers as often as the solver says, within 4 standard
    errors, and so are the first player and the shared losses."""
    rules = Ruleset.preset("lyonnaise-21").with_options(pot=pot)
    solved_here(rules, players, shared_solutions)
    summary = solved_game(rules, players).summary()
    sim = Simulation(rules, ("optimal",) * players, games)
    assert sim.compiled
    played_as_solved(summary, Summary(sim, run(sim, workers=1)).to_dict(), games)
    assert max(summary["lose_by_position"]) - min(summary["lose_by_position"]) > 0.005  # seats differ


def played_as_solved(summary: dict[str, Any], data: dict[str, Any], games: int) -> None:
    """Each seat (first seats rotating), the first player and the shared losses of ``games``
    simulated are as the solver's ``summary`` says, within 4 standard errors."""

    def near(found: float, expected: float) -> bool:
        return bool(abs(found - expected) <= 4 * (expected * (1 - expected) / games) ** 0.5)  # 0 if never

    expected = float(np.mean(summary["lose_by_position"]))
    assert all(near(seat["loss_rate"], expected) for seat in data["seats"])
    assert near(data["first_player"]["loss_rate"], summary["lose_by_position"][0])
    assert near(data["outcomes"]["shared"] / games, summary["shared"])


KEY = batch_key(2026, 0)


@pytest.mark.parametrize(
    ("preset", "options", "levels", "games"),
    [
        # three throws in the décharge, the leader's limit, two manches
        ("classic-11", {"pot": 4}, ("optimal", "heuristic", "optimal"), 30),
        ("classic-11", {"pot": 4, "leader_limit": False}, ("optimal", "optimal", "random"), 20),
        # the décharge's leader drawn by coups secs; one manche, the first out named
        ("kytionnaire", {"pot": 4}, ("random", "optimal", "optimal"), 20),
        # the first player drawn, every tied loser taking, the nénette penalty; beside round-level play
        ("comptoir-21", {"pot": 4}, ("optimal", ROUNDS_LEVEL, "optimal"), 20),
        # four players choosing in the charge: the third and the fourth worked out by the kernel
        ("classic-11", {"pot": 2, "charge_throws": 3}, ("optimal", "optimal", "heuristic", "optimal"), 30),
        # five: the third's choices kept, the fourth and the fifth worked out by the kernel
        ("classic-11", {"pot": 2, "charge_throws": 3}, ("optimal",) * 3 + ("heuristic", "optimal"), 10),
        ("kytionnaire", {"pot": 3, "charge_throws": 2}, ("optimal",) * 5, 10),
        # every throw of the charge adds to the stake: choices by stake, rampots adding to it
        ("lyonnaise-21", {"pot": 6}, ("optimal", "optimal", "optimal"), 20),
        ("lyonnaise-21", {"pot": 6}, ("optimal", "optimal", "optimal", "optimal"), 30),
        ("vache-41", {"pot": 5, "leader_limit": False}, ("optimal", "heuristic", "optimal"), 20),
        # a loser holding nénette takes the penalty, whatever the stake
        ("lyonnaise-21", {"pot": 6, "nenette_penalty": 2}, ("optimal", "optimal", "optimal"), 20),
        ("lyonnaise-21", {"pot": 6, "nenette_last_wins": True}, ("optimal", "optimal", "optimal"), 20),
        # a double nénette goes to the later thrower
        ("classic-11", {"pot": 4, "nenette_last_wins": True}, ("optimal", "optimal", "heuristic"), 20),
    ],
)
def test_the_simulator_plays_the_solved_game_as_the_engine_bot_does(preset, options, levels, games):
    """Same dice, same decisions: each optimal seat chooses in the engine what the kernel chose."""
    rules = Ruleset.preset(preset).with_options(**options)
    if solved_before_play(rules, len(levels)):  # five: played whole once solved on the machine
        solve_maxn_cached(rules, len(levels))
    assert played(rules, len(levels)) == "game_maxn"
    lineup = Lineup(rules, levels)
    rounds = sum(replay(lineup, KEY, g).rounds for g in range(games))
    assert rounds > games


def test_five_players_are_played_whole_once_solved_on_the_machine():
    solutions.forget()  # as a new command: nothing solved in memory
    rules = Ruleset.preset("kytionnaire").with_options(pot=3, charge_throws=2)
    runner = CliRunner()
    args = ["simulate", "--rules", "kytionnaire", "--set", "pot=3", "--set", "charge_throws=2"]
    args += ["--players", ",".join(["bot:optimal"] * 5), "--games", "20", "--workers", "1"]
    before = runner.invoke(main, args, catch_exceptions=False)
    assert played(rules, 5) == "rounds"
    assert "the whole game of 5 players is not solved on this machine" in before.output
    assert "421 solve --rules kytionnaire --set pot=3 --set charge_throws=2 --players 5" in before.output
    solved = runner.invoke(
        main,
        ["solve", "--rules", "kytionnaire", "--set", "pot=3", "--set", "charge_throws=2", "--players", "5"],
    )
    assert solved.exit_code == 0 and "P(among the losers)" in solved.output
    assert played(rules, 5) == "game_maxn"
    # the advice over the game: five counts name five players (a short list is refused with an example)
    advise = ["advise", "642", "--throws-left", "1", "--objective", "game", *args[1:7]]
    ranked = runner.invoke(main, [*advise, "--tokens", "1,1,1,0,0", "--before", "631", "--json"])
    rows = json.loads(ranked.stdout)["options"]
    assert [r["value"] for r in rows] == sorted((r["value"] for r in rows), reverse=True)
    short = runner.invoke(main, [*advise, "--players", "5", "--tokens", "1,1,1"])
    assert short.exit_code == 2 and "expected 5 counts like 4,4,3,0,0" in short.output
    after = runner.invoke(main, args, catch_exceptions=False)
    assert "not solved on this machine" not in after.output

    def losses(output: str) -> list[str]:
        """Each seat's losses (not the games a second, nor the note)."""
        return [line for line in output.splitlines() if line.strip().startswith("seat") and " lost " in line]

    assert len(losses(before.output)) == 5
    assert losses(before.output) != losses(after.output)  # another strategy, other games


def test_bot_optimal_plays_the_whole_game_where_the_rules_allow():
    assert whole_game_maxn(Ruleset.preset("classic-11"), 3)
    assert whole_game_maxn(Ruleset.preset("kytionnaire"), 4)
    comptoir = Ruleset.preset("comptoir-21")
    assert whole_game_maxn(comptoir, 4) and played(comptoir, 4) == "rounds"  # 8,096 positions: once solved
    assert played(Ruleset.preset("classic-11").with_options(pot=12), 4) == "game_maxn"  # 1,820: minutes
    assert not whole_game_maxn(comptoir.with_options(pot=50), 4)  # 93,704 positions: round by round
    assert not whole_game_maxn(Ruleset.preset("classic-11"), 2)  # the two-player solver's
    assert whole_game_maxn(Ruleset.preset("classic-11"), 5)
    assert not whole_game_maxn(Ruleset.preset("classic-11"), 6)
    assert whole_game_maxn(Ruleset.preset("lyonnaise-21"), 3)  # accumulated stakes, by the stake so far
    assert played(Ruleset.preset("lyonnaise-21"), 3) == "game_maxn"  # solved first: minutes
    lyonnaise = Ruleset.preset("lyonnaise-21")  # four: about 8,096 positions, about 17 minutes
    assert whole_game_maxn(lyonnaise, 4) and played(lyonnaise, 4) == "rounds"
    assert played(lyonnaise.with_options(pot=6), 4) == "game_maxn"
    vache = Ruleset.preset("vache-41")
    assert whole_game_maxn(vache, 3) and played(vache, 3) == "rounds"  # an hour: once solved here
    assert whole_game_maxn(vache, 4) and played(vache, 4) == "rounds"  # 52,976 positions: hours
    # « queue de la vache »: the first manche's décharge played for each debt, seconds at three players
    # of classic-11, minutes at four; three-player vache-41 solved once on the machine
    queue = Ruleset.preset("classic-11").with_options(queue_de_la_vache=True)
    assert played(queue, 3) == "game_maxn" and whole_game_maxn(queue, 4) and played(queue, 4) == "rounds"
    owing = vache.with_options(queue_de_la_vache=True)
    assert whole_game_maxn(owing, 3) and played(owing, 3) == "rounds"
    engranjeu = Ruleset.preset("engranjeu-21")  # « qui barre démarre »: three players at most
    assert whole_game_maxn(engranjeu, 3) and played(engranjeu, 3) == "rounds"  # 759 positions: once solved
    assert played(engranjeu.with_options(pot=7), 3) == "game_maxn"  # 108: half a minute
    assert not whole_game_maxn(engranjeu.with_options(pot=7), 4)
    game = Game(engranjeu, ["A", "B", "C"])  # until solved on the machine: round by round
    dice = SeededDice("engranjeu")
    bot, rounds = OptimalBot(), RoundsOptimalBot()
    for _ in range(200):
        state = game.state
        if state.phase is Phase.OVER:
            break
        if state.chance:
            game.throw(dice.throw(state.chance))
        else:
            assert bot.choose(state) == rounds.choose(state)
            game.act(bot.choose(state))
    with pytest.raises(InvalidPlayers, match="accepted: bot:random, bot:heuristic, bot:optimal"):
        parse_players(f"bot:optimal,bot:{ROUNDS_LEVEL}")  # the round-level bot is for measuring only


@pytest.mark.parametrize(
    ("rules", "charge"),
    [(SMALL, False), (Ruleset.preset("lyonnaise-21").with_options(pot=6), True)],  # every throw staked
    ids=["decharge", "staked-charge"],
)
def test_the_advice_in_a_round_solves_the_later_turns_once_and_as_a_fresh_solver_does(
    monkeypatch, rules, charge
):
    """In a round of three, the leader's advice solves the followers' turns; the advice of each
    follower after it solves none again, and every choice in two rounds is worth what a solver asked
    for the first time says (nothing of one round is read in the other)."""
    game = GameMaxn(rules, 3).solve()
    fresh = GameMaxn(rules, 3)
    fresh.manches = game.manches
    key = game.start_key()
    rounds = [
        i for i, pos in enumerate(game.model.positions) if pos.charge == charge and len(pos.order()) == 3
    ]
    solved = []

    def counted(*turn: Any) -> Any:
        solved.append(turn)
        return follower_values(*turn)

    staked_turns = stakes.follower

    def counted_staked(*turn: Any, **named: Any) -> Any:
        solved.append(turn)
        return staked_turns(*turn, **named)

    monkeypatch.setattr("py421.solver.game_maxn.follower_values", counted)
    monkeypatch.setattr("py421.solver.game_maxn_stakes.follower", counted_staked)
    valued = []
    stops_at = game_maxn.stops_at

    def valuing(*asked: Any) -> Any:
        valued.append(asked)
        return stops_at(*asked)

    monkeypatch.setattr("py421.solver.game_maxn.stops_at", valuing)
    steps = game.turn_shape(key, rounds[0]).steps
    leader, second = INDEX[Result.of((6, 4, 2))], INDEX[Result.of((5, 3, 3))]
    last = (2, int(steps[0][leader, second]), 3)
    asked = [(0, 0, 3), (1, leader, 3), last, (1, leader, 2), last]
    for p in rounds[:2]:
        for number, (place, summary, limit) in enumerate(asked):
            before = len(solved)
            turn = game.mover_turn(key, p, place, summary, limit)
            if number in (1, 2, 4):  # the leader's advice solved the followers' turns at the limit 3
                assert len(solved) == before
            first = fresh.mover_turn(key, p, place, summary, limit)
            fresh._advised = None
            for mine, theirs in zip(turn.values, first.values, strict=True):
                assert np.array_equal(mine, theirs)
    assert len(valued) == 2 * 4 + 2 * 5  # the same decision asked again is not valued again (fresh's: 5)
    assert game._advised is not None and game._advised[0] == (key, rounds[1])


@pytest.mark.parametrize(
    ("rules", "players", "games"),
    [
        (SMALL, 3, 30),
        (Ruleset.preset("lyonnaise-21").with_options(pot=6), 3, 30),
        (Ruleset.preset("lyonnaise-21").with_options(pot=6), 4, 20),  # the third of four by stake too
        (Ruleset.preset("engranjeu-21").with_options(pot=4), 3, 30),
    ],
    ids=str,
)
def test_advice_ranks_the_bots_choice_first(shared_solutions, rules, players, games):
    """At every choice of bot:optimal in the first manche, advice over the game puts it first.

    The position given to the advice is the table's as a player sees it: the
    tokens from the mover round the table, the results before (with the throws
    each took, where « qui barre démarre » compares them), the leader's
    throws, the phase, the pot and, where every throw adds to it, the stake.
    A « main chaude » stake is the one the strategy values most; it is rare (a
    replay tied again), so the games after the first ``games`` are played on, not
    advised, until one is met.
    """
    solved_here(rules, players, shared_solutions)
    bot = OptimalBot()
    strategy = strategy_for(rules, players)
    checked = stakes = 0
    for number in itertools.count():
        if number >= games and (stakes or not rules.main_chaude):  # « main chaude » is rare: until one
            break
        game, dice = Game(rules, ["A", "B", "C", "D"][:players]), SeededDice(f"advice-{number}")
        while game.state.manche == 1 and game.state.phase is not Phase.OVER:
            state = game.state
            if state.chance:
                game.throw(dice.throw(state.chance))
                continue
            r, mover = state.round, state.to_move
            assert r is not None and mover is not None
            if r.tie is not None:  # « main chaude »: the better stake, valued by the game
                valued = strategy.choices(state)
                assert bot.choose(state) == valued[0][0] and valued[0][1] >= valued[1][1]
                game.act(bot.choose(state))
                stakes += 1
                continue
            if number >= games:
                game.act(bot.choose(state))
                continue
            tokens = tuple(state.tokens[(mover + s) % players] for s in range(players))
            charge = state.phase is Phase.CHARGE
            before = tuple(t.result for t in r.done)
            place = state.pot if charge else None
            throws = tuple(t.throws for t in r.done)
            context = RoundContext(players, before, r.limit, charge, place, tokens, r.stake, throws=throws)
            most = rules.throws_allowed(charge)
            limit = r.limit if r.done and rules.leader_limit and r.limit else most
            advice = advise_game_level(rules, Result.of(r.dice), limit - r.throws, context)
            action = bot.choose(state)
            best = advice.options[0]
            assert action == (Stop() if best.stop else Throw(best.keep))
            assert all(0 <= o.value <= 1 for o in advice.options)
            checked += 1
            game.act(action)
    assert checked > 50
    assert stakes > 0 or not rules.main_chaude


def test_solve_and_advise_for_three_players(shared_solutions):
    """421 solve --players 3: each place's chance of losing, every position's values; 421 advise ranks."""
    solved_here(SMALL, 3, shared_solutions)
    runner = CliRunner()
    result = runner.invoke(main, ["solve", "--players", "3", "--set", "pot=4", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["method"] == "max^n over the game" and data["cached"]
    assert sum(data["lose_by_position"]) == pytest.approx(1 + data["shared"])
    first = data["values"][0]
    assert {"manche", "lost", "positions"} <= first.keys()
    start = next(p for p in first["positions"] if p["phase"] == "charge" and p["pot"] == 4)
    assert sum(start["share"]) == pytest.approx(1) and sum(start["lose_manche"]) == pytest.approx(1)
    text = runner.invoke(main, ["solve", "--players", "3", "--set", "pot=4"]).output
    assert "3 players, the whole game by max^n" in text and "P(among the losers)" in text
    found = " / ".join(f"{p:.4%}" for p in data["lose_by_position"])
    assert found in text
    args = ["advise", "642", "--throws-left", "1", "--objective", "game", "--set", "pot=4", "--before", "631"]
    advice = runner.invoke(main, [*args, "--tokens", "2,1,1", "--json"])
    assert advice.exit_code == 0, advice.output
    rows = json.loads(advice.stdout)["options"]
    assert [r["value"] for r in rows] == sorted((r["value"] for r in rows), reverse=True)
    assert len(rows) > 5 and all(0 <= r["value"] <= 1 for r in rows)
    wrong = runner.invoke(main, [*args, "--tokens", "2,1,2"])
    assert wrong.exit_code == 2 and "do not make a position of 3 players and 4 tokens" in wrong.output
    short = runner.invoke(main, [*args, "--players", "3", "--tokens", "2,2"])
    assert short.exit_code == 2 and "expected 3 counts like 4,4,3" in short.output


def test_where_a_decharge_after_a_debt_does_not_settle_the_gain_of_deviating_is_bounded(
    monkeypatch, tmp_path
):
    """« Queue de la vache »: a décharge after a debt whose choices go round (here: each stopped after
    its first pass, as if they did) is valued as played, and what any one player gains by deviating
    is bounded by the best response within it (docs/strategy.md): a gain above rounding, as the
    choices of a first pass are not yet an equilibrium, and the same bound read back from the disk."""
    rules = QUEUE.with_options(decharge_throws=3)
    settled = GameMaxn(rules, 3).solve().summary()
    assert settled["converged"] and settled["exploitability"] is None
    monkeypatch.setattr(game_maxn, "_cycling", lambda recent, changes: True)
    game, cached = solve_maxn_cached(rules, 3, folder=tmp_path)
    assert not cached
    summary = game.summary()
    assert not summary["converged"] and summary["deviation_bounded"]
    assert any(solution.unsettled for solution in game.manches.values())
    assert 1e-9 < summary["exploitability"] < 0.05
    assert summary["gains"] == [summary["exploitability"]] * 3 == [summary["gain_anywhere"]] * 3
    assert summary["lose"] == pytest.approx(settled["lose"], abs=0.05)
    again, cached = solve_maxn_cached(rules, 3, folder=tmp_path)
    assert cached and {k: again.summary()[k] for k in ("gains", "deviation_bounded")} == {
        k: summary[k] for k in ("gains", "deviation_bounded")
    }


def test_the_first_manches_decharge_starts_from_the_choices_the_manche_after_it_ended_on(monkeypatch):
    """The manches of a game are solved the last first, on the same positions with other ends, and
    much the same play: the first manche's décharge starts from the exact values of the choices the
    second ended on, rather than from a loser drawn at random, and settles in fewer sweeps on the
    same game (three-player vache-41 at its full pot: 6 sweeps where 9 were, docs/strategy.md)."""
    rules = Ruleset.preset("lyonnaise-21").with_options(pot=7)
    started = GameMaxn(rules, 3).solve()
    solving = game_maxn.solve_manche

    def from_nothing(*args: Any, **kwargs: Any) -> Any:
        kwargs.pop("start", None)
        return solving(*args, **kwargs)

    monkeypatch.setattr(game_maxn, "solve_manche", from_nothing)
    fresh = GameMaxn(rules, 3).solve()
    first = started.start_key()
    assert started.manches[first].sweeps < fresh.manches[first].sweeps
    assert started.summary()["converged"] and fresh.summary()["converged"]
    for key, solution in fresh.manches.items():
        assert started.manches[key].values == pytest.approx(solution.values, abs=1e-12)
        assert started.manches[key].ends == pytest.approx(solution.ends, abs=1e-12)


class Stopped(Exception):
    """A solve stopped part way (Ctrl-C, the machine turned off)."""


@pytest.mark.parametrize("stage", ["manche", "deviation"])
def test_a_solve_stopped_part_way_goes_on_from_the_manches_it_solved(monkeypatch, tmp_path, stage):
    """Four-player vache-41 takes hours, an hour a manche or more: each manche is kept as it is solved,
    and the same solve asked again after it was stopped solves only what was left, to the same game;
    here stopped as the second manche to solve begins, or as what deviating gains is measured (the
    décharges stopped after their first pass, as if they did not settle: the bound needs to know
    where, read back too)."""
    rules = QUEUE.with_options(decharge_throws=3)
    monkeypatch.setattr(game_maxn, "_cycling", lambda recent, changes: True)
    whole, _ = solve_maxn_cached(rules, 3, folder=tmp_path / "whole")
    solving = game_maxn.solve_manche
    solved: list[int] = []

    def counted(manche: Any, *args: Any, **kwargs: Any) -> Any:
        solved.append(len(manche.positions))
        return solving(manche, *args, **kwargs)

    def stopping(step: str, number: int, total: int, sweep: Any = None) -> None:
        if step == stage and number == 2:
            raise Stopped

    monkeypatch.setattr(game_maxn, "solve_manche", counted)
    with pytest.raises(Stopped):
        solve_maxn_cached(rules, 3, stopping, folder=tmp_path / "stopped")
    first = len(solved)
    said: list[tuple[str, int, int]] = []
    game, cached = solve_maxn_cached(
        rules, 3, lambda step, number, total, sweep=None: said.append((step, number, total)),
        folder=tmp_path / "stopped",
    )  # fmt: skip
    assert not cached and next(s for s in said if s[0] != "positions") == ("resumed", first, 2)
    assert len(solved) == 2  # the manches it had solved were not solved again
    assert game.manches.keys() == whole.manches.keys()
    for key, solution in whole.manches.items():
        assert np.array_equal(game.manches[key].values, solution.values)
        assert game.manches[key].unsettled == solution.unsettled
    summary, expected = game.summary(), whole.summary()
    assert summary["gains"] == expected["gains"] and summary["exploitability"] > 1e-9
    assert summary["lose"] == expected["lose"] and summary["deviation_bounded"]
    assert [path.name.count(".partial") for path in (tmp_path / "stopped").glob("*.npz")] == [0]
    again, cached = solve_maxn_cached(rules, 3, folder=tmp_path / "stopped")
    assert cached and again.summary()["gains"] == expected["gains"]


def stopping_at(manche: int, stage: str, step: int) -> Callable[..., None]:
    """A solve's progress that stops it (:class:`Stopped`) as the ``manche``-th manche solved says
    ``stage`` and ``step``."""
    solving = [0]

    def progress(what: str, number: int, total: int, sweep: Any = None) -> None:
        if what == "manche":
            solving[0] = number
        if (solving[0], what, number) == (manche, stage, step):
            raise Stopped

    return progress


@pytest.mark.parametrize(("stage", "step"), [("decharge", 3), ("charge", 3)])
def test_a_solve_stopped_inside_a_manche_goes_on_from_its_last_pass_or_pot(
    monkeypatch, tmp_path, stage, step
):
    """A four-player manche takes two hours: the solve keeps how far it went inside the manche (each
    pass of its décharge, each pot of its charge), and asked again after a stop goes on from there,
    says so, and solves neither the passes nor the pots kept again, to the same game as a solve never
    stopped, bit for bit; stopped here in the game's first manche (the second solved)."""
    rules = Ruleset.preset("lyonnaise-21").with_options(pot=7)
    whole = GameMaxn(rules, 3).solve()
    monkeypatch.setattr(solutions, "UNDERWAY_EVERY", 0.0)  # kept at every pass and pot, however quick
    with pytest.raises(Stopped):
        solve_maxn_cached(rules, 3, stopping_at(2, stage, step), folder=tmp_path)
    said: list[tuple[str, int]] = []
    game, cached = solve_maxn_cached(rules, 3, lambda what, n, *_: said.append((what, n)), folder=tmp_path)
    said = [told for told in said if told[0] != "positions"]
    assert not cached and said[:3] == [("resumed", 1), ("underway", 2), ("manche", 2)]
    if stage == "decharge":  # the pass it stopped after, said again, then the passes left
        assert said[3] == ("decharge", step - 1) and said[4] == ("decharge", step)
    else:  # the décharge done, the charge from the pot after the last kept
        assert not any(what == "decharge" for what, _ in said)
        assert [n for what, n in said if what == "charge"] == [4, 7]
    first = whole.start_key()
    assert game.manches[first].sweeps == whole.manches[first].sweeps
    for key, solution in whole.manches.items():
        assert np.array_equal(game.manches[key].values, solution.values)
        assert np.array_equal(game.manches[key].ends, solution.ends)
        assert game.manches[key].unsettled == solution.unsettled == []  # it settled: nothing to bound
    assert [path.name for path in tmp_path.glob("*.partial.npz")] == []


def test_a_solve_stopped_among_the_decharges_after_a_debt_goes_on_from_the_next_debt(monkeypatch, tmp_path):
    """Three-player vache-41 with « queue de la vache » spends most of its hour solving the first
    manche's décharge again after each debt (41 of them), and a stop lost every one: the solve went
    on from the décharge owing nothing. Each debt's décharge is now kept once solved, and asked again
    the solve goes on with the next debt, says so, and solves none of those kept again, to the same
    game bit for bit."""
    whole = GameMaxn(QUEUE, 3).solve()
    monkeypatch.setattr(solutions, "UNDERWAY_EVERY", 0.0)  # kept after every debt, however quick
    with pytest.raises(Stopped):
        solve_maxn_cached(QUEUE, 3, stopping_at(2, "debts", 3), folder=tmp_path)
    settle = game_maxn._settle_decharge
    debts_solved = [0]

    def counted(*args: Any, **kwargs: Any) -> Any:
        debts_solved[0] += bool(args[7] if len(args) > 7 else kwargs.get("exact"))  # after a debt
        return settle(*args, **kwargs)

    monkeypatch.setattr(game_maxn, "_settle_decharge", counted)
    said: list[tuple[str, int, int]] = []
    game, cached = solve_maxn_cached(
        QUEUE, 3, lambda what, n, total, *_: said.append((what, n, total)), folder=tmp_path
    )
    said = [told for told in said if told[0] != "positions"]
    debts = [told for told in said if told[0] == "debts"]
    assert not cached and said[:3] == [("resumed", 1, 2), ("underway", 2, 2), ("manche", 2, 2)]
    assert debts[0][1] == 3 and not any(what == "decharge" for what, _, _ in said[: said.index(debts[0])])
    assert debts_solved[0] == debts[0][2] - 2  # the two kept were not solved again
    for key, solution in whole.manches.items():
        assert np.array_equal(game.manches[key].values, solution.values)
        assert np.array_equal(game.manches[key].ends, solution.ends)
        assert game.manches[key].unsettled == solution.unsettled
    assert [path.name for path in tmp_path.glob("*.partial.npz")] == []


@pytest.mark.parametrize(("manche", "step", "passes", "played"), [(1, 2, 4, 2), (2, 1, 2, 1)])
def test_a_bound_on_deviating_stopped_part_way_goes_on_from_its_last_pass(
    monkeypatch, tmp_path, manche, step, passes, played
):
    """Four-player vache-41's bound on deviating takes passes of 20 minutes, and a stop lost them all:
    the bound keeps how far it went (bot:optimal's play of each group measured, each pass of best
    responses), and asked again goes on from there, says so, and measures none of it again, to the
    same bound bit for bit. The décharges stopped after their first pass, as if they did not settle:
    the bound's first group takes 3 passes, the next 2 then 1; stopped after the first's second pass,
    or after the second's first."""
    rules = QUEUE.with_options(decharge_throws=3)
    monkeypatch.setattr(game_maxn, "_cycling", lambda recent, changes: True)
    whole, _ = solve_maxn_cached(rules, 3, folder=tmp_path / "whole")
    with pytest.raises(Stopped):
        solve_maxn_cached(rules, 3, stopping_at(manche, "deviation", step), folder=tmp_path)
    counted = {"_pass": 0, "_played_rows": 0}

    def counting(name: str) -> Callable[..., Any]:
        measure = getattr(deviation, name)

        def counted_call(*args: Any) -> Any:
            counted[name] += 1
            return measure(*args)

        return counted_call

    for name in counted:
        monkeypatch.setattr(deviation, name, counting(name))
    said: list[tuple[str, int]] = []
    game, cached = solve_maxn_cached(rules, 3, lambda what, n, *_: said.append((what, n)), folder=tmp_path)
    said = [told for told in said if told[0] != "positions"]
    assert not cached and said[:2] == [("resumed", 2), ("bounding", step)]
    assert next(told for told in said if told[0] == "deviation") == ("deviation", step + 1)
    assert counted == {"_pass": passes, "_played_rows": played}  # whole: 6 passes, 3 groups played
    assert game.summary()["gains"] == whole.summary()["gains"]
    assert game.summary()["exploitability"] > 1e-9
    assert [path.name for path in tmp_path.glob("*.partial.npz")] == []


def test_a_manche_kept_under_way_that_cannot_be_read_is_solved_again_with_the_manches_kept(
    monkeypatch, tmp_path
):
    """A file of a manche under way that does not fit the game (another version, a copy of another
    game's) is set aside: the manches kept whole beside it are still read, and that manche is solved
    from its start, to the same game."""
    rules = Ruleset.preset("lyonnaise-21").with_options(pot=7)
    whole = GameMaxn(rules, 3).solve()
    monkeypatch.setattr(solutions, "UNDERWAY_EVERY", 0.0)
    with pytest.raises(Stopped):
        solve_maxn_cached(rules, 3, stopping_at(2, "charge", 3), folder=tmp_path)
    (partial,) = tmp_path.glob("*.partial.npz")
    with np.load(partial) as data:
        arrays = dict(data)
    arrays["underway_values"] = arrays["underway_values"][:-1]  # rows that are not this game's
    np.savez(partial.with_suffix(".tmp.npz"), **arrays)
    partial.with_suffix(".tmp.npz").replace(partial)
    said: list[tuple[str, int]] = []
    game, _ = solve_maxn_cached(rules, 3, lambda what, n, *_: said.append((what, n)), folder=tmp_path)
    said = [told for told in said if told[0] != "positions"]
    assert said[:2] == [("resumed", 1), ("manche", 2)]
    assert ("decharge", 1) in said
    for key, solution in whole.manches.items():
        assert np.array_equal(game.manches[key].values, solution.values)


def test_a_solve_taken_up_starts_the_next_manche_from_the_choices_it_kept(tmp_path):
    """A solve stopped after the second manche goes on with the first as an uninterrupted one does:
    its décharge starting from the choices the second ended on (kept with it), in as few sweeps,
    to the same values."""
    rules = Ruleset.preset("lyonnaise-21").with_options(pot=7)
    whole = GameMaxn(rules, 3).solve()

    def stopping(step: str, number: int, total: int, sweep: Any = None) -> None:
        if (step, number) == ("manche", 2):
            raise Stopped

    with pytest.raises(Stopped):
        solve_maxn_cached(rules, 3, stopping, folder=tmp_path)
    game, _ = solve_maxn_cached(rules, 3, folder=tmp_path)
    first = whole.start_key()
    assert game.manches[first].sweeps == whole.manches[first].sweeps
    for key, solution in whole.manches.items():
        assert np.array_equal(game.manches[key].values, solution.values)


def test_advice_in_a_decharge_owing_a_debt_values_the_debt():
    """« Queue de la vache », three players: --debts says what each player owes the second manche in
    the first one's décharge; the advice then differs by the debt, a debt above the pot is worth one
    pot, and a debt where none can be owed is refused with the reason."""
    queue = ["--rules", "vache-41", "--set", "pot=4", "--set", "charge_throws=1", "--set", "le_bon=false"]
    queue += ["--set", "queue_de_la_vache=true"]
    args = ["advise", "642", "--throws-left", "1", "--objective", "game", *queue, "--before", "631"]
    args += ["--tokens", "2,0,2"]  # a décharge of two, the last player owing (who leads it)
    runner = CliRunner()

    def values(*more: str) -> list[float]:
        result = runner.invoke(main, [*args, *more, "--json"])
        assert result.exit_code == 0, result.output
        return [r["value"] for r in json.loads(result.stdout)["options"]]

    # in the pot of 4, three coups secs worth 3 or more leave a debt nearly always: owing 2 or 4
    less, more = values("--debts", "0,0,2"), values("--debts", "0,0,4")
    assert less != more and len(less) == len(more) > 5
    assert values("--debts", "0,0,9") == values("--debts", "0,0,4")  # a pot or more empties the next pot
    refused = {
        (
            "--debts",
            "0,0,3",
            "--phase",
            "charge",
            "--pot",
            "1",
            "--tokens",
            "1,1,1",
        ): "nobody owes a debt during",
        ("--debts", "0,3"): "expected 3 debts (yours, then clockwise), not 2",
        (
            "--debts",
            "0,0,x",
        ): "'x' is not a whole number of 0 or more; expected what each player owes the next manche",
    }
    for given, why in refused.items():
        result = runner.invoke(main, [*args, *given])
        assert result.exit_code == 2 and why in result.output, result.output
    without = [*args]
    without[without.index("queue_de_la_vache=true")] = "queue_de_la_vache=false"
    result = runner.invoke(main, [*without, "--debts", "0,0,3"])
    assert result.exit_code == 2 and "debts are owed only under « queue de la vache »" in result.output
    two = ["advise", "642", "--throws-left", "1", "--objective", "game", *queue, "--tokens", "2,2"]
    result = runner.invoke(main, [*two, "--debts", "0,3"])
    assert (
        result.exit_code == 2
        and "at a table of two, the advice over the game is for a manche with nothing" in (result.output)
    )
    loser = ["advise", "642", "--throws-left", "1", "--objective", "loser", *queue, "--debts", "0,0,3"]
    rounds = runner.invoke(main, loser)
    assert rounds.exit_code == 2 and "--debts is not read by the objective loser" in rounds.output


def test_advice_over_a_game_that_takes_long_to_solve_says_how_to_solve_it_rather_than_solve(monkeypatch):
    """Three players of engranjeu-21 (minutes) or vache-41 (an hour), not solved on the machine: the
    advice over the game names the command that solves it once, as bot:optimal's note does."""

    def solved_game(*args: object, **kwargs: object) -> None:
        raise AssertionError("a solve of minutes or hours, started without a word")

    monkeypatch.setattr(solutions, "solved_game", solved_game)
    tables = (("engranjeu-21", "653/2", "d'engranjeu-21"), ("vache-41", "653", "de vache-41"))
    for rules, before, of in tables:
        for lang, said in (
            ("en", f"the whole game of 3 players under {rules} is not solved on this machine: 421 solve"),
            ("fr", f"la partie entière à 3 joueurs {of} n'est pas résolue sur cette machine : 421 solve"),
        ):
            args = ["advise", "642", "--throws-left", "0", "--objective", "game", "--players", "3"]
            result = CliRunner().invoke(main, [*args, "--rules", rules, "--before", before, "--lang", lang])
            assert result.exit_code == 2, result.output
            assert said in result.output and f"--rules {rules} --players 3" in result.output


def test_the_command_said_to_solve_a_game_names_its_rules_as_they_were_given(monkeypatch, tmp_path):
    """The command the refusal names solves the very game asked about: with the options set on the
    preset (not the plain preset, already solved, which would leave the refusal as it was), and a
    ruleset file by its path (its name is no argument ``--rules`` reads), quoted for the shell."""

    def solved_game(*args: object, **kwargs: object) -> None:
        raise AssertionError("a solve of minutes or hours, started without a word")

    monkeypatch.setattr(solutions, "solved_game", solved_game)
    house = tmp_path / "our bar.toml"
    house.write_text('base = "engranjeu-21"\nname = "our bar"\n', encoding="utf-8")
    args = ["advise", "642", "--throws-left", "1", "--objective", "game", "--players", "3"]
    queue = ["--rules", "vache-41", "--set", "queue_de_la_vache=true", "--tokens", "14,14,13"]
    for given, said in (
        (queue, "421 solve --rules vache-41 --set queue_de_la_vache=true --players 3"),
        (["--rules", str(house), "--before", "653/2"], f"421 solve --rules '{house}' --players 3"),
    ):
        for lang in ("en", "fr"):
            result = CliRunner().invoke(main, [*args, *given, "--lang", lang])
            assert result.exit_code == 2 and said in result.output, result.output
    # bot:optimal's note before a game says the same command
    note = CliRunner().invoke(
        main,
        ["play", "--rules", str(house), "--players", "Ana,bot:optimal,bot:optimal", "--plain"],
        input="q\n",
    )
    assert f"421 solve --rules '{house}' --players 3" in note.output, note.output


def test_advice_under_qui_barre_demarre_reads_the_throws_of_the_results_before(shared_solutions):
    """The same 631 before, made in one throw or in three, is another position for the player after
    it: their own 631 made in three ties with the one (a replay for the worst), or is beaten by the
    other (fewer throws win; they lose alone). The leader's 653 took the limit's three."""
    rules = Ruleset.preset("engranjeu-21").with_options(pot=4)
    solved_here(rules, 3, shared_solutions)
    args = ["advise", "631", "--throws-left", "0", "--objective", "game", "--rules", "engranjeu-21"]
    args += ["--set", "pot=4", "--tokens", "2,1,1", "--json"]  # the limit: the leader's three throws

    def stop(before: str) -> float:
        result = CliRunner().invoke(main, [*args, "--before", before])
        assert result.exit_code == 0, result.output
        rows = json.loads(result.stdout)["options"]
        assert len(rows) == 1 and rows[0]["stop"]  # no throw left: stop on 631
        return float(rows[0]["value"])

    assert abs(stop("653/3,631/3") - stop("653/3,631/1")) > 1e-3  # told apart only by the throws


def test_the_simulators_keys_name_the_solved_positions():
    """The kernel's key of a round start (seats turned) is the one its tables are built for."""
    rules = SMALL
    tables = MaxnTables(rules, 3)
    for (manche, lost), _ in tables.game.manches.items():
        for pos in tables.game.model.positions:
            key = tables.key(manche, lost, pos)
            assert tables.decode(key) == (manche, lost, pos)
            frame = 1  # the same round start seen from a table where seat 1 led the manche
            at = turn_seats(pos, frame)
            tokens, active = np.array(at.tokens), np.array(at.active, dtype=np.int64)
            losses = np.array([lost[(s - frame) % 3] for s in range(3)])
            found = position_key(
                tables.index, manche, frame, int(at.charge), at.pot, tokens, active, losses, at.leader
            )
            assert found == key


def test_a_game_not_on_the_disk_is_found_missing_without_building_its_model(tmp_path, monkeypatch, unshipped):
    """A server's bot:optimal asks for the whole game at every move of a table of three: building its
    model before finding no file took 0.3 s a move (4 s at four players)."""
    rules = Ruleset.preset("classic-11")

    def built(*args: object, **kwargs: object) -> None:
        raise AssertionError("the model was built")

    monkeypatch.setattr(game_maxn, "GameMaxn", built)
    assert solutions.load_maxn_cached(rules, 3, tmp_path) is None


def test_advice_says_who_left_the_manche_where_holding_nothing_does_not(shared_solutions):
    """Under withdraw_at_zero=false a player holding no token may still be in the décharge (they took
    none in the charge) or out of it (they gave their last one): --out names those out. The leader's
    best choice, averaged over their first throw, is one minus the solved position's share."""
    rules = SMALL.with_options(withdraw_at_zero=False)
    solved_here(rules, 3, shared_solutions)
    runner = CliRunner()
    options = ["--set", "pot=4", "--set", "withdraw_at_zero=false"]
    solved = json.loads(runner.invoke(main, ["solve", "--players", "3", *options, "--json"]).output)
    first = next(v for v in solved["values"] if v["manche"] == 1 and v["lost"] == [0, 0, 0])
    for out, active in (((), [True, True, True]), ((1,), [True, False, True])):
        at = next(
            p for p in first["positions"]
            if (p["phase"], p["tokens"], p["active"], p["leader"]) == ("decharge", [3, 0, 1], active, 0)
        )  # fmt: skip
        context = RoundContext(3, tokens=(3, 0, 1), out=out)
        expected = sum(
            float(p) * advise_game_level(rules, Result.of(faces), 2, context).options[0].value
            for faces, p in throw_outcomes(3)
        )
        assert expected == pytest.approx(1 - at["share"][0], abs=1e-12), out
        told = runner.invoke(
            main,
            ["advise", "642", "--throws-left", "2", "--objective", "game", *options, "--tokens", "3,0,1",
             *(["--out", "1"] if out else []), "--json"],
        )  # fmt: skip
        assert told.exit_code == 0, told.output
        values = [row["value"] for row in json.loads(told.stdout)["options"]]
        assert values == [o.value for o in advise_game_level(rules, Result.parse("642"), 2, context).options]
    refused = [
        (["--tokens", "3,0,1", "--out", "2"], "the player at place 2 after you holds 1 token: only a player"),
        (["--tokens", "3,0,1", "--out", "0"], "you cannot be out of the manche: the advice is for your turn"),
        (["--tokens", "3,0,1", "--out", "3"], "by their place after you, 1 to 2 at a table of 3, not 3"),
        (
            ["--tokens", "3,0,1", "--out", "x"],
            "is not a whole number of 0 or more; expected the places after you of those out of the manche",
        ),
        (["--phase", "charge", "--pot", "4", "--out", "1"], "nobody is out of the manche in the charge"),
        (["--tokens", "3,0,1", "--out", "2", "--lang", "fr"], "le joueur à la place 2 après vous a 1 jeton"),
        (
            ["--tokens", "3,0,1", "--out", "1;2", "--lang", "fr"],
            "n'est pas un entier de 0 ou plus ; attendu : les places après vous de ceux qui sont sortis",
        ),
    ]
    asked = ["advise", "642", "--throws-left", "2", "--objective", "game", *options, "--players", "3"]
    for extra, said in refused:
        answer = runner.invoke(main, [*asked, *extra])
        assert answer.exit_code == 2 and said in answer.output, (extra, answer.output)


@pytest.mark.parametrize("preset", preset_names())
def test_a_round_of_more_players_settles_for_the_amounts_a_round_of_two_does(preset):
    """Only the best and the worst result, and whether they are one, set what a round settles for: a
    round of three or four settles for the amounts of a round of two, with or without deduction (so
    whether a charge round can move no token is read from a round of two). A round of four under
    « qui barre démarre » counts throws too and takes seconds to shape: three are enough there."""
    for deduction in (False, True):
        rules = Ruleset.preset(preset).with_options(value_deduction=deduction)
        two = set(shape_of(rules, 2).amount.tolist())
        for players in (3, 4) if rules.tie_break != "qui_barre_demarre" else (3,):
            assert set(shape_of(rules, players).amount.tolist()) == two, (deduction, players)


def test_charge_rounds_worth_nothing_are_solved_exactly():
    """With value_deduction a round can move no token, and the charge comes back to where it was:
    its positions are solved, not iterated, and the shares of the game sum to 1 to rounding."""
    game = GameMaxn(SMALL.with_options(value_deduction=True), 3).solve()
    summary = game.summary()
    assert summary["converged"]
    assert sum(summary["share"]) == pytest.approx(1, abs=5e-14)  # as without value_deduction: 1.3e-14
    assert sum(summary["lose"]) == pytest.approx(1 + summary["shared"], abs=5e-14)
    for solution in game.manches.values():
        assert solution.values.sum(axis=1) == pytest.approx(-1, abs=5e-14)  # at every position


def test_charge_rounds_worth_nothing_settle_in_a_few_sweeps_to_what_plain_sweeps_reach(monkeypatch):
    """Each charge level that comes back to itself is settled by sweeps each followed by the exact
    values of their choices: a few sweeps a level where plain sweeps take dozens, and the same
    choices and values to the last bit."""
    pot = 2  # the charge levels are 1 to the pot: two, each coming back to itself
    model = Manche(Ruleset.preset("engranjeu-21").with_options(pot=pot), 3)
    ends = np.zeros((3, 2, 3))
    ends[np.arange(3), :, np.arange(3)] = -1  # one manche: its loser loses
    swept: list[int] = []
    sweep = game_maxn._sweep

    def counted(manche: Manche, orbits: Any, values: np.ndarray, moves: Any, told: Any = None) -> float:
        first = manche.positions[orbits[0][0][0]]
        swept.append(first.pot if first.charge else 0)  # the level swept; 0: the décharge
        return sweep(manche, orbits, values, moves, told=told)

    monkeypatch.setattr(game_maxn, "_sweep", counted)
    exact = solve_manche(model, ends)
    by_level = [swept.count(level) for level in range(1, pot + 1)]
    swept.clear()
    plain = solve_manche(model, ends, accelerate=False)
    plain_by_level = [swept.count(level) for level in range(1, pot + 1)]
    assert max(by_level) <= 4 and min(plain_by_level) > 10, (by_level, plain_by_level)
    assert exact.converged and plain.converged
    charge = [p for p, pos in enumerate(model.positions) if pos.charge]
    assert all(game_maxn._same(exact.policies[p], plain.policies[p]) for p in charge)
    assert np.array_equal(exact.values[charge], plain.values[charge])


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX")
def test_a_process_forked_after_a_split_turn_splits_its_own():
    """A child forked once the turns' threads run has none of them: its turns are solved all the same."""
    rng = np.random.default_rng(3)
    later, step = rng.random((400, 3)), rng.integers(0, 400, (1_000, 56))
    expected = follower_turns(later, step, 2, 3)[0]  # split among threads, started here
    pid = os.fork()
    if pid == 0:  # the child: exits 0 only if its own split turn comes back equal, in time
        signal.alarm(120)  # a turn waiting for threads that are not there: ended, not hung
        os._exit(0 if np.array_equal(follower_turns(later, step, 2, 3)[0], expected) else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


# Random turns to solve, for the probes below (each in a Python of its own: :func:`run_probe`)
RANDOM_TURNS = (
    "import numpy as np\n"
    "from py421.solver.game_maxn_turns import follower_turns\n"
    "import py421.solver.game_maxn_turns as t\n"
    "rng = np.random.default_rng(3)\n"
    "later, step = rng.random((400, 3)), rng.integers(0, 400, (1_000, 56))\n"
)


def run_probe(probe: str) -> subprocess.CompletedProcess[str]:
    """``probe`` run by a Python of its own, without PY421_THREADS (the suite's workers set it): a
    process free to use every core."""
    env = {k: v for k, v in os.environ.items() if k != THREADS_VARIABLE}
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, env=env)


@pytest.mark.skipif(sys.platform == "win32", reason="resource limits are POSIX")
def test_a_process_whose_memory_is_capped_solves_its_turns_in_one_thread():
    """A server's worker caps its address space: threads' own stacks and heaps would count against it,
    so its turns, and where staked turns end, are worked out in the one thread it has, the same
    numbers."""
    done = run_probe(
        RANDOM_TURNS + "import resource, threading\n"
        "from py421.core.rules import Ruleset\n"
        "from py421.solver import game_maxn_stakes as stakes\n"
        "shift = stakes.shifted(Ruleset.preset('vache-41'), 7)\n"
        "choices = rng.integers(-1, 28, (3, 1_000, 56, 8)).astype(np.int8)\n"
        "ways = (rng.random((1_000, 8)), step, choices, shift, 400)\n"
        "free = follower_turns(later, step, 2, 3)[0], stakes.advance(*ways)\n"
        "threads = threading.active_count()\n"
        "resource.setrlimit(resource.RLIMIT_AS, (8 << 30, resource.getrlimit(resource.RLIMIT_AS)[1]))\n"
        "t._threads.clear()\n"
        "capped = follower_turns(later, step, 2, 3)[0], stakes.advance(*ways)\n"
        "print(threads > 1 or len(__import__('os').sched_getaffinity(0)) == 1, not t._threads, "
        "np.array_equal(free[0], capped[0]), np.array_equal(free[1], capped[1]))\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True", "True", "True"]


def test_the_rounds_of_a_charge_level_solved_side_by_side_give_the_numbers_of_one_thread():
    """Every round of a staked charge takes from the pot, so a level's rounds lead only down and are
    solved several at once where the cores allow: the whole game (players behind throwing on) comes
    out the same to the last bit as solved one round after another in one thread."""
    done = run_probe(
        "import os\n"
        "import numpy as np\n"
        "from py421.core.rules import Ruleset\n"
        "from py421.solver import game_maxn_turns as t\n"
        "from py421.solver.game_maxn import GameMaxn\n"
        # pot=8: the charge has levels of several kinds of position, one round of each solved
        "rules = Ruleset.preset('vache-41').with_options(pot=8, must_throw_on=True)\n"
        "apart = GameMaxn(rules, 3).solve()\n"
        "print(bool(t._side) or len(os.sched_getaffinity(0)) == 1)\n"
        "os.environ['PY421_THREADS'] = '1'\n"
        "alone = GameMaxn(rules, 3).solve()\n"
        "print(all(np.array_equal(apart.manches[k].values, m.values) for k, m in alone.manches.items()))\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]


def test_py421_threads_caps_the_threads_of_a_solve_and_a_bad_value_is_named():
    """PY421_THREADS=1: turns are worked out in the one thread, the same numbers; a value that is
    no number of threads is refused with the variable named and what it accepts."""
    done = run_probe(
        RANDOM_TURNS + "import os\n"
        "free = follower_turns(later, step, 2, 3)[0]\n"
        "t._threads.clear()\n"
        "os.environ['PY421_THREADS'] = '1'\n"
        "capped = follower_turns(later, step, 2, 3)[0]\n"
        "print(not t._threads, np.array_equal(free, capped))\n"
        "from py421.core.errors import InvalidParameter\n"
        "for bad in ('two', '\u00b2', '0', '-1'):\n"
        "    os.environ['PY421_THREADS'] = bad\n"
        "    try:\n"
        "        follower_turns(later, step, 2, 3)\n"
        "    except InvalidParameter as refused:\n"
        "        print(refused)\n"
    )
    shown = done.stdout.splitlines()
    assert shown[0].split() == ["True", "True"], done.stderr
    accepted = "PY421_THREADS is a whole number of threads, 1 or more (one per core if unset), not"
    assert shown[1:] == [f"{accepted} {bad!r}" for bad in ("two", "\u00b2", "0", "-1")], done.stderr


def test_the_chances_spread_over_summaries_are_numpys_sums():
    """Compiled, the chance of reaching each summary after a turn is numpy's weighted count, exactly."""
    rng = np.random.default_rng(8)
    step, final, reach = rng.integers(0, 500, (700, 56)), rng.random((700, 56)), rng.random(700)
    expected = np.bincount(step.ravel(), (reach[:, None] * final).ravel(), minlength=520)
    assert np.array_equal(spread(step, final, reach, 520), expected)
