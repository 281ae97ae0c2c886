"""Categories of results, the four rankings of the sources, and token values.

A ruleset ranks all 56 results strictly (strongest first) and gives each a
token value. :class:`CombinationTable` holds both, built from a ranking name
and a few switches, so the tables are data and never typed out by hand.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal, get_args

from .dice import ALL_RESULTS, Result
from .errors import InvalidRuleset, Message, Ordinal


class Category(StrEnum):
    """Families of results named as players name them."""

    FOUR_TWO_ONE = "421"
    TRIPLE_ACE = "111"
    TWO_ACES = "x11"  # « fiches », « x en l'air »: two aces and another face
    BRELAN = "brelan"  # « baraque »: three of a kind other than aces
    PAIR = "pair"  # option pair_fiches: any other pair and a face
    SUITE = "suite"  # « tierce », « séquence »
    SIMPLE = "simple"
    NENETTE = "nenette"  # 2-2-1

    @property
    def message(self) -> Message:
        """Its name, as a catalog key (``category.<value>``)."""
        return Message(f"category.{self.value}")

    @property
    def any_message(self) -> Message:
        """« any 421 »: any result of the category, with its catalog key (``category.any.<value>``)."""
        return Message(f"category.any.{self.value}")


Ranking = Literal["classic", "vache", "kytionnaire", "tim"]
RANKINGS: tuple[Ranking, ...] = get_args(Ranking)
SUITES = tuple(Result.parse(s) for s in ("654", "543", "432", "321"))
FOUR_TWO_ONE = Result.parse("421")
TRIPLE_ACE = Result.parse("111")
NENETTE = Result.parse("221")


def classify(result: Result, *, two_aces: bool = True, pairs: bool = False) -> Category:
    """The category of a result; ``two_aces=False`` makes x11 simples (seed 002)."""
    a, b, c = result.dice
    if result == FOUR_TWO_ONE:
        return Category.FOUR_TWO_ONE
    if result == TRIPLE_ACE:
        return Category.TRIPLE_ACE
    if result == NENETTE:
        return Category.NENETTE
    if a == b == c:
        return Category.BRELAN
    if two_aces and b == c == 1:
        return Category.TWO_ACES
    if result in SUITES:
        return Category.SUITE
    if pairs and (a == b or b == c):
        return Category.PAIR
    return Category.SIMPLE


def kicker(result: Result) -> int:
    """The face that is not part of the pair (x of x11, 2 of 442)."""
    a, b, c = result.dice
    return c if a == b else a


@dataclass(frozen=True, slots=True, eq=False)  # one table per ruleset: compared by identity
class CombinationTable:
    """The strict ranking of the 56 results with their categories and values."""

    order: tuple[Result, ...]  # strongest first
    categories: Mapping[Result, Category]
    values: Mapping[Result, int]
    strengths: Mapping[Result, int]  # 55 for the strongest down to 0
    # The same two keyed by a result's dice, for the engine's every step: a tuple hashes in C, a
    # Result (a dataclass) by a call to Python.
    dice_values: Mapping[tuple[int, ...], int] = field(init=False, repr=False)
    dice_strengths: Mapping[tuple[int, ...], int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "dice_values", {r.dice: v for r, v in self.values.items()})
        object.__setattr__(self, "dice_strengths", {r.dice: s for r, s in self.strengths.items()})

    def strength(self, result: Result) -> int:
        """55 for the strongest result down to 0 for the weakest."""
        return self.strengths[result]

    def rank(self, result: Result) -> int:
        """1 for the strongest result, 56 for the weakest."""
        return len(self.order) - self.strength(result)

    def beats(self, a: Result, b: Result) -> bool:
        return self.strength(a) > self.strength(b)


def build_table(
    ranking: Ranking,
    *,
    ace_high: bool = False,
    pair_fiches: bool = False,
    value_421: int = 8,
    value_111: int = 7,
    value_suite: int = 2,
    value_simple: int = 1,
    value_nenette: int = 1,
) -> CombinationTable:
    """Build the table of one ranking; x11, brelans and pairs are worth a face."""
    if ranking not in RANKINGS:
        raise InvalidRuleset(
            Message("ruleset.ranking", {"ranking": repr(ranking), "accepted": ", ".join(RANKINGS)})
        )
    with_pairs: tuple[Ranking, ...] = ("classic", "vache")  # annotated: mypy checks no bare tuple after `in`
    if pair_fiches and ranking not in with_pairs:
        raise InvalidRuleset(Message("ruleset.pair_fiches_ranking", {"ranking": repr(ranking)}))
    two_aces = ranking != "kytionnaire"
    cats = {r: classify(r, two_aces=two_aces, pairs=pair_fiches) for r in ALL_RESULTS}

    def members(cat: Category) -> list[Result]:
        return [r for r in ALL_RESULTS if cats[r] == cat]

    def simple_key(r: Result) -> tuple[int, ...]:
        # Digit by digit from the highest; with ace_high the ace counts as a 7.
        faces = (7 if ace_high and f == 1 else f for f in r.dice)
        return tuple(sorted(faces, reverse=True))

    brelans = members(Category.BRELAN)  # 666 … 222
    two_aces_group = members(Category.TWO_ACES)  # 611 … 211
    pairs = sorted(members(Category.PAIR), key=lambda r: (kicker(r), r.dice[1]), reverse=True)
    simples = sorted(members(Category.SIMPLE), key=simple_key, reverse=True)
    top = [FOUR_TWO_ONE, TRIPLE_ACE]
    suites = list(SUITES)

    orders: dict[Ranking, Callable[[], list[Result]]] = {
        "classic": lambda: top + two_aces_group + pairs + brelans + suites + simples + [NENETTE],
        "vache": lambda: top + brelans + two_aces_group + pairs + suites + [NENETTE] + simples,
        "kytionnaire": lambda: top + brelans + suites + simples + [NENETTE],
        # seed 003: x11 and brelans interleave by value, the x11 first
        "tim": lambda: (
            top
            + [r for pair in zip(two_aces_group, brelans, strict=True) for r in pair]
            + suites
            + simples
            + [NENETTE]
        ),
    }
    order = tuple(orders[ranking]())
    assert sorted(order, key=str) == sorted(ALL_RESULTS, key=str), "a ranking must hold all 56"

    fixed = {
        Category.FOUR_TWO_ONE: value_421,
        Category.TRIPLE_ACE: value_111,
        Category.SUITE: value_suite,
        Category.SIMPLE: value_simple,
        Category.NENETTE: value_nenette,
    }

    def value(r: Result) -> int:
        cat = cats[r]
        if cat in fixed:
            return fixed[cat]
        if cat == Category.BRELAN:
            return r.dice[0]
        return kicker(r)  # x11 and pairs are worth their odd face

    return CombinationTable(
        order=order,
        categories=cats,
        values={r: value(r) for r in order},
        strengths={r: len(order) - 1 - i for i, r in enumerate(order)},
    )


@dataclass(frozen=True, slots=True)
class Comparison:
    """Which of two results wins under a table, and the reason in words."""

    first: Result
    second: Result
    winner: Result | None  # None when they are the same result
    reason: str
    # The reason with its catalog key (compare.*), for an interface to word in its language.
    why: Message = field(default=Message("verbatim", {"text": ""}), compare=False)


def compare(table: CombinationTable, a: Result, b: Result, *, ace_high: bool = False) -> Comparison:
    """Explain which result wins, as a player would say it."""
    if a == b:
        same = Message("compare.same")
        return Comparison(a, b, None, same.text, same)
    win, lose = (a, b) if table.beats(a, b) else (b, a)
    cw, cl = table.categories[win], table.categories[lose]
    names = {"winner": cw.message, "loser": cl.message}
    if cw != cl:
        if all(
            table.beats(x, y)
            for x in table.order
            if table.categories[x] == cw
            for y in table.order
            if table.categories[y] == cl
        ):
            anyone = {"winner": cw.any_message, "loser": cl.any_message}
            why = Message("compare.above", anyone)
            if lose == table.order[-1] == NENETTE:  # under vache orders the simples rank below it
                why = Message("compare.above_nenette", anyone)
        else:
            ranks = {
                "win": str(win),
                "lose": str(lose),
                "win_rank": Ordinal(table.rank(win)),
                "lose_rank": Ordinal(table.rank(lose)),
            }
            why = Message(
                "compare.interleave",
                names | ranks,
            )
    elif cw == Category.BRELAN:
        why = Message("compare.brelan")
    elif cw == Category.TWO_ACES:
        why = Message("compare.two_aces")
    elif cw == Category.SUITE:
        why = Message("compare.suite")
    elif cw == Category.PAIR:
        why = Message("compare.pair" if kicker(win) != kicker(lose) else "compare.pair_same")
    else:
        digit = next(i for i in range(3) if _face(win, i, ace_high) != _face(lose, i, ace_high))
        nth = Message(f"compare.nth.{digit}")
        faces = {"nth": nth, "win": _show(win, digit, ace_high), "lose": _show(lose, digit, ace_high)}
        why = Message("compare.simple", faces)
        if ace_high:
            why = Message("compare.simple_ace", faces)
    return Comparison(a, b, win, why.text, why)


def _sorted_faces(r: Result, ace_high: bool) -> list[int]:
    return sorted((7 if ace_high and f == 1 else f for f in r.dice), reverse=True)


def _face(r: Result, i: int, ace_high: bool) -> int:
    return _sorted_faces(r, ace_high)[i]


def _show(r: Result, i: int, ace_high: bool) -> str:
    face = _face(r, i, ace_high)
    return "1" if face == 7 else str(face)  # the ace, counted above the 6: shown as its face
