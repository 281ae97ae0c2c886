"""kill -9 of the server mid-game: after a restart the table resumes where it was."""

from __future__ import annotations

import json
import os
import random
import signal
import time
from pathlib import Path
from typing import Any

import httpx2
from websockets.sync.client import connect

from py421.core.record import Record
from py421.server.verify import verify

from .server_process import free_port, start_server


class Player:
    """Alice's side of the WebSocket: acts, and slows down when the server says so."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.last: str | None = None
        # The log as the page keeps it: each message's new lines, from line number ``log_from``.
        self.log: list[str] = []
        self.log_from: int | None = None

    def act(self, message: dict[str, Any], action: str) -> None:
        self.last = json.dumps({"type": "act", "version": message["version"], "action": action})
        self.ws.send(self.last)

    def until_my_turn(self) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = json.loads(self.ws.recv(timeout=30))
            if message.get("error") == "rate_limited" and self.last:  # faster than a person
                time.sleep(1)
                self.ws.send(self.last)
                continue
            assert message["type"] == "table", message
            if self.log_from is None:  # a new connection starts at most 50 lines back
                self.log_from = message["log_start"]
            assert self.log_from <= message["log_start"] <= self.log_from + len(self.log)
            self.log[message["log_start"] - self.log_from :] = message["log"]
            view = message["view"]
            if view is not None and (view["your_turn"] or view["outcome"] is not None):
                return message


def test_a_killed_server_resumes_every_acknowledged_step(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_server(tmp_path, port, "--bot-delay", "0")
    body = {
        "rules": "lyonnaise-21",
        "seats": ["human", "bot:heuristic", "bot:random"],
        "name": "Alice",
        "timeout": 0,
    }
    try:
        created = httpx2.post(f"{base}/api/tables", json=body).json()
        code, token = created["code"], created["token"]
        headers = {"Authorization": f"Bearer {token}"}
        assert httpx2.post(f"{base}/api/tables/{code}/start", headers=headers).status_code == 200
        rng = random.Random(4)
        url = f"ws://127.0.0.1:{port}/ws/{code}?token={token}"
        with connect(url) as ws:
            alice = Player(ws)
            for _ in range(6):  # six decisions of Alice's, each acknowledged by a new state
                message = alice.until_my_turn()
                if message["view"]["outcome"] is not None:
                    break  # over already: the finished table must come back as it ended
                alice.act(message, rng.choice(message["view"]["legal_actions"])["text"])
            seen = alice.until_my_turn() if message["view"]["outcome"] is None else message
            before = alice
            # the server now waits for Alice (or the game is over): nothing moves
    except BaseException:
        server.kill()  # a failure before the kill must not leave the server running
        raise
    os.kill(server.pid, signal.SIGKILL)
    server.wait(10)

    server = start_server(tmp_path, port, "--bot-delay", "0")
    try:
        with connect(url) as ws:
            alice = Player(ws)
            resumed = alice.until_my_turn()
            assert resumed["version"] == seen["version"]
            assert resumed["view"] == seen["view"]
            # the same log: its last 50 lines, numbered as before
            assert before.log_from is not None and alice.log_from is not None
            lines = before.log_from + len(before.log)
            assert alice.log == before.log[-50:] and alice.log_from == max(0, lines - 50)
            while resumed["view"]["outcome"] is None:  # and the game plays on to its end
                alice.act(resumed, rng.choice(resumed["view"]["legal_actions"])["text"])
                resumed = alice.until_my_turn()
        record = Record.from_dict(httpx2.get(f"{base}/api/tables/{code}/record").json())
        assert verify(record).problems == []  # every throw, before and after the crash, came from the seed
    finally:
        server.terminate()
        server.wait(10)
