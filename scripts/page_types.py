"""Write the generated modules: the page's static/protocol.d.ts from the server's protocol and
static/messages.js from the catalog (py421.i18n), and the server's outbound.py (what it sends, as
TypedDicts) from the protocol.

Run it after changing a model of ``py421.server.protocol`` or a message; ``tests/test_page.py``
fails until the files are written again, and ``scripts/check`` then type-checks the page against them.

    .venv/bin/python scripts/page_types.py
"""

from __future__ import annotations

from pathlib import Path

from py421.i18n import page_module
from py421.server.protocol import typed_dicts, typescript

STATIC = Path(__file__).resolve().parent.parent / "src" / "py421" / "server" / "static"

if __name__ == "__main__":
    (STATIC / "protocol.d.ts").write_text(typescript(), encoding="utf-8")
    (STATIC / "messages.js").write_text(page_module(), encoding="utf-8")
    (STATIC.parent / "outbound.py").write_text(typed_dicts(), encoding="utf-8")
