"""examples/q_learning_turn.py learns, with a small budget, most of the solver's value."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from py421.core.dice import Result
from py421.core.rules import Ruleset
from py421.solver.turn import odds

EXAMPLE = Path(__file__).parents[1] / "examples" / "q_learning_turn.py"


def test_q_learning_prints_its_value_the_optimum_and_the_gap():
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--episodes", "8000", "--seed", "0"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    out = done.stdout

    def number(pattern):
        found = re.search(pattern + r"(-?[\d.]+)$", out, re.M)
        assert found, f"{pattern!r} is not in the output:\n{out}"
        return float(found[1])

    learned = number(r"^learned policy: P\(win\) = ")
    best = number(r"^optimal \(solver\): P\(win\) = ")
    gap = number(r"^gap: ")
    table = Ruleset.preset("classic-11").table
    assert best == round(odds(table, Result.parse("311"), 3), 4)
    assert gap == pytest.approx(best - learned, abs=2e-4)
    assert 0 <= gap < 0.1
    assert learned > odds(table, Result.parse("311"), 2)  # it learned to use the third throw
