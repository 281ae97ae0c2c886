"""A ruleset, record or save that is not JSON or TOML says where and why in the player's language."""

from __future__ import annotations

import json
import tomllib

import pytest

from py421.core.errors import InvalidRecord, InvalidRuleset
from py421.core.record import Record
from py421.core.rules import Ruleset
from py421.core.syntax import syntax_reason
from py421.i18n import error_text


@pytest.mark.parametrize(
    ("text", "key", "where"),
    [
        ("", "value", (1, 1)),
        ('{"a": }', "value", (1, 7)),
        ("{", "key", (1, 2)),
        ('{"a" 1}', "colon", (1, 6)),
        ('{"a": 1\n "b": 2}', "comma", (2, 2)),
        ('{"a": "x', "unterminated", (1, 7)),
        ('{"a": "x\ny"}', "control", (1, 9)),
        ('{"a": "\\q"}', "escape", (1, 8)),
        ('{"a": "\\u12"}', "unicode_escape", (1, 9)),
        ("{} {}", "extra", (1, 4)),
    ],
)
def test_json_mistakes_are_named_with_their_line_and_column(
    text: str, key: str, where: tuple[int, int]
) -> None:
    with pytest.raises(json.JSONDecodeError) as caught:
        json.loads(text)
    reason = syntax_reason(caught.value)
    assert reason.key == "syntax.at"
    assert (reason.fields["line"], reason.fields["column"]) == where
    assert getattr(reason.fields["what"], "key", None) == f"syntax.{key}"


@pytest.mark.parametrize(
    ("text", "key", "where"),
    [
        ("pot = yes\n", "bad_value", (1, 7)),
        ("= 3\n", "statement", (1, 1)),
        ("a.= 1\n", "name", (1, 3)),
        ("pot 3\n", "equals", (1, 5)),
        ('name = "x\n', "control", (1, 10)),
        ('name = "a\\q"\n', "escape", (1, 12)),
        ("pot = 3 4\n", "one_per_line", (1, 9)),
        ("pot = 3\npot = 4\n", "twice", (2, 8)),
        ("[a]\n[a]\n", "twice", (2, 3)),
        ("[options\n", "unclosed", (1, 9)),
        ("x = [1, 2\n", "unclosed_list", None),
        ("x = [1 2]\n", "unclosed_list", (1, 8)),
        ("base = 'tim\n", "unterminated", None),
        ('name = "\\u12"\n', "unicode_escape", (1, 11)),
        ("# a\x7f comment\n", "control", (1, 4)),
        ("x = {a = 1\n", "unclosed_table", (1, 11)),
        ('name = "x', "unterminated", None),
    ],
)
def test_toml_mistakes_are_named_with_their_line_and_column(
    text: str, key: str, where: tuple[int, int] | None
) -> None:
    with pytest.raises(tomllib.TOMLDecodeError) as caught:
        tomllib.loads(text)
    reason = syntax_reason(caught.value)
    if where is None:
        assert reason.key == "syntax.at_end"
    else:
        assert reason.key == "syntax.at"
        assert (reason.fields["line"], reason.fields["column"]) == where
    assert getattr(reason.fields["what"], "key", None) == f"syntax.{key}"


def test_a_broken_ruleset_file_says_where_in_french() -> None:
    with pytest.raises(InvalidRuleset) as caught:
        Ruleset.from_text('base = "classic-11"\n[options]\npot = oui\n', filename="mes-regles.toml")
    assert caught.value.message is not None
    said = error_text("fr", caught.value.message)
    assert said == (
        "mes-regles.toml : ce n'est pas un fichier de règles TOML ou JSON (ligne 3, colonne 7 : "
        "une valeur manque ou n'est pas valable (un texte s'écrit entre guillemets droits))"
    )
    assert str(caught.value) == (
        "mes-regles.toml: not a TOML or JSON ruleset (line 3, column 7: "
        "a value is missing or not valid (text goes between double quotes))"
    )


def test_a_cut_record_says_where_in_french() -> None:
    with pytest.raises(InvalidRecord) as caught:
        Record.from_json('{"format": "py421-record",\n "steps": [')
    assert caught.value.message is not None
    assert error_text("fr", caught.value.message) == (
        "ce n'est pas un enregistrement de partie en JSON (ligne 2, colonne 12 : une valeur est attendue)"
    )


def test_a_rarer_mistake_keeps_the_parser_s_words() -> None:
    with pytest.raises(tomllib.TOMLDecodeError) as caught:
        tomllib.loads("a = {b = 1}\na.c = 2\n")  # an inline table is written whole
    reason = syntax_reason(caught.value)
    assert getattr(reason.fields["what"], "key", None) == "syntax.other"
    assert error_text("fr", reason) == "ligne 2, colonne 8 : Cannot mutate immutable namespace ('a',)"


def test_a_byte_order_mark_some_editors_write_is_not_part_of_the_text() -> None:
    assert Ruleset.from_text('\ufeffbase = "tim"\n', filename="mine.toml").name == "tim"
    assert Ruleset.from_text('\ufeff{"base": "tim"}', filename="mine.json").name == "tim"
    with pytest.raises(InvalidRecord, match="py421 game record"):  # read as JSON, refused as a record
        Record.from_json('\ufeff{"format": "other"}')


@pytest.mark.parametrize(
    ("text", "filename", "french"),
    [
        ("pot = " + "9" * 5000, "mine.toml", "un nombre de plus de 4300 chiffres"),
        ('{"pot": ' + "9" * 5000 + "}", "mine.json", "un nombre de plus de 4300 chiffres"),
        ("pot = " + "[" * 100_000, "mine.toml", "des crochets ou des accolades imbriqués trop profondément"),
        ("[" * 100_000, "mine.json", "des crochets ou des accolades imbriqués trop profondément"),
    ],
)
def test_a_hostile_ruleset_is_refused_with_a_reason_not_a_traceback(
    text: str, filename: str, french: str
) -> None:
    with pytest.raises(InvalidRuleset) as caught:
        Ruleset.from_text(text, filename=filename)
    assert caught.value.message is not None
    assert french in error_text("fr", caught.value.message)


@pytest.mark.parametrize("text", ["[" * 100_000, '{"steps": ' + "9" * 5000 + "}"])
def test_a_hostile_record_is_refused_with_a_reason_not_a_traceback(text: str) -> None:
    with pytest.raises(InvalidRecord) as caught:
        Record.from_json(text)
    assert caught.value.message is not None
    assert error_text("fr", caught.value.message).startswith(
        "ce n'est pas un enregistrement de partie en JSON ("
    )


def test_a_parser_s_other_refusal_keeps_its_words() -> None:
    reason = syntax_reason(ValueError("Out of range float values are not JSON compliant"))
    assert (reason.key, error_text("fr", reason)) == (
        "syntax.other",
        "Out of range float values are not JSON compliant",
    )
