"""A closed vocabulary: choices read from Literal types, reprs that are code, errors of the project's own."""

import ast
import re
import typing
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

import pytest
from click.testing import CliRunner

from py421.cli import main
from py421.core import rules as rules_module
from py421.core.actions import ChooseStake, ReportedTurn, Stop, Throw, parse_action
from py421.core.combos import RANKINGS, Ranking
from py421.core.dice import ALL_RESULTS, Result
from py421.core.errors import InvalidParameter, InvalidPosition, Py421Error
from py421.core.rules import Ruleset, option_fields, preset_names
from py421.solver.advice import RoundContext, advise_game, advise_round
from py421.solver.exact_turn import advise

SRC = Path(__file__).parents[1] / "src" / "py421"
HINTS = typing.get_type_hints(Ruleset)
CHOICE_FIELDS = [f for f in option_fields() if f.metadata["choices"]]

# -- choices ------------------------------------------------------------------------


def test_the_options_with_choices_are_the_literal_ones():
    literal = [f.name for f in option_fields() if get_origin(HINTS[f.name]) is Literal]
    assert literal == [f.name for f in CHOICE_FIELDS]
    assert literal == ["ranking", "tie_break", "first_player", "decharge_leader", "espagnole", "winners"]


@pytest.mark.parametrize("field", CHOICE_FIELDS, ids=lambda f: f.name)
def test_an_options_choices_are_its_literal_types_args(field):
    assert field.metadata["choices"] == get_args(HINTS[field.name])
    assert field.default in field.metadata["choices"]


def test_the_tuples_of_choices_are_the_literal_types_args():
    pairs: list[tuple[tuple[str, ...], Any]] = [
        (RANKINGS, Ranking),
        (rules_module.TIE_BREAKS, rules_module.TieBreak),
        (rules_module.FIRST_PLAYERS, rules_module.FirstPlayer),
        (rules_module.DECHARGE_LEADERS, rules_module.DechargeLeader),
        (rules_module.ESPAGNOLES, rules_module.Espagnole),
        (rules_module.WINNERS, rules_module.Winners),
    ]
    for choices, literal in pairs:
        assert choices == get_args(literal)


def test_rules_show_lists_each_options_choices_from_its_literal_type():
    output = CliRunner().invoke(main, ["rules", "show", "classic-11"]).output
    whole = re.sub(r"\n {10,}", " ", output)  # an option's description wrapped to the terminal, in one line
    lines = {line.strip(" *").split(" ", 1)[0]: line for line in whole.splitlines() if "=" in line}
    for field in CHOICE_FIELDS:
        assert lines[field.name].endswith(f"({' | '.join(get_args(HINTS[field.name]))})"), field.name


def test_a_choice_not_offered_is_refused_with_the_literal_types_args():
    result = CliRunner().invoke(main, ["rules", "show", "classic-11", "--set", "tie_break=coin"])
    assert result.exit_code == 2
    takes = " | ".join(get_args(rules_module.TieBreak))
    assert f"Error: tie_break='coin' is not accepted; tie_break takes {takes}" in result.output


def test_the_kernel_numbers_every_choice():
    pytest.importorskip("numba")
    from py421.sim.fast import arrays

    tables: list[tuple[Mapping[Any, int], tuple[str, ...]]] = [
        (arrays.TIE_BREAK_CODES, rules_module.TIE_BREAKS),
        (arrays.FIRST_PLAYER_CODES, rules_module.FIRST_PLAYERS),
        (arrays.DECHARGE_LEADER_CODES, rules_module.DECHARGE_LEADERS),
    ]
    for codes, choices in tables:
        assert tuple(codes) == choices
        assert len(set(codes.values())) == len(choices)


# -- reprs ---------------------------------------------------------------------------

NAMESPACE = {
    "Result": Result,
    "Throw": Throw,
    "Stop": Stop,
    "ChooseStake": ChooseStake,
    "ReportedTurn": ReportedTurn,
    "Ruleset": Ruleset,
}


def read_back(x: object) -> object:
    return eval(repr(x), dict(NAMESPACE))


@pytest.mark.parametrize("result", ALL_RESULTS, ids=str)
def test_every_result_reads_back_from_its_repr(result):
    assert repr(result) == f"Result.parse('{result}')"
    assert read_back(result) == result


ACTIONS = [
    Throw(),
    Throw((4, 2)),
    Throw((6,), bon=True),
    Throw(bon=True),
    Stop(),
    ChooseStake("est"),
    ChooseStake("vient"),
    *(parse_action(text) for text in ("keep 5-5", "bon 42", "stake vient", "stop")),
    ReportedTurn.parse("421"),
    ReportedTurn.parse("654/2 bon"),
    ReportedTurn.parse("321;221;421"),
]


@pytest.mark.parametrize("action", ACTIONS, ids=str)
def test_actions_read_back_from_their_repr(action):
    assert read_back(action) == action


@pytest.mark.parametrize("name", preset_names())
def test_a_preset_reads_back_from_its_repr(name):
    preset = Ruleset.preset(name)
    assert repr(preset) == f"Ruleset.preset('{name}')"
    assert repr(preset.with_options(pot=preset.pot)) == repr(preset)  # a change back is no change
    assert read_back(preset) == preset


CHANGED = [
    (Ruleset.preset("classic-11").with_options(pot=21), "Ruleset.preset('classic-11').with_options(pot=21)"),
    (
        Ruleset.preset("tim").with_settings(["tie_break=qui_barre_demarre", "le_bon=yes"]),
        "Ruleset.preset('tim').with_options(le_bon=True, tie_break='qui_barre_demarre')",
    ),
    (Ruleset(), "Ruleset()"),
    (Ruleset(pot=21, winners="in_order"), "Ruleset(pot=21, winners='in_order')"),
    (Ruleset(name="house", ranking="vache"), "Ruleset(name='house', ranking='vache')"),
]


@pytest.mark.parametrize(("rules", "text"), CHANGED, ids=[text for _, text in CHANGED])
def test_a_changed_or_custom_ruleset_reads_back_naming_only_what_differs(rules, text):
    assert repr(rules) == text
    assert read_back(rules) == rules


def test_a_ruleset_from_a_file_or_renamed_reads_back():
    from_file = Ruleset.from_text('base = "vache-41"\nname = "house"\n[options]\npot = 30\nle_bon = false\n')
    renamed = replace(Ruleset.preset("engranjeu-21"), description="our table's rules")
    for rules in (from_file, renamed):
        assert repr(rules).startswith("Ruleset(name=")
        assert read_back(rules) == rules


# -- errors --------------------------------------------------------------------------

TABLE = Ruleset.preset("classic-11").table


@pytest.mark.parametrize(
    ("ask", "error", "message"),
    [
        (
            lambda: advise(TABLE, Result.parse("642"), 3),
            InvalidPosition,
            "a turn has at most 3 throws here: 0 to 2 left, not 3",
        ),
        (
            lambda: advise_round(
                Ruleset.preset("classic-11"),
                Result.parse("642"),
                2,
                RoundContext(3, (Result.parse("653"),), limit=1),
                "loser",
            ),
            InvalidPosition,
            "a turn has at most 1 throw here: no throw can be left, not 2",
        ),
        (
            lambda: advise_round(
                Ruleset.preset("tim"),
                Result.parse("642"),
                0,
                RoundContext(2, (Result.parse("653"),) * 2),
                "loser",
            ),
            InvalidPosition,
            "2 results before yours need at least 3 players in the round, not 2",
        ),
        (
            lambda: advise_game(Ruleset.preset("classic-11"), Result.parse("642"), 0, RoundContext(3)),
            InvalidPosition,
            "the chance of losing the manche is solved for two players, not a round of 3",
        ),
    ],
)
def test_a_question_the_solver_cannot_answer_is_a_project_error(ask, error, message):
    with pytest.raises(error, match=re.escape(message)) as raised:
        ask()
    assert isinstance(raised.value, Py421Error)


def test_the_command_line_shows_the_solvers_refusal_as_one_line():
    args = ["advise", "642", "--throws-left", "2", "--before", "653", "--limit", "1", "--objective", "loser"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert result.output == "Error: a turn has at most 1 throw here: no throw can be left, not 2\n"


def test_a_simulations_numbers_are_refused_without_naming_flags():
    from py421.sim.simulate import Simulation, run

    tim = Ruleset.preset("tim")
    refused = [
        (
            lambda: Simulation(tim, ("heuristic",) * 2, 0),
            "the number of games is a whole number from 1, not 0",
        ),
        (lambda: Simulation(tim, ("heuristic",) * 2, 10, seed=-1), "a seed is a whole number from 0, not -1"),
        (
            lambda: run(Simulation(tim, ("heuristic",) * 2, 10), workers=0),
            "the number of worker processes is a whole number from 1, not 0",
        ),
    ]
    for make, message in refused:
        with pytest.raises(InvalidParameter) as raised:
            make()
        assert str(raised.value) == message


LIBRARY = [p for part in ("core", "solver", "players", "sim", "envs") for p in (SRC / part).rglob("*.py")]


def raises(path: Path) -> list[ast.Raise]:
    return [
        node for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(node, ast.Raise)
    ]


def test_library_errors_do_not_name_command_line_flags():
    flag = re.compile(r"(?<![\w-])--[a-z]")
    found = [
        f"{path.relative_to(SRC)}:{node.lineno}"
        for path in LIBRARY
        for node in raises(path)
        for text in ast.walk(node)
        if isinstance(text, ast.Constant) and isinstance(text.value, str) and flag.search(text.value)
    ]
    assert found == []


def test_the_library_raises_its_own_errors_not_bare_value_errors():
    bare = {"ValueError", "TypeError", "KeyError"}
    internal = SRC / "sim" / "fast" / "kernel.py"  # its one ValueError: a trace buffer its caller sized
    found = [
        f"{path.relative_to(SRC)}:{node.lineno}"
        for path in LIBRARY
        if path != internal
        for node in raises(path)
        if isinstance(node.exc, ast.Call) and isinstance(node.exc.func, ast.Name) and node.exc.func.id in bare
    ]
    assert found == []
