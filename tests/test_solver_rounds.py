"""Rounds of any number of players by max^n: exact cases, the engine's settlement, play."""

import json
import math
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from py421.cli import main
from py421.core.actions import ReportedTurn
from py421.core.chance import SeededDice
from py421.core.dice import Result
from py421.core.engine import apply_action, apply_dice, apply_turn, est_amount
from py421.core.events import RoundDecided, Took
from py421.core.game import Game
from py421.core.rules import Ruleset
from py421.core.state import Phase, State
from py421.players import HeuristicBot
from py421.players.optimal import RoundsOptimalBot
from py421.sim.fast.policy import ROUNDS_LEVEL
from py421.solver.duel import solve_duel
from py421.solver.rounds import KEEP_CHOICES, OBJECTIVES, comparison_of, payoffs, solve_round, stages
from py421.solver.tables import INDEX, KEEPS, RESULTS

from .helpers import play_until, run, simulated, table


@pytest.mark.parametrize("preset", ["classic-11", "tim", "comptoir-21", "kytionnaire", "vache-41"])
def test_two_player_rounds_are_the_duel(preset):
    """Two players not wanting to lose the round play the duel (ties counting half)."""
    rules = Ruleset.preset(preset)
    values = solve_round(rules, 2, False, "loser")
    first = solve_duel(rules, "half").first_wins
    assert values.not_losing[0] == pytest.approx(first, abs=1e-12)
    assert values.not_losing.sum() == pytest.approx(1, abs=1e-12)


def test_decharge_tokens_balance_and_coups_secs_are_fair():
    rules = Ruleset.preset("classic-11")
    for players in (3, 4):
        decharge = solve_round(rules, players, False, "tokens")
        assert abs(decharge.tokens.sum()) < 1e-12  # what one gives another receives
        charge = solve_round(rules, players, True, "tokens", rules.pot)  # one throw: nothing to choose
        assert charge.not_losing == pytest.approx([1 - 1 / players] * players, abs=1e-12)


def start_of(rules: Ruleset, players: int, phase: Phase) -> State:
    """A round's start in ``phase`` with every player in, reached by heuristic play."""
    bot = HeuristicBot()

    def ready(state: State) -> State | None:
        r = state.round
        fresh = r is not None and not r.done and not r.throws and r.tie is None
        everyone = sum(state.active) == players
        return state if state.phase is phase and fresh and everyone else None

    for seed in range(100):
        game = Game(rules, [f"P{i}" for i in range(players)])
        dice = SeededDice(f"start-{rules.name}-{seed}")
        found = ready(game.state) or play_until(
            game, dice, bot.choose, lambda s: ready(s) or s.is_over or None
        )
        if isinstance(found, State):
            return found
    raise AssertionError("no such round in 100 games")


@pytest.mark.parametrize(
    ("preset", "players", "phase"),
    [
        ("classic-11", 3, Phase.DECHARGE),
        ("engranjeu-21", 3, Phase.DECHARGE),
        ("comptoir-21", 4, Phase.DECHARGE),
        ("comptoir-21", 3, Phase.CHARGE),
        ("kytionnaire", 4, Phase.DECHARGE),
    ],
)
@given(data=st.data())
def test_summaries_settle_rounds_as_the_engine_does(preset, players, phase, data):
    """Reported turns with no tie-break: the engine's loser, winner and amount are the
    model's, for every position."""
    rules = Ruleset.preset(preset).with_options(tie_break="rampot")  # throw counts aside
    state = START[(preset, players, phase)]
    assert state.round is not None
    order = state.round.order
    results = data.draw(st.lists(st.sampled_from(RESULTS), min_size=players, max_size=players))
    for res in results:
        state = apply_turn(replace(state, rules=rules), ReportedTurn(res, 1))
    decided = [e for e in state.events if isinstance(e, RoundDecided)]
    if not decided:
        return  # a tie-break follows: a draw, modelled as fair
    outcome = decided[0]
    charge = phase is Phase.CHARGE
    comparison = comparison_of(rules)
    stage = stages(comparison, players)
    summary, first_flags = comparison.start(INDEX[results[0]])
    flags = [first_flags]
    for k, res in enumerate(results[1:], start=1):
        summary, new, moved = comparison.update(summary, INDEX[res], k)
        flags = [moved[f] for f in flags] + [new]
    pot = START[(preset, players, phase)].pot
    model = payoffs(rules, players, charge, pot if charge else None, stage[-1])
    row = stage[-1].index[summary]
    takes = [e.amount for e in state.events if isinstance(e, Took)]
    for position, seat in enumerate(order):
        loses = seat in outcome.losers
        assert model[OBJECTIVES.index("loser"), row, flags[position]] == -float(loses)
        if charge:
            tokens = -sum(takes) / len(takes) * loses  # tied takers share the pot's last tokens
        else:
            tokens = outcome.amount * len(outcome.losers) * (seat == outcome.winner) - outcome.amount * loses
        assert model[OBJECTIVES.index("tokens"), row, flags[position]] == pytest.approx(tokens)


START = {
    key: start_of(Ruleset.preset(key[0]), key[1], key[2])
    for key in [
        ("classic-11", 3, Phase.DECHARGE),
        ("engranjeu-21", 3, Phase.DECHARGE),
        ("comptoir-21", 4, Phase.DECHARGE),
        ("comptoir-21", 3, Phase.CHARGE),
        ("kytionnaire", 4, Phase.DECHARGE),
    ]
}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("preset", "players", "settings"),
    [("classic-11", 3, ()), ("engranjeu-21", 4, ("tie_break=rampot",))],
)
def test_round_values_agree_with_max_n_play_through_the_engine(preset, players, settings):
    """Every seat plays the solved round 3,000 times from a décharge start: each
    position's chance of not losing and its tokens are within 4 standard errors."""
    rules = Ruleset.preset(preset).with_settings(settings)
    start = replace(start_of(Ruleset.preset(preset), players, Phase.DECHARGE), rules=rules)
    assert start.round is not None
    order = start.round.order
    values = solve_round(rules, players, False, "tokens")
    bot = RoundsOptimalBot()  # bot:optimal plays this round for the whole game: the round solver alone
    n = 3000
    lost = np.zeros((n, players))
    tokens = np.zeros((n, players))
    for i in range(n):
        state, dice = start, SeededDice(f"round-{preset}-{i}")
        while True:
            request = state.chance
            if request:
                state = apply_dice(state, dice.throw(request))
            else:
                state = apply_action(state, bot.choose(state))
            decided = [e for e in state.events if isinstance(e, RoundDecided)]
            if decided:
                break
        d = decided[0]
        for position, seat in enumerate(order):
            lost[i, position] = seat in d.losers
            given = d.amount * len(d.losers) * (seat == d.winner)
            tokens[i, position] = given - d.amount * (seat in d.losers)
    for position in range(players):
        p = values.not_losing[position]
        se = math.sqrt(p * (1 - p) / n)
        played = 1 - lost[:, position].mean()
        print(f"{preset} position {position + 1}: not losing {p:.4f} solved, {played:.4f} played")
        assert abs((1 - lost[:, position].mean()) - p) < 4 * se
        se_tokens = tokens[:, position].std() / math.sqrt(n)
        assert abs(tokens[:, position].mean() - values.tokens[position]) < 4 * se_tokens


def test_optimal_beats_two_heuristics_at_three_players():
    """The optimal bot playing round by round, in one seat of three (first seats rotate), loses less
    often than either heuristic (bot:optimal plays this game whole: tests/test_solver_game_maxn.py)."""
    data = simulated("classic-11", (ROUNDS_LEVEL, "heuristic", "heuristic"), 6_000)
    optimal, *others = data["seats"]
    print("losses (95 % intervals):", [seat["ci95"] for seat in data["seats"]])
    assert all(optimal["ci95"][1] < other["ci95"][0] for other in others)


def test_solve_reports_every_position_for_three_and_four_players():
    runner = CliRunner()
    # four-player vache-41 with « queue de la vache »: its décharge for every debt is past what the
    # game-level solver takes on, so it is solved round by round
    queue = ["--rules", "vache-41", "--set", "queue_de_la_vache=true"]
    result = runner.invoke(main, ["solve", "--players", "4", *queue, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["method"] == "max^n rounds"
    decharge = data["rounds"]["decharge"]["positions"]
    assert [p["position"] for p in decharge] == [1, 2, 3, 4]
    assert sum(p["tokens"] for p in decharge) == pytest.approx(0, abs=1e-9)
    assert decharge[0]["not_losing"] > max(p["not_losing"] for p in decharge[1:])  # the leader's edge
    text = runner.invoke(main, ["solve", "--players", "4", "--rules", "engranjeu-21"]).output
    assert "every round played by max^n" in text and "position 4" in text
    refused = runner.invoke(main, ["solve", "--players", "3", "--rules", "tim"])
    assert refused.exit_code == 2 and "tim is played by 2 players, not 3" in refused.output


def test_advise_by_round_and_game_objectives():
    runner = CliRunner()

    def options(*args: str) -> list[dict[str, Any]]:
        result = runner.invoke(main, ["advise", *args, "--json"])
        assert result.exit_code == 0, result.output
        rows: list[dict[str, Any]] = json.loads(result.stdout)["options"]
        return rows

    # Last of three in the décharge after 653 and a nénette: keeping 42, a 1 (421, worth 8)
    # or a 3 (432, worth 2) wins the round and gives its value away
    last = ("--throws-left", "1", "--players", "3", "--before", "653,221")
    best = options("642", *last, "--objective", "tokens")
    assert best[0]["keep"] == "42" and best[0]["value"] == pytest.approx(10 / 6)
    # not losing the round: nothing is lost by stopping on 642 above a nénette
    safe = options("642", *last, "--objective", "loser")
    assert safe[0] == {"keep": "642", "stop": True, "bon": False, "value": 1.0}
    # the game objective for two players: values are chances, best first
    game = options("642", "--throws-left", "1", "--objective", "game", "--before", "631", "--tokens", "5,6")
    assert all(0 <= r["value"] <= 1 for r in game)
    assert [r["value"] for r in game] == sorted((r["value"] for r in game), reverse=True)
    bad = runner.invoke(main, ["advise", "642", "--throws-left", "1", "--objective", "game", "--tokens", "5"])
    assert bad.exit_code == 2 and "expected two counts like 5,6" in bad.output
    # with starting tokens the charge starts from them; fewer is no position of the game
    starting = ["--rules", "kytionnaire", "--set", "initial_tokens=2", "--phase", "charge"]
    charge = options("642", "--throws-left", "0", "--objective", "game", *starting, "--tokens", "2,2")
    assert charge == options("642", "--throws-left", "0", "--objective", "game", *starting)
    assert 0 < charge[0]["value"] < 1
    fewer = [*starting, "--pot", "9", "--tokens", "1,5", "--objective", "game"]
    refused = runner.invoke(main, ["advise", "642", "--throws-left", "0", *fewer])
    assert refused.exit_code == 2
    assert "tokens 1,5 and pot 9 do not make a position of 15 tokens (2 or more each" in refused.output
    past = ["advise", "642", "--throws-left", "2", "--before", "653", "--limit", "1", "--objective", "loser"]
    wrong = runner.invoke(main, past)
    assert wrong.exit_code == 2 and "at most 1 throw here: no throw can be left, not 2" in wrong.output


def test_the_stake_on_the_table_is_set_by_the_best_and_the_worst_result():
    """« Pour ce qui est » is what the round's results set, whoever led it; a tie of all is its value."""
    for deduct, apart, together in ((False, 10, 1), (True, 9, 1)):
        settings = ("pot=1", "initial_tokens=1", f"value_deduction={deduct}")
        game = table("engranjeu-21", "A", "B", "C", settings=settings)
        run(game, "421 | 665 | 653")  # C takes the last token and leads the décharge
        run(game, "421 | stop | 332 | 332 | 543 | 543")  # A and B tie for worst, then again
        assert game.state.to_move == 1
        assert est_amount(game.state) == apart  # 421 (10), less 332 (1) where deducted
        game = table("engranjeu-21", "A", "B", "C", settings=settings)
        run(game, "421 | 665 | 653 | 332 | stop | 332 | 332 | 543 | 543 | 543")  # everyone, twice
        assert game.state.to_move == 1
        assert est_amount(game.state) == together  # 332's value: never deducted from itself


@pytest.mark.parametrize(("preset", "players"), [("classic-11", 2), ("classic-11", 3), ("tim", 2)])
def test_the_first_option_advised_is_the_one_bot_optimal_plays(preset: str, players: int) -> None:
    """Choices worth the same within 1e-12 are ranked as the solver breaks the tie (stop, then keep
    more dice, then the keeps' order), not by the last bits of their values, which another
    processor's arithmetic may flip: a tie once ranked keep 42 above the 54 the bot plays."""
    rules = Ruleset.preset(preset)
    values = solve_round(rules, players, False, "tokens")
    most = rules.throws_allowed(False)
    checked = 0
    for finals in [(), *[(r,) for r in RESULTS[::5]]]:
        limit = most
        for result in RESULTS:
            for remaining in range(limit):
                best = values.options(finals, limit, result.dice, remaining)[0]
                choice = values.choice(finals, limit, result.dice, remaining)
                played = (True, result.dice) if choice < 0 else (False, KEEPS[choice])
                assert (best.stop, best.keep) == played, (finals, result, remaining)
                checked += 1
    assert checked > 1000


def test_tied_keeps_go_to_more_dice_then_the_higher_ones_as_documented():
    """docs/strategy.md: among choices worth the same, more dice kept, then the higher dice."""
    in_order = [KEEPS[k] for k in dict.fromkeys(KEEP_CHOICES[INDEX[Result.parse("642")]])]
    assert in_order == [(6, 4), (6, 2), (4, 2), (6,), (4,), (2,), ()]
    for result in RESULTS:
        keeps = [KEEPS[k] for k in dict.fromkeys(KEEP_CHOICES[INDEX[result]])]
        assert keeps == sorted(keeps, key=lambda kept: (-len(kept), [-d for d in kept])), result
