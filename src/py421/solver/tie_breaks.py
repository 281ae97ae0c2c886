"""Who loses, and who wins, the coups secs that break a tie, by the place each tied player throws in.

Tied players replay one throw each (the engine's tie-breaks) until one is worst, or best. Every
player is then equally likely to lose, except where a double nénette goes to the later thrower
(seed 004, ``nenette_last_wins``): when every replayer throws nénette, the first to throw it
loses and the last wins, so the order of a replay (the ruleset's, :func:`..core.engine.tie_order`)
counts. Players are their places in the round's playing order, 0 for its leader.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from ..core.combos import NENETTE
from ..core.engine import tie_order
from ..core.rules import Ruleset
from .rounds import FRESH
from .tables import INDEX, RESULTS

Chances = dict[int, float]  # place: chance


@dataclass(frozen=True)
class _Throws:
    """One coup sec: the chance of each strength, weakest first, and of a nénette."""

    strengths: tuple[float, ...]
    nenette: float  # counted apart only where the later nénette wins


@cache
def _throws(rules: Ruleset) -> _Throws:
    strength = rules.table.strength
    chance: dict[int, float] = {}
    for r, result in enumerate(RESULTS):
        chance[strength(result)] = chance.get(strength(result), 0.0) + float(FRESH[r])
    nenette = float(FRESH[INDEX[NENETTE]]) if rules.nenette_last_wins else 0.0
    return _Throws(tuple(chance[s] for s in sorted(chance)), nenette)


def _groups(players: tuple[int, ...], size: int) -> Iterator[frozenset[int]]:
    return (frozenset(g) for g in itertools.combinations(players, size))


def _extreme(throws: _Throws, size: int, others: int, lowest: bool) -> float:
    """The chance that ``size`` given players share the lowest (or highest) strength of a replay
    and ``others`` throw stronger (or weaker), a whole-table double nénette aside."""
    total = 0.0
    s = throws.strengths
    for c, f in enumerate(s):
        rest = sum(s[c + 1 :]) if lowest else sum(s[:c])
        total += f**size * rest**others
    return total if others else total - throws.nenette**size


def loser(rules: Ruleset, players: int, group: frozenset[int]) -> Chances:
    """How likely each of ``group``, tied for the worst of a round of ``players``, is to lose."""
    return _decided(rules, players, group, lowest=True)


def winner(rules: Ruleset, players: int, group: frozenset[int]) -> Chances:
    """How likely each of ``group``, tied for the best in a décharge, is to win."""
    return _decided(rules, players, group, lowest=False)


@cache
def _decided(rules: Ruleset, players: int, group: frozenset[int], lowest: bool) -> Chances:
    if len(group) == 1 or not rules.nenette_last_wins:
        return {place: 1 / len(group) for place in sorted(group)}
    throws = _throws(rules)
    draw = tie_order(rules, tuple(range(players)), tuple(sorted(group)))
    k = len(group)
    found: Chances = dict.fromkeys(draw, 0.0)
    found[draw[0] if lowest else draw[-1]] += throws.nenette**k  # a double nénette: the later wins
    for size in range(1, k):
        p = _extreme(throws, size, k - size, lowest)
        for sub in _groups(draw, size):
            for place, q in _decided(rules, players, sub, lowest).items():
                found[place] += p * q
    again = _extreme(throws, k, 0, lowest)  # every one ties again: the same replay, once more
    return {place: p / (1 - again) for place, p in found.items()}


@cache
def loser_and_winner(rules: Ruleset, players: int) -> dict[tuple[int, int], float]:
    """Every player of a décharge round tied: the replays name the loser and the winner together."""
    everyone = tuple(range(players))
    if not rules.nenette_last_wins:
        pairs = list(itertools.permutations(everyone, 2))
        return {pair: 1 / len(pairs) for pair in pairs}
    throws = _throws(rules)
    draw = tie_order(rules, everyone, everyone)
    found: dict[tuple[int, int], float] = {}

    def add(pair: tuple[int, int], p: float) -> None:
        found[pair] = found.get(pair, 0.0) + p

    add((draw[0], draw[-1]), throws.nenette**players)
    s = throws.strengths
    for low, high in itertools.combinations(range(len(s)), 2):
        between = sum(s[low + 1 : high])
        for n_low in range(1, players):
            for n_high in range(1, players - n_low + 1):
                p = s[low] ** n_low * s[high] ** n_high * between ** (players - n_low - n_high)
                for lows in _groups(everyone, n_low):
                    rest = tuple(x for x in everyone if x not in lows)
                    for highs in _groups(rest, n_high):
                        for (a, pa), (b, pb) in itertools.product(
                            loser(rules, players, lows).items(), winner(rules, players, highs).items()
                        ):
                            add((a, b), p * pa * pb)
    again = _extreme(throws, players, 0, True)
    return {pair: p / (1 - again) for pair, p in found.items()}
