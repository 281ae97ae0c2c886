import json
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from py421.cli import main
from py421.core.errors import InvalidRuleset
from py421.core.rules import Ruleset, option_fields, preset_names

PRESET_DIR = Path(__file__).parents[1] / "src" / "py421" / "core" / "presets"


def test_there_are_seven_presets():
    assert preset_names() == (
        "classic-11",
        "lyonnaise-21",
        "vache-41",
        "kytionnaire",
        "tim",
        "comptoir-21",
        "engranjeu-21",
    )


@pytest.mark.parametrize("name", preset_names())
def test_every_preset_is_a_data_file_citing_its_seed(name):
    data = tomllib.loads((PRESET_DIR / f"{name}.toml").read_text(encoding="utf-8"))
    assert data["name"] == name
    assert data["source"].startswith("seed 00")
    assert Ruleset.preset(name).source == data["source"]


@pytest.mark.parametrize(
    ("name", "pot", "players"),
    [
        ("classic-11", 11, "2 or more"),  # seed 001: « 2 et plus »
        ("lyonnaise-21", 21, "2 or more"),
        ("vache-41", 41, "2 or more"),
        ("kytionnaire", 11, "2 to 8"),  # seed 002: « pour 2 à 8 joueurs »
        ("tim", 11, "2"),
        ("comptoir-21", 21, "2 or more"),  # seed 000 sets no most
        ("engranjeu-21", 21, "2 to 8"),  # seed 004: « 2 - 8 »
    ],
)
def test_pot_and_players(name, pot, players):
    r = Ruleset.preset(name)
    assert (r.pot, r.players_range) == (pot, players)


def test_a_preset_can_be_changed_by_options():
    r = Ruleset.preset("classic-11").with_settings(["pot=21", "le_bon=false", "tie_break=qui_barre_demarre"])
    assert (r.pot, r.le_bon, r.tie_break, r.name) == (21, False, "qui_barre_demarre", "classic-11")
    assert Ruleset.preset("classic-11").pot == 11  # presets never change


def test_an_option_set_twice_is_refused_rather_than_the_last_one_taken(private_home):
    with pytest.raises(
        InvalidRuleset, match=r"pot is set twice \(pot=21, then pot=31\): set each option once"
    ):
        Ruleset.preset("classic-11").with_settings(["pot=21", "le_bon=false", " pot = 31"])
    said = CliRunner().invoke(
        main, ["rules", "show", "classic-11", "--set", "pot=21", "--set", "pot=31", "--lang", "fr"]
    )
    assert (
        said.exit_code == 2
        and "pot est réglé deux fois (pot=21, puis pot=31) : réglez chaque option une fois" in said.output
    )


def test_an_unknown_option_is_named_and_the_accepted_ones_listed():
    with pytest.raises(InvalidRuleset) as err:
        Ruleset.preset("classic-11").with_settings(["pots=21"])
    message = str(err.value)
    assert "unknown option 'pots'" in message
    assert "did you mean 'pot'" in message
    for f in option_fields():
        assert f.name in message


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("pot=0", "pot=0 is not accepted; pot takes 1 to 999"),
        ("pot=lots", "pot='lots' is not accepted; pot takes 1 to 999"),
        ("le_bon=maybe", "le_bon='maybe' is not accepted; le_bon takes true | false"),
        ("tie_break=coin", "tie_break takes rampot | last_player_first | qui_barre_demarre"),
        ("charge_throws=4", "charge_throws takes 1 to 3"),
        ("min_players=5", "min_players=5 is above max_players=2"),
        ("pair_fiches=true", "pair_fiches places pairs right after the x11 group"),
        ("winners=first_out", "needs manches=1"),
        ("pot", "write OPTION=VALUE"),
    ],
)
def test_inconsistent_values_are_rejected_with_their_reason(setting, message):
    with pytest.raises(InvalidRuleset, match=message.replace("|", r"\|")):
        Ruleset.preset("tim").with_settings([setting])


def test_queue_de_la_vache_needs_more_than_one_manche():
    assert Ruleset.preset("vache-41").with_options(queue_de_la_vache=True).queue_de_la_vache
    with pytest.raises(InvalidRuleset, match="queue_de_la_vache"):
        Ruleset.preset("kytionnaire").with_options(queue_de_la_vache=True)


def test_a_ruleset_file_starts_from_a_preset():
    r = Ruleset.from_text('base = "vache-41"\nname = "ours"\n[options]\nqueue_de_la_vache = true\npot = 31\n')
    assert (r.name, r.pot, r.queue_de_la_vache, r.ranking) == ("ours", 31, True, "vache")


def test_the_json_of_a_ruleset_reads_back_identically():
    r = Ruleset.preset("engranjeu-21").with_settings(["pot=15"])
    assert Ruleset.from_text(json.dumps(r.to_dict())) == r


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("base = 'nope'", "unknown preset 'nope'; accepted: classic-11"),
        ("colour = 'red'", "unknown key 'colour'"),
        ("[options]\nfoo = 1", "unknown option 'foo'"),
        ("this is not toml", "not a TOML or JSON ruleset"),
        ("[options]\npot = true", "pot=true is not accepted; pot takes 1 to 999"),  # as the file spells it
        ("base = 'vache-41'\nname = ''", "a ruleset's name cannot be empty: name it as the table calls it"),
        ('{"base": "vache-41", "name": "  "}', "a ruleset's name cannot be empty"),
    ],
)
def test_bad_ruleset_files_say_what_is_wrong(text, message):
    """Each refusal names the file first, as a syntax error does: a value inside it was once said
    alone (« pot=true is not accepted »), with nothing to tell which file held it."""
    with pytest.raises(InvalidRuleset, match=message) as refused:
        Ruleset.from_text(text, filename="house.toml")
    assert str(refused.value).startswith("house.toml: ")


@pytest.mark.parametrize(
    ("text", "filename"), [("", "house.toml"), ("# our rules\n\n", "house.toml"), ("{}", "house.json")]
)
def test_a_ruleset_file_that_sets_nothing_is_refused_not_read_as_the_common_rule(text, filename):
    """An empty file (or comments only) was read as a ruleset named « custom » with the common rule:
    most likely a file saved before it was written, and the game played by rules nobody chose."""
    with pytest.raises(InvalidRuleset, match=f"{filename} sets nothing: give its base") as caught:
        Ruleset.from_text(text, filename=filename)
    assert 'base = "classic-11"' in str(caught.value)


def test_a_record_whose_rules_have_an_empty_name_still_reads():
    """Refused in a ruleset file only: what was played and kept before still reads."""
    data = {**Ruleset.preset("vache-41").to_dict(), "name": ""}
    assert Ruleset.from_mapping(data).name == ""


@pytest.mark.parametrize("text", ["[1, 2]", ' ["pot", 21]\n', "null", "true"])
def test_a_json_file_that_is_no_object_is_told_so_not_given_a_toml_error(text):
    with pytest.raises(InvalidRuleset, match=r"a ruleset is a table with the keys .*, not ") as caught:
        Ruleset.from_text(text, filename="house.json")
    assert "TOML" not in str(caught.value)
    assert str(caught.value).endswith(f"not {json.dumps(json.loads(text))}")  # as the file spells it


@pytest.mark.parametrize("name", preset_names())
def test_main_chaude_is_said_by_the_rules(name):
    """« Main chaude » (a tie-break tied again asks for a stake) is a property of the ruleset."""
    rules = Ruleset.preset(name)
    assert rules.main_chaude is (rules.tie_break == "qui_barre_demarre")
    assert Ruleset.preset("engranjeu-21").main_chaude and not Ruleset.preset("classic-11").main_chaude
