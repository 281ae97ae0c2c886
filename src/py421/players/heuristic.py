"""The heuristic bot: plays like a decent bar player.

It chases 421 and aces, keeps pairs towards a brelan, stops as soon as its
result beats what it must beat (the worst result so far, and in the
décharge the best one too), and as leader stops on a good result. It never
looks further than that; the optimal bot does.
"""

from __future__ import annotations

from ..core.actions import Action, ChooseStake, Stop, Throw
from ..core.combos import Category
from ..core.dice import Result
from ..core.engine import throws_allowed
from ..core.state import Phase, State

# Results a leader keeps without trying again: a suite or better in the usual rankings.
GOOD_RANK = 16


class HeuristicBot:
    def choose(self, state: State) -> Action:
        r = state.round
        assert r is not None
        legal = state.legal_actions()
        if r.tie is not None:
            return ChooseStake("est")  # a known stake rather than a gamble
        if self._should_stop(state) and Stop() in legal:
            return Stop()
        keep = self.keep(r.dice)
        return Throw(keep) if Throw(keep) in legal else Stop()

    def _should_stop(self, state: State) -> bool:
        r = state.round
        assert r is not None
        table = state.rules.table
        current = Result.of(r.dice)
        if table.categories[current] in (Category.FOUR_TWO_ONE, Category.TRIPLE_ACE):
            return True
        finals = [t.result for t in r.done]
        if not finals:  # the leader sets the bar: stop on a good result
            return table.rank(current) <= GOOD_RANK
        worst = min(finals, key=table.strength)
        safe = table.beats(current, worst)
        if state.phase is Phase.DECHARGE:
            best = max(finals, key=table.strength)
            winning = table.beats(current, best)
            left = throws_allowed(state) - r.throws
            # Being the winner gives tokens away; settle for safe only near the end.
            return winning or (safe and left <= 1)
        return safe

    @staticmethod
    def keep(dice: tuple[int, ...]) -> tuple[int, ...]:
        """The dice kept from ``dice`` before throwing again."""
        faces = sorted(dice, reverse=True)
        if faces.count(1) >= 2:
            return (1, 1)  # two aces: x11, 111 or 421 are one die away
        parts = [f for f in (4, 2, 1) if f in faces]
        if len(parts) >= 2:
            return tuple(parts[:2])  # chase 421
        for f in faces:
            if faces.count(f) == 2:
                return (f, f)  # chase the brelan
        if 1 in faces:
            return (1,)
        return ()
