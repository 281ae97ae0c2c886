"""Load: N tables of bots played at once over real WebSockets on loopback.

Each table seats a client bot and a server bot:heuristic. The server's bots
wait --bot-delay seconds before each move (0.6, the server's default); the
client bot waits --think seconds (the same as the server's bots unless given;
0 answers at once, a harder load than any table of people). The latency of an
action is the time from sending it to receiving the state that includes it.
When a game ends the client opens a new table and plays again, until
--seconds have passed.

With --spectators S, one more table is played the same way while S spectators
watch it (each reading every message, from a process of their own so that the
load client's own work does not count), and its action latency is printed on
its own line.

With --processes N (PostgreSQL only) N servers share the database; table i is
created through process i mod N and its player's WebSocket goes to process
(i div 2) mod N: half the tables are made through a process their player does
not play through (the table then moves to the player's process). On
PostgreSQL the servers use a fresh database of their own beside the one given
(its name with ``_load``), dropped and made again at each run.

With --server-cpu C the server runs on CPU C only and the load client on the
others: the server's "one core". PostgreSQL, a server of its own, runs where
the system puts it, on any CPU.

It prints the client's actions and the actions of every player the server
played (the client's and its own bots', counted in the database), with the
server's CPU time per action (and PostgreSQL's CPU, when it runs here); the
latency over the whole run, once every table is open, and for the actions
that ended a game; and how late the load client's own event loop ran its
timers (a late client adds to every latency it measures; its collector is
kept from pausing it as the server's is); and the servers' garbage
collections (each server runs with a hook that writes them down), how many,
how long in all and the longest.

Run: .venv/bin/python benchmarks/server_load.py [--tables 200] [--seconds 20]
     [--bot-delay 0.6] [--think S] [--db URL] [--spectators 300] [--processes N]
     [--server-cpu C]
Targets: p99 under 50 ms at 200 tables on the 2-core machine; 1,000 actions a
second on one core (--server-cpu 0) with p99 under 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import functools
import gc
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx2 as httpx
import sqlalchemy
import uvloop
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests' helpers
from tests.server_process import free_port, start_server


class Tally:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.when: list[float] = []  # time.monotonic() of each latency measured
        self.ending: list[float] = []  # the latencies of the actions that ended a game
        self.games = 0
        self.errors: dict[str, int] = {}

    def failed(self, error: Exception) -> None:
        """Count an error by its kind; an HTTP error by its status, method and the last part of its
        path, which say which request the server refused."""
        kind = type(error).__name__
        if isinstance(error, httpx.HTTPStatusError):
            path = error.request.url.path.rsplit("/", 1)[-1]
            kind = f"HTTP {error.response.status_code} ({error.request.method} …/{path})"
        self.errors[kind] = self.errors.get(kind, 0) + 1


async def own_lag(lags: list[float], until: float) -> None:
    """How late the load client's own event loop runs a timer: a late client adds to every
    latency it measures. Its collector is kept from pausing it as the server's is."""
    gc.freeze()
    while time.monotonic() < until:
        asked = time.perf_counter()
        await asyncio.sleep(0.01)
        lags.append(time.perf_counter() - asked - 0.01)
        gc.freeze()  # what survived the young collections: the full ones never walk it


async def client(
    https: list[httpx.AsyncClient], number: int, until: float, think: float, tally: Tally
) -> None:
    rng = random.Random(number)
    await asyncio.sleep(number * 0.02)  # tables open over the first seconds, not all at once
    n = len(https)
    while time.monotonic() < until:
        try:
            play_at = str(https[(number // 2) % n].base_url)
            await one_game(https[number % n], f"P{number}", rng, until, think, tally, play_at=play_at)
        except (OSError, httpx.HTTPError, WebSocketException, KeyError) as e:
            tally.failed(e)
            await asyncio.sleep(1)
        except TimeoutError:
            tally.errors["no news for 60 s"] = tally.errors.get("no news for 60 s", 0) + 1


async def one_game(
    http: httpx.AsyncClient,
    name: str,
    rng: random.Random,
    until: float,
    think: float,
    tally: Tally,
    spectators: int = 0,
    play_at: str | None = None,
) -> None:
    body = {"seats": ["human", "bot:heuristic"], "name": name, "timeout": 0}
    response = await http.post("/api/tables", json=body)
    response.raise_for_status()
    created = response.json()
    code, token = created["code"], created["token"]
    base = (play_at or str(http.base_url)).replace("http", "ws")
    ws_url = f"{base}/ws/{code}?token={token}"
    watchers = None
    if spectators:
        args = [sys.executable, __file__, "--watch", f"{base}/ws/{code}", "--spectators", str(spectators)]
        watchers = await asyncio.create_subprocess_exec(*args, stdout=asyncio.subprocess.PIPE)
        assert watchers.stdout is not None
        await watchers.stdout.readline()  # "watching": every spectator is connected
    try:
        async with connect(ws_url, ping_interval=None, open_timeout=30) as ws:
            started = await http.post(
                f"/api/tables/{code}/start", headers={"Authorization": f"Bearer {token}"}
            )
            started.raise_for_status()
            await play(ws, rng, until, think, tally)
    finally:
        if watchers is not None:
            watchers.kill()
            await watchers.wait()


async def watch(url: str, count: int) -> None:
    """``count`` spectators, each reading every message as a phone watching the table does."""

    async def one(opened: asyncio.Event) -> None:
        async with connect(url, ping_interval=None, open_timeout=60) as ws:
            opened.set()
            while True:
                await ws.recv()

    events = [asyncio.Event() for _ in range(count)]
    tasks = [asyncio.create_task(one(e)) for e in events]
    await asyncio.gather(*(e.wait() for e in events))
    print("watching", flush=True)
    await asyncio.gather(*tasks)


async def watched(http: httpx.AsyncClient, spectators: int, until: float, think: float, tally: Tally) -> None:
    rng = random.Random(-1)
    while time.monotonic() < until:
        try:
            await one_game(http, "Watched", rng, until, think, tally, spectators)
        except (OSError, httpx.HTTPError, WebSocketException, KeyError) as e:
            tally.failed(e)
            await asyncio.sleep(1)


async def play(ws: ClientConnection, rng: random.Random, until: float, think: float, tally: Tally) -> None:
    sent: tuple[int, float, str] | None = None  # version seen, time sent, message
    while time.monotonic() < until:
        message = json.loads(await asyncio.wait_for(ws.recv(), 60))  # a stuck table is an error
        if message.get("error") == "rate_limited" and sent is not None:
            await asyncio.sleep(1)  # faster than a person: the server asks us to wait
            await ws.send(sent[2])
            continue
        if message["type"] != "table":
            continue
        if sent is not None and message["version"] > sent[0]:
            tally.latencies.append(time.perf_counter() - sent[1])
            tally.when.append(time.monotonic())
            if message["view"] is not None and message["view"]["outcome"] is not None:
                tally.ending.append(tally.latencies[-1])
            sent = None
        view = message["view"]
        if view is None:
            continue
        if view["outcome"] is not None:
            tally.games += 1
            return
        if view["your_turn"] and sent is None:
            await asyncio.sleep(think)
            action = rng.choice(view["legal_actions"])["text"]
            act = json.dumps({"type": "act", "version": message["version"], "action": action})
            sent = (message["version"], time.perf_counter(), act)
            await ws.send(act)


def cpu_seconds(pid: int) -> float:
    """User and system time of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def database_cpu(db: str) -> dict[int, float]:
    """PostgreSQL running on this machine: the CPU time so far of each of its processes (none for
    SQLite, which runs in the server, nor for a database elsewhere). A process that ends during the
    run is not counted: the servers' connections last the whole run."""
    if not db.startswith("postgres"):
        return {}
    engine = sqlalchemy.create_engine(db)
    try:
        with engine.connect() as conn:
            pids = [int(pid) for (pid,) in conn.execute(sqlalchemy.text("SELECT pid FROM pg_stat_activity"))]
    finally:
        engine.dispose()
    found = {}
    for pid in pids:
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == "postgres":
                found[pid] = cpu_seconds(pid)
        except OSError:  # gone, or another machine's
            pass
    return found


def own_database(url: str) -> str:
    """An empty PostgreSQL database of the benchmark's own beside the one given (``NAME_load``):
    tables left by earlier runs would be taken over by the servers and skew the numbers."""
    url = url.replace("postgresql://", "postgresql+psycopg://")
    base, _, name = url.rpartition("/")
    own = f"{name}_load"
    admin = sqlalchemy.create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(sqlalchemy.text(f'DROP DATABASE IF EXISTS "{own}"'))
            conn.execute(sqlalchemy.text(f'CREATE DATABASE "{own}"'))
    except sqlalchemy.exc.OperationalError as e:
        sys.exit(f"--db {url}: cannot make the benchmark's database {own!r} there: {e.orig}")
    finally:
        admin.dispose()
    return f"{base}/{own}"


def steps_written(url: str) -> collections.Counter[str]:
    """The steps in the servers' database, by kind: the players' actions, and dice."""
    engine = sqlalchemy.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.connect() as conn:
            rows = conn.execute(sqlalchemy.text("SELECT kind, count(*) FROM online_steps GROUP BY kind"))
            return collections.Counter({str(kind): int(n) for kind, n in rows})
    finally:
        engine.dispose()


async def run(
    tables: int,
    seconds: float,
    think: float,
    bases: list[str],
    server_pids: list[int],
    spectators: int,
    db: str,
) -> tuple[float, float, float]:
    """Play, print what was measured, and return when the load began, when every table was open
    and when it ended (``time.monotonic()``)."""
    tally, seen = Tally(), Tally()
    before = steps_written(db)
    start = time.monotonic()
    cpu_server = sum(cpu_seconds(pid) for pid in server_pids)
    cpu_client = cpu_seconds(os.getpid())
    cpu_database = database_cpu(db)
    # One HTTP client per server for every table: making one is slow enough to stall the others.
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=tables + 1)
    https = [httpx.AsyncClient(base_url=base, timeout=30, limits=limits) for base in bases]
    lags: list[float] = []
    try:
        players = [client(https, i, start + seconds, think, tally) for i in range(tables)]
        players.append(own_lag(lags, start + seconds))
        if spectators:
            players.append(watched(https[0], spectators, start + seconds, think, seen))
        await asyncio.gather(*players)
    finally:
        for http in https:
            await http.aclose()
    wall = time.monotonic() - start
    server_share = (sum(cpu_seconds(pid) for pid in server_pids) - cpu_server) / wall
    client_share = (cpu_seconds(os.getpid()) - cpu_client) / wall
    database_share = sum(t - cpu_database.get(pid, 0.0) for pid, t in database_cpu(db).items()) / wall
    lat = sorted(tally.latencies)
    written = steps_written(db) - before
    moves = written["action"]
    print(f"{tables} tables, {wall:.0f} s: {tally.games} games, {len(lat)} actions ({len(lat) / wall:.0f}/s)")
    print(
        f"the server played {moves} actions of every player, the load client's and its own bots' "
        f"({moves / wall:.0f}/s), and {written['dice']} throws of dice ({written['dice'] / wall:.0f}/s)"
    )
    # every table is open by then (they open 50 a second): the load as it stays
    settled = start + min(seconds / 2, tables * 0.02 + 2)
    if lat:
        print(f"action latency: {percentiles(lat)}")
        steady = sorted(x for x, t in zip(tally.latencies, tally.when, strict=True) if t >= settled)
        print(f"  from {settled - start:.0f} s on, every table open: {percentiles(steady)}")
        print(f"  the {len(tally.ending)} that ended a game (and wrote it into the history): "
              f"{percentiles(sorted(tally.ending))}")  # fmt: skip
    print(f"the load client's own event loop ran timers late by {percentiles(sorted(lags))}")
    if spectators:
        watched_lat = percentiles(sorted(seen.latencies))
        print(f"the table {spectators} spectators watched: {len(seen.latencies)} actions, {watched_lat}")
    servers = "server" if len(server_pids) == 1 else f"{len(server_pids)} servers together"
    database = f", PostgreSQL {database_share:.0%}" if database_share else ""
    print(f"CPU: {servers} {server_share:.0%} of a core, load client {client_share:.0%}{database}")
    if moves:
        print(f"server CPU per action of any player: {server_share * wall / moves * 1000:.2f} ms")
    errors = collections.Counter(tally.errors) + collections.Counter(seen.errors)
    if errors:
        print("errors: " + ", ".join(f"{k} {v}" for k, v in sorted(errors.items())))
    return start, settled, start + wall


def serve_timing_collections(out: Path, full_seconds: float, argv: list[str]) -> None:
    """A server's own process: ``421 serve argv``, writing the start and length of each of its garbage
    collections to ``out``, a line each as it ends (uvicorn ends the process by the signal that
    stopped it, so nothing can be written at the end); ``full_seconds`` (if not 0) replaces the
    collector's least time between two full collections."""
    if full_seconds:
        from py421.server import collector

        collector.keep_collections_short = functools.partial(
            collector.keep_collections_short, full_seconds=full_seconds
        )
    lines = out.open("a", buffering=1)
    began = 0.0

    def timed(phase: str, info: dict[str, int]) -> None:
        nonlocal began
        if phase == "start":
            began = time.monotonic()
        else:
            lines.write(f"{began} {time.monotonic() - began}\n")

    gc.callbacks.append(timed)
    from py421.cli import main as cli

    sys.argv = ["421", *argv]
    cli()


def report_collections(files: list[Path], start: float, settled: float, end: float) -> None:
    """How long the servers' garbage collections held their event loops while the tables played."""
    pauses = [
        tuple(map(float, line.split())) for f in files if f.exists() for line in f.read_text().splitlines()
    ]
    for label, since in (("while the tables played", start), ("once every table was open", settled)):
        lengths = [length for at, length in pauses if since <= at <= end]
        total = sum(lengths)
        longest = max(lengths, default=0.0)
        print(f"the server's garbage collections {label}: {len(lengths)}, {total:.2f} s in all, "
              f"the longest {longest * 1000:.1f} ms")  # fmt: skip


def percentiles(lat: list[float]) -> str:
    if not lat:
        return "none"
    p50 = statistics.median(lat) * 1000
    p99 = lat[max(0, int(len(lat) * 0.99) - 1)] * 1000
    return f"p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {lat[-1] * 1000:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--bot-delay", type=float, default=0.6, help="the server's bots' wait before a move")
    parser.add_argument("--think", type=float, help="the client bots' wait (default: --bot-delay)")
    parser.add_argument("--db", help="the server's database URL (default: SQLite in a temporary folder)")
    parser.add_argument("--spectators", type=int, default=0, help="spectators watching one more table")
    parser.add_argument("--processes", type=int, default=1, help="servers on the database (PostgreSQL)")
    parser.add_argument(
        "--server-cpu",
        type=int,
        help="run the server (each process) on this one CPU and the load client on the others",
    )
    parser.add_argument(
        "--full-collection-seconds",
        type=float,
        default=0,
        help="the servers' least time between two full garbage collections (default: their own, 600)",
    )
    parser.add_argument("--watch", help=argparse.SUPPRESS)  # the spectators' own process
    if sys.argv[1:2] == ["--time-collections"]:  # a server's own process: --time-collections FILE S ARGS
        serve_timing_collections(Path(sys.argv[2]), float(sys.argv[3]), sys.argv[4:])
        return
    args = parser.parse_args()
    if args.watch:
        uvloop.run(watch(args.watch, args.spectators))
        return
    think = args.bot_delay if args.think is None else args.think
    print(f"bots wait {args.bot_delay} s before each move on the server, {think} s in the client")
    if args.processes > 1 and not (args.db or "").startswith("postgresql"):
        parser.error("several processes need one PostgreSQL database: give --db postgresql://…")
    if args.db and args.db.startswith("postgres"):
        args.db = own_database(args.db)
    with tempfile.TemporaryDirectory() as tmp:
        # one address plays every table here: the per-address caps are lifted, the others kept
        lifted = ["--max-tables-per-minute", "1000000", "--max-tables-per-address", "1000000"]
        lifted += ["--max-connections-per-address", "1000000"]
        lifted += ["--messages-per-second", "1000000", "--max-spectators", str(max(100, args.spectators))]
        servers, bases = [], []
        for i in range(args.processes):
            folder = Path(tmp) / f"server{i}"
            folder.mkdir()
            port = free_port()
            timed = str(folder / "collections.txt")
            runner = (__file__, "--time-collections", timed, str(args.full_collection_seconds))
            options = ["--bot-delay", str(args.bot_delay), *lifted]
            servers.append(start_server(folder, port, *options, db=args.db, runner=runner))
            bases.append(f"http://127.0.0.1:{port}")
        try:
            pids = [s.pid for s in servers]
            if args.server_cpu is not None:  # "one core": nothing else runs on the server's
                others = os.sched_getaffinity(0) - {args.server_cpu}
                for pid in pids:
                    os.sched_setaffinity(pid, {args.server_cpu})
                os.sched_setaffinity(0, others)
            db = args.db or f"sqlite:///{Path(tmp) / 'server0' / 's.db'}"
            window = uvloop.run(run(args.tables, args.seconds, think, bases, pids, args.spectators, db))
        finally:
            for i, server in enumerate(servers):
                server.terminate()
                server.wait(30)
                report_log((Path(tmp) / f"server{i}" / "server.log").read_text().splitlines())
        collections = [Path(tmp) / f"server{i}" / "collections.txt" for i in range(len(servers))]
        report_collections(collections, *window)


def report_log(lines: list[str]) -> None:
    """The server's complaints, each kind counted once (tracebacks end with their error line)."""
    errors = collections.Counter(
        line.strip()[:160] for line in lines if line and not line[0].isspace() and ":" in line
    )
    for line, count in errors.most_common(10):
        print(f"server log: {count} x {line}")


if __name__ == "__main__":
    main()
