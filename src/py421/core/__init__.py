"""The pure core of py421: dice, rulesets and the engine. No I/O, no global random."""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

# Each name's module, imported when the name is first used: a module of the core imported on its
# own (py421.core.errors, say) does not bring the engine with it.
_WHERE = {
    **dict.fromkeys(("Action", "ChooseStake", "Stop", "Throw", "parse_action"), "actions"),
    **dict.fromkeys(("Category", "CombinationTable", "compare"), "combos"),
    **dict.fromkeys(("ALL_RESULTS", "Result", "format_dice", "parse_dice"), "dice"),
    "new_game": "engine",
    **dict.fromkeys(
        (
            "IllegalAction",
            "InvalidNotation",
            "InvalidParameter",
            "InvalidPlayers",
            "InvalidPosition",
            "InvalidRecord",
            "InvalidRuleset",
            "Py421Error",
        ),
        "errors",
    ),
    **dict.fromkeys(("Ruleset", "preset_names"), "rules"),
    **dict.fromkeys(("ChanceRequest", "Outcome", "Phase", "State"), "state"),
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value
    return value


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
