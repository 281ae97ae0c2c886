"""Lookups of long finished games: twenty connections ask for them again and again.

Plays --games games of 20,000 steps (the server's --max-steps) on a ``421 serve`` of its own, their
bots playing on after their person left, until each is ended. Then, for --seconds, twenty threads
ask for those games' pages (``GET /api/tables/CODE``) as fast as the answers come, while /healthz
is timed every half second. Each lookup of a game not in memory replays it in one of the server's
two readers; the steps replayed are the asking address's (``--replay-steps-per-second``).

Run: .venv/bin/python benchmarks/server_replays.py [--games 4] [--seconds 10]
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.server_process import free_port, start_server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        server = start_server(Path(folder), port, "--bot-delay", "0", "--max-tables-per-minute", "100")
        base = f"http://127.0.0.1:{port}"
        try:
            began = time.perf_counter()
            codes = []
            for _ in range(args.games):
                body = {
                    "rules": "classic-11",
                    "settings": ["manches=99", "pot=99"],
                    "seats": ["human", "bot:random", "bot:random"],
                    "name": "Ann",
                    "timeout": 10,
                }
                made = httpx2.post(base + "/api/tables", json=body, timeout=30).json()
                assert "code" in made, made
                started = httpx2.post(
                    f"{base}/api/tables/{made['code']}/start",
                    headers={"Authorization": f"Bearer {made['token']}"},
                    timeout=30,
                )
                assert started.status_code == 200, started.text
                codes.append(made["code"])
            while True:  # the person is away: bots play on until the table's last step
                shown = [httpx2.get(f"{base}/api/tables/{c}", timeout=60).json() for c in codes]
                if all(t["status"] in ("over", "abandoned") for t in shown):
                    break
                time.sleep(2)
            steps = [t["version"] for t in shown]
            print(
                f"{args.games} games of {min(steps):,} to {max(steps):,} steps, played in "
                f"{time.perf_counter() - began:.0f} s"
            )
            answers: collections.Counter[int] = collections.Counter()
            stop = time.monotonic() + args.seconds

            def ask(code: str) -> None:
                with httpx2.Client(timeout=60) as client:
                    while time.monotonic() < stop:
                        answers[client.get(f"{base}/api/tables/{code}").status_code] += 1

            threads = [threading.Thread(target=ask, args=(codes[i % len(codes)],)) for i in range(20)]
            for t in threads:
                t.start()
            health = []
            while time.monotonic() < stop:
                asked = time.perf_counter()
                httpx2.get(base + "/healthz", timeout=60)
                health.append((time.perf_counter() - asked) * 1000)
                time.sleep(0.5)
            for t in threads:
                t.join()
            print(
                f"lookups answered: {dict(answers)}; /healthz median {statistics.median(health):.0f} ms, "
                f"worst {max(health):.0f} ms over {len(health)} asks"
            )
        finally:
            server.terminate()
            server.wait(15)


if __name__ == "__main__":
    main()
