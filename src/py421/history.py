"""The history of finished games: ``history.sqlite3`` in the data folder.

Every finished game with its record and per-player counts, behind ``421
history`` and ``421 stats``; the server keeps its finished games in the same
tables of its own database. Both are made and upgraded by the Alembic
migrations in ``server/migrations``: the history file runs the history's own
line of them (``history@head``), the server's database every line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import (
    Boolean,
    Column,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    delete,
    func,
    select,
    text,
)
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Connection, Engine, make_url

from .core.errors import InvalidRecord, Message, Py421Error
from .core.game import Game
from .core.record import Record
from .paths import ReadOnlyPath, check_writable_file, data_dir
from .sim.stats import game_stats

HISTORY_NAME = "history.sqlite3"
SERVER_NAME = "server.sqlite3"  # ``421 serve``'s database when given none
# Alembic's one folder of migrations, for the history file and the server's database alike
# (a file path, not an import: the history needs nothing else of the server).
MIGRATIONS = Path(__file__).parent / "server" / "migrations"
# The last migration of the history's line; a file at it opens without loading Alembic.
HISTORY_HEAD = "history_0001"


metadata = MetaData()

games = Table(
    "games",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("finished_at", String(32), nullable=False),
    Column("rules", String(64), nullable=False),
    Column("players", Text, nullable=False),  # JSON list of names
    Column("losers", Text, nullable=False),  # JSON list of names
    Column("kind", String(16), nullable=False),
    Column("source", String(16), nullable=False),  # "play" or "table"
    Column("record", Text, nullable=False),  # the JSON record
)

game_players = Table(
    "game_players",
    metadata,
    Column("game_id", ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("name", String(64), nullable=False, index=True),
    Column("bot", String(32)),
    Column("lost", Boolean, nullable=False),
    Column("rounds_lost", Integer, nullable=False),
    Column("throws_421", Integer, nullable=False),
    Column("nenettes", Integer, nullable=False),
    Column("tokens_taken", Integer, nullable=False),
)

# Made once: a server adds a game every few hundred milliseconds.
_ADD_GAME = games.insert()
_ADD_PLAYERS = game_players.insert()


@dataclass(frozen=True)
class GameRows:
    """A finished game as the history keeps it: its row and its players' (whose ``game_id`` is the
    game's number, given when it is stored)."""

    game: dict[str, Any]
    players: list[dict[str, Any]]


ABANDONED = "abandoned"  # the kind of a game ended unfinished (an online table nobody played on)


def game_rows(
    game: Game,
    *,
    bots: Mapping[int, str] | None = None,
    source: str = "play",
    meta: Mapping[str, Any] | None = None,
    abandoned: bool = False,
) -> GameRows:
    """What the history stores of a finished game; ``abandoned``: of a game ended unfinished, kept
    with its record (nobody lost it, and the stats leave it out). ``meta`` goes into the record."""
    outcome = game.state.outcome
    if outcome is None and not abandoned:
        raise InvalidRecord(Message("history.finished_only"))
    bots = bots or {}
    names = list(game.players)
    losers = [names[s] for s in outcome.losers] if outcome is not None else []
    return GameRows(
        {
            "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "rules": game.rules.name,
            "players": json.dumps(names, ensure_ascii=False),
            "losers": json.dumps(losers, ensure_ascii=False),
            "kind": outcome.kind if outcome is not None else ABANDONED,
            "source": source,
            "record": game.record(meta).to_json(indent=None),  # read back by programs only
        },
        [
            {
                "seat": p.seat,
                "name": p.name,
                "bot": bots.get(p.seat),
                "lost": p.lost,
                "rounds_lost": p.rounds_lost,
                "throws_421": p.throws_421,
                "nenettes": p.nenettes,
                "tokens_taken": p.tokens_taken,
            }
            for p in game_stats(game)
        ],
    )


def insert_game(conn: Connection, rows: GameRows) -> int:
    """Store a finished game's rows in ``conn``'s transaction; returns the game's number."""
    key = conn.execute(_ADD_GAME, rows.game).inserted_primary_key
    assert key is not None
    game_id = int(key[0])
    conn.execute(_ADD_PLAYERS, [{"game_id": game_id, **p} for p in rows.players])
    return game_id


class HistoryError(Py421Error):
    """The history's database cannot be used: which one, and why."""


def _where(engine: Engine) -> str | Message:
    if engine.dialect.name == "sqlite":
        return engine.url.database or Message("history.in_memory")
    return engine.url.render_as_string(hide_password=True)


def _versions(engine: Engine) -> set[str]:
    """The revisions the database says it is at; none when it cannot say (no version table yet,
    not a database at all): the upgrade then looks closer."""
    try:
        with engine.connect() as conn:
            return set(conn.execute(text("SELECT version_num FROM alembic_version")).scalars())
    except sa_exc.SQLAlchemyError:
        return set()


def upgrade(
    engine: Engine, targets: Sequence[str] = ("history@head",), error: type[Py421Error] = HistoryError
) -> None:
    """Run the migrations up to each of ``targets`` in turn, in one transaction.

    On SQLite the file's write lock is taken before the version is read: a second process
    (two games finishing at once) waits, then finds the work done. A database at a revision
    this py421 does not know, or a file that is no database, raises ``error`` naming it.
    """
    from alembic import command  # a few MB of imports, only when there is something to do
    from alembic.config import Config
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory
    from alembic.util import CommandError

    where = _where(engine)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    known = {script.revision for script in ScriptDirectory.from_config(config).walk_revisions()}
    try:
        with engine.connect() as conn:
            if engine.dialect.name == "sqlite":
                conn.exec_driver_sql("BEGIN IMMEDIATE")
            elif engine.dialect.name == "postgresql":  # processes starting together: one migrates
                conn.execute(text("SELECT pg_advisory_xact_lock(421, 1)"))
            newer = sorted(set(MigrationContext.configure(conn).get_current_heads()) - known)
            if newer:
                revisions = ", ".join(newer)
                raise error(
                    Message(
                        "history.newer",
                        {"where": where, "revisions": revisions},
                    )
                )
            config.attributes["connection"] = conn
            for target in targets:
                command.upgrade(config, target)
            conn.commit()
    except sa_exc.DBAPIError as e:
        raise error(_cannot_open(where, e.orig)) from None
    except (sa_exc.SQLAlchemyError, CommandError) as e:
        raise error(_cannot_open(where, e)) from None


def _cannot_open(where: str | Message, reason: object) -> Message:
    return Message("history.cannot_open", {"where": where, "reason": reason})


def _read_only(path: Path) -> Engine:
    """The history file opened for reading only; no file (no game finished yet): an empty history,
    in memory, made nowhere on the disk."""
    if not path.exists():
        engine = create_engine("sqlite://")
        metadata.create_all(engine)
        with engine.begin() as conn:  # at the head, as a new file would be
            conn.execute(text("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)"))
            conn.execute(text("INSERT INTO alembic_version VALUES (:head)"), {"head": HISTORY_HEAD})
        return engine
    return create_engine(f"sqlite:///file:{quote(str(path))}?mode=ro&uri=true")


def server_url(*, write: bool = True) -> str:
    """The database ``421 serve`` uses when given no ``--db``: ``PY421_DB``, else a file in the data
    folder (``write=False``: only to read it, the folder not made)."""
    return os.environ.get("PY421_DB") or f"sqlite:///{data_dir(write=write) / SERVER_NAME}"


def _server_read_only(url: str) -> Engine:
    """The server's database opened to read its finished games: an SQLite file read-only (none yet:
    no game), another database as it is; one an older server left is refused, not upgraded under
    a server that may be running on it."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        engine = _read_only(Path(parsed.database or ""))
        where: str | Message = parsed.database or ""
    else:
        if parsed.get_backend_name() == "postgresql":
            from .extras import require

            require("postgres", "421 history --online")
        engine = create_engine(url)
        where = _where(engine)
    try:
        with engine.connect():
            pass
    except sa_exc.DBAPIError as e:
        raise HistoryError(_cannot_open(where, e.orig)) from None
    versions = _versions(engine)
    if HISTORY_HEAD not in versions:
        engine.dispose()
        raise HistoryError(
            Message("history.server_older" if versions else "history.not_server", {"where": where})
        )
    return engine


def _is_database(path: Path) -> bool:
    """Whether the file is an SQLite database (of an earlier py421, without the version table): read
    only to find out. Anything else is refused by the upgrade as before, naming it."""
    engine = create_engine(f"sqlite:///file:{quote(str(path))}?mode=ro&uri=true")
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT count(*) FROM sqlite_master")).scalar()
        return True
    except sa_exc.SQLAlchemyError:
        return False
    finally:
        engine.dispose()


def _check_upgradable(path: Path) -> None:
    """Refuse, saying why, to upgrade a history that cannot be written (only reading was asked)."""
    try:
        data_dir()
        check_writable_file(path, Message("path.history"))
    except ReadOnlyPath as exc:
        problem = exc.message if exc.message is not None else str(exc)
        raise HistoryError(
            Message(
                "history.upgrade_read_only",
                {"path": path, "problem": problem},
            )
        ) from None


@dataclass(frozen=True, slots=True)
class GameRow:
    id: int
    finished_at: str
    rules: str
    players: list[str]
    losers: list[str]
    kind: str
    source: str


class History:
    """Finished games and the counts behind ``421 stats``.

    ``read_only``: for listing and reading only (``421 history``, ``stats``, ``analyse``): the file
    is opened read-only (``mode=ro``), nothing is made, and a read-only data folder is fine. A
    file that must be upgraded first is upgraded where it can be written, else refused saying so.
    ``online``: the games of ``421 serve``'s tables on this machine instead (:func:`server_url`),
    read only.
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        engine: Engine | None = None,
        read_only: bool = False,
        online: bool = False,
    ) -> None:
        if engine is not None:  # the server's database: its migrations made the schema
            self.engine = engine
            return
        if online:
            self.engine = _server_read_only(server_url(write=False))
            return
        if url:
            self.engine = create_engine(url)
            if HISTORY_HEAD not in _versions(self.engine):
                upgrade(self.engine)
            return
        path = data_dir(write=not read_only) / HISTORY_NAME
        if read_only:
            self.engine = _read_only(path)
            if HISTORY_HEAD in _versions(self.engine):
                return
            self.engine.dispose()
            if path.exists() and _is_database(path):  # an earlier py421's: upgraded, which writes
                _check_upgradable(path)
        else:
            check_writable_file(path, Message("path.history"))
        self.engine = create_engine(f"sqlite:///{path}")
        if HISTORY_HEAD not in _versions(self.engine):  # new, older, newer, or not a database
            try:
                upgrade(self.engine)
            except HistoryError as exc:
                problem = exc.message if exc.message is not None else str(exc)
                raise HistoryError(
                    Message(
                        "history.move_aside",
                        {"problem": problem},
                    )
                ) from None

    @contextmanager
    def _begin(self) -> Iterator[Connection]:
        with self.engine.begin() as conn:
            yield conn

    def add(
        self,
        game: Game,
        *,
        bots: Mapping[int, str] | None = None,
        source: str = "play",
        conn: Connection | None = None,
    ) -> int:
        """Store a finished game; returns its number. ``conn``: inside that transaction."""
        rows = game_rows(game, bots=bots, source=source)
        if conn is not None:
            return insert_game(conn, rows)
        try:
            with self._begin() as own:
                return insert_game(own, rows)
        except sa_exc.DBAPIError as e:  # locked by another program for too long, or spoilt since opened
            raise HistoryError(
                Message("history.cannot_write", {"where": _where(self.engine), "reason": e.orig})
            ) from None

    def remove(self, game_id: int, conn: Connection) -> None:
        """Take a game out of the history (a scorekeeper's last entry undone), in ``conn``."""
        conn.execute(delete(game_players).where(game_players.c.game_id == game_id))
        conn.execute(delete(games).where(games.c.id == game_id))

    def games(self, limit: int = 50) -> list[GameRow]:
        """The latest finished games, newest first."""
        listed = [c for c in games.c if c.name != "record"]  # a record is up to megabytes, not shown
        query = select(*listed).order_by(games.c.id.desc()).limit(limit)
        with self._begin() as conn:
            rows = conn.execute(query).mappings().all()
        return [
            GameRow(
                r["id"],
                r["finished_at"],
                r["rules"],
                json.loads(r["players"]),
                json.loads(r["losers"]),
                r["kind"],
                r["source"],
            )
            for r in rows
        ]

    def record(self, game_id: int) -> Record:
        text = None
        if 0 < game_id < 2**63:  # beyond, no database can hold it (nor look it up)
            with self._begin() as conn:
                text = conn.execute(select(games.c.record).where(games.c.id == game_id)).scalar()
        if text is None:
            raise InvalidRecord(Message("history.no_game", {"n": game_id}))
        return Record.from_json(text)

    def stats(
        self, *, rules: str | None = None, name: str | None = None, most: int | None = None
    ) -> list[dict[str, Any]]:
        """Per player: games, losses, 421s and nénettes thrown, tokens taken, of finished games
        (an abandoned game counts for nobody), the players of the most games first.

        ``rules`` keeps the games of one preset, ``name`` one player's rows, ``most`` that many rows.
        """
        c = game_players.c
        query = (
            select(
                c.name,
                func.count().label("games"),
                func.sum(c.lost.cast(Integer)).label("losses"),
                func.sum(c.rounds_lost).label("rounds_lost"),
                func.sum(c.throws_421).label("throws_421"),
                func.sum(c.nenettes).label("nenettes"),
                func.sum(c.tokens_taken).label("tokens_taken"),
            )
            .join(games, games.c.id == c.game_id)
            .where(games.c.kind != ABANDONED)
            .group_by(c.name)
            .order_by(func.count().desc(), c.name)
        )
        if rules is not None:
            query = query.where(games.c.rules == rules)
        if name is not None:
            query = query.where(c.name == name)
        if most is not None:
            query = query.limit(most)
        with self._begin() as conn:
            return [dict(row) for row in conn.execute(query).mappings().all()]
