"""The scorekeeper of a real table: people throw real dice, py421 does the rest.

Each player types what the dice show (and how many throws it took); the
engine decides who leads, the limit, who takes or gives how many, ties,
phases, manches and the outcome. ``u`` takes back the last entry.
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.actions import parse_action
from ..core.dice import Result
from ..core.engine import stakes_accumulate, throws_allowed
from ..core.errors import Py421Error
from ..core.rules import rules_name
from ..core.state import Phase, State
from ..i18n import action_text, error_text, num, tr
from ..text import describe, outcome_text, standings
from .answers import apply_report
from .plain import HELP, HINT, QUIT, Ask, InputEnded, Left, Out
from .session import Session

UNDO = ("u", "undo", "annuler")


def hint(state: State, lang: str) -> list[str]:
    """What the player about to throw must beat, and the exact chance of doing it."""
    from ..solver.exact_turn import exact_odds
    from ..solver.rounds import MAX_ROUND_PLAYERS, solve_round  # numpy loads only for a hint

    request = state.chance
    r = state.round
    if request is None or request.purpose != "turn" or r is None or r.throws:
        return [tr(lang, "sk.hint.none")]
    table = state.rules.table
    allowed = throws_allowed(state)

    def chance(target: Result) -> str:
        return num(lang, float(exact_odds(table, target, allowed)), ".1%")

    who = state.players[request.seat]
    finals = [t.result for t in r.done]
    if len(r.order) > MAX_ROUND_PLAYERS:
        optimal = tr(lang, "sk.hint.no_optimal", most=MAX_ROUND_PLAYERS, n=len(r.order))
    else:
        solved = solve_round(state.rules, len(r.order), state.phase is Phase.CHARGE, "loser")
        not_loser = solved.turn_start(finals, allowed, "loser")
        optimal = tr(lang, "sk.hint.optimal", who=who, p=num(lang, not_loser, ".1%"))
    if not r.done:
        top = table.order[1]  # only 421 beats the second best result
        # one throw (coups secs): nothing for the leader to set; else a limit only where the rules have one
        lead = (
            "sk.hint.lead.sec"
            if allowed == 1
            else "sk.hint.lead"
            if state.rules.leader_limit
            else "sk.hint.lead.free"
        )
        return [tr(lang, lead, who=who, n=allowed, p=chance(top)), optimal]
    worst = min(finals, key=table.strength)
    beat = "sk.hint.worst.sec" if allowed == 1 else "sk.hint.worst"
    lines = [tr(lang, beat, result=worst, p=chance(worst), n=allowed)]
    if state.phase is Phase.DECHARGE:
        best = max(finals, key=table.strength)
        lines.append(tr(lang, "sk.hint.best", result=best, p=chance(best)))
    return [*lines, optimal]


def prompt_for(state: State, lang: str) -> str:
    """What to ask now, in words that say what is accepted."""
    names = state.players
    request = state.chance
    if request is None:
        seat = state.to_move
        assert seat is not None
        return tr(lang, "sk.stake", who=names[seat])
    who = names[request.seat]
    if request.purpose == "turn":
        allowed, every = _turn_told(state)
        if every:
            example = ";".join(["123", "221", "421"][-allowed:])  # as many throws as allowed
            return tr(lang, "sk.turn_all", who=who, n=allowed, example=example)
        if allowed == 1:
            return tr(lang, "sk.turn_one", who=who)
        return tr(lang, "sk.turn", who=who, limit=tr(lang, "sk.limit", n=allowed))
    if request.purpose == "tie":
        return tr(lang, "sk.tie", who=who)
    if request.purpose == "decharge_leader":
        return tr(lang, "sk.draw_leader", who=who)
    return tr(lang, "sk.draw_die" if request.count == 1 else "sk.draw_throw", who=who)


def _turn_told(state: State) -> tuple[int, bool]:
    """The throws the turn asked for may take, and whether each must be told (every throw adds to
    the stake)."""
    allowed = throws_allowed(state)
    return allowed, stakes_accumulate(state) and allowed > 1


def help_for(state: State, lang: str) -> str:
    """What ``?`` says: how to type what this prompt asks for."""
    request = state.chance
    if request is None:
        return tr(lang, "prompt.stake_help")
    if request.purpose == "turn":
        allowed, every = _turn_told(state)
        return tr(lang, "sk.help.every" if every else "sk.help.one" if allowed == 1 else "sk.help")
    if request.count == 1:  # a die each for the first player: the lowest leads
        ace = tr(lang, "sk.help.die.ace") if state.rules.ace_high else ""
        return tr(lang, "sk.help.die", ace=ace)
    return tr(lang, "sk.help.coup_sec")  # a tie-break or a draw: one throw of three dice


def run_table(
    session: Session,
    *,
    lang: str,
    out: Out,
    ask: Ask,
    on_step: Callable[[Session], None] = lambda s: None,
) -> None:
    """Keep the score of a real game until it ends."""
    game = session.game
    names = game.players
    if not game.steps:
        out(tr(lang, "table", rules=rules_name(session.rules), players=", ".join(names)))
        for event in game.state.events:
            out(describe(event, names, lang))
    else:  # resumed: where the tokens stand
        out(standings(game.state, lang))
    while not game.state.is_over:
        state = game.state
        answer = ask(prompt_for(state, lang))
        if answer is None:
            raise InputEnded
        command = answer.strip().lower()
        if command in QUIT:
            raise Left
        if command in HELP:
            out(help_for(state, lang))
            out(tr(lang, "prompt.leave_help.table"))
            continue
        if command in HINT:
            for line in hint(state, lang):
                out(line)
            continue
        try:
            if command in UNDO:
                last = game.steps[-1] if game.steps else None
                game.undo()
                assert last is not None
                step = action_text(lang, parse_action(last.text)) if last.kind == "action" else last.text
                out(tr(lang, "sk.undone", who=names[last.seat], step=step))
                out(standings(game.state, lang))
                on_step(session)
                continue
            state = apply_report(game, answer)
        except Py421Error as exc:
            out(f"  {error_text(lang, exc)}")
            continue
        for event in state.events:
            out(describe(event, names, lang))
        if not state.is_over:
            out(standings(state, lang))
        on_step(session)
    end = outcome_text(game.state, lang, logged=True)
    if end:
        out(end)
