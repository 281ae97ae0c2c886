"""Write docs/screenshot.svg: the terminal UI in the middle of a seeded game.

Runs the app headless with Alice against two heuristic bots (classic-11),
lets the bots play until Alice has dice to decide on in the décharge (where
three throws make the choice interesting), keeps one die, and saves the
screen. The seed makes the picture the same on every run.

    .venv/bin/python scripts/screenshot.py [OUTPUT.svg]
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from py421.core.rules import Ruleset
from py421.core.state import Phase
from py421.play.session import Session, parse_seats
from py421.tui import PlayApp

ROOT = Path(__file__).resolve().parent.parent
SIZE = (110, 34)
MAX_PAUSES = 20_000


async def shoot(out: Path) -> None:
    session = Session(
        Ruleset.preset("classic-11"),
        parse_seats(["Alice", "bot:heuristic", "bot:heuristic"]),
        seed="screenshot",
    )
    app = PlayApp(session, bot_delay=0)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(MAX_PAUSES):
            await pilot.pause()
            state = session.state
            if session.human_to_throw() is not None:
                await pilot.press("t")
            elif session.human_to_move() is not None:
                r = state.round
                ready = state.phase is Phase.DECHARGE and r is not None and r.done and r.tie is None
                if ready:
                    break
                await pilot.press("s")
        else:
            raise SystemExit("the game never reached a human decision in the décharge")
        await pilot.press("1")
        await pilot.pause()
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(app.export_screenshot(title="py421 — 421 play"), encoding="utf-8")
    print(f"wrote {out}")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshot.svg"
    asyncio.run(shoot(out))


if __name__ == "__main__":
    main()
