"""What every decision of a game was worth: the best choice, the one made, and what it cost.

A record is replayed through the engine; at every decision of the seats
analysed (the people's, and the bots' when asked), each legal action is
valued by the solver that covers the table, the mover playing on as well as
possible after it:

- two players (:mod:`.solver.heads_up`): the mover's exact chance of not
  losing the manche;
- two players where manches carry over (« queue de la vache », l'Espagnole
  losing the game), the game solved manche by manche
  (:mod:`.solver.heads_up_game`); three to five (or two, where neither
  applies) with the whole game solved by max^n (:mod:`.solver.game_maxn`):
  one minus the mover's expected share of the game's loss;
- elsewhere, each round by max^n (:mod:`.solver.rounds`): the mover's chance
  of not losing the round. The stake of « main chaude » changes nothing to
  that chance, so those choices are left unvalued there.

A choice's *cost* is the best value minus its own (0 for the best). A
decision is *accurate* within half a point (0.005) of the best. The result
is plain frozen dataclasses (:func:`analyse`), whose :meth:`Analysis.to_dict`
is the JSON of ``421 analyse --json``; :func:`analysis_text` words it.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal, get_args

from .core.actions import Action, Throw, parse_action
from .core.dice import Result
from .core.engine import throws_allowed
from .core.errors import InvalidPosition, Message
from .core.game import Game
from .core.record import Record
from .core.state import State
from .i18n import action_text, num, points, tr
from .players import is_bot_name
from .solver.strategy import Method, method_of, played, refuse, strategy_for

if TYPE_CHECKING:
    from .core.rules import Ruleset

METHODS: tuple[Method, ...] = get_args(Method)
# What each method's values are, as the JSON names them (advise's words).
OBJECTIVES: dict[Method, str] = {
    "heads_up": "P(not losing the manche)",
    "game": "1 - expected share of the game's loss",
    "rounds": "P(not the round's loser)",
}
ACCURATE = 0.005  # within half a point of the best
SAME = 1e-12  # values closer than this are one value: rounding, not a choice
MISTAKES_SHOWN = 3


@dataclass(frozen=True)
class Choice:
    """A legal action, as records write it, and its value to the mover."""

    action: str
    value: float


@dataclass(frozen=True)
class Decision:
    """One decision: where it was taken, the choice made, the best one and every legal choice ranked.

    ``kind`` is ``turn`` (stop, or which dice to keep, « le bon » included) or
    ``stake`` (« main chaude »); ``dice`` the dice held (a stake: the result
    that tied); ``before`` the results already final in the round, leader first.
    """

    step: int  # its number among the record's steps, from 1
    seat: int
    player: str
    bot: bool
    manche: int
    phase: str
    pot: int
    tokens: tuple[int, ...]  # every seat's, in seat order
    kind: Literal["turn", "stake"]
    dice: str
    throws_left: int
    before: tuple[str, ...]
    chosen: str
    chosen_value: float
    best: str  # the chosen action where it is worth the best
    best_value: float
    cost: float
    choices: tuple[Choice, ...]

    @property
    def accurate(self) -> bool:
        return self.cost <= ACCURATE


@dataclass(frozen=True)
class PlayerSummary:
    """One player's decisions in short: how many, how many accurate, their cost, the worst."""

    seat: int
    player: str
    bot: bool
    decisions: int
    accurate: int
    accuracy: float | None  # accurate / decisions; None without a decision
    cost: float  # every decision's cost added up
    mistakes: tuple[int, ...]  # the steps of the costliest decisions that were not accurate, costliest first
    unvalued: int  # decisions the method does not value (« main chaude » by the rounds)


@dataclass(frozen=True)
class Analysis:
    rules: str
    players: tuple[str, ...]
    method: Method
    objective: str
    bots: bool  # whether the bots' decisions are analysed
    accurate_within: float
    decisions: tuple[Decision, ...]
    summaries: tuple[PlayerSummary, ...]

    def to_dict(self) -> dict[str, Any]:
        """The analysis as JSON's types (lists, not tuples): what ``421 analyse --json`` prints."""
        found: dict[str, Any] = _listed(asdict(self))
        return found

    def decision(self, step: int) -> Decision:
        return next(d for d in self.decisions if d.step == step)


def _listed(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _listed(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [_listed(v) for v in data]
    return data


# -- which solver values a table ------------------------------------------------------------


def method_for(rules: Ruleset, players: int, *, solve: bool = True) -> Method:
    """How the decisions of ``players`` under ``rules`` are valued: by the strategy played at the
    table (:func:`.solver.strategy.played`: round by round where a whole game that takes long to
    solve, or any without ``solve``, as a server, is not solved on the machine yet); refuses, with
    the reason, a table none covers."""
    refuse(rules, players, "analysis")
    return method_of(played(rules, players, solve=solve))


# -- a game's decisions ------------------------------------------------------------------------


def _normal(action: Action) -> Action:
    """An action as the engine holds it (kept dice in descending order)."""
    return (
        Throw(tuple(sorted(action.keep, reverse=True)), action.bon) if isinstance(action, Throw) else action
    )


def _where(state: State) -> tuple[Literal["turn", "stake"], str, int, tuple[str, ...]]:
    """Where the mover decides: the kind of decision, the dice, the throws left, the results before."""
    r = state.round
    assert r is not None and state.to_move is not None
    if r.tie is not None:
        dice = str(next(t.result for t in r.done if t.seat == state.to_move))
        return "stake", dice, 0, ()
    before = tuple(str(t.result) for t in r.done)
    return "turn", str(Result.of(r.dice)), throws_allowed(state) - r.throws, before


def _decision(
    step: int, state: State, chosen: Action, found: list[tuple[Action, float]], bot: bool
) -> Decision:
    assert state.to_move is not None
    seat = state.to_move
    value = next(v for a, v in found if a == chosen)
    best, best_value = found[0]
    cost = best_value - value
    if cost < SAME:
        best, cost = chosen, 0.0
    kind, dice, left, before = _where(state)
    return Decision(
        step=step,
        seat=seat,
        player=state.players[seat],
        bot=bot,
        manche=state.manche,
        phase=state.phase.value,
        pot=state.pot,
        tokens=state.tokens,
        kind=kind,
        dice=dice,
        throws_left=left,
        before=before,
        chosen=str(chosen),
        chosen_value=value,
        best=str(best),
        best_value=best_value,
        cost=cost,
        choices=tuple(Choice(str(a), v) for a, v in found),
    )


def analyse(
    record: Record, *, bots: bool = False, seats: Collection[int] | None = None, solve: bool = True
) -> Analysis:
    """Every decision of the analysed seats in ``record``, valued, and each player's summary.

    The analysed seats are ``seats`` if given, else the people's (bots are
    named like « Optimal 1 », a name a person cannot take), and the bots' too
    with ``bots``. The record is replayed first: one that does not replay is
    refused (:class:`.InvalidRecord`); rules no solver covers are refused
    with the reason. The solution is solved (or read from the disk) as needed:
    see :func:`method_for` for which (``solve``: as it says).
    """
    rules, names = record.rules, record.players
    method = method_for(rules, len(names), solve=solve)
    record.replay()  # the whole record first: a step that does not replay is named as such
    robots = tuple(is_bot_name(n) for n in names)
    chosen_seats = (
        set(seats) if seats is not None else {s for s in range(len(names)) if bots or not robots[s]}
    )
    strategy = strategy_for(rules, len(names), solve=solve)
    game = Game(rules, names, first_seat=record.first_seat)
    decisions: list[Decision] = []
    unvalued = dict.fromkeys(range(len(names)), 0)
    for number, step in enumerate(record.steps, start=1):
        state = game.state
        if step.kind == "action" and step.seat in chosen_seats:
            action = _normal(parse_action(step.text))
            found = strategy.choices(state)
            if found:
                decisions.append(_decision(number, state, action, found, robots[step.seat]))
            else:
                unvalued[step.seat] += 1
        game.apply_step(step)
    summaries = tuple(
        _summary(seat, names[seat], robots[seat], [d for d in decisions if d.seat == seat], unvalued[seat])
        for seat in sorted(chosen_seats)
    )
    return Analysis(
        rules.name, names, method, OBJECTIVES[method], bots, ACCURATE, tuple(decisions), summaries
    )


def _summary(seat: int, name: str, bot: bool, mine: list[Decision], unvalued: int) -> PlayerSummary:
    accurate = sum(d.accurate for d in mine)
    mistakes = sorted((d for d in mine if not d.accurate), key=lambda d: (-d.cost, d.step))
    return PlayerSummary(
        seat=seat,
        player=name,
        bot=bot,
        decisions=len(mine),
        accurate=accurate,
        accuracy=accurate / len(mine) if mine else None,
        cost=sum(d.cost for d in mine),
        mistakes=tuple(d.step for d in mistakes[:MISTAKES_SHOWN]),
        unvalued=unvalued,
    )


# -- hints while a game is played ------------------------------------------------------------


@dataclass(frozen=True)
class Hint:
    """The decision being taken (as a :class:`Decision` says where) and its choices, ranked."""

    seat: int
    player: str
    kind: Literal["turn", "stake"]
    dice: str
    throws_left: int
    before: tuple[str, ...]
    choices: tuple[Choice, ...]  # best first; none where the method does not value them


class Adviser:
    """Every legal choice of any decision of a game at a table, ranked by the values of :func:`analyse`.

    Made once for the table (it solves what it needs, or reads it from the
    disk), then asked at each decision: the hint of ``421 play``.
    """

    def __init__(self, rules: Ruleset, players: int, *, solve: bool = True) -> None:
        self.method = method_for(rules, players, solve=solve)
        self.players = players
        self._strategy = strategy_for(rules, players, solve=solve)

    def hint(self, state: State) -> Hint:
        seat = state.to_move
        if seat is None or state.chance is not None:
            raise InvalidPosition(Message("analysis.no_decision_awaited"))
        kind, dice, left, before = _where(state)
        choices = tuple(Choice(str(a), v) for a, v in self._strategy.choices(state))
        return Hint(seat, state.players[seat], kind, dice, left, before, choices)


# -- in words ----------------------------------------------------------------------------------


def _points(lang: str, value: float) -> str:
    """A cost in points, with its word: « 0,50 point »."""
    return points(lang, value * 100)


def _in_points(lang: str, value: float) -> str:
    """A cost in points, the number alone: the tables say their unit once, above."""
    return num(lang, value * 100, ".2f")


def position_text(lang: str, d: Decision | Hint) -> str:
    """Where a decision was taken, as dice: ``221, 1 throw left, against 654``."""
    if d.kind == "stake":
        return tr(lang, "analysis.stake", dice=d.dice)
    text = tr(lang, "analysis.left", dice=d.dice, n=d.throws_left)
    if d.before:
        text += tr(lang, "analysis.against", before=", ".join(d.before))
    return text


def _action(lang: str, text: str) -> str:
    return action_text(lang, parse_action(text))


def analysis_text(analysis: Analysis, lang: str = "en", title: str | None = None) -> str:
    """The analysis in words: what the values are, every decision, and each player's summary.

    ``title``: the rules as the reader knows them (by default their name).
    """
    a = analysis
    n = len(a.players)
    lines = [
        tr(lang, "analysis.head", rules=title or a.rules, players=", ".join(a.players)),
        tr(lang, f"analysis.objective.{a.method}", n=n),
        tr(lang, "analysis.cost"),
        "",
    ]
    if a.decisions:
        head = [
            tr(lang, f"analysis.col.{c}") for c in ("step", "player", "position", "chosen", "best", "cost")
        ]
        rows = [
            [
                str(d.step),
                d.player,
                position_text(lang, d),
                _action(lang, d.chosen),
                "" if d.best == d.chosen else _action(lang, d.best),
                _in_points(lang, d.cost) if d.cost else "",
            ]
            for d in a.decisions
        ]
        widths = [max(len(row[i]) for row in (head, *rows)) for i in range(len(head))]
        for row in (head, *rows):
            cells = [
                row[0].rjust(widths[0]),
                *(c.ljust(w) for c, w in zip(row[1:-1], widths[1:-1], strict=True)),
            ]
            lines.append("  ".join([*cells, row[-1].rjust(widths[-1])]).rstrip())
        lines.append("")
    for s in a.summaries:
        lines += _summary_lines(lang, a, s)
    if not a.summaries:
        lines.append(tr(lang, "analysis.nobody"))
    return "\n".join(lines)


def _summary_lines(lang: str, a: Analysis, s: PlayerSummary, costliest: bool = True) -> list[str]:
    """A player's summary, and unless ``costliest`` is False their costliest mistakes."""
    if not s.decisions:
        lines = [tr(lang, "analysis.no_decision", player=s.player)]
    else:
        assert s.accuracy is not None
        lines = [
            tr(
                lang,
                "analysis.summary",
                player=s.player,
                n=s.decisions,
                accurate=s.accurate,
                accuracy=num(lang, s.accuracy, ".1%"),
                cost=_points(lang, s.cost),
            )
        ]
        if costliest and s.mistakes:
            lines.append(tr(lang, "analysis.mistakes"))
            for step in s.mistakes:
                d = a.decision(step)
                lines.append(
                    "    "
                    + tr(
                        lang,
                        "analysis.mistake",
                        step=d.step,
                        manche=d.manche,
                        phase=tr(lang, f"phase.name.{d.phase}"),
                        position=position_text(lang, d),
                        chosen=_action(lang, d.chosen),
                        chosen_value=num(lang, d.chosen_value, ".2%"),
                        best=_action(lang, d.best),
                        best_value=num(lang, d.best_value, ".2%"),
                        cost=_points(lang, d.cost),
                    )
                )
        elif costliest:
            lines.append(tr(lang, "analysis.no_mistake"))
    if s.unvalued:
        lines.append(tr(lang, "analysis.unvalued", n=s.unvalued))
    return lines


def review_text(analysis: Analysis, lang: str = "en", title: str | None = None) -> str:
    """The analysis for a screen of 80 columns: each player's summary, then every decision, the
    costliest first, in two short lines (where, then what was chosen against the best), then what
    the numbers are."""
    a = analysis
    lines = [tr(lang, "analysis.head", rules=title or a.rules, players=", ".join(a.players)), ""]
    for s in a.summaries:
        lines += _summary_lines(lang, a, s, costliest=False)
    if not a.summaries:
        lines.append(tr(lang, "analysis.nobody"))
    if a.decisions:
        lines += ["", tr(lang, "analysis.review.title")]
        costs = {d.step: _in_points(lang, d.cost) for d in a.decisions}
        width = max(len(c) for c in costs.values())
        for d in sorted(a.decisions, key=lambda d: (-d.cost, d.step)):
            where = tr(lang, "analysis.review.where", step=d.step, player=d.player)
            lines.append(f"{costs[d.step].rjust(width)}  {where} · {position_text(lang, d)}")
            chosen = {"chosen": _action(lang, d.chosen), "chosen_value": num(lang, d.chosen_value, ".2%")}
            if d.best == d.chosen:
                said = tr(lang, "analysis.review.best", **chosen)
            else:
                best = {"best": _action(lang, d.best), "best_value": num(lang, d.best_value, ".2%")}
                said = tr(lang, "analysis.review.worse", **chosen, **best)
            lines.append(" " * (width + 2) + said)
    lines += ["", tr(lang, f"analysis.objective.{a.method}", n=len(a.players)), tr(lang, "analysis.cost")]
    return "\n".join(lines)


def hint_text(hint: Hint, method: Method, players: int, lang: str = "en") -> str:
    """A decision's choices ranked, each with its value and what it gives away against the best."""
    lines = [tr(lang, "analysis.hint.head", player=hint.player, position=position_text(lang, hint))]
    if not hint.choices:
        lines.append(tr(lang, "analysis.hint.unvalued"))
    else:
        names = [_action(lang, c.action) for c in hint.choices]
        values = [num(lang, c.value, ".2%") for c in hint.choices]
        best = hint.choices[0].value
        less = [
            None
            if best - c.value < SAME
            else tr(lang, "analysis.hint.less", cost=_points(lang, best - c.value))
            for c in hint.choices
        ]
        widths = [max(map(len, column)) for column in (names, values, [t for t in less if t] or [""])]
        for name, value, cost in zip(names, values, less, strict=True):
            said = tr(lang, "analysis.hint.best") if cost is None else cost.rjust(widths[2])
            lines.append(f"  {name.ljust(widths[0])}  {value.rjust(widths[1])}  {said}")
    lines.append(tr(lang, f"analysis.objective.{method}", n=players))
    return "\n".join(lines)
