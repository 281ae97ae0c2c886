import json
import os
import signal
import subprocess
import sys
from importlib.metadata import version

import pytest
from click.testing import CliRunner

from py421.cli import main
from py421.core.rules import preset_names


def run_cli(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input)


def test_the_version_is_the_installed_packages():
    import py421

    installed = version("py421")
    assert run_cli("--version").output == f"421, version {installed}\n"
    assert py421.__version__ == installed
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        py421.nothing  # noqa: B018


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
    result = run_cli("play", "--players", "bot:random,bot:heuristic", "--seed", "1", "--record", str(path))
    assert result.exit_code == 0, result.output
    assert "game over" in result.output
    outcome = result.output.split("game over")[1].splitlines()[1]
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


def play_process(*args: str, input: str, env_home) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PY421_HOME": str(env_home), "LANG": "C.UTF-8"}
    return subprocess.run(
        [sys.executable, "-m", "py421", "play", *args],
        input=input,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def test_plain_play_with_piped_input_reaches_the_end(private_home):
    # Input that is not a terminal gives the line mode; Enter stops every turn.
    proc = play_process(
        "--players", "Alice,bot:heuristic", "--seed", "7", input="\n" * 2000, env_home=private_home
    )
    assert proc.returncode == 0, proc.stderr
    assert "game over" in proc.stdout
    assert "Alice:" in proc.stdout  # she was asked


@pytest.mark.parametrize(
    "players", ["bot:random,bot:heuristic", "bot:optimal,bot:heuristic,bot:random,bot:optimal"]
)
def test_bots_only_game_finishes_and_prints_the_outcome(private_home, players):
    proc = play_process("--players", players, "--seed", "1", input="", env_home=private_home)
    assert proc.returncode == 0, proc.stderr
    assert "game over" in proc.stdout
    assert any(w in proc.stdout for w in ("loses the game", "« grand perdant »", "shared loss"))


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("7", "a die shows 1 to 6, not 7"),
        ("keep 9", "a die shows 1 to 6"),
        ("keep 5555", "at most 3 dice, got 4"),
        ("dance", "not an action; accepted:"),
    ],
)
def test_plain_play_refuses_bad_answers_and_asks_again(answer, message):
    result = run_cli(
        "play", "--players", "Alice,bot:random", "--seed", "7", input=answer + "\n" + "\n" * 2000
    )
    assert result.exit_code == 0
    assert message in result.output
    assert "game over" in result.output


def test_a_die_that_was_not_thrown_cannot_be_kept():
    result = run_cli("play", "--players", "Alice,bot:random", "--seed", "7", input="\n" * 2000)
    first_prompt = next(line for line in result.output.splitlines() if line.startswith("Alice: "))
    dice = first_prompt.split()[1].rstrip(",")
    absent = next(str(f) for f in range(1, 7) if str(f) not in dice)
    result = run_cli(
        "play", "--players", "Alice,bot:random", "--seed", "7", input=absent + "\n" + "\n" * 2000
    )
    assert f"{absent} is not among the dice {dice}" in result.output


def test_an_unknown_bot_or_an_empty_name_is_refused():
    result = run_cli("play", "--players", "Alice,bot:genius")
    assert result.exit_code == 2
    assert "unknown bot 'bot:genius'; accepted: bot:random, bot:heuristic, bot:optimal" in result.output
    result = run_cli("play", "--players", "Alice,,bot:random")
    assert "a player's name cannot be empty" in result.output


def test_plain_play_stops_cleanly_when_input_ends_and_resumes():
    interrupted = run_cli("play", "--players", "Alice,bot:random", "--seed", "7", input="")
    assert interrupted.exit_code == 1
    assert "input ended before the game did; the game is saved: 421 play --resume" in interrupted.output
    resumed = run_cli("play", "--resume", input="\n" * 2000)
    assert resumed.exit_code == 0, resumed.output
    assert "resuming the saved game (classic-11: Alice, Random 1" in resumed.output
    # the same seed and the same answers in one go end the same way
    whole = run_cli("play", "--players", "Alice,bot:random", "--seed", "7", input="\n" * 2000)
    assert resumed.output.splitlines()[-1] == whole.output.splitlines()[-1]
    assert run_cli("play", "--resume").exit_code == 1  # nothing left to resume


def test_ctrl_c_saves_the_game(private_home):
    env = {**os.environ, "PY421_HOME": str(private_home), "LANG": "C.UTF-8"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "py421", "play", "--players", "Alice,bot:random", "--seed", "3"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    seen = ""
    while not seen.endswith("? help: "):  # Alice's first question, asked in full (events also say "Alice: ")
        char = proc.stdout.read(1)
        assert char, f"the game ended before asking Alice:\n{seen}"
        seen += char
    proc.send_signal(signal.SIGINT)
    # Her input stays open until the game has exited: closed input would be an answer of its own.
    proc.wait(timeout=60)
    out, err = proc.communicate()
    assert proc.returncode == 130, f"exit {proc.returncode}\nstdout: {out}\nstderr: {err}"
    assert "game saved; continue it with: 421 play --resume" in out
    resumed = run_cli("play", "--resume", input="\n" * 2000)
    assert resumed.exit_code == 0
    assert "game over" in resumed.output


def test_finished_games_go_to_history_and_stats():
    run_cli("play", "--players", "Ana,bot:heuristic", "--seed", "5", input="\n" * 2000)
    run_cli("play", "--players", "Ana,bot:heuristic", "--seed", "6", input="\n" * 2000)
    data = json.loads(run_cli("stats", "--json").output)
    ana = next(p for p in data["players"] if p["name"] == "Ana")
    assert ana["games"] == 2
    assert 0 <= ana["losses"] <= 2
    assert {"throws_421", "nenettes", "tokens_taken", "rounds_lost"} <= set(ana)
    listing = run_cli("history").output
    assert listing.count("classic-11") == 2
    game_id = listing.split()[0].lstrip("#")
    replay = run_cli("history", game_id)
    assert replay.exit_code == 0
    assert "game over" in replay.output
    missing = run_cli("history", "999")
    assert missing.exit_code == 2
    assert "there is no game number 999" in missing.output


def test_french_where_asked():
    result = run_cli("play", "--players", "bot:random,bot:random", "--seed", "2", "--lang", "fr")
    assert "lance" in result.output
    assert "fin de la partie" in result.output
