"""``421 play``, ``table``, ``history``, ``stats``, ``replay``: games in the terminal, and what is kept."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import click

from ..core.record import Record
from ..core.rules import Ruleset
from ..i18n import LANGS, detect_lang, tr
from ..play.plain import InputEnded, run_plain
from ..play.scorekeeper import run_table
from ..play.session import Seat, Session, parse_seats
from ..text import describe, outcome_text
from .common import LANG_OPTION, read_record, with_rules


@click.command()
@with_rules
@click.option(
    "--players",
    default="You,bot:heuristic,bot:heuristic",
    show_default=True,
    help="Comma-separated seats: a name for a person, or bot:random, bot:heuristic, bot:optimal.",
)
@click.option("--seed", default=None, help="Seed for the dice: the same seed, the same game.")
@LANG_OPTION
@click.option(
    "--bot-delay",
    type=click.FloatRange(0, 10),
    default=0.6,
    show_default=True,
    help="Seconds between bot moves, so you can follow them.",
)
@click.option("--plain", is_flag=True, help="Text lines instead of the full-screen game.")
@click.option("--resume", is_flag=True, help="Continue your last unfinished game.")
@click.option("--record", "record_path", type=click.Path(dir_okay=False, path_type=Path))
def play(
    rules: Ruleset,
    players: str,
    seed: str | None,
    lang: str | None,
    bot_delay: float,
    plain: bool,
    resume: bool,
    record_path: Path | None,
) -> None:
    """Play 421 in the terminal against bots or friends at the same keyboard.

    The full-screen game needs a terminal; with --plain, or when the input is
    not a terminal, the game is played in text lines.
    """
    if resume:
        session, save_id, saved_lang = _resume("play")
        lang = lang or saved_lang
    else:
        seats = parse_seats(players.split(","))
        if any(seat.bot == "optimal" for seat in seats):
            click.echo(
                "bot:optimal: loading its solved strategy (a ruleset's first solve takes up to a minute)",
                err=True,
            )
        session = Session(rules, seats, seed=seed)
        save_id = _new_save_id()
    language = lang or detect_lang()
    on_step = _saver(save_id, "play", language)
    on_step(session)
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    if plain or not interactive:
        pause = (lambda: time.sleep(bot_delay)) if interactive else (lambda: None)
        _run_lines(
            lambda: run_plain(session, lang=language, out=click.echo, ask=_ask, on_step=on_step, pause=pause),
            language,
        )
    else:
        from ..tui.app import PlayApp

        PlayApp(session, lang=language, bot_delay=bot_delay, on_step=on_step).run()
    _finish(session, save_id, "play", record_path, language)


@click.command("table")
@with_rules
@click.option("--players", default=None, help="Comma-separated names, in seating order.")
@LANG_OPTION
@click.option("--resume", is_flag=True, help="Continue the last unfinished table.")
@click.option("--record", "record_path", type=click.Path(dir_okay=False, path_type=Path))
def table_command(
    rules: Ruleset,
    players: str | None,
    lang: str | None,
    resume: bool,
    record_path: Path | None,
) -> None:
    """Keep the score of a real table: type what the dice show, py421 does the rest."""
    if resume:
        session, save_id, saved_lang = _resume("table")
        lang = lang or saved_lang
    else:
        if not players:
            raise click.UsageError('name the players: --players "Alice,Bob,Carol"')
        session = Session(rules, [Seat(name) for name in players.split(",")])
        save_id = _new_save_id()
    language = lang or detect_lang()
    on_step = _saver(save_id, "table", language)
    on_step(session)
    _run_lines(
        lambda: run_table(session, lang=language, out=click.echo, ask=_ask, on_step=on_step),
        language,
    )
    _finish(session, save_id, "table", record_path, language)


def _new_save_id() -> str:
    from ..play.saves import new_save_id

    return new_save_id()


def _resume(mode: str) -> tuple[Session, str, str | None]:
    from ..play.saves import latest_save

    found = latest_save(mode)
    if found is None:
        raise click.ClickException(tr(detect_lang(), "saved_none"))
    save_id, data = found
    session = Session.from_save(data)
    lang = data.get("lang")
    shown = lang or detect_lang()
    click.echo(
        tr(
            shown,
            "resumed",
            rules=session.rules.name,
            players=", ".join(session.game.players),
            step=session.state.steps,
        )
    )
    return session, save_id, lang if isinstance(lang, str) else None


def _saver(save_id: str, mode: str, lang: str) -> Callable[[Session], None]:
    from ..play.saves import write_save

    def save(session: Session) -> None:
        if not session.state.is_over:
            write_save(save_id, session.to_save(mode=mode, lang=lang))

    return save


def _run_lines(run: Callable[[], None], lang: str) -> None:
    """Run a line-mode game; Ctrl-C and closed input leave it saved and say so."""
    try:
        run()
    except KeyboardInterrupt:
        click.echo()
        click.echo(tr(lang, "interrupted"))
        sys.exit(130)
    except InputEnded:
        raise click.ClickException(tr(lang, "input_ended")) from None


def _finish(session: Session, save_id: str, mode: str, record_path: Path | None, lang: str) -> None:
    from ..history import History  # the database library loads only for a finished game
    from ..play.saves import clear_save

    if not session.state.is_over:
        return
    bots = {i: s.bot for i, s in enumerate(session.seats) if s.bot}
    History().add(session.game, bots=bots, source=mode)
    clear_save(save_id)
    if record_path is not None:
        record = session.game.record({"seed": session.dice.seed, "mode": mode})
        record_path.write_text(record.to_json(), encoding="utf-8")
        click.echo(tr(lang, "recorded", path=record_path))


def _ask(prompt: str) -> str | None:
    click.echo(prompt, nl=False)
    line = sys.stdin.readline()
    if not line:
        click.echo()
        return None
    return line.rstrip("\n")


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def stats(as_json: bool) -> None:
    """Per player: games, losses, 421s and nénettes thrown, tokens taken."""
    from ..history import History

    rows = History().stats()
    if as_json:
        click.echo(json.dumps({"players": rows}, ensure_ascii=False, indent=2))
        return
    if not rows:
        click.echo("no finished game yet: 421 play")
        return
    head = ("player", "games", "losses", "rounds lost", "421s", "nénettes", "tokens taken")
    click.echo(f"{head[0]:<20}" + "".join(f"{h:>13}" for h in head[1:]))
    for r in rows:
        cells = (r["games"], r["losses"], r["rounds_lost"], r["throws_421"], r["nenettes"])
        click.echo(f"{r['name']:<20}" + "".join(f"{c:>13}" for c in (*cells, r["tokens_taken"])))


@click.command()
@click.argument("game_id", type=int, required=False)
@click.option("--limit", type=click.IntRange(1, 10_000), default=20, show_default=True)
@click.option("--lang", type=click.Choice(LANGS), default=None, help="Language of the replay.")
def history(game_id: int | None, limit: int, lang: str | None) -> None:
    """List finished games; with a number, replay that game step by step."""
    from ..history import History

    store = History()
    if game_id is None:
        rows = store.games(limit)
        if not rows:
            click.echo("no finished game yet: 421 play")
        for g in rows:
            losers = ", ".join(g.losers)
            click.echo(
                f"#{g.id:<5} {g.finished_at}  {g.rules:<13} {', '.join(g.players)}  → {losers} ({g.kind})"
            )
        return
    record = store.record(game_id)
    _print_replay(record, lang or detect_lang())


def _print_replay(record: Record, lang: str) -> None:
    from ..core.game import Game

    game = Game(record.rules, record.players, first_seat=record.first_seat)
    for event in game.state.events:
        click.echo(describe(event, game.players, lang))
    for step in record.steps:
        for event in game.apply_step(step).events:
            click.echo(describe(event, game.players, lang))
    click.echo(outcome_text(game.state, lang))


@click.command()
@click.argument("record_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--log", is_flag=True, help="Print every step of the game.")
def replay(record_file: Path, log: bool) -> None:
    """Replay a game record and print its outcome."""
    record = read_record(record_file)
    final = record.replay()
    if log:
        _print_replay(record, "en")
    click.echo(f"{record.rules.name}, {', '.join(record.players)}: {final.steps} steps replayed")
    click.echo(outcome_text(final))
