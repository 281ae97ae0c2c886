"""Players behind must throw on (``must_throw_on``), and « le bon » makes a throw final: the round
solver's turns are held to the engine's legal actions, state by state, and ``421 advise`` values them
(bot:optimal's games are replayed in the simulator: ``tests/test_fast_sim.py``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
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
from py421.solver.rounds import FRESH, OBJECTIVES, SELF, STOP, play_turn, solve_round
from py421.solver.tables import INDEX, KEEPS, KEEPS_OF, RESULTS, TRANSITIONS

from .test_solver_rounds import start_of

# Rampots, not « qui barre démarre »: the round solver does not compare throw counts (docs/strategy.md).
THROW_ON = Ruleset.preset("engranjeu-21").with_options(must_throw_on=True, tie_break="rampot")
START = start_of(Ruleset.preset("engranjeu-21"), 3, Phase.DECHARGE)


def searched(state: State, stop: Sequence[float]) -> dict[tuple[Result, int], tuple[float, State]]:
    """The mover's value at every decision of their turn from ``state`` (dice just thrown), by the
    engine's legal actions and its ends of turn (a turn ended on a result is worth ``stop`` there),
    with the decision's state."""
    r = state.round
    assert r is not None
    seat, done = state.to_move, len(r.done)
    found: dict[tuple[Result, int], tuple[float, State]] = {}

    def held(s: State) -> bool:  # still the mover's turn, at a decision
        rs = s.round
        return rs is not None and rs.tie is None and len(rs.done) == done and deciding_seat(s) == seat

    def worth(s: State, action: Action) -> float:
        if isinstance(action, Stop):
            return stop[INDEX[Result.of(s.round.dice)]]  # type: ignore[union-attr]
        assert isinstance(action, Throw)
        thrown = apply_action(s, action)
        assert thrown.chance is not None
        total = 0.0
        for faces, p in throw_outcomes(thrown.chance.count):
            after = apply_dice(thrown, faces)
            ended = Result.of(action.keep + faces)
            total += float(p) * (value(after) if held(after) else stop[INDEX[ended]])
        return total

    def value(s: State) -> float:
        rs = s.round
        assert rs is not None
        key = (Result.of(rs.dice), rs.throws)
        if key not in found:
            found[key] = (max(worth(s, a) for a in legal_actions(s)), s)
        return found[key][0]

    value(state)
    return found


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
    stop = [float(v) for v in turn.stop[0][row]]
    first = state.chance
    assert first is not None and state.round is not None and not state.round.dice
    compared = forced = bons = 0
    start = 0.0
    for faces, p in throw_outcomes(first.count):
        thrown = apply_dice(state, faces)
        found = searched(thrown, stop)
        start += float(p) * found[(Result.of(faces), 1)][0]
        for (result, throws), (v, at) in found.items():
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
    assert "dire « le bon », garder 42, relancer 1 : le dernier lancer" in french.output
