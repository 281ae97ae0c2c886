"""The one door to the solvers: the choice of solver made once, what a server plays without solving,
and the bot's choice ranked best by the values the hints and the analysis show."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import py421
from py421.core.chance import SeededDice
from py421.core.errors import InvalidPlayers
from py421.core.game import Game
from py421.core.rules import Ruleset
from py421.players.optimal import OptimalBot
from py421.solver import solutions
from py421.solver.strategy import covering, played, refuse, strategy_for, why_rounds

SMALL = Ruleset.preset("classic-11").with_options(pot=4)  # a whole game of three in a second or two


def test_a_server_plays_a_whole_game_only_where_this_machine_has_it(unshipped):
    assert covering(SMALL, 3) == "game_maxn"
    assert played(SMALL, 3, solve=False) == "rounds"
    assert strategy_for(SMALL, 3, solve=False).covering == "rounds"
    told: list[str] = []
    strategy_for(SMALL, 3, progress=lambda stage, *_: told.append(stage))  # solved here, and kept
    assert "charge" in told
    solutions.forget()  # as a new process: read from the disk
    assert played(SMALL, 3, solve=False) == "game_maxn"
    assert strategy_for(SMALL, 3, solve=False).covering == "game_maxn"


@pytest.mark.parametrize(
    ("rules", "players", "kind"),
    [
        (Ruleset.preset("classic-11"), 2, "heads_up"),
        (Ruleset.preset("classic-11").with_options(queue_de_la_vache=True, manches=2), 2, "heads_up_game"),
        (SMALL, 3, "game_maxn"),
        (Ruleset.preset("lyonnaise-21").with_options(pot=5), 3, "game_maxn"),  # by the stake so far
        (Ruleset.preset("lyonnaise-21").with_options(pot=5), 4, "game_maxn"),  # four, by the stake too
        # « qui barre démarre »: each throw of the charge counted and added to the stake, « main chaude »
        # (two throws a turn: throw counts still tell results apart, and the round's shapes stay small)
        (
            Ruleset.preset("engranjeu-21").with_options(
                pot=4, accumulated_stakes=True, charge_throws=2, decharge_throws=2
            ),
            3,
            "game_maxn",
        ),
    ],
)
def test_every_choice_of_the_optimal_bot_is_one_the_hints_rank_best(rules, players, kind):
    """Where a game is solved whole, what bot:optimal plays is worth the most of every legal choice."""
    strategy = strategy_for(rules, players)
    assert strategy.covering == kind
    bot, decisions = OptimalBot(), 0
    for seed in range(3):
        game, dice = Game(rules, [f"P{s}" for s in range(players)]), SeededDice(f"best-{kind}-{seed}")
        while not game.state.is_over:
            state = game.state
            if state.chance is not None:
                game.throw(dice.throw(state.chance))
                continue
            action = bot.choose(state)
            ranked = strategy.choices(state)
            if ranked:
                decisions += 1
                value = dict(ranked)[action]
                assert value == pytest.approx(ranked[0][1], abs=1e-12), (state, action, ranked[:3])
            game.act(action)
    assert decisions > 5


def test_the_bot_and_the_analysis_refuse_in_their_own_words():
    with pytest.raises(InvalidPlayers, match="plays 2 to 8 players, not 9"):
        refuse(Ruleset.preset("classic-11"), 9, "optimal")
    with pytest.raises(InvalidPlayers, match="a game of 9 players cannot be analysed: the round solver"):
        refuse(Ruleset.preset("classic-11"), 9, "analysis")


@pytest.mark.parametrize(
    ("preset", "players", "kind"),
    [
        ("classic-11", 2, "heads_up"),
        ("classic-11", 3, "game_maxn"),
        ("classic-11", 4, "game_maxn"),
        ("lyonnaise-21", 2, "heads_up"),
        ("lyonnaise-21", 3, "game_maxn"),  # every throw adds to the stake: « le bon » weighed
        ("engranjeu-21", 3, "game_maxn"),  # throw counts compared, and « le bon » weighed
        ("lyonnaise-21", 5, "rounds"),  # accumulated stakes at five, throwing on or not
    ],
)
def test_players_behind_who_must_throw_on_are_played_and_valued(preset, players, kind):
    """The manche of two is solved whole, and the game of three to five wherever it is without the
    option; elsewhere it is played round by round, for the reason it would be without it."""
    throwing_on = Ruleset.preset(preset).with_options(must_throw_on=True)
    assert covering(throwing_on, players) == kind
    why = why_rounds(throwing_on, players)
    assert why == why_rounds(Ruleset.preset(preset), players)
    assert (why is not None) == (kind == "rounds")
    for purpose in ("optimal", "analysis"):
        refuse(throwing_on, players, purpose)  # played and valued


def test_outside_the_solvers_nobody_decides_which_solver_covers_a_table():
    """What the choice is made from (each solver's ``unsupported``, manches carrying over) is read by
    the solvers alone: everyone else asks :mod:`py421.solver.strategy`."""
    root = Path(py421.__file__).parent
    found = []
    for path in root.rglob("*.py"):
        if path.relative_to(root).parts[0] == "solver":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and "solver" in (node.module or ""):
                if {a.name for a in node.names} & {"unsupported", "carries_over"}:
                    found.append(f"{path.relative_to(root)}:{node.lineno}")
            elif isinstance(node, ast.Attribute) and node.attr in ("unsupported", "carries_over"):
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    assert found == []
