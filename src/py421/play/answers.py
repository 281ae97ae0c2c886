"""What a person types, read as the game's actions: a player's answer at a prompt (with its short
forms, in either language) and what a real table reports (a turn, one throw's dice, the stake).

Shared by the terminal (``421 play``, ``421 table``), the server's scorekeeper and the page's own
tables, which runs it in the browser.
"""

from __future__ import annotations

from ..core.actions import Action, ChooseStake, Stake, Stop, Throw, parse_action
from ..core.dice import DICE_PER_THROW, parse_dice
from ..core.errors import InvalidNotation, Message, quoted
from ..core.game import Game
from ..core.state import State
from ..i18n import CATALOGS

# « Main chaude »: the same words in either language, as said at the table.
STAKES: dict[str, Stake] = {"e": "est", "est": "est", "v": "vient", "vient": "vient"}


def read_choice(text: str) -> Action:
    """A player's answer at the prompt, with the short forms."""
    # a phone or a French keyboard types the apostrophe of « s'arrêter » as ’
    answer = text.strip().lower().replace("\u2019", "'")
    if answer in STAKES:
        return ChooseStake(STAKES[answer])
    if answer in ("", "s"):
        return Stop()
    # « bon » after what is kept, as a table says it (« 55 bon », « 0 bon »)
    kept, bon = answer.removesuffix("bon").strip(), answer.endswith("bon") and answer != "bon"
    if kept in ("0", "t", "all"):
        return Throw(bon=bon)
    if kept[:1].isdigit():
        return Throw(parse_dice(kept, what="kept dice"), bon=bon)
    return _as_worded(answer) or parse_action(answer)


def read_stake(text: str) -> ChooseStake:
    """The stake named at the « main chaude » prompt (e, est, v, vient, or as the help words it).
    Any other answer is refused with that prompt's own choices, not every action there is."""
    try:
        action: Action | None = read_choice(text)
    except InvalidNotation:
        action = None
    if not isinstance(action, ChooseStake):
        raise InvalidNotation(Message("prompt.not_stake", {"text": quoted(text.strip())}))
    return action


def _as_worded(answer: str) -> Action | None:
    """An action typed as the help words it, in either language (« garder 5 », « tout relancer »)."""
    whole: tuple[tuple[str, Action], ...] = (
        ("action.stop", Stop()),
        ("action.throw", Throw()),
        ("action.bon", Throw(bon=True)),
        ("action.est", ChooseStake("est")),
        ("action.vient", ChooseStake("vient")),
    )
    for catalog in CATALOGS.values():
        for key, action in whole:
            if answer == catalog[key].lower():
                return action
        for key, bon in (("action.keep", False), ("action.bon_keep", True)):
            prefix = catalog[key].split("{kept}")[0].lower()
            if answer.startswith(prefix) and answer != prefix.strip():
                return Throw(parse_dice(answer[len(prefix) :], what="kept dice"), bon=bon)
    return None


def apply_report(game: Game, text: str) -> State:
    """What a real table reported, applied to ``game``: the stake at « main chaude » (the only choice
    made there), a whole turn where one starts, else one throw's dice (a draw, a tie-break)."""
    request = game.state.chance
    if request is None:
        return game.act(read_stake(text))
    if request.purpose == "turn" and request.count == DICE_PER_THROW and not request.kept:
        return game.report_turn(text)
    return game.throw(text)
