"""``421 play``, ``table``, ``history``, ``stats``, ``replay``: games in the terminal, and what is kept."""

from __future__ import annotations

import functools
import json
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import click
from click.core import ParameterSource

from ..core.errors import InvalidParameter, Message
from ..core.record import Record
from ..core.rules import Ruleset, rules_name
from ..i18n import error_text, tr
from ..paths import check_new_file, system_reason
from ..play.plain import InputEnded, Left, run_plain
from ..play.scorekeeper import run_table
from ..play.session import Seat, Session, default_player_name, parse_seats
from ..text import describe, names, outcome_text
from .common import (
    LANG_KEY,
    LANG_OPTION,
    SAY_OPTION,
    Command,
    Finite,
    NamedPath,
    named_in,
    people_seats,
    prepare_optimal,
    read_record,
    seat_policies,
    with_rules,
)
from .words import ASKED, spoken

# ``--resume`` alone takes the last begun (1); ``--resume N`` the N-th, as ``--saved`` lists them
RESUME_OPTION = click.option("--resume", is_flag=False, flag_value="1", default=None, metavar="[N]")
SAVED_OPTION = click.option("--saved", is_flag=True)

if TYPE_CHECKING:
    from ..history import History  # the database library loads when a game is played or listed
    from ..play.saves import SaveLock


@click.command(cls=Command)
@with_rules
@click.option("--players", default=None)
@click.option("--seed", default=None)
@LANG_OPTION
@click.option("--bot-delay", type=Finite(0, 10), default=0.6, show_default=True)
@click.option("--plain", is_flag=True)
@click.option("--hints", is_flag=True)
@RESUME_OPTION
@SAVED_OPTION
@click.option("--record", "record_path", type=NamedPath(dir_okay=False, path_type=Path))
def play(
    rules: Ruleset,
    players: str | None,
    seed: str | None,
    lang: str | None,
    bot_delay: float,
    plain: bool,
    hints: bool,
    resume: str | None,
    saved: bool,
    record_path: Path | None,
) -> None:
    if saved:
        _list_saved("play", lang or spoken())
        return
    seat_policies()
    if players is not None and not players.strip():  # "$PLAYERS" left unset: no one, not one nameless player
        raise click.UsageError(tr(lang or spoken(), "cli.play.players"))
    said = lang or spoken()
    seats = parse_seats(players.split(","), said, new=resume is None) if players is not None else None
    store = _before_play(record_path)
    kept: dict[str, Any] = {}  # what the save keeps beside the game
    if resume is not None:
        session, lock, saved_lang, record_path, kept = _resume(
            "play",
            resume,
            lang or spoken(),
            rules=_asked_rules(rules),
            seats=seats,
            seed=seed,
            chosen=lang or ASKED.get(),
            record_path=record_path,
        )
        lang = lang or ASKED.get() or saved_lang
        hints = hints or kept.get("hints") is True  # as the game was begun
    else:
        if seats is None:
            said = lang or spoken()
            seats = parse_seats([default_player_name(said), "bot:heuristic", "bot:heuristic"], said)
        if any(seat.bot == "optimal" for seat in seats):
            prepare_optimal(rules, len(seats), lang or spoken())
        session = Session(rules, seats, seed=seed)
        lock = _new_save()
    language = lang or spoken()
    with lock:  # the game is this process's until it ends: a second --resume is refused meanwhile
        save_id = lock.path.stem
        on_step = Keeper(store, save_id, "play", language, record_path, kept, hints=hints)
        on_step(session)
        interactive = sys.stdin.isatty() and sys.stdout.isatty()
        if plain or not interactive:
            pause = (lambda: time.sleep(bot_delay)) if interactive else (lambda: None)
            _run_lines(
                lambda: run_plain(
                    session,
                    lang=language,
                    out=click.echo,
                    ask=_ask_fresh,
                    on_step=on_step,
                    pause=pause,
                    hints=hints,
                ),
                "play",
                language,
                save_id,
            )
        else:
            from ..tui.game_app import PlayApp

            taken_up = functools.partial(_resume_command, "play", save_id)
            PlayApp(
                session, lang=language, bot_delay=bot_delay, on_step=on_step, hints=hints, resume=taken_up
            ).run()
        _finish(session, on_step, language)


@click.command("table", cls=Command)
@with_rules
@click.option("--players", default=None)
@LANG_OPTION
@RESUME_OPTION
@SAVED_OPTION
@click.option("--record", "record_path", type=NamedPath(dir_okay=False, path_type=Path))
def table_command(
    rules: Ruleset,
    players: str | None,
    lang: str | None,
    resume: str | None,
    saved: bool,
    record_path: Path | None,
) -> None:
    if saved:
        _list_saved("table", lang or spoken())
        return
    if (players is not None or resume is None) and not (players or "").strip():
        raise click.UsageError(tr(lang or spoken(), "cli.table.players"))
    seats = people_seats(players, new=resume is None) if players is not None else None
    store = _before_play(record_path)
    kept: dict[str, Any] = {}
    if resume is not None:
        session, lock, saved_lang, record_path, kept = _resume(
            "table",
            resume,
            lang or spoken(),
            rules=_asked_rules(rules),
            seats=seats,
            chosen=lang or ASKED.get(),
            record_path=record_path,
        )
        lang = lang or ASKED.get() or saved_lang
    else:
        assert seats is not None  # refused above when missing
        session = Session(rules, seats)
        lock = _new_save()
    language = lang or spoken()
    with lock:  # the game is this process's until it ends: a second --resume is refused meanwhile
        save_id = lock.path.stem
        on_step = Keeper(store, save_id, "table", language, record_path, kept)
        on_step(session)
        _run_lines(
            lambda: run_table(session, lang=language, out=click.echo, ask=_ask, on_step=on_step),
            "table",
            language,
            save_id,
        )
        _finish(session, on_step, language)


def _before_play(record_path: Path | None) -> History:
    """What the end of the game will need, checked before it starts: the record's file, the history."""
    from ..history import History

    if record_path is not None:
        check_new_file(record_path, Message("path.record"))
    return History()  # checks the data folder, and refuses a history file it cannot use


def _asked_rules(rules: Ruleset) -> Ruleset | tuple[str, ...] | None:
    """What a resume was asked to play: the rules ``--rules`` names (and its ``--set``), the settings
    alone (``--set`` without ``--rules``: changes to the saved game's rules), or nothing."""
    ctx = click.get_current_context()

    def given(name: str) -> bool:
        return ctx.get_parameter_source(name) not in (None, ParameterSource.DEFAULT)

    if given("preset"):
        return rules
    return tuple(ctx.params["settings"]) if given("settings") else None


def _new_save() -> SaveLock:
    """A new game's save, held by this process from its start (its file is written at the first step)."""
    from ..play.saves import lock_save, new_save_id

    return lock_save(new_save_id())


def _resume(
    mode: str,
    which: str,
    asked: str,
    *,
    rules: Ruleset | tuple[str, ...] | None,
    seats: list[Seat] | None,
    seed: str | None = None,
    chosen: str | None = None,
    record_path: Path | None = None,
) -> Resumed:
    """The saved game of ``mode`` that ``--resume`` names (``which``: its number as ``--saved`` lists
    them, 1 the last begun), held by this process (one being played by another is refused, naming
    it); what was given explicitly must agree with it.

    ``chosen``: the language ``--lang`` gives, spoken from the first line; else the save's own,
    else ``asked`` (the locale's). The record is written where ``record_path`` says, else where the
    game's start asked for it, checked again before play: its folder may have gone meanwhile.
    """
    from ..play.saves import claim_saved, record_file, resume, saved_games

    command = "421 play" if mode == "play" else "421 table"
    if not which.isdecimal() or int(which) < 1:  # isdigit would let « ² » through to int()
        raise click.BadParameter(
            tr(asked, "cli.resume.number", command=command, got=repr(which)), param_hint="'--resume'"
        )
    found = claim_saved(mode, int(which))
    if found is None:
        count = sum(1 for _ in saved_games(mode))
        if not count:
            raise click.ClickException(tr(asked, "saved_none"))
        said = tr(asked, "cli.resume.fewer", number=which, count=count, command=command)
        raise click.BadParameter(said, param_hint="'--resume'")  # a number out of the list: usage
    save_id, data, lock = found
    try:
        session = resume(save_id, data)
        _agree(session, rules, seats, seed)
        if record_path is None:
            record_path = record_file(save_id, data)
            if record_path is not None:
                check_new_file(record_path, Message("path.record"))
    except BaseException:
        lock.release()
        raise
    lang = data.get("lang")
    shown = chosen or (lang if isinstance(lang, str) else asked)
    click.get_current_context().meta[LANG_KEY] = shown  # its errors too, to the last one
    click.echo(
        tr(
            shown,
            "resumed",
            rules=rules_name(session.rules),
            players=", ".join(session.game.players),
            step=session.state.steps,
        )
    )
    kept = {key: data[key] for key in KEPT_WITH_THE_GAME if key in data}
    return Resumed(session, lock, lang if isinstance(lang, str) else None, record_path, kept)


class Resumed(NamedTuple):
    session: Session
    lock: SaveLock
    lang: str | None  # the save's
    record_path: Path | None
    kept: dict[str, Any]  # what the save keeps beside the game (:data:`KEPT_WITH_THE_GAME`)


def _list_saved(mode: str, lang: str) -> None:
    """Every unfinished game of ``mode``, numbered as ``--resume N`` takes them, the last begun first."""
    from ..core.errors import InvalidRecord
    from ..play.saves import begun, resume, saved_games

    found = list(saved_games(mode))
    if not found:
        click.echo(tr(lang, "saved_none"))
        return
    click.echo(tr(lang, f"cli.saved.head.{mode}"))
    for number, (save_id, data) in enumerate(found, start=1):
        try:
            if isinstance(data, InvalidRecord):
                raise data
            session = resume(save_id, data)
        except InvalidRecord as exc:
            click.echo(tr(lang, "cli.saved.unusable", number=number, why=error_text(lang, exc)))
            continue
        start = begun(save_id)
        when = local_time(start.isoformat(), lang) if start else save_id
        line = tr(
            lang, "cli.saved.line", number=number, when=when, rules=rules_name(session.rules),
            players=", ".join(session.game.players), step=session.state.steps,
        )  # fmt: skip
        click.echo(line)


def _agree(
    session: Session, rules: Ruleset | tuple[str, ...] | None, seats: list[Seat] | None, seed: str | None
) -> None:
    """Refuse a resume asked with other rules, players or seed than the saved game's; settings alone
    change the saved game's rules."""
    how = Message("resume.how")
    saved = session.rules
    if isinstance(rules, tuple):
        rules = saved.with_settings(rules)
    if rules is not None and rules.options() != saved.options():
        asked: str | Message = rules.name
        if asked == saved.name:
            theirs = saved.options()
            changed = ", ".join(f"{k}={v}" for k, v in rules.options().items() if v != theirs[k])
            asked = Message("resume.rules_with", {"name": rules.name, "changed": changed})
        raise InvalidParameter(
            Message(
                "resume.rules",
                {"saved": saved.name, "asked": asked, "how": how},
            )
        )
    if seats is not None and _seated(seats) != _seated(session.seats):
        saved_seats, asked_seats = ", ".join(s.name for s in session.seats), ", ".join(s.name for s in seats)
        raise InvalidParameter(
            Message(
                "resume.seats",
                {"saved": saved_seats, "asked": asked_seats, "how": how},
            )
        )
    if seed is not None and seed != session.dice.seed:
        raise InvalidParameter(
            Message(
                "resume.seed",
                {"saved": session.dice.seed, "asked": seed, "how": how},
            )
        )


def _seated(seats: list[Seat]) -> list[tuple[str | None, str | None]]:
    """Who sits where, the way ``--players`` says it: a person's name, or a bot's level (whose name
    is in the language the game was made in)."""
    return [(s.bot, None if s.bot else s.name) for s in seats]


# What a save keeps beside the game: ``hints`` asked at its start; ``in_history``: over, already in the
# history (its record still to write)
KEPT_WITH_THE_GAME = ("hints", "in_history")


class Keeper:
    """What is kept of the game at each of its steps: its save while it goes on; once over, its row
    in the history and the record asked for, the save dropped, at the step that ends it (a terminal
    closed on the last screen loses nothing), once.

    A game over whose history or record cannot be written is kept as a save, over, with what is
    done: the record is written whatever the history says, and the game taken up (``--resume``)
    finishes what is left. ``failed`` says what, for :func:`_finish`.
    """

    def __init__(
        self,
        store: History,
        save_id: str,
        mode: str,
        lang: str,
        record_path: Path | None,
        kept: dict[str, Any],
        *,
        hints: bool = False,
    ) -> None:
        self.store, self.save_id, self.mode, self.lang = store, save_id, mode, lang
        self.record_path = record_path
        # the record asked for is kept with the save, so that the game resumed writes it at its end
        self.extra = {**kept, **({"record_file": str(record_path.resolve())} if record_path else {})}
        if hints:
            self.extra["hints"] = True
        self.done = False
        self.failed: list[Message] = []

    def __call__(self, session: Session) -> None:
        from ..history import HistoryError
        from ..play.saves import clear_save, write_save

        if not session.state.is_over:
            write_save(self.save_id, session.to_save(mode=self.mode, lang=self.lang, **self.extra))
            return
        if self.done:
            return
        self.done = True
        if self.record_path is not None:
            record = session.game.record({"seed": session.dice.seed, "mode": self.mode})
            try:
                self.record_path.write_text(record.to_json(), encoding="utf-8")
            except OSError as exc:
                where = {"path": self.record_path, "reason": system_reason(exc)}
                self.failed.append(Message("end.record_failed", where))
            else:
                self.extra.pop("record_file", None)
        if not self.extra.get("in_history"):
            bots = {i: s.bot for i, s in enumerate(session.seats) if s.bot}
            try:
                self.store.add(session.game, bots=bots, source=self.mode)
            except HistoryError as exc:
                reason = exc.message if exc.message is not None else str(exc)
                self.failed.append(Message("end.history_failed", {"reason": reason}))
            else:
                self.extra["in_history"] = True
        if self.failed:  # kept over, for a resume to finish
            write_save(self.save_id, session.to_save(mode=self.mode, lang=self.lang, **self.extra))
        else:
            clear_save(self.save_id)

    @property
    def recorded(self) -> bool:
        return self.record_path is not None and "record_file" not in self.extra


def _run_lines(run: Callable[[], None], mode: str, lang: str, save_id: str) -> None:
    """Run a line-mode game; quitting, Ctrl-C and closed input leave it saved and say how to resume it."""
    try:
        run()
    except Left:
        click.echo(tr(lang, "interrupted", command=_resume_command(mode, save_id)))
    except KeyboardInterrupt:
        click.echo()
        click.echo(tr(lang, "interrupted", command=_resume_command(mode, save_id)))
        sys.exit(130)
    except InputEnded:
        said = tr(lang, "input_ended", command=_resume_command(mode, save_id))
        raise click.ClickException(said) from None


def _resume_command(mode: str, save_id: str) -> str:
    """What takes up the game saved as ``save_id``: ``--resume`` alone takes the last begun, another
    is taken by its number as ``--saved`` lists them."""
    from ..play.saves import saved_games

    number = next((n for n, (found, _) in enumerate(saved_games(mode), start=1) if found == save_id), 1)
    return f"421 {mode} --resume" + (f" {number}" if number > 1 else "")


def _finish(session: Session, keeper: Keeper, lang: str) -> None:
    """After the game's screen or lines: a game over is kept (by then already, at its last step) and
    its record said; what could not be kept is an error that says how to finish keeping it."""
    if not session.state.is_over:
        return
    keeper(session)
    if keeper.recorded:
        click.echo(tr(lang, "recorded", path=keeper.record_path))
    if not keeper.failed:
        return
    said = [error_text(lang, message) for message in keeper.failed]
    command = _resume_command(keeper.mode, keeper.save_id)
    if keeper.record_path is not None and not keeper.recorded:
        said.append(tr(lang, "end.kept_record", command=command))
    else:
        said.append(tr(lang, "end.kept", command=command))
    raise click.ClickException("\n".join(said))


def _ask(prompt: str) -> str | None:
    click.echo(prompt, nl=False)
    line = sys.stdin.readline()
    if not line:
        click.echo()
        return None
    return line.rstrip("\n")


def _ask_fresh(prompt: str) -> str | None:
    """Ask, keys typed before the question left out: they were meant for no question shown.

    Only at a terminal; answers piped in from a script are all meant in advance.
    """
    if sys.stdin.isatty():
        try:
            import termios
        except ImportError:  # not on Windows
            pass
        else:
            termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)
    return _ask(prompt)


@click.command(cls=Command)
@click.option("--json", "as_json", is_flag=True)
@click.option("--online", is_flag=True)
@SAY_OPTION
def stats(as_json: bool, online: bool, lang: str) -> None:
    from ..history import History

    rows = _bots_merged(History(read_only=True, online=online).stats(), lang)  # reading needs no writing
    if as_json:
        click.echo(json.dumps({"players": rows}, ensure_ascii=False, indent=2))
        return
    if not rows:
        click.echo(tr(lang, "cli.no_games_online" if online else "cli.no_games"))
        return
    counts = ("games", "losses", "rounds_lost", "throws_421", "nenettes", "tokens_taken")
    table = [[tr(lang, f"cli.stats.{c}") for c in ("player", *counts)]]
    table += [[r["name"], *(str(r[c]) for c in counts)] for r in rows]
    # each column as wide as its widest cell, two spaces between: a name of several words stays one
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    for line in table:
        cells = [
            line[0].ljust(widths[0]),
            *(cell.rjust(w) for cell, w in zip(line[1:], widths[1:], strict=True)),
        ]
        click.echo("  ".join(cells))


def _bots_merged(rows: list[dict[str, Any]], lang: str) -> list[dict[str, Any]]:
    """The history's rows with each bot named in ``lang``: a bot's games made in either language
    are one row (« Heuristic 1 » and « Heuristique 1 »), most games first."""
    from ..players.registry import bot_name_in

    merged: dict[str, dict[str, Any]] = {}
    for row in rows:
        name = bot_name_in(row["name"], lang)
        into = merged.setdefault(name, dict.fromkeys(row, 0) | {"name": name})
        for key, value in row.items():
            if key != "name":
                into[key] += value or 0
    return sorted(merged.values(), key=lambda row: (-row["games"], row["name"]))


@click.command(cls=Command)
@click.argument("game_id", type=int, required=False)
@click.option("--limit", type=click.IntRange(1, 10_000), default=20, show_default=True)
@click.option("--analyse", is_flag=True)
@click.option("--analyze", is_flag=True, hidden=True)  # the American spelling, accepted but not listed
@click.option("--online", is_flag=True)
@SAY_OPTION
def history(game_id: int | None, limit: int, analyse: bool, analyze: bool, online: bool, lang: str) -> None:
    from ..history import History
    from ..players.registry import bot_name_in

    analyse = analyse or analyze
    if analyse and game_id is None:
        raise click.UsageError(tr(lang, "cli.history.analyse_needs"))
    store = History(read_only=True, online=online)  # reading needs no writing
    if game_id is None:
        rows = store.games(limit)
        if not rows:
            click.echo(tr(lang, "cli.no_games_online" if online else "cli.no_games"))
        for g in rows:
            losers = [bot_name_in(n, lang) for n in g.losers]
            players = ", ".join(bot_name_in(n, lang) for n in g.players)
            outcome = tr(lang, f"outcome.{g.kind}", who=names(range(len(losers)), losers, lang))
            when = local_time(g.finished_at, lang)
            click.echo(f"#{g.id:<5} {when}  {g.rules:<13} {players}  → {outcome}")
        return
    record = named_in(store.record(game_id), lang)
    _print_replay(record, lang)
    if analyse:
        from .analyse import show_analysis

        click.echo()
        show_analysis(record, lang)


def local_time(stamp: str, lang: str) -> str:
    """When a game ended, as the history stores it (UTC, ISO 8601), in the local time and ``lang``'s way.

    A stamp without its offset is UTC; one that is not a date is shown as it is.
    """
    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    when = when.astimezone()
    parts = {"year": f"{when.year:04d}", "month": f"{when.month:02d}", "day": f"{when.day:02d}"}
    return tr(lang, "cli.history.when", **parts, hour=f"{when.hour:02d}", minute=f"{when.minute:02d}")


def _print_replay(record: Record, lang: str, *, outcome: bool = True) -> None:
    """Every event of the game; ``outcome``: and the end, as far as the log has not said it."""
    from ..core.game import Game

    game = Game(record.rules, record.players, first_seat=record.first_seat)
    for event in game.state.events:
        click.echo(describe(event, game.players, lang))
    for step in record.steps:
        for event in game.apply_step(step).events:
            click.echo(describe(event, game.players, lang))
    end = outcome_text(game.state, lang, logged=True)
    if outcome and end:
        click.echo(end)


@click.command(cls=Command)
@click.argument("record_file", type=NamedPath(dir_okay=False, path_type=Path))
@click.option("--log", is_flag=True)
@SAY_OPTION
def replay(record_file: Path, log: bool, lang: str) -> None:
    record = named_in(read_record(record_file), lang)  # checked as stored, then its bots named in lang
    final = record.replay()
    if log:
        _print_replay(record, lang, outcome=False)  # the outcome follows the count of steps
    players = ", ".join(record.players)
    click.echo(tr(lang, "cli.replayed", rules=rules_name(record.rules), players=players, steps=final.steps))
    click.echo(outcome_text(final, lang))
