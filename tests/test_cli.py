import json
import os
import pty
import re
import signal
import subprocess
import sys
import time
from importlib.metadata import version

import pytest
from click.testing import CliRunner

from py421.cli import main
from py421.core.rules import Ruleset, preset_names

from .helpers import cli_process, read_until


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


def test_rules_show_heads_with_the_pot_actually_set(tmp_path):
    # the preset's description says its pot: « 41 tokens » under pot=31 contradicted the options below
    heading = run_cli("rules", "show", "vache-41", "--set", "pot=31").output.splitlines()[0]
    assert heading.startswith("vache-41: « À la vache »: 31 tokens, brelans above the x11"), heading
    french = run_cli("rules", "show", "vache-41", "--set", "pot=1", "--lang", "fr").output.splitlines()[0]
    assert french.startswith("vache-41 : « À la vache » : 1 jeton, brelans"), french
    house = tmp_path / "house.toml"  # the README's example: the base's description, its own pot
    house.write_text('base = "vache-41"\nname = "our bar"\n\n[options]\npot = 31\nqueue_de_la_vache = true\n')
    heading = run_cli("rules", "show", str(house)).output.splitlines()[0]
    assert heading.startswith("our bar: « À la vache »: 31 tokens,"), heading
    assert run_cli("rules", "show", "classic-11").output.startswith(
        "classic-11: The classic bar game: 11 tokens,"
    )


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
    assert result.output.startswith("611 beats 666 under classic-11: any two aces (x11) beats any brelan")
    result = run_cli("compare", "6-1-1", "666", "--rules", "vache-41")
    assert result.output.startswith("666 beats 611 under vache-41")
    data = json.loads(run_cli("compare", "124", "421", "--json").output)
    assert data["winner"] is None


def test_compare_rejects_bad_notation():
    result = run_cli("compare", "7-1-1", "421")
    assert result.exit_code == 2
    assert "'7-1-1': a die shows 1 to 6, not 7" in result.output


def test_rules_changed_by_set_are_named_with_them_where_a_game_is_shown(tmp_path):
    path = tmp_path / "game.json"
    bots = ["--players", "bot:random,bot:random", "--seed", "1", "--set", "pot=5"]
    played = run_cli("play", *bots, "--record", str(path))
    assert played.output.startswith("classic-11 (pot=5): Random 1, Random 2")
    assert "classic-11 (pot=5), Random 1, Random 2:" in run_cli("replay", str(path)).output
    table = run_cli("table", "--players", "A,B", "--set", "pot=5", input="")
    assert "classic-11 (pot=5): A, B" in table.output
    assert (
        "resuming the saved game (classic-11 (pot=5): A, B" in run_cli("table", "--resume", input="").output
    )
    assert run_cli("play", "--players", "bot:random,bot:random", "--seed", "1").output.startswith(
        "classic-11: Random 1, Random 2"  # the preset as it is: its name alone
    )


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
    # a pot of 3: bot:optimal solves the whole game of four in seconds, not the minutes of 11 tokens
    proc = play_process(
        "--players", players, "--set", "pot=3", "--seed", "1", input="", env_home=private_home
    )
    assert proc.returncode == 0, proc.stderr
    assert "game over" in proc.stdout
    end = proc.stdout[proc.stdout.index("game over") :].splitlines()
    assert end[0].endswith(("loses", "lose")), end  # who loses, once
    assert any(w in proc.stdout for w in ("manches lost: ", "« grand perdant »", "shared loss"))


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        # « accepted: », as a keep refused by the engine says it (not « possible: » here, « accepted: » there)
        ("7", "a die shows 1 to 6, not 7; accepted: stop, throw, keep"),
        ("keep 9", "a die shows 1 to 6"),
        ("keep 5555", "at most 3 dice, got 4"),
        ("dance", "'dance' is not a choice here; accepted: stop, throw, keep"),
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


def test_three_dice_that_were_not_thrown_are_said_not_among_the_dice():
    result = run_cli("play", "--players", "Alice,bot:random", "--seed", "7", input="\n" * 2000)
    first_prompt = next(line for line in result.output.splitlines() if line.startswith("Alice: "))
    dice = first_prompt.split()[1].rstrip(",")
    absent = next(str(f) for f in range(1, 7) if str(f) not in dice) * 3
    answers = f"keep {absent}\n{absent}\nkeep {dice}\n" + "\n" * 2000
    result = run_cli("play", "--players", "Alice,bot:random", "--seed", "7", input=answers)
    assert result.output.count(f"Alice cannot keep {absent}: {absent} is not among the dice {dice}") == 2
    assert f"Alice cannot keep {dice}: keeping all three dice is stopping" in result.output


def test_a_wrong_answer_to_the_main_chaude_in_line_mode_says_what_that_prompt_takes():
    from py421.play.plain import InputEnded, run_plain
    from py421.play.session import Session, parse_seats

    from .test_tui import scripted

    rules = Ruleset.preset("engranjeu-21")
    # a tie, then tie-breaks that tie again: « main chaude », Bob chooses, twice
    dice = ["654", "654", "653", "653", "653", "653"]
    session = scripted(Session(rules, parse_seats(["Ana", "Bob"]), seed="x"), dice)
    answers = iter(["x", "keep 42", "", "v"])
    lines: list[str] = []
    with pytest.raises(InputEnded):
        run_plain(session, lang="en", out=lines.append, ask=lambda prompt: next(answers, None))
    accepted = "accepted: e or est (« pour ce qui est »), v or vient (« pour ce qui vient »)"
    for typed in ("x", "keep 42", ""):
        assert f"  '{typed}' is not a choice here; {accepted}" in lines, lines
    assert not any("digits to keep" in line for line in lines)
    assert "Bob plays « pour ce qui vient »" in lines


def test_empty_players_are_refused_as_names_missing():
    for empty in ("", " "):
        result = run_cli("play", "--players", empty)
        assert result.exit_code == 2
        assert "Error: name the players: --players" in result.output, empty
        assert "played by" not in result.output


def test_an_unknown_bot_or_an_empty_name_is_refused():
    result = run_cli("play", "--players", "Alice,bot:genius")
    assert result.exit_code == 2
    assert "unknown bot 'bot:genius'; accepted: bot:random, bot:heuristic, bot:optimal" in result.output
    result = run_cli("play", "--players", "Alice,,bot:random")
    assert "a player's name cannot be empty" in result.output


def test_a_name_is_held_to_the_most_an_online_table_holds_it_to():
    """The terminal took names of up to 40 characters, a server's tables 24: a name made here could
    not sit at one. One most now, for a new game in either command."""
    from py421.core.engine import MAX_NAME

    assert MAX_NAME == 24
    most, longer = "B" * MAX_NAME, "B" * (MAX_NAME + 1)
    # seeded: a game of two people may end in its charges' coups secs, before anyone is asked
    for command in (("play", "--plain", "--seed", "1"), ("table",)):
        refused = run_cli(*command, "--players", f"Ana,{longer}")
        assert refused.exit_code == 2, refused.output
        assert f"'{longer}': a name has at most 24 characters, not 25" in refused.output
        taken = run_cli(*command, "--players", f"Ana,{most}", input="")
        assert "input ended" in taken.output and "at most" not in taken.output, taken.output


def test_a_name_stacking_accents_over_its_letters_is_refused():
    """« A » under 23 combining marks drew over the lines above and below it, on the page and in the
    terminal, at a table online too. A letter's own accents are kept: « Nguyễn » typed as e and two."""
    stacked = "A" + "\u0301" * 23
    refused = run_cli("table", "--players", f"Ana,{stacked}")
    assert refused.exit_code == 2, refused.output
    assert "a letter carries at most 4 combining marks (accents), not 23" in refused.output
    # a game read back (a record, a saved game, a table kept online) keeps any name it was made with
    from py421.core.engine import check_players
    from py421.core.rules import Ruleset

    assert check_players(Ruleset.preset("classic-11"), ["Ana", stacked]) == ("Ana", stacked)
    typed = "Nguye\u0302\u0303n"  # decomposed, as some keyboards type it
    taken = run_cli("table", "--players", f"Ana,{typed}", input="")
    assert "input ended" in taken.output and "combining" not in taken.output, taken.output


def test_a_name_that_looks_like_another_s_is_refused():
    """« Аnn » (a Cyrillic А) sat beside « Ann », « Неuristic 1 » (Cyrillic Н and е) passed for the
    bot, and « Heuristic 1 » with a combining mark after its digit too: names that read the same as
    another's. Latin, Greek and Cyrillic letters are not mixed in one word, and an accent is on a
    letter; names in one alphabet, and other alphabets mixed (Japanese), are kept."""
    for name, said in (
        ("\u0410nn", "mixes letters of alphabets that look alike"),
        ("\u041d\u0435uristic 1", "mixes letters of alphabets that look alike"),
        ("Heuristic 1\u0345", "an accent on no letter"),
    ):
        refused = run_cli("table", "--players", f"Ann,{name}")
        assert refused.exit_code == 2 and said in refused.output, (name, refused.output)
    for kept in (
        "\u0410\u043d\u043d\u0430",
        "\u0391\u03bd\u03bd\u03b1",
        "Jean-Zo\u00e9",
        "\u5c71\u7530\u3055\u3093",
        "Nguye\u0302\u0303n",
        "Ann \u0410\u043d\u043d\u0430",
    ):
        taken = run_cli("table", "--players", f"Bob,{kept}", input="")
        assert "input ended" in taken.output, (kept, taken.output)


def test_a_name_in_another_alphabet_that_reads_as_a_player_s_is_refused():
    """« Сосо » all in Cyrillic, « ΤΟΜ » all in Greek, passed beside « Coco » and « Tom »: each word
    in one alphabet. Names are compared by the Latin letters their Greek and Cyrillic ones look like;
    names that only share some letters stay apart."""
    for latin, lookalike in (
        ("Coco", "\u0421\u043e\u0441\u043e"),
        ("Tom", "\u03a4\u039f\u039c"),
        ("Ann Cox", "Ann \u0421\u043e\u0445"),
    ):
        refused = run_cli("table", "--players", f"{latin},{lookalike}")
        assert refused.exit_code == 2 and "names must differ" in refused.output, (lookalike, refused.output)
    for kept in ("\u0411\u043e\u0440\u0438\u0441", "\u0410\u043d\u043d\u0430"):  # Борис, Анна
        taken = run_cli("table", "--players", f"Boris,Ann,{kept}", input="")
        assert "input ended" in taken.output, (kept, taken.output)


def test_a_game_saved_or_recorded_with_a_longer_name_before_still_resumes_and_replays(tmp_path):
    """Only a name given anew is held to the most: one saved when the terminal took 40 characters
    loads as it was saved, named again with --resume or not."""
    from py421.play.saves import new_save_id, write_save
    from py421.play.session import Seat, Session

    name = "Marie-Christine de Beaumont"  # 27 characters
    session = Session(Ruleset.preset("classic-11"), [Seat(name), Seat("Random 1", "random")], seed="7")
    write_save(new_save_id(), session.to_save(mode="play", lang="en"))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(session.game.record().to_dict()), encoding="utf-8")
    replayed = run_cli("replay", str(path))
    assert replayed.exit_code == 0 and name in replayed.output, replayed.output
    resumed = run_cli("play", "--resume", "--players", f"{name},bot:random", input="")
    assert f"resuming the saved game (classic-11: {name}, Random 1" in resumed.output, resumed.output
    assert run_cli("play", "--resume", input="\n" * 2000).exit_code == 0


def test_input_that_ends_early_is_said_in_french():
    ended = run_cli("play", "--players", "Alice,bot:random", "--seed", "7", "--lang", "fr", input="")
    assert "l'entrée s'est terminée avant la fin de la partie ; la partie est sauvegardée" in ended.output


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


def test_any_unfinished_game_is_listed_and_resumed_by_its_number(private_home):
    """--resume took only the last game begun: an older one (a game against bots left for a game with
    friends) could only be resumed by moving the newer save out of the folder by hand. --saved lists
    them, the last begun first, and --resume N continues the N-th; --resume alone the last, as ever."""
    for players, seed in (("Ana,bot:random", "7"), ("Bob,Cy", "8")):
        assert run_cli("play", "--players", players, "--seed", seed, input="").exit_code == 1  # saved
    listed = run_cli("play", "--saved")
    assert listed.exit_code == 0, listed.output
    lines = listed.output.splitlines()
    assert lines[0] == "unfinished games, the last begun first (421 play --resume N continues one):"
    assert re.fullmatch(r"  1\. begun \d{4}-\d\d-\d\d \d\d:\d\d: classic-11, Bob, Cy, step \d+", lines[1])
    assert re.fullmatch(r"  2\. begun .*: classic-11, Ana, Random 1, step \d+", lines[2]) and len(lines) == 3
    french = run_cli("play", "--saved", "--lang", "fr").output.splitlines()
    assert french[0].startswith("parties inachevées, la dernière commencée d'abord")
    # its players as the game names them once resumed (the bots' names are the game's own)
    assert re.fullmatch(
        r"  2\. commencée \d\d/\d\d/\d{4} \d\d:\d\d : classic-11, Ana, Random 1, étape \d+", french[2]
    )
    assert run_cli("table", "--saved").output == "no saved game to resume\n"
    older = run_cli("play", "--resume", "2", input="\n" * 2000)
    assert older.exit_code == 0, older.output
    assert "resuming the saved game (classic-11: Ana, Random 1" in older.output
    fewer = run_cli("play", "--resume", "2")
    assert fewer.exit_code == 2 and "there is no unfinished game 2: 421 play --saved lists 1" in fewer.output
    wrong = run_cli("table", "--resume", "two")
    assert wrong.exit_code == 2
    expected = "'--resume': 'two': expected the number of an unfinished game, 1 the last begun"
    assert f"Invalid value for {expected}, as 421 table --saved lists them" in " ".join(wrong.output.split())
    latest = run_cli("play", "--resume", input="\n" * 2000)
    assert "resuming the saved game (classic-11: Bob, Cy" in latest.output
    assert run_cli("play", "--saved").output == "no saved game to resume\n"


def test_a_save_that_cannot_be_resumed_is_listed_with_why_and_the_one_before_it_resumes(private_home):
    """A newest save cut short stopped every --resume: it is listed with its reason and kept, and
    --resume 2 continues the game before it."""
    run_cli("table", "--players", "Ana,Bob", input="")
    saves = private_home / "saves"
    broken = saves / "99990101-000000-000000.json"  # begun last
    broken.write_text('{"format": ', encoding="utf-8")
    listed = run_cli("table", "--saved").output.splitlines()
    assert listed[1].startswith(f"  1. the saved game {broken} cannot be resumed: it cannot be read")
    assert "resume another with --resume N" in listed[1]
    assert listed[2].startswith("  2. begun ") and listed[2].endswith("classic-11, Ana, Bob, step 0")
    last = run_cli("table", "--resume")  # the last begun, as ever: refused, named
    assert last.exit_code == 2 and f"the saved game {broken} cannot be resumed" in last.output
    resumed = run_cli("table", "--resume", "2", input="")
    assert "resuming the saved game (classic-11: Ana, Bob, step 0)" in resumed.output
    assert broken.exists()


@pytest.mark.parametrize("mode", ["play", "table"])
def test_the_record_asked_at_the_start_is_written_when_the_resumed_game_ends(tmp_path, mode):
    path = tmp_path / "game.json"
    start = ["--players", "Alice,bot:random", "--seed", "7"] if mode == "play" else ["--players", "A,B"]
    answers = "\n" * 2000 if mode == "play" else "421\n653\n" * 200
    interrupted = run_cli(mode, *start, "--record", str(path), input="")
    assert interrupted.exit_code == 1
    assert not path.exists()
    resumed = run_cli(mode, "--resume", input=answers)
    assert resumed.exit_code == 0, resumed.output
    assert f"record saved to {path}" in resumed.output
    assert "steps replayed" in run_cli("replay", str(path)).output
    # a record named at the resume is the one written, and stays with the save when interrupted again
    again = tmp_path / "again.json"
    run_cli(mode, *start, "--record", str(path.with_name("first.json")), input="")
    assert run_cli(mode, "--resume", "--record", str(again), input="").exit_code == 1
    assert run_cli(mode, "--resume", input=answers).exit_code == 0
    assert again.exists() and not path.with_name("first.json").exists()


def test_a_resumed_game_whose_record_folder_went_away_is_refused_before_play(tmp_path):
    folder = tmp_path / "records"
    folder.mkdir()
    path = folder / "game.json"
    run_cli("play", "--players", "Alice,bot:random", "--seed", "7", "--record", str(path), input="")
    folder.rmdir()
    refused = run_cli("play", "--resume", input="\n" * 2000)
    assert refused.exit_code != 0
    assert f"cannot write the record to {path}" in refused.output
    assert "resuming" not in refused.output  # refused before any play: the save is as it was
    elsewhere = tmp_path / "elsewhere.json"
    assert run_cli("play", "--resume", "--record", str(elsewhere), input="\n" * 2000).exit_code == 0
    assert elsewhere.exists()


def _spoilt_once_begun(monkeypatch, spoil):
    """``spoil()`` at each save of a game begun from now on: what fails between a game's start and its
    end. Returns what stops it."""
    from py421.play import saves

    write = saves.write_save

    def spoiling(save_id, data):
        spoil()
        return write(save_id, data)

    monkeypatch.setattr(saves, "write_save", spoiling)
    return lambda: monkeypatch.setattr(saves, "write_save", write)


def test_a_game_over_whose_history_cannot_be_written_is_kept_and_its_record_written(tmp_path, monkeypatch):
    """The history file spoilt during the game: its end was a traceback, and the record asked for
    was never written. Now the record is written, the error says why, and the resume keeps it."""
    from py421.paths import data_dir

    history = data_dir() / "history.sqlite3"
    record = tmp_path / "game.json"
    mended = _spoilt_once_begun(monkeypatch, lambda: history.write_bytes(b"no database " * 100))
    ended = run_cli(
        "play", "--players", "Alice,bot:random", "--seed", "7", "--record", str(record), input="\n" * 2000
    )
    assert ended.exit_code == 1, ended.output
    assert ended.exception is None or isinstance(ended.exception, SystemExit)  # said, not a traceback
    assert "game over" in ended.output
    assert "the game is over but could not be added to the history" in ended.output
    assert "it is kept; continue it with: 421 play --resume" in ended.output
    assert "steps replayed" in run_cli("replay", str(record)).output
    mended()
    history.unlink()
    kept = run_cli("play", "--resume")
    assert kept.exit_code == 0, kept.output
    assert "manche 2, over" in kept.output
    assert run_cli("history").output.count("Alice") == 1
    assert "no saved game" in run_cli("play", "--saved").output


def test_a_game_over_whose_record_folder_went_away_is_kept_for_a_record_elsewhere(tmp_path, monkeypatch):
    """The record's folder removed during the game: its end was a traceback, and the game, already in
    the history with its save dropped, could give no record. Now it is kept until one is written."""
    folder = tmp_path / "records"
    folder.mkdir()
    path = folder / "game.json"
    mended = _spoilt_once_begun(monkeypatch, lambda: folder.exists() and folder.rmdir())
    ended = run_cli(
        "play", "--players", "Alice,bot:random", "--seed", "7", "--record", str(path), input="\n" * 2000
    )
    assert ended.exit_code == 1, ended.output
    assert ended.exception is None or isinstance(ended.exception, SystemExit)
    assert f"the game is over but its record could not be written to {path}" in ended.output
    assert "421 play --resume --record FILE" in ended.output
    assert run_cli("history").output.count("Alice") == 1  # in the history already
    mended()
    elsewhere = tmp_path / "elsewhere.json"
    kept = run_cli("play", "--resume", "--record", str(elsewhere))
    assert kept.exit_code == 0, kept.output
    assert f"record saved to {elsewhere}" in kept.output
    assert "steps replayed" in run_cli("replay", str(elsewhere)).output
    assert run_cli("history").output.count("Alice") == 1  # not twice
    assert "no saved game" in run_cli("play", "--saved").output


def interrupt_at_first_question(home, args: list[str], question_ends: str) -> str:
    """Run ``421 ARGS`` in a process of its own, press Ctrl-C at its first question; its output.

    The question is awaited in full (events may also say "Alice: "), and the input
    stays open until the process exits: closed input would be an answer of its own.
    """
    proc = cli_process(home, *args)
    assert proc.stdout is not None
    seen = ""
    while not seen.endswith(question_ends):
        char = proc.stdout.read(1)
        assert char, f"the game ended before its first question:\n{seen}"
        seen += char
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    out, err = proc.communicate()
    assert proc.returncode == 130, f"exit {proc.returncode}\nstdout: {out}\nstderr: {err}"
    return out


@pytest.mark.usefixtures("ctrl_c_as_at_a_terminal")
def test_ctrl_c_saves_the_game(private_home):
    play = ["play", "--players", "Alice,bot:random", "--seed", "3"]
    out = interrupt_at_first_question(private_home, play, "? help: ")
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


def test_stats_columns_and_the_history_read_as_the_game_says():
    """The stats' headers ran together (« nénettes tokens taken »), and the history listed a shared
    loss as « Ana, Heuristic 1 each lost » where the game says « Ana and Heuristic 1 »."""
    played = run_cli("play", "--players", "Ana,bot:heuristic", "--seed", "3", input="\n" * 2000)
    assert "shared loss: Ana and Heuristic 1 each lost as many manches" in played.output
    assert "→ shared loss: Ana and Heuristic 1 each lost" in run_cli("history").output
    assert "→ perte partagée : Ana et Heuristique 1" in run_cli("history", "--lang", "fr").output
    for lang, heads in (
        ("en", ["player", "games", "losses", "rounds lost", "421s", "nénettes", "tokens taken"]),
        ("fr", ["joueur", "parties", "perdues", "tours perdus", "421", "nénettes", "jetons pris"]),
    ):
        lines = run_cli("stats", "--lang", lang).output.splitlines()
        assert re.split(r" {2,}", lines[0].strip()) == heads, lines[0]
        ana = next(line for line in lines if line.startswith("Ana "))
        assert len(ana) == len(lines[0])  # each number ends under its column's name
        assert re.split(r" {2,}", ana.strip())[0] == "Ana"


def test_the_games_played_online_on_this_machine_are_in_its_history_and_stats(private_home, monkeypatch):
    """Games played at `421 serve`'s tables went to the server's database, where `421 history` and
    `421 stats` never looked: the laptop that served the bar's table showed « no finished games »."""
    from .server_helpers import played_out, serving

    monkeypatch.delenv("PY421_DB", raising=False)
    with serving(f"sqlite:///{private_home / 'server.sqlite3'}") as client:
        final = played_out(client, seats=["human", "bot:heuristic"])
    assert final["table"]["status"] == "over"
    assert "no finished game yet" in run_cli("history").output  # the terminal's own games: none
    listing = run_cli("history", "--online")
    assert listing.exit_code == 0, listing.output
    assert "lyonnaise-21" in listing.output and "Alice, Heuristic 1" in listing.output
    game_id = listing.output.split()[0].lstrip("#")
    replay = run_cli("history", game_id, "--online")
    assert replay.exit_code == 0 and "game over" in replay.output
    alice = next(
        p
        for p in json.loads(run_cli("stats", "--json", "--online").output)["players"]
        if p["name"] == "Alice"
    )
    assert alice["games"] == 1
    analysed = run_cli("analyse", game_id, "--online")
    assert analysed.exit_code == 0, analysed.output


def test_no_server_database_is_no_online_game(private_home, monkeypatch):
    monkeypatch.delenv("PY421_DB", raising=False)
    listing = run_cli("history", "--online")
    assert listing.exit_code == 0 and "no game finished online yet: 421 serve" in listing.output
    assert not (private_home / "server.sqlite3").exists()  # reading makes nothing


def test_a_server_database_an_older_server_left_is_named_not_upgraded(private_home, monkeypatch):
    import sqlite3

    monkeypatch.delenv("PY421_DB", raising=False)
    path = private_home / "server.sqlite3"
    with sqlite3.connect(path) as db:  # a server from before the history's tables were its own
        db.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)")
        db.execute("INSERT INTO alembic_version VALUES ('0001')")
    before = path.read_bytes()
    listing = run_cli("history", "--online")
    assert listing.exit_code != 0
    assert f"Error: {path} was left by an older 421 serve: serve it once with this py421" in listing.output
    assert path.read_bytes() == before


def test_a_game_played_in_english_names_its_bots_in_french_when_read_in_french():
    """`421 stats --lang fr` named the bots « Heuristique 1 », but the history, its replay and the
    analysis of the same game kept « Heuristic 1 » in French lines."""
    run_cli("play", "--players", "Ana,bot:heuristic", "--seed", "5", "--lang", "en", input="\n" * 2000)
    for args in (["history"], ["history", "1"], ["analyse", "1"]):
        said = run_cli(*args, "--lang", "fr")
        assert said.exit_code == 0, said.output
        assert "Heuristique 1" in said.output and "Heuristic 1" not in said.output, (args, said.output)
    assert "Heuristic 1" in run_cli("history", "1", "--lang", "en").output


def test_french_where_asked():
    result = run_cli("play", "--players", "bot:random,bot:random", "--seed", "2", "--lang", "fr")
    assert "lance" in result.output
    assert "fin de la partie" in result.output


def test_an_interrupted_table_says_to_resume_the_table():
    ended = run_cli("table", "--players", "A,B", input="421\n")
    assert ended.exit_code == 1
    assert "input ended before the game did; the game is saved: 421 table --resume" in ended.output
    assert "421 play" not in ended.output
    french = run_cli("table", "--players", "A,B", "--lang", "fr", input="")
    assert "421 table --resume" in french.output


@pytest.mark.usefixtures("ctrl_c_as_at_a_terminal")
def test_ctrl_c_at_a_table_says_to_resume_the_table(private_home):
    out = interrupt_at_first_question(private_home, ["table", "--players", "A,B"], "? help) ")
    assert "game saved; continue it with: 421 table --resume" in out
    assert run_cli("table", "--resume", input="421\n653\n").exit_code == 1  # resumed, then input ended


def test_resume_refuses_rules_players_or_seed_that_contradict_the_save():
    assert run_cli("play", "--players", "Alice,bot:random", "--seed", "7", input="").exit_code == 1
    rules = run_cli("play", "--resume", "--rules", "tim")
    assert rules.exit_code == 2
    assert rules.output.startswith("Error: the saved game is played with classic-11, not tim:")
    assert "resume it without --rules and --set, or start a new game without --resume" in rules.output
    settings = run_cli("play", "--resume", "--set", "pot=21")
    assert settings.exit_code == 2
    assert "the saved game is played with classic-11, not" in settings.output
    players = run_cli("play", "--resume", "--players", "Bob,bot:random")
    assert players.exit_code == 2
    assert "the saved game seats Alice, Random 1, not Bob, Random 1:" in players.output
    seed = run_cli("play", "--resume", "--seed", "8")
    assert seed.exit_code == 2
    assert "the saved game's seed is 7, not 8:" in seed.output
    # what agrees with the save, given or left to the defaults, resumes it
    same = ("--rules", "classic-11", "--players", "Alice,bot:random", "--seed", "7")
    resumed = run_cli("play", "--resume", *same, input="\n" * 2000)
    assert resumed.exit_code == 0, resumed.output
    assert "game over" in resumed.output


def test_resume_with_settings_alone_changes_the_saved_games_rules_not_the_default_presets():
    """``--resume --set pot=41`` of a saved vache-41 game was compared with classic-11 and refused."""
    assert (
        run_cli(
            "play", "--rules", "vache-41", "--players", "Alice,bot:random", "--seed", "7", input=""
        ).exit_code
        == 1
    )
    other = run_cli("play", "--resume", "--set", "pot=3")
    assert other.exit_code == 2
    assert "the saved game is played with vache-41, not vache-41 with pot=3:" in other.output, other.output
    same = run_cli("play", "--resume", "--set", "pot=41", input="\n" * 2000)
    assert same.exit_code == 0 and "game over" in same.output, same.output


def test_table_resume_refuses_other_players():
    assert run_cli("table", "--players", "A,B", input="421\n").exit_code == 1
    other = run_cli("table", "--resume", "--players", "A,C")
    assert other.exit_code == 2
    assert "the saved game seats A, B, not A, C:" in other.output
    assert run_cli("table", "--resume", "--players", "A,B", input="653\n").exit_code == 1


def test_several_losers_are_plural_in_french():
    shared = run_cli("play", "--players", "bot:random,bot:random", "--seed", "1", "--lang", "fr")
    assert "fin de la partie : Aléatoire 1 et Aléatoire 2 perdent" in shared.output
    one = run_cli("play", "--players", "bot:random,bot:random", "--seed", "3", "--lang", "fr")
    assert "fin de la partie : Aléatoire 1 perd\n" in one.output
    english = run_cli("play", "--players", "bot:random,bot:random", "--seed", "1")
    assert "game over: Random 1 and Random 2 lose\n" in english.output
    # tied losers who all take (comptoir-21) lose a round together
    three = ("--players", "bot:random,bot:random,bot:random", "--rules", "comptoir-21", "--seed", "1")
    together = run_cli("play", *three, "--lang", "fr")
    assert "Aléatoire 3 et Aléatoire 1 perdent le tour contre Aléatoire 2" in together.output


def test_the_default_player_is_named_after_the_user(monkeypatch):
    monkeypatch.setenv("LOGNAME", "ana")
    result = run_cli("play", "--seed", "1", input="\n" * 2000)
    assert result.exit_code == 0, result.output
    assert "Ana: " in result.output
    assert "You" not in result.output


@pytest.mark.parametrize(("lang", "asked"), [("en", "Player: "), ("fr", "Joueur : ")])
def test_the_default_player_without_a_user_name(monkeypatch, lang, asked):
    def no_user() -> str:
        raise OSError("no user name")

    monkeypatch.setattr("getpass.getuser", no_user)
    result = run_cli("play", "--seed", "1", "--lang", lang, input="\n" * 2000)
    assert result.exit_code == 0, result.output
    assert asked in result.output


MAIN_CHAUDE = ("play", "--rules", "engranjeu-21", "--players", "Alice,bot:heuristic", "--seed", "3")


def test_main_chaude_in_line_mode_explains_and_accepts_e_and_v():
    result = run_cli(*MAIN_CHAUDE, "--lang", "en", input="?\ne\n" + "\n" * 2000)
    assert result.exit_code == 0, result.output
    prompt = "Alice, « main chaude »: e « pour ce qui est » (the stake stays what the round decided)"
    assert prompt in result.output
    assert "v « pour ce qui vient » (the next replay's value decides it)" in result.output
    assert "« pour ce qui est » (e or est): the stake stays" in result.output  # what ? says there
    assert "Alice plays « pour ce qui est »" in result.output
    assert "not an action" not in result.output
    for answer in ("v", "vient", "V"):
        french = run_cli(*MAIN_CHAUDE, "--lang", "fr", input=f"{answer}\n" + "\n" * 2000)
        assert "Alice joue « pour ce qui vient »" in french.output, answer


def test_line_mode_shows_tokens_and_pot_after_each_round_and_on_resume():
    whole = run_cli("play", "--players", "Alice,bot:random", "--seed", "7", input="\n" * 2000)
    lines = whole.output.splitlines()
    took = next(i for i, line in enumerate(lines) if " from the pot" in line)
    assert lines[took + 1].startswith("  pot "), lines[took - 2 : took + 3]
    assert " · Alice " in lines[took + 1]
    assert run_cli("play", "--players", "Alice,bot:random", "--seed", "7", input="").exit_code == 1
    resumed = run_cli("play", "--resume", input="\n" * 2000)
    first = resumed.output.splitlines()[:2]
    assert first[0].startswith("resuming the saved game")
    assert first[1] == "  pot 0 · Alice 2 · Random 1 9 · manche 1, décharge"


@pytest.mark.parametrize(
    "answer", ["tout relancer", "s'arrêter", "s’arrêter", "Tout Relancer", "throw", "stop"]
)
def test_line_mode_takes_the_actions_as_its_help_words_them_in_either_language(answer):
    result = run_cli(
        "play", "--lang", "fr", "--players", "Alice,bot:random", "--seed", "7", input=answer + "\n" * 2000
    )
    assert result.exit_code == 0
    assert "fin de la partie" in result.output
    assert "n'est pas" not in result.output and "accepted" not in result.output


def test_line_mode_says_in_french_what_it_takes_when_an_answer_is_not_a_choice():
    result = run_cli(
        "play", "--lang", "fr", "--players", "Alice,bot:random", "--seed", "7", input="danse\n" + "\n" * 2000
    )
    assert "'danse' n'est pas un choix ici ; possible :" in result.output
    assert "garder" in result.output and "accepted" not in result.output


@pytest.mark.parametrize(
    ("lang", "word", "said"),
    [("en", "quit", "game saved"), ("fr", "quitter", "partie sauvegardée")],
)
def test_line_mode_leaves_on_quit_with_the_game_saved_and_its_help_says_so(lang, word, said):
    helped = run_cli(
        "play", "--lang", lang, "--players", "Alice,bot:random", "--seed", "7", input="?\n" + word + "\n"
    )
    assert helped.exit_code == 0, helped.output
    assert f"  {word} (or q)" in helped.output or f"  {word} (ou q)" in helped.output  # the short form too
    assert said in helped.output.splitlines()[-1] and "421 play --resume" in helped.output.splitlines()[-1]
    assert "n'est pas un choix" not in helped.output and "not a choice" not in helped.output
    short = run_cli("play", "--resume", input="q\n")
    assert short.exit_code == 0 and "421 play --resume" in short.output  # still there to resume
    resumed = run_cli("play", "--resume", input="\n" * 2000)
    assert resumed.exit_code == 0 and resumed.output.startswith(
        ("resuming the saved game", "reprise de la partie")
    )


def test_a_table_leaves_on_quit_with_the_game_saved():
    left = run_cli("table", "--players", "Alice,Bob", input="quit\n")
    assert left.exit_code == 0, left.output
    assert "421 table --resume" in left.output.splitlines()[-1]
    assert run_cli("table", "--resume", input="q\n").exit_code == 0


def test_hints_asked_at_the_start_stay_on_when_the_game_is_resumed():
    """--hints was not kept with the game: resumed, it said « start the game with --hints »."""
    assert run_cli("play", "--players", "Ana,Bob", "--hints", "--seed", "2", input="").exit_code == 1
    resumed = run_cli("play", "--resume", input="hint\n")
    assert "hints are off" not in resumed.output
    assert "Values: the mover's chance of not losing the manche" in resumed.output


def test_a_game_resumed_in_another_language_speaks_it_from_the_first_line():
    interrupted = run_cli("play", "--lang", "fr", "--players", "Alice,bot:random", "--seed", "7", input="")
    assert interrupted.exit_code == 1
    resumed = run_cli("play", "--resume", "--lang", "en", input="\n" * 2000)
    assert resumed.exit_code == 0, resumed.output
    assert resumed.output.startswith(
        "resuming the saved game (classic-11: Alice, Aléatoire 1"
    )  # its names kept
    assert "reprise" not in resumed.output


def test_a_game_resumed_under_the_commands_language_option_speaks_it():
    interrupted = run_cli("play", "--lang", "fr", "--players", "Alice,bot:random", "--seed", "7", input="")
    assert interrupted.exit_code == 1
    resumed = run_cli("--lang", "en", "play", "--resume", input="\n" * 2000)
    assert resumed.exit_code == 0, resumed.output
    assert resumed.output.startswith(
        "resuming the saved game (classic-11: Alice, Aléatoire 1"
    )  # its names kept
    assert "fin de la partie" not in resumed.output and "game over" in resumed.output


@pytest.mark.usefixtures("ctrl_c_as_at_a_terminal")
def test_ctrl_c_while_solving_says_aborted_in_a_line(private_home):
    """The solver spends its time in compiled loops: Ctrl-C there came out as a 60-line SystemError.

    The error stream is a terminal, where the solve shows its progress: Ctrl-C comes once its
    spinner has turned (a fixed wait once came before the program had even started)."""
    pytest.importorskip("numba")
    env = {**os.environ, "PY421_HOME": str(private_home), "LANG": "C.UTF-8"}
    main_end, child = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "py421", "--lang", "fr", "solve", "--players", "4"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=child,
        env=env,
    )
    os.close(child)
    try:
        shown = read_until(main_end, lambda seen: b"\r\x1b[2K" in seen, 600)  # drawn again
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
        shown += read_until(main_end, lambda seen: False, 60)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        os.close(main_end)
    err = shown.decode("utf-8", "replace")
    assert "Traceback" not in err and "Error" not in err, err[-2000:]
    assert err.rstrip().endswith("Abandon !"), err[-500:]
    assert proc.returncode == 1


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize(("rules", "seed"), [("tim", "1"), ("engranjeu-21", "4"), ("classic-11", "7")])
def test_what_the_line_modes_help_offers_is_taken(lang, rules, seed):
    # tim plays no « le bon »: its help offered « bon 42 », then refused it.
    play = ("play", "--lang", lang, "--rules", rules, "--players", "Alice,bot:heuristic", "--seed", seed)
    helped = run_cli(*play, input="?\n").output
    said = helped[helped.index("? ") :].splitlines()[0]
    example = re.search(r"\((?:e\.g\.|ex\.) (\d+)\)", said)
    assert example is not None, said
    offered = [example[1], *re.findall(r"« (bon \d*) »", said)]
    assert ("bon" in said) == Ruleset.preset(rules).le_bon, said
    for answer in offered:
        result = run_cli(*play, input=f"?\n{answer}\n" + "\n" * 2000)
        assert result.exit_code == 0, result.output
        assert "cannot" not in result.output and "ne peut pas" not in result.output, (answer, result.output)


def test_the_line_mode_says_the_games_end_once(tmp_path):
    # "game over: Ana loses", then "Ana loses the game": the second said nothing more
    for lang, over, again in (
        ("en", "game over: ", "loses the game"),
        ("fr", "fin de la partie : ", "perd la partie"),
    ):
        play = ("play", "--lang", lang, "--rules", "tim", "--players", "Ana,bot:random", "--bot-delay", "0")
        result = run_cli(*play, "--seed", "2", input="\n" * 2000)
        assert result.exit_code == 0, result.output
        end = result.output[result.output.index(over) :].splitlines()
        assert end[0] == f"{over}Ana {'loses' if lang == 'en' else 'perd'}", end
        assert again not in result.output
        assert end[1].startswith(("manches lost: ", "manches perdues : ")), end
    # what the game-over line does not say still follows it
    grand = run_cli(
        "play", "--players", "bot:random,bot:heuristic", "--seed", "1", "--record", str(tmp_path / "g.json")
    )
    assert "game over: Random 1 loses\nRandom 1 lost every manche: « grand perdant »\n" in grand.output
    log = run_cli("replay", str(tmp_path / "g.json"), "--log").output
    assert log.count("« grand perdant »") == 1 and log.count("game over") == 1, log


@pytest.fixture
def paris_time(monkeypatch):
    """Local time is Paris's (UTC+1 in winter, +2 in summer), written the POSIX way: no tz database needed."""
    monkeypatch.setenv("TZ", "CET-1CEST,M3.5.0,M10.5.0/3")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("paris_time")
def test_history_says_when_in_local_time_in_each_language():
    from py421.cli.games import local_time

    assert local_time("2026-11-28T08:51:31+00:00", "en") == "2026-11-28 09:51"
    assert local_time("2026-11-28T08:51:31+00:00", "fr") == "28/11/2026 09:51"
    assert local_time("2026-07-14T23:30:00+00:00", "en") == "2026-07-15 01:30"  # summer time, the next day
    assert local_time("2026-11-28T08:51:31", "en") == "2026-11-28 09:51"  # no offset: UTC
    assert local_time("yesterday", "en") == "yesterday"


@pytest.mark.usefixtures("paris_time")
def test_history_lists_games_in_local_time_and_stores_utc():
    from py421.cli.games import local_time
    from py421.history import History

    run_cli("play", "--players", "Ana,bot:heuristic", "--seed", "5", input="\n" * 2000)
    stored = History().games()[0].finished_at
    assert stored.endswith("+00:00")
    for lang in ("en", "fr"):
        listing = run_cli("history", "--lang", lang).output
        assert stored not in listing and "T" not in listing.split()[1]
        assert f"#1     {local_time(stored, lang)}  classic-11" in listing, listing


def test_bots_are_named_in_the_tables_language_and_keep_their_names():
    french = run_cli(
        "play", "--players", "Alice,bot:random,bot:heuristic", "--seed", "7", "--lang", "fr", input=""
    )
    assert french.exit_code == 1
    assert "Aléatoire 1" in french.output and "Heuristique 1" in french.output
    assert "Random 1" not in french.output and "Heuristic 1" not in french.output
    # resumed in English, with the same seats said the English way: the game keeps its names
    same = ("--players", "Alice,bot:random,bot:heuristic", "--lang", "en")
    resumed = run_cli("play", "--resume", *same, input="\n" * 2000)
    assert resumed.exit_code == 0, resumed.output
    assert "resuming the saved game (classic-11: Alice, Aléatoire 1, Heuristique 1" in resumed.output
    assert "Random 1" not in resumed.output and "Heuristic 1" not in resumed.output
    english = run_cli("play", "--players", "bot:random,bot:optimal", "--seed", "7", "--lang", "en")
    assert "Random 1" in english.output and "Optimal 1" in english.output


def test_a_bots_name_in_either_language_is_kept_for_the_bots():
    # « Policy 1 », a trained policy's seat (bot:policy:FILE), too: its games are analysed as a bot's
    for name in ("Heuristic 2", "heuristique 1", "Aléatoire 3", "Optimal 1", "Policy 1", "politique 2"):
        refused = run_cli("play", "--players", f"{name},bot:random", "--lang", "fr")
        assert refused.exit_code == 2, (name, refused.output)
        assert "sont réservés aux bots" in refused.output


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("preset", preset_names())
def test_rules_show_keeps_its_columns_at_80_columns(preset, lang):
    from py421.core.rules import option_fields

    result = CliRunner().invoke(main, ["rules", "show", preset, "--lang", lang], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert all(len(line) < 80 for line in lines), [line for line in lines if len(line) >= 80]
    names = {f.name for f in option_fields()}
    rows = [line for line in lines if line[4:].split(" ", 1)[0] in names]
    assert len(rows) == len(names)
    (value,) = {row.index(" = ") + 3 for row in rows}  # the values start in one column
    widest = max(len(row[value:].split(" ", 1)[0]) for row in rows)
    column = value + widest + 2  # and the descriptions in the next, whatever the values' length
    for row in rows:
        assert row[value:column].rstrip() == row[value:].split(" ", 1)[0] and row[column] != " ", row
    for line in lines[lines.index(rows[0]) : lines.index(rows[-1])]:
        if line not in rows and not line.startswith("  ["):  # a description goes on under itself
            assert line[:column].isspace() and line[column] != " ", line


def test_rules_show_wraps_where_a_line_may_break():
    result = CliRunner().invoke(main, ["rules", "show", "tim", "--lang", "fr"], env={"COLUMNS": "80"})
    assert "= last_player_first  comment départager" in result.output
    for line in result.output.splitlines():  # never before French punctuation, nor inside a short range
        assert not line.strip().startswith((":", ";", "»", "99)", "999)", "false)")), line
        assert not line.endswith(("«", "(0", "(0 à", "(true", "(true |")), line


def test_a_resumed_game_words_its_errors_in_its_own_language():
    """A French game resumed without --lang spoke French, but its last line began « Error: »."""
    run_cli("table", "--players", "A,B", "--lang", "fr", input="421\n")
    resumed = run_cli("table", "--resume", input="")
    assert "Erreur" in resumed.output and "l'entrée s'est terminée" in resumed.output
    assert "Error:" not in resumed.output
    # three throws in the charge: A decides from the first turn (in coups secs the dice alone end a
    # game now and then before anyone is asked, and nothing is left to resume)
    asked_at_once = ("--set", "charge_throws=3")
    run_cli("play", "--plain", "--players", "A,bot:random", *asked_at_once, "--lang", "fr", input="")
    played = run_cli("play", "--resume", input="")
    assert "Erreur" in played.output and "Error:" not in played.output


def test_a_huge_or_unprintable_answer_is_quoted_short_and_escaped():
    """A line of a million 4s came back whole in the error; an arrow key's escape sequence and ^A
    went to the terminal raw (the arrow moved the cursor, so the quote read '')."""
    from py421.play.plain import InputEnded, run_plain
    from py421.play.session import Session, parse_seats

    session = Session(Ruleset.preset("vache-41"), parse_seats(["Ana", "bot:heuristic"]), seed="3")
    answers = iter(["4" * 1_000_000, "\x1b[A", "\x01", "bon " + "x" * 5000])
    lines: list[str] = []
    with pytest.raises(InputEnded):
        run_plain(session, lang="en", out=lines.append, ask=lambda prompt: next(answers, None))
    refusals = [line for line in lines if line.startswith("  ")]
    assert len(refusals) == 4, lines
    assert all(len(line) < 400 for line in refusals), [len(line) for line in refusals]
    assert "got 1000000" in refusals[0] and "4444…" in refusals[0]
    assert "'\\x1b[A'" in refusals[1] and "'\\x01'" in refusals[2]
    assert not any(ch in line for line in lines for ch in "\x1b\x01")


def test_where_a_player_behind_may_not_stop_line_mode_never_offers_it_and_hot_seat_hands_over_first():
    """Under must_throw_on the prompt said « Enter stop » and the refusal suggested « le bon » where
    neither could be played; and between people at one keyboard, each turn was announced after its
    first throw was already shown."""
    from py421.i18n import tr
    from py421.play.plain import InputEnded, run_plain
    from py421.play.session import Session, parse_seats

    from .test_tui import scripted

    rules = Ruleset.preset("engranjeu-21").with_options(
        must_throw_on=True, charge_throws=3, leader_limit=False
    )
    session = scripted(Session(rules, parse_seats(["Ana", "Bob"]), seed="x"), ["421", "321", "54"])
    answers = iter(["", "?", "", "x", "1", "?", ""])
    lines: list[str] = []

    def ask(prompt: str) -> str | None:
        lines.append(prompt)
        return next(answers, None)

    with pytest.raises(InputEnded):
        run_plain(session, lang="en", out=lines.append, ask=ask)
    for who, first in (("Ana", "Ana throws 421 (throw 1)"), ("Bob", "Bob throws 321 (throw 1)")):
        assert lines.index(tr("en", "your_turn", who=who)) < lines.index(first), lines
    ana, *bobs = [line for line in lines if line.startswith(("Ana: ", "Bob: "))]
    assert "Enter stop" in ana and bobs and not any("Enter stop" in line for line in bobs), lines
    helps = [line for line in lines if "digits keep those dice" in line]
    assert len(helps) == 2 and not any("Enter stops" in line for line in helps), helps
    refused = [line for line in lines if "Bob cannot stop" in line]
    assert len(refused) == 2, lines
    assert "« le bon »" in refused[0]  # two throws left: « le bon » makes the next one the last
    assert "le bon" not in refused[1] and "throw again" in refused[1]  # one left: it is the last anyway
    not_choice = next(line for line in lines if "'x' is not a choice here" in line)
    assert "Enter" not in not_choice and "0 to throw all three" in not_choice


def test_bon_followed_by_what_is_not_dice_says_what_follows_bon():
    """« bon bon » was told « not kept dice notation », of dice nobody meant to write."""
    from py421.core.actions import parse_action
    from py421.core.errors import InvalidNotation
    from py421.i18n import error_text

    for typed in ("bon bon", "bon x"):
        with pytest.raises(InvalidNotation) as refused:
            parse_action(typed)
        said = {lang: error_text(lang, refused.value) for lang in ("en", "fr")}
        assert "after « bon », the dice to keep (e.g. bon 42)" in said["en"], said
        assert "après « bon », les dés à garder (ex. bon 42)" in said["fr"], said


@pytest.mark.parametrize(
    "command",
    [
        ("simulate", "--games", "200", "--players", "bot:heuristic,bot:random"),
        ("ladder", "--games", "100", "--players", "bot:heuristic,bot:random"),
        ("solve",),
        ("duel",),
    ],
)
def test_a_result_names_the_settings_it_was_computed_under(command: tuple[str, ...]) -> None:
    """``--set pot=3`` changed the numbers, but the output named plain classic-11."""
    text = run_cli(*command, "--set", "pot=3", "--set", "le_bon=false")
    assert text.exit_code == 0, text.output
    assert "classic-11 (pot=3, le_bon=false)" in text.output, text.output

    def report(*args: str) -> dict[str, object]:
        said = run_cli(*command, *args, "--json").output
        found: dict[str, object] = json.loads(said[said.index("{") :])  # after the ladder's progress
        return found

    data = report("--set", "pot=3", "--set", "le_bon=false")
    assert (data["rules"], data["options"]) == ("classic-11", {"pot": 3, "le_bon": False}), data
    plain = report()
    assert (plain["rules"], plain["options"]) == ("classic-11", {}), plain


@pytest.mark.parametrize("command", ["simulate", "ladder"])
def test_the_help_of_the_commands_that_seat_bots_names_a_trained_policys_file(command: str) -> None:
    for lang in ("en", "fr"):
        helped = run_cli(command, "--help", "--lang", lang)
        assert "bot:policy:" in " ".join(helped.output.split()), helped.output


def test_stats_count_a_bot_once_whatever_language_its_games_were_played_in():
    """« Heuristic 1 » and « Heuristique 1 » were two rows of 421 stats: one bot, named per game."""
    for seed, lang in (("5", "en"), ("6", "fr")):
        run_cli("play", "--players", "Ana,bot:heuristic", "--seed", seed, "--lang", lang, input="\n" * 2000)
    for lang, name in (("en", "Heuristic 1"), ("fr", "Heuristique 1")):
        rows = json.loads(run_cli("stats", "--json", "--lang", lang).output)["players"]
        assert sorted((row["name"], row["games"]) for row in rows) == [("Ana", 2), (name, 2)], rows


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_simulation_of_two_names_the_other_player_not_the_others(lang: str) -> None:
    output = run_cli(
        "simulate", "--games", "200", "--players", "bot:heuristic,bot:random", "--lang", lang
    ).output
    first = next(line for line in output.splitlines() if "advantage" in line or "avantage" in line)
    assert ("the other " if lang == "en" else "l'autre ") in first and "the others" not in first, first
    assert "les autres" not in first, first


def test_a_game_is_kept_at_the_step_that_ends_it_not_when_its_screen_closes(tmp_path):
    """The full-screen game added a finished game to the history, wrote its record and dropped its
    save only once the « Game over » box was closed: a terminal window closed on that box lost the
    game, and --resume asked its last question again, which could end it otherwise."""
    from py421.cli.games import Keeper
    from py421.core.rules import Ruleset
    from py421.history import History
    from py421.play.saves import latest_save
    from py421.play.session import Seat, Session

    session = Session(
        Ruleset.preset("classic-11"), [Seat("Ana", "random"), Seat("Bob", "heuristic")], seed="3"
    )
    record = tmp_path / "game.json"
    keep = Keeper(History(), "closed-on-the-end", "play", "en", record, {})
    keep(session)
    assert latest_save("play") is not None
    while not session.state.is_over:
        session.step()
        keep(session)  # what the game's screen calls at each step
    # the terminal closed here, on the last screen: nothing else runs
    assert [g.players for g in History(read_only=True).games()] == [["Ana", "Bob"]]
    assert json.loads(record.read_text())["steps"]
    assert latest_save("play") is None
    keep(session)  # the screen's last call, or the end of the command: kept once
    assert len(History(read_only=True).games()) == 1


def test_every_wrong_answer_in_line_mode_says_the_choices_possible():
    """« a 7 … is explained, with the choices possible » (docs/playing.md): a 7, 00 or 21; said only
    what was wrong; « abc » listed the choices."""
    played = run_cli(
        "play",
        "--players",
        "Ana,Bob",
        "--seed",
        "1",
        "--set",
        "charge_throws=3",
        "--lang",
        "en",
        input="7\n00\n21;\n",
    )
    for wrong in ("'7': a die shows 1 to 6, not 7", "'00': a die shows 1 to 6, not 0", "'21;'"):
        line = next(line for line in played.output.splitlines() if wrong in line)
        assert "accepted: stop, throw, keep 6" in line, line
    french = run_cli(
        "play", "--players", "Ana,Bob", "--seed", "1", "--set", "charge_throws=3", "--lang", "fr", input="7\n"
    )
    assert "pas 7 ; possible : s'arrêter, tout relancer, garder 6" in french.output, french.output


def test_a_save_without_its_version_says_so_rather_than_version_none():
    from py421.core.errors import InvalidRecord
    from py421.i18n import error_text
    from py421.play.session import SAVE_FORMAT, Session

    with pytest.raises(InvalidRecord) as refused:
        Session.from_save({"format": SAVE_FORMAT})
    assert error_text("en", refused.value) == "it has no 'version'"


def test_kept_dice_written_wrong_are_shown_with_kept_dice_as_the_example():
    """The example of kept dice was a whole throw (« like 421 or 4-2-1 »)."""
    said = run_cli("play", "--players", "Alice,bot:random", "--seed", "7", input="55x\n" + "\n" * 2000).output
    assert "'55x': not kept dice notation; write the faces kept, 1 to 6, like 42 or 4-2" in said


@pytest.mark.parametrize(
    ("answer", "ended"),
    [
        ("4 bon", "Alice ends on 543 in 2 throws after « le bon »"),
        ("0 bon", "Alice ends on 533 in 2 throws after « le bon »"),
        ("t bon", "Alice ends on 533 in 2 throws after « le bon »"),
    ],
)
def test_le_bon_may_be_said_after_the_kept_dice_in_line_mode_too(answer, ended):
    """« bon » after the dice, as the scorekeeper's table takes it; « 0 bon » throws all three."""
    played = ["play", "--rules", "vache-41", "--players", "Alice,bot:random", "--seed", "3"]
    said = run_cli(*played, input=answer + "\n" + "\n" * 4000).output
    assert ended in said and "not kept dice" not in said and "a die shows" not in said, said


@pytest.mark.parametrize(("lang", "one"), [("en", "winner: "), ("fr", "gagnant : ")])
def test_one_winner_is_not_said_as_winners_in_order(lang, one):
    ended = run_cli(
        "play",
        "--rules",
        "kytionnaire",
        "--lang",
        lang,
        "--players",
        "bot:random,bot:heuristic",
        "--seed",
        "1",
        input="",
    ).output
    end = ended.splitlines()
    named = [line for line in end if line.startswith(("winner", "gagnant"))]
    assert len(named) == 1 and named[0].startswith(one), named


def test_resume_of_a_game_that_is_not_there_is_a_usage_error():
    assert (
        run_cli("play", "--players", "Alice,bot:random", "--seed", "7", input="").exit_code == 1
    )  # one saved
    missing = run_cli("play", "--resume", "9")
    assert missing.exit_code == 2, missing.output
    assert "there is no unfinished game 9" in missing.output


@pytest.mark.parametrize(
    ("lang", "half"), [("en", "P(better than a coup sec, ties half)"), ("fr", "égalités pour moitié")]
)
def test_advise_says_a_coup_sec_counts_ties_half_where_a_target_counts_them_nothing(lang, half):
    """Both headings read « P(better than …) » though one counts ties half and the other not at all."""
    coup_sec = run_cli("advise", "642", "--throws-left", "1", "--lang", lang)
    assert coup_sec.exit_code == 0 and half in coup_sec.output.splitlines()[0], coup_sec.output
    target = run_cli("advise", "642", "--throws-left", "1", "--target", "653", "--lang", lang)
    assert target.exit_code == 0 and half not in target.output


def test_leaving_a_game_that_is_not_the_last_begun_says_its_number_to_resume_it(private_home):
    """Leaving the older of two saved games said « 421 play --resume », which takes up the newer."""
    for name in ("Ann", "Zed"):  # Zed's is begun last: --resume 1
        assert run_cli("play", "--players", f"{name},bot:random", "--seed", "7", input="").exit_code == 1
    left = run_cli("play", "--resume", "2", input="q\n")
    assert left.output.splitlines()[-1].endswith("421 play --resume 2"), left.output
    ended = run_cli("play", "--resume", "2", input="")
    assert ended.output.rstrip().endswith("421 play --resume 2"), ended.output
    again = run_cli("play", "--resume", "2", input="\n" * 2000)
    assert "resuming the saved game (classic-11: Ann" in again.output
    last = run_cli("play", "--resume", input="q\n")  # Zed's, the only one left: no number needed
    assert last.output.splitlines()[-1].endswith("421 play --resume"), last.output
