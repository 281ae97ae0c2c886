"""The optimal bot.

With two players it plays the solved game of :class:`py421.solver.heads_up.HeadsUp`:
every decision lowers its exact chance of losing the manche; where the end of
a manche is worth more than who lost it (« queue de la vache », l'Espagnole
losing the game), it plays the whole game manche by manche
(:mod:`py421.solver.heads_up_game`), lowering its expected share of the
game's loss. With three or
four it plays the whole game solved by max^n (:mod:`py421.solver.game_maxn`):
every decision lowers its expected share of the game's loss, anticipating
that every other player does the same for themselves. Elsewhere (five
players or more, or rules those solvers do not cover, as
:func:`py421.solver.game_maxn.unsupported` says) it plays each round by
max^n over the round's tokens (:mod:`py421.solver.rounds`), which is exact
for that objective, not for the whole game.
"""

from __future__ import annotations

from ..core.actions import Action, ChooseStake, Stake, Stop, Throw
from ..core.engine import est_amount, players_refused, throws_allowed
from ..core.errors import InvalidPlayers
from ..core.rules import Ruleset
from ..core.state import Phase, State
from ..solver import game_maxn
from ..solver.coverage import covering, two_player_game
from ..solver.exact_turn import Option
from ..solver.game_maxn import GameMaxn
from ..solver.heads_up import HeadsUp
from ..solver.heads_up_game import HeadsUpGame, carries_over
from ..solver.rounds import STOP, RoundValues, check_round_players, round_for, vient_amount
from ..solver.solutions import (
    kept_game,
    kept_heads_up_game,
    manche_solution,
    solved,
    solved_game,
    solved_heads_up_game,
)
from ..solver.tables import INDEX, KEEPS
from ..solver.turn import StakedValues, options, staked_options


def whole_game(rules: Ruleset, players: int) -> bool:
    """Whether the bot plays the exactly solved two-player game."""
    return two_player_game(rules, players)


def game_level(rules: Ruleset, players: int) -> bool:
    """Whether the bot plays the game of three or four players solved by max^n."""
    return covering(rules, players, maxn_at_two=False) == "game_maxn"


def prepare(
    rules: Ruleset, players: int, progress: game_maxn.Progress | None = None, *, solve_games: bool = True
) -> HeadsUp | HeadsUpGame | GameMaxn | None:
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
    if whole_game(rules, players) and not carries_over(rules):
        return solved(rules)
    if whole_game(rules, players):  # the game where manches carry over: seconds to minutes (vache-41)
        game = solved_heads_up_game(rules, progress) if solve_games else kept_heads_up_game(rules)
        if game is not None:
            return game
    if game_level(rules, players):
        kept = solved_game(rules, players, progress) if solve_games else kept_game(rules, players)
        if kept is not None:
            return kept
    for charge in (True, False):
        round_for(rules, players, charge, rules.pot)  # the costliest rounds, solved before play
    return None


def check_optimal(rules: Ruleset, players: int) -> None:
    """Refuse, with the reason, a table the optimal bot cannot play."""
    if rules.must_throw_on:
        raise InvalidPlayers(
            "bot:optimal does not play under must_throw_on (players behind must throw on): "
            "the solvers let every player stop; seat bot:heuristic or bot:random"
        )
    if not whole_game(rules, players):
        check_round_players(players)


class OptimalBot:
    """``solve_games=False``: three or four players are played whole only where the game was solved
    on this machine before (see :func:`prepare`)."""

    def __init__(self, seed: str = "", *, solve_games: bool = True) -> None:
        self.seed = seed
        self.solve_games = solve_games

    def choose(self, state: State) -> Action:
        players = len(state.players)
        if whole_game(state.rules, players):
            rules = state.rules
            if self.solve_games or not carries_over(rules) or kept_heads_up_game(rules) is not None:
                return self._game(state)
            return self._round(state)
        r = state.round
        if game_level(state.rules, players) and r is not None and r.tie is None:
            game = solved_game(state.rules, players) if self.solve_games else kept_game(state.rules, players)
            if game is not None:
                return game.action(state)
        return self._round(state)

    def _round(self, state: State) -> Action:
        r = state.round
        assert r is not None
        charge = state.phase is Phase.CHARGE
        finals = [t.result for t in r.done]
        if r.tie is not None:  # the one who would pay takes the cheaper stake, the other the dearer
            taker = state.to_move in r.tie.worst
            cheaper = vient_amount(state.rules) < est_amount(state)
            stake: Stake = "vient" if cheaper == taker else "est"
            return ChooseStake(stake)
        values: RoundValues = round_for(state.rules, len(r.order), charge, state.pot)
        limit = throws_allowed(state)
        keep = values.choice(finals, limit, r.dice, limit - r.throws)
        return Stop() if keep == STOP else Throw(KEEPS[keep])

    def _game(self, state: State) -> Action:
        solver = manche_solution(state.rules, (state.manche_losses[0], state.manche_losses[1]))
        r = state.round
        assert r is not None
        charge = state.phase is Phase.CHARGE
        leader = r.order[0]
        if r.tie is not None:  # what « est » settles for, or the stake so far (the largest that matters)
            return ChooseStake(solver.stake(charge, state.pot, state.tokens[0], leader, est_amount(state)))
        leader_values, follower_values = solver.position(charge, state.pot, state.tokens[0], leader)
        most = state.rules.throws_allowed(charge)
        row: int | None = None
        if not r.done:
            values, remaining = leader_values, most - r.throws
        else:
            first = r.done[0]
            limit = first.throws if state.rules.leader_limit else most
            values, remaining = follower_values[first.throws], limit - r.throws
            row = INDEX[first.result]
        if isinstance(values, StakedValues):  # every throw adds to the stake
            best = staked_options(values, r.dice, remaining, r.stake, row)[0]
        else:
            best = options(values, r.dice, remaining, row)[0]
        return _action(best)


class RoundsOptimalBot(OptimalBot):
    """The optimal bot playing each round by max^n at three and four players too, as it did before the
    whole game was solved: what the game-level solution gains is measured against it."""

    def choose(self, state: State) -> Action:
        if whole_game(state.rules, len(state.players)):
            return self._game(state)
        return self._round(state)


def _action(best: Option) -> Action:
    return Stop() if best.stop else Throw(best.keep)
