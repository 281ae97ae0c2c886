"""The optimal bot for online tables: its rules solved in one worker process, its moves chosen in another.

Solving a ruleset can take minutes and gigabytes (a large pot, many players):
the server must not do it itself. A table with an optimal seat is created
only once its rules are solved in the solving worker (:mod:`.worker`),
through a bounded line that estimates the cost first and remembers every
verdict (:mod:`.solving`). The seats in play are played by another worker,
which a solve never holds up: it is readied with the table's rules as soon as
they are solved, and a decision it does not give within
``Budget.decision_seconds`` is made by the heuristic bot instead, so that no
table ever waits on it.
"""

from __future__ import annotations

import asyncio
from functools import partial
from multiprocessing.connection import Connection

from ..core.actions import Action
from ..core.errors import Message
from ..core.rules import Ruleset
from ..core.state import State
from .solving import SolveLine
from .table import TableError
from .worker import (
    Answered,
    Budget,
    Choose,
    Failed,
    Prepare,
    Refused,
    Reply,
    Request,
    Stopping,
    Worker,
    answer_requests,
    decision,
    limit_memory,
)


def _serve(conn: Connection, memory_mb: int) -> None:
    """The worker: answers :class:`.Prepare` and :class:`.Choose` until the pipe closes."""
    from ..players.optimal import OptimalBot, prepare

    limit_memory(memory_mb)
    bot = OptimalBot(solve_games=False)  # a whole game of three to five only if solved here before

    def answer(request: Request) -> Reply:
        match request:
            case Prepare(rules=rules, players=players):
                prepare(rules, players, solve_games=False)
                return Answered()
            case Choose(state=state):
                return Answered(bot.choose(state))
        raise AssertionError(f"the optimal worker is asked {request!r}")

    answer_requests(conn, answer)


def solve_line(budget: Budget) -> SolveLine:
    """The line of ``bot:optimal``'s solves, and how it refuses."""
    return SolveLine(
        budget,
        "optimal",
        busy="optimal_busy",
        too_costly="optimal_too_costly",
        refused=lambda e: TableError.of("optimal_too_costly", e),
        advice=Message("server.advice.optimal"),
        name="py421-optimal-line",
    )


class OptimalBots:
    """Every ``bot:optimal`` seat of the server's tables."""

    def __init__(self, budget: Budget | None = None) -> None:
        self.budget = budget or Budget()
        self.solver = Worker(self.budget, _serve, "py421-optimal-solve")
        self.player = Worker(self.budget, _serve, "py421-optimal")
        self.line = solve_line(self.budget)

    def close(self) -> None:
        """Stop both workers now (the server is stopping)."""
        self.solver.close()
        self.player.close()
        self.line.close()

    async def prepare(self, rules: Ruleset, players: int, address: str) -> None:
        """Solve a table's rules, for the client at ``address``, or refuse them with the reason
        (``optimal_too_costly``, ``optimal_busy``); the worker that plays is then readied with them."""
        cost = await self.line.prepare(rules, players, partial(self._solve, rules, players), address)
        if self.line.cheap(cost):  # else it is solved when a move asks for it, not on every table made
            asyncio.get_running_loop().run_in_executor(None, self.player.warm, Prepare(rules, players))

    async def expected(self, rules: Ruleset, players: int) -> float:
        """The seconds :meth:`prepare` would take now, by estimate (0: solved already); what it would
        refuse at once is refused."""
        return await self.line.expected(rules, players)

    def _solve(self, rules: Ruleset, players: int) -> None:
        try:
            reply = self.solver.call(Prepare(rules, players), self.budget.seconds, cancel=True)
        except Stopping as e:
            raise TableError("optimal_busy", e.message, 503) from e
        match reply:
            case Answered():
                return
            case Refused(reason=reason):
                raise TableError("optimal_too_costly", reason)
            case Failed(why="timeout"):
                seconds = f"{self.budget.seconds:g}"
                raise TableError("optimal_too_costly", Message("server.optimal_time", {"seconds": seconds}))
            case Failed(why="died"):
                raise TableError("optimal_busy", Message("server.solver_stopped"), 503)
        raise TableError(
            "optimal_too_costly", Message("server.optimal_memory", {"mb": self.budget.memory_mb})
        )

    def choose_now(self, state: State) -> Action:
        """The optimal decision, or the heuristic bot's if the worker cannot answer in time."""
        return decision(
            self.player, Choose(state), self.budget.decision_seconds, cancel=False, level="optimal"
        )

    async def choose(self, state: State) -> Action:
        return await asyncio.to_thread(self.choose_now, state)
