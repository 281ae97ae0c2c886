"""Solved games that come with py421, so that nobody waits for a solve the presets need.

``scripts/ship_solutions.py`` solves the presets into ``shipped/`` (two players, and the whole game
of three where it settles) and lists them in ``shipped/index.json``; a test solves each one again
and compares. A file is named as the disk cache names it (the hash of the rules and the format), so
a change of the solver's format or of a preset's rules leaves the old file unused, never wrong.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal, TypedDict

SHIPPED = Path(__file__).parent / "shipped"

Kind = Literal["heads-up", "game-maxn"]


class Shipped(TypedDict):
    file: str
    kind: Kind
    preset: str
    players: int


def located(path: Path) -> Path:
    """Where the solved game kept as ``path`` is read: there if it is, else the copy that comes with
    py421 under the same name, else ``path`` (not there: solved, then kept there)."""
    if path.exists():
        return path
    shipped = SHIPPED / path.name
    return shipped if shipped.exists() else path


def shipped() -> list[Shipped]:
    """What comes with py421: each file, what it solves, and for how many players."""
    index = SHIPPED / "index.json"
    if not index.exists():
        return []
    found: list[Shipped] = json.loads(index.read_text(encoding="utf-8"))
    return found
