"""The scorekeeper of a real table: the worked examples of the rules, typed as input."""

import json

from click.testing import CliRunner

from py421.cli import main
from py421.i18n import tr


def table(preset: str, players: str, *lines: str, settings: tuple[str, ...] = ()):
    args = ["table", "--rules", preset, "--players", players, "--lang", "en"]
    for s in settings:
        args += ["--set", s]
    return CliRunner().invoke(main, args, input="".join(f"{line}\n" for line in lines))


def test_accumulated_stakes_typed_throw_by_throw():
    result = table("vache-41", "A,B", "123;221;421", "421;432;421", "123", "653")
    assert "A, your throws in order, up to 3? (e.g. 123;221;421; u undo, ? help)" in result.output
    assert "B lost the round to A: 40 tokens (every throw of the round added up)" in result.output
    assert "B takes 40 from the pot" in result.output
    assert "pot 1 · A 0 · B 40" in result.output
    assert result.exit_code == 1  # input ended: the game is kept to resume


def test_tim_nenette_typed():
    result = table("tim", "A,B", "2", "5", "221", "665")
    assert "A, one die for the first player?" in result.output
    assert "A lost the round to B: 2 tokens (nénette's fixed penalty)" in result.output


def test_espagnole_typed_ends_engranjeu():
    result = table("engranjeu-21", "A,B", "421", "221", "221", "421", "221", "111")
    assert result.exit_code == 0, result.output
    assert "B loses manche 1 (l'Espagnole: every token after the charge)" in result.output
    assert result.output.endswith("game over: B loses\nwinner: A\n")  # the end said once
    assert "winner: A" in result.output


def test_withdrawal_and_fewest_tokens_typed():
    result = table("classic-11", "A,B,C", "421", "653", "221", "654", "665", "653", "111", "652", "654")
    assert "A holds no token and leaves the manche" in result.output
    assert "B leads: holds the fewest tokens" in result.output
    assert "B, your result in at most 3 throws?" in result.output


CHARGE = ("421", "665", "654", "665", "665", "111", "653", "421")


def test_main_chaude_typed():
    result = table("engranjeu-21", "A,B", *CHARGE, "654", "654", "543", "543", "vient", "111", "653")
    assert "« main chaude » for best and worst: B and A throw again, in that order" in result.output
    assert "B, « main chaude »: « est » or « vient »?" in result.output
    assert "B plays « pour ce qui vient »" in result.output
    assert "B gives 6 to A" in result.output


def test_main_chaude_typed_short_with_its_help():
    result = table("engranjeu-21", "A,B", *CHARGE, "654", "654", "543", "543", "?", "v", "111", "653")
    assert "« pour ce qui est » (e or est): the stake stays what the round decided" in result.output
    assert "B plays « pour ce qui vient »" in result.output
    assert "B gives 6 to A" in result.output


def test_a_resumed_table_shows_where_the_tokens_stand():
    assert table("classic-11", "A,B", "421", "653").exit_code == 1
    rest = CliRunner().invoke(main, ["table", "--resume"], input="")
    assert rest.output.splitlines()[1] == "  pot 3 · A 0 · B 8 · manche 1, charge"


def test_le_bon_and_the_limit_typed():
    result = table("engranjeu-21", "A,B", *CHARGE, "555/2 bon", "421/3", "421/2")
    assert "A ends on 555 in 2 throws after « le bon »" in result.output
    assert "A sets the limit: « en 2 ! »" in result.output
    assert "B may use 1 to 2 throws now, not 3" in result.output
    assert "B ends on 421 in 2 throws" in result.output


def test_queue_de_la_vache_typed():
    result = table(
        "vache-41",
        "A,B",
        "421;421;421",
        "421;432;421",
        "333",
        "653",
        settings=("queue_de_la_vache=true",),
    )
    assert "« queue de la vache »: B owes 14 to the next manche" in result.output
    assert "B takes the 14 owed from the new pot" in result.output
    assert "pot 27 · A 0 · B 14 · manche 2, charge" in result.output


def test_a_whole_turn_behind_without_le_bon_is_refused_where_players_throw_on():
    charge = ["421", "665", "654", "665", "665", "111", "653", "421"]
    lines = [*charge, "432/3", "553/2", "555/2 bon"]
    result = table("engranjeu-21", "A,B", *lines, settings=("must_throw_on=true",))
    assert (
        "B is not ahead after 2 throws and must throw on (up to 3) unless « le bon » was said"
        in result.output
    )
    assert "A lost the round to B" in result.output


def test_deduction_typed():
    result = table("engranjeu-21", "A,B", "111", "221", "653", "111")
    assert "B lost the round to A: 7 tokens (the winner's value)" in result.output
    assert "B lost the round to A: 6 tokens (the winner's value minus the loser's)" in result.output


def test_bad_entries_are_explained_and_asked_again():
    result = table("classic-11", "A,B", "7-1-1", "12", "421/4", "421/2", "421", "653")
    assert "'7-1-1': a die shows 1 to 6, not 7" in result.output
    assert "'12': a result is 3 dice, got 2 dice" in result.output
    assert "a turn has 1 to 3 throws, not 4" in result.output
    assert "A may use 1 throw now, not 2" in result.output  # coups secs in the charge
    assert "B takes 8 from the pot" in result.output


def test_undo_takes_back_the_last_entry():
    result = table("classic-11", "A,B", "u", "421", "221", "u", "653")
    assert "nothing to undo: the game has just started" in result.output
    assert "undone: B: 221" in result.output
    assert "B takes 8 from the pot" in result.output
    assert "B takes 1" not in result.output


def test_a_table_resumes_and_lands_in_the_history():
    first = table("classic-11", "A,B", "421", "653")
    assert first.exit_code == 1
    runner = CliRunner()
    lines = ["221", "421"] * 40  # whoever leads throws nénette and loses
    rest = runner.invoke(main, ["table", "--resume"], input="".join(f"{x}\n" for x in lines))
    assert rest.exit_code == 0, rest.output
    assert "resuming the saved game (classic-11: A, B, step 2)" in rest.output
    assert "« grand perdant »" in rest.output
    stats = json.loads(runner.invoke(main, ["stats", "--json"]).output)
    assert {p["name"] for p in stats["players"]} == {"A", "B"}


def test_the_table_needs_names():
    result = CliRunner().invoke(main, ["table"])
    assert result.exit_code == 2
    assert "name the players" in result.output


def test_a_hint_says_what_to_beat_and_the_exact_chance():
    result = table("classic-11", "A,B", "h", "421", "653", "421", "h")
    # coups secs in the charge: every turn is one throw, the leader sets no limit
    assert (
        "hint: A leads; every turn is one throw (coups secs), so there is no limit to set. "
        "421 in one throw: 2.8%" in result.output
    )
    assert "limit" not in result.output.replace("no limit to set", "")
    # beating the worst result so far is sure not to lose; the max^n line says how often one does not lose
    assert "hint: to be sure not to lose, beat 421: 0.0% in one throw\n" in result.output
    # coups secs between two: a fair round; against 421 only a tie (1/36), a fair draw, saves A
    assert "(max^n), A is not its loser 50.0% of the time" in result.output
    assert "(max^n), A is not its loser 1.4% of the time" in result.output
    decharge = table("classic-11", "A,B", "421", "653", "421", "221", "654/2", "h")
    assert "hint: to be sure not to lose, beat 654" in decharge.output
    assert "hint: to win the round, beat 654" in decharge.output


def test_a_hint_in_french_is_whole_and_writes_its_numbers_the_french_way():
    lines = "".join(f"{line}\n" for line in ("h", "421", "653", "421", "h"))
    said = (
        CliRunner()
        .invoke(main, ["table", "--rules", "classic-11", "--players", "A,B", "--lang", "fr"], input=lines)
        .output
    )
    assert (
        "A entame ; chaque coup se joue en un lancer (coups secs), il n'y a donc pas de limite à donner. "
        "421 en un lancer : 2,8 %" in said
    )
    assert "limite des autres" not in said
    assert "pour être sûr de ne pas perdre, battre 421 : 0,0 % en un lancer\n" in said
    assert "A ne perd pas le tour dans 50,0 % des cas" in said


def test_the_leaders_hint_speaks_of_a_limit_only_where_there_is_one():
    limited = table("classic-11", "A,B", "h", settings=("charge_throws=2",))
    assert "hint: A leads; the throws used will be the others' limit. 421 in up to 2 throws: 11.5%" in (
        limited.output
    )
    free = table("classic-11", "A,B", "h", settings=("charge_throws=2", "leader_limit=false"))
    assert "hint: A leads; the others may use up to 2 throws whatever A uses. 421 in up to 2 throws" in (
        free.output
    )
    assert "others' limit" not in free.output


def test_the_help_says_how_to_type_every_throw_of_a_turn():
    result = table("vache-41", "A,B", "?")
    assert "type each throw in order, separated by ; (123;221;421)" in result.output
    french = CliRunner().invoke(
        main, ["table", "--rules", "vache-41", "--players", "A,B", "--lang", "fr"], input="?\n"
    )
    assert "chaque lancer dans l'ordre, séparés par ; (123;221;421)" in french.output
    assert "A, vos lancers dans l'ordre, 3 au plus ? (ex. 123;221;421 ; u annuler, ? aide)" in french.output


def test_undo_in_french_has_the_french_colons_and_words():
    def french(preset: str, *lines: str) -> str:
        args = ["table", "--rules", preset, "--players", "A,B", "--lang", "fr"]
        return CliRunner().invoke(main, args, input="".join(f"{line}\n" for line in lines)).output

    said = french("classic-11", "421", "221", "u")
    assert "  annulé\u00a0: B\u00a0: 221\n" in said  # a no-break space before each colon
    assert "B: " not in said
    stake = french("engranjeu-21", *CHARGE, "654", "654", "543", "543", "vient", "u")
    assert f"  annulé\u00a0: B\u00a0: {tr('fr', 'action.vient')}\n" in stake  # the action in French
    english = table("engranjeu-21", "A,B", *CHARGE, "654", "654", "543", "543", "vient", "u")
    assert f"  undone: B: {tr('en', 'action.vient')}\n" in english.output


def french_table(preset: str, players: str, *lines: str):
    args = ["table", "--rules", preset, "--players", players, "--lang", "fr"]
    return CliRunner().invoke(main, args, input="".join(f"{line}\n" for line in lines))


def test_a_wrong_answer_to_the_main_chaude_says_what_that_prompt_takes():
    tied = ("654", "654", "653", "653")  # a tie, then a tie-break that ties again: « main chaude »
    result = table("engranjeu-21", "Ana,Bob", *tied, "x", "throw", "vient")
    accepted = "accepted: e or est (« pour ce qui est »), v or vient (« pour ce qui vient »)"
    assert f"  'x' is not a choice here; {accepted}\n" in result.output
    assert f"  'throw' is not a choice here; {accepted}\n" in result.output
    assert "keep DICE" not in result.output
    assert "Bob plays « pour ce qui vient »" in result.output
    french = french_table("engranjeu-21", "Ana,Bob", *tied, "x", "e")
    said = "possible : e ou est (« pour ce qui est »), v ou vient (« pour ce qui vient »)"
    assert f"  'x' n'est pas un choix ici ; {said}\n" in french.output.replace("\u00a0", " ")
    assert "Bob joue « pour ce qui est »" in french.output


def test_a_round_that_everyone_tied_and_everyone_loses_has_no_winner():
    draw = ("654", "653", "652")  # Ana wins the draw for the first player
    result = table("comptoir-21", "Ana,Bob,Cy", *draw, "421", "421", "421")
    assert (
        "Ana, Bob and Cy all tied and lost the round: 10 tokens each (the value of the result that tied)"
        in result.output
    )
    assert "lost the round to" not in result.output
    assert "Cy takes 1 from the pot (the pot held only 1 of 10)" in result.output
    french = french_table("comptoir-21", "Ana,Bob,Cy", *draw, "421", "421", "421").output
    assert (
        "Ana, Bob et Cy sont à égalité et perdent le tour : 10 jetons chacun (la valeur du résultat à "
        "égalité)" in french.replace("\u00a0", " ")
    )
    assert "contre Ana" not in french


def test_the_help_at_a_draw_explains_what_that_draw_asks_for():
    one_die = table("tim", "Ana,Bob", "?")
    assert "Ana, one die for the first player? (1 to 6; u undo, ? help)" in one_die.output
    assert (
        "  type the one die you threw, 1 to 6: each player throws one die, the lowest leads the first "
        "round, and tied players throw again; u takes back the last entry\n" in one_die.output
    )
    assert "/2 or /3" not in one_die.output
    french = french_table("tim", "Ana,Bob", "?").output.replace("\u00a0", " ")
    assert (
        "  tapez le dé lancé, de 1 à 6 : chacun lance un dé, le plus petit entame le premier tour, "
        "les ex aequo relancent ; u reprend la dernière saisie\n" in french
    )
    coup_sec = table("comptoir-21", "Ana,Bob", "?")
    assert (
        "  type what your one throw of three dice shows: 653 or 6-5-3 (a coup sec); u takes back the "
        "last entry\n" in coup_sec.output
    )
    assert "/2 or /3" not in coup_sec.output


def test_empty_players_are_refused_as_names_missing():
    for empty in ("", " "):
        result = CliRunner().invoke(main, ["table", "--players", empty, "--lang", "en"])
        assert result.exit_code == 2
        assert 'name the players: --players "Alice,Bob,Carol"' in result.output, empty
        assert "played by" not in result.output


def test_the_example_of_every_throw_in_order_holds_no_more_throws_than_allowed():
    """The leader stopped after two throws; the next player was asked for up to 2 with an example
    of 3, which that question refuses."""
    result = table("lyonnaise-21", "A,B", "123;221")
    assert "B, your throws in order, up to 2? (e.g. 221;421; u undo, ? help)" in result.output
    assert "A, your throws in order, up to 3? (e.g. 123;221;421;" in result.output


def test_le_bon_where_it_cannot_be_said_is_refused_with_why():
    """« le bon » in a turn of one throw read « marks a last throw before throw 1; B used 1 »."""
    result = table("classic-11", "A,B", "421", "654 bon")
    assert "« le bon » needs 3 throws or more allowed; B has 1 here" in result.output


def test_a_whole_turn_typed_where_one_throw_is_asked_is_refused_with_what_to_type():
    """« 555/1 » at a tie-break read as four dice (« at most 3 dice, got 4 »), « 653/1 » at a draw
    of one die too."""
    tied = table("classic-11", "A,B", "654", "654", "555/1", "555;421", "555 bon")
    said = "A throws once here (no /N, ; or bon): type the dice alone, e.g. 654"
    assert tied.output.count(f"'555/1': {said}") == 1, tied.output
    assert f"'555;421': {said}" in tied.output and f"'555 bon': {said}" in tied.output
    drawn = table("tim", "A,B", "653/1")
    assert "'653/1': A throws once here (no /N, ; or bon): type the dice alone, e.g. 4" in drawn.output


def test_help_at_a_turn_explains_what_that_question_takes():
    """« ? » at a coup sec explained /2, /3, « bon » and ;, none of which that question takes."""

    def helped(*lines: str, preset: str = "classic-11", settings: tuple[str, ...] = ()) -> str:
        output: str = table(preset, "A,B", *lines, settings=settings).output
        line = next(line for line in output.splitlines() if "u takes back the last entry" in line)
        return line.split("? help) ")[-1]  # the help, after the question (its answer is not echoed)

    coup_sec = helped("?")
    assert "type what your one throw of three dice shows: 421 or 4-2-1" in coup_sec
    assert "/2" not in coup_sec and "bon" not in coup_sec and "123;" not in coup_sec
    every = helped("?", preset="lyonnaise-21")
    assert "every throw adds to the stake: type each throw in order, separated by ; (123;221;421)" in every
    several = helped("651", "652", "652", "651", "?", settings=("pot=2",))
    assert "654/2" in several and "555/2 bon" in several


def test_a_bare_bon_is_quoted_as_typed():
    """« bon » alone was quoted as '' (« '': a result is 3 dice, got no dice »)."""
    said = table("classic-11", "A,B", "bon").output
    assert "'bon'" in said and "''" not in said, said


def test_bon_is_taken_before_the_result_as_line_mode_says_it():
    """« bon 555/2 », the order of ``421 play``, was refused and quoted as 'bon 555' without its /2."""
    before = table("engranjeu-21", "A,B", *CHARGE, "bon 555/2", "421/3", "421/2")
    assert "A ends on 555 in 2 throws after « le bon »" in before.output
    assert "not a result notation" not in before.output


def test_every_throw_with_a_count_after_it_says_the_throws_are_counted():
    """« 653;431/2 » said « a result is 3 dice, got 4 dice »."""
    said = table("vache-41", "A,B", "653;431/2").output
    assert "got 4 dice" not in said
    assert (
        "'653;431/2': each throw is told in order, separated by ; (123;221;421), and counted: no /N" in said
    )
    assert "'653/2;431': each throw is told" in table("vache-41", "A,B", "653/2;431").output


def test_a_tie_break_and_a_draw_say_that_help_is_there():
    for preset, players, asked in (
        ("tim", "Ana,Bob", "Ana, one die"),
        ("comptoir-21", "Ana,Bob", "Ana, your three"),
    ):
        prompt = next(line for line in table(preset, players).output.splitlines() if line.startswith(asked))
        assert "? help" in prompt, prompt
    tied = table("classic-11", "A,B", "654", "654").output
    assert "your tie-break coup sec? (e.g. 653; u undo, ? help)" in tied
    french = french_table("tim", "Ana,Bob").output.replace("\u00a0", " ")
    assert "(1 à 6 ; u annuler, ? aide)" in french
