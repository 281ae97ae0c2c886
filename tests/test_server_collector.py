"""The server's garbage collection: long-lived objects out of the collector's sight, cycles still freed."""

from __future__ import annotations

import asyncio
import gc
import json
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
import uvloop
from websockets.asyncio.client import connect

from py421.server.app import create_app
from py421.server.collector import YOUNG_THRESHOLD, Freezer, keep_collections_short
from py421.server.limits import Limits
from py421.server.serving import uvicorn_options

from .server_helpers import uvicorn_serving


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> weakref.ref[Node]:
    """A reference cycle nobody else holds: only the cyclic collector frees it."""
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def full_collections() -> list[int]:
    """A list that grows by one at each full collection while it is in ``gc.callbacks``' hands."""
    seen: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 2:
            seen.append(1)

    gc.callbacks.append(count)
    return seen


@pytest.fixture
def freezing() -> Iterator[None]:
    """The young collected as the server has them; after the test, as before and nothing frozen."""
    thresholds = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, *thresholds[1:])
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def test_frozen_cyclic_garbage_is_freed_once_what_is_frozen_has_doubled(freezing) -> None:
    """The collector's ticks told the time (the task only sleeps between them): the same on any machine."""
    freezer = Freezer(full_seconds=0.3, now=0.0)
    holder = [Node()]
    holder[0].other = holder[0]  # a cycle still in use when frozen
    lost = weakref.ref(holder[0])
    assert not freezer.tick(0.05)  # frozen
    holder.clear()
    gc.collect()  # an ordinary full collection does not see frozen objects
    assert lost() is not None
    seen = full_collections()
    try:
        assert not freezer.tick(0.4)  # past full_seconds, but nothing grew: no full collection
        assert lost() is not None
        grown: list[list[int]] = [[] for _ in range(2 * gc.get_freeze_count())]  # thrice as many objects
        assert not freezer.tick(0.45)  # frozen in turn
        assert freezer.tick(0.8)  # the next look: what is frozen has doubled
        assert lost() is None
        assert not freezer.tick(1.2) and not freezer.tick(1.6)  # it has not doubled again
        del grown
    finally:
        gc.callbacks.pop()
    assert len(seen) == 1


def test_a_server_that_holds_as_many_objects_is_never_paused_by_a_full_collection(freezing) -> None:
    """A full collection walks every game in play (0.8 s at 1,000 tables): tables that come and
    go in the same numbers give it nothing to find."""
    freezer = Freezer(full_seconds=0.05, now=0.0)
    seen = full_collections()
    try:
        freezer.tick(0.05)
        for i in range(20):  # games end and others start: objects freed, as many made
            games: list[list[list[int]]] = [[[] for _ in range(10)] for _ in range(1_000)]
            freezer.tick(0.08 + 0.03 * i)
            del games
    finally:
        gc.callbacks.pop()
    assert seen == []


def test_a_second_of_busy_play_starts_no_collection() -> None:
    """A busy turn of the event loop makes thousands of objects that live until it ends: collected
    every 700 allocations, as Python does, they were walked mid-turn, a tenth of the server's time."""

    async def scenario() -> int:
        keeper = asyncio.ensure_future(keep_collections_short(freeze_seconds=5, full_seconds=600))
        started = []

        def count(phase: str, info: dict[str, int]) -> None:
            if phase == "start":
                started.append(info["generation"])

        try:
            await asyncio.sleep(0)
            gc.callbacks.append(count)
            kept: list[list[int]] = [[] for _ in range(50_000)]  # a second's objects at 1,000 tables
            del kept
            return len(started)
        finally:
            gc.callbacks.remove(count)
            keeper.cancel()
            gc.unfreeze()

    assert asyncio.run(scenario()) == 0


def test_a_flood_of_cyclic_garbage_is_freed_before_the_full_collection() -> None:
    async def scenario() -> bool:
        keeper = asyncio.ensure_future(keep_collections_short(freeze_seconds=5, full_seconds=600))
        try:
            await asyncio.sleep(0)
            young = cycle()
            flood = [cycle() for _ in range(100_000)]  # Python collects the young on its own again
            return young() is None and any(ref() is None for ref in flood)
        finally:
            keeper.cancel()
            gc.unfreeze()

    assert asyncio.run(scenario())


def test_a_stopped_server_leaves_the_collector_as_it_found_it() -> None:
    async def scenario() -> tuple[int, tuple[int, int, int]]:
        keeper = asyncio.ensure_future(keep_collections_short(freeze_seconds=0.01))
        await asyncio.sleep(0.05)
        keeper.cancel()
        await asyncio.gather(keeper, return_exceptions=True)
        return gc.get_freeze_count(), gc.get_threshold()

    before = gc.get_threshold()
    assert asyncio.run(scenario()) == (0, before)


def test_a_websocket_connection_is_freed_at_once_without_the_cyclic_collector(tmp_path: Path) -> None:
    """uvicorn's HTTP protocol and its parser refer to each other; a connection upgraded to a
    WebSocket kept both, and what they hold, until a collection walked them."""
    made: list[weakref.ref[object]] = []

    class Watched(uvicorn_options()["http"]):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            made.append(weakref.ref(self))

    async def scenario() -> list[object]:
        async with uvicorn_serving(create_app(f"sqlite:///{tmp_path}/s.db"), http=Watched) as port:
            gc.disable()
            try:
                for _ in range(5):
                    async with connect(f"ws://127.0.0.1:{port}/ws/NOPE1") as ws:
                        await ws.recv()  # no such table: refused, and closed
                for _ in range(600):  # until the server has seen the connections close (a minute at most)
                    if all(ref() is None for ref in made):
                        break
                    await asyncio.sleep(0.1)
                return [ref() for ref in made if ref() is not None]
            finally:
                gc.enable()

    left = asyncio.run(scenario())
    assert len(made) == 5  # each connection went through the protocol
    assert left == []


def test_tables_played_to_the_end_with_refusals_leave_no_cyclic_garbage(tmp_path: Path) -> None:
    """The collector leaves the young objects alone, trusting play to make no reference cycles:
    what one made would stay in memory until what is frozen has doubled."""

    async def game(http: httpx.AsyncClient, port: int) -> None:
        body = {"seats": ["human", "bot:heuristic"], "name": "Ann", "timeout": 0}
        created = (await http.post("/api/tables", json=body)).json()
        code, token = created["code"], created["token"]
        assert (await http.get("/api/tables/NOPE1")).status_code == 404
        bad = await http.post("/api/tables", content=b"{bad", headers={"Content-Type": "application/json"})
        assert bad.status_code == 400
        async with connect(f"ws://127.0.0.1:{port}/ws/{code}?token={token}") as ws:
            start = await http.post(f"/api/tables/{code}/start", headers={"Authorization": f"Bearer {token}"})
            start.raise_for_status()
            for refused in ("not json", '{"type": "nope"}', '{"type": "act", "version": 0, "action": "x"}'):
                await ws.send(refused)
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 10))
                view = message.get("view")
                if view is None:
                    continue
                if view["outcome"] is not None:
                    break
                if view["your_turn"]:
                    action = view["legal_actions"][0]["text"]
                    await ws.send(
                        json.dumps({"type": "act", "version": message["version"], "action": action})
                    )
        async with connect(f"ws://127.0.0.1:{port}/ws/{code}") as watcher:
            await watcher.recv()

    async def scenario() -> list[str]:
        app = create_app(f"sqlite:///{tmp_path}/s.db", bot_delay=0, limits=Limits(messages_per_second=1000))
        async with (
            uvicorn_serving(app) as port,
            httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http,
        ):
            await game(http, port)  # what is made once (caches, prepared statements) is made
            gc.collect()
            gc.set_debug(gc.DEBUG_SAVEALL)  # what the collector finds is kept in gc.garbage
            try:
                for _ in range(3):
                    await game(http, port)
                await asyncio.sleep(0.2)
                gc.collect()
                return sorted({type(o).__module__ + "." + type(o).__qualname__ for o in gc.garbage})
            finally:
                gc.set_debug(0)
                gc.garbage.clear()

    assert uvloop.run(scenario()) == []  # the loop 421 serve runs on
