"""The two-player game solver: exact values, checked against play through the engine."""

import json
import math
from typing import Any

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
from py421.sim.fast.policy import ROUNDS_LEVEL
from py421.sim.simulate import Simulation, Summary
from py421.sim.simulate import run as simulate
from py421.solver.game_maxn import GameMaxn
from py421.solver.heads_up import HeadsUp, game_outcome
from py421.solver.heads_up_game import HeadsUpGame
from py421.solver.solutions import solved

from .helpers import heads_up_not_lost, play_until, run, simulated, wilson
from .round_walk import round_starts, solved_value, walk_key, walk_round


def manche_loser(state: State) -> int | None:
    return next((e.seat for e in state.events if isinstance(e, MancheLost)), None)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("preset", "script", "tokens", "n"),
    [
        ("classic-11", "421 | 653 | 653 | 652 | 654 | 653", (1, 10), 2000),
        # a décharge of 21 tokens plays long: 1,000 games, still held to 4 standard errors
        ("engranjeu-21", "421 | 665 | 654 | 665 | 665 | 111 | 653 | 421", (12, 9), 1000),
    ],
)
def test_decharge_values_agree_with_optimal_play_through_the_engine(preset, script, tokens, n):
    """From a scripted position, both seats play the solved strategy ``n`` times."""
    rules = Ruleset.preset(preset)
    expected = float(solved(rules).decharge[tokens[0], 0])
    bot = OptimalBot()
    game = Game(rules, ["A", "B"])
    run(game, script)
    assert game.state.tokens == tokens
    assert game.state.round is not None
    assert game.state.round.order[0] == 0  # A leads the décharge
    scripted = game.played
    lost = 0
    for i in range(n):
        lost += play_until(game, SeededDice(f"{preset}-{i}"), bot.choose, manche_loser) == 0
        while game.played > scripted:  # back to the scripted position: each game starts from it
            game.undo()
    se = math.sqrt(expected * (1 - expected) / n)
    print(f"{preset} at {tokens}: solved {expected:.4f}, played {lost / n:.4f}")
    assert abs(lost / n - expected) < 4 * se


@pytest.mark.slow
def test_accumulated_stakes_agree_with_optimal_play_through_the_engine():
    """vache-41 on a small pot: every throw adds to the stake; 2,000 whole manches."""
    rules = Ruleset.preset("vache-41").with_options(pot=9)
    expected = solved(rules).manche_loss()
    bot = OptimalBot()
    n, lost = 2000, 0
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


def plain_sweep(h: HeadsUp) -> float:
    """One plain sweep of the décharge, in place: the largest change it made."""
    before = h.decharge.copy()
    for t0 in range(1, h.total):
        for leader in (0, 1):
            value, _, _ = h.round_value(False, leader, h._decharge_next(t0, leader))
            h.decharge[t0, leader] = value
    return float(np.abs(h.decharge - before).max())


def test_values_are_converged():
    rules = Ruleset.preset("classic-11")
    h = HeadsUp(rules).solve()
    assert plain_sweep(h) < 1e-12


@pytest.mark.parametrize(
    "rules",
    [
        Ruleset.preset("engranjeu-21").with_options(pot=8),
        # starting tokens and the nénette penalty on a pot of 9: plain sweeps still take twice as many
        Ruleset.preset("classic-11").with_options(pot=9, initial_tokens=2, nenette_penalty=2),
    ],
    ids=["deduction", "tokens-penalty"],
)
def test_the_decharges_leaps_ahead_land_on_the_plain_sweeps_fixed_point(rules):
    """Sweeps that leap ahead take fewer sweeps than plain ones and end where plain sweeps carried on
    far past the solver's tolerance end, to 2e-14."""
    sped = HeadsUp(rules).solve_decharge()
    plain = HeadsUp(rules)
    plain.decharge = np.full((plain.total + 1, 2), 0.5)
    change, sweeps = 1.0, 0
    while change > 1e-15:
        change, sweeps = plain_sweep(plain), sweeps + 1
    assert np.abs(sped.decharge - plain.decharge).max() < 2e-14
    assert sped.iterations < 0.7 * sweeps


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
    three = Ruleset.preset("classic-11").with_options(min_players=3, queue_de_la_vache=True)
    with pytest.raises(InvalidRuleset, match="cannot solve classic-11: classic-11 is not played by two"):
        HeadsUpGame(three)
    with pytest.raises(InvalidPlayers, match="tim is played by 2 players, not 3"):
        Session(Ruleset.preset("tim"), parse_seats(["A", "B", "bot:optimal"]))


def test_optimal_beats_heuristic_over_20000_games():
    data = simulated("classic-11", ("optimal", "heuristic"), 20_000)
    low, high = wilson(heads_up_not_lost(data, 0), data["games"], z=2.576)  # 99 % interval
    print(f"bot:optimal does not lose {low:.4f}-{high:.4f} (99 %) of {data['games']} games")
    assert low > 0.5


def test_solve_on_the_command_line_uses_its_cache(unshipped):
    runner = CliRunner()
    first = json.loads(runner.invoke(main, ["solve", "--rules", "tim", "--json"]).output)
    again = json.loads(runner.invoke(main, ["solve", "--rules", "tim", "--json"]).output)
    assert (first["cached"], again["cached"]) == (False, True)
    assert first["manche_loss_first_leader"] == again["manche_loss_first_leader"]
    assert first["lose"]["first_leader"] + first["lose"]["other"] == pytest.approx(1)


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
    for i in range(1000):  # over 900 décharges reached, all in z (held to 4 standard errors)
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
    assert len(p) > 500
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
            ("charge",),  # a décharge is walked whole below (a round played owing)
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
        # 5 tokens left at the choice: « est » after a 653 tie (3 so far) stays below them on a replay
        # worth 1 and takes them all on more; after the other ties it takes them all
        ("vache-41", {"pot": 7, "tie_break": "qui_barre_demarre"}, "653 | 642"),
    ],
)
def test_at_a_main_chaude_the_optimal_bot_takes_the_better_stake(preset, options, before):
    """A tie, then a replay that ties again: both stakes walked through the engine's round."""
    rules = Ruleset.preset(preset).with_options(**SMALL, **options)
    solver = solved(rules)
    bot = OptimalBot()
    walked: dict[str, float] = {}

    def worth(state: State) -> float:
        """The walk's value, once for each position the walk tells apart (a tie on 554 is one on 653)."""
        key = walk_key(state)
        if key not in walked:
            walked[key] = walk_round(state, solver)[0]
        return walked[key]

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
        value = {a.stake: worth(apply_action(state, a)) for a in stakes}
        picked = bot.choose(state)
        assert isinstance(picked, ChooseStake)
        assert value[picked.stake] == pytest.approx(min(value.values()), abs=1e-12)
        choices += abs(value["est"] - value["vient"]) > 1e-6
    assert choices >= 2  # the stake matters in these positions


# -- games whose manches carry over: « queue de la vache », l'Espagnole losing the game ------

# Two manches of coups secs: each round small enough to walk whole.
CARRIED = {"manches": 2, "charge_throws": 1, "decharge_throws": 1, "le_bon": False}


def carried(preset: str, **options: object) -> Ruleset:
    return Ruleset.preset(preset).with_options(**(CARRIED | options))


def walk_game_rounds(rules: Ruleset, starts: list[State], owed: int) -> int:
    """Each round start walked through the engine, the states after it valued by the game solver:
    the solver's value of the start, to 1e-12. ``owed``: debts the walk tells apart, beyond the
    solver's own cap (what a debt is worth stops changing there: the engine says so here)."""
    game = HeadsUpGame(rules).solve()
    walked_states = 0
    for start in starts:
        walked, states = walk_round(start, game.state_value, owed)
        expected = game.state_value(start)
        where = f"manche {start.manche} {start.phase.value} pot {start.pot} {start.tokens} owed {start.debts}"
        print(f"{where}: solver {expected:.15f}, engine {walked:.15f}")
        assert walked == pytest.approx(expected, abs=1e-12)
        walked_states += states
    return walked_states


@pytest.mark.slow
@pytest.mark.parametrize(
    ("rules", "owed"),
    [
        # every tied loser takes (no replays): both can end the charge owing, the stake accumulating
        # (past a pot of 3 as past 4: a dozen round starts, in both manches)
        (
            carried("vache-41", pot=3, queue_de_la_vache=True, tied_losers_all_take=True, nenette_penalty=2),
            12,
        ),
        # l'Espagnole loses the game; first to two fiches de manche, debts carried too
        (carried("classic-11", pot=3, espagnole="loses_game", tied_losers_all_take=True), 0),
        (
            carried(
                "tim",
                pot=3,
                manches=1,
                queue_de_la_vache=True,
                espagnole="loses_game",
                tied_losers_all_take=True,
            ),
            9,
        ),
    ],
)
def test_every_charge_round_of_a_game_carried_over_equals_the_engines(rules, owed):
    """Every charge round start random games reach, in every manche, walked through the engine."""
    starts = [s for s in round_starts(rules, games=30, seed=3) if s.phase.value == "charge"]
    assert len({s.manche for s in starts}) >= 2 and len(starts) >= 10
    assert walk_game_rounds(rules, starts, owed) > 50 * len(starts)


@pytest.mark.slow
def test_a_decharge_played_owing_equals_the_engines_round():
    """Rampot replays in a décharge whose end is worth the next manche started with a debt."""
    rules = carried("classic-11", pot=3, queue_de_la_vache=True)
    owing = [s for s in round_starts(rules, games=30, seed=3) if s.phase.value == "decharge" and any(s.debts)]
    assert owing
    # one coup sec each without a replay is some 60 positions; the replays make it hundreds (each
    # tie-break walked once per class of the result tied on: see tests/round_walk.py)
    assert walk_game_rounds(rules, owing[:1], 8) > 500


@pytest.mark.slow
def test_at_a_main_chaude_owing_the_optimal_bot_takes_the_better_stake():
    """« Main chaude » where the stake may pass the pot: « est » settles for the stake so far and the
    next replay's value, leaving the loser owing up to a pot (what the last manche can take) or more,
    « vient » for the next replay's value. Both walked."""
    rules = carried("vache-41", pot=6, queue_de_la_vache=True, tie_break="qui_barre_demarre")
    game = HeadsUpGame(rules).solve()
    bot = OptimalBot()
    choices = 0
    for tied in ["421", "653", "221"]:
        table = Game(rules, ["A", "B"])
        run(table, f"653 | 642 | {tied} | {tied} | 642 | 642")
        state = table.state
        assert state.tokens == (0, 2) and state.pot == 4  # B took 2 and leads
        assert deciding_seat(state) == 0  # the follower rethrows first and chooses
        stakes = [a for a in legal_actions(state) if isinstance(a, ChooseStake)]
        # debts told apart up to 7: one past the solver's cap, a pot (the most the last manche takes)
        value = {a.stake: walk_round(apply_action(state, a), game.state_value, 7)[0] for a in stakes}
        picked = bot.choose(state)
        assert isinstance(picked, ChooseStake)
        assert value[picked.stake] == pytest.approx(min(value.values()), abs=1e-12)
        choices += abs(value["est"] - value["vient"]) > 1e-6
    assert choices >= 2


@pytest.mark.parametrize("options", [{"espagnole": "loses_game"}, {"espagnole": "loses_game", "manches": 3}])
def test_the_game_solver_of_three_and_four_agrees_at_two_players(options):
    """Where both solvers apply (l'Espagnole losing the game, no accumulated stakes), their games of
    two agree: each seat's chance of losing and of a shared loss, to 1e-12."""
    rules = Ruleset.preset("classic-11").with_options(pot=5, **options)
    game = HeadsUpGame(rules).solve()
    maxn = GameMaxn(rules, 2).solve().summary()
    outcome = game.outcome()
    assert outcome.lose == pytest.approx(tuple(maxn["lose"]), abs=1e-12)
    assert outcome.shared == pytest.approx(maxn["shared"], abs=1e-12)


def test_a_game_carried_over_on_the_command_line():
    """``421 solve`` plays each manche for the game where debts carry over, and keeps it on disk."""
    runner = CliRunner()
    args = ["solve", "--rules", "classic-11", "--set", "queue_de_la_vache=true", "--set", "pot=6", "--json"]
    first = json.loads(runner.invoke(main, args).output)
    again = json.loads(runner.invoke(main, args).output)
    assert (first["cached"], again["cached"]) == (False, True)
    assert first["method"] == "the game, manche by manche" and first["manche_loss_first_leader"] is None
    assert first["lose"] == again["lose"]
    lose = first["lose"]["first_leader"] + first["lose"]["other"]
    assert lose == pytest.approx(1 + first["shared"])  # a shared loss counts for both
    assert first["share"]["first_leader"] + first["share"]["other"] == pytest.approx(1)
    plain = json.loads(
        runner.invoke(main, ["solve", "--rules", "classic-11", "--set", "pot=6", "--json"]).output
    )
    assert abs(plain["shared"] - first["shared"]) > 0.01  # a debt ties the manches together
    text = runner.invoke(main, args[:-1]).output
    assert "each manche played for the game" in text and "expected share of the game's loss" in text


@pytest.mark.parametrize("options", [{"queue_de_la_vache": True}, {"espagnole": "loses_game"}])
def test_bot_optimal_plays_the_game_carried_over_as_solved(options):
    """200,000 games of ``classic-11`` in the fast simulator (first seats turning): bot:optimal in both
    seats loses as often as the solver says, and against itself playing round by round (as it did
    before these games were solved) it takes less than half the loss."""
    rules = Ruleset.preset("classic-11").with_options(**options)
    outcome = HeadsUpGame(rules).solve().outcome()
    games = 200_000

    def play(levels: tuple[str, ...]) -> dict[str, Any]:
        sim = Simulation(rules, levels, games, seed=1)
        return Summary(sim, simulate(sim, workers=1)).to_dict()

    both = play(("optimal", "optimal"))
    expected = sum(outcome.lose) / 2  # each seat leads first in half the games
    for seat in both["seats"]:
        se = math.sqrt(expected * (1 - expected) / games)
        print(f"{options}: solved {expected:.4f}, played {seat['loss_rate']:.4f}")
        assert abs(seat["loss_rate"] - expected) < 4 * se
    shared = both["outcomes"]["shared"] / games
    assert abs(shared - outcome.shared) < 4 * math.sqrt(outcome.shared * (1 - outcome.shared) / games)
    against = play(("optimal", ROUNDS_LEVEL))
    low, high = wilson(heads_up_not_lost(against, 0), games, z=2.576)  # 99 % interval
    print(f"{options}: game level against round level, not lost {low:.4f}-{high:.4f}")
    assert low > 0.5


def test_advice_for_the_game_where_debts_carry_over():
    """``421 advise --objective game`` at two players ranks choices by one minus the expected share of
    the game's loss: in the décharge in the manche's own order, mapped; in the charge's last round,
    where a stake above the pot is owed to the next manche, by values of their own."""
    runner = CliRunner()
    plain = ["advise", "642", "--throws-left", "1", "--objective", "game", "--rules", "classic-11", "--json"]
    queue = [*plain, "--set", "queue_de_la_vache=true", "--set", "pot=6"]

    def advice(args: list[str]) -> dict[str, Any]:
        result = runner.invoke(main, args)
        assert result.exit_code == 0, result.output
        found: dict[str, Any] = json.loads(result.stdout)
        return found

    decharge = advice([*queue, "--before", "631", "--tokens", "2,4"])
    manche = advice([*plain, "--set", "pot=6", "--before", "631", "--tokens", "2,4"])
    assert decharge["objective"] == "1 - expected share of the game's loss"
    assert [o["keep"] for o in decharge["options"]] == [o["keep"] for o in manche["options"]]
    values = [o["value"] for o in decharge["options"]]
    assert min(values) > 0 and max(values) < 1 and values != [o["value"] for o in manche["options"]]
    # vache-41: three throws, every throw adding to the stake, 12 so far with a token left to take
    charge = [*plain[:-2], "vache-41", "--set", "pot=6", "--phase", "charge", "--pot", "1"]
    charge += ["--tokens", "2,3", "--before", "653", "--stake", "12", "--json"]
    owed, taken = advice([*charge, "--set", "queue_de_la_vache=true"]), advice(charge)
    assert owed["objective"] == "1 - expected share of the game's loss"
    assert {o["keep"]: o["value"] for o in owed["options"]} != {
        o["keep"]: o["value"] for o in taken["options"]
    }
    words = [arg for arg in queue if arg != "--json"]
    text = runner.invoke(main, [*words, "--before", "631", "--tokens", "2,4"]).output
    assert "expected share of the game's loss" in text


def test_a_two_player_game_that_would_take_hours_is_refused_and_played_round_by_round():
    """999 tokens in play: its décharge would take about 81,088 passes (hours), refused at once as a
    third player's would be, and bot:optimal plays it round by round. 200 tokens take minutes."""
    from py421.solver.heads_up import unsupported
    from py421.solver.strategy import covering

    huge = Ruleset.preset("classic-11").with_options(pot=999)
    why = unsupported(huge)
    assert why is not None and "about 81,088 passes" in str(why) and "solving would take hours" in str(why)
    assert covering(huge, 2) == "rounds"
    for fine in (Ruleset.preset("vache-41"), Ruleset.preset("classic-11").with_options(pot=200)):
        assert unsupported(fine) is None and covering(fine, 2) == "heads_up"
