"""Whole games of three to five players by max^n: every player plays for the game.

The two-player solver (:mod:`.heads_up`) values manches because a manche
between two is zero-sum. With more players it is not, and the round solver
(:mod:`.rounds`) plays each round for a round-level objective. Here every
round is played for the game itself.

**What each player maximises.** The game ends with one loser or with a loss
shared between players with the same count of lost manches (« grand
perdant »: one player lost every manche, a loss of its own). Each player
maximises minus their expected *share* of the loss: 1 when they lose alone
(as « grand perdant » or otherwise), ``1/k`` when ``k`` players share it, 0
when they do not lose. The shares of a game sum to 1, so with two players
this is the two-player solver's zero-sum game (a manche lost never helps,
and sharing beats losing alone). Alongside, the chance of being *among* the
losers is reported: these chances sum to 1 plus the chance of a shared loss
(1 + P(a two-way share) + 2 P(a three-way share)...).

**Positions.** Between rounds a manche is at a *position*: the phase, the
pot (charge), every player's tokens, who is still in (the décharge) and who
leads. A game is manches chained together: the loser of a manche leads the
next, so what a manche is worth depends on the manches lost so far and on
who leads it. Each such manche is solved once, seats turned so that its
first leader is seat 0 (the game looks the same from every seat, clockwise).

**Rounds.** A round at a position is solved by max^n (as in :mod:`.rounds`)
with each player maximising their own game value: what every way the round
can settle (who loses, who wins, the amount) is worth to each player is the
value of the position it leads to. What a later player can still change
depends on the results already final through a summary: the best and the
worst result and *which* earlier players hold each. Ties for the worst or
the best are settled by coups secs in which every tied player is equally
likely to lose (or win), except where a double nénette goes to the later
thrower: then who throws first in each replay counts (:mod:`.tie_breaks`),
and a round where everyone threw nénette is lost by its first player.
Under « qui barre démarre » a result is counted with the throws it took
(:func:`counted`), and a replay that ties again lets its first thrower
choose the stake, « est » or « vient », for their own value
(:mod:`.main_chaude`): there the settling depends on the position's values.

**Solving.** The décharge's positions lead back to each other (tokens go
back and forth): they are solved by value iteration (in place, position
after position) until no value moves by more than ``1e-12``. After each
sweep the values become the exact values of the policies the sweep chose
(a linear solve), which cuts the sweeps from dozens to about eight. The
final policies are evaluated exactly by a linear solve, and one more pass
of the rounds over those exact values checks that no player would change a
choice. The charge only empties the pot, so it is solved pot level by pot
level from the smallest. A manche whose ends are worth, to every seat, a
positive affine map of what another manche's ends are worth (:func:`alike`;
in `classic-11`, the first manche and the second) is the same game to
every player, who only compare their own values: its sweeps would retrace
the other's, so its décharge starts from the other's policies, exactly
valued, and one sweep checks them; its charge makes the other's choices,
valued without solving its rounds again.

**Ties between choices.** A player whose choices are worth the same to
them within ``1e-12`` stops rather than throws again, keeps more dice
rather than fewer, and among keeps of as many dice the higher ones, read from
the highest die (:data:`.rounds.KEEP_CHOICES`), as :mod:`.rounds` does; the
other players' values follow that choice, so the results are reproducible.

Rules this model does not cover are refused with the reason
(:func:`unsupported`); ``bot:optimal`` plays those round by round.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from ..core.actions import Action, ChooseStake, Stake, Stop, Throw
from ..core.combos import NENETTE
from ..core.dice import Result
from ..core.engine import est_amount
from ..core.errors import InvalidPlayers, InvalidPosition, InvalidRuleset, Message, UnsolvedSystem
from ..core.rules import Ruleset, rules_arguments, rules_fields
from ..core.state import Phase, State
from ..extras import require
from . import tie_breaks
from .amounts import settled_amounts, token_values
from .game_maxn_stakes import ends_no_round, play_staked_round, staked, staked_ways
from .game_maxn_stakes import stop_values as staked_stop_values
from .game_maxn_turns import (
    Choices,
    follower_turns,
    follower_values,
    reached_from,
    scattered,
    side_by_side,
    spread,
)
from .main_chaude import Chaude, Outcome, chaude, replays
from .rounds import EPS, FRESH, KEEP_CHOICES, STOP, comparison_of
from .tables import BON, INDEX, KEEPS, RESULTS, TRANSITIONS, FloatArray
from .turn import StakedValues, TurnValues, turn_from_stops

if TYPE_CHECKING:
    from .deviation import Deviation

IntArray = npt.NDArray[np.intp]
BoolArray = npt.NDArray[np.bool_]
TOLERANCE = 1e-12  # value iteration stops when no value moves by more
STALL = 20  # sweeps without the largest change halving: the décharge does not settle
CYCLE = 4  # the longest round of choices that policy iteration is watched for coming back to
LEVEL_SWEEPS = 1000  # a pot level that loops on itself (rounds worth nothing) settles well before
PAYING = 0.9  # a charge level's exact values after each sweep pay while its change shrinks below this share
MOST_PLAYERS = 5  # a round of five holds 75,076 summaries after four results, at every position
# The décharge's positions the solver takes on (about: every split of the tokens, times the leader):
# a round of four costs about six of three, one of five about five of four. Four players of 21 tokens
# (comptoir-21: 8,096) are in, solved on the machine before a table plays them (strategy.py).
MOST_DECHARGE = {2: 1 << 30, 3: 4_000, 4: 53_000, 5: 7_000}
# Where every throw of the charge adds to the stake, a round's summaries times the stakes: a round of
# four holds 18,206 summaries x the pot at every position (386 rows once those that lead alike are
# merged), so lyonnaise-21's 3,421 charge rounds at four take up to 0.05 s each and its whole game,
# its décharge most of it, about 17 minutes; five players of 21 tokens are over the size cap.
MOST_STAKED = 4
# « queue de la vache »: the décharge is solved again for each debt the charge may leave (about its
# positions times the pot): three-player vache-41's 111,069 take about 55 minutes (docs/strategy.md)
MOST_OWING = 120_000
# décharge positions over every manche the game solves (told apart by who lost which): four-player
# vache-41's two manches (105,952) take hours; six manches of classic-11 at three (36 to solve, 8,424
# positions) about a minute and a half
MOST_MANCHE_POSITIONS = 110_000
# « qui barre démarre »: results counted with their throws make a round of four hold 167,502 summaries
# after three results (18,206 plain; 73,984 reached at a limit of three): four and a half minutes a
# sweep of engranjeu-21's décharge at four, one round of each kind solved, and ten sweeps do not
# settle it (docs/strategy.md)
MOST_COUNTED = 3
# Above this many décharge positions, a game that does not settle has what deviating gains bounded
# within the groups that did not settle (:func:`.deviation.bounded`) rather than measured over the
# whole game: every manche's best responses, hours more at four players of vache-41 (52,976)
MEASURED_MOST = 20_000
FORMAT = 2  # bump when the cached results change meaning (2: where unsettled, what deviating gains)
KEPT_ROUNDS = 16  # solved rounds kept for play: a round of four holds megabytes of choices
# A group of rows (a décharge, a pot level) above this many is solved sparse (:func:`_linear`, with
# scipy, the sim extra): dense, its matrix takes 8 bytes per pair of rows (800 MB here)
SPARSE_ROWS = 10_000
SPARSE_RESIDUAL = 1e-14  # the largest residual of a sparse solve, for values up to 1 (scaled above)
SPARSE_ITERATIONS = 10_000  # each method's iterations at most, per column of a sparse solve


@dataclass(frozen=True)
class Sweep:
    """How far the décharge's passes are from settling, after one: they stop once no value moves by
    more than ``tolerance``; ``left``: the passes foretold to remain (:func:`passes_left`), None
    when the change does not shrink (or after a first pass, with nothing to compare it with)."""

    change: float  # the largest change of a value in the pass
    tolerance: float
    left: int | None


class Progress(Protocol):
    """How far a solve is: ("positions", about how many in the décharge, 0) before a game not yet
    solved makes them (:func:`.solutions.solve_maxn_cached`); ("resumed", manches solved, of how
    many) where a solve stopped part way is taken up, ("underway", number, of) where it stopped
    inside that manche (then its last pass again, if in its décharge); ("manche", number, of), ("decharge",
    sweep, 0, :class:`Sweep`),
    ("unsettled", sweeps, 0), ("charge", pot level, full pot); during a pass, every
    :data:`TOLD_ROUNDS` rounds, ("rounds", rounds solved, of how many); then, where a décharge did not
    settle, ("manche", number, of) and ("deviation", pass, 0) once more (:mod:`.deviation`), after
    ("bounding", passes kept, groups kept) where a bound stopped part way is taken up.
    The two-player game's décharge (:mod:`.heads_up_game`) says its passes without a
    :class:`Sweep`."""

    def __call__(self, stage: str, step: int, total: int, sweep: Sweep | None = None, /) -> None: ...


TOLD_ROUNDS = 64  # a pass says how far it is every that many rounds (a four-player one takes minutes)
FORESIGHT = 3  # the last passes whose rate of shrinking foretells the plain sweeps left
MOST_FORETOLD = 10_000  # passes: beyond, "does not shrink" says it better


def passes_left(
    changes: Sequence[float], tolerance: float = TOLERANCE, accelerated: bool = False
) -> int | None:
    """The passes still to come after ``changes`` (each pass's largest change, in order); 0: settled.

    Plain sweeps shrink the change geometrically: its rate over the last :data:`FORESIGHT`
    passes is kept. A pass followed by the exact values of its policies (``accelerated``, as
    :func:`solve_manche` does while it pays) is a step of Newton's method, whose error is about
    squared each time: ``log e' = 2 log e + c``, ``c`` from the last two passes; where that would
    not shrink it, the geometric rate is used. None: nothing to compare with yet, or no shrinking.
    """
    if not changes:
        return None
    last = changes[-1]
    if last < tolerance:
        return 0
    if len(changes) < 2 or not 0 < last < changes[-2]:
        return None
    goal, now = math.log(tolerance), math.log(last)
    if accelerated:
        c = now - 2 * math.log(changes[-2])
        left, level = 0, now
        while level >= goal and left < MOST_FORETOLD:
            following = 2 * level + c
            if following >= level:
                break
            left, level = left + 1, following
        else:
            return max(1, left) if left < MOST_FORETOLD else None
    back = min(FORESIGHT, len(changes) - 1)
    rate = (last / changes[-1 - back]) ** (1 / back)
    if rate >= 1:
        return None
    foretold = math.ceil((goal - now) / math.log(rate))
    return max(1, foretold) if foretold < MOST_FORETOLD else None


def unsupported(rules: Ruleset, players: int) -> Message | None:
    """Why the game-level solver cannot solve these rules for ``players`` (``str()``: in English), or None."""
    if not rules.seats(players):
        return Message(
            "solver.game.seats",
            {"rules": rules.name, "n": players},
        )
    if not 2 <= players <= MOST_PLAYERS:
        return Message(
            "solver.game.players",
            {"most": MOST_PLAYERS, "n": players},
        )
    if rules.tie_break == "qui_barre_demarre" and players > MOST_COUNTED:
        return Message("solver.game.qui_barre", {"most": MOST_COUNTED, "n": players})
    if rules.queue_de_la_vache and (rules.fiches_de_manche or rules.manches != 2 or rules.main_chaude):
        return Message("solver.game.queue")
    decharge = decharge_size(rules, players)
    if decharge > MOST_DECHARGE[players]:
        return Message(
            "solver.game.too_big",
            {"positions": decharge, "n": players, "most": MOST_DECHARGE[players]},
        )
    if rules.accumulated_stakes and players > MOST_STAKED:
        return Message("solver.game.accumulated_players", {"most": MOST_STAKED, "n": players})
    if rules.queue_de_la_vache and decharge * rules.pot > MOST_OWING:
        return Message(
            "solver.game.queue_size", {"positions": decharge * rules.pot, "n": players, "most": MOST_OWING}
        )
    manches = len(manche_contexts(rules, players, MOST_MANCHE_POSITIONS // decharge))
    if manches * decharge > MOST_MANCHE_POSITIONS:
        said = {"manches": rules.manches, "contexts": manches, "positions": manches * decharge}
        return Message("solver.game.manches_size", {**said, "most": MOST_MANCHE_POSITIONS})
    return None


def manche_contexts(rules: Ruleset, players: int, most: int | None = None) -> list[tuple[int, Losses]]:
    """Every manche the game can play, told apart by the losses before it (seats turned to its first
    leader), in the order they must be solved (the last first); with ``most``, the search stops once
    it has found more than that many, and then only how many it found counts (the list is cut)."""
    n = players
    found: list[tuple[int, Losses]] = []
    todo = [(1, (0,) * n)]
    seen = set(todo)
    while todo and (most is None or len(seen) <= most):
        manche, losses = todo.pop()
        found.append((manche, losses))
        for loser in range(n):
            for espagnole in (False, True):
                if game_losers(rules, losses, manche, loser, espagnole):
                    continue
                after = list(losses)
                after[loser] += 1
                key = _manche_key(rules, manche + 1, _turned_losses(after, loser))
                if key not in seen:
                    seen.add(key)
                    todo.append(key)
    if most is not None and len(seen) > most:  # cut short: only how many counts
        return list(seen)
    return sorted({_manche_key(rules, *c) for c in found}, key=lambda c: (-sum(c[1]), -c[0]))


def _manche_key(rules: Ruleset, manche: int, losses: Losses) -> tuple[int, Losses]:
    """Where fiches de manche end the game, the manche's number does not matter: only the losses."""
    return (0 if rules.fiches_de_manche else manche, losses)


def decharge_size(rules: Ruleset, players: int) -> int:
    """About how many positions the décharge has: every split of the tokens, times the leader."""
    total = rules.pot + players * rules.initial_tokens
    return math.comb(total + players - 1, players - 1) * players


def check(rules: Ruleset, players: int) -> None:
    why = unsupported(rules, players)
    if why:
        seated = rules.seats(players) and 2 <= players <= MOST_PLAYERS
        error = InvalidRuleset if seated else InvalidPlayers
        raise error(
            Message(
                "solver.game.cannot",
                {"rules": rules.name, "n": players, "why": why},
            )
        )
    if decharge_size(rules, players) > SPARSE_ROWS:  # said now, not after building the model
        require("sim", f"421 solve {rules_arguments(rules)} --players {players}")


# -- the shape of a round: summaries of the results already final -----------------------------


@dataclass(frozen=True)
class Shape:
    """The summaries of a round of ``players``, shared by every position.

    A summary after some results is the best and the worst result and the
    players (bit ``i`` for the ``i``-th in playing order) holding each. After
    the leader's result the summary is that result (row = result index).
    ``steps[i]`` maps [summary after ``i + 1`` results, next result] to the
    summary after ``i + 2``, or, for the last, to the round's *class*: the
    best and worst holders and the amount, which is all the settlement needs.
    ``coups_secs[result, class]``: the chance of each class after the leader's
    result when every other player has one throw.
    """

    players: int
    steps: tuple[IntArray, ...]
    best: IntArray  # [class] bit mask of the best result's holders (0 where staked: not told apart)
    worst: IntArray  # [class] bit mask of the worst result's holders
    amount: IntArray  # [class] the amount the round settles for
    coups_secs: FloatArray
    fixed: npt.NDArray[np.bool_]  # [class] the loser pays the nénette penalty, whatever stake is chosen
    throws: int = 1  # throw counts told apart (:func:`counted`)
    # ahead[i][summary, result]: whether the result beats every one before it (as ``steps[i]``), the
    # only results a player behind may stop on with throws left; empty unless ``must_throw_on``
    ahead: tuple[npt.NDArray[np.bool_], ...] = ()
    # « le bon » weighed: where a player behind must throw on and the throws used count
    bon: bool = False
    _reached: dict[int, Reached] = field(default_factory=dict, compare=False, repr=False)

    def may_stop(self, i: int) -> npt.NDArray[np.bool_] | None:
        """Where the player after ``steps[i]``'s summary may stop with throws left (None: anywhere)."""
        return self.ahead[i] if self.ahead else None

    def reached(self, limit: int) -> Reached:
        """The summaries a round reaches where the throws used count (:func:`counted`) and the
        leader made their result in ``limit`` throws, the followers' limit: no result is made in
        more. The followers' turns are solved only there (a third of the summaries at three
        throws), the same numbers as solving them all."""
        if limit not in self._reached:
            kinds = len(RESULTS)
            rows, steps = reached_from(np.arange((limit - 1) * kinds, limit * kinds), self.steps, limit)
            ahead = (
                tuple(a[r, : limit * kinds] for a, r in zip(self.ahead, rows, strict=True))
                if self.ahead
                else ()
            )
            self._reached[limit] = Reached(tuple(rows), tuple(steps), ahead)
        return self._reached[limit]

    def narrowed(self, limit: int, leader_limit: bool) -> Reached | None:
        """:meth:`reached`, where a round's followers' turns are solved only there: counted results
        under the leader's limit (None elsewhere, and at a limit of one: coups secs)."""
        return self.reached(limit) if self.throws > 1 and leader_limit and limit > 1 else None

    @property
    def classes(self) -> int:
        return len(self.amount)


@dataclass(frozen=True)
class Reached:
    """The summaries of a :class:`Shape` that one limit reaches (:meth:`Shape.reached`), renumbered:
    ``rows[i][j]`` is the summary numbered ``j`` of those ``steps[i]`` starts from (``rows[0]``:
    the leader's results made in that many throws); ``steps`` and ``ahead`` are the shape's, over
    those rows and the results made in no more throws, leading to rows of the next step."""

    rows: tuple[IntArray, ...]
    steps: tuple[IntArray, ...]
    ahead: tuple[npt.NDArray[np.bool_], ...]

    def may_stop(self, i: int) -> npt.NDArray[np.bool_] | None:
        return self.ahead[i] if self.ahead else None


def counted(rules: Ruleset, staked: bool = False) -> int:
    """How many throw counts a round's comparison tells apart: under « qui barre démarre » a result
    made in fewer throws beats the same result made in more, so a round's results are *counted*
    results, ``(throws - 1) * 56 + result``; elsewhere 1 (the result alone). ``staked``: in the
    charge rounds where every throw adds to the stake (their own shape), whose throws alone count."""
    if rules.tie_break != "qui_barre_demarre":
        return 1
    if staked:
        return rules.throws_allowed(True)
    return max(rules.throws_allowed(True), rules.throws_allowed(False))


@cache
def shape_of(rules: Ruleset, players: int, staked: bool = False) -> Shape:
    """The summaries of a round; ``staked``: a charge round where every throw adds to the stake
    (:mod:`.game_maxn_stakes`), whose classes say only who holds the worst result (their ``best``
    is 0): the loser takes the stake whoever holds the best, and summaries that only differ by the
    best then lead alike (:func:`.game_maxn_stakes.alike_steps`).

    Under « qui barre démarre » the results are counted ones (:func:`counted`): the summaries hold
    the throws of the best and the worst, and ``steps`` have a column per counted result."""
    if players < 2:
        raise InvalidPlayers(Message("solver.game.round_two"))
    kinds = len(RESULTS)
    throws = counted(rules, staked)
    n = kinds * throws
    result = np.arange(n) % kinds  # the result of each counted result
    used = np.arange(n) // kinds + 1
    strength = np.array(comparison_of(rules).strength, dtype=np.intp)[result]
    if throws > 1:  # the same result made in fewer throws is the better
        strength = strength * (throws + 1) - used
    best = np.arange(n)
    worst = best.copy()
    best_mask = np.ones(n, np.intp)
    worst_mask = best_mask.copy()
    steps, ahead = [], []
    fixed = np.zeros(0, np.intp)
    classes: tuple[IntArray, IntArray, IntArray] = (best_mask, worst_mask, np.zeros(n, np.intp))
    nen = INDEX[NENETTE]
    for i in range(1, players):
        b, w, r = best[:, None], worst[:, None], np.arange(n)[None, :]
        bm, wm, me = best_mask[:, None], worst_mask[:, None], 1 << i
        higher, lower = strength[r] > strength[b], strength[r] < strength[w]
        # after nénettes only, another nénette is ahead where the later one wins (throws aside)
        later_nenette = (result[b] == nen) & (result[w] == nen) & (result[r] == nen)
        if rules.must_throw_on:
            ahead.append(higher | (later_nenette & rules.nenette_last_wins))
        nb = np.where(higher, r, b)
        nw = np.where(lower, r, w)
        nbm = np.where(higher, me, np.where(r == b, bm | me, bm))
        nwm = np.where(lower, me, np.where(r == w, wm | me, wm))
        span = 1 << players
        if i < players - 1:
            key = ((nb * n + nw) * span + nbm) * span + nwm
            found, inverse = np.unique(key, return_inverse=True)
            steps.append(inverse.reshape(key.shape).astype(np.intp))
            worst_mask, found = found % span, found // span
            best_mask, found = found % span, found // span
            worst, best = found % n, found // n
        else:
            rb, rw = result[nb], result[nw]
            amount = np.zeros_like(nb) if staked else settled_amounts(rules, rb, rw, nb == nw)
            if rules.nenette_last_wins:  # every result a nénette: the first thrower's is the worst
                nenettes = (rb == INDEX[NENETTE]) & (rw == INDEX[NENETTE])
                nbm = np.where(nenettes, me, nbm)
                nwm = np.where(nenettes, 1, nwm)
            # a loser holding nénette pays the penalty whatever « main chaude » stake is chosen, or
            # whatever the round's throws added to the stake
            penalty = (rw == INDEX[NENETTE]) & bool((rules.main_chaude or staked) and rules.nenette_penalty)
            top = int(amount.max()) + 1
            if staked:  # the loser takes the stake from the pot, whoever holds the best
                nbm = np.zeros_like(nbm)
            key = ((nbm * span + nwm) * top + amount) * 2 + penalty
            found, inverse = np.unique(key, return_inverse=True)
            steps.append(inverse.reshape(key.shape).astype(np.intp))
            fixed, found = found % 2, found // 2
            amounts, found = found % top, found // top
            classes = (found // span, found % span, amounts)
    coups_secs = np.zeros((kinds, len(classes[2])))
    sizes = [int(step.max()) + 1 for step in steps]
    for res in range(kinds):  # one leader's result at a time: four players' summaries are many
        rows: IntArray = np.array([res], np.intp)
        mass = np.ones(1)
        for step, size in zip(steps, sizes, strict=True):
            # only the summaries reached, each followed by a coup sec (one throw: its first column)
            ways = (mass[:, None] * FRESH[None, :]).ravel()
            reach = np.bincount(step[rows, :kinds].ravel(), ways, minlength=size).astype(
                np.float64, copy=False
            )
            rows = np.flatnonzero(reach)
            mass = reach[rows]
        coups_secs[res] = reach
    # « le bon » is worth more than a plain throw only where the throws used count, or add to the stake
    bon = rules.must_throw_on and rules.le_bon and (throws > 1 or staked)
    return Shape(players, tuple(steps), *classes, coups_secs, fixed.astype(bool), throws, tuple(ahead), bon)


# -- how a class settles: who loses, who wins -------------------------------------------------


@dataclass(frozen=True)
class Settling:
    """How each class of a round settles: ``weights[class, outcome]`` over ``outcomes``."""

    outcomes: tuple[Outcome, ...]
    weights: FloatArray
    chaude: Chaude | None = None  # « main chaude »: ``weights`` are those settled with no choice made

    def at(self, after: FloatArray, seats: Sequence[int]) -> FloatArray:
        """``weights`` once every « main chaude » choice is made against ``after[outcome, seat]``."""
        if self.chaude is None:
            return self.weights
        return self.chaude.weights(after, seats)[0]


@cache
def settling_of(rules: Ruleset, players: int, charge: bool, debt_cap: int = 0) -> Settling:
    """Tie-breaks are coups secs among the tied players (:mod:`.tie_breaks`: each is equally likely
    to lose, or win, unless a double nénette goes to the later thrower).

    Where every throw of a charge round adds to the stake, the classes are those of the staked
    shape times the stake, from 0 to the full pot (class ``c * (pot + 1) + stake``), or to the pot
    and ``debt_cap`` more where a debt carries the rest into the next manche."""
    bets = staked(rules, charge)
    shape = shape_of(rules, players, bets)
    all_take = rules.tied_losers_all_take
    found: dict[Outcome, int] = {}
    rows: list[list[tuple[int, float]]] = []
    everyone = (1 << players) - 1
    if rules.main_chaude and not bets:
        holders = [
            (_places(int(w), players), _places(int(b), players), int(a), bool(f))
            for b, w, a, f in zip(shape.best, shape.worst, shape.amount, shape.fixed, strict=True)
        ]
        made = chaude(rules, players, charge, holders, found)
        return Settling(tuple(found), made.direct, made)
    if bets and rules.main_chaude:  # the stake so far is each class's amount; the replays add to it
        staked_classes = [
            None if ends_no_round(rules, players, stake) else (_places(w, players), (), stake, bool(f))
            for w, f in zip(shape.worst.tolist(), shape.fixed.tolist(), strict=True)
            for stake in range(rules.pot + 1)
        ]
        made = chaude(rules, players, charge, staked_classes, found, staked=True)
        return Settling(tuple(found), made.direct, made)
    if bets:
        top = rules.pot + debt_cap
        for worst, fixed in zip(shape.worst.tolist(), shape.fixed.tolist(), strict=True):
            for stake in range(top + 1):
                staking = staked_ways(rules, worst, players, stake, fixed, top)
                rows.append([(found.setdefault(outcome, len(found)), p) for outcome, p in staking])
        return _settling(found, rows)
    for best, worst, amount in zip(shape.best, shape.worst, shape.amount, strict=True):
        holders_best, holders_worst = _places(int(best), players), _places(int(worst), players)
        amount = int(amount)
        ways: list[tuple[Outcome, float]] = []
        worst_group = frozenset(holders_worst)
        if all_take:
            losers = [(tuple(holders_worst), 1.0)]
        else:
            losers = [((i,), p) for i, p in tie_breaks.loser(rules, players, worst_group).items()]
        if charge:
            ways += [((group, -1, amount), p) for group, p in losers]
        elif best == worst == everyone:  # all tied: one tie-break names the loser and the winner
            if all_take:
                ways += [
                    ((tuple(j for j in range(players) if j != w), w, amount), p)
                    for w, p in tie_breaks.winner(rules, players, worst_group).items()
                ]
            else:
                pairs = tie_breaks.loser_and_winner(rules, players)
                ways += [(((i,), w, amount), p) for (i, w), p in pairs.items()]
        else:
            for w, pw in tie_breaks.winner(rules, players, frozenset(holders_best)).items():
                ways += [((group, w, amount), pw * pl) for group, pl in losers]
        rows.append([(found.setdefault(outcome, len(found)), p) for outcome, p in ways])
    return _settling(found, rows)


def _places(mask: int, players: int) -> tuple[int, ...]:
    return tuple(i for i in range(players) if mask >> i & 1)


def _settling(found: dict[Outcome, int], rows: list[list[tuple[int, float]]]) -> Settling:
    """The weights of ``rows[class]``: (outcome number, chance) pairs."""
    weights = np.zeros((len(rows), len(found)))
    for c, row in enumerate(rows):
        for o, p in row:
            weights[c, o] += p
    return Settling(tuple(found), weights)


# -- one round, solved by max^n ----------------------------------------------------------------


def _choices(stops: Sequence[FloatArray], throws: int) -> list[IntArray]:
    """The leader's choices, ``choices[r]`` with ``r`` throws still allowed (STOP or a keep).

    ``stops[r]``: [1, result] what stopping is worth to the leader, by the
    limit it sets. Ties within EPS: stop, then keep more dice (the order of
    KEEP_CHOICES), as the followers' turns (:mod:`.game_maxn_turns`).
    """
    own = stops[0]
    choices = [np.full(own.shape, STOP, np.intp)]
    results = np.arange(len(RESULTS))  # along the last axis
    for r in range(1, throws):
        candidates = (own @ TRANSITIONS.T)[:, KEEP_CHOICES]  # [summary, result, choice]
        best = candidates.max(axis=-1)
        first = np.argmax(candidates >= best[..., None] - EPS, axis=-1)
        stop = stops[r] >= best - EPS
        own = np.where(stop, stops[r], best)
        choices.append(np.where(stop, STOP, KEEP_CHOICES[results, first]))
    return choices


def _ended(choices: list[IntArray], throws: int) -> FloatArray:
    """[summary, throws used - 1, result]: how the turn ends under ``choices`` (a keep plus 28:
    « le bon », the next throw's result final)."""
    contexts = choices[0].shape[0]
    keeps = TRANSITIONS.shape[0]
    ended = np.zeros((contexts, throws, len(RESULTS)))
    holding = np.tile(FRESH, (contexts, 1))
    rows = np.arange(contexts)[:, None] * 2 * keeps
    for used in range(1, throws + 1):
        r = throws - used
        if r == 0:
            ended[:, used - 1] += holding
            break
        stop = choices[r] == STOP
        ended[:, used - 1] += np.where(stop, holding, 0.0)
        flat = (rows + np.where(stop, 0, choices[r])).ravel()
        mass = np.bincount(flat, np.where(stop, 0.0, holding).ravel(), minlength=contexts * 2 * keeps)
        mass = mass.reshape(contexts, 2 * keeps)
        holding = mass[:, :keeps] @ TRANSITIONS
        ended[:, used] += mass[:, keeps:] @ TRANSITIONS
    return ended


@dataclass
class RoundPlay:
    """A round solved at one position: its value and, when asked, its strategies.

    ``followers[limit][i - 1][r]``: [summary, result] the choice of the
    ``i``-th player after the leader; ``leader[r]``: [1, result] the leader's.
    ``classes``: the chance of each class when everyone plays so. Where
    ``rows`` is set (a staked round), a follower's choices are by row rather
    than by summary: ``rows[i - 1][summary]`` is the summary's
    (:func:`.game_maxn_stakes.alike_steps`). ``finals[limit][i - 1]``:
    [summary, counted result] how the ``i``-th follower's turn ends, on the
    summaries the limit reaches where it is narrowed (:meth:`Shape.narrowed`);
    kept only while the round is measured (:mod:`.deviation`), not for play.
    """

    value: FloatArray  # [seat]
    leader: list[IntArray] = field(default_factory=list)
    followers: dict[int, list[list[IntArray]]] = field(default_factory=dict)
    finals: dict[int, list[FloatArray]] = field(default_factory=dict)
    classes: FloatArray | None = None
    rows: list[IntArray] | None = None

    def follower_choices(self, limit: int, place: int, left: int) -> IntArray:
        """``[summary, result(, stake)]``: the choices of the player at ``place`` (after the leader)
        with ``left`` throws left, by summary."""
        chosen = self.followers[limit][place - 1][left]
        return chosen if self.rows is None else chosen[self.rows[place - 1]]


def play_round(
    shape: Shape,
    payoff: FloatArray,
    seats: Sequence[int],
    most: int,
    leader_limit: bool,
    keep: bool = False,
) -> RoundPlay:
    """Solve a round by max^n: ``payoff[class, seat]``, ``seats`` in playing order.

    Each player maximises their own seat's value; the leader's throws set the
    others' limit. With ``keep``, the strategies and the chance of each class
    are kept too.
    """
    k = shape.players
    limits = list(range(1, most + 1)) if leader_limit else [most]
    after_leader: dict[int, FloatArray] = {}  # limit -> [leader's result, seat]
    finals: dict[int, list[FloatArray]] = {limit: [] for limit in limits}  # each follower's final chances
    followers: dict[int, list[list[IntArray]]] = {limit: [] for limit in limits}
    if 1 in limits:  # everyone after the leader throws once
        after_leader[1] = shape.coups_secs @ payoff
    longer = [limit for limit in limits if limit > 1]
    solved: tuple[FloatArray, FloatArray, Choices] | None = None
    narrow: dict[int, Reached] = {}
    for limit in longer:
        steps, may_stop = shape.steps, shape.may_stop
        reached = shape.narrowed(limit, leader_limit)  # only the summaries of results in no more throws
        if reached is not None:
            narrow[limit] = reached
            steps, may_stop = reached.steps, reached.may_stop
        if solved is None or shape.throws > 1:
            # the last player's values come from the payoff whatever the limit: one solve serves all,
            # except where throw counts are compared (the limit changes what stopping is worth)
            most_asked = max(longer) if shape.throws == 1 else limit
            last = (payoff, steps[k - 2], seats[k - 1], most_asked, 2, may_stop(k - 2), shape.bon)
            # a sweep keeps only the values
            unkept = np.empty((0, 0, 0), np.int8)
            solved = follower_turns(*last) if keep else (follower_values(*last), np.empty(0), unkept)
        out, final, choices = solved
        later = out[limit - 1]
        if keep:
            finals[limit].append(final[limit - 1])
            followers[limit].append(_widened(shape, narrow.get(limit), choices[:limit], k - 2))
        for i in range(k - 2, 0, -1):
            turn = (later, steps[i - 1], seats[i], limit, limit, may_stop(i - 1), shape.bon)
            if not keep:
                later = follower_values(*turn)[limit - 1]
                continue
            out_i, final_i, choices_i = follower_turns(*turn)
            later = out_i[limit - 1]
            finals[limit].insert(0, final_i[limit - 1])
            followers[limit].insert(0, _widened(shape, narrow.get(limit), choices_i, i - 1))
        after_leader[limit] = later
    by_used = [_made_in(after_leader[u if leader_limit else most], u) for u in range(1, most + 1)]
    stops = [by_used[most - r - 1][None, :, seats[0]] for r in range(most)]
    leader = _choices(stops, most)
    ended = _ended(leader, most)[0]  # [used - 1, result]
    value = sum(ended[u - 1] @ by_used[u - 1] for u in range(1, most + 1))
    play = RoundPlay(np.asarray(value, dtype=float))
    if keep:
        play.leader, play.followers, play.finals = leader, followers, finals
        play.classes = _class_chances(shape, ended, finals, limits, leader_limit, narrow)
    return play


def _widened(shape: Shape, reached: Reached | None, choices: Choices, i: int) -> list[Choices]:
    """A follower's choices by throws left, over every summary of ``shape.steps[i]`` (STOP where the
    limit does not reach)."""
    if reached is None:
        return list(choices)
    return list(scattered(choices, reached.rows[i], len(shape.steps[i]), STOP))


def summary_of(shape: Shape, done: Sequence[tuple[Result, int]]) -> int:
    """The summary after the results ``done`` (each with the throws it took), leader first."""
    kinds = len(RESULTS)

    def column(result: Result, throws: int) -> int:
        return INDEX[result] + (throws - 1) * kinds if shape.throws > 1 else INDEX[result]

    summary = column(*done[0])
    for i, later in enumerate(done[1:]):
        summary = int(shape.steps[i][summary, column(*later)])
    return summary


def _made_in(after: FloatArray, used: int) -> FloatArray:
    """The rows of ``after`` (by the leader's result, counted where throws are compared) for a
    result made in ``used`` throws."""
    kinds = len(RESULTS)
    if after.shape[0] == kinds:
        return after
    return after[(used - 1) * kinds : used * kinds]


def _counted_reach(shape: Shape, ended: FloatArray) -> FloatArray:
    """``ended[..., used - 1, result]`` as the chance of each counted result (:func:`counted`)."""
    if shape.throws == 1:
        found: FloatArray = ended.sum(axis=-2)
        return found
    flat = ended.reshape(*ended.shape[:-2], -1)
    reach = np.zeros((*ended.shape[:-2], len(RESULTS) * shape.throws))
    reach[..., : flat.shape[-1]] = flat
    return reach


def stop_values(
    shape: Shape,
    payoff: FloatArray,
    seats: Sequence[int],
    most: int,
    leader_limit: bool,
    place: int,
    summary: int,
    limit: int,
    memo: Afters | None = None,
) -> list[FloatArray]:
    """What stopping on each result is worth to the player at ``place``, by throws left.

    ``stops[r][result]`` with ``r`` throws still allowed, for 0 to ``limit - 1``
    (the leader: ``most``); ``summary``: the results before (a follower's),
    ``limit``: the throws the followers may use. The later players play their
    solved turns, as in :func:`play_round`; ``memo`` keeps those turns for the
    next player of the same round (:func:`_after`).
    """
    if place == 0:
        by_limit = {u: _after(shape, payoff, seats, u, 0, memo) for u in range(1, most + 1)}
        by_used = [_made_in(by_limit[u if leader_limit else most], u) for u in range(1, most + 1)]
        return [by_used[most - r - 1][:, seats[0]] for r in range(most)]
    after = _after(shape, payoff, seats, limit, place, memo)
    stops = after[shape.steps[place - 1][summary], seats[place]]
    if shape.throws == 1:
        return [stops] * limit
    return [_made_in(stops, limit - r) for r in range(limit)]


def may_stop_at(shape: Shape, place: int, summary: int, limit: int) -> Callable[[int], BoolArray] | None:
    """Where the player at ``place`` may stop after the results ``summary``, by throws left (players
    behind must throw on), as :func:`stop_values` gives what stopping is worth; None: anywhere."""
    ahead = shape.may_stop(place - 1) if place else None
    if ahead is None:
        return None
    row, kinds = ahead[summary], len(RESULTS)

    def where(r: int) -> BoolArray:
        shift = 0 if shape.throws == 1 else (limit - r - 1) * kinds  # counted: limit - r throws used
        found: BoolArray = row[shift : shift + kinds]
        return found

    return where


def stops_at(
    manche: Manche,
    p: int,
    values: FloatArray,
    place: int,
    summary: int,
    limit: int,
    memo: Afters | None = None,
) -> list[FloatArray]:
    """:func:`stop_values` in the round at position ``p`` solved against ``values``; where every
    throw adds to the stake, ``stops[r][result, stake]`` (stakes from 0 to the pot left). ``memo``:
    the later players' turns already solved in this round."""
    rules = manche.rules
    pos = manche.positions[p]
    seats = pos.order()
    most = rules.throws_allowed(pos.charge)
    payoff = manche.payoff(p, values)
    if staked(rules, pos.charge):
        shape = shape_of(rules, len(seats), staked=True)
        cap, top = pos.pot + manche.debt_cap, rules.pot + manche.debt_cap
        return staked_stop_values(
            shape, payoff, seats, most, rules.leader_limit, place, summary, limit, rules, cap, memo, top
        )
    return stop_values(
        shape_of(rules, len(seats)), payoff, seats, most, rules.leader_limit, place, summary, limit, memo
    )


Afters = dict[tuple[int, int], FloatArray]  # one round's :func:`_after`, by followers' limit and place


def _after(
    shape: Shape, payoff: FloatArray, seats: Sequence[int], limit: int, place: int, memo: Afters | None = None
) -> FloatArray:
    """[summary after ``place``'s result, seat]: every seat's value when the later players follow.

    Each player's turn is solved from the next one's; ``memo`` keeps them, so that in a round the
    leader's advice solves the followers' turns once for the advice that each of them asks next."""
    if memo is not None and (limit, place) in memo:
        return memo[(limit, place)]
    if place == shape.players - 1:  # the last player's result ends the round
        later = payoff
    else:
        later = _after(shape, payoff, seats, limit, place + 1, memo)
        step = shape.steps[place]
        if limit == 1:  # coups secs: nothing to choose
            later = np.einsum("r,crs->cs", FRESH, later[step[:, : len(FRESH)]])
        else:
            turn = (later, step, seats[place + 1], limit, limit, shape.may_stop(place), shape.bon)
            later = follower_values(*turn)[limit - 1]
    if memo is not None:
        memo[(limit, place)] = later
    return later


def _class_chances(
    shape: Shape,
    ended: FloatArray,
    finals: dict[int, list[FloatArray]],
    limits: list[int],
    leader_limit: bool,
    narrow: dict[int, Reached] | None = None,
) -> FloatArray:
    """The chance of each class, following the play forward from the leader (``narrow``: the limits
    whose turns were solved on the summaries they reach, and those)."""
    total = np.zeros(shape.classes)
    for limit in limits:
        if limit == 1:
            total += (ended[0] if leader_limit else ended.sum(axis=0)) @ shape.coups_secs
            continue
        if narrow and limit in narrow:  # from the leader's results made in ``limit`` throws
            reach = ended[limit - 1]
            reached = narrow[limit]
            for i, (step, final) in enumerate(zip(reached.steps, finals[limit], strict=True)):
                size = shape.classes if i == len(reached.steps) - 1 else len(reached.rows[i + 1])
                reach = spread(step, final, reach, size)
            total += reach
            continue
        # over the leader's results (counted ones where throws are compared)
        reach = _counted_reach(shape, ended if not leader_limit else _only(ended, limit))
        for step, final in zip(shape.steps, finals[limit], strict=True):
            size = shape.classes if step is shape.steps[-1] else int(step.max()) + 1
            reach = spread(step, final, reach, size)
        total += reach
    return total


def _only(ended: FloatArray, used: int) -> FloatArray:
    """``ended`` with only the results made in ``used`` throws."""
    found = np.zeros_like(ended)
    found[used - 1] = ended[used - 1]
    return found


# -- the positions of a manche -----------------------------------------------------------------


Debts = tuple[int, ...]  # by seat, what each owes the next manche (« queue de la vache »); () none


@dataclass(frozen=True, order=True)
class Position:
    """The start of a round: phase, pot, tokens, who is still in and who leads; in a décharge after a
    charge that left debts, the debts (they only change the manche's ends)."""

    charge: bool
    pot: int
    tokens: tuple[int, ...]
    active: tuple[bool, ...]
    leader: int
    debts: Debts = ()

    def order(self) -> tuple[int, ...]:
        """The players of the round, leader first, clockwise."""
        n = len(self.tokens)
        return tuple(s % n for s in range(self.leader, self.leader + n) if self.active[s % n])


End = tuple[int, bool, Debts]  # the manche's loser, whether by l'Espagnole, the debts it leaves
Next = list[tuple[float, "Position | End"]]  # where an outcome leads, with what chance


def _table(rows: Iterable[list[tuple[float, int]]]) -> tuple[IntArray, FloatArray]:
    """``[outcome, way]`` nodes and chances from each outcome's ``(chance, node)`` ways (padded with
    node 0 at no chance)."""
    listed = list(rows)
    width = max(len(r) for r in listed)
    padded = [row + [(0.0, 0)] * (width - len(row)) for row in listed]
    table = np.array(padded, dtype=np.float64).reshape(len(listed), width, 2)
    return table[:, :, 1].astype(np.intp), np.ascontiguousarray(table[:, :, 0])


class _OwedDecharges:
    """The décharges after each debt (« queue de la vache »), built from the décharge owing nothing.

    A décharge leads where the same one owing nothing does, its debts kept: each debt's positions
    are those reached from where its charge ended, and their tables are the ones owing nothing with
    the nodes renumbered, made when asked (hundreds of thousands of positions at 41 tokens, where
    building each in Python would take minutes).
    """

    def __init__(self, manche: Manche, entries: dict[Debts, set[Position]], plain: list[Position]) -> None:
        self.manche = manche
        # every décharge position owing nothing that a debt's décharge plays as, numbered
        universe: dict[Position, int] = {}
        todo = sorted({*plain, *(pos for starts in entries.values() for pos in starts)})
        for pos in todo:
            universe.setdefault(pos, len(universe))
        rows: list[list[list[tuple[float, Position | End]]]] = []
        i = 0
        while i < len(todo):
            pos = todo[i]
            i += 1
            outcomes = [nxt for _, nxt in manche._decharge_outcomes(pos)]
            rows.append(outcomes)
            for nxt in outcomes:
                for _, key in nxt:
                    if isinstance(key, Position) and key not in universe:
                        universe[key] = len(universe)
                        todo.append(key)
        size = len(universe)
        # local nodes: the universe's positions, then the ends owing nothing (2 * loser + espagnole)
        self.nodes, self.chances = [], []
        for outcomes in rows:
            table = _table(
                [
                    (p, universe[key] if isinstance(key, Position) else size + 2 * key[0] + int(key[1]))
                    for p, key in nxt
                ]
                for nxt in outcomes
            )
            self.nodes.append(table[0])
            self.chances.append(table[1])
        self.debts = sorted(entries)
        self.reached: list[list[int]] = []  # by debt, the universe's positions its décharge reaches
        self.positions: list[Position] = []
        self.ends: set[End] = set()
        listed = list(universe)
        for debts in self.debts:
            found = sorted(universe[pos] for pos in entries[debts])
            seen, k = set(found), 0
            while k < len(found):
                u = found[k]
                k += 1
                way = self.chances[u] > 0
                for v in self.nodes[u][way].tolist():
                    if v >= size:
                        self.ends.add(((v - size) // 2, bool((v - size) % 2), debts))
                    elif v not in seen:
                        seen.add(v)
                        found.append(v)
            self.reached.append(found)
            self.positions += [replace(listed[u], debts=debts) for u in found]
        self.size = size
        self.numbered = universe  # in their numbers' order

    def tables(self, own: list[tuple[IntArray, FloatArray] | None]) -> Tables:
        """Every position's table: ``own`` where it owes nothing, else renumbered."""
        manche = self.manche
        n = manche.players
        maps = []
        listed = list(self.numbered)
        where: list[tuple[int, int] | None] = [None] * len(own)
        for g, (debts, found) in enumerate(zip(self.debts, self.reached, strict=True)):
            renumber = np.full(self.size + 2 * n, -1, np.intp)
            for u in found:
                p = manche.index[replace(listed[u], debts=debts)]
                renumber[u] = p
                where[p] = (g, u)
            for loser in range(n):
                for e in (False, True):
                    i = manche.end_index.get((loser, e, debts))
                    if i is not None:
                        renumber[self.size + 2 * loser + int(e)] = manche.ends + i
            maps.append(renumber)
        manche.universal = {manche.index[pos]: u for pos, u in self.numbered.items() if pos in manche.index}
        manche.universal.update((p, found[1]) for p, found in enumerate(where) if found is not None)
        return Tables(own, where, maps, self.nodes, self.chances)


class Tables:
    """Per position, where each outcome of its round leads: ``[outcome, way]`` nodes and chances."""

    def __init__(
        self,
        own: list[tuple[IntArray, FloatArray] | None],
        where: list[tuple[int, int] | None],
        maps: list[IntArray],
        nodes: list[IntArray],
        chances: list[FloatArray],
    ) -> None:
        self._own, self._where, self._maps, self._nodes, self._chances = own, where, maps, nodes, chances

    def __len__(self) -> int:
        return len(self._own)

    def __getitem__(self, p: int) -> tuple[IntArray, FloatArray]:
        found = self._own[p]
        if found is not None:
            return found
        where = self._where[p]
        assert where is not None
        g, u = where
        return self._maps[g][self._nodes[u]], self._chances[u]


class Manche:
    """Every position of a manche, its first round led by seat 0, and where each round leads.

    Nodes are the positions, then the ends of the manche (:attr:`end_keys`): node
    ``len(positions) + 2 * loser + espagnole`` for an end that leaves no debt.

    « Queue de la vache »: in a manche that another follows (``carry``), a charge loser who must
    take more than the pot holds owes the rest, up to one pot (the next manche's, which a debt of
    a pot or more empties at once; the rules solved whole have two manches). The debts stay as
    they are through the décharge, which is played once for each, and the manche's ends carry
    them. ``owed``: the debts a manche may start with (seats turned to its first leader), paid
    from its pot before its first round (:meth:`start_after`).
    """

    def __init__(self, rules: Ruleset, players: int, carry: bool = False, owed: Sequence[Debts] = ()) -> None:
        self.rules, self.players = rules, players
        self.total = rules.pot + players * rules.initial_tokens
        self.carry = carry and rules.queue_de_la_vache
        self.debt_cap = rules.pot if self.carry else 0  # a charge round's stake counts up to pot + this
        n = players
        self.start = Position(True, rules.pot, (rules.initial_tokens,) * n, (True,) * n, 0)
        self.index: dict[Position, int] = {}
        # many rounds end the charge alike (and owing alike), and a décharge owing nothing is played
        # for every debt: each worked out once
        self._charge_ends: dict[tuple[tuple[int, ...], int], Next] = {}
        self._charge_ends_owing: dict[tuple[tuple[tuple[int, ...], int], Debts], Next] = {}
        self._decharges: dict[Position, list[tuple[Outcome, Next]]] = {}
        # « queue de la vache »: each décharge position's number among those owing nothing that the
        # décharges after a debt play as (the same number owing any debt: the same table)
        self.universal: dict[int, int] = {}
        # every position reachable from the start (and the starts after a debt), then numbered in a
        # fixed order, and every end
        roots = [self.start] + [key for debts in owed for _, key in self.start_after(debts)]
        todo = [key for key in roots if isinstance(key, Position)]
        seen = set(todo)
        pending: list[Position] = []
        owing: set[End] = {key for key in roots if not isinstance(key, Position) and key[2]}
        owed_starts: set[Position] = set()  # where each debt's décharge starts
        while todo:
            pos = todo.pop()
            pending.append(pos)
            for _, nxt in self._outcomes(pos):
                for _, key in nxt:
                    if not isinstance(key, Position):
                        if key[2]:
                            owing.add(key)
                    elif key.debts:  # played as the same décharge owing nothing: tabled from it below
                        owed_starts.add(key)
                    elif key not in seen:
                        seen.add(key)
                        todo.append(key)
        entries: dict[Debts, set[Position]] = {}  # where each debt's décharge starts, as owing nothing
        for key in owed_starts:
            entries.setdefault(key.debts, set()).add(replace(key, debts=()))
        owed_decharges = _OwedDecharges(self, entries, [pos for pos in pending if not pos.charge])
        self.positions: list[Position] = sorted(pending + owed_decharges.positions)
        self.index = {p: i for i, p in enumerate(self.positions)}
        self.ends = len(self.positions)
        plain: list[End] = [(loser, bool(e), ()) for loser in range(n) for e in (0, 1)]
        self.end_keys = plain + sorted(owing | owed_decharges.ends)
        self.end_index = {key: i for i, key in enumerate(self.end_keys)}
        own: list[tuple[IntArray, FloatArray] | None] = []  # per position: [outcome, way] nodes and chances
        for pos in self.positions:
            own.append(
                None
                if pos.debts
                else _table([(p, self._node(key)) for p, key in nxt] for _, nxt in self._outcomes(pos))
            )
        self.tables = owed_decharges.tables(own)

    def _decharge_outcomes(self, pos: Position) -> list[tuple[Outcome, Next]]:
        """:meth:`_outcomes` of a décharge position owing nothing, computed once."""
        found = self._decharges.get(pos)
        if found is None:
            found = self._decharges[pos] = self._outcomes(pos)
        return found

    def end_node(self, loser: int, espagnole: bool, debts: Debts = ()) -> int:
        return self.ends + self.end_index[(loser, espagnole, debts)]

    def _node(self, key: Position | End) -> int:
        if isinstance(key, Position):
            return self.index[key]
        return self.end_node(*key)

    @property
    def nodes(self) -> int:
        """The positions and the ends: the rows of a manche's values."""
        return self.ends + len(self.end_keys)

    def start_after(self, debts: Debts) -> Next:
        """Where the manche starts once ``debts`` are paid from its pot, clockwise from its first
        leader (seat 0), as the engine's ``_start_charge`` pays them; a debt of the whole pot or more
        ends the charge at once."""
        if not any(debts):
            return [(1.0, self.start)]
        tokens, pot = list(self.start.tokens), self.start.pot
        for seat in range(self.players):
            pay = min(debts[seat], pot)
            tokens[seat] += pay
            pot -= pay
        if pot:
            return [(1.0, replace(self.start, pot=pot, tokens=tuple(tokens)))]
        return self._charge_end(tokens, 0)

    def _outcomes(self, pos: Position) -> list[tuple[Outcome, Next]]:
        """Where each outcome of the round at ``pos`` leads, in the order of its settling's outcomes."""
        order = pos.order()
        settling = settling_of(self.rules, len(order), pos.charge, self.debt_cap if pos.charge else 0)
        found = []
        for outcome in settling.outcomes:
            losers, winner, amount = outcome
            seats = [order[i] for i in losers]
            if pos.charge:
                found.append((outcome, self._after_charge(pos, seats, amount)))
            else:
                found.append((outcome, self._after_decharge(pos, seats, order[winner], amount)))
        return found

    def _after_charge(self, pos: Position, losers: list[int], amount: int) -> Next:
        tokens, pot = list(pos.tokens), pos.pot
        debts = [0] * self.players
        for seat in losers:
            take = min(amount, pot)
            pot -= take
            tokens[seat] += take
            debts[seat] = min(amount - take, self.debt_cap)  # owed to the next manche, if any
        if pot:
            return [(1.0, Position(True, pot, tuple(tokens), pos.active, losers[0]))]
        key = (tuple(tokens), losers[0])
        ended = self._charge_ends.get(key)
        if ended is None:
            ended = self._charge_ends[key] = self._charge_end(tokens, losers[0])
        if not any(debts):
            return ended
        owed = (key, tuple(debts))
        found = self._charge_ends_owing.get(owed)
        if found is None:
            found = self._charge_ends_owing[owed] = [(p, _owing(at, owed[1])) for p, at in ended]
        return found

    def _charge_end(self, tokens: list[int], first: int) -> Next:
        """The end of the charge (engine ``_end_charge``), owing nothing, ``first`` the last round's
        loser (or the manche's leader where debts emptied the pot)."""
        n = self.players
        active = tuple(t > 0 for t in tokens) if self.rules.withdraw_at_zero else (True,) * n
        holder = next((s for s in range(n) if tokens[s] == self.total), None)
        if holder is not None:
            return [(1.0, (holder, True, ()))]  # l'Espagnole
        candidates = [s % n for s in range(first, first + n) if active[s % n]]
        rule = self.rules.decharge_leader
        if rule == "worst_coup_sec":  # a draw of coups secs: each equally likely to lead
            leaders = candidates
        elif rule == "fewest_tokens":
            leaders = [min(candidates, key=lambda s: tokens[s])]
        else:
            leaders = candidates[:1]
        return [(1 / len(leaders), Position(False, 0, tuple(tokens), active, s)) for s in leaders]

    def _after_decharge(self, pos: Position, losers: list[int], winner: int, amount: int) -> Next:
        tokens = list(pos.tokens)
        for seat in losers:
            give = min(amount, tokens[winner])
            tokens[winner] -= give
            tokens[seat] += give
        active = list(pos.active)
        if tokens[winner] == 0:  # the winner gave their last token
            active[winner] = False
        holder = next((s for s in range(self.players) if tokens[s] == self.total), None)
        if holder is not None:
            return [(1.0, (holder, False, pos.debts))]
        return [(1.0, Position(False, 0, tuple(tokens), tuple(active), losers[0], pos.debts))]

    def payoff(self, p: int, values: FloatArray) -> FloatArray:
        """[class, seat]: what each class of the round at position ``p`` is worth to each seat."""
        after = self.after(p, values)
        found: FloatArray = self._settling(p).at(after, self.positions[p].order()) @ after
        return found

    def after(self, p: int, values: FloatArray) -> FloatArray:
        """[outcome, seat]: what each way the round at ``p`` settles is worth to each seat."""
        nodes, chances = self.tables[p]
        found: FloatArray = np.einsum("ow,ows->os", chances, values[nodes])
        return found

    def _settling(self, p: int) -> Settling:
        pos = self.positions[p]
        return settling_of(self.rules, len(pos.order()), pos.charge, self.debt_cap if pos.charge else 0)

    def stakes(self, p: int, values: FloatArray) -> list[bool]:
        """Where « vient » is chosen in the round at ``p`` against ``values``, by choice (none
        outside « main chaude »)."""
        settling = self._settling(p)
        if settling.chaude is None:
            return []
        return settling.chaude.weights(self.after(p, values), self.positions[p].order())[1]

    def weights(
        self, p: int, values: FloatArray, played: list[bool] | None = None, responder: int = -1
    ) -> FloatArray:
        """[class, outcome]: how each class of the round at ``p`` settles, « main chaude » chosen
        against ``values``; with ``played``, only the seat ``responder`` chooses so, the others
        playing those stakes."""
        settling = self._settling(p)
        if settling.chaude is None:
            return settling.weights
        after = self.after(p, values)
        return settling.chaude.weights(after, self.positions[p].order(), played, responder)[0]

    @cached_property
    def orbits(self) -> dict[int, list[tuple[int, int]]]:
        """The positions alike but for the seats, by the one led by seat 0: ``[(position, k)]``, each
        that one with its seats turned by ``k`` (seat 0 becomes seat ``k``), whose round leads where
        that one's does, turned (:meth:`turn`). A position is alone where that one is not reached, or
        its round would lead elsewhere (a rule that names a seat)."""
        found: dict[int, list[tuple[int, int]]] = {}
        for p, pos in enumerate(self.positions):
            if pos.debts:  # a décharge after a debt: turned debt by debt (:func:`_settle_debts`)
                continue
            first = self.index.get(_turned_position(pos, pos.leader))
            if first is None or not self._leads_alike(first, p, pos.leader):
                found[p] = [(p, 0)]
            else:
                found.setdefault(first, [(first, 0)])
                if first != p:
                    found[first].append((p, pos.leader))
        return found

    @cached_property
    def _turns(self) -> list[IntArray]:
        """``[k][node]``: the node that ``node`` becomes with the seats turned by ``k`` (-1: not reached)."""
        n = self.players
        found = []
        for k in range(n):
            nodes = [self.index.get(_turned_position(pos, -k % n), -1) for pos in self.positions]
            nodes += [
                self.ends
                + self.end_index.get(((loser + k) % n, e, _turned_debts(debts, -k % n)), -1 - self.ends)
                for loser, e, debts in self.end_keys
            ]
            found.append(np.array(nodes, np.intp))
        return found

    def _leads_alike(self, first: int, p: int, k: int) -> bool:
        """Whether every outcome of the round at ``p`` leads where ``first``'s does, turned by ``k``."""
        nodes, chances = self.tables[first]
        own_nodes, own_chances = self.tables[p]
        ways = chances != 0  # a table's rows are padded with no chance
        turned_nodes = self._turns[k][nodes]
        return np.array_equal(chances, own_chances) and np.array_equal(turned_nodes[ways], own_nodes[ways])

    def turn(self, moves: Moves, k: int) -> Moves:
        """Where a round leads, ``moves`` from a position, as seen from that position turned by ``k``."""
        return (self._turns[k][moves[0]], moves[1]) if k else moves

    def counts(self) -> tuple[int, int]:
        charge = sum(p.charge for p in self.positions)
        return charge, len(self.positions) - charge


# -- solving a manche --------------------------------------------------------------------------


Moves = tuple[IntArray, FloatArray]  # the nodes a round leads to, and the chance of each


@dataclass
class MancheSolution:
    """A solved manche: each node's value to each seat, and how the manche ends from each position.

    ``values[node, seat]``: minus the seat's expected share of the game's loss.
    ``ends[position, loser, espagnole]``: the chance that the manche ends so.
    """

    values: FloatArray
    ends: FloatArray
    # « queue de la vache », a manche another follows: [position, end] the chance of each end that
    # leaves debts (:attr:`Manche.end_keys` after the first ``2 * players``), counted in ``ends`` too
    owing: FloatArray | None = None
    sweeps: int = 0
    change: float = 0.0  # the last sweep's largest change
    linear_gap: float = 0.0  # largest |value iteration - exact values of its policies|
    residual: float = 0.0  # largest change of one more pass over the exact values
    converged: bool = True  # the last sweep moved no value by more than TOLERANCE
    # the décharge's final policies, by position (read from a file: those of the décharge owing nothing,
    # where a solve stopped part way kept them to start the next manche's)
    policies: dict[int, Moves] = field(default_factory=dict, repr=False, compare=False)
    # the positions of each décharge (or looping charge level) that did not settle (kept in the file too)
    unsettled: list[list[int]] = field(default_factory=list, repr=False, compare=False)


@dataclass
class Underway:
    """A manche solved part way, as a solve of hours keeps it to go on from there after a stop
    (:meth:`GameMaxn.solve`). ``levels``: the charge's pot levels solved, from the smallest, the
    décharge done; -1 while the décharge is swept, ``solution.policies`` then its last pass's
    choices and ``changes`` each pass's largest change. ``solution``: the values so far, the
    décharge's policies (owing nothing) and checks; ``found[position, end]``: how the manche ends
    from the décharge and the levels solved, by :attr:`Manche.end_keys` (each group of positions
    valued under its policies once solved, as it leads only to itself and to groups before it; None
    while the décharge is swept). ``debts``: where the décharge owing nothing is done, the décharges
    after a debt solved since (« queue de la vache », their kinds in the order :func:`_settle_debts`
    solves them; ``solution.policies`` holds their choices too); -1 before them.
    """

    levels: int
    solution: MancheSolution
    found: FloatArray | None = None
    changes: list[float] = field(default_factory=list)
    debts: int = -1


Keep = Callable[[Underway], None]


@dataclass
class Bounding:
    """A bound on deviating (:func:`.deviation.bounded`) part way, as a solve of hours keeps it to go
    on from there after a stop (four-player vache-41: a pass of best responses takes 20 minutes).

    ``found``: what each group measured gained, in the order measured; of the group being measured,
    ``played``: how far bot:optimal's play is from the stored values (None: not measured yet),
    ``passes``: the passes of best responses done, and ``values``: each seat's values of its rows
    after them (exactly the values the next pass starts from).
    """

    found: list[float] = field(default_factory=list)
    played: float | None = None
    passes: int = 0
    values: FloatArray | None = None


def round_at(manche: Manche, p: int, values: FloatArray, keep: bool = False) -> RoundPlay:
    """The round at position ``p``, solved against the values of where it leads."""
    rules = manche.rules
    pos = manche.positions[p]
    order = pos.order()
    most = rules.throws_allowed(pos.charge)
    payoff = manche.payoff(p, values)
    if staked(rules, pos.charge):
        shape = shape_of(rules, len(order), staked=True)
        top = rules.pot + manche.debt_cap  # stakes above the pot left count where debts carry
        cap = pos.pot + manche.debt_cap
        return play_staked_round(shape, payoff, order, most, rules.leader_limit, rules, cap, keep, top)
    return play_round(shape_of(rules, len(order)), payoff, order, most, rules.leader_limit, keep)


def _moves(manche: Manche, p: int, classes: FloatArray, values: FloatArray) -> Moves:
    """Where the round at ``p`` leads when its classes come with these chances, the « main
    chaude » stakes chosen against ``values``."""
    return _moves_with(manche, p, classes, manche.weights(p, values))


def _moves_with(manche: Manche, p: int, classes: FloatArray, weights: FloatArray) -> Moves:
    """Where the round at ``p`` leads when its classes come with these chances and settle so."""
    nodes, chances = manche.tables[p]
    return nodes.ravel(), ((classes @ weights)[:, None] * chances).ravel()


def solve_manche(
    manche: Manche,
    ends: FloatArray,
    progress: Progress | None = None,
    accelerate: bool = True,
    like: dict[int, Moves] | None = None,
    owing: FloatArray | None = None,
    start: dict[int, Moves] | None = None,
    underway: Underway | None = None,
    keep: Keep | None = None,
) -> MancheSolution:
    """Solve a manche whose ends are worth ``ends[loser, espagnole, seat]``; those that leave debts
    (« queue de la vache », :attr:`Manche.end_keys` after the first ``2 * players``) ``owing[end,
    seat]``.

    ``like``: the final policies in a manche whose ends are these up to a
    positive affine map per seat (:func:`alike`). Each player's choices only
    compare their own values, so the sweeps would retrace that manche's and
    end on its policies: the décharge starts from their exact values instead,
    and the sweeps check them. The charge only leads down, pot level by pot
    level, to values that are the same map of the other manche's: its rounds
    make the same choices, which are valued here without solving them again
    (where a level comes back to itself, it is solved as ever).

    ``start`` (where ``like`` is not): the final policies of another manche on these positions, with
    other ends (the manche after this one): the décharge starts from their exact values here, nearer
    to where it settles than a loser drawn at random, and the sweeps go on from there as ever.

    With ``accelerate``, after each sweep of the décharge the values become
    the exact values of the policies that sweep chose (a linear solve: policy
    iteration), so that far fewer sweeps are needed. The sweeps stop once no
    value moves by more than ``TOLERANCE``, or when the choices come back to
    those of 2 to ``CYCLE`` sweeps before (:func:`_cycling`: the same choices
    valued exactly lead to the same sweep) or flip back and forth between two
    policies (:func:`_flipping`), the largest change not having halved, or
    when the largest change has not halved in ``STALL`` sweeps: with more
    than two players max^n need not settle (a choice near a tie can flip back
    and forth as the values it feeds on move), and then ``converged`` is False
    The décharges after a charge that left debts are solved one debt after another, after the one
    that owes nothing (:func:`_settle_debts`). Where the ends turn once each seat's are shifted by
    a constant (:func:`_shift_to_turn`: a manche after one a player lost), the manche is solved
    with its ends so shifted, one round of each kind, and its values shifted back.

    ``keep(underway)`` is called after each pass of the décharge, once the décharge is done and
    after each pot level of the charge: a solve stopped then goes on from ``underway`` (the same
    manche, the same ends), the décharge from its last pass's choices, the charge from the next
    level, to the same values as a solve not stopped.
    """
    n = manche.players
    count = len(manche.positions)
    shifted = _shift_to_turn(ends) if owing is None else None
    if shifted is None:
        return _solved_manche(manche, ends, progress, accelerate, like, owing, start, underway, keep)
    # the same manche to each player as one whose ends turn: solved so, one round of each kind
    shift, turning = shifted
    solution = _solved_manche(
        manche, turning, progress, accelerate, like, start=start, underway=underway, keep=keep
    )
    solution.values += shift
    solution.values[count : count + 2 * n] = ends.reshape(2 * n, n)
    return solution


def _solved_manche(
    manche: Manche,
    ends: FloatArray,
    progress: Progress | None,
    accelerate: bool,
    like: dict[int, Moves] | None,
    owing: FloatArray | None = None,
    start: dict[int, Moves] | None = None,
    underway: Underway | None = None,
    keep: Keep | None = None,
) -> MancheSolution:
    n = manche.players
    count = len(manche.positions)
    groups = _debt_groups(manche)
    decharge = groups.pop((), [])
    owed = list(groups.values())  # the décharges after each debt, in the order of the positions
    levels: dict[int, list[int]] = {}
    for p, pos in enumerate(manche.positions):
        if pos.charge:
            levels.setdefault(pos.pot, []).append(p)
    moves: dict[int, Moves]
    found: FloatArray | None = None
    # the décharge owing nothing done before a stop (and the debts', where ``levels`` >= 0)
    if underway is not None and (underway.levels >= 0 or underway.debts >= 0):
        solution, found = underway.solution, underway.found
        values, moves = solution.values, solution.policies
        alone = not _turning(ends, manche, values)
    else:
        values = np.zeros((manche.nodes, n))
        values[count : count + 2 * n] = ends.reshape(2 * n, n)
        if owing is not None:
            values[count + 2 * n :] = owing
        values[decharge] = ends[:, 0].mean(axis=0)  # start from a loser drawn at random
        if underway is not None and decharge:  # its last pass before a stop: the next one goes on from it
            start, like = underway.solution.policies, None
        if like and decharge:
            values[decharge] = _evaluate(decharge, like, values)
        elif start and decharge and all(p in start for p in decharge):
            values[decharge] = _evaluate(decharge, start, values)
        moves = {}
        solution = MancheSolution(values, np.zeros((count, n, 2)), policies=moves)
        changes: list[float] = []
        if underway is not None:
            solution.sweeps, changes = underway.solution.sweeps, list(underway.changes)
            if progress and changes:  # the pass it stopped after, said again
                left = passes_left(changes, TOLERANCE, accelerate)
                progress("decharge", solution.sweeps, 0, Sweep(changes[-1], TOLERANCE, left))
        alone = not _turning(ends, manche, values)

        def swept(changes: list[float]) -> None:
            if keep:
                keep(Underway(-1, solution, None, changes))

        _settle_decharge(
            manche, decharge, _orbits(manche, decharge, alone), moves, solution, progress, accelerate,
            changes=changes, swept=swept,
        )  # fmt: skip
        _check_decharge(manche, decharge, moves, solution, alone)
    if underway is None or underway.levels < 0:
        if groups:

            def debt_kept(done: int) -> None:
                if keep:
                    keep(Underway(-1, solution, None, debts=done))

            done = max(underway.debts, 0) if underway is not None else 0
            _settle_debts(manche, groups, decharge, moves, solution, progress, alone, done, debt_kept)
        kinds = len(manche.end_keys)
        found = np.zeros((count + kinds, kinds))
        found[count:] = np.eye(kinds)
        for rows in [decharge, *owed]:  # each leads only to itself and to the manche's ends
            if rows:
                found[rows] = _linear(moves, rows, found)
        if keep:
            keep(Underway(0, solution, found))
    assert found is not None
    looping = _zero_amounts(manche.rules)
    # the same game to every player, where the décharge ended on the other manche's choices (the
    # same moves, to the last bit): the charge's choices are the other manche's too
    retraced = bool(like and solution.converged and all(_same(moves[p], like[p]) for p in decharge))
    for level, pot in enumerate(sorted(levels), start=1):
        if underway is not None and level <= underway.levels:  # solved before a stop
            continue
        if retraced and not looping:
            assert like is not None
            for p in levels[pot]:
                moves[p] = like[p]
                nodes, chances = like[p]
                values[p] = chances @ values[nodes]  # where the round leads: lower pots, the décharge
        else:
            orbits = _orbits(manche, levels[pot], alone)
            if not looping:  # every round leads to lower pots: none to another of the level
                _sweep(manche, orbits, values, moves, apart=True)
            else:  # the level's values under its final policies, exactly (the sweeps only near them)
                if not _settle_level(manche, levels[pot], orbits, values, moves, accelerate):
                    solution.converged = False
                    solution.unsettled.append(levels[pot])
                values[levels[pot]] = _evaluate(levels[pot], moves, values)
                _even(orbits, values)
        found[levels[pot]] = _linear(moves, levels[pot], found)  # it leads to lower pots, the décharge
        if keep:
            keep(Underway(level, solution, found))
        if progress:
            progress("charge", pot, manche.rules.pot)
    solution.ends = found[:count, : 2 * n].reshape(count, n, 2).copy()
    for j, (loser, espagnole, _) in enumerate(manche.end_keys[2 * n :], start=2 * n):
        solution.ends[:, loser, int(espagnole)] += found[:count, j]
    solution.owing = found[:count, 2 * n :] if manche.carry else None
    return solution


def _settle_decharge(
    manche: Manche,
    rows: list[int],
    orbits: list[list[tuple[int, int]]],
    moves: dict[int, Moves],
    solution: MancheSolution,
    progress: Progress | None,
    accelerate: bool,
    exact: bool = False,
    changes: list[float] | None = None,
    swept: Callable[[list[float]], None] | None = None,
) -> float | None:
    """Sweep the décharge's ``rows`` until they settle (:func:`solve_manche`), their values and moves
    in ``solution``: the residual (:func:`_check_decharge`) where the last sweep found it, as it
    chose as the policies whose exact values it started from (``exact``: the rows' values and moves
    are those to begin with). With ``accelerate``, every sweep ends with the exact values of its
    policies (policy iteration), and choices that come back stop the sweeps (:func:`_cycling`).
    ``changes``: each pass's largest change before a stop, the sweeps going on from there;
    ``swept(changes)`` is called after each pass that does not end the sweeps, its choices in
    ``moves`` (with ``accelerate``, the rows' values their exact values)."""
    values = solution.values
    changes = [] if changes is None else changes
    best, since_best = np.inf, 0
    for change in changes:
        best, since_best = (change, 0) if change < best / 2 else (best, since_best + 1)
    recent: deque[dict[int, Moves]] = deque(maxlen=CYCLE + 1)  # the last sweeps' choices
    while rows:
        before = {p: moves[p] for p in rows} if exact else None
        change = _sweep(manche, orbits, values, moves, told=progress)
        solution.sweeps += 1
        solution.change = change
        changes.append(change)
        if progress:
            left = passes_left(changes, TOLERANCE, accelerate)
            progress("decharge", solution.sweeps, 0, Sweep(change, TOLERANCE, left))
        if change < TOLERANCE:
            if before is not None and all(_same(moves[p], before[p]) for p in rows):
                return change  # a pass over the exact values of the policies it kept
            break
        recent.append({p: moves[p] for p in rows})
        best, since_best = (change, 0) if change < best / 2 else (best, since_best + 1)
        cycling = accelerate and _cycling(recent, changes)
        if since_best >= STALL or _flipping(list(recent)[-4:], changes) or cycling:
            solution.converged = False
            solution.unsettled.append(list(rows))
            if progress:
                progress("unsettled", solution.sweeps, 0)
            break
        exact = accelerate
        if accelerate:
            values[rows] = _evaluate(rows, moves, values)
        if swept:
            swept(changes)
    return None


def _debt_groups(manche: Manche) -> dict[Debts, list[int]]:
    """The décharge's positions by the debts the charge left (``()``: none), in the order of the
    positions."""
    found: dict[Debts, list[int]] = {}
    for p, pos in enumerate(manche.positions):
        if not pos.charge:
            found.setdefault(pos.debts, []).append(p)
    return found


def _settle_debts(
    manche: Manche,
    groups: dict[Debts, list[int]],
    plain: list[int],
    moves: dict[int, Moves],
    solution: MancheSolution,
    progress: Progress | None,
    alone: bool,
    done: int = 0,
    kept: Callable[[int], None] | None = None,
) -> None:
    """Solve the décharge after each debt (« queue de la vache »): its rounds lead only to one another
    and to the ends that carry the same debt. Each starts from the policies of the one solved before
    it (the same positions, owing a little more or less: the sweeps then mostly only check them), or
    from its values where it holds positions that one did not reach. Where the seats can be turned
    (:func:`_turning`), one debt of each kind is solved and the others are its turns.

    ``done``: the kinds of debt solved before a stop (their values and choices in ``solution`` and
    ``moves``), not solved again; ``kept(kinds solved)`` after each kind."""
    values = solution.values
    n = manche.players
    solving: list[Debts] = []
    turning: dict[Debts, list[tuple[int, IntArray]]] = {}  # the debts solved as turns of another
    covered: set[Debts] = set()
    for debts in sorted(groups):
        if debts in covered:
            continue
        solving.append(debts)
        covered.add(debts)
        turning[debts] = []
        for k in range(1, n) if not alone else ():  # the same debt owed by another seat, if turned alike
            other = _turned_debts(debts, -k % n)
            targets = manche._turns[k][groups[debts]]
            if other not in covered and other in groups and set(targets.tolist()) == set(groups[other]):
                turning[debts].append((k, targets))
                covered.add(other)
    # each position's choices (the chances its round's outcomes are played with) in the décharge
    # solved last that holds it, owing nothing first: where every position of a debt's décharge has
    # some, it starts from their exact values
    latest = {manche.universal[p]: moves[p][1] for p in plain if p in manche.universal}
    for count, debts in enumerate(solving, start=1):
        rows = groups[debts]
        if count <= done:  # solved before a stop: the next starts from its choices, as it did
            latest.update((manche.universal[p], moves[p][1]) for p in rows)
            continue
        chosen = [latest.get(manche.universal[p]) for p in rows]
        table = {
            p: (manche.tables[p][0].ravel(), c) for p, c in zip(rows, chosen, strict=True) if c is not None
        }
        moves.update(table)
        new = [p for p in rows if p not in table]
        if new:  # positions no décharge before held: their rounds played once, from a loser drawn at random
            owed = [manche.ends + i for i, key in enumerate(manche.end_keys) if key[2] == debts]
            values[rows] = values[owed].mean(axis=0)
            _sweep(manche, [[(p, 0)] for p in new], values, moves)
        values[rows] = _evaluate(rows, moves, values)  # where every round leads as it was chosen
        if progress:
            progress("debts", count, len(solving))
        residual = _settle_decharge(
            manche, rows, [[(p, 0)] for p in rows], moves, solution, progress, True, True
        )
        _check_decharge(manche, rows, moves, solution, True, residual)
        latest.update((manche.universal[p], moves[p][1]) for p in rows)
        for k, targets in turning[debts]:
            for p, q in zip(rows, targets.tolist(), strict=True):
                values[q] = turned(values[p], k)
                moves[q] = manche.turn(moves[p], k)
        if kept:
            kept(count)


def _settle_level(
    manche: Manche,
    level: list[int],
    orbits: Sequence[Sequence[tuple[int, int]]],
    values: FloatArray,
    moves: dict[int, Moves],
    exact: bool,
) -> bool:
    """Sweep a charge level whose rounds may be worth nothing (a round that moves no token leaves
    the pot as it was) until no value moves by more than ``TOLERANCE``: whether it settled.

    With ``exact``, each sweep is followed by the exact values of the policies it chose, as the
    décharge's accelerated sweeps are, while the largest change shrinks by more than a tenth: the
    next sweep that chooses alike then moves nothing, where plain sweeps only shrink the change to
    about a third each (two dozen of them to settle a level)."""
    last = np.inf
    for _ in range(LEVEL_SWEEPS):
        change = _sweep(manche, orbits, values, moves)
        if change < TOLERANCE:
            return True
        exact = exact and change < PAYING * last
        last = change
        if exact:
            values[level] = _evaluate(level, moves, values)
    return False


def _turning(ends: FloatArray, manche: Manche | None = None, values: FloatArray | None = None) -> bool:
    """Whether ``ends[loser, espagnole, seat]`` are the same for every loser, the seats turned: then
    positions alike but for the seats are worth the same, turned (:attr:`Manche.orbits`), and one
    round of each kind is solved (a manche where nobody has lost yet, a game of one manche). The
    ends that leave debts (``values``' last rows) must turn so too, each to the same debts turned."""
    n = ends.shape[0]
    if not all(np.array_equal(ends[loser], turned(ends[0], loser)) for loser in range(n)):
        return False
    if manche is None or values is None:
        return True
    owed = range(manche.ends + 2 * n, manche.nodes)
    for k in range(1, n):
        turns = manche._turns[k]
        if any(turns[e] < 0 or not np.array_equal(values[turns[e]], turned(values[e], k)) for e in owed):
            return False
    return True


def _shift_to_turn(ends: FloatArray) -> tuple[FloatArray, FloatArray] | None:
    """Each seat's shift (``[seat]``) that makes ``ends[loser, espagnole, seat]`` turn
    (:func:`_turning`), where they do not already, and the ends so shifted, turning to the last bit
    (the shift's rounding aside): None where no shift makes them turn.

    A manche after one that a player lost is worth more to the others whoever loses it (in
    ``classic-11``, the two losers share the game's loss unless the same one loses both), so its ends
    do not turn. But each player only compares their own values, and a value shifted by the same
    amount at every end shifts every position's value by that amount, choices unchanged: where the
    shifted ends turn, the manche is played as one that turns, one round of each kind solved.
    Turning only changes which seat holds each end value, so every seat's largest end value is the
    same after the shift that turns them: the shift is that largest value."""
    n = ends.shape[0]
    if _turning(ends):
        return None
    shift = ends.max(axis=(0, 1))
    shifted = ends - shift
    exact = np.stack([turned(shifted[0], loser) for loser in range(n)])
    if not np.allclose(shifted, exact, rtol=0.0, atol=TOLERANCE / 100):
        return None
    return shift, exact


def _orbits(manche: Manche, group: Sequence[int], alone: bool) -> list[list[tuple[int, int]]]:
    """The positions of ``group`` by kind: each position on its own (``alone``) or with those alike
    but for the seats (:attr:`Manche.orbits`, which keeps the positions of a phase and a pot
    together)."""
    if alone:
        return [[(p, 0)] for p in group]
    orbits = manche.orbits
    return [orbits[p] for p in group if p in orbits]


def _sweep(
    manche: Manche,
    orbits: Sequence[Sequence[tuple[int, int]]],
    values: FloatArray,
    moves: dict[int, Moves],
    apart: bool = False,
    told: Progress | None = None,
) -> float:
    """Solve the round of each orbit's first position against ``values``, in place (each round sees
    the values already updated), its value and moves turned to the others; the largest change.
    ``apart``: no round leads to another's position (a charge level where every round takes from the
    pot), so the rounds are solved side by side (:func:`.game_maxn_turns.side_by_side`). ``told``:
    how many rounds are solved, every :data:`TOLD_ROUNDS`."""
    change = 0.0
    starts = [orbit[0][0] for orbit in orbits]
    if apart:
        plays = side_by_side(lambda p: round_at(manche, p, values, keep=True), starts)
    else:  # one after another: each sees the values the ones before it wrote
        plays = (round_at(manche, p, values, keep=True) for p in starts)
    for done, (orbit, p, play) in enumerate(zip(orbits, starts, plays, strict=True), start=1):
        if told is not None and done % TOLD_ROUNDS == 0:
            told("rounds", done, len(starts))
        assert play.classes is not None
        where = _moves(manche, p, play.classes, values)  # the stakes chosen as the round was
        for q, k in orbit:
            value = turned(play.value, k)
            change = max(change, float(np.abs(value - values[q]).max()))
            values[q] = value
            moves[q] = manche.turn(where, k)
    return change


def _even(orbits: Sequence[Sequence[tuple[int, int]]], values: FloatArray) -> None:
    """Each orbit's values turned from its first position's, in place: a linear solve leaves them
    alike only to rounding, and a round played from them must choose alike (:func:`_orbits`)."""
    for orbit in orbits:
        first = values[orbit[0][0]]
        for q, k in orbit[1:]:
            values[q] = turned(first, k)


def _flipping(recent: Sequence[dict[int, Moves]], changes: Sequence[float]) -> bool:
    """Whether the last four sweeps' choices flip back and forth: the last two sweeps each chose as
    the sweep two before it, not as the one before, and the largest change has not halved over them
    (flips that the values settle would shrink it). The values then only move between the same two
    policies, sweep after sweep, and no further sweep settles them."""
    if len(recent) < 4 or changes[-1] <= changes[-3] / 2:
        return False
    first, second, third, fourth = recent
    return _all_same(fourth, second) and _all_same(third, first) and not _all_same(fourth, third)


def _cycling(recent: Sequence[dict[int, Moves]], changes: Sequence[float]) -> bool:
    """Whether policy iteration has come back to choices it made 2 to :data:`CYCLE` sweeps before
    (each sweep starting from the exact values of the last one's choices, the same choices lead to
    the same sweep: they go round again), the largest change not having halved since."""
    if len(recent) < 3 or changes[-1] <= changes[-3] / 2:
        return False
    return any(_all_same(recent[-1], recent[-1 - back]) for back in range(2, len(recent)))


def _all_same(moves: dict[int, Moves], other: dict[int, Moves]) -> bool:
    return all(_same(where, other[p]) for p, where in moves.items())


def _same(moves: Moves, other: Moves) -> bool:
    """Whether a round leads to the same nodes with the same chances: the same choices."""
    return np.array_equal(moves[0], other[0]) and np.array_equal(moves[1], other[1])


def alike(ends: FloatArray, other: FloatArray, tolerance: float = 1e-12) -> bool:
    """Whether ``other[..., seat]`` is ``a + b * ends[..., seat]`` with ``b > 0`` for every seat
    (to ``tolerance``): the same manche to every player, who only compares their own values."""
    for seat in range(ends.shape[-1]):
        x, y = ends[..., seat].ravel(), other[..., seat].ravel()
        spread_x, spread_y = np.ptp(x), np.ptp(y)
        if spread_x == 0 or spread_y == 0:
            if max(spread_x, spread_y) > tolerance:
                return False
            continue
        scale = spread_y / spread_x
        if np.abs(y.min() + scale * (x - x.min()) - y).max() > tolerance:
            return False
    return True


def _evaluate(rows: list[int], moves: dict[int, Moves], values: FloatArray) -> FloatArray:
    """The exact values of ``rows`` under the policies behind ``moves``: the rows lead to one another
    (the décharge; a pot level whose rounds may be worth nothing) or to positions already valued."""
    return _linear(moves, rows, values, guess=values[rows])


def _linear(
    moves: dict[int, Moves], rows: list[int], known: FloatArray, guess: FloatArray | None = None
) -> FloatArray:
    """``x`` where ``x[row] = Σ chance · (x or known)[where the row leads]``, a column for each of
    ``known``'s: what each of ``rows`` is worth (or how it ends) under the policies behind
    ``moves``, ``known[node]`` for every node outside them.

    Up to :data:`SPARSE_ROWS` rows, a dense solve. Above, the matrix would not fit (four-player
    ``vache-41``'s last décharge, 48,064 positions: 18 GB) though each row leads to a few dozen others:
    scipy's sparse matrices, each column solved by BiCGSTAB (by GMRES where it falls short) from
    ``guess`` where given (the values the sweeps left, near the exact ones), and checked: the
    largest residual at most :data:`SPARSE_RESIDUAL` (:class:`UnsolvedSystem` if not)."""
    size = len(rows)
    (inner_rows, inner_columns, inner_chances), (outer_rows, outer_columns, outer_chances), reached = _split(
        moves, rows
    )
    if size <= SPARSE_ROWS:
        inner = np.zeros((size, size))
        np.add.at(inner, (inner_rows, inner_columns), inner_chances)
        outer = np.zeros((size, len(reached)))
        np.add.at(outer, (outer_rows, outer_columns), outer_chances)
        exact = np.linalg.solve(np.eye(size) - inner, outer @ known[reached])
        return np.asarray(exact, dtype=np.float64)
    require("sim", "421 solve")  # check() said it first for a décharge this large
    from scipy.sparse import csr_array
    from scipy.sparse import eye as sparse_eye
    from scipy.sparse.linalg import bicgstab, gmres

    among = csr_array((inner_chances, (inner_rows, inner_columns)), shape=(size, size))
    out = csr_array((outer_chances, (outer_rows, outer_columns)), shape=(size, len(reached)))
    system = (sparse_eye(size, format="csr") - among).tocsr()
    given = np.asarray(out @ known[reached], dtype=np.float64)
    start = given if guess is None else guess
    found = np.empty_like(given)
    for column in range(given.shape[1]):
        b = given[:, column]
        x = start[:, column]
        for method in (bicgstab, gmres):
            x = x if np.isfinite(x).all() else start[:, column]  # from a breakdown's NaN, start again
            x, _ = method(system, b, x0=x, rtol=SPARSE_RESIDUAL / 10, atol=0.0, maxiter=SPARSE_ITERATIONS)
            residual = float(np.abs(system @ x - b).max())
            if residual <= SPARSE_RESIDUAL * max(1.0, float(np.abs(b).max())):
                break
        else:
            raise UnsolvedSystem(
                Message(
                    "solver.game.residual",
                    {"positions": size, "residual": f"{residual:.1e}", "most": f"{SPARSE_RESIDUAL:.0e}"},
                )
            )
        found[:, column] = x
    return found


@cache
def _zero_amounts(rules: Ruleset) -> bool:
    """Whether a charge round can move no token (then a pot level comes back to itself)."""
    if rules.main_chaude and min(sets for _, _, sets, _, _ in replays(rules, 2)) == 0:
        return True  # « vient » on a replay worth nothing
    if rules.accumulated_stakes:  # the stake holds every throw's value
        return bool(token_values(rules).min() == 0)
    # only the best and the worst result set the amount: a round of any size settles for those of
    # two (a round of five takes a second to shape)
    return int(shape_of(rules, 2).amount.min()) == 0


Links = tuple[IntArray, IntArray, FloatArray]  # (row, column, chance) of each link of a group of rows


def _split(moves: dict[int, Moves], rows: list[int]) -> tuple[Links, Links, IntArray]:
    """Where ``rows`` lead under ``moves``: the links among themselves (column: the place in ``rows``
    of where it leads), those to the nodes ``reached`` outside them (column: the place in
    ``reached``; only those: a manche has tens of thousands of nodes, a group of rows reaches a few)."""
    nodes = np.concatenate([moves[p][0] for p in rows]).astype(np.intp)
    chances = np.concatenate([moves[p][1] for p in rows])
    row = np.repeat(np.arange(len(rows)), [len(moves[p][0]) for p in rows])
    place = np.full(max(int(nodes.max()), max(rows)) + 1, -1, dtype=np.intp)
    place[rows] = np.arange(len(rows))
    at = place[nodes]
    inside = at >= 0
    reached, column = np.unique(nodes[~inside], return_inverse=True)
    inner = (row[inside], at[inside], chances[inside])
    outer = (row[~inside], column.reshape(-1), chances[~inside])
    return inner, outer, reached.astype(np.intp)


def _check_decharge(
    manche: Manche,
    decharge: list[int],
    moves: dict[int, Moves],
    solution: MancheSolution,
    alone: bool,
    residual: float | None = None,
) -> None:
    """Evaluate the décharge's final policies exactly (a linear solve) and check them.

    The exact values replace the iterated ones; ``linear_gap`` says how far
    apart they were, ``residual`` how much one more pass of the rounds over
    the exact values still changes (no player gains by another choice), at
    one position of each kind unless ``alone`` (:func:`_orbits`); ``residual``: already found by the
    last sweep (:func:`_settle_decharge`), not passed over again.
    """
    if not decharge:
        return
    values = solution.values
    exact = _evaluate(decharge, moves, values)
    gap = float(np.abs(exact - values[decharge]).max())
    solution.linear_gap = max(solution.linear_gap, gap)  # the largest of the décharges after each debt
    values[decharge] = exact
    _even(_orbits(manche, decharge, alone), values)
    if residual is not None:
        solution.residual = max(solution.residual, residual)
        return
    residual = solution.residual
    for orbit in _orbits(manche, decharge, alone):
        p = orbit[0][0]
        residual = max(residual, float(np.abs(round_at(manche, p, values).value - values[p]).max()))
    solution.residual = residual


# -- the game: manches chained ------------------------------------------------------------------

Losses = tuple[int, ...]
MancheKey = tuple[int, Losses]  # a manche's number and the manches each seat lost before it


def turned(values: FloatArray, seat: int) -> FloatArray:
    """Values solved with ``seat`` as seat 0, given back by the table's seats (last axis)."""
    n = values.shape[-1]
    found: FloatArray = values[..., [(s - seat) % n for s in range(n)]]
    return found


def _turned_losses(losses: Sequence[int], leader: int) -> Losses:
    """Manches lost by seat, seats turned so that ``leader`` is seat 0."""
    n = len(losses)
    return tuple(int(losses[(s + leader) % n]) for s in range(n))


def _turned_position(pos: Position, seat: int) -> Position:
    """The position with seats turned so that ``seat`` is seat 0."""
    n = len(pos.tokens)
    tokens = tuple(pos.tokens[(s + seat) % n] for s in range(n))
    active = tuple(pos.active[(s + seat) % n] for s in range(n))
    return Position(
        pos.charge, pos.pot, tokens, active, (pos.leader - seat) % n, _turned_debts(pos.debts, seat)
    )


def _owing(at: Position | End, debts: Debts) -> Position | End:
    """A décharge position or an end of the manche, owing ``debts``."""
    if isinstance(at, Position):
        return Position(at.charge, at.pot, at.tokens, at.active, at.leader, debts)
    return (at[0], at[1], debts)


def _turned_debts(debts: Debts, seat: int) -> Debts:
    """Debts by seat, seats turned so that ``seat`` is seat 0 (none stay none)."""
    n = len(debts)
    return tuple(debts[(s + seat) % n] for s in range(n))


def game_losers(rules: Ruleset, losses: Losses, manche: int, loser: int, espagnole: bool) -> tuple[int, ...]:
    """The game's losers once ``loser`` lost manche number ``manche`` (empty: the game goes on)."""
    after = list(losses)
    after[loser] += 1
    if espagnole and rules.espagnole == "loses_game":
        return (loser,)
    if rules.fiches_de_manche:
        return (loser,) if after[loser] >= rules.fiches_de_manche else ()
    if manche >= rules.manches:
        most = max(after)
        return tuple(s for s, lost in enumerate(after) if lost == most)
    return ()


Kept = TypeVar("Kept")


def _recent(
    kept: dict[tuple[tuple[int, Losses], int], Kept],
    key: tuple[tuple[int, Losses], int],
    make: Callable[[], Kept],
) -> Kept:
    """``kept[key]``, made first if it is not kept; the :data:`KEPT_ROUNDS` rounds asked last are kept."""
    found = kept.pop(key, None)
    if found is None:
        found = make()
        if len(kept) >= KEPT_ROUNDS:
            kept.pop(next(iter(kept)), None)
    kept[key] = found  # the most recent last
    return found


@dataclass
class GameMaxn:
    """A whole game of ``players`` solved by max^n at the game level.

    ``manches[(manche, losses)]`` is the manche played with ``losses`` lost
    so far, its first leader turned to seat 0 (the manche number only
    matters where the game ends after a number of manches).
    """

    rules: Ruleset
    players: int
    manches: dict[tuple[int, Losses], MancheSolution] = field(default_factory=dict)
    seconds: float = 0.0
    # where a décharge did not settle: what any one player gains by deviating (:mod:`.deviation`)
    deviation: Deviation | None = None
    # the manche being solved, as far as it went (kept with the manches solved: :meth:`solve`)
    underway: tuple[MancheKey, Underway] | None = None
    # the bound on deviating, as far as it went (every manche solved; kept with them)
    bounding: Bounding | None = None
    _plays: dict[tuple[tuple[int, Losses], int], RoundPlay] = field(default_factory=dict, repr=False)
    # the round last advised, with where it is: its later players' turns (:func:`_after`) and what
    # stopping is worth in each turn asked for, by place, results before and the followers' limit
    _advised: (
        tuple[tuple[tuple[int, Losses], int], Afters, dict[tuple[int, int, int], list[FloatArray]]] | None
    ) = field(default=None, repr=False)

    # « main chaude »: by round, what follows each choice (its chances and :meth:`.Chaude.made`); every
    # stake asked in a round reads the same
    _stakes: dict[tuple[tuple[int, Losses], int], tuple[FloatArray, FloatArray]] = field(
        default_factory=dict, repr=False
    )

    def __post_init__(self) -> None:
        check(self.rules, self.players)
        n = self.players
        # « queue de la vache »: the first manche carries its debts into the second, which starts
        # from each of them turned to its first leader, the first manche's loser
        self.carried = Manche(self.rules, n, carry=True) if self.rules.queue_de_la_vache else None
        owed = set()
        if self.carried is not None:
            owed = {_turned_debts(debts, loser) for loser, _, debts in self.carried.end_keys[2 * n :]}
        self.model = Manche(self.rules, n, owed=sorted(owed))

    def _models(self) -> list[Manche]:
        return [self.model] if self.carried is None else [self.carried, self.model]

    def model_of(self, key: tuple[int, Losses]) -> Manche:
        """The positions of manche ``key``: those of a manche another follows carry its debts."""
        if self.carried is not None and key[0] < self.rules.manches:
            return self.carried
        return self.model

    def _key(self, manche: int, losses: Losses) -> tuple[int, Losses]:
        return _manche_key(self.rules, manche, losses)

    def _contexts(self) -> list[tuple[int, Losses]]:
        """Every manche the game can play, in the order they must be solved (the last first)."""
        return manche_contexts(self.rules, self.players)

    def start_key(self) -> tuple[int, Losses]:
        """The game's first manche."""
        return self._key(1, (0,) * self.players)

    def end_values(
        self, manche: int, losses: Losses, starts: Callable[[tuple[int, Losses]], FloatArray] | None = None
    ) -> FloatArray:
        """[loser, espagnole, seat]: what each end of this manche is worth to each seat.

        ``starts(key)``: what the start of manche ``key`` is worth to each seat (by default its
        solved values; :mod:`.deviation` values the manches otherwise).
        """
        n = self.players
        start = self.model.index[self.model.start]
        ends = np.zeros((n, 2, n))
        for loser in range(n):
            for espagnole in (False, True):
                losers = game_losers(self.rules, losses, manche, loser, espagnole)
                if losers:
                    ends[loser, int(espagnole), list(losers)] = -1 / len(losers)
                    continue
                after = list(losses)
                after[loser] += 1
                key = self._key(manche + 1, _turned_losses(after, loser))
                found = starts(key) if starts else self.manches[key].values[start]
                ends[loser, int(espagnole)] = turned(found, loser)
        return ends

    def owing_values(self, manche: int, losses: Losses) -> FloatArray | None:
        """[end, seat]: what each end of this manche that leaves debts is worth to each seat (the
        next manche started with them paid, :meth:`Manche.start_after`); None where no debt is left."""
        model = self.model_of(self._key(manche, losses))
        n = self.players
        if not model.carry:
            return None
        found = np.zeros((len(model.end_keys) - 2 * n, n))
        for j, (loser, espagnole, debts) in enumerate(model.end_keys[2 * n :]):
            losers = game_losers(self.rules, losses, manche, loser, espagnole)
            if losers:
                found[j, list(losers)] = -1 / len(losers)
                continue
            after = list(losses)
            after[loser] += 1
            key = self._key(manche + 1, _turned_losses(after, loser))
            following, values = self.model_of(key), self.manches[key].values
            start = sum(
                p * values[following._node(at)]
                for p, at in following.start_after(_turned_debts(debts, loser))
            )
            found[j] = turned(np.asarray(start), loser)
        return found

    def solve(
        self, progress: Progress | None = None, kept: Callable[[GameMaxn], None] | None = None
    ) -> GameMaxn:
        """Solve every manche, the last first, then measure (or bound) what deviating gains where
        one did not settle.

        Manches already in :attr:`manches` are not solved again: a solve stopped part way and taken
        up from what ``kept`` saved (:func:`.solutions.solve_maxn_cached`), said to ``progress`` as
        ("resumed", manches solved, of how many). ``kept(self)`` is called after each manche
        solved, and with :attr:`underway` as it goes (after each pass of a décharge and each pot
        level of a charge: :func:`solve_manche`): a four-player game takes hours, a manche two, and
        the manche :attr:`underway` names is taken up from there, said as ("underway", its number,
        of how many).
        """
        began = time.perf_counter() - self.seconds  # a solve taken up counts the time spent before
        self._advised = None  # turns solved against the values before
        self._stakes.clear()
        contexts = self._contexts()
        before = sum(key in self.manches for key in contexts)
        if progress and before:
            progress("resumed", before, len(contexts))
        solved: list[tuple[FloatArray, MancheSolution, Manche]] = []
        for number, (manche, losses) in enumerate(contexts, start=1):
            if (manche, losses) in self.manches:  # read back (with its décharge's policies, to start others)
                continue
            key = (manche, losses)
            underway = self.underway[1] if self.underway and self.underway[0] == key else None
            if progress and underway:
                progress("underway", number, len(contexts))
            if progress:
                progress("manche", number, len(contexts))
            ends = self.end_values(manche, losses)
            owing = self.owing_values(manche, losses)
            model = self.model_of((manche, losses))
            like = next(
                (
                    done.policies
                    for before, done, where in solved
                    if where is model and owing is None and alike(before, ends)
                ),
                None,
            )
            # otherwise the décharge starts from the choices of the last manche solved on its positions
            # (the manche after it: other ends, much the same play): 6 sweeps where 9 were
            start = next(
                (
                    self.manches[key].policies
                    for key in reversed(contexts[: number - 1])
                    if self.model_of(key) is model and self.manches[key].policies
                ),
                None,
            )

            def keep(part: Underway, key: MancheKey = key) -> None:
                self.underway = (key, part)
                if kept:
                    self.seconds = time.perf_counter() - began
                    kept(self)

            solution = solve_manche(
                model, ends, progress, like=like, owing=owing, start=start, underway=underway, keep=keep
            )
            self.underway = None
            self.manches[key] = solution
            if (
                underway is None or underway.levels < 0
            ):  # its charge's choices all here: another may retrace them
                solved.append((ends, solution, model))
            if kept:
                self.seconds = time.perf_counter() - began
                kept(self)
        if not all(m.converged for m in self.manches.values()):
            from .deviation import bounded, deviation  # it builds on this module

            whole = self.carried is None and decharge_size(self.rules, self.players) <= MEASURED_MOST

            def bounding(state: Bounding) -> None:
                self.bounding = state
                if kept:
                    self.seconds = time.perf_counter() - began
                    kept(self)

            self.deviation = (
                deviation(self, progress) if whole else bounded(self, progress, self.bounding, bounding)
            )
            self.bounding = None
        self.seconds = time.perf_counter() - began
        return self

    # -- playing the solution -------------------------------------------------------------------

    def find(self, start: Position) -> tuple[tuple[int, Losses], int, int] | None:
        """A round start of the first manche, by seat at the table: its manche, position and frame;
        None where the game never reaches it.

        As :meth:`locate` does in the first manche, the seats are turned from
        the round's leader on until the position is one the solve reached.
        """
        n = self.players
        key = self._key(1, (0,) * n)
        for f in range(n):
            frame = (start.leader + f) % n
            p = self.model_of(key).index.get(_turned_position(start, frame))
            if p is not None:
                return key, p, frame
        return None

    def locate(self, state: State) -> tuple[tuple[int, Losses], int, int]:
        """Where the round being played in ``state`` started: its manche, position and frame.

        The manche's positions have its first leader as seat 0: ``frame`` is
        that leader's seat at the table.
        """
        r = state.round
        if r is None:
            raise InvalidPosition(Message("solver.game.no_round"))
        n = self.players
        leader = r.order[0]
        start = Position(state.phase is Phase.CHARGE, state.pot, state.tokens, state.active, leader)
        # a manche after the first is led by the last one's loser; the first looks the same from
        # every seat (nobody has lost yet): any frame that holds the position will do
        frames = [state.manche_losers[-1]] if state.manche > 1 else [(leader + f) % n for f in range(n)]
        for frame in frames:
            key = self._key(state.manche, _turned_losses(state.manche_losses, frame))
            model = self.model_of(key)
            if model.carry and not start.charge and any(state.debts):  # a debt of a pot or more empties it
                start = replace(start, debts=tuple(min(d, model.debt_cap) for d in state.debts))
            p = model.index.get(_turned_position(start, frame))
            if key in self.manches and p is not None:
                return key, p, frame
        raise InvalidPosition(Message("solver.game.no_start", {"start": str(start)}))

    def round_play(self, state: State) -> RoundPlay:
        """The solved round being played in ``state`` (the last few solved are kept)."""
        key, p, _ = self.locate(state)
        return self.round_of(key, p)

    def round_of(self, key: tuple[int, Losses], p: int) -> RoundPlay:
        """The round at position ``p`` of manche ``key``, solved with its strategies."""

        def solved() -> RoundPlay:
            found = round_at(self.model_of(key), p, self.manches[key].values, keep=True)
            found.leader = [c.astype(np.int8) for c in found.leader]  # keeps are 0 to 27, STOP -1
            found.finals = {}  # at four players, hundreds of megabytes: play reads the choices
            found.followers = {
                limit: [[c.astype(np.int8) for c in by_r] for by_r in places]
                for limit, places in found.followers.items()
            }
            return found

        return _recent(self._plays, (key, p), solved)

    def turn_shape(self, key: tuple[int, Losses], p: int) -> Shape:
        """The shape of the round at position ``p`` of manche ``key``: its steps before the last are
        every round's, and a staked one says whether « le bon » is weighed."""
        pos = self.model_of(key).positions[p]
        return shape_of(self.rules, len(pos.order()), staked(self.rules, pos.charge))

    def mover_turn(
        self, key: tuple[int, Losses], p: int, place: int, summary: int, limit: int
    ) -> TurnValues | StakedValues:
        """The turn of the player at ``place`` after the results ``summary`` (of :meth:`turn_shape`),
        followers held to ``limit`` throws: what each choice is worth to them, where they may stop."""
        shape = self.turn_shape(key, p)
        kept = self._advised  # read once: another thread may advise another round meanwhile
        if kept is None or kept[0] != (key, p):
            kept = ((key, p), {}, {})
        self._advised = kept
        _, afters, asked = kept
        stops = asked.get((place, summary, limit))
        if stops is None:  # each decision of a turn asks the same
            stops = stops_at(self.model_of(key), p, self.manches[key].values, place, summary, limit, afters)
            asked[(place, summary, limit)] = stops
        may_stop = may_stop_at(shape, place, summary, limit)  # players behind must throw on
        return turn_from_stops(stops, token_values(self.rules), may_stop, shape.bon)

    def stake_values(self, state: State) -> dict[Stake, float]:
        """« Main chaude »: what each stake is worth to the player choosing it in ``state``."""
        r = state.round
        if r is None or r.tie is None or not r.tie.awaiting_stake:
            raise InvalidPosition(Message("solver.game.no_mover"))
        key, p, _ = self.locate(state)
        pos = self.model_of(key).positions[p]
        seats = pos.order()
        settling = settling_of(self.rules, len(seats), pos.charge)
        assert settling.chaude is not None  # a stake is chosen only under « main chaude »
        tie = r.tie
        place = {s: i for i, s in enumerate(r.order)}
        loser = next(t.result for t in r.done if t.seat == tie.worst[0])
        bets = staked(self.rules, pos.charge)  # then the stake so far, capped at the full pot: the loser
        point = (  # takes it whoever holds the best
            tuple(place[s] for s in tie.worst),
            () if bets else tuple(place[s] for s in tie.best),
            tuple(place[s] for s in tie.draw.seats),
            min(r.stake, self.rules.pot) if bets else est_amount(state),
            bool(self.rules.nenette_penalty) and loser == NENETTE,
        )
        chaude = settling.chaude

        def following() -> tuple[FloatArray, FloatArray]:
            after = self.model_of(key).after(p, self.manches[key].values)
            return after, chaude.made(after, seats)

        after, made = _recent(self._stakes, (key, p), following)
        ways = chaude.ways(after, seats, point, made) @ after[:, seats[point[2][0]]]
        return {"est": float(ways[0]), "vient": float(ways[1])}

    def action(self, state: State) -> Action:
        """The solved choice of the player throwing in ``state``: stop, or the dice to keep; or
        under « main chaude », the stake (« est » where both are worth the same within EPS)."""
        r = state.round
        if r is not None and r.tie is not None and r.tie.awaiting_stake and self.rules.main_chaude:
            values = self.stake_values(state)
            return ChooseStake("vient" if values["vient"] > values["est"] + EPS else "est")
        if r is None or r.tie is not None or state.to_move is None:
            raise InvalidPosition(Message("solver.game.no_mover"))
        play = self.round_play(state)
        rules = self.rules
        charge = state.phase is Phase.CHARGE
        most = rules.throws_allowed(charge)
        mover = len(r.done)
        limit = min(most, r.limit) if mover and rules.leader_limit and r.limit is not None else most
        remaining = limit - r.throws
        result = INDEX[Result.of(r.dice)]
        bets = staked(rules, charge)
        at: tuple[int, ...] = (result,)
        if mover == 0:
            chosen = play.leader[remaining]
            at = (0, result)
        else:
            shape = shape_of(rules, len(r.order), bets)
            summary = summary_of(shape, [(t.result, t.throws) for t in r.done])
            chosen = play.followers[limit][mover - 1][remaining]
            if play.rows is not None:  # by row: summaries that lead alike choose alike
                summary = int(play.rows[mover - 1][summary])
            at = (summary, result)
        if bets:  # the stake so far, this throw's value added; a stake from the pot up is the pot
            at = (*at, min(r.stake, chosen.shape[-1] - 1))
        choice = int(chosen[at])
        return Stop() if choice == STOP else Throw(KEEPS[choice % BON], bon=choice >= BON)

    # -- what the solution says --------------------------------------------------------------

    def first_leaders(self) -> FloatArray:
        """The chance of each seat leading the first round."""
        n = self.players
        leaders: FloatArray = np.full(n, 1 / n)  # a draw where every seat throws the same: fair
        if self.rules.first_player == "first_seat":
            leaders = np.zeros(n)
            leaders[0] = 1.0
        return leaders

    def start_values(self) -> FloatArray:
        """[seat]: minus each seat's expected share of the loss, from the start of the game."""
        model = self.model_of(self.start_key())
        return self.from_start(self.manches[self.start_key()].values[model.index[model.start]])

    def from_start(self, start: FloatArray) -> FloatArray:
        """[seat at the table]: values of the first manche's start (seats turned from its first
        leader), as the first leader is chosen."""
        found: FloatArray = sum(p * turned(start, s) for s, p in enumerate(self.first_leaders()))
        return found

    def outcomes(self, leaders: FloatArray | None = None) -> dict[tuple[int, ...], float]:
        """The chance of each set of losers of the whole game, from its start.

        ``leaders``: the chance of each seat leading the first round (by default
        as the rules choose the first player).
        """
        found: dict[tuple[int, ...], float] = {}
        n = self.players
        # (manche, losses by seat, who leads it, the debts it starts with, turned to its leader) -> chance
        states: dict[tuple[int, Losses, int, Debts], float] = {}
        for s, p in enumerate(self.first_leaders() if leaders is None else leaders):
            if p:
                states[(1, (0,) * n, s, ())] = p
        while states:
            following: dict[tuple[int, Losses, int, Debts], float] = {}
            for (manche, losses, leader, debts), p in states.items():
                key = self._key(manche, _turned_losses(losses, leader))
                for (loser, espagnole, owed), q in self._ends_from(key, debts).items():
                    if not q:
                        continue
                    seat = (loser + leader) % n
                    losers = game_losers(self.rules, losses, manche, seat, espagnole)
                    if losers:
                        found[losers] = found.get(losers, 0.0) + p * q
                        continue
                    after = list(losses)
                    after[seat] += 1
                    later = (manche + 1, tuple(after), seat, _turned_debts(owed, loser))
                    following[later] = following.get(later, 0.0) + p * q
            states = following
        return found

    def _ends_from(self, key: tuple[int, Losses], debts: Debts) -> dict[End, float]:
        """The chance of each end of manche ``key`` (seats turned to its first leader) from its
        start, ``debts`` paid first."""
        model, solution = self.model_of(key), self.manches[key]
        n = self.players
        found: dict[End, float] = {}
        for chance, at in model.start_after(debts):
            if not isinstance(at, Position):
                found[at] = found.get(at, 0.0) + chance
                continue
            p = model.index[at]
            owing = solution.owing[p] if solution.owing is not None else np.zeros(0)
            for j, end in enumerate(model.end_keys):
                if j < 2 * n:  # an end that leaves no debt: those that do are counted in ``ends`` too
                    loser, espagnole, _ = end
                    q = float(solution.ends[p, loser, int(espagnole)])
                    q -= sum(
                        float(owing[i - 2 * n])
                        for i, e in enumerate(model.end_keys)
                        if i >= 2 * n and e[:2] == end[:2]
                    )
                else:
                    q = float(owing[j - 2 * n])
                found[end] = found.get(end, 0.0) + chance * q
        return found

    def values_table(self) -> list[dict[str, Any]]:
        """Every solved manche's positions with what each is worth to each seat (``421 solve --json``).

        Seats are turned so that the manche's first leader is seat 0; ``lost``
        is the manches each seat lost before (``manche`` null where fiches de
        manche end the game whatever the manche's number).
        """
        found = []
        for (manche, losses), solution in self.manches.items():
            rows = [
                {
                    "phase": "charge" if pos.charge else "decharge",
                    "pot": pos.pot,
                    "tokens": list(pos.tokens),
                    "active": list(pos.active),
                    "leader": pos.leader,
                    "share": [-float(v) for v in solution.values[p]],
                    "lose_manche": [float(x) for x in solution.ends[p].sum(axis=1)],
                    **({"debts": list(pos.debts)} if pos.debts else {}),
                }
                for p, pos in enumerate(self.model_of((manche, losses)).positions)
            ]
            number = None if self.rules.fiches_de_manche else manche
            found.append({"manche": number, "lost": list(losses), "positions": rows})
        return found

    def summary(self) -> dict[str, Any]:
        """Each seat's chances from the start: of losing (alone or sharing), and the shared loss.

        ``lose`` is by seat at the table (seat 0 first, the first player chosen
        as the rules say); ``lose_by_position`` by place from the first round's
        leader, who is then seat 0.
        """
        n = self.players
        outcomes = self.outcomes()
        lose = [float(sum(p for losers, p in outcomes.items() if s in losers)) for s in range(n)]
        alone = [float(outcomes.get((s,), 0.0)) for s in range(n)]
        shared = float(sum(p for losers, p in outcomes.items() if len(losers) > 1))
        first = np.eye(n)[0]
        led = self.outcomes(first)
        by_position = [float(sum(p for losers, p in led.items() if s in losers)) for s in range(n)]
        # the manche with the most of each (« queue de la vache »: the first, a décharge after each debt)
        charge, decharge = (max(c) for c in zip(*(m.counts() for m in self._models()), strict=True))
        return {
            **rules_fields(self.rules),
            "players": n,
            "method": "max^n over the game",
            "lose": lose,
            "lose_alone": alone,
            "shared": shared,
            "share": [-float(v) for v in self.start_values()],
            "lose_by_position": by_position,
            "lose_alone_by_position": [float(led.get((s,), 0.0)) for s in range(n)],
            "first_player_advantage": round(float(np.mean(by_position[1:]) - by_position[0]), 12) + 0.0,
            "first_player_drawn": self.rules.first_player != "first_seat",
            "positions": {"charge": charge, "decharge": decharge, "manches": len(self.manches)},
            "sweeps": [m.sweeps for m in self.manches.values()],
            "linear_gap": float(max(m.linear_gap for m in self.manches.values())),
            "residual": float(max(m.residual for m in self.manches.values())),
            "converged": all(m.converged for m in self.manches.values()),
            # where it did not settle: each seat's gain by deviating alone, and the largest
            "gains": None if self.deviation is None else [float(g) for g in self.deviation.gains],
            "exploitability": None if self.deviation is None else self.deviation.exploitability,
            "gain_anywhere": None if self.deviation is None else float(self.deviation.anywhere.max()),
            "deviation_bounded": self.deviation is not None and self.deviation.bounded,
            "seconds": self.seconds,
        }
