"""« Main chaude » in the whole-game solver: tie-breaks whose stake a tied player chooses.

Under « qui barre démarre » (seed 004), when a tie-break's replay ties again the first to rethrow
chooses the stake: « pour ce qui est » (the amount the round's results set) or « pour ce qui vient »
(the amount the next replay sets). The choice is worth what it leads to, so, unlike other tie-breaks
(:mod:`.tie_breaks`), how a round's class settles depends on the values of the positions after it.

This module follows the engine's tie-breaks step by step (``engine._next_tie_step`` and
``engine._tie_thrown``) for every class of a round, once per ruleset: a replay of coups secs among
the tied players, in the ruleset's order (``engine.tie_order``), narrows who is worst (or best); a
replay that ties again among players who just replayed is a *choice*. What follows a choice, up to
the next choices, is a fixed chance of each way the round settles; if its replay ties again whole,
the same choice comes back, so the chooser's better stake is the answer every time. At a position,
the choices are made from the last ones back (:meth:`Chaude.weights`): each chooser takes the stake
worth more to them, « est » where both are worth the same within EPS. Players are places in the
round's playing order, 0 for its leader.

Where every throw of a charge round adds to the stake (accumulated stakes), so does each replay: the
value of its best result. « Est » then settles for the stake as it stands when the tie-break ends,
« vient » for what the replay after the choice sets; a class's amount is the stake so far, capped
at the full pot (a stake of the pot or more takes whatever the pot holds).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from ..core.combos import NENETTE
from ..core.engine import tie_order
from ..core.rules import Ruleset
from .amounts import base_amounts, token_values
from .rounds import EPS, FRESH, comparison_of
from .tables import INDEX, FloatArray

Outcome = tuple[tuple[int, ...], int, int]  # losers (places, in order), winner (-1: none), amount
# A choice: the worst and the best (places), who replays (in throwing order), the round's amount
# and whether its loser pays the nénette penalty whatever is chosen.
Point = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int, bool]
Target = tuple[str, Outcome | Point]  # ("o", outcome) or ("c", choice)
Chances = dict[Target, float]


@dataclass(frozen=True)
class _Before:
    """What a tie-break step knows of the replay before it: who threw, and a « vient » amount."""

    seats: tuple[int, ...]
    amount: int | None


@cache
def replays(rules: Ruleset, throwers: int) -> tuple[tuple[int, int, int, int, float], ...]:
    """One replay of coups secs by ``throwers`` players, in throwing order: its lowest (bit ``j``
    for the ``j``-th thrower), its highest, what it sets « pour ce qui vient », what it adds to an
    accumulated stake (its best result's value, as ``engine._tie_thrown`` adds it), and the chance."""
    strength = np.array(comparison_of(rules).strength)
    kinds = len(FRESH)
    grid = np.array(list(itertools.product(range(kinds), repeat=throwers)), dtype=np.intp)
    chance = np.prod(FRESH[grid], axis=1)
    keys = strength[grid]
    if rules.nenette_last_wins:  # a replay of nénettes only: the later thrower wins
        every = (grid == INDEX[NENETTE]).all(axis=1)
        keys = np.where(every[:, None], np.arange(throwers)[None, :], keys)
    low = (keys == keys.min(axis=1, keepdims=True)) @ (1 << np.arange(throwers))
    high = (keys == keys.max(axis=1, keepdims=True)) @ (1 << np.arange(throwers))
    rows = np.arange(len(grid))
    top, bottom = grid[rows, keys.argmax(axis=1)], grid[rows, keys.argmin(axis=1)]
    amount = base_amounts(rules, top, bottom)
    adds = token_values(rules)[top]
    found: dict[tuple[int, int, int, int], float] = {}
    keys_found = zip(low.tolist(), high.tolist(), amount.tolist(), adds.tolist(), strict=True)
    for key, p in zip(keys_found, chance, strict=True):
        found[key] = found.get(key, 0.0) + float(p)
    return tuple((*key, p) for key, p in sorted(found.items()))


class _Steps:
    """The engine's tie-break steps for one ruleset, phase and number of players."""

    def __init__(self, rules: Ruleset, players: int, charge: bool, staked: bool = False) -> None:
        self.rules, self.players, self.charge, self.staked = rules, players, charge, staked
        self.steps: dict[tuple[object, ...], Chances] = {}
        self.choices: dict[Point, tuple[Chances, Chances]] = {}  # « est », « vient »; self-loops left in

    def settle(self, worst: tuple[int, ...], best: tuple[int, ...], amount: int, fixed: bool) -> Chances:
        """A round's class: its worst and best (places), its amount (where staked, the stake so far)
        and nénette flag."""
        return self._step(worst, best, None, amount, fixed)

    def _step(
        self, worst: tuple[int, ...], best: tuple[int, ...], before: _Before | None, amount: int, fixed: bool
    ) -> Chances:
        key = (worst, best, before, amount, fixed)
        if key in self.steps:
            return self.steps[key]
        rules = self.rules
        need_worst = len(worst) > 1 and not rules.tied_losers_all_take
        need_best = len(best) > 1 and not self.charge
        found: Chances
        if not need_worst and not need_best:
            settled = before.amount if before is not None and before.amount is not None else amount
            if fixed:
                settled = rules.nenette_penalty
            winner = -1 if self.charge else best[0]
            losers = worst if self.charge else tuple(s for s in worst if s != best[0])
            found = {("o", (losers, winner, settled)): 1.0}
        else:
            if need_worst and need_best and set(worst) == set(best):
                group = worst
            else:
                group = worst if need_worst else best
            seats = tie_order(rules, tuple(range(self.players)), group)
            if before is not None and set(group) <= set(before.seats):  # tied again: a choice
                point: Point = (worst, best, seats, amount, fixed)
                self._choice(point)
                found = {("c", point): 1.0}
            else:
                carried = before.amount if before is not None else None
                found = self._draw(worst, best, seats, carried, False, amount, fixed)
        self.steps[key] = found
        return found

    def _choice(self, point: Point) -> None:
        if point in self.choices:
            return
        worst, best, seats, amount, fixed = point
        self.choices[point] = ({}, {})  # being expanded: a replay tied again whole comes back here
        self.choices[point] = (
            self._draw(worst, best, seats, None, False, amount, fixed),
            self._draw(worst, best, seats, None, True, amount, fixed),
        )

    def _draw(
        self,
        worst: tuple[int, ...],
        best: tuple[int, ...],
        seats: tuple[int, ...],
        carried: int | None,
        vient: bool,
        amount: int,
        fixed: bool,
    ) -> Chances:
        """One replay by ``seats``, then the steps it leads to."""
        rules = self.rules
        group = set(seats)
        found: Chances = {}
        for low, high, sets, adds, p in replays(rules, len(seats)):
            lows = tuple(sorted(s for j, s in enumerate(seats) if low >> j & 1))
            highs = tuple(sorted(s for j, s in enumerate(seats) if high >> j & 1))
            narrowed = group == set(worst) and len(worst) > 1 and not rules.tied_losers_all_take
            now_worst = lows if narrowed else worst
            now_best = highs if group == set(best) and len(best) > 1 else best
            before = _Before(seats, sets if vient else carried)
            grown = min(rules.pot, amount + adds) if self.staked else amount  # « est »: the stake as it grows
            for target, q in self._step(now_worst, now_best, before, grown, fixed).items():
                found[target] = found.get(target, 0.0) + p * q
        return found


@dataclass(frozen=True)
class Chaude:
    """How the classes of a round settle under « main chaude », by the choices made.

    ``direct[class, outcome]`` and ``via[class, choice]``: the chance that a class settles so with
    no choice made, or comes to each choice first. Choice ``i`` (``order``: each after the choices
    it leads to) is made by the player at place ``chooser[i]``; with stake ``s`` (0: « est », 1:
    « vient ») it settles as ``outcomes[s][i] @ outcomes`` or comes to the later choices
    ``onward[s][i]``, and comes back to itself with chance ``again[s][i]``.
    """

    direct: FloatArray
    via: FloatArray
    points: tuple[Point, ...]
    chooser: tuple[int, ...]
    outcomes: FloatArray  # [stake, choice, outcome]
    onward: FloatArray  # [stake, choice, choice]
    again: FloatArray  # [stake, choice]
    order: tuple[int, ...]

    def weights(
        self, after: FloatArray, seats: Sequence[int], played: list[bool] | None = None, responder: int = -1
    ) -> tuple[FloatArray, list[bool]]:
        """``[class, outcome]`` with each choice made by its chooser against ``after[outcome, seat]``,
        and where « vient » is chosen, by choice. ``seats``: the round's seats in playing order.
        With ``played`` (where « vient » is played), only the seat ``responder`` chooses: the other
        choosers play those stakes."""
        made, vient = self._made(after, seats, played, responder)
        found: FloatArray = self.direct + self.via @ made
        return found, vient

    def made(self, after: FloatArray, seats: Sequence[int]) -> FloatArray:
        """``[choice, outcome]``: how the round settles from each choice, each made as
        :meth:`weights` makes them (what :meth:`ways` reads, for every choice of a round at once)."""
        return self._made(after, seats)[0]

    def ways(
        self, after: FloatArray, seats: Sequence[int], point: Point, made: FloatArray | None = None
    ) -> FloatArray:
        """``[stake, outcome]``: how a round settles from the choice ``point``, by the stake chosen
        there this once, every later choice (this one too, if the replay ties again) made as
        :meth:`weights` makes them (``made``: :meth:`made`, if already worked out)."""
        if made is None:
            made = self.made(after, seats)
        i = self.points.index(point)
        found: FloatArray = self.outcomes[:, i] + self.onward[:, i] @ made + self.again[:, i, None] * made[i]
        return found

    def _ways(self, i: int, made: FloatArray) -> FloatArray:
        found: FloatArray = (self.outcomes[:, i] + self.onward[:, i] @ made) / (1 - self.again[:, i])[:, None]
        return found

    def _made(
        self, after: FloatArray, seats: Sequence[int], played: list[bool] | None = None, responder: int = -1
    ) -> tuple[FloatArray, list[bool]]:
        made = np.zeros((len(self.points), self.direct.shape[1]))
        vient = [False] * len(self.points)
        for i in self.order:
            ways = self._ways(i, made)
            chooser = seats[self.chooser[i]]
            if played is not None and chooser != responder:
                vient[i] = played[i]
            else:
                own = ways @ after[:, chooser]
                vient[i] = bool(own[1] > own[0] + EPS)
            made[i] = ways[int(vient[i])]
        return made, vient


def chaude(
    rules: Ruleset,
    players: int,
    charge: bool,
    classes: Sequence[tuple[tuple[int, ...], tuple[int, ...], int, bool] | None],
    found: dict[Outcome, int],
    staked: bool = False,
) -> Chaude:
    """The settling of ``classes`` (worst, best, amount, nénette flag; None: a class no round ends in),
    numbering in ``found`` every outcome they can reach. ``staked``: every replay adds to the stake,
    which is each class's amount."""
    steps = _Steps(rules, players, charge, staked)
    settled: list[Chances] = [{} if c is None else steps.settle(*c) for c in classes]
    points = list(steps.choices)
    number = {p: i for i, p in enumerate(points)}

    def row(chances: Chances, skip: Point | None = None) -> tuple[dict[int, float], dict[int, float]]:
        outcome: dict[int, float] = {}
        choice: dict[int, float] = {}
        for (kind, what), p in chances.items():
            if kind == "o":
                o = found.setdefault(what, len(found))  # type: ignore[arg-type]
                outcome[o] = outcome.get(o, 0.0) + p
            elif what != skip:
                choice[number[what]] = choice.get(number[what], 0.0) + p  # type: ignore[index]
        return outcome, choice

    class_rows = [row(c) for c in settled]
    point_rows = [[row(steps.choices[p][s], skip=p) for p in points] for s in range(2)]
    again = np.array([[steps.choices[p][s].get(("c", p), 0.0) for p in points] for s in range(2)])
    size = len(found)
    direct = np.zeros((len(classes), size))
    via = np.zeros((len(classes), len(points)))
    for c, (outcome, choice) in enumerate(class_rows):
        for o, p in outcome.items():
            direct[c, o] += p
        for i, p in choice.items():
            via[c, i] += p
    outcomes = np.zeros((2, len(points), size))
    onward = np.zeros((2, len(points), len(points)))
    for s in range(2):
        for i, (outcome, choice) in enumerate(point_rows[s]):
            for o, p in outcome.items():
                outcomes[s, i, o] += p
            for j, p in choice.items():
                onward[s, i, j] += p
    order: list[int] = []

    def visit(i: int, seen: set[int]) -> None:  # each choice after those it leads to
        if i in seen:
            return
        seen.add(i)
        for j in np.flatnonzero(onward[:, i].sum(axis=0)).tolist():
            visit(j, seen)
        order.append(i)

    seen: set[int] = set()
    for i in range(len(points)):
        visit(i, seen)
    return Chaude(
        direct, via, tuple(points), tuple(p[2][0] for p in points), outcomes, onward, again, tuple(order)
    )
