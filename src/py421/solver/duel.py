"""The heads-up duel: one round, the first player sets the limit, the best result wins.

Both players play optimally: the second best-responds to the first's result
and throw count (its limit); the first, knowing that, chooses when to stop.
Ties count half, or are settled as the preset settles them: « qui barre
démarre » lets the result made in fewer throws win, nénette-last-wins gives
a double nénette to the later thrower, and a real tie is replayed in coups
secs until someone wins.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from ..core.combos import NENETTE
from ..core.rules import Ruleset
from .tables import INDEX, KEEP_INDEX, RESULTS, TRANSITIONS, FloatArray
from .turn import TurnValues, solve

Ties = Literal["half", "rampot"]


def replay_win(rules: Ruleset) -> float:
    """P(the later thrower wins a replay of coups secs), replayed until decided."""
    if not rules.nenette_last_wins:
        return 0.5  # both throw the same dice: a fair coin
    fresh = TRANSITIONS[KEEP_INDEX[()]]
    same = float(fresh @ fresh)  # both throw the same result
    both_nenette = float(fresh[INDEX[NENETTE]]) ** 2  # decided: the later thrower wins
    return ((1.0 - same) / 2 + both_nenette) / (1.0 - (same - both_nenette))


@dataclass(frozen=True)
class Duel:
    """The solved duel: the first player's chance and both players' strategies."""

    rules: Ruleset
    ties: Ties
    first_wins: float
    first: TurnValues  # the first player's values (stopping sets the limit)
    second: dict[int, TurnValues]  # by the throws the first used; batched by its result


def solve_duel(rules: Ruleset, ties: Ties = "rampot") -> Duel:
    table = rules.table
    most = rules.decharge_throws
    strength = np.array([table.strength(r) for r in RESULTS])
    fewer_throws = ties == "rampot" and rules.tie_break == "qui_barre_demarre"
    later = replay_win(rules) if ties == "rampot" else 0.5
    nenette = INDEX[NENETTE]

    def second_utility(first_throws: int, second_throws: int) -> FloatArray:
        """[first result, second result]: the second player's chance to win."""
        better = strength[None, :] > strength[:, None]
        same = strength[None, :] == strength[:, None]
        u = np.where(better, 1.0, 0.0)
        if fewer_throws and second_throws != first_throws:
            tie_value = 1.0 if second_throws < first_throws else 0.0
        else:
            tie_value = later
        u = np.where(same, tie_value, u)
        if ties == "rampot" and rules.nenette_last_wins:
            u[nenette, nenette] = 1.0  # everyone on nénette: the last to throw it wins
        return u

    second: dict[int, TurnValues] = {}
    first_utility: dict[int, FloatArray] = {}
    for used in range(1, most + 1):
        limit = used if rules.leader_limit else most
        tables = {r: second_utility(used, limit - r) for r in range(limit)}
        second[used] = solve(lambda r, t=tables: t[r], limit)  # type: ignore[misc]
        first_utility[used] = 1.0 - second[used].start(limit)  # over the first's results

    first = solve(lambda r: first_utility[most - r], most)
    return Duel(rules, ties, float(first.start(most)), first, second)
