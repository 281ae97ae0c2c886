"""Rulesets: the ranking of results and every procedure option, as frozen data.

The options are declared once, here, with their defaults (the common rule of
the sources), the values they accept and one line of documentation. The
seven presets are TOML files in ``presets/`` that name only what differs.

>>> r = Ruleset.preset("classic-11").with_settings(["pot=21"])
>>> r.pot, r.name
(21, 'classic-11')
>>> Ruleset.preset("classic-11").with_settings(["pots=21"])
Traceback (most recent call last):
...
py421.core.errors.InvalidRuleset: unknown option 'pots' (did you mean 'pot'?); accepted: ...
"""

from __future__ import annotations

import difflib
import os
import re
import textwrap
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import Field, dataclass, field, fields, replace
from functools import cache, cached_property
from typing import Any, Literal, TypeVar, get_args

from .combos import RANKINGS, CombinationTable, Ranking, build_table
from .errors import InvalidRuleset, Message, quoted
from .syntax import Unparsable, as_json, load

MAX_THROWS = 3

# The options with fixed choices: each Literal is the one list of its choices, so mypy checks
# every comparison with an option's value, and the tuples below (what is accepted, the docs,
# the kernel's numbers) are read from it.
TieBreak = Literal["rampot", "last_player_first", "qui_barre_demarre"]
FirstPlayer = Literal["first_seat", "lowest_die", "highest_throw"]
DechargeLeader = Literal["round_loser", "fewest_tokens", "worst_coup_sec"]
Espagnole = Literal["loses_manche", "loses_game"]
Winners = Literal["none", "first_out", "in_order"]
TIE_BREAKS: tuple[TieBreak, ...] = get_args(TieBreak)
FIRST_PLAYERS: tuple[FirstPlayer, ...] = get_args(FirstPlayer)
DECHARGE_LEADERS: tuple[DechargeLeader, ...] = get_args(DechargeLeader)
ESPAGNOLES: tuple[Espagnole, ...] = get_args(Espagnole)
WINNERS: tuple[Winners, ...] = get_args(Winners)

T = TypeVar("T")


def _opt(
    default: T,
    doc: str,
    *,
    choices: tuple[T, ...] = (),
    low: int | None = None,
    high: int | None = None,
    group: str,
) -> T:
    """An option's field; typed so that mypy checks the default and choices against the annotation."""
    meta = {"doc": doc, "choices": choices, "low": low, "high": high, "group": group}
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class Ruleset:
    """A complete, frozen set of rules: build one with :meth:`preset` and :meth:`with_options`."""

    name: str = "custom"
    description: str = ""
    source: str = ""

    # -- results -----------------------------------------------------------
    ranking: Ranking = _opt(  # noqa: RUF009 - _opt returns a field()
        "classic", "order of the 56 results (see docs/rules.md)", choices=RANKINGS, group="results"
    )
    ace_high: bool = _opt(
        False,
        "the ace counts as the highest face when simples and first-player throws are compared",
        group="results",
    )
    pair_fiches: bool = _opt(
        False,
        "any pair and a face is worth that face, ranked right after the x11",
        group="results",
    )
    value_421: int = _opt(8, "tokens for 421", low=0, high=99, group="results")
    value_111: int = _opt(7, "tokens for 111", low=0, high=99, group="results")
    value_suite: int = _opt(2, "tokens for a suite", low=0, high=99, group="results")
    value_simple: int = _opt(1, "tokens for a simple", low=0, high=99, group="results")
    value_nenette: int = _opt(1, "tokens for nénette 221", low=0, high=99, group="results")

    # -- table -------------------------------------------------------------
    pot: int = _opt(11, "tokens in the pot at the start of each manche", low=1, high=999, group="table")
    initial_tokens: int = _opt(
        0, "tokens every player also holds at the start of a manche", low=0, high=999, group="table"
    )
    min_players: int = _opt(2, "fewest players allowed", low=2, high=999, group="table")
    max_players: int = _opt(0, "most players allowed (0: no limit)", low=0, high=999, group="table")

    # -- turns -------------------------------------------------------------
    charge_throws: int = _opt(1, "most throws in a charge turn", low=1, high=MAX_THROWS, group="turns")
    decharge_throws: int = _opt(3, "most throws in a décharge turn", low=1, high=MAX_THROWS, group="turns")
    leader_limit: bool = _opt(
        True, "the throws the leader used are the most the others may use", group="turns"
    )
    le_bon: bool = _opt(False, "a player may declare « le bon »: the next throw is final", group="turns")
    must_throw_on: bool = _opt(
        False,
        "a player not yet ahead of every earlier result must throw again while throws remain "
        "(« le bon » makes a throw final)",
        group="turns",
    )
    accumulated_stakes: bool = _opt(
        False, "charge: the stake is the sum of every throw of the round", group="turns"
    )

    # -- amounts -----------------------------------------------------------
    nenette_penalty: int = _opt(
        0,
        "a loser whose result is 221 takes this many tokens whatever the others threw (0: off)",
        low=0,
        high=99,
        group="amounts",
    )
    nenette_last_wins: bool = _opt(
        False, "if every player threw 221, the last to throw it wins", group="amounts"
    )
    value_deduction: bool = _opt(
        False,
        "the amount is the winner's value minus the loser's (never below 0; nénette not deducted)",
        group="amounts",
    )
    queue_de_la_vache: bool = _opt(
        False,
        "a charge loser who must take more than the pot holds owes the rest in the next manche",
        group="amounts",
    )

    # -- ties --------------------------------------------------------------
    tie_break: TieBreak = _opt(  # noqa: RUF009 - _opt returns a field()
        "rampot",
        "how tied players are separated",
        choices=TIE_BREAKS,
        group="ties",
    )
    tied_losers_all_take: bool = _opt(
        False, "every player tied for worst takes the amount (no tie-break)", group="ties"
    )

    # -- leaders -----------------------------------------------------------
    first_player: FirstPlayer = _opt(  # noqa: RUF009 - _opt returns a field()
        "first_seat",
        "who leads the first round",
        choices=FIRST_PLAYERS,
        group="leaders",
    )
    decharge_leader: DechargeLeader = _opt(  # noqa: RUF009 - _opt returns a field()
        "round_loser",
        "who leads the first round of the décharge",
        choices=DECHARGE_LEADERS,
        group="leaders",
    )

    # -- manches and the game ----------------------------------------------
    withdraw_at_zero: bool = _opt(
        True,
        "players holding no token after the charge leave the manche (off: they play the décharge)",
        group="game",
    )
    espagnole: Espagnole = _opt(  # noqa: RUF009 - _opt returns a field()
        "loses_manche",
        "a player holding every token after the charge loses the manche, or the whole game",
        choices=ESPAGNOLES,
        group="game",
    )
    manches: int = _opt(1, "manches in a game", low=1, high=99, group="game")
    fiches_de_manche: int = _opt(
        0,
        "instead: manches go on until a player has lost this many (0: off)",
        low=0,
        high=99,
        group="game",
    )
    winners: Winners = _opt(  # noqa: RUF009 - _opt returns a field()
        "none",
        "winners named: none, the first player out of tokens, or everyone in the order they got out",
        choices=WINNERS,
        group="game",
    )

    def __post_init__(self) -> None:
        for f in option_fields():
            _check_value(f, getattr(self, f.name))
        problems: list[Message] = []
        if self.max_players and self.min_players > self.max_players:
            problems.append(
                Message(
                    "ruleset.players_range",
                    {"low": self.min_players, "high": self.max_players},
                )
            )
        if self.manches > 1 and self.fiches_de_manche:
            # The engine would follow fiches_de_manche and ignore manches: refused, not guessed.
            problems.append(
                Message(
                    "ruleset.manches_and_fiches",
                    {"manches": self.manches, "fiches": self.fiches_de_manche},
                )
            )
        if self.winners != "none" and (self.manches != 1 or self.fiches_de_manche):
            problems.append(
                Message(
                    "ruleset.winners",
                    {"winners": self.winners},
                )
            )
        if self.queue_de_la_vache and self.manches == 1 and not self.fiches_de_manche:
            problems.append(
                Message(
                    "ruleset.queue_de_la_vache",
                )
            )
        if self.le_bon and max(self.charge_throws, self.decharge_throws) < 2:
            throws = {"charge": self.charge_throws, "decharge": self.decharge_throws}
            problems.append(Message("ruleset.le_bon", throws))
        if problems:
            raise InvalidRuleset(_joined(problems))
        self.table  # noqa: B018 - builds the table now so inconsistent rankings fail here

    # -- building ----------------------------------------------------------

    @staticmethod
    def preset(name: str) -> Ruleset:
        """One of the seven presets by name."""
        found = _presets().get(name)
        if found is None:
            accepted = ", ".join(preset_names())
            raise InvalidRuleset(
                Message(
                    "ruleset.unknown_preset",
                    {"name": quoted(name), "accepted": accepted},
                )
            )
        return found

    def with_options(self, **options: Any) -> Ruleset:
        """A copy with some options changed; values may be typed or text."""
        known = {f.name: f for f in option_fields()}
        for key in options:
            if key not in known:
                raise InvalidRuleset(_unknown(key))
        return replace(self, **{k: _convert(known[k], v) for k, v in options.items()})

    def with_settings(self, settings: Iterable[str]) -> Ruleset:
        """A copy changed by ``OPTION=VALUE`` texts, as typed after ``--set``."""
        options: dict[str, str] = {}
        for text in settings:
            key, sep, value = text.partition("=")
            if not sep or not key.strip():
                raise InvalidRuleset(
                    Message(
                        "ruleset.setting",
                        {"text": quoted(text)},
                    )
                )
            key, value = key.strip(), value.strip()
            if key in options:  # the last one would be taken without a word: say which was meant
                first, then = f"{key}={options[key]}", f"{key}={value}"
                raise InvalidRuleset(
                    Message(
                        "ruleset.setting_twice",
                        {"option": key, "first": first, "then": then},
                    )
                )
            options[key] = value
        return self.with_options(**options)

    @staticmethod
    def from_mapping(data: Mapping[str, Any]) -> Ruleset:
        """A ruleset from a file's content: ``base`` (a preset), meta, ``options``.

        Also reads the JSON printed by ``421 rules show --json``.
        """
        allowed = {"base", "name", "description", "source", "options", "results", "seed_file"}
        keys = ", ".join(sorted(allowed))
        if not isinstance(data, Mapping):
            raise InvalidRuleset(
                Message(
                    "ruleset.not_a_table",
                    {"accepted": keys, "got": as_json(data)},
                )
            )
        for key in data:
            if key not in allowed:
                raise InvalidRuleset(
                    Message(
                        "ruleset.unknown_key",
                        {"name": quoted(key), "accepted": keys},
                    )
                )
        base_name = data.get("base")
        base = Ruleset.preset(str(base_name)) if base_name is not None else Ruleset()
        options = data.get("options", {})
        if not isinstance(options, Mapping):
            raise InvalidRuleset(Message("ruleset.options_table"))
        meta: dict[str, Any] = {k: str(data[k]) for k in ("name", "description", "source") if k in data}
        return replace(base.with_options(**options), **meta)

    @staticmethod
    def from_text(text: str, *, filename: str = "ruleset") -> Ruleset:
        """Parse a ruleset file (TOML, or JSON when it starts with ``{`` or its name ends in ``.json``)."""
        as_json = text.removeprefix("\ufeff").lstrip().startswith("{") or filename.lower().endswith(".json")
        try:
            data = load(text, toml=not as_json)
        except Unparsable as exc:
            reason = exc.reason
            raise InvalidRuleset(
                Message(
                    "ruleset.not_toml",
                    {"file": filename, "reason": reason},
                )
            ) from None
        if isinstance(data, Mapping) and not data:  # saved before it was written: no rule was chosen
            raise InvalidRuleset(Message("ruleset.empty_file", {"file": filename}))
        # a name is what headers, history and records show: a new file must give one (records kept
        # before read as they were, through from_mapping)
        try:
            if isinstance(data, Mapping) and "name" in data and not str(data["name"]).strip():
                raise InvalidRuleset(Message("ruleset.empty_name"))
            return Ruleset.from_mapping(data)
        except InvalidRuleset as exc:  # which file holds the value refused, as a syntax error says
            why = exc.message if exc.message is not None else str(exc)
            raise InvalidRuleset(Message("ruleset.in_file", {"file": filename, "reason": why})) from None

    # -- reading -----------------------------------------------------------

    @cached_property  # the engine reads it at every step: kept in the instance's dict, not looked up
    def table(self) -> CombinationTable:
        """The ranking and the values of the 56 results."""
        return _table(
            self.ranking,
            self.ace_high,
            self.pair_fiches,
            self.value_421,
            self.value_111,
            self.value_suite,
            self.value_simple,
            self.value_nenette,
        )

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its table, which the process that reads it finds in its own cache."""
        state = dict(self.__dict__)
        state.pop("table", None)
        return state

    def options(self) -> dict[str, Any]:
        """Every option and its value, in declaration order."""
        return {f.name: getattr(self, f.name) for f in option_fields()}

    def changed_options(self) -> dict[str, Any]:
        """The options that differ from the common rule."""
        return {k: v for k, v in self.options().items() if v != _DEFAULTS[k]}

    def to_dict(self) -> dict[str, Any]:
        """Name, source and options; enough to rebuild the ruleset with :meth:`from_mapping`."""
        return {
            "name": self.name,
            "description": self.description,
            "source": self.source,
            "options": self.options(),
        }

    def seats(self, players: int) -> bool:
        """Whether ``players`` may play under these rules."""
        return self.min_players <= players and (not self.max_players or players <= self.max_players)

    @property
    def players_range(self) -> str:
        """How many may play, in words: ``2``, ``2 to 8`` or ``2 or more``.

        >>> Ruleset.preset("classic-11").players_range, Ruleset.preset("engranjeu-21").players_range
        ('2 or more', '2 to 8')
        """
        low, high = self.min_players, self.max_players
        if not high:
            return f"{low} or more"
        return f"{low}" if low == high else f"{low} to {high}"

    def throws_allowed(self, charge: bool) -> int:
        return self.charge_throws if charge else self.decharge_throws

    @property
    def tie_order_reversed(self) -> bool:
        return self.tie_break == "qui_barre_demarre"

    @property
    def main_chaude(self) -> bool:
        """Whether a tie-break that ties again asks its first thrower for the stake (« main chaude »):
        « pour ce qui est » or « pour ce qui vient ».

        >>> Ruleset.preset("engranjeu-21").main_chaude, Ruleset.preset("classic-11").main_chaude
        (True, False)
        """
        return self.tie_break == "qui_barre_demarre"

    def changed_from_preset(self) -> dict[str, Any] | None:
        """The options set on the preset this ruleset is named after; None if it is not one.

        >>> Ruleset.preset("classic-11").with_options(pot=3).changed_from_preset()
        {'pot': 3}
        """
        preset = _presets().get(self.name)
        if preset is None or (self.description, self.source) != (preset.description, preset.source):
            return None
        return {k: v for k, v in self.options().items() if v != getattr(preset, k)}

    def __repr__(self) -> str:
        """Code that builds this ruleset again, naming only what differs from a preset or the defaults.

        >>> Ruleset.preset("tim")
        Ruleset.preset('tim')
        >>> Ruleset.preset("classic-11").with_options(pot=21, tie_break="qui_barre_demarre")
        Ruleset.preset('classic-11').with_options(pot=21, tie_break='qui_barre_demarre')
        >>> Ruleset(name="house", pot=15)
        Ruleset(name='house', pot=15)
        """
        changed = self.changed_from_preset()
        if changed is not None:
            options = f".with_options({_arguments(changed)})" if changed else ""
            return f"Ruleset.preset({self.name!r}){options}"
        meta = {k: getattr(self, k) for k in ("name", "description", "source")}
        differs = {k: v for k, v in meta.items() if v != _META_DEFAULTS[k]} | self.changed_options()
        return f"Ruleset({_arguments(differs)})"


def option_fields() -> tuple[Field[Any], ...]:
    """The declared options (every field that has documentation)."""
    return tuple(f for f in fields(Ruleset) if "doc" in f.metadata)


_DEFAULTS = {f.name: f.default for f in option_fields()}
_META_DEFAULTS = {f.name: f.default for f in fields(Ruleset) if "doc" not in f.metadata}


def _arguments(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in values.items())


def accepted(f: Field[Any], say: Callable[[Message], str] = str) -> str:
    """What an option accepts, in words (``say`` words a range in the reader's language)."""
    if f.metadata["choices"]:
        return " | ".join(f.metadata["choices"])
    if f.type in ("bool", bool):
        return "true | false"
    low, high = f.metadata["low"], f.metadata["high"]
    return say(Message("rules.range", {"low": low, "high": high}))


def description_message(r: Ruleset) -> Message:
    """A ruleset's description, keyed by its preset while it is a preset's own (``preset.<name>``).

    A preset's description says its pot; it is worded with the pot actually set, in a ruleset
    named after the preset or in a file that keeps its base's description:

    >>> description_message(Ruleset.preset("vache-41").with_options(pot=31)).text[:30]
    '« À la vache »: 31 tokens, bre'
    """
    preset = next((p for p in _presets().values() if r.description and p.description == r.description), None)
    if preset is None:
        return Message("verbatim", {"text": r.description})
    return Message(f"preset.{preset.name}", {"n": r.pot})


def description_template(preset: Ruleset) -> str:
    """A preset's description with its pot as a field, ``{n} token{s}``: the catalog's English.

    >>> description_template(Ruleset.preset("classic-11"))[:40]
    'The classic bar game: {n} token{s}, coup'
    """
    return preset.description.replace(f"{preset.pot} tokens", "{n} token{s}")


def _unknown(key: str) -> Message:
    names = ", ".join(f.name for f in option_fields())
    close = difflib.get_close_matches(key, [f.name for f in option_fields()], n=1)
    if close:
        return Message(
            "ruleset.unknown_option.close",
            {"name": quoted(key), "close": repr(close[0]), "accepted": names},
        )
    return Message(
        "ruleset.unknown_option",
        {"name": quoted(key), "accepted": names},
    )


def _joined(problems: list[Message]) -> Message:
    """Several problems as one message, each worded in the reader's language."""
    if len(problems) == 1:
        return problems[0]
    rest = _joined(problems[1:])
    return Message("ruleset.problems", {"first": problems[0], "rest": rest})


def _not_accepted(f: Field[Any], value: Any) -> Message:
    """An option's value it does not take, and what it takes (a range worded in the reader's language)."""
    takes: object = accepted(f)
    if not f.metadata["choices"] and f.type not in ("bool", bool):
        low, high = f.metadata["low"], f.metadata["high"]
        takes = Message("rules.range", {"low": low, "high": high})
    return Message(
        "ruleset.bad_value",
        # a text quoted, to show where it starts and ends; true or false as a file and --set spell them
        {
            "option": f.name,
            "value": _shown(value) if isinstance(value, bool) else repr(value),
            "accepted": takes,
        },
    )


_TRUE = {"true", "yes", "on", "1", "oui"}
_FALSE = {"false", "no", "off", "0", "non"}


def _convert(f: Field[Any], value: Any) -> Any:
    """Turn text (or a typed value) into the option's type, or say what is accepted."""
    kind = f.type if isinstance(f.type, str) else f.type.__name__
    if kind == "bool":
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    elif kind == "int":
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        try:
            return int(str(value).strip())
        except ValueError:
            pass
    elif isinstance(value, str):
        return value.strip()
    raise InvalidRuleset(_not_accepted(f, value))


def _check_value(f: Field[Any], value: Any) -> None:
    meta = f.metadata
    bad = False
    if meta["choices"]:
        bad = value not in meta["choices"]
    elif f.type in ("bool", bool):
        bad = not isinstance(value, bool)
    else:
        bad = (
            not isinstance(value, int) or isinstance(value, bool) or not meta["low"] <= value <= meta["high"]
        )
    if bad:
        raise InvalidRuleset(_not_accepted(f, value))


@cache
def _table(
    ranking: Ranking,
    ace_high: bool,
    pair_fiches: bool,
    value_421: int,
    value_111: int,
    value_suite: int,
    value_simple: int,
    value_nenette: int,
) -> CombinationTable:
    return build_table(
        ranking,
        ace_high=ace_high,
        pair_fiches=pair_fiches,
        value_421=value_421,
        value_111=value_111,
        value_suite=value_suite,
        value_simple=value_simple,
        value_nenette=value_nenette,
    )


PRESET_ORDER = (
    "classic-11",
    "lyonnaise-21",
    "vache-41",
    "kytionnaire",
    "tim",
    "comptoir-21",
    "engranjeu-21",
)


def preset_names() -> tuple[str, ...]:
    return PRESET_ORDER


@cache
def _presets() -> dict[str, Ruleset]:
    found: dict[str, Ruleset] = {}
    # beside this module, in every install (read with os.path: importlib.resources costs a command's start)
    folder = os.path.join(os.path.dirname(__file__), "presets")
    for name in PRESET_ORDER:
        with open(os.path.join(folder, f"{name}.toml"), encoding="utf-8") as file:
            text = file.read()
        data = tomllib.loads(text)
        options = data.get("options", {})
        meta: dict[str, Any] = {k: data[k] for k in ("name", "description", "source")}
        found[name] = replace(Ruleset().with_options(**options), **meta)
    return found


# -- as shown by ``421 rules show`` ---------------------------------------------


def result_rows(r: Ruleset) -> list[dict[str, Any]]:
    """Every result, strongest first: rank, dice, category, tokens it is worth, chance in 216."""
    table = r.table
    return [
        {
            "rank": i,
            "dice": str(res),
            "category": table.categories[res].value,
            "value": table.values[res],
            "ways": res.ways,
        }
        for i, res in enumerate(table.order, start=1)
    ]


# Where a line is never cut: before French punctuation that has a space before it (« : », « ; »,
# « ? », « ! », « » »), after « «, and inside a short range such as « (0 to 99) ».
_UNBREAKABLE = re.compile(r" [:;?!»]|« |\([^()]{1,16}\)")
_GLUE = "\ue000"  # a space while wrapping that textwrap does not cut at (a private-use character)


def _shown(value: object) -> str:
    """An option's value as a ruleset file writes it (``true``, not ``True``)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def rules_name(rules: Ruleset) -> str:
    """The rules' name as the output shows it: a preset with its options changed by ``--set`` named
    with them, so that a number is never read as the preset's own.

    >>> rules_name(Ruleset.preset("classic-11").with_options(pot=3, le_bon=False))
    'classic-11 (pot=3, le_bon=false)'
    """
    return named_with(rules.name, rules.changed_from_preset() or {})


def rules_fields(rules: Ruleset) -> dict[str, Any]:
    """How a JSON report names its rules: the preset or file (``rules``) and the options changed
    from the preset (``options``, empty for the preset itself or a ruleset file)."""
    return {"rules": rules.name, "options": rules.changed_from_preset() or {}}


def named_with(name: str, changed: Mapping[str, object]) -> str:
    """A preset's ``name`` with the options ``changed`` from it, as :func:`rules_name` shows them
    (from a report's ``rules`` and ``options``, say).

    >>> named_with("vache-41", {"pot": 9}), named_with("tim", {})
    ('vache-41 (pot=9)', 'tim')
    """
    if not changed:
        return name
    return f"{name} ({', '.join(f'{k}={_shown(v)}' for k, v in changed.items())})"


def rules_arguments(rules: Ruleset) -> str:
    """The command-line arguments that name these rules: ``--rules`` and a ``--set`` for each option
    changed from the preset.

    >>> rules_arguments(Ruleset.preset("classic-11").with_options(pot=3, le_bon=False))
    '--rules classic-11 --set pot=3 --set le_bon=false'
    """
    changed = rules.changed_from_preset() or {}
    return " ".join([f"--rules {rules.name}", *(f"--set {k}={_shown(v)}" for k, v in changed.items())])


def rules_text(r: Ruleset, say: Callable[[Message], str] = str, width: int | None = None) -> str:
    """A ruleset as ``421 rules show`` prints it: options by group, then the results.

    Each sentence is a :class:`Message`; ``say`` words it in the reader's language
    (the default, ``str``, is the English). With a ``width`` (the terminal's), the lines are
    wrapped to it, and an option's description goes on under itself, so that the columns stay
    whole; the value column is as wide as the longest value.
    """

    def w(key: str, **fields: object) -> str:
        return say(Message(key, fields))

    def wrapped(text: str, head: str, indent: str) -> list[str]:
        if width is None:
            return [head + text]
        room = max(width - 1, len(indent) + 20)  # the last column left free: no line runs into the next
        glued = _UNBREAKABLE.sub(lambda m: m.group().replace(" ", _GLUE), text)
        cut = textwrap.wrap(
            glued, room, initial_indent=head, subsequent_indent=indent, break_on_hyphens=False
        )
        return [line.replace(_GLUE, " ") for line in cut] or [head.rstrip()]

    description = say(description_message(r))
    lines = [
        *wrapped(w("rules.title", name=r.name, description=description), "", "  "),
        *wrapped(w("rules.source", source=r.source), "", "  "),
        "",
        *wrapped(w("rules.options"), "", "  "),
    ]
    changed = r.changed_options()
    options = option_fields()
    shown = {f.name: _shown(getattr(r, f.name)) for f in options}
    name_width = max(len(f.name) for f in options) + 1
    value_width = max(len(value) for value in shown.values())
    indent = " " * (4 + name_width + 3 + value_width + 2)
    group = ""
    for f in options:
        if f.metadata["group"] != group:
            group = f.metadata["group"]
            lines.append(f"  [{w('group.' + group)}]")
        mark = "*" if f.name in changed else " "
        doc = w(f"option.{f.name}")
        head = f"  {mark} {f.name:<{name_width}} = {shown[f.name]:<{value_width}}  "
        lines += wrapped(f"{doc} ({accepted(f, say)})", head, indent)
    lines += [
        "",
        *wrapped(
            w("rules.results"),
            "",
            "  ",
        ),
    ]
    for res, row in zip(r.table.order, result_rows(r), strict=True):
        c = r.table.categories[res]
        category = w(f"category.{c.value}")
        lines.append(f"  {row['rank']:>2}  {row['dice']}  {category:<15} {row['value']:>2}  {row['ways']}")
    return "\n".join(lines)
