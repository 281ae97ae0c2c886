"""A game of bots played out through the engine: dice from a source, decisions from players.

The engine's side of the fast simulator (:func:`py421.sim.simulate.engine_game`: the games its
kernel is held to, and its benchmark). A game with people at the table goes through
:class:`py421.play.session.Session`, the play loop of every interface.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.chance import DiceSource
from ..core.game import Game
from ..players.base import Player


def play_out(game: Game, players: Sequence[Player], dice: DiceSource) -> Game:
    """Play ``game`` to its end; ``players[seat]`` decides for that seat."""
    while not game.state.is_over:
        state = game.state
        request = state.chance
        if request is not None:
            game.throw(dice.throw(request))
        else:
            seat = state.to_move
            assert seat is not None
            game.act(players[seat].choose(state))
    return game
