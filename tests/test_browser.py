"""The browser front-end in a real Chromium: two people create, join and play to the end."""

from __future__ import annotations

import json
import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("PY421_CHROMIUM")
ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / ".artifacts" / "browser"
# axe-core, the accessibility checker, comes with the page's checkers (web/package.json);
# PY421_AXE names another copy of axe.min.js.
AXE = Path(os.environ.get("PY421_AXE") or ROOT / "web" / "node_modules" / "axe-core" / "axe.min.js")

if not CHROMIUM:
    if os.environ.get("CI"):
        raise RuntimeError("CI runs the browser tests: PY421_CHROMIUM is not set (scripts/services.sh)")
    pytest.skip("no Chromium: run the tests through scripts/check", allow_module_level=True)

from playwright.sync_api import Browser, Page, expect, sync_playwright  # noqa: E402

from .server_process import free_port, start_server  # noqa: E402

pytestmark = pytest.mark.slow  # a real browser

# Every wait is for something the page must show: on a busy machine the server's answer (a table
# with hints, solved first) can take far more than Playwright's 5 s, so wait up to a minute.
expect.set_options(timeout=60_000)


def serve(folder: Path, *options: str) -> Iterator[str]:
    port = free_port()
    proc = start_server(folder, port, "--bot-delay", "0.05", *options)
    yield f"http://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(10)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One server for the module's tests that look only at the tables they make: starting one
    costs a second of CPU. A test that reads what the server kept of all games has its own.

    Another player's seat is handed on as soon as its page is closed: how long the server waits
    first is tested in tests/test_server.py, and here by the test that takes a scorekeeper's seat."""
    yield from serve(tmp_path_factory.mktemp("server"), "--hand-after-seconds", "0")


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[str]:
    yield from serve(tmp_path)


@pytest.fixture(scope="module")
def chromium_once() -> Iterator[Browser]:
    """One Chromium for the module's tests: starting it costs a second of CPU and more of wall."""
    yield from launch()


@pytest.fixture
def browser(chromium_once: Browser) -> Iterator[Browser]:
    """The module's Chromium, each page of a test in a context of its own (storage of its own,
    as in a browser just started), all closed after the test."""
    yield chromium_once
    for context in chromium_once.contexts:
        context.close()


ARGUMENTS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"]


def launch() -> Iterator[Browser]:
    """Chromium as the browser tests run it, until the generator is closed."""
    with sync_playwright() as p:
        launched = p.chromium.launch(
            executable_path=CHROMIUM,
            args=ARGUMENTS,
        )
        yield launched
        launched.close()


# What each test's pages did that they must not: a script, style or frame the page's
# Content-Security-Policy refused (the page must need none), a WebSocket with a token in its URL.
SEEN: dict[str, list[str]] = {"refused": [], "sockets": []}


@pytest.fixture(autouse=True)
def nothing_refused_and_no_token_in_a_url() -> Iterator[None]:
    SEEN["refused"].clear()
    SEEN["sockets"].clear()
    yield
    assert SEEN["refused"] == [], SEEN["refused"]
    assert all("token" not in url for url in SEEN["sockets"]), SEEN["sockets"]


def phone(browser: Browser, width: int = 390, height: int = 844) -> Page:
    context = browser.new_context(viewport={"width": width, "height": height}, locale="en-GB")
    page = context.new_page()
    page.on(
        "console",
        lambda m: SEEN["refused"].append(m.text) if "Content Security Policy" in m.text else None,
    )
    page.on("websocket", lambda ws: SEEN["sockets"].append(ws.url))
    return page


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def accessible(page: Page) -> None:
    """axe-core finds nothing wrong with the page as it is now, whatever the impact.

    It goes in as the browser's own tools put a script, past the page's Content-Security-Policy,
    which refuses every script the server did not send.
    """
    if not page.evaluate("typeof axe !== 'undefined'"):
        assert AXE.is_file(), f"no {AXE}: npm ci --prefix web"
        page.evaluate(AXE.read_text(encoding="utf-8"))
    found = page.evaluate(
        """() => axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations.map((v) =>
             `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`))"""
    )
    assert found == [], f"{page.url}: {found}"


def felt_reaches_the_bottom(page: Page) -> None:
    """The page's whole picture has the felt's weave down to its last line, not a flat band."""
    from io import BytesIO

    from PIL import Image

    height = page.evaluate("document.documentElement.scrollHeight")
    viewport = page.viewport_size
    assert viewport and height > viewport["height"] + 20, (height, viewport)  # a page longer than the screen
    picture = Image.open(BytesIO(page.screenshot(full_page=True))).convert("RGB")
    assert picture.height >= height
    # the left edge, where no card lies: the weave's stripes are never one colour
    corner = picture.crop((0, picture.height - 6, 8, picture.height))
    colours = corner.getcolors(8 * 6) or []
    assert len(colours) > 1, colours


def take_a_turn(page: Page) -> None:
    """Stop when allowed, else throw: a quick game. Nothing while the last choice waits for its
    answer (the choices are busy, though they look busy only if the answer is slow)."""
    actions = page.get_by_test_id("actions")
    if actions.get_attribute("aria-busy") == "true":
        return
    for testid in ("action-stop", "action-throw", "action-est", "action-vient"):
        button = page.get_by_test_id(testid)
        if button.is_visible() and button.is_enabled():
            button.click()
            expect(actions).not_to_have_attribute("aria-busy", "true")
            return


def her_first_turn(alice: Page, base: str, timeout: str | None = None) -> None:
    """Alice, at a table of hers against bots just started, at her first turn: three throws in the
    charge, so that she decides from her first turn (the table's ``timeout`` in seconds, if given)."""
    alice.goto(base + "/")
    alice.get_by_test_id("player-name").fill("Alice")
    alice.get_by_test_id("settings").fill("charge_throws=3")
    if timeout is not None:
        alice.get_by_test_id("timeout").fill(timeout)
    alice.get_by_test_id("create-table").click()
    alice.get_by_test_id("start-button").click()
    expect(alice.get_by_test_id("your-turn")).to_be_visible()


def her_table_for_two(alice: Page, base: str, settings: str = "") -> str:
    """Alice's table for herself and a person to come, waiting for them: its code."""
    alice.goto(base + "/")
    alice.get_by_test_id("player-name").fill("Alice")
    alice.get_by_test_id("seat-kind-1").select_option("human")
    if settings:
        alice.get_by_test_id("settings").fill(settings)
    alice.get_by_test_id("create-table").click()
    expect(alice.get_by_test_id("status")).to_have_attribute("data-status", "waiting")
    return alice.url.rsplit("/", 1)[1]


def bob_joins(bob: Page, alice: Page, base: str, code: str) -> None:
    """Bob takes the free seat of Alice's table ``code``; she sees him there."""
    bob.goto(f"{base}/t/{code}")
    bob.get_by_test_id("join-name").fill("Bob")
    bob.get_by_test_id("join-button").click()
    expect(alice.get_by_test_id("players")).to_contain_text("Bob")


def test_two_phones_create_join_play_to_the_end_and_reload(server: str, browser: Browser) -> None:
    alice, bob = phone(browser), phone(browser)
    alice.goto(server + "/")
    alice.get_by_test_id("player-name").fill("Alice")
    # the server's bot levels, each saying how it plays
    levels = alice.get_by_test_id("seat-kind-1").locator("option[value^='bot:']")
    expect(levels).to_have_count(3)
    expect(levels.nth(1)).to_have_attribute("title", re.compile("decent bar player"))
    alice.get_by_test_id("seat-kind-1").select_option("human")
    # three throws in the charge: a person decides from the first turn (in coups secs the dice
    # alone end about one game in 350 of three players before anyone chooses)
    alice.get_by_test_id("settings").fill("charge_throws=3")
    shot(alice, "1-lobby")
    accessible(alice)
    alice.get_by_test_id("create-table").click()
    expect(alice.get_by_test_id("status")).to_have_attribute("data-status", "waiting")
    link = alice.get_by_test_id("share-link").inner_text()
    assert "/t/" in link

    bob.goto(link)
    hostile = "<b>Bob</b><img src=x>"
    bob.get_by_test_id("join-name").fill(hostile)
    bob.get_by_test_id("join-button").click()
    expect(alice.get_by_test_id("players")).to_contain_text(hostile)  # shown as text, never as markup
    assert alice.locator("[data-testid=players] img").count() == 0
    shot(bob, "2-joined")
    accessible(bob)

    # the rules the table plays, named with the settings it was made with, for whoever joins
    expect(bob.get_by_test_id("rules-named")).to_have_text("Rules: classic-11 (charge_throws=3)")
    alice.get_by_test_id("start-button").click()
    expect(alice.get_by_test_id("status")).to_have_attribute("data-status", "playing")

    reloaded = False
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if alice.get_by_test_id("outcome").is_visible() and bob.get_by_test_id("outcome").is_visible():
            break
        for page in (alice, bob):
            if page.get_by_test_id("your-turn").is_visible():
                if not reloaded:  # closing the tab and coming back keeps the seat
                    shot(page, "3-your-turn")
                    accessible(page)
                    lines = page.get_by_test_id("log").locator("li").all_inner_texts()
                    page.reload()
                    expect(page.get_by_test_id("your-turn")).to_be_visible()
                    # the log comes back as it was (the game waits for this player)
                    expect(page.get_by_test_id("log").locator("li")).to_have_text(lines)
                    reloaded = True
                take_a_turn(page)
        time.sleep(0.05)
    expect(alice.get_by_test_id("outcome")).to_be_visible()
    expect(bob.get_by_test_id("outcome")).to_be_visible()
    assert reloaded
    assert SEEN["sockets"]  # the game went over WebSockets, and none carried its seat's token
    # both phones put together the same log, one message's new lines at a time
    expect(bob.get_by_test_id("log").locator("li")).to_have_text(
        alice.get_by_test_id("log").locator("li").all_inner_texts()
    )
    expect(alice.get_by_test_id("seed")).to_be_visible()  # the seed is revealed at the end
    shot(alice, "4-outcome")
    accessible(alice)
    # the result's lines are sentences: a capital first, unless a player's name comes first
    for line in alice.get_by_test_id("outcome").locator("p").all_inner_texts():
        assert line[:1].isupper() or line.startswith(("Alice", hostile)), line


def test_the_report_looks_right_in_chromium(browser: Browser, tmp_path: Path) -> None:
    """Every plot loads, nothing spills sideways on a laptop screen, and a screenshot is kept."""
    from click.testing import CliRunner

    from py421.cli import main

    result = CliRunner().invoke(
        main, ["report", "--rules", "classic-11", "--out", str(tmp_path), "--games", "300", "--workers", "1"]
    )
    assert result.exit_code == 0, result.output
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto((tmp_path / "index.html").as_uri())
    page.wait_for_load_state("load")
    sizes = page.eval_on_selector_all("img", "imgs => imgs.map(i => [i.complete, i.naturalWidth])")
    assert sizes
    assert all(done and width > 300 for done, width in sizes)
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    expect(page.locator("h1")).to_have_text("421: what the numbers say")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "report.png"), full_page=True)
    assert (SHOTS / "report.png").stat().st_size > 50_000
    page.close()


def test_twelve_seats_from_the_page_play_to_the_end(server: str, browser: Browser) -> None:
    """classic-11 sets no most players: the seat editor goes past eight, up to the server's cap."""
    page = phone(browser)
    page.goto(server + "/")
    page.get_by_test_id("player-name").fill("Alice")
    page.get_by_test_id("preset").select_option("tim")
    expect(page.locator("#create-form")).to_contain_text("— 2 players")  # not "2 to 2 players"
    expect(page.locator("#create-form")).not_to_contain_text("2 to 2")
    page.get_by_test_id("preset").select_option("classic-11")
    expect(page.locator("#create-form")).to_contain_text("2 players or more")
    add = page.get_by_test_id("add-seat")
    while page.locator("[data-testid^=seat-kind-]").count() < 12:
        add.click()
    expect(page.locator("[data-testid^=seat-kind-]")).to_have_count(12)
    shot(page, "twelve-seats")
    page.get_by_test_id("create-table").click()
    expect(page.get_by_test_id("status")).to_have_attribute("data-status", "waiting")
    page.get_by_test_id("start-button").click()
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and not page.get_by_test_id("outcome").is_visible():
        if page.get_by_test_id("your-turn").is_visible():
            take_a_turn(page)
        time.sleep(0.05)
    expect(page.get_by_test_id("outcome")).to_be_visible()
    expect(page.get_by_test_id("players").locator("li")).to_have_count(12)


def test_the_scorekeeper_sets_up_with_the_seat_editor_reports_undoes_and_speaks_french(
    server: str, browser: Browser
) -> None:
    """The scorekeeper's set-up uses the lobby's seat editor; the page's modules raise nothing."""
    page = phone(browser)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server + "/scorekeeper")
    followed = page.get_by_test_id("sk-followed")
    expect(followed).to_be_visible()  # a server's table: others follow its standings by its link
    page.get_by_test_id("sk-here").check()
    expect(followed).to_be_hidden()  # this phone's table: nobody else does
    page.get_by_test_id("sk-here").uncheck()
    page.get_by_test_id("preset").select_option("classic-11")
    names = page.locator("[data-testid^=sk-player-]")
    expect(names).to_have_count(3)
    page.get_by_test_id("add-seat").click()
    expect(names).to_have_count(4)
    expect(page.get_by_test_id("sk-player-3")).to_be_focused()  # a name is typed next
    page.get_by_test_id("remove-seat-3").click()
    expect(names).to_have_count(3)
    accessible(page)
    banner = page.get_by_test_id("error-banner")
    page.get_by_test_id("sk-player-1").fill("Ann")
    page.get_by_test_id("create-table").click()
    expect(banner).to_contain_text("Name at least 2 players")
    page.get_by_test_id("sk-player-2").fill("Bob")  # a row left empty is nobody
    page.get_by_test_id("create-table").click()
    expect(page.get_by_test_id("status")).to_have_attribute("data-status", "playing")
    expect(page.get_by_test_id("players").locator("li")).to_have_count(2)
    prompt, entry = page.locator(".report-prompt"), page.get_by_test_id("report-input")
    expect(prompt).to_contain_text("Ann: the dice (at most 1 throw)")  # coups secs in the charge
    expect(page.get_by_test_id("fair")).to_be_hidden()  # real dice: no seed drew them
    expect(entry).to_have_attribute("placeholder", "654")  # one throw, as allowed
    helped = page.get_by_test_id("report-help")  # what this prompt takes, not « 654/2: two throws »
    expect(helped).to_have_text("421 or 4-2-1: what the three dice show")
    lines = page.get_by_test_id("log").locator("li")
    before = lines.all_inner_texts()
    entry.fill("654/2")
    page.get_by_test_id("report-button").click()
    expect(banner).to_contain_text("Ann may use 1 throw now, not 2")
    entry.fill("421")
    page.get_by_test_id("report-button").click()
    expect(prompt).to_contain_text("Bob")
    expect(lines.last).to_contain_text("421")
    expect(banner).to_be_hidden()  # the refusal was of the entry before
    accessible(page)
    page.get_by_test_id("undo-button").click()
    expect(lines).to_have_text(before)
    page.get_by_test_id("lang-toggle").click()
    expect(page.get_by_test_id("nav-scorekeeper")).to_have_text("Marqueur")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(prompt).to_contain_text("Ann : les dés")
    expect(helped).to_have_text("421 ou 4-2-1 : ce que montrent les trois dés")
    accessible(page)
    page.get_by_test_id("lang-toggle").click()
    expect(page.get_by_test_id("nav-scorekeeper")).to_have_text("Scorekeeper")
    shot(page, "scorekeeper")
    page.locator("a.brand").click()  # the same editor in the lobby: the creator's seat stays
    seats = page.locator("[data-testid^=seat-kind-]")
    expect(seats).to_have_count(3)
    expect(page.get_by_test_id("remove-seat-0")).to_have_count(0)
    page.get_by_test_id("remove-seat-2").click()
    expect(seats).to_have_count(2)
    expect(page.get_by_test_id("remove-seat-1")).to_be_disabled()  # two players at least
    page.get_by_test_id("lang-toggle").click()  # the server's refusal in the page's language, naming what
    page.get_by_test_id("player-name").fill("Ann")
    page.get_by_test_id("settings").fill("nope=1")
    page.get_by_test_id("create-table").click()
    expect(banner).to_contain_text("option inconnue : 'nope' ; au choix : ranking")
    assert errors == []


def test_a_game_with_hints_then_its_analysis_on_a_small_phone(own_server: str, browser: Browser) -> None:
    """Hints on the player's turn; at the end the analysis: a decision tapped shows its choices ranked.
    Its own server: the history's first game, analysed at the end, is this test's."""
    server = own_server
    page = phone(browser, 360, 740)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server + "/")
    page.get_by_test_id("player-name").fill("Alice")
    page.get_by_test_id("preset").select_option("classic-11")
    page.get_by_test_id("remove-seat-2").click()  # Alice and one bot: the two-player game, solved exactly
    page.get_by_test_id("hints").check()
    page.get_by_test_id("create-table").click()
    expect(page.get_by_test_id("hints-on")).to_be_visible()  # everyone sees hints are on
    page.get_by_test_id("start-button").click()
    hinted = False
    deadline = time.monotonic() + 240
    for _ in range(3):  # a charge can leave Alice nothing to decide: she then plays a rematch
        while time.monotonic() < deadline and not page.get_by_test_id("outcome").is_visible():
            if page.get_by_test_id("your-turn").is_visible():
                if not hinted:
                    ranking = page.get_by_test_id("hints").get_by_test_id("ranking")
                    expect(ranking.locator("li").first).to_be_visible()
                    shot(page, "hints")
                    accessible(page)
                    hinted = True
                take_a_turn(page)
            time.sleep(0.05)
        if hinted:
            break
        page.get_by_test_id("rematch-button").click()  # the page goes to the new table
        expect(page.get_by_test_id("status")).to_have_attribute("data-status", "waiting")
        page.get_by_test_id("start-button").click()
    assert hinted
    page.get_by_test_id("analysis-link").click()
    chips = page.locator("[data-testid^=decision-]")
    expect(chips.first).to_be_visible(timeout=60_000)  # the game's rules are solved already
    expect(page.get_by_test_id("summaries")).to_contain_text("Alice:")
    expect(page.get_by_test_id("summaries")).to_contain_text(re.compile(r"total cost \d+\.\d\d points"))
    costly = page.locator(".chip:not([data-level='0'])")
    chip = costly.first if costly.count() else chips.first  # always stopping costs somewhere, as a rule
    chip.click()
    detail = page.get_by_test_id("decision")
    expect(detail).to_be_visible()
    rows = detail.get_by_test_id("ranking").locator("li")
    assert rows.count() >= 2
    expect(detail.locator(".is-chosen")).to_have_count(1)
    expect(detail.get_by_test_id("decision-dice").locator("svg")).to_have_count(3)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360  # nothing spills sideways
    accessible(page)
    felt_reaches_the_bottom(page)
    page.evaluate("window.scrollTo(0, 0)")  # the top bar, sticky, at the top of the long picture
    shot(page, "analysis-phone")  # docs/analysis-phone.png is one of these
    page.get_by_test_id("lang-toggle").click()
    expect(page.get_by_test_id("timeline")).to_contain_text("La partie, décision par décision")
    page.get_by_test_id("lang-toggle").click()
    page.get_by_test_id("analysis-bots").click()  # the bot's decisions too
    expect(page.get_by_test_id("summaries")).to_contain_text("Heuristic 1:")
    page.goto(server + "/")  # the history links every finished game to its analysis
    expect(page.locator("[data-testid^=game-analysis-]").first).to_be_visible()
    accessible(page)
    page.set_viewport_size({"width": 1366, "height": 1452})  # a desktop's: the felt goes down to the end
    felt_reaches_the_bottom(page)
    page.locator("[data-testid^=game-analysis-]").first.click()
    expect(page.locator("[data-testid^=decision-]").first).to_be_visible(timeout=60_000)
    assert errors == []


def test_a_table_whose_rules_take_long_to_solve_says_how_long_while_it_is_made(
    server: str, browser: Browser
) -> None:
    """The lobby asks the server how long the table's rules will take to solve (here, as it would
    for rules nobody solved on it: 30 s) and counts the wait against it until the table is made."""
    page = phone(browser)
    held: list[Any] = []
    page.route("**/api/tables/estimate", lambda route: route.fulfill(json={"seconds": 29.2}))

    def hold(route: Any) -> None:  # the table's making, held until the line has been read
        if route.request.method == "POST":
            held.append(route)
        else:
            route.continue_()

    page.route(re.compile(r".*/api/tables$"), hold)
    page.goto(server + "/")
    page.get_by_test_id("player-name").fill("Alice")
    page.get_by_test_id("preset").select_option("classic-11")
    page.get_by_test_id("remove-seat-2").click()
    page.get_by_test_id("hints").check()
    page.get_by_test_id("create-table").click()
    solving = page.get_by_test_id("create-solving")
    expect(solving).to_contain_text("Solving these rules for this table, once on this server")
    expect(solving).to_contain_text("of about 30 s")
    assert len(held) == 1
    held[0].continue_()
    expect(page.get_by_test_id("hints-on")).to_be_visible()  # made: the table's page


def test_a_table_made_at_once_says_nothing_of_solving(server: str, browser: Browser) -> None:
    page = phone(browser)
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.goto(server + "/")
    page.get_by_test_id("player-name").fill("Alice")
    page.get_by_test_id("create-table").click()  # no hints, no optimal seat: nothing to solve
    expect(page.get_by_test_id("status")).to_have_attribute("data-status", "waiting")
    assert not any(url.endswith("/api/tables/estimate") for url in asked)


def test_a_player_a_bot_stood_in_for_takes_the_seat_back_at_a_tap(server: str, browser: Browser) -> None:
    """Away, the page said so in the players' list only, and the bot played each turn the moment it
    came: the player now sees why, and takes the seat back at a tap."""
    alice = phone(browser)
    her_first_turn(alice, server, timeout="10")  # the least a table may give
    away = alice.get_by_test_id("away")
    expect(away).to_be_visible(timeout=60_000)  # ten seconds without a move: a bot plays for her
    expect(away).to_contain_text("a bot plays for you")
    alice.get_by_test_id("back-button").click()
    expect(away).to_be_hidden()  # hers again: her turns wait for her, with the table's timeout


class Relay:
    """A TCP relay to the server, as a bar's wifi between a phone and it: :meth:`go_silent` makes
    every connection open so far carry nothing more either way while none of them closes, as when
    the wifi dies and neither end is told. Connections made after pass again."""

    def __init__(self, server: str) -> None:
        self.target = int(server.rsplit(":", 1)[1])
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.opened = 0
        self.silent_below = 0  # connections numbered below it carry nothing
        threading.Thread(target=self._accept, daemon=True).start()

    def go_silent(self) -> None:
        self.silent_below = self.opened

    def _accept(self) -> None:
        while True:
            try:
                near, _ = self.listener.accept()
            except OSError:
                return  # closed
            far = socket.create_connection(("127.0.0.1", self.target))
            number = self.opened
            self.opened += 1
            for source, sink in ((near, far), (far, near)):
                threading.Thread(target=self._carry, args=(source, sink, number), daemon=True).start()

    def _carry(self, source: socket.socket, sink: socket.socket, number: int) -> None:
        try:
            while data := source.recv(65536):
                if number >= self.silent_below:
                    sink.sendall(data)
            if number >= self.silent_below:  # a dead wifi does not carry an end either
                sink.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def close(self) -> None:
        self.listener.close()


def test_a_connection_that_went_silent_is_made_again_and_the_game_goes_on(
    server: str, browser: Browser
) -> None:
    """The wifi died with the socket open and nobody was told: the page said « live » for ever and
    nothing the player did reached the table. It notices the silence and connects again."""
    relay = Relay(server)
    try:
        alice = phone(browser)
        alice.clock.install()  # the page's waits go by at the test's word
        sockets: list[str] = []
        alice.on("websocket", lambda ws: sockets.append(ws.url))
        her_first_turn(alice, relay.address)
        connection = alice.get_by_test_id("connection")
        expect(connection).to_have_attribute("data-state", "open")
        assert len(sockets) == 1
        relay.go_silent()
        alice.clock.run_for(60_000)  # a minute with nothing heard from the server
        deadline = time.monotonic() + 60
        while len(sockets) < 2 and time.monotonic() < deadline:
            alice.wait_for_timeout(100)
        assert len(sockets) >= 2, "the page never connected again"
        expect(connection).to_have_attribute("data-state", "open")
        # what the player does reaches the table again
        lines = alice.get_by_test_id("log").locator("li")
        before = lines.count()
        alice.get_by_test_id("action-throw").click()
        expect(lines).not_to_have_count(before)
        relay.go_silent()  # and again, on the new connection
        alice.clock.run_for(60_000)
        deadline = time.monotonic() + 60
        while len(sockets) < 3 and time.monotonic() < deadline:
            alice.wait_for_timeout(100)
        assert len(sockets) >= 3, "the page never connected a third time"
        expect(connection).to_have_attribute("data-state", "open")
    finally:
        relay.close()


def test_a_phone_that_loses_its_network_says_so_and_connects_again_when_it_is_back(
    server: str, browser: Browser
) -> None:
    """The page said « live » with no network, then waited up to 15 s after it came back."""
    alice = phone(browser)
    sockets: list[str] = []
    alice.on("websocket", lambda ws: sockets.append(ws.url))
    alice.goto(server + "/")
    alice.get_by_test_id("player-name").fill("Alice")
    alice.get_by_test_id("create-table").click()
    connection = alice.get_by_test_id("connection")
    expect(connection).to_have_attribute("data-state", "open")
    alice.context.set_offline(True)
    expect(connection).to_have_attribute("data-state", "offline")
    expect(connection).to_have_text("no network")
    alice.context.set_offline(False)
    expect(connection).to_have_attribute("data-state", "open")
    assert len(sockets) >= 2


@pytest.mark.parametrize(("width", "height"), [(320, 568), (360, 640)])
def test_on_a_small_phone_the_dice_and_throw_are_on_screen_when_the_turn_comes(
    server: str, browser: Browser, width: int, height: int
) -> None:
    """On a 360 × 640 phone, the most common Android screen, and a 320 × 568 one, « Throw » was below
    the screen's edge at each turn: the player had to scroll to find it."""
    alice = phone(browser, width, height)
    her_first_turn(alice, server)
    expect(alice.get_by_test_id("action-throw")).to_be_in_viewport(ratio=1)
    expect(alice.get_by_test_id("dice")).to_be_in_viewport(ratio=1)
    expect(alice.get_by_test_id("share-link")).to_be_visible()  # still there, for watchers


def test_the_home_page_leads_back_to_the_tables_this_phone_holds_a_seat_at(
    server: str, browser: Browser
) -> None:
    """A tab closed at the bar, or a phone that dropped the page: the table could be found again
    only through its link. The home page lists the tables this phone sat at lately, latest first."""
    alice, bob = phone(browser), phone(browser)
    code = her_table_for_two(alice, server)
    bob.goto(server + "/")
    expect(bob.get_by_test_id("create-table")).to_be_visible()
    expect(bob.get_by_test_id("your-tables")).to_have_count(0)  # a phone that sat nowhere: nothing
    bob_joins(bob, alice, server, code)
    for person in (alice, bob):
        person.goto(server + "/")
        back = person.get_by_test_id(f"your-table-{code}")
        expect(back).to_contain_text(code)
        accessible(person)
        back.click()
        expect(person.get_by_test_id("status")).to_have_attribute("data-status", "waiting")
    expect(alice.get_by_test_id("start-button")).to_be_visible()  # back in her seat: she starts it
    expect(bob.get_by_test_id("join-button")).to_be_hidden()  # back in his: nothing to join


def test_the_dice_tapped_to_keep_outlive_a_reload(server: str, browser: Browser) -> None:
    """A phone that reloads the page (a tab the browser dropped while the player talked) forgot the
    dice tapped to keep: the player had to tap them again, or threw them all by mistake."""
    alice = phone(browser)
    her_first_turn(alice, server)
    alice.get_by_test_id("die-0").click()
    alice.get_by_test_id("die-2").click()
    expect(alice.get_by_test_id("action-throw")).to_contain_text("throw 1")
    alice.reload()
    expect(alice.get_by_test_id("your-turn")).to_be_visible()
    expect(alice.get_by_test_id("die-0")).to_have_attribute("aria-pressed", "true")
    expect(alice.get_by_test_id("die-1")).to_have_attribute("aria-pressed", "false")
    expect(alice.get_by_test_id("die-2")).to_have_attribute("aria-pressed", "true")
    expect(alice.get_by_test_id("action-throw")).to_contain_text("throw 1")


def test_a_late_comer_is_told_why_they_only_watch(server: str, browser: Browser) -> None:
    """A friend who opened the link after the start, or a player on a second phone, was told only
    « You are watching », and looked for a way to join."""
    alice, bob = phone(browser), phone(browser)
    her_first_turn(alice, server)
    bob.goto(alice.url)
    watching = bob.locator(".watching")
    expect(watching).to_contain_text("the game started with the players seated")
    expect(watching).to_contain_text("plays from that phone")
    expect(bob.get_by_test_id("join-button")).to_be_hidden()


def test_a_player_whose_phone_died_goes_on_from_another_phone(server: str, browser: Browser) -> None:
    """A phone that dies mid-game took its seat with it: a bot stood in to the end, and its player
    could only watch from a borrowed phone. A seated player hands the seat on with a link."""
    alice, bob = phone(browser), phone(browser)
    code = her_table_for_two(alice, server, "charge_throws=3")
    bob_joins(bob, alice, server, code)
    alice.get_by_test_id("start-button").click()
    expect(bob.get_by_test_id("player-1")).to_contain_text("you")
    expect(alice.get_by_test_id("hand-1")).to_have_count(0)  # Bob is there: his seat is his
    bob.context.close()  # his battery is flat
    alice.get_by_test_id("hand-1").click()
    handed = alice.get_by_test_id("handed-link")
    expect(handed).to_contain_text(f"/t/{code}#seat=1.")
    link = handed.inner_text()
    expect(alice.get_by_test_id("handed")).to_contain_text("Bob's seat")
    borrowed = phone(browser)  # a friend's phone, already watching the table
    borrowed.goto(f"{server}/t/{code}")
    expect(borrowed.get_by_test_id("player-1")).to_contain_text("Bob")
    borrowed.goto(link)  # only the link's end changes: the page is not loaded again
    expect(borrowed.get_by_test_id("player-1")).to_contain_text("you")
    assert "#" not in borrowed.url  # the token leaves the address bar at once
    fresh = phone(browser)  # opened in a new tab: the page loads with the link (whoever has it holds it)
    fresh.goto(link)
    expect(fresh.get_by_test_id("player-1")).to_contain_text("you")
    assert "#" not in fresh.url
    # opened by mistake on a phone seated at the table, the link takes nothing from it
    alice.goto(link)
    expect(alice.get_by_test_id("error-banner")).to_contain_text("already holds a seat at this table")
    expect(alice.get_by_test_id("player-0")).to_contain_text("you")
    assert "#" not in alice.url
    accessible(alice)
    # Alice hands her own seat on: her phone is told, and watches from then on, reloaded too
    alice.get_by_test_id("hand-0").click()
    expect(alice.get_by_test_id("error-banner")).to_contain_text("handed to another phone")
    expect(alice.get_by_test_id("player-0")).not_to_contain_text("you")
    alice.reload()
    expect(alice.get_by_test_id("status")).to_have_attribute("data-status", "playing")
    expect(alice.get_by_test_id("player-0")).not_to_contain_text("you")


def test_a_phone_back_after_its_seat_was_handed_on_knows_it_only_watches(
    server: str, browser: Browser
) -> None:
    """Bob's phone was off while Alice handed his seat on: back, its page still said « you », offered
    to hand seats on, and listed the table as his; the server took it for a watcher and said nothing."""
    alice, bob = phone(browser), phone(browser)
    code = her_table_for_two(alice, server, "charge_throws=3")
    bob_joins(bob, alice, server, code)
    alice.get_by_test_id("start-button").click()
    expect(bob.get_by_test_id("player-1")).to_contain_text("you")
    bob.close()  # off, its saved seat kept
    alice.get_by_test_id("hand-1").click()
    expect(alice.get_by_test_id("handed-link")).to_contain_text(f"/t/{code}#seat=1.")
    back = bob.context.new_page()
    back.goto(f"{server}/t/{code}")
    expect(back.get_by_test_id("error-banner")).to_contain_text("handed to another phone")
    expect(back.get_by_test_id("player-1")).to_contain_text("Bob")
    expect(back.get_by_test_id("player-1")).not_to_contain_text("you")
    expect(back.get_by_test_id("hand-1")).to_have_count(0)  # its own seat was offered: it held none
    back.goto(server + "/")
    expect(back.get_by_test_id(f"your-table-{code}")).to_have_count(0)


def test_a_phone_closed_when_the_rematch_was_made_takes_its_seat_there_from_the_old_link(
    server: str, browser: Browser
) -> None:
    """Bob's page was closed when Alice made the rematch: back on the old table's link, its link to the
    rematch made him a watcher there, his seat shown « not here », and a bot played it."""
    alice, bob = phone(browser), phone(browser)
    code = her_table_for_two(alice, server, "charge_throws=3, pot=3, manches=1")
    bob_joins(bob, alice, server, code)
    alice.get_by_test_id("start-button").click()
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and not alice.get_by_test_id("outcome").is_visible():
        for page in (alice, bob):
            if page.get_by_test_id("your-turn").is_visible():
                take_a_turn(page)
        time.sleep(0.05)
    expect(bob.get_by_test_id("outcome")).to_be_visible()
    bob.close()  # asleep, its saved seat kept
    alice.get_by_test_id("rematch-button").click()
    expect(alice.get_by_test_id("status")).to_have_attribute("data-status", "waiting")
    back = bob.context.new_page()
    back.goto(f"{server}/t/{code}")
    back.get_by_test_id("rematch-link").click()
    expect(back.get_by_test_id("status")).to_have_attribute("data-status", "waiting")
    expect(back.get_by_test_id("player-1")).to_contain_text("you")
    expect(alice.get_by_test_id("player-1")).not_to_contain_text("not here")
    alice.get_by_test_id("start-button").click()
    expect(back.get_by_test_id("status")).to_have_attribute("data-status", "playing")
    expect(back.get_by_test_id("player-1")).to_contain_text("Bob")


def test_a_creator_whose_phone_died_before_the_start_starts_from_another(
    server: str, browser: Browser
) -> None:
    """Only the creator starts a table: one whose phone died before the start left the friends who
    had joined with a table nobody could start. Bob hands her seat on; she starts from a borrowed phone."""
    alice, bob = phone(browser), phone(browser)
    code = her_table_for_two(alice, server)
    bob_joins(bob, alice, server, code)
    expect(bob.get_by_test_id("hand-0")).to_have_count(0)  # Alice is there: her seat is hers
    alice.context.close()
    bob.get_by_test_id("hand-0").click()
    handed = bob.get_by_test_id("handed-link")
    expect(handed).to_contain_text(f"/t/{code}#seat=0.")
    link = handed.inner_text()
    expect(bob.get_by_test_id("handed")).to_contain_text("Alice's seat")
    borrowed = phone(browser)
    borrowed.goto(link)
    expect(borrowed.get_by_test_id("player-0")).to_contain_text("you")
    expect(bob.get_by_test_id("player-0")).not_to_contain_text("not here")  # drawn again since
    expect(handed).to_be_visible()  # the link stays shown, before the start as in play
    borrowed.get_by_test_id("start-button").click()
    expect(bob.get_by_test_id("status")).to_have_attribute("data-status", "playing")
    expect(bob.get_by_test_id("player-1")).to_contain_text("you")


def ann_has_played(keeper: Page, server: str) -> None:
    """The score of Ann and Bob's real table, kept on ``keeper``: Ann's 421 reported, Bob's turn next."""
    keeper.goto(server + "/scorekeeper")
    keeper.get_by_test_id("sk-player-1").fill("Ann")
    keeper.get_by_test_id("sk-player-2").fill("Bob")
    keeper.get_by_test_id("create-table").click()
    expect(keeper.get_by_test_id("status")).to_have_attribute("data-status", "playing")
    keeper.get_by_test_id("report-input").fill("421")
    keeper.get_by_test_id("report-button").click()
    expect(keeper.locator(".report-prompt")).to_contain_text("Bob")


def test_a_scorekeeper_whose_phone_died_is_taken_over_from_a_phone_watching(
    own_server: str, browser: Browser
) -> None:
    """With no time to hand the score on (a flat battery), nobody could go on with it. A phone watching
    offers to keep it once the keeper's is gone, and the server says when it may (its own server:
    the module's hands seats on at once)."""
    keeper, other = phone(browser), phone(browser)
    ann_has_played(keeper, own_server)
    code = keeper.url.rstrip("/").rsplit("/", 1)[-1]
    held = keeper.evaluate(f"localStorage.getItem('py421:{code}')")
    other.goto(keeper.url)
    expect(other.get_by_test_id("player-1")).to_contain_text("Bob")
    take = other.get_by_test_id("take-score")
    expect(take).to_be_hidden()  # the keeper's phone is there
    keeper.context.close()  # its battery died
    take.click()
    expect(other.get_by_test_id("error-banner")).to_contain_text("for 2 min")
    # Two minutes later the server hands it (tests/test_server.py); here it is answered so at once.
    token = json.loads(held)["token"]
    answer = {"code": code, "seat": 0, "token": token}
    other.route("**/seats/0/hand", lambda route: route.fulfill(json=answer))
    take.click()
    expect(other.locator(".report-prompt")).to_contain_text("Bob")  # where the score was left
    expect(take).to_be_hidden()
    other.get_by_test_id("report-input").fill("654")
    other.get_by_test_id("report-button").click()
    expect(other.get_by_test_id("log")).to_contain_text("Bob takes 8 from the pot")


def test_a_scorekeeper_whose_battery_runs_low_keeps_the_score_on_another_phone(
    server: str, browser: Browser
) -> None:
    """The scorekeeper's phone is the only one that reports: when it dies, the game stops there."""
    keeper, other = phone(browser), phone(browser)
    ann_has_played(keeper, server)
    keeper.get_by_test_id("hand-scorekeeper").click()
    handed = keeper.get_by_test_id("handed-link")
    expect(handed).to_contain_text("#seat=0.")
    expect(keeper.get_by_test_id("handed")).to_contain_text("keeps the score from now on")
    other.goto(handed.inner_text())
    expect(other.locator(".report-prompt")).to_contain_text("Bob")  # where the score was left
    expect(keeper.get_by_test_id("error-banner")).to_contain_text("handed to another phone")
    expect(keeper.get_by_test_id("report-input")).to_be_hidden()  # the old phone only watches
    other.get_by_test_id("report-input").fill("654")
    other.get_by_test_id("report-button").click()
    expect(keeper.get_by_test_id("log")).to_contain_text("Bob takes 8 from the pot")  # 421 against 654
