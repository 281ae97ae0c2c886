"""The hint key and the game's analysis in the full-screen game, driven headless.

The hint ranks the choices as the solver does (the same best choice and value
as ``421 advise``), only where hints are on; the page says how far a solve is
while it runs; after the game ``a`` shows each person's summary.
"""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from py421.analysis import analyse, analysis_text
from py421.core.actions import Stop, Throw
from py421.core.dice import Result
from py421.core.rules import Ruleset
from py421.i18n import CATALOGS, action_text, num, tr
from py421.play.coach import solving
from py421.play.session import Session, parse_seats
from py421.solver.advice import RoundContext, advise_game
from py421.tui import PlayApp
from py421.tui.screens import CoachScreen, EndScreen

from .test_tui import MAX_PAUSES, make_session, screen_text, scripted, wait_for_decision, wait_for_human

CLASSIC = Ruleset.preset("classic-11")
# The charge in four coups secs (Bob takes 8, then Ana 3); in the décharge Ana keeps the 6 of 632 and
# stops on 654; Bob throws 221 and has one throw left to beat it.
BLUNDER_DICE = ["421", "221", "421", "221", "632", "54", "221"]


async def wait_page(pilot: Pilot[None], page: CoachScreen) -> str:
    """Wait (bounded) for the values the page works out in its thread."""
    for _ in range(3_000):
        await pilot.pause(0.02)
        if page.done:
            return page.text
    raise AssertionError(f"the page never showed its values; it said {page.said}")


async def wait_shown(pilot: Pilot[None], app: PlayApp, *parts: str) -> str:
    """The screen once it shows every part (bounded): drawing follows the values by a refresh,
    later on a busy machine."""
    shown = screen_text(app)
    for _ in range(3_000):
        if all(part in shown for part in parts):
            break
        await pilot.pause(0.02)
        shown = screen_text(app)
    return shown


async def to_bobs_decision(pilot: Pilot[None], session: Session) -> None:
    """Play the scripted game up to Bob's decision on 221, one throw left, against 654."""
    await pilot.press("t", "t", "t", "t", "t")  # the charge's four coups secs, then Ana's first throw
    await pilot.pause()
    assert session.state.round is not None and session.state.round.dice == (6, 3, 2)
    await pilot.press("1", "t")  # keep the 6, throw the others: 654
    await pilot.pause()
    await pilot.press("s", "t")  # Ana stops; Bob throws 221
    await pilot.pause()
    r = session.state.round
    assert session.human_to_move() == 1 and r is not None and r.dice == (2, 2, 1)


def blunder_session() -> Session:
    return scripted(Session(CLASSIC, parse_seats(["Ana", "Bob"]), seed="coach"), BLUNDER_DICE)


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_the_hint_ranks_the_choices_as_the_solver_does(lang: str, unshipped: None) -> None:
    session = blunder_session()
    app = PlayApp(session, lang=lang, bot_delay=0, hints=True)  # two people: hints asked for
    async with app.run_test(size=(80, 24)) as pilot:
        await to_bobs_decision(pilot, session)
        assert "i " + CATALOGS[lang]["tui.keys.hint"] in screen_text(app).splitlines()[-1]
        await pilot.press("i")
        page = app.screen
        assert isinstance(page, CoachScreen)
        text = await wait_page(pilot, page)

        # What 421 advise says of that position: Bob holds 8 tokens, Ana 3.
        context = RoundContext(2, (Result.parse("654"),), limit=2, tokens=(8, 3))
        best, *others = advise_game(CLASSIC, Result.parse("221"), 1, context).options
        assert not best.stop
        lines = text.splitlines()
        position = tr(lang, "analysis.left", dice="221", n=1, s="") + tr(
            lang, "analysis.against", before="654"
        )
        assert lines[0] == tr(lang, "analysis.hint.head", player="Bob", position=position)
        first = lines[1].split()
        shown = action_text(lang, Throw(best.keep)).split()
        assert first[: len(shown)] == shown and first[len(shown)] == num(lang, best.value, ".2%").split()[0]
        stop = next(o for o in others if o.stop)
        stop_line = next(line for line in lines if line.split()[0] == action_text(lang, Stop()).split()[0])
        points = num(lang, (best.value - stop.value) * 100, ".2f")
        assert tr(lang, "analysis.hint.less", cost=points) in stop_line
        assert lines[1].strip() in await wait_shown(pilot, app, lines[1].strip())  # on screen at 80 x 24
        # The solution was not on this machine's disk yet: the page said how far its solve was.
        assert page.said[0] == tr(lang, "cli.once", what=solving(CLASSIC, "decharge", 1, lang))
        await pilot.press("escape")
        assert not isinstance(app.screen, CoachScreen)
        await pilot.press("s")  # the game goes on: Bob's choice is his own
        await pilot.pause()
        assert session.game.steps[-1].text == "stop"


@pytest.mark.asyncio
async def test_no_hint_between_people_unless_asked_for() -> None:
    session = blunder_session()
    app = PlayApp(session, bot_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_bobs_decision(pilot, session)
        assert "i hint" not in screen_text(app).splitlines()[-1]
        await pilot.press("i")
        await pilot.pause()
        assert not isinstance(app.screen, CoachScreen)
        assert app.refusals[-1].startswith("Hints are off at a table of several people")
        assert "--hints" in app.refusals[-1]
        await pilot.press("a")  # the analysis waits for the end of the game
        await pilot.pause()
        assert app.refusals[-1] == CATALOGS["en"]["tui.why.analysis.now"]
        assert not isinstance(app.screen, CoachScreen)


@pytest.mark.asyncio
async def test_one_person_against_bots_has_hints_on_their_decisions_only() -> None:
    session = make_session(["Ana", "bot:heuristic"])
    app = PlayApp(session, bot_delay=0)
    async with app.run_test() as pilot:
        await wait_for_human(pilot, session)
        if session.human_to_throw() is not None:  # no decision yet: a hint is refused, saying why
            await pilot.press("i")
            await pilot.pause()
            assert app.refusals[-1] == CATALOGS["en"]["tui.why.hint.now"]
        await wait_for_decision(pilot, session)
        await pilot.press("i")
        page = app.screen
        assert isinstance(page, CoachScreen)
        text = await wait_page(pilot, page)
        assert text.splitlines()[0].startswith("Ana, ")
        assert text.splitlines()[-1] == tr("en", "analysis.objective.heads_up")


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_after_the_game_the_analysis_key_shows_each_summary(lang: str) -> None:
    session = make_session(["Ana", "bot:heuristic"], seed="analysis")
    app = PlayApp(session, lang=lang, bot_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(MAX_PAUSES):
            await wait_for_human(pilot, session)
            if session.state.is_over:
                break
            r = session.state.round
            await pilot.press(
                "t" if session.human_to_throw() is not None else "e" if r and r.tie is not None else "s"
            )
        await pilot.pause()
        assert isinstance(app.screen, EndScreen)
        await pilot.press("a")
        page = app.screen
        assert isinstance(page, CoachScreen)
        text = await wait_page(pilot, page)

        found = analyse(session.game.record())
        (summary,) = [
            line for line in analysis_text(found, lang).splitlines() if line.split(":")[0].strip() == "Ana"
        ]
        assert summary in text.splitlines()
        assert found.decisions
        costliest = max(found.decisions, key=lambda d: (d.cost, -d.step))
        where = tr(lang, "analysis.review.where", step=costliest.step, player="Ana")
        lines = text.splitlines()
        assert where in lines[lines.index(tr(lang, "analysis.review.title")) + 1]  # the costliest first
        # the summary and the costliest decision fit in 80 x 24
        shown = await wait_shown(pilot, app, summary.split(",")[0], where)
        assert summary.split(",")[0] in shown and where in shown
        await pilot.press("escape")
        assert isinstance(app.screen, EndScreen)


async def coached(session: Session) -> str:
    """The coach's page (``i``) at a person's first decision with a throw left; the game goes on."""
    app = PlayApp(session, bot_delay=0)
    async with app.run_test() as pilot:
        await wait_for_decision(pilot, session, free_dice=1)
        await pilot.press("i")
        page = app.screen
        assert isinstance(page, CoachScreen)
        text = await wait_page(pilot, page)
        await pilot.press("escape")
        assert not session.state.is_over and app.is_running
    return text


@pytest.mark.asyncio
async def test_a_table_no_solver_covers_gets_the_reason_not_a_crash() -> None:
    seats = parse_seats(["Ana", *["bot:heuristic"] * 8])
    text = await coached(Session(Ruleset.preset("classic-11"), seats, seed="coach"))
    assert text.startswith("A game of 9 players cannot be analysed: the round solver plays 2 to 8")


@pytest.mark.asyncio
async def test_players_behind_who_must_throw_on_are_coached() -> None:
    # a pot of 9 keeps the two-player solve small; the seed's game still puts Ana behind
    rules = Ruleset.preset("engranjeu-21").with_options(must_throw_on=True, pot=9)
    session = Session(rules, parse_seats(["Ana", "bot:heuristic"]), seed="coach")
    text = await coached(session)
    assert "cannot be analysed" not in text
    legal = session.state.legal_actions()
    assert Stop() not in legal  # behind: thrown on (the seed's game: 542, two throws left, against 222)
    choices = [line for line in text.splitlines() if line.startswith("  ")]
    assert len(choices) == len(legal) and not any(line.split()[0] == "stop" for line in choices)
