"""The help page (the preset's rules in words), the end screen, and the page of a hint or an analysis."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..core.rules import Ruleset, description_message, rules_name
from ..i18n import error_text, tr
from .strings import ui

RANKING_SHOWN = 16


def keys_text(rules: Ruleset, lang: str, hints: bool = False) -> str:
    """The keys, naming « le bon » and the stake keys only where these rules play them, the hint's
    only where hints are on."""
    names = ["keep", "throw", "stop"]
    if rules.le_bon:
        names.append("bon")
    if rules.main_chaude:
        names.append("stake")
    if hints:
        names.append("hint")
    names += ["analysis", "help", "quit"]
    return ui(lang, "help.keys", keys=" · ".join(ui(lang, f"help.key.{name}") for name in names))


def rules_text(rules: Ruleset, lang: str, hints: bool = False) -> str:
    """The preset in words: name, description, source, what differs, the top of the ranking."""
    lines = [ui(lang, "help.title", name=rules_name(rules))]
    if rules.description:
        lines.append(error_text(lang, description_message(rules)))
    if rules.source:
        lines.append(ui(lang, "help.source", source=rules.source))
    lines += [
        "",
        ui(
            lang,
            "help.basics",
            pot=rules.pot,
            charge=rules.charge_throws,
            decharge=rules.decharge_throws,
            manches=rules.fiches_de_manche or rules.manches,
        ),
        "",
        ui(lang, "help.changed"),
    ]
    changed = rules.changed_options()
    if not changed:
        lines.append(ui(lang, "help.none"))
    for name, value in changed.items():
        shown = str(value).lower() if isinstance(value, bool) else str(value)
        lines.append(f"  {name} = {shown} — {tr(lang, f'option.{name}')}")
    table = rules.table
    top = [f"{result} ({table.values[result]})" for result in table.order[:RANKING_SHOWN]]
    lines += ["", ui(lang, "help.ranking")]
    for start in range(0, len(top), 8):
        lines.append("  " + " · ".join(top[start : start + 8]))
    lines += ["", keys_text(rules, lang, hints), "", ui(lang, "help.close")]
    return "\n".join(lines)


def panel_css(screen: str) -> str:
    """A page over the table: a framed panel in the middle, scrolled when long."""
    return (
        f"{screen} {{ align: center middle; }}\n"
        f"{screen} > VerticalScroll {{\n"
        "    width: 90%; max-width: 110; height: auto; max-height: 90%;\n"
        "    border: thick $accent; background: $surface; padding: 0 1;\n"
        "}\n"
    )


class HelpScreen(ModalScreen[None]):
    """The rules of the game being played, over the table."""

    DEFAULT_CSS = panel_css("HelpScreen")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,h,enter", "close", show=False),
    ]

    def __init__(self, rules: Ruleset, lang: str, hints: bool = False) -> None:
        super().__init__()
        self.text = rules_text(rules, lang, hints)

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(self.text, markup=False, id="help-text")

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()  # the arrows, Page Up / Down, Home and End scroll it at once

    def action_close(self) -> None:
        self.dismiss(None)


class EndScreen(ModalScreen[None]):
    """The outcome; quitting from here leaves the stored game complete."""

    DEFAULT_CSS = """
    EndScreen { align: center middle; }
    EndScreen > VerticalScroll {
        width: auto;
        min-width: 40;
        max-width: 90%;
        height: auto;
        border: thick $success;
        background: $surface;
        padding: 1 2;
    }
    #end-title { text-style: bold; color: $success; margin-bottom: 1; }
    #end-outcome { text-style: bold; }
    #end-keys { color: $foreground 60%; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q,enter", "quit_app", show=False),
        Binding("escape", "close", show=False),
        Binding("a", "app.analysis", show=False),
    ]

    def __init__(self, outcome: str, lang: str) -> None:
        super().__init__()
        self.text = outcome
        self.lang = lang

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(ui(self.lang, "end.title"), id="end-title")
            yield Static(self.text, markup=False, id="end-outcome")
            yield Static(ui(self.lang, "end.keys"), id="end-keys")

    def action_quit_app(self) -> None:
        self.app.exit()

    def action_close(self) -> None:
        self.dismiss(None)


class CoachScreen(ModalScreen[None]):
    """A hint or the game's analysis: how far the values are worked out, then the text.

    The values are worked out in a thread (a ruleset solved for the first time
    takes from a second to minutes), which tells this page how far it is
    (:meth:`progress`) and then what to show (:meth:`show`); closing the page
    before leaves the solve to finish for the next time.
    """

    DEFAULT_CSS = (
        panel_css("CoachScreen")
        + """
    #coach-title { text-style: bold; }
    #coach-progress { color: $foreground 70%; }
    #coach-keys { color: $foreground 60%; margin-top: 1; }
    """
    )

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,enter,i,a", "close", show=False),  # i and a: the keys that open it
    ]

    def __init__(self, heading: str, lang: str) -> None:
        super().__init__()
        self.heading = heading
        self.lang = lang
        self.text = ""  # what was worked out, once it is
        self.said: list[str] = []  # the progress shown, in order

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(self.heading, markup=False, id="coach-title")
            yield Static(ui(self.lang, "coach.working"), markup=False, id="coach-progress")
            yield Static("", markup=False, id="coach-text")
            yield Static(ui(self.lang, "coach.close"), markup=False, id="coach-keys")

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()  # the arrows and Page Up / Down scroll it
        self._draw()

    @property
    def done(self) -> bool:
        return bool(self.text)

    def progress(self, text: str) -> None:
        self.said.append(text)
        self._draw()

    def show(self, text: str) -> None:
        self.text = text
        self._draw()

    def _draw(self) -> None:
        """Show where the work is; before the page is mounted (the thread can be quicker), nothing
        is there to update yet, and mounting draws it."""
        for progress in self.query("#coach-progress").results(Static):
            progress.display = not self.done
            progress.update(self.said[-1] if self.said else ui(self.lang, "coach.working"))
        for found in self.query("#coach-text").results(Static):
            found.update(self.text)

    def action_close(self) -> None:
        self.dismiss(None)
