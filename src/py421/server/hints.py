"""Hints at the tables created with them: the player to move sees their choices ranked.

A table created with ``"hints": true`` shows it to everyone (``hints`` in the
table). Whenever such a table changes and a person has a decision to take,
their choices are ranked in the analysis worker (:class:`.analysis.Analyst`,
off the event loop) and sent to that seat's own connections only, as a
``hints`` message: never to the other seats nor to the spectators, and to
nobody while a bot decides. A table without hints has no listener, so
play there does no more than before.
"""

from __future__ import annotations

import asyncio
import logging
from weakref import WeakKeyDictionary

from . import outbound as out
from .analyst import Analyst
from .cluster import said_if_failed
from .table import Connection, Table, dumps

log = logging.getLogger(__name__)
RETRY_SECONDS = 1.0  # between two asks for hints the worker could not give in time
TRIES = 3  # asks for the same hints that the worker answers other than "busy", at most


class Hints:
    """Which tables have hints, and the hints of their players to move."""

    def __init__(self, analyst: Analyst) -> None:
        self.analyst = analyst
        self._last: dict[str, tuple[int, str]] = {}  # table -> (version, its hints message)
        self._asking: set[tuple[str, int]] = set()
        self._told: WeakKeyDictionary[Connection, tuple[str, int]] = WeakKeyDictionary()
        self._tasks: set[asyncio.Task[None]] = set()

    def watch(self, table: Table) -> None:
        """Before a connection is made, or as a table is created: a table with hints is followed (a
        table read again from the database, here or by another process, is a new object)."""
        if table.hints and table.on_change is None:
            table.on_change = self.changed

    def changed(self, table: Table) -> None:
        """After a broadcast: the player to move, if a person connected here, is sent their hints."""
        session = table.session
        if session is None or table.status != "playing" or table.mode != "play":
            self._last.pop(table.code, None)
            return
        if session.waiting(table.away) != "person":
            return
        state = session.state
        seat, version = state.to_move, table.version
        mine = [c for c in table.connections if c.seat == seat and self._told.get(c) != (table.code, version)]
        if not mine:
            return
        last = self._last.get(table.code)
        if last is not None and last[0] == version:
            self._send(table, mine, version, last[1])
        elif (table.code, version) not in self._asking:
            self._asking.add((table.code, version))
            task = asyncio.ensure_future(self._ask(table, version))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            task.add_done_callback(said_if_failed)

    async def _ask(self, table: Table, version: int) -> None:
        session = table.session
        assert session is not None
        seat = session.state.to_move
        try:
            status, hint = await self.analyst.hint(session.state)
            # None in time (the worker still on a decision given up on, or loading a solution): asked
            # again while the same person is to move and watching; the player waits for them. A
            # busy worker costs nothing to ask; one that failed on this very hint is asked a few times.
            failed = int(status != "busy")
            while hint is None and not self.analyst.closed and failed < TRIES:
                await asyncio.sleep(RETRY_SECONDS)
                if not self._still(table, session, version, seat):
                    return
                status, hint = await self.analyst.hint(session.state)
                failed += status != "busy"
            if hint is None and not self.analyst.closed:
                log.warning("no hint for %s (%s)", session.state.players[seat or 0], status)
        finally:
            self._asking.discard((table.code, version))
        if hint is None or not self._still(table, session, version, seat):
            return  # the server stops, or the table moved on meanwhile
        message: out.HintsMessage = {
            "type": "hints",
            "version": version,
            "seat": hint["seat"],
            "method": hint["method"],
            "kind": hint["kind"],
            "dice": hint["dice"],
            "throws_left": hint["throws_left"],
            "before": list(hint["before"]),
            "choices": [{"action": c["action"], "value": c["value"]} for c in hint["choices"]],
        }
        text = dumps(message)
        self._last[table.code] = (version, text)
        mine = [c for c in table.connections if c.seat == hint["seat"]]
        self._send(table, mine, version, text)

    @staticmethod
    def _still(table: Table, session: object, version: int, seat: int | None) -> bool:
        """The table as it was when its hints were asked, and the player to move still connected."""
        return (
            table.session is session
            and table.version == version
            and any(c.seat == seat for c in table.connections)
        )

    def _send(self, table: Table, connections: list[Connection], version: int, text: str) -> None:
        for conn in connections:
            self._told[conn] = (table.code, version)
            conn.offer(text)
