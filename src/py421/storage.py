"""Where games are kept: the game in progress, and the history of finished games.

Everything lives in the user's data directory (``PY421_HOME`` overrides it):
``saves/`` holds each game in progress, rewritten after every step so Ctrl-C
or a closed terminal never loses it (a new game never replaces an unfinished
one); ``history.sqlite3`` holds every finished game with its record and
per-player counts.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import platformdirs
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
)
from sqlalchemy.engine import Connection, Engine

from .core.errors import InvalidRecord
from .core.game import Game
from .core.record import Record
from .sim.stats import game_stats

SAVES_NAME = "saves"
HISTORY_NAME = "history.sqlite3"


def data_dir() -> Path:
    """The folder py421 keeps its files in (created when needed)."""
    override = os.environ.get("PY421_HOME")
    path = Path(override) if override else platformdirs.user_data_path("py421")
    path.mkdir(parents=True, exist_ok=True)
    return path


# -- games in progress -----------------------------------------------------


def saves_dir() -> Path:
    path = data_dir() / SAVES_NAME
    path.mkdir(exist_ok=True)
    return path


def new_save_id() -> str:
    """A name for a new game's save: its start time, unique enough for one person."""
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S-%f")


def write_save(save_id: str, data: Mapping[str, Any]) -> Path:
    """Write a game in progress atomically: a crash leaves the old save or the new."""
    path = saves_dir() / f"{save_id}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, path)
    return path


def latest_save(mode: str) -> tuple[str, dict[str, Any]] | None:
    """The most recent unfinished game of ``mode`` ("play" or "table"), if any."""
    for path in sorted(saves_dir().glob("*.json"), reverse=True):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise InvalidRecord(f"the saved game {path} cannot be read: {exc}") from None
        if isinstance(data, dict) and data.get("mode", "play") == mode:
            return path.stem, data
    return None


def clear_save(save_id: str) -> None:
    (saves_dir() / f"{save_id}.json").unlink(missing_ok=True)


# -- the history of finished games ------------------------------------------

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
    """Finished games and the counts behind ``421 stats``."""

    def __init__(self, url: str | None = None, *, engine: Engine | None = None) -> None:
        if engine is not None:  # the server's database: its migrations made the schema
            self.engine = engine
            return
        self.engine = create_engine(url or f"sqlite:///{data_dir() / HISTORY_NAME}")
        metadata.create_all(self.engine)

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
        if conn is None:
            with self._begin() as own:
                return self.add(game, bots=bots, source=source, conn=own)
        outcome = game.state.outcome
        if outcome is None:
            raise ValueError("only finished games go into the history")
        bots = bots or {}
        names = list(game.players)
        result = conn.execute(
            games.insert().values(
                finished_at=datetime.now(UTC).isoformat(timespec="seconds"),
                rules=game.rules.name,
                players=json.dumps(names, ensure_ascii=False),
                losers=json.dumps([names[s] for s in outcome.losers], ensure_ascii=False),
                kind=outcome.kind,
                source=source,
                record=game.record().to_json(),
            )
        )
        key = result.inserted_primary_key
        assert key is not None
        game_id = int(key[0])
        conn.execute(
            game_players.insert(),
            [
                {
                    "game_id": game_id,
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
        return game_id

    def remove(self, game_id: int, conn: Connection) -> None:
        """Take a game out of the history (a scorekeeper's last entry undone), in ``conn``."""
        conn.execute(delete(game_players).where(game_players.c.game_id == game_id))
        conn.execute(delete(games).where(games.c.id == game_id))

    def games(self, limit: int = 50) -> list[GameRow]:
        """The latest finished games, newest first."""
        query = select(games).order_by(games.c.id.desc()).limit(limit)
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
        with self._begin() as conn:
            text = conn.execute(select(games.c.record).where(games.c.id == game_id)).scalar()
        if text is None:
            raise InvalidRecord(f"there is no game number {game_id} in the history")
        return Record.from_json(text)

    def stats(self, *, rules: str | None = None, name: str | None = None) -> list[dict[str, Any]]:
        """Per player: games, losses, 421s and nénettes thrown, tokens taken.

        ``rules`` keeps the games of one preset, ``name`` one player's rows.
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
            .group_by(c.name)
            .order_by(func.count().desc(), c.name)
        )
        if rules is not None:
            query = query.join(games, games.c.id == c.game_id).where(games.c.rules == rules)
        if name is not None:
            query = query.where(c.name == name)
        with self._begin() as conn:
            return [dict(row) for row in conn.execute(query).mappings().all()]
