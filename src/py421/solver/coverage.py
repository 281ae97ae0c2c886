"""Which solver covers a table: the choice made here once, for the optimal bot, the analysis and
the hints (and the costs told before solving).

- The two-player game solver (:mod:`.heads_up`) when two players play rules it models; manche by
  manche (:mod:`.heads_up_game`) where manches carry over (« queue de la vache », l'Espagnole
  losing the game).
- Else the whole game by max^n (:mod:`.game_maxn`), at any number of players it models.
- Else round by round (:mod:`.rounds`).

The optimal bot differs in one point: at two players it plays the two-player solver or round by
round, never max^n (``maxn_at_two=False``).
"""

from __future__ import annotations

from typing import Literal

from ..core.rules import Ruleset
from . import game_maxn, heads_up
from .heads_up_game import carries_over

Covering = Literal["heads_up", "heads_up_game", "game_maxn", "rounds"]


def covering(rules: Ruleset, players: int, *, maxn_at_two: bool = True) -> Covering:
    """The solver that values a table of ``players`` under ``rules``.

    >>> from py421.core.rules import Ruleset
    >>> covering(Ruleset.preset("classic-11"), 2), covering(Ruleset.preset("vache-41"), 2)
    ('heads_up', 'heads_up')
    >>> covering(Ruleset.preset("classic-11"), 3), covering(Ruleset.preset("classic-11"), 6)
    ('game_maxn', 'rounds')
    """
    if players == 2 and heads_up.unsupported(rules) is None:
        return "heads_up_game" if carries_over(rules) else "heads_up"
    if (players > 2 or maxn_at_two) and game_maxn.unsupported(rules, players) is None:
        return "game_maxn"
    return "rounds"


def two_player_game(rules: Ruleset, players: int) -> bool:
    """Whether the two-player game solver covers the table (manche by manche or not)."""
    return covering(rules, players) in ("heads_up", "heads_up_game")
