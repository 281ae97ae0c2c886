"""``421 analyse``: every decision of a game, valued by the solved game."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..core.record import Record
from ..core.rules import Ruleset, rules_name
from ..i18n import tr
from .common import SAY_OPTION, Command, argument_hint, named_in, read_record, stages, status

if TYPE_CHECKING:
    from ..solver.strategy import Method


@click.command(cls=Command)
@click.argument("record")
@click.option("--bots", is_flag=True)
@click.option("--json", "as_json", is_flag=True)
@click.option("--online", is_flag=True)
@SAY_OPTION
def analyse(record: str, bots: bool, as_json: bool, online: bool, lang: str) -> None:
    show_analysis(named_in(_read(record, lang, online), lang), lang, bots=bots, as_json=as_json)


def show_analysis(game: Record, lang: str, *, bots: bool = False, as_json: bool = False) -> None:
    """Print a game's analysis, solving first and saying how far: ``421 analyse``, ``history --analyse``."""
    from ..analysis import analyse as analysed
    from ..analysis import analysis_text

    players = len(game.players)
    game.replay_game()  # a record that does not replay is said so before any solve, not after
    method = _solve(game.rules, players, lang)
    if method == "rounds":  # each round is solved as the game reaches it
        with status(tr(lang, "cli.solving.rounds")):
            result = analysed(game, bots=bots)
    else:
        result = analysed(game, bots=bots)
    if as_json:
        click.echo(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
        return
    click.echo(analysis_text(result, lang, rules_name(game.rules)))
    if not bots and len(result.summaries) < players:  # a bot sat at the table
        click.echo(tr(lang, "cli.analyse.bots_hint"))


def _read(text: str, lang: str, online: bool = False) -> Record:
    """A record file, or else the number of a game of the history (``online``: of the server's)."""
    path = Path(text)
    if path.is_file() and not online:
        return read_record(path, argument_hint("record"))
    if text.strip().isdigit():
        from ..history import History

        return History(read_only=True, online=online).record(int(text))
    # an empty name would be read as the current folder: it names no folder
    why = "cli.analyse.folder" if text.strip() and path.is_dir() else "cli.analyse.no_record"
    raise click.BadParameter(tr(lang, why, name=repr(text)), param_hint=argument_hint("record"))


def _solve(rules: Ruleset, players: int, lang: str) -> Method:
    """Solve the game before its analysis, saying how far it is, where it is not on the disk yet."""
    from ..play.coach import prepare

    with stages() as say:
        return prepare(rules, players, lang, say, lambda text: tr(lang, "cli.once", what=text))
