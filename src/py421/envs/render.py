"""The table in text, for the environments' ``render``: what happened, then where things stand."""

from __future__ import annotations

from collections.abc import Iterable

from ..core.dice import format_dice
from ..core.engine import throws_allowed
from ..core.events import Event
from ..core.state import State
from ..text import describe, outcome_text
from .observation import GYM_ACTIONS, legal_indices, meaning


def table_text(state: State, events: Iterable[Event] = (), *, gym: bool = False) -> str:
    """The events in words, one per line, then the phase, the tokens and what is awaited.

    ``gym``: list the actions of the Gymnasium environments (0 to 7) instead of all 17.
    """
    names = state.players
    lines = [describe(e, names) for e in events]
    holdings = ", ".join(f"{name} {tokens}" for name, tokens in zip(names, state.tokens, strict=True))
    lines.append(f"manche {state.manche}, {state.phase.value}, pot {state.pot}; tokens: {holdings}")
    if state.outcome is not None:
        lines.append(outcome_text(state))
        return "\n".join(lines)
    r = state.round
    seat = state.to_move
    if r is not None and r.current is not None and r.dice:
        most = throws_allowed(state)
        lines.append(f"{names[r.current]} holds {format_dice(r.dice)} after throw {r.throws} of {most}")
    if seat is not None:
        if gym and r is not None and r.tie is not None:
            accepted = "0 stake est, 1 to 7 stake vient"
        else:
            indices = [i for i in legal_indices(state) if not gym or i < GYM_ACTIONS]
            accepted = ", ".join(f"{i} {meaning(state, i)}" for i in indices)
        lines.append(f"{names[seat]} to decide: {accepted}")
    return "\n".join(lines)
