from py421.core.actions import Stop, Throw
from py421.players import HeuristicBot

from .helpers import heads_up_not_lost, run, simulated, table, wilson


def test_heuristic_beats_random_over_20000_games():
    data = simulated("classic-11", ("heuristic", "random"), 20_000)
    low, high = wilson(heads_up_not_lost(data, 0), data["games"], z=2.576)  # 99 % interval
    print(
        f"bot:heuristic does not lose {low:.3f}-{high:.3f} (99 %) of {data['games']} games against bot:random"
    )
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
