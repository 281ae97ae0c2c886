"""Advice for one turn: every choice ranked by its exact value.

Two single-turn objectives need no context beyond the dice, and are valued in
exact fractions by :mod:`.exact_turn` (``advise`` there):

- ``target``: the probability of ending strictly better than a given result
  (what a player must beat);
- ``coup_sec`` (when no target is given): the probability of ending better
  than one fresh throw of three dice, ties counting half — a plain measure of
  how good a finished result is.

Two more need the round: the results already final, the players still to
play and the leader's limit (see :mod:`.rounds`):

- ``loser``: the chance of not being the round's loser;
- ``tokens``: the expected tokens the round moves, from the player's side.

And one needs the whole position of the game:

- ``game``: with two players the chance of not losing the manche
  (:mod:`.heads_up`), or where the end of a manche is worth more than who lost
  it (« queue de la vache », l'Espagnole losing the game) one minus the
  expected share of the game's loss (:mod:`.heads_up_game`, the first manche,
  nothing owed); with three to five, one minus the expected share of the
  game's loss (a loss shared by ``k`` players costing each ``1/k``), every
  player playing for their own share (:mod:`.game_maxn`, the first manche).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..core.dice import Result
from ..core.engine import players_refused
from ..core.errors import InvalidPosition, InvalidRuleset, Message
from ..core.rules import Ruleset, rules_arguments, rules_name
from . import game_maxn
from .amounts import token_values
from .exact_turn import Advice, check_throws_left
from .game_maxn_stakes import staked
from .heads_up import cannot_solve, unsupported
from .heads_up_game import GameManche
from .rounds import EPS, Objective, solve_round
from .tables import INDEX
from .turn import StakedValues, TurnValues, options, staked_options

GAME_SHARE = "1 - expected share of the game's loss"


def game_tokens(rules: Ruleset, players: int) -> int:
    """Every token of a game: the rules' pot and each player's own at the start of a manche."""
    return rules.pot + players * rules.initial_tokens


@dataclass(frozen=True)
class RoundContext:
    """Where a turn stands in its round."""

    players: int  # players in the round
    before: tuple[Result, ...] = ()  # results already final this round, leader first
    limit: int | None = None  # throws the leader used (None: as many as allowed)
    charge: bool = False
    pot: int | None = None  # tokens left in the pot (charge)
    tokens: tuple[int, ...] | None = None  # every player's tokens: the mover's first, then clockwise
    stake: int = 0  # accumulated stakes so far this round
    # three to five players: those out of the manche, by place after the mover (1: the next clockwise),
    # where holding no token does not say it (``withdraw_at_zero`` off)
    out: tuple[int, ...] = ()
    # the throws each result before took, where « qui barre démarre » compares them (none: not said)
    throws: tuple[int, ...] = ()
    # « queue de la vache », the first manche's décharge: what each player owes the next manche, the
    # mover's first, then clockwise (none: nothing owed)
    debts: tuple[int, ...] = ()

    def check(self, rules: Ruleset, throws_left: int) -> int:
        """The throws the mover may use; refuses an impossible context."""
        self.check_read(rules)
        most = rules.throws_allowed(self.charge)
        if not rules.seats(self.players):
            raise InvalidPosition(players_refused(rules, self.players))
        done = len(self.before)
        if done >= self.players:
            raise InvalidPosition(
                Message(
                    "solver.round_before.one" if done == 1 else "solver.round_before",
                    {"done": done, "least": done + 1, "n": self.players},
                )
            )
        limit = most if not self.before or not rules.leader_limit else self.leader_set(rules, most)
        if not 1 <= limit <= most:
            raise InvalidPosition(
                Message(
                    "solver.leader_limit_one" if most == 1 else "solver.leader_limit",
                    {"most": most, "limit": limit},
                )
            )
        check_throws_left(throws_left, limit)
        return limit

    def leader_set(self, rules: Ruleset, most: int) -> int:
        """The limit the leader's result set, where the rules have one: said by --limit, or by the
        throws that result took (``421/2``), both alike if both are said; the throws said of each
        result checked (1 to ``most``, none after the leader's more than it)."""
        throws = self.throws
        wrong = next((i for i, t in enumerate(throws) if not 1 <= t <= most), None)
        if wrong is not None:
            written = f"{self.before[wrong]}/{throws[wrong]}"
            raise InvalidPosition(
                Message("solver.game.throws_range", {"most": most, "got": throws[wrong], "said": written})
            )
        if throws and rules.leader_limit:  # the leader's throws are the limit, said or not
            if self.limit and throws[0] != self.limit:
                said = {"took": throws[0], "said": f"{self.before[0]}/{throws[0]}", "limit": self.limit}
                raise InvalidPosition(Message("solver.game.throws_limit", said))
            for result, took in zip(self.before[1:], throws[1:], strict=True):
                if took > throws[0]:
                    fields = {"result": str(result), "throws": took, "limit": throws[0]}
                    raise InvalidPosition(Message("solver.game.throws_after", fields))
        return self.limit or (throws[0] if throws else most)

    def charge_pot(self, rules: Ruleset) -> int:
        """The pot, in the charge: --pot as said, else what the tokens given leave of the game's (the
        rules' pot and every player's starting tokens), else the whole pot; none in the décharge."""
        if not self.charge:
            return 0
        if self.pot is not None:
            return self.pot
        if self.tokens:
            left = game_tokens(rules, self.players) - sum(self.tokens)
            if 1 <= left <= rules.pot:
                return left
        return rules.pot  # tokens that leave no pot the charge may hold: refused with it

    def check_stake(self, rules: Ruleset, dice: Result) -> None:
        """Refuse a stake below what the round has already thrown, where stakes accumulate: each
        result before and the mover's dice thrown once at least."""
        if self.charge and rules.accumulated_stakes:
            least = sum(int(token_values(rules)[INDEX[r]]) for r in (*self.before, dice))
            if self.stake < least:  # none said (0): asked for, rather than refused as a stake
                key = "solver.game.stake" if self.stake else "solver.game.stake_missing"
                raise InvalidPosition(Message(key, {"least": least, "stake": self.stake}))

    def check_read(self, rules: Ruleset) -> None:
        """Refuse a pot or a stake these rules and this phase would not read (not silently drop it)."""
        if self.pot is not None and not self.charge:
            raise InvalidPosition(Message("solver.pot_decharge"))
        if self.pot is not None and not 1 <= self.pot <= rules.pot:  # a charge ends as its pot empties
            raise InvalidPosition(Message("solver.pot_range", {"pot": self.pot, "most": rules.pot}))
        if self.stake and not staked(rules, self.charge):
            raise InvalidPosition(Message("solver.stake_unread"))


def advise_round(
    rules: Ruleset, dice: Result, throws_left: int, context: RoundContext, objective: Objective
) -> Advice:
    """Every choice by a round objective, later players playing the same way (max^n)."""
    limit = context.check(rules, throws_left)
    pot = context.pot if context.pot is not None else rules.pot
    values = solve_round(rules, context.players, context.charge, objective, pot if context.charge else None)
    found = values.options(context.before, limit, dice.dice, throws_left)
    if objective == "loser":  # shown as a chance, not its negative
        found = [replace(o, value=1 + o.value) for o in found]
        return Advice("P(not the round's loser)", found)
    return Advice("expected tokens (taken: negative; given away: positive)", found)


def advise_game(
    rules: Ruleset,
    dice: Result,
    throws_left: int,
    context: RoundContext,
    progress: game_maxn.Progress | None = None,
) -> Advice:
    """Two players: every choice by the exact chance of not losing the manche, or where manches carry
    over (:func:`.heads_up_game.carries_over`) by one minus the expected share of the game's loss, in
    the first manche with nothing owed. The position is checked before the manche is solved (told to
    ``progress``)."""
    from ..solver.solutions import manche_solution

    context.check(rules, throws_left)
    why = unsupported(rules)
    if why:
        raise InvalidRuleset(cannot_solve(rules, why))
    if context.out:
        raise InvalidPosition(
            Message(
                "solver.game.out_two",
            )
        )
    if any(context.debts):
        raise InvalidPosition(Message("solver.game.debts_two"))
    if context.players != 2:
        raise InvalidPosition(
            Message(
                "solver.two_players.round",
                {"n": context.players},
            )
        )
    start = rules.initial_tokens  # each player's own tokens at the start of a manche
    total = game_tokens(rules, 2)
    pot = context.charge_pot(rules)
    mine, other = context.tokens or ((start, start) if context.charge else (total // 2, total - total // 2))
    if mine + other + pot != total or min(mine, other) < (start if context.charge else 1):
        raise InvalidPosition(
            Message(
                "solver.two_players.tokens",
                {"mine": mine, "other": other, "pot": pot, "total": total, "start": start},
            )
        )
    context.check_stake(rules, dice)
    leader = 0 if not context.before else 1  # the mover is seat 0
    solver = manche_solution(rules, progress=progress)
    leader_values, follower_values = solver.position(context.charge, pot, mine, leader)
    row: int | None = None
    values: TurnValues | StakedValues = leader_values
    if context.before:
        most = rules.throws_allowed(context.charge)
        values, row = follower_values[context.limit or most], INDEX[context.before[0]]
    if isinstance(values, StakedValues):
        found = staked_options(values, dice.dice, throws_left, context.stake, row)
    else:
        found = options(values, dice.dice, throws_left, row)
    if isinstance(solver, GameManche):
        a, b = solver.own_scale(context.charge, 0)
        found = [replace(o, value=a + b * o.value) for o in found]
    objective = GAME_SHARE if isinstance(solver, GameManche) else "P(not losing the manche)"
    return Advice(objective, found, (mine, other), pot if context.charge else None)


def _debts(rules: Ruleset, context: RoundContext) -> tuple[int, ...]:
    """``context.debts``, each up to one pot (a larger debt empties the next manche's pot as one pot
    does), or none where nothing is owed."""
    debts = context.debts
    if debts and len(debts) != context.players:  # nothing owed too: a count for another table is a slip
        raise InvalidPosition(Message("solver.game.debts_count", {"n": context.players, "given": len(debts)}))
    if not any(debts):
        return ()
    if not rules.queue_de_la_vache:
        raise InvalidPosition(Message("solver.game.debts_queue"))
    if context.charge:
        raise InvalidPosition(Message("solver.game.debts_charge"))
    return tuple(min(d, rules.pot) for d in debts)


def _out(context: RoundContext, tokens: tuple[int, ...]) -> frozenset[int]:
    """The places of ``context.out``, each that of a player holding no token, in the décharge."""
    n = len(tokens)
    twice = next((place for i, place in enumerate(context.out) if place in context.out[:i]), None)
    if twice is not None:
        raise InvalidPosition(Message("solver.game.out_twice", {"place": twice}))
    for place in context.out:
        if place == 0:
            raise InvalidPosition(Message("solver.game.out_you"))
        if not 0 < place < n:
            raise InvalidPosition(
                Message(
                    "solver.game.out_place",
                    {"place": place, "last": n - 1, "n": n},
                )
            )
        if context.charge:
            raise InvalidPosition(Message("solver.game.out_charge"))
        if tokens[place]:
            held = tokens[place]
            raise InvalidPosition(
                Message(
                    "solver.game.out_holding.one" if held == 1 else "solver.game.out_holding",
                    {"place": place, "tokens": held},
                )
            )
    return frozenset(context.out)


def advise_game_level(
    rules: Ruleset,
    dice: Result,
    throws_left: int,
    context: RoundContext,
    progress: game_maxn.Progress | None = None,
) -> Advice:
    """Three or four players: every choice by one minus the expected share of the game's loss.

    ``context.players`` is the table's; the round's players are those still in
    (in the décharge, those holding tokens where ``withdraw_at_zero``, and not
    named in ``context.out``). The
    position is one of the first manche: the mover is seat 0, the others follow
    clockwise, and the leader is the player ``len(context.before)`` places
    before the mover among those in the round. A game that takes minutes or
    hours to solve (:func:`.strategy.solved_before_play`) is solved by
    ``421 solve``, not here: until then the advice names that command. The
    position is checked whole before the game is solved (told to ``progress``).
    """
    from .solutions import game_known, solved_game
    from .strategy import solved_before_play

    n = context.players
    game_maxn.check(rules, n)
    context.check_read(rules)
    start, total = rules.initial_tokens, game_tokens(rules, n)
    pot = context.charge_pot(rules)
    even = tuple(total // n + (s < total % n) for s in range(n))
    tokens = context.tokens or ((start,) * n if context.charge else even)
    if len(tokens) != n or sum(tokens) + pot != total or min(tokens) < (start if context.charge else 0):
        counts = ",".join(map(str, tokens))
        raise InvalidPosition(
            Message(
                "solver.game.tokens",
                {"counts": counts, "pot": pot, "n": n, "total": total, "start": start},
            )
        )
    owed = _debts(rules, context)
    out = _out(context, tokens)
    held = (context.charge or not rules.withdraw_at_zero or t > 0 for t in tokens)
    active = tuple(in_manche and s not in out for s, in_manche in enumerate(held))
    behind = [s for s in (0, *range(n - 1, 0, -1)) if active[s]]  # the mover, then counter-clockwise
    if not active[0]:
        raise InvalidPosition(Message("solver.game.out"))
    done = len(context.before)
    if done >= len(behind):
        raise InvalidPosition(
            Message(
                "solver.game.holding.one" if done == 1 else "solver.game.holding",
                {"done": done, "least": done + 1, "holding": len(behind)},
            )
        )
    context.check_stake(rules, dice)
    most = rules.throws_allowed(context.charge)
    throws = context.throws or (1,) * done  # where « qui barre démarre » compares them, said
    if game_maxn.counted(rules) > 1 and most > 1 and len(context.throws) != done:
        raise InvalidPosition(Message("solver.game.throws_before"))
    place = len(context.before)
    said = context.leader_set(rules, most)  # the throws said checked, whatever the rules
    limit = most if not place or not rules.leader_limit else said
    check_throws_left(throws_left, limit)
    where = game_maxn.Position(context.charge, pot, tuple(tokens), active, behind[place], owed)
    known = game_known(rules, n)
    if solved_before_play(rules, n) and not known:
        named = {"rules": rules_name(rules), "n": n, "arguments": rules_arguments(rules)}
        raise InvalidRuleset(Message("solver.game.unsolved", named))
    positions = None if known else game_maxn.GameMaxn(rules, n)  # the game's positions, not yet solved
    located = None if positions is None else _found(positions, where, rules)  # before the solve
    game = solved_game(rules, n, progress, positions)
    key, p, _ = located or _found(game, where, rules)
    shape = game.turn_shape(key, p)
    summary = 0
    if place:
        summary = game_maxn.summary_of(shape, list(zip(context.before, throws, strict=True)))
    solved = game.mover_turn(key, p, place, summary, limit)
    if isinstance(solved, StakedValues):  # every throw adds to the stake: the stake so far counts
        chosen = staked_options(solved, dice.dice, throws_left, context.stake, tie=EPS)
    else:
        chosen = options(solved, dice.dice, throws_left, tie=EPS)
    found = [replace(o, value=1 + o.value) for o in chosen]
    return Advice(GAME_SHARE, found, tuple(tokens), pot if context.charge else None)


def _found(
    game: game_maxn.GameMaxn, where: game_maxn.Position, rules: Ruleset
) -> tuple[tuple[int, game_maxn.Losses], int, int]:
    """Where the game's positions hold ``where`` (:meth:`.game_maxn.GameMaxn.find`); a position they
    never reach is refused with the leader and who is in the round, and where a player holding no
    token might be out of the manche, how to say so."""
    found = game.find(where)
    if found is not None:
        return found
    n = len(where.tokens)
    leader = (
        Message("solver.game.leader_you")
        if where.leader == 0
        else Message("solver.game.leader_place", {"place": where.leader})
    )
    outside = [s for s in range(1, n) if not where.active[s]]
    places = ", ".join(map(str, outside))
    but = "solver.game.in_but.one" if len(outside) == 1 else "solver.game.in_but"
    who = Message("solver.game.in_all") if not outside else Message(but, {"places": places})
    fields = {"tokens": ", ".join(map(str, where.tokens)), "pot": where.pot, "leader": leader, "in": who}
    if where.debts:
        fields = {**fields, "debts": ", ".join(map(str, where.debts))}
        raise InvalidPosition(Message("solver.game.unreached_debts", fields))
    holding_none = [s for s in range(1, n) if where.active[s] and where.tokens[s] == 0]
    if holding_none and not where.charge and not rules.withdraw_at_zero:
        raise InvalidPosition(Message("solver.game.unreached_out", {**fields, "place": holding_none[0]}))
    raise InvalidPosition(Message("solver.game.unreached", fields))
