"""``421 odds``, ``advise``, ``duel`` and ``solve``: exact values of choices, duels and whole games."""

from __future__ import annotations

import json
from typing import Literal, get_args

import click

from ..core.dice import Result, format_dice
from ..core.rules import Ruleset
from .common import with_rules

# What `421 advise` can maximise; loser and tokens are the round solver's objectives.
Goal = Literal["target", "coup-sec", "loser", "tokens", "game"]
Phase = Literal["charge", "decharge"]


@click.command()
@click.argument("target")
@with_rules
@click.option("--throws", type=click.IntRange(1, 3), default=3, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def odds(target: str, rules: Ruleset, throws: int, as_json: bool) -> None:
    """The chance that a fresh turn of up to N throws, played for it, beats TARGET."""
    from ..solver.turn import exact_odds

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


@click.command()
@click.argument("dice")
@with_rules
@click.option("--throws-left", type=click.IntRange(0, 2), required=True, help="Throws still allowed.")
@click.option("--target", default=None, help="The result to beat (default: a fresh coup sec).")
@click.option(
    "--objective",
    type=click.Choice(get_args(Goal)),
    default=None,
    help="What to maximise: beating --target, beating a coup sec, not losing the round, "
    "the round's tokens, or (two players) not losing the manche.",
)
@click.option("--players", type=click.IntRange(2), default=None, help="Players in this round.")
@click.option("--before", default=None, help="Results already final this round, leader first: 653,221.")
@click.option("--limit", type=click.IntRange(1, 3), default=None, help="Throws the leader used.")
@click.option("--phase", type=click.Choice(get_args(Phase)), default="decharge", show_default=True)
@click.option("--pot", type=click.IntRange(0), default=None, help="Tokens left in the pot (charge).")
@click.option("--tokens", default=None, help="Two players: your tokens and the other's, like 5,6.")
@click.option("--stake", type=click.IntRange(0), default=0, help="Accumulated stake so far this round.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def advise(
    dice: str,
    rules: Ruleset,
    throws_left: int,
    target: str | None,
    objective: Goal | None,
    players: int | None,
    before: str | None,
    limit: int | None,
    phase: Phase,
    pot: int | None,
    tokens: str | None,
    stake: int,
    as_json: bool,
) -> None:
    """Every choice with DICE in hand, ranked by its exact value."""
    from ..solver import advice as solver

    held = Result.parse(dice)
    goal = Result.parse(target) if target is not None else None
    chosen: Goal = objective or ("target" if goal is not None else "coup-sec")
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
    match chosen:
        case "target" | "coup-sec":
            result = solver.advise(rules.table, held, throws_left, goal if chosen == "target" else None)
        case "game":
            result = solver.advise_game(rules, held, throws_left, context)
        case "loser" | "tokens":
            result = solver.advise_round(rules, held, throws_left, context, chosen)
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


@click.command()
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
    from ..solver.duel import solve_duel

    result = solve_duel(rules, "half" if ties == "half" else "rampot")
    if as_json:
        data = {"rules": rules.name, "ties": ties, "first_player_wins": result.first_wins}
        click.echo(json.dumps(data))
        return
    click.echo(
        f"{rules.name}, both playing optimally, ties {'count half' if ties == 'half' else 'settled'}: "
        f"the first player wins {result.first_wins:.4%}, the second {1 - result.first_wins:.4%}"
    )


@click.command()
@with_rules
@click.option("--players", type=click.IntRange(2), default=2, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def solve(rules: Ruleset, players: int, as_json: bool) -> None:
    """Results of optimal play: for two players each seat's chance of losing the game;
    for more, each position's value of a round played by max^n."""
    from ..solver.heads_up import game_outcome
    from ..solver.solutions import solve_cached

    if not rules.seats(players):
        raise click.UsageError(f"{rules.name} is played by {rules.players_range} players, not {players}")
    if players != 2:
        from ..solver.rounds import rounds_summary, rounds_text

        data = rounds_summary(rules, players)
        click.echo(json.dumps(data, indent=2) if as_json else rounds_text(data))
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
