"""Python's cyclic garbage collector, kept from pausing play.

A full collection walks every object the server tracks, and a server with a
thousand tables in play holds some 700,000 (each game keeps every state it went
through): a pause of most of a second, in which no table moves. So
every second what the server made is frozen (``gc.freeze``: moved out of the
collector's sight, which costs no more than splicing two lists).

Python also collects the young objects every 700 allocations. A turn of a
busy server's event loop makes thousands that live until the turn ends, and
the states of the games in play live on: each collection walked them, a tenth
of the server's time at 1,000 tables, to find almost no garbage, since play
makes next to no reference cycles (the one uvicorn made at each WebSocket is
broken in :mod:`py421.server.serving`). The threshold is raised so far that a
second of play, which the freeze then takes away, never reaches it; a flood
of allocations still starts a collection.

Every ``full_seconds`` what is frozen is counted, and collected in full only
if it has doubled since the last full collection: such a collection
walks everything the server holds, 0.6 to 0.8 s at 1,000 tables, in which no
table moves. Between two, what is frozen grows by about a quarter with no
garbage in it (tuples of plain values, which Python stops tracking only when
a collection walks them), then holds as long as as many tables come and go:
such a server is never paused. Cyclic garbage, had play made any, would grow
it and be freed.
"""

from __future__ import annotations

import asyncio
import gc
import time

YOUNG_THRESHOLD = 100_000  # allocations between two collections of the young (Python's: 700)
GROWTH = 2.0  # what is frozen, against what the last full collection left, before the next one


class Freezer:
    """What the collector's task does at each tick, told the time: freeze what the server made since
    the last tick and, every ``full_seconds``, collect in full if what is frozen has doubled."""

    def __init__(self, full_seconds: float, now: float) -> None:
        self.full_seconds = full_seconds
        gc.freeze()  # what start-up made (modules, rules, migrations) lives as long as the server
        self.kept = gc.get_freeze_count()
        self.look = now + full_seconds

    def tick(self, now: float) -> bool:
        """One tick at time ``now``; whether it collected in full."""
        gc.freeze()  # which also starts the count of allocations again
        if now < self.look:  # counting what is frozen walks it (milliseconds at 1,000 tables)
            return False
        self.look = now + self.full_seconds
        if gc.get_freeze_count() <= self.kept * GROWTH:
            return False
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.kept = gc.get_freeze_count()
        return True


async def keep_collections_short(freeze_seconds: float = 1.0, full_seconds: float = 600.0) -> None:
    """Run for the server's life (a task of its own)."""
    thresholds = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, *thresholds[1:])
    freezer = Freezer(full_seconds, time.monotonic())
    try:
        while True:
            await asyncio.sleep(freeze_seconds)
            freezer.tick(time.monotonic())
    finally:  # the server stops, the process may go on (tests, an embedding program): collect as usual
        gc.unfreeze()
        gc.set_threshold(*thresholds)
