"""``421 odds``, ``advise``, ``duel`` and ``solve``: exact values of choices, duels and whole games."""

from __future__ import annotations

import json
from typing import Literal, get_args

import click
from click.core import ParameterSource

from ..core.dice import Result, format_dice
from ..core.rules import Ruleset
from ..i18n import num, tr
from .common import SAY_OPTION, solving, with_rules

# What `421 advise` can maximise; loser and tokens are the round solver's objectives.
Goal = Literal["target", "coup-sec", "loser", "tokens", "game"]
Phase = Literal["charge", "decharge"]
# The options of the round or the game each objective reads (the table of docs/strategy.md): one
# given to an objective that does not read it is refused, not silently dropped.
ROUND = ("players", "before", "limit", "phase", "pot")
READS: dict[Goal, tuple[str, ...]] = {
    "target": (),
    "coup-sec": (),
    "loser": ROUND,
    "tokens": ROUND,
    "game": (*ROUND, "tokens", "stake"),
}


def _check_context(chosen: Goal) -> None:
    """Refuse an option of the context that the chosen objective does not read."""
    ctx = click.get_current_context()
    given = READS["game"]
    typed = [n for n in given if ctx.get_parameter_source(n) not in (None, ParameterSource.DEFAULT)]
    ignored = [n for n in typed if n not in READS[chosen]]
    if not ignored:
        return
    name = ignored[0]
    flag = f"--{name}"
    *others, last = [g for g in get_args(Goal) if name in READS[g]]
    readers = f"{', '.join(others)} or {last}" if others else last
    reads = ", ".join(f"--{n}" for n in READS[chosen]) or "no context of the round"
    raise click.UsageError(
        f"{flag} is not read by the objective {chosen}, which reads {reads}; "
        f"{flag} is read by --objective {readers} (docs/strategy.md lists what each objective reads)"
    )


@click.command()
@click.argument("target")
@with_rules
@click.option(
    "--throws", type=click.IntRange(1, 3), default=3, show_default=True, help="Throws the turn may use."
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@SAY_OPTION
def odds(target: str, rules: Ruleset, throws: int, as_json: bool, lang: str) -> None:
    """The chance of beating TARGET in a fresh turn.

    The turn has up to --throws throws and every choice is made to beat TARGET.

    \b
    Examples:
      421 odds 653
      421 odds 111 --throws 2 --rules vache-41
    """
    from ..solver.turn import exact_odds

    result = Result.parse(target)
    p = exact_odds(rules.table, result, throws)
    if as_json:
        data = {"target": str(result), "throws": throws, "probability": float(p), "exact": str(p)}
        click.echo(json.dumps(data))
        return
    s = "s" * (throws > 1)
    p_text = num(lang, float(p), ".6f")
    click.echo(tr(lang, "cli.odds", target=result, throws=throws, s=s, rules=rules.name, p=p_text, exact=p))


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
@click.option(
    "--phase",
    type=click.Choice(get_args(Phase)),
    default="decharge",
    show_default=True,
    help="The round's phase: the décharge, or the charge (tokens taken from the pot).",
)
@click.option("--pot", type=click.IntRange(0), default=None, help="Tokens left in the pot (charge).")
@click.option("--tokens", default=None, help="Two players: your tokens and the other's, like 5,6.")
@click.option("--stake", type=click.IntRange(0), default=0, help="Accumulated stake so far this round.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@SAY_OPTION
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
    lang: str,
) -> None:
    """Every choice with DICE in hand, ranked by its exact value.

    What the value means is --objective's; the round's and the game's
    objectives read the context options (docs/strategy.md lists which).

    \b
    Examples:
      421 advise 642 --throws-left 2 --target 653
      421 advise 642 --throws-left 1 --objective loser --players 3 --before 653,221
      421 advise 642 --throws-left 1 --objective game --before 631 --tokens 5,6
    """
    from ..solver import advice as solver

    held = Result.parse(dice)
    goal = Result.parse(target) if target is not None else None
    chosen: Goal = objective or ("target" if goal is not None else "coup-sec")
    if chosen == "target" and goal is None:
        raise click.UsageError("--objective target needs --target RESULT")
    _check_context(chosen)
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
    # The solver names its objective in English for --json; the sentence names it in the reader's language.
    aim = (
        tr(lang, f"cli.objective.{chosen}", target=goal)
        if chosen == "target"
        else tr(lang, f"cli.objective.{chosen}")
    )
    s = "s" * (throws_left > 1 if lang == "fr" else throws_left != 1)
    click.echo(tr(lang, "cli.advise", held=held, n=throws_left, s=s, rules=rules.name, objective=aim))
    for o in result.options:
        if o.stop:
            what = tr(lang, "cli.advise.stop", held=held)
        elif o.keep:
            what = tr(lang, "cli.advise.keep", kept=format_dice(o.keep), n=3 - len(o.keep))
        else:
            what = tr(lang, "cli.advise.all")
        click.echo(f"  {num(lang, o.value, '.6f')}  {what}")


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
@SAY_OPTION
def duel(rules: Ruleset, ties: str, as_json: bool, lang: str) -> None:
    """The heads-up duel, solved: the first player's chance to win.

    One round between two players: the first sets the limit, the best result wins.

    \b
    Examples:
      421 duel
      421 duel --rules tim --ties half
    """
    from ..solver.duel import solve_duel

    result = solve_duel(rules, "half" if ties == "half" else "rampot")
    if as_json:
        data = {"rules": rules.name, "ties": ties, "first_player_wins": result.first_wins}
        click.echo(json.dumps(data))
        return
    first, second = num(lang, result.first_wins, ".4%"), num(lang, 1 - result.first_wins, ".4%")
    how = tr(lang, "cli.duel.half" if ties == "half" else "cli.duel.rampot")
    click.echo(tr(lang, "cli.duel", rules=rules.name, ties=how, first=first, second=second))


@click.command()
@with_rules
@click.option(
    "--players",
    type=click.IntRange(2),
    default=2,
    show_default=True,
    help="Players at the table; for more than two, each round is solved (max^n).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@SAY_OPTION
def solve(rules: Ruleset, players: int, as_json: bool, lang: str) -> None:
    """Optimal play, solved: who loses, or what each position is worth.

    For two players, each seat's chance of losing the game (solved once per
    machine and kept); for more, each position's value of a round played by max^n.

    \b
    Examples:
      421 solve
      421 solve --rules vache-41 --json
      421 solve --players 3
    """
    from ..solver.heads_up import game_outcome
    from ..solver.solutions import solve_cached

    if not rules.seats(players):
        raise click.UsageError(f"{rules.name} is played by {rules.players_range} players, not {players}")
    if players != 2:
        from ..solver.rounds import rounds_summary, rounds_text

        data = rounds_summary(rules, players)
        click.echo(json.dumps(data, indent=2) if as_json else rounds_text(data, lang))
        return

    def progress(stage: str, step: int) -> None:
        if not as_json:
            click.echo(f"\r  {solving(rules, stage, step, lang):<38}", nl=False, err=True)

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
    click.echo(tr(lang, "cli.solve", rules=rules.name))
    click.echo(tr(lang, "cli.solve.manche", p=num(lang, w, ".6%")))
    first, other = num(lang, outcome.lose[0], ".6%"), num(lang, outcome.lose[1], ".6%")
    click.echo(tr(lang, "cli.solve.lose", first=first, other=other))
    if outcome.shared:
        click.echo(tr(lang, "cli.solve.shared", p=num(lang, outcome.shared, ".6%")))
    click.echo(tr(lang, "cli.solve.advantage", p=num(lang, data["first_player_advantage"], "+.6%")))
    if data["first_player_drawn"]:
        click.echo(tr(lang, "cli.solve.drawn"))
