"""What happened in one step of a game, as data for logs, interfaces and tests.

Each state carries the events of the step that produced it; interfaces put
them into words (in the player's language) and never re-derive them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .actions import Stake
from .dice import Result

ThrowPurpose = Literal["turn", "tie", "first_player", "decharge_leader"]
TieAbout = Literal["worst", "best", "both", "first_player", "decharge_leader"]
LeaderWhy = Literal[
    "first_seat",
    "first_player",
    "round_loser",
    "manche_loser",
    "fewest_tokens",
    "worst_coup_sec",
    "next_seat",
]
AmountWhy = Literal["value", "tie", "deduction", "accumulated", "nenette", "vient", "est"]


@dataclass(frozen=True, slots=True)
class Thrown:
    seat: int
    kept: tuple[int, ...]
    faces: tuple[int, ...]  # the dice that were thrown
    result: Result | None  # None for a single die (first-player draw)
    throw: int  # 1 to 3 within a turn; 1 in draws
    purpose: ThrowPurpose


@dataclass(frozen=True, slots=True)
class TurnEnded:
    seat: int
    result: Result
    throws: int
    bon: bool


@dataclass(frozen=True, slots=True)
class LimitSet:
    """The leader's throw count now limits the others (« sec ! », « en 2 ! », « à fond ! »)."""

    seat: int
    throws: int


@dataclass(frozen=True, slots=True)
class TieDeclared:
    seats: tuple[int, ...]  # in the order they will throw
    about: TieAbout
    main_chaude: bool = False


@dataclass(frozen=True, slots=True)
class StakeChosen:
    seat: int
    stake: Stake


@dataclass(frozen=True, slots=True)
class RoundDecided:
    losers: tuple[int, ...]
    winner: int
    amount: int
    why: AmountWhy


@dataclass(frozen=True, slots=True)
class Took:
    """Charge: a loser takes tokens from the pot (``wanted`` before the cap)."""

    seat: int
    amount: int
    wanted: int


@dataclass(frozen=True, slots=True)
class Gave:
    """Décharge: the winner gives tokens to a loser (``wanted`` before the cap)."""

    giver: int
    receiver: int
    amount: int
    wanted: int


@dataclass(frozen=True, slots=True)
class DebtOwed:
    """« Queue de la vache »: what could not be taken is owed to the next manche."""

    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class DebtPaid:
    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class LeaderChosen:
    seat: int
    why: LeaderWhy


@dataclass(frozen=True, slots=True)
class PhaseStarted:
    phase: Literal["charge", "decharge"]
    manche: int


@dataclass(frozen=True, slots=True)
class WentOut:
    """Players holding no token leave the manche (they can no longer lose it)."""

    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MancheLost:
    seat: int
    manche: int
    espagnole: bool


@dataclass(frozen=True, slots=True)
class GameOver:
    losers: tuple[int, ...]


Event = (
    Thrown
    | TurnEnded
    | LimitSet
    | TieDeclared
    | StakeChosen
    | RoundDecided
    | Took
    | Gave
    | DebtOwed
    | DebtPaid
    | LeaderChosen
    | PhaseStarted
    | WentOut
    | MancheLost
    | GameOver
)
