"""What the page's worker calls: one JSON request in, one JSON answer out.

``{"op": "http", "method", "path", "body", "lang"}`` answers a request as the server
would (``status``, ``data``); ``{"op": "socket", "code", "message", "lang"}`` answers a
socket message (``message``); both say which tables changed (``saves``), for the
page to keep. ``{"op": "restore", "saves"}`` brings kept tables back; ``{"op": "forget",
"code"}`` drops one (the page deletes its save).
"""

from __future__ import annotations

import json
from typing import Any

from .local import LocalTables

TABLES = LocalTables()


def handle(request: str) -> str:
    """The answer to one request of the page, as JSON text."""
    try:
        asked = json.loads(request)
    except ValueError:
        asked = None
    if not isinstance(asked, dict):
        return json.dumps({"error": "a request is a JSON object with an 'op'"})
    return json.dumps(_answer(asked), ensure_ascii=False)


def _answer(asked: dict[str, Any]) -> dict[str, Any]:
    op, lang = asked.get("op"), asked.get("lang", "en")
    if op == "http":
        status, data, saves = TABLES.request(
            str(asked.get("method")), str(asked.get("path")), asked.get("body"), lang
        )
        return {"status": status, "data": data, "saves": saves}
    if op == "socket":
        message, saves = TABLES.receive(str(asked.get("code")), asked.get("message"), lang)
        return {"message": message, "saves": saves}
    if op == "restore":
        kept = asked.get("saves")
        return {"problems": TABLES.restore(kept if isinstance(kept, list) else [])}
    if op == "forget":
        return {"forgotten": TABLES.forget(str(asked.get("code")))}
    return {"error": f"op: http, socket, restore or forget, not {op!r}"}
