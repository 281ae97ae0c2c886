"""The folder py421 keeps its files in: saved games, the history, solved rulesets.

Dependency-free on purpose, so the solvers can cache their results without
importing any database library.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def data_dir() -> Path:
    """The folder py421 keeps its files in (``PY421_HOME`` overrides it), created when needed."""
    override = os.environ.get("PY421_HOME")
    path = Path(override) if override else platformdirs.user_data_path("py421")
    path.mkdir(parents=True, exist_ok=True)
    return path
