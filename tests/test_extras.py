"""A command whose extra is not installed says which one to install, in one line, and exits 2."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

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
    # this installation's own pip: a bare « pip » may be another Python's, or refused by the system
    install = f"{sys.executable} -m pip install '.[{extra}]' in the py421 folder"
    assert f"needs py421's '{extra}' extra ({missing} missing): {install}" in lines[0]
    french = CliRunner().invoke(main, ["--lang", "fr", *args]).output
    assert f"demande l'extra « {extra} » de py421 (il manque {missing}) : " in french, french


def test_the_base_install_declares_what_the_base_commands_import():
    """Every module the base commands import is a declared dependency (rich included)."""
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    base = {d.split(">")[0].split("[")[0].split("=")[0].strip() for d in project["project"]["dependencies"]}
    # Alembic: the history file is migrated by 421 play, history and stats.
    assert {"click", "platformdirs", "sqlalchemy", "alembic", "textual", "rich", "numpy"} <= base
    assert not base & {"numba", "matplotlib", "fastapi", "uvicorn"}


# A Python where the extras' packages are not installed: importing one fails as it would there.
BASE_INSTALL = """
import importlib.util
import sys
from importlib.abc import MetaPathFinder

EXTRAS = {extras!r}


class NotInstalled(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in EXTRAS:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


def find_spec(name, package=None, real=importlib.util.find_spec):
    return None if name.partition(".")[0] in EXTRAS else real(name, package)


sys.meta_path.insert(0, NotInstalled())
importlib.util.find_spec = find_spec
from py421.cli import main

main(sys.argv[1:], prog_name="421")
"""
EXTRA_PACKAGES = {
    *("fastapi", "starlette", "uvicorn", "orjson", "pydantic", "pydantic_core"),  # server
    *("numba", "llvmlite", "openskill", "scipy", "matplotlib", "psycopg", "dask", "distributed"),  # sim…
    *("gymnasium", "pettingzoo", "pyspiel"),  # rl, openspiel
    *("httpx", "httpx2", "playwright", "hypothesis"),  # the tests'
}


def base_install(tmp_path, *args: str) -> subprocess.CompletedProcess[str]:
    code = BASE_INSTALL.format(extras=sorted(EXTRA_PACKAGES))
    env = {**os.environ, "PY421_HOME": str(tmp_path / "home"), "PY421_LANG": "en"}
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300, env=env
    )


@pytest.mark.parametrize(
    "args",
    [
        ["rules", "show", "classic-11"],
        ["compare", "421", "654"],
        ["odds", "653"],
        ["advise", "642", "--throws-left", "2", "--target", "653"],
        ["play", "--players", "bot:random,bot:random", "--seed", "1"],
        ["history"],
        ["site", "--out", "SITE"],
        ["verify", "--help"],
    ],
    ids=lambda args: args[0],
)
def test_the_base_commands_run_without_any_extra(tmp_path, args):
    """What README says the Play command installs is enough for these commands (nothing but a
    traceback told a new user that `421 site` needed the server's packages)."""
    args = [str(tmp_path / "site") if a == "SITE" else a for a in args]
    done = base_install(tmp_path, *args)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    if args[0] == "site":
        assert (tmp_path / "site" / "index.html").is_file()


@pytest.mark.parametrize(
    ("args", "extra"),
    [
        (["serve"], "server"),
        (["simulate", "--games", "10"], "sim"),
        (["ladder", "--games", "10"], "sim"),
        (["report", "--out", "out"], "report"),
        # a sparse linear solve (scipy), named with the options that make it the game asked for
        (["solve", "--rules", "vache-41", "--set", "pot=40", "--players", "4"], "sim"),
    ],
)
def test_a_command_of_an_extra_not_installed_says_which_in_one_line(tmp_path, args, extra):
    done = base_install(tmp_path, *args)
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and f"needs py421's '{extra}' extra" in lines[0], done.stderr
    if args[0] == "solve":
        assert "421 solve --rules vache-41 --set pot=40 --players 4 needs" in lines[0]
