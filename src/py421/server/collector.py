"""Python's cyclic garbage collector, kept from pausing play.

A full collection walks every object the server tracks, and a server with a
thousand tables in play holds millions (each game keeps every state it went
through): a pause of a few hundred milliseconds, in which no table moves. The
young collections that find most cyclic garbage are cheap, so every second
what has survived them is frozen (``gc.freeze``: moved out of the collector's
sight, which costs no more than splicing two lists) and the full collections
only ever see the last second's objects. Play makes little cyclic garbage,
but some: every ``full_seconds`` everything is unfrozen and collected once,
so none is kept for ever.
"""

from __future__ import annotations

import asyncio
import gc
import time


async def keep_collections_short(freeze_seconds: float = 1.0, full_seconds: float = 600.0) -> None:
    """Run for the server's life (a task of its own)."""
    gc.freeze()  # what start-up made (modules, rules, migrations) lives as long as the server
    last_full = time.monotonic()
    try:
        while True:
            await asyncio.sleep(freeze_seconds)
            if time.monotonic() - last_full >= full_seconds:
                gc.unfreeze()
                gc.collect()
                last_full = time.monotonic()
            gc.freeze()
    finally:  # the server stops, the process may go on (tests, an embedding program): collect as usual
        gc.unfreeze()
