from fractions import Fraction

import pytest

from py421.core.dice import ALL_RESULTS, Result, parse_dice, sub_multisets, throw_outcomes
from py421.core.errors import InvalidNotation


@pytest.mark.parametrize("text", ["421", "4-2-1", "4 2 1", "124", " 2,4,1 ", "1-2-4"])
def test_every_usual_spelling_reads_as_421(text):
    assert str(Result.parse(text)) == "421"


def test_results_print_in_descending_order():
    assert str(Result.parse("3-5-4")) == "543"
    assert str(Result.of([1, 2, 2])) == "221"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("7-1-1", "a die shows 1 to 6, not 7"),
        ("12", "a result is 3 dice, got 2 dice"),
        ("abc", "not a result notation"),
        ("", "got no dice"),
        ("4211", "a result is 3 dice, got 4 dice"),
        ("0-2-1", "a die shows 1 to 6, not 0"),
    ],
)
def test_bad_notation_names_the_problem(text, message):
    with pytest.raises(InvalidNotation, match=message):
        Result.parse(text)


def test_there_are_56_distinct_results_covering_216_outcomes():
    assert len(ALL_RESULTS) == 56
    assert len(set(ALL_RESULTS)) == 56
    assert sum(r.ways for r in ALL_RESULTS) == 216


@pytest.mark.parametrize("count", [0, 1, 2, 3])
def test_throw_outcomes_are_exact_probabilities(count):
    outcomes = throw_outcomes(count)
    assert sum(p for _, p in outcomes) == 1
    assert all(len(faces) == count for faces, _ in outcomes)


def test_throwing_three_dice_matches_the_result_probabilities():
    by_result = {Result.of(f): p for f, p in throw_outcomes(3)}
    assert by_result[Result.parse("421")] == Fraction(6, 216)
    assert by_result[Result.parse("221")] == Fraction(3, 216)


def test_keepable_subsets_are_distinct():
    assert sub_multisets((5, 5, 5)) == ((), (5,), (5, 5))
    assert len(sub_multisets((6, 4, 2))) == 7


def test_kept_dice_parse_like_results():
    assert parse_dice("2-4") == (4, 2)
    assert parse_dice("") == ()
