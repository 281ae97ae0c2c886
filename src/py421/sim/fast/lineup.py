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
from ...core.errors import InvalidPlayers, Message
from ...core.rules import Ruleset
from ...players.optimal import check_optimal
from ...players.registry import accepted, find_level
from ...solver.strategy import played, two_player_game
from . import bot_tables
from . import kernel as k
from .arrays import rules_array, tables
from .optimal_tables import DecisionTables, MaxnTables, OptimalPositions, OptimalRounds
from .policy import H_MISSING, LINEUP_KINDS, OPTIMAL, OPTIMAL_ROUNDS, no_positions

I64 = k.I64


def parse_players(text: str | Sequence[str]) -> tuple[str, ...]:
    """Bot levels from ``bot:optimal,bot:heuristic``; says what is accepted otherwise. Any level of
    :mod:`py421.players.registry` plays: those with no compiled twin through the engine."""
    items = [p.strip() for p in (text.split(",") if isinstance(text, str) else text)]
    found = []
    for item in items:
        level = find_level(item[4:] if item.lower().startswith("bot:") else item)
        if level is None:
            bots = accepted()
            raise InvalidPlayers(Message("sim.cannot_play", {"item": repr(item), "accepted": bots}))
        found.append(level.key)
    return tuple(found)


def check_players(rules: Ruleset, levels: Sequence[str]) -> None:
    """As many seats as the rules allow (the engine's own check) and the simulator holds."""
    engine.check_players(rules, [f"P{s}" for s in range(len(levels))])
    if len(levels) > k.MAX_SEATS:
        f"the simulator seats at most {k.MAX_SEATS} players, not {len(levels)}"
        raise InvalidPlayers(Message("sim.most_seats", {"most": k.MAX_SEATS, "n": len(levels)}))
    if any(level.startswith("optimal") for level in levels):
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
        self.kinds = np.array([LINEUP_KINDS[level] for level in self.levels], dtype=np.int64)
        self.rules_array = rules_array(self.rules)
        self.tab = tables(self.rules)
        self._optimal: DecisionTables | None = None
        self._rounds: DecisionTables | None = None
        players = len(self.levels)
        if OPTIMAL_ROUNDS in self.kinds:
            self._rounds = OptimalRounds(self.rules, players)
        if OPTIMAL in self.kinds:
            if two_player_game(self.rules, players):
                self._optimal = OptimalPositions(self.rules)
                bot_tables.load(self._optimal)  # built once per machine, if it was
            elif played(self.rules, players) == "game_maxn":  # as the engine's bot:optimal plays
                self._optimal = _maxn_tables(self.rules, players)
            else:
                self._optimal = OptimalRounds(self.rules, players)

    @property
    def index(self) -> I64:
        return self._optimal.index if self._optimal else _EMPTY[0]

    @property
    def actions(self) -> k.I8:
        return self._optimal.actions if self._optimal else _EMPTY[1]

    @property
    def tables(self) -> tuple[I64, k.I8, I64, k.I8]:
        """What the kernel reads: the optimal bot's tables, then the round-by-round bot's."""
        rounds = (self._rounds.index, self._rounds.actions) if self._rounds else _EMPTY
        return self.index, self.actions, *rounds

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
                *self.tables,
                counts,
            )
            if done < games:
                assert self._build_missing(), "only the optimal bots' positions are built during play"

    def trace(self, key: np.ndarray, game: int, size: int) -> tuple[I64, I64]:
        """One game written down, with every position it needs built first."""
        while True:
            trace, out = k.trace_game(key, game, self.rules_array, self.tab, self.kinds, *self.tables, size)
            if not self._build_missing():
                return trace, out

    def _build_missing(self) -> bool:
        """Build what a game asked for; whether there was anything."""
        found = False
        for bot in (self._optimal, self._rounds):
            if bot is not None and bot.index[H_MISSING] >= 0:
                bot.build_missing()
                found = True
        return found


_EMPTY = no_positions()
_MAXN: dict[tuple[Ruleset, int], MaxnTables] = {}


def _maxn_tables(rules: Ruleset, players: int) -> MaxnTables:
    """The game-level tables of this process, shared by lineups of the same rules and players.

    They are the same whichever seats the optimal bot holds, and building
    them takes seconds; only the last rules' are kept.
    """
    found = _MAXN.get((rules, players))
    if found is None:
        _MAXN.clear()
        found = _MAXN[(rules, players)] = MaxnTables(rules, players)
    return found
