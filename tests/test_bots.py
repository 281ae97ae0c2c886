import math

from py421.core.actions import Stop, Throw
from py421.core.chance import SeededDice
from py421.core.game import Game
from py421.core.rules import Ruleset
from py421.players import HeuristicBot, Player, RandomBot
from py421.sim.loop import play_out

from .helpers import run, table


def wilson(successes: float, n: int, z: float) -> tuple[float, float]:
    """Wilson score interval of a proportion."""
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def test_heuristic_beats_random_over_2000_games():
    rules = Ruleset.preset("classic-11")
    games = 2000
    wins = 0.0
    for g in range(games):
        heuristic_seat = g % 2  # each bot starts half the games
        bots: list[Player] = [RandomBot(f"r{g}"), RandomBot(f"r{g}")]
        bots[heuristic_seat] = HeuristicBot()
        game = play_out(Game(rules, ["A", "B"]), bots, SeededDice(f"duel-{g}"))
        outcome = game.state.outcome
        assert outcome is not None
        if heuristic_seat not in outcome.losers:
            wins += 1
        elif len(outcome.losers) == 2:
            wins += 0.5  # a shared loss
    low, high = wilson(wins, games, z=2.576)  # 99 % interval
    print(f"heuristic wins {wins / games:.3f} of {games} games, 99 % interval {low:.3f}-{high:.3f}")
    assert low > 0.5


def test_heuristic_chases_421_aces_and_brelans():
    game = table("vache-41")
    run(game, "653 | throw | 652 | throw | 666")  # B must beat 666, in up to three throws
    for dice, keep in (("642", (4, 2)), ("211", (1, 1)), ("553", (5, 5)), ("631", (1,))):
        run(game, dice)
        assert HeuristicBot().choose(game.state) == Throw(keep), dice
        game.undo()


def test_heuristic_stops_when_it_beats_what_it_must_beat():
    game = table("vache-41")
    run(game, "653 | stop")  # the leader stops on a weak result: one throw for everyone
    run(game, "321")
    assert game.state.is_over or game.state.to_move is None  # B had one throw only
    game = table("vache-41")
    run(game, "653 | throw | 652 | throw | 643")  # A ends on 643 after three throws
    run(game, "651")
    assert HeuristicBot().choose(game.state) == Stop()  # 651 beats 643: safe
    game.undo()
    run(game, "642")
    assert HeuristicBot().choose(game.state) == Throw((4, 2))  # 642 loses to 643: try again


def test_heuristic_leader_keeps_a_brelan():
    game = table("vache-41")
    run(game, "555")
    assert HeuristicBot().choose(game.state) == Stop()
