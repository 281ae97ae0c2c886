"""The terminal UI driven headless: whole games, keeping dice, refusals, hot seat, French.

Every wait is a bounded loop of ``pilot.pause()`` (bots play with no delay),
so nothing depends on timing.
"""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from py421.core.actions import Stop
from py421.core.dice import format_dice
from py421.core.rules import Ruleset
from py421.play.session import Session, parse_seats
from py421.tui import PlayApp
from py421.tui.screens import EndScreen, HelpScreen
from py421.tui.widgets import Die

MAX_PAUSES = 5_000


def make_session(players: list[str], *, preset: str = "classic-11", seed: str = "tui-test") -> Session:
    return Session(Ruleset.preset(preset), parse_seats(players), seed=seed)


def human(session: Session) -> int | None:
    seat = session.human_to_move()
    return seat if seat is not None else session.human_to_throw()


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
async def test_an_illegal_choice_shows_the_engines_reason_and_changes_nothing() -> None:
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
    app = PlayApp(session, bot_delay=0, on_finish=finished.append)
    async with app.run_test() as pilot:
        await wait_for_human(pilot, session)
        await pilot.press("q")
        await pilot.pause()
    assert not session.state.is_over
    assert finished == []
    assert app.return_code == 0
