"""``421 advise --objective game`` as a new user meets it: what it says while the game is solved, and
what it refuses at once, before any solve, with what was wrong and what is accepted."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from py421.cli import main

GAME = ["advise", "642", "--objective", "game"]


def advise(*args: str, lang: str = "en") -> Any:
    return CliRunner().invoke(main, [*GAME, *args, "--lang", lang], env={"LANG": "C"})


@pytest.fixture
def no_solve(monkeypatch: pytest.MonkeyPatch, unshipped: None) -> None:
    """Nothing solved or kept: a question that would need a solve fails the test."""
    from py421.solver import solutions

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("solved before the question was checked")

    monkeypatch.setattr(solutions, "solve_maxn_cached", refused)
    monkeypatch.setattr(solutions, "solve_cached", refused)
    monkeypatch.setattr(solutions, "solve_game_cached", refused)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        # comptoir-21's charge is played in coups secs: no throw is ever left in it
        (
            [
                "--rules",
                "comptoir-21",
                "--tokens",
                "4,4,3",
                "--phase",
                "charge",
                "--pot",
                "10",
                "--throws-left",
                "1",
            ],
            "a turn has at most 1 throw here: no throw can be left, not 1",
        ),
        # two players: the manche's solve (two-player solver) waits for the question too
        (
            [
                "--rules",
                "vache-41",
                "--tokens",
                "20,21",
                "--before",
                "631",
                "--limit",
                "1",
                "--throws-left",
                "1",
            ],
            "a turn has at most 1 throw here: no throw can be left, not 1",
        ),
        # the tokens of a position the game never reaches: said from the positions alone
        (
            ["--set", "withdraw_at_zero=false", "--tokens", "1,0,10", "--throws-left", "1"],
            "no position of the solved game has these tokens (1, 0, 10), pot 0, leader (you) and "
            "players in the round (everyone): the game never reaches it",
        ),
        # the charge: the leader is the player before you, everyone in the round
        (
            ["--phase", "charge", "--pot", "5", "--tokens", "3,3,0", "--before", "653", "--throws-left", "0"],
            "no position of the solved game has these tokens (3, 3, 0), pot 5, leader (the player at place 2 "
            "after you) and players in the round (everyone): the game never reaches it",
        ),
        # a player out of the manche as --out says, and another holding nothing still in it
        (
            ["--set", "withdraw_at_zero=false", "--tokens", "11,0,0", "--out", "1", "--throws-left", "1"],
            "no position of the solved game has these tokens (11, 0, 0), pot 0, leader (you) and players in "
            "the round (everyone but the player at place 1 after you): the game never reaches it; "
            "a player holding no token who is out of the manche is named by --out, like --out 2",
        ),
    ],
)
def test_a_question_is_checked_before_the_game_is_solved(no_solve: None, args: list[str], said: str) -> None:
    result = advise(*args)
    assert result.exit_code == 2, result.output
    assert f"Error: {said}" in result.output


def test_a_position_the_game_never_reaches_says_who_leads_and_who_is_in_and_names_out(no_solve: None) -> None:
    """Under ``withdraw_at_zero=false`` a player holding nothing is in the manche until told out: the
    refusal names the leader and the players in the round, and --out, which says who is out."""
    result = advise("--set", "withdraw_at_zero=false", "--tokens", "1,0,10", "--throws-left", "1")
    assert result.exit_code == 2, result.output
    assert (
        "no position of the solved game has these tokens (1, 0, 10), pot 0, leader (you) and "
        "players in the round (everyone): the game never reaches it; a player holding no "
        "token who is out of the manche is named by --out, like --out 1"
    ) in result.output
    french = advise("--set", "withdraw_at_zero=false", "--tokens", "1,0,10", "--throws-left", "1", lang="fr")
    assert (
        "aucune position de la partie résolue n'a ces jetons (1, 0, 10), ce pot (0), celui qui entame "
        "(vous) et ces joueurs dans le tour (tout le monde) : la partie n'y arrive jamais ; un joueur sans "
        "jeton qui est hors de la manche se nomme avec --out, comme --out 1"
    ) in french.output


@pytest.mark.parametrize(
    ("args", "said"),
    [
        # « qui barre démarre »: the leader's throws are the limit, whether --limit says it or not
        (
            ["--rules", "engranjeu-21", "--tokens", "7,7,7", "--before", "653/2,631/3", "--throws-left", "0"],
            "631 took 3 throws, more than the limit the leader's result set (2): no later result takes more",
        ),
        (
            ["--rules", "engranjeu-21", "--tokens", "7,7,7", "--before", "653/1,631/3", "--throws-left", "0"],
            "631 took 3 throws, more than the limit the leader's result set (1): no later result takes more",
        ),
        # the leader's throws and --limit say the limit twice: they must agree
        (
            ["--tokens", "4,4,3", "--before", "421/2", "--limit", "3", "--throws-left", "1"],
            "the leader's result took 2 throws (421/2), and --limit says 3; the leader's throws are the "
            "limit: give one of them, or the same number in both",
        ),
        # and by a round's objective too, which read --limit alone (three throws, where one was left)
        (
            [
                "--objective",
                "loser",
                "--players",
                "3",
                "--before",
                "421/3",
                "--limit",
                "2",
                *["--throws-left", "0"],
            ],
            "the leader's result took 3 throws (421/3), and --limit says 2",
        ),
        (
            ["--objective", "tokens", "--players", "3", "--before", "421/1", "--throws-left", "2"],
            "no throw can be left, not 2",
        ),
        (
            ["--objective", "loser", "--players", "3", "--before", "421/4", "--throws-left", "0"],
            "421/4",
        ),
        # the pot is the charge's: the décharge has none
        (
            ["--before", "631", "--tokens", "4,4,3", "--pot", "500", "--throws-left", "1"],
            "--pot is the charge's: in the décharge the pot is empty (add --phase charge)",
        ),
        # a stake is read only where every throw of the charge adds to it
        (
            ["--before", "631", "--tokens", "4,4,3", "--stake", "99", "--throws-left", "1"],
            "--stake is read where every throw of the charge adds to the stake (accumulated_stakes, "
            "--phase charge), not here",
        ),
        (
            ["--set", "withdraw_at_zero=false", "--tokens", "11,0,0", "--out", "1,1", "--throws-left", "1"],
            "--out names each place once, not 1 twice",
        ),
        # counts beyond the seats the game-level solver takes: its refusal, not a two-player example
        (
            ["--tokens", "4,4,3,0,0,0", "--throws-left", "1"],
            "the game-level solver seats 2 to 5 players, not 6",
        ),
        (
            ["--players", "6", "--tokens", "4,4,3", "--throws-left", "1"],
            "expected 6 counts like 4,4,3,0,0,0 (yours, then clockwise), not '4,4,3'",
        ),
    ],
)
def test_a_wrong_position_is_refused_with_what_was_wrong(no_solve: None, args: list[str], said: str) -> None:
    result = advise(*args)
    assert result.exit_code == 2, result.output
    assert said in result.output


def test_advice_over_a_game_not_yet_solved_says_how_far_the_solve_is(unshipped: None) -> None:
    """It solves the game once per machine, as bot:optimal does, and says so on the error stream (a
    plain line as each stage begins, off a terminal) rather than staying silent for minutes; with
    --json, as ``421 solve --json``, nothing but the data."""
    args = ["--set", "pot=3", "--tokens", "1,1,1", "--before", "631", "--throws-left", "1"]
    first = advise(*args)
    assert first.exit_code == 0, first.output
    said = first.stderr.splitlines()
    assert said[0].startswith("  solving the whole game: part 1 of 2, the décharge: pass 1")
    assert "  solving the whole game: part 2 of 2, the charge: pot 1 of 3 (once per machine)" in said
    assert "stop on 642" in first.stdout
    again = advise(*args)
    assert again.exit_code == 0 and again.stderr == ""  # read back from the disk
    assert again.stdout == first.stdout
    two = advise("--rules", "tim", "--tokens", "5,6", "--throws-left", "1")
    assert two.exit_code == 0, two.output
    assert two.stderr.splitlines()[0].startswith("  solving the décharge: pass 1")
    quiet = advise("--rules", "tim", "--set", "pot=7", "--tokens", "3,4", "--throws-left", "1", "--json")
    assert quiet.exit_code == 0 and quiet.stderr == "", quiet.stderr
    assert json.loads(quiet.stdout)["options"]


def test_advice_over_the_game_says_the_tokens_it_values(unshipped: None) -> None:
    """Without --tokens the advice values an even split (the décharge) or a fresh manche (the
    charge), with as many players as --players or --before say: the reader sees which, in text and
    in JSON, and the same when the tokens were given."""
    small = ["--set", "pot=3", "--throws-left", "1"]
    even = advise(*small, "--players", "3")
    assert even.exit_code == 0, even.output
    assert "  tokens 1,1,1 (yours, then clockwise), the décharge" in even.stdout
    given = advise(*small, "--tokens", "2,0,1", "--before", "631", lang="fr")
    assert given.exit_code == 0, given.output
    assert (
        "  jetons 2,0,1 (les vôtres, puis dans le sens des aiguilles d'une montre), la décharge"
        in given.stdout
    )
    data = json.loads(advise(*small, "--players", "3", "--json").stdout)
    assert data["tokens"] == [1, 1, 1]
    two = advise("--rules", "tim", "--set", "pot=7", "--throws-left", "0", "--phase", "charge")
    assert two.exit_code == 0, two.output
    assert "  tokens 0,0 (yours, then the other player's), the charge, 7 in the pot" in two.stdout


def test_advice_names_the_players_out_it_valued() -> None:
    """With and without --out the same tokens got other values, under the same header: the header and
    the JSON said the tokens, not who was out."""
    args = ["--players", "3", "--set", "pot=4", "--set", "withdraw_at_zero=false", "--tokens", "3,0,1"]
    out = advise(*args, "--out", "1", "--throws-left", "1")
    assert out.exit_code == 0, out.output
    assert (
        "tokens 3,0,1 (yours, then clockwise), the décharge, out of the manche: 1 (places after yours)"
        in out.output
    )
    data = json.loads(advise(*args, "--out", "1", "--throws-left", "1", "--json").output)
    assert data["out"] == [1]
    still_in = json.loads(advise(*args, "--throws-left", "1", "--json").output)
    assert "out" not in still_in
    french = advise(*args, "--out", "1", "--throws-left", "1", lang="fr")
    assert "hors de la manche : 1 (places après la vôtre)" in french.output


def test_the_charges_pot_is_worked_out_from_the_tokens_given() -> None:
    """--tokens 2,3,1 in the charge was refused with the full pot (11) assumed: the pot is what the
    tokens leave, unless --pot says otherwise."""
    asked = ["--players", "3", "--tokens", "2,3,1", "--phase", "charge", "--throws-left", "0"]
    worked_out = advise(*asked, "--json")
    assert worked_out.exit_code == 0, worked_out.output
    said = advise(*asked, "--pot", "5", "--json")
    assert json.loads(worked_out.output) == json.loads(said.output)
    assert json.loads(worked_out.output)["pot"] == 5
    assert "the charge, 5 in the pot" in advise(*asked).output
