"""The terminal UI: a game of 421 driven through :class:`~py421.play.session.Session`.

The app never applies the rules itself. It asks the session whose step it
is, lets bots play on a timer (so a human can follow and the screen never
freezes), waits for humans at their throws and decisions, and puts every
event into words with :func:`py421.text.describe`. Whatever a human tries is
checked by the engine; a refused choice shows the engine's reason and
changes nothing. A key that can do nothing now (another player's turn, an
option these rules do not play) says why in a note, and the keys line shows
only the keys these rules use.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.actions import parse as parse_action
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.timer import Timer
from textual.widgets import Button, RichLog, Static

from ..core.actions import Action, ChooseStake, Stop, Throw, offers_bon
from ..core.dice import DICE_PER_THROW, format_dice
from ..core.engine import BON_FEWEST_THROWS, throws_allowed
from ..core.errors import Py421Error
from ..core.events import (
    DebtOwed,
    DebtPaid,
    Event,
    GameOver,
    Gave,
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
from ..core.rules import rules_name
from ..core.state import Round, State
from ..i18n import error_text, tr
from ..paths import system_reason
from ..play.coach import Coach, Say, hints_on
from ..play.session import Session
from ..text import describe, limit_call, names, outcome_text
from .screens import CoachScreen, EndScreen, HelpScreen
from .strings import ui
from .widgets import Die, KeysLine, join, kept_slots, place, players_table, status_lines, turn_info

_STYLES: dict[type, str] = {
    PhaseStarted: "bold cyan",
    LimitSet: "cyan",
    TieDeclared: "bold magenta",
    StakeChosen: "bold magenta",
    RoundDecided: "bold yellow",
    Took: "yellow",
    Gave: "yellow",
    DebtOwed: "yellow",
    DebtPaid: "yellow",
    WentOut: "bold green",
    MancheLost: "bold red",
    GameOver: "bold red",
}

# The actions that play the game, and those that value it: the only ones check_action may refuse.
GAME_ACTIONS = frozenset({"throw", "stop", "bon", "toggle_die", "stake"})
CHECKED_ACTIONS = GAME_ACTIONS | {"hint", "analysis"}

# The keys line, in order: the keys as shown, the action they run, the label's key in the catalog (tui.*).
KEYS_LINE = (
    ("1 2 3", "toggle_die", "keys.keep"),
    ("t", "throw", "keys.throw"),
    ("s", "stop", "keys.stop"),
    ("b", "bon", "keys.bon"),
    ("e/v", "stake", "keys.stake"),
    ("i", "hint", "keys.hint"),
    ("a", "analysis", "keys.analysis"),
    ("?", "help", "keys.help"),
    ("q", "quit_game", "keys.quit"),
)

REFUSAL_SECONDS = 3.0  # how long a « why not » note stays up


class KeyButton(Button, can_focus=False):
    """A button that never takes the focus, so keys always reach the game.

    Its label fills it, without Textual's blank cell on each side: the three buttons of a
    decision fit the play panel in French too (« Lancer (t) S'arrêter (s) le bon (b) »).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.styles.line_pad = 0  # (Textual's CSS takes no 0 for line-pad)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return max(super().get_content_width(container, viewport) - 2, 1)


class GameLog(RichLog, can_focus=False):
    """The log of the game; scrolled with the mouse or Page Up / Page Down."""


class PlayApp(App[None]):
    """Play a session at the terminal: humans at the keyboard and mouse, bots on a timer."""

    TITLE = "py421"
    AUTO_FOCUS = None
    # Below 80 columns the panels lose their padding, so the names keep their room.
    # (Textual's annotation makes it an instance variable: a ClassVar here would not type-check.)
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (80, "-wide")]  # noqa: RUF012
    CSS = """
    Screen { layout: vertical; }
    #title { height: 1; background: $primary; color: $text; text-style: bold; padding: 0 1; }
    #top { height: auto; }
    #table-panel { width: 1fr; height: 100%; overflow-y: auto; border: round $primary; padding: 0 1; }
    #status { margin-top: 1; color: $foreground 80%; }
    #play-panel { width: 42; height: auto; border: round $accent; padding: 0 1; }
    #banner { height: auto; min-height: 2; text-style: bold; }
    #banner.human { background: $accent 40%; }
    #dice-caption { color: $foreground 60%; }
    #dice { height: 5; width: 100%; align-horizontal: center; }
    #info { height: auto; min-height: 2; }
    #buttons { height: 1; }
    #buttons KeyButton { width: auto; min-width: 0; margin-right: 1; }
    #message { height: auto; color: $error; text-style: bold; padding: 0 1; }
    #log { height: 1fr; min-height: 4; border: round $primary; }
    #keys { height: 1; color: $foreground 70%; background: $panel; padding: 0 1; }
    Screen.-narrow #play-panel { width: 38; padding: 0; }
    Screen.-narrow #table-panel { padding: 0; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t,space", "throw", show=False),
        Binding("s", "stop", show=False),
        Binding("b", "bon", show=False),
        Binding("1", "toggle_die(0)", show=False),
        Binding("2", "toggle_die(1)", show=False),
        Binding("3", "toggle_die(2)", show=False),
        Binding("e", "stake('est')", show=False),
        Binding("v", "stake('vient')", show=False),
        Binding("i", "hint", show=False),
        Binding("a", "analysis", show=False),
        Binding("question_mark,h", "help", show=False),
        Binding("pageup", "log_page(-1)", show=False),
        Binding("pagedown", "log_page(1)", show=False),
        Binding("q", "quit_game", show=False),
        Binding("ctrl+q,ctrl+c", "quit_game", show=False, priority=True),
    ]

    def __init__(
        self,
        session: Session,
        *,
        lang: str = "en",
        bot_delay: float = 0.6,
        on_step: Callable[[Session], None] | None = None,
        on_finish: Callable[[Session], None] | None = None,
        hints: bool = False,
        resume: Callable[[], str] = lambda: "421 play --resume",
    ) -> None:
        """``hints``: the hint key between several people too (one person against bots has it anyway);
        ``resume()``: the command that takes the game up again, said on leaving."""
        super().__init__()
        self.session = session
        self._resume = resume
        self.lang = lang
        self.hints = hints_on(session, hints)
        self.coach = Coach(session, lang)
        self.bot_delay = bot_delay
        self._on_step = on_step
        self._on_finish = on_finish
        # The current player's dice slot by slot: a throw leaves the kept dice in their slots.
        self._slots: tuple[int, ...] = ()
        self._slots_seat: int | None = None
        self._kept: set[int] = set()  # slots marked kept (by the person deciding, or a throw asked for)
        self._timer: Timer | None = None
        self._bot_pending = False  # a bot's step is scheduled
        self._finished = False
        self._announced: int | None = None
        self._last_throw: tuple[int, tuple[int, ...]] | None = None
        self.log_lines: list[str] = []  # the log as plain text, for tests and tools
        self.announcements: list[str] = []  # hot-seat « your turn » calls
        self.refusals: list[str] = []  # why a key did nothing, as shown
        self._last_refusal: tuple[str, float] | None = None
        self.error_text = ""
        self._key_actions: dict[str, list[str]] = {}  # key -> the game actions it runs
        for binding in self.BINDINGS:
            if isinstance(binding, Binding):
                name = parse_action(binding.action)[1]
                if name in CHECKED_ACTIONS:
                    for key in binding.key.split(","):
                        self._key_actions.setdefault(key.strip(), []).append(name)

    # -- layout ----------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="title", markup=False)
        with Horizontal(id="top"):
            with Vertical(id="table-panel"):
                yield Static(id="players")
                yield Static(id="status", markup=False)
            with Vertical(id="play-panel"):
                yield Static(id="banner", markup=False)
                yield Static(id="dice-caption", markup=False)
                with Horizontal(id="dice"):
                    for i in range(3):
                        yield Die(i, id=f"die-{i + 1}")
                yield Static(id="info", markup=False)
                with Horizontal(id="buttons"):
                    yield KeyButton(ui(self.lang, "btn.throw"), "primary", id="throw", compact=True)
                    yield KeyButton(ui(self.lang, "btn.stop"), "error", id="stop", compact=True)
                    yield KeyButton(ui(self.lang, "btn.bon"), "warning", id="bon", compact=True)
                    yield KeyButton(ui(self.lang, "btn.est"), "primary", id="est", compact=True)
                    yield KeyButton(ui(self.lang, "btn.vient"), "warning", id="vient", compact=True)
        yield Static(id="message", markup=False)
        yield GameLog(id="log", wrap=True, markup=False, max_lines=5000, min_width=20)
        yield Static(id="keys", markup=False)

    def on_mount(self) -> None:
        session = self.session
        players = ", ".join(s.name for s in session.seats)
        self.query_one("#title", Static).update(
            ui(self.lang, "title", rules=rules_name(session.rules), players=players)
        )
        self.query_one("#table-panel").border_title = ui(self.lang, "table.title")
        self.query_one("#log").border_title = ui(self.lang, "log.title")
        self._show_error("")
        self._write(tr(self.lang, "table", rules=rules_name(session.rules), players=players), "bold")
        for state in session.game.states:  # a resumed game shows its whole story
            self._follow(state)
            self._write_events(state.events, announce=False)
        self._refresh()
        self._advance()

    # -- the play loop -----------------------------------------------------

    def _human_turn(self) -> int | None:
        """The human seat whose throw or decision is awaited, if any."""
        seat = self.session.human_to_move()
        return seat if seat is not None else self.session.human_to_throw()

    def _advance(self) -> None:
        """After any change: end the game, announce a human, or let a bot play after a pause."""
        if self.session.state.is_over:
            self._finish()
            return
        human = self._human_turn()
        if human is not None:
            self._announce(human)
        elif not self._bot_pending:
            self._bot_pending = True
            if self.bot_delay > 0:
                self._timer = self.set_timer(self.bot_delay, self._bot_step)
            else:  # no pause asked for (tests): still one step per turn of the event loop
                self.call_later(self._bot_step)

    def _bot_step(self) -> None:
        """A throw or decision nobody at the keyboard makes: the session does it."""
        self._timer = None
        if not self._bot_pending:  # quitting cancelled it
            return
        self._bot_pending = False
        if self.session.state.is_over or self._human_turn() is not None:
            self._advance()
            return
        try:
            self.session.step()
        except Py421Error as exc:  # a bot broke the rules: say so rather than crash
            self._show_error(error_text(self.lang, exc))
            return
        self._stepped()
        self._advance()

    def _stepped(self) -> None:
        """One step was applied: log its events, let the caller save, redraw."""
        self._follow(self.session.state)
        self._show_error("")
        self._write_events(self.session.state.events)
        if self._on_step is not None:
            try:
                self._on_step(self.session)
            except Exception as exc:  # a failed save must not end the game being played
                self.notify(ui(self.lang, "save_failed", reason=self._why(exc)), severity="error")
        self._refresh()

    def _why(self, exc: Exception) -> str:
        """Why a save failed, in the player's language (the system's refusal too), with its file."""
        if not isinstance(exc, OSError | UnicodeDecodeError):
            return error_text(self.lang, exc)
        why = error_text(self.lang, system_reason(exc))
        filename = getattr(exc, "filename", None)
        return f"{why} ({filename})" if filename else why

    def _finish(self) -> None:
        if self._finished:
            return
        self._finished = True
        self._refresh()
        if self._on_finish is not None:
            try:
                self._on_finish(self.session)
            except Exception as exc:  # the outcome is still shown; the save has it
                self.notify(ui(self.lang, "save_failed", reason=self._why(exc)), severity="error")
        self.push_screen(EndScreen(outcome_text(self.session.state, self.lang), self.lang))

    def _announce(self, seat: int) -> None:
        """Hot seat: name the human who must act whenever that person changes."""
        if seat == self._announced:
            return
        self._announced = seat
        if len(self.session.humans) > 1:
            message = tr(self.lang, "your_turn", who=self.session.seats[seat].name)
            self.announcements.append(message)
            self.notify(message, timeout=4)

    def _decide(self, action: Action) -> None:
        """A human's decision; a refused one shows the engine's reason and changes nothing."""
        session = self.session
        seat = session.human_to_move()
        if seat is None:
            return
        if isinstance(action, Throw) and len(action.keep) >= DICE_PER_THROW:
            # the engine would list its typed choices (« keep 6 … bon 51 »): say it in this game's keys
            if Stop() in session.state.legal_actions():
                self._show_error(ui(self.lang, "why.keep_all"))
            else:
                self._show_error(ui(self.lang, "why.keep_all.on", who=session.state.players[seat]))
            return
        try:
            session.act(action)
        except Py421Error as exc:
            self._show_error(error_text(self.lang, exc))
            return
        self._stepped()
        request = session.state.chance
        # Pressing « throw » both chooses the dice to keep and throws the others.
        if isinstance(action, Throw) and request is not None and request.seat == seat:
            session.step()
            self._stepped()
        self._advance()

    # -- the dice in their slots -------------------------------------------

    def _follow(self, state: State) -> None:
        """Keep each die in its slot through a turn, and the kept dice marked.

        The engine holds the dice sorted, so a throw that kept some would redraw them
        elsewhere; here the kept dice stay put and the thrown ones fill the other slots.
        """
        for event in state.events:
            if isinstance(event, Thrown):
                faces = event.result.dice if event.result is not None else event.faces
                kept, placed = None, None
                if event.purpose == "turn" and event.kept and event.seat == self._slots_seat:
                    kept = kept_slots(self._slots, event.kept, prefer=self._kept)
                    placed = place(self._slots, kept, event.faces) if kept is not None else None
                if kept is None or placed is None:  # all three thrown: the engine's order
                    self._slots, self._kept = faces, set()
                else:
                    self._slots, self._kept = placed, kept
                self._slots_seat = event.seat
                self._last_throw = (event.seat, self._slots)
            elif isinstance(event, TurnEnded):
                self._kept = set()
        r = state.round
        if r is not None and r.pending is not None and r.current == self._slots_seat:
            # a throw asked for: mark the dice it keeps (a bot names faces, a person marked slots)
            self._kept = kept_slots(self._slots, r.pending, prefer=self._kept) or set()

    def _shown(self, r: Round) -> tuple[int, ...]:
        """The current player's dice slot by slot (in the engine's order should the slots not match)."""
        if self._slots_seat == r.current and sorted(self._slots, reverse=True) == list(r.dice):
            return self._slots
        return r.dice

    # -- actions (keys, buttons, clicks) -----------------------------------

    def _deciding_dice(self) -> tuple[int, ...] | None:
        """The dice a human may keep or release now, slot by slot, or None."""
        state = self.session.state
        r = state.round
        if self.session.human_to_move() is None or r is None or r.tie is not None:
            return None
        return self._shown(r)

    def _kept_faces(self) -> tuple[int, ...]:
        dice = self._deciding_dice() or ()
        return tuple(dice[i] for i in sorted(self._kept) if i < len(dice))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide the keys these rules never use (False); grey out those of no use now (None).

        The hint's key and the analysis's are shown only while they can be used (the keys line
        has no room for them dimmed): a hint at a person's decision, where hints are on; the
        analysis once the game is over.
        """
        if action not in CHECKED_ACTIONS:
            return True
        if self._never(action) is not None:
            return False
        if action in ("hint", "analysis"):
            return self._refusal(action) is None
        return True if self._refusal(action) is None else None

    def _never(self, action: str) -> str | None:
        """Why the rules being played never allow ``action``, or None."""
        rules = self.session.rules
        if action == "bon" and not rules.le_bon:
            return ui(self.lang, "why.bon.rules", rules=rules.name)
        if action == "stake" and not rules.main_chaude:
            return ui(self.lang, "why.stake.rules", rules=rules.name)
        if action == "hint" and not self.hints:
            off = tr(self.lang, "coach.off")
            return off[:1].upper() + off[1:]
        return None

    def _refusal(self, action: str) -> str | None:
        """Why ``action`` can do nothing now, in the game's language; None when it can be taken."""
        never = self._never(action)
        if never is not None:
            return never
        session, state, lang = self.session, self.session.state, self.lang
        if action == "analysis":
            return None if state.is_over else ui(lang, "why.analysis.now")
        if state.is_over:
            return ui(lang, "why.over")
        if action == "hint":
            return None if session.human_to_move() is not None else ui(lang, "why.hint.now")
        r = state.round
        staking = session.human_to_move() is not None and r is not None and r.tie is not None
        if action == "stake":
            return None if staking else ui(lang, "why.stake.now")
        if staking:
            return ui(lang, "why.choose_stake")
        if self._deciding_dice() is not None:
            legal = state.legal_actions()
            bon = offers_bon(legal)
            if action == "bon" and not bon:
                return self._bon_turn() or ui(lang, "why.bon.last")
            if action == "stop" and Stop() not in legal:  # behind, where who is behind throws on
                seat = session.human_to_move()
                who = state.players[seat] if seat is not None else ""
                return ui(lang, "why.stop.behind_bon" if bon else "why.stop.behind", who=who)
            return None
        request = state.chance
        if session.human_to_throw() is not None and request is not None:
            if action == "throw":
                return None
            if request.purpose == "tie":
                return ui(lang, "why.coup_sec")
            if request.purpose != "turn":
                return ui(lang, "why.draw")
            if action == "bon":
                return self._bon_turn() or ui(lang, "why.bon.first")
            return ui(lang, "why.keep.first" if action == "toggle_die" else f"why.{action}.first")
        # nobody at this keyboard acts now
        if action == "toggle_die" and self._last_throw is not None and not self._current_dice_shown(state):
            return ui(lang, "why.turn_over", who=state.players[self._last_throw[0]])
        seat = request.seat if request is not None else state.to_move
        return ui(lang, "why.wait", who=state.players[seat] if seat is not None else "")

    def _bon_turn(self) -> str | None:
        """Why « le bon » can never be declared in this turn (too few throws allowed), or None."""
        allowed = throws_allowed(self.session.state)
        return ui(self.lang, "why.bon.turn", allowed=allowed) if allowed < BON_FEWEST_THROWS else None

    def _refuse(self, reason: str) -> None:
        """Say why a key did nothing; one note per reason at a time, however often it is pressed."""
        self.refusals.append(reason)
        now = time.monotonic()
        last = self._last_refusal
        if last is not None and last[0] == reason and now - last[1] < REFUSAL_SECONDS:
            return
        self._last_refusal = (reason, now)
        self.notify(reason, severity="warning", timeout=REFUSAL_SECONDS)

    def on_key(self, event: events.Key) -> None:
        """Textual skips a key whose action check_action refuses: say why rather than nothing."""
        if self.screen is not self.screen_stack[0]:
            return  # the help or end page over the table has the keys
        for action in self._key_actions.get(event.key, ()):
            reason = self._refusal(action)
            if reason is not None:
                self._refuse(reason)

    def action_throw(self) -> None:
        if self.session.human_to_throw() is not None:
            try:
                self.session.step()
            except Py421Error as exc:
                self._show_error(error_text(self.lang, exc))
                return
            self._stepped()
            self._advance()
        elif self._deciding_dice() is not None:
            self._decide(Throw(self._kept_faces()))

    def action_stop(self) -> None:
        if self._deciding_dice() is not None:
            reason = self._refusal("stop")  # the key is refused before it gets here; the button is not
            if reason is not None:
                self._refuse(reason)
                return
            self._decide(Stop())

    def action_bon(self) -> None:
        if self._deciding_dice() is not None:
            self._decide(Throw(self._kept_faces(), bon=True))

    def action_stake(self, stake: str) -> None:
        r = self.session.state.round
        if self.session.human_to_move() is not None and r is not None and r.tie is not None:
            self._decide(ChooseStake("vient" if stake == "vient" else "est"))

    def action_toggle_die(self, index: int) -> None:
        dice = self._deciding_dice()
        if dice is None or index >= len(dice):
            return
        self._kept.symmetric_difference_update({index})
        self._show_error("")
        self._refresh()

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.session.rules, self.lang, self.hints))

    def action_hint(self) -> None:
        """The choices of the decision awaited, ranked by their values."""
        if self._refusal("hint") is not None:
            return
        state = self.session.state
        self._coach_page(ui(self.lang, "coach.hint"), lambda say: self.coach.hint(state, say))

    def action_analysis(self) -> None:
        """The finished game's analysis: each person's summary, their decisions costliest first."""
        if self._refusal("analysis") is not None:
            return
        self._coach_page(ui(self.lang, "coach.analysis"), self.coach.analysis)

    def _coach_page(self, heading: str, work: Callable[[Say], str]) -> None:
        """A page that shows how far ``work`` is, then what it found.

        ``work`` runs in a thread of its own, so the screen goes on while a ruleset is solved;
        it is a daemon, so that leaving does not wait for a long solve. How far a solve is goes
        to whichever such page is open: one opened again while the first one's solve runs waits
        for it, and says how far it is.
        """
        page = CoachScreen(heading, self.lang)
        self.push_screen(page)

        def later(call: Callable[[str], None], text: str) -> None:
            with contextlib.suppress(RuntimeError):  # the app has closed meanwhile: nobody to see it
                self.call_from_thread(call, text)

        def run() -> None:
            try:
                found = work(lambda text, stage: later(self._solving, text))
            except Exception as exc:  # a page that would wait forever: say what went wrong
                found = ui(self.lang, "coach.failed", reason=exc)
            later(page.show, found)

        threading.Thread(target=run, name="py421-coach", daemon=True).start()

    def _solving(self, text: str) -> None:
        page = self.screen
        if isinstance(page, CoachScreen) and not page.done:
            page.progress(text)

    def action_log_page(self, direction: int) -> None:
        log = self.query_one(GameLog)
        if direction < 0:
            log.scroll_page_up()
        else:
            log.scroll_page_down()

    def action_quit_game(self) -> None:
        """Leave; the game was saved after every step, so it can be resumed."""
        self._bot_pending = False
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self.session.state.is_over:
            self.exit()
            return
        message = tr(self.lang, "interrupted", command=self._resume())
        self.notify(message)
        self.exit(message=message)

    def on_die_toggled(self, message: Die.Toggled) -> None:
        reason = self._refusal("toggle_die")
        if reason is not None:
            self._refuse(reason)
            return
        self.action_toggle_die(message.index)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        match event.button.id:
            case "throw":
                self.action_throw()
            case "stop":
                self.action_stop()
            case "bon":
                self.action_bon()
            case "est" | "vient" as stake:
                self.action_stake(stake)

    # -- drawing -----------------------------------------------------------

    def _write(self, line: str, style: str = "") -> None:
        self.log_lines.append(line)
        self.query_one(GameLog).write(Text(line, style=style))

    def _write_events(self, events: Sequence[Event], *, announce: bool = True) -> None:
        players = self.session.state.players
        for event in events:
            line = describe(event, players, self.lang)
            self._write(line, _STYLES.get(type(event), ""))
            if announce and isinstance(event, TieDeclared | MancheLost):
                self.notify(line, timeout=4)
        if any(isinstance(e, RoundDecided) for e in events) and not self.session.state.is_over:
            self._write("")  # a blank line between rounds

    def _show_error(self, reason: str) -> None:
        self.error_text = reason
        message = self.query_one("#message", Static)
        message.update(ui(self.lang, "illegal", reason=reason) if reason else "")
        message.display = bool(reason)

    def _refresh(self) -> None:
        state = self.session.state
        request = state.chance
        acting = request.seat if request is not None else state.to_move
        self.query_one("#players", Static).update(players_table(state, acting, self.lang))
        self.query_one("#status", Static).update("\n".join(status_lines(state, self.lang)))
        self._refresh_banner(state)
        self._refresh_dice(state)
        r = state.round
        limit = limit_call(r.limit, self.lang) if r is not None and r.limit is not None else None
        tied = r.tie.draw.seats if r is not None and r.tie is not None else None
        tie = names(tied, state.players, self.lang) if tied is not None else None
        parts = turn_info(state, self.lang, limit, tie)
        if self._deciding_dice() is not None:
            kept = self._kept_faces()
            parts.append(
                ui(self.lang, "keeping", dice=format_dice(kept)) if kept else ui(self.lang, "keeping.none")
            )
        self.query_one("#info", Static).update(join(parts))
        self._refresh_buttons(state)
        self._refresh_keys()
        self.refresh_bindings()

    def _refresh_keys(self) -> None:
        """The keys line: only the keys these rules use, dimmed while they can do nothing."""
        entries: list[tuple[str, str, bool]] = []
        for keys, action, label in KEYS_LINE:
            usable = self.check_action(action, ())
            if usable is not False:
                entries.append((keys, ui(self.lang, label), bool(usable)))
        self.query_one("#keys", Static).update(KeysLine(entries))

    def _refresh_banner(self, state: State) -> None:
        banner = self.query_one("#banner", Static)
        session = self.session
        request = state.chance
        human = self._human_turn()
        if state.is_over:
            text = ui(self.lang, "banner.over")
        elif human is None:
            seat = request.seat if request is not None else state.to_move
            text = ui(self.lang, "banner.bot", who=state.players[seat] if seat is not None else "")
        else:
            who = state.players[human]
            r = state.round
            if session.human_to_move() is not None:
                key = "banner.stake" if r is not None and r.tie is not None else "banner.decide"
                text = ui(self.lang, key, who=who)
            elif request is not None and request.kept:
                text = ui(self.lang, "banner.throw_kept", who=who, kept=format_dice(request.kept))
            elif request is not None and request.purpose == "tie":
                text = ui(self.lang, "banner.throw_tie", who=who)
            elif request is not None and request.purpose != "turn":
                text = ui(self.lang, "banner.throw_draw", who=who)
            else:
                text = ui(self.lang, "banner.throw", who=who)
        banner.update(text)
        banner.set_class(human is not None and not state.is_over, "human")

    def _refresh_dice(self, state: State) -> None:
        dice = [self.query_one(f"#die-{i + 1}", Die) for i in range(3)]
        caption = self.query_one("#dice-caption", Static)
        kept_label = ui(self.lang, "die.kept")
        r = state.round
        if r is not None and r.current is not None and self._current_dice_shown(state):
            caption.update(ui(self.lang, "dice.of", who=state.players[r.current]))
            deciding = self._deciding_dice() is not None
            shown = self._shown(r)
            for i, die in enumerate(dice):
                kept = i in self._kept
                # a throw asked for: the kept dice stay, the others are still to come
                face = None if r.pending is not None and not kept else shown[i]
                die.show(face, kept=kept, selectable=deciding, kept_label=kept_label)
            return
        if self._last_throw is None:
            caption.update(ui(self.lang, "dice.none"))
            for die in dice:
                die.show(None, empty=True)
            return
        seat, faces = self._last_throw
        caption.update(ui(self.lang, "dice.last", who=state.players[seat]))
        for i, die in enumerate(dice):
            if i < len(faces):
                die.show(faces[i], past=True)
            else:
                die.show(None, empty=True)

    @staticmethod
    def _current_dice_shown(state: State) -> bool:
        """Whether the dice on show are the current turn's (not a finished throw's)."""
        r = state.round
        return r is not None and r.current is not None and bool(r.dice) and r.tie is None

    def _refresh_buttons(self, state: State) -> None:
        session = self.session
        r = state.round
        deciding = self._deciding_dice() is not None
        staking = session.human_to_move() is not None and r is not None and r.tie is not None
        throwing = session.human_to_throw() is not None
        bon_legal = offers_bon(state.legal_actions())
        self.query_one("#throw", KeyButton).display = deciding or throwing
        self.query_one("#stop", KeyButton).display = deciding
        bon = self.query_one("#bon", KeyButton)
        bon.display = deciding and bon_legal
        bon.disabled = Throw(self._kept_faces(), bon=True) not in state.legal_actions()
        self.query_one("#est", KeyButton).display = staking
        self.query_one("#vient", KeyButton).display = staking
