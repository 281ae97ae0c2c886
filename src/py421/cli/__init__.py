"""The ``421`` command: thin wrappers around the core, the play loop and the solvers.

One module per group of commands; each builds on what it formats from the
module that holds the data (rules, simulation summaries, solved rounds). A
command's module is imported when the command is run, not before: a command
line pays for what it uses only (``421 rules show`` never imports numpy, nor
``421 odds`` the server), and ``421 --help`` lists them all from the catalog.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping
from pathlib import Path

import click

from ..core.errors import Message
from ..i18n import tr
from .common import SAY_OPTION, Errors
from .words import arrived

# Each command: the module that defines it, and its name there.
WHERE = {
    "rules": ("rulebook", "rules"),
    "compare": ("rulebook", "compare"),
    "odds": ("odds_and_solves", "odds"),
    "advise": ("odds_and_solves", "advise"),
    "duel": ("odds_and_solves", "duel"),
    "solve": ("odds_and_solves", "solve"),
    "simulate": ("simulation", "simulate"),
    "ladder": ("simulation", "ladder"),
    "report": ("simulation", "report"),
    "serve": ("online", "serve"),
    "site": ("online", "site"),
    "verify": ("online", "verify"),
    "play": ("games", "play"),
    "table": ("games", "table_command"),
    "history": ("games", "history"),
    "stats": ("games", "stats"),
    "replay": ("games", "replay"),
    "analyse": ("analyse", "analyse"),
}


class Commands(MutableMapping[str, click.Command]):
    """The commands of ``421`` by name, as click keeps a group's: a command's module is imported
    when the command is first asked for; their names are known without importing any."""

    def __init__(self, where: dict[str, tuple[str, str]]) -> None:
        self.where = where
        self.loaded: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        found = self.loaded.get(name)
        if found is None:
            module, attribute = self.where[name]  # KeyError: no such command, as a dict says
            try:
                found = getattr(importlib.import_module(f".{module}", __package__), attribute)
                assert isinstance(found, click.Command)
                arrived(found)  # in the language of the command line under way
            except KeyError as e:  # a word missing from the catalog, not a command missing
                raise RuntimeError(
                    str(Message("cli.command_unmade", {"name": repr(name), "error": repr(e)}))
                ) from e
            self.loaded[name] = found
        return found

    def __setitem__(self, name: str, command: click.Command) -> None:
        self.loaded[name] = command
        self.where.setdefault(name, ("", name))

    def __delitem__(self, name: str) -> None:
        self.loaded.pop(name, None)
        del self.where[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.where)

    def __len__(self) -> int:
        return len(self.where)


@click.group(
    cls=Errors, aliases={"analyze": "analyse"}, context_settings={"help_option_names": ["-h", "--help"]}
)
@click.version_option(package_name="py421", prog_name="421")
@SAY_OPTION
@click.option("--bot", "bots", multiple=True, metavar="NAME=FILE")
def main(lang: str, bots: tuple[str, ...]) -> None:
    """The ``421`` command; its help, and every command's, is the catalog's ``cli.help.*``."""
    for spec in bots:  # trained policies seated as bot:NAME by the command that follows
        from ..envs.policy_seat import register_policy

        name, sep, file = spec.partition("=")
        if not sep or not name.strip() or not file.strip():
            raise click.BadParameter(tr(lang, "cli.bot.spec", given=repr(spec)), param_hint="'--bot'")
        register_policy(name.strip().lower(), Path(file.strip()).expanduser())


main.commands = Commands(WHERE)
