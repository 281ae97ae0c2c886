"""Two-player games whose manches end in more ways than who lost them.

:mod:`.heads_up` plays a manche for itself: exact for the game where the only
thing a manche decides is who lost it, since both players rank those two
outcomes oppositely. Two options break that:

- « queue de la vache »: a charge loser who must take more than the pot
  holds owes the rest, and takes it first from the next manche's pot. A
  manche ends with a loser *and* the debts it leaves, and what that is worth
  to each player is the value of the next manche started with those debts;
- l'Espagnole losing the game (``espagnole = loses_game``) over several
  manches: a manche lost by l'Espagnole ends the game, one lost otherwise
  does not.

Here the game is solved manche by manche, from the last: the manche played
after ``lost`` manches lost by each seat (its *context*) has terminal values
from the manches after it, and every value is seat 0's expected share of the
game's loss (1 alone, 1/2 shared), so the two players' values still sum to 1
and each manche is a constant-sum game between them.

**The charge** is solved against its context's :class:`~.heads_up.Ending`.
Debts are zero while the charge is played: they are paid as a manche starts,
and a debt of a whole pot or more empties it at once, so no charge round is
played. Only the charge's last round can leave a debt, and it is valued with
it. **The décharge** only decides who loses the manche, the debts being
fixed; as long as losing it is worth more to seat 0 than winning it (checked
at every décharge start), it is played as in the manche played for itself,
and its value is an affine map of that manche's chance of losing. A context
whose ends are worth only who lost (no debt that matters, l'Espagnole worth
the same as another loss) is that manche itself, its values mapped.

**The stake's cap.** An accumulated stake has no largest value (each rampot
replay adds to it), but a debt is paid from the manches that follow, a pot at
most each: a debt above the pot times the manches that can still follow is
worth the same as that. With ``R`` such manches the stake matters up to the
pot left plus ``R`` pots (``vache-41``: up to 82 in the first manche, the pot
in the second). Contexts are turned so that the seat with more manches lost
is seat 0: the others are their mirror images.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..core.actions import Stake
from ..core.errors import InvalidRuleset
from ..core.rules import Ruleset
from ..core.state import Phase, State
from .heads_up import (
    NO_DEBTS,
    BoolArray,
    Debts,
    GameOutcome,
    HeadsUp,
    cannot_solve,
    check_lost_is_worse,
    unsupported,
)
from .tables import FloatArray
from .turn import StakedValues, TurnValues

Lost = tuple[int, int]  # manches lost by seat 0 and seat 1
# How far a solve is: ("manche", number, of) for each manche solved against the game, then
# ("decharge", pass, 0) and ("charge", pot level, full pot), as game_maxn.Progress.
Progress = Callable[[str, int, int], None]
Turns = tuple[TurnValues | StakedValues, dict[int, TurnValues] | dict[int, StakedValues]]


def carries_over(rules: Ruleset) -> bool:
    """Whether the end of a manche is worth more than who lost it, so the game is solved whole."""
    several = rules.manches > 1 or rules.fiches_de_manche > 0
    espagnole = several and rules.espagnole == "loses_game" and not rules.initial_tokens  # else impossible
    return rules.queue_de_la_vache or espagnole


def manche_rules(rules: Ruleset) -> Ruleset:
    """The rules of one manche played for itself (its décharge is every manche's)."""
    return rules.with_options(queue_de_la_vache=False, espagnole="loses_manche")


@dataclass(frozen=True)
class _Ending:
    """The ends of the manche played at ``lost``, as :class:`.heads_up.Ending`."""

    game: HeadsUpGame
    lost: Lost
    debt_cap: int
    tracked: bool

    def end(self, loser: int, espagnole: bool, debts: Debts) -> FloatArray:
        return self.game.end(self.lost, loser, espagnole, debts)


@dataclass
class HeadsUpGame:
    """The whole two-player game under rules where manches carry over (:func:`carries_over`).

    ``plain`` is the manche played for itself; ``manches[lost]`` the charge of
    each context with ends of its own (``lost[0] >= lost[1]``; the others are
    mirror images), solved against the game.
    """

    rules: Ruleset
    plain: HeadsUp = field(init=False)
    tracks: bool = field(init=False)
    manches: dict[Lost, HeadsUp] = field(default_factory=dict)
    _starts: dict[tuple[Lost, int, Debts], FloatArray] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        why = unsupported(self.rules)
        if why:
            raise InvalidRuleset(cannot_solve(self.rules, why))
        self.plain = HeadsUp(manche_rules(self.rules))
        # two players share the loss only when each lost as many manches: an even number of them
        self.tracks = not self.rules.fiches_de_manche and self.rules.manches % 2 == 0

    # -- the game between manches --------------------------------------------------------------

    def over(self, lost: Lost) -> bool:
        rules = self.rules
        if rules.fiches_de_manche:
            return max(lost) >= rules.fiches_de_manche
        return sum(lost) >= rules.manches

    def following(self, lost: Lost) -> int:
        """The most manches that can follow the one played at ``lost``."""
        rules = self.rules
        if rules.fiches_de_manche:
            return 2 * rules.fiches_de_manche - 2 - sum(lost)
        return rules.manches - 1 - sum(lost)

    def contexts(self) -> list[Lost]:
        """Every context a game can reach, the later manches first."""
        most = max(self.rules.manches, self.rules.fiches_de_manche)
        found = [(a, b) for a in range(most) for b in range(most) if not self.over((a, b))]
        return sorted(found, key=lambda lost: (-sum(lost), lost))

    def end(self, lost: Lost, loser: int, espagnole: bool, debts: Debts) -> FloatArray:
        """[seat 0's expected share of the game's loss, P(a shared loss)] once ``loser`` lost the
        manche played at ``lost`` (by l'Espagnole or not), owing ``debts`` to the next."""
        if espagnole and self.rules.espagnole == "loses_game":
            return np.array([1.0 if loser == 0 else 0.0, 0.0])
        after = (lost[0] + (loser == 0), lost[1] + (loser == 1))
        if not self.over(after):
            return self.start(after, loser, debts)
        if self.rules.fiches_de_manche:
            return np.array([1.0 if loser == 0 else 0.0, 0.0])
        if after[0] == after[1]:
            return np.array([0.5, 1.0])
        return np.array([1.0 if after[0] > after[1] else 0.0, 0.0])

    def start(self, lost: Lost, leader: int, debts: Debts = NO_DEBTS) -> FloatArray:
        """The value (as :meth:`end`) of the manche played at ``lost`` before its debts are paid,
        ``leader`` leading (the last manche's loser)."""
        cap = self.rules.pot * (self.following(lost) + 1)  # more than that is never paid
        owed = [min(debts[0], cap), min(debts[1], cap)]
        key = (lost, leader, (owed[0], owed[1]))
        found = self._starts.get(key)
        if found is None:
            found = self._starts[key] = self._start(lost, leader, owed)
        return found

    def _start(self, lost: Lost, leader: int, owed: list[int]) -> FloatArray:
        pot, tokens = self.rules.pot, [self.rules.initial_tokens] * 2
        for seat in (leader, 1 - leader):  # the engine's order: from the leader
            pay = min(owed[seat], pot)
            pot -= pay
            tokens[seat] += pay
            owed[seat] -= pay
        manche = self.manche(lost)
        if pot:
            return manche.charge_value(pot, tokens[0], leader)
        return manche.charge_end(tokens, leader, (owed[0], owed[1]))

    def manche(self, lost: Lost) -> GameManche:
        """The manche played at ``lost``, as its players face it."""
        turned = lost[0] < lost[1]
        canonical = (lost[1], lost[0]) if turned else lost
        own = self.manches.get(canonical)
        return GameManche(self, lost, own, turned and own is not None)

    def _own_ends(self, lost: Lost) -> bool:
        """Whether the manche at ``lost`` is worth more than who lost it (else it is ``plain``'s)."""
        if self.rules.queue_de_la_vache and self.following(lost):
            return True
        ends = [self.end(lost, loser, espagnole, NO_DEBTS) for loser in (0, 1) for espagnole in (False, True)]
        return not (np.array_equal(ends[0], ends[1]) and np.array_equal(ends[2], ends[3]))

    # -- solving -------------------------------------------------------------------------------

    def solve(self, progress: Progress | None = None) -> HeadsUpGame:
        """The manche played for itself (the décharge), then each context's charge from the last.

        ``progress`` says which manche of the game is being solved (the manche
        played for itself first, as the last manche), then how far its décharge
        and its charge are."""
        say: Callable[[str, int], None] | None = None
        if progress is not None:
            tell = progress

            def say(stage: str, step: int) -> None:
                tell(stage, step, self.rules.pot if stage == "charge" else 0)

        most = self.most_manches()
        if not self.plain.charge:
            if progress is not None:  # the manche played for itself: as the last is played
                progress("manche", most, most)
            self.plain.solve(say)
        for lost in self.contexts():
            if lost[0] < lost[1] or not self._own_ends(lost):
                continue
            if progress is not None:
                progress("manche", sum(lost) + 1, most)
            self.manches[lost] = self.context_solver(lost).solve_charge(say)
        return self

    def most_manches(self) -> int:
        """The most manches a game can last."""
        rules = self.rules
        return 2 * rules.fiches_de_manche - 1 if rules.fiches_de_manche else rules.manches

    def context_solver(self, lost: Lost) -> HeadsUp:
        """A context's charge, ready to solve (or to load): the ending, the manche's décharge."""
        ending = _Ending(self, lost, self.rules.pot * self.following(lost), self.tracks)
        solver = HeadsUp(self.rules, ending)
        solver.decharge, solver.iterations = self.plain.decharge, self.plain.iterations
        return solver

    # -- what it finds -------------------------------------------------------------------------

    def value(self) -> FloatArray:
        """[seat 0's expected share of the game's loss, P(a shared loss)], seat 0 leading first."""
        return self.start((0, 0), 0)

    def outcome(self) -> GameOutcome:
        """The whole game from the start, seat 0 leading the first round (``manche_loss``: NaN, a
        manche being played for the game)."""
        share, shared = (float(v) for v in self.value())
        return GameOutcome(float("nan"), (share + shared / 2, 1 - share + shared / 2), shared)

    def state_value(self, state: State) -> float:
        """Seat 0's expected share of the game's loss at the start of a round, a décharge leader's
        draw or the end of the game (the engine's state)."""
        if state.phase is Phase.OVER:
            assert state.outcome is not None
            losers = state.outcome.losers
            return 1 / len(losers) if 0 in losers else 0.0
        lost = (state.manche_losses[0], state.manche_losses[1])
        manche = self.manche(lost)
        debts = (state.debts[0], state.debts[1])
        if state.draw is not None:  # the décharge's leader is drawn: a fair draw between the two
            loses = float(self.plain.decharge[state.tokens[0]].mean())
            return float(manche.decharge_value(loses, debts)[0])
        r = state.round
        assert r is not None and not r.done and not r.throws and r.tie is None
        if state.phase is Phase.CHARGE:
            return float(manche.charge_value(state.pot, state.tokens[0], r.order[0])[0])
        loses = float(self.plain.decharge[state.tokens[0], r.order[0]])
        return float(manche.decharge_value(loses, debts)[0])


@dataclass(frozen=True)
class GameManche:
    """One manche of the game as its players face it: ``own`` is its charge solved against the
    game (seats turned where ``turned``), or None where the manche played for itself is the game's."""

    game: HeadsUpGame
    lost: Lost
    own: HeadsUp | None
    turned: bool

    @property
    def plain(self) -> HeadsUp:
        return self.game.plain

    def _turn(self, pot: int, t0: int, leader: int) -> tuple[int, int]:
        """Seat 0's tokens and the leader in the solver's seats."""
        if not self.turned:
            return t0, leader
        return self.plain.total - pot - t0, 1 - leader

    def _mirror(self, value: FloatArray) -> FloatArray:
        """A value of the solver's seats in the manche's own: the loss's share goes to the other."""
        return np.array([1 - value[0], value[1]]) if self.turned else value

    def _mapped(self, loses: float, debts: Debts) -> FloatArray:
        """The manche played for itself, seat 0 losing it with the chance ``loses``."""
        lost, won = self.plain_ends(debts)
        found: FloatArray = won + (lost - won) * loses
        return found

    def plain_ends(self, debts: Debts) -> tuple[FloatArray, FloatArray]:
        """The game's values when seat 0 or seat 1 loses the manche normally, ``debts`` owed."""
        lost = self.game.end(self.lost, 0, False, debts)
        won = self.game.end(self.lost, 1, False, debts)
        check_lost_is_worse(self.game.rules, lost, won)
        return lost, won

    def own_scale(self, charge: bool, seat: int, debts: Debts = NO_DEBTS) -> tuple[float, float]:
        """``(a, b)``: a turn value of :meth:`position` is worth ``a + b * value`` to ``seat`` in the
        game's terms (one minus its expected share of the loss).

        The charge solved against the game is already in those terms; the manche
        played for itself values P(not losing the manche), which the game maps
        affinely (see :meth:`.HeadsUp.decharge_ends`).
        """
        if charge and self.own is not None:
            return 0.0, 1.0
        lost, won = self.plain_ends(debts)
        scale = float(lost[0] - won[0])
        return (1 - float(lost[0]), scale) if seat == 0 else (float(won[0]), scale)

    def charge_value(self, pot: int, t0: int, leader: int) -> FloatArray:
        """[seat 0's expected share of the game's loss, P(a shared loss)] at a charge round's start."""
        if self.own is None:
            return self._mapped(float(self.plain.charge[pot][t0, leader]), NO_DEBTS)
        s0, lead = self._turn(pot, t0, leader)
        shared = float(self.own.shared[pot][s0, lead]) if self.own.tracked else 0.0
        return self._mirror(np.array([self.own.charge[pot][s0, lead], shared]))

    def charge_end(self, tokens: Sequence[int], leader: int, debts: Debts) -> FloatArray:
        """The end of the charge (the last round's loser ``leader``), as :meth:`charge_value`."""
        if self.own is None:
            loses = self.plain.charge_end(tokens, leader, NO_DEBTS)
            assert isinstance(loses, float)
            return self._mapped(loses, debts)
        if self.turned:
            tokens, leader, debts = (tokens[1], tokens[0]), 1 - leader, (debts[1], debts[0])
        found = self.own.charge_end(tokens, leader, debts, tracked=True)
        assert not isinstance(found, float)  # the ending's [share, shared]
        return self._mirror(found)

    def decharge_value(self, loses: float, debts: Debts) -> FloatArray:
        """A décharge where seat 0 loses the manche with the chance ``loses`` (the manche's own)."""
        return self._mapped(loses, debts)

    def position(self, charge: bool, pot: int, t0: int, leader: int) -> Turns:
        """Both players' turn values at the start of a round, to play it (each for their own share)."""
        if not charge or self.own is None:
            return self.plain.position(charge, pot, t0, leader)
        s0, lead = self._turn(pot, t0, leader)
        return self.own.position(charge, pot, s0, lead)

    def stakes(self, charge: bool, pot: int, t0: int, leader: int) -> BoolArray:
        """« Main chaude »: where the follower plays « vient » (see :meth:`.HeadsUp.stakes`)."""
        if not charge or self.own is None:
            return self.plain.stakes(charge, pot, t0, leader)
        s0, lead = self._turn(pot, t0, leader)
        return self.own.stakes(charge, pot, s0, lead)

    def stake(self, charge: bool, pot: int, t0: int, leader: int, amount: int) -> Stake:
        choices = self.stakes(charge, pot, t0, leader)
        return "vient" if choices[min(amount, len(choices) - 1)] else "est"

    def stake_cap(self, pot: int) -> int:
        """The largest accumulated stake worth more than a smaller one (see :meth:`.HeadsUp.stake_cap`)."""
        return (self.own or self.plain).stake_cap(pot)
