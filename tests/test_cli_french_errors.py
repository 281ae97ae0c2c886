"""The errors a player makes in a ruleset, the players or the data folder, said in French."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from py421.cli import main

from .test_cli_french import leftovers

BOTS = ("--plain", "--players", "bot:random,bot:random", "--seed", "1")


def french_error(*args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--lang", "fr"], input="", env={"LANG": "C"})
    assert isinstance(result.exception, SystemExit), (args, result.output)
    assert result.exit_code != 0, (args, result.output)
    assert result.output.startswith("Erreur : "), (args, result.output)
    assert leftovers(result.output) == [], (args, result.output)
    return result.output


@pytest.mark.parametrize(
    ("settings", "french"),
    [
        (["pott=3"], "option inconnue : 'pott' (vouliez-vous dire 'pot' ?) ; au choix : ranking,"),
        (["bogus=3"], "option inconnue : 'bogus' ; au choix : ranking,"),
        (["pot=abc"], "pot='abc' n'est pas accepté ; pot prend 1 à 999"),
        (["le_bon=peut-être"], "le_bon='peut-être' n'est pas accepté ; le_bon prend true | false"),
        (["pot"], "'pot' : écrivez OPTION=VALEUR, par exemple pot=21"),
        (
            ["manches=3", "fiches_de_manche=2"],
            "manches=3 et fiches_de_manche=2 sont deux façons de finir une partie",
        ),
        (
            ["min_players=5", "max_players=3", "le_bon=true", "charge_throws=1", "decharge_throws=1"],
            "min_players=5 dépasse max_players=3 ; le_bon=true (« le bon ») demande une phase à plus",
        ),
        (
            ["winners=first_out", "manches=3"],
            "winners=first_out désigne des gagnants d'une partie en une manche",
        ),
        (
            ["queue_de_la_vache=true", "manches=1"],
            "queue_de_la_vache reporte une dette sur la manche suivante",
        ),
    ],
)
def test_a_wrong_ruleset_is_explained_in_french(settings: list[str], french: str) -> None:
    args = ["rules", "show", "classic-11"]
    for setting in settings:
        args += ["--set", setting]
    assert french in french_error(*args)


def test_a_ruleset_file_with_a_typo_says_where_in_french(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text('base = "classic-11"\n[options]\npot 21\n', encoding="utf-8")
    assert "(ligne 3, colonne 5 : un « = » est attendu après le nom)" in french_error(
        "rules", "show", str(path)
    )


def test_an_unknown_preset_in_a_ruleset_file_is_explained_in_french(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text('base = "nope"\n', encoding="utf-8")
    assert "règles inconnues : 'nope' ; au choix : classic-11, " in french_error("rules", "show", str(path))


@pytest.mark.parametrize(
    ("players", "french"),
    [
        ("Ana", "classic-11 se joue à partir de 2 joueurs, pas 1"),
        ("Ana,ana", "deux joueurs s'appellent 'Ana' ; les noms doivent être différents"),
        ("Ana,,Bob", "le nom d'un joueur ne peut pas être vide"),
        ("Ana," + "B" * 25, "un nom fait au plus 24 caractères, pas 25"),
        ("Ana,Bob\u202e", "un nom ne peut pas contenir U+202E (caractères invisibles ou de contrôle)"),
        ("Ana,bot:nope", "bot inconnu : 'bot:nope' ; au choix : bot:random, bot:heuristic"),
        (
            "Ana,Heuristic 1",
            "'Heuristic 1' : les noms comme « Heuristique 1 » ou « bot:… » sont réservés aux bots",
        ),
        (
            "Ana,Heuristique 1",
            "'Heuristique 1' : les noms comme « Heuristique 1 » ou « bot:… » sont réservés aux bots",
        ),
    ],
)
def test_wrong_players_are_explained_in_french(players: str, french: str) -> None:
    assert french in french_error("play", "--plain", "--players", players)


def test_a_two_player_preset_says_how_many_in_french() -> None:
    assert "tim se joue à 2 joueurs, pas 3" in french_error(
        "play", "--plain", "--rules", "tim", "--players", "A,B,C"
    )


def test_an_unusable_data_folder_is_explained_in_french(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "not-a-folder"
    home.write_text("mine", encoding="utf-8")
    monkeypatch.setenv("PY421_HOME", str(home))
    error = french_error("stats")
    assert f"PY421_HOME vaut {home}, qui est un fichier et non un dossier" in error
    assert "donnez à PY421_HOME un autre dossier, ou déplacez ce fichier" in error

    monkeypatch.setenv("PY421_HOME", str(home / "py421"))
    assert f"mais {home} est un fichier et non un dossier : donnez à PY421_HOME" in french_error("stats")

    missing = tmp_path / "no-such-folder" / "py421"
    monkeypatch.setenv("PY421_HOME", str(missing))
    error = french_error("history")
    assert f"mais le dossier {missing.parent} n'existe pas : créez-le (mkdir -p {missing.parent})" in error


def test_an_unusable_record_file_is_explained_in_french(tmp_path: Path) -> None:
    record = tmp_path / "nowhere" / "game.json"
    error = french_error("play", *BOTS, "--record", str(record))
    assert f"impossible d'écrire l'enregistrement de la partie dans {record}" in error
    assert f"le dossier {record.parent} n'existe pas ; créez-le ou choisissez un autre fichier" in error

    (tmp_path / "file").write_text("", encoding="utf-8")
    error = french_error("play", *BOTS, "--record", str(tmp_path / "file" / "game.json"))
    assert f"{tmp_path / 'file'} est un fichier et non un dossier ; choisissez un autre fichier" in error


def test_a_broken_record_is_explained_in_french(tmp_path: Path) -> None:
    game = tmp_path / "game.json"
    played = CliRunner().invoke(main, ["play", *BOTS, "--record", str(game)])
    assert played.exit_code == 0, played.output
    record = json.loads(game.read_text(encoding="utf-8"))

    def replayed(data: object) -> str:
        path = tmp_path / "broken.json"
        path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
        return french_error("replay", str(path))

    assert "ce n'est pas un enregistrement de partie en JSON (ligne 1, colonne 2 : un nom" in replayed("{")
    assert "ce n'est pas un enregistrement de partie py421" in replayed({"format": "other"})
    assert "la version 99 des enregistrements n'est pas prise en charge" in replayed(
        {**record, "version": 99}
    )
    assert "l'enregistrement n'a pas de 'steps'" in replayed(
        {k: v for k, v in record.items() if k != "steps"}
    )
    bad_rules = {**record, "rules": {"base": "nope"}}
    assert "les règles de l'enregistrement ne sont pas valables : règles inconnues : 'nope'" in replayed(
        bad_rules
    )
    seated = replayed({**record, "players": ["Ana", "ana"]})
    assert "la table de l'enregistrement ne peut pas être installée : deux joueurs s'appellent" in seated
    steps = [{"seat": record["steps"][0]["seat"], "dice": "7"}, *record["steps"][1:]]
    assert "l'étape 1 ('7') ne se rejoue pas : " in replayed({**record, "steps": steps})
    ending = replayed({**record, "final": {"over": False}})
    assert "la partie rejouée ne finit pas comme dans l'enregistrement (" in ending
    assert "over : enregistré false, absent du rejeu" in ending


def test_a_misshapen_record_is_explained_in_french(tmp_path: Path) -> None:
    game = tmp_path / "game.json"
    played = CliRunner().invoke(main, ["play", *BOTS, "--record", str(game)])
    assert played.exit_code == 0, played.output
    record = json.loads(game.read_text(encoding="utf-8"))

    def broken(data: object) -> str:
        path = tmp_path / "broken.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        return str(path)

    def replayed(data: object) -> str:
        return french_error("replay", broken(data))

    rules = replayed({**record, "rules": "tim"})
    assert (
        """les règles de l'enregistrement ("rules") doivent être un objet, comme dans un fichier""" in rules
    )
    assert """et non "tim" ; pour des règles prédéfinies, écrivez {"base": "tim"}""" in rules
    assert """les étapes de l'enregistrement ("steps") doivent être une liste, et non 3""" in replayed(
        {**record, "steps": 3}
    )
    assert """les joueurs de l'enregistrement ("players") doivent être une liste de noms""" in replayed(
        {**record, "players": "Ana"}
    )
    assert (
        """la première place de l'enregistrement ("first_seat") doit être un numéro de place"""
        in replayed({**record, "first_seat": "Ana"})
    )
    assert """la fin de l'enregistrement ("final") doit être un objet""" in replayed({**record, "final": 3})
    assert """les informations de l'enregistrement ("meta") doivent être un objet""" in replayed(
        {**record, "meta": "x"}
    )
    assert "la place 9 n'existe pas ; les places vont de 0 à 1" in replayed({**record, "first_seat": 9})

    assert """les informations de l'enregistrement ("meta") doivent être un objet""" in french_error(
        "verify", broken({**record, "meta": "x"})
    )
    seed_only = broken({**record, "meta": {"seed": "abc"}})
    unverified = CliRunner().invoke(main, ["verify", seed_only, "--lang", "fr"])
    assert unverified.exit_code == 1
    assert "l'enregistrement ne porte pas à la fois une graine et son empreinte" in unverified.output
    step = {"seat": 0, "throw": "421"}
    assert """l'étape 1 doit être {"seat": N, "dice": "421"}""" in replayed({**record, "steps": [step]})
    first = record["steps"][0]
    other = {**first, "seat": 1 - first["seat"]}
    wrong_seat = replayed({**record, "steps": [other, *record["steps"][1:]]})
    assert "l'étape 1 (" in wrong_seat and f"est de la place {other['seat']}, mais c'est à " in wrong_seat


def test_a_broken_ruleset_file_is_explained_in_french(tmp_path: Path) -> None:
    path = tmp_path / "house.toml"

    def shown(text: str) -> str:
        path.write_text(text, encoding="utf-8")
        return french_error("rules", "show", str(path))

    assert f"{path} : ce n'est pas un fichier de règles TOML ou JSON (" in shown("pot = = 3")
    assert "clé inconnue 'pot' dans le fichier de règles ; au choix : base, description," in shown("pot = 3")
    assert "'options' doit être une table OPTION = VALEUR" in shown('options = "pot=3"')
    unknown = CliRunner().invoke(main, ["rules", "show", "nope", "--lang", "fr"], env={"LANG": "C"})
    assert unknown.exit_code == 2
    assert (
        "Erreur : valeur non valable pour 'RÈGLES' : 'nope' n'est ni le nom de règles prédéfinies ni un"
        in (unknown.output)
    )
    assert leftovers(unknown.output) == []


def test_a_broken_save_is_explained_in_french(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("PY421_HOME", str(home))
    saves = home / "saves"
    saves.mkdir(parents=True)
    save = saves / "20260101-000000-000000.json"

    def resumed(data: str) -> str:
        save.write_text(data, encoding="utf-8")
        return french_error("play", "--plain", "--resume")

    error = resumed("{")
    assert (
        f"la partie sauvegardée {save} ne peut pas être reprise : elle ne peut pas être lue "
        "(ligne 1, colonne 2 : un nom entre guillemets droits est attendu)"
    ) in error
    assert f"déplacez-la hors de {saves} pour reprendre la partie sauvegardée avant elle" in error
    assert "elle contient une liste JSON, et non une partie sauvegardée" in resumed("[]")
    assert "(des crochets ou des accolades imbriqués trop profondément)" in resumed("[" * 100_000)
    save.write_bytes(b"\xff\xfe{}")
    assert "elle ne peut pas être lue (ce n'est pas du texte UTF-8)" in french_error(
        "play", "--plain", "--resume"
    )
    assert "ce n'est pas une partie py421 sauvegardée" in resumed('{"format": "x"}')
    assert "la version 9 des parties sauvegardées n'est pas prise en charge" in resumed(
        '{"format": "py421-save", "version": 9}'
    )
    assert "il lui manque 'seats'" in resumed('{"format": "py421-save", "version": 1}')
    assert "ses places ('seats') doivent être une liste de" in resumed(
        '{"format": "py421-save", "version": 1, "seats": 3, "seed": "x", "record": {}}'
    )
    save.unlink()
    assert "aucune partie sauvegardée à reprendre" in french_error("play", "--plain", "--resume")


def test_a_resume_with_other_settings_is_refused_in_french(tmp_path: Path) -> None:
    CliRunner().invoke(main, ["table", "--players", "Ana,Bob"], input="421\n")  # left unfinished
    assert "la partie sauvegardée se joue avec classic-11, pas tim" in french_error(
        "table", "--resume", "--rules", "tim"
    )
    assert "la partie sauvegardée a pour joueurs Ana, Bob, pas Ana, Carl" in french_error(
        "table", "--resume", "--players", "Ana,Carl"
    )


def test_history_errors_are_explained_in_french(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "il n'y a pas de partie numéro 7 dans l'historique" in french_error("history", "7")
    home = tmp_path / "home"
    home.mkdir()
    (home / "history.sqlite3").write_text("not a database", encoding="utf-8")
    monkeypatch.setenv("PY421_HOME", str(home))
    error = french_error("stats")
    assert f"impossible d'ouvrir {home / 'history.sqlite3'} : " in error
    assert (
        "pour commencer un nouvel historique, mettez-le de côté ou donnez à PY421_HOME un autre dossier"
        in error
    )


def test_a_bot_at_a_real_table_is_refused_in_french() -> None:
    error = french_error("table", "--players", "Ana,bot:random")
    assert "'bot:random' : le marqueur tient les comptes de personnes assises à une vraie table" in error
    assert "pour jouer contre des bots, utilisez 421 play --players" in error
    unnamed = CliRunner().invoke(main, ["table", "--lang", "fr"], env={"LANG": "C"})
    assert unnamed.exit_code == 2
    assert 'Erreur : nommez les joueurs : --players "Alice,Bob,Carole"' in unnamed.output
    assert leftovers(unnamed.output) == []


def test_players_given_as_one_text_are_refused_in_french() -> None:
    from py421.core.errors import InvalidPlayers
    from py421.core.game import Game
    from py421.core.rules import Ruleset
    from py421.i18n import error_text

    with pytest.raises(InvalidPlayers) as refused:
        Game(Ruleset.preset("tim"), "Ana")
    assert str(refused.value) == "players must be a list of names, not one text"
    assert (
        error_text("fr", refused.value) == "les joueurs doivent être une liste de noms, et non un seul texte"
    )


def usage_errors(*args: str) -> tuple[str, str]:
    """A command line click refuses with its usage, in English and in French."""
    said = []
    for lang in ("en", "fr"):
        result = CliRunner().invoke(main, [*args, "--lang", lang], env={"LANG": "C"}, prog_name="421")
        assert result.exit_code == 2, (args, result.output)
        said.append(result.output)
    english, french = said
    assert english.startswith("Usage: 421 "), english
    assert french.startswith("Utilisation : 421 "), french
    assert leftovers(french) == [], french
    return english, french


ADVISE = ("advise", "642", "--throws-left", "1")


# what --tokens, --out and --debts take, as their refusals say it
TOKENS_EN = "each player's tokens, yours first then clockwise, separated by commas, like 5,6"
TOKENS_FR = (
    "les jetons de chaque joueur, les vôtres puis dans le sens des aiguilles d'une montre, séparés par "
    "des virgules, comme 5,6"
)
OUT_EN = "the places after you of those out of the manche, separated by commas, like 1,2"
OUT_FR = "les places après vous de ceux qui sont sortis de la manche, séparées par des virgules, comme 1,2"
DEBTS_EN = (
    "what each player owes the next manche, yours first then clockwise, separated by commas, like 0,0,14"
)
DEBTS_FR = (
    "ce que chaque joueur doit à la manche suivante, vous d'abord puis dans le sens des aiguilles d'une "
    "montre, séparés par des virgules, comme 0,0,14"
)


@pytest.mark.parametrize(
    ("args", "english", "french"),
    [
        (
            ["--tokens", "5,6"],
            "--tokens: add --objective game; without --objective, advise ranks by the objective coup-sec, "
            "which reads no context of the round (docs/strategy.md lists what each objective reads)",
            "--tokens : ajoutez --objective game ; sans --objective, advise classe les choix selon "
            "l'objectif coup-sec, qui ne lit aucun contexte du tour (docs/strategy.md dit ce que lit "
            "chaque objectif)",
        ),
        (
            ["--players", "3"],
            "--players: add --objective loser, tokens or game; without --objective, advise ranks by the "
            "objective coup-sec, which reads no context of the round",
            "--players : ajoutez --objective loser, tokens ou game ; sans --objective, advise classe les "
            "choix selon l'objectif coup-sec, qui ne lit aucun contexte du tour",
        ),
        (
            ["--players", "2", "--tokens", "5,6"],
            "--players, --tokens: add --objective game;",
            "--players, --tokens : ajoutez --objective game ;",
        ),
        (
            ["--target", "653", "--objective", "loser"],
            "--target is read by --objective target only: leave it out, or rank by --objective target",
            "--target n'est lu que par --objective target : retirez-le, ou classez selon --objective target",
        ),
        (
            ["--players", "3", "--objective", "coup-sec"],
            "--players is not read by the objective coup-sec, which reads no context of the round; "
            "--players is read by --objective loser, tokens or game",
            "--players n'est pas lu par l'objectif coup-sec, qui ne lit aucun contexte du tour ; "
            "--players est lu par --objective loser, tokens ou game",
        ),
        (
            ["--stake", "3", "--objective", "tokens"],
            "--stake is not read by the objective tokens, which reads --players, --before, --limit, --phase, "
            "--pot; --stake is read by --objective game",
            "--stake n'est pas lu par l'objectif tokens, qui lit --players, --before, --limit, --phase, "
            "--pot ; --stake est lu par --objective game",
        ),
        (
            ["--objective", "target"],
            "--objective target needs --target RESULT",
            "--objective target demande --target RÉSULTAT",
        ),
        (
            ["--objective", "game", "--tokens", "5"],
            "Invalid value for '--tokens': expected two counts like 5,6 (yours, then the other's), not '5'",
            "valeur non valable pour '--tokens' : deux nombres de jetons attendus, comme 5,6 (les vôtres, "
            "puis ceux de l'autre), et non '5'",
        ),
        (
            ["--objective", "game", "--players", "3", "--tokens", "5,6"],
            "Invalid value for '--tokens': expected 3 counts like 4,4,3 (yours, then clockwise), not '5,6'",
            "valeur non valable pour '--tokens' : 3 nombres de jetons attendus, comme 4,4,3 (les vôtres, "
            "puis dans le sens des aiguilles d'une montre), et non '5,6'",
        ),
        (
            ["--objective", "game", "--tokens", "5,,6"],
            "Invalid value for '--tokens': '5,,6' has an empty entry; expected " + TOKENS_EN,
            "valeur non valable pour '--tokens' : '5,,6' a une entrée vide ; attendu : " + TOKENS_FR,
        ),
        (
            ["--objective", "game", "--tokens", "5,x"],
            "Invalid value for '--tokens': 'x' is not a whole number of 0 or more; expected " + TOKENS_EN,
            "valeur non valable pour '--tokens' : 'x' n'est pas un entier de 0 ou plus ; attendu : "
            + TOKENS_FR,
        ),
        (
            ["--objective", "game", "--tokens", ""],
            "Invalid value for '--tokens': nothing given; expected " + TOKENS_EN,
            "valeur non valable pour '--tokens' : rien n'est donné ; attendu : " + TOKENS_FR,
        ),
        (
            ["--objective", "game", "--players", "3", "--out", "1,", "--set", "withdraw_at_zero=false"],
            "Invalid value for '--out': '1,' has an empty entry; expected " + OUT_EN,
            "valeur non valable pour '--out' : '1,' a une entrée vide ; attendu : " + OUT_FR,
        ),
        (
            ["--objective", "game", "--players", "3", "--debts", "0,-1,0"],
            "Invalid value for '--debts': '-1' is not a whole number of 0 or more; expected " + DEBTS_EN,
            "valeur non valable pour '--debts' : '-1' n'est pas un entier de 0 ou plus ; attendu : "
            + DEBTS_FR,
        ),
        (
            ["--objective", "loser", "--before", "653,,221"],
            "Invalid value for '--before': '653,,221' has an empty entry; expected results separated by "
            "commas, like 653,221",
            "valeur non valable pour '--before' : '653,,221' a une entrée vide ; attendu : des résultats "
            "séparés par des virgules, comme 653,221",
        ),
        (
            ["--objective", "loser", "--before", ",,"],
            "Invalid value for '--before': ',,' has an empty entry; expected results separated by "
            "commas, like 653,221",
            "valeur non valable pour '--before' : ',,' a une entrée vide ; attendu : des résultats "
            "séparés par des virgules, comme 653,221",
        ),
        (
            ["--objective", "game", "--players", "3", "--before", "653/two"],
            "Invalid value: --before takes results, each with the throws it took after a slash or none "
            "with them, like 421/2,653/1 or 421,653, not '653/two'",
            "valeur non valable : --before prend des résultats, chacun avec ses lancers après une barre "
            "ou aucun avec, comme 421/2,653/1 ou 421,653, et non '653/two'",
        ),
    ],
)
def test_advise_refuses_a_wrong_context_in_french(args: list[str], english: str, french: str) -> None:
    said_en, said_fr = usage_errors(*ADVISE, *args)
    assert f"\nError: {english}" in said_en
    assert f"\nErreur : {french}" in said_fr


def test_solve_refuses_a_number_of_players_in_french() -> None:
    english, french = usage_errors("solve", "--rules", "tim", "--players", "3")
    assert english.endswith("\nError: tim is played by 2 players, not 3\n"), english
    assert french.endswith("\nErreur : tim se joue à 2 joueurs, pas 3\n"), french
    english, french = usage_errors("solve", "--rules", "engranjeu-21", "--players", "9")
    assert english.endswith("\nError: engranjeu-21 is played by 2 to 8 players, not 9\n"), english
    assert french.endswith("\nErreur : engranjeu-21 se joue de 2 à 8 joueurs, pas 9\n"), french


def solver_refusals(*args: str) -> tuple[str, str]:
    """A question the solvers refuse, as the command line says it in English and in French."""
    said = []
    for lang in ("en", "fr"):
        result = CliRunner().invoke(main, [*args, "--lang", lang], env={"LANG": "C"})
        assert result.exit_code == 2, (args, lang, result.output)
        said.append(result.output)
    english, french = said
    assert leftovers(french) == [], french
    return english, french


TURN = ("advise", "642", "--objective", "loser")
TOKENS = ("advise", "642", "--throws-left", "0", "--objective", "tokens")
GAME = ("advise", "642", "--throws-left", "0", "--objective", "game")
GAME_3 = (*GAME, "--players", "3")
CANNOT_3 = "le solveur de la partie entière ne peut pas résoudre"


@pytest.mark.parametrize(
    ("args", "english", "french"),
    [
        (
            [*TURN, "--throws-left", "2", "--before", "653", "--limit", "1"],
            "a turn has at most 1 throw here: no throw can be left, not 2",
            "un coup se joue ici en 1 lancer au plus : il ne peut rester aucun lancer, pas 2",
        ),
        (
            [*TURN, "--throws-left", "2", "--before", "653", "--limit", "2"],
            "a turn has at most 2 throws here: 0 to 1 left, not 2",
            "un coup se joue ici en 2 lancers au plus : il en reste 0 à 1, pas 2",
        ),
        (
            [*TURN, "--throws-left", "0", "--players", "2", "--before", "653,221"],
            "2 results before yours need at least 3 players in the round, not 2",
            "2 résultats avant le vôtre demandent au moins 3 joueurs dans le tour, pas 2",
        ),
        (
            [*TURN, "--throws-left", "2", "--players", "3", "--before", "653,221,111"],
            "3 results before yours need at least 4 players in the round, not 3",
            "3 résultats avant le vôtre demandent au moins 4 joueurs dans le tour, pas 3",
        ),
        (
            [*TURN, "--throws-left", "0", "--rules", "engranjeu-21", "--players", "9"],
            "engranjeu-21 is played by 2 to 8 players, not 9",
            "engranjeu-21 se joue de 2 à 8 joueurs, pas 9",
        ),
        (
            [*TURN, "--throws-left", "0", "--phase", "charge", "--before", "653", "--limit", "3"],
            "the leader's limit is 1 to 1 throws here, not 3",
            "celui qui entame n'a ici qu'un lancer : sa limite ne peut pas être 3",
        ),
        (
            [*TURN, "--throws-left", "0", "--set", "decharge_throws=2", "--before", "653", "--limit", "3"],
            "the leader's limit is 1 to 2 throws here, not 3",
            "la limite de celui qui entame va ici de 1 à 2 lancers, pas 3",
        ),
        (
            [*TURN, "--throws-left", "0", "--players", "9"],
            "the round solver (bot:optimal, advice for three or more) plays 2 to 8 players, not 9; "
            "bot:heuristic and bot:random play at any table",
            "le solveur des tours (bot:optimal, conseils à trois joueurs ou plus) prend de 2 à 8 joueurs, "
            "pas 9 ; bot:heuristic et bot:random jouent à toute table",
        ),
        (
            [*TOKENS, "--phase", "charge", "--rules", "lyonnaise-21"],
            "cannot solve lyonnaise-21's rounds for tokens: with accumulated stakes the charge's tokens "
            "are not modelled: use the loser objective",
            "impossible de résoudre les tours de lyonnaise-21 pour l'objectif tokens : avec des mises "
            "cumulées, les jetons de la charge ne sont pas modélisés : prenez l'objectif loser",
        ),
        (
            [*GAME, "--tokens", "5,5"],
            "tokens 5,5 and pot 0 do not make a position of 11 tokens "
            "(0 or more each in the charge, 1 or more in the décharge)",
            "les jetons 5,5 et le pot 0 ne font pas une position à 11 jetons "
            "(au moins 0 chacun dans la charge, au moins 1 dans la décharge)",
        ),
        (
            [*GAME_3, "--tokens", "4,4,4"],
            "tokens 4,4,4 and pot 0 do not make a position of 3 players and 11 tokens "
            "(3 counts that add up to 11 with the pot, 0 or more each in the charge)",
            "les jetons 4,4,4 et le pot 0 ne font pas une position à 3 joueurs et 11 jetons "
            "(3 nombres qui font 11 avec le pot, au moins 0 chacun dans la charge)",
        ),
        (
            [*GAME_3, "--tokens", "4,7,0", "--before", "653,221"],
            "2 results before yours need at least 3 players holding tokens in the round, not 2",
            "2 résultats avant le vôtre demandent au moins 3 joueurs ayant des jetons dans le tour, pas 2",
        ),
        (
            [*GAME_3, "--tokens", "0,7,4"],
            "you hold no token and are out of the manche: you have no turn to play",
            "vous n'avez aucun jeton et êtes hors de la manche : vous n'avez pas de coup à jouer",
        ),
        (
            [*GAME_3, "--rules", "tim"],
            "the game-level solver cannot solve tim for 3 players: tim is not played by 3",
            f"{CANNOT_3} tim à 3 joueurs : tim ne se joue pas à 3",
        ),
        (
            [*GAME, "--players", "6"],
            "the game-level solver cannot solve classic-11 for 6 players: the game-level solver seats 2 to 5 "
            "players, not 6",
            f"{CANNOT_3} classic-11 à 6 joueurs : le solveur de la partie entière prend de 2 à 5 "
            "joueurs, pas 6",
        ),
        (  # nothing owed, but a count for another table: refused before the game is found unsolved
            [*GAME_3, "--rules", "vache-41", "--set", "queue_de_la_vache=true", "--debts", "0,0"],
            "expected 3 debts (yours, then clockwise), not 2",
            "3 dettes attendues (la vôtre, puis dans le sens des aiguilles d'une montre), pas 2",
        ),
        (  # no --stake at all: asked for, not refused as a stake of 0 nobody gave
            [*GAME_3, "--rules", "lyonnaise-21", "--phase", "charge", "--before", "653"],
            "with accumulated stakes, give the stake so far with --stake: at least 2, the values of the "
            "results before and of your dice",
            "avec des mises cumulées, donnez la mise jusqu'ici avec --stake : au moins 2, les valeurs des "
            "résultats d'avant et de vos dés",
        ),
        (  # two players: the same stake, checked before the manche is solved
            [*GAME, "--rules", "lyonnaise-21", "--phase", "charge", "--before", "653", "--stake", "1"],
            "with accumulated stakes the stake so far is at least 2, the values of the results before "
            "and of your dice, not 1 (--stake)",
            "avec des mises cumulées, la mise jusqu'ici vaut au moins 2, les valeurs des résultats "
            "d'avant et de vos dés, pas 1 (--stake)",
        ),
        (
            [*GAME_3, "--rules", "lyonnaise-21", "--phase", "charge", "--before", "653", "--stake", "1"],
            "with accumulated stakes the stake so far is at least 2, the values of the results before "
            "and of your dice, not 1 (--stake)",
            "avec des mises cumulées, la mise jusqu'ici vaut au moins 2, les valeurs des résultats "
            "d'avant et de vos dés, pas 1 (--stake)",
        ),
        (
            [*GAME_3, "--rules", "engranjeu-21", "--before", "653"],
            "« qui barre démarre » compares throw counts: give the throws each result before took, "
            "like --before 421/2,653/1",
            "« qui barre démarre » compare les nombres de lancers : donnez les lancers de chaque "
            "résultat d'avant, comme --before 421/2,653/1",
        ),
        (
            [*GAME_3, "--rules", "engranjeu-21", "--before", "653/4"],
            "a result before takes 1 to 3 throws, not 4 (653/4)",
            "un résultat d'avant prend de 1 à 3 lancers, pas 4 (653/4)",
        ),
        (
            [*GAME_3, "--rules", "engranjeu-21", "--before", "653/2,221/2", "--limit", "1"],
            "the leader's result took 2 throws (653/2), and --limit says 1; the leader's throws are the "
            "limit: give one of them, or the same number in both",
            "le résultat de celui qui entame a pris 2 lancers (653/2), et --limit dit 1 ; les lancers de "
            "celui qui entame sont la limite : donnez l'un des deux, ou le même nombre dans les deux",
        ),
        (
            [*GAME_3, "--rules", "engranjeu-21", "--before", "653/1,221/3", "--limit", "1"],
            "221 took 3 throws, more than the limit the leader's result set (1): no later result takes more",
            "221 a pris 3 lancers, plus que la limite fixée par le résultat de celui qui entame (1) : "
            "aucun résultat suivant n'en prend plus",
        ),
        (
            [*GAME, "--players", "4", "--rules", "engranjeu-21"],
            "the game-level solver cannot solve engranjeu-21 for 4 players: « qui barre démarre » is "
            "solved whole for 3 players at most (results counted by their throws make larger rounds too many "
            "summaries), not 4",
            f"{CANNOT_3} engranjeu-21 à 4 joueurs : « qui barre démarre » se résout en partie entière à "
            "3 joueurs au plus (les résultats comptés avec leurs lancers donnent trop de résumés aux "
            "tables plus grandes), pas 4",
        ),
        (
            [*GAME_3, "--set", "manches=3", "--set", "queue_de_la_vache=true"],
            "the game-level solver cannot solve classic-11 for 3 players: « queue de la vache » is "
            "solved whole in a game of two manches (no fiches de manche, no « main chaude »)",
            f"{CANNOT_3} classic-11 à 3 joueurs : « queue de la vache » se résout en partie entière en "
            "deux manches (sans fiches de manche ni « main chaude »)",
        ),
        (
            [*GAME, "--players", "4", "--rules", "comptoir-21", "--set", "pot=50"],
            "the game-level solver cannot solve comptoir-21 for 4 players: its décharge would have about "
            "93,704 positions of 4 players, more than the 53,000 the solver takes on (solving would take "
            "hours)",
            f"{CANNOT_3} comptoir-21 à 4 joueurs : sa décharge aurait environ 93 704 positions à 4 joueurs, "
            "plus que les 53 000 que prend le solveur (la résolution prendrait des heures)",
        ),
        (
            [*GAME, "--players", "4", "--rules", "vache-41", "--set", "queue_de_la_vache=true"],
            "the game-level solver cannot solve vache-41 for 4 players: with « queue de la vache » its "
            "décharge is solved again for each debt the charge may leave: about 2,172,016 positions of 4 "
            "players, more than the 120,000 the solver takes on (solving would take days)",
            f"{CANNOT_3} vache-41 à 4 joueurs : avec « queue de la vache », sa décharge se résout à "
            "nouveau pour chaque dette que la charge peut laisser : environ 2 172 016 positions à 4 "
            "joueurs, plus que les 120 000 que prend le solveur (la résolution prendrait des jours)",
        ),
        (
            # the charge ends when the pot is empty
            [*GAME_3, "--set", "pot=1", "--phase", "charge", "--pot", "0", "--tokens", "1,0,0"],
            "--pot 0: the charge's pot holds 1 to 1 tokens (the rules' pot), the charge ending when it "
            "is empty",
            "--pot 0 : le pot de la charge tient de 1 à 1 jetons (celui des règles), la charge finissant "
            "quand il est vide",
        ),
        (
            # a pot the rules never fill, valued by a round objective and by the two players' game
            [
                "advise",
                "642",
                "--throws-left",
                "0",
                "--objective",
                "tokens",
                "--players",
                "3",
                "--phase",
                "charge",
                "--pot",
                "50",
            ],
            "--pot 50: the charge's pot holds 1 to 11 tokens (the rules' pot), the charge ending when it "
            "is empty",
            "--pot 50 : le pot de la charge tient de 1 à 11 jetons (celui des règles), la charge finissant "
            "quand il est vide",
        ),
        (
            [*GAME, "--phase", "charge", "--pot", "0", "--tokens", "5,6"],
            "--pot 0: the charge's pot holds 1 to 11 tokens (the rules' pot), the charge ending when it "
            "is empty",
            "--pot 0 : le pot de la charge tient de 1 à 11 jetons (celui des règles), la charge finissant "
            "quand il est vide",
        ),
        (
            ["solve", "--players", "9"],
            "the round solver (bot:optimal, advice for three or more) plays 2 to 8 players, not 9; "
            "bot:heuristic and bot:random play at any table",
            "le solveur des tours (bot:optimal, conseils à trois joueurs ou plus) prend de 2 à 8 joueurs, "
            "pas 9 ; bot:heuristic et bot:random jouent à toute table",
        ),
    ],
)
def test_a_question_the_solvers_cannot_answer_is_refused_in_french(
    args: list[str], english: str, french: str
) -> None:
    said_en, said_fr = solver_refusals(*args)
    assert said_en == f"Error: {english}\n"
    assert said_fr == f"Erreur : {french}\n"


def test_the_two_player_solvers_other_refusals_are_worded_in_french() -> None:
    """What the command line never asks (it seats two players first), asked of the solvers directly."""
    from py421.core.dice import Result
    from py421.core.errors import InvalidPosition, InvalidRuleset
    from py421.core.rules import Ruleset
    from py421.i18n import error_text
    from py421.solver.advice import RoundContext, advise_game
    from py421.solver.heads_up import HeadsUp

    with pytest.raises(InvalidPosition) as refused:
        advise_game(Ruleset.preset("classic-11"), Result.parse("642"), 0, RoundContext(3))
    with pytest.raises(InvalidRuleset) as unseated:
        HeadsUp(Ruleset.preset("classic-11").with_options(min_players=3))
    for error, english, french in (
        (
            refused.value,
            "the chance of losing the manche is solved for two players, not a round of 3",
            "la chance de perdre la manche est résolue pour deux joueurs, pas pour un tour à 3",
        ),
        (
            unseated.value,
            "the two-player solver cannot solve classic-11: classic-11 is not played by two",
            "le solveur à deux joueurs ne peut pas résoudre classic-11 : classic-11 ne se joue pas à deux",
        ),
    ):
        assert str(error) == error_text("en", error) == english
        assert error_text("fr", error) == french


def test_simulate_refuses_a_person_in_french() -> None:
    result = CliRunner().invoke(main, ["simulate", "--lang", "fr", "--players", "bot:optimal,Ana"])
    assert result.exit_code != 0
    assert "'Ana' ne peut pas jouer dans une simulation ; possible : bot:random" in result.output
    assert "cannot play" not in result.output


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "--limit is the throws the round's leader used, which bind the players after them"),
        ("fr", "--limit est le nombre de lancers qu'a pris celui qui entame le tour"),
    ],
)
def test_advise_refuses_a_leaders_limit_with_no_leader_before(lang: str, said: str) -> None:
    args = ["advise", "642", "--throws-left", "1", "--objective", "loser", "--limit", "2", "--lang", lang]
    result = CliRunner().invoke(main, args, env={"LANG": "C"})
    assert result.exit_code == 2
    assert said in result.output


@pytest.mark.parametrize("command", ["history", "analyse"])
def test_a_game_number_too_big_for_the_history_is_no_game_of_it(command: str) -> None:
    number = "9" * 23  # more than a 64-bit integer: the database could not even look it up
    assert f"il n'y a pas de partie numéro {number} dans l'historique" in french_error(command, number)


def test_a_report_folder_that_cannot_be_written_is_refused_before_any_game(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    taken = tmp_path / "notes.txt"
    taken.write_text("mes notes", encoding="utf-8")
    out = taken / "report"  # a folder cannot be made in a file (nor on a read-only disk)
    error = french_error("report", "--rules", "tim", "--games", "100", "--out", str(out))
    assert f"impossible d'écrire le rapport dans {out} : " in error, error
    assert "choisissez un dossier où vous pouvez écrire" in error, error
    assert taken.read_text(encoding="utf-8") == "mes notes"


def test_a_dask_scheduler_out_of_reach_is_said_in_french() -> None:
    pytest.importorskip("distributed")
    error = french_error("simulate", "--games", "5", "--scheduler", "x")  # no port: refused at once
    assert "impossible de joindre un ordonnanceur Dask à 'x' (" in error, error
    assert "donnez son adresse, comme tcp://hôte:8786" in error, error


def test_a_rules_name_that_is_no_preset_says_whether_the_file_is_missing_or_a_folder(tmp_path: Path) -> None:
    def said(name: str) -> str:
        result = CliRunner().invoke(main, ["rules", "show", name, "--lang", "fr"], env={"LANG": "C"})
        assert result.exit_code == 2, result.output
        return result.output

    said_of = said("mes-regles.toml")
    assert "'mes-regles.toml' n'est ni le nom de règles prédéfinies ni un fichier de règles (aucun" in said_of
    assert "(c'est un dossier)" in said(str(tmp_path))


@pytest.mark.parametrize(
    ("command", "what", "french"),
    [
        ("replay", "missing.json", "aucun fichier ni dossier de ce nom"),
        ("replay", "latin1.json", "ce n'est pas du texte UTF-8"),
        ("replay", "a_file/game.json", "une partie du chemin n'est pas un dossier"),
        ("rules show", "latin1.json", "ce n'est pas du texte UTF-8"),
    ],
)
def test_a_file_the_system_cannot_read_is_explained_in_french(
    tmp_path: Path, command: str, what: str, french: str
) -> None:
    (tmp_path / "latin1.json").write_bytes('{"name": "partie à 2"}'.encode("latin-1"))
    (tmp_path / "a_file").write_text("{}", encoding="utf-8")
    args = [*command.split(), str(tmp_path / what), "--lang", "fr"]
    result = CliRunner().invoke(main, args, env={"LANG": "C"})
    assert result.exit_code == 2, result.output
    assert french in result.output, result.output
    assert leftovers(result.output) == [] and "Errno" not in result.output, result.output


@pytest.mark.parametrize(
    ("args", "asked"),
    [
        (["report", "--rules", "tim", "--games", "100", "--out", ""], "donnez le nom d'un dossier"),
        (["replay", ""], "donnez le nom d'un fichier"),
        (["verify", " "], "donnez le nom d'un fichier"),
        (["play", *BOTS, "--record", ""], "donnez le nom d'un fichier"),
    ],
)
def test_an_empty_file_or_folder_name_is_refused_not_read_as_the_current_folder(
    args: list[str], asked: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Asked for what the option takes: a file where a folder is refused, and the other way round."""
    monkeypatch.chdir(tmp_path)
    said = CliRunner().invoke(main, [*args, "--lang", "fr"], env={"LANG": "C"}).output
    assert f"un nom vide : {asked}" in said and "ou d'un" not in said, said
    assert list(tmp_path.iterdir()) == []  # nothing written here


def test_an_empty_answer_at_the_table_is_no_double_negative_in_french() -> None:
    """« un résultat, c'est 3 dés, pas aucun dé »: French says « pas zéro dé »."""
    result = CliRunner().invoke(main, ["table", "--players", "Ana,Bob", "--lang", "fr"], input="\nq\n")
    assert "un résultat, c'est 3 dés, pas zéro dé" in result.output, result.output
    assert "pas aucun" not in result.output
