"""Exact values of a two-player ``python_421`` game, by value iteration over its states.

OpenSpiel's ``value_iteration`` lists the decision states only and looks through
chance states by recursion. In 421 chance states follow one another for whole
rounds (coups secs, tie-breaks), so every sequence of throws between two
decisions is walked as a tree, and a tie-break that ties again comes back to
the same chance state with no decision in between: a cycle that recursion
never leaves. Here every state, chance states included, is listed once by its
text (the engine's state without its history, so the décharge's repeated
positions are one state); values are then iterated with ``value_iteration``'s
update (the best for player 0, the worst for player 1) and the average at
chance states. See docs/openspiel.md.

``python -m py421.envs.openspiel_values --options "pot:1;..."`` solves a game
and compares it with :mod:`py421.solver.heads_up`.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from ..core.errors import InvalidPlayers, InvalidRuleset, Message, Py421Error
from ..core.rules import Ruleset
from ..core.state import Phase, State
from ..i18n import error_text, tr
from ..solver.heads_up import HeadsUp
from .openspiel import load

CHANCE = "chance"
TERMINAL = "terminal"


@dataclass
class Node:
    """One state: who acts (a seat, chance or terminal) and where each move leads."""

    actor: int | str
    children: list[tuple[str, float]] = field(default_factory=list)  # (state text, probability)
    payoff: float = 0.0  # player 0's return at a terminal state


@dataclass
class Graph:
    """Every state reachable from the start, by text."""

    root: str
    nodes: dict[str, Node]
    rounds: dict[str, State]  # the states where a round starts (what heads_up values)
    edges: int


def explore(start: Any) -> Graph:
    """Every state reachable from ``start`` (an OpenSpiel state), each once.

    The walk keeps its own stack: a path through the game is longer than
    Python's recursion allows.
    """
    players = start.get_game().num_players()
    if players != 2:
        raise InvalidPlayers(Message("envs.openspiel_values.two_players", {"players": players}))
    nodes: dict[str, Node] = {}
    rounds: dict[str, State] = {}
    stack = [start]
    seen = {str(start)}
    edges = 0
    while stack:
        state = stack.pop()
        key = str(state)
        if _round_start(state.state):
            rounds[key] = state.state
        if state.is_terminal():
            nodes[key] = Node(TERMINAL, payoff=state.returns()[0])
            continue
        if state.is_chance_node():
            node = Node(CHANCE)
            moves = state.chance_outcomes()
        else:
            node = Node(state.current_player())
            moves = [(action, 1.0) for action in state.legal_actions()]
        for action, p in moves:
            child = state.child(action)
            edges += 1
            child_key = str(child)
            node.children.append((child_key, p))
            if child_key not in seen:
                seen.add(child_key)
                stack.append(child)
        nodes[key] = node
    return Graph(str(start), nodes, rounds, edges)


def _round_start(state: State) -> bool:
    r = state.round
    return r is not None and not r.done and r.throws == 0 and r.tie is None


def iterate(graph: Graph, tolerance: float = 1e-13, sweeps: int = 100_000) -> tuple[dict[str, float], int]:
    """Player 0's value of every state, and the sweeps it took.

    Sweeps go from the deepest states found back to the start, each using the
    values already updated (Gauss-Seidel), until none moves by ``tolerance``.
    """
    values = {key: node.payoff for key, node in graph.nodes.items()}
    order = [(key, node) for key, node in reversed(graph.nodes.items()) if node.actor != TERMINAL]
    for sweep in range(1, sweeps + 1):
        change = 0.0
        for key, node in order:
            if node.actor == CHANCE:
                value = sum(p * values[child] for child, p in node.children)
            elif node.actor == 0:
                value = max(values[child] for child, _ in node.children)
            else:
                value = min(values[child] for child, _ in node.children)
            change = max(change, abs(value - values[key]))
            values[key] = value
        if change <= tolerance:
            return values, sweep
    raise RuntimeError(
        str(Message("envs.openspiel_values.unsettled", {"change": f"{change:.3g}", "sweeps": sweeps}))
    )


@dataclass(frozen=True)
class Agreement:
    """Value iteration against the two-player solver at the start of every round."""

    positions: int
    max_difference: float  # largest |P(seat 0 loses)| difference
    root: float  # P(seat 0 loses the game), from the start, by value iteration
    solver_root: float  # the same from heads_up


def compare(graph: Graph, values: dict[str, float], solver: HeadsUp) -> Agreement:
    """Compare P(seat 0 loses) with ``solver`` wherever a round starts.

    Player 0's value is 1 - 2 P(seat 0 loses) (returns are +1 and -1).
    """
    one_manche(solver.rules)
    worst = 0.0
    for key, state in graph.rounds.items():
        loses = (1 - values[key]) / 2
        t0, leader = state.tokens[0], state.leader
        if state.phase is Phase.CHARGE:
            solved = solver.charge[state.pot][t0, leader]
        else:
            solved = solver.decharge[t0, leader]
        worst = max(worst, abs(loses - float(solved)))
    start = solver.start()
    # seat 0 leads the first round, or a fair draw between the two seats decides who does
    solver_root = float(start[0] if solver.rules.first_player == "first_seat" else start.mean())
    return Agreement(len(graph.rounds), worst, (1 - values[graph.root]) / 2, solver_root)


def one_manche(rules: Ruleset) -> None:
    """heads_up values a manche: only a game of one manche can be compared with it."""
    if rules.manches != 1 or rules.fiches_de_manche:
        raise InvalidRuleset(Message("envs.openspiel_values.one_manche"))


# -- OpenSpiel's own value_iteration, where it can run -------------------------------


def openspiel_value_iteration(game: Any, threshold: float = 1e-13) -> dict[str, float]:
    """OpenSpiel's ``value_iteration`` as is: player 0's value of each decision and end state.

    Only for rulesets where every cycle passes through a decision and chance
    sequences are short (docs/openspiel.md). Its module imports OpenSpiel's LP
    solver (for simultaneous moves, which 421 has none of), which needs cvxpy;
    without cvxpy a stand-in that fails if used takes its place.
    """
    if "cvxpy" not in sys.modules and importlib.util.find_spec("cvxpy") is None:
        sys.modules["cvxpy"] = _Unavailable("cvxpy")
    from open_spiel.python.algorithms import value_iteration

    try:
        values: dict[str, float] = value_iteration.value_iteration(game, -1, threshold, cyclic_game=True)
    except RecursionError:
        raise InvalidRuleset(Message("envs.openspiel_values.recursion")) from None
    return values


class _Unavailable(ModuleType):
    """A missing module whose names can be read at import time but fail when used."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Unavailable(f"{self.__name__}.{name}")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise ImportError(str(Message("envs.openspiel_values.no_cvxpy", {"name": self.__name__})))


def expected_from(state: Any, values: dict[str, float], reach: float = 1.0) -> float:
    """Player 0's value of a chance state from the values of the states after it."""
    if not state.is_chance_node():
        return reach * values[str(state)]
    return sum(expected_from(state.child(o), values, reach * p) for o, p in state.chance_outcomes())


# -- the command -------------------------------------------------------------------


def main(argv: Sequence[str] | None = None, out: Callable[[str], None] = print) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m py421.envs.openspiel_values",
        description="Solve a two-player python_421 game by value iteration and compare with heads_up.",
    )
    parser.add_argument("--preset", default="classic-11")
    parser.add_argument(
        "--options", default="", help="OPTION:VALUE pairs separated by ';' (manches:1 needed)"
    )
    parser.add_argument(
        "--openspiel", action="store_true", help="also run OpenSpiel's own value_iteration (small games only)"
    )
    args = parser.parse_args(argv)
    try:
        game = load(args.preset, 2, args.options)
        one_manche(game.rules)
        solver = HeadsUp(game.rules)  # says now if it cannot solve these rules
    except Py421Error as exc:  # a bad preset or option, rules it cannot compare: one line, as 421 says it
        print(tr("en", "cli.error", message=error_text("en", exc)), file=sys.stderr)
        return 2
    began = time.perf_counter()
    graph = explore(game.new_initial_state())
    values, sweeps = iterate(graph)
    agreement = compare(graph, values, solver.solve())
    out(f"game: {game}")
    out(f"states: {len(graph.nodes)}, moves: {graph.edges}, sweeps: {sweeps}")
    out(f"P(seat 0 loses): value iteration {agreement.root:.15f}, heads_up {agreement.solver_root:.15f}")
    out(f"round starts compared: {agreement.positions}, largest difference: {agreement.max_difference:.3g}")
    if args.openspiel:
        try:
            own = openspiel_value_iteration(game)
        except ValueError as exc:
            out(f"OpenSpiel value_iteration: {exc}")
        else:
            root = (1 - expected_from(game.new_initial_state(), own)) / 2
            gap = abs(root - agreement.solver_root)
            out(f"OpenSpiel value_iteration: P(seat 0 loses) {root:.15f}, difference {gap:.3g}")
    out(f"time: {time.perf_counter() - began:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
