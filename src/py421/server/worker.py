"""A worker process with a budget of time and memory, for the work the server must not do itself.

Solving a ruleset can take minutes and gigabytes (a large pot, many
players), and so can a game's analysis. The server never does it: a process
of its own does, its memory capped (``RLIMIT_AS``), each request with a
deadline. A request past its deadline either kills the process (a solve: it
is started again for the next request) or is given up on while the process
finishes it (a decision in play: its answer is dropped when it comes). The
server's workers are :mod:`.optimal_seats`'s (``bot:optimal``),
:mod:`.policy_seats`'s (trained policies) and :mod:`.analyst`'s (hints and analyses).
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Literal

from ..core.actions import Action
from ..core.errors import Message, Py421Error
from ..core.rules import Ruleset
from ..core.state import State
from ..players import HeuristicBot

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Budget:
    seconds: float = 20.0  # to solve a table's rules at creation
    memory_mb: int = 2048  # a worker's address space beyond what it holds once started
    decision_seconds: float = 5.0  # beyond this a decision falls back to the heuristic bot
    queue: int = 4  # solves that may wait while a worker solves another; more are refused
    # a worker's start (Python, py421, a policy's files): not counted in a request's deadline
    start_seconds: float = 120.0


# -- what the server asks of a worker, and what comes back -------------------------------------


@dataclass(frozen=True)
class Prepare:
    """Solve (or read) a table's rules before its first move, hint or analysis."""

    rules: Ruleset
    players: int


@dataclass(frozen=True)
class Choose:
    """bot:optimal's move at ``state``."""

    state: State


@dataclass(frozen=True)
class Analyse:
    """A finished game's analysis (its record as JSON's types)."""

    record: dict[str, Any]
    bots: bool


@dataclass(frozen=True)
class HintAt:
    """The ranked choices of the player to move at ``state``."""

    state: State


@dataclass(frozen=True)
class ChooseAs:
    """The move of the bot level ``level`` (a policy the operator named) at ``state``."""

    level: str
    state: State


Request = Prepare | Choose | Analyse | HintAt | ChooseAs


@dataclass(frozen=True)
class Answered:
    value: Any = None


@dataclass(frozen=True)
class Refused:
    """The rules or the position refused, with the reason (a catalog's message, worded in each
    language by the server)."""

    reason: Message | str

    @classmethod
    def of(cls, e: Py421Error) -> Refused:
        return cls(e.message if e.message is not None else str(e))


@dataclass(frozen=True)
class Failed:
    """No answer: past the deadline, the process died or ran out of memory, still busy with a request
    given up on, or the server is stopping."""

    why: Literal["timeout", "died", "memory", "busy", "closed"]


Reply = Answered | Refused | Failed


@dataclass(frozen=True)
class Ready:
    """What a worker sends once, when it is set up: a request's deadline counts from then, so that
    a loaded machine's slow start is not taken for a slow answer."""


class Stopping(Exception):
    """The server is stopping: its workers take no more requests. ``message``: that, as the
    catalogs word it."""

    def __init__(self, message: Message) -> None:
        super().__init__(str(message))
        self.message = message


def limit_memory(extra_mb: int) -> None:
    """Cap the address space at what the process holds now plus ``extra_mb``."""
    try:
        import resource

        with open("/proc/self/statm", encoding="ascii") as f:
            pages = int(f.read().split()[0])
        now = pages * os.sysconf("SC_PAGE_SIZE")
        limit = now + extra_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (OSError, ValueError, ImportError):  # not Linux: no cap, the time budget still holds
        pass


Serve = Callable[[Connection, int], None]


def answer_requests(conn: Connection, answer: Callable[[Request], Reply]) -> None:
    """A worker's loop: each request answered in turn until the pipe closes. A refusal of the
    rules is the reply :class:`Refused`; out of memory, the process ends (the next request
    starts it again, with empty caches)."""
    conn.send(Ready())
    while True:
        try:
            request: Request = conn.recv()
        except (EOFError, OSError):
            return
        try:
            reply = answer(request)
        except MemoryError:
            conn.send(Failed("memory"))
            return
        except Py421Error as e:
            reply = Refused.of(e)
        conn.send(reply)


class _NotStarted(Exception):
    """A worker that did not say :class:`Ready` within ``Budget.start_seconds``."""


class Worker:
    """The server's side of a worker process: one request at a time, each with a deadline.

    ``serve`` is what the process runs, called with its end of the pipe and ``budget.memory_mb``;
    the process starts at the first request.
    """

    def __init__(self, budget: Budget, serve: Serve, name: str) -> None:
        self.budget = budget
        self._serve = serve
        self._name = name
        self._lock = threading.Lock()  # one request in flight: the pipe is not shared
        self._process: Any = None
        self._conn: Connection | None = None
        self.closed = False
        self._stale = 0  # answers still to come for requests given up on (dropped when they come)

    @property
    def started(self) -> bool:
        """Whether the process was ever needed."""
        return self._process is not None

    def _start(self) -> Connection:
        if self.closed:
            raise Stopping(Message("server.stopping"))
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
            try:
                started = ours.poll(self.budget.start_seconds) and isinstance(ours.recv(), Ready)
            except (EOFError, OSError):
                started = False
            if not started:  # it died setting up, or hangs there (a policy file that never returns)
                self._kill()
                raise _NotStarted
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
        self.closed = True
        self._kill()

    def call(self, request: Request, seconds: float, *, cancel: bool) -> Reply:
        """Send one request and wait up to ``seconds``; ``cancel``: kill the worker if it takes longer
        (a solve), else let it finish and drop its answer (a decision in play): until then the
        worker is ``busy``. :class:`Stopping` once closed."""
        with self._lock:
            answer: Reply
            try:
                conn = self._start()
                self._drain(conn)
                if self._stale and not cancel:
                    return Failed("busy")  # still working on a request given up on
                if self._stale:
                    self._kill()
                    conn = self._start()
                conn.send(request)
                answer = conn.recv() if conn.poll(seconds) else Failed("timeout")
            except (EOFError, OSError, _NotStarted):
                answer = Failed("died")
            if answer == Failed("timeout") and not cancel:
                self._stale += 1
            elif isinstance(answer, Failed):
                self._kill()  # the next request starts a fresh worker
            return answer

    def warm(self, request: Request) -> None:
        """Send a request whose answer nobody waits for, to ready the worker (a table's rules solved
        before its first move); left out when the worker is busy. Never raises."""
        with self._lock:
            try:
                conn = self._start()
                self._drain(conn)
                if not self._stale:
                    conn.send(request)
                    self._stale += 1
            except (EOFError, OSError, Stopping, _NotStarted):
                pass

    def _drain(self, conn: Connection) -> None:
        """Drop the answers that came to requests given up on."""
        while self._stale and conn.poll(0):
            conn.recv()
            self._stale -= 1


def decision(
    worker: Worker, request: Choose | ChooseAs, seconds: float, *, cancel: bool, level: str
) -> Action:
    """A bot's move chosen in ``worker``, or the heuristic bot's if it gives none within ``seconds``
    (or refuses, fails, or is stopping), said in the log: no table waits on a worker."""
    try:
        reply = worker.call(request, seconds, cancel=cancel)
    except Stopping:
        reply = Failed("closed")
    if isinstance(reply, Answered):
        chosen: Action = reply.value
        return chosen
    why = reply.why if isinstance(reply, Failed) else getattr(reply, "reason", "refused")
    log.warning("bot:%s could not choose (%s): the heuristic bot plays this move", level, why)
    return HeuristicBot().choose(request.state)
