"""kill -9 of the server mid-game: after a restart the table resumes where it was."""

from __future__ import annotations

import json
import os
import random
import signal
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import connect

from py421.core.record import Record
from py421.server.hub import verify

from .server_process import free_port, start_server


def until_my_turn(ws: Any) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(ws.recv(timeout=30))
        assert message["type"] == "table", message
        view = message["view"]
        if view is not None and (view["your_turn"] or view["outcome"] is not None):
            return message


def test_a_killed_server_resumes_every_acknowledged_step(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_server(tmp_path, port, "--bot-delay", "0")
    body = {
        "rules": "classic-11",
        "seats": ["human", "bot:heuristic", "bot:random"],
        "name": "Alice",
        "timeout": 0,
    }
    created = httpx.post(f"{base}/api/tables", json=body).json()
    code, token = created["code"], created["token"]
    headers = {"Authorization": f"Bearer {token}"}
    assert httpx.post(f"{base}/api/tables/{code}/start", headers=headers).status_code == 200
    rng = random.Random(4)
    url = f"ws://127.0.0.1:{port}/ws/{code}?token={token}"
    with connect(url) as ws:
        for _ in range(6):  # six decisions of Alice's, each acknowledged by a new state
            message = until_my_turn(ws)
            assert message["view"]["outcome"] is None
            action = rng.choice(message["view"]["legal_actions"])
            ws.send(json.dumps({"type": "act", "version": message["version"], "action": action}))
        seen = until_my_turn(ws)  # the server now waits for Alice: nothing moves
    os.kill(server.pid, signal.SIGKILL)
    server.wait(10)

    server = start_server(tmp_path, port, "--bot-delay", "0")
    try:
        with connect(url) as ws:
            resumed = until_my_turn(ws)
            assert resumed["version"] == seen["version"]
            assert resumed["view"] == seen["view"]
            assert resumed["log"] == seen["log"]
            while resumed["view"]["outcome"] is None:  # and the game plays on to its end
                action = rng.choice(resumed["view"]["legal_actions"])
                ws.send(json.dumps({"type": "act", "version": resumed["version"], "action": action}))
                resumed = until_my_turn(ws)
        record = Record.from_dict(httpx.get(f"{base}/api/tables/{code}/record").json())
        assert verify(record) == []  # every throw, before and after the crash, came from the seed
    finally:
        server.terminate()
        server.wait(10)
