"""The analysis of whole games: how long `421 analyse` takes once the game is solved.

Run: .venv/bin/python benchmarks/analyse_speed.py [--games 20]
Target: a whole two-player classic-11 game analysed in under a second once solved (2 cores).

In a fresh data folder: the two-player classic-11 solve (what a first analysis waits for,
once per machine); then ``--games`` games of a person (played as bot:heuristic plays) against
bot:optimal, each analysed with every decision of both seats (``--bots``), the solution read
back from the disk each time as a new ``421 analyse`` does; then the whole command on one of
them (Python start-up and imports included); then one « main chaude » stake valued, in
engranjeu-21, where each stake is valued one replay ahead through the engine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from py421.analysis import analyse
from py421.core.game import Game
from py421.core.record import Record
from py421.core.rules import Ruleset
from py421.play.session import Session, parse_seats
from py421.players import make_bot
from py421.solver import solutions


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=20)
    games = parser.parse_args().games
    with tempfile.TemporaryDirectory() as home:
        os.environ["PY421_HOME"] = home  # a fresh data folder: nothing solved yet
        run(games, Path(home))


def run(games: int, home: Path) -> None:
    rules = Ruleset.preset("classic-11")
    start = time.perf_counter()
    solutions.solve_cached(rules)
    print(f"classic-11, two players: solved in {time.perf_counter() - start:.2f} s (once per machine)")

    records: list[Record] = []
    for seed in range(games):
        session = Session(rules, parse_seats(["Ana", "bot:optimal"]), seed=str(seed))
        person = make_bot("heuristic", "")
        while not session.state.is_over:
            seat = session.human_to_move()
            session.act(person.choose(session.state)) if seat is not None else session.step()
        records.append(session.game.record())

    took, decisions = [], []
    for record in records:
        solutions.forget()  # as a new command: the solution read from the disk
        start = time.perf_counter()
        found = analyse(record, bots=True)
        took.append(time.perf_counter() - start)
        decisions.append(len(found.decisions))
    print(
        f"{games} games analysed, every decision of both seats ({min(decisions)} to {max(decisions)} a game, "
        f"median {statistics.median(decisions):.0f}):"
    )
    print(f"  median {statistics.median(took) * 1000:.1f} ms, slowest {max(took) * 1000:.1f} ms")

    path = home / "game.json"
    path.write_text(records[0].to_json(), encoding="utf-8")
    command = [sys.executable, "-m", "py421", "analyse", str(path), "--bots"]
    whole = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        whole.append(time.perf_counter() - start)
    median = statistics.median(whole) * 1000
    print(f"`421 analyse game.json --bots`, the whole command: median of 5 {median:.0f} ms")

    stake()


def stake() -> None:
    """One « main chaude » stake valued: the round ties, its replay ties again, then the choice."""
    rules = Ruleset.preset("engranjeu-21")
    start = time.perf_counter()
    solutions.solve_cached(rules)
    print(f"engranjeu-21, two players: solved in {time.perf_counter() - start:.2f} s (once per machine)")
    game = Game(rules, ["Ana", "Bob"])
    for dice in ("331", "331", "551", "551"):
        game.throw(dice)
    game.act("stake est")
    analyse(game.record())  # the solution read and the round's positions computed
    start = time.perf_counter()
    analyse(game.record())
    print(f"  one stake of « main chaude » valued: {(time.perf_counter() - start) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
