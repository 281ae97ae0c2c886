"""Python's cyclic garbage collector, kept from pausing play.

A full collection walks every object the server tracks, and a server with a
thousand tables in play holds millions (each game keeps every state it went
through): a pause of a few hundred milliseconds, in which no table moves. So
every second what the server made is frozen (``gc.freeze``: moved out of the
collector's sight, which costs no more than splicing two lists).

Python also collects the young objects every 700 allocations. A turn of a
busy server's event loop makes thousands that live until the turn ends, and
the states of the games in play live on: each collection walked them, a tenth
of the server's time at 1,000 tables, to find almost no garbage, since play
makes next to no reference cycles (the one uvicorn made at each WebSocket is
broken in :mod:`py421.server.serving`). The threshold is raised so far that a
second of play, which the freeze then takes away, never reaches it; a flood
of allocations still starts a collection. Every ``full_seconds`` everything
is unfrozen and collected once, so no cyclic garbage is kept for ever.
"""

from __future__ import annotations

import asyncio
import gc
import time

YOUNG_THRESHOLD = 100_000  # allocations between two collections of the young (Python's: 700)


async def keep_collections_short(freeze_seconds: float = 1.0, full_seconds: float = 600.0) -> None:
    """Run for the server's life (a task of its own)."""
    thresholds = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, *thresholds[1:])
    gc.freeze()  # what start-up made (modules, rules, migrations) lives as long as the server
    last_full = time.monotonic()
    try:
        while True:
            await asyncio.sleep(freeze_seconds)
            if time.monotonic() - last_full >= full_seconds:
                gc.unfreeze()
                gc.collect()
                last_full = time.monotonic()
            gc.freeze()  # which also starts the count of allocations again
    finally:  # the server stops, the process may go on (tests, an embedding program): collect as usual
        gc.unfreeze()
        gc.set_threshold(*thresholds)
