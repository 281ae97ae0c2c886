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
            "min_players=5 dépasse max_players=3 ; le_bon demande une phase à plus d'un lancer",
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


def test_an_unknown_preset_in_a_ruleset_file_is_explained_in_french(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text('base = "nope"\n', encoding="utf-8")
    assert "règles inconnues : 'nope' ; au choix : classic-11, " in french_error("rules", "show", str(path))


@pytest.mark.parametrize(
    ("players", "french"),
    [
        ("Ana", "classic-11 se joue à au moins 2 joueurs, pas 1"),
        ("Ana,ana", "deux joueurs s'appellent 'Ana' ; les noms doivent être différents"),
        ("Ana,,Bob", "le nom d'un joueur ne peut pas être vide"),
        ("Ana," + "B" * 41, "un nom fait au plus 40 caractères, pas 41"),
        ("Ana,Bob\u202e", "un nom ne peut pas contenir U+202E (caractères invisibles ou de contrôle)"),
        ("Ana,bot:nope", "bot inconnu : 'bot:nope' ; au choix : bot:random, bot:heuristic"),
        ("Ana,Heuristic 1", "'Heuristic 1' : les noms comme « Heuristic 1 » sont réservés aux bots"),
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

    assert "ce n'est pas un enregistrement de partie en JSON" in replayed("{")
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


def test_a_misshapen_record_is_explained_in_french(tmp_path: Path) -> None:
    game = tmp_path / "game.json"
    played = CliRunner().invoke(main, ["play", *BOTS, "--record", str(game)])
    assert played.exit_code == 0, played.output
    record = json.loads(game.read_text(encoding="utf-8"))

    def replayed(data: object) -> str:
        path = tmp_path / "broken.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        return french_error("replay", str(path))

    rules = replayed({**record, "rules": "tim"})
    assert (
        """les règles de l'enregistrement ("rules") doivent être un objet, comme dans un fichier""" in rules
    )
    assert """et non 'tim' ; pour des règles prédéfinies, écrivez {"base": "tim"}""" in rules
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
        "Erreur : valeur non valable pour 'RÈGLES' : 'nope' n'est ni des règles prédéfinies ni un fichier"
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
    assert f"la partie sauvegardée {save} ne peut pas être reprise : elle ne peut pas être lue (" in error
    assert f"déplacez-la hors de {saves} pour reprendre la partie sauvegardée avant elle" in error
    assert "elle contient une liste JSON, et non une partie sauvegardée" in resumed("[]")
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
    assert "la partie sauvegardée installe Ana, Bob, pas Ana, Carl" in french_error(
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
    assert "'bot:random' : le marqueur installe les personnes d'une vraie table" in error
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
