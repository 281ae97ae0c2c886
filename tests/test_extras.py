"""A command whose extra is not installed says which one to install, in one line, and exits 2."""

from __future__ import annotations

import importlib.util

import pytest
from click.testing import CliRunner

from py421.cli import main


@pytest.mark.parametrize(
    ("args", "missing", "extra"),
    [
        (["simulate", "--games", "10"], "numba", "sim"),
        (["report", "--out", "/tmp/nowhere"], "matplotlib", "report"),
        (["serve"], "fastapi", "server"),
        (["serve", "--db", "postgresql://u@localhost/db"], "psycopg", "postgres"),
        (["simulate", "--scheduler", "tcp://nowhere:8786"], "distributed", "dask"),
    ],
)
def test_a_missing_extra_is_named_with_its_install_command(monkeypatch, args, missing, extra):
    real = importlib.util.find_spec

    def find_spec(name, *rest):
        return None if name == missing else real(name, *rest)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert f"needs py421's '{extra}' extra ({missing} missing): pip install '.[{extra}]'" in lines[0]


def test_the_base_install_declares_what_the_base_commands_import():
    """Every module the base commands import is a declared dependency (rich included)."""
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    base = {d.split(">")[0].split("[")[0].split("=")[0].strip() for d in project["project"]["dependencies"]}
    # Alembic: the history file is migrated by 421 play, history and stats.
    assert {"click", "platformdirs", "sqlalchemy", "alembic", "textual", "rich", "numpy"} <= base
    assert not base & {"numba", "matplotlib", "fastapi", "uvicorn"}
