"""The optimal bot: plays every turn to lower its exact chance of losing the manche.

It reads the position (phase, pot, tokens, who leads) from the state and
plays the solved strategy of :class:`py421.solver.heads_up.HeadsUp`: as
leader it stops when the solved values say so, as follower it best-responds
to the leader's result and throw count. Two-player games for now.
"""

from __future__ import annotations

from functools import cache

from ..core.actions import Action, ChooseStake, Stop, Throw
from ..core.errors import InvalidPlayers
from ..core.rules import Ruleset
from ..core.state import Phase, State
from ..solver.heads_up import HeadsUp, unsupported
from ..solver.tables import INDEX
from ..solver.turn import StakedValues, options, staked_options


@cache
def solved(rules: Ruleset) -> HeadsUp:
    """The solved values of a ruleset: from the disk cache, or solved once and kept there."""
    from ..solver.store import solve_cached

    return solve_cached(rules)[0]


def prepare(rules: Ruleset, players: int) -> HeadsUp:
    """Solve a table for the optimal bot before play, or say clearly why it cannot play."""
    if players != 2:
        raise InvalidPlayers(f"bot:optimal plays two-player games for now, not {players} players")
    why = unsupported(rules)
    if why:
        raise InvalidPlayers(f"bot:optimal cannot play {rules.name}: {why}")
    return solved(rules)


class OptimalBot:
    def __init__(self, seed: str = "") -> None:
        self.seed = seed

    def choose(self, state: State) -> Action:
        solver = prepare(state.rules, len(state.players))
        r = state.round
        assert r is not None
        charge = state.phase is Phase.CHARGE
        leader = r.order[0]
        if r.tie is not None:
            tied = r.done[0].result
            amount = state.rules.table.values[tied]
            return ChooseStake(solver.stake(charge, state.pot, state.tokens[0], leader, amount))
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
        return Stop() if best.stop else Throw(best.keep)
