import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from py421.cli import main
from py421.core.rules import preset_names


def run_cli(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input)


def test_rules_list_names_every_preset_with_its_source():
    result = run_cli("rules", "list")
    assert result.exit_code == 0
    for name in preset_names():
        assert name in result.output
    assert result.output.count("source: seed 00") == 7


def test_rules_show_json_lists_the_56_results_strongest_first():
    result = run_cli("rules", "show", "vache-41", "--json")
    assert result.exit_code == 0
    data = json.loads(result.output)
    results = data["results"]
    assert len(results) == 56
    assert results[0] == {"rank": 1, "dice": "421", "category": "421", "value": 10, "ways": 6}
    assert results[2]["dice"] == "666"
    assert data["options"]["pot"] == 41


def test_rules_show_applies_settings():
    result = run_cli("rules", "show", "classic-11", "--set", "pot=21", "--json")
    assert json.loads(result.output)["options"]["pot"] == 21
    text = run_cli("rules", "show", "classic-11").output
    assert "decharge_leader" in text
    assert " 56  221  nénette" in text


def test_rules_show_rejects_an_unknown_option_clearly():
    result = run_cli("rules", "show", "classic-11", "--set", "pots=21")
    assert result.exit_code == 2
    assert "unknown option 'pots' (did you mean 'pot'?); accepted:" in result.output


def test_rules_show_reads_a_ruleset_file(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text('base = "classic-11"\nname = "house"\n[options]\npot = 15\n', encoding="utf-8")
    data = json.loads(run_cli("rules", "show", str(path), "--json").output)
    assert (data["name"], data["options"]["pot"]) == ("house", 15)
    result = run_cli("rules", "show", "nonsense")
    assert result.exit_code == 2
    assert "neither a preset nor a ruleset file" in result.output


def test_compare_says_which_wins_and_why():
    result = run_cli("compare", "611", "666")
    assert result.exit_code == 0
    assert result.output.startswith("611 beats 666 under classic-11: every two aces")
    result = run_cli("compare", "6-1-1", "666", "--rules", "vache-41")
    assert result.output.startswith("666 beats 611 under vache-41")
    data = json.loads(run_cli("compare", "124", "421", "--json").output)
    assert data["winner"] is None


def test_compare_rejects_bad_notation():
    result = run_cli("compare", "7-1-1", "421")
    assert result.exit_code == 2
    assert "'7-1-1': a die shows 1 to 6, not 7" in result.output


def test_a_bots_game_records_and_replays(tmp_path):
    path = tmp_path / "game.json"
    result = run_cli("play", "--players", "bot:random,bot:random", "--seed", "1", "--record", str(path))
    assert result.exit_code == 0, result.output
    outcome = result.output.strip().splitlines()[-2]
    replay = run_cli("replay", str(path))
    assert replay.exit_code == 0
    assert "steps replayed" in replay.output
    assert outcome in replay.output
    log = run_cli("replay", str(path), "--log").output
    assert "throws" in log


def test_replay_refuses_a_broken_record(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "py421-record", "version": 1}', encoding="utf-8")
    result = run_cli("replay", str(path))
    assert result.exit_code == 2
    assert "Error: the record has no 'rules'" in result.output


def test_plain_play_with_piped_input_reaches_the_end():
    # Enter stops every turn; the game is played to the end against a bot.
    answers = "\n" * 2000
    proc = subprocess.run(
        [sys.executable, "-m", "py421", "play", "--players", "Alice,bot:random", "--seed", "7"],
        input=answers,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "game over" in proc.stdout
    assert "Alice:" in proc.stdout  # she was asked


@pytest.mark.parametrize(("answer", "message"), [("7", "a die shows 1 to 6"), ("keep 9", "a die")])
def test_plain_play_refuses_bad_answers_and_asks_again(answer, message):
    result = run_cli(
        "play", "--players", "Alice,bot:random", "--seed", "7", input=answer + "\n" + "\n" * 2000
    )
    assert result.exit_code == 0
    assert message in result.output


def test_plain_play_stops_cleanly_when_input_ends():
    result = run_cli("play", "--players", "Alice,bot:random", "--seed", "7", input="")
    assert result.exit_code == 1
    assert "input ended before the game did" in result.output
