"""Players behind must throw on (``must_throw_on``), and « le bon » makes a throw final: the round
solver's turns are held to the engine's legal actions, state by state, and ``421 advise`` values them
(bot:optimal's games are replayed in the simulator: ``tests/test_fast_sim.py``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner

from py421.cli import main
from py421.core.actions import Action, ReportedTurn, Stop, Throw
from py421.core.dice import Result, throw_outcomes
from py421.core.engine import apply_action, apply_dice, apply_turn, deciding_seat, legal_actions
from py421.core.rules import Ruleset
from py421.core.state import Phase, State
from py421.players.optimal import OptimalBot
from py421.solver import game_maxn
from py421.solver.amounts import token_values
from py421.solver.rounds import FRESH, OBJECTIVES, SELF, STOP, play_turn, solve_round
from py421.solver.solutions import manche_solution
from py421.solver.strategy import strategy_for
from py421.solver.tables import INDEX, KEEPS, KEEPS_OF, RESULTS, TRANSITIONS
from py421.solver.turn import StakedValues

from .test_solver_game_maxn import solved_here
from .test_solver_rounds import start_of

# Rampots, not « qui barre démarre »: the round solver does not compare throw counts (docs/strategy.md).
THROW_ON = Ruleset.preset("engranjeu-21").with_options(must_throw_on=True, tie_break="rampot")
START = start_of(Ruleset.preset("engranjeu-21"), 3, Phase.DECHARGE)


Stopped = Callable[[Result, int, int], float]  # a turn ended on a result, after some throws, at a stake


def searched(state: State, stop: Stopped) -> tuple[float, dict[tuple[Result, int, int], tuple[float, State]]]:
    """The mover's value at the start of their turn (``state``: before its first throw), and at
    every decision of it, by the engine's legal actions and its ends of turn (a turn ended is worth
    what ``stop`` says), with the decision's state: by result, throws used and stake so far (where
    every throw adds to it)."""
    r = state.round
    assert r is not None and state.chance is not None
    seat, done = state.chance.seat, len(r.done)
    gains = (
        token_values(state.rules) if state.rules.accumulated_stakes and state.phase is Phase.CHARGE else None
    )
    found: dict[tuple[Result, int, int], tuple[float, State]] = {}
    # where a throw lands (its result, throws used, stake, « le bon » said): the decision it leads to, or
    # None where the engine ends the turn there; an outcome reached again from another decision or keep
    # lands as the engine's throw did the first time (what ``found`` holds for decisions too)
    landed: dict[tuple[Result, int, int, bool], tuple[Result, int, int] | None] = {}

    def held(s: State) -> bool:  # still the mover's turn, at a decision
        rs = s.round
        return rs is not None and rs.tie is None and len(rs.done) == done and deciding_seat(s) == seat

    def worth(s: State, action: Action) -> float:
        rs = s.round
        assert rs is not None
        if isinstance(action, Stop):
            return stop(Result.of(rs.dice), rs.throws, rs.stake)
        assert isinstance(action, Throw)
        thrown = apply_action(s, action)
        assert thrown.chance is not None
        total = 0.0
        for faces, p in throw_outcomes(thrown.chance.count):
            ended = Result.of(action.keep + faces)
            stake = rs.stake + (0 if gains is None else int(gains[INDEX[ended]]))  # the throw's value added
            reached = (ended, rs.throws + 1, stake, action.bon)
            if reached not in landed:  # the engine's throw, once for each place it lands
                after = apply_dice(thrown, faces)
                landed[reached] = value_key(after) if held(after) else None
                if landed[reached] is not None:
                    value(after)
            key = landed[reached]
            total += float(p) * (found[key][0] if key is not None else stop(ended, rs.throws + 1, stake))
        return total

    def value_key(s: State) -> tuple[Result, int, int]:
        rs = s.round
        assert rs is not None
        return (Result.of(rs.dice), rs.throws, rs.stake)

    def value(s: State) -> float:
        key = value_key(s)
        if key not in found:
            found[key] = (max(worth(s, a) for a in legal_actions(s)), s)
        return found[key][0]

    start = 0.0
    for faces, p in throw_outcomes(state.chance.count):
        thrown = apply_dice(state, faces)
        start += float(p) * value(thrown)
    return start, found


@pytest.mark.parametrize(
    ("rules", "finals", "objective", "throws_on"),
    [
        (THROW_ON, ("542",), "loser", True),  # the second of three, behind unless ahead of 542
        (THROW_ON, ("421",), "loser", True),  # nothing is ahead of 421: throw on to the last throw
        (THROW_ON, ("631", "221"), "loser", True),  # the last: ahead of 631 or thrown on
        (THROW_ON, ("542",), "tokens", True),  # playing for the tokens
        (THROW_ON, ("221", "221"), "tokens", False),  # after nénettes only, a nénette is ahead too
        (THROW_ON.with_options(nenette_last_wins=False), ("221", "221"), "tokens", True),  # not without
        (THROW_ON.with_options(le_bon=False), ("542",), "loser", True),  # no « le bon » to weigh
    ],
    ids=["second", "behind-421", "last", "tokens", "after-nenettes", "after-nenettes-tied", "without-le-bon"],
)
def test_every_decision_of_a_turn_is_worth_what_the_engine_s_legal_actions_make_it(
    rules, finals, objective, throws_on
):
    """Each decision's value, searched through the engine (which says when one may stop, when « le
    bon » may be declared and when a turn ends), is the round solver's, to 1e-12; and what the
    solver plays there is a legal action worth the most."""
    players = 3
    state = replace(START, rules=rules)
    for text in finals:  # the leader took three throws: the others may too
        state = apply_turn(state, ReportedTurn(Result.parse(text), 3))
    values = solve_round(rules, players, False, objective)
    limit = 3
    turn, row = values.followers[len(finals) - 1][limit], values.context([Result.parse(t) for t in finals])
    stops = turn.stop[0][row]

    def stop(result: Result, throws: int, stake: int) -> float:
        return float(stops[INDEX[result]])

    compared = forced = bons = 0
    start, found = searched(state, stop)
    for (result, throws, _), (v, at) in found.items():
        left = limit - throws
        assert turn.own[left][row, INDEX[result]] == pytest.approx(v, abs=1e-12), (result, throws)
        choice = int(turn.choice[left][row, INDEX[result]])
        legal = legal_actions(at)
        played = Stop() if choice == STOP else Throw(KEEPS[choice])
        assert played in legal, (result, throws, played)
        forced += Stop() not in legal
        bons += any(isinstance(a, Throw) and a.bon for a in legal)
        compared += 1
    assert turn.start[row, OBJECTIVES.index(objective), SELF] == pytest.approx(start, abs=1e-12)
    assert compared > 50 and (forced > 0) == throws_on
    assert (bons > 0) == rules.le_bon  # « le bon » was there to choose (the search weighed it)


def test_throwing_on_is_worth_at_least_le_bon_so_the_solver_leaves_it_out():
    """docs/strategy.md: the throw after « le bon » would have been may keep the same dice again, so
    « le bon » never gains (where no value depends on the throws used). The solver, which leaves it
    out, is held to a plain recursion that weighs it, on turns worth random amounts where stopping is
    allowed at random; and the turn's ends are where its choices lead."""
    rng = np.random.default_rng(421)
    contexts, throws = 6, 3
    utility = rng.random((contexts, len(RESULTS)))
    may_stop = rng.random((contexts, len(RESULTS))) < 0.5
    value = np.zeros((throws, contexts, len(OBJECTIVES), SELF + 1, len(RESULTS)))
    value[:, :, 0, SELF] = utility
    turn = play_turn(value, 0, throws, may_stop)
    tops = []  # each context's values with every throw still to come
    for c in range(contexts):
        u = utility[c]
        expected = [u]
        for left in range(1, throws):
            later = expected[-1]
            expected.append(
                np.array(
                    [
                        max(
                            [u[i]] * bool(may_stop[c, i])
                            + [TRANSITIONS[k] @ later for k in KEEPS_OF[i]]
                            + [TRANSITIONS[k] @ u for k in KEEPS_OF[i] if left > 1]
                        )
                        for i in range(len(RESULTS))
                    ]
                )
            )
        for left in range(throws):
            assert turn.own[left][c] == pytest.approx(expected[left], abs=1e-12)
        tops.append(expected[-1])
    start = turn.start[:, 0, SELF]
    assert start == pytest.approx([FRESH @ top for top in tops], abs=1e-12)
    ended = turn.outcomes(throws)  # [context, throws used - 1, result]
    assert ended.sum(axis=(1, 2)) == pytest.approx(1, abs=1e-12)
    assert (ended * utility[:, None, :]).sum(axis=(1, 2)) == pytest.approx(start, abs=1e-12)
    assert not may_stop.all() and (turn.choice[2][~may_stop] != STOP).all()  # thrown on, never stopped


def test_advise_values_le_bon_and_no_stop_where_the_player_must_throw_on():
    """542 behind a 421 must throw on: every throw is valued, « le bon » too, and stopping is not
    offered; ahead of a 221, stopping is."""
    args = ["advise", "542", "--rules", "engranjeu-21", "--set", "must_throw_on=true", "--objective", "loser"]
    args += ["--players", "3", "--throws-left", "2"]
    behind = CliRunner().invoke(main, [*args, "--before", "421/3", "--json"])
    assert behind.exit_code == 0, behind.output
    options = json.loads(behind.output)["options"]
    assert not any(o["stop"] for o in options)
    assert len([o for o in options if o["bon"]]) == len([o for o in options if not o["bon"]]) == 7
    assert not options[0]["bon"]  # throwing on is worth at least « le bon »
    ahead = CliRunner().invoke(main, [*args, "--before", "221/3", "--json"])
    assert any(o["stop"] for o in json.loads(ahead.output)["options"])
    french = CliRunner().invoke(main, [*args, "--before", "421/3", "--lang", "fr"])
    assert "dire « le bon », garder 42, relancer 1 dé : le dernier lancer" in french.output


# three players of it, solved once for the tests that ask (a second to solve; a pot of 9 took twenty)
MUST_THROW_ON_6 = Ruleset.preset("lyonnaise-21").with_options(must_throw_on=True, pot=6)


def test_advice_for_the_game_values_le_bon_where_every_throw_adds_to_the_stake(
    private_home, shared_solutions
):
    """Three players, accumulated stakes: 631 behind a 654 must throw on; ``advise --objective game``
    offers no stop and values each throw as « le bon » too (the whole game solved)."""
    solved_here(MUST_THROW_ON_6, 3, shared_solutions)  # as the analysis test does: solved once
    args = ["advise", "631", "--rules", "lyonnaise-21", "--set", "must_throw_on=true", "--set", "pot=6"]
    args += ["--players", "3", "--objective", "game", "--phase", "charge", "--pot", "6"]
    args += ["--throws-left", "2", "--before", "654/3", "--stake", "5"]
    found = CliRunner().invoke(main, [*args, "--json"])
    assert found.exit_code == 0, found.output
    options = json.loads(found.stdout)["options"]
    assert not any(o["stop"] for o in options)
    assert len([o for o in options if o["bon"]]) == len([o for o in options if not o["bon"]]) == 7
    french = CliRunner().invoke(main, [*args, "--lang", "fr"])
    assert "dire « le bon »" in french.output


ENGRANJEU = Ruleset.preset("engranjeu-21").with_options(must_throw_on=True, pot=5)
# a pot above the 12 staked by a 421 in three: each throw on still adds to what the loser takes
LYONNAISE = Ruleset.preset("lyonnaise-21").with_options(must_throw_on=True, pot=16)


@pytest.mark.parametrize(
    ("rules", "phase", "lead", "throws_on"),
    [
        # « qui barre démarre » (fewer throws ahead), deduction, the later nénette winning
        (ENGRANJEU, Phase.DECHARGE, ("542", 2), True),
        (ENGRANJEU, Phase.DECHARGE, ("421", 3), True),  # ahead only on 421 in fewer throws
        (ENGRANJEU, Phase.DECHARGE, ("221", 3), False),  # after a nénette, even a nénette is ahead
        # every throw adds to the stake: throwing on costs, and « le bon » saves a throw
        (LYONNAISE, Phase.CHARGE, ("421", 3), True),  # a 111 thrown first is behind: « le bon » on it
        (LYONNAISE, Phase.CHARGE, ("654", 2), True),
    ],
    ids=["qui-barre", "behind-421", "nenette", "staked", "staked-2"],
)
def test_the_two_player_follower_turn_is_worth_what_the_engine_s_legal_actions_make_it(
    rules, phase, lead, throws_on, private_home
):
    """Two players, the manche solved whole: each decision of the follower behind or ahead of the
    leader, searched through the engine, is worth the solver's value to 1e-12 (by throws used, and
    by the stake so far where every throw adds to it); what the bot plays is legal and the best."""
    result, kl = Result.parse(lead[0]), lead[1]
    start = start_of(rules, 2, phase)
    r = start.round
    assert r is not None
    solver = manche_solution(rules)
    _, follower_values = solver.position(phase is Phase.CHARGE, start.pot, start.tokens[0], r.order[0])
    values = follower_values[kl]
    row = INDEX[result]
    staked = isinstance(values, StakedValues)
    earlier = tuple(Result.parse(t) for t in ("651", "661")[: kl - 1]) if staked else ()  # 1 each
    state = apply_turn(start, ReportedTurn(result, kl, earlier))
    most = rules.throws_allowed(phase is Phase.CHARGE)
    limit = kl if rules.leader_limit else most
    cap = values.cap if isinstance(values, StakedValues) else 0

    def at(a, res: Result, stake: int) -> float:
        return float(a[row, INDEX[res], min(stake, cap)] if staked else a[row, INDEX[res]])

    def stop(res: Result, throws: int, stake: int) -> float:
        return at(values.utility(limit - throws), res, stake)

    bot, compared, forced, bons = OptimalBot(), 0, 0, 0
    walked, found = searched(state, stop)
    for (res, throws, stake), (v, decision) in found.items():
        assert at(values.values[limit - throws], res, stake) == pytest.approx(v, abs=1e-12), (res, throws)
        legal = legal_actions(decision)
        played = bot.choose(decision)
        assert played in legal
        forced += Stop() not in legal
        bons += isinstance(played, Throw) and played.bon
        compared += 1
    begun = values.start(limit)[row]  # the follower's turn before its first throw
    if isinstance(values, StakedValues):  # at the leader's stake: each throw before worth 1, then the result
        begun = begun[min(int(token_values(rules)[row]) + len(earlier), cap)]
    assert float(begun) == pytest.approx(walked, abs=1e-12)
    assert compared > 50 and (forced > 0) == throws_on
    if staked and lead == ("421", 3):
        assert bons > 0  # « le bon » ends a turn whose next throw would add to the stake


STAKED = Ruleset.preset("lyonnaise-21").with_options(must_throw_on=True, pot=5)
# the stakes after the leader's throws (6 and 12) pass a pot of 2 as they passed 3
COUNTED_STAKED = Ruleset.preset("engranjeu-21").with_options(
    must_throw_on=True, pot=2, accumulated_stakes=True, charge_throws=3
)
# its décharge of three holds 2, 1 and 1 tokens: each may be behind, as with more
CLASSIC = Ruleset.preset("classic-11").with_options(must_throw_on=True, pot=4)


@pytest.mark.parametrize(
    ("rules", "finals", "phase"),
    [
        (CLASSIC, ("421",), Phase.DECHARGE),
        (CLASSIC, ("631", "432"), Phase.DECHARGE),
        # « qui barre démarre » without « le bon »: an equal result in fewer throws is ahead (2, 1 and 1
        # tokens in the décharge, as above)
        (
            Ruleset.preset("engranjeu-21").with_options(must_throw_on=True, le_bon=False, pot=4),
            ("421",),
            Phase.DECHARGE,
        ),
        # and with it: a throw counts, so « le bon » can be worth more than throwing on (a pot of 5:
        # the décharge of three holding 3, 1 and 1, where it is)
        (Ruleset.preset("engranjeu-21").with_options(must_throw_on=True, pot=5), ("421",), Phase.DECHARGE),
        (
            Ruleset.preset("engranjeu-21").with_options(must_throw_on=True, pot=5),
            ("653", "542"),
            Phase.DECHARGE,
        ),
        # every throw adds to the stake: « le bon » keeps it from growing
        (STAKED, ("421",), Phase.CHARGE),
        (STAKED, ("542", "631"), Phase.CHARGE),
        # both: each throw of the charge counted and added to the stake
        (COUNTED_STAKED, ("421",), Phase.CHARGE),
        (COUNTED_STAKED, ("542", "631"), Phase.CHARGE),
    ],
    ids=[
        "behind-421",
        "last",
        "qui-barre",
        "le-bon",
        "le-bon-last",
        "staked",
        "staked-last",
        "counted-staked",
        "counted-staked-last",
    ],
)
def test_three_players_whole_game_turns_are_worth_what_the_engine_s_legal_actions_make_it(
    rules, finals, phase, private_home, shared_solutions
):
    """The whole game of three: each decision of a player behind, searched through the engine with
    what stopping is worth in the solved game (by the stake so far where every throw adds to it), is
    worth the game solver's value to 1e-12, and what bot:optimal plays there (the compiled turns'
    choice) is a legal action worth the most."""
    players = 3
    solved_here(rules, players, shared_solutions)  # a minute and more for some: solved once
    strategy = strategy_for(rules, players)
    assert strategy.covering == "game_maxn"
    state = start_of(rules, players, phase)
    staked = phase is Phase.CHARGE and rules.accumulated_stakes
    earlier = tuple(Result.parse(t) for t in ("651", "661")) if staked else ()  # each worth 1 to the stake
    for text in finals:  # the leader took three throws
        state = apply_turn(state, ReportedTurn(Result.parse(text), 3, earlier))
    game = strategy.game  # type: ignore[attr-defined]
    key, p, _ = game.locate(state)
    shape = game_maxn.shape_of(rules, players, staked)
    place, limit = len(finals), 3
    summary = game_maxn.summary_of(shape, [(Result.parse(t), 3) for t in finals])
    stops = game_maxn.stops_at(game.model, p, game.manches[key].values, place, summary, limit)

    def stop(result: Result, throws: int, stake: int) -> float:
        at = stops[limit - throws]
        return float(at[INDEX[result], min(stake, at.shape[1] - 1)] if staked else at[INDEX[result]])

    bot, compared, forced, bons = OptimalBot(), 0, 0, 0
    _, found = searched(state, stop)
    for (result, throws, stake), (v, decision) in found.items():
        ranked = dict(strategy.choices(decision))  # one minus a share: 1 + the values searched
        assert max(ranked.values()) == pytest.approx(1 + v, abs=1e-12), (result, throws, stake)
        played = bot.choose(decision)
        assert ranked[played] == pytest.approx(1 + v, abs=1e-12), (result, throws, stake, played)
        forced += Stop() not in legal_actions(decision)
        bons += isinstance(played, Throw) and played.bon
        compared += 1
    assert compared > 50 and forced > 0
    if rules.le_bon and rules.tie_break == "qui_barre_demarre" and finals == ("421",):
        assert bons > 0  # a throw counts: « le bon » is worth more than throwing on somewhere
