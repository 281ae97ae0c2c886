"""One round walked through the engine, to check the two-player solver's model of it.

From the start of a round, every throw's outcomes are followed with their
exact chances and every choice of both players is tried, until the next
round starts or the game ends. What follows the round is valued by the
solver; the round itself comes from the engine alone. If the solver's value
of every round start equals this walk, the solver's values are the game's
(they are the fixed point of the engine's own rounds).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

from py421.core.combos import NENETTE, CombinationTable
from py421.core.dice import Result, throw_outcomes
from py421.core.engine import apply_action, apply_dice, chance_request, deciding_seat, legal_actions, new_game
from py421.core.position import position_text
from py421.core.rules import Ruleset
from py421.core.state import Phase, State
from py421.solver.heads_up import HeadsUp

Children = list[tuple[str | float, float]]  # a state's text, or the value after the round


def round_start(state: State) -> bool:
    r = state.round
    return state.draw is None and r is not None and not r.done and r.throws == 0 and r.tie is None


# A tie being replayed, keyed by what its tied result is worth: during a tie-break the
# engine reads the round's turns (``Round.done``) only to settle it or to name « pour ce
# qui est » (``_settle``, ``est_amount`` and ``_all_tied`` in py421.core.engine): the
# result's value (``table.values``, of which ``table.dice_values`` is a copy by dice),
# whether it is nénette, and whether every turn compares equal (``_keys``: strengths,
# throws, nénette last winning). The replay's dice are compared with one another, never
# with the turns, and the next round starts afresh. So when every turn of the round tied
# on the same result, putting in its place the first result of the table with the same
# value and the same nénette-ness (one result for all, throws kept) changes none of
# those readings: the two positions have the same future, transition for transition.
# The walk plays the first of them it reaches through the engine and counts the others
# as that one, instead of replaying the same tie-break once for each of 56 results.
_TIE_CLASSES: dict[int, tuple[CombinationTable, dict[Result, Result]]] = {}


def _tie_representative(table: CombinationTable, result: Result) -> Result:
    found = _TIE_CLASSES.get(id(table))
    if found is None or found[0] is not table:
        first: dict[tuple[int, bool], Result] = {}
        found = table, {r: first.setdefault((v, r == NENETTE), r) for r, v in table.values.items()}
        _TIE_CLASSES[id(table)] = found
    return found[1][result]


def walk_key(state: State, debt_cap: int = 0) -> str:
    """The position's text; an accumulated stake at or above the pot takes the whole pot,
    so those stakes are one position (the engine's stake grows with every replay). With
    « queue de la vache » what is owed counts up to ``debt_cap``: the stake up to the pot plus that.
    In a tie-break after turns that all tied on one result, that result is keyed by its class
    (see ``_TIE_CLASSES``)."""
    r = state.round
    if r is not None and r.stake > state.pot + debt_cap:
        r = replace(r, stake=state.pot + debt_cap)
    if r is not None and r.tie is not None and r.done and len({t.result for t in r.done}) == 1:
        tied = r.done[0].result
        same = _tie_representative(state.rules.table, tied)
        if same != tied:
            r = replace(r, done=tuple(replace(t, result=same) for t in r.done))
    if r is not state.round:
        state = replace(state, round=r)
    return position_text(state)


def solved_value(state: State, solver: HeadsUp) -> float:
    """P(seat 0 loses the game) at a round start or the end, by the solver (one manche)."""
    if state.phase is Phase.OVER:
        assert state.outcome is not None
        return 1.0 if 0 in state.outcome.losers else 0.0
    assert state.round is not None
    leader = state.round.order[0]
    if state.phase is Phase.CHARGE:
        return float(solver.charge[state.pot][state.tokens[0], leader])
    return float(solver.decharge[state.tokens[0], leader])


def walk_round(
    start: State, solver: HeadsUp | Callable[[State], float], debt_cap: int = 0
) -> tuple[float, int]:
    """P(seat 0 loses) from ``start`` by the engine's round, and the states walked.

    ``solver`` values one manche; or a function gives seat 0's value of the
    states after the round (seat 0 wants it low), with ``debt_cap`` as in
    :func:`walk_key`.
    """
    after_round: Callable[[State], float]
    if isinstance(solver, HeadsUp):
        assert start.rules.manches == 1 and not start.rules.fiches_de_manche, "the solver values one manche"
        manche = solver

        def after_round(state: State) -> float:
            return solved_value(state, manche)
    else:
        after_round = solver
    first = walk_key(start, debt_cap)
    values: dict[str, float] = {}
    inner: dict[str, tuple[int | None, Children]] = {}
    stack = [(first, start)]
    seen = {first}
    while stack:
        key, state = stack.pop()
        seat = deciding_seat(state)
        if seat is not None:
            moves = [(apply_action(state, action), 1.0) for action in legal_actions(state)]
        else:
            request = chance_request(state)
            assert request is not None
            moves = [(apply_dice(state, faces), float(p)) for faces, p in throw_outcomes(request.count)]
        children: Children = []
        for child, p in moves:
            if child.phase is Phase.OVER or round_start(child):  # the round is over: the solver's value
                children.append((after_round(child), p))
                continue
            child_key = walk_key(child, debt_cap)
            children.append((child_key, p))
            if child_key not in seen:
                seen.add(child_key)
                stack.append((child_key, child))
        inner[key] = (seat, children)
        values[key] = 0.5
    # a tie-break replayed comes back to the same state: iterate until nothing moves
    order = list(reversed(inner.items()))
    change = 1.0
    while change > 1e-15:
        change = 0.0
        for key, (seat, children) in order:
            after = [values[c] if isinstance(c, str) else c for c, _ in children]
            if seat is None:
                value = sum(p * v for (_, p), v in zip(children, after, strict=True))
            else:  # seat 0 plays not to lose, seat 1 to make seat 0 lose
                value = min(after) if seat == 0 else max(after)
            change = max(change, abs(value - values[key]))
            values[key] = value
    return values[first], len(values)


def round_starts(rules: Ruleset, games: int, seed: int) -> list[State]:
    """Every distinct round start reached by random play in ``games`` two-player games."""
    rng = random.Random(seed)
    found: dict[str, State] = {}
    for _ in range(games):
        state = new_game(rules, ["A", "B"])
        while state.phase is not Phase.OVER:
            if round_start(state):
                found.setdefault(walk_key(state), state)
            request = chance_request(state)
            if request is not None:
                faces = tuple(rng.randint(1, 6) for _ in range(request.count))
                state = apply_dice(state, faces)
            else:
                state = apply_action(state, rng.choice(legal_actions(state)))
    return list(found.values())
