from collections import Counter

import pytest

from py421.core.combos import Category, classify, compare
from py421.core.dice import ALL_RESULTS, Result
from py421.core.rules import Ruleset, preset_names


def names(results):
    return [str(r) for r in results]


def test_category_frequencies_of_seed_001_are_computed():
    ways: Counter[str] = Counter()
    for r in ALL_RESULTS:
        cat = classify(r)
        ways["brelan" if cat in (Category.BRELAN, Category.TRIPLE_ACE) else cat.value] += r.ways
    assert ways["421"] == 6
    assert ways["brelan"] == 6  # the six brelans, 111 included
    assert ways["x11"] == 15
    assert ways["suite"] == 24


@pytest.mark.parametrize("preset", preset_names())
def test_every_preset_ranks_all_56_results_strictly(preset):
    order = Ruleset.preset(preset).table.order
    assert len(order) == 56
    assert set(order) == set(ALL_RESULTS)
    assert str(order[0]) == "421"


def test_classic_order():
    order = names(Ruleset.preset("classic-11").table.order)
    assert order[:16] == [
        "421",
        "111",
        "611",
        "511",
        "411",
        "311",
        "211",
        "666",
        "555",
        "444",
        "333",
        "222",
        "654",
        "543",
        "432",
        "321",
    ]
    assert order[16] == "665"
    assert order[-2:] == ["322", "221"]


def test_vache_order_puts_brelans_above_x11_and_nenette_above_simples():
    order = names(Ruleset.preset("vache-41").table.order)
    assert order[:17] == [
        "421",
        "111",
        "666",
        "555",
        "444",
        "333",
        "222",
        "611",
        "511",
        "411",
        "311",
        "211",
        "654",
        "543",
        "432",
        "321",
        "221",
    ]
    assert order[17] == "665"
    assert order[-1] == "322"


def test_kytionnaire_has_no_x11():
    table = Ruleset.preset("kytionnaire").table
    order = names(table.order)
    assert order.index("621") + 1 == order.index("611") == order.index("554") - 1
    assert order[-2:] == ["211", "221"]  # 211 is the weakest simple, nénette last
    assert table.categories[Result.parse("611")] is Category.SIMPLE
    assert table.values[Result.parse("611")] == 1


def test_tim_interleaves_x11_and_brelans():
    order = names(Ruleset.preset("tim").table.order)
    assert order[:12] == ["421", "111", "611", "666", "511", "555", "411", "444", "311", "333", "211", "222"]


def test_comptoir_pairs_rank_after_x11_by_value_then_pair():
    table = Ruleset.preset("comptoir-21").table
    order = names(table.order)
    pairs = [r for r in order if table.categories[Result.parse(r)] is Category.PAIR]
    assert len(pairs) == 24
    assert order.index(pairs[0]) == order.index("211") + 1
    assert order.index(pairs[-1]) == order.index("666") - 1
    assert pairs[:5] == ["655", "644", "633", "622", "665"]
    assert table.values[Result.parse("442")] == 2  # seed 000: « 4,4,2 vaut deux jetons »
    assert table.categories[Result.parse("221")] is Category.NENETTE


def test_comptoir_counts_the_ace_highest_among_simples():
    table = Ruleset.preset("comptoir-21").table
    assert table.beats(Result.parse("631"), Result.parse("653"))
    assert not Ruleset.preset("classic-11").table.beats(Result.parse("631"), Result.parse("653"))


@pytest.mark.parametrize(
    ("preset", "expected"),
    [
        ("classic-11", {"421": 8, "111": 7, "611": 6, "555": 5, "654": 2, "652": 1, "221": 1}),
        ("vache-41", {"421": 10, "111": 7, "311": 3, "444": 4, "543": 2, "652": 1, "221": 4}),
        ("lyonnaise-21", {"421": 10, "221": 4}),
        ("kytionnaire", {"421": 8, "611": 1, "666": 6, "221": 1}),
        ("tim", {"421": 8, "211": 2, "221": 2}),
        ("comptoir-21", {"421": 10, "111": 7, "442": 2, "221": 2}),
        ("engranjeu-21", {"421": 10, "611": 6, "221": 4}),
    ],
)
def test_token_values(preset, expected):
    values = Ruleset.preset(preset).table.values
    assert {k: values[Result.parse(k)] for k in expected} == expected


def test_compare_explains_the_winner():
    classic = Ruleset.preset("classic-11").table
    c = compare(classic, Result.parse("652"), Result.parse("653"))
    assert str(c.winner) == "653"
    assert "third die" in c.reason
    c = compare(classic, Result.parse("611"), Result.parse("666"))
    assert str(c.winner) == "611"
    assert c.reason == "any two aces (x11) beats any brelan in this ruleset"
    vache = Ruleset.preset("vache-41").table
    assert str(compare(vache, Result.parse("611"), Result.parse("666")).winner) == "666"
    assert compare(classic, Result.parse("421"), Result.parse("124")).winner is None


@pytest.mark.parametrize("preset", preset_names())
def test_compare_calls_nenette_the_weakest_only_where_it_is(preset):
    # Under the vache orders the simples rank below the nénette: the remark would contradict the ranks.
    table = Ruleset.preset(preset).table
    c = compare(table, Result.parse("221"), Result.parse("654"))
    weakest = table.order[-1] == Result.parse("221")
    assert ("weakest" in c.reason) == weakest
    assert (c.why.key == "compare.above_nenette") == weakest


@pytest.mark.parametrize(
    ("lang", "first", "second", "said"),
    [
        ("en", "421", "111", "any 421 beats any triple ace in this ruleset"),
        ("en", "654", "221", "any suite beats any nénette in this ruleset (nénette is the weakest result)"),
        ("fr", "421", "111", "avec ces règles, le 421 bat le brelan d'as (111)"),
        ("fr", "654", "221", "avec ces règles, n'importe quelle suite bat la nénette"),
    ],
)
def test_a_whole_category_above_another_is_said_plainly(lang, first, second, said):
    from py421.i18n import error_text

    classic = Ruleset.preset("classic-11").table
    c = compare(classic, Result.parse(first), Result.parse(second))
    assert error_text(lang, c.why).startswith(said)
    assert "every" not in error_text("en", c.why) and "tout entière" not in error_text("fr", c.why)


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "611 is ranked 3rd of 56, 555 is 6th"),
        ("fr", "611 est au 3ᵉ rang sur 56, 555 au 6ᵉ"),
    ],
)
def test_interleaved_results_are_ranked_in_words_of_each_language(lang, said):
    """« classé 3 sur 56 » is no French, "ranked 3 of 56" no English: a rank is an ordinal."""
    from py421.i18n import error_text

    tim = Ruleset.preset("tim").table
    c = compare(tim, Result.parse("611"), Result.parse("555"))
    assert error_text(lang, c.why).endswith(said)
