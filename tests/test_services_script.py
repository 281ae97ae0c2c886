"""scripts/services.sh: the PostgreSQL server the tests use says it runs, and stops on request."""

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).parents[1]
SCRIPT = ROOT / "scripts" / "services.sh"
pytestmark = pytest.mark.skipif(
    not list(Path("/usr/lib/postgresql").glob("*/bin/pg_isready")), reason="PostgreSQL is not installed"
)


def services(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(SCRIPT), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, **env},
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_status_names_the_address_and_the_command_that_stops_it():
    url = os.environ.get("PY421_TEST_POSTGRES")
    if not url:
        pytest.skip("PY421_TEST_POSTGRES is not set: scripts/services.sh has not run")
    port = urlsplit(url).port
    proc = services("status", PY421_PG_PORT=str(port))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    line = f"services.sh: PostgreSQL for the tests is running on 127.0.0.1:{port}; stop it with: "
    assert proc.stderr.startswith(line)
    assert proc.stderr.endswith("bash scripts/services.sh stop\n")
    assert proc.stderr.count("\n") == 1


def test_status_of_a_server_that_does_not_run():
    port = free_port()
    proc = services("status", PY421_PG_PORT=str(port), PY421_PG_DIR="/tmp/py421-pg-none")
    assert proc.returncode == 0
    assert proc.stderr == f"services.sh: PostgreSQL for the tests is not running on 127.0.0.1:{port}\n"
    assert not Path("/tmp/py421-pg-none").exists()  # asking starts nothing


def test_an_unknown_mode_is_refused():
    proc = services("restart")
    assert proc.returncode == 1
    assert "unknown mode 'restart'; accepted: start (the default), status, stop" in proc.stderr
    assert proc.stdout == ""


def test_the_check_says_at_its_end_that_postgresql_still_runs():
    check = (ROOT / "scripts" / "check").read_text(encoding="utf-8")
    traps = [line for line in check.splitlines() if line.startswith("trap ")]
    assert "bash scripts/services.sh status" in traps[-1]


@pytest.mark.slow
def test_stop_stops_the_server_it_started():
    if os.geteuid() != 0 and not shutil.which("sudo"):
        pytest.skip("starting a private server needs root or sudo")
    port = str(free_port())
    folder = tempfile.mkdtemp(prefix="py421-pg-test-", dir="/tmp")  # the postgres user must reach it
    env = {"PY421_PG_PORT": port, "PY421_PG_DIR": folder}
    try:
        started = services(**env)
        assert started.returncode == 0, started.stderr
        assert f"127.0.0.1:{port}" in started.stdout
        assert "is running" in services("status", **env).stderr
        stopped = services("stop", **env)
        assert stopped.returncode == 0, stopped.stderr
        assert f"services.sh: stopped PostgreSQL on 127.0.0.1:{port}" in stopped.stderr
        assert "is not running" in services("status", **env).stderr
        again = services("stop", **env)
        assert again.returncode == 0
        assert "nothing to stop" in again.stderr
    finally:
        services("stop", **env)
        shutil.rmtree(folder, ignore_errors=True)
