"""One schema: the Alembic migrations make exactly the tables the models declare.

The server's database runs every line of migrations, the local history file only
the history's; both are compared with the models by Alembic's autogenerate, on
SQLite and on PostgreSQL. A history file or server database written by an
earlier py421 is upgraded in place with its games, one from a later py421 or a
file that is no database is refused in one line naming it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from click.testing import CliRunner
from sqlalchemy import Column, Integer, MetaData, create_engine, inspect, text
from sqlalchemy.engine import Engine

from py421 import history
from py421.cli import main
from py421.core.chance import SeededDice
from py421.core.game import Game
from py421.core.rules import Ruleset
from py421.history import HISTORY_HEAD, HISTORY_NAME, MIGRATIONS, History, HistoryError
from py421.paths import data_dir
from py421.players import make_bot
from py421.server import database
from py421.sim.loop import play_out

from .server_helpers import database_urls, fresh_postgres

HISTORY_TABLES = {"games", "game_players"}


def config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def finished_game(seed: int = 1) -> Game:
    game = Game(Ruleset.preset("classic-11"), ["Ann", "Bob"])
    return play_out(game, [make_bot("heuristic", "a"), make_bot("random", "b")], SeededDice(seed))


def differences(engine: Engine, models: MetaData) -> list[Any]:
    """What autogenerate would write to bring the database to the models: nothing, when they agree."""
    with engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "compare_server_default": True}
        )
        return list(compare_metadata(context, models))


def server_models() -> MetaData:
    """Every table of the server's database: its own and the history's, each declared once."""
    models = MetaData()
    for table in (*database.metadata.tables.values(), *history.metadata.tables.values()):
        table.to_metadata(models)
    return models


def versions(engine: Engine) -> set[str]:
    with engine.connect() as conn:
        return set(conn.execute(text("SELECT version_num FROM alembic_version")).scalars())


def history_file() -> Path:
    return data_dir() / HISTORY_NAME


def previous_release_history(games: int = 1) -> Engine:
    """The history file as py421 wrote it before it had migrations: ``create_all``, no version table."""
    engine = create_engine(f"sqlite:///{history_file()}")
    history.metadata.create_all(engine)
    for seed in range(games):
        History(engine=engine).add(finished_game(seed), bots={1: "random"})
    return engine


@pytest.fixture(params=database_urls(Path("/unused")))  # SQLite always, PostgreSQL when given
def server_url(request, tmp_path):
    url: str = request.param
    if url.startswith("postgresql"):
        return fresh_postgres(url)
    return f"sqlite:///{tmp_path}/server.sqlite3"


# -- the lines of migrations ---------------------------------------------------------


def test_the_history_line_ends_where_the_history_says():
    """``HISTORY_HEAD`` lets an up-to-date file open without loading Alembic: it must be the real head."""
    head = ScriptDirectory.from_config(config()).get_revision("history@head")
    assert head is not None
    assert head.revision == HISTORY_HEAD


def test_the_history_line_stands_alone():
    """The history's line shares no revision with the server's: a history file gets no online table."""
    script = ScriptDirectory.from_config(config())
    history_line = {r.revision for r in script.iterate_revisions("history@head", "base")}
    server_line = {r.revision for r in script.iterate_revisions("0001@head", "base")}
    assert history_line
    assert not history_line & server_line
    assert history_line | server_line == {r.revision for r in script.walk_revisions()}


# -- models and migrations agree --------------------------------------------------------


def test_a_new_history_file_is_the_models_and_nothing_else():
    engine = History().engine
    assert set(inspect(engine).get_table_names()) == HISTORY_TABLES | {"alembic_version"}
    assert versions(engine) == {HISTORY_HEAD}
    assert differences(engine, history.metadata) == []


def test_the_server_database_is_the_models(server_url):
    engine = database.make_engine(server_url)
    database.migrate(engine)
    assert differences(engine, server_models()) == []
    heads = set(ScriptDirectory.from_config(config()).get_heads())
    assert versions(engine) == heads
    database.migrate(engine)  # again: nothing to do, nothing changes
    assert versions(engine) == heads
    engine.dispose()


def test_the_comparison_sees_a_drift():
    """A model the migrations do not make is reported: the tests above would catch one."""
    engine = History().engine
    drifted = MetaData()
    for table in history.metadata.tables.values():
        table.to_metadata(drifted)
    drifted.tables["games"].append_column(Column("duration", Integer))
    found = differences(engine, drifted)
    assert [d[0] for d in found] == ["add_column"]


# -- an earlier py421's files ----------------------------------------------------------


def test_a_history_file_of_the_previous_release_upgrades_in_place():
    previous_release_history(games=2)
    listing = CliRunner().invoke(main, ["history"])
    assert listing.exit_code == 0, listing.output
    assert listing.output.count("classic-11") == 2
    stats = CliRunner().invoke(main, ["stats", "--json"])
    assert stats.exit_code == 0, stats.output
    ann = next(p for p in json.loads(stats.output)["players"] if p["name"] == "Ann")
    assert ann["games"] == 2
    engine = create_engine(f"sqlite:///{history_file()}")
    assert versions(engine) == {HISTORY_HEAD}
    assert differences(engine, history.metadata) == []
    replay = CliRunner().invoke(main, ["history", "1"])
    assert replay.exit_code == 0, replay.output
    assert "game over" in replay.output


def test_a_server_database_of_the_previous_release_upgrades_in_place(server_url):
    """Made by 0001 alone, as the previous ``421 serve`` left it, with a finished game in it."""
    engine = database.make_engine(server_url)
    cfg = config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0001")
    History(engine=engine).add(finished_game(), source="online")
    database.migrate(engine)
    assert versions(engine) == set(ScriptDirectory.from_config(config()).get_heads())
    assert [g.players for g in History(engine=engine).games()] == [["Ann", "Bob"]]
    assert differences(engine, server_models()) == []
    engine.dispose()


# -- files py421 cannot use ----------------------------------------------------------------


def one_line_error(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    return lines[0]


def test_a_history_file_from_a_later_py421_is_refused_by_name():
    engine = previous_release_history()
    History()  # stamped
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = 'history_9999'"))
    for command_line in (["stats"], ["history"]):
        message = one_line_error(*command_line)
        assert str(history_file()) in message
        assert "newer py421 (schema revision history_9999)" in message
    with pytest.raises(HistoryError, match="upgrade py421"):
        History()
    assert versions(engine) == {"history_9999"}  # left as it was


def test_a_history_file_that_is_no_database_is_refused_by_name():
    history_file().write_bytes(b"these are someone's notes, not a database\n" * 100)
    message = one_line_error("stats")
    assert f"cannot open {history_file()}: file is not a database" in message
    assert history_file().read_bytes().startswith(b"these are someone's notes")


def test_a_server_database_from_a_later_py421_is_refused(tmp_path):
    engine = database.make_engine(f"sqlite:///{tmp_path}/server.sqlite3")
    database.migrate(engine)
    head = ScriptDirectory.from_config(config()).get_revision("0001@head")
    assert head is not None
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE alembic_version SET version_num = '9999' WHERE version_num = :head"),
            {"head": head.revision},
        )
    with pytest.raises(database.DatabaseError, match=r"server\.sqlite3 was written by a newer py421"):
        database.migrate(engine)
    engine.dispose()


# -- two games finishing at once -------------------------------------------------------------

FINISH = """
import sys, time
from pathlib import Path
from py421.history import History
from tests.test_migrations import finished_game
Path(sys.argv[1], "ready-" + sys.argv[2]).touch()
while not Path(sys.argv[1], "go").exists():
    time.sleep(0.001)
History().add(finished_game(int(sys.argv[2])))
"""


@pytest.mark.parametrize("previous", [True, False], ids=["previous-release-file", "no-file"])
def test_games_finishing_at_once_migrate_the_file_once(private_home, tmp_path, previous):
    """Several processes open the file together, each adds its game: every game is kept."""
    if previous:
        previous_release_history()
    count = 4
    env = {**os.environ, "PY421_HOME": str(private_home), "PYTHONPATH": str(Path(__file__).parents[1])}
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", FINISH, str(tmp_path), str(n)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(count)
    ]
    deadline = time.monotonic() + 60
    while len(list(tmp_path.glob("ready-*"))) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    (tmp_path / "go").touch()
    for p in processes:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    engine = create_engine(f"sqlite:///{history_file()}")
    assert versions(engine) == {HISTORY_HEAD}
    assert len(History().games()) == count + previous
    assert differences(engine, history.metadata) == []
