"""The two-player game solver: the exact chance that each player loses a manche.

A manche between two players is zero-sum: exactly one of them loses it, and
each plays every turn to lower their own chance of losing it. Positions are
the starts of rounds: the phase, the pot, the tokens and the leader. Within
a round the follower best-responds to the leader's result and throw count,
and the leader, knowing that, chooses when to stop (see :mod:`.duel`); what
each final pair of results is worth is the value of the position it leads
to. The charge is solved pot level by pot level (the pot only shrinks), the
décharge by value iteration (tokens go back and forth) until the values move
by less than ``1e-13``.

Whole games are manches chained together: the loser of a manche leads the
next, so the chance that the leader of a manche's first round loses it is
all a game needs (see :func:`game_outcome`). Where the end of a manche is
worth more than who lost it (« queue de la vache », l'Espagnole losing the
game), a manche's charge is solved against what each end is worth to the
game, its :class:`Ending` (see :mod:`.heads_up_game`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from ..core.actions import Stake
from ..core.combos import NENETTE
from ..core.errors import InvalidRuleset, Message
from ..core.rules import Ruleset
from .amounts import base_amounts, settled_amounts, token_values
from .tables import INDEX, KEEP_INDEX, RESULTS, TRANSITIONS, FloatArray
from .turn import (
    MayStop,
    StakedValues,
    TurnValues,
    Utility,
    solve,
    solve_following,
    solve_staked,
    solve_staked_following,
)

TOLERANCE = 1e-13
RATE_AGREE = 1e-3  # Extrapolation: two sweeps' rates this close (relative to 1 - rate) are steady
RATE_MOST = 0.999  # a rate above is no steady shrinking to leap over
# the décharge's passes foretold (:func:`.cost.decharge_sweeps`) times the tokens in play, each pass
# visiting every split of them: 2,000,000 are about a quarter of an hour (200 tokens: 650,000, minutes;
# 999: 81 million, hours). Games of up to SMALL_GAME tokens are not foretold: far below.
MOST_PASS_TOKENS = 2_000_000
SMALL_GAME = 60
STAKE_TIE = 1e-12  # « est » and « vient » closer than this are worth the same: « est »
IntArray = npt.NDArray[np.intp]
BoolArray = npt.NDArray[np.bool_]
Debts = tuple[int, int]  # what each seat owes the next manche (« queue de la vache »)
NO_DEBTS: Debts = (0, 0)
# A value after a round: P(seat 0 loses the manche), or with an Ending [seat 0's expected share of
# the game's loss, P(the game's loss is shared)] (the second only where the Ending tracks it).
Value = float | FloatArray


class Ending(Protocol):
    """What each end of a manche is worth to the game, for a manche solved against it."""

    @property
    def debt_cap(self) -> int:
        """The largest debt worth more than a smaller one (0 without « queue de la vache »)."""
        ...

    @property
    def tracked(self) -> bool:
        """Whether the chance of a shared loss is followed along (games where one can happen)."""
        ...

    def end(self, loser: int, espagnole: bool, debts: Debts) -> FloatArray:
        """[seat 0's expected share of the game's loss, P(a shared loss)] once ``loser`` has lost the
        manche (by l'Espagnole or not), ``debts`` owed to the next."""
        ...


class LostIsBetter(InvalidRuleset):
    """Losing a manche would be worth more to its loser than winning it: the décharge, played for
    the manche, would not be the game's (not met under the rules the tests solve)."""


def unsupported(rules: Ruleset) -> Message | None:
    """Why the two-player solver cannot solve these rules (``str()``: in English), or None.

    Every ruleset two can play is solved, unless its décharge would take hours
    (:data:`MOST_PASS_TOKENS`): one manche played for itself here, and where the
    end of a manche is worth more than who lost it, the whole game manche by
    manche (:mod:`.heads_up_game`).
    """
    if why := _unseated(rules):
        return why
    from .cost import decharge_sweeps  # it builds on this module

    tokens = rules.pot + 2 * rules.initial_tokens
    if tokens > SMALL_GAME and (passes := decharge_sweeps(rules)) * tokens > MOST_PASS_TOKENS:
        return Message("solver.two_players.too_long", {"tokens": tokens, "passes": passes})
    return None


def _unseated(rules: Ruleset) -> Message | None:
    return None if rules.seats(2) else Message("solver.two_players.seats", {"rules": rules.name})


def check_lost_is_worse(rules: Ruleset, lost: FloatArray, won: FloatArray) -> None:
    """Refuse rules where losing a manche is worth more to seat 0 (``lost[0]``, its expected share
    of the game's loss) than winning it (``won[0]``): the décharge is played for the manche."""
    if lost[0] < won[0] - STAKE_TIE:
        raise LostIsBetter(
            Message(
                "solver.two_players.lost_is_better",
                {"rules": rules.name, "lost": f"{lost[0]:.6f}", "won": f"{won[0]:.6f}"},
            )
        )


def cannot_solve(rules: Ruleset, why: Message) -> Message:
    """The two-player solver's refusal of ``rules``, for the reason :func:`unsupported` gives."""
    return Message(
        "solver.two_players.cannot",
        {"rules": rules.name, "why": why},
    )


@dataclass(frozen=True)
class Settlement:
    """How every pair of final results settles, for given throw counts.

    Entries are indexed [leader's result, follower's result]. Outside ties,
    ``leader_loses`` says who loses and ``amount`` how much is at stake.
    """

    leader_loses: BoolArray
    amount: IntArray
    tie: BoolArray


@dataclass(frozen=True)
class Replays:
    """A tie-break replay of coups secs between the two, over every pair of results.

    Flat arrays over [first thrower's result, second thrower's result]: the
    chance of the pair, whether it ties again, whether the leader loses when
    it does not, the value it adds to an accumulated stake, and the amount it
    sets « pour ce qui vient ».
    """

    p: FloatArray
    tied: BoolArray
    leader_loses: BoolArray
    adds: IntArray
    amount: IntArray


@dataclass(frozen=True)
class TieValues:
    """P(seat 0 loses the manche) from a tie, by what « est » settles for.

    ``first``: before the first replay, with « main chaude » played well;
    ``fixed``: when the amount is set whatever happens (the nénette penalty);
    ``vient``: where the chooser prefers « vient » at a main chaude.
    """

    first: FloatArray
    fixed: FloatArray
    vient: BoolArray


@dataclass
class HeadsUp:
    """Solved values of the positions of a two-player manche.

    ``charge[pot][t0, leader]`` and ``decharge[t0, leader]`` are the chance
    that seat 0 loses the manche from the start of a round, seat 0 holding
    ``t0`` tokens. With an ``ending`` the charge is solved against it:
    ``charge`` is seat 0's expected share of the game's loss and ``shared``
    the chance that the loss is shared (where the ending tracks it), while the
    décharge stays the manche's (see :meth:`decharge_start`).
    """

    rules: Ruleset
    ending: Ending | None = None
    total: int = field(init=False)
    charge: dict[int, FloatArray] = field(default_factory=dict)
    shared: dict[int, FloatArray] = field(default_factory=dict)
    decharge: FloatArray = field(default_factory=lambda: np.zeros(0))
    iterations: int = 0
    # False: only its rounds are asked, for a model of the décharge (:mod:`.cost`, which also tells
    # whether the game is too long to solve): its size is not checked
    sized: bool = field(default=True, repr=False)
    _positions: dict[
        tuple[bool, int, int, int],
        tuple[TurnValues | StakedValues, dict[int, TurnValues] | dict[int, StakedValues]],
    ] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        why = unsupported(self.rules) if self.sized else _unseated(self.rules)
        if why:
            raise InvalidRuleset(cannot_solve(self.rules, why))
        self.total = self.rules.pot + 2 * self.rules.initial_tokens  # every token of the manche
        self.debt_cap = self.ending.debt_cap if self.ending is not None else 0
        self.tracked = self.ending is not None and self.ending.tracked

    def stake_cap(self, pot: int) -> int:
        """The largest accumulated stake worth more than a smaller one with ``pot`` left: a loser
        takes at most the pot, and owes at most ``debt_cap`` more (« queue de la vache »)."""
        return pot + self.debt_cap

    # -- the round -------------------------------------------------------------

    @cached_property
    def _strength(self) -> IntArray:
        table = self.rules.table
        return np.array([table.strength(r) for r in RESULTS])

    def settlement(self, leader_throws: int, follower_throws: int) -> Settlement:
        return self._settlements[(leader_throws, follower_throws)]

    @property
    def _ahead(self) -> Callable[[int, int], BoolArray] | None:
        """Players behind must throw on: where the follower's result beats the leader's (the
        leader then loses, whatever the throws), by the throws of each; else None."""
        if not self.rules.must_throw_on:
            return None
        return lambda kl, kf: self.settlement(kl, kf).leader_loses

    @property
    def _bon(self) -> bool:
        """Whether « le bon » is weighed: where a follower behind must throw on, it ends a turn
        whose next throw would add to the stake, or count against them (« qui barre démarre »)."""
        return self.rules.must_throw_on and self.rules.le_bon

    @cached_property
    def _settlements(self) -> dict[tuple[int, int], Settlement]:
        rules = self.rules
        s = self._strength
        fewer = rules.tie_break == "qui_barre_demarre"
        lead = np.arange(len(RESULTS))[:, None].repeat(len(RESULTS), 1)
        follow = lead.T
        found = {}
        for kl in range(1, 4):
            for kf in range(1, 4):
                key_l = s[lead] * 4 - (kl if fewer else 0)
                key_f = s[follow] * 4 - (kf if fewer else 0)
                nenettes = (lead == INDEX[NENETTE]) & (follow == INDEX[NENETTE])
                if rules.nenette_last_wins:
                    key_f = np.where(nenettes, key_l + 1, key_f)  # the later thrower wins
                leader_loses = key_l < key_f
                best = np.where(leader_loses, follow, lead)
                worst = np.where(leader_loses, lead, follow)
                tie = key_l == key_f
                found[(kl, kf)] = Settlement(leader_loses, settled_amounts(rules, best, worst, tie), tie)
        return found

    @cached_property
    def _replays(self) -> Replays:
        """One tie-break replay of coups secs, every pair of results at once."""
        rules = self.rules
        fresh = TRANSITIONS[KEEP_INDEX[()]]
        first, second = np.indices((len(RESULTS), len(RESULTS)))  # who throws first in the replay
        s1, s2 = self._strength[first], self._strength[second]
        both_nenette = (first == INDEX[NENETTE]) & (second == INDEX[NENETTE]) & rules.nenette_last_wins
        second_wins = (s2 > s1) | both_nenette  # a double nénette goes to the later thrower
        # seed 003 and seed 004 replay from the last player (the follower) first
        leader_first = rules.tie_break == "rampot"
        best = np.where(second_wins, second, first)
        worst = np.where(second_wins, first, second)
        return Replays(
            p=np.outer(fresh, fresh).ravel(),
            tied=((s1 == s2) & ~both_nenette).ravel(),
            leader_loses=(second_wins == leader_first).ravel(),
            adds=token_values(rules)[best].ravel(),
            amount=base_amounts(rules, best, worst).ravel(),  # « vient »: the nénette penalty aside
        )

    def _tie_values(
        self, after: FloatArray, chooser_is_zero: bool, accumulate: bool, chosen: BoolArray | None = None
    ) -> TieValues:
        """What a tie is worth once replays decide it, by the amount it would settle for.

        ``after[who, amount]`` is P(seat 0 loses the manche) once the leader
        (``who`` 0) or the follower (1) takes ``amount``. In « qui barre
        démarre », whenever a replay ties again the first to rethrow (the
        follower) chooses « est » or « vient » before the next one; the choice
        comes back unchanged if that one ties too, so the better of the two
        answers every time. With ``accumulate`` every replay adds its best
        value to the stake the round settles for. ``chosen`` imposes where
        « vient » is played (another channel following the same choices).
        """
        rep = self._replays
        width = after.shape[1]
        amounts = np.arange(width)
        loser = np.where(rep.leader_loses, 0, 1)
        decided = np.where(rep.tied, 0.0, rep.p)
        tied = np.where(rep.tied, rep.p, 0.0)
        again = float(tied.sum())
        fixed = (decided @ after[loser]) / (1 - again)  # [amount]: replays only say who takes it
        vient = float(decided @ after[loser, np.minimum(rep.amount, width - 1)])
        choose = self.rules.tie_break == "qui_barre_demarre"
        sign = -1.0 if chooser_is_zero else 1.0  # the chooser lowers or raises P(seat 0 loses)

        def better(vient_value: FloatArray, est_value: FloatArray, stake: int | None = None) -> BoolArray:
            """Where « vient » is worth more to the chooser; within 1e-12 « est » stays."""
            if chosen is not None:
                return chosen if stake is None else chosen[stake]
            found: BoolArray = choose & (sign * (vient_value - est_value) > STAKE_TIE)
            return found

        if not accumulate:
            takes = better(np.full(width, vient / (1 - again)), fixed)
            chosen = np.where(takes, vient / (1 - again), fixed)
            return TieValues(first=(1 - again) * fixed + again * chosen, fixed=fixed, vient=takes)
        # the stake only grows: solve from the largest down, a stake that stays put by its own equation
        nxt = np.minimum(amounts[None, :] + rep.adds[:, None], width - 1)  # [pair, stake]
        est_decided = np.einsum("p,pa->a", decided, after[loser[:, None], nxt])
        value = np.zeros(width)
        better_vient = np.zeros(width, dtype=bool)
        # the replays that tie again, a few of the pairs: the loop below reads only those
        again_at = np.flatnonzero(rep.tied)
        tied_again, nxt_again = tied[again_at], nxt[again_at]
        for stake in range(width - 1, -1, -1):
            moves = nxt_again[:, stake] > stake
            stay = float(tied_again[~moves].sum())
            rest = float(tied_again[moves] @ value[nxt_again[moves, stake]])
            est = (est_decided[stake] + rest) / (1 - stay)
            other = (vient + rest) / (1 - stay)
            better_vient[stake] = better(np.array(other), np.array(est), stake)
            value[stake] = other if better_vient[stake] else est
        first_replay = est_decided + np.einsum("p,pa->a", tied, value[nxt])
        return TieValues(first=first_replay, fixed=fixed, vient=better_vient)

    @cached_property
    def _free_rounds(self) -> bool:
        """Whether a charge round can be worth nothing (then a pot level loops on itself)."""
        if self.rules.tie_break == "qui_barre_demarre" and self._replays.amount.min() == 0:
            return True  # « vient » on a replay worth nothing
        if self.rules.accumulated_stakes:
            return bool(token_values(self.rules).min() == 0)
        amounts = [st.amount for st in self._settlements.values()]
        return bool(min(int(a.min()) for a in amounts) == 0)

    def _after(self, next_value: Callable[[int, int], Value], width: int) -> list[FloatArray]:
        """``[who, amount]`` for each channel: what follows the round (see :data:`Value`)."""
        found = np.array([[next_value(who, a) for a in range(width)] for who in range(3)], dtype=float)
        return [found] if found.ndim == 2 else [found[..., c] for c in range(found.shape[-1])]

    def _staked_round(
        self, leader: int, next_value: Callable[[int, int], Value], pot: int
    ) -> tuple[Value, StakedValues, dict[int, StakedValues]]:
        """A charge round where every throw adds to the stake (seed 001)."""
        rules = self.rules
        cap = self.stake_cap(pot)
        most = rules.charge_throws
        gains = token_values(rules)
        channels = self._after(next_value, cap + 1)
        ties: list[TieValues] = []
        for after in channels:
            found = self._tie_values(
                after[:2], leader == 1, accumulate=True, chosen=ties[0].vient if ties else None
            )
            if rules.tied_losers_all_take:  # no replay: both take the stake, or the penalty on nénette
                found = TieValues(first=after[2], fixed=after[2], vient=np.zeros(cap + 1, dtype=bool))
            ties.append(found)
        results = np.arange(len(RESULTS))
        nenette = results == INDEX[NENETTE]
        penalty = min(rules.nenette_penalty, cap)

        def settle(after: FloatArray, tie: TieValues, kl: int, kf: int) -> FloatArray:
            """[leader's result, follower's result, stake] -> the channel's value."""
            st = self.settlement(kl, kf)
            # each pair of results reads one row: the leader's loss (0), the follower's (1), a tie (2)
            row = np.where(st.tie, 2, np.where(st.leader_loses, 0, 1))
            settled: FloatArray = np.stack((after[0], after[1], tie.first))[row]
            if rules.nenette_penalty:  # a loser holding nénette takes the penalty, whatever the stake
                loser_nenette = np.where(st.leader_loses, nenette[:, None], nenette[None, :])
                fixed = np.where(st.leader_loses, after[0][penalty], after[1][penalty])
                fixed = np.where(st.tie, tie.fixed[penalty], fixed)
                settled = np.where(loser_nenette[..., None], fixed[..., None], settled)
            return settled

        def payoff(kl: int, kf: int) -> FloatArray:
            if len(channels) == 1:
                return settle(channels[0], ties[0], kl, kf)
            return np.stack([settle(a, t, kl, kf) for a, t in zip(channels, ties, strict=True)])

        def solver(utility: Utility, throws: int, may_stop: MayStop) -> StakedValues:
            solve_turn = solve_staked if len(channels) == 1 else solve_staked_following
            return solve_turn(utility, throws, gains, cap, may_stop, self._bon)

        tracked = len(channels) > 1
        leader_values, follower_values = _two_turns(
            leader, most, rules.leader_limit, payoff, solver, tracked, self._ahead
        )
        value = _own(leader_values.start(most)[..., 0], leader, tracked)  # the stake starts at 0
        return _plain(value), leader_values, follower_values

    def round_value(
        self,
        charge: bool,
        leader: int,
        next_value: Callable[[int, int], Value],
        pot: int | None = None,
    ) -> tuple[Value, TurnValues | StakedValues, dict[int, TurnValues] | dict[int, StakedValues]]:
        """The value of a round: ``next_value(loser, amount)`` values what follows it.

        ``loser`` is 0 for the leader, 1 for the follower, 2 for both (every tied
        loser takes). Returns P(seat 0 loses the manche) and both players' values
        (where ``next_value`` gives channels, each channel's value: see :data:`Value`).
        ``pot``: what a charge round where stakes accumulate has left to take
        (the whole pot if not said).
        """
        rules = self.rules
        if charge and rules.accumulated_stakes:
            return self._staked_round(leader, next_value, rules.pot if pot is None else pot)
        most = rules.throws_allowed(charge)
        top = int(max(token_values(rules).max(), rules.nenette_penalty))
        channels = self._after(next_value, top + 1)
        both_take = charge and rules.tied_losers_all_take
        ties: list[TieValues] = []
        for after in channels:
            chosen = ties[0].vient if ties else None
            ties.append(self._tie_values(after[:2], leader == 1, accumulate=False, chosen=chosen))

        def settle(after: FloatArray, tie: TieValues, kl: int, kf: int) -> FloatArray:
            """[leader's result, follower's result] -> the channel's value."""
            st = self.settlement(kl, kf)
            values = np.where(st.leader_loses, after[0][st.amount], after[1][st.amount])
            if both_take:
                tie_value = after[2][st.amount]
            else:
                tie_value = tie.first[st.amount]
                if rules.nenette_penalty:  # a tie on nénette pays the penalty whatever is chosen
                    tie_value[INDEX[NENETTE], INDEX[NENETTE]] = tie.fixed[rules.nenette_penalty]
            settled: FloatArray = np.where(st.tie, tie_value, values)
            return settled

        def payoff(kl: int, kf: int) -> FloatArray:
            if len(channels) == 1:
                return settle(channels[0], ties[0], kl, kf)
            return np.stack([settle(a, t, kl, kf) for a, t in zip(channels, ties, strict=True)])

        tracked = len(channels) > 1
        solver = partial(solve_following if tracked else solve, bon=self._bon)
        leader_values, follower_values = _two_turns(
            leader, most, rules.leader_limit, payoff, solver, tracked, self._ahead
        )
        value = _own(leader_values.start(most), leader, tracked)
        return _plain(value), leader_values, follower_values

    # -- positions -------------------------------------------------------------

    def _end(self, loser: int, espagnole: bool, debts: Debts, tracked: bool) -> Value:
        """What the end of the manche is worth: P(seat 0 loses it), or the ending's value."""
        if self.ending is None:
            return 1.0 if loser == 0 else 0.0
        found = self.ending.end(loser, espagnole, debts)
        return found if tracked else float(found[0])

    def decharge_ends(self, debts: Debts) -> tuple[FloatArray, FloatArray]:
        """The ending's values when seat 0 or seat 1 loses the décharge, ``debts`` owed.

        The décharge is played for the manche: its only outcomes are who loses
        it, and both players rank them oppositely as long as losing is worth
        more to seat 0 than winning (checked: :class:`LostIsBetter` otherwise).
        Its value is then an affine map of the chance that seat 0 loses it.
        """
        assert self.ending is not None
        lost, won = self.ending.end(0, False, debts), self.ending.end(1, False, debts)
        check_lost_is_worse(self.rules, lost, won)
        return lost, won

    def decharge_start(self, loses: float, debts: Debts, tracked: bool = False) -> Value:
        """What a décharge is worth when seat 0 loses it with the chance ``loses``, ``debts`` owed."""
        if self.ending is None:
            return loses
        lost, won = self.decharge_ends(debts)
        found: FloatArray = won + (lost - won) * loses
        return found if tracked else float(found[0])

    def charge_end(self, tokens: Sequence[int], leader: int, debts: Debts, tracked: bool = False) -> Value:
        """The end of the charge, the last round's loser ``leader``: l'Espagnole or the décharge."""
        rules = self.rules
        # with two players, a player without tokens leaves the other holding them all, who
        # loses the manche (l'Espagnole)
        if 0 in tokens:
            return self._end(0 if tokens[1] == 0 else 1, True, debts, tracked)
        if rules.decharge_leader == "worst_coup_sec":  # a fair draw between the two
            loses = float(self.decharge[tokens[0]].mean())
        else:
            nxt = leader
            if rules.decharge_leader == "fewest_tokens" and tokens[0] != tokens[1]:
                nxt = 0 if tokens[0] < tokens[1] else 1
            loses = float(self.decharge[tokens[0], nxt])
        return self.decharge_start(loses, debts, tracked)

    def _charge_next(
        self, pot: int, t0: int, leader: int, tracked: bool = False
    ) -> Callable[[int, int], Value]:
        rules = self.rules
        follower = 1 - leader
        queue = rules.queue_de_la_vache and self.ending is not None

        def value(who: int, amount: int) -> Value:
            tokens = [t0, self.total - pot - t0]
            debts = [0, 0]
            left = pot
            losers = (leader, follower) if who == 2 else ((leader,) if who == 0 else (follower,))
            for seat in losers:
                take = min(amount, left)
                tokens[seat] += take
                left -= take
                debts[seat] += amount - take  # owed to the next manche, with « queue de la vache »
            nxt = losers[0]
            if left:
                if tracked:
                    return np.array([self.charge[left][tokens[0], nxt], self.shared[left][tokens[0], nxt]])
                return float(self.charge[left][tokens[0], nxt])
            owed = (min(debts[0], self.debt_cap), min(debts[1], self.debt_cap)) if queue else NO_DEBTS
            return self.charge_end(tokens, nxt, owed, tracked)

        return value

    def _decharge_next(self, t0: int, leader: int) -> Callable[[int, int], float]:
        def value(who: int, amount: int) -> float:
            tokens = [t0, self.total - t0]
            loser = leader if who == 0 else 1 - leader
            winner = 1 - loser
            give = min(amount, tokens[winner])
            tokens[winner] -= give
            tokens[loser] += give
            if tokens[winner] == 0:  # the winner gives its last token and leaves
                return 1.0 if loser == 0 else 0.0
            return float(self.decharge[tokens[0], loser])

        return value

    def solve(self, progress: Callable[[str, int], None] | None = None) -> HeadsUp:
        """Solve every position: the décharge first, then the charge from small pots up."""
        self.solve_decharge(progress)
        return self.solve_charge(progress)

    def solve_decharge(self, progress: Callable[[str, int], None] | None = None) -> HeadsUp:
        """The décharge by value iteration, played for the manche, sped up by :class:`Extrapolation`."""
        total = self.total
        self.decharge = np.full((total + 1, 2), 0.5)
        inner = range(1, total)
        speeding = Extrapolation()
        while True:
            before = self.decharge.copy()
            for t0 in inner:
                for leader in (0, 1):
                    v, _, _ = self.round_value(False, leader, self._decharge_next(t0, leader))
                    assert isinstance(v, float)
                    self.decharge[t0, leader] = v
            self.iterations += 1
            if progress:
                progress("decharge", self.iterations)
            step = speeding.step(self.decharge - before)
            if step is None:
                break
            self.decharge += step
        return self

    def solve_charge(self, progress: Callable[[str, int], None] | None = None) -> HeadsUp:
        """The charge from small pots up, once the décharge is solved.

        A round worth nothing leaves the pot and the tokens as they were, only
        who leads may change: the two positions at the same tokens (by who
        leads) then depend on each other alone, and are iterated together until
        they settle, leaping ahead as the décharge does (:class:`Extrapolation`).
        """
        total = self.total
        tracked = self.tracked
        for pot in range(1, self.rules.pot + 1):
            level = np.full((total - pot + 1, 2), 0.5)
            self.charge[pot] = level
            shared = self.shared[pot] = np.zeros_like(level)
            for t0 in range(total - pot + 1):
                speeding = Extrapolation()
                while True:
                    before = np.concatenate([level[t0], shared[t0]])
                    for leader in (0, 1):
                        nxt = self._charge_next(pot, t0, leader, tracked)
                        v, _, _ = self.round_value(True, leader, nxt, pot)
                        if tracked:
                            assert not isinstance(v, float)
                            shared[t0, leader] = v[1]
                            v = float(v[0])
                        level[t0, leader] = v
                    if not self._free_rounds:
                        break
                    step = speeding.step(np.concatenate([level[t0], shared[t0]]) - before)
                    if step is None:
                        break
                    level[t0] += step[:2]
                    shared[t0] += step[2:]
            if not tracked:
                del self.shared[pot]
            if progress:
                progress("charge", pot)
        return self

    def start(self) -> FloatArray:
        """P(seat 0 loses the manche) from its first round, by who leads it (seat 0 or 1)."""
        start: FloatArray = self.charge[self.rules.pot][self.rules.initial_tokens]
        return start

    def manche_loss(self) -> float:
        """P(the leader of a manche's first round loses that manche)."""
        return float(self.start()[0])

    def position(
        self, charge: bool, pot: int, t0: int, leader: int
    ) -> tuple[TurnValues | StakedValues, dict[int, TurnValues] | dict[int, StakedValues]]:
        """Both players' turn values at the start of a round, to play it."""
        key = (charge, pot, t0, leader)
        found = self._positions.get(key)
        if found is None:
            nxt = self._charge_next(pot, t0, leader) if charge else self._decharge_next(t0, leader)
            _, leader_values, follower_values = self.round_value(charge, leader, nxt, pot)
            found = self._positions[key] = (leader_values, follower_values)
        return found

    def stakes(self, charge: bool, pot: int, t0: int, leader: int) -> BoolArray:
        """« Main chaude »: where the follower plays « vient », by what « est » settles for.

        Indexed by the round's amount (0 to the largest value or penalty), or
        in a charge where stakes accumulate, by the stake so far (0 to
        :meth:`stake_cap`: any stake from the pot up takes the whole pot, and
        what it leaves owed counts up to ``debt_cap``).
        """
        nxt = self._charge_next(pot, t0, leader) if charge else self._decharge_next(t0, leader)
        accumulate = charge and self.rules.accumulated_stakes
        top = int(max(token_values(self.rules).max(), self.rules.nenette_penalty))
        width = self.stake_cap(pot) + 1 if accumulate else top + 1
        after = np.array([[nxt(who, a) for a in range(width)] for who in (0, 1)])
        return self._tie_values(after, chooser_is_zero=leader == 1, accumulate=accumulate).vient

    def stake(self, charge: bool, pot: int, t0: int, leader: int, amount: int) -> Stake:
        """« Main chaude »: the follower's better stake when « est » settles for ``amount``."""
        choices = self.stakes(charge, pot, t0, leader)
        return "vient" if choices[min(amount, len(choices) - 1)] else "est"


class Extrapolation:
    """Value iteration that leaps ahead where its changes shrink at a steady rate.

    Each sweep of the décharge moves the values by ``change``. Near the end
    the policies no longer change and a sweep is a linear map whose slowest
    mode soon carries nearly all of the change, shrinking it by the same
    ``rate`` each sweep (0.887 for vache-41's 41 tokens). Once two sweeps
    agree on the rate, the sweeps still to come of that mode add up to
    ``change * rate / (1 - rate)``: that is added at once. The iteration ends
    on a sweep that moved no value by more than ``TOLERANCE * (1 - rate)``:
    by then the values are closer to the fixed point than plain sweeps
    stopping at ``TOLERANCE`` leave them. vache-41: 82 sweeps and three leaps,
    where plain sweeps took 210.
    """

    def __init__(self) -> None:
        self.last: FloatArray | None = None
        self.rates: list[float] = []  # since the last leap
        self.rate = 0.0  # the last one measured, leaps aside

    def step(self, change: FloatArray) -> FloatArray | None:
        """After a sweep that moved the values by ``change``: None when they are settled, else
        what to add to them (nothing, or the leap once the rate has held)."""
        last, self.last = self.last, change
        rate = self.rate
        if last is not None:
            scale = float((last * last).sum())
            rate = self.rate = float((change * last).sum()) / scale if scale > 0 else 0.0
            self.rates.append(rate)
        if float(np.abs(change).max()) < TOLERANCE * (1 - min(max(rate, 0.0), RATE_MOST)):
            return None
        steady = len(self.rates) >= 2 and abs(rate - self.rates[-2]) < RATE_AGREE * (1 - rate)
        if not steady or not 0 < rate <= RATE_MOST:
            return np.zeros_like(change)
        self.last, self.rates = None, []  # the next leap waits for the rate of the next mode
        leap: FloatArray = change * (rate / (1 - rate))
        return leap


def _own(values: FloatArray, seat: int, tracked: bool = False) -> FloatArray:
    """A seat's own objective from P(seat 0 loses the manche): not to lose it.

    ``tracked``: channels first; only the first is the objective, the others follow.
    """
    if not tracked:
        return 1 - values if seat == 0 else values
    own = values.copy()
    if seat == 0:
        own[0] = 1 - values[0]
    return own


def _plain(value: FloatArray) -> Value:
    """A round's value: a float, or its channels."""
    return float(value) if value.ndim == 0 else value


class _Solved(Protocol):
    def start(self, throws: int) -> FloatArray: ...


V = TypeVar("V", bound=_Solved)


def _two_turns(
    leader: int,
    most: int,
    leader_limit: bool,
    payoff: Callable[[int, int], FloatArray],
    solver: Callable[[Utility, int, MayStop], V],
    tracked: bool = False,
    ahead: Callable[[int, int], BoolArray] | None = None,
) -> tuple[V, dict[int, V]]:
    """The round's two turns: the follower best-responds, the leader anticipates.

    ``payoff(leader_throws, follower_throws)`` gives P(seat 0 loses the manche)
    for every pair of final results (``tracked``: channels first, see :data:`Value`).
    ``ahead(leader_throws, follower_throws)``: where the follower's result beats
    the leader's, the only results they may stop on with throws left (players
    behind must throw on); None: they may stop anywhere.
    """
    follower = 1 - leader
    follower_values: dict[int, V] = {}
    leader_utility: dict[int, FloatArray] = {}
    for kl in range(1, most + 1):
        limit = kl if leader_limit else most
        tables = {r: _own(payoff(kl, limit - r), follower, tracked) for r in range(limit)}
        may_stop = None if ahead is None else (lambda r, kl=kl, limit=limit: ahead(kl, limit - r))
        values = solver(lambda r, t=tables: t[r], limit, may_stop)  # type: ignore[misc]
        follower_values[kl] = values
        seat0_loses = _own(values.start(limit), follower, tracked)
        leader_utility[kl] = _own(seat0_loses, leader, tracked)
    return solver(lambda r: leader_utility[most - r], most, None), follower_values


@dataclass(frozen=True)
class GameOutcome:
    """A whole two-player game from the start, seat 0 leading the first round."""

    manche_loss: float  # P(a manche's first leader loses it)
    lose: tuple[float, float]  # P(each seat is among the game's losers)
    shared: float  # P(the loss is shared)


def game_outcome(rules: Ruleset, manche_loss: float) -> GameOutcome:
    """Chain manches: the loser of one leads the next."""
    w = manche_loss
    # states: (manches lost by seat 0, by seat 1, leader) -> probability
    states: dict[tuple[int, int, int], float] = {(0, 0, 0): 1.0}
    finished: dict[tuple[int, int], float] = {}
    goal = rules.fiches_de_manche
    for _ in range(goal * 2 if goal else rules.manches):
        nxt: dict[tuple[int, int, int], float] = {}
        for (a, b, leader), p in states.items():
            for loser, q in ((leader, w), (1 - leader, 1 - w)):
                key = (a + (loser == 0), b + (loser == 1), loser)
                if goal and max(key[:2]) >= goal:
                    finished[key[:2]] = finished.get(key[:2], 0.0) + p * q
                else:
                    nxt[key] = nxt.get(key, 0.0) + p * q
        states = nxt
    for (a, b, _), p in states.items():
        finished[(a, b)] = finished.get((a, b), 0.0) + p
    lose0 = sum(p for (a, b), p in finished.items() if a >= b)
    lose1 = sum(p for (a, b), p in finished.items() if b >= a)
    shared = sum(p for (a, b), p in finished.items() if a == b)
    return GameOutcome(w, (lose0, lose1), shared)
