"""One online table: who sits where, who watches, the game, and what each connection is sent.

Nothing here writes to the database or waits on a socket: :mod:`.tables`
changes tables, and each :class:`Connection` has its own task that sends its
messages, so a client that does not read slows nobody else.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
import unicodedata
from collections.abc import Awaitable, Callable, Generator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, cast

import orjson

from ..core.engine import MAX_NAME, check_name
from ..core.errors import Message, Py421Error
from ..core.events import Event
from ..core.game import Game
from ..core.rules import Ruleset, rules_name
from ..core.views import seat_view
from ..i18n import LANGS, error_text, guillemets
from ..play.session import Session
from ..players import is_bot_name
from ..players.registry import bot_name_in
from ..text import describe
from . import outbound as out
from .database import SeatRow
from .protocol import ErrorCode

LOG_LINES = 50
# A table waits for its players, plays, and ends over (the game finished) or abandoned (nobody played
# on for the server's idle time: the game, unfinished, is kept in the history all the same).
Status = Literal["waiting", "playing", "over", "abandoned"]
FINISHED = ("over", "abandoned")


class TableError(Exception):
    """A refused request: ``error`` is a stable code, ``message`` says what is accepted.

    ``words`` holds the message in each language, so a player is told why in the page's
    language; a :class:`~py421.core.errors.Message` is worded by the catalogs in each.
    """

    def __init__(
        self,
        error: ErrorCode,
        message: str | Message,
        status: int = 400,
        words: dict[str, str] | None = None,
        *,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(str(message))
        self.error: ErrorCode = error
        self.message, self.status = str(message), status
        if words is None and isinstance(message, Message):
            words = {lang: error_text(lang, message) for lang in LANGS}
        self.words = words or {}
        self.retry_after = retry_after  # seconds: said in a Retry-After header

    @classmethod
    def of(cls, error: ErrorCode, exc: Py421Error, status: int = 400) -> TableError:
        """A project error refused under ``error``, worded in every language."""
        return cls(error, str(exc), status, {lang: error_text(lang, exc) for lang in LANGS})

    def said(self, lang: str) -> tuple[str, str]:
        """The message in ``lang`` where it is worded so, else in English; and its language.

        For the page, as its own words: every « … » held together (:func:`~py421.i18n.guillemets`).
        """
        said, in_lang = (self.words[lang], lang) if lang in self.words else (self.message, "en")
        return guillemets(said), in_lang


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def clean_name(raw: object) -> str:
    """A person's name as the server keeps it: spaces folded, in its NFKC form (full-width letters
    as letters: one spelling in the history), the engine's characters, 1 to
    :data:`~py421.core.engine.MAX_NAME` (as in the terminal)."""
    name = unicodedata.normalize("NFKC", " ".join(raw.split())) if isinstance(raw, str) else ""
    if not 1 <= len(name) <= MAX_NAME:
        raise TableError("bad_name", Message("server.name_length", {"most": MAX_NAME, "n": len(name)}))
    try:
        check_name(name)
    except Py421Error as e:
        raise TableError.of("bad_name", e) from e
    if is_bot_name(name):
        raise TableError("bad_name", Message("players.bot_name", {"name": repr(name)}))
    return name


@dataclass
class TableSeat:
    """A seat of an online table: who holds it (a person's token, or a bot's level) and how they are
    connected; what it holds at the game is a :class:`py421.play.session.Seat`."""

    seat: int
    kind: Literal["human", "bot"]
    bot: str | None = None  # the bot's level
    name: str | None = None
    token_hash: str | None = None
    connected: int = 0  # open connections holding this seat
    away: bool = False  # timed out: a bot plays for them until they act again
    # when the last page holding it here closed (time.time()), or this copy was made: a scorekeeper's
    # seat is taken by a phone watching only once gone a while
    left: float = field(default_factory=time.time)

    def row(self) -> SeatRow:
        return SeatRow(self.seat, self.kind, self.bot, self.name, self.token_hash)

    def copy(self) -> TableSeat:
        return TableSeat(
            self.seat, self.kind, self.bot, self.name, self.token_hash, self.connected, self.away, self.left
        )


class Connection:
    """One WebSocket: its seat, its language, and the messages waiting for it (JSON text).

    :meth:`offer` never waits. When nothing is queued, a message is sent at
    once: the socket nearly always takes it without waiting, and the table's
    players then get it in the same turn of the event loop rather than in the
    next one. Otherwise, and when the socket does make it wait, messages queue
    for the connection's own task. A message that finds the queue full drops
    the connection (``dropped`` is set), and so does one the client does not
    take within ``send_seconds``. The page reconnects and gets the whole table
    again.
    """

    def __init__(
        self,
        send: Callable[[str], Awaitable[None]],
        seat: int | None,
        lang: str,
        *,
        address: str = "",
        queue: int = 64,
        send_seconds: float = 10.0,
        holding: str | None = None,
    ) -> None:
        self.send, self.seat, self.lang, self.address = send, seat, lang, address
        self.holding = holding  # the hash of the token that holds ``seat``: handed on, it no longer does
        self.log_sent = 0  # lines of the table's log this connection already has
        self.queue: asyncio.Queue[str | _Close] = asyncio.Queue(queue)
        self.send_seconds = send_seconds
        self.dropped = asyncio.Event()
        self.why: ErrorCode | None = None
        self._idle = False  # the connection's task waits on an empty queue
        self._rest: asyncio.Future[None] | None = None  # a send begun at once that had to wait

    def offer(self, text: str) -> None:
        """Send one message, already JSON, or queue it; a full queue drops the connection."""
        if self.dropped.is_set():
            return
        if self._idle and _in_event_loop():
            self._send_at_once(text)
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.drop("slow_client")

    def _send_at_once(self, text: str) -> None:
        """Run the send until it would wait; what is left of it, if anything, goes on in a task
        (after which the connection's task sends what queued meanwhile)."""
        sending = self.send(text).__await__()
        try:
            waiting_on = next(sending)
        except StopIteration:
            return  # sent: the usual case
        except Exception:  # a closed socket
            self.drop("slow_client")
            return
        self._idle = False
        self._rest = asyncio.ensure_future(self._finish(sending, waiting_on))

    async def _finish(self, sending: Generator[Any, None, None], waiting_on: Any) -> None:
        try:
            async with asyncio.timeout(self.send_seconds):
                while True:
                    if isinstance(waiting_on, asyncio.Future):
                        await asyncio.wait([waiting_on])  # its outcome is the send's to read
                    else:
                        await asyncio.sleep(0)
                    waiting_on = sending.send(None)
        except StopIteration:
            return
        except (TimeoutError, Exception):  # a client that does not read, or a closed socket
            sending.close()
            self.drop("slow_client")

    def error(self, error: ErrorCode, message: str, lang: str = "en") -> None:
        said: out.ErrorMessage = {"type": "error", "error": error, "message": message, "lang": _lang(lang)}
        self.offer(dumps(said))

    def drop(self, why: ErrorCode) -> None:
        self.why = self.why or why
        self.dropped.set()

    def say(self, error: ErrorCode, message: Message) -> None:
        """An error worded in the connection's language."""
        self.error(error, guillemets(error_text(self.lang, message)), self.lang)

    def close_after(self, error: ErrorCode, message: Message) -> None:
        """Send an error after what is queued, in the connection's language, then close."""
        self.say(error, message)
        self._idle = False  # the close goes after the error, whichever way that went
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(_Close(error))

    async def write(self) -> None:
        """Send what is queued, in order, until dropped; the connection's own task."""
        while not self.dropped.is_set():
            self._idle = self.queue.empty() and (self._rest is None or self._rest.done())
            item = await self.queue.get()
            self._idle = False
            if self._rest is not None:
                await self._rest  # a message sent at once before this one: it ends first
                self._rest = None
                if self.dropped.is_set():
                    return
            if isinstance(item, _Close):
                self.drop(item.why)
                return
            try:
                async with asyncio.timeout(self.send_seconds):  # no task made per message, as wait_for would
                    await self.send(item)
            except (TimeoutError, Exception):  # a client that does not read, or a closed socket
                self.drop("slow_client")
                return


def _in_event_loop() -> bool:
    """Called from the event loop (and not from a test's own thread, say)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


@dataclass(frozen=True)
class _Close:
    """Queued after a last message: the writer closes the connection there."""

    why: ErrorCode


def _lang(lang: str) -> Literal["en", "fr"]:
    return "fr" if lang == "fr" else "en"


def dumps(message: Mapping[str, Any]) -> str:
    """A message as the server sends it: compact JSON, names and French as they are (orjson:
    a server writes one for every change of every table)."""
    return orjson.dumps(message).decode()


@dataclass
class Table:
    code: str
    mode: Literal["play", "scorekeeper"]
    rules: Ruleset
    seats: list[TableSeat]
    seed: str
    seed_hash: str
    timeout: float
    status: Status = "waiting"
    first_seat: int = 0
    rematch: str | None = None
    game_id: int | None = None
    created: float = 0.0  # when it was made (time.time()): a table nobody starts is removed
    # When a person last acted here or was seen connected (time.time()), and when the database was
    # last told: a table nobody plays at for the server's idle time is ended.
    active: float = 0.0
    active_saved: float = 0.0
    removed: bool = False  # closed by the housekeeping: nothing may change it or connect to it
    session: Session | None = None
    connections: list[Connection] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    events: list[Event] = field(default_factory=list)
    timer: asyncio.Task[None] | None = None
    # by language: (first, lines), the lines of the events from ``first`` on, each described once when
    # first sent (a watcher coming to a finished game of 100,000 steps is sent its last lines only)
    _log: dict[str, tuple[int, list[str]]] = field(default_factory=dict)
    hints: bool = False  # created with hints: the player to move sees their choices ranked
    # Told after every broadcast, where hints are on (:mod:`.hints`); None, it costs nothing.
    on_change: Callable[[Table], None] | None = None
    # The seats other processes said they hold a connection for (:mod:`.cluster`), by process, and
    # until when that holds (time.monotonic()) if they do not say it again.
    elsewhere: dict[str, tuple[frozenset[int], float]] = field(default_factory=dict)
    # A scorekeeper's steps before a phone watching took the score (one the keeper did not hand it
    # to): its undo stops there, so that whoever takes it cannot take back the game played so far.
    undo_from: int = 0

    @property
    def game(self) -> Game | None:
        return self.session.game if self.session else None

    @property
    def version(self) -> int:
        return self.session.state.steps if self.session else 0

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    @property
    def seated_here(self) -> bool:
        """Whether a person holds a seat through a connection to this process, and plays it: one the
        timeout handed to a bot (away) keeps the table no more alive than a spectator would, or a
        page left open would keep its bots playing for ever."""
        return any(c.seat is not None and not self.seats[c.seat].away for c in self.connections)

    def present(self, seat: int) -> bool:
        """Whether a page holds ``seat`` open, through this process or another one."""
        if self.seats[seat].connected > 0:
            return True
        now = time.monotonic()
        return any(seat in seats and now < until for seats, until in self.elsewhere.values())

    @property
    def seats_here(self) -> list[int]:
        """The seats a connection to this process holds, as other processes are told them."""
        return [s.seat for s in self.seats if s.connected > 0]

    def let_go_of_states(self) -> None:
        """A finished game keeps its last state only, not every one before it: they were most of a
        long game's memory, and each finished game watched held them all (20 watchers of long
        games, 320 MB). A scorekeeper's undo after the end plays them again
        (:meth:`py421.core.game.Game.forget_states`)."""
        if self.finished and self.game is not None:
            self.game.forget_states()

    def record_meta(self) -> dict[str, Any]:
        """What an online game's record says of its table and dice: enough for ``421 verify``. A real
        table's dice were typed (reported), not drawn from the seed."""
        if self.mode == "scorekeeper":
            return {"table": self.code, "dice": "reported"}
        return {"table": self.code, "seed": self.seed, "seed_hash": self.seed_hash, "dice": "hmac-sha256"}

    @property
    def away(self) -> set[int]:
        return {s.seat for s in self.seats if s.away}

    @cached_property
    def options(self) -> dict[str, Any]:
        return self.rules.changed_options()

    def seat_of(self, token: str | None) -> int | None:
        if not token:
            return None
        wanted = hash_token(token)
        return next((s.seat for s in self.seats if s.token_hash == wanted), None)

    def spectators(self) -> int:
        return sum(1 for c in self.connections if c.seat is None)

    def names(self, lang: str) -> list[str | None]:
        """The seats' names as a page in ``lang`` shows them: a bot's in that language (named in
        English when the game started), a person's as they gave it."""
        return [bot_name_in(s.name, lang) if s.kind == "bot" and s.name else s.name for s in self.seats]

    def public(self, lang: str = "en") -> out.TablePublic:
        names = self.names(lang)
        return {
            "code": self.code,
            "mode": self.mode,
            "rules": self.rules.name,
            "options": self.options,
            "named": rules_name(self.rules),
            "status": self.status,
            "timeout": self.timeout,
            "seats": [
                {
                    "seat": s.seat,
                    "kind": s.kind,
                    "bot": s.bot if s.kind == "bot" else None,
                    "name": names[s.seat],
                    "taken": s.kind == "bot" or s.token_hash is not None or self.mode == "scorekeeper",
                    "connected": self.present(s.seat),
                    "away": s.away,
                }
                for s in self.seats
            ],
            "seed_hash": self.seed_hash,
            "seed": self.seed if self.finished else None,
            "version": self.version,
            "rematch": self.rematch,
            "hints": self.hints,
        }

    def log(self, lang: str, start: int) -> list[str]:
        """The game's log from line ``start`` on (a line an event), for the page: each event described
        once per language, when first asked for, every « … » held together
        (:func:`~py421.i18n.guillemets`)."""
        shown = self.names(lang)
        names = [shown[i] or name for i, name in enumerate(self.game.players)] if self.game else []

        def said(events: list[Event]) -> list[str]:
            return [guillemets(describe(e, names, lang)) for e in events]

        first, lines = self._log.get(lang, (start, []))
        if start > first + len(lines):  # lines nobody was sent since: described only if asked for
            first, lines = start, []
        if start < first:
            lines = said(self.events[start:first]) + lines
            first = start
        lines.extend(said(self.events[first + len(lines) :]))
        self._log[lang] = (first, lines)
        return lines[start - first :]

    def sent_from(self, conn: Connection) -> int:
        """The first log line ``conn`` is sent next, at most the last ``LOG_LINES``; it then has all."""
        start = max(conn.log_sent, len(self.events) - LOG_LINES)
        conn.log_sent = len(self.events)
        return start

    def forget_log(self) -> None:
        """The events past ``self.events`` were taken back (an undo, here or by another process):
        their lines go, those before stay described, and the log is sent again."""
        for lang, (first, lines) in list(self._log.items()):
            if len(self.events) < first:
                del self._log[lang]
            else:
                del lines[len(self.events) - first :]
        for conn in self.connections:
            conn.log_sent = 0

    def message(self, conn: Connection) -> out.TableMessage:
        """What one connection is sent, in its language.

        The log goes as the lines the connection does not have yet (at most the last
        ``LOG_LINES``), with ``log_start``, the number of the first line sent.
        """
        start = self.sent_from(conn)
        view = self.view(conn.seat, conn.lang)
        return {
            "type": "table",
            "table": self.public(conn.lang),
            "view": view,
            "version": self.version,
            "log_start": start,
            "log": self.log(conn.lang, start),
        }

    def view(self, seat: int | None, lang: str = "en") -> out.View | None:
        """What ``seat`` sees of the game, its bots named in ``lang``; at an abandoned table, nobody
        has a move left to make.

        Core builds it as a plain dict (it knows no protocol); tests hold it to the model."""
        if self.session is None:
            return None
        view = cast(out.View, seat_view(self.session.state, seat))
        names = self.names(lang)
        for player in view["players"]:
            player["name"] = names[player["seat"]] or player["name"]
        if self.status == "abandoned":
            view = {**view, "your_turn": False, "legal_actions": []}
        return view

    def send_to(self, conn: Connection) -> None:
        """The table as it is, to one connection (one that has just come)."""
        conn.offer(dumps(self.message(conn)))

    def broadcast(self) -> None:
        """Queue the table's new state for every connection; waits on nobody.

        Each seat's view is built once and each distinct message written once:
        a hundred spectators cost one view and one JSON text.
        """
        for conn in self.connections:
            if conn.seat is not None and conn.holding != self.seats[conn.seat].token_hash:
                self.seats[conn.seat].connected -= 1  # no longer there for its seat: shown so below
                self.seats[conn.seat].left = time.time()
                conn.seat = None  # the seat was handed to another phone: this one watches
                conn.say("seat_handed", Message("server.seat_handed"))
        publics: dict[str, out.TablePublic] = {}  # the same for every connection in a language
        views: dict[tuple[int | None, str], out.View | None] = {}
        texts: dict[tuple[int | None, str, int], str] = {}
        for conn in list(self.connections):
            start = self.sent_from(conn)
            key = (conn.seat, conn.lang, start)
            text = texts.get(key)
            if text is None:
                if conn.lang not in publics:
                    publics[conn.lang] = self.public(conn.lang)
                if (conn.seat, conn.lang) not in views:
                    views[conn.seat, conn.lang] = self.view(conn.seat, conn.lang)
                message: out.TableMessage = {
                    "type": "table",
                    "table": publics[conn.lang],
                    "view": views[conn.seat, conn.lang],
                    "version": self.version,
                    "log_start": start,
                    "log": self.log(conn.lang, start),
                }
                text = texts[key] = dumps(message)
            conn.offer(text)
        if self.on_change is not None:
            self.on_change(self)
