"""A game being played: the current state, every step that led to it, undo.

:class:`Game` is the one object interfaces hold. It keeps the list of states
so a scorekeeper can undo a typed entry, and it produces the record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, get_args

from .actions import Action, ReportedTurn, parse_action
from .dice import format_dice
from .engine import new_game
from .errors import IllegalAction, Message
from .events import Thrown
from .rules import Ruleset
from .state import State

if TYPE_CHECKING:
    from .record import Record


StepKind = Literal["dice", "action", "turn"]
STEP_KINDS: tuple[StepKind, ...] = get_args(StepKind)


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a game: dice that came up, or a player's action."""

    seat: int
    kind: StepKind
    text: str  # "421", "5", an action such as "keep 42", or a whole turn "421/2"


class Game:
    """The current state of a game and its history."""

    def __init__(self, rules: Ruleset, players: Sequence[str], *, first_seat: int = 0) -> None:
        self.rules = rules
        self.first_seat = first_seat
        self._states: list[State] = [new_game(rules, players, first_seat=first_seat)]
        self._steps: list[Step] = []

    @property
    def _first(self) -> int:
        """The steps played before ``_states[0]``: none, unless :meth:`forget_states` let them go."""
        return len(self._steps) + 1 - len(self._states)

    @property
    def state(self) -> State:
        return self._states[-1]

    @property
    def players(self) -> tuple[str, ...]:
        return self.state.players

    @property
    def states(self) -> tuple[State, ...]:
        """Every state from the start: their events tell the whole game."""
        self._restore()
        return tuple(self._states)

    @property
    def steps(self) -> tuple[Step, ...]:
        return tuple(self._steps)

    def since(self, n: int) -> tuple[tuple[Step, ...], tuple[State, ...]]:
        """The steps from number ``n`` on, and the states they made: what a long game's last
        moves cost to read does not grow with the game."""
        if n + 1 < self._first:
            self._restore()
        return tuple(self._steps[n:]), tuple(self._states[n + 1 - self._first :])

    @property
    def played(self) -> int:
        """The number of steps played."""
        return len(self._steps)

    def act(self, action: Action | str) -> State:
        """Apply the deciding player's action (an Action or its text)."""
        state = self.state
        seat = state.to_move
        chosen = parse_action(action) if isinstance(action, str) else action
        new = state.apply(chosen)
        assert seat is not None
        self._push(new, Step(seat, "action", str(chosen)))
        return new

    def throw(self, faces: tuple[int, ...] | str) -> State:
        """Apply the dice that came up (faces, or their text such as ``"4-2"``)."""
        state = self.state
        request = state.chance
        new = state.apply_dice(faces)
        assert request is not None
        thrown = next((e.faces for e in new.events if isinstance(e, Thrown)), ())
        self._push(new, Step(request.seat, "dice", format_dice(thrown)))
        return new

    def report_turn(self, turn: ReportedTurn | str) -> State:
        """Apply a whole turn told at a real table (``"421/2"``)."""
        state = self.state
        reported = ReportedTurn.parse(turn) if isinstance(turn, str) else turn
        new = state.apply_turn(reported)
        assert state.chance is not None
        self._push(new, Step(state.chance.seat, "turn", str(reported)))
        return new

    def apply_step(self, step: Step) -> State:
        """Apply a step as a record writes it."""
        if step.kind == "dice":
            return self.throw(step.text)
        if step.kind == "turn":
            return self.report_turn(step.text)
        return self.act(step.text)

    def undo(self) -> State:
        """Take back the last step; raises IllegalAction at the start of the game."""
        if not self._steps:
            raise IllegalAction(Message("refusal.nothing_to_undo"))
        if len(self._states) == 1:
            self._restore()
        self._states.pop()
        self._steps.pop()
        return self.state

    def forget_states(self) -> None:
        """Keep the current state only, not every one before it: they are most of what a long game
        holds (15 of 17 MB after 20,000 steps), and a finished game's are seldom asked for again.
        When they are (:attr:`states`, :meth:`since`, :meth:`undo`), they are played again from
        the steps."""
        del self._states[:-1]

    def _restore(self) -> None:
        """The states :meth:`forget_states` let go, played again from the steps."""
        if not self._first:
            return
        again = Game(self.rules, self.players, first_seat=self.first_seat)
        for step in self._steps[: self._first]:
            again.apply_step(step)
        self._states[:1] = again._states  # its last is the first kept: the same state

    def _push(self, state: State, step: Step) -> None:
        self._states.append(state)
        self._steps.append(step)

    def record(self, meta: Mapping[str, Any] | None = None) -> Record:
        from .record import Record

        return Record(
            rules=self.rules,
            players=self.players,
            first_seat=self.first_seat,
            steps=self.steps,
            meta=dict(meta or {}),
            final=self.state,
        )
