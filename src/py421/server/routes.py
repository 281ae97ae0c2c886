"""The server's routes: HTTP for tables and history, a WebSocket per player or watcher.

Each is a small function on one :data:`router`, whose routes the app takes as its own; what
a route needs of the server (the tables' :class:`~py421.server.hub.Hub`, the hints, the
analyst) it reads from the app's state (:func:`py421.server.app.create_app` puts them there).
Neither an included router nor FastAPI's dependencies: together they cost the server 5 to 10 %
more CPU an action (benchmarks/README.md). Requests are read into the models of
:mod:`.protocol` here, and every change is made by the hub.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import unicodedata
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from typing import Annotated, Any, TypeVar, assert_never, cast

from fastapi import APIRouter, Header, Query, Request, WebSocket
from pydantic import BaseModel, ValidationError
from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import HTTPConnection

from ..core.engine import check_name
from ..core.errors import Message, Py421Error
from ..core.rules import Ruleset, preset_names
from ..players import listing
from . import outbound as out
from . import protocol as p
from .analyst import Analyst
from .hints import Hints
from .hub import Hub
from .table import Connection, Table, TableError, hash_token

M = TypeVar("M", bound=BaseModel)
log = logging.getLogger(__name__)
RATE_PAUSE_SECONDS = 1.0  # a connection refused for the rate is not read for this long
router = APIRouter()


def _hub(connection: HTTPConnection) -> Hub:
    return cast(Hub, connection.app.state.hub)


def _hints(connection: HTTPConnection) -> Hints:
    return cast(Hints, connection.app.state.hints)


def _analyst(connection: HTTPConnection) -> Analyst:
    return cast(Analyst, connection.app.state.analyst)


# -- tables ------------------------------------------------------------------

responses: dict[int | str, dict[str, Any]] = {400: {"model": p.ErrorBody}}


@router.get("/api/bots", response_model=list[p.BotOffer])
async def bots() -> list[dict[str, object]]:
    """The bot levels a seat may be given, py421's own and any registered."""
    return listing()


@router.get("/api/presets", response_model=list[p.Preset])
async def presets(request: Request) -> list[dict[str, Any]]:
    hub = _hub(request)
    found = []
    for name in preset_names():
        r = Ruleset.preset(name)
        found.append(
            {
                "name": name,
                "description": r.description,
                "min_players": r.min_players,
                "max_players": hub.seats_limit(r),
                "no_limit": not r.max_players,
            }
        )
    return found


@router.post("/api/tables", response_model=p.Created, responses=responses)
async def create(request: Request) -> dict[str, Any]:
    hub = _hub(request)
    hints = _hints(request)
    body = await _read(request, p.CreateTable)
    table, token = await hub.create(body, _address(request))
    hints.watch(table)
    return {"code": table.code, "seat": 0, "token": token, "seed_hash": table.seed_hash}


@router.post("/api/tables/estimate", response_model=p.Solving, responses=responses)
async def estimate(request: Request) -> dict[str, Any]:
    """What creating this table would spend solving its rules, for the page to say while it waits.

    Each asks the solver's cost (tens of milliseconds): it spends one of the address's messages.
    """
    hub = _hub(request)
    _spend_message(hub, _address(request))
    body = await _read(request, p.CreateTable)
    return {"seconds": await hub.solving_seconds(body)}


@contextlib.contextmanager
def _by_code(hub: Hub, address: str, code: str = "", token: str | None = None) -> Iterator[None]:
    """A request that names a table by its code: refused while the address has looked up its fill
    of codes that name no table this minute (codes tried at random find tables, whose free seats
    could then be taken), and counted as such a code when it names none. A ``token`` that holds a
    seat at the table ``code`` (held in this process's memory) is no guess: the players behind one
    address (a bar's Wi-Fi, a mobile network's) still reach their tables while another guesses."""
    wait = hub.addresses.guessing(address)
    table = hub.tables.get(code)
    if wait is not None and (table is None or token is None or table.seat_of(token) is None):
        said = Message("server.unknown_codes", {"most": hub.limits.unknown_codes_per_minute})
        raise TableError("rate_limited", said, 429, retry_after=wait)
    try:
        yield
    except TableError as e:
        if e.error == "no_table":
            hub.addresses.missed(address)
        raise


def _spend_message(hub: Hub, address: str) -> None:
    """One of the address's messages a second, spent by a request that costs as much as a move."""
    if not hub.addresses.message(address):
        most = f"{hub.limits.messages_per_second:g}"
        flood = Message("server.messages_per_second", {"most": most})
        raise TableError("rate_limited", flood, 429, retry_after=1)


@router.get("/api/tables/{code}", response_model=p.TablePublic, responses=responses)
async def show(request: Request, code: str, authorization: str | None = Header(None)) -> out.TablePublic:
    """The table as anyone with its code sees it; a seated player's token (optional) lets them
    reach it while their address is stopped for guessing codes (:func:`_by_code`)."""
    hub = _hub(request)
    address = _address(request)
    with _by_code(hub, address, code, _bearer(authorization)):
        return await hub.public(code, address)


@router.post("/api/tables/{code}/join", response_model=p.Joined, responses=responses)
async def join(code: str, request: Request) -> dict[str, Any]:
    hub = _hub(request)
    body = await _read(request, p.JoinTable)
    with _by_code(hub, _address(request)):
        table, seat, token = await hub.join(code, body.name)
    return {"code": table, "seat": seat, "token": token}


@router.post("/api/tables/{code}/start", response_model=p.TablePublic, responses=responses)
async def start(request: Request, code: str, authorization: str | None = Header(None)) -> out.TablePublic:
    hub = _hub(request)
    with _by_code(hub, _address(request), code, _bearer(authorization)):
        return await hub.start(code, _bearer(authorization))


@router.post("/api/tables/{code}/rematch", response_model=p.Rematch, responses=responses)
async def rematch(request: Request, code: str, authorization: str | None = Header(None)) -> dict[str, Any]:
    hub = _hub(request)
    hints = _hints(request)
    with _by_code(hub, _address(request), code, _bearer(authorization)):
        new = await hub.rematch(code, _bearer(authorization), _address(request))
    if new in hub.tables:
        hints.watch(hub.tables[new])  # the rematch has the hints of its game
    return {"code": new}


@router.post("/api/tables/{code}/seats/{seat}/hand", response_model=p.Joined, responses=responses)
async def hand(
    request: Request, code: str, seat: int, authorization: str | None = Header(None)
) -> dict[str, Any]:
    """A seated player hands a seat (theirs, or that of a player whose phone died) to another
    phone: the answer's token holds it from then on, the one that held it no longer does. At a real
    table's score, a phone watching takes the keeper's seat so, once no page has held it for two
    minutes. Each is a write: it spends one of the address's messages, as a move does."""
    hub = _hub(request)
    _spend_message(hub, _address(request))
    with _by_code(hub, _address(request), code, _bearer(authorization)):
        code, token = await hub.hand(code, _bearer(authorization), seat)
    return {"code": code, "seat": seat, "token": token}


@router.get("/healthz", response_model=p.Health)
@router.head("/healthz", include_in_schema=False)  # as a load balancer's check may ask
async def healthz(request: Request) -> dict[str, Any]:
    """For a load balancer: the database answers, and what this process holds."""
    hub = _hub(request)
    try:  # in a thread: a database slow to answer holds up this check only, not the process
        await hub.database_answers()
    except SQLAlchemyError as e:
        raise TableError("internal", Message("server.database_silent"), 503) from e
    return {
        "ok": True,
        "process": hub.cluster.me,
        "tables": len(hub.tables),
        "owned": len(hub.owned()),
        "resuming": not hub.resumed.is_set(),
    }


@router.get("/api/tables/{code}/record", responses=responses)
async def record(request: Request, code: str) -> dict[str, Any]:
    hub = _hub(request)
    address = _address(request)
    with _by_code(hub, address):
        return await hub.record(code, address)


@router.get("/api/tables/{code}/analysis", responses=responses)
async def table_analysis(request: Request, code: str, bots: bool = False) -> dict[str, Any]:
    """Every decision of the finished game valued (docs/analysis.md); like the record, once it is over."""
    hub = _hub(request)
    analyst = _analyst(request)
    try:
        with _by_code(hub, _address(request)):
            found = await hub.record(code, _address(request))
    except TableError as e:
        if e.error != "not_over":
            raise
        raise TableError("not_over", Message("server.analysed_after"), 409) from e
    return await analyst.analyse(found, bots, _address(request))


# -- history -----------------------------------------------------------------


GAMES_MOST = 200  # finished games listed at once
LOOKED_UP_MOST = 100  # a name looked up: longer than any the history may hold from an older version


@router.get("/api/games", response_model=list[p.GameSummary], responses=responses)
async def games(
    request: Request,
    limit: Annotated[int, Query(ge=1, le=GAMES_MOST, description="the newest games, this many")] = 20,
) -> list[dict[str, Any]]:
    hub = _hub(request)
    rows = await asyncio.to_thread(hub.history.games, limit)  # not on the event loop, as the records
    return [asdict(r) for r in rows]


@router.get("/api/games/{game_id}/record", responses=responses)
async def game_record(request: Request, game_id: int) -> dict[str, Any]:
    hub = _hub(request)
    try:
        return (await asyncio.to_thread(hub.history.record, game_id)).to_dict()
    except Exception as e:
        raise TableError("no_game", Message("server.no_game", {"number": game_id}), 404) from e


@router.get("/api/games/{game_id}/analysis", responses=responses)
async def game_analysis(request: Request, game_id: int, bots: bool = False) -> dict[str, Any]:
    hub = _hub(request)
    analyst = _analyst(request)
    try:
        found = await asyncio.to_thread(hub.history.record, game_id)
    except Py421Error as e:
        raise TableError("no_game", Message("server.no_game", {"number": game_id}), 404) from e
    return await analyst.analyse(found.to_dict(), bots, _address(request))


@router.get("/api/leaderboard", response_model=list[p.PlayerStats], responses=responses)
async def leaderboard(request: Request, rules: str = "classic-11") -> list[dict[str, Any]]:
    hub = _hub(request)
    preset = _preset(rules)
    reading = _standings_read(request)
    read = reading.get(preset)
    if read is None:  # else the read under way answers this request too
        standings = functools.partial(_player_rows, hub, rules=preset, most=LEADERBOARD_MOST)
        read = asyncio.get_running_loop().run_in_executor(_STANDINGS, standings)
        reading[preset] = read
        read.add_done_callback(lambda _: reading.pop(preset, None))
    rows = await asyncio.shield(read)  # a request that goes away leaves the read to the others
    return sorted(rows, key=lambda r: (r["loss_rate"], -r["games"], r["name"]))


# The standings read the whole history, seconds of it on a large one: a flood of requests for them
# held every thread the other requests read the history on (the list of games, a record), which
# then waited over a minute. So they are read on a thread of their own, one preset at a time, and
# the requests that ask meanwhile share the read under way.
_STANDINGS = ThreadPoolExecutor(1, thread_name_prefix="py421-standings")


def _standings_read(connection: HTTPConnection) -> dict[str, asyncio.Future[list[dict[str, Any]]]]:
    """The standings being read, by preset (one server's)."""
    state = connection.app.state
    if not hasattr(state, "standings"):
        state.standings = {}
    return cast(dict[str, "asyncio.Future[list[dict[str, Any]]]"], state.standings)


@router.get("/api/players/{name}", response_model=p.PlayerStats, responses=responses)
async def player(request: Request, name: str, rules: str | None = None) -> dict[str, Any]:
    """One player's counts: of every preset's games, or of ``rules``' only (a leaderboard's row).
    The name is looked up in its NFKC form, as names are kept (:func:`.table.clean_name`), and held
    to the rules of a name read back: one the history holds from before a rule on new names is
    found all the same."""
    hub = _hub(request)
    try:
        if len(name) > LOOKED_UP_MOST:
            check_name(name, LOOKED_UP_MOST)  # refused for its length, with the most said
        check_name(name, None)
    except Py421Error as e:
        raise TableError.of("bad_name", e) from e
    name = unicodedata.normalize("NFKC", name)
    rows = await asyncio.to_thread(
        _player_rows, hub, rules=None if rules is None else _preset(rules), name=name
    )
    if not rows:
        raise TableError("no_player", Message("server.no_player", {"name": repr(name)}), 404)
    return rows[0]


def _preset(rules: str) -> str:
    """A preset's name as asked in a query, or the refusal that lists the presets."""
    if rules not in preset_names():
        accepted = ", ".join(preset_names())
        raise TableError(
            "bad_rules", Message("ruleset.unknown_preset", {"name": repr(rules), "accepted": accepted})
        )
    return rules


LEADERBOARD_MOST = 100  # the players of the most games: a leaderboard of everyone grows without end


def _player_rows(
    hub: Hub, *, rules: str | None = None, name: str | None = None, most: int | None = None
) -> list[dict[str, Any]]:
    """The history's counts per player (:meth:`py421.history.History.stats`), with their loss rate:
    a leaderboard's rows (the ``most`` players of the most games) and a player's alike. Read in a
    thread: not on the event loop."""
    rows = hub.history.stats(rules=rules, name=name, most=most)
    for row in rows:
        row["loss_rate"] = (row["losses"] or 0) / row["games"]
    return rows


# -- live play -----------------------------------------------------------------


@router.websocket("/ws/{code}")
async def play(ws: WebSocket, code: str, lang: str = "en") -> None:
    hub = _hub(ws)
    hints = _hints(ws)
    address = ws.client.host if ws.client else ""
    token, protocol = _ws_token(ws)
    lang = "fr" if lang == "fr" else "en"
    await ws.accept(subprotocol=protocol)
    if not hub.addresses.open(address):
        most = Message("server.connections_per_address", {"most": hub.limits.connections_per_address})
        await _refuse(ws, TableError("too_many_connections", most), lang)
        return
    try:
        await _session(ws, hub, hints, code, token, lang, address)
    finally:
        hub.addresses.close(address)


async def _session(
    ws: WebSocket, hub: Hub, hints: Hints, code: str, token: str | None, lang: str, address: str
) -> None:
    try:
        with _by_code(hub, address, code, token):
            table = await hub.attached(code, address)
        hints.watch(table)
        seat = table.seat_of(token)
        conn = Connection(
            ws.send_text,
            seat,
            lang,
            address=address,
            queue=hub.limits.queue,
            send_seconds=hub.limits.send_seconds,
            holding=hash_token(token) if seat is not None and token else None,
        )
        if token and seat is None and await hub.holds_no_seat(table, token):
            conn.say("not_seated", Message("server.not_seated"))  # handed on while away: told first
        await hub.connect(table, conn)
    except TableError as e:
        await _refuse(ws, e, lang)
        return
    tasks = [
        asyncio.create_task(conn.write()),
        asyncio.create_task(_receive(ws, hub, table, conn)),
        asyncio.create_task(conn.dropped.wait()),
    ]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            if task.done() and not task.cancelled():
                task.exception()  # a socket that broke ends the session; nothing more to say
            task.cancel()
        await hub.disconnect(table, conn)
    if conn.dropped.is_set():
        with contextlib.suppress(Exception):  # a client that does not read may not take this either
            async with asyncio.timeout(1):
                await ws.close(code=1013 if conn.why == "slow_client" else 1000)


async def _receive(ws: WebSocket, hub: Hub, table: Table, conn: Connection) -> None:
    while True:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return
        try:
            if not hub.addresses.message(conn.address):  # every frame, refused ones too: each costs
                most = f"{hub.limits.messages_per_second:g}"
                raise TableError("rate_limited", Message("server.messages_per_second", {"most": most}))
            text = message.get("text")
            if text is None:
                raise TableError("malformed", Message("server.text_frames"))
            if len(text.encode()) > hub.limits.message_bytes:
                raise TableError(
                    "too_large", Message("server.message_bytes", {"most": hub.limits.message_bytes})
                )
            await _handle(hub, table, conn, text)
        except TableError as e:
            conn.error(e.error, *e.said(conn.lang))
            if e.error == "rate_limited":
                # Not read for a while: a flood waits in the client's own socket (uvicorn reads no
                # more until this loop asks), rather than each message costing a refusal.
                await asyncio.sleep(RATE_PAUSE_SECONDS)
        except SQLAlchemyError:  # nothing was kept: the move can be sent again
            log.exception("table %s: a move could not be saved", table.code)
            conn.say("internal", Message("server.move_unsaved"))
        except Exception:  # a fault of the server's: said, and the connection goes on
            log.exception("table %s: a message failed", table.code)
            conn.say("internal", Message("server.message_failed"))


async def _handle(hub: Hub, table: Table, conn: Connection, text: str) -> None:
    try:
        message = p.INBOUND.validate_json(text)
    except ValidationError as e:
        if e.errors()[0].get("type") == "union_tag_invalid":
            raise TableError("unknown_type", _unknown_type()) from e
        raise TableError("malformed", _inbound_problem(e)) from e
    match message:  # a message added to the protocol fails mypy here until it is handled
        case p.Ping():
            conn.offer('{"type":"pong"}')
        case p.Act():
            await hub.act(table, conn.seat, message.version, message.action)
        case p.Report():
            await hub.report(table, conn.seat, message.version, message.turn)
        case p.Undo():
            await hub.undo(table, conn.seat, message.version)
        case p.Back():
            await hub.back(table, conn.seat)
        case _:
            assert_never(message)


def _unknown_type() -> Message:
    return Message("server.unknown_type", {"accepted": ", ".join(p.INBOUND_TYPES)})


def _inbound_problem(e: ValidationError) -> str | Message:
    first = e.errors()[0]
    kind = first.get("type", "")
    if kind in ("json_invalid", "recursion_loop") or "recursion" in str(first.get("msg", "")):
        return Message("server.message_json")
    if kind in ("union_tag_not_found", "model_type", "model_attributes_type", "dict_type"):
        return Message("server.message_type")
    if kind == "union_tag_invalid":
        return _unknown_type()
    return problems(e.errors())


def problems(errors: Any) -> str | Message:
    """Pydantic's complaints as one line, in its own words: where, and what is accepted; or, for a
    body that is no object at all or nothing Pydantic names, the catalog's message."""
    parts = []
    for err in list(errors)[:3]:
        where = ".".join(
            str(x) for x in err.get("loc", ()) if x not in ("body", "act", "report", "undo", "ping")
        )
        msg = str(err.get("msg", "invalid"))
        whole = err.get("type") in ("json_invalid", "model_attributes_type", "model_type", "dict_type")
        if whole and not where:
            return Message("server.json_object")
        parts.append(f"{where}: {msg}" if where else msg)
    return "; ".join(parts) or Message("server.not_accepted")


async def _read(request: Request, model: type[M]) -> M:
    """The body as ``model``; JSON nested too deep or too large, or wrong fields, are refused."""
    body = await request.body()
    try:
        return model.model_validate_json(body or b"{}")
    except ValidationError as e:
        raise TableError("malformed", problems(e.errors())) from e


async def _refuse(ws: WebSocket, refused: TableError, lang: str) -> None:
    """A WebSocket refused before its session starts: why, in its language, then closed."""
    text, said_in = refused.said(lang)
    message: out.ErrorMessage = {
        "type": "error",
        "error": refused.error,
        "message": text,
        "lang": "fr" if said_in == "fr" else "en",
    }
    with contextlib.suppress(Exception):
        async with asyncio.timeout(2):
            await ws.send_json(message)
            await ws.close(code=4404 if refused.error == "no_table" else 1013)


def _address(request: Request) -> str:
    return request.client.host if request.client else ""


TOKEN_MOST = 64  # the server's tokens are 32 characters: a longer one is nobody's


SUBPROTOCOL = "py421"  # what the server answers a WebSocket that offers it
TOKEN_PROTOCOL = "py421.token."  # offered beside it, followed by the seat's token


def _ws_token(ws: WebSocket) -> tuple[str | None, str | None]:
    """A WebSocket's seat token, and the subprotocol to accept it with.

    The page offers the protocols ``py421`` and ``py421.token.TOKEN`` (a browser can set no other
    header); another client may send ``Authorization: Bearer TOKEN``. A URL's ``?token=`` is still
    read, for clients written before: proxies log URLs, so it is no longer documented, and the
    server never logs a query.
    """
    offered = [str(x) for x in ws.scope.get("subprotocols") or []]
    token = next((x[len(TOKEN_PROTOCOL) :] for x in offered if x.startswith(TOKEN_PROTOCOL)), None)
    if token is None:
        token = _bearer(ws.headers.get("authorization")) or ws.query_params.get("token")
    if token is not None and len(token) > TOKEN_MOST:
        token = None
    return token, SUBPROTOCOL if SUBPROTOCOL in offered else None


def _bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer`` header; one that cannot be a seat's is no token
    (it would be refused all the same, and it is not worth passing to another process)."""
    if header and header.lower().startswith("bearer "):
        token = header[7:].strip()
        return token if len(token) <= TOKEN_MOST else None
    return None
