"""The two-player décharge's sweeps, foretold by py421.solver.cost against those the solver takes.

Run: .venv/bin/python benchmarks/decharge_sweeps.py

Every preset, then pots of 5 to 31, one to three throws, large values, penalties and starting
tokens: for each, the sweeps ``HeadsUp.solve_decharge`` took, those ``decharge_sweeps`` foretold,
and the time of the décharge alone. The last line: how many were foretold fewer than they took
(a progress bar's "at most" would be wrong there) and the range of foretold / taken.
"""

from __future__ import annotations

import time

from py421.core.rules import Ruleset, preset_names
from py421.solver.cost import decharge_sweeps
from py421.solver.heads_up import HeadsUp


def rulesets() -> list[Ruleset]:
    found = [Ruleset.preset(name) for name in preset_names()]
    for preset in ("classic-11", "kytionnaire", "comptoir-21", "engranjeu-21", "lyonnaise-21"):
        for pot in (5, 8, 13, 21, 31):
            found.append(Ruleset.preset(preset).with_options(pot=pot))
    classic, engranjeu = Ruleset.preset("classic-11"), Ruleset.preset("engranjeu-21")
    for pot in (6, 11, 21):
        found.append(classic.with_options(pot=pot, decharge_throws=1, le_bon=False))
        found.append(classic.with_options(pot=pot, decharge_throws=2))
        found.append(classic.with_options(pot=pot, value_421=30, value_111=20))
        found.append(classic.with_options(pot=pot, nenette_penalty=4))
        found.append(classic.with_options(pot=pot, initial_tokens=2))
        found.append(engranjeu.with_options(pot=pot, initial_tokens=2, nenette_penalty=2))
    return found


def main() -> None:
    ratios: list[float] = []
    fewer = 0
    print(f"{'rules':90} {'taken':>6} {'foretold':>9} {'seconds':>8}")
    for rules in rulesets():
        began = time.perf_counter()
        solver = HeadsUp(rules).solve_decharge()
        took = time.perf_counter() - began
        foretold = decharge_sweeps(rules)
        ratios.append(foretold / solver.iterations)
        fewer += foretold < solver.iterations
        print(f"{rules!s:90} {solver.iterations:6} {foretold:9} {took:8.2f}", flush=True)
    print(
        f"{len(ratios)} rulesets: foretold fewer than taken in {fewer}; "
        f"foretold / taken from {min(ratios):.2f} to {max(ratios):.2f}"
    )


if __name__ == "__main__":
    main()
