"""How far each round's choices are from changing, in the décharges after a debt (« queue de la vache »).

Run: .venv/bin/python benchmarks/decision_margins.py [--rounds 150]

Three-player ``vache-41`` with « queue de la vache » solves its first manche's décharge again for each
debt the charge may leave, four to seven sweeps of every round each (docs/strategy.md). A sweep could
leave a round unsolved where no choice in it can change: each choice compares what the options are
worth to the mover, each a mean of the values the round leads to, so values that moved by at most
``d`` since the round was last solved move each side of a comparison by at most ``d``, and a choice
whose comparison is decided by more than ``2 d`` stands. This measures that margin.

It solves the game as ``421 solve`` does until the first décharge after a debt starts, then, for
``--rounds`` of its rounds drawn at random, every choice of every player in the round (the leader's,
and each follower's after every result before theirs): the margin of a round is the least over its
choices by which the comparison that decided it went the way it did. Options worth exactly the same
(within 1e-13) are left out, as if they stayed tied. Then it lets that décharge's sweeps run and
prints the largest change of each and its time: a sweep may leave out the rounds whose margin
exceeds twice the change of the sweeps since they were solved.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import numpy as np

from py421.core.rules import Ruleset
from py421.solver import game_maxn
from py421.solver.game_maxn import GameMaxn, Manche, MancheSolution, shape_of, stop_values
from py421.solver.rounds import EPS, KEEP_CHOICES
from py421.solver.tables import TRANSITIONS, FloatArray

TIED = 1e-13  # options this close are taken to be worth the same whatever the values


def choice_margins(stops: list[FloatArray]) -> FloatArray:
    """``stops[r][context, result]``: what stopping is worth with ``r`` throws left; the margin of each
    context's choices with 1 to ``len(stops) - 1`` throws left, chosen as the solver does (stop within
    EPS of the best throw, else the first keep within EPS of the best)."""
    own = stops[0]
    margin = np.full(own.shape[0], np.inf)
    columns = np.arange(KEEP_CHOICES.shape[1])
    for stop in stops[1:]:
        options = (own @ TRANSITIONS.T)[:, KEEP_CHOICES]  # [context, result, keep]
        best = options.max(axis=-1)
        line = best - EPS
        first = np.argmax(options >= line[..., None], axis=-1)
        chosen = np.take_along_axis(options, first[..., None], -1)
        # keeps before the one chosen stay under the line; the one chosen stays over every other
        under = np.where(columns < first[..., None], line[..., None] - options, np.inf).min(axis=-1)
        tied = np.abs(options - chosen) < TIED
        over = np.where(tied, np.inf, chosen + EPS - options).min(axis=-1)
        stopping = np.where(np.abs(stop - best) < TIED, np.inf, np.abs(stop - line))
        stops_here = stop >= line
        each = np.where(stops_here, stopping, np.minimum(stopping, np.minimum(under, over)))
        margin = np.minimum(margin, each.min(axis=-1))
        own = np.where(stops_here, stop, best)
    return margin


def round_margin(manche: Manche, p: int, values: FloatArray) -> float:
    """The least margin of every choice in the round at position ``p`` (a décharge round)."""
    rules = manche.rules
    pos = manche.positions[p]
    order = pos.order()
    shape = shape_of(rules, len(order))
    assert shape.throws == 1 and not shape.ahead, "a plain décharge round"
    most = rules.throws_allowed(pos.charge)
    payoff = manche.payoff(p, values)
    memo: Any = {}
    args = (shape, payoff, order, most, rules.leader_limit)
    least = float(choice_margins([s[None, :] for s in stop_values(*args, 0, 0, most, memo)]).min())
    limits = range(2, most + 1) if rules.leader_limit else [most]
    for place in range(1, len(order)):
        for limit in limits:
            summaries = len(shape.steps[place - 1])
            each = [stop_values(*args, place, c, limit, memo) for c in range(summaries)]
            stops = [np.stack([s[r] for s in each]) for r in range(limit)]
            least = min(least, float(choice_margins(stops).min()))
    return least


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=150, help="rounds drawn from the décharge")
    asked = parser.parse_args()
    rules = Ruleset.preset("vache-41").with_settings(["queue_de_la_vache=true"])
    began = time.perf_counter()
    settle = game_maxn._settle_decharge
    largest: list[float] = []  # each pass's largest change, in the first décharge after a debt

    def first_debt(
        manche: Manche,
        rows: list[int],
        orbits: Any,
        moves: Any,
        solution: MancheSolution,
        progress: Any,
        accelerate: bool,
        exact: bool = False,
        changes: list[float] | None = None,
        swept: Any = None,
    ) -> Any:
        rest = (manche, rows, orbits, moves, solution, progress, accelerate, exact)
        if not exact:  # a décharge owing nothing (one after a debt starts from the exact values)
            return settle(*rest, changes, swept)
        print(f"the first décharge after a debt: {len(rows)} rounds, at {time.perf_counter() - began:.0f} s")
        drawn = np.random.default_rng(0).choice(rows, min(asked.rounds, len(rows)), replace=False)
        margins = np.array([round_margin(manche, int(p), solution.values) for p in drawn])
        print(f"margins of {len(drawn)} rounds drawn at random (quantiles 0, 10, 25, 50, 75, 90, 100 %):")
        print("  " + "  ".join(f"{m:.1e}" for m in np.quantile(margins, [0, 0.1, 0.25, 0.5, 0.75, 0.9, 1])))
        for size in (1e-9, 1e-8, 1e-7, 1e-6, 1e-5):
            print(f"  over {size:.0e}: {np.mean(margins > size):.0%} of the rounds")
        settled = settle(*rest)
        print("that décharge's sweeps, the largest change of each:", " ".join(f"{c:.1e}" for c in largest))
        print(
            "  and the seconds each took (with the exact values after it):",
            " ".join(f"{t:.1f}" for t in took),
        )
        sys.exit(0)
        return settled

    took: list[float] = []
    last = [time.perf_counter()]

    def progress(stage: str, step: int, total: int, sweep: Any = None, /) -> None:
        now = time.perf_counter()
        if stage == "decharge" and sweep is not None:
            largest.append(sweep.change)
            took.append(now - last[0])
        if stage in ("debts", "decharge"):
            last[0] = now
        if stage == "debts":
            largest.clear()
            took.clear()

    game_maxn._settle_decharge = first_debt
    GameMaxn(rules, 3).solve(progress)


if __name__ == "__main__":
    main()
