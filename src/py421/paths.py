"""The folder py421 keeps its files in: saved games, the history, solved rulesets.

Free of database libraries on purpose, so the solvers can cache their results
without importing one. A folder or file py421 cannot use is refused before
anything is played, in one line that says what to do.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from .core.errors import Message, Py421Error


class UnusablePath(Py421Error):
    """A folder or file py421 must write in cannot be used: which, why, and what to do."""


class ReadOnlyPath(UnusablePath):
    """A folder or file py421 must write in that it may only read: permission denied, or a read-only
    file system. What only reads (``421 history``, ``stats``, ``analyse``) goes on without it."""


# The system's answers that say a path may be read but not written.
READ_ONLY_ERRORS = frozenset({errno.EACCES, errno.EPERM, errno.EROFS})


_written: set[Path] = set()  # folders already shown to take a new file, in this process


def data_dir(*, write: bool = True) -> Path:
    """The folder py421 keeps its files in (``PY421_HOME`` overrides it), made when needed.

    A ``PY421_HOME`` folder is made, but not its parent: a mistyped path is refused, not made.
    ``write=False``: for reading only (a history listed, a solved game read back): a folder that
    does not exist is not made (nothing is there to read) and one that cannot be written is fine.
    """
    override = os.environ.get("PY421_HOME")
    if override:
        path = Path(override).expanduser()
    else:
        import platformdirs  # here: a command that keeps nothing does not pay for its import

        path = platformdirs.user_data_path("py421")
    named = (
        Message("path.named.home", {"path": path}) if override else Message("path.named.data", {"path": path})
    )
    elsewhere = Message("path.elsewhere")
    if not path.is_dir():
        if path.exists():
            raise UnusablePath(
                Message(
                    "path.is_a_file",
                    {"named": named, "elsewhere": elsewhere},
                )
            )
        parent = path.parent
        if override and parent.exists() and not parent.is_dir():
            raise UnusablePath(
                Message(
                    "path.parent_is_a_file",
                    {"named": named, "parent": parent, "elsewhere": elsewhere},
                )
            )
        if override and not parent.is_dir():
            raise UnusablePath(
                Message(
                    "path.parent_missing",
                    {"named": named, "parent": parent, "elsewhere": elsewhere},
                )
            )
        if not write:
            return path  # nothing to read there yet: not made for that
        try:
            path.mkdir(parents=not override, exist_ok=True)
        except OSError as exc:
            reason = system_reason(exc)
            raise UnusablePath(
                Message(
                    "path.cannot_make",
                    {"named": named, "reason": reason, "elsewhere": elsewhere},
                )
            ) from None
    if write:
        _check_writable(path, Message("path.data_folder", {"path": path}))
    return path


def kept_folder(name: str) -> Path | None:
    """The folder ``name`` of the data folder, made, to keep what is worth keeping but not needed
    (a solved game, solved again if it is not there); None when the data folder is read-only.
    Any other problem with the data folder is refused as :func:`data_dir` refuses it."""
    try:
        folder = data_dir() / name
        folder.mkdir(exist_ok=True)
    except ReadOnlyPath:
        return None
    except OSError as exc:
        if exc.errno in READ_ONLY_ERRORS:
            return None
        raise
    return folder


def check_writable_file(path: Path, what: str | Message) -> None:
    """Refuse, before any work, a file that exists and cannot be written in place (the history at
    the end of a game): ``what`` names it ("the history")."""
    try:
        with open(path, "r+b"):  # opened for writing, nothing written: what the system allows
            pass
    except FileNotFoundError:
        return  # made when it is written, in a folder already checked
    except OSError as exc:
        where = Message("path.new_file", {"what": what, "path": path})
        raise _unwritable(where, exc, _WRITABLE) from None


def check_new_file(path: Path, what: str | Message) -> None:
    """Refuse, before any work, a file that could not be written at the end (``what``: "the record")."""
    where = Message("path.new_file", {"what": what, "path": path})
    if path.is_dir():
        raise UnusablePath(Message("path.is_a_folder", {"where": where}))
    folder = path.parent
    if folder.exists() and not folder.is_dir():
        raise UnusablePath(
            Message(
                "path.folder_is_a_file",
                {"where": where, "folder": folder},
            )
        )
    if not folder.is_dir():
        raise UnusablePath(
            Message(
                "path.folder_missing",
                {"where": where, "folder": folder},
            )
        )
    if path.exists():  # overwritten in place: the folder need not take a new file
        if not os.access(path, os.W_OK):
            raise UnusablePath(Message("path.read_only", {"where": where}))
        return
    _check_writable(folder, where, Message("path.advice.folder"))


def make_out_folder(folder: Path, what: str | Message) -> None:
    """Make the folder ``what`` (e.g. "the report") is written to, and check it takes files, before any
    work: a read-only disk found after minutes of games would lose them.

    The folder is made, not the one it goes in: a mistyped path is refused, as for PY421_HOME."""
    where = Message("path.out_folder", {"what": what, "folder": folder})
    advice = Message("path.advice.out")
    if not folder.is_dir() and not folder.parent.exists():
        raise UnusablePath(Message("path.out_parent_missing", {"where": where, "parent": folder.parent}))
    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise _unwritable(where, exc, advice) from None
    _check_writable(folder, where, advice)


def _check_writable(folder: Path, where: Message, advice: Message | None = None) -> None:
    # Permissions alone do not tell: root ignores them, and a read-only mount or an
    # immutable folder refuses everyone. Making (and removing) a file does tell.
    if folder in _written:
        return
    if advice is None:
        advice = _WRITABLE
    try:
        if not os.access(folder, os.W_OK | os.X_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        import tempfile  # here: tempfile brings shutil, random and the archive libraries

        with tempfile.TemporaryFile(dir=folder, prefix=".py421-"):
            pass
    except OSError as exc:
        raise _unwritable(where, exc, advice) from None
    _written.add(folder)


_WRITABLE = Message("path.advice.writable")


# The system's refusals a user meets with files, each as a message every language words.
_REASONS = {
    errno.ENOENT: "os.missing",
    errno.EISDIR: "os.folder",
    errno.ENOTDIR: "os.not_folder",
    errno.EACCES: "os.denied",
    errno.EPERM: "os.denied",
    errno.EROFS: "os.read_only",
    errno.ENOSPC: "os.full",
    errno.EADDRNOTAVAIL: "os.no_address",
}


def system_reason(exc: OSError | UnicodeDecodeError) -> Message:
    """Why a file could not be read or written (or an address listened on), in words each language
    has (the system's own words, untranslated, for a rarer refusal)."""
    if isinstance(exc, UnicodeDecodeError):
        return Message("os.not_utf8")
    known = _REASONS.get(exc.errno or 0)
    if known is not None:
        return Message(known)
    said = exc.strerror or str(exc)
    return Message("os.other", {"said": said})


def _unwritable(where: Message, exc: OSError, advice: Message) -> UnusablePath:
    reason = system_reason(exc)
    kind = ReadOnlyPath if exc.errno in READ_ONLY_ERRORS else UnusablePath
    return kind(
        Message(
            "path.unwritable",
            {"where": where, "reason": reason, "advice": advice},
        )
    )
