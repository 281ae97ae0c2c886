"""``421 analyse``: every decision of a game valued by the solver, each mistake with its exact cost."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from py421.analysis import Analysis, analyse, analysis_text
from py421.cli import main
from py421.core.chance import SeededDice
from py421.core.dice import Result
from py421.core.errors import InvalidPlayers, InvalidRecord
from py421.core.game import Game
from py421.core.record import Record
from py421.core.rules import Ruleset
from py421.i18n import num
from py421.play.coach import decharge_passes
from py421.play.session import Session, parse_seats
from py421.players import HeuristicBot
from py421.solver.advice import RoundContext, advise_game

from .helpers import play_until
from .test_cli_french import leftovers
from .test_solver_game_maxn import solved_here
from .test_solver_throw_on import MUST_THROW_ON_6

CLASSIC = Ruleset.preset("classic-11")
# The charge in four coups secs (Bob takes 8, then Ana 3), then the décharge: Ana, who leads, stops on
# 654 after two throws; Bob, with one throw left to beat it, stops on 221.
BLUNDER = "421|221|421|221|632|keep 6|54|stop|221|stop"
BLUNDER_STEP = 10  # Bob's stop


def scripted(rules: Ruleset, players: list[str], script: str) -> Game:
    game = Game(rules, players)
    for step in script.split("|"):
        game.throw(step) if step[0].isdigit() else game.act(step)
    return game


def write(tmp_path: Path, game: Game, name: str = "game.json") -> str:
    path = tmp_path / name
    path.write_text(game.record().to_json(), encoding="utf-8")
    return str(path)


def run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def solver_cost() -> tuple[float, float]:
    """What ``421 advise`` says stopping on 221 costs there: Bob holds 8 tokens, Ana 3."""
    context = RoundContext(2, (Result.parse("654"),), limit=2, tokens=(8, 3))
    options = advise_game(CLASSIC, Result.parse("221"), 1, context).options
    stop = next(o for o in options if o.stop)
    return options[0].value - stop.value, stop.value


def test_a_blunder_costs_what_the_solver_says(tmp_path):
    cost, stop_value = solver_cost()
    assert cost > 0.1  # a real blunder: more than ten points
    record = write(tmp_path, scripted(CLASSIC, ["Ana", "Bob"], BLUNDER))

    found = analyse(Record.from_json(Path(record).read_text(encoding="utf-8"))).decision(BLUNDER_STEP)
    assert (found.player, found.dice, found.throws_left, found.before) == ("Bob", "221", 1, ("654",))
    assert (found.chosen, found.best) == ("stop", "keep 21")
    # advise puts the mover at seat 0, the game has Ana there: the same values, up to rounding
    assert found.cost == pytest.approx(cost, abs=1e-12)
    assert found.chosen_value == pytest.approx(stop_value, abs=1e-12)

    data = json.loads(run("analyse", record, "--json").stdout)
    (decision,) = [d for d in data["decisions"] if d["step"] == BLUNDER_STEP]
    assert decision["cost"] == found.cost and decision["chosen"] == "stop" and decision["best"] == "keep 21"
    assert data["objective"] == "P(not losing the manche)"
    bob = next(s for s in data["summaries"] if s["player"] == "Bob")
    assert bob["mistakes"] == [BLUNDER_STEP] and bob["accuracy"] == 0.0 and bob["cost"] == found.cost

    text = run("analyse", record).stdout
    row = next(line for line in text.splitlines() if line.lstrip().startswith(f"{BLUNDER_STEP} "))
    position = ["221,", "1", "throw", "left,", "against", "654"]
    assert row.split() == [
        str(BLUNDER_STEP),
        "Bob",
        *position,
        "stop",
        "keep",
        "21",
        num("en", cost * 100, ".2f"),
    ]
    costliest = f"221, 1 throw left, against 654: stop ({stop_value:.2%}) rather than keep 21"
    assert costliest in text and f"{cost * 100:.2f} points" in text


def play(rules: Ruleset, seats: list[str], seed: str) -> Game:
    """A whole game; the people at the table play as bot:heuristic does."""
    from py421.players import make_bot

    session = Session(rules, parse_seats(seats), seed=seed)
    person = make_bot("heuristic", "")
    while not session.state.is_over:
        seat = session.human_to_move()
        session.act(person.choose(session.state)) if seat is not None else session.step()
    return session.game


def test_the_optimal_bot_makes_no_mistake(tmp_path):
    record = write(tmp_path, play(CLASSIC, ["bot:optimal", "bot:optimal"], "11"))
    data = json.loads(run("analyse", record, "--bots", "--json").stdout)
    assert len(data["decisions"]) > 5
    assert [(s["accuracy"], s["cost"], s["mistakes"]) for s in data["summaries"]] == [(1.0, 0.0, [])] * 2
    assert all(d["chosen"] == d["best"] for d in data["decisions"])
    text = run("analyse", record, "--bots").stdout
    assert text.count("(100.0%), total cost 0.00 points") == 2
    # French counts below two in the singular, decimals too: « 0,00 point », « 1,50 point »
    french = run("analyse", record, "--bots", "--lang", "fr").stdout
    assert french.count("coût total 0,00 point\n") == 2, french


@pytest.mark.parametrize(
    "settings", [["queue_de_la_vache=true", "manches=3"], ["espagnole=loses_game", "manches=3"]]
)
def test_where_manches_carry_over_two_players_are_valued_by_the_whole_game(tmp_path, settings):
    """What bot:optimal plays there: each choice for the game, not for the round or the manche."""
    rules = CLASSIC.with_settings(settings)
    record = write(tmp_path, play(rules, ["bot:optimal", "bot:optimal"], "5"))
    data = json.loads(run("analyse", record, "--bots", "--json").stdout)
    assert data["objective"] == "1 - expected share of the game's loss"
    assert len(data["decisions"]) > 5
    assert all(d["chosen"] == d["best"] for d in data["decisions"])
    assert [(s["accuracy"], s["cost"]) for s in data["summaries"]] == [(1.0, 0.0)] * 2


def test_the_bots_decisions_only_with_bots(tmp_path):
    record = write(tmp_path, play(CLASSIC, ["Ana", "bot:optimal"], "4"))
    alone = json.loads(run("analyse", record, "--json").stdout)
    both = json.loads(run("analyse", record, "--bots", "--json").stdout)
    assert {d["player"] for d in alone["decisions"]} == {"Ana"}
    assert [s["player"] for s in alone["summaries"]] == ["Ana"]
    assert {d["player"] for d in both["decisions"]} == {"Ana", "Optimal 1"}
    assert "--bots" in run("analyse", record).output


def test_a_main_chaude_stake_is_valued_as_the_solver_chooses(tmp_path):
    """Two ties in a row (the round, then its replay): Bob, first to rethrow, chooses the stake."""
    from py421.core.engine import est_amount
    from py421.solver.solutions import solved

    rules = Ruleset.preset("engranjeu-21").with_options(pot=5)
    game = scripted(rules, ["Ana", "Bob"], "331|331|551|551")
    state = game.state
    r = state.round
    assert r is not None and state.to_move == 1
    better = solved(rules).stake(
        True, state.pot, state.tokens[0], r.order[0], min(est_amount(state), state.pot)
    )
    worse = "est" if better == "vient" else "vient"
    for stake, costly in ((better, False), (worse, True)):
        record = write(tmp_path, scripted(rules, ["Ana", "Bob"], f"331|331|551|551|stake {stake}"), stake)
        (decision,) = analyse(Record.from_json(Path(record).read_text(encoding="utf-8"))).decisions
        assert (decision.kind, decision.dice, decision.best) == ("stake", "331", f"stake {better}")
        assert (decision.cost > 0) == costly
        assert {c.action for c in decision.choices} == {"stake est", "stake vient"}


def test_french_has_no_english_left(tmp_path):
    rules = Ruleset.preset("engranjeu-21").with_options(pot=5)
    records = [
        write(tmp_path, scripted(CLASSIC, ["Ana", "Bob"], BLUNDER), "blunder.json"),
        write(tmp_path, scripted(rules, ["Ana", "Bob"], "331|331|551|551|stake est"), "stake.json"),
        write(tmp_path, play(CLASSIC, ["bot:optimal", "bot:heuristic"], "5"), "bots.json"),
    ]
    for record in records:
        for extra in ([], ["--bots"]):
            result = run("analyse", record, "--lang", "fr", *extra)
            assert result.exit_code == 0, result.output
            assert leftovers(result.output) == [], result.output
    blunder = run("analyse", records[0], "--lang", "fr").output
    assert "221, 1 lancer à jouer, contre 654 : s'arrêter" in blunder
    assert "égalité sur 331 : la mise" in run("analyse", records[1], "--lang", "fr").output


def test_a_game_of_the_history_is_analysed_by_its_number():
    assert run("play", "--plain", "--players", "bot:heuristic,bot:optimal", "--seed", "2").exit_code == 0
    from py421.history import History

    expected = analyse(History().record(1), bots=True).to_dict()
    assert json.loads(run("analyse", "1", "--bots", "--json").stdout) == expected


def test_a_game_not_solved_yet_is_solved_first_saying_so(tmp_path):
    rules = CLASSIC.with_options(pot=9)  # solved nowhere else in the tests
    record = write(tmp_path, scripted(rules, ["Ana", "Bob"], "421|221|421|221|632|stop"))
    first = CliRunner().invoke(main, ["analyse", record])
    most = decharge_passes(rules)  # the passes foretold, as far as they go
    assert f"  solving the décharge: pass 1 of at most {most} (once per machine)" in first.stderr.splitlines()
    assert "Ana: 1 decision" in first.stdout
    again = CliRunner().invoke(main, ["analyse", record])
    assert again.stderr == "" and again.stdout == first.stdout


def test_three_players_are_valued_by_the_rounds_where_the_game_is_not_solved(tmp_path):
    rules = Ruleset.preset("engranjeu-21")  # its whole game of three is played once solved on the machine
    data = json.loads(
        run("analyse", write(tmp_path, play(rules, ["Ana", "Bob", "Cy"], "1")), "--json").stdout
    )
    assert (data["method"], data["objective"]) == ("rounds", "P(not the round's loser)")
    assert data["decisions"]
    text = run("analyse", write(tmp_path, play(rules, ["Ana", "Bob", "Cy"], "1")), "--lang", "fr").output
    assert "la chance de celui qui joue de ne pas perdre le tour" in text


# -- what cannot be analysed ------------------------------------------------------------------


def refused(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    output: str = result.output
    return output


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("not json", "not a JSON game record"),
        ('{"format": "something else"}', 'not a py421 game record (expected "format": "py421-record")'),
        ('{"format": "py421-record", "version": 1, "players": []}', "the record has no 'rules'"),
    ],
)
def test_a_bad_record_file_is_refused_with_the_reason(tmp_path, content, said):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    assert said in refused("analyse", str(path))


def test_a_record_that_does_not_replay_names_its_step(tmp_path):
    data = scripted(CLASSIC, ["Ana", "Bob"], BLUNDER).record().to_dict()
    data["steps"][9]["action"] = "keep 5"
    path = tmp_path / "wrong.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert "step 10 ('keep 5') does not replay: Bob cannot keep 5: 5 is not among the dice 221" in refused(
        "analyse", str(path)
    )
    with pytest.raises(InvalidRecord):
        analyse(Record.from_dict(data))


def test_neither_a_file_nor_a_game_number_is_refused(tmp_path):
    missing = str(tmp_path / "missing.json")
    assert f"{missing!r}: no such file, nor the number of a game of 421 history (421 history lists them)" in (
        refused("analyse", missing)
    )
    assert "there is no game number 7 in the history" in refused("analyse", "7")
    assert "'nope' : aucun fichier de ce nom, ni le numéro d'une partie de 421 history" in refused(
        "analyse", "nope", "--lang", "fr"
    )


def test_players_behind_who_must_throw_on_are_analysed_round_by_round(tmp_path):
    """Where a player behind may not stop, the analysis values every legal choice (« le bon » among
    them) and no stop; the CLI says so in French too."""
    rules = Ruleset.preset("engranjeu-21").with_options(must_throw_on=True)
    game, dice, bot = Game(rules, ["Ana", "Bob", "Cleo"]), SeededDice("throw-on"), HeuristicBot()
    play_until(game, dice, bot.choose, lambda s: s.is_over or None)
    record = write(tmp_path, game)
    found = analyse(game.record(), seats=[0, 1, 2])
    assert found.method == "rounds"
    assert_thrown_on(found)
    french = CliRunner().invoke(main, ["analyse", record, "--lang", "fr"])
    assert french.exit_code == 0, french.output
    assert "Ana" in french.output and "ne peuvent pas" not in french.output


def test_players_behind_who_must_throw_on_where_every_throw_adds_to_the_stake_are_analysed_in_the_game(
    tmp_path, private_home, shared_solutions
):
    """Three players of lyonnaise-21 with a few tokens: the analysis values the whole game, and where a
    player behind must throw on in the charge, every throw and « le bon » too, and no stop."""
    rules = MUST_THROW_ON_6
    solved_here(rules, 3, shared_solutions)
    game, dice, bot = Game(rules, ["Ana", "Bob", "Cleo"]), SeededDice("stakes"), HeuristicBot()
    play_until(game, dice, bot.choose, lambda s: s.is_over or None)
    found = analyse(game.record(), seats=[0, 1, 2])
    assert found.method == "game"
    assert_thrown_on(found)


def assert_thrown_on(found: Analysis) -> None:
    """Some decisions offered no stop (a player behind throwing on); there the choice was a throw,
    valued as the best, and « le bon » was among the choices somewhere."""
    thrown_on = [
        d
        for d in found.decisions
        if d.kind == "turn" and d.before and all(c.action != "stop" for c in d.choices)
    ]
    assert thrown_on, "no decision where a player behind had to throw on"
    for d in thrown_on:
        assert d.chosen != "stop" and d.best_value == max(c.value for c in d.choices)
    assert any(c.action.startswith("bon") for d in thrown_on for c in d.choices)


def test_a_table_too_large_for_the_round_solver_is_refused():
    rules = Ruleset.preset("kytionnaire").with_options(max_players=12)
    game = Game(rules, [f"P{i}" for i in range(9)])
    with pytest.raises(InvalidPlayers, match="a game of 9 players cannot be analysed"):
        analyse(game.record())


def test_the_text_names_every_player_analysed():
    text = analysis_text(analyse(scripted(CLASSIC, ["Ana", "Bob"], BLUNDER).record()))
    assert text.splitlines()[0] == "Analysis of classic-11: Ana, Bob"
    assert "Ana: 2 decisions" in text and "Bob: 1 decision," in text


def test_a_folder_named_for_the_record_is_said_to_be_a_folder(tmp_path):
    english = run("analyse", str(tmp_path), "--lang", "en")
    assert english.exit_code == 2
    assert (
        f"Error: Invalid value for 'RECORD': '{tmp_path}' is a folder, not a record file; name a record "
        "file in it, or the number of a game of 421 history (421 history lists them)" in english.output
    )
    assert "no such file" not in english.output
    french = run("analyse", str(tmp_path), "--lang", "fr").output.replace("\u00a0", " ")
    assert (
        f"'{tmp_path}' est un dossier, pas un fichier d'enregistrement ; donnez un fichier qui s'y trouve, "
        "ou le numéro d'une partie de 421 history (421 history les liste)" in french
    )


def test_analyze_spelled_the_american_way_is_analyse(tmp_path):
    record = write(tmp_path, scripted(CLASSIC, ["Ana", "Bob"], BLUNDER))
    british = run("analyse", record, "--json")
    american = run("analyze", record, "--json")
    assert american.exit_code == 0, american.output
    assert american.stdout == british.stdout
    assert "analyze" not in run("--help").output  # accepted, not listed
    played = CliRunner().invoke(
        main, ["play", "--plain", "--players", "Ana,bot:heuristic", "--seed", "5"], input="\n" * 3000
    )
    assert played.exit_code == 0, played.output  # game 1 of the history
    analysed = run("history", "1", "--analyze")
    assert analysed.exit_code == 0, analysed.output
    assert analysed.stdout == run("history", "1", "--analyse").stdout
    assert "--analyze" not in run("history", "--help").output


def test_a_record_whose_table_cannot_be_seated_is_refused_as_a_record_before_any_solve(tmp_path):
    """One player was refused by the round solver (« a game of 1 players cannot be analysed »), after
    solving began: the record is what is wrong, and it is said first."""
    data = scripted(CLASSIC, ["Ana", "Bob"], BLUNDER).record().to_dict()
    data["players"] = ["Ana"]
    path = tmp_path / "one.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    said = refused("analyse", str(path))
    assert "the record's table cannot be seated: classic-11 is played by 2 or more players, not 1" in said
    assert "solver" not in said


def test_a_trained_policys_decisions_are_a_bots_left_out_unless_asked():
    """« Policy 1 », a trained policy seated by bot:policy:FILE, was analysed as a person."""
    from py421.core.game import Game
    from py421.core.rules import Ruleset

    game = Game(Ruleset.preset("classic-11"), ["Ana", "Policy 1"])
    for dice in ("421", "221"):
        game.throw(dice)
    analysed = analyse(game.record())
    assert analysed.players == ("Ana", "Policy 1")
    assert [s.player for s in analysed.summaries] == ["Ana"]  # the bot's decisions left out
    with_bots = analyse(game.record(), bots=True)
    assert {s.player: s.bot for s in with_bots.summaries} == {"Ana": False, "Policy 1": True}
