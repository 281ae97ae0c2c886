"""Load: N tables of bots played at once over real WebSockets on loopback.

Each table seats a client bot and a server bot:heuristic. The server's bots
wait --bot-delay seconds before each move (0.6, the server's default); the
client bot waits --think seconds (the same as the server's bots unless given;
0 answers at once, a harder load than any table of people). The latency of an
action is the time from sending it to receiving the state that includes it.
When a game ends the client opens a new table and plays again, until
--seconds have passed.

Run: .venv/bin/python benchmarks/server_load.py [--tables 200] [--seconds 20]
     [--bot-delay 0.6] [--think S] [--db URL]
Target: p99 under 50 ms at 200 tables on the 2-core machine.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
import uvloop
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from server_process import free_port, start_server


class Tally:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.games = 0
        self.errors: dict[str, int] = {}


async def client(http: httpx.AsyncClient, number: int, until: float, think: float, tally: Tally) -> None:
    rng = random.Random(number)
    await asyncio.sleep(number * 0.02)  # tables open over the first seconds, not all at once
    while time.monotonic() < until:
        try:
            await one_game(http, f"P{number}", rng, until, think, tally)
        except (OSError, httpx.HTTPError, WebSocketException, KeyError) as e:
            kind = type(e).__name__
            tally.errors[kind] = tally.errors.get(kind, 0) + 1
            await asyncio.sleep(1)


async def one_game(
    http: httpx.AsyncClient, name: str, rng: random.Random, until: float, think: float, tally: Tally
) -> None:
    body = {"seats": ["human", "bot:heuristic"], "name": name, "timeout": 0}
    created = (await http.post("/api/tables", json=body)).json()
    code, token = created["code"], created["token"]
    ws_url = f"{str(http.base_url).replace('http', 'ws')}/ws/{code}?token={token}"
    async with connect(ws_url, ping_interval=None, open_timeout=30) as ws:
        started = await http.post(f"/api/tables/{code}/start", headers={"Authorization": f"Bearer {token}"})
        started.raise_for_status()
        await play(ws, rng, until, think, tally)


async def play(ws: ClientConnection, rng: random.Random, until: float, think: float, tally: Tally) -> None:
    sent: tuple[int, float, str] | None = None  # version seen, time sent, message
    while time.monotonic() < until:
        message = json.loads(await ws.recv())
        if message.get("error") == "rate_limited" and sent is not None:
            await asyncio.sleep(1)  # faster than a person: the server asks us to wait
            await ws.send(sent[2])
            continue
        if message["type"] != "table":
            continue
        if sent is not None and message["version"] > sent[0]:
            tally.latencies.append(time.perf_counter() - sent[1])
            sent = None
        view = message["view"]
        if view is None:
            continue
        if view["outcome"] is not None:
            tally.games += 1
            return
        if view["your_turn"] and sent is None:
            await asyncio.sleep(think)
            action = rng.choice(view["legal_actions"])
            act = json.dumps({"type": "act", "version": message["version"], "action": action})
            sent = (message["version"], time.perf_counter(), act)
            await ws.send(act)


def cpu_seconds(pid: int) -> float:
    """User and system time of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def run(tables: int, seconds: float, think: float, base: str, server_pid: int) -> None:
    tally = Tally()
    start = time.monotonic()
    cpu_server, cpu_client = cpu_seconds(server_pid), cpu_seconds(os.getpid())
    # One HTTP client for every table: making one is slow enough to stall the others.
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=tables)
    async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as http:
        await asyncio.gather(*(client(http, i, start + seconds, think, tally) for i in range(tables)))
    wall = time.monotonic() - start
    server_share = (cpu_seconds(server_pid) - cpu_server) / wall
    client_share = (cpu_seconds(os.getpid()) - cpu_client) / wall
    lat = sorted(tally.latencies)
    print(f"{tables} tables, {wall:.0f} s: {tally.games} games, {len(lat)} actions ({len(lat) / wall:.0f}/s)")
    if lat:
        p50 = statistics.median(lat) * 1000
        p99 = lat[max(0, int(len(lat) * 0.99) - 1)] * 1000
        print(f"action latency: p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {lat[-1] * 1000:.1f} ms")
    print(f"CPU: server {server_share:.0%} of a core, load client {client_share:.0%}")
    if tally.errors:
        print("errors: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.errors.items())))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--bot-delay", type=float, default=0.6, help="the server's bots' wait before a move")
    parser.add_argument("--think", type=float, help="the client bots' wait (default: --bot-delay)")
    parser.add_argument("--db", help="the server's database URL (default: SQLite in a temporary folder)")
    args = parser.parse_args()
    think = args.bot_delay if args.think is None else args.think
    print(f"bots wait {args.bot_delay} s before each move on the server, {think} s in the client")
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        server = start_server(Path(tmp), port, "--bot-delay", str(args.bot_delay), db=args.db)
        try:
            uvloop.run(run(args.tables, args.seconds, think, f"http://127.0.0.1:{port}", server.pid))
        finally:
            server.terminate()
            server.wait(30)
            report_log((Path(tmp) / "server.log").read_text().splitlines())


def report_log(lines: list[str]) -> None:
    """The server's complaints, each kind counted once (tracebacks end with their error line)."""
    errors = collections.Counter(
        line.strip()[:160] for line in lines if line and not line[0].isspace() and ":" in line
    )
    for line, count in errors.most_common(10):
        print(f"server log: {count} x {line}")


if __name__ == "__main__":
    main()
