"""The server's database: online tables, their seats and every step played.

One code path for SQLite and PostgreSQL (SQLAlchemy Core); the schema is
created and upgraded by the Alembic migrations in ``migrations/``. Every
accepted step is committed before anyone is told of it, so a restart
rebuilds each table by replaying its steps.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import (
    Boolean,
    Column,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    bindparam,
    create_engine,
    delete,
    event,
    false,
    func,
    select,
)
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError

from ..core.errors import Message, Py421Error
from ..core.game import Step
from ..extras import install_command
from ..history import GameRows, game_players, games, insert_game, upgrade

metadata = MetaData()

online_tables = Table(
    "online_tables",
    metadata,
    Column("code", String(8), primary_key=True),
    Column("created_at", String(32), nullable=False),
    Column("mode", String(16), nullable=False),  # "play" or "scorekeeper"
    Column("rules", Text, nullable=False),  # JSON: the ruleset's options
    Column("status", String(16), nullable=False),  # "waiting", "playing", "over" or "abandoned"
    Column("seed", String(64), nullable=False),  # secret until the game is over
    Column("seed_hash", String(64), nullable=False),
    Column("timeout", Integer, nullable=False),
    Column("first_seat", Integer, nullable=False),
    Column("rematch", String(8)),
    Column("game_id", Integer),  # in the history, once over
    Column("hints", Boolean, nullable=False, server_default=false()),  # its players see their choices ranked
    # when a person last acted there or was seen connected: a table idle too long is ended
    Column("active_at", String(32)),
    # a scorekeeper's steps before a phone watching took the score: its undo stops there
    Column("undo_from", Integer, nullable=False, server_default="0"),
    Index("online_tables_status", "status"),  # the housekeeping's look for tables to end
)

online_seats = Table(
    "online_seats",
    metadata,
    Column("code", ForeignKey("online_tables.code", ondelete="CASCADE"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("kind", String(8), nullable=False),  # "human" or "bot"
    Column("bot", String(16)),
    Column("name", String(64)),
    Column("token_hash", String(64), index=True),
)

online_steps = Table(
    "online_steps",
    metadata,
    Column("code", ForeignKey("online_tables.code", ondelete="CASCADE"), primary_key=True),
    Column("n", Integer, primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("kind", String(8), nullable=False),
    Column("text", String(64), nullable=False),
)


LIVE = ("waiting", "playing")  # a table's status until it is over or abandoned

# The statements of every game, made once: building one costs more than SQLite takes to run it.
_ADD_TABLE = online_tables.insert()
_ADD_SEATS = online_seats.insert()


# PostgreSQL: every row in one JSON text, which psycopg passes on as it is (arrays of Python
# values it adapts one by one, which took about a tenth of a busy server's time).
_INSERT_STEPS_JSON = (
    "INSERT INTO online_steps (code, n, seat, kind, text) SELECT code, n, seat, kind, text "
    "FROM json_to_recordset(%s::json) AS step(code text, n int, seat int, kind text, text text)"
)
_NOTIFY = "SELECT pg_notify('py421_changes', m) FROM json_array_elements_text(%s::json) AS news(m)"


def _columns_of(table: Table, alias: str, leave_out: str = "") -> tuple[str, str]:
    names = [c.name for c in table.columns if c.name != leave_out]
    return ", ".join(names), ", ".join(f"{alias}.{n}" for n in names)


def _end_game_sql() -> str:
    """PostgreSQL: a game's last steps and its end in one statement, whose parts all see the game's
    new number; JSON rows are read by the tables' own row types, so the columns are named once."""
    game_cols, game_values = _columns_of(games, "g", leave_out="id")
    player_cols, player_values = _columns_of(game_players, "p", leave_out="game_id")
    return (
        f"WITH game AS (INSERT INTO games ({game_cols}) "
        f"SELECT {game_values} FROM json_populate_record(NULL::games, %s::json) AS g RETURNING id), "
        f"players AS (INSERT INTO game_players (game_id, {player_cols}) "
        f"SELECT game.id, {player_values} "
        "FROM game, json_populate_recordset(NULL::game_players, %s::json) AS p), "
        f"written AS ({_INSERT_STEPS_JSON}), "
        "over AS (UPDATE online_tables SET status = 'over', game_id = game.id FROM game "
        "WHERE online_tables.code = %s) "
        "SELECT game.id, (SELECT count(pg_notify('py421_changes', m)) "
        "FROM json_array_elements_text(%s::json) AS news(m)) FROM game"
    )


def _step_rows(writes: Sequence[NewSteps]) -> list[tuple[str, int, int, str, str]]:
    return [(w.code, w.first + i, s.seat, s.kind, s.text) for w in writes for i, s in enumerate(w.steps)]


def _steps_json(rows: Sequence[tuple[str, int, int, str, str]]) -> str:
    return orjson.dumps([dict(zip(_STEP_FIELDS, row, strict=True)) for row in rows]).decode()


_STEP_FIELDS = ("code", "n", "seat", "kind", "text")


def _numbered(sql: str) -> bytes:
    """A statement with psycopg's placeholders (``%s``) as the database numbers them (``$1``…), to
    be sent without psycopg (server/writer.py)."""
    parts = sql.split("%s")
    return "".join(f"{part}${i}" for i, part in enumerate(parts[:-1], start=1)).encode() + parts[-1].encode()


def _create_sql() -> str:
    """PostgreSQL: a new table and its seats, and the news; its one value is the count of notices."""
    table_cols, table_values = _columns_of(online_tables, "t")
    seat_cols, seat_values = _columns_of(online_seats, "s")
    return (
        f"WITH made AS (INSERT INTO online_tables ({table_cols}) "
        f"SELECT {table_values} FROM json_populate_record(NULL::online_tables, %s::json) AS t), "
        f"seated AS (INSERT INTO online_seats ({seat_cols}) "
        f"SELECT {seat_values} FROM json_populate_recordset(NULL::online_seats, %s::json) AS s) "
        "SELECT count(pg_notify('py421_changes', m)) FROM json_array_elements_text(%s::json) AS news(m)"
    )


# PostgreSQL: the seats as the game starts and the status "playing", if the table still waits; its
# one value is 1 if it started, else 0 (and nothing is written nor told).
_START_SQL = (
    "WITH started AS (UPDATE online_tables SET status = 'playing' "
    "WHERE code = %s AND status = 'waiting' RETURNING code), "
    "seated AS (UPDATE online_seats AS o SET kind = s.kind, bot = s.bot, name = s.name, "
    "token_hash = s.token_hash FROM started, json_populate_recordset(NULL::online_seats, %s::json) AS s "
    "WHERE o.code = started.code AND o.seat = s.seat) "
    "SELECT count(*), (SELECT count(pg_notify('py421_changes', m)) "
    "FROM json_array_elements_text(%s::json) AS news(m) WHERE EXISTS (SELECT FROM started)) FROM started"
)

# A statement numbered for the database, and its parameters as text.
Statement = tuple[bytes, list[bytes]]
_INSERT_STEPS_NUMBERED = _numbered(_INSERT_STEPS_JSON)
_INSERT_STEPS_NEWS_NUMBERED = _numbered(f"WITH written AS ({_INSERT_STEPS_JSON}) {_NOTIFY}")
_END_GAME_NUMBERED = _numbered(_end_game_sql())
_CREATE_NUMBERED = _numbered(_create_sql())
_START_NUMBERED = _numbered(_START_SQL)
# PostgreSQL: the statements the writer sends on its own connections, prepared once on each, so that
# the database parses and plans them once rather than at every write.
PREPARED = (
    _INSERT_STEPS_NUMBERED,
    _INSERT_STEPS_NEWS_NUMBERED,
    _END_GAME_NUMBERED,
    _CREATE_NUMBERED,
    _START_NUMBERED,
)


def _add_steps(conn: Connection, rows: Sequence[tuple[str, int, int, str, str]]) -> None:
    """The steps of every move, straight to the driver (a third of what SQLAlchemy's statement
    costs): SQLite's runs a statement a row in C; PostgreSQL's takes them all in one statement, as
    one JSON text."""
    if conn.dialect.name == "sqlite":
        _straight(
            conn, "INSERT INTO online_steps (code, n, seat, kind, text) VALUES (?,?,?,?,?)", rows, many=True
        )
    else:
        _straight(conn, _INSERT_STEPS_JSON, (_steps_json(rows),))


def _straight(conn: Connection, sql: str, params: Any, *, many: bool = False) -> None:
    """A statement given to the driver itself; its errors raised as SQLAlchemy raises them (which
    is what the callers catch, to take the steps back)."""
    cursor = conn.connection.cursor()
    try:
        if many:
            cursor.executemany(sql, params)
        else:
            cursor.execute(sql, params)
    except conn.dialect.loaded_dbapi.Error as e:
        raise DBAPIError.instance(sql, params, e, conn.dialect.loaded_dbapi.Error) from e
    finally:
        cursor.close()


_START = (
    online_tables.update()
    .where(online_tables.c.code == bindparam("the_code"), online_tables.c.status == "waiting")
    .values(status="playing")
)
_SEAT_AT_START = (
    online_seats.update()
    .where(online_seats.c.code == bindparam("the_code"), online_seats.c.seat == bindparam("the_seat"))
    .values(
        kind=bindparam("the_kind"),
        bot=bindparam("the_bot"),
        name=bindparam("the_name"),
        token_hash=bindparam("the_token_hash"),
    )
)
_ACTIVE = (
    online_tables.update()
    .where(online_tables.c.code == bindparam("the_code"))
    .values(active_at=bindparam("the_time"))
)
_OVER = (
    online_tables.update()
    .where(online_tables.c.code == bindparam("the_code"))
    .values(status="over", game_id=bindparam("the_game_id"))
)


class DatabaseError(Py421Error):
    """The database cannot be used: what was wrong and what is accepted."""


def normalize_url(url: str) -> str:
    """Accept the usual ``postgresql://`` spelling and use the psycopg 3 driver."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def make_engine(url: str) -> Engine:
    if not url.strip():  # a --db "$VARIABLE" whose variable is unset: never a server on a file unasked
        raise DatabaseError(
            Message(
                "db.empty_url",
            )
        )
    url = normalize_url(url)
    if not url.startswith(("sqlite", "postgresql")):
        kind = url.split(":")[0]
        raise DatabaseError(
            Message(
                "db.unsupported",
                {"kind": repr(kind)},
            )
        )
    try:
        parsed = make_url(url)
        sqlite = parsed.get_backend_name() == "sqlite"
        if sqlite and parsed.host:
            raise DatabaseError(
                Message(
                    "db.sqlite_host",
                    {"url": repr(url)},
                )
            )
        if sqlite and parsed.database in (None, "", ":memory:"):
            raise DatabaseError(
                Message(
                    "db.sqlite_memory",
                )
            )
        # A database server may have dropped an idle connection; a file cannot.
        engine = create_engine(parsed, pool_pre_ping=url.startswith("postgresql"))
    except ModuleNotFoundError as e:
        raise DatabaseError(
            Message(
                "db.missing_module",
                {"reason": str(e), "install": install_command("postgres")},
            )
        ) from e
    except (ArgumentError, ValueError) as e:  # a port that is no number, a slash too few…
        # not shown again: it may hold a password
        raise DatabaseError(
            Message(
                "db.unreadable_url",
            )
        ) from e
    if url.startswith("sqlite"):
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def single_process(engine: Engine) -> Any:
    """With SQLite, hold the file's lock for as long as the server runs: a second ``421 serve``
    on the same file is refused with a clear message (returns the open lock file, or None)."""
    if engine.dialect.name != "sqlite" or not engine.url.database or engine.url.database == ":memory:":
        return None
    import fcntl

    path = Path(engine.url.database).resolve()
    lock = open(f"{path}.serve-lock", "w")  # noqa: SIM115 - held open for the server's life
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        raise DatabaseError(
            Message(
                "db.second_process",
                {"path": path},
            )
        ) from None
    return lock


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL: a commit survives the process being killed without waiting for the disk
    # each time, and readers never block the writer.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def migrate(engine: Engine) -> None:
    """Create or upgrade the schema to the latest migration of every line.

    The server's own line first: its 0001 made the history's tables too, which the
    history's line (whose first step makes them only where they are missing) then adopts.
    """
    upgrade(engine, ("0001@head", "heads"), DatabaseError)


@dataclass
class SeatRow:
    seat: int
    kind: str
    bot: str | None
    name: str | None
    token_hash: str | None


@dataclass
class TableRow:
    code: str
    created_at: str
    mode: str
    rules: dict[str, Any]
    status: str
    seed: str
    seed_hash: str
    timeout: int
    first_seat: int
    rematch: str | None
    game_id: int | None
    seats: list[SeatRow]
    steps: list[Step]
    hints: bool = False
    active_at: str | None = None
    undo_from: int = 0


@dataclass(frozen=True)
class NewSteps:
    """Steps ``first``, ``first + 1``… of table ``code``; ``finish``: the game they end, as the
    history keeps it."""

    code: str
    first: int
    steps: Sequence[Step]
    finish: GameRows | None = None


class Store:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        # Several processes on PostgreSQL: each change of a table is committed with a notice
        # to the others (this process's name), delivered with the commit and not before.
        self.announce: str | None = None
        # Each thread (the event loop's, the writer's) keeps one connection, which saves
        # taking one from the pool (and checking it) for every step. If the database drops
        # it, the write in progress fails and is undone, and the next one reconnects.
        self._local = threading.local()

    @contextmanager
    def begin(self) -> Iterator[Connection]:
        kept: Connection | None = getattr(self._local, "kept", None)
        if kept is None or kept.closed or kept.invalidated:
            if kept is not None:
                kept.close()
            kept = self._local.kept = self.engine.connect()
        with kept.begin():
            yield kept

    def _tell(
        self, conn: Connection, code: str, first: int | None = None, steps: Sequence[Step] = ()
    ) -> None:
        """The news of a change, sent with the commit: the code, who made it, and new steps if that
        is all that changed (the others then need not read the database)."""
        if self.announce is not None:
            _straight(conn, _NOTIFY, (self._texts([_news(code, first, steps)]),))

    def _texts(self, news: Sequence[dict[str, Any]]) -> str:
        """The notices, as one JSON array of their texts (none when nobody is told)."""
        if self.announce is None:
            return "[]"
        return orjson.dumps([orjson.dumps({**n, "by": self.announce}).decode() for n in news]).decode()

    def steps_statement(self, writes: Sequence[NewSteps]) -> Statement:
        """PostgreSQL: the steps of several tables, none of which ends its game, with their news, as
        one statement (its own transaction in autocommit): one round trip, and nothing written if
        anything fails."""
        steps = _steps_json(_step_rows(writes))
        if self.announce is None:
            return _INSERT_STEPS_NUMBERED, [steps.encode()]
        texts = self._texts([_news(w.code, w.first, w.steps) for w in writes])
        return _INSERT_STEPS_NEWS_NUMBERED, [steps.encode(), texts.encode()]

    def end_game_statement(self, write: NewSteps) -> Statement:
        """PostgreSQL: the last steps of a game, the game into the history, the table over and the
        news, as one statement as :meth:`steps_statement`; its one value is the game's number."""
        assert write.finish is not None
        texts = self._texts([_news(write.code)])
        params = (
            orjson.dumps(write.finish.game).decode(),
            orjson.dumps(write.finish.players).decode(),
            _steps_json(_step_rows([write])),
            write.code,
            texts,
        )
        return _END_GAME_NUMBERED, [p.encode() for p in params]

    def create_statement(self, row: TableRow) -> Statement:
        """PostgreSQL: :meth:`create` as one statement (a code taken already fails it whole)."""
        table = {k: v for k, v in vars(row).items() if k not in ("seats", "steps")}
        table["rules"] = json.dumps(row.rules)
        seats = [{"code": row.code, **vars(s)} for s in row.seats]
        params = (orjson.dumps(table), orjson.dumps(seats), self._texts([_news(row.code)]).encode())
        return _CREATE_NUMBERED, list(params)

    def start_statement(self, code: str, seats: Sequence[SeatRow]) -> Statement:
        """PostgreSQL: :meth:`start` as one statement; its value is 1 if the table started, else 0."""
        rows = orjson.dumps([{"code": code, **vars(s)} for s in seats])
        return _START_NUMBERED, [code.encode(), rows, self._texts([_news(code)]).encode()]

    def checkpoint(self) -> None:
        """SQLite: copy what the WAL holds into the database file, without stopping the writes."""
        with self.begin() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")

    def close(self) -> None:
        """Close this thread's connection."""
        kept: Connection | None = getattr(self._local, "kept", None)
        if kept is not None:
            kept.close()
            self._local.kept = None

    def create(self, row: TableRow) -> None:
        with self.begin() as conn:
            conn.execute(
                _ADD_TABLE,
                {
                    "code": row.code,
                    "created_at": row.created_at,
                    "mode": row.mode,
                    "rules": json.dumps(row.rules),
                    "status": row.status,
                    "seed": row.seed,
                    "seed_hash": row.seed_hash,
                    "timeout": row.timeout,
                    "first_seat": row.first_seat,
                    "hints": row.hints,
                    "active_at": row.active_at,
                    "undo_from": row.undo_from,
                },
            )
            conn.execute(_ADD_SEATS, [{"code": row.code, **vars(s)} for s in row.seats])
            self._tell(conn, row.code)

    def exists(self, code: str) -> bool:
        with self.begin() as conn:
            return (
                conn.execute(select(online_tables.c.code).where(online_tables.c.code == code)).first()
                is not None
            )

    def holds_seat(self, code: str, token_hash: str) -> bool:
        """Whether the token of ``token_hash`` holds a seat at the table ``code``."""
        c = online_seats.c
        with self.begin() as conn:
            held = select(c.seat).where(c.code == code, c.token_hash == token_hash)
            return conn.execute(held).first() is not None

    def take_seat(self, code: str, seat: SeatRow) -> bool:
        """A person sits at a free seat of a waiting table; False if someone else got there first."""
        held = online_seats.c.token_hash.is_(None)
        return self._seat_changed(
            code, seat.seat, ("waiting",), held, name=seat.name, token_hash=seat.token_hash
        )

    def hand_seat(self, code: str, seat: int, old: str, new: str, undo_from: int | None = None) -> bool:
        """The token that holds ``seat`` of a table waiting or in play is now ``new``'s, and where
        given the table's undo stops at step ``undo_from``, at once; False if the seat was no longer
        ``old``'s (handed meanwhile) or the game is over (then nothing is written)."""
        held = online_seats.c.token_hash == old
        table = {} if undo_from is None else {"undo_from": undo_from}
        return self._seat_changed(code, seat, ("waiting", "playing"), held, table, token_hash=new)

    def _seat_changed(
        self, code: str, seat: int, status: Sequence[str], held: Any, table: Any = None, **values: Any
    ) -> bool:
        """Change a seat of a table of one of those ``status`` where ``held`` says who holds it (a
        seat taken or handed at the same moment by another is not taken from them), and the table's
        columns ``table`` with it; whether it was."""
        c = online_seats.c
        with self.begin() as conn:
            playing = select(online_tables.c.code).where(
                online_tables.c.code == code, online_tables.c.status.in_(status)
            )
            done = conn.execute(
                online_seats.update()
                .where(c.code == code, c.seat == seat, held, c.code.in_(playing))
                .values(**values)
            )
            if done.rowcount and table:
                conn.execute(online_tables.update().where(online_tables.c.code == code).values(**table))
            self._tell(conn, code)
            return bool(done.rowcount)

    def start(self, code: str, seats: Sequence[SeatRow]) -> bool:
        """The seats as the game starts and the status "playing", in one transaction;
        False (and nothing written) if the table was no longer waiting."""
        with self.begin() as conn:
            if not conn.execute(_START, {"the_code": code}).rowcount:
                return False
            conn.execute(
                _SEAT_AT_START,
                [
                    {
                        "the_code": code,
                        "the_seat": seat.seat,
                        "the_kind": seat.kind,
                        "the_bot": seat.bot,
                        "the_name": seat.name,
                        "the_token_hash": seat.token_hash,
                    }
                    for seat in seats
                ],
            )
            self._tell(conn, code)
            return True

    def set_table(self, code: str, **values: Any) -> None:
        with self.begin() as conn:
            conn.execute(online_tables.update().where(online_tables.c.code == code).values(**values))
            self._tell(conn, code)

    def add_steps(
        self, code: str, first: int, steps: Sequence[Step], finish: GameRows | None = None
    ) -> int | None:
        """Steps ``first``, ``first + 1``… of a table, in one transaction (the server's writes on
        SQLite; on PostgreSQL it sends :meth:`steps_statement` and :meth:`end_game_statement`).

        ``finish`` (the game is over) goes into the history in that same transaction;
        the table is then marked over with the game's number, returned.
        A crash leaves a table either playing without these steps or over with all of them.
        """
        with self.begin() as conn:
            rows = _step_rows([NewSteps(code, first, steps)])
            if rows:
                _add_steps(conn, rows)
            if finish is None:
                self._tell(conn, code, first, steps)
                return None
            game_id = insert_game(conn, finish)
            conn.execute(_OVER, {"the_code": code, "the_game_id": game_id})
            self._tell(conn, code)  # the game is over: the others read it all
            return game_id

    def remove_steps_from(
        self, code: str, n: int, reopen: Callable[[Connection], None] | None = None
    ) -> None:
        """Take back steps ``n`` and after; ``reopen`` (the game was over) takes the game out of
        the history in the same transaction, and the table plays again."""
        c = online_steps.c
        with self.begin() as conn:
            conn.execute(delete(online_steps).where(c.code == code, c.n >= n))
            self._tell(conn, code)
            if reopen is not None:
                reopen(conn)
                conn.execute(
                    online_tables.update()
                    .where(online_tables.c.code == code)
                    .values(status="playing", game_id=None)
                )

    def load(self, code: str, since: int = 0) -> TableRow | None:
        """A table, its seats and its steps from number ``since`` on (``steps[0]`` is step ``since``)."""
        with self.begin() as conn:
            t = conn.execute(select(online_tables).where(online_tables.c.code == code)).mappings().first()
            if t is None:
                return None
            seats = conn.execute(
                select(online_seats).where(online_seats.c.code == code).order_by(online_seats.c.seat)
            ).mappings()
            c = online_steps.c
            steps = conn.execute(
                select(online_steps).where(c.code == code, c.n >= since).order_by(c.n)
            ).mappings()
            return TableRow(
                t["code"],
                t["created_at"],
                t["mode"],
                json.loads(t["rules"]),
                t["status"],
                t["seed"],
                t["seed_hash"],
                t["timeout"],
                t["first_seat"],
                t["rematch"],
                t["game_id"],
                [SeatRow(s["seat"], s["kind"], s["bot"], s["name"], s["token_hash"]) for s in seats],
                [Step(s["seat"], s["kind"], s["text"]) for s in steps],
                bool(t["hints"]),
                t["active_at"],
                t["undo_from"],
            )

    def unfinished(self) -> list[str]:
        """The tables waiting or in play."""
        c = online_tables.c
        with self.begin() as conn:
            return list(conn.execute(select(c.code).where(c.status.in_(LIVE))).scalars())

    # -- housekeeping: many tables a transaction, in a thread of their own (server/hub.py) --------

    def idle(self, created_before: str, active_before: str) -> list[tuple[str, str]]:
        """The tables to end, with their status: waiting and made before ``created_before``, or in
        play and last active before ``active_before`` (ISO times, which compare as text)."""
        c = online_tables.c
        waiting = (c.status == "waiting") & (c.created_at < created_before)
        playing = (c.status == "playing") & (func.coalesce(c.active_at, c.created_at) < active_before)
        with self.begin() as conn:
            rows = conn.execute(select(c.code, c.status).where(c.status.in_(LIVE), waiting | playing))
            return [(str(code), str(status)) for code, status in rows]

    def touch(self, active: Sequence[tuple[str, str]]) -> None:
        """Each table ``code`` was active at ``when`` (a person acted there)."""
        with self.begin() as conn:  # in the order of the codes, as every process: no deadlock
            rows = [{"the_code": code, "the_time": when} for code, when in sorted(active)]
            conn.execute(_ACTIVE, rows)

    def delete_many(self, codes: Sequence[str]) -> list[str]:
        """Tables that never started, and their seats, in one transaction; returns those that were
        still waiting (and are gone)."""
        c = online_tables.c
        with self.begin() as conn:
            found = conn.execute(
                select(c.code)
                .where(c.code.in_(sorted(codes)), c.status == "waiting")
                .order_by(c.code)
                .with_for_update()
            )
            gone = [str(code) for code in found.scalars()]
            if gone:
                for table in (online_steps, online_seats, online_tables):
                    conn.execute(delete(table).where(table.c.code.in_(gone)))
                for code in gone:
                    self._tell(conn, code)
            return gone

    def abandon(self, games_left: Sequence[tuple[str, GameRows]]) -> list[tuple[str, int]]:
        """Games nobody played on: each table still in play marked abandoned and its game put into the
        history, in one transaction; returns the codes ended and their games' numbers."""
        ended = []
        with self.begin() as conn:
            for code, rows in sorted(games_left, key=lambda g: g[0]):
                marked = conn.execute(
                    online_tables.update()
                    .where(online_tables.c.code == code, online_tables.c.status == "playing")
                    .values(status="abandoned")
                )
                if not marked.rowcount:
                    continue  # ended, or finished, meanwhile
                game_id = insert_game(conn, rows)
                conn.execute(_OVER.values(status="abandoned"), {"the_code": code, "the_game_id": game_id})
                self._tell(conn, code)
                ended.append((code, game_id))
        return ended


def _news(code: str, first: int | None = None, steps: Sequence[Step] = ()) -> dict[str, Any]:
    news: dict[str, Any] = {"code": code}
    if first is not None:
        news["from"], news["steps"] = first, [[s.seat, s.kind, s.text] for s in steps]
    return news


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
