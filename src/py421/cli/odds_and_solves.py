"""``421 odds``, ``advise``, ``duel`` and ``solve``: exact values of choices, duels and whole games."""

from __future__ import annotations

import json
from functools import partial
from typing import Literal, get_args

import click
from click.core import ParameterSource

from ..core.dice import Result, format_dice
from ..core.rules import Ruleset, rules_fields, rules_name
from ..i18n import error_text, num, plural, tr
from .common import SAY_OPTION, Command, Counts, Listed, stages, with_rules

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
    "game": (*ROUND, "tokens", "stake", "out", "debts"),
}


def _check_context(chosen: Goal, lang: str, *, defaulted: bool) -> None:
    """Refuse an option of the context that the chosen objective does not read (``defaulted``: the
    player chose none, so the refusal starts with the objective to add)."""
    ctx = click.get_current_context()
    given = READS["game"]
    typed = [n for n in given if ctx.get_parameter_source(n) not in (None, ParameterSource.DEFAULT)]
    ignored = [n for n in typed if n not in READS[chosen]]
    if not ignored:
        return
    # the objectives that read every option given: those the player chose no objective for, together
    named = ignored if defaulted else ignored[:1]
    flag = ", ".join(f"--{n}" for n in named)
    *others, last = [g for g in get_args(Goal) if all(n in READS[g] for n in named)]
    readers = tr(lang, "cli.or", others=", ".join(others), last=last) if others else last
    reads = ", ".join(f"--{n}" for n in READS[chosen])
    which = tr(lang, "cli.advise.reads", reads=reads) if reads else tr(lang, "cli.advise.reads_nothing")
    key = "cli.advise.needs_objective" if defaulted else "cli.advise.unread"
    raise click.UsageError(tr(lang, key, flag=flag, chosen=chosen, which=which, readers=readers))


@click.command(cls=Command)
@click.argument("target")
@with_rules
@click.option("--throws", type=click.IntRange(1, 3), default=3, show_default=True)
@click.option("--json", "as_json", is_flag=True)
@SAY_OPTION
def odds(target: str, rules: Ruleset, throws: int, as_json: bool, lang: str) -> None:
    from ..solver.exact_turn import exact_odds

    result = Result.parse(target)
    p = exact_odds(rules.table, result, throws)
    if as_json:
        data = {"target": str(result), "throws": throws, "probability": float(p), "exact": str(p)}
        click.echo(json.dumps(data))
        return
    p_text = num(lang, float(p), ".6f")
    click.echo(
        tr(
            lang,
            "cli.odds",
            target=result,
            throws=throws,
            s=plural(lang, throws),
            rules=rules_name(rules),
            p=p_text,
            exact=p,
        )
    )


def _finals(parts: tuple[str, ...] | None, lang: str) -> tuple[tuple[Result, ...], tuple[int, ...]]:
    """--before: the results already final, each maybe with the throws it took (``421/2``)."""
    if not parts:
        return (), ()
    results = tuple(Result.parse(part.split("/")[0]) for part in parts)
    counts = [part.split("/")[1] if "/" in part else "" for part in parts]
    if not any(counts):
        return results, ()
    if not all(c.strip().isdigit() for c in counts):
        raise click.BadParameter(tr(lang, "cli.advise.before_throws", text=repr(",".join(parts))))
    return results, tuple(int(c) for c in counts)


def _once(lang: str, text: str) -> str:
    """A solve's progress, said to be done once per machine."""
    return tr(lang, "cli.once", what=text)


def _quiet(text: str, stage: str) -> None:
    """How far a solve is, with --json: not said (nothing but the data)."""


def _counts(tokens: tuple[int, ...] | None, players: int | None, lang: str) -> tuple[int, ...] | None:
    """Every player's tokens, yours first: two counts, or as many as --players says (or 3 or more given)."""
    if tokens is None:
        return None
    # three counts or more say the players (more than the solvers seat: refused with their reason)
    wanted = players or (len(tokens) if len(tokens) >= 3 else 2)
    if len(tokens) != wanted:
        text = repr(",".join(map(str, tokens)))
        if wanted == 2:
            raise click.BadParameter(tr(lang, "cli.advise.tokens_two", text=text), param_hint="'--tokens'")
        example = ",".join(["4", "4", "3", *["0"] * (wanted - 3)])
        said = tr(lang, "cli.advise.tokens", n=wanted, example=example, text=text)
        raise click.BadParameter(said, param_hint="'--tokens'")
    return tokens


@click.command(cls=Command)
@click.argument("dice")
@with_rules
@click.option("--throws-left", type=click.IntRange(0, 2), required=True)
@click.option("--target", default=None)
@click.option("--objective", type=click.Choice(get_args(Goal)), default=None)
@click.option("--players", type=click.IntRange(2), default=None)
@click.option("--before", type=Listed("cli.list.results", "653,221", separators=",;"), default=None)
@click.option("--limit", type=click.IntRange(1, 3), default=None)
@click.option("--phase", type=click.Choice(get_args(Phase)), default="decharge", show_default=True)
@click.option("--pot", type=click.IntRange(0), default=None)
@click.option("--tokens", type=Counts("cli.list.tokens", "5,6"), default=None)
@click.option("--stake", type=click.IntRange(0), default=0)
@click.option("--out", type=Counts("cli.list.out", "1,2"), default=None)
@click.option("--debts", type=Counts("cli.list.debts", "0,0,14"), default=None)
@click.option("--json", "as_json", is_flag=True)
@SAY_OPTION
def advise(
    dice: str,
    rules: Ruleset,
    throws_left: int,
    target: str | None,
    objective: Goal | None,
    players: int | None,
    before: tuple[str, ...] | None,
    limit: int | None,
    phase: Phase,
    pot: int | None,
    tokens: tuple[int, ...] | None,
    stake: int,
    out: tuple[int, ...] | None,
    debts: tuple[int, ...] | None,
    as_json: bool,
    lang: str,
) -> None:
    held = Result.parse(dice)
    goal = Result.parse(target) if target is not None else None
    chosen: Goal = objective or ("target" if goal is not None else "coup-sec")
    if chosen == "target" and goal is None:
        raise click.UsageError(tr(lang, "cli.advise.needs_target"))
    if chosen != "target" and goal is not None:  # refused, not silently dropped
        raise click.UsageError(tr(lang, "cli.advise.target_unread"))
    _check_context(chosen, lang, defaulted=objective is None)
    if limit is not None and not before:  # the leader sets the limit, bound by none
        raise click.UsageError(tr(lang, "cli.advise.limit_alone"))
    finals, throws = _finals(before, lang)
    counts = _counts(tokens, players, lang)
    in_round = players or (len(counts) if counts else max(2, len(finals) + 1))
    shares = False  # the whole game of three to five, or of two where manches carry over
    if chosen in ("target", "coup-sec"):
        # one turn alone, in exact fractions: no numpy to import, the answer comes at once
        from ..solver.exact_turn import advise as advise_turn

        result = advise_turn(rules.table, held, throws_left, goal if chosen == "target" else None)
    else:
        from ..play.coach import progress_told
        from ..solver import advice as solver
        from ..solver.strategy import advise_whole_game

        context = solver.RoundContext(
            in_round,
            finals,
            limit,
            phase == "charge",
            pot,
            counts,
            stake,
            out or (),
            throws,
            debts or (),
        )
        match chosen:
            case "game":  # the solver that covers the table says, solving it once per machine if need be
                with stages() as say:
                    told = progress_told(
                        rules, in_round, _quiet if as_json else say, lang, partial(_once, lang)
                    )
                    result = advise_whole_game(rules, held, throws_left, context, told)
            case "loser" | "tokens":  # one round, for the objective asked
                result = solver.advise_round(rules, held, throws_left, context, chosen)
        shares = result.objective == solver.GAME_SHARE
    rows = [
        {"keep": str(held) if o.stop else format_dice(o.keep), "stop": o.stop, "bon": o.bon, "value": o.value}
        for o in result.options
    ]
    if as_json:  # over the game, the position valued too (the tokens, and in the charge the pot)
        valued: dict[str, object] = {"tokens": list(result.tokens)} if result.tokens else {}
        valued |= {"pot": result.pot} if result.pot is not None else {}
        valued |= {"out": list(out)} if out and result.tokens else {}
        click.echo(json.dumps({"objective": result.objective} | valued | {"options": rows}, indent=2))
        return
    # The solver names its objective in English for --json; the sentence names it in the reader's language.
    aim = (
        tr(lang, f"cli.objective.{chosen}", target=goal)
        if chosen == "target"
        else tr(lang, "cli.objective.game_share" if shares else f"cli.objective.{chosen}")
    )
    click.echo(tr(lang, "cli.advise", held=held, n=throws_left, rules=rules_name(rules), objective=aim))
    if result.tokens:  # the position valued: the tokens given, or those it starts from
        order = tr(lang, "cli.advise.valued.order" + (".two" if len(result.tokens) == 2 else ""))
        stage = "decharge" if result.pot is None else "charge"
        where = tr(lang, f"cli.advise.valued.{stage}", pot=result.pot)
        valued_tokens = ",".join(map(str, result.tokens))
        if out:  # who is out, where holding no token does not say it: part of the position valued
            where += tr(lang, "cli.advise.valued.out", places=",".join(map(str, out)))
        click.echo(tr(lang, "cli.advise.valued", tokens=valued_tokens, order=order, phase=where))
    for o in result.options:
        if o.stop:
            what = tr(lang, "cli.advise.stop", held=held)
        elif o.bon and o.keep:
            what = tr(lang, "cli.advise.bon", kept=format_dice(o.keep), n=3 - len(o.keep))
        elif o.bon:
            what = tr(lang, "cli.advise.bon_all")
        elif o.keep:
            what = tr(lang, "cli.advise.keep", kept=format_dice(o.keep), n=3 - len(o.keep))
        else:
            what = tr(lang, "cli.advise.all")
        click.echo(f"  {num(lang, o.value, '.6f')}  {what}")


@click.command(cls=Command)
@with_rules
@click.option("--ties", type=click.Choice(["half", "rampot"]), default="rampot", show_default=True)
@click.option("--json", "as_json", is_flag=True)
@SAY_OPTION
def duel(rules: Ruleset, ties: str, as_json: bool, lang: str) -> None:
    from ..solver.duel import solve_duel

    result = solve_duel(rules, "half" if ties == "half" else "rampot")
    if as_json:
        data = {**rules_fields(rules), "ties": ties, "first_player_wins": result.first_wins}
        click.echo(json.dumps(data))
        return
    first, second = num(lang, result.first_wins, ".4%"), num(lang, 1 - result.first_wins, ".4%")
    how = tr(lang, "cli.duel.half" if ties == "half" else "cli.duel.rampot")
    click.echo(tr(lang, "cli.duel", rules=rules_name(rules), ties=how, first=first, second=second))


@click.command(cls=Command)
@with_rules
@click.option("--players", type=click.IntRange(2), default=2, show_default=True)
@click.option("--json", "as_json", is_flag=True)
@SAY_OPTION
def solve(rules: Ruleset, players: int, as_json: bool, lang: str) -> None:
    from ..core.engine import players_refused
    from ..play.coach import solving
    from ..solver.heads_up import game_outcome
    from ..solver.solutions import solve_cached

    if not rules.seats(players):
        raise click.UsageError(error_text(lang, players_refused(rules, players)))
    from ..solver.strategy import covering

    match covering(rules, players):
        case "game_maxn":
            _solve_game(rules, players, as_json, lang)
            return
        case "rounds":
            from ..solver.rounds import rounds_summary, rounds_text
            from ..solver.strategy import why_rounds

            data = rounds_summary(rules, players)
            why = why_rounds(rules, players)
            click.echo(json.dumps(data, indent=2) if as_json else rounds_text(data, lang, why))
            return
        case "heads_up_game":
            _solve_heads_up_game(rules, as_json, lang)
            return
    with stages() as say:
        solved, cached = solve_cached(
            rules, lambda stage, step: None if as_json else say(solving(rules, stage, step, lang), stage)
        )
    w = solved.manche_loss()
    outcome = game_outcome(rules, w)
    data = {
        **rules_fields(rules),
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
    click.echo(tr(lang, "cli.solve", rules=rules_name(rules)))
    click.echo(tr(lang, "cli.solve.manche", p=num(lang, w, ".6%")))
    first, other = num(lang, outcome.lose[0], ".6%"), num(lang, outcome.lose[1], ".6%")
    click.echo(tr(lang, "cli.solve.lose", first=first, other=other))
    if outcome.shared:
        click.echo(tr(lang, "cli.solve.shared", p=num(lang, outcome.shared, ".6%")))
    click.echo(tr(lang, "cli.solve.advantage", p=num(lang, data["first_player_advantage"], "+.6%")))
    if data["first_player_drawn"]:
        click.echo(tr(lang, "cli.solve.drawn"))


def _solve_heads_up_game(rules: Ruleset, as_json: bool, lang: str) -> None:
    """Two players where manches carry over (« queue de la vache », l'Espagnole losing the game):
    the whole game, each manche played for it."""
    from ..play.coach import game_solving
    from ..solver.solutions import solve_game_cached

    with stages() as say:
        game, cached = solve_game_cached(rules, game_solving(_quiet if as_json else say, lang))
    outcome = game.outcome()
    share = float(game.value()[0])
    data = {
        **rules_fields(rules),
        "players": 2,
        "method": "the game, manche by manche",
        "manche_loss_first_leader": None,
        "lose": {"first_leader": outcome.lose[0], "other": outcome.lose[1]},
        "shared": outcome.shared,
        "share": {"first_leader": share, "other": 1 - share},
        "first_player_advantage": outcome.lose[1] - outcome.lose[0],
        "first_player_drawn": rules.first_player != "first_seat",
        "iterations": game.plain.iterations,
        "manches_solved": 1 + len(game.manches),
        "cached": cached,
    }
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    click.echo(tr(lang, "cli.solve", rules=rules_name(rules)))
    click.echo(tr(lang, "cli.solve.whole"))
    first, other = num(lang, outcome.lose[0], ".6%"), num(lang, outcome.lose[1], ".6%")
    click.echo(tr(lang, "cli.solve.lose", first=first, other=other))
    if outcome.shared:
        click.echo(tr(lang, "cli.solve.shared", p=num(lang, outcome.shared, ".6%")))
        first, other = num(lang, share, ".6%"), num(lang, 1 - share, ".6%")
        click.echo(tr(lang, "cli.solve.share", first=first, other=other))
    advantage = outcome.lose[1] - outcome.lose[0]
    click.echo(tr(lang, "cli.solve.advantage", p=num(lang, advantage, "+.6%")))
    if data["first_player_drawn"]:
        click.echo(tr(lang, "cli.solve.drawn"))


def _solve_game(rules: Ruleset, players: int, as_json: bool, lang: str) -> None:
    """Three or four players: each seat's chance of losing the whole game, solved by max^n."""
    from ..play.coach import game_solving
    from ..solver.solutions import solve_maxn_cached

    with stages() as say:
        game, cached = solve_maxn_cached(rules, players, game_solving(_quiet if as_json else say, lang))
    data = game.summary() | {"cached": cached}
    if as_json:
        from ..solver.rounds import rounds_summary

        rounds = rounds_summary(rules, players)["rounds"]  # each round on its own, as it was played before
        click.echo(json.dumps(data | {"values": game.values_table(), "rounds": rounds}, indent=2))
        return
    click.echo(tr(lang, "game.head", rules=rules_name(rules), players=players))
    by_place = " / ".join(num(lang, p, ".4%") for p in data["lose_by_position"])
    click.echo(tr(lang, "game.lose", p=by_place))
    if data["shared"]:
        alone = " / ".join(num(lang, p, ".4%") for p in data["lose_alone_by_position"])
        click.echo(tr(lang, "game.alone", p=alone))
        click.echo(tr(lang, "cli.solve.shared", p=num(lang, data["shared"], ".4%")))
    click.echo(tr(lang, "cli.solve.advantage", p=num(lang, data["first_player_advantage"], "+.4%")))
    if data["first_player_drawn"]:
        click.echo(tr(lang, "game.drawn"))
    if not data["converged"]:
        click.echo(tr(lang, "game.unsettled"))
    if data["exploitability"] is not None:
        gains = " / ".join(num(lang, g, ".2g") for g in data["gains"])
        most = num(lang, data["exploitability"], ".2g")
        anywhere = num(lang, data["gain_anywhere"], ".2g")
        click.echo(tr(lang, "game.exploitability", gain=most, gains=gains, anywhere=anywhere))
