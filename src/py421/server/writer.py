"""The server's writes to its database, made in a thread of their own.

A commit waits on the disk or on PostgreSQL; made in the event loop it would
stop every table meanwhile. Here each write runs in one thread, in the order
asked, and the steps of every table that arrive while a transaction is being
written go together into the next one (a group commit): under load one
commit carries the steps of dozens of tables, and the loop never waits.

A transaction of several tables that fails is tried again table by table, so
that one table's failure (its game refused by the history, say) takes back
that table's steps only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import TypeVar

from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError

from ..core.game import Step
from .database import NewSteps, Store

T = TypeVar("T")
BATCH = 400  # tables a transaction carries at most: a long one would delay the first of them


class Writer:
    """Runs a store's writes in one thread of its own; steps of many tables are committed together."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="py421-writer")
        self._waiting: list[tuple[NewSteps, asyncio.Future[int | None]]] = []
        self._flushing: asyncio.Task[None] | None = None  # the task writing, while there is one

    async def call(self, write: Callable[..., T], *args: object, **kwargs: object) -> T:
        """``write(*args, **kwargs)`` in the writer's thread, after every write asked before it."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, partial(write, *args, **kwargs))

    async def add_steps(
        self, code: str, first: int, steps: Sequence[Step], finish: Callable[[Connection], int] | None = None
    ) -> int | None:
        """:meth:`Store.add_steps`, committed with the other tables' steps that wait with it."""
        done: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self._waiting.append((NewSteps(code, first, steps, finish), done))
        if self._flushing is None:
            self._flushing = asyncio.ensure_future(self._flush())
        return await done

    async def _flush(self) -> None:
        """Write what waits, a transaction at a time, until nothing does."""
        try:
            while self._waiting:
                batch, self._waiting = self._waiting[:BATCH], self._waiting[BATCH:]
                try:
                    numbers = await self.call(self.store.add_many, [w for w, _ in batch])
                except Exception as e:
                    if len(batch) == 1 or not isinstance(e, SQLAlchemyError):
                        _tell(batch, e)
                        continue
                    await self._one_by_one(batch)
                    continue
                for (_, done), number in zip(batch, numbers, strict=True):
                    if not done.done():
                        done.set_result(number)
        finally:
            self._flushing = None

    async def _one_by_one(self, batch: list[tuple[NewSteps, asyncio.Future[int | None]]]) -> None:
        for write, done in batch:
            try:
                number = (await self.call(self.store.add_many, [write]))[0]
            except Exception as e:
                _tell([(write, done)], e)
            else:
                if not done.done():
                    done.set_result(number)

    def close(self) -> None:
        """Finish the writes asked for, then close the writer's connection."""
        self._thread.submit(self.store.close)
        self._thread.shutdown(wait=True)


def _tell(batch: list[tuple[NewSteps, asyncio.Future[int | None]]], error: Exception) -> None:
    """The writes of ``batch`` failed with ``error``: whoever waits on them is told."""
    for _, done in batch:
        if not done.done():
            done.set_exception(error)
