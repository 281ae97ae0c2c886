"""Events and outcomes in words, for the command line and the logs."""

from __future__ import annotations

from collections.abc import Sequence

from .core.dice import format_dice
from .core.events import (
    DebtOwed,
    DebtPaid,
    Event,
    GameOver,
    Gave,
    LeaderChosen,
    LimitSet,
    MancheLost,
    PhaseStarted,
    RoundDecided,
    StakeChosen,
    Thrown,
    TieDeclared,
    Took,
    TurnEnded,
    WentOut,
)
from .core.state import State

LIMIT_CALLS = {1: "« sec ! »", 2: "« en 2 ! »", 3: "« à fond ! »"}
_LEADER_WHY = {
    "first_seat": "sits first",
    "first_player": "won the draw for the first player",
    "round_loser": "lost the last round",
    "manche_loser": "lost the last manche",
    "fewest_tokens": "holds the fewest tokens",
    "worst_coup_sec": "threw the worst coup sec",
    "next_seat": "is next after the last loser",
}
_AMOUNT_WHY = {
    "value": "the winner's value",
    "deduction": "the winner's value minus the loser's",
    "accumulated": "every throw of the round added up",
    "nenette": "nénette's fixed penalty",
    "vient": "« pour ce qui vient »: the replay's value",
}
_TIE_ABOUT = {
    "worst": "for the worst result",
    "best": "for the best result",
    "both": "for best and worst",
    "first_player": "in the draw for the first player",
    "decharge_leader": "in the draw for the décharge leader",
}


def names(seats: Sequence[int], players: Sequence[str]) -> str:
    return ", ".join(players[s] for s in seats)


def describe(event: Event, players: Sequence[str]) -> str:
    """One line for one event."""
    p = players
    match event:
        case Thrown(seat=seat, kept=kept, faces=faces, result=result, throw=n, purpose=purpose):
            shown = str(result) if result is not None else format_dice(faces)
            keep = f" keeping {format_dice(kept)}," if kept else ""
            where = {"turn": f" (throw {n})", "tie": " (tie-break)"}.get(purpose, " (draw)")
            return f"{p[seat]}{keep} throws {shown}{where}"
        case TurnEnded(seat=seat, result=result, throws=throws, bon=bon):
            bon_text = " after « le bon »" if bon else ""
            return f"{p[seat]} ends on {result} in {throws} throw{'s' * (throws > 1)}{bon_text}"
        case LimitSet(seat=seat, throws=throws):
            return f"{p[seat]} sets the limit: {LIMIT_CALLS.get(throws, throws)}"
        case TieDeclared(seats=seats, about=about, main_chaude=again):
            title = "« main chaude »" if again else "tie"
            return f"{title} {_TIE_ABOUT[about]}: {names(seats, p)} throw again, in that order"
        case StakeChosen(seat=seat, stake=stake):
            return f"{p[seat]} plays « pour ce qui {stake} »"
        case RoundDecided(losers=losers, winner=winner, amount=amount, why=why):
            return (
                f"{names(losers, p)} lost the round to {p[winner]}: "
                f"{amount} token{'s' * (amount != 1)} ({_AMOUNT_WHY[why]})"
            )
        case Took(seat=seat, amount=amount, wanted=wanted):
            capped = f" (the pot held only {amount} of {wanted})" if amount < wanted else ""
            return f"{p[seat]} takes {amount} from the pot{capped}"
        case Gave(giver=giver, receiver=receiver, amount=amount, wanted=wanted):
            capped = f" (all {p[giver]} had, of {wanted})" if amount < wanted else ""
            return f"{p[giver]} gives {amount} to {p[receiver]}{capped}"
        case DebtOwed(seat=seat, amount=amount):
            return f"« queue de la vache »: {p[seat]} owes {amount} to the next manche"
        case DebtPaid(seat=seat, amount=amount):
            return f"{p[seat]} takes the {amount} owed from the new pot"
        case LeaderChosen(seat=seat, why=why):
            return f"{p[seat]} leads: {_LEADER_WHY[why]}"
        case PhaseStarted(phase=phase, manche=manche):
            return f"— manche {manche}: the {'charge' if phase == 'charge' else 'décharge'} —"
        case WentOut(seats=seats):
            one = len(seats) == 1
            verbs = "holds no token and leaves" if one else "hold no token and leave"
            return f"{names(seats, p)} {verbs} the manche"
        case MancheLost(seat=seat, manche=manche, espagnole=espagnole):
            how = " (l'Espagnole: every token after the charge)" if espagnole else ""
            return f"{p[seat]} loses manche {manche}{how}"
        case GameOver(losers=losers):
            return f"game over: {names(losers, p)} lose{'s' * (len(losers) == 1)}"
    raise AssertionError(f"no words for {event!r}")


def outcome_text(state: State) -> str:
    """The end of a game in a few lines."""
    out = state.outcome
    if out is None:
        return "the game is not over"
    p = state.players
    if out.kind == "grand_perdant":
        lines = [f"{p[out.losers[0]]} lost every manche: « grand perdant »"]
    elif out.kind == "shared":
        lines = [f"shared loss: {names(out.losers, p)} each lost as many manches"]
    else:
        lines = [f"{p[out.losers[0]]} loses the game"]
    if out.winners:
        ranked = [names(group, p) for group in out.winners]
        lines.append("winners, in order: " + "; ".join(ranked))
    if len(out.manche_losers) > 1 or state.rules.manches > 1:
        lines.append("manches lost: " + ", ".join(p[s] for s in out.manche_losers))
    return "\n".join(lines)
