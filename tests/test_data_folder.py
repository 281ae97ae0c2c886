"""What py421 needs on disk is checked before a game starts, and a problem is one line that says what to do.

The data folder (``PY421_HOME``), the history file in it, the saved games and the
``--record`` file: a game must never be played to its end and then lost to a crash.
"""

import json
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from py421.cli import main
from py421.history import HISTORY_NAME, History

BOTS = ("--players", "bot:random,bot:random", "--seed", "1")


def run_cli(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input)


def one_line_error(result) -> str:
    """The error a refused command printed: exit status 2, and nothing else than one line."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines: list[str] = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith(("Error: ", "Erreur : "))
    return lines[0]


def writable(folder: Path) -> bool:
    try:
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def make_read_only(folder: Path) -> Callable[[], None]:
    """Make ``folder``, its folders and files read-only (555, 444), and immutable where root would
    write anyway; returns what undoes it. Skips the test where nothing keeps root from writing."""
    paths = [*sorted(folder.rglob("*"), key=lambda p: len(p.parts), reverse=True), folder]
    for path in paths:
        path.chmod(0o555 if path.is_dir() else 0o444)
    immutable: list[Path] = []

    def undo() -> None:
        for path in reversed(immutable):
            subprocess.run(["chattr", "-i", str(path)], check=True)
        for path in reversed(paths):
            path.chmod(0o755 if path.is_dir() else 0o644)

    if writable(folder):  # root ignores the mode
        chattr = shutil.which("chattr")
        for path in paths:  # the files first: an immutable folder's files can still be changed
            if not chattr or subprocess.run([chattr, "+i", str(path)], capture_output=True).returncode:
                break
            immutable.append(path)
        if len(immutable) < len(paths) or writable(folder):
            undo()
            pytest.skip("running as root: a read-only folder is still writable, and chattr +i is unavailable")
    return undo


@pytest.fixture
def read_only_folder(tmp_path):
    """A folder nobody may write in: read-only, and immutable where root would write anyway."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    undo = make_read_only(folder)
    yield folder
    undo()


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


@pytest.mark.parametrize(
    ("command", "lang", "said"),
    [
        (("play", *BOTS), "en", "cannot write in the data folder {folder}: permission denied"),
        (("table", "--players", "A,B"), "en", "cannot write in the data folder {folder}: permission denied"),
        (
            ("play", *BOTS),
            "fr",
            "impossible d'écrire dans le dossier de données {folder} : permission refusée",
        ),
    ],
)
def test_a_read_only_data_folder_is_refused_before_play(read_only_folder, monkeypatch, command, lang, said):
    monkeypatch.setenv("PY421_HOME", str(read_only_folder))
    error = one_line_error(run_cli(*command, "--lang", lang, input="421\n"))
    assert said.format(folder=read_only_folder) in error
    if lang == "en":
        assert "make it writable, or set PY421_HOME to a folder you can write in" in error


@pytest.mark.parametrize("command", [("history",), ("stats",)])
def test_an_empty_read_only_data_folder_has_no_games_yet(read_only_folder, monkeypatch, command):
    monkeypatch.setenv("PY421_HOME", str(read_only_folder))
    result = run_cli(*command)
    assert result.exit_code == 0, result.output
    assert "no finished game yet" in result.output
    assert list(read_only_folder.iterdir()) == []  # nothing made


def test_a_read_only_history_is_read_without_writing(tmp_path, monkeypatch):
    """421 history, stats and analyse read a history in a read-only folder (555, its files 444, and
    immutable when run as root): reading needs no writing."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("PY421_HOME", str(home))
    played = run_cli("play", "--players", "Ana,bot:heuristic", "--seed", "5", input="\n" * 2000)
    assert played.exit_code == 0, played.output
    path = home / HISTORY_NAME
    before = (path.read_bytes(), path.stat().st_mtime_ns, sorted(p.name for p in home.iterdir()))
    undo = make_read_only(home)
    try:
        listed = run_cli("history")
        assert listed.exit_code == 0, listed.output
        assert listed.output.startswith("#1 "), listed.output
        assert "Ana" in run_cli("stats").output
        replayed = run_cli("history", "1")
        assert replayed.exit_code == 0 and "game over" in replayed.output, replayed.output
        analysed = run_cli("analyse", "1")
        assert analysed.exit_code == 0, analysed.output
        assert "Ana" in analysed.output
        refused = one_line_error(run_cli("play", *BOTS))  # writing is needed there, and said
        assert f"{home}" in refused and ": permission denied; make it writable" in refused
    finally:
        undo()
    assert (path.read_bytes(), path.stat().st_mtime_ns, sorted(p.name for p in home.iterdir())) == before


def test_the_history_opened_for_reading_cannot_write(private_home):
    """Opened for reading, the history's file is opened read-only (mode=ro), as root too."""
    assert run_cli("play", "--players", "Ana,bot:heuristic", "--seed", "5", input="\n" * 2000).exit_code == 0
    reader = History(read_only=True)
    assert "mode=ro" in str(reader.engine.url)
    assert len(reader.games()) == 1
    with pytest.raises(OperationalError, match="readonly"), reader.engine.begin() as conn:
        conn.execute(text("DELETE FROM games"))
    assert len(History().games()) == 1


def test_a_read_only_history_file_is_refused_before_play(private_home):
    assert run_cli("play", "--players", "Ana,bot:heuristic", "--seed", "5", input="\n" * 2000).exit_code == 0
    path = private_home / HISTORY_NAME
    undo = make_read_only_file(path)
    try:
        error = one_line_error(run_cli("play", *BOTS))
        assert f"cannot write the history to {path}: permission denied" in error
        assert run_cli("history").exit_code == 0
    finally:
        undo()


def make_read_only_file(path: Path) -> Callable[[], None]:
    path.chmod(0o444)
    chattr = shutil.which("chattr")
    immutable = False
    try:
        with open(path, "r+b"):
            pass
    except OSError:
        pass
    else:  # root: the mode does not stop it
        immutable = bool(chattr) and subprocess.run([str(chattr), "+i", str(path)]).returncode == 0
        if not immutable:
            path.chmod(0o644)
            pytest.skip("running as root: a read-only file is still writable, and chattr +i is unavailable")

    def undo() -> None:
        if immutable:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        path.chmod(0o644)

    return undo


def test_a_missing_data_folder_with_a_parent_is_made(tmp_path, monkeypatch):
    monkeypatch.setenv("PY421_HOME", str(tmp_path / "py421"))
    assert run_cli("stats").exit_code == 0
    assert not (tmp_path / "py421").exists()  # reading makes nothing
    assert run_cli("play", *BOTS).exit_code == 0
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


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        ("mode", "foo", "its 'mode' must be \"play\" or \"table\", not 'foo'"),
        ("record_file", 3, "its 'record_file' must be the path of the record asked for, not 3"),
    ],
)
def test_a_save_of_an_unknown_mode_or_record_is_refused_not_passed_over(private_home, key, value, said):
    path = saved_game(private_home)
    data = json.loads(path.read_text(encoding="utf-8"))
    data[key] = value
    path.write_text(json.dumps(data), encoding="utf-8")
    error = one_line_error(run_cli("play", "--resume"))
    assert f"the saved game {path} cannot be resumed: {said}" in error
    assert path.exists()


def test_a_save_whose_seats_do_not_match_its_record_is_refused(private_home):
    path = saved_game(private_home)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["seats"] = data["seats"][:1]
    path.write_text(json.dumps(data), encoding="utf-8")
    assert f"the saved game {path} cannot be resumed" in one_line_error(run_cli("play", "--resume"))


def test_a_read_only_file_system_is_said_so_in_both_languages(tmp_path, monkeypatch):
    """EROFS (a read-only mount) cannot be made here: the check meets it from the system."""
    import errno
    import tempfile

    from py421 import paths
    from py421.i18n import error_text

    def refuse(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(tempfile, "TemporaryFile", refuse)
    monkeypatch.setenv("PY421_HOME", str(tmp_path))
    with pytest.raises(paths.ReadOnlyPath) as refused:
        paths.data_dir()
    assert str(refused.value).startswith(
        f"cannot write in the data folder {tmp_path}: read-only file system;"
    )
    assert error_text("fr", refused.value).startswith(
        f"impossible d'écrire dans le dossier de données {tmp_path} : système de fichiers en lecture seule ;"
    )
    assert paths.data_dir(write=False) == tmp_path  # reading goes on
    assert paths.kept_folder("solver") is None  # nothing kept there, nothing refused
