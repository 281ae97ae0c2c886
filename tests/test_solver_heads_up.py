"""The two-player game solver: exact values, checked against play through the engine."""

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from py421.cli import main
from py421.core.actions import ChooseStake
from py421.core.chance import SeededDice
from py421.core.engine import apply_action, deciding_seat, legal_actions
from py421.core.errors import InvalidPlayers, InvalidRuleset
from py421.core.events import MancheLost
from py421.core.game import Game
from py421.core.rules import Ruleset
from py421.core.state import State
from py421.play.session import Session, parse_seats
from py421.players.optimal import OptimalBot
from py421.solver.heads_up import HeadsUp, game_outcome
from py421.solver.solutions import solved

from .helpers import heads_up_not_lost, play_until, run, simulated, wilson
from .round_walk import round_starts, solved_value, walk_round


def manche_loser(state: State) -> int | None:
    return next((e.seat for e in state.events if isinstance(e, MancheLost)), None)


@pytest.mark.slow
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


@pytest.mark.slow
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
    start = h.start()
    assert start[0] == pytest.approx(1 - start[1], abs=1e-10)


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
    with pytest.raises(InvalidRuleset, match="« queue de la vache » carries debts into the next manche"):
        HeadsUp(Ruleset.preset("vache-41").with_options(queue_de_la_vache=True))
    with pytest.raises(InvalidRuleset, match="l'Espagnole loses the whole game"):
        HeadsUp(Ruleset.preset("classic-11").with_options(espagnole="loses_game"))
    assert HeadsUp(Ruleset.preset("engranjeu-21").with_options(espagnole="loses_game"))  # one manche
    with pytest.raises(InvalidPlayers, match="tim is played by 2 players, not 3"):
        Session(Ruleset.preset("tim"), parse_seats(["A", "B", "bot:optimal"]))


def test_optimal_beats_heuristic_over_20000_games():
    data = simulated("classic-11", ("optimal", "heuristic"), 20_000)
    low, high = wilson(heads_up_not_lost(data, 0), data["games"], z=2.576)  # 99 % interval
    print(f"bot:optimal does not lose {low:.4f}-{high:.4f} (99 %) of {data['games']} games")
    assert low > 0.5


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


@pytest.mark.slow
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


# -- the solver against the engine's own rounds, exactly -------------------------------

# Coups secs and one manche keep each round small enough to walk whole.
SMALL = {"manches": 1, "charge_throws": 1, "decharge_throws": 1, "le_bon": False}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("preset", "options", "phases", "walks"),
    [
        # « main chaude » with deduction, a nénette penalty and starting tokens
        (
            "engranjeu-21",
            {"pot": 3, "nenette_last_wins": False, "nenette_penalty": 2, "initial_tokens": 1},
            ("charge", "decharge"),
            1,
        ),
        # accumulated stakes with « main chaude », a nénette penalty and the later nénette winning
        (
            "vache-41",
            {"pot": 6, "tie_break": "qui_barre_demarre", "nenette_penalty": 3, "nenette_last_wins": True},
            ("charge",),
            1,
        ),
        ("lyonnaise-21", {"pot": 5, "nenette_penalty": 2, "value_deduction": True}, ("charge",), 1),
        # every tied loser takes the stake so far, or the penalty on nénette: no replays, so
        # every start found is walked
        ("vache-41", {"pot": 4, "tied_losers_all_take": True, "nenette_penalty": 2}, ("charge",), 20),
    ],
)
def test_round_starts_equal_the_engines_rounds(preset, options, phases, walks):
    """Every outcome and choice of a round walked through the engine, what follows it
    valued by the solver: the solver's value of the round start, to 1e-12 (``walks``
    round starts of each phase, the most tokens for seat 0 first)."""
    rules = Ruleset.preset(preset).with_options(**SMALL, **options)
    solver = HeadsUp(rules).solve()
    starts = round_starts(rules, games=20, seed=3)
    for phase in phases:
        found = [s for s in starts if s.phase.value == phase]
        found.sort(key=lambda s: -s.tokens[0] * 2 - s.leader)
        assert len(found) >= min(walks, 3)
        for start in found[:walks]:
            walked, states = walk_round(start, solver)
            expected = solved_value(start, solver)
            where = f"{preset} {phase} pot {start.pot} {start.tokens}"
            print(f"{where}: solver {expected:.15f}, engine {walked:.15f}")
            assert states > 50
            assert walked == pytest.approx(expected, abs=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("preset", "options", "before"),
    [
        ("engranjeu-21", {"pot": 5, "nenette_last_wins": False, "nenette_penalty": 2}, "311 | 653"),
        ("vache-41", {"pot": 9, "tie_break": "qui_barre_demarre"}, "653 | 642"),
    ],
)
def test_at_a_main_chaude_the_optimal_bot_takes_the_better_stake(preset, options, before):
    """A tie, then a replay that ties again: both stakes walked through the engine's round."""
    rules = Ruleset.preset(preset).with_options(**SMALL, **options)
    solver = solved(rules)
    bot = OptimalBot()
    choices = 0
    for tied in ["653", "421", "221", "111", "554"]:
        game = Game(rules, ["A", "B"])
        run(game, f"{before} | {tied} | {tied} | 642 | 642")
        state = game.state
        assert state.tokens == (0, 2) and state.leader == 1  # B took 2 and leads
        assert deciding_seat(state) == 0  # the follower rethrows first and chooses
        # P(seat 0 loses) after each stake: the chooser, seat 0, wants it low
        stakes = [a for a in legal_actions(state) if isinstance(a, ChooseStake)]
        assert len(stakes) == 2
        value = {a.stake: walk_round(apply_action(state, a), solver)[0] for a in stakes}
        picked = bot.choose(state)
        assert isinstance(picked, ChooseStake)
        assert value[picked.stake] == pytest.approx(min(value.values()), abs=1e-12)
        choices += abs(value["est"] - value["vient"]) > 1e-6
    assert choices >= 2  # the stake matters in these positions
