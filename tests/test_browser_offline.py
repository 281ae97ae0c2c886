"""The app on a phone with no server: from 421 site's files on a plain static host, and from 421 serve.

A game against a bot and a real table's score, played to the end, reloaded mid-game with the
network cut, exported and replayed by 421 replay; in both languages, at phone size.
"""

from __future__ import annotations

import contextlib
import json
import re
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from .test_browser import ARGUMENTS, CHROMIUM, accessible, launch, phone, shot

assert CHROMIUM  # test_browser skips this module's import without Chromium

from playwright.sync_api import Browser, Locator, Page, expect  # noqa: E402

from .server_process import free_port, start_server, static_site  # noqa: E402
from .test_browser import nothing_refused_and_no_token_in_a_url  # noqa: E402, F401

pytestmark = pytest.mark.slow  # a real browser, and Pyodide starting in it


@pytest.fixture(scope="module")
def chromium_once() -> Iterator[Browser]:
    """One Chromium for the module's tests: starting it costs a second of CPU and more of wall."""
    yield from launch()


@pytest.fixture
def chromium(chromium_once: Browser) -> Iterator[Browser]:
    """The module's Chromium, each page of a test in a context of its own: its service worker,
    caches and database start empty, as in a browser just started. All closed after the test."""
    yield chromium_once
    for context in chromium_once.contexts:
        context.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from static_site(tmp_path_factory.mktemp("site"))


# Counts the log's changes: each view drawn after a step changes it (a new line, or the last ones)
COUNT_DRAWN = """() => { window.drawn = 0; new MutationObserver(() => window.drawn++).observe(
    document.querySelector("[data-testid=log]"), { childList: true, subtree: true }); }"""


def app_page(chromium: Browser) -> Page:
    """A phone-sized page that waits as long as the page's own waits: Python starting in the
    browser takes seconds, far more on a busy machine."""
    page = phone(chromium)
    page.set_default_timeout(60_000)
    return page


# Taps « throw » and says whether the choices are busy right after, before any answer can come
TAP_THROW = """() => { document.querySelector("[data-testid=action-throw]").click();
    return document.querySelector("[data-testid=actions]").getAttribute("aria-busy"); }"""


def legal_button(page: Page) -> Locator:
    """A choice the person can make now: none while the page waits for the answer to the last one."""
    return page.locator(
        "[data-testid=actions]:not([hidden]):not([aria-busy=true]) button:not([hidden]):not([disabled])"
    ).first


def play_moves(page: Page, most: int) -> None:
    """The person's first choice, each turn, until the game is over or ``most`` moves are made."""
    for _ in range(most):
        if page.get_by_test_id("status").get_attribute("data-status") == "over":
            return
        button = legal_button(page)
        try:
            button.wait_for(timeout=2000)
        except Exception:  # a bot is moving: the buttons come back on the person's turn
            continue
        button.click()


# the games played to their end: one manche, its charge long enough (the full pot) that a round or
# two cannot end the game before the steps and reloads a test makes first
ONE_MANCHE = "manches=1, charge_throws=3"


def new_game(page: Page, base: str, name: str, settings: str = "charge_throws=3") -> None:
    """A game of ``name`` against a bot; three throws in the charge: a person decides from their first
    turn (with coups secs, the dice alone may end a game before anyone chooses)."""
    page.goto(f"{base}/here")
    page.get_by_test_id("seat-name-0").fill(name)
    page.get_by_test_id("settings").fill(settings)
    page.get_by_test_id("create-here").click()
    page.wait_for_url("**/t/local-*")
    expect(page.get_by_test_id("status")).to_have_attribute("data-status", "playing")


def test_a_game_against_a_bot_plays_offline_from_the_static_site_and_replays(
    chromium: Browser, site: str, tmp_path
):
    page = app_page(chromium)
    page.goto(site)
    expect(page.get_by_test_id("no-server")).to_contain_text("this page cannot reach one")
    accessible(page)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")  # every file kept for offline use
    expect(page.get_by_test_id("offline-ready")).to_have_attribute("data-state", "ready")
    expect(page.get_by_test_id("offline-ready")).to_contain_text("airplane mode")
    page.goto(f"{site}/here")
    accessible(page)  # while Python starts in the page
    expect(page.get_by_test_id("create-here")).to_be_visible()
    expect(page.get_by_test_id("here-no-solver")).to_contain_text("need the solvers of a py421 server")
    expect(page.get_by_test_id("preset-about")).to_contain_text("2 players or more")  # the rules, as online
    accessible(page)
    page.get_by_test_id("seat-name-0").fill("Ana")
    # on a phone a person's name shows whole beside the seat's choice (it was squeezed to 28 px)
    name, kind = (page.get_by_test_id(f"seat-{part}-0").bounding_box() for part in ("name", "kind"))
    assert name is not None and kind is not None and name["width"] >= 0.8 * kind["width"], (name, kind)
    page.get_by_test_id("settings").fill("pot=0")
    page.get_by_test_id("create-here").click()
    expect(page.get_by_test_id("error-banner")).to_contain_text("pot")  # the rules' refusal, as a server's
    new_game(page, site, "Ana", "pot=7, manches=1, charge_throws=3")  # Ana decides from her first turn
    accessible(page)
    legal_button(page).wait_for()  # Ana's turn, the game under way: nothing moves until she does
    before = page.get_by_test_id("log").locator("li").all_inner_texts()
    page.context.set_offline(True)  # airplane mode: the reload comes from the service worker
    page.reload()
    expect(page.get_by_test_id("log").locator("li")).to_have_text(before)
    # Ana throws again: her dice and the log change, the players do not, and are not drawn again
    # (a part drawn anew is laid out and painted anew, which a slow phone feels at every tap)
    expect(page.get_by_test_id("turn")).to_contain_text("throw 1 of 3")
    page.get_by_test_id("player-0").evaluate("(li) => { li.dataset.drawn = 'before'; }")
    # From the tap until Python answers, the choices say they are busy (a second tap sends nothing),
    # though they look the same unless the answer is slow
    assert page.evaluate(TAP_THROW) == "true"
    expect(page.get_by_test_id("turn")).to_contain_text("throw 2 of 3")
    expect(page.get_by_test_id("actions")).not_to_have_attribute("aria-busy", "true")
    expect(page.get_by_test_id("player-0")).to_have_attribute("data-drawn", "before")
    play_moves(page, 400)
    expect(page.get_by_test_id("status")).to_have_attribute("data-status", "over")
    expect(page.get_by_test_id("log")).to_contain_text("game over")
    shot(page, "offline-game-over")
    with page.expect_download() as download:
        page.get_by_test_id("record-link").click()
    record = tmp_path / "game.json"
    download.value.save_as(record)
    replay = subprocess.run(
        [sys.executable, "-m", "py421", "replay", str(record)], capture_output=True, text=True, timeout=120
    )
    assert replay.returncode == 0, replay.stderr
    # the page's small game, its options named as --set names them
    shown = "classic-11 (pot=7, charge_throws=3, manches=1), Ana, Heuristic 1: "
    assert replay.stdout.startswith(shown) and "steps replayed" in replay.stdout
    options = json.loads(record.read_text())["rules"]["options"]
    assert (options["pot"], options["manches"], options["charge_throws"]) == (7, 1, 3)  # as typed
    finished = page.url
    page.goto(site)  # still offline
    expect(page.get_by_test_id("kept")).to_contain_text("classic-11 · Ana, Heuristic 1")
    # where it stands and when it was played, on a row a thumb can tap
    kept = page.get_by_test_id("kept").locator("a").first
    expect(kept.get_by_test_id("kept-state")).to_contain_text("finished ·")
    box = kept.bounding_box()
    assert box is not None and box["height"] >= 44, box
    players = page.get_by_test_id("kept-players").locator("tbody tr")
    expect(players).to_have_count(2)  # Ana and the bot, one game each
    expect(players.filter(has_text="Ana")).to_contain_text("1")
    # a record made elsewhere, watched on the phone step by step (still offline)
    made = tmp_path / "bots.json"
    command = ["play", "--players", "bot:heuristic,bot:random", "--set", "pot=3", "--seed", "4"]
    subprocess.run(
        [sys.executable, "-m", "py421", *command, "--record", str(made)],
        input="", capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    steps = len(json.loads(made.read_text())["steps"])
    page.goto(f"{site}/here")
    picker = page.get_by_test_id("replay-file")
    picker.set_input_files({"name": "notes.json", "mimeType": "application/json", "buffer": b'{"a": 1}'})
    expect(page.get_by_test_id("error-banner")).to_contain_text("not a py421 game record")
    picker.set_input_files(str(made))
    expect(page.get_by_test_id("replay-step")).to_have_text(f"Step 0 of {steps}")
    expect(page.get_by_test_id("replay-back")).to_be_disabled()
    accessible(page)
    page.get_by_test_id("replay-next").click()
    expect(page.get_by_test_id("replay-step")).to_have_text(f"Step 1 of {steps}")
    expect(page.get_by_test_id("status")).to_have_attribute("data-status", "playing")
    shot(page, "offline-replay")
    page.get_by_test_id("replay-last").click()
    expect(page.get_by_test_id("status")).to_have_attribute("data-status", "over")
    expect(page.get_by_test_id("outcome")).to_be_visible()
    expect(page.get_by_test_id("replay-next")).to_be_disabled()
    expect(page.get_by_test_id("actions")).to_be_hidden()  # a replay takes no moves
    page.goto(site)
    expect(page.get_by_test_id("kept")).to_contain_text("classic-11 · Heuristic 1, Random 1 — record")
    expect(players).to_have_count(2)  # a game watched is not a game played here
    # a rematch, then the finished game opened again: it stays, its record still there to take
    page.goto(finished)
    page.get_by_test_id("rematch-button").click()
    page.wait_for_url(lambda url: url != finished)
    page.goto(finished)
    expect(page.get_by_test_id("status")).to_have_attribute("data-status", "over")
    expect(page.get_by_test_id("rematch-link")).to_be_visible()
    expect(page.get_by_test_id("record-link")).to_be_visible()
    assert page.url == finished


def test_python_that_cannot_start_says_so_rather_than_wait_for_ever(chromium: Browser, site: str):
    """The network cut on the first visit, before the app is kept: Python's runtime does not come,
    and the page says what to do where it said « Starting py421 on this phone… » for ever."""
    page = app_page(chromium)
    page.context.route("**/pyodide.asm.wasm", lambda route: route.abort("internetdisconnected"))
    page.goto(f"{site}/here")
    expect(page.get_by_test_id("here-failed")).to_contain_text("network was cut")


def test_an_address_that_is_not_https_says_the_app_is_not_kept(chromium: Browser, site: str):
    """A laptop's address on the bar's Wi-Fi: the browser keeps nothing of the app there (no service
    worker outside https and localhost), and the page says so rather than promise play with no network."""
    port = site.rsplit(":", 1)[1]
    # a name for the static host that is not localhost, as a laptop's on the bar's network
    rules = "--host-resolver-rules=MAP table.example 127.0.0.1"
    browser = chromium.browser_type.launch(executable_path=CHROMIUM, args=[*ARGUMENTS, rules])
    page = app_page(browser)
    try:
        page.goto(f"http://table.example:{port}/")
        note = page.get_by_test_id("offline-ready")
        expect(note).to_have_attribute("data-state", "never")
        expect(note).to_contain_text("http://table.example")
    finally:
        browser.close()


def test_a_host_that_hangs_does_not_make_a_kept_app_say_it_is_still_kept(chromium: Browser, tmp_path: Path):
    """The bar's Wi-Fi half there: the host no longer answers, and the page, kept on the phone, said
    to stay online until it was kept, waiting on the browser's check for a new version."""
    page = app_page(chromium)
    served: list[subprocess.Popen[bytes]] = []
    with contextlib.closing(static_site(tmp_path, served=served)) as sites:
        site = next(sites)
        page.goto(site)
        expect(page.get_by_test_id("offline-ready")).to_have_attribute("data-state", "ready")
        served[0].send_signal(signal.SIGSTOP)  # the host takes every request and answers none
        try:
            page.context.set_offline(True)
            page.reload()
            expect(page.get_by_test_id("offline-ready")).to_have_attribute("data-state", "ready")
            page.goto(f"{site}/here")
            expect(page.get_by_test_id("offline-ready")).to_have_attribute("data-state", "ready")
            page.goto(site)
            expect(page.get_by_test_id("offline-ready")).to_have_attribute("data-state", "ready")
        finally:
            served[0].send_signal(signal.SIGCONT)


def test_a_keep_the_rules_refuse_is_never_offered(chromium: Browser, site: str):
    """All three dice tapped: the button said « Keep 665, throw 0 » and the rules then refused it.
    Only keeps the rules take are offered; otherwise the page says which they are."""
    page = app_page(chromium)
    new_game(page, site, "Ana")
    legal_button(page).wait_for()
    expect(page.get_by_test_id("action-throw")).to_be_visible()
    for i in range(3):
        page.get_by_test_id(f"die-{i}").click()
    expect(page.get_by_test_id("action-throw")).to_be_hidden()
    expect(page.get_by_test_id("action-hint")).to_contain_text("is not allowed. Allowed: nothing, ")
    page.get_by_test_id("die-2").click()  # two dice kept: a throw of the third
    expect(page.get_by_test_id("action-throw")).to_contain_text("throw 1")
    expect(page.get_by_test_id("action-hint")).to_be_hidden()


def test_the_table_names_its_rules_and_the_stake_that_accumulates(chromium: Browser, site: str):
    page = app_page(chromium)
    page.goto(f"{site}/here")
    page.get_by_test_id("seat-name-0").fill("Ana")
    page.locator("#preset").select_option("lyonnaise-21")
    page.get_by_test_id("settings").fill("pot=15")
    page.get_by_test_id("create-here").click()
    page.wait_for_url("**/t/local-*")
    expect(page.get_by_test_id("rules-named")).to_have_text("Rules: lyonnaise-21 (pot=15)")
    # the charge's stakes add up over the round (accumulated stakes): what is at stake so far
    expect(page.get_by_test_id("stake")).to_contain_text("At stake")


def test_a_kept_game_is_forgotten_at_a_tap(chromium: Browser, site: str):
    """Kept games could not be deleted, and the page replays every one as it starts (500 made it
    wait ten seconds): each can now be forgotten, after a confirmation."""
    page = app_page(chromium)
    new_game(page, site, "Ana")
    code = page.url.rsplit("/", 1)[1]
    page.goto(site)
    expect(page.get_by_test_id(f"kept-{code}")).to_be_visible()
    accessible(page)
    page.once("dialog", lambda dialog: dialog.dismiss())  # « Forget this game? » answered no: kept
    page.get_by_test_id(f"forget-{code}").click()
    expect(page.get_by_test_id(f"kept-{code}")).to_be_visible()
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_test_id(f"forget-{code}").click()
    expect(page.get_by_test_id(f"kept-{code}")).to_have_count(0)
    page.reload()
    expect(page.get_by_test_id("kept")).to_contain_text("No game on this phone")
    page.goto(f"{site}/t/{code}")
    expect(page.locator("body")).to_contain_text(f"no table {code}")


def test_a_game_open_in_two_tabs_is_played_in_one_and_loses_no_move(chromium: Browser, site: str):
    """Each tab plays with its own Python: a second tab on the same game takes it over, and the
    first, left behind, takes no move (it would have played on from a game that moved on, and
    its save would have wiped the other's moves)."""
    first = app_page(chromium)
    new_game(first, site, "Ana")
    legal_button(first).wait_for()
    play_moves(first, 2)
    legal_button(first).wait_for()
    second = first.context.new_page()
    second.set_default_timeout(60_000)
    second.goto(first.url)
    legal_button(second).wait_for()
    expect(second.get_by_test_id("log").locator("li")).to_have_text(
        first.get_by_test_id("log").locator("li").all_inner_texts()
    )
    expect(first.get_by_test_id("connection")).to_have_attribute("data-state", "elsewhere")
    expect(first.get_by_test_id("error-banner")).to_contain_text("another tab")
    expect(legal_button(first)).to_have_count(0)
    play_moves(second, 3)
    legal_button(second).wait_for()
    played = second.get_by_test_id("log").locator("li").all_inner_texts()
    first.reload()  # the first tab takes the game back, as the second left it
    expect(first.get_by_test_id("log").locator("li")).to_have_text(played)
    legal_button(first).wait_for()
    expect(second.get_by_test_id("connection")).to_have_attribute("data-state", "elsewhere")


def test_a_real_tables_score_is_kept_offline_in_french(chromium: Browser, site: str):
    page = app_page(chromium)
    page.goto(f"{site}/scorekeeper")  # a first visit there: the static host has the page there too
    expect(page.get_by_test_id("sk-here")).to_be_checked()
    page.goto(site)
    page.get_by_test_id("lang-toggle").click()
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.context.set_offline(True)
    page.get_by_test_id("scorekeeper-link").click()
    here = page.get_by_test_id("sk-here")
    expect(here).to_be_checked()
    expect(here).to_be_disabled()  # no server: this phone keeps the score
    intro = page.locator("form.card > p.hint").first
    expect(intro).not_to_contain_text("lien", use_inner_text=True)  # nobody else follows the standings
    page.get_by_test_id("sk-player-0").fill("Ana")
    page.get_by_test_id("sk-player-1").fill("Bob")
    page.get_by_test_id("settings").fill("pot=9")  # the house's settings, as `421 table --set` takes
    page.get_by_test_id("create-table").click()
    page.wait_for_url("**/t/local-*")
    expect(page.get_by_test_id("rules-named")).to_have_text("Règle : classic-11 (pot=9)")
    accessible(page)
    expect(page.get_by_test_id("connection")).to_have_text("sur ce téléphone")  # not « en direct »
    expect(page.locator(".tag-you")).to_have_count(0)  # the score of the whole table: nobody is « vous »
    report = page.get_by_test_id("report-input")
    report.fill("421")
    page.get_by_test_id("report-button").click()
    expect(page.get_by_test_id("log")).to_contain_text("Ana finit sur 421")
    report.fill("7")
    page.get_by_test_id("report-button").click()
    expect(page.get_by_test_id("error-banner")).to_contain_text("6")  # a die shows 1 to 6, in French
    page.reload()
    expect(page.get_by_test_id("log")).to_contain_text("Ana finit sur 421")
    page.get_by_test_id("undo-button").click()
    expect(page.get_by_test_id("log")).not_to_contain_text("Ana finit sur 421")
    # the real table, scripted: Ana throws 421 every turn, Bob a nénette, to the end of the game
    prompt = page.locator(".report-prompt")
    page.evaluate(COUNT_DRAWN)
    for _ in range(40):
        if page.get_by_test_id("status").get_attribute("data-status") == "over":
            break
        drawn = page.evaluate("window.drawn")
        report.fill("421" if prompt.inner_text().startswith("Ana") else "221")
        page.get_by_test_id("report-button").click()
        page.wait_for_function(f"window.drawn > {drawn}")  # the report's view is drawn
    expect(page.get_by_test_id("status")).to_have_attribute("data-status", "over")
    expect(page.get_by_test_id("outcome")).to_contain_text("Bob")
    # over: nobody leads and there is nothing left to report, but a wrong last entry can be undone
    expect(page.get_by_test_id("leader")).to_have_count(0)
    expect(report).to_be_hidden()
    expect(page.get_by_test_id("report-button")).to_be_hidden()
    expect(page.get_by_test_id("undo-button")).to_be_visible()
    # the game's record, as `421 table --record` writes it: for `421 replay` and `421 analyse`
    with page.expect_download() as download:
        page.get_by_test_id("record-link").click()
    record = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert record["players"] == ["Ana", "Bob"] and record["rules"]["options"]["pot"] == 9


def test_421_serve_offers_the_games_on_the_phone_beside_its_tables(chromium: Browser, tmp_path: Path):
    port = free_port()
    proc = start_server(tmp_path, port)
    try:
        base = f"http://127.0.0.1:{port}"
        page = app_page(chromium)
        page.goto(base)
        expect(page.locator("#create-form")).to_be_visible()  # the online tables
        page.get_by_test_id("here-link").click()
        new_game(page, base, "Zoé", ONE_MANCHE)
        legal_button(page).wait_for()
        play_moves(page, 400)
        expect(page.get_by_test_id("status")).to_have_attribute("data-status", "over")
        expect(page.get_by_test_id("analysis-link")).to_have_count(0)  # the solvers are the server's
        page.goto(base)
        expect(page.get_by_test_id("kept")).to_contain_text("Zoé")
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_new_version_is_offered_and_taken_only_when_the_player_asks(chromium: Browser, tmp_path: Path):
    folder = tmp_path / "site"
    served = static_site(folder)
    base = next(served)
    try:
        page = app_page(chromium)
        page.goto(base)
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        new_game(page, base, "Ana")  # the page's own navigation: the worker controls it after a reload
        page.reload()
        legal_button(page).wait_for()
        assert page.evaluate("navigator.serviceWorker.controller !== null")
        log = page.get_by_test_id("log").locator("li").all_inner_texts()
        page.evaluate("window.stillHere = true")
        worker = folder / "sw.js"
        worker.write_text(
            worker.read_text().replace('const VERSION = "', 'const VERSION = "0', 1)
        )  # a new version
        page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.update())")
        expect(page.get_by_test_id("update-banner")).to_contain_text("A new version of py421 is ready.")
        assert page.evaluate("window.stillHere === true")  # offered, not forced: the game goes on
        expect(page.get_by_test_id("log").locator("li")).to_have_text(log)
        page.get_by_test_id("update-take").click()
        page.wait_for_function("window.stillHere === undefined")  # reloaded, by the new version
        expect(page.get_by_test_id("update-banner")).to_be_hidden()
        expect(page.get_by_test_id("log").locator("li")).to_have_text(log)
    finally:
        served.close()


# Python's memory once started, as the page's worker keeps it between visits (worker.js, STARTED).
STARTED = """async () => { const kept = await caches.open("py421.started /");
    return Promise.all((await kept.keys()).map(async (r) => [new URL(r.url).pathname,
        (await (await kept.match(r)).arrayBuffer()).byteLength])); }"""
SPOIL = """async () => { const kept = await caches.open("py421.started /");
    for (const r of await kept.keys()) await kept.put(r, new Response(new Uint8Array(64))); }"""


DROP_DATABASE = """() => new Promise((done) => { const asked = indexedDB.deleteDatabase("py421");
    asked.onsuccess = asked.onerror = () => done(); })"""
# Whether the page's database holds the table ``code`` as kept at ``since`` (ms) or later; it is
# looked at without being made (an upgrade is refused), so the page still makes it its own way.
KEPT_SINCE = """([code, since]) => new Promise((done) => { const asked = indexedDB.open("py421");
    asked.onupgradeneeded = () => asked.transaction.abort();
    asked.onerror = () => done(false);
    asked.onsuccess = () => { const db = asked.result;
        if (!db.objectStoreNames.contains("tables")) { db.close(); done(false); return; }
        const got = db.transaction("tables").objectStore("tables").get(code);
        got.onsuccess = () => { db.close(); done(Boolean(got.result) && got.result.kept_at >= since); };
        got.onerror = () => { db.close(); done(false); }; }; })"""


def step_then_kept(page: Page, step: Callable[[], None]) -> None:
    """``step``, then wait until the page has kept the table in its database: the page shows a step
    first and keeps it just after, so a reload at once could come before the write."""
    code = page.url.rsplit("/", 1)[-1]
    since = page.evaluate("Date.now()")
    step()
    page.wait_for_function(KEPT_SINCE, arg=[code, since])


def test_python_started_once_is_kept_and_a_spoilt_copy_starts_afresh(chromium: Browser, site: str):
    """The second visit restores Python's memory instead of starting it again; a copy that cannot be
    restored (another Pyodide, a write cut short) is replaced, and the game plays all the same."""
    page = app_page(chromium)
    page.goto(f"{site}/here")
    expect(page.get_by_test_id("create-here")).to_be_visible()  # Python started, and kept
    kept = page.evaluate(STARTED)
    assert len(kept) == 1 and kept[0][0].startswith("/started/") and kept[0][1] > 1_000_000, kept
    page.evaluate(SPOIL)
    page.context.set_offline(True)
    new_game(page, site, "Ana", ONE_MANCHE)
    step_then_kept(page, legal_button(page).click)  # Ana's move, answered by Python started afresh
    expect(page.get_by_test_id("log")).to_contain_text("Ana")
    again = page.evaluate(STARTED)  # the spoilt copy replaced by a good one
    assert [k for k, _ in again] == [kept[0][0]] and again[0][1] > 1_000_000, again
    page.reload()
    expect(page.get_by_test_id("log")).to_contain_text("Ana")  # restored from that copy, offline
    # the browser drops the page's database (storage cleared): the next step opens it again
    page.evaluate(DROP_DATABASE)
    lines = page.get_by_test_id("log").locator("li").count()
    step_then_kept(page, legal_button(page).click)
    expect(page.get_by_test_id("log").locator("li")).not_to_have_count(lines)
    page.reload()
    expect(page.get_by_test_id("log")).to_contain_text("Ana")  # kept in the database made again
    play_moves(page, 400)
    expect(page.get_by_test_id("status")).to_have_attribute("data-status", "over")


def test_a_site_served_from_a_folder_of_its_host_plays_there_offline(chromium: Browser, tmp_path: Path):
    """421 site --base /py421/, as a project's GitHub Pages serve it: every address stays in the folder."""
    served = static_site(tmp_path / "host", "/py421/")
    base = next(served)
    try:
        page = app_page(chromium)
        page.goto(f"{base}/")
        expect(page.get_by_test_id("no-server")).to_be_visible()
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        page.get_by_test_id("nav-scorekeeper").click()
        page.wait_for_url(f"{base}/scorekeeper")
        expect(page.get_by_test_id("sk-here")).to_be_checked()
        page.context.set_offline(True)
        new_game(page, base, "Ana")
        assert page.url.startswith(f"{base}/t/local-")
        legal_button(page).click()
        expect(page.get_by_test_id("log")).to_contain_text("Ana")
        page.reload()  # offline: the service worker answers for an address the host never had
        expect(page.get_by_test_id("log")).to_contain_text("Ana")
        page.goto(f"{base}/here")
        kept = page.get_by_test_id("kept").locator("a")
        expect(kept).to_have_attribute("href", re.compile("^/py421/t/local-"))
    finally:
        served.close()


def test_a_record_too_big_says_its_size_as_a_french_reader_writes_it(chromium: Browser, site: str):
    """« Ce fichier fait 5.1 Mo » read as a decimal point in a French sentence: it says « 5,1 Mo »."""
    page = app_page(chromium)
    page.goto(f"{site}/here")
    page.get_by_test_id("lang-toggle").click()
    expect(page.get_by_test_id("create-here")).to_have_text("Commencer la partie")  # in French, Python up
    page.get_by_test_id("replay-file").set_input_files(
        {"name": "partie.json", "mimeType": "application/json", "buffer": b" " * 5_100_000}
    )
    expect(page.get_by_test_id("error-banner")).to_contain_text("Ce fichier fait 5,1 Mo")
