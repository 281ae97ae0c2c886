"""``421 serve`` and ``421 verify``: online tables, and checking an online game's dice."""

from __future__ import annotations

import errno
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ..extras import require
from ..i18n import tr
from .common import SAY_OPTION, read_record

# The caps of `421 serve`: option, field of Limits, accepted values, help (docs/online.md lists them).
SERVE_LIMITS: list[tuple[str, str, click.ParamType[Any], str]] = [
    ("--max-seats", "seats", click.IntRange(2, 62), "Players at a table."),
    ("--max-spectators", "spectators", click.IntRange(0), "Watchers of one table."),
    (
        "--max-connections-per-address",
        "connections_per_address",
        click.IntRange(1),
        "WebSockets from one address.",
    ),
    (
        "--max-tables-per-minute",
        "tables_per_minute",
        click.IntRange(1),
        "Tables one address may create a minute.",
    ),
    ("--max-tables", "live_tables", click.IntRange(1), "Tables waiting or in play."),
    (
        "--waiting-minutes",
        "waiting_minutes",
        click.IntRange(1),
        "A table nobody starts in this time is removed.",
    ),
    (
        "--messages-per-second",
        "messages_per_second",
        click.FloatRange(1),
        "WebSocket messages from one address.",
    ),
    ("--optimal-seconds", "seconds", click.FloatRange(1), "Time to solve bot:optimal's rules, else refused."),
    ("--optimal-memory", "memory_mb", click.IntRange(256), "Megabytes the bot:optimal worker may use."),
]


def _limit_options(command: Callable[..., None]) -> Callable[..., None]:
    """The options of SERVE_LIMITS, with the defaults of Limits and Budget."""
    from ..server.limits import Limits
    from ..server.optimal import Budget

    for flag, field, kind, text in reversed(SERVE_LIMITS):
        default = getattr(Budget() if flag.startswith("--optimal") else Limits(), field)
        dest = flag[2:].replace("-", "_") if flag.startswith("--optimal") else field
        option = click.option(flag, dest, type=kind, default=default, show_default=True, help=text)
        command = option(command)
    return command


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port", type=click.IntRange(1, 65535), default=8421, show_default=True, help="Port to listen on."
)
@click.option(
    "--db",
    "db_url",
    default=None,
    envvar="PY421_DB",
    help="Database URL, or PY421_DB (default: SQLite in the data folder).",
)
@click.option(
    "--bot-delay", type=click.FloatRange(0, 10), default=0.6, show_default=True, help="Seconds a bot waits."
)
@_limit_options
@SAY_OPTION
def serve(
    lang: str,
    host: str,
    port: int,
    db_url: str | None,
    bot_delay: float,
    optimal_seconds: float,
    optimal_memory: int,
    **limits: Any,
) -> None:
    """Online tables: friends play in the browser, bots fill in.

    Every limit has a default fit for the internet (docs/online.md lists them).

    \b
    Examples:
      421 serve
      421 serve --host 0.0.0.0 --port 8080
      421 serve --db postgresql://user@host/py421
    """
    require("server", "421 serve")
    if db_url and db_url.startswith(("postgresql", "postgres:")):
        require("postgres", "421 serve on PostgreSQL")
    import uvicorn

    from ..paths import data_dir
    from ..server.app import bind_error, create_app

    problem = bind_error(host, port)
    if problem is not None:
        if problem.errno == errno.EADDRINUSE:
            click.echo(tr(lang, "cli.serve.in_use", port=port, host=host), err=True)
        else:
            why = problem.strerror or problem
            click.echo(tr(lang, "cli.serve.cannot", host=host, port=port, problem=why), err=True)
        raise SystemExit(2)
    from ..server.limits import Limits
    from ..server.optimal import Budget

    url = db_url or f"sqlite:///{data_dir() / 'server.sqlite3'}"
    budget = Budget(seconds=optimal_seconds, memory_mb=optimal_memory)
    app = create_app(url, bot_delay=bot_delay, limits=Limits(**limits), budget=budget)
    click.echo(tr(lang, "cli.serve", host=host, port=port, database=url.split("@")[-1]), err=True)
    # Views are small JSON: compressing each one costs more CPU than it saves on loopback or Wi-Fi.
    # A stop (Ctrl-C, SIGTERM) waits at most 5 s for open connections: every step is already saved.
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level="warning",
        ws_per_message_deflate=False,
        timeout_graceful_shutdown=5,
    )


@click.command()
@click.argument("record_file", type=click.Path(dir_okay=False, path_type=Path))
@SAY_OPTION
def verify(record_file: Path, lang: str) -> None:
    """Check that an online game's dice came from its seed.

    The seed must match the hash published when the table was made, and give
    every throw of the record.

    \b
    Examples:
      421 verify game.json
    """
    from ..server.verify import verify as check

    record = read_record(record_file)
    verdict = check(record, lang)
    if verdict.seed_hash is not None:
        click.echo(tr(lang, "cli.verify.hash", hash=verdict.seed_hash))
    if verdict.problems:
        for line in verdict.problems:
            click.echo(line, err=True)
        raise SystemExit(1)
    click.echo(tr(lang, "cli.verify.fair", n=verdict.throws))
