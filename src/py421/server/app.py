"""The table server: its parts put together, the pages and files it serves, and how it refuses.

The routes are :mod:`.routes`; every change is made by :class:`py421.server.hub.Hub`.
Every refusal, whatever went wrong, has the body ``{"detail": {"error", "message", "lang"}}`` (``lang``:
the message's language).
"""

from __future__ import annotations

import logging
import math
import socket
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.types import Message as ASGIMessage

from ..history import History
from ..i18n import guillemets, header_lang
from ..page.bundle import RUNTIME
from ..page.site import made_files
from ..players import levels
from . import protocol as p
from .addresses import ForwardedClient, TrustedProxies
from .analyst import Analyst
from .browsers import BrowserGuard, Hosts, Origins
from .cluster import Cluster, Solo, first_line
from .collector import keep_collections_short
from .database import Store, make_engine, migrate, single_process
from .hints import Hints
from .hub import Hub
from .limits import Limits
from .optimal_seats import OptimalBots
from .policy_seats import PolicyBots, Reader
from .routes import problems, router
from .table import TableError
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
    allowed_hosts: Iterable[str] | None = None,
    policy_reader: Reader | None = None,
) -> FastAPI:
    """The server on a database; ``seeds`` fixes the tables' dice (for tests). ``proxies``: those
    whose word on a client's address is taken; ``allowed_origins``: other sites whose pages may
    use the server; ``allowed_hosts``: the names it answers for beside its addresses and local names
    (:class:`.browsers.Hosts`; None: any, as for an app made in-process); ``policy_reader``: how a
    worker reads the trained policies the operator named (bot levels read from a file), which are
    then played there (:mod:`.policy_seats`)."""
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
        policies=PolicyBots(
            {level.key: Path(level.source) for level in levels() if level.source}, budget, policy_reader
        ),
        cluster=cluster,
        prepare_hints=analyst.prepare,
        expect_hints=analyst.expected,
    )
    hints = Hints(analyst)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await cluster.start(hub)
        # read in the background, the server answering meanwhile; the tables left idle while it was
        # down end as soon as they are read, rather than at the first round of housekeeping
        hub.spawn(hub.resume_all())
        hub.spawn(hub.housekeeping())
        if cluster.several:
            hub.spawn(hub.keep_presence())
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
    # The routes are the app's own, not an included router: matched at once, with no router between.
    app = FastAPI(
        title="py421 tables", lifespan=lifespan, docs_url=None, redoc_url=None, routes=list(router.routes)
    )
    app.state.hub = hub  # what the routes (.routes) depend on
    app.state.hints = hints
    app.state.analyst = analyst
    app.add_middleware(BodyLimit, most=limits.body_bytes)
    app.add_middleware(AnswerFailures)  # outside BodyLimit, which answers its own refusal
    app.add_middleware(
        BrowserGuard, origins=Origins(allowed_origins), hosts=Hosts(allowed_hosts)
    )  # every answer, every refusal
    app.add_middleware(ForwardedClient, proxies=proxies or TrustedProxies())  # the outermost

    def refusal(
        error: p.ErrorCode, message: str, status: int, retry_after: float | None = None, lang: str = "en"
    ) -> JSONResponse:
        headers = {"Retry-After": str(max(1, math.ceil(retry_after)))} if retry_after is not None else None
        detail = {"error": error, "message": guillemets(message), "lang": lang}
        return JSONResponse({"detail": detail}, status_code=status, headers=headers)

    @app.exception_handler(TableError)
    async def refused(request: Request, exc: TableError) -> JSONResponse:
        text, said_in = exc.said(header_lang(request.headers.get("accept-language", "")))
        return refusal(exc.error, text, exc.status, exc.retry_after, said_in)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return refusal("malformed", str(problems(exc.errors())), 400)

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

    # HEAD too: a load balancer's or an uptime monitor's check asks it
    both = ["GET", "HEAD"]

    @app.api_route("/", methods=both, include_in_schema=False)
    @app.api_route("/t/{code}", methods=both, include_in_schema=False)
    @app.api_route("/t/{code}/analysis", methods=both, include_in_schema=False)
    @app.api_route("/games/{game_id}/analysis", methods=both, include_in_schema=False)
    @app.api_route("/scorekeeper", methods=both, include_in_schema=False)
    @app.api_route("/here", methods=both, include_in_schema=False)
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

    return app


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
            + b' bytes","lang":"en"}}'
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
        except ClientDisconnect:  # gone before its body was in: nobody to answer, nothing failed
            return
        except Exception:
            log.exception("request %s %r failed", scope["method"], scope["path"])
            if not answer.started:  # else the answer is on its way, and can only be cut short
                body = {
                    "error": "internal",
                    "message": "the server failed on this request; it is logged",
                    "lang": "en",
                }
                await JSONResponse({"detail": body}, status_code=500)(scope, receive, send)
