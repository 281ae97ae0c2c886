"""A real ``421 serve`` process on loopback, tried the way an attacker would.

Every loop here is bounded; every wait has a deadline. Each test names the
attack it replays and what the server must still do.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import signal
import socket
import struct
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from click.testing import CliRunner
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect
from websockets.typing import Origin, Subprotocol

from py421.cli import main
from py421.server.limits import Limits
from py421.server.serving import uvicorn_options

from .server_helpers import POSTGRES, fresh_postgres, uvicorn_serving
from .server_process import free_port, start_server

pytestmark = pytest.mark.slow  # real server processes

DATABASES = ["sqlite"] + (["postgresql"] if POSTGRES else [])


class Server:
    def __init__(self, tmp: Path, *extra: str, db: str = "sqlite") -> None:
        """``421 serve`` on a port of its own: ``db`` "sqlite" (a file in ``tmp``), "postgresql" (a
        fresh database, where the tests have a server) or a database URL."""
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        url = fresh_postgres(POSTGRES) if db == "postgresql" and POSTGRES else db if "://" in db else None
        self.log = tmp / "server.log"
        self.proc = start_server(tmp, self.port, *extra, db=url)

    def ws(self, code: str, token: str | None = None, **kwargs: Any) -> Any:
        query = f"?token={token}" if token else ""
        return connect(f"ws://127.0.0.1:{self.port}/ws/{code}{query}", open_timeout=10, **kwargs)

    def post(
        self, path: str, body: Any = None, token: str | None = None, headers: dict[str, str] | None = None
    ) -> httpx2.Response:
        sent = dict(headers or {}) | ({"Authorization": f"Bearer {token}"} if token else {})
        return httpx2.post(self.base + path, json={} if body is None else body, headers=sent, timeout=60)

    def get(self, path: str) -> httpx2.Response:
        return httpx2.get(self.base + path, timeout=30)

    def create(self, **body: Any) -> dict[str, Any]:
        request = {
            "rules": "lyonnaise-21",
            "seats": ["human", "bot:heuristic"],
            "name": "Alice",
            "timeout": 0,
        }
        response = self.post("/api/tables", request | body)
        assert response.status_code == 200, response.text
        created: dict[str, Any] = response.json()
        return created

    def start(self, code: str, token: str) -> None:
        response = self.post(f"/api/tables/{code}/start", token=token)
        assert response.status_code == 200, response.text

    def rss_mb(self) -> float:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        line = next(x for x in status.splitlines() if x.startswith("VmRSS:"))
        return int(line.split()[1]) / 1024

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(15)

    def logged(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path, "--bot-delay", "0.02")
    yield s
    s.stop()
    assert "Exception in ASGI application" not in s.logged()
    assert "Traceback" not in s.logged()


def detail(response: httpx2.Response) -> dict[str, Any]:
    body = response.json()
    assert set(body) == {"detail"} and set(body["detail"]) == {"error", "message", "lang"}, body
    found: dict[str, Any] = body["detail"]
    return found


def next_error(ws: Any, seconds: float = 10) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        message: dict[str, Any] = json.loads(ws.recv(timeout=seconds))
        if message["type"] == "error":
            return message
    raise AssertionError("no error came")


def silent_websocket(port: int, path: str) -> socket.socket:
    """A WebSocket that completes its handshake, then never reads again."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += sock.recv(1)
    assert b" 101 " in answer.split(b"\r\n")[0], answer
    return sock


# -- one client cannot slow another ------------------------------------------------------


def test_a_spectator_who_never_reads_and_a_churn_of_others_do_not_slow_the_player(server: Server) -> None:
    created = server.create(rules="vache-41", seats=["human", "bot:heuristic", "bot:random"])
    code, token = created["code"], created["token"]
    server.start(code, token)
    silent = [silent_websocket(server.port, f"/ws/{code}") for _ in range(3)]
    stop = threading.Event()

    def churn() -> None:  # ordinary spectators coming and going all the time
        while not stop.is_set():
            try:
                with server.ws(code) as ws:
                    ws.recv(timeout=5)
            except Exception:  # the server may refuse one when it has its fill: that is allowed
                time.sleep(0.05)

    churners = [threading.Thread(target=churn, daemon=True) for _ in range(3)]
    for t in churners:
        t.start()
    waits = []
    try:
        with server.ws(code, token) as ws:
            acted = 0
            answer: dict[str, Any] | None = None
            while acted < 40:
                message = answer or json.loads(ws.recv(timeout=20))
                answer = None
                if message["type"] != "table":
                    continue
                view = message["view"]
                if view["outcome"] is not None:
                    break
                if view["your_turn"]:
                    move = view["legal_actions"][-1]["text"]
                    sent = time.monotonic()
                    ws.send(json.dumps({"type": "act", "version": message["version"], "action": move}))
                    while True:  # the answer: the state after the move
                        answer = json.loads(ws.recv(timeout=20))
                        if answer["type"] == "error" and answer["error"] == "rate_limited":
                            time.sleep(0.5)
                            ws.send(
                                json.dumps({"type": "act", "version": message["version"], "action": move})
                            )
                            continue
                        if answer["type"] == "table" and answer["version"] > message["version"]:
                            break
                    waits.append(time.monotonic() - sent)
                    acted += 1
    finally:
        stop.set()
        for t in churners:
            t.join(10)
        for s in silent:
            s.close()
    assert waits and max(waits) < 5, waits
    # the silent ones were let go, and the server still answers
    assert server.get("/api/presets").status_code == 200


# -- expensive work is bounded ------------------------------------------------------------


def test_an_optimal_table_beyond_the_budget_is_refused_and_the_server_stays_small(tmp_path: Path) -> None:
    # a budget a small table's solve keeps to however busy the machine (8 s once failed under load)
    server = Server(tmp_path, "--optimal-seconds", "60", "--optimal-memory", "600")
    try:
        refused = server.post(
            "/api/tables",
            {"rules": "classic-11", "settings": ["pot=200"], "seats": ["human", "bot:optimal"], "name": "A"},
        )
        assert refused.status_code == 400 and detail(refused)["error"] == "optimal_too_costly"
        assert "60 s" in detail(refused)["message"] or "600 MB" in detail(refused)["message"]
        # refused by the estimate, before any solving: a solve tried would have spent the budget's 60 s
        assert "by estimate" in detail(refused)["message"], refused.text
        seven = server.post(
            "/api/tables",
            {"rules": "classic-11", "seats": ["human"] + ["bot:optimal"] * 7, "name": "A"},
        )
        assert seven.status_code == 400 and detail(seven)["error"] == "optimal_too_costly", seven.text
        assert server.rss_mb() < 400  # the solving happened elsewhere, and is gone
        ok = server.post(
            "/api/tables", {"rules": "classic-11", "seats": ["human", "bot:optimal"], "name": "A"}
        )
        assert ok.status_code == 200, ok.text  # a small table is solved within the budget
        three = server.post(
            "/api/tables",
            {"rules": "classic-11", "seats": ["human", "bot:optimal", "bot:optimal"], "name": "A"},
        )
        # three seats: the whole game (half a minute to solve) only if solved here before, else round by round
        assert three.status_code == 200, three.text
    finally:
        server.stop()


def test_sigterm_while_solving_stops_the_server_at_once_with_its_tables(tmp_path: Path) -> None:
    # A budget that lets in a solve of about 800 seconds by estimate: under way for the whole test
    server = Server(tmp_path, "--optimal-seconds", "100000", "--optimal-queue", "0")
    try:
        created = server.create()
        answers: list[httpx2.Response] = []

        def costly(pot: int) -> None:
            body = {"rules": "classic-11", "settings": [f"pot={pot}"], "seats": ["human", "bot:optimal"]}
            with contextlib.suppress(httpx2.HTTPError):  # the one solving is cut off by the stop
                answers.append(server.post("/api/tables", body | {"name": "A"}))

        for pot in (270, 271):
            threading.Thread(target=costly, args=(pot,), daemon=True).start()
        deadline = time.monotonic() + 60
        while not answers and time.monotonic() < deadline:
            time.sleep(0.05)
        assert detail(answers[0])["error"] == "optimal_busy", answers  # the other one is being solved
        assert server.get("/api/presets").status_code == 200  # the server is not the one solving
        server.proc.send_signal(signal.SIGTERM)
        server.proc.wait(15)  # systemd's TimeoutStopSec in docs/deploy.md; the solve lasts far longer
    finally:
        server.stop()
    again = Server(tmp_path)
    try:
        assert again.get(f"/api/tables/{created['code']}").json()["status"] == "waiting"
    finally:
        again.stop()


# -- names ---------------------------------------------------------------------------------


@pytest.mark.parametrize("db", DATABASES)
def test_names_that_would_break_a_table_are_refused_everywhere(tmp_path: Path, db: str) -> None:
    server = Server(tmp_path, db=db)
    try:
        created = server.create(seats=["human", "human", "bot:heuristic"])
        code, token = created["code"], created["token"]
        for name, error in [
            ("Heuristic 1", "bad_name"),
            ("heuristic 2", "bad_name"),
            ("ALICE", "name_taken"),
            ("\u200b", "bad_name"),
            ("Bob\u202e", "bad_name"),
            ("Bo\x00b", "bad_name"),
            ("A" + "\u0301" * 23, "bad_name"),  # drawn over the lines around it
            ("\u0410lice", "bad_name"),  # a Cyrillic А: another's name, to the eye
            ("\u041d\u0435uristic 1", "bad_name"),  # the bot's, to the eye
        ]:
            response = server.post(f"/api/tables/{code}/join", {"name": name})
            assert response.status_code in (400, 409) and detail(response)["error"] == error, (
                name,
                response.text,
            )
        assert all(s["name"] != "Bo\x00b" for s in server.get(f"/api/tables/{code}").json()["seats"])
        nul = server.post("/api/tables", {"rules": "classic-11", "name": "A\x00"})
        assert detail(nul)["error"] == "bad_name"
        keeper = server.post(
            "/api/tables", {"mode": "scorekeeper", "rules": "classic-11", "players": ["A", "B\x00"]}
        )
        assert detail(keeper)["error"] == "bad_name"
        assert detail(httpx2.get(server.base + "/api/players/A%00B", timeout=10))["error"] == "bad_name"
        joined = server.post(f"/api/tables/{code}/join", {"name": "Bob"})
        assert joined.status_code == 200
        server.start(code, token)  # nothing left that the engine would refuse
        assert server.get(f"/api/tables/{code}").json()["status"] == "playing"
    finally:
        server.stop()
    assert "Traceback" not in server.logged()


# -- messages the server does not expect -------------------------------------------------------


def test_odd_frames_and_bodies_get_the_documented_errors(server: Server) -> None:
    code = server.create()["code"]
    with server.ws(code) as ws:
        json.loads(ws.recv(timeout=10))
        ws.send("[" * 3000)
        assert next_error(ws)["error"] == "malformed"
        ws.send(b"\x00\x01binary")
        assert next_error(ws)["error"] == "malformed"
        ws.send(json.dumps({"type": "ping"}))
        while json.loads(ws.recv(timeout=10))["type"] != "pong":
            pass  # still served
    for body in (b"[" * 3000, b"not json", b'{"rules": ' * 100, b"{}" + b" " * 20_000):
        response = httpx2.post(
            server.base + "/api/tables",
            content=body,
            headers={"Content-Type": "application/json"},
            timeout=10,
        )
        assert response.status_code in (400, 413), (body[:20], response.status_code)
        assert detail(response)["error"] in ("malformed", "too_large")
    assert detail(server.get("/api/nothing-here"))["error"] == "not_found"
    assert detail(server.get("/api/games?limit=lots"))["error"] == "malformed"
    assert detail(server.get("/api/tables/AB%00CD"))["error"] == "no_table"


def test_garbage_sent_in_a_loop_fills_no_log(tmp_path: Path) -> None:
    """A WebSocket frame that is no UTF-8 wrote a traceback to the log each time, and bytes that are
    no HTTP a line each: a client sending them in a loop filled the disk (1.5 GB an hour) or buried
    the rest. A client's fault is one line, and a message comes a few times a minute at most."""
    server = Server(tmp_path)
    began = time.monotonic()
    try:
        code = server.create()["code"]
        for _ in range(25):
            with server.ws(code) as ws:
                json.loads(ws.recv(timeout=10))
                ws.send(b"\xed\xa0\x80", text=True)
                with pytest.raises(Exception, match="1007"):  # closed: invalid frame payload data
                    ws.recv(timeout=10)
            with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
                sock.sendall(b"GARBAGE\r\n\r\n")
                assert sock.recv(1000).startswith(b"HTTP/1.1 400")
        assert server.get("/healthz").status_code == 200  # served all along
    finally:
        server.stop()
    logged = server.logged()
    assert "Traceback" not in logged, logged[:2000]
    # ten a minute: the minutes the loop took on a loaded machine each let ten more through
    most = 10 * (1 + int((time.monotonic() - began) // 60))
    assert 1 <= logged.count("Invalid UTF-8 sequence received from client") <= most, logged[:2000]
    assert 1 <= logged.count("Invalid HTTP request received") <= most, logged[:2000]


# -- floods ------------------------------------------------------------------------------------


def test_floods_meet_their_caps(tmp_path: Path) -> None:
    server = Server(
        tmp_path,
        "--max-tables-per-minute", "5",
        "--max-connections-per-address", "6",
        "--max-spectators", "3",
        "--messages-per-second", "5",
    )  # fmt: skip
    try:
        answers = [server.post("/api/tables", {"name": "A"}) for _ in range(7)]
        assert [a.status_code for a in answers] == [200] * 5 + [429] * 2
        assert "at most 5 new tables a minute" in detail(answers[-1])["message"]
        code = answers[0].json()["code"]
        with contextlib.ExitStack() as open_ones:
            # closing waits for the server's close frame, read only after the flood (10 s by default)
            watchers = [open_ones.enter_context(server.ws(code, close_timeout=1)) for _ in range(3)]
            with server.ws(code) as fourth:
                assert next_error(fourth)["error"] == "too_many_spectators"
            other = answers[1].json()["code"]
            for _ in range(3):  # six connections from this address now
                open_ones.enter_context(server.ws(other))
            with pytest.raises(Exception, match="503"):  # refused before any request is read
                server.ws(other)
            flooder = watchers[0]
            for _ in range(40):  # the budget is the address's, shared by its connections
                flooder.send(json.dumps({"type": "ping"}))
            assert next_error(flooder)["error"] == "rate_limited"
    finally:
        server.stop()
    assert "Traceback" not in server.logged()


# -- public hosting: nothing fills the server for good, nothing holds it open, no other site acts --


def _db_rows(tmp: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """A statement on a stopped server's SQLite file."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(tmp / "s.db")) as db:
        rows = db.execute(sql, params).fetchall()
        db.commit()
    return rows


def _poll(check: Any, seconds: float, pause: float = 0.5) -> Any:
    """``check()`` until it gives something true, for at most ``seconds``; its last answer."""
    deadline = time.monotonic() + seconds
    while True:
        found = check()
        if found or time.monotonic() > deadline:
            return found
        time.sleep(pause)


def test_tables_nobody_plays_at_end_after_a_restart_too_and_make_room(tmp_path: Path) -> None:
    """A scorekeeper table plays from its creation and a started table without timeout waits for its
    player forever: with --max-tables 3 such tables once refused every new table for good. Now a table
    nobody acts at or is connected to for --idle-minutes is ended (a started game kept in the history
    as abandoned, its seed revealed) and leaves the count. Idle time is the database's: a restart
    does not reset it (the test moves it back in the database as the clock would)."""
    server = Server(tmp_path, "--max-tables", "3", "--idle-minutes", "1", "--waiting-minutes", "1")
    try:
        keeper = server.post(
            "/api/tables", {"mode": "scorekeeper", "rules": "classic-11", "players": ["Ann", "Bob"]}
        ).json()
        started = server.create()  # lyonnaise-21: the creator leads and is to move: nobody moves
        server.start(started["code"], started["token"])
        waiting = server.create()
        refused = server.post("/api/tables", {"name": "Dan"})
        assert refused.status_code == 503 and detail(refused)["error"] == "too_many_tables"
    finally:
        server.stop()
    codes = [keeper["code"], started["code"], waiting["code"]]
    long_ago = "2000-01-01T00:00:00+00:00"
    _db_rows(tmp_path, "UPDATE online_tables SET active_at = ?, created_at = ?", (long_ago, long_ago))

    again = Server(tmp_path, "--max-tables", "3", "--idle-minutes", "1", "--waiting-minutes", "1")
    try:
        # looked over before the first request: room is made at once, not at the first round of
        # housekeeping (15 s here, a minute by default)
        assert again.post("/api/tables", {"name": "Dan"}).status_code == 200, "the idle tables made no room"
        assert again.get(f"/api/tables/{waiting['code']}").status_code == 404  # never started: removed
        for code in codes[:2]:
            table = again.get(f"/api/tables/{code}").json()
            assert table["status"] == "abandoned", table
            assert table["seed"] is not None  # revealed: the game can be checked
        games = {g["players"][0]: g for g in again.get("/api/games").json()}
        assert {g["kind"] for g in games.values()} == {"abandoned"} and len(games) == 2
        record = again.get(f"/api/games/{games['Alice']['id']}/record").json()
        assert record["meta"]["seed"] and record["meta"]["table"] == started["code"]
    finally:
        again.stop()
    assert "Traceback" not in again.logged()


def test_a_half_sent_request_or_a_silent_connection_is_cut_off(tmp_path: Path) -> None:
    """A connection that sends half a request, or nothing, once stayed open for good (1,100 of them
    made legitimate clients fail): the whole request must arrive within the deadline (10 s by
    default, 3 s here)."""
    server = Server(tmp_path, "--request-seconds", "3")
    half = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    half.sendall(b"GET /api/presets HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    silent = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    started = time.monotonic()
    try:
        for sock in (half, silent):
            answer = b""
            while chunk := sock.recv(4096):  # returns b"" once the server closes
                answer += chunk
            assert answer == b"" or b" 408 " in answer.split(b"\r\n")[0], answer
        assert time.monotonic() - started < 20  # the deadline, not the 40 s and more seen before
        assert server.get("/api/presets").status_code == 200
    finally:
        half.close()
        silent.close()
        server.stop()


def test_a_request_head_without_end_is_cut_off_by_its_size(server: Server) -> None:
    """A deadline bounds the time, not the memory: one connection sent 2 GB of headers in 8 s, and
    the server held them all."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(b"GET /api/presets HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        line = b"X-Filler: " + b"a" * 1000 + b"\r\n"
        answer = b""
        with contextlib.suppress(OSError):  # the server may close while we still send
            for _ in range(200):  # 200 KB, far beyond what any browser sends
                sock.sendall(line)
        with contextlib.suppress(OSError):
            while chunk := sock.recv(4096):
                answer += chunk
    assert b" 431 " in answer.split(b"\r\n")[0], answer[:200]
    assert server.rss_mb() < 400
    assert server.get("/api/presets").status_code == 200


def test_a_request_that_is_no_http_gets_the_documented_error_with_the_pages_headers(server: Server) -> None:
    """uvicorn answered a request its parser could not read with a plain-text 400 of its own, without
    the headers every other answer carries (no framing, no sniffing, the content policy). It is now
    answered as the server's other refusals are: JSON, malformed, and those headers."""
    for garbage in (b"\x16\x03\x01\x02\x00\r\n\r\n", b"GET / HTTP/1.1\r\nHost: a b\r\n\x00\r\n\r\n"):
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
            sock.sendall(garbage)
            answer = b""
            with contextlib.suppress(OSError):
                while chunk := sock.recv(65536):
                    answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 400 "), answer
        assert b"x-content-type-options: nosniff" in head.lower() and b"content-security-policy" in head
        assert json.loads(body)["detail"]["error"] == "malformed"
    assert server.get("/api/presets").status_code == 200


def test_a_large_body_after_a_small_head_is_refused_as_a_body(server: Server) -> None:
    """A 70 KB body after a head of a few lines was refused as headers of more than 64 KB: the bytes
    counted as the head's were those of the whole first read."""
    body = json.dumps(
        {"rules": "classic-11", "seats": ["human", "bot:" + "a" * 70_000], "name": "A"}
    ).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        head = b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        sock.sendall(head + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
        answer = b""
        with contextlib.suppress(OSError):
            while chunk := sock.recv(4096):
                answer += chunk
    status = answer.split(b"\r\n")[0]
    assert b" 431 " not in status and b" 413 " in status, answer[:300]
    assert b"a request body is at most" in answer


def _server_side(port: int, sock: socket.socket) -> tuple[str, int] | None:
    """The server's end of ``sock`` as the kernel sees it: its TCP state (``01`` is established)
    and the bytes of answers waiting to leave; None once the server has let it go."""
    client_port = sock.getsockname()[1]
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote, state, queues = fields[1], fields[2], fields[3], fields[4]
        if int(local.split(":")[1], 16) == port and int(remote.split(":")[1], 16) == client_port:
            return state, int(queues.split(":")[0], 16)
    return None


def _stalled_pipeline(server: Server) -> socket.socket:
    """A connection that sent thirty requests at once and reads none of the answers, once
    the server has filled what the kernel holds for it: the server is then waiting on the client."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=60)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    request = b"GET /static/table.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    with contextlib.suppress(OSError):
        sock.sendall(request * 30)
    held = _poll(lambda: (_server_side(server.port, sock) or ("", 0))[1] > 0, 30, 0.05)
    assert held, _server_side(server.port, sock)
    return sock


def test_a_client_that_stops_reading_its_answers_is_let_go(tmp_path: Path) -> None:
    """Thirty requests sent at once by a client that never reads: the answers it does not
    take once held its connection for good. The server waits --send-seconds (10 s by default, 2
    here) for a client to take an answer, then drops the connection."""
    server = Server(tmp_path, "--send-seconds", "2")
    sock = _stalled_pipeline(server)
    try:
        let_go = _poll(lambda: (_server_side(server.port, sock) or ("gone",))[0] != "01", 30)
        assert let_go, "the connection is still held"
        assert server.get("/api/presets").status_code == 200
    finally:
        sock.close()
        server.stop()
    assert "Traceback" not in server.logged()


def test_a_client_that_sends_thousands_of_requests_ahead_of_their_answers_is_let_go(server: Server) -> None:
    """One connection sending requests back to back: uvicorn read on while the answers waited and
    queued every request, so one client took the server from 98 MB to 4 GB in 24 s. A client
    that sends more than a few dozen requests ahead of their answers (a browser sends none) is
    closed once they are read."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=60)
    request = b"GET /static/icon.svg HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    answers = b""
    try:
        with contextlib.suppress(OSError):
            sock.sendall(request * 2000)
        with contextlib.suppress(OSError):
            while chunk := sock.recv(65536):
                answers += chunk
    finally:
        sock.close()
    assert answers.count(b"HTTP/1.1 200 ") < 2000  # let go once more than 64 wait, not all answered
    assert b"HTTP/1.1 429 " in answers
    assert server.get("/api/presets").status_code == 200


def test_a_client_that_leaves_with_answers_still_queued_is_no_error(server: Server) -> None:
    """A client gone (reset) while pipelined answers were still queued behind the one being
    written: every queued answer learns the client left, none writes to the closed connection
    (each once logged a traceback)."""
    sock = _stalled_pipeline(server)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()  # with unread answers and no linger: a reset
    assert server.get("/api/presets").status_code == 200  # the fixture then reads the log


def test_a_websocket_whose_client_takes_nothing_is_let_go_whatever_its_app_does() -> None:
    """A client that flooded messages and never read the answers: the server dropped it
    (slow_client) but closed it politely, waiting for its answers to leave, so the socket and its
    megabytes stayed open for good (50 such connections from one address pinned some 330 MB). Now a
    WebSocket whose client takes nothing for the send deadline is cut off, as an HTTP connection
    is: here under an app that only ever sends, with a deadline of half a second."""

    async def sending(scope: Any, receive: Any, send: Any) -> None:  # sends until it is stopped
        if scope["type"] != "websocket":
            return
        await receive()
        await send({"type": "websocket.accept"})
        with contextlib.suppress(Exception):  # the client gone: a send raises
            while True:
                await send({"type": "websocket.send", "text": "x" * 4000})

    async def scenario() -> tuple[str, int] | None:
        async with uvicorn_serving(sending, **uvicorn_options(Limits(send_seconds=0.5))) as port:
            sock = await asyncio.to_thread(silent_websocket, port, "/")
            try:
                for _ in range(600):  # a minute at most
                    side = _server_side(port, sock)
                    if side is None or side[0] != "01":
                        break
                    await asyncio.sleep(0.1)
                return side
            finally:
                sock.close()

    side = asyncio.run(scenario())
    assert side is None or side[0] != "01", f"the connection is still held: {side}"


def test_a_flood_of_messages_is_refused_once_a_second_not_answered_one_by_one(server: Server) -> None:
    """Every message past the address's budget was answered with its own rate_limited, as fast as
    the client sent them: one connection's flood took a whole core and slowed every other player.
    Now a connection refused for the rate is not read for a second: its flood waits in its own
    socket, and the server answers it at the budget's pace."""
    code = server.create()["code"]
    # closing waits for the server's close frame, read only after the flood (10 s by default)
    with server.ws(code, close_timeout=1) as ws:
        json.loads(ws.recv(timeout=10))  # the table
        for _ in range(300):
            ws.send(json.dumps({"type": "ping"}))
        answers = [json.loads(ws.recv(timeout=20))["type"] for _ in range(45)]
    refused = [a for a in answers if a == "error"]
    # the burst (20 by default) answered, then about one refusal for every ten messages answered
    assert answers.count("pong") >= 35 and len(refused) <= 5, answers


def _frames(data: bytes) -> list[tuple[int, bytes]]:
    """The whole frames (opcode, payload) a server sent, unmasked, in ``data``."""
    found, at = [], 0
    while at + 2 <= len(data):
        size, start = data[at + 1] & 0x7F, at + 2
        if size == 126:
            size, start = struct.unpack("!H", data[at + 2 : at + 4])[0], at + 4
        elif size == 127:
            size, start = struct.unpack("!Q", data[at + 2 : at + 10])[0], at + 10
        if start + size > len(data):
            break
        found.append((data[at] & 0x0F, data[start : start + size]))
        at = start + size
    return found


def test_a_flood_of_pings_closes_its_connection_and_slows_nobody(server: Server) -> None:
    """WebSocket PING frames were answered by uvicorn below the application, past every budget: one
    connection sent 2.3 million in 14 s and another address's request went from 4 ms to 1.2 s. A
    browser sends none; a client that sends more than a few a second is now closed (1008)."""
    code = server.create()["code"]
    with server.ws(code) as ws:  # a client's pings now and then are answered, as ever
        assert all(ws.ping().wait(10) for _ in range(5))
        assert json.loads(ws.recv(timeout=10))["type"] == "table"
    sock = silent_websocket(server.port, f"/ws/{code}")
    ping = bytes([0x89, 0x80]) + os.urandom(4)  # masked, as every client frame is, and empty
    try:
        with contextlib.suppress(OSError):
            sock.sendall(ping * 5000)
        frames = _frames(_read_all(sock, 20))
    finally:
        sock.close()
    pongs = sum(1 for opcode, _ in frames if opcode == 0xA)
    closes = [payload for opcode, payload in frames if opcode == 0x8]
    assert pongs < 100, pongs
    assert closes and struct.unpack("!H", closes[0][:2])[0] == 1008, frames[-3:]
    assert server.get("/api/presets").status_code == 200


def _read_all(sock: socket.socket, seconds: float) -> bytes:
    """What the server sends until it closes the connection (or ``seconds`` of silence)."""
    received = b""
    sock.settimeout(seconds)
    with contextlib.suppress(OSError):
        while chunk := sock.recv(65536):
            received += chunk
    return received


def test_a_message_sent_in_endless_empty_pieces_closes_its_connection(server: Server) -> None:
    """A text frame without its end, then empty continuation frames without end: the message never
    came whole, so no budget counted it, and uvicorn parsed some 43,000 frames a read on the event
    loop, every other client's request waiting 18 to 23 s. A message of more than 64 pieces now
    closes its connection (1009), and a connection's frames are parsed at most 50 a second."""
    code = server.create()["code"]
    sock = silent_websocket(server.port, f"/ws/{code}")
    first = bytes([0x01, 0x81]) + bytes(4) + b"{"  # a text frame, masked, not the message's last
    empty = bytes([0x00, 0x80]) + bytes(4)  # a continuation, empty, not the last either
    try:
        with contextlib.suppress(OSError):
            sock.sendall(first + empty * 50_000)
        frames = _frames(_read_all(sock, 20))
    finally:
        sock.close()
    closes = [payload for opcode, payload in frames if opcode == 0x8]
    assert closes and struct.unpack("!H", closes[0][:2])[0] == 1009, frames[-3:]
    assert server.get("/api/presets").status_code == 200


def test_a_burst_of_tiny_messages_is_read_as_the_application_takes_them() -> None:
    """One read of 7-byte text frames was parsed whole, each queued for the application, which takes
    them at the address's 10 messages a second: 40 connections queued 107 MB. What is read now waits
    in the client's socket until the application has taken the messages before it."""
    import gc

    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

    async def never_reads(scope: Any, receive: Any, send: Any) -> None:  # takes the handshake only
        if scope["type"] != "websocket":
            return
        await receive()
        await send({"type": "websocket.accept"})
        await asyncio.sleep(3600)

    def queued(port: int) -> int:
        """The messages waiting for the application on this server's WebSocket."""
        found = [o for o in gc.get_objects() if issubclass(type(o), WebSocketsSansIOProtocol)]
        return sum(p.queue.qsize() for p in found if p.server and p.server[1] == port and not p.disconnected)

    async def scenario() -> tuple[int, int]:
        async with uvicorn_serving(never_reads) as port:
            sock = await asyncio.to_thread(silent_websocket, port, "/")
            try:
                tiny = bytes([0x81, 0x81]) + bytes(4) + b"x"
                await asyncio.to_thread(sock.sendall, tiny * 3000)
                for _ in range(600):  # until the server has queued something: a minute at most
                    if queued(port):
                        break
                    await asyncio.sleep(0.1)
                await asyncio.sleep(1)  # more it would read meanwhile
                return queued(port), 3000
            finally:
                sock.close()

    held, sent = asyncio.run(scenario())
    assert 0 < held < sent // 5, held  # a slice's worth at most, the rest left in the socket


def test_connections_from_one_address_are_capped_over_http_and_websockets_together(tmp_path: Path) -> None:
    server = Server(tmp_path, "--max-connections-per-address", "4", "--keep-alive-seconds", "120")
    try:
        code = server.create()["code"]
        with contextlib.ExitStack() as held:
            for _ in range(2):
                held.enter_context(server.ws(code))
            idle = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(2)]
            for sock in idle:
                held.callback(sock.close)
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")  # kept alive after
                assert b" 200 " in sock.recv(4096).split(b"\r\n")[0]
            refused = httpx2.get(server.base + "/api/presets", timeout=10)
            assert refused.status_code == 503 and detail(refused)["error"] == "too_many_connections"
            with pytest.raises(Exception, match="503"):
                server.ws(code)
        assert _poll(lambda: server.get("/api/presets").status_code == 200, 10)  # closed: room again
    finally:
        server.stop()


def _answers(server: Server) -> bool:
    with contextlib.suppress(httpx2.HTTPError):
        return server.get("/api/presets").status_code == 200
    return False


def test_connections_over_the_cap_that_send_nothing_hold_a_few_descriptors_not_one_each(
    tmp_path: Path,
) -> None:
    """Each connection past an address's cap was held two seconds for the head of its request, to be
    answered 503: a thousand a second from one address filled a server of 1,024 descriptors, and
    other clients' requests failed. A few are held at a time; the others are closed at once."""
    server = Server(tmp_path, "--max-connections-per-address", "2")
    held: list[socket.socket] = []
    try:
        held = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(2)]
        before = len(os.listdir(f"/proc/{server.proc.pid}/fd"))
        flood = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(60)]
        held += flood
        opened = len(os.listdir(f"/proc/{server.proc.pid}/fd")) - before
        assert opened <= 12, opened  # eight held at most, a few descriptors of the server's own
        for sock in held:
            sock.close()
        assert _poll(lambda: _answers(server), 30), "the address is let in again once it has left"
    finally:
        for sock in held:
            sock.close()
        server.stop()
    assert "Traceback" not in server.logged()


def test_every_cap_is_checked_before_the_rules_are_solved(tmp_path: Path) -> None:
    """An address whose tables a minute are spent once had a table with hints solved (seconds of a
    worker) and only then refused: the cap comes first, and says so."""
    server = Server(tmp_path, "--max-tables-per-minute", "1")
    try:
        server.create()
        costly = {"rules": "classic-11", "settings": ["pot=200"], "hints": True, "name": "A"}
        refused = server.post("/api/tables", costly)
        assert refused.status_code == 429 and detail(refused)["error"] == "too_many_tables", refused.text
        assert refused.headers["retry-after"].isdigit()
        optimal = server.post("/api/tables", costly | {"hints": False, "seats": ["human", "bot:optimal"]})
        assert optimal.status_code == 429 and detail(optimal)["error"] == "too_many_tables"
    finally:
        server.stop()


def test_rules_beyond_the_budget_are_refused_at_once_and_never_tried_again(tmp_path: Path) -> None:
    server = Server(tmp_path, "--optimal-seconds", "8")
    try:
        for body in (
            {"rules": "classic-11", "settings": ["pot=200"], "seats": ["human", "bot:optimal"], "name": "A"},
            {"rules": "classic-11", "settings": ["pot=200"], "hints": True, "name": "A"},
        ):
            for _ in range(2):
                started = time.monotonic()
                refused = server.post("/api/tables", body)
                assert refused.status_code in (400, 503), refused.text
                assert detail(refused)["error"] in ("optimal_too_costly", "analysis_too_costly")
                assert "estimate" in detail(refused)["message"]  # said before any solving
                assert time.monotonic() - started < 8  # never waits out the budget
    finally:
        server.stop()


def test_solves_wait_in_a_bounded_queue_and_play_never_waits_behind_them(tmp_path: Path) -> None:
    """The k-th costly table once waited k times the budget, and an optimal seat in play waited
    behind them all: now the queue is bounded (refused at once, optimal_busy, with Retry-After) and
    play has its own worker."""
    # A budget no solve here reaches: the one solve let in lasts longer than the test (about
    # 800 seconds by estimate), however fast the machine
    server = Server(
        tmp_path, "--optimal-queue", "0", "--optimal-seconds", "100000", "--bot-delay", "0",
        "--trusted-proxy", "127.0.0.1",
    )  # fmt: skip
    try:
        # three throws in the charge: the bot decides from the first round (coups secs would let the
        # server throw the whole game through before anyone looks)
        small = server.create(
            rules="classic-11", settings=["charge_throws=3"], seats=["human", "bot:optimal"], timeout=0
        )
        answers: dict[int, httpx2.Response] = {}

        def create(pot: int) -> None:
            body = {"rules": "classic-11", "settings": [f"pot={pot}"], "seats": ["human", "bot:optimal"]}
            # each from an address of its own: an address holds one place in the line at a time
            client = {"X-Forwarded-For": f"198.51.100.{pot - 200}"}
            with contextlib.suppress(httpx2.HTTPError):  # the one solving is cut off by the server's stop
                answers[pot] = server.post("/api/tables", body | {"name": "A"}, headers=client)

        for pot in (270, 271, 272):
            threading.Thread(target=create, args=(pot,), daemon=True).start()
        deadline = time.monotonic() + 60
        while len(answers) < 2 and time.monotonic() < deadline:  # one solves; the others may not wait
            time.sleep(0.05)
        busy = list(answers.values())
        assert len(busy) == 2 and all(detail(a)["error"] == "optimal_busy" for a in busy), answers
        assert all(a.status_code == 503 and a.headers["retry-after"].isdigit() for a in busy)
        with server.ws(small["code"], small["token"]) as ws:
            server.start(small["code"], small["token"])  # its first move comes while the solve goes on
            bot_to_move, acted = None, -1
            while True:
                message = json.loads(ws.recv(timeout=60))
                if message["type"] != "table" or message["view"] is None:
                    continue
                view, version = message["view"], message["version"]
                if bot_to_move is not None and version > bot_to_move:
                    break  # the optimal bot decided
                assert message["table"]["status"] == "playing", "the game ended with no decision of the bot's"
                waiting = view["waiting_for"]
                if waiting and waiting["seat"] == 1 and waiting["step"] == "decision":
                    bot_to_move = version
                if view["your_turn"] and version > acted:  # throwing on leaves the bot decisions to make
                    acted = version
                    throws = [a for a in view["legal_actions"] if a["kind"] == "throw"]
                    move = (throws or view["legal_actions"])[0]["text"]
                    ws.send(json.dumps({"type": "act", "version": version, "action": move}))
        assert len(answers) == 2  # the solve let in is still under way: play did not wait for it
    finally:
        server.stop()


def test_forwarded_addresses_are_believed_only_from_a_named_proxy(tmp_path: Path) -> None:
    """X-Forwarded-For was trusted from 127.0.0.1 by default: any client reaching the server through
    a local tunnel picked its own address and escaped every cap."""
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    plain = Server(tmp_path / "a", "--max-tables-per-minute", "2")
    try:
        codes = [
            plain.post(
                "/api/tables", {"name": "A"}, headers={"X-Forwarded-For": f"203.0.113.{i}"}
            ).status_code
            for i in range(4)
        ]
        assert codes == [200, 200, 429, 429]
    finally:
        plain.stop()
    proxied = Server(tmp_path / "b", "--max-tables-per-minute", "2", "--trusted-proxy", "127.0.0.0/8")
    try:
        for i in range(3):  # each client its own count
            made = proxied.post("/api/tables", {"name": "A"}, headers={"X-Forwarded-For": f"203.0.113.{i}"})
            assert made.status_code == 200
        v6 = [  # addresses of one /64 are one client
            proxied.post(
                "/api/tables", {"name": "A"}, headers={"X-Forwarded-For": f"2001:db8::{i}"}
            ).status_code
            for i in range(1, 5)
        ]
        assert v6 == [200, 200, 429, 429]
        chosen = [  # a Forwarded header of the client's own, which the proxy passes through
            proxied.post(
                "/api/tables",
                {"name": "A"},
                headers={"Forwarded": f"for=6.6.6.{i}", "X-Forwarded-For": "198.51.100.9"},
            ).status_code
            for i in range(4)
        ]
        assert chosen == [200, 200, 429, 429]
    finally:
        proxied.stop()


def test_another_site_cannot_act_for_a_visitor(server: Server) -> None:
    """No Content-Security-Policy, framing allowed, a text/plain POST from another site created a
    table and took a seat, WebSockets took any Origin, /docs ran a CDN's scripts."""
    for path in ("/", "/t/ABCDE", "/static/app.js", "/api/presets", "/api/nothing"):
        headers = server.get(path).headers
        assert "script-src 'self'" in headers["content-security-policy"], path
        assert "'unsafe-inline'" not in headers["content-security-policy"]
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "no-referrer"
    for path in ("/", "/t/ABCDE", "/healthz", "/static/app.js"):  # a load balancer's check asks HEAD
        head = httpx2.head(server.base + path, timeout=10)
        assert head.status_code == 200 and head.content == b"", (path, head.status_code)
        assert "frame-ancestors 'none'" in head.headers["content-security-policy"], path
    code = server.create(seats=["human", "human"])["code"]
    evil = {"Origin": "https://evil.example"}
    forged = httpx2.post(
        server.base + "/api/tables",
        content=json.dumps({"name": "Mallory"}),
        headers={"Content-Type": "text/plain"},
        timeout=10,
    )
    assert forged.status_code == 415 and detail(forged)["error"] == "malformed"
    crossed = server.post(f"/api/tables/{code}/join", {"name": "Mallory"}, headers=evil)
    assert crossed.status_code == 403 and detail(crossed)["error"] == "cross_site"
    assert all(s["name"] != "Mallory" for s in server.get(f"/api/tables/{code}").json()["seats"])
    own = server.post(f"/api/tables/{code}/join", {"name": "Bob"}, headers={"Origin": server.base})
    assert own.status_code == 200, own.text
    with pytest.raises(InvalidStatus) as handshake:
        connect(
            f"ws://127.0.0.1:{server.port}/ws/{code}", open_timeout=10, origin=Origin("https://evil.example")
        )
    refused = handshake.value.response  # an answer like any other: its headers, and why
    assert refused.status_code == 403
    assert "frame-ancestors 'none'" in refused.headers["content-security-policy"]
    assert refused.headers["x-content-type-options"] == "nosniff"
    assert json.loads(refused.body)["detail"]["error"] == "cross_site"
    with connect(
        f"ws://127.0.0.1:{server.port}/ws/{code}", open_timeout=10, origin=Origin(server.base)
    ) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "table"
    docs = server.get("/docs")
    assert docs.status_code == 404 or "cdn" not in docs.text
    assert server.get("/openapi.json").status_code == 200


def test_a_page_elsewhere_pointing_its_own_name_here_is_refused(tmp_path: Path) -> None:
    """DNS rebinding: a page of another site points its own name at this server's address; its
    requests then carry that name as both Host and Origin, which passed the Origin check, so it read
    the pages and made tables for its visitor on a server at home or on a bar's network. Now the
    server answers only for its addresses, local names and the names it is given."""
    server = Server(tmp_path, "--allowed-host", ".421.example")
    port = server.port
    try:
        rebound = {"Host": f"evil.example:{port}", "Origin": f"http://evil.example:{port}"}
        made = httpx2.post(f"{server.base}/api/tables", json={"name": "Mallory"}, headers=rebound, timeout=10)
        assert made.status_code == 421 and detail(made)["error"] == "cross_site", made.text
        assert "--allowed-host evil.example" in detail(made)["message"]
        read = httpx2.get(f"{server.base}/", headers={"Host": "evil.example"}, timeout=10)
        assert read.status_code == 421
        assert "content-security-policy" in read.headers  # a refusal is an answer like any other
        with pytest.raises(Exception, match="403"):  # its name in the URL, this server's address
            connect(
                f"ws://evil.example:{port}/ws/ABCDE",
                open_timeout=10,
                sock=socket.create_connection(("127.0.0.1", port), timeout=10),
                origin=Origin(f"http://evil.example:{port}"),
            )
        # its addresses, names no public site can hold, and the names given (.421.example: under it)
        for name in (
            "127.0.0.1",
            "[::1]",
            "localhost",
            "laptop",
            "laptop.local",
            "421.example",
            "play.421.example",
        ):
            answer = httpx2.get(f"{server.base}/api/presets", headers={"Host": f"{name}:{port}"}, timeout=10)
            assert answer.status_code == 200, (name, answer.text)
    finally:
        server.stop()
    assert "Traceback" not in server.logged()
    refused = CliRunner().invoke(main, ["serve", "--allowed-host", "https://421.example"])
    assert refused.exit_code == 2 and "is no host name" in refused.output, refused.output


def test_the_seat_token_travels_in_a_header_and_the_old_url_form_is_never_logged(server: Server) -> None:
    created = server.create()
    code, token = created["code"], created["token"]
    server.start(code, token)
    with connect(
        f"ws://127.0.0.1:{server.port}/ws/{code}",
        open_timeout=10,
        subprotocols=[Subprotocol("py421"), Subprotocol(f"py421.token.{token}")],
    ) as ws:
        assert ws.subprotocol == "py421"
        message = json.loads(ws.recv(timeout=10))
        assert message["view"]["seat"] == 0  # seated by the header
    with server.ws(code, token) as ws:  # the URL form still seats a client written for it
        message = json.loads(ws.recv(timeout=10))
        assert message["view"]["seat"] == 0
        ws.send("not json")
        next_error(ws)
    server.stop()
    assert token not in server.logged()


def test_a_finished_online_game_verifies_from_the_history_after_its_table_is_gone(
    server: Server, tmp_path: Path
) -> None:
    import subprocess
    import sys

    created = server.create()
    code, token = created["code"], created["token"]
    server.start(code, token)
    with server.ws(code, token) as ws:
        acted = -1
        while True:
            message = json.loads(ws.recv(timeout=30))
            assert message["type"] != "error", message
            if message["type"] != "table" or message["view"] is None:
                continue
            if message["view"]["outcome"] is not None:
                break
            if message["view"]["your_turn"] and message["version"] > acted:  # once a version
                acted = message["version"]
                time.sleep(0.15)  # a person's pace: under the server's cap of messages a second
                action = message["view"]["legal_actions"][0]  # the object itself, as the docs allow
                ws.send(json.dumps({"type": "act", "version": acted, "action": action}))
    game = server.get("/api/games").json()[0]
    path = tmp_path / "game.json"
    path.write_text(server.get(f"/api/games/{game['id']}/record").text)
    checked = subprocess.run(
        [sys.executable, "-m", "py421", "verify", str(path)], capture_output=True, text=True, timeout=60
    )
    assert checked.returncode == 0, checked.stderr
    assert created["seed_hash"] in checked.stdout


def test_bots_play_on_after_the_database_was_away_and_no_task_fails_unseen(tmp_path: Path) -> None:
    """Around a database outage a bot's step failed, its task died ("Task exception was never
    retrieved") and the table waited on a bot that never moved again."""
    import sqlite3

    # SQLite waits a second for a lock (five by default): the outage below need outlast only that
    server = Server(tmp_path, "--bot-delay", "1", db=f"sqlite:///{tmp_path}/s.db?timeout=1")
    try:
        # three throws in the charge: the bots decide from the first round
        seats = ["human", "bot:heuristic", "bot:heuristic"]
        created = server.create(seats=seats, rules="classic-11", settings=["charge_throws=3"])
        code, token = created["code"], created["token"]
        server.start(code, token)
        with server.ws(code, token) as ws:
            outage_done, acted, outage_at = False, -1, 0
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                message = json.loads(ws.recv(timeout=60))
                if message["type"] != "table" or message["view"] is None:
                    continue
                view = message["view"]
                if view["outcome"] is not None or (outage_done and message["version"] > outage_at + 3):
                    break  # the step the outage held up was written, and the game went on
                waiting = view["waiting_for"]
                if not outage_done and waiting and waiting["seat"] != 0 and waiting["step"] == "decision":
                    # a bot decides in a second: the database goes away meanwhile, for longer than
                    # SQLite waits for a lock, so the bot's step cannot be written
                    lock = sqlite3.connect(tmp_path / "s.db", timeout=60)
                    lock.execute("BEGIN EXCLUSIVE")
                    written = "SELECT count(*) FROM online_steps WHERE code = ?"
                    if lock.execute(written, (code,)).fetchone()[0] == message["version"]:
                        time.sleep(4.5)  # the bot's step not written yet: it meets the outage
                        outage_done, outage_at = True, message["version"]
                    # else this test was slower than the bot: the next decision of a bot's, then
                    lock.rollback()
                    lock.close()
                if view["your_turn"] and message["version"] > acted:
                    acted = message["version"]
                    move = view["legal_actions"][0]["text"]
                    ws.send(json.dumps({"type": "act", "version": acted, "action": move}))
            else:
                raise AssertionError("the game stopped")
        assert outage_done
    finally:
        server.stop()
    assert "could not be saved" in server.logged()  # the outage was met, and said in a line
    assert "Task exception was never retrieved" not in server.logged()
    assert "Traceback" not in server.logged()
