"""The heads-up duel, solved exactly and played through the engine."""

import json
import math
from functools import cache

import pytest
from click.testing import CliRunner

from py421.cli import main
from py421.core.actions import Action, ChooseStake, Stop, Throw
from py421.core.chance import SeededDice
from py421.core.engine import new_game
from py421.core.events import RoundDecided
from py421.core.rules import Ruleset
from py421.core.state import State, TurnResult
from py421.solver.duel import replay_win, solve_duel
from py421.solver.tables import INDEX
from py421.solver.turn import options


def play_duels(preset: str, n: int) -> tuple[float, float]:
    """The first round of a charge of up to three throws is a duel: play it n times."""
    rules = Ruleset.preset(preset).with_options(charge_throws=3)
    duel = solve_duel(rules, "rampot")
    start = new_game(rules, ["A", "B"])  # states are never changed: every game starts from this one

    @cache  # the duel's turns reach the same few positions over and over: each is read once
    def solved(dice: tuple[int, ...], throws: int, first: TurnResult | None) -> Action:
        if first is not None:
            values = duel.second[first.throws]
            best = options(values, dice, first.throws - throws, INDEX[first.result])[0]
        else:
            best = options(duel.first, dice, 3 - throws)[0]
        return Stop() if best.stop else Throw(best.keep)

    def decide(state: State) -> Action:
        r = state.round
        assert r is not None
        if r.tie is not None:  # « main chaude »: the stake does not change who wins
            return ChooseStake("est")
        return solved(r.dice, r.throws, r.done[0] if r.done else None)

    def losers(state: State) -> tuple[int, ...] | None:
        return next((e.losers for e in state.events if isinstance(e, RoundDecided)), None)

    wins = 0
    for i in range(n):
        state, dice = start, SeededDice(f"duel-{preset}-{i}")
        while (lost := losers(state)) is None:
            request = state.chance
            state = state.apply_dice(dice.throw(request)) if request else state.apply(decide(state))
        wins += lost == (1,)
    return wins / n, duel.first_wins


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["classic-11", "engranjeu-21"])
def test_duel_value_agrees_with_play_through_the_engine(preset):
    n = 20_000
    observed, solved = play_duels(preset, n)
    se = math.sqrt(solved * (1 - solved) / n)
    print(f"{preset}: solved {solved:.4f}, played {observed:.4f} over {n}")
    assert abs(observed - solved) < 4 * se


def test_ties_only_matter_where_the_preset_breaks_them_unevenly():
    classic = Ruleset.preset("classic-11")
    assert solve_duel(classic, "half").first_wins == pytest.approx(
        solve_duel(classic, "rampot").first_wins, abs=1e-12
    )
    engranjeu = Ruleset.preset("engranjeu-21")
    assert replay_win(engranjeu) > 0.5  # a double nénette goes to the later thrower
    assert solve_duel(engranjeu, "rampot").first_wins != pytest.approx(
        solve_duel(engranjeu, "half").first_wins, abs=1e-6
    )


def test_a_one_throw_duel_is_a_plain_comparison():
    rules = Ruleset.preset("classic-11").with_options(decharge_throws=1, le_bon=False)
    table = rules.table
    fresh = [r.probability for r in table.order]
    # first wins: strictly better, plus half the ties
    expected = sum(float(fresh[i] * fresh[j]) for i in range(56) for j in range(56) if i < j) + 0.5 * sum(
        float(p * p) for p in fresh
    )
    assert solve_duel(rules, "half").first_wins == pytest.approx(expected, abs=1e-12)


def test_duel_on_the_command_line():
    output = CliRunner().invoke(main, ["duel", "--rules", "vache-41", "--json"]).output
    data = json.loads(output)
    assert data["rules"] == "vache-41"
    assert 0.5 < data["first_player_wins"] < 0.7
