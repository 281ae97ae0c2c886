"""Every preset, every player count: random games end, conserve tokens at every step,
refuse every illegal step, and replay identically from their record."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from py421.core.actions import ChooseStake, Stop, Throw
from py421.core.errors import IllegalAction, InvalidRuleset
from py421.core.game import Game
from py421.core.record import Record
from py421.core.rules import Ruleset, option_fields, preset_names
from py421.core.state import State

MAX_STEPS = 50_000
GAMES_PER_TABLE = 25  # x 43 preset/player-count pairs, plus the option mixes below

TABLES = [(name, n) for name in preset_names() for n in range(2, 9) if Ruleset.preset(name).seats(n)]


def check_illegal_steps_are_refused(game: Game, rng: random.Random) -> None:
    """Try something the rules forbid now; it must raise and leave the game as it was."""
    state = game.state
    before = (state, game.steps)
    attempts: list[Callable[[], object]] = []
    if state.chance is not None:
        attempts = [lambda: game.act(Stop()), lambda: game.act(Throw())]
        wrong = state.chance.count + rng.choice((-1, 1))
        if 0 <= wrong <= 3:
            attempts.append(lambda: game.throw(tuple(rng.randint(1, 6) for _ in range(wrong))))
    elif state.to_move is not None:
        attempts = [lambda: game.throw((1, 1, 1)), lambda: game.throw(())]
        legal = state.legal_actions()
        if Stop() in legal:
            assert state.round is not None
            dice = state.round.dice
            absent = next((f for f in range(1, 7) if f not in dice), None)
            if absent is not None:
                attempts.append(lambda: game.act(Throw((absent,))))
            attempts.append(lambda: game.act(Throw(dice)))  # all three: that is stop
            attempts.append(lambda: game.act(ChooseStake("est")))
            if not any(isinstance(a, Throw) and a.bon for a in legal):
                attempts.append(lambda: game.act(Throw((), bon=True)))
        else:
            attempts.append(lambda: game.act(Stop()))
    else:
        attempts = [lambda: game.act(Stop()), lambda: game.throw((4, 2, 1))]
    for attempt in attempts:
        with pytest.raises(IllegalAction):
            attempt()
        assert (game.state, game.steps) == before


def play_random_game(rules: Ruleset, n: int, seed: int, *, must_end: bool = True) -> Game:
    """A game of random legal steps; ``must_end=False`` stops it after MAX_STEPS without failing."""
    rng = random.Random(seed)
    game = Game(rules, [f"P{i}" for i in range(n)], first_seat=rng.randrange(n))
    total = game.state.manche_total
    check_every = rng.randint(3, 12)
    for step in range(MAX_STEPS):
        state = game.state
        assert state.pot + sum(state.tokens) == total, "tokens are conserved at every step"
        assert state.pot >= 0
        assert min(state.tokens) >= 0
        assert min(state.debts) >= 0
        if step % check_every == 0:
            check_illegal_steps_are_refused(game, rng)
        if state.is_over:
            break
        request = state.chance
        if request is not None:
            assert state.to_move is None
            assert state.legal_actions() == ()
            game.throw(tuple(rng.randint(1, 6) for _ in range(request.count)))
        else:
            legal = state.legal_actions()
            assert state.to_move is not None
            assert legal
            game.act(rng.choice(legal))
    else:
        if must_end:
            pytest.fail(f"the game did not end within {MAX_STEPS} steps")
    return game


def check_outcome_and_replay(game: Game) -> None:
    state = game.state
    record = Record.from_json(game.record({"test": True}).to_json())
    assert record.replay() == state
    if not state.is_over:
        return
    outcome = state.outcome
    assert outcome is not None
    assert outcome.losers
    for group in outcome.winners:
        assert not set(group) & set(outcome.losers)


@pytest.mark.parametrize(("preset", "players"), TABLES, ids=[f"{p}-{n}" for p, n in TABLES])
@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=GAMES_PER_TABLE)
def test_random_games_follow_the_rules(preset, players, seed):
    game = play_random_game(Ruleset.preset(preset), players, seed)
    assert game.state.is_over
    check_outcome_and_replay(game)


@pytest.mark.parametrize("preset", ["engranjeu-21", "lyonnaise-21"])
def test_games_played_leave_every_state_before_them_as_it_was(preset):
    """States never change: each state of whole games (its round, tie-break and draw with it) is,
    once the game is over, what it was when it was made, and none of them takes an assignment."""
    seen: list[tuple[State, str]] = []
    for seed in range(10):
        game = Game(Ruleset.preset(preset), ["A", "B", "C"])
        rng = random.Random(seed)
        while not game.state.is_over:
            state = game.state
            seen.append((state, repr(state)))
            if state.chance is not None:
                game.throw(tuple(rng.randint(1, 6) for _ in range(state.chance.count)))
            else:
                game.act(rng.choice(state.legal_actions()))
    assert all(repr(state) == made for state, made in seen)
    rounds = [s.round for s, _ in seen if s.round is not None]
    ties = [r.tie for r in rounds if r.tie is not None]
    parts: list[tuple[object, str]] = [(s, "pot") for s, _ in seen] + [(r, "stake") for r in rounds]
    parts += [(t, "replays") for t in ties] + [(t.draw, "thrown") for t in ties]
    assert {type(part).__name__ for part, _ in parts} == {"State", "Round", "Tie", "Draw"}
    for part, name in parts:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(part, name, None)


@st.composite
def rulesets(draw: st.DrawFn) -> Ruleset:
    """A preset with a random mix of options changed."""
    rules = Ruleset.preset(draw(st.sampled_from(preset_names())))
    changes = {}
    for f in draw(st.lists(st.sampled_from(option_fields()), max_size=6, unique=True)):
        meta = f.metadata
        if meta["choices"]:
            changes[f.name] = draw(st.sampled_from(meta["choices"]))
        elif f.type in ("bool", bool):
            changes[f.name] = draw(st.booleans())
        else:
            high = {
                "pot": 60,
                "initial_tokens": 10,
                "manches": 3,
                "fiches_de_manche": 3,
                "min_players": 6,
                "max_players": 12,
            }.get(f.name, meta["high"])
            changes[f.name] = draw(st.integers(meta["low"], min(meta["high"], high)))
    try:
        return rules.with_options(**changes)
    except InvalidRuleset:
        assume(False)
        raise


@pytest.mark.slow
@given(rules=rulesets(), seed=st.integers(0, 2**32 - 1), data=st.data())
@settings(max_examples=250)
def test_any_mix_of_options_plays_by_the_rules(rules, seed, data):
    players = data.draw(st.integers(rules.min_players, rules.max_players or 12))
    # some mixes make games of hundreds of thousands of steps (every amount deducted to 0
    # but a few): they end, but only the presets are played to the end whatever it takes
    game = play_random_game(rules, players, seed, must_end=False)
    check_outcome_and_replay(game)
