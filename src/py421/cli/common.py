"""What the commands share: the --rules option, one-line errors, progress, reading records."""

from __future__ import annotations

import contextlib
import functools
import math
import shlex
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..core.errors import InvalidPlayers, Message, Py421Error
from ..core.rules import Ruleset, preset_names, rules_arguments
from ..i18n import EN, LANGS, detect_lang, error_text, tr
from ..paths import system_reason
from .words import ASKED, Group, asked_lang, click_text, speaking, spoken
from .words import Command as Command  # the commands' class, for the modules that define them

if TYPE_CHECKING:  # the engine, imported by the commands that play or read games only
    from ..core.record import Record
    from ..play.session import Seat
    from ..players.registry import BotLevel


class Finite(click.FloatRange):
    """A decimal option in a range, and a number: ``nan`` passes every comparison of a range, and
    ``inf`` one without an end (a rate without a cap, a delay that never ends). A value out of the
    range is quoted as typed (click says « 11.0 » of ``11``)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = click.FLOAT.convert(value, param, ctx)  # a number, or refused as none
        try:
            number = super().convert(number, param, ctx)
        except click.BadParameter:
            number = math.nan  # out of the range: said below, of the value as typed
        if not math.isfinite(number):
            said = click_text(spoken(), EN["click.not_in_range"])
            self.fail(said.format(value=value, range=self._describe_range()), param, ctx)
        return number


class Listed(click.ParamType[Any]):
    """A list typed as one value, its entries separated by commas (``--before 653,221``): the value is
    the tuple of its entries. An empty entry (``653,,221``, a comma at an end, nothing at all) is
    refused with the option's name, never dropped: it is a value left out, or a typo.

    ``what``: the catalog key that says what the entries are, with ``example``.
    """

    name = "text"  # the placeholder of the help, as for any text

    def __init__(self, what: str, example: str, separators: str = ",") -> None:
        self.what, self.example, self.separators = what, example, separators

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, tuple):  # a default, or a value converted already
            return value
        text = str(value)
        for separator in self.separators[1:]:
            text = text.replace(separator, self.separators[0])
        entries = tuple(entry.strip() for entry in text.split(self.separators[0]))
        if not text.strip():
            self.fail(tr(spoken(), "cli.list.blank", expected=self.expected()), param, ctx)
        if "" in entries:
            self.fail(tr(spoken(), "cli.list.empty", text=repr(value), expected=self.expected()), param, ctx)
        return self.read(entries, param, ctx)

    def expected(self) -> str:
        return tr(spoken(), self.what, example=self.example)

    def read(self, entries: tuple[str, ...], param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The value from its entries, each given."""
        return entries


class Counts(Listed):
    """Whole numbers of 0 or more separated by commas (``--tokens 5,6``): a tuple of ints. ``what``:
    the catalog key that says what they count, as the refusal says it."""

    def read(self, entries: tuple[str, ...], param: click.Parameter | None, ctx: click.Context | None) -> Any:
        for entry in entries:
            if not (entry.isascii() and entry.isdigit()):  # "²" is a digit to Python, not to int()
                said = tr(spoken(), "cli.list.not_count", entry=repr(entry), expected=self.expected())
                self.fail(said, param, ctx)
        return tuple(int(entry) for entry in entries)


def seat_policies() -> None:
    """Let this command's ``--players`` seat trained policies, ``bot:policy:PATH``: a file of this
    machine, so only commands typed here (never a server, whose seats its visitors name)."""
    from ..players.registry import register_family

    register_family("policy", _policy_level, "PATH")


def _policy_level(argument: str) -> BotLevel:
    from ..envs.policy_seat import policy_level  # numpy and the encoder, once a policy is named

    return policy_level(argument)


def resolve_rules(spec: str, settings: tuple[str, ...] = (), param_hint: str = "'--rules'") -> Ruleset:
    """A preset name or a ruleset file, changed by ``OPTION=VALUE`` settings.

    ``param_hint`` names what the user typed the name in (an option or an argument).
    """
    if spec in preset_names():
        base = Ruleset.preset(spec)
    else:
        path = Path(spec)
        if not path.is_file():
            presets = ", ".join(preset_names())
            key = "cli.rules_folder" if path.is_dir() else "cli.rules_missing"  # '' reads as the folder here
            why = tr(spoken(), "cli.rules_empty" if not spec.strip() else key)
            said = tr(spoken(), "cli.neither_rules", name=repr(spec), why=why, presets=presets)
            raise click.BadParameter(said, param_hint=param_hint)
        try:
            base = Ruleset.from_text(path.read_text(encoding="utf-8"), filename=spec)
        except (OSError, UnicodeDecodeError) as exc:
            raise _unreadable(spec, exc, param_hint) from None
    return base.with_settings(settings)


RULES_TYPED = "py421.rules_typed"  # the rules a command resolved, and the arguments that named them


def rules_on_line(rules: Ruleset) -> str:
    """The command-line arguments that name ``rules``: as the user typed them where these are the
    command's rules (a ruleset file by its path, which its name is not), else the preset and its
    ``--set`` options (:func:`.core.rules.rules_arguments`)."""
    resolved, typed = _typed_rules(click.get_current_context(silent=True))
    return typed if resolved == rules else rules_arguments(rules)


def _typed_rules(ctx: click.Context | None) -> tuple[Ruleset | None, str]:
    """The rules the command resolved and the arguments that named them (:func:`with_rules`)."""
    found: tuple[Ruleset | None, str] = ctx.meta.get(RULES_TYPED, (None, "")) if ctx else (None, "")
    return found


SET_OPTION = click.option("--set", "settings", multiple=True, metavar="OPTION=VALUE")


def with_rules(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add --rules and --set to a command, which receives the resolved ``rules``."""

    @click.option("--rules", "preset", default="classic-11", show_default=True)
    @SET_OPTION
    @functools.wraps(command)
    def wrapper(*args: Any, preset: str, settings: tuple[str, ...], **kwargs: Any) -> Any:
        rules = resolve_rules(preset, settings)
        typed = ["--rules", preset, *(word for setting in settings for word in ("--set", setting))]
        click.get_current_context().meta[RULES_TYPED] = (rules, shlex.join(typed))
        return command(*args, rules=rules, **kwargs)

    return wrapper


def typed_in(error: Py421Error, ctx: click.Context) -> Py421Error | Message:
    """``error``'s message with the command-line arguments it names for the command's rules
    (``arguments``: a command to run) as the user typed them (:func:`rules_on_line`)."""
    message = error.message
    resolved, typed = _typed_rules(ctx)
    if message is None or resolved is None or message.fields.get("arguments") != rules_arguments(resolved):
        return error
    return Message(message.key, {**message.fields, "arguments": typed})


class Errors(Group):
    """Show py421's own errors as one clear line and exit with status 2; speak the command line's language.

    The language is the one ``--lang`` asks for anywhere on the line, else the locale's: the
    help pages, click's usage errors and the commands' own messages are all in it.

    ``aliases``: other spellings of commands (``analyze`` for ``analyse``), run as the command they
    name, and listed nowhere.
    """

    def __init__(self, *args: Any, aliases: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.aliases = aliases or {}

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return super().get_command(ctx, self.aliases.get(cmd_name, cmd_name))

    def main(self, *args: Any, **kwargs: Any) -> Any:
        line = kwargs.get("args", args[0] if args else None)
        asked = asked_lang(sys.argv[1:] if line is None else list(line))
        token = ASKED.set(asked)
        try:
            with speaking(self, asked or detect_lang()):
                return super().main(*args, **kwargs)
        finally:
            ASKED.reset(token)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except Py421Error as exc:
            lang = ctx.meta.get(LANG_KEY) or spoken()
            click.echo(tr(lang, "cli.error", message=error_text(lang, typed_in(exc, ctx))), err=True)
            ctx.exit(2)
        except SystemError as exc:
            if stop_behind(exc):  # Ctrl-C in a compiled (numba) loop comes out wrapped in this
                raise KeyboardInterrupt from None  # said by click, in the command's language
            raise
        except click.ClickException as exc:
            if isinstance(exc, click.UsageError):
                raise  # click's usage lines, worded in the command line's language (words.py)
            # A refusal a command worded itself (in its language): only the prefix is click's.
            lang = ctx.meta.get(LANG_KEY) or spoken()
            click.echo(tr(lang, "cli.error", message=exc.format_message()), err=True)
            ctx.exit(exc.exit_code)


def stop_behind(exc: BaseException, *kinds: type[BaseException]) -> BaseException | None:
    """The stop of one of ``kinds`` (Ctrl-C's KeyboardInterrupt by default) that ``exc`` wraps, if
    any: a stop in a compiled (numba) loop comes out as a SystemError caused by it."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, kinds or (KeyboardInterrupt,)):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


# Where a command leaves the language it speaks, so that its errors are worded in it too.
LANG_KEY = "py421.lang"


def _chosen_lang(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    ctx.meta[LANG_KEY] = value or spoken()
    return value


def _spoken_lang(ctx: click.Context, param: click.Parameter, value: str | None) -> str:
    ctx.meta[LANG_KEY] = value or spoken()
    return str(ctx.meta[LANG_KEY])


# play and table: None unless given, since a resumed game keeps the language it was saved with.
LANG_OPTION = click.option("--lang", type=click.Choice(LANGS), default=None, callback=_chosen_lang)

# Every other command: the language it prints in; when not given, the one asked for anywhere on the
# command line (421 --lang fr rules list), else the locale's.
SAY_OPTION = click.option("--lang", type=click.Choice(LANGS), default=None, callback=_spoken_lang)


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


# off a terminal, how often a stage that lasts has its latest text written again (:func:`stages`)
LOGGED_EVERY = 60.0


@contextlib.contextmanager
def stages() -> Iterator[Callable[[str, str], None]]:
    """Say how far a long computation is on the error stream: ``say(text, stage)``.

    On a terminal, one line with a spinner shows the latest text; elsewhere (a log, a pipe)
    each stage gets one plain line, as it begins, and nothing is rewritten in place; a stage that
    lasts (a pass of a large game takes minutes) gets its latest text again, at most every
    :data:`LOGGED_EVERY` seconds, so that a log shows it is still under way.
    """
    from rich.console import Console

    console = Console(stderr=True)
    if console.is_terminal:
        with console.status("") as shown:
            yield lambda text, stage: shown.update(f"  {text}")
        return
    begun: set[str] = set()
    written, said = time.monotonic(), ""  # when a line was last written, and what it said

    def say(text: str, stage: str) -> None:
        nonlocal written, said
        now = time.monotonic()
        if stage not in begun or (now - written >= LOGGED_EVERY and text != said):
            begun.add(stage)
            written, said = now, text
            click.echo(f"  {text}", err=True)

    yield say


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


def prepare_optimal(rules: Ruleset, players: int, lang: str = "en") -> None:
    """Solve what bot:optimal plays before the game starts, saying how far it is on the error stream.

    A two-player ruleset is solved once per machine and kept (from about a second for
    classic-11 to about 30 s for vache-41 on two cores, about 3 min with « queue de la
    vache », each manche played for the game), and so is the whole game of three
    or four players (seconds for three players of classic-11, about a minute for four; five,
    about a quarter of an hour, only by 421 solve: until then each round is solved); rounds
    of more players take seconds.
    """
    from ..play.coach import progress_told
    from ..players.optimal import prepare
    from ..solver.strategy import covering

    def once(text: str) -> str:
        return tr(lang, "cli.once", what=tr(lang, "cli.optimal", what=text))

    if covering(rules, players) != "rounds":
        with stages() as say:
            prepare(rules, players, progress_told(rules, players, say, lang, once))
        unsolved_note(rules, players, lang)
        return
    with status(tr(lang, "cli.optimal", what=tr(lang, "cli.solving.rounds"))):
        prepare(rules, players)


def unsolved_note(rules: Ruleset, players: int, lang: str) -> None:
    """Say so on the error stream where bot:optimal plays round by round a whole game the solver
    covers but that is not solved on this machine (:func:`.strategy.solved_before_play`)."""
    from ..solver.strategy import covering, played

    if covering(rules, players) == "game_maxn" and played(rules, players) == "rounds":
        click.echo(tr(lang, "cli.optimal.unsolved", arguments=rules_on_line(rules), n=players), err=True)


def argument_hint(name: str) -> str:
    """An argument as click names it in an error (``'PRESET'``), in the command line's language."""
    return f"'{tr(spoken(), f'cli.metavar.{name}')}'"


class NamedPath(click.Path):
    """``click.Path`` that refuses an empty name (a ``"$VARIABLE"`` left unset), which a path would
    read as the current folder: a report written there, or "it is a folder" for a record."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():  # asked for what the option takes
            key = "cli.empty_path" + (
                ".file" if not self.dir_okay else ".folder" if not self.file_okay else ""
            )
            self.fail(tr(spoken(), key), param, ctx)
        return super().convert(value, param, ctx)


def _unreadable(path: object, exc: OSError | UnicodeDecodeError, param_hint: str) -> click.BadParameter:
    """A file that cannot be read, blamed on the argument that named it, why in the user's words."""
    said = tr(spoken(), "cli.cannot_read", path=path, reason=error_text(spoken(), system_reason(exc)))
    return click.BadParameter(said, param_hint=param_hint)


def named_in(record: Record, lang: str) -> Record:
    """The record, checked as it was stored (it replays to its summary), with its bots named in
    ``lang`` for showing it: a game played in English reads « Heuristique 1 » in French."""
    import dataclasses

    from ..players.registry import bot_name_in

    record.replay()
    names = tuple(bot_name_in(name, lang) for name in record.players)
    return dataclasses.replace(record, players=names, final=None, expected=None)


def read_record(path: Path, param_hint: str | None = None) -> Record:
    """The record in a file; a file that cannot be read is blamed on the argument that named it."""
    from ..core.record import Record

    param_hint = param_hint or argument_hint("record_file")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _unreadable(path, exc, param_hint) from None
    return Record.from_json(text)


def people_seats(players: str, *, new: bool = True) -> list[Seat]:
    """The scorekeeper's seats from ``"Alice,Bob"``: people only, since nobody throws a bot's dice;
    held to the most a name has, unless they name a game saved before (``new=False``)."""
    from ..core.engine import check_name
    from ..play.session import Seat

    seats = []
    for raw in players.split(","):
        name = raw.strip()
        if name.lower().startswith("bot:"):
            raise InvalidPlayers(
                Message(
                    "players.scorekeeper_bot",
                    {"name": repr(name)},
                )
            )
        seats.append(Seat(check_name(name) if new else name))
    return seats
