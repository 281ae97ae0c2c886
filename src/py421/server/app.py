"""The table server: HTTP for tables and history, a WebSocket per player or watcher.

Thin on purpose: requests are read into the models of :mod:`.protocol` here,
and every change is made by :class:`py421.server.hub.Hub`. Every refusal,
whatever went wrong, has the body ``{"detail": {"error", "message"}}``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import socket
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import asynccontextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any, TypeVar

from fastapi import FastAPI, Header, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ValidationError
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.types import Message as ASGIMessage

from ..core.engine import check_name
from ..core.errors import Message, Py421Error
from ..core.rules import Ruleset, preset_names
from ..history import History
from ..i18n import guillemets
from ..page.bundle import RUNTIME
from ..page.site import made_files
from ..players import listing
from . import protocol as p
from .addresses import ForwardedClient, TrustedProxies
from .analyst import Analyst
from .browsers import BrowserGuard, Origins
from .cluster import Cluster, Solo, first_line
from .collector import keep_collections_short
from .database import Store, make_engine, migrate, single_process
from .hints import Hints
from .hub import Hub
from .limits import Limits
from .optimal_seats import OptimalBots
from .table import Connection, Table, TableError
from .worker import Budget

STATIC = Path(__file__).parent / "static"
M = TypeVar("M", bound=BaseModel)
log = logging.getLogger(__name__)


def _serve_file(content: bytes, media_type: str) -> Any:
    async def serve() -> Response:
        # never kept by a cache on the way: the service worker's bytes tell the browser of a new version
        return Response(content, media_type=media_type, headers={"Cache-Control": "no-cache"})

    return serve


def bind_error(host: str, port: int) -> OSError | None:
    """Why the server could not listen on ``host`` and ``port``, tried before anything is said.

    Every address the host resolves to is bound and released at once, with the
    option uvicorn binds with, so a port another server holds is found here
    rather than after the address has been announced.
    """
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as exc:
        return exc
    for family, kind, proto, _, address in addresses:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as exc:
                return exc
    return None


def create_app(
    db_url: str,
    *,
    bot_delay: float = 0.6,
    seeds: Iterator[str] | None = None,
    limits: Limits | None = None,
    budget: Budget | None = None,
    proxies: TrustedProxies | None = None,
    allowed_origins: Iterable[str] = (),
) -> FastAPI:
    """The server on a database; ``seeds`` fixes the tables' dice (for tests). ``proxies``: those
    whose word on a client's address is taken; ``allowed_origins``: other sites whose pages may
    use the server."""
    limits = limits or Limits()
    engine = make_engine(db_url)
    migrate(engine)
    guard = single_process(engine)  # SQLite: one process per file, refused before it starts
    store = Store(engine)
    cluster: Solo
    if engine.dialect.name == "postgresql":
        cluster = Cluster(db_url)  # any number of processes may share the database
        store.announce = cluster.me
    else:
        cluster = Solo()
    analyst = Analyst(budget)  # its workers start at the first analysis or table with hints
    hub = Hub(
        store,
        History(engine=engine),
        bot_delay=bot_delay,
        seeds=seeds,
        limits=limits,
        optimal=OptimalBots(budget),
        cluster=cluster,
        prepare_hints=analyst.prepare,
    )
    hints = Hints(analyst)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await cluster.start(hub)
        hub.resume_all()
        hub.spawn(hub.housekeeping())
        hub.spawn(keep_collections_short())
        yield
        await hub.close()  # every step is already written: stopping loses nothing
        analyst.close()
        await cluster.close()  # its tables' locks go: the other processes take them over
        hub.store.close()
        engine.dispose()
        if guard is not None:
            guard.close()

    # No page of the API's own: FastAPI's runs a CDN's scripts on the origin that keeps the seats'
    # tokens. The API is described at /openapi.json.
    app = FastAPI(title="py421 tables", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.hub = hub
    app.state.hints = hints
    app.add_middleware(BodyLimit, most=limits.body_bytes)
    app.add_middleware(AnswerFailures)  # outside BodyLimit, which answers its own refusal
    app.add_middleware(BrowserGuard, origins=Origins(allowed_origins))  # every answer, every refusal
    app.add_middleware(ForwardedClient, proxies=proxies or TrustedProxies())  # the outermost

    def refusal(
        error: p.ErrorCode, message: str, status: int, retry_after: float | None = None
    ) -> JSONResponse:
        headers = {"Retry-After": str(max(1, math.ceil(retry_after)))} if retry_after is not None else None
        return JSONResponse(
            {"detail": {"error": error, "message": guillemets(message)}}, status_code=status, headers=headers
        )

    @app.exception_handler(TableError)
    async def refused(request: Request, exc: TableError) -> JSONResponse:
        return refusal(exc.error, exc.message, exc.status, exc.retry_after)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return refusal("malformed", str(_problems(exc.errors())), 400)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 404:
            return refusal("not_found", f"nothing at {request.url.path}", 404)
        return refusal("malformed", str(exc.detail), exc.status_code)

    async def database_away(request: Request, exc: Exception) -> JSONResponse:
        # one line, not a traceback a request: while it is away every request meets it
        why = first_line(exc)
        log.warning("request %s %r: the database does not answer (%s)", request.method, request.url.path, why)
        return refusal("internal", "the database does not answer; try again in a moment", 503)

    app.add_exception_handler(OperationalError, database_away)
    if db_url.startswith("postgres"):  # the processes' own connections (locks, requests) are psycopg's
        import psycopg

        app.add_exception_handler(psycopg.OperationalError, database_away)

    # -- pages -------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    @app.get("/t/{code}", include_in_schema=False)
    @app.get("/t/{code}/analysis", include_in_schema=False)
    @app.get("/games/{game_id}/analysis", include_in_schema=False)
    @app.get("/scorekeeper", include_in_schema=False)
    @app.get("/here", include_in_schema=False)
    async def page(code: str | None = None, game_id: str | None = None) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC, check_dir=False), name="static")
    # the page's games on a phone: Pyodide's runtime, and py421's own Python for it to run
    app.mount("/pyodide", StaticFiles(directory=RUNTIME, check_dir=False), name="pyodide")
    try:
        files = made_files()
    except FileNotFoundError as e:  # a checkout never installed: the page plays online only
        log.warning("%s", e)
        files = {}
    made = {
        "/py421.zip": "application/zip",
        "/sw.js": "text/javascript",
        "/manifest.webmanifest": "application/manifest+json",
    }
    for address, media_type in made.items():
        if address in files:
            app.add_api_route(address, _serve_file(files[address], media_type), include_in_schema=False)

    # -- tables ------------------------------------------------------------------

    responses: dict[int | str, dict[str, Any]] = {400: {"model": p.ErrorBody}}

    @app.get("/api/bots", response_model=list[p.BotOffer])
    async def bots() -> list[dict[str, object]]:
        """The bot levels a seat may be given, py421's own and any registered."""
        return listing()

    @app.get("/api/presets", response_model=list[p.Preset])
    async def presets() -> list[dict[str, Any]]:
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

    @app.post("/api/tables", response_model=p.Created, responses=responses)
    async def create(request: Request) -> dict[str, Any]:
        body = await _read(request, p.CreateTable)
        table, token = await hub.create(body, _address(request))
        hints.watch(table)
        return {"code": table.code, "seat": 0, "token": token, "seed_hash": table.seed_hash}

    @app.get("/api/tables/{code}", response_model=p.TablePublic, responses=responses)
    async def show(code: str) -> dict[str, Any]:
        return hub.public(code)

    @app.post("/api/tables/{code}/join", response_model=p.Joined, responses=responses)
    async def join(code: str, request: Request) -> dict[str, Any]:
        body = await _read(request, p.JoinTable)
        table, seat, token = await hub.join(code, body.name)
        return {"code": table, "seat": seat, "token": token}

    @app.post("/api/tables/{code}/start", response_model=p.TablePublic, responses=responses)
    async def start(code: str, authorization: str | None = Header(None)) -> dict[str, Any]:
        return await hub.start(code, _bearer(authorization))

    @app.post("/api/tables/{code}/rematch", response_model=p.Rematch, responses=responses)
    async def rematch(code: str, authorization: str | None = Header(None)) -> dict[str, Any]:
        new = await hub.rematch(code, _bearer(authorization))
        if new in hub.tables:
            hints.watch(hub.tables[new])  # the rematch has the hints of its game
        return {"code": new}

    @app.get("/healthz", response_model=p.Health)
    async def healthz() -> dict[str, Any]:
        """For a load balancer: the database answers, and what this process holds."""
        try:
            hub.store.exists("AAAAA")
        except SQLAlchemyError as e:
            raise TableError("internal", Message("server.database_silent"), 503) from e
        return {"ok": True, "process": cluster.me, "tables": len(hub.tables), "owned": len(hub.owned())}

    @app.get("/api/tables/{code}/record", responses=responses)
    async def record(code: str) -> dict[str, Any]:
        return hub.record(code)

    @app.get("/api/tables/{code}/analysis", responses=responses)
    async def table_analysis(code: str, bots: bool = False) -> dict[str, Any]:
        """Every decision of the finished game valued (docs/analysis.md); like the record, once it is over."""
        try:
            found = hub.record(code)
        except TableError as e:
            if e.error != "not_over":
                raise
            raise TableError("not_over", Message("server.analysed_after"), 409) from e
        return await analyst.analyse(found, bots)

    # -- history -----------------------------------------------------------------

    @app.get("/api/games", response_model=list[p.GameSummary])
    async def games(limit: int = 20) -> list[dict[str, Any]]:
        rows = hub.history.games(max(1, min(limit, 200)))
        return [asdict(r) for r in rows]

    @app.get("/api/games/{game_id}/record", responses=responses)
    async def game_record(game_id: int) -> dict[str, Any]:
        try:
            return hub.history.record(game_id).to_dict()
        except Exception as e:
            raise TableError("no_game", Message("server.no_game", {"number": game_id}), 404) from e

    @app.get("/api/games/{game_id}/analysis", responses=responses)
    async def game_analysis(game_id: int, bots: bool = False) -> dict[str, Any]:
        try:
            found = await asyncio.to_thread(hub.history.record, game_id)
        except Py421Error as e:
            raise TableError("no_game", Message("server.no_game", {"number": game_id}), 404) from e
        return await analyst.analyse(found.to_dict(), bots)

    @app.get("/api/leaderboard", response_model=list[p.PlayerStats], responses=responses)
    async def leaderboard(rules: str = "classic-11") -> list[dict[str, Any]]:
        if rules not in preset_names():
            accepted = ", ".join(preset_names())
            raise TableError(
                "bad_rules", Message("ruleset.unknown_preset", {"name": repr(rules), "accepted": accepted})
            )
        rows = hub.history.stats(rules=rules)
        for row in rows:
            row["loss_rate"] = (row["losses"] or 0) / row["games"]
        return sorted(rows, key=lambda r: (r["loss_rate"], -r["games"], r["name"]))

    @app.get("/api/players/{name}", response_model=p.PlayerStats, responses=responses)
    async def player(name: str) -> dict[str, Any]:
        try:
            check_name(name, 100)
        except Py421Error as e:
            raise TableError.of("bad_name", e) from e
        rows = hub.history.stats(name=name)
        if not rows:
            raise TableError("no_player", Message("server.no_player", {"name": repr(name)}), 404)
        return rows[0]

    # -- live play -----------------------------------------------------------------

    @app.websocket("/ws/{code}")
    async def play(ws: WebSocket, code: str, lang: str = "en") -> None:
        address = ws.client.host if ws.client else ""
        token, protocol = _ws_token(ws)
        await ws.accept(subprotocol=protocol)
        if not hub.addresses.open(address):
            await _refuse(ws, "too_many_connections", f"at most {limits.connections_per_address} connections "
                          "from one address; close some tabs")  # fmt: skip
            return
        try:
            await _session(ws, code, token, "fr" if lang == "fr" else "en", address)
        finally:
            hub.addresses.close(address)

    async def _session(ws: WebSocket, code: str, token: str | None, lang: str, address: str) -> None:
        try:
            table = hub.get(code)
            hints.watch(table)
            conn = Connection(
                ws.send_text,
                table.seat_of(token),
                lang,
                address=address,
                queue=limits.queue,
                send_seconds=limits.send_seconds,
            )
            await hub.connect(table, conn)
        except TableError as e:
            await _refuse(ws, e.error, e.message)
            return
        tasks = [
            asyncio.create_task(conn.write()),
            asyncio.create_task(_receive(ws, table, conn)),
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

    async def _receive(ws: WebSocket, table: Table, conn: Connection) -> None:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                return
            try:
                text = message.get("text")
                if text is None:
                    raise TableError("malformed", Message("server.text_frames"))
                if len(text.encode()) > limits.message_bytes:
                    raise TableError(
                        "too_large", Message("server.message_bytes", {"most": limits.message_bytes})
                    )
                if not hub.addresses.message(conn.address):
                    most = f"{limits.messages_per_second:g}"
                    raise TableError("rate_limited", Message("server.messages_per_second", {"most": most}))
                await _handle(hub, table, conn, text)
            except TableError as e:
                conn.error(e.error, *e.said(conn.lang))
            except SQLAlchemyError:  # nothing was kept: the move can be sent again
                log.exception("table %s: a move could not be saved", table.code)
                conn.error("internal", "the move could not be saved; send it again")
            except Exception:  # a fault of the server's: said, and the connection goes on
                log.exception("table %s: a message failed", table.code)
                conn.error("internal", "the server failed on this message; it is logged; send it again")

    return app


async def _handle(hub: Hub, table: Table, conn: Connection, text: str) -> None:
    try:
        message = p.INBOUND.validate_json(text)
    except ValidationError as e:
        if e.errors()[0].get("type") == "union_tag_invalid":
            raise TableError("unknown_type", _unknown_type()) from e
        raise TableError("malformed", _inbound_problem(e)) from e
    if isinstance(message, p.Ping):
        conn.offer('{"type":"pong"}')
    elif isinstance(message, p.Act):
        await hub.act(table, conn.seat, message.version, message.action)
    elif isinstance(message, p.Report):
        await hub.report(table, conn.seat, message.version, message.turn)
    else:
        await hub.undo(table, conn.seat, message.version)


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
    return _problems(e.errors())


def _problems(errors: Any) -> str | Message:
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
        raise TableError("malformed", _problems(e.errors())) from e


async def _refuse(ws: WebSocket, error: p.ErrorCode, message: str) -> None:
    with contextlib.suppress(Exception):
        async with asyncio.timeout(2):
            await ws.send_json({"type": "error", "error": error, "message": message})
            await ws.close(code=4404 if error == "no_table" else 1013)


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


class BodyLimit:
    """Refuses an HTTP body larger than ``most`` bytes before reading it all."""

    def __init__(self, app: ASGIApp, most: int) -> None:
        self.app, self.most = app, most

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.most):
            await self._too_large(send)
            return
        seen = 0

        async def counted() -> ASGIMessage:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.most:
                    raise _TooLarge
            return message

        answer = _Answer(send)
        try:
            await self.app(scope, counted, answer)
        except _TooLarge:
            if not answer.started:
                await self._too_large(send)

    async def _too_large(self, send: Send) -> None:
        body = (
            b'{"detail":{"error":"too_large","message":"a request body is at most '
            + str(self.most).encode()
            + b' bytes"}}'
        )
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class _TooLarge(Exception):
    pass


class _Answer:
    """``send`` passed on, noting whether the answer has begun: after that no other can be sent."""

    def __init__(self, send: Send) -> None:
        self.send, self.started = send, False

    async def __call__(self, message: ASGIMessage) -> None:
        self.started = self.started or message["type"] == "http.response.start"
        await self.send(message)


class AnswerFailures:
    """A request that meets a bug is answered 500 and logged once, with its method and path.

    Starlette's own last handler answers too, then raises the error again for the server, which
    logged it a second time, traceback and all.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        answer = _Answer(send)
        try:
            await self.app(scope, receive, answer)
        except Exception:
            log.exception("request %s %r failed", scope["method"], scope["path"])
            if not answer.started:  # else the answer is on its way, and can only be cut short
                body = {"error": "internal", "message": "the server failed on this request; it is logged"}
                await JSONResponse({"detail": body}, status_code=500)(scope, receive, send)
