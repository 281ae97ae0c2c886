"""A flood: one WebSocket sends pings as fast as it can for --seconds, reading what comes back.

The pings are the protocol's JSON message, or with --frames WebSocket PING frames, which uvicorn
answers below the application (the server closes a connection that sends more than 2 a second).

Prints how many messages the client got into its socket, the server's CPU time over the flood
and how long /healthz then takes. A connection refused for the rate is not read for a second
(``routes.RATE_PAUSE_SECONDS``): the flood waits in its own socket, and the server answers it at
the address's budget. (What the client reads back is not counted: the client library reads
nothing while a send of its own is blocked.)

Run: .venv/bin/python benchmarks/server_flood.py [--seconds 10] [--frames]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx2
from websockets.sync.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.server_process import free_port, start_server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--frames", action="store_true", help="WebSocket PING frames, not JSON pings")
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        server = start_server(Path(folder), port)
        try:
            base = f"http://127.0.0.1:{port}"
            body = {"rules": "classic-11", "seats": ["human", "bot:heuristic"], "name": "Ann"}
            code = httpx2.post(base + "/api/tables", json=body, timeout=30).json()["code"]
            with connect(f"ws://127.0.0.1:{port}/ws/{code}", open_timeout=10) as ws:
                ws.recv(timeout=10)  # the table
                sent = [0]

                def flood() -> None:
                    frames = bytes([0x89, 0x80, 1, 2, 3, 4]) * 1000  # masked, empty PING frames
                    try:
                        while True:
                            if args.frames:
                                ws.socket.sendall(frames)
                                sent[0] += 1000
                            else:
                                ws.send('{"type": "ping"}')
                                sent[0] += 1
                    except Exception:  # closed
                        return

                def cpu() -> float:
                    fields = Path(f"/proc/{server.pid}/stat").read_text().split()
                    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")

                before = cpu()
                threading.Thread(target=flood, daemon=True).start()
                time.sleep(args.seconds)
                used = cpu() - before
                asked = time.perf_counter()
                health = httpx2.get(base + "/healthz", timeout=30).status_code
                waited = time.perf_counter() - asked
                print(
                    f"{sent[0]} pings sent in {args.seconds:g} s; server CPU {used:.2f} s; "
                    f"/healthz {health} in {waited * 1000:.0f} ms"
                )
        finally:
            server.terminate()
            server.wait(15)


if __name__ == "__main__":
    main()
