"""The terminal UI driven headless: whole games, keeping dice, refusals, hot seat, French,
dice that stay in their slots, the keys each preset shows, a 60x20 terminal.

Every wait is a bounded loop of ``pilot.pause()`` (bots play with no delay),
so nothing depends on timing.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.pilot import Pilot

from py421.core.actions import Stop, Throw
from py421.core.chance import ScriptedDice
from py421.core.dice import format_dice
from py421.core.rules import Ruleset, preset_names
from py421.i18n import EN, FR
from py421.play.session import Session, parse_seats
from py421.tui import PlayApp
from py421.tui.screens import EndScreen, HelpScreen
from py421.tui.widgets import Die, players_table, status_lines, turn_info

MAX_PAUSES = 5_000


def make_session(players: list[str], *, preset: str = "classic-11", seed: str = "tui-test") -> Session:
    return Session(Ruleset.preset(preset), parse_seats(players), seed=seed)


def scripted(session: Session, throws: list[str]) -> Session:
    """The session's dice from a script, so a test gets exactly the throws it needs."""
    session.dice = ScriptedDice(throws)  # type: ignore[assignment]  # sessions hold seeded dice
    return session


def human(session: Session) -> int | None:
    seat = session.human_to_move()
    return seat if seat is not None else session.human_to_throw()


def screen_text(app: PlayApp) -> str:
    """The screen as plain text, the way a screenshot draws it (as Textual's export_screenshot does)."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), record=True, legacy_windows=False)
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text()


def faces_and_marks(app: PlayApp) -> tuple[list[int | None], list[bool]]:
    dice = list(app.query(Die))
    return [d.face for d in dice], [d.has_class("kept") for d in dice]


async def wait_for_human(pilot: Pilot[None], session: Session) -> None:
    """Let the bots play until a human must act or the game is over."""
    for _ in range(MAX_PAUSES):
        await pilot.pause()
        if session.state.is_over or human(session) is not None:
            return
    raise AssertionError("the bots never handed over to a human")


async def wait_for_decision(pilot: Pilot[None], session: Session, *, free_dice: int = 1) -> int:
    """Throw for the humans until one must decide with at least ``free_dice`` throws left."""
    for _ in range(MAX_PAUSES):
        await wait_for_human(pilot, session)
        assert not session.state.is_over, "the game ended before a human had to decide"
        seat = session.human_to_move()
        r = session.state.round
        if seat is not None and r is not None and r.tie is None:
            return seat
        await pilot.press("t" if session.human_to_throw() is not None else "s")
    raise AssertionError("no human decision came")


@pytest.mark.asyncio
async def test_a_whole_game_against_a_bot() -> None:
    session = make_session(["You", "bot:heuristic"])
    steps: list[int] = []
    finished: list[Session] = []
    app = PlayApp(
        session,
        bot_delay=0,
        on_step=lambda s: steps.append(len(s.game.steps)),
        on_finish=finished.append,
    )
    async with app.run_test() as pilot:
        for _ in range(MAX_PAUSES):
            await wait_for_human(pilot, session)
            state = session.state
            if state.is_over:
                break
            r = state.round
            if session.human_to_throw() is not None:
                await pilot.press("t")
            elif r is not None and r.tie is not None:
                await pilot.press("e")
            elif r is not None and r.throws == 1 and len(set(r.dice)) == 3:
                await pilot.press("1", "t")  # keep the highest die and throw the others
            else:
                await pilot.press("s")
        else:
            raise AssertionError("the game did not end")
        await pilot.pause()
        state = session.state
        assert state.outcome is not None
        assert isinstance(app.screen, EndScreen)
        loser = state.players[state.outcome.losers[0]]
        assert loser in app.screen.text
        assert loser in str(app.screen.query_one("#end-outcome").render())
        assert finished == [session]
        assert steps == list(range(1, len(session.game.steps) + 1))
        assert any(step.kind == "action" and step.text.startswith("keep") for step in session.game.steps)
        assert app.announcements == []  # one human: no hot-seat calls
        assert app.log_lines[-1].startswith("game over")
        await pilot.press("q")
    assert finished == [session]


@pytest.mark.asyncio
async def test_keep_dice_with_keys_and_the_mouse() -> None:
    session = make_session(["You", "bot:heuristic"], preset="lyonnaise-21")
    async with PlayApp(session, bot_delay=0).run_test() as pilot:
        seat = await wait_for_decision(pilot, session)
        r = session.state.round
        assert r is not None
        dice = r.dice
        await pilot.press("1")
        assert await pilot.click("#die-3", offset=(3, 2))
        await pilot.press("2", "2")  # kept, then released again
        await pilot.pause()
        kept = [app_die.has_class("kept") for app_die in pilot.app.query(Die)]
        assert kept == [True, False, True]
        before = len(session.game.steps)
        await pilot.press("t")
        await pilot.pause()
        actions = [s for s in session.game.steps[before:] if s.kind == "action"]
        assert actions[0].seat == seat
        assert actions[0].text == f"keep {format_dice((dice[0], dice[2]))}"
        # the dice were thrown at once: the next step is the throw of the one released die
        thrown = session.game.steps[before + 1]
        assert thrown.kind == "dice"
        assert len(thrown.text) == 1


@pytest.mark.asyncio
async def test_a_refusal_is_shown_in_the_players_language() -> None:
    session = make_session(["You", "bot:heuristic"], preset="lyonnaise-21")
    app = PlayApp(session, lang="fr", bot_delay=0)
    async with app.run_test() as pilot:
        await wait_for_decision(pilot, session)
        await pilot.press("1", "2", "3", "t")
        await pilot.pause()
        assert app.error_text.startswith("garder les trois dés, c'est s'arrêter : relâchez un dé (1 2 3)")
        assert str(app.query_one("#message").render()).startswith("Refusé : ")


@pytest.mark.asyncio
async def test_an_illegal_choice_shows_why_and_changes_nothing() -> None:
    session = make_session(["You", "bot:heuristic"], preset="lyonnaise-21")
    app = PlayApp(session, bot_delay=0)
    async with app.run_test() as pilot:
        await wait_for_decision(pilot, session)
        state, steps = session.state, len(session.game.steps)
        await pilot.press("1", "2", "3", "t")
        await pilot.pause()
        assert "keeping all three dice is stopping" in app.error_text
        message = app.query_one("#message")
        assert message.display
        assert "keeping all three dice is stopping" in str(message.render())
        assert session.state is state
        assert len(session.game.steps) == steps
        await pilot.press("s")  # the game goes on
        await pilot.pause()
        assert session.game.steps[steps].text == "stop"
        assert app.error_text == ""


@pytest.mark.asyncio
async def test_hot_seat_names_the_human_to_act() -> None:
    session = make_session(["Ana", "Bob"])
    app = PlayApp(session, bot_delay=0)
    async with app.run_test() as pilot:
        previous: int | None = None
        changes = 0
        for _ in range(200):
            await wait_for_human(pilot, session)
            seat = human(session)
            if seat is None:
                break
            if seat != previous:
                changes += 1
                assert app.announcements[-1] == f"— {session.seats[seat].name}, your turn —"
                previous = seat
                if changes == 6:
                    break
            await pilot.press("t" if session.human_to_throw() is not None else "s")
        assert changes == 6
        assert len(app.announcements) == changes
        assert {"— Ana, your turn —", "— Bob, your turn —"} <= set(app.announcements)


@pytest.mark.asyncio
async def test_french() -> None:
    session = make_session(["Vous", "bot:heuristic"])
    app = PlayApp(session, lang="fr", bot_delay=0)
    async with app.run_test() as pilot:
        for _ in range(10):
            await wait_for_human(pilot, session)
            await pilot.press("t" if session.human_to_throw() is not None else "s")
        await pilot.pause()
        assert any(" lance " in line for line in app.log_lines)
        assert str(app.query_one("#throw").render()).strip() == "Lancer (t)"
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert "Règles : classic-11" in app.screen.text


@pytest.mark.asyncio
async def test_help_shows_the_presets_rules() -> None:
    session = make_session(["You", "bot:heuristic"])
    app = PlayApp(session, bot_delay=0)
    async with app.run_test() as pilot:
        await wait_for_human(pilot, session)
        await pilot.press("?")
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.text
        rules = session.rules
        assert rules.name in text
        assert rules.description in text
        assert rules.source in text
        assert "le_bon = true" in text and "manches = 2" in text
        assert "421 (8) · 111 (7) · 611 (6)" in text
        steps = len(session.game.steps)
        await pilot.press("t")  # the game waits under the help page
        assert len(session.game.steps) == steps
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


@pytest.mark.asyncio
async def test_main_chaude_asks_for_the_stake() -> None:
    # engranjeu-21 replays a tied tie-break as « main chaude »; this seed reaches one.
    session = make_session(["Ana", "Bob"], preset="engranjeu-21", seed="chaude-24")
    while not (session.human_to_move() is not None and session.state.round and session.state.round.tie):
        if session.human_to_move() is not None:
            session.act(Stop())
        else:
            session.step()
    app = PlayApp(session, bot_delay=0)
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.query_one("#est").display and app.query_one("#vient").display
        assert not app.query_one("#stop").display
        assert "« main chaude »" in str(app.query_one("#banner").render())
        await pilot.click("#vient")
        await pilot.pause()
        assert session.game.steps[-1].text == "stake vient"
        assert any("« pour ce qui vient »" in line for line in app.log_lines)


@pytest.mark.asyncio
async def test_quitting_leaves_the_game_to_resume() -> None:
    session = make_session(["You", "bot:heuristic"])
    finished: list[Session] = []
    app = PlayApp(session, bot_delay=0, on_finish=finished.append, resume=lambda: "421 play --resume 2")
    said: list[object] = []
    leave = app.exit

    def noted(*args: Any, **kwargs: Any) -> None:
        said.append(kwargs.get("message"))
        leave(*args, **kwargs)

    app.exit = noted  # type: ignore[method-assign]
    async with app.run_test() as pilot:
        await wait_for_human(pilot, session)
        await pilot.press("q")
        await pilot.pause()
    assert not session.state.is_over
    assert finished == []
    assert app.return_code == 0
    # the game's own number where it is not the last begun: --resume alone takes up another
    assert said == ["game saved; continue it with: 421 play --resume 2"]


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_kept_dice_stay_in_their_slots_and_stay_kept(lang: str) -> None:
    # The engine stores results sorted: 6-4-1, keeping the 4, then 5-5 would redraw as 5-5-4.
    session = make_session(["Ana", "Bob"], preset="lyonnaise-21")
    scripted(session, ["641", "55", "6"])
    app = PlayApp(session, lang=lang, bot_delay=0)
    async with app.run_test() as pilot:
        await pilot.press("t")
        await pilot.pause()
        assert faces_and_marks(app) == ([6, 4, 1], [False, False, False])
        await pilot.press("2", "t")  # keep the 4 in the middle, throw the others
        await pilot.pause()
        assert session.state.round is not None and session.state.round.dice == (5, 5, 4)
        assert faces_and_marks(app) == ([5, 4, 5], [False, True, False])
        await pilot.press("1", "t")  # keep a 5 as well: only the third die is thrown
        await pilot.pause()
        assert session.game.steps[-2].text == "keep 54"
        # the third throw ended the turn; the last throw stays as it lay
        assert [d.face for d in app.query(Die)] == [5, 4, 6]


@pytest.mark.asyncio
async def test_a_bots_kept_dice_stay_in_their_slots() -> None:
    session = make_session(["Ana", "bot:heuristic"], preset="lyonnaise-21")
    # Ana uses her three throws; the bot keeps 4 and 1 of 641 and throws a 2: 421, shown as 2-4-1.
    scripted(session, ["653", "653", "653", "641", "2"])
    app = PlayApp(session, bot_delay=0)
    async with app.run_test() as pilot:
        await pilot.press("t", "t", "t")
        await wait_for_human(pilot, session)
        assert "keep 41" in [step.text for step in session.game.steps if step.seat == 1]
        assert [d.face for d in app.query(Die)] == [2, 4, 1]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("lang", "over", "bon", "chaude", "bot"),
    [
        ("en", "no throw is left", "not played under these rules", "no « main chaude »", "is playing"),
        ("fr", "plus aucun lancer", "ne se joue pas", "pas de « main chaude »", "joue"),
    ],
)
async def test_keys_that_do_nothing_say_why(lang: str, over: str, bon: str, chaude: str, bot: str) -> None:
    # classic-11: one throw in the charge, so Ana's turn ends with her first throw.
    session = make_session(["Ana", "bot:heuristic"])
    app = PlayApp(session, lang=lang, bot_delay=60)  # the bot waits: its turn stays on screen
    async with app.run_test(notifications=True) as pilot:
        await pilot.press("t")
        await pilot.pause()
        steps = len(session.game.steps)
        await pilot.press("1")
        await pilot.pause()
        assert over in app.refusals[-1].lower() and "Ana" in app.refusals[-1]
        await pilot.press("s")
        await pilot.pause()
        assert "Heuristic 1" in app.refusals[-1] and bot in app.refusals[-1]
        await pilot.press("e")
        await pilot.pause()
        assert "main chaude" in app.refusals[-1]
        assert len(session.game.steps) == steps
        await pilot.pause()
        toasts = [str(t.render()) for t in app.screen.query("Toast")]
        assert toasts[-3:] == app.refusals[-3:]
        await pilot.press("q")

    session = make_session(["Ana", "bot:heuristic"], preset="kytionnaire")
    app = PlayApp(session, lang=lang, bot_delay=0)
    async with app.run_test() as pilot:
        await wait_for_human(pilot, session)
        await pilot.press("b")
        await pilot.pause()
        assert bon in app.refusals[-1].lower() and "kytionnaire" in app.refusals[-1]
        await pilot.press("v")
        await pilot.pause()
        assert chaude in app.refusals[-1].lower()


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_le_bon_refused_when_the_next_throw_is_the_last(lang: str) -> None:
    session = make_session(["Ana", "Bob"], preset="lyonnaise-21")
    scripted(session, ["641", "55"])
    app = PlayApp(session, lang=lang, bot_delay=0)
    async with app.run_test() as pilot:
        await pilot.press("t", "2", "t")  # two throws of three used
        await pilot.pause()
        steps = len(session.game.steps)
        await pilot.press("b")
        await pilot.pause()
        assert len(session.game.steps) == steps
        assert ("last" if lang == "en" else "dernier") in app.refusals[-1]


KEYS_SHOWN = [
    ("classic-11", True, False),
    ("lyonnaise-21", True, False),
    ("kytionnaire", False, False),
    ("tim", False, False),
    ("comptoir-21", False, False),
    ("engranjeu-21", True, True),
    ("vache-41", True, False),
]


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize(("preset", "bon", "chaude"), KEYS_SHOWN)
async def test_the_keys_shown_follow_the_rules(preset: str, bon: bool, chaude: bool, lang: str) -> None:
    session = make_session(["Ana", "bot:heuristic"], preset=preset)
    app = PlayApp(session, lang=lang, bot_delay=60)
    async with app.run_test() as pilot:
        await pilot.pause()
        keys = screen_text(app).splitlines()[-1]
        assert ("b le bon" in keys) is bon
        assert ("e/v" in keys) is chaude
        assert ("? " + ("help" if lang == "en" else "aide")) in keys
        active = app.screen.active_bindings
        assert ("b" in active) is bon
        assert ("e" in active) is chaude and ("v" in active) is chaude
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert ("« le bon »" in app.screen.text.split("\n\n")[-2]) is bon
        await pilot.press("escape", "q")


def test_the_docs_say_which_keys_each_preset_shows() -> None:
    doc = (Path(__file__).parents[1] / "docs" / "playing.md").read_text(encoding="utf-8")
    rows = [line for line in doc.splitlines() if line.startswith("| `") and line.endswith(" |")]
    documented: dict[str, tuple[bool, bool]] = {}
    for line in rows:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 3 and cells[1] in ("shown", "—"):
            for name in cells[0].replace("`", "").split(", "):
                documented[name] = (cells[1] == "shown", cells[2] == "shown")
    expected = {}
    for name in preset_names():
        rules = Ruleset.preset(name)
        expected[name] = (rules.le_bon, rules.main_chaude)
    assert documented == expected
    assert {name: (bon, chaude) for name, bon, chaude in KEYS_SHOWN} == expected


def test_both_languages_word_every_label() -> None:
    labels = {key for key in EN if key.startswith("tui.")}
    assert labels and labels == {key for key in FR if key.startswith("tui.")}


@pytest.mark.asyncio
async def test_the_keys_follow_the_state() -> None:
    session = make_session(["Ana", "bot:heuristic"], preset="lyonnaise-21")
    app = PlayApp(session, bot_delay=0)
    async with app.run_test() as pilot:
        await wait_for_decision(pilot, session)
        await pilot.pause()
        active = app.screen.active_bindings
        assert active["s"].enabled and active["1"].enabled and active["b"].enabled
        await pilot.press("s")
        await pilot.pause()
        if human(session) is None:  # the bot's turn: the turn keys are there but not usable
            active = app.screen.active_bindings
            assert not active["s"].enabled and not active["1"].enabled


NAMES = ["Alice", "Bernard", "Caroline", "Dominique", "bot:heuristic"]


def visible(name: str, text: str) -> bool:
    """The name in full, or its start cut with an ellipsis."""
    return name in text or any(name[:n] + "…" in text for n in range(3, len(name)))


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_names_stay_visible_at_60_by_20(lang: str) -> None:
    session = make_session(NAMES)
    app = PlayApp(session, lang=lang, bot_delay=0)
    async with app.run_test(size=(60, 20)) as pilot:
        for _ in range(8):
            await wait_for_human(pilot, session)
            text = screen_text(app)
            table = text.split("\n")[1 : 1 + 8]  # the table under the title line
            for name in session.state.players:
                assert visible(name, "\n".join(table)), (name, text)
            await pilot.press("t" if session.human_to_throw() is not None else "s")


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_no_throw_is_counted_before_the_first(lang: str) -> None:
    """Before a turn's first throw the line shows no « Throw 0 of 1 »: nothing is thrown yet."""
    session = make_session(["bot:heuristic", "bot:random"], preset="classic-11", seed="count")
    before = after = 0
    while not session.state.is_over and after < 40:
        state = session.state
        r = state.round
        if r is not None and r.current is not None and r.tie is None:
            info = " · ".join(turn_info(state, lang, None, None))
            if r.throws == 0:
                before += 1
                assert info == "", info
            else:
                after += 1
                assert info == (EN if lang == "en" else FR)["tui.throws"].format(
                    n=r.throws, allowed=info.split()[-1]
                ), info
        session.step()
    assert before and after


@pytest.mark.asyncio
async def test_a_save_that_fails_says_why_in_the_players_language_and_play_goes_on() -> None:
    def full_disk(_: Session) -> None:
        raise OSError(28, "No space left on device", "/home/ana/.local/share/py421/saves/x.json")

    session = make_session(["Vous", "bot:heuristic"])
    app = PlayApp(session, lang="fr", bot_delay=0, on_step=full_disk)
    async with app.run_test() as pilot:
        await wait_for_human(pilot, session)
        await pilot.press("t" if session.human_to_throw() is not None else "s")
        await pilot.pause()
        said = [n.message for n in app._notifications]
        where = "/home/ana/.local/share/py421/saves/x.json"
        assert (
            said
            and said[-1] == f"Impossible de sauvegarder la partie : plus de place sur le disque ({where})"
        )
        assert len(session.game.steps) > 0


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("size", [(100, 30), (80, 24), (60, 20)])
async def test_the_buttons_of_a_decision_show_whole(lang: str, size: tuple[int, int]) -> None:
    """Throw, stop and « le bon » side by side, their labels whole in either language (French is longest)."""
    session = make_session(["Ana", "bot:heuristic"], preset="classic-11")
    app = PlayApp(session, lang=lang, bot_delay=0)
    catalog = EN if lang == "en" else FR
    async with app.run_test(size=size) as pilot:
        await wait_for_decision(pilot, session)
        await pilot.pause()
        labels = [catalog[f"tui.btn.{name}"] for name in ("throw", "stop", "bon")]
        buttons = [app.query_one(f"#{name}") for name in ("throw", "stop", "bon")]
        assert all(b.display for b in buttons)
        row_end = app.query_one("#buttons").region.right
        text = screen_text(app)
        row = next(line for line in text.splitlines() if labels[0] in line)
        for label, button in zip(labels, buttons, strict=True):
            assert label in row, (label, row)
            assert button.size.height == 1 and button.region.right <= row_end, button.region


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_the_stop_key_and_its_button_say_one_word(lang: str) -> None:
    catalog = EN if lang == "en" else FR
    word = catalog["tui.keys.stop"]
    assert catalog["tui.btn.stop"].lower() == f"{word} (s)".lower()
    assert catalog["tui.help.key.stop"] == f"s {word}"
    # the line mode names the same word (« Enter stop, », a part of its own where stopping is a choice)
    prompt = catalog["prompt.turn"] + catalog.get("prompt.stop", "")
    assert f"{'Enter' if lang == 'en' else 'Entrée'} {word}," in prompt
    assert catalog["page.stop"].lower() == catalog["action.stop"].lower() == word.lower()
    session = make_session(["Ana", "bot:heuristic"], preset="classic-11")
    app = PlayApp(session, lang=lang, bot_delay=0)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_decision(pilot, session)
        await pilot.pause()
        text = screen_text(app)
        assert catalog["tui.btn.stop"] in text and f"s {word}" in text


@pytest.mark.asyncio
async def test_the_help_page_scrolls_from_the_keyboard_at_once() -> None:
    """In 80 x 24 the page is taller than the terminal: the arrows, Page Down and End reach its end."""
    session = make_session(["Ana", "bot:random"], preset="vache-41")
    app = PlayApp(session, bot_delay=60)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("h")
        page = app.screen
        assert isinstance(page, HelpScreen)
        close = EN["tui.help.close"]
        await pilot.pause()
        assert close not in screen_text(app)  # below the bottom at first
        for keys, shown in [
            (("down",), lambda text: EN["tui.help.title"].format(name="vache-41") not in text),
            (("end",), lambda text: close in text and "Keys: " in text),
            (("home",), lambda text: close not in text),
            (("pagedown", "pagedown", "pagedown"), lambda text: close in text),
        ]:
            await pilot.press(*keys)
            text = await wait_until(pilot, app, shown)
            assert shown(text), (keys, text)
        assert app.screen is page  # the keys scrolled the page, nothing else


async def wait_until(pilot: Pilot[None], app: PlayApp, shown: Callable[[str], bool]) -> str:
    """The screen once ``shown`` holds of it (bounded): a scroll is drawn a refresh or two later."""
    text = screen_text(app)
    for _ in range(200):
        if shown(text):
            break
        await pilot.pause()
        text = screen_text(app)
    return text


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_keeping_all_three_dice_is_refused_in_the_games_keys(lang: str) -> None:
    # lyonnaise-21: Ana throws 641 and marks all three dice, then throws (t) or declares « le bon » (b).
    session = make_session(["Ana", "Bob"], preset="lyonnaise-21")
    scripted(session, ["641"])
    catalog = EN if lang == "en" else FR
    app = PlayApp(session, lang=lang, bot_delay=0)
    async with app.run_test() as pilot:
        await pilot.press("t")
        await pilot.pause()
        steps = len(session.game.steps)
        for key in ("t", "b"):
            await pilot.press("1", "2", "3", key)
            await pilot.pause()
            shown = str(app.query_one("#message").render())
            assert "accepted" not in shown and "possible" not in shown and "641" not in shown, shown
            assert "(1 2 3)" in shown and "(s)" in shown, shown
            assert shown == catalog["tui.illegal"].format(reason=catalog["tui.why.keep_all"])
            assert len(session.game.steps) == steps
            await pilot.press("1", "2", "3")  # released again


@pytest.mark.asyncio
async def test_keeping_all_three_when_behind_and_thrown_on_names_no_stop() -> None:
    rules = Ruleset.preset("engranjeu-21").with_options(must_throw_on=True)
    session = Session(rules, parse_seats(["Ana", "bot:heuristic"]), seed="coach")
    app = PlayApp(session, bot_delay=0)
    async with app.run_test() as pilot:
        await wait_for_decision(pilot, session)
        assert Stop() not in session.state.legal_actions()  # behind: thrown on
        await pilot.press("1", "2", "3", "t")
        await pilot.pause()
        shown = str(app.query_one("#message").render())
        assert "keeping all three dice is stopping" in shown and "(1 2 3)" in shown
        assert "(s)" not in shown and "accepted" not in shown


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("lang", "said"), [("en", "not played in this turn"), ("fr", "ne se joue pas dans ce tour")]
)
async def test_le_bon_in_a_turn_of_one_throw_is_not_played(lang: str, said: str) -> None:
    # classic-11: every turn of the charge is one throw, so « le bon » can never be declared in it.
    session = make_session(["Ana", "bot:heuristic"])
    app = PlayApp(session, lang=lang, bot_delay=60)
    async with app.run_test(notifications=True) as pilot:
        await pilot.pause()
        assert session.human_to_throw() == 0 and session.state.round is not None
        await pilot.press("b")
        await pilot.pause()
        note = app.refusals[-1]
        assert said in note and "1" in note
        assert (EN if lang == "en" else FR)["tui.why.bon.first"] != note


@pytest.mark.asyncio
@pytest.mark.parametrize(("lang", "leads"), [("en", "Leads: "), ("fr", "Entame : ")])
async def test_no_leader_is_shown_before_the_draw_decides_it(lang: str, leads: str) -> None:
    session = make_session(["Ana", "Bob"], preset="tim", seed="stim")  # Bob wins the draw
    app = PlayApp(session, lang=lang, bot_delay=0)
    async with app.run_test() as pilot:
        await pilot.pause()
        for _ in range(2):  # before the draw, then after Ana's draw throw
            assert session.state.draw is not None
            text = screen_text(app)
            assert leads not in text and "★" not in text, text
            await pilot.press("t")
            await pilot.pause()
        assert session.state.draw is None and session.state.leader == 1
        assert f"{leads}Bob" in await wait_until(pilot, app, lambda text: f"{leads}Bob" in text)


@pytest.mark.asyncio
async def test_stopping_when_behind_and_thrown_on_says_why_in_the_games_keys() -> None:
    rules = Ruleset.preset("engranjeu-21").with_options(must_throw_on=True)
    session = Session(rules, parse_seats(["Ana", "bot:heuristic"]), seed="coach")
    app = PlayApp(session, bot_delay=0)
    async with app.run_test(notifications=True) as pilot:
        await wait_for_decision(pilot, session)
        legal = session.state.legal_actions()
        assert Stop() not in legal  # behind: thrown on
        bon = any(isinstance(a, Throw) and a.bon for a in legal)
        steps = len(session.game.steps)
        for press in (pilot.press("s"), pilot.click("#stop")):
            await press
            await pilot.pause()
            shown = " ".join([*app.refusals[-1:], app.error_text])
            assert "accepted" not in shown and "keep 6" not in shown, shown
            assert "Ana" in shown and "(t)" in shown and ("(b)" in shown) is bon, shown
            assert len(session.game.steps) == steps


def test_no_leader_is_shown_while_a_draw_decides_the_decharges() -> None:
    # kytionnaire: the décharge's leader is whoever throws worst in a draw
    session = make_session(["bot:heuristic", "bot:random"], preset="kytionnaire", seed="leader")
    while session.state.draw is None or session.state.draw.purpose != "decharge_leader":
        assert not session.state.is_over, "no décharge came"
        session.step()
    state = session.state
    assert not any(line.startswith("Leads") for line in status_lines(state, "en"))
    assert all(row.mark != "★" for row in players_table(state, None, "en").rows)
    while session.state.draw is not None:
        session.step()
    assert status_lines(session.state, "en")[1] == f"Leads: {session.state.players[session.state.leader]}"
