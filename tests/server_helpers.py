"""Shared pieces of the server tests: an app on a database, and a client that plays."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import random
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from starlette.types import ASGIApp

from py421.server.app import create_app
from py421.server.serving import uvicorn_options

from .server_process import free_port

POSTGRES = os.environ.get("PY421_TEST_POSTGRES")


def database_urls(tmp: Path) -> list[Any]:
    """SQLite always; PostgreSQL when the test command started one (required on CI)."""
    urls: list[Any] = [pytest.param(f"sqlite:///{tmp}/server.sqlite3", id="sqlite")]
    if POSTGRES:
        urls.append(pytest.param(POSTGRES, id="postgresql"))
    elif os.environ.get("CI"):
        raise RuntimeError("CI runs the storage tests on PostgreSQL: PY421_TEST_POSTGRES is not set")
    return urls


def fresh_postgres(url: str) -> str:
    """An empty database of this test worker's own (tests run in parallel)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    base, _, name = url.rpartition("/")
    own = f"{name}_{worker}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        found = conn.execute(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": own}).first()
        if not found:
            conn.execute(text(f'CREATE DATABASE "{own}"'))
    admin.dispose()
    mine = f"{base}/{own}"
    engine = create_engine(mine)
    with engine.begin() as conn:  # every table dropped, the migrations' own included
        conn.execute(text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
    engine.dispose()
    return mine


@contextmanager
def serving(url: str, bot_delay: float = 0.0, **options: Any) -> Iterator[TestClient]:
    """A server whose tables' dice are fixed: the same games on every run; ``options``: the rest of
    :func:`create_app`'s."""
    if url.startswith("postgresql"):
        url = fresh_postgres(url)
    seeds = (f"test-table-{i}" for i in itertools.count())
    with TestClient(create_app(url, bot_delay=bot_delay, seeds=seeds, **options)) as client:
        yield client


def create(client: TestClient, **request: Any) -> dict[str, Any]:
    # lyonnaise-21: three throws in the charge, so the creator (who leads) decides at once
    body = {"rules": "lyonnaise-21", "seats": ["human", "bot:heuristic"], "name": "Alice", "timeout": 0}
    response = client.post("/api/tables", json=body | request)
    assert response.status_code == 200, response.text
    created: dict[str, Any] = response.json()
    return created


def start(client: TestClient, code: str, token: str) -> None:
    response = client.post(f"/api/tables/{code}/start", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.text


def played_out(client: TestClient, **request: Any) -> dict[str, Any]:
    """A table made with ``request`` (as :func:`create`), started and played to the end by its creator
    through a WebSocket: its last message."""
    created = create(client, **request)
    code, token = created["code"], created["token"]
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        ws.receive_json()
        start(client, code, token)
        return play_to_the_end(ws)


def play_to_the_end(ws: Any, seed: int = 0, first: dict[str, Any] | None = None) -> dict[str, Any]:
    """Read the table's messages and act whenever it is this seat's turn, until the end.

    ``first``: a message already read, to act on before reading more.
    """
    rng = random.Random(seed)
    while True:
        message: dict[str, Any] = first or ws.receive_json()
        first = None
        assert message["type"] == "table", message
        view = message["view"]
        if view is None:
            continue
        if view["outcome"] is not None:
            return message
        if view["your_turn"]:
            action = rng.choice(view["legal_actions"])  # sent as the page sends it: the move as data
            move = {k: v for k, v in action.items() if k != "text"}
            ws.send_json({"type": "act", "version": message["version"], "action": move})


@contextlib.asynccontextmanager
async def uvicorn_serving(app: ASGIApp, **options: Any) -> AsyncIterator[int]:
    """``app`` (py421's, or any ASGI app) served by uvicorn in this process and event loop, as 421
    serve runs it; its port."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, port=port, **(uvicorn_options() | options)))
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    try:
        yield port
    finally:
        server.should_exit = True
        await task
