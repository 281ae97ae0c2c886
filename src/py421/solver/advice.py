"""Advice for one turn: every choice ranked by its exact value.

Two single-turn objectives need no context beyond the dice:

- ``target``: the probability of ending strictly better than a given result
  (what a player must beat);
- ``coup_sec`` (when no target is given): the probability of ending better
  than one fresh throw of three dice, ties counting half — a plain measure of
  how good a finished result is.

Two more need the round: the results already final, the players still to
play and the leader's limit (see :mod:`.rounds`):

- ``loser``: the chance of not being the round's loser;
- ``tokens``: the expected tokens the round moves, from the player's side.

And one needs the whole position of a two-player game (see :mod:`.heads_up`):

- ``game``: the chance of not losing the manche.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache

import numpy as np

from ..core.combos import CombinationTable
from ..core.dice import Result
from ..core.errors import InvalidPosition, InvalidRuleset
from ..core.rules import Ruleset
from .heads_up import unsupported
from .rounds import Objective, solve_round
from .tables import INDEX, KEEP_INDEX, RESULTS, TRANSITIONS, FloatArray
from .turn import Option, StakedValues, TurnValues, beats_target, options, solve, staked_options


def against_coup_sec(table: CombinationTable) -> FloatArray:
    """P(a result beats one fresh throw), ties counting half."""
    fresh = TRANSITIONS[KEEP_INDEX[()]]
    strength = np.array([table.strength(r) for r in RESULTS])
    wins = (strength[:, None] > strength[None, :]) @ fresh
    ties = (strength[:, None] == strength[None, :]) @ fresh
    value: FloatArray = wins + ties / 2
    return value


@dataclass(frozen=True)
class Advice:
    objective: str
    options: list[Option]


@cache
def _values(table: CombinationTable, target: Result | None, throws: int) -> TurnValues:
    u = beats_target(table, target) if target is not None else against_coup_sec(table)
    return solve(lambda remaining: u, throws)


def _check(throws_left: int, most: int = 3) -> None:
    if not 0 <= throws_left < most:
        if most == 1:
            raise InvalidPosition(f"a turn has at most 1 throw here: no throw can be left, not {throws_left}")
        raise InvalidPosition(
            f"a turn has at most {most} throws here: 0 to {most - 1} left, not {throws_left}"
        )


def advise(table: CombinationTable, dice: Result, throws_left: int, target: Result | None = None) -> Advice:
    """Every choice holding ``dice`` with ``throws_left`` throws still allowed, best first."""
    _check(throws_left)
    values = _values(table, target, throws_left + 1)
    objective = f"P(better than {target})" if target is not None else "P(better than a coup sec)"
    return Advice(objective, options(values, dice.dice, throws_left))


@dataclass(frozen=True)
class RoundContext:
    """Where a turn stands in its round."""

    players: int  # players in the round
    before: tuple[Result, ...] = ()  # results already final this round, leader first
    limit: int | None = None  # throws the leader used (None: as many as allowed)
    charge: bool = False
    pot: int | None = None  # tokens left in the pot (charge)
    tokens: tuple[int, int] | None = None  # two players: the mover's tokens, then the other's
    stake: int = 0  # accumulated stakes so far this round

    def check(self, rules: Ruleset, throws_left: int) -> int:
        """The throws the mover may use; refuses an impossible context."""
        most = rules.throws_allowed(self.charge)
        if not rules.seats(self.players) or len(self.before) >= self.players:
            raise InvalidPosition(
                f"{len(self.before)} result(s) already final need a round of more players than that, "
                f"{rules.players_range}; not {self.players}"
            )
        limit = most if not self.before or not rules.leader_limit else (self.limit or most)
        if not 1 <= limit <= most:
            raise InvalidPosition(f"the leader's limit is 1 to {most} throws here, not {limit}")
        _check(throws_left, limit)
        return limit


def advise_round(
    rules: Ruleset, dice: Result, throws_left: int, context: RoundContext, objective: Objective
) -> Advice:
    """Every choice by a round objective, later players playing the same way (max^n)."""
    limit = context.check(rules, throws_left)
    pot = context.pot if context.pot is not None else rules.pot
    values = solve_round(rules, context.players, context.charge, objective, pot if context.charge else None)
    found = values.options(context.before, limit, dice.dice, throws_left)
    if objective == "loser":  # shown as a chance, not its negative
        found = [replace(o, value=1 + o.value) for o in found]
        return Advice("P(not the round's loser)", found)
    return Advice("expected tokens (taken: negative; given away: positive)", found)


def advise_game(rules: Ruleset, dice: Result, throws_left: int, context: RoundContext) -> Advice:
    """Two players: every choice by the exact chance of not losing the manche."""
    from ..solver.solutions import solved

    context.check(rules, throws_left)
    why = unsupported(rules)
    if why:
        raise InvalidRuleset(f"the two-player solver cannot solve {rules.name}: {why}")
    if context.players != 2:
        raise InvalidPosition(
            f"the chance of losing the manche is solved for two players, not a round of {context.players}"
        )
    start = rules.initial_tokens  # each player's own tokens at the start of a manche
    total = rules.pot + 2 * start
    pot = (context.pot if context.pot is not None else rules.pot) if context.charge else 0
    mine, other = context.tokens or ((start, start) if context.charge else (total // 2, total - total // 2))
    if mine + other + pot != total or min(mine, other) < (start if context.charge else 1):
        raise InvalidPosition(
            f"tokens {mine},{other} and pot {pot} do not make a position of {total} tokens "
            f"({start} or more each in the charge, 1 or more in the décharge)"
        )
    leader = 0 if not context.before else 1  # the mover is seat 0
    leader_values, follower_values = solved(rules).position(context.charge, pot, mine, leader)
    row: int | None = None
    values: TurnValues | StakedValues = leader_values
    if context.before:
        most = rules.throws_allowed(context.charge)
        values, row = follower_values[context.limit or most], INDEX[context.before[0]]
    if isinstance(values, StakedValues):
        found = staked_options(values, dice.dice, throws_left, context.stake, row)
    else:
        found = options(values, dice.dice, throws_left, row)
    return Advice("P(not losing the manche)", found)
