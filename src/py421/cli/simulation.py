"""``421 simulate`` and ``421 report``: many games between bots, and the page of plots."""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from ..core.rules import Ruleset, preset_names
from ..extras import require
from .common import progress_bar, with_rules


@click.command()
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
    from ..players.optimal import whole_game
    from ..sim.simulate import Simulation, Summary, default_workers, parse_players, run, summary_text

    sim = Simulation(rules, parse_players(players), games, seed)
    if "optimal" in sim.levels and whole_game(rules, len(sim.levels)):
        _prepare_optimal(rules, as_json, workers or default_workers())
    workers = workers or min(default_workers(), sim.batch_count)
    started = time.perf_counter()
    with progress_bar(games, "simulating") as advance:
        counts = run(sim, workers, advance, scheduler)
    elapsed = time.perf_counter() - started
    summary = Summary(sim, counts, workers if scheduler is None else 0)
    summary.extra = {"seconds": elapsed, "scheduler": scheduler}
    data = summary.to_dict()
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    click.echo(summary_text(data))


@click.command()
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
    from ..report import build_report
    from ..sim.simulate import default_workers

    chosen = [Ruleset.preset(name) for name in presets or preset_names()]
    page = build_report(
        chosen, out, games, seed, workers or default_workers(), lambda text: click.echo(f"  {text}", err=True)
    )
    click.echo(f"report written: {page}")


def _prepare_optimal(rules: Ruleset, quiet: bool, workers: int) -> None:
    """Solve the two-player game and build the bot's tables (or load them) before the workers need them."""
    from ..sim.fast.bot_tables import build_tables
    from ..solver.solutions import solve_cached

    def say(text: str) -> None:
        if not quiet:
            click.echo(f"\r  {text} (once per machine)", nl=False, err=True)

    solve_cached(rules, lambda stage, step: say(f"solving the {stage} for the optimal bot: {step}"))
    build_tables(rules, workers, lambda done, total: say(f"building the optimal bot's tables {done}/{total}"))
    if not quiet:
        click.echo("\r" + " " * 78 + "\r", nl=False, err=True)
