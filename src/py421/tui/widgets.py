"""The dice as drawn faces, and the panels that show the table.

Dice are drawn with pips rather than digits so the screen looks like a
table; a kept die is shown in reverse colours with a label, because a
player must see at a glance what the next throw will leave on the table.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text
from textual import events
from textual.message import Message
from textual.widget import Widget

from ..core.engine import throws_allowed
from ..core.state import Phase, State
from .strings import ui

PIP = "●"

# Which of the 3x3 pip positions (row-major) each face shows.
_PIPS: dict[int, frozenset[int]] = {
    1: frozenset({4}),
    2: frozenset({2, 6}),
    3: frozenset({2, 4, 6}),
    4: frozenset({0, 2, 6, 8}),
    5: frozenset({0, 2, 4, 6, 8}),
    6: frozenset({0, 2, 3, 5, 6, 8}),
}


def face_lines(face: int | None) -> list[str]:
    """Three lines of seven characters drawing a face; ``None`` is a die still to throw.

    >>> face_lines(5)
    [' ●   ● ', '   ●   ', ' ●   ● ']
    >>> face_lines(None)[1]
    '   ?   '
    """
    if face is None:
        return ["       ", "   ?   ", "       "]
    pips = _PIPS[face]
    return [
        " " + " ".join(PIP if row * 3 + col in pips else " " for col in range(3)) + " " for row in range(3)
    ]


class Die(Widget):
    """One die: a face (or a die still to throw), kept or not, clickable."""

    DEFAULT_CSS = """
    Die {
        width: 11;
        height: 5;
        padding: 0 1;
        margin: 0 0 0 1;
        border: round $foreground 60%;
        border-title-align: left;
        border-subtitle-align: right;
    }
    Die.kept {
        border: heavy $foreground;
        background: $warning;
        color: $background;
        border-subtitle-color: $background;
        border-subtitle-background: $warning;
        border-subtitle-style: bold;
    }
    Die.past { color: $foreground 50%; border: round $foreground 30%; }
    Die.empty { color: $foreground 30%; border: round $foreground 20%; }
    Die.selectable:hover { border: heavy $accent; }
    Die.kept.selectable:hover { border: heavy $accent; }
    """

    class Toggled(Message):
        """The die was clicked: keep it or release it."""

        def __init__(self, index: int) -> None:
            self.index = index
            super().__init__()

    def __init__(self, index: int, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.index = index
        self.face: int | None = None
        self.border_title = str(index + 1)

    def show(
        self,
        face: int | None,
        *,
        kept: bool = False,
        past: bool = False,
        empty: bool = False,
        selectable: bool = False,
        kept_label: str = "",
    ) -> None:
        """Draw ``face``; ``past`` is a finished throw, ``empty`` a die with nothing to show."""
        self.face = face
        self.set_class(kept, "kept")
        self.set_class(past, "past")
        self.set_class(empty, "empty")
        self.set_class(selectable, "selectable")
        self.border_subtitle = kept_label if kept else ""
        self.refresh()

    def render(self) -> Text:
        if self.has_class("empty"):
            return Text("\n".join(["       "] * 3))
        return Text("\n".join(face_lines(self.face)), style="bold" if self.has_class("kept") else "")

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Toggled(self.index))


def players_table(state: State, acting: int | None, lang: str) -> Table:
    """Players, tokens, manches lost and this round's results; the acting seat marked ▶."""
    table = Table(box=None, padding=(0, 0, 0, 1), pad_edge=False, expand=True, show_edge=False)
    table.add_column("", width=1, no_wrap=True)
    table.add_column(ui(lang, "col.player"), ratio=1, no_wrap=True, overflow="ellipsis")
    table.add_column(ui(lang, "col.tokens"), justify="right", no_wrap=True)
    table.add_column(ui(lang, "col.lost"), justify="right", no_wrap=True)
    table.add_column(ui(lang, "col.round"), no_wrap=True)
    r = state.round
    done = {t.seat: t for t in r.done} if r is not None else {}
    for seat, name in enumerate(state.players):
        mark = "▶" if seat == acting else ("★" if seat == state.leader and not state.is_over else " ")
        tokens = str(state.tokens[seat])
        if state.debts[seat]:
            tokens += " " + ui(lang, "debt", n=state.debts[seat])
        if seat in done:
            turn = done[seat]
            this_round = f"{turn.result}/{turn.throws}"
        elif r is not None and seat == r.current and r.dice:
            this_round = "".join(str(f) for f in r.dice) + "…"
        else:
            this_round = ""
        if not state.active[seat] and not state.is_over:
            this_round = ui(lang, "out")
        style = "bold reverse" if seat == acting else ("dim" if not state.active[seat] else "")
        table.add_row(mark, Text(name, style=style), tokens, str(state.manche_losses[seat]), this_round)
    return table


def status_lines(state: State, lang: str) -> list[str]:
    """Manche, phase, pot and who leads, as the table's caption."""
    rules = state.rules
    if rules.fiches_de_manche:
        manche = ui(lang, "manche", n=state.manche)
    else:
        manche = ui(lang, "manche.of", n=state.manche, of=rules.manches)
    phase = ui(lang, f"phase.{state.phase.value}")
    lines = [f"{manche} · {phase} · {ui(lang, 'pot', n=state.pot)}"]
    if not state.is_over:
        lines.append(ui(lang, "leads", who=state.players[state.leader]))
    r = state.round
    if r is not None and rules.accumulated_stakes and state.phase is Phase.CHARGE:
        lines.append(ui(lang, "stake", n=r.stake))
    return lines


def turn_info(state: State, lang: str, limit_text: str | None, tie_names: str | None) -> list[str]:
    """Throws used of those allowed, the leader's limit and any tie-break under way."""
    parts: list[str] = []
    r = state.round
    if r is None:
        return parts
    if r.tie is not None and tie_names is not None:
        if r.tie.replays > 1:
            parts.append(ui(lang, "tie.replay", who=tie_names, n=r.tie.replays))
        else:
            parts.append(ui(lang, "tie.info", who=tie_names))
    elif r.current is not None:
        parts.append(ui(lang, "throws", n=r.throws, allowed=throws_allowed(state)))
    if limit_text is not None:
        parts.append(ui(lang, "limit", call=limit_text))
    return parts


def join(parts: Sequence[str]) -> str:
    return " · ".join(p for p in parts if p)
