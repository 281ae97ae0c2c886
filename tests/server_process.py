"""A real server process on a free port, for the browser and restart tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for_port(port: int, proc: subprocess.Popen[bytes], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited: {proc.stderr.read().decode() if proc.stderr else ''}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port}")


def start_server(tmp: Path, port: int, *extra: str) -> subprocess.Popen[bytes]:
    command = [
        sys.executable,
        "-m",
        "py421",
        "serve",
        "--port",
        str(port),
        "--db",
        f"sqlite:///{tmp}/s.db",
        *extra,
    ]
    proc = subprocess.Popen(command, stderr=subprocess.PIPE, env=os.environ | {"PY421_HOME": str(tmp)})
    wait_for_port(port, proc)
    return proc
