"""A saved game is played by one process at a time: a second --resume is refused, naming the first.

Two terminals resuming one save played on as two games, both kept in the history
and counted twice in the stats. The process playing a game holds a lock on it
(released by the system when the process ends, even by kill -9).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from py421.cli import main
from py421.history import History
from py421.play import saves

from .helpers import cli_process

PLAY = ("play", "--players", "Alice,bot:random", "--seed", "7")
PROMPT = "? help: "


def run_cli(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input)


def saved_game(home: Path, *args: str) -> str:
    """Start a game, leave it at its first question; its save's name."""
    assert run_cli(*(args or PLAY), input="").exit_code == 1
    (path,) = (home / "saves").glob("*.json")
    return path.stem


def at_question(proc: subprocess.Popen[str]) -> str:
    """Read ``proc``'s output until it asks its first question (its input stays open)."""
    assert proc.stdout is not None
    seen = ""
    while not seen.endswith(PROMPT):
        char = proc.stdout.read(1)
        assert char, f"no question asked:\n{seen}"
        seen += char
    return seen


def finished_games() -> int:
    return len(History(read_only=True).games())


def test_a_game_resumed_in_two_processes_is_refused_in_the_second(private_home):
    saved_game(private_home)
    first = cli_process(private_home, "play", "--resume")
    try:
        at_question(first)
        second = cli_process(private_home, "play", "--resume")
        out, err = second.communicate("\n" * 2000, timeout=120)
        assert second.returncode == 2, out + err
        assert f"is being played by another 421 (process {first.pid}): finish or quit it there" in err
        assert "or start a new game without --resume" in err
        assert "game over" not in out
        french = cli_process(private_home, "--lang", "fr", "play", "--resume")
        _, err = french.communicate("", timeout=120)
        assert f"est en cours dans un autre 421 (processus {first.pid})" in err
        # the first one plays on and ends the game: one game in the history
        out, _ = first.communicate("\n" * 2000, timeout=120)
        assert first.returncode == 0, out
        assert "game over" in out
    finally:
        first.kill()
        first.wait()
    assert finished_games() == 1
    assert list((private_home / "saves").iterdir()) == []  # the save and its lock, gone
    assert run_cli("play", "--resume").exit_code == 1  # nothing left to resume


def test_a_lock_left_by_a_killed_process_is_taken_over(private_home):
    saved_game(private_home)
    killed = cli_process(private_home, "play", "--resume")
    try:
        at_question(killed)
    finally:
        killed.send_signal(signal.SIGKILL)
        killed.wait()
    (lock,) = (private_home / "saves").glob("*.lock")
    assert json.loads(lock.read_text(encoding="utf-8"))["pid"] == killed.pid  # left behind, naming it
    resumed = run_cli("play", "--resume", input="\n" * 2000)
    assert resumed.exit_code == 0, resumed.output
    assert "game over" in resumed.output
    assert finished_games() == 1


def test_a_held_save_is_refused_then_resumed_once_let_go(private_home):
    """The lock held here, the command in a process of its own: refused naming this process."""
    save_id = saved_game(private_home, "table", "--players", "Ann,Bob")
    held = saves.lock_save(save_id)
    try:
        proc = cli_process(private_home, "table", "--resume")
        _, err = proc.communicate("", timeout=120)
        assert proc.returncode == 2, err
        assert f"(process {os.getpid()})" in err
        assert f"saves/{save_id}.json" in err
    finally:
        held.release()
    resumed = run_cli("table", "--resume", input="")
    assert resumed.output.startswith("resuming the saved game"), resumed.output


def test_a_new_game_is_held_from_its_start(private_home):
    """A game just begun is held too: a --resume elsewhere meanwhile would play it twice."""
    first = cli_process(private_home, *PLAY)
    try:
        at_question(first)
        second = cli_process(private_home, "play", "--resume")
        _, err = second.communicate("", timeout=120)
        assert f"(process {first.pid})" in err
    finally:
        first.kill()
        first.wait()


def test_where_the_system_has_no_locks_the_pid_inside_tells(private_home, monkeypatch):
    monkeypatch.setattr(saves, "_try_lock", lambda fd: None)
    folder = private_home / "saves"
    folder.mkdir()
    here = socket.gethostname()
    (folder / "a.lock").write_text(json.dumps({"pid": os.getppid(), "host": here}), encoding="utf-8")
    with pytest.raises(saves.SaveInUse, match=f"process {os.getppid()}"):
        saves.lock_save("a")
    (folder / "b.lock").write_text(json.dumps({"pid": os.getppid(), "host": "far"}), encoding="utf-8")
    with pytest.raises(saves.SaveInUse, match=f"process {os.getppid()} on far"):
        saves.lock_save("b")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True)
    (folder / "c.lock").write_text(json.dumps({"pid": int(dead.stdout), "host": here}), encoding="utf-8")
    with saves.lock_save("c") as taken:  # its process is gone: taken over
        assert json.loads((folder / "c.lock").read_text(encoding="utf-8"))["pid"] == os.getpid()
        assert taken.path == folder / "c.lock"
    assert not (folder / "c.lock").exists()
