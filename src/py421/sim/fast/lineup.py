"""Who plays: the bots of each seat as the kernel reads them, and playing a batch.

A :class:`Lineup` holds a ruleset, one bot level per seat and, when a seat is
the optimal bot, its decision tables (built as games reach new positions or
rounds: a game that reaches one is played again once it is built, from its
own dice).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ...core import engine
from ...core.errors import InvalidPlayers
from ...core.rules import Ruleset
from ...players import BOTS
from ...players.optimal import check_optimal, whole_game
from . import bot_tables
from . import kernel as k
from .arrays import rules_array, tables
from .optimal import DecisionTables, OptimalPositions, OptimalRounds
from .policy import H_MISSING, KINDS, OPTIMAL, no_positions

I64 = k.I64


def parse_players(text: str | Sequence[str]) -> tuple[str, ...]:
    """Bot levels from ``bot:optimal,bot:heuristic``; says what is accepted otherwise."""
    items = [p.strip() for p in (text.split(",") if isinstance(text, str) else text)]
    accepted = ", ".join(f"bot:{b}" for b in BOTS)
    levels = []
    for item in items:
        level = item.removeprefix("bot:")
        if level not in KINDS:
            raise InvalidPlayers(
                f"{item!r} cannot play in a simulation; accepted: {accepted}, separated by commas"
            )
        levels.append(level)
    return tuple(levels)


def check_players(rules: Ruleset, levels: Sequence[str]) -> None:
    """As many seats as the rules allow (the engine's own check) and the simulator holds."""
    engine.check_players(rules, [f"P{s}" for s in range(len(levels))])
    if len(levels) > k.MAX_SEATS:
        raise InvalidPlayers(f"the simulator seats at most {k.MAX_SEATS} players, not {len(levels)}")
    if "optimal" in levels:
        check_optimal(rules, len(levels))


@dataclass
class Lineup:
    rules: Ruleset
    levels: tuple[str, ...]
    kinds: I64 = field(init=False)
    rules_array: I64 = field(init=False)
    tab: I64 = field(init=False)

    def __post_init__(self) -> None:
        check_players(self.rules, self.levels)
        self.kinds = np.array([KINDS[level] for level in self.levels], dtype=np.int64)
        self.rules_array = rules_array(self.rules)
        self.tab = tables(self.rules)
        self._optimal: DecisionTables | None = None
        if OPTIMAL in self.kinds:
            players = len(self.levels)
            if whole_game(self.rules, players):
                self._optimal = OptimalPositions(self.rules)
                bot_tables.load(self._optimal)  # built once per machine, if it was
            else:
                self._optimal = OptimalRounds(self.rules, players)

    @property
    def index(self) -> I64:
        return self._optimal.index if self._optimal else _EMPTY[0]

    @property
    def actions(self) -> k.I8:
        return self._optimal.actions if self._optimal else _EMPTY[1]

    def play(self, key: np.ndarray, first: int, games: int, counts: I64) -> None:
        """Games ``first`` to ``first + games - 1`` under ``key``, added to ``counts``."""
        done = 0
        while done < games:
            done += k.play_batch(
                key,
                first + done,
                games - done,
                self.rules_array,
                self.tab,
                self.kinds,
                self.index,
                self.actions,
                counts,
            )
            if done < games:
                self._build_missing()

    def trace(self, key: np.ndarray, game: int, size: int) -> tuple[I64, I64]:
        """One game written down, with every position it needs built first."""
        while True:
            trace, out = k.trace_game(
                key, game, self.rules_array, self.tab, self.kinds, self.index, self.actions, size
            )
            if self.index[H_MISSING] < 0:
                return trace, out
            self._build_missing()

    def _build_missing(self) -> None:
        assert self._optimal is not None, "only the optimal bot's positions are built during play"
        self._optimal.build_missing()


_EMPTY = no_positions()
