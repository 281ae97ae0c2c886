"""Scripted games: dice and actions written the way the records write them."""

from __future__ import annotations

import math
import os
import select
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any, TypeVar

from py421.core.actions import Action
from py421.core.chance import DiceSource
from py421.core.events import Event
from py421.core.game import Game
from py421.core.rules import Ruleset
from py421.core.state import State

E = TypeVar("E")
T = TypeVar("T")


def run(game: Game, script: str) -> list[Event]:
    """Apply ``script``: steps separated by ``|``; digits are dice, words are actions.

    Returns every event the steps produced, in order.
    """
    events: list[Event] = []
    for raw in script.split("|"):
        step = raw.strip()
        if not step:
            continue
        state = game.throw(step) if step[0].isdigit() else game.act(step)
        events.extend(state.events)
    return events


def table(preset: str, *players: str, settings: tuple[str, ...] = (), first_seat: int = 0) -> Game:
    rules = Ruleset.preset(preset).with_settings(settings)
    return Game(rules, players or ("A", "B"), first_seat=first_seat)


def of_type(events: list[Event], kind: type[E]) -> list[E]:
    return [e for e in events if isinstance(e, kind)]


def play_until(
    game: Game,
    dice: DiceSource,
    decide: Callable[[State], Action],
    finished: Callable[[State], T | None],
) -> T:
    """Throw the dice and apply ``decide`` until ``finished`` returns something."""
    while True:
        state = game.state
        request = state.chance
        state = game.throw(dice.throw(request)) if request else game.act(decide(state))
        found = finished(state)
        if found is not None:
            return found


def doc_table_rows(text: str, heading: str) -> dict[str, list[str]]:
    """The rows of the first Markdown table after ``heading`` in ``text``, keyed by their first cell."""
    section = text.split(heading, 1)[1]
    rows: dict[str, list[str]] = {}
    for line in section.splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[cells[0].strip("`")] = cells[1:]
        elif rows and not line.startswith("|"):
            break
    return rows


def wilson(successes: float, n: int, z: float) -> tuple[float, float]:
    """Wilson score interval of a proportion."""
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def simulated(preset: str, levels: tuple[str, ...], games: int, seed: int = 0) -> dict[str, Any]:
    """``games`` games between bots, played by the fast simulator (first seats rotate evenly).

    The simulator is held to the engine game by game in tests/test_fast_sim.py, so
    bot-against-bot statistics are counted there rather than through the engine loop.
    """
    from py421.sim.simulate import Simulation, Summary
    from py421.sim.simulate import run as simulate

    sim = Simulation(Ruleset.preset(preset), levels, games, seed)
    data: dict[str, Any] = Summary(sim, simulate(sim, workers=1)).to_dict()
    return data


def heads_up_not_lost(data: dict[str, Any], seat: int) -> float:
    """Games a seat of a two-player simulation did not lose, a shared loss counting half."""
    return float(data["games"] - data["seats"][seat]["losses"] + data["outcomes"]["shared"] / 2)


def online_game(seed: str) -> tuple[dict[str, Any], int]:
    """A short lyonnaise-21 game dealt by the server's seeded dice, as its record (with the seed and
    its hash, as ``421 verify`` reads it), and the die kept after the first throw (its highest)."""
    import hashlib

    from py421.core.actions import Throw
    from py421.core.chance import SeededDice

    dice = SeededDice(seed)
    game = Game(Ruleset.preset("lyonnaise-21"), ["Ann", "Bob"])
    request = game.state.chance
    assert request is not None
    state = game.throw(dice.throw(request))
    assert state.round is not None
    kept = max(state.round.dice)
    game.act(Throw((kept,)))
    request = game.state.chance
    assert request is not None
    game.throw(dice.throw(request))
    meta = {"seed": seed, "seed_hash": hashlib.sha256(seed.encode()).hexdigest()}
    return game.record(meta).to_dict(), kept


def read_until(fd: int, done, seconds: float) -> bytes:
    """What the terminal shows, until ``done(seen)`` or its other end is closed by every process."""
    seen = b""
    deadline = time.monotonic() + seconds
    while not done(seen):
        left = deadline - time.monotonic()
        assert left > 0, f"waited {seconds} s:\n{seen.decode('utf-8', 'replace')[-2000:]}"
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: no process holds the terminal any more
            break
        if not chunk:
            break
        seen += chunk
    return seen


def cli_process(home: object, *args: str, **kwargs: Any) -> subprocess.Popen[str]:
    """``421 ARGS`` in a process of its own, with ``home`` as its data folder, its three streams piped."""
    env = {**os.environ, "PY421_HOME": str(home), "LANG": "C.UTF-8"}
    return subprocess.Popen(
        [sys.executable, "-m", "py421", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        **kwargs,
    )
