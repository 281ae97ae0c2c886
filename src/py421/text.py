"""Events and outcomes in words, in the player's language."""

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
from .i18n import CATALOGS, EN, fill, tr


def names(seats: Sequence[int], players: Sequence[str], lang: str = "en") -> str:
    """The players at ``seats`` as a sentence lists them: « Ana, Bob et Zoé », "Ana, Bob and Zoé"."""
    listed = [players[s] for s in seats]
    if len(listed) < 2:
        return "".join(listed)
    return ", ".join(listed[:-1]) + tr(lang, "list.and") + listed[-1]


def limit_call(throws: int, lang: str = "en") -> str:
    """« sec ! », « en 2 ! », « à fond ! »"""
    return tr(lang, f"call.{throws}")


_WHERE = {"turn": "thrown.turn", "tie": "thrown.tie"}


def describe(event: Event, players: Sequence[str], lang: str = "en") -> str:
    """One line for one event."""
    p = players
    words = CATALOGS.get(lang, EN)

    def t(key: str, **fields: object) -> str:  # tr, without a call more: a server words every event
        return fill(lang, words[key], fields)

    match event:
        case Thrown(seat=seat, kept=kept, faces=faces, result=result, throw=n, purpose=purpose):
            shown = str(result) if result is not None else format_dice(faces)
            keep = t("thrown.keep", kept=format_dice(kept)) if kept else ""
            where = _WHERE.get(purpose, "thrown.draw")
            return t("thrown", who=p[seat], keep=keep, dice=shown, where=t(where, n=n))
        case TurnEnded(seat=seat, result=result, throws=n, bon=bon):
            bon_text = t("turn_ended.bon") if bon else ""
            return t("turn_ended", who=p[seat], result=result, n=n, bon=bon_text)
        case LimitSet(seat=seat, throws=n):
            return t("limit", who=p[seat], call=limit_call(n, lang))
        case TieDeclared(seats=seats, about=about, main_chaude=again):
            return t("main_chaude" if again else "tie", about=t(f"tie.{about}"), who=names(seats, p, lang))
        case StakeChosen(seat=seat, stake=stake):
            return t("stake", who=p[seat], stake=stake)
        case RoundDecided(losers=losers, winner=winner, amount=n, why=why):
            # the winner among the losers: everyone tied and every tied loser takes (tied_losers_all_take)
            key = "decided.all" if winner in losers else "decided" if len(losers) == 1 else "decided.many"
            return t(
                key,
                losers=names(losers, p, lang),
                winner=p[winner],
                n=n,
                why=t(f"why.{why}"),
            )
        case Took(seat=seat, amount=n, wanted=wanted):
            capped = t("took.capped", n=n, wanted=wanted) if n < wanted else ""
            return t("took", who=p[seat], n=n, capped=capped)
        case Gave(giver=giver, receiver=receiver, amount=n, wanted=wanted):
            capped = t("gave.capped", giver=p[giver], wanted=wanted) if n < wanted else ""
            return t("gave", giver=p[giver], receiver=p[receiver], n=n, capped=capped)
        case DebtOwed(seat=seat, amount=n):
            return t("debt_owed", who=p[seat], n=n)
        case DebtPaid(seat=seat, amount=n):
            return t("debt_paid", who=p[seat], n=n)
        case LeaderChosen(seat=seat, why=why):
            return t("leader", who=p[seat], why=t(f"leader.{why}"))
        case PhaseStarted(phase=phase, manche=manche):
            return t(f"phase.{phase}", manche=manche)
        case WentOut(seats=seats):
            return t("went_out.one" if len(seats) == 1 else "went_out.many", who=names(seats, p, lang))
        case MancheLost(seat=seat, manche=manche, espagnole=espagnole):
            how = t("manche_lost.espagnole") if espagnole else ""
            return t("manche_lost", who=p[seat], manche=manche, how=how)
        case GameOver(losers=losers):
            return t("game_over" if len(losers) == 1 else "game_over.many", who=names(losers, p, lang))
    raise AssertionError(f"no words for {event!r}")


def standings(state: State, lang: str = "en") -> str:
    """The pot, each player's tokens, the manche and the phase, on one line."""
    players = " · ".join(
        f"{name} {tokens}" + ("" if active else f" ({tr(lang, 'sk.out')})")
        for name, tokens, active in zip(state.players, state.tokens, state.active, strict=True)
    )
    phase = tr(lang, f"phase.name.{state.phase.value}")
    return tr(lang, "sk.standings", pot=state.pot, players=players, manche=state.manche, phase=phase)


def outcome_text(state: State, lang: str = "en", *, logged: bool = False) -> str:
    """The end of a game in a few lines.

    ``logged``: after a log that has just said who loses (the game-over line), the end is not said
    again; what that line did not say follows (« grand perdant », a shared loss, the winners, the
    manches), or nothing.
    """
    out = state.outcome
    if out is None:
        return tr(lang, "outcome.not_over")
    p = state.players
    said = logged and out.kind == "loser"  # "game over: Ana loses", then "Ana loses the game"
    lines = [] if said else [tr(lang, f"outcome.{out.kind}", who=names(out.losers, p, lang))]
    if out.winners:  # "in order" only where there is an order
        ranked = tr(lang, "list.semicolon").join(names(group, p, lang) for group in out.winners)
        alone = len(out.winners) == 1
        key = (
            "outcome.winners"
            if not alone
            else "outcome.winner"
            if len(out.winners[0]) == 1
            else "outcome.winners.tied"
        )
        lines.append(tr(lang, key, who=ranked))
    if len(out.manche_losers) > 1 or state.rules.manches > 1:
        each = tr(lang, "list.semicolon").join(
            tr(lang, "outcome.manche", n=i, who=p[s]) for i, s in enumerate(out.manche_losers, 1)
        )
        lines.append(tr(lang, "outcome.manches", who=each))
    return "\n".join(lines)
