"""The server's writes to its database, made where they cost the event loop least.

PostgreSQL: a commit waits on the database server, and the event loop must
not. The steps of games in play, nearly every write, are sent from the event
loop on connections of the writer's own (up to eight), each carrying one
statement at a time: a write is sent the moment it is asked if a connection
is free, and the answer is read by the loop's reader callback, which tells
the table at once (its new state goes out to the players in that same
callback). Every hop through the loop's queue of ready tasks would cost a
busy server a turn of the loop, a few milliseconds under load, so the path
has none. While every connection is busy, the steps of the tables that wait
go together into the next statement (a group commit), with their news to the
other processes; a statement is its own transaction (autocommit), prepared
once a connection (the database then only binds and runs it). A game
that ends takes a statement of its own, its last steps with its history rows
and the table marked over, and so do a new table and a start (one a game,
each). A statement of several tables that the database refuses is sent again
table by table, so that one table's failure takes back that table's steps
only. The rarer writes (a join, an undo…) go through SQLAlchemy's synchronous
connections in a thread, in the order asked. A table's writes never overlap
(each waits for the one before), so the two ways never reorder them.

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
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy.exc import DBAPIError, IntegrityError, SQLAlchemyError

from ..core.game import Step
from ..history import GameRows
from .database import PREPARED, NewSteps, SeatRow, Statement, Store, TableRow

if TYPE_CHECKING:
    import psycopg

T = TypeVar("T")
Written = Callable[[int | None], None]
BATCH = 400  # tables a statement carries at most: a long one would delay the first of them
PIPES = 8  # PostgreSQL: statements of steps on their way at once, each on a connection of its own
CHECKPOINT_EVERY = 50  # SQLite: commits between two checkpoints in the thread (each adds 2 or 3 pages)

log = logging.getLogger("py421.server")
# PostgreSQL: the name each statement is prepared under on the writer's connections.
_NAMES = {sql: b"py421_%d" % i for i, sql in enumerate(PREPARED)}


@dataclass(eq=False)
class _Write:
    """A table's steps waiting to be written, or another write made as one statement of its own,
    and who waits on them."""

    steps: NewSteps | None
    done: asyncio.Future[int | None]
    written: Written | None
    alone: bool = False  # in a statement of its own: the database refused one it shared
    statement: Statement | None = None  # not steps: the store's statement, whose one value is answered

    @property
    def single(self) -> bool:
        """Sent in a statement of its own."""
        return self.alone or self.steps is None or self.steps.finish is not None


class Writer:
    """Makes a store's writes: on PostgreSQL the steps of games in play from the event loop, many
    tables' together when they wait, and the rest in a thread; on SQLite at once, with the
    checkpoints in a thread."""

    def __init__(self, store: Store, pipes: int = PIPES) -> None:
        self.store = store
        self.at_once = store.engine.dialect.name == "sqlite"
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="py421-writer")
        self._commits = 0  # SQLite: commits since the last checkpoint was asked for
        self._checkpoint: Future[None] | None = None
        # PostgreSQL: the steps that wait for a connection, the connections and those with nothing on
        # their way; connections are made when first needed, and again when one is lost.
        self._waiting: deque[_Write] = deque()
        self._pipes = pipes
        self._open: list[_Pipe] = []
        self._free: list[_Pipe] = []
        self._connecting: set[asyncio.Task[None]] = set()

    async def call(self, write: Callable[..., T], *args: object, **kwargs: object) -> T:
        """``write(*args, **kwargs)``, after every write asked before it."""
        if self.at_once:
            return self._now(partial(write, *args, **kwargs))
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, partial(write, *args, **kwargs))

    async def in_thread(self, work: Callable[..., T], *args: object) -> T:
        """``work(*args)`` in the writer's thread, on SQLite too: the housekeeping's many tables a
        transaction, which the event loop must not wait on."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, partial(work, *args))

    async def add_steps(
        self,
        code: str,
        first: int,
        steps: Sequence[Step],
        finish: GameRows | None = None,
        written: Written | None = None,
    ) -> int | None:
        """:meth:`Store.add_steps`, on PostgreSQL committed with the other tables' steps that wait
        with it. ``written(number)`` is called the moment the write is known to be committed,
        before anything else runs (on PostgreSQL, from the callback that reads the answer); a
        write that fails raises here and does not call it."""
        if self.at_once:
            number = self._now(partial(self.store.add_steps, code, first, steps, finish))
            if written is not None:
                written(number)
            return number
        return await self._queue(NewSteps(code, first, steps, finish), written)

    async def create(self, row: TableRow) -> None:
        """:meth:`Store.create`; on PostgreSQL one statement sent from the event loop."""
        if self.at_once:
            self._now(partial(self.store.create, row))
        else:
            await self._statement(self.store.create_statement(row))

    async def start(self, code: str, seats: Sequence[SeatRow]) -> bool:
        """:meth:`Store.start`; on PostgreSQL one statement sent from the event loop."""
        if self.at_once:
            return self._now(partial(self.store.start, code, seats))
        return bool(await self._statement(self.store.start_statement(code, seats)))

    async def _statement(self, statement: Statement) -> int | None:
        return await self._queue(None, None, statement)

    async def _queue(
        self, steps: NewSteps | None, written: Written | None, statement: Statement | None = None
    ) -> int | None:
        """PostgreSQL: a write waits its turn for a connection; its outcome."""
        done: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self._waiting.append(_Write(steps, done, written, statement=statement))
        self._send()
        return await done

    def _send(self) -> None:
        """PostgreSQL: send what waits on the free connections, and make one more if all are busy."""
        while self._waiting and self._free:
            pipe = self._free.pop()
            writes = self._next_statement()
            try:
                statement = self._statement_of(writes)
            except Exception as e:  # nothing was sent: these writes fail, the connection serves on
                self._free.append(pipe)
                self._settle(writes, e)
                continue
            try:
                pipe.send(statement, writes)
            except Exception as e:
                if pipe.lost:  # before anything reached the database: the writes go on another
                    self._open.remove(pipe)
                    self._waiting.extendleft(reversed(writes))
                else:
                    self._free.append(pipe)
                    self._settle(writes, e)
        if self._waiting and len(self._open) + len(self._connecting) < self._pipes:
            task = asyncio.ensure_future(self._connect())
            self._connecting.add(task)
            task.add_done_callback(self._connecting.discard)

    def _next_statement(self) -> list[_Write]:
        """The writes of the next statement: a game that ends, a write that is not steps or one
        refused in company, alone; otherwise the steps of up to :data:`BATCH` tables that go on, in
        the order asked."""
        if self._waiting[0].single:
            return [self._waiting.popleft()]
        writes: list[_Write] = []
        kept: list[_Write] = []
        while self._waiting and len(writes) < BATCH:
            write = self._waiting.popleft()
            (kept if write.single else writes).append(write)
        self._waiting.extendleft(reversed(kept))
        return writes

    def _statement_of(self, writes: list[_Write]) -> Statement:
        first = writes[0]
        if first.statement is not None:
            return first.statement
        assert first.steps is not None
        if first.steps.finish is not None:
            return self.store.end_game_statement(first.steps)
        return self.store.steps_statement([w.steps for w in writes if w.steps is not None])

    async def _connect(self) -> None:
        import psycopg

        url = self.store.engine.url.set(drivername="postgresql")
        conn: psycopg.AsyncConnection[Any] | None = None
        try:
            conn = await psycopg.AsyncConnection.connect(
                url.render_as_string(hide_password=False), autocommit=True
            )
            for sql, name in _NAMES.items():
                await conn.execute(b"PREPARE " + name + b" AS " + sql)
        except psycopg.Error as e:
            if conn is not None:
                await conn.close()
            log.warning("a connection for the steps of tables in play failed: %s", e)
            if not self._open:  # nothing else will send them
                waiting, self._waiting = list(self._waiting), deque()
                self._settle(waiting, e)
            return
        pipe = _Pipe(conn, self._answered)
        self._open.append(pipe)
        self._free.append(pipe)
        self._send()

    def _answered(self, pipe: _Pipe, writes: list[_Write], outcome: Any) -> None:
        """From a connection's reader callback: the answer to a statement (libpq's result), or the
        error it met (the connection then lost or not)."""
        if not pipe.lost:
            self._free.append(pipe)
        else:
            self._open.remove(pipe)
            if pipe in self._free:  # it had nothing on its way
                self._free.remove(pipe)
        if isinstance(outcome, Exception) and len(writes) > 1 and not pipe.lost:
            for write in writes:  # table by table: one's failure is its own
                write.alone = True
            self._waiting.extendleft(reversed(writes))
        elif isinstance(outcome, Exception):
            self._settle(writes, outcome)
        elif writes[0].steps is None or writes[0].steps.finish is not None:
            # the one value: a game's number, or what another statement answers
            try:
                number = int(outcome.get_value(0, 0))
            except Exception as e:
                self._settle(writes, e)
            else:
                self._settle(writes, number)
        else:
            self._settle(writes, None)
        self._send()

    @staticmethod
    def _settle(writes: list[_Write], outcome: int | BaseException | None) -> None:
        """Tell each table how its write went: first the table itself (``written``), then whoever
        awaits it."""
        for write in writes:
            if isinstance(outcome, BaseException):
                error = outcome
                if (getattr(error, "sqlstate", None) or "").startswith("23"):  # a code taken already, say
                    error = IntegrityError("a write of the server's", None, error)
                elif not isinstance(error, SQLAlchemyError):  # what the table catches to take its steps back
                    error = DBAPIError("a write of the server's", None, error)
                if not write.done.done():
                    write.done.set_exception(error)
                continue
            try:
                if write.written is not None:
                    write.written(outcome)
            except Exception as e:
                if not write.done.done():
                    write.done.set_exception(e)
                continue
            if not write.done.done():
                write.done.set_result(outcome)

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
        """Close the event loop's own connections (PostgreSQL), then :meth:`close`."""
        for task in list(self._connecting):
            task.cancel()
        for pipe in self._open:
            await pipe.close()
        self._open, self._free = [], []
        self.close()

    def close(self) -> None:
        """Finish the writes asked for (on SQLite, a last checkpoint), then close the connections."""
        if self.at_once:
            self._thread.submit(self._checkpoint_now)
            self.store.close()  # the event loop's connection
        self._thread.submit(self.store.close)
        self._thread.shutdown(wait=True)


class _Pipe:
    """One PostgreSQL connection of the writer's, one statement at a time, spoken to through libpq
    itself (psycopg's ``pgconn``): the statement is sent the moment it is given, and the event loop
    calls :meth:`_readable` when the answer arrives, which hands it to the writer there and then.
    (psycopg's own asynchronous calls would take three turns of the loop more.)"""

    def __init__(self, conn: psycopg.AsyncConnection[Any], answered: Callable[..., None]) -> None:
        self.conn = conn
        from psycopg import pq

        self.pg = conn.pgconn
        self.pg.nonblocking = 1
        self._failed = pq.ExecStatus.FATAL_ERROR
        self.fd = self.pg.socket
        self.answered = answered
        self.lost = False
        self.writes: list[_Write] | None = None  # those of the statement on its way
        self._result: Any = None
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(self.fd, self._readable)

    def send(self, statement: Statement, writes: list[_Write]) -> None:
        """Send a statement; if the connection is found lost meanwhile, :attr:`lost` is set and
        psycopg's error raised (nothing of the statement reached the database)."""
        import psycopg

        sql, params = statement
        try:
            self.pg.send_query_prepared(_NAMES[sql], params)
            if self.pg.flush():  # the socket took part of it: the rest when it takes more
                self._loop.add_writer(self.fd, self._flush)
        except psycopg.OperationalError:
            self._close_lost()
            raise
        self.writes = writes

    def _flush(self) -> None:
        if self.lost:
            return
        try:
            if not self.pg.flush():
                self._loop.remove_writer(self.fd)
        except Exception as e:  # lost: nothing may wait for an answer that will not come
            self._fail(e)

    def _readable(self) -> None:
        try:
            self.pg.consume_input()
            while self.writes is not None and not self.pg.is_busy():
                result = self.pg.get_result()
                if result is None:  # the statement's answer is complete
                    writes, self.writes, outcome, self._result = self.writes, None, self._result, None
                    if outcome is not None and outcome.status == self._failed:
                        from psycopg.errors import error_from_result

                        outcome = error_from_result(outcome, encoding=self.conn.info.encoding)
                    self.answered(self, writes, outcome)
                    return
                self._result = result
        except Exception as e:  # the connection lost, or its answer unreadable: its writes fail
            if not self.lost:
                log.warning("a connection for the steps of tables in play failed: %s", e)
                self._fail(e)

    def _fail(self, error: Exception) -> None:
        """The connection was lost: the statement on its way fails (whether the database committed it
        is unknown: the table takes its steps back, as after any failed write)."""
        self._close_lost()
        writes, self.writes = self.writes, None
        self.answered(self, writes or [], error)

    def _close_lost(self) -> None:
        self.lost = True
        self._loop.remove_reader(self.fd)
        self._loop.remove_writer(self.fd)
        self.pg.finish()

    async def close(self) -> None:
        if not self.lost:
            self._loop.remove_reader(self.fd)
            self._loop.remove_writer(self.fd)
        await self.conn.close()
