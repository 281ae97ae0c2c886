"""What each optional part of py421 needs, and a clear refusal when it is not installed.

The base install plays, keeps score, shows the rules and solves; the rest is
in extras (``pyproject.toml``): ``sim`` (numba: ``421 simulate``; scipy: the largest solves), ``report``
(matplotlib), ``server`` (FastAPI, uvicorn: ``421 serve``),
``postgres``, ``dask``, ``rl``, ``openspiel``, and ``all``.
"""

from __future__ import annotations

import importlib.util
import shlex
import sys

from .core.errors import Message, Py421Error

# What each extra brings that py421 imports.
EXTRAS: dict[str, tuple[str, ...]] = {
    "sim": ("numba", "openskill", "scipy"),
    "report": ("matplotlib", "numba", "openskill", "scipy"),
    "server": ("fastapi", "uvicorn"),
    "postgres": ("psycopg",),
    "dask": ("distributed",),
    "rl": ("gymnasium", "pettingzoo"),
    "openspiel": ("pyspiel",),
}


def install_command(extra: str) -> str:
    """How to add ``extra`` to this very installation: its own interpreter's pip, since a bare
    ``pip`` may belong to another Python, or be refused by the system's."""
    return f"{shlex.quote(sys.executable)} -m pip install '.[{extra}]'"


class MissingExtra(Py421Error):
    """An optional part of py421 that is not installed: says which extra brings it."""


def require(extra: str, what: str) -> None:
    """Refuse ``what`` (a command, a feature) when the modules of ``extra`` are not installed."""
    missing = [m for m in EXTRAS[extra] if importlib.util.find_spec(m) is None]
    if missing:
        names = ", ".join(missing)
        raise MissingExtra(
            Message(
                "extra.missing",
                {"what": what, "extra": extra, "missing": names, "install": install_command(extra)},
            )
        )
