"""``421 simulate`` and ``421 report``: many games between bots, and the page of plots."""

from __future__ import annotations

import contextlib
import functools
import json
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click

from ..core.errors import Message
from ..core.rules import Ruleset, named_with, preset_names
from ..extras import require
from ..i18n import num, tr
from ..paths import make_out_folder
from ..play.coach import progress_told
from .common import (
    SAY_OPTION,
    Command,
    NamedPath,
    progress_bar,
    seat_policies,
    stages,
    status,
    stop_behind,
    unsolved_note,
    with_rules,
)

STOPPED_BY_CTRL_C, STOPPED_BY_SIGTERM = 128 + signal.SIGINT, 128 + signal.SIGTERM


def _stopped_by_sigterm(command: Callable[..., None]) -> Callable[..., None]:
    """``command`` with SIGTERM raised as :class:`.Terminated` while it runs; one that comes before
    the games (a solve, the compiling) is said as such, with SIGTERM's exit status."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> None:
        from ..sim.stopping import Terminated

        try:
            with _sigterm_raises(Terminated):
                command(*args, **kwargs)
        except Terminated:
            click.echo(tr(kwargs.get("lang", "en"), "sim.stopped"), err=True)
            sys.exit(STOPPED_BY_SIGTERM)

    return run


@click.command(cls=Command)
@with_rules
@click.option("--players", default="bot:heuristic,bot:heuristic", show_default=True)
@click.option("--games", type=click.IntRange(1), default=100_000, show_default=True)
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True)
@click.option("--workers", type=click.IntRange(1), default=None)
@click.option("--scheduler", default=None, metavar="ADDRESS")
@click.option("--json", "as_json", is_flag=True)
@SAY_OPTION
@_stopped_by_sigterm
def simulate(
    rules: Ruleset,
    players: str,
    games: int,
    seed: int,
    workers: int | None,
    scheduler: str | None,
    as_json: bool,
    lang: str,
) -> None:
    require("sim", "421 simulate")
    seat_policies()
    if scheduler is not None:
        require("dask", "421 simulate --scheduler")
    from ..sim.simulate import (
        Simulation,
        Summary,
        Terminated,
        default_workers,
        new_counts,
        parse_players,
        run,
        summary_text,
    )
    from ..solver.strategy import covering

    sim = Simulation(rules, parse_players(players), games, seed)
    seated = len(sim.levels)
    if "optimal" in sim.levels and covering(rules, seated) != "rounds":
        _prepare_optimal(rules, seated, as_json, workers or default_workers(), lang)
    workers = workers or min(default_workers(), sim.batch_count)
    if _engine_played(sim.engine_levels, lang):  # bots the fast simulator does not play: the engine plays
        workers = 1
    # The kernel is compiled once per machine (a minute or two): before the timer, so games/s is the speed.
    started = time.perf_counter()
    if scheduler is None and sim.compiled:
        _kernel_ready(rules, len(sim.levels), lang)
    warmed = time.perf_counter()
    counts = new_counts()
    stopped: str | None = None  # by what: Ctrl-C (SIGINT) or SIGTERM, the games finished kept
    try:
        with progress_bar(games, tr(lang, "cli.sim.progress")) as bar:
            run(sim, workers, bar.advance, scheduler, total=counts)
    except KeyboardInterrupt:
        stopped = "SIGINT"
    except Terminated:
        stopped = "SIGTERM"
    except SystemError as exc:  # a stop in the compiled loop of a batch played here comes out wrapped
        cause = stop_behind(exc, KeyboardInterrupt, Terminated)
        if cause is None:
            raise
        stopped = "SIGTERM" if isinstance(cause, Terminated) else "SIGINT"
    elapsed = time.perf_counter() - warmed
    summary = Summary(sim, counts, workers if scheduler is None else 0)
    extra: dict[str, Any] = {
        "seconds": elapsed,
        "warm_up_seconds": warmed - started,
        "scheduler": scheduler,
        "played_by": "compiled" if sim.compiled else "engine",
    }
    if stopped is not None:
        extra |= {"partial": True, "games_asked": games, "stopped_by": stopped}
    summary.extra = extra
    data = summary.to_dict()
    if as_json:
        click.echo(json.dumps(data, indent=2))
    else:
        if stopped is not None:
            said = tr(lang, "sim.signal.ctrl_c" if stopped == "SIGINT" else "sim.signal.sigterm")
            done, asked = num(lang, data["games"], ","), num(lang, games, ",")
            click.echo(tr(lang, "sim.partial", signal=said, done=done, asked=asked))
        if data["games"]:
            click.echo(summary_text(data, lang))
    if stopped is not None:
        sys.exit(STOPPED_BY_CTRL_C if stopped == "SIGINT" else STOPPED_BY_SIGTERM)


@contextlib.contextmanager
def _sigterm_raises(exception: type[BaseException]) -> Iterator[None]:
    """SIGTERM raises ``exception`` in the main thread while in the ``with``, as Ctrl-C raises
    KeyboardInterrupt: what is under way is cleaned up (the worker processes ended, the partial
    totals said) rather than the process dropped with its workers (and the resource tracker's
    "leaked semaphore objects" warning)."""
    try:
        before = signal.getsignal(signal.SIGTERM)
    except ValueError:  # not the main thread: nothing to catch there
        yield
        return

    def raised(signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # once: a second one does not cut the clean-up
        raise exception

    signal.signal(signal.SIGTERM, raised)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


# About half a minute for every preset once the optimal bot's tables are built (docs/simulation.md):
# the games fit in one batch, played in this process, so no process is started for each match-up.
REPORT_GAMES = 10_000


@click.command(cls=Command)
@click.option("--rules", "presets", multiple=True, type=click.Choice(preset_names()))
@click.option("--out", type=NamedPath(file_okay=False, path_type=Path), required=True)
@click.option("--games", type=click.IntRange(100), default=REPORT_GAMES, show_default=True)
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True)
@click.option("--workers", type=click.IntRange(1), default=None)
@SAY_OPTION
def report(
    presets: tuple[str, ...], out: Path, games: int, seed: int, workers: int | None, lang: str
) -> None:
    require("report", "421 report")
    from ..report import build_report, report_steps
    from ..sim.simulate import default_workers

    make_out_folder(out, Message("path.report"))
    chosen = [Ruleset.preset(name) for name in presets or preset_names()]
    compile_kernel(lang)
    with progress_bar(report_steps(chosen), tr(lang, "cli.report.progress")) as bar:
        steps = 0

        def step(text: str) -> None:
            # The bar counts the steps finished and names the one running; a log gets a line each.
            nonlocal steps
            if bar.shown:
                bar.advance(min(steps, 1), text)
                steps += 1
            else:
                click.echo(f"  {text}", err=True)

        page = build_report(
            chosen,
            out,
            games,
            seed,
            workers or default_workers(),
            step,
            lambda text: bar.advance(0, text),
            lang=lang,
        )
    click.echo(tr(lang, "cli.report", page=page))


def compile_kernel(lang: str) -> None:
    """The simulator's kernel compiled in a process of its own if numba's cache lacks it, saying for
    how long; a Ctrl-C stops the command and lets the compiling finish for the next run (see
    :mod:`py421.sim.fast.compiling`)."""
    from ..sim.fast.compiling import compile_apart

    def waiting(seconds: float) -> None:
        # a log gets the line once; a terminal's spinner counts the minutes and seconds
        if seconds < 1:
            say(tr(lang, "cli.sim.compiling"), "compiling")
        else:
            clock = f"{int(seconds) // 60}:{int(seconds) % 60:02d}"
            say(tr(lang, "cli.sim.compiling_since", elapsed=clock), "compiling")

    try:
        with stages() as say:
            compile_apart(waiting)
    except KeyboardInterrupt:
        click.echo(tr(lang, "cli.sim.compiling_goes_on"), err=True)
        sys.exit(130)


def _prepare_optimal(rules: Ruleset, players: int, quiet: bool, workers: int, lang: str) -> None:
    """Solve the game (or load it) before the workers need it; at two players, build the bot's tables too."""
    from ..sim.fast.bot_tables import build_tables
    from ..solver.strategy import TWO_PLAYERS, strategy_for

    with stages() as shown:

        def say(text: str, stage: str) -> None:
            if not quiet:
                shown(tr(lang, "cli.once", what=text), stage)

        # three to five: the whole game, which each process reads; two: the manche (or the game
        # manche by manche), then the bot's tables
        told = progress_told(rules, players, say, lang, lambda text: tr(lang, "cli.sim.optimal", what=text))
        strategy = strategy_for(rules, players, progress=told)
        if not quiet:
            unsolved_note(rules, players, lang)
        if strategy.covering in TWO_PLAYERS:  # the bot's tables, which each process reads
            build_tables(
                rules,
                workers,
                lambda done, total: say(tr(lang, "cli.sim.tables", done=done, total=total), "tables"),
            )


@click.command(cls=Command)
@with_rules
@click.option("--players", default="bot:random,bot:heuristic,bot:optimal", show_default=True)
@click.option("--games", type=click.IntRange(1), default=2_000, show_default=True)
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True)
@click.option("--workers", type=click.IntRange(1), default=None)
@click.option("--json", "as_json", is_flag=True)
@SAY_OPTION
def ladder(
    rules: Ruleset, players: str, games: int, seed: int, workers: int | None, as_json: bool, lang: str
) -> None:
    require("sim", "421 ladder")
    seat_policies()
    from ..sim.fast.policy import KINDS
    from ..sim.ladder import check_levels, play_ladder
    from ..sim.simulate import default_workers, parse_players
    from ..solver.strategy import two_player_game

    levels = parse_players(players)
    check_levels(levels)  # before any solving, compiling or notice
    workers = workers or default_workers()
    if "optimal" in levels and two_player_game(rules, 2):
        _prepare_optimal(rules, 2, as_json, workers, lang)
    _engine_played(tuple(level for level in levels if level not in KINDS), lang)
    if any(level in KINDS for level in levels):
        _kernel_ready(rules, 2, lang)
    with stages() as say:
        result = play_ladder(
            rules,
            levels,
            games,
            seed,
            workers,
            lambda a, b: say(tr(lang, "cli.ladder.pair", first=f"bot:{a}", second=f"bot:{b}"), f"{a}-{b}"),
        )
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2))
        return
    click.echo(
        tr(
            lang,
            "cli.ladder.title",
            rules=named_with(result.rules, result.options),
            games=num(lang, games, ","),
            seed=seed,
        )
    )
    width = max(len(s.level) for s in result.standings) + 4
    for place, s in enumerate(result.standings, start=1):
        click.echo(
            tr(
                lang,
                "cli.ladder.row",
                place=place,
                bot=f"bot:{s.level}".ljust(width),
                mu=num(lang, s.mu, ".1f"),
                sigma=num(lang, s.sigma, ".1f"),
                ordinal=num(lang, s.ordinal, ".1f"),
                score=num(lang, s.score, ".3f"),
                games=num(lang, s.games, ","),
            )
        )
    click.echo(tr(lang, "cli.ladder.pairs"))
    for p in result.pairings:
        score = num(lang, p.score(p.first), ".3f")
        click.echo(
            tr(lang, "cli.ladder.pair_row", first=f"bot:{p.first}", second=f"bot:{p.second}", score=score)
        )


def _engine_played(levels: tuple[str, ...], lang: str) -> bool:
    """Say on the error stream which bots the engine plays (no compiled twin here); whether any does."""
    slow = ", ".join(f"bot:{level}" for level in levels)
    if slow:
        click.echo(tr(lang, "cli.sim.engine", bots=slow), err=True)
    return bool(slow)


def _kernel_ready(rules: Ruleset, players: int, lang: str) -> None:
    """The simulator compiled (once per machine) and loaded in this process, saying so meanwhile."""
    from ..sim.simulate import warm_up

    compile_kernel(lang)
    with status(tr(lang, "cli.sim.warm_up")):
        warm_up(rules, players)
