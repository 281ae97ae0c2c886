"""A real ``421 serve`` process on loopback, tried the way an attacker would.

Every loop here is bounded; every wait has a deadline. Each test names the
attack it replays and what the server must still do.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from websockets.sync.client import connect

from .server_helpers import POSTGRES, fresh_postgres
from .server_process import free_port, start_server

pytestmark = pytest.mark.slow  # real server processes

DATABASES = ["sqlite"] + (["postgresql"] if POSTGRES else [])


class Server:
    def __init__(self, tmp: Path, *extra: str, db: str = "sqlite") -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        url = fresh_postgres(POSTGRES) if db == "postgresql" and POSTGRES else None
        self.log = tmp / "server.log"
        self.proc = start_server(tmp, self.port, *extra, db=url)

    def ws(self, code: str, token: str | None = None, **kwargs: Any) -> Any:
        query = f"?token={token}" if token else ""
        return connect(f"ws://127.0.0.1:{self.port}/ws/{code}{query}", open_timeout=10, **kwargs)

    def post(self, path: str, body: Any = None, token: str | None = None, **kwargs: Any) -> httpx2.Response:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx2.post(self.base + path, json=body, headers=headers, timeout=60, **kwargs)

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
    assert set(body) == {"detail"} and set(body["detail"]) == {"error", "message"}, body
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
    server = Server(tmp_path, "--optimal-seconds", "8", "--optimal-memory", "600")
    try:
        started = time.monotonic()
        refused = server.post(
            "/api/tables",
            {"rules": "classic-11", "settings": ["pot=999"], "seats": ["human", "bot:optimal"], "name": "A"},
        )
        took = time.monotonic() - started
        assert refused.status_code == 400 and detail(refused)["error"] == "optimal_too_costly"
        assert "8 s" in detail(refused)["message"] or "600 MB" in detail(refused)["message"]
        assert took < 20
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
    server = Server(tmp_path, "--optimal-seconds", "60")
    try:
        created = server.create()
        body = {"rules": "vache-41", "settings": ["pot=300"], "seats": ["human", "bot:optimal"], "name": "A"}
        solving = threading.Thread(target=lambda: server.post("/api/tables", body), daemon=True)
        solving.start()
        time.sleep(2)  # well into the solve
        assert server.get("/api/presets").status_code == 200  # the server is not the one solving
        started = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        server.proc.wait(15)
        assert time.monotonic() - started < 10
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
            watchers = [open_ones.enter_context(server.ws(code)) for _ in range(3)]
            with server.ws(code) as fourth:
                assert next_error(fourth)["error"] == "too_many_spectators"
            other = answers[1].json()["code"]
            for _ in range(3):  # six connections from this address now
                open_ones.enter_context(server.ws(other))
            with server.ws(other) as seventh:
                assert next_error(seventh)["error"] == "too_many_connections"
            flooder = watchers[0]
            for _ in range(40):  # the budget is the address's, shared by its connections
                flooder.send(json.dumps({"type": "ping"}))
            assert next_error(flooder)["error"] == "rate_limited"
    finally:
        server.stop()
    assert "Traceback" not in server.logged()
