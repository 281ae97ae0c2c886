"""Engine steps a second: whole games through ``State.apply`` and ``State.apply_dice``, and tie-breaks.

Run: .venv/bin/python benchmarks/engine_steps.py [--games 100] [--repeat 5]
Each case plays ``--games`` games of a preset with dice drawn from a seeded
``random.Random`` and a bot that picks one of the legal actions at random
(seeded too), so every run plays the same steps. The tie-heavy case does what
the walks of tests/test_solver_game_maxn.py do: from each tie-break (and each
round of coups secs) met in games of three players, it applies every sequence
of a few results to the same state, many of which tie again. The CPU time of
each case is the best of ``--repeat`` runs (others share the machine); the
digest of every state's events, round and tokens changes only if the
engine's behaviour does.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import random
import time
from collections.abc import Callable
from typing import Any

from py421.core.engine import new_game
from py421.core.rules import Ruleset
from py421.core.state import State

# (name, rules, players)
CASES: list[tuple[str, Ruleset, int]] = [
    ("classic-11", Ruleset.preset("classic-11"), 3),
    (
        "engranjeu-21, accumulated stakes (main chaude)",
        Ruleset.preset("engranjeu-21").with_options(accumulated_stakes=True),
        3,
    ),
    ("vache-41, queue de la vache", Ruleset.preset("vache-41").with_options(queue_de_la_vache=True), 3),
    ("lyonnaise-21", Ruleset.preset("lyonnaise-21"), 3),
]
# Coups secs of three players: every round a chance of a tie-break, as in the walks.
TIE_RULES = Ruleset.preset("engranjeu-21").with_options(
    pot=3, decharge_throws=1, le_bon=False, value_simple=2, value_suite=2, value_nenette=2
)
# Results that tie often and cover nénette, a suite, x11, a brelan and simples.
TIE_FACES = [(4, 2, 1), (2, 2, 1), (6, 5, 4), (6, 1, 1), (3, 3, 3), (6, 4, 2), (5, 3, 2)]
FACES = (1, 2, 3, 4, 5, 6)
Digest = Any  # a hashlib object (typeshed's class is private)


def play(rules: Ruleset, players: int, seed: int, seen: Callable[[State], None]) -> int:
    """One game with seeded dice and random legal actions; returns the steps applied."""
    rng = random.Random(seed)
    state = new_game(rules, [f"P{i}" for i in range(players)])
    steps = 0
    while not state.is_over:
        request = state.chance
        if request is not None:
            state = state.apply_dice(tuple(rng.choice(FACES) for _ in range(request.count)))
        else:
            actions = state.legal_actions()
            state = state.apply(actions[rng.randrange(len(actions))])
        steps += 1
        seen(state)
    return steps


def games(rules: Ruleset, players: int, n: int, digest: Digest | None) -> int:
    def seen(state: State) -> None:
        if digest is not None:
            digest.update(repr((state.events, state.round, state.draw, state.tokens, state.debts)).encode())

    return sum(play(rules, players, seed, seen) for seed in range(n))


def tie_nodes(n: int) -> list[State]:
    """Round starts and tie-breaks awaiting their first throw, met in ``n`` games of :data:`TIE_RULES`."""
    nodes: list[State] = []

    def seen(state: State) -> None:
        r = state.round
        if r is None or state.to_move is not None:
            return
        if (r.tie is not None and not r.tie.draw.thrown) or (not r.done and r.throws == 0):
            nodes.append(state)

    for seed in range(n):
        play(TIE_RULES, 3, seed, seen)
    return nodes


def tie_breaks(nodes: list[State], digest: Digest | None) -> int:
    """Every sequence of :data:`TIE_FACES` from each node, as the walks play endings; returns the steps."""
    steps = 0
    for node in nodes:
        r = node.round
        assert r is not None
        throwers = len(r.order) if r.tie is None else len(r.tie.draw.seats)
        for sequence in itertools.product(TIE_FACES, repeat=throwers):
            child = node
            for faces in sequence:
                child = child.apply_dice(faces)
            steps += throwers
            if digest is not None:
                digest.update(repr((child.events, child.round, child.tokens)).encode())
    return steps


def best_of(repeat: int, run: Callable[[Digest | None], int]) -> tuple[float, int, str]:
    """The least CPU time of ``repeat`` runs, the steps of one, and the digest of what they did (in a
    run of its own, untimed: writing every state out costs more than the steps)."""
    digest = hashlib.sha256()
    run(digest)
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        steps = run(None)
        best = min(best, time.process_time() - start)
    return best, steps, digest.hexdigest()[:12]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games of each preset")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each case, the best kept")
    args = parser.parse_args()
    print("| case | steps | best CPU s | steps/s | digest |")
    print("|---|---|---|---|---|")
    total_time = total_steps = 0.0
    for name, rules, players in CASES:
        took, steps, digest = best_of(args.repeat, lambda d: games(rules, players, args.games, d))  # noqa: B023
        total_time, total_steps = total_time + took, total_steps + steps
        print(f"| {name}, {players} players | {steps:,} | {took:.3f} | {steps / took:,.0f} | {digest} |")
    nodes = tie_nodes(max(1, args.games // 10))
    took, steps, digest = best_of(args.repeat, lambda d: tie_breaks(nodes, d))
    total_time, total_steps = total_time + took, total_steps + steps
    name = f"tie-heavy: {len(nodes)} nodes, every sequence"
    print(f"| {name} | {steps:,} | {took:.3f} | {steps / took:,.0f} | {digest} |")
    print(f"| all | {total_steps:,.0f} | {total_time:.3f} | {total_steps / total_time:,.0f} | |")


if __name__ == "__main__":
    main()
