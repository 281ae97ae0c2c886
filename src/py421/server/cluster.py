"""Several ``421 serve`` processes on one PostgreSQL database: who owns each table, and the news.

Nothing here is a new kind of server: PostgreSQL itself carries it all.

- **Ownership.** A process owns a table while it holds the table's advisory
  lock (``pg_try_advisory_lock(hashtextextended(code, 421))``) on a connection
  it keeps for that. Only the owner changes the table, throws its dice, plays
  its bots and runs its timers. A process that dies, even by ``kill -9``,
  closes that connection, and PostgreSQL frees its locks at once; every other
  process looks for tables without an owner every ``scan_seconds`` and claims
  them, reading them back from the database.
- **Tables follow their players.** A seated player who connects to a process
  that does not own their table asks the owner to give it up; the owner does
  when none of the table's players is connected to it, between two steps
  (under the table's lock, every write committed), and the asking process
  claims it. Behind a load balancer a table is thus played where its
  players' WebSockets are, and their moves are not passed on.
- **Changes go through the owner.** A request to change a table this process
  does not own is sent on the channel ``py421_requests``; the owner applies it
  and answers on the asking process's own channel.
- **Presence.** A process that does not own a table, but holds a connection
  for one of its seats, says so on ``py421_presence`` (the table's code and
  those seats) when they change and again every little while, and the other
  processes that keep the table answer with theirs: the owner gives a player's
  turn to a bot only once no process holds their seat (nor says it again in
  time, as a process killed no longer does), and every page shows who is there.
- **News.** Every change is committed with a ``pg_notify('py421_changes',
  CODE)`` in its own transaction (so the news leaves with the change, never
  before it, and the new steps with it when that is all that changed); a
  process with connections to that table applies them (or reads the table
  from the database) and sends the new views.

With SQLite there is one process (:class:`Solo`), which owns every table.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import os
import secrets
import socket
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, Protocol

from ..core.errors import Message

CLOSE_SECONDS = 5.0  # what closing waits for the tasks it cancels (a statement on its way)
LOCK_WAIT = 2.0  # seconds a scan waits at most for the tables' table (held by a migration): then later
LockOp = tuple[str, str, "asyncio.Future[bool]"]  # ("claim" or "release", a table's code, its answer)
log = logging.getLogger(__name__)

CHANGES = "py421_changes"
REQUESTS = "py421_requests"
PRESENCE = "py421_presence"
MOVED_WAIT = 0.2  # seconds a request answered "moved" waits for its new owner's answer
SERVED_SECONDS = 60.0  # a request served is remembered this long, to answer it again if asked again
GIVEN_SECONDS = 10.0  # a table given to another process is left out of this one's scans this long
NOTE_BYTES = 7999  # PostgreSQL refuses a notification's payload of 8,000 bytes or more


class TooLong(ValueError):
    """A request too long to pass to another process; nothing was sent. ``message``: why, as the
    catalogs word it."""

    def __init__(self, message: Message) -> None:
        super().__init__(str(message))
        self.message = message


class Moved(Exception):
    """The table changed owner while a request waited for it: ask again, of its new owner."""


class Member(Protocol):
    """What the cluster needs of the tables of its process (:class:`py421.server.hub.Hub`)."""

    async def serve_request(self, code: str, kind: str, args: dict[str, Any]) -> dict[str, Any]: ...

    async def caught_up(self, code: str, news: dict[str, Any] | None = None) -> None: ...

    def holds_copy(self, code: str) -> bool:
        """Whether this process keeps the table in memory (only then is its news of use here)."""
        ...

    def copies(self) -> list[str]:
        """The tables this process keeps in memory."""
        ...

    async def adopt(self, code: str) -> None: ...

    def disown_all(self) -> None: ...

    def heard_presence(self, by: str, code: str, seats: list[int], watching: bool) -> None:
        """Process ``by`` holds a connection for each of ``seats`` of the table ``code`` (none: no
        longer any), and ``watching``: a page there shows the table, as it says again every little
        while."""
        ...


class Solo:
    """One process alone (SQLite, or one PostgreSQL process): it owns every table."""

    me = "solo"
    several = False

    def __init__(self) -> None:
        # tables this process asks their owner for, and how many of its connections ask at once
        self.asking: Counter[str] = Counter()

    async def start(self, member: Member) -> None:
        pass

    @contextlib.contextmanager
    def asking_for(self, code: str) -> Iterator[None]:
        """While a connection here asks the owner for its table: until the last one is done, the
        table is this process's to take even if it gave it away a moment ago."""
        self.asking[code] += 1
        try:
            yield
        finally:
            self.asking[code] -= 1
            if self.asking[code] <= 0:
                del self.asking[code]

    async def close(self) -> None:
        pass

    def owns(self, code: str) -> bool:
        return True

    def given(self, code: str) -> bool:
        """Whether this process gave the table to another a moment ago."""
        return False

    async def claim(self, code: str) -> bool:
        return True

    async def release(self, code: str, *, given: bool = False) -> None:
        pass

    async def request(
        self, code: str, kind: str, args: dict[str, Any], ident: str | None = None
    ) -> dict[str, Any]:
        raise AssertionError("one process owns every table")

    async def announce(self, code: str, seats: list[int], watching: bool = False) -> None:
        """Tell the other processes the seats of ``code`` a connection here holds, and whether a page
        here shows it (none here)."""


class Cluster(Solo):
    """Processes sharing one PostgreSQL database (see the module's documentation)."""

    several = True

    def __init__(
        self,
        url: str,
        *,
        scan_seconds: float = 2.0,
        answer_seconds: float = 3.0,
        lock_wait: float = LOCK_WAIT,
    ) -> None:
        super().__init__()
        self.url = url.replace("postgresql+psycopg://", "postgresql://")
        self.me = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
        self.inbox = "py421_r_" + secrets.token_hex(8)  # this process's answers come here
        self.scan_seconds, self.answer_seconds = scan_seconds, answer_seconds
        self.lock_wait = lock_wait
        self.owned: set[str] = set()
        self._given: dict[str, float] = {}  # tables given to another process, and when
        self._locks: Any = None  # the connection holding this process's advisory locks
        self._locks_lost = False  # and it is lost, and not made again yet (the database is away)
        self._listen: Any = None
        self._notes: Any = None  # requests and answers leave by this one, not to wait behind claims
        self._lock_use = asyncio.Lock()  # one statement at a time on the locks' connection
        self._lock_ops: list[LockOp] = []  # claims and releases asked
        self._locking_ops: asyncio.Task[None] | None = None  # the task sending them, while there is one
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        # Requests served here, by id, with their answer once made: a request asked again (its
        # asker stopped waiting) is made once, and answered again with the same answer.
        self._served: dict[str, tuple[float, str | None]] = {}
        self._pruned = time.monotonic()
        # Requests and answers to send: those that come while one statement is on its way
        # leave together in the next, so a busy process does not queue a round trip for each.
        self._outbox: list[tuple[str, str, asyncio.Future[None]]] = []
        self._sending: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._member: Member | None = None
        self._closed = False  # then nothing connects again, and no lock is taken

    # -- running --------------------------------------------------------------------------

    async def start(self, member: Member) -> None:
        import psycopg

        self._member = member
        self._locks = await self._locks_connection()
        self._listen = await self._listening()
        self._notes = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
        self._spawn(self._hear())
        self._spawn(self._scan_forever())

    async def close(self) -> None:
        self._closed = True
        # the claims and sends on their way too: one of them, its connection closed below, would
        # connect again and take a lock after the process closed
        tasks = [*self._tasks, *(t for t in (self._locking_ops, self._sending) if t is not None)]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=CLOSE_SECONDS)
        for *_, done in self._lock_ops:  # claims never sent: not this process's
            if not done.done():
                done.set_result(False)
        for *_, sent in self._outbox:  # requests and answers never sent
            if not sent.done():
                sent.set_exception(ConnectionAbortedError())
        self._lock_ops, self._outbox = [], []
        for conn in (self._listen, self._locks, self._notes):
            if conn is not None:
                with contextlib.suppress(Exception):
                    await conn.close()
        self.owned.clear()

    def _spawn(self, coro: Awaitable[None]) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(said_if_failed)

    async def _locks_connection(self) -> Any:
        """A connection for the locks. Its statements wait for a table's lock at most
        ``lock_wait`` seconds (a scan reads the tables' table, which a migration or a VACUUM FULL may
        hold): the claims and releases queued behind a scan then wait no longer than that."""
        import psycopg

        conn = await psycopg.AsyncConnection.connect(
            self.url, autocommit=True, application_name=self._locks_name
        )
        await conn.execute(f"SET lock_timeout = {round(self.lock_wait * 1000)}")  # milliseconds
        return conn

    @property
    def _locks_name(self) -> str:
        """What the locks' sessions of this process are called on the database's side."""
        return f"py421 locks {os.getpid()} {self.me[-6:]}"  # short and ASCII: PostgreSQL keeps it whole

    async def _locking(
        self, sql: str, params: tuple[Any, ...] | Callable[[], tuple[Any, ...]]
    ) -> list[tuple[Any, ...]]:
        """One statement on the locks' connection; if it is lost, so is every lock: disown all.

        ``params`` may be a function, called once the connection is this statement's: what it
        reads (the tables owned) is then what holds when the statement runs.
        """
        async with self._lock_use:
            try:
                cursor = await self._locks.execute(sql, params() if callable(params) else params)
                rows: list[tuple[Any, ...]] = await cursor.fetchall() if cursor.description else []
                return rows
            except Exception as e:
                import psycopg

                if isinstance(e, psycopg.errors.LockNotAvailable) and not self._locks.closed:
                    raise  # a scan waited too long for the tables' table: the connection and its locks stay
                if not self._locks_lost:  # said once, not at each scan while the database is away
                    self._locks_lost = True
                    log.warning(
                        "the connection holding the tables' locks is lost (%s): this process owns none now",
                        first_line(e),
                    )
                self.owned.clear()
                if self._member is not None:
                    self._member.disown_all()
                old = None
                with contextlib.suppress(Exception):
                    old = self._locks.info.backend_pid
                with contextlib.suppress(Exception):
                    await self._locks.close()
                if self._closed:  # closed meanwhile: not connected again
                    raise
                self._locks = await self._locks_connection()
                self._locks_lost = False
                if old is not None:  # a goodbye lost in a network cut leaves the old session holding
                    with contextlib.suppress(Exception):  # the locks: ended, its tables are free at once
                        await self._locks.execute(  # (waiting until it is gone: ending it is a signal)
                            "SELECT pg_terminate_backend(pid, %s) FROM pg_stat_activity "
                            "WHERE pid = %s AND application_name = %s",  # its number may be another's now
                            (round(self.lock_wait * 1000), old, self._locks_name),
                        )
                raise

    # -- ownership ----------------------------------------------------------------------

    def owns(self, code: str) -> bool:
        return code in self.owned

    def given(self, code: str) -> bool:
        # a table asked back for a player connected here is this process's to take again
        return code not in self.asking and self._gave(code)

    def _gave(self, code: str) -> bool:
        return time.monotonic() - self._given.get(code, -GIVEN_SECONDS) < GIVEN_SECONDS

    async def claim(self, code: str) -> bool:
        if code in self.owned:
            return True
        return await self._lock_op("claim", code)

    async def _lock_op(self, op: str, code: str) -> bool:
        """Take ("claim") or free ("release") one table's lock. The claims and releases asked while a
        statement is on its way go together in the next one, in the order asked: one round trip for
        dozens of new and finished tables, where a round trip each made a busy process's tables wait
        seconds in line for the locks' connection."""
        if self._closed:  # a process that closed owns no table, and takes none
            return False
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._lock_ops.append((op, code, done))
        if self._locking_ops is None:
            self._locking_ops = asyncio.ensure_future(self._run_lock_ops())
        return await done

    async def _run_lock_ops(self) -> None:
        try:
            while self._lock_ops:
                batch = self._lock_ops[:]  # left in sight of the scans until its statement is done
                sent: list[LockOp] = []  # what the statement carries (:meth:`_carried`)
                copies: list[tuple[asyncio.Future[bool], asyncio.Future[bool] | None]] = []
                try:
                    rows = await self._locking(
                        "SELECT CASE WHEN op = 'claim' "
                        "THEN pg_try_advisory_lock(hashtextextended(code, 421)) "
                        "ELSE pg_advisory_unlock(hashtextextended(code, 421)) END "
                        "FROM unnest(%s::text[], %s::text[]) WITH ORDINALITY AS o(op, code, i) ORDER BY i",
                        functools.partial(self._carried, batch, sent, copies),
                    )
                except Exception as e:
                    self._lock_ops = self._lock_ops[len(batch) :]
                    for *_, done in batch:
                        if not done.done():
                            done.set_exception(e)
                    continue
                self._lock_ops = self._lock_ops[len(batch) :]
                answers: dict[int, bool] = {}  # by the op's future, which its asker may have given up
                for (op, code, done), (ok,) in zip(sent, rows, strict=True):
                    if op == "claim" and ok:
                        # owned from this moment, before the next statement on the locks' connection
                        # runs (a scan must leave it out: a lock taken twice needs freeing twice)
                        self.owned.add(code)
                    answers[id(done)] = bool(ok)
                    if not done.done():
                        done.set_result(bool(ok))
                for done, like in copies:  # the claims left out: answered as the one they repeat
                    if not done.done():
                        done.set_result(True if like is None else answers[id(like)])
        finally:
            self._locking_ops = None

    def _carried(
        self,
        batch: list[LockOp],
        sent: list[LockOp],
        copies: list[tuple[asyncio.Future[bool], asyncio.Future[bool] | None]],
    ) -> tuple[list[str], list[str]]:
        """The ops a statement carries (into ``sent``), read once it has the locks' connection. A lock
        taken twice would need freeing twice (one release would leave the table held, and the
        process it was given to would wait for it), so a claim is left out (into ``copies``, with
        the claim it repeats, None for a table owned) where the table is owned by then (a scan sent
        before it took the table), or claimed earlier in the statement (two of its players
        connecting here at once)."""
        sent.clear()
        copies.clear()
        claimed: dict[str, asyncio.Future[bool]] = {}
        for op, code, done in batch:
            if op == "claim" and (code in self.owned or code in claimed):
                copies.append((done, claimed.get(code)))
                continue
            if op == "claim":
                claimed[code] = done
            else:
                claimed.pop(code, None)
            sent.append((op, code, done))
        return [op for op, _, _ in sent], [code for _, code, _ in sent]

    async def release(self, code: str, *, given: bool = False) -> None:
        """Stop owning a table; ``given``: to a process that takes it at once, which this one's
        scans must not race for."""
        if code in self.owned:
            self.owned.discard(code)
            if given:
                self._given[code] = time.monotonic()
            with contextlib.suppress(Exception):
                await self._lock_op("release", code)

    async def scan(self) -> list[str]:
        """Claim every unfinished table nobody owns (its process died); returns their codes."""
        rows = await self._locking(
            "WITH free AS MATERIALIZED (SELECT code FROM online_tables "
            "WHERE status IN ('waiting', 'playing') AND NOT (code = ANY(%s))) "
            "SELECT code FROM free WHERE pg_try_advisory_lock(hashtextextended(code, 421)) ORDER BY code",
            self._not_mine,
        )
        found = [str(r[0]) for r in rows]
        self.owned.update(found)
        return found

    def _not_mine(self) -> tuple[list[str]]:
        """What a scan leaves out: the tables held here (a lock is taken again by its holder),
        those just given to another process, those asked of their owner for a player connected
        here (the connection that asked claims it; if it gives up, the next scan finds it)."""
        recent = time.monotonic() - GIVEN_SECONDS
        self._given = {code: t for code, t in self._given.items() if t > recent}
        # and those whose claim or release waits to be sent: a lock this process holds is granted
        # to it again, and one taken twice needs freeing twice
        pending = [code for _, code, _ in self._lock_ops]
        return ([*self.owned, *self._given, *self.asking, *pending],)

    async def _scan_forever(self) -> None:
        while True:
            try:
                found = await self.scan()
            except Exception as e:  # the database is away: a line, not a traceback, every scan
                log.warning("the scan for tables without an owner failed (%s); trying again", first_line(e))
                found = []
            for code in found:
                log.warning("table %s had no owner: this process (%s) takes it over", code, self.me)
                assert self._member is not None
                try:
                    await self._member.adopt(code)
                except Exception as e:  # kept (nobody else tries it) and left as it is; the others go on
                    log.warning("table %s is left as it is: it could not be read (%s)", code, e)
            await asyncio.sleep(self.scan_seconds)

    # -- requests to the owner ----------------------------------------------------------

    async def request(
        self, code: str, kind: str, args: dict[str, Any], ident: str | None = None
    ) -> dict[str, Any]:
        """Ask the owner of ``code`` to make a change; its answer, or its refusal as an ``error``.
        A request asked again with the same ``ident`` is made once by the owner that had it.

        :class:`TooLong` if the request cannot be passed on; ``TimeoutError`` if no answer came,
        or if the request could not be sent (the connection for them was lost): ask again.
        """
        ident = ident or secrets.token_hex(8)
        payload = json.dumps({"id": ident, "to": self.inbox, "code": code, "kind": kind, "args": args})
        if len(payload.encode()) > NOTE_BYTES:
            raise TooLong(Message("server.request_bytes", {"most": NOTE_BYTES}))
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[ident] = future
        try:
            try:
                await self._notify(REQUESTS, payload)
            except Exception as e:  # only this batch is lost: the next goes through a new connection
                raise TimeoutError(str(Message("server.not_sent", {"reason": str(e)}))) from e
            return await asyncio.wait_for(future, self.answer_seconds)
        finally:
            self._waiting.pop(ident, None)

    async def announce(self, code: str, seats: list[int], watching: bool = False) -> None:
        said = {"by": self.me, "code": code, "seats": seats, "watching": watching}
        with contextlib.suppress(Exception):  # said again in a moment, through a new connection
            await self._notify(PRESENCE, json.dumps(said))

    async def _notify(self, channel: str, payload: str) -> None:
        sent: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._outbox.append((channel, payload, sent))
        if self._sending is None:
            self._sending = asyncio.ensure_future(self._send())
        await sent

    async def _send(self) -> None:
        try:
            while self._outbox:
                batch, self._outbox = self._outbox, []
                try:
                    await self._send_notes([c for c, _, _ in batch], [p for _, p, _ in batch])
                except Exception as e:
                    for *_, sent in batch:
                        if not sent.done():
                            sent.set_exception(e)
                else:
                    for *_, sent in batch:
                        if not sent.done():
                            sent.set_result(None)
        finally:
            self._sending = None

    async def _send_notes(self, channels: list[str], payloads: list[str]) -> None:
        try:
            # a stalled connection (half-open) holds every note behind it: given up in a request's time
            sent = self._notes.execute(
                "SELECT pg_notify(c, p) FROM unnest(%s::text[], %s::text[]) AS note(c, p)",
                (channels, payloads),
            )
            await asyncio.wait_for(sent, self.answer_seconds)
        except Exception:  # a lost connection: the next batch goes through a new one
            import psycopg

            with contextlib.suppress(Exception):
                await self._notes.close()
            self._notes = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
            raise

    async def _listening(self) -> Any:
        """A connection listening to the news, the requests and this process's answers."""
        import psycopg

        conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
        for channel in (CHANGES, REQUESTS, PRESENCE, self.inbox):
            await conn.execute(f"LISTEN {channel}")
        return conn

    async def _hear(self) -> None:
        """Hear the other processes for the server's life. If the connection is lost (the database
        restarted, a proxy cut it), listen again, and read again every table kept here: their news
        of the meantime are lost. (Requests of the meantime are asked again by their askers.)"""
        while True:
            try:
                async for note in self._listen.notifies():
                    self._heard(note.channel, note.payload)
            except Exception as e:
                log.warning(
                    "the connection listening to the other processes is lost (%s); listening again", e
                )
            with contextlib.suppress(Exception):
                await self._listen.close()
            while True:
                try:
                    self._listen = await self._listening()
                    break
                except Exception as e:
                    log.warning("listening to the other processes again failed (%s); trying again", e)
                    await asyncio.sleep(1)
            member = self._member
            if member is not None:
                for code in member.copies():
                    self._spawn(member.caught_up(code))

    def _heard(self, channel: str, payload: str) -> None:
        try:
            if channel == CHANGES:
                news = json.loads(payload)
                member = self._member
                # every process hears every change: a task only where a copy is kept
                if news["by"] != self.me and member is not None and member.holds_copy(news["code"]):
                    self._spawn(member.caught_up(news["code"], news))
            elif channel == PRESENCE:
                said = json.loads(payload)
                member = self._member
                if said["by"] != self.me and member is not None and member.holds_copy(said["code"]):
                    seats = [int(s) for s in said["seats"]]
                    member.heard_presence(said["by"], said["code"], seats, bool(said.get("watching")))
            elif channel == REQUESTS:
                request = json.loads(payload)
                if request["code"] in self.owned:
                    served = self._served.get(request["id"])
                    if served is None:
                        self._served[request["id"]] = (time.monotonic(), None)
                        self._spawn(self._answer(request))
                    elif served[1] is not None:  # asked again: its answer came too late
                        self._spawn(self._notify(request["to"], served[1]))
                    # else: still being made; the answer goes to the same process
                elif self._gave(request["code"]):  # on its way to another process (even if asked back
                    # for a player here: its new owner may not know yet that it owns it): ask again
                    self._spawn(self._notify(request["to"], json.dumps({"id": request["id"], "moved": True})))
            else:
                answer = json.loads(payload)
                future = self._waiting.get(answer.pop("id"))
                if future is None or future.done():
                    return
                if "moved" in answer:  # its new owner may have had the request too: wait for it
                    asyncio.get_running_loop().call_later(MOVED_WAIT, _settle, future, answer)
                else:
                    future.set_result(answer)
        except Exception:
            log.exception("a notification could not be read: %.200s", payload)

    async def _answer(self, request: dict[str, Any]) -> None:
        assert self._member is not None
        answer: dict[str, Any]
        try:
            answer = {
                "result": await self._member.serve_request(request["code"], request["kind"], request["args"])
            }
        except Moved:
            answer = {"moved": True}
        except Exception as e:  # the refusal goes back as it would have to a local client
            error, message, status, words = _refusal(e)
            answer = {"error": error, "message": message, "status": status, "words": words}
        answer["id"] = request["id"]
        text = json.dumps(answer)
        if len(text.encode()) > NOTE_BYTES:  # it would fail the other answers sent with it
            log.error("the answer to a %s request is too long to send: %.200s", request["kind"], text)
            text = json.dumps({"id": request["id"], **_internal()})
        now = time.monotonic()
        if now - self._pruned > SERVED_SECONDS:  # forget the requests long answered
            self._pruned = now
            self._served = {k: v for k, v in self._served.items() if now - v[0] < SERVED_SECONDS}
        if "moved" in answer:  # nothing was made: asked again, it is served afresh
            self._served.pop(request["id"], None)
        else:
            self._served[request["id"]] = (now, text)
        await self._notify(request["to"], text)


def said_if_failed(task: asyncio.Task[None]) -> None:
    """A background task's failure, said in the log (one line for the database being away) rather
    than left for asyncio to find when the task is freed ("Task exception was never retrieved")."""
    if task.cancelled():
        return
    error = task.exception()
    if error is None:
        return
    if _outage(error) or type(error).__name__ == "TableError":
        log.warning("a task of the server's stopped: %s", first_line(error))
    else:
        log.error("a task of the server's failed", exc_info=error)


def read_quietly(task: asyncio.Future[Any]) -> None:
    """Mark a shared task's outcome as read: each of its askers reads it through a shield, and one
    that went away would leave asyncio to say "exception was never retrieved"."""
    if not task.cancelled():
        task.exception()


def _outage(error: BaseException) -> bool:
    """The database away, or a connection lost: the server goes on, and tries again."""
    from sqlalchemy.exc import SQLAlchemyError

    if isinstance(error, SQLAlchemyError | OSError | TimeoutError):
        return True
    return type(error).__module__.startswith("psycopg")


def first_line(e: BaseException) -> str:
    """An error in one line, for a log that must not fill with tracebacks."""
    said = str(e).strip()
    return said.splitlines()[0] if said else type(e).__name__


def _settle(future: asyncio.Future[dict[str, Any]], answer: dict[str, Any]) -> None:
    if not future.done():
        future.set_result(answer)


def _refusal(e: Exception) -> tuple[str, str, int, dict[str, str]]:
    from .table import TableError

    if isinstance(e, TableError):
        return e.error, e.message, e.status, e.words
    log.exception("a request from another process failed")
    internal = _internal()
    return internal["error"], internal["message"], internal["status"], internal["words"]


def _internal() -> dict[str, Any]:
    message = "the server that holds this table failed on the request; try again"
    return {"error": "internal", "message": message, "status": 500, "words": {}}
