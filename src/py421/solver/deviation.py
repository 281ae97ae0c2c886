"""What any one player gains by deviating from a whole game solved by max^n (its exploitability).

Max^n need not settle (:func:`.game_maxn.solve_manche` stops when a choice
keeps flipping), and then the play it ends on is an equilibrium only up to
some gain. This module measures that gain exactly. The *played* profile is
what ``bot:optimal`` plays: in every round, each player's choices solved
against the stored values of the positions the round leads to. For each
seat in turn, every other player keeps those choices (the same choice for
the same summary of results, dice held and throws left), and the seat plays
its best response over the whole game: a game against chance alone, solved
as the manches are (policy iteration over the décharge, pot level by pot
level in the charge, the last manche first). The seat's gain is its best
response's value less the played profile's, both from the start of the game
and in shares of the loss; the largest over the seats is the profile's
exploitability. Where max^n settles, no player gains anything (to rounding):
the solver's last pass already found that no choice changes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .game_maxn import (
    LEVEL_SWEEPS,
    TOLERANCE,
    Bounding,
    GameMaxn,
    Losses,
    Manche,
    Moves,
    Progress,
    RoundPlay,
    Shape,
    _choices,
    _class_chances,
    _ended,
    _evaluate,
    _made_in,
    _moves,
    _moves_with,
    _orbits,
    _turning,
    _zero_amounts,
    round_at,
    shape_of,
)
from .game_maxn_stakes import respond as staked_respond
from .game_maxn_stakes import staked
from .game_maxn_turns import follower_turns
from .tables import FloatArray

MOST_PASSES = 200  # policy iteration over a décharge settles in a handful


@dataclass(frozen=True)
class Deviation:
    """Each seat's value from the start of the game (minus its expected share of the loss), by seat
    at the table: ``played`` when everyone plays the solved choices, ``best`` when that seat alone
    plays its best response to the others'. ``anywhere`` is by seat of the solved manches (seats
    turned so that the manche's first leader is seat 0)."""

    played: FloatArray
    best: FloatArray
    # [seat]: the most a seat gains by deviating from any position of any manche (not only the start)
    anywhere: FloatArray
    # the gains are bounds (:func:`bounded`), not the best responses' values
    bounded: bool = False

    @property
    def gains(self) -> FloatArray:
        """[seat]: how much less of the loss each seat expects by deviating (never below 0)."""
        found: FloatArray = np.maximum(self.best - self.played, 0.0)
        return found

    @property
    def exploitability(self) -> float:
        return float(self.gains.max())


def respond(
    shape: Shape,
    played: RoundPlay,
    target: FloatArray,
    most: int,
    leader_limit: bool,
    place: int,
) -> tuple[float, FloatArray]:
    """The best response of the player at ``place`` (in playing order) in one round.

    ``played``: the round solved with its strategies (:func:`.game_maxn.play_round` with ``keep``),
    which every other player follows; ``target[class]``: what each class is worth to the
    responder. Returns the responder's value and the chance of each class. The other players' turns
    end as the solve found (``played.finals``): they play the same turns whoever responds.
    """
    k = shape.players
    limits = list(range(1, most + 1)) if leader_limit else [most]
    after_leader: dict[int, FloatArray] = {}
    finals: dict[int, list[FloatArray]] = {limit: [] for limit in limits}
    # as play_round solves them: counted results under the leader's limit, on the summaries reached
    narrow = {limit: found for limit in limits if (found := shape.narrowed(limit, leader_limit))}
    for limit in limits:
        if limit == 1:  # coups secs: nothing to choose after the leader
            after_leader[1] = shape.coups_secs @ target
            continue
        steps, may_stop = (
            (narrow[limit].steps, narrow[limit].may_stop)
            if limit in narrow
            else (shape.steps, shape.may_stop)
        )
        later = target
        for i in range(k - 1, 0, -1):
            step = steps[i - 1]
            if i == place:
                column = np.ascontiguousarray(later[:, None])
                out, final, _ = follower_turns(column, step, 0, limit, limit, may_stop(i - 1), shape.bon)
                later, chances = out[limit - 1][:, 0], final[limit - 1]
            else:
                chances = played.finals[limit][i - 1]
                later = np.einsum("cr,cr->c", chances, later[step])
            finals[limit].insert(0, chances)
        after_leader[limit] = later
    by_used = [_made_in(after_leader[u if leader_limit else most], u) for u in range(1, most + 1)]
    if place == 0:
        leader = _choices([by_used[most - r - 1][None, :] for r in range(most)], most)
    else:
        leader = played.leader
    ended = _ended(leader, most)[0]
    value = sum(float(ended[u - 1] @ by_used[u - 1]) for u in range(1, most + 1))
    return value, _class_chances(shape, ended, finals, limits, leader_limit, narrow)


def _round(manche: Manche, p: int, stored: FloatArray, best: FloatArray) -> list[tuple[float, Moves]]:
    """Each seat's best response at position ``p`` (the others playing as solved against
    ``stored``), given each seat's best-response values ``best[node, seat]``: its value, and where
    the round then leads."""
    rules = manche.rules
    pos = manche.positions[p]
    order = pos.order()
    played = round_at(manche, p, stored, keep=True)
    assert played.classes is not None
    most = rules.throws_allowed(pos.charge)
    bets = staked(rules, pos.charge)
    shape = shape_of(rules, len(order), bets)
    after = manche.after(p, best)
    stakes = manche.stakes(p, stored)  # « main chaude »: the stakes played, chosen against ``stored``
    found = []
    for seat in range(manche.players):
        weights = manche.weights(p, best, stakes, seat)  # the seat's own stakes are its best too
        target = weights @ after[:, seat]
        if bets:  # every throw adds to the stake
            place = order.index(seat)
            value, classes = staked_respond(
                rules, shape, played, target, most, rules.leader_limit, place, pos.pot
            )
        elif seat in order:
            place = order.index(seat)
            value, classes = respond(shape, played, target, most, rules.leader_limit, place)
        else:  # out of the décharge: the round is played without them
            value, classes = float(played.classes @ target), played.classes
        found.append((value, _moves_with(manche, p, classes, weights)))
    return found


def _played(manche: Manche, stored: FloatArray, ends: FloatArray, alone: bool) -> FloatArray:
    """Every node's value to each seat when everyone plays the choices solved against ``stored``
    (one round of each kind of position unless ``alone``: :func:`.game_maxn._orbits`)."""
    n, count = manche.players, len(manche.positions)
    values = np.zeros((count + 2 * n, n))
    values[count:] = ends.reshape(2 * n, n)
    moves = _played_moves(manche, stored, range(count), alone)
    decharge, levels = _groups(manche)
    for group in ([decharge] if decharge else []) + levels:  # each leads to itself and earlier ones
        values[group] = _evaluate(group, moves, values)
    return values


def _played_moves(manche: Manche, stored: FloatArray, group: Sequence[int], alone: bool) -> dict[int, Moves]:
    """Where each round of ``group`` leads when everyone plays the choices solved against ``stored``
    (one round of each kind of position unless ``alone``)."""
    moves: dict[int, Moves] = {}
    for orbit in _orbits(manche, group, alone):
        p = orbit[0][0]
        play = round_at(manche, p, stored, keep=True)
        assert play.classes is not None
        where = _moves(manche, p, play.classes, stored)
        for q, k in orbit:
            moves[q] = manche.turn(where, k)
    return moves


def _groups(manche: Manche) -> tuple[list[int], list[list[int]]]:
    """The décharge's positions, then the charge's by pot level from the smallest."""
    decharge = [p for p, pos in enumerate(manche.positions) if not pos.charge]
    levels: dict[int, list[int]] = {}
    for p, pos in enumerate(manche.positions):
        if pos.charge:
            levels.setdefault(pos.pot, []).append(p)
    return decharge, [levels[pot] for pot in sorted(levels)]


def _best(
    manche: Manche,
    stored: FloatArray,
    ends: FloatArray,
    start: FloatArray,
    alone: bool,
    progress: Progress | None = None,
) -> FloatArray:
    """[node, seat]: each seat's value when it alone plays its best response, from ``start`` (the
    played values: policy iteration only improves on them). The seats are solved side by side,
    each round's solved choices found once for all of them."""
    n, count = manche.players, len(manche.positions)
    values = start.copy()
    values[count:] = ends.reshape(2 * n, n)
    decharge, levels = _groups(manche)
    looping = _zero_amounts(manche.rules)
    for group in [decharge] if decharge else []:
        _responded(manche, group, stored, values, alone, progress)
    for group in levels:
        for _ in range(LEVEL_SWEEPS if looping else 1):
            change, moves = _pass(manche, group, stored, values, alone)
            if change < TOLERANCE:
                break
            if looping:  # policy iteration: each pass's best responses valued exactly
                _exactly(group, moves, values)
        if looping:
            _exactly(group, moves, values)
    return values


def _exactly(group: list[int], moves: list[dict[int, Moves]], values: FloatArray) -> None:
    """Each seat's values of ``group`` under its best responses' moves, exactly (in place)."""
    for seat, own in enumerate(moves):
        values[group, seat] = _evaluate(group, own, values[:, [seat]])[:, 0]


def _pass(
    manche: Manche, group: Sequence[int], stored: FloatArray, values: FloatArray, alone: bool
) -> tuple[float, list[dict[int, Moves]]]:
    """One pass of best responses over ``group``, in place: the largest change, and each seat's moves.
    Unless ``alone``, one round of each kind of position, turned to the others (seat ``t`` of a
    position turned by ``k`` responds as seat ``t - k`` of the first)."""
    n = manche.players
    change = 0.0
    moves: list[dict[int, Moves]] = [{} for _ in range(n)]
    for orbit in _orbits(manche, group, alone):
        found = _round(manche, orbit[0][0], stored, values)
        for q, k in orbit:
            for seat in range(n):
                value, where = found[(seat - k) % n]
                change = max(change, abs(value - float(values[q, seat])))
                values[q, seat] = value
                moves[seat][q] = manche.turn(where, k)
    return change, moves


def deviation(game: GameMaxn, progress: Progress | None = None) -> Deviation:
    """What each seat gets from the start of ``game`` playing as solved, and deviating alone."""
    model = game.model
    start = model.index[model.start]
    played: dict[tuple[int, Losses], FloatArray] = {}
    best: dict[tuple[int, Losses], FloatArray] = {}
    for m, ((number, losses), solution) in enumerate(game.manches.items()):  # the last manche first
        ends_played = game.end_values(number, losses, lambda key: played[key][start])
        ends_best = game.end_values(number, losses, lambda key: best[key][start])
        alone = not (_turning(ends_played) and _turning(ends_best))  # else: positions by kind
        values = played[(number, losses)] = _played(model, solution.values, ends_played, alone)
        if progress:
            progress("manche", m + 1, len(game.manches))
        best[(number, losses)] = _best(model, solution.values, ends_best, values, alone, progress)
    first = game.start_key()
    count = len(model.positions)
    gains = [best[key][:count] - played[key][:count] for key in game.manches]
    anywhere = np.maximum(np.max([gain.max(axis=0) for gain in gains], axis=0), 0.0)
    return Deviation(game.from_start(played[first][start]), game.from_start(best[first][start]), anywhere)


def bounded(
    game: GameMaxn,
    progress: Progress | None = None,
    state: Bounding | None = None,
    keep: Callable[[Bounding], None] | None = None,
) -> Deviation:
    """A bound on what any one player gains by deviating, where the whole-game measure would take
    hours (« queue de la vache »: the first manche's décharge is played once for each debt, hundreds
    of thousands of positions at 41 tokens).

    Outside the décharges (and looping charge levels) that did not settle, every choice the solver
    stored is the mover's best against the stored values, and bot:optimal plays it. So a seat's
    gain from any position is at most, over the manches, the most it gains within the unsettled
    groups of each: there measured on their own, their ends as stored, by the best response (policy
    iteration, the others playing as solved against the stored values), plus how far what
    bot:optimal plays there is from the stored values. Every seat gets that sum, as its gain from
    the start and from anywhere.

    A group is measured one round of each kind of position where its manche's ends turn as they
    are (a manche nobody has lost yet, no debt: :func:`.game_maxn._turning`), as it was solved;
    position by position elsewhere.

    ``state``: how far a bound stopped before went (it goes on from there, to the same bound);
    ``keep(state)`` is called once bot:optimal's play of a group is measured, after each pass of
    best responses, and once a group is done."""
    state = state or Bounding()
    if progress and (state.found or state.played is not None):
        progress("bounding", state.passes, len(state.found))
    total, measured = 0.0, 0
    for m, (key, solution) in enumerate(game.manches.items()):
        model = game.model_of(key)
        turns = game.owing_values(*key) is None and _turning(game.end_values(*key), model, solution.values)
        if progress:  # its passes are said as this manche's
            progress("manche", m + 1, len(game.manches))
        found = 0.0
        for rows in solution.unsettled:
            if measured == len(state.found):
                alone = not turns or bool(model.positions[rows[0]].debts)  # a décharge after a debt
                state.found.append(_bound_of(model, solution.values, rows, alone, state, progress, keep))
                if keep:
                    keep(state)
            found = max(found, state.found[measured])
            measured += 1
        total += found
    start = game.start_values()
    bound = np.full(game.players, max(total, 0.0))
    return Deviation(start, start + bound, bound, bounded=True)


def _bound_of(
    model: Manche,
    stored: FloatArray,
    rows: list[int],
    alone: bool,
    state: Bounding,
    progress: Progress | None,
    keep: Callable[[Bounding], None] | None,
) -> float:
    """What a seat gains at most within the unsettled group ``rows``, going on from ``state`` (its
    measure of bot:optimal's play and the passes of best responses already done there); ``state``
    is then ready for the next group."""
    if state.played is None:
        played = _played_rows(model, stored, rows, alone)
        state.played = float(np.abs(played[rows] - stored[rows]).max())
        if keep:
            keep(state)
    values = stored.copy()
    if state.values is not None:
        values[rows] = state.values

    def kept(passes: int) -> None:
        state.passes, state.values = passes, values[rows]
        if keep:
            keep(state)

    _responded(model, rows, stored, values, alone, progress, first=state.passes + 1, kept=kept)
    gain = float((values[rows] - stored[rows]).max()) + state.played
    state.played, state.passes, state.values = None, 0, None
    return gain


def _played_rows(manche: Manche, stored: FloatArray, rows: list[int], alone: bool) -> FloatArray:
    """The values of ``rows`` when everyone plays the choices solved against ``stored``, the rest of
    the nodes as stored (a group of rows leading to itself and to nodes already valued)."""
    values = stored.copy()
    values[rows] = _evaluate(rows, _played_moves(manche, stored, rows, alone), values)
    return values


def _responded(
    manche: Manche,
    group: list[int],
    stored: FloatArray,
    values: FloatArray,
    alone: bool,
    progress: Progress | None,
    first: int = 1,
    kept: Callable[[int], None] | None = None,
) -> None:
    """Each seat's best response over ``group`` (a décharge), in place: passes of best responses,
    each followed by their exact values (policy iteration), until none moves a value; ``first``:
    the number of the first pass (those before it done already, ``values`` as they left them),
    ``kept(passes)`` told after each."""
    for passes in range(first, MOST_PASSES + 1):
        change, moves = _pass(manche, group, stored, values, alone)
        _exactly(group, moves, values)
        if kept and change >= TOLERANCE:  # the last pass is kept as the group's bound instead
            kept(passes)
        if progress:
            progress("deviation", passes, 0)
        if change < TOLERANCE:
            break
