"""Load: N tables played at once over real WebSockets on loopback.

Each table seats one client and one bot:heuristic; the server's bots wait
BOT_DELAY seconds before each move (0.6, the server's default, unless given).
Every client answers its turns at once; the latency of an action is the time
from sending it to receiving the state that includes it.

Run: .venv/bin/python benchmarks/server_load.py [TABLES] [SECONDS] [BOT_DELAY]
Target: p99 under 50 ms at 200 tables on the 2-core machine.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from server_process import free_port, start_server


async def client(base: str, ws_base: str, seed: int, until: float, latencies: list[float]) -> int:
    rng = random.Random(seed)
    games = 0
    await asyncio.sleep(seed * 0.01)  # tables open over the first seconds, not all at once
    async with httpx.AsyncClient(timeout=60) as http:
        while time.monotonic() < until:
            body = {"seats": ["human", "bot:heuristic"], "name": f"P{seed}", "timeout": 0}
            created = (await http.post(f"{base}/api/tables", json=body)).json()
            code, token = created["code"], created["token"]
            headers = {"Authorization": f"Bearer {token}"}
            async with connect(f"{ws_base}/ws/{code}?token={token}", ping_interval=None) as ws:
                await http.post(f"{base}/api/tables/{code}/start", headers=headers)
                sent: tuple[int, float, str] | None = None
                while time.monotonic() < until:
                    message = json.loads(await ws.recv())
                    if message.get("error") == "rate_limited" and sent is not None:
                        await asyncio.sleep(1)  # faster than a person: the server asks us to wait
                        await ws.send(sent[2])
                        continue
                    if message["type"] != "table":
                        continue
                    if sent is not None and message["version"] > sent[0]:
                        latencies.append(time.perf_counter() - sent[1])
                        sent = None
                    view = message["view"]
                    if view is None:
                        continue
                    if view["outcome"] is not None:
                        games += 1
                        break
                    if view["your_turn"] and sent is None:
                        action = rng.choice(view["legal_actions"])
                        act = json.dumps({"type": "act", "version": message["version"], "action": action})
                        sent = (message["version"], time.perf_counter(), act)
                        await ws.send(act)
    return games


async def run(tables: int, seconds: float, base: str) -> None:
    ws_base = base.replace("http", "ws")
    latencies: list[float] = []
    until = time.monotonic() + seconds
    games = await asyncio.gather(*(client(base, ws_base, i, until, latencies) for i in range(tables)))
    lat = sorted(latencies)
    p50 = statistics.median(lat) * 1000
    p99 = lat[int(len(lat) * 0.99) - 1] * 1000
    print(f"{tables} tables, {seconds:.0f} s: {sum(games)} games, {len(lat)} actions")
    print(f"action latency: p50 {p50:.1f} ms, p99 {p99:.1f} ms")


def main() -> None:
    tables = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 20
    bot_delay = sys.argv[3] if len(sys.argv) > 3 else "0.6"
    print(f"bots wait {bot_delay} s before each move")
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        server = start_server(Path(tmp), port, "--bot-delay", bot_delay)
        try:
            asyncio.run(run(tables, seconds, f"http://127.0.0.1:{port}"))
        finally:
            server.terminate()
            server.wait(10)


if __name__ == "__main__":
    main()
