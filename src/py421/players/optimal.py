"""The optimal bot: it plays the strategy of the solver that covers its table
(:func:`py421.solver.strategy.strategy_for`).

With two players that is the solved game of :class:`py421.solver.heads_up.HeadsUp`:
every decision lowers its exact chance of losing the manche; where the end of
a manche is worth more than who lost it (« queue de la vache », l'Espagnole
losing the game), it plays the whole game manche by manche
(:mod:`py421.solver.heads_up_game`), lowering its expected share of the
game's loss. With three to five it plays the whole game solved by max^n
(:mod:`py421.solver.game_maxn`): every decision lowers its expected share of
the game's loss, anticipating that every other player does the same for
themselves. Elsewhere (five players or more, or rules those solvers do not
cover, as :func:`py421.solver.game_maxn.unsupported` says) it plays each
round by max^n over the round's tokens (:mod:`py421.solver.rounds`), which
is exact for that objective, not for the whole game.
"""

from __future__ import annotations

from ..core.actions import Action
from ..core.engine import players_refused
from ..core.errors import InvalidPlayers
from ..core.rules import Ruleset
from ..core.state import State
from ..solver import game_maxn
from ..solver.strategy import RoundsStrategy, Strategy, refuse, strategy_for, two_player_game, whole_game_maxn

# Which solver plays a table, as the simulator's and environments' tables ask it.
whole_game = two_player_game
game_level = whole_game_maxn


def prepare(
    rules: Ruleset, players: int, progress: game_maxn.Progress | None = None, *, solve_games: bool = True
) -> Strategy:
    """Solve a table for the optimal bot before play, or say clearly why it cannot play.

    Three- and four-player games are solved once per machine: from seconds to
    about fifteen minutes (four players of ``classic-11``), with ``progress``.
    ``solve_games=False`` (a server): such a game, and a two-player game
    where manches carry over, is played whole only if it was solved on this
    machine before, else round by round.
    """
    if not rules.seats(players):
        raise InvalidPlayers(players_refused(rules, players))
    check_optimal(rules, players)
    strategy = strategy_for(rules, players, solve=solve_games, progress=progress)
    strategy.warm()
    return strategy


def check_optimal(rules: Ruleset, players: int) -> None:
    """Refuse, with the reason, a table the optimal bot cannot play."""
    refuse(rules, players, "optimal")


class OptimalBot:
    """``solve_games=False``: three to five players are played whole only where the game was solved
    on this machine before (see :func:`prepare`)."""

    def __init__(self, seed: str = "", *, solve_games: bool = True) -> None:
        self.seed = seed
        self.solve_games = solve_games

    def choose(self, state: State) -> Action:
        # asked at each decision: a game solved elsewhere meanwhile is played from then on
        return strategy_for(state.rules, len(state.players), solve=self.solve_games).choose(state)


class RoundsOptimalBot(OptimalBot):
    """The optimal bot playing each round by max^n at three to five players too, as it did before the
    whole game was solved: what the game-level solution gains is measured against it."""

    def choose(self, state: State) -> Action:
        players = len(state.players)
        if two_player_game(state.rules, players):
            return strategy_for(state.rules, players).choose(state)
        return RoundsStrategy(state.rules, players).choose(state)
