"""docs/playing.md says what it measured, and the measure is still what it says."""

import re
from pathlib import Path

from .helpers import simulated

PLAYING = (Path(__file__).parents[1] / "docs" / "playing.md").read_text(encoding="utf-8")
COMMAND = "421 simulate --players bot:heuristic,bot:random --games 100000 --json"


def percent(x: float) -> str:
    return f"{100 * x:.1f} %"


def test_the_heuristic_bot_against_random_is_measured_as_documented():
    (paragraph,) = (" ".join(block.split()) for block in PLAYING.split("\n\n") if COMMAND in block)
    data = simulated("classic-11", ("heuristic", "random"), 100_000)  # the command's seed: 0
    games = data["games"]
    heuristic, random = (seat["losses"] for seat in data["seats"])
    shared = data["outcomes"]["shared"]
    documented = {
        "heuristic loses": percent(heuristic / games),
        "random loses": percent(random / games),
        "shared": percent(shared / games),
        "heuristic alone": percent((heuristic - shared) / games),
        "heuristic does not lose, a shared loss counting half": percent(
            (games - heuristic + shared / 2) / games
        ),
    }
    missing = {what: n for what, n in documented.items() if n not in paragraph}
    assert not missing, f"docs/playing.md should say {missing}:\n{paragraph}"
    assert re.search(r"shared loss as a loss for (both|each)", paragraph)
