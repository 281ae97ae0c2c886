"""What a player can do, with a text form that round-trips.

>>> parse_action("keep 4-2")
Throw(keep=(4, 2), bon=False)
>>> str(parse_action("bon 42"))
'bon 42'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from .dice import Result, format_dice, parse_dice
from .errors import InvalidNotation, Message, quoted

Stake = Literal["est", "vient"]


@dataclass(frozen=True, slots=True)
class Throw:
    """Throw again, keeping ``keep`` on the table (none, one or two dice).

    With ``bon`` the player declares « le bon »: this throw is final.
    """

    keep: tuple[int, ...] = ()
    bon: bool = False

    def __str__(self) -> str:
        if self.bon:
            return f"bon {format_dice(self.keep)}".strip()
        return f"keep {format_dice(self.keep)}" if self.keep else "throw"


@dataclass(frozen=True, slots=True)
class Stop:
    """Keep the current result: the turn ends."""

    def __str__(self) -> str:
        return "stop"


@dataclass(frozen=True, slots=True)
class ChooseStake:
    """« Main chaude »: play « pour ce qui est » or « pour ce qui vient »."""

    stake: Stake

    def __str__(self) -> str:
        return f"stake {self.stake}"


Action = Throw | Stop | ChooseStake


def offers_bon(actions: Iterable[Action]) -> bool:
    """Whether « le bon » may be said among ``actions`` (a state's legal actions)."""
    return any(isinstance(a, Throw) and a.bon for a in actions)


def action_data(action: Action) -> dict[str, object]:
    """An action as plain data, for views: its kind, the dice kept, « le bon », the stake, its text.

    >>> action_data(Throw((4, 2), bon=True))
    {'kind': 'throw', 'keep': [4, 2], 'bon': True, 'stake': None, 'text': 'bon 42'}
    """
    if isinstance(action, Throw):
        return {
            "kind": "throw",
            "keep": list(action.keep),
            "bon": action.bon,
            "stake": None,
            "text": str(action),
        }
    if isinstance(action, Stop):
        return {"kind": "stop", "keep": [], "bon": False, "stake": None, "text": str(action)}
    return {"kind": "stake", "keep": [], "bon": False, "stake": action.stake, "text": str(action)}


def action_from_data(data: object) -> Action:
    """An action from :func:`action_data`'s fields (``text`` aside), as a page sends it.

    >>> action_from_data({"kind": "throw", "keep": [4, 2], "bon": True})
    Throw(keep=(4, 2), bon=True)
    """
    accepted = '{"kind": "stop"}, {"kind": "throw", "keep": up to 2 dice, "bon": …} or {"kind": "stake", …}'
    if not isinstance(data, dict):
        raise InvalidNotation(Message("notation.action_object", {"accepted": accepted}))
    kind, keep, bon, stake = (
        data.get("kind"),
        data.get("keep") or [],
        data.get("bon", False),
        data.get("stake"),
    )
    if kind == "stop":
        return Stop()
    if kind == "stake" and stake in ("est", "vient"):
        return ChooseStake("est" if stake == "est" else "vient")
    if (
        kind == "throw"
        and isinstance(keep, list)
        and len(keep) <= 2
        and all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in keep)
        and isinstance(bon, bool)
    ):
        return Throw(tuple(keep), bon)
    raise InvalidNotation(Message("notation.action_data", {"data": repr(data), "accepted": accepted}))


@dataclass(frozen=True, slots=True)
class ReportedTurn:
    """A whole turn told at a real table: the final result after ``throws`` throws.

    ``earlier`` holds the results before the last one when they are known
    (needed where every throw adds to the stake). Text: ``421/2``, ``321;221;421``,
    with ``bon`` after the result when « le bon » was declared: ``555/2 bon``.

    >>> str(ReportedTurn.parse("4-2-1 / 2"))
    '421/2'
    """

    result: Result
    throws: int = 1
    earlier: tuple[Result, ...] = ()
    bon: bool = False

    def __post_init__(self) -> None:
        if not 1 <= self.throws <= 3:
            raise InvalidNotation(Message("notation.throws", {"n": self.throws}))
        if self.earlier and len(self.earlier) != self.throws - 1:
            raise InvalidNotation(Message("notation.every_throw"))

    def __str__(self) -> str:
        if self.earlier:
            text = ";".join(str(r) for r in (*self.earlier, self.result))
        else:
            text = str(self.result) if self.throws == 1 else f"{self.result}/{self.throws}"
        return f"{text} bon" if self.bon else text

    @staticmethod
    def parse(text: str) -> ReportedTurn:
        raw = text.strip().lower()
        # « bon » after the result, as records write it, or before it, as line mode's players say it
        before = raw.split(maxsplit=1)[:1] == ["bon"]
        bon = before or raw.endswith("bon")
        if bon:
            raw = (raw.removeprefix("bon") if before else raw.removesuffix("bon")).strip()
            if not raw:  # « bon » with no result
                raise InvalidNotation(Message("notation.bon_alone", {"text": quoted(text)}))
        if ";" in raw and "/" in raw:  # each throw told is counted already
            raise InvalidNotation(Message("notation.every_throw_counted", {"text": quoted(text)}))
        if ";" in raw:
            results = [Result.parse(part) for part in raw.split(";")]
            return ReportedTurn(results[-1], len(results), tuple(results[:-1]), bon)
        result_text, _, count = raw.partition("/")
        if count.strip() and not count.strip().isdigit():
            raise InvalidNotation(Message("notation.turn", {"text": quoted(text)}))
        throws = int(count) if count.strip() else 1
        return ReportedTurn(Result.parse(result_text), throws, (), bon)


ACTION_HELP = "throw, keep DICE (e.g. keep 42), bon [DICE], stop, stake est, stake vient"


def parse_action(text: str) -> Action:
    """Read an action as written in records and typed at prompts."""
    words = text.strip().lower().split(maxsplit=1)
    if not words:
        raise InvalidNotation(Message("notation.no_action", {"accepted": ACTION_HELP}))
    verb, rest = words[0], (words[1] if len(words) > 1 else "")
    if verb == "stop" and not rest:
        return Stop()
    if verb == "throw" and rest in ("", "all"):
        return Throw()
    if verb == "keep" and rest:
        return Throw(parse_dice(rest, what="kept dice"))
    if verb == "bon":
        try:
            return Throw(parse_dice(rest, what="kept dice"), bon=True)
        except InvalidNotation:
            if any(c.isdigit() for c in rest):
                raise  # dice written wrong: what is wrong with them
            # no dice at all (« bon bon »): what may follow « bon »
            raise InvalidNotation(Message("notation.bon_dice", {"text": quoted(rest)})) from None
    if verb == "stake" and rest in ("est", "vient"):
        return ChooseStake("est" if rest == "est" else "vient")
    if verb in ("est", "vient") and not rest:
        return ChooseStake("est" if verb == "est" else "vient")
    raise InvalidNotation(Message("notation.not_action", {"text": quoted(text), "accepted": ACTION_HELP}))
