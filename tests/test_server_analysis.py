"""The server's analyses of finished games, and hints at the tables created with them."""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi.testclient import TestClient

from py421.analysis import analyse
from py421.core.chance import SeededDice
from py421.core.record import Record
from py421.core.rules import Ruleset
from py421.players import make_bot
from py421.server import hints as hints_module
from py421.server.app import create_app
from py421.server.limits import Limits
from py421.server.worker import Budget, Failed, HintAt
from py421.sim.loop import play_out

from .server_helpers import create, database_urls, play_to_the_end, played_out, serving, start
from .test_analysis import BLUNDER, BLUNDER_STEP, scripted, solver_cost

# Each test takes a second or two; one that waits for a message that never comes fails in a minute.
pytestmark = pytest.mark.timeout(60)
URLS = database_urls(Path("/tmp"))
CLASSIC = {"rules": "classic-11"}  # solved in about a second: the first analysis does not wait long


@pytest.fixture(params=URLS)
def client(request, tmp_path):
    url = (
        request.param.replace("/tmp/", f"{tmp_path}/")
        if request.param.startswith("sqlite")
        else request.param
    )
    with serving(url) as c:
        yield c


@pytest.fixture
def quick(tmp_path):
    """One server on SQLite, which takes the moves of two players and a spectator as fast as a test
    sends them (what is stored is the business of the tests above, on both databases)."""
    seeds = (f"test-table-{i}" for i in itertools.count())
    app = create_app(
        f"sqlite:///{tmp_path}/s.db", bot_delay=0, seeds=seeds, limits=Limits(messages_per_second=1000)
    )
    with TestClient(app) as client:
        yield client


def refusal(answer: Any) -> tuple[int, str, str]:
    detail = answer.json()["detail"]
    return answer.status_code, detail["error"], detail["message"]


def test_a_finished_game_is_analysed_as_421_analyse_does_and_an_unfinished_one_is_refused(
    client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = create(client, **CLASSIC)
    code, token = created["code"], created["token"]
    assert refusal(client.get(f"/api/tables/{code}/analysis")) == (
        409,
        "not_over",
        "a game is analysed once it is over",
    )
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        ws.receive_json()
        start(client, code, token)
        assert refusal(client.get(f"/api/tables/{code}/analysis"))[:2] == (409, "not_over")
        play_to_the_end(ws)  # every message a table message: no hints at a table without them
    hints = client.app.state.hints
    assert not client.get(f"/api/tables/{code}").json()["hints"]
    assert not hints.analyst.started  # a game without hints costs no analysis

    answer = client.get(f"/api/tables/{code}/analysis")
    assert answer.status_code == 200, answer.text
    found = answer.json()
    record = Record.from_dict(client.get(f"/api/tables/{code}/record").json())
    assert found == analyse(record).to_dict()  # the JSON of 421 analyse --json, as it is
    assert found["method"] == "heads_up" and found["decisions"]
    assert {d["player"] for d in found["decisions"]} == {"Alice"}
    with_bots = client.get(f"/api/tables/{code}/analysis", params={"bots": "true"}).json()
    assert with_bots == analyse(record, bots=True).to_dict()
    assert {d["player"] for d in with_bots["decisions"]} == {"Alice", "Heuristic 1"}

    game_id = client.get("/api/games").json()[0]["id"]
    # the record's key, of every request (the answer kept), worked out off the event loop: 100 ms
    # of it a request for a game of 125,000 steps
    import threading

    import py421.server.analyst as analyst_module

    keyed_in: list[int] = []
    real_key = analyst_module.record_key

    def noted(*args: Any) -> str:
        keyed_in.append(threading.get_ident())
        return real_key(*args)

    monkeypatch.setattr(analyst_module, "record_key", noted)
    assert client.get(f"/api/games/{game_id}/analysis").json() == found
    assert keyed_in and client.portal is not None
    assert client.portal.call(threading.get_ident) not in keyed_in
    assert refusal(client.get("/api/games/999999/analysis"))[:2] == (404, "no_game")
    assert refusal(client.get("/api/tables/ZZZZZ/analysis"))[:2] == (404, "no_table")


def test_a_known_blunder_of_the_history_is_flagged_with_the_solver_s_cost(quick):
    """Stopping on 221 with a throw left against 654: the cost 421 advise gives that position."""
    rules = Ruleset.preset("classic-11")
    game = scripted(rules, ["Ana", "Bob"], BLUNDER)
    play_out(game, [make_bot("heuristic", "a"), make_bot("heuristic", "b")], SeededDice(7))
    game_id = quick.app.state.hub.history.add(game, source="play")

    found = quick.get(f"/api/games/{game_id}/analysis").json()
    (blunder,) = [d for d in found["decisions"] if d["step"] == BLUNDER_STEP]
    cost, stop_value = solver_cost()
    assert (blunder["player"], blunder["dice"], blunder["before"]) == ("Bob", "221", ["654"])
    assert (blunder["chosen"], blunder["best"]) == ("stop", "keep 21")
    assert blunder["cost"] == pytest.approx(cost, abs=1e-12)
    assert blunder["chosen_value"] == pytest.approx(stop_value, abs=1e-12)


def read_until(ws: Any, wanted: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The first message ``wanted`` accepts, and every message read before it."""
    seen: list[dict[str, Any]] = []
    while True:
        message: dict[str, Any] = ws.receive_json()
        if wanted(message):
            return message, seen
        seen.append(message)


def table_at(ws: Any, version: int) -> dict[str, Any]:
    """The table message of ``version``; every message before it a table message too: no hints."""
    message, seen = read_until(ws, lambda m: m["type"] == "table" and m["version"] == version)
    assert [m["type"] for m in seen if m["type"] != "table"] == []
    return message


def test_hints_go_to_the_player_to_move_only_and_rank_as_the_analysis(quick):
    client = quick
    created = create(client, **CLASSIC, seats=["human", "human"], hints=True)
    code, alice = created["code"], created["token"]
    bob = client.post(f"/api/tables/{code}/join", json={"name": "Bob"}).json()["token"]
    assert client.get(f"/api/tables/{code}").json()["hints"] is True  # everyone sees they are on
    rng = random.Random(3)
    hinted: dict[int, list[dict[str, Any]]] = {}  # version -> the choices sent
    with (
        client.websocket_connect(f"/ws/{code}?token={alice}") as a,
        client.websocket_connect(f"/ws/{code}?token={bob}") as b,
        client.websocket_connect(f"/ws/{code}") as watcher,
    ):
        start(client, code, alice)
        sockets = (a, b)
        while True:
            table, seen = read_until(a, lambda m: m["type"] == "table" and m["view"] is not None)
            assert [m for m in seen if m["type"] != "table"] == []
            view, version = table["view"], table["version"]
            assert table["table"]["hints"] is True
            if view["outcome"] is not None:
                break
            waiting = view["waiting_for"]
            if waiting is None or waiting["step"] != "decision":
                continue
            mover = waiting["seat"]
            for ws in (b, watcher):  # the same message; any hints sent to them before it would show
                message = table_at(ws, version)
                if ws is sockets[mover]:
                    view = message["view"]
            hint, before = read_until(sockets[mover], lambda m: m["type"] == "hints")
            assert before == []
            assert (hint["version"], hint["seat"]) == (version, mover) and view["your_turn"]
            values = [c["value"] for c in hint["choices"]]
            assert values == sorted(values, reverse=True)
            assert {c["action"] for c in hint["choices"]} == {x["text"] for x in view["legal_actions"]}
            hinted[version] = hint["choices"]
            move = rng.choice(view["legal_actions"])["text"]
            sockets[mover].send_json({"type": "act", "version": version, "action": move})
        for ws in (b, watcher):  # nobody was sent a hint for another's decision
            assert table_at(ws, version)["view"]["outcome"] is not None
    assert len(hinted) > 5
    found = client.get(f"/api/tables/{code}/analysis").json()
    decisions = {d["step"]: d["choices"] for d in found["decisions"]}
    assert decisions == {version + 1: choices for version, choices in hinted.items()}


@pytest.mark.parametrize(
    ("request_", "expected"),
    [
        (
            {"mode": "scorekeeper", "players": ["Ann", "Bob"]},
            (400, "malformed", "hints: for tables played online"),
        ),
        ({"seats": ["human", *["bot:heuristic"] * 8]}, (422, "no_analysis", "cannot be analysed")),
    ],
    ids=["scorekeeper", "rules-no-solver-covers"],
)
def test_a_table_with_hints_the_server_cannot_give_is_refused_saying_why(
    quick, request_, expected, unshipped
):
    client = quick
    body = {
        "rules": "classic-11",
        "seats": ["human", "bot:heuristic"],
        "name": "Alice",
        "hints": True,
    } | request_
    answer = client.post("/api/tables", json=body)
    status, error, message = refusal(answer)
    assert (status, error) == expected[:2] and expected[2] in message
    assert not client.app.state.hub.tables  # nothing kept


def test_a_whole_game_not_solved_here_is_hinted_and_analysed_round_by_round(quick):
    """A game of three to five whose whole game the server has not solved: « Analyse the game » led
    only to a message for whoever runs the server (solve it as the server's user), and a table with
    hints was refused. Its decisions are now valued round by round, as bot:optimal plays such a
    table, and the analysis says so (its method)."""
    seats = ["human", "bot:heuristic", "bot:heuristic"]
    body = {"rules": "classic-11", "settings": ["pot=9"], "seats": seats, "name": "Alice"}  # not shipped
    hinted = quick.post("/api/tables", json=body | {"hints": True})
    assert hinted.status_code == 200, hinted.text
    code = played_out(quick, **body)["table"]["code"]
    answer = quick.get(f"/api/tables/{code}/analysis")
    assert answer.status_code == 200, answer.text
    found = answer.json()
    record = Record.from_dict(quick.get(f"/api/tables/{code}/record").json())
    assert found["method"] == "rounds" and found["decisions"]
    assert found == analyse(record, solve=False).to_dict()


def solving_forever(conn: Any, memory_mb: int) -> None:
    """An analysis worker whose every solve outlasts any budget, whatever the machine's speed:
    it takes each request and never answers."""
    from py421.server.worker import Ready

    conn.send(Ready())  # set up, as every worker says
    while True:
        conn.recv()


def test_rules_that_take_longer_than_the_budget_to_solve_are_refused_and_the_server_goes_on(
    tmp_path, monkeypatch
):
    monkeypatch.setattr("py421.server.analyst._serve", solving_forever)
    app = create_app(f"sqlite:///{tmp_path}/s.db", bot_delay=0, budget=Budget(seconds=0.5))
    with TestClient(app) as client:
        body = {"rules": "classic-11", "seats": ["human", "bot:heuristic"], "name": "Alice", "hints": True}
        status, error, message = refusal(client.post("/api/tables", json=body))
        assert (status, error) == (503, "analysis_too_costly") and "budget of 0.5 s" in message
        assert client.post("/api/tables", json=body | {"hints": False}).status_code == 200


def test_a_table_keeps_its_hints_when_the_server_restarts(tmp_path):
    url = f"sqlite:///{tmp_path}/s.db"
    body = {"rules": "classic-11", "seats": ["human", "bot:heuristic"], "name": "Alice", "hints": True}
    seeds = iter(["test-table-0"])  # dice that leave Alice decisions to make (random ones may not)
    with TestClient(create_app(url, bot_delay=0, seeds=seeds)) as before:
        created = before.post("/api/tables", json=body).json()
    code, token = created["code"], created["token"]
    with TestClient(create_app(url, bot_delay=0)) as after:
        assert after.get(f"/api/tables/{code}").json()["hints"] is True
        with after.websocket_connect(f"/ws/{code}?token={token}") as ws:
            start(after, code, token)
            hint, _ = read_until(ws, lambda m: m["type"] == "hints")
            assert hint["seat"] == 0 and hint["choices"]


def hints_asked(client: TestClient, failing: Callable[[int], str | None]) -> list[Any]:
    """The hints asked of the analysis worker from now on; ask ``n`` (from 0) answered at once
    with the status ``failing(n)`` instead (``"busy"``, ``"timeout"``…) unless that is None."""
    worker = client.app.state.hints.analyst.hinter  # type: ignore[attr-defined]
    call = worker.call
    asked: list[Any] = []

    def answering(request: Any, seconds: float, *, cancel: bool) -> Any:
        if isinstance(request, HintAt):
            asked.append(request)
            status = failing(len(asked) - 1)
            if status is not None:
                return Failed(status)  # type: ignore[arg-type]
        return call(request, seconds, cancel=cancel)

    worker.call = answering
    return asked


def test_a_hint_the_worker_could_not_give_in_time_comes_when_it_can(quick):
    """The analysis worker still busy with a decision given up on (or slow to load the solution)
    when a person is to move: their hints come a moment later, not only after the next move."""
    asked = hints_asked(quick, lambda n: "busy" if n == 0 else None)
    created = create(quick, **CLASSIC, seats=["human", "bot:heuristic"], hints=True)
    code, alice = created["code"], created["token"]
    with quick.websocket_connect(f"/ws/{code}?token={alice}") as ws:
        start(quick, code, alice)
        table, _ = read_until(ws, lambda m: m["type"] == "table" and (m["view"] or {}).get("your_turn"))
        hint, before = read_until(ws, lambda m: m["type"] == "hints")
    assert len(asked) >= 2  # the first answer was "busy" (and the worker may be busy readying itself)
    assert hint["version"] == table["version"] and before == []  # the same decision, nothing moved


def test_hints_the_worker_fails_on_each_time_are_asked_for_a_few_times_only(quick, monkeypatch):
    """A hint that takes the worker longer than its budget every time is not asked for again and
    again while the player thinks: each ask holds the worker (and every other table's hints)."""
    monkeypatch.setattr(hints_module, "RETRY_SECONDS", 0.05)
    asked = hints_asked(quick, lambda n: "timeout")
    created = create(quick, **CLASSIC, seats=["human", "bot:heuristic"], hints=True)
    code, alice = created["code"], created["token"]
    with quick.websocket_connect(f"/ws/{code}?token={alice}") as ws:
        start(quick, code, alice)
        read_until(ws, lambda m: m["type"] == "table" and (m["view"] or {}).get("your_turn"))
        deadline = time.monotonic() + 30
        while len(asked) < hints_module.TRIES and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.5)  # ten more pauses between asks: none is made
    assert len(asked) == hints_module.TRIES


def test_the_page_is_told_how_long_a_table_will_take_to_solve_before_it_is_made(quick, unshipped):
    """``POST /api/tables/estimate``: what creating the table would spend solving its rules (hints,
    an optimal seat) by the server's estimate; nothing once solved here, nothing for a table that
    needs no solve, and nothing made by asking."""
    client = quick
    body = {"rules": "classic-11", "seats": ["human", "bot:heuristic"], "name": "Alice"}

    def seconds(**changes: Any) -> float:
        answer = client.post("/api/tables/estimate", json=body | changes)
        assert answer.status_code == 200, answer.text
        return float(answer.json()["seconds"])

    assert seconds() == 0  # no hints, no optimal seat: made at once
    assert seconds(hints=True) > 0  # the two-player game, not shipped here: solved first
    assert seconds(seats=["human", "bot:optimal"], settings=["pot=9"]) > 0
    assert not client.app.state.hub.tables  # asking made nothing
    assert client.post("/api/tables", json=body | {"hints": True}).status_code == 200
    assert seconds(hints=True) == 0  # solved now: the next table is made at once


@pytest.mark.parametrize(
    ("changes", "status", "error"),
    [
        (
            {"seats": ["human", "bot:optimal"], "settings": ["pot=200"], "hints": True},
            503,
            "analysis_too_costly",
        ),
        ({"seats": ["human", "bot:optimal"], "settings": ["pot=200"]}, 400, "optimal_too_costly"),
        ({"rules": "no-such-rules", "hints": True}, 400, "bad_rules"),
        ({"seats": ["bot:heuristic", "human"]}, 400, "bad_seats"),
    ],
)
def test_an_estimate_is_refused_as_creating_that_table_is(quick, changes, status, error):
    """An estimate once answered 0 s (or the optimal seat's wait alone) for a table whose creation is
    refused: it is refused the same way, before and after the table was asked for."""
    body = {"rules": "classic-11", "seats": ["human", "bot:heuristic"], "name": "Alice"} | changes
    before = refusal(quick.post("/api/tables/estimate", json=body))
    created = refusal(quick.post("/api/tables", json=body))
    assert created[:2] == (status, error)
    assert before == created == refusal(quick.post("/api/tables/estimate", json=body))
    assert not quick.app.state.hub.tables


def test_rules_beyond_the_budget_are_refused_with_the_seconds_the_estimate_gives(tmp_path):
    """The estimate and the refusal are one figure: what a server estimates, a server whose budget
    is half of it refuses, naming that many seconds."""
    body = {"seats": ["human", "bot:heuristic"], "settings": ["pot=31"], "hints": True, "name": "Alice"}
    with TestClient(create_app(f"sqlite:///{tmp_path}/a.db", bot_delay=0)) as client:
        seconds = client.post("/api/tables/estimate", json=body).json()["seconds"]
    assert seconds > 1
    budget = Budget(seconds=seconds / 2)
    with TestClient(create_app(f"sqlite:///{tmp_path}/b.db", bot_delay=0, budget=budget)) as client:
        estimate = refusal(client.post("/api/tables/estimate", json=body))
        created = refusal(client.post("/api/tables", json=body))
    assert estimate == created
    assert created[:2] == (503, "analysis_too_costly")
    assert f"about {round(seconds)} s by estimate" in created[2]


def test_asking_for_estimates_in_a_flood_is_refused_like_a_flood_of_messages(tmp_path, monkeypatch):
    """Each estimate asks the solver's cost: an address spends its message budget on them (a burst
    of twice the rate a second; the caps' clock stopped, so none comes back meanwhile)."""
    monkeypatch.setattr("py421.server.limits.time", SimpleNamespace(monotonic=lambda: 1000.0))
    app = create_app(f"sqlite:///{tmp_path}/s.db", bot_delay=0, limits=Limits(messages_per_second=2))
    body = {"rules": "classic-11", "seats": ["human", "bot:heuristic"], "name": "Alice", "hints": True}
    with TestClient(app) as client:
        codes = [client.post("/api/tables/estimate", json=body).status_code for _ in range(6)]
        refused = client.post("/api/tables/estimate", json=body)
    assert codes == [200] * 4 + [429] * 2
    assert refused.json()["detail"]["error"] == "rate_limited" and "messages a second" in refused.text
