"""The folder py421 keeps its files in: saved games, the history, solved rulesets.

Free of database libraries on purpose, so the solvers can cache their results
without importing one. A folder or file py421 cannot use is refused before
anything is played, in one line that says what to do.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

import platformdirs

from .core.errors import Py421Error


class UnusablePath(Py421Error):
    """A folder or file py421 must write in cannot be used: which, why, and what to do."""


_written: set[Path] = set()  # folders already shown to take a new file, in this process


def data_dir() -> Path:
    """The folder py421 keeps its files in (``PY421_HOME`` overrides it), made when needed.

    A ``PY421_HOME`` folder is made, but not its parent: a mistyped path is refused, not made.
    """
    override = os.environ.get("PY421_HOME")
    path = Path(override).expanduser() if override else platformdirs.user_data_path("py421")
    named = f"PY421_HOME is {path}" if override else f"the data folder is {path}"
    elsewhere = "set PY421_HOME to another folder"
    if not path.is_dir():
        if path.exists():
            raise UnusablePath(f"{named}, which is a file, not a folder: {elsewhere}, or move the file away")
        parent = path.parent
        if override and parent.exists() and not parent.is_dir():
            raise UnusablePath(f"{named}, but {parent} is a file, not a folder: {elsewhere}")
        if override and not parent.is_dir():
            missing = f"the folder {parent} does not exist"
            raise UnusablePath(f"{named}, but {missing}: create it (mkdir -p {parent}), or {elsewhere}")
        try:
            path.mkdir(parents=not override, exist_ok=True)
        except OSError as exc:
            raise UnusablePath(f"{named}, which cannot be made ({exc.strerror}): {elsewhere}") from None
    _check_writable(path, f"cannot write in the data folder {path}")
    return path


def check_new_file(path: Path, what: str) -> None:
    """Refuse, before any work, a file that could not be written at the end (``what``: "the record")."""
    where = f"cannot write {what} to {path}"
    if path.is_dir():
        raise UnusablePath(f"{where}: it is a folder; name a file")
    folder = path.parent
    if folder.exists() and not folder.is_dir():
        raise UnusablePath(f"{where}: {folder} is a file, not a folder; choose another file")
    if not folder.is_dir():
        raise UnusablePath(f"{where}: the folder {folder} does not exist; create it or choose another file")
    if path.exists():  # overwritten in place: the folder need not take a new file
        if not os.access(path, os.W_OK):
            raise UnusablePath(f"{where}: the file is read-only; choose another file")
        return
    _check_writable(folder, where, "choose a file in a folder you can write in")


def _check_writable(
    folder: Path, where: str, advice: str = "make it writable, or set PY421_HOME to a folder you can write in"
) -> None:
    # Permissions alone do not tell: root ignores them, and a read-only mount or an
    # immutable folder refuses everyone. Making (and removing) a file does tell.
    if folder in _written:
        return
    try:
        if not os.access(folder, os.W_OK | os.X_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        with tempfile.TemporaryFile(dir=folder, prefix=".py421-"):
            pass
    except OSError as exc:
        raise UnusablePath(f"{where}: {exc.strerror or exc}; {advice}") from None
    _written.add(folder)
