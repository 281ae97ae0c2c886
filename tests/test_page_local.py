"""The tables a phone plays on its own (py421.page.local), in CPython: what the page's worker runs."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from py421.core.record import Record
from py421.page.handler import handle
from py421.page.local import LocalTables
from py421.server import protocol as p


def create(tables: LocalTables, lang: str = "en", **body: object) -> str:
    status, data, saves = tables.request("POST", "/api/tables", body, lang)
    assert status == 200, data
    assert p.Created.model_validate(data)
    assert [s["code"] for s in saves] == [data["code"]]  # kept at once
    return str(data["code"])


def server_shaped(message: dict[str, Any]) -> dict[str, Any]:
    """The message as the server's protocol has it: ``waiting`` is the link's own (it paces the bots)."""
    return {k: v for k, v in message.items() if k != "waiting"}


def play_out(tables: LocalTables, code: str, lang: str = "en") -> dict[str, Any]:
    """Plays the game to its end: the person to move takes their first legal action."""
    message, _ = tables.receive(code, {"type": "look"}, lang)
    for _ in range(5000):
        assert message["type"] == "table", message
        p.TableMessage.model_validate(server_shaped(message))
        if message["waiting"] == "over":
            return message
        if message["waiting"] == "bot":
            message, saves = tables.receive(code, {"type": "advance"}, lang)
        else:
            view = message["view"]
            assert view["your_turn"], view  # the device shows whoever is to move
            action = view["legal_actions"][0]
            message, saves = tables.receive(
                code, {"type": "act", "version": message["version"], "action": action}, lang
            )
        assert saves and saves[0]["code"] == code  # every step kept
    raise AssertionError("the game did not end")


def test_a_game_against_bots_plays_to_the_end_in_the_servers_shapes():
    tables = LocalTables()
    code = create(tables, players=["Ana", "bot:heuristic", "bot:random"])
    assert code.startswith("local-")
    status, public, _ = tables.request("GET", f"/api/tables/{code}", None)
    assert status == 200 and p.TablePublic.model_validate(public)
    assert [s["kind"] for s in public["seats"]] == ["human", "bot", "bot"]
    last = play_out(tables, code)
    assert last["table"]["status"] == "over"
    assert last["log"][-1].startswith("game over")
    assert last["table"]["seed"]  # told once the game is over


# Three throws in the charge: every person decides from their first turn (with coups secs, the dice
# alone may end a game before anyone chooses).
UNDER_WAY = ["charge_throws=3"]


@pytest.mark.parametrize("seed", [1736, 7])
def test_hot_seat_shows_each_person_their_own_turn(seed):
    """Whoever moves throws again while they may, so the one after them has throws to decide on.

    Seed 1736: the leader who stops at once sets a limit of one throw, and the other never decides.
    """
    tables = LocalTables()
    code = create(tables, players=["Ana", "Bob"], settings=UNDER_WAY, seed=seed)
    seen = set()
    message, _ = tables.receive(code, {"type": "look"})
    while message["waiting"] != "over":
        view = message["view"]
        seen.add(view["seat"])
        assert view["waiting_for"]["seat"] == view["seat"]
        throws = [a for a in view["legal_actions"] if a["kind"] != "stop"]
        action = (throws or view["legal_actions"])[0]
        message, _ = tables.receive(code, {"type": "act", "version": message["version"], "action": action})
    assert seen == {0, 1}


def test_the_same_seed_plays_the_same_game_as_421_play(tmp_path):
    """Bots only, seed 5: the steps of the page's game are those 421 play records."""
    tables = LocalTables()
    code = create(tables, players=["bot:heuristic", "bot:random"], seed=5, settings=["pot=5"])
    play_out(tables, code)
    status, record, _ = tables.request("GET", f"/api/tables/{code}/record", None)
    assert status == 200
    out = tmp_path / "game.json"
    env = {"PY421_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    subprocess.run(
        [sys.executable, "-m", "py421", "play", "--players", "bot:heuristic,bot:random", "--set", "pot=5",
         "--seed", "5", "--record", str(out)],
        input="", capture_output=True, text=True, timeout=120, env=env, check=True,
    )  # fmt: skip
    played = json.loads(out.read_text())
    assert record["steps"] == played["steps"]
    assert record["players"] == played["players"]
    assert Record.from_dict(record).steps  # what 421 replay and 421 analyse read


def test_the_scorekeeper_takes_reports_and_undoes_them():
    tables = LocalTables()
    code = create(tables, mode="scorekeeper", players=["Ana", "Bob"], lang="fr")
    message, _ = tables.receive(code, {"type": "look"}, "fr")
    version = message["version"]
    message, saves = tables.receive(code, {"type": "report", "version": version, "turn": "421"}, "fr")
    assert message["type"] == "table" and message["version"] > version and saves
    assert any("421" in line for line in message["log"])
    refused, saves = tables.receive(
        code, {"type": "report", "version": message["version"], "turn": "7"}, "fr"
    )
    assert refused["type"] == "error" and refused["error"] == "illegal" and not saves
    assert "6" in refused["message"]  # says what a die shows, in French
    undone, _ = tables.receive(code, {"type": "undo"}, "fr")
    assert undone["version"] == version
    assert not any("421" in line for line in undone["log"])


def test_the_scorekeeper_on_this_phone_takes_the_stake_as_the_servers_does():
    """On the phone alone, `v` at the « main chaude » prompt (which its help line offers) was refused
    with every action there is, half in English."""
    tables = LocalTables()
    code = create(tables, mode="scorekeeper", rules="engranjeu-21", players=["Ana", "Bob"], lang="fr")
    message, _ = tables.receive(code, {"type": "look"}, "fr")
    for turn in ("654", "654", "653", "653"):  # a tie, then a tie-break that ties again
        message, _ = tables.receive(
            code, {"type": "report", "version": message["version"], "turn": turn}, "fr"
        )
    version = message["version"]
    refused, saves = tables.receive(code, {"type": "report", "version": version, "turn": "x"}, "fr")
    assert refused["type"] == "error" and not saves
    assert "e ou est" in refused["message"] and "keep DICE" not in refused["message"], refused
    chosen, saves = tables.receive(code, {"type": "report", "version": version, "turn": "v"}, "fr")
    assert chosen["type"] == "table" and chosen["version"] == version + 1 and saves, chosen


def test_a_table_kept_mid_game_comes_back_as_it_was():
    tables = LocalTables()
    code = create(tables, players=["Ana", "bot:heuristic"], seed=3)
    message, saves = tables.receive(code, {"type": "look"})
    for _ in range(3):
        if message["waiting"] == "bot":
            message, saves = tables.receive(code, {"type": "advance"})
        else:
            action = message["view"]["legal_actions"][-1]
            message, saves = tables.receive(
                code, {"type": "act", "version": message["version"], "action": action}
            )
    kept = json.loads(json.dumps(saves))  # as IndexedDB gives it back
    again = LocalTables()
    assert again.restore([*kept, {"kind": "something else"}]) == [
        "not a table kept by the page (no kind 'py421-local-table')"
    ]
    back, _ = again.receive(code, {"type": "look"})
    assert back == message
    assert play_out(again, code)["table"]["status"] == "over"


@pytest.mark.parametrize(
    ("body", "error", "said"),
    [
        (
            {"players": ["Ana", "bot:optimal"]},
            "bad_seats",
            "bot:optimal plays only at a server's tables; on this phone: bot:random, bot:heuristic",
        ),
        ({"players": ["Ana", "ana"]}, "name_taken", "two players have the same name"),
        ({"players": ["Ana"]}, "bad_seats", "classic-11 is played by 2 or more players, not 1"),
        ({"players": ["Ana", "Bob"], "rules": "classic-12"}, "bad_rules", "classic-11"),
        ({"players": ["Ana", "Bob"], "settings": ["pot=0"]}, "bad_rules", "pot"),
        ({"mode": "scorekeeper", "players": ["Ana", "bot:random"]}, "bad_seats", "people at the real table"),
        ({"seats": ["human", "bot:random"], "name": "bot:heuristic"}, "bad_seats", "kept for the bots"),
        ({"mode": "online"}, "malformed", "mode: play or scorekeeper, not 'online'"),
        ({"players": ["Ana", "Bob"], "seed": [1]}, "malformed", "seed: a number or a text"),
    ],
)
def test_a_refused_table_says_what_is_accepted_and_keeps_nothing(body, error, said):
    tables = LocalTables()
    status, data, saves = tables.request("POST", "/api/tables", body)
    assert status == 400 and saves == [] and tables.tables == {}
    assert data["detail"]["error"] == error
    assert said in data["detail"]["message"]


def test_refused_moves_say_why_and_change_nothing():
    tables = LocalTables()
    code = create(tables, players=["Ana", "Bob"], settings=UNDER_WAY)
    message, _ = tables.receive(code, {"type": "look"})
    version = message["version"]
    for sent, error in [
        ({"type": "act", "version": version - 1, "action": {"kind": "stop"}}, "stale"),
        ({"type": "act", "version": version, "action": {"kind": "throw", "keep": [9]}}, "illegal"),
        ({"type": "report", "version": version, "turn": "421"}, "unknown_type"),
        ({"type": "dance"}, "unknown_type"),
        ("not an object", "unknown_type"),
    ]:
        answer, saves = tables.receive(code, sent)
        assert answer["type"] == "error" and answer["error"] == error, (sent, answer)
        assert saves == []
    assert tables.receive(code, {"type": "look"})[0] == message
    gone, _ = tables.receive("local-nothere", {"type": "look"})
    assert gone["error"] == "not_found"


def test_the_players_of_the_finished_games_are_counted_by_rules():
    tables = LocalTables()
    for seed in range(3):
        play_out(tables, create(tables, players=["Ana", "bot:random"], seed=seed))
    # unfinished, a person to decide (with coups secs, seed 370 ends it as it is made): counts for nobody
    create(tables, players=["Ana", "Bob"], settings=UNDER_WAY)
    status, rows, _ = tables.request("GET", "/api/leaderboard?rules=classic-11", None)
    assert status == 200
    assert [p.PlayerStats.model_validate(row).name for row in rows] == ["Ana", "Random 1"]
    assert [row["games"] for row in rows] == [3, 3]
    assert sum(row["losses"] for row in rows) >= 3  # every game has a loser
    assert rows[0]["loss_rate"] == rows[0]["losses"] / 3
    assert tables.request("GET", "/api/leaderboard?rules=tim", None)[1] == []
    assert tables.request("GET", "/api/leaderboard", None)[1] == rows


def test_a_rematch_is_a_new_table_kept_with_the_old_one():
    tables = LocalTables()
    code = create(tables, players=["Ana", "bot:random"], settings=UNDER_WAY)
    status, data, _ = tables.request("POST", f"/api/tables/{code}/rematch", None)
    assert status == 400 and data["detail"]["error"] == "not_over"
    play_out(tables, code)
    status, data, saves = tables.request("POST", f"/api/tables/{code}/rematch", None)
    assert status == 200 and data["code"] != code
    assert {s["code"] for s in saves} == {code, data["code"]}
    assert tables.request("POST", f"/api/tables/{code}/rematch", None)[1] == data  # the same one again


def test_the_worker_answers_json_and_refuses_what_is_not_a_request():
    answer = json.loads(
        handle(json.dumps({"op": "http", "method": "GET", "path": "/api/presets", "lang": "fr"}))
    )
    assert answer["status"] == 200
    names = [p.Preset.model_validate(preset).name for preset in answer["data"]]
    assert "classic-11" in names and "vache-41" in names
    assert json.loads(handle("[")) == {"error": "a request is a JSON object with an 'op'"}
    assert json.loads(handle(json.dumps({"op": "fly"}))) == {
        "error": "op: http, socket, restore or forget, not 'fly'"
    }
    missing = json.loads(handle(json.dumps({"op": "http", "method": "GET", "path": "/api/games"})))
    assert (
        missing["status"] == 404
        and "not a request this page answers offline" in missing["data"]["detail"]["message"]
    )


def test_a_game_forgotten_leaves_the_phones_tables_and_its_players_counts():
    """Kept games could not be deleted, and every one is replayed when the page starts: 500 of them
    made the page wait ten seconds."""
    tables = LocalTables()
    _, made, _ = tables.request("POST", "/api/tables", {"players": ["Ana", "bot:random"], "seed": 3})
    code = made["code"]
    while tables.table(code).status != "over":
        tables.receive(code, {"type": "advance"})
        if tables.table(code).session.human_to_move() is not None:
            version = tables.table(code).version
            tables.receive(code, {"type": "act", "version": version, "action": "stop"})
    assert [row["name"] for row in tables.leaderboard()] == ["Ana", "Random 1"]
    assert json.loads(handle(json.dumps({"op": "forget", "code": "local-00000000"}))) == {"forgotten": False}
    assert tables.forget(code) and code not in tables.tables
    assert tables.leaderboard() == []
    status, data, _ = tables.request("GET", f"/api/tables/{code}", None)
    assert status == 404 and data["detail"]["error"] == "not_found"


def imported(tables: LocalTables, text: str, lang: str = "en") -> tuple[int, dict[str, Any]]:
    status, data, saves = tables.request("POST", "/api/tables/import", {"record": text}, lang)
    if status == 200:
        assert [s["code"] for s in saves] == [data["code"]]  # kept, as a game made here is
    else:
        assert saves == []
    return status, data


def test_a_record_imported_is_watched_step_by_step_and_takes_no_moves():
    played = LocalTables()
    code = create(played, players=["Ana", "bot:heuristic"], seed=7, settings=UNDER_WAY)
    end = play_out(played, code)
    record = played.request("GET", f"/api/tables/{code}/record", None)[1]
    tables = LocalTables()
    status, data = imported(tables, Record.from_dict(record).to_json())  # the file 421 replay reads
    assert status == 200
    replay = data["code"]
    first, _ = tables.receive(replay, {"type": "look"})
    p.TableMessage.model_validate(server_shaped(first))
    steps = len(record["steps"])
    assert first["replay"] == {"step": 0, "steps": steps}
    assert first["table"]["mode"] == "replay" and first["table"]["status"] == "playing"
    assert first["view"]["seat"] is None and first["view"]["outcome"] is None  # watched, from no seat
    middle, saves = tables.receive(replay, {"type": "look", "step": steps // 2})
    assert middle["replay"]["step"] == steps // 2 and saves == []
    lines = lambda message: message["log_start"] + len(message["log"])  # noqa: E731
    assert lines(first) < lines(middle)  # the log as far as the step shown
    last, _ = tables.receive(replay, {"type": "look", "step": steps})
    assert last["table"]["status"] == "over" and last["table"]["seed"] is None  # its dice are the record's
    assert last["view"]["outcome"] == end["view"]["outcome"]
    assert last["log"] == end["log"]
    for sent in (
        {"type": "act", "version": last["version"], "action": "stop"},
        {"type": "advance"},
        {"type": "undo"},
    ):
        refused, saves = tables.receive(replay, sent)
        assert refused["error"] == "over" and "takes no moves" in refused["message"] and saves == []
    for step in (-1, steps + 1, "3", True):
        refused, _ = tables.receive(replay, {"type": "look", "step": step})
        assert refused["error"] == "malformed" and f"from 0 to {steps}" in refused["message"]
    assert tables.request("GET", "/api/leaderboard", None)[1] == []  # a game played elsewhere
    status, refused, saves = tables.request("POST", f"/api/tables/{replay}/rematch", None)
    assert status == 400 and "has no rematch" in refused["detail"]["message"] and saves == []
    again = LocalTables()  # a reload: kept, and shown from the start again
    assert again.restore([tables.table(replay).save()]) == []
    assert again.receive(replay, {"type": "look"})[0]["replay"]["step"] == 0


@pytest.mark.parametrize(
    ("text", "lang", "said"),
    [
        ("{not json", "en", "not a JSON game record"),
        ('{"format": "chess"}', "fr", "pas un enregistrement de partie py421"),
        ('{"format": "py421-record"}', "en", 'the record has no "version"'),
    ],
)
def test_a_file_that_is_not_a_record_is_refused_with_the_reason_in_the_pages_language(text, lang, said):
    tables = LocalTables()
    status, data = imported(tables, text, lang)
    assert status == 400 and data["detail"]["error"] == "malformed" and tables.tables == {}
    assert said in data["said"] and data["lang"] == lang, data


def test_a_record_whose_steps_do_not_replay_is_refused_and_says_which():
    played = LocalTables()
    code = create(played, players=["bot:heuristic", "bot:random"], seed=2, settings=["pot=3"])
    play_out(played, code)
    record = played.request("GET", f"/api/tables/{code}/record", None)[1]
    record["steps"][1]["seat"] = 1 - record["steps"][1]["seat"]
    tables = LocalTables()
    status, data = imported(tables, json.dumps(record))
    assert status == 400 and "step 2" in data["said"], data
    status, data = imported(tables, "x" * 5_000_001)
    assert status == 400 and data["detail"]["error"] == "too_large"


def test_kept_games_are_read_when_opened_and_counted_from_their_saves(monkeypatch):
    """The page replayed every kept game as it started: 500 of them made it wait ten seconds before
    anything, a new game too. A kept game is read when it is opened, and a finished one counts for
    its players from its save; a save from before (no counts) is read once and kept again with them."""
    tables = LocalTables()
    finished = []
    for seed in range(3):
        finished.append(create(tables, players=["Ana", "bot:random"], seed=seed))
        play_out(tables, finished[-1])
    under_way = create(tables, players=["Ana", "Bob"], settings=UNDER_WAY)
    counts = tables.leaderboard()
    kept = json.loads(json.dumps([tables.table(code).save() for code in [*finished, under_way]]))
    del kept[0]["stats"]  # kept by an earlier page
    from py421.play.session import Session

    read: list[str] = []
    real = Session.from_save

    def counted(data: Any) -> Session:
        read.append(data["code"])
        return real(data)

    monkeypatch.setattr(Session, "from_save", counted)
    again = LocalTables()
    assert again.restore(kept) == []
    assert read == []  # nothing replayed as the page starts
    status, rows, saves = again.request("GET", "/api/leaderboard", None)
    assert (status, rows) == (200, counts)
    assert read == [finished[0]]  # the one save without its counts, alone
    assert [s["code"] for s in saves] == [finished[0]] and "stats" in saves[0]  # kept again, with them
    look, _ = again.receive(under_way, {"type": "look"})
    assert look["table"]["status"] == "playing" and read == [finished[0], under_way]
    assert again.leaderboard() == counts and len(read) == 2


def test_a_kept_game_that_cannot_be_read_says_so_when_opened():
    tables = LocalTables()
    code = create(tables, players=["Ana", "bot:random"], seed=1)
    spoilt = tables.table(code).save()
    spoilt["record"]["steps"] = ["not a step"]
    again = LocalTables()
    assert again.restore([spoilt]) == []
    said, _ = again.receive(code, {"type": "look"})
    assert said["type"] == "error" and said["error"] == "not_found"
    assert f"the game {code} kept on this phone cannot be read" in said["message"], said
    status, data, _ = again.request("GET", f"/api/tables/{code}", None, "fr")
    assert status == 404 and "ne peut pas être lue" in data["said"], data
    assert again.leaderboard() == []  # counted for nobody
