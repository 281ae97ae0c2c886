"""Write src/py421/server/static/protocol.d.ts, the page's types, from the server's protocol.

Run it after changing a model of ``py421.server.protocol``; ``tests/test_page.py`` fails until
the file is written again, and ``scripts/check`` then type-checks the page against it.

    .venv/bin/python scripts/page_types.py
"""

from __future__ import annotations

from pathlib import Path

from py421.server.protocol import typescript

TYPES = Path(__file__).resolve().parent.parent / "src" / "py421" / "server" / "static" / "protocol.d.ts"

if __name__ == "__main__":
    TYPES.write_text(typescript(), encoding="utf-8")
