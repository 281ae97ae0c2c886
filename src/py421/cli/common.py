"""What the commands share: the --rules option, one-line errors, progress, reading records."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click

from ..core.errors import InvalidPlayers, Py421Error
from ..core.record import Record
from ..core.rules import Ruleset, preset_names
from ..i18n import LANGS, detect_lang, error_text, tr
from ..play.session import Seat


def resolve_rules(spec: str, settings: tuple[str, ...] = (), param_hint: str = "'--rules'") -> Ruleset:
    """A preset name or a ruleset file, changed by ``OPTION=VALUE`` settings.

    ``param_hint`` names what the user typed the name in (an option or an argument).
    """
    if spec in preset_names():
        base = Ruleset.preset(spec)
    else:
        path = Path(spec)
        if not path.is_file():
            raise click.BadParameter(
                f"{spec!r} is neither a preset nor a ruleset file; presets: {', '.join(preset_names())}",
                param_hint=param_hint,
            )
        try:
            base = Ruleset.from_text(path.read_text(encoding="utf-8"), filename=spec)
        except (OSError, UnicodeDecodeError) as exc:
            raise click.BadParameter(f"cannot read {spec}: {exc}", param_hint=param_hint) from None
    return base.with_settings(settings)


SET_OPTION = click.option(
    "--set", "settings", multiple=True, metavar="OPTION=VALUE", help="Change an option."
)


def with_rules(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add --rules and --set to a command, which receives the resolved ``rules``."""

    @click.option("--rules", "preset", default="classic-11", show_default=True, help="Preset or file.")
    @SET_OPTION
    @functools.wraps(command)
    def wrapper(*args: Any, preset: str, settings: tuple[str, ...], **kwargs: Any) -> Any:
        return command(*args, rules=resolve_rules(preset, settings), **kwargs)

    return wrapper


class Errors(click.Group):
    """Show py421's own errors as one clear line and exit with status 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except Py421Error as exc:
            lang = ctx.meta.get(LANG_KEY) or detect_lang()
            click.echo(tr(lang, "cli.error", message=error_text(lang, exc)), err=True)
            ctx.exit(2)
        except click.ClickException as exc:
            if isinstance(exc, click.UsageError):
                raise  # click's usage lines, in click's English
            # A refusal a command worded itself (in its language): only the prefix is click's.
            lang = ctx.meta.get(LANG_KEY) or detect_lang()
            click.echo(tr(lang, "cli.error", message=exc.format_message()), err=True)
            ctx.exit(exc.exit_code)


# Where a command leaves the language it speaks, so that its errors are worded in it too.
LANG_KEY = "py421.lang"


def _chosen_lang(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    ctx.meta[LANG_KEY] = value or detect_lang()
    return value


def _spoken_lang(ctx: click.Context, param: click.Parameter, value: str | None) -> str:
    ctx.meta[LANG_KEY] = value or detect_lang()
    return str(ctx.meta[LANG_KEY])


# play and table: None unless given, since a resumed game keeps the language it was saved with.
LANG_OPTION = click.option(
    "--lang",
    type=click.Choice(LANGS),
    default=None,
    callback=_chosen_lang,
    help="Language of the game (default: French where the system locale is French).",
)

# Every other command: the language it prints in, resolved from the locale when not given.
SAY_OPTION = click.option(
    "--lang",
    type=click.Choice(LANGS),
    default=None,
    callback=_spoken_lang,
    help="Language of the output (default: French where the system locale is French).",
)


class progress_bar:
    """A progress bar on the terminal's error stream (nothing when it is not a terminal).

    ``bar.advance(1)`` moves it on; ``bar.advance(1, "step two")`` also changes its label.
    """

    def __init__(self, total: int, label: str) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        console = Console(stderr=True)
        self.shown = console.is_terminal
        self.progress = Progress(
            TextColumn("  {task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
            console=console, disable=not self.shown, transient=True,
        )  # fmt: skip
        self.task = self.progress.add_task(label, total=total)

    def __enter__(self) -> progress_bar:
        self.progress.start()
        return self

    def advance(self, done: int, label: str | None = None) -> None:
        self.progress.update(self.task, advance=done, description=label)

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()


@contextlib.contextmanager
def status(text: str) -> Iterator[None]:
    """A line with a spinner on the terminal's error stream while a step runs (nothing otherwise)."""
    from rich.console import Console

    console = Console(stderr=True)
    if not console.is_terminal:
        yield
        return
    with console.status(f"  {text}"):
        yield


def solving(rules: Ruleset, stage: str, step: int, lang: str = "en") -> str:
    """How far the two-player solver is: the décharge's passes, then the charge pot by pot."""
    if stage == "charge":
        return tr(lang, "cli.solving.charge", step=step, pot=rules.pot)
    return tr(lang, "cli.solving.decharge", step=step)


def prepare_optimal(rules: Ruleset, players: int, lang: str = "en") -> None:
    """Solve what bot:optimal plays before the game starts, saying how far it is on the error stream.

    A two-player ruleset is solved once per machine and kept (from about a second for
    classic-11 to about 40 s for vache-41 on two cores); rounds of more players take seconds.
    """
    from ..players.optimal import prepare, whole_game
    from ..solver.solutions import solve_cached

    def say(stage: str, step: int) -> None:
        text = tr(lang, "cli.once", what=f"bot:optimal: {solving(rules, stage, step, lang)}")
        click.echo(f"\r  {text:<66}", nl=False, err=True)

    if whole_game(rules, players):
        _, cached = solve_cached(rules, say)
        if not cached:
            click.echo("\r" + " " * 70 + "\r", nl=False, err=True)
        prepare(rules, players)  # read back from the disk
        return
    with status(tr(lang, "cli.solving.rounds")):
        prepare(rules, players)


def read_record(path: Path, param_hint: str = "'RECORD_FILE'") -> Record:
    """The record in a file; a file that cannot be read is blamed on the argument that named it."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise click.BadParameter(f"cannot read {path}: {exc}", param_hint=param_hint) from None
    return Record.from_json(text)


def people_seats(players: str) -> list[Seat]:
    """The scorekeeper's seats from ``"Alice,Bob"``: people only, since nobody throws a bot's dice."""
    seats = []
    for raw in players.split(","):
        name = raw.strip()
        if name.lower().startswith("bot:"):
            raise InvalidPlayers(
                f"{name!r}: the scorekeeper seats the people at a real table, who throw their own dice; "
                "to play against bots, use 421 play --players"
            )
        seats.append(Seat(name))
    return seats
