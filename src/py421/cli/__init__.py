"""The ``421`` command: thin wrappers around the core, the play loop and the solvers.

One module per group of commands; each builds on what it formats from the
module that holds the data (rules, simulation summaries, solved rounds).
"""

from __future__ import annotations

import click

from .analysis import analyse
from .common import SAY_OPTION, Errors
from .games import history, play, replay, stats, table_command
from .online import serve, site, verify
from .rules import compare, rules
from .simulation import report, simulate
from .strategy import advise, duel, odds, solve


@click.group(cls=Errors, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="py421", prog_name="421")
@SAY_OPTION
def main(lang: str) -> None:
    """The ``421`` command; its help, and every command's, is the catalog's ``cli.help.*``."""


for command in (
    rules, compare, odds, advise, duel, solve, simulate, report,
    serve, site, verify, play, table_command, history, stats, replay, analyse,
):  # fmt: skip
    main.add_command(command)
