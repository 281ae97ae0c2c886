"""Analyses of finished games and hints at tables, worked out in processes of their own.

A game is valued by :func:`py421.analysis.analyse` and a decision in play by
:class:`py421.analysis.Adviser`, as ``421 analyse`` and ``421 play`` do; but a
ruleset seen for the first time is solved first, which takes seconds and
memory. So the server never does it itself: worker processes
(:class:`.worker.Worker`, with the server's budget of time and memory,
started at their first request) do. One solves a table's rules and analyses
games, through a bounded line that estimates each cost first and remembers
every verdict (:mod:`.solving`); another gives the hints of the tables in
play, which the first never holds up. An analysis that does not come back
within the budget is refused (``analysis_too_costly``) and the worker started
again; a finished game's analysis never changes, so each is worked out once
and kept.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from multiprocessing.connection import Connection
from typing import Any, TypeVar, assert_never

from ..core.errors import Message, Py421Error
from ..core.rules import Ruleset
from ..core.state import State
from .cluster import read_quietly
from .solving import TRIED_SECONDS, VERDICTS, SolveLine, again
from .table import TableError
from .worker import (
    Analyse,
    Answered,
    Budget,
    Failed,
    HintAt,
    Prepare,
    Refused,
    Reply,
    Request,
    Stopping,
    Worker,
    answer_requests,
    limit_memory,
)

log = logging.getLogger(__name__)
T = TypeVar("T")
KEPT = 64  # finished games' analyses kept in memory (a few tens of KB each)


def _serve(conn: Connection, memory_mb: int) -> None:
    """The worker: answers :class:`.Prepare`, :class:`.Analyse` and :class:`.HintAt`."""
    from dataclasses import asdict

    from ..analysis import Adviser, analyse
    from ..core.record import Record

    limit_memory(memory_mb)
    advisers: dict[tuple[Ruleset, int], Adviser] = {}

    # A whole game of three to five takes minutes to hours to solve: one solved here before is used,
    # else the decisions are valued round by round, as bot:optimal plays such a table (solve=False).
    def adviser(rules: Ruleset, players: int) -> Adviser:
        found = advisers.get((rules, players))
        if found is None:
            found = advisers[(rules, players)] = Adviser(rules, players, solve=False)
        return found

    def answer(request: Request) -> Reply:
        match request:
            case Prepare(rules=rules, players=players):
                adviser(rules, players)
                return Answered()
            case Analyse(record=data, bots=bots):
                return Answered(analyse(Record.from_dict(data), bots=bots, solve=False).to_dict())
            case HintAt(state=state):
                advice = adviser(state.rules, len(state.players))
                return Answered({"method": advice.method, **asdict(advice.hint(state))})
        raise AssertionError(f"the analysis worker is asked {request!r}")

    answer_requests(conn, answer)


class Analyst:
    """The server's analyses and hints: solves and analyses in one worker, hints in another."""

    def __init__(self, budget: Budget | None = None) -> None:
        self.budget = budget or Budget()
        self.worker = Worker(self.budget, _serve, "py421-analysis")
        self.hinter = Worker(self.budget, _serve, "py421-hints")
        self.line = SolveLine(
            self.budget,
            "analysis",
            busy="analysis_busy",
            too_costly="analysis_too_costly",
            refused=lambda e: TableError.of("no_analysis", e, 422),
            advice=Message("server.advice.analysis"),
            name="py421-analysis",
        )
        self._hints = ThreadPoolExecutor(1, thread_name_prefix="py421-hints")
        self._kept: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._refused: OrderedDict[str, tuple[float, TableError]] = OrderedDict()  # until when, and why
        self._asked: dict[str, asyncio.Future[dict[str, Any]]] = {}  # analyses under way, or waiting

    @property
    def started(self) -> bool:
        """Whether a worker process was ever needed (tables without hints never start one)."""
        return self.worker.started or self.hinter.started

    def close(self) -> None:
        self.worker.close()
        self.hinter.close()
        self.line.close()
        self._hints.shutdown(wait=False, cancel_futures=True)

    # -- requests ---------------------------------------------------------------------------

    async def analyse(self, record: dict[str, Any], bots: bool, address: str) -> dict[str, Any]:
        """The analysis of a finished game's record (:meth:`py421.analysis.Analysis.to_dict`), for
        the client at ``address``."""
        key = await asyncio.to_thread(record_key, record, bots)  # a long game's takes 0.1 s
        found = self._kept.get(key)
        if found is not None:
            self._kept.move_to_end(key)
            return found
        refused = self._refused.get(key)
        if refused is not None and self.line.clock() < refused[0]:
            raise again(refused[1])  # not worked out again for an hour
        task = self._asked.get(key)
        if task is None:  # the same game asked for again meanwhile waits for the same answer
            task = self._asked[key] = asyncio.ensure_future(self._work_out(key, record, bots, address))
            task.add_done_callback(lambda _: self._asked.pop(key, None))
            task.add_done_callback(read_quietly)  # its askers, if still there, are told the failure
        return await asyncio.shield(task)

    async def _work_out(self, key: str, record: dict[str, Any], bots: bool, address: str) -> dict[str, Any]:
        try:
            rules, players = Ruleset.from_mapping(record["rules"]), len(record["players"])
        except (Py421Error, KeyError, TypeError) as e:
            reason = e.message if isinstance(e, Py421Error) and e.message is not None else str(e)
            raise TableError("no_analysis", Message("server.no_analysis", {"reason": reason}), 422) from e
        try:
            await self.line.estimate(rules, players)  # refused at once if beyond the budget
            answer: dict[str, Any] = await self.line.run(partial(self._ask, Analyse(record, bots)), address)
        except TableError as e:
            if e.error != "analysis_busy":
                self._refused[key] = (self.line.clock() + TRIED_SECONDS, e)
                while len(self._refused) > VERDICTS:
                    self._refused.popitem(last=False)
            raise
        self._kept[key] = answer
        if len(self._kept) > KEPT:
            self._kept.popitem(last=False)
        return answer

    async def prepare(self, rules: Ruleset, players: int, address: str) -> None:
        """Solve a table's rules for its hints, for the client at ``address``, or refuse them
        (``no_analysis``, ``analysis_too_costly``, ``analysis_busy``); the worker that gives the hints
        is then readied with them."""
        cost = await self.line.prepare(rules, players, partial(self._ask, Prepare(rules, players)), address)
        if self.line.cheap(cost):
            asyncio.get_running_loop().run_in_executor(self._hints, self.hinter.warm, Prepare(rules, players))

    async def expected(self, rules: Ruleset, players: int) -> float:
        """The seconds :meth:`prepare` would take now, by estimate (0: solved already); what it would
        refuse at once is refused."""
        return await self.line.expected(rules, players)

    @property
    def closed(self) -> bool:
        """The server is stopping: no hint will come any more."""
        return self.hinter.closed

    async def hint(self, state: State) -> tuple[str, dict[str, Any] | None]:
        """The ranked choices of the player to move: ``("ok", hint)``, or why there are none now
        (``"busy"``: still on a decision given up on, ``"timeout"``, ``"closed"``…)."""
        call = partial(self.hinter.call, HintAt(state), self.budget.decision_seconds, cancel=False)
        try:
            reply = await asyncio.get_running_loop().run_in_executor(self._hints, call)
        except Stopping:
            return "closed", None
        match reply:
            case Answered(value=hint):
                return "ok", hint
            case Failed(why=why):
                return why, None
            case Refused():
                return "refused", None
            case _:
                assert_never(reply)

    def _ask(self, request: Request) -> Any:
        """One request in the worker, killed past the budget; every failure a :class:`TableError`."""
        budget = self.budget
        try:
            reply = self.worker.call(request, budget.seconds, cancel=True)
        except Stopping as e:
            raise TableError("analysis_busy", e.message, 503) from e
        match reply:
            case Answered(value=value):
                return value
            case Refused(reason=reason):
                raise TableError("no_analysis", reason, 422)
            case Failed(why="died"):
                raise TableError("analysis_busy", Message("server.analyst_stopped"), 503)
            case Failed(why="timeout"):
                seconds = f"{budget.seconds:g}"
                raise TableError(
                    "analysis_too_costly", Message("server.over_budget_time", {"seconds": seconds}), 503
                )
        raise TableError(
            "analysis_too_costly", Message("server.over_budget_memory", {"mb": budget.memory_mb}), 503
        )


def record_key(record: dict[str, Any], bots: bool) -> str:
    """What an analysis is kept under: its record and whether the bots' decisions are in it."""
    return hashlib.sha256(json.dumps([record, bots], sort_keys=True).encode()).hexdigest()
