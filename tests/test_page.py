"""The browser page's modules: typed by the server's protocol, every one served and fetched at once."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from py421.core.engine import new_game
from py421.core.rules import Ruleset
from py421.core.state import Outcome
from py421.i18n import CATALOGS, LANGS, guillemets, page_module, tr
from py421.server.protocol import typed_dicts, typescript
from py421.server.table import TableError, clean_name
from py421.text import outcome_text

from .server_helpers import serving

STATIC = Path(__file__).parents[1] / "src" / "py421" / "server" / "static"


def test_what_the_server_sends_is_typed_from_the_protocol():
    """server/outbound.py: the messages the server builds, as TypedDicts mypy checks them against."""
    committed = (STATIC.parent / "outbound.py").read_text(encoding="utf-8")
    assert committed == typed_dicts(), "write it again: .venv/bin/python scripts/page_types.py"


def test_the_page_types_are_written_from_the_protocol():
    committed = (STATIC / "protocol.d.ts").read_text(encoding="utf-8")
    assert committed == typescript(), "write it again: .venv/bin/python scripts/page_types.py"


def test_the_page_words_are_written_from_the_catalog():
    committed = (STATIC / "messages.js").read_text(encoding="utf-8")
    assert committed == page_module(), "write it again: .venv/bin/python scripts/page_types.py"


def test_the_page_never_breaks_a_quotation_away_from_its_guillemets():
    """The page wraps lines: « le bon » is held together by no-break spaces, in both languages."""
    words = page_module()
    assert "«\u00a0le bon\u00a0»" in words
    assert "« " not in words and " »" not in words


def test_every_module_is_served_as_javascript_and_preloaded(tmp_path: Path):
    modules = {path.name for path in STATIC.glob("*.js")}
    with serving(f"sqlite:///{tmp_path}/page.sqlite3") as client:
        page = client.get("/").text
        # addresses in the app's folder, which index.html's <base> names (/ from the server)
        assert '<base href="/">' in page
        assert re.findall(r'<script type="module" src="static/([\w.]+)">', page) == ["app.js"]
        preloaded = re.findall(r'<link rel="modulepreload" href="static/([\w.]+)">', page)
        # else imports load one level at a time; the worker and the service worker are not the page's
        assert sorted(preloaded) == sorted(modules - {"app.js", "worker.js", "sw.js"})
        for name in sorted(modules):
            answer = client.get(f"/static/{name}")
            assert answer.status_code == 200, name
            # A browser runs no module served under another type.
            assert "javascript" in answer.headers["content-type"], name
            imported = re.findall(r'^import\b[^;]*?from "\./([\w.]+)";', answer.text, flags=re.MULTILINE)
            assert set(imported) <= modules, name


def run_with_i18n(script: str) -> subprocess.CompletedProcess[str]:
    """``script`` run by node as a module, the page's ``i18n.js`` imported as ``i18n`` and French
    the browser's language; skipped where node is not installed."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    module = json.dumps((STATIC / "i18n.js").as_uri())
    prelude = f"globalThis.navigator = {{ language: 'fr-FR' }}; const i18n = await import({module});"
    return subprocess.run(
        [node, "--input-type=module", "-e", prelude + script], capture_output=True, text=True, check=True
    )


NAMES_TRIED = [
    "Ann",
    "  Zoé  Dupont ",
    "Ａｎｎ",
    "Bob❤️",
    "Ｈｅｕｒｉｓｔｉｃ 1",
    "heuristique 2",
    "\u3164",
    "\u2800",
    "A\uffa0",
    "\u0301Bob",
    "Bob\u202e",
    "Bo\x00b",
    "x" * 24,
    "x" * 25,
    "\U0001f469\u200d\U0001f9b0 Ana",
    "\U0001f3f3\ufe0f\u200d\U0001f308",
    "A\u200dna",
    "\u200d\U0001f308",
    "bot:heuristic",
    "Bot: Ana",
]


def test_the_page_refuses_the_names_the_server_refuses() -> None:
    """The page checks a name before sending it; it must agree with the server's rule."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    stand_in = "globalThis.navigator = { language: 'en' }; globalThis.document = { baseURI: 'http://x/' };"
    module = json.dumps((STATIC / "api.js").as_uri())
    names = json.dumps(NAMES_TRIED)
    script = f"const api = await import({module}); console.log(JSON.stringify({names}.map(api.nameProblem)));"
    said = subprocess.run(
        [node, "--input-type=module", "-e", stand_in + script], capture_output=True, text=True, check=True
    )
    page = [problem == "" for problem in json.loads(said.stdout)]
    server = []
    for name in NAMES_TRIED:
        try:
            clean_name(name)
        except TableError:
            server.append(False)
        else:
            server.append(True)
    assert page == server, list(zip(NAMES_TRIED, page, server, strict=True))
    assert server.count(True) == 7  # each kind of refusal is tried, and names it takes


@pytest.mark.parametrize("name", ["\U0001f469\u200d\U0001f9b0 Ana", "\U0001f3f3\ufe0f\u200d\U0001f308 Léa"])
def test_emoji_joined_by_a_zero_width_joiner_make_a_name(name: str) -> None:
    """« 👩‍🦰 » is one emoji of three characters, the middle one invisible: a name may hold it."""
    assert clean_name(name) == name


@pytest.mark.parametrize(
    "name", ["A\u200dna", "Ana\u200d", "\u200d\U0001f308", "\U0001f469\u200d\u200d\U0001f9b0"]
)
def test_a_zero_width_joiner_that_joins_no_emoji_is_refused(name: str) -> None:
    """Between letters it would only hide itself (« A‍na » reads as « Ana »)."""
    with pytest.raises(TableError, match="U\\+200D"):
        clean_name(name)


@pytest.mark.parametrize("name", ["bot:heuristic", "BOT:random", "Bot: Ana", "ｂｏｔ:optimal"])
def test_a_person_cannot_be_named_as_a_bot_is_asked_for(name: str) -> None:
    """A seat's list reads « bot:heuristic » as a bot: a person so named would become one."""
    with pytest.raises(TableError) as refused:
        clean_name(name)
    assert refused.value.error == "bad_name" and "bot:" in str(refused.value)


def test_the_page_elides_de_before_a_name_that_starts_with_a_vowel_as_the_terminal_does() -> None:
    script = (
        "const { t } = i18n;"
        "console.log(JSON.stringify(['Ana', 'Éloïse', 'Bob'].map((who) => t('turn.report', { who }))));"
    )
    said = run_with_i18n(script)
    assert json.loads(said.stdout) == [
        tr("fr", "page.turn.report", who=who) for who in ("Ana", "Éloïse", "Bob")
    ]
    assert json.loads(said.stdout)[0] == "en attente du coup d'Ana"


def test_the_page_elides_before_a_rulesets_name_and_counts_as_the_terminal_does() -> None:
    cases: list[tuple[str, dict[str, object]]] = [
        ("analysis.head", {"rules": "engranjeu-21", "players": "Ana"}),
        ("analysis.head", {"rules": "classic-11", "players": "Ana"}),
        *(("tokens", dict[str, object](n=n)) for n in (0, 1, 1.5, 2)),
    ]
    script = (
        "const { t } = i18n;"
        f"console.log(JSON.stringify({json.dumps(cases)}.map(([key, fields]) => t(key, fields))));"
    )
    said = run_with_i18n(script)
    keys = {"tokens": "page.tokens"}
    assert json.loads(said.stdout) == [tr("fr", keys.get(key, key), **fields) for key, fields in cases]
    assert json.loads(said.stdout)[:3] == [
        "Analyse d'engranjeu-21 : Ana",
        "Analyse de classic-11 : Ana",
        "0 jeton",
    ]


def test_the_page_s_result_lines_start_with_a_capital_in_both_languages_but_names_stay_as_typed() -> None:
    """The terminal prints the outcomes after a colon; the page's result card starts its lines with them."""
    script = (
        "const said = () => [['outcome.shared', 'ana, bob'], ['outcome.winners', 'bob'],"
        "  ['outcome.loser', 'ana']].map(([key, who]) => i18n.sentence(key, { who }));"
        "const fr = said(); i18n.switchLang();"
        "console.log(JSON.stringify({ fr, en: said() }));"
    )
    said = run_with_i18n(script)
    assert json.loads(said.stdout) == {
        "fr": [
            "Perte partagée : ana, bob ont perdu autant de manches",
            "Gagnants, dans l'ordre : bob",
            "ana perd la partie",  # a name is shown as it was typed
        ],
        "en": [
            "Shared loss: ana, bob each lost as many manches",
            "Winners, in order: bob",
            "ana loses the game",
        ],
    }


def test_the_page_keeps_the_bots_names_for_the_bots_in_every_language():
    """The page refuses the names the server refuses: a bot's, in any language it is named in."""
    api = (STATIC / "api.js").read_text(encoding="utf-8")
    found = re.search(r"const BOT_NAME = /\^\(([^)]*)\) \[0-9\]\+\$\|\^bot:/iu;", api)
    assert found, "api.js: BOT_NAME"
    from py421.players.registry import bots_names

    words = {names[lang].removesuffix(" {n}").lower() for lang in CATALOGS for names in bots_names()}
    assert set(found[1].split("|")) == words


def test_the_page_words_a_games_end_as_the_terminal_does_in_both_languages() -> None:
    """Winners and manches are listed with the catalog's « ; » (spaced in French), as in the terminal."""
    players = ("Ana", "Bob", "Éloïse", "Zoé")
    state = dataclasses.replace(
        new_game(Ruleset.preset("classic-11").with_options(manches=3), players),
        outcome=Outcome(losers=(0,), kind="grand_perdant", winners=((1, 2), (3,)), manche_losers=(0, 3, 0)),
    )
    view = {"losers": [0], "kind": "grand_perdant", "winners": [[1, 2], [3]], "manche_losers": [0, 3, 0]}
    script = (
        f"const names = {json.dumps(players)}; const out = {json.dumps(view)};"
        "const said = () => i18n.outcomeSentences(out, (seat) => names[seat]);"
        "const fr = said(); i18n.switchLang();"
        "console.log(JSON.stringify({ fr, en: said() }));"
    )
    said = json.loads(run_with_i18n(script).stdout)
    for lang in LANGS:
        terminal = [guillemets(line) for line in outcome_text(state, lang).splitlines()]
        assert [line[0].lower() + line[1:] for line in said[lang]] == [
            line[0].lower() + line[1:] for line in terminal
        ]
    assert "Bob et Éloïse ; Zoé" in said["fr"][1]


def test_dates_are_written_as_the_browser_writes_them_in_the_pages_language() -> None:
    """A British reader's English page wrote 2 December as 12/2/2026; a date follows the browser's
    own locale where it speaks the page's language, and the page's language elsewhere."""
    script = (
        "globalThis.navigator.languages = ['fr-CA', 'en-GB', 'not a tag'];"
        "const day = new Date(Date.UTC(2026, 11, 2, 12));"
        "const written = () => [i18n.locale(), day.toLocaleDateString(i18n.locale(), { timeZone: 'UTC' })];"
        "const fr = written(); i18n.switchLang(); const en = written();"
        "globalThis.navigator.languages = ['de-DE']; const other = written();"
        "console.log(JSON.stringify({ fr, en, other }));"
    )
    said = json.loads(run_with_i18n(script).stdout)
    assert said == {
        "fr": ["fr-CA", "2026-12-02"],
        "en": ["en-GB", "02/12/2026"],
        "other": ["en", "12/2/2026"],
    }
