"""The optimal bot for online tables, in a process of its own with a budget of time and memory.

Solving a ruleset can take minutes and gigabytes (a large pot, many players):
the server must not do it itself. One worker process solves and plays every
table's optimal seats. Its memory is capped (``RLIMIT_AS``); a ruleset is
accepted at table creation only if it is solved, or already cached, within
the time budget, else the worker is killed and started again and the table
is refused. During play a decision that does not come back in time is made
by the heuristic bot instead, so that no table ever waits on the worker.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from ..core.actions import Action
from ..core.errors import Py421Error
from ..core.rules import Ruleset
from ..core.state import State
from ..players import HeuristicBot

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Budget:
    seconds: float = 20.0  # to solve a table's rules at creation
    memory_mb: int = 2048  # the worker's address space beyond what it holds once started
    decision_seconds: float = 5.0  # beyond this a decision falls back to the heuristic bot


class TooCostly(Exception):
    """The rules cannot be solved within the budget: the message says which limit was hit."""


def _limit_memory(extra_mb: int) -> None:
    """Cap the address space at what the process holds now plus ``extra_mb``."""
    try:
        import resource

        with open("/proc/self/statm", encoding="ascii") as f:
            pages = int(f.read().split()[0])
        import os

        now = pages * os.sysconf("SC_PAGE_SIZE")
        limit = now + extra_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (OSError, ValueError, ImportError):  # not Linux: no cap, the time budget still holds
        pass


def _serve(conn: Connection, memory_mb: int) -> None:
    """The worker: answers ("prepare", rules, players) and ("choose", state) until the pipe closes."""
    from ..players.optimal import OptimalBot, prepare

    _limit_memory(memory_mb)
    bot = OptimalBot(solve_games=False)  # a whole game of three or four only if solved here before
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        kind = request[0]
        try:
            if kind == "prepare":
                prepare(request[1], request[2], solve_games=False)
                conn.send(("ok", None))
            else:
                conn.send(("ok", bot.choose(request[1])))
        except MemoryError:
            conn.send(("memory", None))
            return  # start again with empty caches
        except Py421Error as e:
            conn.send(("refused", str(e)))


class OptimalWorker:
    """The server's side of the worker: one request at a time, each with a deadline.

    ``serve`` is what the process runs (:func:`_serve`, the optimal bot's; the analyses have
    their own, :mod:`.analysis`), called with its end of the pipe and ``budget.memory_mb``.
    """

    def __init__(
        self,
        budget: Budget | None = None,
        *,
        serve: Callable[[Connection, int], None] | None = None,
        name: str = "py421-optimal",
    ) -> None:
        self.budget = budget or Budget()
        self._serve = serve or _serve
        self._name = name
        self._lock = threading.Lock()  # one request in flight: the pipe is not shared
        self._process: Any = None
        self._conn: Connection | None = None
        self._closed = False
        self._stale = 0  # answers still to come for decisions given up on (dropped when they come)
        self._fallback = HeuristicBot()

    # -- the process ------------------------------------------------------------------------

    def _start(self) -> Connection:
        if self._closed:
            raise TooCostly("the server is stopping")
        if self._conn is None or self._process is None or not self._process.is_alive():
            self._kill()
            context = multiprocessing.get_context("spawn")  # not a fork of the server's threads
            ours, theirs = context.Pipe()
            process = context.Process(
                target=self._serve, args=(theirs, self.budget.memory_mb), name=self._name, daemon=True
            )
            process.start()
            theirs.close()
            self._process, self._conn = process, ours
        return self._conn

    def _kill(self) -> None:
        self._stale = 0
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._process is not None:
            with contextlib.suppress(Exception):
                self._process.kill()
                self._process.join(5)
            self._process = None

    def close(self) -> None:
        """Stop the worker now (the server is stopping): pending requests fail at once."""
        self._closed = True
        self._kill()

    def _call(self, request: tuple[Any, ...], seconds: float, *, cancel: bool) -> tuple[str, Any]:
        """Send one request and wait up to ``seconds``; ``cancel``: kill the worker if it takes longer
        (a solve at creation), else let it finish and drop its answer (a decision in play)."""
        with self._lock:
            conn = self._start()
            try:
                while self._stale and conn.poll(0):
                    conn.recv()
                    self._stale -= 1
                if self._stale and not cancel:
                    return ("busy", None)  # still working on a decision given up on
                if self._stale:
                    self._kill()
                    conn = self._start()
                conn.send(request)
                answer: tuple[str, Any] = conn.recv() if conn.poll(seconds) else ("timeout", None)
            except (EOFError, OSError):
                answer = ("died", None)
            if answer[0] == "timeout" and not cancel:
                self._stale += 1
            elif answer[0] in ("timeout", "died", "memory"):
                self._kill()  # the next request starts a fresh worker
            return answer

    # -- requests ---------------------------------------------------------------------------

    def prepare_now(self, rules: Ruleset, players: int) -> None:
        """Solve the rules for a table, or raise :class:`TooCostly` (or the rules' own refusal)."""
        status, detail = self._call(("prepare", rules, players), self.budget.seconds, cancel=True)
        if status == "ok":
            return
        if status == "refused":
            raise TooCostly(str(detail))
        if status == "timeout":
            raise TooCostly(
                f"solving these rules for bot:optimal takes more than {self.budget.seconds:g} s "
                "(the server's budget); seat bot:heuristic, or a smaller pot or table"
            )
        raise TooCostly(
            f"solving these rules for bot:optimal needs more than {self.budget.memory_mb} MB "
            "(the server's budget); seat bot:heuristic, or a smaller pot or table"
        )

    async def prepare(self, rules: Ruleset, players: int) -> None:
        await asyncio.to_thread(self.prepare_now, rules, players)

    def choose_now(self, state: State) -> Action:
        """The optimal decision, or the heuristic bot's if the worker cannot answer in time."""
        try:
            status, action = self._call(("choose", state), self.budget.decision_seconds, cancel=False)
        except TooCostly:  # stopping
            status, action = "closed", None
        if status == "ok":
            assert action is not None
            chosen: Action = action
            return chosen
        log.warning("bot:optimal did not answer (%s): the heuristic bot plays this move", status)
        return self._fallback.choose(state)

    async def choose(self, state: State) -> Action:
        return await asyncio.to_thread(self.choose_now, state)
