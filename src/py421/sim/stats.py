"""What each player did in a finished game, counted from its events."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.combos import FOUR_TWO_ONE, NENETTE
from ..core.events import Gave, RoundDecided, Thrown, Took
from ..core.game import Game


@dataclass(frozen=True, slots=True)
class PlayerStats:
    seat: int
    name: str
    lost: bool  # among the game's losers (a shared loss counts for each)
    rounds_lost: int
    throws_421: int
    nenettes: int
    tokens_taken: int  # taken from the pot in the charge and received in the décharge


def game_stats(game: Game) -> list[PlayerStats]:
    n = len(game.players)
    rounds = [0] * n
    fours = [0] * n
    nenettes = [0] * n
    taken = [0] * n
    for state in game.states:
        for e in state.events:
            if isinstance(e, Thrown) and e.result is not None:
                fours[e.seat] += e.result == FOUR_TWO_ONE
                nenettes[e.seat] += e.result == NENETTE
            elif isinstance(e, RoundDecided):
                for s in e.losers:
                    rounds[s] += 1
            elif isinstance(e, Took):
                taken[e.seat] += e.amount
            elif isinstance(e, Gave):
                taken[e.receiver] += e.amount
    outcome = game.state.outcome
    losers = set(outcome.losers) if outcome else set()
    return [
        PlayerStats(s, name, s in losers, rounds[s], fours[s], nenettes[s], taken[s])
        for s, name in enumerate(game.players)
    ]
