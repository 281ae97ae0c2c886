"""The OpenSpiel game: conformance, the engine's games, exact chance, exact values."""

import itertools
import random
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from py421.core.actions import Throw  # noqa: E402
from py421.core.chance import SeededDice  # noqa: E402
from py421.core.dice import ALL_RESULTS, Result  # noqa: E402
from py421.core.engine import new_game  # noqa: E402
from py421.core.errors import IllegalAction, InvalidPlayers, InvalidRuleset  # noqa: E402
from py421.core.position import position_text  # noqa: E402
from py421.core.rules import Ruleset  # noqa: E402
from py421.core.state import Outcome, Phase, State  # noqa: E402
from py421.envs.observation import ObservationEncoder, decode, encode  # noqa: E402
from py421.envs.openspiel import (  # noqa: E402
    CHANCE_OUTCOMES,
    FACE_BASE,
    RESULT_ID,
    chance_distribution,
    faces_of,
    load,
    returns_of,
    seat_names,
)
from py421.envs.openspiel_values import (  # noqa: E402
    compare,
    expected_from,
    explore,
    iterate,
    main,
    openspiel_value_iteration,
)
from py421.solver.heads_up import HeadsUp  # noqa: E402

# One round of coups secs for a single token; tied players both take (the leader first).
COUPS_SECS = "pot:1;manches:1;charge_throws:1;le_bon:false;tied_losers_all_take:true"
# The same round with two throws a turn: both players decide.
TWO_THROWS = "pot:1;manches:1;charge_throws:2;le_bon:false;tied_losers_all_take:true"


# -- OpenSpiel's own checks ---------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "players", "options"),
    [
        ("classic-11", 2, ""),
        ("classic-11", 4, ""),
        ("lyonnaise-21", 3, ""),  # accumulated stakes, le bon
        ("vache-41", 2, "pot:11"),  # a debt carried to the next manche
        ("engranjeu-21", 2, ""),  # « main chaude » stakes
        ("tim", 2, ""),  # the first player drawn with one die
        ("comptoir-21", 3, ""),  # the first player drawn with three dice
        ("kytionnaire", 4, ""),  # the décharge leader drawn
    ],
)
def test_openspiel_random_simulations_pass(preset, players, options):
    game = load(preset, players, options)
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)


def test_the_game_is_registered_and_its_string_loads_it_again():
    game = pyspiel.load_game("python_421(players=3,options=pot:5;charge_throws:2)")
    assert game.num_players() == 3
    assert game.rules.pot == 5 and game.rules.charge_throws == 2
    assert str(pyspiel.load_game(str(game))) == str(game)
    kind = game.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.max_chance_outcomes() == CHANCE_OUTCOMES == 62


# -- the engine's games --------------------------------------------------------------


def outcome_for(kept, faces):
    """The chance outcome id for faces thrown beside the kept dice."""
    if len(kept) + len(faces) == 3:
        return RESULT_ID[Result.of(kept + tuple(faces))]
    return FACE_BASE + faces[0] - 1


@pytest.mark.parametrize(
    ("preset", "players"),
    [("classic-11", 3), ("lyonnaise-21", 2), ("engranjeu-21", 2), ("tim", 2), ("comptoir-21", 4)],
)
def test_same_dice_and_actions_give_the_engines_game(preset, players):
    """Seeded dice and random choices, applied to the engine and to OpenSpiel, step by step."""
    rules = Ruleset.preset(preset)
    game = load(preset, players)
    for seed in range(3):
        dice, rng = SeededDice(f"os-{seed}"), random.Random(seed)
        engine = new_game(rules, seat_names(players))
        spiel = game.new_initial_state()
        while not engine.is_over:
            request = engine.chance
            if request is not None:
                faces = dice.throw(request)
                assert spiel.is_chance_node()
                spiel.apply_action(outcome_for(request.kept, faces))
                engine = engine.apply_dice(faces)
            else:
                action = rng.choice(engine.legal_actions())
                assert spiel.current_player() == engine.to_move
                assert spiel.action_to_string(encode(engine, action)) == str(action)
                spiel.apply_action(encode(engine, action))
                engine = engine.apply(action)
            assert spiel.state == engine  # events and step counter included
            assert str(spiel) == position_text(engine)
        assert spiel.is_terminal()
        assert spiel.returns() == returns_of(engine.outcome, players)


def test_openspiel_choices_replay_through_the_engine():
    """Random OpenSpiel outcomes and actions map to faces and actions the engine accepts."""
    game = load("classic-11", 2)
    rng = random.Random(7)
    spiel = game.new_initial_state()
    engine = new_game(Ruleset.preset("classic-11"), seat_names(2))
    while not spiel.is_terminal():
        choice = rng.choice(spiel.legal_actions())
        if spiel.is_chance_node():
            assert engine.chance is not None
            engine = engine.apply_dice(faces_of(choice, engine.chance))
        else:
            engine = engine.apply(decode(engine, choice))
        spiel.apply_action(choice)
        assert spiel.state == engine


# -- games without a decision, and OpenSpiel's learning loop ------------------------------


def throws_of_a_game_without_decision(rules, players, seed):
    """The chance outcomes of the first game, thrown with ``seed``, that ends before anyone decides."""
    rng = np.random.default_rng(seed)
    while True:
        state, outcomes = new_game(rules, seat_names(players)), []
        while (request := state.chance) is not None:
            faces = tuple(int(f) for f in rng.integers(1, 7, size=request.count))
            outcomes.append(outcome_for(request.kept, faces))
            state = state.apply_dice(faces)
        if state.is_over:
            return outcomes


@pytest.mark.parametrize(("preset", "players"), [("classic-11", 2), ("engranjeu-21", 3)])
def test_skip_no_decision_starts_a_game_over_before_any_decision_again(preset, players):
    outcomes = throws_of_a_game_without_decision(Ruleset.preset(preset), players, seed=1)
    plain, skipping = load(preset, players), load(preset, players, skip_no_decision=True)
    ended, again = plain.new_initial_state(), skipping.new_initial_state()
    for outcome in outcomes:
        ended.apply_action(outcome)
        again.apply_action(outcome)
    assert ended.is_terminal()
    assert again.state == skipping.new_initial_state().state and again.skipped_games == 1
    assert again.history() == outcomes  # the skipped game stays in the history
    restored = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(skipping, again))[1]
    assert restored.state == again.state and restored.skipped_games == 1


@pytest.mark.parametrize(("preset", "players"), [("classic-11", 2), ("engranjeu-21", 3)])
def test_openspiel_random_simulations_pass_when_skipping(preset, players):
    pyspiel.random_sim_test(load(preset, players, "pot:5", skip_no_decision=True), 5, True, False)


def test_rules_without_any_decision_are_an_error_when_skipping():
    game = load(options="pot:1;manches:1;charge_throws:1;le_bon:false", skip_no_decision=True)
    with pytest.raises(InvalidRuleset, match="200 games in a row ended before anyone had a decision to take"):
        pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


class Scripted:
    """OpenSpiel's chance sampler with the first outcomes given."""

    def __init__(self, outcomes, seed):
        self.pending = list(outcomes)
        self.rng = np.random.RandomState(seed)

    def __call__(self, state):
        if self.pending:
            return self.pending.pop(0)
        outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
        return self.rng.choice(outcomes, p=probabilities)


def test_rl_environment_starts_on_a_decision_only_when_skipping():
    """rl_environment throws the dice of reset() until a decision or the end, and calls
    what it reached the first step: without the parameter, a game that ends in the coups
    secs gives a first step that is over, with no player to index the legal actions by."""
    rl_environment = pytest.importorskip("open_spiel.python.rl_environment")
    outcomes = throws_of_a_game_without_decision(Ruleset.preset("classic-11"), 2, seed=2)
    first = rl_environment.Environment(load(), chance_event_sampler=Scripted(outcomes, 0)).reset()
    assert first.first() and first.observations["current_player"] == pyspiel.PlayerId.TERMINAL
    assert first.observations["legal_actions"] == [[], []]
    skipping = load(skip_no_decision=True)
    env = rl_environment.Environment(skipping, chance_event_sampler=Scripted(outcomes, 0))
    first = env.reset()
    player = first.observations["current_player"]
    assert player in (0, 1) and first.observations["legal_actions"][player]
    assert env.get_state.skipped_games == 1


def test_tabular_q_learning_runs_openspiels_loop_for_hundreds_of_episodes():
    """OpenSpiel's own loop (its tic_tac_toe_qlearner example) over 300 games with five
    tokens in the pot, where one game in ten ends in the coups secs."""
    rl_environment = pytest.importorskip("open_spiel.python.rl_environment")
    tabular_qlearner = pytest.importorskip("open_spiel.python.algorithms.tabular_qlearner")
    env = rl_environment.Environment(load(options="pot:5", skip_no_decision=True), seed=3)
    np.random.seed(0)  # QLearner explores with numpy's global generator: the same games every run
    agents = [
        tabular_qlearner.QLearner(player_id=p, num_actions=env.action_spec()["num_actions"]) for p in (0, 1)
    ]
    skipped, decisions = 0, 0
    for _ in range(300):
        time_step = env.reset()
        acted = set()
        while not time_step.last():
            player = time_step.observations["current_player"]
            acted.add(player)
            time_step = env.step([agents[player].step(time_step).action])
            decisions += 1
        # The example steps every agent here; QLearner then keeps the end as its last step
        # when its player had no decision at all (rare: the other player's stop ended the
        # game), and fails on the next reset: only the agents that played learn from the end.
        for player in acted:
            agents[player].step(time_step)
        skipped += env.get_state.skipped_games
        assert sorted(time_step.rewards) in ([-1.0, 1.0], [0.0, 0.0])
    assert skipped > 10  # games over before any decision came up and were played again
    assert decisions > 1000 and all(len(agent._q_values) > 100 for agent in agents)


# -- chance ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kept", "count", "size"),
    [((), 3, 56), ((4,), 2, 21), ((4, 2), 1, 6), ((1, 1), 1, 6), ((), 1, 6)],
)
def test_chance_outcomes_are_unordered_results_with_exact_probabilities(kept, count, size):
    outcomes = chance_distribution(kept, count)
    assert len(outcomes) == size
    assert sum(p for _, p in outcomes) == 1
    # every ordered throw of the dice, counted
    ordered = Counter(outcome_for(kept, faces) for faces in itertools.product(range(1, 7), repeat=count))
    assert dict(outcomes) == {o: Fraction(n, 6**count) for o, n in ordered.items()}


def test_a_chance_outcome_maps_back_to_the_faces_thrown():
    state = new_game(Ruleset.preset("lyonnaise-21"), seat_names(2)).apply_dice("531").apply(Throw((5,)))
    request = state.chance
    assert request is not None and request.kept == (5,)
    for outcome, _ in chance_distribution(request.kept, request.count):
        faces = faces_of(outcome, request)
        assert len(faces) == 2
        assert Result.of((5, *faces)) == ALL_RESULTS[outcome]
    with pytest.raises(IllegalAction, match=r"cannot come up now; accepted: .*\(655\)"):
        faces_of(RESULT_ID[Result.parse("421")], request)


def test_openspiel_sees_the_exact_probabilities():
    state = load().new_initial_state()
    probabilities = dict(state.chance_outcomes())
    assert len(probabilities) == 56
    assert probabilities[RESULT_ID[Result.parse("421")]] == 6 / 216
    assert probabilities[RESULT_ID[Result.parse("111")]] == 1 / 216
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, RESULT_ID[Result.parse("421")]) == "421"


# -- parameters --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "error", "message"),
    [
        ({"preset": "classic"}, InvalidRuleset, "unknown preset 'classic'; accepted: classic-11, "),
        ({"options": "pot=3"}, InvalidRuleset, "write OPTION:VALUE pairs separated by ';'"),
        ({"options": "pot:3,charge_throws:1"}, InvalidRuleset, "write OPTION:VALUE pairs"),
        (
            {"options": "pots:3"},
            InvalidRuleset,
            "unknown option 'pots' \\(did you mean 'pot'\\?\\); accepted: ",
        ),
        ({"options": "pot:0"}, InvalidRuleset, "pot=0 is not accepted; pot takes 1 to 999"),
        ({"options": "pot:3;pot:4"}, InvalidRuleset, "'pot' is given twice"),
        # an entry left empty is refused, as --set refuses one: it may hide an option lost on the way
        ({"options": "pot:3;;le_bon:false"}, InvalidRuleset, "options 'pot:3;;le_bon:false': an empty entry"),
        ({"options": "pot:3;"}, InvalidRuleset, "an empty entry"),
        (
            {"preset": "engranjeu-21", "players": 9},
            InvalidPlayers,
            "engranjeu-21 is played by 2 to 8 players, not 9",
        ),
        ({"players": 63}, InvalidPlayers, "the OpenSpiel game seats at most 62 players, not 63"),
        ({"preset": "tim", "players": 3}, InvalidPlayers, "tim is played by 2 players, not 3"),
    ],
)
def test_bad_parameters_say_what_is_accepted(params, error, message):
    with pytest.raises(error, match=message):
        pyspiel.load_game("python_421", params)


def test_openspiel_itself_names_unknown_parameters_and_wrong_types():
    available = "Available parameters are: options, players, preset, skip_no_decision"
    with pytest.raises(pyspiel.SpielError, match=available):
        pyspiel.load_game("python_421(seats=2)")
    with pytest.raises(pyspiel.SpielError, match="Expected type: kInt"):
        pyspiel.load_game("python_421(players=two)")


# -- returns, text, observations ------------------------------------------------------


def test_returns_are_zero_sum():
    assert returns_of(Outcome((0,), "loser", (), (0,)), 2) == [-1.0, 1.0]
    assert returns_of(Outcome((1, 2), "shared", (), (1, 2)), 4) == [0.5, -0.5, -0.5, 0.5]
    assert returns_of(Outcome((0, 1), "shared", (), (0, 1)), 2) == [0.0, 0.0]  # a shared loss: a draw
    assert returns_of(None, 3) == [0.0, 0.0, 0.0]


def test_a_position_reached_again_in_the_decharge_has_the_same_text():
    """Tokens go back and forth: the text (the Markov state) repeats, the history does not."""
    game = load(options="pot:3;manches:1;value_421:1;value_111:1;value_suite:1")  # one token a round
    rng = random.Random(3)
    for _ in range(50):
        state, seen = game.new_initial_state(), dict[str, State]()
        while not state.is_terminal():
            engine = state.state
            if engine.phase is Phase.DECHARGE and engine.round.throws == 0 and not engine.round.done:
                if str(state) in seen:
                    assert seen[str(state)].steps < engine.steps  # the same position, later
                    return
                seen[str(state)] = engine
            if state.is_chance_node():
                outcomes, weights = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, weights)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    pytest.fail("no décharge position came back in 50 games")


def test_observations_are_the_shared_encoding():
    game = load("lyonnaise-21", 3)
    state = game.new_initial_state()
    state.apply_action(RESULT_ID[Result.parse("653")])  # three throws a turn: seat 0 decides
    encoder = ObservationEncoder(game.rules, 3)
    for seat in range(3):
        assert np.array_equal(np.array(state.observation_tensor(seat)), encoder.encode(state.state, seat))
        assert state.observation_string(seat) == str(state)
    assert state.information_state_string(0) == state.history_str()
    names = [state.action_to_string(a) for a in state.legal_actions()]
    assert names[:4] == ["stop", "keep 53", "keep 63", "keep 3"] and "bon 65" in names


def test_a_move_named_by_two_indices_is_listed_once():
    game = load("lyonnaise-21", 2)
    state = game.new_initial_state()
    state.apply_action(RESULT_ID[Result.parse("442")])
    names = [state.action_to_string(a) for a in state.legal_actions()]
    assert names.count("keep 42") == 1 and len(names) == len(set(names))
    assert 1 in state.legal_actions() and 2 not in state.legal_actions()  # die 0 or die 1 again: keep 42
    listed = r"action 2 is not listed now; accepted: 0 \(stop\), 1 \(keep 42\)"
    with pytest.raises(IllegalAction, match=listed):
        state.apply_action(2)


# -- exact values ----------------------------------------------------------------------


def test_openspiel_value_iteration_agrees_with_the_two_player_solver():
    game = load(options=COUPS_SECS)
    solver = HeadsUp(game.rules).solve()
    values = openspiel_value_iteration(game)
    loses = (1 - expected_from(game.new_initial_state(), values)) / 2
    assert loses == pytest.approx(solver.manche_loss(), abs=1e-9)
    assert loses != pytest.approx(0.5, abs=1e-3)  # the leader takes first on a tie
    graph = explore(game.new_initial_state())  # and every state, chance states included
    agreement = compare(graph, iterate(graph)[0], solver)
    assert agreement.positions == 1 and agreement.max_difference < 1e-9
    assert agreement.root == pytest.approx(loses, abs=1e-12)


def test_value_iteration_through_a_draw_for_the_first_player():
    """One die each decides who leads (replayed on a tie): both leaders' rounds agree."""
    game = load(options=COUPS_SECS + ";first_player:lowest_die")
    graph = explore(game.new_initial_state())
    agreement = compare(graph, iterate(graph)[0], HeadsUp(game.rules).solve())
    assert agreement.positions == 2 and agreement.max_difference < 1e-9
    assert agreement.root == pytest.approx(agreement.solver_root, abs=1e-9)


def test_the_command_prints_both_values_and_their_difference():
    lines: list[str] = []
    assert main(["--options", COUPS_SECS, "--openspiel"], out=lines.append) == 0
    assert lines[1] == "states: 59, moves: 3192, sweeps: 2"
    assert lines[2].startswith("P(seat 0 loses): value iteration 0.5106738683")
    assert lines[3].startswith("round starts compared: 1, largest difference: ")
    assert lines[4].startswith("OpenSpiel value_iteration: P(seat 0 loses) 0.5106738683")


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--options", "pot=1"], "Error: options 'pot=1': write OPTION:VALUE pairs separated by ';'"),
        (["--preset", "nope"], "Error: unknown preset 'nope'; accepted: classic-11, "),
        (["--options", "pot:1;charge_throws:1;le_bon:false"], "Error: heads_up values one manche"),
        (["--options", "pots:1;manches:1"], "Error: unknown option 'pots'"),
    ],
)
def test_the_command_says_what_is_wrong_in_one_error_line_and_fails(argv, said, capsys):
    lines: list[str] = []
    assert main(argv, out=lines.append) != 0
    err = capsys.readouterr().err
    assert err.startswith(said) and err.count("\n") == 1 and "Traceback" not in err
    assert lines == []


def test_the_command_run_as_a_module_fails_cleanly_on_bad_options():
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "py421.envs.openspiel_values", "--options", "pot=1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0 and done.stdout == ""
    assert done.stderr.startswith("Error: options 'pot=1'") and "Traceback" not in done.stderr


def test_openspiel_value_iteration_cannot_follow_a_tie_break_replayed():
    """A tie replays coups secs: a chance state comes back with no decision in between."""
    game = load(options="pot:1;manches:1;charge_throws:1;le_bon:false")
    with pytest.raises(ValueError, match=r"recursed without end: .*a tie-break replayed"):
        openspiel_value_iteration(game)


@pytest.mark.parametrize("final", ["421", "532", "221"])
def test_value_iteration_over_every_state_agrees_with_the_solver_in_the_followers_turn(final):
    """The follower decides, the leader's result made in two throws: every state valued.

    The whole game, the leader's choices included, takes a minute: docs/openspiel.md.
    """
    game = load(options=TWO_THROWS)
    start = game.new_initial_state()
    start.apply_action(RESULT_ID[Result.parse(final)])  # the leader's first throw
    start.apply_action(4)  # throw die 2 (the lowest) again
    start.apply_action(RESULT_ID[Result.parse(final)])  # the same result: the leader is done
    assert start.is_chance_node() and start.state.round.done[0].throws == 2
    graph = explore(start)
    values, _ = iterate(graph)
    _, follower = HeadsUp(game.rules).solve().position(True, 1, 0, 0)
    turn = follower[2]  # P(seat 0 loses) from the follower's side, after two throws of the leader

    def loses(state):
        return (1 - values[str(state)]) / 2

    assert loses(start) == pytest.approx(turn.start(2)[RESULT_ID[Result.parse(final)]], abs=1e-9)
    for outcome, _ in start.chance_outcomes():  # the follower holds its first result and decides
        held = start.child(outcome)
        assert held.current_player() == 1
        assert loses(held) == pytest.approx(turn.values[1][RESULT_ID[Result.parse(final)], outcome], abs=1e-9)
