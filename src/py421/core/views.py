"""What one seat (or a spectator) sees of a game, as plain JSON-ready data.

In 421 every die is thrown in the open, so the table is public; a seat's
view adds what is its own: whether it must act and which actions it may
take. Interfaces and the server send views, never the state itself.
"""

from __future__ import annotations

from typing import Any

from .actions import action_data
from .dice import format_dice
from .engine import throws_allowed
from .errors import InvalidPlayers, Message
from .state import State


def seat_view(state: State, seat: int | None) -> dict[str, Any]:
    """The table as seen from ``seat``; ``None`` for a spectator."""
    names = state.players
    if seat is not None and not 0 <= seat < len(names):
        raise InvalidPlayers(Message("players.no_seat", {"seat": seat, "last": len(names) - 1}))
    view: dict[str, Any] = {
        "seat": seat,
        "players": [
            {
                "seat": s,
                "name": name,
                "tokens": state.tokens[s],
                "in_manche": state.active[s],
                "manches_lost": state.manche_losses[s],
                "debt": state.debts[s],
            }
            for s, name in enumerate(names)
        ],
        "rules": state.rules.name,
        "phase": state.phase.value,
        "manche": state.manche,
        "pot": state.pot,
        "leader": state.leader,
        "step": state.steps,
    }
    request = state.chance
    deciding = state.to_move
    if request is not None:
        view["waiting_for"] = {
            "seat": request.seat,
            "step": "dice",
            "dice": request.count,
            "kept": format_dice(request.kept),
            "purpose": request.purpose,
        }
    elif deciding is not None:
        view["waiting_for"] = {"seat": deciding, "step": "decision"}
    else:
        view["waiting_for"] = None
    mine = seat is not None and deciding == seat
    view["your_turn"] = mine
    view["legal_actions"] = [action_data(a) for a in state.legal_actions()] if mine else []
    r = state.round
    if r is not None:
        view["round"] = {
            "order": list(r.order),
            "turns": [{"seat": t.seat, "result": str(t.result), "throws": t.throws} for t in r.done],
            "current": r.current,
            "dice": format_dice(r.dice),
            "throws": r.throws,
            "throws_allowed": throws_allowed(state) if r.current is not None else None,
            "limit": r.limit,
            "stake": r.stake if state.rules.accumulated_stakes else None,
            "tie": None
            if r.tie is None
            else {
                "seats": list(r.tie.draw.seats),
                "thrown": [format_dice(f) for f in r.tie.draw.thrown],
                "replay": r.tie.replays,
            },
        }
    else:
        view["round"] = None
    if state.draw is not None:
        view["draw"] = {
            "purpose": state.draw.purpose,
            "seats": list(state.draw.seats),
            "thrown": [format_dice(f) for f in state.draw.thrown],
        }
    out = state.outcome
    view["outcome"] = (
        None
        if out is None
        else {
            "losers": list(out.losers),
            "kind": out.kind,
            "winners": [list(g) for g in out.winners],
            "manche_losers": list(out.manche_losers),
        }
    )
    return view
