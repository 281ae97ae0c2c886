"""What py421 needs on disk is checked before a game starts, and a problem is one line that says what to do.

The data folder (``PY421_HOME``), the history file in it, the saved games and the
``--record`` file: a game must never be played to its end and then lost to a crash.
"""

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from py421.cli import main

BOTS = ("--players", "bot:random,bot:random", "--seed", "1")


def run_cli(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input)


def one_line_error(result) -> str:
    """The error a refused command printed: exit status 2, and nothing else than one line."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines: list[str] = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("Error: ")
    return lines[0]


def writable(folder: Path) -> bool:
    try:
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


@pytest.fixture
def read_only_folder(tmp_path):
    """A folder nobody may write in: read-only, and immutable where root would write anyway."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    immutable = False
    if writable(folder):  # root ignores the mode
        chattr = shutil.which("chattr")
        done = chattr and subprocess.run([chattr, "+i", str(folder)], capture_output=True).returncode == 0
        if not done or writable(folder):
            if done:
                subprocess.run([str(chattr), "-i", str(folder)], check=True)
            folder.chmod(0o755)
            pytest.skip("running as root: a read-only folder is still writable, and chattr +i is unavailable")
        immutable = True
    yield folder
    if immutable:
        subprocess.run(["chattr", "-i", str(folder)], check=True)
    folder.chmod(0o755)


@pytest.mark.parametrize("command", [("history",), ("stats",), ("play", *BOTS)])
def test_a_data_folder_that_is_a_file_is_refused_in_one_line(tmp_path, monkeypatch, command):
    home = tmp_path / "not-a-folder"
    home.write_text("mine", encoding="utf-8")
    monkeypatch.setenv("PY421_HOME", str(home))
    error = one_line_error(run_cli(*command))
    assert f"PY421_HOME is {home}, which is a file, not a folder" in error
    assert "set PY421_HOME to another folder, or move the file away" in error
    assert home.read_text(encoding="utf-8") == "mine"


@pytest.mark.parametrize("command", [("history",), ("stats",), ("play", *BOTS)])
def test_a_data_folder_whose_parent_is_missing_is_refused_not_made(tmp_path, monkeypatch, command):
    home = tmp_path / "no-such-folder" / "py421"
    monkeypatch.setenv("PY421_HOME", str(home))
    error = one_line_error(run_cli(*command))
    assert f"the folder {home.parent} does not exist" in error
    assert f"mkdir -p {home.parent}" in error
    assert not home.parent.exists()


def test_a_data_folder_under_a_file_is_refused(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("", encoding="utf-8")
    monkeypatch.setenv("PY421_HOME", str(tmp_path / "file" / "py421"))
    error = one_line_error(run_cli("stats"))
    assert f"{tmp_path / 'file'} is a file, not a folder: set PY421_HOME to another folder" in error
    assert "mkdir" not in error


@pytest.mark.parametrize("command", [("history",), ("stats",), ("play", *BOTS)])
def test_a_read_only_data_folder_is_refused_before_play(read_only_folder, monkeypatch, command):
    monkeypatch.setenv("PY421_HOME", str(read_only_folder))
    error = one_line_error(run_cli(*command))
    assert f"cannot write in the data folder {read_only_folder}" in error
    assert "make it writable, or set PY421_HOME to a folder you can write in" in error


def test_a_missing_data_folder_with_a_parent_is_made(tmp_path, monkeypatch):
    monkeypatch.setenv("PY421_HOME", str(tmp_path / "py421"))
    assert run_cli("stats").exit_code == 0
    assert (tmp_path / "py421").is_dir()


def break_history(home: Path) -> Path:
    path = home / "history.sqlite3"
    path.write_text("not a database", encoding="utf-8")
    return path


def test_a_history_that_is_not_a_database_stops_play_before_it_starts(private_home):
    path = break_history(private_home)
    error = one_line_error(run_cli("play", *BOTS))
    assert f"{path}" in error
    assert "move it aside" in error
    assert path.read_text(encoding="utf-8") == "not a database"  # kept as it was
    for command in (("history",), ("stats",)):
        assert f"{path}" in one_line_error(run_cli(*command))


def test_a_history_that_is_not_a_database_stops_a_resume_and_keeps_the_save(private_home):
    assert run_cli("play", "--players", "Alice,bot:random", "--seed", "7", input="").exit_code == 1
    path = break_history(private_home)
    assert "move it aside" in one_line_error(run_cli("play", "--resume", input="\n" * 2000))
    path.unlink()
    resumed = run_cli("play", "--resume", input="\n" * 2000)
    assert resumed.exit_code == 0, resumed.output
    assert "game over" in resumed.output


def test_a_history_that_is_not_a_database_stops_a_table_before_it_starts(private_home):
    break_history(private_home)
    result = run_cli("table", "--players", "A,B", input="421\n")
    assert "move it aside" in one_line_error(result)


@pytest.mark.parametrize("command", [("play", *BOTS), ("table", "--players", "A,B")], ids=["play", "table"])
def test_a_record_in_a_missing_folder_is_refused_before_play(tmp_path, command):
    path = tmp_path / "missing" / "game.json"
    error = one_line_error(run_cli(*command, "--record", str(path), input="421\n653\n"))
    assert f"cannot write the record to {path}: the folder {path.parent} does not exist" in error
    assert "create it or choose another file" in error


def test_a_record_in_a_read_only_folder_is_refused_before_play(read_only_folder):
    path = read_only_folder / "game.json"
    error = one_line_error(run_cli("play", *BOTS, "--record", str(path)))
    assert f"cannot write the record to {path}" in error


def saved_game(home: Path) -> Path:
    """Start a game, leave it at its first question, and return its save file."""
    assert run_cli("play", "--players", "Alice,bot:random", "--seed", "7", input="").exit_code == 1
    (path,) = (home / "saves").glob("*.json")
    return path


def test_a_save_without_seats_is_refused_naming_the_file(private_home):
    path = saved_game(private_home)
    data = json.loads(path.read_text(encoding="utf-8"))
    del data["seats"]
    path.write_text(json.dumps(data), encoding="utf-8")
    error = one_line_error(run_cli("play", "--resume"))
    assert f"the saved game {path} cannot be resumed: it has no 'seats'" in error
    assert f"move it out of {path.parent}" in error
    assert path.exists()  # kept: it may be mended by hand


@pytest.mark.parametrize("text", ["[]", '"a game"', "{not json", "\udcff"])
def test_a_save_that_is_not_a_saved_game_is_refused_naming_the_file(private_home, text):
    folder = private_home / "saves"
    folder.mkdir()
    path = folder / "20990101-000000-000000.json"
    path.write_text(text, encoding="utf-8", errors="surrogateescape")
    error = one_line_error(run_cli("play", "--resume"))
    assert f"the saved game {path} cannot be resumed" in error
    assert path.exists()


def test_a_save_whose_seats_do_not_match_its_record_is_refused(private_home):
    path = saved_game(private_home)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["seats"] = data["seats"][:1]
    path.write_text(json.dumps(data), encoding="utf-8")
    assert f"the saved game {path} cannot be resumed" in one_line_error(run_cli("play", "--resume"))
