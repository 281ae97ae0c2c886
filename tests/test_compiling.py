"""The simulator's kernel compiled apart: a Ctrl-C stops the command, not the compiling, which the
next run finds done; and a run that finds the kernel cached compiles nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from py421.cli import main

pytest.importorskip("numba")
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="sessions and process groups are POSIX")

from py421.sim.fast import compiling  # noqa: E402 - needs numba

# A stand-in for the kernel's compiling: goes on until the test lets it finish (a file beside its
# result), then leaves its result behind; however fast the machine, it is not over before then.
COMPILING = """
import sys, time
from pathlib import Path
done = Path(sys.argv[1])
while not done.with_suffix(".go").exists():
    time.sleep(0.02)
done.write_text("compiled")
"""

# A command whose kernel is not compiled yet: waits for the compiling apart, saying so once.
COMMAND = """
import sys
from pathlib import Path
from py421.sim.fast.compiling import compile_apart
done = Path(sys.argv[1])
said = []
def waiting(seconds):
    if not said:
        said.append(1)
        print("waiting", flush=True)
compile_apart(
    waiting, cached=done.exists, shipped=lambda: False, command=[sys.executable, sys.argv[2], str(done)]
)
print("ready", flush=True)
"""


def until(condition, what: str, limit: float = 120.0) -> None:
    """Wait for ``condition()``; a limit far beyond what it takes on a loaded machine."""
    end = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < end, f"still not {what} after {limit:.0f} s"
        time.sleep(0.05)


@pytest.mark.usefixtures("ctrl_c_as_at_a_terminal")
def test_ctrl_c_stops_the_command_and_the_compiling_goes_on(tmp_path: Path):
    """Ctrl-C reaches the command's whole process group, as a terminal sends it: the command stops,
    the compiling (in a session of its own) finishes, and the next run waits for nothing."""
    done = tmp_path / "kernel"
    (tmp_path / "compile.py").write_text(COMPILING)
    (tmp_path / "command.py").write_text(textwrap.dedent(COMMAND))
    run = [sys.executable, str(tmp_path / "command.py"), str(done), str(tmp_path / "compile.py")]
    proc = subprocess.Popen(
        run, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "waiting\n"
        os.killpg(proc.pid, signal.SIGINT)  # the command's group, as the terminal's Ctrl-C
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode != 0 and "KeyboardInterrupt" in err
    assert not done.exists()  # stopped before the compiling was over
    done.with_suffix(".go").touch()  # the compiling apart may finish now
    until(done.exists, "compiled")
    again = subprocess.run(run, capture_output=True, text=True, timeout=60, check=True)
    assert again.stdout == "ready\n"  # found compiled: no waiting


def test_the_kernel_compiled_is_found_in_numbas_cache_and_an_empty_cache_lacks_it(tmp_path: Path):
    """What a run reads to choose: the suite's kernel is compiled (scripts/check does it first); a
    cache folder of its own, empty, has no kernel."""
    probe = "from py421.sim.fast.compiling import kernel_cached; print(kernel_cached())"
    here = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert here.stdout.strip() == "True"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    empty = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env)
    assert empty.stdout.strip() == "False"


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "stopped by Ctrl-C; the simulator goes on compiling apart, ready for the next run"),
        (
            "fr",
            "arrêté par Ctrl-C ; la compilation du simulateur continue à part, prête pour la prochaine fois",
        ),
    ],
)
def test_a_simulation_stopped_while_compiling_says_the_compiling_goes_on(monkeypatch, lang, said, tmp_path):
    def stopped(waiting=None, **_: object) -> None:
        if waiting:
            waiting(0.0)
        raise KeyboardInterrupt

    monkeypatch.setattr(compiling, "compile_apart", stopped)
    for command in (["simulate", "--games", "100"], ["report", "--out", str(tmp_path / "report")]):
        result = CliRunner().invoke(main, [*command, "--lang", lang])
        assert result.exit_code == 130, result.output
        assert said in result.output
        assert "Traceback" not in result.output


def test_a_second_compiling_waits_for_the_first_one(tmp_path: Path, monkeypatch):
    """Two runs that both find the kernel missing do not compile it twice: the second compiling
    process waits on the first one's lock, and then finds the kernel compiled."""
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))  # a lock of this test's own
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    with compiling._locked(compiling.lock_path()):  # the first compiling, under way
        second = subprocess.Popen(
            [sys.executable, "-m", "py421.sim.fast.compiling"], env=env, stderr=subprocess.PIPE, text=True
        )
        with pytest.raises(subprocess.TimeoutExpired):
            second.wait(timeout=5)  # it cannot end while the lock is held, however long it waits
    _, err = second.communicate(timeout=600)  # a hang, not a speed: a loaded machine is slow
    assert second.returncode == 0, err
