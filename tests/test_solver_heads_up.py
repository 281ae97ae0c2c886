"""The two-player game solver: exact values, checked against play through the engine."""

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from py421.cli import main
from py421.core.chance import SeededDice
from py421.core.errors import InvalidPlayers, InvalidRuleset
from py421.core.events import MancheLost
from py421.core.game import Game
from py421.core.rules import Ruleset
from py421.core.state import State
from py421.players import HeuristicBot, Player
from py421.players.optimal import OptimalBot, solved
from py421.sim.loop import play_out
from py421.sim.session import Session, parse_seats
from py421.solver.heads_up import HeadsUp, game_outcome

from .helpers import play_until, run


def manche_loser(state: State) -> int | None:
    return next((e.seat for e in state.events if isinstance(e, MancheLost)), None)


@pytest.mark.parametrize(
    ("preset", "script", "tokens"),
    [
        ("classic-11", "421 | 653 | 653 | 652 | 654 | 653", (1, 10)),
        ("engranjeu-21", "421 | 665 | 654 | 665 | 665 | 111 | 653 | 421", (12, 9)),
    ],
)
def test_decharge_values_agree_with_optimal_play_through_the_engine(preset, script, tokens):
    """From a scripted position, both seats play the solved strategy 4,000 times."""
    rules = Ruleset.preset(preset)
    expected = float(solved(rules).decharge[tokens[0], 0])
    bot = OptimalBot()
    n, lost = 4000, 0
    for i in range(n):
        game = Game(rules, ["A", "B"])
        run(game, script)
        assert game.state.tokens == tokens
        assert game.state.round is not None
        assert game.state.round.order[0] == 0  # A leads the décharge
        lost += play_until(game, SeededDice(f"{preset}-{i}"), bot.choose, manche_loser) == 0
    se = math.sqrt(expected * (1 - expected) / n)
    print(f"{preset} at {tokens}: solved {expected:.4f}, played {lost / n:.4f}")
    assert abs(lost / n - expected) < 4 * se


def test_accumulated_stakes_agree_with_optimal_play_through_the_engine():
    """vache-41 on a small pot: every throw adds to the stake; 4,000 whole manches."""
    rules = Ruleset.preset("vache-41").with_options(pot=9)
    expected = solved(rules).manche_loss()
    bot = OptimalBot()
    n, lost = 4000, 0
    for i in range(n):
        game = Game(rules, ["A", "B"])
        lost += play_until(game, SeededDice(f"vache-{i}"), bot.choose, manche_loser) == 0
    se = math.sqrt(expected * (1 - expected) / n)
    print(f"vache-41, pot 9: solved {expected:.4f}, played {lost / n:.4f}")
    assert expected < 0.48  # leading a charge of three throws is worth something
    assert abs(lost / n - expected) < 4 * se


@pytest.mark.parametrize("preset", ["classic-11", "tim", "comptoir-21", "kytionnaire"])
def test_one_seats_loss_is_the_others_escape(preset):
    """Mirrored positions: what seat 0 risks from one is what seat 1 risks from the other."""
    h = solved(Ruleset.preset(preset))
    total = h.total
    mirrored = 1 - h.decharge[::-1, ::-1]
    assert np.allclose(h.decharge[1:total], mirrored[1:total], atol=1e-10)
    start = h.charge[total]
    assert start[0, 0] == pytest.approx(1 - start[0, 1], abs=1e-10)


def test_values_are_converged():
    rules = Ruleset.preset("classic-11")
    h = HeadsUp(rules).solve()
    before = h.decharge.copy()
    for t0 in range(1, h.total):
        for leader in (0, 1):
            value, _, _ = h.round_value(False, leader, h._decharge_next(t0, leader))
            h.decharge[t0, leader] = value
    assert np.abs(h.decharge - before).max() < 1e-12


def test_a_better_hand_of_tokens_loses_less():
    d = solved(Ruleset.preset("classic-11")).decharge
    assert all(d[t, 0] < d[t + 1, 0] for t in range(1, 10))  # fewer tokens: safer
    assert all(d[t, 0] < d[t, 1] for t in range(1, 11))  # leading the décharge helps


def test_games_chain_manches():
    classic = Ruleset.preset("classic-11")
    out = game_outcome(classic, 0.4)
    assert out.lose[0] == pytest.approx(0.4 * 0.4 + 0.6)  # grand perdant, or a shared loss
    assert out.shared == pytest.approx(0.6)
    tim = game_outcome(Ruleset.preset("tim"), 0.4)
    assert sum(tim.lose) == pytest.approx(1)  # first to two fiches de manche: one loser


def test_unsupported_rules_are_named():
    with pytest.raises(InvalidRuleset, match="accumulated stakes with « qui barre démarre »"):
        HeadsUp(Ruleset.preset("vache-41").with_options(tie_break="qui_barre_demarre"))
    with pytest.raises(InvalidRuleset, match="« queue de la vache » debts"):
        HeadsUp(Ruleset.preset("vache-41").with_options(queue_de_la_vache=True))
    with pytest.raises(InvalidPlayers, match="tim is played by 2 players, not 3"):
        Session(Ruleset.preset("tim"), parse_seats(["A", "B", "bot:optimal"]))


def test_optimal_beats_heuristic_over_20000_games():
    rules = Ruleset.preset("classic-11")
    games, wins = 20_000, 0.0
    for g in range(games):
        seat = g % 2
        bots: list[Player] = [HeuristicBot(), HeuristicBot()]
        bots[seat] = OptimalBot()
        outcome = play_out(Game(rules, ["A", "B"]), bots, SeededDice(f"ovh-{g}")).state.outcome
        assert outcome is not None
        if seat not in outcome.losers:
            wins += 1
        elif len(outcome.losers) == 2:
            wins += 0.5  # a shared loss
    rate = wins / games
    half = 2.576 * math.sqrt(rate * (1 - rate) / games)  # 99 %
    print(
        f"bot:optimal against bot:heuristic: {rate:.4f} (99 % interval {rate - half:.4f}-{rate + half:.4f})"
    )
    assert rate - half > 0.5


def test_solve_on_the_command_line_uses_its_cache():
    runner = CliRunner()
    first = json.loads(runner.invoke(main, ["solve", "--rules", "tim", "--json"]).output)
    again = json.loads(runner.invoke(main, ["solve", "--rules", "tim", "--json"]).output)
    assert (first["cached"], again["cached"]) == (False, True)
    assert first["manche_loss_first_leader"] == again["manche_loss_first_leader"]
    assert first["lose"]["first_leader"] + first["lose"]["other"] == pytest.approx(1)
    refused = runner.invoke(main, ["solve", "--rules", "vache-41", "--set", "queue_de_la_vache=true"])
    assert refused.exit_code == 2
    assert "queue de la vache" in refused.output


@pytest.mark.parametrize("preset", ["tim", "comptoir-21", "kytionnaire"])
def test_every_decharge_start_agrees_with_optimal_play(preset):
    """Whole manches played by bot:optimal: at each décharge start reached, the solved
    chance of losing is compared with what happened (nénette penalty, ties that all
    take, décharge leaders by draw)."""
    rules = Ruleset.preset(preset)
    solver = solved(rules)
    bot = OptimalBot()
    expected: list[float] = []
    observed: list[int] = []
    for i in range(3000):
        game = Game(rules, ["A", "B"])
        start: list[float] = []

        def decharge_start(state: State, start: list[float] = start) -> float | None:
            if not start and state.phase.value == "decharge" and state.round is not None:
                start.append(float(solver.decharge[state.tokens[0], state.round.order[0]]))
            return None

        def done(state: State) -> int | None:
            decharge_start(state)
            return manche_loser(state)

        loser = play_until(game, SeededDice(f"{preset}-start-{i}"), bot.choose, done)
        if start:
            expected.append(start[0])
            observed.append(loser == 0)
    p = np.array(expected)
    z = (np.sum(observed) - p.sum()) / math.sqrt(float((p * (1 - p)).sum()))
    print(f"{preset}: {len(p)} décharges, z = {z:.2f}")
    assert len(p) > 1000
    assert abs(z) < 4
