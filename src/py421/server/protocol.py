"""The table server's protocol, declared once: every HTTP body, WebSocket message and view.

The routes use these models to read requests and shape answers, the tables
read WebSocket messages through :data:`INBOUND`, and ``docs/online.md`` shows
the tables :func:`markdown` writes from them (a test keeps the two equal:
``python -m py421.server.protocol`` prints them).
"""

from __future__ import annotations

import sys
import types
import typing
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from ..core.actions import Stake
from ..core.errors import Message
from ..history import GameRow

# -- errors ------------------------------------------------------------------------

ErrorCode = Literal[
    "malformed",
    "too_large",
    "unknown_type",
    "rate_limited",
    "too_many_tables",
    "too_many_connections",
    "too_many_spectators",
    "slow_client",
    "no_table",
    "not_waiting",
    "full",
    "name_taken",
    "bad_name",
    "bad_rules",
    "bad_seats",
    "optimal_too_costly",
    "optimal_busy",
    "no_analysis",
    "analysis_too_costly",
    "analysis_busy",
    "not_creator",
    "not_started",
    "over",
    "spectator",
    "no_seat",
    "seat_handed",
    "not_seated",
    "seat_here",
    "not_your_turn",
    "illegal",
    "stale",
    "not_over",
    "no_game",
    "no_player",
    "not_found",
    "cross_site",
    "internal",
]
ERROR_CODES: tuple[str, ...] = get_args(ErrorCode)


class Strict(BaseModel):
    """Unknown fields are refused: a misspelt field is an error, not silently ignored; and so is a
    field of another type (``true`` or ``"3"`` for a number), not read as what it might mean."""

    model_config = ConfigDict(extra="forbid", strict=True)


class ErrorDetail(Strict):
    error: ErrorCode = Field(description="a stable code (the page words it in English or French)")
    message: str = Field(description="what was wrong and what is accepted")
    lang: Literal["en", "fr"] = Field(
        "en",
        description="the message's language, French where Accept-Language prefers it to English",
    )


class ErrorBody(Strict):
    """Every refused HTTP request, whatever its status."""

    detail: ErrorDetail


# -- HTTP requests -------------------------------------------------------------------

Setting = Annotated[str, Field(max_length=100)]
SeatSpec = Annotated[str, Field(max_length=40)]
Name = Annotated[str, Field(max_length=100)]


class CreateTable(Strict):
    """``POST /api/tables``: a table to play (seats) or the scorekeeper of a real one (players)."""

    mode: Literal["play", "scorekeeper"] = Field(
        "play", description="play online, or keep a real table's score"
    )
    rules: str = Field("classic-11", max_length=64, description="a preset name")
    settings: list[Setting] = Field([], max_length=40, description="house settings such as `pot=21`")
    seats: list[SeatSpec] = Field(
        ["human", "bot:heuristic"],
        max_length=64,
        description="play: `human` or `bot:LEVEL`, the creator first",
    )
    name: Name | None = Field(
        None, description="play: the creator's name, required (a scorekeeper's are `players`)"
    )
    players: list[Name] | None = Field(None, max_length=64, description="scorekeeper: every name, in order")
    timeout: int = Field(60, description="seconds a person has to act before a bot stands in (0: none)")
    hints: bool = Field(
        False, description="play: each player is sent their choices ranked on their turn (everyone sees it)"
    )


class Solving(Strict):
    """``POST /api/tables/estimate``: what creating that table would spend solving its rules."""

    seconds: float = Field(
        description="by estimate, solving the rules for the hints or a bot:optimal seat (0: nothing to solve)"
    )


class JoinTable(Strict):
    """``POST /api/tables/{code}/join``."""

    name: Name = Field(description="the name to sit under")


class Created(Strict):
    code: str
    seat: int
    token: str = Field(description="keep it: it holds the seat (Authorization: Bearer TOKEN)")
    seed_hash: str = Field(description="SHA-256 of the secret seed of the table's dice")


class Joined(Strict):
    code: str
    seat: int
    token: str


class Rematch(Strict):
    code: str


class Preset(Strict):
    name: str
    description: str
    min_players: int
    max_players: int = Field(description="the most an online table of this preset seats")
    no_limit: bool = Field(description="the rules set no most (the server's own cap applies)")


class BotOffer(Strict):
    spec: str = Field(description="what a seat is given to seat it: `bot:KEY`")
    names: dict[str, str] = Field(description="by language: its name, without the number it gets at a table")
    about: dict[str, str] = Field(description="by language: how it plays")
    offline: bool = Field(description="it plays in the page with no server")


class SeatPublic(Strict):
    seat: int
    kind: Literal["human", "bot"]
    bot: str | None
    name: str | None
    taken: bool
    connected: bool
    away: bool = Field(description="timed out: a bot plays for them until they act again")


class TablePublic(Strict):
    """What anyone may know of a table."""

    code: str
    mode: Literal["play", "scorekeeper", "replay"] = Field(
        description="replay: a game record watched step by step (a table of the page's own, never a server's)"
    )
    rules: str
    options: dict[str, Any] = Field(description="the options that differ from the common rule")
    named: str = Field(
        description="the rules as players name them: the preset and the options set for this table, "
        "`vache-41 (pot=15, queue_de_la_vache=true)`",
    )
    status: Literal["waiting", "playing", "over", "abandoned"] = Field(
        description="abandoned: nobody played for the server's idle time; its game is in the history"
    )
    timeout: float = Field(description="seconds a person has to act before a bot stands in (0: none)")
    seats: list[SeatPublic]
    seed_hash: str
    seed: str | None = Field(description="revealed once the game is over or abandoned")
    version: int = Field(description="steps played: send it back with every move")
    rematch: str | None
    hints: bool = Field(False, description="created with hints: each player sees their choices ranked")


GameSummary = GameRow  # a finished game, as GET /api/games lists them


class Health(Strict):
    """`GET /healthz`: for a load balancer or a supervisor."""

    ok: bool
    process: str = Field(
        description="this process's name: host, pid and a random part on PostgreSQL; `solo` on SQLite"
    )
    tables: int = Field(description="tables in this process's memory")
    owned: int = Field(description="tables this process owns (plays, throws for, times)")
    resuming: bool = Field(
        description="just started, the process still reads its unfinished tables again (it answers meanwhile)"
    )


class PlayerStats(BaseModel):
    """``GET /api/players/{name}`` and each row of ``GET /api/leaderboard``."""

    name: str
    games: int = Field(description="finished games (an abandoned one counts for nobody)")
    losses: int | None
    loss_rate: float = Field(description="losses / games")
    rounds_lost: int
    throws_421: int = Field(description="421s thrown")
    nenettes: int = Field(description="nénettes (2-2-1) thrown")
    tokens_taken: int


# -- what one seat sees ----------------------------------------------------------------


class LegalAction(Strict):
    """One move the seat may make now; send ``text`` (or this object) back as the action."""

    kind: Literal["stop", "throw", "stake"]
    keep: list[int] = Field(description="throw: the dice kept (none: throw all three)")
    bon: bool = Field(description="throw: « le bon », this throw is the last")
    stake: Stake | None = Field(description="stake: « pour ce qui est » or « vient »")
    text: str = Field(description="the move in the record's notation: `keep 42`, `bon 5`, `stop`…")


class PlayerView(Strict):
    seat: int
    name: str
    tokens: int
    in_manche: bool
    manches_lost: int
    debt: int


class Waiting(Strict):
    seat: int
    step: Literal["dice", "decision"]
    dice: int | None = None
    kept: str | None = None
    purpose: str | None = None


class TurnView(Strict):
    seat: int
    result: str
    throws: int


class TieView(Strict):
    seats: list[int]
    thrown: list[str]
    replay: int


class RoundView(Strict):
    order: list[int]
    turns: list[TurnView]
    current: int | None
    dice: str
    throws: int
    throws_allowed: int | None
    limit: int | None
    stake: int | None
    tie: TieView | None


class DrawView(Strict):
    purpose: str
    seats: list[int]
    thrown: list[str]


class OutcomeView(Strict):
    losers: list[int]
    kind: str
    winners: list[list[int]]
    manche_losers: list[int]


class View(Strict):
    """The game as one seat sees it (``seat`` null: a spectator)."""

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
    legal_actions: list[LegalAction] = Field(description="empty unless it is your turn")
    round: RoundView | None
    draw: DrawView | None = None
    outcome: OutcomeView | None


# -- WebSocket: what a client sends ------------------------------------------------


class ActionMove(Strict):
    """A move as data: one of the view's `legal_actions` as it is, or its fields alone."""

    kind: Literal["stop", "throw", "stake"]
    keep: list[Annotated[int, Field(ge=1, le=6)]] = Field([], max_length=2)
    bon: bool = False
    stake: Stake | None = None
    text: Annotated[str, Field(max_length=64)] | None = Field(
        None, description="the same move in words, as the legal action has it (it must agree)"
    )


class Act(Strict):
    """A player's move at an online table."""

    type: Literal["act"]
    version: int
    action: Annotated[str, Field(max_length=64)] | ActionMove


class Report(Strict):
    """Scorekeeper: the dice (`421`, `654/2`, `123;221;421`, `555/2 bon`), or the stake (`e`, `vient`)."""

    type: Literal["report"]
    version: int
    turn: Annotated[str, Field(max_length=64)]


class Undo(Strict):
    """Scorekeeper: take the last entry back."""

    type: Literal["undo"]
    version: int


class Back(Strict):
    """A player the timeout handed to a bot takes their seat back, before their turn comes."""

    type: Literal["back"]


class Ping(Strict):
    type: Literal["ping"]


Inbound = Annotated[Act | Report | Undo | Back | Ping, Field(discriminator="type")]
INBOUND: TypeAdapter[Act | Report | Undo | Back | Ping] = TypeAdapter(Inbound)
INBOUND_TYPES: tuple[str, ...] = tuple(
    get_args(m.model_fields["type"].annotation)[0] for m in get_args(get_args(Inbound)[0])
)


# -- WebSocket: what the server sends ----------------------------------------------


class ReplayAt(Strict):
    """Where a game record watched step by step stands: send ``look`` with a ``step`` to move."""

    step: int = Field(description="the steps played at the view shown, from 0 (the start)")
    steps: int = Field(description="the steps of the whole record")


class TableMessage(Strict):
    """After every change of the table, to every connection (its own seat's view)."""

    type: Literal["table"]
    table: TablePublic
    view: View | None = Field(description="null until the game starts")
    version: int
    log_start: int = Field(description="the number of the first log line sent")
    log: list[str] = Field(description="the lines this connection does not have yet (at most the last 50)")
    replay: ReplayAt | None = Field(None, description="a replay: the step shown (the view is the game then)")


class ErrorMessage(Strict):
    type: Literal["error"]
    error: ErrorCode
    message: str
    lang: Literal["en", "fr"] = Field(
        "en", description="the message's language: the connection's for a refusal of the rules, else English"
    )


class Pong(Strict):
    type: Literal["pong"]


class HintChoice(Strict):
    action: str = Field(description="a legal move in the record's notation (`keep 41`, `stop`…)")
    value: float = Field(description="its value to the player, as the analysis's (`method`)")


class HintsMessage(Strict):
    """At a table with hints, to the connections of the person to move only, after the table message."""

    type: Literal["hints"]
    version: int = Field(description="the table's version these hints are for")
    seat: int
    method: Literal["heads_up", "game", "rounds"] = Field(
        description="what the values are, as in the analysis"
    )
    kind: Literal["turn", "stake"]
    dice: str = Field(description="the dice held (a stake: the result that tied)")
    throws_left: int
    before: list[str] = Field(description="the results already final in the round, leader first")
    choices: list[HintChoice] = Field(description="every legal move, best first (none: not valued)")


OUTBOUND: TypeAdapter[TableMessage | ErrorMessage | Pong | HintsMessage] = TypeAdapter(
    Annotated[TableMessage | ErrorMessage | Pong | HintsMessage, Field(discriminator="type")]
)

# -- the tables of docs/online.md ----------------------------------------------------------

DOCUMENTED: tuple[type[BaseModel], ...] = (
    CreateTable,
    JoinTable,
    Created,
    Solving,
    Joined,
    ErrorBody,
    ErrorDetail,
    Act,
    ActionMove,
    Report,
    Undo,
    Ping,
    TableMessage,
    ReplayAt,
    ErrorMessage,
    Pong,
    HintsMessage,
    HintChoice,
    TablePublic,
    SeatPublic,
    View,
    LegalAction,
    Health,
)


def _type_name(annotation: Any) -> str:
    origin = get_origin(annotation)
    if origin is Annotated:
        return _type_name(get_args(annotation)[0])
    if origin is Literal:
        if len(get_args(annotation)) > 6:
            return "an error code (below)"
        return " \\| ".join(f"`{a!r}`".replace("'", '"') for a in get_args(annotation))
    if origin in (Union, types.UnionType):
        return " or ".join(_type_name(a) for a in get_args(annotation))
    if origin is list:
        return f"list of {_type_name(get_args(annotation)[0])}"
    if origin is dict:
        return "object"
    if annotation is type(None):
        return "null"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation.__name__
    return {str: "text", int: "integer", bool: "true/false", float: "number"}.get(annotation, str(annotation))


def markdown() -> str:
    """Every documented model as a Markdown table: field, type, default, meaning."""
    hints = {m: typing.get_type_hints(m, include_extras=True) for m in DOCUMENTED}
    parts = []
    for model in DOCUMENTED:
        doc = (model.__doc__ or "").strip().splitlines()[0].replace("``", "`") if model.__doc__ else ""
        lines = [f"#### {model.__name__}", ""]
        if doc and not doc.startswith("!!!"):
            lines += [doc, ""]
        lines += ["| field | type | default | meaning |", "| --- | --- | --- | --- |"]
        for name, info in model.model_fields.items():
            default = (
                "required" if info.is_required() else f"`{info.get_default(call_default_factory=True)!r}`"
            )
            default = default.replace("'", '"').replace("None", "null")
            kind = _type_name(hints[model][name])
            lines.append(f"| `{name}` | {kind} | {default} | {info.description or ''} |")
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def typescript() -> str:
    """What the page sends and receives, as TypeScript declarations written from the JSON schemas.

    ``static/protocol.d.ts`` holds this text (``python scripts/page_types.py`` writes it; a test keeps
    the two equal) and the page's modules name its types in JSDoc, so ``tsc`` fails the check when a
    model changes and the page does not follow. Every schema is the one requests are read with: a
    field with a default may be missing from what the page receives, and need not be sent.
    """
    import json

    from ..analysis import Analysis  # the page's analysis is that module's JSON, typed from its dataclasses

    named: dict[str, tuple[TypeAdapter[Any], str]] = {
        "ErrorCode": (TypeAdapter(ErrorCode), "Why a request or a message was refused."),
        "ErrorBody": (TypeAdapter(ErrorBody), ""),
        "Preset": (TypeAdapter(Preset), ""),
        "BotOffer": (TypeAdapter(BotOffer), ""),
        "CreateTable": (TypeAdapter(CreateTable), ""),
        "Created": (TypeAdapter(Created), ""),
        "Solving": (TypeAdapter(Solving), ""),
        "JoinTable": (TypeAdapter(JoinTable), ""),
        "Joined": (TypeAdapter(Joined), ""),
        "Rematch": (TypeAdapter(Rematch), ""),
        "TablePublic": (TypeAdapter(TablePublic), ""),
        "GameSummary": (TypeAdapter(GameSummary), "A finished game, as `GET /api/games` lists them."),
        "PlayerStats": (TypeAdapter(PlayerStats), ""),
        "Inbound": (INBOUND, "What a client sends over the WebSocket."),
        "Outbound": (OUTBOUND, "What the server sends over the WebSocket."),
        "Analysis": (
            TypeAdapter(Analysis),
            "`GET /api/tables/{code}/analysis`, `GET /api/games/{id}/analysis`.",
        ),
    }
    schemas = {name: adapter.json_schema() for name, (adapter, _) in named.items()}
    literals = {tuple(s["enum"]): name for name, s in schemas.items() if set(s) <= {"enum", "type"}}

    def ts(s: dict[str, Any]) -> str:
        if "$ref" in s:
            return str(s["$ref"]).rsplit("/", 1)[1]
        if "const" in s:
            return json.dumps(s["const"])
        if "enum" in s:
            return literals.get(tuple(s["enum"])) or " | ".join(json.dumps(v) for v in s["enum"])
        for key in ("anyOf", "oneOf", "allOf"):
            if key in s:
                return (" & " if key == "allOf" else " | ").join(ts(part) for part in s[key])
        kind = str(s.get("type", ""))
        if kind == "array":
            item = ts(s.get("items", {}))
            return f"({item})[]" if " " in item else f"{item}[]"
        if kind == "object":
            extra = s.get("additionalProperties", True)
            return f"Record<string, {'unknown' if extra is True else ts(extra)}>"
        if kind in ("integer", "number"):
            return "number"
        return kind if kind in ("string", "boolean", "null") else "unknown"

    def comment(text: str, indent: str) -> list[str]:
        text = " ".join(text.replace("``", "`").replace("*/", "*\\/").split())
        return [f"{indent}/** {text} */"] if text else []

    def declare(name: str, s: dict[str, Any], note: str = "") -> list[str]:
        lines = comment(s.get("description") or note, "")
        if "enum" in s:  # a named Literal: spelt out here, named wherever it is used
            members = [f"  | {json.dumps(v)}" for v in s["enum"]]
            return [*lines, f"export type {name} =", *members[:-1], members[-1] + ";"]
        if "properties" not in s:
            return [*lines, f"export type {name} = {ts(s)};"]
        lines.append(f"export interface {name} {{")
        for field, f in s["properties"].items():
            lines += comment(f.get("description", ""), "  ")
            optional = "" if field in s.get("required", ()) else "?"
            lines.append(f"  {field}{optional}: {ts(f)};")
        return [*lines, "}"]

    out = [
        "// What the page and the server say to each other: written from py421.server.protocol by",
        "// `python scripts/page_types.py`, not by hand. The page's modules import these types in JSDoc.",
    ]
    seen: dict[str, dict[str, Any]] = {}
    for name, schema in schemas.items():
        defs: dict[str, Any] = schema.pop("$defs", {})
        for def_name, s, note in [(name, schema, named[name][1]), *((n, d, "") for n, d in defs.items())]:
            if def_name in seen:
                if seen[def_name] != s:
                    raise ValueError(str(Message("server.schema_names", {"name": def_name})))
                continue
            seen[def_name] = s
            out += ["", *declare(def_name, s, note)]
    return "\n".join(out) + "\n"


def typed_dicts() -> str:
    """What the server sends over the WebSocket, as typed dicts written from the models.

    ``server/outbound.py`` holds this text (``python scripts/page_types.py`` writes it; a test keeps
    the two equal): the server builds its messages as these, so that mypy checks each against the
    models, at no cost at run time. (Building the models themselves, validated, then serialising
    them, costs about 14 µs a message against 1 µs, on every change of every table:
    ``benchmarks/message_cost.py``.)
    """
    schema = OUTBOUND.json_schema()
    defs: dict[str, Any] = schema.pop("$defs", {})
    names = {tuple(d["enum"]): name for name, d in defs.items() if set(d) <= {"enum", "type"}}

    def py(s: dict[str, Any]) -> str:
        if "$ref" in s:
            return str(s["$ref"]).rsplit("/", 1)[1]
        if "const" in s:
            return f"Literal[{s['const']!r}]".replace("'", '"')
        if "enum" in s:
            return (
                names.get(tuple(s["enum"]))
                or "Literal[" + ", ".join(repr(v).replace("'", '"') for v in s["enum"]) + "]"
            )
        for key in ("anyOf", "oneOf"):
            if key in s:
                return " | ".join(py(part) for part in s[key])
        kind = str(s.get("type", ""))
        if kind == "array":
            return f"list[{py(s.get('items', {}))}]"
        if kind == "object":
            extra = s.get("additionalProperties", True)
            return f"dict[str, {'Any' if extra is True else py(extra)}]"
        return {"integer": "int", "number": "float", "string": "str", "boolean": "bool", "null": "None"}.get(
            kind, "Any"
        )

    out = [
        '"""What the server sends over the WebSocket, as the messages are built: written from',
        "py421.server.protocol by `python scripts/page_types.py`, not by hand (see",
        ':func:`py421.server.protocol.typed_dicts`)."""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Any, Literal, NotRequired, TypedDict",
    ]
    for name, d in sorted(defs.items()):
        if "enum" in d:
            members = ", ".join(repr(v).replace("'", '"') for v in d["enum"])
            out += ["", f"{name} = Literal[{members}]"]
    for name, d in sorted(defs.items()):
        if "properties" not in d:
            continue
        out += ["", "", f"class {name}(TypedDict):"]
        required = set(d.get("required", ()))
        for field, f in d["properties"].items():
            kind = py(f)
            out.append(f"    {field}: {kind if field in required else f'NotRequired[{kind}]'}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(markdown())
