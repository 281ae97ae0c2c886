"""The last manche of a whole game by max^n, solved alone: how long it takes and how it settles.

Run: .venv/bin/python benchmarks/last_manche.py [--players N] [--rules P] [--set KEY=VALUE ...]

The last manche is the first that ``GameMaxn.solve`` solves (the first manche's ends are the values
of its starts), with its ends as the game gives them: the first manche's loser is seat 0. Where a
whole solve takes over an hour (three-player ``vache-41`` under « queue de la vache »), this times
the part of it that a change to how manches are solved moves, without the rest.
"""

from __future__ import annotations

import argparse
import resource
import time

from py421.core.rules import Ruleset
from py421.solver.game_maxn import GameMaxn, solve_manche


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--rules", default="vache-41")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args()
    rules = Ruleset.preset(args.rules).with_settings(args.set)
    began = time.perf_counter()
    game = GameMaxn(rules, args.players)
    key = game._contexts()[0]
    model = game.model_of(key)
    charge, decharge = model.counts()
    print(f"{rules}, {args.players} players, the manche {key} (the last):", flush=True)
    print(
        f"  {charge} charge and {decharge} décharge positions, built in {time.perf_counter() - began:.0f} s"
    )
    began = time.perf_counter()
    solution = solve_manche(model, game.end_values(*key), owing=game.owing_values(*key))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  solved in {time.perf_counter() - began:.0f} s, peak {peak:,.0f} MB", end="")
    print(f"; décharge sweeps {solution.sweeps}, settled: {solution.converged}")


if __name__ == "__main__":
    main()
