"""What a table message costs the server to write: as a dict with orjson (how the server builds
it, typed by server/outbound.py), or as the protocol's pydantic model, validated then written.

Run: .venv/bin/python benchmarks/message_cost.py
A message is the first ``table`` message of a started game of classic-11, as a player gets it.
"""

from __future__ import annotations

import json
import tempfile
import timeit
from typing import Any

import orjson
from fastapi.testclient import TestClient

from py421.server.app import create_app
from py421.server.protocol import TableMessage

TIMES = 3000


def a_table_message() -> dict[str, Any]:
    folder = tempfile.mkdtemp()
    with TestClient(create_app(f"sqlite:///{folder}/s.db", bot_delay=0)) as client:
        body = {"rules": "classic-11", "seats": ["human", "bot:heuristic"], "name": "Ana"}
        made = client.post("/api/tables", json=body).json()
        with client.websocket_connect(f"/ws/{made['code']}?token={made['token']}") as ws:
            client.post(
                f"/api/tables/{made['code']}/start", headers={"Authorization": f"Bearer {made['token']}"}
            )
            while True:
                message: dict[str, Any] = json.loads(ws.receive_text())
                if message["type"] == "table" and message["view"]:
                    return message


def main() -> None:
    message = a_table_message()
    as_dict = timeit.timeit(lambda: orjson.dumps(message), number=TIMES) / TIMES
    as_model = (
        timeit.timeit(lambda: TableMessage.model_validate(message).model_dump_json(), number=TIMES) / TIMES
    )
    print(f"a table message, {len(orjson.dumps(message))} bytes:")
    print(f"  a dict written by orjson: {as_dict * 1e6:.1f} µs")
    print(f"  the model, validated then written: {as_model * 1e6:.1f} µs")


if __name__ == "__main__":
    main()
