"""The one catalog: every message in every language, with the same fields."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from py421.core.actions import ChooseStake, Stop, Throw
from py421.core.errors import IllegalAction, InvalidNotation, Message
from py421.core.events import RoundDecided
from py421.core.rules import Ruleset
from py421.i18n import (
    CATALOGS,
    EN,
    LANGS,
    action_text,
    detect_lang,
    error_text,
    fields_of,
    guillemets,
    num,
    page_catalog,
    plural,
    tr,
)
from py421.play.session import Session, parse_seats
from py421.text import describe

CORE = Path(__file__).parents[1] / "src" / "py421" / "core"


@pytest.mark.parametrize("lang", LANGS)
def test_every_message_has_every_language(lang: str) -> None:
    assert sorted(EN.keys() - CATALOGS[lang].keys()) == [], "no wording in " + lang
    assert sorted(CATALOGS[lang].keys() - EN.keys()) == [], "no English wording"


@pytest.mark.parametrize("lang", LANGS)
def test_every_language_fills_the_same_fields(lang: str) -> None:
    """The same fields in every language; click's words may leave out one click fills in English
    (a type's name: "Path 'x' is a directory" is « 'x' est un dossier »), and a plural mark ``{s}``
    is each language's own (« relancer 1 dé », "throw 1")."""

    def differs(key: str) -> bool:
        ours, theirs = fields_of(EN[key]) - {"s"}, fields_of(CATALOGS[lang][key]) - {"s"}
        return not theirs <= ours if key.startswith("click.") else theirs != ours

    differ = {
        key: (sorted(fields_of(EN[key])), sorted(fields_of(CATALOGS[lang][key])))
        for key in EN
        if differs(key)
    }
    assert differ == {}


def test_no_message_is_empty() -> None:
    assert [(lang, key) for lang in LANGS for key, text in CATALOGS[lang].items() if not text.strip()] == []


def test_the_page_gets_the_terminal_s_outcomes_and_calls() -> None:
    for lang in LANGS:
        words = page_catalog(lang)
        assert words["outcome.loser"] == tr(lang, "outcome.loser", who="{who}")
        assert words["call.1"] == guillemets(tr(lang, "call.1"))
        assert "error.internal" in words and "nav.scorekeeper" in words


@pytest.mark.parametrize("lang", LANGS)
def test_the_page_s_guillemets_hold_their_words_on_one_line(lang: str) -> None:
    """The page wraps its lines: a no-break space inside every « … », never a space that breaks."""
    words = page_catalog(lang)
    assert sum("«\u00a0" in text for text in words.values()) > 5
    assert [key for key, text in words.items() if re.search("«(?!\u00a0\\S)|(?<!\\S\u00a0)»", text)] == []
    assert guillemets("« le bon »,  «  sec ! »") == "«\u00a0le bon\u00a0»,  «\u00a0sec !\u00a0»"


def test_the_language_comes_from_the_locale() -> None:
    assert detect_lang({"LANG": "fr_FR.UTF-8"}) == "fr"
    assert detect_lang({"LC_ALL": "C", "LANG": "fr_FR.UTF-8"}) == "en"
    assert detect_lang({}) == "en"


def test_language_lists_the_languages_first_as_gettext_reads_it() -> None:
    assert detect_lang({"LANG": "en_GB.UTF-8", "LANGUAGE": "fr:en"}) == "fr"
    assert detect_lang({"LANG": "fr_FR.UTF-8", "LANGUAGE": "en_GB:fr"}) == "en"
    assert detect_lang({"LANGUAGE": "fr"}) == "fr"
    assert detect_lang({"LANG": "C.UTF-8", "LANGUAGE": "fr"}) == "en"  # the C locale has no translations


def test_every_key_core_raises_is_in_the_catalog() -> None:
    """Core names its messages by key without importing the catalog: each key must be worded."""
    keys = set()
    for path in CORE.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        keys |= {"refusal." + k for k in re.findall(r'_refusal\(\s*"([\w.]+)"', text)}
        keys |= set(
            re.findall(
                r'Message\(\s*"((?:refusal|notation|compare|rules|ruleset|players|record)\.[\w. ]+)"', text
            )
        )
    assert len(keys) > 30
    assert sorted(keys - EN.keys()) == []


def test_every_key_the_solvers_raise_is_in_the_catalog() -> None:
    """The solvers' refusals (421 advise, 421 solve) are worded in every language too."""
    keys = set()
    for path in (CORE.parent / "solver").glob("*.py"):
        keys |= set(re.findall(r'"(solver\.[\w.]+)"', path.read_text(encoding="utf-8")))
    assert len(keys) > 20
    assert sorted(keys - EN.keys()) == []


def a_decision() -> Session:
    session = Session(Ruleset.preset("tim"), parse_seats(["Ana", "Bob"]), seed="x")
    while not session.human_to_move():
        session.step()
    return session


def test_a_refusal_is_english_by_default_and_french_when_asked() -> None:
    state = a_decision().state
    assert state.round is not None and state.round.dice == (2, 1, 1)
    with pytest.raises(IllegalAction) as refused:
        state.apply(Throw((2, 1, 1)))  # all three dice showing
    english = str(refused.value)
    assert "cannot keep 211: keeping all three dice is stopping; accepted: stop, throw" in english
    assert error_text("en", refused.value) == english
    french = error_text("fr", refused.value)
    assert "ne peut pas garder 211 : garder les trois dés, c'est s'arrêter ; possible : s'arrêter" in french


def test_notation_errors_and_actions_in_french() -> None:
    with pytest.raises(InvalidNotation) as refused:
        a_decision().act("keep 7")
    assert error_text("fr", refused.value) == "'7' : un dé va de 1 à 6, pas 7"
    assert [action_text("fr", a) for a in (Stop(), Throw(), Throw((4, 2)), Throw((4,), bon=True))] == [
        "s'arrêter",
        "tout relancer",
        "garder 42",
        "annoncer « le bon » en gardant 4",
    ]
    assert [action_text("en", a) for a in (Stop(), Throw(), Throw((4, 2)))] == ["stop", "throw", "keep 42"]


def test_numbers_read_the_french_way() -> None:
    assert num("fr", 0.602194, ".4%") == "60,2194 %"
    assert num("fr", 100_000, ",") == "100 000"
    assert num("en", 0.602194, ".4%") == "60.2194%"


def test_large_counts_in_messages_are_grouped_the_french_way() -> None:
    """« 93704 positions … les 53000 » is hard to read: French groups by three with spaces, as the
    English groups them with commas."""
    refusal = Message("solver.game.too_big", {"positions": 93704, "n": 4, "most": 53000})
    assert "about 93,704 positions of 4 players, more than the 53,000" in error_text("en", refusal)
    assert "environ 93 704 positions à 4 joueurs, plus que les 53 000" in error_text("fr", refusal)


def test_a_number_that_rounds_to_zero_is_written_without_a_minus() -> None:
    """A first-player advantage of −3e-9 is none at the precision shown: « -0.0000% » would read
    as a disadvantage. Small numbers still shown (in scientific notation) keep their sign."""
    assert num("en", -3e-9, "+.4%") == "+0.0000%"
    assert num("fr", -3e-9, "+.6%") == "+0,000000 %"
    assert num("en", -3e-9, ".2f") == "0.00"
    assert num("en", -3e-9, ".1e") == "-3.0e-09"
    assert num("en", -0.00004, "+.4%") == "-0.0040%"


@pytest.mark.parametrize(
    ("who", "said"),
    [
        ("Ana", "lancers d'Ana"),
        ("Éloïse", "lancers d'Éloïse"),
        ("Hugo", "lancers d'Hugo"),
        ("Yves", "lancers d'Yves"),
        ("Yasmine", "lancers de Yasmine"),
        ("Bob", "lancers de Bob"),
    ],
)
def test_french_elides_de_before_a_name_that_starts_with_a_vowel(who: str, said: str) -> None:
    assert said in tr("fr", "refusal.each_throw", n=2, who=who)


def test_french_elides_de_before_names_only() -> None:
    assert "le port 8421 de example.org" in tr("fr", "cli.serve.in_use", port=8421, host="example.org")


def test_a_refused_bon_or_stake_is_worded_as_what_the_player_does() -> None:
    # « bon 42 » is a call, not a verb: "Ana cannot bon 42" read as nothing English.
    state = a_decision().state  # tim: no « le bon », no « main chaude »
    assert state.round is not None
    kept = state.round.dice[0]
    with pytest.raises(IllegalAction) as refused:
        state.apply(Throw((kept,), bon=True))
    assert f"Bob cannot call « bon {kept} »: « le bon » is not played under these rules" in str(refused.value)
    assert error_text("en", refused.value) == str(refused.value)
    assert f"Bob ne peut pas annoncer « le bon » en gardant {kept} : « le bon »" in error_text(
        "fr", refused.value
    )
    with pytest.raises(IllegalAction) as refused:
        state.apply(ChooseStake("est"))
    assert "Bob cannot play « pour ce qui est »: there is no stake to choose now" in str(refused.value)
    assert "Bob ne peut pas jouer « pour ce qui est » :" in error_text("fr", refused.value)


@pytest.mark.parametrize(
    ("n", "en_words", "fr_words"),
    [(0, "0 tokens", "0 jeton"), (1, "1 token", "1 jeton"), (2, "2 tokens", "2 jetons")],
)
def test_counts_take_the_plural_of_their_language(n, en_words, fr_words) -> None:
    # French: 0 and 1 singular; English: 1 only. The same rule as the page's t().
    assert tr("en", "page.tokens", n=n) == en_words
    assert tr("fr", "page.tokens", n=n) == fr_words
    assert plural("fr", n) == ("s" if n > 1 else "") and plural("en", n) == ("" if n == 1 else "s")
    decided = RoundDecided(losers=(1,), winner=0, amount=n, why="value")
    assert f": {fr_words} (" in describe(decided, ["Ana", "Bob"], "fr")
    assert f": {en_words} (" in describe(decided, ["Ana", "Bob"], "en")


def test_de_before_a_rulesets_name_is_elided_in_french_wherever_it_is_said() -> None:
    # « Analyse de engranjeu-21 »: one helper elides before a person's name and a ruleset's alike
    assert tr("fr", "analysis.head", rules="engranjeu-21", players="Ana") == "Analyse d'engranjeu-21 : Ana"
    assert tr("fr", "analysis.head", rules="classic-11", players="Ana") == "Analyse de classic-11 : Ana"
    assert "les tours d'engranjeu-21 pour" in tr(
        "fr", "solver.rounds.cannot", rules="engranjeu-21", objective="x", why="y"
    )
    assert tr("en", "analysis.head", rules="engranjeu-21", players="Ana") == "Analysis of engranjeu-21: Ana"
    for key, template in CATALOGS["fr"].items():  # every « de {rules} » of the catalog
        if "de {rules}" in template:
            fields = dict.fromkeys(fields_of(template), "x") | {"rules": "engranjeu-21", "n": 2}
            said = tr("fr", key, **fields)
            assert "d'engranjeu-21" in said and "de engranjeu" not in said, key


def test_french_colons_joined_in_code_have_a_no_break_space_before_them() -> None:
    """« Bob : 111 », not « Bob: 111 », in the lines whose colon the code once wrote itself."""
    assert tr("fr", "sk.undone", who="Bob", step="111") == "  annulé\u00a0: Bob\u00a0: 111"
    assert tr("en", "sk.undone", who="Bob", step="111") == "  undone: Bob: 111"
    chip = tr("fr", "page.an.chip", step="Étape 3 · Ana", action="garder 5")
    assert chip == "Étape 3 · Ana\u00a0: garder 5"


def test_a_message_is_worded_by_the_catalog_in_english_and_in_french() -> None:
    """An error carries a key and fields; its words, English included, are the catalogs' alone."""
    said = Message("ruleset.setting", {"text": "'x'"})
    assert str(said) == "'x': write OPTION=VALUE, for example pot=21"
    assert error_text("fr", said).startswith("'x'")
    assert error_text("fr", said) != str(said)


def test_a_message_whose_key_no_catalog_holds_fails_the_test_that_meets_it() -> None:
    """tests/conftest.py checks every message the suite makes: its key is in both catalogs."""
    with pytest.raises(AssertionError, match="no catalog words"):
        Message("ruleset.no_such_key", {"text": "'x'"})


FRENCH_AS_SPOKEN = [  # (key, fields, what a French reader expects to read)
    ("input_ended", {"command": "421 play --resume"}, "; la partie est sauvegardée : 421 play --resume"),
    ("debt_paid", {"who": "Ana", "n": 1}, "Ana prend d'abord dans le nouveau pot ce qui était dû : 1"),
    ("cli.list.debts", {"example": "0,2"}, "séparés par des virgules"),
    ("category.any.421", {}, "le 421"),
    ("category.any.nenette", {}, "la nénette"),
    ("category.111", {}, "brelan d'as"),
    ("sk.hint.optimal", {"who": "Ana", "p": "66,7 %"}, "Ana ne perd pas le tour dans 66,7 % des cas"),
    ("cli.help.odds", {}, "La probabilité de battre CIBLE"),
    ("cli.help.duel", {}, "résolu : les chances du premier joueur."),
    ("cli.opt.solve.players", {}, "; de trois à cinq :"),
    ("cli.analyse.bots_hint", {}, "Ajoutez --bots pour analyser aussi les décisions des bots."),
    ("cli.opt.history.limit", {}, "Nombre de parties récentes à lister."),
    ("leader.manche_loser", {}, "a perdu la manche précédente"),
    ("leader.round_loser", {}, "a perdu le tour précédent"),
    ("cli.ladder.title", {"rules": "tim", "games": "10", "seed": 0}, "classement avec tim"),
    ("page.online", {}, "présent"),
    ("solver.game.throws_limit", {"took": 3, "said": "653/3", "limit": 2}, "le résultat de celui qui entame"),
    ("page.an.with_bots", {}, "les décisions des robots"),
    ("cli.verify.fair", {"n": 3}, "dés équitables"),
    ("cli.advise.keep", {"kept": "64", "n": 1}, "garder 64, relancer 1 dé"),
    ("cli.advise.keep", {"kept": "6", "n": 2}, "garder 6, relancer 2 dés"),
    ("page.error.bad_name", {}, "« Heuristique 1 »"),
    ("prompt.help.bon", {"said": "bon 42"}, "annonce « le bon »"),
]


@pytest.mark.parametrize(("key", "fields", "expected"), FRENCH_AS_SPOKEN)
def test_the_french_reads_as_a_french_player_says_it(
    key: str, fields: dict[str, object], expected: str
) -> None:
    said = tr("fr", key, **fields)
    assert expected in said, said
