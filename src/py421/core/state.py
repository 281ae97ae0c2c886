"""The frozen state of a game of 421 and its parts.

A state never changes: :meth:`State.apply` and :meth:`State.apply_dice`
return the next one. Every state says whose step it is: a *chance* step
(dice to throw, see :attr:`State.chance`) or a player's decision (see
:attr:`State.to_move` and :meth:`State.legal_actions`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Literal, TypeVar, get_args

from .actions import Action, ReportedTurn
from .dice import Result
from .events import Event, ThrowPurpose
from .rules import Ruleset

if TYPE_CHECKING:
    from fractions import Fraction

T = TypeVar("T")


def evolve(obj: T, **changes: object) -> T:
    """``dataclasses.replace`` for these frozen states, which need none of its checks.

    The engine makes several new states a step. The classes it copies (:class:`State`,
    :class:`Round`, :class:`Tie`, :class:`Draw`) keep their fields in a ``__dict__``
    rather than slots, so a copy is the old fields and the changes put into a new
    object's dict by two updates done in C: a third of the time of setting slot by
    slot. Only the copy being made is ever written: the states stay frozen to everyone.
    """
    new = _new(type(obj))
    fields = new.__dict__
    fields.update(obj.__dict__)
    fields.update(changes)
    return new


_new = object.__new__


def amend(obj: T, **changes: object) -> T:
    """``obj`` with ``changes`` written into it: only for a copy that :func:`evolve` made within the
    engine's current step, that nobody else has seen yet. A step that settles a round passes its
    state through several helpers; each would otherwise copy it again for a field or two."""
    obj.__dict__.update(changes)
    return obj


OutcomeKind = Literal["loser", "grand_perdant", "shared"]
OUTCOME_KINDS: tuple[OutcomeKind, ...] = get_args(OutcomeKind)


class Phase(StrEnum):
    FIRST_PLAYER = "first_player"  # drawing who leads the first round
    CHARGE = "charge"
    DECHARGE = "decharge"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class TurnResult:
    """A finished turn: the final result and how many throws it took."""

    seat: int
    result: Result
    throws: int


@dataclass(frozen=True)  # copied by evolve: fields in a dict
class Draw:
    """Players throwing once each to settle something (first player, a leader, a tie)."""

    purpose: ThrowPurpose
    seats: tuple[int, ...]  # in throwing order
    dice: int  # dice per throw: 1 or 3
    thrown: tuple[tuple[int, ...], ...] = ()  # faces so far, one entry per seat

    @property
    def thrower(self) -> int:
        return self.seats[len(self.thrown)]

    @property
    def complete(self) -> bool:
        return len(self.thrown) == len(self.seats)


@dataclass(frozen=True)  # copied by evolve: fields in a dict
class Tie:
    """A tie-break in progress after every turn of a round.

    ``worst`` and ``best`` are the seats still tied for the worst and (in the
    décharge) the best result; a group of one is decided. With
    ``tied_losers_all_take`` the worst group is never broken.
    """

    worst: tuple[int, ...]
    best: tuple[int, ...]
    draw: Draw
    replays: int = 1  # the current draw is the n-th replay
    awaiting_stake: bool = False  # « main chaude »: the first thrower must choose
    vient: bool = False  # the stake is « pour ce qui vient »: the current replay decides it
    amount: int | None = None  # set by a « vient » replay


@dataclass(frozen=True)  # copied by evolve: fields in a dict
class Round:
    """One round: every player still in the phase plays a turn, in ``order``."""

    order: tuple[int, ...]  # leader first, then clockwise
    done: tuple[TurnResult, ...] = ()
    dice: tuple[int, ...] = ()  # the current player's dice (empty before a throw)
    throws: int = 0
    pending: tuple[int, ...] | None = None  # kept dice of a throw asked for; None: none asked
    bon: bool = False  # « le bon » declared: the next (or last) throw is final
    limit: int | None = None  # throws the leader used, once it finished
    stake: int = 0  # accumulated stakes: sum of every value thrown
    tie: Tie | None = None

    @property
    def current(self) -> int | None:
        """The seat playing its turn, or None once every turn is over."""
        played = len(self.done)
        return self.order[played] if played < len(self.order) else None


@dataclass(frozen=True, slots=True)
class Outcome:
    """How the game ended."""

    losers: tuple[int, ...]
    kind: OutcomeKind
    winners: tuple[tuple[int, ...], ...]  # groups that got out together, in order
    manche_losers: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ChanceRequest:
    """Dice are needed: ``seat`` throws ``count`` dice, keeping ``kept``, at step ``step``."""

    seat: int
    count: int
    kept: tuple[int, ...]
    purpose: ThrowPurpose
    step: int


@dataclass(frozen=True)  # copied by evolve: fields in a dict
class State:
    """Everything about a game at one moment. Build the first with :func:`new_game`."""

    rules: Ruleset
    players: tuple[str, ...]
    phase: Phase
    manche: int
    pot: int
    tokens: tuple[int, ...]
    debts: tuple[int, ...]
    active: tuple[bool, ...]  # still in the manche (not out at zero)
    manche_losses: tuple[int, ...]
    leader: int  # leads the current or next round
    round: Round | None = None
    draw: Draw | None = None  # a draw outside rounds: first player, décharge leader
    out_order: tuple[tuple[int, ...], ...] = ()  # this manche: who got out, in order
    manche_losers: tuple[int, ...] = ()
    outcome: Outcome | None = None
    events: tuple[Event, ...] = ()  # what the step that made this state did
    steps: int = 0  # steps applied since the start: a version number

    # The rules live in engine.py; these methods are the convenient way in.

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def chance(self) -> ChanceRequest | None:
        """What dice are needed now, or None when a player must decide (or it is over)."""
        return engine.chance_request(self)

    @property
    def to_move(self) -> int | None:
        """The seat that must decide now, or None at a chance step or at the end."""
        return engine.deciding_seat(self)

    def legal_actions(self) -> tuple[Action, ...]:
        return engine.legal_actions(self)

    def apply(self, action: Action) -> State:
        """The state after the deciding player's action; raises IllegalAction."""
        return engine.apply_action(self, action)

    def apply_dice(self, faces: tuple[int, ...] | str) -> State:
        """The state after the requested dice came up; raises IllegalAction."""
        return engine.apply_dice(self, faces)

    def apply_turn(self, turn: ReportedTurn | str) -> State:
        """The state after a whole turn told at once (a real table); raises IllegalAction."""
        return engine.apply_turn(self, ReportedTurn.parse(turn) if isinstance(turn, str) else turn)

    def chance_outcomes(self) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
        """Every outcome of the requested throw with its exact probability."""
        from .dice import throw_outcomes

        request = self.chance
        return throw_outcomes(request.count) if request else ()

    @property
    def manche_total(self) -> int:
        """Tokens in play this manche: the pot plus every player's starting tokens."""
        return self.rules.pot + self.rules.initial_tokens * len(self.players)


# Last: the engine reads this module's classes as it loads; the methods above find it at call time.
from . import engine  # noqa: E402
