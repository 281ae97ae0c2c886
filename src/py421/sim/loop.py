"""The single play loop: dice from a source, decisions from players."""

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
