"""Charge rounds where every throw adds to the stake (accumulated stakes, seed 001), for :mod:`.game_maxn`.

Under accumulated stakes the loser of a charge round takes the sum of the
values of every throw of the round (and of the best result of each rampot
that breaks a tie for the worst), up to the pot. A round's state then holds
the stake so far besides the summary of the results already final
(:class:`.game_maxn.Shape`, its last step giving only who holds the worst
result): every array of a turn gains a stake axis, from 0 to the pot left (a
larger stake takes the same pot). Summaries that lead alike (they differ by
the best result only) are merged first (:func:`alike_steps`): a follower's
turn is solved once for all of them.

A turn's state is the results before (the summary), the dice held, the
throws left and the stake with this throw added. A player's choices depend on
the stake as it stands, not on the stake before their turn, so the same
choices serve every stake the turn may start from. The rounds are solved by
backward induction over the throws left, every seat's value following the
mover's choices, as :mod:`.game_maxn_turns` does without the stake; ties
between choices within ``EPS`` are broken the same way (stop, then the first
keep of :data:`.rounds.KEEP_CHOICES`).

A tie for the worst result is broken by rampot: the tied players throw a coup
sec each, the best of those results adds its value to the stake, the worst
loses, and players tied again throw again (engine ``_tie_thrown``). Every tied
player is as likely to lose, whatever the stake comes to: :func:`rampot`
gives the stake's distribution. Under « main chaude » a replay tied again lets a tied player choose
the stake (:mod:`.main_chaude`), each replay adding to it as well.

Under « qui barre démarre » a result made in fewer throws beats the same result made in more: the
summaries' steps have a column per counted result (:func:`.game_maxn.counted`, :func:`by_used`), so
what stopping is worth depends on the throws used, and a follower's turn is solved once for each
limit the leader may set.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ..core.combos import NENETTE
from ..core.engine import tie_order
from ..core.rules import Ruleset
from .amounts import token_values
from .game_maxn_turns import CHILDREN, CHOICES_COUNT, LEAVES, MIN_PART, reached_from, scattered, shared
from .keeps import KEEP_INDEX
from .rounds import EPS, FRESH, KEEP_CHOICES, STOP
from .tables import BON, INDEX, RESULTS, TRANSITIONS, FloatArray

if TYPE_CHECKING:
    from .game_maxn import RoundPlay, Shape

IntArray = npt.NDArray[np.intp]
CHUNK = 256  # summaries solved at once: a turn's arrays hold 56 results x the stakes x 7 keeps each
_RESULTS = np.arange(len(RESULTS))


def staked(rules: Ruleset, charge: bool) -> bool:
    """Whether a round of this phase adds every throw to its stake."""
    return charge and rules.accumulated_stakes


def shifted(rules: Ruleset, cap: int) -> IntArray:
    """``[result, stake]``: the stake once a throw showing ``result`` is added, capped at ``cap``."""
    stakes = np.arange(cap + 1)
    found: IntArray = np.minimum(stakes[None, :] + token_values(rules)[:, None], cap)
    return found


@cache
def _one_rampot(rules: Ruleset, tied: int) -> dict[tuple[int, int, bool], float]:
    """``{(value added, worst, double nénette): chance}`` when ``tied`` players throw a coup sec each:
    ``worst`` the bits (by turn in the replay) of those who threw the weakest, ``double nénette``
    whether every one threw nénette. The best is the first to throw the strongest result, as the
    engine reads it."""
    strength = np.array([rules.table.strength(r) for r in RESULTS])
    values = token_values(rules)
    nenette = INDEX[NENETTE]
    # (best result, worst strength, who holds it, every one a nénette) -> chance, one thrower after another
    states: dict[tuple[int, int, int, bool], float] = {}
    for r in range(len(RESULTS)):
        key = (r, int(strength[r]), 1, r == nenette)
        states[key] = states.get(key, 0.0) + float(FRESH[r])
    for i in range(1, tied):
        following: dict[tuple[int, int, int, bool], float] = {}
        for (best, low, holders, doubled), p in states.items():
            for r in range(len(RESULTS)):
                s = int(strength[r])
                nb = r if s > strength[best] else best
                nlow, nholders = (s, 1 << i) if s < low else (low, holders | int(s == low) << i)
                key = (nb, nlow, nholders, doubled and r == nenette)
                following[key] = following.get(key, 0.0) + p * float(FRESH[r])
        states = following
    found: dict[tuple[int, int, bool], float] = {}
    for (best, _, holders, doubled), p in states.items():
        added = (int(values[best]), holders, doubled)
        found[added] = found.get(added, 0.0) + p
    return found


@cache
def rampot(rules: Ruleset, players: int, tied: tuple[int, ...], cap: int) -> FloatArray:
    """``[stake before, loser, stake after]``: how rampots among the players at places ``tied`` of a
    round of ``players`` (``loser``: an index in ``tied``), until one loses, move the stake (capped at
    ``cap``) and name the loser.

    Each rampot is replayed in the ruleset's tie order (:func:`..core.engine.tie_order`) by those
    still tied. Every tied player is as likely to lose, whatever the stake comes to, except where a
    double nénette goes to the later thrower (``nenette_last_wins``): when every replayer throws
    nénette, the first of them loses.
    """
    k = len(tied)
    order = tie_order(rules, tuple(range(players)), tied)  # places, by turn in the replay
    index = {place: i for i, place in enumerate(tied)}
    found = np.zeros((cap + 1, k, cap + 1))
    for s in range(cap, -1, -1):  # a rampot only adds: the larger stakes are known first
        stay = 0.0
        for (value, worst, doubled), p in _one_rampot(rules, k).items():
            after = min(cap, s + value)
            if doubled and rules.nenette_last_wins:
                found[s, index[order[0]], after] += p
                continue
            losers = tuple(sorted(order[j] for j in range(k) if worst >> j & 1))
            if len(losers) == 1:
                found[s, index[losers[0]], after] += p
            elif len(losers) < k:
                found[s, [index[place] for place in losers]] += p * rampot(rules, players, losers, cap)[after]
            elif after == s:
                stay += p  # all tie again and nothing is added: the same rampot once more
            else:
                found[s] += p * found[after]
        found[s] /= 1 - stay
    return found


def ends_no_round(rules: Ruleset, players: int, stake: int) -> bool:
    """Whether no charge round ends at ``stake``: every player has thrown once at least, so a round
    never ends on a stake smaller than that (short of the pot)."""
    return stake < min(rules.pot, players * int(token_values(rules).min()))


def staked_ways(
    rules: Ruleset, worst: int, players: int, stake: int, penalty: bool = False, top: int | None = None
) -> list[tuple[tuple[tuple[int, ...], int, int], float]]:
    """How a charge round whose worst result is held by ``worst`` (bit ``i``: the ``i``-th player)
    settles at ``stake``: ``[((losers, -1, amount), chance)]``; none where no round ends so (the
    manche's positions are those its rounds reach). ``penalty``: the worst result is a nénette, and
    its loser takes the nénette penalty rather than the stake (the rampots only say who). ``top``:
    the largest stake that counts (the full pot unless a debt carries the rest)."""
    holders = [i for i in range(players) if worst >> i & 1]
    if ends_no_round(rules, players, stake):
        return []
    if rules.tied_losers_all_take or len(holders) == 1:
        return [((tuple(holders), -1, rules.nenette_penalty if penalty else stake), 1.0)]
    after = rampot(rules, players, tuple(holders), rules.pot if top is None else top)[
        stake
    ]  # [loser, stake after]
    if penalty:
        return [
            (((i,), -1, rules.nenette_penalty), float(p))
            for i, p in zip(holders, after.sum(axis=1), strict=True)
        ]
    return [
        (((holders[i],), -1, int(amount)), float(after[i, amount]))
        for i, amount in zip(*np.nonzero(after), strict=True)
    ]


Alike = tuple[tuple[IntArray, IntArray], ...]  # per step: (rows, merged), as alike_steps gives them
BoolArray = npt.NDArray[np.bool_]


@cache
def alike_steps(rules: Ruleset, players: int) -> Alike:
    """The staked shape's steps, the summaries that lead alike merged: ``(rows, merged)`` per step.
    ``merged[summary]`` is the summary's row; ``rows[row, result]`` the next step's row where that
    result leads (the class, after the last step).

    The loser takes the stake whoever holds the best result, so summaries that differ by the best
    only lead every result to the same class, and a follower's turn is the same from each of them:
    it is solved once per row (at three players, the last turn's 3,136 summaries make 166 rows; at
    four, its 18,206 make 386, and the third's 3,136 make 166). Where players behind must throw on,
    the best says where the mover may stop, so only summaries that also allow the same stops are
    merged (at three, the last turn's 3,136 rows; at four, 9,296 and the third's 3,136).
    """
    return _alike(rules, players)[0]


@cache
def reached(rules: Ruleset, players: int, limit: int) -> tuple[IntArray, ...]:
    """``[i]``: the rows of :func:`alike_steps`'s step ``i`` that a round reaches where the throws
    used count and the leader made their result in ``limit`` throws, the followers' limit: as
    :meth:`.game_maxn.Shape.reached` for the rows of the staked shape."""
    alike = alike_steps(rules, players)
    kinds = len(RESULTS)
    leads = np.unique(alike[0][1][(limit - 1) * kinds : limit * kinds])
    return tuple(reached_from(leads, [step for step, _ in alike], limit)[0])


def alike_ahead(rules: Ruleset, players: int) -> tuple[BoolArray | None, ...]:
    """Per step of :func:`alike_steps`, ``[row, result]``: where the mover may stop with throws
    left (None: anywhere), as :attr:`.game_maxn.Shape.ahead` says for each of the row's summaries."""
    return _alike(rules, players)[1]


@cache
def _alike(rules: Ruleset, players: int) -> tuple[Alike, tuple[BoolArray | None, ...]]:
    from .game_maxn import shape_of  # it builds on this module

    shape = shape_of(rules, players, staked=True)
    found: list[tuple[IntArray, IntArray]] = []
    masks: list[BoolArray | None] = []
    onward: IntArray | None = None  # the next step's rows, by summary
    for i in range(len(shape.steps) - 1, -1, -1):
        step = shape.steps[i]
        leads = step if onward is None else onward[step]
        ahead = shape.may_stop(i)
        key = leads if ahead is None else np.concatenate([leads, ahead.astype(np.intp)], axis=1)
        rows, first, merged = np.unique(key, axis=0, return_index=True, return_inverse=True)
        onward = merged.reshape(-1).astype(np.intp)
        found.insert(0, (rows[:, : leads.shape[1]].astype(np.intp), onward))
        masks.insert(0, None if ahead is None else np.ascontiguousarray(ahead[first]))
    return tuple(found), tuple(masks)


# -- a turn, for every summary and stake at once ----------------------------------------------------


def _turn(
    stops: Sequence[FloatArray],
    mover: int,
    shift: IntArray,
    ahead: Sequence[BoolArray] | None = None,
    bon: bool = False,
) -> tuple[list[FloatArray], list[IntArray]]:
    """``stops[t][summary, result, stake, seat]``: what stopping is worth with ``t`` throws left
    (the same whatever ``t``, unless throws are counted: « qui barre démarre »).

    Returns ``values[t]``, the same, once the mover plays the best choice, every seat's value
    following it; and ``choices[t][summary, result, stake]``: STOP, a keep, or a keep plus
    :data:`.tables.BON` for « le bon ». ``ahead[t][summary, result]``: where the mover may stop with
    ``t`` throws left (None: anywhere); ``bon``: « le bon » is weighed, its throw's result final (a
    follower who must throw on may so keep the stake from growing), and played only where it is
    worth more than every plain throw.
    """
    values = [stops[0]]
    choices = [np.full(stops[0].shape[:3], STOP, np.intp)]
    rows = np.arange(stops[0].shape[0])[:, None, None]
    stakes = np.arange(shift.shape[1])[None, None, :]
    # each keep's value where the next throw's result is final, as stopping on it with t - 1 left
    final: FloatArray | None = None

    def best_of(cont: FloatArray) -> tuple[FloatArray, IntArray]:
        """The mover's best keep by summary, result and stake (the first within EPS), and its value."""
        candidates = cont[..., mover][:, KEEP_CHOICES, :]  # [summary, result, choice, stake]
        best = candidates.max(axis=2)
        first = np.argmax(candidates >= best[:, :, None, :] - EPS, axis=2)
        return best, KEEP_CHOICES[_RESULTS[None, :, None], first]  # [summary, result, stake]

    for t in range(1, len(stops)):
        after = values[-1][:, _RESULTS[:, None], shift]  # [summary, result thrown, stake before, seat]
        cont = np.einsum("kr,crsz->cksz", TRANSITIONS, after)  # [summary, keep, stake, seat]
        final = _bon_final(final, cont, stops, t, shift) if bon or t == 1 else final
        assert final is not None
        best, keep = best_of(cont)
        # cont[c, keep[c, r, s], s, :]: the keep's value at the stake the result was held at
        kept = cont[rows, keep, stakes]
        if bon and t > 1:
            bbest, bkeep = best_of(final)
            better = bbest > best + EPS
            kept = np.where(better[..., None], final[rows, bkeep, stakes], kept)
            keep = np.where(better, bkeep + BON, keep)
            best = np.maximum(best, bbest)
        stop = stops[t][..., mover] >= best - EPS
        if ahead is not None:
            stop &= ahead[t][:, :, None]
        values.append(np.where(stop[..., None], stops[t], kept))
        choices.append(np.where(stop, STOP, keep))
    return values, choices


def _bon_final(
    final: FloatArray | None, cont: FloatArray, stops: Sequence[FloatArray], t: int, shift: IntArray
) -> FloatArray:
    """Each keep's value as « le bon » with ``t`` throws left, its throw's result final: the keeps'
    values with one throw left (``cont`` at ``t == 1``), unless throws are counted, where that result
    is made in one throw more than stopping with ``t - 1`` left."""
    if t == 1:
        return cont
    if stops[t - 1] is not stops[0]:
        found: FloatArray = np.einsum("kr,crsz->cksz", TRANSITIONS, stops[t - 1][:, _RESULTS[:, None], shift])
        return found
    assert final is not None
    return final


def by_used(columns: IntArray | BoolArray, used: int) -> Any:
    """``columns[..., counted result]`` for the results made in ``used`` throws (« qui barre
    démarre »: :func:`.game_maxn.counted`); all of them where the throws are not counted."""
    kinds = len(RESULTS)
    if columns.shape[-1] == kinds:
        return columns
    return columns[..., (used - 1) * kinds : used * kinds]


def by_throws_left(found: Any, throws: int, step: IntArray | None = None) -> list[Any]:
    """``found[step]`` (or ``found``: by summary and counted result) by throws left, in a turn of
    ``throws``: with ``t`` left, the columns of the results made in ``throws - t`` (counted), or the
    same array for every ``t`` (not counted: « le bon » then reuses the first throw's keeps)."""
    columns = found if step is None else step
    if columns.shape[-1] == len(RESULTS):
        return [found if step is None else found[step]] * throws
    return [
        by_used(found, throws - t) if step is None else found[by_used(step, throws - t)]
        for t in range(throws)
    ]


def _start(values: FloatArray, shift: IntArray) -> FloatArray:
    """``[summary, stake before the turn, seat]``: a fresh turn, from ``values[summary, result,
    stake, seat]``."""
    found: FloatArray = np.einsum("r,crsz->csz", FRESH, values[:, _RESULTS[:, None], shift])
    return found


def follower(
    later: FloatArray,
    step: IntArray,
    mover: int,
    throws: int,
    shift: IntArray,
    keep: bool,
    ahead: BoolArray | None = None,
    bon: bool = False,
    rows: IntArray | None = None,
) -> tuple[FloatArray, npt.NDArray[np.int8] | None]:
    """A follower's turn of up to ``throws`` throws in every summary and at every stake.

    ``later[next summary, stake, seat]``; returns ``out[limit - 1, summary, stake before, seat]`` for
    every limit from 1, and with ``keep`` ``choices[t, summary, result, stake]``. ``ahead[summary,
    result]`` (as ``step``) and ``bon`` as :func:`_turn` takes them. Where ``step`` has a column per
    counted result (« qui barre démarre »), stopping is worth what the throws used make it, and only
    the limit ``throws`` is solved (``out[throws - 1]``). Compiled with numba where it is installed,
    the summaries shared among the cores (:func:`.game_maxn_turns.shared`). ``rows``: the only
    summaries the round can reach (:func:`reached`); the others are left at 0 (``choices``: STOP).
    """
    if rows is not None:
        narrow = None if ahead is None else ahead[rows]
        out, chosen = follower(later, step[rows], mover, throws, shift, keep, narrow, bon)
        size = len(step)
        return scattered(out, rows, size), None if chosen is None else scattered(chosen, rows, size, STOP)
    contexts = step.shape[0]
    width, seats = later.shape[1], later.shape[2]
    out = np.zeros((throws, contexts, width, seats))
    choices = np.empty((throws, contexts, len(RESULTS), width), np.int8) if keep else None
    kernel = _kernels()
    if kernel is None:
        _numpy_follower(later, step, mover, throws, shift, out, choices, ahead, bon)
        return out, choices
    written = choices if choices is not None else np.empty((0, 0, 0, 0), np.int8)
    # contiguous whatever the caller sliced: numba compiles a kernel again (seconds of CPU) for
    # each layout of its arrays, where a copy costs next to nothing
    where = np.ones((1, 1), np.bool_) if ahead is None else np.ascontiguousarray(ahead)
    lined = np.ascontiguousarray(later).reshape(len(later), width * seats)  # a stake's seats side by side
    flat = out.reshape(throws, contexts, width * seats)  # the same memory
    asked = (
        lined,
        seats,
        np.ascontiguousarray(step),
        mover,
        throws,
        shift,
        KEEP_CHOICES,
        CHOICES_COUNT,
        CHILDREN,
        LEAVES,
        FRESH,
        EPS,
    )
    rule = (where, ahead is None, bon, step.shape[1] > len(RESULTS))
    shared(contexts, lambda a, b: kernel[0](*asked, *rule, flat, choices is not None, written, a, b))
    return out, choices


def _numpy_follower(
    later: FloatArray,
    step: IntArray,
    mover: int,
    throws: int,
    shift: IntArray,
    out: FloatArray,
    choices: npt.NDArray[np.int8] | None,
    ahead: BoolArray | None,
    bon: bool,
) -> None:
    """:func:`follower` with numpy, a few summaries at a time."""
    contexts = step.shape[0]
    counted = step.shape[1] > len(RESULTS)
    for a in range(0, contexts, CHUNK):
        b = min(contexts, a + CHUNK)
        masks = None if ahead is None else by_throws_left(ahead[a:b], throws)
        values, chosen = _turn(by_throws_left(later, throws, step[a:b]), mover, shift, masks, bon)
        for limit in [throws] if counted else range(1, throws + 1):
            out[limit - 1, a:b] = _start(values[limit - 1], shift)
        if choices is not None:
            choices[:, a:b] = np.stack(chosen)


def forward(
    reach: FloatArray, choices: Sequence[npt.NDArray[np.signedinteger]], limit: int, shift: IntArray
) -> FloatArray:
    """``[throws used - 1, summary, result, stake]``: how turns of up to ``limit`` throws end, from the
    chance ``reach[summary, stake]`` of each summary and stake before them, under ``choices[t]``
    (« le bon »: the next throw's result ends the turn)."""
    contexts, width = reach.shape
    results, keeps = len(RESULTS), TRANSITIONS.shape[0]
    ended = np.zeros((limit, contexts, results, width))
    rows = np.arange(contexts)[:, None, None]
    columns = np.arange(width)[None, None, :]

    def thrown(mass: FloatArray) -> FloatArray:
        """[summary, result, stake]: where a throw from ``mass[summary, keep, stake]`` leads."""
        spread = np.einsum("cks,kr->crs", mass, TRANSITIONS)  # [summary, result, stake before]
        flat = (rows * results + _RESULTS[None, :, None]) * width + shift[None, :, :]
        landed = np.bincount(flat.ravel(), spread.ravel(), minlength=contexts * results * width)
        return np.asarray(landed, dtype=np.float64).reshape(contexts, results, width)

    def gathered(keep: IntArray, where: BoolArray, mass: FloatArray) -> FloatArray:
        """[summary, keep, stake]: ``mass`` gathered on the keeps chosen, where chosen."""
        flat = (rows * keeps + np.where(where, keep, 0)) * width + columns
        found = np.bincount(
            flat.ravel(), np.where(where, mass, 0.0).ravel(), minlength=contexts * keeps * width
        )
        return np.asarray(found, dtype=np.float64).reshape(contexts, keeps, width)

    holding = thrown(_fresh_mass(reach))
    for used in range(1, limit + 1):
        t = limit - used
        if t == 0:
            ended[used - 1] += holding
            break
        chosen = np.asarray(choices[t])
        stop = chosen == STOP
        bon = chosen >= BON
        ended[used - 1] += np.where(stop, holding, 0.0)
        if bon.any():  # final with one throw more
            ended[used] += thrown(gathered(chosen - BON, bon, holding))
        holding = thrown(gathered(chosen, ~stop & ~bon, holding))
    return ended


def _fresh_mass(reach: FloatArray) -> FloatArray:
    """[summary, keep, stake]: ``reach`` as mass on the empty keep (a fresh throw)."""
    mass = np.zeros((reach.shape[0], TRANSITIONS.shape[0], reach.shape[1]))
    mass[:, KEEP_INDEX[()], :] = reach
    return mass


def onward(step: IntArray, ended: FloatArray, size: int) -> FloatArray:
    """``[next summary, stake]``: the chance of each, from ``ended[summary, result, stake]``."""
    width = ended.shape[-1]
    flat = step[:, :, None] * width + np.arange(width)[None, None, :]
    found = np.bincount(flat.ravel(), ended.ravel(), minlength=size * width)
    return np.asarray(found, dtype=np.float64).reshape(size, width)


def play_staked_round(
    shape: Shape,
    payoff: FloatArray,
    seats: Sequence[int],
    most: int,
    leader_limit: bool,
    rules: Ruleset,
    cap: int,
    keep: bool = False,
    top: int | None = None,
) -> RoundPlay:
    """:func:`.game_maxn.play_round` for a charge round where every throw adds to the stake.

    ``payoff[class, seat]`` over the classes of :func:`.game_maxn.settling_of`: who holds the
    worst result, times the stake from 0 to ``top`` (the full pot by default, more where a debt
    carries the rest into the next manche); ``cap``: the largest stake that counts here (the pot
    left, and the debt). The strategies
    kept have a stake axis last (``leader[t][0, result, stake]``, ``followers[limit][i - 1][t][row,
    result, stake]``), the followers' over the rows of :func:`alike_steps` (``play.rows``).
    """
    from .game_maxn import RoundPlay

    alike = alike_steps(rules, shape.players)
    shift = shifted(rules, cap)
    top = rules.pot if top is None else top
    limits = list(range(1, most + 1)) if leader_limit else [most]
    narrow = leader_limit and shape.throws > 1
    after_leader, followers = _followers(
        rules, shape, alike, payoff, seats, limits, top, shift, keep, narrow=narrow
    )
    stops = _leader_stops(alike, after_leader, most, leader_limit)
    values, leader = _turn(stops, seats[0], shift)
    play = RoundPlay(np.asarray(_start(values[most - 1], shift)[0, 0], dtype=float))
    if keep:
        play.leader = leader
        play.followers = {
            limit: [[c[t] for t in range(limit)] for c in found] for limit, found in followers.items()
        }
        play.rows = [merged for _, merged in alike]
        play.classes = _classes(shape, alike, leader, followers, limits, leader_limit, shift, top + 1, most)
    return play


def _leader_stops(
    alike: Alike, after_leader: dict[int, FloatArray], most: int, leader_limit: bool
) -> list[FloatArray]:
    """``stops[t][1, result, stake, seat]``: what the leader's stopping with ``t`` throws left is
    worth (the limit it sets; the throws it used, where they are counted)."""
    leads = alike[0][1]  # the leader's (counted) result's row
    return [
        after_leader[most - t if leader_limit else most][by_used(leads, most - t)][None] for t in range(most)
    ]


def _followers(
    rules: Ruleset,
    shape: Shape,
    alike: Alike,
    payoff: FloatArray,
    seats: Sequence[int],
    limits: Sequence[int],
    pot: int,
    shift: IntArray,
    keep: bool,
    place: int = 0,
    narrow: bool = False,
    memo: dict[tuple[int, int], FloatArray] | None = None,
) -> tuple[dict[int, FloatArray], dict[int, list[npt.NDArray[np.int8]]]]:
    """The turns of the players after ``place``, by the followers' limit: ``after[limit][row, stake,
    seat]`` over the rows of ``alike[place]`` (the summaries after ``place``'s result; the classes
    after the last player's), and with ``keep`` each follower's choices (``[t, row, result,
    stake]`` over its own rows, from the first after ``place``). ``narrow`` (counted results, the
    leader's limit): each limit's turns only where the leader's result took as many throws. ``memo``
    (no choices kept, not ``narrow``): the turns already solved in this round, ``memo[(limit, i)]``
    over the rows of ``alike[i]`` once the players after the ``i + 1``-th have played; the turns
    solved here are added to it, for the advice the next player asks."""
    assert memo is None or not (keep or narrow), "choices are kept only where every turn is solved"
    k = shape.players
    width = shift.shape[1]
    later_last = payoff.reshape(-1, pot + 1, payoff.shape[-1])[:, _stakes(width, pot)]  # [class, stake, seat]
    after: dict[int, FloatArray] = {}
    followers: dict[int, list[npt.NDArray[np.int8]]] = {limit: [] for limit in limits}
    if place == k - 1:  # the last player: the classes follow
        return dict.fromkeys(limits, later_last), followers
    masks, bon = alike_ahead(rules, k), shape.bon
    rule = (shift, keep, masks[k - 2], bon)
    kept: dict[tuple[int, int], FloatArray] = {} if memo is None else memo
    counted = shape.throws > 1  # then each limit is a turn of its own
    missing = [limit for limit in limits if (limit, k - 2) not in kept]
    if missing and not counted:  # the last turn of the most throws holds every fewer
        last_out, last_choices = follower(later_last, alike[k - 2][0], seats[k - 1], max(missing), *rule)
    for limit in limits:
        rows = reached(rules, k, limit) if narrow else (None,) * (k - 1)
        if limit in missing:
            if counted:
                last_out, last_choices = follower(
                    later_last, alike[k - 2][0], seats[k - 1], limit, *rule, rows=rows[k - 2]
                )
            kept[(limit, k - 2)] = last_out[limit - 1]
            if last_choices is not None:
                followers[limit].append(last_choices[:limit])
        later = kept[(limit, k - 2)]
        for i in range(k - 2, place, -1):  # the (i + 1)-th player's turn, from the summaries before it
            if (limit, i - 1) not in kept:
                out_i, choices_i = follower(
                    later, alike[i - 1][0], seats[i], limit, shift, keep, masks[i - 1], bon, rows[i - 1]
                )
                kept[(limit, i - 1)] = out_i[limit - 1]
                if choices_i is not None:
                    followers[limit].insert(0, choices_i)
            later = kept[(limit, i - 1)]
        after[limit] = later
    return after, followers


def stop_values(
    shape: Shape,
    payoff: FloatArray,
    seats: Sequence[int],
    most: int,
    leader_limit: bool,
    place: int,
    summary: int,
    limit: int,
    rules: Ruleset,
    cap: int,
    memo: dict[tuple[int, int], FloatArray] | None = None,
    top: int | None = None,
) -> list[FloatArray]:
    """:func:`.game_maxn.stop_values` where every throw adds to the stake: ``stops[r][result, stake]``.
    ``memo``: the later players' turns already solved in this round (:func:`_followers`); ``cap``
    and ``top`` as :func:`play_staked_round`'s."""
    alike = alike_steps(rules, shape.players)
    shift = shifted(rules, cap)
    limits = (list(range(1, most + 1)) if leader_limit else [most]) if place == 0 else [limit]
    after, _ = _followers(
        rules,
        shape,
        alike,
        payoff,
        seats,
        limits,
        rules.pot if top is None else top,
        shift,
        False,
        place,
        memo=memo,
    )
    if place == 0:
        return [found[0, :, :, seats[0]] for found in _leader_stops(alike, after, most, leader_limit)]
    rows, merged = alike[place - 1]
    row = rows[merged[summary]]  # by counted result: stopping with r throws left, limit - r were used
    return [after[limit][by_used(row, limit - r), :, seats[place]] for r in range(limit)]


def _classes(
    shape: Shape,
    alike: Alike,
    leader: list[IntArray],
    followers: dict[int, list[npt.NDArray[np.int8]]],
    limits: list[int],
    leader_limit: bool,
    shift: IntArray,
    full: int,
    most: int,
) -> FloatArray:
    """The chance of each class (holders of the worst, stake), following the play.

    ``followers[limit][i]``: the choices ``[t, row, result, stake]`` of the ``i + 1``-th player
    after the leader, over the rows of ``alike[i]``."""
    width = shift.shape[1]
    start = np.zeros((1, width))
    start[0, 0] = 1.0
    ended = forward(start, leader, most, shift)[:, 0]  # [used - 1, result, stake]
    total = np.zeros((shape.classes, width))
    last = len(alike) - 1
    # where throws are not counted, each limit's last turn is the last throws of the longest one: the
    # last player's turns of every limit are followed at once, each entering with its throws
    merged = len(limits) > 1 and alike[last][0].shape[1] == len(RESULTS)
    entering = np.zeros((max(limits) if merged else 0, len(alike[last][0]), width))
    for limit in limits:
        reach = np.zeros((len(alike[0][0]), width))
        for used in [limit] if leader_limit else range(1, most + 1):  # by the leader's row
            np.add.at(reach, by_used(alike[0][1], used), ended[used - 1])
        for i, (rows, _) in enumerate(alike):
            if merged and i == last:
                entering[limit - 1] = reach
                break
            size = shape.classes if i == last else len(alike[i + 1][0])
            reach = advance(reach, rows, followers[limit][i][:limit], shift, size)
        else:
            total += reach
    if merged:
        total += advance(entering, alike[last][0], followers[max(limits)][last], shift, shape.classes)
    found = np.zeros((shape.classes, full))
    found[:, _stakes(width, full - 1)] = total
    return found.ravel()


def respond(
    rules: Ruleset,
    shape: Shape,
    play: RoundPlay,
    target: FloatArray,
    most: int,
    leader_limit: bool,
    place: int,
    cap: int,
) -> tuple[float, FloatArray]:
    """:func:`.deviation.respond` for a charge round where every throw adds to the stake: the best
    response of the player at ``place`` to the others' choices in ``play`` (:func:`play_staked_round`
    with ``keep``), for ``target[class]`` over its classes; ``cap``: the pot left. Returns the
    responder's value and the chance of each class."""
    k, pot = shape.players, rules.pot
    alike, masks = alike_steps(rules, k), alike_ahead(rules, k)
    shift = shifted(rules, cap)
    limits = list(range(1, most + 1)) if leader_limit else [most]
    assert play.followers is not None and play.leader is not None
    followers: dict[int, list[npt.NDArray[np.int8]]] = {
        limit: [np.stack(c) for c in play.followers[limit]] for limit in limits
    }
    after_leader: dict[int, FloatArray] = {}
    for limit in limits:
        later = target.reshape(-1, pot + 1)[:, _stakes(shift.shape[1], pot), None]  # [class, stake, 1]
        for i in range(k - 1, 0, -1):
            rows = alike[i - 1][0]
            if i == place:
                out, chosen = follower(later, rows, 0, limit, shift, True, masks[i - 1], shape.bon)
                assert chosen is not None
                later, followers[limit][i - 1] = out[limit - 1], chosen
            else:
                later = _followed(later, rows, followers[limit][i - 1], shift)
        after_leader[limit] = later
    stops = _leader_stops(alike, after_leader, most, leader_limit)
    leader = play.leader
    if place == 0:
        values, leader = _turn(stops, 0, shift)
        last = values[most - 1]
    else:
        last = _played_turn(stops, leader, shift)
    value = float(_start(last, shift)[0, 0, 0])  # the stake starts at 0
    return value, _classes(shape, alike, leader, followers, limits, leader_limit, shift, pot + 1, most)


def _followed(
    later: FloatArray, step: IntArray, choices: npt.NDArray[np.int8], shift: IntArray
) -> FloatArray:
    """``[summary, stake before, seat]``: a follower's turn of ``len(choices)`` throws played as
    ``choices[t][summary, result, stake]`` say, in every summary of ``step``."""
    out = np.empty((step.shape[0], *later.shape[1:]))
    for a in range(0, step.shape[0], CHUNK):
        b = min(step.shape[0], a + CHUNK)
        stops = by_throws_left(later, len(choices), step[a:b])
        out[a:b] = _start(_played_turn(stops, list(choices[:, a:b]), shift), shift)
    return out


def _played_turn(
    stops: Sequence[FloatArray], choices: Sequence[npt.NDArray[np.signedinteger]], shift: IntArray
) -> FloatArray:
    """:func:`_turn`'s values with ``len(stops)`` throws, the mover's choices given rather than
    solved: ``[summary, result, stake, seat]``."""
    values = stops[0]
    rows = np.arange(values.shape[0])[:, None, None]
    stakes = np.arange(shift.shape[1])[None, None, :]
    final: FloatArray | None = None  # each keep's value where the next throw's result is final
    for t in range(1, len(stops)):
        cont = np.einsum("kr,crsz->cksz", TRANSITIONS, values[:, _RESULTS[:, None], shift])
        final = _bon_final(final, cont, stops, t, shift)
        assert final is not None
        chosen = np.asarray(choices[t], dtype=np.intp)
        stop, bon = chosen == STOP, chosen >= BON
        keep = np.where(stop, 0, chosen % BON)
        kept = np.where(bon[..., None], final[rows, keep, stakes], cont[rows, keep, stakes])
        values = np.where(stop[..., None], stops[t], kept)
    return values


def _stakes(width: int, pot: int) -> list[int]:
    """The classes' stakes for a round's stakes up to ``width - 1``, the pot left: a stake of the pot
    left or more takes it, as the full pot's would (the smallest stakes end no round)."""
    return [*range(width - 1), pot]


def advance(
    reach: FloatArray, step: IntArray, choices: npt.NDArray[np.int8], shift: IntArray, size: int
) -> FloatArray:
    """``[next summary, stake]``: the chance of each once a follower plays ``choices[t, summary,
    result, stake]`` from ``reach[summary, stake]`` (turns of up to ``len(choices)`` throws). Or
    ``reach[l, summary, stake]``: turns of up to ``l + 1`` throws entering there, each played as the
    last ``l + 1`` throws of ``choices`` (where throws are not counted: every limit's turn is so)."""
    limit = len(choices)
    layered = reach if reach.ndim == 3 else np.concatenate([np.zeros((limit - 1, *reach.shape)), reach[None]])
    assert len(layered) == limit and (step.shape[1] == len(RESULTS) or not layered[:-1].any())
    kernel = _kernels()
    if kernel is None:
        found = np.zeros((size, reach.shape[-1]))
        for entered in range(1, limit + 1):  # counted: by the throws used
            if not layered[entered - 1].any():  # no turn of this many throws
                continue
            ended = forward(layered[entered - 1], list(choices[:entered]), entered, shift)
            for used in range(1, entered + 1):
                found += onward(by_used(step, used), ended[used - 1], size)
        return found
    # Each half of the summaries adds into a table of its own, on a core of its own where there are
    # two: halves fixed by the count alone, so that the sums are the same on any machine.
    contexts = reach.shape[-2]
    halves = 2 if contexts >= 2 * MIN_PART else 1
    outs = np.zeros((halves, size, reach.shape[-1]))
    contiguous = (np.ascontiguousarray(a) for a in (layered, step, choices))  # one compiled kernel, as above
    asked = (*contiguous, limit, shift, CHILDREN, LEAVES, FRESH, step.shape[1] > len(RESULTS))
    shared(contexts, lambda a, b: kernel[1](*asked, outs[int(a > 0)], a, b), halves)
    return np.asarray(outs.sum(axis=0), dtype=np.float64)


# -- compiled with numba where it is installed: the same turns as the numpy above ------------------

_compiled: list[Any] = []


def _kernels() -> tuple[Any, Any] | None:
    """The compiled turn and advance, or None without numba."""
    if not _compiled:
        try:
            from numba import njit
        except ImportError:
            _compiled.append(None)
        else:
            _compiled.append(
                (njit(cache=True, nogil=True)(_turn_loops), njit(cache=True, nogil=True)(_advance_loops))
            )
    found: tuple[Any, Any] | None = _compiled[0]
    return found


def _turn_loops(
    later: Any,
    seats: int,
    step: Any,
    mover: int,
    throws: int,
    shift: Any,
    keep_choices: Any,
    choices_count: Any,
    children: Any,
    leaves: int,
    fresh: Any,
    eps: float,
    ahead: Any,
    free: bool,
    bon: bool,
    counted: bool,
    out: Any,
    keep: bool,
    choices: Any,
    start: int,
    stop: int,
) -> None:  # pragma: no cover - compiled by numba; the same turns as _numpy_follower
    """The turns of summaries ``start`` to ``stop - 1``, written into ``out`` (and ``choices``).

    ``later[next summary, stake * seats + seat]`` and ``out[limit - 1, summary, stake * seats +
    seat]``: every seat's value at every stake, one row. A keep's value is the mean over the six
    faces of keeping one die more (CHILDREN); once three dice are held, the result's value at the
    stake with its value added. The mover stops with throws left only where ``free`` or
    ``ahead[summary, result]``; with ``bon``, « le bon » (a keep plus the number of keeps) is
    weighed: each keep's value with one throw left. ``counted``: a column per counted result,
    stopping with ``t`` throws left worth what ``throws - t`` used make it, and only the limit
    ``throws`` written.

    Summaries that lead alike differ only in where the mover may stop (players behind must throw
    on), and the rows of such summaries come one after another: what does not depend on where the
    mover may stop (what stopping is worth, the turn's last throw, the first throw's keeps and best
    choice, « le bon »'s keeps and best choice) is worked out for the first of them only. Where
    players behind must throw on, such summaries mostly differ by one result more the mover may stop
    on (the best so far lower): with one throw left, only the results where it may stop otherwise
    are chosen again, and with two left only the keeps that lead to a result whose choice changed
    are worked out again (the others' values are the row before's, the same numbers).

    Each sum runs over whole rows of stakes, and each choice over all the stakes of a result at
    once, so that the compiler can work on several stakes at a time: every number is summed in the
    same order as stake by stake, so the same to the last bit.
    """
    results = fresh.shape[0]
    span = later.shape[1]
    width = span // seats
    keeps = children.shape[0]
    base = np.empty(results, np.int64)
    run = np.empty(results, np.int64)  # stakes 0 to run - 1 lead to base + stake
    for res in range(results):
        base[res] = shift[res, 0]
        n = 1
        while n < width and shift[res, n] == base[res] + n:
            n += 1
        run[res] = n
    # every row below: a stake's seats side by side, stake after stake
    values = np.empty((throws, results, span))
    stops = np.empty((throws if counted else 1, results, span))  # stopping, by throws left
    first = np.empty((keeps, span))  # each keep's value with one throw left
    best_first = np.empty((results, width))  # the mover's best of them, and which (the first within eps)
    pick_first = np.empty((results, width), np.int64)
    cont = np.empty((keeps, span))  # each keep's value with three throws left or more
    second = np.empty((keeps, span))  # with two throws left
    made = np.empty((throws, keeps, span))  # counted: each keep as « le bon », by throws left
    last = np.empty(span)  # the turn of one throw, from each stake
    acc = np.empty(span)  # a row being summed
    mine = np.empty((2, keeps, width))  # the mover's value of each keep (then as « le bon »), by stake
    bests = np.empty((2, width))  # by stake: the best keep's value and the keep (then « le bon »'s)
    picks = np.empty((2, width), np.int64)
    chosen = np.empty((throws, results, width), np.int8)
    bon_best = np.empty((throws, results, width))  # counted: « le bon »'s best keep, by throws left
    bon_pick = np.empty((throws, results, width), np.int64)
    allowed_at = np.zeros(results, np.bool_)  # where the mover could stop with one throw left, row before
    changed = np.ones(results, np.bool_)  # the results whose value with one throw left is new in this row
    dirty = np.ones(keeps, np.bool_)  # the keeps whose value with two throws left is new in this row
    for c in range(start, stop):
        same = c > start  # leads as the summary before: only where it may stop can differ
        if same:
            for j in range(step.shape[1]):
                if step[c, j] != step[c - 1, j]:
                    same = False
                    break
        if not same:
            for t in range(stops.shape[0]):
                used = (throws - t - 1) * results if counted else 0
                for r in range(results):
                    row = step[c, r + used]
                    for i in range(span):
                        stops[t, r, i] = later[row, i]
            for r in range(results):
                for i in range(span):
                    values[0, r, i] = stops[0, r, i]
                for s in range(width):
                    chosen[0, r, s] = -1
        for t in range(1, throws):
            weigh = bon and t > 1
            if t == 2:  # a keep's value changes only where a result it may lead to changed
                for k in range(keeps - 1, -1, -1):
                    new = not same
                    for face in range(6):
                        new = new or (changed[children[k, face]] if k >= leaves else dirty[children[k, face]])
                    dirty[k] = new
            # the keeps' values (pass 0: from the turn with one throw less, worked out once for the
            # summaries that lead alike with one throw left); counted, « le bon »'s too (pass 1), its
            # result made in one throw more, from what stopping is worth: once for them as well
            for part in range(2):
                if part == 0:
                    if t == 1 and same:
                        continue
                    into = first if t == 1 else second if t == 2 else cont
                    source = values
                else:
                    if same or not (counted and weigh):
                        continue
                    into = made[t]
                    source = stops
                for k in range(keeps - 1, -1, -1):
                    if part == 0 and t == 2 and not dirty[k]:
                        continue
                    for i in range(span):
                        acc[i] = 0.0
                    if k >= leaves:
                        for face in range(6):
                            res = children[k, face]
                            run_start = base[res] * seats
                            for i in range(run[res] * seats):
                                acc[i] += source[t - 1, res, i + run_start]
                            for s in range(run[res], width):
                                cell = shift[res, s] * seats
                                for z in range(seats):
                                    acc[s * seats + z] += source[t - 1, res, cell + z]
                    else:
                        for face in range(6):
                            child = children[k, face]
                            for i in range(span):
                                acc[i] += into[child, i]
                    for i in range(span):
                        into[k, i] = acc[i] / 6.0
            if t == 1 and not same:
                for r in range(results):
                    for s in range(width):
                        m = s * seats + mover
                        best = first[keep_choices[r, 0], m]
                        for j in range(1, choices_count[r]):
                            best = max(best, first[keep_choices[r, j], m])
                        best_first[r, s] = best
                        pick_first[r, s] = keep_choices[r, 0]  # as before, whatever the values
                        for j in range(choices_count[r]):
                            if first[keep_choices[r, j], m] >= best - eps:
                                pick_first[r, s] = keep_choices[r, j]
                                break
            kept = first if t == 1 else second if t == 2 else cont
            bons = made[t] if counted else first  # « le bon »: its throw's result final
            at = t if counted else 0
            off = (throws - t - 1) * results if counted else 0
            # the first throw's best keeps are best_first's: its keeps are not read again (nor weighed)
            # « le bon »'s keeps are the same for the summaries that lead alike: their best, once
            for part in range(1 if t == 1 else 0, 2 if weigh and counted and not same else 1):
                whole = kept if part == 0 else bons
                for k in range(keeps):
                    for s in range(width):
                        mine[part, k, s] = whole[k, s * seats + mover]
            for r in range(results):
                allowed = free or ahead[c, r + off]
                if t == 1:  # as in the row before where it may stop as there
                    if same and allowed == allowed_at[r]:
                        changed[r] = False
                        continue
                    allowed_at[r] = allowed
                    changed[r] = not same
                count = choices_count[r]
                k0 = keep_choices[r, 0]
                for part in range(2 if weigh else 1):  # a plain throw's keeps, then « le bon »'s
                    if part == 0 and t == 1:  # worked out once for the summaries that lead alike
                        for s in range(width):
                            bests[0, s] = best_first[r, s]
                            picks[0, s] = pick_first[r, s]
                        continue
                    if part == 1 and not (counted and not same):  # worked out once for them as well
                        for s in range(width):
                            bests[1, s] = best_first[r, s] if not counted else bon_best[t, r, s]
                            picks[1, s] = pick_first[r, s] if not counted else bon_pick[t, r, s]
                        continue
                    for s in range(width):
                        bests[part, s] = mine[part, k0, s]
                    for j in range(1, count):
                        kj = keep_choices[r, j]
                        for s in range(width):
                            bests[part, s] = max(bests[part, s], mine[part, kj, s])
                    for s in range(width):
                        picks[part, s] = k0
                    for j in range(count - 1, -1, -1):  # the first within eps of the best
                        kj = keep_choices[r, j]
                        for s in range(width):
                            if mine[part, kj, s] >= bests[part, s] - eps:
                                picks[part, s] = kj
                    if part == 1:
                        for s in range(width):
                            bon_best[t, r, s] = bests[1, s]
                            bon_pick[t, r, s] = picks[1, s]
                for s in range(width):
                    was = chosen[t, r, s]
                    best = bests[0, s]
                    bbest = bests[1, s] if weigh else best
                    if allowed and stops[at, r, s * seats + mover] >= max(best, bbest) - eps:
                        chosen[t, r, s] = -1
                        for z in range(seats):
                            values[t, r, s * seats + z] = stops[at, r, s * seats + z]
                    elif weigh and bbest > best + eps:  # « le bon »: only where worth more than every throw
                        k = picks[1, s]
                        chosen[t, r, s] = k + keeps
                        for z in range(seats):
                            values[t, r, s * seats + z] = bons[k, s * seats + z]
                    else:
                        k = picks[0, s]
                        chosen[t, r, s] = k
                        for z in range(seats):
                            values[t, r, s * seats + z] = kept[k, s * seats + z]
                    if t == 1 and chosen[t, r, s] != was:  # the keeps it leads from, to work out again
                        changed[r] = True
        for limit in range(throws if counted else 1, throws + 1):
            ended = last if limit == 1 else acc
            if limit > 1 or not same:  # the turn of one throw: the same for summaries that lead alike
                for i in range(span):
                    ended[i] = 0.0
                for r in range(results):
                    f = fresh[r]
                    run_start = base[r] * seats
                    for i in range(run[r] * seats):
                        ended[i] += f * values[limit - 1, r, i + run_start]
                    for s in range(run[r], width):
                        cell = shift[r, s] * seats
                        for z in range(seats):
                            ended[s * seats + z] += f * values[limit - 1, r, cell + z]
            for i in range(span):
                out[limit - 1, c, i] = ended[i]
        if keep:
            for t in range(throws):
                for r in range(results):
                    for s in range(width):
                        choices[t, c, r, s] = chosen[t, r, s]


def _advance_loops(
    reach: Any,
    step: Any,
    choices: Any,
    limit: int,
    shift: Any,
    children: Any,
    leaves: int,
    fresh: Any,
    counted: bool,
    out: Any,
    start: int,
    stop: int,
) -> None:  # pragma: no cover - compiled by numba; the same chances as forward and onward
    """Add to ``out[next summary, stake]`` where the turns of summaries ``start`` to ``stop - 1`` end,
    from ``reach[l, summary, stake]``, the turns of up to ``l + 1`` throws entering with ``l`` throws
    left after their first; « le bon » (a keep plus the number of keeps): the next throw's result ends
    the turn. ``counted``: a column per counted result, by the throws used (one limit only)."""
    width = reach.shape[2]
    results = fresh.shape[0]
    keeps = children.shape[0]
    holding = np.empty((results, width))
    mass = np.empty((2 * keeps, width))  # by keep, then by keep thrown as « le bon »
    for c in range(start, stop):
        reached = False
        for entered in range(limit):
            for s0 in range(width):
                reached = reached or reach[entered, c, s0] != 0.0
        if not reached:
            continue
        for r in range(results):
            for s in range(width):
                holding[r, s] = 0.0
        for used in range(1, limit + 1):
            t = limit - used
            for s0 in range(width):  # the turns of t + 1 throws start here
                p = reach[t, c, s0]
                if p != 0.0:
                    for r in range(results):
                        holding[r, shift[r, s0]] += p * fresh[r]
            off = (used - 1) * results if counted else 0  # stopping now; « le bon », one throw more
            later = used * results if counted else 0
            for k in range(2 * keeps):
                for s in range(width):
                    mass[k, s] = 0.0
            for r in range(results):
                for s in range(width):
                    h = holding[r, s]
                    if h == 0.0:
                        continue
                    choice = -1 if t == 0 else choices[t, c, r, s]
                    if choice < 0:
                        out[step[c, r + off], s] += h
                    else:
                        mass[choice, s] += h
                    holding[r, s] = 0.0
            if t == 0:
                break
            for k in range(2 * keeps):  # no dice kept, then one, then two: each passes its chance on
                bon, kept = k >= keeps, k % keeps
                for s in range(width):
                    share = mass[k, s] / 6.0
                    if share == 0.0:
                        continue
                    if kept >= leaves:
                        for face in range(6):
                            res = children[kept, face]
                            if bon:  # « le bon »: the result thrown ends the turn
                                out[step[c, res + later], shift[res, s]] += share
                            else:
                                holding[res, shift[res, s]] += share
                    else:
                        for face in range(6):
                            mass[children[kept, face] + k - kept, s] += share
