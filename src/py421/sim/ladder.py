"""A ladder of bots: every pair plays two-player games, and openskill rates them (``421 ladder``).

Each pair of levels plays ``games`` games of the rules, the first seat taken in turn, through
:func:`py421.sim.simulate.run` (the fast simulator, or the engine for a level it has no twin of).
A game has one loser, or a loss shared by both: the winner ranks first, a shared loss is a tie.
The games of every pair are then given, in an order drawn from the seed, to openskill's
Plackett-Luce model, one game at a time; a level's standing is its rating's ``ordinal``
(mu − 3 sigma: what it is worth at the least, very likely) and its score, 1 a game not lost,
½ a loss shared, 0 a loss.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from openskill.models import PlackettLuce

from ..core.errors import InvalidPlayers, Message
from ..core.rules import Ruleset, rules_fields
from .fast import kernel as k
from .simulate import Simulation, run

# openskill's ranks, the lower the better
RANK: dict[str, list[float]] = {"first": [1.0, 2.0], "second": [2.0, 1.0], "shared": [1.0, 1.0]}


@dataclass(frozen=True)
class Pairing:
    """What two levels did against each other: the games each lost alone, and those shared."""

    first: str
    second: str
    first_lost: int
    second_lost: int
    shared: int

    @property
    def games(self) -> int:
        return self.first_lost + self.second_lost + self.shared

    def score(self, level: str) -> float:
        """``level``'s share of the points: 1 a game the other lost, ½ a loss shared."""
        won = self.second_lost if level == self.first else self.first_lost
        return (won + self.shared / 2) / self.games


@dataclass(frozen=True)
class Standing:
    level: str
    mu: float
    sigma: float
    ordinal: float
    games: int
    score: float


@dataclass(frozen=True)
class Ladder:
    rules: str
    options: dict[str, Any]  # changed from the preset ``rules`` names
    games: int  # per pair
    seed: int
    standings: list[Standing]  # the best first
    pairings: list[Pairing]

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "options": self.options,
            "games_per_pair": self.games,
            "seed": self.seed,
            "standings": [asdict(s) for s in self.standings],
            "pairings": [asdict(p) | {"games": p.games} for p in self.pairings],
        }


def pairing(rules: Ruleset, first: str, second: str, games: int, seed: int, workers: int) -> Pairing:
    counts = run(Simulation(rules, (first, second), games, seed), workers)
    shared = int(counts[k.C_KINDS + 2])
    return Pairing(first, second, int(counts[k.C_LOST]) - shared, int(counts[k.C_LOST + 1]) - shared, shared)


def play_ladder(
    rules: Ruleset,
    levels: Sequence[str],
    games: int,
    seed: int = 0,
    workers: int = 1,
    step: Callable[[str, str], None] | None = None,
) -> Ladder:
    """Every pair of ``levels`` plays ``games`` games, then every game is rated (``step`` is told
    each pair as it starts)."""
    check_levels(levels)
    pairings = []
    for first, second in itertools.combinations(levels, 2):
        if step:
            step(first, second)
        pairings.append(pairing(rules, first, second, games, seed, workers))
    fields = rules_fields(rules)
    return Ladder(
        fields["rules"], fields["options"], games, seed, standings(levels, pairings, seed), pairings
    )


def check_levels(levels: Sequence[str]) -> None:
    """Two levels or more, each once."""
    if len(set(levels)) < 2 or len(set(levels)) != len(levels):
        said = ", ".join(f"bot:{level}" for level in levels) or "none"
        raise InvalidPlayers(Message("ladder.players", {"given": said}))


def standings(levels: Sequence[str], pairings: Sequence[Pairing], seed: int) -> list[Standing]:
    """The levels rated by their games, the best first: each game given to the model in turn, in an
    order drawn from ``seed``."""
    model = PlackettLuce()
    ratings = {level: model.rating(name=level) for level in levels}
    played = [
        (p.first, p.second, outcome)
        for p in pairings
        for outcome, n in (("first", p.second_lost), ("second", p.first_lost), ("shared", p.shared))
        for _ in range(n)
    ]
    random.Random(seed).shuffle(played)  # no pair's games all at the end, where they would weigh most
    for first, second, outcome in played:
        rated = model.rate([[ratings[first]], [ratings[second]]], ranks=RANK[outcome])
        ratings[first], ratings[second] = rated[0][0], rated[1][0]
    found = [
        Standing(
            level,
            ratings[level].mu,
            ratings[level].sigma,
            ratings[level].ordinal(),
            sum(p.games for p in pairings if level in (p.first, p.second)),
            _score(level, pairings),
        )
        for level in levels
    ]
    found.sort(key=lambda s: -s.ordinal)
    return found


def _score(level: str, pairings: Sequence[Pairing]) -> float:
    mine = [p for p in pairings if level in (p.first, p.second)]
    return sum(p.score(level) * p.games for p in mine) / sum(p.games for p in mine)
