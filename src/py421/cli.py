"""The ``421`` command: thin wrappers around the core and the play loop."""

from __future__ import annotations

import functools
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .core.combos import compare as compare_results
from .core.dice import Result, format_dice
from .core.errors import Py421Error
from .core.record import Record
from .core.rules import Ruleset, accepted, option_fields, preset_names
from .extras import require
from .i18n import LANGS, detect_lang, tr
from .play_plain import InputEnded, run_plain
from .scorekeeper import run_table
from .sim.session import Seat, Session, parse_seats
from .text import describe, outcome_text

if TYPE_CHECKING:
    from .solver.rounds import Objective


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


class _Errors(click.Group):
    """Show py421's own errors as one clear line and exit with status 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except Py421Error as exc:
            click.echo(f"Error: {exc}", err=True)
            ctx.exit(2)


@click.group(cls=_Errors, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="py421", prog_name="421")
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
@SET_OPTION
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
@with_rules
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def compare(first: str, second: str, rules: Ruleset, as_json: bool) -> None:
    """Which of two results wins, and why (e.g. 421 compare 611 666)."""
    a, b = Result.parse(first), Result.parse(second)
    cmp = compare_results(rules.table, a, b, ace_high=rules.ace_high)
    if as_json:
        rows = {
            str(x): {
                "category": rules.table.categories[x].value,
                "rank": rules.table.rank(x),
                "value": rules.table.values[x],
            }
            for x in (a, b)
        }
        winner = str(cmp.winner) if cmp.winner else None
        data = {"rules": rules.name, "winner": winner, "reason": cmp.reason, "results": rows}
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    if cmp.winner is None:
        click.echo(f"{a} ties with {b} under {rules.name}: {cmp.reason}")
    else:
        loser = b if cmp.winner == a else a
        click.echo(f"{cmp.winner} beats {loser} under {rules.name}: {cmp.reason}")
    for x in dict.fromkeys((a, b)):
        label = rules.table.categories[x].label
        click.echo(f"  {x}  {label:<15} rank {rules.table.rank(x):>2} of 56, worth {rules.table.values[x]}")


# -- strategy ----------------------------------------------------------------


@main.command()
@click.argument("target")
@with_rules
@click.option("--throws", type=click.IntRange(1, 3), default=3, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def odds(target: str, rules: Ruleset, throws: int, as_json: bool) -> None:
    """The chance that a fresh turn of up to N throws, played for it, beats TARGET."""
    from .solver.turn import exact_odds

    result = Result.parse(target)
    p = exact_odds(rules.table, result, throws)
    if as_json:
        data = {"target": str(result), "throws": throws, "probability": float(p), "exact": str(p)}
        click.echo(json.dumps(data))
        return
    click.echo(
        f"P(better than {result} in up to {throws} throw{'s' * (throws > 1)}, "
        f"{rules.name}) = {float(p):.6f} = {p}"
    )


def _finals(text: str | None) -> tuple[Result, ...]:
    if not text:
        return ()
    return tuple(Result.parse(part) for part in text.replace(";", ",").split(",") if part.strip())


def _pair(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    parts = text.split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise click.BadParameter(f"expected two counts like 5,6 (yours, then the other's), not {text!r}")
    return int(parts[0]), int(parts[1])


@main.command()
@click.argument("dice")
@with_rules
@click.option("--throws-left", type=click.IntRange(0, 2), required=True, help="Throws still allowed.")
@click.option("--target", default=None, help="The result to beat (default: a fresh coup sec).")
@click.option(
    "--objective",
    type=click.Choice(["target", "coup-sec", "loser", "tokens", "game"]),
    default=None,
    help="What to maximise: beating --target, beating a coup sec, not losing the round, "
    "the round's tokens, or (two players) not losing the manche.",
)
@click.option("--players", type=click.IntRange(2), default=None, help="Players in this round.")
@click.option("--before", default=None, help="Results already final this round, leader first: 653,221.")
@click.option("--limit", type=click.IntRange(1, 3), default=None, help="Throws the leader used.")
@click.option("--phase", type=click.Choice(["charge", "decharge"]), default="decharge", show_default=True)
@click.option("--pot", type=click.IntRange(0), default=None, help="Tokens left in the pot (charge).")
@click.option("--tokens", default=None, help="Two players: your tokens and the other's, like 5,6.")
@click.option("--stake", type=click.IntRange(0), default=0, help="Accumulated stake so far this round.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def advise(
    dice: str,
    rules: Ruleset,
    throws_left: int,
    target: str | None,
    objective: str | None,
    players: int | None,
    before: str | None,
    limit: int | None,
    phase: str,
    pot: int | None,
    tokens: str | None,
    stake: int,
    as_json: bool,
) -> None:
    """Every choice with DICE in hand, ranked by its exact value."""
    from .solver import advice as solver

    held = Result.parse(dice)
    goal = Result.parse(target) if target is not None else None
    chosen = objective or ("target" if goal is not None else "coup-sec")
    if chosen == "target" and goal is None:
        raise click.UsageError("--objective target needs --target RESULT")
    finals = _finals(before)
    context = solver.RoundContext(
        players or max(2, len(finals) + 1),
        finals,
        limit,
        phase == "charge",
        pot,
        _pair(tokens),
        stake,
    )
    try:
        if chosen in ("target", "coup-sec"):
            result = solver.advise(rules.table, held, throws_left, goal if chosen == "target" else None)
        elif chosen == "game":
            result = solver.advise_game(rules, held, throws_left, context)
        else:
            round_objective: Objective = "loser" if chosen == "loser" else "tokens"
            result = solver.advise_round(rules, held, throws_left, context, round_objective)
    except ValueError as e:
        raise click.UsageError(str(e)) from e
    rows = [
        {"keep": str(held) if o.stop else format_dice(o.keep), "stop": o.stop, "value": o.value}
        for o in result.options
    ]
    if as_json:
        click.echo(json.dumps({"objective": result.objective, "options": rows}, indent=2))
        return
    click.echo(
        f"{held} with {throws_left} throw{'s' * (throws_left != 1)} left, {rules.name}: {result.objective}"
    )
    for o in result.options:
        if o.stop:
            what = f"stop on {held}"
        elif o.keep:
            what = f"keep {format_dice(o.keep)}, throw {3 - len(o.keep)}"
        else:
            what = "throw all three"
        click.echo(f"  {o.value:.6f}  {what}")


@main.command()
@with_rules
@click.option(
    "--ties",
    type=click.Choice(["half", "rampot"]),
    default="rampot",
    show_default=True,
    help="Count a tie as half a win, or settle it as the preset does.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def duel(rules: Ruleset, ties: str, as_json: bool) -> None:
    """The heads-up duel: one round, the first player sets the limit, best result wins."""
    from .solver.duel import solve_duel

    result = solve_duel(rules, "half" if ties == "half" else "rampot")
    if as_json:
        data = {"rules": rules.name, "ties": ties, "first_player_wins": result.first_wins}
        click.echo(json.dumps(data))
        return
    click.echo(
        f"{rules.name}, both playing optimally, ties {'count half' if ties == 'half' else 'settled'}: "
        f"the first player wins {result.first_wins:.4%}, the second {1 - result.first_wins:.4%}"
    )


@main.command()
@with_rules
@click.option("--players", type=click.IntRange(2), default=2, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def solve(rules: Ruleset, players: int, as_json: bool) -> None:
    """Results of optimal play: for two players each seat's chance of losing the game;
    for more, each position's value of a round played by max^n."""
    from .solver.heads_up import game_outcome
    from .solver.store import solve_cached

    if not rules.seats(players):
        raise click.UsageError(f"{rules.name} is played by {rules.players_range} players, not {players}")
    if players != 2:
        _solve_rounds(rules, players, as_json)
        return

    def progress(stage: str, step: int) -> None:
        if not as_json:
            click.echo(f"\r  solving the {stage}: {step}", nl=False, err=True)

    solved, cached = solve_cached(rules, progress)
    if not as_json:
        click.echo("\r" + " " * 40 + "\r", nl=False, err=True)
    w = solved.manche_loss()
    outcome = game_outcome(rules, w)
    data = {
        "rules": rules.name,
        "players": 2,
        "manche_loss_first_leader": w,
        "lose": {"first_leader": outcome.lose[0], "other": outcome.lose[1]},
        "shared": outcome.shared,
        "first_player_advantage": outcome.lose[1] - outcome.lose[0],
        "first_player_drawn": rules.first_player != "first_seat",
        "iterations": solved.iterations,
        "cached": cached,
    }
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    click.echo(f"{rules.name}, two players, both playing optimally:")
    click.echo(f"  the first round's leader loses a manche {w:.6%} of the time")
    click.echo(f"  P(lose the game): first leader {outcome.lose[0]:.6%}, other {outcome.lose[1]:.6%}")
    if outcome.shared:
        click.echo(f"  shared loss: {outcome.shared:.6%}")
    click.echo(f"  first-player advantage: {data['first_player_advantage']:+.6%}")
    if data["first_player_drawn"]:
        click.echo("  (this preset draws the first player, so each seat leads first half the time)")


def _solve_rounds(rules: Ruleset, players: int, as_json: bool) -> None:
    from .solver.rounds import round_for, unsupported

    phases: dict[str, dict[str, Any]] = {}
    for phase, charge in (("charge", True), ("decharge", False)):
        values = round_for(rules, players, charge, rules.pot)
        modelled = unsupported(rules, charge, "tokens") is None  # accumulated stakes are not
        positions = [
            {"position": i + 1, "not_losing": float(p), "tokens": float(t) if modelled else None}
            for i, (p, t) in enumerate(zip(values.not_losing, values.tokens, strict=True))
        ]
        phases[phase] = {"objective": values.objective, "positions": positions}
    if as_json:
        data = {"rules": rules.name, "players": players, "method": "max^n rounds", "rounds": phases}
        click.echo(json.dumps(data, indent=2))
        return
    click.echo(f"{rules.name}, {players} players, every round played by max^n (see docs/strategy.md):")
    for phase, found in phases.items():
        name = "the charge, full pot" if phase == "charge" else "the décharge"
        click.echo(f"  a round of {name}, each maximising {found['objective']}:")
        for row in found["positions"]:
            tokens = "" if row["tokens"] is None else f", tokens {row['tokens']:+.4f}"
            click.echo(f"    position {row['position']}: not the loser {row['not_losing']:.4%}{tokens}")
    click.echo("  (game-level chances are solved for two players only)")


# -- simulation ------------------------------------------------------------


@main.command()
@with_rules
@click.option(
    "--players",
    default="bot:heuristic,bot:heuristic",
    show_default=True,
    help="One bot per seat, in seating order: bot:random, bot:heuristic or bot:optimal.",
)
@click.option("--games", type=click.IntRange(1), default=100_000, show_default=True)
@click.option(
    "--seed", type=click.IntRange(0), default=0, show_default=True, help="The same seed, the same games."
)
@click.option("--workers", type=click.IntRange(1), default=None, help="Processes (default: one per core).")
@click.option("--scheduler", default=None, metavar="ADDRESS", help="Run on a Dask cluster (the dask extra).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (keys in docs/simulation.md).")
def simulate(
    rules: Ruleset,
    players: str,
    games: int,
    seed: int,
    workers: int | None,
    scheduler: str | None,
    as_json: bool,
) -> None:
    """Play many games between bots, fast, and count what happened."""
    require("sim", "421 simulate")
    if scheduler is not None:
        require("dask", "421 simulate --scheduler")
    from .players.optimal import whole_game
    from .sim.simulate import Simulation, Summary, default_workers, parse_players, run

    sim = Simulation(rules, parse_players(players), games, seed)
    if "optimal" in sim.levels and whole_game(rules, len(sim.levels)):
        _prepare_optimal(rules, as_json, workers or default_workers())
    workers = workers or min(default_workers(), sim.batch_count)
    started = time.perf_counter()
    with _progress_bar(games, "simulating") as advance:
        counts = run(sim, workers, advance, scheduler)
    elapsed = time.perf_counter() - started
    summary = Summary(sim, counts, workers if scheduler is None else 0)
    summary.extra = {"seconds": elapsed, "scheduler": scheduler}
    data = summary.to_dict()
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    click.echo(simulation_text(data))


@main.command()
@click.option(
    "--rules",
    "presets",
    multiple=True,
    type=click.Choice(preset_names()),
    help="A preset (repeat; default: all).",
)
@click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), required=True, help="Folder to write."
)
@click.option(
    "--games", type=click.IntRange(100), default=20_000, show_default=True, help="Games per match-up."
)
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True)
@click.option("--workers", type=click.IntRange(1), default=None, help="Processes (default: one per core).")
def report(presets: tuple[str, ...], out: Path, games: int, seed: int, workers: int | None) -> None:
    """Write an HTML page of plots and tables: odds, bots against bots, game lengths, first leaders."""
    require("report", "421 report")
    from .report import build_report
    from .sim.simulate import default_workers

    chosen = [Ruleset.preset(name) for name in presets or preset_names()]
    page = build_report(
        chosen, out, games, seed, workers or default_workers(), lambda text: click.echo(f"  {text}", err=True)
    )
    click.echo(f"report written: {page}")


def _prepare_optimal(rules: Ruleset, quiet: bool, workers: int) -> None:
    """Solve the two-player game and build the bot's tables (or load them) before the workers need them."""
    from .sim.fast.stored import build_tables
    from .solver.store import solve_cached

    def say(text: str) -> None:
        if not quiet:
            click.echo(f"\r  {text} (once per machine)", nl=False, err=True)

    solve_cached(rules, lambda stage, step: say(f"solving the {stage} for the optimal bot: {step}"))
    build_tables(rules, workers, lambda done, total: say(f"building the optimal bot's tables {done}/{total}"))
    if not quiet:
        click.echo("\r" + " " * 78 + "\r", nl=False, err=True)


class _progress_bar:
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


def simulation_text(data: dict[str, Any]) -> str:
    """What ``421 simulate`` prints without ``--json``."""
    rate = data["games"] / data["seconds"] if data.get("seconds") else 0
    lines = [
        f"{data['rules']}: {data['games']:,} games, seed {data['seed']}"
        + (f", {rate:,.0f} games/s" if rate else "")
    ]
    width = max(len(s["player"]) for s in data["seats"])
    for s in data["seats"]:
        low, high = s["ci95"]
        lines.append(
            f"  seat {s['seat']}  {s['player']:<{width}}  lost {s['loss_rate']:7.3%}"
            f"  (95 % interval {low:.3%} to {high:.3%})"
        )
    out = data["outcomes"]
    if out["shared"]:
        lines.append(f"  shared losses: {out['shared']:,} games (each sharer counts a loss)")
    if out["grand_perdant"]:
        lines.append(f"  « grand perdant » (lost every manche): {out['grand_perdant']:,} games")
    first = data["first_player"]
    lines.append(
        f"  first round's leader lost {first['loss_rate']:.3%}, the others {first['others_loss_rate']:.3%}:"
        f" advantage {first['advantage'] * 100:+.2f} points"
    )
    for what in ("rounds", "throws"):
        d = data["length"][what]
        lines.append(
            f"  {what} per game: mean {d['mean']:.1f}, median {d['median']},"
            f" 90 % within {d['p90']}, most {d['max']}"
        )
    lines.append("  tokens per game (taken from the pot / given / received in the décharge):")
    for s in data["seats"]:
        lines.append(
            f"    seat {s['seat']}: {s['tokens_taken_per_game']:.2f} / {s['tokens_given_per_game']:.2f}"
            f" / {s['tokens_received_per_game']:.2f}"
        )
    top = sorted(data["results"].items(), key=lambda kv: -kv[1])[:5]
    lines.append("  results thrown most: " + ", ".join(f"{r} {p:.2%}" for r, p in top))
    if data["unfinished"]:
        lines.append(f"  {data['unfinished']:,} games were stopped unfinished after 100,000 rounds")
    return "\n".join(lines)


# -- replay ----------------------------------------------------------------


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
    from .server.limits import Limits
    from .server.optimal import Budget

    for flag, field, kind, text in reversed(SERVE_LIMITS):
        default = getattr(Budget() if flag.startswith("--optimal") else Limits(), field)
        dest = flag[2:].replace("-", "_") if flag.startswith("--optimal") else field
        option = click.option(flag, dest, type=kind, default=default, show_default=True, help=text)
        command = option(command)
    return command


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(1, 65535), default=8421, show_default=True)
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
def serve(
    host: str,
    port: int,
    db_url: str | None,
    bot_delay: float,
    optimal_seconds: float,
    optimal_memory: int,
    **limits: Any,
) -> None:
    """Online tables: friends play in the browser, bots fill the empty seats.

    Every limit has a default fit for the internet (docs/online.md lists them).
    """
    require("server", "421 serve")
    if db_url and db_url.startswith(("postgresql", "postgres:")):
        require("postgres", "421 serve on PostgreSQL")
    import uvicorn

    from .server.app import create_app
    from .server.limits import Limits
    from .server.optimal import Budget
    from .storage import data_dir

    url = db_url or f"sqlite:///{data_dir() / 'server.sqlite3'}"
    budget = Budget(seconds=optimal_seconds, memory_mb=optimal_memory)
    app = create_app(url, bot_delay=bot_delay, limits=Limits(**limits), budget=budget)
    click.echo(f"py421 tables on http://{host}:{port} (database: {url.split('@')[-1]})", err=True)
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


@main.command()
@click.argument("record_file", type=click.Path(dir_okay=False, path_type=Path))
def verify(record_file: Path) -> None:
    """Check an online game's dice: the seed matches its hash and gives every throw."""
    from .server.verify import verify as check

    record = _read_record(record_file)
    verdict = check(record)
    if verdict.seed_hash is not None:
        click.echo(f"seed hash: {verdict.seed_hash} (compare it with the one shown when the table was made)")
    if verdict.problems:
        for line in verdict.problems:
            click.echo(line, err=True)
        raise SystemExit(1)
    click.echo(
        f"fair: the seed matches its published hash and gives all {verdict.throws} throws of the record"
    )


def _read_record(path: Path) -> Record:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise click.BadParameter(f"cannot read {path}: {exc}") from None
    return Record.from_json(text)


@main.command()
@click.argument("record_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--log", is_flag=True, help="Print every step of the game.")
def replay(record_file: Path, log: bool) -> None:
    """Replay a game record and print its outcome."""
    record = _read_record(record_file)
    final = record.replay()
    if log:
        _print_replay(record, "en")
    click.echo(f"{record.rules.name}, {', '.join(record.players)}: {final.steps} steps replayed")
    click.echo(outcome_text(final))


# -- play and keep score -----------------------------------------------------

LANG_OPTION = click.option(
    "--lang",
    type=click.Choice(LANGS),
    default=None,
    help="Language of the game (default: French where the system locale is French).",
)


@main.command()
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
        from .tui.app import PlayApp

        PlayApp(session, lang=language, bot_delay=bot_delay, on_step=on_step).run()
    _finish(session, save_id, "play", record_path, language)


@main.command("table")
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
    from . import storage  # the database library loads only for commands that save

    return storage.new_save_id()


def _resume(mode: str) -> tuple[Session, str, str | None]:
    from . import storage

    found = storage.latest_save(mode)
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
    from . import storage

    def save(session: Session) -> None:
        if not session.state.is_over:
            storage.write_save(save_id, session.to_save(mode=mode, lang=lang))

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
    from . import storage

    if not session.state.is_over:
        return
    bots = {i: s.bot for i, s in enumerate(session.seats) if s.bot}
    storage.History().add(session.game, bots=bots, source=mode)
    storage.clear_save(save_id)
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


# -- history and statistics ---------------------------------------------------


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def stats(as_json: bool) -> None:
    """Per player: games, losses, 421s and nénettes thrown, tokens taken."""
    from . import storage

    rows = storage.History().stats()
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


@main.command()
@click.argument("game_id", type=int, required=False)
@click.option("--limit", type=click.IntRange(1, 10_000), default=20, show_default=True)
@click.option("--lang", type=click.Choice(LANGS), default=None, help="Language of the replay.")
def history(game_id: int | None, limit: int, lang: str | None) -> None:
    """List finished games; with a number, replay that game step by step."""
    from . import storage

    store = storage.History()
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
    from .core.game import Game

    game = Game(record.rules, record.players, first_seat=record.first_seat)
    for event in game.state.events:
        click.echo(describe(event, game.players, lang))
    for step in record.steps:
        for event in game.apply_step(step).events:
            click.echo(describe(event, game.players, lang))
    click.echo(outcome_text(game.state, lang))
