"""The one door to the solvers: which covers a table, and what it says of every decision there.

:func:`covering` makes the choice, for everyone who asks (the optimal bot, the
analysis, the hints, the costs told before solving, the simulator's tables,
the environments' opponents):

- the two-player solver (:mod:`.heads_up`) when two play, which covers every
  ruleset two can play; manche by manche (:mod:`.heads_up_game`) where
  manches carry over (« queue de la vache », l'Espagnole losing the game);
- else the whole game by max^n (:mod:`.game_maxn`), where it models the rules;
- else round by round (:mod:`.rounds`).

:func:`strategy_for` returns the :class:`Strategy` played there, solved or
read from the disk (:mod:`.solutions`), with one way of telling how far a
solve is (:data:`.game_maxn.Progress`). A strategy chooses what the optimal
bot plays (:meth:`Strategy.choose`) and values every legal choice of a
decision (:meth:`Strategy.choices`) for the analysis, the hints and advice.
Round by round, the two differ: the bot plays each round for its tokens, the
values are the chance of not losing the round (a choice's value to the
game is not known there).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal

import numpy as np

from ..core.actions import Action, ChooseStake, Stake, Stop, Throw
from ..core.dice import Result, throw_outcomes
from ..core.engine import est_amount, throws_allowed
from ..core.errors import InvalidPlayers, Message
from ..core.rules import Ruleset
from ..core.state import Phase, State
from . import game_maxn, heads_up
from .exact_turn import Advice
from .heads_up_game import GameManche, carries_over
from .rounds import (
    MAX_ROUND_PLAYERS,
    STOP,
    RoundValues,
    check_round_players,
    pot_cap,
    round_for,
    solve_round,
    vient_amount,
)
from .tables import INDEX, KEEP_INDEX, KEEPS, RESULTS, TRANSITIONS, FloatArray
from .turn import StakedValues, TurnValues, options, staked_options

if TYPE_CHECKING:
    from .advice import RoundContext

Covering = Literal["heads_up", "heads_up_game", "game_maxn", "rounds"]
# Who asks: the optimal bot, which plays every table it seats, or the analysis (and hints), which
# values a table's decisions; they refuse different tables, in their own words.
Purpose = Literal["optimal", "analysis"]
# How the decisions are valued, as the analysis names it: the manche, the game, or each round.
Method = Literal["heads_up", "game", "rounds"]
TWO_PLAYERS: tuple[Covering, ...] = ("heads_up", "heads_up_game")


def covering(rules: Ruleset, players: int) -> Covering:
    """The solver that covers a table of ``players`` under ``rules``.

    >>> from py421.core.rules import Ruleset
    >>> covering(Ruleset.preset("classic-11"), 2), covering(Ruleset.preset("vache-41"), 2)
    ('heads_up', 'heads_up')
    >>> covering(Ruleset.preset("classic-11"), 3), covering(Ruleset.preset("classic-11"), 6)
    ('game_maxn', 'rounds')
    """
    if players == 2:  # where the two-player solver refuses, so would the game's: it is no faster
        if heads_up.unsupported(rules) is not None:
            return "rounds"
        return "heads_up_game" if carries_over(rules) else "heads_up"
    if game_maxn.unsupported(rules, players) is None:
        return "game_maxn"
    return "rounds"


def why_rounds(rules: Ruleset, players: int) -> Message | None:
    """Why a table is played round by round (:func:`covering`), or None where it is not."""
    if players == 2:
        return heads_up.unsupported(rules)
    return game_maxn.unsupported(rules, players)


def two_player_game(rules: Ruleset, players: int) -> bool:
    """Whether the two-player solver covers the table (manche by manche or not)."""
    return covering(rules, players) in TWO_PLAYERS


def whole_game_maxn(rules: Ruleset, players: int) -> bool:
    """Whether the whole game solved by max^n covers the table (three to five players)."""
    return covering(rules, players) == "game_maxn"


def method_of(chosen: Covering) -> Method:
    return "heads_up" if chosen == "heads_up" else "rounds" if chosen == "rounds" else "game"


def refuse(rules: Ruleset, players: int, purpose: Purpose) -> None:
    """Refuse, with the reason, a table that no strategy plays (``optimal``) or values (``analysis``).

    Round by round, the round solver holds 2 to :data:`.rounds.MAX_ROUND_PLAYERS`.
    """
    chosen = covering(rules, players)
    if purpose == "optimal":
        if chosen not in TWO_PLAYERS:
            check_round_players(players)
        return
    if chosen == "rounds" and not 2 <= players <= MAX_ROUND_PLAYERS:
        raise InvalidPlayers(
            Message(
                "analysis.players",
                {"n": players, "most": MAX_ROUND_PLAYERS},
            )
        )


# The most players whose whole game a table solves before it plays (minutes at four); five take about
# a quarter of an hour: played whole where solved on the machine before (``421 solve``), else round by
# round.
SOLVED_FOR_PLAY = 4
# The largest pot whose accumulated stakes a table solves before it plays: lyonnaise-21 at three takes
# seconds, vache-41's 41 tokens about four minutes (every charge round solved stake by stake up to its
# pot); at four, lyonnaise-21's 8,096 décharge positions are over FOUR_FOR_PLAY (about 17 minutes).
STAKES_FOR_PLAY = 21
# The most décharge positions of four players a table solves before it plays: four-player classic-11
# (about 1,456) takes minutes, comptoir-21's 21 tokens (about 8,096) about twenty minutes.
FOUR_FOR_PLAY = 2_000
# The most décharge positions of three players under « qui barre démarre » a table solves before it
# plays: a pot of 7 (108) takes half a minute, engranjeu-21's 21 tokens (about 759) about four minutes.
COUNTED_FOR_PLAY = 200
# « Queue de la vache » at three players and more: the first manche's décharge is solved again for each
# debt, up to a pot, so a table solves before it plays where its positions times the pot stay at most
# this: three-player classic-11 (about 234 x 11) takes seconds, four-player (1,456 x 11) minutes.
QUEUE_FOR_PLAY = 5_000


def solved_before_play(rules: Ruleset, players: int) -> bool:
    """Whether a whole game takes so long to solve (minutes to hours) that a table plays it whole
    only where it was solved on this machine before."""
    size = game_maxn.decharge_size(rules, players)
    return (
        players > SOLVED_FOR_PLAY
        or (rules.accumulated_stakes and rules.pot > STAKES_FOR_PLAY)
        or (players == SOLVED_FOR_PLAY and size > FOUR_FOR_PLAY)
        or (game_maxn.counted(rules) > 1 and size > COUNTED_FOR_PLAY)
        or (rules.queue_de_la_vache and players > 2 and size * rules.pot > QUEUE_FOR_PLAY)
    )


def played(rules: Ruleset, players: int, *, solve: bool = True) -> Covering:
    """The solver whose strategy is played at the table: :func:`covering`'s, except that without
    ``solve`` (a server, whose budget of time a solve may exceed), or where the solve takes about an
    hour (:func:`solved_before_play`), a whole game is played only where it was solved on this
    machine before, else round by round. Nothing is read or solved."""
    from . import solutions

    chosen = covering(rules, players)
    if chosen in ("heads_up", "rounds"):
        return chosen
    if solve and (chosen != "game_maxn" or not solved_before_play(rules, players)):
        return chosen
    if chosen == "heads_up_game":
        known = solutions.heads_up_game_known(rules)
    else:
        known = solutions.game_known(rules, players)
    return chosen if known else "rounds"


def strategy_for(
    rules: Ruleset, players: int, *, solve: bool = True, progress: game_maxn.Progress | None = None
) -> Strategy:
    """The strategy played at a table of ``players`` under ``rules``: solved now (telling ``progress``
    how far it is) or read from the disk, as :func:`played` says. Round by round, each round is
    solved when a decision first needs it. The caller refuses first what :func:`refuse` refuses."""
    chosen = played(rules, players, solve=solve)
    if chosen == "heads_up":
        return HeadsUpStrategy(rules, progress)
    if chosen == "heads_up_game":
        return HeadsUpGameStrategy(rules, progress)
    if chosen == "game_maxn":
        return GameStrategy(rules, players, progress)
    return RoundsStrategy(rules, players)


def advise_whole_game(
    rules: Ruleset,
    dice: Result,
    throws_left: int,
    context: RoundContext,
    progress: game_maxn.Progress | None = None,
) -> Advice:
    """Every choice of a position described by hand (``421 advise --objective game``), valued for
    the whole game by the solver that covers the table: the two-player solver (the manche, or the
    game manche by manche), else the whole game by max^n, which refuses, with the reason, rules it
    does not model. The position is checked before anything is solved; a solve is told to
    ``progress``."""
    from . import advice

    if context.players == 2:  # covering(): the two-player solver covers every table of two
        return advice.advise_game(rules, dice, throws_left, context, progress)
    return advice.advise_game_level(rules, dice, throws_left, context, progress)


# -- a decision's values ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnChoices:
    """The mover's values at a decision of a turn: stopping on each result, each keep, each keep as
    « le bon » (the higher the better for the mover)."""

    stop: FloatArray  # [result]
    keep: FloatArray | None  # [keep]; None with no throw left
    bon: FloatArray | None  # [keep]; None unless a throw would leave another

    def mapped(self, a: float, b: float) -> TurnChoices:
        """Every value ``v`` as ``a + b * v`` (``b`` > 0: the order of the choices stays)."""
        return TurnChoices(
            a + b * self.stop,
            None if self.keep is None else a + b * self.keep,
            None if self.bon is None else a + b * self.bon,
        )


def _of_turn(values: TurnValues | StakedValues, left: int, row: int | None, stake: int) -> TurnChoices:
    """The view of a solved turn (:mod:`.turn`), as :func:`.turn.options` reads it."""

    def at(a: FloatArray) -> FloatArray:
        return a if row is None else a[row]

    if isinstance(values, StakedValues):
        s = min(stake, values.cap)
        stop = at(values.utility(left))[:, s]
        keep = at(values.keep_values(left))[:, s] if left > 0 else None
        bon = None
        if left > 1:  # the throw is final: its result is stopped on, its value added to the stake
            after = at(values.utility(left - 1))
            bon = TRANSITIONS @ after[np.arange(len(RESULTS)), np.minimum(s + values.gains, values.cap)]
        return TurnChoices(stop, keep, bon)
    return TurnChoices(
        at(values.utility(left)),
        at(values.keep_values(left)) if left > 0 else None,
        TRANSITIONS @ at(values.utility(left - 1)) if left > 1 else None,
    )


def _order(action: Action) -> tuple[int, ...]:
    """Between equal values: stop, then throw keeping more dice, a plain throw before « le bon »."""
    if isinstance(action, Throw):
        return (1, -len(action.keep), action.bon)
    return (0,)


class Strategy(ABC):
    """What a solver says at a table: the optimal bot's choice, and every legal choice's value."""

    covering: ClassVar[Covering]

    def __init__(self, rules: Ruleset, players: int) -> None:
        self.rules = rules
        self.players = players

    @property
    def method(self) -> Method:
        """How the values are meant (the analysis's word): the manche, the game, or the round."""
        return method_of(self.covering)

    @abstractmethod
    def choose(self, state: State) -> Action:
        """What the optimal bot plays at ``state``."""

    @abstractmethod
    def turn(self, state: State) -> TurnChoices:
        """The mover's values at a decision of a turn."""

    def stakes(self, state: State) -> dict[Stake, float] | None:
        """The chooser's value of each stake of « main chaude », or None where they are not valued."""
        return None

    def choices(self, state: State) -> list[tuple[Action, float]]:
        """Every legal choice of the mover at ``state`` with its value, best first (ties: stop, then
        more dice kept, a plain throw before « le bon »); none where they are left unvalued."""
        r = state.round
        assert r is not None
        if r.tie is not None:
            stakes = self.stakes(state)
            found: list[tuple[Action, float]] = (
                [] if stakes is None else [(ChooseStake(s), v) for s, v in stakes.items()]
            )
        else:
            turn = self.turn(state)
            i = INDEX[Result.of(r.dice)]
            found = []
            for action in state.legal_actions():
                if isinstance(action, Stop):
                    found.append((action, float(turn.stop[i])))
                elif isinstance(action, Throw):
                    row = turn.bon if action.bon else turn.keep
                    assert row is not None  # a throw needs one left, « le bon » two
                    found.append((action, float(row[KEEP_INDEX[action.keep]])))
        return sorted(found, key=lambda c: (-c[1], _order(c[0])))

    def warm(self) -> None:  # noqa: B027 - most strategies are solved when made: nothing more to do
        """Solve now what the first decisions need (round by round: the costliest rounds)."""


class RoundsStrategy(Strategy):
    """Each round by max^n (:mod:`.rounds`): the bot plays it for its tokens; the values are the
    chance of not losing the round (« main chaude » changes nothing to it: left unvalued)."""

    covering = "rounds"

    def choose(self, state: State) -> Action:
        r = state.round
        assert r is not None
        if r.tie is not None:  # the one who would pay takes the cheaper stake, the other the dearer
            taker = state.to_move in r.tie.worst
            cheaper = vient_amount(state.rules) < est_amount(state)
            stake: Stake = "vient" if cheaper == taker else "est"
            return ChooseStake(stake)
        charge = state.phase is Phase.CHARGE
        finals = [t.result for t in r.done]
        values: RoundValues = round_for(state.rules, len(r.order), charge, state.pot)
        limit = throws_allowed(state)
        keep = values.choice(finals, limit, r.dice, limit - r.throws)
        return Stop() if keep == STOP else Throw(KEEPS[keep])

    def turn(self, state: State) -> TurnChoices:
        r = state.round
        assert r is not None
        charge = state.phase is Phase.CHARGE
        players = len(r.order)
        cap = pot_cap(self.rules, players, charge, state.pot)
        values = solve_round(self.rules, players, charge, "loser", cap)
        limit = throws_allowed(state)
        finals = [t.result for t in r.done]
        turn, row = (
            (values.followers[len(finals) - 1][limit], values.context(finals))
            if finals
            else (values.leader, 0)
        )
        left = limit - r.throws
        return TurnChoices(
            turn.stop[left][row],
            turn.own[left - 1][row] @ TRANSITIONS.T if left > 0 else None,
            TRANSITIONS @ turn.stop[left - 1][row] if left > 1 else None,
        ).mapped(1, 1)  # minus a loss, as one minus it

    def warm(self) -> None:
        for charge in (True, False):
            round_for(self.rules, self.players, charge, self.rules.pot)


class _Manches(Strategy):
    """Two players, a manche at a time: the bot's choice from the manche's solved values."""

    @abstractmethod
    def _manche(self, state: State) -> heads_up.HeadsUp | GameManche:
        """The manche being played, as its solver has it."""

    def choose(self, state: State) -> Action:
        solver = self._manche(state)
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
        return Stop() if best.stop else Throw(best.keep, bon=best.bon)

    def _turn(self, solver: heads_up.HeadsUp | GameManche, state: State) -> TurnChoices:
        """The mover's chance of not losing the manche (seat 0's values: the solver's are the mover's)."""
        r = state.round
        assert r is not None
        charge = state.phase is Phase.CHARGE
        leader_values, follower_values = solver.position(charge, state.pot, state.tokens[0], r.order[0])
        left = throws_allowed(state) - r.throws
        if not r.done:
            return _of_turn(leader_values, left, None, r.stake)
        first = r.done[0]
        return _of_turn(follower_values[first.throws], left, INDEX[first.result], r.stake)


class HeadsUpStrategy(_Manches):
    """Two players, the manche solved (:class:`.heads_up.HeadsUp`): its values are the mover's chance
    of not losing the manche."""

    covering = "heads_up"

    def __init__(self, rules: Ruleset, progress: game_maxn.Progress | None = None) -> None:
        from .solutions import solved

        super().__init__(rules, 2)
        self.solver = solved(rules, progress)

    def _manche(self, state: State) -> heads_up.HeadsUp:
        return self.solver

    def turn(self, state: State) -> TurnChoices:
        return self._turn(self.solver, state)

    def stakes(self, state: State) -> dict[Stake, float]:
        loses = _StakeLookahead(self.solver, state).values()  # P(seat 0 loses the manche)
        return {k: 1 - v if state.to_move == 0 else v for k, v in loses.items()}


class HeadsUpGameStrategy(_Manches):
    """Two players where manches carry over: the game solved manche by manche
    (:mod:`.heads_up_game`); its values are one minus the mover's expected share of the game's loss."""

    covering = "heads_up_game"

    def __init__(self, rules: Ruleset, progress: game_maxn.Progress | None = None) -> None:
        from .solutions import solved_heads_up_game

        super().__init__(rules, 2)
        self.game = solved_heads_up_game(rules, progress)

    def _manche(self, state: State) -> GameManche:
        return self.game.manche((state.manche_losses[0], state.manche_losses[1]))

    def turn(self, state: State) -> TurnChoices:
        assert state.to_move is not None
        manche = self._manche(state)
        turn = self._turn(manche, state)
        # the manche's own values, in the game's terms (an affine map: the order of the choices stays)
        charge = state.phase is Phase.CHARGE
        a, b = manche.own_scale(charge, state.to_move, (state.debts[0], state.debts[1]))
        return turn.mapped(a, b)


class GameStrategy(Strategy):
    """Three or four players, the whole game solved by max^n (:class:`.game_maxn.GameMaxn`): its
    values are one minus the mover's expected share of the game's loss, « main chaude »'s stakes
    too."""

    covering = "game_maxn"

    def __init__(self, rules: Ruleset, players: int, progress: game_maxn.Progress | None = None) -> None:
        from .solutions import solved_game

        super().__init__(rules, players)
        self.game = solved_game(rules, players, progress)
        self._rounds = RoundsStrategy(rules, players)
        self._turns: dict[tuple[object, ...], TurnValues | StakedValues] = {}

    def choose(self, state: State) -> Action:
        r = state.round
        if r is not None and (r.tie is None or (r.tie.awaiting_stake and self.rules.main_chaude)):
            return self.game.action(state)
        return self._rounds.choose(state)

    def stakes(self, state: State) -> dict[Stake, float] | None:
        if not self.rules.main_chaude:
            return None
        return {k: 1 + v for k, v in self.game.stake_values(state).items()}  # one minus a share

    def turn(self, state: State) -> TurnChoices:
        r = state.round
        assert r is not None
        game = self.game
        key, p, _ = game.locate(state)
        place, limit = len(r.done), throws_allowed(state)
        summary = (
            game_maxn.summary_of(game.turn_shape(key, p), [(t.result, t.throws) for t in r.done])
            if place
            else 0
        )
        at = (key, p, place, summary, limit)
        found = self._turns.get(at)
        if found is None:
            found = self._turns[at] = game.mover_turn(*at)
        return _of_turn(found, limit - r.throws, None, r.stake).mapped(1, 1)  # minus a share, as one minus it


# -- « main chaude » between two --------------------------------------------------------------------

_Point = tuple[object, ...]
_THREE = tuple((faces, float(p)) for faces, p in throw_outcomes(3))


class _StakeLookahead:
    """« Main chaude » between two: each stake's value, one replay ahead through the engine.

    After the choice a replay of coups secs either settles the round (the
    solved value of the position it leads to) or ties again, where the same
    player chooses again: those values are solved together, each chooser
    taking their better stake.
    """

    def __init__(self, solver: heads_up.HeadsUp, state: State) -> None:
        self.solver = solver
        self.state = state
        self.manches_lost = len(state.manche_losers)

    def values(self) -> dict[Stake, float]:
        stakes: tuple[Stake, ...] = ("est", "vient")
        # point -> stake -> (P(seat 0 loses) by the replays that settle, chance of each point tied again)
        points: dict[_Point, dict[Stake, tuple[float, dict[_Point, float]]]] = {}
        chooser: dict[_Point, int | None] = {}
        todo = [self.state]
        while todo:
            state = todo.pop()
            key = _point(state)
            if key in points:
                continue
            chooser[key] = state.to_move
            points[key] = {}
            for stake in stakes:
                settled, tied, states = self._replay(state.apply(ChooseStake(stake)))
                points[key][stake] = (settled, tied)
                todo += [s for k, s in states.items() if k not in points]

        def value(by: tuple[float, dict[_Point, float]], best: dict[_Point, float]) -> float:
            settled, tied = by
            return settled + sum(p * best[k] for k, p in tied.items())

        best = dict.fromkeys(points, 0.5)
        for _ in range(10_000):  # each pass shrinks the error by the chance of tying again
            change = 0.0
            for key, by in points.items():
                found = [value(by[s], best) for s in stakes]
                new = min(found) if chooser[key] == 0 else max(found)  # seat 0 loses less, seat 1 more
                change = max(change, abs(new - best[key]))
                best[key] = new
            if change < 1e-15:
                break
        here = points[_point(self.state)]
        return {s: value(here[s], best) for s in stakes}

    def _replay(self, start: State) -> tuple[float, dict[_Point, float], dict[_Point, State]]:
        settled = 0.0
        tied: dict[_Point, float] = {}
        states: dict[_Point, State] = {}
        frontier = [(start, 1.0)]
        while frontier:
            state, p = frontier.pop()
            request = state.chance
            if request is not None and request.purpose == "tie":
                outcomes = _THREE if request.count == 3 else throw_outcomes(request.count)
                frontier += [(state.apply_dice(faces), p * float(q)) for faces, q in outcomes]
            elif state.to_move is not None and state.round is not None and state.round.tie is not None:
                key = _point(state)
                tied[key] = tied.get(key, 0.0) + p
                states[key] = state
            else:
                settled += p * self._settled(state)
        return settled, tied, states

    def _settled(self, state: State) -> float:
        """P(seat 0 loses the manche) from a state between rounds."""
        if len(state.manche_losers) > self.manches_lost:
            return 1.0 if state.manche_losers[self.manches_lost] == 0 else 0.0
        solver = self.solver
        if state.draw is not None:  # the décharge's leader is drawn: a fair draw between the two
            return float(solver.decharge[state.tokens[0]].mean())
        r = state.round
        assert r is not None and not r.done and not r.throws
        if state.phase is Phase.CHARGE:
            return float(solver.charge[state.pot][state.tokens[0], r.order[0]])
        return float(solver.decharge[state.tokens[0], r.order[0]])


def _point(state: State) -> _Point:
    """A « main chaude » choice, without what does not change its value (the replays so far)."""
    r = state.round
    assert r is not None and r.tie is not None
    tie = r.tie
    return (state.phase, state.pot, state.tokens, r.stake, r.done, tie.worst, tie.best, tie.draw.seats)
