"""What the server sends over the WebSocket, as the messages are built: written from
py421.server.protocol by `python scripts/page_types.py`, not by hand (see
:func:`py421.server.protocol.typed_dicts`)."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict


class DrawView(TypedDict):
    purpose: str
    seats: list[int]
    thrown: list[str]


class ErrorMessage(TypedDict):
    type: Literal["error"]
    error: Literal["malformed", "too_large", "unknown_type", "rate_limited", "too_many_tables", "too_many_connections", "too_many_spectators", "slow_client", "no_table", "not_waiting", "full", "name_taken", "bad_name", "bad_rules", "bad_seats", "optimal_too_costly", "optimal_busy", "no_analysis", "analysis_too_costly", "analysis_busy", "not_creator", "not_started", "over", "spectator", "no_seat", "seat_handed", "not_seated", "seat_here", "not_your_turn", "illegal", "stale", "not_over", "no_game", "no_player", "not_found", "cross_site", "internal"]
    message: str
    lang: NotRequired[Literal["en", "fr"]]


class HintChoice(TypedDict):
    action: str
    value: float


class HintsMessage(TypedDict):
    type: Literal["hints"]
    version: int
    seat: int
    method: Literal["heads_up", "game", "rounds"]
    kind: Literal["turn", "stake"]
    dice: str
    throws_left: int
    before: list[str]
    choices: list[HintChoice]


class LegalAction(TypedDict):
    kind: Literal["stop", "throw", "stake"]
    keep: list[int]
    bon: bool
    stake: Literal["est", "vient"] | None
    text: str


class OutcomeView(TypedDict):
    losers: list[int]
    kind: str
    winners: list[list[int]]
    manche_losers: list[int]


class PlayerView(TypedDict):
    seat: int
    name: str
    tokens: int
    in_manche: bool
    manches_lost: int
    debt: int


class Pong(TypedDict):
    type: Literal["pong"]


class ReplayAt(TypedDict):
    step: int
    steps: int


class RoundView(TypedDict):
    order: list[int]
    turns: list[TurnView]
    current: int | None
    dice: str
    throws: int
    throws_allowed: int | None
    limit: int | None
    stake: int | None
    tie: TieView | None


class SeatPublic(TypedDict):
    seat: int
    kind: Literal["human", "bot"]
    bot: str | None
    name: str | None
    taken: bool
    connected: bool
    away: bool


class TableMessage(TypedDict):
    type: Literal["table"]
    table: TablePublic
    view: View | None
    version: int
    log_start: int
    log: list[str]
    replay: NotRequired[ReplayAt | None]


class TablePublic(TypedDict):
    code: str
    mode: Literal["play", "scorekeeper", "replay"]
    rules: str
    options: dict[str, Any]
    named: str
    status: Literal["waiting", "playing", "over", "abandoned"]
    timeout: float
    seats: list[SeatPublic]
    seed_hash: str
    seed: str | None
    version: int
    rematch: str | None
    hints: NotRequired[bool]


class TieView(TypedDict):
    seats: list[int]
    thrown: list[str]
    replay: int


class TurnView(TypedDict):
    seat: int
    result: str
    throws: int


class View(TypedDict):
    seat: int | None
    players: list[PlayerView]
    rules: str
    phase: str
    manche: int
    pot: int
    leader: int
    step: int
    waiting_for: Waiting | None
    your_turn: bool
    legal_actions: list[LegalAction]
    round: RoundView | None
    draw: NotRequired[DrawView | None]
    outcome: OutcomeView | None


class Waiting(TypedDict):
    seat: int
    step: Literal["dice", "decision"]
    dice: NotRequired[int | None]
    kept: NotRequired[str | None]
    purpose: NotRequired[str | None]
