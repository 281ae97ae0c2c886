"""The help pages and click's own usage errors, in French under --lang fr or a French locale,
and the English help as it was."""

from __future__ import annotations

import re

import click
import pytest
from click.testing import CliRunner, Result

from py421.cli import main

from .test_cli_french import leftovers

FRENCH_LOCALE = {"LANG": "fr_FR.UTF-8", "LC_ALL": "", "LC_MESSAGES": "", "LANGUAGE": ""}
NO_LOCALE = {"LANG": "C", "LC_ALL": "", "LC_MESSAGES": "", "LANGUAGE": ""}

# What click says in English on every help page and usage error: none of it may be left in French.
CLICK_ENGLISH = (
    "Usage:",
    "Options:",
    "Commands:",
    "Show this message and exit",
    "Show the version and exit",
    "default:",
    "required]",
    "Try '",
    "Error:",
    "No such option",
    "No such command",
    "Did you mean",
    "Missing argument",
    "Missing option",
    "Invalid value",
    "is not in the range",
    "is not a valid",
    "is not one of",
    "requires an argument",
    "unexpected extra argument",
    "is a directory",
    "Examples:",
    "TEXT ",
    "INTEGER",
    "FLOAT",
    " FILE",
    "DIRECTORY",
    "RECORD_FILE",
    "COMMAND [ARGS]",
    "=FILE",  # py421's own placeholders
    " ORIGIN ",
    " NAME ",
)


def paths() -> list[list[str]]:
    """Every command of ``421``, and the subcommands of its groups."""
    found: list[list[str]] = [[]]
    for name, command in main.commands.items():
        found.append([name])
        if isinstance(command, click.Group):
            found += [[name, sub] for sub in command.commands]
    return found


def run(args: list[str], env: dict[str, str]) -> Result:
    return CliRunner().invoke(main, args, env=env)


def assert_french(output: str, args: list[str]) -> None:
    english = [word for word in CLICK_ENGLISH if word in output]
    assert english == [], (args, output)
    assert leftovers(output) == [], (args, output)


@pytest.mark.parametrize("args", paths(), ids=lambda p: " ".join(p) or "421")
def test_every_help_page_is_french(args: list[str]) -> None:
    for env, extra in ((FRENCH_LOCALE, []), (NO_LOCALE, ["--lang", "fr"])):
        result = run([*args, "--help", *extra], env)
        assert result.exit_code == 0, (args, result.output)
        page = result.output
        assert page.startswith("Utilisation : "), page
        assert "\nOptions :\n" in page, page
        assert re.search(r"-h, --help +Afficher cette aide et quitter\.", page), page
        assert_french(page, [*args, *extra])
        command: click.Command = main
        for name in args:
            assert isinstance(command, click.Group)
            command = command.commands[name]
        if isinstance(command, click.Group):
            assert "\nCommandes :\n" in page, page
        else:
            examples = page.split("Exemples :\n")[1].split("\n\n")[0].splitlines()
            assert examples and all(line.strip().startswith("421 ") for line in examples), page


def test_the_help_says_what_each_option_does_in_french() -> None:
    page = run(["play", "--help", "--lang", "fr"], NO_LOCALE).output
    assert "Jouer au 421 dans le terminal" in page
    assert re.search(
        r"--rules TEXTE +Règles prédéfinies ou fichier de règles\. +\[défaut :\s+classic-11\]", page
    )
    assert "--set OPTION=VALEUR" in page
    assert "--record FICHIER" in page
    assert "--bot-delay NOMBRE" in page
    history = run(["history", "--help"], FRENCH_LOCALE).output
    assert "Utilisation : main history [OPTIONS] [NUMÉRO]" in history
    report = run(["report", "--help", "--lang", "fr"], NO_LOCALE).output
    assert re.search(r"--out DOSSIER +Dossier où écrire\. +\[obligatoire\]", report), report


def test_the_command_list_is_french() -> None:
    page = run(["--help"], FRENCH_LOCALE).output
    assert re.search(r"\n  play +Jouer dans le terminal contre des bots ou entre amis\.\n", page), page
    assert re.search(r"--version +Afficher la version et quitter\.", page), page
    assert "Usage:" in run(["--help"], NO_LOCALE).output


def command_summaries(page: str) -> dict[str, str]:
    """A group's help page: each command's summary, by name (a summary wrapped on is joined)."""
    listed = re.split(r"\n(?:Commands|Commandes) ?:\n", page)[1].split("\n\n")[0]
    summaries: dict[str, str] = {}
    name = ""
    for line in listed.splitlines():
        found = re.match(r"  (\S+) +(.*)", line)
        if found:
            name, summaries[found[1]] = found[1], found[2]
        else:
            summaries[name] += " " + line.strip()
    return summaries


GROUPS = [
    p for p in paths() if len(p) < 2 and isinstance(main.commands.get(p[0]) if p else main, click.Group)
]


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("columns", [80, 60])
@pytest.mark.parametrize("args", GROUPS, ids=lambda p: " ".join(p) or "421")
def test_no_command_summary_is_cut(args: list[str], columns: int, lang: str) -> None:
    """click cuts a summary taken from the help to the room it has, with « ... »: each is whole.

    The help is laid out as in a terminal of ``columns`` (click writes 2 columns less; its test
    runner would lay it out at 80 whatever the terminal).
    """
    command = main.commands[args[0]] if args else main
    assert isinstance(command, click.Group)
    page = (
        CliRunner()
        .invoke(main, [*args, "--help", "--lang", lang], env=NO_LOCALE, terminal_width=columns - 2)
        .output
    )
    summaries = command_summaries(page)
    assert set(summaries) == set(command.commands), page
    for name, summary in summaries.items():
        assert not summary.endswith("..."), (name, summary)
        assert summary.endswith("."), (name, summary)
    if columns == 80:  # each on its one line
        listed = re.split(r"\n(?:Commands|Commandes) ?:\n", page)[1].split("\n\n")[0]
        assert len(listed.splitlines()) == len(summaries), listed


@pytest.mark.parametrize(
    ("args", "french"),
    [
        (["play", "--bogus"], "Erreur : option inconnue : '--bogus'."),
        (
            ["play", "--plain", "--playrs", "A,B"],
            "(Vouliez-vous dire l'une de ces valeurs : '--plain', '--players' ?)",
        ),
        (
            ["play", "--plain", "--bot-dlay", "1"],
            "Erreur : option inconnue : '--bot-dlay'. Vouliez-vous dire '--bot-delay' ?",
        ),
        (["compare", "421"], "Erreur : il manque l'argument 'SECOND'."),
        (["odds", "653", "--throws", "9"], "Erreur : valeur non valable pour '--throws' : 9 n'est pas dans"),
        (["odds", "653", "--throws", "abc"], "Erreur : valeur non valable pour '--throws' : 'abc' n'est pas"),
        (["history", "--limit"], "Erreur : l'option '--limit' demande une valeur."),
        (["compare", "421", "653", "666"], "Erreur : argument en trop (666)"),
        (["report", "--games", "500"], "Erreur : il manque l'option '--out'."),
        (["rules", "show", "tim", "--set"], "Erreur : l'option '--set' demande une valeur."),
        (["simulate", "--rules", "tim", "--players", "bot:random", "--games", "0"], "--games"),
    ],
)
def test_click_s_usage_errors_are_french(args: list[str], french: str) -> None:
    for env, extra in ((FRENCH_LOCALE, []), (NO_LOCALE, ["--lang", "fr"])):
        result = run([*extra, *args], env)  # 421 --lang fr history --limit
        assert result.exit_code == 2, (args, result.output)
        assert french in result.output, (args, extra, result.output)
        if "demande une valeur" not in french:  # click shows no usage for an option's missing value
            assert result.output.startswith("Utilisation : "), result.output
            assert "Essayez « main" in result.output and " --help » pour l'aide." in result.output, (
                result.output
            )
        assert_french(result.output, args)


def test_an_unknown_command_is_refused_in_french() -> None:
    result = run(["plya"], FRENCH_LOCALE)
    assert result.exit_code == 2
    assert (
        "Erreur : commande inconnue : 'plya'. (Vouliez-vous dire l'une de ces valeurs : 'play',"
        in result.output
    )
    assert (
        "Erreur : commande inconnue : 'stat'. Vouliez-vous dire 'stats' ?"
        in run(["stat"], FRENCH_LOCALE).output
    )
    assert_french(result.output, ["plya"])


def test_a_folder_given_for_a_file_is_refused_in_french(tmp_path) -> None:
    result = run(["replay", str(tmp_path), "--lang", "fr"], NO_LOCALE)
    assert result.exit_code == 2
    assert f"'{tmp_path}' est un dossier" in result.output, result.output
    assert_french(result.output, ["replay"])


def test_english_stays_english() -> None:
    result = run(["play", "--bogus", "--lang", "en"], FRENCH_LOCALE)
    assert "Error: No such option '--bogus'." in result.output
    assert result.output.startswith("Usage: main play [OPTIONS]")
    assert "Try 'main play --help' for help." in result.output
    assert run(["compare", "421"], NO_LOCALE).output.endswith("Error: Missing argument 'SECOND'.\n")
    # A French run does not leave its words behind for the next one.
    run(["compare", "--help", "--lang", "fr"], NO_LOCALE)
    assert "Show this message and exit." in run(["compare", "--help"], NO_LOCALE).output
    assert main.commands["play"].get_short_help_str(64) == "Play in the terminal against bots or friends."


COMPARE_HELP = """\
Usage: main compare [OPTIONS] FIRST SECOND

  Which of two results wins, and why.

  FIRST and SECOND are results in dice notation: 421, 6-1-1, 665.

  Examples:
    421 compare 611 666
    421 compare 611 666 --rules vache-41
    421 compare 421 124 --json

Options:
  --rules TEXT        Preset or file.  [default: classic-11]
  --set OPTION=VALUE  Change an option.
  --json              Print JSON.
  --lang [en|fr]      Language of the output (default: French where the system
                      locale is French).
  -h, --help          Show this message and exit.
"""

TABLE_HELP = """\
Usage: main table [OPTIONS]

  Keep the score of a real table: type what the dice show, py421 does the rest.

  Examples:
    421 table --players "Ana,Bob,Carol"
    421 table --rules lyonnaise-21 --players "Ana,Bob" --lang fr
    421 table --resume

Options:
  --rules TEXT        Preset or file.  [default: classic-11]
  --set OPTION=VALUE  Change an option.
  --players TEXT      Comma-separated names, in seating order.
  --lang [en|fr]      Language of the game (default: French where the system
                      locale is French).
  --resume [N]        Continue the last unfinished table; with N, the N-th as
                      --saved lists them.
  --saved             List the unfinished tables, numbered as --resume N takes
                      them.
  --record FILE       Write the finished game's record (JSON) to this file; 421
                      replay reads it.
  -h, --help          Show this message and exit.
"""

HISTORY_HELP = """\
Usage: main history [OPTIONS] [GAME_ID]

  List finished games; with a number, replay that game step by step (and with
  --analyse, value its decisions).

  Examples:
    421 history
    421 history 3 --lang fr
    421 history 3 --analyse
    421 history --online

Options:
  --limit INTEGER RANGE  How many of the latest games to list.  [default: 20;
                         1<=x<=10000]
  --analyse              With a game's number: its analysis after its replay, as
                         421 analyse prints it.
  --online               The games of the tables 421 serve has run on this
                         machine (its database: PY421_DB, else the data
                         folder's).
  --lang [en|fr]         Language of the output (default: French where the
                         system locale is French).
  -h, --help             Show this message and exit.
"""


@pytest.mark.parametrize(
    ("args", "page"),
    [(["compare"], COMPARE_HELP), (["table"], TABLE_HELP), (["history"], HISTORY_HELP)],
)
def test_english_help_is_as_it_was(args: list[str], page: str) -> None:
    for env, extra in ((NO_LOCALE, []), (FRENCH_LOCALE, ["--lang", "en"])):
        assert run([*args, "--help", *extra], env).output == page


def test_every_english_help_page_keeps_its_parts() -> None:
    for args in paths():
        page = run([*args, "--help"], NO_LOCALE).output
        assert page.startswith("Usage: main"), args
        assert "\nOptions:\n" in page and "Show this message and exit." in page, args
        assert leftovers(page), args  # the English help is the catalog's English


# Click's sentences a user of 421 cannot meet: a program's own mistakes, prompts and types it does
# not use, Windows' and the shell completion's messages.
NOT_MET = {
    "Could not determine name for option with declarations {decls!r}",
    "No options defined but a name was passed ({name}). Did you mean to declare an argument instead? "
    "Did you mean to pass '--{name}'?",
    "Name '{name}' defined twice",
    "Boolean option {decl!r} cannot use the same flag for true/false.",
    "Arguments take exactly one parameter declaration, got {length}: {decls}.",
    "Value must be an iterable.",
    "DeprecationWarning: The command {name!r} is deprecated.{extra_message}",
    "DeprecationWarning: The {param_type} {name!r} is deprecated.{extra_message}",
    "deprecated",
    "Choice({choices})",
    "file",
    "directory",
    "path",
    "{value!r} does not match the format {format}.",
    "{value!r} does not match the formats {formats}.",
    "{value!r} is not a valid UUID.",
    "{len_type} values are required, but {len_value} was given.",
    "{len_type} values are required, but {len_value} were given.",
    "Do you want to continue?",
    "Confirm the action without prompting.",
    "%(prog)s, version %(version)s",
    "unknown error",
    "Invalid start character for option ({option})",
    "{name} {filename!r} is not executable.",
    "Repeat for confirmation",
    "Error: The two entered values do not match.",
    "Error: invalid input",
    "Press any key to continue...",
    "Unknown color {colour!r}",
    "Unknown standard stream '{name}'",
}
CLICK_MODULES = ("core", "exceptions", "parser", "types", "formatting", "decorators", "termui")


def test_every_sentence_click_says_to_a_user_is_in_the_catalog() -> None:
    """Read from click's own source, so that a new click with new words fails here, not in silence."""
    import ast
    from pathlib import Path

    from py421.cli.words import CLICK_KEYS

    said: set[str] = set()
    for name in CLICK_MODULES:
        tree = ast.parse((Path(click.__file__).parent / f"{name}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("_", "ngettext")
            ):
                said |= {
                    a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
                }
    assert len(said) > 40
    assert sorted(said - NOT_MET - set(CLICK_KEYS)) == []


def test_every_option_is_worded_by_the_catalog() -> None:
    """An option whose help is written in code would stay English in French: each has its cli.opt.* key."""
    from py421.cli.words import Worded, commands

    unworded = [
        f"{command.name} {param.opts[0]}"
        for command in commands(main)
        if isinstance(command, Worded)
        for param in command.params
        if isinstance(param, click.Option) and param.name != "version" and param not in command.option_keys
    ]
    assert unworded == []
    assert all(isinstance(command, Worded) for command in commands(main))
