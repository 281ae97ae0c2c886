"""Online tables in play: who sits where, the game, the server's dice and the bots.

The hub is the only place the server changes a game. Every change goes
through :meth:`Hub._commit`: the step (and the server's dice it calls for) is
applied to the game, written to the database, and only then broadcast; if
the write fails the steps are undone.
Bots, players who timed out and the server's dice move the game on in
:meth:`Hub.advance`, one step at a time, under the table's lock.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Any, Literal

from ..core.actions import parse_action
from ..core.chance import SeededDice
from ..core.errors import Py421Error
from ..core.events import Event
from ..core.game import Game
from ..core.record import Record
from ..core.rules import Ruleset
from ..core.views import seat_view
from ..players import BOTS, Player, make_bot
from ..storage import History
from ..text import describe
from .store import SeatRow, Store, TableRow, now

log = logging.getLogger(__name__)
CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # no I or O: read aloud without doubt
NAME_MAX = 24
LOG_LINES = 50
Status = Literal["waiting", "playing", "over"]


class TableError(Exception):
    """A refused request: ``error`` is a stable code, ``message`` says what is accepted."""

    def __init__(self, error: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.error, self.message, self.status = error, message, status


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def clean_name(raw: object) -> str:
    name = " ".join(str(raw).split()) if isinstance(raw, str) else ""
    if not 1 <= len(name) <= NAME_MAX:
        raise TableError("bad_name", f"a name is 1 to {NAME_MAX} characters, not {len(name)}")
    return name


@dataclass
class Seat:
    seat: int
    kind: Literal["human", "bot"]
    bot: str | None = None  # the bot's level (and the level that plays for an away human)
    name: str | None = None
    token_hash: str | None = None
    connected: int = 0  # open connections holding this seat
    away: bool = False  # timed out: a bot plays for them until they act again

    def row(self) -> SeatRow:
        return SeatRow(self.seat, self.kind, self.bot, self.name, self.token_hash)


@dataclass
class Connection:
    send: Callable[[dict[str, Any]], Awaitable[None]]
    seat: int | None
    lang: str
    log_sent: int = 0  # lines of the table's log this connection already has
    # Messages are built and sent one at a time, so each continues the log of the last.
    sending: asyncio.Lock = field(default_factory=asyncio.Lock)


@dataclass
class Table:
    code: str
    mode: Literal["play", "scorekeeper"]
    rules: Ruleset
    seats: list[Seat]
    seed: str
    seed_hash: str
    timeout: int
    status: Status = "waiting"
    first_seat: int = 0
    rematch: str | None = None
    game: Game | None = None
    bots: dict[int, Player] = field(default_factory=dict)
    connections: list[Connection] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    events: list[Event] = field(default_factory=list)
    timer: asyncio.Task[None] | None = None
    _log: dict[str, list[str]] = field(default_factory=dict)

    @property
    def version(self) -> int:
        return self.game.state.steps if self.game else 0

    @cached_property
    def options(self) -> dict[str, Any]:
        return self.rules.changed_options()

    def seat_of(self, token: str | None) -> int | None:
        if not token:
            return None
        wanted = hash_token(token)
        return next((s.seat for s in self.seats if s.token_hash == wanted), None)

    def public(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "mode": self.mode,
            "rules": self.rules.name,
            "options": self.options,
            "status": self.status,
            "timeout": self.timeout,
            "seats": [
                {
                    "seat": s.seat,
                    "kind": s.kind,
                    "bot": s.bot if s.kind == "bot" else None,
                    "name": s.name,
                    "taken": s.kind == "bot" or s.token_hash is not None or self.mode == "scorekeeper",
                    "connected": s.connected > 0,
                    "away": s.away,
                }
                for s in self.seats
            ],
            "seed_hash": self.seed_hash,
            "seed": self.seed if self.status == "over" else None,
            "version": self.version,
            "rematch": self.rematch,
        }

    def log(self, lang: str) -> list[str]:
        """The game's whole log, each event described once per language."""
        names = self.game.players if self.game else ()
        lines = self._log.setdefault(lang, [])
        lines.extend(describe(e, names, lang) for e in self.events[len(lines) :])
        return lines

    def forget_log(self) -> None:
        """The events were rewritten (an undo): describe them again and resend the log."""
        self._log.clear()
        for conn in self.connections:
            conn.log_sent = 0

    def message(self, conn: Connection, public: dict[str, Any] | None = None) -> dict[str, Any]:
        """What one connection is sent; ``public``: the table, when already built for others.

        The log goes as the lines the connection does not have yet (at most the last
        ``LOG_LINES``), with ``log_start``, the number of the first line sent.
        """
        lines = self.log(conn.lang)
        start = max(conn.log_sent, len(lines) - LOG_LINES)
        conn.log_sent = len(lines)
        view = seat_view(self.game.state, conn.seat) if self.game else None
        table = public or self.public()
        return {
            "type": "table",
            "table": table,
            "view": view,
            "version": self.version,
            "log_start": start,
            "log": lines[start:],
        }


MAX_SEATS = 20  # an online table's most players, whatever the rules allow (a bar table is ten)


class Hub:
    """Every live table, and the rules of changing them."""

    def __init__(
        self, store: Store, history: History, *, bot_delay: float = 0.6, seeds: Iterator[str] | None = None
    ) -> None:
        self.store = store
        self.seeds = seeds  # tests fix the dice; otherwise every table draws a secret seed
        self.history = history
        self.bot_delay = bot_delay
        self.tables: dict[str, Table] = {}
        self.tasks: set[asyncio.Task[None]] = set()

    # -- creating and loading ------------------------------------------------

    def _new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_LETTERS) for _ in range(5))
            if code not in self.tables and not self.store.exists(code):
                return code

    def create(self, request: dict[str, Any]) -> tuple[Table, str]:
        """A new table from a validated request; returns it and the creator's token."""
        mode = request.get("mode", "play")
        if mode not in ("play", "scorekeeper"):
            raise TableError("malformed", f"mode is 'play' or 'scorekeeper', not {mode!r}")
        rules = _rules(request.get("rules", "classic-11"), request.get("settings", []))
        token = secrets.token_urlsafe(24)
        if mode == "scorekeeper":
            names = request.get("players")
            if not isinstance(names, list):
                raise TableError("malformed", "players: a list of names, in seating order")
            seats = [Seat(i, "human", name=clean_name(n)) for i, n in enumerate(names)]
            _check_count(rules, len(seats))
            seats[0].token_hash = hash_token(token)
        else:
            kinds = request.get("seats", ["human", "bot:heuristic"])
            if not isinstance(kinds, list) or not all(isinstance(k, str) for k in kinds):
                raise TableError("malformed", "seats: a list like ['human', 'bot:heuristic']")
            _check_count(rules, len(kinds))
            seats = [_seat(i, k) for i, k in enumerate(kinds)]
            if seats[0].kind != "human":
                raise TableError("bad_seats", "the first seat is the creator's: 'human'")
            seats[0].name = clean_name(request.get("name"))
            seats[0].token_hash = hash_token(token)
        timeout = request.get("timeout", 60)
        if not isinstance(timeout, int) or not (timeout == 0 or 10 <= timeout <= 3600):
            raise TableError("malformed", f"timeout: 0 (none) or 10 to 3600 seconds, not {timeout!r}")
        seed = self._seed()
        table = Table(
            self._new_code(), mode, rules, seats, seed, hashlib.sha256(seed.encode()).hexdigest(), timeout
        )
        self.store.create(self._row(table))
        self.tables[table.code] = table
        if mode == "scorekeeper":
            self._begin_game(table)
        return table, token

    def _seed(self) -> str:
        return next(self.seeds) if self.seeds is not None else secrets.token_hex(32)

    def _row(self, t: Table) -> TableRow:
        return TableRow(
            t.code, now(), t.mode, t.rules.to_dict(), t.status, t.seed, t.seed_hash, t.timeout,
            t.first_seat, t.rematch, None, [s.row() for s in t.seats], [],
        )  # fmt: skip

    def load(self, code: str) -> Table | None:
        """A table, from memory or rebuilt from the database by replaying its steps."""
        table = self.tables.get(code)
        if table is not None:
            return table
        row = self.store.load(code)
        if row is None:
            return None
        rules = Ruleset.from_mapping(row.rules)
        seats = [
            Seat(s.seat, "bot" if s.kind == "bot" else "human", s.bot, s.name, s.token_hash)
            for s in row.seats
        ]
        table = Table(
            row.code,
            "scorekeeper" if row.mode == "scorekeeper" else "play",
            rules,
            seats,
            row.seed,
            row.seed_hash,
            row.timeout,
            "over" if row.status == "over" else "playing" if row.status == "playing" else "waiting",
            row.first_seat,
            row.rematch,
        )
        if table.status != "waiting":
            self._make_game(table)
            assert table.game is not None
            for step in row.steps:
                table.game.apply_step(step)
                table.events.extend(table.game.state.events)
        self.tables[code] = table
        return table

    def get(self, code: str) -> Table:
        table = self.load(code.upper())
        if table is None:
            raise TableError("no_table", f"there is no table {code!r}", 404)
        return table

    def resume_all(self) -> None:
        """After a restart: load every unfinished table and let its bots play on."""
        for code in self.store.unfinished():
            try:
                table = self.load(code)
            except Exception as e:  # one table the engine refuses must not keep the others down
                log.warning("table %s is left as it is: it could not be resumed (%s)", code, e)
                continue
            if table is not None and table.status == "playing":
                self.spawn(self.advance(table))

    # -- seats -----------------------------------------------------------------

    def join(self, code: str, name: object) -> tuple[Table, int, str]:
        table = self.get(code)
        clean = clean_name(name)
        if table.mode != "play" or table.status != "waiting":
            raise TableError("not_waiting", "this table is not waiting for players; watch it instead", 409)
        free = next((s for s in table.seats if s.kind == "human" and s.token_hash is None), None)
        if free is None:
            raise TableError("full", "every seat is taken; watch the table instead", 409)
        if any(s.name == clean for s in table.seats):
            raise TableError("name_taken", f"{clean!r} already sits at this table; choose another name", 409)
        token = secrets.token_urlsafe(24)
        free.name, free.token_hash = clean, hash_token(token)
        self.store.set_seats(table.code, [free.row()])
        return table, free.seat, token

    def creator(self, table: Table, token: str | None) -> None:
        if table.seat_of(token) != 0:
            raise TableError("not_creator", "only the table's creator may do this", 403)

    async def start(self, code: str, token: str | None) -> Table:
        table = self.get(code)
        self.creator(table, token)
        async with table.lock:
            if table.status != "waiting":
                raise TableError("not_waiting", f"the game is already {table.status}", 409)
            counts: dict[str, int] = {}
            for s in table.seats:  # nobody came: a bot plays the seat
                if s.kind == "human" and s.token_hash is None:
                    s.kind, s.bot = "bot", "heuristic"
                if s.kind == "bot":
                    level = s.bot or "heuristic"
                    counts[level] = counts.get(level, 0) + 1
                    s.name = f"{level.capitalize()} {counts[level]}"
            self.store.set_seats(table.code, [s.row() for s in table.seats])
            await self._prepare_bots(table)
            self._begin_game(table)
        await self.broadcast(table)
        self.spawn(self.advance(table))
        return table

    async def _prepare_bots(self, table: Table) -> None:
        if any(s.bot == "optimal" for s in table.seats):
            from ..players.optimal import prepare

            try:  # a first solve can take a while: not on the event loop
                await asyncio.to_thread(prepare, table.rules, len(table.seats))
            except Py421Error as e:
                raise TableError("bad_seats", str(e)) from e

    def _begin_game(self, table: Table) -> None:
        table.status = "playing"
        self._make_game(table)
        self.store.set_table(table.code, status="playing")

    def _make_game(self, table: Table) -> None:
        names = [s.name or f"Seat {s.seat + 1}" for s in table.seats]
        table.game = Game(table.rules, names, first_seat=table.first_seat)
        table.events = list(table.game.state.events)
        table.bots = {s.seat: make_bot(s.bot or "heuristic", f"{table.seed}:{s.seat}") for s in table.seats}

    # -- connections -------------------------------------------------------------

    async def connect(self, table: Table, conn: Connection) -> None:
        table.connections.append(conn)
        if conn.seat is not None:
            seat = table.seats[conn.seat]
            seat.connected += 1
            seat.away = False  # coming back hands the seat back
        await self.broadcast(table)

    async def disconnect(self, table: Table, conn: Connection) -> None:
        if conn in table.connections:
            table.connections.remove(conn)
            if conn.seat is not None:
                table.seats[conn.seat].connected -= 1
            await self.broadcast(table)
            self._forget_if_done(table)

    def _forget_if_done(self, table: Table) -> None:
        """A finished table nobody watches leaves memory: the database has it all.

        Without this a long-running server would keep every game it ever hosted."""
        if table.status == "over" and not table.connections and self.tables.get(table.code) is table:
            del self.tables[table.code]
            if table.timer is not None:
                table.timer.cancel()

    async def broadcast(self, table: Table) -> None:
        public = table.public()  # the same for every connection
        for conn in list(table.connections):
            try:
                async with conn.sending:
                    await conn.send(table.message(conn, public))
            except Exception:  # a closed socket: its handler removes it
                continue

    # -- playing -----------------------------------------------------------------

    async def act(self, table: Table, seat: int | None, version: object, text: object) -> None:
        """A player's action, from their own seat only."""
        async with table.lock:
            game = self._playing(table, seat, version)
            if table.mode != "play":
                raise TableError("unknown_type", "a scorekeeper table takes 'report' and 'undo'")
            if not isinstance(text, str):
                raise TableError("malformed", "action: text such as 'keep 42', 'throw' or 'stop'")
            assert seat is not None
            table.seats[seat].away = False  # acting hands the seat back
            state = game.state
            if state.to_move != seat:
                raise TableError("not_your_turn", "it is not your turn to decide")
            try:
                action = parse_action(text)
            except Py421Error as e:
                raise TableError("illegal", str(e)) from e
            await self._commit(table, lambda: game.act(action))
        self.spawn(self.advance(table))

    async def report(self, table: Table, seat: int | None, version: object, text: object) -> None:
        """Scorekeeper: the creator reports what the real dice showed."""
        async with table.lock:
            game = self._playing(table, seat, version)
            if table.mode != "scorekeeper":
                raise TableError("unknown_type", "'report' is for scorekeeper tables; send 'act'")
            if seat != 0:
                raise TableError("not_creator", "only the table's creator reports turns")
            if not isinstance(text, str) or not text.strip():
                raise TableError("malformed", "turn: a result like 421, 654/2, 123;221;421 or 555/2 bon")
            request = game.state.chance
            if request is None:
                await self._commit(table, lambda: game.act(text))
            elif request.purpose == "turn":
                await self._commit(table, lambda: game.report_turn(text))
            else:
                await self._commit(table, lambda: game.throw(text))

    async def undo(self, table: Table, seat: int | None, version: object) -> None:
        async with table.lock:
            game = self._playing(table, seat, version, over_ok=True)
            if table.mode != "scorekeeper" or seat != 0:
                raise TableError("not_creator", "only a scorekeeper table's creator may undo")
            if not game.steps:
                raise TableError("illegal", "nothing to undo")
            n = len(game.steps) - 1
            self.store.remove_steps_from(table.code, n)
            game.undo()
            table.events = [e for s in game.states for e in s.events]
            table.forget_log()
            if table.status == "over":
                table.status = "playing"
                self.store.set_table(table.code, status="playing")
        await self.broadcast(table)

    def _playing(self, table: Table, seat: int | None, version: object, over_ok: bool = False) -> Game:
        if seat is None:
            raise TableError("spectator", "spectators watch; join the table to play")
        if table.status == "waiting" or table.game is None:
            raise TableError("not_started", "the game has not started yet")
        if table.status == "over" and not over_ok:
            raise TableError("over", "the game is over")
        if not isinstance(version, int) or isinstance(version, bool):
            raise TableError("malformed", "version: the number of the last state you saw")
        if version != table.version:
            raise TableError(
                "stale", f"you saw version {version}; the table is at {table.version}: look again"
            )
        return table.game

    async def _commit(self, table: Table, apply: Callable[[], object]) -> None:
        """Apply one step, then the server's dice it calls for; write them all in one
        transaction, then tell everyone. A failed write undoes every one of them."""
        game = table.game
        assert game is not None
        before = len(game.steps)
        try:
            apply()
        except Py421Error as e:
            raise TableError("illegal", str(e)) from e
        while table.mode == "play" and (request := game.state.chance) is not None:
            game.throw(SeededDice(table.seed).throw(request))  # thrown at once: nobody waits for dice
        new = game.steps[before:]
        try:
            self.store.add_steps(table.code, before, new)
        except Exception:
            for _ in new:
                game.undo()
            raise
        for state in game.states[-len(new) :]:
            table.events.extend(state.events)
        if game.state.is_over:
            self._finish(table)
        await self.broadcast(table)
        self._forget_if_done(table)

    def _finish(self, table: Table) -> None:
        assert table.game is not None
        table.status = "over"
        bots = {s.seat: s.bot or "heuristic" for s in table.seats if s.kind == "bot"}
        game_id = self.history.add(table.game, bots=bots, source="online")
        self.store.set_table(table.code, status="over", game_id=game_id)

    async def advance(self, table: Table) -> None:
        """Throw the server's dice and play the bots' (and away players') moves."""
        while True:
            async with table.lock:
                game = table.game
                if game is None or table.status != "playing" or table.mode != "play":
                    return
                state = game.state
                request = state.chance
                if request is not None:
                    faces = SeededDice(table.seed).throw(request)
                    await self._commit(table, partial(game.throw, faces))
                    continue
                seat = state.to_move
                assert seat is not None
                s = table.seats[seat]
                if s.kind == "human" and not s.away:
                    self._start_timer(table, seat)
                    return
                step = state.steps
            await asyncio.sleep(self.bot_delay)
            async with table.lock:
                if game.state.steps != step or table.status != "playing":
                    continue  # someone else moved meanwhile
                s = table.seats[seat]
                if s.kind == "human" and not s.away:
                    continue
                await self._commit(table, partial(game.act, table.bots[seat].choose(game.state)))

    def _start_timer(self, table: Table, seat: int) -> None:
        if table.timer is not None:
            table.timer.cancel()
        if not table.timeout or table.game is None:
            return
        step = table.game.state.steps

        async def expire() -> None:
            await asyncio.sleep(table.timeout)
            async with table.lock:
                game = table.game
                if game is None or game.state.steps != step or game.state.to_move != seat:
                    return
                table.seats[seat].away = True  # a bot plays for them until they act again
            await self.broadcast(table)
            await self.advance(table)

        table.timer = self.spawn(expire())

    def spawn(self, coro: Awaitable[None]) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    # -- after the game ------------------------------------------------------------

    async def rematch(self, code: str, token: str | None) -> Table:
        table = self.get(code)
        self.creator(table, token)
        if table.status != "over":
            raise TableError("not_over", "a rematch is offered once the game is over", 409)
        if table.rematch:
            return self.get(table.rematch)
        seed = self._seed()
        seats = [Seat(s.seat, s.kind, s.bot, s.name, s.token_hash) for s in table.seats]
        new = Table(
            self._new_code(), table.mode, table.rules, seats, seed, hashlib.sha256(seed.encode()).hexdigest(),
            table.timeout,
        )  # fmt: skip
        self.store.create(self._row(new))
        self.tables[new.code] = new
        table.rematch = new.code
        self.store.set_table(table.code, rematch=new.code)
        await self.broadcast(table)
        return new

    def record(self, code: str) -> dict[str, Any]:
        table = self.get(code)
        if table.status != "over" or table.game is None:
            raise TableError("not_over", "the record and the seed are published once the game is over", 409)
        meta = {"table": table.code, "seed": table.seed, "seed_hash": table.seed_hash, "dice": "hmac-sha256"}
        return table.game.record(meta).to_dict()


def _rules(name: object, settings: object) -> Ruleset:
    if not isinstance(name, str):
        raise TableError("malformed", "rules: a preset name such as 'classic-11'")
    if not isinstance(settings, list) or not all(isinstance(s, str) for s in settings):
        raise TableError("malformed", "settings: a list like ['pot=21']")
    try:
        return Ruleset.preset(name).with_settings(settings)
    except Py421Error as e:
        raise TableError("bad_rules", str(e)) from e


def _check_count(rules: Ruleset, n: int) -> None:
    if not rules.seats(n):
        raise TableError("bad_seats", f"{rules.name} is played by {rules.players_range} players, not {n}")
    if n > MAX_SEATS:
        raise TableError("bad_seats", f"an online table seats at most {MAX_SEATS} players, not {n}")


def seats_limit(rules: Ruleset) -> int:
    """The most players an online table of these rules seats."""
    return min(rules.max_players or MAX_SEATS, MAX_SEATS)


def _seat(i: int, kind: str) -> Seat:
    if kind == "human":
        return Seat(i, "human")
    level = kind[4:] if kind.startswith("bot:") else ""
    if level not in BOTS:
        accepted = ", ".join(["human", *(f"bot:{k}" for k in BOTS)])
        raise TableError("bad_seats", f"unknown seat {kind!r}; accepted: {accepted}")
    return Seat(i, "bot", level)


def verify(record: Record) -> list[str]:
    """Check a record's seed against its hash and every throw against the seed.

    Returns the problems found (none: the dice were fair).
    """
    from ..core.chance import faces_for
    from ..core.dice import format_dice

    seed = record.meta.get("seed")
    seed_hash = record.meta.get("seed_hash")
    if not isinstance(seed, str) or not isinstance(seed_hash, str):
        return ["the record holds no seed and seed hash: it is not from an online table"]
    problems = []
    if hashlib.sha256(seed.encode()).hexdigest() != seed_hash:
        problems.append("the seed does not match the hash published at the start")
    game = Game(record.rules, record.players, first_seat=record.first_seat)
    for i, step in enumerate(record.steps):
        if step.kind == "dice":
            request = game.state.chance
            assert request is not None
            expected = format_dice(faces_for(seed, request.step, request.count))
            if step.text != expected:
                problems.append(f"step {i}: the record says {step.text}, the seed gives {expected}")
        game.apply_step(step)
    return problems
