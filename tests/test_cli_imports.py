"""Each command imports what it uses and no more: the help and the rules start without numpy, the
engine or the server, which other commands need."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("numpy", "numba", "fastapi", "sqlalchemy", "textual", "py421.core.engine", "py421.server")
RUN = """
import json, sys
from py421.cli import main
try:
    main(json.loads(sys.argv[1]), standalone_mode=False)
except SystemExit:
    pass
print(json.dumps([m for m in json.loads(sys.argv[2]) if m in sys.modules]))
"""


@pytest.mark.parametrize(
    ("args", "absent"),
    [
        (["--help"], HEAVY),
        (["--lang", "fr", "--help"], HEAVY),
        (["rules", "show", "classic-11"], HEAVY),
        (["rules", "list"], HEAVY),
        (["compare", "421", "654", "--rules", "vache-41"], HEAVY),
        (["odds", "421", "--throws", "3"], ("numba", "fastapi", "sqlalchemy", "textual", "py421.server")),
        (["advise", "642", "--throws-left", "2", "--target", "653"], ("numba", "fastapi", "py421.server")),
    ],
)
def test_a_command_imports_only_what_it_uses(args: list[str], absent: tuple[str, ...]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", RUN, json.dumps(args), json.dumps(absent)],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert json.loads(done.stdout.splitlines()[-1]) == [], done.stdout


def test_the_list_of_commands_names_every_command_without_importing_one() -> None:
    from py421.cli import WHERE, main

    listed = subprocess.run(
        [sys.executable, "-m", "py421", "--help"], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    for name in WHERE:
        assert f"\n  {name} " in listed, name
        assert main.commands[name].name == name  # and each one is there when asked for


def test_a_command_that_cannot_be_made_is_an_error_not_a_missing_command(monkeypatch) -> None:
    """A word missing from the catalog while a command's module is imported surfaces as what it is;
    click, which reads a KeyError as "no such command", would say the command does not exist."""
    import py421.cli as cli

    def missing(command: object) -> None:
        raise KeyError("cli.help.nothing")

    commands = cli.Commands(dict(cli.WHERE))
    monkeypatch.setattr(cli, "arrived", missing)
    with pytest.raises(RuntimeError, match="'rules' could not be made"):
        commands.get("rules")
    assert "rules" not in commands.loaded  # made again at the next ask
    assert commands.get("no-such-command") is None


def test_every_name_the_core_offers_is_there_when_used():
    """``from py421.core import *`` and each name the core lists: every one found in its module,
    though none is imported before it is used (the list and where each name lives are kept apart)."""
    code = "from py421.core import *; import py421.core as c; print(sorted(c.__all__) == sorted(c._WHERE))"
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "True"
