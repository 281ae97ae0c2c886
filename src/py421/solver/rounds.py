"""Rounds of any number of players, solved by max^n over a round-level objective.

In a round of ``n`` players each plays one turn in order; the leader's
throws set the limit for the others. Every player maximises their own
objective for the round, knowing that the later players will do the same
(max^n): the last player best-responds to what is on the table, the one
before anticipates that, and so on back to the leader, who also chooses the
limit by stopping.

Two objectives, each a number per player when the round is settled:

- ``tokens``: the tokens the round moves, from that player's side: minus the
  tokens taken from the pot in the charge; tokens given minus tokens received
  in the décharge;
- ``loser``: minus the chance of being the round's loser (so that larger is
  better, like ``tokens``; :attr:`RoundValues.not_losing` gives it as a chance).

What a later player can still change depends only on a summary of the
results already final: the best, the worst, how many share each, and, for
each earlier player, whether they hold the best and/or the worst (their
*flags*). The solver enumerates every summary reachable at each position.

The model is exact for these objectives but for three simplifications,
stated in ``docs/strategy.md``: a tie between several players is a fair draw
(each equally likely to lose it); « qui barre démarre » throw counts are not
compared (equal results tie); with accumulated stakes the ``tokens`` objective
is not available in the charge (use ``loser``). Décharge amounts are not
capped by what the giver holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal, get_args

import numpy as np
import numpy.typing as npt

from ..core.combos import NENETTE
from ..core.dice import Result
from ..core.errors import InvalidPlayers, InvalidRuleset, Message
from ..core.rules import Ruleset, named_with, rules_fields
from ..i18n import error_text, num, tr
from .amounts import base_amounts, settled_amounts, token_values
from .exact_turn import Option, best_first
from .tables import INDEX, KEEP_INDEX, KEEPS, KEEPS_OF, RESULTS, TRANSITIONS, FloatArray

Objective = Literal["tokens", "loser"]
OBJECTIVES: tuple[Objective, ...] = get_args(Objective)  # the order of the value arrays
IntArray = npt.NDArray[np.intp]

# Flags of an earlier player: 2 if they hold the worst result, 1 if the best (3: both).
WORST, BEST = 2, 1
FLAGS = 4
SELF = FLAGS  # the slot for the player whose turn it is
# Equal values within this margin are ties: stop rather than rethrow, keep more dice.
EPS = 1e-12

Summary = tuple[int, int, int, int]  # best result, worst result, holders of each

# The summaries grow with the players: both phases of a round of eight take about 2.3 GB and
# 25 s, and each player more adds half as much again (benchmarks/README.md). Larger tables are
# played by the other bots.
MAX_ROUND_PLAYERS = 8


def check_round_players(players: int) -> None:
    """Refuse a round the solver cannot hold, naming the limit."""
    if not 2 <= players <= MAX_ROUND_PLAYERS:
        raise InvalidPlayers(
            Message(
                "solver.rounds.players",
                {"most": MAX_ROUND_PLAYERS, "n": players},
            )
        )


@dataclass(frozen=True)
class Comparison:
    """What the summaries depend on: the order of results and the nénette rule."""

    strength: tuple[int, ...]  # by result index
    nenette_last_wins: bool

    def start(self, res: int) -> tuple[Summary, int]:
        """The summary after the leader's result, and the leader's flags."""
        return (res, res, 1, 1), WORST | BEST

    def update(self, s: Summary, res: int, before: int) -> tuple[Summary, int, tuple[int, ...]]:
        """Add a result to a summary of ``before`` results.

        Returns the new summary, the new player's flags and how each earlier
        player's flags change.
        """
        best, worst, n_worst, n_best = s
        st = self.strength
        same_flags = tuple(range(FLAGS))
        nen = INDEX[NENETTE]
        if self.nenette_last_wins and best == worst == nen:
            # everyone so far on nénette: the first is the worst, the last the best
            if res == nen:
                return s, BEST, tuple(f & ~BEST for f in range(FLAGS))
            if st[res] > st[nen]:
                return (res, nen, before, 1), BEST, (WORST,) * FLAGS
            return (nen, res, 1, before), WORST, (BEST,) * FLAGS
        if best == worst:  # everyone so far tied: every earlier player holds both
            if res == best:
                return (best, worst, n_worst + 1, n_best + 1), WORST | BEST, same_flags
            if st[res] > st[best]:
                return (res, best, n_worst, 1), BEST, tuple(f & ~BEST for f in range(FLAGS))
            return (best, res, 1, n_best), WORST, tuple(f & ~WORST for f in range(FLAGS))
        if st[res] > st[best]:
            return (res, worst, n_worst, 1), BEST, tuple(f & ~BEST for f in range(FLAGS))
        if res == best:
            return (best, worst, n_worst, n_best + 1), BEST, same_flags
        if res == worst:
            return (best, worst, n_worst + 1, n_best), WORST, same_flags
        if st[res] < st[worst]:
            return (best, res, 1, n_best), WORST, tuple(f & ~WORST for f in range(FLAGS))
        return s, 0, same_flags


@dataclass(frozen=True)
class Stage:
    """The summaries after ``k`` results, and where each leads with one more."""

    summaries: tuple[Summary, ...]
    index: dict[Summary, int]
    next: IntArray  # [summary, result] -> summary after k + 1 results
    new_flags: IntArray  # [summary, result] -> the new player's flags
    flag_map: IntArray  # [summary, result, flags] -> an earlier player's new flags


@cache
def stages(comparison: Comparison, players: int) -> tuple[Stage, ...]:
    """``stages(...)[k]`` holds the summaries after ``k + 1`` results, for k < players."""
    found: list[Stage] = []
    current = sorted({comparison.start(i)[0] for i in range(len(RESULTS))})
    for k in range(1, players + 1):
        index = {s: i for i, s in enumerate(current)}
        shape = (len(current), len(RESULTS))
        nxt, new_flags = np.zeros(shape, np.intp), np.zeros(shape, np.intp)
        flag_map = np.zeros((*shape, FLAGS), np.intp)
        following: dict[Summary, int] = {}
        if k < players:
            for i, s in enumerate(current):
                for res in range(len(RESULTS)):
                    after, flags, moved = comparison.update(s, res, k)
                    nxt[i, res] = following.setdefault(after, len(following))
                    new_flags[i, res] = flags
                    flag_map[i, res] = moved
        found.append(Stage(tuple(current), index, nxt, new_flags, flag_map))
        current = list(following)
    return tuple(found)


def ahead(comparison: Comparison, stage: Stage) -> npt.NDArray[np.bool_]:
    """[summary, result]: whether the result beats every one before it (the best), as a player
    behind must throw on (``must_throw_on``); after nénettes only, under ``nenette_last_wins``,
    another nénette does. « Qui barre démarre » throw counts are not compared (an equal result is
    not ahead)."""
    strength = np.array(comparison.strength)
    best = np.array([s[0] for s in stage.summaries], dtype=np.intp)
    beats = strength[None, :] > strength[best][:, None]
    if comparison.nenette_last_wins:
        nen = INDEX[NENETTE]
        only = np.array([s[0] == s[1] == nen for s in stage.summaries])
        beats[:, nen] |= only
    return beats


def comparison_of(rules: Ruleset) -> Comparison:
    table = rules.table
    return Comparison(tuple(table.strength(r) for r in RESULTS), rules.nenette_last_wins)


def unsupported(rules: Ruleset, charge: bool, objective: Objective) -> Message | None:
    if objective == "tokens" and charge and rules.accumulated_stakes:
        return Message(
            "solver.rounds.accumulated",
        )
    return None


# -- what a settled round is worth ----------------------------------------------


def payoffs(rules: Ruleset, players: int, charge: bool, pot: int | None, stage: Stage) -> FloatArray:
    """[objective, summary, flags]: each objective for a player with those flags."""
    nen = INDEX[NENETTE]
    all_take = rules.tied_losers_all_take
    found = np.zeros((len(OBJECTIVES), len(stage.summaries), FLAGS))
    run = rules.nenette_last_wins
    ends = np.array(stage.summaries, dtype=np.intp).reshape(-1, 4)
    tied = (ends[:, 0] == ends[:, 1]) & ~(run & (ends[:, 0] == nen))
    amounts = settled_amounts(rules, ends[:, 0], ends[:, 1], tied)
    for i, (best, worst, n_worst, n_best) in enumerate(stage.summaries):
        amount = int(amounts[i])
        everyone = best == worst and not (run and best == nen)
        for flags in range(FLAGS):
            in_worst, in_best = bool(flags & WORST), bool(flags & BEST)
            tokens = lose = 0.0
            if charge:
                if in_worst:
                    cap = amount if pot is None else pot
                    if all_take:
                        tokens, lose = -min(n_worst * amount, cap) / n_worst, 1.0
                    else:
                        tokens, lose = -min(amount, cap) / n_worst, 1.0 / n_worst
            elif everyone:  # all tied: a draw settles who gives and who receives
                lose = (players - 1) / players if all_take else 1.0 / players
            else:
                receivers = n_worst if all_take else 1
                if in_best:
                    tokens += amount * receivers / n_best
                if in_worst:
                    tokens -= amount if all_take else amount / n_worst
                    lose = 1.0 if all_take else 1.0 / n_worst
            found[0, i, flags] = tokens
            found[1, i, flags] = -lose
    return found


# -- one turn: the player to move best-responds, the others are carried along --------------

# The keeps each result allows in the order ties between them go (docs/strategy.md): more dice first,
# then the higher dice, read from the highest; padded.
_BY_SIZE = [sorted(ks, key=lambda k: (-len(KEEPS[k]), tuple(-d for d in KEEPS[k]))) for ks in KEEPS_OF]
KEEP_CHOICES: IntArray = np.array([ks + [ks[-1]] * (7 - len(ks)) for ks in _BY_SIZE], dtype=np.intp)
STOP = -1
FRESH = TRANSITIONS[KEEP_INDEX[()]]


@dataclass
class Turn:
    """A solved turn for many contexts at once.

    ``own[r]``: [context, result] the mover's value holding a result with ``r``
    throws still allowed; ``stop[r]``: what stopping there is worth to them;
    ``choice[r]``: what they do (STOP or a keep); ``start``: [context,
    objective, slot] every slot's value before the first throw; ``may_stop``: as
    :func:`play_turn` was told.
    """

    own: list[FloatArray]
    stop: list[FloatArray]
    choice: list[IntArray]
    start: FloatArray
    may_stop: npt.NDArray[np.bool_] | None = None

    def outcomes(self, throws: int) -> FloatArray:
        """[context, throws used - 1, result]: how the turn ends under ``choice``."""
        contexts = self.own[0].shape[0]
        ended = np.zeros((contexts, throws, len(RESULTS)))
        holding = np.tile(FRESH, (contexts, 1))
        rows = np.repeat(np.arange(contexts), len(RESULTS))
        for used in range(1, throws + 1):
            r = throws - used
            stop = self.choice[r] == STOP
            ended[:, used - 1] = np.where(stop, holding, 0.0)
            if r == 0:
                break
            keep_mass = np.zeros((contexts, len(KEEPS)))
            keeps = np.where(stop, 0, self.choice[r]).ravel()
            np.add.at(keep_mass, (rows, keeps), np.where(stop, 0.0, holding).ravel())
            holding = keep_mass @ TRANSITIONS
        return ended


def play_turn(
    stop_value: FloatArray, objective: int, throws: int, may_stop: npt.NDArray[np.bool_] | None = None
) -> Turn:
    """Solve a turn: ``stop_value[remaining, context, objective, slot, result]``.

    The mover (slot SELF) maximises ``objective``; every slot's values follow
    the mover's choices. ``may_stop[context, result]``: where the mover may stop
    with throws left (players behind must throw on; None: everywhere).

    « Le bon » (the next throw final) is never worth more than throwing on: the
    throw after it may keep the same dice again, whose result is then as likely
    as the one « le bon » would have stopped on; and no value here depends on
    the throws used. So it is never played.
    """
    stops = [stop_value[r, :, objective, SELF, :] for r in range(throws)]
    own, choice = [stops[0]], [np.full(stops[0].shape, STOP, np.intp)]
    carried = stop_value[0]
    for r in range(1, throws):
        candidates = (own[-1] @ TRANSITIONS.T)[:, KEEP_CHOICES]  # [context, result, choice]
        best = candidates.max(axis=-1)
        first_best = np.argmax(candidates >= best[..., None] - EPS, axis=-1)
        pick = np.take_along_axis(np.broadcast_to(KEEP_CHOICES, candidates.shape), first_best[..., None], -1)[
            ..., 0
        ]
        stop = stops[r] >= best - EPS
        if may_stop is not None:
            stop &= may_stop
        own.append(np.where(stop, stops[r], best))
        choice.append(np.where(stop, STOP, pick))
        keep_all = carried @ TRANSITIONS.T  # [context, objective, slot, keep]
        index = np.broadcast_to(pick[:, None, None, :], carried.shape)
        kept = np.take_along_axis(keep_all, index, axis=-1)
        carried = np.where(stop[:, None, None, :], stop_value[r], kept)
    return Turn(own, stops, choice, carried @ FRESH, may_stop)


@dataclass
class RoundValues:
    """A solved round: every position's strategy and what the round is worth to it."""

    rules: Ruleset
    players: int
    charge: bool
    objective: Objective
    leader: Turn
    followers: list[dict[int, Turn]]  # [position - 1][limit]
    value: FloatArray  # [position, objective]: each position's expected value of the round

    @property
    def not_losing(self) -> FloatArray:
        """Each position's chance of not losing the round."""
        result: FloatArray = 1 + self.value[:, OBJECTIVES.index("loser")]
        return result

    @property
    def tokens(self) -> FloatArray:
        """Each position's expected tokens (minus those taken in the charge, net given in the décharge)."""
        result: FloatArray = self.value[:, OBJECTIVES.index("tokens")]
        return result

    def context(self, finals: Sequence[Result]) -> int:
        """The row of the summary of the results already final, in playing order."""
        comparison = comparison_of(self.rules)
        summary, _ = comparison.start(INDEX[finals[0]])
        for k, res in enumerate(finals[1:], start=1):
            summary, _, _ = comparison.update(summary, INDEX[res], k)
        return stages(comparison, self.players)[len(finals) - 1].index[summary]

    def _turn(self, finals: Sequence[Result], limit: int) -> tuple[Turn, int]:
        if not finals:
            return self.leader, 0
        return self.followers[len(finals) - 1][limit], self.context(finals)

    def turn_start(self, finals: Sequence[Result], limit: int, objective: Objective) -> float:
        """The mover's value before their first throw (``loser``: as a chance of not losing)."""
        turn, row = self._turn(finals, limit)
        value = float(turn.start[row, OBJECTIVES.index(objective), SELF])
        return 1 + value if objective == "loser" else value

    def options(
        self, finals: Sequence[Result], limit: int, dice: Sequence[int], remaining: int
    ) -> list[Option]:
        """Every choice of the player to move, best first, by the chosen objective.

        ``finals``: the results already final this round, leader first;
        ``limit``: the throws the player may use (the leader's limit).
        """
        turn, row = self._turn(finals, limit)
        result = Result.of(dice)
        i = INDEX[result]
        found = []
        if remaining == 0 or turn.may_stop is None or turn.may_stop[row, i]:
            found.append(Option(result.dice, True, float(turn.stop[remaining][row, i])))
        if remaining > 0:
            cont = turn.own[remaining - 1][row] @ TRANSITIONS.T
            found += [Option(KEEPS[k], False, float(cont[k])) for k in KEEPS_OF[i]]
        if self.rules.must_throw_on and self.rules.le_bon and remaining > 1:  # never better: play_turn
            final = turn.stop[remaining - 1][row] @ TRANSITIONS.T
            found += [Option(KEEPS[k], False, float(final[k]), bon=True) for k in KEEPS_OF[i]]
        return best_first(found, EPS)

    def choice(self, finals: Sequence[Result], limit: int, dice: Sequence[int], remaining: int) -> int:
        """The solved choice of the player to move: :data:`STOP` or a keep's index.

        The one :func:`play_turn` made, ties within ``EPS`` broken as documented
        (stop, then keep more dice, a plain throw before « le bon »), which
        :meth:`options` puts first.
        """
        turn, row = self._turn(finals, limit)
        return int(turn.choice[remaining][row, INDEX[Result.of(dice)]])


@cache
def solve_round(
    rules: Ruleset, players: int, charge: bool, objective: Objective, pot: int | None = None
) -> RoundValues:
    """Solve a round of ``players`` by max^n; ``pot`` caps what the charge gives."""
    check_round_players(players)
    why = unsupported(rules, charge, objective)
    if why:
        raise InvalidRuleset(
            Message(
                "solver.rounds.cannot",
                {"rules": rules.name, "objective": objective, "why": why},
            )
        )
    comparison = comparison_of(rules)
    st = stages(comparison, players)
    most = rules.throws_allowed(charge)
    limits = list(range(1, most + 1)) if rules.leader_limit else [most]
    obj = OBJECTIVES.index(objective)
    final = payoffs(rules, players, charge, pot, st[players - 1]).transpose(1, 0, 2)
    # later[limit][summary, objective, flags]: an earlier player's value once the turns still to
    # come are played, from the summary they start at
    later = dict.fromkeys(limits, final)
    followers: list[dict[int, Turn]] = []
    for pos in range(players - 1, 0, -1):
        stage = st[pos - 1]
        may_stop = ahead(comparison, stage) if rules.must_throw_on else None
        turns: dict[int, Turn] = {}
        for limit in limits:
            w = later[limit]
            tracked = w[stage.next[:, :, None], :, stage.flag_map].transpose(0, 3, 2, 1)
            own = w[stage.next, :, stage.new_flags].transpose(0, 2, 1)[:, :, None, :]
            value = np.concatenate([tracked, own], axis=2)  # [context, objective, slot, result]
            turns[limit] = play_turn(np.broadcast_to(value, (limit, *value.shape)), obj, limit, may_stop)
        followers.insert(0, turns)
        later = {limit: turns[limit].start[:, :, :FLAGS] for limit in limits}
    # the leader: stopping after ``used`` throws sets the limit
    starts = [st[0].index[comparison.start(res)[0]] for res in range(len(RESULTS))]
    lead_flags = WORST | BEST
    value = np.zeros((most, 1, len(OBJECTIVES), FLAGS + 1, len(RESULTS)))
    for r in range(most):
        limit = most - r if rules.leader_limit else most
        value[r, 0, :, SELF, :] = later[limit][starts, :, lead_flags].T
    leader = play_turn(value, obj, most)
    return RoundValues(
        rules,
        players,
        charge,
        objective,
        leader,
        followers,
        _positions(leader, followers, st, limits, rules.leader_limit),
    )


def _positions(
    leader: Turn,
    followers: list[dict[int, Turn]],
    st: tuple[Stage, ...],
    limits: list[int],
    leader_limit: bool,
) -> FloatArray:
    """[position, objective]: each position's value, following the play forward."""
    values = [leader.start[0, :, SELF]]
    most = max(limits)
    ended = leader.outcomes(most)[0]  # [used - 1, result]
    reach: dict[int, FloatArray] = {}  # by limit: the chance of each summary after the leader
    starts = np.array([st[0].index[(res, res, 1, 1)] for res in range(len(RESULTS))])
    for limit in limits:
        used = [limit] if leader_limit else list(range(1, most + 1))  # the throws that set it
        mass = ended[[u - 1 for u in used]].sum(axis=0)
        reach[limit] = np.bincount(starts, mass, minlength=len(st[0].summaries)).astype(float)
    for pos, turns in enumerate(followers, start=1):
        stage = st[pos - 1]
        total = np.zeros(values[0].shape)
        following: dict[int, FloatArray] = {}
        for limit, turn in turns.items():
            total += reach[limit] @ turn.start[:, :, SELF]
            if pos < len(followers):
                ends = turn.outcomes(limit).sum(axis=1) * reach[limit][:, None]  # [context, result]
                size = len(st[pos].summaries)
                following[limit] = np.bincount(stage.next.ravel(), ends.ravel(), minlength=size).astype(float)
        values.append(total)
        reach = following
    return np.array(values)


def objective_for(rules: Ruleset, charge: bool) -> Objective:
    """The bot's round objective: the tokens, unless the model lacks them (then not losing)."""
    return "loser" if unsupported(rules, charge, "tokens") else "tokens"


def pot_cap(rules: Ruleset, players: int, charge: bool, pot: int) -> int | None:
    """The pot that caps a round's payoffs, or None when it caps nothing (one solve serves them all)."""
    if not charge:
        return None
    most = max(int(token_values(rules).max()), rules.nenette_penalty) * (
        players if rules.tied_losers_all_take else 1
    )
    return pot if pot < most else None


def round_for(rules: Ruleset, players: int, charge: bool, pot: int) -> RoundValues:
    """The round the optimal bot plays, with ``pot`` tokens left in the pot (charge only)."""
    cap = pot_cap(rules, players, charge, pot)
    return solve_round(rules, players, charge, objective_for(rules, charge), cap)


@cache
def vient_amount(rules: Ruleset) -> float:
    """« Main chaude »: the expected amount a decided replay of two coups secs sets."""
    strength = np.array(comparison_of(rules).strength)
    better = strength[:, None] > strength[None, :]  # [first, second]: the first is the better
    first, second = np.indices(better.shape)
    amount = base_amounts(rules, np.where(better, first, second), np.where(better, second, first))
    decided = np.outer(FRESH, FRESH) * (strength[:, None] != strength[None, :])
    return float((amount * decided).sum() / decided.sum())


def rounds_summary(rules: Ruleset, players: int) -> dict[str, Any]:
    """What ``421 solve --players N`` (N > 2) shows: each position's values of a full round."""
    phases: dict[str, dict[str, Any]] = {}
    for phase, charge in (("charge", True), ("decharge", False)):
        values = round_for(rules, players, charge, rules.pot)
        modelled = unsupported(rules, charge, "tokens") is None  # accumulated stakes are not
        positions = [
            {"position": i + 1, "not_losing": float(p), "tokens": float(t) if modelled else None}
            for i, (p, t) in enumerate(zip(values.not_losing, values.tokens, strict=True))
        ]
        phases[phase] = {"objective": values.objective, "positions": positions}
    return {**rules_fields(rules), "players": players, "method": "max^n rounds", "rounds": phases}


def rounds_text(data: dict[str, Any], lang: str = "en", why: Message | None = None) -> str:
    """:func:`rounds_summary` as sentences, in ``lang``; ``why``: why the whole game is not solved."""
    named = named_with(data["rules"], data.get("options", {}))
    lines = [tr(lang, "rounds.head", rules=named, players=data["players"])]
    for phase, found in data["rounds"].items():
        name = tr(lang, "rounds.charge" if phase == "charge" else "rounds.decharge")
        aim = tr(lang, "rounds.aim.loser" if found["objective"] == "loser" else "rounds.aim.tokens")
        lines.append(tr(lang, "rounds.round", name=name, aim=aim))
        for row in found["positions"]:
            tokens = (
                "" if row["tokens"] is None else tr(lang, "rounds.tokens", t=num(lang, row["tokens"], "+.4f"))
            )
            p = num(lang, row["not_losing"], ".4%")
            lines.append(tr(lang, "rounds.position", position=row["position"], p=p, tokens=tokens))
    lines.append(tr(lang, "rounds.why", why=error_text(lang, why)) if why else tr(lang, "rounds.two_only"))
    return "\n".join(lines)
