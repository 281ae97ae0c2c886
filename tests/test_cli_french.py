"""Every command in French: nothing of the catalog's English side is left in what it prints."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from py421.cli import main
from py421.i18n import EN, FR

from .helpers import online_game

# A sentence of this many words or more is one a French reader must not meet in English.
WORDS = 3


def english_sentences() -> set[str]:
    """The English catalog's literal text between its fields, where French words it differently.

    A piece that French uses too (« pour ce qui est », a notation, a command) is not English left over.
    """
    french = "\n".join(FR.values())
    pieces = set()
    for key, text in EN.items():
        if text == FR[key]:
            continue
        for piece in re.split(r"\{[^}]*\}", text):
            piece = piece.strip(" :;,.()—-")
            if len(piece.split()) >= WORDS and piece not in french:
                pieces.add(piece)
    return pieces


ENGLISH = english_sentences()


def leftovers(output: str) -> list[str]:
    return sorted(piece for piece in ENGLISH if piece in output)


def an_online_record(tmp_path: Path, *, wrong: bool = False) -> str:
    """A short game dealt by the server's seeded dice, with its seed and hash, as 421 verify reads it."""
    data, _ = online_game("a secret seed")
    if wrong:
        data["steps"][0]["dice"] = "111" if data["steps"][0]["dice"] != "111" else "666"
        data.pop("final", None)
    path = tmp_path / ("wrong.json" if wrong else "online.json")
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def commands(tmp_path: Path, port: int) -> dict[str, list[tuple[list[str], str | None]]]:
    """Each command of ``421 --help`` with representative arguments (and typed input)."""
    game = str(tmp_path / "game.json")
    return {
        "rules": [(["rules", "list"], None), (["rules", "show", "engranjeu-21"], None)],
        "compare": [
            (["compare", "611", "666"], None),
            (["compare", "653", "642", "--rules", "comptoir-21"], None),
            (["compare", "421", "421"], None),
            (["compare", "221", "321", "--rules", "vache-41"], None),
            (["compare", "7-1-1", "653"], None),
        ],
        "odds": [(["odds", "653"], None), (["odds", "111", "--throws", "1"], None)],
        "advise": [
            (["advise", "642", "--throws-left", "2", "--target", "653"], None),
            (["advise", "642", "--throws-left", "1"], None),
        ],
        "duel": [(["duel", "--ties", "half"], None)],
        "solve": [(["solve", "--rules", "tim"], None), (["solve", "--players", "3", "--set", "pot=3"], None)],
        "simulate": [(["simulate", "--games", "200", "--workers", "1"], None)],
        "ladder": [(["ladder", "--players=bot:random,bot:heuristic", "--games=200", "--workers=1"], None)],
        # The page and its plots in French: tests/test_report.py (a report takes a while to write).
        "report": [(["report", "--rules", "nope", "--out", str(tmp_path / "report")], None)],
        "serve": [(["serve", "--port", str(port)], None)],
        "site": [(["site", "--out", str(tmp_path / "site")], None)],
        "verify": [
            (["verify", an_online_record(tmp_path)], None),
            (["verify", an_online_record(tmp_path, wrong=True)], None),
        ],
        "play": [
            (
                ["play", "--plain", "--players", "bot:random,bot:heuristic", "--seed", "3", "--record", game],
                None,
            ),
            (
                ["play", "--plain", "--players", "Ana,bot:random", "--seed", "5"],
                "9\n666\n?\nconseil\nbon 4\n",
            ),
        ],
        "table": [(["table", "--players", "Ana,Bob"], "?\n7-1-1\n421/3\n654/2\nu\nu\nu\n")],
        "history": [(["history"], None), (["history", "1"], None), (["history", "1", "--analyse"], None)],
        "stats": [(["stats"], None)],
        "replay": [(["replay", game, "--log"], None)],
        "analyse": [(["analyse", game, "--bots"], None), (["analyse", "1"], None)],
    }


def test_every_command_speaks_french(tmp_path: Path, busy_port: int) -> None:
    listed = set(main.commands)
    table = commands(tmp_path, busy_port)
    assert listed == set(table), "give each command of 421 --help a French run here"
    runner = CliRunner()
    for runs in table.values():
        for args, typed in runs:
            # The locale alone, then the option: both choose French.
            for env, extra in (
                ({"LANG": "fr_FR.UTF-8", "LC_ALL": "", "LC_MESSAGES": "", "LANGUAGE": ""}, []),
                ({"LANG": "C"}, ["--lang", "fr"]),
            ):
                result = runner.invoke(main, [*args, *extra], input=typed, env=env)
                output = result.output
                assert result.exception is None or isinstance(result.exception, SystemExit), (args, output)
                assert output.strip(), args
                assert leftovers(output) == [], (args, extra, output)


def test_the_check_finds_english_where_it_is_left() -> None:
    result = CliRunner().invoke(main, ["compare", "653", "642", "--lang", "en"])
    assert leftovers(result.output)  # the English side is what the check looks for
    assert any("compared die by die" in piece for piece in ENGLISH)


def test_help_lists_every_command() -> None:
    result = CliRunner().invoke(main, ["--help"])
    for name, command in main.commands.items():
        assert isinstance(command, click.Command)
        assert name in result.output


def test_the_end_of_a_game_is_written_with_french_typography(private_home):
    result = CliRunner().invoke(
        main,
        ["play", "--lang", "fr", "--players", "bot:random,bot:heuristic", "--seed", "1", "--set", "pot=3"],
    )
    line = next(x for x in result.output.splitlines() if x.startswith("manches perdues"))
    assert re.fullmatch(r"manches perdues : manche 1 : \S+ \d ; manche 2 : \S+ \d", line), line


def test_a_whole_category_above_another_agrees_in_french() -> None:
    said = CliRunner().invoke(main, ["compare", "611", "666", "--lang", "fr"]).output.replace("\u00a0", " ")
    assert "avec ces règles, n'importe quelle paire d'as (x11) bat n'importe quel brelan\n" in said
    said = CliRunner().invoke(main, ["compare", "421", "111", "--lang", "fr"]).output.replace("\u00a0", " ")
    assert "avec ces règles, le 421 bat le brelan d'as (111)\n" in said


def test_an_ace_that_counts_highest_is_shown_as_its_face_in_both_languages():
    """« ace contre 6 »: an English word in the French sentence."""
    for lang, said in (("fr", "1 contre 6 (l'as compte"), ("en", "1 against 6 (the ace counts")):
        output = (
            CliRunner()
            .invoke(main, ["compare", "651", "653", "--rules", "comptoir-21", "--lang", lang])
            .output
        )
        assert said in output.replace("\u00a0", " ") and "ace contre" not in output, output
