"""Games in progress, one JSON file each in ``saves/`` of the data folder.

Each is rewritten after every step, atomically, so Ctrl-C or a closed
terminal never loses a game; a new game never replaces an unfinished one.
A save that cannot be resumed is refused by its file's name, and kept.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..core.errors import InvalidRecord, Message, Py421Error
from ..core.syntax import Unparsable, load
from ..paths import data_dir, system_reason
from .session import Session

SAVES_NAME = "saves"


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
    for path in sorted(saves_dir().glob("*.json"), reverse=True):
        try:
            data = load(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, Unparsable) as exc:
            reason = exc.reason if isinstance(exc, Unparsable) else system_reason(exc)
            raise _unusable(
                path, Message("save.unreadable", f"it cannot be read ({reason})", {"reason": reason})
            ) from None
        if not isinstance(data, dict):  # the newest save is not skipped in silence
            kind = "list" if isinstance(data, list) else "string" if isinstance(data, str) else "value"
            raise _unusable(path, Message(f"save.json.{kind}", f"it holds a JSON {kind}, not a saved game"))
        if data.get("mode", "play") == mode:
            return path.stem, data
    return None


def resume(save_id: str, data: Mapping[str, Any]) -> Session:
    """The session a save holds; a save that does not make one is refused by its file's name."""
    try:
        return Session.from_save(data)
    except Py421Error as exc:
        why = exc.message if exc.message is not None else str(exc)
        raise _unusable(saves_dir() / f"{save_id}.json", why) from None


def _unusable(path: Path, why: str | Message) -> InvalidRecord:
    return InvalidRecord(
        Message(
            "save.unusable",
            f"the saved game {path} cannot be resumed: {why}; move it out of {path.parent} "
            "to resume the saved game before it (a new game, without --resume, does not read it)",
            {"path": path, "why": why, "folder": path.parent},
        )
    )


def clear_save(save_id: str) -> None:
    (saves_dir() / f"{save_id}.json").unlink(missing_ok=True)
