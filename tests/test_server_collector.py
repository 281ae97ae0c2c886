"""The server's garbage collection: long-lived objects out of the collector's sight, cycles still freed."""

from __future__ import annotations

import asyncio
import gc
import weakref
from pathlib import Path
from typing import Any

import uvicorn
from websockets.asyncio.client import connect

from py421.server.app import create_app
from py421.server.collector import keep_collections_short
from py421.server.serving import uvicorn_options

from .server_process import free_port


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> weakref.ref[Node]:
    """A reference cycle nobody else holds: only the cyclic collector frees it."""
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def test_frozen_objects_are_left_to_the_periodic_full_collection_which_frees_their_cycles() -> None:
    async def scenario() -> tuple[bool, bool, bool]:
        keeper = asyncio.ensure_future(keep_collections_short(freeze_seconds=0.05, full_seconds=0.6))
        try:
            holder = [Node()]
            holder[0].other = holder[0]  # a cycle still in use when frozen
            lost = weakref.ref(holder[0])
            await asyncio.sleep(0.2)  # frozen by now
            frozen = gc.get_freeze_count() > 0
            holder.clear()
            gc.collect()  # an ordinary full collection does not see frozen objects
            kept_while_frozen = lost() is not None
            await asyncio.sleep(0.8)  # past the full collection
            return frozen, kept_while_frozen, lost() is None
        finally:
            keeper.cancel()
            gc.unfreeze()

    frozen, kept_while_frozen, freed_at_last = asyncio.run(scenario())
    assert frozen and kept_while_frozen and freed_at_last


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
    options = uvicorn_options()  # as 421 serve runs uvicorn

    class Watched(options.pop("http")):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            made.append(weakref.ref(self))

    async def scenario() -> list[object]:
        port = free_port()
        app = create_app(f"sqlite:///{tmp_path}/s.db")
        server = uvicorn.Server(uvicorn.Config(app, port=port, http=Watched, **options))
        serving = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.01)
        gc.disable()
        try:
            for _ in range(5):
                async with connect(f"ws://127.0.0.1:{port}/ws/NOPE1") as ws:
                    await ws.recv()  # no such table: refused, and closed
            await asyncio.sleep(0.2)  # the server sees the connections close
            return [ref() for ref in made if ref() is not None]
        finally:
            gc.enable()
            server.should_exit = True
            await serving

    left = asyncio.run(scenario())
    assert len(made) == 5  # each connection went through the protocol
    assert left == []
