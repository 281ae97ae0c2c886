"""The server's line of solves: estimated first, every verdict remembered, a bounded wait."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable

import pytest

from py421.core.rules import Ruleset
from py421.server import solving
from py421.server.optimal_seats import solve_line
from py421.server.solving import SolveLine
from py421.server.table import TableError
from py421.server.worker import Budget

CLASSIC = Ruleset.preset("classic-11")


def line(**budget: float) -> SolveLine:
    return solve_line(Budget(**budget))  # type: ignore[arg-type]


def counted(outcome: Callable[[], None] = lambda: None) -> tuple[list[int], Callable[[], None]]:
    calls: list[int] = []

    def solve() -> None:
        calls.append(1)
        outcome()

    return calls, solve


@pytest.fixture(autouse=True)
def known_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fixed rate of this machine, so that no estimate depends on how loaded it is."""
    monkeypatch.setattr(solving, "_rate", 3e7)


def test_rules_solved_once_are_never_solved_again() -> None:
    calls, solve = counted()
    solves = line()

    async def twice() -> None:
        await solves.prepare(CLASSIC, 2, solve, "203.0.113.1")
        await solves.prepare(CLASSIC, 2, solve, "203.0.113.1")

    asyncio.run(twice())
    assert calls == [1]


def test_rules_the_worker_could_not_solve_are_not_tried_again_for_an_hour(monkeypatch) -> None:
    def out_of_time() -> None:
        raise TableError("optimal_too_costly", "takes more than 20 s")

    calls, solve = counted(out_of_time)
    solves = line()
    clock = [1000.0]
    monkeypatch.setattr(solves, "clock", lambda: clock[0])

    async def refused() -> str:
        with pytest.raises(TableError) as e:
            await solves.prepare(CLASSIC, 2, solve, "203.0.113.1")
        return e.value.error

    assert asyncio.run(refused()) == "optimal_too_costly"
    assert asyncio.run(refused()) == "optimal_too_costly"
    assert calls == [1]  # the second time was answered from memory
    clock[0] += solving.TRIED_SECONDS + 1  # the machine's load may have had its part: tried again
    assert asyncio.run(refused()) == "optimal_too_costly"
    assert calls == [1, 1]


def test_rules_beyond_the_budget_by_the_estimate_are_refused_without_solving() -> None:
    calls, solve = counted()
    solves = line(seconds=0.001)

    async def refused() -> TableError:
        with pytest.raises(TableError) as e:
            await solves.prepare(Ruleset.preset("classic-11").with_options(pot=60), 2, solve, "203.0.113.1")
        return e.value

    for _ in range(2):
        error = asyncio.run(refused())
        assert error.error == "optimal_too_costly" and "by estimate" in error.message
        assert "0.001 s" in error.message and "seat bot:heuristic" in error.message
    assert calls == []
    # « 1,300 s » reads 1.3 s to a French player: their counts are grouped by spaces
    french = error.words["fr"]
    assert re.search(r"\d,\d\d\d", french) is None, french
    assert re.search(r"\d\s\d\d\d positions", french), french


def test_rules_the_solvers_refuse_are_refused_at_once_in_their_words() -> None:
    calls, solve = counted()

    async def refused() -> TableError:
        with pytest.raises(TableError) as e:
            await line().prepare(CLASSIC, 9, solve, "203.0.113.1")
        return e.value

    assert "plays 2 to 8 players, not 9" in asyncio.run(refused()).message
    assert calls == []


def refused_while_one_is_solved(
    solves: SolveLine, first: str, asked: list[tuple[Ruleset, str]]
) -> tuple[TableError, list[int]]:
    """A solve for the address ``first`` held in the worker while each of ``asked`` (rules, address)
    is asked for in turn: the refusal of the last, and the solves the worker was given."""
    release = threading.Event()

    def held() -> None:
        release.wait(30)

    calls, slow = counted(held)

    async def at_once() -> TableError:
        running = asyncio.ensure_future(solves.prepare(CLASSIC, 2, slow, first))
        while not calls:
            await asyncio.sleep(0.01)
        taken = [asyncio.ensure_future(solves.prepare(rules, 2, slow, who)) for rules, who in asked[:-1]]
        try:
            with pytest.raises(TableError) as e:
                await solves.prepare(asked[-1][0], 2, slow, asked[-1][1])
        finally:
            release.set()
            await asyncio.gather(running, *taken)
        return e.value

    return asyncio.run(at_once()), calls


def test_a_full_line_refuses_at_once_and_says_when_to_try_again() -> None:
    busy, calls = refused_while_one_is_solved(
        line(queue=0, seconds=60), "203.0.113.1", [(Ruleset.preset("tim"), "203.0.113.2")]
    )
    assert busy.error == "optimal_busy" and busy.status == 503 and busy.retry_after == 60
    assert calls == [1]  # the second was refused, not queued


def test_one_address_holds_one_place_in_the_line_at_a_time() -> None:
    """Tables with hints for rules nobody asked for before, five at once from one address, filled the
    line: every other visitor's table with hints or an optimal seat, and every analysis, was refused
    for as long as it kept at it. An address waits for its own solve before it may ask another;
    the line's other places stay for the others."""
    refused, calls = refused_while_one_is_solved(
        line(queue=4, seconds=60),
        "2001:db8::1",
        # another address, then another /64 of the first one's /48 (five of them filled the line)
        [(Ruleset.preset("kytionnaire"), "203.0.113.9"), (Ruleset.preset("tim"), "2001:db8:0:7::2")],
    )
    assert refused.error == "optimal_busy" and refused.status == 429 and refused.retry_after == 60
    assert "one solve at a time" in refused.words["en"]
    assert calls == [1, 1]  # the other address's solve was taken, the same address's refused
