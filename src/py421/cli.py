"""The ``421`` command: thin wrappers around the core and the play loop."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from . import __version__
from .core.combos import compare as compare_results
from .core.dice import Result
from .core.errors import Py421Error
from .core.record import Record
from .core.rules import Ruleset, accepted, option_fields, preset_names
from .text import describe, outcome_text


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


class _Errors(click.Group):
    """Show py421's own errors as one clear line and exit with status 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except Py421Error as exc:
            click.echo(f"Error: {exc}", err=True)
            ctx.exit(2)


@click.group(cls=_Errors, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="421")
def main() -> None:
    """421, the French bar dice game: play, keep score, study the odds."""


# -- rules -----------------------------------------------------------------


@main.group(cls=_Errors)
def rules() -> None:
    """The presets and their rules."""


@rules.command("list")
def rules_list() -> None:
    """Every preset with a one-line description and its source."""
    for name in preset_names():
        r = Ruleset.preset(name)
        click.echo(f"{name:<13} {r.description}")
        click.echo(f"{'':<13} source: {r.source}")


def _results(r: Ruleset) -> list[dict[str, Any]]:
    table = r.table
    return [
        {
            "rank": i,
            "dice": str(res),
            "category": table.categories[res].value,
            "value": table.values[res],
            "ways": res.ways,
        }
        for i, res in enumerate(table.order, start=1)
    ]


@rules.command("show")
@click.argument("preset")
@click.option("--set", "settings", multiple=True, metavar="OPTION=VALUE", help="Change an option.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def rules_show(preset: str, settings: tuple[str, ...], as_json: bool) -> None:
    """The full ruleset of PRESET (a preset name or a ruleset file)."""
    r = resolve_rules(preset, settings)
    if as_json:
        data = r.to_dict() | {"results": _results(r)}
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    click.echo(f"{r.name}: {r.description}")
    click.echo(f"source: {r.source}")
    click.echo("\noptions (* differs from the common rule):")
    changed = r.changed_options()
    group = ""
    for f in option_fields():
        if f.metadata["group"] != group:
            group = f.metadata["group"]
            click.echo(f"  [{group}]")
        mark = "*" if f.name in changed else " "
        value = getattr(r, f.name)
        shown = str(value).lower() if isinstance(value, bool) else str(value)
        click.echo(f"  {mark} {f.name:<21} = {shown:<13} {f.metadata['doc']} ({accepted(f)})")
    click.echo("\nresults, strongest first (rank, dice, category, tokens, chance in 216):")
    for row in _results(r):
        category = r.table.categories[Result.parse(row["dice"])].label
        click.echo(f"  {row['rank']:>2}  {row['dice']}  {category:<15} {row['value']:>2}  {row['ways']}")


# -- compare ---------------------------------------------------------------


@main.command()
@click.argument("first")
@click.argument("second")
@click.option("--rules", "preset", default="classic-11", show_default=True, help="Preset or file.")
@click.option("--set", "settings", multiple=True, metavar="OPTION=VALUE", help="Change an option.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def compare(first: str, second: str, preset: str, settings: tuple[str, ...], as_json: bool) -> None:
    """Which of two results wins, and why (e.g. 421 compare 611 666)."""
    r = resolve_rules(preset, settings)
    a, b = Result.parse(first), Result.parse(second)
    cmp = compare_results(r.table, a, b, ace_high=r.ace_high)
    if as_json:
        rows = {
            str(x): {
                "category": r.table.categories[x].value,
                "rank": r.table.rank(x),
                "value": r.table.values[x],
            }
            for x in (a, b)
        }
        winner = str(cmp.winner) if cmp.winner else None
        data = {"rules": r.name, "winner": winner, "reason": cmp.reason, "results": rows}
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    if cmp.winner is None:
        click.echo(f"{a} ties with {b} under {r.name}: {cmp.reason}")
    else:
        loser = b if cmp.winner == a else a
        click.echo(f"{cmp.winner} beats {loser} under {r.name}: {cmp.reason}")
    for x in dict.fromkeys((a, b)):
        label = r.table.categories[x].label
        click.echo(f"  {x}  {label:<15} rank {r.table.rank(x):>2} of 56, worth {r.table.values[x]}")


# -- replay ----------------------------------------------------------------


@main.command()
@click.argument("record_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--log", is_flag=True, help="Print every step of the game.")
def replay(record_file: Path, log: bool) -> None:
    """Replay a game record and print its outcome."""
    try:
        text = record_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise click.BadParameter(f"cannot read {record_file}: {exc}") from None
    record = Record.from_json(text)
    final = record.replay()
    if log:
        from .core.game import Game

        game = Game(record.rules, record.players, first_seat=record.first_seat)
        _echo_events(game.state.events, game.players)
        for step in record.steps:
            state = game.apply_step(step)
            _echo_events(state.events, game.players)
    click.echo(f"{record.rules.name}, {', '.join(record.players)}: {final.steps} steps replayed")
    click.echo(outcome_text(final))


def _echo_events(events: Any, players: tuple[str, ...]) -> None:
    for event in events:
        click.echo(describe(event, players))


# -- play ------------------------------------------------------------------


@main.command()
@click.option("--rules", "preset", default="classic-11", show_default=True, help="Preset or file.")
@click.option("--set", "settings", multiple=True, metavar="OPTION=VALUE", help="Change an option.")
@click.option(
    "--players",
    default="You,bot:random,bot:random",
    show_default=True,
    help="Comma-separated names; bot:random for a bot.",
)
@click.option("--seed", type=int, default=None, help="Seed for the dice and the bots.")
@click.option("--record", "record_path", type=click.Path(dir_okay=False, path_type=Path))
def play(
    preset: str, settings: tuple[str, ...], players: str, seed: int | None, record_path: Path | None
) -> None:
    """Play a game in the terminal, as text prompts."""
    from .play_plain import play_plain

    r = resolve_rules(preset, settings)
    game = play_plain(r, players.split(","), seed=seed, out=click.echo, ask=_ask)
    if record_path is not None:
        record_path.write_text(game.record({"seed": seed}).to_json(), encoding="utf-8")
        click.echo(f"record saved to {record_path}")


def _ask(prompt: str) -> str | None:
    click.echo(prompt, nl=False)
    line = sys.stdin.readline()
    return line.rstrip("\n") if line else None
