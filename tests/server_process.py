"""A real server process on a free port, for the browser and restart tests; 421 site's folder on
a plain static file server (the browser tests and benchmarks/page_offline.py)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Generator
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for_port(port: int, proc: subprocess.Popen[bytes], log: Path, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited: {log.read_text()}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port}")


def start_server(
    tmp: Path, port: int, *extra: str, db: str | None = None, runner: tuple[str, ...] = ("-m", "py421")
) -> subprocess.Popen[bytes]:
    """``421 serve`` on ``port``, its database ``db`` or a SQLite file in ``tmp``; ``runner``, the
    arguments of Python that run the ``421`` command."""
    command = [
        sys.executable,
        *runner,
        "serve",
        "--port",
        str(port),
        "--db",
        db or f"sqlite:///{tmp}/s.db",
        *extra,
    ]
    # The server's messages go to a file: a pipe nobody reads would stop the server once full.
    log = tmp / "server.log"
    with log.open("ab") as err:
        proc = subprocess.Popen(command, stderr=err, env=os.environ | {"PY421_HOME": str(tmp)})
    wait_for_port(port, proc, log)
    return proc


def static_site(
    folder: Path, base: str = "/", served: list[subprocess.Popen[bytes]] | None = None
) -> Generator[str, None, None]:
    """421 site written for the folder ``base`` of a host's address, and served from ``folder`` by
    Python's plain static file server (no py421 behind it): yields the site's address, and stops the
    server when closed. ``served``: the server's process is put there (a test freezes it)."""
    site = folder / base.strip("/")
    site.parent.mkdir(parents=True, exist_ok=True)  # 421 site makes its own folder, not those above it
    subprocess.run(
        [sys.executable, "-m", "py421", "site", "--out", str(site), "--base", base],
        check=True,
        capture_output=True,
    )
    port = free_port()
    log = folder.parent / "http.log"
    with log.open("wb") as out:
        command = ["-m", "http.server", "--bind", "127.0.0.1", "--directory", str(folder), str(port)]
        proc = subprocess.Popen([sys.executable, *command], stdout=out, stderr=subprocess.STDOUT)
    if served is not None:
        served.append(proc)
    try:
        wait_for_port(port, proc, log)
        yield f"http://127.0.0.1:{port}{base.rstrip('/')}"
    finally:
        proc.terminate()
        proc.wait(10)
