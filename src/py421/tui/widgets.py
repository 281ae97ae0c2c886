"""The dice as drawn faces, and the panels that show the table.

Dice are drawn with pips rather than digits so the screen looks like a
table; a kept die is shown in reverse colours with a label, because a
player must see at a glance what the next throw will leave on the table.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text
from textual import events
from textual.message import Message
from textual.widget import Widget

from ..core.engine import stakes_accumulate, throws_allowed
from ..core.state import State
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


def place(slots: Sequence[int], kept: Collection[int], thrown: Sequence[int]) -> tuple[int, ...] | None:
    """The faces in each slot after a throw: ``kept`` slots keep theirs, the ``thrown`` faces fill the others.

    The engine holds a result sorted, which would move the kept dice around; a
    player must see the dice they kept stay where they were. None if ``thrown``
    does not fill exactly the slots left.

    >>> place((6, 4, 1), {1}, (5, 5))
    (5, 4, 5)
    >>> place((6, 4, 1), {1, 2}, (2,))
    (2, 4, 1)
    >>> place((6, 4, 1), {1}, (2,)) is None
    True
    """
    if len(thrown) != len(slots) - len(kept):
        return None
    new = iter(sorted(thrown, reverse=True))
    return tuple(face if i in kept else next(new) for i, face in enumerate(slots))


def kept_slots(slots: Sequence[int], faces: Sequence[int], prefer: Collection[int] = ()) -> set[int] | None:
    """The slots that hold the kept ``faces`` (a multiset), taking the ``prefer`` slots first when equal.

    A person marked particular dice; a bot only names faces, so any slot showing the face will do.
    None if the faces are not all on show.

    >>> sorted(kept_slots((6, 1, 6), (6,)) or ())
    [0]
    >>> sorted(kept_slots((6, 1, 6), (6,), prefer={2}) or ())
    [2]
    >>> kept_slots((6, 1, 6), (5,)) is None
    True
    """
    left = list(faces)
    chosen: set[int] = set()
    for i in sorted(range(len(slots)), key=lambda i: i not in prefer):
        if slots[i] in left:
            left.remove(slots[i])
            chosen.add(i)
    return None if left else chosen


NAME_WANTED = 8  # below this many cells a name gets hard to read: drop columns first


def fit_names(names: Sequence[str], width: int) -> list[str]:
    """Each name cut to ``width`` characters with an ellipsis; names then alike keep their ends.

    >>> fit_names(["Alice", "Dominique"], 6)
    ['Alice', 'Domin…']
    >>> fit_names(["Heuristic 1", "Heuristic 2", "Ana"], 7)
    ['Heu…c 1', 'Heu…c 2', 'Ana']
    """
    width = max(width, 2)

    def cut(name: str, tail: int) -> str:
        if len(name) <= width:
            return name
        head = width - 1 - tail
        return name[:head] + "…" + (name[-tail:] if tail else "")

    cuts = [cut(name, 0) for name in names]
    return [
        cut(name, (width - 1) // 2) if cuts.count(short) > 1 and short != name else short
        for name, short in zip(names, cuts, strict=True)
    ]


@dataclass(frozen=True, slots=True)
class PlayerRow:
    mark: str
    name: str
    style: str
    cells: tuple[str, str, str]  # tokens, manches lost, this round


class PlayersTable:
    """The players' table, laid out for the width it is drawn at: the names come first.

    Given too little room, a table shrinks every column, names included, to
    nothing. This one drops the columns a player can best do without (manches
    lost, then this round's results: the log has them) and cuts a name with an
    ellipsis only when even the tokens alone leave too little room.
    """

    def __init__(self, headers: tuple[str, str, str, str], rows: Sequence[PlayerRow]) -> None:
        self.headers = headers
        self.rows = list(rows)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, options.max_width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.table(options.max_width)

    def columns(self, width: int) -> tuple[list[int], int]:
        """The extra columns shown (0 tokens, 1 lost, 2 this round) and the room left for names."""
        sizes = [max([len(self.headers[c + 1]), *(len(row.cells[c]) for row in self.rows)]) for c in range(3)]
        longest = max((len(row.name) for row in self.rows), default=1)
        choices = ([0, 1, 2], [0, 2], [0])

        def room(columns: list[int]) -> int:
            # the mark, then one cell of padding before each column after it
            return width - 2 - sum(1 + sizes[c] for c in columns)

        for wanted in (longest, min(longest, NAME_WANTED)):
            for columns in choices:
                if room(columns) >= wanted:
                    return columns, room(columns)
        return choices[-1], room(choices[-1])

    def table(self, width: int) -> Table:
        columns, room = self.columns(width)
        table = Table(box=None, padding=(0, 0, 0, 1), pad_edge=False, expand=True, show_edge=False)
        table.add_column("", width=1, no_wrap=True)
        table.add_column(self.headers[0], ratio=1, no_wrap=True, overflow="ellipsis")
        for c in columns:
            table.add_column(self.headers[c + 1], justify="left" if c == 2 else "right", no_wrap=True)
        names = fit_names([row.name for row in self.rows], room)
        for row, name in zip(self.rows, names, strict=True):
            table.add_row(row.mark, Text(name, style=row.style), *(row.cells[c] for c in columns))
        return table


def leader_known(state: State) -> bool:
    """Whether the game has a leader to show: not while a draw (for the first player, or the
    décharge's leader) is deciding who it is, nor once the game is over."""
    return not state.is_over and state.draw is None


def players_table(state: State, acting: int | None, lang: str) -> PlayersTable:
    """Players, tokens, manches lost and this round's results; the acting seat marked ▶, the leader ★."""
    headers = (ui(lang, "col.player"), ui(lang, "col.tokens"), ui(lang, "col.lost"), ui(lang, "col.round"))
    rows: list[PlayerRow] = []
    r = state.round
    done = {t.seat: t for t in r.done} if r is not None else {}
    for seat, name in enumerate(state.players):
        mark = "▶" if seat == acting else ("★" if seat == state.leader and leader_known(state) else " ")
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
        rows.append(PlayerRow(mark, name, style, (tokens, str(state.manche_losses[seat]), this_round)))
    return PlayersTable(headers, rows)


class KeysLine:
    """The keys line: each entry a key and what it does, dimmed when not usable now.

    When the line is too long for the width, the space between entries narrows
    first (every key the rules use stays in sight), then the dimmed entries go, then
    the space narrows again; only then is the end cut.
    """

    def __init__(self, entries: Sequence[tuple[str, str, bool]]) -> None:
        self.entries = list(entries)  # (keys, label, usable now)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, options.max_width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.text(options.max_width)

    def text(self, width: int) -> Text:
        line = Text()
        enabled = [e for e in self.entries if e[2]]
        tries = (
            (self.entries, " · "),
            (self.entries, "  "),
            (enabled, " · "),
            (enabled, "  "),
            (enabled, " "),
        )
        for entries, sep in tries:
            line = Text(no_wrap=True, overflow="ellipsis")
            for i, (keys, label, usable) in enumerate(entries):
                if i:
                    line.append(sep)
                line.append(keys, style="bold" if usable else "dim")
                line.append(" " + label, style="" if usable else "dim")
            if line.cell_len <= width:
                return line
        line.truncate(width, overflow="ellipsis")
        return line


def status_lines(state: State, lang: str) -> list[str]:
    """Manche, phase, pot and who leads, as the table's caption."""
    rules = state.rules
    if rules.fiches_de_manche:
        manche = ui(lang, "manche", n=state.manche)
    else:
        manche = ui(lang, "manche.of", n=state.manche, of=rules.manches)
    phase = ui(lang, f"phase.{state.phase.value}")
    lines = [f"{manche} · {phase} · {ui(lang, 'pot', n=state.pot)}"]
    if leader_known(state):
        lines.append(ui(lang, "leads", who=state.players[state.leader]))
    r = state.round
    if r is not None and stakes_accumulate(state):
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
    elif r.current is not None and r.throws:  # before the first throw, nothing is counted yet
        parts.append(ui(lang, "throws", n=r.throws, allowed=throws_allowed(state)))
    if limit_text is not None:
        parts.append(ui(lang, "limit", call=limit_text))
    return parts


def join(parts: Sequence[str]) -> str:
    return " · ".join(p for p in parts if p)
