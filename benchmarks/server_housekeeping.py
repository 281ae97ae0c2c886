"""How long a server's answers wait while its housekeeping ends thousands of tables at once.

Starts ``421 serve`` on SQLite (or ``--db``), creates --tables waiting tables,
stops it, moves their creation back in the database (as the clock would), and
starts it again with ``--waiting-minutes 1``: its first look over the tables
ends them all. Meanwhile a client asks ``/healthz`` every 20 ms and times each
answer. It prints how long the tables took to go, and the answers' median, p99
and longest wait while they went.

``--src DIR`` runs the server of another checkout (``DIR/src``), to compare.

Run: .venv/bin/python benchmarks/server_housekeeping.py [--tables 3000] [--db URL] [--src DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx2
from sqlalchemy import create_engine, inspect, text

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests' helpers
from tests.server_process import free_port, start_server

LONG_AGO = "2000-01-01T00:00:00+00:00"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=3000)
    parser.add_argument("--db", default=None, help="a database URL (default: SQLite in a temporary folder)")
    parser.add_argument("--src", type=Path, default=None, help="the checkout whose server to run")
    args = parser.parse_args()
    if args.src is not None:
        os.environ["PYTHONPATH"] = str(args.src.resolve() / "src")
    folder = Path(tempfile.mkdtemp(prefix="py421-housekeeping-"))
    url = args.db or f"sqlite:///{folder}/s.db"
    lifted = ["--max-tables-per-minute", "1000000", "--max-tables-per-address", "1000000"]
    lifted += ["--max-tables", "1000000", "--waiting-minutes", "1"]

    port = free_port()
    server = start_server(folder, port, *lifted, db=url)
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx2.Client(base_url=base, timeout=60) as client:
            body = {"rules": "classic-11", "seats": ["human", "human"], "name": "A"}
            for _ in range(args.tables):
                client.post("/api/tables", json=body).raise_for_status()
    finally:
        server.terminate()
        server.wait(30)

    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    columns = {c["name"] for c in inspect(engine).get_columns("online_tables")}
    moved = ", active_at = :t" if "active_at" in columns else ""
    with engine.begin() as conn:
        conn.execute(text(f"UPDATE online_tables SET created_at = :t{moved}"), {"t": LONG_AGO})
    engine.dispose()

    server = start_server(folder, port, *lifted, db=url)
    waits: list[float] = []
    slow: list[tuple[float, float]] = []  # (seconds after the start, wait) of the answers over 100 ms
    try:
        with httpx2.Client(base_url=base, timeout=60) as client:
            began = time.monotonic()
            while True:
                asked = time.perf_counter()
                held = client.get("/healthz").json()["tables"]
                waits.append(time.perf_counter() - asked)
                if waits[-1] > 0.1:
                    slow.append((time.monotonic() - began, waits[-1]))
                if held == 0:
                    break
                if time.monotonic() - began > 300:
                    sys.exit("the tables did not go within 5 minutes")
                time.sleep(0.02)
            gone = time.monotonic() - began
    finally:
        server.terminate()
        server.wait(30)
    waits.sort()
    p99 = waits[min(len(waits) - 1, int(len(waits) * 0.99))]
    print(f"{args.tables} waiting tables ended {gone:.1f} s after the start (its first look over them)")
    print(
        f"/healthz meanwhile: {len(waits)} answers, median {statistics.median(waits) * 1000:.1f} ms, "
        f"p99 {p99 * 1000:.1f} ms, longest {waits[-1] * 1000:.1f} ms"
    )
    if slow:
        print("answers over 100 ms: " + ", ".join(f"{w * 1000:.0f} ms at {t:.1f} s" for t, w in slow))


if __name__ == "__main__":
    main()
