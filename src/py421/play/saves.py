"""Games in progress, one JSON file each in ``saves/`` of the data folder.

Each is rewritten after every step, atomically, so Ctrl-C or a closed
terminal never loses a game; a new game never replaces an unfinished one.
A save that cannot be resumed is refused by its file's name, and kept.

A game is played by one process at a time: the process playing it holds a lock
on ``<save>.lock`` beside it (``flock``, which the system lets go of when the
process ends, however it ends), with its pid and host written inside to name
it. A second ``--resume`` of the same game is refused naming that process; a
lock file left by a process that died holds nothing and is taken over.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import socket
import time
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..core.errors import InvalidRecord, Message, Py421Error
from ..core.syntax import Unparsable, load
from ..paths import data_dir, system_reason
from .session import Session

SAVES_NAME = "saves"
MODES = ("play", "table")  # the terminal game and the scorekeeper of a real table


def saves_dir() -> Path:
    path = data_dir() / SAVES_NAME
    path.mkdir(exist_ok=True)
    return path


def new_save_id() -> str:
    """A name for a new game's save: its start time, unique enough for one person."""
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S-%f")


def write_save(save_id: str, data: Mapping[str, Any]) -> Path:
    """Write a game in progress atomically: a crash leaves the old save or the new."""
    path = saves_dir() / f"{save_id}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, path)
    return path


def latest_save(mode: str) -> tuple[str, dict[str, Any]] | None:
    """The most recent unfinished game of ``mode`` ("play" or "table"), if any."""
    for save_id, data in saved_games(mode):
        if isinstance(data, InvalidRecord):  # the newest is not passed over in silence
            raise data
        return save_id, data
    return None


def saved_games(mode: str) -> Iterator[tuple[str, dict[str, Any] | InvalidRecord]]:
    """The unfinished games of ``mode``, the last begun first: each save's name and its data, or why
    it cannot be resumed (a save that cannot be read is of no known mode: every mode lists it)."""
    for path in sorted(saves_dir().glob("*.json"), reverse=True):
        try:
            data = _read_save(path)
        except FileNotFoundError:  # finished meanwhile, by the process playing it
            continue
        except InvalidRecord as exc:
            yield path.stem, exc
            continue
        saved = data.get("mode", "play")
        if saved not in MODES:  # a save of no known mode would be passed over in silence
            yield path.stem, _unusable(path, Message("save.mode", {"got": repr(saved)}))
        elif saved == mode:
            yield path.stem, data


def begun(save_id: str) -> datetime | None:
    """When a game was begun, from its save's name (:func:`new_save_id`); None for a name of another
    form (a file renamed by hand)."""
    try:
        return datetime.strptime(save_id, "%Y%m%d-%H%M%S-%f").replace(tzinfo=UTC)
    except ValueError:
        return None


def _read_save(path: Path) -> dict[str, Any]:
    """A save's data; one that cannot be read, or holds no object, is refused by its file's name
    (a file that is gone raises FileNotFoundError)."""
    try:
        data = load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError, Unparsable) as exc:
        reason = exc.reason if isinstance(exc, Unparsable) else system_reason(exc)
        raise _unusable(path, Message("save.unreadable", {"reason": reason})) from None
    if not isinstance(data, dict):  # the newest save is not skipped in silence
        kind = "list" if isinstance(data, list) else "string" if isinstance(data, str) else "value"
        raise _unusable(path, Message(f"save.json.{kind}"))
    return data


def resume(save_id: str, data: Mapping[str, Any]) -> Session:
    """The session a save holds; a save that does not make one is refused by its file's name."""
    try:
        return Session.from_save(data)
    except Py421Error as exc:
        why = exc.message if exc.message is not None else str(exc)
        raise _unusable(saves_dir() / f"{save_id}.json", why) from None


def record_file(save_id: str, data: Mapping[str, Any]) -> Path | None:
    """The file the game's record was asked for when it started (``--record``), if any."""
    path = data.get("record_file")
    if path is None:
        return None
    if not isinstance(path, str) or not path:
        raise _unusable(saves_dir() / f"{save_id}.json", Message("save.record_file", {"got": repr(path)}))
    return Path(path)


def _unusable(path: Path, why: str | Message) -> InvalidRecord:
    return InvalidRecord(
        Message(
            "save.unusable",
            {"path": path, "why": why, "folder": path.parent},
        )
    )


def clear_save(save_id: str) -> None:
    (saves_dir() / f"{save_id}.json").unlink(missing_ok=True)


class SaveInUse(Py421Error):
    """The saved game is being played by another process, named."""


class SaveLock:
    """This process's hold on a saved game (:func:`lock_save`), until :meth:`release` or its end."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self.fd: int | None = fd

    def release(self) -> None:
        """Let go of the game: the lock file is removed, then closed (a process waiting for it finds
        it gone, and makes its own)."""
        if self.fd is None:
            return
        with contextlib.suppress(OSError):
            self.path.unlink()
        os.close(self.fd)
        self.fd = None

    def __enter__(self) -> SaveLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _holder() -> dict[str, Any]:
    return {"pid": os.getpid(), "host": socket.gethostname()}


def lock_save(save_id: str) -> SaveLock:
    """Hold the saved game ``save_id`` for this process, or refuse it (:class:`SaveInUse`) naming the
    process that plays it. The lock file is kept open while the game is played."""
    path = saves_dir() / f"{save_id}.lock"
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            held = _try_lock(fd)
            if held is None:  # no locks here (a network disk without them): the pid inside tells
                held = not _alive(_read_holder(fd))
            if not held:
                holder = _read_holder(fd, wait=True)
                raise _in_use(saves_dir() / f"{save_id}.json", holder)
            # Held: unless the file was removed (its holder let go) between the open and the lock.
            if os.fstat(fd).st_ino != _inode(path):
                os.close(fd)
                continue
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, json.dumps(_holder()).encode())
            return SaveLock(path, fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.close(fd)
            raise


def _try_lock(fd: int) -> bool | None:
    """Lock ``fd`` without waiting: whether it is ours now; None where the system has no locks."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:  # ENOLCK, EOPNOTSUPP: a file system without locks
        return None
    return True


def _inode(path: Path) -> int | None:
    try:
        return path.stat().st_ino
    except FileNotFoundError:
        return None


def _read_holder(fd: int, wait: bool = False) -> dict[str, Any]:
    """Who holds the lock, as it wrote itself in the file; ``wait``: a little, if it has not yet
    (it writes right after it locks)."""
    deadline = time.monotonic() + (0.5 if wait else 0)
    while True:
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            found = json.loads(os.read(fd, 4096).decode("utf-8"))
        except (OSError, ValueError):
            found = None
        if isinstance(found, dict) or time.monotonic() >= deadline:
            return found if isinstance(found, dict) else {}
        time.sleep(0.02)


def _alive(holder: Mapping[str, Any]) -> bool:
    """Whether the process that wrote ``holder`` still runs (one on another host is taken to)."""
    pid, host = holder.get("pid"), holder.get("host")
    if not isinstance(pid, int) or pid <= 0:
        return False
    if host != socket.gethostname():
        return True  # cannot be seen from here
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _in_use(path: Path, holder: Mapping[str, Any]) -> SaveInUse:
    pid, host = holder.get("pid"), holder.get("host")
    how = Message("resume.how")
    if not isinstance(pid, int):
        return SaveInUse(
            Message(
                "save.in_use_unknown",
                {"path": path, "how": how},
            )
        )
    if isinstance(host, str) and host != socket.gethostname():
        return SaveInUse(
            Message(
                "save.in_use_elsewhere",
                {"path": path, "pid": pid, "host": host, "how": how},
            )
        )
    return SaveInUse(
        Message(
            "save.in_use",
            {"path": path, "pid": pid, "how": how},
        )
    )


def claim_saved(mode: str, number: int = 1) -> tuple[str, dict[str, Any], SaveLock] | None:
    """The ``number``-th most recently begun unfinished game of ``mode`` (as :func:`saved_games`
    lists them, 1 the last begun), held by this process (:func:`lock_save`: one being played
    elsewhere is refused); None when there are fewer. One that cannot be resumed is refused."""
    while True:
        found = next(itertools.islice(saved_games(mode), number - 1, None), None)
        if found is None:
            return None
        save_id, read = found
        if isinstance(read, InvalidRecord):
            raise read
        lock = lock_save(save_id)
        try:  # read again under the lock: the other process may have written or finished it meanwhile
            data = _read_save(saves_dir() / f"{save_id}.json")
        except FileNotFoundError:
            lock.release()
            if number > 1:  # the games after it are numbered one less now: none is taken in its place
                return None
            continue
        except BaseException:
            lock.release()
            raise
        return save_id, data, lock
