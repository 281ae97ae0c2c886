"""Trained policies at online tables: their moves chosen in a worker process, within a budget.

A server seats the policies its operator named (``421 --bot NAME=FILE serve``):
a Python file runs code, a network computes for as long as it is made to, and
neither may hold up or bring down the server. A worker of its own (:mod:`.worker`,
its memory capped as ``bot:optimal``'s) reads every named file when it starts
and chooses their moves; a move it does not give within
``Budget.decision_seconds`` (or a policy that fails) is played by the heuristic
bot, the worker started afresh for the next move, and the game goes on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from functools import partial
from multiprocessing.connection import Connection
from pathlib import Path

from ..core.actions import Action
from ..core.state import State
from ..players import Player
from .worker import (
    Answered,
    Budget,
    ChooseAs,
    Request,
    Worker,
    answer_requests,
    decision,
    limit_memory,
)

Reader = Callable[[str, Path], object]
"""Registers a policy file as the bot level of that name, in the worker: given by whoever starts the
server (the ``421`` command gives ``py421.envs.policy_seat.register_policy``), a function of a
module, which the worker imports when it starts."""


def _serve(
    files: tuple[tuple[str, str], ...], reader: Reader | None, conn: Connection, memory_mb: int
) -> None:
    """The worker: reads each named file as its level, then answers :class:`ChooseAs`."""
    from ..players import make_bot

    limit_memory(memory_mb)
    for name, path in files:
        if reader is not None:
            reader(name, Path(path))
    players: dict[str, Player] = {}

    def answer(request: Request) -> Answered:
        if not isinstance(request, ChooseAs):
            raise AssertionError(f"the policy worker is asked {request!r}")
        player = players.get(request.level) or players.setdefault(request.level, make_bot(request.level, ""))
        return Answered(player.choose(request.state))

    answer_requests(conn, answer)


class PolicyBots:
    """Every seat of a policy the server's operator named, played in one worker.

    ``files``: each level's file; ``reader``: how the worker reads one (none: no policy is played
    here, and the levels are played where the table is, as any other bot).
    """

    def __init__(
        self, files: Mapping[str, Path], budget: Budget | None = None, reader: Reader | None = None
    ) -> None:
        self.budget = budget or Budget()
        self.levels = frozenset(files) if reader is not None else frozenset()
        named = tuple((name, str(path)) for name, path in files.items())
        self.worker = Worker(self.budget, partial(_serve, named, reader), "py421-policies")

    def close(self) -> None:
        self.worker.close()

    def choose_now(self, level: str, state: State) -> Action:
        """The policy's decision, or the heuristic bot's if the worker cannot give it in time (the
        worker is then started afresh: a policy's move is cheap to ask again)."""
        return decision(
            self.worker, ChooseAs(level, state), self.budget.decision_seconds, cancel=True, level=level
        )

    async def choose(self, level: str, state: State) -> Action:
        return await asyncio.to_thread(self.choose_now, level, state)
