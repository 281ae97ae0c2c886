"""The turns of the players after the leader, for every summary at once (:mod:`.game_maxn`).

A follower's turn, given what each final result is worth to every seat
(``later[next summary, seat]`` and ``step[summary, result]``), is solved for
the mover's own seat by backward induction over the throws left, and played
forward to the chance of each final result. A turn of ``throws`` throws
holds the turns of fewer: the mover's choices with ``r`` throws left are
the same whatever the limit (the values of stopping do not depend on it), so
one solve gives every limit; except under « qui barre démarre », where a
result made in fewer throws is worth more (a column of ``step`` per result
and throws used): there each limit is solved on its own (under the leader's
limit, on the summaries it reaches: :meth:`.game_maxn.Shape.reached`).

Ties within EPS: stop rather than throw, then the first keep of
KEEP_CHOICES (more dice first), as :mod:`.rounds` plays. Where players
behind must throw on, a mover stops only where ``ahead`` says; under « qui
barre démarre » they may then declare « le bon » (a keep plus 28), chosen
only where worth more than every plain throw by more than EPS.

Compiled with numba when it is installed (the ``sim`` extra): the dice a
keep leaves are then thrown one at a time (:data:`CHILDREN`), each keep's
value the mean of six, and the summaries are shared among the cores. Without
numba the same turns are solved with numpy.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from ..core.dice import Result
from ..core.errors import InvalidParameter, Message
from .keeps import INDEX, KEEP_INDEX, KEEPS
from .rounds import EPS, FRESH, KEEP_CHOICES, STOP
from .tables import TRANSITIONS, FloatArray

IntArray = npt.NDArray[np.intp]
Choices = npt.NDArray[np.signedinteger[Any]]  # STOP or a keep: int8 compiled, intp from numpy
Turns = tuple[FloatArray, FloatArray, Choices]  # out[limit - 1], final[limit - 1], choices[r]

CHOICES_COUNT = np.array([len(set(row)) for row in KEEP_CHOICES.tolist()], dtype=np.intp)  # per result
_NONZERO = [np.flatnonzero(row) for row in TRANSITIONS]
_T_START = np.cumsum([0] + [len(nz) for nz in _NONZERO]).astype(np.intp)
_T_RESULT = np.concatenate(_NONZERO).astype(np.intp)
_T_CHANCE = np.concatenate([TRANSITIONS[k, nz] for k, nz in enumerate(_NONZERO)])
# Each keep's row of TRANSITIONS: where it leads (from T_START[keep] to T_START[keep + 1]), with what chance.
# The fast simulator's optimal bot values its keeps with them (py421.sim.fast.maxn), choosing by the same
# rule as these loops; its sums, in another order, may differ from theirs in the last bits only.
SPARSE = (_T_START, _T_RESULT, _T_CHANCE)
assert STOP == -1  # the compiled loops write -1 for STOP


def _one_die_more() -> tuple[IntArray, int]:
    """``children[keep, face]``: what keeping one die more, showing ``face``, makes of ``keep``: a keep
    of one die more, or the result once three are kept (keeps of two dice, from index ``leaves`` on).

    Throwing the dice a keep leaves is throwing one of them, then the others: a keep is worth the
    mean, over the six faces, of keeping that die too, and the chance of holding a keep passes a
    sixth to each face. 168 sums a throw, where TRANSITIONS has 308 nonzero chances.
    """
    children = np.empty((len(KEEPS), 6), dtype=np.intp)
    for k, keep in enumerate(KEEPS):
        for face in range(1, 7):
            more = tuple(sorted((*keep, face), reverse=True))
            children[k, face - 1] = INDEX[Result.of(more)] if len(more) == 3 else KEEP_INDEX[more]
    sizes = [len(keep) for keep in KEEPS]
    # keeps of fewer dice come first: a pass from the last keep back meets each keep after its children
    assert sizes == sorted(sizes)
    leaves = sizes.index(2)
    assert all(children[k].min() > k for k in range(leaves))
    return children, leaves


CHILDREN, LEAVES = _one_die_more()


# Where a player may stop with throws left, [summary, counted result] (players behind must throw on:
# :attr:`.game_maxn.Shape.ahead`); None: everywhere.
Ahead = npt.NDArray[np.bool_] | None
_ANYWHERE = np.ones((1, 1), dtype=np.bool_)  # what the compiled loops read where None is said


def follower_turns(
    later: FloatArray,
    step: IntArray,
    mover: int,
    throws: int,
    first_limit: int = 2,
    ahead: Ahead = None,
    bon: bool = False,
) -> Turns:
    """Solve a follower's turn of up to ``throws`` throws in every summary.

    Returns ``out[limit - 1, summary, seat]``: every seat's value when the
    mover has ``limit`` throws (rows from ``first_limit`` up are filled: one
    throw is handled by the caller, and a caller that needs one limit asks
    only for it); ``final[limit - 1, summary, result]``: the chance of ending
    on each result (the same rows); ``choices[r, summary, result]``: STOP or a keep.

    Where ``step`` has a column per counted result (« qui barre démarre »,
    :func:`.game_maxn.counted`), stopping is worth what the throws used make
    of the result, which differs by the limit: only the limit ``throws`` is
    solved, and ``final`` is by counted result. ``ahead`` (as ``step``): where
    the mover may stop with throws left; ``bon`` (counted results only): « le bon »
    is weighed, and played (a keep plus 28) only where worth more than every plain
    throw.
    """
    kernel = _kernel()
    if kernel is None:
        return _numpy_turns(later, step, mover, throws, ahead, bon)
    contexts, counted = step.shape
    final = np.zeros((throws, contexts, counted))
    choices = np.empty((throws, contexts, len(FRESH)), np.int8)  # all written by the loops; keeps: 0 to 27
    out = _compiled_turns(kernel, later, step, mover, throws, first_limit, final, choices, ahead, bon)
    return out, final, choices


def follower_values(
    later: FloatArray,
    step: IntArray,
    mover: int,
    throws: int,
    first_limit: int = 2,
    ahead: Ahead = None,
    bon: bool = False,
) -> FloatArray:
    """``out`` of :func:`follower_turns` alone, as a sweep needs it: the final chances and the
    choices are not kept (at four players they would be tens of megabytes a turn)."""
    kernel = _kernel()
    if kernel is None:
        return _numpy_turns(later, step, mover, throws, ahead, bon)[0]
    unkept = np.empty((0, 0, 0))
    chosen = unkept.astype(np.int8)
    return _compiled_turns(kernel, later, step, mover, throws, first_limit, unkept, chosen, ahead, bon)


def reached_from(
    first: IntArray, steps: Sequence[IntArray], limit: int
) -> tuple[list[IntArray], list[IntArray]]:
    """The summaries a round reaches from the summaries ``first`` after the leader's result, where no
    result is made in more than ``limit`` throws (counted results): ``rows[i]``, the summaries
    ``steps[i]`` starts from, and ``narrow[i][j, result]``, where ``rows[i][j]`` leads: the
    position in ``rows[i + 1]`` (the class, after the last step), results up to ``limit`` throws."""
    columns = limit * len(FRESH)
    rows, narrow = [first], []
    for i, step in enumerate(steps):
        table = step[rows[-1], :columns]
        if i == len(steps) - 1:
            narrow.append(np.ascontiguousarray(table))
            break
        onward, at = np.unique(table, return_inverse=True)
        rows.append(onward.astype(np.intp))
        narrow.append(at.reshape(table.shape).astype(np.intp))
    return rows, narrow


def scattered(part: npt.NDArray[Any], rows: IntArray, size: int, fill: int = 0) -> npt.NDArray[Any]:
    """``part[:, j]`` (a turn of the summaries ``rows``) at ``rows[j]`` among ``size`` summaries."""
    whole = np.full((part.shape[0], size, *part.shape[2:]), fill, part.dtype)
    whole[:, rows] = part
    return whole


def _compiled_turns(
    kernel: Any,
    later: FloatArray,
    step: IntArray,
    mover: int,
    throws: int,
    first_limit: int,
    final: FloatArray,
    choices: Choices,
    ahead: Ahead,
    bon: bool,
) -> FloatArray:
    contexts = step.shape[0]
    out = np.zeros((throws, contexts, later.shape[1]))
    keep = final.size > 0
    counted = step.shape[1] > len(FRESH)
    if counted:  # counted results: the one limit solved is ``throws``
        first_limit = throws
    # contiguous whatever the caller sliced: numba compiles a kernel again (seconds of CPU) for
    # each layout of its arrays, where a copy costs next to nothing
    where = _ANYWHERE if ahead is None else np.ascontiguousarray(ahead)
    turn = (np.ascontiguousarray(later), np.ascontiguousarray(step), mover, throws, max(first_limit, 2))
    asked = (
        *turn,
        KEEP_CHOICES,
        CHOICES_COUNT,
        CHILDREN,
        LEAVES,
        where,
        ahead is None,
        bon and counted,
    )

    def solve(start: int, stop: int) -> None:
        kernel(*asked, FRESH, EPS, out, keep, final, choices, start, stop)

    shared(contexts, solve)
    return out


def shared(contexts: int, solve: Callable[[int, int], None], parts: int | None = None) -> None:
    """``solve(start, stop)`` for every summary from 0 to ``contexts``, split among the cores.

    Each summary's turn is its own: each part is written by one thread (the compiled loops let go
    of the GIL), the same numbers as one thread would write. ``parts``: that many parts whatever
    the cores (for sums that must not depend on the machine), one after another where one thread
    only is allowed.
    """
    if parts is None:
        parts = min(_threads_allowed(), contexts // MIN_PART)
    if parts < 2:
        solve(0, contexts)
        return
    bounds = np.linspace(0, contexts, parts + 1).astype(int).tolist()
    if _threads_allowed() < 2:
        for a, b in itertools.pairwise(bounds):
            solve(a, b)
        return
    done = [_pool().submit(solve, a, b) for a, b in itertools.pairwise(bounds)]
    for part in done:
        part.result()


def _numpy_turns(
    later: FloatArray, step: IntArray, mover: int, throws: int, ahead: Ahead = None, bon: bool = False
) -> Turns:
    contexts, counted = step.shape
    results = len(FRESH)
    keeps = TRANSITIONS.shape[0]
    gathered = later[step]  # [summary, counted result, seat]

    def stops_with(r: int) -> FloatArray:
        """Stopping with ``r`` throws left; counted results: ``throws - r`` were used."""
        shift = 0 if counted == results else (throws - r - 1) * results
        return gathered[:, shift : shift + results, mover]

    def allowed(r: int) -> npt.NDArray[np.bool_]:
        """Where the mover may stop with ``r`` throws left."""
        if ahead is None:
            return np.ones((contexts, results), dtype=np.bool_)
        shift = 0 if counted == results else (throws - r - 1) * results
        return ahead[:, shift : shift + results]

    own = stops_with(0)
    choices = np.full((throws, contexts, results), STOP, np.intp)
    columns = np.arange(results)
    for r in range(1, throws):
        stops = stops_with(r)
        candidates = (own @ TRANSITIONS.T)[:, KEEP_CHOICES]  # [summary, result, choice]
        best = candidates.max(axis=-1)
        first = np.argmax(candidates >= best[..., None] - EPS, axis=-1)
        pick = KEEP_CHOICES[columns, first]
        top = best
        if bon and counted > results and r > 1:  # « le bon »: the result thrown is final, with r - 1 left
            finals = (stops_with(r - 1) @ TRANSITIONS.T)[:, KEEP_CHOICES]
            bbest = finals.max(axis=-1)
            bfirst = np.argmax(finals >= bbest[..., None] - EPS, axis=-1)
            better = bbest > best + EPS  # only where worth more than every plain throw
            top = np.where(better, bbest, best)
            pick = np.where(better, KEEP_CHOICES[columns, bfirst] + keeps, pick)
            best = np.maximum(best, bbest)
        stop = (stops >= best - EPS) & allowed(r)
        own = np.where(stop, stops, top)
        choices[r] = np.where(stop, STOP, pick)
    rows = np.arange(contexts)[:, None] * 2 * keeps
    final = np.zeros((throws, contexts, counted))
    out = np.zeros((throws, contexts, later.shape[1]))
    for limit in range(2 if counted == results else throws, throws + 1):
        holding = np.tile(FRESH, (contexts, 1))
        for used in range(1, limit + 1):
            r = limit - used
            shift = 0 if counted == results else (used - 1) * results
            if r == 0:
                final[limit - 1, :, shift : shift + results] += holding
                break
            stop = choices[r] == STOP
            final[limit - 1, :, shift : shift + results] += np.where(stop, holding, 0.0)
            flat = (rows + np.where(stop, 0, choices[r])).ravel()
            mass = np.bincount(flat, np.where(stop, 0.0, holding).ravel(), minlength=contexts * 2 * keeps)
            mass = mass.reshape(contexts, 2 * keeps)
            holding = mass[:, :keeps] @ TRANSITIONS
            if bon and counted > results:  # « le bon »: made in one throw more, and final
                final[limit - 1, :, shift + results : shift + 2 * results] += mass[:, keeps:] @ TRANSITIONS
        out[limit - 1] = np.einsum("cr,crs->cs", final[limit - 1], gathered)
    return out, final, choices


def spread(step: IntArray, final: FloatArray, reach: FloatArray, size: int) -> FloatArray:
    """``out[next summary]``: the chance of reaching each summary after a follower's turn, from the
    chance ``reach[summary]`` of each summary before it and ``final[summary, result]`` of its results.

    The same sums as ``np.bincount(step.ravel(), (reach[:, None] * final).ravel(), size)``, in the
    same order, compiled where numba is.
    """
    compiled = _kernel()
    if compiled is None:
        weighted = np.bincount(step.ravel(), (reach[:, None] * final).ravel(), minlength=size)
        return np.asarray(weighted, dtype=np.float64)  # floats already: weights make them so
    out = np.zeros(size)
    _compiled_spread[0](step, final, reach, out)
    return out


_compiled: list[Any] = []
_compiled_spread: list[Any] = []
MIN_PART = 64  # summaries a thread takes at least: fewer cost more to hand over than to solve
_threads: list[ThreadPoolExecutor] = []
_side: list[ThreadPoolExecutor] = []  # the threads of :func:`side_by_side`, apart from the turns' parts
_Item = TypeVar("_Item")
_Solved = TypeVar("_Solved")


THREADS_VARIABLE = "PY421_THREADS"


def _threads_allowed() -> int:
    """How many threads may share a turn: one per core this process may use, or one only if its
    memory is capped (a server's worker): each thread's stack and heap would count against the cap.

    ``PY421_THREADS`` caps them: processes that already fill the cores together (test workers,
    several solves at once) each do better in one thread than handing parts over."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX: no cap
        pass
    else:
        if resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY:
            return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    said = os.environ.get(THREADS_VARIABLE, "").strip()
    if not said:
        return cores
    if not said.isdecimal() or int(said) < 1:  # isdigit would let « ² » through to int()
        raise InvalidParameter(Message("solve.threads", {"variable": THREADS_VARIABLE, "got": repr(said)}))
    return min(cores, int(said))


def _pool() -> ThreadPoolExecutor:
    """Threads for the parts of a turn, one per core this process may use, started when first needed."""
    if not _threads:
        _threads.append(ThreadPoolExecutor(_threads_allowed(), thread_name_prefix="py421-turns"))
    return _threads[0]


def side_by_side(solve: Callable[[_Item], _Solved], items: Sequence[_Item]) -> Iterator[_Solved]:
    """``solve(item)`` for each of ``items``, in order, several at once where more than one thread is
    allowed: for items that do not depend on one another (the rounds of a charge level that only
    leads down). While one waits on its turns' parts, another works out what is not a turn (its
    payoffs, the leader's turn, where it leads), which one thread would do in between."""
    threads = _threads_allowed()
    if threads < 2 or len(items) < 2:
        return map(solve, items)
    if not _side:
        _side.append(ThreadPoolExecutor(threads, thread_name_prefix="py421-rounds"))
    return _side[0].map(solve, items)


def _forget_threads() -> None:
    _threads.clear()
    _side.clear()


if hasattr(os, "register_at_fork"):  # a forked child has none of its parent's threads: its own pools
    os.register_at_fork(after_in_child=_forget_threads)


def _kernel() -> Any:
    """The compiled turns, or None without numba."""
    if not _compiled:
        try:
            from numba import njit
        except ImportError:
            _compiled.append(None)
        else:
            _compiled.append(njit(cache=True, nogil=True)(_loops))
            _compiled_spread.append(njit(cache=True, nogil=True)(_spread))
    return _compiled[0]


def _spread(step: Any, final: Any, reach: Any, out: Any) -> None:  # pragma: no cover - compiled
    for c in range(step.shape[0]):
        if reach[c] == 0.0:
            continue
        for res in range(step.shape[1]):
            if final[c, res] != 0.0:  # adding 0.0 changes no sum: left out, the same numbers
                out[step[c, res]] += reach[c] * final[c, res]


def _loops(
    later: Any,
    step: Any,
    mover: int,
    throws: int,
    first_limit: int,
    keep_choices: Any,
    choices_count: Any,
    children: Any,
    leaves: int,
    ahead: Any,
    free: bool,
    bon: bool,
    fresh: Any,
    eps: float,
    out: Any,
    keep: bool,
    final: Any,
    choices: Any,
    start: int,
    stop: int,
) -> None:  # pragma: no cover - compiled by numba; the same turns as _numpy_turns
    """The turns of summaries ``start`` to ``stop - 1``, written into ``out``, and with ``keep``
    into ``final`` and ``choices`` too. ``bon``: « le bon » is weighed (counted results only)."""
    results = fresh.shape[0]
    counted = step.shape[1]  # results, or results times the throws told apart (one limit asked)
    seats = later.shape[1]
    keeps = children.shape[0]
    stops = np.empty(results)
    before = np.empty(results)  # stopping with one throw less left: a result « le bon » makes final
    own = np.empty(results)
    nxt = np.empty(results)
    cont = np.empty(keeps)
    bcont = np.empty(keeps)  # each keep as « le bon »
    holding = np.empty(results)
    bheld = np.empty(results)
    mass = np.empty(keeps)
    bmass = np.empty(keeps)
    ended = np.empty(counted)  # one limit's final chances, in this summary
    chosen = np.empty((throws, results), np.int8)  # this summary's choices
    for c in range(start, stop):
        for res in range(results):
            at = res if counted == results else res + (throws - 1) * results  # stopped on the last throw
            stops[res] = later[step[c, at], mover]
            own[res] = stops[res]
            chosen[0, res] = -1  # no throw left: stop
        for r in range(1, throws):
            weigh = bon and r > 1
            for res in range(results):
                before[res] = stops[res]
            if counted > results:  # stopping with r throws left: throws - r used
                for res in range(results):
                    stops[res] = later[step[c, res + (throws - r - 1) * results], mover]
            for k in range(keeps - 1, -1, -1):  # two dice kept, then one, then none
                total = 0.0
                if k >= leaves:
                    for face in range(6):
                        total += own[children[k, face]]
                else:
                    for face in range(6):
                        total += cont[children[k, face]]
                cont[k] = total / 6.0
            if weigh:  # each keep as « le bon »: its result stopped on, with one throw less left
                for k in range(keeps - 1, -1, -1):
                    total = 0.0
                    if k >= leaves:
                        for face in range(6):
                            total += before[children[k, face]]
                    else:
                        for face in range(6):
                            total += bcont[children[k, face]]
                    bcont[k] = total / 6.0
            for res in range(results):
                best = cont[keep_choices[res, 0]]
                for j in range(1, choices_count[res]):
                    best = max(best, cont[keep_choices[res, j]])
                bbest = -np.inf
                if weigh:
                    for j in range(choices_count[res]):
                        bbest = max(bbest, bcont[keep_choices[res, j]])
                at = res if counted == results else res + (throws - r - 1) * results
                if stops[res] >= max(best, bbest) - eps and (free or ahead[c, at]):
                    nxt[res] = stops[res]
                    chosen[r, res] = -1
                elif bbest > best + eps:  # « le bon »: only where worth more than every plain throw
                    nxt[res] = bbest
                    for j in range(choices_count[res]):
                        if bcont[keep_choices[res, j]] >= bbest - eps:
                            chosen[r, res] = keep_choices[res, j] + keeps
                            break
                else:
                    nxt[res] = best
                    for j in range(choices_count[res]):
                        if cont[keep_choices[res, j]] >= best - eps:
                            chosen[r, res] = keep_choices[res, j]
                            break
            for res in range(results):
                own[res] = nxt[res]
        for limit in range(first_limit, throws + 1):
            for res in range(results):
                holding[res] = fresh[res]
            for res in range(counted):
                ended[res] = 0.0
            for used in range(1, limit + 1):
                r = limit - used
                shift = 0 if counted == results else (used - 1) * results
                if r == 0:
                    for res in range(results):
                        ended[res + shift] += holding[res]
                    break
                for k in range(keeps):
                    mass[k] = 0.0
                    bmass[k] = 0.0
                for res in range(results):
                    choice = chosen[r, res]
                    if choice < 0:
                        ended[res + shift] += holding[res]
                    elif choice >= keeps:  # « le bon »: the next throw's result is final
                        bmass[choice - keeps] += holding[res]
                    else:
                        mass[choice] += holding[res]
                for res in range(results):
                    holding[res] = 0.0
                    bheld[res] = 0.0
                for k in range(keeps):  # no dice kept, then one, then two: each passes its chance on
                    if mass[k] != 0.0:
                        share = mass[k] / 6.0
                        if k >= leaves:
                            for face in range(6):
                                holding[children[k, face]] += share
                        else:
                            for face in range(6):
                                mass[children[k, face]] += share
                    if bmass[k] != 0.0:
                        share = bmass[k] / 6.0
                        if k >= leaves:
                            for face in range(6):
                                bheld[children[k, face]] += share
                        else:
                            for face in range(6):
                                bmass[children[k, face]] += share
                if bon:
                    for res in range(results):
                        ended[res + shift + results] += bheld[res]  # made in one throw more
            for res in range(counted):
                p = ended[res]
                if p != 0.0:
                    row = step[c, res]
                    for s in range(seats):
                        out[limit - 1, c, s] += p * later[row, s]
            if keep:
                for res in range(counted):
                    final[limit - 1, c, res] = ended[res]
        if keep:
            for r in range(throws):
                for res in range(results):
                    choices[r, c, res] = chosen[r, res]
