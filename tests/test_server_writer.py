"""The server's writes: on PostgreSQL many tables' steps in one transaction, off the event loop;
on SQLite each at once, with the checkpoints in a thread; a failure kept to its table."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Callable, Coroutine, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from py421.core.game import Game, Step
from py421.core.rules import Ruleset
from py421.history import History, game_players, game_rows, games
from py421.play.session import Session, parse_seats
from py421.server.database import NewSteps, SeatRow, Statement, Store, TableRow, make_engine, migrate, now
from py421.server.writer import Writer

from .server_helpers import database_urls, fresh_postgres


@pytest.fixture(params=database_urls(Path("/tmp")))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    url: str = request.param
    url = fresh_postgres(url) if url.startswith("postgresql") else f"sqlite:///{tmp_path}/s.db"
    engine = make_engine(url)
    migrate(engine)
    store = Store(engine)
    for code in ("AAAAA", "BBBBB", "CCCCC"):
        seats = [SeatRow(0, "human", None, "Ann", None), SeatRow(1, "bot", "heuristic", "Heuristic 1", None)]
        store.create(TableRow(code, now(), "play", {}, "playing", "s", "h", 0, 0, None, None, seats, []))
    yield store
    store.close()
    engine.dispose()


THROW = [Step(0, "action", "throw"), Step(0, "dice", "421")]


def row(store: Store, code: str) -> TableRow:
    found = store.load(code)
    assert found is not None
    return found


@contextlib.contextmanager
def steps_held(store: Store) -> Iterator[Callable[[], None]]:
    """PostgreSQL: the steps' table locked by another connection, so that writes wait in the
    database until the function given is called."""
    conn = store.engine.connect()
    transaction = conn.begin()
    conn.exec_driver_sql("LOCK TABLE online_steps IN SHARE MODE")  # an insert waits for it
    try:
        yield transaction.commit
    finally:
        if transaction.is_active:
            transaction.commit()
        conn.close()


def counting_statements(store: Store) -> list[list[str]]:
    """The tables of each statement of steps the store makes, in order."""
    statements: list[list[str]] = []
    steps_statement = store.steps_statement

    def counted(writes: Sequence[NewSteps]) -> Statement:
        statements.append([w.code for w in writes])
        return steps_statement(writes)

    store.steps_statement = counted  # type: ignore[method-assign]
    return statements


def test_steps_of_tables_that_wait_together_are_committed_together(store: Store) -> None:
    if store.engine.dialect.name == "sqlite":
        pytest.skip("SQLite commits each table's steps at once")
    writer = Writer(store, pipes=1)
    statements = counting_statements(store)

    async def play() -> None:
        # The connection made first: it prepares its statements, which the lock below would hold up.
        await writer.add_steps("AAAAA", 0, THROW)
        with steps_held(store) as release:
            first = asyncio.ensure_future(writer.add_steps("AAAAA", 2, THROW))
            await asyncio.sleep(0.05)  # sent, and waiting in the database
            others = asyncio.gather(*(writer.add_steps(code, 0, THROW) for code in ("BBBBB", "CCCCC")))
            await asyncio.sleep(0.05)
            assert not first.done()
            release()
            await asyncio.gather(first, others)
        await writer.add_steps("AAAAA", 4, THROW)
        await writer.aclose()

    asyncio.run(play())
    assert statements == [["AAAAA"], ["AAAAA"], ["BBBBB", "CCCCC"], ["AAAAA"]]
    assert [len(row(store, code).steps) for code in ("AAAAA", "BBBBB", "CCCCC")] == [6, 2, 2]


async def sent_at_once(writer: Writer, call: Coroutine[Any, Any, Any]) -> None:
    """Run a write until it first waits: its statement must be on its way by then (no turn of the
    event loop before it is sent); then let it finish."""
    waiting = call.__await__()
    answer = waiting.send(None)  # the call runs until it waits for the answer
    assert [pipe.writes is not None for pipe in writer._open] == [True]  # already sent
    while not answer.done():
        await asyncio.sleep(0.001)
    with pytest.raises(StopIteration):
        waiting.send(None)


def test_postgresql_sends_the_steps_at_once_and_tells_the_table_from_the_answer_s_own_callback(
    store: Store,
) -> None:
    """No turn of the event loop between a move and its statement, nor between the database's answer
    and the table hearing it: a busy server's turns take milliseconds each."""
    if store.engine.dialect.name != "postgresql":
        pytest.skip("SQLite writes at once, in the call")
    writer = Writer(store)
    heard: list[asyncio.Task[Any] | None] = []

    async def play() -> None:
        await writer.add_steps("AAAAA", 0, THROW)  # the connection is made
        await sent_at_once(
            writer,
            writer.add_steps("AAAAA", 2, THROW, written=lambda _: heard.append(asyncio.current_task())),
        )
        await writer.aclose()

    asyncio.run(play())
    assert heard == [None]  # told by the reader callback itself, not by a task woken later
    assert len(row(store, "AAAAA").steps) == 4


def test_postgresql_parses_each_statement_once_a_connection_not_at_every_write(store: Store) -> None:
    """The writer's statements are prepared when its connection is made: a write is only bound and
    run, the database's parsing and planning saved (the most of its work for a write of steps)."""
    if store.engine.dialect.name != "postgresql":
        pytest.skip("SQLite writes at once, in the call")
    writer = Writer(store, pipes=1)
    runs: dict[str, int] = {}

    async def play() -> None:
        for first in range(0, 10, 2):
            await writer.add_steps("AAAAA", first, THROW)
        [pipe] = writer._open
        pipe.pg.nonblocking = 0  # asked in passing, while nothing is on its way
        result = pipe.pg.exec_(b"SELECT statement, generic_plans + custom_plans FROM pg_prepared_statements")
        for i in range(result.ntuples):
            text, count = (result.get_value(i, j) or b"" for j in (0, 1))
            if b"INSERT INTO online_steps" in text and b"games" not in text:
                runs[text.decode()] = int(count)
        await writer.aclose()

    asyncio.run(play())
    assert sorted(runs.values()) == [0, 5]  # one of the two kinds of steps (with news or without) ran 5 times
    assert len(row(store, "AAAAA").steps) == 10


def test_one_table_whose_steps_are_refused_in_a_shared_transaction_takes_back_only_its_own(
    store: Store,
) -> None:
    writer = Writer(store, pipes=1)
    statements = counting_statements(store)
    postgresql = store.engine.dialect.name == "postgresql"

    async def play() -> tuple[Any, ...]:
        await writer.add_steps("AAAAA", 0, THROW)
        with steps_held(store) if postgresql else contextlib.nullcontext(lambda: None) as release:
            blocker = asyncio.ensure_future(writer.add_steps("CCCCC", 0, THROW))  # the connection is busy
            await asyncio.sleep(0.05)
            together = asyncio.gather(
                writer.add_steps("AAAAA", 0, THROW),  # steps 0 and 1 again: the database refuses them
                writer.add_steps("BBBBB", 0, THROW),
                return_exceptions=True,
            )
            release()
            results = await together
            await blocker
        await writer.aclose()
        return tuple(results)

    results = asyncio.run(play())
    assert isinstance(results[0], SQLAlchemyError)  # the table takes its steps back (Hub._commit)
    assert results[1] is None
    assert [len(row(store, code).steps) for code in ("AAAAA", "BBBBB", "CCCCC")] == [2, 2, 2]
    if postgresql:
        # they shared a statement, which the database refused; then each went alone
        assert statements == [["AAAAA"], ["CCCCC"], ["AAAAA", "BBBBB"], ["AAAAA"], ["BBBBB"]]


def finished_game() -> Game:
    session = Session(Ruleset.preset("classic-11"), parse_seats(["bot:heuristic", "bot:heuristic"]), seed=7)
    while session.waiting() in ("dice", "bot"):
        session.step()
    assert session.game.state.is_over
    return session.game


def test_one_table_failing_in_a_shared_transaction_takes_back_only_its_own_steps(store: Store) -> None:
    writer = Writer(store)
    game = finished_game()
    refused = game_rows(game, source="online")
    refused.game["kind"] = None  # the history refuses this game

    async def play() -> tuple[Any, ...]:
        results = await asyncio.gather(
            writer.add_steps("AAAAA", 0, THROW),
            writer.add_steps("BBBBB", 0, game.steps, refused),
            writer.add_steps("CCCCC", 0, THROW),
            return_exceptions=True,
        )
        await writer.aclose()
        return tuple(results)

    results = asyncio.run(play())
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], SQLAlchemyError)
    assert [len(row(store, code).steps) for code in ("AAAAA", "BBBBB", "CCCCC")] == [2, 0, 2]
    assert row(store, "BBBBB").status == "playing"
    assert History(engine=store.engine).games() == []


def test_a_game_that_ends_is_written_whole_and_its_history_as_the_history_writes_it(store: Store) -> None:
    """The end of a game in one write: its last steps, its row and its players' in the history and
    the table over; on PostgreSQL that is one statement of its own, held here to History.add."""
    game = finished_game()
    bots = {0: "heuristic", 1: "heuristic"}
    writer = Writer(store)

    async def play() -> int | None:
        number = await writer.add_steps("AAAAA", 0, game.steps, game_rows(game, bots=bots, source="online"))
        await writer.aclose()
        return number

    number = asyncio.run(play())
    assert number is not None
    history = History(engine=store.engine)
    by_history = history.add(game, bots=bots, source="online")
    table = row(store, "AAAAA")
    assert table.status == "over" and table.game_id == number and len(table.steps) == len(game.steps)
    assert history.record(number).to_dict() == history.record(by_history).to_dict()
    with store.begin() as conn:
        players = [
            conn.execute(
                select(game_players).where(game_players.c.game_id == n).order_by(game_players.c.seat)
            )
            .mappings()
            .all()
            for n in (number, by_history)
        ]
        rows = [
            conn.execute(select(games).where(games.c.id == n)).mappings().one() for n in (number, by_history)
        ]
    assert [{**p, "game_id": 0} for p in players[0]] == [{**p, "game_id": 0} for p in players[1]]
    assert [{**r, "id": 0, "finished_at": ""} for r in rows[0:1]] == [
        {**r, "id": 0, "finished_at": ""} for r in rows[1:2]
    ]


def test_writes_run_off_the_event_loop_in_the_order_asked(store: Store) -> None:
    if store.engine.dialect.name == "sqlite":
        pytest.skip("SQLite writes on the event loop: a commit there waits for nothing")
    writer = Writer(store)
    threads: list[str] = []

    def noted(code: str, **values: Any) -> None:
        threads.append(threading.current_thread().name)
        store.set_table(code, **values)

    async def play() -> None:
        await asyncio.gather(
            writer.call(noted, "AAAAA", rematch="BBBBB"),
            writer.add_steps("AAAAA", 0, THROW),
            writer.call(noted, "AAAAA", rematch="CCCCC"),
        )

    asyncio.run(play())
    writer.close()
    assert threads and all(name.startswith("py421-writer") for name in threads)
    assert row(store, "AAAAA").rematch == "CCCCC"  # the second change came last
    assert len(row(store, "AAAAA").steps) == 2


def test_sqlite_commits_at_once_on_the_event_loop_and_checkpoints_in_the_thread(
    store: Store, tmp_path: Path
) -> None:
    if store.engine.dialect.name != "sqlite":
        pytest.skip("PostgreSQL has no checkpoints of the server's to make")
    writer = Writer(store)
    loop_thread = threading.current_thread().name
    threads: dict[str, set[str]] = {"commits": set(), "checkpoints": set()}
    add_steps, checkpoint = store.add_steps, store.checkpoint

    def noted_add(*args: Any) -> int | None:
        threads["commits"].add(threading.current_thread().name)
        return add_steps(*args)

    def noted_checkpoint() -> None:
        threads["checkpoints"].add(threading.current_thread().name)
        checkpoint()

    store.add_steps = noted_add  # type: ignore[method-assign,assignment]
    store.checkpoint = noted_checkpoint  # type: ignore[method-assign]
    wal = tmp_path / "s.db-wal"
    largest = 0

    async def play() -> None:
        nonlocal largest
        for n in range(0, 12000, 2):
            step = writer.add_steps("AAAAA", n, THROW).__await__()
            with pytest.raises(StopIteration):  # done without waiting: no table waits on another's write
                step.send(None)
            largest = max(largest, wal.stat().st_size)
            running = writer._checkpoint
            if running is not None and not running.done():
                # the next commits wait for it, as on a machine that runs the thread at once: the WAL's
                # bound is then the checkpoints', not how busy the machine is (loaded, it passed 12 MB)
                await asyncio.wrap_future(running)
            await asyncio.sleep(0)

    asyncio.run(play())
    writer.close()
    assert threads["commits"] == {loop_thread}
    assert threads["checkpoints"] and all(name.startswith("py421-writer") for name in threads["checkpoints"])
    assert len(row(store, "AAAAA").steps) == 12000
    # Without checkpoints the WAL would hold every one of the 6,000 commits (55 MB); SQLite's
    # own starts it again past 1,000 pages (4 MB).
    assert largest < 12_000_000, f"the WAL grew to {largest} bytes"


def test_an_answer_the_writer_cannot_read_fails_the_write_and_leaves_no_table_waiting(store: Store) -> None:
    if store.engine.dialect.name != "postgresql":
        pytest.skip("SQLite's writes are read in the call")
    writer = Writer(store)
    game = finished_game()
    store.end_game_statement = lambda write: (b"SELECT 'no number'", [])  # type: ignore[method-assign]

    async def play() -> tuple[Any, ...]:
        ended = await asyncio.gather(
            asyncio.wait_for(writer.add_steps("AAAAA", 0, game.steps, game_rows(game, source="online")), 10),
            return_exceptions=True,
        )
        after = await writer.add_steps("BBBBB", 0, THROW)  # the writer goes on
        await writer.aclose()
        return ended[0], after

    ended, after = asyncio.run(play())
    assert isinstance(ended, SQLAlchemyError)  # not a wait without end: the table takes its steps back
    assert after is None and len(row(store, "BBBBB").steps) == 2


def test_a_lost_postgresql_connection_fails_one_write_and_the_next_connects_again(store: Store) -> None:
    if store.engine.dialect.name != "postgresql":
        pytest.skip("SQLite's writes have no connection to lose")
    writer = Writer(store)

    async def play() -> tuple[Any, ...]:
        await writer.add_steps("AAAAA", 0, THROW)
        pids = [pipe.pg.backend_pid for pipe in writer._open]
        with store.begin() as conn:  # the database server ends the writer's connections
            for pid in pids:
                conn.exec_driver_sql(f"SELECT pg_terminate_backend({int(pid)})")
        lost = await asyncio.gather(writer.add_steps("AAAAA", 2, THROW), return_exceptions=True)
        again = await writer.add_steps("AAAAA", 2, THROW)
        await writer.aclose()
        return lost[0], again

    lost, again = asyncio.run(play())
    assert isinstance(lost, SQLAlchemyError)  # the table takes these steps back; the player sends again
    assert again is None
    assert len(row(store, "AAAAA").steps) == 4


def new_table(code: str) -> TableRow:
    seats = [SeatRow(0, "human", None, "Ann", "hash-of-ann"), SeatRow(1, "bot", "heuristic", None, None)]
    return TableRow(
        code, now(), "play", {"preset": "classic-11"}, "waiting", "s", "h", 60, 1, None, None, seats, [], True
    )


def test_a_new_table_and_its_start_are_written_whole_and_once(store: Store) -> None:
    """A table is created with its seats, or not at all (a code taken already: IntegrityError, as the
    hub expects to draw another); it starts once, with its seats as the game has them."""
    writer = Writer(store)
    at_start = [
        SeatRow(0, "human", None, "Ann", "hash-of-ann"),
        SeatRow(1, "bot", "heuristic", "Heuristic 1", None),
    ]

    async def play() -> tuple[Any, ...]:
        await writer.create(new_table("DDDDD"))
        taken = await asyncio.gather(writer.create(new_table("AAAAA")), return_exceptions=True)
        first = await writer.start("DDDDD", at_start)
        again = await writer.start("DDDDD", at_start)
        await writer.aclose()
        return taken[0], first, again

    taken, first, again = asyncio.run(play())
    assert isinstance(taken, IntegrityError)
    assert row(store, "AAAAA").status == "playing" and row(store, "AAAAA").mode == "play"  # untouched
    assert (first, again) == (True, False)
    made = row(store, "DDDDD")
    assert (made.status, made.rules, made.timeout, made.first_seat, made.hints) == (
        "playing",
        {"preset": "classic-11"},
        60,
        1,
        True,
    )
    assert made.seats == at_start


def test_postgresql_sends_a_new_table_and_its_start_from_the_event_loop_with_their_news(store: Store) -> None:
    """No thread: each is one statement sent at once, and the other processes hear of each once."""
    if store.engine.dialect.name != "postgresql":
        pytest.skip("SQLite writes at once, in the call")
    import psycopg

    store.announce = "me"
    writer = Writer(store)
    url = store.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    listener = psycopg.connect(url, autocommit=True)
    listener.execute("LISTEN py421_changes")

    async def play() -> None:
        await writer.add_steps("AAAAA", 0, THROW)  # the connection is made
        await sent_at_once(writer, writer.create(new_table("DDDDD")))
        await sent_at_once(writer, writer.start("DDDDD", new_table("DDDDD").seats))
        await writer.aclose()

    asyncio.run(play())
    writer._thread.shutdown()
    heard = [json.loads(n.payload) for n in listener.notifies(timeout=1, stop_after=3)]
    listener.close()
    assert [n["code"] for n in heard] == ["AAAAA", "DDDDD", "DDDDD"]
    assert all(n["by"] == "me" for n in heard)
    assert row(store, "DDDDD").status == "playing"
