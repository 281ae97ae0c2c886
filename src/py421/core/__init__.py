"""The pure core of py421: dice, rulesets and the engine. No I/O, no global random."""

from .actions import Action, ChooseStake, Stop, Throw, parse_action
from .combos import Category, CombinationTable, compare
from .dice import ALL_RESULTS, Result, format_dice, parse_dice
from .engine import new_game
from .errors import (
    IllegalAction,
    InvalidNotation,
    InvalidParameter,
    InvalidPlayers,
    InvalidPosition,
    InvalidRecord,
    InvalidRuleset,
    Py421Error,
)
from .rules import Ruleset, preset_names
from .state import ChanceRequest, Outcome, Phase, State

__all__ = [
    "ALL_RESULTS",
    "Action",
    "Category",
    "ChanceRequest",
    "ChooseStake",
    "CombinationTable",
    "IllegalAction",
    "InvalidNotation",
    "InvalidParameter",
    "InvalidPlayers",
    "InvalidPosition",
    "InvalidRecord",
    "InvalidRuleset",
    "Outcome",
    "Phase",
    "Py421Error",
    "Result",
    "Ruleset",
    "State",
    "Stop",
    "Throw",
    "compare",
    "format_dice",
    "new_game",
    "parse_action",
    "parse_dice",
    "preset_names",
]
