"""The server's writes to its database, made where they cost the event loop least.

PostgreSQL: a commit waits on the database server, and the event loop must
not. The steps of games in play, nearly every write, are written from the
event loop on psycopg connections of its own (up to eight at once), without
waiting for them: the steps of every table that arrive while a statement is
on its way go together into the next (a group commit), with their news to
the other processes, in one statement that is its own transaction (one round
trip); a game that ends takes one statement of its own, its last steps with
its history rows and the table marked over. A statement of several tables
that fails is tried again table by table, so that one table's failure takes
back that table's steps only. The other writes (a new table, a join, a
start…) go through SQLAlchemy's synchronous connections in a thread, in the
order asked. A table's writes never overlap (each waits for the one before),
so the two ways never reorder them.

SQLite: a commit waits for nothing. In WAL mode with ``synchronous=NORMAL`` it
only appends to the WAL file, which the system keeps in memory. So each write
is made at once on the event loop, without the hops to a thread and back that
every waiting table would pay in latency (and a thread that fights the loop
for the interpreter). What waits on the disk is the checkpoint, which copies
the WAL into the database and syncs both: SQLite makes one in the commit that
finds the WAL past 1,000 pages, and the WAL then starts again from its
beginning. The writer's thread copies the WAL every few commits beforehand,
so that the commit which checkpoints finds little left to copy.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar

from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from ..core.game import Step
from ..history import GameRows
from .database import NewSteps, Store

T = TypeVar("T")
Batch = list[tuple[NewSteps, "asyncio.Future[int | None]"]]
# each write: the game number it returned, or the error it met
Outcomes = list[tuple["asyncio.Future[int | None]", int | BaseException | None]]
BATCH = 400  # tables a statement carries at most: a long one would delay the first of them
PIPES = 8  # PostgreSQL: transactions of steps on their way at once, each on a connection of its own
CHECKPOINT_EVERY = 50  # SQLite: commits between two checkpoints in the thread (each adds 2 or 3 pages)

log = logging.getLogger("py421.server")


class Writer:
    """Makes a store's writes: on PostgreSQL many tables' steps committed together, from the event
    loop, and the rest in a thread; on SQLite at once, with the checkpoints in a thread."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.at_once = store.engine.dialect.name == "sqlite"
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="py421-writer")
        self._commits = 0  # SQLite: commits since the last checkpoint was asked for
        self._checkpoint: Future[None] | None = None
        # PostgreSQL: the steps of games in play are written from the event loop itself
        self._piped: Batch = []
        # Each of PIPES connections writes one transaction at a time; they are made when first needed.
        self._conns: list[Any] = [None] * PIPES
        self._free = list(range(PIPES))  # connections with no transaction on its way
        self._pipes: set[asyncio.Task[None]] = set()

    async def call(self, write: Callable[..., T], *args: object, **kwargs: object) -> T:
        """``write(*args, **kwargs)``, after every write asked before it."""
        if self.at_once:
            return self._now(partial(write, *args, **kwargs))
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, partial(write, *args, **kwargs))

    async def add_steps(
        self, code: str, first: int, steps: Sequence[Step], finish: GameRows | None = None
    ) -> int | None:
        """:meth:`Store.add_steps`, on PostgreSQL committed with the other tables' steps that wait
        with it."""
        if self.at_once:
            return self._now(partial(self.store.add_steps, code, first, steps, finish))
        done: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self._piped.append((NewSteps(code, first, steps, finish), done))
        if self._free:
            pipe = asyncio.ensure_future(self._pipe(self._free.pop()))
            self._pipes.add(pipe)
            pipe.add_done_callback(self._pipes.discard)
        return await done

    async def _pipe(self, slot: int) -> None:
        """PostgreSQL, in the event loop: write what waits on connection ``slot``, a statement at a
        time (one round trip each, awaited without a thread), until nothing does. The steps of games
        that go on share one statement; a game that ends takes one of its own."""
        try:
            while self._piped:
                batch, self._piped = self._piped[:BATCH], self._piped[BATCH:]
                going_on = [(w, done) for w, done in batch if w.finish is None]
                if going_on:
                    await self._pipe_going_on(slot, going_on)
                for write, done in batch:
                    if write.finish is not None:
                        try:
                            number = await self._on_pipe(slot, self.store.end_game_piped, write)
                        except Exception as e:
                            _settle([(done, e)])
                        else:
                            _settle([(done, number)])
        finally:
            self._free.append(slot)

    async def _pipe_going_on(self, slot: int, batch: Batch) -> None:
        try:
            await self._on_pipe(slot, self.store.add_steps_piped, [w for w, _ in batch])
        except Exception as e:
            if len(batch) == 1:
                _settle([(batch[0][1], e)])
                return
            for write, done in batch:  # table by table: one's failure is its own
                try:
                    await self._on_pipe(slot, self.store.add_steps_piped, [write])
                except Exception as one:
                    _settle([(done, one)])
                else:
                    _settle([(done, None)])
            return
        _settle([(done, None) for _, done in batch])

    async def _on_pipe(self, slot: int, write: Callable[[Any, Any], Awaitable[T]], what: Any) -> T:
        """``write(connection, what)`` on connection ``slot``, made if needed; psycopg's errors raised
        as SQLAlchemy's are, which the table catches to take its steps back."""
        import psycopg

        try:
            if self._conns[slot] is None or self._conns[slot].closed:
                url = self.store.engine.url.set(drivername="postgresql")
                self._conns[slot] = await psycopg.AsyncConnection.connect(
                    url.render_as_string(hide_password=False), autocommit=True
                )
            return await write(self._conns[slot], what)
        except psycopg.Error as e:
            if self._conns[slot] is not None and self._conns[slot].broken:
                self._conns[slot] = None  # the next write connects again
            raise DBAPIError("the steps of tables in play", None, e) from e

    def _now(self, write: Callable[[], T]) -> T:
        """A write made at once (SQLite), and a checkpoint asked of the thread now and then."""
        try:
            return write()
        finally:
            self._commits += 1
            if self._commits >= CHECKPOINT_EVERY and (self._checkpoint is None or self._checkpoint.done()):
                self._commits = 0
                self._checkpoint = self._thread.submit(self._checkpoint_now)

    def _checkpoint_now(self) -> None:
        try:
            self.store.checkpoint()
        except SQLAlchemyError as e:  # the next one, or SQLite's own, copies what this one did not
            log.warning("the database's checkpoint failed: %s", e)

    async def aclose(self) -> None:
        """Close the event loop's own connection (PostgreSQL), then :meth:`close`."""
        for slot, conn in enumerate(self._conns):
            if conn is not None:
                await conn.close()
                self._conns[slot] = None
        self.close()

    def close(self) -> None:
        """Finish the writes asked for (on SQLite, a last checkpoint), then close the connections."""
        if self.at_once:
            self._thread.submit(self._checkpoint_now)
            self.store.close()  # the event loop's connection
        self._thread.submit(self.store.close)
        self._thread.shutdown(wait=True)


def _settle(results: Outcomes) -> None:
    """In the event loop: tell whoever waits on each write how it went."""
    for done, outcome in results:
        if done.done():
            continue
        if isinstance(outcome, BaseException):
            done.set_exception(outcome)
        else:
            done.set_result(outcome)
