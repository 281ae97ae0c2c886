"""Every online table of this process: their register, and the road each change takes.

The hub makes, loads and ends tables, routes each change (a typed command, :mod:`.commands`)
to the process that owns its table, here or in another process (:mod:`.cluster`), follows
the changes other processes make, and hands out the tables' views and connections. The
table itself makes the change, one at a time and in order (:class:`.table_actor.TableActor`):
checked in full first, written to the database, and only then shown.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import math
import re
import secrets
import time
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any, Literal, TypeVar, assert_never

from pydantic import BaseModel
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from ..core.engine import name_key, players_refused
from ..core.errors import Message, Py421Error
from ..core.game import Game
from ..core.rules import Ruleset
from ..history import GameRows, History, game_rows
from ..play.session import Seat, Session
from ..players import Player, accepted, levels, make_bot, parse_bot
from ..players.registry import check_levels
from . import outbound as out
from .addresses import address_key
from .cluster import Moved, Solo, TooLong, first_line, read_quietly, said_if_failed
from .commands import (
    Act,
    Answer,
    Back,
    Command,
    Done,
    Give,
    Given,
    Hand,
    Join,
    Rematch,
    Rematched,
    Report,
    Seated,
    Start,
    Undo,
    command,
)
from .database import LIVE, Store, TableRow, now
from .limits import AddressBook, Limits
from .optimal_seats import OptimalBots
from .policy_seats import PolicyBots
from .protocol import ActionMove, CreateTable
from .table import Connection, Status, Table, TableError, TableSeat, clean_name, hash_token
from .table_actor import RemoteBot, TableActor, bots_of
from .writer import Writer

log = logging.getLogger(__name__)
A = TypeVar("A", bound=BaseModel)  # one of the answers (commands.Answer)
R = TypeVar("R")  # what a reader's thread brings back
BATCH = 200  # tables ended, or told active, in one transaction by the housekeeping
TOUCH_SECONDS = 600.0  # a table's activity is told to the database this often at most
# A process holding seats of a table another process owns says so this often; said neither again nor
# otherwise for PRESENCE_LEASE, they count as gone (the process was killed, or cannot reach the others).
PRESENCE_SECONDS = 20.0
PRESENCE_LEASE = 65.0
PrepareRules = Callable[[Ruleset, int, str], Awaitable[None]]  # the rules, the players, the address
ExpectRules = Callable[[Ruleset, int], Awaitable[float]]
CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # no I or O: read aloud without doubt
_CODE = re.compile(r"[A-Za-z]{5}")


class Hub:
    """Every live table, and the rules of changing them."""

    def __init__(
        self,
        store: Store,
        history: History,
        *,
        bot_delay: float = 0.6,
        seeds: Iterator[str] | None = None,
        limits: Limits | None = None,
        optimal: OptimalBots | None = None,
        policies: PolicyBots | None = None,
        cluster: Solo | None = None,
        prepare_hints: PrepareRules | None = None,
        expect_hints: ExpectRules | None = None,
    ) -> None:
        self.store = store
        self.writer = Writer(store)  # every write of play goes through it (server/writer.py)
        self._readers = ThreadPoolExecutor(2, thread_name_prefix="py421-reader")  # news read back
        self.seeds = seeds  # tests fix the dice; otherwise every table draws a secret seed
        self.history = history
        self.bot_delay = bot_delay
        self.limits = limits or Limits()
        self.addresses = AddressBook(self.limits)
        self.optimal = optimal or OptimalBots()
        self.policies = policies or PolicyBots({})  # the trained policies the operator named
        self.prepare_hints = prepare_hints  # solves a table's rules for its hints, or refuses them
        self.expect_hints = expect_hints  # how long that would take now, by estimate
        self.cluster = cluster or Solo()
        self.tables: dict[str, Table] = {}
        self._elsewhere: dict[str, float] = {}  # tables last found owned by another process, and when
        self._taking: dict[str, asyncio.Future[bool]] = {}  # claims under way
        self._reading: dict[str, asyncio.Future[Table | None]] = {}  # tables being read, for all who ask
        self._replayers: dict[str, _Turn] = {}  # by address: the readings it asked for, one at a time
        self._resuming: set[str] = set()  # unfinished tables a restart has still to read (resume_all)
        self.resumed = asyncio.Event()  # set once they are read and those left idle are ended
        self.tasks: set[asyncio.Task[None]] = set()

    # -- creating and loading ------------------------------------------------

    def _new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_LETTERS) for _ in range(5))
            if code not in self.tables:
                return code

    async def _store_new(self, table: Table) -> None:
        """Write a new table under a code nobody has: a code the database already holds (one in
        about eight million) fails the write, and another is drawn."""
        for _ in range(5):
            await self.cluster.claim(table.code)  # before it exists: no other process takes it meanwhile
            try:
                await self.writer.create(self._row(table))
                return
            except IntegrityError:
                await self.cluster.release(table.code)
                table.code = self._new_code()
            except Exception:
                await self.cluster.release(table.code)
                raise
        raise TableError("internal", Message("server.no_free_code"), 503)

    def _asked(self, request: CreateTable) -> tuple[Ruleset, list[TableSeat]]:
        """The rules and seats of the table asked for, once every check of the request has passed
        and the server has room: :meth:`create` and :meth:`solving_seconds` refuse alike."""
        rules = _rules(request.rules, request.settings)
        if request.timeout != 0 and not 10 <= request.timeout <= 3600:
            raise TableError("malformed", Message("server.timeout", {"timeout": request.timeout}))
        if request.hints and request.mode != "play":
            raise TableError("malformed", Message("server.hints_online"))
        if request.mode == "scorekeeper":
            if request.players is None:
                raise TableError("malformed", Message("server.players_list"))
            self._check_count(rules, len(request.players))
            seats = [TableSeat(i, "human", name=clean_name(n)) for i, n in enumerate(request.players)]
            _check_distinct([s.name or "" for s in seats])
        else:
            self._check_count(rules, len(request.seats))
            seats = [_seat(i, spec) for i, spec in enumerate(request.seats)]
            if seats[0].kind != "human":
                raise TableError("bad_seats", Message("server.first_seat"))
            try:  # a trained policy seated by the server's operator plays only the game it learned
                check_levels((s.bot for s in seats), rules, len(seats))
            except Py421Error as e:
                raise TableError.of("bad_seats", e) from e
            if request.name is None:
                raise TableError("malformed", Message("server.name_required"))
            seats[0].name = clean_name(request.name)
        self._room()
        return rules, seats

    def _count_new(self, address: str) -> None:
        """Count a new table (a rematch too) against the ones ``address`` may make a minute, and
        refuse it where the address's network holds all the live tables it may."""
        most = self.limits.tables_per_address
        if self.addresses.holds(address, self._live_here) >= most:
            raise TableError(
                "too_many_tables", Message("server.tables_held", {"most": most}), 429, retry_after=60
            )
        wait = self.addresses.create(address)
        if wait is not None:
            raise TableError(
                "too_many_tables",
                Message("server.tables_per_minute", {"most": self.limits.tables_per_minute}),
                429,
                retry_after=wait,
            )

    def _room(self) -> None:
        """Refuses a new table (a rematch too) where the server holds all the live tables it may."""
        most = self.limits.live_tables
        if len(self.tables) + len(self._resuming) >= most and self.live() + len(self._resuming) >= most:
            raise TableError(
                "too_many_tables",
                Message("server.tables_full"),
                503,
                retry_after=60,
            )

    def _solves(self, hints: bool, seats: list[TableSeat]) -> list[tuple[PrepareRules, ExpectRules]]:
        """What a table's rules are solved for before it is made, in that order (its hints, an
        optimal seat): how to solve them, and how long that would take now by estimate."""
        found = []
        if hints and self.prepare_hints is not None and self.expect_hints is not None:
            found.append((self.prepare_hints, self.expect_hints))
        if any(s.bot == "optimal" for s in seats):
            found.append((self.optimal.prepare, self.optimal.expected))
        return found

    async def create(self, request: CreateTable, address: str = "") -> tuple[Table, str]:
        """A new table; returns it and the creator's token. Nothing is kept if any check fails.

        Every check and every cap comes before the rules are solved (for hints or an optimal seat):
        a refused request costs the server nothing.
        """
        rules, seats = self._asked(request)
        token = secrets.token_urlsafe(24)
        seats[0].token_hash = hash_token(token)
        self._count_new(address)
        for prepare, _ in self._solves(request.hints, seats):
            await prepare(rules, len(seats), address)  # in a worker, within the budget
        seed = self._seed()
        made = time.time()
        table = Table(
            self._new_code(), request.mode, rules, seats, seed, hashlib.sha256(seed.encode()).hexdigest(),
            request.timeout, created=made, hints=request.hints, active=made, active_saved=made,
        )  # fmt: skip
        self._keeping_score(table)
        await self._store_new(table)
        self.tables[table.code] = table
        self.addresses.made(address, table.code)
        return table, token

    def _keeping_score(self, table: Table) -> None:
        """A scorekeeper's table is played from the moment it is made: nobody joins it (its people
        are at the real table, their seats held by no phone; started, each would be given a bot)."""
        if table.mode == "scorekeeper":
            table.status = "playing"
            table.session = self.session_of(table)  # checks the names with the engine, before writing
            table.events = list(table.session.state.events)

    async def solving_seconds(self, request: CreateTable) -> float:
        """The seconds :meth:`create` would spend solving the table's rules (for hints, an optimal
        seat), by estimate: 0 when nothing is to be solved. A table :meth:`create` would refuse is
        refused the same way, but for the caps on an address's tables (not spent by asking) and a
        full line of solves (gone by the time the table is asked for)."""
        rules, seats = self._asked(request)
        waits = [await expect(rules, len(seats)) for _, expect in self._solves(request.hints, seats)]
        return max(waits, default=0.0)

    def _check_count(self, rules: Ruleset, n: int) -> None:
        if not rules.seats(n):
            raise TableError("bad_seats", players_refused(rules, n))
        if n > self.limits.seats:
            raise TableError("bad_seats", Message("server.seats_most", {"most": self.limits.seats, "n": n}))

    def _live_here(self, code: str) -> bool:
        table = self.tables.get(code)
        return table is not None and table.status in LIVE and self.cluster.owns(code)

    def live(self) -> int:
        """The tables waiting or in play that this process holds (what ``--max-tables`` bounds); a
        walk over every table, so only looked at when the memory holds that many tables at all."""
        return sum(1 for t in self.tables.values() if t.status in LIVE and self.cluster.owns(t.code))

    def seats_limit(self, rules: Ruleset) -> int:
        """The most players an online table of these rules seats here."""
        return min(rules.max_players or self.limits.seats, self.limits.seats)

    def _seed(self) -> str:
        return next(self.seeds) if self.seeds is not None else secrets.token_hex(32)

    def _row(self, t: Table) -> TableRow:
        made = now()
        return TableRow(
            t.code, made, t.mode, t.rules.to_dict(), t.status, t.seed, t.seed_hash, int(t.timeout),
            t.first_seat, t.rematch, None, [s.row() for s in t.seats], [], t.hints, made,
        )  # fmt: skip

    def session_of(self, table: Table, game: Game | None = None) -> Session:
        """The table's game and seats as a session: its dice, its bots (optimal ones in the worker)."""
        seats = [
            Seat(s.name or f"Seat {s.seat + 1}", s.bot if s.kind == "bot" else None) for s in table.seats
        ]
        known = {level.key for level in levels()}
        for s in table.seats:  # a level registered when the table was made (421 --bot), not now
            if s.kind == "bot" and s.bot is not None and s.bot not in known:
                raise TableError(
                    "bad_seats",
                    Message("server.unknown_level", {"level": s.bot}),
                    503,
                )
        remote = {"optimal", *self.policies.levels}  # played in a worker, within its budget
        bots: dict[int, Player] = {}
        for s in table.seats:
            if s.kind == "bot":
                level = s.bot or "heuristic"
                seed = f"{table.seed}:{s.seat}"
                bots[s.seat] = RemoteBot(level) if level in remote else make_bot(level, seed)
        try:
            return Session(
                table.rules, seats, seed=table.seed, first_seat=table.first_seat, game=game, bots=bots
            )
        except Py421Error as e:
            raise TableError.of("bad_seats", e) from e

    def _rebuilt(self, code: str) -> Table | None:
        """A table rebuilt from the database, its steps replayed; the hub left as it was: a reader's
        thread rebuilds it (:meth:`_read_once`), never the event loop."""
        row = self.store.load(code)
        if row is None:
            return None
        rules = Ruleset.from_mapping(row.rules)
        seats = [
            TableSeat(s.seat, "bot" if s.kind == "bot" else "human", s.bot, s.name, s.token_hash)
            for s in row.seats
        ]
        status = _status(row.status)
        active = _timestamp(row.active_at or row.created_at)
        table = Table(
            row.code, "scorekeeper" if row.mode == "scorekeeper" else "play", rules, seats, row.seed,
            row.seed_hash, row.timeout, status, row.first_seat, row.rematch, row.game_id,
            created=_timestamp(row.created_at), hints=row.hints, active=active, active_saved=active,
            undo_from=row.undo_from,
        )  # fmt: skip
        if table.status != "waiting":
            table.session = self.session_of(table)
            game = table.session.game
            table.events = list(game.state.events)
            for step in row.steps:
                game.apply_step(step)
                table.events.extend(game.state.events)
            table.let_go_of_states()
        return table

    async def shown(self, code: str, address: str = "") -> Table:
        """The table as the database has it now, to be shown (a copy here may lag a change made
        elsewhere): this process's own in play, else read and replayed in a reader's thread, not on
        the event loop (a finished game of tens of thousands of steps takes a second), and kept only
        where it is in play and this process owns it (it plays it on). ``address``: who asked, who
        pays for a replay (:meth:`_read_once`)."""
        code = _checked(code)
        if self.cluster.owns(code) and code in self.tables:
            return self.tables[code]
        table = await self._read_once(code, address)
        if table is None:
            raise TableError("no_table", Message("server.no_table", {"code": repr(code)}), 404)
        if not table.finished and self.cluster.owns(code):
            return self.tables.setdefault(code, table)  # one read meanwhile may have kept it first
        return table

    async def attached(self, code: str, address: str = "") -> Table:
        """The table a connection comes to, kept in memory while connected (its changes go to every
        connection): this process's copy, else read and replayed in a reader's thread, not on the
        event loop, as :meth:`shown` reads it."""
        table = await self._kept(_checked(code), address)
        if table is None:
            raise TableError("no_table", Message("server.no_table", {"code": repr(code)}), 404)
        return table

    async def _kept(self, code: str, address: str = "") -> Table | None:
        """The table in memory, else read in a reader's thread and kept; None: there is no such table."""
        if code in self.tables:
            return self.tables[code]
        table = await self._read_once(code, address)
        return None if table is None else self.tables.setdefault(code, table)  # a read meanwhile kept it

    async def _read_once(self, code: str, address: str = "") -> Table | None:
        """The table read from the database and replayed in a reader's thread; those who ask while it
        is read share that reading (eight at once for a long game took both readers for seconds).

        A reading asked for by a client (``address``) is its address's: an address's readings are
        made one after another, and the steps each replays are counted against the address
        (:meth:`.AddressBook.replaying`); past its fill it is refused until paid back, so that no
        client keeps the readers replaying long finished games for every lookup."""
        reading = self._reading.get(code)
        if reading is not None or not address:
            return await asyncio.shield(reading or self._start_reading(code))
        key = address_key(address)
        turn = self._replayers.setdefault(key, _Turn())
        turn.users += 1
        try:
            async with turn.lock:
                reading = self._reading.get(code)  # begun by another meanwhile: shared, unpaid
                if reading is not None:
                    return await asyncio.shield(reading)
                wait = self.addresses.replaying(address)
                if wait is not None:
                    most = f"{self.limits.replay_steps_per_second:g}"
                    said = Message("server.replays", {"most": most, "seconds": math.ceil(wait)})
                    raise TableError("rate_limited", said, 429, retry_after=wait)
                reading = self._start_reading(code)
                # counted when the reading ends, whether or not the asker still waits for it
                reading.add_done_callback(lambda done: self.addresses.replayed(address, _steps_read(done)))
                return await asyncio.shield(reading)
        finally:
            turn.users -= 1
            if not turn.users:
                del self._replayers[key]

    def _start_reading(self, code: str) -> asyncio.Future[Table | None]:
        reading = self._in_reader(self._rebuilt, code)
        self._reading[code] = reading
        reading.add_done_callback(lambda _: self._reading.pop(code, None))
        return reading

    def _in_reader(self, read: Callable[..., R], *args: Any) -> asyncio.Future[R]:
        """``read(*args)`` in a reader's thread (each holds a database connection of its own), not
        on the event loop."""
        return asyncio.get_running_loop().run_in_executor(self._readers, read, *args)

    async def holds_no_seat(self, table: Table, token: str) -> bool:
        """Whether ``token`` holds no seat at ``table``: its seat was handed on while its phone was
        away. A copy here that another process owns may not have caught up with a join or a seat
        handed to it: the database says (in a reader's thread)."""
        if table.seat_of(token) is not None:
            return False
        if self.cluster.owns(table.code):
            return True
        return not await self._in_reader(self.store.holds_seat, table.code, hash_token(token))

    async def database_answers(self) -> None:
        """Raises if the database does not answer (asked in a reader's thread)."""
        await self._in_reader(self.store.exists, "AAAAA")

    async def public(self, code: str, address: str = "") -> out.TablePublic:
        return (await self.shown(code, address)).public()

    async def resume_all(self) -> None:
        """After a restart: read every unfinished table again and let its bots play on; then end
        those left idle while the server was down (:meth:`look_over`).

        The server answers meanwhile, not down for as long as replaying a server full of long games
        takes: each table is read in a reader's thread, one asked for first is read at once
        (:meth:`_read_once`), and those still to read count against ``--max-tables``.
        Several processes share them out instead: each claims the tables nobody owns.
        """
        if not self.cluster.several:
            await self._read_unfinished()
        await self.look_over()
        self.resumed.set()

    async def _read_unfinished(self) -> None:
        codes = await self._in_reader(self.store.unfinished)
        self._resuming = set(codes) - set(self.tables)
        for code in codes:
            try:
                table = await self.attached(code)
            except Exception as e:  # one table the engine refuses must not keep the others down
                if not (isinstance(e, TableError) and e.error == "no_table"):  # not gone meanwhile
                    log.warning("table %s is left as it is: it could not be resumed (%s)", code, e)
                continue
            finally:
                self._resuming.discard(code)
            if table.status == "playing":
                self.spawn(TableActor(table, self).advance())

    # -- seats -----------------------------------------------------------------

    # -- changes go through the table's owner -----------------------------------------

    async def _owned(self, code: str) -> bool:
        """Whether this process owns the table now, taking it if nobody does.

        A table found owned elsewhere is not tried again for a moment: its requests go
        straight to its owner (one that stops answering makes it tried at once). A table
        this process has just given away is left to the process it was given to.
        """
        if self.cluster.owns(code):
            return True
        if self.cluster.given(code) or time.monotonic() - self._elsewhere.get(code, -60.0) < 5:
            return False
        taking = self._taking.get(code)
        if taking is None:  # one claim at a time: the table is read once, its bots started once
            taking = self._taking[code] = asyncio.ensure_future(self._take(code))
            taking.add_done_callback(lambda _: self._taking.pop(code, None))
            taking.add_done_callback(read_quietly)  # its askers, if still there, are told the failure
        return await asyncio.shield(taking)

    async def _take(self, code: str) -> bool:
        if await self.cluster.claim(code):
            self._elsewhere.pop(code, None)
            await self.adopt(code)
            return True
        self._elsewhere[code] = time.monotonic()
        return False

    async def _change(self, code: str, command: Command, answer: type[A]) -> A:
        """Make a change here if this process owns the table, else ask its owner; its answer.

        An owner that does not answer may have died: the next try finds the table free
        (and takes it) or finds its new owner. A table on its way from one process to
        another is asked for again a moment later.
        """
        code = _checked(code)
        silent = 0
        ident = secrets.token_hex(8)  # the same on every try: the owner makes the change once
        for attempt in range(30):
            if await self._owned(code):
                try:
                    made = await self.handle(code, command)
                except Moved:  # given away while the request waited for the table
                    continue
                assert isinstance(made, answer)
                return made
            try:
                said = await self.cluster.request(code, command.kind, command.args(), ident)
            except TooLong as e:
                raise TableError("too_large", e.message, 413) from e
            except TimeoutError:
                silent += 1
                if silent == 3:
                    break
                self._elsewhere.pop(code, None)  # its owner may be gone: try to take it
                continue
            if "moved" in said:  # being given to another process: ask again, of the new owner
                self._elsewhere.pop(code, None)
                await asyncio.sleep(0.02 * (attempt + 1))
                continue
            if "error" in said:
                raise TableError(said["error"], said["message"], said["status"], said.get("words"))
            return answer.model_validate(said["result"])
        raise TableError("internal", Message("server.owner_silent"), 503)

    async def serve_request(self, code: str, kind: str, args: dict[str, Any]) -> dict[str, Any]:
        """A change asked by another process, as the wire carries it: its answer, as the wire does."""
        made = await self.handle(code, command(kind, args))
        return made.model_dump(mode="json")

    async def handle(self, code: str, asked: Command) -> Answer:
        """One change of a table this process owns, asked here or by another process."""
        table = await self.attached(code)  # read again after a restart: in a thread, not on the loop
        try:
            return await self._handled(table, asked)
        finally:
            self.forget_if_done(table)  # a finished table asked a change stays only while watched

    async def _handled(self, table: Table, asked: Command) -> Answer:
        match asked:
            case Join(token=None):  # a process of an earlier version (a rolling restart): drawn here
                return await self._handled(
                    table, asked.model_copy(update={"token": secrets.token_urlsafe(24)})
                )
            case Join() | Start() | Act() | Report() | Undo() | Back() | Hand():
                return await TableActor(table, self).handle(asked)
            case Rematch(token=token):
                return Rematched(code=await self._rematch(table, token))
            case Give(seat=seat):
                return Given(given=await self._give(table, seat))
            case _:
                assert_never(asked)
        return Done()

    async def join(self, code: str, name: str) -> tuple[str, int, str]:
        # The token is drawn here, once: asked again of another owner, the join finds its seat.
        seated = await self._change(code, Join(name=name, token=secrets.token_urlsafe(24)), Seated)
        return _checked(code), seated.seat, seated.token

    async def hand(self, code: str, token: str | None, seat: int) -> tuple[str, str]:
        """The table's code and the new token of ``seat``, handed by the player of ``token``."""
        # drawn here, once, as a join's: asked again of another owner, the seat is found handed
        handed = await self._change(code, Hand(token=token, seat=seat, new=secrets.token_urlsafe(24)), Seated)
        return _checked(code), handed.token

    async def start(self, code: str, token: str | None) -> out.TablePublic:
        await self._change(code, Start(token=token), Done)
        return await self.public(code)

    async def act(self, table: Table, seat: int | None, version: int, move: str | ActionMove) -> None:
        await self._change(table.code, Act(seat=seat, version=version, move=move), Done)

    async def report(self, table: Table, seat: int | None, version: int, text: str) -> None:
        await self._change(table.code, Report(seat=seat, version=version, turn=text), Done)

    async def undo(self, table: Table, seat: int | None, version: int) -> None:
        await self._change(table.code, Undo(seat=seat, version=version), Done)

    async def back(self, table: Table, seat: int | None) -> None:
        await self._change(table.code, Back(seat=seat), Done)

    async def rematch(self, code: str, token: str | None, address: str = "") -> str:
        """The table's rematch, made by its creator once the game is over (a new table: it counts
        against the tables ``address`` may make a minute, as :meth:`create` does)."""
        self._count_new(address)
        made = (await self._change(code, Rematch(token=token), Rematched)).code
        self.addresses.made(address, made)
        return made

    async def _give(self, table: Table, seat: int) -> bool:
        """A player of ``seat`` connected to another process, which asks for the table: it is
        given up if none of its players is connected here (else it stays, not to go back and
        forth). Under the lock, so between two steps and with every step written."""
        async with table.lock:
            self.owning(table)
            if 0 <= seat < len(table.seats) and table.seats[seat].away:
                table.seats[seat].away = False
                table.broadcast()
            if table.finished or table.seated_here:
                return False
            if table.timer is not None:
                table.timer.cancel()
            await self.cluster.release(table.code, given=True)  # bots and timers stop: they check
            self.forget_if_done(table)
            return True

    def owning(self, table: Table) -> None:
        """Under the table's lock, before changing it: still this process's (or :class:`Moved`), and
        still the server's (a table the housekeeping removed meanwhile is nobody's)."""
        if table.removed:
            raise TableError("no_table", Message("server.table_closed", {"code": repr(table.code)}), 404)
        if not self.cluster.owns(table.code):
            raise Moved(table.code)

    # -- news from other processes ---------------------------------------------------------

    def holds_copy(self, code: str) -> bool:
        return code in self.tables

    def copies(self) -> list[str]:
        return list(self.tables)

    async def caught_up(self, code: str, news: dict[str, Any] | None = None) -> None:
        """Another process changed a table: bring this process's copy up to the database's.

        ``news`` may bring the new steps: when they follow the copy's last one, they are applied
        without reading the database.
        """
        table = self.tables.get(code)
        if table is None or self.cluster.owns(code):
            return
        if not await TableActor(table, self).follow(news):  # expired: nobody started it
            self.tables.pop(code, None)

    async def adopt(self, code: str) -> None:
        """This process now owns a table (its owner died): read it again and play it on."""
        table = self.tables.get(code)
        if table is None:
            table = await self._kept(code)
            if table is None:
                await self.cluster.release(code)
                return
        else:
            async with table.lock:  # read under the lock: a step being written is then in the row
                if not await self.read_again(table):
                    return
        if table.status == "playing" and table.mode == "play":
            self.spawn(TableActor(table, self).advance())

    async def read_again(self, table: Table, *, if_changed: bool = False) -> bool:
        """Bring a copy up to the database (the steps after its last one, and that one to check it
        is still there) and show it; False if the table is no longer in the database.
        ``if_changed``: shown only if the database has a different number of steps."""
        since = max(0, table.version - 1)
        row = await self._read(table.code, since)
        if row is None:
            return False
        if not if_changed or len(row.steps) + since != table.version:
            self._refresh(table, row, since)
            table.broadcast()
        return True

    async def _read(self, code: str, since: int = 0) -> TableRow | None:
        """:meth:`Store.load` in a thread: the event loop goes on meanwhile."""
        return await self._in_reader(self.store.load, code, since)

    def owned(self) -> list[str]:
        return [code for code in self.tables if self.cluster.owns(code)]

    def disown_all(self) -> None:
        """This process lost its locks: it stops driving tables (their new owners will)."""
        for table in self.tables.values():
            if table.timer is not None:
                table.timer.cancel()

    def _refresh(self, table: Table, row: TableRow, since: int = 0) -> None:
        """Make a copy of a table what the database row says, steps included.

        ``row`` holds the steps from number ``since`` on: only what is new is read, unless
        the steps known here were taken back (an undo), and then the game is read again.
        """
        connected = {s.seat: s.connected for s in table.seats}
        table.seats = [
            TableSeat(
                s.seat,
                "bot" if s.kind == "bot" else "human",
                s.bot,
                s.name,
                s.token_hash,
                connected.get(s.seat, 0),
            )
            for s in row.seats
        ]
        table.status = _status(row.status)
        table.game_id, table.rematch, table.undo_from = row.game_id, row.rematch, row.undo_from
        saved = _timestamp(row.active_at or row.created_at)
        table.active, table.active_saved = max(table.active, saved), saved
        if table.status == "waiting":
            table.session, table.events = None, []
            return
        game = table.game
        known = game.steps[since:] if game is not None else []
        if game is None or row.steps[: len(known)] != known:  # new, or steps taken back
            if since:
                full = self.store.load(table.code)
                assert full is not None
                self._refresh(table, full)
                return
            table.session = self.session_of(table)
            game = table.session.game
            table.events = list(game.state.events)
            table.forget_log()
            known = []
        for step in row.steps[len(known) :]:
            game.apply_step(step)
            table.events.extend(game.state.events)
        table.let_go_of_states()

    # -- seats -----------------------------------------------------------------

    # -- connections -------------------------------------------------------------

    async def connect(self, table: Table, conn: Connection) -> None:
        """A new connection; under the table's lock, so that nobody is shown a step still being
        written (a commit waits on the database with the lock held)."""
        async with table.lock:
            if table.removed:  # closed by the housekeeping while this connection waited for it
                raise TableError("no_table", Message("server.table_closed", {"code": repr(table.code)}), 404)
            if conn.seat is None and table.spectators() >= self.limits.spectators:
                self.forget_if_done(table)  # read for this connection only
                raise TableError(
                    "too_many_spectators",
                    Message("server.spectators_full", {"most": self.limits.spectators}),
                    503,
                )
            table.connections.append(conn)
            if conn.seat is not None:
                table.active = time.time()
                seat = table.seats[conn.seat]
                seat.connected += 1
                seat.away = False  # coming back hands the seat back
                if not self.cluster.owns(table.code):
                    self.spawn(self._come_here(table.code, conn.seat))
            if table.code not in self.tables:
                self.tables[table.code] = table  # a finished table watched stays until nobody watches
            if conn.seat is None:
                table.send_to(conn)  # a spectator changes nothing the others see
                if table.spectators() == 1:
                    self._announce(table)  # but who is at the table is to be heard here now
            else:
                table.broadcast()  # the seat is now shown connected
                self._announce(table)

    async def disconnect(self, table: Table, conn: Connection) -> None:
        """The connection's seat let go, once the table is free: shielded, since a session may be
        cancelled again while it waits (a stopping server, anyio's cancel scopes). Left behind, the
        connection would hold its seat, and the table in this process, for good."""
        await asyncio.shield(self.spawn(self._disconnect(table, conn)))

    async def _disconnect(self, table: Table, conn: Connection) -> None:
        seat = conn.seat
        await TableActor(table, self).leave(conn)
        if seat is not None or not table.spectators():
            self._announce(table)

    # -- seats held through other processes ----------------------------------------

    def _announce(self, table: Table) -> None:
        """Tell the other processes the seats of ``table`` held here, and whether a page here shows
        it, where they need it: its owner is another process, or another process said it holds
        seats of it or shows it (a spectator's page there shows who is at the table)."""
        if self.cluster.several and (not self.cluster.owns(table.code) or table.elsewhere):
            self.spawn(self.cluster.announce(table.code, table.seats_here, table.spectators() > 0))

    def heard_presence(self, by: str, code: str, seats: list[int], watching: bool = False) -> None:
        table = self.tables.get(code)
        if table is None:
            return
        before = self._present(table)
        first = by not in table.elsewhere
        if seats or watching:  # a process that only watches holds none: it is told those held here
            table.elsewhere[by] = (frozenset(seats), time.monotonic() + PRESENCE_LEASE)
        else:
            table.elsewhere.pop(by, None)
        if first and (seats or watching) and table.seats_here:
            self._announce(table)  # its pages show who is here too
        after = self._present(table)
        if after != before:
            self.spawn(self._presence_shown(table, before - after))

    def _present(self, table: Table) -> set[int]:
        return {s.seat for s in table.seats if table.present(s.seat)}

    async def keep_presence(self) -> None:
        """Say again every PRESENCE_SECONDS the seats held here of tables others need them of, and
        count as gone those another process no longer said in time."""
        while True:
            await asyncio.sleep(PRESENCE_SECONDS)
            now = time.monotonic()
            for table in list(self.tables.values()):
                ran_out = [seats for seats, until in table.elsewhere.values() if until <= now]
                if ran_out:
                    table.elsewhere = {by: held for by, held in table.elsewhere.items() if held[1] > now}
                    gone = {seat for seats in ran_out for seat in seats if not table.present(seat)}
                    if gone:
                        self.spawn(self._presence_shown(table, gone))
                if table.seats_here or (table.spectators() and not self.cluster.owns(table.code)):
                    self._announce(table)

    async def _presence_shown(self, table: Table, gone: set[int]) -> None:
        """Who is at the table changed through another process: every page here shows it, and a
        player gone on their turn has GONE_SECONDS before a bot plays it."""
        async with table.lock:
            if table.removed or self.tables.get(table.code) is not table:
                return
            table.broadcast()
            actor = TableActor(table, self)
            for seat in gone:
                actor.if_gone(seat)

    async def _come_here(self, code: str, seat: int) -> None:
        """A seated player connected here to a table owned elsewhere: their seat is theirs again,
        and the table comes here if its owner has none of its players."""
        with contextlib.suppress(TableError, TimeoutError):
            if await self._owned(code):
                return  # nobody held it: it is here now
            with self.cluster.asking_for(code):
                try:
                    answer = await self.cluster.request(code, "give", Give(seat=seat).args())
                except TimeoutError:
                    answer = {"result": {"given": None}}  # a busy owner may give it all the same, later
                given = answer.get("result", {}).get("given", False)
                if given is False:
                    return  # kept by its owner, or refused
                # given, or perhaps given after the wait: a claim is one statement, and a table given
                # must not stay without an owner until a scan finds it
                for pause in (0.0, 0.2, 1.0, 3.0):
                    await asyncio.sleep(pause)
                    self._elsewhere.pop(code, None)
                    if await self._owned(code) or given:
                        return

    def forget_if_done(self, table: Table) -> None:
        """A table nobody here watches leaves memory if it is finished, or owned by another process:
        the database has it all."""
        if table.connections or self.tables.get(table.code) is not table:
            return
        owned = self.cluster.owns(table.code)
        if owned and not table.finished:
            return
        del self.tables[table.code]
        if table.timer is not None:
            table.timer.cancel()
        if owned:
            self.spawn(self.cluster.release(table.code))

    # -- playing -----------------------------------------------------------------

    def spawn(self, coro: Awaitable[None]) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[None]) -> None:
        self.tasks.discard(task)
        said_if_failed(task)

    # -- housekeeping ----------------------------------------------------------------

    @property
    def housekeeping_seconds(self) -> float:
        """How often the tables are looked over: every minute, or four times within the shortest
        time a table is given (so that a table ends within a quarter of that time of its due)."""
        shortest = min(self.limits.waiting_minutes, self.limits.idle_minutes) * 60
        return min(60.0, shortest / 4)

    async def housekeeping(self) -> None:
        while True:
            await asyncio.sleep(self.housekeeping_seconds)
            await self.look_over()

    async def look_over(self) -> None:
        """:meth:`keep_house`, a failure said and left to the next time (the server serves on)."""
        try:
            await self.keep_house()
        except SQLAlchemyError as e:  # the database is away: try again next time
            log.warning("the tables were not looked over: %s", first_line(e))
        except Exception:  # a fault of the server's: said, and the next round goes on
            log.exception("the tables were not looked over")

    async def keep_house(self, now: float | None = None) -> list[str]:
        """Tell the database which tables were active, then end those nobody started, or nobody
        played at, in time; returns the codes of the tables ended.

        The database's work is done in the writer's thread, many tables a transaction, so that no
        answer waits on it; each table is locked while it is ended, so no step of it is written
        meanwhile. Idle time counts from the database: a restart does not start it again.
        """
        now = time.time() if now is None else now
        self.addresses.forget_idle(live=self._live_here)
        recent = time.monotonic() - 60
        self._elsewhere = {code: t for code, t in self._elsewhere.items() if t > recent}
        await self._save_activity(now)
        found = await self.writer.in_thread(
            self.store.idle,
            _iso(now - self.limits.waiting_minutes * 60),
            _iso(now - self.limits.idle_minutes * 60),
        )
        ended: list[str] = []
        batch = self.batch
        for i in range(0, len(found), batch):
            ended += await self._end([code for code, _ in found[i : i + batch]], now)
        return ended

    @property
    def batch(self) -> int:
        """Tables ended a transaction: on SQLite the event loop's own writes wait for the thread's
        transaction (tens of milliseconds for 20 games into the history), so fewer there."""
        return BATCH if not self.writer.at_once else BATCH // 10

    async def _save_activity(self, now: float) -> None:
        """Tables at which a person acted here: the database is told, a table once in a quarter of
        the idle time at most (ten minutes by default), a batch a transaction. The owner knows of
        every move (they are made there), so a table is never ended while played. A page open and
        silent keeps nothing alive: a tab forgotten, or a script holding sockets, would hold its
        tables for ever."""
        every = min(self.limits.idle_minutes * 60 / 4, TOUCH_SECONDS)
        due = []
        for table in self.tables.values():
            if table.status not in LIVE:
                continue
            if table.active - table.active_saved >= every:
                due.append(table)
        batch = self.batch
        for i in range(0, len(due), batch):
            some = due[i : i + batch]
            await self.writer.in_thread(self.store.touch, [(t.code, _iso(t.active)) for t in some])
            for table in some:
                table.active_saved = table.active

    async def _end(self, codes: list[str], now: float) -> list[str]:
        """End the tables among ``codes`` that this process owns and that are still due.

        Under their locks: ownership and the due time are looked at again there (a table may have
        been given to another process, or played, meanwhile), the database changes only tables
        still as they were, and memory follows each write at once.
        """
        tables = [self.tables[c] for c in codes if c in self.tables]
        async with contextlib.AsyncExitStack() as locked:
            for table in tables:
                await locked.enter_async_context(table.lock)
            mine = [t for t in tables if self.cluster.owns(t.code) and self.tables.get(t.code) is t]
            waiting_limit = self.limits.waiting_minutes * 60
            waiting = [t for t in mine if t.status == "waiting" and now - t.created >= waiting_limit]
            idle = [
                t
                for t in mine
                if t.status == "playing"
                and t.game is not None
                and (
                    now - t.active >= self.limits.idle_minutes * 60
                    or len(t.game.steps) >= self.limits.steps_per_table
                )
            ]
            if waiting:
                removed = set(await self.writer.in_thread(self.store.delete_many, [t.code for t in waiting]))
                waiting = [t for t in waiting if t.code in removed]
                said = Message("server.not_started_in_time", {"minutes": self.limits.waiting_minutes})
                for table in waiting:
                    table.removed = True
                    self.tables.pop(table.code, None)
                    for conn in list(table.connections):
                        conn.close_after("no_table", said)
                    self.spawn(self.cluster.release(table.code))
            games: list[tuple[str, GameRows]] = []
            for t in idle:
                assert t.game is not None
                rows = game_rows(
                    t.game, bots=bots_of(t), source="online", meta=t.record_meta(), abandoned=True
                )
                games.append((t.code, rows))
            numbers = dict(await self.writer.in_thread(self.store.abandon, games)) if games else {}
            idle = [t for t in idle if t.code in numbers]
            for table in idle:
                table.status, table.game_id = "abandoned", numbers[table.code]
                table.let_go_of_states()
                if table.timer is not None:
                    table.timer.cancel()
                table.broadcast()  # its watchers see it ended, and its seed
        for table in idle:
            self.forget_if_done(table)
        return [t.code for t in (*waiting, *idle)]

    def end_soon(self, table: Table) -> None:
        """End ``table``, abandoned, once its lock is free: its game reached the steps a table may take."""

        async def end() -> None:
            await self._end([table.code], time.time())

        self.spawn(end())

    async def close(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        self.optimal.close()
        self.policies.close()
        await self.writer.aclose()
        for _ in range(2):  # each reading thread closes its connection
            self._readers.submit(self.store.close)
        self._readers.shutdown(wait=True)

    # -- after the game ------------------------------------------------------------

    async def _rematch(self, table: Table, token: str | None) -> str:
        """The code of the table's rematch, made by the first to ask: under the table's lock, so a
        second ask while the first is written finds it made."""
        async with table.lock:
            TableActor(table, self).creator(token)
            self.owning(table)
            if table.status != "over":
                raise TableError("not_over", Message("server.rematch_after"), 409)
            if table.rematch:
                return table.rematch
            self._room()
            seed = self._seed()
            drawn = hashlib.sha256(seed.encode()).hexdigest()
            seats = [TableSeat(s.seat, s.kind, s.bot, s.name, s.token_hash) for s in table.seats]
            for s in seats:
                if s.kind == "bot":
                    s.name = None  # named again when the rematch starts
            new = Table(
                self._new_code(), table.mode, table.rules, seats, seed, drawn, table.timeout,
                created=time.time(), hints=table.hints,
            )  # fmt: skip
            self._keeping_score(new)
            await self._store_new(new)
            await self.writer.call(self.store.set_table, table.code, rematch=new.code)
            self.tables[new.code] = new
            table.rematch = new.code
            table.broadcast()
            return new.code

    async def record(self, code: str, address: str = "") -> dict[str, Any]:
        table = await self.shown(code, address)
        if not table.finished or table.game is None:
            raise TableError("not_over", Message("server.record_after"), 409)
        return table.game.record(table.record_meta()).to_dict()


def _steps_read(reading: asyncio.Future[Table | None]) -> int:
    """The steps a reading replayed (none where it failed or found no table)."""
    if reading.cancelled() or reading.exception() is not None:
        return 0
    table = reading.result()
    return table.version if table is not None else 0


class _Turn:
    """One address's readings of tables, made one after another: who waits, and the lock."""

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


def _rules(name: str, settings: list[str]) -> Ruleset:
    try:
        return Ruleset.preset(name).with_settings(settings)
    except Py421Error as e:
        raise TableError.of("bad_rules", e) from e


def _seat(i: int, spec: str) -> TableSeat:
    """A seat from its spec: ``human`` or a bot (read by :func:`py421.players.parse_bot`)."""
    if spec == "human":
        return TableSeat(i, "human")
    try:
        level = parse_bot(spec)
    except Py421Error:
        level = None
    if level is None:
        raise TableError(
            "bad_seats", Message("server.unknown_seat", {"spec": repr(spec), "accepted": accepted()})
        )
    return TableSeat(i, "bot", level)


def _check_distinct(names: list[str]) -> None:
    folded = [name_key(n) for n in names]
    for name in names:
        if folded.count(name_key(name)) > 1:
            raise TableError("name_taken", Message("players.repeated", {"name": repr(name)}))


def _checked(code: str) -> str:
    """A table's code in capitals, or the refusal a code that cannot be one gets."""
    if not _CODE.fullmatch(code):
        raise TableError("no_table", Message("server.bad_code", {"code": repr(code[:20])}), 404)
    return code.upper()


def _kind(text: str) -> Literal["human", "bot"]:
    return "bot" if text == "bot" else "human"


def _status(text: str) -> Status:
    found: Status
    for found in ("over", "abandoned", "playing"):
        if text == found:
            return found
    return "waiting"


def _iso(when: float) -> str:
    """A time as the database keeps it (ISO 8601, UTC, to the second: such texts compare in order)."""
    return datetime.fromtimestamp(when, UTC).isoformat(timespec="seconds")


def _timestamp(iso: str) -> float:
    try:
        return datetime.fromisoformat(iso).timestamp()
    except ValueError:
        return time.time()
