"""421 simulate stopped early: Ctrl-C says the totals of the games finished so far, SIGTERM too, and
neither leaves a worker process behind nor the resource tracker's "leaked semaphore objects" warning.

The command runs in a process of its own with its error stream on a pseudo-terminal, where its
progress bar shows; it is stopped once the bar counts a finished batch.
"""

from __future__ import annotations

import contextlib
import functools
import os
import pty
import re
import signal
import subprocess
import sys
import time

import pytest

from .helpers import read_until

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal is POSIX only")

GAMES = 1_000_000_000  # never played to the end (minutes of any machine): stopped after the first batch
STARTED = re.compile(rb" ([1-9][0-9,]*)/" + str(GAMES).encode())


def stopped_simulation(home, sig: int, workers: int, *, group: bool = False, lang: str = "en"):
    """``421 simulate`` stopped by ``sig`` (to the whole process group, as a terminal's Ctrl-C, when
    ``group``) once it has finished a batch: its exit status, standard output and terminal."""
    pytest.importorskip("numba")
    main, child = pty.openpty()
    env = {**os.environ, "PY421_HOME": str(home), "LANG": "C.UTF-8", "COLUMNS": "120"}
    command = ["simulate", "--games", str(GAMES), "--workers", str(workers), "--lang", lang]
    proc = subprocess.Popen(
        [sys.executable, "-m", "py421", *command],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=child,
        env=env,
        start_new_session=True,  # its own group: signalled (and cleaned up) as one
    )
    os.close(child)
    try:
        # The first run on a machine compiles the simulator: minutes.
        shown = read_until(main, STARTED.search, 600)
        if group:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        # Every process that holds the output ends: the worker processes inherited it.
        out, _ = proc.communicate(timeout=60)
        shown += read_until(main, lambda seen: False, 60)  # until the resource tracker is gone too
    finally:
        if proc.poll() is None:
            proc.kill()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # what was left behind, if the test failed
        proc.wait()
        os.close(main)
    return proc.returncode, out.decode("utf-8"), shown.decode("utf-8", "replace")


def finished(out: str) -> int:
    found = re.search(rf"of the ([\d,]+) games finished out of {GAMES:,}", out)
    assert found, out
    return int(found.group(1).replace(",", ""))


@pytest.mark.usefixtures("ctrl_c_as_at_a_terminal")
def test_ctrl_c_says_the_totals_of_the_games_finished(private_home):
    status, out, shown = stopped_simulation(private_home, signal.SIGINT, workers=1)
    assert status == 130, out + shown
    assert out.startswith("stopped by Ctrl-C: partial totals, of the "), out
    games = finished(out)
    assert games > 0 and games % 10_080 == 0  # whole batches
    assert f"classic-11: {games:,} games, seed 0" in out
    assert "seat 0  bot:heuristic  lost" in out
    assert "Traceback" not in shown and "Aborted" not in shown


@pytest.mark.usefixtures("ctrl_c_as_at_a_terminal")
def test_ctrl_c_at_a_terminal_ends_the_workers_and_says_the_partial_totals(private_home):
    """A terminal's Ctrl-C reaches every process of the command: the workers leave it to the first."""
    status, out, shown = stopped_simulation(private_home, signal.SIGINT, workers=2, group=True, lang="fr")
    assert status == 130, out + shown
    assert out.startswith("arrêté par Ctrl-C : totaux partiels, des "), out
    spaced = out.replace("\u202f", " ").replace("\xa0", " ")
    assert f"parties terminées sur {GAMES:,}".replace(",", " ") in spaced
    assert "Traceback" not in shown and "KeyboardInterrupt" not in shown
    assert "leaked semaphore" not in shown


def test_sigterm_ends_the_workers_cleanly_and_says_the_partial_totals(private_home):
    status, out, shown = stopped_simulation(private_home, signal.SIGTERM, workers=2)
    assert status == 128 + signal.SIGTERM, out + shown
    assert out.startswith("stopped by SIGTERM: partial totals, of the "), out
    assert finished(out) > 0
    assert "leaked semaphore" not in shown, shown[-2000:]
    assert "resource_tracker" not in shown and "Traceback" not in shown, shown[-3000:]


def _half_a_result(written: str) -> None:
    """In a worker: the start of a result message on the pool's result pipe, and never the rest,
    as a worker killed in the middle of sending its batch leaves it; then ``written`` is made."""
    import multiprocessing
    import pathlib
    import struct

    results = multiprocessing.current_process()._args[1]  # type: ignore[attr-defined]  # the pool's queue
    os.write(results._writer.fileno(), struct.pack("!i", 1_000_000) + b"\x80")
    pathlib.Path(written).touch()
    time.sleep(600)


def test_stopping_the_workers_never_waits_on_a_result_cut_in_half(tmp_path):
    """A Ctrl-C under load once hung simulate for good: a worker killed while it sent its batch left
    half a message in the pipe, which the pool's own thread then waited on forever."""
    import threading

    from py421.sim.simulate import new_pool

    pool = new_pool(1)
    written = tmp_path / "written"
    pool.submit(_half_a_result, str(written))
    for _ in range(1200):  # until the worker has started and written its half message
        if written.exists():
            break
        time.sleep(0.1)
    assert written.exists()
    stopping = threading.Thread(target=pool.terminate, daemon=True)
    stopping.start()
    stopping.join(120)  # a hang, not a speed: the stop takes a moment on any machine
    assert not stopping.is_alive(), "the pool's thread waits on half a message"


def test_batches_given_up_before_the_workers_end_raise_nothing_in_the_pools_thread():
    """Ctrl-C gives up the batches not yet started, then ends the workers: the pool's own thread,
    seeing them end, must not fail on those batches (it printed a traceback under a terminal's
    Ctrl-C about one time in fifty)."""
    import threading

    from py421.sim.simulate import new_pool

    failed: list[BaseException | None] = []
    before = threading.excepthook
    threading.excepthook = lambda args: failed.append(args.exc_value)
    pool = new_pool(1)
    try:
        futures = [pool.submit(time.sleep, 60) for _ in range(4)]
        # the first two are sent to the worker's queue (they count as running), the others wait
        for _ in range(1200):
            if futures[1].running():
                break
            time.sleep(0.1)
        given_up = [f for f in futures if f.cancel()]
    finally:
        pool.terminate()
        threading.excepthook = before
    assert given_up == futures[2:]
    assert failed == []
    assert all(f.done() for f in futures)


def _wait_for(path: str) -> None:
    """In a worker: a batch that ends once ``path`` exists."""
    import pathlib

    while not pathlib.Path(path).exists():
        time.sleep(0.05)


def test_a_batch_finished_while_the_workers_are_ended_raises_nothing_in_the_pools_thread(tmp_path):
    """SIGTERM under load once printed a traceback (a KeyError in the pool's own thread): a batch
    finished just as the workers were being ended, and the pool's thread went on to start a batch
    given up, which the ending had already let go of."""
    import threading
    from concurrent.futures import wait

    from py421.sim.simulate import new_pool

    release = tmp_path / "release"
    failed: list[BaseException | None] = []
    before = threading.excepthook
    threading.excepthook = lambda args: failed.append(args.exc_value)
    pool = new_pool(1)
    try:
        futures = [pool.submit(_wait_for, str(release)) for _ in range(4)]
        for _ in range(1200):  # the first two are sent to the worker's queue, the others wait
            if futures[1].running():
                break
            time.sleep(0.1)
        assert [f.cancel() for f in futures] == [False, False, True, True]

        def finish_then_kill(kill=None):
            # the batches end between letting go of those given up and killing the worker
            release.touch()
            wait(futures[:2], timeout=120)  # a hang guard: the pool's thread has taken its next step
            kill()

        for process in pool._processes.values():
            process.kill = functools.partial(finish_then_kill, kill=process.kill)  # type: ignore[method-assign]
        pool.terminate()
    finally:
        threading.excepthook = before
    assert failed == []
    assert all(f.done() for f in futures)
