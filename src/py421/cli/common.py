"""What the commands share: the --rules option, one-line errors, progress, reading records."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ..core.errors import Py421Error
from ..core.record import Record
from ..core.rules import Ruleset, preset_names
from ..i18n import LANGS


def resolve_rules(spec: str, settings: tuple[str, ...] = ()) -> Ruleset:
    """A preset name or a ruleset file, changed by ``OPTION=VALUE`` settings."""
    if spec in preset_names():
        base = Ruleset.preset(spec)
    else:
        path = Path(spec)
        if not path.is_file():
            raise click.BadParameter(
                f"{spec!r} is neither a preset nor a ruleset file; presets: {', '.join(preset_names())}",
                param_hint="--rules",
            )
        try:
            base = Ruleset.from_text(path.read_text(encoding="utf-8"), filename=spec)
        except (OSError, UnicodeDecodeError) as exc:
            raise click.BadParameter(f"cannot read {spec}: {exc}", param_hint="--rules") from None
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
            click.echo(f"Error: {exc}", err=True)
            ctx.exit(2)


LANG_OPTION = click.option(
    "--lang",
    type=click.Choice(LANGS),
    default=None,
    help="Language of the game (default: French where the system locale is French).",
)


class progress_bar:
    """A progress bar on the terminal's error stream (nothing when it is not a terminal)."""

    def __init__(self, total: int, label: str) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

        console = Console(stderr=True)
        self.progress = Progress(
            f"  {label}", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), console=console,
            disable=not console.is_terminal, transient=True,
        )  # fmt: skip
        self.task = self.progress.add_task(label, total=total)

    def __enter__(self) -> Callable[[int], None]:
        self.progress.start()
        return lambda done: self.progress.advance(self.task, done)

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()


def read_record(path: Path) -> Record:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise click.BadParameter(f"cannot read {path}: {exc}") from None
    return Record.from_json(text)
