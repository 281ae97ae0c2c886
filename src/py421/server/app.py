"""The table server: HTTP for tables and history, a WebSocket per player or watcher.

Thin on purpose: requests are read and checked here, and every change is
made by :class:`py421.server.hub.Hub`.
"""

from __future__ import annotations

import gc
import json
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

from fastapi import Body, FastAPI, Header, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.websockets import WebSocketDisconnected

from ..core.rules import Ruleset, preset_names
from ..storage import History
from .hub import Connection, Hub, TableError, seats_limit
from .store import Store, make_engine, migrate

STATIC = Path(__file__).parent / "static"
MAX_MESSAGE = 4096  # bytes: every message the protocol needs is far smaller
RATE = 10.0  # messages a second, per connection
BURST = 20.0


def create_app(db_url: str, *, bot_delay: float = 0.6, seeds: Iterator[str] | None = None) -> FastAPI:
    """The server on a database; ``seeds`` fixes the tables' dice (for tests)."""
    engine = make_engine(db_url)
    migrate(engine)
    hub = Hub(Store(engine), History(engine=engine), bot_delay=bot_delay, seeds=seeds)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        hub.resume_all()
        # What start-up made (modules, the rules, the migrations) lives as long as the
        # server: leaving it out of garbage collection shortens the pauses play sees.
        # Full collections (about a tenth of a second with 200 tables in play) come
        # ten times less often than Python's default: play makes little cyclic garbage.
        gc.freeze()
        gc.set_threshold(700, 10, 100)
        yield
        for task in list(hub.tasks):
            task.cancel()
        hub.store.close()
        engine.dispose()

    app = FastAPI(title="py421 tables", lifespan=lifespan)
    app.state.hub = hub

    @app.exception_handler(TableError)
    async def refused(request: Request, exc: TableError) -> JSONResponse:
        return JSONResponse({"detail": {"error": exc.error, "message": exc.message}}, status_code=exc.status)

    # -- pages -------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    @app.get("/t/{code}", include_in_schema=False)
    @app.get("/scorekeeper", include_in_schema=False)
    async def page(code: str | None = None) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC, check_dir=False), name="static")

    # -- tables ------------------------------------------------------------------

    @app.get("/api/presets")
    async def presets() -> list[dict[str, Any]]:
        found = []
        for name in preset_names():
            r = Ruleset.preset(name)
            found.append(
                {
                    "name": name,
                    "description": r.description,
                    "min_players": r.min_players,
                    "max_players": seats_limit(r),
                    "no_limit": not r.max_players,
                }
            )
        return found

    @app.post("/api/tables")
    async def create(body: Annotated[Any, Body()]) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise TableError("malformed", "send a JSON object: {rules, settings, seats, name, timeout}")
        table, token = hub.create(body)
        return {"code": table.code, "seat": 0, "token": token, "seed_hash": table.seed_hash}

    @app.get("/api/tables/{code}")
    async def show(code: str) -> dict[str, Any]:
        return hub.get(code).public()

    @app.post("/api/tables/{code}/join")
    async def join(code: str, body: Annotated[Any, Body()]) -> dict[str, Any]:
        name = body.get("name") if isinstance(body, dict) else None
        table, seat, token = hub.join(code, name)
        await hub.broadcast(table)
        return {"code": table.code, "seat": seat, "token": token}

    @app.post("/api/tables/{code}/start")
    async def start(code: str, authorization: Annotated[str | None, Header()] = None) -> dict[str, Any]:
        return (await hub.start(code, _bearer(authorization))).public()

    @app.post("/api/tables/{code}/rematch")
    async def rematch(code: str, authorization: Annotated[str | None, Header()] = None) -> dict[str, Any]:
        return {"code": (await hub.rematch(code, _bearer(authorization))).code}

    @app.get("/api/tables/{code}/record")
    async def record(code: str) -> dict[str, Any]:
        return hub.record(code)

    # -- history -----------------------------------------------------------------

    @app.get("/api/games")
    async def games(limit: int = 20) -> list[dict[str, Any]]:
        rows = hub.history.games(max(1, min(limit, 200)))
        return [asdict(r) for r in rows]

    @app.get("/api/games/{game_id}/record")
    async def game_record(game_id: int) -> dict[str, Any]:
        try:
            return hub.history.record(game_id).to_dict()
        except Exception as e:
            raise TableError("no_game", f"there is no game number {game_id}", 404) from e

    @app.get("/api/leaderboard")
    async def leaderboard(rules: str = "classic-11") -> list[dict[str, Any]]:
        rows = hub.history.stats(rules=rules)
        for row in rows:
            row["loss_rate"] = (row["losses"] or 0) / row["games"]
        return sorted(rows, key=lambda r: (r["loss_rate"], -r["games"], r["name"]))

    @app.get("/api/players/{name}")
    async def player(name: str) -> dict[str, Any]:
        rows = hub.history.stats(name=name)
        if not rows:
            raise TableError("no_player", f"no finished game has a player named {name!r}", 404)
        return rows[0]

    # -- live play -----------------------------------------------------------------

    @app.websocket("/ws/{code}")
    async def play(ws: WebSocket, code: str, token: str | None = None, lang: str = "en") -> None:
        await ws.accept()
        try:
            table = hub.get(code)
        except TableError as e:
            await ws.send_json({"type": "error", "error": e.error, "message": e.message})
            await ws.close(code=4404)
            return
        conn = Connection(ws.send_json, table.seat_of(token), "fr" if lang == "fr" else "en")
        await hub.connect(table, conn)
        allowance, last = BURST, time.monotonic()
        try:
            while True:
                text = await ws.receive_text()
                current = time.monotonic()
                allowance = min(BURST, allowance + (current - last) * RATE)
                last = current
                try:
                    if allowance < 1:
                        raise TableError(
                            "rate_limited", f"at most {RATE:.0f} messages a second; wait a moment"
                        )
                    allowance -= 1
                    await _handle(hub, table, conn, text)
                except TableError as e:
                    await ws.send_json({"type": "error", "error": e.error, "message": e.message})
        except (WebSocketDisconnect, WebSocketDisconnected):  # closed, or a send to it failed
            pass
        finally:
            await hub.disconnect(table, conn)

    return app


async def _handle(hub: Hub, table: Any, conn: Connection, text: str) -> None:
    if len(text.encode()) > MAX_MESSAGE:
        raise TableError("too_large", f"a message is at most {MAX_MESSAGE} bytes")
    try:
        message = json.loads(text)
    except ValueError as e:
        raise TableError("malformed", 'a message is a JSON object such as {"type": "ping"}') from e
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise TableError("malformed", 'a message is a JSON object with a "type"')
    kind = message["type"]
    if kind == "ping":
        await conn.send({"type": "pong"})
    elif kind == "act":
        await hub.act(table, conn.seat, message.get("version"), message.get("action"))
    elif kind == "report":
        await hub.report(table, conn.seat, message.get("version"), message.get("turn"))
    elif kind == "undo":
        await hub.undo(table, conn.seat, message.get("version"))
    else:
        raise TableError("unknown_type", f"unknown type {kind!r}; accepted: act, report, undo, ping")


def _bearer(header: str | None) -> str | None:
    if header and header.lower().startswith("bearer "):
        return header[7:].strip()
    return None
