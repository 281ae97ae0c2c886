import json

import pytest

from py421.core.views import seat_view

from .helpers import run, table


def test_only_the_deciding_seat_sees_its_actions():
    game = table("vache-41")
    run(game, "653")
    mine, theirs, spectator = (seat_view(game.state, s) for s in (0, 1, None))
    assert mine["your_turn"] is True
    legal = mine["legal_actions"]
    assert {"kind": "throw", "keep": [6, 5], "bon": False, "stake": None, "text": "keep 65"} in legal
    assert {"kind": "throw", "keep": [6, 5], "bon": True, "stake": None, "text": "bon 65"} in legal
    assert {"kind": "stop", "keep": [], "bon": False, "stake": None, "text": "stop"} in legal
    assert theirs["your_turn"] is False
    assert theirs["legal_actions"] == []
    assert spectator["legal_actions"] == []
    assert mine["waiting_for"] == {"seat": 0, "step": "decision"}
    assert mine["round"]["dice"] == "653"
    assert mine["round"]["throws_allowed"] == 3


def test_a_view_shows_the_table_and_is_json():
    game = table("classic-11", "Ana", "Bob")
    run(game, "421 | 653")
    view = seat_view(game.state, 1)
    assert [(p["name"], p["tokens"]) for p in view["players"]] == [("Ana", 0), ("Bob", 8)]
    assert view["pot"] == 3
    assert view["waiting_for"]["step"] == "dice"
    assert json.loads(json.dumps(view)) == view


def test_a_view_of_a_missing_seat_is_refused():
    with pytest.raises(ValueError, match="seat 5 does not exist"):
        seat_view(table("tim").state, 5)
