"""The server's garbage collection: long-lived objects out of the collector's sight, cycles still freed."""

from __future__ import annotations

import asyncio
import gc
import weakref

from py421.server.collector import keep_collections_short


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


def test_young_cyclic_garbage_is_freed_as_before() -> None:
    async def scenario() -> bool:
        keeper = asyncio.ensure_future(keep_collections_short(freeze_seconds=5, full_seconds=600))
        try:
            await asyncio.sleep(0)
            young = cycle()
            gc.collect(0)  # a young collection, as Python runs every 700 allocations
            return young() is None
        finally:
            keeper.cancel()
            gc.unfreeze()

    assert asyncio.run(scenario())


def test_a_stopped_server_leaves_the_collector_as_it_found_it() -> None:
    async def scenario() -> int:
        keeper = asyncio.ensure_future(keep_collections_short(freeze_seconds=0.01))
        await asyncio.sleep(0.05)
        keeper.cancel()
        await asyncio.gather(keeper, return_exceptions=True)
        return gc.get_freeze_count()

    assert asyncio.run(scenario()) == 0
