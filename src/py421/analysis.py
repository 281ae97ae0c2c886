"""What every decision of a game was worth: the best choice, the one made, and what it cost.

A record is replayed through the engine; at every decision of the seats
analysed (the people's, and the bots' when asked), each legal action is
valued by the solver that covers the table, the mover playing on as well as
possible after it:

- two players (:mod:`.solver.heads_up`): the mover's exact chance of not
  losing the manche;
- two players where manches carry over (« queue de la vache », l'Espagnole
  losing the game), the game solved manche by manche
  (:mod:`.solver.heads_up_game`); three or four (or two, where neither
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
from typing import Any, Literal, Protocol, get_args

import numpy as np

from .core.actions import Action, ChooseStake, Stake, Stop, Throw, parse_action
from .core.dice import Result, throw_outcomes
from .core.engine import throws_allowed
from .core.errors import InvalidPlayers, InvalidRuleset, Message
from .core.game import Game
from .core.record import Record
from .core.rules import Ruleset
from .core.state import Phase, State
from .i18n import action_text, num, tr
from .players import is_bot_name
from .solver import game_maxn, heads_up
from .solver.coverage import covering
from .solver.heads_up_game import carries_over
from .solver.rounds import MAX_ROUND_PLAYERS, RoundValues, pot_cap, solve_round
from .solver.tables import INDEX, KEEP_INDEX, RESULTS, TRANSITIONS, FloatArray
from .solver.turn import StakedValues, TurnValues, solve

Method = Literal["heads_up", "game", "rounds"]
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


def method_for(rules: Ruleset, players: int) -> Method:
    """The solver that values the decisions of ``players`` under ``rules``; refuses, with the reason,
    a table none of them covers."""
    if rules.must_throw_on:  # every solver lets each player stop: it cannot say what a forced throw costs
        why = Message(
            "solver.game.must_throw_on",
            "players who must throw on are not modelled (the round solvers let every player stop)",
        )
        raise InvalidRuleset(_cannot(rules, players, why))
    # where manches carry over (« queue de la vache », l'Espagnole losing the game) the manche played for
    # itself is not the game: two players are valued by the game solved manche by manche
    chosen = covering(rules, players)
    if chosen != "rounds":
        return "heads_up" if chosen == "heads_up" else "game"
    if 2 <= players <= MAX_ROUND_PLAYERS:
        return "rounds"
    raise InvalidPlayers(
        Message(
            "analysis.players",
            f"a game of {players} players cannot be analysed: the round solver plays 2 to "
            f"{MAX_ROUND_PLAYERS} players",
            {"n": players, "most": MAX_ROUND_PLAYERS},
        )
    )


def _cannot(rules: Ruleset, players: int, why: Message) -> Message:
    return Message(
        "analysis.cannot",
        f"the games of {rules.name} with {players} players cannot be analysed: {why}",
        {"rules": rules.name, "n": players, "why": why},
    )


# -- the values of a turn's choices -----------------------------------------------------------


@dataclass(frozen=True)
class _Turn:
    """A mover's values with some throws left: stopping on each result, each keep, each keep as « le bon »."""

    stop: FloatArray  # [result]
    keep: FloatArray | None  # [keep]; None with no throw left
    bon: FloatArray | None  # [keep]; None unless a throw would leave another


def _of_turn(values: TurnValues | StakedValues, left: int, row: int | None, stake: int) -> _Turn:
    """The view of a solved turn (:mod:`.solver.turn`), as :func:`.solver.turn.options` reads it."""

    def at(a: FloatArray) -> FloatArray:
        return a if row is None else a[row]

    if isinstance(values, StakedValues):
        s = min(stake, values.cap)
        stop = at(values.utility(left))[:, s]
        keep = at(values.keep_values(left))[:, s] if left > 0 else None
        bon = None
        if left > 1:  # the throw is final: its result is stopped on, its value added to the stake
            after = at(values.utility(left - 1))
            bon = TRANSITIONS @ after[np.arange(len(RESULTS)), np.minimum(s + values.gains, values.cap)]
        return _Turn(stop, keep, bon)
    return _Turn(
        at(values.utility(left)),
        at(values.keep_values(left)) if left > 0 else None,
        TRANSITIONS @ at(values.utility(left - 1)) if left > 1 else None,
    )


class _Values(Protocol):
    def turn(self, state: State) -> _Turn:
        """The mover's values at a decision of a turn."""
        ...

    def stakes(self, state: State) -> dict[Stake, float] | None:
        """The chooser's value of each stake of « main chaude », or None where they are not valued."""
        ...


class _HeadsUp:
    """Two players: the solved manche (the values :class:`.players.optimal.OptimalBot` plays)."""

    def __init__(self, rules: Ruleset) -> None:
        from .solver.solutions import solved

        self.solver = solved(rules)

    def turn(self, state: State) -> _Turn:
        r = state.round
        assert r is not None
        charge = state.phase is Phase.CHARGE
        leader_values, follower_values = self.solver.position(charge, state.pot, state.tokens[0], r.order[0])
        left = throws_allowed(state) - r.throws
        if not r.done:
            return _of_turn(leader_values, left, None, r.stake)
        first = r.done[0]
        return _of_turn(follower_values[first.throws], left, INDEX[first.result], r.stake)

    def stakes(self, state: State) -> dict[Stake, float]:
        loses = _StakeLookahead(self.solver, state).values()  # P(seat 0 loses the manche)
        return {k: 1 - v if state.to_move == 0 else v for k, v in loses.items()}


_Point = tuple[object, ...]
_THREE = tuple((faces, float(p)) for faces, p in throw_outcomes(3))


class _StakeLookahead:
    """« Main chaude » between two: each stake's value, one replay ahead through the engine.

    After the choice a replay of coups secs either settles the round (the
    solved value of the position it leads to) or ties again, where the same
    player chooses again: those values are solved together, each chooser
    taking their better stake.
    """

    def __init__(self, solver: heads_up.HeadsUp, state: State) -> None:
        self.solver = solver
        self.state = state
        self.manches_lost = len(state.manche_losers)

    def values(self) -> dict[Stake, float]:
        stakes: tuple[Stake, ...] = ("est", "vient")
        # point -> stake -> (P(seat 0 loses) by the replays that settle, chance of each point tied again)
        points: dict[_Point, dict[Stake, tuple[float, dict[_Point, float]]]] = {}
        chooser: dict[_Point, int | None] = {}
        todo = [self.state]
        while todo:
            state = todo.pop()
            key = _point(state)
            if key in points:
                continue
            chooser[key] = state.to_move
            points[key] = {}
            for stake in stakes:
                settled, tied, states = self._replay(state.apply(ChooseStake(stake)))
                points[key][stake] = (settled, tied)
                todo += [s for k, s in states.items() if k not in points]

        def value(by: tuple[float, dict[_Point, float]], best: dict[_Point, float]) -> float:
            settled, tied = by
            return settled + sum(p * best[k] for k, p in tied.items())

        best = dict.fromkeys(points, 0.5)
        for _ in range(10_000):  # each pass shrinks the error by the chance of tying again
            change = 0.0
            for key, by in points.items():
                found = [value(by[s], best) for s in stakes]
                new = min(found) if chooser[key] == 0 else max(found)  # seat 0 loses less, seat 1 more
                change = max(change, abs(new - best[key]))
                best[key] = new
            if change < 1e-15:
                break
        here = points[_point(self.state)]
        return {s: value(here[s], best) for s in stakes}

    def _replay(self, start: State) -> tuple[float, dict[_Point, float], dict[_Point, State]]:
        settled = 0.0
        tied: dict[_Point, float] = {}
        states: dict[_Point, State] = {}
        frontier = [(start, 1.0)]
        while frontier:
            state, p = frontier.pop()
            request = state.chance
            if request is not None and request.purpose == "tie":
                outcomes = _THREE if request.count == 3 else throw_outcomes(request.count)
                frontier += [(state.apply_dice(faces), p * float(q)) for faces, q in outcomes]
            elif state.to_move is not None and state.round is not None and state.round.tie is not None:
                key = _point(state)
                tied[key] = tied.get(key, 0.0) + p
                states[key] = state
            else:
                settled += p * self._settled(state)
        return settled, tied, states

    def _settled(self, state: State) -> float:
        """P(seat 0 loses the manche) from a state between rounds."""
        if len(state.manche_losers) > self.manches_lost:
            return 1.0 if state.manche_losers[self.manches_lost] == 0 else 0.0
        solver = self.solver
        if state.draw is not None:  # the décharge's leader is drawn: a fair draw between the two
            return float(solver.decharge[state.tokens[0]].mean())
        r = state.round
        assert r is not None and not r.done and not r.throws
        if state.phase is Phase.CHARGE:
            return float(solver.charge[state.pot][state.tokens[0], r.order[0]])
        return float(solver.decharge[state.tokens[0], r.order[0]])


def _point(state: State) -> _Point:
    """A « main chaude » choice, without what does not change its value (the replays so far)."""
    r = state.round
    assert r is not None and r.tie is not None
    tie = r.tie
    return (state.phase, state.pot, state.tokens, r.stake, r.done, tie.worst, tie.best, tie.draw.seats)


class _Game:
    """Two to four players, the whole game solved by max^n (what :meth:`.GameMaxn.action` plays)."""

    def __init__(self, rules: Ruleset, players: int) -> None:
        from .solver.solutions import solved_game

        self.rules = rules
        self.game = solved_game(rules, players)
        self.turns: dict[tuple[object, ...], TurnValues] = {}

    def turn(self, state: State) -> _Turn:
        r = state.round
        assert r is not None
        rules, game = self.rules, self.game
        key, p, _ = game.locate(state)
        seats = game.model.positions[p].order()
        shape = game_maxn.shape_of(rules, len(seats))
        place, limit = len(r.done), throws_allowed(state)
        summary = 0
        if place:
            summary = INDEX[r.done[0].result]
            for i, done in enumerate(r.done[1:]):
                summary = int(shape.steps[i][summary, INDEX[done.result]])
        found = self.turns.get((key, p, place, summary, limit))
        if found is None:
            most = rules.throws_allowed(state.phase is Phase.CHARGE)
            payoff = game.model.payoff(p, game.manches[key].values)
            stops = game_maxn.stop_values(
                shape, payoff, seats, most, rules.leader_limit, place, summary, limit
            )
            found = self.turns[(key, p, place, summary, limit)] = solve(lambda left: stops[left], len(stops))
        turn = _of_turn(found, limit - r.throws, None, 0)
        return _shifted(turn)  # minus a share of the loss, as one minus it

    def stakes(self, state: State) -> None:
        return None  # « main chaude » is not played where the whole game is solved


class _HeadsUpGame:
    """Two players where manches carry over: the game solved manche by manche (what
    :class:`.players.optimal.OptimalBot` plays there), as one minus the mover's expected share of its loss."""

    def __init__(self, rules: Ruleset) -> None:
        from .solver.solutions import solved_heads_up_game

        self.game = solved_heads_up_game(rules)

    def turn(self, state: State) -> _Turn:
        r = state.round
        assert r is not None and state.to_move is not None
        charge = state.phase is Phase.CHARGE
        manche = self.game.manche((state.manche_losses[0], state.manche_losses[1]))
        leader_values, follower_values = manche.position(charge, state.pot, state.tokens[0], r.order[0])
        left = throws_allowed(state) - r.throws
        if r.done:
            turn = _of_turn(follower_values[r.done[0].throws], left, INDEX[r.done[0].result], r.stake)
        else:
            turn = _of_turn(leader_values, left, None, r.stake)
        # the manche's own values, in the game's terms (an affine map: the order of the choices stays)
        a, b = manche.own_scale(charge, state.to_move, (state.debts[0], state.debts[1]))
        return _Turn(
            a + b * turn.stop,
            None if turn.keep is None else a + b * turn.keep,
            None if turn.bon is None else a + b * turn.bon,
        )

    def stakes(self, state: State) -> None:
        return None  # « main chaude » is valued for the manche only: left unvalued here


class _Rounds:
    """Each round by max^n, for the chance of not losing it (:mod:`.solver.rounds`)."""

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules

    def turn(self, state: State) -> _Turn:
        r = state.round
        assert r is not None
        charge = state.phase is Phase.CHARGE
        players = len(r.order)
        values: RoundValues = solve_round(
            self.rules, players, charge, "loser", pot_cap(self.rules, players, charge, state.pot)
        )
        limit = throws_allowed(state)
        finals = [t.result for t in r.done]
        turn, row = (
            (values.followers[len(finals) - 1][limit], values.context(finals))
            if finals
            else (values.leader, 0)
        )
        left = limit - r.throws
        return _shifted(
            _Turn(
                turn.stop[left][row],
                turn.own[left - 1][row] @ TRANSITIONS.T if left > 0 else None,
                TRANSITIONS @ turn.stop[left - 1][row] if left > 1 else None,
            )
        )

    def stakes(self, state: State) -> None:
        return None  # the stake changes who pays how much, never who loses the round


def _shifted(turn: _Turn) -> _Turn:
    """Values kept as minus a loss (or a share of it), as one minus it."""
    return _Turn(
        turn.stop + 1,
        None if turn.keep is None else turn.keep + 1,
        None if turn.bon is None else turn.bon + 1,
    )


def values_for(method: Method, rules: Ruleset, players: int) -> _Values:
    if method == "heads_up":
        return _HeadsUp(rules)
    if method == "game":
        return _HeadsUpGame(rules) if players == 2 and carries_over(rules) else _Game(rules, players)
    return _Rounds(rules)


# -- a game's decisions ------------------------------------------------------------------------


def _normal(action: Action) -> Action:
    """An action as the engine holds it (kept dice in descending order)."""
    return (
        Throw(tuple(sorted(action.keep, reverse=True)), action.bon) if isinstance(action, Throw) else action
    )


def _order(action: Action) -> tuple[int, ...]:
    """Between equal values: stop, then throw keeping more dice, a plain throw before « le bon »."""
    if isinstance(action, Throw):
        return (1, -len(action.keep), action.bon)
    return (0,)


def _turn_choices(state: State, turn: _Turn) -> list[tuple[Action, float]]:
    r = state.round
    assert r is not None
    i = INDEX[Result.of(r.dice)]
    found: list[tuple[Action, float]] = []
    for action in state.legal_actions():
        if isinstance(action, Stop):
            found.append((action, float(turn.stop[i])))
        elif isinstance(action, Throw):
            row = turn.bon if action.bon else turn.keep
            assert row is not None  # the engine allows a throw only with one left, « le bon » with two
            found.append((action, float(row[KEEP_INDEX[action.keep]])))
    return found


def _valued(state: State, values: _Values) -> list[tuple[Action, float]]:
    """Every legal choice of the mover at ``state`` with its value; none where the method leaves them
    unvalued (« main chaude » by the rounds)."""
    r = state.round
    assert r is not None
    if r.tie is None:
        return _turn_choices(state, values.turn(state))
    stakes = values.stakes(state)
    return [] if stakes is None else [(ChooseStake(s), v) for s, v in stakes.items()]


def _ranked(found: list[tuple[Action, float]]) -> list[tuple[Action, float]]:
    return sorted(found, key=lambda c: (-c[1], _order(c[0])))


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
    ranked = _ranked(found)
    value = next(v for a, v in found if a == chosen)
    best, best_value = ranked[0]
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
        choices=tuple(Choice(str(a), v) for a, v in ranked),
    )


def analyse(record: Record, *, bots: bool = False, seats: Collection[int] | None = None) -> Analysis:
    """Every decision of the analysed seats in ``record``, valued, and each player's summary.

    The analysed seats are ``seats`` if given, else the people's (bots are
    named like « Optimal 1 », a name a person cannot take), and the bots' too
    with ``bots``. The record is replayed first: one that does not replay is
    refused (:class:`.InvalidRecord`); rules no solver covers are refused
    with the reason. The solution is solved (or read from the disk) as needed:
    see :func:`method_for` for which.
    """
    rules, names = record.rules, record.players
    method = method_for(rules, len(names))
    record.replay()  # the whole record first: a step that does not replay is named as such
    robots = tuple(is_bot_name(n) for n in names)
    chosen_seats = (
        set(seats) if seats is not None else {s for s in range(len(names)) if bots or not robots[s]}
    )
    values = values_for(method, rules, len(names))
    game = Game(rules, names, first_seat=record.first_seat)
    decisions: list[Decision] = []
    unvalued = dict.fromkeys(range(len(names)), 0)
    for number, step in enumerate(record.steps, start=1):
        state = game.state
        if step.kind == "action" and step.seat in chosen_seats:
            action = _normal(parse_action(step.text))
            found = _valued(state, values)
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

    def __init__(self, rules: Ruleset, players: int) -> None:
        self.method = method_for(rules, players)
        self.players = players
        self._values = values_for(self.method, rules, players)

    def hint(self, state: State) -> Hint:
        seat = state.to_move
        if seat is None or state.chance is not None:
            raise ValueError("no decision is awaited")
        kind, dice, left, before = _where(state)
        choices = tuple(Choice(str(a), v) for a, v in _ranked(_valued(state, self._values)))
        return Hint(seat, state.players[seat], kind, dice, left, before, choices)


# -- in words ----------------------------------------------------------------------------------


def _points(lang: str, value: float) -> str:
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
                _points(lang, d.cost) if d.cost else "",
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
        costs = {d.step: _points(lang, d.cost) for d in a.decisions}
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
