"""Hold the fast simulator to the engine: replay its games through ``py421.core``.

A game is played by the kernel with its trace on: every throw's faces, every
decision, the pot and tokens right after each round is settled, each manche's
loser and the outcome. The same faces and decisions are then given to the
engine, which must ask for exactly those dice, accept every decision, move
the same tokens round after round and end the same way. Seats played by the
heuristic or the optimal bot must also choose, in the engine, what the kernel
chose for them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ...core.actions import Action, ChooseStake, Stop, Throw
from ...core.events import DebtOwed, GameOver, Gave, MancheLost, RoundDecided, Took
from ...core.game import Game
from ...core.rules import Ruleset
from ...core.state import OutcomeKind, State
from ...players import make_bot
from ...players.base import Player
from ...players.optimal import RoundsOptimalBot
from ...solver.tables import KEEPS
from . import kernel as k
from .lineup import Lineup
from .policy import ROUNDS_LEVEL

TRACE_SIZE = 1 << 22
_KINDS: dict[OutcomeKind, int] = {"loser": 0, "grand_perdant": 1, "shared": 2}


class Mismatch(AssertionError):
    """The engine and the fast simulator disagree about a game."""


@dataclass(frozen=True)
class Replayed:
    """One game as the engine played it from the kernel's dice and decisions."""

    game: Game
    rounds: int  # token movements compared


def decode(code: int) -> Action:
    """A kernel decision as the engine's action."""
    if code == k.STOP:
        return Stop()
    if code in (k.EST, k.VIENT):
        return ChooseStake("vient" if code == k.VIENT else "est")
    bon = code >= k.BON
    return Throw(KEEPS[code - k.BON if bon else code], bon=bon)


def entries(trace: np.ndarray, players: int) -> Iterator[tuple[int, ...]]:
    """The trace's entries, each a tuple starting with its kind (``kernel.T_*``)."""
    sizes = {k.T_THROW: 5, k.T_ACTION: 2, k.T_ROUND: 2 + players, k.T_MANCHE: 2, k.T_END: 3}
    pos = 0
    while pos < trace.size:
        size = sizes[int(trace[pos])]
        yield tuple(int(x) for x in trace[pos : pos + size])
        pos += size


def replay(
    lineup: Lineup, key: np.ndarray, game_number: int, bots: dict[int, Player] | None = None
) -> Replayed:
    """Play game ``game_number`` in the kernel, then through the engine; raise Mismatch on any difference.

    ``bots`` are the engine's players whose own choices must match the kernel's;
    by default the heuristic and optimal bots of the lineup's seats.
    """
    rules = lineup.rules
    n = len(lineup.levels)
    trace, out_groups = lineup.trace(key, game_number, TRACE_SIZE)
    if bots is None:
        bots = {s: _engine_bot(level) for s, level in enumerate(lineup.levels) if level != "random"}
    found = entries(trace, n)
    game = Game(rules, [f"P{s}" for s in range(n)], first_seat=game_number % n)
    rounds = 0

    def fail(why: str) -> Mismatch:
        return Mismatch(f"game {game_number}, step {len(game.steps)}: {why}")

    def expect(kind: int) -> tuple[int, ...]:
        entry = next(found, None)
        if entry is None or entry[0] != kind:
            raise fail(f"the kernel wrote {entry}, the engine expected an entry of kind {kind}")
        return entry

    while not game.state.is_over:
        before = game.state
        request = before.chance
        if request is not None:
            entry = expect(k.T_THROW)
            if entry[1] != request.count:
                raise fail(f"the engine asks for {request.count} dice, the kernel threw {entry[1]}")
            game.throw(entry[2 : 2 + entry[1]])
        else:
            seat = before.to_move
            assert seat is not None
            action = decode(expect(k.T_ACTION)[1])
            bot = bots.get(seat)
            if bot is not None and bot.choose(before) != action:
                raise fail(
                    f"seat {seat}'s bot chooses {bot.choose(before)} in the engine, {action} in the kernel"
                )
            try:
                game.act(action)
            except Exception as exc:
                raise fail(f"the engine refuses {action}: {exc}") from exc
        rounds += _compare_events(before, game.state, expect, fail)
    if next(found, None) is not None:
        raise fail("the kernel's game goes on after the engine's ended")
    _compare_winners(rules, game.state, out_groups, fail)
    return Replayed(game, rounds)


def _engine_bot(level: str) -> Player:
    return RoundsOptimalBot() if level == ROUNDS_LEVEL else make_bot(level, "")


def _compare_events(before: State, after: State, expect, fail) -> int:  # type: ignore[no-untyped-def]
    tokens, pot = list(before.tokens), before.pot
    rounds = 0
    settling = False
    for event in after.events:
        if isinstance(event, RoundDecided):
            settling = True
        elif isinstance(event, Took) and settling:
            tokens[event.seat] += event.amount
            pot -= event.amount
        elif isinstance(event, Gave) and settling:
            tokens[event.giver] -= event.amount
            tokens[event.receiver] += event.amount
        elif settling and not isinstance(event, DebtOwed):
            rounds += _compare_round(expect(k.T_ROUND), pot, tokens, fail)
            settling = False
        if isinstance(event, MancheLost):
            loser = expect(k.T_MANCHE)[1]
            if loser != event.seat:
                raise fail(f"manche {event.manche}: the engine's loser is {event.seat}, the kernel's {loser}")
        if isinstance(event, GameOver):
            _, mask, kind = expect(k.T_END)
            outcome = after.outcome
            assert outcome is not None
            engine_mask = sum(1 << s for s in outcome.losers)
            if (engine_mask, _KINDS[outcome.kind]) != (mask, kind):
                raise fail(f"the engine's outcome is {outcome}, the kernel's losers {mask:b} of kind {kind}")
    if settling:
        rounds += _compare_round(expect(k.T_ROUND), pot, tokens, fail)
    return rounds


def _compare_round(entry: tuple[int, ...], pot: int, tokens: list[int], fail) -> int:  # type: ignore[no-untyped-def]
    if (entry[1], list(entry[2:])) != (pot, tokens):
        raise fail(
            f"after the round the engine has pot {pot}, tokens {tokens}; the kernel {entry[1]}, {entry[2:]}"
        )
    return 1


def _compare_winners(rules: Ruleset, final: State, out_groups: np.ndarray, fail) -> None:  # type: ignore[no-untyped-def]
    if rules.winners == "none":
        return
    groups = [
        tuple(s for s in range(out_groups.size) if out_groups[s] == g)
        for g in range(1, int(out_groups.max()) + 1)
    ]
    assert final.outcome is not None
    expected = final.outcome.winners
    kernel = tuple(groups[:1]) if rules.winners == "first_out" else tuple(groups)
    if kernel != expected:
        raise fail(f"the engine's winners are {expected}, the kernel's {kernel}")
