import json
from typing import Any

import pytest

from py421.core.chance import SeededDice
from py421.core.errors import IllegalAction, InvalidRecord
from py421.core.game import Game
from py421.core.record import Record
from py421.core.rules import Ruleset
from py421.i18n import error_text
from py421.players import RandomBot
from py421.sim.loop import play_out

from .helpers import run, table


def finished_game(preset="classic-11", seed=3):
    rules = Ruleset.preset(preset)
    return play_out(Game(rules, ["Ana", "Bob", "Céline"]), [RandomBot(seed)] * 3, SeededDice(seed))


def test_a_record_holds_rules_players_and_every_step():
    game = finished_game()
    data = json.loads(game.record({"seed": 3}).to_json())
    assert data["format"] == "py421-record"
    assert data["version"] == 1
    assert data["rules"]["name"] == "classic-11"
    assert data["rules"]["options"]["pot"] == 11
    assert data["players"] == ["Ana", "Bob", "Céline"]
    assert len(data["steps"]) == game.state.steps
    assert data["final"]["losers"]
    assert data["meta"] == {"seed": 3}


def test_replay_reproduces_the_final_state():
    game = finished_game("engranjeu-21")
    record = Record.from_json(game.record().to_json())
    assert record.replay() == game.state


def test_a_tampered_record_is_refused():
    data = json.loads(finished_game().record().to_json())
    first_dice = next(s for s in data["steps"] if "dice" in s)
    first_dice["dice"] = "7"
    with pytest.raises(InvalidRecord, match="does not replay"):
        Record.from_dict(data).replay()


def test_a_record_whose_outcome_differs_is_refused():
    data = json.loads(finished_game().record().to_json())
    data["final"]["losers"] = ["Nobody"]
    with pytest.raises(InvalidRecord, match="does not end as recorded"):
        Record.from_dict(data).replay()


def test_a_step_by_the_wrong_seat_is_refused():
    data = json.loads(finished_game().record().to_json())
    data["steps"][0]["seat"] = (data["steps"][0]["seat"] + 1) % 3
    with pytest.raises(InvalidRecord, match="step 1"):
        Record.from_dict(data).replay()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not a JSON game record"),
        ('{"format": "other"}', "not a py421 game record"),
        ('{"format": "py421-record", "version": 99}', "version 99 is not supported"),
        ('{"format": "py421-record", "version": 1, "players": [], "steps": []}', "no 'rules'"),
    ],
)
def test_unreadable_records_say_why(text, message):
    with pytest.raises(InvalidRecord, match=message):
        Record.from_json(text)


def test_a_game_that_forgot_its_states_gives_them_again_and_undoes_to_the_start():
    """A long finished game's states are most of what it holds: it keeps its last one only, and
    plays the others again from the steps when asked, as they were."""
    game, whole = finished_game(), finished_game()
    states, played = whole.states, whole.played
    game.forget_states()
    assert game.state == whole.state and game.steps == whole.steps
    assert game.since(played - 2) == whole.since(played - 2)
    assert game.states == states
    game.forget_states()
    for n in range(played, 0, -1):  # each undo as the whole game's, back to the start
        assert game.undo() == states[n - 1]
        if n % 7 == 0:
            game.forget_states()
    assert game.state == states[0] and not game.steps


def test_undo_takes_back_the_last_step():
    game = table("classic-11")
    run(game, "421")
    before = game.state
    run(game, "653")
    assert game.state.tokens == (0, 8)
    assert game.undo() == before
    assert len(game.steps) == 1
    game.undo()
    with pytest.raises(IllegalAction, match="nothing to undo"):
        game.undo()


def test_an_illegal_action_changes_nothing():
    game = table("vache-41")
    run(game, "653")
    before = (game.state, game.steps)
    with pytest.raises(IllegalAction, match="4 is not among the dice 653; accepted: stop"):
        game.act("keep 4")
    with pytest.raises(IllegalAction, match="keeping all three dice is stopping"):
        game.act("keep 653")
    with pytest.raises(IllegalAction, match="A must decide"):
        game.throw("421")
    assert (game.state, game.steps) == before


def test_wrong_dice_count_is_refused():
    game = table("vache-41")
    with pytest.raises(IllegalAction, match="A throws 3 dice now, not 2"):
        game.throw("42")
    # one die reported: « not 1 (1) » read as a slip; what was given is named as such
    with pytest.raises(IllegalAction, match=r"A throws 3 dice now, not 1 \(given: 1\)$"):
        game.throw("1")


def test_a_real_table_reports_whole_turns_and_they_replay():
    game = table("classic-11")
    run(game, "421 | 653")  # the charge: coups secs, typed as dice
    game.report_turn("421")  # B leads and wins: A takes the 3 tokens left
    game.report_turn("221")
    assert game.state.phase.value == "decharge"
    game.report_turn("654/2")  # A, holding fewer tokens, leads: B may use two throws
    with pytest.raises(IllegalAction, match="B may use 1 to 2 throws now, not 3"):
        game.report_turn("421/3")
    state = game.report_turn("111/2")
    assert state.tokens == (10, 1)  # B's 111 beat A's 654: B gave 7
    record = Record.from_json(game.record().to_json())
    assert record.replay() == game.state
    assert any(s.kind == "turn" and s.text == "654/2" for s in record.steps)


def test_accumulated_stakes_need_every_throw_of_a_reported_turn():
    game = table("vache-41")
    with pytest.raises(IllegalAction, match="give the result of each of A's 3 throws"):
        game.report_turn("421/3")
    game.report_turn("123;221;421")
    game.report_turn("421;432;421")
    run(game, "123 | 653")
    assert game.state.tokens == (0, 40)


def test_le_bon_in_a_reported_turn_follows_the_rules():
    game = table("classic-11")
    run(game, "421 | 653 | 421 | 221")  # A leads the décharge
    # what a turn with « le bon » may be, said rather than « marks a last throw before throw 3 »
    with pytest.raises(
        IllegalAction,
        match=r"A's turn with « le bon » takes 2 throws, the second final \(e.g. 555/2 bon\), not 3",
    ):
        game.report_turn("555/3 bon")
    with pytest.raises(IllegalAction, match=r"not 1$"):
        game.report_turn("555/1 bon")
    game.report_turn("555/2 bon")
    assert game.steps[-1].text == "555/2 bon"


def test_a_final_field_the_record_lacks_is_said_missing_not_none():
    """« kind: recorded None » showed Python's word for a field the file did not hold."""
    data = json.loads(finished_game().record().to_json())
    kind = data["final"].pop("kind")
    with pytest.raises(InvalidRecord) as refused:
        Record.from_dict(data).replay()
    said = str(refused.value)
    assert f"kind: not recorded, replayed {kind}" in said, said
    assert "None" not in said


def refusal(data: dict[str, Any]) -> dict[str, str]:
    """Why the record is refused, in English and in French."""
    with pytest.raises(InvalidRecord) as raised:
        Record.from_dict(data).replay()
    return {lang: error_text(lang, raised.value) for lang in ("en", "fr")}


def test_a_record_cut_short_says_its_steps_stop_before_the_game_ends():
    """Not a list of Python values (None, lists, dicts) that the replay and the record differ by."""
    data = json.loads(finished_game().record().to_json())
    data["steps"] = data["steps"][:-3]
    said = refusal(data)
    count = len(data["steps"])
    cut = f"the record's {count} steps stop before the game ends: the steps after them are missing"
    assert cut in said["en"]
    assert f"les {count} étapes de l'enregistrement s'arrêtent avant la fin de la partie" in said["fr"]


def test_a_record_that_ends_otherwise_words_what_differs():
    data = json.loads(finished_game().record().to_json())
    names = list(data["final"]["tokens"])
    data["final"]["tokens"] = dict.fromkeys(names, 3)
    data["final"]["losers"] = names[:1]
    said = refusal(data)
    everyone = ", ".join(f"{name} 3" for name in names)
    assert f"tokens: recorded {everyone}, replayed " in said["en"]
    assert f"losers: recorded {names[0]}, replayed " in said["en"]
    assert f"tokens : enregistré {everyone}, rejoué " in said["fr"]
    for text in said.values():
        assert not any(python in text for python in ("{", "[", "None"))


def test_a_step_by_the_wrong_seat_names_its_kind_in_the_readers_language():
    data = json.loads(finished_game().record().to_json())
    first = data["steps"][0]
    first["seat"] = (first["seat"] + 1) % 3
    said = refusal(data)
    assert "step 1 (dice " in said["en"] and "l'étape 1 (dés " in said["fr"]
