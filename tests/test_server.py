"""The table server's protocol: whole games over WebSockets, and every refusal."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import json
import threading
import time
import unicodedata
from collections.abc import Iterator, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError

from py421 import history
from py421.cli import main
from py421.core.engine import MAX_NAME
from py421.core.record import Record
from py421.server import protocol as p
from py421.server.app import create_app
from py421.server.database import SeatRow, Store, TableRow, make_engine, now
from py421.server.hub import Hub
from py421.server.limits import AddressBook, Limits
from py421.server.protocol import CreateTable
from py421.server.table import Connection, TableError
from py421.server.verify import verify

from .server_helpers import create, database_urls, play_to_the_end, played_out, serving, start
from .server_process import free_port

URLS = database_urls(Path("/tmp"))


@pytest.fixture(params=URLS)
def client(request, tmp_path):
    url = (
        request.param.replace("/tmp/", f"{tmp_path}/")
        if request.param.startswith("sqlite")
        else request.param
    )
    with serving(url) as c:
        yield c


def receive_table(ws: Any) -> dict[str, Any]:
    message: dict[str, Any] = ws.receive_json()
    assert message["type"] == "table", message
    return message


def error_of(ws: Any, message: Any) -> dict[str, Any]:
    ws.send_text(message if isinstance(message, str) else json.dumps(message))
    while True:
        answer: dict[str, Any] = ws.receive_json()
        if answer["type"] == "error":
            return answer


def your_first_turn(client: TestClient, ws: Any, code: str, token: str) -> dict[str, Any]:
    """Start the table, then read the table's messages up to the first one asking this seat to act."""
    receive_table(ws)
    start(client, code, token)
    while True:
        message = receive_table(ws)
        if message["view"]["your_turn"]:
            return message


def test_a_whole_game_against_bots_then_its_dice_verify(client, tmp_path):
    created = create(client, seats=["human", "bot:heuristic", "bot:random"])
    code, token = created["code"], created["token"]
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        first = receive_table(ws)
        assert first["table"]["status"] == "waiting" and first["view"] is None
        start(client, code, token)
        final = play_to_the_end(ws)
        assert code in client.app.state.hub.tables
    # over and nobody watching: the table leaves the server's memory, not the server
    assert code not in client.app.state.hub.tables
    table = final["table"]
    assert table["status"] == "over"
    assert table["seed"] is not None and table["seed_hash"] == created["seed_hash"]
    assert client.get(f"/api/tables/{code}").json()["seed"] == table["seed"]
    record = client.get(f"/api/tables/{code}/record").json()
    assert record["meta"]["seed_hash"] == created["seed_hash"]
    assert verify(Record.from_dict(record)).problems == []
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    result = CliRunner().invoke(main, ["verify", str(path)])
    assert result.exit_code == 0 and "fair: the seed matches its published hash" in result.output
    assert f"seed hash: {created['seed_hash']}" in result.output
    # one die changed: the record no longer matches its seed
    steps = record["steps"]
    i = next(i for i, s in enumerate(steps) if "dice" in s and len(s["dice"]) == 3 and s["dice"] != "666")
    record_dice = steps[i]["dice"]
    steps[i]["dice"] = "666"
    record.pop("final", None)
    path.write_text(json.dumps(record))
    tampered = CliRunner().invoke(main, ["verify", str(path)])
    assert tampered.exit_code != 0
    assert f"seed hash: {created['seed_hash']}" in tampered.output
    # named even though the moves after it no longer fit the changed dice
    assert f"step {i + 1}: the record says 666, the seed gives {record_dice}" in tampered.output
    # the game is in the history, the leaderboard and the player's page
    games = client.get("/api/games").json()
    assert games[0]["players"][0] == "Alice" and games[0]["source"] == "online"
    board = client.get("/api/leaderboard", params={"rules": "lyonnaise-21"}).json()
    assert {row["name"] for row in board} >= {"Alice", "Heuristic 1", "Random 1"}
    assert client.get("/api/players/Alice").json()["games"] == 1


def test_two_people_join_and_each_acts_only_from_their_own_seat(client):
    created = create(client, seats=["human", "human"])
    code, alice = created["code"], created["token"]
    joined = client.post(f"/api/tables/{code}/join", json={"name": "Bob"}).json()
    assert joined["seat"] == 1
    bob = joined["token"]
    with (
        client.websocket_connect(f"/ws/{code}?token={alice}") as a,
        client.websocket_connect(f"/ws/{code}?token={bob}") as b,
    ):
        receive_table(a)
        receive_table(a)  # Bob connected
        receive_table(b)
        start(client, code, alice)
        while True:  # server dice until someone must decide
            ma, mb = receive_table(a), receive_table(b)
            if ma["view"]["waiting_for"] and ma["view"]["waiting_for"]["step"] == "decision":
                break
        mover = ma["view"]["waiting_for"]["seat"]
        waiting, acting = (b, a) if mover == 0 else (a, b)
        view = (ma if mover == 0 else mb)["view"]
        assert view["your_turn"] and view["legal_actions"]
        other = (mb if mover == 0 else ma)["view"]
        assert not other["your_turn"] and other["legal_actions"] == []
        refused = error_of(
            waiting, {"type": "act", "version": ma["version"], "action": view["legal_actions"][0]["text"]}
        )
        assert refused["error"] == "not_your_turn"
        stale = error_of(acting, {"type": "act", "version": ma["version"] - 1, "action": "stop"})
        assert stale["error"] == "stale" and f"the table is at {ma['version']}" in stale["message"]


@pytest.mark.parametrize(
    ("message", "error", "says"),
    [
        ("not json", "malformed", "JSON object"),
        ('["act"]', "malformed", 'with a \\"type\\"'),
        ('{"type": "dance"}', "unknown_type", "accepted: act, report, undo, back, ping"),
        ('{"type": "act", "version": "x", "action": "stop"}', "malformed", "version"),
        ('{"type": "act", "version": 0, "action": 42}', "malformed", "action"),
        # a field of the wrong type is refused, not read as what it might mean
        ('{"type": "act", "version": true, "action": "stop"}', "malformed", "version"),
        ('{"type": "act", "version": 0, "action": {"kind": "throw", "keep": ["3"]}}', "malformed", "keep"),
        (
            '{"type": "act", "version": 0, "action": '
            '{"kind": "stop", "keep": [], "bon": false, "stake": null, "text": "keep 6"}}',
            "malformed",
            "is not the move its fields make",
        ),
        ('{"type": "act", "version": 0, "action": "' + "x" * 5000 + '"}', "too_large", "4096 bytes"),
    ],
)
def test_bad_messages_are_refused_and_change_nothing(client, message, error, says):
    created = create(client, seats=["human", "bot:heuristic"])
    code, token = created["code"], created["token"]
    start(client, code, token)
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        before = receive_table(ws)
        version = before["version"]
        if error == "malformed" and "version" in message and '"x"' not in message:
            message = message.replace('"version": 0', f'"version": {version}')
        answer = error_of(ws, message)
        assert answer["error"] == error
        assert says.replace("\\", "") in answer["message"]
    assert client.get(f"/api/tables/{code}").json()["version"] == version


def test_spectators_watch_and_cannot_act(client):
    created = create(client)
    code, token = created["code"], created["token"]
    with client.websocket_connect(f"/ws/{code}") as ws:
        assert receive_table(ws)["view"] is None
        assert error_of(ws, {"type": "act", "version": 0, "action": "stop"})["error"] == "spectator"
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        receive_table(ws)
        assert error_of(ws, {"type": "act", "version": 0, "action": "stop"})["error"] == "not_started"


def test_an_illegal_action_says_what_is_accepted(client):
    created = create(client, seats=["human", "bot:heuristic"])
    code, token = created["code"], created["token"]
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        message = your_first_turn(client, ws, code, token)
        answer = error_of(ws, {"type": "act", "version": message["version"], "action": "keep 9"})
        assert answer["error"] == "illegal" and "a die shows 1 to 6" in answer["message"]
        answer = error_of(ws, {"type": "act", "version": message["version"], "action": "dance"})
        assert answer["error"] == "illegal" and "accepted" in answer["message"]


def test_an_illegal_action_is_refused_in_the_connection_s_language(client):
    created = create(client, seats=["human", "bot:heuristic"])
    code, token = created["code"], created["token"]
    with client.websocket_connect(f"/ws/{code}?token={token}&lang=fr") as ws:
        message = your_first_turn(client, ws, code, token)
        answer = error_of(ws, {"type": "act", "version": message["version"], "action": "keep 9"})
        assert answer["lang"] == "fr" and "un dé va de 1 à 6, pas 9" in answer["message"]
        dice = message["view"]["round"]["dice"]  # all three dice showing: that is stopping
        answer = error_of(ws, {"type": "act", "version": message["version"], "action": f"keep {dice}"})
        assert answer["lang"] == "fr"
        assert (
            f"ne peut pas garder {dice} : garder les trois dés, c'est s'arrêter ; possible :"
            in answer["message"]
        )


def test_a_bot_is_named_in_the_connection_s_language(client):
    """A table's bots were named in English for everyone: « Heuristic 1 » on the French page, in its
    seats, its players and every line of its log."""
    final = played_out(client, seats=["human", "bot:heuristic"])
    code = final["table"]["code"]
    with (
        client.websocket_connect(f"/ws/{code}?lang=fr") as french,
        client.websocket_connect(f"/ws/{code}") as english,
    ):
        seen, shown = receive_table(french), receive_table(english)
    assert [s["name"] for s in seen["table"]["seats"]] == ["Alice", "Heuristique 1"]
    assert [p["name"] for p in seen["view"]["players"]] == ["Alice", "Heuristique 1"]
    assert any("Heuristique 1" in line for line in seen["log"])
    assert not any("Heuristic 1" in line for line in seen["log"])
    assert [s["name"] for s in shown["table"]["seats"]] == ["Alice", "Heuristic 1"]
    assert any("Heuristic 1" in line for line in shown["log"])


@pytest.fixture
def still_clock(monkeypatch):
    """The caps' clock stopped: a budget spent stays spent however long the messages take to pass. So
    the pause after each refusal (a second, tested with a real server in test_server_attacks) would
    only make these tests wait: it is none here."""
    monkeypatch.setattr("py421.server.limits.time", SimpleNamespace(monotonic=lambda: 1000.0))
    monkeypatch.setattr("py421.server.routes.RATE_PAUSE_SECONDS", 0.0)


def test_too_many_messages_are_rate_limited(client, still_clock):
    code = create(client)["code"]
    with client.websocket_connect(f"/ws/{code}") as ws:
        receive_table(ws)
        for _ in range(40):
            ws.send_json({"type": "ping"})
        answers = [ws.receive_json() for _ in range(40)]
    assert sum(a.get("error") == "rate_limited" for a in answers) == 20
    assert sum(a["type"] == "pong" for a in answers) == 20


def test_binary_and_oversized_frames_spend_the_message_budget_too(client, still_clock):
    """Frames refused as binary or too large were answered one by one, never counted: a client
    sending them in a loop kept a core busy and slowed every other table."""
    code = create(client)["code"]
    with client.websocket_connect(f"/ws/{code}") as ws:
        receive_table(ws)
        for i in range(40):
            if i % 2:
                ws.send_bytes(b"x")
            else:
                ws.send_text(" " * 5000)
        answers = [ws.receive_json()["error"] for _ in range(40)]
    assert answers.count("rate_limited") == 20
    assert sorted(set(answers[:20])) == ["malformed", "too_large"]


def test_a_spent_message_budget_is_not_refilled_by_closing_and_opening_a_connection(client, still_clock):
    code = create(client)["code"]
    answers = []
    for _ in range(4):  # a flooder that reconnects after each burst
        with client.websocket_connect(f"/ws/{code}") as ws:
            receive_table(ws)
            for _ in range(20):
                ws.send_json({"type": "ping"})
            answers += [ws.receive_json() for _ in range(20)]
    # the budget is 20 at once and 10 a second: four bursts in no time are 20 pongs, not 80
    assert sum(a["type"] == "pong" for a in answers) == 20
    assert answers[-1].get("error") == "rate_limited"


def test_an_address_s_message_budget_is_forgotten_once_it_is_whole_again():
    book = AddressBook(Limits(messages_per_second=10))
    assert book.open("a")
    assert sum(book.message("a", now=0.0) for _ in range(25)) == 20
    book.close("a")
    book.forget_idle(now=0.5)  # 5 of the 20 back: still remembered
    assert book.open("a") and not book.message("a", now=0.05)
    book.close("a")
    book.forget_idle(now=2.5)
    assert "a" not in book.buckets


@pytest.mark.timeout(60)  # a connection dropped unanswered would wait for ever
def test_a_message_the_server_fails_on_is_answered_and_the_connection_goes_on(client):
    code = create(client)["code"]
    hub = client.app.state.hub

    async def broken(*args: Any) -> None:
        raise RuntimeError("a fault of the server's")

    hub.act = broken
    with client.websocket_connect(f"/ws/{code}") as ws:
        receive_table(ws)
        ws.send_json({"type": "act", "version": 0, "action": "stop"})
        answer = ws.receive_json()
        assert answer["type"] == "error" and answer["error"] == "internal", answer
        ws.send_json({"type": "ping"})
        assert ws.receive_json()["type"] == "pong"


def test_a_request_while_the_database_is_away_is_told_so_with_503_and_logged_in_one_line(client, caplog):
    hub = client.app.state.hub

    async def away(*args: Any) -> None:
        raise OperationalError("INSERT …", {}, Exception("connection refused"))

    hub.create = away
    refused = client.post("/api/tables", json={"name": "Ann"})
    assert refused.status_code == 503
    assert refused.json()["detail"] == {
        "error": "internal",
        "message": "the database does not answer; try again in a moment",
        "lang": "en",
    }
    assert "Traceback" not in caplog.text and "the database does not answer" in caplog.text


def test_names_that_look_alike_or_show_nothing_are_refused(client):
    """A name in full-width letters, or holding an invisible variation selector or joiner, read as
    a player already at the table; a name of blank fillers showed nothing at all. Names are kept
    in their NFKC form (full-width letters as letters), compared whatever their case."""
    created = create(client, seats=["human", "human", "human"], name="Ann")
    code = created["code"]
    for lookalike in ("Ａｎｎ", "Ann\ufe0f", "A\u034fnn", "Ann\U000e0100", "ＡＮＮ"):
        response = client.post(f"/api/tables/{code}/join", json={"name": lookalike})
        assert response.status_code in (400, 409), (lookalike, response.text)
        assert response.json()["detail"]["error"] in ("name_taken", "bad_name"), (lookalike, response.text)
    bot = client.post(f"/api/tables/{code}/join", json={"name": "Ｈｅｕｒｉｓｔｉｃ 1"})
    assert bot.json()["detail"]["error"] == "bad_name", bot.text
    for blank in ("\u3164", "\u2800", "\u115f", "\uffa0", "\u0301", "\u0301Bob"):
        response = client.post("/api/tables", json={"name": blank})
        assert response.status_code == 400 and response.json()["detail"]["error"] == "bad_name", (
            blank,
            response.text,
        )
    joined = client.post(f"/api/tables/{code}/join", json={"name": "Ｂｏｂ"})
    assert joined.status_code == 200, joined.text
    cyrillic = client.post(f"/api/tables/{code}/join", json={"name": "\u0412\u043e\u0412"})  # « ВоВ »
    assert cyrillic.status_code == 409 and cyrillic.json()["detail"]["error"] == "name_taken", cyrillic.text
    names = [seat["name"] for seat in client.get(f"/api/tables/{code}").json()["seats"]]
    assert "Bob" in names  # one spelling of a name in the history and the leaderboard


def test_http_refusals_are_worded_in_the_language_the_request_asks(client):
    """The page asks in its language (Accept-Language): a refusal names what was wrong in it."""

    def detail(language: str | None) -> dict[str, Any]:
        headers = {"Accept-Language": language} if language else {}
        body = {"rules": "classic-11", "settings": ["nope=1"], "name": "A"}
        response = client.post("/api/tables", json=body, headers=headers)
        assert response.status_code == 400, response.text
        found: dict[str, Any] = response.json()["detail"]
        return found

    english = detail(None)
    assert english["error"] == "bad_rules" and english["lang"] == "en" and "nope" in english["message"]
    for asked in ("fr", "fr-FR,fr;q=0.9,en;q=0.8", "de, fr;q=0.5"):
        french = detail(asked)
        assert french["lang"] == "fr" and "nope" in french["message"], (asked, french)
        assert french["message"] != english["message"]
    for asked in ("en-GB", "fr;q=0.2, en", "de", "*", "fr;q=nonsense", "x" * 500):
        assert detail(asked) == english, asked


def test_http_refusals_say_what_is_accepted(client):
    def refused(path: str, body: Any, status: int, error: str, says: str, token: str | None = None) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = client.post(path, json=body, headers=headers)
        assert response.status_code == status, response.text
        detail = response.json()["detail"]
        assert detail["error"] == error and says in detail["message"], detail

    refused("/api/tables", {"rules": "nope", "name": "A"}, 400, "bad_rules", "nope")
    refused(
        "/api/tables", {"seats": ["human", "bot:genius"], "name": "A"}, 400, "bad_seats", "accepted: human"
    )
    refused(
        "/api/tables",
        {"seats": ["human"], "name": "A"},
        400,
        "bad_seats",
        "played by 2 or more players, not 1",
    )
    refused("/api/tables", {"name": ""}, 400, "bad_name", "1 to 24 characters")
    refused("/api/tables", {"name": "A", "timeout": 3}, 400, "malformed", "10 to 3600")
    refused("/api/tables", [1, 2], 400, "malformed", "JSON object")
    created = create(client, seats=["human", "human"])
    code, token = created["code"], created["token"]
    refused(f"/api/tables/{code}/join", {"name": "Alice"}, 409, "name_taken", "choose another name")
    refused(f"/api/tables/{code}/start", {}, 403, "not_creator", "only the table's creator")
    refused(f"/api/tables/{code}/rematch", {}, 409, "not_over", "once the game is over", token)
    assert client.get(f"/api/tables/{code}/record").json()["detail"]["error"] == "not_over"
    client.post(f"/api/tables/{code}/join", json={"name": "Bob"})
    refused(f"/api/tables/{code}/join", {"name": "Cy"}, 409, "full", "every seat")
    assert client.get("/api/tables/ZZZZZ").status_code == 404


def test_a_table_to_play_asked_without_a_name_says_the_name_is_required(client):
    """It once said « a name is 1 to 24 characters, not 0 », of a name nobody typed."""
    for path in ("/api/tables", "/api/tables/estimate"):
        response = client.post(path, json={"seats": ["human", "bot:heuristic"]})
        assert response.status_code == 400, response.text
        assert response.json()["detail"] == {
            "error": "malformed",
            "message": "name: the creator's name is required to make a table to play",
            "lang": "en",
        }
    assert "required" in (CreateTable.model_fields["name"].description or "")  # the docs say so
    scorekeeper = {"mode": "scorekeeper", "players": ["Ann", "Bob"]}  # the names are the players'
    assert client.post("/api/tables", json=scorekeeper).status_code == 200


def test_a_name_online_is_held_to_the_same_most_as_in_the_terminal(client):
    """A server's tables took names of up to 24 characters, the terminal 40: one most now, the
    core's, which the page checks too before sending."""
    most = MAX_NAME
    refused = client.post("/api/tables", json={"name": "B" * (most + 1)})
    assert refused.status_code == 400
    assert refused.json()["detail"] == {
        "error": "bad_name",
        "message": f"a name is 1 to {most} characters, not {most + 1}",
        "lang": "en",
    }
    assert client.post("/api/tables", json={"name": "B" * most}).status_code == 200
    page = (Path(p.__file__).parent / "static" / "api.js").read_text(encoding="utf-8")
    assert f"export const NAME_MAX = {most};" in page


@pytest.mark.parametrize("limit", ["-1", "0", "201"])
def test_a_limit_of_finished_games_out_of_range_is_refused_saying_what_is_accepted(client, limit):
    """``?limit=-1`` was taken as 1 without a word, and 500 as 200."""
    response = client.get("/api/games", params={"limit": limit})
    assert response.status_code == 400, response.text
    detail = response.json()["detail"]
    assert detail["error"] == "malformed"
    accepted = "greater than or equal to 1" if int(limit) < 1 else "less than or equal to 200"
    assert detail["message"] == f"query.limit: Input should be {accepted}"
    assert client.get("/api/games", params={"limit": "200"}).status_code == 200
    query = client.get("/openapi.json").json()["paths"]["/api/games"]["get"]["parameters"][0]
    assert (query["name"], query["schema"]["minimum"], query["schema"]["maximum"]) == ("limit", 1, 200)


def test_listing_the_finished_games_does_not_read_their_records(client):
    """``/api/games`` read every column of the games it lists, their records too (a long game's is a
    megabyte): a dozen clients listing 200 games took the server from 326 MB to 1.3 GB. The list
    reads what it shows."""
    import tracemalloc

    rows = history.GameRows(
        {
            "finished_at": "2026-01-01T00:00:00+00:00",
            "rules": "classic-11",
            "players": json.dumps(["Ann", "Bea"]),
            "losers": json.dumps(["Bea"]),
            "kind": "lost",
            "source": "table",
            "record": json.dumps({"padding": "x" * 1_000_000}),
        },
        [
            {"seat": seat, "name": name, "bot": None, "lost": seat == 1, "rounds_lost": 0}
            | {"throws_421": 0, "nenettes": 0, "tokens_taken": 0}
            for seat, name in enumerate(["Ann", "Bea"])
        ],
    )
    with client.app.state.hub.history.engine.begin() as conn:
        for _ in range(20):
            history.insert_game(conn, rows)
    tracemalloc.start()
    try:
        listed = client.get("/api/games", params={"limit": 20})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert listed.status_code == 200
    assert [g["players"] for g in listed.json()] == [["Ann", "Bea"]] * 20
    assert peak < 5_000_000  # twenty records would be 20 MB


def test_closing_the_tab_keeps_the_seat_and_a_rematch_keeps_everyone(client):
    created = create(client, seats=["human", "bot:heuristic"])
    code, token = created["code"], created["token"]
    start(client, code, token)
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        while not receive_table(ws)["view"]["your_turn"]:
            pass
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:  # back again
        message = receive_table(ws)
        assert message["view"]["seat"] == 0 and message["view"]["your_turn"]
        final = play_to_the_end(ws, first=message)
        new = client.post(f"/api/tables/{code}/rematch", headers={"Authorization": f"Bearer {token}"}).json()
        assert receive_table(ws)["table"]["rematch"] == new["code"]
    assert final["table"]["status"] == "over"
    table = client.get(f"/api/tables/{new['code']}").json()
    assert table["status"] == "waiting" and table["seats"][0]["name"] == "Alice"
    start(client, new["code"], token)  # the same token holds the same seat
    assert client.get(f"/api/tables/{new['code']}").json()["status"] == "playing"


def test_a_player_who_times_out_is_replaced_by_a_bot_until_they_act(client):
    created = create(client, seats=["human", "bot:heuristic"])
    code, token = created["code"], created["token"]
    hub = client.app.state.hub
    hub.tables[code].timeout = 0.2  # seconds: the API accepts 10 and up
    start(client, code, token)
    with client.websocket_connect(f"/ws/{code}") as watcher:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            message = receive_table(watcher)
            if message["table"]["seats"][0]["away"]:
                break
        assert message["table"]["seats"][0]["away"]
        steps = message["version"]
        while receive_table(watcher)["version"] <= steps:
            pass  # the bot plays for Alice
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:  # she comes back
        assert not receive_table(ws)["table"]["seats"][0]["away"]


def test_the_scorekeeper_page_reports_real_dice_and_undoes(client):
    response = client.post(
        "/api/tables", json={"mode": "scorekeeper", "rules": "classic-11", "players": ["Ann", "Bob"]}
    )
    created = response.json()
    code, token = created["code"], created["token"]
    with (
        client.websocket_connect(f"/ws/{code}?token={token}") as ws,
        client.websocket_connect(f"/ws/{code}") as watcher,
    ):
        message = receive_table(ws)
        receive_table(watcher)  # a spectator coming sends nothing to the others
        assert message["table"]["status"] == "playing"
        lines = message["log"]
        assert message["log_start"] == 0
        version = message["version"]
        ws.send_json({"type": "report", "version": version, "turn": "421"})
        after = receive_table(ws)
        # only the new lines come, numbered after those already sent
        assert after["version"] == version + 1 and after["log_start"] == len(lines)
        assert "Ann" in " ".join(after["log"])
        assert (
            error_of(watcher, {"type": "report", "version": version + 1, "turn": "221"})["error"]
            == "spectator"
        )
        bad = error_of(ws, {"type": "report", "version": version + 1, "turn": "7"})
        assert bad["error"] == "illegal" and "a die shows 1 to 6" in bad["message"]
        # worded for the page, which wraps lines: « … » held together by no-break spaces
        no_bon = error_of(ws, {"type": "report", "version": version + 1, "turn": "555 bon"})
        assert no_bon["message"].startswith("«\u00a0le bon\u00a0» "), no_bon
        ws.send_json({"type": "undo", "version": version + 1})
        undone = receive_table(ws)
        # the log is sent again from its start, without the turn taken back
        assert undone["version"] == version and undone["log_start"] == 0 and undone["log"] == lines


def test_an_undo_costs_the_step_it_takes_back_not_the_whole_game(client, monkeypatch):
    """Each undo of a scorekeeper's game walked every state of the game and described its whole log
    again, on the event loop: a long game's undos, ten a second, would hold every table up. Only the
    step taken back changes: no line of the log before it is described again."""
    import py421.server.table as table_module
    from py421.text import describe

    described: list[int] = []

    def counted(*args: Any) -> str:
        described.append(1)
        return describe(*args)

    monkeypatch.setattr(table_module, "describe", counted)
    created = client.post(
        "/api/tables", json={"mode": "scorekeeper", "rules": "classic-11", "players": ["Ann", "Bob"]}
    ).json()
    with client.websocket_connect(f"/ws/{created['code']}?token={created['token']}") as ws:
        version = receive_table(ws)["version"]
        for turn in ("421", "221", "642", "653"):
            ws.send_json({"type": "report", "version": version, "turn": turn})
            version = receive_table(ws)["version"]
        before = len(described)
        ws.send_json({"type": "undo", "version": version})
        undone = receive_table(ws)
    assert undone["version"] == version - 1
    assert len(described) == before  # the lines kept were described once, when they were new
    assert not any("653" in line for line in undone["log"])


def test_a_watcher_of_a_long_finished_game_costs_its_last_lines_not_the_game(client, monkeypatch):
    """A WebSocket to a finished game of 125,340 steps replayed it and described its whole log on the
    event loop: 4.4 to 5 s a connection, every other client frozen meanwhile. The game is read in a
    reader's thread, and only the log's last lines, those sent, are described."""
    import threading

    import py421.server.table as table_module
    from py421.text import describe

    code, _ = kept_score(client, manches=5)
    hub = client.app.state.hub
    assert client.portal is not None
    events = len(client.portal.call(hub.shown, code).events)
    assert events > 60
    hub.tables.pop(code, None)  # as after a restart, or once its last watcher left
    loop_thread = client.portal.call(threading.get_ident)
    replayed: list[int] = []
    real_rebuilt = type(hub)._rebuilt

    def rebuilt(self: Any, code: str) -> Any:
        replayed.append(threading.get_ident())
        return real_rebuilt(self, code)

    described: list[int] = []

    def counted(*args: Any) -> str:
        described.append(1)
        return describe(*args)

    monkeypatch.setattr(type(hub), "_rebuilt", rebuilt)
    monkeypatch.setattr(table_module, "describe", counted)
    with client.websocket_connect(f"/ws/{code}") as watcher:
        shown = receive_table(watcher)
    assert shown["table"]["status"] == "over" and len(shown["log"]) == table_module.LOG_LINES
    assert shown["log_start"] == events - table_module.LOG_LINES
    assert replayed and loop_thread not in replayed
    assert len(described) == table_module.LOG_LINES  # not the whole game's


def test_a_language_nobody_watched_in_for_a_while_is_described_from_the_lines_sent(tmp_path, monkeypatch):
    """The log's lines in a language are described from where they were last sent: a watcher in
    French who left, then came back many steps later, had every step since described again."""

    players = ["Ann", "Bob"]
    body = {"mode": "scorekeeper", "rules": "classic-11", "players": players, "settings": ["manches=9"]}
    limits = Limits(messages_per_second=1000)  # reported as fast as a test reports
    with serving(f"sqlite:///{tmp_path}/s.db", limits=limits) as client:
        created = client.post("/api/tables", json=body).json()
        watched_back(client, created, monkeypatch)


def watched_back(client: Any, created: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    import py421.server.table as table_module
    from py421.text import describe

    code = created["code"]
    with client.websocket_connect(f"/ws/{code}?token={created['token']}") as ws:
        version = receive_table(ws)["version"]
        with client.websocket_connect(f"/ws/{code}?lang=fr") as watcher:
            receive_table(watcher)
        for n in range(80):  # in English only, meanwhile
            ws.send_json({"type": "report", "version": version, "turn": "221" if n % 2 else "421"})
            message = receive_table(ws)
            version = message["version"]
            if message["table"]["status"] != "playing":
                break
        assert len(client.app.state.hub.tables[code].events) > table_module.LOG_LINES + 20
        described: list[int] = []

        def counted(*args: Any) -> str:
            described.append(1)
            return describe(*args)

        monkeypatch.setattr(table_module, "describe", counted)
        with client.websocket_connect(f"/ws/{code}?lang=fr") as watcher:
            back = receive_table(watcher)
    assert len(back["log"]) == table_module.LOG_LINES
    assert len(described) == table_module.LOG_LINES


def test_the_scorekeeper_page_takes_the_stake_as_the_terminal_does_and_says_what_it_takes(client):
    """At the « main chaude » prompt the page's entry takes e and v, as `421 table` does, and a
    wrong one lists those choices, not every action a player may take."""
    response = client.post(
        "/api/tables", json={"mode": "scorekeeper", "rules": "engranjeu-21", "players": ["Ana", "Bob"]}
    )
    created = response.json()
    with client.websocket_connect(f"/ws/{created['code']}?token={created['token']}") as ws:
        version = receive_table(ws)["version"]
        for turn in ("654", "654", "653", "653"):  # a tie, then a tie-break that ties again
            ws.send_json({"type": "report", "version": version, "turn": turn})
            version = receive_table(ws)["version"]
        for wrong in ("x", "throw", "keep 42"):
            refused = error_of(ws, {"type": "report", "version": version, "turn": wrong})
            assert refused["error"] == "illegal", refused
            assert "e or est" in refused["message"] and "v or vient" in refused["message"], refused
            assert "keep DICE" not in refused["message"], refused
        ws.send_json({"type": "report", "version": version, "turn": "e"})
        chosen = receive_table(ws)
        assert chosen["version"] == version + 1
        assert "Bob plays « pour ce qui est »" in " ".join(chosen["log"]).replace("\u00a0", " ")


def websocket_scope(code: str, token: str) -> dict[str, Any]:
    """The ASGI scope of a player's WebSocket to table ``code``, for the app driven by hand."""
    return {
        "type": "websocket",
        "path": f"/ws/{code}",
        "raw_path": f"/ws/{code}".encode(),
        "query_string": f"token={token}".encode(),
        "headers": [],
        "scheme": "ws",
        "server": ("testserver", 80),
        "client": ("testclient", 50000),
        "root_path": "",
        "subprotocols": [],
    }


@pytest.mark.asyncio
async def test_a_connection_that_breaks_while_the_server_sends_ends_quietly(tmp_path):
    """A phone that drops mid-send: the seat is freed and nothing is raised (nor logged)."""
    app = create_app(f"sqlite:///{tmp_path}/s.db", bot_delay=0)
    table, token = await app.state.hub.create(
        CreateTable(seats=["human", "bot:heuristic"], name="Ann", timeout=0)
    )
    incoming: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    incoming.put_nowait({"type": "websocket.connect"})
    sent: list[str] = []

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message["type"])
        if message["type"] == "websocket.send":
            raise OSError("connection reset by peer")

    scope = websocket_scope(table.code, token)
    await asyncio.wait_for(app(scope, incoming.get, send), 10)
    assert sent[:2] == ["websocket.accept", "websocket.send"]
    assert table.connections == [] and table.seats[0].connected == 0
    await app.state.hub.close()


@pytest.mark.asyncio
async def test_a_connection_cancelled_while_its_table_is_busy_still_frees_its_seat(tmp_path):
    """A session ended by cancellation (a server stopping, or a client's task cut short) while the
    table's lock is held by a step being written: once the step is done, the seat is free. Left
    behind, the connection showed the player connected for good and kept the table in this
    process: another process asking for it to serve the player there was refused."""
    app = create_app(f"sqlite:///{tmp_path}/s.db", bot_delay=0)
    table, token = await app.state.hub.create(
        CreateTable(seats=["human", "bot:heuristic"], name="Ann", timeout=0)
    )
    incoming: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    incoming.put_nowait({"type": "websocket.connect"})
    sent = asyncio.Event()

    async def send(message: MutableMapping[str, Any]) -> None:
        if message["type"] == "websocket.send":
            sent.set()

    scope = websocket_scope(table.code, token)
    session = asyncio.create_task(app(scope, incoming.get, send))
    await asyncio.wait_for(sent.wait(), 10)
    assert table.seats[0].connected == 1
    async with table.lock:  # a step being written
        session.cancel()
        for _ in range(10):
            await asyncio.sleep(0)  # the session ends: it waits for the lock to let its seat go
        session.cancel()  # and is cancelled again (as a stopping server, or anyio, does)
        for _ in range(10):
            await asyncio.sleep(0)
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.wait_for(session, 10)
    for _ in range(10):  # the step is done: whatever was waiting for the lock goes on
        await asyncio.sleep(0)
    assert table.connections == [] and table.seats[0].connected == 0
    await app.state.hub.close()


def test_a_table_that_cannot_be_resumed_does_not_keep_the_server_down(tmp_path, caplog):
    url = f"sqlite:///{tmp_path}/s.db"
    with TestClient(create_app(url)) as client:
        good = create(client, seats=["human", "bot:heuristic"])
        start(client, good["code"], good["token"])
    engine = make_engine(url)
    # a table the engine refuses: one player at a two-player game
    seats = [SeatRow(0, "human", None, "Ann", None)]
    rules = {"name": "classic-11"}
    Store(engine).create(
        TableRow("BROKE", now(), "play", rules, "playing", "s", "h", 0, 0, None, None, seats, [])
    )
    engine.dispose()
    with TestClient(create_app(url)) as client:
        assert client.get(f"/api/tables/{good['code']}").json()["status"] == "playing"
        resumed(client)
    assert "table BROKE is left as it is" in caplog.text


def resumed(client: TestClient) -> None:
    """Wait until the server, just started, has read its unfinished tables again (/healthz says)."""
    deadline = time.monotonic() + 60
    while client.get("/healthz").json()["resuming"]:
        assert time.monotonic() < deadline, "the unfinished tables were never all read again"
        time.sleep(0.02)


# -- one client cannot slow another ----------------------------------------------------------


@pytest.mark.asyncio
async def test_a_connection_that_does_not_read_is_dropped_and_holds_up_nobody():
    blocked = asyncio.Event()

    async def never(message: str) -> None:
        await blocked.wait()  # a client that never takes what it is sent

    got: list[str] = []

    async def reader(message: str) -> None:
        got.append(message)

    slow = Connection(never, None, "en", queue=4, send_seconds=0.2)
    fast = Connection(reader, None, "en", queue=4)
    writers = [asyncio.create_task(c.write()) for c in (slow, fast)]
    for i in range(3):
        slow.offer(f'{{"n": {i}}}')
        fast.offer(f'{{"n": {i}}}')
        await asyncio.sleep(0)
    await asyncio.wait_for(slow.dropped.wait(), 5)  # the first send never came back in time
    assert slow.why == "slow_client" and not fast.dropped.is_set()
    assert [json.loads(m)["n"] for m in got] == [0, 1, 2]
    flooded = Connection(never, None, "en", queue=2, send_seconds=60)
    for i in range(4):  # nothing is taken: the queue fills, and the connection goes
        flooded.offer(f'{{"n": {i}}}')
    assert flooded.dropped.is_set() and flooded.why == "slow_client"
    for w in writers:
        w.cancel()


@pytest.mark.asyncio
async def test_a_message_leaves_at_once_when_nothing_waits_before_it_and_messages_keep_their_order():
    got: list[int] = []
    reading = asyncio.Event()
    reading.set()

    async def client(message: str) -> None:
        await reading.wait()
        got.append(json.loads(message)["n"])

    conn = Connection(client, None, "en", queue=8)
    writer = asyncio.create_task(conn.write())
    await asyncio.sleep(0)  # the connection's task waits for messages
    conn.offer('{"n": 0}')
    assert got == [0]  # sent before offer returned, not at the event loop's next turn
    reading.clear()  # the client stops reading for a moment: the next send has to wait
    for n in (1, 2, 3):
        conn.offer(f'{{"n": {n}}}')
    await asyncio.sleep(0.05)
    assert got == [0]
    reading.set()
    for _ in range(100):
        await asyncio.sleep(0.01)
        if len(got) == 4:
            break
    assert got == [0, 1, 2, 3] and not conn.dropped.is_set()
    conn.offer('{"n": 4}')
    assert got == [0, 1, 2, 3, 4]  # nothing waits any more: at once again
    writer.cancel()


# -- check, commit, then change memory -----------------------------------------------------


def test_a_scorekeeper_s_rematch_keeps_the_score_of_the_same_people_at_once(client):
    """A scorekeeper's rematch waited to be started, as a table of players online does: started, every
    seat of the people at the real table (none of them holds a token) was given to a bot."""
    code, token = kept_score(client, manches=1)
    made = client.post(f"/api/tables/{code}/rematch", headers={"Authorization": f"Bearer {token}"})
    assert made.status_code == 200, made.text
    rematch = client.get(f"/api/tables/{made.json()['code']}").json()
    assert rematch["mode"] == "scorekeeper" and rematch["status"] == "playing"
    assert [(s["kind"], s["name"]) for s in rematch["seats"]] == [("human", "Ann"), ("human", "Bob")]
    with client.websocket_connect(f"/ws/{rematch['code']}?token={token}") as ws:
        version = receive_table(ws)["version"]
        ws.send_json({"type": "report", "version": version, "turn": "421"})  # the same phone reports
        assert receive_table(ws)["version"] > version


def test_two_rematches_asked_at_once_make_one_table(client, monkeypatch):
    """Asked twice at the same moment (a double tap, two tabs), the rematch was made twice: both asks
    found none yet while the first was being written, and the second table was left waiting."""
    code, token = kept_score(client, manches=1)
    hub = client.app.state.hub
    rematch, store_new = hub._rematch, hub._store_new
    asked = 0
    both = asyncio.Event()

    async def remade(*args: Any) -> Any:
        nonlocal asked
        asked += 1
        if asked == 2:
            both.set()
        return await rematch(*args)

    async def stored(table: Any) -> None:
        await both.wait()  # the first rematch is written only once the second is being made
        await store_new(table)

    monkeypatch.setattr(hub, "_rematch", remade)
    monkeypatch.setattr(hub, "_store_new", stored)

    async def twice() -> list[str]:
        return list(await asyncio.gather(hub.rematch(code, token), hub.rematch(code, token)))

    assert client.portal is not None
    first, second = client.portal.call(twice)
    assert first == second
    assert client.get(f"/api/tables/{code}").json()["rematch"] == first


def kept_score(client: TestClient, manches: int) -> tuple[str, str]:
    """A scorekeeper's table of Ann and Bob, its game of ``manches`` reported to the end: its code
    and the scorekeeper's token."""
    body = {
        "mode": "scorekeeper",
        "rules": "classic-11",
        "settings": [f"manches={manches}"],
        "players": ["Ann", "Bob"],
    }
    created = client.post("/api/tables", json=body).json()
    with client.websocket_connect(f"/ws/{created['code']}?token={created['token']}") as ws:
        finish_scorekeeper(ws, receive_table(ws)["version"])
    return created["code"], created["token"]


def finish_scorekeeper(ws: Any, start_version: int) -> dict[str, Any]:
    """Report turns (whoever leads throws nénette and loses) until the game is over."""
    version = start_version
    for n in range(400):
        ws.send_json({"type": "report", "version": version, "turn": "221" if n % 2 == 0 else "421"})
        while True:
            message = ws.receive_json()
            if message["type"] == "table":
                break
            assert message["error"] == "rate_limited", message
            time.sleep(1)
            ws.send_json({"type": "report", "version": version, "turn": "221" if n % 2 == 0 else "421"})
        version = message["version"]
        if message["table"]["status"] == "over":
            over: dict[str, Any] = message
            return over
    raise AssertionError("the game did not end")


def test_a_failed_last_write_leaves_the_game_playing_and_a_retry_records_it_once(client, monkeypatch):
    """The last step, the status and the history row are one transaction: all or nothing."""
    hub = client.app.state.hub
    body = {"mode": "scorekeeper", "rules": "classic-11", "players": ["Ann", "Bob"]}
    created = client.post("/api/tables", json=body).json()
    code, token = created["code"], created["token"]
    real_insert, real_end = history.insert_game, hub.store.end_game_statement
    fail = {"on": True}

    def crash(*args, **kwargs):  # SQLite: the history row is written, then the server "dies"
        if fail["on"]:
            real_insert(*args, **kwargs)
            raise OperationalError("INSERT", {}, Exception("the process died here"))
        return real_insert(*args, **kwargs)

    def lost(*args, **kwargs):  # PostgreSQL: the one statement of the game's end fails in the database
        if fail["on"]:
            return b"SELECT 1 / 0", []
        return real_end(*args, **kwargs)

    monkeypatch.setattr("py421.server.database.insert_game", crash)  # as the server's writes call it
    monkeypatch.setattr(hub.store, "end_game_statement", lost)
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        first = receive_table(ws)
        with pytest.raises(AssertionError, match="the move could not be saved; send it again"):
            finish_scorekeeper(ws, first["version"])
    assert hub.history.games(50) == []  # nothing of the game reached the history
    row = hub.store.load(code)
    assert row.status == "playing" and row.game_id is None
    table = hub.tables[code]
    assert table.status == "playing" and table.version == len(row.steps)  # memory follows the database
    fail["on"] = False
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        again = receive_table(ws)
        final = finish_scorekeeper(ws, again["version"])
    assert final["table"]["status"] == "over"
    assert len(hub.history.games(50)) == 1
    assert hub.store.load(code).status == "over"


def test_a_write_whose_answer_is_lost_after_it_committed_leaves_the_table_as_the_database_has_it(
    client, monkeypatch
):
    """The connection drops after the database committed a move: the move was refused to the player,
    but the table must follow the database, not refuse every move after it as a duplicate."""
    hub = client.app.state.hub
    body = {"mode": "scorekeeper", "rules": "classic-11", "players": ["Ann", "Bob"]}
    created = client.post("/api/tables", json=body).json()
    code, token = created["code"], created["token"]
    add_steps = hub.writer.add_steps
    lose = {"next": True}

    async def committed_then_lost(code, first, steps, finish=None, written=None):
        number = await add_steps(code, first, steps, finish)
        if lose.pop("next", False):
            raise OperationalError("the answer", {}, Exception("the connection was lost"))
        if written is not None:
            written(number)
        return number

    monkeypatch.setattr(hub.writer, "add_steps", committed_then_lost)
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        first = receive_table(ws)
        refused = error_of(ws, {"type": "report", "version": first["version"], "turn": "421"})
        assert refused["error"] == "internal"
        assert len(hub.store.load(code).steps) == first["version"] + 1  # committed all the same
        # the player (or the page, on the table it is sent) goes on from the database's version
        ws.send_json({"type": "report", "version": first["version"] + 1, "turn": "221"})
        while (after := ws.receive_json())["type"] == "table" and after["version"] == first["version"] + 1:
            pass  # the table read again, with the move that was committed
    assert after["type"] == "table", after
    assert after["version"] == first["version"] + 2 == len(hub.store.load(code).steps)


def test_a_real_tables_record_says_its_dice_were_reported_not_drawn_from_a_seed(client):
    """A scorekeeper's record claimed the table's seeded dice, so ``421 verify`` found every typed
    throw « not what the seed gives »."""
    body = {"mode": "scorekeeper", "rules": "classic-11", "players": ["Ann", "Bob"]}
    created = client.post("/api/tables", json=body).json()
    code, token = created["code"], created["token"]
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        finish_scorekeeper(ws, receive_table(ws)["version"])
    record = client.get(f"/api/tables/{code}/record").json()
    assert record["meta"]["dice"] == "reported" and "seed" not in record["meta"], record["meta"]
    verdict = verify(Record.from_dict(record))
    assert verdict.throws == 0 and len(verdict.problems) == 1
    assert "typed at a real table" in verdict.problems[0] and "nothing to check" in verdict.problems[0]


def test_undo_after_the_end_takes_the_game_out_of_the_history(client):
    body = {"mode": "scorekeeper", "rules": "classic-11", "players": ["Ann", "Bob"]}
    created = client.post("/api/tables", json=body).json()
    code, token = created["code"], created["token"]
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        final = finish_scorekeeper(ws, receive_table(ws)["version"])
        assert len(client.get("/api/games").json()) == 1
        ws.send_json({"type": "undo", "version": final["version"]})
        undone = receive_table(ws)
        assert undone["table"]["status"] == "playing"
        assert client.get("/api/games").json() == []
        again = finish_scorekeeper(ws, undone["version"])
    assert again["table"]["status"] == "over"
    assert len(client.get("/api/games").json()) == 1  # recorded once
    board = client.get("/api/leaderboard", params={"rules": "classic-11"}).json()
    assert {row["name"]: row["games"] for row in board} == {"Ann": 1, "Bob": 1}


PLAYER_COUNTS = (
    "name",
    "games",
    "losses",
    "loss_rate",
    "rounds_lost",
    "throws_421",
    "nenettes",
    "tokens_taken",
)


def test_a_player_whose_name_a_new_game_would_refuse_is_still_found(client, monkeypatch):
    """A name the history holds from before a rule on new names (« Bоb » with a Cyrillic о, « A »
    under five accents) could not be looked up: /api/players held it to the rules of a new name,
    and answered bad_name. It is held to those of a name read back, as games read back are."""
    import py421.core.engine as engine

    odd = ["B\u043eb", "A" + "\u0301" * 5]
    with monkeypatch.context() as before:  # as made before those rules
        before.setattr(engine, "_check_looks", lambda name: None)
        before.setattr(engine, "MOST_MARKS", 9)
        body = {"mode": "scorekeeper", "rules": "classic-11", "players": odd}
        created = client.post("/api/tables", json=body).json()
        with client.websocket_connect(f"/ws/{created['code']}?token={created['token']}") as ws:
            finish_scorekeeper(ws, receive_table(ws)["version"])
    for name in odd:
        found = client.get(f"/api/players/{name}")
        assert found.status_code == 200 and found.json()["name"] == unicodedata.normalize("NFKC", name)
    assert client.get("/api/players/" + "x" * 101).json()["detail"]["error"] == "bad_name"


def test_a_flood_of_leaderboard_requests_shares_one_read_and_holds_no_other_request(client, monkeypatch):
    """Reading the standings takes seconds on a large history: twelve clients asking for the
    leaderboard held every thread the server reads the history on, and the list of games or a game's
    record waited over a minute. The requests that ask meanwhile share one read, on a thread of its
    own: here the read is held until the list of games is answered (a wait on the threads shared
    would never end: the 60 s only tell that apart)."""
    hub = client.app.state.hub
    release = threading.Event()
    reads: list[dict[str, Any]] = []
    stats = hub.history.stats

    def held(**asked: Any) -> Any:
        reads.append(asked)
        release.wait(120)
        return stats(**asked)

    monkeypatch.setattr(hub.history, "stats", held)
    with ThreadPoolExecutor(13) as pool:
        boards = [pool.submit(client.get, "/api/leaderboard") for _ in range(12)]
        try:
            for _ in range(6000):  # until the first read is under way
                if reads:
                    break
                time.sleep(0.01)
            games = pool.submit(client.get, "/api/games")
            assert games.result(timeout=60).status_code == 200
            assert len(reads) == 1  # the others wait for it, none on a thread of their own
        finally:
            release.set()
        answers = [board.result() for board in boards]
    assert {answer.status_code for answer in answers} == {200}
    assert all(answer.json() == answers[0].json() for answer in answers)


def test_a_players_page_is_their_leaderboard_row_with_every_count_documented(client):
    """The leaderboard's rows lost the counts the history keeps (rounds lost, 421s, nénettes, tokens
    taken) that docs/online.md lists, and a player's row had no loss rate."""
    body = {"mode": "scorekeeper", "rules": "classic-11", "players": ["Ann", "Bob"]}
    created = client.post("/api/tables", json=body).json()
    with client.websocket_connect(f"/ws/{created['code']}?token={created['token']}") as ws:
        finish_scorekeeper(ws, receive_table(ws)["version"])  # whoever leads throws nénette and loses
    board = client.get("/api/leaderboard", params={"rules": "classic-11"}).json()
    assert [tuple(row) for row in board] == [PLAYER_COUNTS] * 2
    winner, loser = board  # the lowest loss rate first
    assert (winner["loss_rate"], loser["loss_rate"]) == (0.0, 1.0)
    assert loser["rounds_lost"] >= 1 and winner["throws_421"] >= 1 and loser["nenettes"] >= 1
    for row in board:  # their only games: the same row, of every preset or of this one
        assert client.get(f"/api/players/{row['name']}").json() == row
        assert client.get(f"/api/players/{row['name']}", params={"rules": "classic-11"}).json() == row
    wide = "".join(chr(ord(c) + 0xFEE0) for c in "Ann")  # asked as typed in full-width letters
    assert client.get(f"/api/players/{wide}").json()["name"] == "Ann"
    unplayed = client.get("/api/players/Ann", params={"rules": "tim"})  # a preset Ann never played
    assert unplayed.status_code == 404 and unplayed.json()["detail"]["error"] == "no_player"
    unknown = client.get("/api/players/Ann", params={"rules": "classic"})
    assert unknown.status_code == 400 and "classic-11" in unknown.json()["detail"]["message"]
    schema = client.get("/openapi.json").json()["components"]["schemas"]["PlayerStats"]
    assert tuple(schema["properties"]) == PLAYER_COUNTS
    assert set(schema["required"]) == set(PLAYER_COUNTS)
    online = (Path(__file__).parents[1] / "docs" / "online.md").read_text(encoding="utf-8")
    documented = next(line for line in online.splitlines() if line.startswith("| `GET /api/leaderboard"))
    assert ", ".join(f'"{key}"' for key in PLAYER_COUNTS) in documented


def test_the_leaderboard_and_a_games_record_are_read_off_the_event_loop_and_bounded(client, monkeypatch):
    """With 30,003 players the leaderboard was 3.6 MB, read and checked on the event loop (165 to 289 ms
    a request, the home page asks it at every visit); a game's record was read there too. Both are
    read in a thread, and the leaderboard holds the players of the most games."""
    import threading

    import py421.server.routes as routes
    from py421.history import History

    for players in (["Ann", "Bob"], ["Ann", "Cid"], ["Ann", "Bob"]):
        body = {"mode": "scorekeeper", "rules": "classic-11", "players": players}
        created = client.post("/api/tables", json=body).json()
        with client.websocket_connect(f"/ws/{created['code']}?token={created['token']}") as ws:
            finish_scorekeeper(ws, receive_table(ws)["version"])
    assert client.portal is not None
    loop_thread = client.portal.call(threading.get_ident)
    read_in: list[int] = []
    for method in ("stats", "record"):
        real = getattr(History, method)

        def noted(self: Any, *args: Any, _real: Any = real, **kwargs: Any) -> Any:
            read_in.append(threading.get_ident())
            return _real(self, *args, **kwargs)

        monkeypatch.setattr(History, method, noted)
    monkeypatch.setattr(routes, "LEADERBOARD_MOST", 2)
    board = client.get("/api/leaderboard", params={"rules": "classic-11"}).json()
    assert sorted(row["name"] for row in board) == ["Ann", "Bob"]  # Cid, of one game, left out
    game = client.get("/api/games", params={"limit": 1}).json()[0]["id"]
    assert client.get(f"/api/games/{game}/record").status_code == 200
    assert len(read_in) == 2 and loop_thread not in read_in


def test_a_game_past_the_steps_a_table_may_take_is_ended(tmp_path):
    """Tables of 999 tokens and 99 manches, 19 bots each, a player's page open: 81 steps a second from
    one address, the server's memory growing 1.5 KB a step, about 9 GB a day, with no end. A game
    that reaches --max-steps is ended, abandoned, as an idle one is."""
    limits = Limits(steps_per_table=40, messages_per_second=1000)
    with serving(f"sqlite:///{tmp_path}/s.db", limits=limits) as client:
        body = {
            "mode": "scorekeeper",
            "rules": "classic-11",
            "players": ["Ann", "Bob"],
            "settings": ["manches=9"],
        }
        created = client.post("/api/tables", json=body).json()
        code = created["code"]
        with client.websocket_connect(f"/ws/{code}?token={created['token']}") as ws:
            message = receive_table(ws)
            for n in range(200):
                if message["table"]["status"] != "playing":
                    break
                ws.send_json(
                    {"type": "report", "version": message["version"], "turn": "221" if n % 2 else "421"}
                )
                message = ws.receive_json()
                while message["type"] != "table":
                    message = ws.receive_json()
                if message["version"] >= 40 and message["table"]["status"] == "playing":
                    message = receive_table(ws)  # the end follows the step that reached the cap
            assert message["table"]["status"] == "abandoned", message["table"]
            assert 40 <= message["version"] < 45
            refused = error_of(ws, {"type": "report", "version": message["version"], "turn": "421"})
            assert refused["error"] == "over"
        games = client.get("/api/games").json()
        assert games and games[0]["kind"] == "abandoned"


def keep_house(client: Any, minutes: float) -> list[str]:
    """The server's housekeeping, as it would run ``minutes`` from now."""
    hub = client.app.state.hub
    ended: list[str] = client.portal.call(hub.keep_house, time.time() + minutes * 60)
    return ended


def test_the_tables_are_looked_over_again_and_again_a_failure_aside(tmp_path, monkeypatch):
    """Housekeeping runs every ``housekeeping_seconds`` (and once before the first request, which
    test_server_attacks.py checks across a restart): a round whose database is away is said and the
    next one comes."""
    from py421.server.hub import Hub

    rounds: list[float] = []

    async def keep_house(self: Hub, now: float | None = None) -> list[str]:
        rounds.append(time.monotonic())
        if len(rounds) == 2:
            raise OperationalError("SELECT", {}, Exception("the database is away"))
        return []

    monkeypatch.setattr(Hub, "keep_house", keep_house)
    monkeypatch.setattr(Hub, "housekeeping_seconds", 0.01)
    with serving(f"sqlite:///{tmp_path}/tables.db") as client:
        assert client.get("/api/presets").status_code == 200
        deadline = time.monotonic() + 60
        while len(rounds) < 4 and time.monotonic() < deadline:
            time.sleep(0.01)
    assert len(rounds) >= 4  # on after the round that failed


def test_a_waiting_table_nobody_starts_expires(client):
    created = create(client, seats=["human", "human"])
    code = created["code"]
    with client.websocket_connect(f"/ws/{code}") as ws:
        receive_table(ws)
        assert keep_house(client, 0) == []  # not yet
        assert keep_house(client, 31) == [code]
        message = ws.receive_json()
        assert (
            message["type"] == "error" and "nobody started this table within 30 minutes" in message["message"]
        )
    assert client.get(f"/api/tables/{code}").status_code == 404


def test_a_connection_that_waited_while_its_table_was_closed_does_not_bring_it_back(client):
    """A WebSocket that had found its table, then waited for it while the housekeeping removed it,
    put the table back in memory, where it stayed, counted against --max-tables for good."""
    hub = client.app.state.hub
    code = create(client, seats=["human", "human"])["code"]
    table = hub.tables[code]  # found, as the WebSocket's handler finds it before connecting
    assert keep_house(client, 31) == [code]

    async def send(text: str) -> None:
        pass

    with pytest.raises(TableError) as refused:
        client.portal.call(hub.connect, table, Connection(send, None, "en"))
    assert refused.value.error == "no_table"
    assert code not in hub.tables and hub.live() == 0


def test_a_started_table_nobody_plays_at_ends_abandoned_with_its_game_kept_and_verifiable(client):
    watched, kept = create(client), create(client)
    for table in (watched, kept):
        start(client, table["code"], table["token"])
    code, token = watched["code"], watched["token"]
    with client.websocket_connect(f"/ws/{code}?token={token}") as player:
        first = receive_table(player)
        player.send_json({"type": "act", "version": first["version"], "action": "throw"})
        receive_table(player)
    with (
        client.websocket_connect(f"/ws/{code}?token={token}") as silent,  # open, acting no more
        client.websocket_connect(f"/ws/{code}") as spectator,  # keeps nothing alive
    ):
        receive_table(silent)
        receive_table(spectator)
        client.app.state.hub.tables[kept["code"]].active += 3600  # a move there an hour later: kept
        assert keep_house(client, 119) == []  # two hours by default, from the last move
        assert keep_house(client, 121) == [code]  # a page left open does not keep its table
        ended = receive_table(spectator)
        assert ended["table"]["status"] == "abandoned" and ended["table"]["seed"] is not None
    with client.websocket_connect(f"/ws/{code}?token={token}") as player:
        message = receive_table(player)
        view = message["view"]
        assert view["outcome"] is None and not view["your_turn"] and view["legal_actions"] == []
        error = error_of(player, {"type": "act", "version": message["version"], "action": "stop"})
    assert error["error"] == "over" and "unfinished" in error["message"]
    late = hand(client, code, 0, token)  # was « handed at the same moment by someone else »
    assert late.status_code == 409 and late.json()["detail"]["error"] == "over", late.text
    games = client.get("/api/games").json()
    assert [(g["kind"], g["losers"]) for g in games] == [("abandoned", [])]
    record = client.get(f"/api/games/{games[0]['id']}/record").json()
    assert record == client.get(f"/api/tables/{code}/record").json()
    assert verify(Record.from_dict(record)).problems == []
    assert client.get("/api/leaderboard", params={"rules": "lyonnaise-21"}).json() == []  # counted for nobody
    assert client.get(f"/api/tables/{kept['code']}").json()["status"] == "playing"


@contextlib.contextmanager
def playing_against_a_bot(client: TestClient) -> Iterator[tuple[str, Any, Any]]:
    """A started table of one person and a bot, its person connected: its code, the person's
    WebSocket (its first message read) and the table as the server holds it."""
    created = create(client, seats=["human", "bot:heuristic"])
    code, token = created["code"], created["token"]
    start(client, code, token)
    with client.websocket_connect(f"/ws/{code}?token={token}") as player:
        receive_table(player)
        yield code, player, client.app.state.hub.tables[code]  # type: ignore[attr-defined]


def test_a_table_whose_connected_person_never_acts_ends_when_idle(client):
    """A page left open and silent (a tab forgotten, a phone on its charger, a script holding a
    socket: a way to fill a server) kept its table alive for ever: only a person's move keeps one
    now."""
    with playing_against_a_bot(client) as (code, player, _):
        assert keep_house(client, 119) == []
        assert keep_house(client, 121) == [code]  # the idle time after the last move of a person
        assert receive_table(player)["table"]["status"] == "abandoned"


def test_with_no_time_limit_a_player_gone_from_the_table_is_played_by_a_bot_when_their_turn_comes(
    client, monkeypatch
):
    """A table without a timeout waits for a slow thinker as long as they take; but a player who left
    (no page open) stalled everyone for good. Their turn now waits GONE_SECONDS, then a bot plays
    for them until they come back, as the timeout's would."""
    from py421.server import table_actor

    monkeypatch.setattr(table_actor, "GONE_SECONDS", 0.2)
    created = create(client, seats=["human", "human"], timeout=0)
    code, token = created["code"], created["token"]
    assert client.post(f"/api/tables/{code}/join", json={"name": "Bob"}).status_code == 200  # then leaves
    with client.websocket_connect(f"/ws/{code}?token={token}") as alice:
        receive_table(alice)
        start(client, code, token)
        message = receive_table(alice)
        while not message["table"]["seats"][1]["away"]:  # Bob's turn comes: nobody there to play it
            if message["view"]["your_turn"]:
                alice.send_json({"type": "act", "version": message["version"], "action": "stop"})
            message = receive_table(alice)
        assert message["view"]["waiting_for"]["seat"] == 1
        gone = message["version"]
        while message["version"] == gone:
            message = receive_table(alice)  # the bot standing in for Bob plays his turn
    assert not message["table"]["seats"][1]["connected"]


def test_throws_nobody_asked_for_are_paced_as_the_bots_moves(tmp_path, monkeypatch):
    """A charge of coups secs was over 0.1 s after the start: the server threw every turn's dice at
    once, and nobody saw a die. A throw that starts a turn (or settles a tie) now comes the bots'
    pause after the step before it; the dice a player asked for, at once."""
    from py421.play.session import Session

    times: list[float] = []
    step = Session.step

    def noted(session: Session) -> Any:
        request, held = session.state.chance, session.state.round
        if request is not None and request.purpose == "turn" and held is not None and held.pending is None:
            times.append(time.monotonic())
        return step(session)

    monkeypatch.setattr(Session, "step", noted)
    pause = 0.3
    with TestClient(create_app(f"sqlite:///{tmp_path}/s.db", bot_delay=pause)) as client:
        created = create(client, rules="classic-11", seats=["human", "human", "human"])
        code, token = created["code"], created["token"]
        for name in ("Bob", "Carol"):
            assert client.post(f"/api/tables/{code}/join", json={"name": name}).status_code == 200
        start(client, code, token)
        deadline = time.monotonic() + 60
        while len(times) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
    assert len(times) >= 3
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert min(gaps) >= pause - 0.02, gaps


def test_a_player_a_bot_stands_in_for_takes_the_seat_back_with_one_message(client):
    """Away, a player saw their turn for the bots' pause only, then the bot played it: coming back
    meant tapping within that moment. « back » hands the seat back at once."""
    with playing_against_a_bot(client) as (code, player, table):
        table.seats[0].away = True  # as the timeout leaves it: a bot plays for them
        player.send_json({"type": "back"})
        message = receive_table(player)
        while message["table"]["seats"][0]["away"]:
            message = receive_table(player)
        with client.websocket_connect(f"/ws/{code}") as spectator:
            receive_table(spectator)
            assert error_of(spectator, {"type": "back"})["error"] == "spectator"


def test_tables_are_ended_many_a_transaction_off_the_event_loop(tmp_path):
    """Expiring 3,000 waiting tables once deleted them one transaction at a time on the event loop,
    and every answer waited: answers took up to 2.2 s. The database's part is done in the writer's
    thread, many tables a transaction."""
    import threading

    from sqlalchemy import event

    app = create_app(f"sqlite:///{tmp_path}/s.db", bot_delay=0, limits=Limits(tables_per_minute=10_000))
    with TestClient(app) as client:
        batch = app.state.hub.batch
        codes = {create(client, seats=["human", "human"])["code"] for _ in range(2 * batch + batch // 2)}
        engine = app.state.hub.store.engine
        assert client.portal is not None
        loop_thread = client.portal.call(threading.get_ident)
        deletes: list[int] = []

        def note(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
            if statement.startswith("DELETE FROM online_tables"):
                deletes.append(threading.get_ident())

        event.listen(engine, "before_cursor_execute", note)
        try:
            ended = keep_house(client, 31)
        finally:
            event.remove(engine, "before_cursor_execute", note)
        assert set(ended) == codes and not app.state.hub.tables
        assert client.get("/api/presets").status_code == 200
    assert len(deletes) == 3  # three transactions for two and a half batches
    assert loop_thread not in deletes


def test_serving_to_the_network_names_the_address_the_phones_open(tmp_path, monkeypatch):
    """``421 serve --host 0.0.0.0`` said « http://0.0.0.0:8421 », which no phone opens: the table's
    friends had to find the laptop's address on the bar's Wi-Fi themselves."""
    import ipaddress

    import uvicorn

    from py421.cli.online import network_address

    address = network_address()
    if address is None:
        pytest.skip("this machine has no network")
    monkeypatch.setenv("PY421_HOME", str(tmp_path))
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: None)  # said, then not served
    port = str(free_port())
    said = CliRunner().invoke(main, ["serve", "--host", "0.0.0.0", "--port", port])
    assert said.exit_code == 0, said.output
    assert f"phones on the same network open http://{address}:{port}" in said.output
    assert not ipaddress.ip_address(address).is_loopback and address != "0.0.0.0"
    alone = CliRunner().invoke(main, ["serve", "--port", port])  # this machine only: no phone
    assert "phones on the same network" not in alone.output


def test_the_health_check_and_the_list_of_games_ask_the_database_off_the_event_loop(client):
    """Both asked the database on the event loop: a database slow to answer (or a connection to it
    waiting on a network gone) held every other request of the process meanwhile, health checks
    included, as often as the load balancer or anyone asked."""
    from sqlalchemy import event

    played_out(client, seats=["human", "bot:heuristic"])
    hub = client.app.state.hub
    assert client.portal is not None
    loop_thread = client.portal.call(threading.get_ident)
    asked: list[int] = []

    def note(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        asked.append(threading.get_ident())

    engines = {hub.store.engine, hub.history.engine}
    for engine in engines:
        event.listen(engine, "before_cursor_execute", note)
    try:
        assert client.get("/healthz").json()["ok"]
        assert len(client.get("/api/games").json()) == 1
    finally:
        for engine in engines:
            event.remove(engine, "before_cursor_execute", note)
    assert asked and loop_thread not in asked


def test_a_finished_table_is_read_and_replayed_off_the_event_loop(tmp_path):
    """A finished table is rebuilt from the database by replaying its steps at each request: a game
    of tens of thousands of steps (a pot of 999) held every answer of the server for seconds while
    one client asked for it again and again. The reading and the replay go to a reader's thread."""
    import threading

    from py421.core.game import Game

    # a player as fast as the test plays sends more than a person would: no message budget in the way
    app = create_app(f"sqlite:///{tmp_path}/s.db", bot_delay=0, limits=Limits(messages_per_second=1000))
    with TestClient(app) as client:
        code = played_out(client, rules="classic-11")["table"]["code"]
        hub = app.state.hub
        assert client.portal is not None
        hub.tables.pop(code, None)  # a finished table nobody watches is not kept in memory
        loop_thread = client.portal.call(threading.get_ident)
        replayed: list[int] = []
        apply = Game.apply_step

        def noted(game: Game, step: Any) -> Any:
            replayed.append(threading.get_ident())
            return apply(game, step)

        with pytest.MonkeyPatch.context() as patched:
            patched.setattr(Game, "apply_step", noted)
            shown = client.get(f"/api/tables/{code}")
            record = client.get(f"/api/tables/{code}/record")
        assert shown.status_code == 200 and shown.json()["status"] == "over"
        assert record.status_code == 200 and record.json()["steps"]
        assert client.get("/api/tables/ZZZZZ").status_code == 404
    assert replayed and loop_thread not in replayed
    assert code not in hub.tables  # read to be shown, not kept


def test_a_table_asked_for_many_times_at_once_is_read_once(tmp_path):
    """Eight requests at once for a long finished table's page each replayed it, taking both reader
    threads: another finished table's page waited 24.8 s. Those asked at once share one reading."""
    app = create_app(f"sqlite:///{tmp_path}/s.db", bot_delay=0, limits=Limits(messages_per_second=1000))
    with TestClient(app) as client:
        code = played_out(client, rules="classic-11")["table"]["code"]
        hub = app.state.hub
        hub.tables.pop(code, None)  # a finished table nobody watches is not kept in memory
        read: list[str] = []
        real = type(hub)._rebuilt

        def noted(self: Any, asked: str) -> Any:
            read.append(asked)
            return real(self, asked)

        async def eight() -> list[Any]:
            return list(await asyncio.gather(*(hub.public(code) for _ in range(8))))

        with pytest.MonkeyPatch.context() as patched:
            patched.setattr(type(hub), "_rebuilt", noted)
            assert client.portal is not None
            shown = client.portal.call(eight)
            assert read == [code]
            assert client.get(f"/api/tables/{code}").status_code == 200  # asked again later: read again
            assert read == [code, code]
    assert all(table["status"] == "over" for table in shown)


def test_a_finished_table_read_again_holds_its_last_state_not_every_one(tmp_path):
    """A finished game read to be shown or watched held every state it went through: a long game
    about 16 MB, and 20 watchers of long games took the server from 523 to 846 MB. It holds its
    last state, its steps and its log; a scorekeeper's undo plays the rest again."""
    import tracemalloc

    from py421.server.table import Table

    limits = Limits(messages_per_second=1000)
    app = create_app(f"sqlite:///{tmp_path}/s.db", bot_delay=0, limits=limits, seeds=itertools.repeat("long"))
    with TestClient(app) as client:
        code = played_out(client, rules="classic-11", settings=["manches=9"])["table"]["code"]
        hub = app.state.hub
        hub.tables.pop(code, None)  # a finished table nobody watches is not kept in memory

        def held() -> tuple[int, Any]:
            tracemalloc.start()
            try:
                table = hub._rebuilt(code)
                return tracemalloc.get_traced_memory()[0], table
            finally:
                tracemalloc.stop()

        hub._rebuilt(code)  # what the first reading caches (statements, rules) is not the table's
        kept, table = held()
        with pytest.MonkeyPatch.context() as patched:
            patched.setattr(Table, "let_go_of_states", lambda self: None, raising=False)
            whole, _ = held()
        assert table.game.played > 100 and kept < whole / 2, (table.game.played, kept, whole)
        with client.websocket_connect(f"/ws/{code}") as watcher:
            shown = receive_table(watcher)
        assert shown["table"]["status"] == "over" and shown["view"]["outcome"] is not None
        assert shown["version"] == table.game.played


def test_long_finished_games_asked_for_one_after_another_are_paid_for_by_the_address(tmp_path):
    """Each lookup of a finished game not in memory replays it in one of the two readers, 0.45 s for
    20,000 steps, with nothing counted: twenty connections asking for long codes took /healthz from
    13 ms to 7.5 s. The steps replayed are the asking address's: one address's lookups are read one
    at a time, and once it has had its fill it is refused (429, rate_limited) until it is paid back;
    a table in memory, or a lookup that shares a reading under way, costs nothing."""
    # a burst of a fraction of a step, and a hundred seconds to pay back each step past it
    limits = Limits(messages_per_second=1000, replay_steps_per_second=0.01)
    app = create_app(f"sqlite:///{tmp_path}/s.db", bot_delay=0, limits=limits)
    with TestClient(app) as client:
        codes = [played_out(client, rules="classic-11")["table"]["code"] for _ in range(3)]
        hub = app.state.hub
        for code in codes:
            hub.tables.pop(code, None)  # finished tables nobody watches are not kept in memory
        assert client.get(f"/api/tables/{codes[0]}").status_code == 200  # the first: read
        refused = client.get(f"/api/tables/{codes[1]}")
        assert refused.status_code == 429 and refused.json()["detail"]["error"] == "rate_limited"
        assert int(refused.headers["retry-after"]) > 60
        with client.websocket_connect(f"/ws/{codes[1]}") as ws:
            assert ws.receive_json()["error"] == "rate_limited"
        assert client.get("/api/presets").status_code == 200  # the rest of the server answers
        assert client.portal is not None

        async def at_once(address: str) -> list[Any]:
            asked = (hub.public(code, address=address) for code in codes)
            return list(await asyncio.gather(*asked, return_exceptions=True))

        answers = client.portal.call(at_once, "198.51.100.7")  # another address, three at once
    kinds = sorted("refused" if isinstance(a, TableError) else a["status"] for a in answers)
    assert kinds == ["over", "refused", "refused"]  # one after another: only the first was read


def test_a_start_the_engine_refuses_leaves_the_table_waiting(client, monkeypatch):
    created = create(client, seats=["human", "human"])
    code, token = created["code"], created["token"]
    client.post(f"/api/tables/{code}/join", json={"name": "Bob"})
    hub = client.app.state.hub

    async def down(*args: Any) -> bool:
        raise OperationalError("UPDATE", {}, Exception("the database is down"))

    monkeypatch.setattr(hub.writer, "start", down)
    quiet = TestClient(client.app, raise_server_exceptions=False)
    response = quiet.post(f"/api/tables/{code}/start", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 503 and response.json()["detail"]["error"] == "internal"
    table = hub.tables[code]
    assert table.status == "waiting" and table.session is None
    assert [s.kind for s in table.seats] == ["human", "human"]
    monkeypatch.undo()
    start(client, code, token)
    assert client.get(f"/api/tables/{code}").json()["status"] == "playing"


# -- the protocol ------------------------------------------------------------------------------


def test_every_message_the_server_sends_fits_the_declared_protocol(client):
    created = create(client, seats=["human", "bot:heuristic"], rules="engranjeu-21")
    code, token = created["code"], created["token"]
    assert p.TablePublic.model_validate(client.get(f"/api/tables/{code}").json())
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        p.OUTBOUND.validate_python(receive_table(ws))
        start(client, code, token)
        seen = 0
        while True:
            message = ws.receive_json()
            p.OUTBOUND.validate_python(message)
            view = message["view"]
            if view and view["your_turn"]:
                seen += 1
                action = view["legal_actions"][0]
                move = {k: v for k, v in action.items() if k != "text"}
                ws.send_json({"type": "act", "version": message["version"], "action": move})
            if view and view["outcome"] is not None:
                break
    assert seen > 0
    for preset in client.get("/api/presets").json():
        p.Preset.model_validate(preset)


def test_health_says_what_the_process_holds(client):
    created = create(client)
    health = client.get("/healthz").json()
    assert health["ok"] is True and health["tables"] >= 1 and health["owned"] >= 1
    assert created["code"] in client.app.state.hub.owned()


def test_a_new_table_never_takes_a_code_the_database_already_holds(tmp_path: Path) -> None:
    """Codes are drawn at random: one drawn again (a finished table's, not in memory) is not reused."""
    with serving(f"sqlite:///{tmp_path}/s.db") as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        seats = [SeatRow(0, "human", None, "Old", None)]
        hub.store.create(TableRow("OLDTB", now(), "play", {}, "over", "s", "h", 0, 0, None, None, seats, []))
        drawn = iter(["OLDTB", "NEWTB"])
        hub._new_code = lambda: next(drawn)
        created = create(client)
        assert created["code"] == "NEWTB"
        old = hub.store.load("OLDTB")
        assert old.status == "over" and old.seats[0].name == "Old"  # left as it was


def test_a_join_asked_again_of_the_table_s_new_owner_gives_the_same_seat_and_token(tmp_path: Path) -> None:
    """The process that owned the table made the join, then died before answering: the process the
    person asked through asks the table's new owner again, which must give that person their seat
    (not refuse their name as taken, nor give a second seat)."""
    with serving(f"sqlite:///{tmp_path}/s.db") as client:
        app: Any = client.app
        hub = app.state.hub
        code = create(client, seats=["human", "human", "human"])["code"]
        asked: list[dict[str, Any]] = []
        change = hub._change

        async def recorded(code: str, command: Any, answer: Any) -> Any:
            asked.append(command.args())  # what the wire carries to another process
            return await change(code, command, answer)

        hub._change = recorded
        first = client.post(f"/api/tables/{code}/join", json={"name": "Bob"}).json()
        assert client.portal is not None
        again = client.portal.call(hub.serve_request, code, "join", asked[0])
        assert (again["seat"], again["token"]) == (first["seat"], first["token"])
        seats = client.get(f"/api/tables/{code}").json()["seats"]
        assert [(s["name"], s["taken"]) for s in seats] == [("Alice", True), ("Bob", True), (None, False)]


def test_a_request_that_meets_a_bug_is_answered_500_and_logged_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The server's own line names the request, quoted so that a path cannot write a line of its own;
    Starlette re-raised the error after the answer, and uvicorn logged it a second time."""
    import logging

    import httpx2 as httpx

    from py421.server.hub import Hub

    from .server_helpers import uvicorn_serving

    def broken(*args: object) -> list[str]:
        raise RuntimeError("a bug")

    monkeypatch.setattr("py421.server.routes.preset_names", broken)
    monkeypatch.setattr(Hub, "public", broken)

    async def scenario() -> list[httpx.Response]:
        app = create_app(f"sqlite:///{tmp_path}/s.db")
        async with (
            uvicorn_serving(app, log_config=None) as port,
            httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http,
        ):
            return [await http.get("/api/presets"), await http.get("/api/tables/AB%0AINFO%20forged")]

    with caplog.at_level(logging.ERROR):
        answers = asyncio.run(scenario())
    assert [a.status_code for a in answers] == [500, 500]
    assert {a.json()["detail"]["error"] for a in answers} == {"internal"}
    failures = [r for r in caplog.records if r.exc_info is not None and r.levelno >= logging.ERROR]
    assert [r.getMessage() for r in failures] == [
        "request GET '/api/presets' failed",
        "request GET '/api/tables/AB\\nINFO forged' failed",
    ]


@pytest.mark.parametrize(
    ("lang", "said"), [("en", "there is no table 'ABCDE'"), ("fr", "il n'y a pas de table 'ABCDE'")]
)
def test_a_socket_refused_before_it_plays_is_told_why_in_its_language(client, lang, said):
    with client.websocket_connect(f"/ws/ABCDE?lang={lang}") as ws:
        refused = ws.receive_json()
    assert (refused["type"], refused["error"], refused["lang"]) == ("error", "no_table", lang)
    assert refused["message"].startswith(said)


def test_a_client_gone_before_its_body_arrived_is_no_failure_of_the_servers(caplog):
    """Each POST whose client went away mid-body was logged as the server's failure, with a 48-line
    traceback: 3 KB of log a request, a way to fill a host's disk. Nobody is left to answer, and
    nothing failed."""
    from starlette.requests import ClientDisconnect

    from py421.server.app import AnswerFailures

    async def gone(scope: Any, receive: Any, send: Any) -> None:
        raise ClientDisconnect()

    async def broken(scope: Any, receive: Any, send: Any) -> None:
        raise RuntimeError("a bug")

    sent: list[Any] = []

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        return {"type": "http.disconnect"}

    scope = {"type": "http", "method": "POST", "path": "/api/tables", "headers": []}
    with caplog.at_level("INFO", logger="py421"):
        asyncio.run(AnswerFailures(gone)(scope, receive, send))
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "WARNING")] and sent == []
    with caplog.at_level("INFO", logger="py421"):
        asyncio.run(AnswerFailures(broken)(scope, receive, send))
    assert [r.exc_info is not None for r in caplog.records if r.levelname == "ERROR"] == [
        True
    ]  # a bug still is


def two_and_a_bot(client: TestClient, second: str = "Bob") -> tuple[str, str, str]:
    """A table of Alice, ``second`` who has joined it, and a bot, not started: its code, Alice's token
    and the other player's."""
    created = create(client, seats=["human", "human", "bot:heuristic"])
    code = created["code"]
    joined = client.post(f"/api/tables/{code}/join", json={"name": second}).json()["token"]
    return code, created["token"], joined


def hand(client: TestClient, code: str, seat: int, token: str | None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.post(f"/api/tables/{code}/seats/{seat}/hand", headers=headers)


def gone_a_while(client: TestClient, code: str, seat: int) -> None:
    """No page has held ``seat`` for two hours: another player may hand it on
    (:attr:`.Limits.hand_after_seconds`)."""
    client.app.state.hub.tables[code].seats[seat].left -= 7200  # type: ignore[attr-defined]


def test_a_seat_is_handed_to_another_phone_and_the_phone_that_held_it_only_watches(client):
    """Bob's phone runs low mid-game: he hands his seat on, and plays from a borrowed phone."""
    code, alice, bob = two_and_a_bot(client)
    start(client, code, alice)
    with client.websocket_connect(f"/ws/{code}?token={bob}") as dead:
        assert receive_table(dead)["view"]["seat"] == 1
        handed = hand(client, code, 1, bob)  # his page still open, it is his to hand on
        assert handed.status_code == 200, handed.text
        new = handed.json()
        assert new["code"] == code and new["seat"] == 1 and new["token"] not in (alice, bob)
        told = error_of(dead, {"type": "ping"})
        assert told["error"] == "seat_handed" and "another phone" in told["message"]
        while (message := dead.receive_json())["type"] != "table":
            pass
        assert message["view"]["seat"] is None  # the phone that held it now watches
        refused = error_of(dead, {"type": "undo", "version": message["version"]})
        assert refused["error"] == "spectator"
    with client.websocket_connect(f"/ws/{code}?token={new['token']}") as borrowed:
        assert receive_table(borrowed)["view"]["seat"] == 1
    with client.websocket_connect(f"/ws/{code}?token={bob}") as again:
        assert again.receive_json()["error"] == "not_seated"  # the old token holds nothing any more
        assert receive_table(again)["view"]["seat"] is None
    # asked again by the phone that now holds it, to the next phone
    assert hand(client, code, 1, new["token"]).status_code == 200
    assert hand(client, code, 1, bob).json()["detail"]["error"] == "spectator"


def test_a_phone_that_comes_back_after_its_seat_was_handed_on_is_told_it_only_watches(client):
    """Bob's phone was off while his seat was handed on: back, it came with its old token, was
    shown the table as a watcher and told nothing, so its page still said the seat was his."""
    code, alice, bob = two_and_a_bot(client)
    start(client, code, alice)
    gone_a_while(client, code, 1)
    assert hand(client, code, 1, alice).status_code == 200
    with client.websocket_connect(f"/ws/{code}?token={bob}&lang=fr") as back:
        told = back.receive_json()
        assert told["type"] == "error" and told["error"] == "not_seated", told
        assert "confiée à un autre téléphone" in told["message"]
        assert receive_table(back)["view"]["seat"] is None
    with client.websocket_connect(f"/ws/{code}") as watcher:  # no token: a watcher, told nothing
        assert receive_table(watcher)["view"]["seat"] is None


def test_a_change_asked_of_a_finished_table_does_not_keep_it_in_memory(client):
    """Every finished table's code is public (its game's record names it): a request to start,
    join, hand a seat of or rematch one kept it in memory for good, a game's worth each."""
    created = create(client, seats=["human", "bot:heuristic"])
    code, token = created["code"], created["token"]
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        ws.receive_json()
        start(client, code, token)
        play_to_the_end(ws)
    hub = client.app.state.hub
    assert code not in hub.tables  # nobody watches it: the database has it all
    assert client.post(f"/api/tables/{code}/start").status_code == 403
    assert client.post(f"/api/tables/{code}/join", json={"name": "Eve"}).status_code == 409
    late = hand(client, code, 0, token)
    assert late.status_code == 409 and late.json()["detail"]["error"] == "over"
    assert "once it is over" in late.json()["detail"]["message"]
    assert code not in hub.tables
    rematch = client.post(f"/api/tables/{code}/rematch", headers={"Authorization": f"Bearer {token}"})
    assert rematch.status_code == 200 and rematch.json()["code"] in hub.tables  # the new one waits
    assert code not in hub.tables


def test_a_copy_behind_the_database_does_not_tell_a_phone_just_seated_that_it_only_watches(
    client, monkeypatch
):
    """Another process's copy of the table may not have caught up with a join yet: told
    « not_seated » there, the page forgot the token of a seat it had just taken, for good."""
    created = create(client, seats=["human", "human"])
    code = created["code"]
    bob = client.post(f"/api/tables/{code}/join", json={"name": "Bob"}).json()["token"]
    hub = client.app.state.hub
    hub.tables[code].seats[1].token_hash = None  # a copy from before the join
    monkeypatch.setattr(hub.cluster, "owns", lambda asked: False)  # owned by another process
    with client.websocket_connect(f"/ws/{code}?token={bob}") as ws:
        assert ws.receive_json()["type"] == "table"  # not told « not_seated »
    with client.websocket_connect(f"/ws/{code}?token=not-a-seat-s-token") as ws:
        assert ws.receive_json()["error"] == "not_seated"  # the database holds no such seat either


def test_a_seat_handed_on_from_an_open_page_is_not_here_once_that_page_closes(client):
    """The page that held the seat watched from then on, and its seat stayed shown connected for
    good once it closed: at a table with no time limit, nobody ever played that seat's turn."""
    code, alice, bob = two_and_a_bot(client)
    start(client, code, alice)
    with client.websocket_connect(f"/ws/{code}?token={bob}") as old:
        receive_table(old)
        assert client.get(f"/api/tables/{code}").json()["seats"][1]["connected"]
        assert hand(client, code, 1, bob).status_code == 200  # from his own open page
        assert error_of(old, {"type": "ping"})["error"] == "seat_handed"
        assert not client.get(f"/api/tables/{code}").json()["seats"][1]["connected"]
    assert not client.get(f"/api/tables/{code}").json()["seats"][1]["connected"]


def test_back_from_a_player_not_replaced_does_not_put_off_the_turn_s_time_limit(client, monkeypatch):
    """Each « back » started the time limit of the player to move again: one seated player sending
    it every few seconds kept a gone player's turn from ever being played by a bot."""
    from py421.server.table_actor import TableActor

    started: list[int] = []
    timer = TableActor._start_timer

    def counted(self: TableActor, seat: int) -> None:
        started.append(seat)
        timer(self, seat)

    created = create(client, seats=["human", "bot:heuristic"])
    code, token = created["code"], created["token"]
    client.app.state.hub.tables[code].timeout = 60  # seconds: not reached in this test
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        turn = your_first_turn(client, ws, code, token)
        monkeypatch.setattr(TableActor, "_start_timer", counted)
        for _ in range(3):
            ws.send_json({"type": "back"})
        ws.send_json({"type": "ping"})
        while ws.receive_json()["type"] != "pong":
            pass
        assert client.get(f"/api/tables/{code}").json()["version"] == turn["version"]
    assert started == []


def test_a_seat_is_handed_on_only_by_a_seated_player_to_a_person_s_seat_in_play(client):
    code, alice, bob = two_and_a_bot(client)
    start(client, code, alice)
    watcher = hand(client, code, 1, None)
    assert watcher.status_code == 403 and watcher.json()["detail"]["error"] == "spectator"
    assert "seated at this table" in watcher.json()["detail"]["message"]
    for seat in (2, 3, -1):  # a bot's seat, and seats the table does not have
        refused = hand(client, code, seat, bob)
        assert refused.status_code == 404, refused.text
        detail = refused.json()["detail"]
        assert detail["error"] == "no_seat" and "(0, 1)" in detail["message"], detail
    french = client.post(
        f"/api/tables/{code}/seats/2/hand",
        headers={"Authorization": f"Bearer {bob}", "Accept-Language": "fr"},
    )
    assert "aucune personne n'occupe la place 2" in french.json()["detail"]["message"]
    gone_a_while(client, code, 0)
    assert hand(client, code, 0, bob).status_code == 200  # Bob hands Alice's seat on


def test_a_creator_whose_phone_dies_before_the_start_starts_the_game_from_another(client):
    """Alice's phone died before she started the table: nobody else may start it, and her seat
    could not be handed on before the game; the table was lost for the friends who had joined."""
    code, alice, bob = two_and_a_bot(client)
    gone_a_while(client, code, 0)
    handed = hand(client, code, 0, bob)  # Bob hands Alice's seat on, for her borrowed phone
    assert handed.status_code == 200, handed.text
    borrowed = handed.json()["token"]
    for token in (alice, bob):  # neither the dead phone's token nor Bob's starts it
        refused = client.post(f"/api/tables/{code}/start", headers={"Authorization": f"Bearer {token}"})
        assert refused.status_code == 403 and refused.json()["detail"]["error"] == "not_creator"
    start(client, code, borrowed)
    with client.websocket_connect(f"/ws/{code}?token={borrowed}") as ws:
        table = receive_table(ws)
        assert table["view"]["seat"] == 0 and table["table"]["status"] == "playing"


def test_before_the_start_another_s_seat_is_handed_on_only_once_its_phone_is_gone(client):
    """Before the start anyone with the table's code may join: one who did could hand the
    creator's seat to a token of their own while her page was open, and start her table."""
    code, alice, eve = two_and_a_bot(client, "Eve")
    with client.websocket_connect(f"/ws/{code}?token={alice}") as page:
        receive_table(page)
        refused = hand(client, code, 0, eve)
        assert refused.status_code == 409, refused.text
        detail = refused.json()["detail"]
        assert detail["error"] == "seat_here" and "phone is at the table" in detail["message"]
        assert hand(client, code, 1, eve).status_code == 200  # her own seat, to her other phone
        mine = hand(client, code, 0, alice)  # Alice's own, from her open page: hers to hand
        assert mine.status_code == 200, mine.text


def test_in_play_another_s_seat_is_handed_on_only_once_their_phone_is_gone(client):
    """Anyone who joined with the code could hand every other person's seat to tokens of their own
    in play, their pages open, and then play every seat and hold the rematch: none could hand it back."""
    code, ann, mallory = two_and_a_bot(client, "Mallory")
    start(client, code, ann)
    with client.websocket_connect(f"/ws/{code}?token={ann}") as page:
        receive_table(page)
        refused = hand(client, code, 0, mallory)
        assert refused.status_code == 409, refused.text
        assert refused.json()["detail"]["error"] == "seat_here"
    gone_a_while(client, code, 0)
    assert hand(client, code, 0, mallory).status_code == 200  # her phone gone: the seat goes on


def test_a_flood_of_seats_handed_on_is_refused_past_the_address_s_messages(tmp_path, monkeypatch):
    """Each seat handed on is a write to the database: a seated player who asks it in a loop
    spends the address's messages, as moves do (the clock held still: the budget never refills)."""
    spend = AddressBook.message
    monkeypatch.setattr(AddressBook, "message", lambda self, address, now=None: spend(self, address, 1000.0))
    with serving(f"sqlite:///{tmp_path}/t.db", limits=Limits(messages_per_second=3)) as c:
        created = create(c, seats=["human", "bot:heuristic"])
        code, token = created["code"], created["token"]
        start(c, code, token)
        answers = []
        for _ in range(8):
            answered = hand(c, code, 0, token)
            answers.append(answered.status_code)
            if answered.status_code == 200:
                token = answered.json()["token"]
            else:
                assert answered.json()["detail"]["error"] == "rate_limited"
        assert answers == [200] * 6 + [429] * 2  # a burst of twice the messages a second


def left_playing(url: str) -> tuple[str, str]:
    """A table of a person and a bot, started and left playing as a server stops: code, token."""
    with serving(url) as c:
        created = create(c, seats=["human", "bot:heuristic"])
        start(c, created["code"], created["token"])
    return created["code"], created["token"]


def held_replays(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, list[str]]:
    """Each table replayed as a long game is, until the event is set; "read" noted in the list as
    each ends. The wait is bounded only for a replay on the event loop, which nothing releases."""
    released, order = threading.Event(), []
    rebuilt = Hub._rebuilt

    def slow(self: Hub, asked: str) -> Any:
        released.wait(120)
        order.append("read")
        return rebuilt(self, asked)

    monkeypatch.setattr(Hub, "_rebuilt", slow)
    return released, order


def test_a_restart_answers_before_its_unfinished_tables_are_read_again(tmp_path, monkeypatch):
    """A restarted server replayed every unfinished table before it answered anyone: down for as long
    as that took, for a server full of long games a long while."""
    url = f"sqlite:///{tmp_path}/t.db"
    code, _ = left_playing(url)
    released, order = held_replays(monkeypatch)
    with serving(url, limits=Limits(live_tables=1)) as c:
        try:
            assert c.get("/healthz").json()["resuming"]
            order.append("answered")
            # the table still to read counts against --max-tables: no new one takes its room meanwhile
            body = {"rules": "lyonnaise-21", "seats": ["human", "bot:heuristic"], "name": "Bea"}
            full = c.post("/api/tables", json=body)
            assert full.status_code == 503 and full.json()["detail"]["error"] == "too_many_tables"
        finally:
            released.set()
        table = c.get(f"/api/tables/{code}").json()  # asked while it is read: the same reading
        assert table["status"] == "playing" and table["seats"][0]["name"] == "Alice"
        resumed(c)
        assert code in c.app.state.hub.tables  # type: ignore[attr-defined]
    assert order[:2] == ["answered", "read"]


def test_a_change_to_a_table_not_yet_read_again_does_not_hold_the_server(tmp_path, monkeypatch):
    """Just after a restart, a seat handed on at a table still to be read again replayed it on the
    event loop: the server answered nobody until a long game was replayed."""
    url = f"sqlite:///{tmp_path}/t.db"
    code, token = left_playing(url)
    released, order = held_replays(monkeypatch)
    asked, handed_on = threading.Event(), Hub.hand

    async def asking(self: Hub, *args: Any) -> Any:
        asked.set()
        return await handed_on(self, *args)

    monkeypatch.setattr(Hub, "hand", asking)
    with serving(url) as c, ThreadPoolExecutor(1) as pool:
        try:
            assert c.get("/healthz").json()["resuming"]  # the table is still to be read again
            handing = pool.submit(hand, c, code, 0, token)
            assert asked.wait(60), "the seat was never asked for"
            assert c.get("/healthz").status_code == 200
            order.append("answered")
        finally:
            released.set()
        handed = handing.result()
        assert handed.status_code == 200, handed.text
        assert hand(c, code, 0, token).status_code == 403  # the old token no longer holds the seat
    assert order[0] == "answered"


def test_a_scorekeeper_whose_phone_died_is_taken_over_by_a_phone_watching(client):
    """Only the keeper's phone reports, and only it could hand the score on: once it died (a flat
    battery, no time to tap « Keep the score on another phone »), nobody could go on. A phone watching
    may now take it, once the keeper's has been gone a while, never while it is there."""
    created = client.post(
        "/api/tables", json={"mode": "scorekeeper", "rules": "classic-11", "players": ["Ann", "Bob"]}
    ).json()
    code, keeper = created["code"], created["token"]
    take = f"/api/tables/{code}/seats/0/hand"
    with client.websocket_connect(f"/ws/{code}?token={keeper}") as ws:
        version = receive_table(ws)["version"]
        ws.send_json({"type": "report", "version": version, "turn": "421"})
        receive_table(ws)
        here = client.post(take)
        assert here.status_code == 409 and here.json()["detail"]["error"] == "seat_here", here.text
    hub = client.app.state.hub
    hub.limits = dataclasses.replace(hub.limits, hand_after_seconds=3600.0)
    recent = client.post(take)  # the phone may be back in a moment: its screen went dark
    assert recent.status_code == 409 and "for 60 min" in recent.json()["detail"]["message"], recent.text
    client.app.state.hub.tables[code].seats[0].left -= 7200  # two hours later
    taken = client.post(take)
    assert taken.status_code == 200, taken.text
    assert client.post(f"/api/tables/{code}/seats/1/hand").json()["detail"]["error"] == "no_seat"
    again = client.post(take)  # a second phone watching, a moment later: the first one's page is coming
    assert again.status_code == 409 and again.json()["detail"]["error"] == "seat_here", again.text
    with client.websocket_connect(f"/ws/{code}?token={taken.json()['token']}") as ws:
        message = receive_table(ws)
        assert message["view"]["waiting_for"]["seat"] == 1  # where the score was left: Bob's turn
        ws.send_json({"type": "report", "version": message["version"], "turn": "654"})
        message = receive_table(ws)
        assert any("Bob takes" in line for line in message["log"])
        ws.send_json({"type": "undo", "version": message["version"]})  # its own report: taken back
        message = receive_table(ws)
        ws.send_json({"type": "undo", "version": message["version"]})  # Ann's, reported before: kept
        refused = ws.receive_json()
        assert refused["type"] == "error" and "before this phone took the score" in refused["message"]
    hub.tables.pop(code)  # out of memory (a finished table nobody watches, a restart): read again
    with client.websocket_connect(f"/ws/{code}?token={taken.json()['token']}") as ws:
        ws.send_json({"type": "undo", "version": receive_table(ws)["version"]})
        refused = ws.receive_json()
        assert refused["type"] == "error" and "before this phone took the score" in refused["message"]
    with client.websocket_connect(f"/ws/{code}?token={keeper}") as old:  # the dead phone, recharged
        said = old.receive_json()
        assert said["type"] == "error" and said["error"] == "not_seated"


def test_another_player_hands_on_a_seat_only_once_its_phone_has_been_gone_a_while(client):
    """Anyone with the link may join: one who had could take the creator's seat the moment her
    phone let go of the table (a screen gone dark), start the game with it, and she could not get it
    back. Another's seat is now theirs to hand on only once no page has held it for a while."""
    hub = client.app.state.hub
    hub.limits = dataclasses.replace(hub.limits, hand_after_seconds=3600.0)  # not reached in this test
    code, alice, eve = two_and_a_bot(client, "Eve")
    with client.websocket_connect(f"/ws/{code}?token={alice}") as ws:
        receive_table(ws)
        assert hand(client, code, 0, eve).json()["detail"]["error"] == "seat_here"  # her phone is here
    refused = hand(client, code, 0, eve)  # her screen went dark a moment ago
    assert refused.status_code == 409, refused.text
    detail = refused.json()["detail"]
    assert detail["error"] == "seat_here", detail
    assert "seat 0's phone has only just left" in detail["message"]
    assert "may be handed on by another player in 3" in detail["message"]  # about an hour's seconds
    with client.websocket_connect(f"/ws/{code}?token={alice}") as ws:  # back: still hers, not « not_seated »
        receive_table(ws)
    hub.tables[code].seats[0].left -= 7200  # two hours later: her phone is dead, Eve hands her seat on
    assert hand(client, code, 0, eve).status_code == 200


def test_a_spectator_still_cannot_hand_on_a_seat_at_a_table_played_online(client):
    created = create(client, seats=["human", "human"], timeout=0)
    refused = client.post(f"/api/tables/{created['code']}/seats/0/hand")
    assert refused.status_code == 403 and refused.json()["detail"]["error"] == "spectator"
