"""Playing in plain text lines: prompts for humans, bots in between."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import click

from .core.actions import Action, Stop, Throw, parse_action
from .core.chance import SeededDice
from .core.dice import format_dice, parse_dice
from .core.engine import throws_allowed
from .core.errors import InvalidNotation, InvalidPlayers, Py421Error
from .core.game import Game
from .core.rules import Ruleset
from .players import Player, RandomBot
from .text import describe, outcome_text

BOT_KINDS = ("random",)
HELP = "digits to keep those dice and throw the rest (e.g. 42), 0 to throw all three, Enter to stop"


def seat_players(specs: Sequence[str], seed: int | None) -> tuple[list[str], dict[int, Player]]:
    """Names for the table and the bots by seat, from ``Alice,bot:random``."""
    rng = random.Random(seed)
    names: list[str] = []
    bots: dict[int, Player] = {}
    counts: dict[str, int] = {}
    for seat, raw in enumerate(specs):
        spec = raw.strip()
        if spec.lower().startswith("bot:"):
            kind = spec[4:].strip().lower()
            if kind not in BOT_KINDS:
                raise InvalidPlayers(f"{spec!r}: unknown bot; accepted: bot:{', bot:'.join(BOT_KINDS)}")
            counts[kind] = counts.get(kind, 0) + 1
            names.append(f"{kind.capitalize()} {counts[kind]}")
            bots[seat] = RandomBot(rng.randrange(2**32))
        else:
            names.append(spec)
    return names, bots


def read_choice(text: str) -> Action:
    """A player's answer at the prompt, with the short forms."""
    answer = text.strip().lower()
    if answer in ("", "s"):
        return Stop()
    if answer in ("0", "t", "all"):
        return Throw()
    if answer[:1].isdigit():
        return Throw(parse_dice(answer, what="kept dice"))
    return parse_action(answer)


def play_plain(
    rules: Ruleset,
    specs: Sequence[str],
    *,
    seed: int | None,
    out: Callable[[str], None],
    ask: Callable[[str], str | None],
) -> Game:
    """Play a whole game; ``ask`` returns None when input has ended."""
    names, bots = seat_players(specs, seed)
    game = Game(rules, names)
    dice = SeededDice(seed)
    out(f"{rules.name}: {', '.join(names)}")
    for event in game.state.events:
        out(describe(event, names))
    while not game.state.is_over:
        state = game.state
        request = state.chance
        if request is not None:
            state = game.throw(dice.throw(request))
        else:
            seat = state.to_move
            assert seat is not None
            bot = bots.get(seat)
            state = game.act(bot.choose(state) if bot else _ask_human(game, ask, out))
        for event in state.events:
            out(describe(event, names))
    out(outcome_text(game.state))
    return game


def _ask_human(game: Game, ask: Callable[[str], str | None], out: Callable[[str], None]) -> Action:
    state = game.state
    seat = state.to_move
    assert seat is not None and state.round is not None
    name = state.players[seat]
    r = state.round
    if r.tie is not None:
        prompt = f"{name}, « main chaude »: play for « est » or « vient »? "
    else:
        allowed = throws_allowed(state)
        prompt = (
            f"{name}: {format_dice(r.dice)}, throw {r.throws} of {allowed}. "
            "Keep (e.g. 42), 0 all again, Enter stop, ? help: "
        )
    while True:
        answer = ask(prompt)
        if answer is None:
            raise click.ClickException("input ended before the game did")
        if answer.strip() in ("?", "help"):
            legal = ", ".join(str(a) for a in state.legal_actions())
            out(f"  {HELP}; « bon 42 » declares le bon. Allowed now: {legal}")
            continue
        try:
            action = read_choice(answer)
            state.apply(action)  # raises with the reason if it is not allowed
            return action
        except (InvalidNotation, Py421Error) as exc:
            out(f"  {exc}")
