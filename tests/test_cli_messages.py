"""What a new user reads: each command's refusals, messages and help say the right thing."""

from __future__ import annotations

import hashlib
import json
import re
import socket
import time
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from py421.cli import main
from py421.core.errors import IllegalAction, InvalidPlayers, InvalidPosition, InvalidRecord, InvalidRuleset
from py421.core.record import Record
from py421.core.rules import Ruleset
from py421.i18n import error_text, tr
from py421.play.coach import decharge_passes

from .server_process import free_port


def run_cli(*args: str, input: str | None = None) -> Any:
    return CliRunner().invoke(main, list(args), input=input)


def a_record(**changes: Any) -> dict[str, Any]:
    """A finished game's record as JSON data, with some keys changed."""
    from py421.play.session import Session, parse_seats

    session = Session(Ruleset.preset("tim"), parse_seats(["bot:random", "bot:random"]), seed="x")
    while not session.state.is_over:
        session.step()
    return session.game.record({"seed": "x"}).to_dict() | changes


def write(tmp_path: Path, data: Any, name: str = "game.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


# -- rules ----------------------------------------------------------------------------


def test_rules_show_names_its_preset_argument_not_a_flag():
    result = run_cli("rules", "show", "nope")
    assert result.exit_code == 2
    assert "Invalid value for 'PRESET': 'nope' is neither a preset nor a ruleset file" in result.output
    assert "--rules" not in result.output


def test_the_rules_flag_is_still_named_where_it_is_a_flag():
    result = run_cli("compare", "421", "653", "--rules", "nope")
    assert result.exit_code == 2
    assert "Invalid value for '--rules': 'nope' is neither a preset nor a ruleset file" in result.output


def test_empty_rules_are_said_empty_not_a_folder():
    """« '' is … not a ruleset file (it is a folder) »: an empty name read as the current folder."""
    english = "'' is neither a preset nor a ruleset file (it is empty)"
    for lang, said in (("en", english), ("fr", "(c'est vide)")):
        result = run_cli("compare", "421", "653", "--rules", "", "--lang", lang)
        assert result.exit_code == 2 and said in result.output, result.output
        assert "folder" not in result.output and "dossier" not in result.output


@pytest.mark.parametrize("command", [["rules", "show", "classic-11"], ["compare", "421", "653"]])
def test_setting_both_ways_to_end_a_game_is_refused_with_the_reason(command):
    result = run_cli(*command, "--set", "manches=3", "--set", "fiches_de_manche=2")
    assert result.exit_code == 2
    assert result.output == (
        "Error: manches=3 and fiches_de_manche=2 are two ways to end a game: either a fixed number "
        "of manches (manches above 1) or manches until a player has lost fiches_de_manche of them; "
        "set one of them\n"
    )


def test_one_throw_everywhere_under_le_bon_says_how_to_set_it_off():
    """classic-11 plays « le bon »: one throw in the décharge was refused for an option never set."""
    result = run_cli("rules", "show", "classic-11", "--set", "decharge_throws=1")
    assert result.exit_code == 2
    assert result.output == (
        "Error: le_bon=true (« le bon ») needs a phase of more than one throw, and charge_throws=1 and "
        "decharge_throws=1 leave none: set le_bon=false too, or more throws\n"
    )
    french = run_cli("rules", "show", "classic-11", "--set", "decharge_throws=1", "--lang", "fr")
    assert "mettez aussi le_bon=false" in french.output


def test_either_way_to_end_a_game_alone_is_accepted():
    assert Ruleset.preset("classic-11").with_options(manches=3).manches == 3
    assert Ruleset.preset("tim").fiches_de_manche == 2
    # one manche with fiches de manche is tim's own rule
    assert Ruleset.preset("classic-11").with_options(manches=1, fiches_de_manche=2).fiches_de_manche == 2


def test_the_rules_page_lists_the_ambiguous_pair_among_the_refusals():
    text = (Path(__file__).parents[1] / "docs" / "rules.md").read_text(encoding="utf-8")
    refused = text.split("These combinations are rejected:")[1].split("##")[0]
    assert "`manches` above 1 together with `fiches_de_manche`" in refused


# -- advise -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--tokens", "5,6"], "--tokens: add --objective game; without --objective"),
        (["--tokens", "5,6", "--objective", "loser"], "--tokens is not read by the objective"),
        (["--stake", "3", "--objective", "tokens"], "--stake is not read by the objective"),
        (["--players", "3"], "--players: add --objective loser, tokens or game; without --objective"),
        (["--phase", "charge", "--target", "653"], "--phase: add --objective loser, tokens or game"),
    ],
)
def test_advise_refuses_a_context_its_objective_does_not_read(extra, said):
    result = run_cli("advise", "642", "--throws-left", "1", *extra)
    assert result.exit_code == 2
    assert said in result.output
    assert "docs/strategy.md" in result.output


def test_advise_reads_the_tokens_with_the_game_objective():
    result = run_cli("advise", "642", "--throws-left", "1", "--objective", "game", "--tokens", "5,6")
    assert result.exit_code == 0, result.output
    assert "P(not losing the manche)" in result.output


def test_advise_with_no_throw_left_in_a_one_throw_turn_says_it_plainly():
    args = ["advise", "642", "--throws-left", "2", "--before", "653", "--limit", "1", "--objective", "loser"]
    result = run_cli(*args)
    assert result.exit_code == 2
    assert result.output == "Error: a turn has at most 1 throw here: no throw can be left, not 2\n"
    assert "0 to 0" not in result.output


def test_more_throws_left_than_a_turn_has_names_the_range():
    from py421.core.dice import Result
    from py421.solver.exact_turn import advise

    with pytest.raises(InvalidPosition, match=r"at most 3 throws here: 0 to 2 left, not 3$"):
        advise(Ruleset.preset("classic-11").table, Result.parse("642"), 3)


# -- the engine's words -------------------------------------------------------------


def test_a_one_throw_turn_reported_with_two_throws_says_one_throw():
    from py421.core.actions import ReportedTurn
    from py421.core.dice import Result
    from py421.core.game import Game

    game = Game(Ruleset.preset("classic-11").with_options(first_player="first_seat"), ["A", "B"])
    with pytest.raises(IllegalAction) as refused:
        game.state.apply_turn(ReportedTurn(Result.parse("421"), 2))
    assert str(refused.value).startswith("A may use 1 throw now, not 2")


def test_compare_says_a_result_against_itself_is_the_same_result():
    result = run_cli("compare", "421", "421")
    assert result.exit_code == 0
    first = result.output.splitlines()[0]
    assert (
        first
        == "421 ties with 421 under classic-11: the same result; the tie rule decides (tie_break = rampot)"
    )
    assert "421 against 421" not in result.output
    data = json.loads(run_cli("compare", "124", "421", "--json").output)
    assert data["winner"] is None and data["reason"].startswith("the same result")


def test_solve_for_three_says_what_each_plays_for():
    # round by round: the game-level solver refuses the queue over three manches
    queue = ("--set", "queue_de_la_vache=true", "--set", "manches=3")
    text = run_cli("solve", "--players", "3", "--rules", "vache-41", *queue).output
    assert "each playing not to lose the round" in text
    assert "maximising" not in text
    decharge = run_cli("solve", "--players", "3", "--rules", "lyonnaise-21", *queue).output
    assert "a round of the décharge, each playing for the round's tokens" in decharge
    whole = run_cli("solve", "--players", "3", "--set", "pot=3").output
    assert "the whole game by max^n, each playing for their share of the loss" in whole


# -- records ------------------------------------------------------------------------


def test_a_version_written_as_text_is_refused_saying_a_number_is_expected(tmp_path):
    result = run_cli("replay", write(tmp_path, a_record(version="1")))
    assert result.exit_code == 2
    assert result.output == (
        'Error: the record\'s "version" is a number: this py421 reads "version": 1, not "1"\n'
    )  # the value as the file spells it, in JSON


def test_a_version_not_read_says_which_is():
    with pytest.raises(
        InvalidRecord, match=r"^record version 2 is not supported; this py421 reads version 1$"
    ):
        Record.from_dict(a_record(version=2))


def test_rules_given_as_a_preset_name_say_the_rules_are_an_object(tmp_path):
    result = run_cli("replay", write(tmp_path, a_record(rules="classic-11")))
    assert result.exit_code == 2
    assert "unknown key" not in result.output
    assert (
        'the record\'s "rules" must be an object, as in a ruleset file, not "classic-11"; '
        'for a preset write {"base": "classic-11"}'
    ) in result.output


@pytest.mark.parametrize(
    ("changed", "said"),
    [
        ({"steps": None}, 'the record\'s "steps" must be a list, not null'),
        ({"rules": [True]}, 'the record\'s "rules" must be an object, as in a ruleset file, not [true]'),
        (
            {"steps": [{"seat": 0, "dice": 654}]},
            'or {"seat": N, "turn": "421/2"}, not {"seat": 0, "dice": 654}',
        ),
    ],
)
def test_a_misshapen_record_shows_what_it_holds_as_json_spells_it(tmp_path, changed, said):
    result = run_cli("replay", write(tmp_path, {**a_record(), **changed}))
    assert result.exit_code == 2
    assert said in result.output
    assert "None" not in result.output and "True" not in result.output


def test_a_ruleset_that_is_no_table_is_refused_as_such():
    with pytest.raises(
        InvalidRuleset, match=r'^a ruleset is a table with the keys base, description, .*, not \["pot"\]$'
    ):
        Ruleset.from_mapping(["pot"])  # type: ignore[arg-type]


@pytest.mark.parametrize("command", ["replay", "verify"])
def test_a_missing_record_file_names_the_argument(command, tmp_path):
    result = run_cli(command, str(tmp_path / "nope.json"))
    assert result.exit_code == 2
    assert "Invalid value for 'RECORD_FILE': cannot read" in result.output


def test_verify_and_replay_count_steps_from_one(tmp_path):
    data = a_record()
    data["meta"] = {"seed": "x", "seed_hash": hashlib.sha256(b"x").hexdigest()}
    first = data["steps"][0]
    first["dice"] = "5" if first["dice"] != "5" else "4"  # the first draw die, changed
    path = write(tmp_path, data)
    verified = run_cli("verify", path)
    assert verified.exit_code == 1
    assert "step 1: the record says" in verified.output
    assert "step 0" not in verified.output
    replayed = run_cli("replay", path)
    assert "step 0" not in replayed.output


# -- the scorekeeper's table --------------------------------------------------------


def test_people_seats_refuses_a_bot_with_a_message():
    from py421.cli.common import people_seats

    with pytest.raises(
        InvalidPlayers, match=r"^'bot:random': the scorekeeper seats the people at a real table"
    ):
        people_seats("bot:random,A")
    assert [s.name for s in people_seats(" Alice, Bob ")] == ["Alice", "Bob"]
    assert all(s.human for s in people_seats("Alice,Bob"))


def test_table_refuses_a_bot_seat():
    result = run_cli("table", "--players", "bot:random,A", input="")
    assert result.exit_code == 2
    assert "Error: 'bot:random': the scorekeeper seats the people at a real table" in result.output


def test_the_one_throw_prompt_of_the_scorekeeper_has_its_own_words():
    for lang in ("en", "fr"):
        text = tr(lang, "sk.turn_one", who="A")
        assert "654/2" not in text and "421" in text


def test_a_one_throw_charge_prompt_suggests_no_second_throw():
    result = run_cli("table", "--rules", "classic-11", "--players", "A,B", "--lang", "en", input="")
    assert "A, your result? (e.g. 421; u undo, ? help)" in result.output
    assert "654/2" not in result.output.split("décharge")[0]


# -- serve --------------------------------------------------------------------------


def test_serve_on_a_busy_port_says_so_in_one_line():
    pytest.importorskip("uvicorn")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run_cli("serve", "--port", str(port))
    assert result.exit_code == 2
    assert result.output == f"Error: port {port} on 127.0.0.1 is already in use; choose another with --port\n"


@pytest.mark.parametrize(("host", "shown"), [("127.0.0.1", "127.0.0.1"), ("::1", "[::1]")])
def test_serve_announces_an_address_a_browser_opens(
    host: str, shown: str, tmp_path: Path, monkeypatch: Any
) -> None:
    uvicorn = pytest.importorskip("uvicorn")
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: None)  # announced, not served
    port = free_port()
    result = run_cli("serve", "--host", host, "--port", str(port), "--db", f"sqlite:///{tmp_path}/s.db")
    assert result.exit_code == 0, result.output
    assert f"py421 tables on http://{shown}:{port} (database: " in result.output


@pytest.mark.parametrize(
    ("url", "said"),
    [
        (
            "postgresql://postgres@127.0.0.1:5543x/db",
            "the database URL cannot be read; accepted: sqlite:///FILE",
        ),
        ("sqlite:/tmp/x.sqlite3", "the database URL cannot be read; accepted: sqlite:///FILE"),
        ("sqlite://server.sqlite3", "'sqlite://server.sqlite3' names a host: a SQLite URL is sqlite:///FILE"),
        ("sqlite://", "sqlite:// keeps the tables in memory, lost at the end: give sqlite:///FILE"),
        ("", "--db is empty: give sqlite:///FILE or postgresql://…, or leave --db out for the SQLite file"),
    ],
)
def test_serve_on_a_database_url_it_cannot_use_says_what_is_accepted_in_one_line(url: str, said: str) -> None:
    pytest.importorskip("uvicorn")
    result = run_cli("serve", "--port", str(free_port()), "--db", url)
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"Error: {said}") and result.output.count("\n") == 1, result.output


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("mysql://db", "base de données 'mysql' non prise en charge ; acceptées : sqlite:///FICHIER"),
        (
            "postgresql://postgres@127.0.0.1:5543x/db",
            "l'URL de la base de données est illisible ; acceptées : sqlite:///FICHIER",
        ),
        ("sqlite://server.sqlite3", "'sqlite://server.sqlite3' nomme un hôte : une URL SQLite s'écrit"),
        ("sqlite://", "sqlite:// garde les tables en mémoire, perdues à la fin : donnez sqlite:///FICHIER"),
    ],
)
def test_serve_in_french_says_in_french_what_database_url_it_accepts(url: str, said: str) -> None:
    pytest.importorskip("uvicorn")
    result = run_cli("serve", "--lang", "fr", "--port", str(free_port()), "--db", url)
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"Erreur : {said}") and result.output.count("\n") == 1, result.output


def test_a_second_serve_on_one_sqlite_file_is_refused_in_the_user_s_language(tmp_path: Path) -> None:
    pytest.importorskip("sqlalchemy")
    from py421.server.database import DatabaseError, make_engine, single_process

    engine = make_engine(f"sqlite:///{tmp_path}/shared.db")
    held = single_process(engine)
    try:
        with pytest.raises(DatabaseError) as refused:
            single_process(engine)
    finally:
        held.close()
    said = error_text("fr", refused.value)
    assert said.startswith("un autre 421 serve utilise déjà ") and "une même base PostgreSQL" in said, said
    assert str(refused.value).startswith("another 421 serve already uses "), refused.value


@pytest.mark.parametrize(
    "args",
    [
        ["serve", "--bot-delay", "nan"],
        ["serve", "--messages-per-second", "inf"],
        ["serve", "--optimal-seconds", "nan"],
        ["play", "--bot-delay", "nan"],
    ],
)
def test_a_decimal_option_that_is_no_number_is_refused(args: list[str]) -> None:
    result = run_cli(*args)
    assert result.exit_code == 2, result.output
    assert f"{args[-1]} is not in the range" in result.output


# -- time -------------------------------------------------------------------------


def test_the_simulators_speed_leaves_out_its_compilation(monkeypatch):
    pytest.importorskip("numba")
    from py421.sim import simulate

    real = simulate.warm_up

    def slow(*args: Any) -> None:
        time.sleep(1.5)
        real(*args)

    monkeypatch.setattr(simulate, "warm_up", slow)
    result = run_cli("simulate", "--games", "500", "--workers", "1", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["seconds"] < 1.5 <= data["warm_up_seconds"]


def test_the_reports_progress_counts_every_step(tmp_path, unshipped):
    pytest.importorskip("matplotlib")
    from py421.report import report_steps

    result = CliRunner().invoke(
        main, ["report", "--rules", "tim", "--out", str(tmp_path), "--games", "200", "--workers", "1"]
    )
    assert result.exit_code == 0, result.output
    said = [line for line in result.stderr.splitlines() if line.startswith("  ")]
    assert len(said) == report_steps([Ruleset.preset("tim")])
    assert said[0] == "  preparing the simulator (compiled once per machine)"


def test_the_optimal_bot_is_solved_before_play_with_its_progress(capsys, unshipped):
    from py421.cli.common import prepare_optimal

    prepare_optimal(Ruleset.preset("tim"), 2)
    # Off a terminal (a log, a pipe): a plain line as each stage begins, nothing rewritten in place.
    assert capsys.readouterr().err.splitlines() == [
        f"  bot:optimal: solving the décharge: pass 1 of at most {decharge_passes(Ruleset.preset('tim'))} "
        "(once per machine)",
        "  bot:optimal: solving the charge: pot 1 of 11 (once per machine)",
    ]
    prepare_optimal(Ruleset.preset("tim"), 2)
    assert capsys.readouterr().err == ""  # read back from the disk


def test_a_stage_that_lasts_is_said_again_in_a_log_at_most_every_minute(capsys, unshipped, monkeypatch):
    """Off a terminal, a stage that lasts (a pass of a large game takes minutes) has its latest text
    written again once LOGGED_EVERY seconds went by, never the same text twice: here with no wait,
    every pass of the décharge and every pot of the charge, where the log had one line each stage."""
    from py421.cli import common

    monkeypatch.setattr(common, "LOGGED_EVERY", 0.0)
    common.prepare_optimal(Ruleset.preset("tim"), 2)
    lines = capsys.readouterr().err.splitlines()
    passes = [line for line in lines if "solving the décharge: pass" in line]
    pots = [line for line in lines if "solving the charge: pot" in line]
    assert len(passes) > 2 and len(set(passes)) == len(passes)
    assert passes[0].startswith("  bot:optimal: solving the décharge: pass 1 of at most")
    assert passes[1].startswith("  bot:optimal: solving the décharge: pass 2 of at most")
    charge = "  bot:optimal: solving the charge: pot {} of 11 (once per machine)"
    assert pots == [charge.format(pot) for pot in range(1, 12)]


@pytest.fixture
def fresh_memory(monkeypatch):
    """No whole game of three or four kept in this process: each comes from the data folder or is solved."""
    from py421.solver import solutions

    monkeypatch.setattr(solutions, "_GAMES", {})
    return lambda: monkeypatch.setattr(solutions, "_GAMES", {})


def test_the_optimal_bot_of_three_says_how_far_the_whole_game_is_solved(capsys, fresh_memory):
    from py421.cli.common import prepare_optimal

    rules = Ruleset.preset("classic-11").with_settings(["pot=3"])  # a small game: solved in a second
    prepare_optimal(rules, 3)
    # Off a terminal (a log, a pipe): a plain line as each stage of each manche begins.
    moved = "values moved by 0.16 (settled below 1e-12) (once per machine)"
    lines = capsys.readouterr().err.splitlines()
    assert lines[:2] + lines[3:] == [
        f"  bot:optimal: solving the whole game: part 1 of 2, the décharge: pass 1, {moved}",
        "  bot:optimal: solving the whole game: part 1 of 2, the charge: pot 1 of 3 (once per machine)",
        "  bot:optimal: solving the whole game: part 2 of 2, the charge: pot 1 of 3 (once per machine)",
    ]
    # the second manche solved is the first one again for every player (its ends an affine map of the
    # other's): started from its policies, its one pass moves the values by rounding errors only
    second = "  bot:optimal: solving the whole game: part 2 of 2, the décharge: pass 1, values moved by "
    assert lines[2].startswith(second) and lines[2].endswith(" (settled below 1e-12) (once per machine)")
    assert float(lines[2].removeprefix(second).split()[0]) < 1e-13
    fresh_memory()
    prepare_optimal(rules, 3)
    assert capsys.readouterr().err == ""  # read back from the disk


def test_each_pass_of_the_whole_game_s_decharge_says_how_far_it_is_from_settling():
    """The first hint of three players solves the whole game first: each pass of a manche's décharge
    says how much the values still moved against where they are settled, and how many passes are
    foretold to remain (the third of four here)."""
    from py421.play.coach import game_solving
    from py421.solver.game_maxn import GameMaxn

    rules = Ruleset.preset("classic-11").with_settings(["pot=3", "manches=1"])  # solved in seconds
    en = "solving the whole game: part 1 of 1, the décharge: pass"
    fr = "résolution de la partie entière : étape 1 sur 1, la décharge : passe"
    for lang, expected in (
        (
            "en",
            [
                f"{en} 1, values moved by 0.33 (settled below 1e-12)",
                f"{en} 2, values moved by 0.059 (settled below 1e-12), about 4 passes left",
                f"{en} 3, values moved by 3.6e-05 (settled below 1e-12), about 2 passes left",
                rf"{en} 4, values moved by \d(\.\d)?e-1[5-9] \(settled below 1e-12\)",
            ],
        ),
        (
            "fr",
            [
                f"{fr} 1, les valeurs ont bougé de 0,33 (stables sous 1e-12)",
                f"{fr} 2, les valeurs ont bougé de 0,059 (stables sous 1e-12), encore environ 4 passes",
                f"{fr} 3, les valeurs ont bougé de 3,6e-05 (stables sous 1e-12), encore environ 2 passes",
                rf"{fr} 4, les valeurs ont bougé de \d(,\d)?e-1[5-9] \(stables sous 1e-12\)",
            ],
        ),
    ):
        said: list[str] = []

        def say(text: str, stage: str, said: list[str] = said) -> None:
            said.append(text)

        GameMaxn(rules, 3).solve(game_solving(say, lang))
        passes = [text for text in said if "écharge" in text]
        assert passes[:3] == expected[:3]
        assert len(passes) == 4 and re.fullmatch(expected[3], passes[3]), passes


def test_the_passes_left_are_foretold_from_how_fast_the_change_shrinks():
    from py421.solver.game_maxn import passes_left

    assert passes_left([]) is None
    assert passes_left([0.3]) is None  # nothing to compare with
    assert passes_left([0.3, 0.3]) is None  # not shrinking
    assert passes_left([0.3, 1e-13]) == 0  # settled
    # plain sweeps: geometric, halving: 1e-3 to 1e-12 is 30 more halvings
    assert passes_left([4e-3, 2e-3, 1e-3], 1e-12) == 30
    assert passes_left([1e-3, 1e-4], 1.5e-12) == 8
    # each pass followed by the exact values of its policies: Newton's steps, the error about squared
    assert passes_left([1e-1, 1e-2], 1e-12, accelerated=True) == 3  # 1e-4, 1e-8, 1e-16
    assert passes_left([0.23, 0.051, 0.0021, 1.1e-4, 2.4e-5, 7.7e-9], accelerated=True) == 1
    # e2 = e1² c fits c = 1,000 from the last two: 6.3e-5, 4e-6, 1.6e-8, 2.5e-13
    assert passes_left([1e-3, 5e-4, 2.5e-4], 1e-12, accelerated=True) == 4


def test_play_says_in_french_how_far_the_whole_game_is_solved(fresh_memory):
    args = [
        "play",
        "--plain",
        "--players",
        "bot:optimal,bot:random,bot:random",
        "--seed",
        "1",
        "--lang",
        "fr",
    ]
    small = ["--set", "pot=2", "--set", "manches=1"]
    result = run_cli(*args, *small, input="")
    assert result.exit_code == 0, result.output
    whole = "  bot:optimal : résolution de la partie entière : étape 1 sur 1"
    assert result.stderr.splitlines() == [
        f"{whole}, la décharge : passe 1, les valeurs ont bougé de 0,33 (stables sous 1e-12) "
        "(une fois par machine)",
        f"{whole}, la charge : pot 1 sur 2 (une fois par machine)",
    ]
    assert "fin de la partie" in result.stdout
    fresh_memory()
    again = run_cli(*args, *small, input="")
    assert again.exit_code == 0, again.output
    assert again.stderr == ""  # solved once per machine


def test_simulate_says_how_far_the_whole_game_is_solved_first(fresh_memory):
    pytest.importorskip("numba")
    args = [
        "simulate",
        "--players",
        "bot:optimal,bot:heuristic,bot:heuristic",
        "--games",
        "20",
        "--workers",
        "1",
    ]
    small = ["--set", "pot=2", "--set", "manches=1"]
    result = run_cli(*args, *small)
    assert result.exit_code == 0, result.output
    said = [line for line in result.stderr.splitlines() if "whole game" in line]
    assert said == [
        "  the optimal bot: solving the whole game: part 1 of 1, the décharge: pass 1, "
        "values moved by 0.33 (settled below 1e-12) (once per machine)",
        "  the optimal bot: solving the whole game: part 1 of 1, the charge: pot 1 of 2 (once per machine)",
    ]
    fresh_memory()
    assert "whole game" not in run_cli(*args, *small, "--lang", "fr").stderr
    fresh_memory()
    assert run_cli(*args, "--set", "pot=3", "--set", "manches=1", "--json").stderr == ""


def test_solve_says_how_far_it_is_in_plain_lines_off_a_terminal(unshipped):
    result = run_cli("solve", "--rules", "tim")
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        f"  solving the décharge: pass 1 of at most {decharge_passes(Ruleset.preset('tim'))}",
        "  solving the charge: pot 1 of 11",
    ]
    assert "tim, two players, both playing optimally:" in result.stdout
    again = run_cli("solve", "--rules", "tim", "--lang", "fr")
    assert again.stderr == ""  # solved once per machine
    assert run_cli("solve", "--rules", "tim", "--json").stderr == ""


def test_a_whole_game_of_many_positions_says_so_before_its_first_pass(unshipped, monkeypatch):
    """Four-player vache-41 makes its positions for three minutes, then passes over its décharge for
    five more before a pass could say how far it was: the solve now says at once how many positions it
    makes, then each manche's first pass as it begins (here a small game, counted as a large one). A
    game solved before says nothing, as before; a small one says only its passes (the tests above)."""
    from py421.play import coach
    from py421.solver.game_maxn import decharge_size

    monkeypatch.setattr(coach, "TOLD_POSITIONS", 1)
    size = decharge_size(Ruleset.preset("classic-11").with_settings(["pot=3"]), 3)
    result = run_cli("solve", "--players", "3", "--set", "pot=3")
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert lines[:2] == [
        f"  the whole game: making its positions (about {size} in the décharge)",
        "  solving the whole game: part 1 of 2, the décharge: pass 1 under way",
    ]
    assert lines[2].startswith("  solving the whole game: part 1 of 2, the décharge: pass 1, values moved")
    assert "  solving the whole game: part 2 of 2, the décharge: pass 1 under way" in lines
    assert run_cli("solve", "--players", "3", "--set", "pot=3").stderr == ""  # read back from the disk
    told = run_cli("solve", "--players", "3", "--set", "pot=6", "--lang", "fr").stderr.splitlines()
    big = decharge_size(Ruleset.preset("classic-11").with_settings(["pot=6"]), 3)
    assert told[:2] == [
        f"  la partie entière : construction de ses positions (environ {big} dans la décharge)",
        "  résolution de la partie entière : étape 1 sur 2, la décharge : passe 1 en cours",
    ]


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", "  the whole game: taking up the solve stopped before, 1 of its 2 parts already solved"),
        ("fr", "  la partie entière : reprise du calcul arrêté avant, 1 de ses 2 étapes déjà résolues"),
    ],
)
def test_a_solve_stopped_by_ctrl_c_goes_on_from_the_parts_it_solved(unshipped, monkeypatch, lang, expected):
    """A four-player solve takes hours: stopped as its second part begins, the same command goes on
    from the first part, saying so, and does not solve it again."""
    from py421.solver import game_maxn

    solving = game_maxn.solve_manche
    solved = []

    def stopped(*args: object, **kwargs: object) -> object:
        solved.append(1)
        if len(solved) == 2:
            raise KeyboardInterrupt
        return solving(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(game_maxn, "solve_manche", stopped)
    command = ("solve", "--players", "3", "--set", "pot=3", "--lang", lang)
    assert run_cli(*command).exit_code != 0
    monkeypatch.setattr(game_maxn, "solve_manche", solving)
    result = run_cli(*command)
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert lines[0] == expected
    assert not any(("part 1 of 2" in line or "étape 1 sur 2" in line) for line in lines)
    assert any(("part 2 of 2" in line or "étape 2 sur 2" in line) for line in lines)
    assert run_cli(*command).stderr == ""  # kept whole


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            "en",
            [
                "the whole game: taking up the solve stopped before, 1 of its 2 parts already solved",
                "the whole game: taking up part 2 of 2 where it stopped",
                "solving the whole game: part 2 of 2, the décharge: pass 5, values moved by 1.6e-05 "
                "(settled below 1e-12), which does not shrink yet: no estimate",
                "solving the whole game: part 2 of 2, the décharge: pass 6 under way, 64 of 12,016 rounds",
            ],
        ),
        (
            "fr",
            [
                "la partie entière : reprise du calcul arrêté avant, 1 de ses 2 étapes déjà résolues",
                "la partie entière : reprise de l'étape 2 sur 2 où elle s'était arrêtée",
                "résolution de la partie entière : étape 2 sur 2, la décharge : passe 5, les valeurs ont "
                "bougé de 1,6e-05 (stables sous 1e-12), ce qui ne diminue pas encore : pas d'estimation",
                "résolution de la partie entière : étape 2 sur 2, la décharge : passe 6 en cours, 64 tours "
                "sur 12 016",
            ],
        ),
    ],
)
def test_a_solve_taken_up_inside_a_part_says_so_and_the_pass_it_goes_on_with(lang, expected):
    """A four-player part takes two hours: taken up inside it, the solve says so, then the pass it
    stopped after and the next one under way, not « pass 1 under way » as a part begun afresh."""
    from py421.play.coach import game_solving
    from py421.solver.game_maxn import Sweep

    said: list[str] = []
    progress = game_solving(lambda text, stage: said.append(text), lang)
    progress("positions", 52_976, 0)
    progress("resumed", 1, 2)
    progress("underway", 2, 2)
    progress("manche", 2, 2)
    progress("decharge", 5, 0, Sweep(1.6e-5, 1e-12, None))
    progress("rounds", 64, 12_016)
    assert said[1:] == expected


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            "en",
            [
                "the whole game: taking up the solve stopped before, 2 of its 2 parts already solved",
                "what one player gains by deviating alone: taking up the measure where it stopped",
                "what one player gains by deviating alone: part 2 of 2, pass 3",
            ],
        ),
        (
            "fr",
            [
                "la partie entière : reprise du calcul arrêté avant, 2 de ses 2 étapes déjà résolues",
                "ce qu'un joueur gagne à dévier seul : reprise de la mesure où elle s'était arrêtée",
                "ce qu'un joueur gagne à dévier seul : étape 2 sur 2, passe 3",
            ],
        ),
    ],
)
def test_a_bound_on_deviating_taken_up_says_so_and_counts_its_passes_in_the_part_they_belong_to(
    lang, expected
):
    """Four-player vache-41's bound takes passes of 20 minutes in the décharge of part 2 (the first
    manche, solved second): taken up, it says so, then goes on with pass 3 of that part, where its
    passes were said as part 1's (the part bounded before it)."""
    from py421.play.coach import game_solving

    said: list[str] = []
    progress = game_solving(lambda text, stage: said.append(text), lang)
    progress("positions", 52_976, 0)
    progress("resumed", 2, 2)
    progress("bounding", 2, 0)
    progress("manche", 1, 2)
    progress("manche", 2, 2)
    progress("deviation", 3, 0)
    assert said[1:] == expected


def test_the_measure_of_deviating_after_a_solve_taken_up_does_not_say_a_first_pass_of_a_part_read_back():
    """A solve taken up reads its first part back from the disk: when the measure of deviating then
    counts that part, it must say that measure, not « pass 1 under way » of a décharge solved before."""
    from py421.play.coach import game_solving

    said: list[str] = []
    progress = game_solving(lambda text, stage: said.append(text))
    progress("positions", 52_976, 0)
    progress("resumed", 1, 2)
    progress("underway", 2, 2)
    progress("manche", 2, 2)
    progress("manche", 1, 2)  # the measure of deviating, manche by manche
    progress("deviation", 1, 0)
    assert not any("pass 1 under way" in line for line in said)
    assert said[-1] == "what one player gains by deviating alone: part 1 of 2, pass 1"


def test_the_measure_of_deviating_does_not_say_a_first_pass_again():
    """Where a décharge does not settle, the solve counts the manches again to measure what a player
    gains by deviating: on a terminal the spinner must then say that measure, not « pass 1 under
    way » of a décharge already solved."""
    from py421.play.coach import game_solving

    said: list[str] = []
    progress = game_solving(lambda text, stage: said.append(text))
    progress("positions", 52_976, 0)
    progress("manche", 1, 2)
    progress("manche", 2, 2)
    progress("manche", 1, 2)  # the measure of deviating, manche by manche
    progress("deviation", 1, 0)
    assert said == [
        "the whole game: making its positions (about 52,976 in the décharge)",
        "solving the whole game: part 1 of 2, the décharge: pass 1 under way",
        "solving the whole game: part 2 of 2, the décharge: pass 1 under way",
        "what one player gains by deviating alone: part 1 of 2, pass 1",
    ]


def test_a_long_pass_of_a_large_game_says_how_many_of_its_rounds_are_solved():
    """A pass of a four-player décharge takes minutes: the terminal showed « pass 1, values moved by
    0.23 » for five minutes while the next pass ran. A large game's pass says how many of its rounds
    it has solved as it goes, on the line that said the pass began (a log gets no more lines)."""
    from py421.play.coach import game_solving
    from py421.solver.game_maxn import Sweep

    for lang, wanted in (
        ("en", "solving the whole game: part 1 of 2, the décharge: pass 2 under way, 6,400 of 7,080 rounds"),
        ("fr", "résolution de la partie entière : étape 1 sur 2, la décharge : passe 2 en cours, "
         "6 400 tours sur 7 080"),
    ):  # fmt: skip
        said: list[tuple[str, str]] = []

        def say(text: str, stage: str, said: list[tuple[str, str]] = said) -> None:
            said.append((text, stage))

        progress = game_solving(say, lang)
        progress("positions", 52_976, 0)
        progress("manche", 1, 2)
        progress("rounds", 64, 7_080)
        progress("decharge", 1, 0, Sweep(0.23, 1e-12, None))
        progress("rounds", 6_400, 7_080)
        assert said[4] == (wanted, said[1][1]) and said[2][1] == said[1][1], said
        assert "1 " in said[2][0] and "64" in said[2][0]
    small: list[str] = []
    progress = game_solving(lambda text, stage: small.append(text))
    progress("manche", 1, 2)
    progress("rounds", 64, 100)  # a small game's passes take moments: nothing said
    assert small == []


def test_a_pass_tells_its_rounds_as_it_solves_them():
    from py421.solver.game_maxn import TOLD_ROUNDS, GameMaxn

    told: list[tuple[int, int]] = []

    def progress(stage: str, step: int, total: int, sweep: Any = None, /) -> None:
        if stage == "rounds":
            told.append((step, total))

    GameMaxn(Ruleset.preset("classic-11"), 3).solve(progress)
    assert told and all(0 < done <= total and done % TOLD_ROUNDS == 0 for done, total in told)


def test_the_reports_default_fits_in_about_a_minute():
    report = main.commands["report"]
    games = next(p for p in report.params if p.name == "games")
    assert games.default == 10_000


# -- help ---------------------------------------------------------------------------

EVERY = tuple(main.commands)


def commands(names: tuple[str, ...]) -> list[tuple[str, click.Command]]:
    found = []
    for name in names:
        command = main.commands[name]
        found.append((name, command))
        if isinstance(command, click.Group):
            found += [(f"{name} {sub}", c) for sub, c in command.commands.items()]
    return found


def test_the_command_list_shows_each_summary_whole():
    listing = run_cli("--help").output
    for name, command in commands(EVERY):
        short = command.get_short_help_str(64)
        assert not short.endswith("...") and "(e.g" not in short, name
    assert "(e.g.\n" not in listing


def test_every_option_of_these_commands_says_what_it_is():
    for name, command in commands(EVERY):
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"{name} {param.opts[0]}"


def test_every_command_shows_examples():
    for name, command in commands(EVERY):
        if isinstance(command, click.Group):
            continue
        help_text = run_cli(*name.split(), "--help").output
        assert "Examples:\n" in help_text, name
        examples = help_text.split("Examples:\n")[1].split("\n\n")[0].splitlines()
        assert examples and all(line.strip().startswith("421 ") for line in examples), name


def test_the_seeds_say_what_they_accept():
    simulate = run_cli("simulate", "--help").output
    assert "A whole number from 0" in simulate.split("--seed")[1].split("--")[0]


# -- docs ---------------------------------------------------------------------------


def test_no_page_tells_to_install_a_published_extra():
    root = Path(__file__).parents[1]
    for page in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        assert "py421[" not in text, page.name


def test_solve_names_the_options_set_on_a_preset(private_home):
    result = CliRunner().invoke(main, ["solve", "--players", "3", "--set", "pot=3", "--lang", "en"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("classic-11 (pot=3), 3 players")


def test_serve_on_an_address_no_interface_has_says_so_in_french() -> None:
    pytest.importorskip("uvicorn")
    result = run_cli("--lang", "fr", "serve", "--host", "192.0.2.1", "--port", str(free_port()))
    assert result.exit_code == 2, result.output
    assert "aucune interface réseau de cette machine n'a cette adresse" in result.output, result.output


@pytest.mark.parametrize(
    ("lang", "said"), [("en", "11 is not in the range"), ("fr", "11 n'est pas dans l'intervalle")]
)
def test_a_decimal_option_out_of_range_is_quoted_as_typed(lang: str, said: str) -> None:
    """``--bot-delay 11`` came back as « 11.0 », a number nobody typed."""
    result = run_cli("play", "--bot-delay", "11", "--lang", lang)
    assert result.exit_code == 2, result.output
    assert said in result.output and "11.0" not in result.output, result.output
