"""Two ``421 serve`` processes on one PostgreSQL database: one game across both, and fail-over."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from websockets.sync.client import connect

from py421.core.record import Record
from py421.server.app import create_app
from py421.server.cluster import Cluster
from py421.server.database import SeatRow, Store, TableRow, make_engine, migrate, now
from py421.server.limits import Limits
from py421.server.verify import verify

from .server_helpers import POSTGRES, create, fresh_postgres, play_to_the_end, start
from .server_process import free_port, start_server

pytestmark = pytest.mark.slow  # real server processes on PostgreSQL

if not POSTGRES:
    if os.environ.get("CI"):
        raise RuntimeError("CI runs the cluster tests: PY421_TEST_POSTGRES is not set")
    pytest.skip("no PostgreSQL: run the tests through scripts/check", allow_module_level=True)


class Process:
    def __init__(self, tmp: Path, db: str) -> None:
        tmp.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = start_server(tmp, self.port, "--bot-delay", "0.02", "--messages-per-second", "100", db=db)
        self.log = tmp / "server.log"

    def ws_url(self, code: str, token: str) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/{code}?token={token}"


class Player:
    """A person's phone: it acts only on what its own WebSocket shows, and reconnects elsewhere."""

    def __init__(self, name: str, code: str, token: str, seed: int) -> None:
        self.name, self.code, self.token = name, code, token
        self.rng = random.Random(seed)
        self.ws: Any = None
        self.opened = contextlib.ExitStack()
        self.last: dict[str, Any] | None = None
        self.sent: str | None = None
        self.acted = 0

    def connect(self, process: Process) -> None:
        self.close()
        self.opened = contextlib.ExitStack()
        self.ws = self.opened.enter_context(connect(process.ws_url(self.code, self.token), open_timeout=10))
        self.sent = None

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.opened.close()

    def step(self, seconds: float = 0.2) -> dict[str, Any] | None:
        """Read what came (up to ``seconds``) and act if it is this player's turn."""
        try:
            message: dict[str, Any] = json.loads(self.ws.recv(timeout=seconds))
        except TimeoutError:
            return self.last
        if message["type"] == "error":
            assert message["error"] in ("stale", "rate_limited"), message
            if message["error"] == "rate_limited" and self.sent is not None:  # faster than a person
                time.sleep(1)
                self.ws.send(self.sent)
            return self.last
        if message["type"] != "table":
            return self.last
        self.last = message
        view = message["view"]
        if view is not None and view["your_turn"] and view["outcome"] is None:
            action = self.rng.choice(view["legal_actions"])["text"]
            self.sent = json.dumps({"type": "act", "version": message["version"], "action": action})
            self.ws.send(self.sent)
            self.acted += 1
        return message


def over(player: Player) -> bool:
    return bool(player.last and player.last["view"] and player.last["view"]["outcome"] is not None)


def test_players_on_two_processes_play_to_the_end_and_a_killed_owner_is_taken_over(tmp_path: Path) -> None:
    assert POSTGRES is not None
    db = fresh_postgres(POSTGRES)
    a, b = Process(tmp_path / "a", db), Process(tmp_path / "b", db)
    alice, bob = Player("Alice", "", "", 1), Player("Bob", "", "", 2)
    try:
        body = {
            "rules": "vache-41",
            "seats": ["human", "human", "bot:heuristic"],
            "name": "Alice",
            "timeout": 0,
        }
        created = httpx2.post(f"{a.base}/api/tables", json=body, timeout=30).json()
        code = alice.code = bob.code = created["code"]
        # Bob joins through the other process: the seat is given once, by the table's owner
        joined = httpx2.post(f"{b.base}/api/tables/{code}/join", json={"name": "Bob"}, timeout=30)
        assert joined.status_code == 200, joined.text
        again = httpx2.post(f"{b.base}/api/tables/{code}/join", json={"name": "Cy"}, timeout=30)
        assert again.status_code == 409 and again.json()["detail"]["error"] == "full"
        alice.token, bob.token = created["token"], joined.json()["token"]
        alice.connect(a)
        bob.connect(b)
        started = httpx2.post(
            f"{b.base}/api/tables/{code}/start",  # started through the process that does not own it
            headers={"Authorization": f"Bearer {created['token']}"},
            timeout=30,
        )
        assert started.status_code == 200, started.text
        deadline = time.monotonic() + 120
        while (alice.acted < 4 or bob.acted < 4) and time.monotonic() < deadline and not over(alice):
            alice.step()
            bob.step()  # Bob sees the game start and every move through his own process
        assert alice.acted >= 4 and bob.acted >= 4 and not over(alice)  # mid-game (vache-41 is long)
        a.proc.send_signal(signal.SIGKILL)  # the owner dies
        a.proc.wait(10)
        alice.connect(b)  # the page reconnects, to whichever process is left
        before = alice.acted + bob.acted
        while not (over(alice) and over(bob)) and time.monotonic() < deadline:
            alice.step()
            bob.step()
        assert alice.acted + bob.acted > before  # they played on through the other process
        assert over(alice) and over(bob), "the game did not finish"
        assert alice.last is not None and bob.last is not None
        assert alice.last["view"]["outcome"] == bob.last["view"]["outcome"]
        record = httpx2.get(f"{b.base}/api/tables/{code}/record", timeout=30).json()
        verdict = verify(Record.from_dict(record))
        assert verdict.problems == []  # every throw, before and after the kill, from the seed
        assert len(record["steps"]) == alice.last["version"]
        games = httpx2.get(f"{b.base}/api/games", timeout=30).json()
        assert sum(1 for g in games if g["players"][:2] == ["Alice", "Bob"]) == 1  # recorded once
    finally:
        for player in (alice, bob):
            player.close()
        for p in (a, b):
            if p.proc.poll() is None:
                p.proc.terminate()
                p.proc.wait(15)
    for p in (a, b):
        assert "Traceback" not in p.log.read_text(errors="replace")


def test_a_second_process_on_one_sqlite_file_is_refused(tmp_path: Path) -> None:
    first = Process(tmp_path / "one", f"sqlite:///{tmp_path}/shared.db")
    try:
        second = subprocess.run(
            [
                sys.executable,
                "-m",
                "py421",
                "serve",
                "--port",
                str(free_port()),
                "--db",
                f"sqlite:///{tmp_path}/shared.db",
            ],
            capture_output=True,
            text=True,
            timeout=60,
            env=os.environ | {"PY421_HOME": str(tmp_path)},
        )
        assert second.returncode != 0
        assert "another 421 serve already uses" in second.stderr
        assert "PostgreSQL" in second.stderr
        assert "Traceback" not in second.stderr
    finally:
        first.proc.terminate()
        first.proc.wait(15)


def test_a_table_that_cannot_be_read_does_not_keep_the_others_from_being_taken_over(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A process's scan finds two tables without an owner; one is unreadable: the other is played on."""
    assert POSTGRES is not None
    db = fresh_postgres(POSTGRES)
    with TestClient(create_app(db, bot_delay=0)) as first:  # makes a table, then stops
        created = create(first, seats=["human", "bot:heuristic"], rules="lyonnaise-21")
        code, token = created["code"], created["token"]
        start(first, code, token)
    engine = create_engine(db)
    with engine.begin() as conn:  # a table a newer py421 wrote, say: rules this one cannot read
        conn.execute(
            text(
                "INSERT INTO online_tables (code, created_at, mode, rules, status, seed, seed_hash, "
                "timeout, first_seat) VALUES ('AAAAA', '2026-01-01', 'play', '{\"nope\": 1}', 'playing', "
                "'s', 'h', 0, 0)"
            )
        )
    engine.dispose()
    with TestClient(create_app(db, bot_delay=0, limits=Limits(messages_per_second=1000))) as second:
        hub = second.app.state.hub  # type: ignore[attr-defined]
        deadline = time.monotonic() + 20
        while code not in hub.owned() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert code in hub.owned()
        with second.websocket_connect(f"/ws/{code}?token={token}") as ws:
            assert play_to_the_end(ws)["table"]["status"] == "over"  # played on by its new owner
    assert "AAAAA" in caplog.text and "could not be read" in caplog.text


class Nobody:
    """A process's tables, as far as its cluster asks: none here."""

    async def serve_request(self, code: str, kind: str, args: dict[str, Any]) -> dict[str, Any]:
        return {}

    async def caught_up(self, code: str, news: dict[str, Any] | None = None) -> None:
        pass

    def holds_copy(self, code: str) -> bool:
        return False

    async def adopt(self, code: str) -> None:
        pass

    def disown_all(self) -> None:
        pass

    def copies(self) -> list[str]:
        return []

    def heard_presence(self, by: str, code: str, seats: list[int], watching: bool) -> None:
        pass


def _ownerless_table(code: str) -> str:
    """A fresh database holding one table in play that no process owns; its URL."""
    assert POSTGRES is not None
    db = fresh_postgres(POSTGRES)
    engine = make_engine(db)
    migrate(engine)
    seats = [SeatRow(0, "human", None, "Ann", None)]
    Store(engine).create(TableRow(code, now(), "play", {}, "playing", "s", "h", 0, 0, None, None, seats, []))
    engine.dispose()
    return db


def test_a_process_never_takes_over_a_table_it_is_claiming_itself() -> None:
    """Its scan, queued behind its own claim of a new table, must not count that table as ownerless
    (the table would be read back from the database and played twice)."""
    db = _ownerless_table("NEWTB")

    async def claim_and_scan() -> list[str]:
        cluster = Cluster(db, scan_seconds=3600)
        await cluster.start(Nobody())
        try:
            claimed, found = await asyncio.gather(cluster.claim("NEWTB"), cluster.scan())
            assert claimed
            return found
        finally:
            await cluster.close()

    assert asyncio.run(claim_and_scan()) == []


async def _started(cluster: Cluster, member: Any = None) -> None:
    """Start ``cluster`` and wait for its first scan to be done. That scan takes over what has no owner
    (the test's table) whenever the loop lets it run: done first, it cannot take later a table the
    test has just freed or given (it did, on a loaded machine, and held it for the rest of the test)."""
    scanned = asyncio.Event()
    scan = cluster.scan

    async def scan_then_say() -> list[str]:
        try:
            return await scan()
        finally:
            scanned.set()

    cluster.scan = scan_then_say  # type: ignore[method-assign]
    await cluster.start(member or Nobody())
    await scanned.wait()
    cluster.scan = scan  # type: ignore[method-assign]


async def _scan_held(cluster: Cluster) -> Any:
    """Start ``cluster`` with its first scan held on its way by another session holding the tables'
    table; that session, to let the scan go (``rollback``)."""
    import psycopg

    blocker = await psycopg.AsyncConnection.connect(cluster.url)
    await blocker.execute("LOCK TABLE online_tables IN ACCESS EXCLUSIVE MODE")
    await cluster.start(Nobody())
    for _ in range(3000):  # until the first scan is sent (a guard, not a measure)
        if cluster._lock_use.locked():
            break
        await asyncio.sleep(0.01)
    assert cluster._lock_use.locked(), "the process did not scan"
    return blocker


async def _takes(session: Any, code: str) -> bool:
    """Whether another session takes the lock of table ``code`` (a process free to take it over)."""
    cursor = await session.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 421))", (code,))
    row = await cursor.fetchone()
    assert row is not None
    return bool(row[0])


def test_a_table_claimed_while_the_process_s_scan_takes_it_is_freed_by_one_release() -> None:
    """The scan a process starts with is on its way when the process claims the same table: the scan
    takes its lock, and the claim, sent after it, must not take it a second time (a lock taken twice
    needs freeing twice: once released, the table would stay locked, and the process it was given to
    would wait for it forever)."""
    db = _ownerless_table("TWICE")

    async def claim_release_and_try() -> bool:
        cluster = Cluster(db, scan_seconds=3600, lock_wait=600)  # the scan waits as long as it is held
        blocker = await _scan_held(cluster)
        try:
            claiming = asyncio.ensure_future(cluster.claim("TWICE"))
            await asyncio.sleep(0)  # the claim waits behind the scan
            await blocker.rollback()  # the scan goes through and takes the table; then the claim
            assert await claiming
            await cluster.release("TWICE", given=True)
            # another process takes it (while this one still holds its locks' connection)
            return await _takes(blocker, "TWICE")
        finally:
            await blocker.close()
            await cluster.close()

    assert asyncio.run(claim_release_and_try()), "the table stayed locked once released"


def test_a_table_claimed_twice_at_once_is_freed_by_one_release() -> None:
    """Two of a table's players connect to one process at the same moment, and each connection claims
    the table: the two claims go in one statement, which must take the lock once."""
    db = _ownerless_table("OTHER")  # a new table, which no scan finds: the claims alone lock it

    async def claim_twice_release_and_try() -> tuple[bool, bool, bool]:
        import psycopg

        cluster = Cluster(db, scan_seconds=3600)
        other = await psycopg.AsyncConnection.connect(cluster.url, autocommit=True)
        await cluster.start(Nobody())
        try:
            first, second = await asyncio.gather(cluster.claim("BOTH"), cluster.claim("BOTH"))
            await cluster.release("BOTH", given=True)
            return first, second, await _takes(other, "BOTH")
        finally:
            await other.close()
            await cluster.close()

    assert asyncio.run(claim_twice_release_and_try()) == (True, True, True)


def test_a_claim_repeated_in_a_statement_is_answered_when_the_first_claimer_gave_up() -> None:
    """Two claims of one table wait behind a scan; the first claimer gives up (its task cancelled)
    before the statement is answered: the second claim still gets its answer."""
    db = _ownerless_table("OTHER")

    async def give_up_first() -> bool:
        cluster = Cluster(db, scan_seconds=3600, lock_wait=600)  # the scan waits as long as it is held
        blocker = await _scan_held(cluster)
        try:
            first = asyncio.ensure_future(cluster.claim("BOTH"))
            second = asyncio.ensure_future(cluster.claim("BOTH"))
            await asyncio.sleep(0)  # both wait behind the scan
            first.cancel()
            await blocker.rollback()
            return await asyncio.wait_for(second, 120)  # a guard against a claim never answered
        finally:
            await blocker.close()
            await cluster.close()

    assert asyncio.run(give_up_first())


def test_a_process_closed_with_a_claim_waiting_holds_no_lock_after() -> None:
    """A process closes while its scan is on its way and a claim waits behind it: once closed, it
    holds no table and no connection to the database (it used to connect again for the claim, and
    take the table's lock after it had closed)."""
    db = _ownerless_table("OTHER")

    async def close_while_claiming() -> tuple[object, bool, bool, bool]:
        cluster = Cluster(db, scan_seconds=3600, lock_wait=600)  # the scan waits as long as it is held
        blocker = await _scan_held(cluster)
        try:
            claim = asyncio.ensure_future(cluster.claim("AFTER"))
            await asyncio.sleep(0)  # it waits behind the scan
            await cluster.close()
            await blocker.rollback()
            answered: object = None
            with contextlib.suppress(Exception):
                answered = await asyncio.wait_for(claim, 120)  # a guard against a claim never answered
            sending = cluster._locking_ops  # the claims' task, where closing left one running
            if sending is not None:
                await asyncio.wait([sending], timeout=120)
            return answered, await _takes(blocker, "AFTER"), not cluster.owned, bool(cluster._locks.closed)
        finally:
            await blocker.close()

    # the claim is answered: not this process's table; nobody holds it; no connection is left open
    assert asyncio.run(close_while_claiming()) == (False, True, True, True)


def test_a_claim_is_answered_while_the_tables_are_locked_by_a_migration() -> None:
    """Another session holds the tables' table (a migration, a VACUUM FULL): the process's scan, which
    reads it, gives up for now, and the claims queued behind it are answered meanwhile; the tables
    the process holds stay its own."""
    db = _ownerless_table("OTHER")

    async def claim_while_locked() -> tuple[bool, bool]:
        import psycopg

        cluster = Cluster(db, scan_seconds=3600)
        await cluster.start(Nobody())
        blocker = await psycopg.AsyncConnection.connect(cluster.url)
        try:
            assert await cluster.claim("HELD")
            await blocker.execute("LOCK TABLE online_tables IN ACCESS EXCLUSIVE MODE")
            scanning = asyncio.ensure_future(cluster.scan())
            await asyncio.sleep(0)  # on its way, and held
            claimed = await asyncio.wait_for(cluster.claim("NEW"), 120)  # a guard: answered long before
            with contextlib.suppress(Exception):
                await asyncio.wait_for(scanning, 120)
            return claimed, cluster.owns("HELD")
        finally:
            await blocker.close()
            await cluster.close()

    assert asyncio.run(claim_while_locked()) == (True, True)


def test_a_locks_connection_lost_without_a_goodbye_leaves_no_table_locked() -> None:
    """The locks' connection fails, and closing it does not reach the database (a network cut): the
    process connects again and owns nothing, and the old session, still holding the locks on the
    database's side, has ended once the failure is told, so that another process takes the tables
    at once (ending a session is a signal: the process waits for it to be gone)."""
    db = _ownerless_table("OTHER")

    async def lose_and_claim_elsewhere() -> tuple[int, bool]:
        import psycopg

        # the old session is waited for as long as it takes to end, whatever the machine's load
        cluster, other = Cluster(db, scan_seconds=3600, lock_wait=120), Cluster(db, scan_seconds=3600)
        await cluster.start(Nobody())
        await other.start(Nobody())
        lost = cluster._locks
        old = lost.info.backend_pid
        look = await psycopg.AsyncConnection.connect(cluster.url, autocommit=True)  # open before: no delay
        try:
            assert await cluster.claim("KEPT")

            async def failing(*args: Any, **kwargs: Any) -> Any:
                raise psycopg.OperationalError("the connection is gone")

            async def unheard() -> None:  # the goodbye never reaches the database
                pass

            lost.execute, lost.close = failing, unheard
            with contextlib.suppress(Exception):
                await cluster.scan()
            assert not cluster.owns("KEPT")
            cursor = await look.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (old,))
            found = await cursor.fetchone()
            assert found is not None
            return found[0], await other.claim("KEPT")
        finally:
            await look.close()
            await other.close()
            await cluster.close()
            with contextlib.suppress(Exception):
                await psycopg.AsyncConnection.close(lost)

    assert asyncio.run(lose_and_claim_elsewhere()) == (0, True)


def test_a_request_whose_note_cannot_leave_fails_in_time_and_the_next_one_goes_through() -> None:
    """The connection that sends a process's requests stalls (a half-open connection): the request
    waiting on it fails within the time a request is given, and the next one goes through a new
    connection and is answered."""
    db = _ownerless_table("OTHER")

    async def stall_once() -> tuple[bool, dict[str, Any]]:
        owner, asker = Cluster(db, scan_seconds=3600), Cluster(db, scan_seconds=3600)
        await _started(owner)
        await _started(asker)
        try:
            assert await owner.claim("ASKED")
            stalled = asker._notes

            async def never(*args: Any, **kwargs: Any) -> Any:
                await asyncio.Event().wait()

            stalled.execute = never
            failed = False
            try:  # the guard only ends a request that hangs: it fails well before
                await asyncio.wait_for(asker.request("ASKED", "act", {"seat": 0}), 60)
            except TimeoutError:
                failed = asker._notes is not stalled  # its own time out, the connection replaced
            answer = await asyncio.wait_for(asker.request("ASKED", "act", {"seat": 0}), 60)
            return failed, answer
        finally:
            await asker.close()
            await owner.close()

    assert asyncio.run(stall_once()) == (True, {"result": {}})  # the owner (here: nobody) answered


def test_a_process_leaves_to_its_player_the_table_it_is_asking_for() -> None:
    """A table given to this process because one of its players connected here is claimed by the
    connection that asked for it: the process's scan, running meanwhile, must not take it over (and
    read it back and play it a second time, logging a table without an owner that had one)."""
    db = _ownerless_table("ASKED")

    async def ask_and_scan() -> list[str]:
        cluster = Cluster(db, scan_seconds=3600)
        await cluster.start(Nobody())
        try:
            with cluster.asking_for("ASKED"):  # its owner has just given it: the asker's claim is on its way
                return await cluster.scan()
        finally:
            await cluster.close()

    assert asyncio.run(ask_and_scan()) == []


def test_a_process_that_gave_a_table_and_asks_it_back_sends_its_requests_on() -> None:
    """A player with tabs on two processes: the owner gives the table to one while the other asks for
    it too. A move heard by the process that just gave it (and asks it back) must be answered "moved"
    at once, to be asked again of the new owner: answered by nobody, it waited 3 s in play."""
    db = _ownerless_table("GIVEN")

    async def give_and_ask() -> dict[str, Any]:
        import psycopg

        # nobody answering, the request fails when the asker stops waiting: then, not before, however
        # slow the machine
        giver, asker = Cluster(db, scan_seconds=3600), Cluster(db, scan_seconds=3600, answer_seconds=120)
        await _started(giver)
        await _started(asker)
        third = await psycopg.AsyncConnection.connect(giver.url, autocommit=True)
        await third.execute("SET lock_timeout = '120s'")  # a lock never freed fails the test, not hangs it
        try:
            assert await giver.claim("GIVEN")
            await giver.release("GIVEN", given=True)
            # to a third process, which has the lock but has not yet heard that it has
            await third.execute("SELECT pg_advisory_lock(hashtextextended('GIVEN', 421))")
            with giver.asking_for("GIVEN"):  # and one of its players connects here: it asks it back
                return await asker.request("GIVEN", "act", {"seat": 0, "version": 1, "move": "throw"})
        finally:
            await third.close()
            await asker.close()
            await giver.close()

    assert asyncio.run(give_and_ask()) == {"moved": True}  # answered by the giver, not by nobody


def test_many_tables_claimed_and_freed_at_once_share_the_round_trips_to_the_database() -> None:
    """A busy process claims a lock for every new table and frees one for every finished table: asked
    together, they go together, in the order asked, rather than waiting in line for the locks'
    connection one round trip each."""
    db = _ownerless_table("FIRST")
    codes = [f"T{i:04d}" for i in range(60)]

    async def claim_and_free() -> tuple[list[bool], int, list[bool]]:
        cluster = Cluster(db, scan_seconds=3600)
        await cluster.start(Nobody())
        statements = 0
        locking = cluster._locking

        async def counted(sql: str, params: Any) -> list[tuple[Any, ...]]:
            nonlocal statements
            statements += 1
            return await locking(sql, params)

        cluster._locking = counted  # type: ignore[method-assign]
        try:
            claimed = await asyncio.gather(*(cluster.claim(code) for code in codes))
            await asyncio.gather(*(cluster.release(code) for code in codes[:30]))
            other = Cluster(db, scan_seconds=3600)  # another process: what is free, it may take
            await other.start(Nobody())
            try:
                taken = await asyncio.gather(*(other.claim(code) for code in codes))
            finally:
                await other.close()
            return claimed, statements, taken
        finally:
            await cluster.close()

    claimed, statements, taken = asyncio.run(claim_and_free())
    assert all(claimed)
    assert statements <= 4  # 60 claims and 30 releases: a round trip each would be 90
    assert taken == [True] * 30 + [False] * 30  # what was freed is free, the rest still held


def test_a_scan_does_not_take_again_a_table_whose_release_waits_to_be_sent() -> None:
    """A lock this process holds is granted to it again: a scan that runs while the table's release
    waits its turn must leave the table alone, or the lock, taken twice, stays held once freed."""
    db = _ownerless_table("FREED")

    async def release_behind_a_scan() -> tuple[list[str], bool]:
        cluster = Cluster(db, scan_seconds=3600)
        other = Cluster(db, scan_seconds=3600)
        await _started(cluster)
        await _started(other)
        try:
            assert await cluster.claim("FREED")
            async with cluster._lock_use:  # a statement is on its way: the scan and the release wait
                scan = asyncio.ensure_future(cluster.scan())
                await asyncio.sleep(0.05)
                release = asyncio.ensure_future(cluster.release("FREED"))
                await asyncio.sleep(0.05)
            found = await scan
            await release
            return found, await other.claim("FREED")
        finally:
            await other.close()
            await cluster.close()

    found, taken_elsewhere = asyncio.run(release_behind_a_scan())
    assert found == []
    assert taken_elsewhere  # freed for good: another process may take it


class Keeping(Nobody):
    """A process keeping a copy of one table that another process owns, and what it hears of it."""

    def __init__(self, code: str) -> None:
        self.code = code
        self.heard: list[dict[str, Any] | None] = []

    async def caught_up(self, code: str, news: dict[str, Any] | None = None) -> None:
        self.heard.append(news)

    def holds_copy(self, code: str) -> bool:
        return code == self.code

    def copies(self) -> list[str]:
        return [self.code]


def test_a_process_whose_listening_connection_is_lost_listens_again_and_reads_its_copies_again() -> None:
    """The connection that hears the other processes' news and requests is lost (the database
    restarted, a proxy cut it): the process listens again, reads again every table it keeps a copy of
    (their news of the meantime are lost), and hears the next news."""
    db = _ownerless_table("HELD1")
    url = db.replace("postgresql+psycopg://", "postgresql://")

    async def lose_the_listener() -> list[dict[str, Any] | None]:
        import psycopg

        member = Keeping("HELD1")
        cluster = Cluster(db, scan_seconds=3600)
        await cluster.start(member)
        other = await psycopg.AsyncConnection.connect(url, autocommit=True)
        try:
            await other.execute("SELECT pg_terminate_backend(%s)", (cluster._listen.pgconn.backend_pid,))
            deadline = time.monotonic() + 10
            while None not in member.heard and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            news = json.dumps({"code": "HELD1", "by": "another process"})
            await other.execute("SELECT pg_notify('py421_changes', %s)", (news,))
            while len(member.heard) < 2 and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            return member.heard
        finally:
            await other.close()
            await cluster.close()

    assert asyncio.run(lose_the_listener()) == [None, {"code": "HELD1", "by": "another process"}]


@contextlib.contextmanager
def two_processes(
    a: Limits | None = None, b: Limits | None = None
) -> Iterator[tuple[TestClient, TestClient]]:
    """Two server processes (two apps, in this one) on a fresh PostgreSQL database."""
    assert POSTGRES is not None
    db = fresh_postgres(POSTGRES)
    a = a or Limits()
    with (
        TestClient(create_app(db, bot_delay=0, limits=a)) as first,
        TestClient(create_app(db, bot_delay=0, limits=b or a)) as second,
    ):
        yield first, second


def asked_for_its_table(hub: Any) -> threading.Event:
    """Set once ``hub`` has asked another process for a table a player connected to it plays at,
    and had its answer (kept there, or given)."""
    asked = threading.Event()
    come_here = hub._come_here

    async def noted(code: str, seat: int) -> None:
        try:
            await come_here(code, seat)
        finally:
            asked.set()

    hub._come_here = noted
    return asked


def _owner_wait(hub: Any, code: str, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while code not in hub.owned() and time.monotonic() < deadline:
        time.sleep(0.05)
    return code in hub.owned()


def late_answers(asker: Any, owner: Any, kinds: tuple[str, ...]) -> list[str]:
    """The owner answers ``kinds`` only once the asker has stopped waiting for an answer, however fast
    both are; the asker then waits as long as it takes. Returns the kinds the owner served."""
    gave_up = threading.Event()
    request, serve, served = asker.cluster.request, owner.serve_request, []

    async def impatient(*args: Any, **kwargs: Any) -> dict[str, Any]:
        try:
            answer: dict[str, Any] = await request(*args, **kwargs)
        except TimeoutError:
            gave_up.set()
            asker.cluster.answer_seconds = 60  # asked again: it waits for the answer this time
            raise
        return answer

    async def late(code: str, kind: str, args: dict[str, Any]) -> dict[str, Any]:
        served.append(kind)
        if kind in kinds:
            assert await asyncio.to_thread(gave_up.wait, 60), "the asker never stopped waiting"
        answer: dict[str, Any] = await serve(code, kind, args)
        return answer

    asker.cluster.answer_seconds = 0.3
    asker.cluster.request = impatient
    owner.serve_request = late
    return served


def test_a_table_given_by_an_owner_too_busy_to_answer_in_time_is_taken_at_once(tmp_path: Path) -> None:
    """Under load the owner's answer to "give" may come after the asker stopped waiting: the table it
    gave must not stay without an owner until a scan finds it (its players would wait that long)."""
    with two_processes() as (a, b):
        hub_a, hub_b = a.app.state.hub, b.app.state.hub  # type: ignore[attr-defined]
        for hub in (hub_a, hub_b):
            hub.cluster.scan_seconds = 3600  # after the scan under way: no scan takes the table
        time.sleep(2.5)
        created = create(a, seats=["human", "bot:heuristic"])
        code, token = created["code"], created["token"]
        late_answers(hub_b, hub_a, ("give",))  # every give comes too late for B
        with b.websocket_connect(f"/ws/{code}?token={token}") as ws:
            ws.receive_json()
            assert _owner_wait(hub_b, code, seconds=30), "the table was left without an owner"
            assert code not in hub_a.owned()


def test_a_change_asked_again_of_a_slow_owner_is_made_once_and_answered(tmp_path: Path) -> None:
    """Under load the owner answers after the asker stopped waiting, and the asker asks again: the
    start it made must not then be refused as "already started" (409), nor made twice."""
    with two_processes() as (a, b):
        hub_a, hub_b = a.app.state.hub, b.app.state.hub  # type: ignore[attr-defined]
        created = create(a, seats=["human", "bot:heuristic"])
        code, token = created["code"], created["token"]
        assert code in hub_a.owned()
        served = late_answers(hub_b, hub_a, ("start",))
        started = b.post(f"/api/tables/{code}/start", headers={"Authorization": f"Bearer {token}"})
        assert started.status_code == 200, started.text
        assert served == ["start"]  # asked twice, made once
        assert a.get(f"/api/tables/{code}").json()["status"] == "playing"


def test_a_table_moves_to_the_process_its_players_play_through(tmp_path: Path) -> None:
    """Behind a load balancer a table is made through one process and played through another: it
    moves to the process its seated player is connected to, so their moves are not forwarded; a
    table whose players are connected to both processes stays where it is."""
    with two_processes(Limits(messages_per_second=1000)) as (a, b):
        hub_a, hub_b = a.app.state.hub, b.app.state.hub  # type: ignore[attr-defined]
        created = create(a, seats=["human", "bot:heuristic"])
        code, token = created["code"], created["token"]
        assert code in hub_a.owned()
        with b.websocket_connect(f"/ws/{code}?token={token}") as ws:
            first = ws.receive_json()
            assert _owner_wait(hub_b, code), "the table did not follow its player"
            assert code not in hub_a.owned()
            start(a, code, token)  # through the process it left: passed on to its new owner
            assert play_to_the_end(ws, first=first)["table"]["status"] == "over"
            assert code in hub_b.owned() and code not in hub_a.owned()

        two = create(a, seats=["human", "human"])
        code2 = two["code"]
        joined = b.post(f"/api/tables/{code2}/join", json={"name": "Bob"})
        assert joined.status_code == 200, joined.text
        asked = asked_for_its_table(hub_b)
        with a.websocket_connect(f"/ws/{code2}?token={two['token']}") as alice:
            alice.receive_json()  # Alice is connected through A before Bob's process asks
            with b.websocket_connect(f"/ws/{code2}?token={joined.json()['token']}"):
                assert asked.wait(60), "Bob's process never asked for the table"
                assert code2 in hub_a.owned() and code2 not in hub_b.owned()  # Alice plays through A


def test_a_table_its_player_takes_from_process_to_process_and_back_has_an_owner_at_once(
    tmp_path: Path,
) -> None:
    """A reloading phone behind a load balancer reaches one process, then another, then the first
    again: each time the table must come to it, not be left without an owner (nobody plays its bots
    nor answers its moves) until the processes stop leaving out of their scans what they gave."""
    with two_processes() as (a, b):
        hub_a, hub_b = a.app.state.hub, b.app.state.hub  # type: ignore[attr-defined]
        created = create(a, seats=["human", "bot:heuristic"])
        code, token = created["code"], created["token"]
        for there in (b, a, b):
            with there.websocket_connect(f"/ws/{code}?token={token}") as ws:
                ws.receive_json()
                # it comes here, or stays where the last connection is not yet seen closed
                deadline = time.monotonic() + 3
                while not (owners := [h for h in (hub_a, hub_b) if code in h.owned()]):
                    assert time.monotonic() < deadline, "the table was left without an owner"
                    time.sleep(0.05)
                assert len(owners) == 1


def test_a_table_asked_back_for_two_connections_at_once_is_taken_when_given(tmp_path: Path) -> None:
    """Two tabs of a player (or two players) connect to the process that gave their table away a
    moment ago: one ask is answered "moved" (the table was on its way), the other "given". The
    process must take it: when the first ask ended it forgot it was asking, so the second took the
    table for one it had given away, and nobody played it until the 10 s of a gift were over."""
    with two_processes() as (a, b):
        hub_a, hub_b = a.app.state.hub, b.app.state.hub  # type: ignore[attr-defined]
        created = create(b, seats=["human", "human"])
        code, token = created["code"], created["token"]
        with a.websocket_connect(f"/ws/{code}?token={token}") as ws:
            ws.receive_json()
            assert _owner_wait(hub_a, code), "the table did not follow its player"  # B gave it to A
        # the player has left A (under load, A may let the seat go a moment after the socket closed)
        deadline = time.monotonic() + 30
        while (held := hub_a.tables.get(code)) is not None and held.seated_here:
            assert time.monotonic() < deadline, "A kept the seat of a player who left"
            time.sleep(0.05)
        asked = hub_b.cluster.request

        async def first_moved_then_given(
            code: str, kind: str, args: dict[str, Any], ident: str | None = None
        ) -> dict[str, Any]:
            if args["seat"] == 0:
                await asyncio.sleep(0.1)
                return {"moved": True}
            await asyncio.sleep(0.3)  # answered after the first ask is over
            answer: dict[str, Any] = await asked(code, kind, args, ident)
            return answer

        hub_b.cluster.request = first_moved_then_given

        async def two_tabs() -> None:
            await asyncio.gather(hub_b._come_here(code, 0), hub_b._come_here(code, 1))

        assert b.portal is not None
        b.portal.call(two_tabs)
        assert code not in hub_a.owned()
        assert _owner_wait(hub_b, code, seconds=1), "the table was left without an owner"


def test_tables_in_play_follow_their_players_past_the_process_s_cap_on_tables(tmp_path: Path) -> None:
    """``--max-tables`` refuses new tables; a game already going on that comes to a process (its
    player connects there) is taken all the same, not left stranded."""
    with two_processes(Limits(), Limits(live_tables=1)) as (a, b):
        hub_b = b.app.state.hub  # type: ignore[attr-defined]
        codes = []
        for _ in range(2):
            created = create(a, seats=["human", "bot:heuristic"])
            start(a, created["code"], created["token"])
            codes.append((created["code"], created["token"]))
        for code, token in codes:
            with b.websocket_connect(f"/ws/{code}?token={token}") as ws:
                ws.receive_json()
                assert _owner_wait(hub_b, code), "the table did not follow its player"
        refused = b.post("/api/tables", json={"seats": ["human", "bot:heuristic"], "name": "Zoé"})
        assert refused.status_code == 503 and "all the tables it can hold" in refused.text, refused.text


def test_a_huge_token_sent_through_another_process_is_refused_as_by_the_owner(tmp_path: Path) -> None:
    with two_processes() as (a, b):
        code = create(a, seats=["human", "bot:heuristic"])["code"]
        huge = {"Authorization": "Bearer " + "x" * 9000}
        for there in (a, b):
            for action in ("start", "rematch"):
                refused = there.post(f"/api/tables/{code}/{action}", headers=huge)
                assert refused.status_code == 403, refused.text
                assert refused.json()["detail"]["error"] == "not_creator"


@pytest.mark.timeout(60)  # a dropped socket left unanswered would wait for ever
def test_a_move_passed_on_when_the_connection_for_requests_fails_is_still_answered(tmp_path: Path) -> None:
    """The connection that carries requests to the other processes is lost (the database restarted,
    a proxy cut it) as a player's move is passed on: the move is asked again through a new one, and
    the player's WebSocket stays open."""
    import psycopg

    with two_processes(Limits(messages_per_second=1000)) as (a, b):
        hub_b = b.app.state.hub  # type: ignore[attr-defined]
        created = create(a, seats=["human", "human"])
        code = created["code"]
        joined = b.post(f"/api/tables/{code}/join", json={"name": "Bob"})
        assert joined.status_code == 200, joined.text
        asked = asked_for_its_table(hub_b)
        with a.websocket_connect(f"/ws/{code}?token={created['token']}") as alice:
            alice.receive_json()  # Alice is connected through A before Bob's process asks
            with b.websocket_connect(f"/ws/{code}?token={joined.json()['token']}") as bob:
                bob.receive_json()
                assert asked.wait(60), "Bob's process never asked for the table"  # told Alice keeps it
                send = hub_b.cluster._send_notes
                lost: list[list[str]] = []

                async def lost_once(channels: list[str], payloads: list[str]) -> None:
                    if not lost:
                        lost.append(channels)
                        raise psycopg.OperationalError("server closed the connection unexpectedly")
                    await send(channels, payloads)

                hub_b.cluster._send_notes = lost_once
                bob.send_json({"type": "act", "version": 0, "action": "stop"})
                answer = bob.receive_json()
                while answer["type"] != "error":
                    answer = bob.receive_json()
                assert lost and answer["error"] == "not_started", answer
                bob.send_json({"type": "ping"})
                assert bob.receive_json()["type"] == "pong"


def test_a_table_shown_or_refused_by_a_process_that_does_not_own_it_is_not_kept_there(tmp_path: Path) -> None:
    """A table in play kept by a process that does not own it is read again at each of its steps
    and counts against that process's tables: one a client only looked at must not stay."""
    with two_processes(Limits(), Limits(spectators=0)) as (a, b):
        hub_b = b.app.state.hub  # type: ignore[attr-defined]
        created = create(a, seats=["human", "bot:heuristic"])
        code = created["code"]
        start(a, code, created["token"])
        shown = b.get(f"/api/tables/{code}")
        assert shown.status_code == 200 and shown.json()["status"] == "playing"
        assert code not in hub_b.tables
        with b.websocket_connect(f"/ws/{code}") as ws:
            assert ws.receive_json()["error"] == "too_many_spectators"
        assert code not in hub_b.tables


def test_a_process_whose_database_is_away_says_so_in_a_line_a_scan_not_in_tracebacks(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """While the database is away every scan (each two seconds) fails: the operator reads why, once
    a line, not a traceback each time; the process takes its tables again once it is back."""
    db = _ownerless_table("AWAY1")

    async def away_and_back() -> list[str]:
        cluster = Cluster(db, scan_seconds=3600)
        await cluster.start(Nobody())
        try:
            url, cluster.url = cluster.url, "postgresql://postgres@127.0.0.1:1/none"  # nothing there
            await cluster._locks.close()  # the database went away
            for _ in range(2):
                with contextlib.suppress(Exception):
                    await cluster.scan()
            cluster.url = url  # back
            await cluster._locks.close()
            with contextlib.suppress(Exception):
                await cluster.scan()  # finds its connection lost, makes another
            for _ in range(50):  # the lost connections' locks are freed as their sessions end
                if await cluster.scan() or cluster.owns("AWAY1"):
                    break
                await asyncio.sleep(0.1)
            return sorted(cluster.owned)
        finally:
            await cluster.close()

    with caplog.at_level("WARNING"):
        assert asyncio.run(away_and_back()) == ["AWAY1"]
    assert "Traceback" not in caplog.text
    assert caplog.text.count("the connection holding the tables' locks is lost") == 1  # not at each scan


def test_a_seat_handed_on_through_one_process_is_no_longer_held_by_the_phone_on_the_other(
    tmp_path: Path,
) -> None:
    """Bob's phone is connected to B, Alice to A: when his seat is handed to another phone through A
    (by Bob, from a borrowed phone: his is still at the table, so nobody else may), B's copy of the
    table learns it, and the old phone is told and only watches."""
    with two_processes(Limits(messages_per_second=1000)) as (a, b):
        created = create(a, seats=["human", "human", "bot:heuristic"])
        code, alice = created["code"], created["token"]
        bob = a.post(f"/api/tables/{code}/join", json={"name": "Bob"}).json()["token"]
        start(a, code, alice)
        with (
            a.websocket_connect(f"/ws/{code}?token={alice}") as ws_a,
            b.websocket_connect(f"/ws/{code}?token={bob}") as his_phone,
        ):
            ws_a.receive_json()
            assert his_phone.receive_json()["view"]["seat"] == 1
            handed = a.post(f"/api/tables/{code}/seats/1/hand", headers={"Authorization": f"Bearer {bob}"})
            assert handed.status_code == 200, handed.text
            while (message := his_phone.receive_json())["type"] != "error":
                assert message["view"]["seat"] == 1
            assert message["error"] == "seat_handed"
            while (message := his_phone.receive_json())["type"] != "table":
                pass
            assert message["view"]["seat"] is None
            with b.websocket_connect(f"/ws/{code}?token={handed.json()['token']}") as borrowed:
                assert borrowed.receive_json()["view"]["seat"] == 1


def _alice_and_bob(a: TestClient, b: TestClient) -> tuple[str, str, str]:
    """A table of two made through A, Bob joining through B: its code, Alice's and Bob's tokens."""
    created = create(a, seats=["human", "human"], timeout=0)
    joined = b.post(f"/api/tables/{created['code']}/join", json={"name": "Bob"})
    assert joined.status_code == 200, joined.text
    return created["code"], created["token"], joined.json()["token"]


def _until_bobs_turn(ws_a: Any, message: dict[str, Any]) -> dict[str, Any]:
    """Alice stops whenever it is her turn, until Bob has a decision to make: the message saying so."""
    while (message["view"] or {}).get("waiting_for") != {"seat": 1, "step": "decision"}:
        if message["view"] and message["view"]["your_turn"]:
            ws_a.send_json({"type": "act", "version": message["version"], "action": "stop"})
        message = _table_message(ws_a)
    return message


def _table_message(ws: Any) -> dict[str, Any]:
    message: dict[str, Any] = ws.receive_json()
    while message["type"] != "table":
        message = ws.receive_json()
    return message


def test_a_player_connected_to_another_process_is_shown_there_and_keeps_their_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Alice plays through A, which owns the table, Bob through B. A counted only its own connections:
    Alice saw Bob gone, and when his turn came A gave it to a bot after GONE_SECONDS, Bob at his
    phone all along. He is shown there, his turn waits for him; once he leaves, a bot plays it."""
    from py421.server import table_actor

    monkeypatch.setattr(table_actor, "GONE_SECONDS", 0.5)
    with two_processes(Limits(messages_per_second=1000)) as (a, b):
        hub_a = a.app.state.hub  # type: ignore[attr-defined]
        code, alice, bob = _alice_and_bob(a, b)
        with a.websocket_connect(f"/ws/{code}?token={alice}") as ws_a:
            message = _table_message(ws_a)
            with b.websocket_connect(f"/ws/{code}?token={bob}") as ws_b:
                while not _table_message(ws_b)["table"]["seats"][0]["connected"]:
                    pass  # Bob sees Alice, connected through A
                while not message["table"]["seats"][1]["connected"]:
                    message = _table_message(ws_a)  # Alice sees Bob come
                assert code in hub_a.owned()  # Alice is connected to A: the table stays there
                start(a, code, alice)
                message = _until_bobs_turn(ws_a, message)
                table = hub_a.tables[code]
                assert table.session is not None
                steps = table.session.state.steps
                time.sleep(4 * table_actor.GONE_SECONDS)  # Bob thinks
                assert not table.seats[1].away
                assert table.session.state.steps == steps  # nobody played for him
            while not message["table"]["seats"][1]["away"]:  # Bob gone on his turn: a bot plays it
                message = _table_message(ws_a)
            assert not message["table"]["seats"][1]["connected"]


def test_a_player_whose_process_stops_saying_they_are_there_counts_as_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bob's process holds his seat and says so again and again; killed (or cut off from the others),
    it says nothing more, and no page closes on the owner's side: once it has not said it in time,
    Bob is shown gone and his turn goes to a bot."""
    from py421.server import hub as hub_module
    from py421.server import table_actor

    monkeypatch.setattr(table_actor, "GONE_SECONDS", 0.5)
    monkeypatch.setattr(hub_module, "PRESENCE_SECONDS", 0.2)
    monkeypatch.setattr(hub_module, "PRESENCE_LEASE", 60.0)
    with two_processes(Limits(messages_per_second=1000)) as (a, b):
        hub_a, hub_b = a.app.state.hub, b.app.state.hub  # type: ignore[attr-defined]
        code, alice, bob = _alice_and_bob(a, b)
        with (
            a.websocket_connect(f"/ws/{code}?token={alice}") as ws_a,
            b.websocket_connect(f"/ws/{code}?token={bob}"),
        ):
            while not (message := _table_message(ws_a))["table"]["seats"][1]["connected"]:
                pass
            start(a, code, alice)
            message = _until_bobs_turn(ws_a, message)
            table = hub_a.tables[code]

            def said_until() -> float:
                until: float = max(until for _, until in table.elsewhere.values())
                return until

            first = said_until()
            while said_until() == first:  # said again: still there, still his turn
                time.sleep(0.05)
            assert not table.seats[1].away
            monkeypatch.setattr(hub_module, "PRESENCE_LEASE", 1.0)
            while said_until() > time.monotonic() + 2:  # said again under the shorter lease
                time.sleep(0.05)

            async def silent(code: str, seats: list[int], watching: bool = False) -> None:
                pass

            hub_b.cluster.announce = silent  # as a process killed says nothing more
            while not message["table"]["seats"][1]["away"]:
                message = _table_message(ws_a)
            assert not message["table"]["seats"][1]["connected"]


def test_a_seat_held_through_another_process_is_not_handed_on(tmp_path: Path) -> None:
    """A seated player may hand on another's seat only once that player's phone is gone: the owner
    looked at its own connections only, so Alice could take Bob's seat while he played through B."""
    with two_processes(Limits(messages_per_second=1000)) as (a, b):
        code, alice, bob = _alice_and_bob(a, b)
        with (
            a.websocket_connect(f"/ws/{code}?token={alice}") as ws_a,
            b.websocket_connect(f"/ws/{code}?token={bob}"),
        ):
            while not _table_message(ws_a)["table"]["seats"][1]["connected"]:
                pass
            handed = a.post(f"/api/tables/{code}/seats/1/hand", headers={"Authorization": f"Bearer {alice}"})
            assert handed.status_code == 409, handed.text
            assert handed.json()["detail"]["error"] == "seat_here"


def test_a_spectator_on_a_process_holding_no_seat_sees_who_is_at_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Alice and Bob play through A, which owns their table; Carol watches through B, which holds no
    seat of it. B heard who was at a table only once one of its own pages held a seat there: Carol
    saw them both gone. B now says it watches, and A tells it, again and again while it watches."""
    from py421.server import hub as hub_module

    monkeypatch.setattr(hub_module, "PRESENCE_SECONDS", 0.2)
    monkeypatch.setattr(hub_module, "PRESENCE_LEASE", 2.0)
    with two_processes(Limits(messages_per_second=1000)) as (a, b):
        hub_b = b.app.state.hub  # type: ignore[attr-defined]
        created = create(a, seats=["human", "human"], timeout=0)
        code = created["code"]
        bob = a.post(f"/api/tables/{code}/join", json={"name": "Bob"}).json()["token"]
        with (
            a.websocket_connect(f"/ws/{code}?token={created['token']}"),
            a.websocket_connect(f"/ws/{code}?token={bob}"),
            b.websocket_connect(f"/ws/{code}") as carol,
        ):
            shown = _table_message(carol)  # once shown, B keeps a copy of the table
            table = hub_b.tables[code]

            def heard() -> float:
                """When what B heard of A runs out; B has heard nothing yet: none."""
                deadline = time.monotonic() + 60  # a failure ends here rather than hanging the run
                while not (table.present(0) and table.present(1)):
                    assert time.monotonic() < deadline, "B never heard who is at the table"
                    time.sleep(0.05)
                until: float = max(until for _, until in table.elsewhere.values())
                return until

            first = heard()
            while not all(s["connected"] for s in shown["table"]["seats"]):
                shown = _table_message(carol)  # Carol's page shows them
            while heard() == first:  # said again while Carol watches: they stay shown
                time.sleep(0.05)
