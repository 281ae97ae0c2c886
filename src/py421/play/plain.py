"""Playing in plain text lines: prompts for humans, bots in between.

Usable from scripts, over ssh and with screen readers: every line is a
sentence, every prompt says what is accepted, and a wrong answer is
explained and asked again.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from ..core.actions import Action, Stop, Throw, offers_bon
from ..core.dice import format_dice, parse_dice
from ..core.engine import throws_allowed
from ..core.errors import InvalidNotation, Py421Error, quoted
from ..core.events import MancheLost, RoundDecided
from ..core.rules import rules_name
from ..core.state import State
from ..i18n import actions_text, error_text, tr
from ..text import describe, outcome_text, standings
from .answers import read_choice, read_stake
from .coach import Coach, hints_on, said_once
from .session import Session

Out = Callable[[str], None]
Ask = Callable[[str], str | None]


HELP = ("?", "help", "aide")
HINT = ("h", "hint", "conseil")  # as at the scorekeeper's table
QUIT = ("q", "quit", "quitter")


class InputEnded(Exception):
    """The person's input closed before the game ended (the game stays saved)."""


class Left(Exception):
    """The person chose to leave before the game ended (the game stays saved)."""


def run_plain(
    session: Session,
    *,
    lang: str,
    out: Out,
    ask: Ask,
    on_step: Callable[[Session], None] = lambda s: None,
    pause: Callable[[], None] = lambda: None,
    hints: bool = False,
) -> None:
    """Play ``session`` to its end; ``pause`` runs before each bot or dice step.

    ``hints``: a hint between several people too (one person against bots has it anyway).
    """
    names = session.game.players
    hint: Callable[[State], str] | None = None
    if hints_on(session, hints):
        # a solve's stages are said once in the game
        hint = functools.partial(Coach(session, lang).hint, say=said_once(out))
    if not session.game.steps:
        out(tr(lang, "table", rules=rules_name(session.rules), players=", ".join(names)))
        for event in session.state.events:
            out(describe(event, names, lang))
    else:  # resumed: where the tokens stand
        out(standings(session.state, lang))
    announced: int | None = None
    while not session.state.is_over:
        human = session.human_to_move()
        # between people at one keyboard, a turn that asks something is announced before its first
        # throw is shown (a coup sec asks nothing)
        turn = session.state.chance
        asks = turn is not None and turn.purpose == "turn" and throws_allowed(session.state) > 1
        coming = turn.seat if turn is not None and asks else human
        if coming is not None and session.seats[coming].human and coming != announced:
            if len(session.humans) > 1:
                out(tr(lang, "your_turn", who=names[coming]))
            announced = coming
        if human is None:
            pause()
            state = session.step()
        else:
            state = session.act(_ask_human(session, human, lang, out, ask, hint))
        for event in state.events:
            out(describe(event, names, lang))
        if not state.is_over and any(isinstance(e, RoundDecided | MancheLost) for e in state.events):
            out(standings(state, lang))  # the tokens moved
        on_step(session)
    end = outcome_text(session.state, lang, logged=True)
    if end:
        out(end)


def _turn_help(state: State, lang: str) -> str:
    """What ``?`` says at a turn: its examples are choices open now, « le bon » only where it is one."""
    legal = state.legal_actions()
    example = _keep_example(legal)
    bon = ""
    if offers_bon(legal):
        said = Throw(parse_dice(example), bon=True)
        bon = tr(lang, "prompt.help.bon", said=str(said if said in legal else Throw(bon=True)))
    stop = tr(lang, "prompt.help.stop") if Stop() in legal else ""
    return tr(lang, "prompt.help", example=example, stop=stop, bon=bon, legal=actions_text(lang, legal))


def _keep_example(legal: tuple[Action, ...]) -> str:
    """Two dice the player may keep now, as the prompts' example (42 from 642)."""
    keeps = [a.keep for a in legal if isinstance(a, Throw) and not a.bon and len(a.keep) == 2]
    return format_dice(min(keeps, default=(4, 2)))


def _ask_human(
    session: Session, seat: int, lang: str, out: Out, ask: Ask, hint: Callable[[State], str] | None
) -> Action:
    state = session.state
    r = state.round
    assert r is not None
    name = state.players[seat]
    if r.tie is not None:
        prompt = tr(lang, "prompt.stake", who=name)
    else:
        allowed = throws_allowed(state)
        dice = format_dice(r.dice)
        legal = state.legal_actions()
        example = _keep_example(legal)
        stop = tr(lang, "prompt.stop") if Stop() in legal else ""  # players behind may not
        prompt = tr(
            lang, "prompt.turn", who=name, dice=dice, n=r.throws, allowed=allowed, example=example, stop=stop
        )
    while True:
        answer = ask(prompt)
        if answer is None:
            raise InputEnded
        command = answer.strip().lower()
        if command in QUIT:
            raise Left
        if command in HELP:
            if r.tie is not None:
                out(tr(lang, "prompt.stake_help"))
            else:
                out(_turn_help(state, lang))
            if hint is not None:
                out(tr(lang, "prompt.hint_help"))
            out(tr(lang, "prompt.leave_help"))
            continue
        if command in HINT:
            if hint is None:
                out("  " + tr(lang, "coach.off"))
            else:
                for line in hint(state).splitlines():
                    out(f"  {line}")
            continue
        try:  # under « main chaude » the stake is the only choice
            action = read_stake(answer) if r.tie is not None else read_choice(answer)
            state.apply(action)  # raises with the reason if it is not allowed
        except InvalidNotation as exc:
            actions = state.legal_actions()
            enter = tr(lang, "prompt.not_choice.stop") if Stop() in actions else ""
            possible = actions_text(lang, actions)
            if r.tie is not None:  # the stake's prompt says its two answers
                out(f"  {error_text(lang, exc)}")
            elif exc.message is None or exc.message.key != "notation.not_action":  # what was wrong, and
                said = tr(lang, "prompt.wrong", problem=error_text(lang, exc), legal=possible, stop=enter)
                out("  " + said)  # what this prompt takes, in the player's words
            else:
                text = quoted(answer.strip())
                out("  " + tr(lang, "prompt.not_choice", text=text, legal=possible, stop=enter))
            continue
        except Py421Error as exc:
            out(f"  {error_text(lang, exc)}")
            continue
        return action
