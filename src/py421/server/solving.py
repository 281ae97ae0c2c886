"""A line of solves for a worker process: estimated first, a bounded wait, every verdict remembered.

A table with ``bot:optimal`` or hints needs its rules solved before it is
created, which takes from milliseconds to hours. Nothing of it may be
offered to anyone for free:

- **Estimated at once.** :func:`py421.solver.cost.solve_cost` counts the
  positions the worker would solve, without solving; at this machine's rate
  (measured once, on a small reference) rules beyond the server's budget of
  time or memory are refused before any work.
- **Remembered.** The verdict on a ruleset (solved, or refused and why) is
  kept: the same rules are never tried twice (a worker's refusal, which the
  machine's load may have caused, for an hour).
- **A bounded line.** Solves run one at a time in a thread of the line's own,
  which waits on the worker; when ``Budget.queue`` wait already, another is
  refused at once (``*_busy``, with ``Retry-After``). An address holds one
  place in it at a time: it waits for its solve before it asks another, so
  one client cannot fill the line and keep everyone else out.

Play never waits behind this line: the worker that chooses the moves of the
seats in play, and the one that gives hints, are other processes.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from ..core.errors import Message, Py421Error
from ..core.rules import Ruleset
from ..solver.cost import Cost, Purpose, measure_rate, seconds, solve_cost
from .addresses import IPV6_SITE, address_key
from .protocol import ErrorCode
from .table import TableError
from .worker import Budget

T = TypeVar("T")
VERDICTS = 1024  # rulesets whose verdict is kept (the oldest forgotten first)
TRIED_SECONDS = 3600.0  # a refusal of the worker's (out of time or memory) is kept this long

_rate: float | None = None
_rate_lock = threading.Lock()


def machine_rate() -> float:
    """Positions a second that this machine solves, measured once per process (a tenth of a second
    or so, the first time)."""
    global _rate
    with _rate_lock:
        if _rate is None:
            _rate = measure_rate()
        return _rate


class SolveLine:
    """Solves for one purpose (``optimal``, ``analysis``) in one worker, one at a time.

    ``busy`` and ``too_costly`` are the error codes it refuses with; ``refused`` turns the rules'
    own refusal (a ruleset the solvers do not play) into the refusal the client gets; ``advice``
    ends a refusal for the cost.
    """

    clock = staticmethod(time.monotonic)  # when a worker's refusal is forgotten (a test moves it on)

    def __init__(
        self,
        budget: Budget,
        purpose: Purpose,
        *,
        busy: ErrorCode,
        too_costly: ErrorCode,
        refused: Callable[[Py421Error], TableError],
        advice: Message,
        name: str,
    ) -> None:
        self.budget, self.purpose = budget, purpose
        self.busy, self.too_costly, self.refused = busy, too_costly, refused
        self.advice = advice  # what the client may do instead, ending a refusal
        self._thread = ThreadPoolExecutor(1, thread_name_prefix=name)
        self._in_line = 0  # solves waiting or running
        self._placed: set[str] = set()  # the addresses (as their caps count them) of those solves
        # each ruleset's verdict (its cost, or its refusal), and until when (None: for good)
        self._verdicts: OrderedDict[tuple[Ruleset, int], tuple[Cost | TableError, float | None]] = (
            OrderedDict()
        )

    def close(self) -> None:
        self._thread.shutdown(wait=False, cancel_futures=True)

    async def run(self, call: Callable[[], T], address: str) -> T:
        """``call()``, asked for by ``address``, in the line's thread once those before it are done;
        refused at once (``busy``) when ``budget.queue`` wait already, or one of the address's own."""
        placed = address_key(address, IPV6_SITE)  # a /48's many /64s are one client's
        if placed in self._placed:
            raise TableError(
                self.busy,
                Message("server.solving_yours"),
                429,
                retry_after=self.budget.seconds,
            )
        if self._in_line > self.budget.queue:
            raise TableError(
                self.busy,
                Message("server.solving_busy", {"waiting": self.budget.queue}),
                503,
                retry_after=self.budget.seconds,
            )
        self._in_line += 1
        self._placed.add(placed)
        try:
            return await asyncio.get_running_loop().run_in_executor(self._thread, call)
        finally:
            self._in_line -= 1
            self._placed.discard(placed)

    async def prepare(self, rules: Ruleset, players: int, solve: Callable[[], None], address: str) -> Cost:
        """Have ``rules`` at ``players`` solved by ``solve()`` (in the worker) for ``address``, unless
        the verdict on them is known, or the estimate already exceeds the budget: then refused at
        once. Returns the cost of the solve (its estimate).

        A refusal of the estimate, or of the rules, is remembered for good (the rules decide it); one
        of the worker, out of time or memory, for an hour (the machine's load had its part);
        a full line, or the worker stopped, not at all.
        """
        key = (rules, players)
        known = self._known(key)
        if known is not None:
            return known
        cost = await self._estimated(key)
        try:
            await self.run(solve, address)
        except TableError as e:
            if e.error == self.too_costly or (e.error != self.busy and e.status < 500):
                self._remember(key, e, TRIED_SECONDS)
            raise
        self._remember(key, cost)
        return cost

    async def expected(self, rules: Ruleset, players: int) -> float:
        """The seconds :meth:`prepare` would take now by estimate, for a client to say how long it
        waits (0: solved already); rules it would refuse at once are refused here the same way, with
        the same estimate. Only a full line is not foretold: it is gone by the time a table is asked."""
        key = (rules, players)
        if self._known(key) is not None:
            return 0.0
        return seconds(await self._estimated(key), await self._rate())

    def _known(self, key: tuple[Ruleset, int]) -> Cost | None:
        """The cost of rules solved here, the refusal of rules refused (raised afresh), or None when
        there is no verdict on them, or no longer."""
        known = self._verdicts.get(key)
        if known is None:
            return None
        verdict, until = known
        if until is not None and self.clock() >= until:
            return None
        self._verdicts.move_to_end(key)
        if isinstance(verdict, TableError):
            raise again(verdict)
        return verdict

    async def _estimated(self, key: tuple[Ruleset, int]) -> Cost:
        """:meth:`estimate`, its refusal remembered for good (the rules decide it)."""
        try:
            return await self.estimate(*key)
        except TableError as e:
            self._remember(key, e)
            raise

    async def _rate(self) -> float:
        return _rate if _rate is not None else await asyncio.to_thread(machine_rate)  # not behind a solve

    async def estimate(self, rules: Ruleset, players: int) -> Cost:
        """The cost of solving ``rules``; refused (``too_costly``, or the rules' own refusal) when it is
        beyond the budget of time or memory, or when it is a whole game of three to five that the
        analysis needs and nobody solved on this machine."""
        try:  # tens of milliseconds at most: not on the event loop all the same
            cost = await asyncio.to_thread(solve_cost, rules, players, self.purpose)
        except Py421Error as e:
            raise self.refused(e) from e
        rate = await self._rate()
        took = seconds(cost, rate)
        memory_mb = cost.memory_bytes / 2**20
        if took > self.budget.seconds:
            raise TableError(
                self.too_costly,
                Message(
                    "server.estimate_time",
                    {
                        "seconds": _round(took),
                        "positions": cost.positions,
                        "rate": round(rate),
                        "budget": f"{self.budget.seconds:g}",
                        "advice": self.advice,
                    },
                ),
                *self._status(),
            )
        if memory_mb > self.budget.memory_mb:
            raise TableError(
                self.too_costly,
                Message(
                    "server.estimate_memory",
                    {"mb": _round(memory_mb), "budget": self.budget.memory_mb, "advice": self.advice},
                ),
                *self._status(),
            )
        return cost

    def _status(self) -> tuple[int]:
        return (400 if self.too_costly == "optimal_too_costly" else 503,)

    def _remember(self, key: tuple[Ruleset, int], verdict: Cost | TableError, seconds: float = 0) -> None:
        self._verdicts[key] = (verdict, self.clock() + seconds if seconds else None)
        self._verdicts.move_to_end(key)
        while len(self._verdicts) > VERDICTS:
            self._verdicts.popitem(last=False)

    def cheap(self, cost: Cost) -> bool:
        """Whether ``cost`` is solved within a decision's time: only then is the worker that plays
        (or hints) readied with it at once, rather than solving it all again when first asked."""
        if cost.method in ("heads_up", "loaded"):  # the worker reads what the solve kept on the disk
            return True
        return _rate is not None and seconds(cost, _rate) <= self.budget.decision_seconds


def again(e: TableError) -> TableError:
    """A remembered refusal, raised afresh (an exception keeps the traceback of its last raise)."""
    return TableError(e.error, e.message, e.status, e.words, retry_after=e.retry_after)


def _round(x: float) -> int | Message:
    """A large estimate, in two significant digits: 97 s, 1,300 s, 4,200,000 MB (grouped as the
    reader's language groups them, by the catalog)."""
    if not math.isfinite(x):
        return Message("server.unbounded")
    digits = max(0, len(str(int(x))) - 2)
    return int(round(x, -digits))
