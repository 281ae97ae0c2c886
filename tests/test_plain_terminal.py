"""Line mode in a real terminal: keys typed while the bots play answer no question."""

import os
import pty
import select
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal is POSIX only")

PROMPT = "? help: "


def read_for(fd: int, seconds: float, until: str | None = None) -> str:
    """Whatever the terminal shows during ``seconds``, or until it has shown ``until``."""
    seen = b""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0 and (
        until is None or until not in seen.decode("utf-8", "replace")
    ):
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            break
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        seen += chunk
    return seen.decode("utf-8", "replace")


def test_keys_typed_before_a_question_do_not_answer_it(private_home):
    main, child = pty.openpty()
    env = {**os.environ, "PY421_HOME": str(private_home), "LANG": "C.UTF-8", "TERM": "dumb"}
    command = [sys.executable, "-m", "py421", "play", "--plain", "--players", "Alice,bot:heuristic"]
    proc = subprocess.Popen(
        [*command, "--seed", "7", "--bot-delay", "0.3"], stdin=child, stdout=child, stderr=child, env=env
    )
    os.close(child)
    try:
        os.write(main, b"\n\n\n")  # three quick Enters while the game starts and the dice roll
        seen = ""
        deadline = time.monotonic() + 90
        while True:  # until a question has been asked and the game waits for a key
            assert time.monotonic() < deadline and proc.poll() is None, seen
            shown = read_for(main, 3)
            seen += shown
            if PROMPT in seen and not shown:
                break
        assert seen.count(PROMPT) == 1, seen
        os.write(main, b"\n")  # a key typed at the question answers it
        assert "Alice ends on" in read_for(main, 60, until="Alice ends on")
    finally:
        proc.kill()
        proc.wait()
        os.close(main)
