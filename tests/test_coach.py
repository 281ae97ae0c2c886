"""Hints in line mode (``hint``, ``conseil``) and ``421 history N --analyse``, in both languages."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner

from py421.analysis import Hint, analyse, analysis_text, hint_text
from py421.cli import main
from py421.core.actions import Throw
from py421.core.dice import Result
from py421.core.rules import Ruleset
from py421.i18n import CATALOGS, action_text, num, tr
from py421.play.coach import solving
from py421.play.plain import InputEnded, run_plain
from py421.play.session import Session, parse_seats
from py421.solver.advice import RoundContext, advise_game

from .test_cli_french import leftovers
from .test_tui import scripted
from .test_tui_coach import BLUNDER_DICE

CLASSIC = Ruleset.preset("classic-11")


def play_lines(answers: list[str], *, lang: str = "en", hints: bool = False) -> list[str]:
    """The scripted game of two people in line mode, up to Bob's decision on 221 against 654 and
    the answers given there; the lines it printed."""
    session = scripted(Session(CLASSIC, parse_seats(["Ana", "Bob"]), seed="coach"), BLUNDER_DICE)
    given: Iterator[str] = iter(["6", "", *answers])  # Ana keeps the 6 of 632, stops on 654
    lines: list[str] = []
    with pytest.raises(InputEnded):
        run_plain(session, lang=lang, out=lines.append, ask=lambda prompt: next(given, None), hints=hints)
    return lines


@pytest.mark.parametrize(("lang", "word"), [("en", "hint"), ("fr", "conseil"), ("en", "h")])
def test_a_hint_ranks_the_choices_as_the_solver_does(lang: str, word: str, unshipped: None) -> None:
    lines = play_lines([word], lang=lang, hints=True)
    position = tr(lang, "analysis.left", dice="221", n=1, s="") + tr(lang, "analysis.against", before="654")
    head = lines.index("  " + tr(lang, "analysis.hint.head", player="Bob", position=position))
    context = RoundContext(2, (Result.parse("654"),), limit=2, tokens=(8, 3))
    best = advise_game(CLASSIC, Result.parse("221"), 1, context).options[0]
    first = lines[head + 1].split()
    shown = action_text(lang, Throw(best.keep)).split()
    assert first[: len(shown)] == shown
    assert first[len(shown)] == num(lang, best.value, ".2%").split()[0]
    assert lines[head + 1].endswith(tr(lang, "analysis.hint.best"))
    # not on the disk yet: solved first, each stage said once
    assert lines.count("  " + tr(lang, "cli.once", what=solving(CLASSIC, "decharge", 1, lang))) == 1
    assert not any(solving(CLASSIC, "decharge", 2, lang) in line for line in lines)


def test_no_hint_between_people_unless_asked_for() -> None:
    lines = play_lines(["?", "hint", "conseil"])
    off = "  " + tr("en", "coach.off")
    assert lines.count(off) == 2
    assert CATALOGS["en"]["prompt.hint_help"] not in lines  # the help does not offer it
    assert not any(line.startswith("  Bob, 221") for line in lines)


def test_the_help_offers_the_hint_where_it_is_on() -> None:
    lines = play_lines(["?"], lang="fr", hints=True)
    assert CATALOGS["fr"]["prompt.hint_help"] in lines


def run(*args: str, **kwargs: Any) -> Any:
    return CliRunner().invoke(main, list(args), **kwargs)


def test_play_hints_turns_hints_on_between_people() -> None:
    people = ("play", "--plain", "--players", "Ana,Bob", "--seed", "4")
    typed = "hint\n" + "\n" * 3000
    without = run(*people, input=typed)
    assert without.exit_code == 0
    assert tr("en", "coach.off") in without.stdout
    asked = run(*people, "--hints", input=typed)
    assert asked.exit_code == 0
    assert tr("en", "coach.off") not in asked.stdout
    ranked = ": the choices, best first ("
    assert ranked in asked.stdout and tr("en", "analysis.hint.best") in asked.stdout
    alone = run("play", "--plain", "--players", "Ana,bot:heuristic", "--seed", "4", input=typed)
    assert "  Ana, " in alone.stdout and ranked in alone.stdout


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_history_analyse_prints_the_game_then_its_analysis(lang: str) -> None:
    assert (
        run("play", "--plain", "--players", "Ana,bot:heuristic", "--seed", "5", input="\n" * 3000).exit_code
        == 0
    )
    from py421.cli.common import named_in
    from py421.history import History

    replay = run("history", "1", "--lang", lang)
    result = run("history", "1", "--analyse", "--lang", lang)
    assert result.exit_code == 0, result.output
    found = analyse(named_in(History().record(1), lang))  # the bot named in the language read
    assert found.decisions
    expected = analysis_text(found, lang, "classic-11")
    assert result.stdout == f"{replay.stdout}\n{expected}\n{tr(lang, 'cli.analyse.bots_hint')}\n"
    if lang == "fr":
        assert leftovers(result.output) == []


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_history_analyse_needs_a_game_number(lang: str) -> None:
    result = run("history", "--analyse", "--lang", lang)
    assert result.exit_code == 2
    assert tr(lang, "cli.history.analyse_needs") in result.output


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_stake_the_rounds_do_not_value_says_so(lang: str) -> None:
    """Between three, « main chaude » changes nothing to the chance of not losing the round."""
    hint = Hint(0, "Ana", "stake", "331", 0, (), ())
    lines = hint_text(hint, "rounds", 3, lang).splitlines()
    assert lines == [
        tr(lang, "analysis.hint.head", player="Ana", position=tr(lang, "analysis.stake", dice="331")),
        tr(lang, "analysis.hint.unvalued"),
        tr(lang, "analysis.objective.rounds", n=3),
    ]
