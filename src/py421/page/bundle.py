"""The files of the page that plays without a server: py421's own Python for its worker.

The page's worker loads Pyodide and then this bundle: the pure part of py421 (the
engine, the bots that need no solver, the play loop, the words), zipped as it is
installed. The server serves it; ``421 site`` writes it beside the page.
"""

from __future__ import annotations

import io
import zipfile
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

RUNTIME = Path(__file__).parent / "runtime"  # Pyodide's files, put in the wheel when it is built

# What the worker imports, and nothing that needs numpy or does I/O the browser has not.
PARTS = (
    "__init__.py",
    "core",
    "players",
    "play/__init__.py",
    "play/answers.py",
    "play/session.py",
    "i18n",
    "text.py",
    "sim/__init__.py",
    "sim/stats.py",
    "page",
)
LEFT_OUT = {"players/optimal.py", "page/bundle.py", "page/site.py"}
SUFFIXES = (".py", ".toml", ".json")


def _files(node: Traversable, path: str) -> list[tuple[str, Traversable]]:
    if node.is_file():
        return [(path, node)] if path.endswith(SUFFIXES) and path not in LEFT_OUT else []
    found = []
    for child in sorted(node.iterdir(), key=lambda c: c.name):
        if child.name != "__pycache__":
            found += _files(child, f"{path}/{child.name}")
    return found


def python_bundle() -> bytes:
    """py421's pure part as a zip, its paths starting ``py421/``; the same bytes each time."""
    root = resources.files("py421")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for part in PARTS:
            node = root
            for name in part.split("/"):
                node = node / name
            for path, file in _files(node, part):
                info = zipfile.ZipInfo(f"py421/{path}", date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, file.read_bytes())
    return out.getvalue()
